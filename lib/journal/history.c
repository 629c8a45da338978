/*
 * history.c --- the history index: journal copies by filesystem block,
 * each resolved to what the block is.
 *
 * Owns turning the journal walk (journal_walk.c) into versions sorted by
 * filesystem block, attaching commit times, and labelling each version:
 * the group layout says which copies are superblocks, descriptors,
 * bitmaps and inode table blocks (and which inodes those hold); with
 * E2SR_HISTORY_OWNERS one pass over the in-use inodes' block maps says
 * whose directory, extent, indirect, EA or data block each other copy is.
 * That pass costs about e2fsck's pass 1 and is only made when asked.
 * While the walk reads each inode table copy, the records in it are
 * listed (number, generation, whether flagged): the first look that
 * discovery takes, without reading the log again.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrmP.h"
#include "crc32c.h"
#include "history.h"
#include "unaligned.h"

static const char *const kind_names[] = {
	[E2SR_JK_UNKNOWN]	= "in-use",
	[E2SR_JK_FREE]		= "free",
	[E2SR_JK_SUPER]		= "super",
	[E2SR_JK_GDT]		= "gdt",
	[E2SR_JK_BBITMAP]	= "bbitmap",
	[E2SR_JK_IBITMAP]	= "ibitmap",
	[E2SR_JK_ITABLE]	= "itable",
	[E2SR_JK_DIR]		= "dir",
	[E2SR_JK_EXTENT]	= "extent",
	[E2SR_JK_IND]		= "ind",
	[E2SR_JK_EA]		= "xattr",
	[E2SR_JK_DATA]		= "data",
};

const char *e2sr_jkind_name(enum e2sr_jkind kind)
{
	if ((unsigned int)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

static int cmp_version(const void *a, const void *b)
{
	const struct e2sr_version *x = a, *y = b;

	if (x->fs_block != y->fs_block)
		return x->fs_block < y->fs_block ? -1 : 1;
	if (x->sequence != y->sequence)
		return x->sequence < y->sequence ? -1 : 1;
	return x->jblock < y->jblock ? -1 : x->jblock > y->jblock;
}

static size_t first_at(const struct e2sr_history *h, blk64_t blk)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->v[mid].fs_block < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct e2sr_version *e2sr_history_versions(const struct e2sr_history *h,
						 blk64_t blk, size_t *count)
{
	size_t i, n = 0;

	*count = 0;
	if (!h->v)
		return NULL;
	i = first_at(h, blk);
	while (i + n < h->n && h->v[i + n].fs_block == blk)
		n++;
	*count = n;
	return n ? &h->v[i] : NULL;
}

/* Label still-unlabelled versions of [blk, blk + count). */
static void label(struct e2sr_history *h, blk64_t blk, blk64_t count,
		  enum e2sr_jkind kind, ext2_ino_t ino, blk64_t lblk)
{
	size_t i;

	for (i = first_at(h, blk); i < h->n && h->v[i].fs_block - blk < count;
	     i++) {
		if (h->v[i].kind != E2SR_JK_UNKNOWN)
			continue;
		h->v[i].kind = kind;
		h->v[i].ino = ino;
		h->v[i].lblk = lblk;
	}
}

/* Each inode table block's versions name the inodes it holds. */
static void label_itable(ext2_filsys fs, struct e2sr_history *h, dgrp_t g)
{
	blk64_t start = ext2fs_inode_table_loc(fs, g);
	blk64_t nblk = fs->inode_blocks_per_group;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	ext2_ino_t first = g * fs->super->s_inodes_per_group + 1;
	size_t i;

	if (!start)
		return;
	for (i = first_at(h, start); i < h->n &&
	     h->v[i].fs_block - start < nblk; i++) {
		struct e2sr_version *v = &h->v[i];

		if (v->kind != E2SR_JK_UNKNOWN)
			continue;
		v->kind = E2SR_JK_ITABLE;
		v->ino = first + (ext2_ino_t)(v->fs_block - start) * ipb;
		v->ino_count = ipb;
	}
}

