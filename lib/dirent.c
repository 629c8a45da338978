/*
 * dirent.c --- removed directory entries that name secure-delete inodes.
 *
 * When an entry is removed, ext2fs and older kernels merge it into the
 * rec_len of the entry before it: the name stays in the block's slack,
 * with its inode number.  libext2fs' directory iteration with
 * DIRENT_FLAG_INCLUDE_REMOVED finds such entries; one that names an inode
 * of the inventory has its name bytes, inode, name length and type zeroed
 * and the block is written back by the library, checksum included.  An
 * entry whose inode field is zero (the first of a block) is wiped when a
 * journal copy gives its name to an inventory inode.  Live entries are
 * never touched, and neither are htree index blocks, whose bytes would
 * parse as removed entries.
 *
 * Only directories whose blocks hold bytes past their entries are read:
 * the live set (livemap.c) reads every directory block once and notes
 * them; a directory of zeros past its entries has no name to wipe.
 *
 * The plan lists every entry and every run of name bytes it will zero,
 * as actions (directory, block ordinal, offset, length, a crc of the
 * bytes).  The wipe walks the same directories the same way and zeroes
 * exactly those, each only if its bytes still read as planned; a planned
 * action it does not meet stops it (the filesystem changed).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrmP.h"
#include "name_set.h"
#include "crc32c.h"

struct name_walk {
	struct e2sr_ctx		*ctx;
	struct e2sr_ino_set	set;		/* inventory numbers, with */
						/* their index in inv.files */
	size_t			count;
	int			write;		/* zero them, or only count */
	int			htree;		/* directory has an index */
	size_t			found;
	__u32			*jnames;	/* names journal copies */
	size_t			jname_count;	/* give the inventory */
	int			all;		/* --dir-slack: every name */
	unsigned char		*jblob;		/* those names, length first */
	size_t			jblob_len;
	struct e2sr_name_set	names;		/* jblob, for the slack */
	ext2_ino_t		dir;
	char			*block;		/* one directory block */
	errcode_t		err;
	struct e2sr_plan	*plan;
	__u32			part;		/* ordinal of the block read */
	size_t			dir_first;	/* plan->names of this dir */
	size_t			entry_end;	/* its entry pass's end */
	size_t			wiped;		/* as_wiped()'s cursor */
	size_t			next;		/* writing: the next planned */
};

/* A directory's name actions: by block, its entries before its bytes. */
static int cmp_name_action(const void *a, const void *b)
{
	const struct e2sr_action *x = a, *y = b;
	int xb = x->why == E2SR_WHY_NAME_BYTES;
	int yb = y->why == E2SR_WHY_NAME_BYTES;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	if (xb != yb)
		return xb - yb;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void name_walk_free(struct name_walk *w)
{
	e2sr_ino_set_free(&w->set);
	ext2fs_free_mem(&w->jnames);
	ext2fs_free_mem(&w->jblob);
	e2sr_name_set_free(&w->names);
	ext2fs_free_mem(&w->block);
}

static errcode_t sorted_inventory(struct e2sr_ctx *ctx, struct name_walk *w)
{
	errcode_t err;

	w->count = ctx->inv.count;
	if (!w->count)
		return 0;
	err = e2sr_journal_names(ctx, &w->jnames, &w->jname_count,
				 &w->jblob, &w->jblob_len);
	if (!err)
		err = e2sr_name_set_init(&w->names, w->jblob, w->jblob_len);
	if (!err)
		err = e2sr_inventory_set(ctx, 0, &w->set);
	return err;
}

/*
 * An htree root keeps its index inside the rec_len of "..", an interior
 * node inside one empty entry spanning the block: neither is slack.
 */
static int is_index_block(const struct name_walk *w, const char *buf,
			  int blocksize)
{
	const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)buf;
	unsigned int rec_len;

	if (!w->htree)
		return 0;
	if (ext2fs_get_rec_len(w->ctx->fs, (struct ext2_dir_entry *)de,
			       &rec_len))
		return 1;
	if (!de->inode && rec_len == (unsigned int)blocksize)
		return 1;
	if (ext2fs_dirent_name_len(de) == 1 && de->name[0] == '.' &&
	    rec_len == 12) {
		de = (const struct ext2_dir_entry *)(buf + 12);
		if (ext2fs_get_rec_len(w->ctx->fs,
				       (struct ext2_dir_entry *)de, &rec_len))
			return 1;
		if (ext2fs_dirent_name_len(de) == 2 &&
		    rec_len == (unsigned int)blocksize - 12)
			return 1;
	}
	return 0;
}

