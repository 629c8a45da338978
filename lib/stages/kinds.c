/*
 * kinds.c --- the residue kinds a run wipes, as one table.
 *
 * Owns, for each kind: its names (the report's line, the record's row,
 * the JSON key), what the plan holds of it, its rule (the actions it
 * puts in the plan's list, in write order), when the report lists it,
 * the phase of execute and the progress stage it belongs to, and its
 * check, write and read-back steps, each given its slice of the list;
 * what was wiped is counted by kind in ctx->stats.wiped.  plan.c runs
 * the .plan of the kinds that plan on their own and makes the list from
 * the rules; execute.c walks the list (as e2fsck walks its pass table);
 * the command prints from the table.  How a kind is found and planned is
 * its own file's (dirent.c, unwritten.c, plan_journal.c, plan.c); how a
 * block is written is wipe_io.c's and wipe_journal.c's, the guard of
 * every write guard.c's.
 *
 * A kind can be one file: free_inodes.c defines its whole struct
 * e2sr_kind, keeps its plan in ctx->plan.kind_data, and has one row
 * here.  Adding a kind that way is its file, its row, and its name in
 * enum e2sr_kind_id.
 *
 * The table is in the order the reports list the kinds.  The phases are
 * the crash-safe order: freed blocks first, then the blocks of free
 * space and of live files' unwritten extents, then the names and
 * records that map to the blocks, then the journal copies that map to
 * everything else (execute.c says why).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "plan.h"
#include "write.h"
#include "kinds.h"

/* An action of @kind and @why, its target still to be set. */
static void action_init(struct e2sr_action *a, int kind, int why)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->why = why;
}

/* Each run of @map, as the writer will put it out. */
static void map_actions(const struct e2sr_ctx *ctx, ext2fs_block_bitmap map,
			int kind, e2sr_action_fn fn, void *data)
{
	ext2_filsys fs = ctx->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t start = fs->super->s_first_data_block, end;
	struct e2sr_action a;

	action_init(&a, kind, E2SR_WHY_FREED);
	while (e2sr_next_run(map, 1, &start, last, &end)) {
		a.blk = start;
		a.count = end - start;
		fn(data, &a);
		start = end;
	}
}

/* Every run passes the check the writer will make. */
static errcode_t runs_check(struct e2sr_ctx *ctx, const struct e2sr_action *a,
			    size_t n)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < n; i++) {
		err = e2sr_wipe_check_free(ctx, a[i].blk, a[i].count);
		if (err) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "blocks %llu-%llu",
				 (unsigned long long)a[i].blk,
				 (unsigned long long)(a[i].blk + a[i].count -
						      1));
			return err;
		}
	}
	return 0;
}

/* ---- freed data and metadata blocks ---- */

static void data_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.data_count;
}

static void data_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			 void *data)
{
	map_actions(ctx, ctx->plan.data_blocks, E2SR_KIND_DATA, fn, data);
}

static void meta_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.meta_count;
}

static void meta_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			 void *data)
{
	map_actions(ctx, ctx->plan.meta_blocks, E2SR_KIND_META, fn, data);
}

/* ---- removed directory entries ---- */

static void names_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.name_count;
}


static void names_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			  void *data)
{
	size_t i;

	for (i = 0; i < ctx->plan.name_count; i++)
		fn(data, &ctx->plan.names[i]);
}

/* ---- deleted inode records ---- */

static void records_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.inode_count;
}

static void record_action(ext2_ino_t ino, struct e2sr_action *a)
{
	action_init(a, E2SR_KIND_RECORDS, E2SR_WHY_RECORD);
	a->owner = a->ino = ino;
	a->count = 1;
}

static void records_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			    void *data)
{
	struct e2sr_action a;
	size_t i;

	for (i = 0; i < ctx->plan.inode_count; i++) {
		record_action(ctx->plan.inodes[i], &a);
		fn(data, &a);
	}
}

static errcode_t records_check(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < n; i++) {
		err = e2sr_wipe_check_record(ctx, a[i].ino, 0);
		/* Flags and map that agree, as when it was planned. */
		if (!err)
			err = e2sr_record_check(ctx, a[i].ino);
		if (err)
			return err;
	}
	return 0;
}

