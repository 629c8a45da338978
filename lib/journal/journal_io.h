/*
 * journal_io.h --- the jbd2 journal as the engine uses it: where it lives,
 * how its blocks are read, how it is recovered, and the in-memory view of
 * a recovered filesystem that a dry run reads through.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_JOURNAL_IO_H
#define E2SR_JOURNAL_IO_H

#include <ext2fs/ext2fs.h>
#include "jbd2.h"

/*
 * An opened journal: the internal one (inode 8, its blocks located
 * through libext2fs) or an external journal device.  Journal block n is
 * device block pmap[n] internally, device block n externally (an
 * external journal's s_first already counts its own superblocks).
 */
struct e2sr_journal {
	io_channel	io;		/* ours, on the journal's device */
	int		external;
	unsigned int	blocksize;
	__u32		nblocks;	/* == jsb.maxlen */
	blk64_t		*pmap;		/* internal: journal -> fs block */
	blk64_t		*sorted;	/* pmap sorted, for e2sr_journal_owns */
	struct e2sr_jsb	jsb;
	int		sb_csum_bad;	/* superblock checksum wrong */
	unsigned char	*sbuf;		/* journal block 0 as read */

	unsigned char	*win;		/* read window for the passes */
	__u32		win_first;
	__u32		win_count;
	__u32		win_cap;
	/* What a pass over part of the log will read (e2sr_journal_want) */
	const __u8	*want;		/* a bit per log block from want_first */
	__u32		want_first;
	__u32		want_len;
	/*
	 * What this run wrote of the journal (e2sr_journal_note_write): a
	 * bit per log block from jsb.first, whether the superblock was
	 * rewritten, and whether a write could not be noted.  The ring's
	 * facts (ring_facts.h) are kept only of what it did not write.
	 */
	__u8		*written;
	__u8		*zeroed;	/* of them, left all zero */
	int		sb_written;
	int		written_lost;
	/*
	 * The fast-commit area is all zero and the kernel wrote none of it
	 * since the last run (ring_fresh.c): e2sr_fc_walk() reads nothing.
	 * Of an area set aside past the log (journal_dev.c), what this run
	 * saw and did: e2sr_fc_walk() read it whole (fc_seen); a bit per
	 * block from jsb.last that it read not all zero and the run did
	 * not zero since (fc_dirty); a write there not known to leave
	 * zeros, or no memory to say (fc_unknown).  The ring's facts keep
	 * whether the run left it all zero (ring_facts.h, fc_zero).
	 */
	int		fc_quiet;
	int		fc_seen;
	int		fc_unknown;
	__u8		*fc_dirty;
};

/* journal_dev.c */
errcode_t e2sr_journal_open(ext2_filsys fs, const char *ext_journal,
			    struct e2sr_journal **ret, char *detail,
			    size_t detail_len);
void e2sr_journal_close(struct e2sr_journal *j);
blk64_t e2sr_journal_phys(const struct e2sr_journal *j, __u32 jblock);
int e2sr_journal_owns(const struct e2sr_journal *j, blk64_t fs_block);
errcode_t e2sr_journal_read(struct e2sr_journal *j, __u32 jblock,
			    __u32 count, void *buf);
errcode_t e2sr_journal_block(struct e2sr_journal *j, __u32 jblock,
			     const unsigned char **block);
void e2sr_journal_want(struct e2sr_journal *j, const __u8 *map, __u32 first,
		       __u32 len);
int e2sr_journal_fc_zero(const struct e2sr_journal *j);
void e2sr_journal_take_fc(struct e2sr_journal *to, struct e2sr_journal *from);
void e2sr_journal_note_write(struct e2sr_journal *j, __u32 jblock,
			     __u32 count);
void e2sr_journal_note_zero(struct e2sr_journal *j, __u32 jblock, __u32 count);
int e2sr_journal_zeroed(const struct e2sr_journal *j, __u32 jblock);
int e2sr_journal_wrote(const struct e2sr_journal *j, __u32 jblock);
void e2sr_journal_drop_window(struct e2sr_journal *j);
errcode_t e2sr_journal_write_sb(struct e2sr_journal *j, __u32 sequence,
				__u32 start, __s32 errno_val);

/* One block the recovery writes: the newest copy of fs_block. */
struct e2sr_jreplay {
	blk64_t		fs_block;
	__u32		jblock;
	__u32		sequence;
	__u32		order;		/* place in the log, from s_start */
	__u8		escaped;	/* first word was the magic */
};

/*
 * What recovering the journal means, decided before anything is
 * written: transactions [start_seq, end_seq) are replayed, and blocks[]
 * (sorted by fs_block, one entry each) is what they leave.
 */
struct e2sr_jrecovery {
	__u32			start_seq;
	__u32			end_seq;
	__u32			failed_commit;	/* its commit csum failed */
	int			tag_csum_bad;	/* some copy skipped: bad csum */
	__u32			fc_tags;	/* fast-commit tags replayed */
	__u32			fc_commits;	/* fast commits among them */
	__s32			jerrno;		/* s_errno as found */
	__u32			transactions;
	unsigned long		nr_replays;
	unsigned long		nr_revokes;
	unsigned long		nr_revoke_hits;
	struct e2sr_jreplay	*blocks;
	size_t			nblocks;
};

/* journal_recover.c */
errcode_t e2sr_journal_recover_scan(struct e2sr_journal *j,
				    blk64_t fs_blocks,
				    struct e2sr_jrecovery *rec,
				    char *detail, size_t detail_len);
errcode_t e2sr_journal_recover_write(struct e2sr_journal *j, io_channel fsio,
				     const struct e2sr_jrecovery *rec,
				     __u64 *bytes_written);
errcode_t e2sr_journal_recover_finish(struct e2sr_journal *j,
				      const struct e2sr_jrecovery *rec,
				      __u64 *bytes_written);
errcode_t e2sr_journal_copy(struct e2sr_journal *j,
			    const struct e2sr_jreplay *r, void *buf);
errcode_t e2sr_journal_copy_pass(struct e2sr_journal *j,
				 const struct e2sr_jreplay *r, void *buf);
void e2sr_journal_recovery_free(struct e2sr_jrecovery *rec);

/* journal_write.c */
__u32 e2sr_jtx_log_blocks(const struct e2sr_jsb *jsb, size_t n);
errcode_t e2sr_jtx_build(const struct e2sr_jsb *jsb, __u32 tid,
			 __u64 commit_sec, const blk64_t *blk,
			 const unsigned char *const *data, size_t n,
			 unsigned char *out);

/* journal_view.c */
typedef int (*e2sr_view_lookup_fn)(void *priv, blk64_t blk,
				   struct e2sr_jreplay *copy);
io_manager e2sr_view_manager(struct e2sr_journal *j,
			     const struct e2sr_jrecovery *rec);
io_manager e2sr_view_manager_lookup(struct e2sr_journal *j,
				    e2sr_view_lookup_fn fn, void *priv);

#endif /* E2SR_JOURNAL_IO_H */
