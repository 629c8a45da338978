# t_fc_replay.sh --- fast-commit replay against the kernel's own.
#
# Each case builds a crash image on a loop mount: mkfs with fast_commit,
# a directory and a few files made durable by a full commit (sync -f),
# then changes each made durable by fsync alone (fast commits), then
# "xfs_io -x -c shutdown" WITHOUT -f, so that the running transaction
# is never committed and the fast commits are all that holds the
# changes.  Copy K is mounted once by the kernel (the oracle: e2fsck
# 1.47.0 cannot replay kernel-made fast commits); copy B is recovered by
# e2secrm -y (jbd2 replay, then lib/journal/fc_replay.c through the overlay,
# written once every check has passed), after e2secrm -n has left it
# unchanged.  Names, types, sizes, contents (sha256), link counts and
# the data extents (with their unwritten flag) must be equal, and
# e2fsck -fn must find B clean.  The "secret" case deletes a +s file
# that only fast commits knew: its bytes must be gone after -y.
# Refusals are checked on fast-commit areas edited from a real one:
# -y and -n exit 8 with the same message and the image is untouched.
. "$(dirname "$0")/../lib.sh"

CASES="new append rm rename link trunc falloc many big nopending 4k
	replace unlink1 sparse secret"

skip_all() {
	for c in $CASES refuse-crc refuse-symlink; do
		skip "fc replay: $c" "$1"
	done
	exit 0
}

command -v xfs_io >/dev/null 2>&1 || skip_all "no xfs_io"
command -v python3 >/dev/null 2>&1 || skip_all "no python3"
why=$(can_loop_mount) || skip_all "loop mount unavailable: $why"
export DEBUGFS_PAGER=__none__ PAGER=cat
M="$T/mnt"

# --- building crash images ------------------------------------------------

# rnd FILE BYTES: random contents.
rnd() {
	head -c "$2" /dev/urandom >"$1"
}

fsync() {
	xfs_io -c fsync "$1"
}

ops_new() {
	for i in 1 2 3; do
		rnd "$M/d/f$i" $((i * 5000))
		fsync "$M/d/f$i"
	done
	: >"$M/d/empty"
	fsync "$M/d/empty"
}

ops_append() {
	head -c 9000 /dev/urandom >>"$M/d/big"
	fsync "$M/d/big"
	echo tail >>"$M/d/old"
	fsync "$M/d/old"
}

ops_rm() {
	rm "$M/d/victim"
	rnd "$M/d/n" 3000
	fsync "$M/d/n"
}

ops_rename() {
	mv "$M/d/old" "$M/d/renamed"
	fsync "$M/d/renamed"
	mv "$M/d/big" "$M/d2/moved"
	fsync "$M/d2/moved"
}

ops_link() {
	ln "$M/d/old" "$M/d/hl"
	ln "$M/d/big" "$M/d2/hl2"
	fsync "$M/d/hl"
	fsync "$M/d2/hl2"
}

ops_trunc() {
	truncate -s 5000 "$M/d/big"
	fsync "$M/d/big"
	truncate -s 100000 "$M/d/old"
	fsync "$M/d/old"
}

ops_falloc() {
	xfs_io -f -c "falloc 0 64k" -c fsync "$M/d/fa"
	xfs_io -f -c "falloc -k 0 32k" -c "pwrite 4k 4k" -c fsync \
		"$M/d/fk" >/dev/null
}

ops_many() {
	for i in $(seq 1 36); do
		rnd "$M/d/m$i" $((i * 1500 % 9000))
		fsync "$M/d/m$i"
	done
	rm "$M/d/victim"
	fsync "$M/d/m1"
}

ops_big() {
	rnd "$M/d/huge" 3000000
	fsync "$M/d/huge"
	head -c 700000 /dev/urandom >>"$M/d/huge"
	fsync "$M/d/huge"
}

# mv over an existing name: its inode loses its last link.
ops_replace() {
	rnd "$M/d/src" 7000
	fsync "$M/d/src"
	mv "$M/d/src" "$M/d/big"
	fsync "$M/d/big"
}

# One of two names removed, after the second was made durable.
ops_unlink1() {
	ln "$M/d/big" "$M/d/second"
	fsync "$M/d/second"
	rm "$M/d/big"
	fsync "$M/d/second"
}

