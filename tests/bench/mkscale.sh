#!/bin/bash
# mkscale.sh --- build (or reuse from the cache) the scale image of
# make bench-scale; owned by tests/bench.  Run as root: the image is made
# by the real kernel through loop mounts.
#
#   mkscale.sh          prints the image's path on its last line
#
# Parameters (environment), the issue's numbers by default:
#   SCALE_FILES   files in the tree                  2000000
#   SCALE_SIZE    filesystem size (mke2fs's units)   64G
#   SCALE_SECRM   files with +s (about)              3000
#   SCALE_WORKERS processes writing files            2
#   SCALE_DIR     the cache                          /var/tmp/e2secrm-scale
#
# The recipe: mke2fs -t ext4 -O fast_commit -J size=1024 with an inode
# count of 1.45x the files (so the tables are mostly used), lazy inode
# tables; a first mount with data=journal writes and deletes a filler of
# 1.25x the journal (every journal block written for real, the ring
# wrapped once), then fstrim, so the filler's freed data blocks are holes
# in the image again (they are no +s residue); a normal mount (fast commits on) runs mkscale.py: a deep
# tree, extra files created and deleted so inode tables and directory
# blocks are real bytes, +s files (a third deleted), 10% of the others
# deleted, fragmented files, and an fsync churn (fast commits).  Free
# data blocks never written stay holes in the image file.
#
# The image is cached as $SCALE_DIR/scale-HASH.img with HASH taken over
# the parameters and the build scripts; changing either rebuilds it (and
# removes the older scale images: they are large).  scale-HASH.meta holds
# the counts, the journal's statistics and how long each step took.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${SCALE_FILES:=2000000}"
: "${SCALE_SIZE:=64G}"
: "${SCALE_SECRM:=3000}"
: "${SCALE_WORKERS:=2}"
: "${SCALE_DIR:=/var/tmp/e2secrm-scale}"
: "${SCALE_MIN_FREE_GB:=15}"
seed=30
inodes=$(( SCALE_FILES * 145 / 100 + 65536 ))
recipe="v1|files=$SCALE_FILES|size=$SCALE_SIZE|secrm=$SCALE_SECRM|inodes=$inodes|journal=1024M|fast_commit|seed=$seed"
hash=$( { echo "$recipe"; cat "$here/mkscale.sh" "$here/mkscale.py" \
	"$here/mkfiles.py"; } | sha256sum | cut -c1-12)
mkdir -p "$SCALE_DIR"
img=$SCALE_DIR/scale-$hash.img
meta=$SCALE_DIR/scale-$hash.meta
if [ -f "$img" ] && [ -f "$meta" ] && grep -q '^built=' "$meta"; then
	echo "bench: scale image cached ($img)" >&2
	echo "$img"
	exit 0
fi

# Room: about 7.5 KiB a file, plus the journal and inode tables; the
# bench then copies the image once more.  Never leave less than
# SCALE_MIN_FREE_GB.
need_kib=$(( (SCALE_FILES * 15 / 2 + SCALE_FILES * 3 / 8 + 1100 * 1024) * 2 ))
for old in "$SCALE_DIR"/scale-*.img; do
	[ -e "$old" ] && [ "$old" != "$img" ] || continue
	echo "bench: removing the older scale image $old" >&2
	rm -f "$old" "${old%.img}.meta"
done
avail_kib=$(df -k --output=avail "$SCALE_DIR" | tail -1)
if [ $(( avail_kib - need_kib )) -lt $(( SCALE_MIN_FREE_GB * 1024 * 1024 )) ]; then
	echo "bench: the scale image and its copy need about $((need_kib / 1048576)) GiB;" \
		"$((avail_kib / 1048576)) GiB free would fall under ${SCALE_MIN_FREE_GB} GiB:" \
		"lower SCALE_FILES" >&2
	exit 8
fi
rm -f "$img" "$meta"

mnt=$SCALE_DIR/mnt.$$
mkdir -p "$mnt"
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT

t0=$EPOCHREALTIME
mke2fs -q -F -t ext4 -b 4096 -O fast_commit -J size=1024 -N "$inodes" \
	-E lazy_itable_init=1 "$img" "$SCALE_SIZE"
jblocks=$(dumpe2fs -h "$img" 2>/dev/null | sed -n "s/^Total journal blocks: *//p")
jbytes=$((jblocks * 4096))

# Every journal block written for real, the ring wrapped once.
mount -o loop,data=journal,noinit_itable "$img" "$mnt"
dd if=/dev/urandom of="$mnt/filler" bs=1M count=$((jbytes * 5 / 4 / 1048576 + 1)) status=none
sync
rm "$mnt/filler"
sync
fstrim "$mnt"
umount "$mnt"
t1=$EPOCHREALTIME

mount -o loop,noinit_itable "$img" "$mnt"
dev=$(basename "$(findmnt -no SOURCE "$mnt")")
counts=$(/usr/bin/python3 "$here/mkscale.py" "$mnt" "$SCALE_FILES" \
	"$SCALE_SECRM" "$seed" "$SCALE_WORKERS")
sync
# What the journal saw during the files (jbd2's own statistics).
jinfo=$(cat "/proc/fs/jbd2/$dev-8/info" 2>/dev/null || true)
fcinfo=$(cat "/proc/fs/ext4/$dev/fc_info" 2>/dev/null || true)
umount "$mnt"
t2=$EPOCHREALTIME

e2fsck -fn "$img" >"$SCALE_DIR/scale-$hash.fsck" 2>&1 || {
	echo "bench: the scale image is not clean after the build" \
		"(see $SCALE_DIR/scale-$hash.fsck)" >&2
	exit 8
}
t3=$EPOCHREALTIME

ntrans=$(echo "$jinfo" | sed -n 's/^\([0-9]*\) transactions.*/\1/p')
avgblk=$(echo "$jinfo" | sed -n 's/^ *\([0-9]*\) blocks per transaction/\1/p')
logged=$(( ${ntrans:-0} * ${avgblk:-0} ))
alloc=$(du -k "$img" | cut -f1)
cat >"$meta" <<EOF
recipe=$recipe
hash=$hash
size=$SCALE_SIZE
inodes=$inodes
journal_bytes=$jbytes
block_size=4096
$(echo "$counts" | tr ' ' '\n')
journal_transactions=${ntrans:-?}
journal_blocks_per_transaction=${avgblk:-?}
journal_blocks_logged_by_files=$logged
journal_wraps_by_files=$(awk "BEGIN{printf \"%.2f\", $logged / $jblocks}")
fast_commit_info=$(echo "$fcinfo" | tr '\n' ';' | tr -s ' ')
build_journal_fill_s=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
build_files_s=$(awk "BEGIN{printf \"%.1f\", $t2 - $t1}")
build_fsck_s=$(awk "BEGIN{printf \"%.1f\", $t3 - $t2}")
build_total_s=$(awk "BEGIN{printf \"%.1f\", $t3 - $t0}")
allocated_kib=$alloc
built=$(date -u +%Y-%m-%dT%H:%MZ)
EOF
echo "bench: built the scale image in $(sed -n 's/^build_total_s=//p' "$meta") s: $counts" >&2
echo "$img"
