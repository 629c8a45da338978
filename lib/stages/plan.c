/*
 * plan.c --- deciding, before any write, what a run will overwrite.
 *
 * From the inventory: every block of a secure-delete file's map that is
 * free in the block bitmap now goes into the plan's data or metadata set,
 * and every free record that still carries the flag goes into the list of
 * records to scrub.  A block in use is never planned here, whoever owns
 * it (old bytes under a live file's unwritten extent are unwritten.c's,
 * planned as that file's run): free means free by both sources, the
 * block bitmap and the live set of livemap.c, and a record is deleted
 * only if no live entry names it.  Last, every kind's rule puts its
 * actions into one list, in write order: that list is what -n reports,
 * what is checked before the first write, and what execute.c writes.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "plan.h"
#include "kinds.h"

void e2sr_plan_free(struct e2sr_plan *plan)
{
	int k;

	for (k = 0; k < E2SR_KIND_COUNT; k++)
		if (e2sr_kinds[k]->plan_free)
			e2sr_kinds[k]->plan_free(plan->kind_data[k]);
	if (plan->data_blocks)
		ext2fs_free_block_bitmap(plan->data_blocks);
	if (plan->meta_blocks)
		ext2fs_free_block_bitmap(plan->meta_blocks);
	ext2fs_free_mem(&plan->inodes);
	ext2fs_free_mem(&plan->name_dirs);
	ext2fs_free_mem(&plan->names);
	ext2fs_free_mem(&plan->journal);
	ext2fs_free_mem(&plan->seals);
	ext2fs_free_mem(&plan->unwritten);
	ext2fs_free_mem(&plan->actions);
	memset(plan, 0, sizeof(*plan));
}

/* Whether no kind plans anything (--all-free plans, whatever it finds). */
int e2sr_plan_empty(const struct e2sr_ctx *ctx)
{
	uint64_t n[E2SR_KIND_COUNT][2];
	int k;

	if (ctx->plan.free_all)
		return 0;
	e2sr_kind_counts(ctx, 0, n);
	for (k = 0; k < E2SR_KIND_COUNT; k++)
		if (n[k][0] || n[k][1])
			return 0;
	return 1;
}

static errcode_t plan_add_inode(struct e2sr_plan *plan, ext2_ino_t ino)
{
	if (plan->inode_count == plan->inode_alloc &&
	    e2sr_array_room(&plan->inodes, &plan->inode_alloc,
			    plan->inode_count + 1, sizeof(*plan->inodes)))
		return EXT2_ET_NO_MEMORY;
	plan->inodes[plan->inode_count++] = ino;
	return 0;
}

/* Whether @blk is free by both sources. */
static int block_free(const struct e2sr_ctx *ctx, blk64_t blk)
{
	return !ext2fs_test_block_bitmap2(ctx->fs->block_map, blk) &&
	       !e2sr_live_blocks(ctx, blk, 1);
}

/*
 * Whether a historic map's block holds another owner's bytes since: a
 * later committed copy shows someone wrote it (unseen.c).
 */
static int written_since(const struct e2sr_ctx *ctx,
			 const struct e2sr_extent *e, blk64_t blk)
{
	return e->historic && ctx->inv.owned_count &&
	       e2sr_owned_after(&ctx->inv, blk, e->seq);
}

/*
 * Mark the free blocks of one run; in-use blocks are someone else's, and
 * so are blocks another owner wrote after the run's version.
 */
static void plan_extent(const struct e2sr_ctx *ctx, ext2fs_block_bitmap set,
			const struct e2sr_extent *e)
{
	__u32 i;

	if (e->nfree == e->len && !e2sr_live_blocks(ctx, e->pblk, e->len) &&
	    !(e->historic && ctx->inv.owned_count)) {
		ext2fs_mark_block_bitmap_range2(set, e->pblk, e->len);
		return;
	}
	for (i = 0; i < e->len; i++)
		if (block_free(ctx, e->pblk + i) &&
		    !written_since(ctx, e, e->pblk + i))
			ext2fs_mark_block_bitmap2(set, e->pblk + i);
}

/* Whether @blk is in the live (not historic) map of @file. */
static int in_live_map(const struct e2sr_file *file, blk64_t blk)
{
	size_t i;

	for (i = 0; i < file->map_count; i++) {
		const struct e2sr_extent *e = &file->map[i];

		if (!e->historic && blk >= e->pblk && blk - e->pblk < e->len)
			return 1;
	}
	return 0;
}

