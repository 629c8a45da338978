/*
 * ino_set.c --- a fixed set of inode numbers, each with a value.
 *
 * Owns the set of secure-delete inode numbers that the names and the
 * journal passes look words up in (inventory.c fills it, from the files
 * a caller wants).  Built once, then only read: sorted pairs for the
 * value, a bit per inode number where that is small enough, else a
 * filter on the low 16 bits in front of a binary search, because most
 * words of a journal block are looked up and most miss.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"

/* Up to this inode number (2 MiB of bits) the set is a bit array. */
#define INO_BITS_MAX		(1U << 24)

static int cmp_entry(const void *a, const void *b)
{
	ext2_ino_t x = ((const struct e2sr_ino_entry *)a)->ino;
	ext2_ino_t y = ((const struct e2sr_ino_entry *)b)->ino;

	return x < y ? -1 : x > y;
}

/* Room for @max numbers; the set is empty until e2sr_ino_set_done(). */
errcode_t e2sr_ino_set_init(struct e2sr_ino_set *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	if (!max)
		return 0;
	return ext2fs_get_array(max, sizeof(*s->v), &s->v);
}

void e2sr_ino_set_add(struct e2sr_ino_set *s, ext2_ino_t ino, size_t value)
{
	s->v[s->n].ino = ino;
	s->v[s->n].value = value;
	s->n++;
}

/* Sorted, and the filter and bits made: from here on, only read. */
void e2sr_ino_set_done(struct e2sr_ino_set *s)
{
	ext2_ino_t top, ino;
	size_t i;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
	memset(s->filter, 0, sizeof(s->filter));
	for (i = 0; i < s->n; i++) {
		ino = s->v[i].ino;
		s->filter[(ino & 0xffff) >> 3] |= 1 << (ino & 7);
	}
	top = s->n ? s->v[s->n - 1].ino : 0;
	if (!s->n || top > INO_BITS_MAX ||
	    ext2fs_get_memzero(top / 8 + 1, &s->bits))
		return;		/* the filter and the search will do */
	s->nbits = top;
	for (i = 0; i < s->n; i++)
		s->bits[s->v[i].ino >> 3] |= 1 << (s->v[i].ino & 7);
}

void e2sr_ino_set_free(struct e2sr_ino_set *s)
{
	ext2fs_free_mem(&s->v);
	ext2fs_free_mem(&s->bits);
	s->n = 0;
	s->nbits = 0;
}

/* Whether @ino is in the sorted array @a of @n inode numbers. */
int e2sr_ino_sorted_has(const ext2_ino_t *a, size_t n, ext2_ino_t ino)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (a[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == ino;
}

/* The entry of @ino, or NULL. */
const struct e2sr_ino_entry *e2sr_ino_set_find(const struct e2sr_ino_set *s,
					       ext2_ino_t ino)
{
	struct e2sr_ino_entry key;

	if (!e2sr_ino_set_maybe(s, ino))
		return NULL;
	key.ino = ino;
	return bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_entry);
}
