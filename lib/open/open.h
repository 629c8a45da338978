/*
 * open.h --- what the files of lib/open/ share among themselves.
 *
 * open.c opens and decides, device.c checks the device, begin_write.c
 * writes what open.c decided; the rest of lib/ and the command call
 * e2sr_open(), e2sr_begin_write() and e2sr_close() through e2secrm.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_OPEN_H
#define E2SR_OPEN_H

#include "e2secrmP.h"

/* device.c */
errcode_t e2sr_check_mount(struct e2sr_ctx *ctx, const char *device);
errcode_t e2sr_check_not_mounted(struct e2sr_ctx *ctx, const char *device);
errcode_t e2sr_check_size(struct e2sr_ctx *ctx, const char *device);
errcode_t e2sr_check_writable(struct e2sr_ctx *ctx, const char *path,
			      int journal);

/* open.c */
/* How e2sr_open_handle() opens a handle. */
#define OPEN_RW		0x1
#define OPEN_EXCL	0x2

io_manager e2sr_open_manager(struct e2sr_ctx *ctx);
errcode_t e2sr_open_handle(struct e2sr_ctx *ctx, int how, io_manager manager,
			   ext2_filsys *ret);
errcode_t e2sr_open_journal(struct e2sr_ctx *ctx, ext2_filsys fs,
			    struct e2sr_journal **ret);

#endif /* E2SR_OPEN_H */
