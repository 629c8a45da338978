/*
 * history_recs.c --- the records of inode table copies, and the stale
 * blocks that read as directories, taken while the walk reads the log.
 *
 * Owns the walk's look at each copy (journal_walk.c calls back with its
 * bytes): of a verified inode table copy, each used record's number,
 * generation and whether it is flagged, kept packed (struct e2sr_icopy,
 * rec_gen, rec_slot) and read back through e2sr_history_rec(); of a
 * stale block, whether it reads as a directory block or holds an inline
 * directory.  Once the versions are labelled, the records are put in log
 * order and kept only where the layout says an inode table block was
 * copied.  The versions index and its labels are history.c's; what the
 * records mean is discovery's (lib/find/discover*.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "history.h"
#include "history_int.h"

/*
 * Whether a block reads as a directory block: entries chained from its
 * first byte to its last, each long enough for its name.  A copy of a
 * directory block is one whatever its descriptor says or whether one is
 * left; other blocks (tree, data, bitmaps) almost never chain, and the
 * numbers they hold are no names.
 */
int e2sr_dir_shaped(const unsigned char *b, unsigned int bs)
{
	unsigned int off = 0, rec_len;

	while (off < bs) {
		if (bs - off < 12)
			return 0;
		rec_len = b[off + 4] | (b[off + 5] << 8);
		if (bs >= 65536 && (rec_len == 65535 || !rec_len))
			rec_len = 65536;
		if (rec_len < 12 || (rec_len & 3) || rec_len > bs - off ||
		    8U + b[off + 6] > rec_len)
			return 0;
		off += rec_len;
	}
	return 1;
}

static int cmp_range(const void *a, const void *b)
{
	const struct itable_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_icopy(const void *a, const void *b)
{
	const struct e2sr_icopy *x = a, *y = b;

	if (x->jblock != y->jblock)
		return x->jblock < y->jblock ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The range holding @blk, or NULL; ranges may overlap on a bad fs. */
static const struct itable_range *range_of(const struct rec_look *l,
					   blk64_t blk)
{
	size_t lo = 0, hi = l->nr, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->r[mid].start <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;)
		if (blk - l->r[i].start < l->r[i].count)
			return &l->r[i];
	return NULL;
}

/*
 * The records of a verified inode table copy, read as the walk reads the
 * copy: number and generation, and whether it carries a flag that makes
 * its identity matter.  Slots never used are left out.
 */
/*
 * Record @rec (as on disk) in l->rec_buf, room for a whole
 * struct ext2_inode_large however small the records; NULL: no memory.
 */
static struct ext2_inode_large *record_copy(struct rec_look *l,
					    const unsigned char *rec)
{
	unsigned int isz = EXT2_INODE_SIZE(l->fs->super);
	size_t room = isz > sizeof(struct ext2_inode_large) ?
		      isz : sizeof(struct ext2_inode_large);

	if (!l->rec_buf && ext2fs_get_memzero(room, &l->rec_buf))
		return NULL;
	memcpy(l->rec_buf, rec, isz);
	return (struct ext2_inode_large *)l->rec_buf;
}

/* Whether record @rec (as on disk) of inode @ino checks itself. */
static int record_csum_ok(struct rec_look *l, ext2_ino_t ino,
			  const unsigned char *rec)
{
	struct ext2_inode_large *in = record_copy(l, rec);

	return in && ext2fs_inode_csum_verify(l->fs, ino, in);
}

/*
 * Whether a run the record names in itself is free now (inode_runs.c):
 * only such a record's runs can say who wrote a free block since, and
 * discovery reads again only the copies that hold one (1% of the records
 * of the scale image's log).  No memory: say yes, and be read again.
 */
static int record_maps_free(struct rec_look *l, const unsigned char *rec)
{
	struct ext2_inode_large *in = record_copy(l, rec);

	return !in || e2sr_inode_runs_free(l->fs, in);
}

errcode_t e2sr_history_look_at_copy(void *priv, const struct e2sr_jblock *copy,
				    const unsigned char *b)
{
	struct rec_look *l = priv;
	ext2_filsys fs = l->fs;
	struct e2sr_history *h = l->h;
	const struct itable_range *r;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);
	__u32 ipb = fs->blocksize / isz, k, fl;
	int escaped = !!(copy->flags & E2SR_JBD2_FLAG_ESCAPE);
	const unsigned char *rec;
	struct e2sr_icopy *c;
	ext2_ino_t ino;

	/*
	 * A copy rewritten in place since (journal_walk.c: trusted) gives
	 * the records that check themselves, with metadata_csum: what it
	 * says of an inode whose checksum fails cannot be trusted.
	 */
	if (!copy->verified &&
	    (!copy->trusted || !ext2fs_has_feature_metadata_csum(fs->super)))
		return 0;
	r = range_of(l, copy->fs_block);
	if (!r)
		return 0;
	if (ipb > E2SR_IREC_SLOT + 1 || h->nrecs + ipb > UINT32_MAX ||
	    e2sr_array_room(&h->icopies, &l->alloc, h->nicopies + 1,
			    sizeof(*h->icopies)) ||
	    e2sr_array_room(&h->rec_gen, &l->gen_alloc, h->nrecs + ipb,
			    sizeof(*h->rec_gen)) ||
	    e2sr_array_room(&h->rec_slot, &l->slot_alloc, h->nrecs + ipb,
			    sizeof(*h->rec_slot)))
		return EXT2_ET_NO_MEMORY;
	c = &h->icopies[h->nicopies];
	c->jblock = copy->jblock;
	c->sequence = copy->sequence;
	c->ino = r->first + (ext2_ino_t)(copy->fs_block - r->start) * ipb;
	c->first = h->nrecs;
	c->count = 0;
	c->escaped = (__u8)escaped;
	for (k = 0; k < ipb && (k + 1) * isz <= fs->blocksize; k++) {
		ino = c->ino + k;
		if (ino > fs->super->s_inodes_count)
			break;
		if (ino < EXT2_FIRST_INODE(fs->super) && ino != EXT2_ROOT_INO)
			continue;
		rec = b + k * isz;
		fl = ext2fs_le32_to_cpu(*(const __u32 *)(rec + 32));
		/* An escaped copy's first bytes are the mode's. */
		if (!fl && !rec[0] && !rec[1] && !escaped)
			continue;	/* never used */
		if (!copy->verified && (escaped || !record_csum_ok(l, ino,
								   rec)))
			continue;
		h->rec_gen[h->nrecs] =
			ext2fs_le32_to_cpu(*(const __u32 *)(rec + 100));
		h->rec_slot[h->nrecs] = (__u16)k |
			((fl & (EXT2_SECRM_FL | EXT4_EA_INODE_FL)) ?
			 E2SR_IREC_FLAGGED : 0) |
			(record_maps_free(l, rec) ? E2SR_IREC_FREEMAP : 0);
		h->nrecs++;
		c->count++;
	}
	if (c->count)
		h->nicopies++;
	return 0;
}

