# t_interrupt.sh --- a power cut after every k-th write of a whole run.
#
# tests/e2secrm-cut is e2secrm with an io manager that ends the process
# on the spot before its (k+1)-th write (tests/cut/cut_io.c), losing what
# was not flushed.  For every k of a rich run: e2fsck -fn is clean after
# the cut, and a re-run by e2secrm ends in the same image as a run never
# cut (byte for byte; after a journal recovery, but the superblock's
# write time, byte counter and checksum).
. "$(dirname "$0")/../lib.sh"

: "${E2SECRM_CUT_PROG:?E2SECRM_CUT_PROG must name tests/e2secrm-cut}"

# cut_all NAME BASE: every k over the whole run of BASE.
cut_all() {
	name=$1 base=$2
	cp "$base" "$T/u.img"
	E2SECRM_CUT_COUNT=$T/count "$E2SECRM_CUT_PROG" -y "$T/u.img" \
		>/dev/null 2>&1
	rc=$?
	w=$(cat "$T/count" 2>/dev/null)
	if [ "$rc" != 1 ] || [ -z "$w" ] || [ "$w" -lt 3 ]; then
		fail "$name: uncut run" "rc=$rc, $w writes"
		return
	fi
	pass "$name: uncut run wipes, $w writes"
	fsck_ok=0 rerun_ok=0 k=1 bad=
	while [ "$k" -le "$w" ]; do
		cp "$base" "$T/c.img"
		E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$T/c.img" \
			>/dev/null 2>&1
		crc=$?
		if [ "$crc" != 99 ] && [ "$k" -lt "$w" ]; then
			bad="$bad k=$k:exit$crc"
		fi
		# Before the journal is recovered, e2fsck would recover it.
		if dumpe2fs -h "$T/c.img" 2>/dev/null |
		   grep -q '^Filesystem features:.*needs_recovery' ||
		   e2fsck -fn "$T/c.img" >/dev/null 2>&1; then
			fsck_ok=$((fsck_ok + 1))
		else
			bad="$bad k=$k:fsck"
		fi
		run_e2secrm -y "$T/c.img"
		if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } &&
		   same "$T/u.img" "$T/c.img"; then
			rerun_ok=$((rerun_ok + 1))
		else
			bad="$bad k=$k:rerun$rc"
		fi
		k=$((k + 1))
	done
	[ "$fsck_ok" = "$w" ] &&
		pass "$name: e2fsck -fn clean after a cut at every k ($w)" ||
		fail "$name: e2fsck -fn clean after every cut" \
			"$fsck_ok of $w:$bad"
	[ "$rerun_ok" = "$w" ] &&
		pass "$name: re-run reaches the uncut end state at every k ($w)" ||
		fail "$name: re-run reaches the uncut end state" \
			"$rerun_ok of $w:$bad"
	run_e2secrm -y "$T/u.img"
	[ "$rc" = 0 ] && pass "$name: a run after the uncut one finds nothing" ||
		fail "$name: a run after the uncut one finds nothing" "rc=$rc"
}

why=$(can_loop_mount)
if [ $? != 0 ]; then
	skip "interrupt: kernel-made image" "loop mount unavailable: $why"
	skip "interrupt: kernel-made image, needs recovery" \
		"loop mount unavailable: $why"
	exit 0
fi

# A rich run: deleted +s files (one with a depth-1 extent tree, one
# renamed), a truncated live +s file with a zeroed (unwritten) range, a
# +s directory; names, records, freed blocks, unwritten extents and
# journal copies to wipe.
B=$T/base.img
mkimg "$B" 32M -t ext4 -b 1024
kmount "$B" || { fail "interrupt: mount" "mount failed"; exit 0; }
M=$T/mnt
# Two transactions of nothing secret first: debugfs logs the "needs
# recovery" transaction below at the journal's first block, over the
# kernel's oldest ones, and a map copy lost there is a lost map (exit 4).
touch "$M/filler1"
sync
touch "$M/filler2"
sync
mkdir "$M/sd"
chattr +s "$M/sd"
i=0
while [ $i -lt 6 ]; do
	canary "$M/sd/f$i" "CUT-SECRET-$i-$$" 40000
	i=$((i + 1))
done
canary "$M/t.bin" "CUT-TRUNC-$$" 200000
chattr +s "$M/t.bin"
canary "$M/keep" "CUT-KEEP-$$" 30000
i=0
while [ $i -lt 120 ]; do
	head -c 1024 /dev/urandom >"$M/frag$i"
	i=$((i + 1))
done
sync
fallocate -z -o 10240 -l 20480 "$M/t.bin"
i=0
while [ $i -lt 120 ]; do
	rm "$M/frag$i"
	i=$((i + 2))
done
canary "$M/deep" "CUT-DEEP-$$" 60000
chattr +s "$M/deep"
mv "$M/sd/f0" "$M/sd/renamed-f0"
sync
rm "$M/sd/f1" "$M/sd/f2" "$M/sd/renamed-f0" "$M/deep"
truncate -s 50000 "$M/t.bin"
sync
kumount
cut_all "interrupt: kernel-made image" "$B"

