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
 * unwritten extents, which read as zeros before and after.  Which kind
 * belongs to which phase, and how each is checked, wiped and read back,
 * is the table of kinds.c: this file walks it, phase by phase.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <time.h>

#include "e2secrmP.h"

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

/*
 * Everything the writers will check just before they write, checked on
 * the read-only handle before anything is written: a plan that would
 * stop half-way is refused whole.  Kind by kind, in execute's order.
 */
errcode_t e2sr_execute_check(struct e2sr_ctx *ctx)
{
	errcode_t err;
	int phase, k;

	for (phase = 1; phase <= E2SR_PHASES; phase++)
		for (k = 0; k < E2SR_KIND_COUNT; k++) {
			if (e2sr_kinds[k]->phase != phase ||
			    !e2sr_kinds[k]->check)
				continue;
			err = e2sr_kinds[k]->check(ctx);
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
	int phase, k;

	for (phase = 1; phase <= E2SR_PHASES; phase++)
		for (k = 0; k < E2SR_KIND_COUNT; k++)
			if (e2sr_kinds[k]->phase == phase)
				e2sr_kinds[k]->actions(ctx, fn, data);
}

errcode_t e2sr_execute(struct e2sr_ctx *ctx)
{
	struct e2sr_stats *st = &ctx->stats;
	double *phase_time[E2SR_PHASES + 1] = {
		NULL, &st->time_blocks, &st->time_free, &st->time_records,
		&st->time_journal,
	};
	double t = seconds();
	errcode_t err = 0;
	int phase, k;

	if (ctx->open_flags & E2SR_OPEN_RDONLY)
		return E2SR_ERR_READ_ONLY;
	for (phase = 1; !err && phase <= E2SR_PHASES; phase++) {
		for (k = 0; !err && k < E2SR_KIND_COUNT; k++)
			if (e2sr_kinds[k]->phase == phase)
				err = e2sr_kinds[k]->wipe(ctx);
		phase_done(phase_time[phase], &t);
	}
	if (!err && ctx->opts.verify) {
		/* Blocks read back, then what the kinds rewrote in place. */
		err = e2sr_verify(ctx);
		for (k = 0; !err && k < E2SR_KIND_COUNT; k++)
			if (e2sr_kinds[k]->verify)
				err = e2sr_kinds[k]->verify(ctx);
		if (!err && st->verify_bad)
			err = E2SR_ERR_VERIFY;
		phase_done(&st->time_verify, &t);
	}
	return err;
}
