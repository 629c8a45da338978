/*
 * fc_replay.c --- the kernel's fast-commit recovery, through libext2fs.
 *
 * Owns the replay scan (which tags of the fast-commit area are to be
 * replayed: ext4_fc_replay_scan() and jbd2's fc_do_one_pass()) and the
 * replay itself (ext4_fc_replay() with its per-tag functions and
 * ext4_fc_set_bitmaps_and_counters()), written from the kernel's rules
 * onto libext2fs calls: extent handles for add_range, ext2fs_punch for
 * del_range and for an inode an unlink leaves without links (the kernel
 * frees it when it drops the last reference), ext2fs_link/unlink for the
 * dentry tags, checksummed inode writes, and bitmaps and group counts
 * fixed at the end for the groups the replay touched.
 *
 * Where the kernel's replay would fail the mount, this code fails with
 * E2SR_ERR_FC_CORRUPT; where it would do something this code does not
 * reproduce (directories created or removed, files other than regular
 * ones, inline data, block-mapped files, names libext2fs cannot take,
 * quota usage), E2SR_ERR_FC_UNSUPPORTED.  Either
 * way nothing has reached the device: the filesystem is open over an
 * in-memory overlay that the caller then drops.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e2secrmP.h"
#include "crc32c.h"
#include "fc_replay.h"
#include "unaligned.h"

#define TL_SIZE			E2SR_FC_TL_SIZE
#define EXT_INIT_MAX		32768U		/* EXT_INIT_MAX_LEN */
#define EXT_MAGIC		0xF30AU
#define NAME_MAX_LEN		255
#define GOOD_OLD_INODE_SIZE	128
/* Offsets in struct ext2_inode */
#define I_MODE			0
#define I_LINKS			26
#define I_FLAGS			32
#define I_BLOCK			40
#define I_GENERATION		100

/* Tags the replay takes from a walk of the area. */
struct fc_tag {
	unsigned int		tag;
	unsigned int		len;
	const unsigned char	*val;
	__u32			jblock;
	unsigned int		index;		/* from the head, 0 first */
};

/* ext4_fc_value_len_isvalid() */
static int value_len_ok(unsigned int tag, unsigned int len,
			unsigned int inode_size)
{
	switch (tag) {
	case E2SR_FC_TAG_ADD_RANGE:
		return len == 16;
	case E2SR_FC_TAG_DEL_RANGE:
		return len == 12;
	case E2SR_FC_TAG_CREAT:
	case E2SR_FC_TAG_LINK:
	case E2SR_FC_TAG_UNLINK:
		return len >= 8 + 1 && len <= 8 + NAME_MAX_LEN;
	case E2SR_FC_TAG_INODE:
		return len >= 4 + GOOD_OLD_INODE_SIZE &&
		       len <= 4 + inode_size;
	case E2SR_FC_TAG_PAD:
		return 1;
	case E2SR_FC_TAG_TAIL:
		return len >= 8;
	case E2SR_FC_TAG_HEAD:
		return len == 8;
	}
	return 0;
}

/* The kernel stops quietly once a tail was valid, else fails. */
static errcode_t stop_or_fail(struct e2sr_fc_scan *s, errcode_t err)
{
	s->stopped = 1;
	return s->nr_tags ? 0 : err;
}

errcode_t e2sr_fc_scan_block(struct e2sr_fc_scan *s, const void *block,
			     unsigned int blocksize, unsigned int inode_size)
{
	const unsigned char *b = block, *v;
	unsigned int off = 0, tag, len;

	if (s->stopped)
		return 0;
	if (!b || blocksize < E2SR_JBD2_MIN_BLOCKSIZE ||
	    blocksize > E2SR_JBD2_MAX_BLOCKSIZE)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!s->off) {
		s->cur_tag = 0;
		s->cur_ranges = 0;
		s->nr_tags = 0;
		s->crc = 0;
		s->nr_blocks = 0;
		s->nr_commits = 0;
		s->nr_ranges = 0;
		/* No head in the first block: nothing was fast-committed. */
		if (e2sr_get_le16(b) != E2SR_FC_TAG_HEAD) {
			s->stopped = 1;
			return 0;
		}
	}
	s->off++;
	while (off + TL_SIZE <= blocksize) {
		tag = e2sr_get_le16(b + off);
		len = e2sr_get_le16(b + off + 2);
		v = b + off + TL_SIZE;
		if (len > blocksize - off - TL_SIZE ||
		    !value_len_ok(tag, len, inode_size))
			return stop_or_fail(s, E2SR_ERR_FC_CORRUPT);
		switch (tag) {
		case E2SR_FC_TAG_ADD_RANGE:
			s->cur_ranges++;
			/* fall through */
		case E2SR_FC_TAG_DEL_RANGE:
		case E2SR_FC_TAG_LINK:
		case E2SR_FC_TAG_UNLINK:
		case E2SR_FC_TAG_CREAT:
		case E2SR_FC_TAG_INODE:
		case E2SR_FC_TAG_PAD:
			s->cur_tag++;
			s->crc = e2sr_crc32c_le(s->crc, b + off,
						  TL_SIZE + len);
			break;
		case E2SR_FC_TAG_TAIL:
			s->cur_tag++;
			/* tl and fc_tid, not fc_crc */
			s->crc = e2sr_crc32c_le(s->crc, b + off, TL_SIZE + 4);
			if (e2sr_get_le32(v) != s->expected_tid ||
			    e2sr_get_le32(v + 4) != s->crc) {
				s->crc = 0;
				return stop_or_fail(s, E2SR_ERR_FC_CORRUPT);
			}
			s->nr_tags = s->cur_tag;
			s->nr_blocks = s->off;
			s->nr_commits++;
			s->nr_ranges = s->cur_ranges;
			s->crc = 0;
			break;
		case E2SR_FC_TAG_HEAD:
			if (e2sr_get_le32(v) & ~(__u32)E2SR_FC_SUPPORTED_FEATURES) {
				s->stopped = 1;
				return E2SR_ERR_FC_UNSUPPORTED;
			}
			if (e2sr_get_le32(v + 4) != s->expected_tid) {
				s->stopped = 1;
				return 0;
			}
			s->cur_tag++;
			s->crc = e2sr_crc32c_le(s->crc, b + off,
						  TL_SIZE + len);
			break;
		default:
			return stop_or_fail(s, E2SR_ERR_FC_CORRUPT);
		}
		off += TL_SIZE + len;
	}
	return 0;
}

