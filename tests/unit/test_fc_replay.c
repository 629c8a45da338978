/*
 * test_fc_replay.c --- the fast-commit replay scan (fc_scan.c) on
 * synthetic fast-commit areas, block by block as jbd2 hands them over,
 * and the in-memory overlay (overlay_io.c) over a file.
 *
 * The areas are written the way the kernel writes them: a head tag in
 * the first block, tags, and per commit a tail whose crc32c covers every
 * tag since the previous tail and the tail's tid, padded to the end of
 * its block.
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
#include <cmocka.h>

#include "e2secrm.h"
#include "fc_replay.h"
#include "overlay_io.h"
#include "testimg.h"

#define BS		1024
#define NBLK		8
#define TID		7
#define ISIZE		256

/* A fast-commit area being written, block after block. */
struct area {
	unsigned char	buf[NBLK * BS];
	unsigned int	blk;
	unsigned int	off;
	__u32		crc;
};

/* One tag with @len bytes of value; @val may be NULL (zeros). */
static void tag(struct area *a, unsigned int t, unsigned int len,
		const void *val)
{
	unsigned char *p = a->buf + a->blk * BS + a->off;

	assert_true(a->off + 4 + len <= BS);
	testimg_put_le16(p, t);
	testimg_put_le16(p + 2, len);
	if (val)
		memcpy(p + 4, val, len);
	a->crc = ext2fs_crc32c_le(a->crc, p, 4 + len);
	a->off += 4 + len;
}

static void head(struct area *a, __u32 features, __u32 tid)
{
	unsigned char v[8];

	testimg_put_le32(v, features);
	testimg_put_le32(v + 4, tid);
	tag(a, E2SR_FC_TAG_HEAD, 8, v);
}

static void add_range(struct area *a, __u32 ino)
{
	unsigned char v[16];

	memset(v, 0, sizeof(v));
	testimg_put_le32(v, ino);
	testimg_put_le16(v + 8, 1);
	testimg_put_le32(v + 12, 5000);
	tag(a, E2SR_FC_TAG_ADD_RANGE, 16, v);
}

static void dentry(struct area *a, unsigned int t, const char *name)
{
	unsigned char v[8 + 255];
	size_t n = strlen(name);

	testimg_put_le32(v, 2);
	testimg_put_le32(v + 4, 12);
	memcpy(v + 8, name, n);
	tag(a, t, 8 + n, v);
}

/* A tail ends a commit and its block; @bad spoils the checksum. */
static void tail(struct area *a, __u32 tid, int bad)
{
	unsigned char *p = a->buf + a->blk * BS + a->off;
	unsigned int len = BS - a->off - 4;

	assert_true(len >= 8);
	testimg_put_le16(p, E2SR_FC_TAG_TAIL);
	testimg_put_le16(p + 2, len);
	testimg_put_le32(p + 4, tid);
	a->crc = ext2fs_crc32c_le(a->crc, p, 8);
	testimg_put_le32(p + 8, a->crc + (bad ? 1 : 0));
	a->crc = 0;
	a->blk++;
	a->off = 0;
}

/* Pad the rest of the block, as ext4_fc_reserve_space() does. */
static void pad(struct area *a)
{
	unsigned char *p = a->buf + a->blk * BS + a->off;
	unsigned int len = BS - a->off - 4;

	testimg_put_le16(p, E2SR_FC_TAG_PAD);
	testimg_put_le16(p + 2, len);
	memset(p + 4, 0, len);
	a->crc = ext2fs_crc32c_le(a->crc, p, 4 + len);
	a->blk++;
	a->off = 0;
}

static void new_area(struct area *a)
{
	memset(a, 0, sizeof(*a));
}

/* The scan as fc_do_one_pass drives it. */
static errcode_t scan(const struct area *a, __u32 tid,
		      struct e2sr_fc_scan *s)
{
	unsigned int b;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	s->expected_tid = tid;
	for (b = 0; b < NBLK && !s->stopped; b++) {
		err = e2sr_fc_scan_block(s, a->buf + b * BS, BS, ISIZE);
		if (err)
			return err;
	}
	return 0;
}

