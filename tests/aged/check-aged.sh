#!/bin/bash
# check-aged.sh --- `make check-aged`: e2secrm judged on aged filesystems
# (mkaged.sh), one image per profile; owned by tests/aged.  Root with loop
# devices; not part of `make check`.
#
#   AGED_PROFILE=full|short   the scale of every image (default full)
#   AGED_SEED=N               the seed of the operations (default 1)
#   AGED_ONLY="fc600 ext3"    only these profiles
#   AGED_DIR=DIR              the image cache (default /var/tmp/e2secrm-aged)
#   AGED_CUTS=N               cut points per image (default 9; 0: none),
#                             and as many faults at the system call when
#                             E2SECRM_FAULT_SHIM names tests/fault's shim
#   AGED_INC=0                no incremental check (default 1)
#   AGED_INC_FILES=N          its workload's creates (default 25: some 100
#                             operations), AGED_INC_OLD=N its operations
#                             on files of the history (default 12);
#                             a failure keeps its image and state after
#                             the workload in /var/tmp/inc-fail-P.*, and
#                             AGED_INC_KEEP=1 in inc-keep-P.* on a pass
#
# Profiles: fc600 (fast_commit, commit=600), fc5 (fast_commit, commit=5),
# nofc5 (commit=5, the image ends in a crash: needs_recovery), nofc600
# (1k blocks, commit=600), ext3 (1k blocks, data=ordered); all with
# journals of 1 to 4 MiB that wrap many times, so that a first run
# (no state) always reports a gap.  fc600big and fc5big: fc600's and
# fc5's workloads with a journal that holds the whole history, where no
# gap excuses a residue left.
#
# Each image is judged on a copy of the cached one:
#   - the generator's own checks passed (the disk is what the plan says);
#   - `e2secrm -n -v` writes nothing (sha256 unchanged);
#   - `e2secrm -y --no-state`: when its exit has no bit 4 (nothing
#     reported lost), no SECRET token may remain in the raw image; with
#     bit 4, `-y --no-state --all-free-if-lost` on a fresh copy of the
#     original must leave none (that run is then the one judged below);
#   - every KEEP token there before is there after, and every live file
#     reads (read-only kernel mount) as the manifest has it, xattrs too;
#   - `e2fsck -fn` is clean; a second `-y --no-state` finds nothing (exit
#     0, or 4 when it reports a loss again);
#   - with E2SECRM_CUT_PROG (tests/e2secrm-cut), the judged run cut after
#     its k-th write at AGED_CUTS points spread over its writes, then run
#     again by e2secrm, ends in the uncut run's image (byte for byte, the
#     superblock's write time and counters aside).
#   - incremental runs (issue 37): on a copy, `-y --all-free-if-lost
#     --state-dir S` (the clean run), a further workload through the
#     kernel (plan.awk's one cycle from another seed in a new directory,
#     and deletes, appends, renames, truncates, punched holes and
#     preallocation on files of the history; mounted as mkaged.sh mounts
#     the profile, unmounted cleanly), then on two copies `-n -v
#     --json-plan`, one with the state and one with --full: the first
#     is incremental, the JSON actions and the -v action lines are the
#     same; `-y` on both leaves the same image (as above), e2fsck clean.
# FREE tokens lost (tokens of plain files deleted or replaced, wiped with
# the rest) are measured, not judged.  A table closes the run, with where
# the SECRET tokens left are (free blocks, the journal, blocks in use).
here=$(cd "$(dirname "$0")" && pwd)
: "${E2SECRM:?E2SECRM must name the e2secrm binary}"
RESULTS=$(mktemp "${TMPDIR:-/tmp}/e2secrm-aged-results.XXXXXX") || exit 1
# As in make check: a run that takes the log from the ring facts walks
# it whole as well and stops on a difference (lib/find/ring_since.c).
E2SECRM_RING_CHECK=1
export RESULTS E2SECRM_RING_CHECK
. "$here/../lib.sh"
: "${AGED_PROFILE:=full}" "${AGED_SEED:=1}"
: "${AGED_ONLY:=fc600 fc5 nofc5 nofc600 ext3 fc600big fc5big}"
: "${AGED_DIR:=/var/tmp/e2secrm-aged}"
export AGED_DIR
scale=$AGED_PROFILE seed=$AGED_SEED
TABLE=$T/table
: >"$TABLE"
t_all=$EPOCHREALTIME