/* The removed entry at @de, as a wipe leaves it: the rec_len stays. */
static void zero_entry(struct ext2_dir_entry *de)
{
	memset(de->name, 0, ext2fs_dirent_name_len(de));
	de->inode = 0;
	ext2fs_dirent_set_name_len(de, 0);
	ext2fs_dirent_set_file_type(de, 0);
}

static errcode_t plan_name(struct name_walk *w, int why, ext2_ino_t owner,
			   unsigned int off, unsigned int len, __u32 crc)
{
	struct e2sr_plan *plan = w->plan;
	struct e2sr_action *a;

	if (plan->name_count == plan->name_alloc &&
	    e2sr_array_room(&plan->names, &plan->name_alloc,
			    plan->name_count + 1, sizeof(*plan->names)))
		return EXT2_ET_NO_MEMORY;
	a = &plan->names[plan->name_count++];
	memset(a, 0, sizeof(*a));
	a->kind = E2SR_KIND_NAMES;
	a->why = why;
	a->owner = owner;
	a->ino = w->dir;
	a->blk = w->part;
	a->count = 1;
	a->off = off;
	a->len = len;
	a->crc = crc;
	return 0;
}

/*
 * Planning, note the action; writing, whether it is the next planned
 * one, as planned (then it is done, and the caller zeroes it).
 */
static int take_name(struct name_walk *w, int why, ext2_ino_t owner,
		     unsigned int off, unsigned int len, __u32 crc)
{
	const struct e2sr_action *a;

	if (!w->write) {
		w->err = plan_name(w, why, owner, off, len, crc);
		w->found++;
		return 0;
	}
	if (w->next >= w->plan->name_count)
		return 0;
	a = &w->plan->names[w->next];
	if (a->ino != w->dir || a->blk != w->part || a->off != off ||
	    a->len != len || a->crc != crc || a->why != why)
		return 0;
	w->next++;
	w->found++;
	e2sr_action_done(w->ctx, a);
	return 1;
}

/* Plan to zero a removed entry's name and inode; the rec_len chain stays. */
static int plan_entry(struct name_walk *w, struct ext2_dir_entry *dirent,
		     int offset, int blocksize, char *buf, int why,
		     ext2_ino_t owner)
{
	int len = ext2fs_dirent_name_len(dirent);

	if (!len || is_index_block(w, buf, blocksize))
		return 0;
	/* The iterator checked the header; never write past the block. */
	if (offset + 8 + len > blocksize)
		return 0;
	take_name(w, why, owner, offset, len,
		  e2sr_crc32c_le(~0U, dirent, 8 + len));
	return w->err ? DIRENT_ABORT : 0;
}

/*
 * Writing: zero the entries planned in part @w->part of the directory,
 * held in @buf, each only if its bytes are still as planned.  They are
 * taken from the plan, not found again: libext2fs finds removed entries
 * by the lengths of those before them, so a walk over a block whose
 * entries it has zeroed would meet others than the plan did.  Returns
 * whether @buf changed; a planned entry not as planned is
 * E2SR_ERR_CHANGED in @w->err.
 */
static int apply_entries(struct name_walk *w, char *buf, unsigned int size)
{
	const struct e2sr_action *a;
	struct ext2_dir_entry *de;
	int changed = 0;

	for (; w->next < w->plan->name_count; w->next++) {
		a = &w->plan->names[w->next];
		if (a->ino != w->dir || a->blk != w->part ||
		    a->why == E2SR_WHY_NAME_BYTES)
			break;
		de = (struct ext2_dir_entry *)(buf + a->off);
		if (a->off + 8 + a->len > size ||
		    (__u32)ext2fs_dirent_name_len(de) != a->len ||
		    e2sr_crc32c_le(~0U, de, 8 + a->len) != a->crc) {
			snprintf(w->ctx->detail, sizeof(w->ctx->detail),
				 "directory %u: a planned name is not as "
				 "planned", w->dir);
			w->err = E2SR_ERR_CHANGED;
			break;
		}
		zero_entry(de);
		w->found++;
		e2sr_action_done(w->ctx, a);
		changed = 1;
	}
	return changed;
}

