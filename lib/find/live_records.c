/*
 * live_records.c --- the records of the inventory's files, as the live
 * pass took them from the inode tables.
 *
 * Owns struct e2sr_live_recs (in the inventory): each record the live
 * pass makes a file of (inventory.c's record_file()) is kept whole, as
 * the disk holds it, by inode.  Discovery reads a live file's record
 * again for every identity it weighs (discover_rec.c): it takes it from
 * here instead of asking libext2fs, whose read would go back to the
 * table block.  since.c keeps the records with the state, so that the
 * next run, when it can prove a table block unchanged, takes them from
 * there (inventory_since.c).  What a record means is the inventory's.
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

void e2sr_live_recs_free(struct e2sr_live_recs *r)
{
	ext2fs_free_mem(&r->bytes);
	ext2fs_free_mem(&r->at);
	memset(r, 0, sizeof(*r));
}

/*
 * Keep the record of file @ino, @inode in the CPU's order and
 * EXT2_INODE_SIZE() long, as the disk holds it.  A second record of the
 * same inode (none is taken twice) would only be found second.
 */
errcode_t e2sr_live_rec_put(struct e2sr_ctx *ctx, ext2_ino_t ino,
			    const struct ext2_inode_large *inode)
{
	struct e2sr_live_recs *r = &ctx->inv.recs;
	ext2_filsys fs = ctx->fs;
	__u32 size = EXT2_INODE_SIZE(fs->super);
	unsigned char *p;

	if (!r->size)
		r->size = size;
	if (r->size != size)
		return EXT2_ET_INVALID_ARGUMENT;
	if (r->count == r->alloc &&
	    e2sr_array_room(&r->at, &r->alloc, r->count + 1, sizeof(*r->at)))
		return EXT2_ET_NO_MEMORY;
	if (e2sr_array_room(&r->bytes, &r->bytes_alloc,
			    (r->count + 1) * size, 1))
		return EXT2_ET_NO_MEMORY;
	p = r->bytes + r->count * size;
	if (ext2fs_cpu_to_le32(1) != 1)
		ext2fs_swap_inode_full(fs, (struct ext2_inode_large *)p,
				       (struct ext2_inode_large *)inode, 1,
				       size);
	else
		memcpy(p, inode, size);
	r->at[r->count].ino = ino;
	r->at[r->count].at = (__u32)r->count;
	r->count++;
	r->sorted = 0;
	return 0;
}

static int cmp_at(const void *a, const void *b)
{
	const struct e2sr_rec_at *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The record of @ino as the disk holds it, or NULL. */
const unsigned char *e2sr_live_rec_raw(struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	struct e2sr_live_recs *r = &ctx->inv.recs;
	size_t lo = 0, hi = r->count, mid;

	if (!r->count)
		return NULL;
	if (!r->sorted) {
		qsort(r->at, r->count, sizeof(*r->at), cmp_at);
		r->sorted = 1;
	}
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->at[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->count || r->at[lo].ino != ino)
		return NULL;
	return r->bytes + (size_t)r->at[lo].at * r->size;
}

/*
 * The record of @ino into @out (room for EXT2_INODE_SIZE() bytes), in
 * the CPU's order, as ext2fs_read_inode2() would give it: 1, or 0 when
 * the live pass took none.
 */
int e2sr_live_rec_get(struct e2sr_ctx *ctx, ext2_ino_t ino,
		      struct ext2_inode_large *out)
{
	const unsigned char *p = e2sr_live_rec_raw(ctx, ino);

	if (!p)
		return 0;
	if (ext2fs_cpu_to_le32(1) != 1)
		ext2fs_swap_inode_full(ctx->fs, out,
				       (struct ext2_inode_large *)p, 0,
				       ctx->inv.recs.size);
	else
		memcpy(out, p, ctx->inv.recs.size);
	return 1;
}
