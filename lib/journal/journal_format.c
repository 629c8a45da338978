/*
 * journal_format.c --- reading jbd2 journal blocks from buffers.
 *
 * Owns the checks on every number the journal's own blocks carry: the
 * journal superblock, descriptor tags and their block tail, data block
 * checksums, revoke records and commit blocks.  Pure functions over
 * buffers the caller has read: no I/O, no allocation.  A block passed
 * with a parsed superblock must hold jsb->blocksize bytes.  Nothing is
 * trusted: every count and offset is bounded by the block before use.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "jbd2.h"

/* The offsets the code relies on, checked against the documented ones. */
_Static_assert(sizeof(struct e2sr_jbd2_header) == 12, "jbd2 header");
_Static_assert(offsetof(struct e2sr_jbd2_sb, s_checksum_type) == 0x50,
	       "jbd2 sb checksum type");
_Static_assert(offsetof(struct e2sr_jbd2_sb, s_num_fc_blks) == 0x54,
	       "jbd2 sb fast commit blocks");
_Static_assert(offsetof(struct e2sr_jbd2_sb, s_checksum) == 0xFC,
	       "jbd2 sb checksum");
_Static_assert(sizeof(struct e2sr_jbd2_sb) == E2SR_JBD2_SB_SIZE, "jbd2 sb");
_Static_assert(sizeof(struct e2sr_jbd2_tag3) == 16, "jbd2 tag3");
_Static_assert(sizeof(struct e2sr_jbd2_tag) == 12, "jbd2 tag");
_Static_assert(offsetof(struct e2sr_jbd2_commit_header, h_chksum) == 0x10,
	       "jbd2 commit checksum");
_Static_assert(offsetof(struct e2sr_jbd2_commit_header, h_commit_sec) == 0x30,
	       "jbd2 commit time");
_Static_assert(offsetof(struct e2sr_jbd2_commit_header, h_commit_nsec) == 0x38,
	       "jbd2 commit time ns");

#define SB_OFF(f)	offsetof(struct e2sr_jbd2_sb, f)
#define CH_OFF(f)	offsetof(struct e2sr_jbd2_commit_header, f)
#define HDR_SIZE	sizeof(struct e2sr_jbd2_header)
#define REVOKE_HDR_SIZE	sizeof(struct e2sr_jbd2_revoke_header)

/* crc32c of a block with the 4 bytes at @hole taken as zero. */
static __u32 csum_with_hole(__u32 seed, const unsigned char *p, size_t len,
			    size_t hole)
{
	static const unsigned char zero[4];
	__u32 crc;

	crc = e2sr_crc32c_le(seed, p, hole);
	crc = e2sr_crc32c_le(crc, zero, sizeof(zero));
	return e2sr_crc32c_le(crc, p + hole + 4, len - hole - 4);
}

/*
 * Check a journal superblock.  A bad superblock checksum is reported last,
 * as E2SR_ERR_JOURNAL_BAD_CSUM, with *out filled: the caller decides.
 */