static int visit_entry(ext2_ino_t dir EXT2FS_ATTR((unused)), int entry,
		       struct ext2_dir_entry *dirent, int offset,
		       int blocksize, char *buf, void *priv)
{
	struct name_walk *w = priv;
	const struct e2sr_ino_entry *ref;
	struct e2sr_file *file;

	/* Every block's (or inline part's) first entry is at offset 0. */
	if (!offset)
		w->part++;
	/* Writing (inline directories only): the plan, once per part. */
	if (w->write) {
		if (offset || !apply_entries(w, buf, blocksize))
			return w->err ? DIRENT_ABORT : 0;
		return DIRENT_CHANGED | (w->err ? DIRENT_ABORT : 0);
	}
	if (!dirent->inode) {
		/* Whose it was only a journal copy can say. */
		if (e2sr_name_in(w->jnames, w->jname_count, dirent->name,
				 ext2fs_dirent_name_len(dirent)))
			return plan_entry(w, dirent, offset, blocksize, buf,
					 E2SR_WHY_ENTRY_JOURNAL, 0);
		if (w->all)
			return plan_entry(w, dirent, offset, blocksize, buf,
					 E2SR_WHY_DIR_SLACK, 0);
		return 0;
	}
	ref = e2sr_ino_set_find(&w->set, dirent->inode);
	if (entry != DIRENT_DELETED_FILE) {
		/* A live name: the inode is not deleted, whatever its bit. */
		if (!ref)
			return 0;
		file = &w->ctx->inv.files[ref->value];
		if (file->state == E2SR_STATE_DELETED)
			file->state = E2SR_STATE_UNCLEAR;
		return 0;
	}
	if (ref)
		return plan_entry(w, dirent, offset, blocksize, buf,
				 E2SR_WHY_ENTRY, dirent->inode);
	if (w->all)
		return plan_entry(w, dirent, offset, blocksize, buf,
				 E2SR_WHY_DIR_SLACK, 0);
	return 0;
}

/* A known name in slack: planned, or zeroed as planned. */
static int zero_hit(void *priv, unsigned int off, unsigned int len)
{
	struct name_walk *w = priv;

	if (take_name(w, E2SR_WHY_NAME_BYTES, 0, off, len,
		      e2sr_crc32c_le(~0U, w->block + off, len)))
		memset(w->block + off, 0, len);
	return w->err != 0;
}

/*
 * Planning, the slack search must see the block as the wipe will: after
 * the entries the first pass zeroes in it.
 */
static void as_wiped(struct name_walk *w)
{
	const struct e2sr_action *a = w->plan->names;

	/* The entry pass's actions ascend by block, as the slack pass. */
	while (w->wiped < w->entry_end && a[w->wiped].blk < w->part)
		w->wiped++;
	for (; w->wiped < w->entry_end && a[w->wiped].blk == w->part;
	     w->wiped++)
		zero_entry((struct ext2_dir_entry *)(w->block +
						     a[w->wiped].off));
}

/* The metadata_csum tail of a directory block: not an entry's slack. */
static int csum_tail(ext2_filsys fs, const struct ext2_dir_entry *de,
		     unsigned int off, unsigned int rec_len)
{
	return ext2fs_has_feature_metadata_csum(fs->super) &&
	       off + EXT2_DIR_ENTRY_HEADER_LEN + 4 == fs->blocksize &&
	       rec_len == EXT2_DIR_ENTRY_HEADER_LEN + 4 && !de->inode &&
	       !ext2fs_dirent_name_len(de) &&
	       ext2fs_dirent_file_type(de) == EXT2_DIR_NAME_LEN_CSUM >> 8;
}

/*
 * After an htree split or a merge, bytes of old entries stay in the
 * slack of live ones with their headers half overwritten, where the
 * library's iteration cannot see them.  Search the slack of each entry
 * for the names journal copies give to secure-delete inodes.
 */
static int slack_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk EXT2FS_ATTR((unused)),
		       int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct name_walk *w = priv;
	struct ext2_dir_entry *de;
	unsigned int off = 0, rec_len, used, bs = fs->blocksize;
	size_t before = w->found;

	if (blockcnt < 0)
		return 0;
	w->part++;
	w->err = ext2fs_read_dir_block4(fs, *blocknr, w->block, 0, w->dir);
	if (w->err == EXT2_ET_DIR_CSUM_INVALID)
		w->err = 0;	/* not ours to judge; only slack is read */
	if (w->err)
		return BLOCK_ABORT;
	if (is_index_block(w, w->block, bs))
		return 0;
	if (!w->write)
		as_wiped(w);
	else
		apply_entries(w, w->block, bs);
	if (w->err)
		return BLOCK_ABORT;
	while (w->jblob_len && off + 8 <= bs) {
		de = (struct ext2_dir_entry *)(w->block + off);
		if (ext2fs_get_rec_len(fs, de, &rec_len) || rec_len < 8 ||
		    rec_len > bs - off || (rec_len & 3) ||
		    csum_tail(fs, de, off, rec_len))
			break;
		used = de->inode || ext2fs_dirent_name_len(de) ?
		       ((8 + ext2fs_dirent_name_len(de) + 3) & ~3U) : 8;
		if (used < rec_len)
			e2sr_name_set_scan(&w->names,
					   (unsigned char *)w->block,
					   off + used, off + rec_len, 1,
					   zero_hit, w);
		if (w->err)
			return BLOCK_ABORT;
		off += rec_len;
	}
	if (!w->write || w->found == before)
		return 0;
	w->err = e2sr_wipe_check_dir_block(w->ctx, w->dir, *blocknr, 1);
	if (!w->err)
		w->err = ext2fs_write_dir_block4(fs, *blocknr, w->block, 0,
						 w->dir);
	return w->err ? BLOCK_ABORT : 0;
}

