/*
 * e2secrmP.h --- what the files of lib/ share among themselves and the
 * command does not see: the helpers, and each stage's steps that only
 * another stage calls.
 *
 * The command includes e2secrm.h alone (tests/check-layers.sh holds it
 * to that); the files of lib/, the unit tests and the fuzz targets
 * include this one, which includes e2secrm.h.  What only the files of
 * one folder share is in that folder's own header (lib/journal/journal.h
 * and its kin, lib/open/open.h, lib/find/find.h, lib/write/write.h).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SECRMP_H
#define E2SECRMP_H

#include "e2secrm.h"

/* bitmap.c */
int e2sr_bitmap_type(ext2_filsys fs);
void e2sr_bitmap_force_type(int type);
errcode_t e2sr_find_first_zero(ext2fs_block_bitmap map, blk64_t start,
			       blk64_t end, blk64_t *out);
errcode_t e2sr_find_first_zero_inode(ext2fs_inode_bitmap map,
				     ext2_ino_t start, ext2_ino_t end,
				     ext2_ino_t *out);
blk64_t e2sr_bitmap_count(ext2fs_block_bitmap map, blk64_t first,
			  blk64_t last);
int e2sr_next_run(ext2fs_block_bitmap map, int set, blk64_t *start,
		  blk64_t last, blk64_t *end);
int e2sr_bitmaps_equal(ext2fs_generic_bitmap a, ext2fs_generic_bitmap b);
int e2sr_range_clear(ext2fs_block_bitmap map, blk64_t blk, blk64_t count);

/* ino_set.c: a fixed set of inode numbers, each with a value. */
#define E2SR_INO_FILTER_BYTES	8192	/* a bit per low 16 bits */

struct e2sr_ino_entry {
	ext2_ino_t		ino;
	size_t			value;
};

struct e2sr_ino_set {
	struct e2sr_ino_entry	*v;		/* sorted by ino */
	size_t			n;
	unsigned char		filter[E2SR_INO_FILTER_BYTES];
	unsigned char		*bits;		/* by inode number, or NULL */
	ext2_ino_t		nbits;
};

errcode_t e2sr_ino_set_init(struct e2sr_ino_set *s, size_t max);
void e2sr_ino_set_add(struct e2sr_ino_set *s, ext2_ino_t ino, size_t value);
void e2sr_ino_set_done(struct e2sr_ino_set *s);
void e2sr_ino_set_free(struct e2sr_ino_set *s);
const struct e2sr_ino_entry *e2sr_ino_set_find(const struct e2sr_ino_set *s,
					       ext2_ino_t ino);

/*
 * Whether @ino may be in the set: no false "no", cheap.  Inline: the
 * journal passes ask it of every word of every block they read.
 */
static inline int e2sr_ino_set_maybe(const struct e2sr_ino_set *s,
				     ext2_ino_t ino)
{
	if (s->bits)
		return ino && ino <= s->nbits &&
		       (s->bits[ino >> 3] & (1 << (ino & 7)));
	return ino && (s->filter[(ino & 0xffff) >> 3] & (1 << (ino & 7)));
}

static inline int e2sr_ino_set_has(const struct e2sr_ino_set *s,
				   ext2_ino_t ino)
{
	if (!e2sr_ino_set_maybe(s, ino))
		return 0;
	return s->bits || e2sr_ino_set_find(s, ino) != NULL;
}

/* orphan.c (what only lib/open/ uses: open.h) */
void e2sr_orphans_free(struct e2sr_orphans *o);

/* inventory.c */
errcode_t e2sr_inventory_live(struct e2sr_ctx *ctx);
void e2sr_inventory_free(struct e2sr_inventory *inv);
errcode_t e2sr_inventory_add(struct e2sr_inventory *inv,
			     struct e2sr_file **ret);
errcode_t e2sr_inventory_set(const struct e2sr_ctx *ctx, int traced_only,
			     struct e2sr_ino_set *set);

/* livemap_walk.c */
errcode_t e2sr_livemap_note(struct e2sr_ctx *ctx, ext2_ino_t ino,
			    struct ext2_inode_large *inode, int csum_bad);

/* livemap_dirs.c */
errcode_t e2sr_livemap_finish(struct e2sr_ctx *ctx);

/* livemap.c */
errcode_t e2sr_livemap_start(struct e2sr_ctx *ctx);
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

/* coverage.c */
errcode_t e2sr_coverage_scan(struct e2sr_ctx *ctx);
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
int e2sr_owned_after(const struct e2sr_inventory *inv, blk64_t blk,
		     __u32 seq);

/* discover.c */
errcode_t e2sr_discover_journal(struct e2sr_ctx *ctx);

/* intent.c: scan passes around discover.c's */
errcode_t e2sr_intent_seed(struct e2sr_ctx *ctx);
errcode_t e2sr_intent_settle(struct e2sr_ctx *ctx);

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

/* plan_journal.c */
errcode_t e2sr_plan_journal(struct e2sr_ctx *ctx);

/* plan_journal_entry.c */
size_t e2sr_jplan_block_end(const struct e2sr_plan *plan, size_t i);

/* plan_journal_names.c */
errcode_t e2sr_journal_names(struct e2sr_ctx *ctx, __u32 **hashes,
			     size_t *count, unsigned char **blob,
			     size_t *blob_len);
int e2sr_name_in(const __u32 *hashes, size_t count, const char *name,
		 unsigned int len);

/* dirent.c */
errcode_t e2sr_names_plan(struct e2sr_ctx *ctx);
errcode_t e2sr_names_check(struct e2sr_ctx *ctx,
			   const struct e2sr_action *a, size_t n);
errcode_t e2sr_names_apply(struct e2sr_ctx *ctx,
			   const struct e2sr_action *a, size_t n);

/* hooks.c */
int e2sr_cancelled(const struct e2sr_ctx *ctx);
int e2sr_progress_on(const struct e2sr_ctx *ctx);
void e2sr_progress(const struct e2sr_ctx *ctx, enum e2sr_stage stage,
		   unsigned long long cur, unsigned long long max);
void e2sr_action_done(const struct e2sr_ctx *ctx,
		      const struct e2sr_action *a);

/* zero.c */
int e2sr_all_zero(const void *buf, size_t len);

/* array.c */
errcode_t e2sr_array_room(void *ptr, size_t *alloc, size_t need,
			  size_t size);
void e2sr_array_trim(void *ptr, size_t *alloc, size_t count, size_t size);
errcode_t e2sr_sort_tail(void *base, size_t n, size_t size,
			 int (*cmp)(const void *, const void *));
size_t e2sr_lower_bound(const void *base, size_t n, size_t size,
			const void *key,
			int (*cmp)(const void *key, const void *elem));

/*
 * lib/write/: guard.c, the guards the kinds pass; wipe_io.c and
 * wipe_journal.c, the writers (what only lib/write/ uses: write.h)
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

/* scrub.c */
void e2sr_scrub_record(ext2_filsys fs, struct ext2_inode_large *inode);
errcode_t e2sr_scrub_inode(struct e2sr_ctx *ctx, ext2_ino_t ino);

/* verify.c (what only lib/write/ uses: write.h) */
errcode_t e2sr_verify(struct e2sr_ctx *ctx);
void e2sr_verify_read(struct e2sr_ctx *ctx, int k, blk64_t n);
void e2sr_verify_bad(struct e2sr_ctx *ctx, int k, blk64_t blk);

#endif /* E2SECRMP_H */
