# t_never_worse.sh --- corrupt and crashed images, judged by the product's
# promises rather than by what today's code happens to do.
#
# The promises (man page, DESIGN.md safety rules 3, 5-8): a run either does
# the right thing or refuses before its first write; a refusal (exit bit 8)
# leaves the device byte-identical; -n reports exactly what -y would do,
# refusals included; after a run that wrote, every live file is what it
# was (or what the recovery of a copy makes of it), no secret of a deleted
# +s file is left in the raw image, and e2fsck -fn is no worse than before.
#
# Every image class is built once (by the real kernel where the kernel makes
# the state, by debugfs -w for precise damage), and its builder checks its
# own precondition (needs_recovery, fast-commit head tid, e2fsck -fn seeing
# the damage, the secret on the device...) and FAILs under the builder's
# name when the state was not reached.  Then never_worse() runs every mode
# on a fresh copy -- -n, -y, -y -f, -y --all-free, -y --free-inodes,
# -y --sanitize (and for an external journal also -y --all-journal) -- and
# one check per (class, mode) passes iff EITHER
#
#   (a) refusal: exit bit 8, exactly one stderr line, naming the device,
#       image (and journal) sha256 unchanged; for -n: -y refused too, with
#       the same message (the line with the device's name taken out); and
#       when -y refuses, -n must refuse with it (checked in -n's row);
#   (b) a correct run: no bit 8, no crash or timeout;
#       -n: image unchanged, no bit 1, -y did not refuse, bit 4 iff -y
#           found anything (bit 1 or 4), its "would wipe" list equal to
#           -y's "to wipe" list;
#       -y...: e2fsck -fn exits 0, or (unless the class must end clean)
#           reports nothing that it does not report on the baseline (the
#           input, or when the input needs recovery the recovered copy);
#           every live file (rdump of /: type, path, sha256 or link
#           target) equals the oracle's -- the input itself (ORACLE
#           input), the kernel's mount+umount of a copy (kernel: fast
#           commits), e2fsck -fy of a copy (fsck: anything else); and no
#           secret token of a deleted +s file is left in the raw image
#           (nor in the external journal).
#
# Classes: 0 control; 1 kernel crash with fast commits pending (and the
# -f variant with obsolete fast commits); 2 journal superblock with a bad
# checksum (clean, needs recovery); 3 a replayed block bitmap that fails
# its checksum, replayed zero bitmaps (with and without metadata_csum);
# 4 a BLOCK_UNINIT group holding live blocks (ext4, ext3 maps, htree);
# 5 bitmaps that disagree with live maps/names (ext4 without
# metadata_csum, ext3): a freed data block, extent block, indirect block,
# named inode, /lost+found; 6 orphans at a crash (orphan list,
# orphan_file); 7 an external journal holding stale transactions.
#
# A table closes the run: one row per class, one column per mode.
. "$(dirname "$0")/../lib.sh"

t_start=$(date +%s)
M=$T/mnt
TABLE=$T/table
: >"$TABLE"
LOOPS=
# loop_detach DEV...: detach loop devices this script attached.
loop_detach() {
	for ld in "$@"; do
		losetup -d "$ld" 2>/dev/null
		LOOPS=$(echo "$LOOPS" | tr " " "\n" | grep -v -x -F -- "$ld" | tr "\n" " ")
	done
}
nw_cleanup() {
	if mountpoint -q "$M" 2>/dev/null; then
		umount "$M" 2>/dev/null
	fi
	for l in $LOOPS; do
		losetup -d "$l" 2>/dev/null
	done
	[ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null
	cleanup
}
HOLDER=
trap nw_cleanup EXIT

MODES="y n yf yaf yfi ysan"
margs() {
	case $1 in
	n) printf '%s\n' "-n" ;;
	y) echo "-y" ;;
	yf) echo "-y -f" ;;
	yaf) echo "-y --all-free" ;;
	yfi) echo "-y --free-inodes" ;;
	ysan) echo "-y --sanitize" ;;
	yaj) echo "-y --all-journal" ;;
	esac
}

# --- small helpers ---------------------------------------------------------

bsize() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p'
}

needs_recovery() {
	dumpe2fs -h "$1" 2>/dev/null | grep '^Filesystem features' |
	grep -q needs_recovery
}

# oneline TEXT: TEXT on one line, shortened.
oneline() {
	printf '%s\n' "$1" | tr '\n' ' ' | tr -s ' ' | cut -c1-"${2:-300}"
}

# changed_blocks A B BS: "N blocks differ: b1 b2 ..." (at most 10 listed;
# the scan stops after a million differing bytes).
changed_blocks() {
	cmp -l "$1" "$2" 2>/dev/null | head -n 1000000 | awk -v bs="$3" '
		{ b = int(($1 - 1) / bs)
		  if (b != last || n == 0) { n++; if (n <= 10) l = l " " b; last = b } }
		END { if (NR >= 1000000) m = "at least "
		      printf "%s%d block(s) differ:%s%s", m, n, l, (n > 10 ? " ..." : "") }'
}

# manifest IMG: every file of the filesystem, as "type path sha-or-target",
# sorted; read with debugfs rdump (no kernel, no journal replay).
manifest() {
	rm -rf "$T/rd"
	mkdir "$T/rd"
	debugfs -R "rdump / $T/rd" "$1" >/dev/null 2>&1
	(
		cd "$T/rd" || exit
		find . -mindepth 1 ! -type f -printf '%y %p %l\n'
		find . -type f -exec sha256sum {} + | awk '{ print "f " $2 " " $1 }'
	) | LC_ALL=C sort
	rm -rf "$T/rd"
}

# fsck_lines IMG [JNL]: e2fsck -fn's findings, one a line, without the
# banner, pass names and summary; sets $frc.
fsck_lines() {
	if [ -n "$2" ]; then
		e2fsck -fn -j "$2" "$1" >"$T/fsck.raw" 2>&1
	else
		e2fsck -fn "$1" >"$T/fsck.raw" 2>&1
	fi
	frc=$?
	sed -e "s|$1|IMG|g" "$T/fsck.raw" | grep -v \
		-e '^e2fsck [0-9]' -e '^Pass [0-9]' -e '^$' \
		-e '^IMG: [0-9]*/[0-9]* files' | LC_ALL=C sort -u
}

