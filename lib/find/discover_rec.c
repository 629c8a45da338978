/*
 * discover_rec.c --- the records discovery reads, and the inventory it
 * looks them up in.
 *
 * Owns reading a journal copy (escape undone) and one record out of it,
 * a record's creation time, its times, what it maps (the shape and map
 * checksums that tell one map from another), the live record of an
 * inode, whether an inode was in use when a copy was made (its bitmap's
 * copies) and whether a copy's slot holds a record, and the inventory's
 * index by identity.  What the records mean is the other discover*.c
 * files' to say.
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
#include "discover_int.h"

errcode_t e2sr_disc_add_version(struct discover *d, const struct iversion *iv)
{
	if (d->n == d->alloc &&
	    e2sr_array_room(&d->v, &d->alloc, d->n + 1,
			    sizeof(*d->v)))
		return EXT2_ET_NO_MEMORY;
	d->v[d->n++] = *iv;
	return 0;
}

/* The journal copy of a block, escape undone. */
/* @in_order: the caller goes through the log forward. */
errcode_t e2sr_disc_read_copy(struct discover *d, __u32 jblock, int escaped,
			      int in_order)
{
	struct e2sr_jreplay r;

	memset(&r, 0, sizeof(r));
	r.jblock = jblock;
	r.escaped = escaped;
	if (in_order)
		return e2sr_journal_copy_pass(d->ctx->journal, &r, d->block);
	return e2sr_journal_copy(d->ctx->journal, &r, d->block);
}

/*
 * Load one record of the current copy into d->inode; 0 if it is sane.
 * @len is 0 for a whole record of an inode table copy, else the length
 * of a fast commit's raw inode: the base record and its extra fields,
 * not the in-inode xattr space the checksum covers, so it is taken on
 * the strength of its place in a well-formed tag.
 */
int e2sr_disc_load_record(struct discover *d, ext2_ino_t ino, unsigned int off,
			  unsigned int len)
{
	ext2_filsys fs = d->ctx->fs;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);

	memset(d->inode, 0, d->isize);
	if (len) {
		if (len > isz)
			len = isz;
		if (off + len > fs->blocksize)
			return -1;
		memcpy(d->inode, d->block + off, len);
	} else {
		memcpy(d->inode, d->block + off, isz);
	}
	if (!d->inode->i_mode && !d->inode->i_flags)
		return -1;		/* never used */
	if (!len && ext2fs_has_feature_metadata_csum(fs->super) &&
	    !e2sr_inode_csum_ok(fs, ino, d->inode))
		return -1;
	return 0;
}

/*
 * A record's creation time, seconds and nanoseconds; 0 seconds when the
 * record (or a fast commit's copy of @len bytes of it) holds none.  Only
 * debugfs changes it: two records of one inode number with the same
 * creation time are one file, whatever their generations say
 * (`chattr -v` sets a new one).
 */
void e2sr_disc_record_crtime(const struct ext2_inode_large *in,
			     unsigned int isz, unsigned int len, __u32 *sec,
			     __u32 *nsec)
{
	unsigned int need = offsetof(struct ext2_inode_large,
				     i_crtime_extra) +
			    sizeof(in->i_crtime_extra);
	unsigned int extra;

	*sec = 0;
	*nsec = 0;
	if (isz < need || (len && len < need))
		return;
	extra = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;
	if (extra < need || extra > isz)
		return;
	*sec = in->i_crtime;
	*nsec = in->i_crtime_extra >> EXT4_EPOCH_BITS;
}

/*
 * What a record maps, its flags aside: blocks, bytes, EA block.  The
 * generation and the flags are what `chattr -v` and `chattr +s` change.
 */
