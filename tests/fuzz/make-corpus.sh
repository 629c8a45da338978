#!/bin/sh
# make-corpus.sh --- regenerate the seed corpora of the jbd2 fuzz targets.
#
# Owns tests/fuzz/corpus/: journals written by debugfs (jo/jw/jc) into
# unmounted images made by mke2fs, cut into the superblock and the
# descriptor, revoke and commit blocks logdump shows.  fuzz_jsb seeds are
# the superblock's first 1024 bytes, alone or followed by one block;
# fuzz_jblock seeds are the 24-byte configuration header fuzz_jblock.c
# describes (the image's own journal features, uuid and sequence, so the
# real block checksums hold) followed by one block.  Trailing zero bytes
# are cut: both harnesses pad with zeros.  Run from anywhere; it needs
# mke2fs, debugfs, dd, od and perl.
#
# The whole-image targets (fuzz_image, fuzz_histmap, fuzz_dirent) get
# 2 MiB images of 1 KiB blocks in fuzz_img.c's chunk format (each
# non-zero block: its number, little-endian 16 bits, then its bytes):
# ext4 and ext3 with a secure-delete file whose map is an extent tree of
# depth 1 or an indirect map, deleted with debugfs' rm (the map stays),
# its name left in the directory's slack, and a journal transaction
# holding the inode table, directory and tree or indirect blocks from
# before the delete, checkpointed (s_start 0) or, in one variant, still
# to recover; a second +s file stays live.  fuzz_fcreplay's and one of
# fuzz_livemap's seeds are made by the kernel on a loop mount (below).
#
# Copyright (C) 2026 The e2secrm authors.
# This file may be redistributed under the terms of the GNU General Public
# License, version 2.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

mkdir -p "$out/fuzz_jsb" "$out/fuzz_jblock"
head -c 12288 /dev/zero | tr '\0' 'D' >"$tmp/data"

# be32 FILE OFFSET
be32() {
	printf '%d' "0x$(od -An -tx1 -j "$2" -N 4 "$1" | tr -d ' \n')"
}

# strip FILE: drop trailing zero bytes.
strip() {
	perl -0777 -pi -e 's/\0+\z//' "$1"
}

# jblock IMG BS LBLK DEST: journal block LBLK of IMG's journal to DEST.
jblock() {
	pblk=$(debugfs -R "bmap <8> $3" "$1" 2>/dev/null)
	dd if="$1" of="$4" bs="$2" skip="$pblk" count=1 2>/dev/null
}

# header JSB BS DEST: fuzz_jblock's configuration header for JSB.
header() {
	inc=$(be32 "$1" 40)
	cmp=$(be32 "$1" 36)
	c=0
	[ "$(be32 "$1" 4)" = 3 ] && c=1
	c=$((c | (inc & 1) << 1 | (inc & 2) << 1 | (inc & 8) | (inc & 16)))
	c=$((c | (inc & 32)))
	[ "$2" = 4096 ] && c=$((c | 64))
	[ $((cmp & 1)) = 1 ] && c=$((c | 128))
	fc=$(($(be32 "$1" 84) & 255))
	st=0
	[ "$(be32 "$1" 28)" != 0 ] && st=4
	printf "$(printf '\\%03o\\%03o\\%03o\\000' $c $fc $st)" >"$3"
	dd if="$1" bs=1 skip=48 count=16 2>/dev/null >>"$3"
	dd if="$1" bs=1 skip=24 count=4 2>/dev/null >>"$3"
}

# variant SRC DEST OFFSET MASK: a copy of SRC with byte OFFSET xor MASK.
variant() {
	perl -0777 -pe \
		"substr(\$_, $3, 1) = chr(ord(substr(\$_, $3, 1)) ^ $4)" \
		"$1" >"$2"
}

