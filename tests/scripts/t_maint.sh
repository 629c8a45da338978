# t_maint.sh --- the maintenance-window pieces: `make install` puts the
# helper, the units, the timer and the cron example in place with the
# install paths; systemd-analyze verify accepts the units; e2secrm-maint
# unmounts, wipes and mounts again, and refuses a busy filesystem.
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
	 "$D/usr/share/doc/e2secrm/e2secrm.cron"; do
	[ -f "$f" ] || ok=0
done
[ "$ok" = 1 ] && ! grep -q '%SBINDIR%' "$U"/*.service "$D/usr/sbin/e2secrm-maint" &&
	grep -q '^ExecStart=/usr/sbin/e2secrm -y %f' "$U/e2secrm@.service" &&
	pass "maint: make install puts helper, units, timer, cron example" ||
	fail "maint: make install puts helper, units, timer, cron example" \
		"missing or paths not filled in"

if command -v systemd-analyze >/dev/null 2>&1; then
	# Instances of the templates, pointing at the installed binaries.
	mkdir -p "$T/units"
	for pair in "e2secrm@.service e2secrm@dev-sdb1.service" \
		    "e2secrm-maint@.service e2secrm-maint@data.service" \
		    "e2secrm-maint@.timer e2secrm-maint@data.timer"; do
		set -- $pair
		sed "s|/usr/sbin/|$D/usr/sbin/|" "$U/$1" >"$T/units/$2"
	done
	if out=$(systemd-analyze verify --man=no "$T/units/"* 2>&1); then
		pass "maint: systemd-analyze verify accepts the units"
	else
		fail "maint: systemd-analyze verify" "$out"
	fi
else
	skip "maint: systemd-analyze verify" "systemd-analyze not installed"
fi

if why=$(can_loop_mount); then
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
	E2SECRM=$E2SECRM sh "$D/usr/sbin/e2secrm-maint" "$T/mnt" >"$T/o" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && findmnt -n --mountpoint "$T/mnt" >/dev/null; then
		pass "maint: unmounted, wiped, mounted again (exit 1)"
	else
		fail "maint: unmounted, wiped, mounted again" "rc=$rc $(cat "$T/o")"
	fi
	kumount
	[ "$(count "MAINT-SECRET-$$" "$I")" = 0 ] &&
		pass "maint: the secret is gone" ||
		fail "maint: the secret is gone" "still in the image"
else
	skip "maint: e2secrm-maint on a mounted filesystem" "$why"
fi