summary() {
	passed=$(grep -c '^PASS' "$RESULTS")
	failed=$(grep -c '^FAIL' "$RESULTS")
	skipped=$(grep -c '^SKIP' "$RESULTS")
	if [ "$failed" -ne 0 ] || [ "$skipped" -ne 0 ]; then
		echo
		grep -E '^(FAIL|SKIP)' "$RESULTS"
	fi
	rm -f "$RESULTS"
	echo
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

why=$(can_loop_mount)
if [ $? != 0 ]; then
	for p in $AGED_ONLY; do
		skip "aged $p" "loop mount unavailable: $why"
	done
	summary
	exit
fi
for c in xfs_io setfattr getfattr fallocate; do
	if ! command -v $c >/dev/null 2>&1; then
		for p in $AGED_ONLY; do
			skip "aged $p" "$c missing (tests/install-deps.sh)"
		done
		summary
		exit
	fi
done

# tokcount IMG: "TOKEN COUNT" for every token of this image in the raw
# bytes, sorted by token.  A token counts only when a newline or a space
# (xattr values) ends it and the plan made it: the end of one token in a
# block and the digits of another at the start of the next physical
# block would otherwise read as a third token that no file ever held.
tokcount() {
	LC_ALL=C grep -a -o -E "(SECRET|FREE|KEEP)-$tag-c[0-9]{6}( |\$)" "$1" |
		tr -d ' ' | LC_ALL=C sort | uniq -c |
		awk 'NR == FNR { plan[$1] = 1; next }
			plan[$2] { print $2, $1 }' "$img.tokens" -
}
# tsum FILE CLASS: occurrences of the class's tokens in a tokcount list.
tsum() { awk -v c="$2-" 'index($1, c) == 1 { n += $2 } END { print n + 0 }' "$1"; }

# where_left IMG: the blocks that still hold a SECRET token, as "free N,
# journal N, in use N (OWNERS)" (blocks, not tokens): what the engine
# missed.  OWNERS counts the in-use blocks by what holds them: dir,
# file, or meta (no inode: inode tables, bitmaps, descriptors).
where_left() {
	bsz=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	LC_ALL=C grep -a -b -o -E "SECRET-$tag-c[0-9]{6}( |\$)" "$1" |
		cut -d: -f1 | awk -v bs="$bsz" '{ print int($1 / bs) }' |
		LC_ALL=C sort -u >"$T/left.blocks"
	debugfs -R "blocks <8>" "$1" 2>/dev/null | tr ' ' '\n' |
		grep -E '^[0-9]+$' | LC_ALL=C sort -u >"$T/journal.blocks"
	nj=$(LC_ALL=C comm -12 "$T/left.blocks" "$T/journal.blocks" | wc -l)
	LC_ALL=C comm -23 "$T/left.blocks" "$T/journal.blocks" |
		sed 's/^/testb /' >"$T/testb"
	nu=0 nfree=0 owners=''
	if [ -s "$T/testb" ]; then
		debugfs -f "$T/testb" "$1" >"$T/testb.out" 2>/dev/null
		nu=$(grep -c 'marked in use' "$T/testb.out")
		nfree=$(grep -c 'not in use' "$T/testb.out")
	fi
	if [ "$nu" -gt 0 ] && [ "$nu" -le 200 ]; then
		owners=$(sed -n 's/^Block \([0-9]*\) marked in use$/\1/p' \
			"$T/testb.out" | tr '\n' ' ')
		# shellcheck disable=SC2086
		debugfs -R "icheck $owners" "$1" 2>/dev/null |
			awk 'NR > 1 { print $2 }' >"$T/owners"
		owners=$(while read -r ino; do
			case $ino in
			'<block') echo meta ;;
			*) debugfs -R "stat <$ino>" "$1" 2>/dev/null </dev/null |
				sed -n 's/.*Type: \([a-z]*\).*/\1/p' | head -1 ;;
			esac
		done <"$T/owners" | sort | uniq -c |
			awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
	fi
	echo "free $nfree, journal $nj, in use $nu${owners:+ ($owners)}"
}

