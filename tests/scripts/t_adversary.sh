# t_adversary.sh --- what a forensic examiner recovers, before and after.
#
# Each scenario is written by the real kernel (loop mount, chattr +s,
# write, rename, truncate, rm), cleanly unmounted, then attacked with the
# tools an examiner would use, on a copy of the image:
#
#   fls     fls -rd: the deleted names listed (its output is searched)
#   icat    icat -R -s of every inode fls -rd or ils lists as deleted
#   jcat    jcat of every journal block jls attributes (descriptor,
#           commit, revoke, FS block copies)
#   journal the whole journal file (icat IMG 8), block by block, so that
#           blocks jls cannot attribute are searched too
#   blkls   blkls: every unallocated block (carving free space)
#   extund  extundelete --restore-all (RECOVERED_FILES, names included)
#   e4m-r   ext4magic -r, default time window (the last 24 hours)
#   e4m-rab ext4magic -r -a T0 -b T1: the window an examiner who knows
#           when the files were deleted would give
#   e4m-M   ext4magic -M (magic scan, all files)
#
# Tokens: SECRET-* only in what belongs to +s files (contents, names),
# KEEP-* in live files, FREE-* in deleted files without the flag.  A
# tool's count is the number of lines holding a secret token in all it
# produced (recovered files, listings, its standard output) plus the
# recovered file names holding one.  Checks per scenario: some tool
# recovers a secret before the run (else the scenario tests nothing);
# e2secrm -y exits 1; every tool recovers 0 secret tokens after it; no
# secret token in the raw image; KEEP tokens still there; e2fsck -fn
# clean.  FREE tokens are reported, not checked: deleted files without +s
# are not e2secrm's business.  Tables close the run.
. "$(dirname "$0")/../lib.sh"

SCENARIOS="a b c d e"
TOOLS="fls icat jcat journal blkls extund e4m-r e4m-rab e4m-M"
TO=60
M=$T/mnt
COUNTS=$T/counts
: >"$COUNTS"
: >"$T/titles"
t_start=$(date +%s)

why=$(can_loop_mount)
if [ $? != 0 ]; then
	for s in $SCENARIOS; do
		skip "adversary $s" "loop mount unavailable: $why"
	done
	exit 0
fi
for c in fls icat ils jls jcat blkls extundelete ext4magic; do
	if ! command -v "$c" >/dev/null 2>&1; then
		for s in $SCENARIOS; do
			skip "adversary $s" "$c not installed (tests/install-deps.sh)"
		done
		exit 0
	fi
done

ok() { pass "adversary $sc ($title): $1"; }
bad() { fail "adversary $sc ($title): $1" "$2"; }

# tk WORD: a token unique to this run and scenario.
tk() { echo "$1-$sc-$$"; }

# piece TOKEN BYTES: exactly BYTES bytes of token lines on stdout.
piece() {
	canary "$T/piece" "$1" "$2"
	head -c "$2" "$T/piece"
}

secret() { secrets="$secrets $1"; }
keep() { keeps="$keeps $1"; }
free() { frees="$frees $1"; }

# begin SC TITLE MOUNT-OPTIONS MKE2FS-OPTIONS...: fresh image, mounted.
begin() {
	sc=$1 title=$2 mopts=$3
	shift 3
	echo "== adversary $sc: $title"
	echo "$sc $title" >>"$T/titles"
	img=$T/a.img
	rm -f "$img"
	secrets='' keeps='' frees=''
	if ! mkimg "$img" 32M "$@"; then
		bad "mke2fs" "mke2fs $* failed"
		return 1
	fi
	if ! kmount "$img" "$mopts"; then
		bad "mount" "mount -o loop${mopts:+,$mopts} failed"
		return 1
	fi
	t0=$(date +%s)
}

# common: a live plain file, a live +s file, and a plain file deleted by
# finish.
common() {
	K=$(tk KEEP-PLAIN)
	canary "$M/keep-plain.txt" "$K" 20000
	keep "$K"
	K=$(tk KEEP-PLUS-S)
	canary "$M/keep-s.txt" "$K" 20000
	chattr +s "$M/keep-s.txt"
	keep "$K"
	F=$(tk FREE-PLAIN)
	canary "$M/free.txt" "$F" 30000
	free "$F"
	sync
}

