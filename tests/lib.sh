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

# fc_crash_corpus IMG TOKEN NAME: a 16M fast_commit file system left by
# a crash (xfs_io shutdown), meant to hold a +s file only fast commits
# knew, $T/mnt/d/NAME: made, written (TOKEN-SECRET-$$), fsync'ed, removed,
# its inode given to the next file (TOKEN-AFTER-$$, fsync'ed).  A full
# commit between the fsync and the next one (another process's sync)
# leaves nothing on the disk that names the file (e2secrm(7), LIMITS), so
# the bytes are made beside the mount and copied in (the window is the
# copies' and the fsyncs'), and a try whose image e2secrm sees no
# secure-delete inode in is made again, five times at most (one whose
# record a full commit caught before the removal is taken: the faults
# are what the tests are about).  0: made;
# 1: the mount failed; 2: every try was split so.
fc_crash_corpus() {
	img=$1 tok=$2 name=$3 try=0
	canary "$T/fcc.secret" "$tok-SECRET-$$" 30000
	canary "$T/fcc.after" "$tok-AFTER-$$" 5000
	while [ $try -lt 5 ]; do
		try=$((try + 1))
		mkimg "$img" 16M -t ext4 -b 1024 -O fast_commit
		# commit=600: no timed full commit ends the fast commits.
		kmount "$img" commit=600 || return 1
		mkdir "$T/mnt/d"
		canary "$T/mnt/d/keep" "$tok-KEEP-$$" 20000
		sync -f "$T/mnt"
		: >"$T/mnt/d/$name"
		chattr +s "$T/mnt/d/$name"
		cat "$T/fcc.secret" >>"$T/mnt/d/$name"
		xfs_io -c fsync "$T/mnt/d/$name"
		rm "$T/mnt/d/$name"
		cp "$T/fcc.after" "$T/mnt/d/after"
		xfs_io -c fsync "$T/mnt/d/after"
		xfs_io -x -c shutdown "$T/mnt"
		kumount
		"$E2SECRM" -n "$img" >"$T/corpus.out" 2>&1
		if grep -q 'fast commit.*replayed' "$T/corpus.out" &&
		   grep -q ': [1-9][0-9]* secure-delete inode' "$T/corpus.out"
		then
			rm -f "$T/fcc.secret" "$T/fcc.after"
			return 0
		fi
	done
	rm -f "$T/fcc.secret" "$T/fcc.after"
	return 2
}

# fc_stat FC_INFO KEY: a count of /proc/fs/ext4/DEV/fc_info ("commits",
# "ineligible"...).
fc_stat() {
	awk -v k="$2" '$2 == k { print $1; exit }' "$1" 2>/dev/null
}
