/*
 * orphan.c --- releasing orphan inodes the way e2fsck -p and the kernel
 * do, decided in memory and written as one jbd2 transaction.
 *
 * Owns the orphan list (s_last_orphan, chained through i_dtime) and the
 * orphan file's entries: reading them with every number checked (a
 * chain that loops, leaves the inode range, names a free or unused
 * record, or a file entry with a bad block is refused before anything is
 * decided); releasing them on a handle opened over an in-memory overlay,
 * as e2fsck's release_orphan_inodes() does: a file with links left is
 * truncated to i_size (ext2fs_punch, and the tail of its last block
 * zeroed), a file without is freed, blocks and record, with dtime set;
 * and the release's changed blocks as one transaction in the journal,
 * laid out by journal_write.c, checked by the recovery scan before it is
 * trusted, and written by e2sr_orphans_write_log() (every log block,
 * unreferenced), e2sr_orphans_commit() (the journal superblock naming
 * it: the commit point) and e2sr_orphans_replay(), in that order.
 *
 * A freed file keeps its block map in its record, as e2fsck leaves it,
 * and its EA block pointer, which e2fsck clears: the blocks become free
 * blocks whose map the plan reads like any deleted +s file's, and the
 * record's scrub, which comes after the wipe, takes the map away.  Until
 * then a cut run leaves a deleted record whose map a re-run finds again.
 * A +s file cut to its size loses the map of what it frees from its
 * record: the old record and tree blocks go in the transaction ahead of
 * their new versions (e2sr_orphans_evidence()), so the log keeps that map
 * as the kernel's own truncate leaves it.
 *
 * The log goes where the kernel's next transaction would: after the
 * newest commit in the ring, over its oldest blocks.  The run reads the
 * journal with the release in it from then on (a history that no longer
 * reaches as far back is reported by the coverage, as after a mount).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "e2secrmP.h"
#include "jbd2.h"
#include "journal.h"
#include "overlay_io.h"

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

struct evidence_walk {
	struct e2sr_orphans	*o;
	ext2_filsys		fs;
	errcode_t		err;
};

static errcode_t add_evidence(struct e2sr_orphans *o, ext2_filsys fs,
			      blk64_t blk)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < o->nev; i++)
		if (o->ev_blk[i] == blk)
			return 0;
	err = ext2fs_resize_mem(o->nev * sizeof(*o->ev_blk),
				(o->nev + 1) * sizeof(*o->ev_blk), &o->ev_blk);
	if (!err)
		err = ext2fs_resize_mem((size_t)o->nev * fs->blocksize,
					(size_t)(o->nev + 1) * fs->blocksize,
					&o->ev_data);
	if (err)
		return err;
	err = io_channel_read_blk64(fs->io, blk, 1, o->ev_data +
				    (size_t)o->nev * fs->blocksize);
	if (err)
		return err;
	o->ev_blk[o->nev++] = blk;
	return 0;
}

static int evidence_block(ext2_filsys fs, blk64_t *blocknr,
			  e2_blkcnt_t blockcnt,
			  blk64_t ref_blk EXT2FS_ATTR((unused)),
			  int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct evidence_walk *w = priv;

	/* Tree blocks only: a copy of file data would be a new residue. */
	if (blockcnt >= 0 || *blocknr < fs->super->s_first_data_block ||
	    *blocknr >= ext2fs_blocks_count(fs->super))
		return 0;
	w->err = add_evidence(w->o, fs, *blocknr);
	return w->err ? BLOCK_ABORT : 0;
}

/*
 * What a +s truncation orphan's release takes from the disk that the
 * plan needs: its record's and its tree's blocks as they are before
 * (the map of the blocks it frees).  Read on @before, the handle the
 * release was decided on; e2sr_orphans_log() logs each that the release
 * changes ahead of its new version, so that the log holds the old map
 * as the kernel's own truncate leaves it, until the plan's journal stage
 * wipes it.  A deleted orphan needs none: its record keeps its map.
 */
