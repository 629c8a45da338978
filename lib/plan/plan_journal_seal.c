/*
 * plan_journal_seal.c --- the journal plan's seals.
 *
 * With checksums in the log, a copy the plan rewrites no longer matches
 * its descriptor's tag.  Owns the seals: for each such copy that matched
 * and goes in one write with its descriptor, the tag as it will be, and
 * for each descriptor and stage the descriptor block as its seals leave
 * it, planned as its own entry (E2SR_JWHY_DESC).  Which entries there
 * are and what they hold is settled before (plan_journal_settle.c); the
 * writer (wipe_io.c) writes a descriptor with its copies.
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

static int cmp_seal(const void *a, const void *b)
{
	const struct e2sr_seal *x = a, *y = b;

	if (x->desc != y->desc)
		return x->desc < y->desc ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Which tag of descriptor @desc tags log block @jb: the ring's count. */
static __u32 tag_index(const struct e2sr_jsb *jsb, __u32 desc, __u32 jb)
{
	if (jb > desc)
		return jb - desc - 1;
	return (jsb->last - desc - 1) + (jb - jsb->first);
}

/*
 * How far past descriptor @desc the log runs on, one block after the
 * other in the log (no wrap) and on the device, within one write: the
 * copies a seal can take along in the same write (wipe_io.c).
 */
static __u32 seal_reach(const struct e2sr_journal *j, __u32 desc)
{
	__u32 max = E2SR_SEAL_SPAN_BYTES / j->blocksize, n;
	blk64_t phys = e2sr_journal_phys(j, desc);

	for (n = 1; n < max && desc + n < j->jsb.last; n++)
		if (e2sr_journal_phys(j, desc + n) != phys + n)
			break;
	return n - 1;
}

/* The copy @i.. of the plan as it will be written, in @after. */
static errcode_t planned_image(struct e2sr_ctx *ctx, size_t i, size_t end,
			       unsigned char *after)
{
	const struct e2sr_plan *plan = &ctx->plan;
	unsigned int bs = ctx->journal->blocksize;
	const unsigned char *data;
	errcode_t err;
	size_t k;

	memset(after, 0, bs);
	if (!plan->journal[i].len)
		return 0;	/* zeros, whatever the method */
	err = e2sr_journal_block(ctx->journal, plan->journal[i].jblock, &data);
	if (err)
		return err;
	memcpy(after, data, bs);
	for (k = i; k < end; k++)
		memset(after + plan->journal[k].off, 0, plan->journal[k].len);
	return 0;
}

/*
 * With checksums in the log, a copy rewritten no longer matches its tag,
 * and a later run would take it for a block a later transaction wrote
 * over: what is left in it (other files' records and entries, which tell
 * a plain file's name from a secure-delete file's) would be lost to it.
 * So each tag of a copy the plan writes, which matched before, is set to
 * what is written, and its descriptor sealed again (E2SR_JWHY_DESC),
 * with its copies, in one write where they lie together (wipe_io.c).
 * With --all-journal the descriptors go too, and nothing is sealed.
 */
errcode_t e2sr_jplan_seals(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_jwalk *w = &ctx->history.walk;
	const struct e2sr_jsb *jsb = &ctx->journal->jsb;
	unsigned int bs = ctx->journal->blocksize;
	const struct e2sr_jblock *b;
	const unsigned char *data;
	unsigned char *after = NULL, *image = NULL;
	struct e2sr_jplan *e;
	struct e2sr_seal *sl;
	size_t i, end, n = plan->journal_count;
	__u32 before, reach = 0, reach_of = 0;
	errcode_t err;

	plan->seal_count = 0;
	if (!jsb->csum_version || !w->nblocks ||
	    (plan->sanitize & E2SR_FREE_JOURNAL))
		return 0;
	err = ext2fs_get_mem(bs, &after);
	if (!err)
		err = ext2fs_get_mem(bs, &image);
	for (i = 0; !err && i < n; i = end) {
		end = e2sr_jplan_block_end(plan, i);
		b = bsearch(&plan->journal[i].jblock, w->blocks, w->nblocks,
			    sizeof(*w->blocks), e2sr_jplan_cmp_walk);
		/* One that did not match is another transaction's now. */
		if (!b || !b->verified)
			continue;
		/*
		 * Only what goes in one write with its descriptor: a copy
		 * past the ring's end, or out of reach, keeps its tag, as
		 * the copies of a log without checksums do, so that a run
		 * cut between two writes leaves what an uncut one leaves.
		 */
		if (!reach_of || reach_of != b->desc + 1) {
			reach = seal_reach(ctx->journal, b->desc);
			reach_of = b->desc + 1;
		}
		if (b->jblock <= b->desc || b->jblock - b->desc > reach)
			continue;
		err = planned_image(ctx, i, end, after);
		if (!err)
			err = e2sr_array_room(&plan->seals, &plan->seal_alloc,
					      plan->seal_count + 1,
					      sizeof(*plan->seals));
		if (err)
			break;
		sl = &plan->seals[plan->seal_count++];
		sl->desc = b->desc;
		sl->index = tag_index(jsb, b->desc, b->jblock);
		sl->jblock = b->jblock;
		sl->csum = e2sr_jtag_csum(jsb, b->sequence, after);
		sl->stage = plan->journal[i].stage;
		for (; i < end; i++)
			plan->journal[i].sealed = 1;
	}
	if (!err && plan->seal_count)
		qsort(plan->seals, plan->seal_count, sizeof(*plan->seals),
		      cmp_seal);
	/*
	 * One action per descriptor and stage, its bytes as that stage's
	 * seals leave them, from what the stages before left.
	 */
	for (i = 0; !err && i < plan->seal_count; i = end) {
		for (end = i + 1; end < plan->seal_count &&
		     plan->seals[end].desc == plan->seals[i].desc &&
		     plan->seals[end].stage == plan->seals[i].stage; end++)
			;
		if (!i || plan->seals[i - 1].desc != plan->seals[i].desc) {
			err = e2sr_journal_block(ctx->journal,
						 plan->seals[i].desc, &data);
			if (err)
				break;
			memcpy(image, data, bs);
			plan->journal_blocks++;
		}
		before = e2sr_crc32c_le(~0U, image, bs);
		err = e2sr_seal_image(jsb, plan->seals + i, end - i, image);
		if (!err)
			err = e2sr_jplan_part(plan, plan->seals[i].desc,
					      E2SR_JWHY_DESC, 0, 0, 0);
		if (err)
			break;
		e = &plan->journal[plan->journal_count - 1];
		e->crc_before = before;
		e->crc_after = e2sr_crc32c_le(~0U, image, bs);
		e->settled = 1;
		e->sealed = 1;
		e->stage = plan->seals[i].stage;
	}
	ext2fs_free_mem(&after);
	ext2fs_free_mem(&image);
	if (!err && plan->journal_count > n)
		qsort(plan->journal, plan->journal_count,
		      sizeof(*plan->journal), e2sr_jplan_cmp);
	return err;
}
