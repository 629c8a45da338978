# t_corrupt.sh --- a corpus of corrupt and hostile images.  Whatever the
# damage, e2secrm must never crash, hang, allocate without bound or write
# where it should not: it either runs correctly, or stops with one com_err
# line naming the device and exit 8, the image's sha256 unchanged.
#
# Every image of the corpus holds a deleted +s file (and a KEEP file), so
# that the engine really reaches the damaged structure.  Each case runs
# "e2secrm -n" and "e2secrm -y" on two copies, each under timeout 30, and
# is judged against one of these expectations:
#
#   refused  exit 8 from both, one stderr line naming the image, both
#            copies bit-exact;
#   normal   exit 0, 1, 4 or 5 (only 0 or 4 from -n), the -n copy exact,
#            the -y copy passes e2fsck -fn and KEEP reads back exact;
#   safe     each run either refused (as above) or ran (0, 1, 4, 5) with
#            KEEP exact and the case's protected bytes unchanged: for
#            damage inside what e2secrm must read, where both stopping
#            and skipping the damaged map are correct;
#   errors   a journal transaction whose commit fails its checksum: -n
#            bit-exact with exit 0 or 8; -y exit 0 or 8 (8: one line)
#            and, as e2fsck does, replays up to the bad commit.
#
# A status >= 124 is a failure (124 = timeout: "hang"; >= 128: a signal,
# "crash", for which a gdb backtrace is printed).  A table closes the run.
. "$(dirname "$0")/../lib.sh"

TABLE=$T/table
# The image every case damages; its name is fixed, so that the damage
# commands can name it in their arguments.
I=$T/case.img
: >"$TABLE"
LOOPS=
IMMUTABLE=
corrupt_cleanup() {
	[ -n "$IMMUTABLE" ] && chattr -i $IMMUTABLE 2>/dev/null
	if mountpoint -q "$T/mnt" 2>/dev/null; then
		umount "$T/mnt" 2>/dev/null
	fi
	for l in $LOOPS; do
		losetup -d "$l" 2>/dev/null
	done
	cleanup
}
trap corrupt_cleanup EXIT

# --- byte helpers --------------------------------------------------------

# be32s VALUE / le16s VALUE / le32s VALUE: the bytes on stdout.
be32s() {
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' \
		$(($1 >> 24 & 255)) $(($1 >> 16 & 255)) \
		$(($1 >> 8 & 255)) $(($1 & 255)))"
}
le16s() {
	printf "$(printf '\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)))"
}
le32s() {
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' \
		$(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# put IMG OFFSET: stdin written over the image at byte OFFSET.
put() {
	dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
be32() { be32s "$3" | put "$1" "$2"; }
le16() { le16s "$3" | put "$1" "$2"; }
le32() { le32s "$3" | put "$1" "$2"; }

# rd IMG OFFSET N: N bytes as one hex string.
rd() {
	od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'
}

bsize() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p'
}

# jphys L IMG: the physical block of journal block L.
jphys() {
	debugfs -R "bmap <8> $1" "$2" 2>/dev/null
}

# blksha IMG BLOCK BS: sha256 of one block.
blksha() {
	dd if="$1" bs="$3" skip="$2" count=1 2>/dev/null | sha256sum |
		cut -d' ' -f1
}

# --- the corpus' base images ----------------------------------------------

printf 'KEEP-%s-%.0s' $$ $(seq 300) | head -c 3000 >"$T/keep"
printf 'SECRET-%.0s' $(seq 800) | head -c 5000 >"$T/secret"
KEEPSHA=$(sha256sum <"$T/keep" | cut -d' ' -f1)

# base IMG FLAGS MKE2FS-OPTIONS...: a 16 MB image at 1k blocks with a live
# KEEP file and a deleted secure-delete file "sec" (inode 13).
base() {
	b_img=$1 b_flags=$2
	shift 2
	mkimg "$b_img" 16M -b 1024 "$@"
	dfs "$b_img" <<EOF
write $T/keep keep
write $T/secret sec
set_inode_field sec flags $b_flags
rm sec
EOF
}

# --- running one case -----------------------------------------------------

# run1 IMG ARGS...: e2secrm under timeout, stdin not a terminal; sets
# $rc $err.  On a crash, a backtrace from a fresh copy.
run1() {
	r_img=$1
	shift
	cp "$r_img" "$T/gdb.img" 2>/dev/null
	timeout 30 "$E2SECRM" "$@" "$r_img" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	err=$(cat "$T/err")
	if [ "$rc" -ge 128 ] && command -v gdb >/dev/null; then
		echo "    crash (status $rc): $E2SECRM $* $r_img"
		gdb -batch -ex run -ex bt --args "$E2SECRM" "$@" "$T/gdb.img" \
			</dev/null 2>&1 | tail -25 | sed 's/^/    gdb: /'
	fi
}

# verdict for one run: ok when refused properly.  Sets $why.
is_refusal() {
	# $1 rc, $2 image path, $3 err, $4 before-sha, $5 after-sha
	if [ "$1" != 8 ]; then
		why="exit $1, want 8"
	elif [ "$4" != "$5" ]; then
		why="exit 8 but the image changed"
	elif [ "$(printf '%s\n' "$3" | wc -l)" != 1 ] || [ -z "$3" ]; then
		why="$(printf '%s\n' "$3" | grep -c .) lines on stderr"
	elif ! printf '%s\n' "$3" | grep -q -F -- "$2"; then
		why="message does not name the image: $3"
	else
		return 0
	fi
	return 1
}

badstatus() {
	case $1 in
	124) echo "hang (timeout 30 s)" ;;
	*) [ "$1" -ge 128 ] && echo "crash (signal $(($1 - 128)))" ;;
	esac
}