# Kernel state, for loop-mount classes.
LOOP_OK=yes
why_noloop=$(can_loop_mount) || LOOP_OK=no

# kfill TAG: through the kernel mount at $M, live files (a directory, a
# symlink, a live +s file) and a deleted +s file "NWNAME-TAG" holding
# NWSEC-TAG tokens, synced before and after the rm.  Adds both tokens to
# $SECRETS.
kfill() {
	mkdir -p "$M/d"
	canary "$M/keep1" "NWKEEP-$1-one" 20000
	canary "$M/d/keep2" "NWKEEP-$1-two" 9000
	canary "$M/d/livesec" "NWLIVE-$1" 6000
	chattr +s "$M/d/livesec"
	ln -s d/keep2 "$M/link"
	canary "$M/d/NWNAME-$1" "NWSEC-$1" 30000
	chattr +s "$M/d/NWNAME-$1"
	sync -f "$M"
	rm "$M/d/NWNAME-$1"
	sync -f "$M"
	SECRETS="NWSEC-$1 NWNAME-$1"
}

# powercut IMG: a power cut after a commit, on an image mounted at $M (as
# t_replay.sh's kernel crash): metadata work without a sync, an fsync
# that commits it (the home blocks wait for writeback), then IMG is
# copied while still mounted, and the copy replaces IMG once the mount is
# gone.  Sets $why and returns 1 when a replay of the result would change
# no block (writeback won the race).
powercut() {
	canary "$M/d/keep3" "NWKEEP-pc-three" 8000
	mv "$M/d/keep2" "$M/d/keep2b"
	mkdir "$M/e"
	i=0
	while [ $i -lt 8 ]; do
		echo "pc $i" >"$M/e/f$i"
		i=$((i + 1))
	done
	rm "$M/keep1"
	# fsync commits the running transaction (all of the above) and
	# returns; the home blocks wait for writeback.
	xfs_io -c fsync "$M/d/keep3"
	cp "$1" "$T/cut.img"
	kumount
	mv "$T/cut.img" "$1"
	cp "$1" "$T/probe.img"
	e2fsck -y -E journal_only "$T/probe.img" >/dev/null 2>&1
	pc_n=$(cmp -l "$1" "$T/probe.img" | awk -v bs="$(bsize "$1")" '
		{ b = int(($1 - 1) / bs); if (b != l) n++; l = b }
		END { print n + 0 }')
	rm -f "$T/probe.img"
	# The superblock and the journal superblock change anyway.
	if [ "$pc_n" -le 3 ]; then
		why="a replay would change $pc_n block(s): writeback came first"
		return 1
	fi
	return 0
}

# dfill IMG TAG FLAGS: the same through debugfs (no kernel): live files, a
# live +s file and a deleted +s file whose map stays in its record.
dfill() {
	canary "$T/keep1" "NWKEEP-$2-one" 20000
	canary "$T/keep2" "NWKEEP-$2-two" 9000
	canary "$T/livesec" "NWLIVE-$2" 6000
	canary "$T/sec" "NWSEC-$2" 30000
	dfs "$1" <<EOF
write $T/keep1 keep1
mkdir d
write $T/keep2 d/keep2
write $T/livesec d/livesec
set_inode_field d/livesec flags $3
symlink link d/keep2
write $T/sec d/NWNAME-$2
set_inode_field d/NWNAME-$2 flags $3
EOF
	DSEC_INO=$(debugfs -R "ls -l d" "$1" 2>/dev/null |
		awk -v n="NWNAME-$2" '$NF == n { print $1 }')
	echo "rm d/NWNAME-$2" | dfs "$1"
	SECRETS="NWSEC-$2"
}

# builder_fail CLASS WHY: the image could not be put in the intended state;
# every mode of the class is counted as failed (by the builder's name).
builder_fail() {
	fail "never-worse: $1: builder" "$2"
	printf '%s|builder: %s\n' "$1" "$(oneline "$2" 80)" >>"$TABLE"
}

# secrets_present IMG [JNL]: every token of $SECRETS is on the device(s)
# before the run (else the class tests nothing); sets $why.
secrets_present() {
	for s in $SECRETS; do
		c=$(count "$s" "$1")
		[ -n "$2" ] && c=$((c + $(count "$s" "$2")))
		if [ "$c" = 0 ]; then
			why="secret token $s not on the device before the run"
			return 1
		fi
	done
	return 0
}

# --- the check ------------------------------------------------------------

# never_worse CLASS IMG ORACLE [JNL]
#
# ORACLE: input | kernel | fsck (see the header).  $SECRETS: tokens that
# must be gone after every -y mode that did not refuse.  $CLEAN=1: the
# class must end with e2fsck -fn exit 0 after any run that wrote.
# $EXTRA_MODES: modes run besides $MODES.
never_worse() {
	cls=$1 img=$2 okind=$3 jnl=$4
	bs=$(bsize "$img")
	[ -n "$bs" ] || bs=1024
	isha=$(sha "$img")
	jsha=
	[ -n "$jnl" ] && jsha=$(sha "$jnl")

	# The oracle for live files.
	O=$T/oracle.img
	cp "$img" "$O"
	[ -n "$jnl" ] && cp "$jnl" "$T/oracle.jnl"
	case $okind in
	input) ;;
	fsck)
		if [ -n "$jnl" ]; then
			e2fsck -fy -j "$T/oracle.jnl" "$O" >/dev/null 2>&1
		else
			e2fsck -fy "$O" >/dev/null 2>&1
		fi ;;
	kernel)
		if ! kmount "$O"; then
			builder_fail "$cls" "oracle: the kernel does not mount a copy"
			return
		fi
		kumount ;;
	esac
	manifest "$O" >"$T/oracle.man"
	if [ ! -s "$T/oracle.man" ]; then
		builder_fail "$cls" "oracle: rdump of the oracle lists nothing"
		return
	fi

	# The baseline for e2fsck: the input, or when it needs recovery, its
	# recovery (the kernel's for ORACLE kernel, else e2fsck's).
	B=$img
	if needs_recovery "$img"; then
		if [ "$okind" = kernel ]; then
			B=$O
		else
			B=$T/base.img
			cp "$img" "$B"
			if [ -n "$jnl" ]; then
				cp "$jnl" "$T/base.jnl"
				e2fsck -y -E journal_only -j "$T/base.jnl" "$B" \
					>/dev/null 2>&1
			else
				e2fsck -y -E journal_only "$B" >/dev/null 2>&1
			fi
		fi
	fi
	if [ -n "$jnl" ]; then
		bj=$jnl
		[ "$B" = "$O" ] && bj=$T/oracle.jnl
		[ "$B" = "$T/base.img" ] && bj=$T/base.jnl
		fsck_lines "$B" "$bj" >"$T/base.fsck"
	else
		fsck_lines "$B" >"$T/base.fsck"
	fi
	brc=$frc
	rm -f "$T/base.img" "$T/base.jnl"

	row="$cls"
	rcy= msgy= refy=
	for m in $MODES $EXTRA_MODES; do
		W=$T/w-$m.img
		cp "$img" "$W"
		set --
		if [ -n "$jnl" ]; then
			cp "$jnl" "$T/w-$m.jnl"
			set -- -j "$T/w-$m.jnl"
		fi
		# shellcheck disable=SC2046
		timeout 120 "$E2SECRM" $(margs "$m") "$@" "$W" \
			</dev/null >"$T/out.$m" 2>"$T/err.$m"
		rc=$?
		err=$(cat "$T/err.$m")
		nm="never-worse: $cls: $(margs "$m")"
		why=
		refused=no
		msg=
		wsha=$(sha "$W")
		wjsha=
		[ -n "$jnl" ] && wjsha=$(sha "$T/w-$m.jnl")
		if [ "$rc" = 124 ]; then
			why="hang (timeout 120 s)"
		elif [ "$rc" -ge 64 ]; then
			why="crash (status $rc)"
		elif [ $((rc & 8)) != 0 ]; then
			refused=yes
			nl=$(printf '%s\n' "$err" | grep -c .)
			line=$(printf '%s\n' "$err" | grep . | head -1)
			# The message, device name taken out (it names a different
			# copy in each mode).
			case $line in
			*"$W"*) msg=$(printf "%s" "$line" | sed "s|$W|DEV|g") ;;
			esac
			chg=
			if [ "$wsha" != "$isha" ]; then
				chg="the image changed, $(changed_blocks "$img" "$W" "$bs")"
			fi
			if [ -n "$jnl" ] && [ "$wjsha" != "$jsha" ]; then
				chg="${chg:+$chg; }the journal device changed, $(changed_blocks "$jnl" "$T/w-$m.jnl" "$bs")"
			fi
			if [ -n "$chg" ]; then
				why="exit $rc (refused) but $chg: $(oneline "$err")"
			elif [ "$nl" != 1 ]; then
				why="exit $rc with $nl stderr lines: $(oneline "$err")"
			elif [ -z "$msg" ]; then
				why="exit $rc, message does not name the device: $line"
			fi
		fi
		# -n against -y (-y ran first).
		if [ -z "$why" ] && [ "$m" = n ]; then
			if [ "$refy" = yes ] && [ $refused = no ]; then
				why="exit $rc, but -y refuses (exit $rcy:$msgy)"
			elif [ "$refy" != yes ] && [ $refused = yes ]; then
				why="refuses (exit $rc:$msg), but -y runs (exit $rcy)"
			elif [ $refused = yes ] && [ "$msg" != "$msgy" ]; then
				why="refusal differs from -y's: -n \"$msg\", -y \"$msgy\""
			fi
		fi
		if [ -z "$why" ] && [ $refused = no ]; then
			if [ "$m" = n ]; then
				nw_check_dry
			else
				nw_check_run
			fi
		fi
		if [ "$m" = y ]; then
			rcy=$rc msgy=$msg refy=$refused
			[ -n "$why" ] && [ $refused = no ] && refy=broken
			sed -n '/ to wipe:$/,$p' "$T/out.y" |
				sed -e '1d' -e '/:$/,$d' | grep '^  ' >"$T/plan.y"
		fi
		if [ -z "$why" ]; then
			if [ $refused = yes ]; then
				pass "$nm (refused, exit $rc:$msg)"
				row="$row|R$rc"
			else
				pass "$nm (exit $rc)"
				row="$row|ok$rc"
			fi
		else
			fail "$nm" "$why"
			row="$row|FAIL$rc"
		fi
		rm -f "$W" "$T/w-$m.jnl"
	done
	echo "$row" >>"$TABLE"
	rm -f "$O" "$T/oracle.jnl"
}

