/*
 * plan_journal.c --- which journal blocks hold residues of secure-delete
 * files.
 *
 * Owns the journal part of the plan: every journal block that holds a
 * copy of a secure-delete record (found by discover.c), a copy of any
 * block of such a file's maps, live or historic (data with data=journal,
 * extent, indirect and EA blocks), a copy of a directory block that names
 * such an inode, live entry or removed, and every fast-commit block with
 * such an inode or name.  Every stale block of the log, attributed or
 * not (a later transaction may have overwritten its descriptor), is also
 * searched for the bytes of the names those entries gave, where no
 * header is left to say they are names.
 *
 * A copy that holds only a secure-delete file's residue goes whole (data,
 * tree blocks); a copy shared with other files (an inode table block, a
 * directory block) loses only the secure-delete bytes: the record's slot,
 * an entry's inode and name, the name bytes found.  The rest, other
 * files' residue included, is theirs, and the default mode promises to
 * touch only what belongs to secure-delete files.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrmP.h"
#include "fast_commit.h"
#include "crc32c.h"
#include "name_set.h"
#include "unaligned.h"

struct jplan {
	struct e2sr_ctx		*ctx;
	/* Every 4-byte word of a copy is looked up: most miss. */
	struct e2sr_ino_set	set;		/* secure-delete numbers */
};

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * By journal block; for one block the whole first (it makes the parts
 * moot), then the parts by offset; the first reason found wins.
 */
static int cmp_jplan(const void *a, const void *b)
{
	const struct e2sr_jplan *x = a, *y = b;

	if (x->jblock != y->jblock)
		return x->jblock < y->jblock ? -1 : 1;
	if (!x->len != !y->len)
		return x->len ? 1 : -1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* A descriptor sealed at several stages: the last one first. */
	if (x->stage != y->stage)
		return x->stage > y->stage ? -1 : 1;
	return x->why < y->why ? -1 : x->why > y->why;
}

/* @len bytes of @jblock from @off; @len 0: the whole block. */
static errcode_t plan_part(struct e2sr_plan *plan, __u32 jblock,
			   enum e2sr_jwhy why, ext2_ino_t ino, __u32 off,
			   __u32 len)
{
	struct e2sr_jplan *e;

	if (e2sr_array_room(&plan->journal, &plan->journal_alloc,
			    plan->journal_count + 1, sizeof(*plan->journal)))
		return EXT2_ET_NO_MEMORY;
	e = &plan->journal[plan->journal_count++];
	memset(e, 0, sizeof(*e));
	e->jblock = jblock;
	e->why = why;
	e->ino = ino;
	e->off = off;
	e->len = len;
	if (why == E2SR_JWHY_FC)
		e->stage = E2SR_JSTAGE_FLAGGED;
	else if (why == E2SR_JWHY_NAMEBYTES)
		e->stage = E2SR_JSTAGE_BYTES;
	else
		e->stage = E2SR_JSTAGE_COPIES;
	return 0;
}

static errcode_t plan_jblock(struct e2sr_plan *plan, __u32 jblock,
			     enum e2sr_jwhy why, ext2_ino_t ino)
{
	return plan_part(plan, jblock, why, ino, 0, 0);
}

/* Copies of every block any map of a secure-delete file names. */
/*
 * Past the last entry of the sorted plan that is for the same journal
 * block as entry @i: a block's whole and partial entries are adjacent.
 */
size_t e2sr_jplan_block_end(const struct e2sr_plan *plan, size_t i)
{
	size_t end;

	for (end = i + 1; end < plan->journal_count &&
	     plan->journal[end].jblock == plan->journal[i].jblock; end++)
		;
	return end;
}

static errcode_t plan_map_copies(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	const struct e2sr_version *v;
	size_t i, j, k, n;
	blk64_t b;
	errcode_t err;

	for (i = 0; i < ctx->inv.count; i++) {
		const struct e2sr_file *f = &ctx->inv.files[i];

		if (f->state == E2SR_STATE_ORPHAN ||
		    f->state == E2SR_STATE_UNCLEAR)
			continue;
		for (j = 0; j < f->map_count; j++) {
			const struct e2sr_extent *e = &f->map[j];

			for (b = e->pblk; b < e->pblk + e->len; b++) {
				v = e2sr_history_versions(&ctx->history, b,
							  &n);
				for (k = 0; k < n; k++) {
					err = plan_jblock(&ctx->plan,
							  v[k].jblock,
							  E2SR_JWHY_MAP,
							  f->ino);
					if (err)
						return err;
				}
			}
		}
	}
	return 0;
}

