/*
 * execute.c --- carrying out a plan in crash-safe order.
 *
 * Freed data and metadata blocks first, then a flush (and, when planned,
 * all free space and the unwritten extents of live files, each flushed);
 * then removed directory entries and the inode records, then a flush;
 * then the stale journal copies, then a flush.  Each phase's targets are
 * the map to the earlier ones: a run cut before a phase leaves what a
 * re-run follows to the same blocks, and a cut anywhere leaves a
 * consistent filesystem, because nothing written here is in use but
 * unwritten extents, which read as zeros before and after.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <time.h>

#include "e2secrm.h"

static errcode_t wipe_blocks(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	blk64_t total = plan->data_count + plan->meta_count;
	errcode_t err;

	/* One stage, one count: data then metadata. */
	err = e2sr_wipe_bitmap(ctx, plan->data_blocks, E2SR_STAGE_WIPE_BLOCKS,
			       0, total, &ctx->stats.data_wiped);
	if (err)
		return err;
	err = e2sr_wipe_bitmap(ctx, plan->meta_blocks, E2SR_STAGE_WIPE_BLOCKS,
			       ctx->stats.data_wiped, total,
			       &ctx->stats.meta_wiped);
	if (err)
		return err;
	return io_channel_flush(ctx->fs->io);
}

static errcode_t scrub_inodes(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	errcode_t err;
	size_t i;

	/* Names first: the records are what says which inodes were +s. */
	err = e2sr_names_wipe(ctx);
	if (err)
		return err;
	for (i = 0; i < plan->inode_count; i++) {
		if (ctx->cancel && *ctx->cancel)
			return E2SR_ERR_CANCELLED;
		err = e2sr_scrub_inode(ctx, plan->inodes[i]);
		if (err)
			return err;
		if (ctx->progress)
			ctx->progress(ctx->progress_data,
				      E2SR_STAGE_SCRUB_INODES, i + 1,
				      plan->inode_count);
	}
	return io_channel_flush(ctx->fs->io);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Close the timing of the phase that began at *t; start the next. */
static void phase_done(double *slot, double *t)
{
	double n = seconds();

	*slot += n - *t;
	*t = n;
}

/* Every run of @map passes the check the writer will make. */
static errcode_t check_runs(struct e2sr_ctx *ctx, ext2fs_block_bitmap map)
{
	ext2_filsys fs = ctx->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t start = fs->super->s_first_data_block, end;
	errcode_t err;

	while (e2sr_next_run(map, 1, &start, last, &end)) {
		err = e2sr_wipe_check_free(ctx, start, end - start);
		if (err) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "blocks %llu-%llu",
				 (unsigned long long)start,
				 (unsigned long long)end - 1);
			return err;
		}
		start = end;
	}
	return 0;
}

/*
 * Everything the writers will check just before they write, checked on
 * the read-only handle before anything is written: a plan that would
 * stop half-way is refused whole.  Phase by phase, in execute's order.
 */
errcode_t e2sr_execute_check(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	ext2_filsys fs = ctx->fs;
	errcode_t err;
	size_t i;

	err = check_runs(ctx, plan->data_blocks);
	if (!err)
		err = check_runs(ctx, plan->meta_blocks);
	if (!err && plan->unwritten_runs)
		err = e2sr_unwritten_check(ctx);
	if (err)
		return err;
	for (i = 0; i < plan->inode_count; i++) {
		ext2_ino_t ino = plan->inodes[i];

		if (!ino || ino > fs->super->s_inodes_count)
			return EXT2_ET_BAD_INODE_NUM;
		if (ext2fs_test_inode_bitmap2(fs->inode_map, ino)) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "inode %u", ino);
			return E2SR_ERR_INODE_IN_USE;
		}
	}
	err = e2sr_free_inodes_check(ctx);
	if (err)
		return err;
	if (!plan->journal_count)
		return 0;
	/* Stale copies may go only once the journal is empty. */
	if (ctx->journal && ctx->journal->jsb.start &&
	    ctx->recovered != E2SR_RECOVERY_VIEW)
		return E2SR_ERR_JOURNAL_LIVE;
	for (i = 0; i < plan->journal_count; i++) {
		err = e2sr_wipe_journal_place(ctx, plan->journal[i].jblock, 1);
		if (err) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "journal block %u", plan->journal[i].jblock);
			return err;
		}
	}
	return 0;
}

errcode_t e2sr_execute(struct e2sr_ctx *ctx)
{
	struct e2sr_stats *st = &ctx->stats;
	double t = seconds();
	errcode_t err;

	if (ctx->open_flags & E2SR_OPEN_RDONLY)
		return E2SR_ERR_READ_ONLY;
	err = wipe_blocks(ctx);
	phase_done(&st->time_blocks, &t);
	if (!err && ctx->plan.free_all)
		err = e2sr_wipe_free(ctx, &st->free_wiped);
	/* Live files' blocks: no later phase is a map to them. */
	if (!err && ctx->plan.unwritten_runs)
		err = e2sr_unwritten_wipe(ctx, &st->unwritten_wiped);
	if (ctx->plan.free_all || ctx->plan.unwritten_runs)
		phase_done(&st->time_free, &t);
	if (err)
		return err;
	err = scrub_inodes(ctx);
	if (!err)
		err = e2sr_free_inodes_wipe(ctx);
	phase_done(&st->time_records, &t);
	if (err)
		return err;
	/* Last: the journal is the map to everything above. */
	err = e2sr_wipe_journal(ctx, &st->journal_wiped);
	phase_done(&st->time_journal, &t);
	if (!err && ctx->verify) {
		/* Blocks read back, then the records rewritten in place. */
		err = e2sr_verify(ctx);
		if (!err)
			err = e2sr_free_inodes_verify(ctx);
		if (!err && st->verify_bad)
			err = E2SR_ERR_VERIFY;
		phase_done(&st->time_verify, &t);
	}
	return err;
}