# A dry run that did not refuse: nothing written, and what -y would do.
nw_check_dry() {
	if [ "$wsha" != "$isha" ]; then
		why="exit $rc, image changed, $(changed_blocks "$img" "$W" "$bs")"
	elif [ -n "$jnl" ] && [ "$wjsha" != "$jsha" ]; then
		why="exit $rc, journal device changed"
	elif [ $((rc & 1)) != 0 ]; then
		why="exit $rc: a dry run says it wiped"
	fi
	[ -n "$why" ] && return
	yfound=$((rcy & 5))
	nfound=$((rc & 4))
	if [ "$yfound" != 0 ] && [ "$nfound" = 0 ]; then
		why="exit $rc (nothing found), -y exit $rcy found something"
		return
	fi
	if [ "$yfound" = 0 ] && [ "$nfound" != 0 ]; then
		why="exit $rc (found), -y exit $rcy found nothing"
		return
	fi
	sed -n '/ would wipe:$/,$p' "$T/out.n" |
		sed -e '1d' -e '/:$/,$d' | grep '^  ' >"$T/plan.n"
	if ! cmp -s "$T/plan.n" "$T/plan.y"; then
		why="its plan differs from -y's: -n [$(oneline "$(cat "$T/plan.n")" 200)] -y [$(oneline "$(cat "$T/plan.y")" 200)]"
	fi
}

