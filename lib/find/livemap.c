/*
 * livemap.c --- what is in use, as the inodes and directories say.
 *
 * The bitmaps are one source of "free"; this file builds the other, as
 * e2fsck's passes 1 and 2 do, during the inventory's one inode scan:
 * every block that an inode in use (its bit set) references, as extent
 * tree blocks, extents written or not, indirect blocks of any depth,
 * data blocks and the EA block, plus the filesystem's metadata and the
 * journal; and every inode that an entry of a directory in use names.
 * Each directory block is read once, after the scan, in disk order.
 *
 * Where the sources disagree the run is refused before anything is
 * planned, with the first disagreement in ctx->detail: a referenced
 * block the bitmap calls free (a BLOCK_UNINIT group with live blocks
 * included: libext2fs computes its bitmap), a block claimed twice, a map
 * pointing outside the filesystem or into its metadata, a map or
 * directory that cannot be read, an inode named by a live entry whose
 * bit is clear, a reserved inode marked free, an inode marked in use
 * that the scan cannot read.  Once built, a block is free only if the
 * bitmap says so and no live map has it; an inode record only if its
 * bit is clear and no live entry names it.
 *
 * Every on-disk number is checked before it reaches a libext2fs bitmap;
 * every tree and indirect block is claimed before it is read, so a loop
 * is a block claimed twice and the walk is bounded by the filesystem.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2secrmP.h"

/* Deepest extent tree the kernel builds (5) with a margin. */
#define LIVE_MAX_DEPTH		8

/* Directory blocks per read. */
#define DIR_READ_BLOCKS		64

/*
 * The inodes live entries name, one bit each in a flat array while the
 * directories are read (untouched pages cost nothing), then checked and
 * entered in runs.  @want: looking again for who names that inode.
 */
struct name_list {
	unsigned long		*bits;
	ext2_ino_t		want;
	ext2_ino_t		namer;
	/* Live secure-delete files, for a directory that names each. */
	struct e2sr_ino_set	secure;
	int			have_secure;
};

#define LONG_BITS	(8 * sizeof(unsigned long))

struct live_walk {
	struct e2sr_ctx		*ctx;
	ext2_ino_t		ino;
	struct ext2_inode	*inode;
	int			dir;		/* collect its blocks' names */
	blk64_t			run_pblk;	/* data blocks, not yet */
	blk64_t			run_len;	/* claimed */
	__u64			next_lblk;	/* end of the last extent */
};

static errcode_t disagree(struct e2sr_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static errcode_t disagree(struct e2sr_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->detail, sizeof(ctx->detail), fmt, ap);
	va_end(ap);
	return E2SR_ERR_LIVE_FREE;
}

static errcode_t unreadable(struct live_walk *w, errcode_t err)
{
	if (err == EXT2_ET_NO_MEMORY)
		return err;
	return disagree(w->ctx, "block map of inode %u cannot be read: %s",
			w->ino, error_message(err));
}

void e2sr_livemap_free(struct e2sr_livemap *lm)
{
	if (lm->blocks)
		ext2fs_free_block_bitmap(lm->blocks);
	if (lm->ea_blocks)
		ext2fs_free_block_bitmap(lm->ea_blocks);
	if (lm->named)
		ext2fs_free_inode_bitmap(lm->named);
	if (lm->residue_dirs)
		ext2fs_free_inode_bitmap(lm->residue_dirs);
	if (lm->unwritten_inodes)
		ext2fs_free_inode_bitmap(lm->unwritten_inodes);
	if (lm->linked_blocks)
		ext2fs_free_block_bitmap(lm->linked_blocks);
	if (lm->guessed)
		ext2fs_free_block_bitmap(lm->guessed);
	ext2fs_free_mem(&lm->dirruns);
	ext2fs_free_mem(&lm->inline_dirs);
	ext2fs_free_mem(&lm->buf);
	memset(lm, 0, sizeof(*lm));
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

/*
 * [pblk, pblk + len) is referenced by the inode of @w: it must lie in
 * the filesystem, outside its metadata, be in use in the block bitmap
 * and be nobody else's.  An EA block may be shared.
 */
static errcode_t claim(struct live_walk *w, blk64_t pblk, blk64_t len, int ea)
{
	struct e2sr_ctx *ctx = w->ctx;
	struct e2sr_livemap *lm = &ctx->live;
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super), last, at;

	if (!len)
		return 0;
	if (pblk < fs->super->s_first_data_block || pblk >= end ||
	    len > end - pblk)
		return disagree(ctx, "inode %u maps block %llu, outside the "
				"filesystem", w->ino, (unsigned long long)pblk);
	last = pblk + len - 1;
	if (!e2sr_find_first_zero(fs->block_map, pblk, last,
						  &at))
		return disagree(ctx, "block %llu of inode %u is marked free",
				(unsigned long long)at, w->ino);
	/* The bad blocks and resize inodes list metadata blocks. */
	if (w->ino != EXT2_BAD_INO && w->ino != EXT2_RESIZE_INO &&
	    !ext2fs_find_first_set_block_bitmap2(ctx->metadata_blocks, pblk,
						 last, &at))
		return disagree(ctx, "block %llu of inode %u is filesystem "
				"metadata", (unsigned long long)at, w->ino);
	if (ea) {
		if (ext2fs_test_block_bitmap2(lm->ea_blocks, pblk))
			return 0;
		ext2fs_mark_block_bitmap2(lm->ea_blocks, pblk);
	}
	if (!ext2fs_find_first_set_block_bitmap2(lm->blocks, pblk, last, &at))
		return disagree(ctx, "block %llu of inode %u is claimed twice",
				(unsigned long long)at, w->ino);
	ext2fs_mark_block_bitmap_range2(lm->blocks, pblk, len);
	lm->referenced += len;
	return 0;
}