/* After the names: the records are what says which inodes were +s. */
static errcode_t records_apply(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < n; i++) {
		if (e2sr_cancelled(ctx))
			return E2SR_ERR_CANCELLED;
		err = e2sr_scrub_inode(ctx, a[i].ino);
		if (err)
			return err;
		e2sr_action_done(ctx, &a[i]);
		e2sr_wipe_advance(ctx, 1);
	}
	return 0;
}

/* ---- stale journal copies ---- */

static void journal_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.journal_blocks;
}

/* The plan's entries for journal block @jb: [*lo, return). */
static size_t jplan_range(const struct e2sr_plan *plan, __u32 jb, size_t *lo)
{
	size_t a = 0, b = plan->journal_count, mid;

	while (a < b) {
		mid = a + (b - a) / 2;
		if (plan->journal[mid].jblock < jb)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	return a < plan->journal_count && plan->journal[a].jblock == jb ?
	       e2sr_jplan_block_end(plan, a) : a;
}

/*
 * In wipe_journal.c's order, stage by stage (enum e2sr_jstage): each
 * transaction sealed again first, its descriptor then its copies,
 * written in one piece; then the other copies written in part, then the
 * others whole.
 */
static void journal_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			    void *data)
{
	const struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_action a;
	size_t i, k, end, lo, hi;
	int stage;

	for (stage = 0; stage < E2SR_JSTAGES; stage++) {
		for (i = 0; i < plan->seal_count; i = end) {
			for (end = i + 1; end < plan->seal_count &&
			     plan->seals[end].desc == plan->seals[i].desc &&
			     plan->seals[end].stage == plan->seals[i].stage;
			     end++)
				;
			if (plan->seals[i].stage != stage)
				continue;
			hi = jplan_range(plan, plan->seals[i].desc, &lo);
			for (; lo < hi; lo++) {
				if (plan->journal[lo].stage != stage)
					continue;
				e2sr_journal_action(&plan->journal[lo], &a);
				fn(data, &a);
			}
			for (k = i; k < end; k++) {
				hi = jplan_range(plan, plan->seals[k].jblock,
						 &lo);
				for (; lo < hi; lo++) {
					e2sr_journal_action(&plan->journal[lo],
							    &a);
					fn(data, &a);
				}
			}
		}
		for (i = 0; i < plan->journal_count; i = end) {
			end = e2sr_jplan_block_end(plan, i);
			if (!plan->journal[i].len || plan->journal[i].sealed ||
			    plan->journal[i].stage != stage)
				continue;
			for (; i < end; i++) {
				e2sr_journal_action(&plan->journal[i], &a);
				fn(data, &a);
			}
		}
		for (i = 0; i < plan->journal_count; i++) {
			const struct e2sr_jplan *jp = &plan->journal[i];

			if (jp->len || jp->sealed || jp->stage != stage)
				continue;
			e2sr_journal_action(jp, &a);
			fn(data, &a);
		}
	}
}

static errcode_t journal_check(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n)
{
	errcode_t err;
	size_t i;

	/* Stale copies may go only once the journal is empty. */
	if (ctx->journal && ctx->journal->jsb.start &&
	    ctx->replay.how != E2SR_RECOVERY_VIEW)
		return E2SR_ERR_JOURNAL_LIVE;
	for (i = 0; i < n; i++) {
		err = e2sr_wipe_journal_place(ctx, a[i].blk, 1);
		if (err) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "journal block %llu",
				 (unsigned long long)a[i].blk);
			return err;
		}
	}
	return 0;
}

/* ---- all free blocks (--all-free, --all-free-if-lost) ---- */

static int all_free_shown(const struct e2sr_ctx *ctx)
{
	return ctx->plan.free_all;
}

static void all_free_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.free_all ? ctx->plan.free_count : 0;
}

static int all_free_why(const struct e2sr_ctx *ctx)
{
	return ctx->opts.sanitize & E2SR_FREE_ALL ? E2SR_WHY_FREE_ALL :
						   E2SR_WHY_FREE_IF_LOST;
}

static void all_free_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			     void *data)
{
	ext2_filsys fs = ctx->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t start = fs->super->s_first_data_block, end;
	struct e2sr_action a;

	if (!ctx->plan.free_all)
		return;
	action_init(&a, E2SR_KIND_ALL_FREE, all_free_why(ctx));
	while (e2sr_free_run(ctx, &start, last, &end)) {
		a.blk = start;
		a.count = end - start;
		fn(data, &a);
		start = end;
	}
}

