/*
 * coverage.c --- how far back the journal's history reaches, and whether
 * that is far enough for every deletion to be traced.
 *
 * Owns the decision "everything deleted since the last run (or since the
 * journal was made) is accounted for".  A deleted file is traced through
 * journal copies of its inode; the journal is a ring, and once the kernel
 * has written more than it holds, those copies are gone.  From the
 * physical walk (journal_walk.c) this file finds the transactions the
 * ring still holds in full, from the newest back, and joins them with
 * what the previous run saw (the caller's state file): the history is
 * complete when it reaches back to that run, or to the journal's
 * creation.  Otherwise there is a gap, and what was deleted in it cannot
 * be traced.  The scan does no I/O and prints nothing: the walk has
 * read the ring already.  e2sr_coverage_ready() is the step the passes
 * that need the history call (since.c, discover.c): the history built if
 * it is not, and the scan, once a run.
 *
 * Facts this rests on, checked on Linux 6.18 and e2fsprogs 1.47.0:
 *
 *  - mke2fs (ext2fs_create_journal_superblock) leaves s_sequence 1,
 *    s_start 0, s_head 0 and the log zeroed.  The kernel's first
 *    transaction is tid s_sequence + 1 = 2 and starts at s_first;
 *    debugfs' journal writer starts with tid 1 at s_first.
 *  - jbd2 commits in tid order.  Within a mount each transaction starts
 *    right after the previous commit block (its revoke blocks first,
 *    then descriptors and their data, then the commit) and tids go up by
 *    one; at s_last the log goes on at s_first.
 *  - A clean unmount writes s_start 0, s_sequence (the tail tid) and,
 *    since Linux 6.5 (c7fc60555864 "jbd2: continue to record log between
 *    each mount"), s_head: the block after the last commit.  The next
 *    mount's first transaction is tid s_sequence + 1 and starts at s_head
 *    if that lies in [s_first, s_last), else at s_first (older kernels
 *    always start at s_first).  Seen: last commit tid 21 at block 161,
 *    s_sequence 23, s_head 162; next mount tid 24 at block 162.  A mount
 *    that commits nothing leaves s_sequence as it was.  After the
 *    kernel's own recovery the log goes on after the recovered one, tid
 *    + 2 (3 -> 5).  So a tid jump at a mount boundary is at most 3.
 *  - A replay by e2secrm or e2fsck rewrites s_sequence but not s_head:
 *    the kernel then starts at the stale s_head, over the replayed log
 *    (seen: 5 at 19, 8 at 27 replayed, next mount 11 at 27).
 *  - debugfs' journal writer (jo/jw/jc) logs tid s_sequence at s_first.
 *
 * A transaction is readable in full when every block from its first to
 * its commit is still its own, and its first block is proven to be its
 * first: the block before it holds an older transaction's block (so it
 * was not written by this one), or it is where the kernel must have
 * started it (the journal's first transaction at s_first; the first
 * transaction after the previous run where that run left s_head).
 * Going back from the newest commit, a run of such transactions is
 * "the covered history"; tids skipped between two of them are proven
 * never written only where the one continues right after the other's
 * commit, not at s_first, with a jump a mount boundary explains, and
 * with no block of those tids anywhere in the ring.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "find_int.h"

/* Tids of mke2fs' (1) and the kernel's (2) first transaction. */
#define FIRST_TID_DEBUGFS	1
#define FIRST_TID_KERNEL	2
/* The largest tid jump across one clean mount boundary (see above). */
#define MOUNT_TID_SKIP		3

enum {
	OWN_NONE = 0,	/* zeros, stale data, nothing known */
	OWN_DESC,
	OWN_DATA,
	OWN_REVOKE,
	OWN_COMMIT,
	OWN_CLASH,	/* two transactions claim it */
};

struct own {
	__u32	seq;
	__u8	type;
};

struct cover {
	const struct e2sr_jsb	*jsb;
	const struct e2sr_jwalk	*w;
	struct own		*own;	/* per log position */
	__u32			loglen;
	__s32			*rel;	/* tids seen, relative to bound */
	size_t			nrel;
};

