# t_methods.sh --- every wipe method (-m zero, random, discard,
# secdiscard) on an image file and, where loop devices are available, on
# a block device: the secret is gone, the filesystem clean, a second run
# finds nothing, and the report says how discard was done.
. "$(dirname "$0")/../lib.sh"

# A deleted +s file whose map debugfs' kill_file leaves in the record.
build() {
	mkimg "$1" 16M -t ext4
	canary "$T/secret" "METHOD-SECRET-$$" 60000
	canary "$T/keep" "METHOD-KEEP-$$" 20000
	printf 'write %s s.bin\nwrite %s keep.bin\n' "$T/secret" "$T/keep" |
		dfs "$1"
	fl=$(debugfs -R "stat s.bin" "$1" 2>/dev/null |
		sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	printf 'set_inode_field s.bin flags 0x%x\nrm s.bin\n' $((fl | 1)) |
		dfs "$1"
}

method_case() {
	name=$1 m=$2 dev=$3 img=$4
	run_e2secrm -y -m "$m" "$dev"
	if [ "$rc" != 1 ]; then
		fail "$name: wipe exits 1" "rc=$rc $err"
		return
	fi
	pass "$name: wipe exits 1"
	case $m in
	discard|secdiscard)
		echo "$out" | grep -q "blocks discarded, .* zeroed by the device" &&
			pass "$name: report says how discard was done" ||
			fail "$name: report says how discard was done" "$out"
		;;
	esac
	[ "$(count "METHOD-SECRET-$$" "$img")" = 0 ] &&
		pass "$name: no secret left" ||
		fail "$name: no secret left" "still in the image"
	[ "$(count "METHOD-KEEP-$$" "$img")" -gt 0 ] &&
		pass "$name: live file kept" ||
		fail "$name: live file kept" "keep token gone"
	e2fsck -fn "$dev" >/dev/null 2>&1 && pass "$name: e2fsck -fn clean" ||
		fail "$name: e2fsck -fn clean" "not clean"
	run_e2secrm -y -m "$m" "$dev"
	[ "$rc" = 0 ] && pass "$name: second run finds nothing" ||
		fail "$name: second run finds nothing" "rc=$rc $out"
}

for m in zero random discard secdiscard; do
	build "$T/m.img"
	method_case "method $m, image file" "$m" "$T/m.img" "$T/m.img"
done

if why=$(can_loop_mount); then
	for m in discard secdiscard; do
		build "$T/b.img"
		loop=$(losetup -f --show "$T/b.img") || {
			fail "method $m, block device" "losetup failed"
			continue
		}
		method_case "method $m, block device" "$m" "$loop" "$T/b.img"
		losetup -d "$loop"
	done
else
	skip "method discard, block device" "$why"
	skip "method secdiscard, block device" "$why"
fi

run_e2secrm -m shred "$T/m.img"
[ "$rc" = 16 ] && pass "method: unknown method is a usage error" ||
	fail "method: unknown method is a usage error" "rc=$rc"

