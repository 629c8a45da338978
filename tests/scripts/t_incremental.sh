# t_incremental.sh --- incremental runs (issue 37, doc/incremental.md),
# through the real kernel on loop mounts.
#
# Equality: a clean run (-y, with a state directory), then churn through
# the kernel (creates, some +s and some inheriting +s from a +s
# directory, appends, deletes, an editor's save over a +s file, hard
# links, rm -rf of a subtree); then on the image an incremental -n and on
# a copy a --full -n: the first says "incremental", the second "full",
# and their plans are equal (the --json-plan "actions" and the action
# lines of -v); then -y on each, and the two images are the same but the
# superblock's volatile fields.  On ext4, ext4 with fast_commit, ext3,
# and an aged variant (rounds of churn and -y, the check after the last).
#
# Fallbacks: after a clean run, an event the journal does not explain;
# the run is a full one, says why (-v line and "full_reason"), and plans
# what --full plans.  Where a check can be skipped
# (E2SECRM_TEST_TRUST=NAME), the run without it is first shown to be
# incremental with a plan that differs from --full's: the check matters.
#
# E2SECRM_KEEP_FAILED=DIR keeps the outputs and images of a failed
# check in DIR.
. "$(dirname "$0")/../lib.sh"

unset E2SECRM_FULL_DAYS E2SECRM_TEST_TRUST
M=$T/mnt
tag=INC$$

why=$(can_loop_mount)
if [ $? != 0 ]; then
	skip "incremental: kernel scenarios" "loop mount unavailable: $why"
	skip "incremental: fallbacks" "loop mount unavailable: $why"
	exit 0
fi

# keep NAME FILES...: on failure, keep what tells why.
keep() {
	[ -n "${E2SECRM_KEEP_FAILED:-}" ] || return 0
	d=$E2SECRM_KEEP_FAILED/$(echo "$1" | tr -c 'A-Za-z0-9_.-' _)
	shift
	mkdir -p "$d" && cp -a "$@" "$d/" 2>/dev/null
	echo "    kept in $d"
}

# --- runs -------------------------------------------------------------

# dry NAME IMG STATEDIR TRUST [ARGS...]: -n -v --json-plan; the text in
# $T/NAME.out, the JSON in $T/NAME.json, the status in $T/NAME.rc.
dry() {
	d_n=$1 d_img=$2 d_st=$3 d_trust=$4
	shift 4
	env ${d_trust:+E2SECRM_TEST_TRUST=$d_trust} "$E2SECRM" -n -v \
		--json "$T/$d_n.json" --json-plan --state-dir "$d_st" "$@" \
		"$d_img" >"$T/$d_n.out" 2>"$T/$d_n.err"
	echo $? >"$T/$d_n.rc"
}

# wet NAME IMG STATEDIR [ARGS...]: -y, as dry.
wet() {
	w_n=$1 w_img=$2 w_st=$3
	shift 3
	"$E2SECRM" -y -v --json "$T/$w_n.json" --json-plan \
		--state-dir "$w_st" "$@" "$w_img" >"$T/$w_n.out" \
		2>"$T/$w_n.err"
	echo $? >"$T/$w_n.rc"
}

rcof() { cat "$T/$1.rc"; }
kind() { jq -r '.run // "(no run key)"' "$T/$1.json" 2>/dev/null || echo "(no json)"; }
reason() { jq -r '.full_reason // ""' "$T/$1.json" 2>/dev/null; }
# The -v line that says which kind of run it was.
kindline() { grep -E ': (incremental run since transaction|full scan:)' "$T/$1.out" | head -1; }

# plan NAME: the plan of run NAME, as two files: NAME.pj (--json-plan's
# "actions", sorted keys) and NAME.pt (the -v lines under "would wipe:"
# or "wiped:" and "actions, in the order they are written:").  The
# inventory listing and the scan's summary lines are not the plan.
plan() {
	jq -S '.actions' "$T/$1.json" >"$T/$1.pj" 2>/dev/null ||
		echo "no actions in the JSON" >"$T/$1.pj"
	awk '
		/: (would wipe|wiped|actions, in the order they are written):$/ {
			sub(/^[^:]*: /, ""); print; on = 1; next }
		on && /^ / { print; next }
		{ on = 0 }' "$T/$1.out" >"$T/$1.pt"
}

# nactions NAME: how many actions run NAME planned.
nactions() { jq '.actions | length' "$T/$1.json" 2>/dev/null || echo 0; }

# same_plan A B: equal plans; else $pdiff says where they differ.
same_plan() {
	plan "$1"
	plan "$2"
	pdiff=
	if ! cmp -s "$T/$1.pj" "$T/$2.pj"; then
		pdiff="json: $(diff "$T/$1.pj" "$T/$2.pj" | grep '^[<>]' |
			head -8 | tr -s ' \n' ' ')"
	fi
	if ! cmp -s "$T/$1.pt" "$T/$2.pt"; then
		pdiff="$pdiff; -v: $(diff "$T/$1.pt" "$T/$2.pt" |
			grep '^[<>]' | head -8 | tr -s ' \n' ' ')"
	fi
	[ -z "$pdiff" ]
}

# --- workloads through the kernel -------------------------------------

# populate: a tree with +s files, a +s directory whose new files inherit
# the flag, plain files, a subtree.
populate() {
	mkdir -p "$M/docs" "$M/sdir" "$M/plain" "$M/tree/a/b" "$M/tree/c"
	chattr +s "$M/sdir"
	for i in 1 2 3 4 5 6; do
		canary "$M/docs/s$i" "$tag-DOC$i" 9000
		chattr +s "$M/docs/s$i"
		canary "$M/plain/p$i" "$tag-PLAIN$i" 5000
	done
	for i in 1 2 3 4; do
		canary "$M/sdir/i$i" "$tag-INHERIT$i" 7000
	done
	for i in 1 2 3; do
		canary "$M/tree/a/b/t$i" "$tag-TREE$i" 6000
		canary "$M/tree/c/u$i" "$tag-TREEU$i" 3000
	done
	chattr +s "$M/tree/a/b/t1" "$M/tree/c/u2"
	sync
}

# touch_s PATH...: an append to each file (synced): a deletion after it
# finds the file's map in the journal, as a file changed since the last
# run.  A +s file deleted untouched since the last run (its map's newest
# journal copy wiped by that run, the map zeroed by the deletion) is a
# loss (exit bit 4), which the rounds of the aged variant must not have.
touch_s() {
	for p in "$@"; do
		echo "touched" >>"$p"
	done
	sync
}

# churn R [lossy]: round R of a day's work.  lossy: a +s file is also
# deleted untouched.
churn() {
	r=$1
	mkdir -p "$M/r$r/x"
	canary "$M/r$r/new" "$tag-NEW$r" 8000
	chattr +s "$M/r$r/new"
	canary "$M/r$r/x/plain" "$tag-NEWP$r" 4000
	canary "$M/sdir/born$r" "$tag-BORN$r" 6000	# inherits +s
	canary "$M/r$r/x/gone" "$tag-GONE$r" 6000
	chattr +s "$M/r$r/x/gone"
	sync
	rm "$M/r$r/x/gone"				# +s, born and gone
	# Appends, to a +s file and a plain one.
	canary "$M/docs/s1.more" "$tag-APPEND$r" 3000
	cat "$M/docs/s1.more" >>"$M/docs/s1"
	cat "$M/docs/s1.more" >>"$M/plain/p1"
	rm "$M/docs/s1.more"
	# What goes below was changed since the last run.
	if [ "$r" = 1 ]; then
		sub=$M/tree
	else
		sub=$M/r$((r - 1))
	fi
	touch_s "$M/docs/s$((r + 1))" "$M/sdir/i1" $(find "$sub" -type f)
	# Deletes: a +s file and a plain one.
	rm -f "$M/docs/s$((r + 1))" "$M/plain/p$((r + 1))"
	[ "${2:-}" = lossy ] && rm -f "$M/docs/s5"
	# An editor's save over a +s file: write aside (it inherits +s
	# from the directory), rename over.
	canary "$M/sdir/.i1.swp" "$tag-SAVE$r" 7000
	mv "$M/sdir/.i1.swp" "$M/sdir/i1"
	# A hard link, the first name of another file goes.
	ln "$M/docs/s6" "$M/plain/link$r"
	if [ "$r" = 1 ]; then
		ln "$M/sdir/i3" "$M/docs/i3.link"
		rm "$M/sdir/i3"
	fi
	# A subtree goes.
	rm -rf "$sub"
	sync
}

