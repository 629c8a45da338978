/*
 * blockmap.c --- the block map of one inode record, as far as it holds.
 *
 * Given an inode record (live, or a free record that still carries a
 * map), list every block it points to: data and unwritten extents, the
 * extent tree's own index and leaf blocks, indirect blocks of every
 * depth, and the EA block.  libext2fs does the walking; this file decides
 * how far a deleted file's map can be trusted.  A deleted map is followed
 * only through blocks that are free now and, for extent blocks, whose
 * header and checksum still verify: a tree block in use again belongs to
 * someone else, and so does everything below it.
 *
 * Every on-disk number is checked against the filesystem before use, and
 * the walk is bounded by the number of blocks the record claims.  A tree
 * or indirect block is followed once per walk: a map that reaches the
 * same one twice (a loop, a cross-link, many index entries naming one
 * leaf) is damaged there, and the second path is not followed.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"

/* Allowance over i_blocks for tree blocks the count may leave out. */
#define MAP_SLACK_BLOCKS	64

/* Deepest extent tree the kernel builds (5) with a margin. */
#define EXTENT_MAX_DEPTH	8

const char *e2sr_extent_kind_name(enum e2sr_extent_kind kind)
{
	switch (kind) {
	case E2SR_EXT_DATA:
		return "data";
	case E2SR_EXT_UNWRITTEN:
		return "unwritten";
	case E2SR_EXT_TREE:
		return "extent-tree";
	case E2SR_EXT_IND:
		return "indirect";
	case E2SR_EXT_EA:
		return "ea-block";
	}
	return "?";
}

void e2sr_file_free(struct e2sr_file *file)
{
	ext2fs_free_mem(&file->map);
	file->map = NULL;
	file->map_count = file->map_alloc = 0;
}

struct map_walk {
	struct e2sr_ctx		*ctx;
	struct e2sr_file	*file;
	blk64_t			covered;	/* blocks listed so far */
	blk64_t			limit;		/* most blocks to list */
	blk64_t			steps;		/* callbacks seen (ind walk) */
	int			skip_height;	/* inside a distrusted subtree */
	ext2fs_block_bitmap	seen;		/* tree/ind blocks followed */
	const struct e2sr_map_source *src;	/* a historic map's, or NULL */
};

static int block_in_fs(ext2_filsys fs, blk64_t blk, blk64_t len)
{
	blk64_t end = ext2fs_blocks_count(fs->super);

	return len && blk >= fs->super->s_first_data_block && blk < end &&
	       len <= end - blk;
}

static void map_damaged(struct e2sr_file *file, errcode_t err)
{
	file->map_status |= E2SR_MAP_DAMAGED;
	if (!file->map_error)
		file->map_error = err;
}

static __u16 count_free(ext2_filsys fs, blk64_t blk, __u32 len)
{
	__u32 i, n = 0;

	if (ext2fs_test_block_bitmap_range2(fs->block_map, blk, len))
		return len;
	for (i = 0; i < len; i++)
		if (!ext2fs_test_block_bitmap2(fs->block_map, blk + i))
			n++;
	return n;
}

/*
 * Append a run to the map, merging it with the previous one when it
 * continues it.  Returns nonzero when the walk has listed more blocks
 * than the record can own, which ends the walk.
 */
