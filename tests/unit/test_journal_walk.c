/*
 * test_journal_walk.c --- the physical walk of journal_walk.c over
 * journals debugfs writes on real images: live and stale transactions,
 * a data block that no longer matches its tag, a tag naming a block past
 * the filesystem, a corrupt journal superblock.
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
#include "jbd2.h"
#include "journal_walk.h"
#include "testimg.h"

#define MAX_LD	16

/* What debugfs wrote: jblock -> fs block, sequence. */
struct want {
	__u32	jblock;
	blk64_t	fs_block;
	__u32	sequence;
};

static const struct want two_trans[] = {
	{ 2, 100, 1 },
	{ 3, 200, 1 },
	{ 6, 300, 2 },
};

/* mke2fs, then two transactions written by debugfs. */
static void make_two(struct testimg *t)
{
	char script[PATH_MAX + 128], data[PATH_MAX];
	int n;

	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 "
				     "-O metadata_csum '%s' 16M "
				     ">/dev/null 2>&1", t->img), 0);
	assert_int_equal(testimg_make_file(t, "data", 3 * 4096, 5), 0);
	assert_int_equal(testimg_path(t, "data", data, sizeof(data)), 0);
	n = snprintf(script, sizeof(script),
		     "jo -c\njw -b 100,200 %s\njc\njo\njw -b 300 %s\njc\n",
		     data, data);
	assert_true(n > 0 && (size_t)n < sizeof(script));
	assert_int_equal(testimg_debugfs(t, script), 0);
}

static void walk_img(const char *img, struct e2sr_jwalk *w, errcode_t want)
{
	struct e2sr_journal *j = NULL;
	ext2_filsys fs;
	char detail[160];
	errcode_t err = 0;

	memset(w, 0, sizeof(*w));
	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	if (ext2fs_has_feature_journal(fs->super))
		err = e2sr_journal_open(fs, NULL, &j, detail, sizeof(detail));
	if (!err)
		err = e2sr_journal_walk(j, ext2fs_blocks_count(fs->super), w);
	assert_int_equal(err, want);
	e2sr_journal_close(j);
	ext2fs_close_free(&fs);
}

/* The fs block holding journal block @lblk. */
static blk64_t jblock_phys(const char *img, blk64_t lblk,
			   unsigned int *blocksize)
{
	ext2_filsys fs;
	blk64_t pblk = 0;

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_JOURNAL_INO, NULL, NULL, 0,
				      lblk, NULL, &pblk), 0);
	*blocksize = fs->blocksize;
	ext2fs_close_free(&fs);
	assert_true(pblk != 0);
	return pblk;
}

static void rw_jblock(const char *img, blk64_t lblk, unsigned char *buf,
		      int write)
{
	unsigned int bs;
	blk64_t pblk = jblock_phys(img, lblk, &bs);
	ssize_t n;
	int fd;

	assert_int_equal(bs, 4096);
	fd = open(img, O_RDWR);
	assert_true(fd >= 0);
	if (write)
		n = pwrite(fd, buf, bs, (off_t)pblk * bs);
	else
		n = pread(fd, buf, bs, (off_t)pblk * bs);
	assert_int_equal(n, bs);
	assert_int_equal(close(fd), 0);
}