/* ---- unwritten extents of live files ---- */

static int unwritten_shown(const struct e2sr_ctx *ctx)
{
	return ctx->plan.unwritten_count != 0;
}

static void unwritten_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = ctx->plan.unwritten_count;
}

static void unwritten_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
			      void *data)
{
	struct e2sr_action a;
	size_t i;

	for (i = 0; i < ctx->plan.unwritten_runs; i++) {
		e2sr_unwritten_action(&ctx->plan.unwritten[i], &a);
		fn(data, &a);
	}
}

static const struct e2sr_kind kind_data = {
	.count = { { "data_blocks", "freed data",
		     "freed data blocks", "blocks" } },
	.phase = 1,
	.planned = data_planned,
	.actions = data_actions,
	.stage = E2SR_STAGE_WIPE_BLOCKS,
	.check = runs_check, .apply = e2sr_wipe_runs,
};

static const struct e2sr_kind kind_meta = {
	.count = { { "metadata_blocks", "freed metadata",
		     "freed metadata blocks", "blocks" } },
	.phase = 1,
	.planned = meta_planned,
	.actions = meta_actions,
	.stage = E2SR_STAGE_WIPE_BLOCKS,
	.check = runs_check, .apply = e2sr_wipe_runs,
};

static const struct e2sr_kind kind_names = {
	.count = { { "names", "removed directory names",
		     "removed directory names", "entries" } },
	.phase = 3,
	.planned = names_planned,
	.actions = names_actions,
	.stage = E2SR_STAGE_NAMES,
	.check = e2sr_names_check, .apply = e2sr_names_apply,
};

static const struct e2sr_kind kind_records = {
	.count = { { "inode_records", "deleted inode records",
		     "deleted inode records", "records" } },
	.phase = 3,
	.planned = records_planned,
	.actions = records_actions,
	.stage = E2SR_STAGE_SCRUB_INODES,
	.check = records_check, .apply = records_apply,
};

static const struct e2sr_kind kind_journal = {
	.count = { { "journal_blocks", "stale journal copies",
		     "stale journal copies", "blocks" } },
	.phase = 4,
	.planned = journal_planned,
	.actions = journal_actions,
	.stage = E2SR_STAGE_JOURNAL,
	.check = journal_check, .apply = e2sr_wipe_journal_apply,
};

/*
 * The free blocks that a record whose flags or maps contradict each
 * other may map, read as e2fsck may read it, are kept out of the free
 * space (livemap.c): left, once the free space is planned.
 */
static errcode_t all_free_plan(struct e2sr_ctx *ctx)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	errcode_t err;
	size_t i;

	if (!ctx->plan.free_all)
		return 0;
	for (i = 0; i < inv->question_count; i++) {
		if (!(inv->questions[i].seen & E2SR_LEFT_BLOCKS))
			continue;
		err = e2sr_question_leave(ctx, inv->questions[i].ino,
					  inv->questions[i].why,
					  E2SR_LEFT_BLOCKS);
		if (err)
			return err;
	}
	return 0;
}

static const struct e2sr_kind kind_all_free = {
	.count = { { "all_free_blocks", "all free blocks",
		     "all free blocks", "blocks" } },
	.phase = 2,
	.shown = all_free_shown,
	.plan = all_free_plan,
	.planned = all_free_planned,
	.actions = all_free_actions,
	.stage = E2SR_STAGE_FREE,
	.check = runs_check, .apply = e2sr_wipe_runs,
};

static const struct e2sr_kind kind_unwritten = {
	.count = { { "unwritten_blocks", "unwritten extents",
		     "unwritten extent blocks", "blocks" } },
	.phase = 2,
	.shown = unwritten_shown,
	.planned = unwritten_planned,
	.actions = unwritten_actions,
	.stage = E2SR_STAGE_UNWRITTEN,
	.check = e2sr_unwritten_check, .apply = e2sr_unwritten_apply,
};

/*
 * The table: one row per kind, in the order the reports list them.  A
 * kind whose code is all in its own file defines its struct there.
 */
