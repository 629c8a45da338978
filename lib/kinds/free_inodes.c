/*
 * free_inodes.c --- --free-inodes: what every free inode record still holds.
 *
 * A free record keeps what its last owner left in it: times, owner, flags,
 * the block map, in-inode extended attributes, inline data, a symlink's
 * target.  The plan reads every group's inode table in large runs and
 * notes each free record holding any byte besides the layout
 * (i_extra_isize) and checksum fields, and the blocks that hold them.
 * Execute takes the noted records from the plan's list, reads the blocks
 * that hold them again, scrubs each (it must still be free and hold
 * residue) as scrub.c scrubs a secure-delete record (zeros,
 * i_extra_isize, a fresh checksum) and writes the blocks back.
 *
 * A record is free when its bit is clear and no live directory entry
 * names it (livemap.c): both, at planning and again at the write.
 *
 * Records past bg_itable_unused, or in a group marked INODE_UNINIT, are
 * read by neither e2fsck nor the kernel, but they are not always empty:
 * libext2fs marks a group uninit again when its last inode goes, and
 * e2fsck lowers the unused mark.  They are zeroed whole, as lazy inode
 * table init would.  Reserved inodes are never touched.
 *
 * Records are handled as they are on disk (little-endian); the only field
 * read, i_extra_isize, is converted.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find.h"
#include "write.h"
#include "kinds.h"

/* Inode table blocks per read. */
#define ITABLE_CHUNK		256

/* Bytes of a record that say how it is laid out or checksummed. */
static int layout_byte(size_t off)
{
	size_t lo = offsetof(struct ext2_inode_large,
			     osd2.linux2.l_i_checksum_lo);

	if (off >= lo && off < lo + 2)
		return 1;
	/* i_extra_isize and i_checksum_hi */
	return off >= EXT2_GOOD_OLD_INODE_SIZE &&
	       off < EXT2_GOOD_OLD_INODE_SIZE + 4;
}

static int record_residue(const unsigned char *rec, size_t isize)
{
	size_t i;

	if (e2sr_all_zero(rec, isize))
		return 0;
	for (i = 0; i < isize; i++)
		if (rec[i] && !layout_byte(i))
			return 1;
	return 0;
}

