/*
 * since.c --- whether this run may read only what changed since the last
 * one, which records it reads, and what it keeps for the next.
 *
 * doc/incremental.md is the proof this file makes, test by test.  The
 * last run kept (struct e2sr_since_state, in the command's state files)
 * the superblock's counters and a crc of its fixed fields, a crc of every
 * group's descriptor and bitmaps, every record that carries the flag,
 * every directory with bytes past its entries and the maps of the live
 * secure-delete files.  A run is incremental when every change since can
 * be shown to be the kernel's, through the log: the geometry, the fixed
 * fields and the journal are the same, nobody checked or wrote the
 * filesystem offline, the log still reaches back to the last run,
 * orphans were released through it, and each group whose descriptor or
 * bitmaps differ has its newest logged copies since the last run equal
 * to what is on the disk.  The first test that fails is the reason the
 * run is a full one, kept as data for the command to say.
 *
 * Incremental, the live pass (inventory_since.c) reads the inode table
 * blocks listed here, those logged since the last run, and the inodes
 * the fast-commit area names; the other records are as the last run saw
 * them: of them it rereads only those the last run kept, and the live
 * set takes the bitmaps' word for the maps of the rest (livemap.c).  Of
 * the journal's log, only what the kernel wrote since is read when the
 * superblock tests pass (super_ok), the rest taken from the ring facts
 * the last run kept (ring_since.c).  The maps of the live secure-delete
 * files are kept_maps.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "find_int.h"

#define DAY_SECONDS	86400ULL

static int tid_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

void e2sr_since_state_free(struct e2sr_since_state *st)
{
	ext2fs_free_mem(&st->groups);
	ext2fs_free_mem(&st->secure);
	ext2fs_free_mem(&st->dirs);
	ext2fs_free_mem(&st->recs);
	ext2fs_free_mem(&st->kept);
	ext2fs_free_mem(&st->kept_ext);
	memset(st, 0, sizeof(*st));
}

void e2sr_since_free(struct e2sr_since *s)
{
	e2sr_rf_free(&s->ring_prev);
	e2sr_rf_free(&s->ring_next);
	ext2fs_free_mem(&s->ring_fresh_map);
	e2sr_since_state_free(&s->prev);
	e2sr_since_state_free(&s->next);
	ext2fs_free_mem(&s->logged);
	ext2fs_free_mem(&s->named);
}

/*
 * The superblock with what the kernel changes at a mount, a commit or a
 * handle cleared: what is left only tune2fs, resize2fs or e2fsck write.
 * @raw is the superblock as on the disk (little-endian).
 */
static __u32 sb_fixed_crc(const void *raw)
{
	struct ext2_super_block sb;

	memcpy(&sb, raw, sizeof(sb));
	sb.s_free_blocks_count = 0;
	sb.s_free_blocks_hi = 0;
	sb.s_free_inodes_count = 0;
	sb.s_mtime = sb.s_wtime = sb.s_lastcheck = 0;
	sb.s_mtime_hi = sb.s_wtime_hi = sb.s_lastcheck_hi = 0;
	sb.s_mnt_count = 0;
	sb.s_state = 0;
	sb.s_last_orphan = 0;
	sb.s_kbytes_written = 0;
	sb.s_feature_incompat &= ext2fs_cpu_to_le32(
					~EXT3_FEATURE_INCOMPAT_RECOVER);
	sb.s_feature_ro_compat &= ext2fs_cpu_to_le32(
					~EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT);
	/* The kernel's error record and the path of the last mount. */
	memset(&sb.s_error_count, 0,
	       offsetof(struct ext2_super_block, s_mount_opts) -
	       offsetof(struct ext2_super_block, s_error_count));
	sb.s_first_error_time_hi = sb.s_last_error_time_hi = 0;
	sb.s_first_error_errcode = sb.s_last_error_errcode = 0;
	memset(sb.s_last_mounted, 0, sizeof(sb.s_last_mounted));
	sb.s_checksum = 0;
	return e2sr_crc32c_le(~0U, &sb, sizeof(sb));
}

