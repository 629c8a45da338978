/*
 * inventory_since.c --- the live pass of an incremental run: the records
 * that can have changed since the last run, and those it kept.
 *
 * since.c decided that the run is incremental, and listed the inode
 * table blocks logged since the last run and the inodes the fast-commit
 * area names.  A record changes only in a handle that logs the block
 * holding it (or, between two full commits, in a fast commit's inode
 * tag), so every other record is as the last run saw it.  Of those, the
 * last run kept the ones that carry the flag and the directories whose
 * blocks hold bytes past their entries: they are read again too, so the
 * inventory and the directories the names plan reads are a full run's.
 * Each inode table block that holds a record to read is read once, and
 * its records are taken from it as the scan takes them (inventory.c's
 * e2sr_inventory_take), in inode order, group by group; the records
 * past a group's bg_itable_unused mark are taken after the live set is
 * complete, as the full run takes its groups' tails.  The maps of the
 * records not read claim no block that is free now; the live set takes
 * the bitmaps' word for them (livemap.c).  A block logged since (inode
 * table, directory, tree) is taken from its newest copy in the log,
 * which the journal walk has just read, not read a second time from
 * where it lies (since_io.c, laid over the pass when copies_stand_in()).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"

/* The inodes of one group the pass reads, sorted, each once. */
struct since_list {
	ext2_ino_t	*ino;
	size_t		n;
	size_t		alloc;
	ext2_ino_t	*merged;	/* where the merge writes */
	size_t		merged_alloc;
};

/* Cursors into since.c's sorted lists, advanced group by group. */
struct since_walk {
	size_t		si, di, li, ni;
};

/* Where the pass takes its records from: one inode table block. */
struct since_read {
	struct ext2_inode_large	*inode;	/* the record, the CPU's order */
	unsigned char		*block;	/* the table block read last */
	blk64_t			have;	/* which one; 0: none */
};

static errcode_t list_add(struct since_list *l, ext2_ino_t ino)
{
	if (l->n == l->alloc &&
	    e2sr_array_room(&l->ino, &l->alloc, l->n + 1, sizeof(*l->ino)))
		return EXT2_ET_NO_MEMORY;
	l->ino[l->n++] = ino;
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * @l->ino[0, @nlog) sorted and each once (the logged blocks' records:
 * since.c sorted the blocks), the rest as the other sources gave it:
 * the rest sorted, then the two merged, each inode once, none past
 * @last.  The logged blocks' records are most of the list (sixteen a
 * block, 400 000 after a 1% churn) and the list is made three times a
 * group: sorting them again was a tenth of the pass.
 */
static errcode_t merge_list(struct since_list *l, size_t nlog,
			    ext2_ino_t last)
{
	ext2_ino_t *a = l->ino, *b = l->ino + nlog, *out, v, *swap;
	size_t na = nlog, nb = l->n - nlog, i = 0, j = 0, k = 0, alloc;

	if (nb)
		qsort(b, nb, sizeof(*b), cmp_ino);
	if (e2sr_array_room(&l->merged, &l->merged_alloc, l->n,
			    sizeof(*l->merged)))
		return EXT2_ET_NO_MEMORY;
	out = l->merged;
	while (i < na || j < nb) {
		if (j == nb || (i < na && a[i] <= b[j]))
			v = a[i++];
		else
			v = b[j++];
		if (v <= last && (!k || v != out[k - 1]))
			out[k++] = v;
	}
	swap = l->ino;
	l->ino = l->merged;
	l->merged = swap;
	alloc = l->alloc;
	l->alloc = l->merged_alloc;
	l->merged_alloc = alloc;
	l->n = k;
	return 0;
}

/*
 * Group @g's inodes to read, from every source, in @l: the records of
 * its logged table blocks, those the last run kept, those the fast
 * commits name.  The cursors of @w move past the group.
 */
static errcode_t group_list(struct e2sr_ctx *ctx, dgrp_t g,
			    struct since_walk *w, struct since_list *l)
{
	const struct e2sr_since *s = &ctx->since;
	const struct e2sr_since_state *p = &s->prev;
	ext2_filsys fs = ctx->fs;
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	ext2_ino_t first = (ext2_ino_t)((__u64)g * ipg + 1);
	ext2_ino_t end = (ext2_ino_t)((__u64)(g + 1) * ipg);
	ext2_ino_t ino, last = fs->super->s_inodes_count;
	errcode_t err = 0;
	size_t nlog;
	__u32 j;

