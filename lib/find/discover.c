/*
 * discover.c --- secure-delete files as the journal remembers them.
 *
 * Owns finding, in journal copies of inode table blocks, every version of
 * every inode record, and deciding which belong to a secure-delete file:
 * a version does when any version of the same identity (inode number and
 * i_generation), in the journal or in the live table, carries the flag.
 * Data written before `chattr +s` is the file's too, and so is a record
 * the kernel has since reused for another file.  Each distinct block map
 * among those versions is read (blockmap.c, with the trust rules of a
 * deleted map) and added to the file's map, marked historic: the plan
 * wipes the blocks of it that are free now, and no other.
 *
 * This is what makes a file deleted by the kernel recoverable: unlink
 * zeroes the map in the record, but the journal still holds the record as
 * it was.
 *
 * This file is the driver: e2sr_discover_journal() runs the steps in
 * order over the state they share (discover_int.h), and leaves each step
 * to its file: discover_rec.c reads records from copies and looks up the
 * inventory; discover_ident.c collects the versions and decides, identity
 * by identity, which are secure-delete files; discover_fc.c takes the
 * fast-commit area's evidence; discover_map.c reads the versions' maps
 * into the files; discover_ea.c follows the entries that name EA inodes;
 * discover_owners.c says which windows a file may have been written in
 * unseen, and what the owners of blocks wrote since.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"
#include "discover_int.h"

/*
 * Without a journal there are no versions, but EA inodes the live records
 * name are still the files' own.
 */
errcode_t e2sr_discover_journal(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct discover d;
	size_t i, first;
	errcode_t err = 0;

	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.ea_inode = ext2fs_has_feature_ea_inode(fs->super);
	/*
	 * How far back the history reaches: what "empty" can rest on.  An
	 * incremental run's decision (since.c) has asked already.
	 */
	err = e2sr_coverage_ready(ctx);
	if (err || (!ctx->journal && !d.ea_inode))
		return err;
	d.isize = EXT2_INODE_SIZE(fs->super);
	if (d.isize < sizeof(struct ext2_inode_large))
		d.isize = sizeof(struct ext2_inode_large);
	err = ext2fs_get_mem(fs->blocksize, &d.block);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &d.eablock);
	if (!err)
		err = ext2fs_get_memzero(d.isize, &d.inode);
	if (!err)
		err = ext2fs_get_memzero(d.isize, &d.live);
	if (!err)
		err = e2sr_disc_index_files(&d);
	if (!err && d.ea_inode)
		err = e2sr_disc_live_refs(&d);
	if (!err && ctx->journal)
		err = e2sr_disc_collect_versions(&d);
	if (!err && ctx->journal)
		err = e2sr_disc_index_commits(&d);
	if (!err && d.n)
		err = e2sr_disc_collect_lives(&d);
	if (!err && d.n) {
		io_manager m;

		d.near.h = &ctx->history;
		m = e2sr_view_manager_lookup(ctx->journal,
					     e2sr_disc_nearest_copy, &d.near);
		/* Without it, maps are read from the device alone. */
		if (m->open(fs->device_name, 0, &d.hio) ||
		    io_channel_set_blksize(d.hio, fs->blocksize)) {
			if (d.hio)
				io_channel_close(d.hio);
			d.hio = NULL;
		}
	}
	for (first = 0; !err && first < d.n; first = i) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		for (i = first + 1; i < d.n &&
		     d.v[i].ino == d.v[first].ino &&
		     d.v[i].generation == d.v[first].generation; i++)
			;
		err = e2sr_disc_take_identity(&d, first, i);
	}
	if (!err)
		err = e2sr_disc_take_ea_inodes(&d);
	if (!err && ctx->journal)
		err = e2sr_disc_take_kept(&d);
	if (!err)
		err = e2sr_disc_account_owners(&d);
	if (d.hio)
		io_channel_close(d.hio);
	ext2fs_free_mem(&d.v);
	ext2fs_free_mem(&d.r);
	ext2fs_free_mem(&d.files);
	e2sr_ea_refs_free(&d.refs);
	ext2fs_free_mem(&d.block);
	ext2fs_free_mem(&d.eablock);
	ext2fs_free_mem(&d.inode);
	ext2fs_free_mem(&d.live);
	ext2fs_free_mem(&d.ct);
	ext2fs_free_mem(&d.wins);
	ext2fs_free_mem(&d.lives);
	e2sr_unseen_free(&d.unseen);
	return err;
}