/* Claim a run of data blocks; a directory's are read for names later. */
static errcode_t claim_data(struct live_walk *w, blk64_t pblk, blk64_t len)
{
	errcode_t err = claim(w, pblk, len, 0);

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
		return disagree(w->ctx, "extent at logical block %llu of "
				"inode %u is empty, out of order or "
				"overlapping", (unsigned long long)e->e_lblk,
				w->ino);
	w->next_lblk = e->e_lblk + e->e_len;
	if (e->e_flags & EXT2_EXTENT_FLAGS_UNINIT) {
		err = claim(w, e->e_pblk, e->e_len, 0);
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
			err = claim(w, e.e_pblk, 1, 0);
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

	err = claim(w, blk, 1, 0);
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

/*
 * Before the scan: the sets, and the reserved inodes, which are always
 * in use (e2fsck marks them so, and the root directory among them).
 */
errcode_t e2sr_livemap_start(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	ext2_ino_t ino;
	errcode_t err;

	e2sr_livemap_free(lm);
	if (!ctx->metadata_blocks)
		return EXT2_ET_INVALID_ARGUMENT;
	err = ext2fs_allocate_block_bitmap(fs, "blocks in use", &lm->blocks);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "EA blocks in use",
						   &lm->ea_blocks);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "inodes named",
						   &lm->named);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "dirs with residue",
						   &lm->residue_dirs);
	if (!err)
		err = ext2fs_get_mem(3 * (size_t)fs->blocksize, &lm->buf);
	if (err)
		return err;
	for (ino = 1; ino < EXT2_FIRST_INODE(fs->super) &&
	     ino <= fs->super->s_inodes_count; ino++)
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			return disagree(ctx, "reserved inode %u is marked free",
					ino);
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
		return disagree(ctx, "inode %u is in use but its record "
				"cannot be read", ino);
	if (csum_bad)
		return disagree(ctx, "inode %u is in use but its record fails "
				"its checksum", ino);
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.ino = ino;
	w.inode = in;
	w.dir = LINUX_S_ISDIR(in->i_mode);

	if (ino == EXT2_RESIZE_INO) {
		/* Its other blocks are the reserved GDT blocks: metadata. */
		if (in->i_block[EXT2_DIND_BLOCK])
			err = claim(&w, in->i_block[EXT2_DIND_BLOCK], 1, 0);
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
		err = claim(&w, ea, 1, 1);
	if (!err && e2sr_questioned(ctx, ino))
		err = note_guessed(ctx, ino, in);
	return err;
}

/*
 * The scan reads no record past a group's bg_itable_unused mark nor in
 * an INODE_UNINIT group: an inode marked in use there has a map nobody
 * read.
 */
