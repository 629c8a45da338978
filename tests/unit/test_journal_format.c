/*
 * test_journal_format.c --- the jbd2 block readers of journal_format.c:
 * superblocks, descriptor tags, data checksums, revoke and commit blocks
 * built here byte by byte, then a journal written by debugfs on a real
 * image and read back through the same functions; and the transactions
 * journal_write.c lays out, read back by them in every layout.
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
#include <unistd.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "jbd2.h"
#include "testimg.h"

#define BS		4096
#define MAXLEN		8192
#define MAX_SEEN	1024

static const unsigned char test_uuid[16] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xf0, 0x01,
};

static void put32(unsigned char *p, size_t off, __u32 v)
{
	p[off] = v >> 24;
	p[off + 1] = v >> 16;
	p[off + 2] = v >> 8;
	p[off + 3] = v;
}

static void put16(unsigned char *p, size_t off, __u16 v)
{
	p[off] = v >> 8;
	p[off + 1] = v;
}

static __u32 crc_over(__u32 seed, const unsigned char *p, size_t len)
{
	return ext2fs_crc32c_le(seed, p, len);
}

/* Superblock checksum: crc32c(~0) of the 1024 bytes, field zeroed. */
static void sb_set_csum(unsigned char *sb)
{
	put32(sb, 0xFC, 0);
	put32(sb, 0xFC, crc_over(~0U, sb, 1024));
}

/* A v2 (or v1) superblock; csum features get crc32c and a checksum. */
static void make_sb(unsigned char *sb, __u32 type, __u32 compat,
		    __u32 incompat)
{
	memset(sb, 0, BS);
	put32(sb, 0x0, E2SR_JBD2_MAGIC);
	put32(sb, 0x4, type);
	put32(sb, 0xC, BS);
	put32(sb, 0x10, MAXLEN);
	put32(sb, 0x14, 1);
	put32(sb, 0x18, 7);
	put32(sb, 0x24, compat);
	put32(sb, 0x28, incompat);
	memcpy(sb + 0x30, test_uuid, 16);
	put32(sb, 0x40, 1);
	if (incompat & (E2SR_JBD2_INCOMPAT_CSUM_V2 |
			E2SR_JBD2_INCOMPAT_CSUM_V3)) {
		sb[0x50] = E2SR_JBD2_CRC32C_CHKSUM;
		sb_set_csum(sb);
	}
}

static void get_jsb(struct e2sr_jsb *jsb, __u32 incompat)
{
	unsigned char sb[BS];

	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, incompat);
	assert_int_equal(e2sr_jsb_parse(sb, sizeof(sb), BS, jsb), 0);
}

