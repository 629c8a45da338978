/*
 * bitmap.c --- runs of bits in libext2fs bitmaps, and the one fix the
 * library needs for them.
 *
 * libext2fs 1.47.0's rbtree backend answers ext2fs_find_first_zero_*()
 * with ENOENT ("no zero bit") when the bitmap has no bit set at all,
 * where every bit of the range is zero (blkmap64_rb.c, rb_find_first_zero
 * returns early on an empty tree).  A block bitmap read as all zeros is
 * exactly the kind of lie e2secrm must catch, and with the library's
 * answer it would pass as "all in use": every search for a zero bit goes
 * through e2sr_find_first_zero() and e2sr_find_first_zero_inode().
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"

/*
 * The first zero bit of [start, end] of @map in *out, 0; ENOENT when
 * every bit is set; as ext2fs_find_first_zero_block_bitmap2() otherwise.
 */
errcode_t e2sr_find_first_zero(ext2fs_block_bitmap map, blk64_t start,
			       blk64_t end, blk64_t *out)
{
	blk64_t set;
	errcode_t err;

	err = ext2fs_find_first_zero_block_bitmap2(map, start, end, out);
	if (err != ENOENT)
		return err;
	/* No bit set in the range: its first bit is zero. */
	if (ext2fs_find_first_set_block_bitmap2(map, start, end, &set) ==
	    ENOENT) {
		*out = start;
		return 0;
	}
	return ENOENT;
}

/* The same for an inode bitmap. */
errcode_t e2sr_find_first_zero_inode(ext2fs_inode_bitmap map,
				     ext2_ino_t start, ext2_ino_t end,
				     ext2_ino_t *out)
{
	ext2_ino_t set;
	errcode_t err;

	err = ext2fs_find_first_zero_inode_bitmap2(map, start, end, out);
	if (err != ENOENT)
		return err;
	if (ext2fs_find_first_set_inode_bitmap2(map, start, end, &set) ==
	    ENOENT) {
		*out = start;
		return 0;
	}
	return ENOENT;
}

/*
 * The next run at or after *start, up to @last, of blocks set in @map
 * (@set) or clear: [*start, *end).  0 when there is none.
 */
int e2sr_next_run(ext2fs_block_bitmap map, int set, blk64_t *start,
		  blk64_t last, blk64_t *end)
{
	errcode_t none;

	if (*start > last)
		return 0;
	none = set ?
	       ext2fs_find_first_set_block_bitmap2(map, *start, last, start) :
	       e2sr_find_first_zero(map, *start, last, start);
	if (none)
		return 0;
	if (set ? e2sr_find_first_zero(map, *start, last, end) :
	    ext2fs_find_first_set_block_bitmap2(map, *start, last, end))
		*end = last + 1;
	return 1;
}

/*
 * The next run at or after *start, up to @last, of inodes set in @map:
 * [*start, *end).  0 when there is none.
 */
int e2sr_next_inode_run(ext2fs_inode_bitmap map, ext2_ino_t *start,
			ext2_ino_t last, ext2_ino_t *end)
{
	if (*start > last ||
	    ext2fs_find_first_set_inode_bitmap2(map, *start, last, start))
		return 0;
	if (e2sr_find_first_zero_inode(map, *start, last, end))
		*end = last + 1;
	return 1;
}

/*
 * Whether no block of [blk, blk + count) is set in @map, as
 * ext2fs_test_block_bitmap_range2() says, for any @count: the library
 * takes the count as an unsigned int, and a run of free space on a
 * filesystem of tens of TiB can be longer.  The caller has checked the
 * range against the filesystem.
 */
int e2sr_range_clear(ext2fs_block_bitmap map, blk64_t blk, blk64_t count)
{
	unsigned int n;

	while (count) {
		n = count > (1U << 31) ? 1U << 31 : (unsigned int)count;
		if (!ext2fs_test_block_bitmap_range2(map, blk, n))
			return 0;
		blk += n;
		count -= n;
	}
	return 1;
}

/* How many blocks of [first, last] are set, counted run by run. */
blk64_t e2sr_bitmap_count(ext2fs_block_bitmap map, blk64_t first,
			  blk64_t last)
{
	blk64_t start = first, end, n = 0;

	while (e2sr_next_run(map, 1, &start, last, &end)) {
		n += end - start;
		start = end;
	}
	return n;
}

/*
 * The backend of the filesystem's bitmaps and of every set built over its
 * blocks.  A flat bit array costs blocks/8 bytes, only for the pages
 * written, and is the fastest to fill from disk (the rbtree was 8% of a
 * run on an 8 GiB filesystem, building runs of a fragmented bitmap); on a
 * large filesystem, sparse sets stay small only as rbtrees.
 */
#define E2SR_FLAT_BITMAP_MAX	(1ULL << 24)	/* blocks: 2 MiB a set */

/* Set by tests and fuzz targets, whose small images would never get an
 * rbtree otherwise; 0: choose by size. */
static int forced_type;

void e2sr_bitmap_force_type(int type)
{
	forced_type = type;
}

int e2sr_bitmap_type(ext2_filsys fs)
{
	if (forced_type)
		return forced_type;
	if (ext2fs_blocks_count(fs->super) <= E2SR_FLAT_BITMAP_MAX)
		return EXT2FS_BMAP64_BITARRAY;
	return EXT2FS_BMAP64_RBTREE;
}

/* The next run of set bits of @map from *@start on, as e2sr_next_run(). */
static int next_set_run(ext2fs_generic_bitmap map, __u64 *start, __u64 last,
			__u64 *end)
{
	if (*start > last ||
	    ext2fs_find_first_set_generic_bmap(map, *start, last, start))
		return 0;
	/* *start is set: no zero up to @last means the run reaches it. */
	if (ext2fs_find_first_zero_generic_bmap(map, *start, last, end))
		*end = last + 1;
	return 1;
}

