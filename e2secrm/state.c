/*
 * state.c --- the state files: what the last successful run saw of a
 * filesystem's journal, and the lives a run that has not ended yet is
 * wiping, one small file each per filesystem UUID.
 *
 * Owns reading and writing <dir>/<uuid>.state: a text file of key=value
 * lines after a version line, which coverage.c's decision reads back as
 * "the previous run" (tid, commit time, s_sequence and s_head it left,
 * run time); and <dir>/<uuid>.intent: the lives (inode number,
 * generation, lost map bits; lib/find/intent.c) a run saves before its first
 * write and removes when it ends, so that a run after a cut wipes what
 * the cut one had proved.  Neither the directory nor a file is ever
 * reached through a symbolic link, all must be the caller's and not
 * writable by others, and a file is replaced atomically (a temporary
 * file in the same directory, fsync, rename, fsync of the directory).
 * Nothing here prints: the outcome and what was wrong go back in struct
 * cmd_state.
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
#define INTENT_VERSION	1
#define INTENT_MAX	(64 << 20) /* two million lives, at most */

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
	snprintf(st->intent_path, sizeof(st->intent_path), "%s/%s.intent",
		 dir, uuid);
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
 * The text of file @path (at most @max bytes), into *@text (the caller
 * frees it with ext2fs_free_mem()).  STATE_READ, STATE_NONE when neither it nor the directory
 * is there, STATE_BAD (st->why says why).
 */
static enum state_result read_text(const char *dir, const char *path,
				   size_t max, char **text,
				   struct cmd_state *st)
{
	enum state_result r = STATE_BAD;
	struct stat sb;
	char *buf = NULL;
	ssize_t n;
	size_t len = 0;
	int dfd, fd = -1;

	*text = NULL;
	dfd = open_dir(dir, 0, st);
	if (dfd < 0)
		return errno == ENOENT ? STATE_NONE : STATE_BAD;
	fd = openat(dfd, strrchr(path, '/') + 1,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0) {
		if (errno == ENOENT)
			return STATE_NONE;
		if (errno == ELOOP)
			why(st, "%s", "it is a symbolic link");
		else
			why(st, "%s", strerror(errno));
		return STATE_BAD;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !safe_owner(&sb) ||
	    (uint64_t)sb.st_size > max) {
		why(st, "%s", "not a small regular file of ours alone");
		goto out;
	}
	if (ext2fs_get_mem((size_t)sb.st_size + 1, &buf)) {
		why(st, "%s", strerror(ENOMEM));
		goto out;
	}
	/* It may have grown since: never past what was allocated. */
	while (len < (size_t)sb.st_size) {
		n = read(fd, buf + len, (size_t)sb.st_size - len);
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
	*text = buf;
	buf = NULL;
	r = STATE_READ;
out:
	ext2fs_free_mem(&buf);
	close(fd);
	return r;
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
	char *text;

	memset(prev, 0, sizeof(*prev));
	st->read = STATE_BAD;
	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid)) {
		why(st, "%s", "the filesystem UUID is not a UUID");
		return;
	}
	st->read = read_text(dir, st->path, STATE_MAX, &text, st);
	if (st->read != STATE_READ)
		return;
	if (parse(text, uuid, prev, st))
		st->read = STATE_BAD;
	ext2fs_free_mem(&text);
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
 * Replace file @path in @dir by @len bytes of @text: 0, or -1 with
 * st->why filled.  The old file stays whole until the rename.
 */
static int replace_text(const char *dir, const char *path, const char *text,
			size_t len, struct cmd_state *st)
{
	const char *name = strrchr(path, '/') + 1;
	char tmp[80];
	int dfd, fd, tries;

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
	if (write_all(fd, text, len) || fsync(fd)) {
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
	return 0;
fail:
	unlinkat(dfd, tmp, 0);
	close(dfd);
	return -1;
}

/*
 * Replace the state of filesystem @uuid in @dir by @now: 0, or -1 with
 * st->why filled.
 */
int state_write(const char *dir, const char *uuid,
		const struct e2sr_cover_prev *now, struct cmd_state *st)
{
	char text[512];
	int len;

	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid)) {
		why(st, "%s", "the filesystem UUID is not a UUID");
		return -1;
	}
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
	if (replace_text(dir, st->path, text, (size_t)len, st))
		return -1;
	st->written = 1;
	return 0;
}

/* "life=INO GEN LOST": three numbers, one space apart, nothing else. */
static int parse_life(char *v, struct e2sr_life *l)
{
	char *f[3], *sp;
	uint64_t n[3];
	int i;

	for (i = 0; i < 3; i++) {
		f[i] = v;
		sp = strchr(v, ' ');
		if ((i < 2) != (sp != NULL))
			return -1;
		if (sp) {
			*sp = 0;
			v = sp + 1;
		}
		if (parse_num(f[i], UINT32_MAX, &n[i]))
			return -1;
	}
	if (!n[0])
		return -1;
	l->ino = (ext2_ino_t)n[0];
	l->generation = (__u32)n[1];
	l->lost = (__u32)n[2];
	return 0;
}

