/*
 * intent.c --- the lives a run proved secure-delete, kept for the run
 * after a cut.
 *
 * A run wipes the evidence it planned on too: the deleted record that
 * alone said a life was +s is scrubbed in the records phase, before the
 * journal copies that still hold its names and maps are (the journal is
 * the map to the blocks, so it goes last).  A run cut in between leaves
 * names that a new run cannot tie to any +s life.  So, before its first
 * write, the command saves the lives this file lists (inode number,
 * generation, whether the map was lost: never a name or a byte of
 * content), and a run that finds them (e2sr_intent_set) takes each one
 * for a secure-delete file as surely as the run that proved it did.
 *
 * The file is named by the filesystem's UUID, and a dd copy has the
 * same one: the intent of a run cut on one copy may be found by a run
 * on the other.  Nothing tells two copies apart at the moment of the
 * copy, so what matters is what the intent makes a run do on the wrong
 * one.  Its lives (inode number and generation) are harmless there: the
 * copy shares the history that proved them up to the copy, a generation
 * the kernel draws at random names the same file on both, and rule 10
 * (DESIGN.md) wipes what may be a +s file's; live files' data is never
 * a target.  What the cut run said of their maps is not harmless: it
 * lets a map found short pass as wiped, which is true only of the copy
 * that run wiped.  So the intent carries the superblock fields only a
 * mount or e2fsck changes (struct e2sr_fs_mark; a cut run writes none
 * of them), and where they differ now (a mount or a check since, on
 * this copy or on another) the lives are taken and their maps are what
 * this run finds: a map found short is reported lost (exit bit 4), never
 * taken as wiped.  doc/incremental.md, "Copies of a filesystem".
 *
 * Owns the prior lives a run is given, the scan passes that seed them
 * into the inventory (before the journal's versions are matched to files,
 * so that versions of such a life join it) and settle what the earlier
 * proof says of their maps (after), and the list the command saves.
 * Reading and writing the file is the command's (e2secrm/state.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "find_int.h"

static int cmp_life(const void *a, const void *b)
{
	const struct e2sr_life *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return 0;
}

/* Sorted, one entry a life, the lost bits of its copies OR'ed. */
static size_t unique_lives(struct e2sr_life *l, size_t n)
{
	size_t i, out = 0;

	if (!n)
		return 0;
	qsort(l, n, sizeof(*l), cmp_life);
	for (i = 1; i < n; i++) {
		if (!cmp_life(&l[out], &l[i])) {
			l[out].lost |= l[i].lost;
			continue;
		}
		l[++out] = l[i];
	}
	return out + 1;
}

/* The superblock fields a mount or e2fsck changes, as they are now. */
void e2sr_intent_mark(const struct e2sr_ctx *ctx, struct e2sr_fs_mark *mark)
{
	const struct ext2_super_block *sb = ctx->fs->super;

	memset(mark, 0, sizeof(*mark));
	mark->mnt_count = sb->s_mnt_count;
	mark->mtime = (__u64)sb->s_mtime_hi << 32 | sb->s_mtime;
	mark->lastcheck = (__u64)sb->s_lastcheck_hi << 32 | sb->s_lastcheck;
}

/*
 * The prior lives of this filesystem, as a cut run saved them, with
 * what it saw of the superblock (@saved; NULL when the file has none).
 */
errcode_t e2sr_intent_set(struct e2sr_ctx *ctx, const struct e2sr_life *lives,
			  size_t count, const struct e2sr_fs_mark *saved)
{
	struct e2sr_fs_mark now;
	errcode_t err;

	ext2fs_free_mem(&ctx->prior);
	ctx->prior_count = 0;
	ctx->prior_unproven = 0;
	if (!count)
		return 0;
	e2sr_intent_mark(ctx, &now);
	ctx->prior_unproven = !saved || saved->mnt_count != now.mnt_count ||
			      saved->mtime != now.mtime ||
			      saved->lastcheck != now.lastcheck;
	err = ext2fs_get_array(count, sizeof(*lives), &ctx->prior);
	if (err)
		return err;
	memcpy(ctx->prior, lives, count * sizeof(*lives));
	ctx->prior_count = unique_lives(ctx->prior, count);
	return 0;
}

static const struct e2sr_life *prior_life(const struct e2sr_ctx *ctx,
					  ext2_ino_t ino, __u32 gen)
{
	struct e2sr_life key;

	if (!ctx->prior_count)
		return NULL;
	key.ino = ino;
	key.generation = gen;
	return bsearch(&key, ctx->prior, ctx->prior_count,
		       sizeof(*ctx->prior), cmp_life);
}

/*
 * One prior life the live scan did not find: the same file alive with
 * its flag taken off (its live map is not ours, as discover.c's
 * add_identity() has it), or a life only history may still show.  Its
 * map is what its journal versions give, if any are left.
 */
