/*
 * journal_walk.h --- the physical walk of a jbd2 journal.
 *
 * e2sr_journal_walk() reads the whole log area of the filesystem's
 * internal journal, not only the live part from s_start, and says which
 * journal block holds a copy of which filesystem block, under which
 * transaction, and whether that copy is proven (tag checksum) and
 * committed.  Stale transactions left after a clean unmount are found
 * too: they are what a secure delete must also overwrite.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_JOURNAL_WALK_H
#define E2SR_JOURNAL_WALK_H

#include <ext2fs/ext2fs.h>
#include "jbd2.h"
#include "journal_io.h"
#include "ring_facts.h"

/* A journal data block attributed to a filesystem block. */
struct e2sr_jblock {
	__u32	jblock;		/* logical journal block */
	blk64_t	fs_block;	/* the block it is a copy of */
	__u32	sequence;	/* its descriptor's transaction */
	__u32	desc;		/* the descriptor's journal block */
	__u32	flags;		/* tag flags */
	__u8	verified;	/* tag csum matched, or none to check */
	__u8	trusted;	/* not verified, but its transaction's span */
				/* holds no other's block (journal_walk.c) */
	__u8	committed;	/* a commit of the same tid follows */
	__u8	zero;		/* all zero when walked */
};

/* A commit block seen in the log area. */
struct e2sr_jcommit_rec {
	__u32	jblock;
	__u32	sequence;
	__u64	commit_sec;
	__u32	commit_nsec;
};

/* A revoke block seen in the log area. */
struct e2sr_jrevoke_rec {
	__u32	jblock;
	__u32	sequence;
	__u32	records;	/* revoked block numbers it holds */
};

/* The arrays are in journal block order; counts over [first, last). */
struct e2sr_jwalk {
	int			has_journal;	/* one was walked */
	int			external;	/* on another device */
	int			jsb_csum_bad;	/* sb checksum wrong */
	struct e2sr_jsb		jsb;
	blk64_t			jsb_block;	/* jblock 0 */

	struct e2sr_jblock	*blocks;
	size_t			nblocks;
	struct e2sr_jcommit_rec	*commits;
	size_t			ncommits;
	struct e2sr_jrevoke_rec	*revokes;
	size_t			nrevokes;
	/*
	 * Every block of the log that holds bytes and is not jbd2's own
	 * (no magic): copies, attributed or not, where names can be.
	 */
	__u8			*stale;		/* a bit per log block */
	size_t			nstale;		/* from jsb.first; how many */

	__u32			descriptors;	/* that parsed */
	__u32			bad_blocks;	/* magic, no parse */
	__u32			attributed;	/* == nblocks */
	__u32			unattributed;	/* nothing accounts */
	__u32			read;		/* log blocks read */
};

/*
 * Called once for each copy the walk attributes (a valid copy of a block
 * inside the filesystem), with its bytes as the log holds them (escaped
 * or not), while the walk has them: an index takes what it wants of the
 * bytes here instead of reading the log again.  @copy->committed is not
 * known yet (a commit may come later in the ring).  An error stops the
 * walk and is its result.
 */
typedef errcode_t (*e2sr_jcopy_fn)(void *priv, const struct e2sr_jblock *copy,
				   const unsigned char *bytes);
/* Called once for each block the walk marks in its stale bit map. */
typedef errcode_t (*e2sr_jstale_fn)(void *priv, __u32 jblock,
				    const unsigned char *bytes);

/*
 * The same looks at a position taken from kept facts (ring_facts.h)
 * instead of its bytes: @f holds @copy's records, @bits the stale
 * block's.
 */
typedef errcode_t (*e2sr_jcopy_facts_fn)(void *priv,
					 const struct e2sr_jblock *copy,
					 const struct e2sr_ring_facts *f);
typedef errcode_t (*e2sr_jstale_facts_fn)(void *priv, __u32 jblock,
					  __u16 bits);

/*
 * What the caller of e2sr_journal_walk_visit looks at; any may be NULL.
 * With @facts, a position whose @fresh bit (from jsb.first) is clear and
 * whose facts are known is taken from them, not read (unless a tag now
 * claims it that did not then): the looks are then the *_facts ones.
 * @out gets the facts of every position as the walk found them.
 */
struct e2sr_jwalk_look {
	e2sr_jcopy_fn		copy;
	e2sr_jstale_fn		stale;
	e2sr_jcopy_facts_fn	copy_facts;
	e2sr_jstale_facts_fn	stale_facts;
	void			*priv;
	const struct e2sr_ring_facts *facts;
	const __u8		*fresh;
	struct e2sr_ring_facts	*out;
};

errcode_t e2sr_journal_walk(struct e2sr_journal *j, blk64_t fs_blocks,
			    struct e2sr_jwalk *out);
errcode_t e2sr_journal_walk_visit(struct e2sr_journal *j, blk64_t fs_blocks,
				  const struct e2sr_jwalk_look *look,
				  struct e2sr_jwalk *out);
void e2sr_journal_walk_free(struct e2sr_jwalk *w);
int e2sr_jwalk_stale(const struct e2sr_jwalk *w, __u32 jblock);

#endif /* E2SR_JOURNAL_WALK_H */
