/*
 * test_livemap.c --- the live set: every block the maps in use reference
 * and every inode the live directories name, built by the inventory
 * scan; and the refusals where the bitmaps disagree with it.
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
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "kinds.h"
#include "testimg.h"

/* Write a host file of @size bytes into the image as @name. */
static void put_file(struct testimg *t, const char *name, size_t size,
		     unsigned char seed)
{
	char host[PATH_MAX], script[2 * PATH_MAX + 16];

	assert_int_equal(testimg_make_file(t, "host", size, seed), 0);
	assert_int_equal(testimg_path(t, "host", host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s %s\n", host, name);
	assert_int_equal(testimg_debugfs(t, script), 0);
}

static void dfs(struct testimg *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void dfs(struct testimg *t, const char *fmt, ...)
{
	char script[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(script, sizeof(script), fmt, ap);
	va_end(ap);
	assert_int_equal(testimg_debugfs(t, script), 0);
}

struct every_block {
	ext2fs_block_bitmap	live;
	size_t			seen;
	size_t			missing;
	size_t			meta;
};

static int check_block(ext2_filsys fs EXT2FS_ATTR((unused)),
		       blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk EXT2FS_ATTR((unused)),
		       int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct every_block *eb = priv;

	eb->seen++;
	if (blockcnt < 0)
		eb->meta++;
	if (!ext2fs_test_block_bitmap2(eb->live, *blocknr))
		eb->missing++;
	return 0;
}

/* Every block libext2fs finds in @name's map is in the live set. */
static size_t expect_live_file(struct e2sr_ctx *ctx, const char *name,
			       size_t *meta, ext2_ino_t *ret)
{
	struct every_block eb;
	struct ext2_inode inode;
	ext2_ino_t ino;
	blk64_t ea;

	memset(&eb, 0, sizeof(eb));
	eb.live = ctx->live.blocks;
	assert_int_equal(ext2fs_namei(ctx->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      name, &ino), 0);
	assert_int_equal(ext2fs_block_iterate3(ctx->fs, ino,
					       BLOCK_FLAG_READ_ONLY, NULL,
					       check_block, &eb), 0);
	assert_int_equal(eb.missing, 0);
	assert_int_equal(ext2fs_read_inode(ctx->fs, ino, &inode), 0);
	ea = ext2fs_file_acl_block(ctx->fs, &inode);
	if (ea)
		assert_true(ext2fs_test_block_bitmap2(ctx->live.blocks, ea));
	assert_true(e2sr_live_inode(ctx, ino));
	if (meta)
		*meta = eb.meta;
	if (ret)
		*ret = ino;
	return eb.seen;
}

/* Blocks free by both sources are exactly those free in the bitmap. */
static void expect_free_agrees(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t used = e2sr_bitmap_count(fs->block_map, first, last);
	blk64_t b;

	assert_int_equal(e2sr_free_count(ctx), last - first + 1 - used);
	for (b = first; b <= last; b++)
		if (!ext2fs_test_block_bitmap2(fs->block_map, b))
			assert_false(e2sr_live_blocks(ctx, b, 1));
}

static void test_ext4(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	size_t i, meta = 0;
	ext2_ino_t ino, fino;
	blk64_t jblk = 0;
	char name[32];

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024"), 0);
	put_file(t, "data", 20 * 1024, 1);
	/* A tree of depth 1: written over the holes of removed files. */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		put_file(t, name, 1024, i);
	}
	for (i = 0; i < 40; i += 2)
		dfs(t, "rm f%zu\n", i);
	put_file(t, "frag", 30 * 1024, 7);
	dfs(t, "mkdir d\nmkdir d/e\n");
	put_file(t, "d/e/inner", 3000, 9);
	dfs(t, "ea_set -f %s/host data user.big\n", t->dir);

	ctx = open_img_live(t->img, E2SR_OPEN_RDONLY);
	assert_true(ctx->live.complete);
	assert_true(expect_live_file(ctx, "data", NULL, NULL) >= 20);
	assert_true(expect_live_file(ctx, "frag", &meta, &fino) >= 30);
	assert_true(meta >= 1);		/* the leaf block */
	expect_live_file(ctx, "d/e/inner", NULL, NULL);
	expect_live_file(ctx, "d", NULL, &ino);
	expect_live_file(ctx, "d/e", NULL, NULL);
	assert_true(e2sr_live_inode(ctx, EXT2_ROOT_INO));
	assert_true(e2sr_live_inode(ctx, 11));		/* lost+found */
	assert_false(e2sr_live_inode(ctx, fino + 200));
	/* No such inode: never free to scrub. */
	assert_true(e2sr_live_inode(ctx, 0));
	assert_true(e2sr_live_inode(ctx, ctx->fs->super->s_inodes_count + 1));
	/* Removed files' inodes: named by nothing. */
	assert_true(ext2fs_namei(ctx->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				 "f0", &ino) != 0);
	/* Metadata and the journal are in the set. */
	assert_true(e2sr_live_blocks(ctx, 1, 1));
	assert_true(e2sr_live_blocks(ctx, ext2fs_inode_table_loc(ctx->fs, 0),
				     1));
	assert_int_equal(ext2fs_find_first_set_block_bitmap2(
				ctx->journal_blocks, 1,
				ext2fs_blocks_count(ctx->fs->super) - 1,
				&jblk), 0);
	assert_true(e2sr_live_blocks(ctx, jblk, 1));
	expect_free_agrees(ctx);
	e2sr_ctx_free(ctx);
}

static void test_ext3(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	size_t meta = 0;

	assert_int_equal(testimg_mkfs(t, "-t ext3 -b 1024"), 0);
	put_file(t, "ind", 300 * 1024, 3);	/* IND and DIND */
	dfs(t, "ea_set -f %s/host ind user.big\n", t->dir);
	dfs(t, "symlink fast short\n");
	ctx = open_img_live(t->img, E2SR_OPEN_RDONLY);
	assert_true(expect_live_file(ctx, "ind", &meta, NULL) >= 300);
	assert_true(meta >= 3);
	expect_free_agrees(ctx);
	e2sr_ctx_free(ctx);
}

/* fallocate: unwritten extents are referenced; their owners noted. */
static void test_unwritten(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	ext2_ino_t ino, first;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024"), 0);
	dfs(t, "write /dev/null pre\nfallocate pre 0 63\n");
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	ctx->opts.sanitize = E2SR_FREE_ALL;
	assert_int_equal(e2sr_open(ctx, t->img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_unwritten_blocks(&ctx->inv), 64);
	assert_true(e2sr_live_all(ctx, ctx->inv.unwritten[0].pblk,
				  ctx->inv.unwritten[0].len));
	e2sr_ctx_free(ctx);

	/*
	 * Without --all-free they are referenced all the same, and their
	 * owner is noted (one bit, for a secure-delete map's blocks found
	 * under it later), but not each extent.
	 */
	ctx = open_img_live(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(ctx->inv.unwritten_count, 0);
	assert_non_null(ctx->live.unwritten_inodes);
	assert_int_equal(ext2fs_namei(ctx->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "pre", &ino), 0);
	assert_true(ext2fs_test_inode_bitmap2(ctx->live.unwritten_inodes,
					      ino));
	assert_int_equal(ext2fs_find_first_set_inode_bitmap2(
				ctx->live.unwritten_inodes, 1,
				ctx->fs->super->s_inodes_count, &first), 0);
	assert_int_equal(first, ino);
	assert_int_equal(ext2fs_find_first_set_inode_bitmap2(
				ctx->live.unwritten_inodes, ino + 1,
				ctx->fs->super->s_inodes_count, &first),
			 ENOENT);
	expect_live_file(ctx, "pre", NULL, NULL);
	e2sr_ctx_free(ctx);
}

/* The scan refuses, saying @want, and the set is not usable. */
static void expect_refused(struct testimg *t, const char *want)
{
	char before[65], after[65];
	struct e2sr_ctx *ctx;

	assert_int_equal(testimg_sha256(t->img, before), 0);
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_inventory_scan(ctx), E2SR_ERR_LIVE_FREE);
	if (!strstr(ctx->detail, want))
		print_error("detail \"%s\", want \"%s\"\n", ctx->detail,
			    want);
	assert_non_null(strstr(ctx->detail, want));
	assert_false(ctx->live.complete);
	assert_true(e2sr_live_blocks(ctx, 100, 1));
	assert_true(e2sr_live_inode(ctx, 20));
	assert_int_equal(e2sr_free_count(ctx), 0);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);
}

static blk64_t bmap0(struct testimg *t, const char *name, blk64_t lblk)
{
	struct ext2_inode inode;
	ext2_filsys fs;
	ext2_ino_t ino;
	blk64_t pblk = 0;

	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name,
				      &ino), 0);
	assert_int_equal(ext2fs_read_inode(fs, ino, &inode), 0);
	assert_int_equal(ext2fs_bmap2(fs, ino, &inode, NULL, 0, lblk, NULL,
				      &pblk), 0);
	ext2fs_free(fs);
	return pblk;
}

static void test_refuse_free_block(void **state)
{
	struct testimg *t = *state;
	char want[64];
	blk64_t blk;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024 -O ^metadata_csum"),
			 0);
	put_file(t, "data", 8 * 1024, 1);
	blk = bmap0(t, "data", 5);
	dfs(t, "freeb %llu\n", (unsigned long long)blk);
	snprintf(want, sizeof(want), "block %llu of inode 12 is marked free",
		 (unsigned long long)blk);
	expect_refused(t, want);
}

