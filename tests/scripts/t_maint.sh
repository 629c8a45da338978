# t_maint.sh --- the maintenance-window pieces: `make install` puts the
# helper, the units (e2secrm_all.service and its timer too), the timers,
# the cron example and the boot-time pieces in place with the install
# paths; systemd-analyze verify accepts the units; the maintenance window
# fails on residue left (4, 5) and sets off
# e2secrm-fail@, which logs and mails only once a recipient is set, while
# the boot-time gate of a mount goes on and logs a warning; e2secrm-maint
# unmounts, wipes and mounts again with the options
# of /etc/e2secrm.conf (its metrics in E2SECRM_METRICS_DIR), refuses a
# busy filesystem, and --next-boot leaves the one-shot flag.  (--all:
# t_fleet.sh.)  (The boot itself: tests/boot/check-boot.sh.)
. "$(dirname "$0")/../lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
D=$T/root
if ! make -s -C "$top" install DESTDIR="$D" prefix=/usr >/dev/null 2>&1; then
	fail "maint: make install" "failed"
	exit 0
fi
U=$D/usr/lib/systemd/system
ok=1
for f in "$D/usr/sbin/e2secrm-maint" "$U/e2secrm@.service" \
	 "$U/e2secrm-maint@.service" "$U/e2secrm-maint@.timer" \
	 "$U/e2secrm-fail@.service" "$D/usr/lib/e2secrm/e2secrm-fail" \
	 "$U/e2secrm_all.service" "$U/e2secrm_all.timer" \
	 "$D/usr/share/doc/e2secrm/e2secrm.cron" "$D/etc/e2secrm.conf" \
	 "$D/usr/lib/e2secrm/e2secrm-boot.sh" \
	 "$D/usr/share/initramfs-tools/hooks/e2secrm" \
	 "$D/usr/share/initramfs-tools/scripts/local-premount/e2secrm" \
	 "$D/usr/lib/dracut/modules.d/90e2secrm/module-setup.sh" \
	 "$D/usr/lib/dracut/modules.d/90e2secrm/e2secrm-pre-mount.sh"; do
	[ -f "$f" ] || ok=0
