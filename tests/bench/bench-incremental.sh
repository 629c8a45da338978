#!/bin/bash
# bench-incremental.sh --- the incremental row of bench-scale (issue 37);
# owned by tests/bench.  Run as root; bench.sh scale calls it last (unless
# BENCH_SKIP has "inc"), `make bench-incremental` alone.
#
#   bench-incremental.sh [IMAGE]     default: the scale image (mkscale.sh)
#
# On a work copy of IMAGE (cp --sparse=always; the cached image is never
# written), for each churn in $INC_CHURN (default "0.01 0.001 0.001c": 1%
# and 0.1% of the files picked at random over the tree, as issue 37 asks,
# and 0.1% clustered in a few subtrees, churn.py's "c": random picks touch
# nearly every group, so the issue's churns alone cannot show what group
# granularity saves):
#   1. a clean run (before each churn, so the state is new), e2secrm -y --all-free-if-lost --skip-zero
#      --state-dir S (full: no state yet).  The image's journal wrapped
#      since it was made, so the first run cannot trace every deletion
#      and keeps no state unless that gap is answered: --all-free-if-lost
#      wipes the free space for it; --skip-zero writes only blocks not
#      already zero, so the sparse copy does not grow by the 12.5 GiB of
#      free space (mostly trimmed holes) that wipe covers;
#   2. churn.py through the kernel (mount -o loop,noinit_itable,noatime:
#      see there; deletes, appends,
#      renames, creates, some +s), sync, umount;
#   3. readset.py traces both -n runs (every byte they read, split into
#      journal, inode tables, bitmaps, descriptors and the rest);
#   4. cold (drop_caches), each with its own copy of S (a -n run writes
#      no state, but the copies keep the two runs apart anyway), twice,
#      the second time in the other order (the host's cache of the image
#      favours whichever runs second):
#        inc-n   e2secrm -n -v --json --json-plan           (incremental)
#        full-n  e2secrm -n -v --full --json --json-plan    (the same image)
#      and their plans (jq -S .actions) compared;
#   5. when the disk has room for a second copy: the churned image
#      copied; readset.py traces both -y runs on the work copy, each
#      time put back from that copy after; then cold
#        inc-y   e2secrm -y --skip-zero -v on the work copy (state S)
#        full-y  e2secrm -y --skip-zero --full on the second copy
#      (incremental needs the work copy itself: the state names the image
#      file's device and inode, so a run on a copy is full by design), and
#      their plans compared.  Without room, -y is skipped (the report
#      says why).
# The floor (what an incremental run cannot skip): the journal the kernel
# wrote since the last run, measured outside e2secrm (readset.py jsum
# after the clean run, jdiff after the churn: the log blocks whose bytes
# changed, descriptors, commits and every copy, in the ring and the
# fast-commit area), times the block size, plus the group descriptor
# blocks.  The -v line's "L blocks logged since" (distinct filesystem
# blocks, each counted once however often it was logged) is kept beside
# it; it was the floor before, and is smaller.
# Raw rows go to $SCALE_DIR/results-incremental.tsv (the columns of
# results-scale.tsv), facts to facts-incremental.tsv, a plan that differs
# to inc-plan-CHURN.diff; report.py --incremental writes the section of
# BENCHMARKS.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${SCALE_DIR:=/var/tmp/e2secrm-scale}"
: "${E2SECRM:=$top/e2secrm/e2secrm}"
: "${INC_CHURN:=0.01 0.001 0.001c}"
: "${INC_SEED:=37}"
[ "$(id -u)" = 0 ] || { echo "bench-incremental: needs root (loop mounts, drop_caches)" >&2; exit 8; }
[ -x "$E2SECRM" ] || { echo "bench-incremental: no e2secrm at $E2SECRM (make first)" >&2; exit 8; }
command -v jq >/dev/null || { echo "bench-incremental: needs jq" >&2; exit 8; }
mkdir -p "$SCALE_DIR"
SCALE_DIR=$(cd "$SCALE_DIR" && pwd)
if [ $# -ge 1 ]; then
	src=$1
	tag=$(basename "$src" .img)
else
	src=$(SCALE_DIR=$SCALE_DIR bash "$here/mkscale.sh" | tail -1)
	tag=scale
fi
[ -f "$src" ] || { echo "bench-incremental: no image $src" >&2; exit 8; }

tsv=$SCALE_DIR/results-incremental.tsv
facts=$SCALE_DIR/facts-incremental.tsv
work=$SCALE_DIR/inc.$$
img=$work/w.img		# the work copy: clean run, churn, incremental runs
img2=$work/w2.img	# the churned image again, for -y --full
mnt=$work/mnt
mkdir -p "$work" "$mnt"
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
printf 'image\tcache\trep\ttool\tseconds\tuser\tsys\tmaxrss_kib\trc\tbytes\tnote\tin_kib\n' >"$tsv"
: >"$facts"

say() { echo "bench-incremental: $*"; }
drop() { sync; quiet; echo 3 >/proc/sys/vm/drop_caches; }

# quiet: wait, a minute at most, until the disk under SCALE_DIR has
# written nothing for a second.  After a copy of the image (the second
# copy, the put-backs after the traced -y runs) ext4 goes on writing for
# a while after sync returns, and a cold run timed meanwhile pays for it:
# a full -y took 1.84 s there against 1.22 s on a quiet disk.  This only
# waits for that: it does not make the host steady (a later bench run's
# full -y took 3.15 s with it).
quiet() {
	local dev w0 w1 i

	dev=$(df --output=source "$SCALE_DIR" 2>/dev/null | tail -1)
	dev=${dev#/dev/}
	for i in $(seq 60); do
		w0=$(awk -v d="$dev" '$3 == d { print $10 }' /proc/diskstats)
		sleep 1
		w1=$(awk -v d="$dev" '$3 == d { print $10 }' /proc/diskstats)
		[ "$w0" = "$w1" ] && return 0
	done
	say "the disk under $SCALE_DIR did not go quiet in $i s"
}
fact() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$facts"; }

# timed IMAGE TOOL CMD...: one cold row (bench.sh's timed, cold only).
# The command's stdout goes to $work/out, stderr to $work/err.  The
# bytes column is its rchar (readset.py io): what its reads returned,
# holes and repeats included, so a run on a sparse copy (the -y --full
# one, whose zeroed blocks cp made holes) counts what a run on the
# original would, where the device reads (in_kib) do not.  The seconds
# are the command's, from readset.py's fork to its exit: the wrapper's
# own start (python, cold after drop_caches: 0.2 s on the bench machine,
# half an incremental row) was in every row until 2026-12-07; max RSS is
# the command's own, but not below the wrapper's (about 11 MiB: the
# kernel keeps the forked copy's peak across exec).
timed() {
	local im=$1 tool=$2 rep=$3 t0 t1 rc rss u s in rchar
	shift 3
	drop
	t0=$EPOCHREALTIME
	/usr/bin/time -f '%M %U %S %I' -o "$work/time" \
		/usr/bin/python3 "$here/readset.py" io "$work/io" -- "$@" \
		>"$work/out" 2>"$work/err"
	rc=$?
	t1=$EPOCHREALTIME
	read -r rss u s in < <(tail -1 "$work/time")
	case $rss in *[!0-9]*|'') rss=0 u=0 s=0 in=0 ;; esac
	rchar=$(sed -n 's/.*rchar=\([0-9]*\).*/\1/p' "$work/io" 2>/dev/null)
	last_s=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$work/io" 2>/dev/null)
	[ -n "$last_s" ] || last_s=$(awk "BEGIN{printf \"%.4f\", $t1 - $t0}")
	printf '%s\tcold\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\trchar\t%s\n' "$im" \
		"$rep" "$tool" "$last_s" "$u" "$s" "$rss" "$rc" "${rchar:-0}" \
		"$(( ${in:-0} / 2 ))" >>"$tsv"
	printf '  %-7s cold #%s %8ss  rss %6s KiB  rc %s  read %s B, device %s KiB\n' \
		"$tool" "$rep" "$last_s" "$rss" "$rc" "${rchar:-0}" "$(( ${in:-0} / 2 ))"
}

# vline IMAGE TOOL: the run's -v line saying which kind it was, and its
# JSON's run, full_reason and groups_read, as facts.
vline() {
	local line
	line=$(cat "$work/out" "$work/err" | grep -m1 -E 'incremental run since|full scan:')
	# Without -v a full run names no reason on its own: the JSON's.
	[ -n "$line" ] || line="full scan: $(jq -r '.full_reason // "?"' "$work/$2.json" 2>/dev/null)"
	fact "$1" "${2}_vline" "${line:-none}"
	fact "$1" "${2}_jline" "$(cat "$work/out" | grep -m1 -E ': journal: ' | sed 's/^[^:]*: //')"
	fact "$1" "${2}_run" "$(jq -r '.run // "none"' "$work/$2.json" 2>/dev/null)"
	fact "$1" "${2}_full_reason" "$(jq -r '.full_reason // ""' "$work/$2.json" 2>/dev/null)"
	fact "$1" "${2}_groups_read" "$(jq -r '.groups_read // ""' "$work/$2.json" 2>/dev/null)"
	fact "$1" "${2}_actions" "$(jq '.actions | length' "$work/$2.json" 2>/dev/null)"
	fact "$1" "${2}_rc" "$(tail -1 "$tsv" | cut -f9)"
}

# keep_report IMAGE TOOL: a run that left something (exit bit 4) has its
# report kept beside the results, to read what it says is left.
keep_report() {
	local rc
	rc=$(tail -1 "$tsv" | cut -f9)
	case $rc in *[!0-9]*|'') return ;; esac
	[ $(( rc & 4 )) = 0 ] && return
	cat "$work/out" "$work/err" >"$SCALE_DIR/inc-left-$1-$2.txt"
	say "$1: $2 exited $rc (left): $SCALE_DIR/inc-left-$1-$2.txt"
}