# image NAME BS MKE2FS-OPTS JO-OPTS
image() {
	name=$1 bs=$2 img=$tmp/$1.img
	mke2fs -q -F $3 -b "$bs" "$img" 16M >/dev/null 2>&1
	printf '%s\n' "jo $4" "jw -b 100,200,300 $tmp/data" \
		"jw -r 400,401,402" "jc" "jo" "jw -b 500 $tmp/data" "jc" |
		debugfs -w -f - "$img" >/dev/null 2>&1
	jblock "$img" "$bs" 0 "$tmp/sb"
	dd if="$tmp/sb" of="$tmp/jsb" bs=1024 count=1 2>/dev/null
	cp "$tmp/jsb" "$out/fuzz_jsb/$name-sb"
	header "$tmp/jsb" "$bs" "$tmp/hdr"
	# Blocks as logdump -a places them for the script above.
	for b in 1:desc 5:commit 6:revoke 8:desc1; do
		jblock "$img" "$bs" "${b%%:*}" "$tmp/blk"
		strip "$tmp/blk"
		cat "$tmp/hdr" "$tmp/blk" >"$out/fuzz_jblock/$name-${b#*:}"
		cat "$tmp/jsb" "$tmp/blk" >"$out/fuzz_jsb/$name-sb-${b#*:}"
	done
}

image ext4-4k-csum3 4096 "-t ext4 -O metadata_csum" "-c"
image ext4-1k-csum3 1024 "-t ext4 -O metadata_csum" "-c"
image ext4-1k-plain 1024 "-t ext4 -O ^metadata_csum" ""
image ext3-1k 1024 "-t ext3" ""
image ext4-4k-fc 4096 "-t ext4 -O fast_commit,^metadata_csum" ""

# What debugfs does not write: the FAST_COMMIT bit (mke2fs only sets
# s_num_fc_blks), and, for fuzz_jblock, CSUM_V2, v1 and COMPAT_CHECKSUM.
jsb=$out/fuzz_jsb jbl=$out/fuzz_jblock
variant "$jsb/ext4-4k-fc-sb" "$jsb/ext4-4k-fc-sb-fcbit" 43 32
variant "$jbl/ext4-4k-fc-desc" "$jbl/ext4-4k-fc-desc-fcbit" 0 32
variant "$jbl/ext4-1k-csum3-desc" "$jbl/ext4-1k-csum2-desc" 0 24
variant "$jbl/ext4-1k-csum3-revoke" "$jbl/ext4-1k-csum2-revoke" 0 24
variant "$jbl/ext3-1k-desc" "$jbl/ext3-1k-v1-desc" 0 1
variant "$jbl/ext3-1k-commit" "$jbl/ext3-1k-compat-csum-commit" 0 128

# chunks IMG DEST: IMG's non-zero 1 KiB blocks in fuzz_img.c's format.
chunks() {
	perl -e 'open(my $f, "<", $ARGV[0]) or die; binmode $f; my $b = 0;
		while (read($f, my $d, 1024) == 1024) {
			print pack("v", $b), $d if $d =~ /[^\0]/; $b++ }' \
		"$1" >"$2"
}