# window [SECONDS]: the moment after which the files are changed and
# deleted; the "before" time ext4magic is given.  The seconds around it
# keep the journal's timestamps on either side.  On 64bit journals with
# csum v3 tags (mke2fs's defaults) extundelete misreads the journal: it
# finds the deleted inode's old copy only sometimes, more often when the
# deletion comes after the 5 s commit interval (SECONDS), and it may
# abort (status 134) or crash (139); it is judged by what it recovers.
window() {
	sync
	sleep "${1:-1}"
	t1=$(date +%s)
	sleep 1
}

# attack IMG DIR: run every tool on IMG, each into DIR/TOOL; DIR/meta
# holds what is not searched (listings of inodes and blocks, statuses).
attack() {
	a_img=$1 a=$2
	rm -rf "$a"
	mkdir -p "$a/meta"
	for t in $TOOLS; do
		mkdir -p "$a/$t"
	done
	bsz=$(dumpe2fs -h "$a_img" 2>/dev/null | sed -n 's/^Block size: *//p')
	echo "$bsz" >"$a/meta/bs"

	fls -rd "$a_img" >"$a/fls/listing" 2>&1
	echo "fls $?" >>"$a/meta/rc"

	ils "$a_img" >"$a/meta/ils" 2>&1
	echo "ils $?" >>"$a/meta/rc"
	{
		sed -n 's/^[^*]*\* *\([0-9][0-9]*\).*/\1/p' "$a/fls/listing"
		awk -F'|' '$1 ~ /^[0-9]+$/ && $2 == "f" { print $1 }' "$a/meta/ils"
	} | sort -un >"$a/meta/inodes"
	while read -r i; do
		timeout $TO icat -R -s "$a_img" "$i" >"$a/icat/inode-$i" 2>/dev/null
	done <"$a/meta/inodes"

	timeout $TO jls "$a_img" >"$a/meta/jls" 2>&1
	echo "jls $?" >>"$a/meta/rc"
	grep -E '^[0-9]+:' "$a/meta/jls" | grep -v 'Unknown$' |
		cut -d: -f1 >"$a/meta/jblocks"
	while read -r j; do
		timeout $TO jcat "$a_img" "$j" >"$a/jcat/jblock-$j" 2>/dev/null
	done <"$a/meta/jblocks"
	timeout $TO icat "$a_img" 8 >"$a/journal/journal" 2>/dev/null

	timeout $TO blkls "$a_img" >"$a/blkls/unallocated" 2>/dev/null
	echo "blkls $?" >>"$a/meta/rc"
	timeout $TO blkls -l "$a_img" 2>/dev/null |
		awk -F'|' '$1 ~ /^[0-9]+$/ { print $1 }' >"$a/meta/unalloc"

	(cd "$a/extund" && timeout $TO extundelete --restore-all "$a_img" \
		>stdout 2>&1; echo "extund $?" >>"$a/meta/rc")

	timeout $TO ext4magic "$a_img" -r -d "$a/e4m-r/out" \
		>"$a/e4m-r/stdout" 2>&1
	echo "e4m-r $?" >>"$a/meta/rc"
	timeout $TO ext4magic "$a_img" -r -a $((t0 - 1)) -b "$t1" \
		-d "$a/e4m-rab/out" >"$a/e4m-rab/stdout" 2>&1
	echo "e4m-rab $?" >>"$a/meta/rc"
	timeout $TO ext4magic "$a_img" -M -d "$a/e4m-M/out" \
		>"$a/e4m-M/stdout" 2>&1
	echo "e4m-M $?" >>"$a/meta/rc"
}

# tcount DIR TOKEN: lines holding TOKEN in every file under DIR, plus the
# names under DIR holding it.  Not -a: a tool may recover a file of
# gigabytes that is all hole (ext4magic does, from a record that lost
# its map), one "line" grep -a would hold whole in memory; reading them
# as binary, grep skips holes and takes NULs for line ends.
tcount() {
	n=$(LC_ALL=C grep -rc -- "$2" "$1" 2>/dev/null |
		awk -F: '{ s += $NF } END { print s + 0 }')
	m=$(find "$1" -name "*$2*" 2>/dev/null | wc -l)
	echo $((n + m))
}