/* Bits taken at once by e2sr_bitmaps_equal() and e2sr_bitmap_or(). */
#define E2SR_CMP_BITS	(1U << 18)

/* How many bits of [@at, @last] the chunk at @at holds. */
static unsigned int chunk_bits(__u64 at, __u64 last)
{
	return last - at + 1 > E2SR_CMP_BITS ? E2SR_CMP_BITS :
	       (unsigned int)(last - at + 1);
}

/*
 * @num bits of @map from @at into @buf, cleared first: libext2fs 1.47's
 * rbtree leaves the buffer as it was when it holds no run.  Chunks start
 * on a byte of the bitmap.  @mask: the bits of the last byte past @num
 * (the padding past the end) read as zero.
 */
static errcode_t chunk_get(ext2fs_generic_bitmap map, __u64 at,
			   unsigned int num, unsigned char *buf, int mask)
{
	unsigned int bytes = (num + 7) / 8;
	errcode_t err;

	memset(buf, 0, bytes);
	err = ext2fs_get_generic_bmap_range(map, at, num, buf);
	if (!err && mask && num % 8)
		buf[bytes - 1] &= (1U << (num % 8)) - 1;
	return err;
}

/* The same bits, run by run: where no buffer can be had. */
static int runs_equal(ext2fs_generic_bitmap a, ext2fs_generic_bitmap b,
		      __u64 first, __u64 last)
{
	__u64 sa = first, sb = first, ea, eb;
	int ha, hb;

	for (;;) {
		ha = next_set_run(a, &sa, last, &ea);
		hb = next_set_run(b, &sb, last, &eb);
		if (ha != hb || (ha && (sa != sb || ea != eb)))
			return 0;
		if (!ha)
			return 1;
		sa = sb = ea;
	}
}

/*
 * Whether bitmaps @a and @b (both of blocks, or both of inodes) hold the
 * same bits.  libext2fs' compare tests bit by bit: on a 2 TiB filesystem
 * that is half a billion calls.  Run by run was a tenth of a run's time
 * on a filesystem of two million files, whose bitmaps are fragmented;
 * taken out a chunk at a time and compared as bytes, it is a copy (a flat
 * bitmap's range is its bytes; an rbtree's is built from its runs).
 * The bits of the last byte past the end are not compared.
 */
int e2sr_bitmaps_equal(ext2fs_generic_bitmap a, ext2fs_generic_bitmap b)
{
	__u64 first = ext2fs_get_generic_bmap_start(a);
	__u64 last = ext2fs_get_generic_bmap_end(a);
	unsigned char *ba = NULL, *bb = NULL;
	unsigned int num;
	__u64 at;
	int same = 1;

	if (ext2fs_get_generic_bmap_start(b) != first ||
	    ext2fs_get_generic_bmap_end(b) != last)
		return 0;
	if (ext2fs_get_mem(E2SR_CMP_BITS / 8, &ba) ||
	    ext2fs_get_mem(E2SR_CMP_BITS / 8, &bb)) {
		ext2fs_free_mem(&ba);
		return runs_equal(a, b, first, last);
	}
	for (at = first; same && at <= last; at += num) {
		num = chunk_bits(at, last);
		if (chunk_get(a, at, num, ba, 1) ||
		    chunk_get(b, at, num, bb, 1)) {
			same = runs_equal(a, b, first, last);
			break;
		}
		same = !memcmp(ba, bb, (num + 7) / 8);
	}
	ext2fs_free_mem(&ba);
	ext2fs_free_mem(&bb);
	return same;
}

/*
 * @to |= @from, both of blocks or both of inodes, over the same range:
 * a chunk of bytes at a time, as e2sr_bitmaps_equal() compares them.
 * Run by run, marking a fragmented bitmap of a filesystem of two million
 * files into another took 0.03 s.  The bits of the last byte past the
 * end are @to's own.  EINVAL when the ranges differ; out of memory the
 * caller goes run by run.
 */
errcode_t e2sr_bitmap_or(ext2fs_generic_bitmap to,
			 ext2fs_generic_bitmap from)
{
	__u64 first = ext2fs_get_generic_bmap_start(to);
	__u64 last = ext2fs_get_generic_bmap_end(to);
	unsigned char *bt = NULL, *bf = NULL;
	unsigned int num, bytes, i, any;
	errcode_t err;
	__u64 at;

	if (ext2fs_get_generic_bmap_start(from) != first ||
	    ext2fs_get_generic_bmap_end(from) != last)
		return EINVAL;
	err = ext2fs_get_mem(E2SR_CMP_BITS / 8, &bt);
	if (!err)
		err = ext2fs_get_mem(E2SR_CMP_BITS / 8, &bf);
	for (at = first; !err && at <= last; at += num) {
		num = chunk_bits(at, last);
		bytes = (num + 7) / 8;
		err = chunk_get(from, at, num, bf, 1);
		if (err)
			break;
		for (i = any = 0; i < bytes; i++)
			any |= bf[i];
		if (!any)
			continue;
		/* Its padding kept: the last byte is written back whole. */
		err = chunk_get(to, at, num, bt, 0);
		if (err)
			break;
		for (i = 0; i < bytes; i++)
			bt[i] |= bf[i];
		err = ext2fs_set_generic_bmap_range(to, at, num, bt);
	}
	ext2fs_free_mem(&bt);
	ext2fs_free_mem(&bf);
	return err;
}
