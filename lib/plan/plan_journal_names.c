/*
 * plan_journal_names.c --- the journal plan's name search.
 *
 * Owns the search of the log for the names of secure-delete files: every
 * stale block that can hold directory entries (a copy of a directory
 * block, attributed or not, or of an inode table block with inline
 * directories) is read once, in log order, and every entry in it naming
 * a secure-delete inode, removed entries and slack included, gives its
 * name, unless the log proves the entry a later plain file's (the
 * records of the number, struct lives below).  The names, their hashes
 * and the copies holding them are kept once per run (ctx->names): the
 * plan, the names plan (dirent.c) and the wipe all ask.  What the plan
 * makes of them (the entries' bytes, the names' bytes) is
 * plan_journal.c's.
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
#include "find.h"

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The next place, from @off on, where bytes [.., @bs) read as a
 * directory entry naming a secure-delete inode, removed entries and
 * slack included: an aligned header whose inode is one of them and whose
 * lengths fit.  @bs when there is none.
 */
static unsigned int next_secure_entry(const struct jplan *p,
				      const unsigned char *b, unsigned int bs,
				      unsigned int off)
{
	for (; off + 8 < bs; off += 4) {
		/* The filter first: nearly every word of a copy misses it. */
		if (!e2sr_ino_set_maybe(&p->set, e2sr_get_le32(b + off)))
			continue;
		if (e2sr_jplan_entry_at(b, bs, off) &&
		    e2sr_ino_set_has(&p->set, e2sr_get_le32(b + off)))
			return off;
	}
	return bs;
}

static __u32 name_hash(const unsigned char *name, unsigned int len)
{
	return ext2fs_crc32c_le(len, name, len);
}

static errcode_t add_hash(__u32 **set, size_t *n, size_t *alloc, __u32 h)
{
	if (e2sr_array_room(set, alloc, *n + 1, sizeof(**set)))
		return EXT2_ET_NO_MEMORY;
	(*set)[(*n)++] = h;
	return 0;
}

/*
 * The names journal copies of directory blocks give to the inventory's
 * inodes, as hashes.  A removed entry in a live directory whose inode
 * field is zero (the first of a block, or of an inline directory) says
 * nothing of whose it was; the same name next to a secure-delete inode
 * number in a copy does.
 */
/* Append one name to the blob: a length byte, then the bytes. */
static errcode_t add_name(unsigned char **blob, size_t *len, size_t *alloc,
			  const unsigned char *name, unsigned int n)
{
	if (e2sr_array_room(blob, alloc, *len + 1 + n, 1))
		return EXT2_ET_NO_MEMORY;
	(*blob)[(*len)++] = n;
	memcpy(*blob + *len, name, n);
	*len += n;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char * const *)a;
	const unsigned char *y = *(const unsigned char * const *)b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return memcmp(x + 1, y + 1, x[0]);
}

/*
 * Every copy of a directory block gives its names again: keep each name
 * once, so that the slack search looks for each only once.
 */
static errcode_t unique_names(unsigned char **blob, size_t *blob_len)
{
	const unsigned char **names;
	unsigned char *out;
	size_t i, n = 0, len = 0;
	errcode_t err;

	if (!*blob_len)
		return 0;
	for (i = 0; i < *blob_len; i += 1 + (*blob)[i])
		n++;
	err = ext2fs_get_array(n, sizeof(*names), &names);
	if (err)
		return err;
	err = ext2fs_get_mem(*blob_len, &out);
	if (err) {
		ext2fs_free_mem(&names);
		return err;
	}
	for (i = n = 0; i < *blob_len; i += 1 + (*blob)[i])
		names[n++] = *blob + i;
	qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		if (i && !cmp_name(&names[i - 1], &names[i]))
			continue;
		memcpy(out + len, names[i], 1 + names[i][0]);
		len += 1 + names[i][0];
	}
	ext2fs_free_mem(&names);
	ext2fs_free_mem(blob);
	*blob = out;
	*blob_len = len;
	return 0;
}

