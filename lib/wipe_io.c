/*
 * wipe_io.c --- the one write path for overwriting blocks, and the
 * guards of every write.
 *
 * Every block e2secrm overwrites passes through e2sr_wipe_range(), which
 * checks the target against the filesystem's size, its own metadata, the
 * journal's extent, the block bitmap and the live set (livemap.c: what
 * the maps in use reference) immediately before it writes.  A target
 * that fails the check aborts the run before anything of it is written.
 * Contiguous runs go out in large writes.
 *
 * What is rewritten rather than overwritten (a record, a directory
 * block, inode table blocks) is written through libext2fs by its kind's
 * file, so that checksums stay right; the guard each such write passes
 * just before it, and the same check made before the first write, are
 * here: e2sr_wipe_check_record(), e2sr_wipe_check_dir() and
 * e2sr_wipe_check_dir_block(), e2sr_wipe_check_itable().
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

#include "e2secrmP.h"
#include "crc32c.h"

/* Largest single write, in bytes. */
#define WIPE_CHUNK_BYTES	(1024 * 1024)

/* Inside the filesystem, never its metadata or the journal. */
static errcode_t check_place(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (!count || blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return E2SR_ERR_WRITE_RANGE;
	if (!ctx->metadata_blocks ||
	    !ext2fs_test_block_bitmap_range2(ctx->metadata_blocks, blk, count))
		return E2SR_ERR_WRITE_METADATA;
	if (!ctx->journal_blocks ||
	    !ext2fs_test_block_bitmap_range2(ctx->journal_blocks, blk, count))
		return E2SR_ERR_WRITE_JOURNAL;
	return 0;
}


/* Whether this run may write at all: -y, on the read-write handle. */
static errcode_t writable(const struct e2sr_ctx *ctx)
{
	if (!(ctx->fs->flags & EXT2_FLAG_RW) ||
	    (ctx->open_flags & E2SR_OPEN_RDONLY))
		return E2SR_ERR_READ_ONLY;
	return 0;
}

/*
 * Whether the record of @ino may be rewritten: a number of this
 * filesystem past the reserved ones, free by both sources (its bit
 * clear, no live entry naming it).
 */
int e2sr_record_free(const struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	ext2_filsys fs = ctx->fs;

	return ino >= EXT2_FIRST_INODE(fs->super) &&
	       ino <= fs->super->s_inodes_count &&
	       !ext2fs_test_inode_bitmap2(fs->inode_map, ino) &&
	       !e2sr_live_inode(ctx, ino);
}

/*
 * A record to scrub: not a reserved one, and free by both sources (its
 * bit clear, no live entry naming it).  @write: just before the write,
 * which the handle must allow.
 */
errcode_t e2sr_wipe_check_record(struct e2sr_ctx *ctx, ext2_ino_t ino,
				 int write)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err = write ? writable(ctx) : 0;

	if (err)
		return err;
	if (!ino || ino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	if (!e2sr_record_free(ctx, ino)) {
		snprintf(ctx->detail, sizeof(ctx->detail), "inode %u", ino);
		return E2SR_ERR_INODE_IN_USE;
	}
	return 0;
}

/*
 * A directory whose removed names are rewritten: in use by the bitmap,
 * and not known to be unnamed by the live set.
 */
errcode_t e2sr_wipe_check_dir(struct e2sr_ctx *ctx, ext2_ino_t dir, int write)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err = write ? writable(ctx) : 0;

	if (err)
		return err;
	if (!dir || dir > fs->super->s_inodes_count ||
	    !ext2fs_test_inode_bitmap2(fs->inode_map, dir) ||
	    !e2sr_live_inode(ctx, dir)) {
		snprintf(ctx->detail, sizeof(ctx->detail), "directory %u",
			 dir);
		return E2SR_ERR_WRITE_DIR;
	}
	return 0;
}

