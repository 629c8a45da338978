/*
 * unseen.c --- blocks a file may have had between two full commits that
 * only fast commits, since written over, could name.
 *
 * Owns the answer to "which free blocks may hold bytes of a secure-delete
 * file written in transaction T, whose map no surviving copy shows", and
 * nothing else: discover.c says which transactions of which files need
 * it (and whether the fast-commit area proves them whole), plan.c wipes
 * what is marked here, free by both sources.
 *
 * Facts this rests on (fs/ext4/fast_commit.c, fs/jbd2, Linux 6.18):
 *
 *  - A fast commit logs a file's new ranges (add_range tags); the full
 *    commit of the same transaction logs the file's inode table block as
 *    it is at that commit.  Blocks a file gained and lost inside one
 *    transaction (written and fsync'ed, then truncated or unlinked before
 *    the full commit) are named by its fast commits alone.
 *  - Each transaction's fast commits are written from the start of the
 *    area again, over the last transaction's: only the newest series is
 *    whole, and older ones are gone or stale tails.
 *  - Every block allocation and every free dirties its group's block
 *    bitmap, and jbd2 logs the bitmap block in the transaction that
 *    dirtied it (a block allocated and freed in one transaction too), as
 *    it is at that transaction's commit.
 *
 *  - A block that a later transaction's copy of some record maps as
 *    written data (data=ordered writes it before that commit), or as a
 *    tree, indirect or EA block (written whole), or that a later fast
 *    commit logs as a written range, holds that owner's bytes since.
 *
 * So the blocks a file may have gained and lost inside transaction T lie
 * in the groups whose block bitmap T logged, and are free in that copy.
 * Those that are free now, and that no owner wrote after T, are marked
 * in the inventory's @unseen set: the newest T that marks a block is the
 * one that counts, so the transactions are taken newest first, and the
 * blocks written after each are added to a set as they go.  A
 * transaction whose bitmap copies cannot all be read (a tag checksum
 * failed, no commit) proves nothing, and the caller reports the file's
 * map as possibly incomplete.  A block written in the same transaction
 * as T proves nothing either: which came first is not known.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrmP.h"

/* One journal copy of a group's block bitmap. */
struct bbcopy {
	__u32		sequence;
	__u32		jblock;
	dgrp_t		group;
	__u8		escaped;
	__u8		whole;		/* verified and committed */
};

