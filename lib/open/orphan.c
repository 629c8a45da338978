/*
 * orphan.c --- releasing orphan inodes the way e2fsck -p and the kernel
 * do, in memory.
 *
 * Owns the orphan list (s_last_orphan, chained through i_dtime) and the
 * orphan file's entries: reading them with every number checked (a
 * chain that loops, leaves the inode range, names a free or unused
 * record, or a file entry with a bad block is refused before anything is
 * decided); and releasing them on a handle opened over an in-memory
 * overlay, as e2fsck's release_orphan_inodes() does: a file with links
 * left is truncated to i_size (ext2fs_punch, and the tail of its last
 * block zeroed), a file without is freed, blocks and record, with dtime
 * set.  orphan_log.c makes the release one journal transaction.
 *
 * A freed file keeps its block map in its record, as e2fsck leaves it,
 * and its EA block pointer, which e2fsck clears: the blocks become free
 * blocks whose map the plan reads like any deleted +s file's, and the
 * record's scrub, which comes after the wipe, takes the map away.  Until
 * then a cut run leaves a deleted record whose map a re-run finds again.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "open_int.h"

/* Per file: what the release of one orphan does with its blocks. */
struct release_walk {
	ext2_ino_t	ino;
	blk64_t		freed;
	errcode_t	err;
	char		*detail;
	size_t		len;
};

static errcode_t add_orphan(struct e2sr_orphans *o, size_t *alloc,
			    const struct e2sr_orphan *e)
{
	errcode_t err;

	if (o->n == *alloc) {
		size_t want = *alloc ? *alloc * 2 : 16;

		err = ext2fs_resize_mem(*alloc * sizeof(*o->v),
					want * sizeof(*o->v), &o->v);
		if (err)
			return err;
		*alloc = want;
	}
	o->v[o->n++] = *e;
	return 0;
}

/*
 * One orphan's record, checked: a number in range, seen once, a record
 * in use in the bitmap with a mode.  @seen marks the numbers met.
 */
static errcode_t take_orphan(ext2_filsys fs, ext2fs_inode_bitmap seen,
			     ext2_ino_t ino, struct ext2_inode_large *inode,
			     char *detail, size_t len)
{
	errcode_t err;

	if (ino < EXT2_FIRST_INODE(fs->super) ||
	    ino > fs->super->s_inodes_count) {
		snprintf(detail, len, "orphan inode %u is out of range", ino);
		return E2SR_ERR_ORPHANS;
	}
	if (ext2fs_test_inode_bitmap2(seen, ino)) {
		snprintf(detail, len, "orphan inode %u is listed twice", ino);
		return E2SR_ERR_ORPHANS;
	}
	ext2fs_mark_inode_bitmap2(seen, ino);
	if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino)) {
		snprintf(detail, len, "orphan inode %u is marked free", ino);
		return E2SR_ERR_ORPHANS;
	}
	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(inode),
				     sizeof(*inode));
	if (err)
		return err;
	if (!inode->i_mode) {
		snprintf(detail, len, "orphan inode %u has no mode", ino);
		return E2SR_ERR_ORPHANS;
	}
	return 0;
}

static void describe(struct e2sr_orphan *e, ext2_ino_t ino,
		     const struct ext2_inode_large *inode)
{
	memset(e, 0, sizeof(*e));
	e->ino = ino;
	e->links = inode->i_links_count;
	e->secrm = !!(inode->i_flags & EXT2_SECRM_FL);
	e->size = EXT2_I_SIZE(inode);
}

