# e2secrm-boot.sh --- the boot-time run of e2secrm on the root device,
# shared by the initramfs-tools script and the dracut hook (sourced, not
# run: both give it the device).  POSIX sh with `local` (busybox, dash,
# bash): dracut sources its hooks into its own shell.
#
# It runs only when asked: the kernel parameter e2secrm=yes, or the
# one-shot flag file /e2secrm-next-boot at the root of the file system
# (left by `e2secrm-maint --next-boot`).  It never stops a boot: every
# outcome, refusals and errors included, is one line in the kernel log
# ("e2secrm: DEV: exit N ...") and the caller goes on to mount root.
# e2secrm decides everything before its first write, so a refusal leaves
# the file system as fsck left it.
#
# Copyright (C) 2026 The e2secrm authors.
# This file may be redistributed under the terms of the GNU General Public
# License, version 2.

# `local` is in every shell that runs this (busybox, dash, bash).
# shellcheck disable=SC3043

E2SECRM_FLAG=/e2secrm-next-boot
E2SECRM_RUN=/run/e2secrm

# e2secrm_kmsg PRIO TEXT: one line in the kernel log, which reaches the
# console and is kept by journald after boot; stderr when there is none.
e2secrm_kmsg()
{
	if [ -w /dev/kmsg ]; then
		echo "<$1>e2secrm: $2" >/dev/kmsg
	else
		echo "e2secrm: $2" >&2
	fi
}

# e2secrm_cmdline: sets e2secrm_ask (yes, no or empty) and e2secrm_kopts
# from /proc/cmdline.  e2secrm.opts= takes options separated by commas,
# since the kernel command line has no quoting a bootloader keeps.
e2secrm_cmdline()
{
	local x
	e2secrm_ask=
	e2secrm_kopts=
	# shellcheck disable=SC2013
	for x in $(cat /proc/cmdline); do
		case $x in
		e2secrm=yes | e2secrm=1)
			e2secrm_ask=yes ;;
		e2secrm=no | e2secrm=0)
			e2secrm_ask=no ;;
		e2secrm.opts=*)
			e2secrm_kopts=$(echo "${x#e2secrm.opts=}" | tr , ' ') ;;
		esac
	done
}

# e2secrm_has_flag DEV: is the one-shot flag file there?  Read with
# debugfs on the unmounted device, as fsck's /forcefsck once was read
# before root was mounted; nothing is written.
e2secrm_has_flag()
{
	debugfs -R "stat $E2SECRM_FLAG" "$1" 2>/dev/null | grep -q '^Inode:'
}