done
[ "$ok" = 1 ] && ! grep -q '%[A-Z]*DIR%' "$U"/*.service "$D/usr/sbin/e2secrm-maint" \
	"$D/usr/share/initramfs-tools/hooks/e2secrm" \
	"$D/usr/lib/dracut/modules.d/90e2secrm/module-setup.sh" &&
	grep -q '^ExecStart=/usr/sbin/e2secrm -y $E2SECRM_OPTS %f' "$U/e2secrm@.service" &&
	grep -q '^EnvironmentFile=-/etc/e2secrm.conf' "$U/e2secrm@.service" &&
	grep -q '/usr/lib/e2secrm/e2secrm-boot.sh' \
		"$D/usr/share/initramfs-tools/hooks/e2secrm" &&
	pass "maint: make install puts helper, units, timer, cron example, boot hooks, config" ||
	fail "maint: make install puts helper, units, timer, cron example, boot hooks, config" \
		"missing or paths not filled in"

if command -v systemd-analyze >/dev/null 2>&1; then
	# Instances of the templates, pointing at the installed binaries.
	mkdir -p "$T/units"
	for pair in "e2secrm@.service e2secrm@dev-sdb1.service" \
		    "e2secrm-maint@.service e2secrm-maint@data.service" \
		    "e2secrm-maint@.timer e2secrm-maint@data.timer" \
		    "e2secrm-fail@.service e2secrm-fail@data.service" \
		    "e2secrm_all.service e2secrm_all.service" \
		    "e2secrm_all.timer e2secrm_all.timer"; do
		set -- $pair
		sed -e "s|/usr/sbin/|$D/usr/sbin/|" \
		    -e "s|/usr/lib/e2secrm/|$D/usr/lib/e2secrm/|" \
			"$U/$1" >"$T/units/$2"
	done
	if out=$(systemd-analyze verify --man=no "$T/units/"* 2>&1); then
		pass "maint: systemd-analyze verify accepts the units"
	else
		fail "maint: systemd-analyze verify" "$out"
	fi
else
	skip "maint: systemd-analyze verify" "systemd-analyze not installed"
fi

# ok_status UNIT N: would systemd count exit status N of UNIT's main
# process as success?  0, and what SuccessExitStatus= lists.
ok_status() {
	[ "$2" = 0 ] && return 0
	sed -n 's/^SuccessExitStatus=//p' "$1" | tr ' ' '\n' | grep -qx "$2"
}

# The maintenance window fails on residue left (4, 5) and on errors, so
# that `systemctl --failed` and OnFailure= hear of it; the boot-time gate
# of a mount counts 4 and 5 as success, so that the mount goes on.
name="maint: e2secrm-maint@ succeeds on 0 and 1 only, fails on 4, 5, 8"
m=$U/e2secrm-maint@.service
if ok_status "$m" 0 && ok_status "$m" 1 && ! ok_status "$m" 4 &&
   ! ok_status "$m" 5 && ! ok_status "$m" 8 && ! ok_status "$m" 9 &&
   [ "$(grep -c '^SuccessExitStatus=' "$m")" = 1 ] &&
   grep -qx 'OnFailure=e2secrm-fail@%i.service' "$m"; then
	pass "$name, and sets off e2secrm-fail@"
else
	fail "$name" "$(grep -e Success -e OnFailure "$m")"
fi
name="maint: e2secrm_all succeeds on 0 and 1 only, runs --all"
a=$U/e2secrm_all.service
if ok_status "$a" 0 && ok_status "$a" 1 && ! ok_status "$a" 4 &&
   ! ok_status "$a" 5 && ! ok_status "$a" 8 && ! ok_status "$a" 9 &&
   grep -qx 'ExecStart=/usr/sbin/e2secrm-maint --all' "$a" &&
   ! grep -q '^WantedBy' "$a" &&
   grep -qx 'WantedBy=timers.target' "$U/e2secrm_all.timer"; then
	pass "$name"
else
	fail "$name" "$(grep -e Success -e Exec "$a")"
fi
name="maint: e2secrm@ keeps the mount going on 4 and 5, not on 8"
g=$U/e2secrm@.service
if ok_status "$g" 1 && ok_status "$g" 4 && ok_status "$g" 5 &&
   ! ok_status "$g" 8 && ! ok_status "$g" 12; then
	pass "$name"
else
	fail "$name" "$(grep Success "$g")"
fi
# Its ExecStopPost= as systemd runs it: $$ is a dollar, %f the device;
# stdout goes to the journal, where "<4>" is warning priority.
post=$(sed -n 's/^ExecStopPost=//p' "$g" | sed -e 's/\$\$/$/g' \
	-e 's|%f|/dev/sdb1|g' -e "s/^\/bin\/sh -c '//" -e "s/'\$//")
w4=$(EXIT_STATUS=4 sh -c "$post" 2>&1)
w5=$(EXIT_STATUS=5 sh -c "$post" 2>&1)
w1=$(EXIT_STATUS=1 sh -c "$post" 2>&1)
w8=$(EXIT_STATUS=8 sh -c "$post" 2>&1)
if echo "$w4" | grep -q '^<4>/dev/sdb1: exit 4: residues .* left' &&
   echo "$w5" | grep -q '^<4>/dev/sdb1: exit 5: ' &&
   [ -z "$w1$w8" ]; then
	pass "maint: e2secrm@ logs residue left (4, 5) at warning priority"
else
	fail "maint: e2secrm@ logs residue left at warning priority" \
		"[$post] 4: $w4 5: $w5 1: $w1 8: $w8"
fi

# e2secrm-fail, with systemctl, journalctl and sendmail stubbed: the
# failed window's log mailed to E2SECRM_MAILTO, and nothing mailed
# without one (off until configured); a warning line either way.
F=$D/usr/lib/e2secrm/e2secrm-fail
mkdir -p "$T/stub"
cat >"$T/stub/systemctl" <<'EOT'
#!/bin/sh
[ "$1 $2" = "show -P" ] || exit 1
case $3 in
ExecMainStatus) echo "${STUB_STATUS:-5}" ;;
ExecMainCode) echo 1 ;;
InvocationID) echo 0123abcd ;;
esac
echo "$*" >>"$STUB_LOG"
EOT
cat >"$T/stub/journalctl" <<'EOT'
#!/bin/sh
echo "journalctl $*" >>"$STUB_LOG"
echo "e2secrm: /dev/sdb1: 3 secure-delete files lost their block maps"
EOT
cat >"$T/stub/sendmail" <<'EOT'
#!/bin/sh
echo "sendmail $*" >>"$STUB_LOG"
cat >>"$STUB_MAIL"
EOT
chmod 755 "$T/stub/"*
# fail_run CONF [STATUS]: sets $rc, $out; the mail in $T/mail.
fail_run() {
	: >"$T/mail"
	: >"$T/stub.log"
	out=$(PATH="$T/stub:$PATH" STUB_LOG=$T/stub.log STUB_MAIL=$T/mail \
	      STUB_STATUS=${2:-5} E2SECRM_CONF=$1 sh "$F" /srv/data 2>&1)
	rc=$?
}
printf 'E2SECRM_MAILTO=""\n' >"$T/nomail.conf"
fail_run "$T/nomail.conf"
if [ "$rc" = 0 ] && [ ! -s "$T/mail" ] &&
   echo "$out" | grep -q '^<4>e2secrm-maint@srv-data.service: /srv/data: left residues .*(exit 5)' &&
   echo "$out" | grep -q 'not mailed'; then
	pass "maint: e2secrm-fail logs a warning, mails nothing until E2SECRM_MAILTO is set"
else
	fail "maint: e2secrm-fail without a recipient" "rc=$rc $out $(cat "$T/mail")"
fi
printf 'E2SECRM_MAILTO="root"\n' >"$T/mail.conf"
fail_run "$T/mail.conf"
if [ "$rc" = 0 ] && grep -qx 'To: root' "$T/mail" &&
   grep -q '^Subject: .*/srv/data left residues' "$T/mail" &&
   grep -q 'lost their block maps' "$T/mail" &&
   grep -q 'sendmail -t -i' "$T/stub.log" &&
   grep -q 'journalctl .*-u e2secrm-maint@srv-data.service _SYSTEMD_INVOCATION_ID=0123abcd' \
	"$T/stub.log"; then
	pass "maint: e2secrm-fail mails the failed run's log to E2SECRM_MAILTO"
