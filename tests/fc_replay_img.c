/*
 * fc_replay_img.c --- test driver: recover an image's journal, fast
 * commits included, the way lib/fc_replay.h says the engine will.
 *
 *	fc_replay_img [-n] IMAGE
 *
 * Scans the jbd2 log and the fast-commit area, applies the fast commits
 * to the filesystem seen through the recovery view and an in-memory
 * overlay, then writes: the jbd2 copies, the overlay's blocks, the empty
 * journal superblock, and the superblock without needs_recovery.  -n
 * only prints what the scans found.  Output lines are "key value" for
 * the tests.  Exit 0 on success, 2 when the replay is refused (the image
 * is then untouched), 1 on any other error.  Not installed.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2secrm.h"
#include "journal.h"
#include "fc_replay.h"
#include "overlay_io.h"

#define OPEN_FLAGS	(EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP)

static char detail[256];

static int fail(const char *what, errcode_t err)
{
	com_err("fc_replay_img", err, "while %s%s%s", what,
		detail[0] ? ": " : "", detail);
	return err == E2SR_ERR_FC_UNSUPPORTED || err == E2SR_ERR_FC_CORRUPT ?
	       2 : 1;
}

/* The jbd2 copies, as e2sr_journal_recover_write writes them. */
static errcode_t write_jbd2(struct e2sr_journal *j, io_channel io,
			    const struct e2sr_jrecovery *rec)
{
	unsigned char *buf;
	errcode_t err = 0;
	size_t i;

	buf = malloc(j->blocksize);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	for (i = 0; i < rec->nblocks && !err; i++) {
		err = e2sr_journal_copy(j, &rec->blocks[i], buf);
		if (!err)
			err = io_channel_write_blk64(io,
						     rec->blocks[i].fs_block,
						     1, buf);
	}
	free(buf);
	if (!err)
		err = io_channel_flush(io);
	return err;
}

/* needs_recovery off, as open.c's replay() leaves the superblock. */
static errcode_t finish_sb(const char *img, const struct e2sr_jrecovery *rec)
{
	ext2_filsys fs;
	errcode_t err;

	err = ext2fs_open2(img, NULL, OPEN_FLAGS | EXT2_FLAG_RW, 0, 0,
			   unix_io_manager, &fs);
	if (err)
		return err;
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	if (rec->tag_csum_bad)
		fs->super->s_state &= ~EXT2_VALID_FS;
	if (rec->failed_commit || rec->jerrno)
		fs->super->s_state |= EXT2_ERROR_FS;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_mark_super_dirty(fs);
	ext2fs_free_mem(&fs->orig_super);
	return ext2fs_close_free(&fs);
}

int main(int argc, char **argv)
{
	struct e2sr_jrecovery rec;
	struct e2sr_fc_scan scan;
	struct e2sr_journal *j = NULL;
	struct e2sr_overlay *ov = NULL;
	ext2_filsys fs0 = NULL, fs = NULL;
	const char *img;
	int scan_only = 0, opt, ret = 1;
	errcode_t err;

	while ((opt = getopt(argc, argv, "n")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: fc_replay_img [-n] IMAGE\n");
			return 1;
		}
		scan_only = 1;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: fc_replay_img [-n] IMAGE\n");
		return 1;
	}
	img = argv[optind];
	add_error_table(&et_e2sr_error_table);
	add_error_table(&et_ext2_error_table);
	memset(&rec, 0, sizeof(rec));

	err = ext2fs_open2(img, NULL, OPEN_FLAGS |
			   (scan_only ? 0 : EXT2_FLAG_RW), 0, 0,
			   unix_io_manager, &fs0);
	if (err)
		return fail("opening the image", err);
	if (!ext2fs_has_feature_journal_needs_recovery(fs0->super)) {
		printf("needs_recovery 0\n");
		ext2fs_free(fs0);
		return 0;
	}
	err = e2sr_journal_open(fs0, NULL, &j, detail, sizeof(detail));
	if (err) {
		ret = fail("opening the journal", err);
		goto out;
	}
	err = e2sr_journal_recover_scan(j, ext2fs_blocks_count(fs0->super),
					&rec, detail, sizeof(detail));
	if (err) {
		ret = fail("scanning the journal", err);
		goto out;
	}
	err = e2sr_fc_replay_scan(j, rec.end_seq,
				  EXT2_INODE_SIZE(fs0->super), &scan);
	if (err) {
		ret = fail("scanning the fast commits", err);
		goto out;
	}
	printf("jbd2_transactions %u\njbd2_blocks %zu\n", rec.transactions,
	       rec.nblocks);
	printf("fc_expected_tid %u\nfc_first %u\nfc_tags %u\nfc_blocks %u\n"
	       "fc_commits %u\nfc_ranges %u\n", scan.expected_tid,
	       scan.first, scan.nr_tags, scan.nr_blocks, scan.nr_commits,
	       scan.nr_ranges);
	if (scan_only) {
		ret = 0;
		goto out;
	}

	if (scan.nr_tags) {
		e2sr_view_set_base(NULL);
		ov = e2sr_overlay_new(e2sr_view_manager(j, &rec), 0);
		if (!ov) {
			ret = fail("making the overlay", EXT2_ET_NO_MEMORY);
			goto out;
		}
		err = ext2fs_open2(img, NULL, OPEN_FLAGS | EXT2_FLAG_RW, 0, 0,
				   e2sr_overlay_manager(ov), &fs);
		if (!err)
			err = ext2fs_read_bitmaps(fs);
		if (!err)
			err = e2sr_fc_replay_apply(fs, j, &scan, detail,
						   sizeof(detail));
		if (!err)
			err = ext2fs_close_free(&fs);
		if (err) {
			ret = fail("replaying the fast commits", err);
			goto out;
		}
		printf("overlay_blocks %zu\noverlay_unit %u\n",
		       e2sr_overlay_count(ov), e2sr_overlay_unit(ov));
	}

	/* jbd2's copies, then the fast commits over them, then the sb. */
	err = write_jbd2(j, fs0->io, &rec);
	if (!err && ov)
		err = e2sr_overlay_commit(ov, fs0->io);
	if (!err)
		err = e2sr_journal_write_sb(j, rec.tag_csum_bad ?
					    rec.start_seq : rec.end_seq + 1,
					    0, 0);
	if (err) {
		ret = fail("writing the recovery", err);
		goto out;
	}
	ext2fs_free(fs0);
	fs0 = NULL;
	err = finish_sb(img, &rec);
	if (err) {
		ret = fail("clearing needs_recovery", err);
		goto out;
	}
	printf("recovered 1\n");
	ret = 0;
out:
	if (fs)
		ext2fs_free(fs);
	e2sr_overlay_free(ov);
	e2sr_journal_recovery_free(&rec);
	e2sr_journal_close(j);
	if (fs0)
		ext2fs_free(fs0);
	return ret;
}