keep_ok() {
	[ "$(debugfs -R 'cat keep' "$1" 2>/dev/null | sha256sum |
	     cut -d' ' -f1)" = "$KEEPSHA" ]
}

# PROTECT="BLOCK..." (with PROTECT_BS), optional: blocks that must read
# back the same after any run that did not refuse.
protected_ok() {
	for pb in $PROTECT; do
		[ "$(blksha "$1" "$pb" "$PROTECT_BS")" = \
		  "$(blksha "$2" "$pb" "$PROTECT_BS")" ] || return 1
	done
	return 0
}

# RESIDUE=TOKEN, optional: the deleted +s file's contents.  When a -y
# run leaves some of them on the device, it must say so: exit bit 4
# ("residues were found and left"), as for a map that is gone.
residue_ok() {
	[ -n "$RESIDUE" ] && [ "$1" = y ] || return 0
	left=$(count "$RESIDUE" "$3")
	if [ "$left" -gt 0 ] && [ $(($2 & 4)) = 0 ]; then
		why="exit $2 (no bit 4, no warning) yet grep -c finds $RESIDUE in $left places on the device"
		return 1
	fi
	return 0
}

# case_run NAME EXPECT IMG
case_run() {
	cname=$1 cexp=$2 cimg=$3
	N=$T/n.img Y=$T/y.img
	rm -f "$N" "$Y"
	cp "$cimg" "$N"
	cp "$cimg" "$Y"
	before=$(sha "$cimg")
	run1 "$N" -n
	rcn=$rc errn=$err
	shan=$(sha "$N")
	run1 "$Y" -y
	rcy=$rc erry=$err
	shay=$(sha "$Y")
	un_n=no un_y=no
	[ "$shan" = "$before" ] && un_n=yes
	[ "$shay" = "$before" ] && un_y=yes
	verdict=PASS why=
	for which in n y; do
		eval "r=\$rc$which e=\$err$which s=\$sha$which"
		img=$T/$which.img
		bs=$(badstatus "$r")
		if [ -n "$bs" ]; then
			verdict=FAIL why="-$which: $bs; stderr: $e"
			break
		fi
		case $cexp in
		refused)
			if ! is_refusal "$r" "$img" "$e" "$before" "$s"; then
				verdict=FAIL why="-$which: $why"
				break
			fi ;;
		normal)
			case "$which:$r" in
			n:0|n:4|y:0|y:1|y:4|y:5) ;;
			*)	verdict=FAIL why="-$which: exit $r, want 0, 1, 4 or 5; stderr: $e"
				break ;;
			esac
			if [ $which = n ] && [ "$s" != "$before" ]; then
				verdict=FAIL why="-n changed the image"
				break
			fi
			if [ $which = y ]; then
				e2fsck -fn "$img" >"$T/fsck" 2>&1
				frc=$?
				if [ "$frc" != 0 ]; then
					verdict=FAIL why="-y: e2fsck -fn exit $frc afterwards: $(grep -v '^e2fsck\|^Pass\|^$' "$T/fsck" | head -3 | tr '\n' ' ')"
					break
				fi
				if ! keep_ok "$img"; then
					verdict=FAIL why="-y: KEEP changed"
					break
				fi
				if ! residue_ok "$which" "$r" "$img"; then
					verdict=FAIL why="-y: $why"
					break
				fi
			fi ;;
		safe)
			case $r in
			8)	if ! is_refusal "$r" "$img" "$e" "$before" "$s"; then
					verdict=FAIL why="-$which: $why"
					break
				fi ;;
			0|1|4|5)
				if [ $which = n ] && { [ "$r" = 1 ] || [ "$r" = 5 ] ||
				   [ "$s" != "$before" ]; }; then
					verdict=FAIL why="-n: exit $r, image changed: $un_n"
					break
				fi
				if ! keep_ok "$img"; then
					verdict=FAIL why="-$which: KEEP changed"
					break
				fi
				if ! protected_ok "$cimg" "$img"; then
					verdict=FAIL why="-$which: exit $r and protected block(s) $PROTECT changed"
					break
				fi
				if ! residue_ok "$which" "$r" "$img"; then
					verdict=FAIL why="-y: $why"
					break
				fi ;;
			*)	verdict=FAIL why="-$which: exit $r; stderr: $e"
				break ;;
			esac ;;
		errors)
			case $which:$r in
			n:0|n:8|y:0|y:8) ;;
			*)	verdict=FAIL why="-$which: exit $r, want 0 or 8; stderr: $e"
				break ;;
			esac
			if [ $which = n ] && [ "$s" != "$before" ]; then
				verdict=FAIL why="-n changed the image"
				break
			fi
			if [ "$r" = 8 ] &&
			   [ "$(printf '%s\n' "$e" | grep -c .)" != 1 ]; then
				verdict=FAIL why="-$which: exit 8 with $(printf '%s\n' "$e" | grep -c .) stderr lines: $e"
				break
			fi
			if [ $which = y ] && [ -n "$ORACLE" ] &&
			   ! "$ORACLE" "$img"; then
				verdict=FAIL why="-y: $oracle_why"
				break
			fi ;;
		esac
	done
	printf '%s|%s|%s|%s|n:%s y:%s|%s\n' "$cname" "$cexp" "$rcn" "$rcy" \
		"$un_n" "$un_y" "$verdict" >>"$TABLE"
	if [ $verdict = PASS ]; then
		pass "corrupt: $cname (-n $rcn, -y $rcy)"
		[ "$rcy" = 8 ] && echo "    -y: $erry"
	else
		fail "corrupt: $cname" "$why"
		echo "    -n exit $rcn: $errn" | head -3
		echo "    -y exit $rcy: $erry" | head -3
	fi
	PROTECT= ORACLE= RESIDUE=
}

