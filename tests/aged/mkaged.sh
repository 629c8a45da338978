#!/bin/bash
# mkaged.sh --- build (or reuse from the cache) one aged filesystem: many
# mount cycles of what users do, made by the real kernel through loop
# mounts; owned by tests/aged.  Run as root.
#
#   mkaged.sh -p PROFILE [-l short|full] [-s SEED] [overrides]
#   overrides: -t ext4|ext3  -F (fast_commit) -f (no fast_commit)
#              -c COMMIT  -b BLOCKSIZE  -S SIZE  -J JOURNAL-MB  -n CYCLES
#              -N CREATES-PER-CYCLE  -k LARGEST-CREATE-KB  -x (end in a
#              crash) -X (end clean)
#
# Prints "aged: image PATH" last.  PATH.manifest lists "sha256 path" of
# every live file as a kernel mount reads it at the end, PATH.xattrs their
# user xattrs (one line a file, values in hex), PATH.tokens each
# chunk token with its class (plan.awk), PATH.meta the recipe, the build
# time and the generator's own checks (gen_ok=1, or gen_ok=0 and why).
#
# The operations come from plan.awk, chosen from the seed: creates (some
# +s by chattr, the rest of the +s ones inheriting from +s directories),
# appends with fsync, editor saves by rename with a swap file, truncates
# down and up, punched holes, hard links kept or removed, renames across
# directories, deletes, rm -rf of +s trees, xattr values, and at the end
# of every cycle +s temporary files written, fsync'ed, grown, fsync'ed and
# unlinked while other files are appended to and fsync'ed beside them
# (the fast-commit case).  Some cycles end with `xfs_io -x -c 'shutdown
# -f'` instead of a clean umount; the next mount replays the journal.
#
# Images are cached in $AGED_DIR (default /var/tmp/e2secrm-aged) under a
# name that holds the profile, the seed and a hash of the recipe and of
# the code of mkaged.sh and plan.awk: change either (comments aside) and
# the image is rebuilt.
# They are built in /dev/shm when it has room (fsync on a loop device
# over tmpfs costs little), then copied sparse to the cache.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${AGED_DIR:=/var/tmp/e2secrm-aged}"
# lib.sh wants a binary to name; the generator never runs it.
: "${E2SECRM:=/bin/false}"
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] &&
   [ "$(df -Pk /dev/shm | awk 'NR==2 { print $4 }')" -gt 4194304 ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
RESULTS=/dev/null
. "$here/../lib.sh"

profile='' scale=full seed=1
opt_t='' opt_fc='' opt_c='' opt_b='' opt_S='' opt_J='' opt_n='' opt_N=''
opt_k='' opt_x=''
while getopts p:l:s:t:Ffc:b:S:J:n:N:k:xX o; do
	case $o in
	p) profile=$OPTARG ;;
	l) scale=$OPTARG ;;
	s) seed=$OPTARG ;;
	t) opt_t=$OPTARG ;;
	F) opt_fc=1 ;;
	f) opt_fc=0 ;;
	c) opt_c=$OPTARG ;;
	b) opt_b=$OPTARG ;;
	S) opt_S=$OPTARG ;;
	J) opt_J=$OPTARG ;;
	n) opt_n=$OPTARG ;;
	N) opt_N=$OPTARG ;;
	k) opt_k=$OPTARG ;;
	x) opt_x=1 ;;
	X) opt_x=0 ;;
	*) echo "usage: mkaged.sh -p PROFILE [-l short|full] [-s SEED] ..." >&2
	   exit 16 ;;
	esac
done