/* How many records at the start of @group's table are ever read. */
static __u32 group_used(ext2_filsys fs, dgrp_t group)
{
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 unused;

	if (!ext2fs_has_group_desc_csum(fs))
		return ipg;
	if (ext2fs_bg_flags_test(fs, group, EXT2_BG_INODE_UNINIT))
		return 0;
	unused = ext2fs_bg_itable_unused(fs, group);
	return unused > ipg ? 0 : ipg - unused;
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * What the plan holds of this kind, kept here (ctx->plan.kind_data):
 * the free records with residue, sorted, and the runs of table blocks
 * that hold them.
 */
struct free_plan {
	struct e2sr_itable_run	*itable;
	size_t			itable_runs;
	size_t			itable_alloc;
	blk64_t			itable_blocks;
	ext2_ino_t		*records;
	size_t			count;
	size_t			alloc;
};

/* This kind's plan; one of nothing when --free-inodes is not asked. */
static const struct free_plan *free_plan(const struct e2sr_ctx *ctx)
{
	static const struct free_plan none;
	const struct free_plan *fp;

	fp = ctx->plan.kind_data[E2SR_KIND_FREE_RECORDS];
	return fp ? fp : &none;
}

static void free_plan_free(void *data)
{
	struct free_plan *fp = data;

	if (!fp)
		return;
	ext2fs_free_mem(&fp->itable);
	ext2fs_free_mem(&fp->records);
	ext2fs_free_mem(&fp);
}

enum scrub_mode {
	SCRUB_PLAN,	/* note each record, skipping the +s ones */
	SCRUB_VERIFY,	/* scrub any, to see whether any is left */
};

static errcode_t note_record(struct free_plan *fp, ext2_ino_t ino)
{
	if (fp->count == fp->alloc &&
	    e2sr_array_room(&fp->records, &fp->alloc, fp->count + 1,
			    sizeof(*fp->records)))
		return EXT2_ET_NO_MEMORY;
	fp->records[fp->count++] = ino;
	return 0;
}

/* A free record of the plan, as an action. */
static void free_record_action(ext2_ino_t ino, struct e2sr_action *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = E2SR_KIND_FREE_RECORDS;
	a->why = E2SR_WHY_FREE_RECORD;
	a->ino = ino;
	a->count = 1;
}

/*
 * Scrub free record @ino, at @idx of its group's table, in place, as
 * libext2fs writes a free record: zeros, and where the record is ever
 * read (@idx below @used), its layout and a fresh checksum.
 */
static void scrub_one(ext2_filsys fs, ext2_ino_t ino, __u32 idx, __u32 used,
		      struct ext2_inode_large *rec)
{
	size_t isize = EXT2_INODE_SIZE(fs->super);
	__u16 extra = 0;

	if (idx < used && isize > EXT2_GOOD_OLD_INODE_SIZE) {
		extra = ext2fs_le16_to_cpu(rec->i_extra_isize);
		if (extra & 3 || extra > isize - EXT2_GOOD_OLD_INODE_SIZE)
			extra = 0;
	}
	memset(rec, 0, isize);
	if (idx < used) {
		if (isize > EXT2_GOOD_OLD_INODE_SIZE)
			rec->i_extra_isize = ext2fs_cpu_to_le16(extra);
		ext2fs_inode_csum_set(fs, ino, rec);
	}
}

/*
 * Scrub, in place, the free records of @n table blocks of @group read
 * into @buf starting at table block @off.  Planning, each is noted in
 * the plan, but for those the plan scrubs as secure-delete records.
 * *@count says how many records were changed; @changed[b] says which
 * blocks.
 */
static errcode_t scrub_blocks(struct e2sr_ctx *ctx, dgrp_t group,
			      blk64_t off, blk64_t n, unsigned char *buf,
			      unsigned char *changed, enum scrub_mode mode,
			      size_t *count)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_plan *plan = &ctx->plan;
	struct free_plan *fp = plan->kind_data[E2SR_KIND_FREE_RECORDS];
	size_t isize = EXT2_INODE_SIZE(fs->super);
	__u32 per_block = fs->blocksize / isize;
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 used = group_used(fs, group), idx, i;
	struct ext2_inode_large *rec, *cpu;
	enum e2sr_question why;
	ext2_ino_t ino;
	errcode_t err;
	blk64_t b;

	*count = 0;
	err = ext2fs_get_mem(isize, &cpu);
	if (err)
		return err;
	for (b = 0; b < n; b++) {
		changed[b] = 0;
		for (i = 0; i < per_block; i++) {
			idx = (off + b) * per_block + i;
			ino = group * ipg + idx + 1;
			if (idx >= ipg || !e2sr_record_free(ctx, ino))
				continue;
			rec = (struct ext2_inode_large *)
			      (buf + (b * per_block + i) * isize);
			if (!record_residue((unsigned char *)rec, isize))
				continue;
			if (mode == SCRUB_PLAN && plan->inode_count &&
			    bsearch(&ino, plan->inodes, plan->inode_count,
				    sizeof(ino), cmp_ino))
				continue;
			/*
			 * Flags or maps that contradict each other, as
			 * e2fsck's pass 1 asks of a record with links,
			 * whatever its bit: e2fsck decides, not a guess
			 * here (sanity.c; a record with no links is asked
			 * nothing, by pass 1 or here).
			 */
			why = e2sr_raw_record_contradicts(fs, ino, rec, cpu);
			if (why) {
				err = mode == SCRUB_PLAN ?
				      e2sr_question_leave(ctx, ino, why,
							  E2SR_LEFT_RECORD) :
				      0;
				if (err)
					goto out;
				continue;
			}
			if (mode == SCRUB_PLAN) {
				err = note_record(fp, ino);
				if (err)
					goto out;
			}
			scrub_one(fs, ino, idx, used, rec);
			changed[b] = 1;
			(*count)++;
		}
	}
out:
	ext2fs_free_mem(&cpu);
	return err;
}

