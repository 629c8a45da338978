/*
 * overlay_io.c --- writes kept in memory over a read-only io manager.
 *
 * Owns the copy-on-write store behind overlay_io.h: a sorted array of
 * written blocks, all of one size (the unit, fixed by the first write),
 * and the io manager whose channels read the base and lay the written
 * blocks over what it returns.  Every transfer is turned into a byte
 * range first, so a write at another block size (the superblock at 1024
 * bytes, io_channel_write_byte) is a read-modify-write of the units it
 * touches, never a misplaced block.
 *
 * An io manager's open() takes nothing but a name, so the store is
 * handed over through one static slot, as journal_view.c does.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "overlay_io.h"

struct ov_block {
	blk64_t		blk;		/* in units */
	unsigned char	*data;
};

struct e2sr_overlay {
	io_manager	base;
	/* The base is itself an overlay: the one its channels must use. */
	struct e2sr_overlay *under;
	__u64		max_bytes;
	unsigned int	unit;
	struct ov_block	*blocks;	/* sorted by blk */
	size_t		n;
	size_t		alloc;
};

struct ov_chan {
	io_channel		inner;
	struct e2sr_overlay	*ov;
};

static struct e2sr_overlay *ov_slot;
static struct struct_io_manager ov_manager;

struct e2sr_overlay *e2sr_overlay_new(io_manager base, __u64 max_bytes)
{
	struct e2sr_overlay *ov;

	if (ext2fs_get_memzero(sizeof(*ov), &ov))
		return NULL;
	ov->base = base ? base : unix_io_manager;
	if (ov->base == &ov_manager)
		ov->under = ov_slot;
	ov->max_bytes = max_bytes ? max_bytes : E2SR_OVERLAY_DEFAULT_MAX_BYTES;
	return ov;
}

void e2sr_overlay_reset(struct e2sr_overlay *ov)
{
	size_t i;

	if (!ov)
		return;
	for (i = 0; i < ov->n; i++)
		ext2fs_free_mem(&ov->blocks[i].data);
	ext2fs_free_mem(&ov->blocks);
	ov->blocks = NULL;
	ov->n = 0;
	ov->alloc = 0;
	ov->unit = 0;
}

void e2sr_overlay_free(struct e2sr_overlay *ov)
{
	if (!ov)
		return;
	e2sr_overlay_reset(ov);
	if (ov_slot == ov)
		ov_slot = NULL;
	ext2fs_free_mem(&ov);
}

unsigned int e2sr_overlay_unit(const struct e2sr_overlay *ov)
{
	return ov->unit;
}

size_t e2sr_overlay_count(const struct e2sr_overlay *ov)
{
	return ov->n;
}

errcode_t e2sr_overlay_block(const struct e2sr_overlay *ov, size_t i,
			     blk64_t *blk, const unsigned char **data)
{
	if (i >= ov->n)
		return EXT2_ET_INVALID_ARGUMENT;
	*blk = ov->blocks[i].blk;
	*data = ov->blocks[i].data;
	return 0;
}