const struct e2sr_kind *const e2sr_kinds[E2SR_KIND_COUNT] = {
	[E2SR_KIND_DATA] = &kind_data,
	[E2SR_KIND_META] = &kind_meta,
	[E2SR_KIND_NAMES] = &kind_names,
	[E2SR_KIND_RECORDS] = &kind_records,
	[E2SR_KIND_JOURNAL] = &kind_journal,
	[E2SR_KIND_ALL_FREE] = &kind_all_free,
	[E2SR_KIND_UNWRITTEN] = &kind_unwritten,
	[E2SR_KIND_FREE_RECORDS] = &e2sr_kind_free_records,
};

/* Whether the report lists kind @k for this run. */
int e2sr_kind_shown(const struct e2sr_ctx *ctx, enum e2sr_kind_id k)
{
	return !e2sr_kinds[k]->shown || e2sr_kinds[k]->shown(ctx);
}

/* What the plan holds of every kind, or what was wiped (@done). */
void e2sr_kind_counts(const struct e2sr_ctx *ctx, int done,
		      uint64_t n[E2SR_KIND_COUNT][2])
{
	int k;

	for (k = 0; k < E2SR_KIND_COUNT; k++) {
		n[k][0] = n[k][1] = 0;
		if (done) {
			n[k][0] = ctx->stats.wiped[k][0];
			n[k][1] = ctx->stats.wiped[k][1];
		} else {
			e2sr_kinds[k]->planned(ctx, n[k]);
		}
	}
}

/* The name of a rule (enum e2sr_why): the reports' and the JSON's. */
const char *e2sr_why_key(int why)
{
	static const char *const keys[E2SR_WHY_COUNT] = {
		[E2SR_WHY_FREED] = "freed",
		[E2SR_WHY_ENTRY] = "entry",
		[E2SR_WHY_ENTRY_JOURNAL] = "entry_named_in_journal",
		[E2SR_WHY_NAME_BYTES] = "name_bytes",
		[E2SR_WHY_DIR_SLACK] = "dir_slack",
		[E2SR_WHY_RECORD] = "record",
		[E2SR_WHY_FREE_ALL] = "all_free",
		[E2SR_WHY_FREE_IF_LOST] = "all_free_if_lost",
		[E2SR_WHY_UNWRITTEN] = "unwritten",
		[E2SR_WHY_FREE_RECORD] = "free_record",
		[E2SR_WHY_REUSED_SLACK] = "reused_slack",
		[E2SR_WHY_SLACK_BYTES] = "slack_bytes",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_RECORD] = "journal_record",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_MAP] = "journal_map",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_NAME] = "journal_name",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_FC] = "journal_fast_commit",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_DESC] = "journal_descriptor",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_ALL] = "journal_all",
		[E2SR_WHY_JOURNAL + E2SR_JWHY_NAMEBYTES] = "journal_name_bytes",
	};

	if (why < 0 || why >= E2SR_WHY_COUNT || !keys[why])
		return "unknown";
	return keys[why];
}

/* The name of a journal stage (enum e2sr_jstage): the JSON's. */
const char *e2sr_jstage_key(int stage)
{
	static const char *const keys[E2SR_JSTAGES] = {
		[E2SR_JSTAGE_BYTES] = "bytes",
		[E2SR_JSTAGE_COPIES] = "copies",
		[E2SR_JSTAGE_RECORDS] = "records",
		[E2SR_JSTAGE_FLAGGED] = "flagged",
	};

	if (stage < 0 || stage >= E2SR_JSTAGES || !keys[stage])
		return "unknown";
	return keys[stage];
}

/* What the progress line says of each stage (e2fsck -C's words). */
const char *e2sr_stage_label(enum e2sr_stage stage)
{
	static const char *const labels[] = {
		[E2SR_STAGE_SCAN] = "Scanning inodes",
		[E2SR_STAGE_WIPE_BLOCKS] = "Wiping freed blocks",
		[E2SR_STAGE_SCRUB_INODES] = "Scrubbing inode records",
		[E2SR_STAGE_NAMES] = "Wiping removed names",
		[E2SR_STAGE_JOURNAL] = "Wiping journal copies",
		[E2SR_STAGE_FREE] = "Wiping all free blocks",
		[E2SR_STAGE_UNWRITTEN] = "Zeroing unwritten extents",
		[E2SR_STAGE_FREE_INODES] = "Scrubbing free inodes",
		[E2SR_STAGE_SCAN_ITABLES] = "Reading inode tables",
	};

	if ((unsigned int)stage >= sizeof(labels) / sizeof(labels[0]) ||
	    !labels[stage])
		return "";
	return labels[stage];
}
