/*
 * find_int.h --- what the files of lib/find/ share among themselves.
 *
 * The layers above call the find stage through its face, find.h, which
 * this header includes; what only the files of lib/find/ use is declared
 * here: the inventory's growth, the live set's steps, the coverage of
 * the journal, the block bitmaps' copies, the historic maps, and the
 * note sanity.c keeps of a questioned record, which inventory.c makes
 * as it reads the inode tables.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FIND_INT_H
#define E2SR_FIND_INT_H

#include "find.h"

/* inventory.c */
errcode_t e2sr_inventory_add(struct e2sr_inventory *inv,
			     struct e2sr_file **ret);

/* livemap_walk.c */
errcode_t e2sr_livemap_note(struct e2sr_ctx *ctx, ext2_ino_t ino,
			    struct ext2_inode_large *inode, int csum_bad);

/* livemap_dirs.c */
errcode_t e2sr_livemap_finish(struct e2sr_ctx *ctx);

/* livemap.c */
errcode_t e2sr_livemap_start(struct e2sr_ctx *ctx);

/* coverage.c */
errcode_t e2sr_coverage_scan(struct e2sr_ctx *ctx);
errcode_t e2sr_coverage_ready(struct e2sr_ctx *ctx);

/* inventory.c, inventory_since.c: the live pass, whole or since */
errcode_t e2sr_inventory_take(struct e2sr_ctx *ctx, ext2_ino_t ino,
			      struct ext2_inode_large *inode, int csum_bad);
errcode_t e2sr_inventory_tail_record(struct e2sr_ctx *ctx, ext2_ino_t ino,
				     struct ext2_inode_large *inode);

/* since.c: a block's newest copy logged since the last run, as it was */
const struct e2sr_version *e2sr_since_newest(const struct e2sr_ctx *ctx,
					     blk64_t blk);
int e2sr_since_logged(const struct e2sr_ctx *ctx, blk64_t blk);
size_t e2sr_since_secure_find(const struct e2sr_since_state *st,
			      ext2_ino_t ino);
errcode_t e2sr_since_read_copy(struct e2sr_ctx *ctx,
			       const struct e2sr_version *v,
			       unsigned char *buf);

/* live_records.c: the records the live pass took */
void e2sr_live_recs_free(struct e2sr_live_recs *r);
errcode_t e2sr_live_rec_put(struct e2sr_ctx *ctx, ext2_ino_t ino,
			    const struct ext2_inode_large *inode);
const unsigned char *e2sr_live_rec_raw(struct e2sr_ctx *ctx, ext2_ino_t ino);
int e2sr_live_rec_get(struct e2sr_ctx *ctx, ext2_ino_t ino,
		      struct ext2_inode_large *out);

/* since_io.c: the blocks logged since, read from the log */
errcode_t e2sr_since_io_push(struct e2sr_ctx *ctx);
void e2sr_since_io_pop(struct e2sr_ctx *ctx);
int e2sr_since_io_reads_disk(struct e2sr_ctx *ctx, blk64_t blk);
int e2sr_since_io_unchanged(struct e2sr_ctx *ctx, blk64_t blk);

/* kept_maps.c: the maps of live secure-delete files, kept for the next */
errcode_t e2sr_kept_note(struct e2sr_ctx *ctx);

/* livemap.c: what the records not read claim, as the bitmaps say */
void e2sr_livemap_take_bitmaps(struct e2sr_ctx *ctx);
int e2sr_coverage_readable(const struct e2sr_coverage *c, __u32 tid);

/* unseen.c: what discover.c asks of the block bitmaps' copies */
struct e2sr_unseen {
	struct bbcopy		*copies;	/* by transaction, group */
	size_t			ncopies;
	size_t			alloc;
	int			listed;
	unsigned char		*block;
};
errcode_t e2sr_unseen_whole(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			    __u32 tid, int *whole);
errcode_t e2sr_unseen_mark(struct e2sr_ctx *ctx, struct e2sr_unseen *u,
			   __u32 *tids, size_t n);
void e2sr_unseen_free(struct e2sr_unseen *u);
errcode_t e2sr_owned_index(struct e2sr_ctx *ctx, struct e2sr_owned *runs,
			   size_t n);

/* blockmap.c */
/*
 * Where a historic map's blocks are read: the history's view of the
 * filesystem, and which blocks of it are journal copies (discover.c).
 */
struct e2sr_map_source {
	io_channel		io;
	e2sr_view_lookup_fn	lookup;
	void			*priv;
};
errcode_t e2sr_file_map(struct e2sr_ctx *ctx, struct e2sr_file *file,
			struct ext2_inode_large *inode);
errcode_t e2sr_file_map_from(struct e2sr_ctx *ctx, struct e2sr_file *file,
			     struct ext2_inode_large *inode,
			     const struct e2sr_map_source *src);
void e2sr_file_free(struct e2sr_file *file);

/* sanity.c */
errcode_t e2sr_question_note(struct e2sr_ctx *ctx, ext2_ino_t ino,
			     enum e2sr_question why);

#endif /* E2SR_FIND_INT_H */
