/*
 * sanity.c --- records whose flags or maps contradict each other, and
 * the list of them the run leaves for e2fsck.
 *
 * Owns the one predicate every editing path asks before it plans an edit
 * of a record or of the blocks a record maps: e2sr_record_contradicts().
 * A record that answers yes is one e2fsck's pass 1 would question (its
 * fix for it is a guess among readings: drop the inline flag or the
 * extents flag, clear the inode, set a feature), and e2secrm never edits
 * on a guess: such a record, its names, its unwritten extents, its free
 * record are left alone, counted as left for e2fsck (exit bit 4) and
 * reported once per kind of contradiction.  The checks are pass 1's
 * (e2fsprogs 1.47.0, e2fsck/pass1.c), as far as the record alone can
 * tell; the ones that need the blocks a map points to (a directory's
 * size against its last block, a slow symlink's target) are left to the
 * map walks, which refuse what they cannot read.
 *
 * The scan (inventory.c) asks for every record it reads and notes the
 * ones questioned here; the kinds look them up (e2sr_questioned) and
 * say what they left (e2sr_question_leave); the writers ask the
 * predicate again of the record as it is just before the write.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"

/* Device, fifo or socket: a record that maps nothing. */
static int is_special(__u16 mode)
{
	return LINUX_S_ISCHR(mode) || LINUX_S_ISBLK(mode) ||
	       LINUX_S_ISFIFO(mode) || LINUX_S_ISSOCK(mode);
}

/*
 * The size of an inline-data record's contents: the 60 bytes of i_block
 * and the value of its system.data attribute, read from the record in
 * hand (and its EA block, if it has one).  Nonzero: no such attribute.
 */
static errcode_t inline_size(ext2_filsys fs, ext2_ino_t ino,
			     const struct ext2_inode_large *inode, int isize,
			     size_t *size)
{
	struct ext2_xattr_handle *h = NULL;
	struct ext2_inode_large *copy = NULL;
	void *value = NULL;
	size_t len = 0;
	errcode_t err;

	/* libext2fs reads the record it is given, not the one on disk. */
	err = ext2fs_get_memzero(EXT2_INODE_SIZE(fs->super), &copy);
	if (err)
		return err;
	memcpy(copy, inode, isize < EXT2_INODE_SIZE(fs->super) ? isize :
	       EXT2_INODE_SIZE(fs->super));
	err = ext2fs_xattrs_open(fs, ino, &h);
	if (!err)
		err = ext2fs_xattrs_read_inode(h, copy);
	if (!err)
		err = ext2fs_xattr_get(h, "system.data", &value, &len);
	if (!err)
		*size = EXT4_MIN_INLINE_DATA_SIZE + len;
	ext2fs_free_mem(&value);
	if (h)
		ext2fs_xattrs_close(&h);
	ext2fs_free_mem(&copy);
	return err;
}

/* What pass 1 asks of a fast symlink (e2fsck_pass1_check_symlink). */
static int bad_fast_symlink(const struct ext2_inode *inode)
{
	const unsigned char *b = (const unsigned char *)inode->i_block;
	size_t len;

	if (inode->i_flags & EXT4_EXTENTS_FL)
		return 1;
	/* Encrypted: a little-endian length, then the ciphertext. */
	if (inode->i_flags & EXT4_ENCRYPT_FL)
		len = (b[0] | b[1] << 8) + 2;
	else
		len = strnlen((const char *)inode->i_block,
			      sizeof(inode->i_block));
	return len >= sizeof(inode->i_block) || len != inode->i_size;
}

/*
 * Whether record @ino (@inode, @isize bytes of it, in CPU order) has
 * flags or maps that contradict each other, as e2fsck's pass 1 would
 * question them; the first such reason, or E2SR_Q_NONE.  A record with
 * no links is asked nothing: pass 1 passes every such record by before
 * its first question (e2fsck/pass1.c, "} else if ((ino >=
 * EXT2_FIRST_INODE" ... continue), so e2fsck would never settle it and
 * leaving it would leave it for ever; scrubbing a deleted record zeroes
 * it whole, whatever its flags say, and what its map names is wiped only
 * where both the bitmap and the live set call it free.  The
 * filesystem's own reserved records but the root are not asked: nothing
 * here edits them.
 */
