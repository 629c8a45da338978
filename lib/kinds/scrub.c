/*
 * scrub.c --- scrubbing the free inode record of a secure-delete file.
 *
 * A deleted inode keeps its flags, times, owner, generation, block map,
 * in-inode extended attributes and, for inline data and fast symlinks,
 * its contents.  Scrubbing zeroes the whole record, extra space and
 * in-inode xattrs included, and keeps only i_extra_isize, which says how
 * the record is laid out and which the kernel would set again anyway.
 * An all-zero record is what mke2fs leaves and what e2fsck sees as a
 * never-used inode: links 0, mode 0, dtime 0.  The write goes through
 * libext2fs, which recomputes the record's checksum.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "e2secrm.h"
#include "find.h"
#include "write.h"
#include "kinds.h"

void e2sr_scrub_record(ext2_filsys fs, struct ext2_inode_large *inode)
{
	int isize = EXT2_INODE_SIZE(fs->super);
	__u16 extra = 0;

	if (isize > EXT2_GOOD_OLD_INODE_SIZE) {
		extra = inode->i_extra_isize;
		/* Keep only a layout the record can actually hold. */
		if (extra & 3 || extra > isize - EXT2_GOOD_OLD_INODE_SIZE)
			extra = 0;
	}
	memset(inode, 0, isize);
	if (isize > EXT2_GOOD_OLD_INODE_SIZE)
		inode->i_extra_isize = extra;
}

errcode_t e2sr_scrub_inode(struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	ext2_filsys fs = ctx->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode_large *inode;
	errcode_t err;

	/* Free by both sources: bit clear, and no live entry names it. */
	err = e2sr_wipe_check_record(ctx, ino, 1);
	if (err)
		return err;

	err = ext2fs_get_memzero(isize, &inode);
	if (err)
		return err;
	err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)inode, isize,
				 READ_INODE_NOCSUM);
	if (err)
		goto out;
	/* Never planned (sanity.c): the record changed since. */
	if (e2sr_record_contradicts(fs, ino, inode, isize)) {
		snprintf(ctx->detail, sizeof(ctx->detail), "inode %u", ino);
		err = E2SR_ERR_QUESTIONED;
		goto out;
	}
	e2sr_scrub_record(fs, inode);
	err = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)inode,
				      isize);
	if (!err)
		ctx->stats.wiped[E2SR_KIND_RECORDS][0]++;
out:
	ext2fs_free_mem(&inode);
	return err;
}