/* The orphan file's entries: e2fsck's process_orphan_file() checks. */
static errcode_t find_in_file(ext2_filsys fs, struct e2sr_orphans *o,
			      size_t *alloc, ext2fs_inode_bitmap seen,
			      char *detail, size_t len)
{
	ext2_ino_t fino = fs->super->s_orphan_file_inum;
	struct ext2_inode_large inode, orphan;
	struct ext4_orphan_block_tail *tail;
	struct e2sr_orphan e;
	unsigned char *buf = NULL;
	blk64_t lblk, pblk, nblocks;
	__u32 *entry;
	int i, per;
	errcode_t err;

	if (fino < 1 || fino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	err = ext2fs_read_inode_full(fs, fino, EXT2_INODE(&inode),
				     sizeof(inode));
	if (err)
		return err;
	if (EXT2_I_SIZE(&inode) % fs->blocksize) {
		snprintf(detail, len, "orphan file size is not whole blocks");
		return E2SR_ERR_ORPHANS;
	}
	nblocks = EXT2_I_SIZE(&inode) / fs->blocksize;
	if (nblocks > ext2fs_blocks_count(fs->super)) {
		snprintf(detail, len, "orphan file is larger than the disk");
		return E2SR_ERR_ORPHANS;
	}
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	per = ext2fs_inodes_per_orphan_block(fs);
	for (lblk = 0; lblk < nblocks; lblk++) {
		pblk = 0;
		err = ext2fs_bmap2(fs, fino, EXT2_INODE(&inode), NULL, 0, lblk,
				   NULL, &pblk);
		if (err)
			goto out;
		if (!pblk || pblk < fs->super->s_first_data_block ||
		    pblk >= ext2fs_blocks_count(fs->super)) {
			snprintf(detail, len, "orphan file block %llu is %s",
				 (unsigned long long)lblk,
				 pblk ? "out of range" : "a hole");
			err = E2SR_ERR_ORPHANS;
			goto out;
		}
		err = io_channel_read_blk64(fs->io, pblk, 1, buf);
		if (err)
			goto out;
		tail = ext2fs_orphan_block_tail(fs, (char *)buf);
		if (ext2fs_le32_to_cpu(tail->ob_magic) !=
		    EXT4_ORPHAN_BLOCK_MAGIC ||
		    !ext2fs_orphan_file_block_csum_verify(fs, fino, pblk,
							  (char *)buf)) {
			snprintf(detail, len,
				 "orphan file block %llu fails its %s",
				 (unsigned long long)lblk,
				 ext2fs_le32_to_cpu(tail->ob_magic) !=
				 EXT4_ORPHAN_BLOCK_MAGIC ?
				 "magic" : "checksum");
			err = E2SR_ERR_ORPHANS;
			goto out;
		}
		entry = (__u32 *)buf;
		for (i = 0; i < per; i++) {
			ext2_ino_t ino = ext2fs_le32_to_cpu(entry[i]);

			if (!ino)
				continue;
			err = take_orphan(fs, seen, ino, &orphan, detail,
					  len);
			if (err)
				goto out;
			describe(&e, ino, &orphan);
			e.in_file = 1;
			e.file_blk = pblk;
			err = add_orphan(o, alloc, &e);
			if (err)
				goto out;
		}
	}
out:
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * Every orphan of @fs (bitmaps read), list first, then the orphan file,
 * as e2fsck takes them; any inconsistency refuses the lot.
 */
errcode_t e2sr_orphans_find(ext2_filsys fs, struct e2sr_orphans *o,
			    char *detail, size_t len)
{
	struct ext2_super_block *sb = fs->super;
	struct ext2_inode_large inode;
	ext2fs_inode_bitmap seen = NULL;
	struct e2sr_orphan e;
	ext2_ino_t ino, steps;
	size_t alloc = 0;
	errcode_t err;

	o->n = 0;
	err = ext2fs_allocate_inode_bitmap(fs, "orphans seen", &seen);
	if (err)
		return err;
	/* Each step marks a new number in @seen: the walk is bounded. */
	for (ino = sb->s_last_orphan, steps = 0; ino; steps++) {
		if (steps > sb->s_inodes_count) {
			err = E2SR_ERR_ORPHANS;
			break;
		}
		err = take_orphan(fs, seen, ino, &inode, detail, len);
		if (err)
			break;
		describe(&e, ino, &inode);
		err = add_orphan(o, &alloc, &e);
		if (err)
			break;
		ino = inode.i_dtime;
	}
	if (!err && ext2fs_has_feature_orphan_present(sb)) {
		if (!ext2fs_has_feature_orphan_file(sb)) {
			snprintf(detail, len,
				 "orphan_present without an orphan file");
			err = E2SR_ERR_ORPHANS;
		} else {
			err = find_in_file(fs, o, &alloc, seen, detail, len);
		}
	}
	ext2fs_free_inode_bitmap(seen);
	return err;
}

static int release_block(ext2_filsys fs, blk64_t *blocknr,
			 e2_blkcnt_t blockcnt EXT2FS_ATTR((unused)),
			 blk64_t ref_blk EXT2FS_ATTR((unused)),
			 int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct release_walk *w = priv;
	blk64_t blk = *blocknr;

	if (!blk)
		return 0;
	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super) ||
	    !ext2fs_test_block_bitmap2(fs->block_map, blk)) {
		snprintf(w->detail, w->len,
			 "block %llu of orphan inode %u is %s",
			 (unsigned long long)blk, w->ino,
			 blk >= ext2fs_blocks_count(fs->super) ||
			 blk < fs->super->s_first_data_block ?
			 "out of range" : "already free");
		w->err = E2SR_ERR_ORPHANS;
		return BLOCK_ABORT;
	}
	ext2fs_block_alloc_stats2(fs, blk, -1);
	w->freed++;
	return 0;
}

