/*
 * livemap.c --- what is in use, as the inodes and directories say.
 *
 * The bitmaps are one source of "free"; the live set is the other,
 * built as e2fsck's passes 1 and 2 do, during the inventory's one scan:
 * every block that an inode in use (its bit set) references, as extent
 * tree blocks, extents written or not, indirect blocks of any depth,
 * data blocks and the EA block, plus the filesystem's metadata and the
 * journal; and every inode that an entry of a directory in use names.
 * Each directory block is read once, after the scan, in disk order.
 *
 * Where the sources disagree the run is refused before anything is
 * planned, with the first disagreement in ctx->detail: a referenced
 * block the bitmap calls free (a BLOCK_UNINIT group with live blocks
 * included: libext2fs computes its bitmap), a block claimed twice, a map
 * pointing outside the filesystem or into its metadata, a map or
 * directory that cannot be read, an inode named by a live entry whose
 * bit is clear, a reserved inode marked free, an inode marked in use
 * that the scan cannot read.  Once built, a block is free only if the
 * bitmap says so and no live map has it; an inode record only if its
 * bit is clear and no live entry names it.
 *
 * Every on-disk number is checked before it reaches a libext2fs bitmap;
 * every tree and indirect block is claimed before it is read, so a loop
 * is a block claimed twice and the walk is bounded by the filesystem.
 *
 * This file owns the live set as a whole: its sets, made before the
 * scan with the reserved inodes checked; the claim of a run of blocks
 * against the bitmap, the metadata and the set's earlier claims; the
 * disagreement that refuses the run; and the questions the plan and the
 * writer ask once the set is complete.  Walking each inode's maps is
 * livemap_walk.c's; reading the live directories for the names, and
 * completing the set after the scan, is livemap_dirs.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "livemap_int.h"

/* The first disagreement, in ctx->detail: the run is refused. */
errcode_t e2sr_livemap_disagree(struct e2sr_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->detail, sizeof(ctx->detail), fmt, ap);
	va_end(ap);
	return E2SR_ERR_LIVE_FREE;
}

void e2sr_livemap_free(struct e2sr_livemap *lm)
{
	if (lm->blocks)
		ext2fs_free_block_bitmap(lm->blocks);
	if (lm->ea_blocks)
		ext2fs_free_block_bitmap(lm->ea_blocks);
	if (lm->named)
		ext2fs_free_inode_bitmap(lm->named);
	if (lm->residue_dirs)
		ext2fs_free_inode_bitmap(lm->residue_dirs);
	if (lm->unwritten_inodes)
		ext2fs_free_inode_bitmap(lm->unwritten_inodes);
	if (lm->linked_blocks)
		ext2fs_free_block_bitmap(lm->linked_blocks);
	if (lm->guessed)
		ext2fs_free_block_bitmap(lm->guessed);
	ext2fs_free_mem(&lm->dirruns);
	ext2fs_free_mem(&lm->inline_dirs);
	ext2fs_free_mem(&lm->buf);
	memset(lm, 0, sizeof(*lm));
}

/*
 * [pblk, pblk + len) is referenced by the inode of @w: it must lie in
 * the filesystem, outside its metadata, be in use in the block bitmap
 * and be nobody else's.  An EA block may be shared.
 */
errcode_t e2sr_livemap_claim(struct live_walk *w, blk64_t pblk, blk64_t len,
			     int ea)
{
	struct e2sr_ctx *ctx = w->ctx;
	struct e2sr_livemap *lm = &ctx->live;
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super), last, at;

	if (!len)
		return 0;
	if (pblk < fs->super->s_first_data_block || pblk >= end ||
	    len > end - pblk)
		return e2sr_livemap_disagree(ctx,
				"inode %u maps block %llu, outside the "
				"filesystem", w->ino, (unsigned long long)pblk);
	last = pblk + len - 1;
	if (!e2sr_find_first_zero(fs->block_map, pblk, last,
						  &at))
		return e2sr_livemap_disagree(ctx,
				"block %llu of inode %u is marked free",
				(unsigned long long)at, w->ino);
	/* The bad blocks and resize inodes list metadata blocks. */
	if (w->ino != EXT2_BAD_INO && w->ino != EXT2_RESIZE_INO &&
	    !ext2fs_find_first_set_block_bitmap2(ctx->metadata_blocks, pblk,
						 last, &at))
		return e2sr_livemap_disagree(ctx,
				"block %llu of inode %u is filesystem "
				"metadata", (unsigned long long)at, w->ino);
	if (ea) {
		if (ext2fs_test_block_bitmap2(lm->ea_blocks, pblk))
			return 0;
		ext2fs_mark_block_bitmap2(lm->ea_blocks, pblk);
	}
	if (!ext2fs_find_first_set_block_bitmap2(lm->blocks, pblk, last, &at))
		return e2sr_livemap_disagree(ctx,
				"block %llu of inode %u is claimed twice",
				(unsigned long long)at, w->ino);
	ext2fs_mark_block_bitmap_range2(lm->blocks, pblk, len);
	lm->referenced += len;
	return 0;
}