errcode_t e2sr_orphans_evidence(ext2_filsys before, struct e2sr_orphans *o)
{
	struct evidence_walk w;
	ext2_ino_t ipg = before->super->s_inodes_per_group;
	blk64_t blk;
	size_t i;
	errcode_t err = 0;

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.fs = before;
	for (i = 0; i < o->n && !err; i++) {
		const struct e2sr_orphan *e = &o->v[i];
		__u64 off;

		if (!e->links || !e->secrm)
			continue;
		off = (__u64)((e->ino - 1) % ipg) *
		      EXT2_INODE_SIZE(before->super);
		blk = ext2fs_inode_table_loc(before, (e->ino - 1) / ipg) +
		      off / before->blocksize;
		err = add_evidence(o, before, blk);
		if (!err)
			err = ext2fs_block_iterate3(before, e->ino,
						    BLOCK_FLAG_READ_ONLY, NULL,
						    evidence_block, &w);
		if (!err)
			err = w.err;
	}
	return err;
}

/* The transaction the log would replay must be the release, exactly. */
static errcode_t same_release(struct e2sr_journal *j,
			      const struct e2sr_jrecovery *rec,
			      const blk64_t *blk,
			      const unsigned char *const *data, size_t n,
			      char *detail, size_t len)
{
	unsigned char *buf = NULL;
	errcode_t err;
	size_t i;

	if (rec->transactions != 1 || rec->nblocks != n ||
	    rec->tag_csum_bad || rec->failed_commit || rec->nr_revokes) {
		snprintf(detail, len, "the release's transaction reads as "
			 "%u transactions of %zu blocks",
			 rec->transactions, rec->nblocks);
		return E2SR_ERR_ORPHANS;
	}
	err = ext2fs_get_mem(j->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		if (rec->blocks[i].fs_block != blk[i]) {
			snprintf(detail, len, "the release's transaction "
				 "replays block %llu for %llu",
				 (unsigned long long)rec->blocks[i].fs_block,
				 (unsigned long long)blk[i]);
			err = E2SR_ERR_ORPHANS;
			break;
		}
		err = e2sr_journal_copy(j, &rec->blocks[i], buf);
		if (!err && memcmp(buf, data[i], j->blocksize)) {
			snprintf(detail, len, "the release's transaction "
				 "replays other bytes at block %llu",
				 (unsigned long long)blk[i]);
			err = E2SR_ERR_ORPHANS;
		}
	}
	ext2fs_free_mem(&buf);
	return err;
}

/* Journal block of the transaction's @i-th log block: the log is a ring. */
static __u32 log_pos(const struct e2sr_jsb *jsb, __u32 start, __u32 i)
{
	return jsb->first + (start - jsb->first + i) % (jsb->last - jsb->first);
}

static int tid_before(__u32 x, __u32 y)
{
	return (__s32)(x - y) < 0;
}

/*
 * Where the kernel's next transaction would go: after the commit block
 * of the newest transaction before @tid, s_first if there is none.
 * Commits of @tid or later (a cut run's own) are not counted, so that a
 * re-run finds the same place.  Blocks there are the ring's oldest.
 */
static errcode_t log_start(struct e2sr_journal *j, __u32 tid, __u32 *start)
{
	const struct e2sr_jsb *jsb = &j->jsb;
	const unsigned char *b;
	__u32 jb, type, seq, best = 0;
	int found = 0;
	errcode_t err;

	*start = jsb->first;
	for (jb = jsb->first; jb < jsb->last; jb++) {
		err = e2sr_journal_block(j, jb, &b);
		if (err)
			return err;
		if (e2sr_jblock_header(jsb, b, &type, &seq) ||
		    type != E2SR_JBD2_COMMIT_BLOCK || !tid_before(seq, tid))
			continue;
		if (!found || tid_before(best, seq)) {
			best = seq;
			*start = log_pos(jsb, jb, 1);
			found = 1;
		}
	}
	return 0;
}

/*
 * The release's @n blocks with the evidence among them put ahead: new
 * arrays of *nall entries, the release's last.
 */
