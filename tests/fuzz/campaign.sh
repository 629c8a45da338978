#!/bin/sh
# campaign.sh --- a fuzz campaign over the whole-image targets whose corpus
# outlives the session.
#
# Owns make fuzz-long.  Each target fuzzes for $FUZZ_LONG_TIME seconds in
# a work corpus kept outside the tree ($FUZZ_WORK/<target>/corpus), seeded
# from tests/fuzz/corpus/<target>/ (again each campaign, without
# overwriting, so that a seed added to the tree is fuzzed too), after the
# saved reproducers (tests/fuzz/crashes/<target>-*) are replayed.  Then
# the work corpus is merged (-merge=1) into a fresh minimised directory
# that starts from the tree's named seeds (the make-corpus.sh images and
# the regress-* reproducers, which the README cites); when it covers more
# edges than the tree's corpus, both measured by one pass over them
# (-runs=0), it replaces tests/fuzz/corpus/<target>/ for the user to
# commit.  Every campaign adds to a record per target in the work
# directory (campaigns, seconds, executions, last edges) and a row per
# target to the Campaigns table of tests/fuzz/README.md.
#
# Any crash, leak, timeout, out-of-memory or libext2fs warning
# (fuzz_warn.c aborts on one) fails the campaign; its input stays in
# $FUZZ_WORK/<target>/artifacts/.  Nothing is committed.
#
# Targets run FUZZ_JOBS at a time (one libFuzzer process each, in lanes
# that take the targets in turn), so that a campaign can use the
# machine's cores; each target's work directory is locked for its run
# (a target another campaign holds is skipped, with a message), and the
# README's table is written under a lock of its own.
#
# usage: campaign.sh SRCDIR BINARY...
#	FUZZ_LONG_TIME	seconds per target (1800)
#	FUZZ_WORK	work directory (/var/tmp/e2secrm-fuzz)
#	FUZZ_JOBS	targets fuzzed at once (1)
#
# Copyright (C) 2026 The e2secrm authors.
# This file may be redistributed under the terms of the GNU General Public
# License, version 2.
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SRCDIR BINARY..." >&2
	exit 2
fi
src=$1
shift
secs=${FUZZ_LONG_TIME:-1800}
root=${FUZZ_WORK:-/var/tmp/e2secrm-fuzz}
fuzz=$src/tests/fuzz
readme=$fuzz/README.md
goal=10000000
# As run-fuzz.sh: about 128 chunks of a 2 MiB image.
max_len=131072

jobs=${FUZZ_JOBS:-1}

case $secs in
''|*[!0-9]*)	echo "campaign: FUZZ_LONG_TIME must be seconds" >&2
		exit 2 ;;
esac
case $jobs in
''|0|*[!0-9]*)	echo "campaign: FUZZ_JOBS must be a count of targets" >&2
		exit 2 ;;
esac
mkdir -p "$root" || exit 1
failed=$root/.failed.$$
rm -f "$failed"

# Computed once: the README and the corpora change under the campaign.
tree=$(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)
status=0

