/*
 * state.c --- the state file: what the last successful run saw of a
 * filesystem's journal, one small file per filesystem UUID.
 *
 * Owns reading and writing <dir>/<uuid>.state: a text file of key=value
 * lines after a version line, which coverage.c's decision reads back as
 * "the previous run" (tid, commit time, s_sequence and s_head it left,
 * run time).  Neither the directory nor the file is ever reached through
 * a symbolic link, both must be the caller's and not writable by others,
 * and the file is replaced atomically (a temporary file in the same
 * directory, fsync, rename, fsync of the directory).  Nothing here
 * prints: the outcome and what was wrong go back in struct cmd_state.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"

#define STATE_VERSION	1
#define STATE_MAX	4096	/* a valid file is a few hundred bytes */

static void why(struct cmd_state *st, const char *fmt, const char *arg)
{
	snprintf(st->why, sizeof(st->why), fmt, arg);
}

/* A UUID as e2p prints it: the only thing that goes into a file name. */
static int uuid_ok(const char *uuid)
{
	size_t i;

	for (i = 0; uuid[i]; i++)
		if (!((uuid[i] >= '0' && uuid[i] <= '9') ||
		      (uuid[i] >= 'a' && uuid[i] <= 'f') || uuid[i] == '-'))
			return 0;
	return i == 36;
}

/* Ours, and no one else may change what is in it. */
static int safe_owner(const struct stat *sb)
{
	return sb->st_uid == geteuid() && !(sb->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * The directory, not through a symbolic link; made 0700 if @create and
 * missing.  -1 with errno ENOENT when it does not exist.
 */
static int open_dir(const char *dir, int create, struct cmd_state *st)
{
	struct stat sb;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdir(dir, 0700) && errno != EEXIST) {
			why(st, "cannot make the directory: %s",
			    strerror(errno));
			return -1;
		}
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP || e == ENOTDIR)
			why(st, "%s", "the directory is a symbolic link or "
			    "not a directory");
		else
			why(st, "%s", strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &sb) || !safe_owner(&sb)) {
		why(st, "%s", "the directory is not ours alone (owner, or "
		    "writable by others)");
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static void set_path(struct cmd_state *st, const char *dir,
		     const char *uuid)
{
	snprintf(st->path, sizeof(st->path), "%s/%s.state", dir, uuid);
}

/* A decimal number of at most @max, all of @s. */
static int parse_num(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

#define HAVE_VERSION	0x01
#define HAVE_UUID	0x02
#define HAVE_TID	0x04
#define HAVE_TID_TIME	0x08
#define HAVE_SEQUENCE	0x10
#define HAVE_HEAD	0x20
#define HAVE_RUN_TIME	0x40
#define HAVE_ALL	0x7f
#define HAVE_UNANSWERED	0x80	/* optional: 0 when not there */

/* Every line known, every number in range, every key once. */
static int parse(char *text, const char *uuid, struct e2sr_cover_prev *prev,
		 struct cmd_state *st)
{
	char *line, *next, *eq;
	unsigned int have = 0, bit;
	uint64_t v;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			why(st, "%s", "a line without '='");
			return -1;
		}
		*eq++ = 0;
		if (!strcmp(line, "uuid")) {
			if (strcmp(eq, uuid)) {
				why(st, "%s", "it names another filesystem");
				return -1;
			}
			bit = HAVE_UUID;
		} else {
			static const struct {
				const char	*key;
				unsigned int	bit;
				uint64_t	max;
			} keys[] = {
				{ "version",	HAVE_VERSION,	STATE_VERSION },
				{ "tid",	HAVE_TID,	UINT32_MAX },
				{ "tid_time",	HAVE_TID_TIME,	UINT64_MAX },
				{ "sequence",	HAVE_SEQUENCE,	UINT32_MAX },
				{ "head",	HAVE_HEAD,	UINT32_MAX },
				{ "run_time",	HAVE_RUN_TIME,	UINT64_MAX },
				{ "unanswered",	HAVE_UNANSWERED, UINT32_MAX },
			};
			size_t k;

			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (!strcmp(line, keys[k].key))
					break;
			if (k == sizeof(keys) / sizeof(keys[0])) {
				/* Not echoed: it may be any bytes. */
				why(st, "%s", "a key it does not know");
				return -1;
			}
			if (parse_num(eq, keys[k].max, &v) ||
			    (keys[k].bit == HAVE_VERSION &&
			     v != STATE_VERSION)) {
				why(st, "a bad value for '%s'", keys[k].key);
				return -1;
			}
			bit = keys[k].bit;
			switch (bit) {
			case HAVE_TID:
				prev->tid = (__u32)v;
				break;
			case HAVE_TID_TIME:
				prev->tid_time = v;
				break;
			case HAVE_SEQUENCE:
				prev->sequence = (__u32)v;
				break;
			case HAVE_HEAD:
				prev->head = (__u32)v;
				break;
			case HAVE_RUN_TIME:
				prev->run_time = v;
				break;
			case HAVE_UNANSWERED:
				prev->unanswered = (__u32)v;
				break;
			}
		}
		if (have & bit) {
			why(st, "%s", "a key twice");
			return -1;
		}
		have |= bit;
	}
	if ((have & HAVE_ALL) != HAVE_ALL) {
		why(st, "%s", "a key is missing");
		return -1;
	}
	return 0;
}