	l->n = 0;
	for (; !err && w->li < s->logged_count &&
	       s->logged[w->li] <= end; w->li++)
		for (j = 0; !err && j < ipb; j++) {
			ino = s->logged[w->li] + j;
			if (ino >= first && ino <= end && ino <= last)
				err = list_add(l, ino);
		}
	nlog = l->n;
	for (; !err && w->si < p->secure_count &&
	       p->secure[w->si].ino <= end; w->si++)
		if (p->secure[w->si].ino >= first)
			err = list_add(l, p->secure[w->si].ino);
	for (; !err && w->di < p->dir_count && p->dirs[w->di] <= end;
	     w->di++)
		if (p->dirs[w->di] >= first)
			err = list_add(l, p->dirs[w->di]);
	for (; !err && w->ni < s->named_count && s->named[w->ni] <= end;
	     w->ni++)
		if (s->named[w->ni] >= first)
			err = list_add(l, s->named[w->ni]);
	if (err || !l->n)
		return err;
	return merge_list(l, nlog, last);
}

/* Whether record @ino lies past its group's bg_itable_unused mark. */
static int in_tail(ext2_filsys fs, ext2_ino_t ino)
{
	__u32 ipg = fs->super->s_inodes_per_group;
	dgrp_t g = (ino - 1) / ipg;
	__u32 unused = ext2fs_bg_itable_unused(fs, g);

	if (!ext2fs_has_group_desc_csum(fs) || !unused || unused > ipg)
		return 0;
	return (ino - 1) % ipg >= ipg - unused;
}

/*
 * Whether the blocks logged since the last run may be read from their
 * newest copies (since_io.c).  After a clean unmount the disk holds
 * every block as its newest committed copy: jbd2 checkpointed them all
 * before it cleared s_start.  So only when the run recovered nothing,
 * released no orphan (either writes blocks the log does not hold), and
 * trusts nothing the proof would otherwise test: with a test's trust a
 * write outside the log may have passed unseen, and a copy would hide it.
 */
static int copies_stand_in(const struct e2sr_ctx *ctx)
{
	return ctx->journal && ctx->replay.how == E2SR_RECOVERY_NONE &&
	       !ctx->orphans.n && !(ctx->since.trust & ~E2SR_TRUST_AGE);
}

/* The table block that holds record @ino; 0 when the table is amiss. */
static blk64_t table_blk(ext2_filsys fs, ext2_ino_t ino)
{
	__u32 ipg = fs->super->s_inodes_per_group;
	__u64 off = (__u64)((ino - 1) % ipg) * EXT2_INODE_SIZE(fs->super);
	blk64_t itable = ext2fs_inode_table_loc(fs, (ino - 1) / ipg);

	if (!itable || itable < fs->super->s_first_data_block ||
	    itable + fs->inode_blocks_per_group - 1 >=
	    ext2fs_blocks_count(fs->super))
		return 0;
	return itable + off / fs->blocksize;
}

/*
 * The inode table block that holds record @ino, in @rd->block unless it
 * is there already (@rd->have), and where the record lies in it.  What
 * ext2fs_read_inode2() refuses of a group's table is refused alike.
 */
static errcode_t table_block(struct e2sr_ctx *ctx, ext2_ino_t ino,
			     struct since_read *rd, const unsigned char **rec)
{
	ext2_filsys fs = ctx->fs;
	__u32 ipg = fs->super->s_inodes_per_group;
	__u64 off = (__u64)((ino - 1) % ipg) * EXT2_INODE_SIZE(fs->super);
	blk64_t blk = table_blk(fs, ino);
	errcode_t err;

	if (!blk)
		return ext2fs_inode_table_loc(fs, (ino - 1) / ipg) ?
		       EXT2_ET_GDESC_BAD_INODE_TABLE :
		       EXT2_ET_MISSING_INODE_TABLE;
	if (blk != rd->have) {
		rd->have = 0;
		err = io_channel_read_blk64(fs->io, blk, 1, rd->block);
		if (err)
			return err;
		rd->have = blk;
	}
	*rec = rd->block + off % fs->blocksize;
	return 0;
}

