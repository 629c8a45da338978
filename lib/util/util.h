/*
 * util.h --- the face of lib/util/, the lowest layer: what every layer
 * above may use of the helpers (bitmaps, inode sets, the hooks to the
 * caller, arrays), and the helpers' own headers (checksums, unaligned
 * reads, name sets, inode runs, the overlay and readahead), which it
 * includes so that a file of another folder includes this one alone.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_UTIL_H
#define E2SR_UTIL_H

#include "e2secrm.h"
#include "crc32c.h"
#include "unaligned.h"
#include "inode_runs.h"
#include "name_set.h"
#include "overlay_io.h"
#include "readahead.h"

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
int e2sr_next_inode_run(ext2fs_inode_bitmap map, ext2_ino_t *start,
			ext2_ino_t last, ext2_ino_t *end);
int e2sr_bitmaps_equal(ext2fs_generic_bitmap a, ext2fs_generic_bitmap b);
errcode_t e2sr_bitmap_or(ext2fs_generic_bitmap to,
			 ext2fs_generic_bitmap from);
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
int e2sr_ino_sorted_has(const ext2_ino_t *a, size_t n, ext2_ino_t ino);

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

#endif /* E2SR_UTIL_H */
