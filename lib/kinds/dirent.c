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
 * the live set (livemap_dirs.c) reads every directory block once and notes
 * them; a directory of zeros past its entries has no name to wipe.
 *
 * The plan lists every entry and every run of name bytes it will zero,
 * as actions (directory, block ordinal, offset, length, a crc of the
 * bytes).  The writer takes those actions from the plan's list, not the
 * walk again: it reads only the blocks they name, found by their
 * ordinal, and zeroes exactly those bytes, each only if they still read
 * as planned; a planned action it does not meet stops it (the
 * filesystem changed).
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
#include "plan.h"
#include "write.h"
#include "kinds.h"

struct name_walk {
	struct e2sr_ctx		*ctx;
	struct e2sr_ino_set	set;		/* inventory numbers, with */
						/* their index in inv.files */
	size_t			count;
	int			htree;		/* directory has an index */
	size_t			found;
	__u32			*jnames;	/* names journal copies */
	size_t			jname_count;	/* give the inventory */
	int			all;		/* --dir-slack: every name */
	unsigned char		*jblob;		/* those names, length first */
	size_t			jblob_len;
	struct e2sr_name_set	names;		/* jblob, for the slack */
	ext2fs_block_bitmap	reused;		/* blocks +s files held and */
						/* gave up; NULL: none */
	ext2_ino_t		dir;
	char			*block;		/* one directory block */
	errcode_t		err;
	struct e2sr_plan	*plan;
	__u32			part;		/* ordinal of the block read */
	size_t			dir_first;	/* plan->names of this dir */
	size_t			entry_end;	/* its entry pass's end */
	size_t			wiped;		/* as_wiped()'s cursor */
};

/*
 * Whether a directory part of @why is bare bytes (a run past the entries)
 * rather than an entry, which loses its inode, name length and name.
 */
int e2sr_why_bytes(int why)
{
	return why == E2SR_WHY_NAME_BYTES || why == E2SR_WHY_REUSED_SLACK ||
	       why == E2SR_WHY_SLACK_BYTES;
}

/* A directory's name actions: by block, its entries before its bytes. */
static int cmp_name_action(const void *a, const void *b)
{
	const struct e2sr_action *x = a, *y = b;
	int xb = e2sr_why_bytes(x->why);
	int yb = e2sr_why_bytes(y->why);

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
	if (w->reused)
		ext2fs_free_block_bitmap(w->reused);
	ext2fs_free_mem(&w->block);
}

/*
 * The blocks secure-delete files held and gave up: every block of every
 * map, but a live file's own.  A new directory block is zeroed by the
 * kernel only when its buffer is not cached (ext4_getblk): an EA block
 * or a directory block freed and taken again by a directory while still
 * cached keeps its old bytes past the new entries.  What is zero there
 * is not planned, so data blocks, which the kernel reads through the
 * file and not the device, cost nothing.
 */
