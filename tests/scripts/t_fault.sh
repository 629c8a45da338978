# t_fault.sh --- faults at the system call, below every cache.
#
# tests/fault/fault_shim.so ($E2SECRM_FAULT_SHIM), preloaded into the real
# e2secrm, counts the write and read calls made on the device and, at the
# K-th, cuts the power (_exit 99), fails with EIO once or from then on,
# writes half, or raises SIGINT/SIGTERM (tests/fault/fault_shim.c).  On
# kernel-made images, after an uncut run under the shim (W writes, R
# reads, end image U), each fault at a sample of K on a fresh copy:
#   cut:K        exit 99; e2fsck -fn clean (or needs_recovery); a plain
#                re-run exits 0 or 1 and ends in U (bit 4 is honest too)
#   eio-from:K   exit 8, stderr names the device and the error; e2fsck
#                clean; the re-run ends in U
#   eio-once:K   exit 1 (unix_io retries a failed pwrite64 with write);
#                the image is U
#   eio-twice:K  the K-th write and the next (unix_io's retry of it) fail:
#                exit 8, e2fsck clean, the re-run ends in U; or exit 1
#                and the image is U (the block written again later).
#                Exit 1 with any other image is a write lost unsaid
#                (unix_io's reuse_cache() drops a dirty block whose
#                write fails)
#   short:K      exit 1 (unix_io retries a short pwrite64 whole with
#                write) or 8; e2fsck clean; the re-run ends in U
#   rio-from:K   exit 8, stderr names the device; before the first write
#                the image byte-identical, after it e2fsck clean and the
#                re-run ends in U
#   sig:K:INT, sig:K:TERM
#                exit bit 32; e2fsck clean; the re-run ends in U.  A
#                signal at the last writes comes after the run's last
#                check: the run finishes, exit 1 and U, said so (never
#                at the first write)
# Each (fault, K) starts with no previous run's state, as the uncut run.
# Images: a rich kernel-made one (deleted, renamed and truncated +s files,
# a +s directory), the same with a transaction debugfs left to recover,
# both as image files and the first through a loop device (the shim
# matches the device by st_rdev; the run writes through the block
# device's page cache, which the image is read back through), many small
# deleted +s files (their freed blocks go out as unix_io's cache evicts
# them), and fast commits after a kernel crash (xfs_io shutdown).
# K is sampled at 6 points over 1..W (1 and W always; reads at 1, the
# last read before the first write, the first after it and a spread over
# 1..R); FAULT_ALL=1 takes every K (a minute or two).  FAULT_KEEP=DIR
# keeps each base image there (DIR/<name>.img), to reproduce a failure.
. "$(dirname "$0")/../lib.sh"

SAMPLE=6

skip_all() {
	for n in "kernel-made image" "kernel-made image on a loop device" \
		 "kernel-made image, needs recovery" \
		 "many small deleted +s files" "fast commits after a crash"; do
		skip "fault: $n" "$1"
	done
	exit 0
}
if [ -z "$E2SECRM_FAULT_SHIM" ] || [ ! -r "$E2SECRM_FAULT_SHIM" ]; then
	skip_all "E2SECRM_FAULT_SHIM unset or unreadable"
fi
why=$(can_loop_mount) || skip_all "loop mount unavailable: $why"
command -v losetup >/dev/null || skip_all "no losetup"
command -v xfs_io >/dev/null || skip_all "no xfs_io"

# Under AddressSanitizer its runtime must come first in the preload list.
PRELOAD=$E2SECRM_FAULT_SHIM
asan=$(ldd "$E2SECRM" 2>/dev/null | awk '/libasan/ { print $3; exit }')
[ -n "$asan" ] && PRELOAD="$asan $PRELOAD"

# The device the runs are given: $T/c.img, or a loop device over
# $T/loop.img (then read back into $T/c.img).
DEV=$T/c.img
LOOP=
fault_cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	cleanup
}
trap fault_cleanup EXIT

