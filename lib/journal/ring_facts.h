/*
 * ring_facts.h --- what a walk of the log learnt from each block's bytes,
 * kept so that the next run need not read the blocks again.
 *
 * A walk of the whole ring (journal_walk.c) reads every log block; what
 * it and the history's look (history_recs.c) derive from a block depends
 * on its bytes and, for a copy, on the tag that claims it, nothing else.
 * struct e2sr_ring_facts holds that per position: a jbd2 block's bytes
 * (descriptors, commits and revokes are short), a copy's tag and what
 * its checksum said, whether the block is zero or reads as a directory,
 * and the records of an inode table copy with the runs each names, and
 * for a block that can hold names, the journal plan's index of them.  The
 * next run walks the blocks the kernel wrote since (ring_fresh.c) and
 * takes every other position from here, reading a block again only
 * where a tag now claims it that did not then.  doc/incremental.md says
 * why that gives the walk a full read gives.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_RING_FACTS_H
#define E2SR_RING_FACTS_H

#include <ext2fs/ext2fs.h>
#include "jbd2.h"

/* Per position (struct e2sr_ring_facts.bits) */
#define E2SR_RF_KNOWN		0x0001	/* the position's facts are here */
#define E2SR_RF_JBD2		0x0002	/* begins with the magic: bytes kept */
#define E2SR_RF_STALE		0x0004	/* not jbd2's and not all zero */
#define E2SR_RF_DIRLIKE		0x0008	/* reads as a directory block */
#define E2SR_RF_INLINE		0x0010	/* a slot holds an inline directory */
#define E2SR_RF_CLAIMED		0x0020	/* resolved under key[] */
#define E2SR_RF_VERIFIED	0x0040	/* key's checksum held */
#define E2SR_RF_RECS		0x0080	/* records taken, verified */
#define E2SR_RF_RECS_TRUSTED	0x0100	/* records taken, trusted */
#define E2SR_RF_NORECS		0x0200	/* all zero: no look takes any */
#define E2SR_RF_INDEX		0x0400	/* names index kept under noff[] */

/* The tag a copy was resolved under. */
struct e2sr_rf_key {
	blk64_t		fs_block;
	__u32		sequence;
	__u32		csum;
	__u32		flags;
	__u32		pad;
};

/*
 * The ring as a walk saw it, and where its newest transaction ended:
 * what the next run proves the kernel wrote since (ring_fresh.c).
 */
struct e2sr_ring_facts {
	__u32			first;		/* the log [first, last) */
	__u32			last;
	__u32			blocksize;
	__u32			ident;		/* crc of the journal's identity */
	__u32			sequence;	/* jsb's s_sequence */
	__u32			newest;		/* newest tid of any block */
	__u32			head;		/* after its newest commit */
	__u32			has_newest;
	__u32			fc_zero;	/* the area set aside all */
						/* zero (ring_fresh.c) */
	__u32			broken;		/* a put failed: not kept */
	__u16			*bits;		/* per position */
	struct e2sr_rf_key	*key;		/* per position */
	__u32			*off;		/* into data, per position */
	__u32			*noff;		/* into data: names index */
	unsigned char		*data;		/* jbd2 bytes, records */
	size_t			ndata;
	size_t			adata;
	/* Whose data opens ours, byte for byte (e2sr_rf_adopt) */
	const struct e2sr_ring_facts *base;
};

#define E2SR_RF_NONE	0xffffffffU	/* off[]: nothing in data */

errcode_t e2sr_rf_init(struct e2sr_ring_facts *f, const struct e2sr_jsb *jsb);
void e2sr_rf_free(struct e2sr_ring_facts *f);
__u32 e2sr_rf_ident(const struct e2sr_jsb *jsb);
int e2sr_rf_known(const struct e2sr_ring_facts *f, __u32 pos);
errcode_t e2sr_rf_put_jbd2(struct e2sr_ring_facts *f, __u32 pos,
			   const unsigned char *b);
void e2sr_rf_get_jbd2(const struct e2sr_ring_facts *f, __u32 pos,
		      unsigned char *b);
void e2sr_rf_forget(struct e2sr_ring_facts *f, __u32 pos);
void e2sr_rf_zeroed(struct e2sr_ring_facts *f, const struct e2sr_jsb *jsb,
		    __u32 pos, unsigned char *zero);
errcode_t e2sr_rf_adopt(struct e2sr_ring_facts *to,
			const struct e2sr_ring_facts *from);
errcode_t e2sr_rf_copy_pos(struct e2sr_ring_facts *to,
			   const struct e2sr_ring_facts *from, __u32 pos);
int e2sr_rf_key_is(const struct e2sr_ring_facts *f, __u32 pos,
		   blk64_t fs_block, __u32 sequence, __u32 csum, __u32 flags);
void e2sr_rf_set_key(struct e2sr_ring_facts *f, __u32 pos, blk64_t fs_block,
		     __u32 sequence, __u32 csum, __u32 flags, int verified);

/*
 * What the journal plan's name search found a stale block can hold
 * (plan_journal_index.c): its bytes are the plan's, kept as they are.
 */
errcode_t e2sr_rf_put_index(struct e2sr_ring_facts *f, __u32 pos,
			    const unsigned char *p, size_t len);
int e2sr_rf_get_index(const struct e2sr_ring_facts *f, __u32 pos,
		      const unsigned char **p, size_t *len);

/* The records of a copy: written by the look, read back by its replay. */
struct e2sr_rf_writer {
	struct e2sr_ring_facts	*f;
	__u32			pos;
	size_t			start;		/* of this copy's records */
	size_t			count_at;	/* where the count goes */
	__u32			count;
	errcode_t		err;
};

struct e2sr_rf_rec {
	__u16		slot;		/* as history.h's rec_slot, no FREEMAP */
	__u32		generation;
};

void e2sr_rf_recs_begin(struct e2sr_rf_writer *w, struct e2sr_ring_facts *f,
			__u32 pos, int trusted);
void e2sr_rf_recs_add(struct e2sr_rf_writer *w, __u16 slot, __u32 gen);
void e2sr_rf_recs_run(struct e2sr_rf_writer *w, blk64_t pblk, __u32 len);
errcode_t e2sr_rf_recs_end(struct e2sr_rf_writer *w);

/* A reader over one position's records. */
struct e2sr_rf_reader {
	const unsigned char	*p;
	const unsigned char	*end;
	__u32			left;		/* records */
	int			in_runs;	/* the current one's */
};

int e2sr_rf_recs_open(const struct e2sr_ring_facts *f, __u32 pos,
		      struct e2sr_rf_reader *r);
int e2sr_rf_recs_next(struct e2sr_rf_reader *r, struct e2sr_rf_rec *rec);
int e2sr_rf_recs_next_run(struct e2sr_rf_reader *r, blk64_t *pblk,
			  __u32 *len);

/* As kept between runs: one buffer (host order, machine-local). */
errcode_t e2sr_rf_encode(const struct e2sr_ring_facts *f, void **buf,
			 size_t *len);
errcode_t e2sr_rf_decode(const void *buf, size_t len,
			 struct e2sr_ring_facts *f);

#endif /* E2SR_RING_FACTS_H */