errcode_t e2sr_jsb_parse(const void *buf, size_t len,
			 unsigned int expect_blocksize, struct e2sr_jsb *out)
{
	const unsigned char *p = buf;
	struct e2sr_jsb j;
	__u32 type, fc;
	int bad_csum = 0;

	if (!p || !out)
		return EXT2_ET_INVALID_ARGUMENT;
	if (len < E2SR_JBD2_SB_SIZE)
		return E2SR_ERR_JOURNAL_BAD_SB;
	if (e2sr_get_be32(p + SB_OFF(s_header.h_magic)) != E2SR_JBD2_MAGIC)
		return E2SR_ERR_JOURNAL_BAD_SB;

	memset(&j, 0, sizeof(j));
	type = e2sr_get_be32(p + SB_OFF(s_header.h_blocktype));
	if (type == E2SR_JBD2_SUPERBLOCK_V1)
		j.version = 1;
	else if (type == E2SR_JBD2_SUPERBLOCK_V2)
		j.version = 2;
	else
		return E2SR_ERR_JOURNAL_BAD_SB;

	j.blocksize = e2sr_get_be32(p + SB_OFF(s_blocksize));
	if (j.blocksize < E2SR_JBD2_MIN_BLOCKSIZE ||
	    j.blocksize > E2SR_JBD2_MAX_BLOCKSIZE ||
	    (j.blocksize & (j.blocksize - 1)))
		return E2SR_ERR_JOURNAL_BAD_SB;
	if (expect_blocksize && j.blocksize != expect_blocksize)
		return E2SR_ERR_JOURNAL_BAD_SB;

	j.maxlen = e2sr_get_be32(p + SB_OFF(s_maxlen));
	j.first = e2sr_get_be32(p + SB_OFF(s_first));
	if (j.maxlen < E2SR_JBD2_MIN_BLOCKS)
		return E2SR_ERR_JOURNAL_BAD_SB;
	if (j.first < 1 || j.first >= j.maxlen)
		return E2SR_ERR_JOURNAL_BAD_SB;
	j.sequence = e2sr_get_be32(p + SB_OFF(s_sequence));
	j.start = e2sr_get_be32(p + SB_OFF(s_start));
	j.errno_val = (__s32)e2sr_get_be32(p + SB_OFF(s_errno));

	/* A v1 superblock has no features: the fields are not its own. */
	if (j.version == 2) {
		j.compat = e2sr_get_be32(p + SB_OFF(s_feature_compat));
		j.incompat = e2sr_get_be32(p + SB_OFF(s_feature_incompat));
		j.ro_compat = e2sr_get_be32(p + SB_OFF(s_feature_ro_compat));
		memcpy(j.uuid, p + SB_OFF(s_uuid), sizeof(j.uuid));
		j.nr_users = e2sr_get_be32(p + SB_OFF(s_nr_users));
		j.checksum_type = p[SB_OFF(s_checksum_type)];
		j.checksum = e2sr_get_be32(p + SB_OFF(s_checksum));
		if (j.nr_users > E2SR_JBD2_USERS_MAX)
			return E2SR_ERR_JOURNAL_BAD_SB;
	}
	if ((j.incompat & ~E2SR_JBD2_KNOWN_INCOMPAT) ||
	    (j.ro_compat & ~E2SR_JBD2_KNOWN_RO_COMPAT))
		return E2SR_ERR_JOURNAL_UNSUP;

	if (j.incompat & E2SR_JBD2_INCOMPAT_CSUM_V2)
		j.csum_version = 2;
	if (j.incompat & E2SR_JBD2_INCOMPAT_CSUM_V3) {
		if (j.csum_version)
			return E2SR_ERR_JOURNAL_BAD_SB;	/* both: refused */
		j.csum_version = 3;
	}
	if (j.csum_version) {
		if (j.compat & E2SR_JBD2_COMPAT_CHECKSUM)
			return E2SR_ERR_JOURNAL_BAD_SB;	/* v1 with v2/v3 */
		if (j.checksum_type != E2SR_JBD2_CRC32C_CHKSUM)
			return E2SR_ERR_JOURNAL_BAD_SB;
		if (csum_with_hole(~0U, p, E2SR_JBD2_SB_SIZE,
				   SB_OFF(s_checksum)) != j.checksum)
			bad_csum = 1;
		j.csum_seed = e2sr_crc32c_le(~0U, j.uuid, sizeof(j.uuid));
		j.tail_bytes = sizeof(struct e2sr_jbd2_block_tail);
	}

	/* The fast-commit area takes the end of the journal. */
	j.last = j.maxlen;
	if (j.incompat & E2SR_JBD2_INCOMPAT_FAST_COMMIT) {
		fc = e2sr_get_be32(p + SB_OFF(s_num_fc_blks));
		if (!fc)
			fc = E2SR_JBD2_FC_DEFAULT_BLOCKS;
		/* As jbd2: the log keeps at least the minimum journal. */
		if (fc >= j.maxlen - j.first ||
		    j.maxlen - fc < E2SR_JBD2_MIN_BLOCKS)
			return E2SR_ERR_JOURNAL_BAD_SB;
		j.fc_blocks = fc;
		j.last = j.maxlen - fc;
	}
	if (j.start && (j.start < j.first || j.start >= j.last))
		return E2SR_ERR_JOURNAL_BAD_SB;

	/* journal_tag_bytes() */
	if (j.csum_version == 3) {
		j.tag_bytes = sizeof(struct e2sr_jbd2_tag3);
	} else {
		j.tag_bytes = sizeof(struct e2sr_jbd2_tag);
		if (j.csum_version == 2)
			j.tag_bytes += sizeof(__u16);
		if (!(j.incompat & E2SR_JBD2_INCOMPAT_64BIT))
			j.tag_bytes -= sizeof(__u32);
	}
	j.record_bytes = (j.incompat & E2SR_JBD2_INCOMPAT_64BIT) ? 8 : 4;

	*out = j;
	return bad_csum ? E2SR_ERR_JOURNAL_BAD_CSUM : 0;
}

