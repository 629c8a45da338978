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
#define INTENT_VERSION	2	/* 1: no mark */
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
	uint64_t v = 0, d;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		d = (uint64_t)(*s - '0');
		/* v * 10 + d <= max, without wrapping (max may be below 9). */
		if (v > max / 10 || v * 10 > max - d || d > max)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* What a line of a state or an intent file may say. */
struct key {
	const char	*name;
	int		fields;		/* numbers, one space apart; 0: UUID */
	uint64_t	min, max;	/* of each number */
	int		repeats;	/* may come on any number of lines */
};

#define FIELDS_MAX	3

/*
 * The numbers of @s, @fields of them one space apart and nothing else,
 * each in [@min, @max].
 */
static int parse_fields(char *s, int fields, uint64_t min, uint64_t max,
			uint64_t *out)
{
	char *sp;
	int i;

	for (i = 0; i < fields; i++) {
		sp = strchr(s, ' ');
		if ((i < fields - 1) != (sp != NULL))
			return -1;
		if (sp)
			*sp = 0;
		if (parse_num(s, max, &out[i]) || out[i] < min)
			return -1;
		if (sp)
			s = sp + 1;
	}
	return 0;
}

/*
 * The one parser of both files: every line of @text "key=value" (blank
 * and '#' lines skipped), every key one of the @n @keys, every number in
 * its range, a key that does not repeat on one line only, and the UUID
 * @uuid's.  Key i's numbers go to vals[i], or, for a key that repeats,
 * to @each with @arg as its line comes; *@have gets bit i of every key
 * met.  0, or -1 with st->why filled.
 */
static int parse_lines(char *text, const char *uuid, const struct key *keys,
		       size_t n, uint64_t (*vals)[FIELDS_MAX],
		       unsigned int *have,
		       int (*each)(void *arg, const uint64_t *v,
				   struct cmd_state *st),
		       void *arg, struct cmd_state *st)
{
	char *line, *next, *eq;
	uint64_t v[FIELDS_MAX];
	size_t k;

	*have = 0;
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
		for (k = 0; k < n; k++)
			if (!strcmp(line, keys[k].name))
				break;
		if (k == n) {
			/* Not echoed: it may be any bytes. */
			why(st, "%s", "a key it does not know");
			return -1;
		}
		if ((*have & 1u << k) && !keys[k].repeats) {
			why(st, "%s", "a key twice");
			return -1;
		}
		*have |= 1u << k;
		if (!keys[k].fields) {
			if (strcmp(eq, uuid)) {
				why(st, "%s", "it names another filesystem");
				return -1;
			}
			continue;
		}
		if (parse_fields(eq, keys[k].fields, keys[k].min,
				 keys[k].max, v)) {
			why(st, "a bad value for '%s'", keys[k].name);
			return -1;
		}
		if (keys[k].repeats) {
			if (each(arg, v, st))
				return -1;
		} else {
			memcpy(vals[k], v, sizeof(v));
		}
	}
	return 0;
}

/* The state file's keys, in the order of enum state_key. */
enum state_key {
	SK_VERSION, SK_UUID, SK_TID, SK_TID_TIME, SK_SEQUENCE, SK_HEAD,
	SK_RUN_TIME,
	SK_UNANSWERED,	/* optional: 0 when not there */
	SK_SINCE,	/* optional: the crc of the .since file */
	SK_TID_NSEC,	/* optional: tid_time's nanoseconds */
	SK_COUNT
};

static const struct key state_keys[SK_COUNT] = {
	{ "version",	1, STATE_VERSION, STATE_VERSION, 0 },
	{ "uuid",	0, 0, 0, 0 },
	{ "tid",	1, 0, UINT32_MAX, 0 },
	/*
	 * Any value: a commit block debugfs wrote holds a time of 7.7e18
	 * seconds, and the coverage compares without overflow.
	 */
	{ "tid_time",	1, 0, UINT64_MAX, 0 },
	{ "sequence",	1, 0, UINT32_MAX, 0 },
	{ "head",	1, 0, UINT32_MAX, 0 },
	{ "run_time",	1, 0, UINT64_MAX, 0 },
	{ "unanswered",	1, 0, UINT32_MAX, 0 },
	{ "since",	1, 0, UINT32_MAX, 0 },
	{ "tid_nsec",	1, 0, 999999999, 0 },
};

/* Every line known, every number in range, every key once. */
static int parse(char *text, const char *uuid, struct e2sr_cover_prev *prev,
		 struct cmd_state *st)
{
	uint64_t v[SK_COUNT][FIELDS_MAX];
	unsigned int have, need = (1u << SK_UNANSWERED) - 1;