/* Zero what lies past i_size in the last block, as truncate does. */
static errcode_t zero_tail(ext2_filsys fs, ext2_ino_t ino,
			   struct ext2_inode_large *inode)
{
	__u64 size = EXT2_I_SIZE(inode);
	unsigned int off = size % fs->blocksize;
	unsigned char *buf = NULL;
	blk64_t pblk = 0;
	int flags = 0;
	errcode_t err;

	if (!off)
		return 0;
	err = ext2fs_bmap2(fs, ino, EXT2_INODE(inode), NULL, 0,
			   size / fs->blocksize, &flags, &pblk);
	if (err || !pblk || (flags & BMAP_RET_UNINIT))
		return err;
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	err = io_channel_read_blk64(fs->io, pblk, 1, buf);
	if (!err) {
		memset(buf + off, 0, fs->blocksize - off);
		err = io_channel_write_blk64(fs->io, pblk, 1, buf);
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * Whether @ino has an EA block, or in-inode xattrs after its extra
 * fields (read whole: they lie past struct ext2_inode_large).
 */
static errcode_t has_xattrs(ext2_filsys fs, ext2_ino_t ino,
			    struct ext2_inode_large *inode, int *ret)
{
	unsigned int isize = EXT2_INODE_SIZE(fs->super);
	unsigned int extra = EXT2_GOOD_OLD_INODE_SIZE + inode->i_extra_isize;
	unsigned char *buf = NULL;
	errcode_t err;

	*ret = !!ext2fs_file_acl_block(fs, EXT2_INODE(inode));
	if (*ret || isize <= EXT2_GOOD_OLD_INODE_SIZE || extra + 4 > isize)
		return 0;
	err = ext2fs_get_mem(isize, &buf);
	if (err)
		return err;
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)buf,
				     isize);
	if (!err)
		*ret = ext2fs_le32_to_cpu(*(__u32 *)(buf + extra)) ==
		       EXT2_EXT_ATTR_MAGIC;
	ext2fs_free_mem(&buf);
	return err;
}