static errcode_t check_unscanned(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	__u32 ipg = fs->super->s_inodes_per_group, unused;
	ext2_ino_t first, last, at;
	dgrp_t g;

	if (!ext2fs_has_group_desc_csum(fs))
		return 0;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
			unused = ipg;
		else
			unused = ext2fs_bg_itable_unused(fs, g);
		if (!unused)
			continue;
		if (unused > ipg)
			unused = ipg;
		first = (ext2_ino_t)g * ipg + (ipg - unused) + 1;
		last = (ext2_ino_t)g * ipg + ipg;
		if (last > fs->super->s_inodes_count)
			last = fs->super->s_inodes_count;
		if (first > last)
			continue;
		if (!ext2fs_find_first_set_inode_bitmap2(fs->inode_map, first,
							 last, &at))
			return disagree(ctx, "inode %u is marked in use in its "
					"group's unused inode table", at);
	}
	return 0;
}

/* One live entry; checked once all are in (check_names). */
static errcode_t named(struct e2sr_ctx *ctx, struct name_list *nl,
		       ext2_ino_t dir, ext2_ino_t ino)
{
	/* Out of range names nothing we could write: e2fsck's. */
	if (!ino || ino > ctx->fs->super->s_inodes_count)
		return 0;
	if (nl->want) {
		if (ino != nl->want)
			return 0;
		nl->namer = dir;
		return E2SR_ERR_LIVE_FREE;	/* found: stop */
	}
	nl->bits[ino / LONG_BITS] |= 1UL << (ino % LONG_BITS);
	if (nl->have_secure) {
		const struct e2sr_ino_entry *e;

		e = e2sr_ino_set_find(&nl->secure, ino);
		if (e && !ctx->inv.files[e->value].parent)
			ctx->inv.files[e->value].parent = dir;
	}
	return 0;
}

/*
 * The live secure-delete files the inventory holds by now, so that the
 * pass over the names notes a directory of each (-v names them by path;
 * deleted files are never named).
 */
static errcode_t secure_set(struct e2sr_ctx *ctx, struct name_list *nl)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	size_t i, n = 0;
	errcode_t err;

	for (i = 0; i < inv->count; i++)
		n += inv->files[i].state == E2SR_STATE_LIVE;
	if (!n)
		return 0;
	err = e2sr_ino_set_init(&nl->secure, n);
	if (err)
		return err;
	for (i = 0; i < inv->count; i++)
		if (inv->files[i].state == E2SR_STATE_LIVE)
			e2sr_ino_set_add(&nl->secure, inv->files[i].ino, i);
	e2sr_ino_set_done(&nl->secure);
	nl->have_secure = 1;
	return 0;
}

/*
 * Whether the bytes of an entry past its name, up to its rec_len, hold
 * anything: a removed entry merged into it, or a stale name left by an
 * htree split.  Zeros are what the kernel leaves since it wipes removed
 * entries; the checksum tail and an htree's index (the root's behind
 * "..", a node's behind one empty entry spanning the block) are not
 * residue.  Only directories with residue are read again by the names
 * plan (dirent.c), so a false "yes" costs a read and a false "no" would
 * leave a name: when unsure, say yes.
 */
static int entry_residue(ext2_filsys fs, const struct ext2_dir_entry *de,
			 unsigned int rec_len, unsigned int off,
			 const char *buf, int htree)
{
	unsigned int bs = fs->blocksize, len = ext2fs_dirent_name_len(de);
	unsigned int used, i;

	if (!de->inode && len)
		return 1;		/* a first entry removed, name kept */
	if (ext2fs_has_feature_metadata_csum(fs->super) && !de->inode &&
	    off == bs - 12 && rec_len == 12 && !len)
		return 0;		/* the checksum tail */
	if (htree && !de->inode && off == 0 && rec_len == bs)
		return 0;		/* an index node */
	if (htree && off == 12 && len == 2 && rec_len == bs - 12)
		return 0;		/* the index root behind ".." */
	used = (de->inode || len) ? ((8 + len + 3) & ~3U) : 8;
	for (i = off + used; i < off + rec_len; i++)
		if (buf[i])
			return 1;
	return 0;
}

/*
 * The entries of one directory block, along the rec_len chain.  Its
 * checksum is not ours to judge, but a chain that breaks hides names.
 */
