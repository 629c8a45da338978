# t_fleet.sh --- what a fleet reads (issue 32): `--metrics FILE` after a
# wipe, a dry run, refusals and a cancellation parses with `promtool check
# metrics` and says what the run's --json report says, label values
# escaped, never through a symbolic link, no temporary file left;
# `e2secrm-maint --all` over loop-mounted file systems (one busy, one
# clean, one with residues, one not configured, and a stand-in for root)
# says each outcome on a line, exits with their bits OR'ed, writes a
# metrics file per file system and logs each outcome with its fields,
# through the journal where journald runs, else through
# `logger --journald` and the plain `logger` fallback (stubbed).
. "$(dirname "$0")/../lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
# The file systems --all goes over are mounted in $T: unmounted before
# $T goes.
umount_all() {
	for n in busy clean res other rootfs; do
		umount "$T/$n" 2>/dev/null
	done
}
trap 'umount_all; cleanup' EXIT
MSGID=e726d2a175824a2bb56a6bef0a3c2247

# promtool comes with Debian's prometheus (tests/install-deps.sh): a
# machine without it fails here rather than pass without the check.
if command -v promtool >/dev/null 2>&1; then
	have_promtool=1
else
	have_promtool=0
	fail "fleet: promtool" "not installed (tests/install-deps.sh installs prometheus)"
fi

# promcheck FILE: promtool accepts FILE (no lint problem either).
promcheck() {
	[ "$have_promtool" = 1 ] || return 1
	promtool check metrics <"$1" >"$T/promtool.out" 2>&1
}

# mval FILE NAME [LABEL=VALUE]: the value of NAME's sample (with that
# label), empty when there is none.
mval() {
	awk -v n="$2" -v l="${3:-}" '
		index($0, n "{") == 1 && (l == "" || index($0, l)) {
			print $NF; exit
		}' "$1"
}

# same_as_json PROM JSON: exit status, device, uuid and every count of
# "found" and "wiped" by kind agree; sets $why otherwise.
same_as_json() {
	why=
	[ "$(mval "$1" e2secrm_run_exit_status)" = \
	  "$(jq .exit_status "$2")" ] || why="$why exit_status;"
	uuid=$(jq -r '.filesystem.uuid // ""' "$2")
	grep -q "^e2secrm_run_exit_status{device=\"$(jq -r .device "$2")\",uuid=\"$uuid\"} " "$1" ||
		why="$why labels;"
	for part in found wiped; do
		for k in $(jq -r ".$part | keys[] | select(. != \"bytes\")" "$2"); do
			[ "$(mval "$1" "e2secrm_residues_${part}_total" \
				"kind=\"$k\"")" = "$(jq ".$part.$k" "$2")" ] ||
				why="$why $part.$k;"
		done
	done
	[ "$(mval "$1" e2secrm_written_bytes_total)" = \
	  "$(jq .wiped.bytes "$2")" ] || why="$why bytes;"
	lost=$(awk '/^e2secrm_maps_lost\{/ { n += $NF } END { print n + 0 }' "$1")
	[ "$lost" = "$(jq '.unrecoverable | length' "$2")" ] ||
		why="$why maps_lost $lost;"
	# The journal's coverage: the same times, or no sample when unknown.
	for end in oldest newest; do
		t=$(jq ".coverage.${end}_time // 0" "$2")
		m=$(mval "$1" "e2secrm_journal_${end}_transaction_timestamp_seconds")
		[ "$t" = 0 ] && [ -z "$m" ] && continue
		[ "$m" = "$t" ] || why="$why ${end}_time $m/$t;"
	done
}

# A deleted +s file on a debugfs-made image.
# residue_img IMG SIZE [MKE2FS-OPTIONS]
residue_img() {
	img=$1 size=$2
	shift 2
	mkimg "$img" "$size" -t ext4 "$@"
	printf 'write %s s.bin\nset_inode_field s.bin flags 0x80001\nrm s.bin\n' \
		"$T/secret" | dfs "$img"
}
canary "$T/secret" "FLEET-SECRET-$$" 60000