# A case whose corpus could not be built fails too, with the reason.
corpus_fail() {
	printf '%s|%s|-|-|-|FAIL (corpus)\n' "$1" "$2" >>"$TABLE"
	fail "corrupt: $1: corpus" "$3"
}

# ===========================================================================
# Journal cases.  J0: a base that needs recovery.  Transaction 1: a
# descriptor at journal block 1 (tags at 12: blocknr, csum, flags, high,
# 16-byte UUID after the first), data at 2-4, commit at 5.  Transaction
# 2: a revoke at 6 (r_count at 12), commit at 7.  Journal superblock:
# s_blocksize 12, s_maxlen 16, s_first 20, s_sequence 24, s_start 28.
# ===========================================================================

J0=$T/j0.img
base "$J0" 0x80001 -t ext4
head -c 3072 /dev/urandom >"$T/f3"
dfs "$J0" <<EOF
jo
jw -b 15000,15001,15002 $T/f3
jw -r 15010
jc
EOF
JB=$(bsize "$J0")
J0P=$(jphys 0 "$J0")
jo_=$((J0P * JB))
dsc=$(($(jphys 1 "$J0") * JB))
rvk=$(($(jphys 6 "$J0") * JB))
jmaxlen=$(dumpe2fs -h "$J0" 2>/dev/null | sed -n 's/^Total journal blocks: *//p')
jok=yes
if ! dumpe2fs -h "$J0" 2>/dev/null | grep -q 'needs_recovery' ||
   [ "$(rd "$J0" $((dsc + 4)) 4)" != 00000001 ] ||
   [ "$(rd "$J0" $((rvk + 4)) 4)" != 00000005 ] ||
   [ "$(rd "$J0" $((dsc + 12)) 4)" != "$(be32s 15000 | od -An -tx1 | tr -d ' \n')" ] ||
   ! dumpe2fs -h "$J0" 2>/dev/null | grep -q 'journal_64bit'; then
	jok=no
	corpus_fail "journal base" normal \
		"debugfs did not lay the journal out as expected"
fi

# The undamaged base itself: recovered, wiped, e2fsck clean.
[ $jok = yes ] && case_run "journal base (needs recovery, undamaged)" normal "$J0"

# jcase NAME EXPECT CMD...: a copy of J0 damaged by CMD (with $I set).
jcase() {
	jn=$1 je=$2
	shift 2
	[ $jok = yes ] || { corpus_fail "$jn" "$je" "no journal base"; return; }
	cp "$J0" "$I"
	"$@"
	case_run "$jn" "$je" "$I"
}

jsb_set() { be32 "$I" $((jo_ + $1)) "$2"; }

jcase "jsb: s_maxlen 0xffffffff" refused jsb_set 16 0xffffffff
jcase "jsb: s_maxlen twice the journal inode" refused jsb_set 16 $((jmaxlen * 2))
jcase "jsb: s_maxlen 0" refused jsb_set 16 0
jcase "jsb: s_first 0 (log over the jsb)" refused jsb_set 20 0
jcase "jsb: s_first past s_maxlen" refused jsb_set 20 $((jmaxlen + 7))
jcase "jsb: s_blocksize 0" refused jsb_set 12 0
jcase "jsb: s_blocksize 4096 on a 1k fs" refused jsb_set 12 4096
jcase "jsb: s_blocksize 0x40000000" refused jsb_set 12 0x40000000
jcase "jsb: s_start = s_maxlen (past the log)" refused jsb_set 28 "$jmaxlen"
jcase "jsb: s_start 0x7fffffff" refused jsb_set 28 0x7fffffff

tag_set() { be32 "$I" $((dsc + $1)) "$2"; }
jcase "tag: target past the fs end" refused tag_set 12 0x00ffffff
jcase "tag: target high word set" refused tag_set 20 1
jcase "tag: target is the journal's own block 3" refused \
	tag_set 52 $((J0P + 3))
jcase "tag: target is the jsb" refused tag_set 12 "$J0P"