/* A directory entry naming an inventory inode in a journal copy. */
static errcode_t add_name_copy(struct e2sr_ctx *ctx, __u32 jblock,
			       ext2_ino_t ino, __u32 off, __u32 name_len)
{
	struct e2sr_name_copy *c;

	if (e2sr_array_room(&ctx->names.copies, &ctx->names.copy_alloc,
			    ctx->names.copy_count + 1,
			    sizeof(*ctx->names.copies)))
		return EXT2_ET_NO_MEMORY;
	c = &ctx->names.copies[ctx->names.copy_count++];
	c->jblock = jblock;
	c->ino = ino;
	c->off = off;
	c->name_len = name_len;
	return 0;
}

/*
 * The names and the copies holding them are found once per run: the
 * plan and the wipe both ask, and the journal does not change between.
 */
static errcode_t names_to_cache(struct e2sr_ctx *ctx, const __u32 *hashes,
				size_t count, const unsigned char *blob,
				size_t blob_len)
{
	errcode_t err;

	err = ext2fs_get_mem(count ? count * sizeof(*hashes) : 1,
			     &ctx->names.hashes);
	if (!err)
		err = ext2fs_get_mem(blob_len ? blob_len : 1,
				     &ctx->names.blob);
	if (err)
		return err;
	if (count)
		memcpy(ctx->names.hashes, hashes, count * sizeof(*hashes));
	if (blob_len)
		memcpy(ctx->names.blob, blob, blob_len);
	ctx->names.hash_count = count;
	ctx->names.blob_len = blob_len;
	ctx->names.have = 1;
	return 0;
}

static errcode_t names_from_cache(struct e2sr_ctx *ctx, __u32 **hashes,
				  size_t *count, unsigned char **blob,
				  size_t *blob_len)
{
	size_t n = ctx->names.hash_count, len = ctx->names.blob_len;
	errcode_t err;

	err = ext2fs_get_mem(n ? n * sizeof(**hashes) : 1, hashes);
	if (!err)
		err = ext2fs_get_mem(len ? len : 1, blob);
	if (err) {
		ext2fs_free_mem(hashes);
		ext2fs_free_mem(blob);
		return err;
	}
	if (n)
		memcpy(*hashes, ctx->names.hashes, n * sizeof(**hashes));
	if (len)
		memcpy(*blob, ctx->names.blob, len);
	*count = n;
	*blob_len = len;
	return 0;
}

/*
 * Every stale block of the log that can hold names: copies of inode
 * table blocks (inline directories) and every block that reads as a
 * directory block, attributed or not (a later transaction may have
 * overwritten its descriptor).  A run wipes the descriptors of the
 * copies it zeroes, and the next run must find no more: what it finds
 * unattributed was attributed here, and is looked at here if it can
 * hold names then.
 */
/*
 * Whether stale log block @jb can hold names; @k is the caller's cursor
 * in the history's journal-order index, moved up to @jb.
 */
static int name_block(const struct e2sr_history *h, __u32 jb, size_t *k,
		      int *itable)
{
	while (*k < h->n && h->v[h->by_jblock[*k]].jblock < jb)
		(*k)++;
	*itable = *k < h->n &&
		  h->v[h->by_jblock[*k]].jblock == jb &&
		  h->v[h->by_jblock[*k]].kind == E2SR_JK_ITABLE;
	/* The walk said which read as directories or hold inline ones. */
	if (*itable)
		return e2sr_history_inline_dirs(h, jb);
	return e2sr_history_dirlike(h, jb);
}

/*
 * Every stale block that can hold names, to @fn, but those whose kept
 * index says they hold nothing @q asks for (ring_check reads those as
 * well, to compare their index with their bytes).  A block read without
 * an index that answers gets one, for the next run.
 */
