/*
 * fuzz_livemap.c --- libFuzzer target: "free" proven twice.
 *
 * The input is an image in fuzz_img.c's chunk format.  e2sr_open reads
 * it, the inventory scan builds the live set (livemap.c) beside the
 * bitmaps, and the plan is made and checked as a real run would.  When
 * the run accepts the image, an independent oracle walks every inode in
 * use with libext2fs' own block iterator: every block it lists (data,
 * tree, indirect) and every EA block must be allocated in the bitmap and
 * in the live set, and none may be in the plan's freed data or metadata.
 * A live block the engine would wipe is the finding this target hunts.
 * One bit of the last byte gives the sets the rbtree backend that large
 * filesystems get, the flat one otherwise.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrmP.h"
#include "fuzz_img.h"
#include "mem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct oracle {
	struct e2sr_ctx	*ctx;
	ext2_ino_t	ino;
};

static void live_block(struct oracle *o, blk64_t blk)
{
	struct e2sr_ctx *ctx = o->ctx;
	ext2_filsys fs = ctx->fs;
	struct e2sr_plan *plan = &ctx->plan;

	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super) ||
	    !ext2fs_test_block_bitmap2(fs->block_map, blk) ||
	    !e2sr_live_blocks(ctx, blk, 1) ||
	    ext2fs_test_block_bitmap2(plan->data_blocks, blk) ||
	    ext2fs_test_block_bitmap2(plan->meta_blocks, blk)) {
		fprintf(stderr, "fuzz_livemap: block %llu of inode %u in use "
			"but outside, free or planned\n",
			(unsigned long long)blk, o->ino);
		abort();
	}
}

static int oracle_block(ext2_filsys fs EXT2FS_ATTR((unused)),
			blk64_t *blocknr,
			e2_blkcnt_t blockcnt EXT2FS_ATTR((unused)),
			blk64_t ref_blk EXT2FS_ATTR((unused)),
			int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	live_block(priv, *blocknr);
	return 0;
}

/* What libext2fs says every inode in use holds. */
static void oracle(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_inode inode;
	struct oracle o;
	ext2_ino_t ino;

	o.ctx = ctx;
	for (ino = 1; ino <= fs->super->s_inodes_count; ino++) {
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		if (ext2fs_read_inode(fs, ino, &inode))
			continue;	/* livemap refused what it cannot read */
		o.ino = ino;
		if (ext2fs_file_acl_block(fs, &inode))
			live_block(&o, ext2fs_file_acl_block(fs, &inode));
		if (!ext2fs_inode_has_valid_blocks2(fs, &inode) ||
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		/* The resize inode's map is the reserved descriptors. */
		if (ino == EXT2_RESIZE_INO || ino == EXT2_BAD_INO)
			continue;
		ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				      oracle_block, &o);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2sr_ctx *ctx;
	errcode_t err;

	ctx = fuzz_img_ctx(data, size, NULL);
	if (!ctx)
		return 0;
	if (size && (data[size - 1] & 0x80))
		ctx->opts.sanitize = E2SR_SANITIZE;
	/* Large filesystems get rbtree sets: one bit picks them here. */
	e2sr_bitmap_force_type(size && (data[size - 1] & 0x40) ?
			       EXT2FS_BMAP64_RBTREE : 0);
	err = e2sr_open(ctx, fuzz_img_device(), E2SR_OPEN_RDONLY);
	if (!err)
		err = e2sr_inventory_scan(ctx);
	if (!err)
		err = e2sr_plan_build(ctx);
	if (!err)
		err = e2sr_execute_check(ctx);
	if (!err)
		oracle(ctx);
	e2sr_ctx_free(ctx);
	mem_io_forbid_writes(0);
	return 0;
}
