# t_residues.sh --- residues made by the real kernel, one scenario each:
# mount a fresh image, do what users do with ordinary commands (write,
# overwrite, rename, truncate, punch, xattrs, inline data, data=journal,
# ext3 maps, late or inherited +s, htree directories, open-deleted files,
# leaf splits, a ring that wraps, a plain file beside a +s one, an
# editor's save by rename, rm -rf on large_dir, hard links, a casefolded
# directory, other mke2fs layouts; from 40 on, the red-team runs of
# 2026-12-05: collapse and insert ranges, moves and renames over, chattr
# -s, depth-2 trees, sparse files, xattrs and EA blocks shared or
# removed, O_TRUNC, O_DIRECT and mmap writes, htree leaves packed after
# splits, shred, reused inodes, 1k and 2k blocks, 128-byte inodes,
# inline directories, fast-commit sequences with a crash, journals that
# wrap at many places and between two runs; from 80 on, inode numbers
# used again by plain and +s files in turn, in one transaction or
# several, with fast commits, and a log restarted at every mount as
# kernels before 6.3 did; 96: a plain file written into a deleted +s
# file's freed blocks, then deleted), sync,
# unmount cleanly, then run e2secrm.
#
# Tokens: SECRET-* only in what belongs to +s files (contents, names, xattr
# values), KEEP-* in live files, FREE-* in deleted files without the flag.
# Per scenario: the secret is in the raw image before the run (else the
# scenario tests nothing); a dry run exits with bit 4 and writes nothing;
# -y exits 1; the dry run's actions (--json-plan) are -y's, and -y wrote
# them in order; no SECRET token is left anywhere in the raw image (where
# the ring lost the history of some, -y exits 5 and says so, and
# --all-free-if-lost on a copy takes every one and exits 1); KEEP
# tokens are still there and every live file is bit-exact (read back
# through a read-only kernel mount); FREE tokens are untouched (jfree: in
# the journal too, for the scenarios that name them); e2fsck -fn is clean;
# a second -y run finds nothing.  A failure names the blocks that
# still hold the secret and what they are.  A table closes the run.
# RES_ONLY="1 16" runs only the scenarios named; E2SECRM_KEEP_FAILED=DIR
# keeps in DIR the image, as the kernel made it, of a scenario that left
# a SECRET token.
. "$(dirname "$0")/../lib.sh"

SCENARIOS="1 2 3 4 5 6 7 8 9 10a 10b 11 12 13 14 15 16 17 18 19 23 \
24a 24b 24c 25 26 27 28a 28b 29 30 31 32 33a 33b 33c 33d 33e \
40 41 42 43 44a 44b 45 46 47a 47b 47c 48a 48b 48c 49 50 51 52 54 55 56 57 \
60 61 62 64 65 66 69 71a 71b 71c 71d 71e 71f 71g 71h 71i 71j 71k \
72a 72b 80 81 82 83 83b 84 85 86 87 90 91 94 95 96a 96b 97 97b 98"
COLS="pre dry wipe plan secret keep free jfree fsck again"
M=$T/mnt
TABLE=$T/table
: >"$TABLE"
: >"$T/titles"
t_start=$(date +%s)

why=$(can_loop_mount)
if [ $? != 0 ]; then
	for s in $SCENARIOS; do
		skip "residues $s" "loop mount unavailable: $why"
	done
	exit 0
fi

# brief TEXT: e2secrm's output, shortened for a failure message.
brief() {
	if [ "$(echo "$1" | wc -l)" -gt 6 ]; then
		echo "$1" | head -3 | cut -c1-200
		echo "... ($(echo "$1" | wc -l) lines) ..."
		echo "$1" | tail -3 | cut -c1-200
	else
		echo "$1"
	fi | tr '\n' ' ' | tr -s ' '
}

# mark COL RESULT: one cell of the closing table.
mark() { echo "$sc $1 $2" >>"$TABLE"; }
ok() { pass "residues $sc ($title): $2"; mark "$1" PASS; }
bad() { fail "residues $sc ($title): $2" "$3"; mark "$1" FAIL; }

# tk WORD: a token unique to this run and scenario.
tk() { echo "$1-$sc-$$"; }

# piece TOKEN BYTES: exactly BYTES bytes of token lines on stdout.
piece() {
	canary "$T/piece" "$1" "$2"
	head -c "$2" "$T/piece"
}

# secret TOKEN: must be in the image before the run, and gone after it.
# keep TOKEN / free TOKEN: must still be there after it.
# live PATH: a live file or directory (relative to the mount), bit-exact.
secret() { secrets="$secrets $1"; }
keep() { keeps="$keeps $1"; }
free() { frees="$frees $1"; }
# jfree TOKEN: a FREE token that must stay in every journal block that
# held it.
jfree() { jfrees="$jfrees $1"; }
livesum() {
	case $1 in
	xattr:*)
		# xattr:NAME:PATH: the value of one extended attribute.
		n=${1#xattr:} p=${n#*:} n=${n%%:*}
		python3 -c 'import hashlib, os, sys
print(hashlib.sha256(os.getxattr(sys.argv[1], sys.argv[2])).hexdigest())' \
			"$M/$p" "$n" 2>/dev/null || echo none
		return
		;;
	esac
	if [ -d "$M/$1" ]; then
		(cd "$M/$1" && ls -a | sha256sum | cut -d' ' -f1)
	else
		sha256sum <"$M/$1" | cut -d' ' -f1
	fi
}
live() { echo "$1 $(livesum "$1")" >>"$T/sums"; }

# cycle: unmount and mount again, so debugfs sees checkpointed metadata.
cycle() {
	sync
	kumount && kmount "$img" "$mopts"
}

# setx FILE NAME VALUE: set an extended attribute.
setx() {
	if command -v setfattr >/dev/null 2>&1; then
		setfattr -n "$2" -v "$3" "$1"
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c 'import os, sys
os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())' "$1" "$2" "$3"
	else
		return 1
	fi
}

# ea_inodes: how many of the first inodes of the image are EA inodes
# (EXT4_EA_INODE_FL), that is, xattr values kept in an inode of their own.
ea_inodes() {
	i=12
	while [ $i -lt 64 ]; do
		echo "stat <$i>"
		i=$((i + 1))
	done | debugfs -f - "$img" 2>/dev/null |
		sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p' |
		while read -r fl; do
			[ $((fl & 0x200000)) = 0 ] || echo x
		done | wc -l
}

# begin SC TITLE MOUNT-OPTIONS MKE2FS-OPTIONS...: fresh image, mounted.
begin() {
	sc=$1 title=$2 mopts=$3
	shift 3
	echo "== residues $sc: $title"
	echo "$sc $title" >>"$T/titles"
	img=$T/r.img
	rm -f "$img"
	secrets='' keeps='' frees='' jfrees='' pre_err='' control=''
	precheck='' wrapped=''
	: >"$T/sums"
	if ! mkimg "$img" 64M "$@"; then
		bad pre "mke2fs" "mke2fs $* failed"
		return 1
	fi
	if ! kmount "$img" "$mopts"; then
		bad pre "mount" "mount -o loop${mopts:+,$mopts} failed"
		return 1
	fi
}

# common [plain]: a live plain file, a live +s file (unless plain), and a
# file without the flag that is deleted at the end.
common() {
	K=$(tk KEEP-PLAIN)
	canary "$M/keep-plain.txt" "$K" 20000
	keep "$K"
	if [ "$1" != plain ]; then
		K=$(tk KEEP-PLUS-S)
		canary "$M/keep-s.txt" "$K" 20000
		chattr +s "$M/keep-s.txt"
		keep "$K"
	fi
	F=$(tk FREE-PLAIN)
	canary "$M/free.txt" "$F" 30000
	free "$F"
	sync
}

# jdump: the journal inode's contents, in log order, in $T/journal.
jdump() {
	rm -f "$T/journal"
	debugfs -R "dump <8> $T/journal" "$img" >/dev/null 2>&1
	[ -s "$T/journal" ]
}

# jholds TOKEN: "TOKEN JBLOCK" for each journal block holding TOKEN.
jholds() {
	bsz=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	grep -abo -- "$1" "$T/journal" | cut -d: -f1 |
		awk -v t="$1" -v bs="$bsz" '{ print t, int($1 / bs) }' | sort -u
}

# jscan MODE TOKEN [INOS]: the journal blocks, jbd2's own blocks aside,
# that hold TOKEN, one "jblock N +OFFSET" line each, when they are
#   broken: blocks where no copy of TOKEN follows an aligned entry header
#	naming one of INOS (inode numbers, comma-separated), and no whole
#	entry naming one of them is anywhere in the block: the name's bytes
#	are all that is left of the entry;
#   unattr: blocks that --journal-map attributes to no descriptor.
jscan() {
	jdump || return 1
	"$E2SECRM" --journal-map "$img" >"$T/jmap" 2>/dev/null
	bsz=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	python3 - "$1" "$2" "${3:-}" "$bsz" "$T/journal" "$T/jmap" <<'PY'
import re, struct, sys
mode, tok, inos, bs, jfile, jmap = sys.argv[1:7]
tok, bs = tok.encode(), int(bs)
inos = set(int(i) for i in inos.split(',') if i)
attributed = set()
for line in open(jmap):
    if 'fast-commit area' in line:
        break
    m = re.match(r'\s*(\d+)\s+\d+\s+\d+\s+\S', line)
    if m:
        attributed.add(int(m.group(1)))
j = open(jfile, 'rb').read()


def names(b, off):
    """An aligned entry header at off naming one of inos."""
    if off < 0 or off % 4 or off + 8 > bs:
        return False
    ino, rec_len, name_len = struct.unpack_from('<IHB', b, off)
    return (ino in inos and name_len and rec_len >= 12 and
            rec_len % 4 == 0 and 8 + name_len <= rec_len and
            off + 8 + name_len <= bs)


for n in range(1, len(j) // bs):
    b = j[n * bs:(n + 1) * bs]
    if b[:4] == b'\xc0\x3b\x39\x98' or tok not in b:
        continue
    hits = [m.start() for m in re.finditer(re.escape(tok), b)]
    if mode == 'unattr' and n not in attributed:
        print('jblock %d +%d' % (n, hits[0]))
    if mode == 'broken' and \
       not any(names(b, h - 8) for h in hits) and \
       not any(names(b, o) for o in range(0, bs - 8, 4)):
        print('jblock %d +%d' % (n, hits[0]))
PY
}

# jlog BLK: the journal's logical block at fs block BLK.
jlog() {
	debugfs -R "stat <8>" "$img" 2>/dev/null |
		grep -o '([0-9][0-9-]*):[0-9][0-9-]*' | tr '():-' '    ' |
		awk -v b="$1" '{
			if (NF == 4) { ls = $1; ps = $3; pe = $4 }
			else { ls = $1; ps = $2; pe = $2 }
			if (b + 0 >= ps + 0 && b + 0 <= pe + 0) print ls + b - ps
		}' | head -1
}

# itable BLK OFF: which inode record of which group's table holds the byte.
itable() {
	dumpe2fs "$img" 2>/dev/null | awk -v b="$1" -v o="$2" -v bs="$bs" \
	    -v isz="$isz" -v ipg="$ipg" '
		/^Group [0-9]+:/ { g = $2 + 0 }
		/Inode table at/ {
			split($4, r, "-")
			if (b + 0 >= r[1] + 0 && b + 0 <= r[2] + 0)
				printf "group %d, record of inode %d\n", g,
				    g * ipg + int(((b - r[1]) * bs + o) / isz) + 1
		}'
}

# inmap BLK: the inodes whose map in the dry run's -v listing covers BLK.
inmap() {
	awk -v b="$1" '
		/^inode [0-9]/ { ino = $2 }
		/ block [0-9]/ {
			for (i = 1; i < NF; i++) if ($i == "block") {
				n = split($(i + 1), r, "-")
				if (n == 1) r[2] = r[1]
				if (b + 0 >= r[1] + 0 && b + 0 <= r[2] + 0)
					print ino
			}
		}' "$T/dryout" | sort -u | tr '\n' ' '
}

# what BLK OFF: what block BLK of the image is, for a failure report.
what() {
	b=$1 o=$2
	own=$(debugfs -R "icheck $b" "$img" 2>/dev/null |
		awk 'NR == 2 { print $2 }')
	if debugfs -R "testb $b" "$img" 2>&1 | grep -q 'not in use'; then
		st=free
	else
		st=in-use
	fi
	case $own in
	8)
		jb=$(jlog "$b")
		line=$(awk -v j="$jb" '$1 == j' "$T/jmap" | tr -s ' ')
		# Say what the block was before the run too (a copy the
		# kernel's ring left unattributed may have been attributed).
		was=$(awk -v j="$jb" '$1 == j' "$T/jmap0" | tr -s ' ')
		echo "journal block $jb (fs block $b):" \
			"${line:-not attributed by --journal-map};" \
			"before the run: ${was:-not attributed either}"
		;;
	[0-9]*)
		p=$(debugfs -R "ncheck $own" "$img" 2>/dev/null |
			awk 'NR == 2 { print $2 }')
		echo "fs block $b, $st, owned by inode $own (${p:-no name})"
		;;
	*)
		it=$(itable "$b" "$o")
		cp=$(awk -v f="$b" '$3 == f { printf "jblock %s tid %s as %s; ", $1, $2, $4 }' \
			"$T/jmap" | head -c 300)
		m=$(inmap "$b")
		echo "fs block $b, $st, ${it:+inode table $it, }no owner inode${m:+, in the dry-run map of inode $m}${cp:+, journal copies of it: $cp}"
		;;
	esac
}

# where TOKEN: the blocks of the raw image still holding TOKEN, and what.
where() {
	dumpe2fs -h "$img" >"$T/sb" 2>/dev/null
	bs=$(sed -n 's/^Block size: *//p' "$T/sb")
	isz=$(sed -n 's/^Inode size: *//p' "$T/sb")
	ipg=$(sed -n 's/^Inodes per group: *//p' "$T/sb")
	"$E2SECRM" --journal-map "$img" >"$T/jmap" 2>/dev/null
	grep -abo -- "$1" "$img" | cut -d: -f1 |
		awk -v bs="$bs" '{ b = int($1 / bs); if (!(b in s)) { s[b] = 1; print b, $1 - b * bs } }' \
		>"$T/blocks"
	nb=$(wc -l <"$T/blocks")
	echo "$1 in $nb block(s):"
	head -8 "$T/blocks" | while read -r b o; do
		echo "    [byte $((b * bs + o)) = block $b +$o] $(what "$b" "$o")"
	done
}