# writers TOKCOUNT: the SECRET chunks a tokcount list still holds, by the
# operation that wrote them, against those the image held before: "tmp
# 50/60" is 50 of the 60 chunks written (and fsync'ed) into +s temporary
# files.  The operations are plan.awk's again, from the recipe in the
# image's .meta (the plan is deterministic; mkaged.sh no longer has them).
writers() {
	if [ ! -s "$T/ops" ]; then
		r=$(sed -n 's/^recipe=//p' "$img.meta")
		field() { echo "$r" | tr '|' '\n' | sed -n "s/^$1=//p"; }
		awk -v seed="$(field seed)" -v cycles="$(field cycles)" \
			-v nfiles="$(field files)" -v tag="$tag" \
			-v crash_end="$(field crash_end)" -v maxkb="$(field maxkb)" \
			-v tokfile=/dev/null -v livefile=/dev/null \
			-f "$here/plan.awk" </dev/null |
			awk '$3 ~ /^SECRET-/ {
				n = $2; sub(/.*\//, "", n)
				if ($1 == "wr") k = "create"
				else if ($1 == "xa") k = "xattr"
				else if (n ~ /^tmp/) k = ($1 == "ap") ? "tmp-append" : "tmp"
				else if (n ~ /\.swp$/) k = "swap"
				else if (n ~ /\.new$/) k = "save"
				else if ($1 == "ap") k = "append"
				else k = $1
				print $3, k }' | LC_ALL=C sort >"$T/ops"
	fi
	awk '$1 ~ /^SECRET-/ && $2 > 0 { print $1 }' "$1" >"$T/left.tok"
	awk '$1 ~ /^SECRET-/ && $2 > 0 { print $1 }' "$T/before" >"$T/had.tok"
	awk 'FILENAME == ARGV[1] { left[$1] = 1; next }
		FILENAME == ARGV[2] { had[$1] = 1; next }
		had[$1] { n[$2]++; if (left[$1]) l[$2]++ }
		END { for (k in n) if (l[k]) printf "%s %d/%d\n", k, l[k], n[k] }' \
		"$T/left.tok" "$T/had.tok" "$T/ops" | sort | tr '\n' ',' |
		sed 's/,$//; s/,/, /g'
}

# livecheck IMG: every file of the manifest reads as it did, with the same
# xattrs, and no other file is there; $live_why says what differs.
livecheck() {
	live_why=''
	if ! kmount "$1" ro; then
		live_why="read-only mount failed"
		return 1
	fi
	(cd "$T/mnt" && find . -path ./lost+found -prune -o -type f -print |
		sed 's|^\./||' | tr '\n' '\0' | xargs -0 -r sha256sum) |
		LC_ALL=C sort -k2 >"$T/now.manifest"
	# As mkaged.sh writes PATH.xattrs.
	(cd "$T/mnt" && getfattr -R -d -m user. -e hex . 2>/dev/null) |
		awk '/^# file: / { if (l != "") print l; l = substr($0, 9); next }
			/=/ { l = l " " $0 } END { if (l != "") print l }' |
		LC_ALL=C sort >"$T/now.xattrs"
	kumount
	if ! cmp -s "$T/now.xattrs" "$img.xattrs"; then
		live_why="xattrs differ: $(diff "$img.xattrs" "$T/now.xattrs" |
			grep -c '^[<>]') lines"
		return 1
	fi
	if ! cmp -s "$T/now.manifest" "$img.manifest"; then
		live_why="$(diff "$img.manifest" "$T/now.manifest" |
			grep -c '^[<>]') manifest lines differ: $(diff \
			"$img.manifest" "$T/now.manifest" | grep '^[<>]' |
			head -2 | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# row VALUES...: one line of the closing table.
row() { echo "$*" >>"$TABLE"; }

# cuts P IMG ARGS...: the run `-y ARGS` on IMG, cut at AGED_CUTS points
# and run again, against the run never cut.
cuts() {
	p=$1 img=$2
	shift 2
	[ -n "${E2SECRM_CUT_PROG:-}" ] && [ "${AGED_CUTS:-9}" -gt 0 ] ||
		return 0
	cp --sparse=always "$img" "$T/u.img"
	E2SECRM_CUT_COUNT=$T/count "$E2SECRM_CUT_PROG" -y "$@" "$T/u.img" \
		>/dev/null 2>&1
	w=$(cat "$T/count" 2>/dev/null)
	if [ -z "$w" ] || [ "$w" -lt 2 ]; then
		fail "aged $p: cut runs" "the uncut run made ${w:-no} writes"
		return
	fi
	bad= i=1
	while [ "$i" -le "$AGED_CUTS" ]; do
		k=$((w * i / (AGED_CUTS + 1)))
		[ "$k" -ge 1 ] || k=1
		cp --sparse=always "$img" "$T/c.img"
		E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$@" "$T/c.img" \
			>/dev/null 2>&1
		"$E2SECRM" -y "$@" "$T/c.img" >/dev/null 2>&1
		same "$T/u.img" "$T/c.img" || bad="$bad k=$k"
		i=$((i + 1))
	done
	if [ -z "$bad" ]; then
		pass "aged $p: cut at $AGED_CUTS points of $w writes, run again: the uncut run's image"
	else
		fail "aged $p: cut and run again: the uncut run's image" \
			"of $w writes, differs at$bad"
	fi
	faults "$p" "$img" "$@"
	rm -f "$T/u.img" "$T/c.img"
}

# faults P IMG ARGS...: the same run under tests/fault's shim, at the
# system call: at AGED_CUTS points of its write calls, in turn a write
# failing from then on, a power cut, SIGTERM, and a write failing twice
# (unix_io's retry too); each run again, against the uncut image in
# $T/u.img.  Without E2SECRM_FAULT_SHIM, nothing.
faults() {
	p=$1 img=$2
	shift 2
	[ -n "${E2SECRM_FAULT_SHIM:-}" ] || return 0
	cp --sparse=always "$img" "$T/c.img"
	E2SECRM_FAULT_DEV=$T/c.img E2SECRM_FAULT_COUNT=$T/fcount \
		LD_PRELOAD=$E2SECRM_FAULT_SHIM "$E2SECRM" -y "$@" "$T/c.img" \
		>/dev/null 2>&1
	fw=$(sed -n 's/^writes //p' "$T/fcount" 2>/dev/null)
	if [ -z "$fw" ] || [ "$fw" -lt 2 ] || ! same "$T/u.img" "$T/c.img"
	then
		fail "aged $p: faults at the system call" \
			"the run under the shim made ${fw:-no} writes or another image"
		return
	fi
	bad= i=1
	while [ "$i" -le "$AGED_CUTS" ]; do
		k=$((fw * i / (AGED_CUTS + 1)))
		[ "$k" -ge 1 ] || k=1
		case $((i % 4)) in
		1) f=eio-from:$k ;;
		2) f=cut:$k ;;
		3) f=sig:$k:TERM ;;
		0) f=eio-twice:$k ;;
		esac
		cp --sparse=always "$img" "$T/c.img"
		E2SECRM_FAULT=$f E2SECRM_FAULT_DEV=$T/c.img \
			LD_PRELOAD=$E2SECRM_FAULT_SHIM "$E2SECRM" -y "$@" \
			"$T/c.img" >/dev/null 2>&1
		frc=$?
		if ! dumpe2fs -h "$T/c.img" 2>/dev/null |
		   grep -q '^Filesystem features:.*needs_recovery' &&
		   ! e2fsck -fn "$T/c.img" >/dev/null 2>&1; then
			bad="$bad $f:fsck"
		fi
		"$E2SECRM" -y "$@" "$T/c.img" >/dev/null 2>&1
		same "$T/u.img" "$T/c.img" || bad="$bad $f:rerun(exit $frc)"
		i=$((i + 1))
	done
	if [ -z "$bad" ]; then
		pass "aged $p: $AGED_CUTS faults at the system call of $fw writes (EIO, cut, SIGTERM, EIO twice): e2fsck clean, run again: the uncut run's image"
	else
		fail "aged $p: faults at the system call" "of $fw writes:$bad"
	fi
}