# A -y run that did not refuse: e2fsck no worse, live files as the
# oracle's, secrets gone.
nw_check_run() {
	wj=
	[ -n "$jnl" ] && wj=$T/w-$m.jnl
	fsck_lines "$W" "$wj" >"$T/w.fsck"
	wrc=$frc
	if [ "$wrc" != 0 ]; then
		worse=$(LC_ALL=C comm -23 "$T/w.fsck" "$T/base.fsck")
		if [ "$CLEAN" = 1 ]; then
			why="exit $rc; e2fsck -fn exit $wrc afterwards (must be clean): $(oneline "$(cat "$T/w.fsck")" 240)"
		elif [ -n "$worse" ] || [ "$wrc" -gt "$brc" ]; then
			why="exit $rc; e2fsck -fn worse than before (exit $wrc, was $brc): $(oneline "$worse" 240)"
		fi
	fi
	manifest "$W" >"$T/w.man"
	if ! cmp -s "$T/w.man" "$T/oracle.man"; then
		d=$(LC_ALL=C diff "$T/oracle.man" "$T/w.man" |
			grep '^[<>]' | awk '{ print $1, $2, $3 }' | head -6)
		why="${why:+$why; }exit $rc; live files differ from the $okind oracle ($(LC_ALL=C diff "$T/oracle.man" "$T/w.man" | grep -c '^[<>]') lines; < oracle, > result): $(oneline "$d" 300)"
	fi
	left=
	for s in $SECRETS; do
		c=$(count "$s" "$W")
		[ -n "$jnl" ] && c=$((c + $(count "$s" "$T/w-$m.jnl")))
		[ "$c" != 0 ] && left="$left $s:$c"
	done
	if [ -n "$left" ]; then
		why="${why:+$why; }exit $rc; secrets left on the device (token:lines)$left"
	fi
	if [ -n "$why" ] && [ -s "$T/err.$m" ]; then
		why="$why; stderr: $(oneline "$err" 200)"
	fi
}

# --- builders ---------------------------------------------------------------

# try3 CLASS BUILDER ARGS...: a kernel builder races the kernel's own
# writeback; try it up to three times.  The builder sets $I (the image)
# and, when it fails, $why.  Returns 1 after a builder_fail.
try3() {
	t3c=$1
	shift
	t3n=0
	while [ $t3n -lt 3 ]; do
		t3n=$((t3n + 1))
		why=
		if mountpoint -q "$M" 2>/dev/null; then
			umount "$M" 2>/dev/null
		fi
		MNT_DEV=
		"$@" && return 0
	done
	builder_fail "$t3c" "$1: $why ($t3n tries)"
	return 1
}

# fc_tids IMG: "HEAD NEXT": the fast-commit area's head tid, and the tid
# the journal would give its next transaction (the last committed one
# plus one, or s_sequence when the log holds no commit), per logdump.
fc_tids() {
	debugfs -R logdump "$1" 2>/dev/null | awk '
		/^Journal starts at block/ { seq = $NF }
		$1 == "Found" && /type 2 \(commit block\)/ {
			s = $4; sub(",", "", s); last = s }
		/tag HEAD/ && head == "" { head = $NF }
		END { print (head == "" ? "none" : head), (last == "" ? seq : last + 1) }'
}

# fc_zero IMG: zero the fast-commit area of the internal journal.
fc_zero() {
	fz_bs=$(bsize "$1")
	fz_tot=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Total journal blocks: *//p')
	fz_len=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Fast commit length: *//p')
	[ -n "$fz_tot" ] && [ -n "$fz_len" ] || return
	seq $((fz_tot - fz_len)) $((fz_tot - 1)) | sed 's/^/bmap <8> /' |
	debugfs -f - "$1" 2>/dev/null | grep '^[0-9]' | while read -r p; do
		dd if=/dev/zero of="$1" bs="$fz_bs" seek="$p" count=1 \
			conv=notrunc 2>/dev/null
	done
}

# 1. A kernel crash with fast commits.  $1: "" (shutdown without -f: the
# running transaction is lost and the fast commits are the only record of
# what was fsync'ed after the last full commit) or "-f" (the log is
# flushed first, the fast commits are obsolete).
build_fc() {
	I=$T/fc.img
	rm -f "$I"
	mkimg "$I" 64M -t ext4 -O fast_commit
	# commit=600: no timed full commit may end the fast commits first.
	kmount "$I" commit=600 || { why="mount failed"; return 1; }
	mkdir "$M/d"
	sync -f "$M"
	for f in a b c; do
		canary "$M/d/$f" "NWKEEP-1$1-$f" 6000
		xfs_io -c fsync "$M/d/$f"
	done
	canary "$M/d/NWNAME-1$1" "NWSEC-1$1" 9000
	chattr +s "$M/d/NWNAME-1$1"
	xfs_io -c fsync "$M/d/NWNAME-1$1"
	rm "$M/d/NWNAME-1$1"
	canary "$M/d/e" "NWKEEP-1$1-e" 3000
	xfs_io -c fsync "$M/d/e"
	mv "$M/d/a" "$M/d/a2"
	xfs_io -c fsync "$M/d/a2"
	echo "NWAPPEND-1$1" >>"$M/d/b"
	xfs_io -c fsync "$M/d/b"
	xfs_io -x -c "shutdown $1" "$M"
	kumount
	SECRETS="NWSEC-1$1 NWNAME-1$1"
	if ! needs_recovery "$I"; then
		why="needs_recovery not set after the shutdown"
		return 1
	fi
	set -- "$1" $(fc_tids "$I")
	# The kernel's recovery has the rename; replaying the full commits
	# alone (e2fsck -E journal_only on a copy whose fast-commit area is
	# zeroed) does not, when the fast commits are the only record.
	cp "$I" "$T/probe.img"
	kmount "$T/probe.img" && kumount
	kls=$(debugfs -R "ls d" "$T/probe.img" 2>/dev/null | tr -s ' \n' ' ')
	cp "$I" "$T/probe.img"
	fc_zero "$T/probe.img"
	e2fsck -y -E journal_only "$T/probe.img" >/dev/null 2>&1
	els=$(debugfs -R "ls d" "$T/probe.img" 2>/dev/null | tr -s ' \n' ' ')
	rm -f "$T/probe.img"
	case $kls in
	*" a2 "*) ;;
	*) why="the kernel's recovery of a copy has no d/a2: $kls"; return 1 ;;
	esac
	if [ -z "$1" ]; then
		if [ "$2" != "$3" ]; then
			why="fast-commit head tid $2, next transaction $3 (a full commit came after the fast commits)"
			return 1
		fi
		case $els in
		*" a2 "*) why="the full commits alone hold the rename"; return 1 ;;
		esac
	else
		if [ "$2" != none ] && [ "$2" -ge "$3" ]; then
			why="fast-commit head tid $2, next transaction $3: not obsolete"
			return 1
		fi
	fi
	secrets_present "$I" || return 1
	echo "    fast commits: head tid $2, next transaction $3"
	return 0
}

