/*
 * name_set.h --- a set of known names, searched for at every byte of a
 * buffer (lib/util/name_set.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_NAME_SET_H
#define E2SR_NAME_SET_H

#include <ext2fs/ext2fs.h>

/* Names shorter than this are not searched for: too common. */
#define E2SR_NAME_MIN		3

/*
 * The names live in a blob the caller keeps: each one a length byte,
 * then its bytes.  The set only indexes them.
 */
struct e2sr_name_set {
	const unsigned char	*blob;
	size_t			blob_len;
	size_t			*bucket;	/* by first three bytes: where */
	size_t			*name_off;	/* its names start, sorted */
};

/* A match: @len bytes at @off.  Nonzero stops the search. */
typedef int (*e2sr_name_hit_fn)(void *priv, unsigned int off,
				unsigned int len);

errcode_t e2sr_name_set_init(struct e2sr_name_set *s,
			     const unsigned char *blob, size_t blob_len);
void e2sr_name_set_free(struct e2sr_name_set *s);
int e2sr_name_set_empty(const struct e2sr_name_set *s);
unsigned int e2sr_name_set_scan(const struct e2sr_name_set *s,
				const unsigned char *buf, unsigned int from,
				unsigned int to, unsigned int step,
				e2sr_name_hit_fn hit, void *priv);

#endif /* E2SR_NAME_SET_H */
