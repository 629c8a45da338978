/*
 * plan_journal_settle.c --- settling the journal plan against the log.
 *
 * Once everything is planned (plan_journal.c), owns making the entries
 * what the writer takes: one entry per whole block or the block's parts
 * merged, nothing outside the log; each copy shared with other files'
 * residue read once, planned whole if its parts are all it holds, its
 * parts already zero dropped, the rest given the block's checksum before
 * and after; whole blocks already zero dropped; each block at one stage.
 * Then the seals (plan_journal_seal.c).  Only the blocks settling reads
 * are read, in log order.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_journal_int.h"
#include "e2secrm.h"
#include "util.h"

/*
 * One entry per whole block, or the block's parts with overlaps merged;
 * nothing outside the log and fast-commit area.
 */
static errcode_t sort_unique(struct e2sr_plan *plan,
			     const struct e2sr_jsb *jsb)
{
	struct e2sr_jplan *e, *last;
	size_t i, n = 0;
	errcode_t err;

	/* Sorted before, then added to: the additions are merged in. */
	err = e2sr_sort_tail(plan->journal, plan->journal_count,
			     sizeof(*plan->journal), e2sr_jplan_cmp);
	if (err)
		return err;
	for (i = 0; i < plan->journal_count; i++) {
		e = &plan->journal[i];
		last = n ? &plan->journal[n - 1] : NULL;
		if (e->jblock < jsb->first || e->jblock >= jsb->maxlen)
			continue;
		if (last && last->jblock == e->jblock) {
			/* What it takes along goes at its stage. */
			if (!last->len || e->off <= last->off + last->len) {
				if (e->stage > last->stage)
					last->stage = e->stage;
			}
			if (!last->len)
				continue;	/* the whole block goes */
			if (e->off <= last->off + last->len) {
				if (e->off + e->len > last->off + last->len)
					last->len = e->off + e->len -
						    last->off;
				continue;
			}
		}
		plan->journal[n++] = *e;
	}
	plan->journal_count = n;
	return 0;
}

/*
 * The copies shared with other files' residue, each read once.  One
 * whose parts are all it holds is left all zero by them: plan it whole,
 * so that its descriptor goes with it, as the next run, seeing a zero
 * copy, would plan.  Of the others, parts already zero are dropped (a
 * run cut after writing them; an entry out of the log's range goes at
 * the next sort_unique), and the rest carry the block's checksum as it
 * is, which the writer checks, and, for --verify, which reads the block
 * back, as it will be.
 */
static errcode_t settle_shared(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	unsigned int bs = ctx->journal->blocksize;
	const unsigned char *data;
	unsigned char *after;
	__u32 before_crc, after_crc;
	size_t i, k, end;
	errcode_t err = 0;

	err = ext2fs_get_mem(bs, &after);
	if (err)
		return err;
	for (i = 0; i < plan->journal_count; i = end) {
		end = e2sr_jplan_block_end(plan, i);
		if (!plan->journal[i].len)
			continue;
		err = e2sr_journal_block(ctx->journal,
					 plan->journal[i].jblock, &data);
		if (err)
			break;
		memcpy(after, data, bs);
		for (k = i; k < end; k++)
			if (plan->journal[k].off < bs &&
			    plan->journal[k].len <= bs - plan->journal[k].off)
				memset(after + plan->journal[k].off, 0,
				       plan->journal[k].len);
		if (e2sr_all_zero(after, bs)) {
			for (k = i; k < end; k++)
				plan->journal[k].off = plan->journal[k].len = 0;
			continue;
		}
		before_crc = e2sr_crc32c_le(~0U, data, bs);
		after_crc = ctx->opts.verify ?
			    e2sr_crc32c_le(~0U, after, bs) : 0;
		for (k = i; k < end; k++) {
			struct e2sr_jplan *e = &plan->journal[k];

			if (e->off >= bs || e->len > bs - e->off ||
			    e2sr_all_zero(data + e->off, e->len)) {
				e->jblock = ~0U;
				continue;
			}
			e->crc_before = before_crc;
			e->crc_after = after_crc;
			e->settled = 1;
		}
	}
	ext2fs_free_mem(&after);
	return err;
}

/*
 * A block goes once: at the latest stage of what is planned in it, but
 * one with bytes of names goes with the bytes, before the entries of
 * other blocks, which say those bytes are names, unless it holds record
 * versions too.
 */
