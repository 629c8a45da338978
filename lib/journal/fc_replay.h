/*
 * fc_replay.h --- replaying ext4 fast commits the way the kernel does.
 *
 * A journal that needs recovery may hold fast commits after its last
 * full commit: the kernel replays them at mount (fs/ext4/fast_commit.c,
 * called from jbd2's fc_do_one_pass), and dropping them loses files
 * that were fsync'ed.  e2sr_fc_replay_scan() decides, by the kernel's
 * scan rules, how many tags are to be replayed; e2sr_fc_replay_apply()
 * applies them through libext2fs to a filesystem opened read-write over
 * an in-memory overlay (overlay_io.h), so that nothing reaches the
 * device until the caller commits the overlay.  What this code cannot
 * replay faithfully is refused with E2SR_ERR_FC_UNSUPPORTED.  The scan is
 * fc_scan.c's, the replay fc_replay.c's (with fc_replay_tags.c and
 * fc_replay_ctx.c).
 *
 * Call sequence (jbd2 recovery first, as the kernel does):
 *	e2sr_journal_open(fs_ro, ..., &j);
 *	e2sr_journal_recover_scan(j, blocks, &rec, ...);
 *	e2sr_fc_replay_scan(j, rec.end_seq, inode_size, &scan);
 *	if (scan.nr_tags) {
 *		e2sr_view_set_base(base);
 *		ov = e2sr_overlay_new(e2sr_view_manager(j, &rec), 0);
 *		ext2fs_open2(dev, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS |
 *			     EXT2_FLAG_SKIP_MMP, 0, 0,
 *			     e2sr_overlay_manager(ov), &fs);
 *		e2sr_fc_replay_apply(fs, j, &scan, detail, len);
 *		ext2fs_close_free(&fs);		(into the overlay)
 *	}
 *	write the jbd2 copies (rec.blocks), flush;
 *	e2sr_overlay_commit(ov, device channel);
 *	mark the journal empty (s_sequence rec.end_seq + 1, s_start 0);
 *	clear needs_recovery.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FC_REPLAY_H
#define E2SR_FC_REPLAY_H

#include <ext2fs/ext2fs.h>
#include "journal_io.h"
#include "fast_commit.h"

/* struct ext4_fc_head's fc_features the kernel knows: none. */
#define E2SR_FC_SUPPORTED_FEATURES	0

/* What the kernel's scan left. */
struct e2sr_fc_scan {
	__u32	expected_tid;	/* the first transaction not committed */
	__u32	first;		/* j_fc_first: journal block of the area */
	__u32	end;		/* one past the area's last block */
	__u32	nr_tags;	/* tags to replay, from the head; 0: none */
	__u32	nr_blocks;	/* they lie in [first, first + nr_blocks) */
	__u32	nr_commits;	/* valid tails among them */
	__u32	nr_ranges;	/* add_range tags among them */
	/* scan state: private */
	__u32	cur_tag;
	__u32	cur_ranges;
	__u32	crc;
	__u32	off;		/* blocks scanned */
	int	stopped;
};

/*
 * Scan one fast-commit block (the @off-th of the area) the way
 * ext4_fc_replay_scan() does, with @s carrying the state from the
 * block before.  Returns 0 and sets s->stopped when the scan is over,
 * 0 alone when it wants the next block, E2SR_ERR_FC_CORRUPT where the
 * kernel's scan fails (a bad first tail, a malformed tag before any
 * valid tail) and E2SR_ERR_FC_UNSUPPORTED for head features it does
 * not know.  Pure: for the unit tests.
 */
errcode_t e2sr_fc_scan_block(struct e2sr_fc_scan *s, const void *block,
			     unsigned int blocksize, unsigned int inode_size);

/*
 * Whether @len is a valid value length for @tag on a filesystem of
 * @inode_size (ext4_fc_value_len_isvalid()): the scan's rule, which the
 * replay applies again as it reads the tags.
 */
int e2sr_fc_value_len_ok(unsigned int tag, unsigned int len,
			 unsigned int inode_size);

/*
 * The kernel's scan of @j's fast-commit area for @expected_tid (the
 * transaction after the last full commit: e2sr_jrecovery.end_seq).
 * Nothing is pending (out->nr_tags 0) unless the journal has the
 * fast-commit feature and a log to recover.  @inode_size is the
 * filesystem's: it bounds an inode tag's length.
 */
errcode_t e2sr_fc_replay_scan(struct e2sr_journal *j, __u32 expected_tid,
			      unsigned int inode_size,
			      struct e2sr_fc_scan *out);

/*
 * Apply the scanned tags to @fs, opened read-write through the overlay
 * over the recovery view, then fix bitmaps and group counts as the
 * kernel's ext4_fc_set_bitmaps_and_counters() does.  The caller closes
 * @fs (ext2fs_close) to flush it into the overlay.  On any error the
 * overlay holds a partial replay and must be dropped; @detail says
 * which tag.
 */
errcode_t e2sr_fc_replay_apply(ext2_filsys fs, struct e2sr_journal *j,
			       const struct e2sr_fc_scan *scan, char *detail,
			       size_t detail_len);

#endif /* E2SR_FC_REPLAY_H */
