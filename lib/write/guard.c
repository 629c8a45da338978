/*
 * guard.c --- the guards of every write.
 *
 * Owns the checks a write passes immediately before it, and that the
 * run makes of its whole plan before the first write: a block run
 * inside the filesystem, never its metadata or the journal, free by the
 * bitmap and the live set (livemap.c: what the maps in use reference),
 * e2sr_wipe_check(), e2sr_wipe_check_free(), or allocated to a live
 * file's unwritten extent, e2sr_wipe_check_unwritten(); a record free
 * by both sources, e2sr_wipe_check_record(); a directory and its block,
 * e2sr_wipe_check_dir() and e2sr_wipe_check_dir_block(); inode table
 * blocks, e2sr_wipe_check_itable(); journal blocks only inside the log
 * and only while the journal on disk is empty,
 * e2sr_wipe_journal_place() and e2sr_wipe_journal_check().  A target
 * that fails its check aborts the run before anything of it is
 * written.  The writes themselves are wipe_io.c's (blocks) and
 * wipe_journal.c's (journal copies), or the kinds' own (what is
 * rewritten through libext2fs).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "write_int.h"

/* Inside the filesystem, never its metadata or the journal. */
static errcode_t check_place(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (!count || blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return E2SR_ERR_WRITE_RANGE;
	if (!ctx->metadata_blocks ||
	    !e2sr_range_clear(ctx->metadata_blocks, blk, count))
		return E2SR_ERR_WRITE_METADATA;
	if (!ctx->journal_blocks ||
	    !e2sr_range_clear(ctx->journal_blocks, blk, count))
		return E2SR_ERR_WRITE_JOURNAL;
	return 0;
}

/* Whether this run may write at all: -y, on the read-write handle. */
errcode_t e2sr_wipe_writable(const struct e2sr_ctx *ctx)
{
	if (!(ctx->fs->flags & EXT2_FLAG_RW) ||
	    (ctx->open_flags & E2SR_OPEN_RDONLY))
		return E2SR_ERR_READ_ONLY;
	return 0;
}

/*
 * Whether the record of @ino may be rewritten: a number of this
 * filesystem past the reserved ones, free by both sources (its bit
 * clear, no live entry naming it).
 */
int e2sr_record_free(const struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	ext2_filsys fs = ctx->fs;

	return ino >= EXT2_FIRST_INODE(fs->super) &&
	       ino <= fs->super->s_inodes_count &&
	       !ext2fs_test_inode_bitmap2(fs->inode_map, ino) &&
	       !e2sr_live_inode(ctx, ino);
}

/*
 * A record to scrub: not a reserved one, and free by both sources (its
 * bit clear, no live entry naming it).  @write: just before the write,
 * which the handle must allow.
 */
errcode_t e2sr_wipe_check_record(struct e2sr_ctx *ctx, ext2_ino_t ino,
				 int write)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err = write ? e2sr_wipe_writable(ctx) : 0;

	if (err)
		return err;
	if (!ino || ino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	if (!e2sr_record_free(ctx, ino)) {
		snprintf(ctx->detail, sizeof(ctx->detail), "inode %u", ino);
		return E2SR_ERR_INODE_IN_USE;
	}
	return 0;
}

/*
 * A directory whose removed names are rewritten: in use by the bitmap,
 * and not known to be unnamed by the live set.
 */
errcode_t e2sr_wipe_check_dir(struct e2sr_ctx *ctx, ext2_ino_t dir, int write)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err = write ? e2sr_wipe_writable(ctx) : 0;

	if (err)
		return err;
	if (!dir || dir > fs->super->s_inodes_count ||
	    !ext2fs_test_inode_bitmap2(fs->inode_map, dir) ||
	    !e2sr_live_inode(ctx, dir)) {
		snprintf(ctx->detail, sizeof(ctx->detail), "directory %u",
			 dir);
		return E2SR_ERR_WRITE_DIR;
	}
	return 0;
}

/*
 * A block of live directory @dir about to be written back: inside the
 * filesystem, not its metadata nor the journal, in use by the bitmap
 * and, as the live set read it, one of @dir's own blocks.  @write: just
 * before the write, which the handle must allow.
 */
errcode_t e2sr_wipe_check_dir_block(struct e2sr_ctx *ctx, ext2_ino_t dir,
				    blk64_t blk, int write)
{
	errcode_t err = e2sr_wipe_check_dir(ctx, dir, write);

	if (!err)
		err = check_place(ctx, blk, 1);
	if (!err && (!ext2fs_test_block_bitmap2(ctx->fs->block_map, blk) ||
		     !e2sr_live_dir_block(ctx, dir, blk)))
		err = E2SR_ERR_WRITE_DIR;
	if (err)
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "directory %u, block %llu", dir,
			 (unsigned long long)blk);
	return err;
}

/* The table of @group, or an error if it is not where it can be. */
errcode_t e2sr_group_table(ext2_filsys fs, dgrp_t group, blk64_t *blk)
{
	if (group >= fs->group_desc_count)
		return EXT2_ET_GDESC_BAD_INODE_TABLE;
	*blk = ext2fs_inode_table_loc(fs, group);
	if (*blk < fs->super->s_first_data_block ||
	    *blk >= ext2fs_blocks_count(fs->super) ||
	    fs->inode_blocks_per_group > ext2fs_blocks_count(fs->super) - *blk)
		return EXT2_ET_GDESC_BAD_INODE_TABLE;
	return 0;
}

