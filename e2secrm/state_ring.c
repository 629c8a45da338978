/*
 * state_ring.c --- the ring's facts beside the state: what the next run
 * takes of the log instead of reading it (lib/journal/ring_facts.h).
 *
 * Owns <dir>/<uuid>.ring, a binary file: a header (magic, the crc of the
 * .since file written with it, so that facts and state of two different
 * runs are never taken together) and the facts as lib/ encodes them,
 * with their own crc32c.  Machine-local, host byte order; read and
 * written as state.c reads and writes the other files (never through a
 * link, ours alone, replaced atomically).  A run that keeps no facts
 * removes the file.  What the facts mean is lib/'s (ring_since.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

#define RING_MAGIC	"E2SRRNGK"
#define RING_MAX	((size_t)1 << 31)

struct ring_head {
	char		magic[8];
	__u32		since_crc;
	__u32		pad;
};

static void ring_path(char *path, size_t len, const char *dir,
		      const char *uuid)
{
	snprintf(path, len, "%s/%s.ring", dir, uuid);
}

/*
 * Keep @f (NULL: none) for filesystem @uuid beside the .since file whose
 * crc is @since_crc: 0, or -1 with st->why filled.
 */
int ring_write(const char *dir, const char *uuid, __u32 since_crc,
	       const struct e2sr_ring_facts *f, struct cmd_state *st)
{
	char path[PATH_MAX + 48];
	struct ring_head h;
	unsigned char *buf = NULL;
	void *enc = NULL;
	size_t len = 0;
	int ret;

	ring_path(path, sizeof(path), dir, uuid);
	if (!f)
		return state_remove(dir, path, st);
	if (e2sr_rf_encode(f, &enc, &len) ||
	    ext2fs_get_mem(sizeof(h) + len, &buf)) {
		ext2fs_free_mem(&enc);
		snprintf(st->why, sizeof(st->why), "out of memory");
		return -1;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, RING_MAGIC, sizeof(h.magic));
	h.since_crc = since_crc;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), enc, len);
	ext2fs_free_mem(&enc);
	ret = state_replace(dir, path, (const char *)buf, sizeof(h) + len, st);
	ext2fs_free_mem(&buf);
	return ret;
}

/*
 * The facts kept with the .since file of crc @since_crc: 0 with @f
 * filled, 1 when there are none, or -1 with st->why saying why not.
 */
int ring_read(const char *dir, const char *uuid, __u32 since_crc,
	      struct e2sr_ring_facts *f, struct cmd_state *st)
{
	char path[PATH_MAX + 48];
	struct ring_head h;
	unsigned char *buf;
	size_t len;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	ring_path(path, sizeof(path), dir, uuid);
	switch (state_read_file(dir, path, RING_MAX, &buf, &len, st)) {
	case STATE_READ:
		break;
	case STATE_NONE:
		return 1;
	default:
		return -1;
	}
	if (len < sizeof(h)) {
		snprintf(st->why, sizeof(st->why), "its ring file is short");
		goto out;
	}
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, RING_MAGIC, sizeof(h.magic)) ||
	    h.since_crc != since_crc) {
		snprintf(st->why, sizeof(st->why),
			 "its ring file is of another run");
		goto out;
	}
	if (e2sr_rf_decode(buf + sizeof(h), len - sizeof(h), f)) {
		snprintf(st->why, sizeof(st->why),
			 "its ring file is damaged");
		goto out;
	}
	ret = 0;
out:
	ext2fs_free_mem(&buf);
	return ret;
}
