/*
 * begin_write.c --- the point after which a run writes.
 *
 * Owns e2sr_begin_write(): the device opened read-write once the
 * command has planned and checked everything, the handle held to what
 * the checks saw (the same superblock before the replay, the same
 * bitmaps after it, the same journal superblock), and the journal
 * replay and the orphans' release that e2sr_open() decided in memory
 * written, each as e2fsck's recovery leaves it, in an order a cut at
 * any point leaves to be replayed again.  What is decided, and every
 * check before it, is open.c's; the device's own checks device.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "e2secrm.h"
#include "util.h"
#include "open_int.h"

/*
 * A replay written through *@rw rewrote the superblock under it: the
 * handle is opened again, to read what is on the device now.
 */
static errcode_t reopen_rw(struct e2sr_ctx *ctx, ext2_filsys *rw)
{
	ext2fs_free(*rw);
	return e2sr_open_handle(ctx, OPEN_RW, e2sr_open_manager(ctx), rw);
}

/*
 * Write the replay decided at open, then leave the superblock as
 * e2fsck's recovery does: needs_recovery cleared, unclean if a copy
 * failed its checksum, errors if a commit failed or the journal recorded
 * one; only the primary superblock and descriptors are written.  The
 * journal is marked empty last: a cut before that leaves a journal that
 * replays to the same result.
 */
static errcode_t write_replay(struct e2sr_ctx *ctx, ext2_filsys *rw)
{
	const struct e2sr_jrecovery *rec = &ctx->replay.recovery;
	struct ext2_super_block *sb;
	errcode_t err;

	err = e2sr_journal_recover_write(ctx->journal, (*rw)->io, rec,
					 &ctx->replay.bytes);
	/* The fast commits' changes go on top of the full commits'. */
	if (!err && ctx->replay.overlay) {
		err = e2sr_overlay_commit(ctx->replay.overlay, (*rw)->io);
		ctx->replay.bytes += (__u64)e2sr_overlay_count(ctx->replay.overlay) *
				     e2sr_overlay_unit(ctx->replay.overlay);
	}
	if (!err)
		err = e2sr_journal_recover_finish(ctx->journal, rec,
						  &ctx->replay.bytes);
	if (err)
		return err;
	/* The replay may have rewritten the superblock. */
	err = reopen_rw(ctx, rw);
	if (err)
		return err;
	/*
	 * Orphans to release next: needs_recovery stays until their
	 * release is written, and the byte count waits with it, so that
	 * a run cut in between finds the superblock the release was
	 * built on.  (A recovery with errors does not come this far.)
	 */
	if (ctx->orphans.how == E2SR_RECOVERY_VIEW) {
		ctx->replay.how = E2SR_RECOVERY_REPLAYED;
		return 0;
	}
	sb = (*rw)->super;
	ext2fs_clear_feature_journal_needs_recovery(sb);
	if (rec->tag_csum_bad)
		sb->s_state &= ~EXT2_VALID_FS;
	if (rec->failed_commit || rec->jerrno)
		sb->s_state |= EXT2_ERROR_FS;
	if (sb->s_kbytes_written)
		sb->s_kbytes_written += ctx->replay.bytes >> 10;
	(*rw)->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_mark_super_dirty(*rw);
	/*
	 * Without the superblock as read, libext2fs writes the new one in
	 * one piece, not field by field: a crash cannot tear it.
	 */
	ext2fs_free_mem(&(*rw)->orig_super);
	err = ext2fs_flush(*rw);
	if (err)
		return err;
	ctx->replay.how = E2SR_RECOVERY_REPLAYED;
	return 0;
}

/* Write the primary superblock alone, in one piece. */
static errcode_t flush_super(ext2_filsys fs)
{
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY;
	ext2fs_mark_super_dirty(fs);
	ext2fs_free_mem(&fs->orig_super);
	return ext2fs_flush(fs);
}

/*
 * Write the release decided at open (orphan.c): needs_recovery in the
 * superblock first, the state a mounted filesystem is in, without which
 * the kernel would wipe the log; then the whole log, unreferenced; then
 * the journal superblock naming the log, the commit point;
 * then the replay and the journal marked empty, by the recovery's own
 * code, and needs_recovery cleared.  A cut before the commit point
 * leaves the filesystem as it was (a re-run lays out the same log
 * again); after it, the kernel, e2fsck or a re-run replays the release.
 */
static errcode_t write_orphans(struct e2sr_ctx *ctx, ext2_filsys *rw)
{
	struct e2sr_orphans *o = &ctx->orphans;
	errcode_t err;

	ext2fs_set_feature_journal_needs_recovery((*rw)->super);
	err = flush_super(*rw);
	if (!err)
		err = e2sr_orphans_write_log(o, ctx->journal);
	if (!err)
		err = e2sr_orphans_commit(o, ctx->journal);
	if (!err)
		err = e2sr_orphans_replay(o, ctx->journal, (*rw)->io,
					  ext2fs_blocks_count((*rw)->super),
					  ctx->detail, sizeof(ctx->detail));
	if (err)
		return err;
	err = reopen_rw(ctx, rw);
	if (err)
		return err;
	ext2fs_clear_feature_journal_needs_recovery((*rw)->super);
	if ((*rw)->super->s_kbytes_written)
		(*rw)->super->s_kbytes_written += (o->bytes +
			(ctx->replay.how == E2SR_RECOVERY_REPLAYED ?
			 ctx->replay.bytes : 0)) >> 10;
	return flush_super(*rw);
}

/*
 * The read-write handle must see exactly what the checks saw: the same
 * superblock (before the replay), the same bitmaps (after it).
 */
