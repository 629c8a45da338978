# t_livemap.sh --- "free" is proven twice (DESIGN.md, safety rule 7).
#
# Images whose bitmaps lie about what is in use: a BLOCK_UNINIT group
# holding a live file's data, indirect blocks and an htree directory (a);
# a live file's data, extent leaf or indirect block cleared with freeb
# (b); an inode bit cleared while a directory still names it (c); a
# replayed journal transaction that writes stale or zeroed bitmaps (d).
# Each is run in every mode (-n, -y, -y -f, -y --all-free, -y
# --free-inodes, -y --sanitize) on a fresh copy, and every run must
# refuse: exit bit 8, stderr naming the disagreement, the image
# byte-identical.  (d) with -y is expected to fail while the replay is
# written before the checks run (open.c; the replay is to move after
# them).  Then a healthy kernel-made image with many files (e): every
# mode runs as usual, -n writes nothing, every live file reads back
# bit-exact and e2fsck -fn is clean.
. "$(dirname "$0")/../lib.sh"

MODES="n y yf all inodes sanitize"

# mode_args M: the options of mode M.
mode_args() {
	case $1 in
	n)		printf '%s\n' "-n" ;;
	y)		printf '%s\n' "-y" ;;
	yf)		printf '%s\n' "-y -f" ;;
	all)		printf '%s\n' "-y --all-free" ;;
	inodes)		printf '%s\n' "-y --free-inodes" ;;
	sanitize)	printf '%s\n' "-y --sanitize" ;;
	esac
}

# refused NAME IMG PATTERN: every mode refuses IMG, saying PATTERN.
refused() {
	r_name=$1 r_img=$2 r_pat=$3
	if [ ! -s "$r_img" ]; then
		fail "livemap: $r_name" "image not built"
		return
	fi
	r_sha=$(sha "$r_img")
	for m in $MODES; do
		cp "$r_img" "$T/run.img"
		# shellcheck disable=SC2046
		run_e2secrm $(mode_args "$m") "$T/run.img" </dev/null
		if [ $((rc & 8)) = 0 ]; then
			fail "livemap: $r_name ($(mode_args "$m"))" \
				"exit $rc, want bit 8; $(echo "$out" | tail -1)"
		elif ! printf '%s\n' "$err" | grep -q -e "$r_pat"; then
			fail "livemap: $r_name ($(mode_args "$m"))" \
				"stderr does not say /$r_pat/: $err"
		elif [ "$(sha "$T/run.img")" != "$r_sha" ]; then
			fail "livemap: $r_name ($(mode_args "$m"))" \
				"refused (exit $rc) but the image changed"
		else
			pass "livemap: $r_name ($(mode_args "$m"))"
		fi
	done
}

printf 'KEEP-%s-%.0s' $$ $(seq 400) | head -c 5000 >"$T/keep"
printf 'INDKEEP-%.0s' $(seq 40000) | head -c 300000 >"$T/ind"
head -c 9000000 /dev/urandom >"$T/filler"

# inode_of IMG PATH / bmap IMG PATH LBLK
inode_of() {
	debugfs -R "stat $2" "$1" 2>/dev/null |
		sed -n 's/^Inode: \([0-9]*\).*/\1/p'
}
bmap() {
	debugfs -R "bmap $2 $3" "$1" 2>/dev/null
}

# --- (a) a BLOCK_UNINIT group with live blocks ---------------------------
# 1k blocks, 8192 a group, no flex_bg: a filler fills group 0, so that an
# ext3-style file (IND, DIND) and a directory of 300 names (made an htree
# by e2fsck -D) go to group 1; the filler goes, and group 1 is flagged
# BLOCK_UNINIT with a valid descriptor checksum.  libext2fs then computes
# its bitmap: only its metadata in use.
A=$T/a.img
mkimg "$A" 32M -t ext4 -b 1024 -O ^extent,^flex_bg,^64bit
{
	echo "write $T/filler filler"
	echo "write $T/ind ind"
	echo "mkdir big"
	i=0
	while [ $i -lt 300 ]; do
		echo "write $T/keep big/name-with-some-length-$i"
		i=$((i + 1))
	done
	echo "rm filler"
} | dfs "$A"
e2fsck -fyD "$A" >/dev/null 2>&1
ind1=$(debugfs -R "stat ind" "$A" 2>/dev/null |
	sed -n 's/.*(IND):\([0-9]*\).*/\1/p' | head -1)