/* Index of the first block at or after @blk. */
static size_t first_at(const struct e2sr_overlay *ov, blk64_t blk)
{
	size_t lo = 0, hi = ov->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ov->blocks[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Lay the written blocks over [off, off + len) of @data. */
static void lay_over(const struct e2sr_overlay *ov, __u64 off, __u64 len,
		     unsigned char *data)
{
	__u64 u = ov->unit;
	size_t i;

	if (!ov->n || !len)
		return;
	for (i = first_at(ov, off / u);
	     i < ov->n && ov->blocks[i].blk * u < off + len; i++) {
		__u64 b_start = ov->blocks[i].blk * u;
		__u64 from = b_start > off ? b_start : off;
		__u64 to = b_start + u < off + len ? b_start + u : off + len;

		memcpy(data + (from - off), ov->blocks[i].data + (from - b_start),
		       to - from);
	}
}

/*
 * Read @len bytes at byte offset @off from the base, whatever its block
 * size: the aligned range around it is read and the part wanted copied.
 */
static errcode_t read_base(io_channel inner, __u64 off, __u64 len,
			   unsigned char *out)
{
	__u64 bs = inner->block_size;
	__u64 start = off / bs * bs;
	__u64 end = (off + len + bs - 1) / bs * bs;
	unsigned char *buf;
	errcode_t err;

	if (start == off && end == off + len)
		return io_channel_read_blk64(inner, off / bs,
					     -(int)len, out);
	if (end - start > INT32_MAX)
		return EXT2_ET_INVALID_ARGUMENT;
	err = ext2fs_get_mem(end - start, &buf);
	if (err)
		return err;
	err = io_channel_read_blk64(inner, start / bs, -(int)(end - start),
				    buf);
	if (!err)
		memcpy(out, buf + (off - start), len);
	ext2fs_free_mem(&buf);
	return err;
}

/* The written copy of unit @blk, made from the base on first use. */
static errcode_t get_block(struct e2sr_overlay *ov, io_channel inner,
			   blk64_t blk, int whole, unsigned char **ret)
{
	size_t i = first_at(ov, blk);
	unsigned char *data;
	errcode_t err;

	if (i < ov->n && ov->blocks[i].blk == blk) {
		*ret = ov->blocks[i].data;
		return 0;
	}
	if ((__u64)(ov->n + 1) * ov->unit > ov->max_bytes)
		return E2SR_ERR_OVERLAY_FULL;
	if (ov->n == ov->alloc &&
	    e2sr_array_room(&ov->blocks, &ov->alloc, ov->n + 1,
			    sizeof(*ov->blocks)))
		return EXT2_ET_NO_MEMORY;
	err = ext2fs_get_mem(ov->unit, &data);
	if (err)
		return err;
	if (!whole) {
		err = read_base(inner, blk * (__u64)ov->unit, ov->unit, data);
		if (err) {
			ext2fs_free_mem(&data);
			return err;
		}
	}
	memmove(&ov->blocks[i + 1], &ov->blocks[i],
		(ov->n - i) * sizeof(*ov->blocks));
	ov->blocks[i].blk = blk;
	ov->blocks[i].data = data;
	ov->n++;
	*ret = data;
	return 0;
}

static errcode_t ov_write_bytes(io_channel io, __u64 off, __u64 len,
				const unsigned char *src)
{
	struct ov_chan *c = io->private_data;
	struct e2sr_overlay *ov = c->ov;
	unsigned char *data;
	blk64_t blk, last;
	errcode_t err;

	if (!len)
		return 0;
	if (!ov->unit)
		ov->unit = io->block_size;
	last = (off + len - 1) / ov->unit;
	for (blk = off / ov->unit; blk <= last; blk++) {
		__u64 b_start = blk * (__u64)ov->unit;
		__u64 from = b_start > off ? b_start : off;
		__u64 to = b_start + ov->unit < off + len ?
			   b_start + ov->unit : off + len;

		err = get_block(ov, c->inner, blk,
				from == b_start && to == b_start + ov->unit,
				&data);
		if (err)
			return err;
		memcpy(data + (from - b_start), src + (from - off), to - from);
	}
	return 0;
}

static errcode_t ov_open(const char *name, int flags, io_channel *channel)
{
	io_channel io = NULL;
	struct ov_chan *c = NULL;
	struct e2sr_overlay *c_ov;
	errcode_t err;

	if (!name || !ov_slot)
		return EXT2_ET_INVALID_ARGUMENT;
	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*c), &c);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &io->name);
	c_ov = ov_slot;
	/* An overlay over an overlay: the base's channel is the lower one's. */
	if (!err && c_ov->under)
		ov_slot = c_ov->under;
	if (!err)
		err = c_ov->base->open(name, flags & ~IO_FLAG_RW, &c->inner);
	ov_slot = c_ov;
	if (err)
		goto fail;
	strcpy(io->name, name);
	c->ov = c_ov;
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &ov_manager;
	io->block_size = c->inner->block_size;
	io->refcount = 1;
	io->flags = c->inner->flags | (flags & IO_FLAG_RW);
	io->private_data = c;
	*channel = io;
	return 0;
