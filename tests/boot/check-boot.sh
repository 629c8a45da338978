#!/bin/bash
# check-boot.sh --- the boot-time run under a real kernel (make check-boot).
#
# Boots Debian's own kernel (the linux-image package linux-image-amd64
# depends on, downloaded with apt-get and unpacked into a cache) under
# qemu-system-x86_64 with TCG, with an initramfs that mkinitramfs builds
# from the project's hook and local-premount script and the freshly built
# e2secrm, on small ext4 root images made on the host through loop mounts.
# The root's /sbin/init is a busybox script that prints markers on the
# serial console and powers off; root stays mounted read-only (the
# initramfs default) so that what is on the image after the VM stops is
# what the initramfs wrote.
#
# Cases: e2secrm=yes wipes the deleted +s file and keeps live files;
# a refusal (bigalloc, a feature e2secrm does not handle and e2fsck
# accepts) still boots, image untouched but for e2fsck's superblock
# fields; no parameter, no run; the one-shot flag of `e2secrm-maint
# --next-boot` runs once and only once.  Then the wipe and the refusal
# again with an initramfs dracut builds from the 90e2secrm module:
# dracut-core conflicts with initramfs-tools in Debian, so it is not
# installed but downloaded and unpacked into the cache, and run from
# there (dracutbasedir); that case skips alone if it cannot be had.
#
# Exit: 0 all passed, 1 a failure, 77 skipped (the reason is printed).
# Environment: E2SECRM (the binary), E2SECRM_BOOT_CACHE (default
# /var/tmp/e2secrm-boot), E2SECRM_BOOT_TIMEOUT (seconds per boot, 600),
# E2SECRM_BOOT_KPKG (a linux-image-* package name), E2SECRM_BOOT_CASES
# (a subset of "wipe refuse none oneshot dracut"), E2SECRM_BOOT_LOGDIR
# (keep the serial logs there), E2SECRM_BOOT_KEEP (keep the work dir).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
E2SECRM=${E2SECRM:-$top/e2secrm/e2secrm}
CACHE=${E2SECRM_BOOT_CACHE:-/var/tmp/e2secrm-boot}
QTIMEOUT=${E2SECRM_BOOT_TIMEOUT:-600}
CASES=${E2SECRM_BOOT_CASES:-wipe refuse none oneshot dracut}
SECRET=BOOT-SECRET-7f3a9c
export LC_ALL=C
PATH=$PATH:/usr/sbin:/sbin

skip() {
	echo "SKIP check-boot: $*"
	exit 77
}

[ "$(id -u)" = 0 ] || skip "not root (loop mounts, mkinitramfs)"
[ -x "$E2SECRM" ] || skip "no e2secrm binary at $E2SECRM (make first)"
command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 not installed (tests/boot/boot-deps.sh)"
command -v mkinitramfs >/dev/null ||
	skip "mkinitramfs not installed (initramfs-tools)"
# The test root has no libraries: its busybox must be static.
[ -x /bin/busybox ] || skip "no /bin/busybox (busybox-static)"
ldd /bin/busybox >/dev/null 2>&1 &&
	skip "/bin/busybox is not static (install busybox-static)"
[ -e /dev/loop-control ] || skip "no loop devices"

