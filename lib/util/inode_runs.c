/*
 * inode_runs.c --- the runs of blocks a record names in itself.
 *
 * Discovery asks it of every committed journal copy of a record, for the
 * blocks each owner wrote and when (discover.c); the journal walk asks
 * it, while it holds the copy, whether any of them is free now, so that
 * discovery reads again only the copies where that can matter
 * (history.c).  One reading of the record serves both.
 *
 * Owns which runs: the extents in i_block (not unwritten ones: their
 * blocks hold anyone's old bytes), or the index blocks of a deeper tree,
 * or the direct and indirect blocks of an indirect map, and the EA
 * block; only of files, directories and slow symlinks in use (other
 * records keep other things in i_block; a deleted record, which debugfs'
 * kill_file leaves with its map, owns none); only runs inside the
 * filesystem, block 0 never (what a record without an EA block, or an
 * unused indirect pointer, says).  Nothing is read: a deeper tree's
 * leaves and an indirect block's pointers are the callers' to follow.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include "e2secrm.h"
#include "inode_runs.h"

struct runs_walk {
	ext2_filsys		fs;
	blk64_t			first;
	blk64_t			end;
	int			(*fn)(void *priv, blk64_t pblk, __u32 len);
	void			*priv;
};

static int one_run(struct runs_walk *w, blk64_t pblk, __u32 len)
{
	if (!pblk || !len || pblk < w->first || pblk >= w->end ||
	    len > w->end - pblk)
		return 0;
	return w->fn(w->priv, pblk, len);
}

/*
 * Call @fn(@priv, block, length) for each run @in names in itself, until
 * it returns E2SR_RUNS_ABORT.  Returns whether it did.
 */
int e2sr_inode_runs(ext2_filsys fs, const struct ext2_inode_large *in,
		    int (*fn)(void *priv, blk64_t pblk, __u32 len),
		    void *priv)
{
	const struct ext3_extent_header *eh = (const void *)in->i_block;
	const struct ext3_extent *ex = (const void *)(eh + 1);
	const struct ext3_extent_idx *ix = (const void *)(eh + 1);
	struct runs_walk w;
	__u16 i, n;
	__u32 len;
	int ret = 0;

	w.fs = fs;
	w.first = fs->super->s_first_data_block;
	w.end = ext2fs_blocks_count(fs->super);
	w.fn = fn;
	w.priv = priv;
	if (!LINUX_S_ISREG(in->i_mode) && !LINUX_S_ISDIR(in->i_mode) &&
	    !LINUX_S_ISLNK(in->i_mode))
		return 0;
	if ((in->i_flags & EXT4_INLINE_DATA_FL) || !in->i_blocks ||
	    !in->i_links_count || in->i_dtime)
		return 0;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC)
			return 0;
		n = ext2fs_le16_to_cpu(eh->eh_entries);
		if (n > 4)
			return 0;
		for (i = 0; i < n && !ret; i++) {
			if (ext2fs_le16_to_cpu(eh->eh_depth)) {
				ret = one_run(&w, ext2fs_le32_to_cpu(
						ix[i].ei_leaf) |
					((blk64_t)ext2fs_le16_to_cpu(
						ix[i].ei_leaf_hi) << 32), 1);
				continue;
			}
			len = ext2fs_le16_to_cpu(ex[i].ee_len);
			if (len > EXT_INIT_MAX_LEN)
				continue;	/* unwritten */
			ret = one_run(&w, ext2fs_le32_to_cpu(ex[i].ee_start) |
				      ((blk64_t)ext2fs_le16_to_cpu(
					      ex[i].ee_start_hi) << 32), len);
		}
	} else if (!LINUX_S_ISLNK(in->i_mode) ||
		   EXT2_I_SIZE(in) >= sizeof(in->i_block)) {
		for (i = 0; i < EXT2_N_BLOCKS && !ret; i++)
			ret = one_run(&w, ext2fs_le32_to_cpu(in->i_block[i]),
				      1);
	}
	if (!ret)
		ret = one_run(&w, ext2fs_file_acl_block(fs,
					(const struct ext2_inode *)in), 1);
	return ret == E2SR_RUNS_ABORT;
}

static int free_run(void *priv, blk64_t pblk, __u32 len)
{
	ext2_filsys fs = priv;
	blk64_t out;

	if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, pblk,
						 pblk + len - 1, &out))
		return 0;
	return E2SR_RUNS_ABORT;
}

/*
 * Whether a run @in names is free in the filesystem's block bitmap now
 * (any of it): only such runs can say anything of a free block.  Without
 * a bitmap, always.
 */
int e2sr_inode_runs_free(ext2_filsys fs, const struct ext2_inode_large *in)
{
	if (!fs->block_map)
		return 1;
	return e2sr_inode_runs(fs, in, free_run, fs);
}