static int tid_gt(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

static int tid_geq(__u32 a, __u32 b)
{
	return (__s32)(a - b) >= 0;
}

static __u32 ring_prev(const struct e2sr_jsb *jsb, __u32 pos)
{
	return pos == jsb->first ? jsb->last - 1 : pos - 1;
}

static void own_set(struct cover *cv, __u32 pos, int type, __u32 seq)
{
	struct own *o;

	if (pos < cv->jsb->first || pos >= cv->jsb->last)
		return;
	o = &cv->own[pos - cv->jsb->first];
	if (o->type == OWN_NONE) {
		o->type = type;
		o->seq = seq;
	} else if (o->type != type || o->seq != seq) {
		o->type = OWN_CLASH;
	}
}

static const struct own *own_at(const struct cover *cv, __u32 pos)
{
	return &cv->own[pos - cv->jsb->first];
}

static int cmp_s32(const void *a, const void *b)
{
	__s32 x = *(const __s32 *)a, y = *(const __s32 *)b;

	return x < y ? -1 : x > y;
}

/* Every block of the ring the walk accounted for, and whose it is. */
static errcode_t build_owners(struct cover *cv, __u32 bound)
{
	const struct e2sr_jwalk *w = cv->w;
	size_t i, n = 0;
	errcode_t err;

	err = ext2fs_get_arrayzero(cv->loglen, sizeof(*cv->own), &cv->own);
	if (!err)
		err = ext2fs_get_arrayzero(cv->loglen, sizeof(*cv->rel),
					   &cv->rel);
	if (err)
		return err;
	for (i = 0; i < w->nblocks; i++) {
		own_set(cv, w->blocks[i].jblock, OWN_DATA,
			w->blocks[i].sequence);
		own_set(cv, w->blocks[i].desc, OWN_DESC,
			w->blocks[i].sequence);
	}
	for (i = 0; i < w->nrevokes; i++)
		own_set(cv, w->revokes[i].jblock, OWN_REVOKE,
			w->revokes[i].sequence);
	for (i = 0; i < w->ncommits; i++)
		own_set(cv, w->commits[i].jblock, OWN_COMMIT,
			w->commits[i].sequence);
	for (i = 0; i < cv->loglen; i++)
		if (cv->own[i].type != OWN_NONE &&
		    cv->own[i].type != OWN_CLASH)
			cv->rel[n++] = (__s32)(cv->own[i].seq - bound);
	if (n)
		qsort(cv->rel, n, sizeof(*cv->rel), cmp_s32);
	cv->nrel = n;
	return 0;
}

/* Whether any block of the ring belongs to a tid strictly between. */
static int tids_between(const struct cover *cv, __u32 bound, __u32 lo,
			__u32 hi)
{
	__s32 l = (__s32)(lo - bound), h = (__s32)(hi - bound);
	size_t a = 0, b = cv->nrel, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (cv->rel[m] <= l)
			a = m + 1;
		else
			b = m;
	}
	return a < cv->nrel && cv->rel[a] < h;
}

static __u64 commit_time(const struct e2sr_jwalk *w, __u32 tid)
{
	size_t i;

	for (i = 0; i < w->ncommits; i++)
		if (w->commits[i].sequence == tid)
			return w->commits[i].commit_sec;
	return 0;
}

/*
 * The first tid the journal has not committed yet: s_sequence of an
 * empty journal, the end of the log to recover otherwise.  A commit
 * block at or past it is stale (another journal's, or not replayed).
 */
static __u32 seq_bound(const struct e2sr_ctx *ctx)
{
	const struct e2sr_jsb *jsb = &ctx->journal->jsb;

	if (!jsb->start)
		return jsb->sequence;
	return ctx->replay.recovery.end_seq;
}

