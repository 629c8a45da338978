/*
 * discover_fc.c --- the evidence the fast-commit area holds.
 *
 * Owns reading every block of the area and taking from it, as versions,
 * the raw inodes fast commits logged, and, as ranges, the add_range tags
 * of identities the same commit logged (struct frange, sorted by
 * identity, each kept once).  Which identities are secure-delete, and
 * what their ranges add to a file's map, is left to discover_ident.c and
 * discover_map.c.
 *
 * Fast commits log a file's new extents as add_range tags and never the
 * extent tree blocks: a file whose tree is deeper than i_block has the map
 * of what it wrote since the last full commit only there.  A range is the
 * file's whose raw inode the same fast commit logged: the tags of one
 * commit run from the tail before to its own tail, whose checksum covers
 * them all, and the commit's inode tag for the range's inode number gives
 * the generation.  A range in a commit that is not whole, or whose inode
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "discover_int.h"

/* An add_range tag of the fast commit being read, not yet attributed. */
struct fc_pending {
	ext2_ino_t	ino;
	__u32		lblk;
	__u32		len;
	blk64_t		pblk;
	__u16		kind;
};

/* An inode tag of the fast commit being read. */
struct fc_seen {
	ext2_ino_t	ino;
	__u32		generation;
};

/* One fast commit as it is read: its checksum and tags so far. */
struct fc_collect {
	struct discover		*d;
	__u32			crc;
	unsigned int		last_tag;	/* of the current block */
	struct fc_pending	*pend;
	size_t			npend;
	size_t			apend;
	struct fc_seen		*seen;
	size_t			nseen;
	size_t			aseen;
};

/* What the commit read so far is worth nothing: start again. */
static void fc_reset(struct fc_collect *c)
{
	c->crc = 0;
	c->npend = 0;
	c->nseen = 0;
	c->d->fc_vstart = c->d->n;
}

/* The raw inodes of a commit whose tail checked: its transaction. */
static void fc_versions_whole(struct discover *d, __u32 tid)
{
	size_t i;

	for (i = d->fc_vstart; i < d->n; i++) {
		d->v[i].fc_whole = 1;
		d->v[i].fc_tid = tid;
	}
}

/* Room for one more in an array of @alloc, full. */
static errcode_t grow(void *v, size_t *alloc, size_t size)
{
	return e2sr_array_room(v, alloc, *alloc + 1, size);
}

/* Raw inodes that fast commits logged: versions too.  @gen: its own. */
static errcode_t fc_inode(struct discover *d, const struct e2sr_fc_rec *rec,
			  int *taken, __u32 *gen)
{
	ext2_filsys fs = d->ctx->fs;
	struct iversion iv;

	*taken = 0;
	if (rec->len <= 4 || rec->ino < EXT2_FIRST_INODE(fs->super) ||
	    rec->ino > fs->super->s_inodes_count)
		return 0;
	memset(&iv, 0, sizeof(iv));
	iv.ino = rec->ino;
	iv.jblock = rec->jblock;
	iv.offset = rec->offset + E2SR_FC_TL_SIZE + 4;
	iv.len = rec->len - 4;
	if (e2sr_disc_load_record(d, iv.ino, iv.offset, iv.len))
		return 0;
	iv.generation = d->inode->i_generation;
	iv.secrm = !!(d->inode->i_flags & EXT2_SECRM_FL);
	iv.map_crc = e2sr_disc_map_crc(d->inode);
	iv.fc = 1;
	e2sr_disc_note_times(d, &iv, iv.len);
	*taken = 1;
	*gen = iv.generation;
	return e2sr_disc_add_version(d, &iv);
}

static int cmp_seen(const void *a, const void *b)
{
	const struct fc_seen *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->generation < y->generation ? -1 :
	       x->generation > y->generation;
}

static errcode_t note_seen(struct fc_collect *c, ext2_ino_t ino, __u32 gen)
{
	errcode_t err;

	if (c->nseen == c->aseen) {
		err = grow(&c->seen, &c->aseen, sizeof(*c->seen));
		if (err)
			return err;
	}
	c->seen[c->nseen].ino = ino;
	c->seen[c->nseen].generation = gen;
	c->nseen++;
	return 0;
}

/*
 * The generation the commit's inode tags give @ino; 0 if they give none,
 * or two (the kernel logs an inode once per commit).  @seen is sorted.
 */
static int seen_generation(const struct fc_collect *c, ext2_ino_t ino,
			   __u32 *gen)
{
	size_t lo = 0, hi = c->nseen, mid, first;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->seen[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->nseen || c->seen[lo].ino != ino)
		return 0;
	first = lo;
	hi = c->nseen;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->seen[mid].ino <= ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Sorted by generation: the first and the last tell. */
	if (c->seen[lo - 1].generation != c->seen[first].generation)
		return 0;
	*gen = c->seen[first].generation;
	return 1;
}

