/*
 * test_coverage.c --- coverage.c's reading of a journal ring: which
 * transactions are readable in full, and whether they reach back to the
 * journal's creation or to the previous run.  The rings are synthetic
 * walks (what journal_walk.c hands over), laid out the way the kernel
 * lays out its log: a descriptor, its copies, a commit, the next
 * transaction right after, around the ring.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "find_int.h"

#define LOG_FIRST	1
#define LOG_LEN		100	/* blocks 1..100 */

enum { P_NONE = 0, P_DESC, P_DATA, P_COMMIT };

/* What each position of the log holds now; overwritten like a ring. */
struct pos {
	int	type;
	__u32	seq;
	__u32	desc;		/* P_DATA: its descriptor's position */
};

struct ring {
	struct e2sr_ctx		*ctx;
	struct e2sr_journal	*j;
	struct e2sr_jwalk	*w;
	struct pos		log[LOG_FIRST + LOG_LEN];
};

static void ring_new(struct ring *r, __u32 sequence)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(e2sr_ctx_new(&r->ctx), 0);
	r->j = calloc(1, sizeof(*r->j));
	assert_non_null(r->j);
	r->j->jsb.version = 2;
	r->j->jsb.first = LOG_FIRST;
	r->j->jsb.last = LOG_FIRST + LOG_LEN;
	r->j->jsb.maxlen = LOG_FIRST + LOG_LEN;
	r->j->jsb.sequence = sequence;
	r->ctx->journal = r->j;
	r->ctx->history.built = 1;
	r->w = &r->ctx->history.walk;
}

static void ring_free(struct ring *r)
{
	r->ctx->journal = NULL;	/* not opened: nothing to close */
	free(r->j);
	e2sr_ctx_free(r->ctx);
}

static __u32 wrap(__u32 pos)
{
	return LOG_FIRST + (pos - LOG_FIRST) % LOG_LEN;
}

/*
 * Transaction @tid as the kernel writes it from @start: a descriptor,
 * @n copies, a commit.  Positions wrap.  Returns the one after its
 * commit, where the kernel goes on.
 */
static __u32 txn(struct ring *r, __u32 tid, __u32 start, __u32 n)
{
	__u32 desc = wrap(start), i;

	r->log[desc].type = P_DESC;
	r->log[desc].seq = tid;
	for (i = 1; i <= n; i++) {
		struct pos *p = &r->log[wrap(start + i)];

		p->type = P_DATA;
		p->seq = tid;
		p->desc = desc;
	}
	r->log[wrap(start + n + 1)].type = P_COMMIT;
	r->log[wrap(start + n + 1)].seq = tid;
	return wrap(start + n + 2);
}

/* Zeroed (by a wipe). */
static void zero_at(struct ring *r, __u32 pos)
{
	r->log[pos].type = P_NONE;
}

/*
 * What journal_walk.c would hand over: the copies whose descriptor is
 * still there, and the commits (commit time 1000 + tid).
 */
static void emit(struct ring *r)
{
	struct e2sr_jwalk *w = r->w;
	__u32 i;

	w->has_journal = 1;
	w->jsb = r->j->jsb;
	w->blocks = calloc(LOG_LEN, sizeof(*w->blocks));
	w->commits = calloc(LOG_LEN, sizeof(*w->commits));
	w->revokes = calloc(1, sizeof(*w->revokes));
	assert_non_null(w->blocks);
	assert_non_null(w->commits);
	assert_non_null(w->revokes);
	for (i = LOG_FIRST; i < LOG_FIRST + LOG_LEN; i++) {
		const struct pos *p = &r->log[i];

		if (p->type == P_DATA && r->log[p->desc].type == P_DESC &&
		    r->log[p->desc].seq == p->seq) {
			struct e2sr_jblock *b = &w->blocks[w->nblocks++];

			b->jblock = i;
			b->fs_block = 1000 + i;
			b->sequence = p->seq;
			b->desc = p->desc;
			b->verified = b->committed = 1;
		} else if (p->type == P_COMMIT) {
			w->commits[w->ncommits].jblock = i;
			w->commits[w->ncommits].sequence = p->seq;
			w->commits[w->ncommits].commit_sec = 1000 + p->seq;
			w->ncommits++;
		}
	}
}

