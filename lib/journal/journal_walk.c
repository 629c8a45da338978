/*
 * journal_walk.c --- the whole-ring physical walk of the internal journal.
 *
 * Owns the scan of every block of the log area, live or stale:
 * descriptors and the data blocks that follow them, commit and revoke
 * blocks.  The blocks come through journal_dev.c's read window, in large
 * sequential runs; the parsing is journal_format.c's.  Every
 * number the journal carries is bounded before use, every allocation is
 * sized by the journal's length, and each log position is examined a
 * bounded number of times, so a corrupt journal cannot crash the walk or
 * make it loop.
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
#include "journal_walk.h"

/* A data position some descriptor says holds a copy of a fs block. */
struct claim {
	__u32		pos;		/* journal block */
	__u32		sequence;
	__u32		flags;
	__u32		csum;
	__u32		desc;		/* index into walk.descs */
	blk64_t		fs_block;
	__u8		in_range;	/* fs_block < blocks count */
	__u8		resolved;	/* its block looked at */
	__u8		valid;		/* it can be that data */
	__u8		verified;
	__u8		trusted;	/* not verified, in a clean span */
	__u8		zero;		/* all zero bytes */
};

struct desc_rec {
	__u32		pos;
	__u32		sequence;
	__u32		ntags;
};

struct tag_rec {
	blk64_t		blk;
	__u32		flags;
	__u32		csum;
};

struct walk {
	struct e2sr_journal	*j;
	blk64_t			fs_blocks;
	struct e2sr_jwalk	*out;
	const struct e2sr_jsb	*jsb;
	__u32			loglen;	/* last - first */
	__u32			*claim_of; /* per position: claim+1 */
	struct claim		*claims;
	size_t			nclaims;
	struct desc_rec		*descs;
	size_t			ndescs;
	struct tag_rec		*tags;	/* one descriptor's */
	size_t			max_tags;
	size_t			ntags;
	unsigned char		*scratch; /* one block */
	const struct e2sr_jwalk_look *look; /* the caller's, or NULL */
	errcode_t		fn_err;	/* its first error */
};

static __u32 ring_next(const struct e2sr_jsb *jsb, __u32 pos)
{
	return pos + 1 >= jsb->last ? jsb->first : pos + 1;
}

static int starts_with_magic(const unsigned char *b)
{
	return b[0] == 0xC0 && b[1] == 0x3B && b[2] == 0x39 && b[3] == 0x98;
}

/* Look at the block a claim names: is it that data, does it verify? */
/* The caller's look at a copy, as build_result will list it. */
static void visit_copy(struct walk *w, const struct claim *c,
		       const unsigned char *b)
{
	struct e2sr_jblock copy;

	memset(&copy, 0, sizeof(copy));
	copy.jblock = c->pos;
	copy.fs_block = c->fs_block;
	copy.sequence = c->sequence;
	copy.desc = w->descs[c->desc].pos;
	copy.flags = c->flags;
	copy.verified = c->verified;
	copy.trusted = c->trusted;
	copy.zero = c->zero;
	w->fn_err = w->look->copy(w->look->priv, &copy, b);
}

static void resolve_claim(struct walk *w, struct claim *c,
			  const unsigned char *b)
{
	const struct e2sr_jsb *jsb = w->jsb;

	c->resolved = 1;
	/* A stored data block never begins with the magic: it is escaped. */
	if (starts_with_magic(b)) {
		c->valid = 0;
		return;
	}
	c->valid = 1;
	c->zero = e2sr_all_zero(b, jsb->blocksize);
	if (!e2sr_jtag_csum_ok(jsb, c->sequence, b, c->csum)) {
		c->verified = 1;
	} else if ((c->flags & E2SR_JBD2_FLAG_ESCAPE) && jsb->csum_version) {
		/* Some writers checksum the block before escaping it. */
		memcpy(w->scratch, b, jsb->blocksize);
		w->scratch[0] = 0xC0;
		w->scratch[1] = 0x3B;
		w->scratch[2] = 0x39;
		w->scratch[3] = 0x98;
		if (!e2sr_jtag_csum_ok(jsb, c->sequence, w->scratch, c->csum))
			c->verified = 1;
	}
	/* One that does not match is shown once its span is judged. */
	if (w->look && w->look->copy && c->in_range && !w->fn_err &&
	    c->verified)
		visit_copy(w, c, b);
}