static void put32(unsigned char *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Tail (descriptor) or superblock checksum, as the format wants it. */
static void set_tail(unsigned char *b, const struct e2sr_jsb *jsb)
{
	put32(b + 4096 - 4, 0);
	put32(b + 4096 - 4, ext2fs_crc32c_le(jsb->csum_seed, b, 4096));
}

static void set_sb_csum(unsigned char *b)
{
	put32(b + 0xFC, 0);
	put32(b + 0xFC, ext2fs_crc32c_le(~0U, b, 1024));
}

static void check_blocks(const struct e2sr_jwalk *w, const struct want *want,
			 size_t n)
{
	size_t i;

	assert_int_equal(w->nblocks, n);
	assert_int_equal(w->attributed, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(w->blocks[i].jblock, want[i].jblock);
		assert_int_equal(w->blocks[i].fs_block, want[i].fs_block);
		assert_int_equal(w->blocks[i].sequence, want[i].sequence);
		assert_int_equal(w->blocks[i].committed, 1);
		assert_int_equal(w->blocks[i].verified, 1);
	}
}

/* Whether the walk lists @jb among the blocks that may hold copies. */
static int in_stale(const struct e2sr_jwalk *w, __u32 jb)
{
	return e2sr_jwalk_stale(w, jb);
}

static void check_two(const struct e2sr_jwalk *w)
{
	__u32 loglen = w->jsb.last - w->jsb.first;

	assert_int_equal(w->has_journal, 1);
	assert_int_equal(w->jsb.csum_version, 3);
	check_blocks(w, two_trans, 3);
	assert_true(w->blocks[1].flags & E2SR_JBD2_FLAG_LAST_TAG);
	assert_int_equal(w->descriptors, 2);
	assert_int_equal(w->ncommits, 2);
	assert_int_equal(w->commits[0].jblock, 4);
	assert_int_equal(w->commits[0].sequence, 1);
	assert_int_equal(w->commits[1].jblock, 7);
	assert_int_equal(w->commits[1].sequence, 2);
	assert_int_equal(w->nrevokes, 0);
	assert_int_equal(w->bad_blocks, 0);
	assert_int_equal(w->unattributed, loglen - 7);
}

static void test_no_journal(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;

	assert_int_equal(testimg_mkfs(t, "-t ext2 -b 4096"), 0);
	walk_img(t->img, &w, 0);
	assert_int_equal(w.has_journal, 0);
	assert_int_equal(w.nblocks, 0);
	assert_null(w.blocks);
	assert_int_equal(w.descriptors, 0);
	assert_int_equal(w.ncommits, 0);
	e2sr_journal_walk_free(&w);
}

static void test_two_transactions(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	blk64_t ld_fs[MAX_LD], ld_j[MAX_LD];
	unsigned int ld_flags[MAX_LD];
	size_t i, n;

	make_two(t);
	walk_img(t->img, &w, 0);
	check_two(&w);
	assert_int_equal(w.jsb.start, w.jsb.first);
	assert_true(w.commits[0].commit_sec != 0);

	/* logdump -a names the same blocks at the same places. */
	n = testimg_logdump_tags(t, ld_fs, ld_j, ld_flags, MAX_LD);
	assert_int_equal(n, w.nblocks);
	for (i = 0; i < n; i++) {
		assert_int_equal(ld_fs[i], w.blocks[i].fs_block);
		assert_int_equal(ld_j[i], w.blocks[i].jblock);
	}
	e2sr_journal_walk_free(&w);
}

static void test_stale_after_replay(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;

	make_two(t);
	/* e2fsck replays the journal and clears s_start; exit 1 is fine. */
	testimg_run("e2fsck -fy -E journal_only '%s' >/dev/null 2>&1",
		    t->img);
	walk_img(t->img, &w, 0);
	assert_int_equal(w.jsb.start, 0);
	check_two(&w);
	e2sr_journal_walk_free(&w);
}

static void test_stale_start_zero(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	unsigned char b[4096];

	make_two(t);
	rw_jblock(t->img, 0, b, 0);
	put32(b + 0x1C, 0);		/* s_start */
	set_sb_csum(b);
	rw_jblock(t->img, 0, b, 1);
	walk_img(t->img, &w, 0);
	assert_int_equal(w.jsb.start, 0);
	assert_int_equal(w.jsb_csum_bad, 0);
	check_two(&w);
	e2sr_journal_walk_free(&w);
}

static void test_corrupt_data(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	unsigned char b[4096];
	size_t i;

	make_two(t);
	rw_jblock(t->img, 3, b, 0);
	b[100] ^= 0x40;
	rw_jblock(t->img, 3, b, 1);
	walk_img(t->img, &w, 0);
	assert_int_equal(w.nblocks, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(w.blocks[i].jblock, two_trans[i].jblock);
		assert_int_equal(w.blocks[i].fs_block, two_trans[i].fs_block);
		assert_int_equal(w.blocks[i].verified,
				 two_trans[i].jblock != 3);
		assert_int_equal(w.blocks[i].committed, 1);
	}
	e2sr_journal_walk_free(&w);
}

static void test_tag_past_end(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	unsigned char b[4096];
	blk64_t fs_blocks;
	ext2_filsys fs;
	struct e2sr_jsb jsb;
	__u32 loglen;

	make_two(t);
	assert_int_equal(ext2fs_open(t->img, 0, 0, 0, unix_io_manager, &fs),
			 0);
	fs_blocks = ext2fs_blocks_count(fs->super);
	ext2fs_close_free(&fs);
	walk_img(t->img, &w, 0);
	jsb = w.jsb;

	/* Descriptor of transaction 2 at journal block 5: one tag3. */
	rw_jblock(t->img, 5, b, 0);
	put32(b + 12, (__u32)fs_blocks + 7);	/* t_blocknr */
	set_tail(b, &jsb);
	rw_jblock(t->img, 5, b, 1);
	e2sr_journal_walk_free(&w);

	walk_img(t->img, &w, 0);
	loglen = w.jsb.last - w.jsb.first;
	check_blocks(&w, two_trans, 2);
	assert_int_equal(w.descriptors, 2);
	assert_int_equal(w.ncommits, 2);
	assert_int_equal(w.bad_blocks, 0);
	assert_int_equal(w.unattributed, loglen - 6);
	e2sr_journal_walk_free(&w);

	/* Past 2^32 too, with the high word. */
	rw_jblock(t->img, 5, b, 0);
	put32(b + 12, 300);
	put32(b + 20, 0xffffffff);		/* t_blocknr_high */
	set_tail(b, &jsb);
	rw_jblock(t->img, 5, b, 1);
	walk_img(t->img, &w, 0);
	check_blocks(&w, two_trans, 2);
	e2sr_journal_walk_free(&w);

	/* A tail that no longer matches: the descriptor is not read. */
	rw_jblock(t->img, 5, b, 0);
	put32(b + 20, 0);
	rw_jblock(t->img, 5, b, 1);
	walk_img(t->img, &w, 0);
	check_blocks(&w, two_trans, 2);
	assert_int_equal(w.descriptors, 1);
	assert_int_equal(w.bad_blocks, 1);
	e2sr_journal_walk_free(&w);
}

/* A revoke-only transaction: recorded, nothing attributed. */
static void test_revoke(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;

	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 "
				     "-O metadata_csum '%s' 16M "
				     ">/dev/null 2>&1", t->img), 0);
	assert_int_equal(testimg_debugfs(t, "jo -c\njw -r 400,401\njc\n"),
			 0);
	walk_img(t->img, &w, 0);
	assert_int_equal(w.nblocks, 0);
	assert_int_equal(w.descriptors, 0);
	assert_int_equal(w.nrevokes, 1);
	assert_int_equal(w.revokes[0].jblock, w.jsb.first);
	assert_int_equal(w.revokes[0].sequence, w.jsb.sequence);
	assert_int_equal(w.revokes[0].records, 2);
	assert_int_equal(w.ncommits, 1);
	assert_int_equal(w.commits[0].sequence, w.jsb.sequence);
	assert_int_equal(w.unattributed, w.jsb.last - w.jsb.first - 2);
	e2sr_journal_walk_free(&w);
}