/* The log's identity: the same journal, at the same place and size. */
static __u32 journal_crc(const struct e2sr_ctx *ctx)
{
	const struct e2sr_jsb *jsb;
	__u32 v[5];

	if (!ctx->journal)
		return 0;
	jsb = &ctx->journal->jsb;
	v[0] = jsb->blocksize;
	v[1] = jsb->maxlen;
	v[2] = jsb->first;
	v[3] = jsb->nr_users;
	v[4] = jsb->fc_blocks;
	return e2sr_crc32c_le(e2sr_crc32c_le(~0U, v, sizeof(v)), jsb->uuid,
			      sizeof(jsb->uuid));
}

static void sb_print(const struct e2sr_ctx *ctx, struct e2sr_sb_print *p)
{
	struct ext2_super_block *sb = ctx->fs->super;

	memset(p, 0, sizeof(*p));
	p->blocks = ext2fs_blocks_count(sb);
	p->inodes = sb->s_inodes_count;
	p->groups = ctx->fs->group_desc_count;
	p->kbytes_written = sb->s_kbytes_written;
	p->mtime = (__u64)sb->s_mtime | (__u64)sb->s_mtime_hi << 32;
	p->wtime = (__u64)sb->s_wtime | (__u64)sb->s_wtime_hi << 32;
	p->lastcheck = (__u64)sb->s_lastcheck |
		       (__u64)sb->s_lastcheck_hi << 32;
	p->mnt_count = sb->s_mnt_count;
	p->last_orphan = sb->s_last_orphan;
	p->fixed = sb_fixed_crc(sb);
	p->journal = journal_crc(ctx);
}

/* Group @g as it is now: its descriptor and both bitmaps. */
static errcode_t group_print(ext2_filsys fs, dgrp_t g, void *buf,
			     struct e2sr_group_print *p)
{
	blk64_t first = ext2fs_group_first_block2(fs, g);
	__u32 bits = ext2fs_group_blocks_count(fs, g);
	__u32 ipg = fs->super->s_inodes_per_group;
	errcode_t err;

	p->desc = e2sr_crc32c_le(~0U, ext2fs_group_desc(fs, fs->group_desc, g),
				 EXT2_DESC_SIZE(fs->super));
	p->flags = ext2fs_bg_flags(fs, g);
	err = ext2fs_get_block_bitmap_range2(fs->block_map,
			EXT2FS_B2C(fs, first), EXT2FS_NUM_B2C(fs, bits), buf);
	if (err)
		return err;
	p->bbitmap = e2sr_crc32c_le(~0U, buf,
				    (EXT2FS_NUM_B2C(fs, bits) + 7) / 8);
	err = ext2fs_get_inode_bitmap_range2(fs->inode_map,
					     (__u64)g * ipg + 1, ipg, buf);
	if (err)
		return err;
	p->ibitmap = e2sr_crc32c_le(~0U, buf, (ipg + 7) / 8);
	return 0;
}

static errcode_t groups_print(ext2_filsys fs, struct e2sr_group_print **ret)
{
	struct e2sr_group_print *p;
	size_t len = EXT2_CLUSTERS_PER_GROUP(fs->super);
	void *buf;
	errcode_t err;
	dgrp_t g;

	if (len < fs->super->s_inodes_per_group)
		len = fs->super->s_inodes_per_group;
	err = ext2fs_get_array(fs->group_desc_count, sizeof(*p), &p);
	if (err)
		return err;
	err = ext2fs_get_memzero(len / 8 + 8, &buf);
	if (err) {
		ext2fs_free_mem(&p);
		return err;
	}
	for (g = 0; !err && g < fs->group_desc_count; g++)
		err = group_print(fs, g, buf, &p[g]);
	ext2fs_free_mem(&buf);
	if (err) {
		ext2fs_free_mem(&p);
		return err;
	}
	*ret = p;
	return 0;
}

/*
 * The filesystem as this run leaves it, for the next: called before the
 * handle is let go (e2sr_close), or by the command when nothing was
 * written.  Without memory for it the next run is a full one.
 */
