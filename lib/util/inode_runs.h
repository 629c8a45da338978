/*
 * inode_runs.h --- the runs of blocks a record names in itself
 * (lib/util/inode_runs.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_INODE_RUNS_H
#define E2SR_INODE_RUNS_H

#include <ext2fs/ext2fs.h>

/* What a callback of e2sr_inode_runs() returns to stop the walk. */
#define E2SR_RUNS_ABORT		1

int e2sr_inode_runs(ext2_filsys fs, const struct ext2_inode_large *in,
		    int (*fn)(void *priv, blk64_t pblk, __u32 len),
		    void *priv);
int e2sr_inode_runs_free(ext2_filsys fs, const struct ext2_inode_large *in);

#endif /* E2SR_INODE_RUNS_H */