static errcode_t same_as_checked(struct e2sr_ctx *ctx, ext2_filsys rw,
				 int after_replay)
{
	errcode_t err;

	if (!after_replay) {
		if (memcmp(rw->super, &ctx->sb_seen, sizeof(ctx->sb_seen))) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "superblock differs");
			return E2SR_ERR_CHANGED;
		}
		return 0;
	}
	rw->default_bitmap_type = e2sr_bitmap_type(rw);
	err = ext2fs_read_bitmaps(rw);
	if (err)
		return err;
	if (!e2sr_bitmaps_equal((ext2fs_generic_bitmap)rw->block_map,
				(ext2fs_generic_bitmap)ctx->fs->block_map) ||
	    !e2sr_bitmaps_equal((ext2fs_generic_bitmap)rw->inode_map,
				(ext2fs_generic_bitmap)ctx->fs->inode_map)) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "bitmaps differ from the checked view");
		return E2SR_ERR_CHANGED;
	}
	return 0;
}

/*
 * The point after which the run writes.  Everything was decided on the
 * read-only handle; now the device is opened read-write (the read-only
 * handle keeps it exclusively, so no one can mount it in between), the
 * journal replay decided at open is written, and the read-write handle
 * becomes the one the writers use.  The read-only handle stays alive:
 * the plan was built on it.
 */
/*
 * The run is about to write, and says so in the superblock as every tool
 * that writes a filesystem does: s_wtime is now, and s_kbytes_written
 * counts this write (libext2fs adds the rest at a close, which this run
 * never makes).  The kernel only adds to the counter, so a copy of the
 * filesystem taken before this run has a lower one than the state this
 * run leaves, and the next run on that copy does not take this one for
 * its own (since.c's copy test).  The primary superblock is written
 * whole, in the one write of the block that holds it: a cut leaves the
 * old one or the new one, never one with a wrong checksum.
 */
static errcode_t mark_written(ext2_filsys rw)
{
	struct ext2_super_block *sb = rw->super;
	unsigned int off = rw->blocksize == 1024 ? 0 : SUPERBLOCK_OFFSET;
	blk64_t blk = rw->blocksize == 1024 ? 1 : 0;
	__u64 now = (__u64)time(NULL);
	unsigned char *buf;
	errcode_t err;

	err = ext2fs_get_mem(rw->blocksize, &buf);
	if (err)
		return err;
	err = io_channel_read_blk64(rw->io, blk, 1, buf);
	if (err)
		goto out;
	sb->s_wtime = (__u32)now;
	sb->s_wtime_hi = (__u8)(now >> 32);
	sb->s_kbytes_written += 1;
	ext2fs_superblock_csum_set(rw, sb);
	memcpy(buf + off, sb, SUPERBLOCK_SIZE);
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super((struct ext2_super_block *)(buf + off));
#endif
	err = io_channel_write_blk64(rw->io, blk, 1, buf);
	/* What a later flush compares with, when the handle keeps it. */
	if (!err && rw->orig_super)
		memcpy(rw->orig_super, sb, SUPERBLOCK_SIZE);
out:
	ext2fs_free_mem(&buf);
	return err;
}

errcode_t e2sr_begin_write(struct e2sr_ctx *ctx)
{
	struct e2sr_journal *rwj = NULL;
	ext2_filsys rw = NULL;
	errcode_t err;

	if (ctx->open_flags & E2SR_OPEN_RDONLY)
		return E2SR_ERR_READ_ONLY;
	if (!ctx->fs || ctx->ro_fs)
		return EXT2_ET_INVALID_ARGUMENT;
	/*
	 * Not e2sr_check_mount(): the read-only handle is what holds it
	 * busy.
	 */
	err = e2sr_check_not_mounted(ctx, ctx->device);
	if (!err)
		err = e2sr_open_handle(ctx, OPEN_RW, e2sr_open_manager(ctx),
				       &rw);
	if (!err)
		err = same_as_checked(ctx, rw, 0);
	/*
	 * An external journal is opened exclusively, and only once: the
	 * read-only channel goes first (nothing reads through it again).
	 */
	if (!err && ctx->journal && ctx->journal->external) {
		io_channel_close(ctx->journal->io);
		ctx->journal->io = NULL;
	}
	if (!err && ctx->journal)
		err = e2sr_open_journal(ctx, rw, &rwj);
	if (!err && rwj &&
	    memcmp(rwj->sbuf, ctx->orphans.found_journal ?
		   ctx->orphans.found_journal->sbuf : ctx->journal->sbuf,
		   E2SR_JBD2_SB_SIZE)) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "journal superblock differs");
		err = E2SR_ERR_CHANGED;
	}
	if (err)
		goto fail;
	ctx->replay.ro_journal = ctx->journal;
	if (ctx->journal)
		e2sr_journal_take_fc(rwj, ctx->journal);
	ctx->journal = rwj;
	rwj = NULL;
	if (ctx->replay.how == E2SR_RECOVERY_VIEW) {
		err = write_replay(ctx, &rw);
		if (err)
			goto fail;
	}
	if (ctx->orphans.how == E2SR_RECOVERY_VIEW) {
		err = write_orphans(ctx, &rw);
		if (err)
			goto fail;
	}
	err = same_as_checked(ctx, rw, 1);
	if (!err)
		err = mark_written(rw);
	if (err)
		goto fail;
	ctx->ro_fs = ctx->fs;
	ctx->fs = rw;
	return 0;
fail:
	e2sr_journal_close(rwj);
	if (rw)
		ext2fs_free(rw);
	return err;
}
