/*
 * fc_replay_tags.c --- each fast-commit tag replayed as the kernel
 * replays it, through libext2fs.
 *
 * Owns ext4_fc_replay()'s per-tag functions: the inode tag (the logged
 * inode over the block map on disk), add_range through an extent
 * handle, del_range through ext2fs_punch(), link, create and unlink
 * through ext2fs_link()/ext2fs_unlink(), and the eviction of an inode
 * an unlink leaves without links; e2sr_fcr_apply_tag() picks the
 * function by tag.  The state they share and the extent walk are
 * fc_replay_ctx.c's; which tags, in what order, the checks made before
 * the first change and the bitmaps and counts fixed after the last are
 * fc_replay.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>
#include <time.h>

#include "fc_replay_ctx.h"
#include "e2secrm.h"
#include "util.h"

static errcode_t read_raw(struct replay *r, ext2_ino_t ino)
{
	return ext2fs_read_inode_full(r->fs, ino,
				      (struct ext2_inode *)r->ibuf, r->isize);
}

static errcode_t write_raw(struct replay *r, ext2_ino_t ino)
{
	return ext2fs_write_inode_full(r->fs, ino,
				       (struct ext2_inode *)r->ibuf, r->isize);
}

/* ext4_ext_clear_bb(): what an inode maps below i_size is freed. */
static void clear_fn(struct replay *r, const struct ext2fs_extent *e,
		     int leaf, void *priv)
{
	blk64_t end = *(blk64_t *)priv;
	__u64 n;

	if (e->e_lblk >= end)
		return;
	if (!leaf) {
		e2sr_fcr_mark_blocks(r, e->e_pblk, 1, 0);
		return;
	}
	n = e->e_len;
	if (e->e_lblk + n > end)
		n = end - e->e_lblk;
	e2sr_fcr_mark_blocks(r, e->e_pblk, n, 0);
}

static errcode_t tag_inode(struct replay *r, const struct fc_tag *t)
{
	const unsigned char *raw = t->val + 4;
	unsigned int rlen = t->len - 4;
	ext2_ino_t ino = e2sr_get_le32(t->val);
	struct ext2_inode old;
	unsigned char *ib = r->ibuf;
	__u16 mode = e2sr_get_le16(raw + I_MODE);
	__u32 flags = e2sr_get_le32(raw + I_FLAGS);
	blk64_t end;
	errcode_t err;

	if (ino < EXT2_FIRST_INO(r->fs->super) ||
	    ino > r->fs->super->s_inodes_count)
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "reserved or out-of-range inode", ino);
	if (!LINUX_S_ISREG(mode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "not a regular file", ino);
	if (!(flags & EXT4_EXTENTS_FL) || (flags & EXT4_INLINE_DATA_FL))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "not extent-mapped", ino);
	/* ext4_iget() of an inode without links fails the replay. */
	if (!e2sr_get_le16(raw + I_LINKS))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_CORRUPT,
				       "logged without links", ino);
	if (e2sr_fcr_inode_live(r, ino, &old)) {
		if (!e2sr_fcr_extent_mapped(&old))
			return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
					       "replaces a file that is not "
					       "extent-mapped", ino);
		end = EXT2_I_SIZE(&old) / r->fs->blocksize;
		err = e2sr_fcr_walk_extents(r, ino, &old, clear_fn, &end);
		if (err)
			return err;
	}
	err = e2sr_fcr_add_modified(r, ino);
	if (!err)
		err = read_raw(r, ino);
	if (err)
		return err;
	/* The logged inode, but the block map is the one on disk. */
	memcpy(ib, raw, I_BLOCK);
	memcpy(ib + I_GENERATION, raw + I_GENERATION, rlen - I_GENERATION);
	if (e2sr_get_le16(ib + I_BLOCK) != EXT_MAGIC) {
		memset(ib + I_BLOCK, 0, 12);
		ib[I_BLOCK] = EXT_MAGIC & 0xff;
		ib[I_BLOCK + 1] = EXT_MAGIC >> 8;
		ib[I_BLOCK + 4] = (60 - 12) / 12;	/* eh_max */
	}
	err = write_raw(r, ino);
	if (err)
		return err;
	if (!ext2fs_test_inode_bitmap2(r->fs->inode_map, ino)) {
		ext2fs_mark_inode_bitmap2(r->fs->inode_map, ino);
		e2sr_fcr_touch_inode(r, ino);
	}
	return 0;
}

