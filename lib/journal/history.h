/*
 * history.h --- every journal copy of every filesystem block, and what
 * each copy is.
 *
 * The history index is what the wipe engine asks the journal: which
 * versions of block B exist (transaction, journal block, commit time),
 * and for each, what the block was: an inode table block (which inodes),
 * a directory block (of which directory), an extent or indirect block
 * (of which inode), an EA block, a bitmap or descriptor block, or data
 * of which inode at which logical block.  Owners come from the
 * filesystem as it is now: a copy of a block that nobody owns any more is
 * "free" until a historic map (the wipe engine's) claims it.
 *
 * The index is built in the walk's one read of the log: besides the
 * copies, the records of every verified inode table copy (discovery's
 * first look) and which stale blocks read as directory blocks (where the
 * names plan looks for names) are taken while the walk holds the bytes.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_HISTORY_H
#define E2SR_HISTORY_H

#include <ext2fs/ext2fs.h>
#include "journal_io.h"
#include "journal_walk.h"

enum e2sr_jkind {
	E2SR_JK_UNKNOWN = 0,	/* in use; owner not looked for */
	E2SR_JK_FREE,		/* free now; no live owner */
	E2SR_JK_SUPER,		/* a superblock, primary or backup */
	E2SR_JK_GDT,		/* group descriptors, reserved gdt blocks */
	E2SR_JK_BBITMAP,	/* a block bitmap */
	E2SR_JK_IBITMAP,	/* an inode bitmap */
	E2SR_JK_ITABLE,		/* inode table: inodes ino .. ino+count-1 */
	E2SR_JK_DIR,		/* directory block of ino, at lblk */
	E2SR_JK_EXTENT,		/* extent index or leaf block of ino */
	E2SR_JK_IND,		/* indirect block of ino */
	E2SR_JK_EA,		/* extended attribute block of ino */
	E2SR_JK_DATA,		/* contents of ino at lblk */
};

/* One journal copy of a filesystem block. */
struct e2sr_version {
	blk64_t		fs_block;
	blk64_t		lblk;		/* DIR and DATA */
	__u64		commit_sec;	/* 0: no commit seen */
	__u32		commit_nsec;
	__u32		jblock;
	__u32		sequence;
	ext2_ino_t	ino;		/* owner, or first inode (ITABLE) */
	__u32		ino_count;	/* ITABLE */
	__u8		kind;		/* enum e2sr_jkind */
	__u8		verified;	/* tag checksum matched, or none */
	__u8		committed;	/* its transaction has a commit */
	__u8		escaped;
};

/*
 * A record of a verified inode table copy, as the walk read it: enough
 * to say whose record it is and whether it carries a flag that matters,
 * so that discovery reads again only the copies it loads records from.
 * What e2sr_history_rec() gives; the index keeps it packed (below).
 */
struct e2sr_irec {
	ext2_ino_t	ino;
	__u32		generation;
	__u32		jblock;
	__u32		sequence;
	__u16		offset;		/* of the record in the block */
	__u8		escaped;	/* the copy's first bytes are zero */
	__u8		flagged;	/* EXT2_SECRM_FL or EXT4_EA_INODE_FL */
	__u8		maps_free;	/* a run it names is free now */
};

/*
 * The records as kept: what a copy says once for all its records, and
 * per record only its generation and its slot.  A wrapped 1 GiB log of
 * inode table copies lists up to 4 million records: 6 bytes each here,
 * 20 as struct e2sr_irec.
 */
struct e2sr_icopy {
	__u32		jblock;
	__u32		sequence;
	ext2_ino_t	ino;		/* of the copy's first slot */
	__u32		first;		/* its first record */
	__u16		count;		/* its records */
	__u8		escaped;
};

#define E2SR_IREC_FLAGGED	0x8000	/* in rec_slot: a flag that matters */
#define E2SR_IREC_FREEMAP	0x4000	/* in rec_slot: maps a free block */
#define E2SR_IREC_SLOT		0x3fff

struct e2sr_history {
	struct e2sr_jwalk	walk;
	struct e2sr_version	*v;	/* by fs_block, then sequence */
	size_t			n;
	size_t			*by_jblock; /* indices of v in log order */
	/* The records: copies by jblock, each copy's by slot. */
	struct e2sr_icopy	*icopies;
	size_t			nicopies;
	__u32			*rec_gen;
	__u16			*rec_slot;	/* slot, E2SR_IREC_FLAGGED */
	size_t			nrecs;
	unsigned int		rec_size;	/* the inode size */
	/*
	 * A bit per log block (from jsb.first) of the walk's stale map
	 * that reads as a directory block: where names can be besides
	 * the inode table copies' inline directories.
	 */
	__u8			*dirlike;
	__u8			*inline_dirs;	/* the same: an inline dir */
	int			owners;	/* inode owners were resolved */
	int			built;	/* e2sr_history_build() succeeded */
	/*
	 * Released once the plan is made (e2sr_history_release): all is
	 * gone but n, the count of copies.
	 */
	int			released;
};

/* Flags for e2sr_history_build() */
#define E2SR_HISTORY_OWNERS	0x0001	/* find the inode of every copy */
/*
 * Only the walk and the facts it fills (@hf->out): the records the facts
 * hold are not listed and the copies not indexed, for a caller that
 * wants the facts alone (e2sr_ring_settle).  The history is then only
 * for e2sr_history_free().
 */
#define E2SR_HISTORY_FACTS_ONLY	0x0002

/*
 * The kept facts a walk may take positions from (@in, with @fresh the
 * positions the kernel wrote since, ring_fresh.c) and the facts it fills
 * (@out, initialised by the build); any may be NULL.
 */
struct e2sr_hist_facts {
	const struct e2sr_ring_facts	*in;
	const __u8			*fresh;
	struct e2sr_ring_facts		*out;
};

errcode_t e2sr_history_build(ext2_filsys fs, struct e2sr_journal *j,
			     int flags, struct e2sr_history *h);
errcode_t e2sr_history_build_facts(ext2_filsys fs, struct e2sr_journal *j,
				   int flags, const struct e2sr_hist_facts *hf,
				   struct e2sr_history *h);
const struct e2sr_version *e2sr_history_versions(const struct e2sr_history *h,
						 blk64_t blk, size_t *count);
void e2sr_history_free(struct e2sr_history *h);
void e2sr_history_release(struct e2sr_history *h);
void e2sr_history_rec(const struct e2sr_history *h, size_t i, size_t *cur,
		      struct e2sr_irec *rec);
int e2sr_history_dirlike(const struct e2sr_history *h, __u32 jblock);
int e2sr_history_inline_dirs(const struct e2sr_history *h, __u32 jblock);
int e2sr_inline_dir_record(const unsigned char *r);
int e2sr_dir_shaped(const unsigned char *b, unsigned int bs);
const char *e2sr_jkind_name(enum e2sr_jkind kind);

/* journal_view.c: what the views read the device with (NULL: unix_io) */
void e2sr_view_set_base(io_manager base);

#endif /* E2SR_HISTORY_H */
