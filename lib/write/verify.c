/*
 * verify.c --- reading back what a run wrote (and, for --audit, what a
 * run would write: execute.c's e2sr_audit()).
 *
 * Owns --verify: after the run, with the channels' caches off, every
 * block the plan wiped is read again from the device and must read as
 * zeros or, with -m random, as the bytes written (compared by a crc32c
 * of each run, kept when it was written).  Directory names and inode
 * records are checked by the stages that rewrote them through libext2fs
 * (execute.c calls them after this).  Each block that does not read back
 * as it should is counted in stats.verify_bad; execute makes the count
 * an error once every check has run.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "write_int.h"

/* With -m random: remember what one run put out. */
errcode_t e2sr_verify_note(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
			   blk64_t n, const void *buf)
{
	struct e2sr_written *w;

	if (!ctx->opts.verify || ctx->opts.method != E2SR_METHOD_RANDOM)
		return 0;
	if (ctx->writer.written_count == ctx->writer.written_alloc &&
	    e2sr_array_room(&ctx->writer.written, &ctx->writer.written_alloc,
			    ctx->writer.written_count + 1, sizeof(*ctx->writer.written)))
		return EXT2_ET_NO_MEMORY;
	w = &ctx->writer.written[ctx->writer.written_count++];
	w->io = io;
	w->blk = blk;
	w->count = n;
	w->crc = ext2fs_crc32c_le(~0U, buf, n * ctx->fs->blocksize);
	return 0;
}

/* @n places of kind @k read (blocks, or names and records). */
void e2sr_verify_read(struct e2sr_ctx *ctx, int k, blk64_t n)
{
	ctx->stats.checked[k] += n;
	ctx->stats.verified += n;
}

/* One place of kind @k (block @blk, or 0) that still holds residue. */
void e2sr_verify_bad(struct e2sr_ctx *ctx, int k, blk64_t blk)
{
	struct e2sr_stats *st = &ctx->stats;

	if (st->unwiped[k] < E2SR_SHOW_FIRST)
		st->first_unwiped[k][st->unwiped[k]] = blk;
	st->unwiped[k]++;
	st->verify_bad++;
	if (!st->verify_first_bad)
		st->verify_first_bad = blk;
}

/* Read [blk, blk + n) of @io in chunks; each block must be zeros. */
static errcode_t check_zero(struct e2sr_ctx *ctx, int kind, io_channel io,
			    blk64_t blk, blk64_t n, unsigned char *buf,
			    size_t chunk)
{
	size_t bs = ctx->fs->blocksize;
	blk64_t k, b;
	errcode_t err;

	while (n) {
		k = n < chunk ? n : chunk;
		err = io_channel_read_blk64(io, blk, k, buf);
		if (err)
			return err;
		if (!e2sr_all_zero(buf, k * bs))
			for (b = 0; b < k; b++)
				if (!e2sr_all_zero(buf + b * bs, bs))
					e2sr_verify_bad(ctx, kind, blk + b);
		e2sr_verify_read(ctx, kind, k);
		blk += k;
		n -= k;
	}
	return 0;
}

/* Every run of @map's set blocks (or, for --all-free, clear ones). */
static errcode_t check_runs(struct e2sr_ctx *ctx, int kind,
			    ext2fs_block_bitmap map, int set,
			    unsigned char *buf, size_t chunk)
{
	ext2_filsys fs = ctx->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t start = fs->super->s_first_data_block, end;
	errcode_t err;

	while (e2sr_next_run(map, set, &start, last, &end)) {
		err = check_zero(ctx, kind, fs->io, start, end - start, buf,
				 chunk);
		if (err)
			return err;
		start = end;
	}
	return 0;
}

/*
 * Newest run first: a run that a later one overwrote in part (--all-free
 * goes over the freed blocks again) is vouched for by that later run.
 */