/*
 * Before the scan: the sets, and the reserved inodes, which are always
 * in use (e2fsck marks them so, and the root directory among them).
 */
errcode_t e2sr_livemap_start(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	ext2_ino_t ino;
	errcode_t err;

	e2sr_livemap_free(lm);
	if (!ctx->metadata_blocks)
		return EXT2_ET_INVALID_ARGUMENT;
	err = ext2fs_allocate_block_bitmap(fs, "blocks in use", &lm->blocks);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "EA blocks in use",
						   &lm->ea_blocks);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "inodes named",
						   &lm->named);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "dirs with residue",
						   &lm->residue_dirs);
	if (!err)
		err = ext2fs_get_mem(3 * (size_t)fs->blocksize, &lm->buf);
	if (err)
		return err;
	for (ino = 1; ino < EXT2_FIRST_INODE(fs->super) &&
	     ino <= fs->super->s_inodes_count; ino++)
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			return e2sr_livemap_disagree(ctx,
					"reserved inode %u is marked free",
					ino);
	return 0;
}

/*
 * Whether any of [blk, blk + count) is in use by the live set's account,
 * or cannot be shown not to be.
 */
int e2sr_live_blocks(const struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (!ctx->live.complete || !count ||
	    blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return 1;
	/* A questioned record's other readings count as in use. */
	if (ctx->live.guessed &&
	    !e2sr_range_clear(ctx->live.guessed, blk, count))
		return 1;
	return !e2sr_range_clear(ctx->live.blocks, blk, count);
}

/* Whether every block of [blk, blk + count) is in the live set. */
int e2sr_live_all(const struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super), at;

	if (!ctx->live.complete || !count ||
	    blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return 0;
	return e2sr_find_first_zero(ctx->live.blocks, blk,
						    blk + count - 1, &at) != 0;
}

static int cmp_dirrun_blk(const void *key, const void *elem)
{
	blk64_t blk = *(const blk64_t *)key;
	const struct e2sr_dirrun *r = elem;

	if (blk < r->pblk)
		return -1;
	return blk - r->pblk >= r->len;
}

/*
 * Whether @blk is a block of live directory @dir, as its map said when
 * the live set read every directory block.
 */
int e2sr_live_dir_block(const struct e2sr_ctx *ctx, ext2_ino_t dir,
			blk64_t blk)
{
	const struct e2sr_livemap *lm = &ctx->live;
	const struct e2sr_dirrun *r;

	if (!lm->complete || !lm->dirrun_count)
		return 0;
	r = bsearch(&blk, lm->dirruns, lm->dirrun_count, sizeof(*r),
		    cmp_dirrun_blk);
	return r && r->dir == dir;
}

/*
 * The plan's freed blocks, checked against what records with links
 * whose bit is clear map: E2SR_ERR_LIVE_FREE if one is among them.
 */
errcode_t e2sr_livemap_linked_check(struct e2sr_ctx *ctx,
				    ext2fs_block_bitmap planned)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	blk64_t s = fs->super->s_first_data_block, e, at;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;

	if (!lm->linked_free || !planned)
		return 0;
	while (e2sr_next_run(planned, 1, &s, last, &e)) {
		if (lm->linked_unknown) {
			at = s;
		} else if (!lm->linked_blocks ||
			   ext2fs_find_first_set_block_bitmap2(
					lm->linked_blocks, s, e - 1, &at)) {
			s = e;
			continue;
		}
		snprintf(ctx->detail, sizeof(ctx->detail), "block %llu, to be "
			 "wiped, may be mapped by a record linked but free in "
			 "the inode bitmap, as inode %u is",
			 (unsigned long long)at, lm->linked_free);
		return E2SR_ERR_LIVE_FREE;
	}
	return 0;
}