static void block_stages(struct e2sr_plan *plan)
{
	size_t i, k, end;
	__u8 stage;
	int bytes;

	for (i = 0; i < plan->journal_count; i = end) {
		end = e2sr_jplan_block_end(plan, i);
		for (stage = 0, bytes = 0, k = i; k < end; k++) {
			if (plan->journal[k].stage > stage)
				stage = plan->journal[k].stage;
			bytes |= plan->journal[k].why == E2SR_JWHY_NAMEBYTES;
		}
		if (bytes && stage == E2SR_JSTAGE_COPIES)
			stage = E2SR_JSTAGE_BYTES;
		for (k = i; k < end; k++)
			plan->journal[k].stage = stage;
	}
}

/*
 * A copy planned whole is zeroed (wipe_io.c), and its descriptor stays:
 * the other copies of its transaction keep saying which block they copy
 * and when, which is what tells a plain file's entry from a
 * secure-delete file's (plain_life()) and what coverage rests on.  A
 * second run finds the copy attributed and all zero: nothing in it.  A
 * copy written in part keeps its descriptor too: the rest of it is other
 * files'.  Blocks and parts already all zero are not written again.
 */
static errcode_t settle_blocks(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_jwalk *w = &ctx->history.walk;
	const struct e2sr_jsb *jsb = &ctx->journal->jsb;
	const struct e2sr_jblock *b;
	const unsigned char *data;
	size_t i, n, end, kept;
	errcode_t err;

	err = sort_unique(plan, jsb);
	if (!err)
		err = settle_shared(ctx);
	if (err)
		return err;
	err = sort_unique(plan, jsb);
	if (err)
		return err;
	plan->journal_blocks = plan->journal_parts = 0;
	for (i = n = 0; i < plan->journal_count; i = end) {
		end = e2sr_jplan_block_end(plan, i);
		if (plan->journal[i].len) {
			/*
			 * Settled by settle_shared(); nothing plans parts
			 * after it.  A part without its crcs would be
			 * refused only at the write: refuse it here.
			 */
			for (kept = 0; i + kept < end; kept++) {
				if (!plan->journal[i + kept].settled)
					return EXT2_ET_INVALID_ARGUMENT;
				plan->journal[n + kept] =
					plan->journal[i + kept];
			}
			n += kept;
			if (kept) {
				plan->journal_blocks++;
				plan->journal_parts++;
			}
			continue;
		}
		/* The walk looked at the copies; the rest are read here. */
		b = NULL;
		if (w->nblocks)
			b = bsearch(&plan->journal[i].jblock, w->blocks,
				    w->nblocks, sizeof(*w->blocks),
				    e2sr_jplan_cmp_walk);
		if (b) {
			if (b->zero)
				continue;
		} else if (plan->journal[i].why != E2SR_JWHY_DESC) {
			/* A descriptor the walk followed begins with magic. */
			err = e2sr_journal_block(ctx->journal,
						 plan->journal[i].jblock,
						 &data);
			if (err)
				return err;
			if (e2sr_all_zero(data, ctx->journal->blocksize))
				continue;
		}
		plan->journal[n++] = plan->journal[i];
		plan->journal_blocks++;
	}
	plan->journal_count = n;
	block_stages(plan);
	return e2sr_jplan_seals(ctx);
}

/*
 * Settling reads again, in log order, the shared copies and the whole
 * blocks the walk did not attribute: say which, so that only they are
 * read.
 */
errcode_t e2sr_jplan_settle(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_jsb *jsb = &ctx->journal->jsb;
	__u8 *want;
	__u32 jb;
	size_t i;
	errcode_t err;

	err = ext2fs_get_memzero(jsb->maxlen / 8 + 1, &want);
	if (err)
		return err;
	for (i = 0; i < plan->journal_count; i++) {
		jb = plan->journal[i].jblock;
		if (jb < jsb->maxlen && plan->journal[i].why != E2SR_JWHY_DESC)
			want[jb >> 3] |= 1 << (jb & 7);
	}
	e2sr_journal_want(ctx->journal, want, 0, jsb->maxlen);
	err = settle_blocks(ctx);
	e2sr_journal_want(ctx->journal, NULL, 0, 0);
	ext2fs_free_mem(&want);
	return err;
}
