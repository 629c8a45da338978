/*
 * kinds.h --- the face of lib/kinds/: each kind's plan, check and apply
 * that the stages (lib/stages/kinds.c's table) call, and the record
 * scrubber.  Named for its folder, as every face is; the kinds table
 * itself, lib/stages/kinds.c, is another layer's file (check-layers
 * gives a header its folder's layer, a .c file its row's, so the two
 * names do not clash).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_KINDS_H
#define E2SR_KINDS_H

#include "e2secrm.h"

/* unwritten.c */
errcode_t e2sr_unwritten_plan(struct e2sr_ctx *ctx);
blk64_t e2sr_unwritten_blocks(const struct e2sr_inventory *inv);
errcode_t e2sr_unwritten_check(struct e2sr_ctx *ctx,
				const struct e2sr_action *a, size_t n);
errcode_t e2sr_unwritten_apply(struct e2sr_ctx *ctx,
				const struct e2sr_action *a, size_t n);
void e2sr_unwritten_action(const struct e2sr_unwritten *u,
			   struct e2sr_action *a);

/* free_inodes.c: the kind E2SR_KIND_FREE_RECORDS, whole */
extern const struct e2sr_kind e2sr_kind_free_records;

/* dirent.c */
errcode_t e2sr_names_plan(struct e2sr_ctx *ctx);
errcode_t e2sr_names_check(struct e2sr_ctx *ctx,
			   const struct e2sr_action *a, size_t n);
errcode_t e2sr_names_apply(struct e2sr_ctx *ctx,
			   const struct e2sr_action *a, size_t n);

/* scrub.c */
void e2sr_scrub_record(ext2_filsys fs, struct ext2_inode_large *inode);
errcode_t e2sr_scrub_inode(struct e2sr_ctx *ctx, ext2_ino_t ino);

#endif /* E2SR_KINDS_H */
