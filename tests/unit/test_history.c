/*
 * test_history.c --- the history index (history.c and history_recs.c
 * over journal_walk.c), built from journals debugfs writes by hand,
 * queried as tables: every copy with its transaction, fs block and kind,
 * and every record of the inode table copies as the walk listed it (the
 * first look discovery takes instead of reading the log again).
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
#include "history.h"
#include "testimg.h"

#define BS	4096
#define ISZ	256
#define DATA_BLK 300	/* a plain block: its copy lists no records */
#define FREE_BLK 3000	/* free, past the journal, in a 16 MiB fs */

/* One row of the copies table. */
struct want_copy {
	__u32		jblock;
	blk64_t		fs_block;	/* from itable + this, or DATA_BLK */
	int		in_itable;
	__u32		sequence;
	enum e2sr_jkind	kind;
	ext2_ino_t	ino;		/* ITABLE: first inode of the block */
};

/* One row of the records table. */
struct want_rec {
	ext2_ino_t	ino;
	__u32		generation;
	__u32		jblock;
	__u32		sequence;
	__u16		offset;
	__u8		flagged;
};

/* A record in slot @k: mode, flags and generation; the rest zeros. */
static void put_rec(unsigned char *b, unsigned int k, __u16 mode,
		    __u32 flags, __u32 gen)
{
	unsigned char *r = b + k * ISZ;

	testimg_put_le16(r, mode);
	testimg_put_le32(r + 32, flags);
	testimg_put_le32(r + 100, gen);
}

/* debugfs's jw takes one block of the file per block it logs. */
static void write_file(struct testimg *t, const char *name,
		       const unsigned char *b, int copies)
{
	char path[PATH_MAX];
	int fd;

	assert_int_equal(testimg_path(t, name, path, sizeof(path)), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	while (copies-- > 0)
		assert_int_equal(write(fd, b, BS), BS);
	assert_int_equal(close(fd), 0);
}

static blk64_t itable0(const char *img)
{
	ext2_filsys fs;
	blk64_t blk;

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	assert_int_equal(fs->blocksize, BS);
	assert_int_equal(EXT2_INODE_SIZE(fs->super), ISZ);
	blk = ext2fs_inode_table_loc(fs, 0);
	ext2fs_close_free(&fs);
	return blk;
}

/*
 * Two transactions: the first logs the second block of group 0's inode
 * table (inodes 17..32) and a plain block with the same bytes; the second
 * logs the inode table block again, its records changed.
 */
static blk64_t make_journal(struct testimg *t)
{
	unsigned char b[BS];
	char script[3 * PATH_MAX + 256], one[PATH_MAX], two[PATH_MAX];
	blk64_t it;
	int n;

	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 -I 256 "
				     "-O metadata_csum '%s' 16M "
				     ">/dev/null 2>&1", t->img), 0);
	it = itable0(t->img);

	memset(b, 0, sizeof(b));
	put_rec(b, 0, 0x81a4, EXT2_SECRM_FL, 7);	/* 17: +s */
	put_rec(b, 1, 0x81a4, 0, 9);			/* 18: plain */
	/* 19: never used (zeros), left out */
	put_rec(b, 3, 0, EXT4_EA_INODE_FL, 11);		/* 20: EA inode */
	put_rec(b, 4, 0, 0, 13);	/* 21: no mode, no flags: unused */
	write_file(t, "one", b, 2);

	memset(b, 0, sizeof(b));
	put_rec(b, 0, 0x81a4, 0, 8);			/* 17: reused */
	put_rec(b, 15, 0x41ed, EXT2_SECRM_FL, 3);	/* 32: a +s dir */
	write_file(t, "two", b, 1);

	assert_int_equal(testimg_path(t, "one", one, sizeof(one)), 0);
	assert_int_equal(testimg_path(t, "two", two, sizeof(two)), 0);
	n = snprintf(script, sizeof(script),
		     "jo -c\njw -b %llu,%d %s\njc\njo\njw -b %llu %s\njc\n",
		     (unsigned long long)(it + 1), DATA_BLK, one,
		     (unsigned long long)(it + 1), two);
	assert_true(n > 0 && (size_t)n < sizeof(script));
	assert_int_equal(testimg_debugfs(t, script), 0);
	return it;
}

static void build(const char *img, struct e2sr_history *h)
{
	struct e2sr_journal *j = NULL;
	ext2_filsys fs;
	char detail[160];

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	assert_int_equal(e2sr_journal_open(fs, NULL, &j, detail,
					   sizeof(detail)), 0);
	assert_int_equal(e2sr_history_build(fs, j, 0, h), 0);
	e2sr_journal_close(j);
	ext2fs_close_free(&fs);
}

