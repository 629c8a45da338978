/*
 * fuzz_journal.c --- libFuzzer target: the whole journal engine on a
 * journal built from the input.
 *
 * The input is laid over the first blocks of a zeroed 1024-block journal
 * of 1 KiB blocks (the smallest jbd2 allows), held in memory behind
 * mem_io.c; block 0 must parse as a journal superblock.  The journal is
 * then recovered (the scan, revoke and replay passes: the decision only,
 * nothing is written), walked whole, and its fast-commit area read.  Any
 * crash, hang, leak or sanitizer report is a finding.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "fast_commit.h"
#include "journal.h"
#include "journal_walk.h"
#include "mem_io.h"

#define FUZZ_BS		1024
#define FUZZ_BLOCKS	1024
#define FUZZ_FS_BLOCKS	(1ULL << 20)

static unsigned char image[FUZZ_BS * FUZZ_BLOCKS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2sr_journal j;
	struct e2sr_jrecovery rec;
	struct e2sr_jwalk walk;
	struct e2sr_fcwalk fc;
	unsigned char win[64 * FUZZ_BS];
	char detail[160];
	errcode_t err;

	if (size > sizeof(image))
		size = sizeof(image);
	memset(image, 0, sizeof(image));
	memcpy(image, data, size);

	memset(&j, 0, sizeof(j));
	j.blocksize = FUZZ_BS;
	j.external = 1;
	j.sbuf = image;
	err = e2sr_jsb_parse(image, FUZZ_BS, FUZZ_BS, &j.jsb);
	if (err == E2SR_ERR_JOURNAL_BAD_CSUM)
		err = 0;
	if (err || j.jsb.maxlen > FUZZ_BLOCKS)
		return 0;
	j.nblocks = j.jsb.maxlen;
	j.win = win;
	j.win_cap = sizeof(win) / FUZZ_BS;
	mem_io_set(image, sizeof(image));
	if (mem_io_manager->open("fuzz", 0, &j.io))
		return 0;
	io_channel_set_blksize(j.io, FUZZ_BS);

	if (!e2sr_journal_recover_scan(&j, FUZZ_FS_BLOCKS, &rec, detail,
				       sizeof(detail)))
		e2sr_journal_recovery_free(&rec);
	if (!e2sr_journal_walk(&j, FUZZ_FS_BLOCKS, &walk))
		e2sr_journal_walk_free(&walk);
	if (!e2sr_fc_walk(&j, &fc))
		e2sr_fc_walk_free(&fc);
	io_channel_close(j.io);
	return 0;
}
