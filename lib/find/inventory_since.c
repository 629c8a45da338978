/*
 * inventory_since.c --- the live pass of an incremental run: the groups
 * that changed since the last run, whole, and of the others only what
 * the last run kept.
 *
 * since.c decided that the run is incremental and which groups changed
 * (ctx->since.dirty).  Those are read as inventory.c reads every group:
 * each record of their tables, then their tails.  Of a group that did
 * not change, the last run kept the records that carry the flag and the
 * directories whose blocks hold bytes past their entries: those records
 * are read again, one by one, and taken as the scan takes them, so the
 * inventory and the directories the names plan reads are a full run's.
 * Their maps are unchanged, and claim no block free now; the live set
 * takes the bitmaps' word for what they hold (livemap.c).  The records
 * are taken in inode order, the tails after the live set is complete,
 * as in a full run, so that everything after this pass sees its input
 * in the same order.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"

#define SCAN_BUFFER_BLOCKS	256

struct since_scan {
	dgrp_t		last;		/* the scan stops after it */
};

/* The end of a group: stop after the last of a run of changed groups. */
static errcode_t group_done(ext2_filsys fs, ext2_inode_scan scan,
			    dgrp_t group, void *priv)
{
	struct since_scan *ss = priv;

	(void)fs;
	(void)scan;
	return group >= ss->last ? EXT2_ET_CALLBACK_NOTHANDLED : 0;
}

/* Every record of groups @first to @last, as inventory.c reads them. */
static errcode_t scan_groups(struct e2sr_ctx *ctx, dgrp_t first, dgrp_t last,
			     struct ext2_inode_large *inode)
{
	ext2_filsys fs = ctx->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct since_scan ss = { .last = last };
	ext2_inode_scan scan;
	ext2_ino_t ino;
	errcode_t err;
	int csum_bad;

	err = ext2fs_open_inode_scan(fs, SCAN_BUFFER_BLOCKS, &scan);
	if (err)
		return err;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	ext2fs_set_inode_callback(scan, group_done, &ss);
	err = ext2fs_inode_scan_goto_blockgroup(scan, first);
	while (!err) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = ext2fs_get_next_inode_full(scan, &ino,
						 (struct ext2_inode *)inode,
						 isize);
		csum_bad = err == EXT2_ET_INODE_CSUM_INVALID;
		if (csum_bad) {
			err = 0;
		} else if (err == EXT2_ET_INODE_IS_GARBAGE ||
			   err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE) {
			err = e2sr_livemap_note(ctx, ino, NULL, 0);
			continue;
		}
		if (err == EXT2_ET_CALLBACK_NOTHANDLED) {
			err = 0;
			break;
		}
		if (err || !ino)
			break;
		ctx->inv.inodes_scanned++;
		err = e2sr_inventory_take(ctx, ino, inode, csum_bad);
	}
	ext2fs_close_inode_scan(scan);
	return err;
}

/* One record the last run kept, read again and taken as the scan would. */
static errcode_t reread(struct e2sr_ctx *ctx, ext2_ino_t ino,
			struct ext2_inode_large *inode, int tail)
{
	ext2_filsys fs = ctx->fs;
	int csum_bad = 0;
	errcode_t err;

	err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)inode,
				 EXT2_INODE_SIZE(fs->super),
				 READ_INODE_NOCSUM);
	if (err)
		return err;
	ctx->inv.inodes_scanned++;
	if (tail)
		return e2sr_inventory_tail_record(ctx, ino, inode);
	if (ext2fs_has_feature_metadata_csum(fs->super))
		csum_bad = !e2sr_inode_csum_ok(fs, ino, inode);
	return e2sr_inventory_take(ctx, ino, inode, csum_bad);
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
 * The kept records of group @g (the flagged ones and the directories with
 * residue, merged in inode order), from *si and *di on; @tails: the
 * pass over the tails, which takes only those past the mark.
 */
