/*
 * livemap_dirs.c --- the live set's pass after the inode scan.
 *
 * Once every map in use has been walked (livemap_walk.c), this file
 * completes the live set: no inode marked in use where the scan reads no
 * record; every live directory block read once, in disk order, in large
 * reads, and inline directories through libext2fs, for the inodes their
 * entries name, which must all be in use, and for whether a directory
 * holds residue for the names plan (dirent.c); the live secure-delete
 * files given a directory that names each; then the filesystem's
 * metadata and journal added.  What the set holds and answers, and the
 * disagreement that refuses the run, are livemap.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "livemap_int.h"

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
			return e2sr_livemap_disagree(ctx,
					"inode %u is marked in use in its "
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
			return e2sr_livemap_disagree(ctx,
					"directory %u block %llu cannot "
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

/*
 * Whether the blocks of directory @dir that no copy since shows changed
 * may go unread (unchanged_block()): in an incremental run, unless the
 * fast-commit area names it, whose replay may have written it in place.
 */
static int may_skip(const struct e2sr_ctx *ctx, ext2_ino_t dir)
{
	const struct e2sr_since *s = &ctx->since;

	return s->incremental &&
	       !e2sr_ino_sorted_has(s->named, s->named_count, dir);
}

/* Whether block @b is one unchanged_block() takes: see may_skip(). */
static int unchanged(struct e2sr_ctx *ctx, blk64_t b, int skip)
{
	return skip && e2sr_since_io_unchanged(ctx, b);
}

/*
 * A block of a directory the pass reads, as the last run saw it: the
 * names in it were in use then (the bitmaps answer for them now,
 * e2sr_livemap_take_bitmaps()), and its residue is what it was, which
 * that run kept with the directory.  So it is not read: a directory
 * kept for residue keeps it, for the names plan to read.  With
 * ring_check it is read all the same, and residue that the last run did
 * not keep stops the run.
 */
static errcode_t unchanged_block(struct e2sr_ctx *ctx, struct name_list *nl,
				 const struct e2sr_dirrun *r, blk64_t blk,
				 char *buf)
{
	const struct e2sr_since_state *p = &ctx->since.prev;
	ext2fs_inode_bitmap residue = ctx->live.residue_dirs;
	int kept = e2sr_ino_sorted_has(p->dirs, p->dir_count, r->dir), had;
	errcode_t err;

	if (kept)
		ext2fs_mark_inode_bitmap2(residue, r->dir);
	if (!ctx->since.ring_check)
		return 0;
	err = io_channel_read_blk64(ctx->fs->io, blk, 1, buf);
	if (err)
		return e2sr_livemap_disagree(ctx, "directory %u block %llu "
					     "cannot be read: %s", r->dir,
					     (unsigned long long)blk,
					     error_message(err));
	had = ext2fs_test_inode_bitmap2(residue, r->dir);
	err = dir_block(ctx, nl, r, blk, buf);
	if (!err && !had && ext2fs_test_inode_bitmap2(residue, r->dir))
		err = E2SR_ERR_UNLOGGED_DIR_RESIDUE;
	return err;
}

/*
 * The directory blocks read_dirs() will read from the disk (in an
 * incremental run not those the log answers, since_io.c, nor those
 * unchanged since the last run), asked for ahead of it (readahead.c):
 * they lie scattered, and a cold pass would wait on each run in turn.
 * @cum[i]: the bytes of the list before run @i's.
 */
static void dir_readahead(struct e2sr_ctx *ctx, struct e2sr_ra **ra,
			  __u64 **cum)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	struct e2sr_ra_range *r = NULL;
	size_t n = 0, alloc = 0, i;
	blk64_t b, end;
	__u64 at = 0;
	int skip;

	*ra = NULL;
	if (ext2fs_get_array(lm->dirrun_count + 1, sizeof(**cum), cum))
		return;
	for (i = 0; i < lm->dirrun_count; i++) {
		(*cum)[i] = at;
		b = lm->dirruns[i].pblk;
		end = b + lm->dirruns[i].len;
		skip = may_skip(ctx, lm->dirruns[i].dir);
		for (; b < end && b < ext2fs_blocks_count(fs->super); b++) {
			if (!e2sr_since_io_reads_disk(ctx, b) ||
			    (unchanged(ctx, b, skip) &&
			     !ctx->since.ring_check))
				continue;
			if (e2sr_ra_add(&r, &n, &alloc,
					(__u64)b * fs->blocksize,
					fs->blocksize))
				goto out;
			at += fs->blocksize;
		}
	}
	(*cum)[i] = at;
	e2sr_ra_start(fs->device_name, r, n, E2SR_RA_WINDOW, ra);
out:
	ext2fs_free_mem(&r);
	if (!*ra)
		ext2fs_free_mem(cum);
}

/* Every live directory block once, in disk order, in large reads. */
static errcode_t read_dirs(struct e2sr_ctx *ctx, struct name_list *nl)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_livemap *lm = &ctx->live;
	struct e2sr_dirrun *r;
	struct e2sr_ra *ra = NULL;
	__u64 *cum = NULL;
	char *buf;
	blk64_t pos, n, b;
	size_t i;
	errcode_t err = 0;
	int skip;

	if (!lm->dirrun_count)
		return 0;
	qsort(lm->dirruns, lm->dirrun_count, sizeof(*lm->dirruns),
	      cmp_dirrun);
	err = ext2fs_get_mem((size_t)DIR_READ_BLOCKS * fs->blocksize, &buf);
	if (err)
		return err;
	/* Not when looking again for one name: the first time read all. */
	if (!nl->want)
		dir_readahead(ctx, &ra, &cum);
	for (i = 0; !err && i < lm->dirrun_count; i++) {
		r = &lm->dirruns[i];
		if (ra)
			e2sr_ra_done(ra, cum[i]);
		/* Looking again for one name: every block. */
		skip = !nl->want && may_skip(ctx, r->dir);
		for (pos = 0; !err && pos < r->len; pos += n) {
			if (e2sr_cancelled(ctx)) {
				err = E2SR_ERR_CANCELLED;
				break;
			}
			if (unchanged(ctx, r->pblk + pos, skip)) {
				n = 1;
				err = unchanged_block(ctx, nl, r, r->pblk + pos,
						      buf);
				continue;
			}
			for (n = 1; pos + n < r->len && n < DIR_READ_BLOCKS &&
			     !unchanged(ctx, r->pblk + pos + n, skip); n++)
				;
			err = io_channel_read_blk64(fs->io, r->pblk + pos, n,
						    buf);
			if (err) {
				err = e2sr_livemap_disagree(ctx,
					       "directory %u block %llu "
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
	e2sr_ra_stop(&ra);
	ext2fs_free_mem(&cum);
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
			return e2sr_livemap_disagree(ctx,
					"inline directory %u cannot be "
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
		return e2sr_livemap_disagree(ctx,
				"inode %u named by directory %u is "
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