# same_plan IMAGE A B: whether two runs planned the same actions; the
# diff kept beside the results when not (an engine bug: --full is truth).
same_plan() {
	jq -S .actions "$work/$2.json" >"$work/$2.plan" 2>/dev/null
	jq -S .actions "$work/$3.json" >"$work/$3.plan" 2>/dev/null
	if [ -s "$work/$2.plan" ] && cmp -s "$work/$2.plan" "$work/$3.plan"; then
		fact "$1" "plans_equal_${2#inc-}" yes
	else
		fact "$1" "plans_equal_${2#inc-}" no
		diff -u "$work/$3.plan" "$work/$2.plan" >"$SCALE_DIR/inc-plan-$1-${2#inc-}.diff"
		say "$1: $2 and $3 plan differently: $SCALE_DIR/inc-plan-$1-${2#inc-}.diff"
	fi
}

# trace_reads IM T CMD...: every byte range CMD reads of the work copy
# (readset.py trace, strace), as facts readset_T_*, and where they lie
# (split_T_*).
trace_reads() {
	local im=$1 t=$2

	shift 2
	/usr/bin/python3 "$here/readset.py" trace "$img" "$work/$t.ranges" -- "$@" |
		tr ' ' '\n' | sed "s/^\([^=]*\)=\(.*\)/$im\treadset_${t}_\1\t\2/" >>"$facts"
	/usr/bin/python3 "$here/readset.py" split "$work/$t.ranges" "$bsize" \
		journal="$work/r.journal" itable="$work/r.itable" \
		bitmaps="$work/r.bitmaps" sbgdt="$work/r.sbgdt" |
		tr ' ' '\n' | sed "s/^\([^=]*\)=\(.*\)/$im\tsplit_${t}_\1\t\2/" >>"$facts"
}