static errcode_t map_add(struct map_walk *w, blk64_t pblk, blk64_t lblk,
			 __u32 len, enum e2sr_extent_kind kind)
{
	struct e2sr_file *file = w->file;
	struct e2sr_extent *e;
	__u16 nfree;

	if (!block_in_fs(w->ctx->fs, pblk, len)) {
		map_damaged(file, EXT2_ET_BAD_BLOCK_NUM);
		return 0;
	}
	if (len > w->limit - w->covered) {
		map_damaged(file, E2SR_ERR_BAD_MAP);
		return E2SR_ERR_BAD_MAP;
	}
	w->covered += len;
	nfree = count_free(w->ctx->fs, pblk, len);
	file->free_blocks += nfree;

	if (file->map_count) {
		e = &file->map[file->map_count - 1];
		if (e->kind == kind && e->pblk + e->len == pblk &&
		    (kind != E2SR_EXT_DATA && kind != E2SR_EXT_UNWRITTEN ?
		     1 : e->lblk + e->len == lblk) &&
		    (__u32)e->len + len <= 32768) {
			e->len += len;
			e->nfree += nfree;
			return 0;
		}
	}
	if (file->map_count == file->map_alloc &&
	    e2sr_array_room(&file->map, &file->map_alloc, file->map_count + 1,
			    sizeof(*file->map)))
		return EXT2_ET_NO_MEMORY;
	e = &file->map[file->map_count++];
	e->pblk = pblk;
	e->lblk = lblk;
	e->len = len;
	e->kind = kind;
	e->nfree = nfree;
	e->historic = 0;
	return 0;
}

/*
 * No map shares its tree or indirect blocks, within itself or with
 * anyone.  Without this, a crafted tree whose index entries all name one
 * leaf lists (and reads) that leaf once per path to it, up to the limit:
 * about the size of the filesystem for a record that claims that much.
 * The set is sparse (rbtree) and made only for maps that have such blocks.
 */
static int block_seen(struct map_walk *w, blk64_t blk)
{
	ext2_filsys fs = w->ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super) - 1;

	if (!w->seen &&
	    ext2fs_alloc_generic_bmap(fs, EXT2_ET_MAGIC_BLOCK_BITMAP64,
				      EXT2FS_BMAP64_RBTREE,
				      fs->super->s_first_data_block, end, end,
				      "e2secrm map walk", &w->seen)) {
		w->seen = NULL;
		map_damaged(w->file, EXT2_ET_NO_MEMORY);
		return 1;
	}
	if (ext2fs_test_block_bitmap2(w->seen, blk)) {
		map_damaged(w->file, E2SR_ERR_BAD_MAP);
		return 1;
	}
	ext2fs_mark_block_bitmap2(w->seen, blk);
	return 0;
}

/*
 * A deleted file's tree block is trusted only while it is free, or when
 * it is read from the file's own journal copy (a historic map).
 */
static int block_reused(struct map_walk *w, blk64_t blk)
{
	struct e2sr_jreplay copy;

	if (w->file->state != E2SR_STATE_DELETED)
		return 0;
	if (w->src && w->src->lookup &&
	    w->src->lookup(w->src->priv, blk, &copy))
		return 0;
	if (ext2fs_test_block_bitmap2(w->ctx->fs->block_map, blk)) {
		w->file->map_status |= E2SR_MAP_REUSED;
		return 1;
	}
	return 0;
}

/*
 * Check an extent tree child block before libext2fs descends into it:
 * its header, its depth relative to its parent and its checksum.  The
 * library would stop the whole walk on a bad child; checking first lets
 * the walk skip just that subtree.
 */
static errcode_t check_tree_block(struct map_walk *w, blk64_t blk,
				  int want_depth, void *buf, int *wiped)
{
	ext2_filsys fs = w->ctx->fs;
	struct ext3_extent_header *eh = buf;
	struct e2sr_jreplay copy;
	errcode_t err;

	*wiped = 0;
	if (!block_in_fs(fs, blk, 1))
		return EXT2_ET_BAD_BLOCK_NUM;
	err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (err)
		return err;
	/*
	 * No tree block the kernel writes or logs is all zeros: a free one,
	 * or a journal copy, that is was wiped by a run, after the blocks
	 * it mapped (freed data goes first; a run cut since left the
	 * record that names it).  Nothing under it is left to find.
	 */
	if (e2sr_all_zero(buf, fs->blocksize) &&
	    ((w->src && w->src->lookup &&
	      w->src->lookup(w->src->priv, blk, &copy)) ||
	     !ext2fs_test_block_bitmap2(fs->block_map, blk))) {
		*wiped = 1;
		return 0;
	}
	err = ext2fs_extent_header_verify(buf, fs->blocksize);
	if (err)
		return err;
	if (ext2fs_le16_to_cpu(eh->eh_depth) != want_depth)
		return EXT2_ET_EXTENT_HEADER_BAD;
	if (!ext2fs_extent_block_csum_verify(fs, w->file->ino, eh))
		return EXT2_ET_EXTENT_CSUM_INVALID;
	return 0;
}

