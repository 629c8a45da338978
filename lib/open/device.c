/*
 * device.c --- the device under the filesystem, checked before it is
 * opened for a write.
 *
 * Owns what is asked of the device itself rather than of the
 * filesystem on it: not mounted (through another loop device on the same
 * file too) and not held by anyone, e2sr_check_mount() and, once the
 * run's own read-only handle holds it, e2sr_check_not_mounted(); big
 * enough for the whole filesystem, e2sr_check_size(); and, for a run that
 * may write, writable, exclusively, e2sr_check_writable().  A refusal
 * says why in ctx->detail.  The order of the checks and what is checked
 * of the filesystem are open.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <stdio.h>

#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/major.h>

#include "e2secrm.h"
#include "open_int.h"

static errcode_t check_mount_one(struct e2sr_ctx *ctx, const char *device);

/*
 * A loop device's backing file, from sysfs; 0 if @device is not a loop
 * device with one.
 */
static int loop_backing_file(const char *device, char *path, size_t len)
{
	char sys[96];
	struct stat st;
	FILE *f;
	size_t n;

	if (stat(device, &st) || !S_ISBLK(st.st_mode) ||
	    major(st.st_rdev) != LOOP_MAJOR)
		return 0;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(sys, "r");
	if (!f)
		return 0;
	n = fread(path, 1, len - 1, f);
	fclose(f);
	while (n && (path[n - 1] == '\n' || path[n - 1] == 0))
		n--;
	path[n] = 0;
	return n > 0;
}

errcode_t e2sr_check_mount(struct e2sr_ctx *ctx, const char *device)
{
	char backing[PATH_MAX];
	errcode_t err;

	err = check_mount_one(ctx, device);
	/*
	 * The same file may be mounted through another loop device: the
	 * mount table names that one, not ours.
	 */
	if (!err && loop_backing_file(device, backing, sizeof(backing)))
		err = check_mount_one(ctx, backing);
	return err;
}

/* Mounted, that is: a device held open exclusively may be held by us. */
errcode_t e2sr_check_not_mounted(struct e2sr_ctx *ctx, const char *device)
{
	char backing[PATH_MAX];
	errcode_t err;

	err = check_mount_one(ctx, device);
	if (!err && loop_backing_file(device, backing, sizeof(backing)))
		err = check_mount_one(ctx, backing);
	return err == E2SR_ERR_BUSY ? 0 : err;
}

static errcode_t check_mount_one(struct e2sr_ctx *ctx, const char *device)
{
	errcode_t err;
	int mount_flags = 0;
	char mtpt[256];

	mtpt[0] = 0;
	err = ext2fs_check_mount_point(device, &mount_flags, mtpt,
				       sizeof(mtpt));
	if (err)
		return err;
	if (mount_flags & EXT2_MF_MOUNTED) {
		if (mtpt[0])
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "mounted on %s", mtpt);
		return E2SR_ERR_MOUNTED;
	}
	if (mount_flags & (EXT2_MF_BUSY | EXT2_MF_SWAP))
		return E2SR_ERR_BUSY;
	return 0;
}

/*
 * The device must hold the whole filesystem: reading past the end of a
 * truncated image returns errors only for the blocks that happen to be
 * read, so a partial image could pass every other check.
 */
errcode_t e2sr_check_size(struct e2sr_ctx *ctx, const char *device)
{
	ext2_filsys fs = ctx->fs;
	blk64_t dev_blocks;
	errcode_t err;

	err = ext2fs_get_device_size2(device, fs->blocksize, &dev_blocks);
	if (err == EXT2_ET_UNIMPLEMENTED)
		return 0;
	if (err)
		return err;
	if (dev_blocks && dev_blocks < ext2fs_blocks_count(fs->super)) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "filesystem has %llu blocks, device %llu",
			 (unsigned long long)ext2fs_blocks_count(fs->super),
			 (unsigned long long)dev_blocks);
		return E2SR_ERR_TRUNCATED;
	}
	return 0;
}

/*
 * A run that may write finds out first whether it can: the device (and
 * an external journal) opened for writing, exclusively, and let go at
 * once.  A read-only device, an immutable image or one the user may not
 * write is refused before a block of it is read, not after the scan.
 */
errcode_t e2sr_check_writable(struct e2sr_ctx *ctx, const char *path,
			      int journal)
{
	errcode_t err = 0;
	int fd, ro = 0;

	fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	else if (ioctl(fd, BLKROGET, &ro) == 0 && ro)
		err = EROFS;
	if (fd >= 0)
		close(fd);
	if (!err)
		return 0;
	/* The device is named by the message; a journal is named here. */
	snprintf(ctx->detail, sizeof(ctx->detail), "%s%s%sfor writing: %s; "
		 "-n shows what would be wiped",
		 journal ? "the journal " : "", journal ? path : "",
		 journal ? " " : "",
		 err == EROFS ? "a read-only device" :
		 err == EPERM ? "immutable, or writing is not permitted" :
		 err == EACCES ? "permission denied: run as root, or as the "
				 "device's owner" :
		 err == EBUSY ? "in use by another program" :
		 "it cannot be opened");
	return err;
}
