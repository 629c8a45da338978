/*
 * livemap_int.h --- what the files of the live set share among
 * themselves (livemap.c, livemap_walk.c, livemap_dirs.c); nothing
 * outside lib/find/livemap*.c includes it.  What the other layers may
 * ask of the live set is declared in find.h, the folder's face.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_LIVEMAP_INT_H
#define E2SR_LIVEMAP_INT_H

#include "find_int.h"

/* The walk of one inode's maps (livemap_walk.c). */
struct live_walk {
	struct e2sr_ctx		*ctx;
	ext2_ino_t		ino;
	struct ext2_inode	*inode;
	int			dir;		/* collect its blocks' names */
	blk64_t			run_pblk;	/* data blocks, not yet */
	blk64_t			run_len;	/* claimed */
	__u64			next_lblk;	/* end of the last extent */
};

/* livemap.c */
errcode_t e2sr_livemap_disagree(struct e2sr_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
errcode_t e2sr_livemap_claim(struct live_walk *w, blk64_t pblk, blk64_t len,
			     int ea);

#endif /* E2SR_LIVEMAP_INT_H */
