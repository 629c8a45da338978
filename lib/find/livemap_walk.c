/*
 * livemap_walk.c --- the live set's walk of one inode's maps.
 *
 * During the inventory's one inode scan, each inode in use (its bit set)
 * has every block it references claimed (livemap.c): extent tree blocks
 * and extents, written or not, indirect blocks of any depth, data blocks
 * and the EA block.  A directory's data blocks are noted, as runs, for
 * the pass over the names after the scan, an inline directory by its
 * number.  A live file's unwritten extents are noted for unwritten.c; a
 * record with links whose bit is clear has its map noted apart, as
 * e2fsck would keep it; a questioned record (sanity.c) has the blocks of
 * its other readings kept out of free space.  What the set is, and what
 * it answers, is livemap.c's; the directories are read by livemap_dirs.c.
 *
 * Every tree and indirect block is claimed before it is read, so a loop
 * is a block claimed twice and the walk is bounded by the filesystem.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include <et/com_err.h>

#include "livemap_int.h"

/* Deepest extent tree the kernel builds (5) with a margin. */
#define LIVE_MAX_DEPTH		8

static errcode_t unreadable(struct live_walk *w, errcode_t err)
{
	if (err == EXT2_ET_NO_MEMORY)
		return err;
	return e2sr_livemap_disagree(w->ctx,
			"block map of inode %u cannot be read: %s",
			w->ino, error_message(err));
}

static errcode_t add_dirrun(struct live_walk *w, blk64_t pblk, blk64_t len)
{
	struct e2sr_livemap *lm = &w->ctx->live;
	struct e2sr_dirrun *r;

	if (lm->dirrun_count == lm->dirrun_alloc &&
	    e2sr_array_room(&lm->dirruns, &lm->dirrun_alloc,
			    lm->dirrun_count + 1, sizeof(*lm->dirruns)))
		return EXT2_ET_NO_MEMORY;
	r = &lm->dirruns[lm->dirrun_count++];
	r->pblk = pblk;
	r->len = len;
	r->dir = w->ino;
	r->htree = !!(w->inode->i_flags & EXT2_INDEX_FL);
	return 0;
}

/* Claim a run of data blocks; a directory's are read for names later. */
static errcode_t claim_data(struct live_walk *w, blk64_t pblk, blk64_t len)
{
	errcode_t err = e2sr_livemap_claim(w, pblk, len, 0);

	if (!err && w->dir)
		err = add_dirrun(w, pblk, len);
	return err;
}

/* The extent in the inventory's list, merged with the last one it extends. */
static errcode_t note_extent(struct e2sr_inventory *inv, ext2_ino_t ino,
			     const struct ext2fs_extent *ext)
{
	struct e2sr_unwritten *u;

	if (inv->unwritten_count) {
		u = &inv->unwritten[inv->unwritten_count - 1];
		if (u->ino == ino &&
		    (blk64_t)u->lblk + u->len == ext->e_lblk &&
		    u->pblk + u->len == ext->e_pblk &&
		    u->len <= ~0U - ext->e_len) {
			u->len += ext->e_len;
			return 0;
		}
	}
	if (inv->unwritten_count == inv->unwritten_alloc &&
	    e2sr_array_room(&inv->unwritten, &inv->unwritten_alloc,
			    inv->unwritten_count + 1, sizeof(*inv->unwritten)))
		return EXT2_ET_NO_MEMORY;
	u = &inv->unwritten[inv->unwritten_count++];
	u->ino = ino;
	u->lblk = ext->e_lblk;
	u->residue_of = 0;
	u->pblk = ext->e_pblk;
	u->len = ext->e_len;
	return 0;
}

/*
 * One unwritten extent met by the walk of every map in use, of a live
 * regular file: its owner is noted, and with --all-free the extent too,
 * for unwritten.c to plan.  A tree that cannot be read never gets here:
 * the run is refused.
 */