static errcode_t with_evidence(struct e2sr_orphans *o, size_t n,
			       blk64_t **blk, const unsigned char ***data,
			       size_t *nall, unsigned int bs)
{
	const unsigned char **d2 = NULL;
	blk64_t *b2 = NULL;
	size_t i, k, m = 0;
	errcode_t err;

	*nall = n;
	for (i = 0; i < o->nev; i++)
		for (k = 0; k < n; k++)
			if ((*blk)[k] == o->ev_blk[i])
				m++;
	if (!m)
		return 0;
	err = ext2fs_get_array(n + m, sizeof(*b2), &b2);
	if (!err)
		err = ext2fs_get_array(n + m, sizeof(*d2), &d2);
	if (err)
		goto out;
	m = 0;
	for (i = 0; i < o->nev; i++) {
		for (k = 0; k < n; k++) {
			if ((*blk)[k] != o->ev_blk[i])
				continue;
			b2[m] = o->ev_blk[i];
			d2[m++] = o->ev_data + (size_t)i * bs;
		}
	}
	memcpy(b2 + m, *blk, n * sizeof(*b2));
	memcpy(d2 + m, *data, n * sizeof(*d2));
	ext2fs_free_mem(blk);
	ext2fs_free_mem(data);
	*blk = b2;
	*data = d2;
	*nall = n + m;
	b2 = NULL;
	d2 = NULL;
out:
	ext2fs_free_mem(&b2);
	ext2fs_free_mem(&d2);
	return err;
}

/*
 * Lay the release, the blocks in @o->overlay, out as one transaction in
 * the journal of @fs (a handle over that overlay), and leave the journal
 * in the overlay as the write will leave it: the transaction from
 * s_first, replayed, the journal marked empty.  @found is the recovery
 * the run replays before (NULL: none): the journal is first left as its
 * end leaves it.  The journal opened over the overlay, the run's view of
 * it from now on, is returned in @ret.
 */
errcode_t e2sr_orphans_log(struct e2sr_orphans *o, ext2_filsys fs,
			   const struct e2sr_jrecovery *found, __u64 now,
			   struct e2sr_journal **ret, char *detail,
			   size_t len)
{
	size_t n = e2sr_overlay_count(o->overlay), i;
	const unsigned char **data = NULL, *d;
	struct e2sr_jrecovery check;
	struct e2sr_journal *j = NULL;
	unsigned char *copies = NULL;
	blk64_t *blk = NULL;
	unsigned int bs = fs->blocksize;
	size_t nall = n;
	__u64 ignored = 0;
	__u32 room;
	errcode_t err;

	memset(&check, 0, sizeof(check));
	*ret = NULL;
	if (!n || e2sr_overlay_unit(o->overlay) != bs) {
		snprintf(detail, len, "the release is not in whole blocks");
		return E2SR_ERR_ORPHANS;
	}
	/* The release's blocks, before the journal's join the overlay. */
	err = ext2fs_get_array(n, sizeof(*blk), &blk);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*data), &data);
	if (!err)
		err = ext2fs_get_array(n, bs, &copies);
	for (i = 0; i < n && !err; i++) {
		err = e2sr_overlay_block(o->overlay, i, &blk[i], &d);
		if (err)
			break;
		memcpy(copies + i * bs, d, bs);
		data[i] = copies + i * bs;
	}
	if (err)
		goto out;
	/* Channels opened now read and write this overlay. */
	e2sr_overlay_manager(o->overlay);
	err = e2sr_journal_open(fs, NULL, &j, detail, len);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		if (e2sr_journal_owns(j, blk[i])) {
			snprintf(detail, len, "the release changes journal "
				 "block %llu", (unsigned long long)blk[i]);
			err = E2SR_ERR_ORPHANS;
			goto out;
		}
	}
	if (found) {
		err = e2sr_journal_recover_finish(j, found, &ignored);
		if (err)
			goto out;
	}
	/*
	 * Evidence first, each block the release changes: the newest copy
	 * wins the replay, the older stays readable in the log.
	 */
	err = with_evidence(o, n, &blk, &data, &nall, bs);
	if (err)
		goto out;
	/* Small, as jbd2 keeps a transaction. */
	o->nlog = e2sr_jtx_log_blocks(&j->jsb, nall);
	room = (j->jsb.last - j->jsb.first) / 4;
	if (!o->nlog || o->nlog > room) {
		snprintf(detail, len, "releasing takes %u journal blocks, "
			 "more than the %u of one transaction", o->nlog,
			 room);
		err = E2SR_ERR_ORPHANS;
		goto out;
	}
	o->tid = j->jsb.sequence + 1;
	o->nblocks = n;
	err = log_start(j, o->tid, &o->log_first);
	if (err)
		goto out;
	err = ext2fs_get_array(o->nlog, bs, &o->log);
	if (!err)
		err = e2sr_jtx_build(&j->jsb, o->tid, now, blk, data, nall,
				     o->log);
	for (i = 0; i < o->nlog && !err; i++)
		err = io_channel_write_blk64(j->io,
					     e2sr_journal_phys(j,
						log_pos(&j->jsb, o->log_first,
							i)),
					     1, o->log + (size_t)i * bs);
	if (!err)
		err = e2sr_journal_write_sb(j, o->tid, o->log_first, 0);
	/* What was laid out must replay to the release, and nothing else. */
	if (!err)
		err = e2sr_journal_recover_scan(j,
						ext2fs_blocks_count(fs->super),
						&check, detail, len);
	if (!err)
		err = same_release(j, &check, blk + (nall - n),
				   data + (nall - n), n, detail, len);
	if (!err)
		err = e2sr_journal_recover_finish(j, &check, &ignored);
	if (err)
		goto out;
	o->how = E2SR_RECOVERY_VIEW;
	*ret = j;
	j = NULL;