/* The copies in log order against @want. */
static void check_copies(const struct e2sr_history *h, blk64_t it,
			 const struct want_copy *want, size_t n)
{
	size_t i;

	assert_int_equal(h->n, n);
	for (i = 0; i < n; i++) {
		const struct e2sr_version *v = &h->v[h->by_jblock[i]];
		blk64_t blk = want[i].in_itable ? it + want[i].fs_block :
			      want[i].fs_block;

		assert_int_equal(v->jblock, want[i].jblock);
		assert_int_equal(v->fs_block, blk);
		assert_int_equal(v->sequence, want[i].sequence);
		assert_int_equal(v->kind, want[i].kind);
		assert_true(v->verified);
		assert_true(v->committed);
		if (want[i].kind == E2SR_JK_ITABLE) {
			assert_int_equal(v->ino, want[i].ino);
			assert_int_equal(v->ino_count, BS / ISZ);
		}
	}
}

static void check_recs(const struct e2sr_history *h,
		       const struct want_rec *want, size_t n)
{
	struct e2sr_irec rec, *x = &rec;
	size_t i, cur = 0;

	assert_int_equal(h->nrecs, n);
	for (i = 0; i < n; i++) {
		e2sr_history_rec(h, i, &cur, &rec);

		assert_int_equal(x->ino, want[i].ino);
		assert_int_equal(x->generation, want[i].generation);
		assert_int_equal(x->jblock, want[i].jblock);
		assert_int_equal(x->sequence, want[i].sequence);
		assert_int_equal(x->offset, want[i].offset);
		assert_int_equal(x->flagged, want[i].flagged);
		assert_int_equal(x->escaped, 0);
	}
}

static const struct want_copy copies[] = {
	{ 2, 1, 1, 1, E2SR_JK_ITABLE, 17 },
	{ 3, DATA_BLK, 0, 1, E2SR_JK_UNKNOWN, 0 },
	{ 6, 1, 1, 2, E2SR_JK_ITABLE, 17 },
};

static const struct want_rec recs[] = {
	{ 17, 7, 2, 1, 0 * ISZ, 1 },
	{ 18, 9, 2, 1, 1 * ISZ, 0 },
	{ 20, 11, 2, 1, 3 * ISZ, 1 },
	{ 17, 8, 6, 2, 0 * ISZ, 0 },
	{ 32, 3, 6, 2, 15 * ISZ, 1 },
};

static void test_tables(void **state)
{
	struct testimg *t = *state;
	struct e2sr_history h;
	blk64_t it;

	it = make_journal(t);
	build(t->img, &h);
	check_copies(&h, it, copies, sizeof(copies) / sizeof(copies[0]));
	check_recs(&h, recs, sizeof(recs) / sizeof(recs[0]));
	e2sr_history_free(&h);
}

/*
 * A copy whose bytes no longer match its tag checksum is listed (it is
 * still a copy to wipe) but not read for records: what it says of an
 * inode cannot be trusted.
 */
static void test_unverified_copy(void **state)
{
	struct testimg *t = *state;
	struct e2sr_history h;
	unsigned char b[BS];
	ext2_filsys fs;
	blk64_t it, pblk = 0;
	int fd;

	it = make_journal(t);
	assert_int_equal(ext2fs_open(t->img, 0, 0, 0, unix_io_manager, &fs),
			 0);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_JOURNAL_INO, NULL, NULL, 0, 6,
				      NULL, &pblk), 0);
	ext2fs_close_free(&fs);
	assert_true(pblk != 0);
	fd = open(t->img, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, BS, (off_t)pblk * BS), BS);
	b[100] ^= 0xff;		/* slot 0's generation */
	assert_int_equal(pwrite(fd, b, BS, (off_t)pblk * BS), BS);
	assert_int_equal(close(fd), 0);

	build(t->img, &h);
	assert_int_equal(h.n, 3);
	assert_int_equal(h.v[h.by_jblock[2]].jblock, 6);
	assert_false(h.v[h.by_jblock[2]].verified);
	assert_int_equal(h.v[h.by_jblock[2]].fs_block, it + 1);
	check_recs(&h, recs, 3);	/* the first copy's only */
	e2sr_history_free(&h);
}

/*
 * The stale blocks that read as directory blocks (entries chained from
 * the first byte to the last) are marked while the walk reads them; a
 * block of other bytes, the descriptor and the commit are not.
 */
