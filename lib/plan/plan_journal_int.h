/*
 * plan_journal_int.h --- what the files of the journal plan share among
 * themselves (plan_journal.c, plan_journal_entry.c, plan_journal_index.c,
 * plan_journal_names.c, plan_journal_settle.c, plan_journal_seal.c);
 * nothing outside lib/plan/ includes it.  What the other layers may use
 * of the journal plan is declared in plan.h, the folder's face.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_PLAN_JOURNAL_INT_H
#define E2SR_PLAN_JOURNAL_INT_H

#include "plan.h"
#include "util.h"

/* The secure-delete files the journal plan is for. */
struct jplan {
	struct e2sr_ctx		*ctx;
	/* Every 4-byte word of a copy is looked up: most miss. */
	struct e2sr_ino_set	set;		/* secure-delete numbers */
};

/*
 * Bytes [from, to) of stale block @jblock can hold entries; @dir: they
 * are the whole block, and it reads as a directory block.
 */
typedef errcode_t (*name_block_fn)(struct e2sr_ctx *ctx, __u32 jblock,
				   const unsigned char *b, unsigned int from,
				   unsigned int to, int dir, void *priv);

/* A place [from, to) of a block where a name may lie: non-zero stops. */
typedef int (*slack_fn)(void *priv, unsigned int from, unsigned int to);

/*
 * What a name pass asks of a block's kept index (plan_journal_index.c):
 * the entries of @set's numbers, or, without @set, the names' @keys.
 */
struct name_query {
	const struct e2sr_ino_set	*set;
	const __u32			*keys;
	size_t				nkeys;
};

/* plan_journal_index.c */
int e2sr_jplan_entry_at(const unsigned char *b, unsigned int to,
			unsigned int off);
errcode_t e2sr_jplan_block_ranges(struct e2sr_ctx *ctx, __u32 jblock,
				  const unsigned char *b, int itable,
				  name_block_fn fn, void *priv);
void e2sr_jplan_slack(const unsigned char *b, unsigned int from,
		      unsigned int to, int dir, slack_fn fn, void *priv);
errcode_t e2sr_jplan_index_make(struct e2sr_ctx *ctx, __u32 jblock,
				const unsigned char *b, int itable,
				unsigned char **out, size_t *len);
int e2sr_jplan_index_ask(const unsigned char *p, size_t len, int itable,
			 const struct e2sr_ino_set *set, const __u32 *keys,
			 size_t nkeys, int *ask);
__u32 e2sr_jplan_index_key(const unsigned char *name, unsigned int len);
int e2sr_jplan_index_no(struct e2sr_ctx *ctx, const struct name_query *q,
			__u32 jb, int itable);
errcode_t e2sr_jplan_index_note(struct e2sr_ctx *ctx, __u32 jb,
				const unsigned char *b, int itable, int no);
errcode_t e2sr_jplan_index_maps(struct e2sr_ctx *ctx);
void e2sr_jplan_index_mark(struct e2sr_ctx *ctx, __u32 jb, int itable);

/* plan_journal_entry.c */
int e2sr_jplan_cmp(const void *a, const void *b);
errcode_t e2sr_jplan_part(struct e2sr_plan *plan, __u32 jblock,
			  enum e2sr_jwhy why, ext2_ino_t ino, __u32 off,
			  __u32 len);
errcode_t e2sr_jplan_whole(struct e2sr_plan *plan, __u32 jblock,
			   enum e2sr_jwhy why, ext2_ino_t ino);
int e2sr_jplan_cmp_walk(const void *key, const void *elem);

/* plan_journal_names.c */
errcode_t e2sr_jplan_name_blocks(struct e2sr_ctx *ctx,
				 const struct name_query *q, name_block_fn fn,
				 void *priv);

/* plan_journal_seal.c */
errcode_t e2sr_jplan_seals(struct e2sr_ctx *ctx);

/* plan_journal_settle.c */
errcode_t e2sr_jplan_settle(struct e2sr_ctx *ctx);

#endif /* E2SR_PLAN_JOURNAL_INT_H */