# room_for_copy: the work copy and a second one of the churned image
# (each its allocated size; -y --skip-zero writes little) leave
# SCALE_MIN_FREE_GB (15) GiB free.
room_for_copy() {
	local need avail
	need=$(du -k "$img" | cut -f1)
	avail=$(df -k --output=avail "$SCALE_DIR" | tail -1)
	[ $(( avail - need )) -ge $(( ${SCALE_MIN_FREE_GB:-15} * 1048576 )) ]
}

say "copying $src"
t0=$EPOCHREALTIME
cp --sparse=always "$src" "$img" && sync || exit 8
fact "$tag" copy_s "$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}")"

# Geometry, and the regions the traced reads are split by (blocks).
bsize=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
dsize=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Group descriptor size: *//p')
: "${dsize:=32}"
dumpe2fs "$img" 2>/dev/null >"$work/dumpe2fs"
groups=$(grep -c '^Group [0-9]' "$work/dumpe2fs")
gdt_bytes=$(( (groups * dsize + bsize - 1) / bsize * bsize ))
debugfs -R 'ex -l <8>' "$img" 2>/dev/null | awk 'NR > 1 && $NF ~ /^[0-9]+$/ {
	print ($(NF-2) == "-" ? $(NF-3) : $(NF-1)), $NF }' >"$work/r.journal"