# The tag list fills the block with no LAST_TAG: 83 tags of 12 bytes
# (the first with its UUID) are exactly 1012 bytes; 83 data blocks, then
# the commit.  A valid layout for jbd2, which replays it: normal run.
notag() {
	bs=$JB S=7
	{
		be32s 0xc03b3998; be32s 1; be32s $S
		i=0
		while [ $i -lt 83 ]; do
			be32s $((15100 + i))
			if [ $i = 0 ]; then
				# csum+flags, high, 16-byte UUID
				be32s 0; be32s 0; be32s 0; be32s 0; be32s 0; be32s 0
			else
				be32s 2; be32s 0	# csum 0, flags SAME_UUID
			fi
			i=$((i + 1))
		done
	} >"$T/desc"
	[ "$(wc -c <"$T/desc")" = "$bs" ] || return 1
	put "$I" $(($(jphys 1 "$I") * bs)) <"$T/desc"
	printf 'NOLASTTAG%.0s' $(seq 9500) | head -c $((83 * bs)) |
		put "$I" $(($(jphys 2 "$I") * bs))
	{ be32s 0xc03b3998; be32s 2; be32s $S; } | put "$I" $(($(jphys 85 "$I") * bs))
	head -c $bs /dev/zero | put "$I" $(($(jphys 86 "$I") * bs))
	jsb_set 24 $S
	jsb_set 28 1
}
jcase "descriptor: tags fill the block, no LAST_TAG" normal notag
# ... and replayed as e2fsck -E journal_only replays it: all 83 copies.
if [ $jok = yes ]; then
	cp "$I" "$T/o.img"
	e2fsck -y -E journal_only "$T/o.img" >/dev/null 2>&1
	got=$(dd if="$T/y.img" bs=1024 skip=15100 count=83 2>/dev/null | sha256sum)
	want=$(dd if="$T/o.img" bs=1024 skip=15100 count=83 2>/dev/null | sha256sum)
	if [ "$(blksha "$T/o.img" 15182 1024)" != \
	     "$(blksha "$I" "$(jphys 84 "$I")" 1024)" ]; then
		fail "corrupt: no LAST_TAG: replayed as e2fsck does: corpus" \
			"e2fsck did not replay the 83rd copy"
	elif [ "$got" = "$want" ]; then
		pass "corrupt: no LAST_TAG: replayed as e2fsck does (83 copies)"
	else
		fail "corrupt: no LAST_TAG: replayed as e2fsck does" \
			"fs blocks 15100-15182 differ from e2fsck's replay (rc -y $rcy)"
	fi
fi

# A log of descriptors: every block of the log a descriptor of the same
# sequence with one tag, no commit.  jbd2's scan would go round forever.
# $1: s_start (1: needs recovery; 0: a clean journal whose stale blocks
# are such a log, which the whole-ring walk reads).
loop_log() {
	bs=$JB S=9
	{
		be32s 0xc03b3998; be32s 1; be32s $S
		be32s 15000; be32s 10; be32s 0	# flags LAST_TAG|SAME_UUID
	} >"$T/ld"
	truncate -s "$bs" "$T/ld"
	n=1
	while [ $n -lt "$jmaxlen" ]; do
		cat "$T/ld" "$T/ld" >"$T/ld2" && mv "$T/ld2" "$T/ld"
		n=$((n * 2))
	done
	head -c $(((jmaxlen - 1) * bs)) "$T/ld" |
		put "$I" $(($(jphys 1 "$I") * bs))
	jsb_set 24 $S
	jsb_set 28 "$1"
	if [ "$1" = 0 ]; then
		echo "feature -needs_recovery" | dfs "$I"
	fi
}
jcase "log: every block a descriptor of one sequence, no commit" refused \
	loop_log 1
jcase "clean journal: stale log of looping descriptors" normal loop_log 0

jcase "revoke: r_count one entry past the block" refused \
	be32 "$I" $((rvk + 12)) $((JB + 8))
jcase "revoke: r_count 0xffffffff" refused be32 "$I" $((rvk + 12)) 0xffffffff
jcase "revoke: r_count 4 (below the header)" normal \
	be32 "$I" $((rvk + 12)) 4

# A clean journal (s_start 0) whose stale blocks are random.
garbage_log() {
	head -c $(((jmaxlen - 1) * JB)) /dev/urandom |
		put "$I" $(($(jphys 1 "$I") * JB))
	jsb_set 28 0
	echo "feature -needs_recovery" | dfs "$I"
}
jcase "clean journal: stale blocks random" normal garbage_log

# Garbage that passes the magic test: every stale block a descriptor
# header of a random sequence with random tags.
magic_garbage() {
	head -c $(((jmaxlen - 1) * JB)) /dev/urandom >"$T/g"
	l=1
	while [ $l -lt "$jmaxlen" ]; do
		{ be32s 0xc03b3998; be32s $((l % 5 + 1)); } |
			dd of="$T/g" bs=1 seek=$(((l - 1) * JB)) conv=notrunc \
			2>/dev/null
		l=$((l + 7))
	done
	put "$I" $(($(jphys 1 "$I") * JB)) <"$T/g"
	jsb_set 28 0
	echo "feature -needs_recovery" | dfs "$I"
}
jcase "clean journal: stale blocks random with jbd2 magic" normal magic_garbage