/* Leave the subtree under the current entry: next sibling, or up. */
static errcode_t skip_subtree(ext2_extent_handle_t h, struct ext2fs_extent *ext)
{
	errcode_t err;
	int i;

	for (i = 0; i <= EXTENT_MAX_DEPTH + 1; i++) {
		err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, ext);
		if (err != EXT2_ET_EXTENT_NO_NEXT)
			return err;
		err = ext2fs_extent_get(h, EXT2_EXTENT_UP, ext);
		if (err == EXT2_ET_EXTENT_NO_UP)
			return EXT2_ET_EXTENT_NO_NEXT;
		if (err)
			return err;
	}
	return EXT2_ET_EXTENT_NO_NEXT;
}

static errcode_t map_extents(struct map_walk *w, struct ext2_inode_large *inode)
{
	ext2_filsys fs = w->ctx->fs;
	struct e2sr_file *file = w->file;
	ext2_extent_handle_t h;
	struct ext2_extent_info info;
	struct ext2fs_extent ext;
	errcode_t err;
	void *buf;
	unsigned long steps, max_steps;
	int op = EXT2_EXTENT_ROOT, wiped;

	err = ext2fs_extent_open2(fs, file->ino, (struct ext2_inode *)inode,
				  &h);
	if (err) {
		map_damaged(file, err);
		return 0;
	}
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		goto out;

	/* Every entry is visited at most twice; the tree has limit leaves. */
	max_steps = 2 * (w->limit + 8);
	for (steps = 0; steps < max_steps; steps++) {
		if (op == EXT2_EXTENT_NEXT_SIB)
			err = skip_subtree(h, &ext);
		else
			err = ext2fs_extent_get(h, op, &ext);
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err) {
			map_damaged(file, err);
			err = 0;
			break;
		}
		op = EXT2_EXTENT_NEXT;
		if (ext.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			err = ext2fs_extent_get_info(h, &info);
			if (err)
				break;
			if (!block_in_fs(fs, ext.e_pblk, 1)) {
				map_damaged(file, EXT2_ET_BAD_BLOCK_NUM);
				op = EXT2_EXTENT_NEXT_SIB;
				continue;
			}
			if (block_reused(w, ext.e_pblk) ||
			    block_seen(w, ext.e_pblk)) {
				op = EXT2_EXTENT_NEXT_SIB;
				continue;
			}
			err = check_tree_block(w, ext.e_pblk,
					       info.max_depth -
					       info.curr_level - 1, buf,
					       &wiped);
			if (err) {
				map_damaged(file, err);
				err = 0;
				op = EXT2_EXTENT_NEXT_SIB;
				continue;
			}
			if (wiped) {
				file->map_status |= E2SR_MAP_WIPED;
				err = map_add(w, ext.e_pblk, 0, 1,
					      E2SR_EXT_TREE);
				if (err)
					break;
				op = EXT2_EXTENT_NEXT_SIB;
				continue;
			}
			err = map_add(w, ext.e_pblk, 0, 1, E2SR_EXT_TREE);
			if (err)
				break;
			continue;
		}
		err = map_add(w, ext.e_pblk, ext.e_lblk, ext.e_len,
			      (ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT) ?
			      E2SR_EXT_UNWRITTEN : E2SR_EXT_DATA);
		if (err)
			break;
	}
	if (steps >= max_steps)
		map_damaged(file, E2SR_ERR_BAD_MAP);
	ext2fs_free_mem(&buf);
out:
	ext2fs_extent_free(h);
	if (err == E2SR_ERR_BAD_MAP)
		err = 0;
	return err;
}