static void label_layout(ext2_filsys fs, struct e2sr_history *h)
{
	blk64_t super, old_desc, new_desc, gdt_len;
	blk_t used;
	dgrp_t g;

	gdt_len = fs->desc_blocks + fs->super->s_reserved_gdt_blocks;
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc,
					  &used);
		if (super || g == 0)
			label(h, super, 1, E2SR_JK_SUPER, 0, 0);
		if (old_desc)
			label(h, old_desc, gdt_len, E2SR_JK_GDT, 0, 0);
		if (new_desc)
			label(h, new_desc, 1, E2SR_JK_GDT, 0, 0);
		label(h, ext2fs_block_bitmap_loc(fs, g), 1, E2SR_JK_BBITMAP,
		      0, 0);
		label(h, ext2fs_inode_bitmap_loc(fs, g), 1, E2SR_JK_IBITMAP,
		      0, 0);
		label_itable(fs, h, g);
	}
}

struct owner_walk {
	struct e2sr_history	*h;
	ext2fs_block_bitmap	want;
	ext2_ino_t		ino;
	int			is_dir;
	int			extents;
};

static int owner_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk EXT2FS_ATTR((unused)),
		       int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct owner_walk *o = priv;
	enum e2sr_jkind kind;

	if (*blocknr < fs->super->s_first_data_block ||
	    *blocknr >= ext2fs_blocks_count(fs->super) ||
	    !ext2fs_test_block_bitmap2(o->want, *blocknr))
		return 0;
	if (blockcnt < 0)
		kind = o->extents ? E2SR_JK_EXTENT : E2SR_JK_IND;
	else
		kind = o->is_dir ? E2SR_JK_DIR : E2SR_JK_DATA;
	label(o->h, *blocknr, 1, kind, o->ino,
	      blockcnt < 0 ? 0 : (blk64_t)blockcnt);
	return 0;
}

/*
 * A map held whole in i_block (an extent tree of depth 0, as most are):
 * its extents read in place and tested against the wanted blocks by
 * runs, with no handle and no second read of the record.  0 when it is
 * not such a map, and the caller walks it through libext2fs.
 */
static int label_root_leaf(ext2_filsys fs, struct owner_walk *o,
			   const struct ext2_inode *inode)
{
	const struct ext3_extent_header *eh =
		(const struct ext3_extent_header *)inode->i_block;
	const struct ext3_extent *ex = (const struct ext3_extent *)(eh + 1);
	blk64_t pblk, at, end = ext2fs_blocks_count(fs->super);
	__u32 lblk, len;
	int i, n;

	if (!(inode->i_flags & EXT4_EXTENTS_FL) ||
	    ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC ||
	    eh->eh_depth)
		return 0;
	n = ext2fs_le16_to_cpu(eh->eh_entries);
	if (n > ext2fs_le16_to_cpu(eh->eh_max) || n > 4)
		return 0;
	for (i = 0; i < n; i++, ex++) {
		pblk = ext2fs_le32_to_cpu(ex->ee_start) +
		       ((blk64_t)ext2fs_le16_to_cpu(ex->ee_start_hi) << 32);
		lblk = ext2fs_le32_to_cpu(ex->ee_block);
		len = ext2fs_le16_to_cpu(ex->ee_len);
		if (len > EXT_INIT_MAX_LEN)
			len -= EXT_INIT_MAX_LEN;
		if (!len || pblk < fs->super->s_first_data_block ||
		    pblk >= end || len > end - pblk)
			continue;
		at = pblk;
		while (!ext2fs_find_first_set_block_bitmap2(o->want, at,
							    pblk + len - 1,
							    &at)) {
			label(o->h, at, 1, o->is_dir ? E2SR_JK_DIR :
			      E2SR_JK_DATA, o->ino, lblk + (at - pblk));
			if (++at >= pblk + len)
				break;
		}
	}
	return 1;
}

/*
 * One pass over the in-use inodes, following only maps that can matter.
 * Records are checked with the crc32c instruction (e2sr_inode_csum_ok),
 * not by libext2fs twice (the scan, then block_iterate's read).
 */