# blocks FILE TOKEN BS: the blocks of FILE holding TOKEN.
blocks() {
	grep -abo -- "$2" "$1" 2>/dev/null | cut -d: -f1 |
		awk -v bs="$3" '{ b = int($1 / bs); if (!(b in s)) { s[b] = 1; print b } }'
}

# locate DIR TOOL TOKEN: where the tool's output holds TOKEN.
locate() {
	d=$1/$2 b=$(cat "$1/meta/bs")
	grep -rac -- "$3" "$d" 2>/dev/null | awk -F: '$NF > 0' |
		while IFS= read -r l; do
			f=${l%:*} c=${l##*:}
			rel=${f#"$d"/}
			case $2 in
			journal)
				echo "$c line(s) in the journal (inode 8), journal block(s) $(blocks "$f" "$3" "$b" | head -10 | tr '\n' ' ')"
				;;
			blkls)
				echo "$c line(s) in unallocated space, fs block(s) $(blocks "$f" "$3" "$b" | head -10 |
					while read -r k; do sed -n "$((k + 1))p" "$1/meta/unalloc"; done | tr '\n' ' ')"
				;;
			*)
				echo "$c line(s) in $rel"
				;;
			esac
		done
	find "$d" -name "*$3*" 2>/dev/null | while read -r f; do
		echo "recovered under the name ${f#"$d"/}"
	done
}

# tally PHASE: count every token class for every tool of this scenario.
tally() {
	for t in $TOOLS; do
		s=0
		for k in $secrets; do
			s=$((s + $(tcount "$T/adv/$1/$t" "$k")))
		done
		f=0
		for k in $frees; do
			f=$((f + $(tcount "$T/adv/$1/$t" "$k")))
		done
		echo "$sc $1 $t S $s" >>"$COUNTS"
		echo "$sc $1 $t F $f" >>"$COUNTS"
	done
	s=0
	for k in $secrets; do
		s=$((s + $(count "$k" "$2")))
	done
	f=0
	for k in $frees; do
		f=$((f + $(count "$k" "$2")))
	done
	echo "$sc $1 raw S $s" >>"$COUNTS"
	echo "$sc $1 raw F $f" >>"$COUNTS"
}

got() {
	awk -v s="$sc" -v p="$1" -v t="$2" -v k="$3" \
		'$1 == s && $2 == p && $3 == t && $4 == k { print $5; exit }' "$COUNTS"
}