sed -n 's/.*Inode table at \([0-9]*\)-\([0-9]*\).*/\1 \2/p' "$work/dumpe2fs" |
	awk '{ print $1, $2 - $1 + 1 }' >"$work/r.itable"
sed -n 's/.*\(Block\|Inode\) bitmap at \([0-9]*\).*/\2 1/p' "$work/dumpe2fs" >"$work/r.bitmaps"
# Superblock and descriptors of group 0 (what e2fsprogs reads).
sed -n 's/.*Group descriptors at \([0-9]*\)-\([0-9]*\).*/\1 \2/p' "$work/dumpe2fs" |
	head -1 | awk '{ print 0, $2 + 1 }' >"$work/r.sbgdt"
fact "$tag" block_size "$bsize"
fact "$tag" groups "$groups"
fact "$tag" desc_size "$dsize"
fact "$tag" gdt_bytes "$gdt_bytes"
fact "$tag" journal_bytes "$(awk -v b="$bsize" '{ s += $2 } END { print s * b }' "$work/r.journal")"

state=$work/state
mkdir -p "$state"
clean() {
	local t0=$EPOCHREALTIME
	"$E2SECRM" -y --all-free-if-lost --skip-zero --state-dir "$state" \
		"$img" >"$work/clean.out" 2>&1
	fact "$1" clean_rc $?
	ls "$state"/*.state >/dev/null 2>&1 || {
		echo "bench-incremental: $1: the clean run kept no state:" >&2
		grep -v '^  ' "$work/clean.out" >&2
		exit 8
	}
	fact "$1" clean_s "$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}")"
}
seed=$INC_SEED
for churn in $INC_CHURN; do
	seed=$((seed + 1))	# each churn its own picks and names
	pct=$(awk "BEGIN{print ${churn%c} * 100}")%
	[ "$churn" = "${churn%c}" ] || pct=$pct-clustered
	im=$tag@$pct
	# Each churn from a fresh clean run: the state new, and complete (an
	# incremental -y that leaves residue (exit bit 4) carries the old
	# state without its groups, and the next run would be full).
	say "$im: clean run (-y --all-free-if-lost --skip-zero)"
	clean "$im"
	/usr/bin/python3 "$here/readset.py" jsum "$img" "$work/r.journal" \
		"$bsize" "$work/j.sum" || exit 8
	say "$im: churn through the kernel"
	# noinit_itable, as mkscale.sh mounts: the image's tables were left
	# to the lazy init, and on a first mount ext4lazyinit would zero them
	# and set ITABLE_ZEROED in every group's descriptor (logged), so every
	# group would have changed since the last run: a one-time event of a
	# new filesystem, not a day's churn (a server's lazy init is long done).
	# noatime: churn.py lists the whole tree to pick from, and with
	# relatime that walk would log the atime of every directory changed
	# since it was last read (after a random churn, directories in nearly
	# every group): a cost of the bench's own listing, not of the churn.
	mount -o loop,noinit_itable,noatime "$img" "$mnt" || exit 8
	t0=$EPOCHREALTIME
	/usr/bin/python3 "$here/churn.py" "$mnt" "$churn" "$seed" >"$work/churn.out" || { umount "$mnt"; exit 8; }
	sync
	umount "$mnt" || exit 8
	fact "$im" churn_s "$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}")"
	tr ' ' '\n' <"$work/churn.out" | sed "s/^\([^=]*\)=\(.*\)/$im\tchurn_\1\t\2/" >>"$facts"
	cat "$work/churn.out"
	written=$(/usr/bin/python3 "$here/readset.py" jdiff "$img" \
		"$work/r.journal" "$bsize" "$work/j.sum" |
		sed -n 's/.* changed=\([0-9]*\).*/\1/p')
	fact "$im" journal_written_blocks "${written:-0}"

	# What each -n run reads, and where (not timed: strace slows it).
	for t in inc-n full-n; do
		rm -rf "$work/s-$t"
		cp -a "$state" "$work/s-$t"
		case $t in
		inc-n) set -- "$E2SECRM" -n --state-dir "$work/s-$t" "$img" ;;
		full-n) set -- "$E2SECRM" -n --full --state-dir "$work/s-$t" "$img" ;;
		esac
		trace_reads "$im" "$t" "$@"
	done

	for order in "inc-n full-n" "full-n inc-n"; do
		rep=1
		[ "$order" = "inc-n full-n" ] || rep=2
		for t in $order; do
			fl=
			[ "$t" = full-n ] && fl=--full
			# shellcheck disable=SC2086
			timed "$im" "$t" "$rep" "$E2SECRM" -n $fl \
				--state-dir "$work/s-$t" --json "$work/$t.json" \
				--json-plan "$img"
			[ "$rep" = 1 ] && vline "$im" "$t"
		done
	done
	same_plan "$im" inc-n full-n
	# The floor: the journal written since the last run, and the
	# descriptors; the -v line's count of blocks logged, as a fact.
	logged=$(sed -n "s/^$im\tinc-n_vline\t.* \([0-9][0-9]*\) blocks logged since.*/\1/p" "$facts")
	fact "$im" logged_blocks "${logged:-0}"
	fact "$im" floor_bytes "$(( ${written:-0} * bsize + gdt_bytes ))"

	if room_for_copy; then
		say "$im: -y on the work copy (incremental) and on a copy of it (--full)"
		cp --sparse=always "$img" "$img2" && sync || exit 8
		# What each -y run reads, and where (not timed: strace slows
		# it), traced on the work copy itself with a copy of S (the
		# state names the image's file: a run on another file is full
		# by design).  The churned bytes are then put back from the
		# second copy; cp into the file keeps its inode.
		for t in inc-y full-y; do
			rm -rf "$work/s-tr-$t"
			cp -a "$state" "$work/s-tr-$t"
			fl=
			[ "$t" = full-y ] && fl=--full
			# shellcheck disable=SC2086
			trace_reads "$im" "$t" "$E2SECRM" -y --skip-zero $fl \
				--state-dir "$work/s-tr-$t" "$img"
			cp --sparse=always "$img2" "$img" && sync || exit 8
		done
		rm -rf "$work/s-full-y"
		cp -a "$state" "$work/s-full-y"
		timed "$im" inc-y 1 "$E2SECRM" -y --skip-zero --state-dir "$state" \
			--json "$work/inc-y.json" --json-plan "$img"
		vline "$im" inc-y
		keep_report "$im" inc-y
		timed "$im" full-y 1 "$E2SECRM" -y --skip-zero --full \
			--state-dir "$work/s-full-y" --json "$work/full-y.json" \
			--json-plan "$img2"
		vline "$im" full-y
		keep_report "$im" full-y
		rm -f "$img2"
		same_plan "$im" inc-y full-y
		fact "$im" wiped_inc-y "$(jq -r '.wiped.bytes' "$work/inc-y.json" 2>/dev/null)"
		fact "$im" wiped_full-y "$(jq -r '.wiped.bytes' "$work/full-y.json" 2>/dev/null)"
	else
		fact "$im" y_skipped "a second copy would leave under ${SCALE_MIN_FREE_GB:-15} GiB free"
		say "$im: -y skipped: a second copy would leave under ${SCALE_MIN_FREE_GB:-15} GiB free"
	fi
done

if [ "$tag" = scale ]; then
	/usr/bin/python3 "$here/report.py" --incremental "$tsv" "$facts" "$here/BENCHMARKS.md" "$E2SECRM" || exit 8
	say "incremental section written to $here/BENCHMARKS.md"
fi
exit 0
