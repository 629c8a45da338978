/*
 * inventory.c --- every inode record that carries the secure-delete flag.
 *
 * One pass of libext2fs' inode scan over the initialised inode tables
 * finds live secure-delete files, and free records that still carry the
 * flag: Linux keeps i_flags (and, depending on the path, the block map) on
 * a deleted inode.  Identity is (inode number, i_generation).  For each
 * one the block map is read as far as the record still holds it.  The
 * same scan hands every record to livemap.c, which builds what is in use
 * from the maps and names themselves.  The versions only the journal
 * still has are discover.c's pass, after this one (scan.c).
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

/* Inode table blocks read per scan step: large sequential reads. */
#define SCAN_BUFFER_BLOCKS	256

void e2sr_inventory_free(struct e2sr_inventory *inv)
{
	size_t i;

	for (i = 0; i < inv->count; i++)
		e2sr_file_free(&inv->files[i]);
	ext2fs_free_mem(&inv->files);
	ext2fs_free_mem(&inv->dirs);
	ext2fs_free_mem(&inv->jcopies);
	ext2fs_free_mem(&inv->unwritten);
	if (inv->unseen)
		ext2fs_free_block_bitmap(inv->unseen);
	ext2fs_free_mem(&inv->owned);
	ext2fs_free_mem(&inv->joined);
	ext2fs_free_mem(&inv->questions);
	e2sr_live_recs_free(&inv->recs);
	memset(inv, 0, sizeof(*inv));
}

errcode_t e2sr_inventory_add(struct e2sr_inventory *inv,
			     struct e2sr_file **ret)
{
	if (inv->count == inv->alloc &&
	    e2sr_array_room(&inv->files, &inv->alloc, inv->count + 1,
			    sizeof(*inv->files)))
		return EXT2_ET_NO_MEMORY;
	*ret = &inv->files[inv->count++];
	memset(*ret, 0, sizeof(**ret));
	return 0;
}

/* Live directories are where removed names of secure-delete files sit. */
static errcode_t note_dir(struct e2sr_ctx *ctx, ext2_ino_t ino,
			  struct ext2_inode *inode)
{
	struct e2sr_inventory *inv = &ctx->inv;

	if (!LINUX_S_ISDIR(inode->i_mode) || !inode->i_links_count ||
	    !ext2fs_test_inode_bitmap2(ctx->fs->inode_map, ino))
		return 0;
	if (inv->dir_count == inv->dir_alloc &&
	    e2sr_array_room(&inv->dirs, &inv->dir_alloc, inv->dir_count + 1,
			    sizeof(*inv->dirs)))
		return EXT2_ET_NO_MEMORY;
	inv->dirs[inv->dir_count++] = ino;
	return 0;
}

/* Reserved inodes other than the root are the filesystem's own. */
static int inode_is_candidate(ext2_filsys fs, ext2_ino_t ino,
			      struct ext2_inode *inode)
{
	if (!(inode->i_flags & EXT2_SECRM_FL))
		return 0;
	if (ino < EXT2_FIRST_INODE(fs->super) && ino != EXT2_ROOT_INO)
		return 0;
	return 1;
}

