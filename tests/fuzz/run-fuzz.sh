#!/bin/sh
# run-fuzz.sh --- run one libFuzzer target for a while, outside the tree.
#
# Owns how make fuzz and make fuzz-smoke run a target: the seed corpus is
# copied into a fresh work directory under the build directory, so
# libFuzzer never writes into tests/fuzz/corpus/; crash, leak and timeout
# inputs land in that work directory too.  Saved reproducers
# (tests/fuzz/crashes/TARGET-*) are replayed first.  Exits non-zero when
# any input crashed, leaked, timed out or ran out of memory.
#
# usage: run-fuzz.sh BINARY SRCDIR WORKDIR SECONDS
#
# Copyright (C) 2026 The e2secrm authors.
# This file may be redistributed under the terms of the GNU General Public
# License, version 2.
set -u

bin=$1 src=$2 work=$3 secs=$4
name=$(basename "$bin")
case $name in
fuzz_jsb)	max_len=5120 ;;	# superblock, then one 4k block
fuzz_journal)	max_len=16384 ;; # the first 16 blocks of a 1k journal
fuzz_image|fuzz_histmap|fuzz_dirent|fuzz_fcreplay|fuzz_livemap)
		max_len=131072 ;; # about 128 chunks of a 2 MiB image
*)		max_len=4120 ;;	# header, then one 4k block
esac

rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts" || exit 1
cp "$src/corpus/$name"/* "$work/corpus/" || exit 1

status=0
for f in "$src/crashes/$name"-*; do
	[ -f "$f" ] || continue
	echo "$name: replaying $f"
	"$bin" "$f" >"$work/replay.log" 2>&1 || {
		cat "$work/replay.log"
		echo "$name: FAILED: saved reproducer $f still fails"
		status=1
	}
done

echo "$name: fuzzing for $secs seconds in $work"
"$bin" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
	-dict="$src/jbd2.dict" -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" \
	"$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
# The last coverage line and libFuzzer's final stats.
grep -E '^#[0-9]+[[:space:]]+DONE' "$work/fuzz.log" | tail -1
grep -E '^stat::' "$work/fuzz.log"
if [ $rc != 0 ]; then
	tail -n 60 "$work/fuzz.log"
	echo "$name: FAILED (libFuzzer exit $rc); inputs in $work/artifacts/"
	ls -l "$work/artifacts/"
	status=1
fi
exit $status