/*
 * A live file's historic extent: its blocks that are free now and not in
 * the file's own map any more are what a truncate or punch freed.
 */
static void plan_cut_away(const struct e2sr_ctx *ctx,
			  ext2fs_block_bitmap set, const struct e2sr_file *file,
			  const struct e2sr_extent *e)
{
	__u32 i;

	for (i = 0; i < e->len; i++)
		if (block_free(ctx, e->pblk + i) &&
		    !in_live_map(file, e->pblk + i) &&
		    !written_since(ctx, e, e->pblk + i))
			ext2fs_mark_block_bitmap2(set, e->pblk + i);
}

/*
 * The blocks unseen.c marked that are still free by both sources; how
 * many no map had planned already.
 */
static blk64_t plan_unseen(const struct e2sr_ctx *ctx,
			   ext2fs_block_bitmap set)
{
	blk64_t last = ext2fs_blocks_count(ctx->fs->super) - 1;
	blk64_t start = ctx->fs->super->s_first_data_block, end, b, n = 0;

	while (e2sr_next_run(ctx->inv.unseen, 1, &start, last, &end)) {
		for (b = start; b < end; b++) {
			if (!block_free(ctx, b) ||
			    ext2fs_test_block_bitmap2(set, b))
				continue;
			ext2fs_mark_block_bitmap2(set, b);
			n++;
		}
		start = end;
	}
	return n;
}

struct list_fill {
	struct e2sr_plan	*plan;
	errcode_t		err;
};

static void list_add(void *data, const struct e2sr_action *a)
{
	struct list_fill *f = data;
	struct e2sr_plan *plan = f->plan;

	if (f->err)
		return;
	if (plan->action_count == plan->action_alloc &&
	    e2sr_array_room(&plan->actions, &plan->action_alloc,
			    plan->action_count + 1, sizeof(*plan->actions))) {
		f->err = EXT2_ET_NO_MEMORY;
		return;
	}
	plan->actions[plan->action_count++] = *a;
}

/*
 * The plan as one list, in the order execute.c writes it: phase by
 * phase, and within a phase kind by kind in table order, each kind's
 * actions as its rule gives them.  Made once, when all is planned:
 * from here on the list is the plan.
 */
static errcode_t plan_list(struct e2sr_ctx *ctx)
{
	struct list_fill f = { &ctx->plan, 0 };
	int phase, k;

	for (phase = 1; phase <= E2SR_PHASES; phase++)
		for (k = 0; k < E2SR_KIND_COUNT; k++)
			if (e2sr_kinds[k]->phase == phase)
				e2sr_kinds[k]->actions(ctx, list_add, &f);
	return f.err;
}

/*
 * Whether something may have left residue no history traces: a gap in
 * the journal's history, losses an earlier run could not answer, a
 * deleted file's map lost, or what a file in use had in a window no
 * bitmap copy accounts for, counted as the plan counts them below (a
 * file a live entry names is e2fsck's, not lost).
 */
static int untraced(const struct e2sr_ctx *ctx)
{
	const struct e2sr_file *f;
	size_t i;

	if (e2sr_coverage_pending(ctx) ||
	    ctx->coverage.how == E2SR_COVER_GAP)
		return 1;
	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		if (f->state == E2SR_STATE_LIVE &&
		    (f->map_status & E2SR_MAP_UNPROVEN))
			return 1;
		if (f->state == E2SR_STATE_LIVE ||
		    f->state == E2SR_STATE_ORPHAN ||
		    f->state == E2SR_STATE_UNCLEAR ||
		    (f->state == E2SR_STATE_DELETED &&
		     e2sr_live_inode(ctx, f->ino)))
			continue;
		if (f->map_status & E2SR_MAP_LOST)
			return 1;
	}
	return 0;
}

