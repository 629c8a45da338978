/*
 * array.c --- the growable array of lib/: how every list the engine
 * builds (inventory files, versions, extents, plan entries, names) gets
 * room for one more.
 *
 * Owns only the growth, doubling, with the size checked against
 * overflow.  The arrays, their counts and capacities are the callers';
 * the memory is libext2fs' (ext2fs_resize_mem), freed with
 * ext2fs_free_mem(), as all of lib/'s is (tests/check-layers.sh).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>

#include "e2secrmP.h"

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