# The edges (libFuzzer's cov:) that one pass over directory $2 covers.
# The pass runs over a copy: libFuzzer must not write into the tree.
measure_edges() {
	rm -rf "$work/measure"
	mkdir -p "$work/measure" || return 1
	cp "$2"/* "$work/measure/" 2>/dev/null
	"$1" -runs=0 -max_len=$max_len -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$work/artifacts/" \
		"$work/measure" >"$work/measure.log" 2>&1
	grep -oE 'cov: [0-9]+' "$work/measure.log" | tail -1 | cut -d' ' -f2
	rm -rf "$work/measure"
}

# Value @2 of record file @1, 0 when none.
rec_get() {
	v=$(sed -n "s/^$2 //p" "$1" 2>/dev/null | tail -1)
	echo "${v:-0}"
}

# Cumulative executions of target @1 in the README's last row for it, 0
# when none: where a campaign on a new machine (no work record) starts
# from, since the tree's corpus carries the earlier campaigns' work.
readme_total() {
	awk -F'|' -v t="$1" '$4 ~ "^ *" t " *$" { n = $9 }
		END { gsub(/ /, "", n); print (n ~ /^[0-9]+$/) ? n : 0 }' \
		"$readme" 2>/dev/null || echo 0
}

# Appends table row @1 to the Campaigns table of the README, making the
# section at the end of the file if it is not there yet; one lane at a
# time.
readme_row() {
	(
		flock 8
		readme_row_locked "$1"
	) 8>"$root/.readme.lock"
}

readme_row_locked() {
	if ! grep -q '^## Campaigns$' "$readme"; then
		cat >>"$readme" <<'EOF'

## Campaigns

`make fuzz-long` rows, one per target and campaign (`campaign.sh`).
Executions are this campaign's; the cumulative count is the work
corpus's, across campaigns, towards the goal of 10^7 per target.

| date (UTC) | tree | target | seconds | executions | exec/s | edges | cumulative executions | findings |
|---|---|---|---|---|---|---|---|---|
EOF
	fi
	# After the last table line of the section.
	awk -v row="$1" '
		{ line[NR] = $0 }
		/^## Campaigns$/ { in_sec = 1; next }
		in_sec && /^## / { in_sec = 0 }
		in_sec && /^\|/ { last = NR }
		END {
			for (i = 1; i <= NR; i++) {
				print line[i]
				if (i == last)
					print row
			}
		}' "$readme" >"$readme.tmp" && mv "$readme.tmp" "$readme"
}

# One target's campaign, in the work directory it holds the lock of.
campaign_target() {
	bin=$1
	name=$(basename "$bin")
	work=$root/$name
	mkdir -p "$work" || return 1
	(
		# Two campaigns on one work corpus would race on its files
		# and record.
		if ! flock -n 9; then
			echo "$name: another campaign holds $work/.lock:" \
				"skipped" >&2
			exit 0
		fi
		campaign_locked "$bin"
	) 9>"$work/.lock"
}

campaign_locked() {
	bin=$1
	name=$(basename "$bin")
	work=$root/$name
	corpus=$work/corpus
	seeds=$fuzz/corpus/$name
	findings=
	mkdir -p "$corpus" "$work/artifacts" || return 1
	[ -d "$seeds" ] && cp -n "$seeds"/* "$corpus/"

	for f in "$fuzz/crashes/$name"-*; do
		[ -f "$f" ] || continue
		echo "$name: replaying $f"
		if ! "$bin" "$f" >"$work/replay.log" 2>&1; then
			tail -n 30 "$work/replay.log"
			echo "$name: FAILED: saved reproducer $f still fails"
			findings="$findings ${f##*/}"
		fi
	done

	# Inputs this campaign leaves are newer than this file.
	touch "$work/start"
	echo "$name: fuzzing for $secs seconds in $corpus"
	t0=$(date +%s)
	"$bin" -max_total_time="$secs" -max_len=$max_len -timeout=10 \
		-dict="$fuzz/jbd2.dict" -print_final_stats=1 \
		-artifact_prefix="$work/artifacts/" \
		"$corpus" >"$work/fuzz.log" 2>&1
	rc=$?
	# What it ran, not what it was given: a finding stops it early.
	ran=$(( $(date +%s) - t0 ))
	[ "$ran" -le "$secs" ] || ran=$secs
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$work/fuzz.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log")
	edges=$(grep -oE 'cov: [0-9]+' "$work/fuzz.log" | tail -1 |
		cut -d' ' -f2)
	if [ $rc != 0 ]; then
		tail -n 60 "$work/fuzz.log"
		echo "$name: FAILED (libFuzzer exit $rc); inputs in" \
			"$work/artifacts/"
		findings="$findings libFuzzer-exit-$rc"
	fi
	grep -E '^#[0-9]+[[:space:]]+DONE' "$work/fuzz.log" | tail -1

	# The minimised corpus: the tree's named seeds, then whatever of
	# the work corpus adds features to them.  libFuzzer names what it
	# keeps by its sha1; those are left to the merge.
	rm -rf "$work/min.new"
	mkdir -p "$work/min.new" || return 1
	for f in "$seeds"/*; do
		[ -f "$f" ] || continue
		echo "${f##*/}" | grep -qE '^[0-9a-f]{40}$' && continue
		cp "$f" "$work/min.new/"
	done
	"$bin" -merge=1 -max_len=$max_len -timeout=10 \
		-artifact_prefix="$work/artifacts/" \
		"$work/min.new" "$corpus" >"$work/merge.log" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		tail -n 30 "$work/merge.log"
		echo "$name: the merge exited $rc"
		findings="$findings merge-exit-$rc"
		min_edges=
		tree_edges=
	else
		rm -rf "$work/min"
		mv "$work/min.new" "$work/min"
		min_edges=$(measure_edges "$bin" "$work/min")
		tree_edges=$(measure_edges "$bin" "$seeds")
		echo "$name: merged corpus $(ls "$work/min" | wc -l) inputs," \
			"$(du -sh "$work/min" | cut -f1)," \
			"${min_edges:-?} edges; the tree's" \
			"$(ls "$seeds" | wc -l) inputs, ${tree_edges:-?}"
	fi

	# A unit libFuzzer reported slow is run again alone: on a machine
	# starved by other work a unit of milliseconds can take seconds.
	# Slow alone too (a second or more), it is a finding; else it is
	# set aside, and said so.
	for f in $(find "$work/artifacts" -type f -name 'slow-unit-*' \
		   -newer "$work/start"); do
		ms=$("$bin" -timeout=10 "$f" 2>&1 |
		     sed -n 's/^Executed .* in \([0-9]*\) ms$/\1/p' | tail -1)
		if [ -n "$ms" ] && [ "$ms" -lt 1000 ]; then
			mkdir -p "$work/slow-under-load"
			mv "$f" "$work/slow-under-load/"
			echo "$name: ${f##*/} took $ms ms alone: slow only" \
				"under load, not a finding"
		fi
	done

	# What crashed, in the run, the merge or the measures (an input
	# the run kept that crashes later is a finding too).
	findings="$findings $(find "$work/artifacts" -type f \
		-newer "$work/start" -exec basename {} \; | tr '\n' ' ')"
	# The blanks squeezed: split on purpose.
	# shellcheck disable=SC2086,SC2116
	findings=$(echo $findings)
	if [ -n "$findings" ]; then
		echo "$name: FAILED: $findings"
		echo "$name" >>"$failed"
	elif [ -n "$min_edges" ] && [ -n "$tree_edges" ] &&
	     [ "$min_edges" -gt "$tree_edges" ]; then
		# Only from a clean campaign: the corpus goes into CI.
		# Copied whole before the old one goes: a full disk must not
		# leave the tree without its corpus.
		rm -rf "$seeds.new"
		if ! cp -r "$work/min" "$seeds.new"; then
			rm -rf "$seeds.new"
			return 1
		fi
		rm -rf "$seeds" && mv "$seeds.new" "$seeds" || return 1
		echo "$name: corpus grew: commit tests/fuzz/corpus/$name"
	fi

	# The record, and the README row.
	rec=$work/record
	[ -f "$rec" ] || echo "executions $(readme_total "$name")" >"$rec"
	total=$(( $(rec_get "$rec" executions) + ${execs:-0} ))
	{
		echo "campaigns $(( $(rec_get "$rec" campaigns) + 1 ))"
		echo "seconds $(( $(rec_get "$rec" seconds) + ran ))"
		echo "executions $total"
		echo "edges ${edges:-?}"
		echo "corpus_edges ${min_edges:-?}"
		echo "last $(date -u '+%Y-%m-%d %H:%M') $tree"
	} >"$rec.new" && mv "$rec.new" "$rec"
	echo "$name: $total executions across campaigns (goal $goal)"
	readme_row "| $(date -u '+%Y-%m-%d %H:%M') | $tree | $name | $ran |\
 ${execs:-?} | ${rate:-?} | ${edges:-?} | $total | ${findings:-none} |"
}

# The lanes: lane k takes targets k, k + jobs, ...; each runs its
# targets one after the other.
lane=0
while [ $lane -lt "$jobs" ]; do
	(
		i=0
		for bin in "$@"; do
			if [ $((i % jobs)) = $lane ]; then
				campaign_target "$bin" ||
					echo "$(basename "$bin")" >>"$failed"
			fi
			i=$((i + 1))
		done
	) &
	lane=$((lane + 1))
done
wait
if [ -s "$failed" ]; then
	echo "campaign: failed: $(tr '\n' ' ' <"$failed")"
	status=1
fi
rm -f "$failed"
exit $status
