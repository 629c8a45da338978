#!/bin/sh
# install-deps.sh --- install, from Debian packages, what e2secrm needs to
# build (libext2fs, libe2p, libcom_err, libuuid, cmocka, autoconf) and to
# run its test suite (e2fsprogs, sleuthkit, extundelete, ext4magic,
# xfsprogs for xfs_io, clang for the fuzz targets).  Run as root.
set -e
pkgs="build-essential autoconf pkg-config e2fsprogs libext2fs-dev comerr-dev
uuid-dev libcmocka-dev e2fsprogs sleuthkit extundelete ext4magic xfsprogs
zerofree clang libclang-rt-dev jq debhelper dpkg-dev fakeroot lintian
xz-utils"
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
