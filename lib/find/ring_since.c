/*
 * ring_since.c --- the walk of the log, taking what the kernel did not
 * write since the last run from the facts that run kept.
 *
 * Owns when the last run's ring facts (lib/journal/ring_facts.h, loaded
 * by the command into ctx->since.ring_prev) are used, and this run's
 * kept for the next (ring_next).  They are used when the superblock
 * tests of the incremental proof passed (since.c: nothing but the kernel
 * wrote the filesystem, the log included, since that run), the journal
 * needed no recovery and has no orphans to release, and the blocks
 * written since can be told from the rest (ring_fresh.c); the reason
 * they are not is kept as data for the command to say.  A run that turns
 * out a full one walks the whole log again (since.c asks).  This run's
 * facts are kept of the log as the run leaves it: what it wrote of the
 * log is read back before the filesystem is closed (e2sr_ring_settle),
 * or else forgotten, and a run that rewrote the journal's superblock, or
 * could not note a write, keeps none.  With ring_check the whole log is
 * walked as well and the two histories compared: the test of all this.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "find_int.h"

/* Why the facts cannot be used before the log is looked at. */
static enum e2sr_rf_why why_not(const struct e2sr_ctx *ctx)
{
	const struct e2sr_since *s = &ctx->since;

	if (!s->have_ring)
		return E2SR_RF_NONE_KEPT;
	if (!s->super_ok || s->force_full)
		return E2SR_RF_NOT_INCREMENTAL;
	if (ctx->journal->external)
		return E2SR_RF_EXTERNAL;
	if (ctx->replay.how != E2SR_RECOVERY_NONE ||
	    ctx->journal->jsb.start)
		return E2SR_RF_RECOVERY;
	if (ctx->orphans.n)
		return E2SR_RF_ORPHANS;
	return E2SR_RF_OK;
}

static int differ(struct e2sr_ctx *ctx, const char *what, size_t i)
{
	snprintf(ctx->detail, sizeof(ctx->detail), "ring facts: %s differ "
		 "(entry %zu)", what, i);
	return 1;
}

static int jblock_differs(const struct e2sr_jblock *a,
			  const struct e2sr_jblock *b)
{
	return a->jblock != b->jblock || a->fs_block != b->fs_block ||
	       a->sequence != b->sequence || a->desc != b->desc ||
	       a->flags != b->flags || a->verified != b->verified ||
	       a->trusted != b->trusted || a->committed != b->committed ||
	       a->zero != b->zero;
}

static int version_differs(const struct e2sr_version *a,
			   const struct e2sr_version *b)
{
	return a->fs_block != b->fs_block || a->lblk != b->lblk ||
	       a->commit_sec != b->commit_sec ||
	       a->commit_nsec != b->commit_nsec || a->jblock != b->jblock ||
	       a->sequence != b->sequence || a->ino != b->ino ||
	       a->ino_count != b->ino_count || a->kind != b->kind ||
	       a->verified != b->verified || a->committed != b->committed ||
	       a->escaped != b->escaped;
}

static int icopy_differs(const struct e2sr_icopy *a,
			 const struct e2sr_icopy *b)
{
	return a->jblock != b->jblock || a->sequence != b->sequence ||
	       a->ino != b->ino || a->first != b->first ||
	       a->count != b->count || a->escaped != b->escaped;
}

static int commit_differs(const struct e2sr_jcommit_rec *a,
			  const struct e2sr_jcommit_rec *b)
{
	return a->jblock != b->jblock || a->sequence != b->sequence ||
	       a->commit_sec != b->commit_sec ||
	       a->commit_nsec != b->commit_nsec;
}