/* A name the kernel could have written: no NUL, no slash. */
static int valid_name(const unsigned char *name, unsigned int len)
{
	return !memchr(name, 0, len) && !memchr(name, '/', len);
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
	unsigned int rec_len, name_len;

	for (; off + 8 < bs; off += 4) {
		/* The filter first: nearly every word of a copy misses it. */
		if (!e2sr_ino_set_maybe(&p->set, e2sr_get_le32(b + off)))
			continue;
		rec_len = b[off + 4] | (b[off + 5] << 8);
		name_len = b[off + 6];
		if (!name_len || rec_len < 12 || (rec_len & 3) ||
		    8 + name_len > rec_len || off + 8 + name_len > bs)
			continue;
		if (e2sr_ino_set_has(&p->set, e2sr_get_le32(b + off)) &&
		    valid_name(b + off + 8, name_len))
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
 * Bytes [from, to) of stale block @jblock can hold entries; @dir: they
 * are the whole block, and it reads as a directory block.
 */
typedef errcode_t (*name_block_fn)(struct e2sr_ctx *ctx, __u32 jblock,
				   const unsigned char *b, unsigned int from,
				   unsigned int to, int dir, void *priv);

/*
 * In a copy of an inode table block, the entries of inline directories:
 * after the parent's number in i_block, and in the in-inode xattr area
 * (system.data).  The rest of a record is numbers, no names.
 */
static errcode_t itable_names(struct e2sr_ctx *ctx, __u32 jblock,
			      const unsigned char *b, name_block_fn fn,
			      void *priv)
{
	unsigned int bs = ctx->journal->blocksize;
	unsigned int isz = EXT2_INODE_SIZE(ctx->fs->super), slot, extra;
	const unsigned char *r;
	errcode_t err;

	if (isz < EXT2_GOOD_OLD_INODE_SIZE || isz > bs)
		return 0;
	for (slot = 0; slot + isz <= bs; slot += isz) {
		r = b + slot;
		if (!e2sr_inline_dir_record(r))
			continue;
		err = fn(ctx, jblock, b, slot + 44, slot + 100, 0, priv);
		if (err)
			return err;
		if (isz <= EXT2_GOOD_OLD_INODE_SIZE + 4)
			continue;
		extra = r[128] | (r[129] << 8);
		if (extra & 3 || EXT2_GOOD_OLD_INODE_SIZE + extra >= isz)
			continue;
		err = fn(ctx, jblock, b, slot + EXT2_GOOD_OLD_INODE_SIZE + extra,
			 slot + isz, 0, priv);
		if (err)
			return err;
	}
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

static errcode_t for_name_blocks(struct e2sr_ctx *ctx, name_block_fn fn,
				 void *priv)
{
	const struct e2sr_history *h = &ctx->history;
	const struct e2sr_jwalk *w = &h->walk;
	unsigned int bs = ctx->journal->blocksize;
	const unsigned char *b;
	__u8 *want = NULL;
	size_t k = 0;
	__u32 jb;
	int itable;
	errcode_t err;

	if (!w->nstale)
		return 0;
	/* What this pass reads, so that only that is read. */
	err = ext2fs_get_memzero((w->jsb.last - w->jsb.first) / 8 + 1, &want);
	if (err)
		return err;
	for (jb = w->jsb.first; jb < w->jsb.last; jb++)
		if (e2sr_jwalk_stale(w, jb) && name_block(h, jb, &k, &itable))
			want[(jb - w->jsb.first) >> 3] |=
				1 << ((jb - w->jsb.first) & 7);
	e2sr_journal_want(ctx->journal, want, w->jsb.first,
			  w->jsb.last - w->jsb.first);
	for (jb = w->jsb.first, k = 0; jb < w->jsb.last; jb++) {
		if (!e2sr_jwalk_stale(w, jb) || !name_block(h, jb, &k, &itable))
			continue;
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = e2sr_journal_block(ctx->journal, jb, &b);
		if (err)
			break;
		if (itable)
			err = itable_names(ctx, jb, b, fn, priv);
		else
			err = fn(ctx, jb, b, 0, bs, 1, priv);
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
	err = lives_build(ctx, &p.set, &lives);
	if (!err)
		err = for_name_blocks(ctx, block_names, &nf);
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

/*
 * Every entry naming a secure-delete inode in a directory copy, from
 * what e2sr_journal_names noted: its inode, name length, type and name
 * go; its rec_len stays, so that the other entries of the copy still
 * chain as they did.
 */
static errcode_t plan_dir_copies(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	__u32 *hashes;
	unsigned char *blob;
	size_t i, n, len;
	errcode_t err;

	if (!ctx->names.have) {
		err = e2sr_journal_names(ctx, &hashes, &n, &blob, &len);
		ext2fs_free_mem(&hashes);
		ext2fs_free_mem(&blob);
		if (err)
			return err;
	}
	for (i = 0; i < ctx->names.copy_count; i++) {
		const struct e2sr_name_copy *c = &ctx->names.copies[i];

		if (!e2sr_ino_set_has(&p->set, c->ino))
			continue;
		err = plan_part(&ctx->plan, c->jblock, E2SR_JWHY_NAME,
				c->ino, c->off, 4);
		if (!err)
			err = plan_part(&ctx->plan, c->jblock, E2SR_JWHY_NAME,
					c->ino, c->off + 6, 2 + c->name_len);
		if (err)
			return err;
	}
	return 0;
}

struct bytes_plan {
	struct e2sr_plan	*plan;
	const unsigned char	*b;
	__u32			jblock;
	__u32			inodes;		/* s_inodes_count */
	unsigned int		from;		/* where the search begins */
	errcode_t		err;
};

/*
 * A name whose header is whole and names an inode is that inode's entry:
 * a secure-delete inode's is planned with its header, any other file's
 * is that file's, even with a secure-delete file's name.  A header is
 * whole only inside the range searched: one that begins before it
 * overlaps what is in use there, the entry before it.  When the kernel
 * packs a leaf's entries after a split, a live name's last bytes land on
 * a stale entry's inode field and leave its lengths as they were: the
 * number read there is name bytes, in range or not.
 */
static int bytes_hit(void *priv, unsigned int off, unsigned int len)
{
	struct bytes_plan *bp = priv;
	const unsigned char *h;
	unsigned int rec_len;
	__u32 ino;

	if (off >= bp->from + 8) {
		h = bp->b + off - 8;
		ino = e2sr_get_le32(h);
		rec_len = h[4] | (h[5] << 8);
		if (ino && ino <= bp->inodes && h[6] == len &&
		    rec_len >= 8 + len && !(rec_len & 3))
			return 0;
	}
	bp->err = plan_part(bp->plan, bp->jblock, E2SR_JWHY_NAMEBYTES, 0,
			    off, len);
	return bp->err != 0;
}

/*
 * In a block that reads as a directory block, a name without its header
 * lies where no entry's name does: in an entry's slack, past its name,
 * or in the name of an entry whose inode is zero (the first of a block,
 * removed).  Elsewhere, the whole range.
 */
static errcode_t name_bytes_in(struct e2sr_ctx *ctx, __u32 jblock,
			       const unsigned char *b, unsigned int from,
			       unsigned int to, int dir, void *priv)
{
	const struct e2sr_name_set *set = priv;
	unsigned int off, rec_len, used;
	struct bytes_plan bp;

	bp.plan = &ctx->plan;
	bp.b = b;
	bp.jblock = jblock;
	bp.inodes = ctx->fs->super->s_inodes_count;
	bp.from = from;
	bp.err = 0;
	if (!dir) {
		e2sr_name_set_scan(set, b, from, to, 4, bytes_hit, &bp);
		return bp.err;
	}
	/* e2sr_dir_shaped() checked the chain and every length in it. */
	for (off = from; !bp.err && off < to; off += rec_len) {
		rec_len = b[off + 4] | (b[off + 5] << 8);
		if (to >= 65536 && (rec_len == 65535 || !rec_len))
			rec_len = 65536;
		used = e2sr_get_le32(b + off) ? 8 + ((b[off + 6] + 3U) & ~3U) : 8;
		if (used < rec_len) {
			bp.from = off + used;
			e2sr_name_set_scan(set, b, off + used, off + rec_len,
					   4, bytes_hit, &bp);
		}
	}
	return bp.err;
}

/*
 * The bytes of every name the entries gave, wherever they stand in a
 * stale block, header or not: an htree split or a shorter name in the
 * same slot overwrites the header and leaves the name.  Entries start on
 * four bytes, and so do their names; a name is searched for only there,
 * so that the short names of secure-delete files do not cut into other
 * names.
 */
static errcode_t plan_name_bytes(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	struct e2sr_name_set set;
	errcode_t err;

	if (!ctx->names.blob_len)
		return 0;
	err = e2sr_name_set_init(&set, ctx->names.blob, ctx->names.blob_len);
	if (err || e2sr_name_set_empty(&set))
		goto out;
	err = for_name_blocks(ctx, name_bytes_in, &set);
out:
	e2sr_name_set_free(&set);
	return err;
}

struct fc_plan {
	struct jplan	*p;
	ext2_ino_t	hit;
};

static errcode_t fc_rec(void *priv, const struct e2sr_fc_rec *rec)
{
	struct fc_plan *f = priv;

	if (!f->hit && e2sr_ino_set_has(&f->p->set, rec->ino))
		f->hit = rec->ino;
	return 0;
}

static errcode_t plan_fc_blocks(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	struct e2sr_fcwalk fc;
	struct fc_plan f;
	const unsigned char *b;
	__u32 pos;
	errcode_t err;

	/* The walk says where the area is; each block is judged whole. */
	err = e2sr_fc_walk(ctx->journal, &fc);
	if (err)
		return err;
	f.p = p;
	for (pos = fc.first; pos < fc.end; pos++) {
		err = e2sr_journal_block(ctx->journal, pos, &b);
		if (err)
			break;
		f.hit = 0;
		err = e2sr_fc_parse_block(b, ctx->journal->blocksize, pos,
					  fc_rec, &f);
		if (err)
			break;
		if (!f.hit)
			continue;
		err = plan_jblock(&ctx->plan, pos, E2SR_JWHY_FC, f.hit);
		if (err)
			break;
	}
	e2sr_fc_walk_free(&fc);
	return err;
}

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
			     sizeof(*plan->journal), cmp_jplan);
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

static int cmp_walk_jblock(const void *key, const void *elem)
{
	__u32 jb = *(const __u32 *)key;
	const struct e2sr_jblock *b = elem;

	return jb < b->jblock ? -1 : jb > b->jblock;
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
static errcode_t plan_seals(struct e2sr_ctx *ctx)
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
			    sizeof(*w->blocks), cmp_walk_jblock);
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
			err = plan_part(plan, plan->seals[i].desc,
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
		      sizeof(*plan->journal), cmp_jplan);
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
				    cmp_walk_jblock);
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
	return plan_seals(ctx);
}

/*
 * Settling reads again, in log order, the shared copies and the whole
 * blocks the walk did not attribute: say which, so that only they are
 * read.
 */
static errcode_t settle(struct e2sr_ctx *ctx)
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

errcode_t e2sr_plan_journal(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct jplan p;
	size_t i, n = 0;
	errcode_t err;

	plan->journal_count = 0;
	plan->journal_blocks = plan->journal_parts = 0;
	if (!ctx->journal)
		return 0;
	if (!ctx->history.built) {
		/* Discovery builds it; a run with no inventory may not. */
		err = e2sr_history_build(ctx->fs, ctx->journal, 0,
					 &ctx->history);
		if (err)
			return err;
	}
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	/* The files left to e2fsck keep their copies with them. */
	err = e2sr_inventory_set(ctx, 1, &p.set);
	if (err)
		return err;
	n = p.set.n;

	for (i = 0; !err && i < ctx->inv.jcopy_count; i++) {
		if (!e2sr_ino_set_has(&p.set, ctx->inv.jcopies[i].ino))
			continue;	/* left to e2fsck with its file */
		err = plan_part(plan, ctx->inv.jcopies[i].jblock,
				E2SR_JWHY_RECORD, ctx->inv.jcopies[i].ino,
				ctx->inv.jcopies[i].off,
				ctx->inv.jcopies[i].len);
		/* The versions that make the others its: last of all. */
		if (!err)
			plan->journal[plan->journal_count - 1].stage =
				ctx->inv.jcopies[i].flagged ||
				!ctx->inv.jcopies[i].len ?
				E2SR_JSTAGE_FLAGGED : E2SR_JSTAGE_RECORDS;
	}
	if (!err && n)
		err = plan_map_copies(&p);
	if (!err && n)
		err = plan_dir_copies(&p);
	if (!err && n)
		err = plan_name_bytes(&p);
	if (!err && n)
		err = plan_fc_blocks(&p);
	/* Disposal: the whole log and fast-commit area, once empty. */
	for (i = ctx->journal->jsb.first; !err &&
	     (plan->sanitize & E2SR_FREE_JOURNAL) &&
	     i < ctx->journal->jsb.maxlen; i++)
		err = plan_jblock(plan, (__u32)i, E2SR_JWHY_ALL, 0);
	e2sr_ino_set_free(&p.set);
	if (err)
		return err;
	return settle(ctx);
}
