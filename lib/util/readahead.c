/*
 * readahead.c --- what a pass is about to read, asked of the kernel
 * before the pass gets there.
 *
 * A cold run waits for each read in turn: the inode scan reads one
 * buffer of inode table at a time, the journal walk one window of the
 * log, and the device idles between them while the CPU works.  e2fsck
 * keeps a thread asking the kernel for the next groups' inode tables
 * (e2fsck/readahead.c, through ext2fs_readahead()); so does this, for
 * any list of byte ranges a pass gives in the order it will read them.
 *
 * Owns one reader thread per list, its own read-only descriptor on the
 * device, and posix_fadvise(POSIX_FADV_WILLNEED) on the ranges, at most
 * a window ahead of what the pass says it has read (so a machine with
 * little memory does not lose the start of the window to its end).  The
 * pass reads as before, through libext2fs and its io channel; what the
 * kernel already has it does not wait for.  Nothing here decides
 * anything or reads a byte into memory of ours: a list that could not
 * be started (no thread, the device not opened) only leaves the pass
 * waiting as before, and so it is not an error.  libext2fs' own
 * io_channel_cache_readahead() is not used: the channels a run reads
 * through are our io managers over unix_io, which do not pass it on,
 * and a second thread must not share unix_io's cache.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "e2secrm.h"
#include "util.h"

/* Ranges larger than this are asked for in parts, to keep to the window. */
#define RA_PART		(2ULL << 20)

struct e2sr_ra {
	pthread_t		thread;
	pthread_mutex_t		lock;
	pthread_cond_t		more;
	int			fd;
	struct e2sr_ra_range	*r;
	size_t			n;
	__u64			window;	/* bytes asked for ahead of done */
	__u64			done;	/* bytes of the list the pass read */
	int			stop;
};

static void *ra_thread(void *arg)
{
	struct e2sr_ra *ra = arg;
	__u64 asked = 0, off, len, part;
	size_t i;

	for (i = 0; i < ra->n; i++) {
		off = ra->r[i].offset;
		len = ra->r[i].length;
		while (len) {
			part = len < RA_PART ? len : RA_PART;
			pthread_mutex_lock(&ra->lock);
			while (!ra->stop && asked >= ra->done + ra->window)
				pthread_cond_wait(&ra->more, &ra->lock);
			if (ra->stop) {
				pthread_mutex_unlock(&ra->lock);
				return NULL;
			}
			pthread_mutex_unlock(&ra->lock);
			(void) posix_fadvise(ra->fd, (off_t)off, (off_t)part,
					     POSIX_FADV_WILLNEED);
			off += part;
			len -= part;
			asked += part;
		}
	}
	return NULL;
}

/*
 * @length bytes at @offset onto the list *@r (*@n ranges, room for
 * *@alloc), joined to the last range when they follow it on the device.
 */
errcode_t e2sr_ra_add(struct e2sr_ra_range **r, size_t *n, size_t *alloc,
		      __u64 offset, __u64 length)
{
	if (*n && (*r)[*n - 1].offset + (*r)[*n - 1].length == offset) {
		(*r)[*n - 1].length += length;
		return 0;
	}
	if (e2sr_array_room(r, alloc, *n + 1, sizeof(**r)))
		return EXT2_ET_NO_MEMORY;
	(*r)[*n].offset = offset;
	(*r)[*n].length = length;
	(*n)++;
	return 0;
}

/*
 * Ask for @n ranges of @device (byte offsets, in the order the pass will
 * read them), at most @window bytes ahead of what e2sr_ra_done() says.
 * The list is copied.  *@ra is NULL when nothing was started.
 */
void e2sr_ra_start(const char *device, const struct e2sr_ra_range *r,
		   size_t n, __u64 window, struct e2sr_ra **ra)
{
	struct e2sr_ra *p;

	*ra = NULL;
	if (!device || !n || ext2fs_get_memzero(sizeof(*p), &p))
		return;
	if (ext2fs_get_array(n, sizeof(*p->r), &p->r))
		goto out;
	memcpy(p->r, r, n * sizeof(*r));
	p->n = n;
	p->window = window;
	p->fd = open(device, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0)
		goto out;
	if (pthread_mutex_init(&p->lock, NULL))
		goto out_fd;
	if (pthread_cond_init(&p->more, NULL))
		goto out_lock;
	if (pthread_create(&p->thread, NULL, ra_thread, p))
		goto out_cond;
	*ra = p;
	return;
out_cond:
	pthread_cond_destroy(&p->more);
out_lock:
	pthread_mutex_destroy(&p->lock);
out_fd:
	close(p->fd);
out:
	ext2fs_free_mem(&p->r);
	ext2fs_free_mem(&p);
}

/* The pass has read @bytes of the list (in list order): ask for more. */
void e2sr_ra_done(struct e2sr_ra *ra, __u64 bytes)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	if (bytes > ra->done) {
		ra->done = bytes;
		pthread_cond_signal(&ra->more);
	}
	pthread_mutex_unlock(&ra->lock);
}

/* The pass is over: the thread asks for nothing more and is gone. */
void e2sr_ra_stop(struct e2sr_ra **ra)
{
	struct e2sr_ra *p = *ra;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->lock);
	close(p->fd);
	ext2fs_free_mem(&p->r);
	ext2fs_free_mem(ra);
}
