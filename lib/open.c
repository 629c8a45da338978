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

#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/major.h>

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

static errcode_t check_mount_one(struct e2sr_ctx *ctx, const char *device);

/*
 * A loop device's backing file, from sysfs; 0 if @device is not a loop
 * device with one.
 */
static int loop_backing_file(const char *device, char *path, size_t len)
{
	char sys[96];
	struct stat st;
	FILE *f;
	size_t n;

	if (stat(device, &st) || !S_ISBLK(st.st_mode) ||
	    major(st.st_rdev) != LOOP_MAJOR)
		return 0;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(sys, "r");
	if (!f)
		return 0;
	n = fread(path, 1, len - 1, f);
	fclose(f);
	while (n && (path[n - 1] == '\n' || path[n - 1] == 0))
		n--;
	path[n] = 0;
	return n > 0;
}

static errcode_t check_mount(struct e2sr_ctx *ctx, const char *device)
{
	char backing[PATH_MAX];
	errcode_t err;

	err = check_mount_one(ctx, device);
	/*
	 * The same file may be mounted through another loop device: the
	 * mount table names that one, not ours.
	 */
	if (!err && loop_backing_file(device, backing, sizeof(backing)))
		err = check_mount_one(ctx, backing);
	return err;
}

static errcode_t check_mount_one(struct e2sr_ctx *ctx, const char *device)
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
	/* Every metadata block must be in use in the block bitmap: run by run. */
	blk = first;
	while (e2sr_next_run(ctx->metadata_blocks, 1, &blk, last, &n)) {
		if (!ext2fs_find_first_zero_block_bitmap2(fs->block_map, blk,
							  n - 1, &free_at)) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "metadata block %llu is marked free",
				 (unsigned long long)free_at);
			return E2SR_ERR_BAD_BITMAP;
		}
		blk = n;
	}
	return 0;
}

/*
 * Errors and an unclean state are refused unless forced.  After a replay
 * in memory the superblock still says what the crash left; the state is
 * then what e2fsck's recovery would leave: errors when a commit failed
 * its checksum or the journal recorded an error, unclean when a copy was
 * skipped for its checksum.
 */