static errcode_t note_unwritten(struct e2sr_ctx *ctx, ext2_ino_t ino,
				const struct ext2_inode *inode,
				const struct ext2fs_extent *ext)
{
	struct e2sr_livemap *lm = &ctx->live;
	struct e2sr_question_entry *q;
	errcode_t err;

	if (!(ext->e_flags & EXT2_EXTENT_FLAGS_UNINIT) || !ext->e_len ||
	    !(inode->i_flags & EXT4_EXTENTS_FL) || !inode->i_links_count ||
	    !LINUX_S_ISREG(inode->i_mode) ||
	    ino < EXT2_FIRST_INODE(ctx->fs->super) ||
	    ino > ctx->fs->super->s_inodes_count)
		return 0;
	/* Few files preallocate: a sparse set, whatever the fs size. */
	if (!lm->unwritten_inodes) {
		err = ext2fs_alloc_generic_bmap(ctx->fs,
				EXT2_ET_MAGIC_INODE_BITMAP64,
				EXT2FS_BMAP64_RBTREE, 1,
				ctx->fs->super->s_inodes_count,
				(__u64)EXT2_INODES_PER_GROUP(ctx->fs->super) *
				ctx->fs->group_desc_count,
				"files with unwritten extents",
				&lm->unwritten_inodes);
		if (err)
			return err;
	}
	ext2fs_mark_inode_bitmap2(lm->unwritten_inodes, ino);
	/*
	 * A record whose flags or maps contradict each other: which
	 * extents are its own is a guess, and none of them is zeroed
	 * (unwritten.c leaves it for e2fsck).
	 */
	q = e2sr_questioned(ctx, ino);
	if (q) {
		q->seen |= E2SR_LEFT_UNWRITTEN;
		return 0;
	}
	if (!(ctx->opts.sanitize & (E2SR_FREE_ALL | E2SR_FREE_IF_LOST)))
		return 0;
	return note_extent(&ctx->inv, ino, ext);
}

/* Indirect maps list data blocks one by one: claim them in runs. */
static errcode_t flush_run(struct live_walk *w)
{
	errcode_t err;

	if (!w->run_len)
		return 0;
	err = claim_data(w, w->run_pblk, w->run_len);
	w->run_len = 0;
	return err;
}

static errcode_t add_block(struct live_walk *w, blk64_t blk)
{
	errcode_t err;

	if (w->run_len && blk == w->run_pblk + w->run_len &&
	    w->run_len < (1U << 20)) {
		w->run_len++;
		return 0;
	}
	err = flush_run(w);
	w->run_pblk = blk;
	w->run_len = 1;
	return err;
}

/*
 * Leaf extents must come in logical order, none empty, none overlapping
 * or running past 2^32, as the kernel's ext4_valid_extent_entries()
 * demands: libext2fs' block iterator walks a map that breaks this past
 * the extent's end, so a block it lists would be nobody's here.
 */
static errcode_t leaf_extent(struct live_walk *w, const struct ext2fs_extent *e)
{
	errcode_t err;

	if (!e->e_len || e->e_lblk < w->next_lblk ||
	    e->e_lblk + e->e_len > (1ULL << 32))
		return e2sr_livemap_disagree(w->ctx,
				"extent at logical block %llu of "
				"inode %u is empty, out of order or "
				"overlapping", (unsigned long long)e->e_lblk,
				w->ino);
	w->next_lblk = e->e_lblk + e->e_len;
	if (e->e_flags & EXT2_EXTENT_FLAGS_UNINIT) {
		err = e2sr_livemap_claim(w, e->e_pblk, e->e_len, 0);
		if (!err && e->e_len)
			err = note_unwritten(w->ctx, w->ino, w->inode, e);
		return err;
	}
	return claim_data(w, e->e_pblk, e->e_len);
}