static void one_commit(struct area *a)
{
	new_area(a);
	head(a, 0, TID);
	add_range(a, 12);
	dentry(a, E2SR_FC_TAG_CREAT, "file");
	tail(a, TID, 0);
}

static void test_valid_commit(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	one_commit(&a);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 4);
	assert_int_equal(s.nr_blocks, 1);
	assert_int_equal(s.nr_commits, 1);
	assert_int_equal(s.nr_ranges, 1);
}

/* A head of another transaction: stale, nothing to replay. */
static void test_tid_mismatch(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	one_commit(&a);
	assert_int_equal(scan(&a, TID + 1, &s), 0);
	assert_int_equal(s.nr_tags, 0);
	assert_true(s.stopped);
}

static void test_no_head(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	new_area(&a);
	add_range(&a, 12);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 0);
	new_area(&a);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 0);
}

/* The first tail bad: the kernel's scan fails (-EFSBADCRC). */
static void test_bad_first_crc(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	new_area(&a);
	head(&a, 0, TID);
	add_range(&a, 12);
	tail(&a, TID, 1);
	assert_int_equal(scan(&a, TID, &s), E2SR_ERR_FC_CORRUPT);
	/* A tail of another tid is as bad. */
	new_area(&a);
	head(&a, 0, TID);
	add_range(&a, 12);
	tail(&a, TID + 1, 0);
	assert_int_equal(scan(&a, TID, &s), E2SR_ERR_FC_CORRUPT);
}

/* Replay stops at the last valid tail. */
static void test_stop_at_last_valid_tail(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	one_commit(&a);				/* 4 tags, block 0 */
	add_range(&a, 13);
	tail(&a, TID, 0);			/* 6, block 1 */
	add_range(&a, 14);
	add_range(&a, 15);
	tail(&a, TID, 1);			/* bad: block 2 */
	add_range(&a, 16);
	tail(&a, TID, 0);			/* valid, but after it */
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 6);
	assert_int_equal(s.nr_blocks, 2);
	assert_int_equal(s.nr_commits, 2);
	assert_int_equal(s.nr_ranges, 2);

	/* A zeroed block after the commits ends the scan quietly. */
	one_commit(&a);
	add_range(&a, 13);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 6);
	assert_true(s.stopped);

	/* A tail of a newer tid after a valid one: stop there too. */
	one_commit(&a);
	add_range(&a, 13);
	tail(&a, TID + 1, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 4);
}

/* A commit spanning blocks: pad, then tags, then its tail. */
static void test_pad_spans_blocks(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	new_area(&a);
	head(&a, 0, TID);
	add_range(&a, 12);
	pad(&a);
	add_range(&a, 12);
	dentry(&a, E2SR_FC_TAG_LINK, "x");
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 6);
	assert_int_equal(s.nr_blocks, 2);
}

/* Every tag's length per ext4_fc_value_len_isvalid(). */
static void check_bad_len(unsigned int t, unsigned int len)
{
	struct e2sr_fc_scan s;
	struct area a;
	unsigned char v[600];

	memset(v, 0, sizeof(v));
	/* Before any valid tail: the kernel's scan fails. */
	new_area(&a);
	head(&a, 0, TID);
	tag(&a, t, len, v);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), E2SR_ERR_FC_CORRUPT);
	/* After one: the replay stops before it. */
	one_commit(&a);
	tag(&a, t, len, v);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 4);
}

static void check_good_len(unsigned int t, unsigned int len)
{
	struct e2sr_fc_scan s;
	struct area a;
	unsigned char v[600];

	memset(v, 'a', sizeof(v));
	one_commit(&a);
	tag(&a, t, len, v);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 6);
}

static void test_lengths(void **state EXT2FS_ATTR((unused)))
{
	check_bad_len(E2SR_FC_TAG_ADD_RANGE, 15);
	check_bad_len(E2SR_FC_TAG_ADD_RANGE, 17);
	check_good_len(E2SR_FC_TAG_ADD_RANGE, 16);
	check_bad_len(E2SR_FC_TAG_DEL_RANGE, 8);
	check_good_len(E2SR_FC_TAG_DEL_RANGE, 12);
	check_bad_len(E2SR_FC_TAG_CREAT, 8);		/* empty name */
	check_bad_len(E2SR_FC_TAG_LINK, 8 + 256);
	check_good_len(E2SR_FC_TAG_UNLINK, 8 + 255);
	check_bad_len(E2SR_FC_TAG_INODE, 4 + 127);
	check_bad_len(E2SR_FC_TAG_INODE, 4 + ISIZE + 1);
	check_good_len(E2SR_FC_TAG_INODE, 4 + 128);
	check_good_len(E2SR_FC_TAG_INODE, 4 + ISIZE);
	check_bad_len(E2SR_FC_TAG_HEAD, 12);
	check_bad_len(E2SR_FC_TAG_TAIL, 4);
}

