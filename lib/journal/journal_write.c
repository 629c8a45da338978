/*
 * journal_write.c --- laying out one jbd2 transaction in memory.
 *
 * Owns the writer's side of the format journal_format.c reads: given
 * the blocks a change leaves and the journal's superblock, the
 * descriptor blocks (tags of the journal's layout: 32 or 64 bit, csum
 * v2 or v3, the uuid after each descriptor's first tag, LAST_TAG), the
 * copies (escaped when they begin with the jbd2 magic), and the commit
 * block (its checksum with csum v2/v3; none with the old v1 crc32,
 * which jbd2 and e2fsck accept when the type, size and sum are all
 * zero).  Pure: no I/O; the caller writes the blocks in order and the
 * commit block last, and checks what it wrote with the recovery scan.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "jbd2.h"
#include "journal_io.h"

#define HDR_SIZE	sizeof(struct e2sr_jbd2_header)
#define CH_OFF(f)	offsetof(struct e2sr_jbd2_commit_header, f)

/* Tags one descriptor block holds: the first one carries the uuid. */
static size_t tags_per_desc(const struct e2sr_jsb *jsb)
{
	size_t room = jsb->blocksize - HDR_SIZE - jsb->tail_bytes;

	if (room < E2SR_JBD2_UUID_SIZE + jsb->tag_bytes)
		return 0;
	return (room - E2SR_JBD2_UUID_SIZE) / jsb->tag_bytes;
}

__u32 e2sr_jtx_log_blocks(const struct e2sr_jsb *jsb, size_t n)
{
	size_t per = tags_per_desc(jsb);

	if (!per || !n)
		return 0;
	return (__u32)((n + per - 1) / per + n + 1);
}

static void put_header(unsigned char *p, __u32 type, __u32 tid)
{
	e2sr_put_be32(p, E2SR_JBD2_MAGIC);
	e2sr_put_be32(p + 4, type);
	e2sr_put_be32(p + 8, tid);
}

static void put_be16(unsigned char *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* crc32c(seed, be32 tid, block as stored): the tag's checksum. */
static __u32 tag_csum(const struct e2sr_jsb *jsb, __u32 tid,
		      const unsigned char *data)
{
	unsigned char seq[4];
	__u32 crc;

	e2sr_put_be32(seq, tid);
	crc = e2sr_crc32c_le(jsb->csum_seed, seq, sizeof(seq));
	return e2sr_crc32c_le(crc, data, jsb->blocksize);
}

static void put_tag(const struct e2sr_jsb *jsb, unsigned char *p,
		    blk64_t blk, __u32 flags, __u32 csum)
{
	e2sr_put_be32(p, (__u32)blk);
	if (jsb->csum_version == 3) {
		e2sr_put_be32(p + 4, flags);
		e2sr_put_be32(p + 12, csum);
	} else {
		put_be16(p + 4, jsb->csum_version ? (__u16)csum : 0);
		put_be16(p + 6, (__u16)flags);
	}
	if (jsb->incompat & E2SR_JBD2_INCOMPAT_64BIT)
		e2sr_put_be32(p + 8, (__u32)(blk >> 32));
}

/* The block's checksum over itself with the 4 bytes at @hole zero. */
static void seal(const struct e2sr_jsb *jsb, unsigned char *p, size_t hole)
{
	e2sr_put_be32(p + hole, 0);
	e2sr_put_be32(p + hole, e2sr_crc32c_le(jsb->csum_seed, p,
					       jsb->blocksize));
}

/*
 * Transaction @tid carrying @n blocks, their fs block numbers in @blk[]
 * and contents in @data[] (jsb->blocksize bytes each), as the log
 * blocks to write in ring order: into @out, e2sr_jtx_log_blocks() blocks
 * of jsb->blocksize bytes, the commit block last, stamped @commit_sec.
 */
errcode_t e2sr_jtx_build(const struct e2sr_jsb *jsb, __u32 tid,
			 __u64 commit_sec, const blk64_t *blk,
			 const unsigned char *const *data, size_t n,
			 unsigned char *out)
{
	size_t per = tags_per_desc(jsb), i = 0, k, bs = jsb->blocksize;
	unsigned char *desc, *copy, *p = out, *c;
	__u32 flags;
	size_t off;

	if (!per || !n || bs < 1024)
		return EXT2_ET_INVALID_ARGUMENT;
	while (i < n) {
		desc = p;
		memset(desc, 0, bs);
		put_header(desc, E2SR_JBD2_DESCRIPTOR_BLOCK, tid);
		p += bs;
		off = HDR_SIZE;
		for (k = 0; k < per && i < n; k++, i++) {
			copy = p;
			memcpy(copy, data[i], bs);
			p += bs;
			flags = k ? E2SR_JBD2_FLAG_SAME_UUID : 0;
			/* A copy must not read as a journal block. */
			if (e2sr_get_be32(copy) == E2SR_JBD2_MAGIC) {
				memset(copy, 0, 4);
				flags |= E2SR_JBD2_FLAG_ESCAPE;
			}
			if (k + 1 == per || i + 1 == n)
				flags |= E2SR_JBD2_FLAG_LAST_TAG;
			put_tag(jsb, desc + off, blk[i], flags,
				jsb->csum_version ?
				tag_csum(jsb, tid, copy) : 0);
			off += jsb->tag_bytes;
			if (!k) {
				memcpy(desc + off, jsb->uuid,
				       E2SR_JBD2_UUID_SIZE);
				off += E2SR_JBD2_UUID_SIZE;
			}
		}
		if (jsb->csum_version)
			seal(jsb, desc, bs - jsb->tail_bytes);
	}
	c = p;
	memset(c, 0, bs);
	put_header(c, E2SR_JBD2_COMMIT_BLOCK, tid);
	e2sr_put_be32(c + CH_OFF(h_commit_sec), (__u32)(commit_sec >> 32));
	e2sr_put_be32(c + CH_OFF(h_commit_sec) + 4, (__u32)commit_sec);
	if (jsb->csum_version)
		seal(jsb, c, CH_OFF(h_chksum));
	return 0;
}