errcode_t e2sr_fc_replay_scan(struct e2sr_journal *j, __u32 expected_tid,
			      unsigned int inode_size,
			      struct e2sr_fc_scan *out)
{
	const unsigned char *b;
	__u32 pos;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	out->expected_tid = expected_tid;
	/* jbd2 runs the fast-commit pass only after a recovery scan. */
	if (!j || !(j->jsb.incompat & E2SR_JBD2_INCOMPAT_FAST_COMMIT) ||
	    !j->jsb.fc_blocks || !j->jsb.start)
		return 0;
	/* j_fc_first is j_last + 1: the block at j_last is never used. */
	out->first = j->jsb.last + 1;
	out->end = j->jsb.maxlen;
	if (out->first >= out->end)
		return 0;
	for (pos = out->first; pos < out->end && !out->stopped; pos++) {
		err = e2sr_journal_block(j, pos, &b);
		if (err)
			return err;
		err = e2sr_fc_scan_block(out, b, j->blocksize,
					 inode_size ? inode_size :
					 GOOD_OLD_INODE_SIZE);
		if (err)
			return err;
	}
	/* jbd2 would read past the area, and fail. */
	if (!out->stopped)
		return E2SR_ERR_FC_CORRUPT;
	return 0;
}

/* ---- replay ---- */

struct region {
	blk64_t	pblk;
	__u32	len;
};

struct replay {
	ext2_filsys		fs;
	struct e2sr_journal	*j;
	const struct e2sr_fc_scan *scan;
	char			*detail;
	size_t			dlen;
	unsigned int		isize;		/* on-disk inode size */
	unsigned char		*ibuf;		/* one inode */
	unsigned char		*block;		/* one fast-commit block */
	const struct fc_tag	*cur;		/* for the detail */

	ext2fs_block_bitmap	meta;		/* metadata: never data */
	struct region		*regions;	/* add_range targets */
	size_t			nregions;
	size_t			aregions;
	ext2_ino_t		*modified;
	size_t			nmodified;
	size_t			amodified;
	unsigned char		*bgroups;	/* groups whose blocks changed */
	unsigned char		*igroups;	/* groups whose inodes changed */

	void			*old_priv;
	errcode_t		(*old_alloc)(ext2_filsys, blk64_t, blk64_t *);
	void			(*old_stats)(ext2_filsys, blk64_t, int);
	void			(*old_range)(ext2_filsys, blk64_t, blk_t,
					     int);
};

static const char *tag_name(unsigned int tag)
{
	return e2sr_fc_tag_name(tag);
}

static errcode_t refuse(struct replay *r, errcode_t err, const char *why,
			ext2_ino_t ino)
{
	if (r->cur)
		snprintf(r->detail, r->dlen,
			 "fast-commit tag %u (%s) in journal block %u, inode "
			 "%u: %s", r->cur->index, tag_name(r->cur->tag),
			 r->cur->jblock, ino, why);
	else
		snprintf(r->detail, r->dlen, "inode %u: %s", ino, why);
	return err;
}

static void touch_block(struct replay *r, blk64_t blk)
{
	ext2_filsys fs = r->fs;

	if (blk >= fs->super->s_first_data_block &&
	    blk < ext2fs_blocks_count(fs->super))
		r->bgroups[ext2fs_group_of_blk2(fs, blk)] = 1;
}

static void touch_inode(struct replay *r, ext2_ino_t ino)
{
	if (ino >= 1 && ino <= r->fs->super->s_inodes_count)
		r->igroups[ext2fs_group_of_ino(r->fs, ino)] = 1;
}

static int in_fs(ext2_filsys fs, blk64_t blk, __u64 len)
{
	blk64_t n = ext2fs_blocks_count(fs->super);

	return blk >= fs->super->s_first_data_block && blk < n &&
	       len <= n - blk;
}

/* Block bitmap changes, range-checked so that libext2fs never warns. */
static void mark_blocks(struct replay *r, blk64_t blk, __u64 len, int used)
{
	__u64 i;

	if (!len || !in_fs(r->fs, blk, len))
		return;
	if (used)
		ext2fs_mark_block_bitmap_range2(r->fs->block_map, blk, len);
	else
		ext2fs_unmark_block_bitmap_range2(r->fs->block_map, blk, len);
	for (i = 0; i < len; i += EXT2_BLOCKS_PER_GROUP(r->fs->super))
		touch_block(r, blk + i);
	touch_block(r, blk + len - 1);
}

