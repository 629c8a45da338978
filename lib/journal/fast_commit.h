/*
 * fast_commit.h --- the ext4 fast-commit area at the end of the journal.
 *
 * Fast commits are tag-length-value records (struct ext4_fc_tl: __le16
 * tag, __le16 length, then the value), little-endian unlike the rest of
 * the journal, packed into the blocks after the log area.  They hold raw
 * inodes, directory entry names and block ranges: residues a secure
 * delete must find.  The walk reads every block of the area, stale or
 * not, and records each well-formed tag.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FAST_COMMIT_H
#define E2SR_FAST_COMMIT_H

#include <ext2fs/ext2fs.h>
#include "journal_io.h"

#define E2SR_FC_TAG_ADD_RANGE	0x0001
#define E2SR_FC_TAG_DEL_RANGE	0x0002
#define E2SR_FC_TAG_CREAT	0x0003
#define E2SR_FC_TAG_LINK	0x0004
#define E2SR_FC_TAG_UNLINK	0x0005
#define E2SR_FC_TAG_INODE	0x0006
#define E2SR_FC_TAG_PAD		0x0007
#define E2SR_FC_TAG_TAIL	0x0008
#define E2SR_FC_TAG_HEAD	0x0009

#define E2SR_FC_TL_SIZE		4

/* e2sr_fc_rec.flags */
#define E2SR_FC_UNWRITTEN	0x0001	/* add range: an unwritten extent */

/* One fast-commit tag, located in its block. */
struct e2sr_fc_rec {
	__u32		jblock;
	__u16		offset;		/* of the tag in the block */
	__u16		tag;
	__u16		len;		/* of the value */
	__u16		name_len;	/* dentry tags */
	__u16		name_off;	/* in the block */
	__u16		flags;		/* E2SR_FC_* */
	ext2_ino_t	ino;
	ext2_ino_t	parent;		/* dentry tags */
	__u32		tid;		/* head and tail */
	__u32		lblk;		/* ranges */
	__u32		count;
	blk64_t		pblk;		/* add range */
};

struct e2sr_fcwalk {
	struct e2sr_fc_rec	*recs;
	size_t			n;
	size_t			alloc;
	__u32			first;		/* the area: [first, end) */
	__u32			end;
	__u32			blocks_used;	/* with at least one tag */
};

typedef errcode_t (*e2sr_fc_fn)(void *priv, const struct e2sr_fc_rec *rec);

errcode_t e2sr_fc_parse_block(const void *block, unsigned int blocksize,
			      __u32 jblock, e2sr_fc_fn cb, void *priv);
errcode_t e2sr_fc_walk(struct e2sr_journal *j, struct e2sr_fcwalk *out);
void e2sr_fc_walk_free(struct e2sr_fcwalk *w);
const char *e2sr_fc_tag_name(unsigned int tag);

#endif /* E2SR_FAST_COMMIT_H */
