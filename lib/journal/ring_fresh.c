/*
 * ring_fresh.c --- which log blocks the kernel wrote since the ring's
 * facts were kept.
 *
 * Owns e2sr_rf_fresh(): from the journal superblock and the place where
 * the kept ring's newest transaction ended (struct e2sr_ring_facts.head),
 * the positions written since, found by following the chain of
 * transactions the kernel wrote: jbd2 writes the log in order from its
 * head, a descriptor, the copies it tags, revoke blocks, a commit, and
 * the next transaction after it, each with a larger sequence than every
 * block the facts hold.  The chain is followed from each place a kernel
 * starts writing after a clean unmount: where the kept ring's newest
 * transaction ended (jbd2 keeps its head in the superblock's s_head and
 * goes on from there), and the log's first block (where kernels that do
 * not keep it start).  Its blocks, and the
 * copies its descriptors tag (whether or not a crash left them
 * unwritten), are the fresh ones; everything else is as the facts say.
 * A kernel that committed anything since began a chain at one of those
 * places: so a chain must begin.  One that went round the whole ring
 * wrote at least four transactions before the one now at the chain's
 * start (jbd2 caps a transaction at a quarter of the journal,
 * j_max_transaction_buffers), and wrote the block before that start
 * last: so a chain whose first transaction is more than three after the
 * kept superblock's sequence needs that block to be still what the facts
 * say; else the facts are not used.
 * The fast-commit area is written in place by every mount of a file
 * system with the feature, outside any chain.  Where the walk takes it
 * for part of the log (the journal's feature off, and journal_dev.c did
 * not set the area aside: the file system lacks the feature) its blocks
 * are fresh, unless the area was all zero when the facts were kept and
 * its first block still is (fc_area_quiet()); set aside, it is outside
 * the facts, and the fast-commit walk reads it whole.  Without the
 * feature the kernel writes none of it but through the chain.
 * Whether the facts may be used at all (nothing but the kernel wrote the
 * log since) is the caller's: lib/find/ring_since.c.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "jbd2.h"
#include "journal_io.h"
#include "ring_facts.h"
#include "ring_fresh.h"

/*
 * Transactions that may come before a chain's first one in this era and
 * still not fill the ring: three, each at most a quarter of it.
 */
#define MAX_BEFORE	3

/* jbd2's fast-commit area when s_num_fc_blks says 0. */
#define FC_DEFAULT_BLOCKS	256

static int tid_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

struct chain {
	int				begun;	/* chains found */
	struct e2sr_journal		*j;
	const struct e2sr_ring_facts	*f;
	__u8				*fresh;
	__u32				loglen;
	__u32				count;	/* fresh positions */
	unsigned char			*buf;
};

static errcode_t count_tag(void *priv, blk64_t blk, __u32 flags, __u32 csum,
			   unsigned int index)
{
	__u32 *n = priv;

	(void)blk;
	(void)flags;
	(void)csum;
	*n = index + 1;
	return 0;
}

static void mark(struct chain *c, __u32 pos)
{
	__u32 i = pos - c->f->first;

	if (c->fresh[i >> 3] & (1 << (i & 7)))
		return;
	c->fresh[i >> 3] |= 1 << (i & 7);
	c->count++;
}

static __u32 next_pos(const struct chain *c, __u32 pos)
{
	return pos + 1 >= c->f->last ? c->f->first : pos + 1;
}

static __u32 prev_pos(const struct chain *c, __u32 pos)
{
	return pos <= c->f->first ? c->f->last - 1 : pos - 1;
}

/*
 * Whether log block @pos holds what the facts say, as far as they can
 * show it: a jbd2 block byte for byte, a copy whose tag's checksum held
 * still holding.  Anything else cannot be shown, and is taken as not.
 */
static int unchanged(struct chain *c, __u32 pos)
{
	const struct e2sr_ring_facts *f = c->f;
	const struct e2sr_rf_key *k = &f->key[pos - f->first];
	__u16 bits = f->bits[pos - f->first];
	unsigned char *kept;
	int same;

	if (!(bits & E2SR_RF_KNOWN) ||
	    e2sr_journal_read(c->j, pos, 1, c->buf))
		return 0;
	if (bits & E2SR_RF_JBD2) {
		if (ext2fs_get_mem(f->blocksize, &kept))
			return 0;
		e2sr_rf_get_jbd2(f, pos, kept);
		same = !memcmp(kept, c->buf, f->blocksize);
		ext2fs_free_mem(&kept);
		return same;
	}
	return (bits & E2SR_RF_CLAIMED) && (bits & E2SR_RF_VERIFIED) &&
	       e2sr_get_be32(c->buf) != E2SR_JBD2_MAGIC &&
	       !e2sr_jtag_csum_ok(&c->j->jsb, k->sequence, c->buf, k->csum);
}