# clean_run NAME IMG STATEDIR: the clean run the next ones build on.
clean_run() {
	wet "$1.clean" "$2" "$3"
	c=$(rcof "$1.clean")
	if [ "$c" = 0 ] || [ "$c" = 1 ]; then
		return 0
	fi
	fail "$1: clean run" "exit $c: $(tail -3 "$T/$1.clean.out" "$T/$1.clean.err" | tr '\n' ' ')"
	keep "$1" "$T/$1.clean.out" "$T/$1.clean.err" "$2"
	return 1
}

# --- equality: incremental against --full ------------------------------

# compare NAME IMG STATEDIR: the incremental -n on IMG against --full -n
# on a copy (with a copy of the state), then -y on each and the images.
compare() {
	nm=$1 img=$2 st=$3
	cp --sparse=always "$img" "$T/copy.img"
	rm -rf "$T/st.copy"
	cp -a "$st" "$T/st.copy"
	dry inc "$img" "$st" ""
	dry full "$T/copy.img" "$T/st.copy" "" --full
	k=$(kind inc)
	if [ "$k" = incremental ] &&
	   kindline inc | grep -q 'incremental run since transaction'; then
		pass "$nm: -n after churn is incremental ($(kindline inc | sed 's/^[^:]*: //'))"
	else
		fail "$nm: -n after churn is incremental" \
			"run=$k reason=$(reason inc) line=$(kindline inc) rc=$(rcof inc)"
		keep "$nm" "$T/inc.out" "$T/inc.err" "$T/inc.json" "$st"
	fi
	# What it read: the JSON's figures.
	gr=$(jq -r '.groups_read' "$T/inc.json" 2>/dev/null)
	# The group count: the JSON has none, -v says "G of N groups read".
	ng=$(kindline inc | sed -n 's/.* of \([0-9]*\) groups read.*/\1/p')
	sin=$(jq -r '.since_tid' "$T/inc.json" 2>/dev/null)
	if [ "$(kind inc)" = incremental ] && [ "$(jq -r 'has("full_reason")' "$T/inc.json")" = true ] &&
	   [ -z "$(reason inc)" ] && [ "$sin" -gt 0 ] 2>/dev/null &&
	   [ "$gr" -ge 1 ] 2>/dev/null && [ "$gr" -le "$ng" ] 2>/dev/null &&
	   [ "$(jq -r '.groups' "$T/inc.json")" = "$ng" ]; then
		pass "$nm: the JSON says since_tid $sin, $gr of $ng groups read, full_reason null"
	else
		fail "$nm: the JSON says since_tid, groups_read of groups, full_reason null" \
			"since_tid=$sin groups_read=$gr groups=$ng full_reason=$(jq -c .full_reason "$T/inc.json" 2>/dev/null)"
	fi
	# The log: only what the kernel wrote since, the rest from the
	# ring facts the clean run kept (lib/find/ring_since.c).
	lr=$(jq -r '.log_blocks_read' "$T/inc.json" 2>/dev/null)
	lb=$(sed -n 's/.*journal: [0-9]* of \([0-9]*\) log blocks read.*/\1/p' "$T/inc.out")
	if [ "$(jq -r '.ring_facts' "$T/inc.json" 2>/dev/null)" = used ] &&
	   [ "$lr" -ge 1 ] 2>/dev/null && [ $((lr * 4)) -lt "${lb:-0}" ]; then
		pass "$nm: the incremental run reads $lr of $lb log blocks, the rest from the ring facts"
	else
		fail "$nm: the incremental run reads the log written since" 			"ring_facts=$(jq -c .ring_facts "$T/inc.json" 2>/dev/null) read=$lr of ${lb:-?}: $(grep 'journal:' "$T/inc.out")"
	fi
	if [ "$(kind full)" = full ] &&
	   reason full | grep -q 'asked (--full)' &&
	   kindline full | grep -q 'full scan: .*asked (--full)'; then
		pass "$nm: --full is a full scan, asked (--full)"
	else
		fail "$nm: --full is a full scan, asked (--full)" \
			"run=$(kind full) reason=$(reason full) line=$(kindline full)"
	fi
	na=$(nactions full)
	if same_plan inc full && [ "$na" -gt 0 ] &&
	   [ "$(rcof inc)" = "$(rcof full)" ]; then
		pass "$nm: incremental plan equals --full's ($na actions, exit $(rcof inc))"
	else
		fail "$nm: incremental plan equals --full's" \
			"$na actions, exit $(rcof inc)/$(rcof full): $pdiff"
		keep "$nm" "$T/inc.out" "$T/inc.json" "$T/full.out" \
			"$T/full.json" "$T/inc.err" "$T/full.err"
	fi
	# The suite runs with E2SECRM_RING_CHECK=1, which reads what an
	# incremental run would take as unchanged (directory blocks no copy
	# since shows changed, livemap_dirs.c) to check it: once without.
	(E2SECRM_RING_CHECK=0; dry inc0 "$img" "$st" "")
	if same_plan inc0 full && [ "$(rcof inc0)" = "$(rcof full)" ] &&
	   [ "$(kind inc0)" = incremental ]; then
		pass "$nm: without the ring check, the plan equals --full's too"
	else
		fail "$nm: without the ring check, the plan equals --full's" \
			"run=$(kind inc0) exit $(rcof inc0)/$(rcof full): $pdiff"
		keep "$nm" "$T/inc0.out" "$T/inc0.json" "$T/full.out" \
			"$T/full.json"
	fi
	wet incy "$img" "$st"
	wet fully "$T/copy.img" "$T/st.copy" --full
	iy=$(rcof incy) fy=$(rcof fully)
	if [ "$(kind incy)" = incremental ] &&
	   [ $((iy & ~5)) = 0 ] && [ "$iy" = "$fy" ] &&
	   same "$img" "$T/copy.img"; then
		pass "$nm: incremental -y and --full -y leave the same image (exit $iy)"
	else
		fail "$nm: incremental -y and --full -y leave the same image" \
			"run=$(kind incy) exit $iy/$fy, $(cmp -l "$img" "$T/copy.img" | wc -l) bytes differ"
		keep "$nm" "$T/incy.out" "$T/incy.json" "$T/fully.out" \
			"$T/fully.json" "$img" "$T/copy.img"
	fi
	if e2fsck -fn "$img" >"$T/fsck" 2>&1; then
		pass "$nm: e2fsck -fn clean after the incremental -y"
	else
		fail "$nm: e2fsck -fn clean after the incremental -y" \
			"$(tail -3 "$T/fsck" | tr '\n' ' ')"
	fi
}

# equality NAME ROUNDS MKE2FS-OPTIONS...: populate, clean run, then
# ROUNDS rounds of churn (with -y between them), then compare.
equality() {
	nm=$1 rounds=$2
	shift 2
	img=$T/eq.img st=$T/st.eq
	rm -rf "$img" "$st"
	mkimg "$img" 64M "$@" || { fail "$nm: mke2fs" "$*"; return; }
	kmount "$img" || { fail "$nm: mount" "mount failed"; return; }
	populate
	kumount
	clean_run "$nm" "$img" "$st" || return
	r=1
	while [ "$r" -le "$rounds" ]; do
		kmount "$img" || { fail "$nm: mount" "round $r"; return; }
		if [ "$r" = "$rounds" ] && [ "$rounds" = 1 ]; then
			churn "$r" lossy
		else
			churn "$r"
		fi
		kumount
		if [ "$r" -lt "$rounds" ]; then
			wet "round$r" "$img" "$st"
			c=$(rcof "round$r")
			if [ "$c" != 0 ] && [ "$c" != 1 ]; then
				fail "$nm: -y after round $r" "exit $c $(tail -2 "$T/round$r.out")"
				return
			fi
			# Each round after the first builds on an
			# incremental run.
			if [ "$(kind "round$r")" != incremental ]; then
				fail "$nm: -y after round $r is incremental" \
					"run=$(kind "round$r") reason=$(reason "round$r")"
			fi
		fi
		r=$((r + 1))
	done
	compare "$nm" "$img" "$st"
}

equality "incremental: ext4" 1 -t ext4
equality "incremental: ext4 fast_commit" 1 -t ext4 -O fast_commit
equality "incremental: ext3" 1 -t ext3
equality "incremental: ext4 aged, 4 rounds" 4 -t ext4

# --- fallbacks ---------------------------------------------------------

# group PATH: the block group of PATH's inode (mounted).
group() {
	echo $(( ($(stat -c %i "$1") - 1) / ipg ))
}