static errcode_t release_one(ext2_filsys fs, struct e2sr_orphan *e,
			     time_t now, char *detail, size_t len)
{
	struct ext2_inode_large inode;
	struct release_walk w;
	blk64_t before, blk;
	__u32 count;
	int xattrs;
	errcode_t err;

	memset(&w, 0, sizeof(w));
	w.ino = e->ino;
	w.detail = detail;
	w.len = len;
	err = ext2fs_read_inode_full(fs, e->ino, EXT2_INODE(&inode),
				     sizeof(inode));
	if (err)
		return err;
	if (e->links) {
		/* Truncated: the blocks past i_size go, the file stays. */
		before = ext2fs_get_stat_i_blocks(fs, EXT2_INODE(&inode));
		if (ext2fs_inode_has_valid_blocks2(fs, EXT2_INODE(&inode))) {
			err = zero_tail(fs, e->ino, &inode);
			if (!err)
				err = ext2fs_punch(fs, e->ino,
						   EXT2_INODE(&inode), NULL,
						   (EXT2_I_SIZE(&inode) +
						    fs->blocksize - 1) /
						   fs->blocksize, ~0ULL);
			if (err)
				return err;
		}
		e->freed = (before - ext2fs_get_stat_i_blocks(fs,
				EXT2_INODE(&inode))) /
			   (fs->blocksize / 512);
		inode.i_dtime = 0;
		return ext2fs_write_inode_full(fs, e->ino, EXT2_INODE(&inode),
					       sizeof(inode));
	}
	/*
	 * The kernel drops the references a deleted file's xattrs hold on
	 * their value inodes; e2fsck's release does not, and neither does
	 * this one: refused where there may be any.
	 */
	if (ext2fs_has_feature_ea_inode(fs->super)) {
		err = has_xattrs(fs, e->ino, &inode, &xattrs);
		if (err)
			return err;
		if (xattrs) {
			snprintf(detail, len, "orphan inode %u has xattrs, "
				 "whose value inodes would need their counts "
				 "updated", e->ino);
			return E2SR_ERR_ORPHANS;
		}
	}
	/*
	 * Deleted: every block is freed and the map left in the record,
	 * as e2fsck leaves it; the EA block loses this reference.
	 */
	if (ext2fs_inode_has_valid_blocks2(fs, EXT2_INODE(&inode))) {
		err = ext2fs_block_iterate3(fs, e->ino,
					    BLOCK_FLAG_READ_ONLY |
					    BLOCK_FLAG_DEPTH_TRAVERSE,
					    NULL, release_block, &w);
		if (!err)
			err = w.err;
		if (err)
			return err;
	}
	blk = ext2fs_file_acl_block(fs, EXT2_INODE(&inode));
	if (blk) {
		if (blk < fs->super->s_first_data_block ||
		    blk >= ext2fs_blocks_count(fs->super) ||
		    !ext2fs_test_block_bitmap2(fs->block_map, blk)) {
			snprintf(detail, len,
				 "EA block %llu of orphan inode %u is bad",
				 (unsigned long long)blk, e->ino);
			return E2SR_ERR_ORPHANS;
		}
		err = ext2fs_adjust_ea_refcount3(fs, blk, NULL, -1, &count,
						 e->ino);
		if (err)
			return err;
		if (!count) {
			ext2fs_block_alloc_stats2(fs, blk, -1);
			w.freed++;
		}
	}
	e->freed = w.freed;
	ext2fs_inode_alloc_stats2(fs, e->ino, -1,
				  LINUX_S_ISDIR(inode.i_mode));
	inode.i_dtime = now;
	return ext2fs_write_inode_full(fs, e->ino, EXT2_INODE(&inode),
				       sizeof(inode));
}

/* Empty the orphan file's blocks that held entries. */
static errcode_t clear_file_blocks(ext2_filsys fs,
				   const struct e2sr_orphans *o)
{
	ext2_ino_t fino = fs->super->s_orphan_file_inum;
	unsigned char *buf = NULL;
	size_t i, k;
	errcode_t err;

	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; i < o->n && !err; i++) {
		if (!o->v[i].in_file)
			continue;
		/* Each block once: at its first entry. */
		for (k = 0; k < i; k++)
			if (o->v[k].in_file &&
			    o->v[k].file_blk == o->v[i].file_blk)
				break;
		if (k < i)
			continue;
		err = io_channel_read_blk64(fs->io, o->v[i].file_blk, 1, buf);
		if (err)
			break;
		memset(buf, 0, ext2fs_inodes_per_orphan_block(fs) *
		       sizeof(__u32));
		err = ext2fs_orphan_file_block_csum_set(fs, fino,
							o->v[i].file_blk,
							(char *)buf);
		if (!err)
			err = io_channel_write_blk64(fs->io, o->v[i].file_blk,
						     1, buf);
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * Release every orphan found on @fs, a read-write handle over an
 * overlay with its bitmaps read; the caller closes it into the overlay.
 * @now is the deletion time the records get.
 */
errcode_t e2sr_orphans_release(ext2_filsys fs, struct e2sr_orphans *o,
			       time_t now, char *detail, size_t len)
{
	size_t i;
	errcode_t err = 0;

	for (i = 0; i < o->n && !err; i++)
		err = release_one(fs, &o->v[i], now, detail, len);
	if (!err)
		err = clear_file_blocks(fs, o);
	if (err)
		return err;
	fs->super->s_last_orphan = 0;
	ext2fs_clear_feature_orphan_present(fs->super);
	ext2fs_mark_super_dirty(fs);
	ext2fs_mark_bb_dirty(fs);
	ext2fs_mark_ib_dirty(fs);
	return 0;
}

void e2sr_orphans_free(struct e2sr_orphans *o)
{
	ext2fs_free_mem(&o->v);
	ext2fs_free_mem(&o->log);
	ext2fs_free_mem(&o->ev_blk);
	ext2fs_free_mem(&o->ev_data);
	e2sr_overlay_free(o->overlay);
	e2sr_journal_close(o->found_journal);
	memset(o, 0, sizeof(*o));
}