# e2secrm_boot DEV [FSCK]: the whole boot-time step for DEV, not yet
# mounted.  FSCK is "fsck" when the caller's own check comes after this
# step, so that e2secrm sees a checked file system (the default), or
# "nofsck" when it has already been done.  Returns 0 always.
e2secrm_boot()
{
	local dev fsck_first fstype why log rc state uuid to what prio
	dev=$1
	fsck_first=${2:-fsck}
	E2SECRM_OPTS=
	E2SECRM_BOOT_TIMEOUT=0
	if [ -r /etc/e2secrm.conf ]; then
		# shellcheck source=/dev/null
		. /etc/e2secrm.conf
	fi
	# e2secrm reads the age of a full scan from its environment.
	[ -z "${E2SECRM_FULL_DAYS:-}" ] || export E2SECRM_FULL_DAYS
	e2secrm_cmdline
	[ "$e2secrm_ask" = no ] && return 0
	# Only ext2/3/4: the flag cannot be read on anything else either.
	fstype=$(blkid -o value -s TYPE "$dev" 2>/dev/null)
	case $fstype in
	ext2 | ext3 | ext4) ;;
	*)
		[ "$e2secrm_ask" = yes ] &&
			e2secrm_kmsg 4 "$dev: not ext2/3/4 (${fstype:-unknown}), skipped"
		return 0
		;;
	esac
	why=
	if [ "$e2secrm_ask" = yes ]; then
		why="e2secrm=yes"
	elif e2secrm_has_flag "$dev"; then
		why="one-shot request $E2SECRM_FLAG"
	else
		return 0
	fi
	mkdir -p "$E2SECRM_RUN"
	log=$E2SECRM_RUN/boot.log
	: >"$log"
	# initramfs-tools and dracut check root only after their pre-mount
	# hooks, so check it here first the same way (-p, as they do):
	# e2secrm refuses a file system that is not clean, and a run on one
	# e2fsck left dirty would only be refused.  fsck.mode=skip is obeyed.
	if [ "$fsck_first" = fsck ] && ! grep -qw -e fastboot \
	   -e fsck.mode=skip -e rd.skipfsck /proc/cmdline; then
		e2fsck -p "$dev" >>"$log" 2>&1
		rc=$?
		if [ "$rc" -gt 1 ]; then
			e2secrm_kmsg 3 "$dev: e2fsck -p exit $rc, not run ($why)"
			return 0
		fi
	fi
	# Consume the one-shot request before the run, the way grub's
	# next_entry is cleared when read: a run that is cut short, hangs
	# past the timeout or fails is not tried again on the next boot.
	# The file is empty, so removing it frees only its inode and entry;
	# if it cannot be removed, the run is not done at all.
	# debugfs writes around the journal: never while it holds
	# transactions to replay (fsck skipped), or the replay at mount
	# could undo half of the removal.  The request waits for a boot
	# that checks the file system.
	if [ "$e2secrm_ask" != yes ]; then
		if debugfs -R features "$dev" 2>/dev/null |
		   grep -q needs_recovery; then
			e2secrm_kmsg 4 "$dev: journal needs recovery (fsck skipped?): $E2SECRM_FLAG left for a later boot, not run"
			return 0
		fi
		if ! debugfs -w -R "rm $E2SECRM_FLAG" "$dev" >>"$log" 2>&1 ||
		   e2secrm_has_flag "$dev"; then
			e2secrm_kmsg 3 "$dev: could not remove $E2SECRM_FLAG, not run"
			return 0
		fi
	fi
	# What each run saw of the journal (the state file) lives on this
	# very file system, not mounted yet: take a copy to read, read-only.
	state=$E2SECRM_RUN/state
	mkdir -p "$state"
	uuid=$(blkid -o value -s UUID "$dev" 2>/dev/null)
	if [ -n "$uuid" ]; then
		debugfs -R "dump /var/lib/e2secrm/$uuid.state $state/$uuid.state" \
			"$dev" >/dev/null 2>&1
		# Its companion: the maps of live +s files the last run kept.
		debugfs -R "dump /var/lib/e2secrm/$uuid.since $state/$uuid.since" \
			"$dev" >/dev/null 2>&1
	fi
	to=
	if [ "${E2SECRM_BOOT_TIMEOUT:-0}" -gt 0 ] 2>/dev/null; then
		if command -v timeout >/dev/null 2>&1; then
			to="timeout -s TERM $E2SECRM_BOOT_TIMEOUT"
		else
			e2secrm_kmsg 4 "$dev: no timeout command, run unbounded"
		fi
	fi
	e2secrm_kmsg 5 "$dev: running ($why): e2secrm -y --state-dir $state $E2SECRM_OPTS $e2secrm_kopts"
	# shellcheck disable=SC2086
	$to e2secrm -y --state-dir "$state" $E2SECRM_OPTS $e2secrm_kopts \
		"$dev" >>"$log" 2>&1
	rc=$?
	case $rc in
	0) what="nothing found" prio=5 ;;
	1) what="residues wiped" prio=5 ;;
	4 | 5) what="some residues left (exit bit 4: lost maps or untraced history)" prio=4 ;;
	124 | 143)
		what="timed out after ${E2SECRM_BOOT_TIMEOUT}s, cancelled: consistent, partly wiped"
		prio=3
		;;
	*)
		# The refusal or error: e2secrm's own one-line message.
		what=$(grep -E '^([^ ]*/)?e2secrm: ' "$log" | tail -n 1)
		[ -n "$what" ] || what=$(grep -v '^$' "$log" | tail -n 1)
		prio=3
		;;
	esac
	e2secrm_kmsg $prio "$dev: exit $rc: $what (log in $log)"
	return 0
}
