/*
 * open_int.h --- what the files of lib/open/ share among themselves.
 *
 * open.c opens and decides, device.c checks the device, orphan.c and
 * orphan_log.c release orphan inodes, begin_write.c writes what open.c
 * decided; the rest of lib/ and the command call e2sr_open(),
 * e2sr_begin_write() and e2sr_close() through e2secrm.h, the
 * context's teardown releases the orphans' list through open.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_OPEN_INT_H
#define E2SR_OPEN_INT_H

#include "open.h"

/* open.c */
errcode_t e2sr_check_features(ext2_filsys fs, char *detail, size_t len);

/* orphan.c */
errcode_t e2sr_orphans_find(ext2_filsys fs, struct e2sr_orphans *o,
			    char *detail, size_t len);
errcode_t e2sr_orphans_release(ext2_filsys fs, struct e2sr_orphans *o,
			       time_t now, char *detail, size_t len);

/* orphan_log.c */
errcode_t e2sr_orphans_evidence(ext2_filsys before, struct e2sr_orphans *o);
errcode_t e2sr_orphans_log(struct e2sr_orphans *o, ext2_filsys fs,
			   const struct e2sr_jrecovery *found, __u64 now,
			   struct e2sr_journal **ret, char *detail,
			   size_t len);
errcode_t e2sr_orphans_write_log(struct e2sr_orphans *o,
				 struct e2sr_journal *j);
errcode_t e2sr_orphans_commit(struct e2sr_orphans *o, struct e2sr_journal *j);
errcode_t e2sr_orphans_replay(struct e2sr_orphans *o, struct e2sr_journal *j,
			      io_channel fsio, blk64_t fs_blocks,
			      char *detail, size_t len);

/* device.c */
errcode_t e2sr_check_mount(struct e2sr_ctx *ctx, const char *device);
errcode_t e2sr_check_not_mounted(struct e2sr_ctx *ctx, const char *device);
errcode_t e2sr_check_size(struct e2sr_ctx *ctx, const char *device);
errcode_t e2sr_check_writable(struct e2sr_ctx *ctx, const char *path,
			      int journal);

/* open.c: the handle and the journal, as open.c opens them */
/* How e2sr_open_handle() opens a handle. */
#define OPEN_RW		0x1
#define OPEN_EXCL	0x2

io_manager e2sr_open_manager(struct e2sr_ctx *ctx);
errcode_t e2sr_open_handle(struct e2sr_ctx *ctx, int how, io_manager manager,
			   ext2_filsys *ret);
errcode_t e2sr_open_journal(struct e2sr_ctx *ctx, ext2_filsys fs,
			    struct e2sr_journal **ret);

#endif /* E2SR_OPEN_INT_H */