# Writes into the holes of a sparse file, one fsync each.
ops_sparse() {
	xfs_io -f -c "pwrite 0 4k" -c "pwrite 200k 4k" -c fsync \
		"$M/d/sp" >/dev/null
	xfs_io -c "pwrite 100k 8k" -c fsync "$M/d/sp" >/dev/null
	xfs_io -c "pwrite 1k 2k" -c fsync "$M/d/big" >/dev/null
}

# The fast commits are followed by a full commit: the area's head is
# stale, and a change left uncommitted is lost on both sides.
ops_nopending() {
	rnd "$M/d/f1" 4000
	fsync "$M/d/f1"
	sync -f "$M"
	rnd "$M/d/lost" 4000
}

ops_secret() {
	: >"$M/d/sec"
	chattr +s "$M/d/sec"
	canary "$M/d/sec" "FC-SECRET-$$-token" 30000
	fsync "$M/d/sec"
	rm "$M/d/sec"
	rnd "$M/d/after" 3000
	fsync "$M/d/after"
}

ops_4k() {
	ops_many
	ops_append
}

# build IMG CASE [MKFS OPTIONS]
build() {
	img=$1 c=$2
	shift 2
	rm -f "$img"
	mkimg "$img" 64M -t ext4 -O fast_commit "$@" || return 1
	# No timed full commit (every 5 s by default, sooner under load)
	# may end the fast commits before the shutdown.
	kmount "$img" commit=600 || return 1
	mkdir "$M/d" "$M/d2"
	echo keep >"$M/d/old"
	rnd "$M/d/big" 20000
	echo victim >"$M/d/victim"
	sync -f "$M"
	"ops_$c"
	xfs_io -x -c shutdown "$M"
	kumount
}

# --- comparing ------------------------------------------------------------

# summary IMG OUT: what a user of the files sees, and the data extents.
summary() {
	d="$T/dump"
	rm -rf "$d"
	mkdir "$d"
	debugfs -R "rdump / $d" "$1" >/dev/null 2>&1
	(
		cd "$d" || exit 1
		find . -mindepth 1 ! -path './lost+found*' -printf '%p %y %s\n' |
			sort
		find . -type f ! -path './lost+found*' | sort |
			while read -r p; do
				sha256sum "$p"
			done
	) >"$2"
	(cd "$d" && find . -type f ! -path './lost+found*' | sort) |
		sed 's|^\.||' | while read -r p; do
			echo "stat $p"
			echo "ex $p"
		done >"$T/cmds"
	debugfs -f "$T/cmds" "$1" 2>/dev/null | awk '
		/^debugfs: stat/ { print $3 }
		/^Inode:/ { print "ino", $2 }
		/^Links:/ { print "links", $2 }
		/^ *[0-9]+\/ *[0-9]+ / {
			l = $1; sub("/", "", l)
			if (l == $2) {
				$1 = $2 = $3 = $4 = ""
				print "extent", $0
			}
		}' >>"$2"
	rm -rf "$d"
}

fc_case() {
	c=$1
	shift
	img="$T/$c.img"
	# The kernel may end the fast commits with a full commit of its own
	# (a busy machine, an operation it cannot fast-commit that time):
	# the image is then made again, up to three times.
	try=0
	while :; do
		if ! build "$img" "$c" "$@"; then
			fail "fc replay: $c" "could not build the crash image"
			kumount 2>/dev/null
			return
		fi
		"$E2SECRM" -n "$img" >"$T/scan" 2>&1
		tags=$(sed -n 's/.*fast commits\{0,1\} (\([0-9]*\) tags).*/\1/p' \
			"$T/scan")
		try=$((try + 1))
		{ [ "$c" = nopending ] || [ -n "$tags" ] || [ "$try" -ge 3 ]; } &&
			break
	done
	if [ "$c" = nopending ]; then
		if [ -n "$tags" ]; then
			fail "fc replay: $c" "scan found $tags tags: $(cat "$T/scan")"
			return
		fi
		tags=0
	elif [ -z "$tags" ]; then
		fail "fc replay: $c" "no fast commit pending: $(cat "$T/scan")"
		return
	fi
	cp "$img" "$T/K.img"
	cp "$img" "$T/B.img"
	kmount "$T/K.img" && kumount
	if [ "$(sha "$img")" != "$(sha "$T/B.img")" ]; then
		fail "fc replay: $c" "e2secrm -n wrote"
		return
	fi
	"$E2SECRM" -y "$T/B.img" >"$T/drv" 2>&1
	rc=$?
	if [ $((rc & 8)) != 0 ]; then
		fail "fc replay: $c" "e2secrm -y exit $rc: $(tail -2 "$T/drv")"
		return
	fi
	if [ "$c" = secret ] &&
	   [ "$(count "FC-SECRET-$$-token" "$T/B.img")" != 0 ]; then
		fail "fc replay: $c" "the secret is still in the image"
		return
	fi
	summary "$T/K.img" "$T/K.sum"
	summary "$T/B.img" "$T/B.sum"
	if ! e2fsck -fn "$T/B.img" >"$T/fsck" 2>&1; then
		fail "fc replay: $c" "e2fsck -fn: $(tail -4 "$T/fsck")"
	elif ! diff "$T/K.sum" "$T/B.sum" >"$T/diff"; then
		fail "fc replay: $c" "differs from the kernel: $(head -8 "$T/diff")"
	elif [ "$(grep -c '^extent' "$T/B.sum")" -lt 1 ]; then
		fail "fc replay: $c" "nothing compared"
	else
		pass "fc replay: $c ($tags tags, files equal the kernel's, fsck clean)"
	fi
}

