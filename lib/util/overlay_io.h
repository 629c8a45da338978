/*
 * overlay_io.h --- an io manager that keeps every write in memory.
 *
 * Reads go through a base io manager (the jbd2 recovery view, say) and
 * see the writes made so far; nothing reaches the base.  The writes are
 * kept copy-on-write in blocks of one size (the channel's block size at
 * the first write), can be listed in block order, and are written to a
 * real channel by e2sr_overlay_commit() once every decision is made.
 *
 * Usage:
 *	ov = e2sr_overlay_new(base, 0);
 *	ext2fs_open2(dev, NULL, EXT2_FLAG_RW | ..., 0, 0,
 *		     e2sr_overlay_manager(ov), &fs);
 *	... change fs, ext2fs_close_free(&fs) ...
 *	e2sr_overlay_commit(ov, real_channel);	(or drop it)
 *	e2sr_overlay_free(ov);
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_OVERLAY_IO_H
#define E2SR_OVERLAY_IO_H

#include <ext2fs/ext2fs.h>

/* Held in memory at most, unless e2sr_overlay_new() says otherwise. */
#define E2SR_OVERLAY_DEFAULT_MAX_BYTES	(256ULL << 20)

struct e2sr_overlay;

/*
 * A new, empty overlay over @base (NULL: unix_io).  @base may be
 * e2sr_overlay_manager() itself: the new overlay then lies over the
 * overlay current at this call, which must outlive it.  @max_bytes bounds
 * the memory the written blocks take (0: the default); a write past it
 * fails with E2SR_ERR_OVERLAY_FULL.
 */
struct e2sr_overlay *e2sr_overlay_new(io_manager base, __u64 max_bytes);

/*
 * The io manager to open through.  Every channel it opens until the next
 * call shares @ov, which must outlive them.  Channels open the base
 * without IO_FLAG_RW (the recovery view refuses it) yet accept writes.
 */
io_manager e2sr_overlay_manager(struct e2sr_overlay *ov);

/* Bytes per written block: 0 while nothing was written. */
unsigned int e2sr_overlay_unit(const struct e2sr_overlay *ov);

/* How many blocks were written. */
size_t e2sr_overlay_count(const struct e2sr_overlay *ov);

/*
 * The @i-th written block in ascending block order (in units of
 * e2sr_overlay_unit() bytes) and its contents; the pointer is valid until
 * the next write, reset or free.
 */
errcode_t e2sr_overlay_block(const struct e2sr_overlay *ov, size_t i,
			     blk64_t *blk, const unsigned char **data);

/*
 * Write every block to @dest in ascending order and flush it.  @dest's
 * block size is set to the unit for the writes and put back after.
 */
errcode_t e2sr_overlay_commit(struct e2sr_overlay *ov, io_channel dest);

/* Forget every write; the overlay can be used again. */
void e2sr_overlay_reset(struct e2sr_overlay *ov);
void e2sr_overlay_free(struct e2sr_overlay *ov);

#endif /* E2SR_OVERLAY_IO_H */
