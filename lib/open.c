/*
 * open.c --- opening a filesystem safely, or refusing to.
 *
 * Everything that can make a write unsafe is checked here, before the
 * engine reads anything else: the device must not be mounted or held by
 * anyone, the filesystem must be one whose every feature we understand,
 * clean (unless forced) and not waiting for journal recovery.  A refusal
 * frees the handle without flushing it, so the device is never written.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <e2p/e2p.h>

#include "e2secrm.h"

/*
 * Features whose on-disk meaning the engine accounts for.  Anything else
 * could change what "free" or "in use" means, so it is refused.
 */
#define E2SR_INCOMPAT_OK	(EXT2_FEATURE_INCOMPAT_FILETYPE |	\
				 EXT3_FEATURE_INCOMPAT_RECOVER |	\
				 EXT2_FEATURE_INCOMPAT_META_BG |	\
				 EXT3_FEATURE_INCOMPAT_EXTENTS |	\
				 EXT4_FEATURE_INCOMPAT_64BIT |		\
				 EXT4_FEATURE_INCOMPAT_FLEX_BG |	\
				 EXT4_FEATURE_INCOMPAT_EA_INODE |	\
				 EXT4_FEATURE_INCOMPAT_INLINE_DATA |	\
				 EXT4_FEATURE_INCOMPAT_ENCRYPT |	\
				 EXT4_FEATURE_INCOMPAT_CASEFOLD |	\
				 EXT4_FEATURE_INCOMPAT_CSUM_SEED |	\
				 EXT4_FEATURE_INCOMPAT_LARGEDIR)

#define E2SR_RO_COMPAT_OK	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |	\
				 EXT2_FEATURE_RO_COMPAT_LARGE_FILE |	\
				 EXT4_FEATURE_RO_COMPAT_HUGE_FILE |	\
				 EXT4_FEATURE_RO_COMPAT_GDT_CSUM |	\
				 EXT4_FEATURE_RO_COMPAT_DIR_NLINK |	\
				 EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |	\
				 EXT4_FEATURE_RO_COMPAT_QUOTA |		\
				 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |	\
				 EXT4_FEATURE_RO_COMPAT_PROJECT |	\
				 EXT4_FEATURE_RO_COMPAT_VERITY |	\
				 EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT)

static void name_feature(char *detail, size_t len, int compat, __u32 bits)
{
	int bit;

	for (bit = 0; bit < 32; bit++) {
		if (bits & (1U << bit)) {
			snprintf(detail, len, "%s",
				 e2p_feature2string(compat, 1U << bit));
			return;
		}
	}
}

/*
 * Refuse features we do not understand.  Read-only features matter only
 * for writing, but bigalloc and shared_blocks change what a block of a
 * block map means, so they are refused even for a dry run.
 */
errcode_t e2sr_check_features(ext2_filsys fs, char *detail, size_t len)
{
	struct ext2_super_block *sb = fs->super;
	__u32 bad;

	bad = sb->s_feature_incompat & ~E2SR_INCOMPAT_OK;
	if (bad) {
		name_feature(detail, len, E2P_FEATURE_INCOMPAT, bad);
		return E2SR_ERR_UNSUP_INCOMPAT;
	}
	bad = sb->s_feature_ro_compat & ~E2SR_RO_COMPAT_OK;
	if (bad) {
		name_feature(detail, len, E2P_FEATURE_RO_INCOMPAT, bad);
		return E2SR_ERR_UNSUP_RO_COMPAT;
	}
	return 0;
}

static errcode_t check_mount(struct e2sr_ctx *ctx, const char *device)
{
	errcode_t err;
	int mount_flags = 0;
	char mtpt[256];

	mtpt[0] = 0;
	err = ext2fs_check_mount_point(device, &mount_flags, mtpt,
				       sizeof(mtpt));
	if (err)
		return err;
	if (mount_flags & EXT2_MF_MOUNTED) {
		if (mtpt[0])
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "mounted on %s", mtpt);
		return E2SR_ERR_MOUNTED;
	}
	if (mount_flags & (EXT2_MF_BUSY | EXT2_MF_SWAP))
		return E2SR_ERR_BUSY;
	return 0;
}

/* Mark every block of the internal journal, its map included. */
static int mark_journal_block(ext2_filsys fs EXT2FS_ATTR((unused)),
			      blk64_t *blocknr,
			      e2_blkcnt_t blockcnt EXT2FS_ATTR((unused)),
			      blk64_t ref_blk EXT2FS_ATTR((unused)),
			      int ref_offset EXT2FS_ATTR((unused)),
			      void *priv)
{
	ext2fs_block_bitmap map = priv;

	if (*blocknr < ext2fs_blocks_count(fs->super))
		ext2fs_mark_block_bitmap2(map, *blocknr);
	return 0;
}

