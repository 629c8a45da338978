/*
 * fuzz_jblock.c --- libFuzzer target for the jbd2 block readers.
 *
 * Owns the fuzzing of e2sr_jblock_header(), e2sr_jdesc_tags(),
 * e2sr_jtag_csum_ok(), e2sr_jrevoke_records(), e2sr_jcommit_check() and
 * the replay readers e2sr_jdesc_tags_replay(), e2sr_jblock_tail_ok() and
 * e2sr_jrevoke_records_replay().  The input starts with a header that
 * picks a journal configuration; the harness writes a well-formed journal
 * superblock for it, which e2sr_jsb_parse() must accept, and the rest of
 * the input, zero-padded or cut to the block size, is the journal block
 * given to every reader.  Where the strict reader accepts a block, the
 * replay reader must see the same tags or records, and the strict
 * reader's checksum verdict must be e2sr_jblock_tail_ok()'s.
 *
 * Input header (HDR_LEN bytes, zero-padded when the input is shorter):
 *   [0]     bit 0: v1 superblock; bit 1: REVOKE; bit 2: 64BIT;
 *           bits 3-4: 0 no checksums, 1 CSUM_V2, 2 CSUM_V3, 3 both
 *           (which must be refused); bit 5: FAST_COMMIT;
 *           bit 6: 4096-byte blocks (else 1024); bit 7: COMPAT_CHECKSUM
 *           (dropped with CSUM_V2/V3, which the kernel refuses with it)
 *   [1]     s_num_fc_blks (0: the default 256)
 *   [2]     bit 0: rewrite the block's tail checksum to match;
 *           bit 1: rewrite a commit block's checksum to match;
 *           bit 2: s_start = s_first (else 0);
 *           bits 3-7: N, the callbacks' answer to item N - 1 stops the
 *           walk with STOP_ERR, which the reader must return (0: none)
 *   [3]     fill byte of the fixed data block the tag checksums cover
 *   [4..19] journal uuid
 *   [20..23] s_sequence, big-endian
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "jbd2.h"

#define HDR_LEN		24
#define JOURNAL_BLOCKS	8192
#define MAX_ITEMS	(4096 / 4)	/* more than a block can hold */
#define STOP_ERR	EXT2_ET_CANCEL_REQUESTED

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one reader saw in one block. */
struct seen {
	const struct e2sr_jsb	*jsb;
	const unsigned char	*fixed;	/* jsb->blocksize bytes */
	__u32			sequence;
	unsigned int		count;
	unsigned int		stop;	/* 0, or 1 + index to stop */
	blk64_t			blk[MAX_ITEMS];
	__u32			flags[MAX_ITEMS];
	__u32			csum[MAX_ITEMS];
};

static struct seen strict, replay;

static void put_be32(unsigned char *p, __u32 v)
{
	v = ext2fs_cpu_to_be32(v);
	memcpy(p, &v, sizeof(v));
}

static __u32 crc_with_hole(__u32 seed, const unsigned char *p, size_t len,
			   size_t hole)
{
	static const unsigned char zero[4];
	__u32 crc;

	crc = ext2fs_crc32c_le(seed, p, hole);
	crc = ext2fs_crc32c_le(crc, zero, sizeof(zero));
	return ext2fs_crc32c_le(crc, p + hole + 4, len - hole - 4);
}

static errcode_t tag_cb(void *priv, blk64_t blk, __u32 flags, __u32 csum,
			unsigned int index)
{
	struct seen *s = priv;
	errcode_t err;

	if (index != s->count || index >= MAX_ITEMS)
		abort();
	s->blk[index] = blk;
	s->flags[index] = flags;
	s->csum[index] = csum;
	s->count++;
	if (s->stop && index + 1 == s->stop)
		return STOP_ERR;
	err = e2sr_jtag_csum_ok(s->jsb, s->sequence, s->fixed, csum);
	if (err && (err != E2SR_ERR_JOURNAL_BAD_CSUM || !s->jsb->csum_version))
		abort();
	return 0;
}

static errcode_t revoke_cb(void *priv, blk64_t blk, unsigned int index)
{
	struct seen *s = priv;

	if (index != s->count || index >= MAX_ITEMS)
		abort();
	s->blk[index] = blk;
	s->count++;
	if (s->stop && index + 1 == s->stop)
		return STOP_ERR;
	return 0;
}

static void reset(struct seen *s, const struct e2sr_jsb *jsb,
		  const unsigned char *fixed, __u32 sequence,
		  unsigned int stop)
{
	s->jsb = jsb;
	s->fixed = fixed;
	s->sequence = sequence;
	s->count = 0;
	s->stop = stop;
}

/* A reader returns STOP_ERR exactly when the callback stopped it. */
static void check_stop(const struct seen *s, errcode_t err)
{
	if ((err == STOP_ERR) != (s->stop && s->count == s->stop))
		abort();
}

/* The replay reader saw what the strict one accepted. */
static void same_items(int tags)
{
	unsigned int i;

	if (strict.count != replay.count)
		abort();
	for (i = 0; i < strict.count; i++) {
		if (strict.blk[i] != replay.blk[i])
			abort();
		if (tags && (strict.csum[i] != replay.csum[i] ||
			     (strict.flags[i] & 0xFFFF) != replay.flags[i]))
			abort();
	}
}