static void set_prev(struct ring *r, __u32 tid, __u32 sequence, __u32 head)
{
	r->ctx->coverage.have_prev = 1;
	r->ctx->coverage.prev.tid = tid;
	r->ctx->coverage.prev.tid_time = 1000 + tid;
	r->ctx->coverage.prev.sequence = sequence;
	r->ctx->coverage.prev.head = head;
}

static const struct e2sr_coverage *scan(struct ring *r)
{
	emit(r);
	assert_int_equal(e2sr_coverage_scan(r->ctx), 0);
	return &r->ctx->coverage;
}

/* A fresh journal: tid 2 at s_first, the rest never written. */
static void test_fresh(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;
	__u32 p;

	(void)state;
	ring_new(&r, 6);
	p = txn(&r, 2, LOG_FIRST, 5);
	p = txn(&r, 3, p, 4);
	txn(&r, 4, p, 3);
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_CREATION);
	assert_int_equal(c->oldest, 2);
	assert_int_equal(c->newest, 4);
	assert_int_equal(c->newest_time, 1004);
	assert_true(e2sr_coverage_readable(c, 3));
	assert_false(e2sr_coverage_readable(c, 5));
	ring_free(&r);
}

/* mke2fs' journal, never used: nothing logged, s_sequence 1. */
static void test_never_used(void **state)
{
	struct ring r;

	(void)state;
	ring_new(&r, 1);
	assert_int_equal(scan(&r)->how, E2SR_COVER_CREATION);
	ring_free(&r);
	ring_new(&r, 9);	/* emptied by --all-journal, say: unknown */
	assert_int_equal(scan(&r)->how, E2SR_COVER_GAP);
	ring_free(&r);
}

/* tid 2 at s_first, but an older pass left a transaction past it. */
static void test_fresh_but_stale_after(void **state)
{
	struct ring r;

	(void)state;
	ring_new(&r, 6);
	txn(&r, 2, LOG_FIRST, 5);
	txn(&r, 0xfffffff0, 60, 3);	/* a tid from before a tid wrap */
	assert_int_equal(scan(&r)->how, E2SR_COVER_GAP);
	ring_free(&r);
}

/*
 * A ring that wrapped within one mount: tids 10..24 of 9 blocks each
 * from block 1; 21 wraps past the end, 22..24 overwrite 10..12 and the
 * copies of 13, whose commit (block 36) is all that is left of it.
 */
static void wrapped(struct ring *r)
{
	__u32 p = LOG_FIRST, tid;

	for (tid = 10; tid <= 24; tid++)
		p = txn(r, tid, p, 7);
}

static void test_wrapped_no_prev(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;

	(void)state;
	ring_new(&r, 26);
	wrapped(&r);
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	assert_true(c->have_from);
	assert_int_equal(c->newest, 24);
	assert_int_equal(c->oldest, 14);
	assert_int_equal(c->from, 14);
	assert_int_equal(c->oldest_time, 1014);
	assert_true(e2sr_coverage_readable(c, 14));
	assert_false(e2sr_coverage_readable(c, 13));
	ring_free(&r);
}

/* The same ring, after a run that saw up to 20, or only up to 5. */
static void test_wrapped_prev(void **state)
{
	struct ring r;

	(void)state;
	ring_new(&r, 26);
	wrapped(&r);
	set_prev(&r, 20, 22, 0);
	assert_int_equal(scan(&r)->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);

	ring_new(&r, 26);
	wrapped(&r);
	set_prev(&r, 5, 7, 0);		/* 8..13 are gone */
	assert_int_equal(scan(&r)->how, E2SR_COVER_GAP);
	ring_free(&r);
}