static void test_sb_v1(void **state)
{
	unsigned char sb[BS];
	struct e2sr_jsb jsb;

	(void)state;
	/* Feature words in a v1 superblock are not features. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V1, 0xffffffff, 0xffffffff);
	put32(sb, 0x1C, 5);
	assert_int_equal(e2sr_jsb_parse(sb, 1024, 0, &jsb), 0);
	assert_int_equal(jsb.version, 1);
	assert_int_equal(jsb.blocksize, BS);
	assert_int_equal(jsb.maxlen, MAXLEN);
	assert_int_equal(jsb.first, 1);
	assert_int_equal(jsb.last, MAXLEN);
	assert_int_equal(jsb.sequence, 7);
	assert_int_equal(jsb.start, 5);
	assert_int_equal(jsb.compat, 0);
	assert_int_equal(jsb.incompat, 0);
	assert_int_equal(jsb.csum_version, 0);
	assert_int_equal(jsb.tag_bytes, 8);
	assert_int_equal(jsb.tail_bytes, 0);
	assert_int_equal(jsb.record_bytes, 4);
}

struct feature_case {
	__u32		compat;
	__u32		incompat;
	unsigned int	tag_bytes;
	unsigned int	record_bytes;
	unsigned int	csum_version;
};

static void test_sb_v2_features(void **state)
{
	static const struct feature_case cases[] = {
		{ 0, 0, 8, 4, 0 },
		{ E2SR_JBD2_COMPAT_CHECKSUM, 0, 8, 4, 0 },
		{ 0, E2SR_JBD2_INCOMPAT_REVOKE, 8, 4, 0 },
		{ 0, E2SR_JBD2_INCOMPAT_64BIT, 12, 8, 0 },
		{ 0, E2SR_JBD2_INCOMPAT_ASYNC_COMMIT, 8, 4, 0 },
		{ 0, E2SR_JBD2_INCOMPAT_CSUM_V2, 10, 4, 2 },
		{ 0, E2SR_JBD2_INCOMPAT_CSUM_V2 | E2SR_JBD2_INCOMPAT_64BIT,
		  14, 8, 2 },
		{ 0, E2SR_JBD2_INCOMPAT_CSUM_V3, 16, 4, 3 },
		{ 0, E2SR_JBD2_INCOMPAT_CSUM_V3 | E2SR_JBD2_INCOMPAT_64BIT |
		  E2SR_JBD2_INCOMPAT_REVOKE, 16, 8, 3 },
	};
	unsigned char sb[BS];
	struct e2sr_jsb jsb;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct feature_case *c = &cases[i];

		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, c->compat, c->incompat);
		assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
		assert_int_equal(jsb.version, 2);
		assert_int_equal(jsb.compat, c->compat);
		assert_int_equal(jsb.incompat, c->incompat);
		assert_int_equal(jsb.tag_bytes, c->tag_bytes);
		assert_int_equal(jsb.record_bytes, c->record_bytes);
		assert_int_equal(jsb.csum_version, c->csum_version);
		assert_memory_equal(jsb.uuid, test_uuid, 16);
		assert_int_equal(jsb.nr_users, 1);
		if (c->csum_version) {
			assert_int_equal(jsb.tail_bytes, 4);
			assert_int_equal(jsb.csum_seed,
					 crc_over(~0U, test_uuid, 16));
		} else {
			assert_int_equal(jsb.tail_bytes, 0);
		}
	}
}

static void test_sb_fast_commit(void **state)
{
	unsigned char sb[BS];
	struct e2sr_jsb jsb;

	(void)state;
	/* s_num_fc_blks zero means the default 256 blocks. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0,
		E2SR_JBD2_INCOMPAT_FAST_COMMIT);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
	assert_int_equal(jsb.fc_blocks, 256);
	assert_int_equal(jsb.last, MAXLEN - 256);

	put32(sb, 0x54, 100);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
	assert_int_equal(jsb.fc_blocks, 100);
	assert_int_equal(jsb.last, MAXLEN - 100);

	/* The log may not start in the fast-commit area. */
	put32(sb, 0x1C, MAXLEN - 50);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);

	/* Nor may the area swallow the log. */
	put32(sb, 0x1C, 0);
	put32(sb, 0x54, MAXLEN - 1);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);

	/* Without the feature, s_num_fc_blks means nothing. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
	put32(sb, 0x54, 100);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
	assert_int_equal(jsb.fc_blocks, 0);
	assert_int_equal(jsb.last, MAXLEN);
}

static void test_sb_bad_magic(void **state)
{
	unsigned char sb[BS];
	struct e2sr_jsb jsb;

	(void)state;
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
	put32(sb, 0, 0xC03B3999);
	assert_int_equal(e2sr_jsb_parse(sb, BS, 0, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
	/* A journal block that is not a superblock. */
	make_sb(sb, E2SR_JBD2_DESCRIPTOR_BLOCK, 0, 0);
	assert_int_equal(e2sr_jsb_parse(sb, BS, 0, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
	make_sb(sb, 6, 0, 0);
	assert_int_equal(e2sr_jsb_parse(sb, BS, 0, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
	/* Too short a buffer to hold a superblock. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
	assert_int_equal(e2sr_jsb_parse(sb, 1023, 0, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
	assert_int_equal(e2sr_jsb_parse(NULL, BS, 0, &jsb),
			 EXT2_ET_INVALID_ARGUMENT);
}

static void test_sb_bad_blocksize(void **state)
{
	static const __u32 bad[] = { 0, 512, 1023, 3072, 131072, 0xffffffff };
	unsigned char sb[BS];
	struct e2sr_jsb jsb;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
		put32(sb, 0xC, bad[i]);
		assert_int_equal(e2sr_jsb_parse(sb, BS, 0, &jsb),
				 E2SR_ERR_JOURNAL_BAD_SB);
	}
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
	put32(sb, 0xC, 65536);
	assert_int_equal(e2sr_jsb_parse(sb, BS, 0, &jsb), 0);
	assert_int_equal(jsb.blocksize, 65536);
	/* Not the filesystem's block size. */
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
}

static void test_sb_bad_geometry(void **state)
{
	static const struct {
		__u32 maxlen, first, start, nr_users;
	} bad[] = {
		{ 0, 1, 0, 1 },
		{ 1023, 1, 0, 1 },
		{ MAXLEN, 0, 0, 1 },
		{ MAXLEN, MAXLEN, 0, 1 },
		{ MAXLEN, 0xffffffff, 0, 1 },
		{ MAXLEN, 1, MAXLEN, 1 },
		{ MAXLEN, 1, 0xffffffff, 1 },
		{ MAXLEN, 8, 4, 1 },		/* start before first */
		{ MAXLEN, 1, 0, 49 },
		{ MAXLEN, 1, 0, 0xffffffff },
	};
	unsigned char sb[BS];
	struct e2sr_jsb jsb;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
		put32(sb, 0x10, bad[i].maxlen);
		put32(sb, 0x14, bad[i].first);
		put32(sb, 0x1C, bad[i].start);
		put32(sb, 0x40, bad[i].nr_users);
		assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
				 E2SR_ERR_JOURNAL_BAD_SB);
	}
	/* The extremes that are still right. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
	put32(sb, 0x10, 0xffffffff);
	put32(sb, 0x14, 0xfffffffe);
	put32(sb, 0x1C, 0xfffffffe);
	put32(sb, 0x40, 48);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
}

static void test_sb_features_refused(void **state)
{
	unsigned char sb[BS];
	struct e2sr_jsb jsb;

	(void)state;
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0x40);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_UNSUP);
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0x80000000);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_UNSUP);
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, 0);
	put32(sb, 0x2C, 1);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_UNSUP);
	/* Unknown compat features are harmless. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0x80, 0);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
	/* csum v2 and v3 together, v1 with v3, a checksum not crc32c. */
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, E2SR_JBD2_INCOMPAT_CSUM_V2 |
		E2SR_JBD2_INCOMPAT_CSUM_V3);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, E2SR_JBD2_COMPAT_CHECKSUM,
		E2SR_JBD2_INCOMPAT_CSUM_V3);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, E2SR_JBD2_INCOMPAT_CSUM_V3);
	sb[0x50] = E2SR_JBD2_CRC32_CHKSUM;
	sb_set_csum(sb);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
			 E2SR_ERR_JOURNAL_BAD_SB);
}