# 0. Control: a healthy kernel-made ext4 with a deleted +s file.
build_control() {
	I=$T/control.img
	rm -f "$I"
	mkimg "$I" 64M -t ext4
	kmount "$I" || { why="mount failed"; return 1; }
	kfill 0
	kumount
	e2fsck -fn "$I" >/dev/null 2>&1 || { why="e2fsck -fn not clean"; return 1; }
	secrets_present "$I"
}

# poke IMG OFFSET: flip all bits of the byte at OFFSET.
poke() {
	pk=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((pk ^ 255)))" |
	dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# jsb_off IMG: byte offset of the internal journal's superblock.
jsb_off() {
	echo $(($(debugfs -R "bmap <8> 0" "$1" 2>/dev/null) * $(bsize "$1")))
}

jsb_corrupt_seen() {
	e2fsck -fn "$1" 2>&1 | grep -q 'Journal superblock is corrupt'
}

# 2. The journal superblock fails its checksum.  $1: clean | crash |
# debugfs; $2: the byte flipped (0x80: s_padding, 0xff: s_checksum).
build_jsb() {
	I=$T/jsb.img
	rm -f "$I"
	tag=2$1
	if [ "$1" = debugfs ]; then
		mkimg "$I" 16M -t ext4 -b 1024
		dfill "$I" "$tag" 0x80001
		# A transaction that rewrites a live file's first block.
		canary "$T/replay" "NWREPLAY-$tag" 1024
		head -c 1024 "$T/replay" >"$T/replay.blk"
		kb=$(debugfs -R "bmap d/keep2 0" "$I" 2>/dev/null)
		dfs "$I" <<EOF
jo -c
jw -b $kb $T/replay.blk
jc
EOF
	else
		mkimg "$I" 32M -t ext4
		kmount "$I" commit=1 || { why="mount failed"; return 1; }
		kfill "$tag"
		if [ "$1" = crash ]; then
			powercut "$I" || return 1
		else
			kumount
		fi
	fi
	if ! dumpe2fs -h "$I" 2>/dev/null | grep -q '^Journal checksum type:'
	then
		why="the journal superblock has no checksum"
		return 1
	fi
	case $1 in
	clean)	if needs_recovery "$I"; then
			why="needs_recovery set"; return 1
		fi ;;
	*)	if ! needs_recovery "$I"; then
			why="needs_recovery not set"; return 1
		fi ;;
	esac
	if jsb_corrupt_seen "$I"; then
		why="e2fsck sees a corrupt journal superblock before the damage"
		return 1
	fi
	poke "$I" $(($(jsb_off "$I") + $2))
	if ! jsb_corrupt_seen "$I"; then
		why="e2fsck -fn does not see the journal superblock corrupt"
		return 1
	fi
	secrets_present "$I"
}

# bitmap_at IMG GROUP block|inode: the group's bitmap block.
bitmap_at() {
	dumpe2fs "$1" 2>/dev/null | awk -v g="$2" -v k="$3" '
		$1 == "Group" { cur = $2; sub(":", "", cur) }
		cur == g && $1 == (k == "block" ? "Block" : "Inode") &&
		$2 == "bitmap" && $3 == "at" { print $4 + 0; exit }'
}

# 3. A committed transaction whose replay writes bitmaps the filesystem
# cannot trust.  $1: badcsum (group 0's block bitmap, with the bits of a
# live file's blocks cleared, metadata_csum: fails its checksum) | zero
# (group 0's block and inode bitmaps zeroed, metadata_csum) | zeronocsum
# (the same without metadata_csum: nothing but the live maps tells).
build_replay_bitmap() {
	I=$T/rbm.img
	rm -f "$I"
	tag=3$1
	if [ "$1" = zeronocsum ]; then
		mkimg "$I" 16M -t ext4 -b 1024 -O ^metadata_csum
	else
		mkimg "$I" 16M -t ext4 -b 1024
	fi
	dfill "$I" "$tag" 0x80001
	bb=$(bitmap_at "$I" 0 block)
	ib=$(bitmap_at "$I" 0 inode)
	[ -n "$bb" ] && [ -n "$ib" ] || { why="no bitmap location"; return 1; }
	case $1 in
	badcsum)
		dd if="$I" of="$T/bb.blk" bs=1024 skip="$bb" count=1 2>/dev/null
		for b in $(debugfs -R "blocks keep1" "$I" 2>/dev/null); do
			# 1k blocks: group 0 starts at block 1.
			o=$(((b - 1) / 8)) bit=$(((b - 1) % 8))
			v=$(od -An -tu1 -j "$o" -N 1 "$T/bb.blk" | tr -d ' ')
			printf "$(printf '\\%03o' $((v & ~(1 << bit) & 255)))" |
			dd of="$T/bb.blk" bs=1 seek="$o" conv=notrunc 2>/dev/null
		done
		dfs "$I" <<EOF
jo
jw -b $bb $T/bb.blk
jc
EOF
		;;
	zero*)
		head -c 2048 /dev/zero >"$T/zero2.blk"
		dfs "$I" <<EOF