# The verbs of plan.awk's lines, as mkaged.sh has them, on paths under
# $M; a failure is noted in $T/inc.opfail.  Defined only in the subshell
# that runs the churn.
churn_verbs() {
	opfail() { echo "$*" >>"$T/inc.opfail"; }
	md() { mkdir "$M/$1" || opfail md "$@"; }
	splus() { chattr +s "$M/$1" || opfail splus "$@"; }
	mkplus() {
		{ : >"$M/$1" && chattr +s "$M/$1"; } || opfail mkplus "$@"
	}
	wr() { yes "$2" | head -c "$3" >"$M/$1" || opfail wr "$@"; }
	wf() {
		yes "$2" | head -c "$3" |
			dd of="$M/$1" bs=64k conv=fsync status=none ||
			opfail wf "$@"
	}
	ap() {
		yes "$2" | head -c "$3" | dd of="$M/$1" bs=64k oflag=append \
			conv=notrunc,fsync status=none || opfail ap "$@"
	}
	tr_() { truncate -s "$2" "$M/$1" || opfail tr "$@"; }
	ph() { fallocate -p -o "$2" -l "$3" "$M/$1" || opfail ph "$@"; }
	# fa PATH BYTES: preallocated past the end, the size kept (unwritten
	# extents; ext4 only).
	fa() { fallocate -n -o "$(stat -c %s "$M/$1")" -l "$2" "$M/$1" ||
		opfail fa "$@"; }
	lk() { ln "$M/$1" "$M/$2" || opfail lk "$@"; }
	mvf() { mv -f "$M/$1" "$M/$2" || opfail mvf "$@"; }
	rmf() { rm "$M/$1" || opfail rmf "$@"; }
	rmtree() { rm -rf "${M:?}/$1" || opfail rmtree "$@"; }
	xa() {
		setfattr -n user.a -v "$(yes "$2" | head -c "$3" | tr '\n' ' ')" \
			"$M/$1" || opfail xa "$@"
	}
	fsd() { xfs_io -c fsync "$M/$1" || opfail fsd "$@"; }
	tick() { :; }
}

