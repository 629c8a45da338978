# t_questioned.sh --- records whose flags or maps contradict each other
# (lib/find/sanity.c), made with debugfs -w: never edited, nor the blocks they
# map, in any mode; left for e2fsck and reported.
#
# Image "inline" (ext4, inline_data, 1k blocks, no journal):
#
#   dir     an inline directory holding the removed name of a deleted +s
#           file, given the extents flag too (flags 0x10080000)
#   dev     a block device, +s, with the extents flag (0x80001)
#   gone    a deleted +s record (no links) with both flags (0x10080001)
#   freed   a deleted record, not +s, with both flags (0x10080000)
#
# gone and freed are the controls: pass 1 asks a record with no links
# nothing (e2fsck -fn is silent about them), so neither does e2secrm,
# and they are scrubbed as any deleted record (zeros but i_extra_isize:
# gone in every mode, freed with --free-inodes and --sanitize), never
# left for an e2fsck that would not settle them.  (A free record that
# still has links is refused by the live map before any plan, in the
# modes that scrub free records: t_livemap.)
#
# Image "unwritten" (ext4, 1k blocks, no journal):
#
#   pre     a live +s file whose unwritten extents hold old bytes, with
#           the htree flag (0x81001)
#   other   the same, not +s (0x81000)
#
# Image "hidden" (ext4, inline_data, 1k blocks, no journal):
#
#   hidden  a live plain file whose extent tree the inline-data flag
#           hides (0x10080000), its blocks free in the bitmap: e2fsck -fy
#           clears the inline flag and gives the file its blocks back, so
#           they are never free space to wipe (--sanitize on ff034e3
#           zeroed them, and the file read as zeros after e2fsck -fy)
#
# Each image runs with -y, -y --sanitize, -y --free-inodes and
# -y --dir-slack.  For every record and mode: its bytes in the inode table
# (but the controls') are unchanged, and so are the blocks
# under its extents (unwritten);
# e2fsck -fn finds nothing it did not find before (no new line, exit no
# higher).  Where the mode would have edited it (every mode for the +s
# records and the directory, --free-inodes and --sanitize for freed,
# --sanitize for other), the report names it, "left for e2fsck", and the
# JSON lists it as questioned.  Exit status, documented: "inline" 5 in
# every mode (1: the deleted +s records are scrubbed; 4: records left);
# "unwritten" 4 with -y, --free-inodes and --dir-slack (nothing else to
# do; records left), 5 with --sanitize (free blocks wiped too); "hidden"
# 0 but with --sanitize, 5 (free space wiped, hidden's blocks left).
# For hidden, also: e2fsck -fy of the result reads the file as it was.
. "$(dirname "$0")/../lib.sh"

W=$T/w
mkdir -p "$W"

