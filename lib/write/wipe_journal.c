/*
 * wipe_journal.c --- the writer of stale journal copies.
 *
 * Owns the journal kind's slice of the plan, e2sr_wipe_journal_apply():
 * whole blocks overwritten in runs that follow each other in the log and
 * on the device, parts of blocks shared with other files' residue read,
 * cleared and written back, and the descriptors the plan reseals written
 * with the copies of their transaction; each run passes
 * e2sr_wipe_journal_check() (guard.c) just before it.  A planned journal
 * block as an action of the plan, e2sr_journal_action(), is here too.
 * Which copies, and what each part holds, is the plan's
 * (plan_journal.c); the writes go out through wipe_io.c.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "write_int.h"

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
	a->jstage = jp->stage;
}

static int is_descriptor(const struct e2sr_action *a)
{
	return a->why == E2SR_WHY_JOURNAL + E2SR_JWHY_DESC;
}

/*
 * The classes of journal writes, in the plan's order, each flushed
 * before the next begins: shared copies in part, copies whole, then the
 * transactions sealed again (a descriptor with its copies after it).
 */
enum write_class { CLASS_PARTS, CLASS_WHOLE, CLASS_SEALED };

static enum write_class write_class(const struct e2sr_action *a)
{
	if (is_descriptor(a))
		return CLASS_SEALED;
	return a->len ? CLASS_PARTS : CLASS_WHOLE;
}

/*
 * Copies shared with other files' residue, in blocks that follow each
 * other in the log and on the device, up to @max: how many actions of
 * @a[0..n) their parts take, and in *@blocks how many blocks.
 */
static size_t parts_run(const struct e2sr_journal *j,
			const struct e2sr_action *a, size_t n, size_t max,
			size_t *blocks)
{
	blk64_t phys = e2sr_journal_phys(j, a->blk);
	size_t i = 0, k = 0;

	while (i < n && a[i].len && k < max && a[i].blk == a->blk + k &&
	       e2sr_journal_phys(j, a[i].blk) == phys + k) {
		for (i++; i < n && a[i].len && a[i].blk == a[i - 1].blk; i++)
			;
		k++;
	}
	*blocks = k;
	return i;
}

/*
 * Shared copies, @a[0..n) their parts, @nblocks blocks one after the
 * other (parts_run()).  Every block must read as it did when it was
 * planned, or nothing of the run is written; then only the parts are
 * zeroed, whatever the method, so that the rest of each copy stays as
 * readable as it was.  One read and one write for the run: on a log of
 * directory copies most of its blocks are shared.
 */
static errcode_t journal_parts(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n,
			       size_t nblocks, unsigned char *buf)
{
	struct e2sr_journal *j = ctx->journal;
	unsigned int bs = j->blocksize;
	unsigned char *b;
	blk64_t phys;
	errcode_t err;
	size_t i;

	err = e2sr_wipe_journal_check(ctx, a->blk, nblocks);
	if (err)
		return err;
	phys = e2sr_journal_phys(j, a->blk);
	err = io_channel_read_blk64(j->io, phys, nblocks, buf);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		b = buf + (size_t)(a[i].blk - a->blk) * bs;
		if ((!i || a[i].blk != a[i - 1].blk) &&
		    e2sr_crc32c_le(~0U, b, bs) != a[i].crc)
			return E2SR_ERR_CHANGED;
		if (a[i].off > bs || a[i].len > bs - a[i].off)
			return E2SR_ERR_CHANGED;
	}
	for (i = 0; i < n; i++)
		memset(buf + (size_t)(a[i].blk - a->blk) * bs + a[i].off, 0,
		       a[i].len);
	ctx->stats.write_calls++;
	e2sr_journal_note_write(j, a->blk, (__u32)nblocks);
	err = io_channel_write_blk64(j->io, phys, nblocks, buf);
	j->win_count = 0;	/* the window held what is gone */
	return err;
}

/*
 * How many of @a[0..n), whole blocks of one class (descriptors or not),
 * go out in one write: journal blocks that follow each other in the log
 * and on the device, up to @max.
 */
static size_t journal_run(const struct e2sr_journal *j,
			  const struct e2sr_action *a, size_t n, size_t max)
{
	blk64_t phys = e2sr_journal_phys(j, a->blk);
	size_t i;

	for (i = 1; i < n && i < max && !a[i].len &&
	     is_descriptor(&a[i]) == is_descriptor(a) &&
	     a[i].blk == a->blk + i &&
	     e2sr_journal_phys(j, a[i].blk) == phys + i; i++)
		;
	return i;
}

/*
 * Whole copies are zeroed whatever the method, as parts are: their
 * descriptors stay (plan_journal.c), and a copy of zeros attributed to a
 * block holds nothing, where random bytes would read as records or
 * entries.  Only when the whole log goes (--all-journal), descriptors
 * included, does the method apply.
 */
