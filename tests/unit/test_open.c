/*
 * test_open.c --- e2sr_open(): what it refuses, and that a refusal leaves
 * the image exactly as it was.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "util.h"
#include "kinds.h"
#include "write_int.h"
#include "testimg.h"

static void mkfs(struct testimg *t, const char *opts)
{
	assert_int_equal(testimg_mkfs(t, opts), 0);
}

static void debugfs(struct testimg *t, const char *script)
{
	assert_int_equal(testimg_debugfs(t, script), 0);
}

/*
 * Open @path with @flags, expect @want (and @detail in ctx->detail when
 * given), close, and check that the file's sha256 did not change.
 */
static void expect_open(const char *path, int flags, errcode_t want,
			const char *detail)
{
	struct e2sr_ctx *ctx;
	char before[65], after[65];
	errcode_t err;

	assert_int_equal(testimg_sha256(path, before), 0);
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	err = e2sr_open(ctx, path, flags);
	if (err != want)
		print_error("e2sr_open: %ld (%s), want %ld (%s)\n", (long)err,
			    error_message(err), (long)want,
			    error_message(want));
	assert_int_equal(err, want);
	if (detail)
		assert_string_equal(ctx->detail, detail);
	if (!err) {
		/* Opening never writes: only e2sr_begin_write() does. */
		assert_false(ctx->fs->flags & EXT2_FLAG_RW);
		assert_int_equal(e2sr_close(ctx), 0);
	}
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(path, after), 0);
	assert_string_equal(before, after);
}

static void test_missing_file(void **state)
{
	struct testimg *t = *state;
	char path[PATH_MAX];

	assert_int_equal(testimg_path(t, "no-such.img", path, sizeof(path)),
			 0);
	expect_open(path, 0, ENOENT, NULL);
	expect_open(path, E2SR_OPEN_RDONLY, ENOENT, NULL);
}

static void test_zeros(void **state)
{
	struct testimg *t = *state;

	assert_int_equal(testimg_run("head -c 8M /dev/zero >'%s'", t->img), 0);
	expect_open(t->img, 0, EXT2_ET_BAD_MAGIC, NULL);
	expect_open(t->img, E2SR_OPEN_FORCE, EXT2_ET_BAD_MAGIC, NULL);
}

static void test_clean(void **state)
{
	struct testimg *t = *state;

	mkfs(t, NULL);
	expect_open(t->img, 0, 0, NULL);
	expect_open(t->img, E2SR_OPEN_RDONLY, 0, NULL);
	expect_open(t->img, E2SR_OPEN_FORCE, 0, NULL);
}

static void test_fs_errors(void **state)
{
	struct testimg *t = *state;

	mkfs(t, NULL);
	debugfs(t, "ssv state 3\n");	/* valid, with errors */
	expect_open(t->img, 0, E2SR_ERR_FS_ERRORS, NULL);
	expect_open(t->img, E2SR_OPEN_RDONLY, E2SR_ERR_FS_ERRORS, NULL);
	expect_open(t->img, E2SR_OPEN_FORCE, 0, NULL);

	debugfs(t, "ssv state 2\n");	/* errors, not valid */
	expect_open(t->img, 0, E2SR_ERR_FS_ERRORS, NULL);
	expect_open(t->img, E2SR_OPEN_FORCE | E2SR_OPEN_RDONLY, 0, NULL);
}

static void test_unclean(void **state)
{
	struct testimg *t = *state;

	mkfs(t, NULL);
	debugfs(t, "ssv state 0\n");
	expect_open(t->img, 0, E2SR_ERR_UNCLEAN, NULL);
	expect_open(t->img, E2SR_OPEN_RDONLY, E2SR_ERR_UNCLEAN, NULL);
	expect_open(t->img, E2SR_OPEN_FORCE, 0, NULL);
}

/* Force never overrides a journal waiting for recovery. */
/*
 * needs_recovery over an empty journal: jbd2 has nothing to replay and
 * only moves the sequence on.  A read-write open recovers (clears the
 * flag), a dry run reads it as recovered and writes nothing.
 */