static errcode_t record_file(struct e2sr_ctx *ctx, ext2_ino_t ino,
			     struct ext2_inode_large *inode)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_question_entry *q;
	struct e2sr_file *file;
	errcode_t err;

	/* The live scan asked already; a group's tail is asked here. */
	q = e2sr_questioned(ctx, ino);
	if (!q) {
		err = e2sr_question_note(ctx, ino,
					 e2sr_record_contradicts(fs, ino, inode,
						EXT2_INODE_SIZE(fs->super)));
		if (err)
			return err;
		q = e2sr_questioned(ctx, ino);
	}
	err = e2sr_live_rec_put(ctx, ino, inode);
	if (!err)
		err = e2sr_inventory_add(&ctx->inv, &file);
	if (err)
		return err;
	file->ino = ino;
	file->generation = inode->i_generation;
	file->mode = inode->i_mode;
	file->links = inode->i_links_count;
	file->flags = inode->i_flags;
	file->dtime = inode->i_dtime;
	file->size = EXT2_I_SIZE(inode);
	/*
	 * Deleted means both the bitmap and the record say so: a record
	 * with links whose bit is clear is a bitmap error, and wiping on
	 * the strength of one bit would destroy a live file.
	 */
	if (ext2fs_test_inode_bitmap2(fs->inode_map, ino))
		file->state = inode->i_links_count ? E2SR_STATE_LIVE :
			      E2SR_STATE_ORPHAN;
	else if (inode->i_links_count)
		file->state = E2SR_STATE_UNCLEAR;
	else
		file->state = E2SR_STATE_DELETED;
	/*
	 * Flags or maps that contradict each other: what e2fsck will make
	 * of the record is a guess, so nothing of it is planned (the plan
	 * leaves unclear files to e2fsck).  Its map is still read, for
	 * the report; nothing is wiped from it.
	 */
	if (q) {
		file->questioned = q->why;
		q->left |= E2SR_LEFT_FILE;
		if (file->state == E2SR_STATE_LIVE ||
		    file->state == E2SR_STATE_DELETED)
			file->state = E2SR_STATE_UNCLEAR;
	}
	return e2sr_file_map(ctx, file, inode);
}

/*
 * The inventory's inode numbers as a set, each with its index in
 * ctx->inv.files; @traced_only: without the files left to e2fsck
 * (orphans, and records whose bit is clear but which are linked).
 */
errcode_t e2sr_inventory_set(const struct e2sr_ctx *ctx, int traced_only,
			     struct e2sr_ino_set *set)
{
	const struct e2sr_file *f;
	errcode_t err;
	size_t i;

	err = e2sr_ino_set_init(set, ctx->inv.count);
	if (err)
		return err;
	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		if (traced_only && (f->state == E2SR_STATE_ORPHAN ||
				    f->state == E2SR_STATE_UNCLEAR))
			continue;
		e2sr_ino_set_add(set, f->ino, i);
	}
	e2sr_ino_set_done(set);
	return 0;
}

/* A record past its group's bg_itable_unused mark (below). */
errcode_t e2sr_inventory_tail_record(struct e2sr_ctx *ctx, ext2_ino_t ino,
				     struct ext2_inode_large *inode)
{
	ext2_filsys fs = ctx->fs;

	if (!inode_is_candidate(fs, ino, (struct ext2_inode *)inode))
		return 0;
	if (ext2fs_has_feature_metadata_csum(fs->super) &&
	    !e2sr_inode_csum_ok(fs, ino, inode))
		return 0;
	return record_file(ctx, ino, inode);
}

/*
 * libext2fs' scan stops at each group's bg_itable_unused mark, and
 * e2fsck lowers that mark to the last inode in use: records of files
 * deleted past it are still on disk, flag and map included.  Read the
 * rest of each initialised group's table in large reads.  A table not
 * yet zeroed by lazy init may hold an older filesystem's bytes there: with
 * metadata_csum only records whose checksum verifies are taken, and in
 * any case a map read from the tail wipes only blocks that are free.
 */
static errcode_t inventory_tail(struct e2sr_ctx *ctx, dgrp_t group,
				unsigned char *buf, blk64_t buf_blocks,
				struct ext2_inode_large *inode)
{
	ext2_filsys fs = ctx->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 unused = ext2fs_bg_itable_unused(fs, group);
	__u32 first, per_block = fs->blocksize / isize, i, idx;
	blk64_t itable = ext2fs_inode_table_loc(fs, group), blk, n, b;
	errcode_t err;