# incremental P IMG: issue 37's check on a copy of IMG.  A clean run
# with a state (`-y --all-free-if-lost --state-dir`, which answers the
# first run's gap), a further workload through the kernel (plan.awk
# again, with another seed and AGED_INC_FILES creates, in a new directory
# inc, mounted as mkaged.sh mounts the profile and unmounted cleanly,
# then AGED_INC_OLD operations on files of the aged history: deletes,
# appends, renames, truncates, punched holes, preallocation), then on
# two copies of that image and of the state `-n -v --json-plan`, one
# incremental and one --full: the first is incremental, the two plans
# (JSON actions and -v action lines) are equal; then `-y` on each: the
# two images are equal (as `same`), e2fsck -fn clean.  A failure keeps
# the image and the state after the workload in /var/tmp/inc-fail-P.*.
incremental() {
	p=$1 img=$2
	iseed=$((seed + 1000))
	ti=$EPOCHREALTIME
	inc_res=FAIL
	ci=$T/i.img S=$T/iS
	rm -rf "$S" "$T/iS2" "$T/iS0" "$T/inc.opfail"
	mkdir -p "$S"
	: >"$T/inc.opfail"
	cp --sparse=always "$img" "$ci"
	run_e2secrm -y --all-free-if-lost --state-dir "$S" "$ci"
	if [ $((rc & 12)) != 0 ]; then
		fail "aged $p: incremental: the clean run" \
			"-y --all-free-if-lost --state-dir exit $rc: $(echo "$err" | head -1)"
		rm -f "$ci"
		return
	fi
	irc0=$rc
	# The workload: plan.awk's one cycle, as mkaged.sh runs it, then
	# operations on files of the history, picked evenly from the
	# manifest from the seed.
	r=$(sed -n 's/^recipe=//p' "$img.meta")
	mopts=$(sed -n 's/^mount=//p' "$img.meta")
	fstype=$(echo "$r" | cut -d'|' -f2)
	itag=$(echo "i$tag" | cut -c1-16)
	awk -v seed="$iseed" -v cycles=1 -v nfiles="${AGED_INC_FILES:-25}" \
		-v tag="$itag" -v crash_end=0 \
		-v maxkb="$(echo "$r" | tr '|' '\n' | sed -n 's/^maxkb=//p')" \
		-v tokfile=/dev/null -v livefile=/dev/null \
		-f "$here/plan.awk" </dev/null |
		sed 's/^tr /tr_ /; /^begin_cycle/d; /^end_cycle/d' >"$T/inc.ops"
	awk '{ print $2 }' "$img.manifest" |
		awk -v n="${AGED_INC_OLD:-12}" -v s="$iseed" -v t="$itag" \
			-v fa="$([ "$fstype" = ext4 ] && echo 1)" '
		{ f[NR - 1] = $0 }
		END {
			if (n > NR) n = NR
			for (k = 0; k < n; k++) {
				q = f[(int(k * NR / n) + s) % NR]
				o = "INC-" t "-o" k
				if (k % 6 == 0) print "rmf " q
				else if (k % 6 == 1) print "ap " q " " o " 5000"
				else if (k % 6 == 2) print "mvf " q " d" (k % 8) "/inc-r" k
				else if (k % 6 == 3 && fa) print "fa " q " 65536"
				else if (k % 6 == 3) print "ap " q " " o " 65536"
				else if (k % 6 == 4) print "tr_ " q " 1000"
				else print "ph " q " 0 4096"
			}
		}' >"$T/inc.old"
	if ! kmount "$ci" "$mopts"; then
		fail "aged $p: incremental: the workload" "mount -o $mopts failed"
		rm -f "$ci"
		return
	fi
	mkdir "$T/mnt/inc"
	# shellcheck disable=SC1091
	(M=$T/mnt/inc; churn_verbs; . "$T/inc.ops"
	 M=$T/mnt; . "$T/inc.old") >/dev/null 2>&1
	kumount
	nops=$(($(grep -c -v -E '^(\(|\) &|wait|tick)' "$T/inc.ops") +
		$(wc -l <"$T/inc.old")))
	if [ -s "$T/inc.opfail" ]; then
		fail "aged $p: incremental: the workload" \
			"$(wc -l <"$T/inc.opfail") of $nops operations failed ($(head -3 "$T/inc.opfail" | tr '\n' ' '))"
	fi
	cp --sparse=always "$ci" "$T/i0.img"
	cp -r "$S" "$T/iS0"
	cp --sparse=always "$ci" "$T/i2.img"
	cp -r "$S" "$T/iS2"
	# keep fail|keep: the image and the state after the workload, and
	# the two -n runs' JSON, in /var/tmp/inc-fail-P.* (inc-keep-P.*).
	keep() {
		k=/var/tmp/inc-$1-$p
		cp --sparse=always "$T/i0.img" "$k.img"
		rm -rf "$k.state"
		cp -r "$T/iS0" "$k.state"
		cp "$T/j1" "$k.inc.json" 2>/dev/null
		cp "$T/j2" "$k.full.json" 2>/dev/null
		echo "  kept: $k.img, $k.state (after the workload)"
	}
	# The -v action lines: those after the header, to the list's end.
	acts() { awk '/: actions, in the order they are written:$/ { f = 1; next }
		f && !/^  / { exit } f' "$1"; }
	run_e2secrm -n -v --json "$T/j1" --json-plan --state-dir "$S" "$ci"
	irc1=$rc
	cp "$T/out" "$T/v1"
	run_e2secrm --full -n -v --json "$T/j2" --json-plan \
		--state-dir "$T/iS2" "$T/i2.img"
	irc2=$rc
	cp "$T/out" "$T/v2"
	run=$(jq -r .run "$T/j1" 2>/dev/null)
	why=$(jq -r .full_reason "$T/j1" 2>/dev/null)
	echo "  incremental: clean run exit $irc0, $nops operations through" \
		"the kernel, then -n: $run${why:+ ($why)}, groups read" \
		"$(jq -r '.groups_read | if type == "array" then length else . end' "$T/j1" 2>/dev/null)," \
		"log blocks read $(jq -r .log_blocks_read "$T/j1" 2>/dev/null)" \
		"(ring facts: $(jq -r .ring_facts "$T/j1" 2>/dev/null))"
	bad=''
	if [ "$run" = incremental ]; then
		pass "aged $p: incremental: the run after a kernel workload is incremental"
	else
		fail "aged $p: incremental: the run after a kernel workload is incremental" \
			"$run: $why"
		bad=y
	fi
	jq -S .actions "$T/j1" >"$T/a1" 2>/dev/null
	jq -S .actions "$T/j2" >"$T/a2" 2>/dev/null
	na=$(jq length "$T/a1" 2>/dev/null)
	if [ "$irc1" = "$irc2" ] && [ -s "$T/a1" ] && cmp -s "$T/a1" "$T/a2" &&
	   [ -n "$(acts "$T/v1")" ] &&
	   cmp -s <(acts "$T/v1") <(acts "$T/v2"); then
		pass "aged $p: incremental: its plan is --full's ($na actions, -n exit $irc1)"
	else
		fail "aged $p: incremental: its plan is --full's" \
			"-n exit $irc1 and $irc2, JSON actions $(diff "$T/a1" "$T/a2" |
			grep -c '^[<>]') lines differ, -v action lines $(diff \
			<(acts "$T/v1") <(acts "$T/v2") | grep -c '^[<>]') differ"
		diff <(acts "$T/v1") <(acts "$T/v2") | head -6 | sed 's/^/    /'
		bad=y
	fi
	run_e2secrm -y --state-dir "$S" "$ci"
	irc1=$rc
	echo "$out" | grep -E 'lost|cannot be traced|refus|full scan' | head -3 |
		cut -c1-200 | sed 's/^/    /'
	run_e2secrm -y --full --state-dir "$T/iS2" "$T/i2.img"
	irc2=$rc
	if [ $((irc1 & 8)) = 0 ] && same "$ci" "$T/i2.img"; then
		pass "aged $p: incremental: -y leaves --full's image (exit $irc1)"
	else
		fail "aged $p: incremental: -y leaves --full's image" \
			"exit $irc1 and $irc2, $(cmp -l "$ci" "$T/i2.img" | wc -l) bytes differ"
		bad=y
	fi
	if e2fsck -fn "$ci" >"$T/fsck" 2>&1; then
		pass "aged $p: incremental: e2fsck -fn clean"
	else
		fail "aged $p: incremental: e2fsck -fn clean" \
			"$(grep -v -E '^(Pass|e2fsck|[^ ]*: [0-9]+/)' "$T/fsck" |
				head -3 | tr '\n' ' ')"
		bad=y
	fi
	# Measured, not judged: the churn's SECRET tokens left.
	echo "  incremental: -y exit $irc1 (--full $irc2), SECRET of the" \
		"workload left: $(LC_ALL=C grep -a -c -E "SECRET-$itag-c" "$ci")"
	if [ -z "$bad" ]; then
		inc_res=$run
		[ -z "${AGED_INC_KEEP:-}" ] || keep keep
	else
		keep fail
	fi
	inc_s=$(awk "BEGIN { printf \"%.0f\", $EPOCHREALTIME - $ti }")
	rm -rf "$ci" "$T/i2.img" "$T/i0.img" "$S" "$T/iS2" "$T/iS0"
}