static void test_sb_bad_csum(void **state)
{
	static const __u32 csums[] = {
		E2SR_JBD2_INCOMPAT_CSUM_V2, E2SR_JBD2_INCOMPAT_CSUM_V3,
	};
	unsigned char sb[BS];
	struct e2sr_jsb jsb;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, csums[i]);
		sb[0x1B] ^= 1;		/* s_sequence, low byte */
		assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		/* The parse is still there for a caller who goes on. */
		assert_int_equal(jsb.sequence, 6);
		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, csums[i]);
		sb[0xFF] ^= 0x80;	/* s_checksum itself */
		assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		/* s_users, the end of the 1024 bytes, is checksummed. */
		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, csums[i]);
		sb[0x3FF] ^= 1;
		assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		/* Bytes past the 1024 are not checksummed. */
		make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, 0, csums[i]);
		sb[0x400] ^= 1;
		assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);
	}
}

/* Descriptor blocks. */

struct want_tag {
	blk64_t	blk;
	__u32	flags;
	__u32	csum;
};

struct seen {
	size_t		count;
	blk64_t		blk[MAX_SEEN];
	__u32		flags[MAX_SEEN];
	__u32		csum[MAX_SEEN];
	size_t		stop_at;	/* 0: never */
};

static errcode_t seen_tag(void *priv, blk64_t blk, __u32 flags, __u32 csum,
			  unsigned int index)
{
	struct seen *s = priv;

	assert_int_equal(index, s->count);
	assert_true(s->count < MAX_SEEN);
	s->blk[s->count] = blk;
	s->flags[s->count] = flags;
	s->csum[s->count] = csum;
	s->count++;
	if (s->stop_at && s->count == s->stop_at)
		return EXT2_ET_CANCEL_REQUESTED;
	return 0;
}

static errcode_t seen_revoke(void *priv, blk64_t blk, unsigned int index)
{
	return seen_tag(priv, blk, 0, 0, index);
}

static void block_header(unsigned char *b, __u32 type, __u32 seq)
{
	memset(b, 0, BS);
	put32(b, 0, E2SR_JBD2_MAGIC);
	put32(b, 4, type);
	put32(b, 8, seq);
}

/* Write one tag in the journal's layout at *off; uuid unless SAME_UUID. */
static void add_tag(const struct e2sr_jsb *jsb, unsigned char *b,
		    size_t *off, blk64_t blk, __u32 flags, __u32 csum)
{
	size_t o = *off;

	put32(b, o, (__u32)blk);
	if (jsb->csum_version == 3) {
		put32(b, o + 4, flags);
		/* The high word is junk to be ignored without 64bit. */
		put32(b, o + 8, (jsb->incompat & E2SR_JBD2_INCOMPAT_64BIT) ?
		      (__u32)(blk >> 32) : 0x5a5a5a5a);
		put32(b, o + 12, csum);
	} else {
		put16(b, o + 4, csum);
		put16(b, o + 6, flags);
		if (jsb->incompat & E2SR_JBD2_INCOMPAT_64BIT)
			put32(b, o + 8, (__u32)(blk >> 32));
	}
	o += jsb->tag_bytes;
	if (!(flags & E2SR_JBD2_FLAG_SAME_UUID)) {
		memcpy(b + o, test_uuid, 16);
		o += 16;
	}
	*off = o;
}

static void set_tail(const struct e2sr_jsb *jsb, unsigned char *b)
{
	if (!jsb->csum_version)
		return;
	put32(b, BS - 4, 0);
	put32(b, BS - 4, crc_over(jsb->csum_seed, b, BS));
}

static const __u32 layouts[] = {
	0,
	E2SR_JBD2_INCOMPAT_64BIT,
	E2SR_JBD2_INCOMPAT_CSUM_V2,
	E2SR_JBD2_INCOMPAT_CSUM_V2 | E2SR_JBD2_INCOMPAT_64BIT,
	E2SR_JBD2_INCOMPAT_CSUM_V3,
	E2SR_JBD2_INCOMPAT_CSUM_V3 | E2SR_JBD2_INCOMPAT_64BIT,
};
#define NLAYOUTS	(sizeof(layouts) / sizeof(layouts[0]))

static void test_desc_layouts(void **state)
{
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t i, t, off;

	(void)state;
	for (i = 0; i < NLAYOUTS; i++) {
		int big = !!(layouts[i] & E2SR_JBD2_INCOMPAT_64BIT);
		struct want_tag w[] = {
			{ 100, 0, 0x1234 },
			{ big ? 0x1000000c8ULL : 200,
			  E2SR_JBD2_FLAG_SAME_UUID | E2SR_JBD2_FLAG_ESCAPE,
			  0xBEEF },
			{ 300, E2SR_JBD2_FLAG_DELETED, 0 },
			{ big ? 0xffffffffffffULL : 0xffffffff,
			  E2SR_JBD2_FLAG_SAME_UUID | E2SR_JBD2_FLAG_LAST_TAG,
			  0xCAFE },
		};

		get_jsb(&jsb, layouts[i]);
		block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
		off = 12;
		for (t = 0; t < 4; t++) {
			__u32 c = w[t].csum;

			if (jsb.csum_version == 3)
				c |= 0xDEAD0000;
			add_tag(&jsb, b, &off, w[t].blk, w[t].flags, c);
		}
		/* A tag past LAST_TAG is never reported. */
		add_tag(&jsb, b, &off, 999, 0, 0);
		set_tail(&jsb, b);

		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s), 0);
		assert_int_equal(s.count, 4);
		for (t = 0; t < 4; t++) {
			__u32 c = w[t].csum;

			if (jsb.csum_version == 3)
				c |= 0xDEAD0000;
			assert_int_equal(s.blk[t], w[t].blk);
			assert_int_equal(s.flags[t], w[t].flags);
			assert_int_equal(s.csum[t], c);
		}
	}
}

