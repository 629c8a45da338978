/*
 * test_name_set.c --- the known-name search (lib/util/name_set.c), as a table:
 * names, a buffer, the step, and the matches expected.
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

#include "name_set.h"

#define MAX_HITS	8

struct hits {
	unsigned int	n;
	unsigned int	off[MAX_HITS];
	unsigned int	len[MAX_HITS];
	unsigned int	stop_after;	/* 0: never stop */
};

static int note(void *priv, unsigned int off, unsigned int len)
{
	struct hits *h = priv;

	if (h->n < MAX_HITS) {
		h->off[h->n] = off;
		h->len[h->n] = len;
	}
	h->n++;
	return h->stop_after && h->n >= h->stop_after;
}

/* "a|bc|def" into the blob form: a length byte, then the bytes. */
static size_t blob_of(const char *names, unsigned char *blob)
{
	size_t len = 0;
	const char *p = names, *e;

	while (*p) {
		e = strchr(p, '|');
		if (!e)
			e = p + strlen(p);
		blob[len++] = (unsigned char)(e - p);
		memcpy(blob + len, p, e - p);
		len += e - p;
		p = *e ? e + 1 : e;
	}
	return len;
}

struct row {
	const char	*names;
	const char	*buf;		/* '.' stands for a zero byte */
	unsigned int	step;
	unsigned int	n;		/* matches, then where and how long */
	unsigned int	off[3];
	unsigned int	len[3];
};

static const struct row rows[] = {
	/* Nothing known: nothing found, whatever the buffer. */
	{ "", "secret..", 1, 0, { 0 }, { 0 } },
	/* Shorter than E2SR_NAME_MIN: never searched for. */
	{ "ab", "..ab..ab", 1, 0, { 0 }, { 0 } },
	/* Every byte, and the longest name at a place wins. */
	{ "secret|secret-2", ".secret-2.secret.", 1, 2, { 1, 10 },
	  { 8, 6 } },
	/* Past a match, not inside it. */
	{ "aaa", "aaaaaa..", 1, 2, { 0, 3 }, { 3, 3 } },
	/* Four-byte steps: only names that start on them. */
	{ "name", ".name...name", 4, 1, { 8 }, { 4 } },
	{ "name", "name.name...", 4, 1, { 0 }, { 4 } },
	/* After a match of 5, the next place is 8, not 5. */
	{ "abcde|xyz", "abcdexyzxyz.", 4, 2, { 0, 8 }, { 5, 3 } },
	/* A name running past the end is no match. */
	{ "tailname", "....tail", 1, 0, { 0 }, { 0 } },
	/* Same prefix, different names: both known. */
	{ "abcX|abcY", "abcY....abcX", 4, 2, { 0, 8 }, { 4, 4 } },
	/* Longer names sort between the text and its longest prefix. */
	{ "abc|abcd|abce|abcdef", "abcdeX..", 1, 1, { 0 }, { 4 } },
	{ "abc|abcx|abcz", "abcy....", 1, 1, { 0 }, { 3 } },
};

static void test_rows(void **state)
{
	unsigned char blob[256], buf[64];
	struct e2sr_name_set set;
	struct hits h;
	size_t i, blen, len, k;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		blen = blob_of(r->names, blob);
		len = strlen(r->buf);
		for (k = 0; k < len; k++)
			buf[k] = r->buf[k] == '.' ? 0 : r->buf[k];
		assert_int_equal(e2sr_name_set_init(&set, blob, blen), 0);
		memset(&h, 0, sizeof(h));
		assert_int_equal(e2sr_name_set_scan(&set, buf, 0, len,
						    r->step, note, &h),
				 r->n);
		assert_int_equal(h.n, r->n);
		for (k = 0; k < r->n; k++) {
			assert_int_equal(h.off[k], r->off[k]);
			assert_int_equal(h.len[k], r->len[k]);
		}
		e2sr_name_set_free(&set);
	}
}

/* A callback that asks to stop is obeyed; [from, to) is respected. */
static void test_stop_and_bounds(void **state)
{
	unsigned char blob[64], buf[] = "xx.key.key.key.";
	struct e2sr_name_set set;
	struct hits h;

	(void)state;
	assert_int_equal(e2sr_name_set_init(&set, blob,
					    blob_of("key", blob)), 0);
	memset(&h, 0, sizeof(h));
	h.stop_after = 2;
	assert_int_equal(e2sr_name_set_scan(&set, buf, 0, 15, 1, note, &h),
			 2);
	memset(&h, 0, sizeof(h));
	/* "key" at 3 ends at 6: inside [3, 6); the one at 7 is cut by 9. */
	assert_int_equal(e2sr_name_set_scan(&set, buf, 3, 9, 1, note, &h),
			 1);
	assert_int_equal(h.off[0], 3);
	assert_false(e2sr_name_set_empty(&set));
	e2sr_name_set_free(&set);
	assert_int_equal(e2sr_name_set_init(&set, blob, 0), 0);
	assert_true(e2sr_name_set_empty(&set));
	assert_int_equal(e2sr_name_set_scan(&set, buf, 0, 15, 1, note, &h),
			 0);
	e2sr_name_set_free(&set);
}

/* The longest name at each place, the slow way. */
static unsigned int brute(const unsigned char *blob, size_t blen,
			  const unsigned char *buf, unsigned int len,
			  unsigned int *off, unsigned int *mlen)
{
	unsigned int p, best, n = 0;
	size_t i;

	for (p = 0; p + E2SR_NAME_MIN <= len; p += best ? best : 1) {
		best = 0;
		for (i = 0; i < blen; i += 1 + blob[i])
			if (blob[i] >= E2SR_NAME_MIN && blob[i] > best &&
			    blob[i] <= len - p &&
			    !memcmp(buf + p, blob + i + 1, blob[i]))
				best = blob[i];
		if (best) {
			off[n] = p;
			mlen[n++] = best;
		}
	}
	return n;
}

struct all_hits {
	unsigned int	n;
	unsigned int	off[512];
	unsigned int	len[512];
};

static int note_all(void *priv, unsigned int off, unsigned int len)
{
	struct all_hits *h = priv;

	h->off[h->n] = off;
	h->len[h->n++] = len;
	return 0;
}

/*
 * Many names over three letters, sharing prefixes as a directory's
 * files do, against random texts: the same matches as the slow way.
 */
static void test_against_brute(void **state)
{
	unsigned char blob[4096], buf[512];
	unsigned int off[512], mlen[512], n, round, k, nl;
	struct e2sr_name_set set;
	struct all_hits h;
	size_t blen;

	(void)state;
	srand(11);
	for (round = 0; round < 200; round++) {
		blen = 0;
		for (k = 0; k < 40 + round % 60; k++) {
			nl = 3 + rand() % 6;
			blob[blen++] = nl;
			while (nl--)
				blob[blen++] = "abc"[rand() % 3];
		}
		for (k = 0; k < sizeof(buf); k++)
			buf[k] = "abcd"[rand() % 4];
		n = brute(blob, blen, buf, sizeof(buf), off, mlen);
		assert_int_equal(e2sr_name_set_init(&set, blob, blen), 0);
		memset(&h, 0, sizeof(h));
		assert_int_equal(e2sr_name_set_scan(&set, buf, 0, sizeof(buf),
						    1, note_all, &h), n);
		for (k = 0; k < n; k++) {
			assert_int_equal(h.off[k], off[k]);
			assert_int_equal(h.len[k], mlen[k]);
		}
		e2sr_name_set_free(&set);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_stop_and_bounds),
		cmocka_unit_test(test_against_brute),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