errcode_t e2sr_jblock_header(const struct e2sr_jsb *jsb, const void *block,
			     __u32 *blocktype, __u32 *sequence)
{
	const unsigned char *p = block;

	if (!jsb || !p)
		return EXT2_ET_INVALID_ARGUMENT;
	if (e2sr_get_be32(p) != E2SR_JBD2_MAGIC)
		return E2SR_ERR_JOURNAL_BAD_BLOCK;
	if (blocktype)
		*blocktype = e2sr_get_be32(p + 4);
	if (sequence)
		*sequence = e2sr_get_be32(p + 8);
	return 0;
}

/* A block of the given type, and whether its tail checksum holds. */
static errcode_t typed_block(const struct e2sr_jsb *jsb,
			     const unsigned char *p, __u32 want, int *csum_ok)
{
	__u32 type;
	errcode_t err;

	err = e2sr_jblock_header(jsb, p, &type, NULL);
	if (err)
		return err;
	if (type != want)
		return E2SR_ERR_JOURNAL_BAD_BLOCK;
	*csum_ok = 1;
	if (jsb->csum_version) {
		size_t hole = jsb->blocksize - jsb->tail_bytes;

		*csum_ok = csum_with_hole(jsb->csum_seed, p, jsb->blocksize,
					  hole) == e2sr_get_be32(p + hole);
	}
	return 0;
}

errcode_t e2sr_jdesc_tags(const struct e2sr_jsb *jsb, const void *block,
			  e2sr_tag_fn cb, void *priv)
{
	const unsigned char *p = block;
	size_t off = HDR_SIZE, end, next;
	unsigned int index = 0;
	__u32 flags, csum;
	blk64_t blk;
	errcode_t err;
	int csum_ok;

	if (!cb)
		return EXT2_ET_INVALID_ARGUMENT;
	err = typed_block(jsb, p, E2SR_JBD2_DESCRIPTOR_BLOCK, &csum_ok);
	if (err)
		return err;

	end = jsb->blocksize - jsb->tail_bytes;
	for (;;) {
		if (off + jsb->tag_bytes > end)
			return E2SR_ERR_JOURNAL_BAD_TAGS; /* no LAST_TAG */
		blk = e2sr_get_be32(p + off);
		if (jsb->csum_version == 3) {
			flags = e2sr_get_be32(p + off + 4);
			csum = e2sr_get_be32(p + off + 12);
			if (jsb->incompat & E2SR_JBD2_INCOMPAT_64BIT)
				blk |= (blk64_t)e2sr_get_be32(p + off + 8) << 32;
		} else {
			csum = e2sr_get_be16(p + off + 4);
			flags = e2sr_get_be16(p + off + 6);
			if (jsb->incompat & E2SR_JBD2_INCOMPAT_64BIT)
				blk |= (blk64_t)e2sr_get_be32(p + off + 8) << 32;
		}
		next = off + jsb->tag_bytes;
		if (!(flags & E2SR_JBD2_FLAG_SAME_UUID))
			next += E2SR_JBD2_UUID_SIZE;
		if (next > end)
			return E2SR_ERR_JOURNAL_BAD_TAGS; /* uuid overruns */
		err = cb(priv, blk, flags, csum, index);
		if (err)
			return err;
		if (flags & E2SR_JBD2_FLAG_LAST_TAG)
			break;
		off = next;
		index++;
	}
	return csum_ok ? 0 : E2SR_ERR_JOURNAL_BAD_CSUM;
}