static int ind_height(e2_blkcnt_t blockcnt)
{
	switch (blockcnt) {
	case BLOCK_COUNT_IND:
		return 1;
	case BLOCK_COUNT_DIND:
		return 2;
	case BLOCK_COUNT_TIND:
		return 3;
	}
	return 0;
}

/*
 * Called in preorder: an indirect block before what it maps.  A subtree
 * under a distrusted indirect block ends at the next indirect block of the
 * same or greater height.
 */
static int map_ind_block(ext2_filsys fs, blk64_t *blocknr,
			 e2_blkcnt_t blockcnt,
			 blk64_t ref_blk EXT2FS_ATTR((unused)),
			 int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct map_walk *w = priv;
	int height = ind_height(blockcnt);

	/*
	 * Skipped and out-of-range pointers still cost a callback: bound
	 * them too, or a hostile triple indirect block means 2^30 calls.
	 */
	if (++w->steps > 2 * w->limit + 3 * 1024) {
		map_damaged(w->file, E2SR_ERR_BAD_MAP);
		return BLOCK_ABORT;
	}
	if (height) {
		if (w->skip_height && height < w->skip_height)
			return 0;
		w->skip_height = 0;
		if (!block_in_fs(fs, *blocknr, 1)) {
			map_damaged(w->file, EXT2_ET_BAD_IND_BLOCK);
			w->skip_height = height;
			return 0;
		}
		if (block_reused(w, *blocknr) || block_seen(w, *blocknr)) {
			w->skip_height = height;
			return 0;
		}
		return map_add(w, *blocknr, 0, 1, E2SR_EXT_IND) ?
			BLOCK_ABORT : 0;
	}
	if (w->skip_height)
		return 0;
	return map_add(w, *blocknr, blockcnt, 1, E2SR_EXT_DATA) ?
		BLOCK_ABORT : 0;
}

/*
 * block_iterate3 reads the inode by number; serve it the record we were
 * given, which for a historic version is not the one on disk.
 */
static struct {
	ext2_ino_t		ino;
	struct ext2_inode	*inode;
} served;

static errcode_t serve_inode(ext2_filsys fs EXT2FS_ATTR((unused)),
			     ext2_ino_t ino, struct ext2_inode *inode)
{
	if (ino != served.ino || !served.inode)
		return EXT2_ET_CALLBACK_NOTHANDLED;
	memcpy(inode, served.inode, sizeof(*inode));
	return 0;
}

/* The record is served to block_iterate3 (file_map's hook). */
static errcode_t map_indirect(struct map_walk *w)
{
	errcode_t err;

	err = ext2fs_block_iterate3(w->ctx->fs, w->file->ino,
				    BLOCK_FLAG_READ_ONLY, NULL, map_ind_block,
				    w);
	if (err == EXT2_ET_NO_MEMORY)
		return err;
	if (err)
		map_damaged(w->file, err);
	return 0;
}

static errcode_t map_ea_block(struct map_walk *w,
			      struct ext2_inode_large *inode)
{
	ext2_filsys fs = w->ctx->fs;
	blk64_t blk = ext2fs_file_acl_block(fs, (struct ext2_inode *)inode);

	if (!blk)
		return 0;
	if (!block_in_fs(fs, blk, 1)) {
		map_damaged(w->file, EXT2_ET_BAD_EA_BLOCK_NUM);
		return 0;
	}
	/*
	 * In use now, it is shared with other inodes (refcount) or taken
	 * by another owner: never wiped as freed, but its journal copies
	 * hold this file's values, and a directory that took it may keep
	 * them past its entries (dirent.c).
	 */
	return map_add(w, blk, 0, 1, E2SR_EXT_EA) == EXT2_ET_NO_MEMORY ?
		EXT2_ET_NO_MEMORY : 0;
}

static int i_block_zero(const struct ext2_inode *inode)
{
	int i;

	for (i = 0; i < EXT2_N_BLOCKS; i++)
		if (inode->i_block[i])
			return 0;
	return 1;
}

