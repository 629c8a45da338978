/*
 * kept_maps.c --- the maps of the live secure-delete files a run keeps
 * for the next, and what the next makes of them.
 *
 * Once a run has wiped the journal's copies of a live secure-delete
 * file's record, nothing but that run says which blocks the file had: the
 * kernel zeroes the map of a record it deletes.  So the run keeps each
 * such file's map (the live pass's reading of it) in its state's
 * companion (since.c gathers it, the command writes it), and a later run
 * gives a file of the same life, deleted since, its blocks back from
 * there.  Those are planned as a historic map's (plan.c): free by both
 * sources, and not written since by another owner.  A file the run read
 * with no block at all is kept too, with an empty map: deleted since,
 * its unlink's copy shows no map either, and only the run before says
 * it never had one.  A kept life no version shows any more (deleted,
 * its inode given to another file in the same transaction) is made a
 * historic identity by discovery (discover_owners.c) for this pass to
 * find.  What the state file is and when it is trusted is since.c's and
 * the command's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"

static int cmp_kept(const void *a, const void *b)
{
	const struct e2sr_kept *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->generation < y->generation ? -1 :
	       x->generation > y->generation;
}

/*
 * Whether the live pass read all of @f's map: an empty one only when
 * nothing of it was lost or left unread, so that "no block" is a fact.
 */
static int kept_whole(const struct e2sr_file *f)
{
	if (f->state != E2SR_STATE_LIVE)
		return 0;
	return f->map_count ||
	       (!(f->map_status & E2SR_MAP_LOST) && !f->map_error &&
		!f->questioned);
}

/*
 * The maps of the live files that carry the flag, as the live pass read
 * them: once this run has wiped the journal's copies of their records,
 * nothing else says which blocks they held, and the kernel zeroes the map
 * of a record it deletes.
 */
errcode_t e2sr_kept_note(struct e2sr_ctx *ctx)
{
	struct e2sr_since_state *n = &ctx->since.next;
	const struct e2sr_inventory *inv = &ctx->inv;
	const struct e2sr_file *f;
	size_t i, files = 0, ext = 0;
	errcode_t err;

	ext2fs_free_mem(&n->kept);
	ext2fs_free_mem(&n->kept_ext);
	n->kept_count = n->kept_ext_count = 0;
	for (i = 0; i < inv->count; i++) {
		f = &inv->files[i];
		if (!kept_whole(f))
			continue;
		files++;
		ext += f->map_count;
	}
	if (!files)
		return 0;
	err = ext2fs_get_array(files, sizeof(*n->kept), &n->kept);
	if (!err && ext)
		err = ext2fs_get_array(ext, sizeof(*n->kept_ext),
				       &n->kept_ext);
	if (err)
		return err;
	for (i = 0; i < inv->count; i++) {
		f = &inv->files[i];
		if (!kept_whole(f))
			continue;
		n->kept[n->kept_count].ino = f->ino;
		n->kept[n->kept_count].generation = f->generation;
		n->kept[n->kept_count].first = (__u32)n->kept_ext_count;
		n->kept[n->kept_count].count = (__u32)f->map_count;
		if (f->map_count)
			memcpy(n->kept_ext + n->kept_ext_count, f->map,
			       f->map_count * sizeof(*f->map));
		n->kept_ext_count += f->map_count;
		n->kept_count++;
	}
	qsort(n->kept, n->kept_count, sizeof(*n->kept), cmp_kept);
	return 0;
}

/* How many of @e's blocks are free by both sources now (capped). */
static __u16 kept_free(const struct e2sr_ctx *ctx, const struct e2sr_extent *e)
{
	ext2_filsys fs = ctx->fs;
	blk64_t b, end = ext2fs_blocks_count(fs->super);
	__u32 n = 0;

	if (e->pblk < fs->super->s_first_data_block || e->pblk >= end ||
	    e->len > end - e->pblk)
		return 0;
	for (b = e->pblk; b < e->pblk + e->len && n < 0xffff; b++)
		if (!ext2fs_test_block_bitmap2(fs->block_map, b) &&
		    !e2sr_live_blocks(ctx, b, 1))
			n++;
	return (__u16)n;
}

/*
 * A pass of the find stage, after the journal's: each deleted file that
 * carries the flag and whose map is gone (the kernel zeroes it; the last
 * run wiped the journal's copies of the record that held it) takes the
 * map the last run kept of it, the same life then live.  Its blocks are
 * planned as a historic map's: free by both sources, and not written by
 * another owner since that run (plan.c).  Only a state this journal's
 * history matches is taken.
 */
errcode_t e2sr_kept_maps(struct e2sr_ctx *ctx)
{
	const struct e2sr_since_state *p = &ctx->since.prev;
	struct e2sr_file *f;
	struct e2sr_kept key, *k;
	struct e2sr_extent *e;
	size_t i, j;

	if (!ctx->since.have_prev || !p->kept_count ||
	    !ctx->coverage.have_prev || ctx->coverage.prev_mismatch)
		return 0;
	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		if ((f->state != E2SR_STATE_DELETED &&
		     f->state != E2SR_STATE_HISTORIC) ||
		    (f->map_status & E2SR_MAP_KEPT))
			continue;
		key.ino = f->ino;
		key.generation = f->generation;
		k = bsearch(&key, p->kept, p->kept_count, sizeof(*k),
			    cmp_kept);
		if (!k || (__u64)k->first + k->count > p->kept_ext_count)
			continue;
		if (f->map_count + k->count > f->map_alloc &&
		    e2sr_array_room(&f->map, &f->map_alloc,
				    f->map_count + k->count, sizeof(*f->map)))
			return EXT2_ET_NO_MEMORY;
		for (j = 0; j < k->count; j++) {
			e = &f->map[f->map_count++];
			*e = p->kept_ext[k->first + j];
			e->historic = 1;
			e->seq = ctx->coverage.prev.tid;
			e->nfree = kept_free(ctx, e);
			f->free_blocks += e->nfree;
		}
		/* The map is known again: what the kernel zeroed is here. */
		f->map_status = (f->map_status & ~E2SR_MAP_EMPTY) |
				E2SR_MAP_KEPT;
	}
	return 0;
}
