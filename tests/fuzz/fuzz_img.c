/*
 * fuzz_img.c --- a small filesystem image built from a fuzz input.
 *
 * Owns the input format the whole-filesystem targets (fuzz_image,
 * fuzz_histmap, fuzz_dirent) share: a list of chunks, each a little-endian
 * 16-bit block number and the 1 KiB that block holds, laid over a zeroed
 * 4 MiB image (the seeds' filesystems take 2 or 3 MiB of it); a short
 * last chunk fills the start of its block.  Real
 * test images have few non-zero blocks, so the seeds stay small and the
 * mutator works on what matters: superblock, descriptors, inode tables,
 * directories, tree blocks and the journal.  The image is served by
 * mem_io.c.  It also owns the checks of a plan that more than one target
 * makes (fuzz_img_check_jplan: the journal plan).
 *
 * The engine opens a device by name and checks that the device is as
 * large as the filesystem says: the name handed to it is an unlinked
 * sparse file of the image's size, which mem_io never reads.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "e2secrm.h"
#include "fuzz_img.h"
#include "mem_io.h"

static unsigned char image[FUZZ_IMG_BS * FUZZ_IMG_BLOCKS];
static char device[64];
/*
 * The blocks the last input filled: all that is not zero in the image
 * unless the engine wrote to it (mem_io says), so that only they are
 * zeroed again (a whole 4 MiB memset took much of an execution).
 */
static unsigned char filled[FUZZ_IMG_BLOCKS];
static int all_filled = 1;

unsigned char *fuzz_img_load(const uint8_t *data, size_t size)
{
	size_t off, n;
	unsigned int blk;

	if (all_filled || mem_io_written()) {
		memset(image, 0, sizeof(image));
	} else {
		for (blk = 0; blk < FUZZ_IMG_BLOCKS; blk++)
			if (filled[blk])
				memset(image + (size_t)blk * FUZZ_IMG_BS, 0,
				       FUZZ_IMG_BS);
	}
	memset(filled, 0, sizeof(filled));
	all_filled = 0;
	for (off = 0; off + 2 < size; off += FUZZ_IMG_CHUNK) {
		blk = (data[off] | data[off + 1] << 8) % FUZZ_IMG_BLOCKS;
		n = size - off - 2;
		if (n > FUZZ_IMG_BS)
			n = FUZZ_IMG_BS;
		memcpy(image + (size_t)blk * FUZZ_IMG_BS, data + off + 2, n);
		filled[blk] = 1;
	}
	mem_io_set(image, sizeof(image));
	return image;
}

const char *fuzz_img_device(void)
{
	char tmpl[] = "/tmp/e2sr-fuzz-XXXXXX";
	int fd;

	if (device[0])
		return device;
	fd = mkstemp(tmpl);
	if (fd < 0 || ftruncate(fd, sizeof(image))) {
		perror("fuzz_img: device file");
		abort();
	}
	unlink(tmpl);
	/* Kept open for the life of the process; gone when it ends. */
	snprintf(device, sizeof(device), "/proc/self/fd/%d", fd);
	return device;
}

/*
 * The image loaded from @data, writes forbidden, and a context that
 * reads it through mem_io: what every whole-image target starts from.
 * NULL when no context could be made.
 */
struct e2sr_ctx *fuzz_img_ctx(const uint8_t *data, size_t size,
			      unsigned char **img)
{
	struct e2sr_ctx *ctx;
	unsigned char *p;

	p = fuzz_img_load(data, size);
	if (img)
		*img = p;
	mem_io_forbid_writes(1);
	if (e2sr_ctx_new(&ctx))
		return NULL;
	ctx->opts.io_manager = mem_io_manager;
	return ctx;
}

static void jplan_fail(const struct e2sr_plan *plan, size_t i,
		       const char *what)
{
	const struct e2sr_jplan *e = &plan->journal[i];

	fprintf(stderr, "fuzz: journal plan entry %zu of %zu (jblock %u, "
		"off %u, len %u, why %u): %s\n", i, plan->journal_count,
		e->jblock, e->off, e->len, e->why, what);
	abort();
}

/*
 * The journal plan as execute will take it: every block inside the log
 * and fast-commit area, entries sorted by block, a block planned either
 * whole or in parts (never both), parts inside the block, not
 * overlapping, and each part's crc_before the checksum of the block as
 * it reads now, straight from the device (not through the read window
 * the planner used), since execute refuses to write a part whose block
 * no longer reads as planned.
 */
void fuzz_img_check_jplan(struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *plan = &ctx->plan;
	const struct e2sr_jplan *e, *prev;
	struct e2sr_journal *j = ctx->journal;
	unsigned char *buf;
	unsigned int bs;
	size_t i;

	if (!plan->journal_count)
		return;
	if (!j) {
		fprintf(stderr, "fuzz: %zu journal entries planned without "
			"a journal\n", plan->journal_count);
		abort();
	}
	bs = j->blocksize;
	buf = malloc(bs);
	if (!buf)
		abort();
	for (i = 0; i < plan->journal_count; i++) {
		e = &plan->journal[i];
		prev = i ? e - 1 : NULL;
		if (e->jblock < j->jsb.first || e->jblock >= j->jsb.maxlen)
			jplan_fail(plan, i, "outside [first, maxlen)");
		if (prev && prev->jblock > e->jblock)
			jplan_fail(plan, i, "not sorted by jblock");
		if (prev && prev->jblock == e->jblock &&
		    (!prev->len || !e->len))
			jplan_fail(plan, i, "a block both whole and in parts, "
				   "or whole twice");
		if (!e->len)
			continue;
		if (e->off >= bs || e->len > bs - e->off)
			jplan_fail(plan, i, "a part beyond the block");
		if (prev && prev->jblock == e->jblock &&
		    e->off < prev->off + prev->len)
			jplan_fail(plan, i, "parts out of order or "
				   "overlapping");
		if (e2sr_journal_read(j, e->jblock, 1, buf))
			jplan_fail(plan, i, "the block cannot be read");
		if (e2sr_crc32c_le(~0U, buf, bs) != e->crc_before)
			jplan_fail(plan, i, "crc_before is not the block's "
				   "crc32c as it reads now");
	}
	free(buf);
}