static errcode_t check_random(struct e2sr_ctx *ctx)
{
	size_t bs = ctx->fs->blocksize, i, max = 1;
	ext2fs_block_bitmap later;
	unsigned char *buf;
	errcode_t err;

	for (i = 0; i < ctx->writer.written_count; i++)
		if (ctx->writer.written[i].count > max)
			max = ctx->writer.written[i].count;
	err = ext2fs_allocate_block_bitmap(ctx->fs, "verified", &later);
	if (err)
		return err;
	err = ext2fs_get_array(max, bs, &buf);
	if (err) {
		ext2fs_free_block_bitmap(later);
		return err;
	}
	for (i = ctx->writer.written_count; i-- > 0;) {
		const struct e2sr_written *w = &ctx->writer.written[i];

		if (w->io == ctx->fs->io) {
			if (!ext2fs_test_block_bitmap_range2(later, w->blk,
							     w->count))
				continue;
			ext2fs_mark_block_bitmap_range2(later, w->blk,
							w->count);
		}
		err = io_channel_read_blk64(w->io, w->blk, w->count, buf);
		if (err)
			break;
		/* Random bytes go to freed blocks of any of these kinds. */
		if (ext2fs_crc32c_le(~0U, buf, w->count * bs) != w->crc)
			e2sr_verify_bad(ctx, E2SR_KIND_DATA, w->blk);
		e2sr_verify_read(ctx, E2SR_KIND_DATA, w->count);
	}
	ext2fs_free_mem(&buf);
	ext2fs_free_block_bitmap(later);
	return err;
}

/* Unwritten extents: zeroed whatever the method. */
static errcode_t verify_unwritten(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	size_t chunk = 256, i;
	unsigned char *buf;
	errcode_t err = 0;

	if (!plan->unwritten_runs)
		return 0;
	err = ext2fs_get_array(chunk, ctx->fs->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; !err && i < plan->unwritten_runs; i++)
		err = check_zero(ctx, E2SR_KIND_UNWRITTEN, ctx->fs->io,
				 plan->unwritten[i].pblk, plan->unwritten[i].len,
				 buf, chunk);
	ext2fs_free_mem(&buf);
	return err;
}

errcode_t e2sr_verify(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct e2sr_journal *j = ctx->journal;
	size_t chunk = 256, i;
	unsigned char *buf;
	errcode_t err;

	/* Read the device, not what the channels remember writing. */
	io_channel_set_options(ctx->fs->io, "cache=off");
	if (j)
		io_channel_set_options(j->io, "cache=off");
	err = ext2fs_get_array(chunk, ctx->fs->blocksize, &buf);
	if (err)
		return err;
	if (ctx->opts.method == E2SR_METHOD_RANDOM && ctx->writer.written) {
		err = check_random(ctx);
	} else if (ctx->opts.method == E2SR_METHOD_RANDOM) {
		/* An audit cannot tell random bytes from residue. */
		ctx->stats.audit_random = plan->data_count ||
					  plan->meta_count || plan->free_all;
	} else {
		err = check_runs(ctx, E2SR_KIND_DATA, plan->data_blocks, 1,
				 buf, chunk);
		if (!err)
			err = check_runs(ctx, E2SR_KIND_META, plan->meta_blocks,
					 1, buf, chunk);
		if (!err && plan->free_all)
			err = check_runs(ctx, E2SR_KIND_ALL_FREE,
					 ctx->fs->block_map, 0, buf, chunk);
	}
	/* Whole copies: zeros, unless the whole log went by the method. */
	for (i = 0; !err && j && i < plan->journal_count; i++) {
		if (plan->journal[i].len ||
		    plan->journal[i].why == E2SR_JWHY_DESC ||
		    (ctx->opts.method == E2SR_METHOD_RANDOM &&
		     (plan->sanitize & E2SR_FREE_JOURNAL)))
			continue;
		err = check_zero(ctx, E2SR_KIND_JOURNAL, j->io,
				 e2sr_journal_phys(j, plan->journal[i].jblock),
				 1, buf, chunk);
	}
	/*
	 * Copies written in part, and descriptors sealed again: as
	 * planned, whatever the method.
	 */
	for (i = 0; !err && j && i < plan->journal_count; i++) {
		if ((!plan->journal[i].len &&
		     plan->journal[i].why != E2SR_JWHY_DESC) ||
		    (i && plan->journal[i - 1].jblock ==
		     plan->journal[i].jblock))
			continue;
		err = io_channel_read_blk64(j->io,
				e2sr_journal_phys(j, plan->journal[i].jblock),
				1, buf);
		if (err)
			break;
		if (e2sr_crc32c_le(~0U, buf, j->blocksize) !=
		    plan->journal[i].crc_after)
			e2sr_verify_bad(ctx, E2SR_KIND_JOURNAL,
					plan->journal[i].jblock);
		e2sr_verify_read(ctx, E2SR_KIND_JOURNAL, 1);
	}
	ext2fs_free_mem(&buf);
	if (!err)
		err = verify_unwritten(ctx);
	return err;
}
