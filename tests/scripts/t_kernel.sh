# t_kernel.sh --- inventory and wipe on filesystems the real kernel wrote:
# mount, write, chattr +s, sync, rm, unmount.  Linux zeroes the block map
# of the deleted inode but keeps its flags, so the record is found,
# reported as having lost its map (exit bit 4) and scrubbed.
. "$(dirname "$0")/../lib.sh"

why=$(can_loop_mount)
if [ $? != 0 ]; then
	for fs in ext2 ext3 ext4; do
		skip "kernel: $fs" "loop mount unavailable: $why"
	done
	exit 0
fi

kernel_case() {
	name=$1
	shift
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
	if [ "$rc" = 4 ] && echo "$out" | grep -q 'deleted' &&
	   echo "$out" | grep -q 'map-gone' &&
	   echo "$out" | grep -q 'live'; then
		pass "$name: inventory finds the deleted +s inode and the live one"
	else
		fail "$name: inventory" "rc=$rc $out"
	fi

	run_e2secrm -y "$img"
	if [ "$rc" = 5 ] && echo "$out" | grep -q 'no block map left'; then
		pass "$name: record scrubbed, lost map reported (exit 5)"
	else
		fail "$name: record scrubbed" "rc=$rc $out $err"
	fi
	e2fsck -fn "$img" >"$T/fsck" 2>&1 && pass "$name: e2fsck -fn clean" ||
		fail "$name: e2fsck -fn clean" "$(tail -3 "$T/fsck")"
	run_e2secrm "$img"
	[ "$rc" = 0 ] && pass "$name: second run finds nothing" ||
		fail "$name: second run finds nothing" "rc=$rc $out"

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

kernel_case "kernel: ext2" -t ext2
kernel_case "kernel: ext3" -t ext3
kernel_case "kernel: ext4" -t ext4