judge() {
	p=$1
	echo "== aged $p ($scale, seed $seed)"
	t0=$EPOCHREALTIME
	gen=$(bash "$here/mkaged.sh" -p "$p" -l "$scale" -s "$seed" 2>&1)
	st=$?
	echo "$gen" | sed 's/^/  /'
	img=$(echo "$gen" | sed -n 's/^aged: image //p' | tail -1)
	gen_s=$(awk "BEGIN { printf \"%.0f\", $EPOCHREALTIME - $t0 }")
	if [ $st != 0 ] || [ ! -f "$img" ]; then
		fail "aged $p: generate" "mkaged.sh exit $st"
		row "$p - $gen_s - - - - - - - - - - - - - - - - - -"
		return
	fi
	tag=$(sed -n 's/^tag=//p' "$img.meta")
	final=$(sed -n 's/^final=//p' "$img.meta")
	if [ "$(sed -n 's/^gen_ok=//p' "$img.meta")" = 1 ]; then
		pass "aged $p: generated as planned ($(sed -n \
			's/^operations=//p' "$img.meta") operations, ends $final)"
	else
		# The plan's token classes are wrong for this image: judging
		# it would judge the generator.
		fail "aged $p: generated as planned" \
			"$(sed -n 's/^gen_why=//p' "$img.meta")"
		row "$p $final $gen_s - - - - - - - - - - - - - - - - -"
		return
	fi
	t1=$EPOCHREALTIME
	a=$T/a.img
	cp --sparse=always "$img" "$a"
	tokcount "$a" >"$T/before"
	sb=$(tsum "$T/before" SECRET) fb=$(tsum "$T/before" FREE)
	kb=$(tsum "$T/before" KEEP)
	echo "  before: SECRET $sb, FREE $fb, KEEP $kb tokens"
	if [ "$sb" = 0 ]; then
		fail "aged $p: secret on the image before the run" "none found"
	fi

	s0=$(sha "$a")
	run_e2secrm -n -v "$a"
	rc_n=$rc
	if [ "$(sha "$a")" = "$s0" ]; then
		pass "aged $p: -n -v writes nothing (exit $rc_n)"
	else
		fail "aged $p: -n -v writes nothing" "sha256 changed (exit $rc_n)"
		cp --sparse=always "$img" "$a"
	fi

	run_e2secrm -y --no-state "$a"
	rc_y=$rc
	echo "  -y --no-state: exit $rc_y"
	echo "$out" | grep -E 'lost|cannot be traced|refus' | head -3 |
		cut -c1-200 | sed 's/^/    /'
	[ -n "$err" ] && echo "$err" | head -3 | sed 's/^/    stderr: /'
	# What -y said it could not trace: maps lost (files), and a gap
	# (the wrapped log's history does not reach the making of the
	# filesystem, with no state from a previous run).
	lost=$(echo "$out" | sed -n \
		's/.*: \([0-9]*\) secure-delete files\{0,1\} lost all or part.*/\1/p' |
		head -1)
	lost=${lost:-0}
	gap=n
	echo "$out" | grep -q 'cannot be traced' && gap=y
	tokcount "$a" >"$T/after.y"
	sy=$(tsum "$T/after.y" SECRET)
	where_y='' by_y=''
	if [ "$sy" != 0 ]; then
		where_y=$(where_left "$a")
		by_y=$(writers "$T/after.y")
	fi
	echo "  after -y: SECRET $sy left${where_y:+ ($where_y blocks)}"
	[ -z "$by_y" ] || echo "    chunks left by writer: $by_y"
	j=$a after=$T/after.y rc_af=- sf=$sy where_f=$where_y by_f=''
	if [ $((rc_y & 8)) != 0 ]; then
		fail "aged $p: -y runs" "exit $rc_y: $(echo "$err" | head -1)"
		row "$p $final $gen_s $rc_n $rc_y $lost $gap $sb $sy - - $fb - - - - - - - -"
		rm -f "$a"
		return
	fi
	if [ $((rc_y & 4)) = 0 ]; then
		if [ "$sy" = 0 ]; then
			pass "aged $p: no SECRET left (exit $rc_y)"
		else
			fail "aged $p: no SECRET left" \
				"$sy tokens left with exit $rc_y, none reported lost ($where_y blocks)"
		fi
	else
		# Bit 4: something was reported lost; the answer the
		# product offers is --all-free-if-lost, on the original.
		b=$T/b.img
		cp --sparse=always "$img" "$b"
		run_e2secrm -y --no-state --all-free-if-lost "$b"
		rc_af=$rc
		tokcount "$b" >"$T/after.af"
		sf=$(tsum "$T/after.af" SECRET)
		where_f='' by_f=''
		if [ "$sf" != 0 ]; then
			where_f=$(where_left "$b")
			by_f=$(writers "$T/after.af")
		fi
		echo "  -y --all-free-if-lost on the original: exit $rc_af," \
			"SECRET $sf left"
		if [ "$sf" = 0 ] && [ $((rc_af & 8)) = 0 ]; then
			pass "aged $p: no SECRET left after --all-free-if-lost (-y exit $rc_y, then $rc_af)"
		else
			fail "aged $p: no SECRET left after --all-free-if-lost" \
				"-y exit $rc_y, --all-free-if-lost exit $rc_af, $sf tokens left ($where_f blocks)"
		fi
		rm -f "$a"
		j=$b after=$T/after.af
	fi

	# KEEP: every token the image held before is still there.
	kmiss=$(LC_ALL=C join -a1 -e 0 -o 1.1,1.2,2.2 "$T/before" "$after" |
		awk '$1 ~ /^KEEP-/ && $2 > 0 && $3 == 0' | wc -l)
	if [ "$kmiss" = 0 ]; then
		pass "aged $p: KEEP tokens kept"
		kok=ok
	else
		fail "aged $p: KEEP tokens kept" "$kmiss KEEP tokens gone"
		kok="$kmiss-gone"
	fi
	fl=$((fb - $(tsum "$after" FREE)))

	if e2fsck -fn "$j" >"$T/fsck" 2>&1; then
		pass "aged $p: e2fsck -fn clean"
		fok=ok
	else
		fail "aged $p: e2fsck -fn clean" \
			"$(grep -v -E '^(Pass|e2fsck|[^ ]*: [0-9]+/)' "$T/fsck" |
				head -3 | tr '\n' ' ')"
		fok=FAIL
	fi
	if livecheck "$j"; then
		pass "aged $p: live files as the manifest"
		lok=ok
	else
		fail "aged $p: live files as the manifest" "$live_why"
		lok=FAIL
	fi
	run_e2secrm -y --no-state "$j"
	rc2=$rc
	if [ "$rc2" = 0 ] || [ "$rc2" = 4 ]; then
		pass "aged $p: a second -y finds nothing (exit $rc2)"
	else
		fail "aged $p: a second -y finds nothing" "exit $rc2"
	fi
	rm -f "$j"
	# The judged run: with --all-free-if-lost when -y set bit 4.
	if [ $((rc_y & 4)) = 4 ]; then
		cuts "$p" "$img" --no-state --all-free-if-lost
	else
		cuts "$p" "$img" --no-state
	fi
	inc_res=- inc_s=0
	[ "${AGED_INC:-1}" = 1 ] && incremental "$p" "$img"
	judge_s=$(awk "BEGIN { printf \"%.0f\", $EPOCHREALTIME - $t1 }")
	row "$p $final $gen_s $rc_n $rc_y $lost $gap $sb $sy $rc_af $sf $fb $fl" \
		"$kok $lok $fok $rc2 $inc_res $inc_s $judge_s"
	if [ "$sf" != 0 ]; then
		echo "$p: $where_f blocks" >>"$T/where"
		echo "$p: chunks by writer: ${by_f:-$by_y}" >>"$T/where"
	fi
	rm -f "$T/ops"
}