/*
 * The record of @ino as the last run kept it (since.c), when that is
 * what the disk holds: the record carried the flag then, its table
 * block was logged nowhere since (since_io.c; a record changes only in
 * a handle that logs its block), and the fast-commit area does not name
 * it (a replay may have written it in place).  NULL: read it.
 */
static const unsigned char *kept_record(struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	const struct e2sr_since *s = &ctx->since;
	const struct e2sr_since_state *p = &s->prev;
	size_t k;
	blk64_t blk;

	if (!p->recs || p->rec_size != EXT2_INODE_SIZE(ctx->fs->super))
		return NULL;
	k = e2sr_since_secure_find(p, ino);
	if (k == p->secure_count ||
	    e2sr_ino_sorted_has(s->named, s->named_count, ino))
		return NULL;
	/* Zeros: not a live file's, none kept (since.c). */
	if (e2sr_all_zero(p->recs + k * p->rec_size, p->rec_size))
		return NULL;
	blk = table_blk(ctx->fs, ino);
	if (!blk || !e2sr_since_io_unchanged(ctx, blk))
		return NULL;
	return p->recs + k * p->rec_size;
}

/*
 * One record, taken as the scan (or the tails' pass) would: its checksum
 * checked on the bytes as the disk holds them, the record in the CPU's
 * order; @kept: the record as the last run kept it (kept_record()), or
 * NULL.  With ring_check a kept record is read from the disk too, and a
 * difference stops the run.
 */
static errcode_t read_one(struct e2sr_ctx *ctx, ext2_ino_t ino,
			  struct since_read *rd, int tail,
			  const unsigned char *kept)
{
	ext2_filsys fs = ctx->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	const unsigned char *rec;
	int csum_bad = 0;
	errcode_t err;

	if (kept) {
		ctx->since.from_kept++;
		rec = kept;
		if (ctx->since.ring_check) {
			err = table_block(ctx, ino, rd, &rec);
			if (err)
				return err;
			if (memcmp(rec, kept, isize))
				return E2SR_ERR_KEPT_RECORD_DIFFERS;
			rec = kept;
		}
	} else {
		err = table_block(ctx, ino, rd, &rec);
		if (err)
			return err;
	}
	if (!tail && ext2fs_has_feature_metadata_csum(fs->super))
		csum_bad = !e2sr_inode_csum_ok(fs, ino, rec);
	memcpy(rd->inode, rec, isize);
	if (ext2fs_cpu_to_le32(1) != 1)
		ext2fs_swap_inode_full(fs, rd->inode,
				       (struct ext2_inode_large *)rec, 0,
				       isize);
	ctx->inv.inodes_scanned++;
	if (tail)
		return e2sr_inventory_tail_record(ctx, ino, rd->inode);
	return e2sr_inventory_take(ctx, ino, rd->inode, csum_bad);
}

/*
 * The inode table blocks the two passes read from the disk (not those
 * the log answers, nor those of records the last run kept), in group
 * order, asked for ahead of them
 * (readahead.c): a cold pass would otherwise wait on each in turn.
 * @cum[g]: the bytes of the list before group @g's.
 */
static void table_readahead(struct e2sr_ctx *ctx, struct e2sr_ra **ra,
			    __u64 **cum)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_ra_range *r = NULL;
	struct since_walk w;
	struct since_list l;
	size_t n = 0, alloc = 0, i;
	blk64_t blk, last;
	__u64 at = 0;
	dgrp_t g;

	*ra = NULL;
	memset(&w, 0, sizeof(w));
	memset(&l, 0, sizeof(l));
	if (ext2fs_get_array(fs->group_desc_count + 1, sizeof(**cum), cum))
		return;
	for (g = 0; g < fs->group_desc_count; g++) {
		(*cum)[g] = at;
		if (group_list(ctx, g, &w, &l))
			goto out;
		if (!l.n || (ext2fs_has_group_desc_csum(fs) &&
			     ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT)))
			continue;
		last = 0;
		for (i = 0; i < l.n; i++) {
			blk = table_blk(fs, l.ino[i]);
			if (!blk || blk == last)
				continue;
			if (!ctx->since.ring_check &&
			    kept_record(ctx, l.ino[i]))
				continue;
			last = blk;
			if (!e2sr_since_io_reads_disk(ctx, blk))
				continue;
			if (e2sr_ra_add(&r, &n, &alloc,
					(__u64)blk * fs->blocksize,
					fs->blocksize))
				goto out;
			at += fs->blocksize;
		}
	}
	(*cum)[g] = at;
	e2sr_ra_start(fs->device_name, r, n, E2SR_RA_WINDOW, ra);
