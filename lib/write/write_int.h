/*
 * write_int.h --- what the files of lib/write/ share among themselves.
 *
 * guard.c checks, wipe_io.c writes blocks, wipe_journal.c writes
 * journal copies; the rest of lib/ calls them through write.h, the face (the
 * guards the kinds pass, the writers of the kinds that overwrite whole
 * blocks).  What only lib/write/ and its unit tests use is here: the
 * guard of a block run and the handle's mode, the write buffer, one run
 * put out by the method asked for, the guarded block writer, and what
 * verify.c notes of each write.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_WRITE_INT_H
#define E2SR_WRITE_INT_H

#include "write.h"

/* Largest single write, in bytes. */
#define WIPE_CHUNK_BYTES	E2SR_SEAL_SPAN_BYTES

/* guard.c */
errcode_t e2sr_wipe_writable(const struct e2sr_ctx *ctx);
errcode_t e2sr_wipe_check(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count);
errcode_t e2sr_wipe_journal_check(struct e2sr_ctx *ctx, __u32 jblock,
				  __u32 count);

/* verify.c */
errcode_t e2sr_verify_note(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
			   blk64_t n, const void *buf);

/* wipe_io.c */
errcode_t e2sr_wipe_buf_get(struct e2sr_ctx *ctx);
errcode_t e2sr_wipe_put_run(struct e2sr_ctx *ctx, io_channel io, blk64_t blk,
			    blk64_t n);
errcode_t e2sr_wipe_range(struct e2sr_ctx *ctx, blk64_t blk, blk64_t count);

#endif /* E2SR_WRITE_INT_H */
