/*
 * test_scrub.c --- scrubbing the free record of a secure-delete file:
 * what is kept, what e2fsck thinks of the result, and what is refused.
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
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "kinds.h"
#include "testimg.h"

/* Byte offsets in a large record (struct ext2_inode_large). */
#define OFF_CSUM_LO	offsetof(struct ext2_inode_large, i_checksum_lo)
#define OFF_EXTRA	offsetof(struct ext2_inode_large, i_extra_isize)
#define OFF_CSUM_HI	offsetof(struct ext2_inode_large, i_checksum_hi)

/* Write /@name (+s, @size bytes), optionally remove it; its number. */
static ext2_ino_t secrm_file(struct testimg *t, const char *name,
			     size_t size, int remove)
{
	char host[PATH_MAX], script[2 * PATH_MAX + 64];
	struct ext2_inode inode;
	ext2_filsys fs;
	ext2_ino_t ino;

	assert_int_equal(testimg_make_file(t, name, size, 9), 0);
	assert_int_equal(testimg_path(t, name, host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s %s\n", host, name);
	assert_int_equal(testimg_debugfs(t, script), 0);

	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name,
				      &ino), 0);
	assert_int_equal(ext2fs_read_inode(fs, ino, &inode), 0);
	ext2fs_free(fs);

	snprintf(script, sizeof(script), "set_inode_field %s flags 0x%x\n%s",
		 name, inode.i_flags | EXT2_SECRM_FL, remove ? "rm " : "");
	if (remove) {
		strcat(script, name);
		strcat(script, "\n");
	}
	assert_int_equal(testimg_debugfs(t, script), 0);
	return ino;
}

/* Read the raw on-disk record of @ino, bypassing libext2fs. */
static int read_record(const char *img, ext2_ino_t ino, unsigned char *buf)
{
	ext2_filsys fs;
	dgrp_t group;
	off_t off;
	int fd, isize, n;

	assert_int_equal(ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	isize = EXT2_INODE_SIZE(fs->super);
	group = (ino - 1) / fs->super->s_inodes_per_group;
	off = (off_t)ext2fs_inode_table_loc(fs, group) * fs->blocksize +
	      (off_t)((ino - 1) % fs->super->s_inodes_per_group) * isize;
	ext2fs_free(fs);
	fd = open(img, O_RDONLY);
	assert_true(fd >= 0);
	n = pread(fd, buf, isize, off);
	close(fd);
	assert_int_equal(n, isize);
	return isize;
}

static void expect_fsck_clean(struct testimg *t)
{
	assert_int_equal(testimg_run("e2fsck -fn '%s' >'%s/fsck.log' 2>&1",
				     t->img, t->dir), 0);
}

static void test_scrub_record(void **state)
{
	static const __u16 bad[] = { 2, 30, 130, 132, 256, 0xfffc };
	unsigned char buf[1024];
	struct ext2_inode_large *inode = (void *)buf;
	struct e2sr_ctx *ctx;
	struct testimg *t = *state;
	size_t i;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(EXT2_INODE_SIZE(ctx->fs->super), 256);

	memset(buf, 0xab, sizeof(buf));
	inode->i_extra_isize = 32;
	e2sr_scrub_record(ctx->fs, inode);
	assert_int_equal(inode->i_extra_isize, 32);
	for (i = 0; i < 256; i++)
		if (i != OFF_EXTRA && i != OFF_EXTRA + 1)
			assert_int_equal(buf[i], 0);
	for (i = 256; i < sizeof(buf); i++)	/* past the record */
		assert_int_equal(buf[i], 0xab);

	memset(buf, 0xab, sizeof(buf));
	inode->i_extra_isize = 128;		/* the whole extra space */
	e2sr_scrub_record(ctx->fs, inode);
	assert_int_equal(inode->i_extra_isize, 128);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(buf, 0xab, sizeof(buf));
		inode->i_extra_isize = bad[i];
		e2sr_scrub_record(ctx->fs, inode);
		assert_int_equal(inode->i_extra_isize, 0);
		assert_true(buf[0] == 0 && buf[255] == 0);
	}
	e2sr_ctx_free(ctx);

	/* 128-byte records have no extra space to keep. */
	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 4096 -I 128"), 0);
	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(EXT2_INODE_SIZE(ctx->fs->super), 128);
	memset(buf, 0xab, sizeof(buf));
	e2sr_scrub_record(ctx->fs, inode);
	for (i = 0; i < 128; i++)
		assert_int_equal(buf[i], 0);
	for (i = 128; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xab);
	e2sr_ctx_free(ctx);
}