# --- --metrics: a dry run and a wipe, each beside its --json report ---
I=$T/m.img
residue_img "$I" 16M
for mode in -n -y; do
	name="fleet: --metrics after $mode"
	before=$(date +%s)
	run_e2secrm $mode --metrics "$T/m$mode.prom" --json "$T/m$mode.json" "$I"
	after=$(date +%s)
	if ! promcheck "$T/m$mode.prom"; then
		fail "$name: promtool check metrics" \
			"$(cat "$T/promtool.out" 2>/dev/null)"
		continue
	fi
	same_as_json "$T/m$mode.prom" "$T/m$mode.json"
	end=$(mval "$T/m$mode.prom" e2secrm_run_end_timestamp_seconds)
	dry=$(mval "$T/m$mode.prom" e2secrm_run_dry_run)
	[ "${end%.*}" -ge "$before" ] && [ "${end%.*}" -le "$after" ] ||
		why="$why end time $end;"
	[ "$mode" = -n ] && [ "$dry" != 1 ] && why="$why dry_run $dry;"
	[ "$mode" = -y ] && [ "$dry" != 0 ] && why="$why dry_run $dry;"
	if [ -z "$why" ] && [ "$(mval "$T/m$mode.prom" e2secrm_run_exit_status)" = "$rc" ]; then
		pass "$name: promtool accepts it, values as --json (exit $rc)"
	else
		fail "$name: values as --json" "rc=$rc:$why"
	fi
done
# The wipe wrote what the dry run found.
if [ "$(mval "$T/m-y.prom" e2secrm_residues_wiped_total 'kind="data_blocks"')" = \
     "$(mval "$T/m-n.prom" e2secrm_residues_found_total 'kind="data_blocks"')" ] &&
   [ "$(mval "$T/m-y.prom" e2secrm_written_bytes_total)" -gt 0 ]; then
	pass "fleet: --metrics: the wipe wiped what the dry run found"
else
	fail "fleet: --metrics: the wipe wiped what the dry run found" \
		"$(grep -e data_blocks -e bytes "$T/m-n.prom" "$T/m-y.prom")"
fi
left=$(find "$T" -maxdepth 1 -name '.m*.prom.*')
[ -z "$left" ] && pass "fleet: --metrics leaves no temporary file" ||
	fail "fleet: --metrics leaves no temporary file" "$left"

# --- refusals: not a filesystem; nobody to ask; a symbolic link ---
head -c 1M /dev/zero >"$T/zero.img"
run_e2secrm -n --metrics "$T/z.prom" --json "$T/z.json" "$T/zero.img"
same_as_json "$T/z.prom" "$T/z.json"
if [ "$rc" = 8 ] && promcheck "$T/z.prom" && [ -z "$why" ] &&
   grep -q "uuid=\"\"" "$T/z.prom"; then
	pass "fleet: --metrics after a refusal: exit 8, no uuid, as --json"
else
	fail "fleet: --metrics after a refusal" "rc=$rc:$why $(cat "$T/promtool.out" 2>/dev/null)"
fi
run_e2secrm --metrics "$T/t.prom" "$I" </dev/null
if [ "$rc" = 8 ] && promcheck "$T/t.prom" &&
   [ "$(mval "$T/t.prom" e2secrm_run_exit_status)" = 8 ]; then
	pass "fleet: --metrics after the refusal without a terminal (8)"
else
	fail "fleet: --metrics without a terminal" "rc=$rc $(cat "$T/t.prom" 2>&1)"
fi
echo precious >"$T/target"
ln -s "$T/target" "$T/link.prom"
residue_img "$T/l.img" 16M
before=$(sha "$T/l.img")
run_e2secrm -y --metrics "$T/link.prom" "$T/l.img"
if [ "$rc" = 8 ] && [ "$(cat "$T/target")" = precious ] &&
   [ -L "$T/link.prom" ] && [ "$(sha "$T/l.img")" = "$before" ] &&
   echo "$err" | grep -q 'symbolic link'; then
	pass "fleet: --metrics not written through a symbolic link (8, image untouched)"
else
	fail "fleet: --metrics through a symbolic link" "rc=$rc $err"
fi

# Label values escaped as the format says: a '"' and a '\' in the path.
odd="$T/we\"ird\\dev.img"
ln -s "$I" "$odd"
run_e2secrm -n --metrics "$T/o.prom" "$odd"
if promcheck "$T/o.prom" &&
   grep -qF "device=\"$T/we\\\"ird\\\\dev.img\"" "$T/o.prom"; then
	pass "fleet: --metrics escapes '\"' and '\\' in label values"