static errcode_t scan_slack(struct name_walk *w, ext2_ino_t dir)
{
	ext2_filsys fs = w->ctx->fs;
	errcode_t err;

	if (!w->block) {
		err = ext2fs_get_mem(fs->blocksize, &w->block);
		if (err)
			return err;
	}
	w->err = 0;
	w->part = 0;
	err = ext2fs_block_iterate3(fs, dir, BLOCK_FLAG_READ_ONLY |
				    BLOCK_FLAG_DATA_ONLY, NULL, slack_block, w);
	return err ? err : w->err;
}

static errcode_t walk_dir(struct name_walk *w, ext2_ino_t dir)
{
	ext2_filsys fs = w->ctx->fs;
	struct ext2_inode inode;
	errcode_t err;
	int flags;

	/* The guard of every rewrite of its blocks, just before them. */
	if (w->write) {
		err = e2sr_wipe_check_dir(w->ctx, dir, 1);
		if (err)
			return err;
	}
	err = ext2fs_read_inode(fs, dir, &inode);
	if (err)
		return err;
	/*
	 * Encrypted casefolded names carry a hash right after the name,
	 * where the library looks for removed entries: leave them.
	 */
	if ((inode.i_flags & EXT4_ENCRYPT_FL) &&
	    (inode.i_flags & EXT4_CASEFOLD_FL))
		return 0;
	w->htree = !!(inode.i_flags & EXT2_INDEX_FL);
	w->dir = dir;
	w->part = 0;
	w->err = 0;
	if (!w->write)
		w->dir_first = w->plan->name_count;
	flags = DIRENT_FLAG_INCLUDE_REMOVED | DIRENT_FLAG_INCLUDE_EMPTY;
	/*
	 * libext2fs reads this flag as "the buffer is inline data" for
	 * every block, so it is given only for inline directories.
	 */
	if (inode.i_flags & EXT4_INLINE_DATA_FL)
		flags |= DIRENT_FLAG_INCLUDE_INLINE_DATA;
	/*
	 * Writing a directory of blocks, one pass zeroes a block's planned
	 * entries and then its planned name bytes, and writes it once.
	 */
	if (w->write && !(inode.i_flags & EXT4_INLINE_DATA_FL))
		return scan_slack(w, dir);
	err = ext2fs_dir_iterate2(fs, dir, flags, NULL, visit_entry, w);
	if (!err)
		err = w->err;
	w->entry_end = w->plan->name_count;
	w->wiped = w->dir_first;
	if (err || (inode.i_flags & EXT4_INLINE_DATA_FL) || !w->jblob_len)
		return err;
	err = scan_slack(w, dir);
	/* In the order the wipe writes: block by block, entries first. */
	if (!err && w->plan->name_count > w->dir_first)
		qsort(w->plan->names + w->dir_first,
		      w->plan->name_count - w->dir_first,
		      sizeof(*w->plan->names), cmp_name_action);
	return err;
}

static errcode_t add_name_dir(struct e2sr_plan *plan, ext2_ino_t dir)
{
	if (plan->name_dir_count == plan->name_dir_alloc &&
	    e2sr_array_room(&plan->name_dirs, &plan->name_dir_alloc,
			    plan->name_dir_count + 1, sizeof(*plan->name_dirs)))
		return EXT2_ET_NO_MEMORY;
	plan->name_dirs[plan->name_dir_count++] = dir;
	return 0;
}

/*
 * Whether @dir can hold a removed name: as the live set's read of every
 * directory block found, or, without a complete live set, always.
 */
static int may_hold_names(const struct e2sr_ctx *ctx, ext2_ino_t dir)
{
	const struct e2sr_livemap *lm = &ctx->live;

	if (!lm->complete || !lm->residue_dirs)
		return 1;
	return ext2fs_test_inode_bitmap2(lm->residue_dirs, dir);
}

