/*
 * fc_replay.c --- the kernel's fast-commit recovery, through libext2fs.
 *
 * Owns the replay as a whole (ext4_fc_replay() and
 * ext4_fc_set_bitmaps_and_counters()): the features it refuses, the
 * checks of every tag made before the first change (the add_range
 * targets inside the data area, recorded so that the blocks libext2fs
 * allocates for extent trees and directories avoid them, as the
 * kernel's replay allocator does), the tags applied in log order, and
 * bitmaps, i_blocks and group counts fixed at the end for the inodes
 * and groups the replay touched.  Which tags are to be replayed is
 * fc_scan.c's; each tag's replay fc_replay_tags.c's; the state they
 * share fc_replay_ctx.c's.
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
#include <string.h>

#include "fc_replay_ctx.h"
#include "e2secrm.h"
#include "util.h"

/* libext2fs' own allocations and frees: the groups they touch. */
static void stats_cb(ext2_filsys fs, blk64_t blk, int inuse)
{
	struct replay *r = fs->priv_data;

	e2sr_fcr_touch_block(r, blk);
	if (r->old_stats)
		r->old_stats(fs, blk, inuse);
}

static void range_cb(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	struct replay *r = fs->priv_data;
	blk_t i;

	for (i = 0; i < num; i += EXT2_BLOCKS_PER_GROUP(fs->super))
		e2sr_fcr_touch_block(r, blk + i);
	if (num)
		e2sr_fcr_touch_block(r, blk + num - 1);
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
		if (e2sr_fcr_in_fs(fs, ext2fs_block_bitmap_loc(fs, g), 1))
			ext2fs_mark_block_bitmap2(r->meta,
					ext2fs_block_bitmap_loc(fs, g));
		if (e2sr_fcr_in_fs(fs, ext2fs_inode_bitmap_loc(fs, g), 1))
			ext2fs_mark_block_bitmap2(r->meta,
					ext2fs_inode_bitmap_loc(fs, g));
		if (e2sr_fcr_in_fs(fs, it, fs->inode_blocks_per_group))
			ext2fs_mark_block_bitmap_range2(r->meta, it,
					fs->inode_blocks_per_group);
	}
	return 0;
}

/* A data range the replay may map: inside, not metadata, not journal. */
static int data_range_ok(struct replay *r, blk64_t pblk, __u32 len)
{
	__u32 i;

	if (!e2sr_fcr_in_fs(r->fs, pblk, len))
		return 0;
	if (!ext2fs_test_block_bitmap_range2(r->meta, pblk, len))
		return 0;
	for (i = 0; i < len; i++)
		if (e2sr_journal_owns(r->j, pblk + i))
			return 0;
	return 1;
}

/* ext4_fc_set_bitmaps_and_counters(): all an inode maps is in use. */
static void mark_fn(struct replay *r, const struct ext2fs_extent *e,
		    int leaf, void *priv EXT2FS_ATTR((unused)))
{
	e2sr_fcr_mark_blocks(r, e->e_pblk, leaf ? e->e_len : 1, 1);
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

		if (!e2sr_fcr_inode_live(r, ino, &inode) ||
		    !e2sr_fcr_extent_mapped(&inode))
			continue;
		err = e2sr_fcr_walk_extents(r, ino, &inode, mark_fn, NULL);
		if (err)
			return err;
		count = 0;
		err = e2sr_fcr_walk_extents(r, ino, &inode,
					    e2sr_fcr_count_fn, &count);
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
			    !e2sr_fc_value_len_ok(t.tag, len, r->isize)) {
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
			return e2sr_fcr_refuse(r, E2SR_ERR_FC_CORRUPT,
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
	return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED, "unknown tag", 0);
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
	err = for_each_tag(&r, e2sr_fcr_apply_tag);
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