# mkhold: (mounted) a directory in a group of its own (not the root's,
# nor docs' or plain's; no flex_bg), with freed inodes under the
# group's high-water mark, so that a +s file made and removed there
# later leaves the group's descriptor as it was: a residue no descriptor
# shows.  Sets HOLD (relative to the mount).
mkhold() {
	ipg=$(dumpe2fs -h "$1" 2>/dev/null | awk '/^Inodes per group:/ { print $4 }')
	j=0
	while [ "$j" -lt 24 ]; do
		mkdir "$M/h$j"
		g=$(group "$M/h$j")
		[ "$g" != 0 ] && [ "$g" != "$(group "$M/docs")" ] &&
			[ "$g" != "$(group "$M/plain")" ] && break
		j=$((j + 1))
	done
	HOLD=h$j
	for i in 1 2 3 4 5 6 7 8; do
		canary "$M/$HOLD/x$i" "$tag-HOLD$i" 3000
	done
	sync
	rm "$M/$HOLD/x1" "$M/$HOLD/x2" "$M/$HOLD/x3" "$M/$HOLD/x4"
	sync
}

# hidden: (mounted) a +s file made and removed in HOLD, and a plain file
# of HOLD removed: the group's bitmaps differ from the last run's for
# sure, so that only a copy of them logged since can explain the change
# (a group whose bitmaps came back as they were is explained by the
# descriptors' copy alone, and read).
hidden() {
	canary "$M/$HOLD/hid" "$tag-HIDDEN" 2500
	chattr +s "$M/$HOLD/hid"
	sync
	rm "$M/$HOLD/hid"
	sync
	rm -f "$M/$HOLD/x8"
	sync
}