static errcode_t add_run(struct free_plan *fp, dgrp_t group, blk64_t blk)
{
	struct e2sr_itable_run *r;

	if (fp->itable_runs) {
		r = &fp->itable[fp->itable_runs - 1];
		if (r->group == group && r->blk + r->count == blk &&
		    r->count < ITABLE_CHUNK) {
			r->count++;
			fp->itable_blocks++;
			return 0;
		}
	}
	if (fp->itable_runs == fp->itable_alloc &&
	    e2sr_array_room(&fp->itable, &fp->itable_alloc,
			    fp->itable_runs + 1, sizeof(*fp->itable)))
		return EXT2_ET_NO_MEMORY;
	r = &fp->itable[fp->itable_runs++];
	r->group = group;
	r->blk = blk;
	r->count = 1;
	fp->itable_blocks++;
	return 0;
}

/*
 * Note the blocks of @group's table with residue, in a scratch copy.
 * Records the plan already scrubs as secure-delete files are theirs and
 * not counted here.
 */
static errcode_t plan_group(struct e2sr_ctx *ctx, dgrp_t group,
			    unsigned char *buf, unsigned char *changed)
{
	ext2_filsys fs = ctx->fs;
	struct free_plan *fp = ctx->plan.kind_data[E2SR_KIND_FREE_RECORDS];
	blk64_t table, off, n, b;
	errcode_t err;
	size_t found;

	err = e2sr_group_table(fs, group, &table);
	if (err)
		return err;
	for (off = 0; off < fs->inode_blocks_per_group; off += n) {
		n = fs->inode_blocks_per_group - off;
		if (n > ITABLE_CHUNK)
			n = ITABLE_CHUNK;
		err = io_channel_read_blk64(fs->io, table + off, n, buf);
		if (err)
			return err;
		err = scrub_blocks(ctx, group, off, n, buf, changed,
				   SCRUB_PLAN, &found);
		if (err)
			return err;
		if (!found)
			continue;
		for (b = 0; b < n; b++) {
			if (!changed[b])
				continue;
			err = add_run(fp, group, table + off + b);
			if (err)
				return err;
		}
	}
	return 0;
}

static errcode_t chunk_buffers(ext2_filsys fs, unsigned char **buf,
			       unsigned char **changed)
{
	errcode_t err;

	err = ext2fs_get_array(ITABLE_CHUNK, fs->blocksize, buf);
	if (err)
		return err;
	err = ext2fs_get_mem(ITABLE_CHUNK, changed);
	if (err)
		ext2fs_free_mem(buf);
	return err;
}

static errcode_t free_records_plan(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct e2sr_plan *plan = &ctx->plan;
	unsigned char *buf, *changed;
	errcode_t err = 0;
	dgrp_t group;

	if (!(ctx->opts.sanitize & E2SR_FREE_INODES))
		return 0;
	err = e2sr_livemap_free_proven(ctx);
	if (err)
		return err;
	free_plan_free(plan->kind_data[E2SR_KIND_FREE_RECORDS]);
	plan->kind_data[E2SR_KIND_FREE_RECORDS] = NULL;
	err = ext2fs_get_memzero(sizeof(struct free_plan),
				 &plan->kind_data[E2SR_KIND_FREE_RECORDS]);
	if (err)
		return err;
	/* No records to scrub: plan->inodes is NULL, which qsort may not take. */
	if (plan->inode_count)
		qsort(plan->inodes, plan->inode_count, sizeof(*plan->inodes),
		      cmp_ino);
	err = chunk_buffers(fs, &buf, &changed);
	if (err)
		return err;
	for (group = 0; group < fs->group_desc_count; group++) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = plan_group(ctx, group, buf, changed);
		if (err)
			break;
		e2sr_progress(ctx, E2SR_STAGE_SCAN_ITABLES, group + 1ULL,
			      fs->group_desc_count);
	}
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&changed);
	return err;
}