# finish: unmount, then every check of the scenario.
# answered: on a copy of the image, the remedy a wrapped run prints
# (-y --all-free-if-lost) leaves no SECRET token and exits 1.  The copy
# has no state: its run sees the gap and answers it.
answered() {
	cp --sparse=always "$img" "$T/answer.img"
	"$E2SECRM" -y --no-state --all-free-if-lost "$T/answer.img" \
		>"$T/answer.out" 2>&1
	arc=$?
	[ "$arc" = 1 ] || return 1
	for t in $secrets; do
		[ "$(count "$t" "$T/answer.img")" = 0 ] || return 1
	done
	e2fsck -fn "$T/answer.img" >/dev/null 2>&1
}

finish() {
	if [ -e "$M/free.txt" ]; then
		rm "$M/free.txt"
	fi
	for f in keep-plain.txt keep-s.txt; do
		[ -e "$M/$f" ] && live "$f"
	done
	sync
	if ! kumount; then
		bad pre "umount" "umount failed"
		return
	fi
	# What only the unmounted image shows (the journal as the kernel
	# left it) is the scenario's to check.
	[ -z "$precheck" ] || $precheck
	for t in $secrets; do
		[ "$(count "$t" "$img")" -gt 0 ] || pre_err="$pre_err; $t not in the raw image"
	done
	for t in $frees; do
		[ "$(count "$t" "$img")" -gt 0 ] || pre_err="$pre_err; $t not in the raw image"
	done
	if [ -n "$jfrees" ]; then
		jdump || pre_err="$pre_err; cannot dump the journal"
		for t in $jfrees; do
			jholds "$t"
		done >"$T/jfree0"
		for t in $jfrees; do
			grep -q -- "^$t " "$T/jfree0" ||
				pre_err="$pre_err; $t not in the journal"
		done
	fi
	e2fsck -fn "$img" >"$T/fsck0" 2>&1 ||
		pre_err="$pre_err; image not clean before the run: $(tail -2 "$T/fsck0")"
	if [ -z "$pre_err" ]; then
		ok pre "residues in the image before the run"
	else
		bad pre "residues in the image before the run" \
			"${pre_err#; } (so the scenario does not test it)"
	fi

	h0=$(sha "$img")
	# E2SECRM_KEEP_FAILED=DIR keeps the image as made, for a failure.
	[ -z "$E2SECRM_KEEP_FAILED" ] || cp "$img" "$T/made.img"
	"$E2SECRM" --journal-map "$img" >"$T/jmap0" 2>/dev/null
	rm -f "$T/dry.json" "$T/wet.json"
	run_e2secrm -n -v --json "$T/dry.json" --json-plan "$img"
	echo "$out" >"$T/dryout"
	if [ -n "$control" ]; then
		if [ "$rc" = 0 ] && [ "$(sha "$img")" = "$h0" ]; then
			ok dry "dry run exits 0, writes nothing"
		else
			bad dry "dry run exits 0, writes nothing" \
				"rc=$rc $(brief "$out $err")"
		fi
	elif [ $((rc & 12)) = 4 ] && [ "$(sha "$img")" = "$h0" ]; then
		ok dry "dry run exits with bit 4, writes nothing"
	else
		bad dry "dry run exits with bit 4, writes nothing" \
			"rc=$rc, sha256 $([ "$(sha "$img")" = "$h0" ] && echo same || echo changed): $(brief "$out $err")"
	fi

	run_e2secrm -y --json "$T/wet.json" --json-plan "$img"
	wipe_out=$out
	# Action for action: what the dry run planned, -y planned and wrote.
	n_plan=$(jq -c .actions "$T/dry.json" 2>/dev/null)
	y_plan=$(jq -c .actions "$T/wet.json" 2>/dev/null)
	y_done=$(jq -c .written "$T/wet.json" 2>/dev/null)
	if [ -n "$n_plan" ] && [ "$n_plan" != null ] &&
	   [ "$n_plan" = "$y_plan" ] && [ "$y_plan" = "$y_done" ]; then
		ok plan "-n's $(echo "$n_plan" | jq length) actions are -y's, written in order"
	else
		bad plan "-n's actions are -y's, written in order" \
			"-n $(echo "$n_plan" | jq length 2>/dev/null), -y planned $(echo "$y_plan" | jq length 2>/dev/null), wrote $(echo "$y_done" | jq length 2>/dev/null)"
	fi
	if [ -n "$control" ]; then
		if [ "$rc" = 0 ] && [ "$(sha "$img")" = "$h0" ]; then
			ok wipe "-y exits 0, image unchanged"
		else
			bad wipe "-y exits 0, image unchanged" \
				"rc=$rc $(brief "$out $err")"
		fi
	elif [ "$rc" = 1 ]; then
		ok wipe "-y exits 1"
	elif [ -n "$wrapped" ] && [ "$rc" = 5 ] &&
	    echo "$out" | grep -q 'cannot be traced'; then
		ok wipe "-y exits 1, and 4 for the history the ring lost"
	else
		bad wipe "-y exits 1" "rc=$rc $(brief "$out $err")"
	fi

	if [ -z "$control" ]; then
		wrc=$rc
		left=
		for t in $secrets; do
			n=$(count "$t" "$img")
			[ "$n" = 0 ] || left="$left
  $(where "$t")"
		done
		if [ -z "$left" ]; then
			ok secret "no SECRET token left in the raw image"
		elif [ -n "$wrapped" ] && [ "$wrc" = 5 ] && answered; then
			ok secret "SECRET tokens left only with exit bit 4 (the ring lost their history); --all-free-if-lost takes them all (exit 1)"
		else
			bad secret "no SECRET token left in the raw image" "$left
  (wipe said: $(brief "$wipe_out"))"
			[ -z "$E2SECRM_KEEP_FAILED" ] ||
				cp "$T/made.img" "$E2SECRM_KEEP_FAILED/$sc-$$.img"
		fi
	fi

	gone=
	for t in $frees; do
		[ "$(count "$t" "$img")" -gt 0 ] || gone="$gone $t"
	done
	[ -z "$gone" ] && ok free "FREE tokens of plain deleted files untouched" ||
		bad free "FREE tokens of plain deleted files untouched" "gone:$gone"

	# Another copy (live slack, the freed record, a copy of the block
	# from another transaction) can hide a FREE token the wipe took
	# from a journal copy: each copy that held one must still hold it.
	if [ -n "$jfrees" ]; then
		gone=
		jdump || gone=" (cannot dump the journal)"
		for t in $jfrees; do
			jholds "$t"
		done >"$T/jfree1"
		gone="$gone$(grep -vxF -f "$T/jfree1" "$T/jfree0" |
			awk '{ printf " %s from jblock %s;", $1, $2 }')"
		[ -z "$gone" ] &&
			ok jfree "FREE tokens kept in every journal copy" ||
			bad jfree "FREE tokens kept in every journal copy" \
				"gone:$gone"
	fi

	e2fsck -fn "$img" >"$T/fsck" 2>&1 && ok fsck "e2fsck -fn clean" ||
		bad fsck "e2fsck -fn clean" "$(tail -3 "$T/fsck" | tr '\n' ' ')"

	run_e2secrm -y "$img"
	if [ "$rc" = 0 ]; then
		ok again "second -y run exits 0"
	elif [ -n "$wrapped" ] && [ "$rc" = 4 ] &&
	    echo "$out" | grep -q 'cannot be traced' &&
	    echo "$out" | grep -q 'nothing to wipe'; then
		ok again "second -y run finds nothing (4: a wrapped ring)"
	else
		bad again "second -y run exits 0" "rc=$rc $(brief "$out $err")"
	fi

	# Live data: tokens in the raw image, and every file read back.
	lost=
	for t in $keeps; do
		[ "$(count "$t" "$img")" -gt 0 ] || lost="$lost $t gone;"
	done
	if kmount "$img" ro; then
		while read -r p s; do
			[ "$(livesum "$p")" = "$s" ] || lost="$lost $p differs;"
		done <"$T/sums"
		kumount
	else
		lost="$lost read-only mount failed"
	fi
	[ -z "$lost" ] && ok keep "KEEP tokens kept, live files bit-exact" ||
		bad keep "KEEP tokens kept, live files bit-exact" "$lost"
}

# 1. The basic case: a +s file written, synced, deleted.
sc1() {
	begin 1 "basic delete" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-DATA) N=$(tk SECRET-NAME)
	canary "$M/$N" "$S" 100000
	chattr +s "$M/$N"
	sync
	rm "$M/$N"
	secret "$S"
	secret "$N"
	finish
}

# 2. Overwritten in place, shorter each time, synced between, deleted.
sc2() {
	begin 2 "overwrite in place" "" -t ext4 -b 4096 || return
	common
	A=$(tk SECRET-V1) B=$(tk SECRET-V2) C=$(tk SECRET-V3)
	f=$M/over.bin
	piece "$A" 200000 >"$f"
	chattr +s "$f"
	sync
	piece "$B" 120000 | dd of="$f" conv=notrunc,fsync status=none
	sync
	piece "$C" 50000 | dd of="$f" conv=notrunc,fsync status=none
	sync
	rm "$f"
	secret "$A"
	secret "$B"
	secret "$C"
	finish
}

# 3. Renamed four times (the name is the secret), then deleted.
sc3() {
	begin 3 "renames" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	for i in 1 2 3 4 5; do
		: >"$M/d/plain-$i"
	done
	S=$(tk SECRET-DATA)
	N1=$(tk SECRET-NAME1) N2=$(tk SECRET-NAME2)
	N3=$(tk SECRET-NAME3) N4=$(tk SECRET-NAME4)
	canary "$M/d/$N1" "$S" 30000
	chattr +s "$M/d/$N1"
	sync
	mv "$M/d/$N1" "$M/d/$N2"
	sync
	mv "$M/d/$N2" "$M/d/$N3"
	sync
	mv "$M/d/$N3" "$M/$N4"
	sync
	rm "$M/$N4"
	live d
	for t in "$S" "$N1" "$N2" "$N3" "$N4"; do
		secret "$t"
	done
	finish
}

# 4. A live +s file truncated: the cut-away tail must go, the head stay.
sc4() {
	begin 4 "truncate live file" "" -t ext4 -b 4096 || return
	common
	K=$(tk KEEP-HEAD) S=$(tk SECRET-TAIL)
	f=$M/trunc.bin
	{ piece "$K" 65536; piece "$S" 400000; } >"$f"
	chattr +s "$f"
	sync
	truncate -s 65536 "$f"
	sync
	live trunc.bin
	keep "$K"
	secret "$S"
	finish
}

# 5. Holes punched in a live +s file: the punched ranges must go.
sc5() {
	begin 5 "punch holes" "" -t ext4 -b 4096 || return
	common
	KA=$(tk KEEP-A) KB=$(tk KEEP-B) KC=$(tk KEEP-C)
	SA=$(tk SECRET-HOLE1) SB=$(tk SECRET-HOLE2)
	f=$M/punch.bin
	{
		piece "$KA" 131072
		piece "$SA" 131072
		piece "$KB" 131072
		piece "$SB" 65536
		piece "$KC" 65536
	} >"$f"
	chattr +s "$f"
	sync
	fallocate -p -o 131072 -l 131072 "$f"
	fallocate -p -o 393216 -l 65536 "$f"
	sync
	live punch.bin
	keep "$KA"
	keep "$KB"
	keep "$KC"
	secret "$SA"
	secret "$SB"
	finish
}

# 6. One block every other block: 150 extents, a tree of depth 1.
sc6() {
	begin 6 "extent tree depth>=1" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-FRAG)
	f=$M/frag.bin
	: >"$f"
	chattr +s "$f"
	piece "$S" 4096 >"$T/blk"
	i=0
	while [ $i -lt 150 ]; do
		dd if="$T/blk" of="$f" bs=4096 seek=$((i * 2)) conv=notrunc \
			status=none
		i=$((i + 1))
	done
	cycle || { bad pre "remount" "remount failed"; return; }
	debugfs -R "stat /frag.bin" "$img" 2>/dev/null | grep -q 'ETB' ||
		pre_err="$pre_err; extent tree of frag.bin has depth 0"
	rm "$f"
	secret "$S"
	finish
}

# 7. A +s file with a 3000-byte xattr value: in an EA block.
sc7() {
	begin 7 "xattr in EA block" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-DATA) X=$(tk SECRET-XATTR)
	f=$M/withea.bin
	canary "$f" "$S" 20000
	chattr +s "$f"
	v=$(piece "$X" 3000 | tr '\n' ' ')
	setx "$f" user.big "$v" ||
		pre_err="$pre_err; cannot set an xattr (no setfattr, no python3)"
	cycle || { bad pre "remount" "remount failed"; return; }
	ea=$(debugfs -R "stat /withea.bin" "$img" 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	[ -n "$ea" ] && [ "$ea" != 0 ] ||
		pre_err="$pre_err; the xattr is not in an EA block"
	rm "$f"
	secret "$S"
	secret "$X"
	finish
}

# 8. Inline data: a small +s file lives in its inode.
sc8() {
	begin 8 "inline data" "" -t ext4 -b 4096 -O inline_data || return
	common
	S=$(tk SECRET-INL)
	f=$M/small.txt
	printf '%s\n' "$S" >"$f"
	chattr +s "$f"
	cycle || { bad pre "remount" "remount failed"; return; }
	debugfs -R "stat /small.txt" "$img" 2>/dev/null |
		grep -q 'Size of inline data' ||
		pre_err="$pre_err; small.txt is not inline"
	rm "$f"
	secret "$S"
	finish
}

# 9. data=journal: the secret content goes through the journal too.
sc9() {
	begin 9 "data=journal" data=journal -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-DATA) N=$(tk SECRET-NAME)
	canary "$M/$N" "$S" 100000
	chattr +s "$M/$N"
	sync
	rm "$M/$N"
	secret "$S"
	secret "$N"
	finish
}

# 10. ext3, indirect maps: 4k blocks, and 1k blocks with a double map.
sc10() {
	sc=$1
	shift
	begin "$sc" "ext3 $1" "" -t ext3 -b "$2" || return
	common
	S=$(tk SECRET-DATA) N=$(tk SECRET-NAME)
	canary "$M/$N" "$S" 400000
	chattr +s "$M/$N"
	sync
	rm "$M/$N"
	secret "$S"
	secret "$N"
	finish
}

# 11. The flag comes late: written, committed, only then +s.
sc11() {
	begin 11 "late +s" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-DATA) N=$(tk SECRET-NAME)
	canary "$M/$N" "$S" 100000
	sync
	sleep 6
	chattr +s "$M/$N"
	sync
	rm "$M/$N"
	secret "$S"
	secret "$N"
	finish
}

