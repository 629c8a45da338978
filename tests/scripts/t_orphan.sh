# t_orphan.sh --- orphans released and wiped in one run.
#
# A +s file (and a plain one) deleted while still open when the
# filesystem went down (xfs_io shutdown -f through a loop mount), on the
# orphan list and in the orphan file, at 1k and 4k blocks: -n writes
# nothing and names the release (text and JSON); -y exits 1, leaves no
# SECRET token in the raw image, the live file bit-exact through a
# read-only mount, e2fsck -fn clean, and a second run finds nothing.  A
# power cut after every write of -y (tests/e2secrm-cut) leaves a
# filesystem e2fsck -fn finds clean or one that says needs_recovery,
# and a re-run ends in the uncut run's image.  The release's transaction
# replays under e2fsck -E journal_only to the blocks it logged, and
# under the kernel's mount, also when it wraps the ring.  After fast commits, the files are as the
# kernel's recovery leaves them.  A
# truncation orphan (debugfs-made) is cut to its size and its freed +s
# blocks wiped.  Refused, the image byte-identical and -n saying the
# same: a list that loops, a list on ext2 (no journal to make the
# release atomic), a deleted orphan with xattrs under ea_inode, quota.
. "$(dirname "$0")/../lib.sh"

: "${E2SECRM_CUT_PROG:?E2SECRM_CUT_PROG must name tests/e2secrm-cut}"

# build IMG list|file MKE2FS-OPTIONS...: a crash with two files open and
# deleted, the +s one with SECRET tokens, the plain one with FREE ones.
build() {
	img=$1 how=$2
	shift 2
	rm -f "$img"
	if [ "$how" = file ]; then
		mkimg "$img" 32M -t ext4 -O orphan_file "$@"
	else
		mkimg "$img" 32M -t ext4 "$@"
	fi
	kmount "$img" || return 1
	M=$T/mnt
	mkdir "$M/d"
	canary "$T/keep" "ORPH-KEEP-$$-token" 30000
	cp "$T/keep" "$M/d/keep"
	canary "$M/d/ORPHNAME-$$" "ORPH-SECRET-$$-token" 60000
	chattr +s "$M/d/ORPHNAME-$$"
	canary "$M/d/plain" "ORPH-FREE-$$-token" 20000
	sync
	sleep 600 <"$M/d/ORPHNAME-$$" &
	h1=$!
	sleep 600 <"$M/d/plain" &
	h2=$!
	sleep 0.3
	rm "$M/d/ORPHNAME-$$" "$M/d/plain"
	xfs_io -x -c 'shutdown -f' "$M"
	kill "$h1" "$h2"
	wait "$h1" "$h2" 2>/dev/null
	kumount
}

# build_churn IMG N: a 1 MiB journal (1k blocks), N synced transactions
# after the +s file is written, then the crash with it open and deleted.
build_churn() {
	img=$1
	rm -f "$img"
	mkimg "$img" 32M -t ext4 -b 1024 -J size=1
	kmount "$img" || return 1
	M=$T/mnt
	mkdir "$M/d"
	canary "$M/d/keep" "ORPH-KEEP-$$-token" 10000
	canary "$M/d/ORPHNAME-$$" "ORPH-SECRET-$$-token" 10000
	chattr +s "$M/d/ORPHNAME-$$"
	sync
	i=0
	while [ "$i" -lt "$2" ]; do
		echo "$i" >"$M/d/churn$((i % 5))"
		sync
		i=$((i + 1))
	done
	# $3 small transactions more (a record's times: three log blocks).
	i=0
	while [ "$i" -lt "${3:-0}" ]; do
		touch "$M/d/keep"
		sync
		i=$((i + 1))
	done
	sleep 600 <"$M/d/ORPHNAME-$$" &
	h1=$!
	sleep 0.3
	rm "$M/d/ORPHNAME-$$"
	sync
	xfs_io -x -c 'shutdown -f' "$M"
	kill "$h1"
	wait "$h1" 2>/dev/null
	kumount
}