static void test_needs_recovery(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	char before[65], after[65];

	mkfs(t, NULL);
	debugfs(t, "feature needs_recovery\n");
	testimg_sha256(t->img, before);
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_VIEW);
	assert_int_equal(ctx->replay.recovery.nblocks, 0);
	e2sr_ctx_free(ctx);
	testimg_sha256(t->img, after);
	assert_string_equal(before, after);

	/* A read-write open decides, in memory too: nothing written yet. */
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, 0), 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_VIEW);
	testimg_sha256(t->img, after);
	assert_string_equal(before, after);
	assert_int_equal(e2sr_begin_write(ctx), 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_REPLAYED);
	assert_true(ctx->fs->flags & EXT2_FLAG_RW);
	assert_false(ext2fs_has_feature_journal_needs_recovery(
		ctx->fs->super));
	e2sr_close(ctx);
	e2sr_ctx_free(ctx);
	expect_open(t->img, 0, 0, NULL);
}

/*
 * mmp is the one incompat feature libext2fs opens and the engine does
 * not support.  A short update interval keeps libext2fs' MMP wait short.
 */
static void test_unsup_incompat_rdonly(void **state)
{
	struct testimg *t = *state;

	mkfs(t, "-t ext4 -b 4096 -O mmp -E mmp_update_interval=1");
	expect_open(t->img, E2SR_OPEN_RDONLY, E2SR_ERR_UNSUP_INCOMPAT, "mmp");
}

static void test_unsup_incompat_rw(void **state)
{
	struct testimg *t = *state;

	mkfs(t, "-t ext4 -b 4096 -O mmp -E mmp_update_interval=1");
	expect_open(t->img, 0, E2SR_ERR_UNSUP_INCOMPAT, "mmp");
}

static void test_unsup_ro_compat(void **state)
{
	struct testimg *t = *state;

	mkfs(t, "-t ext4 -b 4096 -O bigalloc -C 16384");
	expect_open(t->img, 0, E2SR_ERR_UNSUP_RO_COMPAT, "bigalloc");
	expect_open(t->img, E2SR_OPEN_RDONLY, E2SR_ERR_UNSUP_RO_COMPAT,
		    "bigalloc");
}

static void test_journal_dev(void **state)
{
	struct testimg *t = *state;

	mkfs(t, "-b 4096 -O journal_dev");
	expect_open(t->img, 0, E2SR_ERR_JOURNAL_DEV, NULL);
	expect_open(t->img, E2SR_OPEN_FORCE, E2SR_ERR_JOURNAL_DEV, NULL);
}

/* An image shorter than its filesystem is refused before any read. */
static void test_truncated(void **state)
{
	struct testimg *t = *state;

	mkfs(t, NULL);
	assert_int_equal(testimg_run("truncate -s 6M '%s'", t->img), 0);
	expect_open(t->img, 0, E2SR_ERR_TRUNCATED,
		    "filesystem has 2048 blocks, device 1536");
	expect_open(t->img, E2SR_OPEN_RDONLY | E2SR_OPEN_FORCE,
		    E2SR_ERR_TRUNCATED, NULL);
}

/* A read-only open succeeds and then refuses every write. */
static void test_rdonly_refuses_writes(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	char before[65], after[65];
	ext2_filsys fs;
	blk64_t blk = 0;

	mkfs(t, NULL);
	assert_int_equal(testimg_sha256(t->img, before), 0);
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(ctx->fs->flags & EXT2_FLAG_RW, 0);
	fs = ctx->fs;
	assert_int_equal(ext2fs_find_first_zero_block_bitmap2(fs->block_map,
				fs->super->s_first_data_block,
				ext2fs_blocks_count(fs->super) - 1, &blk), 0);
	assert_int_equal(e2sr_wipe_check(ctx, blk, 1), E2SR_ERR_READ_ONLY);
	assert_int_equal(e2sr_wipe_range(ctx, blk, 1), E2SR_ERR_READ_ONLY);
	assert_int_equal(e2sr_scrub_inode(ctx, 20), E2SR_ERR_READ_ONLY);
	assert_int_equal(e2sr_execute(ctx), E2SR_ERR_READ_ONLY);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);
}