# fsimage NAME MKE2FS-OPTS RECOVER FLAGS: the secure-delete scene above;
# FLAGS are the files' i_flags with secure-delete (0x1) added.
fsimage() {
	img=$tmp/$1.img
	mke2fs -q -F $2 -b 1024 -N 64 -O ^resize_inode "$img" 2M \
		>/dev/null 2>&1
	{
		echo "mkdir d"
		for i in 0 1 2 3 4 5 6 7 8 9; do
			echo "write $tmp/small d/f$i"
		done
		for i in 1 3 5 7 9; do echo "rm d/f$i"; done
		echo "write $tmp/big d/secret_file"
		echo "sif d/secret_file flags $4"
		echo "write $tmp/small d/keep"
		echo "write $tmp/small d/live_secret"
		echo "sif d/live_secret flags $4"
	} | debugfs -w -f - "$img" >/dev/null 2>&1
	itb=$(debugfs -R "imap d/secret_file" "$img" 2>/dev/null |
	      sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
	dirb=$(debugfs -R "bmap d 0" "$img" 2>/dev/null)
	# The first tree or indirect block: ETB0 or IND in stat's list.
	mapb=$(debugfs -R "stat d/secret_file" "$img" 2>/dev/null |
	       sed -n 's/.*(\(ETB0\|IND\)):\([0-9]*\).*/\2/p')
	: >"$tmp/copies"
	for b in $itb $dirb $mapb; do
		dd if="$img" bs=1024 skip="$b" count=1 2>/dev/null \
			>>"$tmp/copies"
	done
	printf '%s\n' "rm d/secret_file" "rm d/f0" "jo" \
		"jw -b $itb,$dirb,$mapb $tmp/copies" "jc" |
		debugfs -w -f - "$img" >/dev/null 2>&1
	# As after a checkpoint: the log says empty, the copies stay.
	if [ "$3" != recover ]; then
		debugfs -w -R "feature -needs_recovery" "$img" \
			>/dev/null 2>&1
		jsb=$(debugfs -R "bmap <8> 0" "$img" 2>/dev/null)
		printf '\0\0\0\0' | dd of="$img" bs=1 \
			seek=$((jsb * 1024 + 28)) conv=notrunc 2>/dev/null
	fi
	for t in fuzz_image fuzz_histmap fuzz_dirent; do
		chunks "$img" "$out/$t/$1"
	done
}

mkdir -p "$out/fuzz_image" "$out/fuzz_histmap" "$out/fuzz_dirent"
head -c 1024 /dev/zero | tr '\0' 'S' >"$tmp/small"
head -c 20480 /dev/zero | tr '\0' 'B' >"$tmp/big"
fsimage ext4-csum "-t ext4 -O metadata_csum" "" 0x80001
fsimage ext4-plain "-t ext4 -O ^metadata_csum" "" 0x80001
fsimage ext3-ind "-t ext3" "" 0x1
fsimage ext4-recover "-t ext4 -O metadata_csum" recover 0x80001
fsimage ext2-nojournal "-t ext2" "" 0x1

# An orphan list to release: a +s file deleted while open (links 0) and,
# next on the list, a +s file being truncated (links 1, size below its
# blocks), on a 3 MiB ext4 with a 1024-block journal for the release's
# transaction.
orphimage() {
	img=$tmp/$1.img
	mke2fs -q -F -t ext4 -b 1024 -N 64 -O ^resize_inode -J size=1 \
		"$img" 3M >/dev/null 2>&1
	printf '%s\n' "mkdir d" "write $tmp/small d/keep" \
		"write $tmp/big d/gone" "write $tmp/big d/cut" \
		"sif d/gone flags 0x80001" "sif d/cut flags 0x80001" |
		debugfs -w -f - "$img" >/dev/null 2>&1
	g=$(debugfs -R "stat d/gone" "$img" 2>/dev/null |
	    sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	c=$(debugfs -R "stat d/cut" "$img" 2>/dev/null |
	    sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	printf '%s\n' "unlink d/gone" "sif <$g> links_count 0" \
		"sif <$g> dtime $c" "sif <$c> size 3000" \
		"ssv last_orphan $g" |
		debugfs -w -f - "$img" >/dev/null 2>&1
	chunks "$img" "$out/fuzz_image/$1"
}
orphimage orphans-list

# fuzz_fcreplay: 3 MiB images of 1 KiB blocks with fast commits pending
# (the smallest a 1024-block journal with a fast-commit area fits in),
# made by the kernel on a loop mount (files made durable by fsync alone,
# then a shutdown that does not flush the log).  Needs root, loop
# devices and xfs_io; skipped, with a word, without them.
fcimage() {
	img=$tmp/$1.img mnt=$tmp/mnt
	mke2fs -q -F -t ext4 -b 1024 -N 64 -O fast_commit,^resize_inode \
		-J size=1 "$img" 3M >/dev/null 2>&1
	mkdir -p "$mnt"
	mount -o loop,commit=600 "$img" "$mnt" || return 1
	mkdir "$mnt/d"
	echo keep >"$mnt/d/old"
	head -c 6000 /dev/zero | tr '\0' 'V' >"$mnt/d/victim"
	sync -f "$mnt"
	case $1 in
	fc-new)
		for i in 1 2 3; do
			head -c $((i * 3000)) /dev/zero | tr '\0' 'N' \
				>"$mnt/d/f$i"
			xfs_io -c fsync "$mnt/d/f$i"
		done ;;
	fc-secret)
		: >"$mnt/d/sec"
		chattr +s "$mnt/d/sec"
		head -c 9000 /dev/zero | tr '\0' 'S' >"$mnt/d/sec"
		xfs_io -c fsync "$mnt/d/sec"
		rm "$mnt/d/sec"
		echo after >"$mnt/d/after"
		xfs_io -c fsync "$mnt/d/after" ;;
	fc-mixed)
		mv "$mnt/d/old" "$mnt/d/renamed"
		ln "$mnt/d/renamed" "$mnt/d/link"
		xfs_io -c fsync "$mnt/d/link"
		rm "$mnt/d/victim"
		xfs_io -f -c "falloc 0 8192" -c "pwrite 0 2048" \
			-c fsync "$mnt/d/pre" >/dev/null
		truncate -s 100 "$mnt/d/renamed"
		xfs_io -c fsync "$mnt/d/renamed" ;;
	esac
	xfs_io -x -c shutdown "$mnt"
	umount "$mnt"
	chunks "$img" "$out/fuzz_fcreplay/$1"
}