errcode_t e2sr_jplan_name_blocks(struct e2sr_ctx *ctx,
				 const struct name_query *q, name_block_fn fn,
				 void *priv)
{
	const struct e2sr_history *h = &ctx->history;
	const struct e2sr_jwalk *w = &h->walk;
	int check = ctx->since.ring_check;
	const unsigned char *b;
	__u8 *want = NULL;
	size_t k = 0;
	__u32 jb;
	int itable, no;
	errcode_t err = 0;

	if (!w->nstale)
		return 0;
	/* What this pass reads, so that only that is read. */
	err = ext2fs_get_memzero((w->jsb.last - w->jsb.first) / 8 + 1, &want);
	if (!err)
		err = e2sr_jplan_index_maps(ctx);
	if (err) {
		ext2fs_free_mem(&want);
		return err;
	}
	for (jb = w->jsb.first; jb < w->jsb.last; jb++) {
		if (!e2sr_jwalk_stale(w, jb) || !name_block(h, jb, &k, &itable))
			continue;
		e2sr_jplan_index_mark(ctx, jb, itable);
		if (!check && e2sr_jplan_index_no(ctx, q, jb, itable) > 0) {
			ctx->names.passed_over++;
			continue;
		}
		want[(jb - w->jsb.first) >> 3] |=
			1 << ((jb - w->jsb.first) & 7);
	}
	e2sr_journal_want(ctx->journal, want, w->jsb.first,
			  w->jsb.last - w->jsb.first);
	for (jb = w->jsb.first, k = 0; jb < w->jsb.last; jb++) {
		if (!(want[(jb - w->jsb.first) >> 3] &
		      (1 << ((jb - w->jsb.first) & 7))))
			continue;
		name_block(h, jb, &k, &itable);
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = e2sr_journal_block(ctx->journal, jb, &b);
		if (err)
			break;
		ctx->names.reads++;
		/*
		 * Without the check a block whose index said no was not
		 * wanted: only the check asks again, to compare.
		 */
		no = check ? e2sr_jplan_index_no(ctx, q, jb, itable) : 0;
		err = e2sr_jplan_index_note(ctx, jb, b, itable, no);
		if (err)
			break;
		if (no > 0) {
			/* ring_check: compared, and passed over all the same */
			ctx->names.passed_over++;
			continue;
		}
		err = e2sr_jplan_block_ranges(ctx, jb, b, itable, fn, priv);
		if (err)
			break;
	}
	e2sr_journal_want(ctx->journal, NULL, 0, 0);
	ext2fs_free_mem(&want);
	return err;
}

/*
 * Whose life an entry in a journal copy is.  An entry carries an inode
 * number and no generation: a secure-delete file's number may have gone,
 * after its deletion, to a plain file (or come from one), whose entries
 * then name the same number.  Such an entry is the plain file's, and
 * kept, only when the log proves it: the entry is in the copy's chain
 * (live in its directory at that transaction), and the newest record of
 * the number in the log up to the copy's transaction is of a generation
 * no secure-delete file has, under any of its generations (discover.c
 * joins those a late flag after `chattr -v` made one file).  A new owner
 * of a number is logged in the transaction that gives it the number (its
 * record and its entry are one handle's), so that record is the newest
 * at or before any copy naming it.  Anything less is taken for the
 * secure-delete file's.
 */
struct life_id {
	ext2_ino_t	ino;
	__u32		generation;
};

struct lives {
	struct e2sr_irec	*recs;	/* of secure numbers: ino, sequence */
	size_t			nrecs;
	struct life_id		*ids;	/* the inventory's, by ino */
	size_t			nids;
};

/* Transaction IDs wrap: a is before b. */
static int seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

static int cmp_rec_life(const void *a, const void *b)
{
	const struct e2sr_irec *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->sequence != y->sequence)
		return seq_before(x->sequence, y->sequence) ? -1 : 1;
	return 0;
}