/*
 * Inode table blocks written wholesale (--free-inodes): inside @group's
 * table, never the journal.  @write: just before the write.
 */
errcode_t e2sr_wipe_check_itable(struct e2sr_ctx *ctx, dgrp_t group,
				 blk64_t blk, blk64_t n, int write)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err = write ? e2sr_wipe_writable(ctx) : 0;
	blk64_t table;

	if (err)
		return err;
	if (group >= fs->group_desc_count ||
	    e2sr_group_table(fs, group, &table) ||
	    blk < table || n > fs->inode_blocks_per_group ||
	    blk - table > fs->inode_blocks_per_group - n)
		return E2SR_ERR_WRITE_ITABLE;
	if (ctx->journal_blocks &&
	    !ext2fs_test_block_bitmap_range2(ctx->journal_blocks, blk, n))
		return E2SR_ERR_WRITE_JOURNAL;
	return 0;
}

/*
 * What e2sr_wipe_check() tests but the handle being e2sr_wipe_writable: for the
 * checks made on the read-only handle before the first write.
 */
errcode_t e2sr_wipe_check_free(struct e2sr_ctx *ctx, blk64_t blk,
			       blk64_t count)
{
	errcode_t err = check_place(ctx, blk, count);

	if (!err && !e2sr_range_clear(ctx->fs->block_map, blk, count))
		err = E2SR_ERR_WRITE_ALLOCATED;
	/* Free by the bitmap is not enough: no live map may have it. */
	if (!err && e2sr_live_blocks(ctx, blk, count))
		err = E2SR_ERR_WRITE_ALLOCATED;
	return err;
}

/* The same for an unwritten extent of a live file: allocated, all of it. */
errcode_t e2sr_wipe_check_unwritten(struct e2sr_ctx *ctx, blk64_t blk,
				    blk64_t count)
{
	blk64_t zero;
	errcode_t err = check_place(ctx, blk, count);

	if (!err && (!e2sr_find_first_zero(ctx->fs->block_map,
							   blk, blk + count - 1,
							   &zero) ||
		     !e2sr_live_all(ctx, blk, count)))
		err = E2SR_ERR_WRITE_UNWRITTEN;
	return err;
}

errcode_t e2sr_wipe_check(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	errcode_t err = e2sr_wipe_writable(ctx);

	if (!err)
		err = e2sr_wipe_check_free(ctx, blk, count);
	return err;
}

/*
 * A run of journal blocks may be overwritten only while the journal is
 * empty, as its superblock on disk says right now: then no transaction
 * is live and every block of the log is a stale copy.  The run must lie
 * in the log or fast-commit area, never the journal superblock, and,
 * for the internal journal, inside the journal inode's own blocks.
 */
errcode_t e2sr_wipe_journal_place(struct e2sr_ctx *ctx, __u32 jblock,
				  __u32 count)
{
	struct e2sr_journal *j = ctx->journal;
	blk64_t phys;
	__u32 i;

	if (!j || !count || jblock < j->jsb.first || jblock >= j->nblocks ||
	    count > j->nblocks - jblock)
		return E2SR_ERR_WRITE_JOURNAL;
	if (j->external)
		return 0;
	for (i = 0; i < count; i++) {
		phys = e2sr_journal_phys(j, jblock + i);
		/*
		 * The journal's map was checked against the filesystem as it
		 * was before a replay, which may have made it smaller.
		 */
		if (phys < ctx->fs->super->s_first_data_block ||
		    phys >= ext2fs_blocks_count(ctx->fs->super) ||
		    !ctx->journal_blocks ||
		    !ext2fs_test_block_bitmap2(ctx->journal_blocks, phys) ||
		    (ctx->metadata_blocks &&
		     ext2fs_test_block_bitmap2(ctx->metadata_blocks, phys)))
			return E2SR_ERR_WRITE_JOURNAL;
	}
	return 0;
}

errcode_t e2sr_wipe_journal_check(struct e2sr_ctx *ctx, __u32 jblock,
				  __u32 count)
{
	struct e2sr_journal *j = ctx->journal;
	struct e2sr_jsb jsb;
	unsigned char *buf;
	errcode_t err;

	if (!(ctx->fs->flags & EXT2_FLAG_RW) ||
	    (ctx->open_flags & E2SR_OPEN_RDONLY))
		return E2SR_ERR_READ_ONLY;
	err = e2sr_wipe_journal_place(ctx, jblock, count);
	if (err)
		return err;
	err = ext2fs_get_mem(j->blocksize, &buf);
	if (err)
		return err;
	/*
	 * The superblock as it is on disk now: an external journal's is
	 * not at journal block 0, which holds the device's ext2 superblock.
	 */
	if (j->external)
		err = io_channel_read_blk64(j->io,
				ext2fs_journal_sb_start(j->blocksize), 1, buf);
	else
		err = e2sr_journal_read(j, 0, 1, buf);
	if (!err)
		err = e2sr_jsb_parse(buf, j->blocksize, j->blocksize, &jsb);
	ext2fs_free_mem(&buf);
	if (err)
		return err;
	if (jsb.start || jsb.maxlen != j->jsb.maxlen ||
	    jsb.first != j->jsb.first)
		return E2SR_ERR_JOURNAL_LIVE;
	return 0;
}