/*
 * Across a clean mount boundary the tids jump by 3 and the log goes on
 * at s_head: followed.  A bigger jump, or a jump over tids seen
 * elsewhere in the ring: not.
 */
static void test_mount_boundary(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;
	__u32 p;

	(void)state;
	ring_new(&r, 12);
	p = txn(&r, 2, LOG_FIRST, 5);
	p = txn(&r, 3, p, 5);
	p = txn(&r, 6, p, 5);		/* next mount: 3 + 3 */
	txn(&r, 7, p, 5);
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_CREATION);
	assert_int_equal(c->oldest, 2);
	ring_free(&r);

	ring_new(&r, 12);
	p = txn(&r, 2, LOG_FIRST, 5);
	p = txn(&r, 3, p, 5);
	p = txn(&r, 7, p, 5);		/* 3 + 4: a mount may be lost */
	txn(&r, 8, p, 5);
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	assert_int_equal(c->oldest, 7);
	assert_int_equal(c->from, 7);
	ring_free(&r);

	ring_new(&r, 12);
	txn(&r, 2, LOG_FIRST, 5);
	p = txn(&r, 3, 50, 5);
	txn(&r, 5, 80, 3);		/* tid 5 written away from 3 */
	txn(&r, 6, p, 5);		/* 3 + 3, but 5 is in the ring */
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	assert_int_equal(c->oldest, 6);
	ring_free(&r);
}

/* The log wrapped exactly at s_first: consecutive tids go on, jumps not. */
static void test_wrap_at_first(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;

	(void)state;
	ring_new(&r, 40);
	txn(&r, 29, 80, 8);		/* 80..89 */
	txn(&r, 30, 90, 9);		/* 90..100: ends at the last block */
	txn(&r, 31, LOG_FIRST, 3);
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	/* 30 is whole (29's commit before it), 29 not proven so */
	assert_int_equal(c->oldest, 30);
	ring_free(&r);

	ring_new(&r, 40);
	txn(&r, 29, 80, 8);
	txn(&r, 30, 90, 9);
	txn(&r, 33, LOG_FIRST, 3);	/* a restart at s_first? */
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	assert_int_equal(c->oldest, 33);
	ring_free(&r);
}

/*
 * After a run that emptied the log (--all-journal): the next mount's
 * first transaction, tid s_sequence + 1, where the run left s_head.
 */
static void test_after_all_journal(void **state)
{
	struct ring r;

	(void)state;
	ring_new(&r, 52);
	txn(&r, 51, 40, 4);
	set_prev(&r, 48, 50, 40);
	assert_int_equal(scan(&r)->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);

	ring_new(&r, 52);
	txn(&r, 51, 41, 4);		/* not where the kernel starts */
	set_prev(&r, 48, 50, 40);
	assert_int_equal(scan(&r)->how, E2SR_COVER_GAP);
	ring_free(&r);

	ring_new(&r, 52);
	txn(&r, 51, LOG_FIRST, 4);	/* no valid s_head: s_first */
	set_prev(&r, 48, 50, 0);
	assert_int_equal(scan(&r)->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);

	ring_new(&r, 51);
	txn(&r, 50, LOG_FIRST, 4);	/* debugfs: tid s_sequence */
	set_prev(&r, 48, 50, 40);
	assert_int_equal(scan(&r)->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);

	ring_new(&r, 50);		/* nothing since: s_sequence as left */
	set_prev(&r, 48, 50, 40);
	assert_int_equal(scan(&r)->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);
}