/* A length that runs past the block. */
static void test_len_past_block(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;
	unsigned char *p;

	new_area(&a);
	head(&a, 0, TID);
	p = a.buf + a.off;
	testimg_put_le16(p, E2SR_FC_TAG_PAD);
	testimg_put_le16(p + 2, BS);		/* 4 + BS > what is left */
	assert_int_equal(scan(&a, TID, &s), E2SR_ERR_FC_CORRUPT);
}

static void test_unknown_tag(void **state EXT2FS_ATTR((unused)))
{
	check_bad_len(0x000a, 8);
	check_bad_len(0, 0);
}

/* Head features the kernel does not know: it refuses to mount. */
static void test_head_features(void **state EXT2FS_ATTR((unused)))
{
	struct e2sr_fc_scan s;
	struct area a;

	new_area(&a);
	head(&a, 1, TID);
	add_range(&a, 12);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), E2SR_ERR_FC_UNSUPPORTED);
	/* Even after a valid commit. */
	one_commit(&a);
	head(&a, 0x80, TID);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), E2SR_ERR_FC_UNSUPPORTED);
	/* A second head of an older tid only stops the scan. */
	one_commit(&a);
	head(&a, 0, TID - 1);
	tail(&a, TID, 0);
	assert_int_equal(scan(&a, TID, &s), 0);
	assert_int_equal(s.nr_tags, 4);
}

/* ---- the overlay ---- */

struct ovfix {
	char	dir[64];
	char	base[128];
	char	dest[128];
};

static void fill(const char *path, unsigned int seed)
{
	unsigned char buf[4096];
	FILE *f = fopen(path, "w");
	int i, k;

	assert_non_null(f);
	for (k = 0; k < 16; k++) {
		for (i = 0; i < 4096; i++)
			buf[i] = (unsigned char)(seed + k * 7 + i);
		assert_int_equal(fwrite(buf, 1, 4096, f), 4096);
	}
	fclose(f);
}

static void read_file(const char *path, unsigned char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_int_equal(fread(out, 1, len, f), len);
	fclose(f);
}

static int ov_setup(void **state)
{
	struct ovfix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/e2sr-ovtest.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->base, sizeof(f->base), "%s/base", f->dir);
	snprintf(f->dest, sizeof(f->dest), "%s/dest", f->dir);
	fill(f->base, 1);
	fill(f->dest, 1);
	*state = f;
	return 0;
}

