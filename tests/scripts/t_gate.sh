# t_gate.sh --- no write before every check has passed.
#
# tests/e2secrm-cut ends the process with status 98 on any write that
# comes before the command's "every check has passed" point (the call
# right before e2sr_begin_write(); tests/cut/cut_io.c).  This runs it,
# uncut, over images that take every path to that point: a plain wipe, a
# journal replay, an orphan release, and each refusal the open, the scan
# and the plan check can make.  A run must never end in 98; a refusal
# (exit bit 8) must leave the image byte-identical, and -n must give the
# same exit status and the same message as -y.  The gate itself is shown to work first:
# E2SECRM_CUT_SELFTEST makes the io manager write at its first open.
. "$(dirname "$0")/../lib.sh"

: "${E2SECRM_CUT_PROG:?E2SECRM_CUT_PROG must name tests/e2secrm-cut}"

# flags_or IMG PATH BITS: set BITS in a file's i_flags.
flags_or() {
	fl=$(debugfs -R "stat $2" "$1" 2>/dev/null |
		sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	printf 'set_inode_field %s flags 0x%x\n' "$2" $((fl | $3)) | dfs "$1"
}

# base IMG MKE2FS-OPTIONS...: live files and a deleted +s file.
base() {
	img=$1
	shift
	mkimg "$img" 32M -b 4096 "$@" || return 1
	canary "$T/secret" "GATE-SECRET-$$-token" 20000
	canary "$T/keep" "GATE-KEEP-$$-token" 20000
	dfs "$img" <<EOT
write $T/keep keep
write $T/secret secret
EOT
	flags_or "$img" secret 1
	echo "rm secret" | dfs "$img"
}

# gate NAME IMG [ARGS...]: -y and -n through the cut io manager.
gate() {
	name=$1 img=$2
	shift 2
	cp "$img" "$T/y.img"
	cp "$img" "$T/n.img"
	before=$(sha "$img")
	"$E2SECRM_CUT_PROG" -y "$@" "$T/y.img" >"$T/y.out" 2>"$T/y.err"
	yrc=$?
	"$E2SECRM_CUT_PROG" -n "$@" "$T/n.img" >"$T/n.out" 2>"$T/n.err"
	nrc=$?
	if [ "$yrc" = 98 ] || [ "$nrc" = 98 ]; then
		fail "$name: no write before the checks" \
			"-y $yrc, -n $nrc: $(cat "$T/y.err" "$T/n.err")"
		return
	fi
	pass "$name: no write before the checks (-y $yrc)"
	if [ "$(sha "$T/n.img")" != "$before" ]; then
		fail "$name: -n wrote nothing" "image changed"
	fi
	if [ $((yrc & 8)) = 0 ]; then
		return
	fi
	if [ "$(sha "$T/y.img")" = "$before" ] &&
	   [ $((nrc & 8)) != 0 ] &&
	   [ "$(sed "s#$T/y.img#IMG#" "$T/y.err")" = \
	     "$(sed "s#$T/n.img#IMG#" "$T/n.err")" ]; then
		pass "$name: refusal writes nothing, -n refuses alike"
	else
		fail "$name: refusal writes nothing, -n refuses alike" \
			"-y $yrc $(cat "$T/y.err"); -n $nrc $(cat "$T/n.err")"
	fi
}

# The gate fires: a write at the first open ends the run with 98.
base "$T/self.img" -t ext4 || fail "gate: image" "mke2fs failed"
E2SECRM_CUT_SELFTEST=1 "$E2SECRM_CUT_PROG" -n "$T/self.img" \
	>/dev/null 2>&1
if [ $? = 98 ]; then
	pass "gate: a write before the checks is caught"
else
	fail "gate: a write before the checks is caught" "no exit 98"
fi

# A plain wipe, ext4 and ext2.
base "$T/plain.img" -t ext4
gate "gate: ext4 wipe" "$T/plain.img"
gate "gate: ext4 sanitize" "$T/plain.img" --sanitize
base "$T/ext2.img" -t ext2
gate "gate: ext2 wipe" "$T/ext2.img"

# A journal replay decided in memory, written after the checks; with
# checksums (jo -c), which debugfs turns on in the journal superblock.
cp "$T/plain.img" "$T/rec.img"
head -c 4096 /dev/zero | tr '\0' 'R' >"$T/rblk"
fb=$(echo "ffb 1 6000" | debugfs -f - "$T/rec.img" 2>/dev/null |
	sed -n 's/^Free blocks found: *\([0-9]*\).*/\1/p')
dfs "$T/rec.img" <<EOT
jo -c
jw -b $fb $T/rblk
jc
EOT
gate "gate: replay then wipe" "$T/rec.img"

# A replay onto a filesystem with errors: refused, replay unwritten.
cp "$T/rec.img" "$T/recerr.img"
echo "ssv state 3" | dfs "$T/recerr.img"
gate "gate: replay, errors recorded" "$T/recerr.img"

# A replay that leaves a block bitmap failing its checksum.
cp "$T/plain.img" "$T/recbm.img"
bb=$(dumpe2fs "$T/recbm.img" 2>/dev/null |
	sed -n 's/^ *Block bitmap at \([0-9]*\).*/\1/p' | head -1)
head -c 4096 /dev/urandom >"$T/noise"
dfs "$T/recbm.img" <<EOT
jo -c
jw -b $bb $T/noise
jc
EOT
gate "gate: replay breaks a bitmap checksum" "$T/recbm.img"
gate "gate: replay breaks a bitmap checksum, -f" "$T/recbm.img" -f

# A journal superblock whose checksum fails, with and without recovery
# (the clean one: the replay above, by e2fsck, keeps the checksums on).
cp "$T/rec.img" "$T/jsb.img"
e2fsck -y -E journal_only "$T/jsb.img" >/dev/null 2>&1
j0=$(echo "bmap <8> 0" | debugfs -f - "$T/jsb.img" 2>/dev/null |
	grep -v '^debugfs')
printf 'X' | dd of="$T/jsb.img" bs=1 seek=$((j0 * 4096 + 0x90)) \
	conv=notrunc 2>/dev/null
gate "gate: journal superblock checksum" "$T/jsb.img"
cp "$T/rec.img" "$T/jsbrec.img"
printf 'X' | dd of="$T/jsbrec.img" bs=1 seek=$((j0 * 4096 + 0x90)) \
	conv=notrunc 2>/dev/null
gate "gate: journal superblock checksum, needs recovery" "$T/jsbrec.img"

# Orphans: a list the run releases (the live file at its head, to be
# cut to its size), and a list that loops, refused.
cp "$T/plain.img" "$T/orph.img"
echo "ssv last_orphan 12" | dfs "$T/orph.img"
gate "gate: orphan list released" "$T/orph.img"
cp "$T/plain.img" "$T/orphloop.img"
printf 'ssv last_orphan 12\nsif <12> dtime 12\n' | dfs "$T/orphloop.img"
gate "gate: orphan list that loops" "$T/orphloop.img"
if [ $((yrc & 8)) != 0 ] && grep -q "listed twice" "$T/y.err"; then
	pass "gate: orphan list that loops is refused"
else
	fail "gate: orphan list that loops is refused" "-y exit $yrc"
fi

# Not clean, and -f past it.
cp "$T/plain.img" "$T/unclean.img"
echo "ssv state 0" | dfs "$T/unclean.img"
gate "gate: not clean" "$T/unclean.img"
gate "gate: not clean, -f" "$T/unclean.img" -f

# A block bitmap read as all zeros, in a filesystem of one group and no
# checksums: libext2fs' rbtree bitmaps then answer "no zero bit" to a
# search for one (found by fuzz_livemap); refused all the same.
mkimg "$T/zero.img" 8M -t ext4 -b 1024 -O ^metadata_csum,^flex_bg
canary "$T/keep" "GATE-ZERO-$$-token" 5000
echo "write $T/keep keep" | dfs "$T/zero.img"
zb=$(dumpe2fs "$T/zero.img" 2>/dev/null |
	sed -n 's/^ *Block bitmap at \([0-9]*\).*/\1/p' | head -1)
if [ "$(dumpe2fs -h "$T/zero.img" 2>/dev/null |
	sed -n 's/^Block count: *//p')" -le 8192 ] && [ -n "$zb" ]; then
	dd if=/dev/zero of="$T/zero.img" bs=1024 seek="$zb" count=1 \
		conv=notrunc 2>/dev/null
	gate "gate: block bitmap all zeros" "$T/zero.img"
	if [ $((yrc & 8)) != 0 ]; then
		pass "gate: block bitmap all zeros is refused"
	else
		fail "gate: block bitmap all zeros is refused" "-y exit $yrc"
	fi
else
	fail "gate: block bitmap all zeros: corpus" "not one group"
fi
