/*
 * fc_replay_ctx.h --- what the files of the fast-commit replay share:
 * the replay's state and the steps both the tags and the driver take.
 *
 * fc_replay.c (the driver) and fc_replay_tags.c (each tag's replay)
 * include it; fc_replay_ctx.c defines its functions.  The rest of lib/
 * sees the replay through fc_replay.h alone.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FC_REPLAY_CTX_H
#define E2SR_FC_REPLAY_CTX_H

#include "util.h"
#include "fc_replay.h"

#define TL_SIZE			E2SR_FC_TL_SIZE
#define EXT_INIT_MAX		32768U		/* EXT_INIT_MAX_LEN */
#define EXT_MAGIC		0xF30AU
#define NAME_MAX_LEN		255
#define GOOD_OLD_INODE_SIZE	128
/* Offsets in struct ext2_inode */
#define I_MODE			0
#define I_LINKS			26
#define I_FLAGS			32
#define I_BLOCK			40
#define I_GENERATION		100

/* Tags the replay takes from a walk of the area. */
struct fc_tag {
	unsigned int		tag;
	unsigned int		len;
	const unsigned char	*val;
	__u32			jblock;
	unsigned int		index;		/* from the head, 0 first */
};

/* An add_range target: kept out of what libext2fs allocates. */
struct region {
	blk64_t	pblk;
	__u32	len;
};

/* The replay of one area: what each tag and the driver see. */
struct replay {
	ext2_filsys		fs;
	struct e2sr_journal	*j;
	const struct e2sr_fc_scan *scan;
	char			*detail;
	size_t			dlen;
	unsigned int		isize;		/* on-disk inode size */
	unsigned char		*ibuf;		/* one inode */
	unsigned char		*block;		/* one fast-commit block */
	const struct fc_tag	*cur;		/* for the detail */

	ext2fs_block_bitmap	meta;		/* metadata: never data */
	struct region		*regions;	/* add_range targets */
	size_t			nregions;
	size_t			aregions;
	ext2_ino_t		*modified;
	size_t			nmodified;
	size_t			amodified;
	unsigned char		*bgroups;	/* groups whose blocks changed */
	unsigned char		*igroups;	/* groups whose inodes changed */

	void			*old_priv;
	errcode_t		(*old_alloc)(ext2_filsys, blk64_t, blk64_t *);
	void			(*old_stats)(ext2_filsys, blk64_t, int);
	void			(*old_range)(ext2_filsys, blk64_t, blk_t,
					     int);
};

/* fc_replay_ctx.c */
errcode_t e2sr_fcr_refuse(struct replay *r, errcode_t err, const char *why,
			  ext2_ino_t ino);
void e2sr_fcr_touch_block(struct replay *r, blk64_t blk);
void e2sr_fcr_touch_inode(struct replay *r, ext2_ino_t ino);
int e2sr_fcr_in_fs(ext2_filsys fs, blk64_t blk, __u64 len);
void e2sr_fcr_mark_blocks(struct replay *r, blk64_t blk, __u64 len,
			  int used);
errcode_t e2sr_fcr_add_modified(struct replay *r, ext2_ino_t ino);
int e2sr_fcr_inode_live(struct replay *r, ext2_ino_t ino,
			struct ext2_inode *inode);
int e2sr_fcr_extent_mapped(const struct ext2_inode *inode);

/*
 * Walk every extent of @ino: @fn sees leaves (data) and the blocks of
 * the tree below the root.  A block out of the filesystem is refused.
 */
typedef void (*extent_fn)(struct replay *r, const struct ext2fs_extent *e,
			  int leaf, void *priv);

errcode_t e2sr_fcr_walk_extents(struct replay *r, ext2_ino_t ino,
				struct ext2_inode *inode, extent_fn fn,
				void *priv);
void e2sr_fcr_count_fn(struct replay *r, const struct ext2fs_extent *e,
		       int leaf, void *priv);

/* fc_replay_tags.c: one tag applied, as ext4_fc_replay() applies it. */
errcode_t e2sr_fcr_apply_tag(struct replay *r, const struct fc_tag *t);

#endif /* E2SR_FC_REPLAY_CTX_H */