/*
 * The table blocks that hold the records of @a[0..n) from the first on:
 * one group's, at most ITABLE_CHUNK of them, from table block *@first,
 * *@count of them.  Returns how many of the actions they hold.
 */
static size_t record_run(ext2_filsys fs, const struct e2sr_action *a,
			 size_t n, dgrp_t *group, blk64_t *first,
			 blk64_t *count)
{
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 per_block = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	blk64_t off, last;
	size_t i;

	*group = (a[0].ino - 1) / ipg;
	*first = last = ((a[0].ino - 1) % ipg) / per_block;
	for (i = 1; i < n; i++) {
		off = ((a[i].ino - 1) % ipg) / per_block;
		if ((a[i].ino - 1) / ipg != *group || off < last ||
		    off - *first >= ITABLE_CHUNK)
			break;
		last = off;
	}
	*count = last - *first + 1;
	return i;
}

/* A planned record is one that may be scrubbed, as at planning. */
static errcode_t record_ok(struct e2sr_ctx *ctx, const struct e2sr_action *a)
{
	ext2_filsys fs = ctx->fs;

	if (a->ino < EXT2_FIRST_INODE(fs->super) ||
	    a->ino > fs->super->s_inodes_count) {
		snprintf(ctx->detail, sizeof(ctx->detail), "inode %u", a->ino);
		return EXT2_ET_BAD_INODE_NUM;
	}
	if (!e2sr_record_free(ctx, a->ino)) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "free inode %u: in use now", a->ino);
		return E2SR_ERR_CHANGED;
	}
	return 0;
}

/* Before the first write: every record, and the blocks that hold them. */
static errcode_t free_records_check(struct e2sr_ctx *ctx,
				    const struct e2sr_action *a, size_t n)
{
	blk64_t table, first, count;
	errcode_t err;
	dgrp_t group;
	size_t i, end, k;

	for (i = 0; i < n; i = end) {
		end = i + record_run(ctx->fs, a + i, n - i, &group, &first,
				     &count);
		for (k = i; k < end; k++) {
			err = record_ok(ctx, &a[k]);
			if (err)
				return err;
		}
		err = e2sr_group_table(ctx->fs, group, &table);
		if (!err)
			err = e2sr_wipe_check_itable(ctx, group, table + first,
						     count, 0);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The records of @a[0..n), run of table blocks by run: each checked
 * again, read, scrubbed (it must still hold residue), and the blocks
 * that changed written back.
 */
static errcode_t free_records_apply(struct e2sr_ctx *ctx,
				    const struct e2sr_action *a, size_t n)
{
	ext2_filsys fs = ctx->fs;
	size_t isize = EXT2_INODE_SIZE(fs->super);
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 per_block = fs->blocksize / isize, idx;
	blk64_t *wiped = ctx->stats.wiped[E2SR_KIND_FREE_RECORDS];
	unsigned char *buf, *changed, *rec;
	struct ext2_inode_large *cpu = NULL;
	blk64_t table, first, count, b, e;
	size_t i, end, k;
	dgrp_t group;
	errcode_t err;

	err = chunk_buffers(fs, &buf, &changed);
	if (err)
		return err;
	err = ext2fs_get_mem(isize, &cpu);
	for (i = 0; !err && i < n; i = end) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		end = i + record_run(fs, a + i, n - i, &group, &first, &count);
		err = e2sr_group_table(fs, group, &table);
		if (!err)
			err = e2sr_wipe_check_itable(ctx, group, table + first,
						     count, 1);
		if (!err)
			err = io_channel_read_blk64(fs->io, table + first,
						    count, buf);
		if (err)
			break;
		memset(changed, 0, count);
		for (k = i; !err && k < end; k++) {
			idx = (a[k].ino - 1) % ipg;
			b = idx / per_block - first;
			rec = buf + (b * per_block + idx % per_block) * isize;
			err = record_ok(ctx, &a[k]);
			if (!err && !record_residue(rec, isize)) {
				snprintf(ctx->detail, sizeof(ctx->detail),
					 "free inode %u: no longer as planned",
					 a[k].ino);
				err = E2SR_ERR_CHANGED;
			}
			if (!err && e2sr_raw_record_contradicts(fs, a[k].ino,
								rec, cpu)) {
				snprintf(ctx->detail, sizeof(ctx->detail),
					 "free inode %u", a[k].ino);
				err = E2SR_ERR_QUESTIONED;
			}
			if (err)
				break;
			scrub_one(fs, a[k].ino, idx, group_used(fs, group),
				  (struct ext2_inode_large *)rec);
			changed[b] = 1;
		}
		for (b = 0; !err && b < count; b = e) {
			e = b + 1;
			if (!changed[b])
				continue;
			while (e < count && changed[e])
				e++;
			ctx->stats.write_calls++;
			err = io_channel_write_blk64(fs->io, table + first + b,
						     e - b,
						     buf + b * fs->blocksize);
			if (!err)
				wiped[1] += e - b;
		}
		if (err)
			break;
		for (k = i; k < end; k++)
			e2sr_action_done(ctx, &a[k]);
		wiped[0] += end - i;
		e2sr_wipe_advance(ctx, end - i);
	}
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&changed);
	ext2fs_free_mem(&cpu);
	/* The records libext2fs may remember are the ones just replaced. */
	ext2fs_flush_icache(fs);
	return err;
}

