# t_refuse.sh --- every refusal of the safe open: one com_err line naming
# the device and the reason, exit 8, and the image's bytes unchanged.
. "$(dirname "$0")/../lib.sh"

# refuse NAME IMG PATTERN [ARGS...]
refuse() {
	name=$1 img=$2 pattern=$3
	shift 3
	# A run that may write needs -y without a terminal (t_usage).
	[ $# -gt 0 ] || set -- -y
	before=$(sha "$img")
	run_e2secrm "$@" "$img"
	after=$(sha "$img")
	lines=$(echo "$err" | wc -l)
	if [ "$rc" != 8 ]; then
		fail "$name" "exit $rc, want 8"
	elif [ "$before" != "$after" ]; then
		fail "$name" "image changed"
	elif ! echo "$err" | grep -q -- "$img" ||
	     ! echo "$err" | grep -qi -- "$pattern"; then
		fail "$name" "message: $err"
	elif [ "$lines" != 1 ]; then
		fail "$name" "$lines lines on stderr"
	else
		pass "$name"
	fi
}

mkimg "$T/base.img" 16M -t ext4

run_e2secrm -y "$T/nonexistent.img"
if [ "$rc" = 8 ] && echo "$err" | grep -q 'No such file'; then
	pass "refuse: missing file"
else
	fail "refuse: missing file" "rc=$rc err=$err"
fi

head -c 4M /dev/zero >"$T/zero.img"
refuse "refuse: not an ext filesystem" "$T/zero.img" "bad magic"

head -c 200000 "$T/base.img" >"$T/trunc.img"
refuse "refuse: truncated image" "$T/trunc.img" "while opening"

cp "$T/base.img" "$T/unclean.img"
echo "ssv state 0" | dfs "$T/unclean.img"
refuse "refuse: not cleanly unmounted" "$T/unclean.img" "not cleanly"
refuse "refuse: not cleanly unmounted, dry run" "$T/unclean.img" \
	"not cleanly" -n
run_e2secrm -n -f "$T/unclean.img"
[ "$rc" = 0 ] && pass "force: unclean accepted with -f" ||
	fail "force: unclean accepted with -f" "rc=$rc err=$err"

cp "$T/base.img" "$T/errors.img"
echo "ssv state 3" | dfs "$T/errors.img"
refuse "refuse: errors recorded" "$T/errors.img" "errors"

# A replay is a write: not on a filesystem that records errors.
cp "$T/base.img" "$T/recover.img"
printf 'feature needs_recovery\nssv state 3\n' | dfs "$T/recover.img"
refuse "refuse: journal needs recovery, errors recorded" "$T/recover.img" \
	"errors"

# A journal superblock whose log start lies outside the log.
cp "$T/base.img" "$T/badjsb.img"
jblk=$(debugfs -R "bmap <8> 0" "$T/badjsb.img" 2>/dev/null)
bsz=$(dumpe2fs -h "$T/badjsb.img" 2>/dev/null | awk '/^Block size:/ {print $3}')
printf 'feature needs_recovery\n' | dfs "$T/badjsb.img"
printf '\377\377\377\377' | dd of="$T/badjsb.img" bs=1 \
	seek=$((jblk * bsz + 28)) conv=notrunc 2>/dev/null
refuse "refuse: journal superblock corrupt, needs recovery" \
	"$T/badjsb.img" "journal superblock is corrupt"
refuse "refuse: journal superblock corrupt, dry run" "$T/badjsb.img" \
	"journal superblock is corrupt" -n

cp "$T/base.img" "$T/mmp.img"
if tune2fs -O mmp "$T/mmp.img" >/dev/null 2>&1; then
	refuse "refuse: unsupported incompat feature (mmp)" "$T/mmp.img" "mmp"
else
	fail "refuse: unsupported incompat feature (mmp)" "tune2fs -O mmp failed"
fi

cp "$T/base.img" "$T/dirdata.img"
echo "feature dirdata" | dfs "$T/dirdata.img"
refuse "refuse: incompat feature libext2fs lacks (dirdata)" \
	"$T/dirdata.img" "unsupported"

mkimg "$T/bigalloc.img" 32M -t ext4 -O bigalloc -C 16384
refuse "refuse: bigalloc" "$T/bigalloc.img" "bigalloc"

mke2fs -q -F -O journal_dev "$T/jdev.img" 4M >/dev/null 2>&1
refuse "refuse: external journal device" "$T/jdev.img" "journal"

why=$(can_loop_mount)
if [ $? = 0 ]; then
	cp "$T/base.img" "$T/mounted.img"
	kmount "$T/mounted.img"
	refuse "refuse: mounted image" "$T/mounted.img" "mounted"
	refuse "refuse: mounted image, dry run" "$T/mounted.img" "mounted" -n
	kumount
else
	skip "refuse: mounted image" "$why"
fi