static errcode_t seed(struct e2sr_ctx *ctx, const struct e2sr_life *p,
		      struct ext2_inode_large *live, int isz)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_file *file;
	errcode_t err;

	err = e2sr_inventory_add(&ctx->inv, &file);
	if (err)
		return err;
	file->ino = p->ino;
	file->generation = p->generation;
	file->state = E2SR_STATE_HISTORIC;
	if (p->ino < EXT2_FIRST_INODE(fs->super) ||
	    p->ino > fs->super->s_inodes_count)
		return 0;
	memset(live, 0, isz);
	err = ext2fs_read_inode_full(fs, p->ino, (struct ext2_inode *)live,
				     isz);
	if (err == EXT2_ET_INODE_CSUM_INVALID)
		return 0;	/* no proof it is the same file */
	if (err)
		return err;
	if (live->i_generation == p->generation && live->i_links_count &&
	    ext2fs_test_inode_bitmap2(fs->inode_map, p->ino)) {
		file->state = E2SR_STATE_LIVE;
		file->mode = live->i_mode;
		file->links = live->i_links_count;
		file->flags = live->i_flags;
		file->size = EXT2_I_SIZE(live);
		err = e2sr_file_map(ctx, file, live);
	}
	return err;
}

/*
 * Scan pass, after the live scan and before the journal's: every prior
 * life the inventory does not hold yet becomes a file of it.
 */
errcode_t e2sr_intent_seed(struct e2sr_ctx *ctx)
{
	struct ext2_inode_large *live;
	const struct e2sr_life *p;
	int isz = EXT2_INODE_SIZE(ctx->fs->super);
	size_t i, have = ctx->inv.count;
	char *held = NULL;
	errcode_t err = 0;

	if (!ctx->prior_count)
		return 0;
	if (isz < (int)sizeof(*live))
		isz = sizeof(*live);
	err = ext2fs_get_memzero(isz, &live);
	if (!err)
		err = ext2fs_get_memzero(ctx->prior_count, &held);
	if (err)
		goto out;
	/* The prior list is sorted: one search per file the scan found. */
	for (i = 0; i < have; i++) {
		p = prior_life(ctx, ctx->inv.files[i].ino,
			       ctx->inv.files[i].generation);
		if (p)
			held[p - ctx->prior] = 1;
	}
	for (i = 0; !err && i < ctx->prior_count; i++)
		if (!held[i])
			err = seed(ctx, &ctx->prior[i], live, isz);
out:
	ext2fs_free_mem(&held);
	ext2fs_free_mem(&live);
	return err;
}

/*
 * Scan pass, last: what the run that proved a life said of its map
 * stands.  That run saw every version this one sees and more (a run
 * only takes evidence away, and a deleted life gains none), and it
 * wiped the map's blocks before it scrubbed what showed them: a map
 * this run finds short or empty is one that run had whole, unless it
 * said otherwise.
 */
errcode_t e2sr_intent_settle(struct e2sr_ctx *ctx)
{
	const struct e2sr_life *p;
	struct e2sr_file *f;
	size_t i;

	for (i = 0; ctx->prior_count && i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		p = prior_life(ctx, f->ino, f->generation);
		if (!p || f->state == E2SR_STATE_LIVE)
			continue;
		if (ctx->prior_unproven) {
			/* Its word may be another copy's: only a loss. */
			f->map_status |= p->lost & E2SR_MAP_LOST;
			continue;
		}
		f->map_status = (f->map_status & ~E2SR_MAP_LOST) |
				(p->lost & E2SR_MAP_LOST);
		if (!(f->map_status & E2SR_MAP_LOST))
			f->map_error = 0;
	}
	return 0;
}

/*
 * The lives this run plans on, for the command to save before its first
 * write: the prior ones it was given, every deleted or historic file of
 * the inventory and every generation joined to a file.  Live files are
 * left out: the live scan finds them again.  The caller frees *@ret.
 */
errcode_t e2sr_intent_lives(const struct e2sr_ctx *ctx,
			    struct e2sr_life **ret, size_t *count)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	const struct e2sr_file *f;
	struct e2sr_life *l;
	size_t i, n = 0;
	errcode_t err;

	*ret = NULL;
	*count = 0;
	err = ext2fs_get_array(ctx->prior_count + inv->count +
			       inv->joined_count + 1, sizeof(*l), &l);
	if (err)
		return err;
	for (i = 0; i < ctx->prior_count; i++)
		l[n++] = ctx->prior[i];
	for (i = 0; i < inv->count; i++) {
		f = &inv->files[i];
		if (f->state != E2SR_STATE_DELETED &&
		    f->state != E2SR_STATE_HISTORIC)
			continue;
		l[n].ino = f->ino;
		l[n].generation = f->generation;
		l[n++].lost = f->map_status & E2SR_MAP_LOST;
	}
	for (i = 0; i < inv->joined_count; i++) {
		l[n].ino = inv->joined[i].ino;
		l[n].generation = inv->joined[i].generation;
		l[n++].lost = 0;
	}
	*count = unique_lives(l, n);
	*ret = l;
	return 0;
}
