#!/bin/sh
# install-deps.sh --- install, from Debian packages, what e2secrm needs to
# build (libext2fs, libe2p, libcom_err, libuuid, cmocka, autoconf) and to
# run its test suite (e2fsprogs, sleuthkit, extundelete, ext4magic,
# xfsprogs for xfs_io, clang for the fuzz targets, attr for setfattr in
# the aged filesystems, prometheus for promtool, which checks the
# --metrics files).  Run as root.
set -e
pkgs="build-essential autoconf pkg-config e2fsprogs libext2fs-dev comerr-dev
uuid-dev libcmocka-dev e2fsprogs sleuthkit extundelete ext4magic xfsprogs
zerofree clang libclang-rt-dev jq debhelper dpkg-dev fakeroot lintian
xz-utils attr prometheus"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing
fi

# Another project's corrupt and odd images, for t_foreign: e2fsprogs' own
# test images (tests/*/image.gz, and journal.gz where a test has an
# external journal), from the source package of the
# e2fsprogs installed.  Debian's archive serves sources only with a
# deb-src entry: one is added for the archive the machine already uses.
foreign=${E2SECRM_FOREIGN_DIR:-/var/cache/e2secrm-tests/e2fsprogs}
# The mark names what was unpacked (all of tests/): an older cache is redone.
if [ ! -f "$foreign/.complete-tests" ]; then
	tmp=$(mktemp -d)
	if ! (cd "$tmp" && apt-get source -qq --download-only e2fsprogs) \
		>/dev/null 2>&1; then
		src=/etc/apt/sources.list.d/debian.sources
		if [ -f "$src" ]; then
			sed 's/^Types: deb$/Types: deb-src/' "$src" \
				>/etc/apt/sources.list.d/e2secrm-deb-src.sources
		elif [ -f /etc/apt/sources.list ]; then
			sed -n 's/^deb \(.*debian.*\)/deb-src \1/p' \
				/etc/apt/sources.list \
				>/etc/apt/sources.list.d/e2secrm-deb-src.list
		fi
		apt-get update -qq
		(cd "$tmp" && apt-get source -qq --download-only e2fsprogs) \
			>/dev/null 2>&1 ||
			echo "install-deps: e2fsprogs source not found:" \
			     "t_foreign will be skipped" >&2
	fi
	for t in "$tmp"/e2fsprogs_*.orig.tar.*; do
		case $t in *.asc) continue ;; esac
		[ -f "$t" ] || continue
		rm -rf "$foreign"
		mkdir -p "$foreign"
		tar -xf "$t" -C "$foreign" --strip-components=1 \
			--wildcards '*/tests/*' &&
			touch "$foreign/.complete-tests"
	done
	rm -rf "$tmp"
fi
