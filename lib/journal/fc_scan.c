/*
 * fc_scan.c --- the fast-commit area read as the kernel's scan reads it.
 *
 * Owns the tag parser: the length rules of each tag
 * (ext4_fc_value_len_isvalid(), e2sr_fc_value_len_ok()) and the scan of
 * the area for the tags to be replayed (ext4_fc_replay_scan() and
 * jbd2's fc_do_one_pass(): e2sr_fc_scan_block(), e2sr_fc_replay_scan()),
 * with the tail checksums and the head's features and tid.  It changes
 * nothing; the replay of the tags it counts is fc_replay.c's, the names
 * and layout of the tags fast_commit.h's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "fc_replay.h"

#define TL_SIZE			E2SR_FC_TL_SIZE
#define NAME_MAX_LEN		255
#define GOOD_OLD_INODE_SIZE	128

/* ext4_fc_value_len_isvalid() */
int e2sr_fc_value_len_ok(unsigned int tag, unsigned int len,
				unsigned int inode_size)
{
	switch (tag) {
	case E2SR_FC_TAG_ADD_RANGE:
		return len == 16;
	case E2SR_FC_TAG_DEL_RANGE:
		return len == 12;
	case E2SR_FC_TAG_CREAT:
	case E2SR_FC_TAG_LINK:
	case E2SR_FC_TAG_UNLINK:
		return len >= 8 + 1 && len <= 8 + NAME_MAX_LEN;
	case E2SR_FC_TAG_INODE:
		return len >= 4 + GOOD_OLD_INODE_SIZE &&
		       len <= 4 + inode_size;
	case E2SR_FC_TAG_PAD:
		return 1;
	case E2SR_FC_TAG_TAIL:
		return len >= 8;
	case E2SR_FC_TAG_HEAD:
		return len == 8;
	}
	return 0;
}

/* The kernel stops quietly once a tail was valid, else fails. */
static errcode_t stop_or_fail(struct e2sr_fc_scan *s, errcode_t err)
{
	s->stopped = 1;
	return s->nr_tags ? 0 : err;
}

errcode_t e2sr_fc_scan_block(struct e2sr_fc_scan *s, const void *block,
			     unsigned int blocksize, unsigned int inode_size)
{
	const unsigned char *b = block, *v;
	unsigned int off = 0, tag, len;

	if (s->stopped)
		return 0;
	if (!b || blocksize < E2SR_JBD2_MIN_BLOCKSIZE ||
	    blocksize > E2SR_JBD2_MAX_BLOCKSIZE)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!s->off) {
		s->cur_tag = 0;
		s->cur_ranges = 0;
		s->nr_tags = 0;
		s->crc = 0;
		s->nr_blocks = 0;
		s->nr_commits = 0;
		s->nr_ranges = 0;
		/* No head in the first block: nothing was fast-committed. */
		if (e2sr_get_le16(b) != E2SR_FC_TAG_HEAD) {
			s->stopped = 1;
			return 0;
		}
	}
	s->off++;
	while (off + TL_SIZE <= blocksize) {
		tag = e2sr_get_le16(b + off);
		len = e2sr_get_le16(b + off + 2);
		v = b + off + TL_SIZE;
		if (len > blocksize - off - TL_SIZE ||
		    !e2sr_fc_value_len_ok(tag, len, inode_size))
			return stop_or_fail(s, E2SR_ERR_FC_CORRUPT);
		switch (tag) {
		case E2SR_FC_TAG_ADD_RANGE:
			s->cur_ranges++;
			/* fall through */
		case E2SR_FC_TAG_DEL_RANGE:
		case E2SR_FC_TAG_LINK:
		case E2SR_FC_TAG_UNLINK:
		case E2SR_FC_TAG_CREAT:
		case E2SR_FC_TAG_INODE:
		case E2SR_FC_TAG_PAD:
			s->cur_tag++;
			s->crc = e2sr_crc32c_le(s->crc, b + off,
						  TL_SIZE + len);
			break;
		case E2SR_FC_TAG_TAIL:
			s->cur_tag++;
			/* tl and fc_tid, not fc_crc */
			s->crc = e2sr_crc32c_le(s->crc, b + off, TL_SIZE + 4);
			if (e2sr_get_le32(v) != s->expected_tid ||
			    e2sr_get_le32(v + 4) != s->crc) {
				s->crc = 0;
				return stop_or_fail(s, E2SR_ERR_FC_CORRUPT);
			}
			s->nr_tags = s->cur_tag;
			s->nr_blocks = s->off;
			s->nr_commits++;
			s->nr_ranges = s->cur_ranges;
			s->crc = 0;
			break;
		case E2SR_FC_TAG_HEAD:
			if (e2sr_get_le32(v) & ~(__u32)E2SR_FC_SUPPORTED_FEATURES) {
				s->stopped = 1;
				return E2SR_ERR_FC_UNSUPPORTED;
			}
			if (e2sr_get_le32(v + 4) != s->expected_tid) {
				s->stopped = 1;
				return 0;
			}
			s->cur_tag++;
			s->crc = e2sr_crc32c_le(s->crc, b + off,
						  TL_SIZE + len);
			break;
		default:
			return stop_or_fail(s, E2SR_ERR_FC_CORRUPT);
		}
		off += TL_SIZE + len;
	}
	return 0;
}

errcode_t e2sr_fc_replay_scan(struct e2sr_journal *j, __u32 expected_tid,
			      unsigned int inode_size,
			      struct e2sr_fc_scan *out)
{
	const unsigned char *b;
	__u32 pos;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	out->expected_tid = expected_tid;
	/* jbd2 runs the fast-commit pass only after a recovery scan. */
	if (!j || !(j->jsb.incompat & E2SR_JBD2_INCOMPAT_FAST_COMMIT) ||
	    !j->jsb.fc_blocks || !j->jsb.start)
		return 0;
	/* j_fc_first is j_last + 1: the block at j_last is never used. */
	out->first = j->jsb.last + 1;
	out->end = j->jsb.maxlen;
	if (out->first >= out->end)
		return 0;
	for (pos = out->first; pos < out->end && !out->stopped; pos++) {
		err = e2sr_journal_block(j, pos, &b);
		if (err)
			return err;
		err = e2sr_fc_scan_block(out, b, j->blocksize,
					 inode_size ? inode_size :
					 GOOD_OLD_INODE_SIZE);
		if (err)
			return err;
	}
	/* jbd2 would read past the area, and fail. */
	if (!out->stopped)
		return E2SR_ERR_FC_CORRUPT;
	return 0;
}
