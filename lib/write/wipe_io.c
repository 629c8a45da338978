/*
 * wipe_io.c --- the one write path for overwriting blocks, and the
 * guards of every write.
 *
 * Every block e2secrm overwrites passes through e2sr_wipe_range(), which
 * checks the target against the filesystem's size, its own metadata, the
 * journal's extent, the block bitmap and the live set (livemap.c: what
 * the maps in use reference) immediately before it writes.  A target
 * that fails the check aborts the run before anything of it is written.
 * Contiguous runs go out in large writes.  The writers of the kinds that
 * overwrite whole blocks are here too, each taking its slice of the
 * plan's list: e2sr_wipe_runs() (freed blocks, all free space) and
 * e2sr_wipe_journal_apply() (stale journal copies, whole or in part);
 * so is the progress of the writes, by stage.
 *
 * What is rewritten rather than overwritten (a record, a directory
 * block, inode table blocks) is written through libext2fs by its kind's
 * file, so that checksums stay right; the guard each such write passes
 * just before it, and the same check made before the first write, are
 * here: e2sr_wipe_check_record(), e2sr_wipe_check_dir() and
 * e2sr_wipe_check_dir_block(), e2sr_wipe_check_itable().
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "e2secrmP.h"
#include "crc32c.h"

/* Largest single write, in bytes. */
#define WIPE_CHUNK_BYTES	E2SR_SEAL_SPAN_BYTES

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
static errcode_t writable(const struct e2sr_ctx *ctx)
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
	errcode_t err = write ? writable(ctx) : 0;

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
	errcode_t err = write ? writable(ctx) : 0;

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
	errcode_t err = write ? writable(ctx) : 0;
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
 * What e2sr_wipe_check() tests but the handle being writable: for the
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
	errcode_t err = writable(ctx);

	if (!err)
		err = e2sr_wipe_check_free(ctx, blk, count);
	return err;
}

static errcode_t fill_random(unsigned char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = getrandom(buf + done, len - done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		done += n;
	}
	return 0;
}

static errcode_t wbuf_get(struct e2sr_ctx *ctx)
{
	size_t bs = ctx->fs->blocksize;
	errcode_t err;

	if (ctx->writer.wbuf)
		return 0;
	ctx->writer.wbuf_blocks = WIPE_CHUNK_BYTES / bs;
	if (!ctx->writer.wbuf_blocks)
		ctx->writer.wbuf_blocks = 1;
	err = ext2fs_get_arrayzero(ctx->writer.wbuf_blocks, bs,
				   &ctx->writer.wbuf);
	if (!err && ctx->opts.skip_zero)
		err = ext2fs_get_array(ctx->writer.wbuf_blocks, bs,
				       &ctx->writer.rbuf);
	return err;
}

/*
 * BLKSECDISCARD, on the filesystem's own block device only: the channel
 * keeps its descriptor private, so one of ours, opened once.
 */
static int secdiscard(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
		      blk64_t n)
{
	__u64 range[2];
	struct stat st;

	if (io != ctx->fs->io && (!ctx->journal || ctx->journal->external))
		return -1;
	if (ctx->writer.sec_fd < 0)
		return -1;
	if (!ctx->writer.sec_fd) {
		ctx->writer.sec_fd = -1;
		if (stat(ctx->device, &st) || !S_ISBLK(st.st_mode))
			return -1;
		ctx->writer.sec_fd = open(ctx->device, O_RDWR | O_CLOEXEC);
		if (ctx->writer.sec_fd < 0)
			return -1;
	}
	range[0] = blk * ctx->fs->blocksize;
	range[1] = n * ctx->fs->blocksize;
	return ioctl(ctx->writer.sec_fd, BLKSECDISCARD, range);
}

/*
 * --skip-zero: read the run and write zeros only over the blocks that
 * are not zeros already, as zerofree does, so that a thin-provisioned
 * or sparse target does not have its unallocated space filled in.
 */
