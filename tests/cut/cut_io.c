/*
 * cut_io.c --- a power cut after the k-th write, for tests only.
 *
 * Owns an io manager that passes everything to unix_io and counts the
 * writes (block writes, byte writes, discards, zero-outs) of every
 * channel it opens.  With E2SECRM_CUT_AFTER=k set, the (k+1)-th write
 * never happens: the process ends on the spot with status 99, without
 * flushing, as if the power went.  Whatever unix_io still held in its
 * cache is lost with it, which is the point: only what the engine
 * flushed survives.  With E2SECRM_CUT_COUNT=FILE, the number of writes
 * of a whole run is written to FILE at exit.
 *
 * It also holds the command to its promise that every check runs before
 * the first write: until the command calls cut_io_allow_writes(), right
 * before e2sr_begin_write(), any write ends the process with status 98
 * and a message on stderr.  It is linked into
 * tests/e2secrm-cut only, never into e2secrm.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "cut_io.h"

static struct struct_io_manager cut_manager;
static unsigned long writes;
static unsigned long cut_after;
static int counting;
static int writes_allowed;

void cut_io_allow_writes(void)
{
	writes_allowed = 1;
}

static void report_count(void)
{
	const char *path = getenv("E2SECRM_CUT_COUNT");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "%lu\n", writes);
	fclose(f);
}

static void one_write(void)
{
	if (!writes_allowed) {
		static const char msg[] =
			"cut_io: a write before every check had passed\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(98);
		_exit(98);
	}
	if (cut_after && writes >= cut_after)
		_exit(99);	/* the power is gone */
	writes++;
}

static errcode_t cut_open(const char *name, int flags, io_channel *channel)
{
	static int opened;
	errcode_t err;

	err = unix_io_manager->open(name, flags, channel);
	if (err)
		return err;
	(*channel)->manager = &cut_manager;
	/*
	 * E2SECRM_CUT_SELFTEST: a write of what is already there at the
	 * first open, to show that the gate above catches it.
	 */
	if (!opened++ && getenv("E2SECRM_CUT_SELFTEST"))
		one_write();
	return 0;
}

static errcode_t cut_write_blk64(io_channel io, unsigned long long block,
				 int count, const void *data)
{
	one_write();
	return unix_io_manager->write_blk64(io, block, count, data);
}

static errcode_t cut_write_blk(io_channel io, unsigned long block, int count,
			       const void *data)
{
	one_write();
	return unix_io_manager->write_blk(io, block, count, data);
}

static errcode_t cut_write_byte(io_channel io, unsigned long offset,
				int count, const void *data)
{
	one_write();
	return unix_io_manager->write_byte(io, offset, count, data);
}

static errcode_t cut_discard(io_channel io, unsigned long long block,
			     unsigned long long count)
{
	one_write();
	return unix_io_manager->discard(io, block, count);
}

static errcode_t cut_zeroout(io_channel io, unsigned long long block,
			     unsigned long long count)
{
	one_write();
	return unix_io_manager->zeroout(io, block, count);
}

/* unix_io's table, but for opening and every kind of write. */
io_manager cut_io_setup(void)
{
	const char *k = getenv("E2SECRM_CUT_AFTER");

	cut_manager = *unix_io_manager;
	cut_manager.name = "e2secrm test power cut";
	cut_manager.open = cut_open;
	cut_manager.write_blk = cut_write_blk;
	cut_manager.write_blk64 = cut_write_blk64;
	cut_manager.write_byte = cut_write_byte;
	if (unix_io_manager->discard)
		cut_manager.discard = cut_discard;
	if (unix_io_manager->zeroout)
		cut_manager.zeroout = cut_zeroout;
	cut_after = k ? strtoul(k, NULL, 10) : 0;
	if (!counting) {
		counting = 1;
		atexit(report_count);
	}
	return &cut_manager;
}