/* libext2fs' own allocations and frees: the groups they touch. */
static void stats_cb(ext2_filsys fs, blk64_t blk, int inuse)
{
	struct replay *r = fs->priv_data;

	touch_block(r, blk);
	if (r->old_stats)
		r->old_stats(fs, blk, inuse);
}

static void range_cb(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	struct replay *r = fs->priv_data;
	blk_t i;

	for (i = 0; i < num; i += EXT2_BLOCKS_PER_GROUP(fs->super))
		touch_block(r, blk + i);
	if (num)
		touch_block(r, blk + num - 1);
	if (r->old_range)
		r->old_range(fs, blk, num, inuse);
}

static int excluded(const struct replay *r, blk64_t blk, blk64_t *next)
{
	size_t i;

	for (i = 0; i < r->nregions; i++) {
		if (blk >= r->regions[i].pblk &&
		    blk - r->regions[i].pblk < r->regions[i].len) {
			*next = r->regions[i].pblk + r->regions[i].len;
			return 1;
		}
	}
	return 0;
}

/*
 * New extent tree and directory blocks: free in the bitmap and not a
 * target of any add_range, as the kernel's replay allocator excludes
 * the regions its scan recorded.
 */
static errcode_t alloc_cb(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct replay *r = fs->priv_data;
	blk64_t blk = goal, next;
	size_t tries;
	errcode_t err;

	for (tries = 0; tries <= r->nregions + 1; tries++) {
		if (blk >= ext2fs_blocks_count(fs->super))
			blk = fs->super->s_first_data_block;
		err = ext2fs_new_block2(fs, blk, fs->block_map, &blk);
		if (err)
			return err;
		if (!excluded(r, blk, &next)) {
			*ret = blk;
			return 0;
		}
		blk = next;
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

static errcode_t build_meta(struct replay *r)
{
	ext2_filsys fs = r->fs;
	errcode_t err;
	dgrp_t g;

	err = ext2fs_allocate_block_bitmap(fs, "fast-commit replay metadata",
					   &r->meta);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t it = ext2fs_inode_table_loc(fs, g);

		ext2fs_reserve_super_and_bgd(fs, g, r->meta);
		if (in_fs(fs, ext2fs_block_bitmap_loc(fs, g), 1))
			ext2fs_mark_block_bitmap2(r->meta,
					ext2fs_block_bitmap_loc(fs, g));
		if (in_fs(fs, ext2fs_inode_bitmap_loc(fs, g), 1))
			ext2fs_mark_block_bitmap2(r->meta,
					ext2fs_inode_bitmap_loc(fs, g));
		if (in_fs(fs, it, fs->inode_blocks_per_group))
			ext2fs_mark_block_bitmap_range2(r->meta, it,
					fs->inode_blocks_per_group);
	}
	return 0;
}

/* A data range the replay may map: inside, not metadata, not journal. */
static int data_range_ok(struct replay *r, blk64_t pblk, __u32 len)
{
	__u32 i;

	if (!in_fs(r->fs, pblk, len))
		return 0;
	if (!ext2fs_test_block_bitmap_range2(r->meta, pblk, len))
		return 0;
	for (i = 0; i < len; i++)
		if (e2sr_journal_owns(r->j, pblk + i))
			return 0;
	return 1;
}

static errcode_t add_modified(struct replay *r, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < r->nmodified; i++)
		if (r->modified[i] == ino)
			return 0;
	if (e2sr_array_room(&r->modified, &r->amodified, r->nmodified + 1,
			    sizeof(*r->modified)))
		return EXT2_ET_NO_MEMORY;
	r->modified[r->nmodified++] = ino;
	return 0;
}

static errcode_t read_raw(struct replay *r, ext2_ino_t ino)
{
	return ext2fs_read_inode_full(r->fs, ino,
				      (struct ext2_inode *)r->ibuf, r->isize);
}

static errcode_t write_raw(struct replay *r, ext2_ino_t ino)
{
	return ext2fs_write_inode_full(r->fs, ino,
				       (struct ext2_inode *)r->ibuf, r->isize);
}

/*
 * What ext4_iget(EXT4_IGET_NORMAL) accepts, as far as the replay cares:
 * a valid number and an inode with links and a mode.
 */
static int inode_live(struct replay *r, ext2_ino_t ino,
		      struct ext2_inode *inode)
{
	if (ino < 1 || ino > r->fs->super->s_inodes_count)
		return 0;
	if (ext2fs_read_inode(r->fs, ino, inode))
		return 0;
	return inode->i_links_count && inode->i_mode;
}

static int extent_mapped(const struct ext2_inode *inode)
{
	return (inode->i_flags & EXT4_EXTENTS_FL) &&
	       !(inode->i_flags & EXT4_INLINE_DATA_FL);
}

/*
 * Walk every extent of @ino: @fn sees leaves (data) and the blocks of
 * the tree below the root.  A block out of the filesystem is refused.
 */
typedef void (*extent_fn)(struct replay *r, const struct ext2fs_extent *e,
			  int leaf, void *priv);