static errcode_t reread_group(struct e2sr_ctx *ctx, dgrp_t g, size_t *si,
			      size_t *di, struct ext2_inode_large *inode,
			      int tails)
{
	const struct e2sr_since_state *p = &ctx->since.prev;
	ext2_filsys fs = ctx->fs;
	__u32 ipg = fs->super->s_inodes_per_group;
	ext2_ino_t end = (ext2_ino_t)((__u64)(g + 1) * ipg), a, b, ino;
	errcode_t err;

	for (;;) {
		a = *si < p->secure_count ? p->secure[*si].ino : 0;
		b = *di < p->dir_count ? p->dirs[*di] : 0;
		if (a > end)
			a = 0;
		if (b > end)
			b = 0;
		if (!a && !b)
			return 0;
		ino = !a ? b : !b ? a : a < b ? a : b;
		if (a == ino)
			(*si)++;
		if (b == ino)
			(*di)++;
		if (ino > fs->super->s_inodes_count ||
		    tails != in_tail(fs, ino))
			continue;
		err = reread(ctx, ino, inode, tails);
		if (err)
			return err;
	}
}

/* Skip the kept records of groups before @g. */
static void skip_before(const struct e2sr_since_state *p, ext2_ino_t first,
			size_t *si, size_t *di)
{
	while (*si < p->secure_count && p->secure[*si].ino < first)
		(*si)++;
	while (*di < p->dir_count && p->dirs[*di] < first)
		(*di)++;
}

/*
 * The directory a clean file was first named by, as the last run saw it:
 * its names are where they were (a new name would have logged it).
 */
static void kept_parents(struct e2sr_ctx *ctx)
{
	const struct e2sr_since_state *p = &ctx->since.prev;
	__u32 ipg = ctx->fs->super->s_inodes_per_group;
	struct e2sr_file *f;
	size_t i, lo, hi, mid;

	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		if (e2sr_since_reads(ctx, (f->ino - 1) / ipg))
			continue;
		lo = 0;
		hi = p->secure_count;
		while (lo < hi) {
			mid = (lo + hi) / 2;
			if (p->secure[mid].ino < f->ino)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->secure_count && p->secure[lo].ino == f->ino &&
		    p->secure[lo].parent)
			f->parent = p->secure[lo].parent;
	}
}

/*
 * The live pass of the find stage (scan.c): every record (inventory.c),
 * or, in an incremental run, what changed since the last one.
 */
errcode_t e2sr_inventory_pass(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	const struct e2sr_since_state *p = &ctx->since.prev;
	__u32 ipg = fs->super->s_inodes_per_group;
	struct ext2_inode_large *inode;
	unsigned char *buf = NULL;
	size_t si = 0, di = 0;
	dgrp_t g, last;
	errcode_t err;

	if (!ctx->since.incremental)
		return e2sr_inventory_live(ctx);
	e2sr_inventory_free(&ctx->inv);
	err = e2sr_livemap_start(ctx);
	if (err)
		return err;
	err = ext2fs_get_memzero(EXT2_INODE_SIZE(fs->super) <
				 sizeof(*inode) ? sizeof(*inode) :
				 EXT2_INODE_SIZE(fs->super), &inode);
	if (err)
		return err;
	for (g = 0; !err && g < fs->group_desc_count; g = last + 1) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		last = g;
		if (!e2sr_since_reads(ctx, g)) {
			err = reread_group(ctx, g, &si, &di, inode, 0);
			continue;
		}
		while (last + 1 < fs->group_desc_count &&
		       e2sr_since_reads(ctx, last + 1))
			last++;
		err = scan_groups(ctx, g, last, inode);
		skip_before(p, (ext2_ino_t)((__u64)(last + 1) * ipg + 1),
			    &si, &di);
		e2sr_progress(ctx, E2SR_STAGE_SCAN, (last + 1) * ipg,
			      fs->super->s_inodes_count);
	}
	if (!err)
		err = e2sr_livemap_finish(ctx);
	if (!err) {
		e2sr_livemap_take_bitmaps(ctx);
		kept_parents(ctx);
		err = ext2fs_get_mem((size_t)SCAN_BUFFER_BLOCKS *
				     fs->blocksize, &buf);
	}
	si = di = 0;
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		if (!e2sr_since_reads(ctx, g)) {
			err = reread_group(ctx, g, &si, &di, inode, 1);
			continue;
		}
		skip_before(p, (ext2_ino_t)((__u64)(g + 1) * ipg + 1),
			    &si, &di);
		if (ext2fs_has_group_desc_csum(fs))
			err = e2sr_inventory_tail(ctx, g, buf,
						  SCAN_BUFFER_BLOCKS, inode);
	}
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&inode);
	return err;
}