/* Run by run, as libext2fs' bit-by-bit compare would say. */
/* A bitmap of @end + 1 bits from 0, padded to @end + 8, of @type. */
static ext2fs_generic_bitmap big_bitmap(ext2_filsys fs, int type,
					__u64 end)
{
	ext2fs_generic_bitmap b;

	assert_int_equal(ext2fs_alloc_generic_bmap(fs,
			 EXT2_ET_MAGIC_BLOCK_BITMAP64, type, 0, end, end + 7,
			 "big", &b), 0);
	return b;
}

/*
 * e2sr_bitmap_or(): into a flat bitmap and into an rbtree, from either,
 * over more than two chunks: every bit of both is set after, none else,
 * and the padding past the end is the target's own.
 */
static void test_bitmap_or(void **state)
{
	static const int types[] = { EXT2FS_BMAP64_BITARRAY,
				     EXT2FS_BMAP64_RBTREE };
	struct testimg *t = *state;
	ext2fs_generic_bitmap to, from, want;
	unsigned char pad[1];
	ext2_filsys fs;
	__u64 end = 600002;
	int a, b;

	mkfs(t, NULL);
	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	for (a = 0; a < 2; a++) {
		for (b = 0; b < 2; b++) {
			to = big_bitmap(fs, types[a], end);
			from = big_bitmap(fs, types[b], end);
			want = big_bitmap(fs, EXT2FS_BMAP64_BITARRAY, end);
			ext2fs_mark_block_bitmap_range2(to, 3, 10);
			ext2fs_mark_block_bitmap_range2(want, 3, 10);
			ext2fs_mark_block_bitmap_range2(from, 8, 20);
			ext2fs_mark_block_bitmap_range2(want, 8, 20);
			ext2fs_mark_block_bitmap_range2(from, 262140, 9);
			ext2fs_mark_block_bitmap_range2(want, 262140, 9);
			ext2fs_mark_block_bitmap2(from, end);
			ext2fs_mark_block_bitmap2(want, end);
			/* From's padding is not carried into to's. */
			ext2fs_set_generic_bmap_padding(from);
			assert_int_equal(e2sr_bitmap_or(to, from), 0);
			assert_true(e2sr_bitmaps_equal(to, want));
			assert_int_equal(ext2fs_get_generic_bmap_range(to,
					 600000, 8, pad), 0);
			assert_int_equal(pad[0], 0x04);
			ext2fs_free_generic_bmap(to);
			ext2fs_free_generic_bmap(from);
			ext2fs_free_generic_bmap(want);
		}
	}
	/* Two ranges: refused. */
	to = big_bitmap(fs, types[0], end);
	from = big_bitmap(fs, types[0], end - 1);
	assert_int_equal(e2sr_bitmap_or(to, from), EINVAL);
	ext2fs_free_generic_bmap(to);
	ext2fs_free_generic_bmap(from);
	ext2fs_free(fs);
}