/*
 * Whether @t, beginning at @p, is the first transaction written after
 * the run @prev describes, begun where its writer begins one: the
 * kernel's (tid s_sequence + 1) at s_head if valid, else at s_first;
 * debugfs' (tid s_sequence) at s_first.
 */
static int first_after(const struct e2sr_jsb *jsb,
		       const struct e2sr_cover_prev *prev, __u32 t, __u32 p)
{
	__u32 start = jsb->first;

	if (prev->head >= jsb->first && prev->head < jsb->last)
		start = prev->head;
	return (t == prev->sequence + 1 && p == start) ||
	       (t == prev->sequence && p == jsb->first);
}

/* Whether @t is the first transaction after the run @prev, wherever. */
static int next_after(const struct e2sr_cover_prev *prev, __u32 t)
{
	return t == prev->sequence + 1 || t == prev->sequence;
}

/*
 * Back from the newest commit (at @c, tid @t), transaction by
 * transaction, as far as each is readable in full and the tids between
 * are accounted for.  Sets from, oldest and the way the history ends.
 */
static void walk_back(struct cover *cv, struct e2sr_coverage *cov, __u32 t,
		      __u32 c, int *creation, int *reaches_prev)
{
	const struct e2sr_jsb *jsb = cv->jsb;
	const struct own *o;
	__u32 p, q, u, n, used = 0;

	/* Once round the ring at most: tids that wrap could go on. */
	while (used < cv->loglen) {
		/* Its blocks, back from its commit. */
		p = c;
		for (n = 0;; n++) {
			if (used + n + 1 >= cv->loglen)
				return;		/* the whole ring: not a log */
			q = ring_prev(jsb, p);
			o = own_at(cv, q);
			if (q == c || o->seq != t ||
			    (o->type != OWN_DESC && o->type != OWN_DATA &&
			     o->type != OWN_REVOKE))
				break;
			p = q;
		}
		used += n + 1;
		/* It begins with a revoke or descriptor block, or is empty. */
		o = own_at(cv, p);
		if (p != c && o->type != OWN_DESC && o->type != OWN_REVOKE)
			return;
		q = ring_prev(jsb, p);
		o = own_at(cv, q);
		if (o->type != OWN_NONE && o->type != OWN_CLASH &&
		    tid_gt(t, o->seq)) {
			/* Older than it: this transaction did not write q. */
		} else if ((t == FIRST_TID_KERNEL || t == FIRST_TID_DEBUGFS) &&
			   p == jsb->first) {
			/* The journal's first transaction, where it began. */
			*creation = 1;
		} else if (cov->have_prev &&
			   first_after(jsb, &cov->prev, t, p)) {
			/* The first after the last run, where it began. */
		} else {
			return;		/* its beginning may be gone */
		}
		cov->have_from = 1;
		cov->from = t;
		cov->oldest = t;
		if (*creation)
			return;
		if (cov->have_prev && next_after(&cov->prev, t)) {
			/* Nothing between the last run and this one. */
			cov->from = cov->prev.tid + 1;
			*reaches_prev = 1;
			return;
		}
		if (o->type != OWN_COMMIT)
			return;
		/* The one before it, if the log went on from its commit. */
		u = o->seq;
		if (u + 1 != t) {
			if (p == jsb->first || tid_gt(t, u + MOUNT_TID_SKIP) ||
			    tids_between(cv, cov->bound, u, t))
				return;
		}
		cov->from = u + 1;
		t = u;
		c = q;
	}
}

/*
 * Past the newest commit, nothing but zeros and the uncommitted tail
 * (the transaction @bound, or the one after it, never replayed): no
 * older pass of the ring.
 */
static int nothing_after(const struct cover *cv, __u32 c, __u32 bound)
{
	const struct own *o;
	__u32 pos;

	for (pos = c + 1; pos < cv->jsb->last; pos++) {
		o = own_at(cv, pos);
		if (o->type == OWN_NONE)
			continue;
		if (o->type == OWN_CLASH || o->seq - bound > 1)
			return 0;
	}
	return 1;
}