/* A tree held in i_block alone, as most are: no handle needed. */
static errcode_t walk_root_leaf(struct live_walk *w)
{
	struct ext3_extent_header *eh =
		(struct ext3_extent_header *)w->inode->i_block;
	struct ext3_extent *ex = (struct ext3_extent *)(eh + 1);
	struct ext2fs_extent e;
	int i, n = ext2fs_le16_to_cpu(eh->eh_entries);
	errcode_t err;

	for (i = 0; i < n; i++, ex++) {
		memset(&e, 0, sizeof(e));
		e.e_pblk = ext2fs_le32_to_cpu(ex->ee_start) +
			   ((blk64_t)ext2fs_le16_to_cpu(ex->ee_start_hi) << 32);
		e.e_lblk = ext2fs_le32_to_cpu(ex->ee_block);
		e.e_len = ext2fs_le16_to_cpu(ex->ee_len);
		e.e_flags = EXT2_EXTENT_FLAGS_LEAF;
		if (e.e_len > EXT_INIT_MAX_LEN) {
			e.e_len -= EXT_INIT_MAX_LEN;
			e.e_flags |= EXT2_EXTENT_FLAGS_UNINIT;
		}
		err = leaf_extent(w, &e);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A deeper tree through libext2fs: each child block is claimed before
 * the walk descends into it, so a loop ends as a block claimed twice.
 */
static errcode_t walk_tree(struct live_walk *w)
{
	ext2_filsys fs = w->ctx->fs;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	unsigned long long steps, max_steps;
	errcode_t err;
	int op;

	err = ext2fs_extent_open2(fs, w->ino, w->inode, &h);
	if (err)
		return unreadable(w, err);
	max_steps = 4 * ext2fs_blocks_count(fs->super) + 64;
	for (op = EXT2_EXTENT_ROOT, steps = 0; ; op = EXT2_EXTENT_NEXT) {
		if (++steps > max_steps) {
			err = unreadable(w, E2SR_ERR_BAD_MAP);
			break;
		}
		err = ext2fs_extent_get(h, op, &e);
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err) {
			err = unreadable(w, err);
			break;
		}
		if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (e.e_flags & EXT2_EXTENT_FLAGS_LEAF)
			err = leaf_extent(w, &e);
		else
			err = e2sr_livemap_claim(w, e.e_pblk, 1, 0);
		if (err)
			break;
	}
	ext2fs_extent_free(h);
	return err;
}

static errcode_t walk_extents(struct live_walk *w)
{
	struct ext3_extent_header *eh =
		(struct ext3_extent_header *)w->inode->i_block;
	errcode_t err;
	int i;

	for (i = 0; i < EXT2_N_BLOCKS; i++)
		if (w->inode->i_block[i])
			break;
	if (i == EXT2_N_BLOCKS)
		return 0;		/* no extents at all */
	err = ext2fs_extent_header_verify(eh, sizeof(w->inode->i_block));
	if (err)
		return unreadable(w, err);
	if (ext2fs_le16_to_cpu(eh->eh_depth) > LIVE_MAX_DEPTH)
		return unreadable(w, EXT2_ET_EXTENT_HEADER_BAD);
	if (!eh->eh_depth)
		return walk_root_leaf(w);
	return walk_tree(w);
}

/*
 * An indirect block of @height (1: it lists data blocks), claimed before
 * it is read.  Each height has its own buffer.
 */
static errcode_t walk_ind(struct live_walk *w, blk64_t blk, int height)
{
	ext2_filsys fs = w->ctx->fs;
	unsigned char *buf = w->ctx->live.buf + (height - 1) * fs->blocksize;
	__u32 *list = (__u32 *)buf, i, n = fs->blocksize / 4;
	blk64_t b;
	errcode_t err;

	err = e2sr_livemap_claim(w, blk, 1, 0);
	if (err)
		return err;
	err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (err)
		return unreadable(w, err);
	for (i = 0; i < n; i++) {
		b = ext2fs_le32_to_cpu(list[i]);
		if (!b)
			continue;
		if (height == 1)
			err = add_block(w, b);
		else
			err = walk_ind(w, b, height - 1);
		if (err)
			return err;
	}
	return 0;
}

static errcode_t walk_indirect(struct live_walk *w)
{
	__u32 *ib = w->inode->i_block;
	errcode_t err = 0;
	int i;

	for (i = 0; !err && i < EXT2_NDIR_BLOCKS; i++)
		if (ib[i])
			err = add_block(w, ib[i]);
	if (!err && ib[EXT2_IND_BLOCK])
		err = walk_ind(w, ib[EXT2_IND_BLOCK], 1);
	if (!err && ib[EXT2_DIND_BLOCK])
		err = walk_ind(w, ib[EXT2_DIND_BLOCK], 2);
	if (!err && ib[EXT2_TIND_BLOCK])
		err = walk_ind(w, ib[EXT2_TIND_BLOCK], 3);
	if (!err)
		err = flush_run(w);
	return err;
}

static errcode_t add_inline_dir(struct e2sr_livemap *lm, ext2_ino_t ino)
{
	if (lm->inline_count == lm->inline_alloc &&
	    e2sr_array_room(&lm->inline_dirs, &lm->inline_alloc,
			    lm->inline_count + 1, sizeof(*lm->inline_dirs)))
		return EXT2_ET_NO_MEMORY;
	lm->inline_dirs[lm->inline_count++] = ino;
	/* Their slack is not read here: the names plan reads them all. */
	ext2fs_mark_inode_bitmap2(lm->residue_dirs, ino);
	return 0;
}

static int note_linked_block(ext2_filsys fs, blk64_t *blocknr,
			     e2_blkcnt_t blockcnt EXT2FS_ATTR((unused)),
			     blk64_t ref_blk EXT2FS_ATTR((unused)),
			     int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct e2sr_livemap *lm = priv;

	if (*blocknr < fs->super->s_first_data_block ||
	    *blocknr >= ext2fs_blocks_count(fs->super)) {
		lm->linked_unknown = 1;
		return BLOCK_ABORT;
	}
	ext2fs_mark_block_bitmap2(lm->linked_blocks, *blocknr);
	return 0;
}

/*
 * A record with links whose bit is clear: e2fsck would keep it, so what
 * it maps is kept out of every plan (e2sr_livemap_linked_check).  Its
 * map is read through libext2fs, as e2fsck would; one it cannot read
 * makes every freed block unprovable.
 */
static errcode_t note_linked_free(struct e2sr_ctx *ctx, ext2_ino_t ino,
				  struct ext2_inode *in)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	blk64_t ea = ext2fs_file_acl_block(fs, in);
	errcode_t err;

	if (!lm->linked_free)
		lm->linked_free = ino;
	if (!lm->linked_blocks) {
		err = ext2fs_allocate_block_bitmap(fs, "blocks of linked "
						   "free records",
						   &lm->linked_blocks);
		if (err)
			return err;
	}
	if (ea && ea >= fs->super->s_first_data_block &&
	    ea < ext2fs_blocks_count(fs->super))
		ext2fs_mark_block_bitmap2(lm->linked_blocks, ea);
	else if (ea)
		lm->linked_unknown = 1;
	if (!ext2fs_inode_has_valid_blocks2(fs, in) ||
	    (in->i_flags & EXT4_INLINE_DATA_FL))
		return 0;
	err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				    note_linked_block, lm);
	if (err == EXT2_ET_NO_MEMORY)
		return err;
	if (err)
		lm->linked_unknown = 1;
	return 0;
}

