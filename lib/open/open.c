/*
 * open.c --- opening a filesystem safely, or refusing to.
 *
 * Everything that can make a write unsafe is checked here, before the
 * engine reads anything else: the device must not be mounted or held by
 * anyone (device.c), the filesystem must be one whose every feature we
 * understand, clean (unless forced) and not waiting for journal
 * recovery.  A refusal frees the handle without flushing it, so the
 * device is never written.  Journal recovery and the release of orphan
 * inodes are decided here, in memory (the release itself is orphan.c's
 * and orphan_log.c's), and written in e2sr_begin_write()
 * (begin_write.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <e2p/e2p.h>

#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "open_int.h"

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

/* Mark every block of the internal journal, its map included. */
static int mark_journal_block(ext2_filsys fs,
			      blk64_t *blocknr,
			      e2_blkcnt_t blockcnt EXT2FS_ATTR((unused)),
			      blk64_t ref_blk EXT2FS_ATTR((unused)),
			      int ref_offset EXT2FS_ATTR((unused)),
			      void *priv)
{
	ext2fs_block_bitmap map = priv;

	/* A map that leaves the filesystem is the journal code's to refuse. */
	if (*blocknr >= fs->super->s_first_data_block &&
	    *blocknr < ext2fs_blocks_count(fs->super))
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
 * The bitmap blocks ext2fs_read_bitmaps() is about to read, one at a
 * time, asked for ahead (readahead.c): the block bitmaps, then the
 * inode bitmaps, of the groups whose bitmaps are on the disk.  flex_bg
 * packs each kind in runs, which the kernel then reads in large parts.
 */
static void bitmap_readahead(ext2_filsys fs, struct e2sr_ra **ra)
{
	struct e2sr_ra_range *r = NULL;
	size_t n = 0, alloc = 0;
	int csum = ext2fs_has_group_desc_csum(fs), kind;
	blk64_t blk;
	dgrp_t g;

	*ra = NULL;
	for (kind = 0; kind < 2; kind++)
		for (g = 0; g < fs->group_desc_count; g++) {
			if (csum && ext2fs_bg_flags_test(fs, g, kind ?
						EXT2_BG_INODE_UNINIT :
						EXT2_BG_BLOCK_UNINIT))
				continue;
			blk = kind ? ext2fs_inode_bitmap_loc(fs, g) :
				     ext2fs_block_bitmap_loc(fs, g);
			if (!blk || blk >= ext2fs_blocks_count(fs->super))
				continue;
			if (e2sr_ra_add(&r, &n, &alloc,
					(__u64)blk * fs->blocksize,
					fs->blocksize))
				goto out;
		}
	e2sr_ra_start(fs->device_name, r, n, E2SR_RA_WINDOW, ra);
out:
	ext2fs_free_mem(&r);
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
		if (!e2sr_find_first_zero(fs->block_map, blk,
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
	const struct e2sr_jrecovery *rec = &ctx->replay.recovery;
	int errors = sb->s_state & EXT2_ERROR_FS;
	int valid = sb->s_state & EXT2_VALID_FS;

	if (ext2fs_has_feature_journal_dev(sb))
		return E2SR_ERR_JOURNAL_DEV;
	if (ctx->replay.how == E2SR_RECOVERY_VIEW) {
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
 * unix_io, unless the caller gave another (a test's power cut, say),
 * watched for what the device fails (watch_io.c).
 */
io_manager e2sr_open_manager(struct e2sr_ctx *ctx)
{
	return ctx->io_manager;
}

errcode_t e2sr_open_handle(struct e2sr_ctx *ctx, int how, io_manager manager,
			   ext2_filsys *ret)
{
	int oflags = EXT2_FLAG_64BITS | EXT2_FLAG_JOURNAL_DEV_OK |
		     EXT2_FLAG_SKIP_MMP;

	if (how & OPEN_RW)
		oflags |= EXT2_FLAG_RW;
	if (how & OPEN_EXCL)
		oflags |= EXT2_FLAG_EXCLUSIVE;
	*ret = NULL;
	return ext2fs_open2(ctx->device, NULL, oflags, 0, 0, manager, ret);
}

/* Replace the read-only handle the checks run on. */
static errcode_t reopen_ro(struct e2sr_ctx *ctx, io_manager manager)
{
	if (ctx->fs) {
		ext2fs_free(ctx->fs);	/* never flushes */
		ctx->fs = NULL;
	}
	return e2sr_open_handle(ctx, OPEN_EXCL, manager, &ctx->fs);
}

/* What must hold before anything is written, and again after a reopen. */
/*
 * What libext2fs' open leaves to e2fsck's check_super_block and the
 * library then trusts: the first data block.  With any other value the
 * superblock and descriptors lie where nobody reads them, and the
 * library's own ext2fs_check_desc() marks blocks past the end.
 */
static errcode_t geometry_of(ext2_filsys fs, char *detail, size_t len)
{
	struct ext2_super_block *sb = fs->super;
	blk64_t want = (sb->s_log_block_size == 0 &&
			EXT2FS_CLUSTER_RATIO(fs) == 1) ? 1 : 0;

	if (sb->s_first_data_block != want) {
		snprintf(detail, len, "first data block %u, should be %llu",
			 sb->s_first_data_block, (unsigned long long)want);
		return E2SR_ERR_BAD_GEOMETRY;
	}
	return 0;
}

static errcode_t check_geometry(struct e2sr_ctx *ctx)
{
	return geometry_of(ctx->fs, ctx->detail, sizeof(ctx->detail));
}

static errcode_t check_fs(struct e2sr_ctx *ctx, int before_replay)
{
	struct ext2_super_block *sb = ctx->fs->super;
	errcode_t err;

	err = check_geometry(ctx);
	if (err)
		return err;

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

/*
 * A journal superblock that fails its checksum is not trusted with
 * anything, as e2fsck does not trust it: e2fsck -fy would reset the
 * journal, losing whatever it held, and that is the user's call.  Only
 * the journal listing reads on, and says so.
 */
errcode_t e2sr_open_journal(struct e2sr_ctx *ctx, ext2_filsys fs,
			    struct e2sr_journal **ret)
{
	errcode_t err;

	err = e2sr_journal_open(fs, ctx->opts.ext_journal, ret, ctx->detail,
				sizeof(ctx->detail));
	if (err)
		return err;
	if ((*ret)->sb_csum_bad && !(ctx->open_flags & E2SR_OPEN_LISTING)) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "stored 0x%08x", (*ret)->jsb.checksum);
		return E2SR_ERR_JOURNAL_SB_CSUM;
	}
	return 0;
}

/*
 * Fast commits after the last full commit are replayed the kernel's way
 * (fc_replay.c) onto the recovery view, through an overlay that keeps
 * every change in memory: what the replay would write is then known, and
 * checked with the rest, before anything is written.  A log the replay
 * cannot follow faithfully is refused.
 */
static errcode_t replay_fast_commits(struct e2sr_ctx *ctx, io_manager view)
{
	struct e2sr_fc_scan scan;
	ext2_filsys fs = NULL;
	errcode_t err;

	err = e2sr_fc_replay_scan(ctx->journal, ctx->replay.recovery.end_seq,
				  EXT2_INODE_SIZE(ctx->fs->super), &scan);
	if (err || !scan.nr_tags)
		return err;
	ctx->replay.overlay = e2sr_overlay_new(view, 0);
	if (!ctx->replay.overlay)
		return EXT2_ET_NO_MEMORY;
	err = e2sr_open_handle(ctx, OPEN_RW,
			       e2sr_overlay_manager(ctx->replay.overlay), &fs);
	/*
	 * The full commits' replay may have changed the superblock and the
	 * descriptors, and reading the bitmaps trusts both (a BLOCK_UNINIT
	 * group's table is marked unchecked): check them first, as the
	 * view is checked once the fast commits are in.
	 */
	if (!err)
		err = geometry_of(fs, ctx->detail, sizeof(ctx->detail));
	if (!err)
		err = ext2fs_check_desc(fs);
	if (!err)
		err = ext2fs_read_bitmaps(fs);
	if (!err)
		err = e2sr_fc_replay_apply(fs, ctx->journal, &scan, ctx->detail,
					   sizeof(ctx->detail));
	if (!err) {
		/* Into the overlay: superblock, descriptors, bitmaps. */
		err = ext2fs_close_free(&fs);
	}
	if (fs)
		ext2fs_free(fs);
	if (err)
		return err;
	ctx->replay.recovery.fc_tags = scan.nr_tags;
	ctx->replay.recovery.fc_commits = scan.nr_commits;
	return 0;
}

/* Decide what recovery does, and read the filesystem as it leaves it. */
static errcode_t recover_in_memory(struct e2sr_ctx *ctx)
{
	io_manager view;
	errcode_t err;

	e2sr_journal_recovery_free(&ctx->replay.recovery);
	err = e2sr_journal_recover_scan(ctx->journal,
					ext2fs_blocks_count(ctx->fs->super),
					&ctx->replay.recovery, ctx->detail,
					sizeof(ctx->detail));
	if (err)
		return err;
	view = e2sr_view_manager(ctx->journal, &ctx->replay.recovery);
	err = replay_fast_commits(ctx, view);
	if (err)
		return err;
	err = reopen_ro(ctx, ctx->replay.overlay ?
			e2sr_overlay_manager(ctx->replay.overlay) : view);
	if (err)
		return err;
	ctx->replay.how = E2SR_RECOVERY_VIEW;
	return 0;
}

/*
 * Orphans, without the run's first writing anything: whether there may
 * be any, and whether this run may release them.  The release must be
 * atomic, so it needs a journal of the filesystem's own; quota usage
 * would need updating, and an erroneous filesystem's lists are not
 * trusted (e2fsck does not release them either).
 */
static errcode_t may_release_orphans(struct e2sr_ctx *ctx)
{
	struct ext2_super_block *sb = ctx->fs->super;
	const char *why = NULL;

	if (!ctx->journal)
		why = "no journal to release them in one transaction";
	else if (ctx->journal->external)
		why = "the journal is external";
	else if (ext2fs_has_feature_quota(sb))
		why = "quota usage would need updating";
	else if (sb->s_state & EXT2_ERROR_FS)
		why = "the filesystem has errors";
	else if (ctx->replay.how == E2SR_RECOVERY_VIEW &&
		 (ctx->replay.recovery.failed_commit ||
		  ctx->replay.recovery.jerrno ||
		  ctx->replay.recovery.tag_csum_bad))
		why = "the journal's recovery is not clean";
	if (!why)
		return 0;
	snprintf(ctx->detail, sizeof(ctx->detail), "%s", why);
	return E2SR_ERR_ORPHANS;
}

/*
 * A file deleted (or being truncated) while open stays on the orphan
 * list or in the orphan file until the next mount or e2fsck releases
 * it.  The release is decided here, in memory, as recovery is: on a
 * handle over an overlay of the view read so far (orphan.c), then laid
 * out as one journal transaction in the same overlay (orphan_log.c), and
 * the run reads the released filesystem and journal from then on.  Its
 * time is the last mount's (or the filesystem's making), not the
 * clock's, so that a run cut before the commit lays out the same bytes
 * again.  An inconsistent list is refused, and so is what
 * may_release_orphans() turns down.
 */
static errcode_t release_orphans(struct e2sr_ctx *ctx)
{
	struct ext2_super_block *sb = ctx->fs->super;
	struct e2sr_orphans *o = &ctx->orphans;
	struct e2sr_journal *view_journal = NULL;
	io_manager under = ctx->fs->io->manager;
	ext2_filsys fs = NULL;
	time_t now = sb->s_mtime ? sb->s_mtime :
		     sb->s_mkfs_time ? sb->s_mkfs_time : 1;
	errcode_t err;

	/* A listing of the journal reads it as found. */
	if (ctx->open_flags & E2SR_OPEN_LISTING)
		return 0;
	if (!sb->s_last_orphan && !(ext2fs_has_feature_orphan_file(sb) &&
				    ext2fs_has_feature_orphan_present(sb)))
		return 0;
	o->overlay = e2sr_overlay_new(under, 0);
	if (!o->overlay)
		return EXT2_ET_NO_MEMORY;
	err = e2sr_open_handle(ctx, OPEN_RW, e2sr_overlay_manager(o->overlay),
			       &fs);
	if (!err)
		err = geometry_of(fs, ctx->detail, sizeof(ctx->detail));
	if (!err)
		err = ext2fs_check_desc(fs);
	if (!err) {
		fs->default_bitmap_type = e2sr_bitmap_type(fs);
		err = ext2fs_read_bitmaps(fs);
	}
	if (!err)
		err = e2sr_orphans_find(fs, o, ctx->detail,
					sizeof(ctx->detail));
	/* The flag outlives a crash; only entries in the file count. */
	if (!err && !o->n)
		goto none;
	if (!err)
		err = may_release_orphans(ctx);
	/* ctx->fs reads the filesystem as it was before the release. */
	if (!err)
		err = e2sr_orphans_evidence(ctx->fs, o);
	if (!err)
		err = e2sr_orphans_release(fs, o, now, ctx->detail,
					   sizeof(ctx->detail));
	if (err)
		goto out;
	/*
	 * The superblock the transaction carries says needs_recovery, as
	 * it is on the device until the end of the write: replayed over it
	 * before the journal is marked empty, a clear flag would have the
	 * kernel discard a log not yet wholly replayed.
	 */
	fs->now = now;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	err = ext2fs_close_free(&fs);
	if (!err)
		err = reopen_ro(ctx, e2sr_overlay_manager(o->overlay));
	if (!err)
		err = e2sr_orphans_log(o, ctx->fs,
				       ctx->replay.how == E2SR_RECOVERY_VIEW ?
				       &ctx->replay.recovery : NULL,
				       (__u64)now, &view_journal, ctx->detail,
				       sizeof(ctx->detail));
	if (err)
		goto out;
	/* The views read the journal as found; the run reads the new one. */
	o->found_journal = ctx->journal;
	ctx->journal = view_journal;
	/* The log is in the overlay now: read the filesystem again. */
	return reopen_ro(ctx, e2sr_overlay_manager(o->overlay));
none:
	ext2fs_free(fs);
	fs = NULL;
	e2sr_orphans_free(o);
out:
	if (fs)
		ext2fs_free(fs);
	/* Channels opened from now on read what ctx->fs reads. */
	if (ctx->replay.overlay && !o->overlay)
		e2sr_overlay_manager(ctx->replay.overlay);
	return err;
}

/*
 * Every check is made on a read-only handle, and every decision the run
 * makes is made on it too: e2sr_open() never writes.  A journal that
 * needs recovery is replayed in memory and the filesystem is read
 * through that view, by a dry run and a real one alike, and so are
 * orphan inodes released; the replay and the release reach the device in
 * e2sr_begin_write(), once the command has planned and checked
 * everything, so that a refusal at any point before it leaves the device
 * as it was.
 */
errcode_t e2sr_open(struct e2sr_ctx *ctx, const char *device, int flags)
{
	struct ext2_super_block *sb;
	struct e2sr_ra *ra;
	size_t len;
	errcode_t err;

	ctx->detail[0] = 0;
	ctx->open_flags = flags;
	/* The views read the device as the filesystem handle does. */
	ctx->io_manager = e2sr_io_watch(ctx->opts.io_manager);
	e2sr_view_set_base(ctx->io_manager);
	len = strlen(device) + 1;
	err = ext2fs_get_mem(len, &ctx->device);
	if (err)
		return err;
	memcpy(ctx->device, device, len);

	err = e2sr_check_mount(ctx, device);
	if (err)
		return err;
	if (!(flags & E2SR_OPEN_RDONLY)) {
		err = e2sr_check_writable(ctx, device, 0);
		if (!err && ctx->opts.ext_journal)
			err = e2sr_check_writable(ctx, ctx->opts.ext_journal,
						  1);
		if (err)
			return err;
	}
	err = reopen_ro(ctx, e2sr_open_manager(ctx));
	if (err)
		return err;
	err = check_fs(ctx, 1);
	if (!err)
		err = e2sr_check_size(ctx, device);
	if (err)
		return err;
	/* The superblock as found: e2sr_begin_write() expects it again. */
	memcpy(&ctx->sb_seen, ctx->fs->super, sizeof(ctx->sb_seen));
	sb = ctx->fs->super;
	if (ctx->opts.ext_journal ||
	    (ext2fs_has_feature_journal(sb) && sb->s_journal_inum)) {
		err = e2sr_open_journal(ctx, ctx->fs, &ctx->journal);
		if (err)
			return err;
	}
	if (ext2fs_has_feature_journal_needs_recovery(sb)) {
		if (!ctx->journal)
			return E2SR_ERR_NEEDS_RECOVERY;
		err = recover_in_memory(ctx);
		if (err)
			return err;
	}
	err = check_fs(ctx, 0);
	if (!err)
		err = release_orphans(ctx);
	if (err)
		return err;

	/*
	 * Descriptors first, as e2fsck does: reading the bitmaps of groups
	 * whose descriptors point anywhere makes libext2fs mark blocks
	 * outside the filesystem (and say so on stderr).  Its own block
	 * bitmap takes the default type: a flat one of a 2 TiB filesystem
	 * is 64 MiB, so the type is chosen first.
	 */
	ctx->fs->default_bitmap_type = e2sr_bitmap_type(ctx->fs);
	err = ext2fs_check_desc(ctx->fs);
	if (err)
		return err;
	bitmap_readahead(ctx->fs, &ra);
	err = ext2fs_read_bitmaps(ctx->fs);
	e2sr_ra_stop(&ra);
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