out:
	e2sr_journal_recovery_free(&check);
	e2sr_journal_close(j);
	ext2fs_free_mem(&copies);
	ext2fs_free_mem(&data);
	ext2fs_free_mem(&blk);
	return err;
}

/*
 * The whole log, commit block included, on the real journal @j, which
 * must be as the view left it before the release: empty, the sequence
 * before the transaction's.  Nothing refers to these blocks yet: the
 * journal superblock still says the log is empty.
 */
errcode_t e2sr_orphans_write_log(struct e2sr_orphans *o,
				 struct e2sr_journal *j)
{
	errcode_t err = 0;
	__u32 i;

	if (j->jsb.start || j->jsb.sequence + 1 != o->tid || j->external)
		return E2SR_ERR_CHANGED;
	for (i = 0; i < o->nlog && !err; i++)
		err = io_channel_write_blk64(j->io,
					     e2sr_journal_phys(j,
						log_pos(&j->jsb, o->log_first,
							i)),
					     1, o->log +
					     (size_t)i * j->blocksize);
	if (!err)
		err = io_channel_flush(j->io);
	if (!err)
		o->bytes += (__u64)o->nlog * j->blocksize;
	return err;
}

/*
 * The commit point: the journal superblock names the log (s_start at
 * its first block, s_sequence its tid).  Before this write the log is
 * unreferenced and a cut changes nothing; after it jbd2, e2fsck and a
 * re-run replay the transaction, whose commit block is already there.
 * The filesystem must say needs_recovery first, or the kernel would
 * wipe the log at mount.
 */
errcode_t e2sr_orphans_commit(struct e2sr_orphans *o, struct e2sr_journal *j)
{
	errcode_t err;

	err = e2sr_journal_write_sb(j, o->tid, o->log_first, 0);
	if (!err)
		o->bytes += j->blocksize;
	return err;
}

/* Replay the committed release with the recovery's own code. */
errcode_t e2sr_orphans_replay(struct e2sr_orphans *o, struct e2sr_journal *j,
			      io_channel fsio, blk64_t fs_blocks,
			      char *detail, size_t len)
{
	struct e2sr_jrecovery rec;
	__u64 bytes = 0;
	errcode_t err;

	err = e2sr_journal_recover_scan(j, fs_blocks, &rec, detail, len);
	if (!err && (rec.transactions != 1 || rec.nblocks != o->nblocks))
		err = E2SR_ERR_CHANGED;
	if (!err)
		err = e2sr_journal_recover_write(j, fsio, &rec, &bytes);
	o->bytes += bytes;
	bytes = 0;
	if (!err)
		err = e2sr_journal_recover_finish(j, &rec, &bytes);
	o->bytes += bytes;
	e2sr_journal_recovery_free(&rec);
	if (!err)
		o->how = E2SR_RECOVERY_REPLAYED;
	return err;
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