# put IMG: the device holds IMG.  got: $T/c.img is what the device holds.
put() {
	if [ "$DEV" = "$T/c.img" ]; then
		cp "$1" "$T/c.img"
	else
		dd if="$1" of="$DEV" bs=1M conv=fsync status=none
	fi
}
got() {
	if [ "$DEV" != "$T/c.img" ]; then
		dd if="$DEV" of="$T/c.img" bs=1M status=none
	fi
}

# faulted SPEC [COUNT]: e2secrm -y on the device under the shim; sets
# $rc, $err; $T/c.img is the device's image after it.
faulted() {
	E2SECRM_FAULT=$1 E2SECRM_FAULT_DEV=$DEV E2SECRM_FAULT_COUNT=${2:-} \
		LD_PRELOAD=$PRELOAD "$E2SECRM" -y "$DEV" >"$T/out" 2>"$T/err"
	rc=$?
	err=$(cat "$T/err")
	got
}

# blocks_differ A B: the blocks A and B differ in, but the superblock's
# volatile fields (as same() has them); at most 8.
blocks_differ() {
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	cmp -l "$1" "$2" | awk -v bs="${bs:-1024}" '{
		o = $1 - 1 - 1024
		if ((o >= 48 && o < 52) || (o >= 376 && o < 384) ||
		    o == 628 || (o >= 1020 && o < 1024))
			next
		b = int(($1 - 1) / bs)
		if (b != last) { printf " %d", b; n++ }
		last = b
	} n == 8 { exit }'
}

# counted FILE WHAT: the count of writes or reads the shim left in FILE.
counted() {
	sed -n "s/^$2 //p" "$1" 2>/dev/null
}

# fresh_state: the previous run's state as the uncut run had it: none,
# or $STATE_SEED's.
STATE_SEED=
fresh_state() {
	rm -rf "$T/state"
	[ -n "$STATE_SEED" ] && cp -a "$STATE_SEED" "$T/state"
}

# fsck_ok: e2fsck -fn clean on the device, or a journal left for
# recovery (what e2fsck would recover first); sets $fsck_note.
fsck_ok() {
	if dumpe2fs -h "$T/c.img" 2>/dev/null |
	   grep -q '^Filesystem features:.*needs_recovery'; then
		fsck_note="needs recovery"
		return 0
	fi
	fsck_note="e2fsck clean"
	e2fsck -fn "$DEV" >"$T/fsck" 2>&1
}

# rerun_ok: a plain re-run on the device ends in U (exit 0 or 1), or
# says honestly that it left residues (bit 4); sets $rerun_note.
rerun_ok() {
	run_e2secrm -y "$DEV"
	got
	if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
		if same "$T/u.img" "$T/c.img"; then
			rerun_note="rerun ends as uncut"
			return 0
		fi
		rerun_note="rerun exit $rc but differs from uncut in blocks$(
			blocks_differ "$T/u.img" "$T/c.img")$(left)"
		return 1
	fi
	if [ $((rc & 4)) != 0 ] && [ $((rc & 8)) = 0 ]; then
		rerun_note="rerun exit $rc (residues left, said so)"
		return 0
	fi
	rerun_note="rerun exit $rc: $err"
	return 1
}

# points N LIST...: LIST's numbers within 1..N, sorted, once each.
points() {
	n=$1
	shift
	for p in "$@"; do
		[ "$p" -ge 1 ] && [ "$p" -le "$n" ] && echo "$p"
	done | sort -n | uniq | tr '\n' ' '
}

# spread N: SAMPLE points over 1..N with 1 and N, or all of them.
spread() {
	if [ "${FAULT_ALL:-0}" = 1 ]; then
		seq 1 "$1" | tr '\n' ' '
		return
	fi
	i=0 l=
	while [ "$i" -lt "$SAMPLE" ]; do
		l="$l $((1 + i * ($1 - 1) / (SAMPLE - 1)))"
		i=$((i + 1))
	done
	points "$1" $l
}

# after_fault NAME WHAT: e2fsck and the re-run after a run that stopped;
# one pass or fail line.
# err_rc: exit 8, or 9 when the run had wiped something before the
# error (then the image is not the base); never 9 at the first write.
err_rc() {
	[ "$rc" = 8 ] ||
		{ [ "$rc" = 9 ] && [ "${1:-2}" -gt 1 ] &&
		  ! cmp -s "$base" "$T/c.img"; }
}