# csum v3: two transactions, the second's commit checksum wrong.  As
# e2fsck: transaction 1 replayed, the replay ends at the bad commit and
# the fs is marked with errors; e2secrm may then stop (8).
C0=$T/c0.img
base "$C0" 0x80001 -t ext4 -O metadata_csum
head -c 1024 /dev/urandom >"$T/g1"
head -c 1024 /dev/urandom >"$T/g2"
dfs "$C0" <<EOF
jo -c
jw -b 15000 $T/g1
jw -b 15001 $T/g2
jc
EOF
ccommit=$(debugfs -R logdump "$C0" 2>/dev/null | awk '
	$1 == "Found" && $4 == "2," && index($0, "commit") { print $NF; exit }')
if ! dumpe2fs -h "$C0" 2>/dev/null | grep -q 'journal_checksum_v3' ||
   [ -z "$ccommit" ]; then
	corpus_fail "csum v3: second commit checksum wrong" errors \
		"no csum v3 journal with a second commit"
else
	cp "$C0" "$I"
	p=$(($(jphys "$ccommit" "$I") * JB + 16))
	be32 "$I" "$p" $((0x$(rd "$I" "$p" 4) ^ 0x5a5a5a5a))
	cp "$I" "$T/cc-oracle.img"
	e2fsck -y -E journal_only "$T/cc-oracle.img" >/dev/null 2>&1
	csum_oracle() {
		oracle_why=
		if [ "$(blksha "$1" 15000 1024)" != "$(sha256sum <"$T/g1" | cut -d' ' -f1)" ]; then
			if [ "$rcy" = 8 ] && [ "$(sha "$1")" = "$(sha "$I")" ]; then
				return 0	# refused outright: nothing written
			fi
			oracle_why="transaction 1 not replayed (e2fsck replays it)"
			return 1
		fi
		if [ "$(blksha "$1" 15001 1024)" = "$(sha256sum <"$T/g2" | cut -d' ' -f1)" ]; then
			oracle_why="transaction 2 replayed past its bad commit"
			return 1
		fi
		if [ "$rcy" = 8 ] && ! dumpe2fs -h "$1" 2>/dev/null |
		   grep -q '^Filesystem state:.*with errors'; then
			oracle_why="exit 8 after a partial replay, fs not marked with errors"
			return 1
		fi
		return 0
	}
	ORACLE=csum_oracle
	case_run "csum v3: second commit checksum wrong" errors "$I"
fi

# ===========================================================================
# Filesystem cases
# ===========================================================================

# A deleted +s file with an extent tree of depth 1 (fragmented over the
# holes of 100 deleted one-block files); no metadata_csum, so that the
# damaged headers are parsed, not rejected by a checksum.  Inode 13 is
# "sec" (the KEEP file is 12); its leaves are listed by "ex".
X0=$T/x0.img
mkimg "$X0" 16M -t ext4 -b 1024 -O ^metadata_csum
head -c 1024 /dev/urandom >"$T/one"
printf 'BIGSECRET%.0s' $(seq 20000) | head -c 150000 >"$T/big"
{
	echo "write $T/keep keep"
	i=1
	while [ $i -le 200 ]; do echo "write $T/one f$i"; i=$((i + 1)); done
	i=1
	while [ $i -le 200 ]; do echo "rm f$i"; i=$((i + 2)); done
	echo "write $T/big sec"
	echo "set_inode_field sec flags 0x80001"
} | dfs "$X0"
xino=$(debugfs -R "stat sec" "$X0" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
echo "rm sec" | dfs "$X0"
leaf=$(debugfs -R "ex <$xino>" "$X0" 2>/dev/null |
	awk '$1 == "0/" && $2 == "1" { print $8; exit }')
if [ -z "$xino" ] || [ -z "$leaf" ] ||
   [ "$(rd "$X0" $((leaf * 1024)) 2)" != 0af3 ]; then
	xok=no
	corpus_fail "extent tree of depth 1" safe "no depth-1 tree (leaf '$leaf')"
else
	xok=yes
	RESIDUE=BIGSECRET
	case_run "extent tree depth 1, undamaged" normal "$X0"
fi

xcase() {
	xn=$1 xe=$2
	shift 2
	[ $xok = yes ] || { corpus_fail "$xn" "$xe" "no extent base"; return; }
	cp "$X0" "$I"
	"$@"
	RESIDUE=BIGSECRET
	case_run "$xn" "$xe" "$I"
}
lo=$((leaf * 1024))
xcase "extent leaf: eh_depth 3 (parent says 0)" safe le16 "$I" $((lo + 6)) 3
xcase "extent leaf: eh_entries 0xffff > eh_max" safe le16 "$I" $((lo + 2)) 0xffff
xcase "extent leaf: eh_max 0xffff, eh_entries 0xffff" safe \
	sh -c "printf '\\377\\377\\377\\377' | dd of=$I bs=1 seek=$((lo + 2)) conv=notrunc 2>/dev/null"
root_depth() {
	echo "set_inode_field <$xino> block[1] $1" | dfs "$I"
}
xcase "extent root in the inode: eh_depth 5" safe root_depth 0x00050004
xcase "extent root in the inode: eh_depth 0x7fff" safe root_depth 0x7fff0004
xcase "extent root in the inode: eh_entries 0xffff" safe \
	sh -c "echo 'set_inode_field <$xino> block[0] 0xfffff30a' | debugfs -w -f - $I >/dev/null 2>&1"
selfloop() {
	# The leaf rewritten as an index node of one entry: itself.
	{ le16s 0xf30a; le16s 1; le16s 84; le16s 1; le32s 0
	  le32s 0; le32s "$leaf"; le16s 0; le16s 0; } | put "$I" "$lo"
}
xcase "extent index block that points to itself" safe selfloop
selfloop_deep() {
	selfloop
	root_depth 0x00050004
	le16 "$I" $((lo + 6)) 4
}
xcase "extent index loop under a root of depth 5" safe selfloop_deep

# Indirect maps (ext3): a deleted +s file of 300 blocks has IND and DIND.
B0=$T/i0.img
base "$B0" 0x1 -t ext3
printf 'INDSECRET%.0s' $(seq 40000) | head -c 300000 >"$T/ind"
dfs "$B0" <<EOF
write $T/ind isec
set_inode_field isec flags 0x1
EOF
iino=$(debugfs -R "stat isec" "$B0" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
echo "rm isec" | dfs "$B0"
ind=$(debugfs -R "stat <$iino>" "$B0" 2>/dev/null |
	sed -n 's/.*(IND):\([0-9]*\).*/\1/p' | head -1)
dind=$(debugfs -R "stat <$iino>" "$B0" 2>/dev/null |
	sed -n 's/.*(DIND):\([0-9]*\).*/\1/p' | head -1)
if [ -z "$ind" ] || [ -z "$dind" ]; then
	iok=no
	corpus_fail "indirect maps" safe "no IND/DIND in the deleted file"
else
	iok=yes
	RESIDUE=INDSECRET
	case_run "ext3 indirect map, undamaged" normal "$B0"
fi
icase() {
	in_=$1 ie=$2
	shift 2
	[ $iok = yes ] || { corpus_fail "$in_" "$ie" "no indirect base"; return; }
	cp "$B0" "$I"
	"$@"
	case_run "$in_" "$ie" "$I"
}
icase "ext3: indirect block lists itself" normal le32 "$I" $((ind * 1024)) "$ind"
icase "ext3: double indirect block lists itself" normal \
	le32 "$I" $((dind * 1024 + 4)) "$dind"
fill_self() {
	# Every entry of the IND block is the IND block, and the triple
	# indirect pointer names it too: 256^3 visits if nothing stops it.
	i=0
	: >"$T/self"
	while [ $i -lt 256 ]; do le32s "$ind" >>"$T/self"; i=$((i + 1)); done
	put "$I" $((ind * 1024)) <"$T/self"
	printf 'set_inode_field <%s> block[DIND] %s\nset_inode_field <%s> block[TIND] %s\n' \
		"$iino" "$ind" "$iino" "$ind" | dfs "$I"
}
icase "ext3: IND/DIND/TIND all one block listing only itself" safe fill_self
icase "ext3: indirect entry past the fs end" safe \
	le32 "$I" $((ind * 1024 + 8)) 0x7ffffff0

# Directories: a live directory d with entries a, sec (+s, removed: in
# the slack of a), b, c.  No metadata_csum: the rec_len is what is read.
# Offsets: . 0, .. 12, a 24 (rec_len 24 after the removal), sec 36,
# b 48, c 60.
D0=$T/d0.img
mkimg "$D0" 16M -t ext4 -b 1024 -O ^metadata_csum
dfs "$D0" <<EOF
write $T/keep keep
mkdir d
write $T/secret d/a
write $T/secret d/sec
write $T/secret d/b
write $T/secret d/c
set_inode_field d/sec flags 0x80001
rm d/sec
EOF
dblk=$(debugfs -R "bmap d 0" "$D0" 2>/dev/null)
do_=$((dblk * 1024))
if [ -z "$dblk" ] || [ "$(rd "$D0" $((do_ + 32)) 1)" != 61 ] ||
   [ "$(rd "$D0" $((do_ + 44)) 3)" != 736563 ] ||
   [ "$(rd "$D0" $((do_ + 56)) 1)" != 62 ] ||
   [ "$(rd "$D0" $((do_ + 28)) 2)" != 1800 ]; then
	dok=no
	corpus_fail "directory" safe "directory block not laid out as expected"
else
	dok=yes
	case_run "live directory with a removed +s name, undamaged" normal "$D0"
fi
dcase() {
	dn=$1
	shift
	[ $dok = yes ] || { corpus_fail "$dn" safe "no directory base"; return; }
	cp "$D0" "$I"
	"$@"
	PROTECT=$dblk PROTECT_BS=1024
	case_run "$dn" safe "$I"
}
dcase "dir: rec_len 0 after the slack" le16 "$I" $((do_ + 52)) 0
dcase "dir: rec_len 2000, past the block" le16 "$I" $((do_ + 52)) 2000
dcase "dir: rec_len 0 on the entry holding the slack" le16 "$I" $((do_ + 28)) 0
dcase "dir: rec_len 1 (unaligned, below the header)" le16 "$I" $((do_ + 52)) 1
dcase "dir: name_len past rec_len in the slack" \
	sh -c "printf '\\377' | dd of=$I bs=1 seek=$((do_ + 42)) conv=notrunc 2>/dev/null"

# Group descriptors.
G0=$T/g0.img
base "$G0" 0x80001 -t ext4
gcase() {
	gn=$1 ge=$2
	shift 2
	cp "$G0" "$I"
	printf '%s\n' "$@" | dfs "$I"
	case_run "$gn" "$ge" "$I"
}
gcase "bg_inode_table of group 0 outside the device" refused \
	"set_bg 0 inode_table 0x7ffffff0" "set_bg 0 checksum calc"
gcase "bg_inode_table of group 1 outside the device" refused \
	"set_bg 1 inode_table 0x7ffffff0" "set_bg 1 checksum calc"
gcase "bg_block_bitmap outside the device" refused \
	"set_bg 0 block_bitmap 0x7ffffff0" "set_bg 0 checksum calc"
gcase "bg_inode_table of group 0 on the superblock" refused \
	"set_bg 0 inode_table 1" "set_bg 0 checksum calc"

# EA blocks of a deleted +s file ("sec", inode 13, with a 600-byte EA
# that cannot stay in the inode).  No metadata_csum.
E0=$T/e0.img
mkimg "$E0" 16M -t ext4 -b 1024 -O ^metadata_csum
head -c 600 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 600 >"$T/ea"
dfs "$E0" <<EOF
write $T/keep keep
write $T/secret sec
ea_set -f $T/ea sec user.secret
set_inode_field sec flags 0x80001
rm sec
EOF
eblk=$(debugfs -R "stat <13>" "$E0" 2>/dev/null | sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
if [ -n "$eblk" ] && [ "$eblk" != 0 ] &&
   debugfs -R "testb $eblk" "$E0" 2>/dev/null | grep -q 'marked in use'; then
	# debugfs' kill_file leaves the EA block allocated; free it as the
	# kernel would.
	echo "freeb $eblk" | dfs "$E0"
	# freeb leaves the free counts one short; let e2fsck set them (it
	# leaves the deleted record alone).
	e2fsck -fy "$E0" >/dev/null 2>&1
fi
keepblk=$(debugfs -R "bmap keep 0" "$E0" 2>/dev/null)
sec0=$(debugfs -R "stat <13>" "$E0" 2>/dev/null |
	awk '/^EXTENTS:/ { getline; sub(/^\(0[^)]*\):/, ""); sub(/-.*/, ""); print; exit }')
if [ -z "$eblk" ] || [ "$eblk" = 0 ] ||
   [ "$(rd "$E0" $((eblk * 1024)) 4)" != 000002ea ]; then
	eok=no
	corpus_fail "EA block" safe "no EA block on the deleted file ('$eblk')"
else
	eok=yes
	case_run "deleted +s file with an EA block, undamaged" normal "$E0"
fi
ecase() {
	en=$1 ee=$2
	shift 2
	[ $eok = yes ] || { corpus_fail "$en" "$ee" "no EA base"; return; }
	cp "$E0" "$I"
	"$@"
	case_run "$en" "$ee" "$I"
}
acl() { echo "set_inode_field <13> file_acl $1" | dfs "$I"; }
ecase "EA block with bad magic" normal le32 "$I" $((eblk * 1024)) 0x12345678
ecase "EA pointer loop: file_acl is the file's own data block" normal acl "$sec0"
ecase "EA pointer names a live block (KEEP's)" normal acl "$keepblk"
ecase "EA pointer past the fs end" safe acl 0x7ffffff0
ecase "EA pointer is the inode's own inode table block" safe \
	acl "$(debugfs -R 'imap <13>' "$E0" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')"
ea_hblocks() {
	# h_blocks (refcount at 4, blocks at 8) absurd, entries running off.
	le32 "$I" $((eblk * 1024 + 8)) 0x7fffffff
	le16 "$I" $((eblk * 1024 + 32 + 2)) 0xfff0	# e_value_offs
	le32 "$I" $((eblk * 1024 + 32 + 8)) 0x7fffffff	# e_value_size
}
ecase "EA block: h_blocks and the first entry's value absurd" normal ea_hblocks

# Whole images.
TB=$T/tb.img
base "$TB" 0x80001 -t ext4
head -c $((16 * 1024 * 1024 - 1024)) "$TB" >"$T/cut1.img"
case_run "truncated: last block missing" refused "$T/cut1.img"
head -c $((8 * 1024 * 1024)) "$TB" >"$T/cut2.img"
case_run "truncated: half the image" refused "$T/cut2.img"
head -c 16M /dev/zero >"$T/zero.img"
case_run "an image of zeros" refused "$T/zero.img"
head -c 16M /dev/urandom >"$T/rnd.img"
printf '\123\357' | put "$T/rnd.img" $((1024 + 56))
case_run "random image, superblock magic right" refused "$T/rnd.img"
# The whole superblock right, every other block random.
for v in csum nocsum; do
	if [ $v = csum ]; then
		base "$T/gb.img" 0x80001 -t ext4
	else
		base "$T/gb.img" 0x80001 -t ext4 -O ^metadata_csum
	fi
	head -c 2048 "$T/gb.img" >"$T/g2.img"
	head -c $((16 * 1024 * 1024 - 2048)) /dev/urandom >>"$T/g2.img"
	case_run "superblock intact, the rest random ($v)" refused "$T/g2.img"
done
# The superblock intact, group descriptors zeroed.
cp "$TB" "$T/gz.img"
head -c 1024 /dev/zero | put "$T/gz.img" 2048
case_run "group descriptor block zeroed" refused "$T/gz.img"
# The first data block moved to the end (found by fuzz_image): libext2fs
# opens it, and its own descriptor check marks blocks past the end.
cp "$TB" "$T/fdb.img"
debugfs -w -R "ssv first_data_block $(($(dumpe2fs -h "$TB" 2>/dev/null |
	sed -n 's/^Block count: *//p') - 1))" "$T/fdb.img" >/dev/null 2>&1
case_run "first data block past the superblock's place" refused "$T/fdb.img"

# ===========================================================================
# Privileges and devices
# ===========================================================================

P0=$T/p0.img
base "$P0" 0x80001 -t ext4 -E lazy_itable_init=0,lazy_journal_init=0

why=
if [ "$(id -u)" != 0 ]; then
	why="not root"
elif [ ! -e /dev/loop-control ] || ! command -v losetup >/dev/null; then
	why="no loop devices"
fi

# refuse_dev NAME DEVICE-OR-FILE FILE PATTERN ARGS: refused, FILE intact.
refuse_dev() {
	rn=$1 rdev=$2 rfile=$3 rpat=$4
	shift 4
	sync
	b=$(sha "$rfile")
	run1 "$rdev" "$@"
	a=$(sha "$rfile")
	bs_=$(badstatus "$rc")
	if [ -n "$bs_" ]; then
		v=FAIL why_="$bs_"
	elif is_refusal "$rc" "$rdev" "$err" "$b" "$a"; then
		if printf '%s\n' "$err" | grep -qi -- "$rpat"; then
			v=PASS
		else
			v=FAIL why_="message lacks '$rpat': $err"
		fi
	else
		v=FAIL why_=$why
	fi
	un=no
	[ "$a" = "$b" ] && un=yes
	echo "$rn|refused|$rc|$un|$v" >>"$T/devrows"
	if [ $v = PASS ]; then pass "corrupt: $rn"
	else fail "corrupt: $rn" "$why_; stderr: $err"; fi
}
: >"$T/devrows"

if [ -n "$why" ]; then
	skip "corrupt: mounted through another loop device" "$why"
	skip "corrupt: read-only loop device" "$why"
else
	# Mounted (read-only, so that the kernel writes nothing) through
	# loop A; e2secrm is given the file, and loop B of the same file.
	M=$T/m.img
	cp "$P0" "$M"
	la=$(losetup -f --show "$M" 2>/dev/null)
	[ -n "$la" ] && LOOPS="$LOOPS $la"
	mkdir -p "$T/mnt"
	if [ -z "$la" ] || ! mount -o ro "$la" "$T/mnt" 2>/dev/null; then
		skip "corrupt: mounted through another loop device" \
			"could not attach or mount a loop device"
	else
		lb=$(losetup -f --show "$M" 2>/dev/null)
		[ -n "$lb" ] && LOOPS="$LOOPS $lb"
		refuse_dev "mounted via $la: e2secrm -n on the file" "$M" "$M" \
			"mounted\|in use\|busy" -n
		refuse_dev "mounted via $la: e2secrm -y on the file" "$M" "$M" \
			"mounted\|in use\|busy" -y
		if [ -n "$lb" ]; then
			refuse_dev "mounted via $la: e2secrm -n on $lb" "$lb" "$M" \
				"mounted\|in use\|busy" -n
			refuse_dev "mounted via $la: e2secrm -y on $lb" "$lb" "$M" \
				"mounted\|in use\|busy" -y
		fi
		umount "$T/mnt"
		[ -n "$lb" ] && losetup -d "$lb"
		losetup -d "$la"
		LOOPS=
	fi

	# A read-only loop device: -y refused, -n runs.
	R=$T/r.img
	cp "$P0" "$R"
	lr=$(losetup -r -f --show "$R" 2>/dev/null)
	if [ -z "$lr" ]; then
		skip "corrupt: read-only loop device" "losetup -r failed"
	else
		LOOPS="$lr"
		refuse_dev "read-only loop device $lr: -y" "$lr" "$R" \
			"read-only\|permission\|denied\|not permitted" -y
		# Found out first: no scan, so nothing on stdout.
		[ ! -s "$T/out" ] && echo "$err" | grep -q 'read-only device' &&
			pass "corrupt: read-only loop device: -y refused before the scan" ||
			fail "corrupt: read-only loop device: -y refused before the scan" \
				"$(head -3 "$T/out") $err"
		run1 "$lr" -n
		if [ "$rc" = 4 ] && [ "$(sha "$R")" = "$(sha "$P0")" ]; then
			v=PASS; pass "corrupt: read-only loop device $lr: -n runs"
		else
			v=FAIL; fail "corrupt: read-only loop device $lr: -n runs" \
				"exit $rc, want 4: $err"
		fi
		echo "read-only loop device $lr: -n|runs (4)|$rc|$( [ "$(sha "$R")" = "$(sha "$P0")" ] && echo yes || echo no)|$v" >>"$T/devrows"
		losetup -d "$lr"
		LOOPS=
	fi

	# A device another process holds open exclusively (O_EXCL, as
	# mkfs or another e2fsprogs tool would): refused, -n too.
	X=$T/x.img
	cp "$P0" "$X"
	lx=$(losetup -f --show "$X" 2>/dev/null)
	if [ -z "$lx" ]; then
		skip "corrupt: device held exclusively" "losetup failed"
	else
		LOOPS="$lx"
		python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(120)' "$lx" >"$T/held" &
		holder=$!
		n=0
		while [ ! -s "$T/held" ] && [ "$n" -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		refuse_dev "$lx held exclusively by another process: -y" \
			"$lx" "$X" "in use\|busy" -y
		refuse_dev "$lx held exclusively by another process: -n" \
			"$lx" "$X" "in use\|busy" -n
		kill "$holder" 2>/dev/null
		wait "$holder" 2>/dev/null
		losetup -d "$lx"
		LOOPS=
	fi
fi

# An immutable image file (chattr +i stops root too).
IM=$T/im.img
cp "$P0" "$IM"
if chattr +i "$IM" 2>/dev/null; then
	IMMUTABLE=$IM
	refuse_dev "immutable image file: -y" "$IM" "$IM" \
		"read-only\|permission\|not permitted" -y
	[ ! -s "$T/out" ] && echo "$err" | grep -q -- '-n shows' &&
		pass "corrupt: immutable image file: -y refused before the scan" ||
		fail "corrupt: immutable image file: -y refused before the scan" \
			"$(head -3 "$T/out") $err"
	run1 "$IM" -n
	if [ "$rc" = 4 ] && [ "$(sha "$IM")" = "$(sha "$P0")" ]; then
		v=PASS; pass "corrupt: immutable image file: -n runs"
	else
		v=FAIL; fail "corrupt: immutable image file: -n runs" "exit $rc, want 4: $err"
	fi
	echo "immutable image file: -n|runs (4)|$rc|yes|$v" >>"$T/devrows"
	chattr -i "$IM"
	IMMUTABLE=
else
	skip "corrupt: immutable image file" "chattr +i not supported here"
fi

# --- the table ------------------------------------------------------------
echo
awk -F'|' 'BEGIN {
	printf "%-62s %-8s %4s %4s %-13s %s\n", "case", "expected", "-n", "-y",
		"sha unchanged", "verdict"
}
{ printf "%-62s %-8s %4s %4s %-13s %s\n", $1, $2, $3, $4, $5, $6 }' "$TABLE"
if [ -s "$T/devrows" ]; then
	echo
	awk -F'|' 'BEGIN {
		printf "%-62s %-11s %4s %-13s %s\n", "device case", "expected",
			"exit", "unchanged", "verdict"
	}
	{ printf "%-62s %-11s %4s %-13s %s\n", $1, $2, $3, $4, $5 }' "$T/devrows"
fi