/*
 * The checksum a tag holds for a data block as stored in the journal
 * (still escaped): crc32c(seed, be32 sequence, block); CSUM_V2 keeps 16
 * bits of it.
 */
__u32 e2sr_jtag_csum(const struct e2sr_jsb *jsb, __u32 sequence,
		     const void *data)
{
	__u32 seq_be, crc;

	seq_be = ext2fs_cpu_to_be32(sequence);
	crc = e2sr_crc32c_le(jsb->csum_seed, (const unsigned char *)&seq_be,
			       sizeof(seq_be));
	crc = e2sr_crc32c_le(crc, data, jsb->blocksize);
	return jsb->csum_version == 2 ? crc & 0xFFFF : crc;
}

/* 0 when a data block matches its tag's checksum (above). */
errcode_t e2sr_jtag_csum_ok(const struct e2sr_jsb *jsb, __u32 sequence,
			    const void *data, __u32 tag_csum)
{
	__u32 crc;

	if (!jsb || !data)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!jsb->csum_version)
		return 0;	/* no data checksums in this journal */
	crc = e2sr_jtag_csum(jsb, sequence, data);
	if (jsb->csum_version == 2)
		return (crc & 0xFFFF) == (tag_csum & 0xFFFF) ?
			0 : E2SR_ERR_JOURNAL_BAD_CSUM;
	return crc == tag_csum ? 0 : E2SR_ERR_JOURNAL_BAD_CSUM;
}

/*
 * Whether @data, the bytes a tag of @sequence with @flags and @tag_csum
 * claims, is that copy: its checksum holds (or the journal has none), as
 * stored or, escaped, as it was before the escape (some writers sum the
 * block first).  @scratch holds a block.
 */
int e2sr_jtag_verifies(const struct e2sr_jsb *jsb, __u32 sequence,
		       __u32 flags, __u32 tag_csum, const unsigned char *data,
		       unsigned char *scratch)
{
	if (!e2sr_jtag_csum_ok(jsb, sequence, data, tag_csum))
		return 1;
	if (!(flags & E2SR_JBD2_FLAG_ESCAPE) || !jsb->csum_version)
		return 0;
	memcpy(scratch, data, jsb->blocksize);
	scratch[0] = 0xC0;
	scratch[1] = 0x3B;
	scratch[2] = 0x39;
	scratch[3] = 0x98;
	return !e2sr_jtag_csum_ok(jsb, sequence, scratch, tag_csum);
}

errcode_t e2sr_jrevoke_records(const struct e2sr_jsb *jsb, const void *block,
			       e2sr_revoke_fn cb, void *priv)
{
	const unsigned char *p = block;
	unsigned int index = 0;
	__u32 count;
	size_t off;
	blk64_t blk;
	errcode_t err;
	int csum_ok;

	if (!cb)
		return EXT2_ET_INVALID_ARGUMENT;
	err = typed_block(jsb, p, E2SR_JBD2_REVOKE_BLOCK, &csum_ok);
	if (err)
		return err;

	/* r_count is the bytes in use, the 16-byte header included. */
	count = e2sr_get_be32(p + HDR_SIZE);
	if (count < REVOKE_HDR_SIZE ||
	    count > jsb->blocksize - jsb->tail_bytes ||
	    (count - REVOKE_HDR_SIZE) % jsb->record_bytes)
		return E2SR_ERR_JOURNAL_BAD_REVOKE;
	for (off = REVOKE_HDR_SIZE; off + jsb->record_bytes <= count;
	     off += jsb->record_bytes) {
		if (jsb->record_bytes == 8)
			blk = e2sr_get_be64(p + off);
		else
			blk = e2sr_get_be32(p + off);
		err = cb(priv, blk, index++);
		if (err)
			return err;
	}
	return csum_ok ? 0 : E2SR_ERR_JOURNAL_BAD_CSUM;
}