static errcode_t dir_block(struct e2sr_ctx *ctx, struct name_list *nl,
			   const struct e2sr_dirrun *r, blk64_t blk, char *buf)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_dir_entry de;
	unsigned int off = 0, rec_len, bs = fs->blocksize;
	ext2_ino_t dir = r->dir;
	int residue = nl->want ||
		      ext2fs_test_inode_bitmap2(ctx->live.residue_dirs, dir);
	errcode_t err;

	while (off + 8 <= bs) {
		/* The block is as on disk: little-endian. */
		memcpy(&de, buf + off, 8);
		de.inode = ext2fs_le32_to_cpu(de.inode);
		de.rec_len = ext2fs_le16_to_cpu(de.rec_len);
		de.name_len = ext2fs_le16_to_cpu(de.name_len);
		if (ext2fs_get_rec_len(fs, &de, &rec_len) || rec_len < 8 ||
		    (rec_len & 3) || rec_len > bs - off ||
		    ext2fs_dirent_name_len(&de) + 8U > rec_len)
			return disagree(ctx, "directory %u block %llu cannot "
					"be read at offset %u", dir,
					(unsigned long long)blk, off);
		if (de.inode) {
			err = named(ctx, nl, dir, de.inode);
			if (err)
				return err;
		}
		if (!residue && entry_residue(fs, &de, rec_len, off, buf,
					      r->htree)) {
			ext2fs_mark_inode_bitmap2(ctx->live.residue_dirs, dir);
			residue = 1;
		}
		off += rec_len;
	}
	return 0;
}

static int cmp_dirrun(const void *a, const void *b)
{
	const struct e2sr_dirrun *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* Every live directory block once, in disk order, in large reads. */
static errcode_t read_dirs(struct e2sr_ctx *ctx, struct name_list *nl)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	struct e2sr_dirrun *r;
	char *buf;
	blk64_t pos, n, b;
	size_t i;
	errcode_t err = 0;

	if (!lm->dirrun_count)
		return 0;
	qsort(lm->dirruns, lm->dirrun_count, sizeof(*lm->dirruns),
	      cmp_dirrun);
	err = ext2fs_get_mem((size_t)DIR_READ_BLOCKS * fs->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; !err && i < lm->dirrun_count; i++) {
		r = &lm->dirruns[i];
		for (pos = 0; !err && pos < r->len; pos += n) {
			if (e2sr_cancelled(ctx)) {
				err = E2SR_ERR_CANCELLED;
				break;
			}
			n = r->len - pos;
			if (n > DIR_READ_BLOCKS)
				n = DIR_READ_BLOCKS;
			err = io_channel_read_blk64(fs->io, r->pblk + pos, n,
						    buf);
			if (err) {
				err = disagree(ctx, "directory %u block %llu "
					       "cannot be read: %s", r->dir,
					       (unsigned long long)
					       (r->pblk + pos),
					       error_message(err));
				break;
			}
			for (b = 0; !err && b < n; b++)
				err = dir_block(ctx, nl, r,
						r->pblk + pos + b,
						buf + b * fs->blocksize);
		}
	}
	ext2fs_free_mem(&buf);
	return err;
}

struct inline_walk {
	struct e2sr_ctx		*ctx;
	struct name_list	*nl;
	errcode_t		err;
};

static int inline_entry(ext2_ino_t dir, int entry EXT2FS_ATTR((unused)),
			struct ext2_dir_entry *de,
			int offset EXT2FS_ATTR((unused)),
			int blocksize EXT2FS_ATTR((unused)),
			char *buf EXT2FS_ATTR((unused)), void *priv)
{
	struct inline_walk *iw = priv;

	if (!de->inode)
		return 0;
	iw->err = named(iw->ctx, iw->nl, dir, de->inode);
	return iw->err ? DIRENT_ABORT : 0;
}

static errcode_t read_inline_dirs(struct e2sr_ctx *ctx, struct name_list *nl)
{
	struct e2sr_livemap *lm = &ctx->live;
	struct inline_walk iw;
	errcode_t err;
	size_t i;

	iw.ctx = ctx;
	iw.nl = nl;
	for (i = 0; i < lm->inline_count; i++) {
		iw.err = 0;
		err = ext2fs_dir_iterate2(ctx->fs, lm->inline_dirs[i],
					  DIRENT_FLAG_INCLUDE_INLINE_DATA,
					  NULL, inline_entry, &iw);
		if (iw.err)
			return iw.err;
		if (err == EXT2_ET_NO_MEMORY)
			return err;
		if (err)
			return disagree(ctx, "inline directory %u cannot be "
					"read: %s", lm->inline_dirs[i],
					error_message(err));
	}
	return 0;
}

/* The first set bit of @bits at or after @i, below @n; @n if none. */
static ext2_ino_t next_bit(const unsigned long *bits, ext2_ino_t i,
			   ext2_ino_t n, int set)
{
	unsigned long w;

	while (i < n) {
		w = bits[i / LONG_BITS];
		if (!set)
			w = ~w;
		w >>= i % LONG_BITS;
		if (!w) {
			i = (i / LONG_BITS + 1) * LONG_BITS;
			continue;
		}
		i += __builtin_ctzl(w);
		return i < n ? i : n;
	}
	return n;
}

