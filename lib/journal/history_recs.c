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

/* A run as the facts keep it, and whether it is free now. */
struct run_note {
	ext2_filsys		fs;
	struct e2sr_rf_writer	*w;
	int			free;
};

static int note_run(void *priv, blk64_t pblk, __u32 len)
{
	struct run_note *n = priv;
	blk64_t out;

	e2sr_rf_recs_run(n->w, pblk, len);
	if (!n->free &&
	    (!n->fs->block_map ||
	     !ext2fs_find_first_zero_block_bitmap2(n->fs->block_map, pblk,
						   pblk + len - 1, &out)))
		n->free = 1;
	return 0;
}

/* record_maps_free(), writing the record's runs into the facts too. */
static int record_runs_kept(struct rec_look *l, struct e2sr_rf_writer *w,
			    const unsigned char *rec)
{
	struct ext2_inode_large *in = record_copy(l, rec);
	struct run_note n;

	if (!in) {
		w->err = EXT2_ET_NO_MEMORY;
		return 1;
	}
	n.fs = l->fs;
	n.w = w;
	n.free = !l->fs->block_map;
	e2sr_inode_runs(l->fs, in, note_run, &n);
	return n.free;
}

/*
 * Room for @count records of the copy @copy of inode table block of
 * range @r: the copy is listed, its records not yet.
 */
static errcode_t new_icopy(struct rec_look *l, const struct e2sr_jblock *copy,
			   const struct itable_range *r, __u32 count,
			   struct e2sr_icopy **ret)
{
	struct e2sr_history *h = l->h;
	unsigned int isz = EXT2_INODE_SIZE(l->fs->super);
	__u32 ipb = l->fs->blocksize / isz;
	struct e2sr_icopy *c;

	if (ipb > E2SR_IREC_SLOT + 1 || h->nrecs + count > UINT32_MAX ||
	    e2sr_array_room(&h->icopies, &l->alloc, h->nicopies + 1,
			    sizeof(*h->icopies)) ||
	    e2sr_array_room(&h->rec_gen, &l->gen_alloc, h->nrecs + count,
			    sizeof(*h->rec_gen)) ||
	    e2sr_array_room(&h->rec_slot, &l->slot_alloc, h->nrecs + count,
			    sizeof(*h->rec_slot)))
		return EXT2_ET_NO_MEMORY;
	c = &h->icopies[h->nicopies];
	c->jblock = copy->jblock;
	c->sequence = copy->sequence;
	c->ino = r->first + (ext2_ino_t)(copy->fs_block - r->start) * ipb;
	c->first = h->nrecs;
	c->count = 0;
	c->escaped = !!(copy->flags & E2SR_JBD2_FLAG_ESCAPE);
	*ret = c;
	return 0;
}

/* Whether the look takes records from @copy at all. */
static int takes_records(const struct rec_look *l,
			 const struct e2sr_jblock *copy)
{
	/*
	 * A copy rewritten in place since (journal_walk.c: trusted) gives
	 * the records that check themselves, with metadata_csum: what it
	 * says of an inode whose checksum fails cannot be trusted.
	 */
	return copy->verified ||
	       (copy->trusted &&
		ext2fs_has_feature_metadata_csum(l->fs->super));
}

static errcode_t look_records(struct rec_look *l,
			      const struct e2sr_jblock *copy,
			      const unsigned char *b, struct e2sr_rf_writer *w)
{
	ext2_filsys fs = l->fs;
	struct e2sr_history *h = l->h;
	const struct itable_range *r;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);
	__u32 ipb = fs->blocksize / isz, k, fl;
	int escaped = !!(copy->flags & E2SR_JBD2_FLAG_ESCAPE), freemap;
	const unsigned char *rec;
	struct e2sr_icopy *c;
	ext2_ino_t ino;
	errcode_t err;

	if (!takes_records(l, copy))
		return 0;
	r = range_of(l, copy->fs_block);
	if (!r)
		return 0;
	err = new_icopy(l, copy, r, ipb, &c);
	if (err)
		return err;
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
			 E2SR_IREC_FLAGGED : 0);
		if (w) {
			e2sr_rf_recs_add(w, h->rec_slot[h->nrecs],
					 h->rec_gen[h->nrecs]);
			freemap = record_runs_kept(l, w, rec);
		} else {
			freemap = record_maps_free(l, rec);
		}
		if (freemap)
			h->rec_slot[h->nrecs] |= E2SR_IREC_FREEMAP;
		h->nrecs++;
		c->count++;
	}
	if (c->count)
		h->nicopies++;
	return 0;
}

errcode_t e2sr_history_look_at_copy(void *priv, const struct e2sr_jblock *copy,
				    const unsigned char *b)
{
	struct rec_look *l = priv;
	struct e2sr_rf_writer w;
	errcode_t err;

	if (!l->out || l->out->broken)
		return look_records(l, copy, b, NULL);
	/*
	 * Kept even when no record is taken: the next run then knows the
	 * look was made, and does not read the copy for it.
	 */
	e2sr_rf_recs_begin(&w, l->out, copy->jblock, !copy->verified);
	err = look_records(l, copy, b, &w);
	e2sr_rf_recs_end(&w);
	return err;
}

/*
 * The look at a copy whose records the facts kept (journal_walk.c): the
 * same records, and whether a run each names is free now.
 */
errcode_t e2sr_history_look_at_facts(void *priv,
				     const struct e2sr_jblock *copy,
				     const struct e2sr_ring_facts *f)
{
	struct rec_look *l = priv;
	struct e2sr_history *h = l->h;
	const struct itable_range *r;
	struct e2sr_rf_reader rd;
	struct e2sr_rf_rec rec;
	struct e2sr_icopy *c;
	blk64_t pblk, out;
	__u32 len;
	int freemap;
	errcode_t err;

	if (!takes_records(l, copy))
		return 0;
	r = range_of(l, copy->fs_block);
	if (!r || !e2sr_rf_recs_open(f, copy->jblock, &rd) || !rd.left)
		return 0;
	err = new_icopy(l, copy, r, rd.left, &c);
	if (err)
		return err;
	while (e2sr_rf_recs_next(&rd, &rec)) {
		freemap = !l->fs->block_map;
		while (e2sr_rf_recs_next_run(&rd, &pblk, &len))
			if (!freemap && len &&
			    !ext2fs_find_first_zero_block_bitmap2(
				    l->fs->block_map, pblk, pblk + len - 1,
				    &out))
				freemap = 1;
		h->rec_gen[h->nrecs] = rec.generation;
		h->rec_slot[h->nrecs] = rec.slot |
					(freemap ? E2SR_IREC_FREEMAP : 0);
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

/* e2sr_history_look_at_stale() from the kept facts' bits. */
errcode_t e2sr_history_stale_facts(void *priv, __u32 jblock, __u16 bits)
{
	struct rec_look *l = priv;
	struct e2sr_history *h = l->h;
	__u32 i = jblock - l->first;

	if (bits & E2SR_RF_DIRLIKE)
		h->dirlike[i >> 3] |= 1 << (i & 7);
	if (bits & E2SR_RF_INLINE)
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