/*
 * The chain from @pos: blocks of transactions newer than every kept one
 * and not newer than the superblock's, in order.  0, or why the log
 * written since cannot be told from the rest.  jbd2 writes on from
 * where it starts without a gap, so had it gone round the whole ring it
 * would have written the block before @pos last: that block must still
 * be what the facts say.
 */
static enum e2sr_rf_why follow(struct chain *c, __u32 pos)
{
	const struct e2sr_jsb *jsb = &c->j->jsb;
	__u32 type, seq, prev = c->f->newest, ntags, k, steps = 0;
	__u32 start = pos, first_tid = 0;
	errcode_t err;

	for (;;) {
		if (steps++ > c->loglen || c->count >= c->loglen)
			return E2SR_RF_WRAPPED;
		err = e2sr_journal_read(c->j, pos, 1, c->buf);
		if (err)
			return E2SR_RF_READ;
		if (e2sr_jblock_header(jsb, c->buf, &type, &seq) ||
		    !tid_after(seq, c->f->newest) ||
		    tid_after(seq, jsb->sequence) || tid_after(prev, seq)) {
			/* The chain ends; if it began, it did not wrap. */
			if (steps == 1)
				return E2SR_RF_OK;
			c->begun++;
			if (first_tid - c->f->sequence <= MAX_BEFORE)
				return E2SR_RF_OK;
			return unchanged(c, prev_pos(c, start)) ?
			       E2SR_RF_OK : E2SR_RF_WRAPPED;
		}
		if (steps == 1)
			first_tid = seq;
		prev = seq;
		mark(c, pos);
		pos = next_pos(c, pos);
		switch (type) {
		case E2SR_JBD2_DESCRIPTOR_BLOCK:
			ntags = 0;
			err = e2sr_jdesc_tags(jsb, c->buf, count_tag, &ntags);
			if ((err && err != E2SR_ERR_JOURNAL_BAD_CSUM) ||
			    !ntags || ntags >= c->loglen)
				return E2SR_RF_CHAIN;
			for (k = 0; k < ntags; k++) {
				mark(c, pos);
				pos = next_pos(c, pos);
			}
			break;
		case E2SR_JBD2_COMMIT_BLOCK:
		case E2SR_JBD2_REVOKE_BLOCK:
			break;
		default:
			return E2SR_RF_CHAIN;
		}
	}
}

/*
 * The fast-commit area's size in blocks: s_num_fc_blks, or
 * JBD2_DEFAULT_FAST_COMMIT_BLOCKS (256) when that is 0.
 */
static __u32 fc_area_blocks(const struct chain *c)
{
	const struct e2sr_jsb *jsb = &c->j->jsb;
	__u32 nfc = 0;

	if (c->j->sbuf && jsb->version == 2)
		nfc = e2sr_get_be32(c->j->sbuf +
				    offsetof(struct e2sr_jbd2_sb,
					     s_num_fc_blks));
	if (!nfc)
		nfc = FC_DEFAULT_BLOCKS;
	if (nfc + 1 >= jsb->maxlen)
		nfc = jsb->maxlen - 1;
	return nfc;
}

/*
 * The fast-commit area as the kernel places it, the last
 * fc_area_blocks() blocks and the block before them (j_fc_first is j_last + 1), where it lies inside
 * what the walk takes for the log.
 */
static void mark_fc_area(struct chain *c)
{
	const struct e2sr_jsb *jsb = &c->j->jsb;
	__u32 nfc = fc_area_blocks(c), pos;

	for (pos = jsb->maxlen - nfc - 1; pos < jsb->maxlen; pos++)
		if (pos >= jsb->first && pos < jsb->last)
			mark(c, pos);
}

/*
 * Whether the kernel can have written no block of the fast-commit area
 * since the facts were kept, every block of it being zero then: each
 * round of fast commits starts at the area's first block (j_fc_first,
 * j_last + 1: ext4_fc_commit() writes its head tag there, never a block
 * of zeros), so if that block is still zero no round began.  An area
 * that held anything is read as before.
 */