/*
 * Whether the previous run saw this journal's history: the transaction
 * it called newest, if still here, committed when it said; nothing it
 * saw is newer than what is here.  A journal reset (e2fsck gives it a
 * random s_sequence) or another filesystem with the same UUID fails.
 * A copy of the filesystem from before that run's own replay has an
 * older s_sequence: the same history if its newest is the one seen.
 */
static int prev_matches(const struct e2sr_jwalk *w,
			const struct e2sr_coverage *cov)
{
	const struct e2sr_cover_prev *prev = &cov->prev;
	__u64 t = cov->have_log ? commit_time(w, prev->tid) : 0;
	int same_newest;

	if (t && prev->tid_time && t != prev->tid_time)
		return 0;
	if (cov->have_log && tid_gt(prev->tid, cov->newest))
		return 0;
	same_newest = cov->have_log && prev->tid == cov->newest &&
		      prev->tid_time && prev->tid_time == cov->newest_time;
	if (tid_gt(prev->sequence, cov->bound) && !same_newest)
		return 0;
	return 1;
}

static void decide(struct e2sr_ctx *ctx, struct e2sr_coverage *cov,
		   int creation, int reaches_prev)
{
	const struct e2sr_cover_prev *prev = &cov->prev;

	if (creation) {
		cov->how = E2SR_COVER_CREATION;
		return;
	}
	if (cov->have_prev) {
		/* Nothing committed since that run. */
		if (!cov->have_log && prev->sequence == cov->bound) {
			cov->how = E2SR_COVER_PREVIOUS;
			return;
		}
		if (cov->have_log && (reaches_prev ||
		    tid_geq(prev->tid, cov->newest) ||
		    (cov->have_from && tid_geq(prev->tid + 1, cov->from)))) {
			cov->how = E2SR_COVER_PREVIOUS;
			return;
		}
	} else if (!cov->have_log && cov->bound == FIRST_TID_DEBUGFS &&
		   !ctx->history.walk.descriptors &&
		   !ctx->history.walk.nrevokes) {
		/* A journal as mke2fs left it: nothing was ever logged. */
		cov->how = E2SR_COVER_CREATION;
		return;
	}
	cov->how = E2SR_COVER_GAP;
}

/*
 * Fill ctx->coverage from the journal walk, with ctx->coverage.prev (set
 * by the caller, have_prev) as what the previous run saw.  Without a
 * journal coverage does not apply (E2SR_COVER_NONE); with one that was
 * not opened (external, no -j) nothing of its history can be read.
 */
errcode_t e2sr_coverage_scan(struct e2sr_ctx *ctx)
{
	struct e2sr_coverage *cov = &ctx->coverage;
	const struct e2sr_jwalk *w = &ctx->history.walk;
	struct cover cv;
	__u32 c = 0;
	int creation = 0, reaches_prev = 0;
	size_t i;
	errcode_t err;

	cov->prev_mismatch = 0;
	cov->how = E2SR_COVER_NONE;
	cov->have_log = cov->have_from = 0;
	cov->newest = cov->oldest = cov->from = 0;
	cov->newest_time = cov->oldest_time = 0;
	cov->newest_nsec = 0;
	if (!ctx->journal) {
		/* An external journal not given (-j): nothing of it read. */
		if (ctx->fs && ext2fs_has_feature_journal(ctx->fs->super))
			cov->how = E2SR_COVER_GAP;
		return 0;
	}
	if (!ctx->history.built || !w->has_journal)
		return 0;
	memset(&cv, 0, sizeof(cv));
	cv.jsb = &w->jsb;
	cv.w = w;
	cv.loglen = w->jsb.last - w->jsb.first;
	cov->bound = seq_bound(ctx);
	if (cv.loglen)
		err = build_owners(&cv, cov->bound);
	else
		err = 0;
	if (err)
		goto out;

	/* The newest commit before the bound. */
	for (i = 0; i < w->ncommits; i++) {
		__u32 s = w->commits[i].sequence;

		if (!tid_gt(cov->bound, s))
			continue;
		if (!cov->have_log || tid_gt(s, cov->newest)) {
			cov->have_log = 1;
			cov->newest = s;
			cov->newest_time = w->commits[i].commit_sec;
			cov->newest_nsec = w->commits[i].commit_nsec;
			c = w->commits[i].jblock;
		}
	}
	if (cov->have_prev && !prev_matches(w, cov)) {
		cov->have_prev = 0;
		cov->prev_mismatch = 1;
	}
	if (cov->have_log && c >= w->jsb.first && c < w->jsb.last &&
	    own_at(&cv, c)->type == OWN_COMMIT) {
		walk_back(&cv, cov, cov->newest, c, &creation, &reaches_prev);
		/* The first transaction, and nothing ever past the newest. */
		if (creation && !nothing_after(&cv, c, cov->bound))
			creation = 0;
		if (creation)
			cov->from = cov->oldest;
	}
	if (cov->have_from)
		cov->oldest_time = commit_time(w, cov->oldest);
	decide(ctx, cov, creation, reaches_prev);
out:
	ext2fs_free_mem(&cv.own);
	ext2fs_free_mem(&cv.rel);
	return err;
}