static errcode_t walk_extents(struct replay *r, ext2_ino_t ino,
			      struct ext2_inode *inode, extent_fn fn,
			      void *priv)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	unsigned long steps = 0;
	errcode_t err;
	int leaf;

	err = ext2fs_extent_open2(r->fs, ino, inode, &h);
	if (err)
		return err;
	err = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e);
	while (!err) {
		if (++steps > (1UL << 30)) {
			err = EXT2_ET_EXTENT_HEADER_BAD;
			break;
		}
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)) {
			leaf = !!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF);
			if (!in_fs(r->fs, e.e_pblk, leaf ? e.e_len : 1)) {
				err = refuse(r, E2SR_ERR_FC_UNSUPPORTED,
					     "block map leaves the filesystem",
					     ino);
				break;
			}
			fn(r, &e, leaf, priv);
		}
		err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT, &e);
	}
	ext2fs_extent_free(h);
	if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_NO_CURRENT_NODE)
		err = 0;
	return err;
}

/* ext4_ext_clear_bb(): what an inode maps below i_size is freed. */
static void clear_fn(struct replay *r, const struct ext2fs_extent *e,
		     int leaf, void *priv)
{
	blk64_t end = *(blk64_t *)priv;
	__u64 n;

	if (e->e_lblk >= end)
		return;
	if (!leaf) {
		mark_blocks(r, e->e_pblk, 1, 0);
		return;
	}
	n = e->e_len;
	if (e->e_lblk + n > end)
		n = end - e->e_lblk;
	mark_blocks(r, e->e_pblk, n, 0);
}

/* ext4_fc_set_bitmaps_and_counters(): all an inode maps is in use. */
static void mark_fn(struct replay *r, const struct ext2fs_extent *e,
		    int leaf, void *priv EXT2FS_ATTR((unused)))
{
	mark_blocks(r, e->e_pblk, leaf ? e->e_len : 1, 1);
}

/* ext4_ext_replay_set_iblocks(), with the EA block e2fsck counts. */
static void count_fn(struct replay *r EXT2FS_ATTR((unused)),
		     const struct ext2fs_extent *e, int leaf, void *priv)
{
	*(blk64_t *)priv += leaf ? e->e_len : 1;
}

static errcode_t tag_inode(struct replay *r, const struct fc_tag *t)
{
	const unsigned char *raw = t->val + 4;
	unsigned int rlen = t->len - 4;
	ext2_ino_t ino = e2sr_get_le32(t->val);
	struct ext2_inode old;
	unsigned char *ib = r->ibuf;
	__u16 mode = e2sr_get_le16(raw + I_MODE);
	__u32 flags = e2sr_get_le32(raw + I_FLAGS);
	blk64_t end;
	errcode_t err;

	if (ino < EXT2_FIRST_INO(r->fs->super) ||
	    ino > r->fs->super->s_inodes_count)
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "reserved or out-of-range inode", ino);
	if (!LINUX_S_ISREG(mode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "not a regular file", ino);
	if (!(flags & EXT4_EXTENTS_FL) || (flags & EXT4_INLINE_DATA_FL))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "not extent-mapped", ino);
	/* ext4_iget() of an inode without links fails the replay. */
	if (!e2sr_get_le16(raw + I_LINKS))
		return refuse(r, E2SR_ERR_FC_CORRUPT,
			      "logged without links", ino);
	if (inode_live(r, ino, &old)) {
		if (!extent_mapped(&old))
			return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				      "replaces a file that is not "
				      "extent-mapped", ino);
		end = EXT2_I_SIZE(&old) / r->fs->blocksize;
		err = walk_extents(r, ino, &old, clear_fn, &end);
		if (err)
			return err;
	}
	err = add_modified(r, ino);
	if (!err)
		err = read_raw(r, ino);
	if (err)
		return err;
	/* The logged inode, but the block map is the one on disk. */
	memcpy(ib, raw, I_BLOCK);
	memcpy(ib + I_GENERATION, raw + I_GENERATION, rlen - I_GENERATION);
	if (e2sr_get_le16(ib + I_BLOCK) != EXT_MAGIC) {
		memset(ib + I_BLOCK, 0, 12);
		ib[I_BLOCK] = EXT_MAGIC & 0xff;
		ib[I_BLOCK + 1] = EXT_MAGIC >> 8;
		ib[I_BLOCK + 4] = (60 - 12) / 12;	/* eh_max */
	}
	err = write_raw(r, ino);
	if (err)
		return err;
	if (!ext2fs_test_inode_bitmap2(r->fs->inode_map, ino)) {
		ext2fs_mark_inode_bitmap2(r->fs->inode_map, ino);
		touch_inode(r, ino);
	}
	return 0;
}

/* The extent of @lblk, if mapped: its block and whether unwritten. */
static errcode_t lookup_block(ext2_extent_handle_t h, blk64_t lblk,
			      blk64_t *pblk, int *uninit)
{
	struct ext2fs_extent e;
	errcode_t err;

	*pblk = 0;
	*uninit = 0;
	err = ext2fs_extent_goto2(h, 0, lblk);
	if (err == EXT2_ET_EXTENT_NOT_FOUND)
		return 0;
	if (err)
		return err;
	err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	if (err)
		return err;
	if (lblk >= e.e_lblk && lblk - e.e_lblk < e.e_len) {
		*pblk = e.e_pblk + (lblk - e.e_lblk);
		*uninit = !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT);
	}
	return 0;
}