jo
jw -b $bb,$ib $T/zero2.blk
jc
EOF
		;;
	esac
	if ! needs_recovery "$I"; then
		why="needs_recovery not set"; return 1
	fi
	if ! debugfs -R logdump "$I" 2>/dev/null | grep -q 'type 2 (commit block)'
	then
		why="logdump shows no committed transaction"; return 1
	fi
	# Replayed, the bitmaps disagree with the live files.
	cp "$I" "$T/probe.img"
	e2fsck -y -E journal_only "$T/probe.img" >/dev/null 2>&1
	e2fsck -fn "$T/probe.img" >"$T/probe.fsck" 2>&1
	prc=$?
	rm -f "$T/probe.img"
	if [ "$prc" = 0 ] ||
	   ! grep -q 'Block bitmap differences' "$T/probe.fsck"; then
		why="after e2fsck's replay, e2fsck -fn exit $prc and no block bitmap differences"
		return 1
	fi
	secrets_present "$I"
}

# group_of IMG BLOCK: the block group of a block.
group_of() {
	dumpe2fs -h "$1" 2>/dev/null | awk -v b="$2" '
		/^First block:/ { f = $NF } /^Blocks per group:/ { n = $NF }
		END { print int((b - f) / n) }'
}

# 4. A group flagged BLOCK_UNINIT that holds live blocks: a file with a
# big map and an htree directory, made by the kernel in a group the
# Orlov allocator chose (not 0, without flex_bg so that the group's
# blocks are its own), then flagged with debugfs.  $1: ext4 (extents) |
# ext3 (indirect maps, uninit_bg).
build_uninit() {
	I=$T/uninit.img
	rm -f "$I"
	tag=4$1
	if [ "$1" = ext4 ]; then
		mkimg "$I" 64M -t ext4 -b 1024 -O ^flex_bg
		bfl=0x80001
	else
		mkimg "$I" 64M -t ext3 -b 1024 -O uninit_bg
		bfl=0x1
	fi
	# The directory must be in a group > 0, and not the last one (for
	# which e2fsck has a problem of its own).
	ipg=$(dumpe2fs -h "$I" 2>/dev/null | sed -n 's/^Inodes per group: *//p')
	okg=$(dumpe2fs "$I" 2>/dev/null | awk '/^Group [0-9]+:/ { n++ }
		END { for (i = 1; i < n - 1; i++) printf " %d ", i }')
	kmount "$I" || { why="mount failed"; return 1; }
	kfill "$tag"
	# Large files are "stream" allocations, which start where the last
	# one ended (group 0) unless the extent code tries the goal first;
	# without them, and on a fresh mount (no locality-group
	# preallocation left by kfill in group 0), indirect maps land near
	# their inode too.
	kumount
	kmount "$I" || { why="mount failed"; return 1; }
	sd=/sys/fs/ext4/$(basename "$(findmnt -n -o SOURCE "$M")")
	[ -w "$sd/mb_stream_req" ] && echo 1000000 >"$sd/mb_stream_req"
	h=
	for d in h0 h1 h2 h3 h4 h5 h6 h7 h8 h9 h10 h11; do
		mkdir "$M/$d"
		case $okg in
		*" $((($(stat -c %i "$M/$d") - 1) / ipg)) "*) h=$d; break ;;
		esac
	done
	if [ -z "$h" ]; then
		kumount
		why="the kernel put h0..h11 in none of the groups$okg"
		return 1
	fi
	canary "$M/$h/map" "NWKEEP-$tag-map" 300000
	i=0
	while [ $i -lt 300 ]; do
		echo "$i" >"$M/$h/entry-with-a-long-name-$i"
		i=$((i + 1))
	done
	kumount
	mb=$(debugfs -R "bmap $h/map 200" "$I" 2>/dev/null)
	mb0=$(debugfs -R "bmap $h/map 0" "$I" 2>/dev/null)
	# A deleted +s record whose old map names the live map's first
	# block (its blocks were freed, then given to the live file: what a
	# kernel does to a file deleted before the live one was written);
	# the bitmap the flag implies calls that block free.
	echo "bait" >"$T/bait1"
	dfs "$I" <<EOF
write $T/bait1 bait
set_inode_field bait flags $bfl
EOF
	bino=$(debugfs -R "ls -l" "$I" 2>/dev/null | awk '$NF == "bait" { print $1 }')
	if [ "$1" = ext4 ]; then
		bw=5	# i_block word of the first extent's ee_start_lo
	else
		bw=0	# the first direct pointer
	fi
	dfs "$I" <<EOF
rm bait
set_inode_field <$bino> block[$bw] $mb0
EOF
	if [ -z "$bino" ] ||
	   [ "$(debugfs -R "blocks <$bino>" "$I" 2>/dev/null | tr -d ' ')" != "$mb0" ]
	then
		why="the deleted +s bait record does not map block $mb0"
		return 1
	fi
	db=$(debugfs -R "bmap $h 1" "$I" 2>/dev/null)
	if ! debugfs -R "htree $h" "$I" 2>/dev/null | grep -q 'Root node'; then
		why="$h is not an htree directory"
		return 1
	fi
	if [ "$1" = ext3 ] &&
	   ! debugfs -R "stat $h/map" "$I" 2>/dev/null | grep -q '(DIND)'; then
		why="$h/map has no double indirect block"
		return 1
	fi
	# Flag the groups of the map's first and 200th block and of the
	# directory's second block (mballoc's locality-group preallocation
	# may put the map in another group than its directory).
	G=
	for b in "$mb0" "$mb" "$db"; do
		g=$(group_of "$I" "$b")
		case $okg in
		*" $g "*) ;;
		*) why="block $b in group $g, not one of$okg"; return 1 ;;
		esac
		case " $G " in
		*" $g "*) ;;
		*) G="$G $g" ;;
		esac
	done
	G=${G# }
	for g in $G; do
		# The flags it has, and BLOCK_UNINIT.
		gl=$(dumpe2fs "$I" 2>/dev/null | grep "^Group $g:")
		fl=2
		case $gl in *INODE_UNINIT*) fl=$((fl | 1)) ;; esac
		case $gl in *ITABLE_ZEROED*) fl=$((fl | 4)) ;; esac
		printf 'set_bg %s flags %s\nset_bg %s checksum calc\n' \
			"$g" "$fl" "$g"
	done | dfs "$I"
	for g in $G; do
		if ! dumpe2fs "$I" 2>/dev/null | grep "^Group $g:" |
		     grep -q BLOCK_UNINIT; then
			why="group $g not flagged BLOCK_UNINIT"
			return 1
		fi
	done
	if e2fsck -fn "$I" >/dev/null 2>&1; then
		why="e2fsck -fn finds nothing wrong with group(s) $G"
		return 1
	fi
	echo "    group(s) $G: BLOCK_UNINIT, holding $h/map (block $mb; block $mb0 also in deleted +s <$bino>'s map) and $h (block $db)"
	secrets_present "$I"
}