static void test_bad_jsb(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	unsigned char b[4096];

	make_two(t);
	rw_jblock(t->img, 0, b, 0);
	put32(b + 0x10, 0xffffffff);	/* s_maxlen past the inode */
	set_sb_csum(b);
	rw_jblock(t->img, 0, b, 1);
	walk_img(t->img, &w, E2SR_ERR_JOURNAL_BAD_SB);
	assert_null(w.blocks);

	put32(b, 0x12345678);			/* no magic */
	rw_jblock(t->img, 0, b, 1);
	walk_img(t->img, &w, E2SR_ERR_JOURNAL_BAD_SB);
	assert_null(w.blocks);
}

/* A block with a jbd2 header. */
static void jheader(unsigned char *b, __u32 type, __u32 seq)
{
	memset(b, 0, 4096);
	put32(b, E2SR_JBD2_MAGIC);
	put32(b + 4, type);
	put32(b + 8, seq);
}

static __u32 data_csum(const struct e2sr_jsb *jsb, __u32 seq,
		       const unsigned char *b)
{
	unsigned char s[4];

	put32(s, seq);
	return ext2fs_crc32c_le(ext2fs_crc32c_le(jsb->csum_seed, s, 4),
				b, 4096);
}

/* A commit block with its crc32c, taken with h_chksum zeroed. */
static void make_commit(unsigned char *b, const struct e2sr_jsb *jsb,
			__u32 seq)
{
	jheader(b, E2SR_JBD2_COMMIT_BLOCK, seq);
	b[12] = E2SR_JBD2_CRC32C_CHKSUM;
	b[13] = 4;
	put32(b + 0x34, 12345);		/* commit_sec, low word */
	put32(b + 0x10, ext2fs_crc32c_le(jsb->csum_seed, b, 4096));
}

