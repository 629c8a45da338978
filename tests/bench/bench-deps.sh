#!/bin/sh
# bench-deps.sh --- install, from Debian packages, the tools only the
# benchmark needs (owned by tests/bench): GNU time for max RSS, zerofree to
# compare with, strace, linux-perf and valgrind to profile (profile.sh),
# python3 for the file workload and the report, jq to compare the plans of
# the incremental row.  Called by make bench and
# make bench-smoke; run as root.
set -e
pkgs="time zerofree strace linux-perf valgrind e2fsprogs python3 jq"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "bench-deps: missing$missing (run as root to install)" >&2
		exit 8
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing
fi