static errcode_t load_journal_extent(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	ext2_ino_t jino = fs->super->s_journal_inum;
	errcode_t err;

	err = ext2fs_allocate_block_bitmap(fs, "journal blocks",
					   &ctx->journal_blocks);
	if (err)
		return err;
	if (!ext2fs_has_feature_journal(fs->super) || !jino)
		return 0;
	if (jino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	return ext2fs_block_iterate3(fs, jino, BLOCK_FLAG_READ_ONLY, NULL,
				     mark_journal_block, ctx->journal_blocks);
}

/*
 * The filesystem's own metadata (superblocks, descriptors, bitmaps,
 * inode tables) is never a wipe target whatever the block bitmap says.
 * A block bitmap that calls any of it free is wrong, and so is everything
 * we would conclude from it: refuse, and let e2fsck repair it.
 */
static errcode_t load_metadata_blocks(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t blk, n, free_at;
	errcode_t err;
	dgrp_t g;

	err = ext2fs_check_desc(fs);
	if (err)
		return err;
	err = ext2fs_allocate_block_bitmap(fs, "filesystem metadata",
					   &ctx->metadata_blocks);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, ctx->metadata_blocks);
		ext2fs_mark_block_bitmap2(ctx->metadata_blocks,
					  ext2fs_block_bitmap_loc(fs, g));
		ext2fs_mark_block_bitmap2(ctx->metadata_blocks,
					  ext2fs_inode_bitmap_loc(fs, g));
		blk = ext2fs_inode_table_loc(fs, g);
		n = fs->inode_blocks_per_group;
		ext2fs_mark_block_bitmap_range2(ctx->metadata_blocks, blk, n);
	}
	/* Every metadata block must be in use in the block bitmap. */
	blk = first;
	while (blk <= last &&
	       !ext2fs_find_first_set_block_bitmap2(ctx->metadata_blocks, blk,
						    last, &blk)) {
		if (!ext2fs_test_block_bitmap2(fs->block_map, blk)) {
			free_at = blk;
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "metadata block %llu is marked free",
				 (unsigned long long)free_at);
			return E2SR_ERR_BAD_BITMAP;
		}
		blk++;
	}
	return 0;
}

static errcode_t check_state(struct e2sr_ctx *ctx)
{
	struct ext2_super_block *sb = ctx->fs->super;

	if (ext2fs_has_feature_journal_dev(sb))
		return E2SR_ERR_JOURNAL_DEV;
	if (ext2fs_has_feature_journal_needs_recovery(sb))
		return E2SR_ERR_NEEDS_RECOVERY;
	if (ctx->open_flags & E2SR_OPEN_FORCE)
		return 0;
	if (sb->s_state & EXT2_ERROR_FS)
		return E2SR_ERR_FS_ERRORS;
	if (!(sb->s_state & EXT2_VALID_FS))
		return E2SR_ERR_UNCLEAN;
	return 0;
}

/*
 * The device must hold the whole filesystem: reading past the end of a
 * truncated image returns errors only for the blocks that happen to be
 * read, so a partial image could pass every other check.
 */
static errcode_t check_size(struct e2sr_ctx *ctx, const char *device)
{
	ext2_filsys fs = ctx->fs;
	blk64_t dev_blocks;
	errcode_t err;

	err = ext2fs_get_device_size2(device, fs->blocksize, &dev_blocks);
	if (err == EXT2_ET_UNIMPLEMENTED)
		return 0;
	if (err)
		return err;
	if (dev_blocks && dev_blocks < ext2fs_blocks_count(fs->super)) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "filesystem has %llu blocks, device %llu",
			 (unsigned long long)ext2fs_blocks_count(fs->super),
			 (unsigned long long)dev_blocks);
		return E2SR_ERR_TRUNCATED;
	}
	return 0;
}

/*
 * Every check is made on a read-only handle: opening read-write can
 * itself write (libext2fs starts MMP on a read-write open), so the
 * read-write handle is only opened once the filesystem is accepted.
 */
errcode_t e2sr_open(struct e2sr_ctx *ctx, const char *device, int flags)
{
	ext2_filsys fs = NULL;
	errcode_t err;
	int oflags = EXT2_FLAG_64BITS | EXT2_FLAG_EXCLUSIVE |
		     EXT2_FLAG_JOURNAL_DEV_OK | EXT2_FLAG_SKIP_MMP;

	ctx->detail[0] = 0;
	ctx->open_flags = flags;
	ctx->device = strdup(device);
	if (!ctx->device)
		return EXT2_ET_NO_MEMORY;

	err = check_mount(ctx, device);
	if (err)
		return err;
	err = ext2fs_open2(device, NULL, oflags, 0, 0, unix_io_manager, &fs);
	if (err)
		return err;
	ctx->fs = fs;

	err = check_state(ctx);
	if (!err)
		err = e2sr_check_features(fs, ctx->detail, sizeof(ctx->detail));
	if (!err)
		err = check_size(ctx, device);
	if (err)
		return err;

	if (!(flags & E2SR_OPEN_RDONLY)) {
		ext2fs_free(fs);
		ctx->fs = NULL;
		err = ext2fs_open2(device, NULL, oflags | EXT2_FLAG_RW, 0, 0,
				   unix_io_manager, &fs);
		if (err)
			return err;
		ctx->fs = fs;
		/* The same checks again: the device could have changed. */
		err = check_state(ctx);
		if (!err)
			err = e2sr_check_features(fs, ctx->detail,
						  sizeof(ctx->detail));
		if (err)
			return err;
	}

	/* Free-block sets of large filesystems are sparse. */
	fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	err = ext2fs_read_bitmaps(fs);
	if (err)
		return err;
	err = load_metadata_blocks(ctx);
	if (err)
		return err;
	return load_journal_extent(ctx);
}

/*
 * Close after a run.  The engine changes nothing that lives in the
 * superblock or group descriptors, so the handle is freed rather than
 * closed: ext2fs_close() would rewrite them for no reason.
 */
errcode_t e2sr_close(struct e2sr_ctx *ctx)
{
	errcode_t err = 0;

	if (!ctx->fs)
		return 0;
	if (ctx->fs->flags & EXT2_FLAG_RW)
		err = io_channel_flush(ctx->fs->io);
	ext2fs_free(ctx->fs);
	ctx->fs = NULL;
	return err;
}