/*
 * A descriptor sealed again (plan_journal_seal.c, wipe_journal.c): the
 * tag named gets the checksum of the copy as written, the others keep
 * theirs, the tail holds again, and a copy of zeros matches its new tag.
 */
static void test_desc_reseal(void **state)
{
	unsigned char b[BS], zero[BS];
	struct e2sr_seal sl;
	struct e2sr_jsb jsb;
	struct seen s;
	size_t i, t, off;

	(void)state;
	memset(zero, 0, sizeof(zero));
	for (i = 2; i < NLAYOUTS; i++) {
		get_jsb(&jsb, layouts[i]);
		block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
		off = 12;
		add_tag(&jsb, b, &off, 100, 0, 0x1111);
		add_tag(&jsb, b, &off, 200, E2SR_JBD2_FLAG_SAME_UUID, 0x2222);
		add_tag(&jsb, b, &off, 300, E2SR_JBD2_FLAG_SAME_UUID |
			E2SR_JBD2_FLAG_LAST_TAG, 0x3333);
		set_tail(&jsb, b);
		assert_true(e2sr_jblock_tail_ok(&jsb, b));

		sl.desc = 1;
		sl.index = 1;
		sl.jblock = 3;
		sl.csum = e2sr_jtag_csum(&jsb, 9, zero);
		assert_int_equal(e2sr_seal_image(&jsb, &sl, 1, b), 0);
		assert_true(e2sr_jblock_tail_ok(&jsb, b));
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s), 0);
		assert_int_equal(s.count, 3);
		for (t = 0; t < 3; t++)
			assert_int_equal(s.blk[t], 100 * (t + 1));
		assert_int_equal(s.csum[0], 0x1111);
		assert_int_equal(s.csum[2], 0x3333);
		assert_int_equal(e2sr_jtag_csum_ok(&jsb, 9, zero, s.csum[1]),
				 0);
		/* No tag 3: refused, the block as it was. */
		sl.index = 3;
		assert_int_not_equal(e2sr_jdesc_set_csum(&jsb, b, 3, 1), 0);
	}
}

/* Tag flags wider than 16 bits reach the caller with csum v3. */
static void test_desc_tag3_flags(void **state)
{
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t off = 12;

	(void)state;
	get_jsb(&jsb, E2SR_JBD2_INCOMPAT_CSUM_V3);
	block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
	add_tag(&jsb, b, &off, 5, 0x10000 | E2SR_JBD2_FLAG_LAST_TAG, 1);
	set_tail(&jsb, b);
	memset(&s, 0, sizeof(s));
	assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s), 0);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.flags[0], 0x10000 | E2SR_JBD2_FLAG_LAST_TAG);
}

static void test_desc_overrun(void **state)
{
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t i, off, n, room;

	(void)state;
	for (i = 0; i < NLAYOUTS; i++) {
		get_jsb(&jsb, layouts[i]);
		room = BS - jsb.tail_bytes - 12;

		/* Tags up to the end of the block, none of them the last. */
		block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
		off = 12;
		add_tag(&jsb, b, &off, 1, 0, 0);
		for (n = 1; off + jsb.tag_bytes <= BS - jsb.tail_bytes; n++)
			add_tag(&jsb, b, &off, n + 1,
				E2SR_JBD2_FLAG_SAME_UUID, 0);
		assert_true(off <= BS - jsb.tail_bytes);
		set_tail(&jsb, b);
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
				 E2SR_ERR_JOURNAL_BAD_TAGS);
		assert_int_equal(s.count, n);
		assert_int_equal(n, 1 + (room - jsb.tag_bytes - 16) /
				 jsb.tag_bytes);

		/* A last tag whose uuid would run past the block. */
		block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
		off = 12;
		add_tag(&jsb, b, &off, 1, 0, 0);
		while (off + 2 * jsb.tag_bytes <= BS - jsb.tail_bytes)
			add_tag(&jsb, b, &off, 2, E2SR_JBD2_FLAG_SAME_UUID, 0);
		put32(b, off, 77);
		if (jsb.csum_version == 3)
			put32(b, off + 4, E2SR_JBD2_FLAG_LAST_TAG);
		else
			put16(b, off + 6, E2SR_JBD2_FLAG_LAST_TAG);
		set_tail(&jsb, b);
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
				 E2SR_ERR_JOURNAL_BAD_TAGS);
		assert_true(s.count > 0);
		assert_true(s.blk[s.count - 1] != 77);
	}
}

static void test_desc_bad_tail(void **state)
{
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t i, off;

	(void)state;
	for (i = 2; i < NLAYOUTS; i++) {
		get_jsb(&jsb, layouts[i]);
		block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
		off = 12;
		add_tag(&jsb, b, &off, 10, 0, 0);
		add_tag(&jsb, b, &off, 11, E2SR_JBD2_FLAG_SAME_UUID |
			E2SR_JBD2_FLAG_LAST_TAG, 0);
		set_tail(&jsb, b);
		b[BS - 1] ^= 1;
		/* Reported, after the tags: the caller decides. */
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		assert_int_equal(s.count, 2);
		/* A change anywhere in the block breaks it too. */
		set_tail(&jsb, b);
		b[BS - 100] ^= 1;
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		set_tail(&jsb, b);
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s), 0);
	}
}