static int fc_area_quiet(struct chain *c)
{
	const struct e2sr_jsb *jsb = &c->j->jsb;
	const struct e2sr_ring_facts *f = c->f;
	__u32 nfc = fc_area_blocks(c), pos;
	__u16 bits;

	/*
	 * Set aside past the log (journal_dev.c), the area is no position
	 * of the facts: they say whether it was all zero as a whole.
	 */
	if (jsb->fc_blocks && jsb->maxlen - nfc >= f->last) {
		pos = jsb->maxlen - nfc + 1;
		if (!f->fc_zero || pos >= jsb->maxlen ||
		    e2sr_journal_read(c->j, pos, 1, c->buf))
			return 0;
		return e2sr_all_zero(c->buf, jsb->blocksize);
	}
	for (pos = jsb->maxlen - nfc - 1; pos < jsb->maxlen; pos++) {
		if (pos < f->first || pos >= f->last)
			return 0;
		bits = f->bits[pos - f->first];
		if (!(bits & E2SR_RF_KNOWN) ||
		    (bits & (E2SR_RF_JBD2 | E2SR_RF_STALE)))
			return 0;
	}
	/* An area of one block (s_num_fc_blks 1) has no first block. */
	pos = jsb->maxlen - nfc + 1;
	if (pos >= jsb->maxlen || e2sr_journal_read(c->j, pos, 1, c->buf))
		return 0;
	return e2sr_all_zero(c->buf, jsb->blocksize);
}

/*
 * The positions of the log the kernel wrote since @f was kept: *@fresh
 * a bit per position from jsb.first (freed by the caller), *@count how
 * many.  @fast_commit: the file system has the feature, so the kernel
 * may have written the fast-commit area in place; *@fc_quiet then says
 * whether it cannot have (fc_area_quiet()), and the area is not fresh.
 * E2SR_RF_OK, or why the facts cannot be used.
 */
enum e2sr_rf_why e2sr_rf_fresh(struct e2sr_journal *j,
			       const struct e2sr_ring_facts *f,
			       int fast_commit, __u8 **fresh, __u32 *count,
			       int *fc_quiet)
{
	const struct e2sr_jsb *jsb = &j->jsb;
	struct chain c;
	__u32 starts[2];
	enum e2sr_rf_why why = E2SR_RF_OK;
	int i, k;

	*fresh = NULL;
	*count = 0;
	*fc_quiet = 0;
	if (f->ident != e2sr_rf_ident(jsb) || f->first != jsb->first ||
	    f->last != jsb->last || f->blocksize != jsb->blocksize)
		return E2SR_RF_OTHER;
	if (jsb->start)
		return E2SR_RF_RECOVERY;
	if (!f->has_newest)
		return E2SR_RF_NO_HEAD;
	memset(&c, 0, sizeof(c));
	c.j = j;
	c.f = f;
	c.loglen = jsb->last - jsb->first;
	if (ext2fs_get_memzero(c.loglen / 8 + 1, &c.fresh) ||
	    ext2fs_get_mem(jsb->blocksize, &c.buf)) {
		ext2fs_free_mem(&c.fresh);
		return E2SR_RF_READ;
	}
	/* No transaction since, or the newest kept is the superblock's. */
	if (jsb->sequence != f->sequence) {
		starts[0] = f->head;
		starts[1] = jsb->first;
		for (i = 0; i < 2 && why == E2SR_RF_OK; i++) {
			if (starts[i] < jsb->first || starts[i] >= jsb->last)
				continue;
			for (k = 0; k < i; k++)
				if (starts[k] == starts[i])
					break;
			if (k == i)
				why = follow(&c, starts[i]);
		}
		if (why == E2SR_RF_OK && !c.begun)
			why = E2SR_RF_CHAIN;
	}
	if (why == E2SR_RF_OK && fast_commit) {
		*fc_quiet = fc_area_quiet(&c);
		if (!*fc_quiet)
			mark_fc_area(&c);
	}
	ext2fs_free_mem(&c.buf);
	if (why != E2SR_RF_OK) {
		ext2fs_free_mem(&c.fresh);
		return why;
	}
	*fresh = c.fresh;
	*count = c.count;
	return E2SR_RF_OK;
}
