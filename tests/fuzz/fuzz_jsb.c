/*
 * fuzz_jsb.c --- libFuzzer target for the journal superblock parser.
 *
 * Owns the fuzzing of e2sr_jsb_parse(): the input, exactly as long as
 * libFuzzer gave it, is parsed with no expected block size and with 1024
 * and 4096, and whatever the parser accepts is checked against the
 * promises struct e2sr_jsb makes to the rest of the engine.  When the
 * superblock is accepted, the bytes after its first 1024 (zero-padded to
 * its block size) also go through the block readers, so that superblocks
 * only the fuzzer would write meet them too.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static errcode_t tag_cb(void *priv, blk64_t blk, __u32 flags, __u32 csum,
			unsigned int index)
{
	unsigned int *count = priv;

	(void)blk;
	(void)flags;
	(void)csum;
	if (index != *count)
		abort();
	(*count)++;
	return 0;
}

static errcode_t revoke_cb(void *priv, blk64_t blk, unsigned int index)
{
	unsigned int *count = priv;

	(void)blk;
	if (index != *count)
		abort();
	(*count)++;
	return 0;
}

/* What an accepted superblock must never contradict. */
static void check_jsb(const struct e2sr_jsb *j, unsigned int expect)
{
	if (j->version != 1 && j->version != 2)
		abort();
	if (j->blocksize < E2SR_JBD2_MIN_BLOCKSIZE ||
	    j->blocksize > E2SR_JBD2_MAX_BLOCKSIZE ||
	    (j->blocksize & (j->blocksize - 1)))
		abort();
	if (expect && j->blocksize != expect)
		abort();
	if (j->maxlen < E2SR_JBD2_MIN_BLOCKS || !j->first ||
	    j->first >= j->last || j->last > j->maxlen)
		abort();
	if (j->fc_blocks != j->maxlen - j->last)
		abort();
	if (j->start && (j->start < j->first || j->start >= j->last))
		abort();
	if (j->version == 1 && (j->compat || j->incompat || j->ro_compat ||
				j->csum_version))
		abort();
	if (j->csum_version != 0 && j->csum_version != 2 &&
	    j->csum_version != 3)
		abort();
	if (j->tail_bytes != (j->csum_version ? 4U : 0U))
		abort();
	if (j->tag_bytes < 8 || j->tag_bytes > 16 ||
	    j->tag_bytes + E2SR_JBD2_UUID_SIZE + 12 > j->blocksize)
		abort();
	if (j->record_bytes != 4 && j->record_bytes != 8)
		abort();
}

/* The block readers over whatever follows the superblock. */
static void run_blocks(const struct e2sr_jsb *j, const uint8_t *data,
		       size_t size)
{
	static unsigned char fixed[E2SR_JBD2_MAX_BLOCKSIZE];
	struct e2sr_jcommit c;
	unsigned char *block;
	unsigned int count;
	__u32 type, seq;
	size_t n;

	block = calloc(1, j->blocksize);
	if (!block)
		abort();
	n = size > E2SR_JBD2_SB_SIZE ? size - E2SR_JBD2_SB_SIZE : 0;
	if (n > j->blocksize)
		n = j->blocksize;
	if (n)
		memcpy(block, data + E2SR_JBD2_SB_SIZE, n);

	(void)e2sr_jblock_header(j, block, &type, &seq);
	count = 0;
	(void)e2sr_jdesc_tags(j, block, tag_cb, &count);
	count = 0;
	(void)e2sr_jrevoke_records(j, block, revoke_cb, &count);
	(void)e2sr_jcommit_check(j, block, &c);
	(void)e2sr_jtag_csum_ok(j, 1, fixed, 0);
	free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int expect[] = { 0, 1024, 4096 };
	struct e2sr_jsb j;
	errcode_t err;
	size_t i;

	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		memset(&j, 0xA5, sizeof(j));
		err = e2sr_jsb_parse(data, size, expect[i], &j);
		if (err && err != E2SR_ERR_JOURNAL_BAD_CSUM)
			continue;
		check_jsb(&j, expect[i]);
		if (!expect[i])
			run_blocks(&j, data, size);
	}
	return 0;
}