static void test_refuse_named(void **state)
{
	struct testimg *t = *state;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024"), 0);
	dfs(t, "mkdir d\n");
	put_file(t, "d/x", 100, 1);
	dfs(t, "freei d/x\n");
	expect_refused(t, "inode 13 named by directory 12 is marked free");
}

static void test_refuse_reserved(void **state)
{
	struct testimg *t = *state;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024"), 0);
	dfs(t, "freei <2>\n");
	expect_refused(t, "reserved inode 2 is marked free");
}

/* Two inodes' maps name one block (ext3: the pointer is in i_block). */
static void test_refuse_twice(void **state)
{
	struct testimg *t = *state;
	char want[64];
	blk64_t blk;

	assert_int_equal(testimg_mkfs(t, "-t ext3 -b 1024"), 0);
	put_file(t, "a", 4096, 1);
	put_file(t, "b", 4096, 2);
	blk = bmap0(t, "a", 1);
	dfs(t, "sif b block[2] %llu\n", (unsigned long long)blk);
	snprintf(want, sizeof(want), "block %llu of inode 13 is claimed twice",
		 (unsigned long long)blk);
	expect_refused(t, want);
}

static void test_refuse_outside(void **state)
{
	struct testimg *t = *state;

	assert_int_equal(testimg_mkfs(t, "-t ext3 -b 1024"), 0);
	put_file(t, "a", 4096, 1);
	dfs(t, "sif a block[1] 0x7ffffff0\n");
	expect_refused(t, "inode 12 maps block 2147483632, outside");
}

