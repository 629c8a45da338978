# t_kernel.sh --- inventory and wipe on filesystems the real kernel wrote:
# mount, write, chattr +s, sync, rm, unmount.  Linux zeroes the block map
# of the deleted inode but keeps its flags.  With a journal the map is
# read from the journal's copies of the inode table and the data wiped;
# on ext2 the record is reported as having lost its map (exit bit 4),
# and again by the next run, from the state file.
. "$(dirname "$0")/../lib.sh"

why=$(can_loop_mount)
if [ $? != 0 ]; then
	for fs in ext2 ext3 ext4; do
		skip "kernel: $fs" "loop mount unavailable: $why"
	done
	exit 0
fi

kernel_case() {
	name=$1 journal=$2
	shift 2
	img="$T/k.img"
	rm -f "$img"
	mkimg "$img" 32M "$@"
	kmount "$img" || { fail "$name: mount" "mount failed"; return; }
	canary "$T/mnt/secret.bin" "KSECRET-$$" 50000
	canary "$T/mnt/keep.bin" "KKEEP-$$" 20000
	chattr +s "$T/mnt/secret.bin" "$T/mnt/keep.bin"
	sync
	keep_sum=$(sha256sum <"$T/mnt/keep.bin")
	rm "$T/mnt/secret.bin"
	kumount

	run_e2secrm -n -v "$img"
	if [ "$journal" = no ]; then
		# ext2: the map is gone with the unlink, and no journal.
		if [ "$rc" = 4 ] && echo "$out" | grep -q 'deleted' &&
		   echo "$out" | grep -q 'map-gone' &&
		   echo "$out" | grep -q 'live'; then
			pass "$name: inventory finds the deleted +s inode and the live one"
		else
			fail "$name: inventory" "rc=$rc $out"
		fi
		run_e2secrm -y "$img"
		if [ "$rc" = 5 ] && echo "$out" | grep -q 'lost all or part of a block map'
		then
			pass "$name: record scrubbed, lost map reported (exit 5)"
		else
			fail "$name: record scrubbed" "rc=$rc $out $err"
		fi
	else
		# The unlink zeroed the map; the journal still has it.
		if [ "$rc" = 4 ] && echo "$out" | grep -q 'deleted.*map-from-journal' &&
		   echo "$out" | grep -q 'live' &&
		   ! echo "$out" | grep -q 'map-gone'; then
			pass "$name: inventory recovers the deleted map from the journal"
		else
			fail "$name: inventory" "rc=$rc $out"
		fi
		before=$(count "KSECRET-$$" "$img")
		run_e2secrm -y "$img"
		after=$(count "KSECRET-$$" "$img")
		if [ "$rc" = 1 ] && [ "$before" -gt 0 ] && [ "$after" = 0 ]; then
			pass "$name: data wiped through the journal's map ($before lines before)"
		else
			fail "$name: data wiped" "rc=$rc, $before before, $after after: $out $err"
		fi
	fi
	e2fsck -fn "$img" >"$T/fsck" 2>&1 && pass "$name: e2fsck -fn clean" ||
		fail "$name: e2fsck -fn clean" "$(tail -3 "$T/fsck")"
	run_e2secrm -y "$img"
	if [ "$journal" = no ]; then
		# The scrubbed record was the only trace of the loss: the
		# state file keeps it, and it is said again until answered.
		if [ "$rc" = 4 ] && echo "$out" | grep -q 'are not answered' &&
		   echo "$out" | grep -q 'nothing to wipe'; then
			pass "$name: second run wipes nothing, says the loss again (exit 4)"
		else
			fail "$name: second run says the loss again" "rc=$rc $out"
		fi
	else
		[ "$rc" = 0 ] && pass "$name: second run finds nothing" ||
			fail "$name: second run finds nothing" "rc=$rc $out"
	fi

	kmount "$img" ro
	k=$(sha256sum <"$T/mnt/keep.bin")
	flags=$(lsattr "$T/mnt/keep.bin" 2>/dev/null | cut -c1-22)
	kumount
	if [ "$k" = "$keep_sum" ] && echo "$flags" | grep -q s; then
		pass "$name: live +s file bit-exact, still +s"
	else
		fail "$name: live +s file bit-exact" "sum or flags differ"
	fi
}

kernel_case "kernel: ext2" no -t ext2
kernel_case "kernel: ext3" yes -t ext3
kernel_case "kernel: ext4" yes -t ext4