/*
 * The lives a run cut before its end saved for filesystem @uuid, into
 * *@lives (the caller frees it with ext2fs_free_mem()).  Sets st->intent as state_read() sets
 * st->read; a file that cannot be used is no intent, and st->why says
 * why.
 */
void intent_read(const char *dir, const char *uuid, struct e2sr_life **lives,
		 size_t *count, struct cmd_state *st)
{
	struct e2sr_life *l = NULL;
	char *text, *line, *next, *eq;
	size_t n = 0, alloc = 0;
	int have_version = 0, have_uuid = 0;
	uint64_t v;

	*lives = NULL;
	*count = 0;
	st->why[0] = 0;
	set_path(st, dir, uuid);
	st->intent = STATE_BAD;
	if (!uuid_ok(uuid)) {
		why(st, "%s", "the filesystem UUID is not a UUID");
		return;
	}
	st->intent = read_text(dir, st->intent_path, INTENT_MAX, &text, st);
	if (st->intent != STATE_READ)
		return;
	st->intent = STATE_BAD;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			why(st, "%s", "a line without '='");
			goto out;
		}
		*eq++ = 0;
		if (!strcmp(line, "version") && !have_version &&
		    !parse_num(eq, INTENT_VERSION, &v) && v == INTENT_VERSION) {
			have_version = 1;
		} else if (!strcmp(line, "uuid") && !have_uuid) {
			if (strcmp(eq, uuid)) {
				why(st, "%s", "it names another filesystem");
				goto out;
			}
			have_uuid = 1;
		} else if (!strcmp(line, "life")) {
			if (n == alloc) {
				size_t more = alloc ? alloc * 2 : 64;

				if (ext2fs_resize_mem(alloc * sizeof(*l),
						      more * sizeof(*l), &l)) {
					why(st, "%s", strerror(ENOMEM));
					goto out;
				}
				alloc = more;
			}
			if (parse_life(eq, &l[n])) {
				why(st, "%s", "a bad life line");
				goto out;
			}
			n++;
		} else {
			/* Not echoed: it may be any bytes. */
			why(st, "%s", "a key it does not know, or twice");
			goto out;
		}
	}
	if (!have_version || !have_uuid) {
		why(st, "%s", "a key is missing");
		goto out;
	}
	*lives = l;
	*count = n;
	l = NULL;
	st->intent = STATE_READ;
out:
	ext2fs_free_mem(&l);
	ext2fs_free_mem(&text);
}

/*
 * Save @count @lives as the intent of a run on filesystem @uuid, synced
 * before it returns: 0, or -1 with st->why filled.
 */
int intent_write(const char *dir, const char *uuid,
		 const struct e2sr_life *lives, size_t count,
		 struct cmd_state *st)
{
	char *text, *p;
	size_t i, size;
	int r;

	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid)) {
		why(st, "%s", "the filesystem UUID is not a UUID");
		return -1;
	}
	/* "life=" and three 10-digit numbers, two spaces and a newline. */
	size = 256 + count * 38;
	if (size > INTENT_MAX) {
		why(st, "%s", "too many lives");
		return -1;
	}
	if (ext2fs_get_mem(size, &text)) {
		why(st, "%s", strerror(ENOMEM));
		return -1;
	}
	p = text + snprintf(text, 256, "# e2secrm: the lives a run that has "
			    "not ended yet wipes (inode generation lost)\n"
			    "version=%d\nuuid=%s\n", INTENT_VERSION, uuid);
	for (i = 0; i < count; i++)
		p += sprintf(p, "life=%u %u %u\n", (unsigned)lives[i].ino,
			     (unsigned)lives[i].generation,
			     (unsigned)lives[i].lost);
	r = replace_text(dir, st->intent_path, text, (size_t)(p - text), st);
	ext2fs_free_mem(&text);
	if (!r)
		st->intent_written = 1;
	return r;
}

/* The run has ended: nothing of its intent is needed any more. */
int intent_clear(const char *dir, const char *uuid, struct cmd_state *st)
{
	int dfd, r = 0;

	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid))
		return 0;
	dfd = open_dir(dir, 0, st);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -1;
	if (unlinkat(dfd, strrchr(st->intent_path, '/') + 1, 0)) {
		if (errno != ENOENT) {
			why(st, "%s", strerror(errno));
			r = -1;
		}
	} else if (fsync(dfd)) {
		why(st, "%s", strerror(errno));
		r = -1;
	}
	close(dfd);
	return r;
}