/* ext4_fc_replay_add_range() */
static errcode_t tag_add_range(struct replay *r, const struct fc_tag *t)
{
	ext2_ino_t ino = e2sr_get_le32(t->val);
	__u32 lblk = e2sr_get_le32(t->val + 4);
	unsigned int elen = e2sr_get_le16(t->val + 8);
	blk64_t pblk = ((blk64_t)e2sr_get_le16(t->val + 10) << 32) |
		       e2sr_get_le32(t->val + 12);
	int unwritten = elen > EXT_INIT_MAX;
	__u32 len = unwritten ? elen - EXT_INIT_MAX : elen, i;
	struct ext2_inode inode;
	ext2_extent_handle_t h;
	blk64_t cur;
	int cur_uninit;
	errcode_t err;

	if (!inode_live(r, ino, &inode))
		return 0;
	if (!extent_mapped(&inode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "not extent-mapped", ino);
	err = add_modified(r, ino);
	if (err || !len)
		return err;
	err = ext2fs_extent_open2(r->fs, ino, &inode, &h);
	if (err)
		return err;
	for (i = 0; i < len; i++) {
		err = lookup_block(h, (blk64_t)lblk + i, &cur, &cur_uninit);
		if (err)
			break;
		if (cur == pblk + i && cur_uninit == unwritten)
			continue;
		err = ext2fs_extent_set_bmap(h, (blk64_t)lblk + i, pblk + i,
					     unwritten ?
					     EXT2_EXTENT_SET_BMAP_UNINIT : 0);
		if (err)
			break;
		/* Remapped: the old block is free unless mapped again. */
		if (cur && cur != pblk + i)
			mark_blocks(r, cur, 1, 0);
	}
	ext2fs_extent_free(h);
	return err;
}

struct del_priv {
	__u64	first;
	__u64	end;		/* exclusive */
};

static void del_fn(struct replay *r, const struct ext2fs_extent *e,
		   int leaf, void *priv)
{
	struct del_priv *d = priv;
	__u64 from, to;

	if (!leaf)
		return;
	from = e->e_lblk > d->first ? e->e_lblk : d->first;
	to = e->e_lblk + e->e_len < d->end ? e->e_lblk + e->e_len : d->end;
	if (from < to)
		mark_blocks(r, e->e_pblk + (from - e->e_lblk), to - from, 0);
}

/* ext4_fc_replay_del_range() */
static errcode_t tag_del_range(struct replay *r, const struct fc_tag *t)
{
	ext2_ino_t ino = e2sr_get_le32(t->val);
	struct del_priv d;
	struct ext2_inode inode;
	errcode_t err;

	d.first = e2sr_get_le32(t->val + 4);
	d.end = d.first + e2sr_get_le32(t->val + 8);
	if (!inode_live(r, ino, &inode))
		return 0;
	if (!extent_mapped(&inode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "not extent-mapped", ino);
	if (d.end == d.first || d.end > (1ULL << 32))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "range out of bounds", ino);
	err = add_modified(r, ino);
	if (!err)
		err = walk_extents(r, ino, &inode, del_fn, &d);
	if (!err)
		err = ext2fs_punch(r->fs, ino, &inode, NULL, d.first,
				   d.end - 1);
	return err;
}

/*
 * The last link gone: the kernel's iput() evicts the inode, which
 * truncates it and frees it (ext4_evict_inode, ext4_free_inode).
 */
static errcode_t free_inode(struct replay *r, ext2_ino_t ino,
			    struct ext2_inode *inode)
{
	blk64_t count = 0;
	errcode_t err;

	if (!extent_mapped(inode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "unlinks a file that is not extent-mapped", ino);
	/* Every block in the filesystem before libext2fs frees it. */
	err = walk_extents(r, ino, inode, count_fn, &count);
	if (!err)
		err = ext2fs_punch(r->fs, ino, inode, NULL, 0, ~0ULL);
	if (!err)
		err = ext2fs_read_inode(r->fs, ino, inode);
	if (err)
		return err;
	inode->i_size = 0;
	inode->i_size_high = 0;
	inode->i_dtime = r->fs->now ? r->fs->now : time(NULL);
	err = ext2fs_write_inode(r->fs, ino, inode);
	if (err)
		return err;
	if (ext2fs_test_inode_bitmap2(r->fs->inode_map, ino)) {
		ext2fs_unmark_inode_bitmap2(r->fs->inode_map, ino);
		touch_inode(r, ino);
	}
	return 0;
}

/* A name libext2fs can take as a C string, and not "." or "..". */
static errcode_t dentry_name(struct replay *r, const struct fc_tag *t,
			     char *name)
{
	unsigned int n = t->len - 8;

	memcpy(name, t->val + 8, n);
	name[n] = 0;
	if (strlen(name) != n || memchr(name, '/', n) ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "name libext2fs cannot take",
			      e2sr_get_le32(t->val + 4));
	return 0;
}

static int dir_live(struct replay *r, ext2_ino_t dir, struct ext2_inode *d)
{
	return inode_live(r, dir, d) && LINUX_S_ISDIR(d->i_mode);
}

/*
 * __ext4_link() for the replay: the name added unless present.  It
 * returns 1 when the name was added, 0 when it was there already.
 */
static errcode_t link_name(struct replay *r, ext2_ino_t dir, ext2_ino_t ino,
			   const char *name, const struct ext2_inode *inode,
			   int *added)
{
	ext2_ino_t found;
	errcode_t err;
	int tries;

	*added = 0;
	err = ext2fs_lookup(r->fs, dir, name, strlen(name), NULL, &found);
	if (!err) {
		if (found == ino)
			return 0;	/* -EEXIST: the kernel goes on */
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "name already names another inode", ino);
	}
	if (err != EXT2_ET_FILE_NOT_FOUND)
		return err;
	if (!LINUX_S_ISREG(inode->i_mode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "links a file that is not regular", ino);
	for (tries = 0; tries < 2; tries++) {
		err = ext2fs_link(r->fs, dir, name, ino, EXT2_FT_REG_FILE);
		if (err != EXT2_ET_DIR_NO_SPACE)
			break;
		err = ext2fs_expand_dir(r->fs, dir);
		if (err)
			return err;
	}
	if (!err)
		*added = 1;
	return err;
}

static errcode_t set_links(struct replay *r, ext2_ino_t ino, int delta,
			   int value)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(r->fs, ino, &inode);
	if (err)
		return err;
	if (value >= 0)
		inode.i_links_count = value;
	else if (delta > 0 && inode.i_links_count < 65000)
		inode.i_links_count++;
	else if (delta < 0 && inode.i_links_count)
		inode.i_links_count--;
	err = ext2fs_write_inode(r->fs, ino, &inode);
	if (!err && !inode.i_links_count)
		err = free_inode(r, ino, &inode);
	return err;
}

/* ext4_fc_replay_link() and the link half of _create() */
static errcode_t tag_link(struct replay *r, const struct fc_tag *t,
			  int create)
{
	ext2_ino_t dir = e2sr_get_le32(t->val), ino = e2sr_get_le32(t->val + 4);
	char name[NAME_MAX_LEN + 1];
	struct ext2_inode inode, d;
	errcode_t err;
	int added;

	err = dentry_name(r, t, name);
	if (err)
		return err;
	if (create) {
		/* ext4_mark_inode_used() and ext4_iget() must succeed. */
		if (ino < EXT2_FIRST_INO(r->fs->super) ||
		    ino > r->fs->super->s_inodes_count ||
		    !inode_live(r, ino, &inode))
			return refuse(r, E2SR_ERR_FC_CORRUPT,
				      "created inode is not there", ino);
		if (LINUX_S_ISDIR(inode.i_mode))
			return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				      "directory created", ino);
		if (!ext2fs_test_inode_bitmap2(r->fs->inode_map, ino)) {
			ext2fs_mark_inode_bitmap2(r->fs->inode_map, ino);
			touch_inode(r, ino);
		}
	} else if (!inode_live(r, ino, &inode)) {
		return 0;
	}
	added = 0;
	if (dir_live(r, dir, &d)) {
		err = link_name(r, dir, ino, name, &inode, &added);
		if (err)
			return err;
	} else if (inode_live(r, dir, &d)) {
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "parent is not a directory", dir);
	}
	if (create)
		return set_links(r, ino, 0, 1);
	return added ? set_links(r, ino, 1, -1) : 0;
}