__u32 e2sr_disc_shape_crc(const struct ext2_inode_large *inode)
{
	__u32 crc;

	crc = e2sr_crc32c_le(~0U, (const unsigned char *)inode->i_block,
			       sizeof(inode->i_block));
	crc = e2sr_crc32c_le(crc, (const unsigned char *)&inode->i_blocks,
			       sizeof(inode->i_blocks));
	crc = e2sr_crc32c_le(crc, (const unsigned char *)&inode->i_size,
			       sizeof(inode->i_size));
	crc = e2sr_crc32c_le(crc,
			       (const unsigned char *)&inode->i_size_high,
			       sizeof(inode->i_size_high));
	return e2sr_crc32c_le(crc,
				(const unsigned char *)&inode->i_file_acl,
				sizeof(inode->i_file_acl));
}

int e2sr_disc_shape_empty(const struct ext2_inode_large *inode)
{
	return !inode->i_size && !inode->i_size_high && !inode->i_blocks &&
	       !inode->i_file_acl;
}

/*
 * The times of the record in d->inode.  Nanoseconds are known where the
 * record is large enough to hold both extra fields (and, for a fast
 * commit's raw inode, where the tag held them): @len as
 * e2sr_disc_load_record's.
 */
void e2sr_disc_note_times(const struct discover *d, struct iversion *iv,
			  unsigned int len)
{
	const struct ext2_inode_large *in = d->inode;
	unsigned int isz = EXT2_INODE_SIZE(d->ctx->fs->super);
	unsigned int need = offsetof(struct ext2_inode_large, i_mtime_extra) +
			    sizeof(in->i_mtime_extra);

	iv->ctime = in->i_ctime;
	iv->mtime = in->i_mtime;
	unsigned int extra = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;

	iv->precise = isz >= need && (!len || len >= need) &&
		      extra >= need && extra <= isz;
	if (iv->precise) {
		iv->ctime_nsec = in->i_ctime_extra >> EXT4_EPOCH_BITS;
		iv->mtime_nsec = in->i_mtime_extra >> EXT4_EPOCH_BITS;
	}
	e2sr_disc_record_crtime(in, isz, len, &iv->crtime, &iv->crtime_nsec);
	iv->shape = e2sr_disc_shape_crc(in);
	iv->empty = e2sr_disc_shape_empty(in);
}

/* What a record maps and its flags: one map of one file's life. */
__u32 e2sr_disc_map_crc(const struct ext2_inode_large *inode)
{
	return e2sr_crc32c_le(e2sr_disc_shape_crc(inode),
			      (const unsigned char *)&inode->i_flags,
			      sizeof(inode->i_flags));
}

static int cmp_file_ref(const void *a, const void *b)
{
	const struct file_ref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Identities are looked up in the inventory the scan made; the ones
 * discovery adds are new identities, never looked up again.
 */
errcode_t e2sr_disc_index_files(struct discover *d)
{
	const struct e2sr_inventory *inv = &d->ctx->inv;
	size_t i;
	errcode_t err;

	if (!inv->count)
		return 0;
	err = ext2fs_get_array(inv->count, sizeof(*d->files), &d->files);
	if (err)
		return err;
	for (i = 0; i < inv->count; i++) {
		d->files[i].ino = inv->files[i].ino;
		d->files[i].generation = inv->files[i].generation;
		d->files[i].idx = i;
	}
	d->nfiles = inv->count;
	qsort(d->files, d->nfiles, sizeof(*d->files), cmp_file_ref);
	return 0;
}

/* The first inventory file of an identity, or -1. */
long e2sr_disc_find_file(const struct discover *d, ext2_ino_t ino, __u32 gen)
{
	size_t lo = 0, hi = d->nfiles, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->files[mid].ino < ino ||
		    (d->files[mid].ino == ino &&
		     d->files[mid].generation < gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->nfiles && d->files[lo].ino == ino &&
	    d->files[lo].generation == gen)
		return (long)d->files[lo].idx;
	return -1;
}

/*
 * Orphans and unclear records are e2fsck's to settle, and so is what
 * their entries name.
 */
int e2sr_disc_follows_refs(const struct e2sr_file *file)
{
	return file->state == E2SR_STATE_LIVE ||
	       file->state == E2SR_STATE_DELETED ||
	       file->state == E2SR_STATE_HISTORIC;
}

/* The inode table block that holds @ino's record; 0 if none. */
blk64_t e2sr_disc_itable_block(ext2_filsys fs, ext2_ino_t ino)
{
	__u32 ipg = fs->super->s_inodes_per_group;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	blk64_t blk;

	if (!ino || !ipg || !ipb || ino > fs->super->s_inodes_count)
		return 0;
	blk = ext2fs_inode_table_loc(fs, (ino - 1) / ipg);
	if (!blk)
		return 0;
	return blk + ((ino - 1) % ipg) / ipb;
}

/* The live record of @ino into d->live, on-disk bytes; 0 if read. */
int e2sr_disc_read_live(struct discover *d, ext2_ino_t ino)
{
	ext2_filsys fs = d->ctx->fs;
	errcode_t err;

	memset(d->live, 0, d->isize);
	/* A secure-delete file's, as the live pass took it: no read. */
	if (e2sr_live_rec_get(d->ctx, ino, d->live))
		return 0;
	err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)d->live,
				 EXT2_INODE_SIZE(fs->super),
				 READ_INODE_NOCSUM);
	return err ? -1 : 0;
}

