/*
 * write.h --- the face of lib/write/: the guards the kinds pass before
 * they write, the writers of the kinds that overwrite whole blocks, and
 * the verification of what was written.  What only the files of
 * lib/write/ share is in write_int.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_WRITE_H
#define E2SR_WRITE_H

#include "e2secrm.h"

/*
 * lib/write/: guard.c, the guards the kinds pass; wipe_io.c and
 * wipe_journal.c, the writers (what only lib/write/ uses: write_int.h)
 */
errcode_t e2sr_wipe_check_free(struct e2sr_ctx *ctx, blk64_t blk,
			       blk64_t count);
errcode_t e2sr_wipe_check_unwritten(struct e2sr_ctx *ctx, blk64_t blk,
				    blk64_t count);
errcode_t e2sr_wipe_journal_place(struct e2sr_ctx *ctx, __u32 jblock,
				  __u32 count);
int e2sr_record_free(const struct e2sr_ctx *ctx, ext2_ino_t ino);
errcode_t e2sr_wipe_check_record(struct e2sr_ctx *ctx, ext2_ino_t ino,
				 int write);
errcode_t e2sr_wipe_check_dir(struct e2sr_ctx *ctx, ext2_ino_t dir,
			      int write);
errcode_t e2sr_wipe_check_dir_block(struct e2sr_ctx *ctx, ext2_ino_t dir,
				    blk64_t blk, int write);
errcode_t e2sr_group_table(ext2_filsys fs, dgrp_t group, blk64_t *blk);
errcode_t e2sr_wipe_check_itable(struct e2sr_ctx *ctx, dgrp_t group,
				 blk64_t blk, blk64_t n, int write);
void e2sr_wipe_stage(struct e2sr_ctx *ctx, enum e2sr_stage stage,
		     blk64_t total);
void e2sr_wipe_advance(struct e2sr_ctx *ctx, blk64_t n);
errcode_t e2sr_wipe_runs(struct e2sr_ctx *ctx, const struct e2sr_action *a,
			 size_t n);
errcode_t e2sr_wipe_journal_apply(struct e2sr_ctx *ctx,
				  const struct e2sr_action *a, size_t n);
void e2sr_journal_action(const struct e2sr_jplan *jp, struct e2sr_action *a);
errcode_t e2sr_wipe_unwritten_range(struct e2sr_ctx *ctx, blk64_t blk,
				    blk64_t count);

/* verify.c (what only lib/write/ uses: write_int.h) */
errcode_t e2sr_verify(struct e2sr_ctx *ctx);
void e2sr_verify_read(struct e2sr_ctx *ctx, int k, blk64_t n);
void e2sr_verify_bad(struct e2sr_ctx *ctx, int k, blk64_t blk);

#endif /* E2SR_WRITE_H */
