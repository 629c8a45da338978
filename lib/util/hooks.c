/*
 * hooks.c --- the command's hooks, as lib/ checks them: a cancel flag set
 * from a signal handler, a progress callback, and one told of every
 * action of the plan as it is written.
 *
 * Owns the one way lib/ asks whether the run was cancelled and reports
 * progress, so that a hook left unset is handled in one place.  What the
 * hooks do is the command's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include "e2secrm.h"
#include "util.h"

/* Whether the run was asked to stop: checked at every safe point. */
int e2sr_cancelled(const struct e2sr_ctx *ctx)
{
	return ctx->hooks.cancel && *ctx->hooks.cancel;
}

/* Whether anyone is told of progress (a count may be worth making). */
int e2sr_progress_on(const struct e2sr_ctx *ctx)
{
	return ctx->hooks.progress != NULL;
}

void e2sr_progress(const struct e2sr_ctx *ctx, enum e2sr_stage stage,
		   unsigned long long cur, unsigned long long max)
{
	if (ctx->hooks.progress)
		ctx->hooks.progress(ctx->hooks.progress_data, stage, cur, max);
}

/* Tell whoever listens that action @a of the plan is written. */
void e2sr_action_done(const struct e2sr_ctx *ctx, const struct e2sr_action *a)
{
	if (ctx->hooks.done)
		ctx->hooks.done(ctx->hooks.done_data, a);
}
