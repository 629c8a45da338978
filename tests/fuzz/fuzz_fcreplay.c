/*
 * fuzz_fcreplay.c --- libFuzzer target: fast-commit replay at open.
 *
 * The input is a 2 MiB image of 1 KiB blocks in fuzz_img.c's chunk
 * format; the seeds are kernel-made crash images with fast commits
 * pending (make-corpus.sh), so most mutations land in a journal whose
 * fast-commit area is replayed.  e2sr_open read-only replays the full
 * commits and then the fast commits into the overlay, and checks the
 * result; the inventory and plan then read the replayed view.  Besides
 * crashes, leaks and sanitizer reports, a finding is a replay that
 * writes (into the overlay) a block outside the filesystem, inside the
 * journal, or a block that is neither the filesystem's own metadata nor
 * in use in the replayed block bitmap: the replay may only change what
 * it leaves allocated.
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
#include "overlay_io.h"
#include "fuzz_img.h"
#include "mem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_overlay(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	unsigned int unit = e2sr_overlay_unit(ctx->replay.overlay);
	size_t i, n = e2sr_overlay_count(ctx->replay.overlay);
	const unsigned char *d;
	blk64_t blk;

	if (!n)
		return;
	if (unit != fs->blocksize) {
		fprintf(stderr, "fuzz_fcreplay: overlay unit %u, block %u\n",
			unit, fs->blocksize);
		abort();
	}
	for (i = 0; i < n; i++) {
		if (e2sr_overlay_block(ctx->replay.overlay, i, &blk, &d))
			abort();
		/* Block 0 of a 1 KiB filesystem holds the boot sector. */
		if (blk >= ext2fs_blocks_count(fs->super) ||
		    (blk && ext2fs_test_block_bitmap2(ctx->journal_blocks,
						      blk)) ||
		    (blk >= fs->super->s_first_data_block &&
		     !ext2fs_test_block_bitmap2(ctx->metadata_blocks, blk) &&
		     !ext2fs_test_block_bitmap2(fs->block_map, blk))) {
			fprintf(stderr, "fuzz_fcreplay: the replay wrote "
				"block %llu, outside, in the journal or "
				"free\n", (unsigned long long)blk);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2sr_ctx *ctx;
	errcode_t err;

	ctx = fuzz_img_ctx(data, size, NULL);
	if (!ctx)
		return 0;
	err = e2sr_open(ctx, fuzz_img_device(), E2SR_OPEN_RDONLY);
	if (!err && ctx->replay.overlay)
		check_overlay(ctx);
	if (!err)
		err = e2sr_inventory_scan(ctx);
	if (!err)
		err = e2sr_plan_build(ctx);
	if (!err)
		fuzz_img_check_jplan(ctx);
	if (!err && e2sr_execute(ctx) != E2SR_ERR_READ_ONLY) {
		fprintf(stderr, "fuzz_fcreplay: execute did not refuse a "
			"read-only run\n");
		abort();
	}
	e2sr_ctx_free(ctx);
	mem_io_forbid_writes(0);
	return 0;
}