# rec IMG INO: a digest of record INO's bytes as the inode table holds
# them.
rec() {
	loc=$(debugfs -R "imap <$2>" "$1" 2>/dev/null | sed -n \
	      's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	set -- "$1" $loc
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	is=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Inode size: *//p')
	dd if="$1" bs=1 skip=$(($2 * bs + $3)) count="$is" 2>/dev/null |
		sha256sum | cut -d' ' -f1
}

# blocks IMG FILE: a digest of the blocks under FILE's extents.
blocks() {
	debugfs -R "ex $2" "$1" 2>/dev/null | awk 'NR > 1 { print $8, $10 }' |
	while read -r s e; do
		dd if="$1" bs=1024 skip="$s" count=$((e - s + 1)) 2>/dev/null
	done | sha256sum | cut -d' ' -f1
}

# ino IMG PATH
ino() {
	debugfs -R "stat $2" "$1" 2>/dev/null |
		sed -n 's/^Inode: \([0-9]*\).*/\1/p'
}

# fsck_lines IMG OUT: what e2fsck -fn says of IMG, but its progress.
fsck_lines() {
	e2fsck -fn "$1" 2>/dev/null | sed "s|$1|IMG|g" |
		grep -v -e '^Pass ' -e '^$' >"$2"
	return 0
}

mk_inline() {
	mkimg "$1" 4M -t ext4 -O inline_data,^has_journal -b 1024
	printf 'SECRET-QUESTIONED' >"$W/s"
	dfs "$1" <<EOF
mkdir dir
write $W/s dir/keep
write $W/s dir/secret
write $W/s gone
write $W/s freed
mknod dev b 8 1
sif dir/secret flags 0x10000001
sif gone flags 0x10000001
rm dir/secret
rm gone
rm freed
sif dev flags 0x80001
sif dir flags 0x10080000
EOF
	# The deleted records by number: their names are gone.
	dfs "$1" <<EOF
sif <$gone> flags 0x10080001
sif <$freed> flags 0x10080000
EOF
}

mk_unwritten() {
	mkimg "$1" 4M -t ext4 -O ^has_journal -b 1024
	dfs "$1" <<EOF
write /dev/null pre
fallocate pre 0 7
sif pre size 8192
write /dev/null other
fallocate other 0 7
sif other size 8192
EOF
	# Old bytes under the unwritten extents, as a deleted file leaves.
	for f in pre other; do
		debugfs -R "ex $f" "$1" 2>/dev/null |
		awk 'NR > 1 { print $8, $10 }' | while read -r s e; do
			yes OLD-BYTES | head -c $(((e - s + 1) * 1024)) |
			dd of="$1" bs=1024 seek="$s" conv=notrunc 2>/dev/null
		done
	done
	dfs "$1" <<EOF
sif pre flags 0x81001
sif other flags 0x81000
EOF
}

mk_hidden() {
	mkimg "$1" 4M -t ext4 -O inline_data,^has_journal -b 1024
	yes KEEP-HIDDEN | head -c 3000 >"$W/h"
	dfs "$1" <<EOF
write $W/h hidden
sif hidden flags 0x10080000
EOF
	debugfs -R "ex hidden" "$1" 2>/dev/null | awk 'NR > 1 { print $8, $10 }' |
	while read -r s e; do
		echo "freeb $s $((e - s + 1))"
	done | dfs "$1"
}

# The deleted records' numbers, in creation order after lost+found (11):
# dir 12, keep 13, secret 14, gone 15, freed 16, dev 17 (made before any
# is removed, so none is used twice).  Checked below, once built.
gone=15
freed=16

# check NAME IMG ORIG INO MODE_REPORTS RC_EXPECTED [FILE]: one record, one
# mode, after the run whose output is in $W/out and $W/json.
check() {
	name=$1 img=$2 orig=$3 i=$4 reports=$5 want=$6 file=$7
	if [ "$reports" = scrubbed ]; then
		if [ -n "$(debugfs -R "stat <$i>" "$img" 2>/dev/null |
			   grep -e 'Flags: 0x[1-9a-f]' -e 'Mode: *0[1-7]')" ]
		then
			fail "$name" "record $i not scrubbed (exit $rc)"
			return
		fi
	elif [ "$(rec "$img" "$i")" != "$(rec "$orig" "$i")" ]; then
		fail "$name" "record $i changed (exit $rc)"
		return
	fi
	if [ -n "$file" ] &&
	   [ "$(blocks "$img" "$file")" != "$(blocks "$orig" "$file")" ]; then
		fail "$name" "blocks under $file's extents changed"
		return
	fi
	if [ "$rc" != "$want" ]; then
		fail "$name" "exit $rc, expected $want: $(head -c 300 "$W/out")"
		return
	fi
	fsck_lines "$img" "$W/fsck.after"
	e2fsck -fn "$img" >/dev/null 2>&1
	fa=$?
	new=$(grep -v -x -F -f "$W/fsck.before" "$W/fsck.after" | head -3)
	if [ "$fa" -gt "$fb" ] || [ -n "$new" ]; then
		fail "$name" "e2fsck -fn worse after (exit $fb -> $fa): $new"
		return
	fi
	if [ "$reports" = yes ]; then
		if ! grep -E -q "inodes? ([0-9]+, )*$i[,:].*left for e2fsck" \
		     "$W/out"; then
			fail "$name" "the report does not say record $i was left"
			return
		fi
		if ! jq -e ".questioned[] | select(.inode == $i)" "$W/json" \
		     >/dev/null 2>&1; then
			fail "$name" \
				"the JSON does not list record $i as questioned"
			return
		fi
	fi
	pass "$name"
}

# run IMG MODE...: a fresh copy of IMG, through -y with MODE.
run() {
	orig=$1
	shift
	cp "$orig" "$W/y.img"
	rm -f "$W/json"
	"$E2SECRM" -y "$@" --json "$W/json" "$W/y.img" >"$W/out" 2>&1
	rc=$?
}

mk_inline "$W/inline.img"
mk_unwritten "$W/unwritten.img"
mk_hidden "$W/hidden.img"
hidden=$(ino "$W/hidden.img" hidden)
dir=$(ino "$W/inline.img" dir)
if [ "$(debugfs -R "stat <$gone>" "$W/inline.img" 2>/dev/null |
	sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')" != 0x10080001 ]; then
	fail "questioned image" "inode $gone is not the deleted +s record"
	exit 0
fi
dev=$(ino "$W/inline.img" dev)
pre=$(ino "$W/unwritten.img" pre)
other=$(ino "$W/unwritten.img" other)

# Preconditions: e2fsck questions each record as built.
fsck_lines "$W/inline.img" "$W/fsck.inline"
fsck_lines "$W/unwritten.img" "$W/fsck.unwritten"
for i in $dir $dev; do
	if ! grep -q -E "^Inode $i |inode $i[ ,]|\\(inode $i\\)" \
	     "$W/fsck.inline"; then
		fail "questioned image" \
			"e2fsck -fn does not question inode $i as built"
		exit 0
	fi
done
for i in $pre $other; do
	if ! grep -q "^Inode $i " "$W/fsck.unwritten"; then
		fail "questioned image" \
			"e2fsck -fn does not question inode $i as built"
		exit 0
	fi
done
fsck_lines "$W/hidden.img" "$W/fsck.hidden"
hblk=$(debugfs -R "ex hidden" "$W/hidden.img" 2>/dev/null |
	awk 'NR == 2 { print $8 }')
if ! grep -q "^Inode $hidden " "$W/fsck.hidden" || [ -z "$hblk" ] ||
   ! debugfs -R "testb $hblk" "$W/hidden.img" 2>/dev/null |
	grep -q "not in use"; then
	fail "questioned image" \
		"hidden is not questioned, or its blocks are not free"
	exit 0
fi
if [ "$(count OLD-BYTES "$W/unwritten.img")" = 0 ]; then
	fail "questioned image" "no old bytes under the unwritten extents"
	exit 0
fi

for mode in "" --sanitize --free-inodes --dir-slack; do
	m=${mode:--y}
	cp "$W/fsck.inline" "$W/fsck.before"
	e2fsck -fn "$W/inline.img" >/dev/null 2>&1
	fb=$?
	run "$W/inline.img" $mode
	check "questioned dir $m" "$W/y.img" "$W/inline.img" "$dir" yes 5
	check "questioned device $m" "$W/y.img" "$W/inline.img" "$dev" yes 5
	check "questioned deleted +s (no links: control) $m" "$W/y.img" \
		"$W/inline.img" "$gone" scrubbed 5
	case $mode in --sanitize|--free-inodes) r=scrubbed ;; *) r=no ;; esac
	check "questioned free record (no links: control) $m" "$W/y.img" \
		"$W/inline.img" "$freed" $r 5

	cp "$W/fsck.unwritten" "$W/fsck.before"
	e2fsck -fn "$W/unwritten.img" >/dev/null 2>&1
	fb=$?
	run "$W/unwritten.img" $mode
	case $mode in --sanitize) want=5 r=yes ;; *) want=4 r=no ;; esac
	check "questioned unwritten +s $m" "$W/y.img" "$W/unwritten.img" \
		"$pre" yes $want pre
	check "questioned unwritten $m" "$W/y.img" "$W/unwritten.img" \
		"$other" $r $want other

	cp "$W/fsck.hidden" "$W/fsck.before"
	e2fsck -fn "$W/hidden.img" >/dev/null 2>&1
	fb=$?
	run "$W/hidden.img" $mode
	case $mode in --sanitize) want=5 r=yes ;; *) want=0 r=no ;; esac
	check "questioned hidden map $m" "$W/y.img" "$W/hidden.img" \
		"$hidden" $r $want hidden
	# What e2fsck -fy makes of it: the file, as it was.
	cp "$W/hidden.img" "$W/h0.img"
	e2fsck -fy "$W/h0.img" >/dev/null 2>&1
	e2fsck -fy "$W/y.img" >/dev/null 2>&1
	if [ "$(debugfs -R "cat hidden" "$W/y.img" 2>/dev/null | sha256sum)" != \
	     "$(debugfs -R "cat hidden" "$W/h0.img" 2>/dev/null | sha256sum)" ]
	then
		fail "questioned hidden map, after e2fsck -fy $m" \
			"the file no longer reads as it did"
	else
		pass "questioned hidden map, after e2fsck -fy $m"
	fi
done