/*
 * A block of live directory @dir about to be written back: inside the
 * filesystem, not its metadata nor the journal, in use by the bitmap
 * and, as the live set read it, one of @dir's own blocks.  @write: just
 * before the write, which the handle must allow.
 */
errcode_t e2sr_wipe_check_dir_block(struct e2sr_ctx *ctx, ext2_ino_t dir,
				    blk64_t blk, int write)
{
	errcode_t err = e2sr_wipe_check_dir(ctx, dir, write);

	if (!err)
		err = check_place(ctx, blk, 1);
	if (!err && (!ext2fs_test_block_bitmap2(ctx->fs->block_map, blk) ||
		     !e2sr_live_dir_block(ctx, dir, blk)))
		err = E2SR_ERR_WRITE_DIR;
	if (err)
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "directory %u, block %llu", dir,
			 (unsigned long long)blk);
	return err;
}

/* The table of @group, or an error if it is not where it can be. */
errcode_t e2sr_group_table(ext2_filsys fs, dgrp_t group, blk64_t *blk)
{
	*blk = ext2fs_inode_table_loc(fs, group);
	if (*blk < fs->super->s_first_data_block ||
	    *blk >= ext2fs_blocks_count(fs->super) ||
	    fs->inode_blocks_per_group > ext2fs_blocks_count(fs->super) - *blk)
		return EXT2_ET_GDESC_BAD_INODE_TABLE;
	return 0;
}

/*
 * Inode table blocks written wholesale (--free-inodes): inside @group's
 * table, never the journal.  @write: just before the write.
 */
errcode_t e2sr_wipe_check_itable(struct e2sr_ctx *ctx, dgrp_t group,
				 blk64_t blk, blk64_t n, int write)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err = write ? writable(ctx) : 0;
	blk64_t table;

	if (err)
		return err;
	if (group >= fs->group_desc_count ||
	    e2sr_group_table(fs, group, &table) ||
	    blk < table || n > fs->inode_blocks_per_group ||
	    blk - table > fs->inode_blocks_per_group - n)
		return E2SR_ERR_WRITE_ITABLE;
	if (ctx->journal_blocks &&
	    !ext2fs_test_block_bitmap_range2(ctx->journal_blocks, blk, n))
		return E2SR_ERR_WRITE_JOURNAL;
	return 0;
}

/*
 * What e2sr_wipe_check() tests but the handle being writable: for the
 * checks made on the read-only handle before the first write.
 */
errcode_t e2sr_wipe_check_free(struct e2sr_ctx *ctx, blk64_t blk,
			       blk64_t count)
{
	errcode_t err = check_place(ctx, blk, count);

	if (!err && !ext2fs_test_block_bitmap_range2(ctx->fs->block_map, blk,
						     count))
		err = E2SR_ERR_WRITE_ALLOCATED;
	/* Free by the bitmap is not enough: no live map may have it. */
	if (!err && e2sr_live_blocks(ctx, blk, count))
		err = E2SR_ERR_WRITE_ALLOCATED;
	return err;
}

/* The same for an unwritten extent of a live file: allocated, all of it. */
errcode_t e2sr_wipe_check_unwritten(struct e2sr_ctx *ctx, blk64_t blk,
				    blk64_t count)
{
	blk64_t zero;
	errcode_t err = check_place(ctx, blk, count);

	if (!err && (!e2sr_find_first_zero(ctx->fs->block_map,
							   blk, blk + count - 1,
							   &zero) ||
		     !e2sr_live_all(ctx, blk, count)))
		err = E2SR_ERR_WRITE_UNWRITTEN;
	return err;
}