enum e2sr_question e2sr_record_contradicts(ext2_filsys fs, ext2_ino_t ino,
					   const struct ext2_inode_large *inode,
					   int isize)
{
	const struct ext2_inode *in = (const struct ext2_inode *)inode;
	struct ext2_super_block *sb = fs->super;
	__u32 flags = in->i_flags;
	__u16 mode = in->i_mode;
	size_t size;

	if (!ino || (ino < EXT2_FIRST_INODE(sb) && ino != EXT2_ROOT_INO) ||
	    !in->i_links_count)
		return E2SR_Q_NONE;
	/* In pass 1's order: the first question it would ask. */
	if ((flags & EXT4_INLINE_DATA_FL) && (flags & EXT4_EXTENTS_FL))
		return E2SR_Q_INLINE_EXTENTS;
	if ((flags & EXT4_INLINE_DATA_FL) &&
	    !ext2fs_has_feature_inline_data(sb))
		return E2SR_Q_INLINE_FEATURE;

	if (is_special(mode)) {
		/* e2fsck_pass1_check_device_inode, check_extents_inlinedata */
		if (flags & (EXT2_INDEX_FL | EXT4_EXTENTS_FL |
			     EXT4_INLINE_DATA_FL))
			return E2SR_Q_SPECIAL_MAP;
		if (flags & (EXT2_IMMUTABLE_FL | EXT2_APPEND_FL)) {
			int i;

			for (i = 4; i < EXT2_N_BLOCKS; i++)
				if (in->i_block[i])
					return E2SR_Q_SPECIAL_MAP;
		}
		return E2SR_Q_NONE;
	}
	if ((flags & EXT4_EXTENTS_FL) && !ext2fs_has_feature_extents(sb))
		return E2SR_Q_EXTENTS_FEATURE;
	if ((flags & EXT2_INDEX_FL) &&
	    (!LINUX_S_ISDIR(mode) || !ext2fs_has_feature_dir_index(sb)))
		return E2SR_Q_INDEX;
	if (flags & EXT4_INLINE_DATA_FL) {
		if (inline_size(fs, ino, inode, isize, &size))
			return E2SR_Q_INLINE_NO_DATA;
		if ((LINUX_S_ISDIR(mode) || LINUX_S_ISLNK(mode)) &&
		    size != EXT2_I_SIZE(in))
			return E2SR_Q_INLINE_SIZE;
		return E2SR_Q_NONE;
	}
	if (LINUX_S_ISLNK(mode)) {
		if (in->i_size_high || !in->i_size)
			return E2SR_Q_SYMLINK;
		if (ext2fs_is_fast_symlink((struct ext2_inode *)in))
			return bad_fast_symlink(in) ? E2SR_Q_SYMLINK :
			       E2SR_Q_NONE;
	}
	if (flags & EXT4_EXTENTS_FL) {
		if (ext2fs_extent_header_verify((void *)in->i_block,
						sizeof(in->i_block)))
			return E2SR_Q_EXTENT_HEADER;
	} else if (ext2fs_has_feature_extents(sb) &&
		   (LINUX_S_ISREG(mode) || LINUX_S_ISDIR(mode)) &&
		   !ext2fs_extent_header_verify((void *)in->i_block,
						sizeof(in->i_block))) {
		/* pass 1 would offer to set the flag: which map is it? */
		return E2SR_Q_EXTENT_NOFLAG;
	}
	if (LINUX_S_ISDIR(mode) && (EXT2_I_SIZE(in) & (fs->blocksize - 1)))
		return E2SR_Q_DIR_SIZE;
	return E2SR_Q_NONE;
}

/*
 * A record as the inode table holds it (little-endian), for the
 * predicate: in CPU order, in @out.
 */
enum e2sr_question e2sr_raw_record_contradicts(ext2_filsys fs, ext2_ino_t ino,
					       const void *raw,
					       struct ext2_inode_large *out)
{
	int isize = EXT2_INODE_SIZE(fs->super);

	memcpy(out, raw, isize);
	if (ext2fs_cpu_to_le32(1) != 1)
		ext2fs_swap_inode_full(fs, out,
				       (struct ext2_inode_large *)raw, 0,
				       isize);
	return e2sr_record_contradicts(fs, ino, out, isize);
}

/*
 * The guard of a writer, just before it edits record @ino or a block it
 * maps: the record as it is now, read again, contradicts nothing.
 * E2SR_ERR_QUESTIONED if it does (the plan left such records: the
 * filesystem changed since).
 */
errcode_t e2sr_record_check(struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	ext2_filsys fs = ctx->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode_large *inode;
	errcode_t err;

	err = ext2fs_get_memzero(isize, &inode);
	if (err)
		return err;
	err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)inode, isize,
				 READ_INODE_NOCSUM);
	if (!err && e2sr_record_contradicts(fs, ino, inode, isize)) {
		snprintf(ctx->detail, sizeof(ctx->detail), "inode %u: %s", ino,
			 e2sr_question_text(e2sr_record_contradicts(fs, ino,
							inode, isize)));
		err = E2SR_ERR_QUESTIONED;
	}
	ext2fs_free_mem(&inode);
	return err;
}