# The profiles: fs type, fast_commit, commit interval, block size,
# journal MiB, mount options beyond commit=, and whether the last cycle
# is a crash (needs_recovery in the image).  The journals are small so
# that thousands of files wrap them many times.
crash_end=0 extra=''
case $profile in
fc600)	fstype=ext4 fc=1 commit=600 bs=4096 jmb=4 ;;
fc5)	fstype=ext4 fc=1 commit=5 bs=4096 jmb=4 ;;
nofc5)	fstype=ext4 fc=0 commit=5 bs=4096 jmb=4 crash_end=1 ;;
nofc600) fstype=ext4 fc=0 commit=600 bs=1024 jmb=2 ;;
ext3)	fstype=ext3 fc=0 commit=5 bs=1024 jmb=2 extra=data=ordered ;;
# The same fast-commit workloads with a journal that holds the whole
# history: no run can say "cannot be traced" there, so a residue left
# is a silent one (with the small journals every first run has that
# gap, and --all-free-if-lost covers what the engine missed).
fc600big) fstype=ext4 fc=1 commit=600 bs=4096 jmb=big ;;
fc5big)	fstype=ext4 fc=1 commit=5 bs=4096 jmb=big ;;
'')	echo "mkaged.sh: -p PROFILE is required" >&2; exit 16 ;;
*)	echo "mkaged.sh: unknown profile $profile" >&2; exit 16 ;;
esac
# The scales: mount cycles, creates per cycle (each cycle also does about
# as many other operations), largest create, image size.
# A whole history takes about 0.4 MiB of journal per transaction at 4k
# blocks, some 750 MiB at full scale: its "big" journal is 1 GiB, in a
# 3 GiB image (a journal must be under half the filesystem), sparse.
case $scale in
short)	cycles=6 nfiles=60 maxkb=128 size=128M bigj=32 bigsize=128M
	tick_every=3 ;;
full)	cycles=20 nfiles=250 maxkb=512 size=384M bigj=1024 bigsize=3G
	tick_every=1 ;;
*)	echo "mkaged.sh: unknown scale $scale" >&2; exit 16 ;;
esac
if [ "$jmb" = big ]; then
	jmb=$bigj size=$bigsize
fi
fstype=${opt_t:-$fstype} fc=${opt_fc:-$fc} commit=${opt_c:-$commit}
bs=${opt_b:-$bs} size=${opt_S:-$size} jmb=${opt_J:-$jmb}
cycles=${opt_n:-$cycles} nfiles=${opt_N:-$nfiles} maxkb=${opt_k:-$maxkb}
crash_end=${opt_x:-$crash_end}
[ "$fstype" = ext3 ] && fc=0

mkopts="-t $fstype -b $bs -J size=$jmb"
[ "$fc" = 1 ] && mkopts="$mkopts -O fast_commit"
mopts="commit=$commit${extra:+,$extra}"
recipe="v1|$fstype|fc=$fc|$mopts|bs=$bs|size=$size|j=$jmb|cycles=$cycles"
recipe="$recipe|files=$nfiles|maxkb=$maxkb|crash_end=$crash_end|seed=$seed"
recipe="$recipe|tick=$tick_every"
# Comments and blank lines are left out of the hash: only what the
# scripts do names an image.
hash=$( (echo "$recipe"; cat "$here/mkaged.sh" "$here/plan.awk" |
	grep -v -E '^[[:space:]]*(#|$)') | sha256sum | cut -c1-10)
name=$profile-$scale-$seed-$hash
# Tokens carry the image's tag so that two images' tokens never mix.
tag=$(echo "$profile$seed$hash" | tr -cd 'a-z0-9' | cut -c1-16)
cimg=$AGED_DIR/$name.img
mkdir -p "$AGED_DIR"
if [ -f "$cimg" ] && [ -f "$cimg.meta" ] && [ -f "$cimg.manifest" ] &&
   [ -f "$cimg.tokens" ] && [ -f "$cimg.xattrs" ]; then
	echo "aged: $name cached (built in" \
		"$(sed -n 's/^build_s=//p' "$cimg.meta") s)"
	echo "aged: image $cimg"
	exit 0
fi
rm -f "$cimg" "$cimg.meta" "$cimg.manifest" "$cimg.tokens" "$cimg.xattrs"

