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
 * discovery takes, without reading the log again.  That look, and which
 * stale blocks read as directory blocks, are history_recs.c's; this file
 * calls it from e2sr_history_build() and settles its records once the
 * versions are labelled.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "history.h"
#include "history_int.h"

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

static int tid_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/*
 * The facts the walk filled, finished: which positions read as
 * directories (the look's bitmaps), and where the newest transaction of
 * the ring ended, where the kernel writes next (ring_fresh.c).
 */
static void finish_facts(const struct e2sr_history *h,
			 struct e2sr_ring_facts *f)
{
	const struct e2sr_jwalk *w = &h->walk;
	__u32 i, n = f->last - f->first, newest = 0;
	size_t k;
	int have = 0;

	for (i = 0; i < n; i++) {
		if (!(f->bits[i] & E2SR_RF_KNOWN) ||
		    (f->bits[i] & E2SR_RF_JBD2))
			continue;
		f->bits[i] &= ~(E2SR_RF_DIRLIKE | E2SR_RF_INLINE);
		if (h->dirlike[i >> 3] & (1 << (i & 7)))
			f->bits[i] |= E2SR_RF_DIRLIKE;
		if (h->inline_dirs[i >> 3] & (1 << (i & 7)))
			f->bits[i] |= E2SR_RF_INLINE;
	}
	for (k = 0; k < w->nblocks; k++)
		if (!have || tid_after(w->blocks[k].sequence, newest)) {
			newest = w->blocks[k].sequence;
			have = 1;
		}
	for (k = 0; k < w->ncommits; k++)
		if (!have || tid_after(w->commits[k].sequence, newest)) {
			newest = w->commits[k].sequence;
			have = 1;
		}
	for (k = 0; k < w->nrevokes; k++)
		if (!have || tid_after(w->revokes[k].sequence, newest)) {
			newest = w->revokes[k].sequence;
			have = 1;
		}
	f->has_newest = 0;
	f->newest = newest;
	for (k = 0; have && k < w->ncommits; k++)
		if (w->commits[k].sequence == newest) {
			f->head = w->commits[k].jblock + 1 >= f->last ?
				  f->first : w->commits[k].jblock + 1;
			f->has_newest = 1;
		}
}

errcode_t e2sr_history_build(ext2_filsys fs, struct e2sr_journal *j,
			     int flags, struct e2sr_history *h)
{
	return e2sr_history_build_facts(fs, j, flags, NULL, h);
}

/*
 * The index, with @hf (or NULL): the walk takes what it can from the
 * kept facts instead of the log, and fills the facts of this walk.
 */
errcode_t e2sr_history_build_facts(ext2_filsys fs, struct e2sr_journal *j,
				   int flags, const struct e2sr_hist_facts *hf,
				   struct e2sr_history *h)
{
	struct e2sr_jwalk_look walk_look;
	struct rec_look look;
	size_t i;
	errcode_t err;

	memset(h, 0, sizeof(*h));
	h->rec_size = EXT2_INODE_SIZE(fs->super);
	memset(&look, 0, sizeof(look));
	memset(&walk_look, 0, sizeof(walk_look));
	look.fs = fs;
	look.h = h;
	err = e2sr_history_itable_ranges(fs, &look);
	if (!err && j && hf && hf->out) {
		err = e2sr_rf_init(hf->out, &j->jsb);
		if (!err)
			look.out = hf->out;
		/* Else copied a position at a time, as they are taken. */
		if (!err && hf->in)
			(void)e2sr_rf_adopt(hf->out, hf->in);
	}
	if (!err && j) {
		walk_look.copy = e2sr_history_look_at_copy;
		walk_look.stale = e2sr_history_look_at_stale;
		if (!(flags & E2SR_HISTORY_FACTS_ONLY))
			walk_look.copy_facts = e2sr_history_look_at_facts;
		walk_look.stale_facts = e2sr_history_stale_facts;
		walk_look.priv = &look;
		if (hf) {
			walk_look.facts = hf->in;
			walk_look.fresh = hf->fresh;
			walk_look.out = look.out;
		}
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
		if (look.out)
			e2sr_rf_free(look.out);
		e2sr_history_free(h);
		return err;
	}
	if (look.out) {
		look.out->base = NULL;
		finish_facts(h, look.out);
	}
	if (flags & E2SR_HISTORY_FACTS_ONLY)
		return 0;
	err = versions_from_walk(h);
	if (err) {
		e2sr_history_free(h);
		return err;
	}
	attach_commit_times(h);
	label_layout(fs, h);
	err = e2sr_history_settle_recs(h);
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