out:
	ext2fs_free_mem(&l.ino);
	ext2fs_free_mem(&l.merged);
	ext2fs_free_mem(&r);
	if (!*ra)
		ext2fs_free_mem(cum);
}

/*
 * Every group's list, in group order: @tails 0 takes the records before
 * the mark, 1 those past it.  Groups whose table was never initialised
 * hold nothing to read.
 */
static errcode_t read_groups(struct e2sr_ctx *ctx, struct since_read *rd,
			     int tails, struct e2sr_ra *ra, const __u64 *cum)
{
	ext2_filsys fs = ctx->fs;
	struct since_walk w;
	struct since_list l;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	const unsigned char *kept;
	ext2_ino_t blk, last_blk;
	errcode_t err = 0;
	size_t i;
	dgrp_t g;

	memset(&w, 0, sizeof(w));
	memset(&l, 0, sizeof(l));
	rd->have = 0;		/* each pass reads its blocks afresh */
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		if (ra && !tails)
			e2sr_ra_done(ra, cum[g]);
		err = group_list(ctx, g, &w, &l);
		if (err || !l.n)
			continue;
		if (ext2fs_has_group_desc_csum(fs) &&
		    ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
			continue;
		if (!tails)
			ctx->since.groups_read++;
		last_blk = 0;
		for (i = 0; !err && i < l.n; i++) {
			if (in_tail(fs, l.ino[i]) != tails)
				continue;
			kept = kept_record(ctx, l.ino[i]);
			/* The blocks read: not those of kept records alone. */
			blk = (l.ino[i] - 1) / ipb + 1;
			if (!tails && blk != last_blk &&
			    (ctx->since.ring_check || !kept)) {
				ctx->since.table_blocks++;
				last_blk = blk;
			}
			err = read_one(ctx, l.ino[i], rd, tails, kept);
		}
		if (!tails)
			e2sr_progress(ctx, E2SR_STAGE_SCAN,
				      (g + 1) * fs->super->s_inodes_per_group,
				      fs->super->s_inodes_count);
	}
	ext2fs_free_mem(&l.ino);
	ext2fs_free_mem(&l.merged);
	return err;
}

/*
 * The directory a file not read again was first named by, as the last
 * run saw it, when no directory read now names it.
 */
static void kept_parents(struct e2sr_ctx *ctx)
{
	const struct e2sr_since_state *p = &ctx->since.prev;
	struct e2sr_file *f;
	size_t i, k;

	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		if (f->parent)
			continue;
		k = e2sr_since_secure_find(p, f->ino);
		if (k < p->secure_count && f->state == E2SR_STATE_LIVE)
			f->parent = p->secure[k].parent;
	}
}

/*
 * The live pass of the find stage (scan.c): every record (inventory.c),
 * or, in an incremental run, what can have changed since the last one.
 */
errcode_t e2sr_inventory_pass(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct since_read rd;
	size_t isize = EXT2_INODE_SIZE(fs->super);
	struct e2sr_ra *ra = NULL;
	__u64 *cum = NULL;
	errcode_t err;

	if (!ctx->since.incremental)
		return e2sr_inventory_live(ctx);
	e2sr_inventory_free(&ctx->inv);
	err = e2sr_livemap_start(ctx);
	if (err)
		return err;
	memset(&rd, 0, sizeof(rd));
	if (isize < sizeof(*rd.inode))
		isize = sizeof(*rd.inode);
	err = ext2fs_get_memzero(isize, &rd.inode);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &rd.block);
	if (!err && copies_stand_in(ctx))
		err = e2sr_since_io_push(ctx);
	if (!err) {
		table_readahead(ctx, &ra, &cum);
		err = read_groups(ctx, &rd, 0, ra, cum);
	}
	if (!err)
		err = e2sr_livemap_finish(ctx);
	if (!err) {
		e2sr_livemap_take_bitmaps(ctx);
		kept_parents(ctx);
		err = read_groups(ctx, &rd, 1, NULL, NULL);
	}
	e2sr_ra_stop(&ra);
	ext2fs_free_mem(&cum);
	e2sr_since_io_pop(ctx);
	ext2fs_free_mem(&rd.block);
	ext2fs_free_mem(&rd.inode);
	return err;
}
