/*
 * array.c --- the growable array of lib/: how every list the engine
 * builds (inventory files, versions, extents, plan entries, names) gets
 * room for one more, and how a list that grew past its sorted part is
 * sorted again.
 *
 * Owns only the growth, doubling, with the size checked against
 * overflow, the trim, and the sort.  The arrays, their counts and
 * capacities are the callers'; the memory is libext2fs'
 * (ext2fs_resize_mem), freed with ext2fs_free_mem(), as all of lib/'s is
 * (tests/check-layers.sh).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"

/*
 * Room for @need elements of @size bytes in *@ptr (a pointer to the
 * array's pointer), whose capacity is *@alloc elements.
 */
errcode_t e2sr_array_room(void *ptr, size_t *alloc, size_t need, size_t size)
{
	size_t na = *alloc;
	errcode_t err;

	if (need <= na)
		return 0;
	if (!na)
		na = 16;
	while (na < need) {
		if (na > SIZE_MAX / 2)
			return EXT2_ET_NO_MEMORY;
		na *= 2;
	}
	if (!size || na > SIZE_MAX / size)
		return EXT2_ET_NO_MEMORY;
	err = ext2fs_resize_mem(*alloc * size, na * size, ptr);
	if (err)
		return err;
	*alloc = na;
	return 0;
}

/*
 * Give back the room past @count elements of @size bytes in *@ptr: for
 * the many small lists (a file's map) that are built once and kept, so
 * that the 16 elements a list starts with do not outweigh its content.
 * An empty list keeps its room; shrinking cannot fail in a way that
 * matters (the list is left as it was).
 */
void e2sr_array_trim(void *ptr, size_t *alloc, size_t count, size_t size)
{
	if (!count || count >= *alloc)
		return;
	if (ext2fs_resize_mem(*alloc * size, count * size, ptr))
		return;
	*alloc = count;
}

/*
 * Sort @n elements of @size bytes at @base by @cmp, when most of them
 * are sorted already: a list sorted once and then added to.  Only what
 * follows the sorted prefix is sorted; the two are merged.  The order of
 * elements that compare equal is not kept.
 */
errcode_t e2sr_sort_tail(void *base, size_t n, size_t size,
			 int (*cmp)(const void *, const void *))
{
	unsigned char *r = base, *m, *out;
	size_t i, a, b;
	errcode_t err;

	for (i = 1; i < n; i++)
		if (cmp(r + (i - 1) * size, r + i * size) > 0)
			break;
	if (i >= n)
		return 0;
	qsort(r + i * size, n - i, size, cmp);
	if (cmp(r + (i - 1) * size, r + i * size) <= 0)
		return 0;
	err = ext2fs_get_array(n, size, &m);
	if (err)
		return err;
	for (a = 0, b = i, out = m; out < m + n * size; out += size) {
		if (b >= n || (a < i && cmp(r + a * size, r + b * size) <= 0))
			memcpy(out, r + a++ * size, size);
		else
			memcpy(out, r + b++ * size, size);
	}
	memcpy(r, m, n * size);
	ext2fs_free_mem(&m);
	return 0;
}

/*
 * In @n elements of @size bytes at @base, sorted so that @cmp (the key
 * first, an element second) is never positive before a place and never
 * negative from it on: that place, the first element not before @key
 * (@n when none), where a run of equal keys starts.
 */
size_t e2sr_lower_bound(const void *base, size_t n, size_t size,
			const void *key,
			int (*cmp)(const void *key, const void *elem))
{
	const unsigned char *r = base;
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp(key, r + mid * size) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
