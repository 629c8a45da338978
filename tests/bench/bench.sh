#!/bin/bash
# bench.sh --- the e2secrm benchmark (make bench, make bench-smoke); owned
# by tests/bench.  Run as root.
#
#   bench.sh [-r REPEAT] [-o REPORT.md] [IMAGE...]   IMAGE: smoke small many huge
#   bench.sh scale                                    (make bench-scale)
#
# Defaults: REPEAT $BENCH_REPEAT or 3; images small many huge; the report
# tests/bench/BENCHMARKS.md, or $BENCH_DIR/BENCHMARKS-smoke.md when the
# only image is smoke (CI's run leaves the tree alone).
#
# For each image (built or reused by mkimage.sh in $BENCH_DIR), side by
# side in the same run, cold cache (drop_caches before every timed
# command) then warm cache (the copy just written by cp, in the page
# cache), REPEAT times each:
#   en    e2secrm -n                           (read-only copy)
#   jmap  e2secrm -n --journal-map >/dev/null  (read-only copy)
#   fsck  e2fsck -fn                           (read-only copy)
#   ddj   dd of the journal's extents to /dev/null (1 MiB reads)
#   ey    e2secrm -y, default mode             (fresh copy each time)
#   ddwy  dd writing as many bytes as ey wiped, conv=fsync
#   zf    zerofree                             (fresh copy)
#   eaf   e2secrm -y --all-free                (fresh copy)
#   ddwaf dd writing as many bytes as eaf wiped, conv=fsync
#
# The scale image (make bench-scale: built or reused by mkscale.sh in
# $SCALE_DIR, default /var/tmp/e2secrm-scale; tens of GiB) is run once cold
# and once warm by default, every command both ways, the read-only ones on
# the cached image itself (no copy: -n and e2fsck -n open it read-only),
# zerofree and --all-free not run.  Before the timed runs, readset.py
# traces e2secrm -n and e2fsck -fn (strace: every read of the image) for
# the bytes each reads; two more rows time the floor:
#   ddr   readset.py replay: exactly the byte ranges e2secrm -n read,
#         merged, in disk order, <= 1 MiB preads (dd's way, one in flight)
#   ddn   dd of as many bytes of the image's data (never holes), 1 MiB
# and -y warm is preceded by -n on its fresh copy (its metadata cached).
# Its report is the scale section of BENCHMARKS.md (report.py --scale).
# Then bench-incremental.sh (issue 37: a clean run, churn through the
# kernel, incremental against --full, cold) writes its own section.
# Each timed command runs under /usr/bin/time for its max RSS and its
# file system inputs (bytes the kernel read from the device); raw rows go
# to $BENCH_DIR/results-TAG.tsv and report.py turns them into medians,
# ratios and targets in REPORT.md.
#
# Where an image's free space is larger than half the free disk under
# $BENCH_DIR, writing it out is impossible: eaf then runs with -m discard
# (holes punched in the copy) and ddwaf is not run; the report says so.
# BENCH_SKIP="zf eaf": tools (the row names above) not run this time;
# report.py can merge their rows from an earlier run's results.
# A command whose first run takes longer than $BENCH_SLOW_S seconds (60)
# is not repeated, and not run warm (its cold figure stands for both, and
# the report says n=1): the bench must fit in a maintenance-sized hour.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${BENCH_DIR:=/var/tmp/e2secrm-bench}"
: "${E2SECRM:=$top/e2secrm/e2secrm}"
: "${BENCH_SLOW_S:=60}"
repeat=${BENCH_REPEAT:-3}
report=
while getopts r:o: opt; do
	case $opt in
	r) repeat=$OPTARG ;;
	o) report=$OPTARG ;;
	*) exit 16 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- small many huge
if [ -z "$report" ]; then
	report=$here/BENCHMARKS.md
	[ "$*" = smoke ] && report=$BENCH_DIR/BENCHMARKS-smoke.md