static errcode_t label_owners(ext2_filsys fs, struct e2sr_history *h)
{
	struct ext2_inode *inode;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct owner_walk o;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	blk64_t ea;
	size_t i;
	errcode_t err;
	int flags = fs->flags;

	memset(&o, 0, sizeof(o));
	o.h = h;
	/* The whole record, as the checksum covers it. */
	err = ext2fs_get_memzero(isize, &inode);
	if (err)
		return err;
	err = ext2fs_allocate_block_bitmap(fs, "journal copies", &o.want);
	if (err) {
		ext2fs_free_mem(&inode);
		return err;
	}
	/* A tag's block number is the journal's word: checked first. */
	for (i = 0; i < h->n; i++)
		if (h->v[i].fs_block >= fs->super->s_first_data_block &&
		    h->v[i].fs_block < ext2fs_blocks_count(fs->super))
			ext2fs_mark_block_bitmap2(o.want, h->v[i].fs_block);
	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		goto out;
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, inode, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE ||
		    err == EXT2_ET_INODE_CSUM_INVALID ||
		    err == EXT2_ET_INODE_IS_GARBAGE)
			continue;
		if (err || !ino)
			break;
		if (!e2sr_inode_csum_ok(fs, ino, inode))
			continue;
		if (!inode->i_links_count || inode->i_dtime ||
		    ino == EXT2_JOURNAL_INO ||
		    !ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		ea = ext2fs_file_acl_block(fs, inode);
		if (ea && ea < ext2fs_blocks_count(fs->super))
			label(h, ea, 1, E2SR_JK_EA, ino, 0);
		if (!ext2fs_inode_has_valid_blocks2(fs, inode) ||
		    (inode->i_flags & EXT4_INLINE_DATA_FL))
			continue;
		o.ino = ino;
		o.is_dir = LINUX_S_ISDIR(inode->i_mode);
		o.extents = !!(inode->i_flags & EXT4_EXTENTS_FL);
		if (label_root_leaf(fs, &o, inode))
			continue;
		/* A damaged map is e2fsck's business: label what reads. */
		ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				      owner_block, &o);
	}
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
		    (flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
	ext2fs_close_inode_scan(scan);
out:
	ext2fs_free_block_bitmap(o.want);
	ext2fs_free_mem(&inode);
	return err;
}

