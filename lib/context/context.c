/*
 * context.c --- lifetime of the engine context.
 *
 * The context owns everything a run holds: the open filesystem, the
 * inventory, the plan and the write buffer.  Freeing it never writes.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "e2secrm.h"
#include "open.h"
#include "find.h"

errcode_t e2sr_ctx_new(struct e2sr_ctx **ret)
{
	struct e2sr_ctx *ctx;
	errcode_t err;

	initialize_e2sr_error_table();
	initialize_ext2_error_table();
	err = ext2fs_get_memzero(sizeof(*ctx), &ctx);
	if (err)
		return err;
	ctx->opts.method = E2SR_METHOD_ZERO;
	*ret = ctx;
	return 0;
}

void e2sr_ctx_free(struct e2sr_ctx *ctx)
{
	if (!ctx)
		return;
	e2sr_plan_free(&ctx->plan);
	e2sr_inventory_free(&ctx->inv);
	e2sr_livemap_free(&ctx->live);
	e2sr_since_free(&ctx->since);
	if (ctx->journal_blocks)
		ext2fs_free_block_bitmap(ctx->journal_blocks);
	if (ctx->metadata_blocks)
		ext2fs_free_block_bitmap(ctx->metadata_blocks);
	if (ctx->fs)
		ext2fs_free(ctx->fs);	/* never flushes: nothing is written */
	if (ctx->ro_fs)
		ext2fs_free(ctx->ro_fs);
	/* After the handles that read through it; the release's first. */
	e2sr_orphans_free(&ctx->orphans);
	e2sr_overlay_free(ctx->replay.overlay);
	/* After the filesystem: a dry run's view reads through these. */
	e2sr_history_free(&ctx->history);
	e2sr_journal_close(ctx->journal);
	e2sr_journal_close(ctx->replay.ro_journal);
	e2sr_journal_recovery_free(&ctx->replay.recovery);
	if (ctx->writer.sec_fd > 0)
		close(ctx->writer.sec_fd);
	ext2fs_free_mem(&ctx->writer.wbuf);
	ext2fs_free_mem(&ctx->writer.rbuf);
	ext2fs_free_mem(&ctx->writer.written);
	ext2fs_free_mem(&ctx->names.copies);
	ext2fs_free_mem(&ctx->names.hashes);
	ext2fs_free_mem(&ctx->names.blob);
	ext2fs_free_mem(&ctx->names.name_map);
	ext2fs_free_mem(&ctx->names.itable_map);
	ext2fs_free_mem(&ctx->device);
	ext2fs_free_mem(&ctx->prior);
	ext2fs_free_mem(&ctx);
}
