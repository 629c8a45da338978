/*
 * journal_claims.c --- a log position some descriptor claims: what it
 * holds, and the caller's look at it.
 *
 * Owns resolving a claim, from the position's bytes (is it that data,
 * does its tag's checksum hold, is it zero) or from the facts a run kept
 * of it (ring_facts.h) when they hold for the claim it is under now, and
 * showing the copy to the walk's look, with its bytes or its kept
 * records.  The scan that makes the claims is journal_walk.c's; which
 * spans are trusted is journal_spans.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "jbd2.h"
#include "journal_walk_int.h"

static int starts_with_magic(const unsigned char *b)
{
	return b[0] == 0xC0 && b[1] == 0x3B && b[2] == 0x39 && b[3] == 0x98;
}

/* Whether the caller's look says the kernel wrote @pos since its facts. */
int e2sr_jw_fresh(const struct walk *w, __u32 pos)
{
	__u32 i = pos - w->jsb->first;

	return w->look && w->look->fresh &&
	       (w->look->fresh[i >> 3] & (1 << (i & 7)));
}

/* A claim as the caller sees the copy (as the result lists it). */
void e2sr_jw_copy_of(const struct walk *w, const struct claim *c,
		     struct e2sr_jblock *copy)
{
	memset(copy, 0, sizeof(*copy));
	copy->jblock = c->pos;
	copy->fs_block = c->fs_block;
	copy->sequence = c->sequence;
	copy->desc = w->descs[c->desc].pos;
	copy->flags = c->flags;
	copy->verified = c->verified;
	copy->trusted = c->trusted;
	copy->zero = c->zero;
}

/* The caller's look at a copy, with its bytes. */
void e2sr_jw_visit_copy(struct walk *w, const struct claim *c,
		       const unsigned char *b)
{
	struct e2sr_jblock copy;

	e2sr_jw_copy_of(w, c, &copy);
	w->fn_err = w->look->copy(w->look->priv, &copy, b);
}

void e2sr_jw_resolve(struct walk *w, struct claim *c,
			  const unsigned char *b)
{
	const struct e2sr_jsb *jsb = w->jsb;

	c->resolved = 1;
	/* A stored data block never begins with the magic: it is escaped. */
	if (starts_with_magic(b)) {
		c->valid = 0;
		return;
	}
	c->valid = 1;
	c->zero = e2sr_all_zero(b, jsb->blocksize);
	c->verified = (__u8)e2sr_jtag_verifies(jsb, c->sequence, c->flags,
					       c->csum, b, w->scratch);
	if (w->look && w->look->out)
		e2sr_rf_set_key(w->look->out, c->pos, c->fs_block,
				c->sequence, c->csum, c->flags, c->verified);
	/* One that does not match is shown once its span is judged. */
	if (w->look && w->look->copy && c->in_range && !w->fn_err &&
	    c->verified)
		e2sr_jw_visit_copy(w, c, b);
}

/*
 * The kept facts of @pos, when they give what its bytes would: known,
 * not written since, and a copy resolved under the tag that claims it
 * now (@c, or NULL), with the records a look at it takes (@trusted: the
 * look of a copy trusted, not verified).
 */
int e2sr_jw_facts_hold(const struct walk *w, __u32 pos,
		      const struct claim *c, int trusted)
{
	const struct e2sr_ring_facts *f = w->look ? w->look->facts : NULL;
	__u16 bits;

	if (!f || e2sr_jw_fresh(w, pos) || !e2sr_rf_known(f, pos))
		return 0;
	bits = f->bits[pos - f->first];
	if (!c || (bits & E2SR_RF_JBD2))
		return 1;
	if (!e2sr_rf_key_is(f, pos, c->fs_block, c->sequence, c->csum,
			    c->flags))
		return 0;
	if (!w->look->copy || !c->in_range || (bits & E2SR_RF_NORECS))
		return 1;
	if (trusted)
		return !!(bits & E2SR_RF_RECS_TRUSTED);
	return !(bits & E2SR_RF_VERIFIED) || (bits & E2SR_RF_RECS);
}

/* The caller's look at a copy whose records the facts hold. */
void e2sr_jw_visit_facts(struct walk *w, const struct claim *c)
{
	struct e2sr_jblock copy;

	if (!w->look->copy_facts)
		return;
	e2sr_jw_copy_of(w, c, &copy);
	w->fn_err = w->look->copy_facts(w->look->priv, &copy,
					w->look->facts);
}

/* e2sr_jw_resolve() from the facts (e2sr_jw_facts_hold() said they hold). */
void e2sr_jw_resolve_facts(struct walk *w, struct claim *c)
{
	const struct e2sr_ring_facts *f = w->look->facts;
	__u16 bits = f->bits[c->pos - f->first];

	c->resolved = 1;
	if (bits & E2SR_RF_JBD2) {
		c->valid = 0;
		return;
	}
	c->valid = 1;
	c->zero = !(bits & E2SR_RF_STALE);
	c->verified = !!(bits & E2SR_RF_VERIFIED);
	if (w->look->copy && c->in_range && !w->fn_err && c->verified)
		e2sr_jw_visit_facts(w, c);
}