fi
[ "$(id -u)" = 0 ] || { echo "bench: needs root (loop mounts, drop_caches)" >&2; exit 8; }
[ -x "$E2SECRM" ] || { echo "bench: no e2secrm at $E2SECRM (make first)" >&2; exit 8; }
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
case $BENCH_DIR/ in
"$top"/*) echo "bench: BENCH_DIR must be outside the source tree" >&2; exit 16 ;;
esac
export BENCH_DIR

tag=$(printf '%s' "$*" | tr ' ' '-')
tsv=$BENCH_DIR/results-$tag.tsv
facts=$BENCH_DIR/facts-$tag.tsv
work=$BENCH_DIR/work.$$
mkdir -p "$work"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
scale_only=
[ "$*" = scale ] && scale_only=1
if [ -n "$scale_only" ]; then
	: "${SCALE_DIR:=/var/tmp/e2secrm-scale}"
	repeat=${BENCH_REPEAT:-1}
	BENCH_SLOW_S=${BENCH_SCALE_SLOW_S:-1000000}
	BENCH_SKIP=${BENCH_SKIP-zf eaf}
	BENCH_DIR=$SCALE_DIR
	tsv=$BENCH_DIR/results-$tag.tsv
	facts=$BENCH_DIR/facts-$tag.tsv
	work=$BENCH_DIR/work.$$
	mkdir -p "$work"
fi
printf 'image\tcache\trep\ttool\tseconds\tuser\tsys\tmaxrss_kib\trc\tbytes\tnote\tin_kib\n' >"$tsv"
: >"$facts"

say() { echo "bench: $*"; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
fresh() { rm -f "$2"; cp --sparse=always "$1" "$2" && sync; }

# timed IMAGE CACHE REP TOOL BYTES NOTE CMD...: one row of the table.
# The command's stdout goes to $work/out, stderr to $work/err.
timed() {
	local im=$1 ca=$2 rep=$3 tool=$4 bytes=$5 note=$6 t0 t1 rc rss u s in own
	shift 6
	[ "$ca" = cold ] && drop
	t0=$EPOCHREALTIME
	/usr/bin/time -f '%M %U %S %I' -o "$work/time" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	t1=$EPOCHREALTIME
	read -r rss u s in <"$work/time" 2>/dev/null || rss=0 u=0 s=0 in=0
	case $rss in *[!0-9]*|'') read -r rss u s in < <(tail -1 "$work/time") ;; esac
	case $rss in *[!0-9]*|'') rss=0 u=0 s=0 in=0 ;; esac
	last_s=$(awk "BEGIN{printf \"%.4f\", $t1 - $t0}")
	# readset.py replay times itself: its python start (0.2 s cold)
	# is no part of reading the bytes.
	own=$(sed -n 's/^seconds=\([0-9.]*\)$/\1/p' "$work/out" 2>/dev/null)
	[ -n "$own" ] && last_s=$own
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$im" "$ca" "$rep" \
		"$tool" "$last_s" "$u" "$s" "$rss" "$rc" "$bytes" "$note" \
		"$(( ${in:-0} / 2 ))" >>"$tsv"
	printf '  %-5s %-4s #%s %8ss  rss %6s KiB  rc %s %s\n' "$tool" "$ca" \
		"$rep" "$last_s" "$rss" "$rc" "$note"
	return 0
}

# wiped_bytes JSON: bytes the run wiped, from its --json report.
wiped_bytes() {
	/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wiped"]["bytes"])' "$1" 2>/dev/null || echo 0
}

# set_bytes BYTES: fill in the bytes column of the last row.
set_bytes() {
	awk -v by="$1" 'BEGIN { FS = OFS = "\t" }
		{ if (NR > 1) print prev; prev = $0 }
		END { n = split(prev, f, "\t"); f[10] = by; s = f[1]
		      for (i = 2; i <= n; i++) s = s OFS f[i]; print s }' \
		"$tsv" >"$work/t" && cat "$work/t" >"$tsv"
}

# A command whose first (cold) run was slow is run only that once.
declare -A slow
want() {
	case " ${BENCH_SKIP:-} " in *" $1 "*) return 1 ;; esac
	[ "$ca" = cold ] && [ "$rep" = 1 ] && return 0
	[ -z "${slow[$1]:-}" ]
}
# room_for_copy: twice the image's allocated bytes (the copy, and what
# -y writes into its holes, at most as much again on the scale image:
# 12.5 GiB on 16 GiB) leave SCALE_MIN_FREE_GB (15) GiB free.
room_for_copy() {
	local need avail
	need=$(( $(du -k "$src" | cut -f1) * 2 ))
	avail=$(df -k --output=avail "$BENCH_DIR" | tail -1)
	[ $(( avail - need )) -ge $(( ${SCALE_MIN_FREE_GB:-15} * 1048576 )) ]
}
mark_slow() {
	awk "BEGIN{exit !($last_s > $BENCH_SLOW_S)}" && slow[$1]=1
	return 0
}

for im in "$@"; do
	say "image $im"
	cp_=$work/rw.img
	if [ "$im" = scale ]; then
		src=$(SCALE_DIR=$SCALE_DIR bash "$here/mkscale.sh" | tail -1)
		[ -f "$src" ] || exit 8
		meta=${src%.img}.meta
		ro=$src		# read-only runs: the cached image itself
	else
		bash "$here/mkimage.sh" "$im" || exit 8
		src=$BENCH_DIR/$im.img
		meta=$BENCH_DIR/$im.meta
		ro=$work/ro.img
		fresh "$src" "$ro"
	fi
	slow=()

	# Facts: geometry, journal extents, inode table bytes read.
	bsize=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Block size: *//p')
	ipg_blocks=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Inode blocks per group: *//p')
	groups=$(dumpe2fs "$src" 2>/dev/null | grep -c '^Group [0-9]')
	uninit=$(dumpe2fs "$src" 2>/dev/null | grep '^Group [0-9]' | grep -c INODE_UNINIT)
	freeb=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Free blocks: *//p')
	blocks=$(dumpe2fs -h "$src" 2>/dev/null | sed -n 's/^Block count: *//p')
	# Leaf extents only: "... PHYS_START - PHYS_END LEN", or "... PHYS 1".
	jext=$(debugfs -R 'ex -l <8>' "$src" 2>/dev/null |
		awk 'NR > 1 && $NF ~ /^[0-9]+$/ {
			print ($(NF-2) == "-" ? $(NF-3) : $(NF-1)), $NF }')
	jbytes=$(sed -n 's/^journal_bytes=//p' "$meta")
	itable_init=$(( (groups - uninit) * ipg_blocks * bsize ))
	itable_all=$(( groups * ipg_blocks * bsize ))
	avail=$(( $(df -k --output=avail "$BENCH_DIR" | tail -1) * 1024 ))
	freebytes=$(( freeb * bsize ))
	aflags=
	if [ "$freebytes" -gt $((avail / 2)) ] &&
	   case " ${BENCH_SKIP:-} " in *" eaf "*) false ;; *) true ;; esac; then
		aflags="-m discard"
		say "$im: $freebytes free bytes > half of $avail available: --all-free with -m discard, no dd write"
	fi
	{
		printf '%s\tblock_size\t%s\n' "$im" "$bsize"
		printf '%s\tblocks\t%s\n' "$im" "$blocks"
		printf '%s\tfree_blocks\t%s\n' "$im" "$freeb"
		printf '%s\tgroups\t%s\n' "$im" "$groups"
		printf '%s\tgroups_inode_uninit\t%s\n' "$im" "$uninit"
		printf '%s\titable_bytes_init\t%s\n' "$im" "$itable_init"
		printf '%s\titable_bytes_all\t%s\n' "$im" "$itable_all"
		printf '%s\tjournal_bytes\t%s\n' "$im" "$jbytes"
		printf '%s\tjournal_extents\t%s\n' "$im" "$(echo "$jext" | wc -l)"
		printf '%s\tallfree_flags\t%s\n' "$im" "${aflags:-none}"
		tr '\t' ' ' <"$meta" | sed "s/^\([^=]*\)=\(.*\)/$im\tmeta_\1\t\2/"
	} >>"$facts"

	# The scale image: the bytes e2secrm -n and e2fsck -fn read (strace),
	# then the dd floor for them: the same ranges, and as many bytes.
	ddn=$work/ddn.sh
	if [ "$im" = scale ]; then
		say "$im: tracing the reads of e2secrm -n and e2fsck -fn"
		for t in en fsck; do
			case $t in
			en) set -- "$E2SECRM" -n "$ro" ;;
			fsck) set -- e2fsck -fn "$ro" ;;
			esac
			/usr/bin/python3 "$here/readset.py" trace "$ro" \
				"$work/$t.ranges" -- "$@" | tr ' ' '\n' |
				sed "s/^\([^=]*\)=\(.*\)/$im\treadset_${t}_\1\t\2/" >>"$facts"
		done
		rbytes=$(sed -n "s/^$im\treadset_en_bytes_unique\t//p" "$facts")
		{ echo 'set -e'; /usr/bin/python3 "$here/readset.py" data "$ro" "$rbytes"; } >"$ddn"
		printf '%s\tddn_pieces\t%s\n' "$im" "$(($(wc -l <"$ddn") - 1))" >>"$facts"
	fi

	[ -n "$jext" ] || { echo "bench: $im: no journal extents" >&2; exit 8; }
	# The journal extents as one dd script, 1 MiB reads.
	ddj=$work/ddj.sh
	{
		echo 'set -e'
		echo "$jext" | while read -r start len; do
			[ -n "$start" ] || continue
			echo "dd if='$ro' of=/dev/null bs=1M iflag=skip_bytes,count_bytes skip=$((start * bsize)) count=$((len * bsize)) status=none"
		done
	} >"$ddj"

	for ca in cold warm; do
		if [ "$ca" = warm ]; then
			# Warm: the read-only copy's metadata and journal cached.
			"$E2SECRM" -n "$ro" >/dev/null 2>&1
			e2fsck -fn "$ro" >/dev/null 2>&1
			sh "$ddj"
			if [ "$im" = scale ]; then
				/usr/bin/python3 "$here/readset.py" replay "$ro" "$work/en.ranges" >/dev/null
				sh "$ddn"
			fi
		fi
		rep=1
		while [ "$rep" -le "$repeat" ]; do
			if want en; then
				timed "$im" "$ca" "$rep" en 0 "" "$E2SECRM" -n "$ro"
				mark_slow en
			fi
			if want jmap; then
				timed "$im" "$ca" "$rep" jmap 0 "" "$E2SECRM" -n --journal-map "$ro"
				mark_slow jmap
			fi
			if want fsck; then
				timed "$im" "$ca" "$rep" fsck 0 "" e2fsck -fn "$ro"
				mark_slow fsck
			fi
			if want ddj; then
				timed "$im" "$ca" "$rep" ddj "$jbytes" "" sh "$ddj"
				mark_slow ddj
			fi
			if [ "$im" = scale ]; then
				timed "$im" "$ca" "$rep" ddr "$rbytes" "" /usr/bin/python3 "$here/readset.py" replay "$ro" "$work/en.ranges"
				timed "$im" "$ca" "$rep" ddn "$rbytes" "" sh "$ddn"
			fi

			if want ey && [ "$im" = scale ] && ! room_for_copy; then
				say "$im: skipping -y: a copy of the image, grown by what -y writes, would leave under ${SCALE_MIN_FREE_GB:-15} GiB free"
			elif want ey; then
				fresh "$src" "$cp_"
				if [ "$im" = scale ] && [ "$ca" = warm ]; then
					"$E2SECRM" -n "$cp_" >/dev/null 2>&1
				fi
				timed "$im" "$ca" "$rep" ey 0 "" "$E2SECRM" -y --json "$work/ey.json" "$cp_"
				mark_slow ey
				by=$(wiped_bytes "$work/ey.json")
				set_bytes "$by"
				# The scale image's copy (tens of GiB) goes first.
				[ "$im" = scale ] && rm -f "$cp_"
				if [ "$by" -gt 0 ]; then
					rm -f "$work/ddw"
					timed "$im" "$ca" "$rep" ddwy "$by" "" dd if=/dev/zero of="$work/ddw" bs=1M iflag=count_bytes count="$by" conv=fsync status=none
					rm -f "$work/ddw"
				fi
			fi

			if want zf; then
				fresh "$src" "$cp_"
				timed "$im" "$ca" "$rep" zf 0 "" zerofree "$cp_"
				mark_slow zf
			fi

			if want eaf; then
				fresh "$src" "$cp_"
				# shellcheck disable=SC2086
				timed "$im" "$ca" "$rep" eaf 0 "$aflags" "$E2SECRM" -y --all-free $aflags --json "$work/eaf.json" "$cp_"
				mark_slow eaf
				by=$(wiped_bytes "$work/eaf.json")
				set_bytes "$by"
				if [ -z "$aflags" ] && [ "$by" -gt 0 ]; then
					rm -f "$work/ddw"
					timed "$im" "$ca" "$rep" ddwaf "$by" "" dd if=/dev/zero of="$work/ddw" bs=1M iflag=count_bytes count="$by" conv=fsync status=none
					rm -f "$work/ddw"
				fi
			fi
			rm -f "$cp_"
			rep=$((rep + 1))
		done
	done
	[ "$ro" = "$src" ] || rm -f "$ro"
	rm -f "$cp_"
done

if [ -n "$scale_only" ]; then
	/usr/bin/python3 "$here/report.py" --scale "$tsv" "$facts" "$here/BENCHMARKS.md" "$E2SECRM" || exit 8
	say "scale section written to $here/BENCHMARKS.md"
	# The incremental row (issue 37): its own work copy, churn and runs;
	# after the timed runs above, so its copies never share the disk with
	# theirs.  BENCH_SKIP="inc" leaves it out.
	case " ${BENCH_SKIP:-} " in
	*" inc "*) ;;
	*)
		rm -rf "$work"
		SCALE_DIR=$SCALE_DIR E2SECRM=$E2SECRM bash "$here/bench-incremental.sh" || exit 8
		;;
	esac
	exit 0
fi
/usr/bin/python3 "$here/report.py" "$tsv" "$facts" "$report" "$E2SECRM" || exit 8
say "report written to $report"