/* Scrub a deleted +s record; @csum says the image has metadata_csum. */
static ext2_ino_t scrub_deleted(struct testimg *t, const char *opts,
				int csum, size_t size)
{
	unsigned char rec[1024];
	struct ext2_inode_large *inode = (void *)rec;
	struct e2sr_ctx *ctx;
	ext2_ino_t ino;
	int isize, i;

	assert_int_equal(testimg_mkfs(t, opts), 0);
	ino = secrm_file(t, "f", size, 1);
	isize = read_record(t->img, ino, rec);
	assert_int_equal(isize, 256);
	assert_int_equal(inode->i_flags & EXT2_SECRM_FL, EXT2_SECRM_FL);
	assert_int_not_equal(inode->i_dtime, 0);

	ctx = open_img_live(t->img, 0);
	assert_int_equal(e2sr_scrub_inode(ctx, ino), 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_RECORDS][0], 1);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);

	memset(rec, 0xab, sizeof(rec));
	read_record(t->img, ino, rec);
	assert_int_equal(inode->i_extra_isize, 32);
	for (i = 0; i < isize; i++) {
		if (i == OFF_EXTRA || i == OFF_EXTRA + 1)
			continue;
		/* libext2fs sets the checksum of what it writes. */
		if (csum && (i == OFF_CSUM_LO || i == OFF_CSUM_LO + 1 ||
			     i == OFF_CSUM_HI || i == OFF_CSUM_HI + 1))
			continue;
		if (rec[i])
			print_error("record byte %d is 0x%02x\n", i, rec[i]);
		assert_int_equal(rec[i], 0);
	}
	expect_fsck_clean(t);
	return ino;
}

static void test_scrub_deleted(void **state)
{
	scrub_deleted(*state, "-t ext4 -b 4096 -O ^metadata_csum", 0,
		      3 * 4096);
}

static void test_scrub_deleted_csum(void **state)
{
	struct testimg *t = *state;
	unsigned char rec[256];
	ext2_filsys fs;
	ext2_ino_t ino;

	ino = scrub_deleted(t, NULL, 1, 3 * 4096);
	/* The checksum it left verifies. */
	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_read_inode_full(fs, ino,
						(struct ext2_inode *)rec,
						sizeof(rec)), 0);
	ext2fs_free(fs);
}

/* Inline contents live in the record, so scrubbing removes them. */
static void test_scrub_deleted_inline(void **state)
{
	scrub_deleted(*state, "-t ext4 -b 4096 -O inline_data", 1, 40);
}

static void test_refuse_in_use(void **state)
{
	struct testimg *t = *state;
	char before[65], after[65];
	struct e2sr_ctx *ctx;
	ext2_ino_t ino;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ino = secrm_file(t, "f", 4096, 0);
	assert_int_equal(testimg_sha256(t->img, before), 0);
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_scrub_inode(ctx, ino), E2SR_ERR_INODE_IN_USE);
	assert_int_equal(e2sr_scrub_inode(ctx, EXT2_ROOT_INO),
			 E2SR_ERR_INODE_IN_USE);
	assert_int_equal(e2sr_scrub_inode(ctx, EXT2_JOURNAL_INO),
			 E2SR_ERR_INODE_IN_USE);
	assert_int_equal(e2sr_scrub_inode(ctx, 0), EXT2_ET_BAD_INODE_NUM);
	assert_int_equal(e2sr_scrub_inode(ctx,
					  ctx->fs->super->s_inodes_count + 1),
			 EXT2_ET_BAD_INODE_NUM);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_RECORDS][0], 0);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);
}

static void test_refuse_read_only(void **state)
{
	struct testimg *t = *state;
	char before[65], after[65];
	struct e2sr_ctx *ctx;
	ext2_ino_t ino;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ino = secrm_file(t, "f", 4096, 1);
	assert_int_equal(testimg_sha256(t->img, before), 0);
	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(e2sr_scrub_inode(ctx, ino), E2SR_ERR_READ_ONLY);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);
}

/* The whole run: plan, wipe, scrub; then nothing is left to find. */
static void test_execute(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	ext2_ino_t ino;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ino = secrm_file(t, "f", 6 * 4096, 1);
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(ctx->inv.count, 1);
	assert_int_equal(ctx->inv.files[0].ino, ino);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.data_count, 6);
	assert_int_equal(e2sr_execute(ctx), 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_DATA][0], 6);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_META][0], 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_RECORDS][0], 1);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	expect_fsck_clean(t);

	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(ctx->inv.count, 0);
	e2sr_ctx_free(ctx);
}

/*
 * Execute writes the plan's list and nothing else: with the record's
 * action taken out of the list, the blocks go and the record stays,
 * whatever else the plan holds of it.
 */
static void test_execute_list(void **state)
{
	struct testimg *t = *state;
	unsigned char before[1024], after[1024];
	struct e2sr_ctx *ctx;
	struct e2sr_plan *plan;
	ext2_ino_t ino;
	size_t i, n = 0;
	int isize;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ino = secrm_file(t, "f", 6 * 4096, 1);
	isize = read_record(t->img, ino, before);
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	plan = &ctx->plan;
	assert_int_equal(plan->inode_count, 1);
	for (i = 0; i < plan->action_count; i++) {
		if (plan->actions[i].kind == E2SR_KIND_RECORDS) {
			assert_int_equal(plan->actions[i].ino, ino);
			continue;
		}
		plan->actions[n++] = plan->actions[i];
	}
	assert_int_equal(n + 1, plan->action_count);
	plan->action_count = n;
	assert_int_equal(e2sr_execute_check(ctx), 0);
	assert_int_equal(e2sr_execute(ctx), 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_DATA][0], 6);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_RECORDS][0], 0);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	read_record(t->img, ino, after);
	assert_memory_equal(before, after, isize);

	/* The record is still there to find, and its blocks are not. */
	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.inode_count, 1);
	e2sr_ctx_free(ctx);
}