# base NAME IMG STATEDIR [SIZE [MKE2FS-OPTIONS...]]: a populated image
# (no flex_bg unless told) with HOLD, and its clean run.
base() {
	b_n=$1 b_img=$2 b_st=$3 b_size=${4:-64M}
	shift 3
	[ $# -gt 0 ] && shift
	rm -rf "$b_img" "$b_st"
	[ $# -gt 0 ] || set -- -t ext4 -O ^flex_bg
	mkimg "$b_img" "$b_size" "$@" || { fail "$b_n: mke2fs" "$*"; return 1; }
	kmount "$b_img" || { fail "$b_n: mount" "mount failed"; return 1; }
	populate
	mkhold "$b_img"
	kumount
	clean_run "$b_n" "$b_img" "$b_st"
}

# fallback NAME IMG STATEDIR REASON-REGEX TRUST [ARGS...]: after the
# event on IMG (with TRUST, the run that skips the check is incremental
# and plans otherwise than --full), the run (with ARGS) is full, says
# REASON, plans as --full.
fallback() {
	fn=$1 img=$2 st=$3 re=$4 trust=$5
	shift 5
	cp --sparse=always "$img" "$T/copy.img"
	rm -rf "$T/st.copy"
	cp -a "$st" "$T/st.copy"
	dry full "$T/copy.img" "$T/st.copy" "" --full
	if [ -n "$trust" ]; then
		dry trust "$img" "$st" "$trust"
		if [ "$(kind trust)" != incremental ]; then
			fail "$fn: with E2SECRM_TEST_TRUST=$trust the run is incremental" \
				"run=$(kind trust) reason=$(reason trust)"
			keep "$fn" "$T/trust.out" "$T/trust.json" "$T/trust.err"
		elif same_plan trust full; then
			fail "$fn: with E2SECRM_TEST_TRUST=$trust the plan differs from --full's" \
				"it does not ($(nactions full) actions): the check cannot be shown to matter"
			keep "$fn" "$T/trust.out" "$T/trust.json" "$T/full.out" "$T/full.json"
		else
			pass "$fn: with E2SECRM_TEST_TRUST=$trust the incremental plan differs ($(nactions trust) vs $(nactions full) actions)"
		fi
	fi
	dry fb "$img" "$st" "" "$@"
	r=$(reason fb)
	if [ "$(kind fb)" = full ] && echo "$r" | grep -Eq -- "$re" &&
	   kindline fb | grep -Eq -- "full scan: .*($re)"; then
		pass "$fn: full scan, says why ($r)"
	else
		fail "$fn: full scan, says why" \
			"run=$(kind fb) reason=$r line=$(kindline fb), want /$re/"
		keep "$fn" "$T/fb.out" "$T/fb.json" "$T/fb.err" "$st"
	fi
	if same_plan fb full && [ "$(rcof fb)" = "$(rcof full)" ]; then
		pass "$fn: plan equals --full's ($(nactions full) actions, exit $(rcof fb))"
	else
		fail "$fn: plan equals --full's" "exit $(rcof fb)/$(rcof full): $pdiff"
		keep "$fn" "$T/fb.out" "$T/fb.json" "$T/full.out" "$T/full.json"
	fi
}

# kdel PATH...: a mount, the files removed, an unmount.
kdel() {
	kmount "$FI" || return 1
	for p in "$@"; do
		rm -rf "$M/$p"
	done
	sync
	kumount
}

FI=$T/fb.img FS=$T/st.fb

# wrap_churn N: (mounted) N rounds of small synced creates and removes in
# the root's group, each its own transaction; $i counts on.
wrap_churn() {
	wc_end=$((i + $1))
	while [ "$i" -lt "$wc_end" ]; do
		for f in 1 2 3 4 5 6; do
			echo "$i.$f" >"$M/f$i.$f"
		done
		rm -f "$M/f$((i - 2)).1"
		sync -f "$M"
		i=$((i + 1))
	done
}

# logged_since IMG TID: the filesystem blocks the log holds committed
# copies of, from transactions after TID, one a line (e2secrm's own map
# of the ring: debugfs' logdump stops where a wrap broke the chain).
logged_since() {
	"$E2SECRM" --journal-map --no-state "$1" 2>/dev/null |
		awk -v t="$2" '$1 ~ /^[0-9]+$/ && $2 + 0 > t + 0 &&
			$NF ~ /committed/ { print $3 }' | sort -un
}

# group_blocks IMG G: the blocks of group G's bitmaps and inode table.
group_blocks() {
	dumpe2fs "$1" 2>/dev/null | awk -v g="Group $2:" '
		index($0, g) == 1 { on = 1; next }
		/^Group / { on = 0 }
		on && /(Block|Inode) bitmap at/ { print $4 }
		on && /Inode table at/ { split($4, r, "-")
			for (b = r[1]; b <= r[2]; b++) print b }'
}

# a. The journal wrapped past the last run: a 1 MiB journal, +s files
# deleted in a directory of a group of their own (so that their inodes
# are not taken again: no flex_bg, which would put them in group 0),
# then enough synced churn in the root's group to
# overwrite their transactions.
nm="incremental fallback: journal wrapped"
rm -rf "$FI" "$FS"
mkimg "$FI" 64M -t ext4 -b 1024 -J size=1 -O ^flex_bg
ipg=$(dumpe2fs -h "$FI" 2>/dev/null | awk '/^Inodes per group:/ { print $4 }')
kmount "$FI"
populate
mkhold "$FI"
j=0
while [ "$j" -lt 16 ]; do
	mkdir "$M/v$j"
	g=$(group "$M/v$j")
	[ "$g" != 0 ] && [ "$g" != "$(group "$M/$HOLD")" ] && break
	j=$((j + 1))
done
V=$M/v$j
for i in 1 2 3; do
	canary "$V/s$i" "$tag-WRAP$i" 9000
	chattr +s "$V/s$i"
done
sync
kumount
if clean_run "$nm" "$FI" "$FS"; then
	kmount "$FI"
	touch_s "$V/s1" "$V/s2"
	rm "$V/s1" "$V/s2"
	sync
	hidden
	hg=$(group "$M/$HOLD")
	i=0
	wrap_churn 300
	kumount
	# The demonstration below needs the log to hold no copy of HOLD's
	# bitmaps or inode table written since the last run: where the
	# kernel left one, churn more (a wrap is the kernel's to pace).
	group_blocks "$FI" "$hg" >"$T/hold.blocks"
	ptid=$(awk -F= '/^tid=/ { print $2 }' "$FS"/*.state)
	n=0
	while [ "$n" -lt 12 ] &&
	      logged_since "$FI" "$ptid" | grep -qxF -f "$T/hold.blocks"; do
		kmount "$FI" || break
		wrap_churn 100
		kumount
		n=$((n + 1))
	done
	# The precondition: the history since the last run has a gap.
	dry pre "$FI" "$FS" "" --full
	nrec=$(jq '[.actions[] | select(.kind == "inode_records")] | length' "$T/pre.json")
	if [ "$(jq -r '.coverage.complete' "$T/pre.json")" = false ] &&
	   [ "$nrec" -ge 2 ]; then
		pass "$nm: the journal wrapped past the last run (coverage incomplete, $nrec records to wipe)"
	else
		fail "$nm: the journal wrapped past the last run" \
			"$nrec records; coverage $(jq -c .coverage "$T/pre.json")"
	fi
	# The wrap hides the groups' changes too: both checks skipped.
	fallback "$nm" "$FI" "$FS" 'journal wrapped' journal,groups
fi

# b. The state: missing, foreign, damaged.
nm="incremental fallback: state"
if base "$nm" "$FI" "$FS"; then
	kdel docs/s2 sdir/i2
	uuid=$(dumpe2fs -h "$FI" 2>/dev/null | awk '/^Filesystem UUID:/ { print $3 }')
	# Missing.
	rm -rf "$T/st.none"
	mkdir "$T/st.none"
	fallback "$nm missing" "$FI" "$T/st.none" 'no state' ""
	# Foreign: another filesystem's state under this UUID.
	if base "$nm foreign, other fs" "$T/other.img" "$T/st.other"; then
		ouuid=$(dumpe2fs -h "$T/other.img" 2>/dev/null |
			awk '/^Filesystem UUID:/ { print $3 }')
		rm -rf "$T/st.foreign"
		mkdir "$T/st.foreign"
		for f in "$T/st.other/$ouuid".*; do
			cp "$f" "$T/st.foreign/$uuid.${f##*.}"
		done
		ls "$T/st.foreign" | grep -q "$uuid.state" ||
			fail "$nm foreign: a state file to rename" "none in $(ls "$T/st.other")"
		fallback "$nm foreign" "$FI" "$T/st.foreign" \
			'another filesystem|mismatch|not this filesystem|damaged' ""
		rm -f "$T/other.img"
	fi
	# Damaged: garbage in the state file.
	rm -rf "$T/st.dmg"
	cp -a "$FS" "$T/st.dmg"
	printf 'tid=banana\n\001\002garbage=\377\n' >>"$T/st.dmg/$uuid.state"
	fallback "$nm damaged state file" "$FI" "$T/st.dmg" 'damaged' ""
	# Damaged: the groups file truncated.
	rm -rf "$T/st.dmg"
	cp -a "$FS" "$T/st.dmg"
	if [ -f "$T/st.dmg/$uuid.since" ]; then
		sz=$(stat -c %s "$T/st.dmg/$uuid.since")
		truncate -s $((sz / 2)) "$T/st.dmg/$uuid.since"
		fallback "$nm truncated since file" "$FI" "$T/st.dmg" 'damaged' ""
		# Missing groups file.
		rm -f "$T/st.dmg/$uuid.since"
		fallback "$nm missing since file" "$FI" "$T/st.dmg" 'damaged|no state|no record of the groups' ""
	else
		fail "$nm: the clean run wrote $uuid.since" "$(ls "$FS")"
	fi
fi

# offline_s IMG: debugfs -w removes a live +s file (which the state
# knows, and an incremental run reads again) and a +s file it wrote
# (which no state knows).
offline_s() {
	canary "$T/off.data" "$tag-OFFLINE" 12000
	printf 'rm /docs/s5\ncd /%s\nwrite %s off\nset_inode_field off flags 0x80001\nrm off\n' \
		"$HOLD" "$T/off.data" | dfs "$1"
}

# c. debugfs -w removed a live +s file offline.
nm="incremental fallback: debugfs rm"
if base "$nm" "$FI" "$FS"; then
	kdel plain/p2
	offline_s "$FI"
	fallback "$nm" "$FI" "$FS" 'written offline|changed outside the journal' \
		offline,groups
fi

nm="incremental fallback: debugfs rm, no mount since the last run"
if base "$nm" "$FI" "$FS"; then
	offline_s "$FI"
	fallback "$nm" "$FI" "$FS" 'written offline|changed outside the journal' \
		offline,groups
fi

# d. e2fsck -fy released an orphan: a +s file open and deleted at a
# crash (xfs_io shutdown, as t_orphan.sh), then e2fsck instead of the
# kernel's recovery.
nm="incremental fallback: e2fsck released an orphan"
if base "$nm" "$FI" "$FS"; then
	kmount "$FI"
	canary "$M/docs/held" "$tag-HELD" 30000
	chattr +s "$M/docs/held"
	sync
	sleep 600 <"$M/docs/held" &
	h=$!
	sleep 0.3
	rm "$M/docs/held"
	sync
	xfs_io -x -c 'shutdown -f' "$M"
	kill "$h"
	wait "$h" 2>/dev/null
	kumount
	if dumpe2fs -h "$FI" 2>/dev/null | grep -q '^First orphan inode:'; then
		e2fsck -fy "$FI" >"$T/fsck" 2>&1
		if dumpe2fs -h "$FI" 2>/dev/null | grep -q '^First orphan inode:'; then
			fail "$nm: e2fsck -fy released the orphan" "$(tail -3 "$T/fsck")"
		fi
		# No TRUST proof: the orphan's record is in the journal's
		# copies (its orphan-list add), which an incremental run reads
		# as well, so skipping checked,orphans,groups plans the same
		# (seen): the residue is found either way.
		fallback "$nm" "$FI" "$FS" 'e2fsck checked|orphans' ""
	else
		fail "$nm: the crash left an orphan" "no First orphan inode"
	fi
fi

# e. tune2fs, resize2fs.
nm="incremental fallback: tune2fs -c"
if base "$nm" "$FI" "$FS"; then
	kdel docs/s2
	tune2fs -c 50 "$FI" >/dev/null 2>&1
	fallback "$nm" "$FI" "$FS" 'superblock changed' ""
fi
nm="incremental fallback: resize2fs grow"
if base "$nm" "$FI" "$FS"; then
	kdel docs/s2
	truncate -s 96M "$FI"
	# -f: without it resize2fs asks for e2fsck -f when the last mount
	# is newer than the last check (a second later: flaky).
	resize2fs -f "$FI" >"$T/resize" 2>&1 || fail "$nm: resize2fs" "$(tail -2 "$T/resize")"
	# No test hook skips the geometry: no TRUST proof here.
	fallback "$nm" "$FI" "$FS" 'resized' ""
fi

# f. Mounted without its journal (noload, clean journal), a +s file
# deleted.
nm="incremental fallback: mounted without the journal"
if base "$nm" "$FI" "$FS"; then
	kdel plain/p3
	if kmount "$FI" noload; then
		rm "$M/docs/s5"
		sync
		hidden
		kumount
		fallback "$nm" "$FI" "$FS" \
			'changed outside the journal|mounted without its journal' groups
	else
		fail "$nm: mount -o noload" "refused"
	fi
fi

# g. The last full scan is too old; --full.  What no check sees (a
# write below the filesystem) is found by the full scan the age asks
# for: a deleted +s file's record, name and data put into the image by
# block, the superblocks, descriptors and bitmaps untouched.
nm="incremental fallback: age"
if base "$nm" "$FI" "$FS"; then
	cp "$FI" "$T/below.img"
	canary "$T/below.data" "$tag-BELOW" 20000
	printf 'write %s below\nset_inode_field below flags 0x80001\nrm below\n' \
		"$T/below.data" | dfs "$T/below.img"
	bs=$(dumpe2fs -h "$FI" 2>/dev/null | awk '/^Block size:/ { print $3 }')
	dumpe2fs "$FI" 2>/dev/null |
		grep -oE '(superblock|descriptors|GDT blocks|bitmap) at [0-9]+(-[0-9]+)?' |
		awk '{ split($NF, r, "-"); e = r[2] == "" ? r[1] : r[2]
		       for (b = r[1] + 0; b <= e + 0; b++) print b }' >"$T/meta.blocks"
	echo 0 >>"$T/meta.blocks"	# the primary superblock at 1k too
	sort -u "$T/meta.blocks" -o "$T/meta.blocks"
	cmp -l "$FI" "$T/below.img" |
		awk -v bs="$bs" '{ print int(($1 - 1) / bs) }' | sort -u >"$T/diff.blocks"
	moved=0
	for b in $(comm -23 "$T/diff.blocks" "$T/meta.blocks"); do
		dd if="$T/below.img" of="$FI" bs="$bs" skip="$b" seek="$b" \
			count=1 conv=notrunc 2>/dev/null
		moved=$((moved + 1))
	done
	rm -f "$T/below.img"
	if [ "$(count "$tag-BELOW" "$FI")" -gt 0 ] && e2fsck -fn "$FI" >/dev/null 2>&1; then
		pass "$nm: a deleted +s file written below the filesystem ($moved blocks), e2fsck -fn clean"
	else
		fail "$nm: a deleted +s file written below the filesystem" \
			"$moved blocks, $(count "$tag-BELOW" "$FI") tokens, or e2fsck -fn unclean"
	fi
	cp --sparse=always "$FI" "$T/copy.img"
	rm -rf "$T/st.copy"
	cp -a "$FS" "$T/st.copy"
	dry full "$T/copy.img" "$T/st.copy" "" --full
	# No check sees it: the default age lets the run be incremental,
	# and it misses what --full finds.
	dry fb "$FI" "$FS" ""
	if [ "$(kind fb)" = incremental ] && ! same_plan fb full &&
	   [ "$(jq -r .groups_changed "$T/fb.json")" = 0 ]; then
		pass "$nm: an incremental run sees no group changed and misses it ($(nactions fb) vs $(nactions full) actions)"
	else
		fail "$nm: an incremental run misses it" \
			"run=$(kind fb) reason=$(reason fb), $(jq -r .groups_changed "$T/fb.json") groups changed, $(nactions fb) vs $(nactions full) actions"
	fi
	(E2SECRM_FULL_DAYS=0; export E2SECRM_FULL_DAYS; dry trust "$FI" "$FS" age)
	if [ "$(kind trust)" = incremental ] && ! same_plan trust full; then
		pass "$nm: E2SECRM_FULL_DAYS=0 with E2SECRM_TEST_TRUST=age: incremental, misses it"
	else
		fail "$nm: E2SECRM_FULL_DAYS=0 with E2SECRM_TEST_TRUST=age: incremental, misses it" \
			"run=$(kind trust) reason=$(reason trust)"
	fi
	for how in env opt; do
		if [ $how = env ]; then
			(E2SECRM_FULL_DAYS=0; export E2SECRM_FULL_DAYS; dry fb "$FI" "$FS" "")
			what=E2SECRM_FULL_DAYS=0
		else
			dry fb "$FI" "$FS" "" --full-days 0
			what="--full-days 0"
		fi
		if [ "$(kind fb)" = full ] && reason fb | grep -Eq 'older than|every run is a full one' &&
		   same_plan fb full && [ "$(rcof fb)" = "$(rcof full)" ]; then
			pass "$nm: $what: a full scan ($(reason fb)), plan equals --full's"
		else
			fail "$nm: $what: a full scan, says why, plan equals --full's" \
				"run=$(kind fb) reason=$(reason fb): $pdiff"
		fi
	done
	# The option wins over the environment.
	(E2SECRM_FULL_DAYS=0; export E2SECRM_FULL_DAYS; dry fb "$FI" "$FS" "" --full-days 30)
	if [ "$(kind fb)" = incremental ]; then
		pass "$nm: --full-days 30 over E2SECRM_FULL_DAYS=0 after a fresh full scan: incremental"
	else
		fail "$nm: --full-days 30 over E2SECRM_FULL_DAYS=0: incremental" \
			"run=$(kind fb) reason=$(reason fb)"
	fi
	fallback "$nm --full" "$FI" "$FS" 'asked \(--full\)' "" --full
fi

# --- the ring facts ------------------------------------------------------
#
# ring_image NAME IMG STATEDIR: a populated image, its clean run, then a
# round of churn through the kernel; 1 on a failure (said).
ring_image() {
	rm -rf "$2" "$3"
	mkimg "$2" 64M -t ext4 || { fail "$1: mke2fs" ""; return 1; }
	kmount "$2" || { fail "$1: mount" ""; return 1; }
	populate
	kumount
	clean_run "$1" "$2" "$3" || return 1
	kmount "$2" || { fail "$1: mount" ""; return 1; }
	churn 1
	kumount
}

# What the last run kept of the log (UUID.ring) stands in for the blocks
# the kernel did not write since.  The suite runs with
# E2SECRM_RING_CHECK=1 (run-tests.sh), which walks the whole log as well
# whenever the facts are used and stops on any difference: every
# incremental run above is checked so.  Here: a run without the check
# plans what --full plans; a damaged ring file is not taken (the log is
# read whole, and -v says why); and a log block changed below the file
# system, where no test of the proof can see it, is what the check
# catches (so the check can fail).
ring() {
	nm="incremental: ring facts"
	RI=$T/ring.img RS=$T/st.ring
	ring_image "$nm" "$RI" "$RS" || return
	ru=$(dumpe2fs -h "$RI" 2>/dev/null | awk '/^Filesystem UUID:/ { print $3 }')
	if [ -s "$RS/$ru.ring" ]; then
		pass "$nm: the clean run kept them ($(stat -c %s "$RS/$ru.ring") bytes)"
	else
		fail "$nm: the clean run kept them" "$(ls -l "$RS")"
	fi
	cp --sparse=always "$RI" "$T/ring.copy.img"
	rm -rf "$T/st.rcopy"
	cp -a "$RS" "$T/st.rcopy"
	(unset E2SECRM_RING_CHECK; dry rinc "$RI" "$RS" "")
	dry full "$T/ring.copy.img" "$T/st.rcopy" "" --full
	if [ "$(jq -r .ring_facts "$T/rinc.json")" = used ] &&
	   same_plan rinc full && [ "$(rcof rinc)" = "$(rcof full)" ]; then
		pass "$nm: without the check, used, and the plan equals --full's ($(grep -o 'journal: [0-9]* of [0-9]*' "$T/rinc.out"))"
	else
		fail "$nm: without the check, used, plan equals --full's" 			"ring_facts=$(jq -c .ring_facts "$T/rinc.json"): $pdiff"
	fi
	# Damaged: not taken, the log read whole, said.
	cp -a "$RS" "$T/st.rbad"
	f=$T/st.rbad/$ru.ring
	printf '\377' | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") / 2 )) \
		conv=notrunc 2>/dev/null
	dry rbad "$RI" "$T/st.rbad" ""
	lb=$(sed -n 's/.*journal: read whole (\([0-9]*\) log blocks).*/\1/p' "$T/rbad.out")
	if [ "$(kind rbad)" = incremental ] &&
	   jq -r .ring_facts "$T/rbad.json" | grep -q 'damaged' &&
	   [ "${lb:-0}" -gt 0 ] && same_plan rbad full; then
		pass "$nm: a damaged ring file: the log read whole ($lb blocks), said, plan equals --full's"
	else
		fail "$nm: a damaged ring file is not taken" 			"run=$(kind rbad) ring_facts=$(jq -c .ring_facts "$T/rbad.json"): $(grep 'journal:' "$T/rbad.out") $pdiff"
	fi
	# Log blocks past what the churn wrote (never written: the facts
	# say zero; the clean run's wipe rewrote most of the populate's
	# transaction, which is read again anyway) changed below the file
	# system (dd): no superblock counter moves; the check sees the
	# facts no longer hold.
	cp --sparse=always "$RI" "$T/ring.dd.img"
	cp -a "$RS" "$T/st.rdd"
	n=0
	rbs=$(dumpe2fs -h "$RI" 2>/dev/null | awk '/^Block size:/ { print $3 }')
	for jb in $(seq 2000 2040); do
		pb=$(debugfs -R "bmap <8> $jb" "$RI" 2>/dev/null)
		[ "${pb:-0}" -gt 0 ] 2>/dev/null || continue
		printf 'DDWASHERE' | dd of="$T/ring.dd.img" bs=1 \
			seek=$(( pb * ${rbs:-4096} + 300 )) conv=notrunc 2>/dev/null
		n=$((n + 1))
	done
	(E2SECRM_RING_CHECK=1; export E2SECRM_RING_CHECK; dry rdd "$T/ring.dd.img" "$T/st.rdd" "")
	if [ "$n" -gt 0 ] && [ "$(rcof rdd)" = 8 ] &&
	   grep -q 'differs from the journal read whole' "$T/rdd.err"; then
		pass "$nm: $n log blocks changed below the file system: the check stops the run (exit 8)"
		(unset E2SECRM_RING_CHECK; dry rdd "$T/ring.dd.img" "$T/st.rdd" "")
		if [ "$(rcof rdd)" != 8 ] &&
		   [ "$(jq -r .ring_facts "$T/rdd.json")" = used ]; then
			pass "$nm: without the check the run trusts the facts there (a limit: e2secrm(7))"
		else
			fail "$nm: without the check the run trusts the facts" \
				"exit $(rcof rdd), ring_facts=$(jq -c .ring_facts "$T/rdd.json")"
		fi
	else
		fail "$nm: log blocks changed below: the check stops the run" \
			"$n blocks changed: exit $(rcof rdd): $(cat "$T/rdd.err")"
	fi
	# An inode table block logged since is taken from its newest copy
	# in the log (inventory_since.c): the record of a file the churn
	# made, changed below the file system on the disk, is what the
	# check sees (the disk read too, compared).
	ib=$(debugfs -R "imap /r1/x/plain" "$RI" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	cp --sparse=always "$RI" "$T/ring.dd.img"
	rm -rf "$T/st.rdd"
	cp -a "$RS" "$T/st.rdd"
	if [ -n "$ib" ]; then
		set -- $ib
		printf 'DDWASHERE' | dd of="$T/ring.dd.img" bs=1 \
			seek=$(( $1 * ${rbs:-4096} + $2 + 0x70 )) conv=notrunc 2>/dev/null
	fi
	(E2SECRM_RING_CHECK=1; export E2SECRM_RING_CHECK; dry rtab "$T/ring.dd.img" "$T/st.rdd" "")
	if [ -n "$ib" ] && [ "$(rcof rtab)" = 8 ] &&
	   grep -q 'differs on the disk from its newest logged copy' "$T/rtab.err"; then
		pass "$nm: a table block logged since, changed below: the check stops the run (exit 8)"
	else
		fail "$nm: a table block changed below: the check stops the run" \
			"block/offset '$ib': exit $(rcof rtab): $(cat "$T/rtab.err")"
	fi
	tl=$(jq -r '.blocks_from_log' "$T/rinc.json")
	if [ "${tl:-0}" -gt 0 ] 2>/dev/null &&
	   grep -q "reads answered from their logged copies" "$T/rinc.out"; then
		pass "$nm: $tl reads answered from their logged copies"
	else
		fail "$nm: reads answered from their logged copies" "$tl: $(kindline rinc)"
	fi
	rm -f "$RI" "$T/ring.copy.img" "$T/ring.dd.img"
}
ring

# After a run that zeroed the whole stale log (--all-journal, as
# --all-free-if-lost does when it answers a loss), the block before where
# the kernel goes on is zero and proves nothing; the chain that follows
# begins right after the kept sequence, which no ring can have gone round
# (ring_fresh.c), and the facts are used (and checked).
ring_zeroed() {
	nm="incremental: ring facts after the log was zeroed"
	RI=$T/ringz.img RS=$T/st.ringz
	rm -rf "$RI" "$RS"
	mkimg "$RI" 64M -t ext4 || { fail "$nm: mke2fs" ""; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	populate
	kumount
	wet "ringz.clean" "$RI" "$RS" --all-journal
	c=$(rcof ringz.clean)
	[ "$c" = 0 ] || [ "$c" = 1 ] ||
		{ fail "$nm: the clean run" "exit $c"; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	churn 1
	kumount
	cp --sparse=always "$RI" "$T/ringz.copy.img"
	rm -rf "$T/st.rzcopy"
	cp -a "$RS" "$T/st.rzcopy"
	dry rzinc "$RI" "$RS" ""
	dry full "$T/ringz.copy.img" "$T/st.rzcopy" "" --full
	if [ "$(kind rzinc)" = incremental ] &&
	   [ "$(jq -r .ring_facts "$T/rzinc.json")" = used ] &&
	   same_plan rzinc full && [ "$(rcof rzinc)" = "$(rcof full)" ]; then
		pass "$nm: used, checked, and the plan equals --full's ($(grep -o 'journal: [0-9]* of [0-9]*' "$T/rzinc.out"))"
	else
		fail "$nm: used, plan equals --full's" \
			"run=$(kind rzinc) ring_facts=$(jq -c .ring_facts "$T/rzinc.json") exit $(rcof rzinc)/$(rcof full): $(cat "$T/rzinc.err") $pdiff"
	fi
	rm -f "$RI" "$T/ringz.copy.img"
}
ring_zeroed

# A -y that wiped copies in the log in part (stale copies of +s records,
# their descriptors) reads them back before it closes the filesystem and
# keeps their facts (ring_since.c, e2sr_ring_settle): the next run reads
# only what the kernel wrote since.  Before, it read again every block
# the run before had written, night after night.  The check (the
# suite's E2SECRM_RING_CHECK=1) compares those facts with the whole log.
ring_settled() {
	nm="incremental: ring facts of what a run wrote"
	RI=$T/rings.img RS=$T/st.rings
	ring_image "$nm" "$RI" "$RS" || return
	wet rsy "$RI" "$RS"
	wrote=$(sed -n 's/^ *stale journal copies *\([0-9]*\) blocks.*/\1/p' "$T/rsy.out" | head -1)
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	echo after >"$M/plain/after"
	kumount
	dry rsn "$RI" "$RS" ""
	jl=$(grep -o 'journal: [0-9]* of [0-9]* log blocks read ([0-9]*' "$T/rsn.out")
	rd=$(echo "$jl" | sed 's/journal: \([0-9]*\) of.*/\1/')
	fr=$(echo "$jl" | sed 's/.*(//')
	if [ "$(rcof rsy)" = 1 ] && [ "${wrote:-0}" -gt 0 ] &&
	   [ "$(jq -r .ring_facts "$T/rsn.json")" = used ] &&
	   [ -n "$rd" ] && [ "$rd" = "$fr" ]; then
		pass "$nm: after a -y that wiped $wrote log blocks, the next run reads only what the kernel wrote ($jl)"
	else
		fail "$nm: the next run reads only what the kernel wrote" \
			"-y exit $(rcof rsy), wiped ${wrote:-?}; $(grep 'journal:' "$T/rsn.out") $(cat "$T/rsn.err")"
	fi
	rm -f "$RI"
}
ring_settled

# A file system with fast commits, unmounted cleanly: the journal's
# feature for the area is off again, but every transaction the mount
# wrote turned at the area (journal_dev.c, fc_area_set_aside()).  The
# log's head is brought near the area, a clean run kept its state, and
# the next mount's transactions cross the turn (not a whole ring).
# Before, the walk took the area's bytes for the copies of the crossing
# transaction: the history had a gap (a full run, and "cannot be
# traced"), and the chain of ring_fresh.c went on into the area, so
# that the ring check stopped the run (exit 8) and the plan differed.
ring_fc_turn() {
	nm="incremental: fast commits, the log turned at the area"
	RI=$T/ringfc.img RS=$T/st.ringfc
	rm -rf "$RI" "$RS"
	mkimg "$RI" 64M -t ext4 -b 4096 -J size=4 -O fast_commit ||
		{ fail "$nm: mke2fs" ""; return; }
	jhead() {
		jh_p=$(debugfs -R "bmap <8> 0" "$RI" 2>/dev/null)
		dd if="$RI" bs=4096 skip="$jh_p" count=1 2>/dev/null |
			od -An -tu1 -j88 -N4 |
			awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'
	}
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	mkdir "$M/s" && chattr +s "$M/s"
	kumount
	n=0 rounds=0
	while [ "$(jhead)" -lt 850 ] && [ "$rounds" -lt 30 ]; do
		rounds=$((rounds + 1))
		kmount "$RI" || { fail "$nm: mount" ""; return; }
		for i in $(seq 20); do
			n=$((n + 1))
			echo "$tag-fc-$n" >"$M/s/f$n"
			sync -f "$M"
		done
		kumount
	done
	clean_run "$nm" "$RI" "$RS" || return
	h0=$(jhead)
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	for i in $(seq 40); do
		n=$((n + 1))
		echo "$tag-fc-$n" >"$M/s/g$n"
		rm -f "$M/s/f$((n - 60))"
		sync -f "$M"
	done
	kumount
	h1=$(jhead)
	if [ "$h1" -ge "$h0" ]; then
		skip "$nm" "the log did not turn (head $h0, then $h1)"
		return
	fi
	cp --sparse=always "$RI" "$T/ringfc.copy.img"
	rm -rf "$T/st.ringfc.copy"
	cp -a "$RS" "$T/st.ringfc.copy"
	(E2SECRM_RING_CHECK=1; export E2SECRM_RING_CHECK
	 dry rfci "$RI" "$RS" "")
	dry rfcf "$T/ringfc.copy.img" "$T/st.ringfc.copy" "" --full
	if [ "$(rcof rfci)" != 8 ] && [ "$(kind rfci)" = incremental ] &&
	   grep -q 'back to the last run' "$T/rfci.out" &&
	   same_plan rfci rfcf && [ "$(rcof rfci)" = "$(rcof rfcf)" ]; then
		pass "$nm: incremental, checked, the plan equals --full's (head $h0, then $h1)"
	else
		fail "$nm: incremental, checked, plan equals --full's" \
			"head $h0 then $h1: exit $(rcof rfci) ($(kind rfci): $(reason rfci)): $(head -c 300 "$T/rfci.err") $(grep 'journal history' "$T/rfci.out") $pdiff"
		keep "$nm" "$T/rfci.out" "$T/rfci.err" "$T/rfcf.out" "$RI"
	fi
	rm -f "$RI" "$T/ringfc.copy.img"
}
ring_fc_turn

# The names index (lib/plan/plan_journal_index.c): a stale block the last
# run read for names keeps an index of its entries' numbers and of the
# first bytes at each aligned place of its slack; the next run reads it
# again only when the index says it may hold what is asked.  A plain
# file's copies name its number; made +s and removed after the clean
# run, its entries in those old copies are its residue (the index must
# say yes to its number).  Its name without a header lies in the slack
# of an old kernel's copy of a directory block whose first entry was
# removed (inode 0, the name left: kernels since 5.14 wipe a removed
# entry), planted in a log block no transaction has used yet; the
# index must say yes to the name's first bytes there, and no to the
# entries of the other directory.  The plan must be --full's, and the
# ring check compares each index a block was passed over by with the
# one its bytes give.
ring_names() {
	nm="incremental: names index"
	RI=$T/ringn.img RS=$T/st.ringn
	rm -rf "$RI" "$RS"
	mkimg "$RI" 64M -t ext4 -b 4096 || { fail "$nm: mke2fs" ""; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	mkdir "$M/lin" "$M/sec" "$M/misc"
	echo kept >"$M/sec/kept-s"
	chattr +s "$M/sec/kept-s"
	name=plain-file-with-a-rather-long-name
	echo data >"$M/lin/$name"
	sync
	for j in 1 2 3; do
		echo "$j" >"$M/sec/other$j"
		echo "$j" >"$M/misc/m$j"
		sync
	done
	kumount
	phys=$(debugfs -R "bmap <8> 500" "$RI" 2>/dev/null)
	printf '\000\000\000\000\000\020%b\001%s' \
		"\\0$(printf '%o' ${#name})" "$name" >"$T/planted"
	truncate -s 4096 "$T/planted"
	dd if="$T/planted" of="$RI" bs=4096 seek="$phys" conv=notrunc \
		status=none
	clean_run "$nm" "$RI" "$RS" || return
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	chattr +s "$M/lin/$name"
	sync
	rm "$M/lin/$name"
	kumount
	cp --sparse=always "$RI" "$T/ringn.copy.img"
	rm -rf "$T/st.ncopy"
	cp -a "$RS" "$T/st.ncopy"
	(unset E2SECRM_RING_CHECK; dry rn "$RI" "$RS" "")
	dry rnc "$RI" "$RS" ""
	dry full "$T/ringn.copy.img" "$T/st.ncopy" "" --full
	nb=$(jq '[.actions[] | select(.why == "journal_name_bytes" and
		.block == 500)] | length' "$T/full.json" 2>/dev/null)
	ix=$(jq -r .name_searches_indexed "$T/rn.json" 2>/dev/null)
	if [ "$(kind rn)" = incremental ] &&
	   [ "$(jq -r .ring_facts "$T/rn.json")" = used ] &&
	   [ "${nb:-0}" -gt 0 ] && [ "${ix:-0}" -gt 0 ] &&
	   same_plan rn full && [ "$(rcof rn)" = "$(rcof full)" ]; then
		pass "$nm: $ix searches answered by kept indexes; the planted copy's name bytes planned as --full plans them"
	else
		fail "$nm: the indexed run plans what --full plans" \
			"run=$(kind rn) ring=$(jq -r .ring_facts "$T/rn.json") name bytes at 500 in --full: $nb, indexed: $ix, exit $(rcof rn)/$(rcof full) $pdiff"
		keep "$nm" "$T/rn.out" "$T/rn.json" "$T/full.out" "$T/full.json"
	fi
	if [ "$(rcof rnc)" = "$(rcof full)" ] && same_plan rnc full &&
	   [ "$(jq -r .name_searches_indexed "$T/rnc.json")" = "$ix" ]; then
		pass "$nm: with the ring check, each index a block was passed over by is the block's"
	else
		fail "$nm: with the ring check" \
			"exit $(rcof rnc): $(cat "$T/rnc.err") $pdiff"
	fi
	rm -f "$RI" "$T/ringn.copy.img"
}
ring_names

# A -y that wiped a +s file's entries in old copies of its directory
# wrote those blocks in part: their index goes with their old bytes, and
# is made again from what they hold after the wipe
# (e2sr_jplan_index_written()).  The next run, the kernel having
# written nothing since, reads no name block.  Before, it read every
# directory copy the -y had wiped an entry in, night after night.
ring_names_settled() {
	nm="incremental: names index of what a run wrote"
	RI=$T/ringw.img RS=$T/st.ringw
	rm -rf "$RI" "$RS"
	mkimg "$RI" 64M -t ext4 -b 4096 || { fail "$nm: mke2fs" ""; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	mkdir "$M/sec" "$M/misc"
	echo kept >"$M/sec/kept-s"
	chattr +s "$M/sec/kept-s"
	sync
	for j in 1 2 3 4 5 6; do
		echo "$j" >"$M/sec/other$j"
		echo "$j" >"$M/misc/m$j"
		sync
	done
	kumount
	wet rwy "$RI" "$RS"
	names=$(jq '[.actions[] | select(.why == "journal_name")] | length' \
		"$T/rwy.json" 2>/dev/null)
	(unset E2SECRM_RING_CHECK; dry rwn "$RI" "$RS" "")
	rd=$(jq -r .name_block_reads "$T/rwn.json" 2>/dev/null)
	ix=$(jq -r .name_searches_indexed "$T/rwn.json" 2>/dev/null)
	if [ "$(rcof rwy)" = 1 ] && [ "${names:-0}" -gt 0 ] &&
	   [ "$(jq -r .ring_facts "$T/rwn.json")" = used ] &&
	   [ "$rd" = 0 ] && [ "${ix:-0}" -gt 0 ]; then
		pass "$nm: after a -y that wiped $names entries in old copies, the next run reads no name block ($ix searches answered)"
	else
		fail "$nm: the next run reads no name block" \
			"-y exit $(rcof rwy), $names entries wiped; ring $(jq -r .ring_facts "$T/rwn.json"), $rd read, $ix answered"
	fi
	rm -f "$RI"
}
ring_names_settled

# A directory whose residue lies in blocks no copy since shows changed:
# an htree's splits leave stale copies of moved entries behind the
# packed ones, and the clean run keeps the directory for its residue.
# One such name's file is then made +s: the names plan wipes the stale
# copy.  The incremental run does not read directory blocks no copy
# since shows changed (livemap_dirs.c); the directory's kept residue
# sends the names plan to it all the same.  With MODE rm the file is
# removed too, which changes the block that held it live and not the
# one with its stale copy.  (Without the kept residue taken over, the
# "keep" run's plan, without the ring check, has no names action: shown
# by hand when this was written.)
residue_unchanged() {
	nm="incremental: residue in unchanged directory blocks ($1)"
	RI=$T/ru.img RS=$T/st.ru
	rm -rf "$RI" "$RS"
	mkimg "$RI" 32M -t ext4 -b 1024 || { fail "$nm: mke2fs" ""; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	mkdir "$M/D" "$M/E"
	i=1
	while [ "$i" -le 120 ]; do
		echo "$i" >"$M/D/file-$i-$tag-abcdefghijklmnopqrstuvwxyz"
		i=$((i + 1))
	done
	echo e >"$M/E/e1"
	kumount
	# A name with a stale copy (debugfs ls -d shows it deleted) that is
	# live too.
	stale=$(debugfs -R "ls -d /D" "$RI" 2>/dev/null |
		grep -o "<[1-9][0-9]*> *([0-9]*) file-[^ ]*" | head -1 |
		sed 's/.* //')
	if [ -z "$stale" ] ||
	   ! debugfs -R "ls /D" "$RI" 2>/dev/null | grep -q " $stale "; then
		skip "$nm" "the kernel's splits left no stale copy of a live name"
		return
	fi
	clean_run "$nm" "$RI" "$RS" || return
	kmount "$RI" || { fail "$nm: mount" "after the clean run"; return; }
	# Another directory changed first: a file created after the rm
	# would take the freed inode in the same transaction, and with it
	# every trace of the flag.
	echo more >"$M/E/e2"
	chattr +s "$M/D/$stale"
	sync
	[ "$1" = rm ] && rm "$M/D/$stale"
	kumount
	compare "$nm" "$RI" "$RS"
	left=$(debugfs -R "ls -d /D" "$RI" 2>/dev/null |
		grep -c "<[0-9]*> *([0-9]*) $stale")
	if [ "$(jq '[.actions[] | select(.kind == "names")] | length' \
		"$T/inc0.json" 2>/dev/null)" -ge 1 ] 2>/dev/null &&
	   [ "$left" = 0 ]; then
		pass "$nm: the stale name planned and gone"
	else
		fail "$nm: the stale name planned and gone" \
			"$(jq -c '[.actions[] | .kind] | unique' "$T/inc0.json" 2>/dev/null); $left stale copies left"
	fi
	rm -f "$RI"
}
residue_unchanged keep
residue_unchanged rm

# The records carrying the flag whose table blocks no copy since shows
# changed are taken as the last run kept them (the .since file), not
# read (inventory_since.c).  A +s file made first (its record in a
# table block of four, 1 KiB blocks, beside lost+found's), twenty more,
# then a directory the churn works in (its record and theirs in later
# blocks).  The
# incremental plan equals --full's, and says how many records it took
# so; a record changed below the file system (dd) is what the check
# sees; without the check the run trusts the kept record (a limit:
# e2secrm(7)).
kept_records() {
	nm="incremental: records as the last run kept them"
	RI=$T/kr.img RS=$T/st.kr
	rm -rf "$RI" "$RS"
	mkimg "$RI" 64M -t ext4 -b 1024 -I 256 ||
		{ fail "$nm: mke2fs" ""; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	canary "$M/k" "$tag-KEPT" 6000
	chattr +s "$M/k"
	i=1
	while [ "$i" -le 20 ]; do
		echo "$i" >"$M/f$i"
		i=$((i + 1))
	done
	mkdir "$M/D"
	sync
	kumount
	clean_run "$nm" "$RI" "$RS" || return
	kmount "$RI" || { fail "$nm: mount" "after the clean run"; return; }
	canary "$M/D/s" "$tag-KRS" 8000
	chattr +s "$M/D/s"
	sync
	rm "$M/D/s"
	echo n >"$M/D/n1"
	kumount
	ki=$(debugfs -R "imap /k" "$RI" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	cp --sparse=always "$RI" "$T/kr.dd.img"
	rm -rf "$T/st.krdd"
	cp -a "$RS" "$T/st.krdd"
	compare "$nm" "$RI" "$RS"
	kk=$(jq -r '.records_kept' "$T/inc0.json" 2>/dev/null)
	if [ "${kk:-0}" -ge 1 ] 2>/dev/null &&
	   grep -q "records as the last run kept them" "$T/inc0.out"; then
		pass "$nm: $kk records taken as kept"
	else
		fail "$nm: records taken as kept" "$kk: $(kindline inc0)"
	fi
	if [ -n "$ki" ]; then
		set -- $ki
		printf 'DDWASHERE' | dd of="$T/kr.dd.img" bs=1 \
			seek=$(( $1 * 1024 + $2 + 0x70 )) conv=notrunc 2>/dev/null
	fi
	(E2SECRM_RING_CHECK=1; export E2SECRM_RING_CHECK; dry krdd "$T/kr.dd.img" "$T/st.krdd" "")
	if [ -n "$ki" ] && [ "$(rcof krdd)" = 8 ] &&
	   grep -q 'Record kept by the last run differs on the disk' "$T/krdd.err"; then
		pass "$nm: a kept record changed below: the check stops the run (exit 8)"
	else
		fail "$nm: a kept record changed below: the check stops the run" \
			"block/offset '$ki': exit $(rcof krdd): $(cat "$T/krdd.err")"
	fi
	(E2SECRM_RING_CHECK=0; dry krdd "$T/kr.dd.img" "$T/st.krdd" "")
	kk=$(jq -r '.records_kept' "$T/krdd.json" 2>/dev/null)
	if [ "$(kind krdd)" = incremental ] && [ "${kk:-0}" -ge 1 ] 2>/dev/null; then
		pass "$nm: without the check the run trusts the kept record (a limit: e2secrm(7))"
	else
		fail "$nm: without the check the run trusts the kept record" \
			"run=$(kind krdd) records_kept=$kk exit $(rcof krdd)"
	fi
	rm -f "$RI" "$T/kr.dd.img"
}
kept_records

# The fast-commit area is written in place, outside the log's chain:
# after a clean run on a fast_commit file system whose area was all
# zero, a day without fsync leaves it so, and the incremental run does
# not read it (ring_fresh.c, fc_area_quiet(): every round of fast
# commits writes the area's first block; set aside past the log, the
# ring's facts keep whether the run left it all zero).  Then a +s file written and
# fsync'ed (a fast commit), removed, another file fsync'ed: the area is
# read, and the plan equals --full's, with and without the ring check.
fc_area() {
	fa="incremental: the fast-commit area"
	nm=$fa
	RI=$T/fa.img RS=$T/st.fa
	rm -rf "$RI" "$RS"
	mkimg "$RI" 64M -t ext4 -O fast_commit ||
		{ fail "$nm: mke2fs" ""; return; }
	kmount "$RI" || { fail "$nm: mount" ""; return; }
	populate
	kumount
	clean_run "$nm" "$RI" "$RS" || return
	nfc=$(dumpe2fs -h "$RI" 2>/dev/null |
		sed -n 's/^Fast commit length: *//p')
	[ "${nfc:-0}" -gt 0 ] 2>/dev/null || nfc=256
	kmount "$RI" || { fail "$nm: mount" "after the clean run"; return; }
	churn 1
	kumount
	compare "$fa (no fsync)" "$RI" "$RS"
	nm=$fa
	lr=$(jq -r '.log_blocks_read' "$T/inc0.json" 2>/dev/null)
	if [ "$(jq -r '.fc_area_read' "$T/inc0.json")" = false ] &&
	   grep -q 'the fast-commit area not read (all zero' "$T/inc0.out"; then
		pass "$nm: untouched since the last run, not read ($lr log blocks read, the area $nfc)"
	else
		fail "$nm: untouched since the last run, not read" \
			"fc_area_read $(jq -r '.fc_area_read' "$T/inc0.json"): $(grep 'journal:' "$T/inc0.out")"
	fi
	kmount "$RI" || { fail "$nm: mount" "after round 1"; return; }
	dev=$(findmnt -n -o SOURCE "$T/mnt")
	fci=/proc/fs/ext4/${dev##*/}/fc_info
	# The first fsync after a mount is a full commit: another file's.
	echo warm >>"$M/plain/p1"
	xfs_io -c fsync "$M/plain/p1"
	c0=$(fc_stat "$fci" commits)
	canary "$M/docs/fc" "$tag-FCAREA" 6000
	chattr +s "$M/docs/fc"
	xfs_io -c fsync "$M/docs/fc"
	rm "$M/docs/fc"
	echo 2 >>"$M/plain/p1"
	xfs_io -c fsync "$M/plain/p1"
	c1=$(fc_stat "$fci" commits)
	kumount
	if [ "${c1:-0}" -le "${c0:-0}" ] 2>/dev/null; then
		skip "$nm: after fast commits" "the kernel made none (fc_info commits ${c0:-?} -> ${c1:-?})"
		rm -f "$RI"
		return
	fi
	compare "$fa (fast commits)" "$RI" "$RS"
	nm=$fa
	lr=$(jq -r '.log_blocks_read' "$T/inc0.json" 2>/dev/null)
	if [ "$(jq -r '.fc_area_read' "$T/inc0.json")" = true ]; then
		pass "$nm: after $((c1 - c0)) fast commits, read ($lr log blocks read besides)"
	else
		fail "$nm: after fast commits, read" \
			"fc_area_read $(jq -r '.fc_area_read' "$T/inc0.json"): $(grep 'journal:' "$T/inc0.out")"
	fi
	rm -f "$RI"
}
fc_area