static int cmp_life_id(const void *a, const void *b)
{
	const struct life_id *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void lives_free(struct lives *l)
{
	ext2fs_free_mem(&l->recs);
	ext2fs_free_mem(&l->ids);
	memset(l, 0, sizeof(*l));
}

static errcode_t lives_build(const struct e2sr_ctx *ctx,
			     const struct e2sr_ino_set *set, struct lives *l)
{
	const struct e2sr_history *h = &ctx->history;
	const struct e2sr_file *f;
	struct e2sr_irec rec;
	size_t i, cur = 0;
	errcode_t err;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < h->nrecs; i++) {
		e2sr_history_rec(h, i, &cur, &rec);
		if (e2sr_ino_set_has(set, rec.ino))
			l->nrecs++;
	}
	err = ext2fs_get_array(l->nrecs + 1, sizeof(*l->recs), &l->recs);
	if (!err)
		err = ext2fs_get_array(ctx->inv.count + ctx->inv.joined_count +
				       1, sizeof(*l->ids), &l->ids);
	if (err) {
		lives_free(l);
		return err;
	}
	for (i = l->nrecs = 0, cur = 0; i < h->nrecs; i++) {
		e2sr_history_rec(h, i, &cur, &rec);
		if (e2sr_ino_set_has(set, rec.ino))
			l->recs[l->nrecs++] = rec;
	}
	qsort(l->recs, l->nrecs, sizeof(*l->recs), cmp_rec_life);
	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		l->ids[i].ino = f->ino;
		l->ids[i].generation = f->generation;
	}
	for (i = 0; i < ctx->inv.joined_count; i++) {
		l->ids[ctx->inv.count + i].ino = ctx->inv.joined[i].ino;
		l->ids[ctx->inv.count + i].generation =
			ctx->inv.joined[i].generation;
	}
	l->nids = ctx->inv.count + ctx->inv.joined_count;
	qsort(l->ids, l->nids, sizeof(*l->ids), cmp_life_id);
	return 0;
}

static int key_life_id(const void *key, const void *elem)
{
	ext2_ino_t ino = *(const ext2_ino_t *)key;
	const struct life_id *x = elem;

	return ino < x->ino ? -1 : ino > x->ino;
}

static int key_rec_life(const void *key, const void *elem)
{
	ext2_ino_t ino = *(const ext2_ino_t *)key;
	const struct e2sr_irec *x = elem;

	return ino < x->ino ? -1 : ino > x->ino;
}

/* Whether @gen is a secure-delete file's generation for @ino. */
static int secure_gen(const struct lives *l, ext2_ino_t ino, __u32 gen)
{
	size_t lo;

	lo = e2sr_lower_bound(l->ids, l->nids, sizeof(*l->ids), &ino,
			      key_life_id);
	for (; lo < l->nids && l->ids[lo].ino == ino; lo++)
		if (l->ids[lo].generation == gen)
			return 1;
	return 0;
}

/*
 * Whether the entry naming @ino in a copy made by transaction @seq is a
 * plain file's (above): the records of @ino are sorted by sequence; the
 * newest at or before @seq and its ties (one transaction's copies) must
 * all be of plain generations.
 */
static int plain_life(const struct lives *l, ext2_ino_t ino, __u32 seq)
{
	size_t lo, i, newest = l->nrecs;

	lo = e2sr_lower_bound(l->recs, l->nrecs, sizeof(*l->recs), &ino,
			      key_rec_life);
	for (i = lo; i < l->nrecs && l->recs[i].ino == ino; i++)
		if (!seq_before(seq, l->recs[i].sequence))
			newest = i;
	if (newest == l->nrecs)
		return 0;	/* no record that early: unknown */
	for (i = lo; i < l->nrecs && l->recs[i].ino == ino; i++) {
		if (l->recs[i].sequence != l->recs[newest].sequence)
			continue;
		if (secure_gen(l, ino, l->recs[i].generation))
			return 0;
	}
	return 1;
}

/* The transaction that made the copy in stale block @jb; 0: none known. */
static int copy_sequence(const struct e2sr_history *h, __u32 jb, __u32 *seq)
{
	size_t lo = 0, hi = h->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (h->v[h->by_jblock[mid]].jblock < jb)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->n || h->v[h->by_jblock[lo]].jblock != jb ||
	    !h->v[h->by_jblock[lo]].committed)
		return 0;
	*seq = h->v[h->by_jblock[lo]].sequence;
	return 1;
}

/*
 * Whether an entry starts at @at in the chain of directory block @b.
 * The hits of one block come in order, so the chain is walked once:
 * *@c, 0 for a new block, is where it stands.
 */
static int in_chain(const unsigned char *b, unsigned int bs, unsigned int *c,
		    unsigned int at)
{
	unsigned int rec_len;

	while (*c < at && *c + 8 <= bs) {
		rec_len = b[*c + 4] | (b[*c + 5] << 8);
		if (bs >= 65536 && (rec_len == 65535 || !rec_len))
			rec_len = 65536;
		if (rec_len < 8) {
			*c = bs;
			break;
		}
		*c += rec_len;
	}
	return *c == at && at + 8 <= bs;
}

