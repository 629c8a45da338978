# t_history.sh --- historic block maps read through the journal: a
# deleted +s file whose record lost its map (as the kernel's unlink does)
# and whose extent leaf block on disk no longer says anything (reused or
# overwritten) is still wiped, because the journal holds copies of both
# its inode table block and its leaf, from when it was alive.
. "$(dirname "$0")/../lib.sh"

I=$T/h.img
mkimg "$I" 16M -t ext4 -b 4096
# Every other block free: the secret gets an extent tree of depth 1.
head -c 4096 /dev/urandom >"$T/one"
i=0
while [ $i -lt 200 ]; do
	echo "write $T/one frag$i"
	i=$((i + 1))
done | dfs "$I"
i=0
while [ $i -lt 200 ]; do
	echo "rm frag$i"
	i=$((i + 2))
done | dfs "$I"
canary "$T/secret" "HIST-SECRET-$$" 300000
echo "write $T/secret s.bin" | dfs "$I"
fl=$(debugfs -R "stat s.bin" "$I" 2>/dev/null |
	sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
printf 'set_inode_field s.bin flags 0x%x\n' $((fl | 1)) | dfs "$I"
ino=$(debugfs -R "stat s.bin" "$I" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
leaf=$(debugfs -R "stat s.bin" "$I" 2>/dev/null |
	sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
itb=$(debugfs -R "imap s.bin" "$I" 2>/dev/null |
	sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
if [ -z "$leaf" ] || [ -z "$itb" ]; then
	fail "history: build" "no extent leaf (leaf='$leaf' itb='$itb')"
	exit 0
fi
pass "history: build (inode $ino, leaf $leaf, inode table block $itb)"

# The journal keeps the inode table block and the leaf, as the kernel's
# transactions would; replayed (a no-op) so the journal is empty.
dd if="$I" of="$T/itb" bs=4096 skip="$itb" count=1 2>/dev/null
dd if="$I" of="$T/leaf" bs=4096 skip="$leaf" count=1 2>/dev/null
printf 'jo -c\njw -b %s,%s %s\njc\n' "$itb" "$leaf" "$T/itleaf" >"$T/cmds"
cat "$T/itb" "$T/leaf" >"$T/itleaf"
dfs "$I" <"$T/cmds"
e2fsck -y -E journal_only "$I" >/dev/null 2>&1

# Delete; zero the record's map as the kernel's unlink does, and leave
# nothing of the leaf on disk.
{
	echo "rm s.bin"
	# debugfs names the last three words IND, DIND and TIND.
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 IND DIND TIND; do
		printf 'set_inode_field <%s> block[%s] 0\n' "$ino" "$i"
	done
} | dfs "$I"
head -c 4096 /dev/urandom | dd of="$I" bs=4096 seek="$leaf" conv=notrunc \
	2>/dev/null
e2fsck -fn "$I" >/dev/null 2>&1 && pass "history: image clean before" ||
	fail "history: image clean before" "e2fsck -fn"
before=$(count "HIST-SECRET-$$" "$I")

run_e2secrm -n -v "$I"
if [ "$rc" = 4 ] && echo "$out" | grep -q "map-from-journal" &&
   echo "$out" | grep -q "extent-tree .*from journal"; then
	pass "history: map and leaf read from the journal"
else
	fail "history: map and leaf read from the journal" "rc=$rc $out"
fi
run_e2secrm -y "$I"
after=$(count "HIST-SECRET-$$" "$I")
if [ "$rc" = 1 ] && [ "$before" -gt 0 ] && [ "$after" = 0 ]; then
	pass "history: all data wiped through the journal's leaf ($before lines)"
else
	fail "history: all data wiped" "rc=$rc, $before before, $after after"
fi
e2fsck -fn "$I" >/dev/null 2>&1 && pass "history: e2fsck -fn clean" ||
	fail "history: e2fsck -fn clean" "not clean"
run_e2secrm -y "$I"
[ "$rc" = 0 ] && pass "history: second run finds nothing" ||
	fail "history: second run finds nothing" "rc=$rc $out"

# A removed name whose entry header was overwritten (as an htree split or
# a later entry leaves it): the library's iteration cannot see it, but a
# journal copy of the directory block names it, so it is found in the
# slack by its bytes.
I=$T/s.img
mkimg "$I" 16M -t ext4 -b 4096
echo x >"$T/x"
N="FRAGNAME-SECRET-$$"
printf 'mkdir d\ncd d\nwrite %s aaa-keep\nwrite %s %s\nwrite %s zzz-keep\n' \
	"$T/x" "$T/x" "$N" "$T/x" | dfs "$I"
printf 'set_inode_field d/%s flags 0x80001\n' "$N" | dfs "$I"
dblk=$(debugfs -R "bmap d 0" "$I" 2>/dev/null)
dd if="$I" of="$T/dblk" bs=4096 skip="$dblk" count=1 2>/dev/null
printf 'jo\njw -b %s %s\njc\n' "$dblk" "$T/dblk" | dfs "$I"
e2fsck -y -E journal_only "$I" >/dev/null 2>&1
printf 'cd d\nrm %s\n' "$N" | dfs "$I"
# Spoil the removed entry's header: inode and rec_len garbage.
off=$(dd if="$I" bs=4096 skip="$dblk" count=1 2>/dev/null |
	grep -a -b -o "$N" | head -1 | cut -d: -f1)
if [ -z "$off" ]; then
	fail "history: fragment: build" "name not in the directory block"
else
	printf '\377\377\377\377\001\000' | dd of="$I" bs=1 \
		seek=$((dblk * 4096 + off - 8)) conv=notrunc 2>/dev/null
	e2fsck -fn "$I" >/dev/null 2>&1 || e2fsck -fy "$I" >/dev/null 2>&1
	run_e2secrm -y "$I"
	n=$(count "$N" "$I")
	if [ "$n" = 0 ] && debugfs -R "ls d" "$I" 2>/dev/null |
	   grep -q zzz-keep && e2fsck -fn "$I" >/dev/null 2>&1; then
		pass "history: a headerless name fragment in slack is wiped"
	else
		fail "history: a headerless name fragment in slack is wiped" \
			"rc=$rc, $n left: $out"
	fi
fi
