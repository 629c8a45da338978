#!/bin/bash
# mkimage.sh --- build (or reuse from the cache) one bench image; owned by
# tests/bench.  Images live in $BENCH_DIR, outside the source tree, and
# are built with the real kernel through loop mounts (run as root).
#
#   mkimage.sh NAME        NAME is smoke, small, many or huge
#
# Each image: mke2fs, then a first mount with data=journal in which a
# filler file of 1.25x the journal's size is written, synced and deleted,
# so that every block of the journal ring has really been written (mke2fs
# only marks a new journal zeroed); then a normal mount in which
# mkfiles.py creates the files, sets +s on some, syncs and deletes some.
# The image is left sparse.  $BENCH_DIR/NAME.meta records the recipe, the
# counts and how long the build took; a cached image is reused when its
# recipe matches.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${BENCH_DIR:=/var/tmp/e2secrm-bench}"
name=$1

# size  mke2fs-extra  nfiles  secrm-frac  delete-frac  mix
case $name in
smoke)	recipe="64M|-J size=4|600|0.10|0.5|mixed" ;;
small)	recipe="1G||20000|0.10|0.5|mixed" ;;
many)	recipe="8G||300000|0.05|0.3|small" ;;
huge)	recipe="2T|-J size=1024|3000|0.10|0.3|large" ;;
*)	echo "mkimage.sh: unknown image $name" >&2; exit 16 ;;
esac
recipe="v2|$recipe"
IFS='|' read -r _ size mkopts nfiles secrm delfrac mix <<EOF
$recipe
EOF

img=$BENCH_DIR/$name.img
meta=$BENCH_DIR/$name.meta
mkdir -p "$BENCH_DIR"
if [ -f "$img" ] && [ -f "$meta" ] &&
   [ "$(sed -n 's/^recipe=//p' "$meta")" = "$recipe" ]; then
	echo "bench: $name image cached ($img)"
	exit 0
fi
rm -f "$img" "$meta"

mnt=$BENCH_DIR/mnt.$name
mkdir -p "$mnt"
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT

t0=$EPOCHREALTIME
# shellcheck disable=SC2086
mke2fs -q -F -t ext4 -b 4096 -E lazy_itable_init=1 $mkopts "$img" "$size"
jblocks=$(dumpe2fs -h "$img" 2>/dev/null | sed -n "s/^Total journal blocks: *//p")
bsize=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
jbytes=$((jblocks * bsize))

# Write the whole journal ring for real: data=journal logs file data.
mount -o loop,data=journal,noinit_itable "$img" "$mnt"
fill_mb=$((jbytes * 5 / 4 / 1048576 + 1))
dd if=/dev/urandom of="$mnt/filler" bs=1M count="$fill_mb" status=none
sync
rm "$mnt/filler"
sync
umount "$mnt"
t1=$EPOCHREALTIME

mount -o loop,noinit_itable "$img" "$mnt"
counts=$(/usr/bin/python3 "$here/mkfiles.py" "$mnt" "$nfiles" "$secrm" \
	"$delfrac" "$mix" 8)
umount "$mnt"
t2=$EPOCHREALTIME

e2fsck -fn "$img" >/dev/null 2>&1 || {
	echo "bench: $name image is not clean after the build" >&2
	exit 8
}
alloc=$(du -k "$img" | cut -f1)
cat >"$meta" <<EOF
recipe=$recipe
size=$size
journal_bytes=$jbytes
block_size=$bsize
$(echo "$counts" | tr ' ' '\n')
build_journal_fill_s=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
build_files_s=$(awk "BEGIN{printf \"%.1f\", $t2 - $t1}")
build_total_s=$(awk "BEGIN{printf \"%.1f\", $t2 - $t0}")
allocated_kib=$alloc
built=$(date -u +%Y-%m-%dT%H:%MZ)
EOF
echo "bench: built $name in $(sed -n 's/^build_total_s=//p' "$meta") s: $counts"
