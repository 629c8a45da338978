/*
 * jbd2.h --- the jbd2 journal's on-disk format, as e2secrm reads it.
 *
 * Written from the documented format (the kernel's ext4 journal
 * documentation): block header, block types, journal superblock,
 * descriptor tags and tail, revoke and commit blocks.  Every on-disk
 * field is big-endian; the structures below only name the offsets, and
 * lib/journal/journal_format.c reads them with ext2fs_be32_to_cpu() and
 * friends.
 * struct e2sr_jsb is the parsed superblock the rest of the engine uses.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_JBD2_H
#define E2SR_JBD2_H

#include <stddef.h>
#include <ext2fs/ext2fs.h>

#define E2SR_JBD2_MAGIC			0xC03B3998U

/* h_blocktype */
#define E2SR_JBD2_DESCRIPTOR_BLOCK	1
#define E2SR_JBD2_COMMIT_BLOCK		2
#define E2SR_JBD2_SUPERBLOCK_V1		3
#define E2SR_JBD2_SUPERBLOCK_V2		4
#define E2SR_JBD2_REVOKE_BLOCK		5
/*
 * The fast-commit area has no block type: it is the last s_num_fc_blks
 * blocks of the journal (256 when the field is zero), and holds ext4's
 * own tag-length-value records, not jbd2 blocks.
 */
#define E2SR_JBD2_FC_DEFAULT_BLOCKS	256

/* Limits the kernel enforces. */
#define E2SR_JBD2_MIN_BLOCKS		1024	/* smallest journal */
#define E2SR_JBD2_MIN_BLOCKSIZE		1024
#define E2SR_JBD2_MAX_BLOCKSIZE		65536
#define E2SR_JBD2_USERS_MAX		48
#define E2SR_JBD2_SB_SIZE		1024	/* checksummed length */

/* s_feature_compat */
#define E2SR_JBD2_COMPAT_CHECKSUM	0x00000001	/* v1 crc32 in commit */

/* s_feature_incompat */
#define E2SR_JBD2_INCOMPAT_REVOKE	0x00000001
#define E2SR_JBD2_INCOMPAT_64BIT	0x00000002
#define E2SR_JBD2_INCOMPAT_ASYNC_COMMIT	0x00000004
#define E2SR_JBD2_INCOMPAT_CSUM_V2	0x00000008
#define E2SR_JBD2_INCOMPAT_CSUM_V3	0x00000010
#define E2SR_JBD2_INCOMPAT_FAST_COMMIT	0x00000020

#define E2SR_JBD2_KNOWN_COMPAT		E2SR_JBD2_COMPAT_CHECKSUM
#define E2SR_JBD2_KNOWN_INCOMPAT	(E2SR_JBD2_INCOMPAT_REVOKE | \
					 E2SR_JBD2_INCOMPAT_64BIT | \
					 E2SR_JBD2_INCOMPAT_ASYNC_COMMIT | \
					 E2SR_JBD2_INCOMPAT_CSUM_V2 | \
					 E2SR_JBD2_INCOMPAT_CSUM_V3 | \
					 E2SR_JBD2_INCOMPAT_FAST_COMMIT)
#define E2SR_JBD2_KNOWN_RO_COMPAT	0

/* s_checksum_type and the commit block's h_chksum_type */
#define E2SR_JBD2_CRC32_CHKSUM		1
#define E2SR_JBD2_MD5_CHKSUM		2
#define E2SR_JBD2_SHA1_CHKSUM		3
#define E2SR_JBD2_CRC32C_CHKSUM		4
#define E2SR_JBD2_CRC32_CHKSUM_SIZE	4
#define E2SR_JBD2_CHECKSUM_BYTES	8	/* h_chksum[] words: 32 bytes */

/* Descriptor tag t_flags */
#define E2SR_JBD2_FLAG_ESCAPE		0x1	/* first word was the magic */
#define E2SR_JBD2_FLAG_SAME_UUID	0x2	/* no uuid follows the tag */
#define E2SR_JBD2_FLAG_DELETED		0x4
#define E2SR_JBD2_FLAG_LAST_TAG		0x8

