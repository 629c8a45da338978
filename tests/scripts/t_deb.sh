# t_deb.sh --- the Debian package: dpkg-buildpackage -us -uc -b on a copy
# of the git-tracked tree, the .deb holds the binaries, man pages, units,
# cron example and the boot-time pieces (initramfs-tools hook and script,
# dracut module, /etc/e2secrm.conf as a conffile) and nothing else,
# lintian reports no error, and the extracted binary runs (no install on
# this machine).
. "$(dirname "$0")/../lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v dpkg-buildpackage >/dev/null 2>&1 ||
   ! command -v dh >/dev/null 2>&1; then
	skip "deb: dpkg-buildpackage" "dpkg-dev or debhelper not installed"
	exit 0
fi
if ! git -C "$top" rev-parse >/dev/null 2>&1; then
	skip "deb: dpkg-buildpackage" "not a git tree"
	exit 0
fi
W=$(mktemp -d /var/tmp/e2secrm-deb.XXXXXX) || exit 1
trap 'rm -rf "$W"; cleanup' EXIT
mkdir "$W/e2secrm-0.1.0"
(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$W/e2secrm-0.1.0")
if ! (cd "$W/e2secrm-0.1.0" &&
      DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) \
		>"$W/build.log" 2>&1; then
	fail "deb: dpkg-buildpackage -us -uc -b" "$(tail -5 "$W/build.log")"
	exit 0
fi
pass "deb: dpkg-buildpackage -us -uc -b"
deb=$W/e2secrm_0.1.0_$(dpkg --print-architecture).deb
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$W/list"
missing=
for f in /usr/sbin/e2secrm /usr/sbin/e2secrm-maint \
	 /usr/share/man/man8/e2secrm.8.gz /usr/share/man/man8/e2secrm-maint.8.gz \
	 /usr/share/man/man7/e2secrm.7.gz \
	 /lib/systemd/system/e2secrm@.service \
	 /lib/systemd/system/e2secrm-maint@.service \
	 /lib/systemd/system/e2secrm-maint@.timer \
	 /lib/systemd/system/e2secrm-fail@.service \
	 /lib/systemd/system/e2secrm_all.service \
	 /lib/systemd/system/e2secrm_all.timer \
	 /usr/lib/e2secrm/e2secrm-fail \
	 /usr/share/doc/e2secrm/e2secrm.cron /usr/share/doc/e2secrm/copyright \
	 /var/lib/e2secrm/ /etc/e2secrm.conf /usr/lib/e2secrm/e2secrm-boot.sh \
	 /usr/share/initramfs-tools/hooks/e2secrm \
	 /usr/share/initramfs-tools/scripts/local-premount/e2secrm \
	 /usr/lib/dracut/modules.d/90e2secrm/module-setup.sh \
	 /usr/lib/dracut/modules.d/90e2secrm/e2secrm-pre-mount.sh; do
	grep -qx "$f" "$W/list" || missing="$missing $f"
done
[ -z "$missing" ] &&
	pass "deb: binaries, man pages, units, cron example, state directory, boot hooks" ||
	fail "deb: binaries, man pages, units, cron example, state directory, boot hooks" \
		"missing:$missing"
# The boot-time scripts are the only .sh files shipped.
extra=$(grep -E '\.(o|a|c|h|sh)$|/tests/|unit/test_|e2secrm-cut' "$W/list" |
	grep -v -x -e /usr/lib/e2secrm/e2secrm-boot.sh \
		-e '/usr/lib/dracut/modules.d/90e2secrm/[a-z0-9-]*\.sh')
[ -z "$extra" ] && pass "deb: no build products or tests" ||
	fail "deb: no build products or tests" "$extra"
dpkg-deb -e "$deb" "$W/ctl"
# Nothing enabled or started on install.  For e2secrm_all.service and
# its timer (not templates) debhelper's --no-enable snippet enables only
# what the admin had enabled before (was-enabled), to keep it across an
# upgrade: every enable must sit under such a test.
p=$W/ctl/postinst
if [ ! -e "$p" ] ||
   { [ "$(grep -c 'deb-systemd-helper enable' "$p")" = \
       "$(grep -c 'deb-systemd-helper --quiet was-enabled' "$p")" ] &&
     ! grep -Eq 'deb-systemd-invoke|systemctl .*(start|enable)' "$p"; }; then
	pass "deb: units not enabled or started (only an admin's enable kept)"
else
	fail "deb: units not enabled or started" "$(grep -e enable -e start "$p")"
fi
# Installed, the hook goes into the next initramfs (dh_installinitramfs'
# trigger) and the config is the admin's; neither makes anything run.
if grep -qx /etc/e2secrm.conf "$W/ctl/conffiles" 2>/dev/null &&
   grep -q update-initramfs "$W/ctl/triggers" 2>/dev/null; then
	pass "deb: /etc/e2secrm.conf a conffile, update-initramfs triggered"
else
	fail "deb: conffile and initramfs trigger" \
		"$(cat "$W/ctl/conffiles" "$W/ctl/triggers" 2>&1)"
fi
if command -v lintian >/dev/null 2>&1; then
	lintian "$W"/e2secrm_0.1.0_*.changes >"$W/lintian" 2>&1
	if grep -q '^E:' "$W/lintian"; then
		fail "deb: lintian without errors" "$(grep '^E:' "$W/lintian")"
	else
		pass "deb: lintian without errors"
		grep '^[WI]:' "$W/lintian" | sed 's/^/    /'
	fi
else
	skip "deb: lintian" "lintian not installed"
fi
dpkg-deb -x "$deb" "$W/x"
if "$W/x/usr/sbin/e2secrm" -V 2>&1 | grep -q 'Using EXT2FS Library version'
then
	pass "deb: extracted e2secrm -V runs"
else
	fail "deb: extracted e2secrm -V runs" "$("$W/x/usr/sbin/e2secrm" -V 2>&1)"
fi
if command -v man >/dev/null 2>&1; then
	ok=1 why=
	for m in man8/e2secrm.8 man8/e2secrm-maint.8 man7/e2secrm.7; do
		w=$(man --warnings -l "$W/x/usr/share/man/$m.gz" 2>&1 >/dev/null)
		[ -z "$w" ] || { ok=0; why="$why $m: $w"; }
	done
	[ "$ok" = 1 ] && pass "deb: man --warnings clean" ||
		fail "deb: man --warnings clean" "$why"
else
	skip "deb: man --warnings" "man not installed"
fi