for p in $AGED_ONLY; do
	judge "$p"
done

echo
echo "aged filesystems ($scale, seed $seed; SECRET, FREE: tokens in the raw image):"
{
	echo "image end gen_s -n -y lost gap SECRET left_-y afil left FREE FREE_lost KEEP live fsck again inc inc_s judge_s"
	cat "$TABLE"
} | column -t
if [ -s "$T/where" ]; then
	echo "SECRET left by the judged run: where (blocks), and the chunks"
	echo "left of those the image held, by what wrote them (tmp: +s temporary"
	echo "files, fsync'ed; save/swap: editor; create: not fsync'ed):"
	sed 's/^/  /' "$T/where"
fi
echo "(-n, -y, afil, again: exit statuses; lost: files -y says lost all or" \
	"part of a map; gap: -y says deletions before the log cannot be traced;" \
	"afil: -y --all-free-if-lost on the original, run when -y sets bit 4;" \
	"left: what the judged run left; FREE_lost: by the judged run;" \
	"inc: the incremental check, incremental or full (the run after the" \
	"workload), FAIL, or - (not run: AGED_INC=0); inc_s: its seconds;" \
	"gen_s: 0 or so for a cached image)"
echo "total $(awk "BEGIN { printf \"%.0f\", $EPOCHREALTIME - $t_all }") s"
summary