/* --verify: the rewritten blocks hold no free record with residue. */
static errcode_t free_records_verify(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	const struct free_plan *fp = free_plan(ctx);
	unsigned char *buf, *changed;
	blk64_t table, b;
	errcode_t err;
	size_t i, n;

	if (!fp->itable_runs)
		return 0;
	err = chunk_buffers(fs, &buf, &changed);
	if (err)
		return err;
	for (i = 0; !err && i < fp->itable_runs; i++) {
		const struct e2sr_itable_run *r = &fp->itable[i];

		err = e2sr_group_table(fs, r->group, &table);
		if (!err)
			err = io_channel_read_blk64(fs->io, r->blk, r->count,
						    buf);
		if (!err)
			err = scrub_blocks(ctx, r->group, r->blk - table,
					   r->count, buf, changed,
					   SCRUB_VERIFY, &n);
		if (err)
			break;
		for (b = 0; b < r->count; b++)
			if (changed[b])
				e2sr_verify_bad(ctx, E2SR_KIND_FREE_RECORDS,
						r->blk + b);
		e2sr_verify_read(ctx, E2SR_KIND_FREE_RECORDS, r->count);
	}
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&changed);
	return err;
}

static int free_records_shown(const struct e2sr_ctx *ctx)
{
	return !!(ctx->opts.sanitize & E2SR_FREE_INODES);
}

static void free_records_planned(const struct e2sr_ctx *ctx, uint64_t n[2])
{
	n[0] = free_plan(ctx)->count;
	n[1] = free_plan(ctx)->itable_blocks;
}

static void free_records_actions(const struct e2sr_ctx *ctx,
				 e2sr_action_fn fn, void *data)
{
	const struct free_plan *fp = free_plan(ctx);
	struct e2sr_action a;
	size_t i;

	for (i = 0; i < fp->count; i++) {
		free_record_action(fp->records[i], &a);
		fn(data, &a);
	}
}

/*
 * The kind, whole: its row of the table of kinds (kinds.c) points here.
 * Planned after the secure-delete records, which it leaves to them.
 */
const struct e2sr_kind e2sr_kind_free_records = {
	.count = { { "free_inode_records", "free inode records",
		     "free inode records", "records" },
		   { "inode_table_blocks", NULL,
		     "inode table blocks", "blocks" } },
	.phase = 3,
	.shown = free_records_shown,
	.plan = free_records_plan,
	.plan_free = free_plan_free,
	.planned = free_records_planned,
	.actions = free_records_actions,
	.stage = E2SR_STAGE_FREE_INODES,
	.check = free_records_check,
	.apply = free_records_apply,
	.verify = free_records_verify,
};