# finish: delete the plain file, unmount, attack, wipe, attack again.
finish() {
	rm -f "$M/free.txt"
	sync
	if ! kumount; then
		bad "umount" "umount failed"
		return
	fi
	cp --sparse=always "$img" "$T/copy.img"
	attack "$T/copy.img" "$T/adv/before"
	tally before "$T/copy.img"
	echo "   tool exit statuses before: $(tr '\n' ' ' <"$T/adv/before/meta/rc")"
	tot=0 who=
	for t in $TOOLS; do
		n=$(got before "$t" S)
		tot=$((tot + n))
		[ "$n" = 0 ] || who="$who $t=$n"
	done
	if [ "$tot" -gt 0 ]; then
		ok "adversaries find the secret before the run ($who )"
	else
		bad "adversaries find the secret before the run" \
			"no tool recovers any secret token (raw image holds $(got before raw S) lines): the scenario tests nothing"
	fi

	run_e2secrm -y "$img"
	if [ "$rc" = 1 ]; then
		ok "e2secrm -y exits 1"
	else
		bad "e2secrm -y exits 1" "rc=$rc $(echo "$out $err" | tr '\n' ' ' | cut -c1-400)"
	fi

	cp --sparse=always "$img" "$T/copy.img"
	attack "$T/copy.img" "$T/adv/after"
	tally after "$T/copy.img"
	echo "   tool exit statuses after:  $(tr '\n' ' ' <"$T/adv/after/meta/rc")"
	for t in $TOOLS; do
		n=$(got after "$t" S)
		if [ "$n" = 0 ]; then
			ok "$t recovers no secret after the run (before: $(got before "$t" S))"
			continue
		fi
		det=
		for k in $secrets; do
			l=$(locate "$T/adv/after" "$t" "$k" | head -8 | tr '\n' ';')
			[ -z "$l" ] || det="$det
    $k: $l"
		done
		bad "$t recovers no secret after the run" "$n line(s) of secret:$det"
	done

	left=
	for k in $secrets; do
		n=$(count "$k" "$img")
		[ "$n" = 0 ] && continue
		dumpe2fs -h "$img" >"$T/sb" 2>/dev/null
		b=$(sed -n 's/^Block size: *//p' "$T/sb")
		left="$left $k in fs block(s) $(blocks "$img" "$k" "$b" | head -10 | tr '\n' ' ');"
	done
	[ -z "$left" ] && ok "no secret token in the raw image" ||
		bad "no secret token in the raw image" "$left"

	lost=
	for k in $keeps; do
		[ "$(count "$k" "$img")" -gt 0 ] || lost="$lost $k"
	done
	[ -z "$lost" ] && ok "KEEP tokens still in the image" ||
		bad "KEEP tokens still in the image" "gone:$lost"

	e2fsck -fn "$img" >"$T/fsck" 2>&1 && ok "e2fsck -fn clean" ||
		bad "e2fsck -fn clean" "$(tail -3 "$T/fsck" | tr '\n' ' ')"

	fb= fa=
	for t in $TOOLS raw; do
		fb="$fb $t=$(got before "$t" F)"
		fa="$fa $t=$(got after "$t" F)"
	done
	echo "   FREE tokens (deleted without +s, not checked): before$fb; after$fa"
	rm -rf "$T/adv" "$T/copy.img"
}

# a. ext4 4k (no 64bit, no metadata_csum, which ext4magic and extundelete
# read): +s files with secret names and contents, one renamed across
# directories, one truncated then deleted, a live +s file truncated, a
# plain file deleted.
sca() {
	begin a "ext4 4k, renames, truncates" "" \
		-t ext4 -b 4096 -O ^64bit,^metadata_csum || return
	common
	mkdir "$M/d"
	S1=$(tk SECRET-DATA1) N1=$(tk SECRET-NAME1) N1B=$(tk SECRET-RENAMED1)
	S2=$(tk SECRET-HEAD2) S2T=$(tk SECRET-TAIL2) N2=$(tk SECRET-NAME2)
	S3=$(tk SECRET-DATA3) N3=$(tk SECRET-NAME3)
	KH=$(tk KEEP-HEAD) ST=$(tk SECRET-CUT)
	F2=$(tk FREE-DATA2) FN=$(tk FREE-NAME2)
	canary "$M/$N1" "$S1" 100000
	chattr +s "$M/$N1"
	{ piece "$S2" 65536; piece "$S2T" 300000; } >"$M/d/$N2"
	chattr +s "$M/d/$N2"
	canary "$M/d/$N3" "$S3" 20000
	chattr +s "$M/d/$N3"
	{ piece "$KH" 65536; piece "$ST" 200000; } >"$M/trunc.bin"
	chattr +s "$M/trunc.bin"
	canary "$M/d/$FN" "$F2" 40000
	sync
	sleep 1
	mv "$M/$N1" "$M/d/$N1B"
	window
	truncate -s 65536 "$M/d/$N2"
	truncate -s 65536 "$M/trunc.bin"
	sync
	rm "$M/d/$N1B" "$M/d/$N2" "$M/d/$N3" "$M/d/$FN"
	for k in "$S1" "$N1" "$N1B" "$S2" "$S2T" "$N2" "$S3" "$N3" "$ST"; do
		secret "$k"
	done
	keep "$KH"
	free "$F2"
	free "$FN"
	finish
}

# b. ext3 1k: indirect and double indirect maps, a journal.
scb() {
	begin b "ext3 1k, indirect maps" "" -t ext3 -b 1024 || return
	common
	mkdir "$M/d"
	S1=$(tk SECRET-DATA1) N1=$(tk SECRET-NAME1)
	S2=$(tk SECRET-DATA2) N2=$(tk SECRET-NAME2)
	canary "$M/$N1" "$S1" 400000
	chattr +s "$M/$N1"
	canary "$M/d/$N2" "$S2" 3000
	chattr +s "$M/d/$N2"
	window
	rm "$M/$N1" "$M/d/$N2"
	for k in "$S1" "$N1" "$S2" "$N2"; do
		secret "$k"
	done
	finish
}

