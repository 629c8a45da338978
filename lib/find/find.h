/*
 * find.h --- the face of lib/find/: what the layers above may ask of
 * the find stage: the inventory of secure-delete files, the live set,
 * the records' sanity and the questions it leaves, the journal's
 * discovery and the scan passes around it.  What only the files of
 * lib/find/ share is in find_int.h (and, narrower, discover_int.h and
 * livemap_int.h).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FIND_H
#define E2SR_FIND_H

#include "util.h"

/* since.c: full or incremental (scan.c's first pass), and what the
 * live pass leaves for the next run */
errcode_t e2sr_since_decide(struct e2sr_ctx *ctx);
errcode_t e2sr_since_note_files(struct e2sr_ctx *ctx);

/* kept_maps.c: a deleted file's blocks from the map the last run kept */
errcode_t e2sr_kept_maps(struct e2sr_ctx *ctx);

/* inventory_since.c: the live pass, whole or since the last run */
errcode_t e2sr_inventory_pass(struct e2sr_ctx *ctx);

/* inventory.c */
errcode_t e2sr_inventory_live(struct e2sr_ctx *ctx);
void e2sr_inventory_free(struct e2sr_inventory *inv);
errcode_t e2sr_inventory_set(const struct e2sr_ctx *ctx, int traced_only,
			     struct e2sr_ino_set *set);

/* livemap.c */
void e2sr_livemap_free(struct e2sr_livemap *lm);
int e2sr_live_blocks(const struct e2sr_ctx *ctx, blk64_t blk, blk64_t count);
int e2sr_live_all(const struct e2sr_ctx *ctx, blk64_t blk, blk64_t count);
int e2sr_live_inode(const struct e2sr_ctx *ctx, ext2_ino_t ino);
errcode_t e2sr_livemap_free_proven(struct e2sr_ctx *ctx);
errcode_t e2sr_livemap_linked_check(struct e2sr_ctx *ctx,
				    ext2fs_block_bitmap planned);
int e2sr_live_dir_block(const struct e2sr_ctx *ctx, ext2_ino_t dir,
			blk64_t blk);
int e2sr_free_run(const struct e2sr_ctx *ctx, blk64_t *start, blk64_t last,
		  blk64_t *end);
blk64_t e2sr_free_count(const struct e2sr_ctx *ctx);

/* sanity.c: records whose flags or maps contradict each other */
enum e2sr_question e2sr_record_contradicts(ext2_filsys fs, ext2_ino_t ino,
					   const struct ext2_inode_large *inode,
					   int isize);
enum e2sr_question e2sr_raw_record_contradicts(ext2_filsys fs, ext2_ino_t ino,
					       const void *raw,
					       struct ext2_inode_large *out);
struct e2sr_question_entry *e2sr_questioned(const struct e2sr_ctx *ctx,
					    ext2_ino_t ino);
errcode_t e2sr_question_leave(struct e2sr_ctx *ctx, ext2_ino_t ino,
			      enum e2sr_question why, unsigned int what);
void e2sr_questions_replan(struct e2sr_ctx *ctx);
errcode_t e2sr_record_check(struct e2sr_ctx *ctx, ext2_ino_t ino);

/* discover.c */
errcode_t e2sr_discover_journal(struct e2sr_ctx *ctx);

/* intent.c: scan passes around discover.c's */
errcode_t e2sr_intent_seed(struct e2sr_ctx *ctx);
errcode_t e2sr_intent_settle(struct e2sr_ctx *ctx);

/* unseen.c */
int e2sr_owned_after(const struct e2sr_inventory *inv, blk64_t blk,
		     __u32 seq);

#endif /* E2SR_FIND_H */
