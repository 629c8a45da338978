# lib.sh --- shared helpers for the image and scenario tests.
#
# Sourced by tests/scripts/t_*.sh.  Each check appends one line to
# $RESULTS: "PASS name", "FAIL name: why" or "SKIP name: why"; the runner
# (run-tests.sh) counts them.  Images are built with mke2fs and debugfs in
# a private temporary directory that is removed on exit.

: "${E2SECRM:?E2SECRM must name the e2secrm binary}"
: "${RESULTS:=/dev/stdout}"
T=$(mktemp -d "${TMPDIR:-/tmp}/e2secrm-test.XXXXXX") || exit 1
MNT_DEV=
# What a run saw goes into the test's own directory, never the machine's
# /var/lib/e2secrm; each script starts with no previous run.
E2SECRM_STATE_DIR=$T/state
export E2SECRM_STATE_DIR
cleanup() {
	if [ -n "$MNT_DEV" ]; then
		umount "$T/mnt" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT

pass() { echo "PASS $1" >>"$RESULTS"; echo "  PASS $1"; }
fail() { echo "FAIL $1: $2" >>"$RESULTS"; echo "  FAIL $1: $2"; }
skip() { echo "SKIP $1: $2" >>"$RESULTS"; echo "  SKIP $1: $2"; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

# same A B: identical but the primary superblock's volatile fields (a
# run's write time, byte counter, checksum).
same() {
	n=$(cmp -l "$1" "$2" | awk '{
		o = $1 - 1 - 1024
		if ((o >= 48 && o < 52) || (o >= 376 && o < 384) ||
		    o == 628 || (o >= 1020 && o < 1024))
			next
		n++
	} END { print n + 0 }')
	[ "$n" = 0 ]
}

# mkimg IMG SIZE MKE2FS-OPTIONS...
mkimg() {
	img=$1 size=$2
	shift 2
	mke2fs -q -F "$@" "$img" "$size" >/dev/null 2>&1
}

# dfs IMG: run debugfs -w with the commands on stdin.
dfs() {
	debugfs -w -f - "$1" >/dev/null 2>&1
}

# canary FILE TOKEN BYTES: a file made of a repeated token.
canary() {
	: >"$1"
	n=0
	while [ "$n" -lt "$3" ]; do
		printf '%s\n' "$2" >>"$1"
		n=$((n + ${#2} + 1))
	done
}

# count TOKEN IMG: how many times the raw image holds the token.
count() {
	grep -a -c -- "$1" "$2" 2>/dev/null || true
}

# run_e2secrm ARGS...: sets $rc, $out, $err.
run_e2secrm() {
	"$E2SECRM" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# Loop mounts need root and a loop device; say why when not.
can_loop_mount() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root"
		return 1
	fi
	if [ ! -e /dev/loop-control ]; then
		echo "no /dev/loop-control"
		return 1
	fi
	probe="$T/probe.img"
	mkimg "$probe" 4M -t ext4 || { echo "mke2fs failed"; return 1; }
	mkdir -p "$T/mnt"
	if ! mount -o loop "$probe" "$T/mnt" 2>/dev/null; then
		echo "loop mount refused by this kernel"
		return 1
	fi
	umount "$T/mnt"
	rm -f "$probe"
	return 0
}

kmount() {
	mkdir -p "$T/mnt"
	mount -o loop${2:+,$2} "$1" "$T/mnt" && MNT_DEV=1
}

kumount() {
	umount "$T/mnt" && MNT_DEV=
}

# fc_stat FC_INFO KEY: a count of /proc/fs/ext4/DEV/fc_info ("commits",
# "ineligible"...).
fc_stat() {
	awk -v k="$2" '$2 == k { print $1; exit }' "$1" 2>/dev/null
}