# has_orphans IMG list|file: the crash left what the test is about.
has_orphans() {
	dumpe2fs -h "$1" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery' ||
		return 1
	if [ "$2" = file ]; then
		dumpe2fs -h "$1" 2>/dev/null | grep '^Filesystem features' |
			grep -q orphan_present
	else
		dumpe2fs -h "$1" 2>/dev/null | grep -q '^First orphan inode:'
	fi
}

# keep_sha IMG: sha256 of d/keep through a read-only mount.
keep_sha() {
	mkdir -p "$T/ro"
	mount -o ro,loop "$1" "$T/ro" 2>/dev/null || { echo none; return; }
	sha "$T/ro/d/keep"
	umount "$T/ro"
}

# cut_all NAME BASE: a cut after every write of -y, as t_interrupt.sh.
cut_all() {
	name=$1 base=$2
	cp "$base" "$T/u.img"
	E2SECRM_CUT_COUNT=$T/count "$E2SECRM_CUT_PROG" -y "$T/u.img" \
		>/dev/null 2>&1
	urc=$?
	w=$(cat "$T/count" 2>/dev/null)
	# Exit bit 4: a wrapped journal's history does not reach back.
	if [ $((urc & ~4)) != 1 ] || [ -z "$w" ] || [ "$w" -lt 3 ]; then
		fail "$name: uncut run" "rc=$urc, $w writes"
		return
	fi
	fsck_ok=0 rerun_ok=0 k=1 bad=
	while [ "$k" -le "$w" ]; do
		cp "$base" "$T/c.img"
		E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$T/c.img" \
			>/dev/null 2>&1
		if dumpe2fs -h "$T/c.img" 2>/dev/null |
		   grep -q '^Filesystem features:.*needs_recovery' ||
		   e2fsck -fn "$T/c.img" >/dev/null 2>&1; then
			fsck_ok=$((fsck_ok + 1))
		else
			bad="$bad k=$k:fsck"
		fi
		run_e2secrm -y "$T/c.img"
		if [ $((rc & ~5)) = 0 ] && same "$T/u.img" "$T/c.img"; then
			rerun_ok=$((rerun_ok + 1))
		else
			bad="$bad k=$k:rerun$rc"
		fi
		k=$((k + 1))
	done
	[ "$fsck_ok" = "$w" ] &&
		pass "$name: e2fsck -fn clean or needs_recovery after every cut ($w)" ||
		fail "$name: e2fsck -fn clean after every cut" \
			"$fsck_ok of $w:$bad"
	[ "$rerun_ok" = "$w" ] &&
		pass "$name: re-run reaches the uncut end state at every k ($w)" ||
		fail "$name: re-run reaches the uncut end state" \
			"$rerun_ok of $w:$bad"
}