else
	fail "fleet: --metrics escapes label values" \
		"$(grep -m1 exit_status "$T/o.prom") $(cat "$T/promtool.out" 2>/dev/null)"
fi

# --- a cancelled wipe (as t_cancel.sh: SIGTERM in the middle) ---
mkimg "$T/c0.img" 200M -t ext4
canary "$T/big" "FLEET-BIG-$$" 4000000
i=0
while [ $i -lt 5 ]; do cat "$T/big" "$T/big" >"$T/big2"; mv "$T/big2" "$T/big"
	i=$((i + 1)); done		# 128 MB
printf 'write %s big\nset_inode_field big flags 0x80001\nrm big\n' "$T/big" |
	dfs "$T/c0.img"
rm -f "$T/big"
for delay in 0.3 0.1 0.5 0.2 0.05; do
	cp "$T/c0.img" "$T/c.img"
	rm -f "$T/c.prom" "$T/c.json"
	"$E2SECRM" -y -m random --metrics "$T/c.prom" --json "$T/c.json" \
		"$T/c.img" >/dev/null 2>&1 &
	pid=$!
	sleep $delay
	kill -TERM $pid 2>/dev/null
	wait $pid
	rc=$?
	[ "$rc" != 1 ] && [ "$rc" -lt 128 ] && break
done
if [ $((rc & 32)) = 32 ] && promcheck "$T/c.prom" &&
   same_as_json "$T/c.prom" "$T/c.json" && [ -z "$why" ]; then
	pass "fleet: --metrics after a cancelled wipe (exit $rc), as --json"
else
	fail "fleet: --metrics after a cancelled wipe" "rc=$rc:$why"
fi
rm -f "$T/c0.img" "$T/c.img"

# The journal's coverage from a kernel-written journal: its oldest and
# newest commit times, as --json gives them.
if why=$(can_loop_mount); then
	K=$T/k.img
	mkimg "$K" 32M -t ext4
	kmount "$K"
	for i in 1 2 3; do
		head -c 20000 /dev/urandom >"$T/mnt/f$i"
		chattr +s "$T/mnt/f$i"
		sync
	done
	rm "$T/mnt/f2"
	sync
	kumount
	run_e2secrm -n --metrics "$T/k.prom" --json "$T/k.json" "$K"
	same_as_json "$T/k.prom" "$T/k.json"
	if promcheck "$T/k.prom" && [ -z "$why" ] &&
	   [ -n "$(mval "$T/k.prom" e2secrm_journal_newest_transaction_timestamp_seconds)" ]; then
		pass "fleet: --metrics gives the journal's oldest and newest commit times, as --json (exit $rc)"
	else
		fail "fleet: --metrics journal coverage" "rc=$rc:$why $(grep journal "$T/k.prom")"
	fi
	rm -f "$K"
else
	skip "fleet: --metrics journal coverage of a kernel-made image" "$why"
fi

# --- e2secrm-maint --all, installed as make install puts it ---
D=$T/root
if ! make -s -C "$top" install DESTDIR="$D" prefix=/usr >/dev/null 2>&1; then
	fail "fleet: make install" "failed"
	exit 0
fi
M=$D/usr/sbin/e2secrm-maint
if ! why=$(can_loop_mount); then
	skip "fleet: e2secrm-maint --all over loop mounts" "$why"
	exit 0
fi

# A stand-in for logger: its arguments and, with --journald, the entry.
mkdir -p "$T/stub"
cat >"$T/stub/logger" <<'EOT'
#!/bin/sh
{
	echo "ARGS $*"
	case " $* " in *" --journald "*) cat ;; esac
	echo END
} >>"$STUB_LOG"
EOT
chmod 755 "$T/stub/logger"

# Five file systems: busy, clean, with residues (named by UUID and by
# LABEL), one with residues not named, and one standing in for root.
residue_img "$T/busy.img" 16M
mkimg "$T/clean.img" 16M -t ext4
residue_img "$T/res.img" 16M -L fleetres$$
residue_img "$T/other.img" 16M
mkimg "$T/rootfs.img" 16M -t ext4
uuid_of() { blkid -p -s UUID -o value "$1"; }
u_busy=$(uuid_of "$T/busy.img")
u_clean=$(uuid_of "$T/clean.img")
u_res=$(uuid_of "$T/res.img")
for n in busy clean res other rootfs; do
	mkdir -p "$T/$n"
	mount -o loop "$T/$n.img" "$T/$n" || fail "fleet: mount $n" "failed"
