/*
 * fuzz_dirent.c --- libFuzzer target: the directory residue scanner.
 *
 * The input is a 2 MiB image of 1 KiB blocks in fuzz_img.c's chunk
 * format (seeds: images whose directories hold removed entries of
 * secure-delete files in their slack, entries with inode 0, htree
 * directories, and journal copies of directory blocks that name them).
 * The inventory scan finds the files, directories and journal history;
 * then lib/kinds/dirent.c plans the names (removed entries, inode-0 names, the
 * name-fragment slack search), wipes them on the in-memory copy, and
 * plans again: after a wipe that succeeded nothing may be left to find
 * (rule 4, a second run finds nothing), and no block but a directory
 * block of a planned directory may have been written.  One bit of the
 * last byte turns on --dir-slack (every removed name).
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
#include "kinds.h"
#include "fuzz_img.h"
#include "mem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char before[FUZZ_IMG_BS * FUZZ_IMG_BLOCKS];

struct dir_blocks {
	unsigned char	*ok;		/* one byte per image block */
};

static int note_block(ext2_filsys fs EXT2FS_ATTR((unused)), blk64_t *blocknr,
		      e2_blkcnt_t blockcnt, blk64_t ref_blk EXT2FS_ATTR((unused)),
		      int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct dir_blocks *d = priv;

	if (blockcnt >= 0 && *blocknr < FUZZ_IMG_BLOCKS)
		d->ok[*blocknr] = 1;
	return 0;
}

/* Every byte that changed must be in a block of a planned directory. */
static void check_writes(struct e2sr_ctx *ctx, const unsigned char *img)
{
	static unsigned char ok[FUZZ_IMG_BLOCKS];
	struct dir_blocks d = { ok };
	struct ext2_inode inode;
	size_t i, b;

	memset(ok, 0, sizeof(ok));
	for (i = 0; i < ctx->plan.name_dir_count; i++) {
		ext2_ino_t dir = ctx->plan.name_dirs[i];

		ext2fs_block_iterate3(ctx->fs, dir, BLOCK_FLAG_READ_ONLY |
				      BLOCK_FLAG_DATA_ONLY, NULL, note_block,
				      &d);
		/* Inline directories are rewritten in their inode. */
		if (!ext2fs_read_inode(ctx->fs, dir, &inode) &&
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			return;
	}
	for (b = 0; b < FUZZ_IMG_BLOCKS; b++) {
		if (ok[b] || !memcmp(before + b * FUZZ_IMG_BS,
				     img + b * FUZZ_IMG_BS, FUZZ_IMG_BS))
			continue;
		fprintf(stderr, "fuzz_dirent: block %zu written, not a "
			"planned directory's\n", b);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2sr_ctx *ctx;
	unsigned char *img;
	size_t first;
	errcode_t err;

	ctx = fuzz_img_ctx(data, size, &img);
	if (!ctx)
		return 0;
	if (size && (data[size - 1] & 0x80))
		ctx->opts.sanitize = E2SR_FREE_DIRSLACK;
	err = e2sr_open(ctx, fuzz_img_device(), E2SR_OPEN_RDONLY);
	if (!err)
		err = e2sr_inventory_scan(ctx);
	if (!err)
		err = e2sr_names_plan(ctx);
	/* A recovered view cannot be written to; nor is it the device. */
	if (err || !ctx->plan.name_count ||
	    ctx->replay.how != E2SR_RECOVERY_NONE)
		goto out;

	/* Wipe the in-memory copy, as a run without -n would. */
	memcpy(before, img, sizeof(before));
	mem_io_forbid_writes(0);
	ctx->open_flags &= ~E2SR_OPEN_RDONLY;
	ctx->fs->flags |= EXT2_FLAG_RW;
	ctx->fs->io->flags |= IO_FLAG_RW;
	err = e2sr_names_apply(ctx, ctx->plan.names,
			       ctx->plan.name_count);
	mem_io_forbid_writes(1);
	check_writes(ctx, img);
	/* The wipe writes the plan's names, each as planned, or stops. */
	if (err == E2SR_ERR_CHANGED ||
	    (!err && ctx->stats.wiped[E2SR_KIND_NAMES][0] !=
	     ctx->plan.name_count)) {
		fprintf(stderr, "fuzz_dirent: %zu of %zu planned names "
			"wiped (%s)\n",
			(size_t)ctx->stats.wiped[E2SR_KIND_NAMES][0],
			ctx->plan.name_count, ctx->detail);
		abort();
	}
	if (err)
		goto out;
	first = ctx->plan.name_count;
	ctx->plan.name_count = 0;
	free(ctx->plan.name_dirs);
	ctx->plan.name_dirs = NULL;
	ctx->plan.name_dir_count = ctx->plan.name_dir_alloc = 0;
	err = e2sr_names_plan(ctx);
	if (!err && ctx->plan.name_count) {
		fprintf(stderr, "fuzz_dirent: %zu of %zu names found again "
			"after the wipe\n", ctx->plan.name_count, first);
		abort();
	}
out:
	e2sr_ctx_free(ctx);
	mem_io_forbid_writes(0);
	return 0;
}