	if (!unused || unused > ipg || !itable)
		return 0;
	if (ext2fs_bg_flags_test(fs, group, EXT2_BG_INODE_UNINIT))
		return 0;
	first = ipg - unused;		/* index of the first unused record */
	blk = first / per_block;
	while (blk * per_block < ipg) {
		n = (ipg - blk * per_block + per_block - 1) / per_block;
		if (n > buf_blocks)
			n = buf_blocks;
		if (itable + blk + n > ext2fs_blocks_count(fs->super))
			return EXT2_ET_GDESC_BAD_INODE_TABLE;
		err = io_channel_read_blk64(fs->io, itable + blk, n, buf);
		if (err)
			return err;
		for (b = 0; b < n; b++) {
			for (i = 0; i < per_block; i++) {
				idx = (blk + b) * per_block + i;
				if (idx < first || idx >= ipg)
					continue;
				memcpy(inode, buf + (b * per_block + i) * isize,
				       isize);
				ctx->inv.inodes_scanned++;
				err = e2sr_inventory_tail_record(ctx,
						group * ipg + idx + 1, inode);
				if (err)
					return err;
			}
		}
		blk += n;
	}
	return 0;
}

static errcode_t scan_tails(struct e2sr_ctx *ctx,
			    struct ext2_inode_large *inode)
{
	ext2_filsys fs = ctx->fs;
	unsigned char *buf;
	errcode_t err = 0;
	dgrp_t group;

	if (!ext2fs_has_group_desc_csum(fs))
		return 0;
	err = ext2fs_get_mem((size_t)SCAN_BUFFER_BLOCKS * fs->blocksize, &buf);
	if (err)
		return err;
	for (group = 0; group < fs->group_desc_count; group++) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		/* No progress here: the scan above already counted these. */
		err = inventory_tail(ctx, group, buf, SCAN_BUFFER_BLOCKS,
				     inode);
		if (err)
			break;
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * One record of the scan, in use or not: questioned, its directory noted,
 * its maps given to the live set, and kept if it carries the flag.
 */
errcode_t e2sr_inventory_take(struct e2sr_ctx *ctx, ext2_ino_t ino,
			      struct ext2_inode_large *inode, int csum_bad)
{
	ext2_filsys fs = ctx->fs;
	errcode_t err;

	/* Before the live map sees it: it asks (unwritten extents). */
	err = e2sr_question_note(ctx, ino,
				 e2sr_record_contradicts(fs, ino, inode,
						EXT2_INODE_SIZE(fs->super)));
	if (!err)
		err = note_dir(ctx, ino, (struct ext2_inode *)inode);
	if (!err)
		err = e2sr_livemap_note(ctx, ino, inode, csum_bad);
	if (err)
		return err;
	if (!inode_is_candidate(fs, ino, (struct ext2_inode *)inode))
		return 0;
	return record_file(ctx, ino, inode);
}

/*
 * The next record of the scan, its checksum verified with the CPU's
 * crc32c instead of the library's tables (a sixth of a run on a large
 * filesystem): libext2fs skips its own check while
 * EXT2_FLAG_IGNORE_CSUM_ERRORS is set, and nothing else the scan does
 * depends on that flag.  A big-endian host gets the record swapped, so
 * there the library checks it.
 */
static errcode_t inventory_next(ext2_filsys fs, ext2_inode_scan scan,
				ext2_ino_t *ino,
				struct ext2_inode_large *inode, int isize)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	int had = fs->flags & EXT2_FLAG_IGNORE_CSUM_ERRORS;
	errcode_t err;

	if (had || !ext2fs_has_feature_metadata_csum(fs->super))
		return ext2fs_get_next_inode_full(scan, ino,
						  (struct ext2_inode *)inode,
						  isize);
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	err = ext2fs_get_next_inode_full(scan, ino,
					 (struct ext2_inode *)inode, isize);
	fs->flags &= ~EXT2_FLAG_IGNORE_CSUM_ERRORS;
	if (!err && *ino && !e2sr_inode_csum_ok(fs, *ino, inode))
		err = EXT2_ET_INODE_CSUM_INVALID;
	return err;
#else
	return ext2fs_get_next_inode_full(scan, ino,
					  (struct ext2_inode *)inode, isize);
#endif
}

/*
 * The inode tables the scan and the tails' pass will read, whole, of the
 * initialised groups in group order, asked for ahead of the scan
 * (readahead.c); @cum[g]: the bytes of the list before group @g's.
 */