# oracle NAME BASE TID: cut right after the commit point, the release's
# transaction TID heads the log; e2fsck -E journal_only replays it to
# the blocks it logged (as debugfs logdump names them) and leaves
# e2fsck -fn clean.  $w: the uncut run's writes (cut_all).
oracle() {
	name=$1 base=$2 tid=$3
	k=1 found=
	while [ "$k" -le "$w" ]; do
		cp "$base" "$T/c.img"
		E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$T/c.img" \
			>/dev/null 2>&1
		if debugfs -R logdump "$T/c.img" 2>/dev/null |
		   grep -q "^Journal starts at block [1-9][0-9]*, transaction $tid\$"; then
			found=$k
			break
		fi
		k=$((k + 1))
	done
	if [ -z "$found" ]; then
		fail "$name: a cut leaves the release's transaction" "tid $tid"
		return
	fi
	bs=$(dumpe2fs -h "$T/c.img" 2>/dev/null |
		sed -n 's/^Block size: *//p')
	cp "$T/c.img" "$T/o.img"
	e2fsck -y -E journal_only "$T/o.img" >/dev/null 2>&1
	debugfs -R "logdump -a" "$T/c.img" 2>/dev/null |
	sed -n 's/.*FS block \([0-9]*\) logged at journal block \([0-9]*\).*/\1 \2/p' \
		>"$T/tags"
	diff=0 n=0
	while read -r fb jb; do
		n=$((n + 1))
		# The superblock is e2fsck's to rewrite after the replay.
		[ "$((fb * bs))" -le 1024 ] && [ "$((fb * bs + bs))" -gt 1024 ] &&
			continue
		pb=$(debugfs -R "bmap <8> $jb" "$T/c.img" 2>/dev/null)
		a=$(dd if="$T/o.img" bs="$bs" skip="$fb" count=1 2>/dev/null |
			sha256sum)
		b=$(dd if="$T/c.img" bs="$bs" skip="$pb" count=1 2>/dev/null |
			sha256sum)
		[ "$a" = "$b" ] || diff=$((diff + 1))
	done <"$T/tags"
	if [ "$n" -gt 0 ] && [ "$diff" = 0 ] &&
	   e2fsck -fn "$T/o.img" >/dev/null 2>&1; then
		pass "$name: e2fsck -E journal_only replays the release ($n tags, cut at $found)"
	else
		fail "$name: e2fsck -E journal_only replays the release" \
			"$n tags, $diff differ, cut at $found"
	fi
	# The kernel's own recovery at mount: no orphan left, clean.
	cp "$T/c.img" "$T/m.img"
	if kmount "$T/m.img" && kumount &&
	   ! dumpe2fs -h "$T/m.img" 2>/dev/null |
		grep -q -e '^First orphan inode:' -e 'orphan_present' &&
	   e2fsck -fn "$T/m.img" >/dev/null 2>&1; then
		pass "$name: the kernel's mount replays the release, no orphan left"
	else
		fail "$name: the kernel's mount replays the release" \
			"$(e2fsck -fn "$T/m.img" 2>&1 | tail -3)"
	fi
}

# kcase NAME list|file MKE2FS-OPTIONS...
kcase() {
	name=$1 how=$2
	shift 2
	B=$T/$how.img
	if ! build "$B" "$how" "$@" || ! has_orphans "$B" "$how"; then
		fail "$name: crash with orphans" "not made"
		return
	fi
	if [ "$(count "ORPH-SECRET-$$" "$B")" = 0 ]; then
		fail "$name: secret on the image first" "none"
		return
	fi
	before=$(sha "$B")
	ksha=$(sha "$T/keep")

	cp "$B" "$T/n.img"
	run_e2secrm -n "$T/n.img"
	# One line per kind of release; -v, one per orphan with its source.
	if [ "$(sha "$T/n.img")" = "$before" ] &&
	   echo "$out" | grep -q "1 orphan inode +s deleted (inode [0-9]*): " &&
	   echo "$out" | grep -q "1 orphan inode deleted (inode [0-9]*): " &&
	   echo "$out" | grep -q "2 orphan inodes .* released in memory (nothing written)"; then
		pass "$name: -n writes nothing and names the release"
	else
		fail "$name: -n writes nothing and names the release" \
			"rc=$rc $out $err"
	fi
	run_e2secrm -n -v "$T/n.img"
	src="orphan list"
	[ "$how" = file ] && src="orphan file"
	if [ "$(sha "$T/n.img")" = "$before" ] &&
	   echo "$out" | grep -q "orphan inode [0-9]* +s ($src): deleted" &&
	   echo "$out" | grep -q "orphan inode [0-9]* ($src): deleted"; then
		pass "$name: -n -v names each orphan and its source"
	else
		fail "$name: -n -v names each orphan and its source" \
			"rc=$rc $out $err"
	fi
	"$E2SECRM" -n --json - "$T/n.img" 2>/dev/null >"$T/n.json"
	if [ "$(jq -r '.orphans.released' "$T/n.json")" = in_memory ] &&
	   [ "$(jq '[.orphans.inodes[] | select(.secure_delete and .action == "deleted")] | length' "$T/n.json")" = 1 ] &&
	   [ "$(jq '.orphans.inodes | length' "$T/n.json")" = 2 ]; then
		pass "$name: --json lists the release"
	else
		fail "$name: --json lists the release" "$(jq -c .orphans "$T/n.json")"
	fi

	cp "$B" "$T/y.img"
	run_e2secrm -y --json "$T/y.json" "$T/y.img"
	left=$(count "ORPH-SECRET-$$" "$T/y.img")
	lname=$(count "ORPHNAME-$$" "$T/y.img")
	if [ "$rc" = 1 ] && [ "$left" = 0 ] && [ "$lname" = 0 ] &&
	   echo "$out" | grep -q "orphans released through journal transaction" &&
	   [ "$(jq -r '.orphans.released' "$T/y.json")" = written ]; then
		pass "$name: -y releases and wipes (exit 1, no secret left)"
	else
		fail "$name: -y releases and wipes" \
			"rc=$rc, $left secrets, $lname names: $err"
	fi
	if [ "$(count "ORPH-FREE-$$" "$T/y.img")" -gt 0 ]; then
		pass "$name: the plain orphan's freed data is kept"
	else
		fail "$name: the plain orphan's freed data is kept" "gone"
	fi
	if e2fsck -fn "$T/y.img" >/dev/null 2>&1; then
		pass "$name: e2fsck -fn clean"
	else
		fail "$name: e2fsck -fn clean" \
			"$(e2fsck -fn "$T/y.img" 2>&1 | tail -5)"
	fi
	if [ "$(keep_sha "$T/y.img")" = "$ksha" ]; then
		pass "$name: live file bit-exact"
	else
		fail "$name: live file bit-exact" "differs"
	fi
	run_e2secrm -y "$T/y.img"
	if [ "$rc" = 0 ] && ! echo "$out" | grep -q "orphan inode"; then
		pass "$name: a second run finds nothing"
	else
		fail "$name: a second run finds nothing" "rc=$rc $out"
	fi
	cut_all "$name" "$B"
	oracle "$name" "$B" "$(jq -r .orphans.transaction "$T/y.json")"
}

