/*
 * plan_journal_entry.c --- the entries of the journal plan.
 *
 * Owns struct e2sr_jplan as the plan holds it: adding an entry (a whole
 * journal block, or @len bytes of one) at the stage its reason gives,
 * the order the plan keeps them in (by journal block, the whole before
 * the parts, the parts by offset), the run of entries of one block, and
 * the lookup of a block in the walk's list.  What is planned, and why,
 * is plan_journal.c's; settling the entries against the log is
 * plan_journal_settle.c's, sealing descriptors plan_journal_seal.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "plan_journal_int.h"

/*
 * By journal block; for one block the whole first (it makes the parts
 * moot), then the parts by offset; the first reason found wins.
 */
int e2sr_jplan_cmp(const void *a, const void *b)
{
	const struct e2sr_jplan *x = a, *y = b;

	if (x->jblock != y->jblock)
		return x->jblock < y->jblock ? -1 : 1;
	if (!x->len != !y->len)
		return x->len ? 1 : -1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* A descriptor sealed at several stages: the last one first. */
	if (x->stage != y->stage)
		return x->stage > y->stage ? -1 : 1;
	return x->why < y->why ? -1 : x->why > y->why;
}

/* @len bytes of @jblock from @off; @len 0: the whole block. */
errcode_t e2sr_jplan_part(struct e2sr_plan *plan, __u32 jblock,
			  enum e2sr_jwhy why, ext2_ino_t ino, __u32 off,
			  __u32 len)
{
	struct e2sr_jplan *e;

	if (e2sr_array_room(&plan->journal, &plan->journal_alloc,
			    plan->journal_count + 1, sizeof(*plan->journal)))
		return EXT2_ET_NO_MEMORY;
	e = &plan->journal[plan->journal_count++];
	memset(e, 0, sizeof(*e));
	e->jblock = jblock;
	e->why = why;
	e->ino = ino;
	e->off = off;
	e->len = len;
	if (why == E2SR_JWHY_FC)
		e->stage = E2SR_JSTAGE_FLAGGED;
	else if (why == E2SR_JWHY_NAMEBYTES)
		e->stage = E2SR_JSTAGE_BYTES;
	else
		e->stage = E2SR_JSTAGE_COPIES;
	return 0;
}

errcode_t e2sr_jplan_whole(struct e2sr_plan *plan, __u32 jblock,
			   enum e2sr_jwhy why, ext2_ino_t ino)
{
	return e2sr_jplan_part(plan, jblock, why, ino, 0, 0);
}

/*
 * Past the last entry of the sorted plan that is for the same journal
 * block as entry @i: a block's whole and partial entries are adjacent.
 */
size_t e2sr_jplan_block_end(const struct e2sr_plan *plan, size_t i)
{
	size_t end;

	for (end = i + 1; end < plan->journal_count &&
	     plan->journal[end].jblock == plan->journal[i].jblock; end++)
		;
	return end;
}

/* The walk's copies (struct e2sr_jblock), searched by journal block. */
int e2sr_jplan_cmp_walk(const void *key, const void *elem)
{
	__u32 jb = *(const __u32 *)key;
	const struct e2sr_jblock *b = elem;

	return jb < b->jblock ? -1 : jb > b->jblock;
}