mkdir -p "$out/fuzz_fcreplay"
if [ "$(id -u)" = 0 ] && command -v xfs_io >/dev/null 2>&1; then
	for c in fc-new fc-secret fc-mixed; do
		fcimage "$c" || echo "make-corpus: $c: mount failed" >&2
	done
else
	echo "make-corpus: fuzz_fcreplay seeds need root and xfs_io" >&2
fi
# The other whole-image seeds hold no fast commit: they seed it too.
cp "$out/fuzz_image/ext4-recover" "$out/fuzz_fcreplay/"

# fuzz_livemap: the whole-image seeds, whose live files the oracle walks.
mkdir -p "$out/fuzz_livemap"
cp "$out/fuzz_image"/* "$out/fuzz_livemap/"

# And one the kernel makes with unwritten extents: a live +s file whose
# old bytes a zero-range and a keep-size preallocation leave in place
# (the default run zeroes them), beside a plain file preallocated past
# its end (only --all-free takes it; the input's last byte, 0x80 in a
# chunk laid past the filesystem, asks for that).  Needs root, loop
# devices and xfs_io, as the fast-commit seeds do.
unwrittenimage() {
	img=$tmp/unwritten.img mnt=$tmp/mnt
	mke2fs -q -F -t ext4 -b 1024 -N 64 -O ^resize_inode "$img" 2M \
		>/dev/null 2>&1
	mkdir -p "$mnt"
	mount -o loop,commit=600 "$img" "$mnt" || return 1
	: >"$mnt/sec"
	chattr +s "$mnt/sec"
	head -c 8192 /dev/zero | tr '\0' 'S' >"$mnt/sec"
	sync -f "$mnt"
	xfs_io -c "fzero 1024 2048" -c "falloc -k 8192 4096" -c fsync \
		"$mnt/sec" >/dev/null
	xfs_io -f -c "pwrite 0 1024" -c "falloc -k 1024 3072" -c fsync \
		"$mnt/plain" >/dev/null
	umount "$mnt"
	chunks "$img" "$out/fuzz_livemap/unwritten"
	# Block 4095 of the 4 MiB the harness lays out: past the 2 MiB.
	printf '\377\017\200' >>"$out/fuzz_livemap/unwritten"
}

if [ "$(id -u)" = 0 ] && command -v xfs_io >/dev/null 2>&1; then
	unwrittenimage || echo "make-corpus: unwritten: mount failed" >&2
else
	echo "make-corpus: the unwritten seed needs root and xfs_io" >&2
fi
