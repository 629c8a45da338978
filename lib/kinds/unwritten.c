/*
 * unwritten.c --- the unwritten extents of live files, and what of them
 * to zero.
 *
 * fallocate allocates blocks without writing them: the extent is marked
 * unwritten and reads of it return zeros, but the blocks still hold what
 * their last owner left.  fallocate --zero-range turns a written range
 * into an unwritten one in place, and preallocation (--keep-size past
 * the end, too) can hand a file back the very blocks a truncate took
 * from it: either way a secure-delete file's old bytes sit in blocks it
 * still owns.  No free-space wipe reaches them, because they are
 * allocated.
 *
 * The kernel also hands a deleted (or truncated) secure-delete file's
 * freed blocks to any other file that preallocates: the old bytes then
 * sit under that file's unwritten extent, allocated, reading as zeros.
 *
 * By default the plan takes the unwritten extents of every live file of
 * a secure-delete identity (the live map in the inventory, whichever
 * version carried the flag), and the unwritten extents of any other
 * live file over blocks that a secure-delete file's map (live or from
 * the journal, contents only) had; of them only the blocks that do not
 * read as zeros now: zeros are what a run before left, so a second run
 * finds nothing.  A block of such a map that is now written data of a
 * live file is that file's, and never touched.  The scan's walk of every
 * map in use (livemap_walk.c) notes here which live files have unwritten
 * extents, one bit each; only when a secure-delete map has blocks in
 * use are those files' trees read again, for the extents over them, so
 * a filesystem full of preallocation costs no memory per extent.  With
 * --all-free the walk hands every unwritten extent of every live file
 * here, and all of them are planned whole.
 *
 * Execute zeroes each run, whatever the method, only after looking it
 * up again in its file's extent tree and finding it still there,
 * unwritten and at the same blocks, which both the bitmap and the live
 * set must have in use.  Nobody can see the difference: the file still
 * reads as zeros there, before and after.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "write.h"
#include "kinds.h"

blk64_t e2sr_unwritten_blocks(const struct e2sr_inventory *inv)
{
	blk64_t n = 0;
	size_t i;

	for (i = 0; i < inv->unwritten_count; i++)
		n += inv->unwritten[i].len;
	return n;
}

/* An unwritten extent of @ino that no ext4 file can have: refused. */
static errcode_t bad_extent(struct e2sr_ctx *ctx, ext2_ino_t ino,
			    blk64_t lblk, blk64_t pblk)
{
	snprintf(ctx->detail, sizeof(ctx->detail), "inode %u: unwritten "
		 "extent at logical block %llu, block %llu, out of range",
		 ino, (unsigned long long)lblk, (unsigned long long)pblk);
	return EXT2_ET_BAD_BLOCK_NUM;
}

/* Append a run to the plan, merged with the one it continues. */
static errcode_t plan_run(struct e2sr_plan *plan,
			  const struct e2sr_unwritten *r)
{
	struct e2sr_unwritten *u;

	if (plan->unwritten_runs) {
		u = &plan->unwritten[plan->unwritten_runs - 1];
		if (u->ino == r->ino && u->residue_of == r->residue_of &&
		    (blk64_t)u->lblk + u->len == r->lblk &&
		    u->pblk + u->len == r->pblk && u->len <= ~0U - r->len) {
			u->len += r->len;
			plan->unwritten_count += r->len;
			return 0;
		}
	}
	if (e2sr_array_room(&plan->unwritten, &plan->unwritten_alloc,
			    plan->unwritten_runs + 1, sizeof(*plan->unwritten)))
		return EXT2_ET_NO_MEMORY;
	plan->unwritten[plan->unwritten_runs++] = *r;
	plan->unwritten_count += r->len;
	return 0;
}

/*
 * The blocks of @r, a run of an unwritten extent of a live file, that
 * are not all zeros now, read before anything is written: -n plans
 * exactly what -y writes.
 */
