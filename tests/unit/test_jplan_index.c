/*
 * test_jplan_index.c --- the index of a stale directory block
 * (lib/plan/plan_journal_index.c): what the next run asks instead of
 * reading the block.
 *
 * A "no" from the index passes a block over, so an index that lost an
 * entry's inode or a name's key would leave residue: every inode and
 * every name the block holds must be asked for, and the lists kept
 * sorted and without repeats (the size of the ring file).
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
#include "util.h"
#include "journal_io.h"
#include "plan_journal_int.h"

#define BS		4096
#define NENTRIES	60
#define SLACK		32	/* an old name's room after each entry */

static void put_le32(unsigned char *p, __u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* Numbers out of order in every byte, so that each byte sorts. */
static __u32 ino_of(int k)
{
	return 0x9e3779b1U * (__u32)(k + 1);
}

static void old_name(int k, char *name)
{
	snprintf(name, 16, "old%04d", k * 37);
}

/*
 * A directory block: entries "fileNNNN", each with room after its name
 * where a removed entry's name "oldNNNN" is left; the last entry's
 * length runs to the end.
 */
static void make_block(unsigned char *b)
{
	unsigned int off = 0, name_len, rec_len;
	char name[32];
	int k;

	memset(b, 0, BS);
	for (k = 0; k < NENTRIES; k++) {
		name_len = (unsigned int)snprintf(name, sizeof(name),
						  "file%04d", k);
		rec_len = 8 + ((name_len + 3) & ~3U) + SLACK;
		if (k == NENTRIES - 1)
			rec_len = BS - off;
		put_le32(b + off, ino_of(k));
		b[off + 4] = rec_len & 0xff;
		b[off + 5] = rec_len >> 8;
		b[off + 6] = (unsigned char)name_len;
		b[off + 7] = 1;
		memcpy(b + off + 8, name, name_len);
		old_name(k, name);
		memcpy(b + off + 8 + ((name_len + 3) & ~3U), name,
		       strlen(name));
		off += rec_len;
	}
	assert_true(off == BS);
}

/*
 * The index's varints, read here on their own: a reader shared with the
 * code under test would agree with any mistake it made.
 */
static int get_varint(const unsigned char **p, const unsigned char *end,
		      __u32 *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 35) {
		unsigned char c = *(*p)++;

		*v |= (__u32)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

/*
 * A list of the index: each value its step from the one before, so a
 * list out of order steps past 2^32 and a repeat steps by 0; its count.
 */
static __u32 check_sorted(const unsigned char **q, const unsigned char *end)
{
	__u32 n, i, d;
	__u64 x = 0;

	assert_true(get_varint(q, end, &n));
	for (i = 0; i < n; i++) {
		assert_true(get_varint(q, end, &d));
		if (i)
			assert_true(d > 0);
		x += d;
		assert_true(x <= 0xffffffffULL);
	}
	return n;
}

static void test_dir_block(void **state)
{
	static const char never[] = "zzqqxxww";
	unsigned char b[BS], *ix;
	struct e2sr_journal j;
	struct e2sr_ctx *ctx;
	struct e2sr_ino_set set;
	const unsigned char *q;
	char name[32];
	size_t len;
	__u32 key, nkeys;
	int k, ask;

	(void)state;
	ctx = calloc(1, sizeof(*ctx));
	assert_non_null(ctx);
	memset(&j, 0, sizeof(j));
	j.blocksize = BS;
	ctx->journal = &j;
	make_block(b);
	assert_int_equal(e2sr_jplan_index_make(ctx, 7, b, 0, &ix, &len), 0);

	/* Every entry's inode is asked for, alone. */
	for (k = 0; k < NENTRIES; k++) {
		assert_int_equal(e2sr_ino_set_init(&set, 1), 0);
		e2sr_ino_set_add(&set, ino_of(k), 0);
		e2sr_ino_set_done(&set);
		assert_true(e2sr_jplan_index_ask(ix, len, 0, &set, NULL, 0,
						 &ask));
		assert_true(ask);
		e2sr_ino_set_free(&set);
	}
	assert_int_equal(e2sr_ino_set_init(&set, 1), 0);
	e2sr_ino_set_add(&set, 12345, 0);
	e2sr_ino_set_done(&set);
	assert_true(e2sr_jplan_index_ask(ix, len, 0, &set, NULL, 0, &ask));
	assert_false(ask);
	e2sr_ino_set_free(&set);

	/* Every name, live or left in the slack, by its first bytes. */
	for (k = 0; k < NENTRIES; k++) {
		old_name(k, name);
		key = e2sr_jplan_index_key((unsigned char *)name,
					   strlen(name));
		assert_true(e2sr_jplan_index_ask(ix, len, 0, NULL, &key, 1,
						 &ask));
		assert_true(ask);
	}
	key = e2sr_jplan_index_key((const unsigned char *)never,
				   strlen(never));
	assert_true(e2sr_jplan_index_ask(ix, len, 0, NULL, &key, 1, &ask));
	assert_false(ask);

	/* The kind, then both lists sorted without repeats. */
	q = ix + 1;
	assert_int_equal(check_sorted(&q, ix + len), NENTRIES);
	nkeys = check_sorted(&q, ix + len);
	assert_true(nkeys >= NENTRIES && nkeys <= 4 * NENTRIES);
	assert_ptr_equal(q, ix + len);
	/* The same bytes, the same index. */
	{
		unsigned char *again;
		size_t alen;

		assert_int_equal(e2sr_jplan_index_make(ctx, 7, b, 0, &again,
						       &alen), 0);
		assert_int_equal(alen, len);
		assert_memory_equal(again, ix, len);
		free(again);
	}
	free(ix);
	free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
