# t_order.sh --- the plan's order read from outside (DESIGN.md rule 2:
# evidence goes last), on one kernel-made image with every phase and
# every journal stage, through the dry run's --json-plan:
#   - each action's phase is its kind's (freed blocks 1, all free blocks
#     and unwritten extents 2, names and records 3, journal copies 4),
#     and phases never go back along the list: no freed block after a
#     name or record, no name or record after a journal copy;
#   - the journal's stages (bytes < copies < records < flagged) never go
#     back, and each resealed descriptor is followed by a copy of its own
#     stage (its transaction's copies, written in one piece with it);
#   - phases 1 to 4, the six kinds the image has and the four stages are
#     all there, so that no check passes on an empty list: bytes from
#     sc23's names, copies from the extent leaf's and the directories'
#     copies, records from the file synced plain before its chattr +s,
#     flagged from every +s record version and the fast-commit blocks
#     (one at least); and at least one resealed descriptor (metadata_csum
#     gives the journal its checksums);
#   - the reader refuses the same list with its journal actions reversed
#     and with its last action (a journal copy) moved first: it can fail;
#   - -y, on a copy, plans the same list and writes it, in that order.
#
# The image: ext4, 1k blocks, fast_commit, mounted commit=600; deleted +s
# files (one with an extent tree leaf), a +s file renamed then deleted, a
# +s directory with a removed name and a deleted +s subdirectory, a live
# +s file truncated and one with a range zeroed (unwritten extent), a
# file made plain and synced, then made +s, written and deleted (record
# versions with and without the flag); for the bytes stage, t_residues
# sc23's directory (a +s name whose entry header a neighbour overwrote);
# last a +s file known only to fast commits, then a crash.
. "$(dirname "$0")/../lib.sh"

M=$T/mnt
I=$T/o.img

# order_check JSON: one line per breach of the order in $T/breach
# (none: in order); fails when the JSON cannot be read.
order_check() {
	jq -r '
	def want: {data_blocks: 1, metadata_blocks: 1, all_free_blocks: 2,
		unwritten_blocks: 2, names: 3, inode_records: 3,
		free_records: 3, journal_blocks: 4}[.kind];
	def rank: {bytes: 0, copies: 1, records: 2, flagged: 3}[.stage];
	[.actions | to_entries[] | .value + {i: .key}] as $l
	| [$l[] | select(.kind == "journal_blocks")] as $j
	| ($l[] | select(.phase != want) |
	   "action \(.i): \(.kind) in phase \(.phase)"),
	  ($j[] | select(rank == null) |
	   "action \(.i): journal stage \(.stage)"),
	  (range(1; $l | length) as $k | $l[$k] |
	   select(.phase < $l[$k - 1].phase) |
	   "action \(.i): phase \(.phase) after \($l[$k - 1].phase)"),
	  (range(1; $j | length) as $k | $j[$k] |
	   select(rank < ($j[$k - 1] | rank)) |
	   "action \(.i): stage \(.stage) after \($j[$k - 1].stage)"),
	  ($l[] | select(.why == "journal_descriptor") | . as $d |
	   $l[$d.i + 1] | select(. == null or .kind != "journal_blocks" or
		.why == "journal_descriptor" or .stage != $d.stage) |
	   "action \($d.i): descriptor of stage \($d.stage) not followed" +
	   " by a copy of its stage")
	' "$1" >"$T/breach" 2>&1
}

# in_order NAME JSON: the order check, as a result line.
in_order() {
	if order_check "$2" && [ ! -s "$T/breach" ]; then
		pass "order $1"
	else
		fail "order $1" "$(head -5 "$T/breach" | tr '\n' ';')"
	fi
}

# refused NAME JSON: the order check finds the breach made in JSON.
refused() {
	if order_check "$2" && [ -s "$T/breach" ]; then
		pass "order: the reader refuses $1 ($(head -1 "$T/breach"))"
	else
		fail "order: the reader refuses $1" \
			"$(head -1 "$T/breach"; echo found nothing wrong)"
	fi
}

if ! why=$(can_loop_mount); then
	skip "order" "$why"
	exit 0
fi
command -v xfs_io >/dev/null 2>&1 || { skip "order" "no xfs_io"; exit 0; }