	memset(v, 0, sizeof(v));
	if (parse_lines(text, uuid, state_keys, SK_COUNT, v, &have, NULL,
			NULL, st))
		return -1;
	if ((have & need) != need) {
		why(st, "%s", "a key is missing");
		return -1;
	}
	prev->tid = (__u32)v[SK_TID][0];
	prev->tid_time = v[SK_TID_TIME][0];
	prev->tid_nsec = (__u32)v[SK_TID_NSEC][0];
	prev->have_nsec = !!(have & 1u << SK_TID_NSEC);
	prev->sequence = (__u32)v[SK_SEQUENCE][0];
	prev->head = (__u32)v[SK_HEAD][0];
	prev->run_time = v[SK_RUN_TIME][0];
	prev->unanswered = (__u32)v[SK_UNANSWERED][0];
	st->have_since = !!(have & 1u << SK_SINCE);
	st->since_crc = (__u32)v[SK_SINCE][0];
	return 0;
}

/*
 * The text of file @path (at most @max bytes), into *@text (the caller
 * frees it with ext2fs_free_mem()).  STATE_READ, STATE_NONE when
 * neither it nor the directory is there, STATE_BAD (st->why says why).
 */
enum state_result state_read_file(const char *dir, const char *path,
				  size_t max, unsigned char **data,
				  size_t *size, struct cmd_state *st)
{
	enum state_result r = STATE_BAD;
	struct stat sb;
	char *buf = NULL;
	ssize_t n;
	size_t len = 0;
	int dfd, fd = -1;

	*data = NULL;
	*size = 0;
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
	*data = (unsigned char *)buf;
	*size = len;
	buf = NULL;
	r = STATE_READ;
out:
	ext2fs_free_mem(&buf);
	close(fd);
	return r;
}

/* The same, of a text file: no NUL in it. */
static enum state_result read_text(const char *dir, const char *path,
				   size_t max, char **text,
				   struct cmd_state *st)
{
	unsigned char *data;
	size_t len;
	enum state_result r;

	*text = NULL;
	r = state_read_file(dir, path, max, &data, &len, st);
	if (r != STATE_READ)
		return r;
	if (strlen((char *)data) != len) {
		why(st, "%s", "it is not text");
		ext2fs_free_mem(&data);
		return STATE_BAD;
	}
	*text = (char *)data;
	return STATE_READ;
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
int state_replace(const char *dir, const char *path, const char *text,
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
		const struct e2sr_cover_prev *now, const __u32 *since_crc,
		struct cmd_state *st)
{
	char text[512];
	int len, more;

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
	if (len >= 0 && (size_t)len < sizeof(text) && now->have_nsec) {
		more = snprintf(text + len, sizeof(text) - (size_t)len,
				"tid_nsec=%u\n", now->tid_nsec);
		len = more < 0 ? more : len + more;
	}
	if (len >= 0 && (size_t)len < sizeof(text) && since_crc) {
		more = snprintf(text + len, sizeof(text) - (size_t)len,
				"since=%u\n", *since_crc);
		len = more < 0 ? more : len + more;
	}
	if (len < 0 || (size_t)len >= sizeof(text)) {
		why(st, "%s", "state too long");
		return -1;
	}
	if (state_replace(dir, st->path, text, (size_t)len, st))
		return -1;
	st->written = 1;
	return 0;
}

/*
 * The intent file's keys.  Version 1 had no mark: its lives are taken,
 * what it says of their maps is not (lib/find/intent.c).
 */
enum intent_key { IK_VERSION, IK_UUID, IK_MARK, IK_LIFE, IK_COUNT };

static const struct key intent_keys[IK_COUNT] = {
	{ "version",	1, 1, INTENT_VERSION, 0 },
	{ "uuid",	0, 0, 0, 0 },
	/* "mark=MNT_COUNT MTIME LASTCHECK": struct e2sr_fs_mark */
	{ "mark",	3, 0, UINT64_MAX, 0 },
	/* "life=INO GEN LOST", on as many lines as there are lives */
	{ "life",	3, 0, UINT32_MAX, 1 },
};

struct lives {
	struct e2sr_life	*l;
	size_t			n, alloc;
};

static int add_life(void *arg, const uint64_t *v, struct cmd_state *st)
{
	struct lives *ls = arg;

	if (!v[0]) {
		why(st, "%s", "a bad life line");
		return -1;
	}
	if (ls->n == ls->alloc) {
		size_t more = ls->alloc ? ls->alloc * 2 : 64;

		if (ext2fs_resize_mem(ls->alloc * sizeof(*ls->l),
				      more * sizeof(*ls->l), &ls->l)) {
			why(st, "%s", strerror(ENOMEM));
			return -1;
		}
		ls->alloc = more;
	}
	ls->l[ls->n].ino = (ext2_ino_t)v[0];
	ls->l[ls->n].generation = (__u32)v[1];
	ls->l[ls->n++].lost = (__u32)v[2];
	return 0;
}

/*
 * The lives a run cut before its end saved for filesystem @uuid, into
 * *@lives (the caller frees it with ext2fs_free_mem()), and what that run
 * saw of the superblock into @mark (*@have_mark 0 when the file is older
 * than the mark).  Sets st->intent as state_read() sets st->read; a file
 * that cannot be used is no intent, and st->why says why.
 */
void intent_read(const char *dir, const char *uuid, struct e2sr_life **lives,
		 size_t *count, struct e2sr_fs_mark *mark, int *have_mark,
		 struct cmd_state *st)
{
	struct lives ls = { NULL, 0, 0 };
	uint64_t v[IK_COUNT][FIELDS_MAX];
	unsigned int have;
	char *text;

