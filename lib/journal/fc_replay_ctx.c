/*
 * fc_replay_ctx.c --- the steps of the fast-commit replay that both the
 * tags and the driver take.
 *
 * Owns the refusal's detail (which tag, which inode, why), the marks in
 * the block bitmap and the groups they touch, the list of inodes the
 * replay modified, what counts as a live inode and an extent-mapped one,
 * and the walk of an inode's extents.  The tags themselves are
 * fc_replay_tags.c's, their order and the counters fixed at the end
 * fc_replay.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>

#include "fc_replay_ctx.h"

static const char *tag_name(unsigned int tag)
{
	return e2sr_fc_tag_name(tag);
}

errcode_t e2sr_fcr_refuse(struct replay *r, errcode_t err, const char *why,
			  ext2_ino_t ino)
{
	if (r->cur)
		snprintf(r->detail, r->dlen,
			 "fast-commit tag %u (%s) in journal block %u, inode "
			 "%u: %s", r->cur->index, tag_name(r->cur->tag),
			 r->cur->jblock, ino, why);
	else
		snprintf(r->detail, r->dlen, "inode %u: %s", ino, why);
	return err;
}

void e2sr_fcr_touch_block(struct replay *r, blk64_t blk)
{
	ext2_filsys fs = r->fs;

	if (blk >= fs->super->s_first_data_block &&
	    blk < ext2fs_blocks_count(fs->super))
		r->bgroups[ext2fs_group_of_blk2(fs, blk)] = 1;
}

void e2sr_fcr_touch_inode(struct replay *r, ext2_ino_t ino)
{
	if (ino >= 1 && ino <= r->fs->super->s_inodes_count)
		r->igroups[ext2fs_group_of_ino(r->fs, ino)] = 1;
}

int e2sr_fcr_in_fs(ext2_filsys fs, blk64_t blk, __u64 len)
{
	blk64_t n = ext2fs_blocks_count(fs->super);

	return blk >= fs->super->s_first_data_block && blk < n &&
	       len <= n - blk;
}

/* Block bitmap changes, range-checked so that libext2fs never warns. */
void e2sr_fcr_mark_blocks(struct replay *r, blk64_t blk, __u64 len,
			  int used)
{
	__u64 i;

	if (!len || !e2sr_fcr_in_fs(r->fs, blk, len))
		return;
	if (used)
		ext2fs_mark_block_bitmap_range2(r->fs->block_map, blk, len);
	else
		ext2fs_unmark_block_bitmap_range2(r->fs->block_map, blk, len);
	for (i = 0; i < len; i += EXT2_BLOCKS_PER_GROUP(r->fs->super))
		e2sr_fcr_touch_block(r, blk + i);
	e2sr_fcr_touch_block(r, blk + len - 1);
}

errcode_t e2sr_fcr_add_modified(struct replay *r, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < r->nmodified; i++)
		if (r->modified[i] == ino)
			return 0;
	if (e2sr_array_room(&r->modified, &r->amodified, r->nmodified + 1,
			    sizeof(*r->modified)))
		return EXT2_ET_NO_MEMORY;
	r->modified[r->nmodified++] = ino;
	return 0;
}

/*
 * What ext4_iget(EXT4_IGET_NORMAL) accepts, as far as the replay cares:
 * a valid number and an inode with links and a mode.
 */
int e2sr_fcr_inode_live(struct replay *r, ext2_ino_t ino,
			struct ext2_inode *inode)
{
	if (ino < 1 || ino > r->fs->super->s_inodes_count)
		return 0;
	if (ext2fs_read_inode(r->fs, ino, inode))
		return 0;
	return inode->i_links_count && inode->i_mode;
}

int e2sr_fcr_extent_mapped(const struct ext2_inode *inode)
{
	return (inode->i_flags & EXT4_EXTENTS_FL) &&
	       !(inode->i_flags & EXT4_INLINE_DATA_FL);
}

errcode_t e2sr_fcr_walk_extents(struct replay *r, ext2_ino_t ino,
				struct ext2_inode *inode, extent_fn fn,
				void *priv)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	unsigned long steps = 0;
	errcode_t err;
	int leaf;

	err = ext2fs_extent_open2(r->fs, ino, inode, &h);
	if (err)
		return err;
	err = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e);
	while (!err) {
		if (++steps > (1UL << 30)) {
			err = EXT2_ET_EXTENT_HEADER_BAD;
			break;
		}
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)) {
			leaf = !!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF);
			if (!e2sr_fcr_in_fs(r->fs, e.e_pblk,
					    leaf ? e.e_len : 1)) {
				err = e2sr_fcr_refuse(r,
					E2SR_ERR_FC_UNSUPPORTED,
					"block map leaves the filesystem",
					ino);
				break;
			}
			fn(r, &e, leaf, priv);
		}
		err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT, &e);
	}
	ext2fs_extent_free(h);
	if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_NO_CURRENT_NODE)
		err = 0;
	return err;
}

/* ext4_ext_replay_set_iblocks(), with the EA block e2fsck counts. */
void e2sr_fcr_count_fn(struct replay *r EXT2FS_ATTR((unused)),
		       const struct ext2fs_extent *e, int leaf, void *priv)
{
	*(blk64_t *)priv += leaf ? e->e_len : 1;
}