struct names_found {
	const struct jplan	*p;
	const struct lives	*lives;
	__u32			**hashes;
	size_t			n;
	size_t			alloc;
	unsigned char		**blob;
	size_t			*blob_len;
	size_t			blob_alloc;
};

/* The entries naming secure-delete inodes in one stale block. */
static errcode_t block_names(struct e2sr_ctx *ctx, __u32 jblock,
			     const unsigned char *b, unsigned int from,
			     unsigned int to, int dir, void *priv)
{
	struct names_found *nf = priv;
	unsigned int off, name_len, chain = 0;
	__u32 seq = 0;
	int known = 0;
	errcode_t err = 0;

	/* Removed entries and slack too: every word. */
	for (off = next_secure_entry(nf->p, b, to, from); !err && off < to;
	     off = next_secure_entry(nf->p, b, to, off + 4)) {
		if (dir && !known)
			known = copy_sequence(&ctx->history, jblock, &seq) ?
				1 : -1;
		if (known > 0 && in_chain(b, to, &chain, off) &&
		    plain_life(nf->lives, e2sr_get_le32(b + off), seq))
			continue;	/* a later plain file's entry */
		name_len = b[off + 6];
		err = add_hash(nf->hashes, &nf->n, &nf->alloc,
			       name_hash(b + off + 8, name_len));
		if (!err)
			err = add_name(nf->blob, nf->blob_len,
				       &nf->blob_alloc, b + off + 8, name_len);
		if (!err)
			err = add_name_copy(ctx, jblock, e2sr_get_le32(b + off), off,
					    name_len);
	}
	return err;
}

/*
 * Besides the names, the copies that hold them are noted in log order,
 * so that planning the directory copies does not read the log again.
 */
errcode_t e2sr_journal_names(struct e2sr_ctx *ctx, __u32 **hashes,
			     size_t *count, unsigned char **blob,
			     size_t *blob_len)
{
	struct names_found nf;
	struct name_query q;
	struct lives lives;
	size_t n = 0;
	struct jplan p;
	errcode_t err = 0;

	*hashes = NULL;
	*count = 0;
	*blob = NULL;
	*blob_len = 0;
	if (ctx->names.have)
		return names_from_cache(ctx, hashes, count, blob, blob_len);
	ctx->names.copy_count = 0;
	if (!ctx->journal || !ctx->history.built || !ctx->inv.count)
		return 0;
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	err = e2sr_inventory_set(ctx, 0, &p.set);
	if (err)
		return err;
	memset(&nf, 0, sizeof(nf));
	nf.p = &p;
	nf.lives = &lives;
	nf.hashes = hashes;
	nf.blob = blob;
	nf.blob_len = blob_len;
	memset(&q, 0, sizeof(q));
	q.set = &p.set;
	err = lives_build(ctx, &p.set, &lives);
	if (!err)
		err = e2sr_jplan_name_blocks(ctx, &q, block_names, &nf);
	lives_free(&lives);
	n = nf.n;
	e2sr_ino_set_free(&p.set);
	if (err) {
		ext2fs_free_mem(hashes);
		ext2fs_free_mem(blob);
		*hashes = NULL;
		*blob = NULL;
		*blob_len = 0;
		return err;
	}
	if (n)
		qsort(*hashes, n, sizeof(**hashes), cmp_u32);
	*count = n;
	err = unique_names(blob, blob_len);
	if (!err)
		err = names_to_cache(ctx, *hashes, n, *blob, *blob_len);
	if (err) {
		ext2fs_free_mem(hashes);
		ext2fs_free_mem(blob);
		*hashes = NULL;
		*blob = NULL;
		*blob_len = 0;
		*count = 0;
	}
	return err;
}

int e2sr_name_in(const __u32 *hashes, size_t count, const char *name,
		 unsigned int len)
{
	__u32 h = name_hash((const unsigned char *)name, len);

	return count && bsearch(&h, hashes, count, sizeof(*hashes),
				cmp_u32) != NULL;
}

