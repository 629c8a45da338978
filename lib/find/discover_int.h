/*
 * discover_int.h --- what the files of discovery (lib/find/discover*.c)
 * share, and nobody else includes.
 *
 * Owns the state of one discovery run (struct discover: the versions
 * found in the journal, the inventory's index, the fast-commit ranges,
 * the lives, the commits and the windows) and the declarations of the
 * helpers one discover*.c file gives the others.  Discovery's face is
 * e2sr_discover_journal() (find.h), the driver's (discover.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_DISCOVER_INT_H
#define E2SR_DISCOVER_INT_H

#include "find_int.h"
#include "ea_inode.h"

/* One record version found in the journal. */
struct iversion {
	ext2_ino_t	ino;
	__u32		generation;
	__u32		sequence;
	__u32		jblock;
	__u32		map_crc;	/* of what makes the block map */
	__u16		offset;		/* of the record in the block */
	__u16		len;		/* fast commit: bytes of raw inode */
	__u8		secrm;		/* the version carries the flag */
	__u8		escaped;
	/* When the file last changed (ctime) and was written (mtime). */
	__u8		precise;	/* nanoseconds known */
	__u8		fc;		/* a fast commit's raw inode */
	__u8		fc_whole;	/* its commit's tail checked */
	__u32		fc_tid;		/* then, its transaction */
	__u32		ctime;
	__u32		ctime_nsec;
	__u32		mtime;
	__u32		mtime_nsec;
	/* When the file was made: one life, whatever its generation. */
	__u32		crtime;		/* 0: the record has none */
	__u32		crtime_nsec;
	/* What it maps, flags aside (shape_crc()); whether nothing. */
	__u32		shape;
	__u8		empty;
};

/* A secure-delete life: its inode number and when it was made. */
struct life {
	ext2_ino_t	ino;
	__u32		crtime;
	__u32		crtime_nsec;
	long		idx;		/* the inventory's file, or -1 */
};

/* Which copy of a block a historic map is read through. */
struct nearest {
	const struct e2sr_history	*h;
	__u32				seq;
};

/* A block range a fast commit logged for an identity. */
struct frange {
	ext2_ino_t	ino;
	__u32		generation;
	__u32		lblk;
	__u32		len;
	blk64_t		pblk;
	__u16		kind;		/* data or unwritten */
	__u32		tid;		/* of the newest commit logging it */
};

/* When a transaction's commit block says it was written. */
struct commit_time {
	__u32		sequence;
	__u32		nsec;
	__u64		sec;
};

struct file_ref {
	ext2_ino_t	ino;
	__u32		generation;
	size_t		idx;
};

struct discover {
	struct e2sr_ctx		*ctx;
	struct nearest		near;
	io_channel		hio;		/* the history view */
	struct iversion		*v;
	size_t			n;
	size_t			alloc;
	unsigned char		*block;
	struct ext2_inode_large	*inode;	/* inode_size bytes, at least large */
	size_t			isize;
	struct file_ref		*files;	/* the inventory as it came in, */
	size_t			nfiles;	/* by inode and generation */
	struct frange		*r;	/* fast-commit ranges, by identity */
	size_t			nr;
	size_t			ralloc;
	int			ea_inode;	/* the feature is on */
	/* Entries naming EA inodes; their owner is an inventory index. */
	struct e2sr_ea_refs	refs;
	unsigned char		*eablock;	/* one EA block */
	struct ext2_inode_large	*live;	/* a live record, isize bytes */
	/* The fast-commit area: its newest series, and where it starts. */
	__u32			fc_first;
	__u32			fc_head;	/* the series' transaction */
	int			fc_has_head;
	int			fc_used;	/* a tag in some block */
	size_t			fc_vstart;	/* versions of this commit */
	struct e2sr_unseen	unseen;
	struct commit_time	*ct;	/* commits, by transaction */
	size_t			nct;
	__u32			*wins;	/* transactions to account for */
	size_t			nwins;
	size_t			awins;
	struct life		*lives;	/* +s lives with a creation time */
	size_t			nlives;
	size_t			alives;
};

static inline int tid_le(__u32 a, __u32 b)
{
	return (__s32)(a - b) <= 0;
}

/* discover_rec.c: records from copies, the inventory's index */
errcode_t e2sr_disc_add_version(struct discover *d, const struct iversion *iv);
errcode_t e2sr_disc_read_copy(struct discover *d, __u32 jblock, int escaped,
			      int in_order);
int e2sr_disc_load_record(struct discover *d, ext2_ino_t ino, unsigned int off,
			  unsigned int len);
void e2sr_disc_record_crtime(const struct ext2_inode_large *in,
			     unsigned int isz, unsigned int len, __u32 *sec,
			     __u32 *nsec);
__u32 e2sr_disc_shape_crc(const struct ext2_inode_large *inode);
int e2sr_disc_shape_empty(const struct ext2_inode_large *inode);
void e2sr_disc_note_times(const struct discover *d, struct iversion *iv,
			  unsigned int len);
__u32 e2sr_disc_map_crc(const struct ext2_inode_large *inode);
errcode_t e2sr_disc_index_files(struct discover *d);
long e2sr_disc_find_file(const struct discover *d, ext2_ino_t ino, __u32 gen);
int e2sr_disc_follows_refs(const struct e2sr_file *file);
blk64_t e2sr_disc_itable_block(ext2_filsys fs, ext2_ino_t ino);
errcode_t e2sr_disc_ino_used_at(struct discover *d, ext2_ino_t ino, __u32 seq,
				 int *used);
int e2sr_disc_slot_record(struct discover *d, ext2_ino_t ino,
			  const struct e2sr_version *v);
int e2sr_disc_read_live(struct discover *d, ext2_ino_t ino);

/* discover_fc.c: the fast-commit area's versions and ranges */
errcode_t e2sr_disc_collect_fc_versions(struct discover *d);

/* discover_ident.c: the versions, the lives, one identity at a time */
errcode_t e2sr_disc_collect_versions(struct discover *d);
errcode_t e2sr_disc_collect_lives(struct discover *d);
errcode_t e2sr_disc_take_identity(struct discover *d, size_t first,
				  size_t end);

/* discover_map.c: the versions' maps, into the inventory's files */
int e2sr_disc_nearest_copy(void *priv, blk64_t blk,
			   struct e2sr_jreplay *copy);
errcode_t e2sr_disc_map_distinct(const struct e2sr_file *f, blk64_t *count);
errcode_t e2sr_disc_block_refs(struct discover *d, blk64_t blk, __u32 seq,
			       int historic, size_t idx);
errcode_t e2sr_disc_map_versions(struct discover *d, size_t first,
				 size_t end, size_t idx, int refs);
errcode_t e2sr_disc_map_ranges(struct discover *d, size_t idx,
			       ext2_ino_t ino, __u32 gen);

/* discover_ea.c: the EA inodes the files' entries name */
errcode_t e2sr_disc_live_refs(struct discover *d);
errcode_t e2sr_disc_take_ea_inodes(struct discover *d);

/* discover_owners.c: unseen windows, and what owners wrote */
errcode_t e2sr_disc_index_commits(struct discover *d);
errcode_t e2sr_disc_check_unseen(struct discover *d, size_t first,
				 size_t end, size_t idx);
errcode_t e2sr_disc_take_kept(struct discover *d);
errcode_t e2sr_disc_account_owners(struct discover *d);

#endif /* E2SR_DISCOVER_INT_H */