# 5. Bitmaps that disagree with live maps and names, without metadata
# checksums.  A deleted +s file "bait" had the blocks that a live file
# "keep" has now (its record keeps its map: a wipe that trusts the bitmap
# alone goes through it); keep has an extent block (ext4, after punching
# holes) or indirect blocks (ext3).  $1: ext4 | ext3; $2: data (freeb of
# keep's first block) | meta (freeb of its extent or indirect block) |
# file (freei of a live +s file still named) | lf (freei of /lost+found).
build_bitmaps() {
	I=$T/bitmaps.img
	rm -f "$I"
	tag=5$1$2
	if [ "$1" = ext4 ]; then
		mkimg "$I" 16M -t ext4 -b 1024 -O ^metadata_csum
		fl=0x80001
	else
		mkimg "$I" 16M -t ext3 -b 1024
		fl=0x1
	fi
	dfill "$I" "$tag" "$fl"
	# bait's tail is a secret too where its whole map is in its record
	# (ext4, one extent); on ext3 the rest of it hangs from an indirect
	# block keep now owns: lost, and reported as such (exit bit 4).
	[ "$1" = ext4 ] && SECRETS="$SECRETS NWBAIT-$tag"
	# The deleted secret's record and freed blocks stay out of reach
	# meanwhile.
	sblocks=$(debugfs -R "blocks <$DSEC_INO>" "$I" 2>/dev/null)
	[ -n "$sblocks" ] || { why="no map for the deleted secret"; return 1; }
	{
		echo "seti <$DSEC_INO>"
		for b in $sblocks; do echo "setb $b"; done
	} | dfs "$I"
	canary "$T/bait" "NWBAIT-$tag" 60000
	canary "$T/keep" "NWKEEP-$tag-bm" 40000
	dfs "$I" <<EOF
write $T/bait bait
set_inode_field bait flags $fl
EOF
	bino=$(debugfs -R "ls -l" "$I" 2>/dev/null | awk '$NF == "bait" { print $1 }')
	brange=$(debugfs -R "blocks bait" "$I" 2>/dev/null | tr ' ' '\n' |
		awk 'NF { if (!mn || $1 < mn) mn = $1; if ($1 > mx) mx = $1 }
		     END { print mn, mx + 1 }')
	{
		echo "rm bait"
		echo "seti <$bino>"
		echo "write $T/keep keep"
		if [ "$1" = ext4 ]; then
			for p in 3 6 9 12 15; do
				echo "punch keep $p $p"
			done
		fi
		echo "freei <$bino>"
		for b in $sblocks; do echo "freeb $b"; done
		echo "freei <$DSEC_INO>"
	} | dfs "$I"
	e2fsck -fn "$I" >/dev/null 2>&1 ||
		{ why="e2fsck -fn not clean before the damage"; return 1; }
	case $2 in
	data)	x=$(debugfs -R "bmap keep 0" "$I" 2>/dev/null)
		echo "freeb $x" | dfs "$I" ;;
	meta)	x=$(debugfs -R "stat keep" "$I" 2>/dev/null |
			sed -n 's/.*(\(ETB0\|IND\)):\([0-9]*\).*/\2/p' | head -1)
		[ -n "$x" ] || { why="keep has no extent or indirect block"; return 1; }
		echo "freeb $x" | dfs "$I" ;;
	file)	x=$(debugfs -R "ls -l d" "$I" 2>/dev/null |
			awk '$NF == "livesec" { print $1 }')
		echo "freei <$x>" | dfs "$I" ;;
	lf)	x=11
		echo "freei <11>" | dfs "$I" ;;
	esac
	e2fsck -fn "$I" >"$T/probe.fsck" 2>&1
	prc=$?
	case $2 in
	data|meta) want="Block bitmap differences: *+$x\$" ;;
	*) want="Inode bitmap differences: *+$x\$" ;;
	esac
	if [ $prc = 0 ] || ! grep -q -- "$want" "$T/probe.fsck"; then
		why="e2fsck -fn exit $prc, does not report \"$want\""
		return 1
	fi
	case $2 in
	data|meta)
		set -- $brange
		if [ "$x" -lt "$1" ] || [ "$x" -ge "$2" ]; then
			why="block $x is not in bait's old range $1-$2"
			return 1
		fi
		echo "    freed block $x of keep, in deleted +s bait's map ($1-$(($2 - 1)))" ;;
	*)	echo "    freed inode $x" ;;
	esac
	secrets_present "$I"
}

# 6. Orphans at a crash: a +s file held open, removed, then the
# filesystem shut down with its log flushed; the holder is killed and
# the image unmounted.  $1: list (s_last_orphan) | file (orphan_file).
build_orphan() {
	I=$T/orphan.img
	rm -f "$I"
	tag=6$1
	if [ "$1" = file ]; then
		mkimg "$I" 32M -t ext4 -O orphan_file
	else
		mkimg "$I" 32M -t ext4
	fi
	kmount "$I" || { why="mount failed"; return 1; }
	# The orphan-to-be first: kfill's deleted secret must keep its
	# freed blocks.
	mkdir "$M/d"
	canary "$M/d/NWONAME-$tag" "NWOSEC-$tag" 30000
	chattr +s "$M/d/NWONAME-$tag"
	kfill "$tag"
	sleep 600 <"$M/d/NWONAME-$tag" &
	HOLDER=$!
	sleep 0.2
	rm "$M/d/NWONAME-$tag"
	xfs_io -x -c 'shutdown -f' "$M"
	kill "$HOLDER"
	wait "$HOLDER" 2>/dev/null
	HOLDER=
	kumount
	SECRETS="$SECRETS NWOSEC-$tag NWONAME-$tag"
	needs_recovery "$I" || { why="needs_recovery not set"; return 1; }
	if [ "$1" = file ]; then
		dumpe2fs -h "$I" 2>/dev/null | grep '^Filesystem features' |
			grep -q orphan_present ||
			{ why="orphan_present not set"; return 1; }
	else
		dumpe2fs -h "$I" 2>/dev/null | grep -q '^First orphan inode:' ||
			{ why="no first orphan inode in the superblock"; return 1; }
	fi
	secrets_present "$I"
}

