# t_deb.sh --- the Debian package: dpkg-buildpackage -us -uc -b on a copy
# of the git-tracked tree, the .deb holds the binaries, man pages, units
# and cron example and nothing else, lintian reports no error, and the
# extracted binary runs (no install on this machine).
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
	 /lib/systemd/system/e2secrm@.service \
	 /lib/systemd/system/e2secrm-maint@.service \
	 /lib/systemd/system/e2secrm-maint@.timer \
	 /usr/share/doc/e2secrm/e2secrm.cron /usr/share/doc/e2secrm/copyright \
	 /var/lib/e2secrm/; do
	grep -qx "$f" "$W/list" || missing="$missing $f"
done
[ -z "$missing" ] &&
	pass "deb: binaries, man pages, units, cron example, state directory" ||
	fail "deb: binaries, man pages, units, cron example, state directory" \
		"missing:$missing"
extra=$(grep -E '\.(o|a|c|h|sh)$|/tests/|unit/test_|e2secrm-cut' "$W/list")
[ -z "$extra" ] && pass "deb: no build products or tests" ||
	fail "deb: no build products or tests" "$extra"
dpkg-deb -e "$deb" "$W/ctl"
if [ ! -e "$W/ctl/postinst" ] ||
   ! grep -q 'enable\|start' "$W/ctl/postinst"; then
	pass "deb: template units not enabled or started"
else
	fail "deb: template units not enabled or started" "postinst does"
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
	for m in e2secrm e2secrm-maint; do
		w=$(man --warnings -l "$W/x/usr/share/man/man8/$m.8.gz" 2>&1 >/dev/null)
		[ -z "$w" ] || { ok=0; why="$why $m: $w"; }
	done
	[ "$ok" = 1 ] && pass "deb: man --warnings clean" ||
		fail "deb: man --warnings clean" "$why"
else
	skip "deb: man --warnings" "man not installed"
fi