# build: the image, mounted, filled, crashed; fails when the crash left
# no fast commit to replay (a full commit may end them first, as the
# kernel sees fit: it happened once in some thirty runs).
build() {
	rm -f "$I"
	# sc23's directory layout needs its block size, hash seed and
	# journal.
	mkimg "$I" 64M -t ext4 -b 1024 -I 256 -J size=16 -O fast_commit \
		-E hash_seed=6c0a1f6e-4b1d-4e53-9a51-6a2d2f0c7e11
	# commit=600: no timed commit may end the fast commits first.
	kmount "$I" commit=600 || return 2
	# t_residues sc23 first (its 3208 files would take the numbers and
	# blocks the others free): 120 +s names among plain ones in an htree.
	mkdir "$M/h"
	python3 - "$M/h" ORDER-HNAME ORDER-HKEEP 2 <<'PY'
import os, random, subprocess, sys
d, s, k, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rnd = random.Random(seed)
names = ['%s-%d-%s' % (k, i, 'y' * rnd.randrange(60)) for i in range(1600)]
names += ['%s-%03d' % (s, i) for i in range(120)]
rnd.shuffle(names)
plus_s = []
for step in range(0, len(names), 72):
    for n in names[step:step + 72]:
        p = os.path.join(d, n)
        open(p, 'w').close()
        if n.startswith(s):
            subprocess.run(['chattr', '+s', p], check=True)
            plus_s.append(p)
    os.sync()
for p in plus_s:
    os.unlink(p)
os.sync()
for step in range(24):
    for i in range(67):
        open(os.path.join(d, '%s-late-%d-%d-%s' % (k, step, i,
             'z' * rnd.randrange(60))), 'w').close()
    os.sync()
PY
	# A directory each, made first, so that no file made later takes a
	# number or a block a deleted +s file left (new top-level
	# directories spread over the groups, files stay in their parent's).
	mkdir "$M/l" "$M/sd" "$M/d" "$M/f"
	canary "$M/l/keep" "ORDER-KEEP-$$" 20000
	# Live +s files: one truncated, one with a range zeroed (unwritten).
	: >"$M/l/t"
	chattr +s "$M/l/t"
	canary "$M/l/t" "ORDER-T-$$" 60000
	: >"$M/l/z"
	chattr +s "$M/l/z"
	canary "$M/l/z" "ORDER-Z-$$" 30000
	sync
	truncate -s 5000 "$M/l/t"
	fallocate -z -o 4096 -l 8192 "$M/l/z"
	sync
	# A +s directory: a name removed from it, a +s subdirectory deleted.
	chattr +s "$M/sd"
	mkdir "$M/sd/sub"
	canary "$M/sd/a" "ORDER-SDA-$$" 10000
	canary "$M/sd/b" "ORDER-SDB-$$" 10000
	canary "$M/sd/sub/c" "ORDER-SDC-$$" 10000
	sync
	rm "$M/sd/a"
	rm -r "$M/sd/sub"
	sync
	# In d: a +s file of 24 extents (an extent leaf block), one
	# contiguous, one renamed (both names in copies of d), and one
	# synced plain before its chattr +s (record versions without the
	# flag, then with it), all deleted at the end.
	: >"$M/d/tree"
	chattr +s "$M/d/tree"
	i=0
	while [ $i -lt 24 ]; do
		xfs_io -c "pwrite $((i * 8))k 2k" "$M/d/tree" >/dev/null
		i=$((i + 1))
	done
	: >"$M/d/s1"
	chattr +s "$M/d/s1"
	canary "$M/d/s1" "ORDER-S1-$$" 40000
	: >"$M/d/r0"
	chattr +s "$M/d/r0"
	canary "$M/d/r0" "ORDER-R-$$" 20000
	canary "$M/d/late" "ORDER-LATE-$$" 20000
	sync
	mv "$M/d/r0" "$M/d/ORDER-RENAMED-name"
	chattr +s "$M/d/late"
	sync
	canary "$M/l/late2" "ORDER-LATE2-$$" 3000
	cat "$M/l/late2" >>"$M/d/late"
	sync
	rm "$M/d/tree" "$M/d/s1" "$M/d/ORDER-RENAMED-name" "$M/d/late"
	sync
	# Known only to fast commits, then a crash.
	: >"$M/f/fc"
	chattr +s "$M/f/fc"
	canary "$M/f/fc" "ORDER-FC-$$" 30000
	xfs_io -c fsync "$M/f/fc"
	rm "$M/f/fc"
	canary "$M/f/after" "ORDER-AFTER-$$" 5000
	xfs_io -c fsync "$M/f/after"
	xfs_io -x -c shutdown "$M"
	kumount
	"$E2SECRM" -n "$I" 2>/dev/null | grep -q 'fast commit.*replayed'
}