/*
 * Whether @ino was in use when transaction @seq committed, as the newest
 * readable copy of its group's inode bitmap at or before @seq says: 1 in
 * use, 0 free, -1 not known (no such copy, and the log does not reach
 * back to the filesystem's creation, when every inode past the reserved
 * ones was free).  The kernel logs the bitmap in the handle that
 * allocates or frees the inode (__ext4_new_inode(), ext4_free_inode()),
 * so no change hides between two copies.  Overwrites d->block.
 */
errcode_t e2sr_disc_ino_used_at(struct discover *d, ext2_ino_t ino, __u32 seq,
				 int *used)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	const struct e2sr_coverage *cov = &ctx->coverage;
	__u32 ipg = fs->super->s_inodes_per_group, bit;
	const struct e2sr_version *v;
	size_t i, count, best = 0;
	int found = 0;
	blk64_t blk;
	errcode_t err;

	*used = -1;
	/* The superblock's numbers, not trusted as divisors or indices. */
	if (!ino || !ipg || ino > fs->super->s_inodes_count)
		return 0;
	bit = (ino - 1) % ipg;
	blk = ext2fs_inode_bitmap_loc(fs, (ino - 1) / ipg);
	if (!blk || bit / 8 >= fs->blocksize)
		return 0;
	v = e2sr_history_versions(&ctx->history, blk, &count);
	for (i = 0; i < count; i++) {
		if (v[i].kind != E2SR_JK_IBITMAP || !v[i].verified ||
		    !v[i].committed || !tid_le(v[i].sequence, seq) ||
		    !e2sr_coverage_readable(cov, v[i].sequence))
			continue;
		if (!found || tid_le(v[best].sequence, v[i].sequence))
			best = i;
		found = 1;
	}
	if (!found) {
		if (cov->how == E2SR_COVER_CREATION)
			*used = ino < EXT2_FIRST_INO(fs->super);
		return 0;
	}
	err = e2sr_disc_read_copy(d, v[best].jblock, v[best].escaped, 0);
	if (err)
		return err;
	*used = (d->block[bit / 8] >> (bit % 8)) & 1;
	return 0;
}

/*
 * Whether the slot of @ino in the copy d->block holds a record: 0 when it
 * reads as none (never used, or wiped: all zero, or with metadata_csum a
 * record whose checksum fails), else 1, the record in d->inode.
 */
int e2sr_disc_slot_record(struct discover *d, ext2_ino_t ino,
			  const struct e2sr_version *v)
{
	ext2_filsys fs = d->ctx->fs;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);
	const struct ext2_inode_large *rec;

	rec = (const struct ext2_inode_large *)
	      (d->block + (ino - v->ino) * isz);
	if (!rec->i_mode && !rec->i_flags)
		return 0;
	memcpy(d->inode, rec, isz);
	if (ext2fs_has_feature_metadata_csum(fs->super) &&
	    !ext2fs_inode_csum_verify(fs, ino, d->inode))
		return 0;
	return 1;
}