static errcode_t collect_tag(void *priv, blk64_t blk, __u32 flags,
			     __u32 csum, unsigned int index)
{
	struct walk *w = priv;

	if (index >= w->max_tags || index >= w->loglen - 1)
		return E2SR_ERR_JOURNAL_BAD_TAGS;
	w->tags[index].blk = blk;
	w->tags[index].flags = flags;
	w->tags[index].csum = csum;
	w->ntags = index + 1;
	return 0;
}

/* A descriptor at @pos: claim the positions its data blocks take. */
static void take_descriptor(struct walk *w, __u32 pos, __u32 seq,
			    const unsigned char *b)
{
	const struct e2sr_jsb *jsb = w->jsb;
	blk64_t fs_blocks = w->fs_blocks;
	struct desc_rec *d;
	struct claim *c;
	__u32 dpos = pos;
	size_t i;

	w->ntags = 0;
	if (e2sr_jdesc_tags(jsb, b, collect_tag, w) || !w->ntags) {
		w->out->bad_blocks++;
		return;
	}
	if (w->ndescs >= w->loglen)
		return;		/* cannot happen: one per position */
	d = &w->descs[w->ndescs];
	d->pos = pos;
	d->sequence = seq;
	d->ntags = w->ntags;
	w->out->descriptors++;

	for (i = 0; i < w->ntags; i++) {
		dpos = ring_next(jsb, dpos);
		if (dpos == pos)
			break;	/* more tags than the ring holds */
		/* Another descriptor's already: keep that claim. */
		if (w->claim_of[dpos - jsb->first])
			continue;
		if (w->nclaims >= w->loglen)
			break;
		c = &w->claims[w->nclaims];
		memset(c, 0, sizeof(*c));
		c->pos = dpos;
		c->sequence = seq;
		c->flags = w->tags[i].flags;
		c->csum = w->tags[i].csum;
		c->desc = w->ndescs;
		c->fs_block = w->tags[i].blk;
		c->in_range = w->tags[i].blk < fs_blocks;
		w->claim_of[dpos - jsb->first] = ++w->nclaims;
	}
	w->ndescs++;
}

static errcode_t add_commit(struct walk *w, __u32 pos,
			    const struct e2sr_jcommit *jc)
{
	struct e2sr_jwalk *out = w->out;
	struct e2sr_jcommit_rec *r;

	if (out->ncommits >= w->loglen)
		return 0;
	r = &out->commits[out->ncommits++];
	r->jblock = pos;
	r->sequence = jc->sequence;
	r->commit_sec = jc->commit_sec;
	r->commit_nsec = jc->commit_nsec;
	return 0;
}

static errcode_t count_revoke(void *priv, blk64_t blk, unsigned int index)
{
	__u32 *n = priv;

	(void)blk;
	(void)index;
	(*n)++;
	return 0;
}

/* One block of the log area, in scan order. */
static void scan_block(struct walk *w, __u32 pos, const unsigned char *b)
{
	const struct e2sr_jsb *jsb = w->jsb;
	struct e2sr_jwalk *out = w->out;
	struct e2sr_jcommit jc;
	struct e2sr_jrevoke_rec *r;
	__u32 idx = w->claim_of[pos - jsb->first];
	__u32 type, seq, nrec = 0;

	if (idx) {
		resolve_claim(w, &w->claims[idx - 1], b);
		if (w->claims[idx - 1].valid)
			return;
	}
	if (e2sr_jblock_header(jsb, b, &type, &seq))
		return;
	switch (type) {
	case E2SR_JBD2_DESCRIPTOR_BLOCK:
		take_descriptor(w, pos, seq, b);
		break;
	case E2SR_JBD2_COMMIT_BLOCK:
		if (e2sr_jcommit_check(jsb, b, &jc))
			out->bad_blocks++;
		else
			add_commit(w, pos, &jc);
		break;
	case E2SR_JBD2_REVOKE_BLOCK:
		if (e2sr_jrevoke_records(jsb, b, count_revoke, &nrec) ||
		    out->nrevokes >= w->loglen) {
			out->bad_blocks++;
			break;
		}
		r = &out->revokes[out->nrevokes++];
		r->jblock = pos;
		r->sequence = seq;
		r->records = nrec;
		break;
	default:
		out->bad_blocks++;
		break;
	}
}