	*lives = NULL;
	*count = 0;
	*have_mark = 0;
	memset(mark, 0, sizeof(*mark));
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
	memset(v, 0, sizeof(v));
	if (parse_lines(text, uuid, intent_keys, IK_COUNT, v, &have,
			add_life, &ls, st))
		goto out;
	if (!(have & 1u << IK_VERSION) || !(have & 1u << IK_UUID) ||
	    (v[IK_VERSION][0] >= 2 && !(have & 1u << IK_MARK))) {
		why(st, "%s", "a key is missing");
		goto out;
	}
	if (have & 1u << IK_MARK) {
		if (v[IK_MARK][0] > UINT16_MAX) {
			why(st, "a bad value for '%s'", "mark");
			goto out;
		}
		mark->mnt_count = (__u32)v[IK_MARK][0];
		mark->mtime = v[IK_MARK][1];
		mark->lastcheck = v[IK_MARK][2];
		*have_mark = 1;
	}
	*lives = ls.l;
	*count = ls.n;
	ls.l = NULL;
	st->intent = STATE_READ;
out:
	ext2fs_free_mem(&ls.l);
	ext2fs_free_mem(&text);
}

/*
 * Save @count @lives as the intent of a run on filesystem @uuid, with
 * what it sees of the superblock (@mark), synced before it returns: 0,
 * or -1 with st->why filled.
 */
int intent_write(const char *dir, const char *uuid,
		 const struct e2sr_life *lives, size_t count,
		 const struct e2sr_fs_mark *mark, struct cmd_state *st)
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
	size = 384 + count * 38;
	if (size > INTENT_MAX) {
		why(st, "%s", "too many lives");
		return -1;
	}
	if (ext2fs_get_mem(size, &text)) {
		why(st, "%s", strerror(ENOMEM));
		return -1;
	}
	p = text + snprintf(text, 384, "# e2secrm: the lives a run that has "
			    "not ended yet wipes (inode generation lost)\n"
			    "version=%d\nuuid=%s\n"
			    "# mount count, mount time, last check\n"
			    "mark=%u %" PRIu64 " %" PRIu64 "\n",
			    INTENT_VERSION, uuid, (unsigned)mark->mnt_count,
			    (uint64_t)mark->mtime,
			    (uint64_t)mark->lastcheck);
	for (i = 0; i < count; i++)
		p += sprintf(p, "life=%u %u %u\n", (unsigned)lives[i].ino,
			     (unsigned)lives[i].generation,
			     (unsigned)lives[i].lost);
	r = state_replace(dir, st->intent_path, text, (size_t)(p - text), st);
	ext2fs_free_mem(&text);
	if (!r)
		st->intent_written = 1;
	return r;
}

/* The run has ended: nothing of its intent is needed any more. */
/* Remove @path of @dir if it is there: 0, or -1 with st->why. */
int state_remove(const char *dir, const char *path, struct cmd_state *st)
{
	int dfd, r = 0;

	dfd = open_dir(dir, 0, st);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -1;
	if (unlinkat(dfd, strrchr(path, '/') + 1, 0)) {
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

int intent_clear(const char *dir, const char *uuid, struct cmd_state *st)
{
	st->why[0] = 0;
	set_path(st, dir, uuid);
	if (!uuid_ok(uuid))
		return 0;
	return state_remove(dir, st->intent_path, st);
}