#define E2SR_JBD2_UUID_SIZE		16

/* Every journal block but data blocks begins with this (12 bytes). */
struct e2sr_jbd2_header {
	__u32	h_magic;
	__u32	h_blocktype;
	__u32	h_sequence;
};

/* The journal superblock, at the journal's block 0 (1024 bytes). */
struct e2sr_jbd2_sb {
	struct e2sr_jbd2_header s_header;	/* 0x00 */
	/* static: */
	__u32	s_blocksize;			/* 0x0C */
	__u32	s_maxlen;			/* 0x10 blocks in journal */
	__u32	s_first;			/* 0x14 first log block */
	/* dynamic: */
	__u32	s_sequence;			/* 0x18 first expected tid */
	__u32	s_start;			/* 0x1C log start, 0: none */
	__u32	s_errno;			/* 0x20 */
	/* v2 only: */
	__u32	s_feature_compat;		/* 0x24 */
	__u32	s_feature_incompat;		/* 0x28 */
	__u32	s_feature_ro_compat;		/* 0x2C */
	__u8	s_uuid[E2SR_JBD2_UUID_SIZE];	/* 0x30 */
	__u32	s_nr_users;			/* 0x40 */
	__u32	s_dynsuper;			/* 0x44 */
	__u32	s_max_transaction;		/* 0x48 */
	__u32	s_max_trans_data;		/* 0x4C */
	__u8	s_checksum_type;		/* 0x50 */
	__u8	s_padding2[3];			/* 0x51 */
	__u32	s_num_fc_blks;			/* 0x54 fast-commit blocks */
	__u32	s_padding[41];			/* 0x58 */
	__u32	s_checksum;			/* 0xFC crc32c, field zeroed */
	__u8	s_users[E2SR_JBD2_UUID_SIZE * E2SR_JBD2_USERS_MAX]; /* 0x100 */
};

/*
 * Descriptor tag with CSUM_V3: always 16 bytes, flags 32 bits wide.
 * A 16-byte uuid follows unless FLAG_SAME_UUID is set.
 */
struct e2sr_jbd2_tag3 {
	__u32	t_blocknr;
	__u32	t_flags;
	__u32	t_blocknr_high;		/* used only with INCOMPAT_64BIT */
	__u32	t_checksum;		/* crc32c(seed, tid, data block) */
};

/*
 * Descriptor tag without CSUM_V3.  Its size is journal_tag_bytes():
 * 8 bytes, +4 (t_blocknr_high) with INCOMPAT_64BIT, +2 with CSUM_V2 (the
 * kernel reserves those two bytes; the checksum itself is the 16-bit
 * t_checksum).  So 8, 12, 10 or 14.
 */
struct e2sr_jbd2_tag {
	__u32	t_blocknr;
	__u16	t_checksum;		/* low 16 bits of crc32c, CSUM_V2 */
	__u16	t_flags;
	__u32	t_blocknr_high;		/* present only with 64BIT */
};

/* End of a descriptor or revoke block with CSUM_V2/V3. */
struct e2sr_jbd2_block_tail {
	__u32	t_checksum;		/* crc32c(seed, block, field zeroed) */
};

/* Revoke block: r_count counts the bytes used, header included. */
struct e2sr_jbd2_revoke_header {
	struct e2sr_jbd2_header r_header;
	__u32	r_count;
	/* then 4-byte (8 with INCOMPAT_64BIT) block numbers */
};

/* Commit block (32 bytes used, then 0x30..0x3B the commit time). */
struct e2sr_jbd2_commit_header {
	__u32	h_magic;
	__u32	h_blocktype;
	__u32	h_sequence;
	__u8	h_chksum_type;
	__u8	h_chksum_size;
	__u8	h_padding[2];
	__u32	h_chksum[E2SR_JBD2_CHECKSUM_BYTES];
	__u64	h_commit_sec;
	__u32	h_commit_nsec;
};

