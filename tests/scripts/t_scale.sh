# t_scale.sh --- output that scales (issue 36, item 8): what is said per
# inode is said once per kind without -v, so that a run on a filesystem
# of millions of files prints a screenful, not a log that cron mails.
#
# The image: a few hundred +s files written and deleted by the kernel,
# then the journal removed and made again (tune2fs -O ^has_journal, -O
# has_journal), so that no copy of their block maps is left anywhere:
# every one of them is a lost map.  Without -v, at most a few lines speak
# of them, with a count, the first five inode numbers and "and N more";
# with -v, one line each; the JSON report lists every one; no run, with
# or without -v, prints a name of a deleted +s file (they are the secret).
. "$(dirname "$0")/../lib.sh"

N=300
I=$T/scale.img
why=$(can_loop_mount)
if [ $? != 0 ]; then
	skip "scale: lost maps" "loop mount unavailable: $why"
	exit 0
fi

mkimg "$I" 64M -t ext4 -N 2048 || { fail "scale: image" "mke2fs"; exit 0; }
kmount "$I" || { fail "scale: image" "mount"; exit 0; }
mkdir "$T/mnt/d"
i=1
while [ "$i" -le "$N" ]; do
	f=$T/mnt/d/SNAME-$$-$i
	echo "SECRET-SCALE-$i" >"$f"
	chattr +s "$f"
	i=$((i + 1))
done
echo KEEP >"$T/mnt/keep"
sync
rm -rf "$T/mnt/d"
sync
kumount
tune2fs -O ^has_journal "$I" >/dev/null 2>&1 &&
	tune2fs -O has_journal "$I" >/dev/null 2>&1 ||
	{ fail "scale: image" "tune2fs could not make the journal again"; exit 0; }
before=$(sha "$I")

# Without -v: one line for the kind (its count, the first five inode
# numbers, why), one for what answers it.
name="scale: $N lost maps, said in a few lines"
run_e2secrm -n --no-state "$I"
lines=$(echo "$out" | grep -c 'inodes\? [0-9]\|block map')
first=$(echo "$out" | grep "$N secure-delete files lost their block maps")
if [ $((rc & 4)) = 4 ] && [ "$(sha "$I")" = "$before" ] &&
   [ "$lines" = 1 ] && [ "$(echo "$out" | wc -l)" -le 15 ] &&
   echo "$first" | grep -q "(inodes [0-9]*, [0-9]*, [0-9]*, [0-9]*, [0-9]* and $((N - 5)) more): not in their records" &&
   echo "$out" | grep -q 'may remain in free space: .*--all-free-if-lost' &&
   ! echo "$out" | grep -q 'inode [0-9]*:'; then
	pass "$name ($(echo "$out" | wc -l) lines, exit $rc)"
else
	fail "$name" "rc=$rc, $lines lines about inodes: $(echo "$out" | head -12)"
fi

# -v: every one, one line each.
name="scale: -v says each lost map"
run_e2secrm -n -v --no-state "$I"
echo "$out" | sed -n 's/.*: inode \([0-9]*\): its block map is lost: .*/\1/p' |
	sort -n >"$T/v.inodes"
if [ $((rc & 4)) = 4 ] && [ "$(wc -l <"$T/v.inodes")" = "$N" ] &&
   [ "$(sort -u "$T/v.inodes" | wc -l)" = "$N" ]; then
	pass "$name ($N lines)"
else
	fail "$name" "rc=$rc, $(wc -l <"$T/v.inodes") lines"
fi

# The summary names the first five that -v names.
want=$(head -5 "$T/v.inodes" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
if echo "$first" | grep -q "(inodes $want and $((N - 5)) more)"; then
	pass "scale: the summary names the first five inodes ($want)"
else
	fail "scale: the summary names the first five inodes" \
		"want $want: $first"
fi

# The JSON report lists every one, whatever -v says.
name="scale: the JSON report lists every lost map"
if ! command -v jq >/dev/null 2>&1; then
	skip "$name" "no jq"
else
	"$E2SECRM" -n --no-state --json - "$I" 2>/dev/null >"$T/j.json"
	jq -r '.unrecoverable[] | select(.why == "map_gone") | .inode' \
		"$T/j.json" 2>/dev/null | sort -n >"$T/j.inodes"
	if cmp -s "$T/j.inodes" "$T/v.inodes"; then
		pass "$name ($(wc -l <"$T/j.inodes") inodes, as -v)"
	else
		fail "$name" "$(wc -l <"$T/j.inodes") inodes, -v $N"
	fi
fi

# No run names a deleted +s file: the names are the secret.
name="scale: no name of a deleted +s file is printed"
run_e2secrm -n -v --no-state "$I"
o1="$out$err"
run_e2secrm -y --no-state "$I"
if ! echo "$o1$out$err" | grep -q "SNAME-$$"; then
	pass "$name"
else
	fail "$name" "$(echo "$o1$out$err" | grep "SNAME-$$" | head -3)"
fi

# -y says the same once, and what is left: exit 5.
name="scale: -y says the lost maps once, and exits 5"
if [ "$rc" = 5 ] &&
   [ "$(echo "$out" | grep -c 'lost their block maps')" = 1 ] &&
   echo "$out" | grep -q "$N secure-delete files lost all or part of a block map" &&
   [ "$(echo "$out" | grep -c 'inodes\? [0-9]\|block map')" = 2 ]; then
	pass "$name"
else
	fail "$name" "rc=$rc $(echo "$out" | head -20)"
fi