/*
 * Read what the previous run saw of filesystem @uuid from @dir.  Sets
 * st->read: STATE_READ with @prev filled, STATE_NONE when there is no
 * file (nor directory), STATE_BAD when there is one that cannot be used
 * (st->why says why): both mean "no previous run".
 */
void state_read(const char *dir, const char *uuid,
		struct e2sr_cover_prev *prev, struct cmd_state *st)
{
	char buf[STATE_MAX + 1];
	struct stat sb;
	ssize_t n;
	size_t len = 0;
	int dfd, fd = -1;

	memset(prev, 0, sizeof(*prev));
	st->read = STATE_BAD;
	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid)) {
		why(st, "%s", "the filesystem UUID is not a UUID");
		return;
	}
	dfd = open_dir(dir, 0, st);
	if (dfd < 0) {
		if (errno == ENOENT)
			st->read = STATE_NONE;
		return;
	}
	fd = openat(dfd, strrchr(st->path, '/') + 1,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0) {
		if (errno == ENOENT)
			st->read = STATE_NONE;
		else if (errno == ELOOP)
			why(st, "%s", "it is a symbolic link");
		else
			why(st, "%s", strerror(errno));
		return;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !safe_owner(&sb) ||
	    sb.st_size > STATE_MAX) {
		why(st, "%s", "not a small regular file of ours alone");
		goto out;
	}
	while (len < STATE_MAX) {
		n = read(fd, buf + len, STATE_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			why(st, "%s", strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	if (strlen(buf) != len) {
		why(st, "%s", "it is not text");
		goto out;
	}
	if (!parse(buf, uuid, prev, st))
		st->read = STATE_READ;
out:
	close(fd);
}

static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Replace the state of filesystem @uuid in @dir by @now: 0, or -1 with
 * st->why filled.  The old file stays whole until the rename.
 */
int state_write(const char *dir, const char *uuid,
		const struct e2sr_cover_prev *now, struct cmd_state *st)
{
	char text[512], tmp[80];
	const char *name;
	int dfd, fd, len, tries;

	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid)) {
		why(st, "%s", "the filesystem UUID is not a UUID");
		return -1;
	}
	name = strrchr(st->path, '/') + 1;
	len = snprintf(text, sizeof(text),
		       "# e2secrm: what the last successful run saw of this "
		       "filesystem's journal\n"
		       "version=%d\nuuid=%s\ntid=%u\ntid_time=%" PRIu64
		       "\nsequence=%u\nhead=%u\nrun_time=%" PRIu64
		       "\nunanswered=%u\n",
		       STATE_VERSION, uuid, now->tid,
		       (uint64_t)now->tid_time, now->sequence, now->head,
		       (uint64_t)now->run_time, now->unanswered);
	if (len < 0 || (size_t)len >= sizeof(text)) {
		why(st, "%s", "state too long");
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", name, (long)getpid());
	dfd = open_dir(dir, 1, st);
	if (dfd < 0)
		return -1;
	for (tries = 0; tries < 2; tries++) {
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
		/* Left by a run that died here: ours to remove. */
		unlinkat(dfd, tmp, 0);
	}
	if (fd < 0) {
		why(st, "%s", strerror(errno));
		close(dfd);
		return -1;
	}
	if (write_all(fd, text, (size_t)len) || fsync(fd)) {
		why(st, "%s", strerror(errno));
		close(fd);
		goto fail;
	}
	if (close(fd)) {
		why(st, "%s", strerror(errno));
		goto fail;
	}
	/* rename() replaces a symbolic link there; it never follows it. */
	if (renameat(dfd, tmp, dfd, name)) {
		why(st, "%s", strerror(errno));
		goto fail;
	}
	if (fsync(dfd)) {
		why(st, "%s", strerror(errno));
		close(dfd);
		return -1;
	}
	close(dfd);
	st->written = 1;
	return 0;
fail:
	unlinkat(dfd, tmp, 0);
	close(dfd);
	return -1;
}