# 12. Inherited: files made in a +s directory are +s.
sc12() {
	begin 12 "inherited +s" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	chattr +s "$M/d"
	S1=$(tk SECRET-DATA1) S2=$(tk SECRET-DATA2)
	N1=$(tk SECRET-NAME1) N2=$(tk SECRET-NAME2) K=$(tk KEEP-IN-D)
	canary "$M/d/$N1" "$S1" 50000
	canary "$M/d/$N2" "$S2" 20000
	canary "$M/d/keep-in-d.txt" "$K" 10000
	for f in "$N1" "$N2" keep-in-d.txt; do
		lsattr "$M/d/$f" 2>/dev/null | cut -d' ' -f1 | grep -q s ||
			pre_err="$pre_err; d/$f did not inherit +s"
	done
	sync
	rm "$M/d/$N1" "$M/d/$N2"
	live d
	live d/keep-in-d.txt
	keep "$K"
	for t in "$S1" "$S2" "$N1" "$N2"; do
		secret "$t"
	done
	finish
}

# 13. An htree +s directory of 2000 entries, every fourth one deleted.
sc13() {
	begin 13 "htree +s dir" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	chattr +s "$M/d"
	G=$(tk SECRET-GONE) K=$(tk KEEP-NAME)
	i=1000
	while [ $i -lt 3000 ]; do
		if [ $((i % 4)) = 0 ]; then
			: >"$M/d/$G-$i"
		else
			: >"$M/d/$K-$i"
		fi
		i=$((i + 1))
	done
	lsattr -d "$M/d" 2>/dev/null | cut -d' ' -f1 | grep -q I ||
		pre_err="$pre_err; d is not indexed"
	lsattr "$M/d/$K-1001" 2>/dev/null | cut -d' ' -f1 | grep -q s ||
		pre_err="$pre_err; entries did not inherit +s"
	sync
	rm "$M/d/$G-"*
	live d
	keep "$K"
	secret "$G"
	finish
}

# 14. Deleted while open; the last close frees it.
sc14() {
	begin 14 "deleted while open" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-DATA) N=$(tk SECRET-NAME)
	canary "$M/$N" "$S" 100000
	chattr +s "$M/$N"
	sync
	exec 3<"$M/$N"
	rm "$M/$N"
	sync
	exec 3<&-
	sync
	secret "$S"
	secret "$N"
	finish
}

# 16. Fast commits: fsync logs the raw inode and the name in the
# fast-commit area; the file is deleted after.
sc16() {
	begin 16 "fast commit, fsync" "" -t ext4 -b 4096 -O fast_commit ||
		return
	common
	mkdir "$M/d"
	sync
	S=$(tk SECRET-DATA) N=$(tk SECRET-NAME)
	canary "$M/d/$N" "$S" 40000
	chattr +s "$M/d/$N"
	xfs_io -c fsync "$M/d/$N"
	rm "$M/d/$N"
	xfs_io -c fsync "$M/d"
	secret "$S"
	secret "$N"
	finish
}

# 17. Fast-commit ranges: a +s file of many extents (a tree of depth 1),
# each block written and fsync'ed alone, so that the extents added since
# the last full commit are only in the fast-commit area's add_range tags;
# a plain file fsync'ed the same way is deleted too, and must stay.
sc17() {
	tries=0
	while :; do
		sc17_make || return
		tries=$((tries + 1))
		# Under load the kernel may fill the fast-commit area and
		# write it again before a full commit logs the tree block:
		# a range is then in no copy.  That state is t_coverage 7's
		# (reported, exit bit 4); this scenario wants every range
		# logged, so the image is made again (3 tries).
		sync
		kumount || { bad pre "umount" "umount failed"; return; }
		"$E2SECRM" -n --no-state "$img" 2>&1 |
			grep -q 'lost part of \(its\|their\) block map' ||
			break
		if [ "$tries" -ge 3 ]; then
			pre_err="$pre_err; the kernel wrote the fast-commit ranges over in $tries tries"
			kmount "$img" "$mopts" || return
			break
		fi
		echo "   (the kernel wrote fast-commit ranges over; again)"
		sed -i '$d' "$T/titles"		# begin names it again
	done
	[ "$tries" -ge 3 ] || kmount "$img" "$mopts" ||
		{ bad pre "mount" "mount failed"; return; }
	secret "$S"
	free "$F"
	finish
}

sc17_make() {
	begin 17 "fast commit ranges" "" -t ext4 -b 4096 -O fast_commit ||
		return
	common
	S=$(tk SECRET-FCRANGE) F=$(tk FREE-FCRANGE)
	f=$M/fcfrag.bin g=$M/fcplain.bin
	: >"$f"
	: >"$g"
	chattr +s "$f"
	piece "$S" 4096 >"$T/blk"
	piece "$F" 4096 >"$T/fblk"
	i=0
	while [ $i -lt 40 ]; do
		xfs_io -c "pwrite -q -i $T/blk $((i * 8192)) 4096" -c fsync "$f"
		xfs_io -c "pwrite -q -i $T/fblk $((i * 8192)) 4096" -c fsync "$g"
		i=$((i + 1))
	done
	n=$(filefrag "$f" 2>/dev/null | sed -n 's/.*: \([0-9]*\) extents\{0,1\} found/\1/p')
	[ "${n:-0}" -gt 4 ] ||
		pre_err="$pre_err; fcfrag.bin has ${n:-no} extents, no tree of depth 1"
	rm "$f" "$g"
	xfs_io -c fsync "$M"
}

# 18. ea_inode: a +s file's large xattr value lives in an inode of its own
# (e_value_inum), which does not carry the flag; the file is deleted.
sc18() {
	begin 18 "ea_inode, deleted" "" -t ext4 -b 4096 -O ea_inode ||
		return
	common
	S=$(tk SECRET-DATA) X=$(tk SECRET-EAINODE)
	f=$M/eai.bin
	canary "$f" "$S" 20000
	chattr +s "$f"
	v=$(piece "$X" 16000 | tr '\n' ' ')
	setx "$f" user.big "$v" ||
		pre_err="$pre_err; cannot set an xattr (no setfattr, no python3)"
	cycle || { bad pre "remount" "remount failed"; return; }
	[ "$(ea_inodes)" -gt 0 ] ||
		pre_err="$pre_err; the xattr value is not in an EA inode"
	rm "$f"
	secret "$S"
	secret "$X"
	finish
}

# 19. ea_inode: a live +s file's large xattr value replaced by another;
# the old value's EA inode is freed, the new one stays with the file.
sc19() {
	begin 19 "ea_inode, replaced" "" -t ext4 -b 4096 -O ea_inode ||
		return
	common
	K=$(tk KEEP-DATA) X=$(tk SECRET-EAOLD) Y=$(tk KEEP-EANEW)
	f=$M/eai.bin
	canary "$f" "$K" 20000
	chattr +s "$f"
	v=$(piece "$X" 16000 | tr '\n' ' ')
	setx "$f" user.big "$v" ||
		pre_err="$pre_err; cannot set an xattr (no setfattr, no python3)"
	sync
	v=$(piece "$Y" 12000 | tr '\n' ' ')
	setx "$f" user.big "$v" ||
		pre_err="$pre_err; cannot set an xattr (no setfattr, no python3)"
	cycle || { bad pre "remount" "remount failed"; return; }
	[ "$(ea_inodes)" -gt 0 ] ||
		pre_err="$pre_err; the xattr value is not in an EA inode"
	live eai.bin
	live xattr:user.big:eai.bin
	[ "$(livesum xattr:user.big:eai.bin)" != none ] ||
		pre_err="$pre_err; cannot read the xattr back (no python3)"
	keep "$K"
	keep "$Y"
	secret "$X"
	finish
}

# 15. Control: no +s anywhere; nothing to wipe.
sc15() {
	begin 15 "control, no +s" "" -t ext4 -b 4096 || return
	control=1
	common plain
	F=$(tk FREE-DATA) N=$(tk FREE-NAME)
	canary "$M/$N" "$F" 50000
	sync
	rm "$M/$N"
	free "$F"
	free "$N"
	finish
}

# 23. A +s name whose entry header a neighbour overwrote: in a plain
# htree directory of 1k blocks, 120 +s files among 1600 plain ones are
# made in 24 synced steps (a leaf split packs the entries that stay and
# leaves copies of them in the slack), the +s files are deleted, then
# 1608 more plain names are made in 24 synced steps, each new entry
# written over part of that slack.  Some journal copies of the directory
# then hold a +s name after a header that is another name's bytes, and no
# whole entry of a +s inode (two blocks, every run on Linux 6.18).  The
# names, the shuffle and the hash seed are fixed, not the run's own, so
# that the kernel lays the directory out the same way every run; the
# journal is large enough not to wrap.
sc23() {
	begin 23 "name without header" "" -t ext4 -b 1024 -I 256 -J size=16 \
		-E hash_seed=6c0a1f6e-4b1d-4e53-9a51-6a2d2f0c7e11 || return
	common
	S=SECRET-HNAME-23-k9Qz K=KEEP-HNAME-23
	mkdir "$M/d"
	python3 - "$M/d" "$S" "$K" 2 >"$T/sinos" <<'PY'
import os, random, subprocess, sys
d, s, k, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rnd = random.Random(seed)
names = ['%s-%d-%s' % (k, i, 'y' * rnd.randrange(60)) for i in range(1600)]
names += ['%s-%03d' % (s, i) for i in range(120)]
rnd.shuffle(names)
plus_s = []
for step in range(0, len(names), 72):
    for n in names[step:step + 72]:
        p = os.path.join(d, n)
        open(p, 'w').close()
        if n.startswith(s):
            subprocess.run(['chattr', '+s', p], check=True)
            plus_s.append(p)
    os.sync()
print(','.join(str(os.stat(p).st_ino) for p in plus_s))
for p in plus_s:
    os.unlink(p)
os.sync()
for step in range(24):
    for i in range(67):
        open(os.path.join(d, '%s-late-%d-%d-%s' % (k, step, i,
             'z' * rnd.randrange(60))), 'w').close()
    os.sync()
PY
	lsattr -d "$M/d" 2>/dev/null | cut -d' ' -f1 | grep -q I ||
		pre_err="$pre_err; d is not indexed"
	sinos=$(cat "$T/sinos"),$(stat -c %i "$M/keep-s.txt")
	precheck=pre23
	live d
	keep "$K"
	secret "$S"
	finish
}

# pre23: some journal block holds a +s name with no header of its own.
pre23() {
	if ! jscan broken "$S" "$sinos" >"$T/broken"; then
		pre_err="$pre_err; cannot read the journal"
		return
	fi
	echo "  journal blocks holding $S with no +s entry header:" \
		"$(tr '\n' ';' <"$T/broken")"
	[ -s "$T/broken" ] || pre_err="$pre_err; no journal block holds $S
 without an entry header naming a +s inode (the kernel laid the
 directory out otherwise)"
}

# 24. Journal copies whose descriptor is gone: in a +s directory of 1k
# blocks, 800 files of 200-byte names (every other one SECRET, the rest
# KEEP), all the SECRET ones deleted, then rounds of 50 plain files made
# and synced in another directory until the ring has wrapped over the
# start of the transactions that made the files: their descriptors are
# overwritten, and the copies of directory blocks after the last
# overwritten one are attributed to nothing.  24a: a linear directory
# and a journal of 1024 blocks, wrapped just past the first descriptor;
# 24b: the same, wrapped into the second transaction that made files;
# 24c: an htree directory and a journal of 2048 blocks, its last round
# 25 files, wrapped into the middle of the transaction that made them.
# A long commit interval, an itable zeroed by mke2fs, and names and a
# hash seed fixed rather than the run's own keep the kernel's
# transactions the same from run to run, so that the ring wraps at the
# same place (on Linux 6.18, 25 to 34 blocks from the descriptors on
# either side in each variant).
sc24() {
	sc=$1 rounds=$4
	e=lazy_itable_init=0,lazy_journal_init=0
	e=$e,hash_seed=3f8e2a61-0d4c-4b7e-8a19-5c6b7d2e9f30
	begin "$1" "no descriptor, $5" commit=300 -t ext4 -b 1024 -I 256 \
		-J size="$2" -E "$e" $3 || return
	common
	G=SECRET-JGONE-$sc-Wq4r K=KEEP-JNAME-$sc
	mkdir "$M/d" "$M/p"
	chattr +s "$M/d"
	python3 - "$M/d" "$G" "$K" <<'PY'
import os, sys
d, g, k = sys.argv[1:4]
for i in range(800):
    open(os.path.join(d, ('%s-%05d-' % (g if i % 2 else k, i)).ljust(200, 'x')),
         'w').close()
os.sync()
for n in sorted(os.listdir(d)):
    if n.startswith(g):
        os.unlink(os.path.join(d, n))
PY
	sync
	i=0
	while [ $i -lt "$rounds" ]; do
		# The last round, when given, places the wrap within one.
		n=50
		[ $((i + 1)) -lt "$rounds" ] || n=${6:-50}
		python3 -c 'import sys
for j in range(int(sys.argv[3])):
    open("%s/f-%s-%d" % (sys.argv[1], sys.argv[2], j), "w").close()' \
			"$M/p" $i $n
		sync
		i=$((i + 1))
	done
	case $3 in
	*dir_index*) ;;
	*)	lsattr -d "$M/d" 2>/dev/null | cut -d' ' -f1 | grep -q I ||
			pre_err="$pre_err; d is not indexed" ;;
	esac
	# History older than the ring is lost, and e2secrm says so (exit
	# bit 4) on both runs.
	precheck=pre24 wrapped=1
	live d
	keep "$K"
	secret "$G"
	finish
}

# pre24: some journal block that no descriptor accounts for holds $G.
pre24() {
	if ! jscan unattr "$G" >"$T/unattr"; then
		pre_err="$pre_err; cannot read the journal"
		return
	fi
	echo "  unattributed journal blocks holding $G:" \
		"$(cut -d' ' -f2 "$T/unattr" | tr '\n' ' ')"
	[ -s "$T/unattr" ] || pre_err="$pre_err; no unattributed journal block
 holds $G (the ring wrapped elsewhere)"
}

# 25. Over-wiping: a plain file and a +s file made one after the other in
# one directory share its block and an inode table block; each has a
# short xattr (in the 256-byte record); synced, so the journal holds
# copies of both blocks naming both, then both deleted.  Only the +s
# file's name and xattr may go from those copies: the plain file's must
# stay in each of them (jfree), not only somewhere in the image.
sc25() {
	begin 25 "plain shares blocks" commit=300 -t ext4 -b 4096 -I 256 ||
		return
	common
	FN=$(tk FREE-NAME) FX=$(tk FREE-XATTR)
	SN=$(tk SECRET-NAME) SX=$(tk SECRET-XATTR)
	mkdir "$M/d"
	sync
	: >"$M/d/$FN"
	# The last record of an inode table block (16 of 256 bytes in
	# 4k): the +s file would get the first of the next one.  It
	# stays, a live plain file.
	if [ $(($(stat -c %i "$M/d/$FN") % 16)) = 0 ]; then
		mv "$M/d/$FN" "$M/d/spacer"
		: >"$M/d/$FN"
	fi
	setx "$M/d/$FN" user.tag "$FX" ||
		pre_err="$pre_err; cannot set an xattr (no setfattr, no python3)"
	: >"$M/d/$SN"
	chattr +s "$M/d/$SN"
	setx "$M/d/$SN" user.tag "$SX" ||
		pre_err="$pre_err; cannot set an xattr (no setfattr, no python3)"
	sync
	rm "$M/d/$FN" "$M/d/$SN"
	precheck=pre25
	live d
	secret "$SN"
	secret "$SX"
	free "$FN"
	free "$FX"
	jfree "$FN"
	jfree "$FX"
	finish
}