errcode_t e2sr_wipe_check(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	errcode_t err = writable(ctx);

	if (!err)
		err = e2sr_wipe_check_free(ctx, blk, count);
	return err;
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
static errcode_t put_run(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
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
	err = wbuf_get(ctx);
	if (err)
		return err;
	while (count) {
		n = count < ctx->writer.wbuf_blocks ? count : ctx->writer.wbuf_blocks;
		err = put_run(ctx, fs->io, blk, n);
		if (err)
			return err;
		blk += n;
		count -= n;
	}
	if (ctx->opts.method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * fs->blocksize);
	return 0;
}

/* The next run to wipe: set in @map, or free by both sources if NULL. */
static int next_target(struct e2sr_ctx *ctx, ext2fs_block_bitmap map,
		       blk64_t *start, blk64_t last, blk64_t *end)
{
	if (!map)
		return e2sr_free_run(ctx, start, last, end);
	return e2sr_next_run(map, 1, start, last, end);
}

/*
 * Wipe every run of blocks set in @map (or, with NULL, all free space),
 * stopping at a run boundary when the user cancels.  *done counts the
 * blocks written; progress is @base + *done of @total.  Each run done is
 * the action @run (its kind and why) at those blocks.
 */
static errcode_t wipe_runs(struct e2sr_ctx *ctx, ext2fs_block_bitmap map,
			   const struct e2sr_action *run, enum e2sr_stage stage,
			   blk64_t base, blk64_t total, blk64_t *done)
{
	struct e2sr_action a = *run;
	ext2_filsys fs = ctx->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t start = fs->super->s_first_data_block, end, n;
	errcode_t err;

	*done = 0;
	err = wbuf_get(ctx);
	if (err)
		return err;
	while (next_target(ctx, map, &start, last, &end)) {
		a.blk = start;
		a.count = end - start;
		while (start < end) {
			if (e2sr_cancelled(ctx))
				return E2SR_ERR_CANCELLED;
			n = end - start;
			if (n > ctx->writer.wbuf_blocks)
				n = ctx->writer.wbuf_blocks;
			err = e2sr_wipe_range(ctx, start, n);
			if (err)
				return err;
			*done += n;
			start += n;
			e2sr_progress(ctx, stage, base + *done, total);
		}
		e2sr_action_done(ctx, &a);
	}
	return 0;
}

/* @total 0: the stage is this one map, counted here. */
errcode_t e2sr_wipe_bitmap(struct e2sr_ctx *ctx, ext2fs_block_bitmap map,
			   const struct e2sr_action *run, enum e2sr_stage stage,
			   blk64_t base, blk64_t total, blk64_t *done)
{
	ext2_filsys fs = ctx->fs;

	if (e2sr_progress_on(ctx) && !total)
		total = e2sr_bitmap_count(map, fs->super->s_first_data_block,
					  ext2fs_blocks_count(fs->super) - 1);
	return wipe_runs(ctx, map, run, stage, base, total, done);
}

/*
 * A run of journal blocks may be overwritten only while the journal is
 * empty, as its superblock on disk says right now: then no transaction
 * is live and every block of the log is a stale copy.  The run must lie
 * in the log or fast-commit area, never the journal superblock, and,
 * for the internal journal, inside the journal inode's own blocks.
 */
errcode_t e2sr_wipe_journal_place(struct e2sr_ctx *ctx, __u32 jblock,
				  __u32 count)
{
	struct e2sr_journal *j = ctx->journal;
	blk64_t phys;
	__u32 i;

	if (!j || !count || jblock < j->jsb.first || jblock >= j->nblocks ||
	    count > j->nblocks - jblock)
		return E2SR_ERR_WRITE_JOURNAL;
	if (j->external)
		return 0;
	for (i = 0; i < count; i++) {
		phys = e2sr_journal_phys(j, jblock + i);
		if (!ctx->journal_blocks ||
		    !ext2fs_test_block_bitmap2(ctx->journal_blocks, phys) ||
		    (ctx->metadata_blocks &&
		     ext2fs_test_block_bitmap2(ctx->metadata_blocks, phys)))
			return E2SR_ERR_WRITE_JOURNAL;
	}
	return 0;
}

errcode_t e2sr_wipe_journal_check(struct e2sr_ctx *ctx, __u32 jblock,
				  __u32 count)
{
	struct e2sr_journal *j = ctx->journal;
	struct e2sr_jsb jsb;
	unsigned char *buf;
	errcode_t err;

	if (!(ctx->fs->flags & EXT2_FLAG_RW) ||
	    (ctx->open_flags & E2SR_OPEN_RDONLY))
		return E2SR_ERR_READ_ONLY;
	err = e2sr_wipe_journal_place(ctx, jblock, count);
	if (err)
		return err;
	err = ext2fs_get_mem(j->blocksize, &buf);
	if (err)
		return err;
	/*
	 * The superblock as it is on disk now: an external journal's is
	 * not at journal block 0, which holds the device's ext2 superblock.
	 */
	if (j->external)
		err = io_channel_read_blk64(j->io,
				ext2fs_journal_sb_start(j->blocksize), 1, buf);
	else
		err = e2sr_journal_read(j, 0, 1, buf);
	if (!err)
		err = e2sr_jsb_parse(buf, j->blocksize, j->blocksize, &jsb);
	ext2fs_free_mem(&buf);
	if (err)
		return err;
	if (jsb.start || jsb.maxlen != j->jsb.maxlen ||
	    jsb.first != j->jsb.first)
		return E2SR_ERR_JOURNAL_LIVE;
	return 0;
}

/* A planned journal block (or part) as an action of the plan. */
void e2sr_journal_action(const struct e2sr_jplan *jp, struct e2sr_action *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = E2SR_KIND_JOURNAL;
	a->why = E2SR_WHY_JOURNAL + jp->why;
	a->owner = jp->ino;
	a->blk = jp->jblock;
	a->count = 1;
	a->off = jp->off;
	a->len = jp->len;
	a->crc = jp->crc_before;
}

static void journal_done(const struct e2sr_ctx *ctx,
			 const struct e2sr_jplan *jp)
{
	struct e2sr_action a;

	e2sr_journal_action(jp, &a);
	e2sr_action_done(ctx, &a);
}

/* One pass over the planned journal blocks: descriptors, or the rest. */
static errcode_t wipe_journal_pass(struct e2sr_ctx *ctx, int descriptors,
				   blk64_t *done)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_journal *j = ctx->journal;
	size_t i = 0, n, max;
	errcode_t err;

	max = WIPE_CHUNK_BYTES / j->blocksize;
	if (!max || max > ctx->writer.wbuf_blocks)
		max = ctx->writer.wbuf_blocks;
	while (i < plan->journal_count) {
		__u32 first = plan->journal[i].jblock;
		blk64_t phys = e2sr_journal_phys(j, first);

		if ((plan->journal[i].why == E2SR_JWHY_DESC) != descriptors ||
		    plan->journal[i].len) {
			i++;
			continue;
		}
		if (e2sr_cancelled(ctx))
			return E2SR_ERR_CANCELLED;
		for (n = 1; i + n < plan->journal_count && n < max &&
		     plan->journal[i + n].jblock == first + n &&
		     !plan->journal[i + n].len &&
		     (plan->journal[i + n].why == E2SR_JWHY_DESC) ==
		     descriptors &&
		     e2sr_journal_phys(j, first + n) == phys + n; n++)
			;
		err = e2sr_wipe_journal_check(ctx, first, n);
		if (err)
			return err;
		err = put_run(ctx, j->io, phys, n);
		if (err)
			return err;
		j->win_count = 0;	/* the window held what is gone */
		*done += n;
		for (; n; n--, i++)
			journal_done(ctx, &plan->journal[i]);
		e2sr_progress(ctx, E2SR_STAGE_JOURNAL, *done,
			      plan->journal_blocks);
	}
	return io_channel_flush(j->io);
}