/*
 * Every inode a live entry names must be in use: one bitmap search per
 * run of consecutive names, then the run goes into the named set.  On a
 * disagreement the directories are read again for who names it.
 */
static errcode_t check_names(struct e2sr_ctx *ctx, struct name_list *nl)
{
	ext2_filsys fs = ctx->fs;
	ext2_ino_t n = fs->super->s_inodes_count + 1, a, b, at;
	errcode_t err;

	for (a = next_bit(nl->bits, 1, n, 1); a < n;
	     a = next_bit(nl->bits, b, n, 1)) {
		b = next_bit(nl->bits, a, n, 0);
		if (e2sr_find_first_zero_inode(fs->inode_map, a,
							 b - 1, &at)) {
			/* Inode and block bitmaps share one type. */
			ext2fs_mark_block_bitmap_range2(ctx->live.named, a,
							b - a);
			continue;
		}
		nl->want = at;
		err = read_dirs(ctx, nl);
		if (err == E2SR_ERR_LIVE_FREE && !nl->namer)
			return err;
		if (!nl->namer) {
			err = read_inline_dirs(ctx, nl);
			if (err == E2SR_ERR_LIVE_FREE && !nl->namer)
				return err;
		}
		return disagree(ctx, "inode %u named by directory %u is "
				"marked free", at, nl->namer);
	}
	return 0;
}

/* Add the runs of @map to the live set: metadata and journal. */
static void add_all(struct e2sr_ctx *ctx, ext2fs_block_bitmap map)
{
	ext2_filsys fs = ctx->fs;
	blk64_t start = fs->super->s_first_data_block, end;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;

	if (!map)
		return;
	while (e2sr_next_run(map, 1, &start, last, &end)) {
		ext2fs_mark_block_bitmap_range2(ctx->live.blocks, start,
						end - start);
		start = end;
	}
}

/*
 * After the scan: the inodes it could not read, the names in every live
 * directory, then the filesystem's own blocks.  Only then is the set
 * complete and anything free.
 */
errcode_t e2sr_livemap_finish(struct e2sr_ctx *ctx)
{
	struct e2sr_livemap *lm = &ctx->live;
	struct name_list nl;
	errcode_t err;

	if (!lm->blocks)
		return EXT2_ET_INVALID_ARGUMENT;
	memset(&nl, 0, sizeof(nl));
	err = check_unscanned(ctx);
	if (err)
		return err;
	/* Pages never written are never resident: sparse names are cheap. */
	err = ext2fs_get_arrayzero(ctx->fs->super->s_inodes_count /
				   LONG_BITS + 1, sizeof(*nl.bits), &nl.bits);
	if (err)
		return err;
	err = secure_set(ctx, &nl);
	if (!err)
		err = read_dirs(ctx, &nl);
	if (!err)
		err = read_inline_dirs(ctx, &nl);
	if (!err)
		err = check_names(ctx, &nl);
	ext2fs_free_mem(&nl.bits);
	if (nl.have_secure)
		e2sr_ino_set_free(&nl.secure);
	if (err)
		return err;
	add_all(ctx, ctx->metadata_blocks);
	add_all(ctx, ctx->journal_blocks);
	/* Kept, sorted by read_dirs: the writer's guard of dir blocks. */
	lm->complete = 1;
	return 0;
}

/*
 * Whether any of [blk, blk + count) is in use by the live set's account,
 * or cannot be shown not to be.
 */
int e2sr_live_blocks(const struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (!ctx->live.complete || !count ||
	    blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return 1;
	/* A questioned record's other readings count as in use. */
	if (ctx->live.guessed &&
	    !e2sr_range_clear(ctx->live.guessed, blk, count))
		return 1;
	return !e2sr_range_clear(ctx->live.blocks, blk, count);
}

/* Whether every block of [blk, blk + count) is in the live set. */
int e2sr_live_all(const struct e2sr_ctx *ctx, blk64_t blk, blk64_t count)
{
	ext2_filsys fs = ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super), at;

	if (!ctx->live.complete || !count ||
	    blk < fs->super->s_first_data_block || blk >= end ||
	    count > end - blk)
		return 0;
	return e2sr_find_first_zero(ctx->live.blocks, blk,
						    blk + count - 1, &at) != 0;
}