/* Count the names to wipe and note the directories that hold them. */
errcode_t e2sr_names_plan(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct name_walk w;
	size_t i, before;
	errcode_t err;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.plan = plan;
	w.all = !!(ctx->opts.sanitize & E2SR_FREE_DIRSLACK);
	err = sorted_inventory(ctx, &w);
	if (err || (!w.count && !w.all)) {
		name_walk_free(&w);
		return err;
	}
	for (i = 0; i < ctx->inv.dir_count; i++) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		if (!may_hold_names(ctx, ctx->inv.dirs[i]))
			continue;
		before = w.found;
		err = walk_dir(&w, ctx->inv.dirs[i]);
		if (err == EXT2_ET_NO_MEMORY)
			break;
		if (err) {
			/* A damaged directory: its names stay, the run goes on. */
			plan->name_dirs_damaged++;
			plan->left++;	/* its names stay: exit bit 4 */
			w.found = before;
			plan->name_count = w.dir_first;
			err = 0;
			continue;
		}
		if (w.found > before) {
			err = add_name_dir(plan, ctx->inv.dirs[i]);
			if (err)
				break;
		}
	}
	name_walk_free(&w);
	return err;
}

struct names_check {
	struct e2sr_ctx		*ctx;
	ext2_ino_t		dir;
	__u32			part;
	size_t			next;		/* in plan->names */
	errcode_t		err;
};

static int check_block(ext2_filsys fs EXT2FS_ATTR((unused)),
		       blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk EXT2FS_ATTR((unused)),
		       int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct names_check *c = priv;
	const struct e2sr_plan *plan = &c->ctx->plan;
	int hit = 0;

	if (blockcnt < 0)
		return 0;
	c->part++;
	while (c->next < plan->name_count &&
	       plan->names[c->next].ino == c->dir &&
	       plan->names[c->next].blk == c->part) {
		c->next++;
		hit = 1;
	}
	if (hit)
		c->err = e2sr_wipe_check_dir_block(c->ctx, c->dir, *blocknr,
						   0);
	return c->err ? BLOCK_ABORT : 0;
}

/*
 * Before the first write: every directory block the names plan rewrites
 * is one the wipe's guard will take (e2sr_wipe_check_dir_block), found
 * as the wipe finds it, by its ordinal among the directory's blocks.
 */
errcode_t e2sr_names_check(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	struct names_check c;
	struct ext2_inode inode;
	errcode_t err;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.ctx = ctx;
	for (i = 0; i < plan->name_dir_count; i++) {
		c.dir = plan->name_dirs[i];
		err = e2sr_wipe_check_dir(ctx, c.dir, 0);
		if (!err)
			err = ext2fs_read_inode(ctx->fs, c.dir, &inode);
		if (err)
			return err;
		if (inode.i_flags & EXT4_INLINE_DATA_FL) {
			/* Rewritten in its record, which libext2fs checks. */
			while (c.next < plan->name_count &&
			       plan->names[c.next].ino == c.dir)
				c.next++;
			continue;
		}
		c.part = 0;
		err = ext2fs_block_iterate3(ctx->fs, c.dir,
					    BLOCK_FLAG_READ_ONLY |
					    BLOCK_FLAG_DATA_ONLY, NULL,
					    check_block, &c);
		if (!err)
			err = c.err;
		if (err)
			return err;
	}
	if (c.next != plan->name_count) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "directory %u: a planned name is in no block of it",
			 plan->names[c.next].ino);
		return E2SR_ERR_CHANGED;
	}
	return 0;
}

errcode_t e2sr_names_wipe(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct name_walk w;
	errcode_t err;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.plan = plan;
	w.write = 1;
	w.all = !!(ctx->opts.sanitize & E2SR_FREE_DIRSLACK);
	err = sorted_inventory(ctx, &w);
	if (err || (!w.count && !w.all)) {
		name_walk_free(&w);
		return err;
	}
	for (i = 0; i < plan->name_dir_count; i++) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		err = walk_dir(&w, plan->name_dirs[i]);
		if (err)
			break;
		e2sr_progress(ctx, E2SR_STAGE_NAMES, i + 1,
			      plan->name_dir_count);
	}
	ctx->stats.wiped[E2SR_KIND_NAMES][0] = w.found;
	name_walk_free(&w);
	/* A planned name the walk did not meet as planned: not wiped. */
	if (!err && w.next != plan->name_count) {
		snprintf(ctx->detail, sizeof(ctx->detail),
			 "directory %u: a planned name is not as planned",
			 plan->names[w.next].ino);
		err = E2SR_ERR_CHANGED;
	}
	return err;
}