/* An extent header that does not verify: nothing can be proven. */
static void test_refuse_unreadable(void **state)
{
	struct testimg *t = *state;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 1024 -O ^metadata_csum"),
			 0);
	put_file(t, "a", 4096, 1);
	dfs(t, "sif a block[0] 0x12345678\n");
	expect_refused(t, "block map of inode 12 cannot be read");
}

/* An extent pointing into the inode table. */
static void test_refuse_metadata(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	char want[80];
	blk64_t itable;

	assert_int_equal(testimg_mkfs(t, "-t ext3 -b 1024"), 0);
	put_file(t, "a", 4096, 1);
	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	itable = ext2fs_inode_table_loc(ctx->fs, 0) + 3;
	e2sr_ctx_free(ctx);
	dfs(t, "sif a block[0] %llu\n", (unsigned long long)itable);
	snprintf(want, sizeof(want), "block %llu of inode 12 is filesystem "
		 "metadata", (unsigned long long)itable);
	expect_refused(t, want);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
						testimg_fixture_teardown)

/* The same again with the rbtree sets large filesystems get. */
static int rb_setup(void **state)
{
	e2sr_bitmap_force_type(EXT2FS_BMAP64_RBTREE);
	return testimg_fixture_setup(state);
}

static int rb_teardown(void **state)
{
	e2sr_bitmap_force_type(0);
	return testimg_fixture_teardown(state);
}

#define R(fn) cmocka_unit_test_setup_teardown(fn, rb_setup, rb_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ext4),
		T(test_ext3),
		T(test_unwritten),
		T(test_refuse_free_block),
		T(test_refuse_named),
		T(test_refuse_reserved),
		T(test_refuse_twice),
		T(test_refuse_outside),
		T(test_refuse_unreadable),
		T(test_refuse_metadata),
		R(test_ext4),
		R(test_ext3),
		R(test_unwritten),
		R(test_refuse_free_block),
		R(test_refuse_named),
		R(test_refuse_outside),
		R(test_refuse_metadata),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