# The same, with a transaction debugfs leaves to recover: the cut can
# land in the replay too.  The runs above left the state of this
# filesystem (same UUID): it proves the history complete up to the
# debugfs transaction, which took the place of the kernel's oldest.
cp "$B" "$T/rbase.img"
canary "$T/blk" "CUT-REPLAY-$$" 1024
printf 'jo\njw -b 30000 %s\njc\n' "$T/blk" | dfs "$T/rbase.img"
if dumpe2fs -h "$T/rbase.img" 2>/dev/null |
   grep -q '^Filesystem features:.*needs_recovery'; then
	cut_all "interrupt: kernel-made image, needs recovery" "$T/rbase.img"
else
	fail "interrupt: needs recovery: corpus" "needs_recovery not set"
fi

# The only proof is the deleted record: the flag set and the file
# removed by debugfs, outside the journal, so no journal copy of the
# record carries +s.  The run scrubs the record before the journal copies
# that hold its names and unflagged versions; a run cut in between and
# run again finds them only through the lives the cut run saved (its
# intent file, DESIGN.md rule 2).
P=$T/proof.img
mkimg "$P" 16M -t ext4 -b 1024
if kmount "$P"; then
	touch "$M/filler"
	sync
	mkdir "$M/d"
	canary "$M/d/plain" "CUT-PROOF-KEEP-$$" 20000
	canary "$M/d/CUTPROOFNAME-$$" "CUT-PROOF-SECRET-$$" 30000
	sync
	mv "$M/d/CUTPROOFNAME-$$" "$M/d/CUTPROOFNAME-$$-moved"
	sync
	kumount
	printf 'set_inode_field d/CUTPROOFNAME-%s-moved flags 0x80001\n' \
		$$ >"$T/cmds"
	printf 'rm d/CUTPROOFNAME-%s-moved\n' $$ >>"$T/cmds"
	dfs "$P" <"$T/cmds"
	cut_all "interrupt: record the only proof" "$P"
	[ -e "$E2SECRM_STATE_DIR" ] && ! ls "$E2SECRM_STATE_DIR" |
		grep -q '\.intent$' &&
		pass "interrupt: record the only proof: no intent left" ||
		fail "interrupt: record the only proof: no intent left" \
			"$(ls "$E2SECRM_STATE_DIR" 2>&1)"
	# The same cuts, the saved lives thrown away before the re-run:
	# some must end elsewhere, or this scenario proves nothing.
	k=1 lost=0 w=$(cat "$T/count")
	while [ "$k" -lt "$w" ]; do
		cp "$P" "$T/c.img"
		E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$T/c.img" \
			>/dev/null 2>&1
		saved=$(ls "$E2SECRM_STATE_DIR" | grep -c '\.intent$')
		rm -f "$E2SECRM_STATE_DIR"/*.intent
		run_e2secrm -y "$T/c.img"
		same "$T/u.img" "$T/c.img" || lost=$((lost + 1))
		[ "$saved" = 1 ] || lost=-999
		k=$((k + 1))
	done
	[ "$lost" -gt 0 ] &&
		pass "interrupt: record the only proof: without the saved lives $lost of $((w - 1)) cuts end elsewhere" ||
		fail "interrupt: record the only proof: the saved lives matter" \
			"lost=$lost of $((w - 1)) (-999: a cut saved no intent)"
	# The intent names the filesystem by UUID, which a dd copy shares:
	# it keeps the mount count, mount and check times it was written
	# under.  Where they changed (here tune2fs -C, as a mount or e2fsck
	# would), the lives are still taken, what the cut run said of their
	# maps is not, and the run says so (doc/incremental.md).
	k=$(((w + 1) / 2)) moved=0 kept=0
	while [ "$k" -lt "$w" ]; do
		cp "$P" "$T/c.img"
		E2SECRM_CUT_AFTER=$k "$E2SECRM_CUT_PROG" -y "$T/c.img" \
			>/dev/null 2>&1
		grep -q '^mark=[0-9]* [0-9]* [0-9]*$' \
			"$E2SECRM_STATE_DIR"/*.intent 2>/dev/null &&
			kept=$((kept + 1))
		tune2fs -C 7 "$T/c.img" >/dev/null 2>&1
		run_e2secrm -y "$T/c.img"
		if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } &&
		   echo "$err" | grep -q 'mounted or checked since that run' &&
		   [ "$(count "CUTPROOFNAME-$$" "$T/c.img")" = 0 ] &&
		   [ "$(count "CUT-PROOF-SECRET-$$" "$T/c.img")" = 0 ]; then
			moved=$((moved + 1))
		fi
		k=$((k + 1))
	done
	n=$((w - (w + 1) / 2))
	[ "$moved" = "$n" ] && [ "$kept" = "$n" ] &&
		pass "interrupt: record the only proof: an intent of a filesystem mounted since is said, its lives still taken ($n cuts)" ||
		fail "interrupt: record the only proof: intent after a mount count change" \
			"$moved and $kept (marks) of $n: rc=$rc $err"
else
	fail "interrupt: record the only proof: corpus" "mount failed"
fi

# Fast commits after a kernel crash: the cut can land in the jbd2
# replay, in the fast-commit replay's blocks (written from the overlay)
# or in the wipe of a +s file only the fast commits knew.
F=$T/fc.img
fc_crash_corpus "$F" CUT-FC sec
case $? in
0)	cut_all "interrupt: fast commits after a crash" "$F" ;;
1)	fail "interrupt: fast commits: corpus" "mount failed" ;;
*)	fail "interrupt: fast commits: corpus" \
		"a full commit came between in each of five tries" ;;
esac