static errcode_t file_map(struct e2sr_ctx *ctx, struct e2sr_file *file,
			  struct ext2_inode_large *inode,
			  const struct e2sr_map_source *src);

errcode_t e2sr_file_map(struct e2sr_ctx *ctx, struct e2sr_file *file,
			struct ext2_inode_large *inode)
{
	return e2sr_file_map_from(ctx, file, inode, NULL);
}

/*
 * The map of @file's record @inode, its blocks read through @src (a
 * historic record's: the journal's view of the filesystem, and which
 * blocks are the journal's copies), or the device when NULL.  libext2fs
 * reads through fs->io, so @src->io stands in for it during the walk.
 */
errcode_t e2sr_file_map_from(struct e2sr_ctx *ctx, struct e2sr_file *file,
			     struct ext2_inode_large *inode,
			     const struct e2sr_map_source *src)
{
	ext2_filsys fs = ctx->fs;
	io_channel saved_io = fs->io;
	errcode_t err;

	if (src && src->io)
		fs->io = src->io;
	err = file_map(ctx, file, inode, src);
	fs->io = saved_io;
	return err;
}

static errcode_t file_map(struct e2sr_ctx *ctx, struct e2sr_file *file,
			  struct ext2_inode_large *inode,
			  const struct e2sr_map_source *src)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_inode *ino = (struct ext2_inode *)inode;
	errcode_t (*saved)(ext2_filsys, ext2_ino_t, struct ext2_inode *);
	struct map_walk w;
	blk64_t claimed;
	errcode_t err = 0;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.file = file;
	w.src = src;

	/*
	 * libext2fs reads the record by number, in block_iterate3 and, for
	 * the tree blocks' checksums (seeded with the generation), in the
	 * extent code: serve it the record we were given, as e2fsck's pass
	 * 1 serves its own through this hook.
	 */
	saved = fs->read_inode;
	served.ino = file->ino;
	served.inode = ino;
	fs->read_inode = serve_inode;

	/*
	 * The record says how many blocks it owns; a hostile map cannot
	 * make the walk list more than that (plus tree blocks), nor more
	 * than the filesystem has.
	 */
	claimed = ext2fs_get_stat_i_blocks(fs, ino) / (fs->blocksize / 512);
	w.limit = ext2fs_blocks_count(fs->super);
	if (claimed + MAP_SLACK_BLOCKS < w.limit)
		w.limit = claimed + MAP_SLACK_BLOCKS;

	if (ino->i_flags & EXT4_INLINE_DATA_FL) {
		file->map_status |= E2SR_MAP_INLINE;
	} else if (LINUX_S_ISLNK(ino->i_mode) &&
		   !ext2fs_inode_has_valid_blocks2(fs, ino)) {
		file->map_status |= E2SR_MAP_SYMLINK;
	} else if ((ino->i_flags & EXT4_EXTENTS_FL) && i_block_zero(ino)) {
		/* Nothing there at all: no map, rather than a bad one. */
	} else if (ino->i_flags & EXT4_EXTENTS_FL) {
		err = map_extents(&w, inode);
	} else if (ext2fs_inode_has_valid_blocks2(fs, ino)) {
		err = map_indirect(&w);
	}
	fs->read_inode = saved;
	served.inode = NULL;
	if (w.seen)
		ext2fs_free_block_bitmap(w.seen);
	if (!err)
		err = map_ea_block(&w, inode);
	/* A live empty file has no map to lose. */
	if (!err && !file->map_count &&
	    !(file->map_status & (E2SR_MAP_INLINE | E2SR_MAP_SYMLINK)) &&
	    !(file->state == E2SR_STATE_LIVE && !EXT2_I_SIZE(ino)))
		file->map_status |= E2SR_MAP_EMPTY;
	/* Most maps are an extent or two: kept for the whole run. */
	e2sr_array_trim(&file->map, &file->map_alloc, file->map_count,
			sizeof(*file->map));
	return err;
}
