/*
 * journal_walk_int.h --- what the files of the walk share, and nobody
 * else includes: the walk's state (a claim per log position a descriptor
 * tags, the descriptors, one descriptor's tags) and the calls between
 * journal_walk.c (the scan of the log), journal_claims.c (a claimed
 * position resolved, from its bytes or its kept facts, and shown to the
 * caller's look) and journal_spans.c (the commits, the spans trusted,
 * the result).  The walk's face is journal_walk.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_JOURNAL_WALK_INT_H
#define E2SR_JOURNAL_WALK_INT_H

#include "journal_walk.h"

/* A data position some descriptor says holds a copy of a fs block. */
struct claim {
	__u32		pos;		/* journal block */
	__u32		sequence;
	__u32		flags;
	__u32		csum;
	__u32		desc;		/* index into walk.descs */
	blk64_t		fs_block;
	__u8		in_range;	/* fs_block < blocks count */
	__u8		resolved;	/* its block looked at */
	__u8		valid;		/* it can be that data */
	__u8		verified;
	__u8		trusted;	/* not verified, in a clean span */
	__u8		zero;		/* all zero bytes */
};

struct desc_rec {
	__u32		pos;
	__u32		sequence;
	__u32		ntags;
};

struct tag_rec {
	blk64_t		blk;
	__u32		flags;
	__u32		csum;
};

struct walk {
	struct e2sr_journal	*j;
	blk64_t			fs_blocks;
	struct e2sr_jwalk	*out;
	const struct e2sr_jsb	*jsb;
	__u32			loglen;	/* last - first */
	__u32			*claim_of; /* per position: claim+1 */
	struct claim		*claims;
	size_t			nclaims;
	struct desc_rec		*descs;
	size_t			ndescs;
	struct tag_rec		*tags;	/* one descriptor's */
	size_t			max_tags;
	size_t			ntags;
	unsigned char		*scratch; /* one block */
	unsigned char		*kept;	/* one block, from the facts */
	const struct e2sr_jwalk_look *look; /* the caller's, or NULL */
	struct e2sr_jwalk_look	look_copy; /* it, without its facts */
	errcode_t		fn_err;	/* its first error */
};

/* journal_claims.c */
int e2sr_jw_fresh(const struct walk *w, __u32 pos);
void e2sr_jw_copy_of(const struct walk *w, const struct claim *c,
		     struct e2sr_jblock *copy);
void e2sr_jw_visit_copy(struct walk *w, const struct claim *c,
			const unsigned char *b);
void e2sr_jw_resolve(struct walk *w, struct claim *c, const unsigned char *b);
int e2sr_jw_facts_hold(const struct walk *w, __u32 pos, const struct claim *c,
		       int trusted);
void e2sr_jw_visit_facts(struct walk *w, const struct claim *c);
void e2sr_jw_resolve_facts(struct walk *w, struct claim *c);

/* journal_spans.c */
errcode_t e2sr_jw_trust_spans(struct walk *w);
errcode_t e2sr_jw_build_result(struct walk *w);

#endif /* E2SR_JOURNAL_WALK_INT_H */