static const struct {
	const char	*key;
	const char	*text;
} questions[E2SR_Q_COUNT] = {
	[E2SR_Q_NONE] = { "none", "no contradiction" },
	[E2SR_Q_INLINE_EXTENTS] = { "inline_data_and_extents",
		"both the inline-data and the extents flag" },
	[E2SR_Q_INLINE_FEATURE] = { "inline_data_without_feature",
		"the inline-data flag on a filesystem without inline_data" },
	[E2SR_Q_SPECIAL_MAP] = { "special_file_with_map",
		"a device, fifo or socket with the extents, inline-data or "
		"index flag, or blocks" },
	[E2SR_Q_EXTENTS_FEATURE] = { "extents_without_feature",
		"the extents flag on a filesystem without extents" },
	[E2SR_Q_INDEX] = { "index_flag",
		"the htree flag on a non-directory, or without dir_index" },
	[E2SR_Q_INLINE_NO_DATA] = { "inline_data_without_attribute",
		"the inline-data flag without a readable system.data "
		"attribute" },
	[E2SR_Q_INLINE_SIZE] = { "inline_data_size",
		"an inline directory or symlink whose size is not its "
		"inline data's" },
	[E2SR_Q_SYMLINK] = { "symlink",
		"a symlink whose size, flags or target disagree" },
	[E2SR_Q_EXTENT_HEADER] = { "extent_header",
		"the extents flag over an extent header that does not "
		"verify" },
	[E2SR_Q_EXTENT_NOFLAG] = { "extent_header_without_flag",
		"an extent header in a record without the extents flag" },
	[E2SR_Q_DIR_SIZE] = { "directory_size",
		"a directory whose size is not a multiple of the block "
		"size" },
};

const char *e2sr_question_key(enum e2sr_question why)
{
	return why < E2SR_Q_COUNT ? questions[why].key : "?";
}

const char *e2sr_question_text(enum e2sr_question why)
{
	return why < E2SR_Q_COUNT ? questions[why].text : "?";
}

/* The first entry at or after @ino (the list is sorted by inode). */
static size_t question_at(const struct e2sr_inventory *inv, ext2_ino_t ino)
{
	size_t lo = 0, hi = inv->question_count, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (inv->questions[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What the run noted of record @ino, or NULL: it was not questioned. */
struct e2sr_question_entry *e2sr_questioned(const struct e2sr_ctx *ctx,
					    ext2_ino_t ino)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	size_t i = question_at(inv, ino);

	if (i < inv->question_count && inv->questions[i].ino == ino)
		return &inv->questions[i];
	return NULL;
}

/* Note record @ino as questioned for @why (once; the first why stays). */
errcode_t e2sr_question_note(struct e2sr_ctx *ctx, ext2_ino_t ino,
			     enum e2sr_question why)
{
	struct e2sr_inventory *inv = &ctx->inv;
	struct e2sr_question_entry *q;
	size_t i;

	if (why == E2SR_Q_NONE || e2sr_questioned(ctx, ino))
		return 0;
	if (inv->question_count == inv->question_alloc &&
	    e2sr_array_room(&inv->questions, &inv->question_alloc,
			    inv->question_count + 1, sizeof(*inv->questions)))
		return EXT2_ET_NO_MEMORY;
	i = question_at(inv, ino);
	q = &inv->questions[i];
	memmove(q + 1, q, (inv->question_count - i) * sizeof(*q));
	inv->question_count++;
	memset(q, 0, sizeof(*q));
	q->ino = ino;
	q->why = why;
	return 0;
}

/*
 * Record @ino (questioned for @why) left by a kind: @what, an
 * E2SR_LEFT_* bit.  The first thing left of a record counts it as left
 * for e2fsck (exit bit 4); a secure-delete file's record is counted by
 * the plan itself (its state is unclear), and not again here.
 */
errcode_t e2sr_question_leave(struct e2sr_ctx *ctx, ext2_ino_t ino,
			      enum e2sr_question why, unsigned int what)
{
	struct e2sr_question_entry *q;
	errcode_t err;

	err = e2sr_question_note(ctx, ino, why);
	if (err)
		return err;
	q = e2sr_questioned(ctx, ino);
	if (!q->left)
		ctx->plan.left++;
	q->left |= what;
	return 0;
}

/*
 * A plan made again starts with nothing left but the secure-delete
 * files the scan found questioned (the plan counts those).
 */
void e2sr_questions_replan(struct e2sr_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->inv.question_count; i++)
		ctx->inv.questions[i].left &= E2SR_LEFT_FILE;
}