static int cmp_commit(const void *a, const void *b)
{
	const struct e2sr_jcommit_rec *x = a, *y = b;

	return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

static void attach_commit_times(struct e2sr_history *h)
{
	struct e2sr_jwalk *w = &h->walk;
	struct e2sr_jcommit_rec key, *c;
	size_t i;

	if (!w->ncommits)
		return;
	qsort(w->commits, w->ncommits, sizeof(*w->commits), cmp_commit);
	for (i = 0; i < h->n; i++) {
		if (!h->v[i].committed)
			continue;
		key.sequence = h->v[i].sequence;
		c = bsearch(&key, w->commits, w->ncommits, sizeof(*c),
			    cmp_commit);
		if (c) {
			h->v[i].commit_sec = c->commit_sec;
			h->v[i].commit_nsec = c->commit_nsec;
		}
	}
}

struct jorder {
	__u32	jblock;
	size_t	idx;
};

static int cmp_jorder(const void *a, const void *b)
{
	const struct jorder *x = a, *y = b;

	if (x->jblock != y->jblock)
		return x->jblock < y->jblock ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Passes that read every copy go through them in log order, so that the
 * journal's read window moves forward instead of being refilled for
 * nearly every copy.
 */
static errcode_t index_by_jblock(struct e2sr_history *h)
{
	struct jorder *o;
	size_t i;
	errcode_t err;

	if (!h->n)
		return 0;
	err = ext2fs_get_array(h->n, sizeof(*o), &o);
	if (err)
		return err;
	err = ext2fs_get_array(h->n, sizeof(*h->by_jblock), &h->by_jblock);
	if (err) {
		ext2fs_free_mem(&o);
		return err;
	}
	for (i = 0; i < h->n; i++) {
		o[i].jblock = h->v[i].jblock;
		o[i].idx = i;
	}
	qsort(o, h->n, sizeof(*o), cmp_jorder);
	for (i = 0; i < h->n; i++)
		h->by_jblock[i] = o[i].idx;
	ext2fs_free_mem(&o);
	return 0;
}

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

/* One group's inode table, for the walk's look at the copies. */
struct itable_range {
	blk64_t		start;
	blk64_t		count;
	ext2_ino_t	first;
};

struct rec_look {
	ext2_filsys		fs;
	__u32			first;	/* the log's first block */
	unsigned int		bs;	/* the journal's block size */
	struct e2sr_history	*h;
	struct itable_range	*r;	/* by start */
	size_t			nr;
	size_t			alloc;		/* of h->icopies */
	size_t			gen_alloc;	/* of h->rec_gen */
	size_t			slot_alloc;	/* of h->rec_slot */
	unsigned char		*rec_buf;	/* one record */
};

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
/* Whether record @rec (as on disk) of inode @ino checks itself. */
static int record_csum_ok(struct rec_look *l, ext2_ino_t ino,
			  const unsigned char *rec)
{
	unsigned int isz = EXT2_INODE_SIZE(l->fs->super);

	if (!l->rec_buf && ext2fs_get_mem(isz, &l->rec_buf))
		return 0;
	memcpy(l->rec_buf, rec, isz);
	return ext2fs_inode_csum_verify(l->fs, ino,
				(struct ext2_inode_large *)l->rec_buf);
}

static errcode_t look_at_copy(void *priv, const struct e2sr_jblock *copy,
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
			 E2SR_IREC_FLAGGED : 0);
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
static errcode_t look_at_stale(void *priv, __u32 jblock,
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

static errcode_t itable_ranges(ext2_filsys fs, struct rec_look *l)
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
static errcode_t settle_recs(struct e2sr_history *h)
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

static void version_of(struct e2sr_version *v, const struct e2sr_jblock *b)
{
	v->fs_block = b->fs_block;
	v->jblock = b->jblock;
	v->sequence = b->sequence;
	v->verified = b->verified;
	v->committed = b->committed;
	v->escaped = !!(b->flags & E2SR_JBD2_FLAG_ESCAPE);
}

/* The versions, sorted by comparison: the walk's list in any order. */
static errcode_t versions_sorted(struct e2sr_history *h)
{
	size_t i;
	errcode_t err;

	err = ext2fs_get_arrayzero(h->walk.nblocks, sizeof(*h->v), &h->v);
	if (err)
		return err;
	for (i = 0; i < h->walk.nblocks; i++)
		version_of(&h->v[h->n++], &h->walk.blocks[i]);
	qsort(h->v, h->n, sizeof(*h->v), cmp_version);
	return index_by_jblock(h);
}

/* A version's sort key, and where it is in the walk's list. */
struct vkey {
	blk64_t		fs_block;
	__u32		sequence;
	__u32		idx;
};

/* Byte @shift / 8 of the field @seq (the sequence) or the block. */
static unsigned int key_byte(const struct vkey *k, int seq, int shift)
{
	return (seq ? k->sequence >> shift : k->fs_block >> shift) & 0xff;
}

/*
 * One stable counting pass on a byte of the key, from @in to @out;
 * returns 0, without moving anything, when all keys share that byte.
 */
static int radix_pass(const struct vkey *in, struct vkey *out, size_t n,
		      int seq, int shift)
{
	size_t count[256] = { 0 }, pos[256], i, sum = 0;
	unsigned int b;

	for (i = 0; i < n; i++)
		count[key_byte(&in[i], seq, shift)]++;
	if (count[key_byte(&in[0], seq, shift)] == n)
		return 0;
	for (b = 0; b < 256; b++) {
		pos[b] = sum;
		sum += count[b];
	}
	for (i = 0; i < n; i++)
		out[pos[key_byte(&in[i], seq, shift)]++] = in[i];
	return 1;
}

/*
 * The walk's copies, which it lists in journal block order, as versions
 * sorted by (fs block, sequence, journal block), and the index of them
 * in journal block order.  The walk's order is the last key already: a
 * stable radix sort by sequence, then by block, gives the rest, and the
 * index falls out of it (a comparison sort of both was a fifth of a
 * small run's instructions).
 */
static errcode_t versions_from_walk(struct e2sr_history *h)
{
	const struct e2sr_jblock *b = h->walk.blocks;
	size_t n = h->walk.nblocks, i;
	struct vkey *k, *tmp, *t;
	errcode_t err;
	int shift;

	if (!n)
		return 0;
	for (i = 1; i < n; i++)
		if (b[i].jblock <= b[i - 1].jblock)
			return versions_sorted(h);
	err = ext2fs_get_arrayzero(n, sizeof(*h->v), &h->v);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*h->by_jblock),
				       &h->by_jblock);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*k), &k);
	if (err)
		return err;
	err = ext2fs_get_array(n, sizeof(*tmp), &tmp);
	if (err) {
		ext2fs_free_mem(&k);
		return err;
	}
	for (i = 0; i < n; i++) {
		k[i].fs_block = b[i].fs_block;
		k[i].sequence = b[i].sequence;
		k[i].idx = i;
	}
	for (shift = 0; shift < 32; shift += 8)
		if (radix_pass(k, tmp, n, 1, shift)) {
			t = k;
			k = tmp;
			tmp = t;
		}
	for (shift = 0; shift < 64; shift += 8)
		if (radix_pass(k, tmp, n, 0, shift)) {
			t = k;
			k = tmp;
			tmp = t;
		}
	for (i = 0; i < n; i++) {
		version_of(&h->v[i], &b[k[i].idx]);
		h->by_jblock[k[i].idx] = i;
	}
	h->n = n;
	ext2fs_free_mem(&k);
	ext2fs_free_mem(&tmp);
	return 0;
}

