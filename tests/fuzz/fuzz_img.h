/*
 * fuzz_img.h --- a small filesystem image built from a fuzz input.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FUZZ_IMG_H
#define E2SR_FUZZ_IMG_H

#include <stddef.h>
#include <stdint.h>

/* Images are 4 MiB of 1 KiB blocks (the seeds use 2 or 3 MiB of it);
 * chunks are a block number, a block. */
#define FUZZ_IMG_BS		1024
#define FUZZ_IMG_BLOCKS		4096
#define FUZZ_IMG_CHUNK		(2 + FUZZ_IMG_BS)

struct e2sr_ctx;

unsigned char *fuzz_img_load(const uint8_t *data, size_t size);
const char *fuzz_img_device(void);
struct e2sr_ctx *fuzz_img_ctx(const uint8_t *data, size_t size,
			      unsigned char **img);
void fuzz_img_check_jplan(struct e2sr_ctx *ctx);

#endif /* E2SR_FUZZ_IMG_H */