/* Keep [blk, blk + len) out of free space; whether any of it is free. */
static int guess_range(ext2_filsys fs, struct e2sr_livemap *lm,
		       blk64_t blk, blk64_t len)
{
	blk64_t end = ext2fs_blocks_count(fs->super), at;

	if (blk < fs->super->s_first_data_block || blk >= end || !len)
		return 0;
	if (len > end - blk)
		len = end - blk;
	ext2fs_mark_block_bitmap_range2(lm->guessed, blk, len);
	return !e2sr_find_first_zero(fs->block_map, blk, blk + len - 1, &at);
}

/*
 * A record whose flags or maps contradict each other (sanity.c) may be
 * given back, by e2fsck, a map its flags do not say: an extent tree its
 * inline flag hides, or its i_block read as block pointers when both
 * flags go.  Every block such a reading names is kept out of free space
 * (@lm->guessed): a guess is never wiped.  Nothing here refuses; a
 * reading that does not walk stops where it stops.
 */
static errcode_t note_guessed(struct e2sr_ctx *ctx, ext2_ino_t ino,
			      const struct ext2_inode *in)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	unsigned long long steps, max_steps;
	struct ext2_inode copy = *in;
	struct ext2fs_extent e;
	ext2_extent_handle_t h;
	errcode_t err;
	int op, i, any_free = 0;
	blk64_t len;

	if (!lm->guessed) {
		err = ext2fs_alloc_generic_bmap(fs,
				EXT2_ET_MAGIC_BLOCK_BITMAP64,
				EXT2FS_BMAP64_RBTREE,
				fs->super->s_first_data_block,
				ext2fs_blocks_count(fs->super) - 1,
				ext2fs_blocks_count(fs->super) - 1,
				"blocks of questioned records", &lm->guessed);
		if (err)
			return err;
	}
	if (((in->i_flags & EXT4_INLINE_DATA_FL) ||
	     !(in->i_flags & EXT4_EXTENTS_FL)) &&
	    !ext2fs_extent_header_verify(copy.i_block,
					 sizeof(copy.i_block))) {
		copy.i_flags = (copy.i_flags & ~EXT4_INLINE_DATA_FL) |
			       EXT4_EXTENTS_FL;
		max_steps = 4 * ext2fs_blocks_count(fs->super) + 64;
		if (!ext2fs_extent_open2(fs, ino, &copy, &h)) {
			for (op = EXT2_EXTENT_ROOT, steps = 0;
			     ++steps <= max_steps &&
			     !ext2fs_extent_get(h, op, &e);
			     op = EXT2_EXTENT_NEXT) {
				if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
					continue;
				len = e.e_flags & EXT2_EXTENT_FLAGS_LEAF ?
				      e.e_len : 1;
				any_free |= guess_range(fs, lm, e.e_pblk, len);
			}
			ext2fs_extent_free(h);
		}
	}
	/* Both flags cleared, as pass 1 may: i_block as pointers. */
	if ((in->i_flags & EXT4_INLINE_DATA_FL) &&
	    (in->i_flags & EXT4_EXTENTS_FL))
		for (i = 0; i < EXT2_N_BLOCKS; i++)
			any_free |= guess_range(fs, lm, in->i_block[i], 1);
	/* Free by the bitmap, kept all the same: an --all-free leaves them. */
	if (any_free)
		e2sr_questioned(ctx, ino)->seen |= E2SR_LEFT_BLOCKS;
	return 0;
}