static int ov_teardown(void **state)
{
	struct ovfix *f = *state;

	unlink(f->base);
	unlink(f->dest);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Writes at two block sizes and by bytes; the base is never written. */
static void test_overlay_rmw(void **state)
{
	struct ovfix *f = *state;
	unsigned char before[65536], after[65536], want[65536], buf[8192];
	struct e2sr_overlay *ov;
	io_manager m;
	io_channel io, dest;
	const unsigned char *data;
	blk64_t blk;

	read_file(f->base, before, sizeof(before));
	memcpy(want, before, sizeof(want));
	ov = e2sr_overlay_new(unix_io_manager, 0);
	assert_non_null(ov);
	m = e2sr_overlay_manager(ov);
	assert_int_equal(m->open(f->base, IO_FLAG_RW, &io), 0);
	assert_int_equal(io_channel_set_blksize(io, 4096), 0);

	memset(buf, 0xaa, 4096);
	assert_int_equal(io_channel_write_blk64(io, 3, 1, buf), 0);
	memset(want + 3 * 4096, 0xaa, 4096);
	/* The superblock's way: 1024 bytes at 1024-byte blocks. */
	assert_int_equal(io_channel_set_blksize(io, 1024), 0);
	memset(buf, 0xbb, 1024);
	assert_int_equal(io_channel_write_blk64(io, 1, -1024, buf), 0);
	memset(want + 1024, 0xbb, 1024);
	memset(buf, 0xcc, 10);
	assert_int_equal(io_channel_write_byte(io, 4096 * 5 + 7, 10, buf), 0);
	memset(want + 4096 * 5 + 7, 0xcc, 10);
	assert_int_equal(io_channel_set_blksize(io, 4096), 0);

	assert_int_equal(e2sr_overlay_unit(ov), 4096);
	assert_int_equal(e2sr_overlay_count(ov), 3);
	assert_int_equal(e2sr_overlay_block(ov, 0, &blk, &data), 0);
	assert_int_equal(blk, 0);
	assert_memory_equal(data, want, 4096);
	assert_int_equal(e2sr_overlay_block(ov, 1, &blk, &data), 0);
	assert_int_equal(blk, 3);
	assert_int_equal(e2sr_overlay_block(ov, 2, &blk, &data), 0);
	assert_int_equal(blk, 5);
	assert_int_not_equal(e2sr_overlay_block(ov, 3, &blk, &data), 0);

	/* Reads see the writes, across blocks. */
	assert_int_equal(io_channel_read_blk64(io, 2, 2, buf), 0);
	assert_memory_equal(buf, want + 2 * 4096, 8192);
	assert_int_equal(io_channel_set_blksize(io, 1024), 0);
	assert_int_equal(io_channel_read_blk64(io, 20, 3, buf), 0);
	assert_memory_equal(buf, want + 20 * 1024, 3072);
	io_channel_close(io);

	read_file(f->base, after, sizeof(after));
	assert_memory_equal(after, before, sizeof(after));

	/* Committed through a channel at another block size. */
	assert_int_equal(unix_io_manager->open(f->dest, IO_FLAG_RW, &dest),
			 0);
	assert_int_equal(io_channel_set_blksize(dest, 1024), 0);
	assert_int_equal(e2sr_overlay_commit(ov, dest), 0);
	assert_int_equal(dest->block_size, 1024);
	io_channel_close(dest);
	read_file(f->dest, after, sizeof(after));
	assert_memory_equal(after, want, sizeof(after));

	e2sr_overlay_reset(ov);
	assert_int_equal(e2sr_overlay_count(ov), 0);
	e2sr_overlay_free(ov);
}

/* Past the memory bound: a clear error, and what was kept stays. */
static void test_overlay_full(void **state)
{
	struct ovfix *f = *state;
	struct e2sr_overlay *ov;
	unsigned char buf[4096];
	io_channel io;

	ov = e2sr_overlay_new(NULL, 2 * 4096);
	assert_non_null(ov);
	assert_int_equal(e2sr_overlay_manager(ov)->open(f->base, 0, &io), 0);
	assert_int_equal(io_channel_set_blksize(io, 4096), 0);
	memset(buf, 1, sizeof(buf));
	assert_int_equal(io_channel_write_blk64(io, 0, 1, buf), 0);
	assert_int_equal(io_channel_write_blk64(io, 1, 1, buf), 0);
	assert_int_equal(io_channel_write_blk64(io, 1, 1, buf), 0);
	assert_int_equal(io_channel_write_blk64(io, 2, 1, buf),
			 E2SR_ERR_OVERLAY_FULL);
	assert_int_equal(e2sr_overlay_count(ov), 2);
	io_channel_close(io);
	e2sr_overlay_free(ov);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_commit),
		cmocka_unit_test(test_tid_mismatch),
		cmocka_unit_test(test_no_head),
		cmocka_unit_test(test_bad_first_crc),
		cmocka_unit_test(test_stop_at_last_valid_tail),
		cmocka_unit_test(test_pad_spans_blocks),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_len_past_block),
		cmocka_unit_test(test_unknown_tag),
		cmocka_unit_test(test_head_features),
		cmocka_unit_test_setup_teardown(test_overlay_rmw, ov_setup,
						ov_teardown),
		cmocka_unit_test_setup_teardown(test_overlay_full, ov_setup,
						ov_teardown),
	};

	initialize_e2sr_error_table();
	initialize_ext2_error_table();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
