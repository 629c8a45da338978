/*
 * discover_map.c --- the maps of historic versions, folded into files.
 *
 * Owns reading a version's block map through the history view (the
 * copy of each tree, indirect and EA block nearest the version's
 * transaction), folding its extents into the inventory file as historic,
 * the record's journal copies as residues, the blocks the record said it
 * had, the EA inodes a version's entries name, and the fast-commit
 * ranges of an identity.  Which identities and which file are decided
 * before (discover_ident.c, discover_ea.c).
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
#include "ea_inode.h"
#include "discover_int.h"

/*
 * The copy of @blk a record of transaction @seq saw: the newest one not
 * after it, else the oldest one after it.  Layout blocks never hold a
 * map, and unverified copies are not trusted with one.
 */
int e2sr_disc_nearest_copy(void *priv, blk64_t blk, struct e2sr_jreplay *copy)
{
	const struct nearest *n = priv;
	const struct e2sr_version *v, *best = NULL;
	size_t i, count;

	v = e2sr_history_versions(n->h, blk, &count);
	for (i = 0; i < count; i++) {
		if (!v[i].verified || (v[i].kind != E2SR_JK_FREE &&
		    v[i].kind != E2SR_JK_UNKNOWN &&
		    v[i].kind != E2SR_JK_EXTENT && v[i].kind != E2SR_JK_IND &&
		    v[i].kind != E2SR_JK_EA && v[i].kind != E2SR_JK_DATA))
			continue;
		if (!best) {
			best = &v[i];
			continue;
		}
		if (tid_le(v[i].sequence, n->seq)) {
			if (!tid_le(best->sequence, n->seq) ||
			    tid_le(best->sequence, v[i].sequence))
				best = &v[i];
		} else if (!tid_le(best->sequence, n->seq) &&
			   tid_le(v[i].sequence, best->sequence)) {
			best = &v[i];
		}
	}
	if (!best)
		return 0;
	memset(copy, 0, sizeof(*copy));
	copy->fs_block = blk;
	copy->jblock = best->jblock;
	copy->sequence = best->sequence;
	copy->escaped = best->escaped;
	return 1;
}

/*
 * Read a historic map through the history view: its tree, indirect and
 * EA blocks as the journal kept them near the record's transaction,
 * where the device's copy may be someone else's by now.
 */
static errcode_t map_through_history(struct discover *d,
				     struct e2sr_file *tmp, __u32 seq)
{
	struct e2sr_map_source src;

	if (!d->hio)
		return e2sr_file_map(d->ctx, tmp, d->inode);
	d->near.seq = seq;
	src.io = d->hio;
	src.lookup = e2sr_disc_nearest_copy;
	src.priv = &d->near;
	return e2sr_file_map_from(d->ctx, tmp, d->inode, &src);
}

/*
 * The blocks a record counts for its map (i_blocks, in blocks, less its
 * EA block, which every inode sharing it is charged for).
 */
static blk64_t record_blocks(ext2_filsys fs, struct ext2_inode_large *in)
{
	blk64_t n = ext2fs_get_stat_i_blocks(fs, (struct ext2_inode *)in) /
		    (fs->blocksize / 512);

	if (n && ext2fs_file_acl_block(fs, (struct ext2_inode *)in))
		n--;
	return n;
}