static void test_bitmaps_equal(void **state)
{
	struct testimg *t = *state;
	ext2fs_block_bitmap a, b, c;
	ext2fs_inode_bitmap ia, ib;
	ext2_filsys fs;
	blk64_t first, last;
	unsigned char pad[1];

	mkfs(t, NULL);
	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	first = fs->super->s_first_data_block;
	last = ext2fs_blocks_count(fs->super) - 1;
	fs->default_bitmap_type = EXT2FS_BMAP64_BITARRAY;
	assert_int_equal(ext2fs_allocate_block_bitmap(fs, "a", &a), 0);
	fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	assert_int_equal(ext2fs_allocate_block_bitmap(fs, "b", &b), 0);
	assert_int_equal(ext2fs_allocate_block_bitmap(fs, "c", &c), 0);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	/* The same runs in two kinds of bitmap. */
	ext2fs_mark_block_bitmap_range2(a, first, 10);
	ext2fs_mark_block_bitmap_range2(b, first, 10);
	ext2fs_mark_block_bitmap_range2(a, last - 4, 5);
	ext2fs_mark_block_bitmap_range2(b, last - 4, 5);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)b,
				       (ext2fs_generic_bitmap)a));
	/* One bit more, at the end of a run, in the middle, at the end. */
	ext2fs_mark_block_bitmap2(b, first + 10);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	ext2fs_unmark_block_bitmap2(b, first + 10);
	ext2fs_mark_block_bitmap2(b, (first + last) / 2);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)b,
				       (ext2fs_generic_bitmap)a));
	ext2fs_unmark_block_bitmap2(b, (first + last) / 2);
	ext2fs_unmark_block_bitmap2(b, last);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	ext2fs_mark_block_bitmap2(b, last);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	/* Empty against set. */
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)c,
				       (ext2fs_generic_bitmap)a));

	assert_int_equal(ext2fs_allocate_inode_bitmap(fs, "ia", &ia), 0);
	assert_int_equal(ext2fs_allocate_inode_bitmap(fs, "ib", &ib), 0);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)ia,
				       (ext2fs_generic_bitmap)ib));
	ext2fs_mark_inode_bitmap2(ia, 1);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)ia,
				       (ext2fs_generic_bitmap)ib));
	ext2fs_mark_inode_bitmap2(ib, 1);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)ia,
				       (ext2fs_generic_bitmap)ib));
	ext2fs_mark_inode_bitmap2(ib, fs->super->s_inodes_count);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)ia,
				       (ext2fs_generic_bitmap)ib));
	ext2fs_free_block_bitmap(a);
	ext2fs_free_block_bitmap(b);
	ext2fs_free_block_bitmap(c);

	/*
	 * Longer than one chunk of the compare (2^18 bits), its end not on
	 * a byte: a bit at a chunk's edge and one in the last byte count,
	 * one past the end (in the padding up to real_end) does not.
	 */
	assert_int_equal(ext2fs_alloc_generic_bmap(fs,
			 EXT2_ET_MAGIC_BLOCK_BITMAP64, EXT2FS_BMAP64_BITARRAY,
			 0, 600002, 600009, "big a",
			 (ext2fs_generic_bitmap *)&a), 0);
	assert_int_equal(ext2fs_alloc_generic_bmap(fs,
			 EXT2_ET_MAGIC_BLOCK_BITMAP64, EXT2FS_BMAP64_RBTREE,
			 0, 600002, 600009, "big b",
			 (ext2fs_generic_bitmap *)&b), 0);
	ext2fs_mark_block_bitmap_range2(a, 262140, 8);
	ext2fs_mark_block_bitmap_range2(b, 262140, 8);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	ext2fs_mark_block_bitmap2(b, 262144 + 8);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	ext2fs_unmark_block_bitmap2(b, 262144 + 8);
	ext2fs_mark_block_bitmap2(a, 600002);
	assert_false(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	ext2fs_mark_block_bitmap2(b, 600002);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	/* Past the end: the padding libext2fs marks up to real_end. */
	ext2fs_set_generic_bmap_padding((ext2fs_generic_bitmap)a);
	assert_int_equal(ext2fs_get_generic_bmap_range(
			 (ext2fs_generic_bitmap)a, 600000, 8, pad), 0);
	assert_int_equal(pad[0], 0xfc);
	assert_true(e2sr_bitmaps_equal((ext2fs_generic_bitmap)a,
				       (ext2fs_generic_bitmap)b));
	ext2fs_free_block_bitmap(a);
	ext2fs_free_block_bitmap(b);
	ext2fs_free_inode_bitmap(ia);
	ext2fs_free_inode_bitmap(ib);
	ext2fs_free(fs);
}

/*
 * A block marked in use on disk after the checks (another writer, the
 * superblock untouched): the read-write handle's bitmaps differ from the
 * checked view, and begin_write refuses before anything is written.
 */
static void test_begin_write_changed(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	char before[65], after[65];
	ext2_filsys fs;
	blk64_t blk = 0;

	mkfs(t, "-t ext4 -O ^metadata_csum");
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, 0), 0);

	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS | EXT2_FLAG_RW,
				     0, 0, unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_read_bitmaps(fs), 0);
	assert_int_equal(ext2fs_find_first_zero_block_bitmap2(fs->block_map,
				fs->super->s_first_data_block,
				ext2fs_blocks_count(fs->super) - 1, &blk), 0);
	ext2fs_mark_block_bitmap2(fs->block_map, blk);
	ext2fs_mark_bb_dirty(fs);
	assert_int_equal(ext2fs_write_block_bitmap(fs), 0);
	ext2fs_free(fs);

	assert_int_equal(testimg_sha256(t->img, before), 0);
	assert_int_equal(e2sr_begin_write(ctx), E2SR_ERR_CHANGED);
	assert_string_equal(ctx->detail, "bitmaps differ from the checked view");
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);
}