# --all-free-if-lost: a secure-delete file whose map is gone everywhere
# (no journal copy: debugfs writes none) makes the run wipe all free
# space, so that even its unknown blocks are gone; without a lost map the
# option does nothing more.
mkimg "$T/l.img" 16M -t ext4
canary "$T/secret" "LOST-SECRET-$$" 60000
canary "$T/free" "LOST-FREE-$$" 30000
printf 'write %s s.bin\nwrite %s f.bin\n' "$T/secret" "$T/free" | dfs "$T/l.img"
ino=$(debugfs -R "stat s.bin" "$T/l.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
fl=$(debugfs -R "stat s.bin" "$T/l.img" 2>/dev/null |
	sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
{
	printf 'set_inode_field s.bin flags 0x%x\nrm s.bin\nrm f.bin\n' \
		$((fl | 1))
	# debugfs names the last three words IND, DIND and TIND.
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 IND DIND TIND; do
		printf 'set_inode_field <%s> block[%s] 0\n' "$ino" "$i"
	done
} | dfs "$T/l.img"
cp "$T/l.img" "$T/l2.img"
run_e2secrm -y "$T/l2.img"
if [ "$rc" = 5 ] && [ "$(count "LOST-SECRET-$$" "$T/l2.img")" -gt 0 ]; then
	pass "all-free: without it, a lost map is reported and left (exit 5)"
else
	fail "all-free: without it, a lost map is reported and left" "rc=$rc $out"
fi
run_e2secrm -y --all-free-if-lost "$T/l.img"
if [ "$rc" = 1 ] && [ "$(count "LOST-SECRET-$$" "$T/l.img")" = 0 ] &&
   echo "$out" | grep -q "free space, the journal.s stale blocks and removed names were wiped"; then
	pass "all-free-if-lost: the lost file's data is gone (exit 1)"
else
	fail "all-free-if-lost: the lost file's data is gone" "rc=$rc $out"
fi
[ "$(count "LOST-FREE-$$" "$T/l.img")" = 0 ] &&
	pass "all-free-if-lost: all free space wiped" ||
	fail "all-free-if-lost: all free space wiped" "free token left"
e2fsck -fn "$T/l.img" >/dev/null 2>&1 &&
	pass "all-free-if-lost: e2fsck -fn clean" ||
	fail "all-free-if-lost: e2fsck -fn clean" "not clean"
mkimg "$T/n.img" 16M -t ext4
canary "$T/free" "NOLOSS-FREE-$$" 30000
printf 'write %s s.bin\nwrite %s f.bin\n' "$T/secret" "$T/free" | dfs "$T/n.img"
printf 'set_inode_field s.bin flags 0x%x\nrm s.bin\nrm f.bin\n' $((fl | 1)) |
	dfs "$T/n.img"
run_e2secrm -y --all-free-if-lost "$T/n.img"
if [ "$rc" = 1 ] && [ "$(count "NOLOSS-FREE-$$" "$T/n.img")" -gt 0 ]; then
	pass "all-free-if-lost: no lost map, free space kept"
else
	fail "all-free-if-lost: no lost map, free space kept" "rc=$rc"
fi
run_e2secrm -y --all-free "$T/n.img"
if [ "$rc" = 1 ] && [ "$(count "NOLOSS-FREE-$$" "$T/n.img")" = 0 ] &&
   e2fsck -fn "$T/n.img" >/dev/null 2>&1; then
	pass "all-free: every free block wiped, e2fsck clean"
else
	fail "all-free: every free block wiped" "rc=$rc"
fi

# --all-journal: every log block goes (the journal is empty after the
# run's own wipes), the kernel-facing journal still checks clean.
mkimg "$T/j.img" 16M -t ext4
canary "$T/jdata" "JOURNAL-ANY-$$" 4096
printf 'jo\njw -b 9000 %s\njc\n' "$T/jdata" | dfs "$T/j.img"
e2fsck -y -E journal_only "$T/j.img" >/dev/null 2>&1
before=$(count "JOURNAL-ANY-$$" "$T/j.img")
run_e2secrm -y --all-journal "$T/j.img"
after=$(count "JOURNAL-ANY-$$" "$T/j.img")
if [ "$rc" = 1 ] && [ "$before" -gt 0 ] && [ "$after" -lt "$before" ] &&
   [ "$(debugfs -R 'cat <8>' "$T/j.img" 2>/dev/null | grep -a -c "JOURNAL-ANY-$$")" = 0 ]
then
	pass "all-journal: no stale copy left in the journal"
else
	fail "all-journal: no stale copy left in the journal" \
		"rc=$rc, $before before, $after after"
fi
e2fsck -fn "$T/j.img" >/dev/null 2>&1 &&
	pass "all-journal: e2fsck -fn clean" ||
	fail "all-journal: e2fsck -fn clean" "not clean"

# --verify: every wiped block is read back from the device.
for m in zero random discard; do
	build "$T/v.img"
	run_e2secrm -y --verify --all-free -m "$m" "$T/v.img"
	if [ "$rc" = 1 ] &&
	   echo "$out" | grep -q "verified [1-9][0-9]* blocks read back: all as written"; then
		pass "verify -m $m: every wiped block reads back as written"
	else
		fail "verify -m $m" "rc=$rc $out"
	fi
done

# --dir-slack: every removed name in every live directory, +s or not.
mkimg "$T/d.img" 16M -t ext4
echo x >"$T/x"
printf 'mkdir dd\ncd dd\nwrite %s keep-name\nwrite %s SLACK-PLAIN-%s\nwrite %s other\nrm SLACK-PLAIN-%s\n' \
	"$T/x" "$T/x" "$$" "$T/x" "$$" | dfs "$T/d.img"
run_e2secrm -y "$T/d.img"
[ "$rc" = 0 ] && [ "$(count "SLACK-PLAIN-$$" "$T/d.img")" -gt 0 ] &&
	pass "dir-slack: without it, a plain removed name stays (exit 0)" ||
	fail "dir-slack: without it, a plain removed name stays" "rc=$rc"
run_e2secrm -y --dir-slack "$T/d.img"
if [ "$rc" = 1 ] && [ "$(count "SLACK-PLAIN-$$" "$T/d.img")" = 0 ] &&
   debugfs -R "ls dd" "$T/d.img" 2>/dev/null | grep -q keep-name &&
   e2fsck -fn "$T/d.img" >/dev/null 2>&1; then
	pass "dir-slack: the removed name is gone, live names and e2fsck fine"
else
	fail "dir-slack: the removed name is gone" "rc=$rc $out"
fi