/* A journal superblock, checked and in host order. */
struct e2sr_jsb {
	__u32		version;	/* 1 or 2 */
	__u32		blocksize;
	__u32		maxlen;		/* blocks, fast-commit area included */
	__u32		first;		/* first log block */
	__u32		last;		/* end of log area (exclusive) */
	__u32		sequence;
	__u32		start;		/* 0: nothing to recover */
	__s32		errno_val;
	__u32		compat;		/* zero for a v1 superblock */
	__u32		incompat;
	__u32		ro_compat;
	__u8		uuid[E2SR_JBD2_UUID_SIZE];
	__u32		nr_users;
	__u32		fc_blocks;	/* fast-commit area, 0 without */
	__u8		checksum_type;
	__u32		checksum;	/* as stored */
	__u32		csum_seed;	/* crc32c(~0, uuid) with CSUM_V2/V3 */
	unsigned int	csum_version;	/* 0, 2 or 3 */
	unsigned int	tag_bytes;	/* size of one tag, uuid excluded */
	unsigned int	tail_bytes;	/* block tail, 4 with CSUM_V2/V3 */
	unsigned int	record_bytes;	/* revoke record: 4 or 8 */
};

/* What a commit block says, in host order. */
struct e2sr_jcommit {
	__u32		sequence;
	__u8		chksum_type;
	__u8		chksum_size;
	__u32		chksum;		/* h_chksum[0] as stored */
	__u64		commit_sec;
	__u32		commit_nsec;
};

/*
 * Called once per descriptor tag, in order; @index counts from 0.  A
 * non-zero return stops the walk and is returned to the caller.
 */
typedef errcode_t (*e2sr_tag_fn)(void *priv, blk64_t blk, __u32 flags,
				 __u32 csum, unsigned int index);
/* Called once per revoke record; non-zero stops the walk. */
typedef errcode_t (*e2sr_revoke_fn)(void *priv, blk64_t blk,
				    unsigned int index);

/* journal_format.c: pure functions over buffers, no I/O. */
errcode_t e2sr_jsb_parse(const void *buf, size_t len,
			 unsigned int expect_blocksize, struct e2sr_jsb *out);
errcode_t e2sr_jblock_header(const struct e2sr_jsb *jsb, const void *block,
			     __u32 *blocktype, __u32 *sequence);
errcode_t e2sr_jdesc_tags(const struct e2sr_jsb *jsb, const void *block,
			  e2sr_tag_fn cb, void *priv);
__u32 e2sr_jtag_csum(const struct e2sr_jsb *jsb, __u32 sequence,
		     const void *data);
int e2sr_jtag_verifies(const struct e2sr_jsb *jsb, __u32 sequence,
		       __u32 flags, __u32 tag_csum, const unsigned char *data,
		       unsigned char *scratch);
errcode_t e2sr_jtag_csum_ok(const struct e2sr_jsb *jsb, __u32 sequence,
			    const void *data, __u32 tag_csum);
errcode_t e2sr_jdesc_set_csum(const struct e2sr_jsb *jsb, void *block,
			      unsigned int index, __u32 csum);
void e2sr_jblock_tail_seal(const struct e2sr_jsb *jsb, void *block);
struct e2sr_seal;
errcode_t e2sr_seal_image(const struct e2sr_jsb *jsb,
			  const struct e2sr_seal *seals, size_t n,
			  void *block);
errcode_t e2sr_jrevoke_records(const struct e2sr_jsb *jsb, const void *block,
			       e2sr_revoke_fn cb, void *priv);
errcode_t e2sr_jcommit_check(const struct e2sr_jsb *jsb, const void *block,
			     struct e2sr_jcommit *out);
errcode_t e2sr_jdesc_tags_replay(const struct e2sr_jsb *jsb,
				 const void *block, e2sr_tag_fn cb,
				 void *priv);
int e2sr_jblock_tail_ok(const struct e2sr_jsb *jsb, const void *block);
errcode_t e2sr_jrevoke_records_replay(const struct e2sr_jsb *jsb,
				      const void *block, e2sr_revoke_fn cb,
				      void *priv);

#endif /* E2SR_JBD2_H */