static void test_desc_not_descriptor(void **state)
{
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t off = 12;

	(void)state;
	get_jsb(&jsb, 0);
	block_header(b, E2SR_JBD2_DESCRIPTOR_BLOCK, 9);
	add_tag(&jsb, b, &off, 1, 0, 0);
	add_tag(&jsb, b, &off, 2, E2SR_JBD2_FLAG_SAME_UUID, 0);
	add_tag(&jsb, b, &off, 3, E2SR_JBD2_FLAG_LAST_TAG, 0);

	/* The callback's error stops the walk and comes back. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
			 EXT2_ET_CANCEL_REQUESTED);
	assert_int_equal(s.count, 2);

	memset(&s, 0, sizeof(s));
	put32(b, 4, E2SR_JBD2_COMMIT_BLOCK);
	assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
			 E2SR_ERR_JOURNAL_BAD_BLOCK);
	put32(b, 4, E2SR_JBD2_DESCRIPTOR_BLOCK);
	put32(b, 0, 0);
	assert_int_equal(e2sr_jdesc_tags(&jsb, b, seen_tag, &s),
			 E2SR_ERR_JOURNAL_BAD_BLOCK);
	assert_int_equal(s.count, 0);
}

static void test_tag_csum(void **state)
{
	unsigned char data[BS];
	struct e2sr_jsb jsb;
	__u32 seq_be, crc;
	size_t i;

	(void)state;
	for (i = 0; i < BS; i++)
		data[i] = i * 13 + 5;
	for (i = 2; i < NLAYOUTS; i++) {
		get_jsb(&jsb, layouts[i]);
		seq_be = ext2fs_cpu_to_be32(0x01020304);
		crc = crc_over(jsb.csum_seed, (unsigned char *)&seq_be, 4);
		crc = crc_over(crc, data, BS);
		if (jsb.csum_version == 3) {
			assert_int_equal(e2sr_jtag_csum_ok(&jsb, 0x01020304,
							   data, crc), 0);
			assert_int_equal(e2sr_jtag_csum_ok(&jsb, 0x01020304,
							   data,
							   crc ^ 0x10000),
					 E2SR_ERR_JOURNAL_BAD_CSUM);
		} else {
			/* Only the low 16 bits are stored. */
			assert_int_equal(e2sr_jtag_csum_ok(&jsb, 0x01020304,
							   data,
							   crc & 0xffff), 0);
		}
		assert_int_equal(e2sr_jtag_csum_ok(&jsb, 0x01020305, data,
						   crc),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		data[BS - 1] ^= 1;
		assert_int_equal(e2sr_jtag_csum_ok(&jsb, 0x01020304, data,
						   crc),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		data[BS - 1] ^= 1;
	}
	/* A journal without checksums has nothing to contradict. */
	get_jsb(&jsb, 0);
	assert_int_equal(e2sr_jtag_csum_ok(&jsb, 1, data, 0), 0);
}

/* Revoke blocks. */

static void make_revoke(const struct e2sr_jsb *jsb, unsigned char *b,
			const blk64_t *blks, size_t n)
{
	size_t i, off = 16;

	block_header(b, E2SR_JBD2_REVOKE_BLOCK, 12);
	for (i = 0; i < n; i++) {
		if (jsb->record_bytes == 8) {
			put32(b, off, blks[i] >> 32);
			put32(b, off + 4, (__u32)blks[i]);
		} else {
			put32(b, off, (__u32)blks[i]);
		}
		off += jsb->record_bytes;
	}
	put32(b, 12, off);
	set_tail(jsb, b);
}

static void test_revoke_records(void **state)
{
	static const blk64_t small[] = { 400, 401, 0xfffffffe };
	static const blk64_t big[] = { 400, 0x123456789aULL, 7 };
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t i, t;

	(void)state;
	for (i = 0; i < NLAYOUTS; i++) {
		const blk64_t *w;

		get_jsb(&jsb, layouts[i] | E2SR_JBD2_INCOMPAT_REVOKE);
		w = jsb.record_bytes == 8 ? big : small;
		make_revoke(&jsb, b, w, 3);
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jrevoke_records(&jsb, b, seen_revoke,
						      &s), 0);
		assert_int_equal(s.count, 3);
		for (t = 0; t < 3; t++)
			assert_int_equal(s.blk[t], w[t]);

		/* An empty revoke block. */
		make_revoke(&jsb, b, w, 0);
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jrevoke_records(&jsb, b, seen_revoke,
						      &s), 0);
		assert_int_equal(s.count, 0);

		if (jsb.csum_version) {
			make_revoke(&jsb, b, w, 3);
			b[100] ^= 1;
			memset(&s, 0, sizeof(s));
			assert_int_equal(e2sr_jrevoke_records(&jsb, b,
							      seen_revoke,
							      &s),
					 E2SR_ERR_JOURNAL_BAD_CSUM);
			assert_int_equal(s.count, 3);
		}
	}
}