/*
 * The log's blocks [first, last) on the device, in log order, asked for
 * ahead of the walk (readahead.c): the physical runs of the journal.
 */
static void log_readahead(struct walk *w, struct e2sr_ra **ra)
{
	const struct e2sr_jsb *jsb = w->jsb;
	struct e2sr_ra_range *r = NULL;
	size_t n = 0, alloc = 0;
	blk64_t phys;
	__u32 pos;

	*ra = NULL;
	if (!w->j->io || !w->j->io->name)
		return;
	for (pos = jsb->first; pos < jsb->last; pos++) {
		phys = e2sr_journal_phys(w->j, pos);
		if (n && r[n - 1].offset + r[n - 1].length ==
			 (__u64)phys * w->j->blocksize) {
			r[n - 1].length += w->j->blocksize;
			continue;
		}
		if (e2sr_array_room(&r, &alloc, n + 1, sizeof(*r)))
			goto out;
		r[n].offset = (__u64)phys * w->j->blocksize;
		r[n].length = w->j->blocksize;
		n++;
	}
	e2sr_ra_start(w->j->io->name, r, n, E2SR_RA_WINDOW, ra);
out:
	ext2fs_free_mem(&r);
}

/* Every position of [first, last), through the read window. */
static errcode_t scan_log(struct walk *w)
{
	const struct e2sr_jsb *jsb = w->jsb;
	const unsigned char *b;
	struct e2sr_ra *ra;
	__u32 pos;
	errcode_t err = 0;

	log_readahead(w, &ra);
	for (pos = jsb->first; pos < jsb->last; pos++) {
		if (w->fn_err) {
			err = w->fn_err;
			break;
		}
		if (!((pos - jsb->first) & 255))
			e2sr_ra_done(ra, (__u64)(pos - jsb->first) *
				     w->j->blocksize);
		err = e2sr_journal_block(w->j, pos, &b);
		if (err)
			break;
		scan_block(w, pos, b);
		/* What is not jbd2's own may hold a copy, descriptor or not. */
		if (ext2fs_be32_to_cpu(*(const __u32 *)b) != E2SR_JBD2_MAGIC &&
		    !e2sr_all_zero(b, jsb->blocksize))
		{
			w->out->stale[(pos - jsb->first) >> 3] |=
				1 << ((pos - jsb->first) & 7);
			w->out->nstale++;
			if (w->look && w->look->stale && !w->fn_err)
				w->fn_err = w->look->stale(w->look->priv, pos,
							   b);
		}
	}
	e2sr_ra_stop(&ra);
	return err;
}

/* Claims that wrapped behind the scan: read their blocks one by one. */
static errcode_t resolve_late(struct walk *w)
{
	unsigned char *buf;
	errcode_t err = 0;
	size_t i;

	err = ext2fs_get_mem(w->jsb->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; i < w->nclaims; i++) {
		struct claim *c = &w->claims[i];

		if (c->resolved)
			continue;
		err = e2sr_journal_read(w->j, c->pos, 1, buf);
		if (err)
			break;
		resolve_claim(w, c, buf);
	}
	ext2fs_free_mem(&buf);
	return err;
}

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
static errcode_t trust_clean_spans(struct walk *w)
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
		err = e2sr_journal_read(w->j, cl->pos, 1, buf);
		if (!err)
			visit_copy(w, cl, buf);
	}
out:
	ext2fs_free_mem(&cs);
	ext2fs_free_mem(&p);
	ext2fs_free_mem(&clean);
	ext2fs_free_mem(&buf);
	return err ? err : w->fn_err;
}