big0=$(bmap "$A" big 0)
flags=$(dumpe2fs "$A" 2>/dev/null | sed -n 's/^Group 1: .*\[\(.*\)\].*/\1/p')
f=2
case $flags in *INODE_UNINIT*) f=$((f | 1)) ;; esac
case $flags in *ITABLE_ZEROED*) f=$((f | 4)) ;; esac
printf 'set_bg 1 flags %s\nset_bg 1 checksum calc\n' "$f" | dfs "$A"
if [ -z "$ind1" ] || [ "$ind1" -le 8192 ] || [ "$big0" -le 8192 ] ||
   [ "$ind1" -gt 16384 ] ||
   ! debugfs -R "htree big" "$A" 2>/dev/null | grep -q "Root node" ||
   ! dumpe2fs "$A" 2>/dev/null | grep -q '^Group 1: .*BLOCK_UNINIT'; then
	fail "livemap: BLOCK_UNINIT corpus" \
		"IND $ind1, dir block $big0 not in group 1, no htree or flag"
	: >"$A"
fi
refused "BLOCK_UNINIT group holding live IND, data and an htree" "$A" \
	"block [0-9]* of inode [0-9]* is marked free"

# --- (b) freeb on live blocks ----------------------------------------------
# No metadata_csum: nothing but the bitmap is wrong.  "frag" has a
# depth-1 extent tree (fragmented over the holes of removed files).
B=$T/b.img
mkimg "$B" 16M -t ext4 -b 1024 -O ^metadata_csum
head -c 1024 /dev/urandom >"$T/one"
{
	echo "write $T/keep keep"
	i=1
	while [ $i -le 120 ]; do echo "write $T/one f$i"; i=$((i + 1)); done
	i=1
	while [ $i -le 120 ]; do echo "rm f$i"; i=$((i + 2)); done
	echo "write $T/ind frag"
} | dfs "$B"
leaf=$(debugfs -R "ex frag" "$B" 2>/dev/null |
	awk '$1 == "0/" && $2 == "1" { print $8; exit }')
cp "$B" "$T/b1.img"
kb=$(bmap "$B" keep 1)
echo "freeb $kb" | dfs "$T/b1.img"
refused "live data block marked free" "$T/b1.img" \
	"block $kb of inode 12 is marked free"
cp "$B" "$T/b2.img"
if [ -n "$leaf" ]; then
	echo "freeb $leaf" | dfs "$T/b2.img"
else
	fail "livemap: extent leaf corpus" "frag has no depth-1 tree"
	: >"$T/b2.img"
fi
refused "live extent leaf block marked free" "$T/b2.img" \
	"block $leaf of inode [0-9]* is marked free"
B3=$T/b3.img
mkimg "$B3" 16M -t ext3 -b 1024
echo "write $T/ind ind" | dfs "$B3"
ind3=$(debugfs -R "stat ind" "$B3" 2>/dev/null |
	sed -n 's/.*(IND):\([0-9]*\).*/\1/p' | head -1)
if [ -n "$ind3" ]; then
	echo "freeb $ind3" | dfs "$B3"
else
	fail "livemap: indirect corpus" "no IND block"
	: >"$B3"
fi
refused "live indirect block marked free (ext3)" "$B3" \
	"block $ind3 of inode [0-9]* is marked free"

# --- (c) freei on named inodes -----------------------------------------
C=$T/c.img
mkimg "$C" 16M -t ext4 -b 1024
printf 'write %s keep\nwrite %s lost+found/found\n' "$T/keep" "$T/keep" |
	dfs "$C"
