/*
 * journal_walk.c --- the whole-ring physical walk of the internal journal.
 *
 * Owns the scan of every block of the log area, live or stale:
 * descriptors and the data blocks that follow them, commit and revoke
 * blocks; with a run's kept facts (ring_facts.h), the positions the
 * kernel did not write since are taken from them instead of read.  A
 * claimed position is journal_claims.c's, the spans and the result
 * journal_spans.c's.  The blocks come through journal_dev.c's read
 * window, in large sequential runs; the parsing is journal_format.c's.
 * Every
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
#include "journal_walk_int.h"

static __u32 ring_next(const struct e2sr_jsb *jsb, __u32 pos)
{
	return pos + 1 >= jsb->last ? jsb->first : pos + 1;
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
		e2sr_jw_resolve(w, &w->claims[idx - 1], b);
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
		/* With facts, what the kernel wrote since (mostly). */
		if (w->look && w->look->facts &&
		    e2sr_rf_known(w->look->facts, pos) &&
		    !e2sr_jw_fresh(w, pos))
			continue;
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

static void mark_stale(struct walk *w, __u32 pos)
{
	w->out->stale[(pos - w->jsb->first) >> 3] |=
		1 << ((pos - w->jsb->first) & 7);
	w->out->nstale++;
}

/*
 * Position @pos from its kept facts: what scan_block() and the stale
 * look would make of its bytes.  A jbd2 block's bytes are kept whole.
 */
static void scan_facts(struct walk *w, __u32 pos)
{
	const struct e2sr_ring_facts *f = w->look->facts;
	__u32 idx = w->claim_of[pos - w->jsb->first];
	__u16 bits = f->bits[pos - f->first];

	if (w->look->out && !w->look->out->broken)
		e2sr_rf_copy_pos(w->look->out, f, pos);
	if (bits & E2SR_RF_JBD2) {
		e2sr_rf_get_jbd2(f, pos, w->kept);
		scan_block(w, pos, w->kept);
		return;
	}
	if (idx)
		e2sr_jw_resolve_facts(w, &w->claims[idx - 1]);
	if (!(bits & E2SR_RF_STALE))
		return;
	mark_stale(w, pos);
	if (w->look->stale_facts && !w->fn_err)
		w->fn_err = w->look->stale_facts(w->look->priv, pos, bits);
}

/* The facts of a position read: its bytes, and what it is. */
static void note_read(struct walk *w, __u32 pos, const unsigned char *b,
		      int stale)
{
	struct e2sr_ring_facts *out = w->look ? w->look->out : NULL;

	if (!out || out->broken)
		return;
	if (ext2fs_be32_to_cpu(*(const __u32 *)b) == E2SR_JBD2_MAGIC) {
		e2sr_rf_put_jbd2(out, pos, b);
		return;
	}
	out->bits[pos - out->first] |= E2SR_RF_KNOWN |
				       (stale ? E2SR_RF_STALE : 0);
}

/* Whether @pos is read: no facts, or a claim now that they do not hold. */
static int must_read(struct walk *w, __u32 pos)
{
	__u32 idx = w->claim_of[pos - w->jsb->first];

	return !e2sr_jw_facts_hold(w, pos, idx ? &w->claims[idx - 1] : NULL, 0);
}

/* Every position of [first, last), through the read window. */
static errcode_t scan_log(struct walk *w)
{
	const struct e2sr_jsb *jsb = w->jsb;
	const unsigned char *b;
	struct e2sr_ra *ra;
	__u32 pos;
	int stale;
	errcode_t err = 0;

	log_readahead(w, &ra);
	for (pos = jsb->first; pos < jsb->last; pos++) {
		if (w->fn_err) {
			err = w->fn_err;
			break;
		}
		if (!((pos - jsb->first) & 255))
			e2sr_ra_done(ra, (__u64)(w->look && w->look->facts ?
						  w->out->read :
						  pos - jsb->first) *
				     w->j->blocksize);
		if (!must_read(w, pos)) {
			scan_facts(w, pos);
			continue;
		}
		err = e2sr_journal_block(w->j, pos, &b);
		if (err)
			break;
		w->out->read++;
		if (w->look && w->look->out)
			e2sr_rf_forget(w->look->out, pos);
		scan_block(w, pos, b);
		/* What is not jbd2's own may hold a copy, descriptor or not. */
		stale = ext2fs_be32_to_cpu(*(const __u32 *)b) !=
			E2SR_JBD2_MAGIC && !e2sr_all_zero(b, jsb->blocksize);
		note_read(w, pos, b, stale);
		if (stale) {
			mark_stale(w, pos);
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
		if (e2sr_jw_facts_hold(w, c->pos, c, 0)) {
			e2sr_jw_resolve_facts(w, c);
			continue;
		}
		err = e2sr_journal_read(w->j, c->pos, 1, buf);
		if (err)
			break;
		w->out->read++;
		e2sr_jw_resolve(w, c, buf);
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * With facts, the read window reads ahead only over the positions the
 * walk reads (what is fresh, or not known): not the ring.
 */
static errcode_t want_fresh(struct walk *w, __u8 **want)
{
	const struct e2sr_jwalk_look *l = w->look;
	__u32 i;
	errcode_t err;

	*want = NULL;
	if (!l || !l->facts)
		return 0;
	err = ext2fs_get_memzero(w->loglen / 8 + 1, want);
	if (err)
		return err;
	for (i = 0; i < w->loglen; i++)
		if (e2sr_jw_fresh(w, w->jsb->first + i) ||
		    !e2sr_rf_known(l->facts, w->jsb->first + i))
			(*want)[i >> 3] |= 1 << (i & 7);
	e2sr_journal_want(w->j, *want, w->jsb->first, w->loglen);
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
	__u8 *want = NULL;
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
	/* Facts of another log are none. */
	if (look && look->facts &&
	    (look->facts->first != j->jsb.first ||
	     look->facts->last != j->jsb.last ||
	     look->facts->blocksize != j->jsb.blocksize)) {
		w.look_copy = *look;
		w.look_copy.facts = NULL;
		w.look = &w.look_copy;
	}
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
		err = ext2fs_get_mem(jsb->blocksize, &w.kept);
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

	err = want_fresh(&w, &want);
	if (!err)
		err = scan_log(&w);
	if (!err)
		err = resolve_late(&w);
	if (!err)
		err = w.fn_err;
	if (!err)
		err = e2sr_jw_trust_spans(&w);
	if (!err)
		err = e2sr_jw_build_result(&w);
fail:
	ext2fs_free_mem(&w.tags);
	ext2fs_free_mem(&w.claim_of);
	ext2fs_free_mem(&w.claims);
	ext2fs_free_mem(&w.descs);
	ext2fs_free_mem(&w.scratch);
	ext2fs_free_mem(&w.kept);
	if (want) {
		e2sr_journal_want(j, NULL, 0, 0);
		ext2fs_free_mem(&want);
	}
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
