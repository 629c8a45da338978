/*
 * name_set.c --- a set of known names, searched for at every byte.
 *
 * Owns the search for the bytes of secure-delete names where no entry
 * header says they are names: the slack of live directory blocks
 * (dirent.c) and stale journal blocks, attributed or not
 * (plan_journal.c).  The names are indexed by their first three bytes,
 * so that each byte of a buffer costs one lookup and not one compare per
 * name.  Where the names come from, and what is done with a match, is
 * the callers' business.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "name_set.h"

#define NAME_BUCKETS		4096

static unsigned int prefix_hash(const unsigned char *p)
{
	return ((p[0] * 31U + p[1]) * 31U + p[2]) & (NAME_BUCKETS - 1);
}

errcode_t e2sr_name_set_init(struct e2sr_name_set *s,
			     const unsigned char *blob, size_t blob_len)
{
	size_t i, n = 0, k;
	unsigned int h;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	s->blob = blob;
	s->blob_len = blob_len;
	for (i = 0; i < blob_len; i += 1 + blob[i])
		n++;
	if (!n)
		return 0;
	err = ext2fs_get_arrayzero(NAME_BUCKETS, sizeof(*s->bucket),
				   &s->bucket);
	if (!err)
		err = ext2fs_get_arrayzero(n + 1, sizeof(*s->chain),
					   &s->chain);
	if (!err)
		err = ext2fs_get_arrayzero(n + 1, sizeof(*s->name_off),
					   &s->name_off);
	if (err) {
		e2sr_name_set_free(s);
		return err;
	}
	for (i = 0, k = 1; i < blob_len; i += 1 + blob[i]) {
		if (blob[i] < E2SR_NAME_MIN || i + 1 + blob[i] > blob_len)
			continue;
		h = prefix_hash(blob + i + 1);
		s->name_off[k] = i;
		s->chain[k] = s->bucket[h];
		s->bucket[h] = k++;
	}
	return 0;
}

void e2sr_name_set_free(struct e2sr_name_set *s)
{
	ext2fs_free_mem(&s->bucket);
	ext2fs_free_mem(&s->chain);
	ext2fs_free_mem(&s->name_off);
}

int e2sr_name_set_empty(const struct e2sr_name_set *s)
{
	return !s->bucket;
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
	const unsigned char *name;
	unsigned int p, best, hits = 0;
	__u32 k;

	if (!s->bucket)
		return 0;
	if (!step)
		step = 1;
	for (p = from; p + E2SR_NAME_MIN <= to;
	     p += best ? (best + step - 1) / step * step : step) {
		best = 0;
		k = s->bucket[prefix_hash(buf + p)];
		for (; k; k = s->chain[k]) {
			name = s->blob + s->name_off[k];
			if (name[0] > best && name[0] <= to - p &&
			    !memcmp(buf + p, name + 1, name[0]))
				best = name[0];
		}
		if (!best)
			continue;
		hits++;
		if (hit && hit(priv, p, best))
			break;
	}
	return hits;
}
