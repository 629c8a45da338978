/*
 * since_io.c --- the live pass of an incremental run reads the blocks
 * logged since the last run from the log, not from where they lie.
 *
 * Owns an io channel laid over the filesystem's for the length of that
 * pass (inventory_since.c pushes and pops it): a read of a block whose
 * newest copy committed since the last run is answered from that copy,
 * which the journal walk has just read; any other read goes to the
 * channel below.  After a clean unmount the disk holds each block as its
 * newest committed copy: jbd2 wrote every one back in place before it
 * cleared s_start, and ext4 writes the blocks the live pass reads (inode
 * tables, directories, extent and indirect blocks, bitmaps) only through
 * the log.  Not the superblocks and the descriptors beside them, which
 * ext4 also writes in place (ext4_commit_super()): their reads always go
 * to the disk.  Which runs may lay it (no recovery, no orphan, no trust
 * of a test) is inventory_since.c's; which copy is a block's newest is
 * since.c's.  With ring_check every block answered from the log is read
 * from the disk too, and a difference stops the run.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "find_int.h"

struct since_io {
	io_channel		inner;		/* the filesystem's channel */
	struct e2sr_ctx		*ctx;
	unsigned char		*disk;		/* ring_check: one block */
};

static struct struct_io_manager since_manager;

/*
 * Whether @blk is a superblock, a descriptor block or a reserved one
 * beside it (or the MMP block): ext4 writes those in place as well as
 * through the log, so a copy in the log says nothing of the disk.
 */
static int written_in_place(ext2_filsys fs, blk64_t blk)
{
	blk64_t super, old_desc, new_desc, first;
	blk_t used;
	dgrp_t g;

	if (blk <= fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return 1;
	if (ext2fs_has_feature_mmp(fs->super) &&
	    blk == fs->super->s_mmp_block)
		return 1;
	g = ext2fs_group_of_blk2(fs, blk);
	first = ext2fs_group_first_block2(fs, g);
	if (ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc,
				      &used))
		return 1;
	return blk < first + used;
}

/* The copy of @blk the view answers a read with, or NULL: the disk. */
static const struct e2sr_version *answer(struct e2sr_ctx *ctx, blk64_t blk)
{
	const struct e2sr_version *v;

	if (written_in_place(ctx->fs, blk))
		return NULL;
	v = e2sr_since_newest(ctx, blk);
	if (!v || !v->verified ||
	    !e2sr_coverage_readable(&ctx->coverage, v->sequence))
		return NULL;
	return v;
}

/*
 * Block @blk from its newest copy logged since, into @out (the caller's
 * buffer, read into directly: a table block the live pass reads is a
 * pread of its copy, not one and a copy more); *@got 0 when none is,
 * and @out untouched.
 */
static errcode_t from_log(struct since_io *s, blk64_t blk,
			  unsigned char *out, int *got)
{
	struct e2sr_ctx *ctx = s->ctx;
	ext2_filsys fs = ctx->fs;
	const struct e2sr_version *v;
	errcode_t err;

	*got = 0;
	v = answer(ctx, blk);
	if (!v)
		return 0;
	err = e2sr_since_read_copy(ctx, v, out);
	if (err)
		return err;
	ctx->since.from_log++;
	*got = 1;
	if (!s->disk)
		return 0;
	err = io_channel_read_blk64(s->inner, blk, 1, s->disk);
	if (err)
		return err;
	if (memcmp(s->disk, out, fs->blocksize))
		return E2SR_ERR_LOGGED_COPY_DIFFERS;
	return 0;
}

/*
 * @count blocks from @block: runs of blocks the log does not answer go
 * to the channel below in one read each, as they came.
 */
static errcode_t since_read_blk64(io_channel io, unsigned long long block,
				  int count, void *data)
{
	struct since_io *s = io->private_data;
	unsigned char *p = data;
	unsigned int bs = io->block_size;
	unsigned long long b, run = block;
	int got;
	errcode_t err;

	if (count <= 0 || bs != s->ctx->fs->blocksize)
		return io_channel_read_blk64(s->inner, block, count, data);
	for (b = block; b < block + (unsigned int)count; b++) {
		err = from_log(s, b, p + (b - block) * bs, &got);
		if (err)
			return err;
		if (!got)
			continue;
		if (b > run) {
			err = io_channel_read_blk64(s->inner, run,
						    (int)(b - run),
						    p + (run - block) * bs);
			if (err)
				return err;
		}
		run = b + 1;
	}
	if (run < block + (unsigned int)count)
		return io_channel_read_blk64(s->inner, run,
					     (int)(block + count - run),
					     p + (run - block) * bs);
	return 0;
}

