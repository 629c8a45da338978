/*
 * wipe_io.c --- the one write path for overwriting blocks.
 *
 * Every block e2secrm overwrites passes through e2sr_wipe_range(), which
 * has guard.c check the target immediately before it writes (a target
 * that fails the check aborts the run before anything of it is
 * written), or through e2sr_wipe_unwritten_range() for the unwritten
 * extents of live files.  Contiguous runs go out in large writes, by
 * the method asked for (e2sr_wipe_put_run(): zeros, random bytes,
 * discard, secure discard).  The writer of the kinds that overwrite
 * whole runs of blocks is here too, e2sr_wipe_runs() (freed blocks,
 * all free space), and so is the progress of the writes, by stage.
 *
 * What is rewritten rather than overwritten (a record, a directory
 * block, inode table blocks) is written through libext2fs by its kind's
 * file, so that checksums stay right; stale journal copies are
 * wipe_journal.c's; the guards of every write guard.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "e2secrm.h"
#include "util.h"
#include "write_int.h"

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

errcode_t e2sr_wipe_buf_get(struct e2sr_ctx *ctx)
{
	size_t bs = ctx->fs->blocksize;
	errcode_t err;

	if (ctx->writer.wbuf)
		return 0;
	ctx->writer.wbuf_blocks = WIPE_CHUNK_BYTES / bs;
	if (!ctx->writer.wbuf_blocks)
		ctx->writer.wbuf_blocks = 1;
	err = ext2fs_get_arrayzero(ctx->writer.wbuf_blocks, bs,
				   &ctx->writer.wbuf);
	if (!err && ctx->opts.skip_zero)
		err = ext2fs_get_array(ctx->writer.wbuf_blocks, bs,
				       &ctx->writer.rbuf);
	return err;
}

/*
 * BLKSECDISCARD, on the filesystem's own block device only: the channel
 * keeps its descriptor private, so one of ours, opened once.
 */
static int secdiscard(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
		      blk64_t n)
{
	__u64 range[2];
	struct stat st;

	if (io != ctx->fs->io && (!ctx->journal || ctx->journal->external))
		return -1;
	if (ctx->writer.sec_fd < 0)
		return -1;
	if (!ctx->writer.sec_fd) {
		ctx->writer.sec_fd = -1;
		if (stat(ctx->device, &st) || !S_ISBLK(st.st_mode))
			return -1;
		ctx->writer.sec_fd = open(ctx->device, O_RDWR | O_CLOEXEC);
		if (ctx->writer.sec_fd < 0)
			return -1;
	}
	range[0] = blk * ctx->fs->blocksize;
	range[1] = n * ctx->fs->blocksize;
	return ioctl(ctx->writer.sec_fd, BLKSECDISCARD, range);
}

/*
 * --skip-zero: read the run and write zeros only over the blocks that
 * are not zeros already, as zerofree does, so that a thin-provisioned
 * or sparse target does not have its unallocated space filled in.
 */