/*
 * Before planning what writes free space or free records (--all-free,
 * --all-free-if-lost, --free-inodes): no record that e2fsck would keep
 * (links, a mode) may have its bit clear, or its blocks and itself
 * would be taken for free.  E2SR_ERR_LIVE_FREE when one does.
 */
errcode_t e2sr_livemap_free_proven(struct e2sr_ctx *ctx)
{
	if (!ctx->live.linked_free)
		return 0;
	snprintf(ctx->detail, sizeof(ctx->detail), "inode %u is linked but "
		 "free in the inode bitmap", ctx->live.linked_free);
	return E2SR_ERR_LIVE_FREE;
}

/* Whether a live entry names @ino, or the names are not known. */
int e2sr_live_inode(const struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	if (!ctx->live.complete || !ino ||
	    ino > ctx->fs->super->s_inodes_count)
		return 1;
	return ext2fs_test_inode_bitmap2(ctx->live.named, ino);
}

/*
 * The next run at or after *start, up to @last, of blocks free by both
 * sources: clear in the block bitmap and in no live map.  [*start, *end).
 */
int e2sr_free_run(const struct e2sr_ctx *ctx, blk64_t *start, blk64_t last,
		  blk64_t *end)
{
	ext2_filsys fs = ctx->fs;
	blk64_t s = *start, e, at, g;

	if (!ctx->live.complete || s < fs->super->s_first_data_block ||
	    last >= ext2fs_blocks_count(fs->super))
		return 0;
	while (e2sr_next_run(fs->block_map, 0, &s, last, &e)) {
		if (ext2fs_find_first_set_block_bitmap2(ctx->live.blocks, s,
							e - 1, &at))
			at = e;
		/* A questioned record's other readings: in use too. */
		if (ctx->live.guessed && at > s &&
		    ext2fs_find_first_set_block_bitmap2(ctx->live.guessed, s,
							at - 1, &g) == 0)
			at = g;
		if (at > s) {
			*start = s;
			*end = at;
			return 1;
		}
		/* s is in use: on past it, one block at a time if guessed. */
		if (ctx->live.guessed &&
		    ext2fs_test_block_bitmap2(ctx->live.guessed, s))
			s++;
		else if (e2sr_find_first_zero(ctx->live.blocks, s,
							 e - 1, &s))
			s = e;
	}
	return 0;
}

/* How many blocks are free by both sources. */
blk64_t e2sr_free_count(const struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	blk64_t start = fs->super->s_first_data_block, end, n = 0;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;

	while (e2sr_free_run(ctx, &start, last, &end)) {
		n += end - start;
		start = end;
	}
	return n;
}

/*
 * An incremental run (inventory_since.c) read only the records that
 * changed since the last run, and those it kept.  The maps of the others
 * are as that run proved them against the bitmaps, and a block leaves a
 * map, or an inode a directory, only in a handle that logs the owner:
 * what they claim is in use now.  So the blocks and inodes in use count
 * as claimed and named; of what is free, only the maps read count, as
 * in a full run.
 */
void e2sr_livemap_take_bitmaps(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	blk64_t start = fs->super->s_first_data_block, end;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	ext2_ino_t ino = 1, ino_end, count = fs->super->s_inodes_count;

	if (!e2sr_bitmap_or((ext2fs_generic_bitmap)ctx->live.blocks,
			    (ext2fs_generic_bitmap)fs->block_map))
		start = last + 1;
	while (e2sr_next_run(fs->block_map, 1, &start, last, &end)) {
		ext2fs_mark_block_bitmap_range2(ctx->live.blocks, start,
						end - start);
		start = end;
	}
	if (!e2sr_bitmap_or((ext2fs_generic_bitmap)ctx->live.named,
			    (ext2fs_generic_bitmap)fs->inode_map))
		ino = count + 1;
	while (e2sr_next_inode_run(fs->inode_map, &ino, count, &ino_end)) {
		/* Inode and block bitmaps share one type. */
		ext2fs_mark_block_bitmap_range2(ctx->live.named, ino,
						ino_end - ino);
		ino = ino_end;
	}
}
