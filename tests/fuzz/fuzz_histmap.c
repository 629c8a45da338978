/*
 * fuzz_histmap.c --- libFuzzer target: block maps, live and historic.
 *
 * The input is a 2 MiB image of 1 KiB blocks in fuzz_img.c's chunk
 * format (seeds: images with extent trees and indirect maps of deleted
 * secure-delete files whose records, tree and indirect blocks debugfs
 * logged in the journal).  The image is opened read-only, the journal's
 * history built, and discovery maps every historic secure-delete record
 * through the history view (lib/find/discover_*.c, lib/journal/journal_view.c,
 * lib/find/blockmap.c), as the inventory scan would.  Then every record of the
 * first inode table blocks is mapped from the device alone, as a deleted
 * and as a live file.  Besides crashes, hangs and leaks, a map that lists
 * more blocks than the filesystem has, or a block outside it, is a
 * finding: that is the bound blockmap.c promises.  So is a history
 * index whose records are not of the inode table copies they name, or
 * out of log order (check_index).  When the last byte's top bit is set,
 * the history is built again as --journal-map builds it, every copy's
 * owner found (check_owners: an owner is an inode, its copy a block of
 * the filesystem).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "find_int.h"
#include "fuzz_img.h"
#include "mem_io.h"

#define FUZZ_INODES	48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_map(ext2_filsys fs, const struct e2sr_file *file,
		      int single)
{
	blk64_t end = ext2fs_blocks_count(fs->super), total = 0;
	size_t i;

	for (i = 0; i < file->map_count; i++) {
		const struct e2sr_extent *e = &file->map[i];

		if (!e->len || e->pblk < fs->super->s_first_data_block ||
		    e->pblk >= end || e->len > end - e->pblk) {
			fprintf(stderr, "fuzz_histmap: inode %u: extent "
				"%llu+%u outside the filesystem\n", file->ino,
				(unsigned long long)e->pblk, e->len);
			abort();
		}
		total += e->len;
	}
	if (single && total > end) {
		fprintf(stderr, "fuzz_histmap: inode %u: %llu blocks listed, "
			"filesystem has %llu\n", file->ino,
			(unsigned long long)total, (unsigned long long)end);
		abort();
	}
}

static void index_fail(size_t i, const char *what)
{
	fprintf(stderr, "fuzz_histmap: index record %zu: %s\n", i, what);
	abort();
}

/*
 * The history index as discovery takes it: every record listed is of a
 * verified copy the layout calls an inode table block, at a slot of it,
 * of an inode that block holds, in log order without repeats; and a
 * block marked as reading like a directory is one of the walk's stale
 * blocks.
 */
static void check_index(const struct e2sr_ctx *ctx)
{
	const struct e2sr_history *h = &ctx->history;
	const struct e2sr_jwalk *w = &h->walk;
	unsigned int isz = EXT2_INODE_SIZE(ctx->fs->super);
	struct e2sr_irec prev, rec, *x = &rec;
	size_t i, k = 0, cur = 0;
	__u32 jb;

	for (i = 0; i < h->nrecs; i++) {
		const struct e2sr_version *v;

		e2sr_history_rec(h, i, &cur, &rec);
		if (i && (prev.jblock > x->jblock ||
			  (prev.jblock == x->jblock &&
			   prev.offset >= x->offset)))
			index_fail(i, "not in log order, or repeated");
		prev = rec;
		while (k < h->n && h->v[h->by_jblock[k]].jblock < x->jblock)
			k++;
		if (k >= h->n || h->v[h->by_jblock[k]].jblock != x->jblock)
			index_fail(i, "no copy at its journal block");
		v = &h->v[h->by_jblock[k]];
		if (v->kind != E2SR_JK_ITABLE || !v->verified)
			index_fail(i, "not of a verified inode table copy");
		if (x->offset % isz || x->offset + isz > ctx->fs->blocksize)
			index_fail(i, "not at a slot of the block");
		if (x->ino < v->ino || x->ino - v->ino >= v->ino_count ||
		    (x->ino - v->ino) * isz != x->offset)
			index_fail(i, "not an inode the block holds");
	}
	for (jb = w->jsb.first; jb < w->jsb.last; jb++)
		if (e2sr_history_dirlike(h, jb) && !e2sr_jwalk_stale(w, jb))
			index_fail(jb, "directory-like but not stale");
}

/*
 * The history as --journal-map builds it, with every copy's owner found
 * by a pass over the inodes in use: an owner is an inode of the
 * filesystem, and a copy given one a block inside it.
 */
static void check_owners(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_history h;
	size_t i;

	if (!ctx->journal ||
	    e2sr_history_build(fs, ctx->journal, E2SR_HISTORY_OWNERS, &h))
		return;
	for (i = 0; i < h.n; i++) {
		const struct e2sr_version *v = &h.v[i];

		if (v->kind != E2SR_JK_DIR && v->kind != E2SR_JK_DATA &&
		    v->kind != E2SR_JK_EA && v->kind != E2SR_JK_EXTENT &&
		    v->kind != E2SR_JK_IND)
			continue;
		if (!v->ino || v->ino > fs->super->s_inodes_count ||
		    v->fs_block < fs->super->s_first_data_block ||
		    v->fs_block >= ext2fs_blocks_count(fs->super)) {
			fprintf(stderr, "fuzz_histmap: copy %zu (jblock %u, "
				"block %llu) given owner %u\n", i, v->jblock,
				(unsigned long long)v->fs_block, v->ino);
			abort();
		}
	}
	e2sr_history_free(&h);
}

static void map_records(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_inode_large *inode;
	struct e2sr_file file;
	unsigned int isize = EXT2_INODE_SIZE(fs->super);
	ext2_ino_t ino, last;
	int pass;

	if (isize < sizeof(*inode))
		isize = sizeof(*inode);
	inode = calloc(1, isize);
	if (!inode)
		return;
	last = fs->super->s_inodes_count < FUZZ_INODES ?
	       fs->super->s_inodes_count : FUZZ_INODES;
	for (ino = 1; ino <= last; ino++) {
		if (ext2fs_read_inode_full(fs, ino,
					   (struct ext2_inode *)inode,
					   EXT2_INODE_SIZE(fs->super)))
			continue;
		for (pass = 0; pass < 2; pass++) {
			memset(&file, 0, sizeof(file));
			file.ino = ino;
			file.generation = inode->i_generation;
			file.state = pass ? E2SR_STATE_LIVE :
				     E2SR_STATE_DELETED;
			if (e2sr_file_map(ctx, &file, inode) !=
			    EXT2_ET_NO_MEMORY)
				check_map(fs, &file, 1);
			e2sr_file_free(&file);
		}
	}
	free(inode);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2sr_ctx *ctx;
	size_t i;

	ctx = fuzz_img_ctx(data, size, NULL);
	if (!ctx)
		return 0;
	if (e2sr_open(ctx, fuzz_img_device(), E2SR_OPEN_RDONLY))
		goto out;
	if (!e2sr_discover_journal(ctx)) {
		check_index(ctx);
		for (i = 0; i < ctx->inv.count; i++)
			check_map(ctx->fs, &ctx->inv.files[i], 0);
	}
	/* The last byte's top bit: the owners, as --journal-map finds them. */
	if (size && (data[size - 1] & 0x80))
		check_owners(ctx);
	map_records(ctx);
out:
	e2sr_ctx_free(ctx);
	mem_io_forbid_writes(0);
	return 0;
}