/*
 * Record @i as struct e2sr_irec.  *@cur is the caller's place among the
 * copies (0 to start): a pass in order finds each record's copy in one
 * step, any other access by a binary search.
 */
void e2sr_history_rec(const struct e2sr_history *h, size_t i, size_t *cur,
		      struct e2sr_irec *rec)
{
	const struct e2sr_icopy *c;
	size_t lo = 0, hi = h->nicopies, mid;
	__u16 slot = h->rec_slot[i];

	if (*cur >= h->nicopies || h->icopies[*cur].first > i) {
		*cur = 0;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (h->icopies[mid].first <= i)
				lo = mid + 1;
			else
				hi = mid;
		}
		*cur = lo ? lo - 1 : 0;
	}
	while (i >= h->icopies[*cur].first + h->icopies[*cur].count)
		(*cur)++;
	c = &h->icopies[*cur];
	rec->ino = c->ino + (slot & E2SR_IREC_SLOT);
	rec->generation = h->rec_gen[i];
	rec->jblock = c->jblock;
	rec->sequence = c->sequence;
	rec->offset = (__u16)((slot & E2SR_IREC_SLOT) * h->rec_size);
	rec->escaped = c->escaped;
	rec->flagged = !!(slot & E2SR_IREC_FLAGGED);
	rec->maps_free = !!(slot & E2SR_IREC_FREEMAP);
}

/* Whether a record, as it lies in a block, is an inline directory's. */
int e2sr_inline_dir_record(const unsigned char *r)
{
	return ((r[0] | (r[1] << 8)) & 0170000) == 0040000 &&
	       (e2sr_get_le32(r + 32) & EXT4_INLINE_DATA_FL);
}

/* Whether any record slot of @b holds an inline directory. */
static int has_inline_dir(const unsigned char *b, unsigned int bs,
			  unsigned int isz)
{
	unsigned int slot;

	if (isz < EXT2_GOOD_OLD_INODE_SIZE || isz > bs)
		return 0;
	for (slot = 0; slot + isz <= bs; slot += isz)
		if (e2sr_inline_dir_record(b + slot))
			return 1;
	return 0;
}

/*
 * A stale block of the log: does it read as a directory block, or, were
 * it an inode table copy, hold an inline directory?  The names passes
 * read only such blocks.
 */
errcode_t e2sr_history_look_at_stale(void *priv, __u32 jblock,
				     const unsigned char *b)
{
	struct rec_look *l = priv;
	struct e2sr_history *h = l->h;
	__u32 i = jblock - l->first;

	if (e2sr_dir_shaped(b, l->bs))
		h->dirlike[i >> 3] |= 1 << (i & 7);
	if (has_inline_dir(b, l->bs, EXT2_INODE_SIZE(l->fs->super)))
		h->inline_dirs[i >> 3] |= 1 << (i & 7);
	return 0;
}