cino=$(inode_of "$C" lost+found/found)
cp "$C" "$T/c1.img"
echo "freei lost+found/found" | dfs "$T/c1.img"
refused "file in lost+found marked free" "$T/c1.img" \
	"inode $cino named by directory 11 is marked free"
cp "$C" "$T/c2.img"
echo "freei lost+found" | dfs "$T/c2.img"
refused "lost+found marked free" "$T/c2.img" \
	"inode 11 named by directory 2 is marked free"
# An unnamed record with links whose bit is clear: e2fsck keeps it and
# reconnects it.  The modes that write free space or free records refuse;
# the others leave it, its record and its blocks as they were.
cp "$C" "$T/c3.img"
printf 'unlink lost+found/found\nfreei <%s>\n' "$cino" | dfs "$T/c3.img"
for b in $(debugfs -R "blocks <$cino>" "$T/c3.img" 2>/dev/null); do
	echo "freeb $b"
done | dfs "$T/c3.img"
MODES="all inodes sanitize" refused "unnamed record with links, bit clear" \
	"$T/c3.img" "inode $cino is linked but free in the inode bitmap"
before=$(debugfs -R "cat <$cino>" "$T/c3.img" 2>/dev/null | sha256sum)
for m in n y yf; do
	cp "$T/c3.img" "$T/run.img"
	# shellcheck disable=SC2046
	run_e2secrm $(mode_args "$m") "$T/run.img" </dev/null
	after=$(debugfs -R "cat <$cino>" "$T/run.img" 2>/dev/null | sha256sum)
	if [ $((rc & 8)) != 0 ] || [ "$after" != "$before" ]; then
		fail "livemap: unnamed record with links ($(mode_args "$m"))" \
			"exit $rc, contents kept: $([ "$after" = "$before" ] &&
			echo yes || echo no)"
	else
		pass "livemap: unnamed record with links ($(mode_args "$m"))"
	fi
done

# A deleted +s file, and a record with links whose bit is clear mapping
# the same blocks (a copy of its record: the bitmap lost the file that
# had them since).  e2fsck would give them to that record: every mode
# refuses to wipe them.
E=$T/e.img
mkimg "$E" 16M -t ext4 -b 1024
printf 'write %s keep\nwrite %s sec\nsif sec flags 0x80001\n' \
	"$T/keep" "$T/keep" | dfs "$E"
# The other record: one e2fsck reads (below the group's unused mark).
printf 'write %s other\nrm other\n' "$T/keep" | dfs "$E"
eino=$(inode_of "$E" sec)
bino=$((eino + 1))
eblocks=$(debugfs -R "blocks sec" "$E" 2>/dev/null)
{
	echo "unlink sec"
	echo "copy_inode <$eino> <$bino>"
	echo "sif <$eino> links_count 0"
	echo "sif <$eino> dtime 1700000000"
	echo "freei <$eino>"
	for b in $eblocks; do echo "freeb $b"; done
} | dfs "$E"
refused "deleted +s blocks a linked free record maps" "$E" \
	"inode $bino is linked but free\\|linked but free in the inode bitmap, as inode $bino"

# --- (d) a replayed transaction writes the bitmaps -------------------------
# The bitmaps as mke2fs left them (stale: the files made since are not in
# them), or zeros, logged to group 0's bitmap blocks; needs_recovery.
D=$T/d.img
mkimg "$D" 16M -t ext4 -b 1024 -O ^metadata_csum
# bitmap_at KIND IMG: group 0's Block or Inode bitmap block.
bitmap_at() {
	dumpe2fs "$2" 2>/dev/null |
		sed -n "s/.*$1 bitmap at \([0-9]*\).*/\1/p" | head -1
}
bb=$(bitmap_at Block "$D")
ib=$(bitmap_at Inode "$D")
{
	dd if="$D" bs=1024 skip="$bb" count=1 2>/dev/null
	dd if="$D" bs=1024 skip="$ib" count=1 2>/dev/null
} >"$T/stale"
head -c 2048 /dev/zero >"$T/zeros"
printf 'write %s keep\nmkdir d\nwrite %s d/k\n' "$T/keep" "$T/keep" | dfs "$D"
cp "$D" "$T/d1.img"
printf 'jo\njw -b %s,%s %s\njc\n' "$bb" "$ib" "$T/stale" | dfs "$T/d1.img"
cp "$D" "$T/d2.img"
printf 'jo\njw -b %s,%s %s\njc\n' "$bb" "$ib" "$T/zeros" | dfs "$T/d2.img"
for d in d1 d2; do
	if ! dumpe2fs -h "$T/$d.img" 2>/dev/null | grep -q needs_recovery; then
		fail "livemap: replay corpus $d" "no transaction to replay"
		: >"$T/$d.img"
	fi