errcode_t e2sr_jcommit_check(const struct e2sr_jsb *jsb, const void *block,
			     struct e2sr_jcommit *out)
{
	const unsigned char *p = block;
	struct e2sr_jcommit c;
	__u32 type;
	errcode_t err;

	if (!out)
		return EXT2_ET_INVALID_ARGUMENT;
	err = e2sr_jblock_header(jsb, p, &type, &c.sequence);
	if (err)
		return err;
	if (type != E2SR_JBD2_COMMIT_BLOCK)
		return E2SR_ERR_JOURNAL_BAD_BLOCK;
	c.chksum_type = p[CH_OFF(h_chksum_type)];
	c.chksum_size = p[CH_OFF(h_chksum_size)];
	c.chksum = e2sr_get_be32(p + CH_OFF(h_chksum));
	c.commit_sec = e2sr_get_be64(p + CH_OFF(h_commit_sec));
	c.commit_nsec = e2sr_get_be32(p + CH_OFF(h_commit_nsec));
	*out = c;

	if (jsb->csum_version) {
		if (csum_with_hole(jsb->csum_seed, p, jsb->blocksize,
				   CH_OFF(h_chksum)) != c.chksum)
			return E2SR_ERR_JOURNAL_BAD_CSUM;
		return 0;
	}
	/*
	 * The v1 checksum is crc32_be over the transaction's blocks: only
	 * the caller, who read them, can compare it.  Here the header must
	 * name crc32 of 4 bytes, or carry no checksum at all.
	 */
	if (jsb->compat & E2SR_JBD2_COMPAT_CHECKSUM) {
		if (c.chksum_type == E2SR_JBD2_CRC32_CHKSUM &&
		    c.chksum_size == E2SR_JBD2_CRC32_CHKSUM_SIZE)
			return 0;
		if (!c.chksum_type && !c.chksum_size && !c.chksum)
			return 0;
		return E2SR_ERR_JOURNAL_BAD_COMMIT;
	}
	return 0;
}

/*
 * The descriptor tags as jbd2's recovery reads them, which is looser
 * than e2sr_jdesc_tags(): the list ends at LAST_TAG or where the next
 * tag would not fit before the block tail, a uuid that overruns the
 * block simply ends it, and the flags are the 16 bits at offset 6 of
 * either tag layout.  Replay must follow these rules to end where the
 * kernel and e2fsck end; the tail checksum is the caller's to check.
 */
errcode_t e2sr_jdesc_tags_replay(const struct e2sr_jsb *jsb,
				 const void *block, e2sr_tag_fn cb,
				 void *priv)
{
	const unsigned char *p = block;
	size_t off = HDR_SIZE, end;
	unsigned int index = 0;
	__u32 flags, csum;
	blk64_t blk;
	errcode_t err;

	if (!jsb || !p || !cb)
		return EXT2_ET_INVALID_ARGUMENT;
	end = jsb->blocksize - jsb->tail_bytes;
	while (off + jsb->tag_bytes <= end) {
		blk = e2sr_get_be32(p + off);
		if (jsb->incompat & E2SR_JBD2_INCOMPAT_64BIT)
			blk |= (blk64_t)e2sr_get_be32(p + off + 8) << 32;
		flags = e2sr_get_be16(p + off + 6);
		if (jsb->csum_version == 3)
			csum = e2sr_get_be32(p + off + 12);
		else
			csum = e2sr_get_be16(p + off + 4);
		err = cb(priv, blk, flags, csum, index++);
		if (err)
			return err;
		off += jsb->tag_bytes;
		if (!(flags & E2SR_JBD2_FLAG_SAME_UUID))
			off += E2SR_JBD2_UUID_SIZE;
		if (flags & E2SR_JBD2_FLAG_LAST_TAG)
			break;
	}
	return 0;
}

/*
 * Set the checksum of tag @index of descriptor @block to @csum, in place;
 * the tail is sealed again by e2sr_jblock_tail_seal().  The tags are
 * read as e2sr_jdesc_tags() reads them.
 */
