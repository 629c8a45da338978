/*
 * fast_commit.c --- walking the fast-commit area of a journal.
 *
 * Owns the parsing of fast-commit tags (written from the ext4 on-disk
 * format: struct ext4_fc_tl and the values of each tag) and the walk of
 * every block of the area.  A block is read tag by tag from its start;
 * an unknown tag, a zero tag or a length past the block ends that block,
 * as in the kernel's replay scan, so a corrupt area yields fewer records,
 * never a read out of bounds.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "fast_commit.h"

static const char *const tag_names[] = {
	[E2SR_FC_TAG_ADD_RANGE]	= "add_range",
	[E2SR_FC_TAG_DEL_RANGE]	= "del_range",
	[E2SR_FC_TAG_CREAT]	= "create",
	[E2SR_FC_TAG_LINK]	= "link",
	[E2SR_FC_TAG_UNLINK]	= "unlink",
	[E2SR_FC_TAG_INODE]	= "inode",
	[E2SR_FC_TAG_PAD]	= "pad",
	[E2SR_FC_TAG_TAIL]	= "tail",
	[E2SR_FC_TAG_HEAD]	= "head",
};

const char *e2sr_fc_tag_name(unsigned int tag)
{
	if (tag >= sizeof(tag_names) / sizeof(tag_names[0]) ||
	    !tag_names[tag])
		return "?";
	return tag_names[tag];
}

/* The least value length each tag needs. */
static unsigned int min_len(unsigned int tag)
{
	switch (tag) {
	case E2SR_FC_TAG_ADD_RANGE:
		return 4 + 12;		/* ino, struct ext4_extent */
	case E2SR_FC_TAG_DEL_RANGE:
		return 12;		/* ino, lblk, len */
	case E2SR_FC_TAG_CREAT:
	case E2SR_FC_TAG_LINK:
	case E2SR_FC_TAG_UNLINK:
		return 8;		/* parent, ino, then the name */
	case E2SR_FC_TAG_INODE:
		return 4;		/* ino, then the raw inode */
	case E2SR_FC_TAG_TAIL:
	case E2SR_FC_TAG_HEAD:
		return 8;
	case E2SR_FC_TAG_PAD:
		return 0;
	default:
		return 0;
	}
}

errcode_t e2sr_fc_parse_block(const void *block, unsigned int blocksize,
			      __u32 jblock, e2sr_fc_fn cb, void *priv)
{
	const unsigned char *b = block;
	struct e2sr_fc_rec r;
	unsigned int off = 0, tag, len;
	const unsigned char *v;
	errcode_t err;

	if (!b || !cb || blocksize > 65536)
		return EXT2_ET_INVALID_ARGUMENT;
	while (off + E2SR_FC_TL_SIZE <= blocksize) {
		tag = e2sr_get_le16(b + off);
		len = e2sr_get_le16(b + off + 2);
		if (!tag || tag > E2SR_FC_TAG_HEAD)
			break;
		if (len > blocksize - off - E2SR_FC_TL_SIZE ||
		    len < min_len(tag))
			break;
		v = b + off + E2SR_FC_TL_SIZE;
		memset(&r, 0, sizeof(r));
		r.jblock = jblock;
		r.offset = off;
		r.tag = tag;
		r.len = len;
		switch (tag) {
		case E2SR_FC_TAG_ADD_RANGE:
			r.ino = e2sr_get_le32(v);
			r.lblk = e2sr_get_le32(v + 4);
			r.count = e2sr_get_le16(v + 8);
			/* an unwritten extent's length is biased by 32768 */
			if (r.count > 32768) {
				r.count -= 32768;
				r.flags |= E2SR_FC_UNWRITTEN;
			}
			r.pblk = ((blk64_t)e2sr_get_le16(v + 10) << 32) | e2sr_get_le32(v + 12);
			break;
		case E2SR_FC_TAG_DEL_RANGE:
			r.ino = e2sr_get_le32(v);
			r.lblk = e2sr_get_le32(v + 4);
			r.count = e2sr_get_le32(v + 8);
			break;
		case E2SR_FC_TAG_CREAT:
		case E2SR_FC_TAG_LINK:
		case E2SR_FC_TAG_UNLINK:
			r.parent = e2sr_get_le32(v);
			r.ino = e2sr_get_le32(v + 4);
			r.name_off = off + E2SR_FC_TL_SIZE + 8;
			r.name_len = len - 8;
			break;
		case E2SR_FC_TAG_INODE:
			r.ino = e2sr_get_le32(v);
			break;
		case E2SR_FC_TAG_TAIL:
			r.tid = e2sr_get_le32(v);
			break;
		case E2SR_FC_TAG_HEAD:
			r.tid = e2sr_get_le32(v + 4);
			break;
		default:
			break;
		}
		err = cb(priv, &r);
		if (err)
			return err;
		off += E2SR_FC_TL_SIZE + len;
		/* A pad or a tail ends what the block holds. */
		if (tag == E2SR_FC_TAG_PAD || tag == E2SR_FC_TAG_TAIL)
			break;
	}
	return 0;
}