static int cmp_ext_pblk(const void *a, const void *b)
{
	const struct e2sr_extent *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* The distinct blocks of a file's map, EA blocks aside. */
errcode_t e2sr_disc_map_distinct(const struct e2sr_file *f, blk64_t *count)
{
	struct e2sr_extent *e;
	blk64_t end = 0, n = 0, s, t;
	size_t i, k = 0;
	errcode_t err;

	*count = 0;
	if (!f->map_count)
		return 0;
	err = ext2fs_get_array(f->map_count, sizeof(*e), &e);
	if (err)
		return err;
	for (i = 0; i < f->map_count; i++)
		if (f->map[i].kind != E2SR_EXT_EA && f->map[i].len)
			e[k++] = f->map[i];
	qsort(e, k, sizeof(*e), cmp_ext_pblk);
	for (i = 0; i < k; i++) {
		s = e[i].pblk > end ? e[i].pblk : end;
		t = e[i].pblk + e[i].len;
		if (t > s)
			n += t - s;
		if (t > end)
			end = t;
	}
	ext2fs_free_mem(&e);
	*count = n;
	return 0;
}

/* The transaction of a version, 0 when not known. */
static __u32 version_seq(const struct iversion *iv)
{
	if (!iv->fc)
		return iv->sequence;
	return iv->fc_whole ? iv->fc_tid : 0;
}

/*
 * Versions with one map are read once, and the extents it gave say the
 * newest of them: the file held those blocks until then, and its own
 * later copies are not another owner's writes.  One of unknown time
 * makes them all unknown (never taken for overwritten).
 */
static void raise_seq(struct e2sr_file *file, size_t from, __u32 seq)
{
	size_t i;

	for (i = from; i < file->map_count; i++) {
		if (!seq || !file->map[i].seq)
			file->map[i].seq = 0;
		else if (seq > file->map[i].seq)
			file->map[i].seq = seq;
	}
}

/* Map one historic record and fold its extents into the file. */
static errcode_t map_version(struct discover *d, size_t fidx,
			     const struct iversion *iv, blk64_t charge)
{
	struct e2sr_ctx *ctx = d->ctx;
	struct e2sr_file tmp, *file;
	blk64_t said;
	size_t i, n;
	errcode_t err;

	err = e2sr_disc_read_copy(d, iv->jblock, iv->escaped, 0);
	if (err)
		return err;
	if (e2sr_disc_load_record(d, iv->ino, iv->offset, iv->len))
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	tmp.ino = iv->ino;
	tmp.generation = iv->generation;
	tmp.state = E2SR_STATE_DELETED;	/* trust only what is free */
	err = map_through_history(d, &tmp, iv->sequence);
	if (err) {
		e2sr_file_free(&tmp);
		return err;
	}
	file = &ctx->inv.files[fidx];
	file->versions_mapped++;
	if (EXT2_I_SIZE(d->inode) || d->inode->i_blocks)
		file->had_data = 1;
	said = record_blocks(ctx->fs, d->inode);
	said = said > charge ? said - charge : 0;
	if (said > file->blocks_said)
		file->blocks_said = said;
	n = file->map_count + tmp.map_count;
	if (tmp.map_count && e2sr_array_room(&file->map, &file->map_alloc, n,
					     sizeof(*file->map))) {
		e2sr_file_free(&tmp);
		return EXT2_ET_NO_MEMORY;
	}
	for (i = 0; i < tmp.map_count; i++) {
		tmp.map[i].historic = 1;
		tmp.map[i].seq = version_seq(iv);
		file->map[file->map_count++] = tmp.map[i];
	}
	if (tmp.map_count) {
		file->map_status |= E2SR_MAP_JOURNAL;
		file->map_status &= ~E2SR_MAP_EMPTY;
		file->free_blocks += tmp.free_blocks;
	}
	/* A live file's old map is in use again by itself: no news. */
	if (file->state != E2SR_STATE_LIVE) {
		file->map_status |= tmp.map_status &
				    (E2SR_MAP_DAMAGED | E2SR_MAP_REUSED |
				     E2SR_MAP_WIPED);
		if (!file->map_error)
			file->map_error = tmp.map_error;
	}
	e2sr_file_free(&tmp);
	return 0;
}

/*
 * The record's slot in an inode table copy; a fast commit's raw inode is
 * one tag among others of its block, which goes whole.
 */
static errcode_t add_jcopy(struct e2sr_inventory *inv,
			   const struct iversion *iv, unsigned int isize)
{
	if (e2sr_array_room(&inv->jcopies, &inv->jcopy_alloc,
			    inv->jcopy_count + 1, sizeof(*inv->jcopies)))
		return EXT2_ET_NO_MEMORY;
	inv->jcopies[inv->jcopy_count].jblock = iv->jblock;
	inv->jcopies[inv->jcopy_count].ino = iv->ino;
	inv->jcopies[inv->jcopy_count].off = iv->len ? 0 : iv->offset;
	inv->jcopies[inv->jcopy_count].len = iv->len ? 0 : isize;
	inv->jcopies[inv->jcopy_count].flagged = iv->secrm;
	inv->jcopy_count++;
	return 0;
}

/*
 * The entries of an EA block that name EA inodes: the block as the
 * journal kept it near transaction @seq when @historic, else the device's.
 * A block that cannot be read hides what it named.
 */
errcode_t e2sr_disc_block_refs(struct discover *d, blk64_t blk, __u32 seq,
			       int historic, size_t idx)
{
	ext2_filsys fs = d->ctx->fs;
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	errcode_t err;

	if (!blk)
		return 0;
	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return 0;	/* the map walk says it is damaged */
	if (historic && d->hio) {
		d->near.seq = seq;
		err = io_channel_read_blk64(d->hio, blk, 1, d->eablock);
	} else {
		err = io_channel_read_blk64(fs->io, blk, 1, d->eablock);
	}
	if (err) {
		file->map_status |= E2SR_MAP_DAMAGED;
		if (!file->map_error)
			file->map_error = err;
		return 0;
	}
	return e2sr_ea_refs_block(fs, d->eablock, (ext2_ino_t)idx, &d->refs);
}

/*
 * The EA inodes a journal version of a record names, and in @charge the
 * blocks their values count in the record's i_blocks: the kernel charges
 * each value, rounded up to whole blocks, to the inode whose entry names
 * it (ext4_xattr_inode_alloc_quota), not to the EA inode's map.  -1 when
 * the version cannot say (a fast commit's raw inode stops before the
 * in-inode area).
 */
static errcode_t version_refs(struct discover *d, const struct iversion *iv,
			      size_t idx, blk64_t *charge)
{
	ext2_filsys fs = d->ctx->fs;
	size_t n0 = d->refs.n, i;
	errcode_t err;

	*charge = (blk64_t)-1;
	if (iv->len)
		return 0;
	err = e2sr_disc_read_copy(d, iv->jblock, iv->escaped, 0);
	if (err)
		return err;
	if (e2sr_disc_load_record(d, iv->ino, iv->offset, 0))
		return 0;
	err = e2sr_ea_refs_ibody(fs, d->inode, (ext2_ino_t)idx, &d->refs);
	if (err)
		return err;
	err = e2sr_disc_block_refs(d, ext2fs_file_acl_block(fs,
				(struct ext2_inode *)d->inode),
				   iv->sequence, 1, idx);
	if (err)
		return err;
	*charge = 0;
	for (i = n0; i < d->refs.n; i++)
		*charge += (d->refs.v[i].size + fs->blocksize - 1) /
			   fs->blocksize;
	return 0;
}

/*
 * Each version's copy is planned; each distinct map is read.  @refs:
 * whether the versions' xattr entries are followed too.
 */
errcode_t e2sr_disc_map_versions(struct discover *d, size_t first, size_t end,
				 size_t idx, int refs)
{
	struct e2sr_ctx *ctx = d->ctx;
	blk64_t charge = 0, said_charge = 0;
	size_t i, from = 0;
	errcode_t err;

	/*
	 * A version that cannot show its entries is charged what the last
	 * one that could was; none before it: nothing, so that a count the
	 * map falls short of is said (a loss reported, not hidden).
	 */
	for (i = first; i < end; i++) {
		/* The copy holding it is a residue too. */
		err = add_jcopy(&ctx->inv, &d->v[i],
				EXT2_INODE_SIZE(ctx->fs->super));
		if (err)
			return err;
		/* Its entries may differ where its map does not. */
		if (refs) {
			err = version_refs(d, &d->v[i], idx, &charge);
			if (err)
				return err;
			if (charge != (blk64_t)-1)
				said_charge = charge;
		}
		/* Versions with the same map: read it once. */
		if (i > first && d->v[i].map_crc == d->v[i - 1].map_crc) {
			raise_seq(&ctx->inv.files[idx], from,
				  version_seq(&d->v[i]));
			continue;
		}
		from = ctx->inv.files[idx].map_count;
		err = map_version(d, (size_t)idx, &d->v[i], said_charge);
		if (err)
			return err;
	}
	return 0;
}

/* The first fast-commit range of an identity, or d->nr. */
static size_t first_range(const struct discover *d, ext2_ino_t ino,
			  __u32 gen)
{
	size_t lo = 0, hi = d->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->r[mid].ino < ino ||
		    (d->r[mid].ino == ino && d->r[mid].generation < gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The ranges fast commits logged for the identity join its map as
 * historic extents: the plan wipes what of them is free now.  A range
 * outside the filesystem is a damaged map, not a write.
 */
errcode_t e2sr_disc_map_ranges(struct discover *d, size_t idx, ext2_ino_t ino,
			       __u32 gen)
{
	ext2_filsys fs = d->ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	const struct frange *r;
	struct e2sr_extent *e;
	size_t i;
	__u32 k, nfree;

	for (i = first_range(d, ino, gen); i < d->nr; i++) {
		r = &d->r[i];
		if (r->ino != ino || r->generation != gen)
			break;
		if (!r->len || r->len > 32768 ||
		    r->pblk < fs->super->s_first_data_block ||
		    r->pblk >= end || r->len > end - r->pblk) {
			file->map_status |= E2SR_MAP_DAMAGED;
			if (!file->map_error)
				file->map_error = EXT2_ET_BAD_BLOCK_NUM;
			continue;
		}
		if (file->map_count == file->map_alloc &&
		    e2sr_array_room(&file->map, &file->map_alloc,
				    file->map_count + 1, sizeof(*file->map)))
			return EXT2_ET_NO_MEMORY;
		for (k = 0, nfree = 0; k < r->len; k++)
			if (!ext2fs_test_block_bitmap2(fs->block_map,
						       r->pblk + k))
				nfree++;
		e = &file->map[file->map_count++];
		memset(e, 0, sizeof(*e));
		e->pblk = r->pblk;
		e->lblk = r->lblk;
		e->len = r->len;
		e->kind = r->kind;
		e->nfree = nfree;
		e->historic = 1;
		e->seq = r->tid;
		file->free_blocks += nfree;
		file->had_data = 1;
		file->map_status |= E2SR_MAP_JOURNAL;
		file->map_status &= ~E2SR_MAP_EMPTY;
	}
	return 0;
}