# jboth A B: how many journal blocks hold both A and B.
jboth() {
	bsz=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	python3 - "$1" "$2" "$bsz" "$T/journal" <<'PY'
import sys
a, b, bs, j = sys.argv[1].encode(), sys.argv[2].encode(), \
    int(sys.argv[3]), open(sys.argv[4], 'rb').read()
print(sum(1 for n in range(len(j) // bs)
          if a in j[n * bs:(n + 1) * bs] and b in j[n * bs:(n + 1) * bs]))
PY
}

# pre25: the journal copies hold both files in one directory block and
# one inode table block.
pre25() {
	jdump || { pre_err="$pre_err; cannot dump the journal"; return; }
	n=$(jboth "$FN" "$SN") x=$(jboth "$FX" "$SX")
	echo "  journal blocks with both names: $n, with both xattrs: $x"
	[ "$n" -gt 0 ] ||
		pre_err="$pre_err; no journal block holds both $FN and $SN"
	[ "$x" -gt 0 ] ||
		pre_err="$pre_err; no journal block holds both $FX and $SX"
}

# unwr PATH LBLK TOKEN: the extent of PATH at logical block LBLK is
# unwritten (debugfs ex says Uninit) and its block still holds TOKEN.
unwr() {
	pb=$(debugfs -R "ex /$1" "$img" 2>/dev/null | awk -v l="$2" '
		/Uninit/ {
			for (i = 1; i < NF; i++) if ($(i + 1) == "-") {
				if ($i + 0 <= l + 0 && $(i + 2) + 0 >= l + 0)
					print $(i + 3) + l - $i
				break
			}
		}' | head -1)
	[ -n "$pb" ] || { echo "; logical block $2 of $1 is not unwritten"; return; }
	dd if="$img" bs=4096 skip="$pb" count=1 status=none | grep -aq -- "$3" ||
		echo "; unwritten block $pb of $1 does not hold $3"
}

# 26. fallocate --zero-range over the middle of a live +s file: the range
# becomes unwritten in place, reads as zeros, the old bytes stay in it.
sc26() {
	begin 26 "zero-range on live +s" "" -t ext4 -b 4096 || return
	common
	KA=$(tk KEEP-ZHEAD) S=$(tk SECRET-ZERO) KB=$(tk KEEP-ZTAIL)
	f=$M/zr.bin
	{ piece "$KA" 131072; piece "$S" 262144; piece "$KB" 131072; } >"$f"
	chattr +s "$f"
	sync
	fallocate -z -o 131072 -l 262144 "$f"
	sync
	live zr.bin
	cycle || { bad pre "remount" "remount failed"; return; }
	e=$(unwr zr.bin 32 "$S")$(unwr zr.bin 95 "$S")
	[ -z "$e" ] || pre_err="$pre_err$e"
	keep "$KA"
	keep "$KB"
	secret "$S"
	finish
}

# 27. A live +s file's tail truncated, then fallocate --keep-size past
# EOF: the freed tail blocks come back to the file as unwritten, with the
# old bytes in them.
sc27() {
	begin 27 "keep-size prealloc" "" -t ext4 -b 4096 || return
	common
	K=$(tk KEEP-PHEAD) S=$(tk SECRET-PTAIL)
	f=$M/pre.bin
	{ piece "$K" 65536; piece "$S" 262144; } >"$f"
	chattr +s "$f"
	sync
	truncate -s 65536 "$f"
	sync
	fallocate --keep-size -o 65536 -l 262144 "$f"
	sync
	live pre.bin
	cycle || { bad pre "remount" "remount failed"; return; }
	[ "$(stat -c %s "$f")" = 65536 ] ||
		pre_err="$pre_err; pre.bin is not 65536 bytes"
	e=$(unwr pre.bin 16 "$S")$(unwr pre.bin 79 "$S")
	[ -z "$e" ] || pre_err="$pre_err$e"
	keep "$K"
	secret "$S"
	finish
}

# unwr_blocks PATH TOKEN [written]: how many blocks of PATH's unwritten
# extents (of its written ones, with "written") hold TOKEN.
unwr_blocks() {
	debugfs -R "ex /$1" "$img" 2>/dev/null | awk -v w="$3" '
		/^ *[0-9]+\/ *[0-9]+/ {
			if ((w == "") != ($NF == "Uninit"))
				next
			n = 0
			for (i = 1; i < NF; i++) if ($(i + 1) == "-" && n++) {
				for (b = $i; b <= $(i + 2); b++)
					print b
				break
			}
		}' | while read -r b; do
		dd if="$img" bs=4096 skip="$b" count=1 status=none |
			grep -aq -- "$2" && echo "$b"
	done | wc -l
}

# 28. A +s file deleted, then a plain file preallocated: the kernel hands
# it the freed blocks as unwritten extents, old bytes and all; the plain
# file reads zeros there.  28b: the plain file then writes into part of
# the range, which holds its own bytes from then on.
sc28() {
	begin "$1" "prealloc, deleted +s" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-PREALLOC)
	piece "$S" 262144 >"$M/gone.bin"
	chattr +s "$M/gone.bin"
	sync
	rm "$M/gone.bin"
	sync
	fallocate -l 1M "$M/plain.bin"
	if [ "$2" = write ]; then
		K=$(tk KEEP-PWRITE)
		piece "$K" 65536 | dd of="$M/plain.bin" bs=4096 seek=16 \
			conv=notrunc status=none
		keep "$K"
	fi
	sync
	live plain.bin
	cycle || { bad pre "remount" "remount failed"; return; }
	[ "$(unwr_blocks plain.bin "$S")" -gt 0 ] ||
		pre_err="$pre_err; no unwritten block of plain.bin holds $S"
	if [ "$2" = write ] && [ "$(unwr_blocks plain.bin "$K" written)" = 0 ]
	then
		pre_err="$pre_err; no written block of plain.bin holds $K"
	fi
	secret "$S"
	finish
	# -n -v named the runs as the deleted file's old bytes under
	# plain.bin's extents; -n counted what -y then wrote.
	n=$(grep -c "unwritten (old bytes of .*secure-delete" "$T/dryout")
	d=$(sed -n 's/^ *unwritten extents *\([0-9]*\) blocks.*/\1/p' \
		"$T/dryout")
	w=$(echo "$wipe_out" |
		sed -n 's/^ *unwritten extents *\([0-9]*\) blocks.*/\1/p' |
		tail -1)
	what="-n -v lists the runs, -n counts what -y zeroes"
	if [ "$n" -gt 0 ] && [ -n "$d" ] && [ "$d" = "$w" ]; then
		pass "residues $sc ($title): $what ($d blocks)"
	else
		fail "residues $sc ($title): $what" \
			"listed $n, -n $d, -y $w: $(grep unwritten "$T/dryout" |
			head -3)"
	fi
}

# 29. An editor saves by rename in a +s directory (as vim and others do):
# the new version written under a temporary name, the old one renamed to
# a backup, the new one renamed over it, the backup removed; twice.  The
# two old versions are deleted +s files; the current one stays.
sc29() {
	begin 29 "editor save by rename" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	chattr +s "$M/d"
	V1=$(tk SECRET-V1) V2=$(tk SECRET-V2) V3=$(tk KEEP-V3)
	piece "$V1" 30000 >"$M/d/notes.txt"
	sync
	for v in "$V2" "$V3"; do
		piece "$v" 30000 >"$M/d/.notes.txt.swp"
		sync
		mv "$M/d/notes.txt" "$M/d/notes.txt~"
		mv "$M/d/.notes.txt.swp" "$M/d/notes.txt"
		sync
		rm "$M/d/notes.txt~"
	done
	lsattr "$M/d/notes.txt" 2>/dev/null | cut -d' ' -f1 | grep -q s ||
		pre_err="$pre_err; d/notes.txt did not inherit +s"
	live d/notes.txt
	keep "$V3"
	secret "$V1"
	secret "$V2"
	finish
}

# 30. rm -rf of a +s tree (two levels of directories, 300 files) on an
# ext4 with large_dir.
sc30() {
	begin 30 "rm -rf, large_dir" "" -t ext4 -b 4096 -O large_dir ||
		return
	common
	mkdir "$M/t"
	chattr +s "$M/t"
	mkdir "$M/t/a" "$M/t/a/b"
	S=$(tk SECRET-TREE) N=$(tk SECRET-TNAME)
	canary "$T/tree-file" "$S" 6000
	i=0
	while [ $i -lt 300 ]; do
		cp "$T/tree-file" "$M/t/a/b/$N-$i"
		i=$((i + 1))
	done
	cp "$T/tree-file" "$M/t/a/$N-top"
	sync
	rm -rf "$M/t"
	secret "$S"
	secret "$N"
	finish
}

# 31. Hard links: a +s file with two names loses one (it lives on, kept
# whole), another loses both (deleted, wiped).
sc31() {
	begin 31 "hard links" "" -t ext4 -b 4096 || return
	common
	K=$(tk KEEP-LINKED) S=$(tk SECRET-LINKED) N=$(tk SECRET-LNAME)
	canary "$M/kept.bin" "$K" 40000
	chattr +s "$M/kept.bin"
	ln "$M/kept.bin" "$M/kept-2.bin"
	canary "$M/$N" "$S" 40000
	chattr +s "$M/$N"
	mkdir "$M/d"
	ln "$M/$N" "$M/d/$N-2"
	sync
	rm "$M/kept.bin" "$M/$N" "$M/d/$N-2"
	live kept-2.bin
	keep "$K"
	secret "$S"
	secret "$N"
	finish
}

# 32. A casefolded +s directory (casefold, utf8): names hashed without
# case; some files deleted.
sc32() {
	# A kernel built without CONFIG_UNICODE mounts no casefold fs.
	mkimg "$T/cf.img" 8M -t ext4 -O casefold -E encoding=utf8
	if ! mount -o loop,ro "$T/cf.img" "$M" 2>/dev/null; then
		rm -f "$T/cf.img"
		skip "residues 32 (casefold dir)" \
			"this kernel mounts no casefold filesystem (CONFIG_UNICODE)"
		return
	fi
	umount "$M"
	rm -f "$T/cf.img"
	begin 32 "casefold dir" "" -t ext4 -b 4096 -O casefold \
		-E encoding=utf8 || return
	common
	mkdir "$M/cf"
	if ! chattr +F "$M/cf" 2>/dev/null; then
		pre_err="$pre_err; chattr +F failed (no casefold in this kernel)"
	fi
	chattr +s "$M/cf"
	S=$(tk SECRET-CF) N=$(tk SECRET-CFNAME) K=$(tk KEEP-CF)
	i=0
	while [ $i -lt 40 ]; do
		canary "$M/cf/$N-$i" "$S" 3000
		canary "$M/cf/$K-$i" "$K" 3000
		i=$((i + 1))
	done
	sync
	rm "$M/cf/$N-"*
	live cf
	live "cf/$K-7"
	keep "$K"
	secret "$S"
	secret "$N"
	finish
}

# 33. Other layouts mke2fs makes: descriptors in meta groups, no flex
# groups with a second backup superblock only, the verity and
# stable_inodes features, 32-bit block numbers with the old descriptor
# checksums, linear directories.  A +s file and a +s directory of named
# files, deleted; the live files around them must not move.
sc33() {
	begin "$1" "$2" "" -t ext4 -b 4096 $3 || return
	common
	S=$(tk SECRET-LAYOUT) N=$(tk SECRET-LNAME) K=$(tk KEEP-LAYOUT)
	canary "$M/$N" "$S" 90000
	chattr +s "$M/$N"
	mkdir "$M/sdir" "$M/kdir"
	chattr +s "$M/sdir"
	i=0
	while [ $i -lt 20 ]; do
		canary "$M/sdir/$N-$i" "$S" 2000
		canary "$M/kdir/$K-$i" "$K" 2000
		i=$((i + 1))
	done
	sync
	rm -r "$M/$N" "$M/sdir"
	live kdir
	live "kdir/$K-3"
	keep "$K"
	secret "$S"
	secret "$N"
	finish
}

# ---- red-team A scenarios (40-49) ----

# rmx FILE NAME: remove an extended attribute.
rmx() {
	python3 -c 'import os, sys
os.removexattr(sys.argv[1], sys.argv[2])' "$1" "$2"
}

# setsflag FILE...: chattr +s in one call per 500 files.
setsflag() { printf '%s\0' "$@" | xargs -0 -n 500 chattr +s; }

# 40. fallocate --collapse-range and --insert-range on a live +s file: the
# extents shift; the collapsed range's blocks are freed with their bytes.
sc40() {
	begin 40 "collapse/insert range" "" -t ext4 -b 4096 || return
	common
	KA=$(tk KEEP-CA) S=$(tk SECRET-COLL) KB=$(tk KEEP-CB) KC=$(tk KEEP-CC)
	S2=$(tk SECRET-COLL2)
	f=$M/coll.bin
	{ piece "$KA" 131072; piece "$S" 131072; piece "$KB" 131072
	  piece "$S2" 65536; piece "$KC" 131072; } >"$f"
	chattr +s "$f"
	sync
	fallocate --collapse-range -o 131072 -l 131072 "$f"
	sync
	fallocate --insert-range -o 65536 -l 262144 "$f"
	sync
	# KA 0-64K, hole 64K-320K, KA 320K-384K, KB -512K, S2 -576K, KC:
	# collapse S2 too.
	fallocate --collapse-range -o 524288 -l 65536 "$f"
	sync
	grep -aq -e "$S" -e "$S2" "$f" && pre_err="$pre_err; a secret still in the file"
	[ "$(stat -c %s "$f")" = 655360 ] || pre_err="$pre_err; coll.bin not 640 KiB"
	live coll.bin
	keep "$KA"
	keep "$KB"
	keep "$KC"
	secret "$S"
	secret "$S2"
	finish
}