after_fault() {
	if ! fsck_ok; then
		fail "$1" "$2, e2fsck -fn: $(grep -v '^Pass\|^e2fsck' \
			"$T/fsck" | head -3 | tr '\n' ' ')"
		return
	fi
	if ! rerun_ok; then
		fail "$1" "$2, $fsck_note, $rerun_note"
		return
	fi
	pass "$1: $2, $fsck_note, $rerun_note"
}

# names_device: stderr names the device path.
names_device() {
	case $err in
	*"$DEV"*) return 0 ;;
	esac
	return 1
}

# left: how many lines of $token the device holds and U holds.
left() {
	[ -n "$token" ] || return 0
	echo ", $(count "$token" "$T/c.img") lines of $token left (uncut: $(
		count "$token" "$T/u.img"))"
}

# fault_image NAME BASE [TOKEN]: every fault at the sample of K on BASE;
# TOKEN (a grep pattern) is what only deleted +s files held.
fault_image() {
	name=$1 base=$2 token=${3:-}
	if [ -n "${FAULT_KEEP:-}" ]; then
		mkdir -p "$FAULT_KEEP"
		cp "$base" "$FAULT_KEEP/$(echo "$name" | tr -c 'a-z0-9\n' -).img"
	fi
	fresh_state
	put "$base"
	faulted "" "$T/count"
	cp "$T/c.img" "$T/u.img"
	w=$(counted "$T/count" writes) r=$(counted "$T/count" reads)
	if [ "$rc" != 1 ] || [ -z "$w" ] || [ "$w" -lt 3 ]; then
		fail "fault: $name: uncut run" "rc=$rc, $w writes: $err"
		return
	fi
	fresh_state
	put "$base"
	run_e2secrm -y "$DEV"
	got
	if [ "$rc" = 1 ] && same "$T/u.img" "$T/c.img"; then
		pass "fault: $name: uncut run under the shim as without: $w writes, $r reads"
	else
		fail "fault: $name: uncut run under the shim as without" \
			"rc=$rc without it, differs in blocks$(
			blocks_differ "$T/u.img" "$T/c.img")"
	fi
	# The reads made before the first write: a cut at the first.
	fresh_state
	put "$base"
	faulted cut:1 "$T/count"
	r0=$(counted "$T/count" reads)
	if [ "$rc" != 99 ] || [ -z "$r0" ]; then
		fail "fault: $name: cut at the first write" "rc=$rc"
		r0=0
	elif cmp -s "$base" "$T/c.img"; then
		pass "fault: $name: cut at the first write: image unchanged, $r0 reads before it"
	else
		fail "fault: $name: cut at the first write" "image changed"
	fi

	ks=$(spread "$w")
	for k in $ks; do
		at="at $k of $w writes"

		fresh_state
		put "$base"
		faulted "cut:$k"
		if [ "$rc" != 99 ]; then
			fail "fault: $name: cut $at" "exit $rc, not 99"
		else
			after_fault "fault: $name: cut $at" "exit 99"
		fi

		fresh_state
		put "$base"
		faulted "eio-from:$k"
		if ! err_rc "$k"; then
			fail "fault: $name: eio-from $at" "exit $rc, not 8 (or 9): $err"
		elif ! names_device ||
		     ! echo "$err" | grep -q 'Input/output error'; then
			fail "fault: $name: eio-from $at" \
				"stderr does not name the device and EIO: $err"
		else
			after_fault "fault: $name: eio-from $at" \
				"exit $rc, EIO named"
		fi

		fresh_state
		put "$base"
		faulted "eio-once:$k"
		if [ "$rc" != 1 ]; then
			fail "fault: $name: eio-once $at" "exit $rc, not 1: $err"
		elif ! same "$T/u.img" "$T/c.img"; then
			fail "fault: $name: eio-once $at" \
				"exit 1 but the image is not the uncut one"
		elif ! grep -q '1 write failed and succeeded when tried again' \
			"$T/out"; then
			fail "fault: $name: eio-once $at" \
				"exit 1, image as uncut, but the retry not said"
		else
			pass "fault: $name: eio-once $at: exit 1, the retry said, image as uncut"
		fi

		fresh_state
		put "$base"
		faulted "eio-twice:$k"
		if [ "$rc" = 1 ]; then
			if same "$T/u.img" "$T/c.img"; then
				pass "fault: $name: eio-twice $at: exit 1, image as uncut (written again later)"
			else
				fail "fault: $name: eio-twice $at" \
					"exit 1 but differs from uncut in blocks$(
					blocks_differ "$T/u.img" "$T/c.img")$(left)"
			fi
		elif err_rc "$k"; then
			after_fault "fault: $name: eio-twice $at" "exit $rc"
		else
			fail "fault: $name: eio-twice $at" "exit $rc: $err"
		fi

		fresh_state
		put "$base"
		faulted "short:$k"
		if [ "$rc" = 1 ]; then
			if same "$T/u.img" "$T/c.img"; then
				pass "fault: $name: short $at: exit 1 (the short write retried whole), image as uncut"
			else
				fail "fault: $name: short $at" \
					"exit 1 but differs from uncut in blocks$(
					blocks_differ "$T/u.img" "$T/c.img")$(left)"
			fi
		elif err_rc "$k"; then
			after_fault "fault: $name: short $at" "exit $rc"
		else
			fail "fault: $name: short $at" "exit $rc: $err"
		fi

		for s in INT TERM; do
			fresh_state
			put "$base"
			faulted "sig:$k:$s"
			if [ $((rc & 32)) = 0 ] && [ "$rc" = 1 ] &&
			   [ "$k" -gt 1 ] && same "$T/u.img" "$T/c.img"; then
				pass "fault: $name: SIG$s $at: exit 1, image as uncut (after the last check: the run finished)"
			elif [ $((rc & 32)) = 0 ]; then
				fail "fault: $name: SIG$s $at" \
					"exit $rc, bit 32 not set: $err"
			else
				after_fault "fault: $name: SIG$s $at" "exit $rc"
			fi
		done
	done

	# Reads: the first, the last before the first write, the first after
	# it, and a spread.
	if [ "${FAULT_ALL:-0}" = 1 ]; then
		ks=$(spread "$r")
	else
		ks=$(points "$r" 1 "$r0" $((r0 + 1)) $((r0 / 2)) \
			$(((r0 + r) / 2)) "$r")
	fi
	for k in $ks; do
		at="at $k of $r reads"
		fresh_state
		put "$base"
		faulted "rio-from:$k"
		if [ "$k" -le "$r0" ] && [ "$rc" != 8 ] || ! err_rc 2; then
			fail "fault: $name: rio-from $at" "exit $rc, not 8 (or 9 after a wipe): $err"
		elif ! names_device; then
			fail "fault: $name: rio-from $at" \
				"stderr does not name the device: $err"
		elif [ "$k" -le "$r0" ]; then
			if cmp -s "$base" "$T/c.img"; then
				pass "fault: $name: rio-from $at (before the first write): exit 8, device named, image unchanged"
			else
				fail "fault: $name: rio-from $at" \
					"before the first write, image changed: $(
					cmp -l "$base" "$T/c.img" | wc -l) bytes"
			fi
		else
			after_fault "fault: $name: rio-from $at" \
				"exit $rc, device named"
		fi
	done
}