/* A superblock as mke2fs and the kernel would write it for @cfg. */
static void make_jsb(unsigned char *sb, size_t bs, const unsigned char *cfg)
{
	unsigned int csum = (cfg[0] >> 3) & 3;
	__u32 incompat = 0, compat = 0, seq;

	memset(sb, 0, bs);
	put_be32(sb + 0x00, E2SR_JBD2_MAGIC);
	put_be32(sb + 0x04, (cfg[0] & 1) ? E2SR_JBD2_SUPERBLOCK_V1 :
		 E2SR_JBD2_SUPERBLOCK_V2);
	put_be32(sb + 0x0C, bs);
	put_be32(sb + 0x10, JOURNAL_BLOCKS);
	put_be32(sb + 0x14, 1);
	memcpy(&seq, cfg + 20, sizeof(seq));
	put_be32(sb + 0x18, ext2fs_be32_to_cpu(seq));
	put_be32(sb + 0x1C, (cfg[2] & 4) ? 1 : 0);

	if (cfg[0] & 2)
		incompat |= E2SR_JBD2_INCOMPAT_REVOKE;
	if (cfg[0] & 4)
		incompat |= E2SR_JBD2_INCOMPAT_64BIT;
	if (csum & 1)
		incompat |= E2SR_JBD2_INCOMPAT_CSUM_V2;
	if (csum & 2)
		incompat |= E2SR_JBD2_INCOMPAT_CSUM_V3;
	if (cfg[0] & 0x20)
		incompat |= E2SR_JBD2_INCOMPAT_FAST_COMMIT;
	if ((cfg[0] & 0x80) && !csum)
		compat |= E2SR_JBD2_COMPAT_CHECKSUM;
	put_be32(sb + 0x24, compat);
	put_be32(sb + 0x28, incompat);
	memcpy(sb + 0x30, cfg + 4, E2SR_JBD2_UUID_SIZE);
	put_be32(sb + 0x40, 1);
	if (csum)
		sb[0x50] = E2SR_JBD2_CRC32C_CHKSUM;
	put_be32(sb + 0x54, cfg[1]);
	if (csum)
		put_be32(sb + 0xFC, crc_with_hole(~0U, sb, E2SR_JBD2_SB_SIZE,
						  0xFC));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char cfg[HDR_LEN] = { 0 };
	unsigned char *sb, *block, *fixed;
	struct e2sr_jsb jsb;
	struct e2sr_jcommit c;
	unsigned int csum, stop;
	__u32 type, seq;
	errcode_t err, err2;
	int tail_ok;
	size_t bs, n;

	memcpy(cfg, data, size < HDR_LEN ? size : HDR_LEN);
	data += size < HDR_LEN ? size : HDR_LEN;
	size -= size < HDR_LEN ? size : HDR_LEN;
	bs = (cfg[0] & 0x40) ? 4096 : 1024;
	csum = (cfg[0] >> 3) & 3;
	stop = cfg[2] >> 3;

	sb = malloc(bs);
	block = calloc(1, bs);
	fixed = malloc(bs);
	if (!sb || !block || !fixed)
		abort();
	make_jsb(sb, bs, cfg);
	err = e2sr_jsb_parse(sb, bs, bs, &jsb);
	if (csum == 3 && !(cfg[0] & 1)) {
		/* CSUM_V2 and CSUM_V3 together are refused. */
		if (err != E2SR_ERR_JOURNAL_BAD_SB)
			abort();
		goto out;
	}
	if (err)
		abort();	/* a well-formed superblock was refused */

	n = size < bs ? size : bs;
	memcpy(block, data, n);
	if (jsb.csum_version && (cfg[2] & 1))
		put_be32(block + bs - 4, crc_with_hole(jsb.csum_seed, block, bs,
						       bs - 4));
	if (jsb.csum_version && (cfg[2] & 2))
		put_be32(block + 0x10, crc_with_hole(jsb.csum_seed, block, bs,
						     0x10));
	memset(fixed, cfg[3], bs);

	seq = 0;
	err = e2sr_jblock_header(&jsb, block, &type, &seq);
	if (err && err != E2SR_ERR_JOURNAL_BAD_BLOCK)
		abort();

	tail_ok = e2sr_jblock_tail_ok(&jsb, block);
	if (tail_ok != 0 && tail_ok != 1)
		abort();

	reset(&strict, &jsb, fixed, seq, stop);
	reset(&replay, &jsb, fixed, seq, stop);
	err = e2sr_jdesc_tags(&jsb, block, tag_cb, &strict);
	err2 = e2sr_jdesc_tags_replay(&jsb, block, tag_cb, &replay);
	check_stop(&strict, err);
	check_stop(&replay, err2);
	if ((err2 && err2 != STOP_ERR) ||
	    replay.count > (bs - 12) / jsb.tag_bytes)
		abort();
	if (!err || err == E2SR_ERR_JOURNAL_BAD_CSUM) {
		if ((err == 0) != tail_ok)
			abort();
		same_items(1);
	}

	reset(&strict, &jsb, fixed, seq, stop);
	reset(&replay, &jsb, fixed, seq, stop);
	err = e2sr_jrevoke_records(&jsb, block, revoke_cb, &strict);
	err2 = e2sr_jrevoke_records_replay(&jsb, block, revoke_cb, &replay);
	check_stop(&strict, err);
	check_stop(&replay, err2);
	if (strict.count > (bs - 16) / jsb.record_bytes ||
	    replay.count > (bs - 16) / jsb.record_bytes)
		abort();
	if (err2 && err2 != E2SR_ERR_JOURNAL_BAD_REVOKE && err2 != STOP_ERR)
		abort();
	if (!err || err == E2SR_ERR_JOURNAL_BAD_CSUM) {
		if ((err == 0) != tail_ok || err2)
			abort();
		same_items(0);
	}

	(void)e2sr_jcommit_check(&jsb, block, &c);
out:
	free(sb);
	free(block);
	free(fixed);
	return 0;
}