M=$T/mnt
w=$T/aged.img
t0=$EPOCHREALTIME
awk -v seed="$seed" -v cycles="$cycles" -v nfiles="$nfiles" -v tag="$tag" \
	-v crash_end="$crash_end" -v maxkb="$maxkb" -v tokfile="$T/tokens" \
	-v livefile="$T/planned" -f "$here/plan.awk" </dev/null >"$T/ops" || {
	echo "aged: plan.awk failed" >&2
	exit 8
}
# mkimg sets img and size: ours are cimg and size (the same value).
# shellcheck disable=SC2086
if ! mkimg "$w" "$size" $mkopts; then
	echo "aged: mke2fs $mkopts failed" >&2
	exit 8
fi

# The verbs of plan.awk's lines, on paths relative to the mount.  An
# operation that fails is noted: the plan and the disk then disagree,
# which the checks at the end turn into gen_ok=0.
: >"$T/opfail"
opfail() { echo "$*" >>"$T/opfail"; }
md() { mkdir "$M/$1" || opfail md "$@"; }
splus() { chattr +s "$M/$1" || opfail splus "$@"; }
mkplus() { : >"$M/$1" && chattr +s "$M/$1" || opfail mkplus "$@"; }
# wr PATH TOKEN BYTES: a new file of token lines, not synced.
wr() { yes "$2" | head -c "$3" >"$M/$1" || opfail wr "$@"; }
# wf: the same, fsync'ed (editors and temporary files do).
wf() {
	yes "$2" | head -c "$3" |
		dd of="$M/$1" bs=64k conv=fsync status=none || opfail wf "$@"
}
# ap: appended and fsync'ed.
ap() {
	yes "$2" | head -c "$3" | dd of="$M/$1" bs=64k oflag=append \
		conv=notrunc,fsync status=none || opfail ap "$@"
}
tr_() { truncate -s "$2" "$M/$1" || opfail tr "$@"; }
ph() { fallocate -p -o "$2" -l "$3" "$M/$1" || opfail ph "$@"; }
lk() { ln "$M/$1" "$M/$2" || opfail lk "$@"; }
mvf() { mv -f "$M/$1" "$M/$2" || opfail mvf "$@"; }
rmf() { rm "$M/$1" || opfail rmf "$@"; }
rmtree() { rm -rf "$M/$1" || opfail rmtree "$@"; }
xa() {
	setfattr -n user.a -v "$(yes "$2" | head -c "$3" | tr '\n' ' ')" \
		"$M/$1" || opfail xa "$@"
}
fsd() { xfs_io -c fsync "$M/$1" || opfail fsd "$@"; }
# tick: wait out the commit interval when it is short, so that the timer
# commits; in every cycle at full scale, every third at short.
tick() {
	if [ "$commit" -le 30 ] && [ $((cycle % tick_every)) = 0 ]; then
		sleep $((commit + 1))
	fi
}
crashes=0 cycle=0
begin_cycle() {
	cycle=$1
	kmount "$w" "$mopts" || { opfail mount "$1"; exit 8; }
	return 0
}
end_cycle() {
	if [ "$2" = crash ]; then
		xfs_io -x -c 'shutdown -f' "$M" || opfail shutdown "$1"
		crashes=$((crashes + 1))
	fi
	kumount || { opfail umount "$1"; exit 8; }
}
# truncate is both a verb of the plan and a command: the plan says "tr".
sed 's/^tr /tr_ /' "$T/ops" >"$T/ops.sh"
# shellcheck disable=SC1090
. "$T/ops.sh"
t1=$EPOCHREALTIME

# What the kernel shows at the end, read on a copy mounted read-write: a
# crashed image is recovered by that mount (a read-only loop device
# cannot be), and the cached image stays as the crash left it.
why=''
final=clean
if dumpe2fs -h "$w" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery'; then
	final=crash
fi
[ "$final" = crash ] && [ "$crash_end" = 0 ] && why="$why; ends in needs_recovery"
[ "$final" = clean ] && [ "$crash_end" = 1 ] && why="$why; should end in a crash"
cp --sparse=always "$w" "$T/view.img"
if ! kmount "$T/view.img"; then
	echo "aged: the view mount failed" >&2
	exit 8
fi
(cd "$M" && find . -path ./lost+found -prune -o -type f -print |
	sed 's|^\./||' | LC_ALL=C sort) >"$T/found"