/*
 * The copies shared with other files' residue, one block at a time: the
 * block must read as it did when it was planned, and once its parts are
 * zeroed, as the plan says it will; zeros whatever the method, so that
 * the rest of the copy stays as readable as it was.
 */
static errcode_t wipe_journal_parts(struct e2sr_ctx *ctx, blk64_t *done)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_journal *j = ctx->journal;
	unsigned char *buf;
	blk64_t phys;
	size_t i = 0, end, k;
	errcode_t err = 0;

	err = ext2fs_get_mem(j->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; !err && i < plan->journal_count; i = end) {
		end = e2sr_jplan_block_end(plan, i);
		if (!plan->journal[i].len)
			continue;
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = e2sr_wipe_journal_check(ctx, plan->journal[i].jblock, 1);
		if (err)
			break;
		phys = e2sr_journal_phys(j, plan->journal[i].jblock);
		err = io_channel_read_blk64(j->io, phys, 1, buf);
		if (err)
			break;
		if (e2sr_crc32c_le(~0U, buf, j->blocksize) !=
		    plan->journal[i].crc_before) {
			err = E2SR_ERR_CHANGED;
			break;
		}
		for (k = i; k < end; k++)
			memset(buf + plan->journal[k].off, 0,
			       plan->journal[k].len);
		if (e2sr_crc32c_le(~0U, buf, j->blocksize) !=
		    plan->journal[end - 1].crc_after) {
			err = E2SR_ERR_CHANGED;
			break;
		}
		ctx->stats.write_calls++;
		err = io_channel_write_blk64(j->io, phys, 1, buf);
		if (err)
			break;
		for (; i < end; i++)
			journal_done(ctx, &plan->journal[i]);
		j->win_count = 0;	/* the window held what is gone */
		(*done)++;
		e2sr_progress(ctx, E2SR_STAGE_JOURNAL, *done,
			      plan->journal_blocks);
	}
	ext2fs_free_mem(&buf);
	if (!err)
		err = io_channel_flush(j->io);
	return err;
}