struct fc_collect {
	struct e2sr_fcwalk	*w;
	int			any;
};

static errcode_t collect(void *priv, const struct e2sr_fc_rec *rec)
{
	struct fc_collect *c = priv;
	struct e2sr_fcwalk *w = c->w;

	if (e2sr_array_room(&w->recs, &w->alloc, w->n + 1, sizeof(*w->recs)))
		return EXT2_ET_NO_MEMORY;
	w->recs[w->n++] = *rec;
	c->any = 1;
	return 0;
}

/* Area block @pos, set aside past the log, read not all zero. */
static void note_dirty(struct e2sr_journal *j, __u32 pos)
{
	__u32 i = pos - j->jsb.last;

	if (!j->fc_dirty &&
	    ext2fs_get_memzero((j->jsb.maxlen - j->jsb.last) / 8 + 1,
			       &j->fc_dirty)) {
		j->fc_unknown = 1;
		return;
	}
	if (pos < j->jsb.maxlen)
		j->fc_dirty[i >> 3] |= 1 << (i & 7);
}

errcode_t e2sr_fc_walk(struct e2sr_journal *j, struct e2sr_fcwalk *out)
{
	struct fc_collect c;
	const unsigned char *b;
	__u32 pos, fc;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	/* Proven all zero (ring_fresh.c): as an area with nothing in it. */
	if (!j || j->fc_quiet)
		return 0;
	fc = j->jsb.fc_blocks;
	/*
	 * The kernel sets the journal's fast-commit feature only while
	 * mounted: after a clean unmount s_num_fc_blks alone says the
	 * area is there, holding what the last mount wrote.
	 */
	if (!fc && j->jsb.version == 2) {
		fc = e2sr_get_be32(j->sbuf +
			      offsetof(struct e2sr_jbd2_sb, s_num_fc_blks));
		if (fc >= j->jsb.maxlen - j->jsb.first)
			fc = 0;
	}
	if (!fc)
		return 0;
	out->first = j->jsb.maxlen - fc;
	out->end = j->jsb.maxlen;
	c.w = out;
	for (pos = out->first; pos < out->end; pos++) {
		err = e2sr_journal_block(j, pos, &b);
		if (err)
			goto fail;
		c.any = 0;
		if (pos >= j->jsb.last && j->jsb.fc_blocks &&
		    !e2sr_all_zero(b, j->blocksize))
			note_dirty(j, pos);
		err = e2sr_fc_parse_block(b, j->blocksize, pos, collect, &c);
		if (err)
			goto fail;
		out->blocks_used += c.any;
	}
	j->fc_seen = 1;
	return 0;
fail:
	e2sr_fc_walk_free(out);
	return err;
}

void e2sr_fc_walk_free(struct e2sr_fcwalk *w)
{
	if (!w)
		return;
	ext2fs_free_mem(&w->recs);
	memset(w, 0, sizeof(*w));
}