errcode_t e2sr_plan_build(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_plan *plan = &ctx->plan;
	size_t i, j;
	errcode_t err;
	int k;

	e2sr_plan_free(plan);
	e2sr_questions_replan(ctx);
	/* A plan made again needs the index the first one gave back. */
	if (ctx->history.released && ctx->journal) {
		err = e2sr_ring_history(ctx);
		if (err)
			return err;
	}
	err = ext2fs_allocate_block_bitmap(fs, "secure-delete data",
					   &plan->data_blocks);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "secure-delete metadata",
						   &plan->meta_blocks);
	if (err)
		return err;

	/*
	 * Known before the names are planned: the answer to what cannot
	 * be traced takes the removed names of every directory too.  It
	 * is whole only with the journal open, when there is one.
	 */
	plan->sanitize = ctx->opts.sanitize;
	plan->has_journal = ext2fs_has_feature_journal(fs->super);
	plan->untraced = untraced(ctx);
	if (plan->untraced && (plan->sanitize & E2SR_FREE_IF_LOST))
		plan->sanitize |= E2SR_UNTRACED_ANSWER;
	/* --sanitize takes all of those places too. */
	plan->answered = plan->untraced &&
			 (plan->sanitize & E2SR_UNTRACED_ANSWER) ==
			 E2SR_UNTRACED_ANSWER &&
			 (ctx->journal || !plan->has_journal);

	/* First: a live entry naming a "deleted" inode makes it unclear. */
	err = e2sr_names_plan(ctx);
	if (err)
		return err;
	for (i = 0; i < ctx->inv.count; i++) {
		struct e2sr_file *file = &ctx->inv.files[i];

		/* livemap.c refuses this; never plan on one source. */
		if (file->state == E2SR_STATE_DELETED &&
		    e2sr_live_inode(ctx, file->ino))
			file->state = E2SR_STATE_UNCLEAR;
		if (file->state == E2SR_STATE_ORPHAN ||
		    file->state == E2SR_STATE_UNCLEAR) {
			/* e2fsck settles these; we do not guess. */
			plan->left++;
			continue;
		}
		/*
		 * A live file's block that the bitmap calls free is a bitmap
		 * error, not a residue: only deleted maps are planned.
		 */
		for (j = 0; j < file->map_count; j++) {
			const struct e2sr_extent *e = &file->map[j];
			int data = e->kind == E2SR_EXT_DATA ||
				   e->kind == E2SR_EXT_UNWRITTEN;
			ext2fs_block_bitmap set = data ? plan->data_blocks :
						  plan->meta_blocks;

			if (!e->nfree)
				continue;
			if (file->state == E2SR_STATE_LIVE) {
				/* What truncate and punch cut away. */
				if (e->historic)
					plan_cut_away(ctx, set, file, e);
				continue;
			}
			plan_extent(ctx, set, e);
		}
		if (file->state == E2SR_STATE_LIVE) {
			/* Its windows, unaccounted for: blocks unknown. */
			if (file->map_status & E2SR_MAP_UNPROVEN)
				plan->unrecoverable++;
			continue;
		}
		if (file->state == E2SR_STATE_DELETED) {
			err = plan_add_inode(plan, file->ino);
			if (err)
				return err;
		}
		/* A part of the map we could not read: blocks unknown. */
		if (file->map_status & E2SR_MAP_LOST)
			plan->unrecoverable++;
	}
	/*
	 * What secure-delete files may have gained and lost between two
	 * full commits (discover.c, unseen.c): wiped as theirs, free by
	 * both sources.
	 */
	if (ctx->inv.unseen)
		plan->unseen_count = plan_unseen(ctx, plan->data_blocks);
	/* Free space the plan cannot narrow down: all of it, if asked. */
	if (plan->sanitize & E2SR_FREE_ALL) {
		err = e2sr_livemap_free_proven(ctx);
		if (err)
			return err;
		plan->free_all = 1;
		plan->free_count = e2sr_free_count(ctx);
	}
	/* Allocated, but holding old bytes: +s files', or all, as above. */
	err = e2sr_unwritten_plan(ctx);
	if (err)
		return err;
	plan->data_count = e2sr_bitmap_count(plan->data_blocks,
				     fs->super->s_first_data_block,
				     ext2fs_blocks_count(fs->super) - 1);
	plan->meta_count = e2sr_bitmap_count(plan->meta_blocks,
				     fs->super->s_first_data_block,
				     ext2fs_blocks_count(fs->super) - 1);
	/* Nothing e2fsck would give back to a file is wiped as freed. */
	err = e2sr_livemap_linked_check(ctx, plan->data_blocks);
	if (!err)
		err = e2sr_livemap_linked_check(ctx, plan->meta_blocks);
	if (!err)
		err = e2sr_plan_journal(ctx);
	/* Then the kinds that plan on their own, in table order. */
	for (k = 0; !err && k < E2SR_KIND_COUNT; k++)
		if (e2sr_kinds[k]->plan)
			err = e2sr_kinds[k]->plan(ctx);
	/*
	 * The plan is whole: nothing reads the journal's index after it,
	 * and the list is as big as the index was, so the index goes first.
	 */
	if (!err)
		e2sr_history_release(&ctx->history);
	if (!err)
		err = plan_list(ctx);
	return err;
}
