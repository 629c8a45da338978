/*
 * name_set.c --- a set of known names, searched for at every byte.
 *
 * Owns the search for the bytes of secure-delete names where no entry
 * header says they are names: the slack of live directory blocks
 * (dirent.c) and stale journal blocks (plan_journal.c).  The names are
 * bucketed by their first three bytes, so that most places of a buffer
 * cost one lookup; within a bucket they are sorted, so that a place that
 * starts like thousands of names (the files of one directory often share
 * a prefix) costs a binary search, not a compare per name.  Where the
 * names come from, and what is done with a match, is the callers'
 * business.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "name_set.h"

#define NAME_BUCKETS		4096

static unsigned int prefix_hash(const unsigned char *p)
{
	return ((p[0] * 31U + p[1]) * 31U + p[2]) & (NAME_BUCKETS - 1);
}

/* A name of the blob: its length byte, then its bytes. */
static const unsigned char *name_at(const struct e2sr_name_set *s, size_t k)
{
	return s->blob + s->name_off[k];
}

/*
 * Names against a text of @tlen bytes: a name that is a prefix of the
 * text sorts before it, as a shorter string does.
 */
static int cmp_text(const unsigned char *name, const unsigned char *text,
		    unsigned int tlen)
{
	unsigned int nl = name[0];
	int c = memcmp(name + 1, text, nl < tlen ? nl : tlen);

	if (c)
		return c;
	return nl < tlen ? -1 : nl > tlen;
}

static const struct e2sr_name_set *sort_set;

static int cmp_names(const void *a, const void *b)
{
	const unsigned char *x = sort_set->blob + *(const size_t *)a;
	const unsigned char *y = sort_set->blob + *(const size_t *)b;
	unsigned int hx = prefix_hash(x + 1), hy = prefix_hash(y + 1);

	if (hx != hy)
		return hx < hy ? -1 : 1;
	return cmp_text(x, y + 1, y[0]);
}

errcode_t e2sr_name_set_init(struct e2sr_name_set *s,
			     const unsigned char *blob, size_t blob_len)
{
	size_t i, n = 0, k;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	s->blob = blob;
	s->blob_len = blob_len;
	for (i = 0; i < blob_len && i + 1 + blob[i] <= blob_len;
	     i += 1 + blob[i])
		if (blob[i] >= E2SR_NAME_MIN)
			n++;
	if (!n)
		return 0;
	err = ext2fs_get_arrayzero(NAME_BUCKETS + 1, sizeof(*s->bucket),
				   &s->bucket);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*s->name_off), &s->name_off);
	if (err) {
		e2sr_name_set_free(s);
		return err;
	}
	for (i = 0, k = 0; i < blob_len && i + 1 + blob[i] <= blob_len;
	     i += 1 + blob[i])
		if (blob[i] >= E2SR_NAME_MIN)
			s->name_off[k++] = i;
	/* qsort has no context argument; the set is built by one caller. */
	sort_set = s;
	qsort(s->name_off, n, sizeof(*s->name_off), cmp_names);
	sort_set = NULL;
	/* bucket[h] .. bucket[h + 1]: the names of bucket h, sorted. */
	for (k = 0; k < n; k++)
		s->bucket[prefix_hash(name_at(s, k) + 1) + 1]++;
	for (k = 0; k < NAME_BUCKETS; k++)
		s->bucket[k + 1] += s->bucket[k];
	return 0;
}

void e2sr_name_set_free(struct e2sr_name_set *s)
{
	ext2fs_free_mem(&s->bucket);
	ext2fs_free_mem(&s->name_off);
}

int e2sr_name_set_empty(const struct e2sr_name_set *s)
{
	return !s->bucket;
}

/* How many first bytes @name and the text share. */
static unsigned int common(const unsigned char *name,
			   const unsigned char *text, unsigned int tlen)
{
	unsigned int i, n = name[0] < tlen ? name[0] : tlen;

	for (i = 0; i < n && name[1 + i] == text[i]; i++)
		;
	return i;
}

/* The first of [lo, hi) that sorts after the text's first @tlen bytes. */
static size_t upper(const struct e2sr_name_set *s, size_t lo, size_t hi,
		    const unsigned char *text, unsigned int tlen)
{
	size_t mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_text(name_at(s, mid), text, tlen) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The longest name of the bucket that the text starts with, 0 if none.
 * A name that is a prefix of the text sorts just before it or before
 * names that share at least its length with the text: so from the
 * text's place, each name that is not a prefix bounds the length of any
 * prefix before it by what it shares, and a search for exactly that
 * many bytes of the text is the next candidate.
 */
static unsigned int longest(const struct e2sr_name_set *s, size_t lo,
			    size_t hi, const unsigned char *text,
			    unsigned int tlen)
{
	const unsigned char *name;
	unsigned int l;
	size_t i;

	i = upper(s, lo, hi, text, tlen);
	while (i > lo) {
		name = name_at(s, i - 1);
		l = common(name, text, tlen);
		if (l == name[0])
			return l;
		if (l < E2SR_NAME_MIN)
			return 0;
		/* Any prefix before it is at most l bytes: look there. */
		hi = i - 1;
		i = upper(s, lo, hi, text, l);
		tlen = l;
	}
	return 0;
}

/*
 * Every known name in [from, to) of @buf, starting at @from plus a
 * multiple of @step: at each place the longest name that starts there,
 * then on past it.  Returns the number of matches.
 */
unsigned int e2sr_name_set_scan(const struct e2sr_name_set *s,
				const unsigned char *buf, unsigned int from,
				unsigned int to, unsigned int step,
				e2sr_name_hit_fn hit, void *priv)
{
	unsigned int p, best, hits = 0, h;

	if (!s->bucket)
		return 0;
	if (!step)
		step = 1;
	for (p = from; p + E2SR_NAME_MIN <= to;
	     p += best ? (best + step - 1) / step * step : step) {
		best = 0;
		/* No name starts with a NUL: slack mostly does. */
		if (!buf[p])
			continue;
		h = prefix_hash(buf + p);
		if (s->bucket[h] == s->bucket[h + 1])
			continue;
		best = longest(s, s->bucket[h], s->bucket[h + 1], buf + p,
			       to - p);
		if (!best)
			continue;
		hits++;
		if (hit && hit(priv, p, best))
			break;
	}
	return hits;
}