T=$(mktemp -d /var/tmp/e2secrm-boot-test.XXXXXX) || exit 1
MNT=$T/mnt
mkdir -p "$MNT"
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	if [ -n "${E2SECRM_BOOT_LOGDIR:-}" ]; then
		mkdir -p "$E2SECRM_BOOT_LOGDIR" &&
			cp "$T"/*.log "$E2SECRM_BOOT_LOGDIR"/
	fi
	[ -n "${E2SECRM_BOOT_KEEP:-}" ] && { echo "kept $T"; return; }
	rm -rf "$T"
}
trap cleanup EXIT

npass=0
nfail=0
nskip=0
out=
pass() { echo "  PASS $1"; npass=$((npass + 1)); }
fail() { echo "  FAIL $1: $2"; nfail=$((nfail + 1)); }
skipcase() { echo "  SKIP $1: $2"; nskip=$((nskip + 1)); }

# --- the kernel: Debian's package, unpacked into the cache once -------------
mkdir -p "$CACHE"
kpkg=${E2SECRM_BOOT_KPKG:-$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)}
[ -n "$kpkg" ] || skip "apt-cache knows no linux-image-amd64 (apt-get update?)"
kver=${kpkg#linux-image-}
kdir=$CACHE/$kpkg
if [ ! -e "$kdir/.done" ]; then
	rm -rf "$kdir"
	(cd "$CACHE" && ls "$kpkg"_*.deb >/dev/null 2>&1 ||
		apt-get download "$kpkg" >"$CACHE/download.log" 2>&1) ||
		skip "cannot download $kpkg: $(tail -n 1 "$CACHE/download.log")"
	deb=$(ls "$CACHE/$kpkg"_*.deb | tail -n 1)
	dpkg -x "$deb" "$kdir" || skip "dpkg -x $deb failed"
	# A package unpacked by hand has no modules.dep: its postinst makes it.
	depmod -b "$kdir" "$kver" || skip "depmod for $kver failed"
	touch "$kdir/.done"
fi
vmlinuz=$kdir/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || skip "no $vmlinuz in $kpkg"
echo "kernel: $kpkg ($vmlinuz)"

# --- the initramfs: mkinitramfs with the project's hook and script ----------
conf=$T/initramfs-tools
mkdir -p "$conf/hooks" "$conf/scripts/local-premount" "$conf/conf.d"
cat >"$conf/initramfs.conf" <<'EOF'
MODULES=list
BUSYBOX=y
KEYMAP=n
COMPRESS=gzip
DEVICE=
NFSROOT=auto
RUNSIZE=10%
FSTYPE=ext4
EOF
printf '%s\n' virtio_pci virtio_blk ext4 crc32c_generic >"$conf/modules"
sed -e "s|%SBINDIR%|/usr/sbin|g" -e "s|%LIBDIR%|/usr/lib|g" \
	"$top/misc/initramfs-tools/hook.in" >"$conf/hooks/e2secrm"
cp "$top/misc/initramfs-tools/local-premount" \
	"$conf/scripts/local-premount/e2secrm"
chmod 755 "$conf/hooks/e2secrm" "$conf/scripts/local-premount/e2secrm"
# A test config: a timeout that a healthy 48 MiB run never reaches.
printf 'E2SECRM_OPTS=""\nE2SECRM_BOOT_TIMEOUT=300\n' >"$T/e2secrm.conf"
initrd=$T/initrd.img
# mkinitramfs takes modules from /lib/modules/VERSION and the kernel's
# config from /boot: in a mount namespace of its own, the cache's are
# bound there, and the machine's own are neither seen nor changed.
[ -d /lib/modules ] || mkdir -p /lib/modules
if ! E2SECRM_HOOK_BIN=$E2SECRM E2SECRM_HOOK_LIB=$top/misc/e2secrm-boot.sh \
	E2SECRM_HOOK_CONF=$T/e2secrm.conf unshare -m sh -c '
	mount --make-rprivate / &&
	mount --bind "$1/lib/modules" /lib/modules &&
	mount --bind "$1/boot" /boot &&
	mkinitramfs -d "$2" -o "$3" "$4"' sh "$kdir" "$conf" "$initrd" "$kver" \
	>"$T/mkinitramfs.log" 2>&1; then
	cat "$T/mkinitramfs.log"
	fail "mkinitramfs" "failed"
	exit 1
fi
lsinitramfs "$initrd" >"$T/initrd.list"
ok=1
for f in sbin/e2secrm lib/e2secrm/e2secrm-boot.sh etc/e2secrm.conf \
	 scripts/local-premount/e2secrm sbin/debugfs sbin/e2fsck; do
	grep -q "^$f\$" "$T/initrd.list" || grep -q "^usr/$f\$" \
		"$T/initrd.list" || { ok=0; echo "    missing $f"; }
done
[ "$ok" = 1 ] && pass "initramfs holds e2secrm, its boot script, config, debugfs, e2fsck" ||
	fail "initramfs contents" "see above"
echo "initramfs: $(du -h "$initrd" | cut -f1)"

# --- root images -------------------------------------------------------------
# mkroot IMG MKE2FS-OPTIONS...: init, live files, a deleted +s secret,
# all written by the kernel through a loop mount.
mkroot() {
	local img=$1 i
	shift
	mke2fs -q -F -t ext4 "$@" "$img" 48M >/dev/null 2>&1 || return 1
	mount -o loop "$img" "$MNT" || return 1
	mkdir -p "$MNT"/{bin,sbin,dev,proc,sys,run,etc,data}
	cp /bin/busybox "$MNT/bin/busybox"
	cat >"$MNT/sbin/init" <<'EOF'
#!/bin/busybox sh
# The test root's init: say what the initramfs did, then power off.
bb=/bin/busybox
$bb mount -t proc proc /proc
echo "E2SECRM-BOOT-INIT: reached; root: $($bb grep ' / ' /proc/mounts)"
$bb dmesg | $bb grep 'e2secrm:' | $bb sed 's/^/E2SECRM-BOOT-DMESG: /'
if [ -r /run/e2secrm/boot.log ]; then
	$bb sed 's/^/E2SECRM-BOOT-LOG: /' /run/e2secrm/boot.log
fi
echo "E2SECRM-BOOT-INIT: poweroff"
$bb sync
$bb poweroff -f
EOF
	chmod 755 "$MNT/sbin/init"
	for i in 1 2 3; do
		head -c $((i * 70000 + 123)) /dev/urandom >"$MNT/data/live$i"
	done
	printf 'KEEP-%s\n' $(seq 1 500) >"$MNT/etc/keep.txt"
	local n=0
	: >"$MNT/data/secret.txt"
	while [ $n -lt 2000 ]; do
		echo "$SECRET line $n" >>"$MNT/data/secret.txt"
		n=$((n + 1))
	done
	sync
	chattr +s "$MNT/data/secret.txt" || { umount "$MNT"; return 1; }
	rm "$MNT/data/secret.txt"
	umount "$MNT"
}

# livesums IMG: the sha256 of every live file, read with debugfs.
livesums() {
	local f
	for f in /sbin/init /bin/busybox /etc/keep.txt /data/live1 \
		 /data/live2 /data/live3; do
		debugfs -R "dump $f $T/dump" "$1" >/dev/null 2>&1
		echo "$f $(sha256sum <"$T/dump" | cut -d' ' -f1)"
		rm -f "$T/dump"
	done
}

secrets() { grep -c "$SECRET" "$1"; }

# fsck_only BEFORE AFTER: the images differ at most where e2fsck -p
# writes on a clean file system (it does: initramfs-tools' checkfs runs
# it at every boot): in the primary superblock's s_wtime, s_mnt_count,
# s_lastcheck, s_kbytes_written, the high bytes of those times, and the
# checksum.  Anything else (a wiped block, a scrubbed record, a journal
# write) is printed and fails.
fsck_only() {
	cmp -l "$1" "$2" | awk '
	BEGIN {
		bad = 0
		# byte offsets in the superblock, cmp counts from 1
		split("48 49 50 51 52 53 64 65 66 67 376 377 378 379 380 381 382 383 628 630 1020 1021 1022 1023", o, " ")
		for (i in o) ok[1024 + o[i] + 1] = 1
	}
	!($1 in ok) {
		if (bad++ < 20)
			print "    byte " $1 - 1 " changed: " $2 " -> " $3
	}
	END { exit bad > 0 }'
}

# boot IMG LOG CMDLINE-EXTRA [INITRD]: one bounded TCG boot; sets
# $boot_rc, $boot_s.
boot() {
	local t0=$SECONDS rd=${4:-$initrd}
	timeout "$QTIMEOUT" qemu-system-x86_64 -accel tcg -m 512 -nodefaults \
		-display none -no-reboot -monitor none -serial "file:$2" \
		-kernel "$vmlinuz" -initrd "$rd" \
		-drive "file=$1,format=raw,if=virtio" \
		-append "root=/dev/vda console=ttyS0 panic=-1 $3" \
		>"$2.qemu" 2>&1
	boot_rc=$?
	boot_s=$((SECONDS - t0))
	echo "    boot: ${boot_s}s, qemu exit $boot_rc, cmdline extra '$3'"
}

# reached LOG NAME: the boot got to init and powered off.
reached() {
	if grep -q '^E2SECRM-BOOT-INIT: poweroff' "$1" &&
	   [ "$boot_rc" = 0 ]; then
		pass "$2: boot reached init and powered off"
		return 0
	fi
	fail "$2: boot reached init" "qemu exit $boot_rc, serial log:"
	sed 's/^/    | /' "$1"
	return 1
}

base=$T/base.img
mkroot "$base" || { fail "make the root image" "mkroot failed"; exit 1; }
n=$(secrets "$base")
if [ "$n" -gt 0 ]; then
	pass "the kernel left the deleted +s secret on the raw image ($n lines)"
else
	fail "secret on the raw image before boot" "not there: the test would prove nothing"
	exit 1
fi
e2fsck -fn "$base" >/dev/null 2>&1 || fail "base image clean" "e2fsck -fn"
livesums "$base" >"$T/live.before"

want() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }

# --- 1. e2secrm=yes: wiped, live files exact, e2fsck clean ---------------------
if want wipe; then
	echo "== wipe: e2secrm=yes"
	I=$T/wipe.img
	cp --sparse=always "$base" "$I"
	L=$T/wipe.log
	boot "$I" "$L" "e2secrm=yes"
	if reached "$L" wipe; then
		grep -q 'e2secrm: /dev/vda: exit 1: residues wiped' "$L" &&
			grep -q 'e2secrm: /dev/vda: running (e2secrm=yes)' "$L" &&
			pass "wipe: the serial log shows the run and its exit status (1)" ||
			{ fail "wipe: run in the serial log" "no 'exit 1' line"
			  sed 's/^/    | /' "$L"; }
	fi
	n=$(secrets "$I")
	[ "$n" = 0 ] && pass "wipe: the secret is gone from the raw image" ||
		fail "wipe: the secret is gone" "$n lines left"
	livesums "$I" >"$T/live.after"
	cmp -s "$T/live.before" "$T/live.after" &&
		pass "wipe: live files bit-exact (debugfs dump, sha256)" ||
		fail "wipe: live files bit-exact" "$(diff "$T/live.before" "$T/live.after")"
	out=$(e2fsck -fn "$I" 2>&1) && pass "wipe: e2fsck -fn clean" ||
		fail "wipe: e2fsck -fn clean" "$out"
fi

# --- 2. a refusal: bigalloc; the boot goes on, the image untouched -------------
if want refuse; then
	echo "== refuse: e2secrm=yes on a bigalloc root (e2secrm refuses it)"
	I=$T/refuse.img
	mkroot "$I" -O bigalloc -C 16384 ||
		fail "refuse: make the bigalloc root" "mkroot failed"
	n0=$(secrets "$I")
	# The refusal is e2secrm's own, before the boot: the same binary.
	"$E2SECRM" -n --no-state "$I" >/dev/null 2>&1
	[ $? -ge 8 ] || fail "refuse: e2secrm refuses bigalloc on the host" "it does not"
	# A read-only mount of a clean ext4 writes nothing, and e2fsck -p
	# only a few superblock fields (fsck_only): every other byte must
	# stay as it is.
	cp --sparse=always "$I" "$T/refuse.before"
	L=$T/refuse.log
	boot "$I" "$L" "e2secrm=yes"
	if reached "$L" refuse; then
		grep -q 'e2secrm: /dev/vda: exit 8: ' "$L" &&
			pass "refuse: the serial log shows the refusal, exit 8" ||
			{ fail "refuse: refusal in the serial log" "no 'exit 8' line"
			  sed 's/^/    | /' "$L"; }
	fi
	if out=$(fsck_only "$T/refuse.before" "$I") &&
	   [ "$(secrets "$I")" = "$n0" ] && [ "$n0" -gt 0 ]; then
		pass "refuse: image unchanged but for fsck's superblock fields, secret still there"
	else
		fail "refuse: image untouched" "secret lines $n0 -> $(secrets "$I"); $out"
	fi
fi

# --- 2b. options from the kernel command line: a bad one is a usage error --
if want refuse; then
	echo "== usage: e2secrm=yes e2secrm.opts=--verify,--no-such-option"
	I=$T/usage.img
	cp --sparse=always "$base" "$I"
	cp --sparse=always "$base" "$T/usage.before"
	L=$T/usage.log
	boot "$I" "$L" "e2secrm=yes e2secrm.opts=--verify,--no-such-option"
	if reached "$L" usage; then
		grep -q 'e2secrm: /dev/vda: running (e2secrm=yes): e2secrm -y .* --verify --no-such-option' "$L" &&
			grep -q "e2secrm: /dev/vda: exit 16: e2secrm: unrecognized option '--no-such-option'" "$L" &&
			pass "usage: options from e2secrm.opts= passed, exit 16 and the message logged" ||
			{ fail "usage: exit 16 in the serial log" "not as expected"
			  grep 'e2secrm:' "$L" | sed 's/^/    | /'; }
	fi
	out=$(fsck_only "$T/usage.before" "$I") && [ "$(secrets "$I")" -gt 0 ] &&
		pass "usage: image unchanged but for fsck's fields, secret still there" ||
		fail "usage: image untouched" "$out"
fi

# --- 3. not asked: nothing runs -----------------------------------------------
if want none; then
	echo "== none: no parameter, no flag"
	I=$T/none.img
	cp --sparse=always "$base" "$I"
	cp --sparse=always "$base" "$T/none.before"
	L=$T/none.log
	boot "$I" "$L" ""
	if reached "$L" none; then
		! grep -q 'e2secrm: ' "$L" &&
			pass "none: no e2secrm line in the serial log" ||
			fail "none: nothing ran" "$(grep 'e2secrm: ' "$L")"
	fi
	n=$(secrets "$I")
	if out=$(fsck_only "$T/none.before" "$I") && [ "$n" -gt 0 ]; then
		pass "none: image unchanged but for fsck's superblock fields, secret still there"
	else
		fail "none: image untouched" "secret lines: $n; $out"
	fi
fi

# --- 4. the one-shot request: once, then not again ----------------------------
if want oneshot; then
	echo "== oneshot: e2secrm-maint --next-boot, then two boots without parameter"
	I=$T/oneshot.img
	cp --sparse=always "$base" "$I"
	sed "s|%SBINDIR%|$top/e2secrm|g" "$top/misc/e2secrm-maint.in" >"$T/maint"
	mount -o loop "$I" "$MNT" &&
		sh "$T/maint" --next-boot "$MNT" >"$T/maint.out" 2>&1
	rc=$?
	umount "$MNT"
	if [ "$rc" = 0 ] && debugfs -R "stat /e2secrm-next-boot" "$I" 2>/dev/null |
	   grep -q '^Inode:'; then
		pass "oneshot: --next-boot left /e2secrm-next-boot"
	else
		fail "oneshot: --next-boot" "rc=$rc $(cat "$T/maint.out")"
	fi
	L=$T/oneshot1.log
	boot "$I" "$L" ""
	if reached "$L" "oneshot boot 1"; then
		grep -q 'e2secrm: /dev/vda: running (one-shot request' "$L" &&
			grep -q 'e2secrm: /dev/vda: exit 1: residues wiped' "$L" &&
			pass "oneshot boot 1: ran on the flag, exit 1" ||
			{ fail "oneshot boot 1: ran" "no run in the log"
			  sed 's/^/    | /' "$L"; }
	fi
	[ "$(secrets "$I")" = 0 ] && pass "oneshot boot 1: the secret is gone" ||
		fail "oneshot boot 1: the secret is gone" "$(secrets "$I") left"
	debugfs -R "stat /e2secrm-next-boot" "$I" 2>/dev/null | grep -q '^Inode:' &&
		fail "oneshot boot 1: flag consumed" "still there" ||
		pass "oneshot boot 1: flag consumed"
	livesums "$I" >"$T/live.after"
	cmp -s "$T/live.before" "$T/live.after" &&
		out=$(e2fsck -fn "$I" 2>&1) &&
		pass "oneshot boot 1: live files bit-exact, e2fsck -fn clean" ||
		fail "oneshot boot 1: live files, e2fsck" "$out"
	cp --sparse=always "$I" "$T/oneshot.before2"
	L=$T/oneshot2.log
	boot "$I" "$L" ""
	if reached "$L" "oneshot boot 2"; then
		! grep -q 'e2secrm: ' "$L" &&
			out=$(fsck_only "$T/oneshot.before2" "$I") &&
			pass "oneshot boot 2: not run again, image unchanged but for fsck's fields" ||
			fail "oneshot boot 2: not run again" "$(grep 'e2secrm: ' "$L") $out"
	fi
fi

# --- 4b. the one-shot request on a journal left to replay, fsck skipped ----
# A kernel "crash" (xfs_io shutdown, the log not flushed) after the flag
# was committed: debugfs must not remove it around the journal.
if want oneshot; then
	echo "== oneshot-recovery: flag, then a crash; fsck.mode=skip"
	I=$T/orec.img
	cp --sparse=always "$base" "$I"
	if ! command -v xfs_io >/dev/null; then
		skipcase "oneshot-recovery" "no xfs_io (xfsprogs) to shut the file system down"
	else
		mount -o loop "$I" "$MNT" &&
			sh "$T/maint" --next-boot "$MNT" >/dev/null 2>&1 &&
			head -c 100000 /dev/urandom >"$MNT/data/after" &&
			sync -f "$MNT/data/after" &&
			xfs_io -x -c shutdown "$MNT" &&
			umount "$MNT"
		if debugfs -R features "$I" 2>/dev/null | grep -q needs_recovery; then
			L=$T/orec.log
			boot "$I" "$L" "fsck.mode=skip"
			if reached "$L" "oneshot-recovery"; then
				grep -q 'e2secrm: /dev/vda: journal needs recovery (fsck skipped?): /e2secrm-next-boot left for a later boot, not run' "$L" &&
					! grep -q 'e2secrm: /dev/vda: running' "$L" &&
					pass "oneshot-recovery: not run, said so in the log" ||
					{ fail "oneshot-recovery: not run" "log:"
					  grep 'e2secrm:' "$L" | sed 's/^/    | /'; }
			fi
			# The kernel replayed the journal at mount: the flag
			# is there for the next boot.
			debugfs -R "stat /e2secrm-next-boot" "$I" 2>/dev/null |
				grep -q '^Inode:' && [ "$(secrets "$I")" -gt 0 ] &&
				pass "oneshot-recovery: flag and secret still there" ||
				fail "oneshot-recovery: flag left" "flag or secret gone"
		else
			fail "oneshot-recovery: make the image" "no needs_recovery after the shutdown"
		fi
	fi
fi

# --- 5. dracut: the same wipe and refusal through the 90e2secrm module --------
# dracut_initrd OUT: sets $why on failure.
dracut_initrd() {
	local dpkg dc db
	dpkg=dracut-core
	dc=$CACHE/$dpkg
	if [ ! -e "$dc/.done" ]; then
		rm -rf "$dc"
		(cd "$CACHE" && apt-get download "$dpkg" >"$CACHE/dracut-download.log" 2>&1) || {
			why="cannot download $dpkg: $(tail -n 1 "$CACHE/dracut-download.log")"
			return 1
		}
		dpkg -x "$(ls "$CACHE/$dpkg"_*.deb | tail -n 1)" "$dc" ||
			{ why="dpkg -x $dpkg failed"; return 1; }
		touch "$dc/.done"
	fi
	# dracut's modules with this tree's 90e2secrm among them.
	db=$T/dracut
	cp -r "$dc/usr/lib/dracut" "$db"
	mkdir -p "$db/modules.d/90e2secrm" "$T/dracut.conf.d"
	sed -e "s|%SBINDIR%|/usr/sbin|g" -e "s|%LIBDIR%|/usr/lib|g" \
		"$top/misc/dracut/90e2secrm/module-setup.sh.in" \
		>"$db/modules.d/90e2secrm/module-setup.sh"
	cp "$top/misc/dracut/90e2secrm/e2secrm-pre-mount.sh" \
		"$db/modules.d/90e2secrm/"
	chmod 755 "$db/modules.d/90e2secrm/"*
	# No systemd in the initramfs (dracut's own init): its modules are
	# not needed to show the hook, and keep the image small.
	E2SECRM_HOOK_BIN=$E2SECRM E2SECRM_HOOK_LIB=$top/misc/e2secrm-boot.sh \
	E2SECRM_HOOK_CONF=$T/e2secrm.conf dracutbasedir=$db \
		bash "$dc/usr/bin/dracut" --no-hostonly --no-early-microcode \
		--force --conf /dev/null --confdir "$T/dracut.conf.d" \
		-m "bash base rootfs-block kernel-modules udev-rules fs-lib e2secrm" \
		--kmoddir "$kdir/lib/modules/$kver" --kver "$kver" \
		--add-drivers "virtio_pci virtio_blk ext4 crc32c_generic" \
		--filesystems ext4 "$1" >"$T/dracut.log" 2>&1 || {
			why="dracut failed: $(tail -n 3 "$T/dracut.log")"
			return 1
		}
	"$db/skipcpio" "$1" | zcat | cpio -t 2>/dev/null >"$T/dracut.list"
	if ! grep -q 'hooks/pre-mount/90-e2secrm-pre-mount.sh$' "$T/dracut.list" ||
	   ! grep -q 'sbin/e2secrm$' "$T/dracut.list"; then
		fail "dracut: initramfs holds the module" "$(grep e2secrm "$T/dracut.list")"
		return 1
	fi
	pass "dracut: initramfs holds e2secrm and its pre-mount hook"
}

if want dracut; then
	echo "== dracut: e2secrm=yes through the 90e2secrm module, wipe and refusal"
	why=
	if dracut_initrd "$T/dracut.img"; then
		echo "dracut initramfs: $(du -h "$T/dracut.img" | cut -f1)"
		# ro: dracut mounts root read-write otherwise, and the images
		# are compared after.
		I=$T/dwipe.img
		cp --sparse=always "$base" "$I"
		L=$T/dracut-wipe.log
		boot "$I" "$L" "ro e2secrm=yes" "$T/dracut.img"
		if reached "$L" "dracut wipe"; then
			grep -q 'e2secrm: /dev/vda: exit 1: residues wiped' "$L" &&
				pass "dracut wipe: the serial log shows the run, exit 1" ||
				{ fail "dracut wipe: run in the log" "no 'exit 1' line"
				  sed 's/^/    | /' "$L"; }
		fi
		livesums "$I" >"$T/live.after"
		[ "$(secrets "$I")" = 0 ] && cmp -s "$T/live.before" "$T/live.after" &&
			out=$(e2fsck -fn "$I" 2>&1) &&
			pass "dracut wipe: secret gone, live files bit-exact, e2fsck -fn clean" ||
			fail "dracut wipe: secret gone, live files, e2fsck" \
				"$(secrets "$I") secret lines; $out"
		if [ -e "$T/refuse.before" ]; then
			I=$T/drefuse.img
			cp --sparse=always "$T/refuse.before" "$I"
			L=$T/dracut-refuse.log
			boot "$I" "$L" "ro e2secrm=yes" "$T/dracut.img"
			if reached "$L" "dracut refuse"; then
				grep -q 'e2secrm: /dev/vda: exit 8: ' "$L" &&
					pass "dracut refuse: the serial log shows exit 8" ||
					fail "dracut refuse: exit 8 in the log" "none"
			fi
			out=$(fsck_only "$T/refuse.before" "$I") &&
				pass "dracut refuse: image unchanged but for fsck's fields" ||
				fail "dracut refuse: image untouched" "$out"
		else
			skipcase "dracut refuse" "needs the refuse case's image"
		fi
	else
		[ -n "$why" ] && skipcase "dracut" "$why"
	fi
fi

echo "check-boot: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
