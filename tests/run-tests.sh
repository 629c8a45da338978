#!/bin/sh
# run-tests.sh --- the whole suite: cmocka unit tests, then every
# tests/scripts/t_*.sh.  Prints one line per check and a closing
# "N passed, N failed, N skipped"; exits non-zero when anything failed.
# A skipped check is never counted as passed.

here=$(cd "$(dirname "$0")" && pwd)
: "${E2SECRM:?E2SECRM must name the e2secrm binary}"
RESULTS=$(mktemp "${TMPDIR:-/tmp}/e2secrm-results.XXXXXX") || exit 1
# Every run of the suite that takes the log from the last run's ring
# facts walks it whole as well and stops on a difference (exit 8):
# lib/find/ring_since.c checked wherever the scenarios use it.
E2SECRM_RING_CHECK=1
export E2SECRM RESULTS E2SECRM_RING_CHECK

for t in $UNIT_TESTS; do
	echo "== unit: $t"
	out=$("./$t" 2>&1)
	status=$?
	echo "$out"
	npass=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	nfail=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	if [ "$status" -ne 0 ] && [ "${nfail:-0}" -eq 0 ] ||
	   [ -z "$npass$nfail" ]; then
		echo "FAIL $t: exit status $status" >>"$RESULTS"
		continue
	fi
	i=0
	while [ "$i" -lt "${npass:-0}" ]; do
		echo "PASS $t#$i" >>"$RESULTS"
		i=$((i + 1))
	done
	i=0
	while [ "$i" -lt "${nfail:-0}" ]; do
		echo "FAIL $t#$i" >>"$RESULTS"
		i=$((i + 1))
	done
done

for s in "$here"/scripts/t_*.sh; do
	echo "== $(basename "$s")"
	before=$(wc -l <"$RESULTS")
	sh "$s"
	status=$?
	after=$(wc -l <"$RESULTS")
	if [ "$status" -ne 0 ] || [ "$after" -eq "$before" ]; then
		echo "FAIL $(basename "$s"): script exit $status" >>"$RESULTS"
	fi
done

passed=$(grep -c '^PASS' "$RESULTS")
failed=$(grep -c '^FAIL' "$RESULTS")
skipped=$(grep -c '^SKIP' "$RESULTS")
if [ "$failed" -ne 0 ] || [ "$skipped" -ne 0 ]; then
	echo
	grep -E '^(FAIL|SKIP)' "$RESULTS"
fi
rm -f "$RESULTS"
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
