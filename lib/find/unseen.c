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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"

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

/* The first run of the index that ends after @blk (inv->owned_count: none). */
static size_t owned_from(const struct e2sr_inventory *inv, blk64_t blk)
{
	size_t lo = 0, hi = inv->owned_count, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (inv->owned[mid].pblk + inv->owned[mid].len <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Mark the blocks one bitmap copy calls free that the device calls free
 * too and that no owner wrote after the copy's transaction (the index of
 * e2sr_owned_index(), walked beside the group's blocks).
 */
static errcode_t mark_copy(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			   const struct bbcopy *c)
{
	ext2_filsys fs = ctx->fs;
	const struct e2sr_inventory *inv = &ctx->inv;
	struct e2sr_jreplay r;
	blk64_t first, blk;
	size_t k;
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
	k = owned_from(inv, first);
	for (i = 0; i < n; i++) {
		if (u->block[i >> 3] & (1 << (i & 7)))
			continue;
		blk = first + i;
		while (k < inv->owned_count &&
		       inv->owned[k].pblk + inv->owned[k].len <= blk)
			k++;
		if (k < inv->owned_count && inv->owned[k].pblk <= blk &&
		    inv->owned[k].tid > c->sequence)
			continue;	/* written since */
		if (ext2fs_test_block_bitmap2(fs->block_map, blk) ||
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

/*
 * Mark what files may have gained and lost inside transactions @tids
 * (any order, repeats allowed; sorted here), less what the owned index
 * (e2sr_owned_index(), made first) shows written after each.
 */
errcode_t e2sr_unseen_mark(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			   __u32 *tids, size_t n)
{
	ext2_filsys fs = ctx->fs;
	size_t i, c;
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
	if (err)
		return err;
	qsort(tids, n, sizeof(*tids), cmp_tid_desc);
	for (i = 0; i < n; i++) {
		tid = tids[i];
		if (i && tids[i - 1] == tid)
			continue;
		for (c = first_copy(u, tid);
		     c < u->ncopies && u->copies[c].sequence == tid; c++) {
			if (!u->copies[c].whole)
				continue;
			err = mark_copy(ctx, u, &u->copies[c]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Runs by first block, in place (glibc's qsort copies the whole array). */
static int owned_lt(const struct e2sr_owned *x, const struct e2sr_owned *y)
{
	return x->pblk < y->pblk || (x->pblk == y->pblk && x->len < y->len);
}

static void owned_swap(struct e2sr_owned *x, struct e2sr_owned *y)
{
	struct e2sr_owned t = *x;

	*x = *y;
	*y = t;
}

static void owned_sift(struct e2sr_owned *v, size_t i, size_t n)
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && owned_lt(&v[c], &v[c + 1]))
			c++;
		if (!owned_lt(&v[i], &v[c]))
			return;
		owned_swap(&v[i], &v[c]);
		i = c;
	}
}

/*
 * Quicksort, the median of three as pivot, the smaller side first; a heap
 * sort once the depth says the pivots are bad (a log can be made so).
 */
static void owned_sort(struct e2sr_owned *v, size_t n, unsigned int depth)
{
	struct e2sr_owned p;
	size_t i, j, m;

	while (n > 16) {
		if (!depth--) {
			for (i = n / 2; i-- > 0;)
				owned_sift(v, i, n);
			for (i = n - 1; i > 0; i--) {
				owned_swap(&v[0], &v[i]);
				owned_sift(v, 0, i);
			}
			return;
		}
		m = n / 2;
		if (owned_lt(&v[m], &v[0]))
			owned_swap(&v[m], &v[0]);
		if (owned_lt(&v[n - 1], &v[0]))
			owned_swap(&v[n - 1], &v[0]);
		if (owned_lt(&v[n - 1], &v[m]))
			owned_swap(&v[n - 1], &v[m]);
		p = v[m];
		i = 0;
		j = n - 1;
		for (;;) {
			while (owned_lt(&v[i], &p))
				i++;
			while (owned_lt(&p, &v[j]))
				j--;
			if (i >= j)
				break;
			owned_swap(&v[i++], &v[j--]);
		}
		/* [0, j] and [j + 1, n): recurse into the smaller. */
		if (j + 1 < n - j - 1) {
			owned_sort(v, j + 1, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			owned_sort(v + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		p = v[i];
		for (j = i; j > 0 && owned_lt(&p, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = p;
	}
}

/* The runs over the place the sweep is at, the newest on top. */
struct owned_heap {
	struct e2sr_owned	*v;	/* pblk here: where the run ends */
	size_t			n;
	size_t			alloc;
};

static errcode_t heap_push(struct owned_heap *h, blk64_t end, __u32 tid)
{
	size_t i, up;
	errcode_t err;

	err = e2sr_array_room(&h->v, &h->alloc, h->n + 1, sizeof(*h->v));
	if (err)
		return err;
	for (i = h->n++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (h->v[up].tid >= tid)
			break;
		h->v[i] = h->v[up];
	}
	h->v[i].pblk = end;
	h->v[i].tid = tid;
	return 0;
}

static void heap_pop(struct owned_heap *h)
{
	struct e2sr_owned last = h->v[--h->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->v[c + 1].tid > h->v[c].tid)
			c++;
		if (last.tid >= h->v[c].tid)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

/* One piece of the index: joined to the last when it goes on from it. */
static errcode_t index_piece(struct e2sr_inventory *inv, size_t *alloc,
			     blk64_t pblk, blk64_t end, __u32 tid)
{
	struct e2sr_owned *last;
	errcode_t err;

	last = inv->owned_count ? &inv->owned[inv->owned_count - 1] : NULL;
	if (last && last->tid == tid && last->pblk + last->len == pblk &&
	    end - last->pblk <= UINT32_MAX) {
		last->len = end - last->pblk;
		return 0;
	}
	err = e2sr_array_room(&inv->owned, alloc, inv->owned_count + 1,
			      sizeof(*inv->owned));
	if (err)
		return err;
	inv->owned[inv->owned_count].pblk = pblk;
	inv->owned[inv->owned_count].len = end - pblk;
	inv->owned[inv->owned_count].tid = tid;
	inv->owned_count++;
	return 0;
}

/*
 * Keep in the inventory, for the plan and for e2sr_unseen_mark(), the
 * newest transaction each block of @runs (sorted here, by block) was
 * written in: one sweep over the blocks, the runs over the place it is
 * at in a heap by transaction, a piece given where the newest changes.
 * The pieces do not overlap and are in block order.
 */
errcode_t e2sr_owned_index(struct e2sr_ctx *ctx, struct e2sr_owned *runs,
			   size_t n)
{
	struct e2sr_inventory *inv = &ctx->inv;
	struct owned_heap h;
	blk64_t at = 0, next, end;
	size_t i = 0, alloc = 0;
	unsigned int depth = 0;
	errcode_t err = 0;

	ext2fs_free_mem(&inv->owned);
	inv->owned_count = 0;
	if (!n)
		return 0;
	for (i = n; i; i >>= 1)
		depth += 2;
	owned_sort(runs, n, depth);
	memset(&h, 0, sizeof(h));
	i = 0;
	while (i < n || h.n) {
		while (h.n && h.v[0].pblk <= at)
			heap_pop(&h);	/* ended */
		if (!h.n) {
			if (i >= n)
				break;
			at = runs[i].pblk;
		}
		for (; i < n && runs[i].pblk == at; i++) {
			err = heap_push(&h, at + runs[i].len, runs[i].tid);
			if (err)
				goto out;
		}
		while (h.n && h.v[0].pblk <= at)
			heap_pop(&h);
		if (!h.n)
			continue;
		next = i < n ? runs[i].pblk : h.v[0].pblk;
		end = h.v[0].pblk < next ? h.v[0].pblk : next;
		err = index_piece(inv, &alloc, at, end, h.v[0].tid);
		if (err)
			goto out;
		at = end;
	}
	e2sr_array_trim(&inv->owned, &alloc, inv->owned_count,
			sizeof(*inv->owned));
out:
	ext2fs_free_mem(&h.v);
	return err;
}

/*
 * Whether some owner wrote @blk in a transaction after @seq (0: not
 * known, never).
 */
int e2sr_owned_after(const struct e2sr_inventory *inv, blk64_t blk,
		     __u32 seq)
{
	size_t lo;

	if (!seq)
		return 0;
	lo = owned_from(inv, blk);
	return lo < inv->owned_count && inv->owned[lo].pblk <= blk &&
	       inv->owned[lo].tid > seq;
}

void e2sr_unseen_free(struct e2sr_unseen *u)
{
	ext2fs_free_mem(&u->copies);
	ext2fs_free_mem(&u->block);
	memset(u, 0, sizeof(*u));
}