done
mkdir -p "$T/prom"
cat >"$T/e2secrm.conf" <<EOT
E2SECRM_OPTS=""
E2SECRM_ALL="$T/busy UUID=$u_clean LABEL=fleetres$$ $T/rootfs"
E2SECRM_ALL_ROOT=next-boot
E2SECRM_METRICS_DIR=$T/prom
EOT
# The journald entry as logger --journald is given it: a socket is
# there (any socket: the stub reads what would go into it).
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$T/jsock"
(cd "$T/busy" && sleep 30) &
busy=$!
sleep 0.5
: >"$T/stub.log"
PATH="$T/stub:$PATH" STUB_LOG=$T/stub.log E2SECRM_MAINT_LOG=1 \
	E2SECRM_JOURNAL_SOCKET=$T/jsock E2SECRM_ROOT=$T/rootfs \
	E2SECRM=$E2SECRM E2SECRM_CONF=$T/e2secrm.conf \
	sh "$M" --all >"$T/all.out" 2>"$T/all.err"
rc=$?
kill $busy 2>/dev/null
wait $busy 2>/dev/null

line() { grep -q "^e2secrm-maint: $1 .*: $2 (exit $3)\$" "$T/all.out"; }
name="fleet: --all: one line per file system, bits OR'ed"
if [ "$rc" = 9 ] && line "$T/busy" "busy: left mounted, nothing done" 8 &&
   line "$T/clean" "nothing found" 0 && line "$T/res" "wiped" 1 &&
   line "$T/rootfs" "next-boot request left" 0 &&
   ! grep -q "$T/other" "$T/all.out" &&
   [ "$(grep -c '^e2secrm-maint: ' "$T/all.out")" = 4 ]; then
	pass "$name (busy 8, clean 0, residues 1, root's request 0: exit $rc)"
else
	fail "$name" "rc=$rc $(cat "$T/all.out" "$T/all.err")"
fi
ok=1
for n in busy clean res other rootfs; do
	findmnt -n --mountpoint "$T/$n" >/dev/null || ok=0
done
[ -f "$T/rootfs/e2secrm-next-boot" ] || ok=0
[ "$ok" = 1 ] &&
	pass "fleet: --all leaves every file system mounted, root's request left" ||
	fail "fleet: --all leaves every file system mounted" "$(findmnt -l | grep "$T")"

# One metrics file per file system, from its UUID; the busy one says 8.
ok=1 why=
for u in "$u_busy:8" "$u_clean:0" "$u_res:1"; do
	f=$T/prom/e2secrm-${u%:*}.prom
	if ! promcheck "$f"; then
		ok=0 why="$why ${u%:*}: $(cat "$T/promtool.out" "$f" 2>&1 | head -3);"
		continue
	fi
	[ "$(mval "$f" e2secrm_run_exit_status)" = "${u#*:}" ] ||
		ok=0 why="$why ${u%:*}: exit $(mval "$f" e2secrm_run_exit_status);"
done
n=$(find "$T/prom" -type f | wc -l)
[ "$n" = 3 ] || ok=0 why="$why $n files: $(ls -a "$T/prom")"
[ "$ok" = 1 ] &&
	pass "fleet: --all writes a metrics file per file system (promtool, exit status)" ||
	fail "fleet: --all metrics files" "$why"