# 7. An external journal holding stale transactions after a clean
# unmount.  Both images get a loop device (mke2fs -J device= and the
# kernel want one); e2secrm then works on the image files with -j.
build_extjournal() {
	I=$T/ext.img J=$T/ext.jnl
	rm -f "$I" "$J"
	mke2fs -q -F -O journal_dev -b 4096 "$J" 8M >/dev/null 2>&1
	lj=$(losetup -f --show "$J") || { why="losetup failed"; return 1; }
	LOOPS="$LOOPS $lj"
	if ! mkimg "$I" 64M -t ext4 -b 4096 -J device="$lj"; then
		why="mke2fs -J device=$lj failed"
		loop_detach "$lj"
		return 1
	fi
	lf=$(losetup -f --show "$I") || { why="losetup failed"; return 1; }
	LOOPS="$LOOPS $lf"
	mkdir -p "$M"
	if ! mount -o journal_path="$lj" "$lf" "$M"; then
		why="mount -o journal_path failed"
		loop_detach "$lf" "$lj"
		return 1
	fi
	MNT_DEV=1
	kfill 7
	mv "$M/d/keep2" "$M/d/keep2b"
	canary "$M/d/keep3" "NWKEEP-7-three" 5000
	sync -f "$M"
	kumount
	loop_detach "$lf"
	loop_detach "$lj"
	NW_JNL=$J
	ju=$(dumpe2fs -h "$I" 2>/dev/null | sed -n 's/^Journal UUID: *//p')
	jd=$(dumpe2fs -h "$J" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
	if [ -z "$ju" ] || [ "$ju" != "$jd" ]; then
		why="journal UUID in the fs \"$ju\", on the journal device \"$jd\""
		return 1
	fi
	if needs_recovery "$I"; then
		why="needs_recovery set after a clean unmount"
		return 1
	fi
	if [ "$(count "NWNAME-7" "$J")" = 0 ]; then
		why="the journal device holds no stale copy of the secret's name"
		return 1
	fi
	e2fsck -fn -j "$J" "$I" >/dev/null 2>&1 ||
		{ why="e2fsck -fn -j not clean"; return 1; }
	echo "    journal UUID $ju"
	secrets_present "$I" "$J"
}

# --- the classes --------------------------------------------------------------

run_class() {
	rc_cls=$1 rc_or=$2
	shift 2
	# NW_ONLY="1a 3b ...": run only these classes (for debugging).
	if [ -n "$NW_ONLY" ]; then
		case " $NW_ONLY " in
		*" ${rc_cls%% *} "*) ;;
		*) CLEAN= EXTRA_MODES= NW_JNL=; return ;;
		esac
	fi
	echo "== $rc_cls"
	if try3 "$rc_cls" "$@"; then
		never_worse "$rc_cls" "$I" "$rc_or" "$NW_JNL"
	fi
	rm -f "$I"
	CLEAN= EXTRA_MODES= NW_JNL=
}

# kclass ARGS...: run_class, or SKIP without loop mounts.
kclass() {
	if [ $LOOP_OK = yes ]; then
		run_class "$@"
	else
		skip "never-worse: $1" "loop mount unavailable: $why_noloop"
		CLEAN= EXTRA_MODES= NW_JNL=
	fi
}

CLEAN=1 kclass "0 control (kernel ext4)" input build_control
kclass "1a fast commits pending (shutdown)" kernel build_fc ""
CLEAN=1 kclass "1b fast commits obsolete (shutdown -f)" kernel build_fc -f
kclass "2a jsb bad csum (padding), clean" fsck build_jsb clean 0x80
kclass "2b jsb bad csum (padding), power cut" fsck build_jsb crash 0x80
run_class "2c jsb bad s_checksum, debugfs log" fsck build_jsb debugfs 0xff
run_class "3a replay: block bitmap fails csum" fsck build_replay_bitmap badcsum
run_class "3b replay: zero bitmaps (csum)" fsck build_replay_bitmap zero
run_class "3c replay: zero bitmaps (no csum)" fsck build_replay_bitmap zeronocsum
kclass "4a BLOCK_UNINIT group, ext4" fsck build_uninit ext4
kclass "4b BLOCK_UNINIT group, ext3 maps" fsck build_uninit ext3
for fs in ext4 ext3; do
	for what in data meta file lf; do
		run_class "5$fs-$what bitmaps: $(case $what in
			data) echo "freeb data block" ;;
			meta) echo "freeb extent/ind block" ;;
			file) echo "freei named +s file" ;;
			lf) echo "freei lost+found" ;;
			esac)" fsck build_bitmaps $fs $what
	done
done
CLEAN=1 kclass "6a orphan list at a crash" fsck build_orphan list
CLEAN=1 kclass "6b orphan_file at a crash" fsck build_orphan file
CLEAN=1 EXTRA_MODES=yaj kclass "7 external journal" input build_extjournal

# --- the table ----------------------------------------------------------------

echo
echo "never-worse: class / mode ($(for m in $MODES yaj; do printf '%s, ' "$(margs $m)"; done | sed 's/, $//'))"
echo "  (Rn: refused with exit n, okn: correct run with exit n, FAILn: check failed, exit n)"
awk -F'|' '{ printf "  %-44s", $1; for (i = 2; i <= NF; i++) printf " %-7s", $i; printf "\n" }' "$TABLE"
echo "never-worse: $(($(date +%s) - t_start)) s"