static void test_revoke_bad_count(void **state)
{
	static const blk64_t w[] = { 1, 2 };
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct seen s;
	size_t i, full;

	(void)state;
	for (i = 0; i < NLAYOUTS; i++) {
		__u32 bad[6];
		size_t k;

		get_jsb(&jsb, layouts[i] | E2SR_JBD2_INCOMPAT_REVOKE);
		/* A block exactly full of records is right. */
		full = 16 + (BS - jsb.tail_bytes - 16) / jsb.record_bytes *
			jsb.record_bytes;
		make_revoke(&jsb, b, w, 2);
		put32(b, 12, full);
		set_tail(&jsb, b);
		memset(&s, 0, sizeof(s));
		assert_int_equal(e2sr_jrevoke_records(&jsb, b, seen_revoke,
						      &s), 0);
		assert_int_equal(s.count, (full - 16) / jsb.record_bytes);

		bad[0] = 0;
		bad[1] = 15;
		bad[2] = 16 + jsb.record_bytes + 1;	/* part record */
		bad[3] = BS - jsb.tail_bytes + 1;
		bad[4] = BS + 8;
		bad[5] = 0xffffffff;
		for (k = 0; k < 6; k++) {
			make_revoke(&jsb, b, w, 2);
			put32(b, 12, bad[k]);
			set_tail(&jsb, b);
			memset(&s, 0, sizeof(s));
			assert_int_equal(e2sr_jrevoke_records(&jsb, b,
							      seen_revoke,
							      &s),
					 E2SR_ERR_JOURNAL_BAD_REVOKE);
			assert_int_equal(s.count, 0);
		}
		/* Records may not run into the tail. */
		if (jsb.csum_version) {
			make_revoke(&jsb, b, w, 2);
			put32(b, 12, BS);
			set_tail(&jsb, b);
			assert_int_equal(e2sr_jrevoke_records(&jsb, b,
							      seen_revoke,
							      &s),
					 E2SR_ERR_JOURNAL_BAD_REVOKE);
		}
		make_revoke(&jsb, b, w, 2);
		put32(b, 4, E2SR_JBD2_DESCRIPTOR_BLOCK);
		assert_int_equal(e2sr_jrevoke_records(&jsb, b, seen_revoke,
						      &s),
				 E2SR_ERR_JOURNAL_BAD_BLOCK);
	}
}

/* Commit blocks. */

static void make_commit(const struct e2sr_jsb *jsb, unsigned char *b)
{
	block_header(b, E2SR_JBD2_COMMIT_BLOCK, 0x2a);
	put32(b, 0x30, 0x1);
	put32(b, 0x34, 0x23456789);
	put32(b, 0x38, 999999999);
	if (jsb->csum_version)
		put32(b, 0x10, crc_over(jsb->csum_seed, b, BS));
}