/* ext4_fc_replay_unlink(): __ext4_unlink() during a replay */
static errcode_t tag_unlink(struct replay *r, const struct fc_tag *t)
{
	ext2_ino_t dir = e2sr_get_le32(t->val), ino = e2sr_get_le32(t->val + 4);
	char name[NAME_MAX_LEN + 1];
	struct ext2_inode inode, d;
	ext2_ino_t found;
	errcode_t err;

	err = dentry_name(r, t, name);
	if (err)
		return err;
	if (!inode_live(r, ino, &inode))
		return 0;
	if (!inode_live(r, dir, &d))
		return 0;
	if (!LINUX_S_ISDIR(d.i_mode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "parent is not a directory", dir);
	if (LINUX_S_ISDIR(inode.i_mode))
		return refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			      "directory removed", ino);
	err = ext2fs_lookup(r->fs, dir, name, strlen(name), NULL, &found);
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return 0;		/* -ENOENT: nothing happens */
	if (err)
		return err;
	/* Another inode's name is left, yet the link count drops. */
	if (found == ino) {
		err = ext2fs_unlink(r->fs, dir, name, ino, 0);
		if (err)
			return err;
	}
	return set_links(r, ino, -1, -1);
}

/* A group's counts from its bitmap, for the groups the replay touched. */
static errcode_t fix_groups(struct replay *r)
{
	ext2_filsys fs = r->fs;
	struct ext2_super_block *sb = fs->super;
	__u32 bpg = sb->s_blocks_per_group, ipg = sb->s_inodes_per_group;
	unsigned char *bits;
	blk64_t start, nblocks, free_b = 0, used;
	__u64 free_i = 0;
	ext2_ino_t first_ino;
	errcode_t err = 0;
	dgrp_t g;
	__u32 i, last;

	err = ext2fs_get_mem((bpg > ipg ? bpg : ipg) / 8 + 1, &bits);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (r->bgroups[g]) {
			start = ext2fs_group_first_block2(fs, g);
			nblocks = ext2fs_group_last_block2(fs, g) - start + 1;
			memset(bits, 0, bpg / 8 + 1);
			err = ext2fs_get_block_bitmap_range2(fs->block_map,
							     start, nblocks,
							     bits);
			if (err)
				break;
			used = 0;
			for (i = 0; i < nblocks; i++)
				used += (bits[i / 8] >> (i % 8)) & 1;
			ext2fs_bg_free_blocks_count_set(fs, g, nblocks - used);
			ext2fs_bg_flags_clear(fs, g, EXT2_BG_BLOCK_UNINIT);
		}
		if (r->igroups[g]) {
			first_ino = g * ipg + 1;
			memset(bits, 0, ipg / 8 + 1);
			err = ext2fs_get_inode_bitmap_range2(fs->inode_map,
							     first_ino, ipg,
							     bits);
			if (err)
				break;
			used = 0;
			last = 0;
			for (i = 0; i < ipg; i++) {
				if ((bits[i / 8] >> (i % 8)) & 1) {
					used++;
					last = i + 1;
				}
			}
			ext2fs_bg_free_inodes_count_set(fs, g, ipg - used);
			if (used)
				ext2fs_bg_flags_clear(fs, g,
						      EXT2_BG_INODE_UNINIT);
			if (ext2fs_has_group_desc_csum(fs) &&
			    ext2fs_bg_itable_unused(fs, g) > ipg - last)
				ext2fs_bg_itable_unused_set(fs, g, ipg - last);
		}
		if (r->bgroups[g] || r->igroups[g])
			ext2fs_group_desc_csum_set(fs, g);
		free_b += ext2fs_bg_free_blocks_count(fs, g);
		free_i += ext2fs_bg_free_inodes_count(fs, g);
	}
	ext2fs_free_mem(&bits);
	if (err)
		return err;
	ext2fs_free_blocks_count_set(sb, free_b);
	sb->s_free_inodes_count = free_i;
	ext2fs_mark_super_dirty(fs);
	ext2fs_mark_bb_dirty(fs);
	ext2fs_mark_ib_dirty(fs);
	return 0;
}