static void test_dirlike(void **state)
{
	struct testimg *t = *state;
	struct e2sr_history h;
	unsigned char b[2 * BS];
	char script[PATH_MAX + 128], path[PATH_MAX];
	unsigned int i;
	int n, fd;

	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 -I 256 "
				     "-O metadata_csum '%s' 16M "
				     ">/dev/null 2>&1", t->img), 0);
	memset(b, 0, sizeof(b));
	testimg_put_le32(b, 12);			/* inode */
	testimg_put_le16(b + 4, 16);			/* rec_len */
	b[6] = 5;				/* name_len */
	b[7] = 1;
	memcpy(b + 8, "hello", 5);
	testimg_put_le32(b + 16, 13);
	testimg_put_le16(b + 20, BS - 16);		/* to the block's end */
	b[22] = 3;
	b[23] = 1;
	memcpy(b + 24, "bye", 3);
	for (i = BS; i < 2 * BS; i++)		/* no chain */
		b[i] = (unsigned char)(i * 7 + 1);
	assert_int_equal(testimg_path(t, "dirs", path, sizeof(path)), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	assert_int_equal(close(fd), 0);
	n = snprintf(script, sizeof(script), "jo -c\njw -b %d,%d %s\njc\n",
		     DATA_BLK, DATA_BLK + 1, path);
	assert_true(n > 0 && (size_t)n < sizeof(script));
	assert_int_equal(testimg_debugfs(t, script), 0);

	build(t->img, &h);
	assert_int_equal(h.n, 2);
	assert_false(e2sr_history_dirlike(&h, 1));	/* descriptor */
	assert_true(e2sr_history_dirlike(&h, 2));
	assert_false(e2sr_history_dirlike(&h, 3));
	assert_false(e2sr_history_dirlike(&h, 4));	/* commit */
	assert_false(e2sr_history_dirlike(&h, 5));	/* zeros */
	assert_int_equal(h.nrecs, 0);
	e2sr_history_free(&h);
}

/*
 * The plan gives the index back once it is made (the list is the data
 * from then on), and a plan made again builds the index again: the same
 * list, journal copies included, not a plan made from nothing.
 */
static void test_plan_again(void **state)
{
	struct testimg *t = *state;
	struct e2sr_action *first;
	struct e2sr_ctx *ctx;
	unsigned char b[BS];
	char script[3 * PATH_MAX], one[PATH_MAX], two[PATH_MAX];
	size_t i, n, journal = 0;
	blk64_t it;

	/*
	 * One transaction: a deleted +s record (17), in a table the scan
	 * reads whole (no uninit_bg), without a checksum to make.
	 */
	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 -I 256 "
				     "-O ^metadata_csum,^uninit_bg '%s' 16M "
				     ">/dev/null 2>&1", t->img), 0);
	it = itable0(t->img);
	memset(b, 0, sizeof(b));
	put_rec(b, 0, 0x81a4, EXT2_SECRM_FL, 7);
	testimg_put_le32(b + 20, 1700000000);		/* i_dtime */
	write_file(t, "one", b, 1);
	/* And one more: a directory block whose entry names it. */
	memset(b, 0, sizeof(b));
	testimg_put_le32(b, 17);
	testimg_put_le16(b + 4, BS);
	b[6] = 6;
	b[7] = 1;
	memcpy(b + 8, "secret", 6);
	write_file(t, "two", b, 1);
	assert_int_equal(testimg_path(t, "one", one, sizeof(one)), 0);
	assert_int_equal(testimg_path(t, "two", two, sizeof(two)), 0);
	snprintf(script, sizeof(script),
		 "jo -c\njw -b %llu %s\njc\njo\njw -b %d %s\njc\n",
		 (unsigned long long)(it + 1), one, FREE_BLK, two);
	assert_int_equal(testimg_debugfs(t, script), 0);

	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_true(ctx->history.built);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_false(ctx->history.built);
	assert_true(ctx->history.released);
	assert_null(ctx->history.v);
	assert_null(ctx->history.walk.blocks);
	assert_int_equal(ctx->history.n, 2);

	n = ctx->plan.action_count;
	for (i = 0; i < n; i++)
		if (ctx->plan.actions[i].kind == E2SR_KIND_JOURNAL)
			journal++;
	/*
	 * The record's copy (zeroed whole) and the name's two parts; the
	 * descriptor stays (a log without checksums: nothing to seal).
	 */
	assert_int_equal(journal, 3);
	first = calloc(n, sizeof(*first));
	assert_non_null(first);
	memcpy(first, ctx->plan.actions, n * sizeof(*first));

	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_true(ctx->history.released);
	assert_int_equal(ctx->plan.action_count, n);
	assert_memory_equal(ctx->plan.actions, first, n * sizeof(*first));
	free(first);
	e2sr_ctx_free(ctx);
}

/* No journal: an empty index. */
static void test_no_journal(void **state)
{
	struct testimg *t = *state;
	struct e2sr_history h;
	ext2_filsys fs;

	assert_int_equal(testimg_mkfs(t, "-t ext2 -b 4096"), 0);
	assert_int_equal(ext2fs_open(t->img, 0, 0, 0, unix_io_manager, &fs),
			 0);
	assert_int_equal(e2sr_history_build(fs, NULL, 0, &h), 0);
	assert_int_equal(h.n, 0);
	assert_int_equal(h.nrecs, 0);
	assert_null(h.icopies);
	assert_null(h.rec_gen);
	assert_false(e2sr_history_dirlike(&h, 2));
	e2sr_history_free(&h);
	ext2fs_close_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_unverified_copy,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_dirlike,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_plan_again,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_journal,
			testimg_fixture_setup, testimg_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
