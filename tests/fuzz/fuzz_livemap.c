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
 * Then every action of the plan is held to the same view: no block it
 * overwrites is one of those (nor one of a record with links whose bit
 * is clear, which e2fsck keeps, below its group's unused mark) or in use
 * in the bitmap; no record it scrubs is in use or linked; every
 * directory it rewrites is in use; every unwritten run it zeroes is a
 * live file's, unwritten there by libext2fs' own lookup; every journal
 * copy is a block of the log.
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

#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "fuzz_img.h"
#include "mem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct oracle {
	struct e2sr_ctx		*ctx;
	ext2_ino_t		ino;
	ext2fs_block_bitmap	live;	/* what libext2fs says is in use */
	int			check;	/* 0: only note the blocks */
};

static void live_block(struct oracle *o, blk64_t blk)
{
	struct e2sr_ctx *ctx = o->ctx;
	ext2_filsys fs = ctx->fs;
	struct e2sr_plan *plan = &ctx->plan;

	if (!o->check) {
		if (blk >= fs->super->s_first_data_block &&
		    blk < ext2fs_blocks_count(fs->super))
			ext2fs_mark_block_bitmap2(o->live, blk);
		return;
	}
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
	ext2fs_mark_block_bitmap2(o->live, blk);
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

/* Whether e2fsck's pass 1 reads record @ino (not past the unused mark). */
static int scanned(ext2_filsys fs, ext2_ino_t ino)
{
	__u32 ipg = fs->super->s_inodes_per_group;
	dgrp_t g = (ino - 1) / ipg;

	if (!ext2fs_has_group_desc_csum(fs))
		return 1;
	return !ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT) &&
	       (ino - 1) % ipg < ipg - ext2fs_bg_itable_unused(fs, g);
}

/* A record e2fsck keeps: in use, or linked below the unused mark. */
static int kept(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode)
{
	if (ext2fs_test_inode_bitmap2(fs->inode_map, ino))
		return 1;
	return scanned(fs, ino) && inode->i_links_count && inode->i_mode;
}

static void bad_action(const struct e2sr_action *a, const char *what)
{
	fprintf(stderr, "fuzz_livemap: action kind %u why %u ino %u blk %llu "
		"count %llu: %s\n", a->kind, a->why, a->ino,
		(unsigned long long)a->blk, (unsigned long long)a->count,
		what);
	abort();
}

/*
 * An unwritten run is zeroed in place, so it must be a live file's, and
 * each of its blocks that file's unwritten block at the same offset, as
 * libext2fs' own lookup (ext2fs_bmap2) says.
 */
static void check_unwritten(struct oracle *o, const struct e2sr_action *a)
{
	ext2_filsys fs = o->ctx->fs;
	blk64_t i, phys;
	int flags;

	if (!a->ino || a->ino > fs->super->s_inodes_count ||
	    !ext2fs_test_inode_bitmap2(fs->inode_map, a->ino))
		bad_action(a, "an unwritten run of a file not in use");
	if (!a->count || a->blk < fs->super->s_first_data_block ||
	    a->blk >= ext2fs_blocks_count(fs->super) ||
	    a->count > ext2fs_blocks_count(fs->super) - a->blk)
		bad_action(a, "an unwritten run outside the filesystem");
	for (i = 0; i < a->count; i++) {
		flags = 0;
		phys = 0;
		if (ext2fs_bmap2(fs, a->ino, NULL, NULL, 0, a->lblk + i,
				 &flags, &phys) ||
		    phys != a->blk + i || !(flags & BMAP_RET_UNINIT))
			bad_action(a, "a block that is not the file's "
				   "unwritten block there");
		if (!ext2fs_test_block_bitmap2(fs->block_map, phys) ||
		    !ext2fs_test_block_bitmap2(o->live, phys))
			bad_action(a, "an unwritten block not in use");
	}
}

/* A journal copy: a block of the log, a part inside it. */
static void check_journal(struct oracle *o, const struct e2sr_action *a)
{
	const struct e2sr_journal *j = o->ctx->journal;

	if (!j)
		bad_action(a, "a journal block without a journal");
	if (a->blk < j->jsb.first || a->blk >= j->jsb.maxlen ||
	    a->count != 1)
		bad_action(a, "not one block of the log");
	if (a->len && (a->off >= j->blocksize ||
		       a->len > j->blocksize - a->off))
		bad_action(a, "a part beyond its block");
}

static void check_action(void *data, const struct e2sr_action *a)
{
	struct oracle *o = data;
	ext2_filsys fs = o->ctx->fs;
	struct ext2_inode inode;
	blk64_t b;

	switch (a->kind) {
	case E2SR_KIND_DATA:
	case E2SR_KIND_META:
	case E2SR_KIND_ALL_FREE:
		if (a->blk < fs->super->s_first_data_block ||
		    a->blk >= ext2fs_blocks_count(fs->super) ||
		    a->count > ext2fs_blocks_count(fs->super) - a->blk)
			bad_action(a, "outside the filesystem");
		for (b = a->blk; b < a->blk + a->count; b++)
			if (ext2fs_test_block_bitmap2(fs->block_map, b) ||
			    ext2fs_test_block_bitmap2(o->live, b))
				bad_action(a, "overwrites a block in use");
		break;
	case E2SR_KIND_RECORDS:
	case E2SR_KIND_FREE_RECORDS:
		if (a->ino < EXT2_FIRST_INODE(fs->super) ||
		    a->ino > fs->super->s_inodes_count)
			bad_action(a, "a reserved or impossible record");
		if (ext2fs_test_inode_bitmap2(fs->inode_map, a->ino))
			bad_action(a, "scrubs a record in use");
		if (!ext2fs_read_inode(fs, a->ino, &inode) &&
		    kept(fs, a->ino, &inode))
			bad_action(a, "scrubs a record e2fsck keeps");
		break;
	case E2SR_KIND_NAMES:
		if (!a->ino || a->ino > fs->super->s_inodes_count ||
		    !ext2fs_test_inode_bitmap2(fs->inode_map, a->ino))
			bad_action(a, "rewrites a directory not in use");
		break;
	case E2SR_KIND_UNWRITTEN:
		check_unwritten(o, a);
		break;
	case E2SR_KIND_JOURNAL:
		check_journal(o, a);
		break;
	default:
		bad_action(a, "of no kind the oracle knows");
	}
}

/* What libext2fs says every inode e2fsck keeps holds; then the plan. */
static void oracle(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_inode inode;
	struct oracle o;
	ext2_ino_t ino;

	o.ctx = ctx;
	if (ext2fs_allocate_block_bitmap(fs, "oracle", &o.live))
		return;
	for (ino = 1; ino <= fs->super->s_inodes_count; ino++) {
		if (ext2fs_read_inode(fs, ino, &inode))
			continue;	/* livemap refused what it cannot read */
		if (!kept(fs, ino, &inode))
			continue;
		/* Only in use by its bit is it the live set's business. */
		o.check = ext2fs_test_inode_bitmap2(fs->inode_map, ino);
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
	e2sr_plan_actions(ctx, check_action, &o);
	ext2fs_free_block_bitmap(o.live);
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
