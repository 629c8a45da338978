# t_maint.sh --- the maintenance-window pieces: `make install` puts the
# helper, the units, the timer, the cron example and the boot-time pieces
# in place with the install paths; systemd-analyze verify accepts the
# units; e2secrm-maint unmounts, wipes and mounts again with the options
# of /etc/e2secrm.conf, refuses a busy filesystem, and --next-boot leaves
# the one-shot flag.  (The boot itself: tests/boot/check-boot.sh.)
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
	# Options from the shared config file: a JSON report.
	printf 'E2SECRM_OPTS="--json %s"\n' "$T/r.json" >"$T/e2secrm.conf"
	E2SECRM=$E2SECRM E2SECRM_CONF=$T/e2secrm.conf \
		sh "$D/usr/sbin/e2secrm-maint" "$T/mnt" >"$T/o" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && findmnt -n --mountpoint "$T/mnt" >/dev/null &&
	   [ -s "$T/r.json" ]; then
		pass "maint: unmounted, wiped, mounted again (exit 1), options from the config file"
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