/* Whether log block @jblock is stale and reads as a directory block. */
int e2sr_history_dirlike(const struct e2sr_history *h, __u32 jblock)
{
	const struct e2sr_jwalk *w = &h->walk;
	__u32 i;

	if (!h->dirlike || jblock < w->jsb.first || jblock >= w->jsb.last)
		return 0;
	i = jblock - w->jsb.first;
	return !!(h->dirlike[i >> 3] & (1 << (i & 7)));
}

/*
 * Whether log block @jblock is stale and, read as an inode table copy,
 * holds an inline directory (e2sr_inline_dir_record in one of its
 * slots).
 */
int e2sr_history_inline_dirs(const struct e2sr_history *h, __u32 jblock)
{
	const struct e2sr_jwalk *w = &h->walk;
	__u32 i;

	if (!h->inline_dirs || jblock < w->jsb.first ||
	    jblock >= w->jsb.last)
		return 0;
	i = jblock - w->jsb.first;
	return !!(h->inline_dirs[i >> 3] & (1 << (i & 7)));
}

errcode_t e2sr_history_itable_ranges(ext2_filsys fs, struct rec_look *l)
{
	dgrp_t g;
	errcode_t err;

	err = ext2fs_get_arrayzero(fs->group_desc_count ?
				   fs->group_desc_count : 1, sizeof(*l->r),
				   &l->r);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (!ext2fs_inode_table_loc(fs, g))
			continue;
		l->r[l->nr].start = ext2fs_inode_table_loc(fs, g);
		l->r[l->nr].count = fs->inode_blocks_per_group;
		l->r[l->nr].first = g * fs->super->s_inodes_per_group + 1;
		l->nr++;
	}
	qsort(l->r, l->nr, sizeof(*l->r), cmp_range);
	return 0;
}

/*
 * The records in log order.  The walk lists the copies in its scan order,
 * the log's, then those it could only resolve after wrapping: the tail of
 * copies is sorted and merged, not the whole list, and then the records
 * are laid out again in that order (a copy of them for the time it takes).
 */
static errcode_t sort_recs(struct e2sr_history *h)
{
	__u32 *gen = NULL;
	__u16 *slot = NULL;
	struct e2sr_icopy *c;
	size_t i, n = 0;
	errcode_t err;

	for (i = 1; i < h->nicopies; i++)
		if (cmp_icopy(&h->icopies[i - 1], &h->icopies[i]) > 0)
			break;
	if (i >= h->nicopies)
		return 0;
	err = e2sr_sort_tail(h->icopies, h->nicopies, sizeof(*h->icopies),
			     cmp_icopy);
	if (!err)
		err = ext2fs_get_array(h->nrecs, sizeof(*gen), &gen);
	if (!err)
		err = ext2fs_get_array(h->nrecs, sizeof(*slot), &slot);
	if (err)
		goto out;
	for (i = 0; i < h->nicopies; i++) {
		c = &h->icopies[i];
		memcpy(gen + n, h->rec_gen + c->first,
		       c->count * sizeof(*gen));
		memcpy(slot + n, h->rec_slot + c->first,
		       c->count * sizeof(*slot));
		c->first = n;
		n += c->count;
	}
	ext2fs_free_mem(&h->rec_gen);
	ext2fs_free_mem(&h->rec_slot);
	h->rec_gen = gen;
	h->rec_slot = slot;
	return 0;
out:
	ext2fs_free_mem(&gen);
	ext2fs_free_mem(&slot);
	return err;
}

/*
 * Keep the records of copies the layout labelled inode table blocks, of
 * the inodes the label says (a bad layout labels a block once): the
 * copies, in log order, are met with the versions in log order.  A copy
 * whose first inode is not the label's keeps none (each record's number
 * and place would disagree), one whose label has fewer inodes keeps those.
 */
errcode_t e2sr_history_settle_recs(struct e2sr_history *h)
{
	const struct e2sr_version *v;
	struct e2sr_icopy *c;
	size_t i, r, end, k = 0, n = 0, m = 0;
	errcode_t err;

	err = sort_recs(h);
	if (err)
		return err;
	for (i = 0; i < h->nicopies; i++) {
		c = &h->icopies[i];
		while (k < h->n && h->v[h->by_jblock[k]].jblock < c->jblock)
			k++;
		if (k >= h->n)
			break;
		v = &h->v[h->by_jblock[k]];
		if (v->jblock != c->jblock || v->kind != E2SR_JK_ITABLE ||
		    c->ino != v->ino)
			continue;
		end = c->first + c->count;
		h->icopies[m] = *c;
		h->icopies[m].first = n;
		h->icopies[m].count = 0;
		for (r = c->first; r < end; r++) {
			if ((h->rec_slot[r] & E2SR_IREC_SLOT) >= v->ino_count)
				continue;
			h->rec_gen[n] = h->rec_gen[r];
			h->rec_slot[n] = h->rec_slot[r];
			n++;
			h->icopies[m].count++;
		}
		if (h->icopies[m].count)
			m++;
	}
	h->nicopies = m;
	h->nrecs = n;
	return 0;
}