# 41. Cross-directory mv of a +s file, then rm; and a +s file (inherited
# from its +s directory) moved out into a plain directory, where it lives.
sc41() {
	begin 41 "cross-dir mv" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-MVDATA) N1=$(tk SECRET-MVA) N2=$(tk SECRET-MVB)
	N3=$(tk SECRET-OUTOLD) K=$(tk KEEP-OUTDATA) N4=$(tk KEEP-OUTNEW)
	mkdir "$M/a" "$M/b" "$M/s" "$M/p"
	for i in 1 2 3; do : >"$M/a/plain-$i"; : >"$M/b/plain-$i"; done
	canary "$M/a/$N1" "$S" 50000
	chattr +s "$M/a/$N1"
	sync
	mv "$M/a/$N1" "$M/b/$N2"
	sync
	rm "$M/b/$N2"
	chattr +s "$M/s"
	for i in 1 2 3; do : >"$M/s/other-$i"; done
	canary "$M/s/$N3" "$K" 30000
	lsattr "$M/s/$N3" | cut -d' ' -f1 | grep -q s ||
		pre_err="$pre_err; s/$N3 did not inherit +s"
	sync
	mv "$M/s/$N3" "$M/p/$N4"
	sync
	live a
	live b
	live s
	live p
	live "p/$N4"
	keep "$K"
	keep "$N4"
	secret "$S"
	secret "$N1"
	secret "$N2"
	secret "$N3"
	finish
}

# 42. rename over: a plain file renamed over a +s file (which dies by the
# rename); and a +s file renamed over a plain one (the plain one is FREE).
sc42() {
	begin 42 "rename over" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-VICTIM) KP=$(tk KEEP-WINNER)
	KS=$(tk KEEP-SWINNER) NS=$(tk SECRET-SOLDNAME) F=$(tk FREE-LOSER)
	canary "$M/target" "$S" 60000
	chattr +s "$M/target"
	canary "$M/plainnew" "$KP" 30000
	canary "$M/$NS" "$KS" 40000
	chattr +s "$M/$NS"
	canary "$M/plainold" "$F" 50000
	sync
	mv "$M/plainnew" "$M/target"
	mv "$M/$NS" "$M/plainold"
	sync
	live target
	live plainold
	keep "$KP"
	keep "$KS"
	free "$F"
	secret "$S"
	secret "$NS"
	finish
}

# 43. chattr -s after writing and syncing, then rm: the file was +s.
sc43() {
	begin 43 "chattr -s, then rm" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-WAS) N=$(tk SECRET-WASNAME)
	canary "$M/$N" "$S" 80000
	chattr +s "$M/$N"
	sync
	chattr -s "$M/$N"
	sync
	rm "$M/$N"
	secret "$S"
	secret "$N"
	finish
}

# 44a. A deleted +s file with an extent tree of depth 2 (1500 extents).
sc44a() {
	begin 44a "depth-2 tree, deleted" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-D2)
	f=$M/d2.bin
	: >"$f"
	chattr +s "$f"
	piece "$S" 4096 >"$T/blk"
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
b = open(sys.argv[2], "rb").read()
for i in range(1500):
    os.pwrite(fd, b, i * 2 * 4096)
os.fsync(fd)' "$f" "$T/blk"
	cycle || { bad pre "remount" "remount failed"; return; }
	debugfs -R "ex /d2.bin" "$img" 2>/dev/null | grep -q '^ *2/ *2' ||
		pre_err="$pre_err; extent tree of d2.bin is not of depth 2"
	rm "$f"
	secret "$S"
	finish
}

# 44b. A sparse +s file with a block at 1 TiB (and one at 0), deleted;
# and a live one the same, kept.
sc44b() {
	begin 44b "sparse 1 TiB, deleted" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-FAR) S0=$(tk SECRET-NEAR) K=$(tk KEEP-FAR)
	f=$M/far.bin
	: >"$f"
	chattr +s "$f"
	piece "$S0" 8192 | dd of="$f" bs=4096 conv=notrunc status=none
	piece "$S" 8192 | dd of="$f" bs=4096 seek=$((1 << 28)) conv=notrunc \
		status=none
	: >"$M/kfar.bin"
	chattr +s "$M/kfar.bin"
	piece "$K" 8192 | dd of="$M/kfar.bin" bs=4096 seek=$((1 << 28)) \
		conv=notrunc status=none
	sync
	[ "$(stat -c %s "$f")" -gt 1099511627776 ] ||
		pre_err="$pre_err; far.bin not past 1 TiB"
	rm "$f"
	# (no "live kfar.bin": sha256sum would read 1 TiB of holes)
	keep "$K"
	secret "$S"
	secret "$S0"
	finish
}

# 45. xattrs on a live +s file: a 3000-byte value set then removed (its
# EA block freed); a small in-inode value replaced several times.
sc45() {
	begin 45 "xattr removed/replaced" "" -t ext4 -b 4096 -I 256 || return
	common
	K=$(tk KEEP-XDATA) X=$(tk SECRET-XBIG) Y=$(tk KEEP-XLAST)
	f=$M/xa.bin
	canary "$f" "$K" 20000
	chattr +s "$f"
	v=$(piece "$X" 3000 | tr '\n' ' ')
	setx "$f" user.big "$v" || pre_err="$pre_err; cannot set an xattr"
	cycle || { bad pre "remount" "remount failed"; return; }
	ea=$(debugfs -R "stat /xa.bin" "$img" 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	[ -n "$ea" ] && [ "$ea" != 0 ] ||
		pre_err="$pre_err; the xattr is not in an EA block"
	rmx "$f" user.big || pre_err="$pre_err; cannot remove the xattr"
	sync
	for i in 1 2 3 4; do
		Xi=$(tk SECRET-XSM$i)
		setx "$f" user.small "$Xi" || pre_err="$pre_err; setx"
		secret "$Xi"
		sync
	done
	setx "$f" user.small "$Y"
	sync
	live xa.bin
	live xattr:user.small:xa.bin
	keep "$K"
	keep "$Y"
	secret "$X"
	finish
}

# 46. ea_inode: a live +s file's 65000-byte value (the largest the VFS
# takes is 65536) removed: its EA inode is freed.
sc46() {
	begin 46 "ea_inode removed" "" -t ext4 -b 4096 -O ea_inode || return
	common
	K=$(tk KEEP-EADATA) X=$(tk SECRET-EABIG)
	f=$M/eai.bin
	canary "$f" "$K" 20000
	chattr +s "$f"
	v=$(piece "$X" 65000 | tr '\n' ' ')
	setx "$f" user.big "$v" || pre_err="$pre_err; cannot set an xattr"
	cycle || { bad pre "remount" "remount failed"; return; }
	[ "$(ea_inodes)" -gt 0 ] ||
		pre_err="$pre_err; the xattr value is not in an EA inode"
	rmx "$f" user.big || pre_err="$pre_err; cannot remove the xattr"
	sync
	live eai.bin
	keep "$K"
	secret "$X"
	finish
}

# 47a. Shell > (O_TRUNC) rewrite of a +s file to a shorter content: one
# kept live, one later removed.
sc47a() {
	begin 47a "O_TRUNC rewrite" "" -t ext4 -b 4096 || return
	common
	S1=$(tk SECRET-TR1) K2=$(tk KEEP-TR2) S3=$(tk SECRET-TR3)
	S4=$(tk SECRET-TR4)
	piece "$S1" 200000 >"$M/live.txt"
	chattr +s "$M/live.txt"
	piece "$S3" 200000 >"$M/gone.txt"
	chattr +s "$M/gone.txt"
	sync
	piece "$K2" 50000 >"$M/live.txt"
	piece "$S4" 50000 >"$M/gone.txt"
	sync
	rm "$M/gone.txt"
	live live.txt
	keep "$K2"
	secret "$S1"
	secret "$S3"
	secret "$S4"
	finish
}

# 47b. A +s file written with O_DIRECT, then removed.
sc47b() {
	begin 47b "O_DIRECT, deleted" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-DIO)
	: >"$M/dio.bin"
	chattr +s "$M/dio.bin"
	piece "$S" 262144 >"$T/dio"
	dd if="$T/dio" of="$M/dio.bin" bs=65536 oflag=direct conv=notrunc \
		status=none || pre_err="$pre_err; O_DIRECT write failed"
	sync
	rm "$M/dio.bin"
	secret "$S"
	finish
}

# 47c. A +s file written through mmap, then removed.
sc47c() {
	begin 47c "mmap, deleted" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-MMAP)
	: >"$M/mm.bin"
	chattr +s "$M/mm.bin"
	piece "$S" 262144 >"$T/mm"
	python3 -c 'import mmap, os, sys
d = open(sys.argv[2], "rb").read()
fd = os.open(sys.argv[1], os.O_RDWR)
os.ftruncate(fd, len(d))
m = mmap.mmap(fd, len(d))
m[:] = d
m.flush()
m.close()
os.close(fd)' "$M/mm.bin" "$T/mm" || pre_err="$pre_err; mmap write failed"
	sync
	rm "$M/mm.bin"
	secret "$S"
	finish
}

# 48a. 500 small +s files in a plain directory, all removed; the
# directory kept.
sc48a() {
	begin 48a "500 +s files, dir kept" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-SMALL) N=$(tk SECRET-SNAME)
	mkdir "$M/d"
	: >"$M/d/plain-keep"
	i=0
	while [ $i -lt 500 ]; do
		printf '%s %d\n' "$S" $i >"$M/d/$N-$i"
		i=$((i + 1))
	done
	setsflag "$M/d/$N-"*
	sync
	rm "$M/d/$N-"*
	live d
	secret "$S"
	secret "$N"
	finish
}

# 48b. An htree plain directory of 3000 +s files, every second removed.
sc48b() {
	begin 48b "htree, every 2nd +s gone" "" -t ext4 -b 4096 -J size=16 ||
		return
	common
	S=$(tk SECRET-HDATA) N=$(tk SECRET-HNAME) K=$(tk KEEP-HNAME)
	KD=$(tk KEEP-HDATA)
	mkdir "$M/d"
	i=0
	while [ $i -lt 3000 ]; do
		if [ $((i % 2)) = 0 ]; then
			printf '%s %d\n' "$S" $i >"$M/d/$N-$i"
		else
			printf '%s %d\n' "$KD" $i >"$M/d/$K-$i"
		fi
		i=$((i + 1))
		[ $((i % 200)) != 0 ] || sync
	done
	setsflag "$M/d/"*
	lsattr -d "$M/d" 2>/dev/null | cut -d' ' -f1 | grep -q I ||
		pre_err="$pre_err; d is not indexed"
	sync
	rm "$M/d/$N-"*
	live d
	live "d/$K-1001"
	keep "$K"
	keep "$KD"
	secret "$S"
	secret "$N"
	finish
}

# 49. truncate -s to grow (sparse), then shrink below the original size,
# on a live +s file.
sc49() {
	begin 49 "truncate grow, shrink" "" -t ext4 -b 4096 || return
	common
	K=$(tk KEEP-TGHEAD) S=$(tk SECRET-TGTAIL)
	f=$M/tg.bin
	{ piece "$K" 65536; piece "$S" 196608; } >"$f"
	chattr +s "$f"
	sync
	truncate -s 10M "$f"
	sync
	truncate -s 40000 "$f"
	sync
	live tg.bin
	keep "$K"
	secret "$S"
	finish
}

# 50. shred -u on a +s file: overwritten in place, then renamed to ever
# shorter names of zeros, then removed.
sc50() {
	begin 50 "shred -u" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-SHRED) N=$(tk SECRET-SHNAME)
	canary "$M/$N" "$S" 100000
	chattr +s "$M/$N"
	sync
	shred -u -n 1 "$M/$N" || pre_err="$pre_err; shred failed"
	sync
	# shred overwrote the content in place; the name is what is left.
	secret "$N"
	finish
}

# 51. A +s file deleted, then plain files made at once: they take its
# inode number and its freed blocks; they must stay bit-exact.
sc51() {
	begin 51 "inode, blocks reused" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-REUSE) N=$(tk SECRET-RNAME) K=$(tk KEEP-REUSE)
	canary "$M/$N" "$S" 200000
	chattr +s "$M/$N"
	ino=$(stat -c %i "$M/$N")
	sync
	rm "$M/$N"
	sync
	i=0
	while [ $i -lt 6 ]; do
		canary "$M/new-$i" "$K-$i" 12000
		i=$((i + 1))
	done
	sync
	got=
	for i in 0 1 2 3 4 5; do
		[ "$(stat -c %i "$M/new-$i")" = "$ino" ] && got=1
		live "new-$i"
	done
	[ -n "$got" ] || pre_err="$pre_err; no new file took inode $ino"
	keep "$K"
	secret "$S"
	secret "$N"
	finish
}

