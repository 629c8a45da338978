/*
 * state_since.c --- the state file's companion: what a run keeps so that
 * the next one can read only what changed (lib/find/since.c).
 *
 * Owns <dir>/<uuid>.since, a binary file: a header (magic, byte order,
 * version, the UUID), the filesystem as the run left it (struct
 * e2sr_sb_print), a record per group (struct e2sr_group_print), the
 * records that carry the flag, the directories with residue and the
 * maps of the live files among those records, the records themselves as
 * the disk held them (version 3: a version 2 file has none), then a
 * crc32c of everything before it.  The text state names that crc (its
 * "since" key), so that a state and a companion of two different runs are
 * never taken together.  The file is machine-local, in host byte order;
 * another order is damage.  It is written and read as state.c writes and
 * reads the text files: never through a link, ours alone, replaced
 * atomically.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

#define SINCE_MAGIC	"E2SRINC1"
#define SINCE_ORDER	0x01020304U
#define SINCE_VERSION	3	/* 1: no kept maps; 2: no records */
#define SINCE_MAX	((size_t)1 << 30)

struct since_head {
	char		magic[8];
	__u32		order;
	__u32		version;
	char		uuid[40];
	__u64		full_time;
	__u32		full_tid;
	__u32		questions;
	__u32		linked_free;
	__u32		left;
	struct e2sr_sb_print sb;
	__u64		groups;
	__u64		secure;
	__u64		dirs;
	__u64		kept;
	__u64		kept_ext;
};

/* Version 3: after the maps, the records of secure[] (rec_size each). */
struct since_recs {
	__u64		count;		/* 0, or the head's secure */
	__u32		size;
	__u32		pad;
};

/* A record is at most an inode table block (s_inode_size's limit). */
#define SINCE_REC_MAX	65536

static void since_path(char *path, size_t len, const char *dir,
		       const char *uuid)
{
	snprintf(path, len, "%s/%s.since", dir, uuid);
}

/* Where the records' part begins, or the crc of a version 2 file. */
static size_t since_maps_end(const struct since_head *h)
{
	return sizeof(*h) + h->groups * sizeof(struct e2sr_group_print) +
	       h->secure * sizeof(struct e2sr_secure) +
	       h->dirs * sizeof(ext2_ino_t) +
	       h->kept * sizeof(struct e2sr_kept) +
	       h->kept_ext * sizeof(struct e2sr_extent);
}

static size_t since_size(const struct since_head *h,
			 const struct since_recs *r)
{
	size_t len = since_maps_end(h) + sizeof(__u32);

	if (h->version > 2)
		len += sizeof(*r) + r->count * r->size;
	return len;
}

/*
 * Write @s for filesystem @uuid in @dir; *@crc gets the crc the text
 * state names.  0, or -1 with st->why filled.
 */
int since_write(const char *dir, const char *uuid,
		const struct e2sr_since_state *s, __u32 *crc,
		struct cmd_state *st)
{
	struct since_head h;
	struct since_recs r;
	char path[PATH_MAX + 48];
	unsigned char *buf, *p;
	size_t len;
	int ret;

	memset(&h, 0, sizeof(h));
	memset(&r, 0, sizeof(r));
	if (s->recs && s->rec_size) {
		r.count = s->secure_count;
		r.size = s->rec_size;
	}
	memcpy(h.magic, SINCE_MAGIC, sizeof(h.magic));
	h.order = SINCE_ORDER;
	h.version = SINCE_VERSION;
	snprintf(h.uuid, sizeof(h.uuid), "%s", uuid);
	h.full_time = s->full_time;
	h.full_tid = s->full_tid;
	h.questions = s->questions;
	h.linked_free = s->linked_free;
	h.left = s->left;
	h.sb = s->sb;
	h.groups = s->sb.groups;
	h.secure = s->secure_count;
	h.dirs = s->dir_count;
	h.kept = s->kept_count;
	h.kept_ext = s->kept_ext_count;
	len = since_size(&h, &r);
	if (ext2fs_get_mem(len, &buf)) {
		snprintf(st->why, sizeof(st->why), "out of memory");
		return -1;
	}
	p = buf;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, s->groups, h.groups * sizeof(*s->groups));
	p += h.groups * sizeof(*s->groups);
	if (h.secure)
		memcpy(p, s->secure, h.secure * sizeof(*s->secure));
	p += h.secure * sizeof(*s->secure);
	if (h.dirs)
		memcpy(p, s->dirs, h.dirs * sizeof(*s->dirs));
	p += h.dirs * sizeof(*s->dirs);
	if (h.kept)
		memcpy(p, s->kept, h.kept * sizeof(*s->kept));
	p += h.kept * sizeof(*s->kept);
	if (h.kept_ext)
		memcpy(p, s->kept_ext, h.kept_ext * sizeof(*s->kept_ext));
	p += h.kept_ext * sizeof(*s->kept_ext);
	memcpy(p, &r, sizeof(r));
	p += sizeof(r);
	if (r.count)
		memcpy(p, s->recs, r.count * r.size);
	p += r.count * r.size;
	*crc = ext2fs_crc32c_le(~0U, buf, (size_t)(p - buf));
	memcpy(p, crc, sizeof(*crc));
	since_path(path, sizeof(path), dir, uuid);
	ret = state_replace(dir, path, (const char *)buf, len, st);
	ext2fs_free_mem(&buf);
	return ret;
}