static void itable_readahead(ext2_filsys fs, struct e2sr_ra **ra,
			     __u64 **cum)
{
	struct e2sr_ra_range *r = NULL;
	blk64_t itable;
	__u64 at = 0, len = (__u64)fs->inode_blocks_per_group * fs->blocksize;
	size_t n = 0;
	dgrp_t g;

	*ra = NULL;
	*cum = NULL;
	if (ext2fs_get_array(fs->group_desc_count, sizeof(*r), &r) ||
	    ext2fs_get_array(fs->group_desc_count + 1, sizeof(**cum), cum))
		goto out;
	for (g = 0; g < fs->group_desc_count; g++) {
		(*cum)[g] = at;
		itable = ext2fs_inode_table_loc(fs, g);
		if (!itable || (ext2fs_has_group_desc_csum(fs) &&
				ext2fs_bg_flags_test(fs, g,
						     EXT2_BG_INODE_UNINIT)))
			continue;
		if (n && r[n - 1].offset + r[n - 1].length ==
			 (__u64)itable * fs->blocksize) {
			r[n - 1].length += len;	/* flex_bg: one run */
		} else {
			r[n].offset = (__u64)itable * fs->blocksize;
			r[n].length = len;
			n++;
		}
		at += len;
	}
	(*cum)[g] = at;
	e2sr_ra_start(fs->device_name, r, n, E2SR_RA_WINDOW, ra);
out:
	ext2fs_free_mem(&r);
	if (!*ra)
		ext2fs_free_mem(cum);
}

/*
 * The live pass of the find stage (scan.c): every record of the inode
 * tables, the live map finished, the groups' tails.
 */
errcode_t e2sr_inventory_live(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	ext2_inode_scan scan;
	struct ext2_inode_large *inode;
	int isize = EXT2_INODE_SIZE(fs->super);
	ext2_ino_t ino;
	struct e2sr_ra *ra;
	__u64 *cum;
	dgrp_t group, last = (dgrp_t)-1;
	errcode_t err;
	int csum_bad;

	e2sr_inventory_free(&ctx->inv);
	err = e2sr_livemap_start(ctx);
	if (err)
		return err;
	err = ext2fs_get_memzero(isize, &inode);
	if (err)
		return err;
	err = ext2fs_open_inode_scan(fs, SCAN_BUFFER_BLOCKS, &scan);
	if (err)
		goto out_mem;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	itable_readahead(fs, &ra, &cum);

	for (;;) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = inventory_next(fs, scan, &ino, inode, isize);
		/*
		 * A record whose checksum fails is still read: if it is a
		 * free record with the flag, scrubbing it is what we want;
		 * a whole block of garbage is skipped.
		 */
		csum_bad = err == EXT2_ET_INODE_CSUM_INVALID;
		if (csum_bad) {
			err = 0;
		} else if (err == EXT2_ET_INODE_IS_GARBAGE ||
			   err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE) {
			/* Unless it is in use: then nothing is proven. */
			err = e2sr_livemap_note(ctx, ino, NULL, 0);
			if (err)
				break;
			continue;
		}
		if (err)
			break;
		if (!ino)
			break;
		group = (ino - 1) / fs->super->s_inodes_per_group;
		if (ra && group != last && group < fs->group_desc_count) {
			e2sr_ra_done(ra, cum[group]);
			last = group;
		}
		ctx->inv.inodes_scanned++;
		if (!(ino & 4095))
			e2sr_progress(ctx, E2SR_STAGE_SCAN, ino,
				      fs->super->s_inodes_count);
		err = e2sr_inventory_take(ctx, ino, inode, csum_bad);
		if (err)
			break;
	}
	ext2fs_close_inode_scan(scan);
	/* Before anything is planned: "free" proven against the maps. */
	if (!err)
		err = e2sr_livemap_finish(ctx);
	if (!err)
		err = scan_tails(ctx, inode);
	e2sr_ra_stop(&ra);
	ext2fs_free_mem(&cum);
out_mem:
	ext2fs_free_mem(&inode);
	return err;
}