tries=0
while :; do
	tries=$((tries + 1))
	build
	b=$?
	if [ $b != 1 ] || [ $tries = 3 ]; then
		break
	fi
done
if [ $b = 2 ]; then
	fail "order: corpus" "mount failed"
	exit 0
elif [ $b != 0 ]; then
	fail "order: corpus" "no fast commit pending at the crash, $tries times"
fi

cp --sparse=always "$I" "$T/y.img"
run_e2secrm -n --no-state --json "$T/n.json" --json-plan "$I"
if [ $((rc & 12)) != 4 ] || ! jq -e '.actions | length > 0' "$T/n.json" \
	>/dev/null 2>&1; then
	fail "order: dry run plans" "rc=$rc $(echo "$err" | head -3)"
	exit 0
fi

in_order "of the dry run's $(jq '.actions | length' "$T/n.json") actions" \
	"$T/n.json"

# Not vacuous: every phase, the kinds the image has, every stage, a
# fast-commit block, a resealed descriptor.
have=$(jq -r '[.actions[] | "phase \(.phase)", .kind] +
	[.actions[] | select(.stage) | "stage \(.stage)"] +
	[.actions[] | select(.why == "journal_fast_commit") |
	 "fast commit"] + [.actions[] | select(.why ==
	 "journal_descriptor") | "descriptor"] | unique | join(", ")' \
	"$T/n.json")
missing=
for w in "phase 1" "phase 2" "phase 3" "phase 4" data_blocks \
	metadata_blocks unwritten_blocks names inode_records journal_blocks \
	"stage bytes" "stage copies" "stage records" "stage flagged" \
	"fast commit" descriptor; do
	case ", $have, " in
	*", $w, "*) ;;
	*) missing="$missing${missing:+, }$w" ;;
	esac
done
if [ -z "$missing" ]; then
	pass "order: the plan has $have"
else
	fail "order: the plan has every phase and stage" \
		"missing $missing (has $have)"
fi

# The reader can fail: the journal's actions reversed; the last action
# (a journal copy, phase 4 being last) put first.
jq '.actions |= ([.[] | select(.kind != "journal_blocks")] +
	([.[] | select(.kind == "journal_blocks")] | reverse))' \
	"$T/n.json" >"$T/rev.json"
refused "the journal's stages reversed" "$T/rev.json"
jq '.actions |= ([.[-1]] + .[:-1])' "$T/n.json" >"$T/first.json"
refused "a journal copy before the freed blocks" "$T/first.json"

# -y writes the list -n planned, in that order.
run_e2secrm -y --no-state --json "$T/y.json" --json-plan "$T/y.img"
n_plan=$(jq -c .actions "$T/n.json")
y_plan=$(jq -c .actions "$T/y.json" 2>/dev/null)
y_done=$(jq -c .written "$T/y.json" 2>/dev/null)
if [ "$rc" = 1 ] && [ "$n_plan" = "$y_plan" ] && [ "$n_plan" = "$y_done" ]
then
	n=$(jq '.written | length' "$T/y.json")
	pass "order: -y writes the $n actions -n planned, in order"
else
	fail "order: -y writes the actions -n planned, in order" \
		"rc=$rc; -n $(echo "$n_plan" | jq length), -y planned $(
		echo "$y_plan" | jq length 2>/dev/null), wrote $(
		echo "$y_done" | jq length 2>/dev/null)"
	printf '%s\n' "$n_plan" | jq -c '.[]' >"$T/n.act" 2>/dev/null
	printf '%s\n' "$y_done" | jq -c '.[]' >"$T/y.act" 2>/dev/null
	diff "$T/n.act" "$T/y.act" | head -10
fi