(cd "$M" && tr '\n' '\0' <"$T/found" | xargs -0 -r sha256sum) |
	LC_ALL=C sort -k2 >"$T/manifest"
# xattrs, one line a file: "path name=0xVALUE..." (check-aged.sh reads
# them back the same way).
(cd "$M" && getfattr -R -d -m user. -e hex . 2>/dev/null) |
	awk '/^# file: / { if (l != "") print l; l = substr($0, 9); next }
		/=/ { l = l " " $0 } END { if (l != "") print l }' |
	LC_ALL=C sort >"$T/xattrs"
LC_ALL=C sort "$T/planned" >"$T/planned.s"
if ! cmp -s "$T/found" "$T/planned.s"; then
	why="$why; live names differ from the plan ($(diff "$T/planned.s" \
		"$T/found" | grep -c '^[<>]') lines)"
fi
# No live file may hold a token of a dropped chunk, nor lack a live one.
(cd "$M" && tr '\n' '\0' <"$T/found" | xargs -0 -r cat;
	getfattr -R -d -m user. --absolute-names . 2>/dev/null) |
	LC_ALL=C grep -a -o -E "(SECRET|FREE|KEEP)-$tag-c[0-9]{6}" |
	LC_ALL=C sort -u >"$T/livetok"
kumount
dead=$(grep -c -v '^KEEP' "$T/livetok")
[ "$dead" = 0 ] || why="$why; $dead dropped tokens in live files ($(grep -v '^KEEP' "$T/livetok" | head -3 | tr '\n' ' '))"
grep '^KEEP' "$T/livetok" >"$T/livekeep"
awk '$2 == "KEEP" { print $1 }' "$T/tokens" | LC_ALL=C sort >"$T/plankeep"
missing=$(LC_ALL=C comm -23 "$T/plankeep" "$T/livekeep" | wc -l)
[ "$missing" = 0 ] || why="$why; $missing KEEP tokens of the plan not in live files"
if [ -s "$T/opfail" ]; then
	why="$why; $(wc -l <"$T/opfail") operations failed ($(head -3 "$T/opfail" | tr '\n' ' '))"
fi
if [ "$final" = clean ]; then
	e2fsck -fn "$w" >"$T/fsck" 2>&1 || why="$why; e2fsck -fn not clean"
fi
t2=$EPOCHREALTIME

nops=$(grep -c -v -E '^(\(|\) &|wait|begin_cycle|end_cycle|sync|tick)' "$T/ops")
cp --sparse=always "$w" "$cimg.part"
cp "$T/manifest" "$cimg.manifest"
cp "$T/xattrs" "$cimg.xattrs"
cp "$T/tokens" "$cimg.tokens"
cat >"$cimg.meta" <<EOF
recipe=$recipe
profile=$profile
scale=$scale
seed=$seed
tag=$tag
mke2fs=$mkopts
mount=$mopts
final=$final
crashes=$crashes
operations=$nops
files_created=$(grep -c -E '^(wr|wf|mkplus) ' "$T/ops")
live_files=$(wc -l <"$T/found")
live_xattr_files=$(wc -l <"$T/xattrs")
chunks=$(wc -l <"$T/tokens")
chunks_secret=$(grep -c ' SECRET$' "$T/tokens")
chunks_keep=$(grep -c ' KEEP$' "$T/tokens")
chunks_free=$(grep -c ' FREE$' "$T/tokens")
gen_ok=$([ -z "$why" ] && echo 1 || echo 0)
gen_why=${why#; }
ops_s=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
build_s=$(awk "BEGIN { printf \"%.1f\", $t2 - $t0 }")
built=$(date -u +%Y-%m-%dT%H:%MZ)
EOF
mv "$cimg.part" "$cimg"
echo "aged: built $name in $(sed -n 's/^build_s=//p' "$cimg.meta") s" \
	"($nops operations, $crashes crashes, ends $final)"
[ -z "$why" ] || echo "aged: $name: generator check failed: ${why#; }" >&2
echo "aged: image $cimg"