# A rich run (as t_interrupt.sh's): deleted +s files (one renamed), a +s
# directory, a truncated live +s file with a zeroed (unwritten) range;
# names, records, freed blocks, unwritten extents and journal copies.
M=$T/mnt
B=$T/base.img
mkimg "$B" 16M -t ext4 -b 1024
if kmount "$B"; then
	touch "$M/filler1"
	sync
	touch "$M/filler2"
	sync
	mkdir "$M/sd"
	chattr +s "$M/sd"
	i=0
	while [ $i -lt 5 ]; do
		canary "$M/sd/f$i" "FAULT-SECRET-$i-$$" 30000
		i=$((i + 1))
	done
	canary "$M/t.bin" "FAULT-TRUNC-$$" 100000
	chattr +s "$M/t.bin"
	canary "$M/keep" "FAULT-KEEP-$$" 20000
	i=0
	while [ $i -lt 60 ]; do
		head -c 1024 /dev/urandom >"$M/frag$i"
		i=$((i + 1))
	done
	sync
	fallocate -z -o 10240 -l 20480 "$M/t.bin"
	i=0
	while [ $i -lt 60 ]; do
		rm "$M/frag$i"
		i=$((i + 2))
	done
	mv "$M/sd/f0" "$M/sd/renamed-f0"
	sync
	rm "$M/sd/f1" "$M/sd/f2" "$M/sd/renamed-f0"
	truncate -s 30000 "$M/t.bin"
	sync
	kumount
	fault_image "kernel-made image" "$B" "FAULT-SECRET-[012]-"

	# The same through a loop device.
	cp "$B" "$T/loop.img"
	if LOOP=$(losetup -f --show "$T/loop.img" 2>/dev/null); then
		DEV=$LOOP
		fault_image "kernel-made image on a loop device" "$B" \
			"FAULT-SECRET-[012]-"
		DEV=$T/c.img
		losetup -d "$LOOP"
		LOOP=
	else
		fail "fault: kernel-made image on a loop device" \
			"losetup failed"
	fi

	# With a transaction debugfs leaves to recover: the faults land in
	# the replay too.  It takes the place of the kernel's oldest
	# transactions: the state of a run on the image before proves the
	# history complete up to it (else a map lost, exit 4).
	rm -rf "$T/state"
	cp "$B" "$T/c.img"
	run_e2secrm -y "$T/c.img"
	cp -a "$T/state" "$T/state.seed"
	STATE_SEED=$T/state.seed
	R=$T/rbase.img
	cp "$B" "$R"
	canary "$T/blk" "FAULT-REPLAY-$$" 1024
	printf 'jo\njw -b 12000 %s\njc\n' "$T/blk" | dfs "$R"
	if dumpe2fs -h "$R" 2>/dev/null |
	   grep -q '^Filesystem features:.*needs_recovery'; then
		fault_image "kernel-made image, needs recovery" "$R" \
			"FAULT-SECRET-[012]-"
	else
		fail "fault: needs recovery: corpus" "needs_recovery not set"
	fi
	STATE_SEED=