static errcode_t plan_nonzero(struct e2sr_ctx *ctx, unsigned char *buf,
			      __u32 bufblocks, const struct e2sr_unwritten *r)
{
	ext2_filsys fs = ctx->fs;
	size_t bs = fs->blocksize;
	struct e2sr_unwritten run = *r;
	__u32 off, n, b, end;
	errcode_t err;

	if (r->pblk < fs->super->s_first_data_block ||
	    r->pblk >= ext2fs_blocks_count(fs->super) ||
	    r->len > ext2fs_blocks_count(fs->super) - r->pblk ||
	    (blk64_t)r->lblk + r->len > (1ULL << 32))
		return bad_extent(ctx, r->ino, r->lblk, r->pblk);
	for (off = 0; off < r->len; off += n) {
		if (e2sr_cancelled(ctx))
			return E2SR_ERR_CANCELLED;
		n = r->len - off < bufblocks ? r->len - off : bufblocks;
		err = io_channel_read_blk64(fs->io, r->pblk + off, n, buf);
		if (err)
			return err;
		for (b = 0; b < n; b = end) {
			if (e2sr_all_zero(buf + b * bs, bs)) {
				end = b + 1;
				continue;
			}
			for (end = b + 1; end < n &&
			     !e2sr_all_zero(buf + end * bs, bs); end++)
				;
			run.lblk = r->lblk + off + b;
			run.pblk = r->pblk + off + b;
			run.len = end - b;
			err = plan_run(&ctx->plan, &run);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Default mode: every live file of a secure-delete identity, once (its
 * record may be in the inventory through the table and the journal),
 * marked in @seen.
 */
static errcode_t plan_secure(struct e2sr_ctx *ctx, ext2fs_inode_bitmap seen,
			     unsigned char *buf, __u32 bufblocks)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_inventory *inv = &ctx->inv;
	struct e2sr_unwritten r;
	errcode_t err = 0;
	size_t i, j;

	for (i = 0; !err && i < inv->count; i++) {
		const struct e2sr_file *f = &inv->files[i];

		if (f->state != E2SR_STATE_LIVE || !LINUX_S_ISREG(f->mode) ||
		    !f->ino || f->ino > fs->super->s_inodes_count)
			continue;
		if (ext2fs_test_inode_bitmap2(seen, f->ino))
			continue;
		ext2fs_mark_inode_bitmap2(seen, f->ino);
		/* The live map only: historic runs are the cut-away's. */
		for (j = 0; !err && j < f->map_count; j++) {
			const struct e2sr_extent *e = &f->map[j];

			if (e->kind != E2SR_EXT_UNWRITTEN || e->historic)
				continue;
			r.ino = f->ino;
			r.residue_of = f->ino;
			r.lblk = e->lblk;
			r.pblk = e->pblk;
			r.len = e->len;
			if (e->lblk > ~0U)
				err = bad_extent(ctx, f->ino, e->lblk,
						 e->pblk);
			else
				err = plan_nonzero(ctx, buf, bufblocks, &r);
		}
	}
	return err;
}

/*
 * The extents of secure-delete maps whose blocks may now be under
 * another file's unwritten extent: contents (data or unwritten), in use
 * now in part at least, and not the live map of a live file, whose
 * blocks are its own.  Orphans and unclear records are e2fsck's.
 */
static int residue_extent(ext2_filsys fs, const struct e2sr_file *f,
			  const struct e2sr_extent *e)
{
	blk64_t total = ext2fs_blocks_count(fs->super);

	if (f->state == E2SR_STATE_ORPHAN || f->state == E2SR_STATE_UNCLEAR)
		return 0;
	if (e->kind != E2SR_EXT_DATA && e->kind != E2SR_EXT_UNWRITTEN)
		return 0;
	if (f->state == E2SR_STATE_LIVE && !e->historic)
		return 0;
	if (!e->len || e->pblk < fs->super->s_first_data_block ||
	    e->pblk >= total || e->len > total - e->pblk)
		return 0;
	return !ext2fs_test_block_bitmap_range2(fs->block_map, e->pblk,
						e->len);
}

/* What plan_residue works with; @hits: owners' extents over @cand. */
struct residue {
	struct e2sr_ctx		*ctx;
	ext2fs_block_bitmap	cand;
	struct e2sr_unwritten	*hits;
	size_t			count;
	size_t			alloc;
};

static errcode_t add_hit(struct residue *rs, ext2_ino_t ino, blk64_t lblk,
			 blk64_t pblk, blk64_t len)
{
	struct e2sr_unwritten *u;

	if (rs->count == rs->alloc &&
	    e2sr_array_room(&rs->hits, &rs->alloc, rs->count + 1,
			    sizeof(*rs->hits)))
		return EXT2_ET_NO_MEMORY;
	u = &rs->hits[rs->count++];
	u->ino = ino;
	u->lblk = lblk;
	u->residue_of = 0;
	u->pblk = pblk;
	u->len = len;
	return 0;
}

/*
 * The unwritten extents of live file @ino over candidate blocks, cut to
 * them.  The scan walked this tree already; one that cannot be read now
 * refuses the run.  Each node is visited at most twice.
 */
static errcode_t owner_hits(struct residue *rs, ext2_ino_t ino)
{
	ext2_filsys fs = rs->ctx->fs;
	blk64_t total = ext2fs_blocks_count(fs->super), s, end, last;
	unsigned long long steps, max_steps = 4 * total + 64;
	struct ext2fs_extent e;
	ext2_extent_handle_t h;
	errcode_t err;
	int op;

	err = ext2fs_extent_open(fs, ino, &h);
	if (err)
		return err;
	for (op = EXT2_EXTENT_ROOT, steps = 0; ; op = EXT2_EXTENT_NEXT) {
		if (++steps > max_steps) {
			err = E2SR_ERR_BAD_MAP;
			break;
		}
		err = ext2fs_extent_get(h, op, &e);
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err)
			break;
		if ((e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) ||
		    !(e.e_flags & EXT2_EXTENT_FLAGS_LEAF) ||
		    !(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) || !e.e_len)
			continue;
		if (e.e_pblk < fs->super->s_first_data_block ||
		    e.e_pblk >= total || e.e_len > total - e.e_pblk ||
		    e.e_lblk + e.e_len > (1ULL << 32)) {
			ext2fs_extent_free(h);
			return bad_extent(rs->ctx, ino, e.e_lblk, e.e_pblk);
		}
		s = e.e_pblk;
		last = e.e_pblk + e.e_len - 1;
		while (!err && e2sr_next_run(rs->cand, 1, &s, last, &end)) {
			err = add_hit(rs, ino, e.e_lblk + (s - e.e_pblk), s,
				      end - s);
			s = end;
		}
		if (err)
			break;
	}
	ext2fs_extent_free(h);
	if (err && err != EXT2_ET_NO_MEMORY && err != E2SR_ERR_CANCELLED)
		snprintf(rs->ctx->detail, sizeof(rs->ctx->detail),
			 "unwritten extents of inode %u cannot be read again",
			 ino);
	return err;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct e2sr_unwritten *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/*
 * The extent @e of secure-delete file @f against the hits, sorted by
 * block (live claims do not overlap): every block still a candidate is
 * planned once, as the old bytes of @f.
 */
static errcode_t plan_residue_extent(struct residue *rs,
				     const struct e2sr_file *f,
				     const struct e2sr_extent *e,
				     unsigned char *buf, __u32 bufblocks)
{
	blk64_t a, b, s, end, first = e->pblk, last = e->pblk + e->len - 1;
	size_t lo = 0, hi = rs->count, mid;
	struct e2sr_unwritten r;
	errcode_t err;

	/* The first hit that ends past @first. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rs->hits[mid].pblk + rs->hits[mid].len <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rs->count && rs->hits[lo].pblk <= last; lo++) {
		const struct e2sr_unwritten *h = &rs->hits[lo];

		a = h->pblk > first ? h->pblk : first;
		b = h->pblk + h->len - 1 < last ? h->pblk + h->len - 1 : last;
		for (s = a; e2sr_next_run(rs->cand, 1, &s, b, &end); s = end) {
			r.ino = h->ino;
			r.residue_of = f->ino;
			r.lblk = h->lblk + (s - h->pblk);
			r.pblk = s;
			r.len = end - s;
			err = plan_nonzero(rs->ctx, buf, bufblocks, &r);
			if (err)
				return err;
			ext2fs_unmark_block_bitmap_range2(rs->cand, s, end - s);
		}
	}
	return 0;
}

/*
 * The live files whose unwritten extents the scan passed by, their
 * records questioned (sanity.c): which extents are theirs is a guess,
 * so none is zeroed, and they are left for e2fsck.
 */
static errcode_t leave_questioned(struct e2sr_ctx *ctx)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	errcode_t err;
	size_t i;

	for (i = 0; i < inv->question_count; i++) {
		if (!(inv->questions[i].seen & E2SR_LEFT_UNWRITTEN))
			continue;
		err = e2sr_question_leave(ctx, inv->questions[i].ino,
					  inv->questions[i].why,
					  E2SR_LEFT_UNWRITTEN);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Default mode, after plan_secure: the old bytes of secure-delete maps
 * under the unwritten extents of other live files (@seen: those whose
 * unwritten extents plan_secure has taken whole).
 */
static errcode_t plan_residue(struct e2sr_ctx *ctx, ext2fs_inode_bitmap seen,
			      unsigned char *buf, __u32 bufblocks)
{
	ext2_filsys fs = ctx->fs;
	const struct e2sr_inventory *inv = &ctx->inv;
	ext2_ino_t ino, last_ino = fs->super->s_inodes_count;
	struct residue rs;
	errcode_t err = 0;
	size_t i, j;
	int any = 0;

	if (!ctx->live.unwritten_inodes)
		return 0;
	memset(&rs, 0, sizeof(rs));
	rs.ctx = ctx;
	for (i = 0; !err && i < inv->count; i++) {
		const struct e2sr_file *f = &inv->files[i];

		for (j = 0; j < f->map_count; j++) {
			const struct e2sr_extent *e = &f->map[j];

			if (!residue_extent(fs, f, e))
				continue;
			/* As sparse as the maps: rbtree. */
			if (!rs.cand) {
				err = ext2fs_alloc_generic_bmap(fs,
					EXT2_ET_MAGIC_BLOCK_BITMAP64,
					EXT2FS_BMAP64_RBTREE,
					fs->super->s_first_data_block,
					ext2fs_blocks_count(fs->super) - 1,
					ext2fs_blocks_count(fs->super) - 1,
					"secure-delete blocks in use",
					&rs.cand);
				if (err)
					break;
			}
			ext2fs_mark_block_bitmap_range2(rs.cand, e->pblk,
							e->len);
			any = 1;
		}
	}
	/* Owners the scan passed by may hold some of them: left. */
	if (!err && any)
		err = leave_questioned(ctx);
	/* Who has unwritten extents over them: one bit each from the scan. */
	for (ino = 1; !err && any && ino <= last_ino; ino++) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		if (ext2fs_find_first_set_inode_bitmap2(
				ctx->live.unwritten_inodes, ino, last_ino, &ino))
			break;
		/* Not a record questioned: its extents are a guess. */
		if (!ext2fs_test_inode_bitmap2(seen, ino) &&
		    !e2sr_questioned(ctx, ino))
			err = owner_hits(&rs, ino);
	}
	if (!err && rs.count) {
		qsort(rs.hits, rs.count, sizeof(*rs.hits), cmp_hit);
		for (i = 0; !err && i < inv->count; i++) {
			const struct e2sr_file *f = &inv->files[i];

			for (j = 0; !err && j < f->map_count; j++)
				if (residue_extent(fs, f, &f->map[j]))
					err = plan_residue_extent(&rs, f,
							&f->map[j], buf,
							bufblocks);
		}
	}
	if (rs.cand)
		ext2fs_free_block_bitmap(rs.cand);
	ext2fs_free_mem(&rs.hits);
	return err;
}

static errcode_t plan_default(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	ext2fs_inode_bitmap seen = NULL;
	unsigned char *buf = NULL;
	__u32 bufblocks = (1024 * 1024) / fs->blocksize;
	errcode_t err;

	if (!bufblocks)
		bufblocks = 1;
	if (!ctx->inv.count)
		return 0;
	err = ext2fs_allocate_inode_bitmap(fs, "secure-delete unwritten",
					   &seen);
	if (!err)
		err = ext2fs_get_mem((size_t)bufblocks * fs->blocksize, &buf);
	if (!err)
		err = plan_secure(ctx, seen, buf, bufblocks);
	if (!err)
		err = plan_residue(ctx, seen, buf, bufblocks);
	if (seen)
		ext2fs_free_inode_bitmap(seen);
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * After the rest of the plan: with --all-free every live file's
 * unwritten extents, whole (as the free space, they are wiped on every
 * such run); else those of live secure-delete files and those over
 * secure-delete files' old blocks, less what is zeros.
 */
errcode_t e2sr_unwritten_plan(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_inventory *inv = &ctx->inv;
	errcode_t err;
	size_t i;

	plan->unwritten_runs = 0;
	plan->unwritten_count = 0;
	if (!plan->free_all)
		return plan_default(ctx);
	for (i = 0; i < inv->unwritten_count; i++) {
		err = plan_run(plan, &inv->unwritten[i]);
		if (err)
			return err;
	}
	return leave_questioned(ctx);
}

/*
 * Whether the run of action @a is, right now, unwritten at the same
 * blocks in its file.
 */
static errcode_t still_unwritten(struct e2sr_ctx *ctx,
				 const struct e2sr_action *a)
{
	ext2_filsys fs = ctx->fs;
	struct ext2fs_extent ext;
	ext2_extent_handle_t h;
	blk64_t lblk = a->lblk, end = (blk64_t)a->lblk + a->count;
	errcode_t err;

	if (!ext2fs_test_inode_bitmap2(fs->inode_map, a->ino))
		return E2SR_ERR_WRITE_UNWRITTEN;
	/* Its record as it is now: flags and map that agree. */
	err = e2sr_record_check(ctx, a->ino);
	if (err)
		return err;
	err = ext2fs_extent_open(fs, a->ino, &h);
	if (err)
		return err;
	/* The run may span several leaf entries: check each. */
	while (lblk < end) {
		err = ext2fs_extent_goto(h, lblk);
		if (!err)
			err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &ext);
		if (err || !(ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT) ||
		    lblk < ext.e_lblk || lblk - ext.e_lblk >= ext.e_len ||
		    ext.e_pblk + (lblk - ext.e_lblk) !=
		    a->blk + (lblk - a->lblk)) {
			err = E2SR_ERR_WRITE_UNWRITTEN;
			break;
		}
		lblk = ext.e_lblk + ext.e_len;
	}
	ext2fs_extent_free(h);
	return err;
}

/* Before the first write: every planned run is still one to wipe. */
errcode_t e2sr_unwritten_check(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < n; i++) {
		err = still_unwritten(ctx, &a[i]);
		if (!err)
			err = e2sr_wipe_check_unwritten(ctx, a[i].blk,
							a[i].count);
		if (err) {
			snprintf(ctx->detail, sizeof(ctx->detail),
				 "inode %u, blocks %llu-%llu", a[i].ino,
				 (unsigned long long)a[i].blk,
				 (unsigned long long)(a[i].blk + a[i].count -
						      1));
			return err;
		}
	}
	return 0;
}

/* A planned unwritten run, as an action of the plan. */
void e2sr_unwritten_action(const struct e2sr_unwritten *u,
			   struct e2sr_action *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = E2SR_KIND_UNWRITTEN;
	a->why = E2SR_WHY_UNWRITTEN;
	a->owner = u->residue_of;
	a->ino = u->ino;
	a->lblk = u->lblk;
	a->blk = u->pblk;
	a->count = u->len;
}

/* Each run found again in its file's tree just before it is zeroed. */
errcode_t e2sr_unwritten_apply(struct e2sr_ctx *ctx,
			       const struct e2sr_action *a, size_t n)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < n; i++) {
		if (e2sr_cancelled(ctx))
			return E2SR_ERR_CANCELLED;
		err = still_unwritten(ctx, &a[i]);
		if (!err)
			err = e2sr_wipe_unwritten_range(ctx, a[i].blk,
							a[i].count);
		if (err)
			return err;
		e2sr_action_done(ctx, &a[i]);
		ctx->stats.wiped[E2SR_KIND_UNWRITTEN][0] += a[i].count;
		e2sr_wipe_advance(ctx, a[i].count);
	}
	return 0;
}