/*
 * The journal's history built, if there is a journal and it is not built
 * yet, and ctx->coverage filled from it: once a run.  Nothing the scan
 * reads changes between the passes that ask (the journal, its walk,
 * what the last run saw), and the scan clears have_prev when that run
 * was another journal's: a second scan would forget the mismatch
 * (prev_mismatch) the first one found.
 */
errcode_t e2sr_coverage_ready(struct e2sr_ctx *ctx)
{
	errcode_t err;

	if (ctx->coverage.ready)
		return 0;
	if (ctx->journal && !ctx->history.built) {
		err = e2sr_ring_history(ctx);
		if (err)
			return err;
	}
	err = e2sr_coverage_scan(ctx);
	if (err)
		return err;
	ctx->coverage.ready = 1;
	return 0;
}

/*
 * Whether transaction @tid is in the history the ring holds in full:
 * every transaction from it to the newest can be read.
 */
int e2sr_coverage_readable(const struct e2sr_coverage *c, __u32 tid)
{
	return c->have_log && c->have_from && tid_geq(tid, c->from) &&
	       tid_geq(c->newest, tid);
}

/*
 * What this run saw, for the next one: the newest transaction (or, with
 * none, the last tid before s_sequence) and where the kernel goes on.
 * Read after the run: a replay has moved s_sequence by then.
 */
void e2sr_coverage_next(const struct e2sr_ctx *ctx,
			struct e2sr_cover_prev *now)
{
	const struct e2sr_coverage *cov = &ctx->coverage;
	const struct e2sr_journal *j = ctx->journal;
	const unsigned char *h;

	memset(now, 0, sizeof(*now));
	if (!j)
		return;
	now->sequence = j->jsb.sequence;
	if (cov->have_log) {
		now->tid = cov->newest;
		now->tid_time = cov->newest_time;
		now->tid_nsec = cov->newest_nsec;
		now->have_nsec = 1;
	} else {
		now->tid = j->jsb.sequence - 1;
	}
	/* s_head, where s_padding[0] was: v2 superblocks only. */
	if (j->jsb.version >= 2 && j->sbuf) {
		h = j->sbuf + offsetof(struct e2sr_jbd2_sb, s_padding);
		now->head = (__u32)h[0] << 24 | (__u32)h[1] << 16 |
			    (__u32)h[2] << 8 | h[3];
	}
}

/*
 * Losses an earlier run reported and nothing answered since: maps lost,
 * gaps.  That run wiped what it could of them, so this one has no other
 * trace of them than the state it left.
 */
__u32 e2sr_coverage_pending(const struct e2sr_ctx *ctx)
{
	const struct e2sr_coverage *cov = &ctx->coverage;

	if (!cov->have_prev || cov->prev_mismatch)
		return 0;
	return cov->prev.unanswered;
}