static int whole_zeroes(const struct e2sr_ctx *ctx)
{
	enum e2sr_method method = ctx->opts.method;

	return method != E2SR_METHOD_DISCARD &&
	       method != E2SR_METHOD_SECDISCARD &&
	       (method == E2SR_METHOD_ZERO ||
		!(ctx->plan.sanitize & E2SR_FREE_JOURNAL));
}

static errcode_t journal_whole(struct e2sr_ctx *ctx, blk64_t phys,
			       blk64_t n)
{
	enum e2sr_method method = ctx->opts.method;
	errcode_t err;

	if (ctx->plan.sanitize & E2SR_FREE_JOURNAL)
		return e2sr_wipe_put_run(ctx, ctx->journal->io, phys, n);
	if (method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0,
		       ctx->writer.wbuf_blocks * ctx->fs->blocksize);
	if (method != E2SR_METHOD_DISCARD &&
	    method != E2SR_METHOD_SECDISCARD)
		ctx->opts.method = E2SR_METHOD_ZERO;
	err = e2sr_wipe_put_run(ctx, ctx->journal->io, phys, n);
	ctx->opts.method = method;
	return err;
}

static int cmp_seal_desc(const void *key, const void *elem)
{
	const struct e2sr_seal *k = key, *x = elem;

	if (k->desc != x->desc)
		return k->desc < x->desc ? -1 : 1;
	return k->stage < x->stage ? -1 : k->stage > x->stage;
}

static int cmp_jplan_block(const void *key, const void *elem)
{
	__u32 jb = *(const __u32 *)key;
	const struct e2sr_jplan *x = elem;

	return jb < x->jblock ? -1 : jb > x->jblock;
}

/*
 * The plan's entry for descriptor action @a (one per stage it is sealed
 * at: the one it must read as), its seals [*lo, *hi), and whether it is
 * the descriptor's last stage (the plan counts the block there).
 */
static const struct e2sr_jplan *seal_of(const struct e2sr_plan *plan,
					const struct e2sr_action *a,
					size_t *lo, size_t *hi, int *last)
{
	struct e2sr_seal key;
	__u32 desc = (__u32)a->blk;
	size_t i, first;

	first = e2sr_lower_bound(plan->journal, plan->journal_count,
				 sizeof(*plan->journal), &desc,
				 cmp_jplan_block);
	for (i = first; i < plan->journal_count &&
	     plan->journal[i].jblock == desc; i++) {
		if (plan->journal[i].why != E2SR_JWHY_DESC ||
		    plan->journal[i].crc_before != a->crc)
			continue;
		key.desc = desc;
		key.stage = plan->journal[i].stage;
		*lo = e2sr_lower_bound(plan->seals, plan->seal_count,
				       sizeof(*plan->seals), &key,
				       cmp_seal_desc);
		for (*hi = *lo; *hi < plan->seal_count &&
		     !cmp_seal_desc(&key, &plan->seals[*hi]); (*hi)++)
			;
		*last = i == first;
		return *hi > *lo ? &plan->journal[i] : NULL;
	}
	return NULL;
}

/* The parts of one copy, @a[0..n), applied to its bytes @b. */
static errcode_t copy_parts(const struct e2sr_action *a, size_t n,
			    unsigned char *b, unsigned int bs)
{
	size_t i;

	if (!a->len) {
		memset(b, 0, bs);	/* whole: zeros (journal_whole()) */
		return 0;
	}
	if (e2sr_crc32c_le(~0U, b, bs) != a->crc)
		return E2SR_ERR_CHANGED;
	for (i = 0; i < n; i++) {
		if (a[i].off > bs || a[i].len > bs - a[i].off)
			return E2SR_ERR_CHANGED;
		memset(b + a[i].off, 0, a[i].len);
	}
	return 0;
}

/*
 * A transaction sealed again: its descriptor's action, @a[0], then its
 * copies' (kinds.c's order), up to where they end, returned in *@used,
 * and the log blocks written in *@blocks.  The descriptor and its copies
 * lie one after the other in the log and on the device (the plan seals
 * no other): they are read, rewritten and written back in one piece, so
 * that a run cut anywhere leaves each transaction as it was or as it is
 * meant to be, its tags matching its copies either way.
 */