static int cmp_dirrun_blk(const void *key, const void *elem)
{
	blk64_t blk = *(const blk64_t *)key;
	const struct e2sr_dirrun *r = elem;

	if (blk < r->pblk)
		return -1;
	return blk - r->pblk >= r->len;
}

/*
 * Whether @blk is a block of live directory @dir, as its map said when
 * the live set read every directory block.
 */
int e2sr_live_dir_block(const struct e2sr_ctx *ctx, ext2_ino_t dir,
			blk64_t blk)
{
	const struct e2sr_livemap *lm = &ctx->live;
	const struct e2sr_dirrun *r;

	if (!lm->complete || !lm->dirrun_count)
		return 0;
	r = bsearch(&blk, lm->dirruns, lm->dirrun_count, sizeof(*r),
		    cmp_dirrun_blk);
	return r && r->dir == dir;
}

/*
 * The plan's freed blocks, checked against what records with links
 * whose bit is clear map: E2SR_ERR_LIVE_FREE if one is among them.
 */
errcode_t e2sr_livemap_linked_check(struct e2sr_ctx *ctx,
				    ext2fs_block_bitmap planned)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	blk64_t s = fs->super->s_first_data_block, e, at;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;

	if (!lm->linked_free || !planned)
		return 0;
	while (e2sr_next_run(planned, 1, &s, last, &e)) {
		if (lm->linked_unknown) {
			at = s;
		} else if (!lm->linked_blocks ||
			   ext2fs_find_first_set_block_bitmap2(
					lm->linked_blocks, s, e - 1, &at)) {
			s = e;
			continue;
		}
		snprintf(ctx->detail, sizeof(ctx->detail), "block %llu, to be "
			 "wiped, may be mapped by a record linked but free in "
			 "the inode bitmap, as inode %u is",
			 (unsigned long long)at, lm->linked_free);
		return E2SR_ERR_LIVE_FREE;
	}
	return 0;
}

/*
 * Before planning what writes free space or free records (--all-free,
 * --all-free-if-lost, --free-inodes): no record that e2fsck would keep
 * (links, a mode) may have its bit clear, or its blocks and itself
 * would be taken for free.  E2SR_ERR_LIVE_FREE when one does.
 */
errcode_t e2sr_livemap_free_proven(struct e2sr_ctx *ctx)
{
	if (!ctx->live.linked_free)
		return 0;
	snprintf(ctx->detail, sizeof(ctx->detail), "inode %u is linked but "
		 "free in the inode bitmap", ctx->live.linked_free);
	return E2SR_ERR_LIVE_FREE;
}

/* Whether a live entry names @ino, or the names are not known. */
int e2sr_live_inode(const struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	if (!ctx->live.complete || !ino ||
	    ino > ctx->fs->super->s_inodes_count)
		return 1;
	return ext2fs_test_inode_bitmap2(ctx->live.named, ino);
}

/*
 * The next run at or after *start, up to @last, of blocks free by both
 * sources: clear in the block bitmap and in no live map.  [*start, *end).
 */
int e2sr_free_run(const struct e2sr_ctx *ctx, blk64_t *start, blk64_t last,
		  blk64_t *end)
{
	ext2_filsys fs = ctx->fs;
	blk64_t s = *start, e, at, g;

	if (!ctx->live.complete || s < fs->super->s_first_data_block ||
	    last >= ext2fs_blocks_count(fs->super))
		return 0;
	while (e2sr_next_run(fs->block_map, 0, &s, last, &e)) {
		if (ext2fs_find_first_set_block_bitmap2(ctx->live.blocks, s,
							e - 1, &at))
			at = e;
		/* A questioned record's other readings: in use too. */
		if (ctx->live.guessed && at > s &&
		    ext2fs_find_first_set_block_bitmap2(ctx->live.guessed, s,
							at - 1, &g) == 0)
			at = g;
		if (at > s) {
			*start = s;
			*end = at;
			return 1;
		}
		/* s is in use: on past it, one block at a time if guessed. */
		if (ctx->live.guessed &&
		    ext2fs_test_block_bitmap2(ctx->live.guessed, s))
			s++;
		else if (e2sr_find_first_zero(ctx->live.blocks, s,
							 e - 1, &s))
			s = e;
	}
	return 0;
}

/* How many blocks are free by both sources. */
blk64_t e2sr_free_count(const struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	blk64_t start = fs->super->s_first_data_block, end, n = 0;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;

	while (e2sr_free_run(ctx, &start, last, &end)) {
		n += end - start;
		start = end;
	}
	return n;
}
