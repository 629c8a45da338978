/*
 * unwritten.c --- under --all-free, the unwritten extents of live files.
 *
 * fallocate allocates blocks without writing them: the extent is marked
 * unwritten and reads of it return zeros, but the blocks still hold what
 * their last owner left.  A free-space wipe passes them by because they
 * are allocated.  livemap.c's walk of every map in use, during the
 * inventory scan, hands every unwritten extent of every live file here;
 * execute zeroes them, each one only after looking it up again in its
 * file's extent tree and finding it still there, unwritten and at the
 * same blocks, which both the bitmap and the live set must have in use.
 * Nobody can see the difference: the file still reads as zeros there,
 * before and after.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>

#include "e2secrm.h"

static errcode_t note_extent(struct e2sr_inventory *inv, ext2_ino_t ino,
			     const struct ext2fs_extent *ext)
{
	struct e2sr_unwritten *u;

	if (inv->unwritten_count) {
		u = &inv->unwritten[inv->unwritten_count - 1];
		if (u->ino == ino && u->lblk + u->len == ext->e_lblk &&
		    u->pblk + u->len == ext->e_pblk &&
		    u->len <= ~0U - ext->e_len) {
			u->len += ext->e_len;
			return 0;
		}
	}
	if (inv->unwritten_count == inv->unwritten_alloc) {
		size_t na = inv->unwritten_alloc ? inv->unwritten_alloc * 2 : 16;

		u = realloc(inv->unwritten, na * sizeof(*u));
		if (!u)
			return EXT2_ET_NO_MEMORY;
		inv->unwritten = u;
		inv->unwritten_alloc = na;
	}
	u = &inv->unwritten[inv->unwritten_count++];
	u->ino = ino;
	u->lblk = ext->e_lblk;
	u->pblk = ext->e_pblk;
	u->len = ext->e_len;
	return 0;
}

/*
 * One unwritten extent met by livemap.c's walk of every map in use:
 * noted when it belongs to a live regular file and --all-free asked for
 * them.  A tree that cannot be read never gets here: the run is refused.
 */
errcode_t e2sr_unwritten_add(struct e2sr_ctx *ctx, ext2_ino_t ino,
			     const struct ext2_inode *inode,
			     const struct ext2fs_extent *ext)
{
	if (!(ctx->sanitize & (E2SR_FREE_ALL | E2SR_FREE_IF_LOST)) ||
	    !(ext->e_flags & EXT2_EXTENT_FLAGS_UNINIT) || !ext->e_len ||
	    !(inode->i_flags & EXT4_EXTENTS_FL) || !inode->i_links_count ||
	    !LINUX_S_ISREG(inode->i_mode) ||
	    ino < EXT2_FIRST_INODE(ctx->fs->super))
		return 0;
	return note_extent(&ctx->inv, ino, ext);
}

blk64_t e2sr_unwritten_blocks(const struct e2sr_inventory *inv)
{
	blk64_t n = 0;
	size_t i;

	for (i = 0; i < inv->unwritten_count; i++)
		n += inv->unwritten[i].len;
	return n;
}

/* Whether @u is, right now, unwritten at the same blocks in its file. */
static errcode_t still_unwritten(ext2_filsys fs, const struct e2sr_unwritten *u)
{
	struct ext2fs_extent ext;
	ext2_extent_handle_t h;
	blk64_t lblk = u->lblk;
	errcode_t err;

	if (!ext2fs_test_inode_bitmap2(fs->inode_map, u->ino))
		return E2SR_ERR_WRITE_UNWRITTEN;
	err = ext2fs_extent_open(fs, u->ino, &h);
	if (err)
		return err;
	/* The run may span several leaf entries: check each. */
	while (lblk < u->lblk + u->len) {
		err = ext2fs_extent_goto(h, lblk);
		if (!err)
			err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &ext);
		if (err || !(ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT) ||
		    lblk < ext.e_lblk || lblk - ext.e_lblk >= ext.e_len ||
		    ext.e_pblk + (lblk - ext.e_lblk) !=
		    u->pblk + (lblk - u->lblk)) {
			err = E2SR_ERR_WRITE_UNWRITTEN;
			break;
		}
		lblk = ext.e_lblk + ext.e_len;
	}
	ext2fs_extent_free(h);
	return err;
}

/* Before the first write: every noted extent is still one to wipe. */
errcode_t e2sr_unwritten_check(struct e2sr_ctx *ctx)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	errcode_t err;
	size_t i;

	for (i = 0; i < inv->unwritten_count; i++) {
		const struct e2sr_unwritten *u = &inv->unwritten[i];

		err = still_unwritten(ctx->fs, u);
		if (!err)
			err = e2sr_wipe_check_unwritten(ctx, u->pblk, u->len);
		if (err)
			return err;
	}
	return 0;
}

errcode_t e2sr_unwritten_wipe(struct e2sr_ctx *ctx, blk64_t *done)
{
	struct e2sr_inventory *inv = &ctx->inv;
	errcode_t err;
	size_t i;

	*done = 0;
	for (i = 0; i < inv->unwritten_count; i++) {
		const struct e2sr_unwritten *u = &inv->unwritten[i];

		if (ctx->cancel && *ctx->cancel)
			return E2SR_ERR_CANCELLED;
		err = still_unwritten(ctx->fs, u);
		if (!err)
			err = e2sr_wipe_unwritten_range(ctx, u->pblk, u->len);
		if (err)
			return err;
		*done += u->len;
		if (ctx->progress)
			ctx->progress(ctx->progress_data, E2SR_STAGE_UNWRITTEN,
				      *done, ctx->plan.unwritten_count);
	}
	return io_channel_flush(ctx->fs->io);
}