static errcode_t put_zeros_sparse(struct e2sr_ctx *ctx, io_channel io,
				  blk64_t blk, blk64_t n)
{
	size_t bs = ctx->fs->blocksize;
	blk64_t b, e;
	errcode_t err;

	err = io_channel_read_blk64(io, blk, n, ctx->writer.rbuf);
	if (err)
		return err;
	for (b = 0; b < n; b = e) {
		if (e2sr_all_zero(ctx->writer.rbuf + b * bs, bs)) {
			ctx->stats.zero_skipped++;
			e = b + 1;
			continue;
		}
		for (e = b + 1; e < n && !e2sr_all_zero(ctx->writer.rbuf + e * bs, bs);
		     e++)
			;
		ctx->stats.write_calls++;
		err = io_channel_write_blk64(io, blk + b, e - b, ctx->writer.wbuf);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Put one run out by the method asked for.  Discard is used only where
 * the channel says discarded blocks read back as zeros (a hole punched
 * in an image file, a device that promises it); elsewhere the device is
 * asked to zero the range, and failing that zeros are written.  Either
 * way the blocks read back as zeros afterwards.
 */
static errcode_t put_run(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
			 blk64_t n)
{
	size_t bs = ctx->fs->blocksize;
	errcode_t err;

	switch (ctx->opts.method) {
	case E2SR_METHOD_RANDOM:
		/* Fresh bytes for every write, never a reused buffer. */
		err = fill_random(ctx->writer.wbuf, n * bs);
		if (!err)
			err = e2sr_verify_note(ctx, io, blk, n, ctx->writer.wbuf);
		if (err)
			return err;
		break;
	case E2SR_METHOD_SECDISCARD:
		if (secdiscard(ctx, io, blk, n))
			ctx->stats.secdiscard_fallback++;
		/* A secure discard promises erasure, not zeros: go on. */
		/* fall through */
	case E2SR_METHOD_DISCARD:
		if (io_channel_discard_zeroes_data(io)) {
			err = io_channel_discard(io, blk, n);
			if (!err) {
				ctx->stats.discarded += n;
				return 0;
			}
		}
		err = io_channel_zeroout(io, blk, n);
		if (!err) {
			ctx->stats.zeroed_out += n;
			return 0;
		}
		ctx->stats.discard_fallback++;
		break;
	default:
		if (ctx->opts.skip_zero)
			return put_zeros_sparse(ctx, io, blk, n);
		break;
	}
	ctx->stats.write_calls++;
	return io_channel_write_blk64(io, blk, n, ctx->writer.wbuf);
}

errcode_t e2sr_wipe_range(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err;
	blk64_t n;

	err = e2sr_wipe_check(ctx, blk, count);
	if (err)
		return err;
	err = wbuf_get(ctx);
	if (err)
		return err;
	while (count) {
		n = count < ctx->writer.wbuf_blocks ? count : ctx->writer.wbuf_blocks;
		err = put_run(ctx, fs->io, blk, n);
		if (err)
			return err;
		blk += n;
		count -= n;
	}
	if (ctx->opts.method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * fs->blocksize);
	return 0;
}

/*
 * The progress of the writes is by stage: execute.c says which stage the
 * next actions count in and what the stage counts to; the writers say
 * how much of it they have just written.
 */
void e2sr_wipe_stage(struct e2sr_ctx *ctx, enum e2sr_stage stage,
		     blk64_t total)
{
	if (ctx->writer.stage == stage)
		return;
	ctx->writer.stage = stage;
	ctx->writer.stage_done = 0;
	ctx->writer.stage_total = total;
}

void e2sr_wipe_advance(struct e2sr_ctx *ctx, blk64_t n)
{
	ctx->writer.stage_done += n;
	e2sr_progress(ctx, ctx->writer.stage, ctx->writer.stage_done,
		      ctx->writer.stage_total);
}

/*
 * Runs of free blocks, as the actions @a[0..n) of one kind say: each
 * checked and written in large writes, stopping between two writes when
 * the user cancels; the blocks are counted as the kind's.
 */
errcode_t e2sr_wipe_runs(struct e2sr_ctx *ctx, const struct e2sr_action *a,
			 size_t n)
{
	blk64_t blk, end, len;
	errcode_t err;
	size_t i;

	err = wbuf_get(ctx);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		end = a[i].blk + a[i].count;
		for (blk = a[i].blk; blk < end; blk += len) {
			if (e2sr_cancelled(ctx))
				return E2SR_ERR_CANCELLED;
			len = end - blk;
			if (len > ctx->writer.wbuf_blocks)
				len = ctx->writer.wbuf_blocks;
			err = e2sr_wipe_range(ctx, blk, len);
			if (err)
				return err;
			ctx->stats.wiped[a[i].kind][0] += len;
			e2sr_wipe_advance(ctx, len);
		}
		e2sr_action_done(ctx, &a[i]);
	}
	return 0;
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

/* A planned journal block (or part) as an action of the plan. */
void e2sr_journal_action(const struct e2sr_jplan *jp, struct e2sr_action *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = E2SR_KIND_JOURNAL;
	a->why = E2SR_WHY_JOURNAL + jp->why;
	a->owner = jp->ino;
	a->blk = jp->jblock;
	a->count = 1;
	a->off = jp->off;
	a->len = jp->len;
	a->crc = jp->crc_before;
	a->jstage = jp->stage;
}

static int is_descriptor(const struct e2sr_action *a)
{
	return a->why == E2SR_WHY_JOURNAL + E2SR_JWHY_DESC;
}

/*
 * Copies shared with other files' residue, in blocks that follow each
 * other in the log and on the device, up to @max: how many actions of
 * @a[0..n) their parts take, and in *@blocks how many blocks.
 */
static size_t parts_run(const struct e2sr_journal *j,
			const struct e2sr_action *a, size_t n, size_t max,
			size_t *blocks)
{
	blk64_t phys = e2sr_journal_phys(j, a->blk);
	size_t i = 0, k = 0;

	while (i < n && a[i].len && k < max && a[i].blk == a->blk + k &&
	       e2sr_journal_phys(j, a[i].blk) == phys + k) {
		for (i++; i < n && a[i].len && a[i].blk == a[i - 1].blk; i++)
			;
		k++;
	}
	*blocks = k;
	return i;
}

/*
 * Shared copies, @a[0..n) their parts, @nblocks blocks one after the
 * other (parts_run()).  Every block must read as it did when it was
 * planned, or nothing of the run is written; then only the parts are
 * zeroed, whatever the method, so that the rest of each copy stays as
 * readable as it was.  One read and one write for the run: on a log of
 * directory copies most of its blocks are shared.
 */
static errcode_t journal_parts(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n,
			       size_t nblocks, unsigned char *buf)
{
	struct e2sr_journal *j = ctx->journal;
	unsigned int bs = j->blocksize;
	unsigned char *b;
	blk64_t phys;
	errcode_t err;
	size_t i;

	err = e2sr_wipe_journal_check(ctx, a->blk, nblocks);
	if (err)
		return err;
	phys = e2sr_journal_phys(j, a->blk);
	err = io_channel_read_blk64(j->io, phys, nblocks, buf);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		b = buf + (size_t)(a[i].blk - a->blk) * bs;
		if ((!i || a[i].blk != a[i - 1].blk) &&
		    e2sr_crc32c_le(~0U, b, bs) != a[i].crc)
			return E2SR_ERR_CHANGED;
		if (a[i].off > bs || a[i].len > bs - a[i].off)
			return E2SR_ERR_CHANGED;
	}
	for (i = 0; i < n; i++)
		memset(buf + (size_t)(a[i].blk - a->blk) * bs + a[i].off, 0,
		       a[i].len);
	ctx->stats.write_calls++;
	err = io_channel_write_blk64(j->io, phys, nblocks, buf);
	j->win_count = 0;	/* the window held what is gone */
	return err;
}

/*
 * How many of @a[0..n), whole blocks of one class (descriptors or not),
 * go out in one write: journal blocks that follow each other in the log
 * and on the device, up to @max.
 */
static size_t journal_run(const struct e2sr_journal *j,
			  const struct e2sr_action *a, size_t n, size_t max)
{
	blk64_t phys = e2sr_journal_phys(j, a->blk);
	size_t i;

	for (i = 1; i < n && i < max && !a[i].len &&
	     is_descriptor(&a[i]) == is_descriptor(a) &&
	     a[i].blk == a->blk + i &&
	     e2sr_journal_phys(j, a[i].blk) == phys + i; i++)
		;
	return i;
}

/*
 * Whole copies are zeroed whatever the method, as parts are: their
 * descriptors stay (plan_journal_settle.c), and a copy of zeros attributed to a
 * block holds nothing, where random bytes would read as records or
 * entries.  Only when the whole log goes (--all-journal), descriptors
 * included, does the method apply.
 */
static errcode_t journal_whole(struct e2sr_ctx *ctx, blk64_t phys,
			       blk64_t n)
{
	enum e2sr_method method = ctx->opts.method;
	errcode_t err;

	if (ctx->plan.sanitize & E2SR_FREE_JOURNAL)
		return put_run(ctx, ctx->journal->io, phys, n);
	if (method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0,
		       ctx->writer.wbuf_blocks * ctx->fs->blocksize);
	if (method != E2SR_METHOD_DISCARD &&
	    method != E2SR_METHOD_SECDISCARD)
		ctx->opts.method = E2SR_METHOD_ZERO;
	err = put_run(ctx, ctx->journal->io, phys, n);
	ctx->opts.method = method;
	return err;
}

static int cmp_seal_desc(const void *key, const void *elem)
{
	const struct e2sr_seal *k = key, *x = elem;

	if (k->desc != x->desc)
		return k->desc < x->desc ? -1 : 1;
	return k->stage < x->stage ? -1 : k->stage > x->stage;
}

static int cmp_jplan_block(const void *key, const void *elem)
{
	__u32 jb = *(const __u32 *)key;
	const struct e2sr_jplan *x = elem;

	return jb < x->jblock ? -1 : jb > x->jblock;
}

/*
 * The plan's entry for descriptor action @a (one per stage it is sealed
 * at: the one it must read as), its seals [*lo, *hi), and whether it is
 * the descriptor's last stage (the plan counts the block there).
 */
static const struct e2sr_jplan *seal_of(const struct e2sr_plan *plan,
					const struct e2sr_action *a,
					size_t *lo, size_t *hi, int *last)
{
	struct e2sr_seal key;
	__u32 desc = (__u32)a->blk;
	size_t i, first;

	first = e2sr_lower_bound(plan->journal, plan->journal_count,
				 sizeof(*plan->journal), &desc,
				 cmp_jplan_block);
	for (i = first; i < plan->journal_count &&
	     plan->journal[i].jblock == desc; i++) {
		if (plan->journal[i].why != E2SR_JWHY_DESC ||
		    plan->journal[i].crc_before != a->crc)
			continue;
		key.desc = desc;
		key.stage = plan->journal[i].stage;
		*lo = e2sr_lower_bound(plan->seals, plan->seal_count,
				       sizeof(*plan->seals), &key,
				       cmp_seal_desc);
		for (*hi = *lo; *hi < plan->seal_count &&
		     !cmp_seal_desc(&key, &plan->seals[*hi]); (*hi)++)
			;
		*last = i == first;
		return *hi > *lo ? &plan->journal[i] : NULL;
	}
	return NULL;
}

/* The parts of one copy, @a[0..n), applied to its bytes @b. */
static errcode_t copy_parts(const struct e2sr_action *a, size_t n,
			    unsigned char *b, unsigned int bs)
{
	size_t i;

	if (!a->len) {
		memset(b, 0, bs);	/* whole: zeros (journal_whole()) */
		return 0;
	}
	if (e2sr_crc32c_le(~0U, b, bs) != a->crc)
		return E2SR_ERR_CHANGED;
	for (i = 0; i < n; i++) {
		if (a[i].off > bs || a[i].len > bs - a[i].off)
			return E2SR_ERR_CHANGED;
		memset(b + a[i].off, 0, a[i].len);
	}
	return 0;
}

/*
 * A transaction sealed again: its descriptor's action, @a[0], then its
 * copies' (kinds.c's order), up to where they end, returned in *@used,
 * and the log blocks written in *@blocks.  The descriptor and its copies
 * lie one after the other in the log and on the device (the plan seals
 * no other): they are read, rewritten and written back in one piece, so
 * that a run cut anywhere leaves each transaction as it was or as it is
 * meant to be, its tags matching its copies either way.
 */
static errcode_t journal_sealed(struct e2sr_ctx *ctx,
				const struct e2sr_action *a, size_t n,
				size_t max, unsigned char *buf, size_t *used,
				size_t *blocks)
{
	const struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_journal *j = ctx->journal;
	unsigned int bs = j->blocksize;
	__u32 desc = (__u32)a->blk, last = desc;
	blk64_t phys = e2sr_journal_phys(j, desc);
	const struct e2sr_jplan *jp;
	size_t lo, hi, s, k = 1, c, span, i;
	int whole = 1, last_stage;
	errcode_t err;

	jp = seal_of(plan, a, &lo, &hi, &last_stage);
	if (!jp)
		return E2SR_ERR_CHANGED;
	for (s = lo; s < hi; s++) {
		if (plan->seals[s].jblock <= last)
			whole = 0;	/* the log wraps inside it */
		last = plan->seals[s].jblock;
		while (k < n && a[k].blk == last)
			k++;
	}
	*used = k;
	*blocks = (hi - lo) + !!last_stage;	/* what the plan counts */
	span = (size_t)(last - desc) + 1;
	if (whole && span <= max)
		for (i = 1; i < span; i++)
			if (e2sr_journal_phys(j, desc + i) != phys + i)
				whole = 0;
	/* The plan sealed only what lies together (seal_reach()). */
	if (!whole || span > max) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "journal block %u: a sealed transaction is not in "
			 "one piece", desc);
		return E2SR_ERR_CHANGED;
	}
	err = e2sr_wipe_journal_check(ctx, desc, span);
	if (!err)
		err = io_channel_read_blk64(j->io, phys, span, buf);
	if (err)
		return err;
	if (e2sr_crc32c_le(~0U, buf, bs) != a->crc)
		return E2SR_ERR_CHANGED;
	err = e2sr_seal_image(&j->jsb, plan->seals + lo, hi - lo, buf);
	if (err)
		return err;
	if (e2sr_crc32c_le(~0U, buf, bs) != jp->crc_after)
		return E2SR_ERR_CHANGED;
	for (i = 1; i < k; i = c) {
		for (c = i + 1; c < k && a[c].blk == a[i].blk; c++)
			;
		err = copy_parts(a + i, c - i,
				 buf + (size_t)(a[i].blk - desc) * bs, bs);
		if (err)
			return err;
	}
	ctx->stats.write_calls++;
	return io_channel_write_blk64(j->io, phys, span, buf);
}