/*
 * Orphans: a +s file deleted while open (links 0, on the list) and a
 * file being truncated (links 1, size below its blocks) after it.  A
 * dry run releases both in memory, the device untouched: the deleted
 * one's blocks and record free in the view, its map kept; the other cut
 * to its size.  A read-write open writes the release in
 * e2sr_begin_write() only; the result is clean and has no orphan.  A
 * list that loops is refused, device untouched.
 */
static void test_orphans(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	char before[65], after[65], path[PATH_MAX], script[2 * PATH_MAX + 256];
	struct ext2_inode inode;

	mkfs(t, "-t ext4 -b 1024");
	assert_int_equal(testimg_make_file(t, "data", 20000, 7), 0);
	assert_int_equal(testimg_path(t, "data", path, sizeof(path)), 0);
	snprintf(script, sizeof(script),
		 "write %s gone\nwrite %s cut\nunlink gone\n"
		 "sif <12> links_count 0\nsif <12> flags 0x80001\n"
		 "sif <12> dtime 13\nsif <13> size 3000\n"
		 "ssv last_orphan 12\n", path, path);
	debugfs(t, script);
	testimg_sha256(t->img, before);

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(ctx->orphans.n, 2);
	assert_int_equal(ctx->orphans.how, E2SR_RECOVERY_VIEW);
	assert_int_equal(ctx->orphans.v[0].ino, 12);
	assert_int_equal(ctx->orphans.v[0].links, 0);
	assert_int_equal(ctx->orphans.v[0].secrm, 1);
	assert_true(ctx->orphans.v[0].freed == 20);
	assert_int_equal(ctx->orphans.v[1].ino, 13);
	assert_int_equal(ctx->orphans.v[1].links, 1);
	assert_true(ctx->orphans.v[1].freed == 17);
	assert_int_equal(ctx->fs->super->s_last_orphan, 0);
	assert_false(ext2fs_test_inode_bitmap2(ctx->fs->inode_map, 12));
	assert_int_equal(ext2fs_read_inode(ctx->fs, 12, &inode), 0);
	assert_int_not_equal(inode.i_dtime, 13);
	assert_int_not_equal(inode.i_block[0], 0);	/* the map stays */
	assert_int_equal(ext2fs_read_inode(ctx->fs, 13, &inode), 0);
	assert_int_equal(inode.i_dtime, 0);
	e2sr_ctx_free(ctx);
	testimg_sha256(t->img, after);
	assert_string_equal(before, after);

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, 0), 0);
	testimg_sha256(t->img, after);
	assert_string_equal(before, after);
	assert_int_equal(e2sr_begin_write(ctx), 0);
	assert_int_equal(ctx->orphans.how, E2SR_RECOVERY_REPLAYED);
	assert_false(ext2fs_has_feature_journal_needs_recovery(
		ctx->fs->super));
	assert_int_equal(ctx->fs->super->s_last_orphan, 0);
	e2sr_close(ctx);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_run("e2fsck -fn '%s' >/dev/null 2>&1",
				     t->img), 0);
	expect_open(t->img, 0, 0, NULL);

	/* 13 names itself as the next: a loop. */
	debugfs(t, "ssv last_orphan 13\nsif <13> dtime 13\n");
	expect_open(t->img, 0, E2SR_ERR_ORPHANS,
		    "orphan inode 13 is listed twice");
	expect_open(t->img, E2SR_OPEN_RDONLY, E2SR_ERR_ORPHANS,
		    "orphan inode 13 is listed twice");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
						testimg_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_missing_file),
		T(test_zeros),
		T(test_clean),
		T(test_fs_errors),
		T(test_unclean),
		T(test_needs_recovery),
		T(test_unsup_incompat_rdonly),
		T(test_unsup_incompat_rw),
		T(test_unsup_ro_compat),
		T(test_journal_dev),
		T(test_truncated),
		T(test_rdonly_refuses_writes),
		T(test_bitmaps_equal),
		T(test_bitmap_or),
		T(test_begin_write_changed),
		T(test_orphans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