fail:
	ext2fs_free_mem(&c);
	if (io) {
		ext2fs_free_mem(&io->name);
		ext2fs_free_mem(&io);
	}
	return err;
}

static errcode_t ov_close(io_channel io)
{
	struct ov_chan *c = io->private_data;
	errcode_t err;

	if (--io->refcount > 0)
		return 0;
	err = io_channel_close(c->inner);
	ext2fs_free_mem(&c);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return err;
}

static errcode_t ov_set_blksize(io_channel io, int blksize)
{
	struct ov_chan *c = io->private_data;
	errcode_t err;

	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	err = io_channel_set_blksize(c->inner, blksize);
	if (!err)
		io->block_size = blksize;
	return err;
}

static __u64 xfer_len(io_channel io, int count)
{
	return count < 0 ? (__u64)-(__s64)count :
			   (__u64)count * io->block_size;
}

static errcode_t ov_read_blk64(io_channel io, unsigned long long block,
			       int count, void *data)
{
	struct ov_chan *c = io->private_data;
	errcode_t err;

	err = io_channel_read_blk64(c->inner, block, count, data);
	if (!err && c->ov->unit)
		lay_over(c->ov, (__u64)block * io->block_size,
			 xfer_len(io, count), data);
	return err;
}

static errcode_t ov_read_blk(io_channel io, unsigned long block, int count,
			     void *data)
{
	return ov_read_blk64(io, block, count, data);
}

static errcode_t ov_write_blk64(io_channel io, unsigned long long block,
				int count, const void *data)
{
	return ov_write_bytes(io, (__u64)block * io->block_size,
			      xfer_len(io, count), data);
}

static errcode_t ov_write_blk(io_channel io, unsigned long block, int count,
			      const void *data)
{
	return ov_write_blk64(io, block, count, data);
}

static errcode_t ov_write_byte(io_channel io, unsigned long offset, int size,
			       const void *data)
{
	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return ov_write_bytes(io, offset, size, data);
}

/* Nothing is pending: writes live in memory until committed. */
static errcode_t ov_flush(io_channel io EXT2FS_ATTR((unused)))
{
	return 0;
}

static errcode_t ov_set_option(io_channel io, const char *option,
			       const char *arg)
{
	struct ov_chan *c = io->private_data;

	if (!c->inner->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return c->inner->manager->set_option(c->inner, option, arg);
}

static errcode_t ov_get_stats(io_channel io, io_stats *stats)
{
	struct ov_chan *c = io->private_data;

	if (!c->inner->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return c->inner->manager->get_stats(c->inner, stats);
}

static struct struct_io_manager ov_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e2secrm in-memory overlay",
	.open		= ov_open,
	.close		= ov_close,
	.set_blksize	= ov_set_blksize,
	.read_blk	= ov_read_blk,
	.write_blk	= ov_write_blk,
	.flush		= ov_flush,
	.write_byte	= ov_write_byte,
	.set_option	= ov_set_option,
	.get_stats	= ov_get_stats,
	.read_blk64	= ov_read_blk64,
	.write_blk64	= ov_write_blk64,
};

io_manager e2sr_overlay_manager(struct e2sr_overlay *ov)
{
	ov_slot = ov;
	return &ov_manager;
}

errcode_t e2sr_overlay_commit(struct e2sr_overlay *ov, io_channel dest)
{
	int old = dest->block_size;
	errcode_t err = 0, err2;
	size_t i;

	if (!ov->n)
		return 0;
	if ((unsigned int)old != ov->unit)
		err = io_channel_set_blksize(dest, ov->unit);
	for (i = 0; i < ov->n && !err; i++)
		err = io_channel_write_blk64(dest, ov->blocks[i].blk, 1,
					     ov->blocks[i].data);
	if (!err)
		err = io_channel_flush(dest);
	if ((unsigned int)old != ov->unit) {
		err2 = io_channel_set_blksize(dest, old);
		if (!err)
			err = err2;
	}
	return err;
}
