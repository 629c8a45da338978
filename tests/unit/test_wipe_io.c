/*
 * test_wipe_io.c --- the guarded write path: what e2sr_wipe_check()
 * refuses, and that e2sr_wipe_range() writes the target and nothing else.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "find.h"
#include "write.h"
#include "crc32c.h"
#include "journal.h"
#include "write_int.h"
#include "testimg.h"

#define BS	4096

static unsigned char *read_image(const char *img, size_t *len)
{
	unsigned char *buf;
	struct stat st;
	int fd;

	fd = open(img, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, st.st_size, 0), st.st_size);
	close(fd);
	*len = st.st_size;
	/* What the run wrote, the superblock's mark of a writer aside. */
	testimg_mask_mark(buf, *len);
	return buf;
}

static int all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Image bytes equal outside blocks [blk, blk + count). */
static void same_outside(const unsigned char *a, const unsigned char *b,
			 size_t len, blk64_t blk, blk64_t count)
{
	size_t lo = blk * BS, hi = (blk + count) * BS;

	assert_true(hi <= len);
	assert_memory_equal(a, b, lo);
	assert_memory_equal(a + hi, b + hi, len - hi);
}

/*
 * A file of non-zero bytes, removed: its blocks are free and still hold
 * their contents.  Returns the file's first block; the file has 8.
 */
static blk64_t removed_file(struct testimg *t)
{
	char host[PATH_MAX], script[2 * PATH_MAX + 32];
	struct ext2_inode inode;
	ext2_filsys fs;
	ext2_ino_t ino;
	blk64_t pblk, b;
	int i;

	assert_int_equal(testimg_make_file(t, "f", 8 * BS, 3), 0);
	assert_int_equal(testimg_path(t, "f", host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s f\n", host);
	assert_int_equal(testimg_debugfs(t, script), 0);

	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "f",
				      &ino), 0);
	assert_int_equal(ext2fs_read_inode(fs, ino, &inode), 0);
	assert_int_equal(ext2fs_bmap2(fs, ino, &inode, NULL, 0, 0, NULL,
				      &pblk), 0);
	for (i = 1; i < 8; i++) {
		assert_int_equal(ext2fs_bmap2(fs, ino, &inode, NULL, 0, i,
					      NULL, &b), 0);
		assert_int_equal(b, pblk + i);	/* one extent */
	}
	ext2fs_free(fs);
	assert_int_equal(testimg_debugfs(t, "rm f\n"), 0);
	return pblk;
}

