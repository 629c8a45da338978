/*
 * fuzz_img.c --- a small filesystem image built from a fuzz input.
 *
 * Owns the input format the whole-filesystem targets (fuzz_image,
 * fuzz_histmap, fuzz_dirent) share: a list of chunks, each a little-endian
 * 16-bit block number and the 1 KiB that block holds, laid over a zeroed
 * 4 MiB image (the seeds' filesystems take 2 or 3 MiB of it); a short last chunk fills the start of its block.  Real
 * test images have few non-zero blocks, so the seeds stay small and the
 * mutator works on what matters: superblock, descriptors, inode tables,
 * directories, tree blocks and the journal.  The image is served by
 * mem_io.c.
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

#include "e2secrm.h"
#include "fuzz_img.h"
#include "mem_io.h"

static unsigned char image[FUZZ_IMG_BS * FUZZ_IMG_BLOCKS];
static char device[64];

unsigned char *fuzz_img_load(const uint8_t *data, size_t size)
{
	size_t off, n;
	unsigned int blk;

	memset(image, 0, sizeof(image));
	for (off = 0; off + 2 < size; off += FUZZ_IMG_CHUNK) {
		blk = (data[off] | data[off + 1] << 8) % FUZZ_IMG_BLOCKS;
		n = size - off - 2;
		if (n > FUZZ_IMG_BS)
			n = FUZZ_IMG_BS;
		memcpy(image + (size_t)blk * FUZZ_IMG_BS, data + off + 2, n);
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
	ctx->io_manager = mem_io_manager;
	return ctx;
}