static void test_commit_csum(void **state)
{
	unsigned char b[BS];
	struct e2sr_jsb jsb;
	struct e2sr_jcommit c;
	size_t i;

	(void)state;
	for (i = 2; i < NLAYOUTS; i++) {
		get_jsb(&jsb, layouts[i]);
		make_commit(&jsb, b);
		assert_int_equal(e2sr_jcommit_check(&jsb, b, &c), 0);
		assert_int_equal(c.sequence, 0x2a);
		assert_int_equal(c.commit_sec, 0x123456789ULL);
		assert_int_equal(c.commit_nsec, 999999999);
		assert_int_equal(c.chksum, ((__u32)b[0x10] << 24) |
				 ((__u32)b[0x11] << 16) |
				 ((__u32)b[0x12] << 8) | b[0x13]);
		/* The whole block counts, not just the header. */
		b[BS - 1] ^= 1;
		assert_int_equal(e2sr_jcommit_check(&jsb, b, &c),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		b[BS - 1] ^= 1;
		b[0x10] ^= 1;
		assert_int_equal(e2sr_jcommit_check(&jsb, b, &c),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
		/* A different journal uuid, a different checksum. */
		b[0x10] ^= 1;
		jsb.csum_seed ^= 1;
		assert_int_equal(e2sr_jcommit_check(&jsb, b, &c),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
	}
}

static void test_commit_v1(void **state)
{
	unsigned char b[BS];
	unsigned char sb[BS];
	struct e2sr_jsb jsb;
	struct e2sr_jcommit c;

	(void)state;
	make_sb(sb, E2SR_JBD2_SUPERBLOCK_V2, E2SR_JBD2_COMPAT_CHECKSUM,
		E2SR_JBD2_INCOMPAT_ASYNC_COMMIT);
	assert_int_equal(e2sr_jsb_parse(sb, BS, BS, &jsb), 0);

	make_commit(&jsb, b);
	b[0xC] = E2SR_JBD2_CRC32_CHKSUM;
	b[0xD] = 4;
	put32(b, 0x10, 0x89abcdef);
	assert_int_equal(e2sr_jcommit_check(&jsb, b, &c), 0);
	assert_int_equal(c.chksum_type, E2SR_JBD2_CRC32_CHKSUM);
	assert_int_equal(c.chksum_size, 4);
	assert_int_equal(c.chksum, 0x89abcdef);

	/* No checksum at all is allowed; half of one is not. */
	b[0xC] = 0;
	b[0xD] = 0;
	put32(b, 0x10, 0);
	assert_int_equal(e2sr_jcommit_check(&jsb, b, &c), 0);
	put32(b, 0x10, 1);
	assert_int_equal(e2sr_jcommit_check(&jsb, b, &c),
			 E2SR_ERR_JOURNAL_BAD_COMMIT);
	b[0xC] = E2SR_JBD2_MD5_CHKSUM;
	b[0xD] = 16;
	assert_int_equal(e2sr_jcommit_check(&jsb, b, &c),
			 E2SR_ERR_JOURNAL_BAD_COMMIT);

	/* Without any checksum feature the fields are not looked at. */
	get_jsb(&jsb, 0);
	assert_int_equal(e2sr_jcommit_check(&jsb, b, &c), 0);
	put32(b, 4, E2SR_JBD2_REVOKE_BLOCK);
	assert_int_equal(e2sr_jcommit_check(&jsb, b, &c),
			 E2SR_ERR_JOURNAL_BAD_BLOCK);
}

/*
 * A journal written by debugfs on a real image: its tags must name the
 * blocks debugfs was told to write, as logdump also reports them.
 */

struct real_journal {
	struct testimg	t;
	ext2_filsys	fs;
	unsigned char	*buf;
};

static void read_jblock(struct real_journal *r, blk64_t lblk)
{
	blk64_t pblk = 0;

	assert_int_equal(ext2fs_bmap2(r->fs, EXT2_JOURNAL_INO, NULL, NULL, 0,
				      lblk, NULL, &pblk), 0);
	assert_true(pblk != 0);
	assert_int_equal(io_channel_read_blk64(r->fs->io, pblk, 1, r->buf),
			 0);
}

static void check_real(int with_csum)
{
	static const blk64_t wrote[] = { 100, 200, 300 };
	struct real_journal r;
	struct e2sr_jsb jsb;
	struct e2sr_jcommit c;
	struct ext2_inode ino;
	struct seen s;
	blk64_t ld_fs[8], ld_j[8];
	unsigned int ld_flags[8];
	char script[PATH_MAX + 64], data[PATH_MAX];
	__u32 type, seq;
	size_t i, n;

	memset(&r, 0, sizeof(r));
	assert_int_equal(testimg_setup(&r.t), 0);
	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -O metadata_csum "
				     "'%s' 16M >/dev/null 2>&1", r.t.img), 0);
	assert_int_equal(testimg_make_file(&r.t, "data", 3 * 4096, 9), 0);
	assert_int_equal(testimg_path(&r.t, "data", data, sizeof(data)), 0);
	n = snprintf(script, sizeof(script),
		     "jo%s\njw -b 100,200,300 %s\njw -r 400,401\njc\n",
		     with_csum ? " -c" : "", data);
	assert_true(n < sizeof(script));
	assert_int_equal(testimg_debugfs(&r.t, script), 0);

	assert_int_equal(ext2fs_open(r.t.img, 0, 0, 0, unix_io_manager,
				     &r.fs), 0);
	r.buf = malloc(r.fs->blocksize);
	assert_non_null(r.buf);

	read_jblock(&r, 0);
	assert_int_equal(e2sr_jsb_parse(r.buf, r.fs->blocksize,
					r.fs->blocksize, &jsb), 0);
	assert_int_equal(jsb.version, 2);
	assert_int_equal(jsb.csum_version, with_csum ? 3 : 0);
	assert_true(jsb.incompat & E2SR_JBD2_INCOMPAT_64BIT);
	assert_int_equal(ext2fs_read_inode(r.fs, EXT2_JOURNAL_INO, &ino), 0);
	assert_int_equal(jsb.maxlen, EXT2_I_SIZE(&ino) / r.fs->blocksize);
	assert_memory_equal(jsb.uuid, r.fs->super->s_uuid, 16);
	assert_int_equal(jsb.start, jsb.first);

	/* Transaction 1: descriptor, the three blocks, commit. */
	read_jblock(&r, jsb.start);
	assert_int_equal(e2sr_jblock_header(&jsb, r.buf, &type, &seq), 0);
	assert_int_equal(type, E2SR_JBD2_DESCRIPTOR_BLOCK);
	assert_int_equal(seq, jsb.sequence);
	memset(&s, 0, sizeof(s));
	assert_int_equal(e2sr_jdesc_tags(&jsb, r.buf, seen_tag, &s), 0);
	assert_int_equal(s.count, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(s.blk[i], wrote[i]);
	assert_true(s.flags[2] & E2SR_JBD2_FLAG_LAST_TAG);

	/* logdump says the same. */
	n = testimg_logdump_tags(&r.t, ld_fs, ld_j, ld_flags, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		assert_int_equal(ld_fs[i], s.blk[i]);
		assert_int_equal(ld_j[i], jsb.start + 1 + i);
		assert_int_equal(ld_flags[i], s.flags[i]);
	}

	for (i = 0; i < 3; i++) {
		read_jblock(&r, jsb.start + 1 + i);
		assert_int_equal(e2sr_jtag_csum_ok(&jsb, seq, r.buf,
						   s.csum[i]), 0);
		if (with_csum) {
			r.buf[7] ^= 1;
			assert_int_equal(e2sr_jtag_csum_ok(&jsb, seq, r.buf,
							   s.csum[i]),
					 E2SR_ERR_JOURNAL_BAD_CSUM);
		}
	}
	read_jblock(&r, jsb.start + 4);
	assert_int_equal(e2sr_jcommit_check(&jsb, r.buf, &c), 0);
	assert_int_equal(c.sequence, seq);

	/* Transaction 2: the revoke block and its commit. */
	read_jblock(&r, jsb.start + 5);
	memset(&s, 0, sizeof(s));
	assert_int_equal(e2sr_jrevoke_records(&jsb, r.buf, seen_revoke, &s),
			 0);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.blk[0], 400);
	assert_int_equal(s.blk[1], 401);
	read_jblock(&r, jsb.start + 6);
	assert_int_equal(e2sr_jcommit_check(&jsb, r.buf, &c), 0);
	assert_int_equal(c.sequence, seq + 1);
	if (with_csum) {
		r.buf[100] ^= 1;
		assert_int_equal(e2sr_jcommit_check(&jsb, r.buf, &c),
				 E2SR_ERR_JOURNAL_BAD_CSUM);
	}

	free(r.buf);
	ext2fs_close_free(&r.fs);
	testimg_cleanup(&r.t);
}

static void test_real_journal_csum(void **state)
{
	(void)state;
	check_real(1);
}

static void test_real_journal_plain(void **state)
{
	(void)state;
	check_real(0);
}

/* What the writer's descriptors say, tag by tag. */
struct wtag {
	blk64_t		blk;
	__u32		flags;
	__u32		csum;
};

struct wtags {
	struct wtag	v[512];
	unsigned int	n;
};

static errcode_t take_wtag(void *priv, blk64_t blk, __u32 flags, __u32 csum,
			   unsigned int index EXT2FS_ATTR((unused)))
{
	struct wtags *t = priv;

	if (t->n >= 512)
		return EXT2_ET_INVALID_ARGUMENT;
	t->v[t->n].blk = blk;
	t->v[t->n].flags = flags;
	t->v[t->n++].csum = csum;
	return 0;
}

/*
 * journal_write.c's transaction, read back by this file's parsers in
 * every tag layout of layouts[]: 300 blocks (two descriptors with csum
 * v3), two of them starting with the jbd2 magic (escaped, restored),
 * 64-bit numbers where the journal has them, tag, descriptor and commit
 * checksums that hold.
 */
static void test_writer_roundtrip(void **state EXT2FS_ATTR((unused)))
{
	enum { N = 300, TID = 4242 };
	const unsigned char *data[N];
	unsigned char *src, *log, *p;
	blk64_t blk[N];
	struct wtags *tags;
	struct e2sr_jcommit c;
	struct e2sr_jsb jsb;
	__u32 nlog, type, seq, l;
	unsigned int i, k, done;

	src = malloc((size_t)N * BS);
	tags = calloc(1, sizeof(*tags));
	assert_non_null(src);
	assert_non_null(tags);
	for (i = 0; i < N; i++) {
		memset(src + (size_t)i * BS, (int)(i * 7 + 1), BS);
		data[i] = src + (size_t)i * BS;
	}
	put32(src + 5 * BS, 0, E2SR_JBD2_MAGIC);
	put32(src + 260 * BS, 0, E2SR_JBD2_MAGIC);
	for (l = 0; l < NLAYOUTS; l++) {
		get_jsb(&jsb, layouts[l]);
		for (i = 0; i < N; i++)
			blk[i] = 1000 + i * 3 +
				 ((layouts[l] & E2SR_JBD2_INCOMPAT_64BIT) ?
				  (1ULL << 33) : 0);
		nlog = e2sr_jtx_log_blocks(&jsb, N);
		assert_true(nlog >= N + 2);
		log = malloc((size_t)nlog * BS);
		assert_non_null(log);
		assert_int_equal(e2sr_jtx_build(&jsb, TID, 1234567, blk, data,
						N, log), 0);
		done = 0;
		for (k = 0; k + 1 < nlog;) {
			p = log + (size_t)k * BS;
			assert_int_equal(e2sr_jblock_header(&jsb, p, &type,
							    &seq), 0);
			assert_int_equal(type, E2SR_JBD2_DESCRIPTOR_BLOCK);
			assert_int_equal(seq, TID);
			tags->n = 0;
			assert_int_equal(e2sr_jdesc_tags(&jsb, p, take_wtag,
							 tags), 0);
			assert_int_equal(e2sr_jblock_tail_ok(&jsb, p), 1);
			k++;
			for (i = 0; i < tags->n; i++, k++, done++) {
				unsigned char copy[BS];

				p = log + (size_t)k * BS;
				assert_true(blk[done] == tags->v[i].blk);
				assert_int_equal(e2sr_jtag_csum_ok(&jsb, TID, p,
						 tags->v[i].csum), 0);
				memcpy(copy, p, BS);
				if (tags->v[i].flags & E2SR_JBD2_FLAG_ESCAPE)
					put32(copy, 0, E2SR_JBD2_MAGIC);
				assert_memory_equal(copy, data[done], BS);
				assert_int_equal(!!(tags->v[i].flags &
						    E2SR_JBD2_FLAG_ESCAPE),
						 done == 5 || done == 260);
			}
		}
		assert_int_equal(done, N);
		assert_int_equal(k, nlog - 1);
		assert_int_equal(e2sr_jcommit_check(&jsb,
						    log + (size_t)k * BS, &c),
				 0);
		assert_int_equal(c.sequence, TID);
		assert_true(c.commit_sec == 1234567);
		free(log);
	}
	free(tags);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sb_v1),
		cmocka_unit_test(test_sb_v2_features),
		cmocka_unit_test(test_sb_fast_commit),
		cmocka_unit_test(test_sb_bad_magic),
		cmocka_unit_test(test_sb_bad_blocksize),
		cmocka_unit_test(test_sb_bad_geometry),
		cmocka_unit_test(test_sb_features_refused),
		cmocka_unit_test(test_sb_bad_csum),
		cmocka_unit_test(test_desc_layouts),
		cmocka_unit_test(test_desc_reseal),
		cmocka_unit_test(test_desc_tag3_flags),
		cmocka_unit_test(test_desc_overrun),
		cmocka_unit_test(test_desc_bad_tail),
		cmocka_unit_test(test_desc_not_descriptor),
		cmocka_unit_test(test_tag_csum),
		cmocka_unit_test(test_revoke_records),
		cmocka_unit_test(test_revoke_bad_count),
		cmocka_unit_test(test_commit_csum),
		cmocka_unit_test(test_commit_v1),
		cmocka_unit_test(test_writer_roundtrip),
		cmocka_unit_test(test_real_journal_csum),
		cmocka_unit_test(test_real_journal_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
