/*
 * discover_ea.c --- the EA inodes secure-delete files name.
 *
 *
 * With ea_inode, a large xattr value lives in an inode of its own, which
 * does not carry the flag of the file it belongs to.  Every entry of a
 * secure-delete file's records (the live one and every journal version,
 * in-inode area and EA block as the journal kept it) that names an EA
 * inode is followed (ea_inode.c): the versions of that inode that are the
 * value the entry names make an identity of their own, taken into the
 * inventory with its maps and its journal copies, and wiped as the file's
 * own are.  One still in use is another file's value too (EA inodes are
 *
 * Owns the entries the live records name, and each EA inode's identities
 * that are the value an entry names, added to the inventory.  Their maps
 * are read by discover_map.c; the entries of journal versions are
 * gathered there too, as the versions are mapped.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include "e2secrm.h"
#include "util.h"
#include "find_int.h"
#include "ea_inode.h"
#include "discover_int.h"

/* The EA inodes the live records of the inventory's files name. */
errcode_t e2sr_disc_live_refs(struct discover *d)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	size_t i, n = ctx->inv.count;
	errcode_t err;

	for (i = 0; i < n; i++) {
		const struct e2sr_file *file = &ctx->inv.files[i];

		if (file->state == E2SR_STATE_HISTORIC ||
		    !e2sr_disc_follows_refs(file) ||
		    e2sr_disc_read_live(d, file->ino))
			continue;
		err = e2sr_ea_refs_ibody(fs, d->live, (ext2_ino_t)i,
					 &d->refs);
		if (!err)
			err = e2sr_disc_block_refs(d, ext2fs_file_acl_block(fs,
					(struct ext2_inode *)d->live), 0, 0, i);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Whether @record is the value one of refs [a, b) names.  A deleted EA
 * inode has lost its size with its map, not its flag nor its hash.
 */
static int ea_matches(const struct discover *d, size_t a, size_t b,
		      const struct ext2_inode_large *record)
{
	struct e2sr_ea_ref r;
	size_t i;

	for (i = a; i < b; i++) {
		r = d->refs.v[i];
		if (e2sr_ea_ref_matches(&r, record))
			return 1;
		if (!record->i_links_count && !EXT2_I_SIZE(record)) {
			r.size = 0;
			if (e2sr_ea_ref_matches(&r, record))
				return 1;
		}
	}
	return 0;
}

/* The first version of inode @ino in d->v, or d->n. */
static size_t first_version(const struct discover *d, ext2_ino_t ino)
{
	size_t lo = 0, hi = d->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * An EA inode identity the inventory does not have yet: its state from
 * the live record, its maps from that record and from its versions
 * [first, end) of d->v.  @owner: the inventory file whose value it is.
 */
static errcode_t add_ea_identity(struct discover *d, ext2_ino_t ino,
				 __u32 gen, size_t first, size_t end,
				 size_t owner)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	struct e2sr_file *file;
	ext2_ino_t owner_ino = ctx->inv.files[owner].ino;
	size_t idx;
	int used;
	errcode_t err;

	if (e2sr_disc_find_file(d, ino, gen) >= 0)
		return 0;	/* +s itself (inherited): already taken */
	err = e2sr_inventory_add(&ctx->inv, &file);
	if (err)
		return err;
	idx = ctx->inv.count - 1;
	file->ino = ino;
	file->generation = gen;
	file->ea_owner = owner_ino;
	file->state = E2SR_STATE_HISTORIC;
	if (!e2sr_disc_read_live(d, ino) && d->live->i_generation == gen) {
		used = ext2fs_test_inode_bitmap2(fs->inode_map, ino);
		file->mode = d->live->i_mode;
		file->links = d->live->i_links_count;
		file->flags = d->live->i_flags;
		file->dtime = d->live->i_dtime;
		file->size = EXT2_I_SIZE(d->live);
		/* As the scan decides a secure-delete record's state. */
		if (used)
			file->state = file->links ? E2SR_STATE_LIVE :
				      E2SR_STATE_ORPHAN;
		else
			file->state = file->links ? E2SR_STATE_UNCLEAR :
				      E2SR_STATE_DELETED;
		err = e2sr_file_map(ctx, file, d->live);
		if (err)
			return err;
	}
	file->versions += end - first;
	err = e2sr_disc_map_versions(d, first, end, idx, 0);
	if (err)
		return err;
	file = &ctx->inv.files[idx];
	if ((file->map_status & E2SR_MAP_EMPTY) && !file->had_data &&
	    !file->size)
		file->map_status &= ~E2SR_MAP_EMPTY;
	return 0;
}

/*
 * EA inode @ino, named by refs [a, b): every identity of it that is the
 * value one of them names, in the live table or in the journal.  None at
 * all: the value cannot be traced, and its owners' maps say so.
 */
static errcode_t take_ea_inode(struct discover *d, size_t a, size_t b)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_ino_t ino = d->refs.v[a].ea_ino;
	size_t owner = d->refs.v[a].owner, i, x, y;
	int found = 0, live_gen_ok;
	__u32 live_gen = 0;
	errcode_t err;

	live_gen_ok = !e2sr_disc_read_live(d, ino) &&
		      ea_matches(d, a, b, d->live);
	if (live_gen_ok)
		live_gen = d->live->i_generation;
	for (x = first_version(d, ino); x < d->n && d->v[x].ino == ino;
	     x = y) {
		for (y = x + 1; y < d->n && d->v[y].ino == ino &&
		     d->v[y].generation == d->v[x].generation; y++)
			;
		if (live_gen_ok && d->v[x].generation == live_gen) {
			err = add_ea_identity(d, ino, live_gen, x, y, owner);
			if (err)
				return err;
			found = 1;
			live_gen_ok = 0;	/* taken */
			continue;
		}
		for (i = x; i < y; i++) {
			err = e2sr_disc_read_copy(d, d->v[i].jblock,
						  d->v[i].escaped, 0);
			if (err)
				return err;
			if (e2sr_disc_load_record(d, ino, d->v[i].offset,
						  d->v[i].len) ||
			    !ea_matches(d, a, b, d->inode))
				continue;
			err = add_ea_identity(d, ino, d->v[x].generation, x, y,
					      owner);
			if (err)
				return err;
			found = 1;
			break;
		}
	}
	if (live_gen_ok) {
		err = add_ea_identity(d, ino, live_gen, 0, 0, owner);
		if (err)
			return err;
		found = 1;
	}
	if (found)
		return 0;
	for (i = a; i < b; i++) {
		struct e2sr_file *f = &ctx->inv.files[d->refs.v[i].owner];

		f->map_status |= E2SR_MAP_DAMAGED;
		if (!f->map_error)
			f->map_error = EXT2_ET_EA_INODE_CORRUPTED;
	}
	return 0;
}

/* Every EA inode the secure-delete files' entries named. */
errcode_t e2sr_disc_take_ea_inodes(struct discover *d)
{
	size_t a, b;
	errcode_t err;

	if (!d->refs.n)
		return 0;
	e2sr_ea_refs_sort(&d->refs);
	/* Identities discovery added are looked up from now on too. */
	ext2fs_free_mem(&d->files);
	d->files = NULL;
	d->nfiles = 0;
	err = e2sr_disc_index_files(d);
	for (a = 0; !err && a < d->refs.n; a = b) {
		if (e2sr_cancelled(d->ctx))
			return E2SR_ERR_CANCELLED;
		for (b = a + 1; b < d->refs.n &&
		     d->refs.v[b].ea_ino == d->refs.v[a].ea_ino; b++)
			;
		err = take_ea_inode(d, a, b);
	}
	return err;
}