# refused NAME IMG PATTERN: exit 8, the image untouched, -n the same.
refused() {
	name=$1 img=$2 pat=$3
	before=$(sha "$img")
	cp "$img" "$T/r.img"
	run_e2secrm -y "$T/r.img"
	yrc=$rc yerr=$err
	run_e2secrm -n "$T/r.img"
	if [ "$yrc" = 8 ] && [ "$rc" = 8 ] &&
	   [ "$(sha "$T/r.img")" = "$before" ] &&
	   echo "$yerr" | grep -q "$pat" && [ "$yerr" = "$err" ]; then
		pass "$name: refused, image unchanged, -n the same"
	else
		fail "$name: refused, image unchanged" \
			"-y $yrc '$yerr', -n $rc '$err'"
	fi
}

why=$(can_loop_mount)
if [ $? != 0 ]; then
	skip "orphan: kernel-made crashes" "loop mount unavailable: $why"
else
	kcase "orphan: list, 1k" list
	kcase "orphan: orphan_file, 1k" file
	kcase "orphan: list, 4k" list -b 4096
	kcase "orphan: orphan_file, 4k" file -b 4096


	# The crash image of the case below: a +s file open and unlinked
	# after its full commit, fast commits after it, then a shutdown.
	fc_orphan_image() {
		mkimg "$1" 32M -t ext4 -O fast_commit
		kmount "$1" commit=600 || { rm -f "$1"; return 1; }
		M=$T/mnt
		mkdir "$M/d"
		sync
		canary "$M/d/keep" "ORPH-KEEP-$$-token" 30000
		canary "$M/d/FCNAME-$$" "ORPH-FC-$$-token" 40000
		chattr +s "$M/d/FCNAME-$$"
		sync
		sleep 600 <"$M/d/FCNAME-$$" &
		h1=$!
		sleep 0.3
		rm "$M/d/FCNAME-$$"
		sync
		echo more >>"$M/d/keep"
		xfs_io -c fsync "$M/d/keep"
		echo new >"$M/d/new"
		xfs_io -c fsync "$M/d/new"
		xfs_io -x -c shutdown "$M"
		kill "$h1"
		wait "$h1" 2>/dev/null
		kumount
	}

	# Fast commits after the orphan's full commit: the release lies
	# over the fast commits' replay (an overlay over an overlay); the
	# files are as the kernel's own recovery of a copy leaves them.
	# The kernel may end the fast commits with a full commit of its own
	# (a busy machine): the crash image is then made again, up to three
	# times, so that the case is the one it names.
	F=$T/fc.img
	try=0
	while :; do
		fc_orphan_image "$F" || break
		"$E2SECRM" -n "$F" >"$T/scan" 2>&1
		try=$((try + 1))
		{ grep -q "fast commit" "$T/scan" || [ "$try" -ge 3 ]; } && break
	done
	if [ -s "$F" ]; then
		cp "$F" "$T/k.img"
		mkdir -p "$T/ro"
		kmsum=
		if mount -o loop "$T/k.img" "$T/ro"; then
			kmsum=$(cd "$T/ro/d" && cat keep new | sha256sum)
			umount "$T/ro"
		fi
		cp "$F" "$T/fy.img"
		run_e2secrm -y "$T/fy.img"
		ysum=
		if mount -o ro,loop "$T/fy.img" "$T/ro"; then
			ysum=$(cd "$T/ro/d" && cat keep new | sha256sum)
			umount "$T/ro"
		fi
		if [ "$rc" = 1 ] &&
		   echo "$out" | grep -q "fast commit" &&
		   echo "$out" | grep -q "orphan inodes\? +s deleted (inodes\? [0-9]" &&
		   [ "$(count "ORPH-FC-$$" "$T/fy.img")" = 0 ] &&
		   [ -n "$kmsum" ] && [ "$ysum" = "$kmsum" ] &&
		   e2fsck -fn "$T/fy.img" >/dev/null 2>&1; then
			pass "orphan: after fast commits, released and wiped, files as the kernel recovers them"
		else
			fail "orphan: after fast commits, released and wiped" \
				"rc=$rc $(count "ORPH-FC-$$" "$T/fy.img") left, kernel sum ${kmsum:-none}, ours ${ysum:-none}: $out $err"
		fi
		cut_all "orphan: after fast commits" "$F"
	else
		fail "orphan: after fast commits" "mount failed"
	fi

	# The release's log wrapping the ring: a 1 MiB journal filled by
	# synced transactions until its head is in the last blocks (canary
	# uses $n: the loop's variable is its own).  A churn's transaction
	# can be wider than those last blocks (more so on a loaded machine,
	# where the kernel's own commits split them): when the bisection
	# closes on two neighbours, small transactions are added one by one
	# after the lower ($fine).
	wrapped= lo=100 hi= nch=100 fine=0 tries=0
	while [ "$tries" -lt 16 ]; do
		tries=$((tries + 1))
		build_churn "$T/w.img" "$nch" "$fine" || break
		last=$(debugfs -R logdump "$T/w.img" 2>/dev/null |
			sed -n 's/.*type 2 (commit block) at block \([0-9]*\).*/\1/p' |
			tail -1)
		[ -n "$last" ] || break
		# First run: the blocks a transaction takes; then bisect on
		# the number of transactions, a wrapped head being too far.
		if [ "$tries" = 1 ]; then
			first=$last
			per=$(((last + 99) / 100))
			nch=$((100 + (1018 - last) / per))
			continue
		fi
		if [ "$fine" -gt 0 ]; then
			# Past the end: nothing finer to try.
			[ "$last" -ge "$first" ] || break
			if [ "$last" -lt 1016 ]; then
				fine=$((fine + 1))
				continue
			fi
		else
			if [ "$last" -lt "$first" ]; then
				hi=$nch
			elif [ "$last" -lt 1016 ]; then
				lo=$nch
			fi
			if [ "$last" -lt 1016 ] || [ "$last" -lt "$first" ]; then
				if [ -n "$hi" ]; then
					nch=$(((lo + hi) / 2))
				else
					nch=$((nch + (1018 - last) / per + 1))
				fi
				[ "$nch" != "$lo" ] || fine=1
				continue
			fi
		fi
		tid=$("$E2SECRM" -n --json - "$T/w.img" 2>/dev/null |
			jq .orphans.transaction)
		cp "$T/w.img" "$T/u.img"
		E2SECRM_CUT_COUNT=$T/count "$E2SECRM_CUT_PROG" -y "$T/u.img" \
			>/dev/null 2>&1
		w=$(cat "$T/count")
		k=1
		while [ "$k" -le "$w" ]; do
			cp "$T/w.img" "$T/c.img"
			E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$T/c.img" \
				>/dev/null 2>&1
			d=$(debugfs -R logdump "$T/c.img" 2>/dev/null |
			    sed -n "s/^Journal starts at block \([1-9][0-9]*\), transaction $tid\$/\1/p")
			[ -n "$d" ] && break
			k=$((k + 1))
		done
		c=$(debugfs -R logdump "$T/c.img" 2>/dev/null |
			sed -n "s/^Found expected sequence $tid, type 2 (commit block) at block \([0-9]*\).*/\1/p")
		if [ -n "$d" ] && [ -n "$c" ] && [ "$c" -lt "$d" ]; then
			wrapped=$nch
			break
		fi
		# The release fitted before the end: a little further on.
		if [ "$fine" -gt 0 ]; then
			fine=$((fine + 1))
		else
			lo=$nch
			nch=$((nch + 1))
		fi
	done
	if [ -n "$wrapped" ]; then
		pass "orphan: a release log that wraps the ring (blocks $d to $c)"
		oracle "orphan: wrapped log" "$T/w.img" "$tid"
		cut_all "orphan: wrapped log" "$T/w.img"
		cp "$T/w.img" "$T/wy.img"
		run_e2secrm -y "$T/wy.img"
		if [ $((rc & 1)) = 1 ] &&
		   [ "$(count "ORPH-SECRET-$$" "$T/wy.img")" = 0 ] &&
		   e2fsck -fn "$T/wy.img" >/dev/null 2>&1; then
			pass "orphan: wrapped log, secret gone, e2fsck clean"
		else
			fail "orphan: wrapped log, secret gone" "rc=$rc $err"
		fi
	else
		fail "orphan: a release log that wraps the ring" \
			"no head near the end (last commit ${last:-none}; $nch churns and $fine small transactions, $tries images)"
	fi
