/*
 * ea_inode.c --- finding the EA inodes a file's xattr entries name.
 *
 * Owns the parsing of xattr entries for the one thing the engine needs of
 * them: which entries keep their value in an EA inode (e_value_inum), and
 * whether a given version of that inode is the value an entry names.
 * libext2fs' xattr handles read every value, EA inodes included, from the
 * live filesystem; here the records and EA blocks are versions from the
 * journal or from free space, so the entries are read from the bytes as
 * they are, little-endian, each bounded by the area that holds it.
 *
 * A reference alone proves nothing: an inode number of a deleted file may
 * be anyone's by now.  A version is the value only if it carries
 * EXT4_EA_INODE_FL, its size is the entry's e_value_size, and its hash
 * (i_atime) folded into the name's hash gives the entry's e_hash, as the
 * kernel computes it (ext4_xattr_set_entry, ext4_xattr_hash_entry).
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
#include "ea_inode.h"

#define ENTRY_SIZE	16	/* struct ext2_ext_attr_entry, no name */
#define HEADER_SIZE	32	/* struct ext2_ext_attr_header */
#define VALUE_HASH_SHIFT 16

static errcode_t add_ref(struct e2sr_ea_refs *refs,
			 const struct e2sr_ea_ref *r)
{
	if (refs->n == refs->alloc &&
	    e2sr_array_room(&refs->v, &refs->alloc, refs->n + 1,
			    sizeof(*refs->v)))
		return EXT2_ET_NO_MEMORY;
	refs->v[refs->n++] = *r;
	return 0;
}

/*
 * The entries in [start, end) of @area, up to the four zero bytes that
 * end the list.  Each entry is at least ENTRY_SIZE bytes, so the walk
 * ends within the area whatever it holds.
 */
static errcode_t walk_entries(ext2_filsys fs, const unsigned char *area,
			      unsigned int start, unsigned int end,
			      ext2_ino_t owner, struct e2sr_ea_refs *refs)
{
	/* An entry in host order, then its name: what libext2fs hashes. */
	union {
		struct ext2_ext_attr_entry	e;
		unsigned char			b[ENTRY_SIZE + 256];
	} h;
	struct e2sr_ea_ref r;
	unsigned int off = start, name_len, len;
	errcode_t err;

	while (off + ENTRY_SIZE <= end) {
		if (!e2sr_get_le32(area + off))
			break;
		name_len = area[off];
		len = EXT2_EXT_ATTR_LEN(name_len);
		if (len > end - off)
			break;
		memset(&r, 0, sizeof(r));
		r.ea_ino = e2sr_get_le32(area + off + 4);
		if (r.ea_ino && name_len &&
		    r.ea_ino >= EXT2_FIRST_INODE(fs->super) &&
		    r.ea_ino <= fs->super->s_inodes_count) {
			memset(&h, 0, sizeof(h));
			h.e.e_name_len = name_len;
			h.e.e_name_index = area[off + 1];
			h.e.e_value_offs = e2sr_get_le16(area + off + 2);
			h.e.e_value_inum = r.ea_ino;
			h.e.e_value_size = e2sr_get_le32(area + off + 8);
			h.e.e_hash = e2sr_get_le32(area + off + 12);
			memcpy(h.b + sizeof(h.e), area + off + ENTRY_SIZE,
			       name_len);
			r.owner = owner;
			r.size = h.e.e_value_size;
			r.e_hash = h.e.e_hash;
			r.name_hash = ext2fs_ext_attr_hash_entry(&h.e, NULL);
			r.name_hash_signed =
				ext2fs_ext_attr_hash_entry_signed(&h.e, NULL);
			err = add_ref(refs, &r);
			if (err)
				return err;
		}
		off += len;
	}
	return 0;
}

/* The entries of a record's in-inode area (@record: on-disk bytes). */
errcode_t e2sr_ea_refs_ibody(ext2_filsys fs, const void *record,
			     ext2_ino_t owner, struct e2sr_ea_refs *refs)
{
	const unsigned char *b = record;
	unsigned int isz = EXT2_INODE_SIZE(fs->super), extra, start;

	if (isz <= EXT2_GOOD_OLD_INODE_SIZE + 2)
		return 0;
	extra = e2sr_get_le16(b + EXT2_GOOD_OLD_INODE_SIZE);
	if (extra & 3)
		return 0;
	start = EXT2_GOOD_OLD_INODE_SIZE + extra;
	if (start + 4 > isz || e2sr_get_le32(b + start) != EXT2_EXT_ATTR_MAGIC)
		return 0;
	return walk_entries(fs, b, start + 4, isz, owner, refs);
}

/* The entries of an EA block (@block: on-disk bytes). */
errcode_t e2sr_ea_refs_block(ext2_filsys fs, const void *block,
			     ext2_ino_t owner, struct e2sr_ea_refs *refs)
{
	const unsigned char *b = block;

	if (e2sr_get_le32(b) != EXT2_EXT_ATTR_MAGIC || e2sr_get_le32(b + 8) != 1)
		return 0;
	return walk_entries(fs, b, HEADER_SIZE, fs->blocksize, owner, refs);
}

static __u32 fold(__u32 name_hash, __u32 value_hash)
{
	return (name_hash << VALUE_HASH_SHIFT) ^
	       (name_hash >> (32 - VALUE_HASH_SHIFT)) ^ value_hash;
}

/* Whether @record (on-disk bytes) is the EA inode @ref names. */
int e2sr_ea_ref_matches(const struct e2sr_ea_ref *ref, const void *record)
{
	const unsigned char *b = record;
	__u32 flags = e2sr_get_le32(b + offsetof(struct ext2_inode, i_flags));
	__u32 hash = e2sr_get_le32(b + offsetof(struct ext2_inode, i_atime));
	__u64 size = e2sr_get_le32(b + offsetof(struct ext2_inode, i_size)) |
		     ((__u64)e2sr_get_le32(b + offsetof(struct ext2_inode,
					       i_size_high)) << 32);

	if (!(flags & EXT4_EA_INODE_FL) || size != ref->size)
		return 0;
	return ref->e_hash == fold(ref->name_hash, hash) ||
	       ref->e_hash == fold(ref->name_hash_signed, hash);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct e2sr_ea_ref *x = a, *y = b;

	if (x->ea_ino != y->ea_ino)
		return x->ea_ino < y->ea_ino ? -1 : 1;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->e_hash != y->e_hash)
		return x->e_hash < y->e_hash ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x->name_hash != y->name_hash)
		return x->name_hash < y->name_hash ? -1 : 1;
	return x->name_hash_signed < y->name_hash_signed ? -1 :
	       x->name_hash_signed > y->name_hash_signed;
}

/* By EA inode; each reference once. */
void e2sr_ea_refs_sort(struct e2sr_ea_refs *refs)
{
	size_t i, n = 0;

	if (!refs->n)
		return;
	qsort(refs->v, refs->n, sizeof(*refs->v), cmp_ref);
	for (i = 0; i < refs->n; i++) {
		if (n && !cmp_ref(&refs->v[n - 1], &refs->v[i]))
			continue;
		refs->v[n++] = refs->v[i];
	}
	refs->n = n;
}

void e2sr_ea_refs_free(struct e2sr_ea_refs *refs)
{
	ext2fs_free_mem(&refs->v);
	memset(refs, 0, sizeof(*refs));
}
