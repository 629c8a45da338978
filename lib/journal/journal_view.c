/*
 * journal_view.c --- a recovered filesystem, in memory, for a dry run.
 *
 * A dry run must not write, yet a filesystem that needs recovery is only
 * what it is after its journal is replayed.  This io manager wraps
 * unix_io: every read returns the device's bytes with each block that
 * recovery would write replaced by its journal copy (escape undone), and
 * every write fails.  libext2fs opened through it sees the filesystem as
 * e2fsck would leave it, and so does every later stage of the engine.
 *
 * An io manager's open() takes no argument beyond the name, so the
 * journal and the recovery plan are handed over through one static slot
 * set by e2sr_view_manager(): the engine opens one filesystem at a time.
 * The device under the view is opened with unix_io unless
 * e2sr_view_set_base() named another manager (a fuzz target's memory
 * image): the view must read the same bytes the filesystem handle does.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "journal_io.h"

struct view {
	io_channel			inner;
	struct e2sr_journal		*j;
	const struct e2sr_jrecovery	*rec;	/* or: */
	e2sr_view_lookup_fn		lookup;
	void				*lookup_priv;
	unsigned char			*buf;	/* one journal block */
};

static struct e2sr_journal *view_journal;
static const struct e2sr_jrecovery *view_rec;
static e2sr_view_lookup_fn view_lookup;
static void *view_lookup_priv;
static io_manager view_base;

static struct struct_io_manager view_manager;

static errcode_t view_open(const char *name, int flags, io_channel *channel)
{
	io_channel io = NULL;
	struct view *v = NULL;
	errcode_t err;

	if (!name || !view_journal || (!view_rec && !view_lookup))
		return EXT2_ET_INVALID_ARGUMENT;
	if (flags & IO_FLAG_RW)
		return EXT2_ET_RO_FILSYS;
	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*v), &v);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (!err)
		err = ext2fs_get_mem(view_journal->blocksize, &v->buf);
	if (!err)
		err = (view_base ? view_base : unix_io_manager)->open(name,
				flags, &v->inner);
	if (err)
		goto fail;
	strcpy(io->name, name);
	v->j = view_journal;
	v->rec = view_rec;
	v->lookup = view_lookup;
	v->lookup_priv = view_lookup_priv;
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &view_manager;
	io->block_size = v->inner->block_size;
	io->refcount = 1;
	io->flags = v->inner->flags;
	io->private_data = v;
	*channel = io;
	return 0;
fail:
	if (v) {
		ext2fs_free_mem(&v->buf);
		ext2fs_free_mem(&v);
	}
	if (io) {
		ext2fs_free_mem(&io->name);
		ext2fs_free_mem(&io);
	}
	return err;
}

static errcode_t view_close(io_channel io)
{
	struct view *v = io->private_data;
	errcode_t err;

	if (--io->refcount > 0)
		return 0;
	err = io_channel_close(v->inner);
	ext2fs_free_mem(&v->buf);
	ext2fs_free_mem(&v);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return err;
}

static errcode_t view_set_blksize(io_channel io, int blksize)
{
	struct view *v = io->private_data;
	errcode_t err;

	err = io_channel_set_blksize(v->inner, blksize);
	if (!err)
		io->block_size = blksize;
	return err;
}