/*
 * A transaction whose descriptor is the last log block: its data wrap to
 * the first ones, over what was there.  Both data blocks are escaped; the
 * first checksummed as stored, the second as it was before escaping.
 */
static void test_wrap_and_escape(void **state)
{
	static const struct want want[] = {
		{ 1, 500, 9 },
		{ 2, 501, 9 },
		{ 6, 300, 2 },
	};
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	struct e2sr_jsb jsb;
	unsigned char d[4096], b1[4096], b2[4096], c[4096];
	size_t i, k;

	make_two(t);
	walk_img(t->img, &w, 0);
	jsb = w.jsb;
	e2sr_journal_walk_free(&w);

	for (i = 0; i < 4096; i++) {
		b1[i] = (unsigned char)(i * 7 + 3);
		b2[i] = (unsigned char)(i * 13 + 1);
	}
	put32(b1, 0);			/* escaped: magic zeroed */
	put32(b2, E2SR_JBD2_MAGIC);	/* checksummed with the magic */
	jheader(d, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
	put32(d + 12, 500);
	put32(d + 16, E2SR_JBD2_FLAG_ESCAPE);
	put32(d + 24, data_csum(&jsb, 9, b1));
	memcpy(d + 28, jsb.uuid, 16);
	put32(d + 44, 501);
	put32(d + 48, E2SR_JBD2_FLAG_ESCAPE | E2SR_JBD2_FLAG_SAME_UUID |
	      E2SR_JBD2_FLAG_LAST_TAG);
	put32(d + 56, data_csum(&jsb, 9, b2));
	set_tail(d, &jsb);
	put32(b2, 0);
	make_commit(c, &jsb, 9);

	rw_jblock(t->img, jsb.last - 1, d, 1);
	rw_jblock(t->img, 1, b1, 1);
	rw_jblock(t->img, 2, b2, 1);
	rw_jblock(t->img, 3, c, 1);

	walk_img(t->img, &w, 0);
	check_blocks(&w, want, 3);
	assert_int_equal(w.descriptors, 2);
	assert_int_equal(w.ncommits, 3);
	assert_int_equal(w.commits[0].jblock, 3);
	assert_int_equal(w.commits[0].sequence, 9);
	assert_int_equal(w.commits[0].commit_sec, 12345);
	assert_int_equal(w.bad_blocks, 0);
	assert_int_equal(w.unattributed,
			 jsb.last - jsb.first - 2 - 3 - 3);
	/* Copies, escaped or not, may hold names; jbd2's blocks do not. */
	assert_true(in_stale(&w, 1));
	assert_true(in_stale(&w, 2));
	assert_false(in_stale(&w, 3));
	assert_false(in_stale(&w, jsb.last - 1));
	for (i = w.jsb.first, k = 0; i < w.jsb.last; i++)
		k += in_stale(&w, i);
	assert_int_equal(k, w.nstale);
	e2sr_journal_walk_free(&w);

	/* Without its commit the wrapped transaction is not committed. */
	memset(c, 0, sizeof(c));
	rw_jblock(t->img, 3, c, 1);
	/* A copy whose descriptor is gone is still a block with bytes. */
	rw_jblock(t->img, jsb.last - 1, c, 1);
	walk_img(t->img, &w, 0);
	assert_true(in_stale(&w, 1));
	assert_true(in_stale(&w, 2));
	assert_false(in_stale(&w, 3));
	assert_false(in_stale(&w, jsb.last - 1));
	e2sr_journal_walk_free(&w);
	rw_jblock(t->img, jsb.last - 1, d, 1);
	walk_img(t->img, &w, 0);
	assert_int_equal(w.nblocks, 3);
	assert_int_equal(w.blocks[0].committed, 0);
	assert_int_equal(w.blocks[1].committed, 0);
	assert_int_equal(w.blocks[0].verified, 1);
	assert_int_equal(w.blocks[2].committed, 1);
	e2sr_journal_walk_free(&w);
}

/* Random headers, tags and records: the walk must hold together. */
static void test_garbage(void **state)
{
	struct testimg *t = *state;
	struct e2sr_jwalk w;
	struct e2sr_jsb jsb;
	unsigned char b[4096];
	blk64_t fs_blocks;
	ext2_filsys fs;
	unsigned int round, pos, i, n;
	size_t k;

	make_two(t);
	assert_int_equal(ext2fs_open(t->img, 0, 0, 0, unix_io_manager, &fs),
			 0);
	fs_blocks = ext2fs_blocks_count(fs->super);
	ext2fs_close_free(&fs);
	walk_img(t->img, &w, 0);
	jsb = w.jsb;
	e2sr_journal_walk_free(&w);

	srand(7);
	for (round = 0; round < 40; round++) {
		for (pos = 1; pos < 48; pos++) {
			__u32 type = 1 + rand() % 6;

			for (i = 0; i < 4096; i++)
				b[i] = rand();
			if (rand() % 4) {
				put32(b, E2SR_JBD2_MAGIC);
				put32(b + 4, type);
				put32(b + 8, rand() % 4);
			}
			if (type == E2SR_JBD2_DESCRIPTOR_BLOCK) {
				n = rand() % 300;
				for (i = 0; i < n && 12 + 16 * (i + 1) <= 4092;
				     i++) {
					put32(b + 12 + 16 * i,
					      rand() % (2 * fs_blocks));
					put32(b + 16 + 16 * i,
					      E2SR_JBD2_FLAG_SAME_UUID |
					      (rand() % 8 ? 0 :
					       E2SR_JBD2_FLAG_LAST_TAG));
					put32(b + 20 + 16 * i, rand() % 2);
				}
			}
			if (type == E2SR_JBD2_COMMIT_BLOCK && rand() % 2)
				make_commit(b, &jsb, rand() % 4);
			if (rand() % 2)
				set_tail(b, &jsb);
			rw_jblock(t->img, pos, b, 1);
		}
		walk_img(t->img, &w, 0);
		assert_int_equal(w.descriptors + w.ncommits + w.nrevokes +
				 w.attributed + w.unattributed,
				 jsb.last - jsb.first);
		for (k = 0; k < w.nblocks; k++) {
			assert_true(w.blocks[k].fs_block < fs_blocks);
			assert_true(w.blocks[k].jblock >= jsb.first);
			assert_true(w.blocks[k].jblock < jsb.last);
		}
		e2sr_journal_walk_free(&w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_journal,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_transactions,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_after_replay,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_start_zero,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_data,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tag_past_end,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_revoke,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_jsb,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_wrap_and_escape,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_garbage,
			testimg_fixture_setup, testimg_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