errcode_t e2sr_history_build(ext2_filsys fs, struct e2sr_journal *j,
			     int flags, struct e2sr_history *h)
{
	struct e2sr_jwalk_look walk_look;
	struct rec_look look;
	size_t i;
	errcode_t err;

	memset(h, 0, sizeof(*h));
	h->rec_size = EXT2_INODE_SIZE(fs->super);
	memset(&look, 0, sizeof(look));
	look.fs = fs;
	look.h = h;
	err = itable_ranges(fs, &look);
	if (!err && j) {
		walk_look.copy = look_at_copy;
		walk_look.stale = look_at_stale;
		walk_look.priv = &look;
		look.first = j->jsb.first;
		look.bs = j->jsb.blocksize;
		err = ext2fs_get_memzero((j->jsb.last - j->jsb.first) / 8 + 1,
					 &h->dirlike);
		if (!err)
			err = ext2fs_get_memzero((j->jsb.last -
						  j->jsb.first) / 8 + 1,
						 &h->inline_dirs);
	}
	if (!err)
		err = e2sr_journal_walk_visit(j, ext2fs_blocks_count(fs->super),
					      j ? &walk_look : NULL, &h->walk);
	ext2fs_free_mem(&look.r);
	ext2fs_free_mem(&look.rec_buf);
	if (err) {
		e2sr_history_free(h);
		return err;
	}
	err = versions_from_walk(h);
	if (err) {
		e2sr_history_free(h);
		return err;
	}
	attach_commit_times(h);
	label_layout(fs, h);
	err = settle_recs(h);
	if (err) {
		e2sr_history_free(h);
		return err;
	}
	if ((flags & E2SR_HISTORY_OWNERS) && fs->inode_map) {
		err = label_owners(fs, h);
		if (err) {
			e2sr_history_free(h);
			return err;
		}
		h->owners = 1;
	}
	if (fs->block_map) {
		/* A tag's block number is the journal's word: check it. */
		for (i = 0; i < h->n; i++)
			if (h->v[i].kind == E2SR_JK_UNKNOWN &&
			    h->v[i].fs_block >= fs->super->s_first_data_block &&
			    h->v[i].fs_block < ext2fs_blocks_count(fs->super) &&
			    !ext2fs_test_block_bitmap2(fs->block_map,
						       h->v[i].fs_block))
				h->v[i].kind = E2SR_JK_FREE;
	}
	h->built = 1;
	return 0;
}

void e2sr_history_free(struct e2sr_history *h)
{
	if (!h)
		return;
	e2sr_journal_walk_free(&h->walk);
	ext2fs_free_mem(&h->v);
	ext2fs_free_mem(&h->by_jblock);
	ext2fs_free_mem(&h->icopies);
	ext2fs_free_mem(&h->rec_gen);
	ext2fs_free_mem(&h->rec_slot);
	ext2fs_free_mem(&h->dirlike);
	ext2fs_free_mem(&h->inline_dirs);
	memset(h, 0, sizeof(*h));
}

/*
 * Give back what the index holds once the plan is made: from then on the
 * plan is the data execute writes, and nothing reads the index.  Kept is
 * its size (n, the copies it held, which the report gives); the index is
 * no longer built, so a plan made again builds it again instead of
 * planning from nothing.
 */
void e2sr_history_release(struct e2sr_history *h)
{
	size_t n;

	if (!h || !h->built)
		return;
	n = h->n;
	e2sr_history_free(h);
	h->n = n;
	h->released = 1;
}