/* ext4_fc_set_bitmaps_and_counters(), and each inode's i_blocks. */
static errcode_t set_bitmaps_and_counters(struct replay *r)
{
	struct ext2_inode inode;
	blk64_t count;
	size_t i;
	errcode_t err;

	for (i = 0; i < r->nmodified; i++) {
		ext2_ino_t ino = r->modified[i];

		if (!inode_live(r, ino, &inode) || !extent_mapped(&inode))
			continue;
		err = walk_extents(r, ino, &inode, mark_fn, NULL);
		if (err)
			return err;
		count = 0;
		err = walk_extents(r, ino, &inode, count_fn, &count);
		if (err)
			return err;
		if (ext2fs_file_acl_block(r->fs, &inode))
			count++;
		err = ext2fs_iblk_set(r->fs, &inode, count);
		if (!err)
			err = ext2fs_write_inode(r->fs, ino, &inode);
		if (err)
			return err;
	}
	return fix_groups(r);
}

typedef errcode_t (*tag_fn)(struct replay *r, const struct fc_tag *t);

/*
 * The replayable tags in log order, as ext4_fc_replay() meets them:
 * [first, first + nr_blocks), nr_tags in all.
 */
static errcode_t for_each_tag(struct replay *r, tag_fn fn)
{
	const struct e2sr_fc_scan *s = r->scan;
	unsigned int bs = r->j->blocksize, off, len;
	struct fc_tag t;
	__u32 b, n = 0;
	errcode_t err;

	for (b = 0; b < s->nr_blocks && n < s->nr_tags; b++) {
		err = e2sr_journal_read(r->j, s->first + b, 1, r->block);
		if (err)
			return err;
		off = 0;
		while (off + TL_SIZE <= bs && n < s->nr_tags) {
			t.tag = e2sr_get_le16(r->block + off);
			len = e2sr_get_le16(r->block + off + 2);
			if (len > bs - off - TL_SIZE ||
			    !value_len_ok(t.tag, len, r->isize)) {
				snprintf(r->detail, r->dlen,
					 "fast-commit block %u changed "
					 "since the scan", s->first + b);
				return E2SR_ERR_FC_CORRUPT;
			}
			t.len = len;
			t.val = r->block + off + TL_SIZE;
			t.jblock = s->first + b;
			t.index = n++;
			r->cur = &t;
			err = fn(r, &t);
			r->cur = NULL;
			if (err)
				return err;
			off += TL_SIZE + len;
		}
	}
	if (n != s->nr_tags) {
		snprintf(r->detail, r->dlen,
			 "%u fast-commit tags found, the scan counted %u",
			 n, s->nr_tags);
		return E2SR_ERR_FC_CORRUPT;
	}
	return 0;
}