errcode_t e2sr_jdesc_set_csum(const struct e2sr_jsb *jsb, void *block,
			      unsigned int index, __u32 csum)
{
	unsigned char *p = block;
	size_t off = HDR_SIZE, end = jsb->blocksize - jsb->tail_bytes;
	unsigned int i;
	__u32 flags;

	if (!jsb->csum_version)
		return EXT2_ET_INVALID_ARGUMENT;
	for (i = 0;; i++) {
		if (off + jsb->tag_bytes > end)
			return E2SR_ERR_JOURNAL_BAD_TAGS;
		flags = jsb->csum_version == 3 ? e2sr_get_be32(p + off + 4) :
						 e2sr_get_be16(p + off + 6);
		if (i == index)
			break;
		if (flags & E2SR_JBD2_FLAG_LAST_TAG)
			return E2SR_ERR_JOURNAL_BAD_TAGS;
		off += jsb->tag_bytes;
		if (!(flags & E2SR_JBD2_FLAG_SAME_UUID))
			off += E2SR_JBD2_UUID_SIZE;
	}
	if (jsb->csum_version == 3) {
		e2sr_put_be32(p + off + 12, csum);
	} else {
		p[off + 4] = (csum >> 8) & 0xFF;
		p[off + 5] = csum & 0xFF;
	}
	return 0;
}

/* Write the tail checksum of a descriptor or revoke block, if any. */
void e2sr_jblock_tail_seal(const struct e2sr_jsb *jsb, void *block)
{
	unsigned char *p = block;
	size_t hole;

	if (!jsb->csum_version)
		return;
	hole = jsb->blocksize - jsb->tail_bytes;
	e2sr_put_be32(p + hole, csum_with_hole(jsb->csum_seed, p,
					       jsb->blocksize, hole));
}

/*
 * Descriptor @block (its bytes as on disk) with the tags @seals[0..n)
 * name set to their copies' new checksums, and its tail sealed: what the
 * plan writes, and what the writer checks it wrote.
 */
errcode_t e2sr_seal_image(const struct e2sr_jsb *jsb,
			  const struct e2sr_seal *seals, size_t n, void *block)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < n; i++) {
		err = e2sr_jdesc_set_csum(jsb, block, seals[i].index,
					  seals[i].csum);
		if (err)
			return err;
	}
	e2sr_jblock_tail_seal(jsb, block);
	return 0;
}

/* 1 when a descriptor or revoke block's tail checksum holds (or none). */
int e2sr_jblock_tail_ok(const struct e2sr_jsb *jsb, const void *block)
{
	const unsigned char *p = block;
	size_t hole;

	if (!jsb->csum_version)
		return 1;
	hole = jsb->blocksize - jsb->tail_bytes;
	return csum_with_hole(jsb->csum_seed, p, jsb->blocksize, hole) ==
	       e2sr_get_be32(p + hole);
}

/*
 * Revoke records as jbd2's recovery reads them: r_count may be any value
 * up to the block tail; records are taken while a whole one fits below
 * it.  A count past the tail is corrupt, as the kernel says.
 */
errcode_t e2sr_jrevoke_records_replay(const struct e2sr_jsb *jsb,
				      const void *block, e2sr_revoke_fn cb,
				      void *priv)
{
	const unsigned char *p = block;
	unsigned int index = 0;
	__u32 count;
	size_t off;
	errcode_t err;

	if (!jsb || !p || !cb)
		return EXT2_ET_INVALID_ARGUMENT;
	count = e2sr_get_be32(p + HDR_SIZE);
	if (count > jsb->blocksize - jsb->tail_bytes)
		return E2SR_ERR_JOURNAL_BAD_REVOKE;
	for (off = REVOKE_HDR_SIZE; off + jsb->record_bytes <= count;
	     off += jsb->record_bytes) {
		err = cb(priv, jsb->record_bytes == 8 ? e2sr_get_be64(p + off) :
			 e2sr_get_be32(p + off), index++);
		if (err)
			return err;
	}
	return 0;
}