/*
 * Overwrite the planned journal blocks: the shared copies in part, the
 * others whole in physically contiguous runs, then, once they are on
 * disk, the descriptors that say where they are.  A run cut in between
 * leaves descriptors a re-run still follows to the copies.
 */
errcode_t e2sr_wipe_journal(struct e2sr_ctx *ctx, blk64_t *done)
{
	errcode_t err;

	*done = 0;
	if (!ctx->plan.journal_count)
		return 0;
	err = wbuf_get(ctx);
	if (!err)
		err = wipe_journal_parts(ctx, done);
	if (!err)
		err = wipe_journal_pass(ctx, 0, done);
	if (!err)
		err = wipe_journal_pass(ctx, 1, done);
	if (ctx->opts.method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * ctx->fs->blocksize);
	return err;
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

	err = writable(ctx);
	if (!err)
		err = e2sr_wipe_check_unwritten(ctx, blk, count);
	if (err)
		return err;
	err = wbuf_get(ctx);
	if (err)
		return err;
	if (method == E2SR_METHOD_RANDOM) {
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * fs->blocksize);
		ctx->opts.method = E2SR_METHOD_ZERO;
	}
	while (!err && count) {
		n = count < ctx->writer.wbuf_blocks ? count : ctx->writer.wbuf_blocks;
		err = put_run(ctx, fs->io, blk, n);
		blk += n;
		count -= n;
	}
	ctx->opts.method = method;
	return err;
}

/*
 * Every block free by both sources (the block bitmap says so and no live
 * map has it), in large runs: what is left when a secure-delete file's
 * map is gone, or a whole disk's free space for disposal.  The residues
 * of the plan come first; this pass only adds to them.
 */
errcode_t e2sr_wipe_free(struct e2sr_ctx *ctx, const struct e2sr_action *run,
			 blk64_t *done)
{
	errcode_t err;

	err = wipe_runs(ctx, NULL, run, E2SR_STAGE_FREE, 0,
			ctx->plan.free_count, done);
	return err ? err : io_channel_flush(ctx->fs->io);
}