else
	fail "fault: kernel-made image: corpus" "mount failed"
fi

# Many small deleted +s files in many directories: their freed blocks go
# out through unix_io's cache of 8 blocks, written when it evicts them.
N=$T/many.img
mkimg "$N" 16M -t ext4 -b 1024
if kmount "$N"; then
	touch "$M/filler1"
	sync
	touch "$M/filler2"
	sync
	d=0
	while [ $d -lt 16 ]; do
		mkdir "$M/d$d"
		for i in 0 1 2 3; do
			canary "$M/d$d/keep$i" "FAULT-MANY-KEEP-$d-$i" 1500
			canary "$M/d$d/s$i" "FAULT-MANY-LIVE-$d-$i" 1500
			chattr +s "$M/d$d/s$i"
		done
		canary "$M/d$d/g" "FAULT-MANY-GONE-$d" 1500
		chattr +s "$M/d$d/g"
		d=$((d + 1))
	done
	sync
	d=0
	while [ $d -lt 16 ]; do
		rm "$M/d$d/g"
		d=$((d + 1))
	done
	sync
	kumount
	fault_image "many small deleted +s files" "$N" "FAULT-MANY-GONE"
else
	fail "fault: many small deleted +s files: corpus" "mount failed"
fi

# Fast commits after a kernel crash: the faults land in the jbd2 replay,
# the fast-commit replay and the wipe of a +s file only they knew.
F=$T/fc.img
fc_crash_corpus "$F" FAULT-FC FAULT-FC-SECRET-name
case $? in
0)	fault_image "fast commits after a crash" "$F" "FAULT-FC-SECRET" ;;
1)	fail "fault: fast commits: corpus" "mount failed" ;;
*)	fail "fault: fast commits: corpus" \
		"a full commit came between in each of five tries" ;;
esac
