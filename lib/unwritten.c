/*
 * unwritten.c --- the unwritten extents of live files, and what of them
 * to zero.
 *
 * fallocate allocates blocks without writing them: the extent is marked
 * unwritten and reads of it return zeros, but the blocks still hold what
 * their last owner left.  fallocate --zero-range turns a written range
 * into an unwritten one in place, and preallocation (--keep-size past
 * the end, too) can hand a file back the very blocks a truncate took
 * from it: either way a secure-delete file's old bytes sit in blocks it
 * still owns.  No free-space wipe reaches them, because they are
 * allocated.
 *
 * By default the plan takes the unwritten extents of every live file of
 * a secure-delete identity (the live map in the inventory, whichever
 * version carried the flag), and of them only the blocks that do not
 * read as zeros now: zeros are what a run before left, so a second run
 * finds nothing.  With --all-free, livemap.c's walk of every map in use
 * hands every unwritten extent of every live file here, and all of them
 * are planned whole.  Execute zeroes each run, whatever the method, only
 * after looking it up again in its file's extent tree and finding it
 * still there, unwritten and at the same blocks, which both the bitmap
 * and the live set must have in use.  Nobody can see the difference: the
 * file still reads as zeros there, before and after.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
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

/* Append a run to the plan, merged with the one it continues. */
static errcode_t plan_run(struct e2sr_plan *plan, ext2_ino_t ino,
			  blk64_t lblk, blk64_t pblk, __u32 len)
{
	struct e2sr_unwritten *u;

	if (plan->unwritten_runs) {
		u = &plan->unwritten[plan->unwritten_runs - 1];
		if (u->ino == ino && u->lblk + u->len == lblk &&
		    u->pblk + u->len == pblk && u->len <= ~0U - len) {
			u->len += len;
			plan->unwritten_count += len;
			return 0;
		}
	}
	if (plan->unwritten_runs == plan->unwritten_alloc) {
		size_t na = plan->unwritten_alloc ?
			    plan->unwritten_alloc * 2 : 16;

		u = realloc(plan->unwritten, na * sizeof(*u));
		if (!u)
			return EXT2_ET_NO_MEMORY;
		plan->unwritten = u;
		plan->unwritten_alloc = na;
	}
	u = &plan->unwritten[plan->unwritten_runs++];
	u->ino = ino;
	u->lblk = lblk;
	u->pblk = pblk;
	u->len = len;
	plan->unwritten_count += len;
	return 0;
}

/*
 * The blocks of one unwritten extent of @ino that are not all zeros now,
 * read before anything is written: -n plans exactly what -y writes.
 */
static errcode_t plan_nonzero(struct e2sr_ctx *ctx, unsigned char *buf,
			      __u32 bufblocks, ext2_ino_t ino,
			      const struct e2sr_extent *e)
{
	ext2_filsys fs = ctx->fs;
	size_t bs = fs->blocksize;
	__u32 off, n, b, end;
	errcode_t err;

	if (e->pblk < fs->super->s_first_data_block ||
	    e->pblk >= ext2fs_blocks_count(fs->super) ||
	    e->len > ext2fs_blocks_count(fs->super) - e->pblk)
		return EXT2_ET_BAD_BLOCK_NUM;
	for (off = 0; off < e->len; off += n) {
		if (ctx->cancel && *ctx->cancel)
			return E2SR_ERR_CANCELLED;
		n = e->len - off < bufblocks ? e->len - off : bufblocks;
		err = io_channel_read_blk64(fs->io, e->pblk + off, n, buf);
		if (err)
			return err;
		for (b = 0; b < n; b = end) {
			if (e2sr_all_zero(buf + b * bs, bs)) {
				end = b + 1;
				continue;
			}
			for (end = b + 1; end < n &&
			     !e2sr_all_zero(buf + end * bs, bs); end++)
				;
			err = plan_run(&ctx->plan, ino, e->lblk + off + b,
				       e->pblk + off + b, end - b);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Default mode: every live file of a secure-delete identity, once (its
 * record may be in the inventory through the table and the journal).
 */
static errcode_t plan_secure(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_inventory *inv = &ctx->inv;
	ext2fs_inode_bitmap seen = NULL;
	unsigned char *buf = NULL;
	__u32 bufblocks = (1024 * 1024) / fs->blocksize;
	errcode_t err = 0;
	size_t i, j;

	if (!bufblocks)
		bufblocks = 1;
	for (i = 0; !err && i < inv->count; i++) {
		const struct e2sr_file *f = &inv->files[i];

		if (f->state != E2SR_STATE_LIVE || !LINUX_S_ISREG(f->mode) ||
		    !f->ino || f->ino > fs->super->s_inodes_count)
			continue;
		if (!seen) {
			err = ext2fs_allocate_inode_bitmap(fs,
					"secure-delete unwritten", &seen);
			if (!err)
				err = ext2fs_get_mem((size_t)bufblocks *
						     fs->blocksize, &buf);
			if (err)
				break;
		}
		if (ext2fs_test_inode_bitmap2(seen, f->ino))
			continue;
		ext2fs_mark_inode_bitmap2(seen, f->ino);
		/* The live map only: historic runs are the cut-away's. */
		for (j = 0; !err && j < f->map_count; j++)
			if (f->map[j].kind == E2SR_EXT_UNWRITTEN &&
			    !f->map[j].historic)
				err = plan_nonzero(ctx, buf, bufblocks, f->ino,
						   &f->map[j]);
	}
	if (seen)
		ext2fs_free_inode_bitmap(seen);
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * After the rest of the plan: with --all-free every live file's
 * unwritten extents, whole (as the free space, they are wiped on every
 * such run); else those of live secure-delete files, less what is zeros.
 */
errcode_t e2sr_unwritten_plan(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_inventory *inv = &ctx->inv;
	errcode_t err;
	size_t i;

	plan->unwritten_runs = 0;
	plan->unwritten_count = 0;
	if (!plan->free_all)
		return plan_secure(ctx);
	for (i = 0; i < inv->unwritten_count; i++) {
		const struct e2sr_unwritten *u = &inv->unwritten[i];

		err = plan_run(plan, u->ino, u->lblk, u->pblk, u->len);
		if (err)
			return err;
	}
	return 0;
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
	const struct e2sr_plan *plan = &ctx->plan;
	errcode_t err;
	size_t i;

	for (i = 0; i < plan->unwritten_runs; i++) {
		const struct e2sr_unwritten *u = &plan->unwritten[i];

		err = still_unwritten(ctx->fs, u);
		if (!err)
			err = e2sr_wipe_check_unwritten(ctx, u->pblk, u->len);
		if (err) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "inode %u, blocks %llu-%llu", u->ino,
				 (unsigned long long)u->pblk,
				 (unsigned long long)(u->pblk + u->len - 1));
			return err;
		}
	}
	return 0;
}

errcode_t e2sr_unwritten_wipe(struct e2sr_ctx *ctx, blk64_t *done)
{
	const struct e2sr_plan *plan = &ctx->plan;
	errcode_t err;
	size_t i;

	*done = 0;
	for (i = 0; i < plan->unwritten_runs; i++) {
		const struct e2sr_unwritten *u = &plan->unwritten[i];

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
