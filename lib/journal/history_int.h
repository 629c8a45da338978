/*
 * history_int.h --- what history.c and history_recs.c share, and nobody
 * else includes.
 *
 * Owns the state of the walk's look at the copies (struct rec_look) and
 * the calls e2sr_history_build() (history.c) makes into history_recs.c.
 * The index's face is history.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_HISTORY_INT_H
#define E2SR_HISTORY_INT_H

#include "history.h"

/* One group's inode table, for the walk's look at the copies. */
struct itable_range {
	blk64_t		start;
	blk64_t		count;
	ext2_ino_t	first;
};

struct rec_look {
	ext2_filsys		fs;
	__u32			first;	/* the log's first block */
	unsigned int		bs;	/* the journal's block size */
	struct e2sr_history	*h;
	struct itable_range	*r;	/* by start */
	size_t			nr;
	size_t			alloc;		/* of h->icopies */
	size_t			gen_alloc;	/* of h->rec_gen */
	size_t			slot_alloc;	/* of h->rec_slot */
	unsigned char		*rec_buf;	/* one record */
	struct e2sr_ring_facts	*out;		/* records kept, or NULL */
};

/* history_recs.c */
errcode_t e2sr_history_itable_ranges(ext2_filsys fs, struct rec_look *l);
errcode_t e2sr_history_look_at_copy(void *priv, const struct e2sr_jblock *copy,
				    const unsigned char *b);
errcode_t e2sr_history_look_at_stale(void *priv, __u32 jblock,
				     const unsigned char *b);
errcode_t e2sr_history_look_at_facts(void *priv,
				     const struct e2sr_jblock *copy,
				     const struct e2sr_ring_facts *f);
errcode_t e2sr_history_stale_facts(void *priv, __u32 jblock, __u16 bits);
errcode_t e2sr_history_settle_recs(struct e2sr_history *h);

#endif /* E2SR_HISTORY_INT_H */