/* The extent of @lblk, if mapped: its block and whether unwritten. */
static errcode_t lookup_block(ext2_extent_handle_t h, blk64_t lblk,
			      blk64_t *pblk, int *uninit)
{
	struct ext2fs_extent e;
	errcode_t err;

	*pblk = 0;
	*uninit = 0;
	err = ext2fs_extent_goto2(h, 0, lblk);
	if (err == EXT2_ET_EXTENT_NOT_FOUND)
		return 0;
	if (err)
		return err;
	err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	if (err)
		return err;
	if (lblk >= e.e_lblk && lblk - e.e_lblk < e.e_len) {
		*pblk = e.e_pblk + (lblk - e.e_lblk);
		*uninit = !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT);
	}
	return 0;
}

/* ext4_fc_replay_add_range() */
static errcode_t tag_add_range(struct replay *r, const struct fc_tag *t)
{
	ext2_ino_t ino = e2sr_get_le32(t->val);
	__u32 lblk = e2sr_get_le32(t->val + 4);
	unsigned int elen = e2sr_get_le16(t->val + 8);
	blk64_t pblk = ((blk64_t)e2sr_get_le16(t->val + 10) << 32) |
		       e2sr_get_le32(t->val + 12);
	int unwritten = elen > EXT_INIT_MAX;
	__u32 len = unwritten ? elen - EXT_INIT_MAX : elen, i;
	struct ext2_inode inode;
	ext2_extent_handle_t h;
	blk64_t cur;
	int cur_uninit;
	errcode_t err;

	if (!e2sr_fcr_inode_live(r, ino, &inode))
		return 0;
	if (!e2sr_fcr_extent_mapped(&inode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "not extent-mapped", ino);
	err = e2sr_fcr_add_modified(r, ino);
	if (err || !len)
		return err;
	err = ext2fs_extent_open2(r->fs, ino, &inode, &h);
	if (err)
		return err;
	for (i = 0; i < len; i++) {
		err = lookup_block(h, (blk64_t)lblk + i, &cur, &cur_uninit);
		if (err)
			break;
		if (cur == pblk + i && cur_uninit == unwritten)
			continue;
		err = ext2fs_extent_set_bmap(h, (blk64_t)lblk + i, pblk + i,
					     unwritten ?
					     EXT2_EXTENT_SET_BMAP_UNINIT : 0);
		if (err)
			break;
		/* Remapped: the old block is free unless mapped again. */
		if (cur && cur != pblk + i)
			e2sr_fcr_mark_blocks(r, cur, 1, 0);
	}
	ext2fs_extent_free(h);
	return err;
}

struct del_priv {
	__u64	first;
	__u64	end;		/* exclusive */
};

static void del_fn(struct replay *r, const struct ext2fs_extent *e,
		   int leaf, void *priv)
{
	struct del_priv *d = priv;
	__u64 from, to;

	if (!leaf)
		return;
	from = e->e_lblk > d->first ? e->e_lblk : d->first;
	to = e->e_lblk + e->e_len < d->end ? e->e_lblk + e->e_len : d->end;
	if (from < to)
		e2sr_fcr_mark_blocks(r, e->e_pblk + (from - e->e_lblk),
				     to - from, 0);
}

/* ext4_fc_replay_del_range() */
static errcode_t tag_del_range(struct replay *r, const struct fc_tag *t)
{
	ext2_ino_t ino = e2sr_get_le32(t->val);
	struct del_priv d;
	struct ext2_inode inode;
	errcode_t err;

	d.first = e2sr_get_le32(t->val + 4);
	d.end = d.first + e2sr_get_le32(t->val + 8);
	if (!e2sr_fcr_inode_live(r, ino, &inode))
		return 0;
	if (!e2sr_fcr_extent_mapped(&inode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "not extent-mapped", ino);
	if (d.end == d.first || d.end > (1ULL << 32))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "range out of bounds", ino);
	err = e2sr_fcr_add_modified(r, ino);
	if (!err)
		err = e2sr_fcr_walk_extents(r, ino, &inode, del_fn, &d);
	if (!err)
		err = ext2fs_punch(r->fs, ino, &inode, NULL, d.first,
				   d.end - 1);
	return err;
}

/*
 * The last link gone: the kernel's iput() evicts the inode, which
 * truncates it and frees it (ext4_evict_inode, ext4_free_inode).
 */
static errcode_t free_inode(struct replay *r, ext2_ino_t ino,
			    struct ext2_inode *inode)
{
	blk64_t count = 0;
	errcode_t err;

	if (!e2sr_fcr_extent_mapped(inode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
			"unlinks a file that is not extent-mapped", ino);
	/* Every block in the filesystem before libext2fs frees it. */
	err = e2sr_fcr_walk_extents(r, ino, inode, e2sr_fcr_count_fn,
				    &count);
	if (!err)
		err = ext2fs_punch(r->fs, ino, inode, NULL, 0, ~0ULL);
	if (!err)
		err = ext2fs_read_inode(r->fs, ino, inode);
	if (err)
		return err;
	inode->i_size = 0;
	inode->i_size_high = 0;
	inode->i_dtime = r->fs->now ? r->fs->now : time(NULL);
	err = ext2fs_write_inode(r->fs, ino, inode);
	if (err)
		return err;
	if (ext2fs_test_inode_bitmap2(r->fs->inode_map, ino)) {
		ext2fs_unmark_inode_bitmap2(r->fs->inode_map, ino);
		e2sr_fcr_touch_inode(r, ino);
	}
	return 0;
}

/* A name libext2fs can take as a C string, and not "." or "..". */
static errcode_t dentry_name(struct replay *r, const struct fc_tag *t,
			     char *name)
{
	unsigned int n = t->len - 8;

	memcpy(name, t->val + 8, n);
	name[n] = 0;
	if (strlen(name) != n || memchr(name, '/', n) ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "name libext2fs cannot take",
				       e2sr_get_le32(t->val + 4));
	return 0;
}

static int dir_live(struct replay *r, ext2_ino_t dir, struct ext2_inode *d)
{
	return e2sr_fcr_inode_live(r, dir, d) && LINUX_S_ISDIR(d->i_mode);
}

/*
 * __ext4_link() for the replay: the name added unless present.  It
 * returns 1 when the name was added, 0 when it was there already.
 */
static errcode_t link_name(struct replay *r, ext2_ino_t dir, ext2_ino_t ino,
			   const char *name, const struct ext2_inode *inode,
			   int *added)
{
	ext2_ino_t found;
	errcode_t err;
	int tries;

	*added = 0;
	err = ext2fs_lookup(r->fs, dir, name, strlen(name), NULL, &found);
	if (!err) {
		if (found == ino)
			return 0;	/* -EEXIST: the kernel goes on */
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "name already names another inode", ino);
	}
	if (err != EXT2_ET_FILE_NOT_FOUND)
		return err;
	if (!LINUX_S_ISREG(inode->i_mode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "links a file that is not regular", ino);
	for (tries = 0; tries < 2; tries++) {
		err = ext2fs_link(r->fs, dir, name, ino, EXT2_FT_REG_FILE);
		if (err != EXT2_ET_DIR_NO_SPACE)
			break;
		err = ext2fs_expand_dir(r->fs, dir);
		if (err)
			return err;
	}
	if (!err)
		*added = 1;
	return err;
}

static errcode_t set_links(struct replay *r, ext2_ino_t ino, int delta,
			   int value)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(r->fs, ino, &inode);
	if (err)
		return err;
	if (value >= 0)
		inode.i_links_count = value;
	else if (delta > 0 && inode.i_links_count < 65000)
		inode.i_links_count++;
	else if (delta < 0 && inode.i_links_count)
		inode.i_links_count--;
	err = ext2fs_write_inode(r->fs, ino, &inode);
	if (!err && !inode.i_links_count)
		err = free_inode(r, ino, &inode);
	return err;
}

/* ext4_fc_replay_link() and the link half of _create() */
static errcode_t tag_link(struct replay *r, const struct fc_tag *t,
			  int create)
{
	ext2_ino_t dir = e2sr_get_le32(t->val), ino = e2sr_get_le32(t->val + 4);
	char name[NAME_MAX_LEN + 1];
	struct ext2_inode inode, d;
	errcode_t err;
	int added;

	err = dentry_name(r, t, name);
	if (err)
		return err;
	if (create) {
		/* ext4_mark_inode_used() and ext4_iget() must succeed. */
		if (ino < EXT2_FIRST_INO(r->fs->super) ||
		    ino > r->fs->super->s_inodes_count ||
		    !e2sr_fcr_inode_live(r, ino, &inode))
			return e2sr_fcr_refuse(r, E2SR_ERR_FC_CORRUPT,
					"created inode is not there", ino);
		if (LINUX_S_ISDIR(inode.i_mode))
			return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
					       "directory created", ino);
		if (!ext2fs_test_inode_bitmap2(r->fs->inode_map, ino)) {
			ext2fs_mark_inode_bitmap2(r->fs->inode_map, ino);
			e2sr_fcr_touch_inode(r, ino);
		}
	} else if (!e2sr_fcr_inode_live(r, ino, &inode)) {
		return 0;
	}
	added = 0;
	if (dir_live(r, dir, &d)) {
		err = link_name(r, dir, ino, name, &inode, &added);
		if (err)
			return err;
	} else if (e2sr_fcr_inode_live(r, dir, &d)) {
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "parent is not a directory", dir);
	}
	if (create)
		return set_links(r, ino, 0, 1);
	return added ? set_links(r, ino, 1, -1) : 0;
}

