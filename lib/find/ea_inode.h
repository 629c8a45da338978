/*
 * ea_inode.h --- references to EA inodes, as xattr entries make them.
 *
 * With the ea_inode feature a large xattr value lives in an inode of its
 * own: the entry (in the record's in-inode area or in an EA block) has
 * e_value_inum set, and the value inode carries EXT4_EA_INODE_FL, not the
 * flag of the file it belongs to.  These helpers list such references and
 * tell whether a version of the value inode is the one an entry names:
 * the entry's e_hash is the hash of its name folded with the value
 * inode's own hash (kept in its i_atime), and the value's size is the
 * inode's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_EA_INODE_H
#define E2SR_EA_INODE_H

#include <ext2fs/ext2fs.h>

/* One xattr entry whose value is in an EA inode. */
struct e2sr_ea_ref {
	ext2_ino_t	ea_ino;		/* e_value_inum */
	ext2_ino_t	owner;		/* the caller's: whose entry it is */
	__u32		size;		/* e_value_size */
	__u32		e_hash;
	__u32		name_hash;	/* of the name, unsigned chars */
	__u32		name_hash_signed; /* as kernels with signed chars */
};

struct e2sr_ea_refs {
	struct e2sr_ea_ref	*v;
	size_t			n;
	size_t			alloc;
};

errcode_t e2sr_ea_refs_ibody(ext2_filsys fs, const void *record,
			     ext2_ino_t owner, struct e2sr_ea_refs *refs);
errcode_t e2sr_ea_refs_block(ext2_filsys fs, const void *block,
			     ext2_ino_t owner, struct e2sr_ea_refs *refs);
int e2sr_ea_ref_matches(const struct e2sr_ea_ref *ref, const void *record);
void e2sr_ea_refs_sort(struct e2sr_ea_refs *refs);
void e2sr_ea_refs_free(struct e2sr_ea_refs *refs);

#endif /* E2SR_EA_INODE_H */