static errcode_t reused_blocks(struct e2sr_ctx *ctx, struct name_walk *w)
{
	const struct e2sr_file *f;
	const struct e2sr_extent *e;
	size_t i, j, n = 0;
	errcode_t err;

	err = ext2fs_allocate_block_bitmap(ctx->fs, "secure-delete blocks "
					   "given up", &w->reused);
	if (err)
		return err;
	for (i = 0; i < ctx->inv.count; i++) {
		f = &ctx->inv.files[i];
		for (j = 0; j < f->map_count; j++) {
			e = &f->map[j];
			if (f->state == E2SR_STATE_LIVE && !e->historic)
				continue;
			ext2fs_mark_block_bitmap_range2(w->reused, e->pblk,
							e->len);
			n++;
		}
	}
	if (!n) {
		ext2fs_free_block_bitmap(w->reused);
		w->reused = NULL;
	}
	return 0;
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
	if (!err)
		err = reused_blocks(ctx, w);
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

/* Note the action. */
static void take_name(struct name_walk *w, int why, ext2_ino_t owner,
		      unsigned int off, unsigned int len, __u32 crc)
{
	w->err = plan_name(w, why, owner, off, len, crc);
	w->found++;
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

/* A known name in slack: planned. */
static int zero_hit(void *priv, unsigned int off, unsigned int len)
{
	struct name_walk *w = priv;

	take_name(w, E2SR_WHY_NAME_BYTES, 0, off, len,
		  e2sr_crc32c_le(~0U, w->block + off, len));
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
 * The bytes past a live entry, @from to @to, as the wipe leaves the
 * block: the run from the first byte that is not zero to the last.
 */
static void plan_slack(struct name_walk *w, int why, unsigned int from,
		       unsigned int to)
{
	while (from < to && !w->block[from])
		from++;
	while (to > from && !w->block[to - 1])
		to--;
	if (from < to)
		take_name(w, why, 0, from, to - from,
			  e2sr_crc32c_le(~0U, w->block + from, to - from));
}

/*
 * After an htree split or a merge, bytes of old entries stay in the
 * slack of live ones with their headers half overwritten, where the
 * library's iteration cannot see them.  Search the slack of each entry
 * for the names journal copies give to secure-delete inodes.  A block a
 * secure-delete file gave up loses all of its slack, and so does every
 * block with --dir-slack: what lies there is not known to be a name.
 */
static int slack_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk EXT2FS_ATTR((unused)),
		       int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct name_walk *w = priv;
	struct ext2_dir_entry *de;
	unsigned int off = 0, rec_len, used, bs = fs->blocksize;
	int why = 0;

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
	as_wiped(w);
	if (w->reused && ext2fs_test_block_bitmap2(w->reused, *blocknr))
		why = E2SR_WHY_REUSED_SLACK;
	else if (w->all)
		why = E2SR_WHY_SLACK_BYTES;
	while ((w->jblob_len || why) && off + 8 <= bs) {
		de = (struct ext2_dir_entry *)(w->block + off);
		if (ext2fs_get_rec_len(fs, de, &rec_len) || rec_len < 8 ||
		    rec_len > bs - off || (rec_len & 3) ||
		    csum_tail(fs, de, off, rec_len))
			break;
		used = de->inode || ext2fs_dirent_name_len(de) ?
		       ((8 + ext2fs_dirent_name_len(de) + 3) & ~3U) : 8;
		if (used < rec_len && why)
			plan_slack(w, why, off + used, off + rec_len);
		else if (used < rec_len)
			e2sr_name_set_scan(&w->names,
					   (unsigned char *)w->block,
					   off + used, off + rec_len, 1,
					   zero_hit, w);
		if (w->err)
			return BLOCK_ABORT;
		off += rec_len;
	}
	return 0;
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
	w->dir_first = w->plan->name_count;
	flags = DIRENT_FLAG_INCLUDE_REMOVED | DIRENT_FLAG_INCLUDE_EMPTY;
	/*
	 * libext2fs reads this flag as "the buffer is inline data" for
	 * every block, so it is given only for inline directories.
	 */
	if (inode.i_flags & EXT4_INLINE_DATA_FL)
		flags |= DIRENT_FLAG_INCLUDE_INLINE_DATA;
	err = ext2fs_dir_iterate2(fs, dir, flags, NULL, visit_entry, w);
	if (!err)
		err = w->err;
	w->entry_end = w->plan->name_count;
	w->wiped = w->dir_first;
	if (err || (inode.i_flags & EXT4_INLINE_DATA_FL) ||
	    (!w->jblob_len && !w->reused && !w->all))
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
	struct e2sr_question_entry *q;
	struct name_walk w;
	size_t i, before;
	errcode_t err;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.plan = plan;
	w.all = !!(plan->sanitize & E2SR_FREE_DIRSLACK);
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
		/*
		 * Flags or maps that contradict each other: where its
		 * entries are is a guess (inline or blocks, which map):
		 * its names stay, for e2fsck first.
		 */
		q = e2sr_questioned(ctx, ctx->inv.dirs[i]);
		if (q) {
			err = e2sr_question_leave(ctx, q->ino, q->why,
						  E2SR_LEFT_NAMES);
			if (err)
				break;
			continue;
		}
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

/* ---- writing: the plan's actions, directory by directory ---- */

/* One directory's actions, @a[0..n), as the writer and its check go. */
struct name_apply {
	struct e2sr_ctx			*ctx;
	ext2_ino_t			dir;
	const struct e2sr_action	*a;
	size_t				n;
	size_t				next;	/* the next not yet met */
	__u32				part;	/* ordinal of the block */
	int				write;	/* or only check */
	char				*block;
	errcode_t			err;
};

static void not_as_planned(struct name_apply *p)
{
	snprintf(p->ctx->detail, sizeof(p->ctx->detail),
		 "directory %u: a planned name is not as planned", p->dir);
	p->err = E2SR_ERR_CHANGED;
}

/*
 * Zero the actions of part @p->part, held in @buf: its entries, then its
 * name bytes, in the plan's order, each only if its bytes read as
 * planned.  The name bytes were planned on the block as its entries
 * leave it, so they are checked after them.  Returns whether @buf
 * changed.
 */
static int apply_part(struct name_apply *p, char *buf, unsigned int size)
{
	const struct e2sr_action *a;
	struct ext2_dir_entry *de;
	int changed = 0;

	for (; p->next < p->n && p->a[p->next].blk == p->part; p->next++) {
		a = &p->a[p->next];
		if (a->off > size || a->len > size - a->off) {
			not_as_planned(p);
			break;
		}
		if (e2sr_why_bytes(a->why)) {
			if (e2sr_crc32c_le(~0U, buf + a->off, a->len) !=
			    a->crc) {
				not_as_planned(p);
				break;
			}
			memset(buf + a->off, 0, a->len);
			changed = 1;
			continue;
		}
		de = (struct ext2_dir_entry *)(buf + a->off);
		if (a->len + 8 > size - a->off ||
		    (__u32)ext2fs_dirent_name_len(de) != a->len ||
		    e2sr_crc32c_le(~0U, de, 8 + a->len) != a->crc) {
			not_as_planned(p);
			break;
		}
		zero_entry(de);
		changed = 1;
	}
	return changed;
}

/* What is written is done, and counted. */
static void parts_done(struct name_apply *p, size_t first)
{
	size_t i;

	for (i = first; i < p->next; i++)
		e2sr_action_done(p->ctx, &p->a[i]);
	p->ctx->stats.wiped[E2SR_KIND_NAMES][0] += p->next - first;
	e2sr_wipe_advance(p->ctx, p->next - first);
}

/* An inline directory: each part's actions, at its first entry. */
static int apply_inline(ext2_ino_t dir EXT2FS_ATTR((unused)),
			int entry EXT2FS_ATTR((unused)),
			struct ext2_dir_entry *dirent EXT2FS_ATTR((unused)),
			int offset, int blocksize, char *buf, void *priv)
{
	struct name_apply *p = priv;
	int changed;

	if (offset)
		return 0;
	p->part++;
	changed = apply_part(p, buf, blocksize);
	if (p->err)
		return DIRENT_ABORT;
	return changed ? DIRENT_CHANGED : 0;
}

/*
 * A block of the directory: only one the plan names is read; writing,
 * its actions are applied and it is put back once, through the guard
 * and libext2fs (the checksum tail); checking, the guard is asked.
 */
static int apply_block(ext2_filsys fs, blk64_t *blocknr,
		       e2_blkcnt_t blockcnt,
		       blk64_t ref_blk EXT2FS_ATTR((unused)),
		       int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct name_apply *p = priv;
	size_t first = p->next;

	if (blockcnt < 0)
		return 0;
	if (p->next == p->n)
		return BLOCK_ABORT;	/* all met: the rest is not read */
	p->part++;
	if (p->a[p->next].blk != p->part)
		return 0;
	if (!p->write) {
		while (p->next < p->n && p->a[p->next].blk == p->part)
			p->next++;
		p->err = e2sr_wipe_check_dir_block(p->ctx, p->dir, *blocknr,
						   0);
		return p->err ? BLOCK_ABORT : 0;
	}
	if (e2sr_cancelled(p->ctx)) {
		p->err = E2SR_ERR_CANCELLED;
		return BLOCK_ABORT;
	}
	p->err = ext2fs_read_dir_block4(fs, *blocknr, p->block, 0, p->dir);
	if (p->err == EXT2_ET_DIR_CSUM_INVALID)
		p->err = 0;	/* as planned: only removed bytes change */
	if (!p->err)
		apply_part(p, p->block, fs->blocksize);
	if (!p->err)
		p->err = e2sr_wipe_check_dir_block(p->ctx, p->dir, *blocknr,
						   1);
	if (!p->err)
		p->err = ext2fs_write_dir_block4(fs, *blocknr, p->block, 0,
						 p->dir);
	if (p->err)
		return BLOCK_ABORT;
	parts_done(p, first);
	return 0;
}

/* The actions of one directory, @p->a[0..n): checked, or written. */
static errcode_t apply_dir(struct name_apply *p)
{
	ext2_filsys fs = p->ctx->fs;
	struct ext2_inode inode;
	errcode_t err;

	/*
	 * The guard of every rewrite of its blocks (or its record), and
	 * of its record: flags and map that agree.
	 */
	err = e2sr_wipe_check_dir(p->ctx, p->dir, p->write);
	if (!err)
		err = e2sr_record_check(p->ctx, p->dir);
	if (!err)
		err = ext2fs_read_inode(fs, p->dir, &inode);
	if (err)
		return err;
	p->next = 0;
	p->part = 0;
	p->err = 0;
	if ((inode.i_flags & EXT4_ENCRYPT_FL) &&
	    (inode.i_flags & EXT4_CASEFOLD_FL)) {
		/* Never planned: its names carry a hash after them. */
		not_as_planned(p);
		return p->err;
	}
	if (inode.i_flags & EXT4_INLINE_DATA_FL) {
		/* Rewritten in its record, which libext2fs checks. */
		if (!p->write)
			return 0;
		err = ext2fs_dir_iterate2(fs, p->dir,
					  DIRENT_FLAG_INCLUDE_REMOVED |
					  DIRENT_FLAG_INCLUDE_EMPTY |
					  DIRENT_FLAG_INCLUDE_INLINE_DATA,
					  NULL, apply_inline, p);
		if (!err && !p->err)
			parts_done(p, 0);
	} else {
		err = ext2fs_block_iterate3(fs, p->dir, BLOCK_FLAG_READ_ONLY |
					    BLOCK_FLAG_DATA_ONLY, NULL,
					    apply_block, p);
	}
	if (!err)
		err = p->err;
	if (!err && p->next != p->n) {
		snprintf(p->ctx->detail, sizeof(p->ctx->detail),
			 "directory %u: a planned name is in no block of it",
			 p->dir);
		err = E2SR_ERR_CHANGED;
	}
	return err;
}

/* The names actions @a[0..n), directory by directory. */
static errcode_t apply_names(struct e2sr_ctx *ctx,
			     const struct e2sr_action *a, size_t n, int write)
{
	struct name_apply p;
	errcode_t err = 0;
	size_t i, end;

	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.write = write;
	if (write && n) {
		err = ext2fs_get_mem(ctx->fs->blocksize, &p.block);
		if (err)
			return err;
	}
	for (i = 0; !err && i < n; i = end) {
		for (end = i + 1; end < n && a[end].ino == a[i].ino; end++)
			;
		p.dir = a[i].ino;
		p.a = a + i;
		p.n = end - i;
		err = apply_dir(&p);
	}
	ext2fs_free_mem(&p.block);
	return err;
}

/*
 * Before the first write: every directory block the names plan rewrites
 * is one the wipe's guard will take (e2sr_wipe_check_dir_block), found
 * as the wipe finds it, by its ordinal among the directory's blocks.
 */
errcode_t e2sr_names_check(struct e2sr_ctx *ctx, const struct e2sr_action *a,
			   size_t n)
{
	return apply_names(ctx, a, n, 0);
}

errcode_t e2sr_names_apply(struct e2sr_ctx *ctx, const struct e2sr_action *a,
			   size_t n)
{
	return apply_names(ctx, a, n, 1);
}
