# t_cancel.sh --- SIGINT and SIGTERM during a wipe stop at a safe point:
# exit 32 (with 4, and 1 if something was written), a report of what was
# done, a clean filesystem, and a re-run that finishes the job.
. "$(dirname "$0")/../lib.sh"

mkimg "$T/base.img" 400M -t ext4
canary "$T/big" "CANCEL-SECRET-$$" 4000000
i=0
while [ $i -lt 6 ]; do cat "$T/big" "$T/big" >"$T/big2"; mv "$T/big2" "$T/big"
	i=$((i + 1)); done		# 256 MB
dfs "$T/base.img" <<EOT
write $T/big big
set_inode_field big flags 0x80001
rm big
EOT
rm -f "$T/big"

cancel_case() {
	sig=$1
	# Too late: the run finished (1); too early: the signal came before
	# the handler was set, on a loaded machine (128 + signal).  Retry.
	for delay in 0.3 0.1 0.03 0.5 0.2; do
		cp "$T/base.img" "$T/c.img"
		"$E2SECRM" -y -m random "$T/c.img" >"$T/out" 2>&1 &
		pid=$!
		sleep $delay
		kill -"$sig" $pid 2>/dev/null
		wait $pid
		rc=$?
		[ "$rc" != 1 ] && [ "$rc" -lt 128 ] && break
	done
	if [ $((rc & 32)) = 32 ] && [ $((rc & 8)) = 0 ] &&
	   grep -q 'cancelled' "$T/out"; then
		pass "cancel: SIG$sig stops at a safe point (exit $rc)"
	else
		fail "cancel: SIG$sig" "exit $rc: $(tail -2 "$T/out")"
	fi
	e2fsck -fn "$T/c.img" >/dev/null 2>&1 &&
		pass "cancel: SIG$sig leaves e2fsck -fn clean" ||
		fail "cancel: SIG$sig leaves e2fsck -fn clean" "e2fsck failed"
	run_e2secrm -y "$T/c.img"
	n=$(count "CANCEL-SECRET" "$T/c.img")
	if [ "$rc" = 1 ] && [ "$n" = 0 ]; then
		pass "cancel: SIG$sig re-run finishes the job"
	else
		fail "cancel: SIG$sig re-run finishes the job" "rc=$rc left=$n"
	fi
}

cancel_case INT
cancel_case TERM