static errcode_t since_read_blk(io_channel io, unsigned long block, int count,
				void *data)
{
	return since_read_blk64(io, block, count, data);
}

/* The pass only reads: a write through it is a fault, not a wipe. */
static errcode_t since_write_blk64(io_channel io EXT2FS_ATTR((unused)),
				   unsigned long long block
				   EXT2FS_ATTR((unused)),
				   int count EXT2FS_ATTR((unused)),
				   const void *data EXT2FS_ATTR((unused)))
{
	return EXT2_ET_RO_FILSYS;
}

static errcode_t since_write_blk(io_channel io, unsigned long block,
				 int count, const void *data)
{
	return since_write_blk64(io, block, count, data);
}

static errcode_t since_set_blksize(io_channel io, int blksize)
{
	struct since_io *s = io->private_data;
	errcode_t err;

	err = io_channel_set_blksize(s->inner, blksize);
	if (!err)
		io->block_size = blksize;
	return err;
}

static errcode_t since_flush(io_channel io)
{
	struct since_io *s = io->private_data;

	return io_channel_flush(s->inner);
}

/* Closed by e2sr_since_io_pop() alone: the inner channel is the fs's. */
static errcode_t since_close(io_channel io EXT2FS_ATTR((unused)))
{
	return 0;
}

static errcode_t since_set_option(io_channel io, const char *option,
				  const char *arg)
{
	struct since_io *s = io->private_data;

	if (!s->inner->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return s->inner->manager->set_option(s->inner, option, arg);
}

/* Readahead of blocks the log answers warms nothing: it is passed on. */
static errcode_t since_cache_readahead(io_channel io,
				       unsigned long long block,
				       unsigned long long count)
{
	struct since_io *s = io->private_data;

	return io_channel_cache_readahead(s->inner, block, count);
}

static errcode_t since_get_stats(io_channel io, io_stats *stats)
{
	struct since_io *s = io->private_data;

	if (!s->inner->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return s->inner->manager->get_stats(s->inner, stats);
}

static struct struct_io_manager since_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e2secrm logged-since view",
	.close		= since_close,
	.set_blksize	= since_set_blksize,
	.read_blk	= since_read_blk,
	.write_blk	= since_write_blk,
	.flush		= since_flush,
	.set_option	= since_set_option,
	.get_stats	= since_get_stats,
	.read_blk64	= since_read_blk64,
	.write_blk64	= since_write_blk64,
	.cache_readahead = since_cache_readahead,
};

/*
 * Lay the view over ctx->fs->io until e2sr_since_io_pop(): every reader
 * of the filesystem (libext2fs's extent and directory code included)
 * goes through it.
 */
errcode_t e2sr_since_io_push(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	io_channel io = NULL;
	struct since_io *s = NULL;
	errcode_t err;

	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*s), &s);
	if (!err && ctx->since.ring_check)
		err = ext2fs_get_mem(fs->blocksize, &s->disk);
	if (err)
		goto fail;
	s->inner = fs->io;
	s->ctx = ctx;
	*io = *fs->io;
	io->manager = &since_manager;
	io->refcount = 1;
	io->private_data = s;
	fs->io = io;
	return 0;
fail:
	if (s) {
		ext2fs_free_mem(&s->disk);
		ext2fs_free_mem(&s);
	}
	ext2fs_free_mem(&io);
	return err;
}

/*
 * Whether a read of @blk now goes to the disk: no view is laid, or the
 * view has no copy of it.  What a pass asks ahead (readahead.c) is what
 * it will read from the disk, never a block the log answers.
 */
int e2sr_since_io_reads_disk(struct e2sr_ctx *ctx, blk64_t blk)
{
	io_channel io = ctx->fs->io;

	if (!io || io->manager != &since_manager)
		return 1;
	return !answer(ctx, blk);
}

/*
 * Whether @blk is as the last run saw it: the view is laid (the run is
 * incremental and its proof holds: nothing but the kernel, through its
 * log, wrote the blocks the live pass reads), and no copy of @blk was
 * logged since.  Never a block ext4 also writes in place.
 */
int e2sr_since_io_unchanged(struct e2sr_ctx *ctx, blk64_t blk)
{
	io_channel io = ctx->fs->io;

	if (!io || io->manager != &since_manager ||
	    written_in_place(ctx->fs, blk))
		return 0;
	return !e2sr_since_logged(ctx, blk);
}

/* The filesystem's own channel back; a no-op when none was laid. */
void e2sr_since_io_pop(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	io_channel io = fs->io;
	struct since_io *s;

	if (!io || io->manager != &since_manager)
		return;
	s = io->private_data;
	fs->io = s->inner;
	ext2fs_free_mem(&s->disk);
	ext2fs_free_mem(&s);
	ext2fs_free_mem(&io);
}