/* A live file "live" of two blocks, and its first block. */
static ext2_ino_t live_file(struct testimg *t, struct e2sr_ctx **ctx,
			    blk64_t *first)
{
	char host[PATH_MAX], script[2 * PATH_MAX + 32];
	struct ext2_inode inode;
	ext2_ino_t ino;

	assert_int_equal(testimg_make_file(t, "live", 2 * BS, 5), 0);
	assert_int_equal(testimg_path(t, "live", host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s live\n", host);
	assert_int_equal(testimg_debugfs(t, script), 0);

	*ctx = open_img_live(t->img, 0);
	assert_int_equal(ext2fs_namei((*ctx)->fs, EXT2_ROOT_INO,
				      EXT2_ROOT_INO, "live", &ino), 0);
	assert_int_equal(ext2fs_read_inode((*ctx)->fs, ino, &inode), 0);
	assert_int_equal(ext2fs_bmap2((*ctx)->fs, ino, &inode, NULL, 0, 0,
				      NULL, first), 0);
	return ino;
}

static void test_refuse_allocated(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	blk64_t live = 0, itable, free_blk;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	live_file(t, &ctx, &live);
	itable = ext2fs_inode_table_loc(ctx->fs, 0);

	/* The filesystem's own metadata is refused before the bitmap. */
	assert_int_equal(e2sr_wipe_check(ctx, 0, 1),
			 E2SR_ERR_WRITE_METADATA);	/* superblock */
	assert_int_equal(e2sr_wipe_check(ctx, itable, 1),
			 E2SR_ERR_WRITE_METADATA);
	assert_int_equal(e2sr_wipe_check(ctx, live, 1),
			 E2SR_ERR_WRITE_ALLOCATED);
	assert_int_equal(e2sr_wipe_check(ctx, live + 1, 1),
			 E2SR_ERR_WRITE_ALLOCATED);

	/* A run that starts free and ends on the live file. */
	assert_int_equal(live > 0 &&
			 !ext2fs_test_block_bitmap2(ctx->fs->block_map,
						    live + 2), 1);
	free_blk = live + 2;
	assert_int_equal(e2sr_wipe_check(ctx, free_blk, 1), 0);
	assert_int_equal(e2sr_wipe_check(ctx, live + 1, 2),
			 E2SR_ERR_WRITE_ALLOCATED);
	assert_int_equal(e2sr_wipe_range(ctx, live, 1),
			 E2SR_ERR_WRITE_ALLOCATED);
	assert_int_equal(ctx->stats.write_calls, 0);
	e2sr_ctx_free(ctx);
}

static void test_refuse_range(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	blk64_t end;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ctx = open_img_live(t->img, 0);
	end = ext2fs_blocks_count(ctx->fs->super);
	assert_int_equal(end, 2048);
	assert_int_equal(ext2fs_test_block_bitmap2(ctx->fs->block_map,
						   end - 1), 0);
	assert_int_equal(e2sr_wipe_check(ctx, end - 1, 1), 0);
	assert_int_equal(e2sr_wipe_check(ctx, end, 1), E2SR_ERR_WRITE_RANGE);
	assert_int_equal(e2sr_wipe_check(ctx, end - 1, 2),
			 E2SR_ERR_WRITE_RANGE);
	assert_int_equal(e2sr_wipe_check(ctx, end - 1, 0),
			 E2SR_ERR_WRITE_RANGE);
	assert_int_equal(e2sr_wipe_check(ctx, end - 1, ~0ULL),
			 E2SR_ERR_WRITE_RANGE);
	assert_int_equal(e2sr_wipe_check(ctx, ~0ULL, 1),
			 E2SR_ERR_WRITE_RANGE);
	assert_int_equal(e2sr_wipe_range(ctx, end, 1), E2SR_ERR_WRITE_RANGE);
	e2sr_ctx_free(ctx);

	/* At 1k blocks block 0 is before the filesystem. */
	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024"), 0);
	ctx = open_img_live(t->img, 0);
	assert_int_equal(ctx->fs->super->s_first_data_block, 1);
	assert_int_equal(e2sr_wipe_check(ctx, 0, 1), E2SR_ERR_WRITE_RANGE);
	e2sr_ctx_free(ctx);
}

static void test_refuse_journal(void **state)
{
	struct testimg *t = *state;
	struct ext2_inode inode;
	struct e2sr_ctx *ctx;
	blk64_t jblk = 0, first = 0, last = 0;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ctx = open_img_live(t->img, 0);
	assert_int_equal(ctx->fs->super->s_journal_inum, EXT2_JOURNAL_INO);
	assert_int_equal(ext2fs_read_inode(ctx->fs, EXT2_JOURNAL_INO, &inode),
			 0);
	assert_int_equal(ext2fs_bmap2(ctx->fs, EXT2_JOURNAL_INO, &inode, NULL,
				      0, 0, NULL, &first), 0);
	assert_int_not_equal(first, 0);
	assert_int_equal(ext2fs_bmap2(ctx->fs, EXT2_JOURNAL_INO, &inode, NULL,
				      0, EXT2_I_SIZE(&inode) / BS - 1, NULL,
				      &last), 0);
	assert_non_null(ctx->journal_blocks);
	assert_true(ext2fs_test_block_bitmap2(ctx->journal_blocks, first));
	assert_true(ext2fs_test_block_bitmap2(ctx->journal_blocks, last));
	assert_int_equal(ext2fs_find_first_set_block_bitmap2(
				ctx->journal_blocks, 0,
				ext2fs_blocks_count(ctx->fs->super) - 1,
				&jblk), 0);

	assert_int_equal(e2sr_wipe_check(ctx, first, 1),
			 E2SR_ERR_WRITE_JOURNAL);
	assert_int_equal(e2sr_wipe_check(ctx, last, 1),
			 E2SR_ERR_WRITE_JOURNAL);
	assert_int_equal(e2sr_wipe_check(ctx, jblk, 1),
			 E2SR_ERR_WRITE_JOURNAL);
	/* A run that ends inside the journal. */
	if (!ext2fs_test_block_bitmap2(ctx->fs->block_map, last + 1))
		assert_int_equal(e2sr_wipe_check(ctx, last, 2),
				 E2SR_ERR_WRITE_JOURNAL);
	assert_int_equal(e2sr_wipe_range(ctx, first, 1),
			 E2SR_ERR_WRITE_JOURNAL);
	e2sr_ctx_free(ctx);
}

static void test_accept_free(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	blk64_t pblk;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	pblk = removed_file(t);
	ctx = open_img_live(t->img, 0);
	assert_int_equal(e2sr_wipe_check(ctx, pblk, 1), 0);
	assert_int_equal(e2sr_wipe_check(ctx, pblk, 8), 0);
	e2sr_ctx_free(ctx);

	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(e2sr_wipe_check(ctx, pblk, 1), E2SR_ERR_READ_ONLY);
	e2sr_ctx_free(ctx);
}

static void test_wipe_zero(void **state)
{
	struct testimg *t = *state;
	unsigned char *before, *after;
	struct e2sr_ctx *ctx;
	size_t len, len2;
	blk64_t pblk;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	pblk = removed_file(t);
	before = read_image(t->img, &len);
	assert_false(all_zero(before + pblk * BS, 3 * BS));

	ctx = open_img_live(t->img, 0);
	ctx->opts.method = E2SR_METHOD_ZERO;
	assert_int_equal(e2sr_wipe_range(ctx, pblk + 1, 3), 0);
	assert_int_equal(ctx->stats.write_calls, 1);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);

	after = read_image(t->img, &len2);
	assert_int_equal(len, len2);
	assert_true(all_zero(after + (pblk + 1) * BS, 3 * BS));
	same_outside(before, after, len, pblk + 1, 3);
	free(before);
	free(after);
}

static void test_wipe_random(void **state)
{
	struct testimg *t = *state;
	unsigned char *before, *after, *a, *b;
	struct e2sr_ctx *ctx;
	size_t len, len2;
	blk64_t pblk;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	pblk = removed_file(t);
	before = read_image(t->img, &len);

	ctx = open_img_live(t->img, 0);
	ctx->opts.method = E2SR_METHOD_RANDOM;
	assert_int_equal(e2sr_wipe_range(ctx, pblk + 2, 2), 0);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);

	after = read_image(t->img, &len2);
	assert_int_equal(len, len2);
	a = after + (pblk + 2) * BS;
	b = a + BS;
	assert_false(all_zero(a, BS));
	assert_false(all_zero(b, BS));
	assert_memory_not_equal(a, b, BS);
	assert_memory_not_equal(a, before + (pblk + 2) * BS, BS);
	assert_memory_not_equal(b, before + (pblk + 3) * BS, BS);
	same_outside(before, after, len, pblk + 2, 2);
	free(before);
	free(after);
}

