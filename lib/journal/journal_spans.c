/*
 * journal_spans.c --- the walk's judgement once every position is seen:
 * which transactions committed, which spans are whole, and the result.
 *
 * Owns matching each descriptor with the commit of its transaction after
 * its data, trusting the copies that do not match their tags inside a
 * span no other transaction wrote into (a copy rewritten in place), and
 * listing the walk's copies in journal block order (struct e2sr_jwalk).
 * The scan is journal_walk.c's; the claims journal_claims.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "jbd2.h"
#include "journal_io.h"
#include "journal_walk_int.h"

static int cmp_commit_seq(const void *a, const void *b)
{
	const struct e2sr_jcommit_rec *x = a, *y = b;

	if (x->sequence != y->sequence)
		return x->sequence < y->sequence ? -1 : 1;
	return x->jblock < y->jblock ? -1 : x->jblock > y->jblock;
}

/* The commit of descriptor @d's transaction after its data, or -1. */
static long commit_of(struct walk *w, const struct e2sr_jcommit_rec *cs,
		      size_t n, const struct desc_rec *d)
{
	size_t lo = 0, hi = n, mid;
	__u64 dist;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cs[mid].sequence < d->sequence)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && cs[lo].sequence == d->sequence; lo++) {
		dist = ((__u64)cs[lo].jblock + w->loglen - d->pos) %
		       w->loglen;
		if (dist > d->ntags)
			return (long)cs[lo].jblock;
	}
	return -1;
}

/* A commit of the descriptor's tid lies after its data in the ring. */
static int desc_committed(struct walk *w, const struct e2sr_jcommit_rec *cs,
			  size_t n, const struct desc_rec *d)
{
	return commit_of(w, cs, n, d) >= 0;
}

/* A jbd2 block of the log: where, and whose. */
struct jpos {
	__u32		pos;
	__u32		sequence;
};

static int cmp_jpos(const void *a, const void *b)
{
	const struct jpos *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Whether a block of another transaction lies strictly in (@from, @to). */
static int foreign_between(const struct jpos *p, size_t n, __u32 from,
			   __u32 to, __u32 seq)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p[mid].pos <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && p[lo].pos < to; lo++)
		if (p[lo].sequence != seq)
			return 1;
	return 0;
}

/*
 * A copy that does not match its tag, in a transaction whose descriptor
 * and commit are both there and between which no block of another
 * transaction lies, is the transaction's copy still: the log is written
 * in order, so whatever wrote inside that span later would have left its
 * own descriptor or commit there, or written over one of the two ends.
 * Such a copy was rewritten in place (a run of e2secrm zeroes parts of
 * copies it cannot seal again), or has gone bad: it is trusted, not
 * verified, and what reads it takes only what checks itself (a record
 * whose own checksum holds, history.c).  Its visit comes now.
 */
errcode_t e2sr_jw_trust_spans(struct walk *w)
{
	const struct e2sr_jsb *jsb = w->jsb;
	struct e2sr_jwalk *out = w->out;
	struct e2sr_jcommit_rec *cs = NULL;
	struct jpos *p = NULL;
	__u8 *clean = NULL;
	unsigned char *buf = NULL;
	size_t i, np = 0, ncs = out->ncommits;
	long c;
	errcode_t err;

	if (!jsb->csum_version || !w->ndescs || !ncs)
		return 0;
	err = ext2fs_get_array(ncs, sizeof(*cs), &cs);
	if (!err)
		err = ext2fs_get_array(w->ndescs + ncs + out->nrevokes + 1,
				       sizeof(*p), &p);
	if (!err)
		err = ext2fs_get_memzero(w->ndescs, &clean);
	if (!err)
		err = ext2fs_get_mem(jsb->blocksize, &buf);
	if (err)
		goto out;
	memcpy(cs, out->commits, ncs * sizeof(*cs));
	qsort(cs, ncs, sizeof(*cs), cmp_commit_seq);
	for (i = 0; i < w->ndescs; i++) {
		p[np].pos = w->descs[i].pos;
		p[np++].sequence = w->descs[i].sequence;
	}
	for (i = 0; i < ncs; i++) {
		p[np].pos = out->commits[i].jblock;
		p[np++].sequence = out->commits[i].sequence;
	}
	for (i = 0; i < out->nrevokes; i++) {
		p[np].pos = out->revokes[i].jblock;
		p[np++].sequence = out->revokes[i].sequence;
	}
	qsort(p, np, sizeof(*p), cmp_jpos);
	for (i = 0; i < w->ndescs; i++) {
		const struct desc_rec *d = &w->descs[i];

		c = commit_of(w, cs, ncs, d);
		if (c < 0)
			continue;
		if ((__u32)c > d->pos)
			clean[i] = !foreign_between(p, np, d->pos, (__u32)c,
						    d->sequence);
		else		/* the span wraps the ring's end */
			clean[i] = !foreign_between(p, np, d->pos, jsb->last,
						    d->sequence) &&
				   !foreign_between(p, np, jsb->first - 1,
						    (__u32)c, d->sequence);
	}
	for (i = 0; !err && i < w->nclaims; i++) {
		struct claim *cl = &w->claims[i];

		if (!cl->resolved || !cl->valid || cl->verified ||
		    !clean[cl->desc])
			continue;
		cl->trusted = 1;
		if (!w->look || !w->look->copy || !cl->in_range || w->fn_err)
			continue;
		if (e2sr_jw_facts_hold(w, cl->pos, cl, 1)) {
			e2sr_jw_visit_facts(w, cl);
			continue;
		}
		err = e2sr_journal_read(w->j, cl->pos, 1, buf);
		if (!err) {
			w->out->read++;
			e2sr_jw_visit_copy(w, cl, buf);
		}
	}
out:
	ext2fs_free_mem(&cs);
	ext2fs_free_mem(&p);
	ext2fs_free_mem(&clean);
	ext2fs_free_mem(&buf);
	return err ? err : w->fn_err;
}

errcode_t e2sr_jw_build_result(struct walk *w)
{
	struct e2sr_jwalk *out = w->out;
	struct e2sr_jcommit_rec *sorted = NULL;
	__u8 *committed;
	size_t i, n = 0;
	errcode_t err;

	err = ext2fs_get_memzero(w->ndescs ? w->ndescs : 1, &committed);
	if (err)
		return err;
	if (out->ncommits) {
		err = ext2fs_get_array(out->ncommits, sizeof(*sorted),
				       &sorted);
		if (err) {
			ext2fs_free_mem(&committed);
			return err;
		}
		memcpy(sorted, out->commits, out->ncommits * sizeof(*sorted));
		qsort(sorted, out->ncommits, sizeof(*sorted), cmp_commit_seq);
		for (i = 0; i < w->ndescs; i++)
			committed[i] = desc_committed(w, sorted,
						      out->ncommits,
						      &w->descs[i]);
	}

	/* Claims are made in scan order; emit in journal block order. */
	for (i = 0; i < w->loglen; i++) {
		__u32 idx = w->claim_of[i];
		struct claim *c;
		struct e2sr_jblock *b;

		if (!idx)
			continue;
		c = &w->claims[idx - 1];
		if (!c->valid || !c->in_range)
			continue;
		b = &out->blocks[n++];
		e2sr_jw_copy_of(w, c, b);
		b->committed = committed[c->desc];
	}
	out->nblocks = n;
	out->attributed = n;
	out->unattributed = w->loglen - out->descriptors - out->ncommits -
			    out->nrevokes - n;
	ext2fs_free_mem(&sorted);
	ext2fs_free_mem(&committed);
	return 0;
}