# 52. An EA block shared (mbcache) by a +s file and a plain file with the
# same xattrs: the +s file deleted, the block stays the plain file's;
# another +s file's own EA block, shared with nobody, goes.
sc52() {
	begin 52 "shared EA block" "" -t ext4 -b 4096 || return
	common
	KX=$(tk KEEP-SHAREDX) S=$(tk SECRET-SHDATA) X=$(tk SECRET-OWNX)
	canary "$M/plain.bin" "$(tk KEEP-SHPLAIN)" 8000
	keep "$(tk KEEP-SHPLAIN)"
	canary "$M/s.bin" "$S" 8000
	canary "$M/s2.bin" "$S" 8000
	chattr +s "$M/s.bin" "$M/s2.bin"
	v=$(piece "$KX" 3000 | tr '\n' ' ')
	setx "$M/plain.bin" user.big "$v" && setx "$M/s.bin" user.big "$v" ||
		pre_err="$pre_err; cannot set an xattr"
	setx "$M/s2.bin" user.big "$(piece "$X" 3000 | tr '\n' ' ')"
	cycle || { bad pre "remount" "remount failed"; return; }
	a=$(debugfs -R "stat /plain.bin" "$img" 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	b=$(debugfs -R "stat /s.bin" "$img" 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	[ -n "$a" ] && [ "$a" != 0 ] && [ "$a" = "$b" ] ||
		pre_err="$pre_err; the EA block is not shared ($a, $b)"
	rm "$M/s.bin" "$M/s2.bin"
	live plain.bin
	live xattr:user.big:plain.bin
	keep "$KX"
	secret "$S"
	secret "$X"
	finish
}

# 54. inline_data: a small +s file rewritten larger (out of its inode),
# a small +s directory of inline entries, some removed, then grown out of
# its inode.
sc54() {
	begin 54 "inline converted" "" -t ext4 -b 4096 -I 256 -O inline_data ||
		return
	common
	S=$(tk SECRET-INLOLD) K=$(tk KEEP-INLNEW) N=$(tk SECRET-INLN)
	f=$M/inl.txt
	printf '%s\n' "$S" >"$f"
	chattr +s "$f"
	sync
	piece "$K" 20000 >"$f"
	sync
	mkdir "$M/d"
	chattr +s "$M/d"
	: >"$M/d/$N-1"
	: >"$M/d/k1"
	sync
	rm "$M/d/$N-1"
	sync
	i=0
	while [ $i -lt 40 ]; do
		: >"$M/d/keep-name-$i"
		i=$((i + 1))
	done
	sync
	live inl.txt
	live d
	keep "$K"
	secret "$S"
	secret "$N"
	finish
}

# 48c. 48b in a +s directory (the files inherit the flag).
sc48c() {
	begin 48c "htree +s dir, every 2nd" "" -t ext4 -b 4096 -J size=16 ||
		return
	common
	N=$(tk SECRET-HNAME) K=$(tk KEEP-HNAME)
	mkdir "$M/d"
	chattr +s "$M/d"
	i=0
	while [ $i -lt 3000 ]; do
		if [ $((i % 2)) = 0 ]; then
			: >"$M/d/$N-$i"
		else
			: >"$M/d/$K-$i"
		fi
		i=$((i + 1))
		[ $((i % 200)) != 0 ] || sync
	done
	sync
	rm "$M/d/$N-"*
	live d
	keep "$K"
	secret "$N"
	finish
}

# 55. fast_commit: a live +s file's hole punched and fsynced (a range
# tag in the fast-commit area), another +s file appended to and fsynced,
# then truncated and fsynced.
sc55() {
	begin 55 "fast commit punch" commit=600 -t ext4 -b 4096 -O fast_commit ||
		return
	common
	KA=$(tk KEEP-FCA) S=$(tk SECRET-FCHOLE) KB=$(tk KEEP-FCB)
	K2=$(tk KEEP-FC2) S2=$(tk SECRET-FC2)
	f=$M/fc.bin
	{ piece "$KA" 65536; piece "$S" 131072; piece "$KB" 65536; } >"$f"
	chattr +s "$f"
	piece "$K2" 32768 >"$M/fc2.bin"
	chattr +s "$M/fc2.bin"
	sync
	fallocate -p -o 65536 -l 131072 "$f"
	xfs_io -c fsync "$f"
	piece "$S2" 131072 >>"$M/fc2.bin"
	xfs_io -c fsync "$M/fc2.bin"
	truncate -s 32768 "$M/fc2.bin"
	xfs_io -c fsync "$M/fc2.bin"
	live fc.bin
	live fc2.bin
	keep "$KA"
	keep "$KB"
	keep "$K2"
	secret "$S"
	secret "$S2"
	finish
}

# 56. 255-byte +s names in a plain htree directory, every second one
# removed.
sc56() {
	begin 56 "255-byte names" "" -t ext4 -b 4096 -J size=16 || return
	common
	N=$(tk SECRET-LONG) K=$(tk KEEP-LONG)
	pad=$(printf '%0240d' 0)
	mkdir "$M/d"
	i=0
	while [ $i -lt 800 ]; do
		if [ $((i % 2)) = 0 ]; then
			n=$N-$i-$pad
		else
			n=$K-$i-$pad
		fi
		n=$(printf '%s' "$n" | cut -c1-255)
		echo "$i" >"$M/d/$n"
		i=$((i + 1))
		[ $((i % 100)) != 0 ] || sync
	done
	setsflag "$M/d/"*
	sync
	rm "$M/d/$N-"*
	live d
	keep "$K"
	secret "$N"
	finish
}

# 57. Inode numbers used again: a +s file deleted, then a plain file
# made with its number (it lives: name and data KEEP); another +s file
# deleted, then a plain file made with its number and deleted too (its
# name and data are FREE, in the journal as well).
sc57() {
	begin 57 "plain reuses +s inode" "" -t ext4 -b 4096 || return
	common
	S=$(tk SECRET-OLDINC) N=$(tk SECRET-OLDNAME)
	S2=$(tk SECRET-OLDINC2) N2=$(tk SECRET-OLDNAME2)
	K=$(tk KEEP-NEWINC) KN=$(tk KEEP-NEWNAME)
	F=$(tk FREE-NEWINC) FN=$(tk FREE-NEWNAME)
	mkdir "$M/d"
	canary "$M/d/$N" "$S" 60000
	chattr +s "$M/d/$N"
	ino=$(stat -c %i "$M/d/$N")
	sync
	rm "$M/d/$N"
	sync
	canary "$M/d/$KN" "$K" 60000
	[ "$(stat -c %i "$M/d/$KN")" = "$ino" ] ||
		pre_err="$pre_err; $KN did not take inode $ino"
	sync
	canary "$M/d/$N2" "$S2" 60000
	chattr +s "$M/d/$N2"
	ino2=$(stat -c %i "$M/d/$N2")
	sync
	rm "$M/d/$N2"
	sync
	canary "$M/d/$FN" "$F" 60000
	[ "$(stat -c %i "$M/d/$FN")" = "$ino2" ] ||
		pre_err="$pre_err; $FN did not take inode $ino2"
	sync
	rm "$M/d/$FN"
	sync
	live d
	live "d/$KN"
	keep "$K"
	keep "$KN"
	free "$F"
	free "$FN"
	jfree "$FN"
	secret "$S"
	secret "$N"
	secret "$S2"
	secret "$N2"
	finish
}

# ---- red team B: filesystem configurations and journal churn ----------

# 60. 1k blocks: +s files deleted; an htree +s directory, every third
# entry removed.
sc60() {
	begin 60 "1k blocks, htree" "" -t ext4 -b 1024 || return
	common
	S=$(tk SECRET-DATA1K) N=$(tk SECRET-NAME1K)
	canary "$M/$N-a" "$S" 150000
	canary "$M/$N-b" "$S" 3000
	chattr +s "$M/$N-a" "$M/$N-b"
	mkdir "$M/h"
	chattr +s "$M/h"
	G=$(tk SECRET-HGONE) K=$(tk KEEP-HNAME)
	i=0
	while [ $i -lt 600 ]; do
		if [ $((i % 3)) = 0 ]; then
			echo "$S" >"$M/h/$G-$i-padpadpadpad"
		else
			: >"$M/h/$K-$i-padpadpadpad"
		fi
		i=$((i + 1))
	done
	lsattr -d "$M/h" 2>/dev/null | cut -d' ' -f1 | grep -q I ||
		pre_err="$pre_err; h is not indexed"
	sync
	rm "$M/$N-a" "$M/$N-b" "$M/h/$G-"*
	live h
	live "h/$K-1-padpadpadpad"
	keep "$K"
	secret "$S"
	secret "$N"
	secret "$G"
	finish
}

# 61. 2k blocks, 128-byte inodes (no extra fields, no in-inode xattrs): a
# deleted +s file with an xattr (in an EA block); a live +s file whose
# only xattr is removed (its EA block freed).
sc61() {
	begin 61 "2k blocks, -I 128" "" -t ext4 -b 2048 -I 128 || return
	common
	S=$(tk SECRET-DATA2K) N=$(tk SECRET-NAME2K) X=$(tk SECRET-XATTR2K)
	Y=$(tk SECRET-LXATTR)
	canary "$M/$N" "$S" 50000
	chattr +s "$M/$N"
	setx "$M/$N" user.tag "$X" || pre_err="$pre_err; setx failed"
	KL=$(tk KEEP-LIVEX)
	canary "$M/livex.bin" "$KL" 5000
	chattr +s "$M/livex.bin"
	setx "$M/livex.bin" user.tag "$Y" || pre_err="$pre_err; setx failed"
	cycle || { bad pre "remount" "remount failed"; return; }
	ea=$(debugfs -R "stat /livex.bin" "$img" 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	[ -n "$ea" ] && [ "$ea" != 0 ] ||
		pre_err="$pre_err; livex.bin xattr is not in an EA block"
	rm "$M/$N"
	python3 -c 'import os,sys; os.removexattr(sys.argv[1], "user.tag")' \
		"$M/livex.bin"
	sync
	live livex.bin
	keep "$KL"
	secret "$S"
	secret "$N"
	secret "$X"
	secret "$Y"
	finish
}

# 62. inline_data: a +s directory whose few entries are inline, some
# removed; a +s inline file shrunk (the tail cut), another rewritten
# larger than the inode holds (moved out to a block).
sc62() {
	begin 62 "inline dir and file" "" -t ext4 -b 4096 -I 256 \
		-O inline_data || return
	common
	mkdir "$M/idir"
	chattr +s "$M/idir"
	G=$(tk SG) K=$(tk KP)
	: >"$M/idir/$G-1"
	: >"$M/idir/$K-2"
	: >"$M/idir/$G-3"
	: >"$M/idir/$K-4"
	KH=$(tk KEEP-IH) ST=$(tk SECRET-IT) SO=$(tk SECRET-IO) KN=$(tk KEEP-IN)
	printf '%s%s' "$KH" "$ST" >"$M/shrink.txt"
	printf '%s' "$SO" >"$M/grow.txt"
	chattr +s "$M/shrink.txt" "$M/grow.txt"
	cycle || { bad pre "remount" "remount failed"; return; }
	debugfs -R "stat /idir" "$img" 2>/dev/null | grep -q 'Size of inline data' ||
		pre_err="$pre_err; idir is not inline"
	debugfs -R "stat /shrink.txt" "$img" 2>/dev/null | grep -q 'Size of inline data' ||
		pre_err="$pre_err; shrink.txt is not inline"
	rm "$M/idir/$G-1" "$M/idir/$G-3"
	truncate -s ${#KH} "$M/shrink.txt"
	piece "$KN" 8000 >"$M/grow.txt"
	sync
	live idir
	live shrink.txt
	live grow.txt
	keep "$KH"
	keep "$KN"
	keep "$K"
	secret "$G"
	secret "$ST"
	secret "$SO"
	finish
}

# 64. Journal churn: a 4 MiB journal, rounds of 50 +s files made and 25
# of them deleted; e2secrm -y between rounds 2 and 3 (state kept), then
# rounds until the ring has wrapped past that run.
sc64() {
	begin 64 "churn, run between" "" -t ext4 -b 4096 -J size=4 || return
	common
	r=1
	mid=
	while [ $r -le ${CHURN_ROUNDS:-50} ]; do
		S=$(tk SECRET-R$r) KR=$(tk KEEP-R$r)
		j=0
		while [ $j -lt 50 ]; do
			f=$M/r$r-$j
			if [ $((j % 2)) = 0 ]; then
				piece "$S-$j-" 6000 >"$f"
			else
				piece "$KR-$j-" 6000 >"$f"
			fi
			chattr +s "$f"
			j=$((j + 1))
		done
		sync
		j=0
		while [ $j -lt 25 ]; do
			rm "$M/r$r-$((j * 2))"
			j=$((j + 1))
		done
		sync
		if [ $r -le 2 ]; then
			mid="$mid $S"
		else
			secret "$S"
		fi
		[ $r != 3 ] || keep "$KR"
		if [ $r = 2 ]; then
			kumount || return
			run_e2secrm -y "$img"
			echo "   mid run: rc=$rc; $(echo "$out" | grep -i 'history\|traced\|lost' | tr '\n' ' ')"
			left=
			for t in $mid; do
				[ "$(count "$t" "$img")" = 0 ] ||
					left="$left $t"
			done
			if [ -n "$left" ] && [ $((rc & 4)) = 0 ]; then
				fail "residues 64 (mid run)" "left$left, rc=$rc $(brief "$out")"
			else
				pass "residues 64 (mid run): rc=$rc${left:+, left$left with bit 4}"
			fi
			e2fsck -fn "$img" >/dev/null 2>&1 ||
				fail "residues 64 (mid run)" "e2fsck -fn not clean"
			kmount "$img" "$mopts" || return
		fi
		r=$((r + 1))
	done
	j=0
	while [ $j -lt 25 ]; do
		live "r3-$((j * 2 + 1))"
		j=$((j + 1))
	done
	wrapped=1 precheck=pre64
	finish
}

# pre64: reused blocks lose some rounds' tokens before the run: test the
# rest.
pre64() {
	kept=
	for t in $secrets; do
		[ "$(count "$t" "$img")" = 0 ] || kept="$kept $t"
	done
	echo "  $(echo $kept | wc -w) of $(echo $secrets | wc -w) round tokens in the image before the run"
	secrets=$kept
}

# 65/66. fast_commit: a +s file created, written, fsync'ed, appended and
# fsync'ed, renamed and fsync'ed, unlinked and fsync'ed; 55: clean
# unmount; 56: shut down after the last fsync (fast commits replayed).
sc65() {
	crash=$2
	begin "$1" "fast commit seq${crash:+, crash}" commit=600 -t ext4 -b 4096 \
		-O fast_commit || return
	common
	rm "$M/free.txt"
	mkdir "$M/d"
	F=$(tk FREE-FCSEQ)
	canary "$M/d/plain" "$F" 20000
	sync -f "$M"
	live keep-plain.txt
	live keep-s.txt
	S1=$(tk SECRET-FC1) S2=$(tk SECRET-FC2) N1=$(tk SECRET-FN1)
	N2=$(tk SECRET-FN2)
	piece "$S1" 40000 >"$T/p1"
	piece "$S2" 30000 >"$T/p2"
	: >"$M/d/$N1"
	chattr +s "$M/d/$N1"
	lsattr "$M/d/$N1" | cut -d' ' -f1 | grep -q s ||
		pre_err="$pre_err; $N1 is not +s"
	xfs_io -c "pwrite -q -i $T/p1 0 40000" -c fsync "$M/d/$N1"
	xfs_io -c "pwrite -q -i $T/p2 40000 30000" -c fsync "$M/d/$N1"
	mv "$M/d/$N1" "$M/d/$N2"
	xfs_io -c fsync "$M/d/$N2"
	xfs_io -c fsync "$M/d"
	rm "$M/d/$N2"
	xfs_io -c fsync "$M/d"
	secret "$S1"
	secret "$S2"
	secret "$N1"
	secret "$N2"
	if [ -n "$crash" ]; then
		xfs_io -x -c shutdown "$M"
		# finish may read the live files again on the dead mount.
		precheck=pre66
	else
		rm "$M/d/plain"
		free "$F"
		live d
	fi
	finish
}

pre66() {
	awk '!seen[$1]++' "$T/sums" >"$T/sums.1" && mv "$T/sums.1" "$T/sums"
	debugfs -R "stats" "$img" 2>/dev/null | grep -i 'features' | head -1
}

# 71. Journal formats: 1k blocks, a 1024-block journal, no metadata_csum
# (71a: 64-bit tags, no journal checksum; 71b: 32-bit, -o
# journal_checksum, csum v3; 71c: data=journal on 71a's layout), +s files
# (data, names, a short xattr) deleted in rounds between plain churn, so
# that the ring wraps over some of them.
sc71() {
	begin "$1" "$2" "$3" -t ext4 -b 1024 -I 256 -J size=1 $4 || return
	common
	mkdir "$M/s" "$M/p"
	chattr +s "$M/s"
	S=$(tk SECRET-JF) N=$(tk SECRET-JFN)
	r=0
	while [ $r -lt 8 ]; do
		i=0
		while [ $i -lt 10 ]; do
			piece "$S-$r-$i-" 3000 >"$M/s/$N-$r-$i"
			setx "$M/s/$N-$r-$i" user.v "$S-x$r-$i" ||
				pre_err="$pre_err; setx failed"
			i=$((i + 1))
		done
		sync
		rm "$M/s/$N-$r-"*
		sync
		python3 -c 'import sys
for j in range(40):
    open("%s/f-%s-%d" % (sys.argv[1], sys.argv[2], j), "w").close()' \
			"$M/p" $r
		sync
		r=$((r + 1))
	done
	# Plain churn after the last +s round, so the ring wraps over the
	# +s rounds' transactions.
	r=0
	while [ $r -lt "${5:-12}" ]; do
		python3 -c 'import sys
for j in range(80):
    open("%s/g-%s-%d" % (sys.argv[1], sys.argv[2], j), "w").close()' \
			"$M/p" $r
		sync
		r=$((r + 1))
	done
	precheck=pre64 wrapped=1
	live s
	live p
	secret "$S"
	secret "$N"
	finish
}

# 72. A live +s file's xattr value replaced: the old value is in journal
# copies of its inode table block (62a, 256-byte records) or of its EA
# block (62b, -I 128, 2k blocks).
sc72() {
	begin "$1" "xattr replaced, $2" "" -t ext4 $3 || return
	common
	K=$(tk KEEP-XBODY) O=$(tk SECRET-XOLD) Y=$(tk KEEP-XNEW)
	f=$M/xr.bin
	canary "$f" "$K" 5000
	chattr +s "$f"
	setx "$f" user.v "$(piece "$O" $4 | tr '\n' ' ')" ||
		pre_err="$pre_err; setx failed"
	sync
	setx "$f" user.v "$(piece "$Y" $4 | tr '\n' ' ')" ||
		pre_err="$pre_err; setx failed"
	sync
	live xr.bin
	live xattr:user.v:xr.bin
	keep "$K"
	keep "$Y"
	secret "$O"
	finish
}

# 69. ext3-like on the ext4 driver (^metadata_csum,^64bit,^extent),
# uninit_bg, lazy_itable_init=1: +s deletions.
sc69() {
	begin 69 "no extents, uninit_bg" "" -t ext4 -b 4096 \
		-O ^metadata_csum,^64bit,^extent,uninit_bg \
		-E lazy_itable_init=1 || return
	common
	S=$(tk SECRET-IND) N=$(tk SECRET-INDNAME)
	canary "$M/$N" "$S" 300000
	chattr +s "$M/$N"
	mkdir "$M/sd"
	chattr +s "$M/sd"
	i=0
	while [ $i -lt 30 ]; do
		canary "$M/sd/$N-$i" "$S" 5000
		i=$((i + 1))
	done
	debugfs -R "stat /$N" "$img" >/dev/null 2>&1
	sync
	lsattr "$M/$N" | cut -d' ' -f1 | grep -q e &&
		pre_err="$pre_err; $N has extents"
	rm -r "$M/$N" "$M/sd"
	secret "$S"
	secret "$N"
	finish
}

# ---- red team C (2026-12-05): a plain file reusing a +s file's number,
# and the entries of journal copies of directory blocks that name it ----

# jcount TOKEN: how many journal blocks hold TOKEN (informational).
jcount() {
	jdump >/dev/null 2>&1 && jholds "$1" | wc -l
}

# 80/81. +s d/notes.txt deleted; a plain d/notes.txt (an editor's
# re-create) takes its number; 80: a sync between, 81: the same
# transaction.
sc80() {
	begin "$1" "same name reuses${2:+, one tx}" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	S=$(tk SECRET-SAMENAME) K=$(tk KEEP-SAMENAME) KN=$(tk KEEP-NEIGHBOUR)
	canary "$M/d/$KN" "$K-n" 3000
	canary "$M/d/notes.txt" "$S" 40000
	chattr +s "$M/d/notes.txt"
	ino=$(stat -c %i "$M/d/notes.txt")
	sync
	rm "$M/d/notes.txt"
	[ -n "$2" ] || sync
	canary "$M/d/notes.txt" "$K" 40000
	[ "$(stat -c %i "$M/d/notes.txt")" = "$ino" ] ||
		pre_err="$pre_err; notes.txt did not take inode $ino"
	sync
	touch "$M/d/$KN"
	: >"$M/d/other"
	sync
	live d
	live d/notes.txt
	live "d/$KN"
	keep "$K"
	keep "$KN"
	jfree "$KN"
	secret "$S"
	finish
}

# 82. Three lives of one number: +s A, plain B, +s C, each deleted.
# (from here to 95: a red-team run on the rule that keeps a later plain
# file's entries, fd3b82e)
sc82() {
	begin 82 "three lives +s/plain/+s" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	SA=$(tk SECRET-LA) NA=$(tk SECRET-LNA) FB=$(tk FREE-LB) NB=$(tk FREE-LNB)
	SC=$(tk SECRET-LC) NC=$(tk SECRET-LNC)
	canary "$M/d/$NA" "$SA" 30000
	chattr +s "$M/d/$NA"
	ino=$(stat -c %i "$M/d/$NA")
	sync
	rm "$M/d/$NA"
	sync
	canary "$M/d/$NB" "$FB" 30000
	[ "$(stat -c %i "$M/d/$NB")" = "$ino" ] ||
		pre_err="$pre_err; B did not take inode $ino"
	sync
	rm "$M/d/$NB"
	sync
	canary "$M/d/$NC" "$SC" 30000
	chattr +s "$M/d/$NC"
	[ "$(stat -c %i "$M/d/$NC")" = "$ino" ] ||
		pre_err="$pre_err; C did not take inode $ino"
	sync
	rm "$M/d/$NC"
	sync
	live d
	# B's data and name are B's, though +s lives come before and
	# after it (another generation each; plan_journal_names.c, plain_life).
	free "$FB"
	free "$NB"
	jfree "$NB"
	secret "$SA"
	secret "$NA"
	secret "$SC"
	secret "$NC"
	finish
}

# 83. Plain P deleted, +s S takes its number, S deleted: P's data and
# its name in every journal copy stay.  83b: 128-byte records (no
# creation time: the generation and the map tell the lives apart).
sc83() {
	begin "$1" "plain then +s${2:+, 128-byte inodes}" "" -t ext4 -b 4096 \
		${2:+-I 128} || return
	common
	mkdir "$M/d"
	FP=$(tk FREE-PFIRST) NP=$(tk FREE-PNAME) S=$(tk SECRET-SLATER) NS=$(tk SECRET-SNAME)
	canary "$M/d/$NP" "$FP" 30000
	ino=$(stat -c %i "$M/d/$NP")
	sync
	rm "$M/d/$NP"
	sync
	canary "$M/d/$NS" "$S" 30000
	chattr +s "$M/d/$NS"
	[ "$(stat -c %i "$M/d/$NS")" = "$ino" ] ||
		pre_err="$pre_err; S did not take inode $ino"
	sync
	rm "$M/d/$NS"
	sync
	live d
	free "$FP"
	free "$NP"
	jfree "$NP"
	secret "$S"
	secret "$NS"
	finish
}

# 84. A +s file with a hard link in another directory; both names
# removed; a plain file takes the number.
sc84() {
	begin 84 "hard link, then reuse" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/a" "$M/b"
	S=$(tk SECRET-HL) NA=$(tk SECRET-HLA) NB=$(tk SECRET-HLB)
	K=$(tk KEEP-HLNEW) KN=$(tk KEEP-HLNEWN)
	canary "$M/a/$NA" "$S" 30000
	chattr +s "$M/a/$NA"
	ino=$(stat -c %i "$M/a/$NA")
	ln "$M/a/$NA" "$M/b/$NB"
	sync
	rm "$M/a/$NA"
	sync
	rm "$M/b/$NB"
	sync
	canary "$M/b/$KN" "$K" 30000
	[ "$(stat -c %i "$M/b/$KN")" = "$ino" ] ||
		pre_err="$pre_err; $KN did not take inode $ino"
	sync
	: >"$M/a/x"
	sync
	live a
	live b
	live "b/$KN"
	keep "$K"
	keep "$KN"
	jfree "$KN"
	secret "$S"
	secret "$NA"
	secret "$NB"
	finish
}

# 85. +s file in a/ deleted; a plain file in b/ takes its number; both
# directories' blocks logged again afterwards.
sc85() {
	begin 85 "reuse across dirs" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/a" "$M/b"
	: >"$M/b/first"
	S=$(tk SECRET-XD) NS=$(tk SECRET-XDN) K=$(tk KEEP-XD) KN=$(tk KEEP-XDN)
	canary "$M/a/$NS" "$S" 30000
	chattr +s "$M/a/$NS"
	ino=$(stat -c %i "$M/a/$NS")
	sync
	: >"$M/a/y"
	sync
	rm "$M/a/$NS"
	sync
	canary "$M/b/$KN" "$K" 30000
	[ "$(stat -c %i "$M/b/$KN")" = "$ino" ] ||
		pre_err="$pre_err; $KN did not take inode $ino"
	sync
	: >"$M/a/z"
	: >"$M/b/w"
	sync
	live a
	live b
	live "b/$KN"
	keep "$K"
	keep "$KN"
	jfree "$KN"
	secret "$S"
	secret "$NS"
	finish
}

# 86/87. fast_commit, fsync instead of sync: 80 and 81.
sc86() {
	begin "$1" "fc same name${2:+, one tx}" commit=600 -t ext4 -b 4096 \
		-O fast_commit || return
	common
	mkdir "$M/d"
	sync
	S=$(tk SECRET-FCSAME) K=$(tk KEEP-FCSAME) KN=$(tk KEEP-FCNEIGH)
	canary "$M/d/$KN" "$K-n" 3000
	xfs_io -c fsync "$M/d/$KN"
	canary "$M/d/notes.txt" "$S" 40000
	chattr +s "$M/d/notes.txt"
	ino=$(stat -c %i "$M/d/notes.txt")
	xfs_io -c fsync "$M/d/notes.txt"
	xfs_io -c fsync "$M/d"
	rm "$M/d/notes.txt"
	[ -n "$2" ] || xfs_io -c fsync "$M/d"
	canary "$M/d/notes.txt" "$K" 40000
	[ "$(stat -c %i "$M/d/notes.txt")" = "$ino" ] ||
		pre_err="$pre_err; notes.txt did not take inode $ino"
	xfs_io -c fsync "$M/d/notes.txt"
	xfs_io -c fsync "$M/d"
	live d
	live d/notes.txt
	live "d/$KN"
	keep "$K"
	keep "$KN"
	secret "$S"
	finish
}

# churn88 DIR-TAG N: N empty plain files made in $M/p, then a sync.
churn88() {
	python3 -c 'import sys
for j in range(int(sys.argv[3])):
    open("%s/g-%s-%d" % (sys.argv[1], sys.argv[2], j), "w").close()' \
		"$M/p" "$1" "$2"
	sync
}

# 90. Sessions on a kernel that starts the log at the ring's first block
# at each mount (before 6.3, e.g. Debian 12's 6.1; emulated here by
# zeroing the journal superblock's s_head after each unmount): the log
# then loses a middle run of transactions while older ones stay.
# Session 0: +s R, deleted; plain Q takes the number, deleted (late in
# the ring).  Session 1: +s S takes the number; later, a copy of d's
# block with S's entry live.  Session 2: S unlinked and plain P takes
# the number in one transaction.  Session 3: plain churn over the
# ring's first blocks (S's records).
headzero() {
	b=$(debugfs -R "bmap <8> 0" "$img" 2>/dev/null)
	hd=$(od -An -tx1 -j $((b * 1024 + 88)) -N4 "$img" | tr -d ' ')
	printf '\000\000\000\000' | dd of="$img" bs=1 seek=$((b * 1024 + 88)) \
		conv=notrunc 2>/dev/null
	echo "   90: s_head was $hd, zeroed"
}
sess90() {
	sync
	kumount || return 1
	headzero
	"$E2SECRM" --journal-map "$img" 2>/dev/null | sed -n 1,2p | sed 's/^/   90 map: /'
	kmount "$img" "$mopts"
}
sc90() {
	begin 90 "6.1 sessions, gap" "" -t ext4 -b 1024 -I 256 -J size=1 \
		-O 64bit,^metadata_csum || return
	common
	mkdir "$M/d" "$M/p" "$M/q"
	SR=$(tk SECRET-R90) NR=$(tk SECRET-RN90) FQ=$(tk FREE-Q90)
	SS=$(tk SECRET-S90) NS=$(tk SECRET-SN90) K=$(tk KEEP-P90) KN=$(tk KEEP-PN90)
	churn88 s0 "${C0:-400}"
	canary "$M/d/$NR" "$SR" 6000
	chattr +s "$M/d/$NR"
	ino=$(stat -c %i "$M/d/$NR")
	sync
	rm "$M/d/$NR"
	sync
	canary "$M/d/$FQ" "$FQ" 3000
	[ "$(stat -c %i "$M/d/$FQ")" = "$ino" ] || pre_err="$pre_err; Q did not take $ino"
	sync
	rm "$M/d/$FQ"
	sync
	sess90 || return
	canary "$M/d/$NS" "$SS" 6000
	chattr +s "$M/d/$NS"
	[ "$(stat -c %i "$M/d/$NS")" = "$ino" ] || pre_err="$pre_err; S did not take $ino"
	sync
	r=0
	while [ $r -lt "${C1:-6}" ]; do
		python3 -c 'import sys
for j in range(40):
    open("%s/h-%s-%d" % (sys.argv[1], sys.argv[2], j), "w").close()' \
			"$M/q" "$r"
		sync
		r=$((r + 1))
	done
	ln "$M/keep-plain.txt" "$M/d/lnk"
	sync
	sess90 || return
	rm "$M/d/$NS"
	canary "$M/d/$KN" "$K" 1000
	[ "$(stat -c %i "$M/d/$KN")" = "$ino" ] || pre_err="$pre_err; P did not take $ino"
	sync
	sess90 || return
	r=0
	while [ $r -lt "${C3:-3}" ]; do
		churn88 "e$r" 40
		r=$((r + 1))
	done
	precheck=pre90 wrapped=1
	live d
	live "d/$KN"
	keep "$K"
	keep "$KN"
	free "$FQ"
	secret "$SR"
	secret "$NR"
	secret "$SS"
	secret "$NS"
	finish
}
pre90() {
	jdump
	for t in $secrets $FQ; do
		echo "   90 before: $t jblocks: $(jholds "$t" | awk '{print $2}' | tr '\n' ' ')"
	done
	"$E2SECRM" --journal-map "$img" 2>/dev/null | sed -n 1,2p | sed 's/^/   90 map: /'
	"$E2SECRM" --journal-map "$img" 2>/dev/null | awk -v i="$ino" '$4 == "itable" { split($5, r, "-"); if (i >= r[1] && i <= r[2]) print "   90 rec of " i ": jblock " $1 " tid " $2 }' | head -20
	"$E2SECRM" --journal-map "$img" 2>/dev/null | awk '$4 == "dir"' | head -40 | sed 's/^/   90 dir: /'
	pre64
}

# 91. chattr -s and a new generation (chattr -v) in one transaction,
# while the file lives: later copies of its directory block name it
# under a generation no +s version has.  Then rm, and a plain file takes
# the number.
sc91() {
	begin 91 "chattr -s -v, reuse" "" -t ext4 -b 4096 || return
	common
	mkdir "$M/d"
	S=$(tk SECRET-GV) NS=$(tk SECRET-GVN) K=$(tk KEEP-GV) KN=$(tk KEEP-GVN)
	canary "$M/d/$NS" "$S" 30000
	chattr +s "$M/d/$NS"
	ino=$(stat -c %i "$M/d/$NS")
	sync
	chattr -s -v 123456789 "$M/d/$NS"
	sync
	: >"$M/d/after"
	sync
	rm "$M/d/$NS"
	sync
	canary "$M/d/$KN" "$K" 30000
	[ "$(stat -c %i "$M/d/$KN")" = "$ino" ] ||
		pre_err="$pre_err; $KN did not take inode $ino"
	sync
	live d
	live "d/$KN"
	keep "$K"
	keep "$KN"
	secret "$S"
	secret "$NS"
	finish
}

# 94. +s d/$NS unlinked and plain d/$FN created in one transaction (the
# number reused); the plain file renamed, then deleted: its names must stay
# in every journal copy.  95: the same on ext3 (no extents, 1k blocks,
# 128-byte inodes).
sc94() {
	begin "$1" "one tx, plain renamed, deleted${2:+, ext3}" "" ${2:--t ext4 -b 4096} || return
	common
	mkdir "$M/d"
	S=$(tk SECRET-OT) NS=$(tk SECRET-OTN) F=$(tk FREE-OT) FN=$(tk FREE-OTN) FN2=$(tk FREE-OTM)
	canary "$M/d/$NS" "$S" 30000
	chattr +s "$M/d/$NS"
	ino=$(stat -c %i "$M/d/$NS")
	sync
	rm "$M/d/$NS"
	canary "$M/d/$FN" "$F" 3000
	[ "$(stat -c %i "$M/d/$FN")" = "$ino" ] ||
		pre_err="$pre_err; $FN did not take inode $ino"
	sync
	mv "$M/d/$FN" "$M/d/$FN2"
	sync
	rm "$M/d/$FN2"
	sync
	live d
	free "$F"
	free "$FN"
	free "$FN2"
	jfree "$FN"
	jfree "$FN2"
	secret "$S"
	secret "$NS"
	finish
}

# 96. A +s file deleted, then a plain file written into part of its
# freed blocks (the allocator hands them out again), then deleted too:
# those blocks hold the plain file's bytes, which its copy in the log
# proves (a written extent, in a transaction after the +s file's last
# copy); they stay, and the rest of the +s file's blocks go.  96a: ext4,
# extents; 96b: ext3, an indirect map.  The rest of the filesystem is
# filled first (a live file of zeros, no reserved blocks or clusters),
# so that
# the +s file's freed blocks are the only place the plain file can go.
# Before the owner rule, the run wiped the plain file's blocks as the +s
# file's.
sc96() {
	begin "$1" "plain file over freed +s blocks, ${2#-t }" "" $2 \
		-b 4096 -J size=4 -m 0 || return
	common
	S=$(tk SECRET-EARLY) F=$(tk FREE-LATER)
	mkdir "$M/d"
	piece "$S" 80000 >"$M/d/s.txt"
	chattr +s "$M/d/s.txt"
	sync
	sb=$(filefrag -v "$M/d/s.txt" 2>/dev/null |
		awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
	# ext4 keeps clusters back for itself (reserved_clusters): none.
	dev=$(basename "$(findmnt -n -o SOURCE "$M")")
	[ ! -w "/sys/fs/ext4/$dev/reserved_clusters" ] ||
		echo 0 >"/sys/fs/ext4/$dev/reserved_clusters"
	avail=$(df -B4096 --output=avail "$M" | tail -1)
	dd if=/dev/zero of="$M/filler" bs=4096 count="$avail" 2>/dev/null
	sync
	rm "$M/d/s.txt"
	sync
	piece "$F" 40000 >"$M/d/p.txt"
	sync
	pb=$(filefrag -v "$M/d/p.txt" 2>/dev/null |
		awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
	# The point: the plain file took some of the +s file's blocks.
	[ -n "$sb" ] && [ -n "$pb" ] && [ "$pb" -ge "$sb" ] &&
	   [ "$pb" -lt $((sb + 20)) ] ||
		pre_err="$pre_err; the plain file (at ${pb:-?}) did not reuse the +s file's blocks (at ${sb:-?})"
	rm "$M/d/p.txt"
	sync
	live filler
	secret "$S"
	free "$F"
	finish
}

# 97. A plain file cut short (its tail freed), then given a new
# generation (`chattr -v`, which ext4 allows without metadata_csum) and
# only then `chattr +s`: the versions of its old generation are the same
# file (the same creation time), so the cut tail is the +s file's too.
# Before, the old generation's versions were another file's, and the
# tail was left with exit 1.  97b: 128-byte records, no creation time:
# the record before the new generation and the one after it map the
# same blocks and bytes, which a new file on a freed number would not.
sc97() {
	begin "$1" "late +s after chattr -v${2:+, 128-byte inodes}" "" \
		-t ext4 -O ^metadata_csum -b 4096 -J size=4 ${2:+-I 128} ||
		return
	common
	S=$(tk SECRET-CUTV) K=$(tk KEEP-HEADV)
	{ piece "$K" 40960; piece "$S" 81920; } >"$M/f.txt"
	sync
	truncate -s 40960 "$M/f.txt"
	sync
	g0=$(lsattr -v "$M/f.txt" | cut -d' ' -f1)
	chattr -v 4242 "$M/f.txt" ||
		pre_err="$pre_err; chattr -v refused"
	chattr +s "$M/f.txt"
	[ "$(lsattr -v "$M/f.txt" | cut -d' ' -f1)" = 4242 ] &&
	    [ "$g0" != 4242 ] ||
		pre_err="$pre_err; the generation did not change ($g0)"
	sync
	live f.txt
	keep "$K"
	secret "$S"
	finish
}

# 98. +s files' extended attributes in blocks of their own; the files
# deleted while those blocks are still in the kernel's buffer cache, and
# a plain directory then grows into them (its htree's first two leaves):
# ext4_getblk zeroes a new directory block only when its buffer is not
# cached, so the value stays past the directory's new entries.  The rest of the filesystem is full,
# so that the freed EA block is the only place the directory can grow.
# Before, the run exited 1 and left the value in the live directory.
pre98() {
	d98=$(debugfs -R "stat d" "$img" 2>/dev/null |
		sed -n 's/^Inode: *\([0-9]*\).*/\1/p')
	# Either file's block will do: which one the htree takes first
	# is the allocator's choice.
	grep -abo -e "$S" -e "$S2" "$img" | cut -d: -f1 | while read -r o; do
		debugfs -R "icheck $((o / 4096))" "$img" 2>/dev/null |
			awk 'NR == 2 { print $2 }'
	done | sort -u >"$T/owners98"
	grep -qx "$d98" "$T/owners98" ||
		pre_err="$pre_err; the directory (inode ${d98:-?}) took no EA block (owners of the values: $(tr '\n' ' ' <"$T/owners98"))"
}

sc98() {
	tries=0
	while :; do
		sc98_make || return
		tries=$((tries + 1))
		# The directory may grow into a block the filler left free
		# (the allocator's reservations are timing's): then the
		# scenario tests nothing, and the image is made again.
		sync
		kumount || { bad pre "umount" "umount failed"; return; }
		pre98
		[ -n "$pre_err" ] && [ "$tries" -lt 3 ] || break
		echo "   (the directory took no freed EA block; again)"
		sed -i '$d' "$T/titles"		# begin names it again
	done
	kmount "$img" "$mopts" || { bad pre "mount" "mount failed"; return; }
	live d
	live filler
	secret "$S"
	secret "$S2"
	precheck=pre98
	finish
}

sc98_make() {
	begin 98 "+s EA block reused by a live directory" "" -t ext4 \
		-b 4096 -I 256 -J size=4 -m 0 || return 1
	common
	S=$(tk SECRET-EAV) S2=$(tk SECRET-EAW)
	mkdir "$M/d"
	# Two, so that the directory's htree (two new leaves) can grow.
	for f in "s.txt $S" "t.txt $S2"; do
		: >"$M/${f% *}"
		chattr +s "$M/${f% *}"
		setx "$M/${f% *}" user.secret "$(piece "${f#* }" 3000)" ||
			pre_err="$pre_err; cannot set an xattr"
	done
	sync
	dev=$(basename "$(findmnt -n -o SOURCE "$M")")
	[ ! -w "/sys/fs/ext4/$dev/reserved_clusters" ] ||
		echo 0 >"/sys/fs/ext4/$dev/reserved_clusters"
	dd if=/dev/zero of="$M/filler" bs=4096 2>/dev/null
	sync
	rm "$M/s.txt" "$M/t.txt"
	sync
	i=0
	# A block holds about 100 of these: the directory's first block
	# becomes an htree root, its entries go to two new leaves.
	while [ $i -lt 150 ]; do
		: >"$M/d/entry-of-a-plain-directory-$i"
		i=$((i + 1))
	done
}

# want SC: whether scenario SC runs (RES_ONLY="1 16" runs only those).
want() {
	case " ${RES_ONLY:-$SCENARIOS} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

want 1 && sc1
want 2 && sc2
want 3 && sc3
want 4 && sc4
want 5 && sc5
want 6 && sc6
want 7 && sc7
want 8 && sc8
want 9 && sc9
want 10a && sc10 10a 4k 4096
want 10b && sc10 10b 1k 1024
want 11 && sc11
want 12 && sc12
want 13 && sc13
want 14 && sc14
want 15 && sc15
want 16 && sc16
want 17 && sc17
want 18 && sc18
want 19 && sc19
want 23 && sc23
want 24a && sc24 24a 1 -O^dir_index 6 "1k ring"
want 24b && sc24 24b 1 -O^dir_index 19 "later"
want 24c && sc24 24c 2 "" 35 "htree" 25
want 25 && sc25
want 26 && sc26
want 27 && sc27
want 28a && sc28 28a
want 28b && sc28 28b write
want 29 && sc29
want 30 && sc30
want 31 && sc31
want 32 && sc32
want 33a && sc33 33a "meta_bg" "-O meta_bg,^resize_inode"
want 33b && sc33 33b "no flex_bg, super2" "-O ^flex_bg,sparse_super2"
want 33c && sc33 33c "verity, stable_inodes" "-O verity,stable_inodes"
want 33d && sc33 33d "32-bit, gdt_csum" "-O ^64bit,^metadata_csum,uninit_bg"
want 33e && sc33 33e "no dir_index" "-O ^dir_index"
want 40 && sc40
want 41 && sc41
want 42 && sc42
want 43 && sc43
want 44a && sc44a
want 44b && sc44b
want 45 && sc45
want 46 && sc46
want 47a && sc47a
want 47b && sc47b
want 47c && sc47c
want 48a && sc48a
want 48b && sc48b
want 48c && sc48c
want 49 && sc49
want 50 && sc50
want 51 && sc51
want 52 && sc52
want 54 && sc54
want 55 && sc55
want 56 && sc56
want 57 && sc57
want 60 && sc60
want 61 && sc61
want 62 && sc62
want 64 && sc64
want 65 && sc65 65
want 66 && sc65 66 crash
want 69 && sc69
want 71a && sc71 71a "64-bit tags, no csum" "" "-O 64bit,^metadata_csum" 12
want 71b && sc71 71b "csum v3, 32-bit" journal_checksum "-O ^64bit,^metadata_csum" 12
want 71c && sc71 71c "data=journal, no csum" data=journal "-O 64bit,^metadata_csum" 4
want 71d && sc71 71d "64-bit tags, no csum, more" "" "-O 64bit,^metadata_csum" 20
want 71e && sc71 71e "csum v3, 32-bit, more" journal_checksum "-O ^64bit,^metadata_csum" 20
want 71f && sc71 71f "64-bit tags, 6 more" "" "-O 64bit,^metadata_csum" 6
want 71g && sc71 71g "64-bit tags, 8 more" "" "-O 64bit,^metadata_csum" 8
want 71h && sc71 71h "data=journal, 8 more" data=journal "-O 64bit,^metadata_csum" 8
want 71i && sc71 71i "64-bit tags, 14 more" "" "-O 64bit,^metadata_csum" 14
want 71j && sc71 71j "64-bit tags, 16 more" "" "-O 64bit,^metadata_csum" 16
want 71k && sc71 71k "64-bit tags, 18 more" "" "-O 64bit,^metadata_csum" 18
want 72a && sc72 72a "in inode" "-b 4096 -I 256" 60
want 72b && sc72 72b "EA block" "-b 2048 -I 128" 600
want 80 && sc80 80
want 81 && sc80 81 onetx
want 82 && sc82
want 83 && sc83 83
want 83b && sc83 83b 128
want 84 && sc84
want 85 && sc85
want 86 && sc86 86
want 87 && sc86 87 onetx
want 90 && sc90
want 91 && sc91
want 94 && sc94 94
want 95 && sc94 95 "-t ext3 -b 1024 -I 128"
want 96a && sc96 96a "-t ext4"
want 96b && sc96 96b "-t ext3"
want 97 && sc97 97
want 97b && sc97 97b 128
want 98 && sc98

t_end=$(date +%s)
echo
echo "residues: scenario by check ($((t_end - t_start)) s)"
printf '%-4s %-22s' sc scenario
for c in $COLS; do
	printf ' %-6s' "$c"
done
echo
while read -r s t; do
	printf '%-4s %-22s' "$s" "$t"
	for c in $COLS; do
		r=$(awk -v s="$s" -v c="$c" '$1 == s && $2 == c { print $3; exit }' "$TABLE")
		printf ' %-6s' "${r:--}"
	done
	echo
done <"$T/titles"
