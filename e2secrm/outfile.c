/*
 * outfile.c --- a file the command writes whole or not at all, never
 * through a symbolic link: the record (record.c) and the metrics
 * (metrics.c).
 *
 * Owns the steps: before the run, the path is checked (a regular file
 * or absent, not a symbolic link) and a temporary file is made beside
 * it, in the same directory, so that a path that cannot be written is
 * refused before the device is touched; after the run, the text is
 * written there and synced, the path checked again, and the temporary
 * file renamed over it, the directory synced.  A reader sees the old
 * file or the new one, never half of one.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <et/com_err.h>

#include "cmd.h"

/*
 * A string as printf makes it, allocated as libext2fs allocates (freed
 * with ext2fs_free_mem); NULL when there is no memory.  The record's
 * paths use it too.
 */
char *outfile_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ext2fs_get_mem(n + 1, &s))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/*
 * @path must be a regular file or absent, not a symbolic link; make the
 * temporary file beside it, as readable as the umask lets a new file be.
 * The messages name the file as @what says it ("the record").
 */
int outfile_open(struct outfile *of, const char *what, const char *path)
{
	struct stat st;
	char *copy, *dir;
	mode_t mask;
	int err;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->what = what;
	of->path = outfile_printf("%s", path);
	copy = outfile_printf("%s", path);
	if (!of->path || !copy) {
		com_err(program_name, ENOMEM, "while preparing %s %s", what,
			path);
		goto fail;
	}
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode)) {
			com_err(program_name, 0, "%s %s is a symbolic link: "
				"refusing to write through it", what, path);
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			com_err(program_name, 0, "%s %s exists and is not a "
				"regular file", what, path);
			goto fail;
		}
	} else if (errno != ENOENT) {
		com_err(program_name, errno, "while checking %s %s", what,
			path);
		goto fail;
	}
	dir = dirname(copy);
	of->tmp = outfile_printf("%s/.%s.XXXXXX", dir, basename(of->path));
	if (!of->tmp) {
		com_err(program_name, ENOMEM, "while preparing %s %s", what,
			path);
		goto fail;
	}
	/* mkstemp creates with O_EXCL: it never follows a link either. */
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		err = errno;
		ext2fs_free_mem(&of->tmp);
		com_err(program_name, err, "while creating %s %s (a temporary "
			"file in %s)", what, path, dir);
		goto fail;
	}
	ext2fs_free_mem(&copy);
	/* mkstemp makes 0600; these files are as readable as a report. */
	mask = umask(0);
	umask(mask);
	fchmod(of->fd, 0644 & ~mask);
	return 0;
fail:
	ext2fs_free_mem(&copy);
	ext2fs_free_mem(&of->path);
	return -1;
}

int outfile_wanted(const struct outfile *of)
{
	return of->fd >= 0;
}

/* The temporary file as a stream, once: NULL when there is none. */
FILE *outfile_stream(struct outfile *of)
{
	FILE *f;

	if (of->fd < 0)
		return NULL;
	f = fdopen(of->fd, "w");
	if (f)
		of->fd = -1;
	return f;
}

/* What was written to @f is on the disk, and @f closed; errno on -1. */
int outfile_sync(FILE *f)
{
	int err;

	if (fflush(f) || fsync(fileno(f))) {
		err = errno;
		fclose(f);
		errno = err;
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/* rename() replaces a link rather than follow it; refuse one anyway. */
int outfile_commit(struct outfile *of)
{
	struct stat st;
	char *copy;
	int dfd;

	if (!of->tmp)
		return -1;
	if (!lstat(of->path, &st) && !S_ISREG(st.st_mode)) {
		com_err(program_name, 0, "%s %s is no longer a regular file "
			"(a symbolic link?): left in %s", of->what, of->path,
			of->tmp);
		/* Keep the file: what was written is in it. */
		ext2fs_free_mem(&of->tmp);
		return -1;
	}
	if (rename(of->tmp, of->path)) {
		com_err(program_name, errno, "while renaming %s to %s %s",
			of->tmp, of->what, of->path);
		return -1;
	}
	ext2fs_free_mem(&of->tmp);
	/* The rename itself must survive a crash. */
	copy = outfile_printf("%s", of->path);
	if (copy) {
		dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		ext2fs_free_mem(&copy);
	}
	return 0;
}

/* A temporary file not renamed in place goes (at exit, on a refusal). */
void outfile_discard(struct outfile *of)
{
	if (of->fd >= 0) {
		close(of->fd);
		of->fd = -1;
	}
	if (of->tmp) {
		unlink(of->tmp);
		ext2fs_free_mem(&of->tmp);
	}
}
