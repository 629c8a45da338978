/*
 * mem_io.c --- an io manager over a buffer in memory, for fuzz targets.
 *
 * Owns serving reads (and, for targets that allow them, writes) of one
 * memory buffer through the io channel interface, so that the engine's
 * journal code runs unchanged on an image built from the fuzzer's input.
 * Every access is bounds-checked: a read past the end is an error, never
 * a read out of the buffer.  The buffer is handed over through
 * mem_io_set(), as an io manager's open() takes only a name.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "mem_io.h"

static unsigned char *mem_buf;
static size_t mem_len;
static int mem_no_write;
static int mem_written;		/* a write reached the buffer */

static struct struct_io_manager mem_manager;

void mem_io_set(unsigned char *buf, size_t len)
{
	mem_buf = buf;
	mem_len = len;
	mem_written = 0;
}

/* Whether anything was written to the buffer since it was set. */
int mem_io_written(void)
{
	return mem_written;
}

/*
 * A target that runs the engine read-only turns this on: any write that
 * reaches the device, whatever the channel's flags say, is a finding.
 */
void mem_io_forbid_writes(int on)
{
	mem_no_write = on;
}

static errcode_t mem_open(const char *name, int flags, io_channel *channel)
{
	io_channel io;
	errcode_t err;

	if (!name || !mem_buf)
		return EXT2_ET_INVALID_ARGUMENT;
	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (err)
		return err;
	err = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (err) {
		ext2fs_free_mem(&io);
		return err;
	}
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &mem_manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->flags = flags;
	*channel = io;
	return 0;
}

static errcode_t mem_close(io_channel io)
{
	if (--io->refcount > 0)
		return 0;
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return 0;
}

static errcode_t mem_set_blksize(io_channel io, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	io->block_size = blksize;
	return 0;
}

static errcode_t mem_range(io_channel io, unsigned long long block, int count,
			   __u64 *off, __u64 *len)
{
	*len = count < 0 ? (__u64)-(__s64)count :
			   (__u64)count * io->block_size;
	if (block > mem_len / io->block_size)
		return EXT2_ET_SHORT_READ;
	*off = block * io->block_size;
	if (*len > mem_len - *off)
		return EXT2_ET_SHORT_READ;
	return 0;
}

static errcode_t mem_read_blk64(io_channel io, unsigned long long block,
				int count, void *data)
{
	__u64 off, len;
	errcode_t err;

	err = mem_range(io, block, count, &off, &len);
	if (err)
		return err;
	memcpy(data, mem_buf + off, len);
	return 0;
}

static errcode_t mem_read_blk(io_channel io, unsigned long block, int count,
			      void *data)
{
	return mem_read_blk64(io, block, count, data);
}

static errcode_t mem_write_blk64(io_channel io, unsigned long long block,
				 int count, const void *data)
{
	__u64 off, len;
	errcode_t err;

	if (mem_no_write) {
		fprintf(stderr, "mem_io: write of block %llu in a read-only "
			"run\n", block);
		abort();
	}
	if (!(io->flags & IO_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	err = mem_range(io, block, count, &off, &len);
	if (err)
		return EXT2_ET_SHORT_WRITE;
	mem_written = 1;
	memcpy(mem_buf + off, data, len);
	return 0;
}

static errcode_t mem_write_blk(io_channel io, unsigned long block, int count,
			       const void *data)
{
	return mem_write_blk64(io, block, count, data);
}

static errcode_t mem_flush(io_channel io EXT2FS_ATTR((unused)))
{
	return 0;
}

static struct struct_io_manager mem_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e2secrm fuzz memory",
	.open		= mem_open,
	.close		= mem_close,
	.set_blksize	= mem_set_blksize,
	.read_blk	= mem_read_blk,
	.write_blk	= mem_write_blk,
	.flush		= mem_flush,
	.read_blk64	= mem_read_blk64,
	.write_blk64	= mem_write_blk64,
};

io_manager mem_io_manager = &mem_manager;