# c. ext4 data=journal, default features (64bit, metadata_csum): the
# contents go through the journal; overwritten in place once.
scc() {
	begin c "ext4 data=journal" data=journal -t ext4 -b 4096 || return
	common
	S1=$(tk SECRET-V1) S2=$(tk SECRET-V2) N1=$(tk SECRET-NAME1)
	piece "$S1" 120000 >"$M/$N1"
	chattr +s "$M/$N1"
	sync
	piece "$S2" 60000 | dd of="$M/$N1" conv=notrunc,fsync status=none
	window 6
	rm "$M/$N1"
	for k in "$S1" "$S2" "$N1"; do
		secret "$k"
	done
	finish
}

# d. A +s directory tree: files and a subdirectory inherit the flag; the
# whole tree is removed.
scd() {
	begin d "+s directory tree" "" \
		-t ext4 -b 4096 -O ^64bit,^metadata_csum || return
	common
	ND=$(tk SECRET-DIR) NS=$(tk SECRET-SUBDIR)
	S1=$(tk SECRET-DATA1) N1=$(tk SECRET-NAME1)
	S2=$(tk SECRET-DATA2) N2=$(tk SECRET-NAME2)
	S3=$(tk SECRET-DATA3) N3=$(tk SECRET-NAME3)
	mkdir "$M/$ND"
	chattr +s "$M/$ND"
	canary "$M/$ND/$N1" "$S1" 50000
	canary "$M/$ND/$N2" "$S2" 20000
	mkdir "$M/$ND/$NS"
	canary "$M/$ND/$NS/$N3" "$S3" 8000
	i=0
	while [ $i -lt 60 ]; do
		: >"$M/$ND/$N1-entry-$i"
		i=$((i + 1))
	done
	for f in "$N1" "$N2" "$NS" "$NS/$N3"; do
		lsattr -d "$M/$ND/$f" 2>/dev/null | cut -d' ' -f1 | grep -q s ||
			echo "   note: $ND/$f did not inherit +s"
	done
	window
	rm -r "${M:?}/$ND"
	for k in "$ND" "$NS" "$S1" "$N1" "$S2" "$N2" "$S3" "$N3"; do
		secret "$k"
	done
	finish
}

# e. ext4 as mke2fs makes it today (64bit, metadata_csum), ordered mode.
sce() {
	begin e "ext4 defaults" "" -t ext4 -b 4096 || return
	common
	S1=$(tk SECRET-DATA1) N1=$(tk SECRET-NAME1)
	canary "$M/$N1" "$S1" 100000
	chattr +s "$M/$N1"
	window 6
	rm "$M/$N1"
	secret "$S1"
	secret "$N1"
	finish
}

sca
scb
scc
scd
sce

t_end=$(date +%s)

# table KIND TITLE: tool by scenario, "before/after" lines recovered.
table() {
	echo
	echo "adversary: $2, lines recovered before/after e2secrm -y"
	printf '%-9s' tool
	while read -r s t; do
		printf ' %-11s' "$s"
	done <"$T/titles"
	echo
	for t in $TOOLS raw; do
		printf '%-9s' "$t"
		while read -r s rest; do
			b=$(awk -v s="$s" -v t="$t" -v k="$1" \
				'$1 == s && $2 == "before" && $3 == t && $4 == k { print $5; exit }' "$COUNTS")
			a=$(awk -v s="$s" -v t="$t" -v k="$1" \
				'$1 == s && $2 == "after" && $3 == t && $4 == k { print $5; exit }' "$COUNTS")
			printf ' %-11s' "${b:--}/${a:--}"
		done <"$T/titles"
		echo
	done
}
echo
while read -r s t; do
	echo "  $s: $t"
done <"$T/titles"
table S "SECRET tokens (must be 0 after)"
table F "FREE tokens (plain deleted files, reported only)"
echo
echo "adversary: $((t_end - t_start)) s"