/* The first block of the root directory, and its bytes now. */
static blk64_t root_block(const char *img, unsigned char *buf, size_t bs)
{
	ext2_filsys fs;
	blk64_t blk = 0;
	int fd;

	assert_int_equal(ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(fs->blocksize, bs);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_ROOT_INO, NULL, NULL, 0, 0,
				      NULL, &blk), 0);
	ext2fs_free(fs);
	fd = open(img, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, bs, (off_t)blk * bs), (ssize_t)bs);
	close(fd);
	return blk;
}

/*
 * A name no longer as the list says (its crc): the writer stops at it
 * with E2SR_ERR_CHANGED.  The directory block is not written, and
 * neither is anything after it in the list (the record); what came
 * before it (the freed blocks) is.
 */
static void test_execute_changed(void **state)
{
	struct testimg *t = *state;
	unsigned char dir_before[4096], dir_after[4096];
	unsigned char rec_before[1024], rec_after[1024];
	struct e2sr_ctx *ctx;
	struct e2sr_plan *plan;
	ext2_ino_t ino;
	size_t i, names = 0;
	int isize;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	ino = secrm_file(t, "f", 6 * 4096, 1);
	isize = read_record(t->img, ino, rec_before);
	root_block(t->img, dir_before, sizeof(dir_before));
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	plan = &ctx->plan;
	for (i = 0; i < plan->action_count; i++)
		if (plan->actions[i].kind == E2SR_KIND_NAMES) {
			assert_int_equal(plan->actions[i].owner, ino);
			plan->actions[i].crc ^= 1;
			names++;
		}
	assert_int_equal(names, 1);
	assert_int_equal(e2sr_execute_check(ctx), 0);
	assert_int_equal(e2sr_execute(ctx), E2SR_ERR_CHANGED);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_DATA][0], 6);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_NAMES][0], 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_RECORDS][0], 0);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	root_block(t->img, dir_after, sizeof(dir_after));
	assert_memory_equal(dir_before, dir_after, sizeof(dir_before));
	read_record(t->img, ino, rec_after);
	assert_memory_equal(rec_before, rec_after, isize);
	expect_fsck_clean(t);
}

/*
 * --free-inodes: a free record planned for scrubbing that is in use by
 * the time it would be written is refused, by the check before the
 * first write and by the writer itself, and its record stays.
 */
static void test_free_record_changed(void **state)
{
	struct testimg *t = *state;
	unsigned char before[1024], after[1024];
	char host[PATH_MAX], script[2 * PATH_MAX + 64];
	struct e2sr_ctx *ctx;
	struct e2sr_plan *plan;
	ext2_ino_t ino = 0;
	size_t i;
	int isize;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	assert_int_equal(testimg_make_file(t, "plain", 3000, 5), 0);
	assert_int_equal(testimg_path(t, "plain", host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s plain\nrm plain\n",
		 host);
	assert_int_equal(testimg_debugfs(t, script), 0);

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	ctx->opts.sanitize = E2SR_FREE_INODES;
	assert_int_equal(e2sr_open(ctx, t->img, 0), 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	plan = &ctx->plan;
	for (i = 0; i < plan->action_count; i++)
		if (plan->actions[i].kind == E2SR_KIND_FREE_RECORDS)
			ino = plan->actions[i].ino;
	assert_true(ino != 0);
	isize = read_record(t->img, ino, before);
	/* In use now, as the check on the read-only handle sees it... */
	ext2fs_mark_inode_bitmap2(ctx->fs->inode_map, ino);
	assert_int_equal(e2sr_execute_check(ctx), E2SR_ERR_CHANGED);
	ext2fs_unmark_inode_bitmap2(ctx->fs->inode_map, ino);
	/* ...and as the writer sees it, on the read-write one. */
	assert_int_equal(e2sr_begin_write(ctx), 0);
	ext2fs_mark_inode_bitmap2(ctx->fs->inode_map, ino);
	assert_int_equal(e2sr_execute(ctx), E2SR_ERR_CHANGED);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_FREE_RECORDS][0], 0);
	ext2fs_unmark_inode_bitmap2(ctx->fs->inode_map, ino);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	read_record(t->img, ino, after);
	assert_memory_equal(before, after, isize);
	expect_fsck_clean(t);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
						testimg_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_scrub_record),
		T(test_scrub_deleted),
		T(test_scrub_deleted_csum),
		T(test_scrub_deleted_inline),
		T(test_refuse_in_use),
		T(test_refuse_read_only),
		T(test_execute),
		T(test_execute_list),
		T(test_execute_changed),
		T(test_free_record_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