/* A whole commit: each range goes to the identity its inode tag gives. */
static errcode_t fc_commit(struct fc_collect *c, __u32 tid)
{
	struct discover *d = c->d;
	struct frange *r;
	__u32 gen;
	size_t i;
	errcode_t err;

	if (!c->npend || !c->nseen)
		return 0;
	qsort(c->seen, c->nseen, sizeof(*c->seen), cmp_seen);
	for (i = 0; i < c->npend; i++) {
		if (!seen_generation(c, c->pend[i].ino, &gen))
			continue;
		if (d->nr == d->ralloc) {
			err = grow(&d->r, &d->ralloc, sizeof(*d->r));
			if (err)
				return err;
		}
		r = &d->r[d->nr++];
		r->ino = c->pend[i].ino;
		r->generation = gen;
		r->lblk = c->pend[i].lblk;
		r->len = c->pend[i].len;
		r->pblk = c->pend[i].pblk;
		r->kind = c->pend[i].kind;
		r->tid = tid;
	}
	return 0;
}

/*
 * One tag, in the order the kernel wrote them.  The checksum is the
 * kernel's replay scan's: every tag's header and value since the last
 * tail, then the tail's header and tid.
 */
static errcode_t fc_tag(void *priv, const struct e2sr_fc_rec *rec)
{
	struct fc_collect *c = priv;
	struct discover *d = c->d;
	const unsigned char *tl = d->block + rec->offset;
	struct fc_pending *p;
	__u32 gen = 0;
	int taken;
	errcode_t err = 0;

	c->last_tag = rec->tag;
	if (rec->tag == E2SR_FC_TAG_TAIL) {
		c->crc = ext2fs_crc32c_le(c->crc, tl, E2SR_FC_TL_SIZE + 4);
		if (e2sr_get_le32(tl + E2SR_FC_TL_SIZE + 4) == c->crc) {
			err = fc_commit(c, rec->tid);
			fc_versions_whole(d, rec->tid);
		}
		fc_reset(c);
		return err;
	}
	/* The newest series starts the area, with its transaction. */
	if (rec->tag == E2SR_FC_TAG_HEAD && rec->jblock == d->fc_first &&
	    rec->offset == 0) {
		d->fc_head = rec->tid;
		d->fc_has_head = 1;
	}
	c->crc = ext2fs_crc32c_le(c->crc, tl, E2SR_FC_TL_SIZE + rec->len);
	switch (rec->tag) {
	case E2SR_FC_TAG_INODE:
		err = fc_inode(d, rec, &taken, &gen);
		if (!err && taken)
			err = note_seen(c, rec->ino, gen);
		break;
	case E2SR_FC_TAG_ADD_RANGE:
		if (!rec->count)
			break;
		if (c->npend == c->apend) {
			err = grow(&c->pend, &c->apend,
				   sizeof(*c->pend));
			if (err)
				break;
		}
		p = &c->pend[c->npend++];
		p->ino = rec->ino;
		p->lblk = rec->lblk;
		p->len = rec->count;
		p->pblk = rec->pblk;
		p->kind = (rec->flags & E2SR_FC_UNWRITTEN) ?
			  E2SR_EXT_UNWRITTEN : E2SR_EXT_DATA;
		break;
	default:
		break;
	}
	return err;
}

static int cmp_frange(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->pblk != y->pblk)
		return x->pblk < y->pblk ? -1 : 1;
	if (x->lblk != y->lblk)
		return x->lblk < y->lblk ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Each commit logs again what changed since the last: keep each once. */
static void sort_ranges(struct discover *d)
{
	size_t i, n = 0;

	if (!d->nr)
		return;
	qsort(d->r, d->nr, sizeof(*d->r), cmp_frange);
	for (i = 0; i < d->nr; i++) {
		if (n && !cmp_frange(&d->r[n - 1], &d->r[i])) {
			if ((__s32)(d->r[i].tid - d->r[n - 1].tid) > 0)
				d->r[n - 1].tid = d->r[i].tid;
			continue;
		}
		d->r[n++] = d->r[i];
	}
	d->nr = n;
}

/*
 * Raw inodes that fast commits logged are versions, and the ranges they
 * logged with them are maps.  Every block of the area is read, stale
 * commits of earlier rounds too.  A commit that goes on into the next
 * block ends its block with a pad; a block that ends otherwise, or holds
 * no tag, breaks the commit it was part of.
 */
errcode_t e2sr_disc_collect_fc_versions(struct discover *d)
{
	struct e2sr_fcwalk fc;
	struct fc_collect c;
	__u32 pos;
	errcode_t err;

	err = e2sr_fc_walk(d->ctx->journal, &fc);
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.d = d;
	/* The kernel's j_fc_first is j_last + 1: the first block is unused. */
	d->fc_first = fc.first + 1;
	d->fc_used = fc.blocks_used != 0;
	d->fc_vstart = d->n;
	for (pos = fc.first; pos < fc.end && !err; pos++) {
		err = e2sr_disc_read_copy(d, pos, 0, 1);
		if (err)
			break;
		c.last_tag = 0;
		err = e2sr_fc_parse_block(d->block, d->ctx->fs->blocksize,
					  pos, fc_tag, &c);
		if (!err && c.last_tag != E2SR_FC_TAG_PAD)
			fc_reset(&c);
	}
	ext2fs_free_mem(&c.pend);
	ext2fs_free_mem(&c.seen);
	e2sr_fc_walk_free(&fc);
	if (!err)
		sort_ranges(d);
	return err;
}