for c in $CASES; do
	case $c in
	4k)	fc_case 4k -b 4096 ;;
	*)	fc_case "$c" -b 1024 ;;
	esac
done

# --- refusals ---------------------------------------------------------------

# fcmut IMG MODE: edit the first fast-commit block of IMG.
#  crc: spoil the first add_range (the tail's crc no longer matches);
#  symlink: the first inode tag becomes a symlink, the crc made right.
fcmut() {
	# The kernel's j_fc_first: one past the end of the log area.
	jb=$(dumpe2fs -h "$1" 2>/dev/null |
		sed -n 's/^Total journal blocks: *//p')
	fcl=$(dumpe2fs -h "$1" 2>/dev/null |
		sed -n 's/^Fast commit length: *//p')
	first=$((jb - fcl + 1))
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	phys=$(debugfs -R "bmap <8> $first" "$1" 2>/dev/null)
	[ -n "$first" ] && [ -n "$bs" ] && [ -n "$phys" ] || return 1
	python3 - "$1" "$bs" "$phys" "$2" <<'EOF'
import struct, sys
img, bs, phys, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def crc32c(crc, data):
    for b in data:
        crc = T[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc
with open(img, 'r+b') as f:
    f.seek(phys * bs)
    b = bytearray(f.read(bs))
    off, crc, done = 0, 0, False
    while off + 4 <= bs:
        tag, ln = struct.unpack_from('<HH', b, off)
        if not done and mode == 'symlink' and tag == 6:
            struct.pack_into('<H', b, off + 8, 0xA1FF)
            done = True
        if not done and mode == 'crc' and tag == 1:
            b[off + 8] ^= 0xff
            done = True
        if tag == 8:
            crc = crc32c(crc, b[off:off + 8])
            if mode == 'symlink':
                struct.pack_into('<I', b, off + 8, crc)
            break
        crc = crc32c(crc, b[off:off + 4 + ln])
        off += 4 + ln
    if not done:
        sys.exit(1)
    f.seek(phys * bs)
    f.write(b)
EOF
}

refuse_case() {
	mode=$1
	img="$T/r-$mode.img"
	# The kernel now and then ends the fast commits with a full one
	# (an ineligible operation, memory pressure): build again, twice.
	tries=0
	until build "$img" new -b 1024 && fcmut "$img" "$mode"; do
		tries=$((tries + 1))
		if [ "$tries" -ge 3 ]; then
			fail "fc replay: refuse-$mode" \
				"could not build the image (3 tries)"
			return
		fi
	done
	before=$(sha "$img")
	"$E2SECRM" -n "$img" >/dev/null 2>"$T/n.err"
	nrc=$?
	"$E2SECRM" -y "$img" >/dev/null 2>"$T/drv"
	rc=$?
	after=$(sha "$img")
	if [ $((rc & 8)) != 0 ] && [ $((nrc & 8)) != 0 ] &&
	   [ "$before" = "$after" ] && grep -q "$2" "$T/drv" &&
	   cmp -s "$T/n.err" "$T/drv"; then
		pass "fc replay: refuse-$mode (-y and -n exit 8, image untouched)"
	else
		fail "fc replay: refuse-$mode" "rc=$rc/$nrc, changed=$([ "$before" = "$after" ] && echo no || echo yes): $(tail -2 "$T/drv")"
	fi
}

# The kernel refuses these too: "JBD2: journal recovery failed".
refuse_case crc "would refuse to recover"
# The kernel would keep the on-disk i_block: a symlink without a target.
refuse_case symlink "cannot replay faithfully"
