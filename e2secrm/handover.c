/*
 * handover.c --- what a run takes from the run before it on the same
 * filesystem, and what it leaves to the next.
 *
 * Owns when the state file (what the last successful run saw of the
 * journal: coverage) and the intent file (the lives a run that has not
 * ended is wiping: interruption) are read, written and removed, and what
 * is said when one cannot be used.  Reading and writing the files
 * themselves is state.c's; what they mean to a run is lib/'s
 * (coverage.c, intent.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <time.h>

#include <et/com_err.h>
#include <e2p/e2p.h>

#include "e2secrm.h"
#include "cmd.h"

/*
 * The lives a run cut before its end had proved secure-delete (its
 * intent file): this run takes them for such files as surely.  A file
 * that cannot be used is reported and taken as none.
 */
static void load_intent(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;
	struct e2sr_fs_mark mark;
	struct e2sr_life *lives;
	size_t n;
	int have_mark;
	errcode_t err;

	intent_read(o->state_dir, st->uuid, &lives, &n, &mark, &have_mark, st);
	if (st->intent == STATE_BAD) {
		com_err(program_name, 0, "%s: intent file %s: %s; taken as "
			"none", o->device, st->intent_path, st->why);
		return;
	}
	if (st->intent != STATE_READ)
		return;
	err = e2sr_intent_set(ctx, lives, n, have_mark ? &mark : NULL);
	ext2fs_free_mem(&lives);
	if (err) {
		com_err(program_name, err, "%s: while reading intent file %s; "
			"taken as none", o->device, st->intent_path);
		return;
	}
	if (n && !o->preen)
		printf("%s: an interrupted run proved %zu secure-delete "
		       "%s (%s): taken as proven\n", o->device, n,
		       n == 1 ? "life" : "lives", st->intent_path);
	/* Said with -p too: it may turn into a loss (exit bit 4). */
	if (n && ctx->prior_unproven)
		com_err(program_name, 0, "%s: intent file %s: the filesystem "
			"was mounted or checked since that run (or is another "
			"copy with its UUID): its maps are taken as this run "
			"finds them", o->device, st->intent_path);
}

/*
 * Before the first write: the lives this run wipes, saved and synced,
 * so that a run after a cut anywhere from here on still knows them
 * when what proved them is gone (DESIGN.md, rule 2).  Without it the
 * run goes on, and says that a cut may leave what a re-run cannot trace.
 */
void handover_save_intent(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;
	struct e2sr_fs_mark mark;
	struct e2sr_life *lives;
	size_t n;
	errcode_t err;

	if (st->intent == STATE_OFF)
		return;
	e2sr_intent_mark(ctx, &mark);
	err = e2sr_intent_lives(ctx, &lives, &n);
	if (err) {
		com_err(program_name, err, "warning: %s: while listing the "
			"lives to save in %s: a run cut from here on may leave "
			"what the next run cannot trace", o->device,
			st->intent_path);
		return;
	}
	if (n && intent_write(o->state_dir, st->uuid, lives, n, &mark,
				  st))
		com_err(program_name, 0, "warning: %s: intent file %s not "
			"written (%s): a run cut from here on may leave what "
			"the next run cannot trace", o->device,
			st->intent_path, st->why);
	ext2fs_free_mem(&lives);
}

/* The run has ended as planned: its intent, and any before it, is done. */
void handover_clear_intent(const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;

	if (st->intent == STATE_OFF || o->dry_run)
		return;
	if (intent_clear(o->state_dir, st->uuid, st))
		com_err(program_name, 0, "warning: %s: intent file %s not "
			"removed (%s)", o->device, st->intent_path, st->why);
}

/*
 * What the last run kept for an incremental run (its .since file).  A
 * state without one was written by a run that could not keep it (or by
 * an older version): the run is a full one, and says so.
 */
static void load_since(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;

	if (!st->have_since) {
		ctx->since.have_prev = 1;	/* without groups: STATE_OLD */
		return;
	}
	if (since_read(o->state_dir, st->uuid, st->since_crc,
		       &ctx->since.prev, st)) {
		snprintf(ctx->since.preset_why, sizeof(ctx->since.preset_why),
			 "%s", st->why);
		ctx->since.preset = E2SR_FULL_STATE_BAD;
		return;
	}
	ctx->since.have_prev = 1;
	/* The ring's facts: without them the journal is read whole. */
	if (o->full)
		return;		/* --full never takes them */
	switch (ring_read(o->state_dir, st->uuid, st->since_crc,
			  &ctx->since.ring_prev, st)) {
	case 0:
		ctx->since.have_ring = 1;
		break;
	case 1:
		break;
	default:
		snprintf(ctx->since.ring_preset,
			 sizeof(ctx->since.ring_preset), "%s", st->why);
		break;
	}
}

/*
 * What the previous run saw, before anything is decided: -n reads it
 * too, so that it says what -y would.  A file that cannot be used is
 * reported and taken as no previous run, not a refusal.
 */
