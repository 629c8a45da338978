/*
 * readahead.h --- byte ranges a pass will read, asked of the kernel a
 * window ahead of the pass (lib/util/readahead.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_READAHEAD_H
#define E2SR_READAHEAD_H

#include <ext2fs/ext2fs.h>

struct e2sr_ra_range {
	__u64		offset;		/* bytes, on the device */
	__u64		length;
};

/* How far ahead of a pass its reads are asked for. */
#define E2SR_RA_WINDOW	(64ULL << 20)

struct e2sr_ra;

errcode_t e2sr_ra_add(struct e2sr_ra_range **r, size_t *n, size_t *alloc,
		      __u64 offset, __u64 length);
void e2sr_ra_start(const char *device, const struct e2sr_ra_range *r,
		   size_t n, __u64 window, struct e2sr_ra **ra);
void e2sr_ra_done(struct e2sr_ra *ra, __u64 bytes);
void e2sr_ra_stop(struct e2sr_ra **ra);

#endif /* E2SR_READAHEAD_H */