static errcode_t put_zeros_sparse(struct e2sr_ctx *ctx, io_channel io,
				  blk64_t blk, blk64_t n)
{
	size_t bs = ctx->fs->blocksize;
	blk64_t b, e;
	errcode_t err;

	err = io_channel_read_blk64(io, blk, n, ctx->writer.rbuf);
	if (err)
		return err;
	for (b = 0; b < n; b = e) {
		if (e2sr_all_zero(ctx->writer.rbuf + b * bs, bs)) {
			ctx->stats.zero_skipped++;
			e = b + 1;
			continue;
		}
		for (e = b + 1; e < n && !e2sr_all_zero(ctx->writer.rbuf + e * bs, bs);
		     e++)
			;
		ctx->stats.write_calls++;
		err = io_channel_write_blk64(io, blk + b, e - b, ctx->writer.wbuf);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Put one run out by the method asked for.  Discard is used only where
 * the channel says discarded blocks read back as zeros (a hole punched
 * in an image file, a device that promises it); elsewhere the device is
 * asked to zero the range, and failing that zeros are written.  Either
 * way the blocks read back as zeros afterwards.
 */
errcode_t e2sr_wipe_put_run(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
				   blk64_t n)
{
	size_t bs = ctx->fs->blocksize;
	errcode_t err;

	switch (ctx->opts.method) {
	case E2SR_METHOD_RANDOM:
		/* Fresh bytes for every write, never a reused buffer. */
		err = fill_random(ctx->writer.wbuf, n * bs);
		if (!err)
			err = e2sr_verify_note(ctx, io, blk, n, ctx->writer.wbuf);
		if (err)
			return err;
		break;
	case E2SR_METHOD_SECDISCARD:
		if (secdiscard(ctx, io, blk, n))
			ctx->stats.secdiscard_fallback++;
		/* A secure discard promises erasure, not zeros: go on. */
		/* fall through */
	case E2SR_METHOD_DISCARD:
		if (io_channel_discard_zeroes_data(io)) {
			err = io_channel_discard(io, blk, n);
			if (!err) {
				ctx->stats.discarded += n;
				return 0;
			}
		}
		err = io_channel_zeroout(io, blk, n);
		if (!err) {
			ctx->stats.zeroed_out += n;
			return 0;
		}
		ctx->stats.discard_fallback++;
		break;
	default:
		if (ctx->opts.skip_zero)
			return put_zeros_sparse(ctx, io, blk, n);
		break;
	}
	ctx->stats.write_calls++;
	return io_channel_write_blk64(io, blk, n, ctx->writer.wbuf);
}

errcode_t e2sr_wipe_range(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err;
	blk64_t n;

	err = e2sr_wipe_check(ctx, blk, count);
	if (err)
		return err;
	err = e2sr_wipe_buf_get(ctx);
	if (err)
		return err;
	while (count) {
		n = count < ctx->writer.wbuf_blocks ? count : ctx->writer.wbuf_blocks;
		err = e2sr_wipe_put_run(ctx, fs->io, blk, n);
		if (err)
			return err;
		blk += n;
		count -= n;
	}
	if (ctx->opts.method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * fs->blocksize);
	return 0;
}

/*
 * The progress of the writes is by stage: execute.c says which stage the
 * next actions count in and what the stage counts to; the writers say
 * how much of it they have just written.
 */
void e2sr_wipe_stage(struct e2sr_ctx *ctx, enum e2sr_stage stage,
		     blk64_t total)
{
	if (ctx->writer.stage == stage)
		return;
	ctx->writer.stage = stage;
	ctx->writer.stage_done = 0;
	ctx->writer.stage_total = total;
}

void e2sr_wipe_advance(struct e2sr_ctx *ctx, blk64_t n)
{
	ctx->writer.stage_done += n;
	e2sr_progress(ctx, ctx->writer.stage, ctx->writer.stage_done,
		      ctx->writer.stage_total);
}

/*
 * Runs of free blocks, as the actions @a[0..n) of one kind say: each
 * checked and written in large writes, stopping between two writes when
 * the user cancels; the blocks are counted as the kind's.
 */
errcode_t e2sr_wipe_runs(struct e2sr_ctx *ctx, const struct e2sr_action *a,
			 size_t n)
{
	blk64_t blk, end, len;
	errcode_t err;
	size_t i;

	err = e2sr_wipe_buf_get(ctx);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		end = a[i].blk + a[i].count;
		for (blk = a[i].blk; blk < end; blk += len) {
			if (e2sr_cancelled(ctx))
				return E2SR_ERR_CANCELLED;
			len = end - blk;
			if (len > ctx->writer.wbuf_blocks)
				len = ctx->writer.wbuf_blocks;
			err = e2sr_wipe_range(ctx, blk, len);
			if (err)
				return err;
			ctx->stats.wiped[a[i].kind][0] += len;
			e2sr_wipe_advance(ctx, len);
		}
		e2sr_action_done(ctx, &a[i]);
	}
	return 0;
}

/*
 * The blocks of an unwritten extent of a live file (unwritten.c has just
 * found it in the file's tree again): allocated by both sources, the
 * bitmap and the live set, and never the filesystem's own metadata or
 * the journal.  Zeros, whatever the method: the file reads zeros there,
 * and zeros on disk are how the next run knows the range is done.
 */
errcode_t e2sr_wipe_unwritten_range(struct e2sr_ctx *ctx, blk64_t blk,
				    blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	enum e2sr_method method = ctx->opts.method;
	blk64_t n;
	errcode_t err;

	err = e2sr_wipe_writable(ctx);
	if (!err)
		err = e2sr_wipe_check_unwritten(ctx, blk, count);
	if (err)
		return err;
	err = e2sr_wipe_buf_get(ctx);
	if (err)
		return err;
	if (method == E2SR_METHOD_RANDOM) {
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * fs->blocksize);
		ctx->opts.method = E2SR_METHOD_ZERO;
	}
	while (!err && count) {
		n = count < ctx->writer.wbuf_blocks ? count : ctx->writer.wbuf_blocks;
		err = e2sr_wipe_put_run(ctx, fs->io, blk, n);
		blk += n;
		count -= n;
	}
	ctx->opts.method = method;
	return err;
}