/*
 * One inode of the scan.  In use is what e2fsck calls in use: its bit is
 * set.  @csum_bad: the record failed its checksum, so its map is not to
 * be trusted, and neither is anything concluded without it.
 */
errcode_t e2sr_livemap_note(struct e2sr_ctx *ctx, ext2_ino_t ino,
			    struct ext2_inode_large *inode, int csum_bad)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_inode *in = (struct ext2_inode *)inode;
	struct live_walk w;
	blk64_t ea;
	errcode_t err = 0;

	if (!ino || ino > fs->super->s_inodes_count)
		return 0;
	if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino)) {
		/*
		 * e2fsck keeps a record with links whatever its bit says
		 * (pass 1): free space and free records cannot be proven
		 * while one exists (e2sr_livemap_free_proven).
		 */
		if (inode && in->i_links_count && in->i_mode && !csum_bad)
			return note_linked_free(ctx, ino, in);
		return 0;
	}
	if (!inode)
		return e2sr_livemap_disagree(ctx,
				"inode %u is in use but its record "
				"cannot be read", ino);
	if (csum_bad)
		return e2sr_livemap_disagree(ctx,
				"inode %u is in use but its record fails "
				"its checksum", ino);
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.ino = ino;
	w.inode = in;
	w.dir = LINUX_S_ISDIR(in->i_mode);

	if (ino == EXT2_RESIZE_INO) {
		/* Its other blocks are the reserved GDT blocks: metadata. */
		if (in->i_block[EXT2_DIND_BLOCK])
			err = e2sr_livemap_claim(&w, in->i_block[EXT2_DIND_BLOCK],
						 1, 0);
	} else if (in->i_flags & EXT4_INLINE_DATA_FL) {
		if (w.dir)
			err = add_inline_dir(&ctx->live, ino);
	} else if (ino == EXT2_BAD_INO) {
		err = walk_indirect(&w);
	} else if (!ext2fs_inode_has_valid_blocks2(fs, in)) {
		/* device, fifo, socket, fast symlink: no map */
	} else if (in->i_flags & EXT4_EXTENTS_FL) {
		err = walk_extents(&w);
	} else {
		err = walk_indirect(&w);
	}
	if (err)
		return err;
	ea = ext2fs_file_acl_block(fs, in);
	if (ea)
		err = e2sr_livemap_claim(&w, ea, 1, 1);
	if (!err && e2sr_questioned(ctx, ino))
		err = note_guessed(ctx, ino, in);
	return err;
}
