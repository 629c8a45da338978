#!/bin/sh
# boot-deps.sh --- install, from Debian packages, what `make check-boot`
# needs on the host: qemu-system-x86 to boot (TCG is enough), busybox-static
# for the test root's /sbin/init, initramfs-tools for mkinitramfs and its
# hook functions, cpio to look inside the initramfs.  The kernel itself is
# not installed: check-boot.sh downloads the linux-image package into its
# cache and unpacks it there.  Run as root; prints why and exits 1 when it
# cannot install (check-boot.sh then skips).
set -e
pkgs="qemu-system-x86 busybox-static initramfs-tools cpio e2fsprogs
util-linux kmod"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
# initramfs-tools and dracut conflict: never swap the machine's own
# initramfs generator for a test.
case $missing in
*initramfs-tools*)
	if dpkg-query -W -f='${Status}\n' dracut 2>/dev/null |
	   grep -q 'install ok installed'; then
		echo "boot-deps: dracut is installed here; not replacing it with initramfs-tools" >&2
		exit 1
	fi
	;;
esac
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "boot-deps: not root, cannot install:$missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# No recommends: qemu's pull in a GUI and firmware the test needs not.
	apt-get install -y -qq --no-install-recommends $missing
fi