/* ext4_fc_replay_unlink(): __ext4_unlink() during a replay */
static errcode_t tag_unlink(struct replay *r, const struct fc_tag *t)
{
	ext2_ino_t dir = e2sr_get_le32(t->val), ino = e2sr_get_le32(t->val + 4);
	char name[NAME_MAX_LEN + 1];
	struct ext2_inode inode, d;
	ext2_ino_t found;
	errcode_t err;

	err = dentry_name(r, t, name);
	if (err)
		return err;
	if (!e2sr_fcr_inode_live(r, ino, &inode))
		return 0;
	if (!e2sr_fcr_inode_live(r, dir, &d))
		return 0;
	if (!LINUX_S_ISDIR(d.i_mode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "parent is not a directory", dir);
	if (LINUX_S_ISDIR(inode.i_mode))
		return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED,
				       "directory removed", ino);
	err = ext2fs_lookup(r->fs, dir, name, strlen(name), NULL, &found);
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return 0;		/* -ENOENT: nothing happens */
	if (err)
		return err;
	/* Another inode's name is left, yet the link count drops. */
	if (found == ino) {
		err = ext2fs_unlink(r->fs, dir, name, ino, 0);
		if (err)
			return err;
	}
	return set_links(r, ino, -1, -1);
}

errcode_t e2sr_fcr_apply_tag(struct replay *r, const struct fc_tag *t)
{
	switch (t->tag) {
	case E2SR_FC_TAG_LINK:
		return tag_link(r, t, 0);
	case E2SR_FC_TAG_UNLINK:
		return tag_unlink(r, t);
	case E2SR_FC_TAG_ADD_RANGE:
		return tag_add_range(r, t);
	case E2SR_FC_TAG_CREAT:
		return tag_link(r, t, 1);
	case E2SR_FC_TAG_DEL_RANGE:
		return tag_del_range(r, t);
	case E2SR_FC_TAG_INODE:
		return tag_inode(r, t);
	case E2SR_FC_TAG_PAD:
	case E2SR_FC_TAG_TAIL:
	case E2SR_FC_TAG_HEAD:
		return 0;
	}
	return e2sr_fcr_refuse(r, E2SR_ERR_FC_UNSUPPORTED, "unknown tag", 0);
}