/* Whether the history from the facts is the one from the whole log. */
static int histories_differ(struct e2sr_ctx *ctx, const struct e2sr_history *a,
			    const struct e2sr_history *b)
{
	const struct e2sr_jwalk *x = &a->walk, *y = &b->walk;
	size_t i, bits = (x->jsb.last - x->jsb.first) / 8 + 1;

	if (x->nblocks != y->nblocks || x->ncommits != y->ncommits ||
	    x->nrevokes != y->nrevokes || x->nstale != y->nstale ||
	    x->descriptors != y->descriptors ||
	    x->bad_blocks != y->bad_blocks ||
	    x->unattributed != y->unattributed)
		return differ(ctx, "the walk's counts", 0);
	for (i = 0; i < x->nblocks; i++)
		if (jblock_differs(&x->blocks[i], &y->blocks[i])) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "ring facts: the copy at journal block %u "
				 "differs (verified %u/%u, trusted %u/%u, zero "
				 "%u/%u, block %llu/%llu)", y->blocks[i].jblock,
				 x->blocks[i].verified, y->blocks[i].verified,
				 x->blocks[i].trusted, y->blocks[i].trusted,
				 x->blocks[i].zero, y->blocks[i].zero,
				 (unsigned long long)x->blocks[i].fs_block,
				 (unsigned long long)y->blocks[i].fs_block);
			return 1;
		}
	for (i = 0; i < x->ncommits; i++)
		if (commit_differs(&x->commits[i], &y->commits[i]))
			return differ(ctx, "the commits", i);
	for (i = 0; i < x->nrevokes; i++)
		if (memcmp(&x->revokes[i], &y->revokes[i],
			   sizeof(x->revokes[i])))
			return differ(ctx, "the revokes", i);
	if (memcmp(x->stale, y->stale, bits))
		return differ(ctx, "the stale blocks", 0);
	if (memcmp(a->dirlike, b->dirlike, bits) ||
	    memcmp(a->inline_dirs, b->inline_dirs, bits))
		return differ(ctx, "the directory-like blocks", 0);
	if (a->n != b->n)
		return differ(ctx, "the versions' counts", 0);
	for (i = 0; i < a->n; i++)
		if (version_differs(&a->v[i], &b->v[i]) ||
		    a->by_jblock[i] != b->by_jblock[i])
			return differ(ctx, "the versions", i);
	if (a->nicopies != b->nicopies || a->nrecs != b->nrecs)
		return differ(ctx, "the records' counts", 0);
	for (i = 0; i < a->nicopies; i++)
		if (icopy_differs(&a->icopies[i], &b->icopies[i]))
			return differ(ctx, "the table copies", i);
	for (i = 0; i < a->nrecs; i++)
		if (a->rec_gen[i] != b->rec_gen[i] ||
		    a->rec_slot[i] != b->rec_slot[i])
			return differ(ctx, "the records", i);
	return 0;
}

/* ring_check: the same history from the whole log, compared. */
static errcode_t check_facts(struct e2sr_ctx *ctx)
{
	struct e2sr_history whole;
	errcode_t err;

	err = e2sr_history_build(ctx->fs, ctx->journal, 0, &whole);
	if (err)
		return err;
	if (histories_differ(ctx, &ctx->history, &whole))
		err = E2SR_ERR_RING_FACTS_DIFFER;
	e2sr_history_free(&whole);
	return err;
}

/*
 * ctx->history built: from the last run's ring facts and the log blocks
 * written since when they can be used, else from the whole log; this
 * run's facts filled when the command keeps them.
 */
errcode_t e2sr_ring_history(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	struct e2sr_hist_facts hf;
	__u8 *fresh = NULL;
	__u32 nfresh = 0, pos;
	int fc_quiet = 0;
	errcode_t err;

	memset(&hf, 0, sizeof(hf));
	s->ring_used = 0;
	s->ring_fresh = 0;
	ext2fs_free_mem(&s->ring_fresh_map);
	if (!ctx->journal)
		return e2sr_history_build(ctx->fs, NULL, 0, &ctx->history);
	ctx->journal->fc_quiet = 0;
	s->ring_blocks = ctx->journal->jsb.last - ctx->journal->jsb.first;
	s->ring_why = why_not(ctx);
	if (s->ring_why == E2SR_RF_OK && ctx->journal->written_lost)
		s->ring_why = E2SR_RF_WROTE;
	if (s->ring_why == E2SR_RF_OK)
		s->ring_why = e2sr_rf_fresh(ctx->journal, &s->ring_prev,
				ext2fs_has_feature_fast_commit(ctx->fs->super),
				&fresh, &nfresh, &fc_quiet);
	/* What this run wrote of the log (a plan made again) is read. */
	for (pos = s->ring_prev.first; fresh && pos < s->ring_prev.last; pos++)
		if (e2sr_journal_wrote(ctx->journal, pos))
			fresh[(pos - s->ring_prev.first) >> 3] |=
				1 << ((pos - s->ring_prev.first) & 7);
	if (s->ring_why == E2SR_RF_OK) {
		hf.in = &s->ring_prev;
		hf.fresh = fresh;
	}
	if (s->keep_ring) {
		e2sr_rf_free(&s->ring_next);
		hf.out = &s->ring_next;
	}
	err = e2sr_history_build_facts(ctx->fs, ctx->journal, 0, &hf,
				       &ctx->history);
	if (err || !hf.in)
		ext2fs_free_mem(&fresh);
	if (err)
		return err;
	s->ring_read = ctx->history.walk.read;
	if (hf.in) {
		s->ring_fresh_map = fresh;
		s->ring_used = 1;
		s->ring_fresh = nfresh;
		/*
		 * The walk took the area's zeros from the facts; with the
		 * ring check the whole log read compares them.
		 */
		ctx->journal->fc_quiet = fc_quiet;
		if (s->ring_check)
			err = check_facts(ctx);
	}
	return err;
}

/*
 * The names index the last run kept of log block @pos
 * (plan_journal_index.c), when it still holds: the walk took the
 * position from those facts, so its bytes are the ones indexed.
 */
int e2sr_ring_index(const struct e2sr_ctx *ctx, __u32 pos,
		    const unsigned char **p, size_t *len)
{
	const struct e2sr_since *s = &ctx->since;
	__u32 i = pos - s->ring_prev.first;

	if (!s->ring_used || !s->ring_fresh_map ||
	    pos < s->ring_prev.first || pos >= s->ring_prev.last ||
	    (s->ring_fresh_map[i >> 3] & (1 << (i & 7))))
		return 0;
	return e2sr_rf_get_index(&s->ring_prev, pos, p, len);
}