done
refused "replay writes stale bitmaps" "$T/d1.img" "is marked free"
refused "replay writes zeroed bitmaps" "$T/d2.img" "is marked free"

# --- (e) a healthy image with many files: nothing live changes -----------
if ! why=$(can_loop_mount); then
	skip "livemap: healthy kernel-made image" "$why"
	exit 0
fi
E=$T/e.img
mkimg "$E" 64M -t ext4 -b 1024
kmount "$E" || { fail "livemap: healthy image" "mount failed"; exit 0; }
python3 "$(dirname "$0")/../bench/mkfiles.py" "$T/mnt" 1500 0.10 0.30 \
	mixed 7 >/dev/null
mkdir "$T/mnt/wide"
i=0
while [ $i -lt 600 ]; do
	: >"$T/mnt/wide/an-entry-with-a-long-name-$i"
	i=$((i + 1))
done
fallocate -l 2M "$T/mnt/prealloc"
ln -s short "$T/mnt/fast-link"
ln -s "$(printf 'long/%.0s' $(seq 40))" "$T/mnt/slow-link"
cp "$T/keep" "$T/mnt/keep"
ln "$T/mnt/keep" "$T/mnt/keep-link"
setfattr -n user.big -v "$(head -c 900 /dev/zero | tr '\0' x)" \
	"$T/mnt/keep" 2>/dev/null
kumount
if ! e2fsck -fn "$E" >/dev/null 2>&1; then
	fail "livemap: healthy image" "not clean after the build"
	exit 0
fi
mkdir "$T/tree0"
debugfs -R "rdump / $T/tree0" "$E" >/dev/null 2>&1
e_sha=$(sha "$E")
for m in $MODES; do
	cp "$E" "$T/run.img"
	# shellcheck disable=SC2046
	run_e2secrm $(mode_args "$m") "$T/run.img" </dev/null
	name="livemap: healthy image ($(mode_args "$m"))"
	case $m:$rc in
	n:0|n:4|[!n]*:0|[!n]*:1|[!n]*:4|[!n]*:5)
		;;
	*)	fail "$name" "exit $rc: $err"
		continue ;;
	esac
	if [ $m = n ]; then
		if [ "$(sha "$T/run.img")" = "$e_sha" ]; then
			pass "$name"
		else
			fail "$name" "-n changed the image"
		fi
		continue
	fi
	if ! e2fsck -fn "$T/run.img" >"$T/fsck" 2>&1; then
		fail "$name" "e2fsck -fn: $(grep -v '^e2fsck\|^Pass\|^$' \
			"$T/fsck" | head -3 | tr '\n' ' ')"
		continue
	fi
	rm -rf "$T/tree1"
	mkdir "$T/tree1"
	debugfs -R "rdump / $T/tree1" "$T/run.img" >/dev/null 2>&1
	if ! diff -r --no-dereference "$T/tree0" "$T/tree1" \
	     >/dev/null 2>&1; then
		fail "$name" "live files differ: $(diff -rq --no-dereference \
			"$T/tree0" "$T/tree1" 2>&1 | head -2 | tr '\n' ' ')"
		continue
	fi
	pass "$name"
done
