/*
 * watch_io.c --- what the device did under a run: the writes it failed
 * and then took, and where a read or a write failed for good.
 *
 * Owns an io manager that passes everything to the base manager (unix_io,
 * or a test's) and watches it.  unix_io tries a failed pwrite() again as
 * lseek() and write() (raw_write_blk()) and says nothing of the first
 * failure; the errno that failure left behind a call that returned 0 is
 * how it is seen, and counted: a disk that fails a write and takes it a
 * moment later is a disk to check.  unix_io's cache can lose a write it
 * failed to put out to make room, so channels opened for writing go
 * uncached (below); the channel's write_error hook still catches every
 * write that failed for good, and the next flush returns it, so that a
 * run never counts as written what did not reach the device.  The first read or write that failed
 * for good is kept with its block, for the message that names it.
 *
 * One run a process: what is watched is this file's, read back through
 * e2sr_io_watch_failure() and e2sr_io_watch_retried().
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <string.h>

#include "e2secrm.h"

static struct struct_io_manager watch_manager;
static io_manager watch_base;

static struct watch {
	unsigned long		retried;	/* writes failed, then taken */
	errcode_t		dropped;	/* a cached write lost */
	struct e2sr_io_failure	first;		/* the first for good */
} watch;

static void note_failure(io_channel io, int write, unsigned long long block,
			 int count, errcode_t error)
{
	if (watch.first.error)
		return;
	watch.first.error = error;
	watch.first.write = write;
	watch.first.block = block;
	watch.first.count = count < 0 ? 1 : (unsigned int)count;
	watch.first.bytes = count < 0 ? (unsigned int)-count : 0;
	watch.first.block_size = io->block_size;
	snprintf(watch.first.device, sizeof(watch.first.device), "%s",
		 io->name ? io->name : "");
}

static errcode_t read_failed(io_channel io, unsigned long block, int count,
			     void *data EXT2FS_ATTR((unused)),
			     size_t size EXT2FS_ATTR((unused)),
			     int actual EXT2FS_ATTR((unused)),
			     errcode_t error)
{
	note_failure(io, 0, block, count, error);
	return error;
}

/* Also called where unix_io drops the error: kept for the next flush. */
static errcode_t write_failed(io_channel io, unsigned long block, int count,
			      const void *data EXT2FS_ATTR((unused)),
			      size_t size EXT2FS_ATTR((unused)),
			      int actual EXT2FS_ATTR((unused)),
			      errcode_t error)
{
	note_failure(io, 1, block, count, error);
	if (!watch.dropped)
		watch.dropped = error;
	return error;
}

/* Before a call that may write: no failure seen yet. */
static void watch_start(void)
{
	errno = 0;
}

/* After it: taken, but a system call under it failed first. */
static errcode_t watch_end(errcode_t err)
{
	if (!err && errno && errno != EINTR)
		watch.retried++;
	return err;
}

static errcode_t watch_open(const char *name, int flags, io_channel *channel)
{
	errcode_t err;

	err = watch_base->open(name, flags, channel);
	if (err)
		return err;
	(*channel)->manager = &watch_manager;
	(*channel)->read_error = read_failed;
	(*channel)->write_error = write_failed;
	/*
	 * Writes go straight to the device.  libext2fs 1.47.0's cache loses
	 * a write it could not put out to make room: unix_write_blk64()
	 * returns 0 when reuse_cache() fails, without the block it was
	 * given in the cache and without calling write_error, so a run
	 * would count as wiped what never reached the disk (t_fault's
	 * eio-twice).  Uncached, every failed write is an error returned.
	 */
	if (flags & IO_FLAG_RW) {
		err = io_channel_set_options(*channel, "cache=off");
		if (err) {
			io_channel_close(*channel);
			*channel = NULL;
		}
	}
	return err;
}

static errcode_t watch_write_blk(io_channel io, unsigned long block,
				 int count, const void *data)
{
	watch_start();
	return watch_end(watch_base->write_blk(io, block, count, data));
}

static errcode_t watch_write_blk64(io_channel io, unsigned long long block,
				   int count, const void *data)
{
	watch_start();
	return watch_end(watch_base->write_blk64(io, block, count, data));
}

static errcode_t watch_write_byte(io_channel io, unsigned long offset,
				  int count, const void *data)
{
	watch_start();
	return watch_end(watch_base->write_byte(io, offset, count, data));
}

static errcode_t watch_flush(io_channel io)
{
	errcode_t err;

	watch_start();
	err = watch_end(watch_base->flush(io));
	if (!err && watch.dropped)
		err = watch.dropped;
	return err;
}

static errcode_t watch_discard(io_channel io, unsigned long long block,
			       unsigned long long count)
{
	errcode_t err = watch_base->discard(io, block, count);

	if (err && err != EXT2_ET_UNIMPLEMENTED)
		note_failure(io, 1, block, (int)count, err);
	return err;
}

static errcode_t watch_zeroout(io_channel io, unsigned long long block,
			       unsigned long long count)
{
	errcode_t err = watch_base->zeroout(io, block, count);

	if (err && err != EXT2_ET_UNIMPLEMENTED)
		note_failure(io, 1, block, (int)count, err);
	return err;
}

/*
 * The base's table, but for opening and writing; @base NULL is unix_io.
 * What was watched before starts again from nothing.
 */
io_manager e2sr_io_watch(io_manager base)
{
	watch_base = base ? base : unix_io_manager;
	memset(&watch, 0, sizeof(watch));
	watch_manager = *watch_base;
	watch_manager.name = "e2secrm watched";
	watch_manager.open = watch_open;
	if (watch_base->write_blk)
		watch_manager.write_blk = watch_write_blk;
	if (watch_base->write_blk64)
		watch_manager.write_blk64 = watch_write_blk64;
	if (watch_base->write_byte)
		watch_manager.write_byte = watch_write_byte;
	if (watch_base->flush)
		watch_manager.flush = watch_flush;
	if (watch_base->discard)
		watch_manager.discard = watch_discard;
	if (watch_base->zeroout)
		watch_manager.zeroout = watch_zeroout;
	return &watch_manager;
}

/* The first read or write that failed for good; 0 when none did. */
int e2sr_io_watch_failure(struct e2sr_io_failure *f)
{
	if (!watch.first.error)
		return 0;
	*f = watch.first;
	return 1;
}

/* How many writes failed once and were then taken. */
unsigned long e2sr_io_watch_retried(void)
{
	return watch.retried;
}