else
	fail "maint: e2secrm-fail mails the log" \
		"rc=$rc $out $(cat "$T/stub.log" "$T/mail")"
fi
fail_run "$T/mail.conf" 8
if grep -q '^Subject: .*was refused or failed (exit 8)' "$T/mail"; then
	pass "maint: e2secrm-fail names a refusal or an error as such"
else
	fail "maint: e2secrm-fail names a refusal" "$(cat "$T/mail")"
fi

if why=$(can_loop_mount); then
	# Metrics into the test's own directory, never the machine's.
	E2SECRM_METRICS_DIR=$T/metrics
	export E2SECRM_METRICS_DIR
	mkdir -p "$T/metrics"
	I=$T/m.img
	mkimg "$I" 16M -t ext4
	canary "$T/secret" "MAINT-SECRET-$$" 30000
	printf 'write %s s.bin\n' "$T/secret" | dfs "$I"
	fl=$(debugfs -R "stat s.bin" "$I" 2>/dev/null |
		sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	printf 'set_inode_field s.bin flags 0x%x\nrm s.bin\n' $((fl | 1)) |
		dfs "$I"
	kmount "$I"
	# Busy: a process with its working directory inside.
	(cd "$T/mnt" && sleep 5) &
	busy=$!
	sleep 0.5
	E2SECRM=$E2SECRM sh "$D/usr/sbin/e2secrm-maint" "$T/mnt" >"$T/o" 2>&1
	rc=$?
	if [ "$rc" = 8 ] && grep -q busy "$T/o" &&
	   findmnt -n --mountpoint "$T/mnt" >/dev/null; then
		pass "maint: a busy filesystem is refused and left mounted"
	else
		fail "maint: a busy filesystem is refused" "rc=$rc $(cat "$T/o")"
	fi
	kill $busy 2>/dev/null
	wait $busy 2>/dev/null
	# Options from the shared config file: a JSON report.
	printf 'E2SECRM_OPTS="--json %s"\n' "$T/r.json" >"$T/e2secrm.conf"
	E2SECRM=$E2SECRM E2SECRM_CONF=$T/e2secrm.conf \
		sh "$D/usr/sbin/e2secrm-maint" "$T/mnt" >"$T/o" 2>&1
	rc=$?
	u=$(blkid -p -s UUID -o value "$I")
	if [ "$rc" = 1 ] && findmnt -n --mountpoint "$T/mnt" >/dev/null &&
	   [ -s "$T/r.json" ] &&
	   grep -q '^e2secrm_run_exit_status{.*} 1$' "$T/metrics/e2secrm-$u.prom"; then
		pass "maint: unmounted, wiped, mounted again (exit 1), options from the config file, metrics in E2SECRM_METRICS_DIR"
	else
		fail "maint: unmounted, wiped, mounted again" "rc=$rc $(cat "$T/o")"
	fi
	# --next-boot: an empty root-only flag at the file system's root,
	# with a word that only the root file system is done at boot.
	sh "$D/usr/sbin/e2secrm-maint" --next-boot "$T/mnt" >"$T/o" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && [ -f "$T/mnt/e2secrm-next-boot" ] &&
	   [ ! -s "$T/mnt/e2secrm-next-boot" ] &&
	   [ "$(stat -c %a "$T/mnt/e2secrm-next-boot")" = 600 ] &&
	   grep -q 'only the root file system' "$T/o"; then
		pass "maint: --next-boot leaves /e2secrm-next-boot"
	else
		fail "maint: --next-boot" "rc=$rc $(cat "$T/o")"
	fi
	kumount
	[ "$(count "MAINT-SECRET-$$" "$I")" = 0 ] &&
		pass "maint: the secret is gone" ||
		fail "maint: the secret is gone" "still in the image"
	mkdir -p "$T/tmpfs"
	mount -t tmpfs none "$T/tmpfs"
	sh "$D/usr/sbin/e2secrm-maint" --next-boot "$T/tmpfs" >"$T/o" 2>&1
	rc=$?
	umount "$T/tmpfs"
	[ "$rc" = 8 ] && grep -q 'not ext2/3/4' "$T/o" &&
		pass "maint: --next-boot refuses a tmpfs" ||
		fail "maint: --next-boot refuses a tmpfs" "rc=$rc $(cat "$T/o")"
else
	skip "maint: e2secrm-maint on a mounted filesystem" "$why"
fi
