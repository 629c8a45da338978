/*
 * zero.c --- whether a buffer reads as nothing.
 *
 * Every stage asks it: the journal walk of each copy, the plan of each
 * journal block, --skip-zero of each run, --verify of each read, the
 * free-inode scan of each record.  Word by word, as the bytes are
 * mostly zeros or mostly not, and the answer comes early either way.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"

int e2sr_all_zero(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	__u64 w;
	size_t i;

	for (i = 0; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, b + i, sizeof(w));
		if (w)
			return 0;
	}
	for (; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}
