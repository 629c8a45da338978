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