/* First replayed block at or after @blk. */
static size_t first_at(const struct e2sr_jrecovery *rec, blk64_t blk)
{
	size_t lo = 0, hi = rec->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rec->blocks[mid].fs_block < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same, block by block, with the copy the lookup chooses. */
static errcode_t overlay_lookup(struct view *v, __u64 off, __u64 len,
				unsigned char *data)
{
	unsigned int bs = v->j->blocksize;
	blk64_t blk, last = (off + len - 1) / bs;
	struct e2sr_jreplay r;
	errcode_t err;

	for (blk = off / bs; blk <= last; blk++) {
		__u64 b_start = blk * (__u64)bs;
		__u64 from = b_start > off ? b_start : off;
		__u64 to = b_start + bs < off + len ? b_start + bs : off + len;

		if (!v->lookup(v->lookup_priv, blk, &r))
			continue;
		err = e2sr_journal_copy(v->j, &r, v->buf);
		if (err)
			return err;
		memcpy(data + (from - off), v->buf + (from - b_start),
		       to - from);
	}
	return 0;
}

/* Lay the journal copies over [off, off + len) of what was read. */
static errcode_t overlay(struct view *v, __u64 off, __u64 len,
			 unsigned char *data)
{
	unsigned int bs = v->j->blocksize;
	blk64_t first = off / bs, last = (off + len - 1) / bs;
	size_t i;
	errcode_t err;

	if (!len)
		return 0;
	if (!v->rec)
		return overlay_lookup(v, off, len, data);
	for (i = first_at(v->rec, first);
	     i < v->rec->nblocks && v->rec->blocks[i].fs_block <= last; i++) {
		const struct e2sr_jreplay *r = &v->rec->blocks[i];
		__u64 b_start = r->fs_block * (__u64)bs;
		__u64 from = b_start > off ? b_start : off;
		__u64 to = b_start + bs < off + len ? b_start + bs : off + len;

		err = e2sr_journal_copy(v->j, r, v->buf);
		if (err)
			return err;
		memcpy(data + (from - off), v->buf + (from - b_start),
		       to - from);
	}
	return 0;
}

static errcode_t view_read_blk64(io_channel io, unsigned long long block,
				 int count, void *data)
{
	struct view *v = io->private_data;
	__u64 len;
	errcode_t err;

	err = io_channel_read_blk64(v->inner, block, count, data);
	if (err)
		return err;
	len = count < 0 ? (__u64)-(__s64)count :
			  (__u64)count * io->block_size;
	return overlay(v, (__u64)block * io->block_size, len, data);
}

static errcode_t view_read_blk(io_channel io, unsigned long block, int count,
			       void *data)
{
	return view_read_blk64(io, block, count, data);
}

static errcode_t view_write_blk64(io_channel io EXT2FS_ATTR((unused)),
				  unsigned long long block
				  EXT2FS_ATTR((unused)),
				  int count EXT2FS_ATTR((unused)),
				  const void *data EXT2FS_ATTR((unused)))
{
	return EXT2_ET_RO_FILSYS;
}

static errcode_t view_write_blk(io_channel io, unsigned long block,
				int count, const void *data)
{
	return view_write_blk64(io, block, count, data);
}

static errcode_t view_write_byte(io_channel io EXT2FS_ATTR((unused)),
				 unsigned long offset EXT2FS_ATTR((unused)),
				 int count EXT2FS_ATTR((unused)),
				 const void *data EXT2FS_ATTR((unused)))
{
	return EXT2_ET_RO_FILSYS;
}

static errcode_t view_flush(io_channel io)
{
	struct view *v = io->private_data;

	return io_channel_flush(v->inner);
}

static errcode_t view_set_option(io_channel io, const char *option,
				 const char *arg)
{
	struct view *v = io->private_data;

	if (!v->inner->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return v->inner->manager->set_option(v->inner, option, arg);
}

static errcode_t view_get_stats(io_channel io, io_stats *stats)
{
	struct view *v = io->private_data;

	if (!v->inner->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return v->inner->manager->get_stats(v->inner, stats);
}

static struct struct_io_manager view_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e2secrm recovered view",
	.open		= view_open,
	.close		= view_close,
	.set_blksize	= view_set_blksize,
	.read_blk	= view_read_blk,
	.write_blk	= view_write_blk,
	.flush		= view_flush,
	.write_byte	= view_write_byte,
	.set_option	= view_set_option,
	.get_stats	= view_get_stats,
	.read_blk64	= view_read_blk64,
	.write_blk64	= view_write_blk64,
};

/*
 * The io manager to open the filesystem through.  @j and @rec must
 * outlive every channel opened with it.
 */
io_manager e2sr_view_manager(struct e2sr_journal *j,
			     const struct e2sr_jrecovery *rec)
{
	view_journal = j;
	view_rec = rec;
	view_lookup = NULL;
	view_lookup_priv = NULL;
	return &view_manager;
}

/*
 * The same view with the copy of each block chosen by @fn: the history
 * view through which a historic block map is read.
 */
io_manager e2sr_view_manager_lookup(struct e2sr_journal *j,
				    e2sr_view_lookup_fn fn, void *priv)
{
	view_journal = j;
	view_rec = NULL;
	view_lookup = fn;
	view_lookup_priv = priv;
	return &view_manager;
}

/* The manager the view reads the device through; NULL: unix_io. */
void e2sr_view_set_base(io_manager base)
{
	view_base = base;
}
