/*
 * execute.c --- carrying out the plan's list of actions, in order.
 *
 * The plan is one list of typed actions (plan.c makes it from the
 * kinds' rules), in the crash-safe order: freed data and metadata blocks
 * first (and, when planned, all free space and the unwritten extents of
 * live files); then removed directory entries and the inode records;
 * then the stale journal copies.  Each phase's targets are the map to
 * the earlier ones: a run cut before a phase leaves what a re-run
 * follows to the same blocks, and a cut anywhere leaves a consistent
 * filesystem, because nothing written here is in use but unwritten
 * extents, which read as zeros before and after.
 *
 * This file walks the list as e2fsck walks its pass table: each slice of
 * one kind's actions goes to that kind's check (all of them, before the
 * first write) and then to its writer (kinds.c's table says which),
 * which checks every target again just before it writes it; each slice
 * is flushed before the next.  What -n lists is this list.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <time.h>

#include "e2secrm.h"
#include "write.h"
#include "plan.h"

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

/* The end of the slice of @list that starts at @i: one kind's actions. */
static size_t slice_end(const struct e2sr_plan *plan, size_t i)
{
	size_t end = i + 1;

	while (end < plan->action_count &&
	       plan->actions[end].kind == plan->actions[i].kind)
		end++;
	return end;
}

/*
 * Everything the writers will check just before they write, checked on
 * the read-only handle before anything is written: a plan that would
 * stop half-way is refused whole.  The list, slice by slice of a kind.
 */
errcode_t e2sr_execute_check(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_kind *k;
	errcode_t err;
	size_t i, end;

	for (i = 0; i < plan->action_count; i = end) {
		end = slice_end(plan, i);
		k = e2sr_kinds[plan->actions[i].kind];
		if (!k->check)
			continue;
		err = k->check(ctx, plan->actions + i, end - i);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Every action of the plan, in the order e2sr_execute() writes them:
 * what -n lists, and what the hooks' done() is told of, one by one, as
 * -y writes.
 */
void e2sr_plan_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
		       void *data)
{
	size_t i;

	for (i = 0; i < ctx->plan.action_count; i++)
		fn(data, &ctx->plan.actions[i]);
}

/*
 * The list, slice by slice of a kind, each given to its kind's writer
 * and flushed before the next: what a slice writes is on disk before
 * anything that maps to it is overwritten.
 */
errcode_t e2sr_execute(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_stats *st = &ctx->stats;
	double *phase_time[E2SR_PHASES + 1] = {
		NULL, &st->time_blocks, &st->time_free, &st->time_records,
		&st->time_journal,
	};
	blk64_t units[E2SR_STAGE_COUNT] = { 0 };
	const struct e2sr_kind *k;
	double t = seconds();
	errcode_t err = 0;
	size_t i, end;
	int phase = 1;

	if (ctx->open_flags & E2SR_OPEN_RDONLY)
		return E2SR_ERR_READ_ONLY;
	/* What each stage of the progress counts to. */
	for (i = 0; i < plan->action_count; i++)
		units[e2sr_kinds[plan->actions[i].kind]->stage] +=
			plan->actions[i].count;
	for (i = 0; !err && i < plan->action_count; i = end) {
		end = slice_end(plan, i);
		k = e2sr_kinds[plan->actions[i].kind];
		for (; phase < k->phase; phase++)
			phase_done(phase_time[phase], &t);
		e2sr_wipe_stage(ctx, k->stage, units[k->stage]);
		err = k->apply(ctx, plan->actions + i, end - i);
		if (!err)
			err = io_channel_flush(ctx->fs->io);
	}
	for (; phase <= E2SR_PHASES; phase++)
		phase_done(phase_time[phase], &t);
	if (!err && ctx->opts.verify) {
		/* Blocks read back, then what the kinds rewrote in place. */
		err = e2sr_verify(ctx);
		for (i = 0; !err && i < E2SR_KIND_COUNT; i++)
			if (e2sr_kinds[i]->verify)
				err = e2sr_kinds[i]->verify(ctx);
		if (!err && st->verify_bad)
			err = E2SR_ERR_VERIFY;
		phase_done(&st->time_verify, &t);
	}
	return err;
}

/*
 * After the last write, before the filesystem is closed: what the run
 * wrote of the log, taken back into the facts the next run starts from
 * (ring_since.c), and the names index of the blocks it wrote in part
 * (plan_journal_names.c).  Reads only.
 */
errcode_t e2sr_settle(struct e2sr_ctx *ctx)
{
	errcode_t err;

	err = e2sr_ring_settle(ctx);
	if (!err)
		err = e2sr_jplan_index_written(ctx);
	return err;
}

/*
 * --audit: the plan's places read instead of written, on the read-only
 * handle with the caches off, as --verify reads them after a run.  What
 * the plan found by its bytes (a removed name, a deleted record) is
 * residue by the reading that found it; every block of the scope is read
 * and counted when it is not all zeros.  The scope is the plan's: the
 * targeted default, or what --sanitize and its parts add.
 */
errcode_t e2sr_audit(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_action *a;
	size_t i;
	errcode_t err;
	int k;

	err = e2sr_verify(ctx);
	for (k = 0; !err && k < E2SR_KIND_COUNT; k++)
		if (e2sr_kinds[k]->verify)
			err = e2sr_kinds[k]->verify(ctx);
	for (i = 0; !err && i < plan->action_count; i++) {
		a = &plan->actions[i];
		if (a->kind != E2SR_KIND_NAMES && a->kind != E2SR_KIND_RECORDS)
			continue;
		/* Named by inode: the record's, or the directory's. */
		e2sr_verify_read(ctx, a->kind, 1);
		e2sr_verify_bad(ctx, a->kind, a->ino);
	}
	return err;
}

/* What an audit found still holding residue, all kinds. */
blk64_t e2sr_audit_unwiped(const struct e2sr_ctx *ctx)
{
	blk64_t n = 0;
	int k;

	for (k = 0; k < E2SR_KIND_COUNT; k++)
		n += ctx->stats.unwiped[k];
	return n;
}