/* Where a names index made by this run goes: its facts, when kept. */
struct e2sr_ring_facts *e2sr_ring_index_out(struct e2sr_ctx *ctx)
{
	struct e2sr_ring_facts *f = &ctx->since.ring_next;

	return ctx->since.keep_ring && f->bits && !f->broken ? f : NULL;
}

/* Whether this run's facts can be kept at all. */
static int keepable(const struct e2sr_ctx *ctx)
{
	const struct e2sr_since *s = &ctx->since;
	const struct e2sr_journal *j = ctx->journal;
	const struct e2sr_ring_facts *f = &s->ring_next;

	return s->keep_ring && j && f->bits && !f->broken && !j->external &&
	       !j->sb_written && !j->written_lost &&
	       ctx->replay.how == E2SR_RECOVERY_NONE && !ctx->orphans.n;
}

/*
 * What this run wrote of the log, in its facts: a copy zeroed whole is
 * known zero; any other block it wrote is forgotten.  0, or -1 out of
 * memory (nothing changed).
 */
static int mark_written(struct e2sr_ctx *ctx, __u32 *forgot)
{
	struct e2sr_journal *j = ctx->journal;
	struct e2sr_ring_facts *f = &ctx->since.ring_next;
	unsigned char *zero;
	__u32 pos;

	*forgot = 0;
	if (ext2fs_get_arrayzero(2, f->blocksize, &zero))
		return -1;
	for (pos = f->first; pos < f->last; pos++) {
		if (e2sr_journal_zeroed(j, pos)) {
			e2sr_rf_zeroed(f, &j->jsb, pos, zero);
		} else if (e2sr_journal_wrote(j, pos)) {
			e2sr_rf_forget(f, pos);
			(*forgot)++;
		}
	}
	ext2fs_free_mem(&zero);
	return 0;
}

/*
 * After the run's last write, before the filesystem is closed: the log
 * blocks this run wrote but did not zero whole (copies wiped in part,
 * descriptors) are read back and their facts taken from what they hold
 * now, so that the next run takes them from the facts.  Else each night
 * read again what the night before wiped: on the scale image, 28 000
 * log blocks besides the 6 230 the kernel wrote after a 0.1% churn.  A
 * walk from this run's facts reads just those (a position not known is
 * read).  Out of memory for the map, nothing changes and
 * e2sr_ring_keep() forgets them: the next run reads them.  A read that
 * fails is the device's, and said (the run exits 8, as any read's).
 */
errcode_t e2sr_ring_settle(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	struct e2sr_journal *j = ctx->journal;
	struct e2sr_ring_facts after;
	struct e2sr_hist_facts hf;
	struct e2sr_history h;
	__u8 *fresh = NULL;
	__u32 forgot;
	errcode_t err;

	if (s->ring_settled || !keepable(ctx) || !j->written ||
	    mark_written(ctx, &forgot))
		return 0;
	s->ring_settled = 1;
	if (!forgot ||
	    ext2fs_get_memzero((j->jsb.last - j->jsb.first) / 8 + 1, &fresh))
		return 0;
	memset(&hf, 0, sizeof(hf));
	memset(&after, 0, sizeof(after));
	memset(&h, 0, sizeof(h));
	hf.in = &s->ring_next;
	hf.fresh = fresh;
	hf.out = &after;
	/* The read window may hold what the log held before the wipe. */
	e2sr_journal_drop_window(j);
	err = e2sr_history_build_facts(ctx->fs, j, E2SR_HISTORY_FACTS_ONLY,
				       &hf, &h);
	if (!err && !after.broken) {
		/*
		 * Where the kernel goes on is where it stopped, whatever
		 * this run wiped of the newest transaction's descriptors
		 * (ring_fresh.c follows the chain from there).
		 */
		after.newest = s->ring_next.newest;
		after.head = s->ring_next.head;
		after.has_newest = s->ring_next.has_newest;
		e2sr_rf_free(&s->ring_next);
		s->ring_next = after;
	} else {
		e2sr_rf_free(&after);
	}
	e2sr_history_free(&h);
	ext2fs_free_mem(&fresh);
	return err;
}

/*
 * This run's facts, as the run leaves the log, for the command to keep;
 * NULL when it keeps none.
 */
const struct e2sr_ring_facts *e2sr_ring_keep(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	struct e2sr_ring_facts *f = &s->ring_next;
	__u32 forgot;

	if (!keepable(ctx))
		return NULL;
	if (!s->ring_settled && mark_written(ctx, &forgot))
		return NULL;
	s->ring_settled = 1;
	f->sequence = ctx->journal->jsb.sequence;
	/*
	 * A fast-commit area set aside past the log: all zero as this run
	 * leaves it when it was proven so or read so, and not written.
	 */
	f->fc_zero = e2sr_journal_fc_zero(ctx->journal);
	return f;
}