fi

# A truncation orphan made by hand: a +s file of 60 KB cut to 4 KB by
# its size alone, at the head of the list.  The freed blocks held the
# secret; the record keeps its first block.
mkimg "$T/tr.img" 32M -t ext4 -b 4096
canary "$T/tsec" "ORPH-TRUNC-$$-token" 60000
canary "$T/keep" "ORPH-KEEP-$$-token" 30000
dfs "$T/tr.img" <<EOT
write $T/keep keep
write $T/tsec tsec
EOT
ti=$(debugfs -R "stat tsec" "$T/tr.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dfs "$T/tr.img" <<EOT
sif tsec flags 0x80001
sif tsec size 4096
ssv last_orphan $ti
EOT
cp "$T/tr.img" "$T/trn.img"
before=$(sha "$T/trn.img")
run_e2secrm -n "$T/trn.img"
if [ "$(sha "$T/trn.img")" = "$before" ] &&
   echo "$out" | grep -q "1 orphan inode +s truncated (inode $ti): 14 blocks freed"; then
	pass "orphan: truncation, -n names it"
else
	fail "orphan: truncation, -n names it" "rc=$rc $out $err"
fi
run_e2secrm -n -v "$T/trn.img"
if [ "$(sha "$T/trn.img")" = "$before" ] &&
   echo "$out" | grep -q "orphan inode $ti +s (orphan list): truncated to 4096 bytes, 14 blocks freed"; then
	pass "orphan: truncation, -n -v says to what size"
else
	fail "orphan: truncation, -n -v says to what size" "rc=$rc $out $err"
fi
cp "$T/tr.img" "$T/try.img"
run_e2secrm -y "$T/try.img"
size=$(debugfs -R "stat tsec" "$T/try.img" 2>/dev/null |
	sed -n 's/^User:.*Size: \([0-9]*\).*/\1/p')
blocks=$(debugfs -R "blocks tsec" "$T/try.img" 2>/dev/null | wc -w)
if [ "$size" = 4096 ] && [ "$blocks" = 1 ] &&
   e2fsck -fn "$T/try.img" >/dev/null 2>&1; then
	pass "orphan: truncation, -y cuts the file to its size, e2fsck clean"
else
	fail "orphan: truncation, -y cuts the file" \
		"rc=$rc size=$size blocks=$blocks $err"
fi
# The first block stays (4096 bytes of tokens); the other 14 go.
have=$(count "ORPH-TRUNC-$$" "$T/try.img")
kept=$(head -c 4096 "$T/tsec" | grep -a -c -- "ORPH-TRUNC-$$")
if [ "$rc" = 1 ] && [ "$have" -le "$kept" ]; then
	pass "orphan: truncation, the freed +s blocks are wiped"
else
	fail "orphan: truncation, the freed +s blocks are wiped" \
		"rc=$rc, $have tokens left, $kept in the block kept"
fi
run_e2secrm -y "$T/try.img"
[ "$rc" = 0 ] && pass "orphan: truncation, a second run finds nothing" ||
	fail "orphan: truncation, a second run finds nothing" "rc=$rc $out"
cut_all "orphan: truncation" "$T/tr.img"

# A list that loops, made by hand: two deleted records, each the
# other's next (i_dtime).
mkimg "$T/loop.img" 32M -t ext4 -b 4096
canary "$T/l1" "ORPH-LOOP-$$-token" 20000
dfs "$T/loop.img" <<EOT
write $T/l1 l1
write $T/l1 l2
EOT
la=$(debugfs -R "stat l1" "$T/loop.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
lb=$(debugfs -R "stat l2" "$T/loop.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dfs "$T/loop.img" <<EOT
unlink l1
unlink l2
sif <$la> links_count 0
sif <$lb> links_count 0
sif <$la> dtime $lb
sif <$lb> dtime $la
ssv last_orphan $la
EOT
refused "orphan: a list that loops" "$T/loop.img" \
	"orphan inode $la is listed twice"

# A deleted orphan whose xattr value lives in an inode of its own
# (ea_inode): the kernel would drop that reference, e2fsck's release
# does not; refused.  And with quota, whose usage would need updating.
mkimg "$T/ea.img" 32M -t ext4 -b 4096 -O ea_inode
head -c 12000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 16000 \
	>"$T/bigval"
canary "$T/eaf" "ORPH-EA-$$-token" 5000
dfs "$T/ea.img" <<EOT
write $T/eaf eaf
ea_set -f $T/bigval eaf user.big
EOT
ie=$(debugfs -R "stat eaf" "$T/ea.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dfs "$T/ea.img" <<EOT
unlink eaf
sif <$ie> links_count 0
ssv last_orphan $ie
EOT
refused "orphan: xattr values in inodes (ea_inode)" "$T/ea.img" \
	"orphan inode $ie has xattrs"

mkimg "$T/q.img" 32M -t ext4 -b 4096 -O quota
dfs "$T/q.img" <<EOT
write $T/eaf qf
EOT
iq=$(debugfs -R "stat qf" "$T/q.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dfs "$T/q.img" <<EOT
unlink qf
sif <$iq> links_count 0
ssv last_orphan $iq
EOT
refused "orphan: quota" "$T/q.img" "quota usage would need updating"

# ext2 has no journal to make the release atomic: refused, as before.
mkimg "$T/e2.img" 16M -t ext2
canary "$T/sec2" "ORPH-EXT2-$$-token" 20000
echo "write $T/sec2 sec2" | dfs "$T/e2.img"
i2=$(debugfs -R "stat sec2" "$T/e2.img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
dfs "$T/e2.img" <<EOT
unlink sec2
sif <$i2> links_count 0
ssv last_orphan $i2
EOT
refused "orphan: ext2, no journal" "$T/e2.img" "no journal"
