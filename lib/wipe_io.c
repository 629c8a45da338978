/*
 * wipe_io.c --- the one write path for overwriting blocks.
 *
 * Every block e2secrm overwrites passes through e2sr_wipe_range(), which
 * checks the target against the filesystem's size, its own metadata, the
 * journal's extent and the block bitmap immediately before it writes.  A target that fails
 * the check aborts the run before anything of it is written.  Contiguous
 * runs go out in large writes.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "e2secrm.h"

/* Largest single write, in bytes. */
#define WIPE_CHUNK_BYTES	(1024 * 1024)

errcode_t e2sr_wipe_check(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (!(fs->flags & EXT2_FLAG_RW) || (ctx->open_flags & E2SR_OPEN_RDONLY))
		return E2SR_ERR_READ_ONLY;
	if (!count || blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return E2SR_ERR_WRITE_RANGE;
	if (!ctx->metadata_blocks ||
	    !ext2fs_test_block_bitmap_range2(ctx->metadata_blocks, blk, count))
		return E2SR_ERR_WRITE_METADATA;
	if (!ctx->journal_blocks ||
	    !ext2fs_test_block_bitmap_range2(ctx->journal_blocks, blk, count))
		return E2SR_ERR_WRITE_JOURNAL;
	if (!ext2fs_test_block_bitmap_range2(fs->block_map, blk, count))
		return E2SR_ERR_WRITE_ALLOCATED;
	return 0;
}

static errcode_t fill_random(unsigned char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = getrandom(buf + done, len - done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		done += n;
	}
	return 0;
}

static errcode_t wbuf_get(struct e2sr_ctx *ctx)
{
	size_t bs = ctx->fs->blocksize;

	if (ctx->wbuf)
		return 0;
	ctx->wbuf_blocks = WIPE_CHUNK_BYTES / bs;
	if (!ctx->wbuf_blocks)
		ctx->wbuf_blocks = 1;
	ctx->wbuf = calloc(ctx->wbuf_blocks, bs);
	return ctx->wbuf ? 0 : EXT2_ET_NO_MEMORY;
}

errcode_t e2sr_wipe_range(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err;
	blk64_t n;

	err = e2sr_wipe_check(ctx, blk, count);
	if (err)
		return err;
	err = wbuf_get(ctx);
	if (err)
		return err;
	while (count) {
		n = count < ctx->wbuf_blocks ? count : ctx->wbuf_blocks;
		if (ctx->method == E2SR_METHOD_RANDOM) {
			/* Fresh bytes for every write, never a reused buffer. */
			err = fill_random(ctx->wbuf, n * fs->blocksize);
			if (err)
				return err;
		}
		err = io_channel_write_blk64(fs->io, blk, n, ctx->wbuf);
		if (err)
			return err;
		ctx->stats.write_calls++;
		blk += n;
		count -= n;
	}
	if (ctx->method == E2SR_METHOD_RANDOM)
		memset(ctx->wbuf, 0, ctx->wbuf_blocks * fs->blocksize);
	return 0;
}

/*
 * Wipe every block set in @map, run by run, stopping at a run boundary
 * when the user cancels.  *done counts the blocks written.
 */
errcode_t e2sr_wipe_bitmap(struct e2sr_ctx *ctx, ext2fs_block_bitmap map,
			   enum e2sr_stage stage, blk64_t *done)
{
	ext2_filsys fs = ctx->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t start = fs->super->s_first_data_block, end, n;
	blk64_t total = 0;
	errcode_t err;

	*done = 0;
	if (ctx->progress)
		total = e2sr_bitmap_count(map, start, last);
	while (start <= last) {
		if (ext2fs_find_first_set_block_bitmap2(map, start, last,
							&start))
			break;
		if (ext2fs_find_first_zero_block_bitmap2(map, start, last,
							 &end))
			end = last + 1;
		while (start < end) {
			if (ctx->cancel && *ctx->cancel)
				return E2SR_ERR_CANCELLED;
			n = end - start;
			if (ctx->wbuf_blocks && n > ctx->wbuf_blocks)
				n = ctx->wbuf_blocks;
			err = e2sr_wipe_range(ctx, start, n);
			if (err)
				return err;
			*done += n;
			start += n;
			if (ctx->progress)
				ctx->progress(ctx->progress_data, stage,
					      *done, total);
		}
	}
	return 0;
}