static errcode_t journal_sealed(struct e2sr_ctx *ctx,
				const struct e2sr_action *a, size_t n,
				size_t max, unsigned char *buf, size_t *used,
				size_t *blocks)
{
	const struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_journal *j = ctx->journal;
	unsigned int bs = j->blocksize;
	__u32 desc = (__u32)a->blk, last = desc;
	blk64_t phys = e2sr_journal_phys(j, desc);
	const struct e2sr_jplan *jp;
	size_t lo, hi, s, k = 1, c, span, i;
	int whole = 1, last_stage;
	errcode_t err;

	jp = seal_of(plan, a, &lo, &hi, &last_stage);
	if (!jp)
		return E2SR_ERR_CHANGED;
	for (s = lo; s < hi; s++) {
		if (plan->seals[s].jblock <= last)
			whole = 0;	/* the log wraps inside it */
		last = plan->seals[s].jblock;
		while (k < n && a[k].blk == last)
			k++;
	}
	*used = k;
	*blocks = (hi - lo) + !!last_stage;	/* what the plan counts */
	span = (size_t)(last - desc) + 1;
	if (whole && span <= max)
		for (i = 1; i < span; i++)
			if (e2sr_journal_phys(j, desc + i) != phys + i)
				whole = 0;
	/* The plan sealed only what lies together (seal_reach()). */
	if (!whole || span > max) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "journal block %u: a sealed transaction is not in "
			 "one piece", desc);
		return E2SR_ERR_CHANGED;
	}
	err = e2sr_wipe_journal_check(ctx, desc, span);
	if (!err)
		err = io_channel_read_blk64(j->io, phys, span, buf);
	if (err)
		return err;
	if (e2sr_crc32c_le(~0U, buf, bs) != a->crc)
		return E2SR_ERR_CHANGED;
	err = e2sr_seal_image(&j->jsb, plan->seals + lo, hi - lo, buf);
	if (err)
		return err;
	if (e2sr_crc32c_le(~0U, buf, bs) != jp->crc_after)
		return E2SR_ERR_CHANGED;
	for (i = 1; i < k; i = c) {
		for (c = i + 1; c < k && a[c].blk == a[i].blk; c++)
			;
		err = copy_parts(a + i, c - i,
				 buf + (size_t)(a[i].blk - desc) * bs, bs);
		if (err)
			return err;
	}
	ctx->stats.write_calls++;
	/*
	 * Of the span, only the descriptor and the copies it seals (those
	 * wiped, a[1..k), are among them: see above) are written with
	 * other bytes; the rest goes back as it was read, and what the run
	 * learnt of it still holds (ring_since.c reads back only the
	 * blocks noted here).
	 */
	e2sr_journal_note_write(j, desc, 1);
	for (s = lo; s < hi; s++)
		e2sr_journal_note_write(j, plan->seals[s].jblock, 1);
	return io_channel_write_blk64(j->io, phys, span, buf);
}

/*
 * Overwrite the planned journal blocks, @a[0..n), in the plan's order:
 * the shared copies in part, the others whole in physically contiguous
 * runs, then the descriptors, sealed again, once what they describe is
 * on disk.  Each class is flushed before the next.
 */
errcode_t e2sr_wipe_journal_apply(struct e2sr_ctx *ctx,
				  const struct e2sr_action *a, size_t n)
{
	struct e2sr_journal *j = ctx->journal;
	unsigned char *buf = NULL;
	size_t i, end, max, k, blocks;
	blk64_t *done = &ctx->stats.wiped[E2SR_KIND_JOURNAL][0];
	enum write_class cls, prev = CLASS_PARTS;
	errcode_t err;

	if (!j)
		return n ? E2SR_ERR_WRITE_JOURNAL : 0;
	err = e2sr_wipe_buf_get(ctx);
	max = WIPE_CHUNK_BYTES / j->blocksize;
	if (!max || max > ctx->writer.wbuf_blocks)
		max = ctx->writer.wbuf_blocks;
	if (!err)
		err = ext2fs_get_array(max, j->blocksize, &buf);
	for (i = 0; !err && i < n; i = end) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		/*
		 * A class ends: what it wrote goes out before the next.  A
		 * sealed transaction is written in one piece with its
		 * copies and depends on no other, so the next one follows
		 * without a flush between them.
		 */
		cls = write_class(&a[i]);
		if (i && cls != prev) {
			err = io_channel_flush(j->io);
			if (err)
				break;
		}
		prev = cls;
		if (a[i].len) {
			end = i + parts_run(j, a + i, n - i, max, &blocks);
			err = journal_parts(ctx, a + i, end - i, blocks, buf);
			if (err)
				break;
			*done += blocks;
		} else if (is_descriptor(&a[i])) {
			err = journal_sealed(ctx, a + i, n - i, max, buf,
					     &k, &blocks);
			if (err)
				break;
			end = i + k;
			j->win_count = 0;	/* the window held what is gone */
			*done += blocks;
		} else {
			end = i + journal_run(j, a + i, n - i, max);
			err = e2sr_wipe_journal_check(ctx, a[i].blk, end - i);
			for (k = i; k < end; k++)
				if (whole_zeroes(ctx))
					e2sr_journal_note_zero(j,
						(__u32)a[k].blk, 1);
				else
					e2sr_journal_note_write(j,
						(__u32)a[k].blk, 1);
			if (!err)
				err = journal_whole(ctx,
					e2sr_journal_phys(j, a[i].blk), end - i);
			if (err)
				break;
			j->win_count = 0;	/* the window held what is gone */
			*done += end - i;
		}
		for (k = i; k < end; k++)
			e2sr_action_done(ctx, &a[k]);
		e2sr_wipe_advance(ctx, end - i);
	}
	ext2fs_free_mem(&buf);
	if (ctx->opts.method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0,
		       ctx->writer.wbuf_blocks * ctx->fs->blocksize);
	if (!err)
		err = io_channel_flush(j->io);
	return err;
}
