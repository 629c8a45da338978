/*
 * fuzz_image.c --- libFuzzer target: a whole dry run (-n) over an image.
 *
 * The input is a 2 MiB image of 1 KiB blocks in fuzz_img.c's chunk
 * format, served by mem_io.c.  The engine runs it as e2secrm -n does:
 * e2sr_open read-only (with the journal recovered in memory when the
 * image needs it), the inventory scan with the journal's history, the
 * plan, and e2sr_execute, which must refuse.  Any crash, hang, leak,
 * sanitizer report, or write to the image (mem_io aborts) is a finding,
 * and so is a journal plan execute would refuse or misapply
 * (fuzz_img_check_jplan: blocks out of the log, unsorted, whole and
 * part mixed, a part whose crc_before is not the block's now).
 * A few runs use --sanitize and --all-free planning, which read more.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "fuzz_img.h"
#include "mem_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2sr_ctx *ctx;
	errcode_t err;

	ctx = fuzz_img_ctx(data, size, NULL);
	if (!ctx)
		return 0;
	/* The last byte picks the sanitize modes' planning, as -n does. */
	if (size && (data[size - 1] & 0x80))
		ctx->opts.sanitize = E2SR_SANITIZE;
	err = e2sr_open(ctx, fuzz_img_device(), E2SR_OPEN_RDONLY);
	if (!err)
		err = e2sr_inventory_scan(ctx);
	if (!err)
		err = e2sr_plan_build(ctx);
	if (!err) {
		fuzz_img_check_jplan(ctx);
		(void)e2sr_plan_empty(ctx);
		if (e2sr_execute(ctx) != E2SR_ERR_READ_ONLY) {
			fprintf(stderr, "fuzz_image: execute did not refuse "
				"a read-only run\n");
			abort();
		}
	}
	e2sr_ctx_free(ctx);
	mem_io_forbid_writes(0);
	return 0;
}