/* What of @buf is a valid file of @uuid's, its crc @crc: 0, or -1. */
static int since_parse(const unsigned char *buf, size_t len,
		       const char *uuid, __u32 crc,
		       struct e2sr_since_state *s, struct cmd_state *st)
{
	struct since_head h;
	struct since_recs r;
	const unsigned char *p;
	__u32 got;

	if (len < sizeof(h) + sizeof(got)) {
		snprintf(st->why, sizeof(st->why), "its since file is short");
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	memset(&r, 0, sizeof(r));
	/* Version 2, without the records, is taken as it is. */
	if (!memcmp(h.magic, SINCE_MAGIC, sizeof(h.magic)) &&
	    h.order == SINCE_ORDER && h.version == SINCE_VERSION &&
	    h.groups <= SINCE_MAX && h.secure <= SINCE_MAX &&
	    h.dirs <= SINCE_MAX && h.kept <= SINCE_MAX &&
	    h.kept_ext <= SINCE_MAX &&
	    since_maps_end(&h) + sizeof(r) + sizeof(got) <= len)
		memcpy(&r, buf + since_maps_end(&h), sizeof(r));
	if (memcmp(h.magic, SINCE_MAGIC, sizeof(h.magic)) ||
	    h.order != SINCE_ORDER || h.version < 2 ||
	    h.version > SINCE_VERSION ||
	    h.groups > SINCE_MAX || h.secure > SINCE_MAX ||
	    h.dirs > SINCE_MAX || h.kept > SINCE_MAX ||
	    h.kept_ext > SINCE_MAX || h.groups != h.sb.groups ||
	    (r.count && (r.count != h.secure || !r.size ||
			 r.size > SINCE_REC_MAX)) ||
	    since_size(&h, &r) != len) {
		snprintf(st->why, sizeof(st->why),
			 "its since file is not one e2secrm wrote");
		return -1;
	}
	memcpy(&got, buf + len - sizeof(got), sizeof(got));
	if (got != ext2fs_crc32c_le(~0U, buf, len - sizeof(got)) ||
	    got != crc) {
		snprintf(st->why, sizeof(st->why),
			 "its since file is damaged or of another run");
		return -1;
	}
	if (strncmp(h.uuid, uuid, sizeof(h.uuid))) {
		snprintf(st->why, sizeof(st->why),
			 "its since file names another filesystem");
		return -1;
	}
	s->full_time = h.full_time;
	s->full_tid = h.full_tid;
	s->questions = h.questions;
	s->linked_free = h.linked_free;
	s->left = h.left;
	s->sb = h.sb;
	p = buf + sizeof(h);
	if (ext2fs_get_array(h.groups, sizeof(*s->groups), &s->groups) ||
	    (h.secure && ext2fs_get_array(h.secure, sizeof(*s->secure),
					  &s->secure)) ||
	    (h.dirs && ext2fs_get_array(h.dirs, sizeof(*s->dirs),
					&s->dirs)) ||
	    (h.kept && ext2fs_get_array(h.kept, sizeof(*s->kept),
					&s->kept)) ||
	    (h.kept_ext && ext2fs_get_array(h.kept_ext,
					    sizeof(*s->kept_ext),
					    &s->kept_ext)) ||
	    (r.count && ext2fs_get_array(r.count, r.size, &s->recs))) {
		snprintf(st->why, sizeof(st->why), "out of memory");
		return -1;
	}
	memcpy(s->groups, p, h.groups * sizeof(*s->groups));
	p += h.groups * sizeof(*s->groups);
	if (h.secure)
		memcpy(s->secure, p, h.secure * sizeof(*s->secure));
	p += h.secure * sizeof(*s->secure);
	if (h.dirs)
		memcpy(s->dirs, p, h.dirs * sizeof(*s->dirs));
	p += h.dirs * sizeof(*s->dirs);
	if (h.kept)
		memcpy(s->kept, p, h.kept * sizeof(*s->kept));
	p += h.kept * sizeof(*s->kept);
	if (h.kept_ext)
		memcpy(s->kept_ext, p, h.kept_ext * sizeof(*s->kept_ext));
	p += h.kept_ext * sizeof(*s->kept_ext);
	if (r.count) {
		memcpy(s->recs, p + sizeof(r), r.count * r.size);
		s->rec_size = r.size;
	}
	s->kept_count = h.kept;
	s->kept_ext_count = h.kept_ext;
	s->secure_count = h.secure;
	s->dir_count = h.dirs;
	return 0;
}

/*
 * The companion of the state just read, its crc @crc: 0 with @s filled,
 * or -1 with st->why saying what is wrong (a missing file included).
 */
int since_read(const char *dir, const char *uuid, __u32 crc,
	       struct e2sr_since_state *s, struct cmd_state *st)
{
	char path[PATH_MAX + 48];
	unsigned char *buf;
	size_t len;
	int ret;

	memset(s, 0, sizeof(*s));
	since_path(path, sizeof(path), dir, uuid);
	switch (state_read_file(dir, path, SINCE_MAX, &buf, &len, st)) {
	case STATE_READ:
		break;
	case STATE_NONE:
		snprintf(st->why, sizeof(st->why), "its since file is missing");
		return -1;
	default:
		return -1;
	}
	ret = since_parse(buf, len, uuid, crc, s, st);
	ext2fs_free_mem(&buf);
	if (ret)
		e2sr_since_state_free(s);
	return ret;
}