# The journal entry of each outcome, with its fields.
entry() { awk -v u="UUID=$1" '
	/^ARGS / { e = ""; j = ($0 ~ /--journald/) }
	{ e = e $0 "\n" }
	/^END$/ && j && index(e, u "\n") { printf "%s", e }' "$T/stub.log"; }
res_entry=$(entry "$u_res")
busy_entry=$(entry "$u_busy")
wiped=$(mval "$T/prom/e2secrm-$u_res.prom" e2secrm_residues_wiped_total 'kind="data_blocks"')
if echo "$res_entry" | grep -qx "MESSAGE_ID=$MSGID" &&
   echo "$res_entry" | grep -qx "DEVICE=$T/res.img" &&
   echo "$res_entry" | grep -qx "EXIT_STATUS=1" &&
   echo "$res_entry" | grep -qx "PRIORITY=6" &&
   echo "$res_entry" | grep -Eqx "RESIDUES_WIPED=[1-9][0-9]*" &&
   [ "${wiped:-0}" -gt 0 ] &&
   echo "$busy_entry" | grep -qx "EXIT_STATUS=8" &&
   echo "$busy_entry" | grep -qx "PRIORITY=3" &&
   [ "$(grep -c "^MESSAGE_ID=$MSGID\$" "$T/stub.log")" = 4 ]; then
	pass "fleet: --all logs each outcome with MESSAGE_ID, DEVICE, UUID, EXIT_STATUS, counts (logger --journald)"
else
	fail "fleet: --all logs each outcome with fields" "$(cat "$T/stub.log")"
fi

# No journal socket: one syslog line each, the fields in its text.
(cd "$T/busy" && sleep 30) &
busy=$!
sleep 0.5
: >"$T/stub.log"
PATH="$T/stub:$PATH" STUB_LOG=$T/stub.log E2SECRM_MAINT_LOG=1 \
	E2SECRM_JOURNAL_SOCKET=$T/no-such-socket E2SECRM_ROOT=$T/rootfs \
	E2SECRM=$E2SECRM E2SECRM_CONF=$T/e2secrm.conf \
	sh "$M" --all >"$T/all.out" 2>"$T/all.err"
rc=$?
kill $busy 2>/dev/null
wait $busy 2>/dev/null
if [ "$rc" = 8 ] && ! grep -q -- --journald "$T/stub.log" &&
   grep -q "^ARGS -t e2secrm-maint -p daemon.err -- $T/busy ($T/busy.img): busy: .*(exit 8); MESSAGE_ID=$MSGID DEVICE=$T/busy.img UUID=$u_busy EXIT_STATUS=8 " "$T/stub.log" &&
   grep -q "^ARGS -t e2secrm-maint -p daemon.info -- .*UUID=$u_res EXIT_STATUS=0 RESIDUES_FOUND=0 " "$T/stub.log"; then
	pass "fleet: without a journal, each outcome is a logger line with its fields (exit $rc)"
else
	fail "fleet: logger fallback" "rc=$rc $(cat "$T/stub.log" "$T/all.out")"
fi

# The real journal, where journald runs.
if [ -S /run/systemd/journal/socket ] && command -v journalctl >/dev/null &&
   journalctl -n 0 >/dev/null 2>&1; then
	since=$(date '+%Y-%m-%d %H:%M:%S')
	(cd "$T/busy" && sleep 30) &
	busy=$!
	sleep 0.5
	E2SECRM_MAINT_LOG=1 E2SECRM_ROOT=$T/rootfs E2SECRM=$E2SECRM \
		E2SECRM_CONF=$T/e2secrm.conf sh "$M" --all >/dev/null 2>&1
	kill $busy 2>/dev/null
	wait $busy 2>/dev/null
	sleep 1
	got=$(journalctl -o json --since "$since" MESSAGE_ID=$MSGID \
		"UUID=$u_res" 2>/dev/null | jq -r '.EXIT_STATUS + " " + .DEVICE' |
		tail -n 1)
	[ "$got" = "0 $T/res.img" ] &&
		pass "fleet: the journal has the entry (journalctl MESSAGE_ID=...)" ||
		fail "fleet: the journal has the entry" "got '$got'"
else
	skip "fleet: the entry through journald itself" "no journald on this machine (the logger stubs above stand in)"
fi
umount_all
[ "$(count "FLEET-SECRET-$$" "$T/res.img")" = 0 ] &&
   [ "$(count "FLEET-SECRET-$$" "$T/other.img")" != 0 ] &&
   [ "$(count "FLEET-SECRET-$$" "$T/busy.img")" != 0 ] &&
	pass "fleet: --all wiped the named file system, not the others" ||
	fail "fleet: --all wiped the named file system, not the others" \
		"res $(count "FLEET-SECRET-$$" "$T/res.img") other $(count "FLEET-SECRET-$$" "$T/other.img")"

# Nothing named: nothing done, exit 0.
printf 'E2SECRM_ALL=""\n' >"$T/none.conf"
out=$(E2SECRM=$E2SECRM E2SECRM_CONF=$T/none.conf sh "$M" --all 2>&1)
rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q 'names no file system' &&
	pass "fleet: --all with nothing configured does nothing (0)" ||
	fail "fleet: --all with nothing configured" "rc=$rc $out"
