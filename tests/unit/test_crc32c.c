/*
 * test_crc32c.c --- the CPU's crc32c against libext2fs', and the record
 * checksum computed with it against ext2fs_inode_csum_verify().
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "crc32c.h"
#include "testimg.h"

/*
 * Every length to 300, a block, and lengths around the three-stream
 * cut (3 x 1360 bytes, and twice that), at every alignment, two seeds.
 */
static void test_crc_matches_library(void **state)
{
	static const size_t longer[] = { 4079, 4080, 4081, 4095, 8159,
					 8160, 8161, 12000 };
	static unsigned char buf[12000 + 16];
	size_t len, off, i;
	__u32 seeds[2] = { ~0U, 0x12345678 };
	int s;

	(void)state;
	srand(7);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = rand();
	for (s = 0; s < 2; s++) {
		for (off = 0; off < 8; off++) {
			for (len = 0; len <= 300; len++)
				assert_int_equal(
					e2sr_crc32c_le(seeds[s], buf + off,
						       len),
					ext2fs_crc32c_le(seeds[s], buf + off,
							 len));
			assert_int_equal(e2sr_crc32c_le(seeds[s], buf + off,
							4096),
					 ext2fs_crc32c_le(seeds[s], buf + off,
							  4096));
			for (i = 0; i < sizeof(longer) / sizeof(longer[0]);
			     i++)
				assert_int_equal(
					e2sr_crc32c_le(seeds[s], buf + off,
						       longer[i]),
					ext2fs_crc32c_le(seeds[s], buf + off,
							 longer[i]));
		}
	}
	/* The check value of crc32c ("123456789", inverted at both ends). */
	assert_int_equal(~e2sr_crc32c_le(~0U, "123456789", 9), 0xE3069283);
	printf("crc32c: %s\n", e2sr_crc32c_hw() ? "CPU instruction" :
	       "libext2fs tables");
}

/*
 * Each record of group 0's inode table, as on disk, gets the same answer
 * from both; so do copies with one bit flipped, with the checksum's high
 * half out of i_extra_isize's reach, and of zeros.
 */
static void check_records(struct testimg *t, const char *opts)
{
	unsigned char *table, *rec;
	ext2_filsys fs;
	unsigned int isz, i, n, checked = 0, flipped_bad = 0;
	blk64_t blk;

	assert_int_equal(testimg_mkfs(t, opts), 0);
	assert_int_equal(testimg_debugfs(t, "mkdir a\nmkdir b\n"
					 "write /dev/null c\n"), 0);
	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	isz = EXT2_INODE_SIZE(fs->super);
	blk = ext2fs_inode_table_loc(fs, 0);
	n = fs->blocksize / isz;
	table = malloc(fs->blocksize);
	rec = malloc(isz);
	assert_non_null(table);
	assert_non_null(rec);
	assert_int_equal(io_channel_read_blk64(fs->io, blk, 1, table), 0);
	for (i = 0; i < n; i++) {
		memcpy(rec, table + i * isz, isz);
		assert_int_equal(!!e2sr_inode_csum_ok(fs, i + 1, rec),
			!!ext2fs_inode_csum_verify(fs, i + 1,
				(struct ext2_inode_large *)rec));
		if (e2sr_inode_csum_ok(fs, i + 1, rec))
			checked++;
		rec[i % isz] ^= 0x10;
		assert_int_equal(!!e2sr_inode_csum_ok(fs, i + 1, rec),
			!!ext2fs_inode_csum_verify(fs, i + 1,
				(struct ext2_inode_large *)rec));
		if (!e2sr_inode_csum_ok(fs, i + 1, rec))
			flipped_bad++;
	}
	/* Inode 2 with i_extra_isize 0: the low half alone. */
	if (isz > EXT2_GOOD_OLD_INODE_SIZE) {
		memcpy(rec, table + isz, isz);
		((struct ext2_inode_large *)rec)->i_extra_isize = 0;
		assert_int_equal(!!e2sr_inode_csum_ok(fs, 2, rec),
			!!ext2fs_inode_csum_verify(fs, 2,
				(struct ext2_inode_large *)rec));
	}
	memset(rec, 0, isz);
	assert_true(e2sr_inode_csum_ok(fs, 5, rec));
	assert_true(ext2fs_inode_csum_verify(fs, 5,
					     (struct ext2_inode_large *)rec));
	/* The root and the new files at least, each caught when flipped. */
	if (ext2fs_has_feature_metadata_csum(fs->super)) {
		assert_true(checked >= 4);
		assert_true(flipped_bad >= 4);
	}
	free(rec);
	free(table);
	ext2fs_close_free(&fs);
}

static void test_record_csum_256(void **state)
{
	check_records(*state, "-t ext4 -b 4096 -I 256 -O metadata_csum");
}

static void test_record_csum_128(void **state)
{
	check_records(*state, "-t ext4 -b 1024 -I 128 -O metadata_csum");
}

static void test_record_csum_512(void **state)
{
	check_records(*state, "-t ext4 -b 4096 -I 512 -O metadata_csum");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_matches_library),
		cmocka_unit_test_setup_teardown(test_record_csum_256,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_record_csum_128,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_record_csum_512,
			testimg_fixture_setup, testimg_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