/* wipe_runs writes the runs its actions name, and only those. */
static void test_wipe_runs(void **state)
{
	struct testimg *t = *state;
	unsigned char *before, *after;
	struct e2sr_action run[2] = {
		{ .kind = E2SR_KIND_DATA, .count = 3 },
		{ .kind = E2SR_KIND_DATA, .count = 5 },
	};
	struct e2sr_ctx *ctx;
	size_t len, len2;
	blk64_t pblk;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	pblk = removed_file(t);
	before = read_image(t->img, &len);

	ctx = open_img_live(t->img, 0);
	run[0].blk = pblk;
	run[1].blk = pblk + 3;
	assert_int_equal(e2sr_wipe_runs(ctx, run, 2), 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_DATA][0], 8);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);

	after = read_image(t->img, &len2);
	assert_int_equal(len, len2);
	assert_true(all_zero(after + pblk * BS, 8 * BS));
	same_outside(before, after, len, pblk, 8);
	free(before);
	free(after);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
						testimg_fixture_teardown)

/*
 * The guards of what is rewritten through libext2fs: a directory block
 * only if it is a live directory's, a record only if free by both
 * sources and not reserved, inode table blocks only inside the table.
 */
static void test_guards(void **state)
{
	struct testimg *t = *state;
	struct ext2_inode inode;
	struct e2sr_ctx *ctx;
	ext2_ino_t live, gone = 0;
	blk64_t dirblk, fileblk, itable, freed;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	freed = removed_file(t);
	live = live_file(t, &ctx, &fileblk);
	assert_int_equal(ext2fs_read_inode(ctx->fs, EXT2_ROOT_INO, &inode), 0);
	assert_int_equal(ext2fs_bmap2(ctx->fs, EXT2_ROOT_INO, &inode, NULL, 0,
				      0, NULL, &dirblk), 0);
	itable = ext2fs_inode_table_loc(ctx->fs, 0);
	/* The removed file's record: free, its number not reused. */
	for (gone = EXT2_FIRST_INODE(ctx->fs->super);
	     gone < ctx->fs->super->s_inodes_count; gone++)
		if (gone != live &&
		    !ext2fs_test_inode_bitmap2(ctx->fs->inode_map, gone))
			break;

	assert_int_equal(e2sr_wipe_check_dir(ctx, EXT2_ROOT_INO, 1), 0);
	assert_int_equal(e2sr_live_all(ctx, dirblk, 1), 1);
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   dirblk, 1), 0);
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   fileblk, 1),
			 E2SR_ERR_WRITE_DIR);	/* a live file's block */
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   freed, 1),
			 E2SR_ERR_WRITE_DIR);	/* a free block */
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   itable, 1),
			 E2SR_ERR_WRITE_METADATA);
	assert_int_equal(e2sr_wipe_check_dir(ctx, gone, 1),
			 E2SR_ERR_WRITE_DIR);	/* not in use */

	assert_int_equal(e2sr_wipe_check_record(ctx, gone, 1), 0);
	assert_int_equal(e2sr_wipe_check_record(ctx, live, 1),
			 E2SR_ERR_INODE_IN_USE);
	assert_int_equal(e2sr_wipe_check_record(ctx, EXT2_JOURNAL_INO, 1),
			 E2SR_ERR_INODE_IN_USE);	/* reserved */
	assert_int_equal(e2sr_wipe_check_record(ctx, 0, 1),
			 EXT2_ET_BAD_INODE_NUM);

	assert_int_equal(e2sr_wipe_check_itable(ctx, 0, itable, 1, 1), 0);
	assert_int_equal(e2sr_wipe_check_itable(ctx, 0, itable - 1, 1, 1),
			 E2SR_ERR_WRITE_ITABLE);
	assert_int_equal(e2sr_wipe_check_itable(ctx, 0, itable,
			 ctx->fs->inode_blocks_per_group + 1, 1),
			 E2SR_ERR_WRITE_ITABLE);
	assert_int_equal(e2sr_wipe_check_itable(ctx,
			 ctx->fs->group_desc_count, itable, 1, 1),
			 E2SR_ERR_WRITE_ITABLE);
	assert_int_equal(ctx->stats.write_calls, 0);
	e2sr_ctx_free(ctx);

	/* Read-only, the same guards refuse any write at all. */
	ctx = open_img_live(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(e2sr_wipe_check_record(ctx, gone, 1),
			 E2SR_ERR_READ_ONLY);
	assert_int_equal(e2sr_wipe_check_record(ctx, gone, 0), 0);
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   dirblk, 1),
			 E2SR_ERR_READ_ONLY);
	/* Checked before the first write: the same rules, no write. */
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   dirblk, 0), 0);
	assert_int_equal(e2sr_wipe_check_dir_block(ctx, EXT2_ROOT_INO,
						   fileblk, 0),
			 E2SR_ERR_WRITE_DIR);
	assert_int_equal(e2sr_wipe_check_itable(ctx, 0, itable, 1, 1),
			 E2SR_ERR_READ_ONLY);
	e2sr_ctx_free(ctx);
}