static int cmp_bbcopy(const void *a, const void *b)
{
	const struct bbcopy *x = a, *y = b;

	if (x->sequence != y->sequence)
		return x->sequence < y->sequence ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

/*
 * Every copy of every group's block bitmap in the log, by transaction:
 * one look per group at the history index, made once.
 */
static errcode_t list_copies(struct e2sr_ctx *ctx, struct e2sr_unseen *u)
{
	ext2_filsys fs = ctx->fs;
	const struct e2sr_version *v;
	size_t i, count;
	dgrp_t g;
	errcode_t err;

	u->listed = 1;
	for (g = 0; g < fs->group_desc_count; g++) {
		v = e2sr_history_versions(&ctx->history,
					  ext2fs_block_bitmap_loc(fs, g),
					  &count);
		for (i = 0; v && i < count; i++) {
			if (v[i].kind != E2SR_JK_BBITMAP)
				continue;
			err = e2sr_array_room(&u->copies, &u->alloc,
					      u->ncopies + 1,
					      sizeof(*u->copies));
			if (err)
				return err;
			u->copies[u->ncopies].sequence = v[i].sequence;
			u->copies[u->ncopies].jblock = v[i].jblock;
			u->copies[u->ncopies].group = g;
			u->copies[u->ncopies].escaped = v[i].escaped;
			u->copies[u->ncopies].whole = v[i].verified &&
						      v[i].committed;
			u->ncopies++;
		}
	}
	if (u->ncopies)
		qsort(u->copies, u->ncopies, sizeof(*u->copies), cmp_bbcopy);
	return 0;
}

/* The first copy of transaction @tid, or u->ncopies. */
static size_t first_copy(const struct e2sr_unseen *u, __u32 tid)
{
	struct bbcopy key;
	size_t lo = 0, hi = u->ncopies, mid;

	key.sequence = tid;
	key.group = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_bbcopy(&u->copies[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Mark the blocks one bitmap copy calls free that the device calls free
 * too and that no owner wrote since (@written).
 */
static errcode_t mark_copy(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			   const struct bbcopy *c, ext2fs_block_bitmap written)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_jreplay r;
	blk64_t first, blk;
	__u32 i, n;
	errcode_t err;

	memset(&r, 0, sizeof(r));
	r.jblock = c->jblock;
	r.escaped = c->escaped;
	err = e2sr_journal_copy(ctx->journal, &r, u->block);
	if (err)
		return err;
	first = ext2fs_group_first_block2(fs, c->group);
	n = ext2fs_group_last_block2(fs, c->group) - first + 1;
	if (n > fs->blocksize * 8)
		n = fs->blocksize * 8;
	for (i = 0; i < n; i++) {
		if (u->block[i >> 3] & (1 << (i & 7)))
			continue;
		blk = first + i;
		if (ext2fs_test_block_bitmap2(fs->block_map, blk) ||
		    ext2fs_test_block_bitmap2(written, blk) ||
		    e2sr_live_blocks(ctx, blk, 1))
			continue;
		if (!ext2fs_test_block_bitmap2(ctx->inv.unseen, blk)) {
			ext2fs_mark_block_bitmap2(ctx->inv.unseen, blk);
			ctx->inv.unseen_count++;
		}
	}
	return 0;
}

/*
 * Whether every block bitmap transaction @tid logged can be read, so that
 * what a file gained and lost in it can be accounted for.  A transaction
 * that logged none allocated and freed nothing.
 */
errcode_t e2sr_unseen_whole(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			    __u32 tid, int *whole)
{
	size_t i;
	errcode_t err;

	*whole = 0;
	if (!ctx->journal)
		return 0;
	if (!u->listed) {
		err = list_copies(ctx, u);
		if (err)
			return err;
	}
	*whole = 1;
	for (i = first_copy(u, tid);
	     i < u->ncopies && u->copies[i].sequence == tid; i++)
		if (!u->copies[i].whole)
			*whole = 0;
	return 0;
}

static int cmp_tid_desc(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x > y ? -1 : x < y;
}

static int cmp_owned_desc(const void *a, const void *b)
{
	const struct e2sr_owned *x = a, *y = b;

	return x->tid > y->tid ? -1 : x->tid < y->tid;
}

/*
 * Mark what files may have gained and lost inside transactions @tids
 * (any order, repeats allowed; sorted here), less what @owned (sorted
 * here too) shows written after each.
 */
errcode_t e2sr_unseen_mark(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			   __u32 *tids, size_t n, struct e2sr_owned *owned,
			   size_t nowned)
{
	ext2_filsys fs = ctx->fs;
	ext2fs_block_bitmap written = NULL;
	size_t i, k = 0, c;
	__u32 tid;
	errcode_t err;

	if (!ctx->journal || !n)
		return 0;
	if (!u->listed) {
		err = list_copies(ctx, u);
		if (err)
			return err;
	}
	err = u->block ? 0 : ext2fs_get_mem(fs->blocksize, &u->block);
	if (!err && !ctx->inv.unseen)
		err = ext2fs_allocate_block_bitmap(fs,
				"blocks gained between two full commits",
				&ctx->inv.unseen);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "blocks written since",
						   &written);
	if (err)
		goto out;
	qsort(tids, n, sizeof(*tids), cmp_tid_desc);
	if (nowned)
		qsort(owned, nowned, sizeof(*owned), cmp_owned_desc);
	for (i = 0; i < n; i++) {
		tid = tids[i];
		if (i && tids[i - 1] == tid)
			continue;
		for (; k < nowned && owned[k].tid > tid; k++)
			ext2fs_mark_block_bitmap_range2(written, owned[k].pblk,
							owned[k].len);
		for (c = first_copy(u, tid);
		     c < u->ncopies && u->copies[c].sequence == tid; c++) {
			if (!u->copies[c].whole)
				continue;
			err = mark_copy(ctx, u, &u->copies[c], written);
			if (err)
				goto out;
		}
	}
out:
	if (written)
		ext2fs_free_block_bitmap(written);
	return err;
}

static int cmp_owned_pblk(const void *a, const void *b)
{
	const struct e2sr_owned *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/*
 * Keep in the inventory, for the plan, the newest transaction each block
 * of @runs (sorted here, newest first) was written in: runs taken newest
 * first, each gives its transaction to the blocks no newer run gave one,
 * so the inventory's runs do not overlap, and are then sorted by block.
 */
errcode_t e2sr_owned_index(struct e2sr_ctx *ctx, struct e2sr_owned *runs,
			   size_t n)
{
	struct e2sr_inventory *inv = &ctx->inv;
	ext2fs_block_bitmap seen = NULL;
	blk64_t b, last, zero, set;
	size_t i, alloc = 0;
	errcode_t err;

	ext2fs_free_mem(&inv->owned);
	inv->owned_count = 0;
	if (!n)
		return 0;
	err = ext2fs_allocate_block_bitmap(ctx->fs, "blocks owned since",
					   &seen);
	if (err)
		return err;
	qsort(runs, n, sizeof(*runs), cmp_owned_desc);
	for (i = 0; i < n; i++) {
		b = runs[i].pblk;
		last = runs[i].pblk + runs[i].len - 1;
		while (b <= last) {
			if (ext2fs_find_first_zero_block_bitmap2(seen, b, last,
								 &zero))
				break;
			if (ext2fs_find_first_set_block_bitmap2(seen, zero,
								last, &set))
				set = last + 1;
			err = e2sr_array_room(&inv->owned, &alloc,
					      inv->owned_count + 1,
					      sizeof(*inv->owned));
			if (err)
				goto out;
			inv->owned[inv->owned_count].pblk = zero;
			inv->owned[inv->owned_count].len = set - zero;
			inv->owned[inv->owned_count].tid = runs[i].tid;
			inv->owned_count++;
			ext2fs_mark_block_bitmap_range2(seen, zero, set - zero);
			b = set;
		}
	}
	/* Runs of an empty range give none (glibc's qsort wants a base). */
	if (inv->owned_count)
		qsort(inv->owned, inv->owned_count, sizeof(*inv->owned),
		      cmp_owned_pblk);
out:
	ext2fs_free_block_bitmap(seen);
	return err;
}

/*
 * Whether some owner wrote @blk in a transaction after @seq (0: not
 * known, never).
 */
int e2sr_owned_after(const struct e2sr_inventory *inv, blk64_t blk,
		     __u32 seq)
{
	size_t lo = 0, hi = inv->owned_count, mid;

	if (!seq)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (inv->owned[mid].pblk + inv->owned[mid].len <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < inv->owned_count && inv->owned[lo].pblk <= blk &&
	       inv->owned[lo].tid > seq;
}

void e2sr_unseen_free(struct e2sr_unseen *u)
{
	ext2fs_free_mem(&u->copies);
	ext2fs_free_mem(&u->block);
	memset(u, 0, sizeof(*u));
}