static errcode_t check_state(struct e2sr_ctx *ctx)
{
	struct ext2_super_block *sb = ctx->fs->super;
	const struct e2sr_jrecovery *rec = &ctx->recovery;
	int errors = sb->s_state & EXT2_ERROR_FS;
	int valid = sb->s_state & EXT2_VALID_FS;

	if (ext2fs_has_feature_journal_dev(sb))
		return E2SR_ERR_JOURNAL_DEV;
	if (ctx->recovered == E2SR_RECOVERY_VIEW) {
		if (rec->failed_commit || rec->jerrno)
			errors = 1;
		if (rec->tag_csum_bad)
			valid = 0;
	} else if (ext2fs_has_feature_journal_needs_recovery(sb)) {
		return E2SR_ERR_NEEDS_RECOVERY;
	}
	if (ctx->open_flags & E2SR_OPEN_FORCE)
		return 0;
	if (errors)
		return E2SR_ERR_FS_ERRORS;
	if (!valid)
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

/* unix_io, unless the caller gave another (a test's power cut, say). */
static io_manager base_manager(struct e2sr_ctx *ctx)
{
	return ctx->io_manager ? ctx->io_manager : unix_io_manager;
}

static errcode_t open_fs(struct e2sr_ctx *ctx, int rw, io_manager manager)
{
	int oflags = EXT2_FLAG_64BITS | EXT2_FLAG_EXCLUSIVE |
		     EXT2_FLAG_JOURNAL_DEV_OK | EXT2_FLAG_SKIP_MMP;

	if (ctx->fs) {
		ext2fs_free(ctx->fs);	/* never flushes */
		ctx->fs = NULL;
	}
	if (rw)
		oflags |= EXT2_FLAG_RW;
	return ext2fs_open2(ctx->device, NULL, oflags, 0, 0, manager,
			    &ctx->fs);
}

/* What must hold before anything is written, and again after a reopen. */
static errcode_t check_fs(struct e2sr_ctx *ctx, int before_replay)
{
	struct ext2_super_block *sb = ctx->fs->super;
	errcode_t err;

	if (ext2fs_has_feature_journal_dev(sb))
		return E2SR_ERR_JOURNAL_DEV;
	err = e2sr_check_features(ctx->fs, ctx->detail, sizeof(ctx->detail));
	if (err)
		return err;
	/* A replay is a write: not on a filesystem known to be damaged. */
	if (before_replay && ext2fs_has_feature_journal_needs_recovery(sb)) {
		if (!(ctx->open_flags & E2SR_OPEN_FORCE) &&
		    (sb->s_state & EXT2_ERROR_FS))
			return E2SR_ERR_FS_ERRORS;
		return 0;
	}
	return check_state(ctx);
}

/* Decide what recovery does, on the handle that is open now. */
static errcode_t scan_journal(struct e2sr_ctx *ctx)
{
	errcode_t err;

	e2sr_journal_close(ctx->journal);
	ctx->journal = NULL;
	e2sr_journal_recovery_free(&ctx->recovery);
	err = e2sr_journal_open(ctx->fs, ctx->ext_journal, &ctx->journal,
				ctx->detail, sizeof(ctx->detail));
	if (err)
		return err;
	err = e2sr_journal_recover_scan(ctx->journal,
					ext2fs_blocks_count(ctx->fs->super),
					&ctx->recovery, ctx->detail,
					sizeof(ctx->detail));
	if (err)
		return err;
	if (ctx->recovery.fc_pending)
		return E2SR_ERR_JOURNAL_FC_REPLAY;
	return 0;
}

/*
 * Replay to the device, then leave the superblock as e2fsck's recovery
 * does: needs_recovery cleared, unclean if a copy failed its checksum,
 * errors if a commit failed or the journal recorded one; only the
 * primary superblock and descriptors are written.
 */
static errcode_t replay(struct e2sr_ctx *ctx)
{
	const struct e2sr_jrecovery *rec = &ctx->recovery;
	struct ext2_super_block *sb;
	errcode_t err;

	err = e2sr_journal_recover_write(ctx->journal, ctx->fs->io, rec,
					 &ctx->replay_bytes);
	if (err)
		return err;
	/* The replay may have rewritten the superblock: read it again. */
	err = open_fs(ctx, 1, base_manager(ctx));
	if (err)
		return err;
	sb = ctx->fs->super;
	ext2fs_clear_feature_journal_needs_recovery(sb);
	if (rec->tag_csum_bad)
		sb->s_state &= ~EXT2_VALID_FS;
	if (rec->failed_commit || rec->jerrno)
		sb->s_state |= EXT2_ERROR_FS;
	if (sb->s_kbytes_written)
		sb->s_kbytes_written += ctx->replay_bytes >> 10;
	ctx->fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_mark_super_dirty(ctx->fs);
	/*
	 * Without the superblock as read, libext2fs writes the new one in
	 * one piece, not field by field: a crash cannot tear it.
	 */
	ext2fs_free_mem(&ctx->fs->orig_super);
	err = ext2fs_flush(ctx->fs);
	if (err)
		return err;
	ctx->recovered = E2SR_RECOVERY_REPLAYED;
	return 0;
}

/*
 * Every check is made on a read-only handle: opening read-write can
 * itself write (libext2fs starts MMP on a read-write open), so the
 * read-write handle is only opened once the filesystem is accepted.  A
 * journal that needs recovery is replayed first, as e2fsck does; a dry
 * run replays it in memory and reads the filesystem through that view.
 */
errcode_t e2sr_open(struct e2sr_ctx *ctx, const char *device, int flags)
{
	int rdonly = flags & E2SR_OPEN_RDONLY;
	int recover;
	errcode_t err;

	ctx->detail[0] = 0;
	ctx->open_flags = flags;
	/* The views read the device as the filesystem handle does. */
	e2sr_view_set_base(ctx->io_manager);
	ctx->device = strdup(device);
	if (!ctx->device)
		return EXT2_ET_NO_MEMORY;

	err = check_mount(ctx, device);
	if (err)
		return err;
	err = open_fs(ctx, 0, base_manager(ctx));
	if (err)
		return err;
	err = check_fs(ctx, 1);
	if (!err)
		err = check_size(ctx, device);
	if (err)
		return err;
	recover = ext2fs_has_feature_journal_needs_recovery(ctx->fs->super);
	if (recover)
		err = scan_journal(ctx);
	else if (ctx->ext_journal ||
		 (ext2fs_has_feature_journal(ctx->fs->super) &&
		  ctx->fs->super->s_journal_inum))
		err = e2sr_journal_open(ctx->fs, ctx->ext_journal,
					&ctx->journal, ctx->detail,
					sizeof(ctx->detail));
	if (err)
		return err;

	if (recover && rdonly) {
		err = open_fs(ctx, 0, e2sr_view_manager(ctx->journal,
							&ctx->recovery));
		if (err)
			return err;
		ctx->recovered = E2SR_RECOVERY_VIEW;
	} else if (!rdonly) {
		err = open_fs(ctx, 1, base_manager(ctx));
		if (err)
			return err;
		/* The same checks again: the device could have changed. */
		err = check_fs(ctx, 1);
		if (err)
			return err;
		if (ext2fs_has_feature_journal_needs_recovery(
			    ctx->fs->super)) {
			err = scan_journal(ctx);
			if (!err)
				err = replay(ctx);
			if (err)
				return err;
		} else if (ctx->journal) {
			/* Reopened on the read-write handle. */
			e2sr_journal_close(ctx->journal);
			ctx->journal = NULL;
			err = e2sr_journal_open(ctx->fs, ctx->ext_journal,
						&ctx->journal, ctx->detail,
						sizeof(ctx->detail));
			if (err)
				return err;
		}
	}
	err = check_fs(ctx, 0);
	if (err)
		return err;

	/* Free-block sets of large filesystems are sparse. */
	ctx->fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	err = ext2fs_read_bitmaps(ctx->fs);
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