/*
 * Overwrite the planned journal blocks, @a[0..n), in the plan's order:
 * the shared copies in part, the others whole in physically contiguous
 * runs, then the descriptors, sealed again, once what they describe is
 * on disk.  Each class is flushed before the next.
 */
errcode_t e2sr_wipe_journal_apply(struct e2sr_ctx *ctx,
				  const struct e2sr_action *a, size_t n)
{
	struct e2sr_journal *j = ctx->journal;
	unsigned char *buf = NULL;
	size_t i, end, max, k, blocks;
	blk64_t *done = &ctx->stats.wiped[E2SR_KIND_JOURNAL][0];
	errcode_t err;

	if (!j)
		return n ? E2SR_ERR_WRITE_JOURNAL : 0;
	err = wbuf_get(ctx);
	max = WIPE_CHUNK_BYTES / j->blocksize;
	if (!max || max > ctx->writer.wbuf_blocks)
		max = ctx->writer.wbuf_blocks;
	if (!err)
		err = ext2fs_get_array(max, j->blocksize, &buf);
	for (i = 0; !err && i < n; i = end) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		/* A class ends: what it wrote goes out before the next. */
		if (i && (!a[i].len != !a[i - 1].len ||
			  is_descriptor(&a[i]) != is_descriptor(&a[i - 1]))) {
			err = io_channel_flush(j->io);
			if (err)
				break;
		}
		if (a[i].len) {
			end = i + parts_run(j, a + i, n - i, max, &blocks);
			err = journal_parts(ctx, a + i, end - i, blocks, buf);
			if (err)
				break;
			*done += blocks;
		} else if (is_descriptor(&a[i])) {
			err = journal_sealed(ctx, a + i, n - i, max, buf,
					     &k, &blocks);
			if (err)
				break;
			end = i + k;
			j->win_count = 0;	/* the window held what is gone */
			*done += blocks;
		} else {
			end = i + journal_run(j, a + i, n - i, max);
			err = e2sr_wipe_journal_check(ctx, a[i].blk, end - i);
			if (!err)
				err = journal_whole(ctx,
					e2sr_journal_phys(j, a[i].blk), end - i);
			if (err)
				break;
			j->win_count = 0;	/* the window held what is gone */
			*done += end - i;
		}
		for (k = i; k < end; k++)
			e2sr_action_done(ctx, &a[k]);
		e2sr_wipe_advance(ctx, end - i);
	}
	ext2fs_free_mem(&buf);
	if (ctx->opts.method == E2SR_METHOD_RANDOM)
		memset(ctx->writer.wbuf, 0,
		       ctx->writer.wbuf_blocks * ctx->fs->blocksize);
	if (!err)
		err = io_channel_flush(j->io);
	return err;
}

/*
 * The blocks of an unwritten extent of a live file (unwritten.c has just
 * found it in the file's tree again): allocated by both sources, the
 * bitmap and the live set, and never the filesystem's own metadata or
 * the journal.  Zeros, whatever the method: the file reads zeros there,
 * and zeros on disk are how the next run knows the range is done.
 */
errcode_t e2sr_wipe_unwritten_range(struct e2sr_ctx *ctx, blk64_t blk,
				    blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	enum e2sr_method method = ctx->opts.method;
	blk64_t n;
	errcode_t err;

	err = writable(ctx);
	if (!err)
		err = e2sr_wipe_check_unwritten(ctx, blk, count);
	if (err)
		return err;
	err = wbuf_get(ctx);
	if (err)
		return err;
	if (method == E2SR_METHOD_RANDOM) {
		memset(ctx->writer.wbuf, 0, ctx->writer.wbuf_blocks * fs->blocksize);
		ctx->opts.method = E2SR_METHOD_ZERO;
	}
	while (!err && count) {
		n = count < ctx->writer.wbuf_blocks ? count : ctx->writer.wbuf_blocks;
		err = put_run(ctx, fs->io, blk, n);
		blk += n;
		count -= n;
	}
	ctx->opts.method = method;
	return err;
}