static errcode_t build_result(struct walk *w)
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
		b->jblock = c->pos;
		b->fs_block = c->fs_block;
		b->sequence = c->sequence;
		b->desc = w->descs[c->desc].pos;
		b->flags = c->flags;
		b->verified = c->verified;
		b->trusted = c->trusted;
		b->zero = c->zero;
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

/*
 * Walk the whole log area of an opened journal; @fs_blocks bounds the
 * filesystem blocks a copy may name.  Without a journal (@j NULL) the
 * result is empty.
 */
errcode_t e2sr_journal_walk(struct e2sr_journal *j, blk64_t fs_blocks,
			    struct e2sr_jwalk *out)
{
	return e2sr_journal_walk_visit(j, fs_blocks, NULL, out);
}

/* The same, showing @look the copies and stale blocks (journal_walk.h). */
errcode_t e2sr_journal_walk_visit(struct e2sr_journal *j, blk64_t fs_blocks,
				  const struct e2sr_jwalk_look *look,
				  struct e2sr_jwalk *out)
{
	struct walk w;
	const struct e2sr_jsb *jsb;
	errcode_t err;

	if (!out)
		return EXT2_ET_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (!j)
		return 0;

	memset(&w, 0, sizeof(w));
	w.j = j;
	w.fs_blocks = fs_blocks;
	w.look = look;
	w.out = out;
	out->jsb = j->jsb;
	out->jsb_csum_bad = j->sb_csum_bad;
	out->jsb_block = e2sr_journal_phys(j, 0);
	out->external = j->external;
	out->has_journal = 1;
	w.jsb = jsb = &out->jsb;
	w.loglen = jsb->last - jsb->first;

	/* Everything below is bounded by the log's length. */
	w.max_tags = jsb->blocksize / jsb->tag_bytes;
	err = ext2fs_get_arrayzero(w.max_tags, sizeof(*w.tags), &w.tags);
	if (!err)
		err = ext2fs_get_arrayzero(w.loglen, sizeof(*w.claim_of),
					   &w.claim_of);
	if (!err)
		err = ext2fs_get_arrayzero(w.loglen, sizeof(*w.claims),
					   &w.claims);
	if (!err)
		err = ext2fs_get_arrayzero(w.loglen, sizeof(*w.descs),
					   &w.descs);
	if (!err)
		err = ext2fs_get_mem(jsb->blocksize, &w.scratch);
	if (!err)
		err = ext2fs_get_arrayzero(w.loglen, sizeof(*out->commits),
					   &out->commits);
	if (!err)
		err = ext2fs_get_arrayzero(w.loglen, sizeof(*out->revokes),
					   &out->revokes);
	if (!err)
		err = ext2fs_get_arrayzero(w.loglen, sizeof(*out->blocks),
					   &out->blocks);
	if (!err)
		err = ext2fs_get_memzero(w.loglen / 8 + 1, &out->stale);
	if (err)
		goto fail;

	err = scan_log(&w);
	if (!err)
		err = resolve_late(&w);
	if (!err)
		err = w.fn_err;
	if (!err)
		err = trust_clean_spans(&w);
	if (!err)
		err = build_result(&w);
fail:
	ext2fs_free_mem(&w.tags);
	ext2fs_free_mem(&w.claim_of);
	ext2fs_free_mem(&w.claims);
	ext2fs_free_mem(&w.descs);
	ext2fs_free_mem(&w.scratch);
	if (err)
		e2sr_journal_walk_free(out);
	return err;
}

void e2sr_journal_walk_free(struct e2sr_jwalk *w)
{
	if (!w)
		return;
	ext2fs_free_mem(&w->blocks);
	ext2fs_free_mem(&w->commits);
	ext2fs_free_mem(&w->revokes);
	ext2fs_free_mem(&w->stale);
	memset(w, 0, sizeof(*w));
}

/* Whether log block @jblock holds bytes that are not jbd2's own. */
int e2sr_jwalk_stale(const struct e2sr_jwalk *w, __u32 jblock)
{
	__u32 i;

	if (!w->stale || jblock < w->jsb.first || jblock >= w->jsb.last)
		return 0;
	i = jblock - w->jsb.first;
	return !!(w->stale[i >> 3] & (1 << (i & 7)));
}