/* Bounds that do not depend on the state: checked before any change. */
static errcode_t check_tag(struct replay *r, const struct fc_tag *t)
{
	unsigned int elen;
	blk64_t pblk;
	__u32 lblk, len;

	switch (t->tag) {
	case E2SR_FC_TAG_ADD_RANGE:
		lblk = e2sr_get_le32(t->val + 4);
		elen = e2sr_get_le16(t->val + 8);
		len = elen > EXT_INIT_MAX ? elen - EXT_INIT_MAX : elen;
		pblk = ((blk64_t)e2sr_get_le16(t->val + 10) << 32) |
		       e2sr_get_le32(t->val + 12);
		if (!len)
			return 0;
		if ((__u64)lblk + len > 0xffffffffULL ||
		    !data_range_ok(r, pblk, len))
			return refuse(r, E2SR_ERR_FC_CORRUPT,
				      "maps blocks outside the data area",
				      e2sr_get_le32(t->val));
		if (e2sr_array_room(&r->regions, &r->aregions,
				    r->nregions + 1, sizeof(*r->regions)))
			return EXT2_ET_NO_MEMORY;
		r->regions[r->nregions].pblk = pblk;
		r->regions[r->nregions].len = len;
		r->nregions++;
		return 0;
	case E2SR_FC_TAG_INODE:
	case E2SR_FC_TAG_DEL_RANGE:
	case E2SR_FC_TAG_PAD:
	case E2SR_FC_TAG_TAIL:
	case E2SR_FC_TAG_HEAD:
	case E2SR_FC_TAG_CREAT:
	case E2SR_FC_TAG_LINK:
	case E2SR_FC_TAG_UNLINK:
		return 0;
	}
	return refuse(r, E2SR_ERR_FC_UNSUPPORTED, "unknown tag", 0);
}

static errcode_t apply_tag(struct replay *r, const struct fc_tag *t)
{
	switch (t->tag) {
	case E2SR_FC_TAG_LINK:
		return tag_link(r, t, 0);
	case E2SR_FC_TAG_UNLINK:
		return tag_unlink(r, t);
	case E2SR_FC_TAG_ADD_RANGE:
		return tag_add_range(r, t);
	case E2SR_FC_TAG_CREAT:
		return tag_link(r, t, 1);
	case E2SR_FC_TAG_DEL_RANGE:
		return tag_del_range(r, t);
	case E2SR_FC_TAG_INODE:
		return tag_inode(r, t);
	case E2SR_FC_TAG_PAD:
	case E2SR_FC_TAG_TAIL:
	case E2SR_FC_TAG_HEAD:
		return 0;
	}
	return refuse(r, E2SR_ERR_FC_UNSUPPORTED, "unknown tag", 0);
}

/* Features whose replay this code does not reproduce. */
static errcode_t check_fs(struct replay *r)
{
	struct ext2_super_block *sb = r->fs->super;

	if (ext2fs_has_feature_bigalloc(sb) ||
	    ext2fs_has_feature_inline_data(sb) ||
	    ext2fs_has_feature_encrypt(sb) ||
	    ext2fs_has_feature_casefold(sb) ||
	    ext2fs_has_feature_quota(sb)) {
		snprintf(r->detail, r->dlen,
			 "fast commits on a filesystem with bigalloc, "
			 "inline_data, encrypt, casefold or quota");
		return E2SR_ERR_FC_UNSUPPORTED;
	}
	if (!(r->fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	return 0;
}

errcode_t e2sr_fc_replay_apply(ext2_filsys fs, struct e2sr_journal *j,
			       const struct e2sr_fc_scan *scan, char *detail,
			       size_t detail_len)
{
	struct replay r;
	errcode_t err;

	if (!fs || !j || !scan)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!scan->nr_tags)
		return 0;
	memset(&r, 0, sizeof(r));
	r.fs = fs;
	r.j = j;
	r.scan = scan;
	r.detail = detail;
	r.dlen = detail_len;
	r.isize = EXT2_INODE_SIZE(fs->super);
	if (j->blocksize != fs->blocksize || scan->first < j->jsb.last ||
	    scan->nr_blocks > scan->end - scan->first ||
	    scan->end > j->nblocks)
		return EXT2_ET_INVALID_ARGUMENT;
	err = check_fs(&r);
	if (err)
		return err;
	if (!fs->block_map || !fs->inode_map)
		err = ext2fs_read_bitmaps(fs);
	if (!err)
		err = ext2fs_get_mem(r.isize, &r.ibuf);
	if (!err)
		err = ext2fs_get_mem(j->blocksize, &r.block);
	if (!err)
		err = ext2fs_get_memzero(fs->group_desc_count, &r.bgroups);
	if (!err)
		err = ext2fs_get_memzero(fs->group_desc_count, &r.igroups);
	if (!err)
		err = build_meta(&r);
	if (!err)
		err = for_each_tag(&r, check_tag);
	if (err)
		goto out;

	r.old_priv = fs->priv_data;
	fs->priv_data = &r;
	ext2fs_set_alloc_block_callback(fs, alloc_cb, &r.old_alloc);
	ext2fs_set_block_alloc_stats_callback(fs, stats_cb, &r.old_stats);
	ext2fs_set_block_alloc_stats_range_callback(fs, range_cb,
						    &r.old_range);
	err = for_each_tag(&r, apply_tag);
	if (!err)
		err = set_bitmaps_and_counters(&r);
	ext2fs_set_alloc_block_callback(fs, r.old_alloc, NULL);
	ext2fs_set_block_alloc_stats_callback(fs, r.old_stats, NULL);
	ext2fs_set_block_alloc_stats_range_callback(fs, r.old_range, NULL);
	fs->priv_data = r.old_priv;
	/* Like the kernel: the primary superblock and descriptors only. */
	if (!err)
		fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
out:
	if (r.meta)
		ext2fs_free_block_bitmap(r.meta);
	ext2fs_free_mem(&r.regions);
	ext2fs_free_mem(&r.modified);
	ext2fs_free_mem(&r.ibuf);
	ext2fs_free_mem(&r.block);
	ext2fs_free_mem(&r.bgroups);
	ext2fs_free_mem(&r.igroups);
	return err;
}