/* The previous run's own wipe broke its transactions: still complete. */
static void test_prev_wiped(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;
	__u32 p;

	(void)state;
	ring_new(&r, 9);
	p = txn(&r, 2, LOG_FIRST, 5);	/* 1..7 */
	p = txn(&r, 3, p, 5);		/* 8..14 */
	zero_at(&r, 8);			/* 3's descriptor */
	zero_at(&r, 2);			/* a copy of 2 */
	txn(&r, 6, p, 5);		/* the next mount, after its commit */
	set_prev(&r, 3, 5, p);
	c = scan(&r);
	assert_int_equal(c->how, E2SR_COVER_PREVIOUS);
	assert_int_equal(c->oldest, 6);
	assert_int_equal(c->from, 4);
	ring_free(&r);

	/* Without the state: neither complete nor back to the creation. */
	ring_new(&r, 9);
	p = txn(&r, 2, LOG_FIRST, 5);
	p = txn(&r, 3, p, 5);
	zero_at(&r, 8);
	txn(&r, 6, p, 5);
	assert_int_equal(scan(&r)->how, E2SR_COVER_GAP);
	ring_free(&r);

	/* Nothing since that run: its newest is still the newest. */
	ring_new(&r, 5);
	p = txn(&r, 2, LOG_FIRST, 5);
	txn(&r, 3, p, 5);
	zero_at(&r, 8);
	set_prev(&r, 3, 5, 0);
	assert_int_equal(scan(&r)->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);
}

/* A state that is not this journal's: taken as no previous run. */
static void test_mismatch(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;
	__u32 p;

	(void)state;
	ring_new(&r, 12);
	p = txn(&r, 9, 30, 5);
	txn(&r, 10, p, 5);
	set_prev(&r, 40, 42, 0);	/* saw more than there is */
	c = scan(&r);
	assert_true(c->prev_mismatch);
	assert_false(c->have_prev);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	ring_free(&r);

	ring_new(&r, 12);
	p = txn(&r, 9, 30, 5);
	txn(&r, 10, p, 5);
	set_prev(&r, 9, 11, 0);
	r.ctx->coverage.prev.tid_time = 5;	/* tid 9 committed at 1009 */
	c = scan(&r);
	assert_true(c->prev_mismatch);
	assert_int_equal(c->how, E2SR_COVER_GAP);
	ring_free(&r);

	/* A copy from before that run's replay: same newest, same time. */
	ring_new(&r, 9);
	r.j->jsb.start = 30;
	r.ctx->replay.recovery.end_seq = 11;
	p = txn(&r, 9, 30, 5);
	txn(&r, 10, p, 5);
	set_prev(&r, 10, 12, 0);
	c = scan(&r);
	assert_false(c->prev_mismatch);
	assert_int_equal(c->how, E2SR_COVER_PREVIOUS);
	ring_free(&r);
}

/* Commits at or past the bound are not this journal's newest. */
static void test_stale_newer(void **state)
{
	const struct e2sr_coverage *c;
	struct ring r;
	__u32 p;

	(void)state;
	ring_new(&r, 5);
	p = txn(&r, 2, LOG_FIRST, 5);
	txn(&r, 3, p, 5);
	txn(&r, 900, 70, 3);
	c = scan(&r);
	assert_int_equal(c->newest, 3);
	assert_int_equal(c->how, E2SR_COVER_GAP);	/* something after */
	ring_free(&r);

	/* The uncommitted tail of a crash: the creation all the same. */
	ring_new(&r, 4);
	r.j->jsb.start = LOG_FIRST;
	r.ctx->replay.recovery.end_seq = 4;
	p = txn(&r, 2, LOG_FIRST, 5);
	p = txn(&r, 3, p, 5);
	r.log[p].type = P_DESC;
	r.log[p].seq = 4;
	r.log[p + 1].type = P_DATA;
	r.log[p + 1].seq = 4;
	r.log[p + 1].desc = p;
	c = scan(&r);
	assert_int_equal(c->newest, 3);
	assert_int_equal(c->how, E2SR_COVER_CREATION);
	ring_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh),
		cmocka_unit_test(test_never_used),
		cmocka_unit_test(test_fresh_but_stale_after),
		cmocka_unit_test(test_wrapped_no_prev),
		cmocka_unit_test(test_wrapped_prev),
		cmocka_unit_test(test_mount_boundary),
		cmocka_unit_test(test_wrap_at_first),
		cmocka_unit_test(test_after_all_journal),
		cmocka_unit_test(test_prev_wiped),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_stale_newer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