/* Block @phys of the image @img as it is now. */
static void read_jblock(const char *img, blk64_t phys, unsigned char *buf)
{
	int fd = open(img, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, BS, phys * BS), BS);
	close(fd);
}

/*
 * Shared journal copies that follow each other go out in one read and
 * one write; one that no longer reads as planned stops its whole run
 * before anything of it is written, and only the parts are ever zeroed.
 */
static void test_journal_parts(void **state)
{
	struct testimg *t = *state;
	unsigned char *before, *after, blk[4][BS];
	struct e2sr_action a[5];
	struct e2sr_ctx *ctx;
	blk64_t phys[4];
	size_t len, len2, i;
	int fd;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	/* Stale copies in journal blocks 5, 6, 7 and 9: any bytes. */
	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_non_null(ctx->journal);
	for (i = 0; i < 4; i++)
		phys[i] = e2sr_journal_phys(ctx->journal, i < 3 ? 5 + i : 9);
	e2sr_ctx_free(ctx);
	assert_int_equal(phys[1], phys[0] + 1);
	fd = open(t->img, O_WRONLY);
	assert_true(fd >= 0);
	for (i = 0; i < 4; i++) {
		memset(blk[i], 0x41 + i, BS);
		assert_int_equal(pwrite(fd, blk[i], BS, phys[i] * BS), BS);
	}
	close(fd);

	memset(a, 0, sizeof(a));
	for (i = 0; i < 5; i++) {
		a[i].kind = E2SR_KIND_JOURNAL;
		a[i].why = E2SR_WHY_JOURNAL + E2SR_JWHY_NAME;
		a[i].count = 1;
		a[i].len = 8;
	}
	a[0].blk = 5;
	a[0].off = 16;
	a[1].blk = 5;
	a[1].off = 100;
	a[1].len = 4;
	a[2].blk = 6;
	a[2].off = 0;
	a[3].blk = 7;
	a[3].off = BS - 8;
	a[4].blk = 9;
	a[4].off = 200;
	a[0].crc = a[1].crc = e2sr_crc32c_le(~0U, blk[0], BS);
	a[2].crc = e2sr_crc32c_le(~0U, blk[1], BS);
	a[3].crc = e2sr_crc32c_le(~0U, blk[2], BS) ^ 1;	/* changed */
	a[4].crc = e2sr_crc32c_le(~0U, blk[3], BS);

	before = read_image(t->img, &len);
	ctx = open_img_live(t->img, 0);
	assert_int_equal(e2sr_wipe_journal_apply(ctx, a, 5), E2SR_ERR_CHANGED);
	assert_int_equal(ctx->stats.write_calls, 0);
	e2sr_ctx_free(ctx);
	after = read_image(t->img, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(before, after, len);
	free(after);

	a[3].crc ^= 1;
	ctx = open_img_live(t->img, 0);
	assert_int_equal(e2sr_wipe_journal_apply(ctx, a, 5), 0);
	/* Blocks 5-7 in one write, block 9 in another. */
	assert_int_equal(ctx->stats.write_calls, 2);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_JOURNAL][0], 4);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	for (i = 0; i < 5; i++)
		memset(blk[a[i].blk == 9 ? 3 : a[i].blk - 5] + a[i].off, 0,
		       a[i].len);
	for (i = 0; i < 4; i++) {
		unsigned char now[BS];

		read_jblock(t->img, phys[i], now);
		assert_memory_equal(now, blk[i], BS);
		memcpy(before + phys[i] * BS, now, BS);
	}
	after = read_image(t->img, &len2);
	assert_memory_equal(before, after, len);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_refuse_allocated),
		T(test_refuse_range),
		T(test_refuse_journal),
		T(test_accept_free),
		T(test_wipe_zero),
		T(test_wipe_random),
		T(test_wipe_runs),
		T(test_guards),
		T(test_journal_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