void handover_load(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;
	struct e2sr_cover_prev prev;

	st->read = STATE_OFF;
	st->intent = STATE_OFF;
	ctx->since.force_full = o->full;
	ctx->since.full_days = o->full_days;
	ctx->since.trust = o->trust;
	ctx->since.ring_check = o->ring_check;
	ctx->since.keep_ring = !o->dry_run && !o->no_state;
	ctx->since.now = (__u64)time(NULL);
	if (o->no_state)
		return;
	snprintf(st->uuid, sizeof(st->uuid), "%s",
		 e2p_uuid2str(ctx->fs->super->s_uuid));
	load_intent(ctx, o);
	/* A journal on another device not given: nothing to count on. */
	if (!ctx->journal && ext2fs_has_feature_journal(ctx->fs->super))
		return;
	state_read(o->state_dir, st->uuid, &prev, st);
	/*
	 * Written when the filesystem had no journal (sequence 0, which
	 * jbd2 never uses): no point in this journal's history.  The gap
	 * this leaves covers the losses it may have carried.
	 */
	if (st->read == STATE_READ && ctx->journal && !prev.sequence) {
		com_err(program_name, 0, "%s: state file %s was written when "
			"the filesystem had no journal; taken as no previous "
			"run", o->device, st->path);
		st->read = STATE_NONE;
	}
	if (st->read == STATE_READ) {
		ctx->coverage.have_prev = 1;
		ctx->coverage.prev = prev;
		load_since(ctx, o);
	} else if (st->read == STATE_BAD) {
		com_err(program_name, 0, "%s: state file %s: %s; taken as no "
			"previous run", o->device, st->path, st->why);
		ctx->since.preset = E2SR_FULL_STATE_BAD;
	}
}

/*
 * What the next run rereads, and the filesystem as this one leaves it:
 * 0 with *@crc set, or -1 (a warning; the next run is then a full one).
 */
static int save_since(struct e2sr_ctx *ctx, const struct cmd_opts *o,
		      __u32 *crc)
{
	struct cmd_state *st = o->state;
	struct e2sr_since *s = &ctx->since;

	e2sr_since_capture_fs(ctx);
	if (!s->have_fs || !s->have_files)
		return -1;
	s->next.left = !!o->left;
	if (!since_write(o->state_dir, st->uuid, &s->next, crc, st)) {
		if (ring_write(o->state_dir, st->uuid, *crc,
			       e2sr_ring_keep(ctx), st))
			com_err(program_name, 0, "warning: %s: the ring "
				"file of %s not written (%s): the next run "
				"reads the journal whole", o->device, st->path,
				st->why);
		return 0;
	}
	com_err(program_name, 0, "warning: %s: the since file of %s not "
		"written (%s): the next run is a full one", o->device,
		st->path, st->why);
	return -1;
}

/*
 * What this run saw, for the next one: the next run counts everything
 * up to it as handled.  So never after a gap or a lost map no one
 * answered, and, when the wipe of every place they may lie answers them
 * (plan->answered), only once it is done (@early 0, at the end of a run
 * that wrote what it planned).  Unanswered, they are carried: the
 * previous run's state is written again with the losses counted (this
 * run wiped the records and copies that showed them, so the state is
 * the only trace left for the next run to report); with no previous
 * state the next run sees a gap anyway, but for a filesystem without a
 * journal, where the count is the only trace and a state is always
 * written.  With nothing to answer the state is written before the wipe
 * too (@early 1): a run cut in its journal wipe has wiped the blocks
 * first, and the re-run must not take the copies it wiped for maps lost
 * to the ring.  A failure is a warning: this run's work is done.
 */
void handover_save_state(struct e2sr_ctx *ctx, const struct cmd_opts *o,
			 int early)
{
	struct cmd_state *st = o->state;
	enum e2sr_cover_how how = ctx->coverage.how;
	int nojournal = !ctx->plan.has_journal;
	int complete = how == E2SR_COVER_CREATION ||
		       how == E2SR_COVER_PREVIOUS || nojournal;
	__u32 pending = e2sr_coverage_pending(ctx);
	int open = !complete || ctx->plan.unrecoverable || pending;
	struct e2sr_cover_prev now;
	int have_crc = 0;
	__u32 crc = 0;

	if (st->read == STATE_OFF || o->dry_run)
		return;
	if (early && open)
		return;
	if (open && !ctx->plan.answered) {
		if (nojournal) {
			/* No history: the count is all a state holds. */
			e2sr_coverage_next(ctx, &now);
			now.run_time = (__u64)time(NULL);
		} else if (!ctx->coverage.have_prev ||
			   ctx->coverage.prev_mismatch) {
			return;
		} else {
			now = ctx->coverage.prev;
		}
		now.unanswered = pending + (__u32)ctx->plan.unrecoverable +
				 !complete;
	} else {
		e2sr_coverage_next(ctx, &now);
		now.run_time = (__u64)time(NULL);
		/* At the end only: a cut run must not pass for done. */
		if (!early)
			have_crc = !save_since(ctx, o, &crc);
	}
	if (state_write(o->state_dir, st->uuid, &now, have_crc ? &crc : NULL,
			st))
		com_err(program_name, 0, "warning: %s: state file %s not "
			"written (%s): the next run cannot count on this one",
			o->device, st->path, st->why);
}