void e2sr_since_capture_fs(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;

	if (s->have_fs || !ctx->fs || !ctx->fs->block_map ||
	    !ctx->fs->inode_map)
		return;
	sb_print(ctx, &s->next.sb);
	if (groups_print(ctx->fs, &s->next.groups))
		return;
	if (s->incremental) {
		s->next.full_time = s->prev.full_time;
		s->next.full_tid = s->prev.full_tid;
	} else {
		s->next.full_time = s->now ? s->now : (__u64)time(NULL);
		s->next.full_tid = ctx->coverage.have_log ?
				   ctx->coverage.newest : 0;
	}
	s->have_fs = 1;
}

static int cmp_secure(const void *a, const void *b)
{
	const struct e2sr_secure *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * The directories with residue, in inode order, in @out if not NULL:
 * how many.
 */
static size_t residue_dirs(const struct e2sr_ctx *ctx, ext2_ino_t *out)
{
	ext2_ino_t ino = 1, end, last = ctx->fs->super->s_inodes_count;
	size_t k = 0;

	while (e2sr_next_inode_run(ctx->live.residue_dirs, &ino, last, &end))
		for (; ino < end; ino++, k++)
			if (out)
				out[k] = ino;
	return k;
}

/* Where @ino is in @st's secure[] (sorted), or secure_count. */
size_t e2sr_since_secure_find(const struct e2sr_since_state *st,
			      ext2_ino_t ino)
{
	size_t lo = 0, hi = st->secure_count, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (st->secure[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->secure_count && st->secure[lo].ino == ino ?
	       lo : st->secure_count;
}

/*
 * The record of each live file of @n's secure[] as the live pass took it
 * (live_records.c), for the next run to take where it proves the table
 * block unchanged; zeros for the others.  Only a live file's: a run
 * writes no live record, but it scrubs deleted ones (and releases
 * orphans) after this, in place, where no log shows it.
 */
static errcode_t note_records(struct e2sr_ctx *ctx,
			      struct e2sr_since_state *n)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	__u32 size = inv->recs.size;
	const unsigned char *p;
	size_t i, k;
	errcode_t err;

	ext2fs_free_mem(&n->recs);
	n->rec_size = 0;
	if (!n->secure_count || !size)
		return 0;
	err = ext2fs_get_arrayzero(n->secure_count, size, &n->recs);
	if (err)
		return err;
	for (i = 0; i < inv->count; i++) {
		if (inv->files[i].state != E2SR_STATE_LIVE)
			continue;
		p = e2sr_live_rec_raw(ctx, inv->files[i].ino);
		k = e2sr_since_secure_find(n, inv->files[i].ino);
		if (p && k < n->secure_count)
			memcpy(n->recs + k * size, p, size);
	}
	n->rec_size = size;
	return 0;
}

/*
 * After the live pass: the records that carry the flag (with the first
 * directory seen naming each, and the record itself) and the
 * directories with residue, as the next run will reread them; and
 * whether anything was questioned.
 */
errcode_t e2sr_since_note_files(struct e2sr_ctx *ctx)
{
	struct e2sr_since_state *n = &ctx->since.next;
	const struct e2sr_inventory *inv = &ctx->inv;
	size_t i, k = 0;
	errcode_t err;

	ext2fs_free_mem(&n->secure);
	ext2fs_free_mem(&n->dirs);
	n->secure_count = n->dir_count = 0;
	if (inv->count) {
		err = ext2fs_get_array(inv->count, sizeof(*n->secure),
				       &n->secure);
		if (err)
			return err;
	}
	for (i = 0; i < inv->count; i++) {
		n->secure[i].ino = inv->files[i].ino;
		n->secure[i].parent = inv->files[i].parent;
	}
	n->secure_count = inv->count;
	/* In inode order: the tails' records came after the scan's. */
	if (n->secure_count)
		qsort(n->secure, n->secure_count, sizeof(*n->secure),
		      cmp_secure);
	err = note_records(ctx, n);
	if (err)
		return err;
	if (ctx->live.residue_dirs)
		k = residue_dirs(ctx, NULL);
	if (k) {
		err = ext2fs_get_array(k, sizeof(*n->dirs), &n->dirs);
		if (err)
			return err;
		residue_dirs(ctx, n->dirs);
	}
	n->dir_count = k;
	err = e2sr_kept_note(ctx);
	if (err)
		return err;
	n->questions = (__u32)inv->question_count;
	n->linked_free = ctx->live.linked_free;
	ctx->since.have_files = 1;
	return 0;
}


/* The newest committed copy of @blk logged after the last run. */
const struct e2sr_version *e2sr_since_newest(const struct e2sr_ctx *ctx,
					     blk64_t blk)
{
	const struct e2sr_version *v, *best = NULL;
	size_t n, i;

	v = e2sr_history_versions(&ctx->history, blk, &n);
	for (i = 0; v && i < n; i++) {
		if (!v[i].committed ||
		    !tid_after(v[i].sequence, ctx->coverage.prev.tid))
			continue;
		if (!best || tid_after(v[i].sequence, best->sequence))
			best = &v[i];
	}
	return best;
}

/*
 * Whether any copy of @blk was logged after the last run, committed or
 * not: a block with none is as the last run saw it, when the proof holds.
 */
int e2sr_since_logged(const struct e2sr_ctx *ctx, blk64_t blk)
{
	const struct e2sr_version *v;
	size_t n, i;

	v = e2sr_history_versions(&ctx->history, blk, &n);
	for (i = 0; v && i < n; i++)
		if (tid_after(v[i].sequence, ctx->coverage.prev.tid))
			return 1;
	return 0;
}

/* A logged copy as the block was: an escaped copy gets its magic back. */
errcode_t e2sr_since_read_copy(struct e2sr_ctx *ctx,
			       const struct e2sr_version *v,
			       unsigned char *buf)
{
	errcode_t err;

	err = e2sr_journal_read(ctx->journal, v->jblock, 1, buf);
	if (err)
		return err;
	if (v->escaped) {
		buf[0] = 0xc0;
		buf[1] = 0x3b;
		buf[2] = 0x39;
		buf[3] = 0x98;
	}
	return 0;
}

/*
 * Whether @blk's newest copy logged since the last run reads as the block
 * on the disk, from @off for @len bytes: the log explains the change.
 * @buf: room for two blocks, the caller's.
 */
static errcode_t explained(struct e2sr_ctx *ctx, blk64_t blk,
			   unsigned int off, unsigned int len,
			   unsigned char *buf, int *yes)
{
	const struct e2sr_version *v = e2sr_since_newest(ctx, blk);
	unsigned char *copy = buf, *disk = buf + ctx->fs->blocksize;
	errcode_t err;

	*yes = 0;
	if (!v || !blk)
		return 0;
	err = e2sr_since_read_copy(ctx, v, copy);
	if (!err)
		err = io_channel_read_blk64(ctx->fs->io, blk, 1, disk);
	if (!err)
		*yes = !memcmp(copy + off, disk + off, len);
	return err;
}

/* The block of the descriptor table holding group @g's, and where. */
static blk64_t desc_block(ext2_filsys fs, dgrp_t g, unsigned int *off)
{
	unsigned int per = fs->blocksize / EXT2_DESC_SIZE(fs->super);

	*off = (g % per) * EXT2_DESC_SIZE(fs->super);
	return ext2fs_descriptor_block_loc2(fs, fs->super->s_first_data_block,
					    g / per);
}

static int fail(struct e2sr_since *s, enum e2sr_since_why why, __u32 arg)
{
	s->why = why;
	s->why_arg = arg;
	return 1;
}

/*
 * Tests 1 to 4 and 6 of doc/incremental.md, on what the state says and
 * the superblock: 1 if one failed (s->why says which).
 */
static int super_tests(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	const struct e2sr_since_state *p = &s->prev;
	struct e2sr_sb_print now;
	ext2_filsys fs = ctx->fs;

	if (s->force_full)
		return fail(s, E2SR_FULL_ASKED, 0);
	if (s->preset)
		return fail(s, s->preset, 0);
	if (!s->have_prev)
		return fail(s, E2SR_FULL_NO_STATE, 0);
	/* Before the companion: a run that left losses keeps none. */
	if (ctx->coverage.have_prev && ctx->coverage.prev.unanswered)
		return fail(s, E2SR_FULL_NOT_CLEAN, 0);
	if (!p->groups || !p->full_time)
		return fail(s, E2SR_FULL_STATE_OLD, 0);
	if (p->questions || p->linked_free || p->left)
		return fail(s, E2SR_FULL_NOT_CLEAN, 0);
	if (ctx->prior_count)
		return fail(s, E2SR_FULL_INTENT, 0);
	if (ctx->opts.sanitize & ~E2SR_FREE_IF_LOST)
		return fail(s, E2SR_FULL_MODE, 0);
	if (!ctx->journal)
		return fail(s, E2SR_FULL_NO_JOURNAL, 0);
	if (ext2fs_has_feature_ea_inode(fs->super))
		return fail(s, E2SR_FULL_FEATURE, 0);
	if (!(s->trust & E2SR_TRUST_AGE) &&
	    (!s->full_days || s->now < p->full_time ||
	     s->now - p->full_time >= s->full_days * DAY_SECONDS))
		return fail(s, E2SR_FULL_AGE, s->full_days);
	sb_print(ctx, &now);
	if (now.blocks != p->sb.blocks || now.inodes != p->sb.inodes ||
	    now.groups != p->sb.groups)
		return fail(s, E2SR_FULL_RESIZED, 0);
	if (!(s->trust & E2SR_TRUST_CHECKED) &&
	    (now.lastcheck != p->sb.lastcheck ||
	     now.mnt_count < p->sb.mnt_count))
		return fail(s, E2SR_FULL_CHECKED, 0);
	if (!(s->trust & E2SR_TRUST_OFFLINE) &&
	    (now.wtime < p->sb.wtime ||
	     now.kbytes_written < p->sb.kbytes_written))
		return fail(s, E2SR_FULL_COPY, 0);
	if (!(s->trust & E2SR_TRUST_OFFLINE) &&
	    now.mnt_count == p->sb.mnt_count && now.mtime == p->sb.mtime &&
	    (now.wtime != p->sb.wtime ||
	     now.kbytes_written != p->sb.kbytes_written))
		return fail(s, E2SR_FULL_OFFLINE, 0);
	if (!(s->trust & E2SR_TRUST_JOURNAL) && now.journal != p->sb.journal)
		return fail(s, E2SR_FULL_JOURNAL, 0);
	return 0;
}

/*
 * Tests 3 (the part the log explains), 5 and 7: the fixed fields and the
 * orphan list either as the last run left them or as the newest copy of
 * the superblock logged since.
 */
static errcode_t log_tests(struct e2sr_ctx *ctx, int *failed)
{
	struct e2sr_since *s = &ctx->since;
	const struct e2sr_since_state *p = &s->prev;
	ext2_filsys fs = ctx->fs;
	blk64_t sbblk = fs->blocksize == 1024 ? 1 : 0;
	unsigned int off = fs->blocksize == 1024 ? 0 : 1024;
	const struct e2sr_version *v;
	struct ext2_super_block logged;
	unsigned char *buf;
	__u32 fixed = sb_fixed_crc(fs->super);
	errcode_t err;

	*failed = 0;
	if (!(s->trust & E2SR_TRUST_JOURNAL) &&
	    ctx->coverage.how != E2SR_COVER_PREVIOUS &&
	    ctx->coverage.how != E2SR_COVER_CREATION) {
		*failed = fail(s, E2SR_FULL_WRAPPED, 0);
		return 0;
	}
	v = e2sr_since_newest(ctx, sbblk);
	if (!v) {
		if (!(s->trust & E2SR_TRUST_SUPER) && fixed != p->sb.fixed)
			*failed = fail(s, E2SR_FULL_SUPER, 0);
		else if (!(s->trust & E2SR_TRUST_ORPHANS) &&
			 fs->super->s_last_orphan != p->sb.last_orphan)
			*failed = fail(s, E2SR_FULL_ORPHANS, 0);
		return 0;
	}
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	err = e2sr_since_read_copy(ctx, v, buf);
	if (!err) {
		memcpy(&logged, buf + off, sizeof(logged));
		if (!(s->trust & E2SR_TRUST_SUPER) &&
		    fixed != p->sb.fixed && fixed != sb_fixed_crc(&logged))
			*failed = fail(s, E2SR_FULL_SUPER, 0);
		else if (!(s->trust & E2SR_TRUST_ORPHANS) &&
			 fs->super->s_last_orphan !=
			 ext2fs_le32_to_cpu(logged.s_last_orphan))
			*failed = fail(s, E2SR_FULL_ORPHANS, 0);
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * Test 8: each group either as the last run left it, or changed only as
 * its copies logged since say, and then read.  The first group that is
 * neither is the reason.
 */
static errcode_t group_tests(struct e2sr_ctx *ctx, int *failed)
{
	struct e2sr_since *s = &ctx->since;
	const struct e2sr_group_print *was = s->prev.groups;
	struct e2sr_group_print *now = NULL;
	ext2_filsys fs = ctx->fs;
	unsigned int off = 0, ipb = EXT2_CLUSTERS_PER_GROUP(fs->super) / 8;
	unsigned char *buf = NULL;
	int yes;
	errcode_t err;
	dgrp_t g;

	*failed = 0;
	err = groups_print(fs, &now);
	if (!err)
		err = ext2fs_get_array(2, fs->blocksize, &buf);
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		if (!memcmp(&now[g], &was[g], sizeof(now[g])))
			continue;
		err = explained(ctx, desc_block(fs, g, &off), off,
				EXT2_DESC_SIZE(fs->super), buf, &yes);
		if (!err && yes && now[g].bbitmap != was[g].bbitmap &&
		    !ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT))
			err = explained(ctx, ext2fs_block_bitmap_loc(fs, g),
					0, ipb ? ipb : 1, buf, &yes);
		if (!err && yes && now[g].ibitmap != was[g].ibitmap &&
		    !ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
			err = explained(ctx, ext2fs_inode_bitmap_loc(fs, g),
					0, (fs->super->s_inodes_per_group + 7)
					    / 8, buf, &yes);
		if (err)
			break;
		/* Trusted (the tests' hook): as if the check were not made. */
		if (!yes && (s->trust & E2SR_TRUST_GROUPS))
			continue;
		if (!yes) {
			*failed = fail(s, E2SR_FULL_GROUP, g);
			break;
		}
		s->groups_changed++;
	}
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&now);
	return err;
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort @v and drop what repeats. */
static void sort_unique(ext2_ino_t *v, size_t *n)
{
	size_t i, k;

	if (!*n)
		return;
	qsort(v, *n, sizeof(*v), cmp_ino);
	for (i = k = 1; i < *n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	*n = k;
}

struct itable_at {
	blk64_t		blk;
	dgrp_t		group;
};

static int cmp_itable(const void *a, const void *b)
{
	const struct itable_at *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/*
 * The groups whose records the log shows changed since the last run:
 * a copy of one of their inode table blocks committed after it.
 */
static errcode_t mark_logged_tables(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	const struct e2sr_history *h = &ctx->history;
	ext2_filsys fs = ctx->fs;
	struct itable_at *t, key, *at;
	blk64_t per = fs->inode_blocks_per_group;
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	size_t i, lo, hi, n = 0, alloc = 0;
	errcode_t err;
	dgrp_t g;

	err = ext2fs_get_array(fs->group_desc_count, sizeof(*t), &t);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (!ext2fs_inode_table_loc(fs, g))
			continue;
		t[n].blk = ext2fs_inode_table_loc(fs, g);
		t[n++].group = g;
	}
	qsort(t, n, sizeof(*t), cmp_itable);
	for (i = 0; i < h->n; i++) {
		if (!h->v[i].committed ||
		    !tid_after(h->v[i].sequence, ctx->coverage.prev.tid))
			continue;
		s->log_blocks++;
		key.blk = h->v[i].fs_block;
		/* The last table that starts at or before the block. */
		lo = 0;
		hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (t[mid].blk <= key.blk)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		at = &t[lo - 1];
		if (key.blk >= at->blk + per)
			continue;
		if (s->logged_count == alloc &&
		    e2sr_array_room(&s->logged, &alloc, s->logged_count + 1,
				    sizeof(*s->logged))) {
			ext2fs_free_mem(&t);
			return EXT2_ET_NO_MEMORY;
		}
		s->logged[s->logged_count++] = (ext2_ino_t)(at->group * ipg +
				(key.blk - at->blk) * ipb + 1);
	}
	ext2fs_free_mem(&t);
	sort_unique(s->logged, &s->logged_count);
	return 0;
}

static errcode_t name_inode(struct e2sr_since *s, size_t *alloc,
			    ext2_ino_t ino)
{
	if (s->named_count == *alloc &&
	    e2sr_array_room(&s->named, alloc, s->named_count + 1,
			    sizeof(*s->named)))
		return EXT2_ET_NO_MEMORY;
	s->named[s->named_count++] = ino;
	return 0;
}

static errcode_t mark_fc_inodes(struct e2sr_since *s, size_t *alloc,
				const struct e2sr_fc_rec *r, __u32 count)
{
	errcode_t err = 0;

	if (r->ino && r->ino <= count)
		err = name_inode(s, alloc, r->ino);
	if (!err && r->parent && r->parent <= count)
		err = name_inode(s, alloc, r->parent);
	return err;
}

/* The inodes the fast-commit area names: their groups are read. */
static errcode_t mark_fast_commits(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	__u32 count = ctx->fs->super->s_inodes_count;
	struct e2sr_fcwalk fc;
	size_t i, j, first, alloc = 0;
	errcode_t err;

	if (!ctx->journal->jsb.fc_blocks)
		return 0;
	memset(&fc, 0, sizeof(fc));
	err = e2sr_fc_walk(ctx->journal, &fc);
	if (err)
		return err;
	/*
	 * A tag belongs to the tail after it: the tags of transactions the
	 * last run saw committed are skipped, those after the last tail
	 * (a fast commit not finished) are taken.
	 */
	for (i = first = 0; !err && i <= fc.n; i++) {
		if (i < fc.n && fc.recs[i].tag != E2SR_FC_TAG_TAIL)
			continue;
		if (i == fc.n || tid_after(fc.recs[i].tid,
					   ctx->coverage.prev.tid))
			for (j = first; !err && j < i; j++)
				err = mark_fc_inodes(s, &alloc, &fc.recs[j],
						     count);
		first = i + 1;
	}
	e2sr_fc_walk_free(&fc);
	if (!err)
		sort_unique(s->named, &s->named_count);
	return err;
}

/*
 * The first pass of the find stage: full or incremental, and, when
 * incremental, the groups the live pass reads.  Nothing here refuses a
 * run: a test that fails makes it a full one.
 */
errcode_t e2sr_since_decide(struct e2sr_ctx *ctx)
{
	struct e2sr_since *s = &ctx->since;
	ext2_filsys fs = ctx->fs;
	int failed;
	errcode_t err;

	if (s->decided)
		return 0;
	s->decided = 1;
	s->incremental = 0;
	s->groups = fs->group_desc_count;
	if (!s->now)
		s->now = (__u64)time(NULL);
	if (super_tests(ctx) ||
	    s->prev.sb.groups != fs->group_desc_count)
		goto full;
	/* Nothing but the kernel wrote the log since: its facts hold. */
	s->super_ok = 1;
	/* super_tests() saw a journal: its history, and how far back. */
	err = e2sr_coverage_ready(ctx);
	if (err)
		return err;
	err = log_tests(ctx, &failed);
	if (err)
		return err;
	if (failed)
		goto full;
	err = group_tests(ctx, &failed);
	if (!err && !failed)
		err = mark_logged_tables(ctx);
	if (!err && !failed)
		err = mark_fast_commits(ctx);
	if (err || failed) {
		ext2fs_free_mem(&s->logged);
		ext2fs_free_mem(&s->named);
		s->logged_count = s->named_count = 0;
		if (err)
			return err;
		goto full;
	}
	s->incremental = 1;
	s->why = E2SR_SINCE_INCREMENTAL;
	return 0;
full:
	s->groups_read = fs->group_desc_count;
	/*
	 * A full run reads the whole log: the history taken from the
	 * facts is built again (what it made of them, coverage, stays: it
	 * is what the whole log gives).
	 */
	if (s->ring_used) {
		s->super_ok = 0;
		e2sr_history_free(&ctx->history);
		return e2sr_ring_history(ctx);
	}
	return 0;
}
