#!/bin/sh
# dracut pre-mount hook for e2secrm (sourced by dracut): the root device,
# before it is mounted.  Does nothing unless asked; never stops the boot,
# whatever e2secrm does (/lib/e2secrm/e2secrm-boot.sh).
#
# Copyright (C) 2026 The e2secrm authors.
# This file may be redistributed under the terms of the GNU General Public
# License, version 2.

# shellcheck disable=SC3043
# shellcheck source=/dev/null
type getarg >/dev/null 2>&1 || . /lib/dracut-lib.sh

e2secrm_dracut()
{
	local dev
	# root= is block:DEVICE once parse-block.sh has read it (a
	# LABEL= or UUID= is a /dev/disk/by-* path by then).
	case ${root:-} in
	block:*) dev=${root#block:} ;;
	*) return 0 ;;
	esac
	[ -b "$dev" ] || return 0
	dev=$(readlink -f "$dev")
	# shellcheck source=/dev/null
	. /lib/e2secrm/e2secrm-boot.sh
	if getargbool 0 rd.skipfsck; then
		e2secrm_boot "$dev" nofsck
	else
		e2secrm_boot "$dev" fsck
	fi
}

# pre-mount hooks run once; a retry of the mount must not run it again.
if [ ! -e /run/e2secrm/premount-done ]; then
	mkdir -p /run/e2secrm
	: >/run/e2secrm/premount-done
	e2secrm_dracut
fi
