/*
 * orphan_log.c --- the release of orphan inodes as one jbd2 transaction.
 *
 * Owns what orphan.c's release becomes on the device: the blocks it
 * changed (an overlay's), laid out by journal_write.c as one transaction
 * where the kernel's next one would go (after the newest commit in the
 * ring, over its oldest blocks), checked by the recovery scan to replay
 * exactly the release before it is trusted, and left in the overlay as
 * the write will leave the journal (replayed, marked empty), so that the
 * run reads the journal with the release in it from then on; then the
 * writing of it, in e2sr_begin_write(): every log block, unreferenced
 * (e2sr_orphans_write_log()), the journal superblock naming them, the
 * commit point (e2sr_orphans_commit()), and the replay by the recovery's
 * own code (e2sr_orphans_replay()).
 *
 * A +s file cut to its size loses the map of what it frees from its
 * record: its old record and tree blocks go in the transaction ahead of
 * their new versions (e2sr_orphans_evidence()), so that the log keeps
 * that map, as the kernel's own truncate leaves it, until the plan's
 * journal stage wipes it.  A history that the log's new blocks cut short
 * is reported by the coverage, as after a mount.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "open_int.h"

struct evidence_walk {
	struct e2sr_orphans	*o;
	ext2_filsys		fs;
	errcode_t		err;
};

static errcode_t add_evidence(struct e2sr_orphans *o, ext2_filsys fs,
			      blk64_t blk)
{
	errcode_t err;
	size_t i;

	for (i = 0; i < o->nev; i++)
		if (o->ev_blk[i] == blk)
			return 0;
	err = ext2fs_resize_mem(o->nev * sizeof(*o->ev_blk),
				(o->nev + 1) * sizeof(*o->ev_blk), &o->ev_blk);
	if (!err)
		err = ext2fs_resize_mem((size_t)o->nev * fs->blocksize,
					(size_t)(o->nev + 1) * fs->blocksize,
					&o->ev_data);
	if (err)
		return err;
	err = io_channel_read_blk64(fs->io, blk, 1, o->ev_data +
				    (size_t)o->nev * fs->blocksize);
	if (err)
		return err;
	o->ev_blk[o->nev++] = blk;
	return 0;
}

static int evidence_block(ext2_filsys fs, blk64_t *blocknr,
			  e2_blkcnt_t blockcnt,
			  blk64_t ref_blk EXT2FS_ATTR((unused)),
			  int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct evidence_walk *w = priv;

	/* Tree blocks only: a copy of file data would be a new residue. */
	if (blockcnt >= 0 || *blocknr < fs->super->s_first_data_block ||
	    *blocknr >= ext2fs_blocks_count(fs->super))
		return 0;
	w->err = add_evidence(w->o, fs, *blocknr);
	return w->err ? BLOCK_ABORT : 0;
}

/*
 * What a +s truncation orphan's release takes from the disk that the
 * plan needs: its record's and its tree's blocks as they are before
 * (the map of the blocks it frees).  Read on @before, the handle the
 * release was decided on; e2sr_orphans_log() logs each that the release
 * changes ahead of its new version, so that the log holds the old map
 * as the kernel's own truncate leaves it, until the plan's journal stage
 * wipes it.  A deleted orphan needs none: its record keeps its map.
 */
errcode_t e2sr_orphans_evidence(ext2_filsys before, struct e2sr_orphans *o)
{
	struct evidence_walk w;
	ext2_ino_t ipg = before->super->s_inodes_per_group;
	blk64_t blk;
	size_t i;
	errcode_t err = 0;

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.fs = before;
	for (i = 0; i < o->n && !err; i++) {
		const struct e2sr_orphan *e = &o->v[i];
		__u64 off;

		if (!e->links || !e->secrm)
			continue;
		off = (__u64)((e->ino - 1) % ipg) *
		      EXT2_INODE_SIZE(before->super);
		blk = ext2fs_inode_table_loc(before, (e->ino - 1) / ipg) +
		      off / before->blocksize;
		err = add_evidence(o, before, blk);
		if (!err)
			err = ext2fs_block_iterate3(before, e->ino,
						    BLOCK_FLAG_READ_ONLY, NULL,
						    evidence_block, &w);
		if (!err)
			err = w.err;
	}
	return err;
}

/* The transaction the log would replay must be the release, exactly. */
static errcode_t same_release(struct e2sr_journal *j,
			      const struct e2sr_jrecovery *rec,
			      const blk64_t *blk,
			      const unsigned char *const *data, size_t n,
			      char *detail, size_t len)
{
	unsigned char *buf = NULL;
	errcode_t err;
	size_t i;

	if (rec->transactions != 1 || rec->nblocks != n ||
	    rec->tag_csum_bad || rec->failed_commit || rec->nr_revokes) {
		snprintf(detail, len, "the release's transaction reads as "
			 "%u transactions of %zu blocks",
			 rec->transactions, rec->nblocks);
		return E2SR_ERR_ORPHANS;
	}
	err = ext2fs_get_mem(j->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		if (rec->blocks[i].fs_block != blk[i]) {
			snprintf(detail, len, "the release's transaction "
				 "replays block %llu for %llu",
				 (unsigned long long)rec->blocks[i].fs_block,
				 (unsigned long long)blk[i]);
			err = E2SR_ERR_ORPHANS;
			break;
		}
		err = e2sr_journal_copy(j, &rec->blocks[i], buf);
		if (!err && memcmp(buf, data[i], j->blocksize)) {
			snprintf(detail, len, "the release's transaction "
				 "replays other bytes at block %llu",
				 (unsigned long long)blk[i]);
			err = E2SR_ERR_ORPHANS;
		}
	}
	ext2fs_free_mem(&buf);
	return err;
}

/* Journal block of the transaction's @i-th log block: the log is a ring. */
static __u32 log_pos(const struct e2sr_jsb *jsb, __u32 start, __u32 i)
{
	return jsb->first + (start - jsb->first + i) % (jsb->last - jsb->first);
}

static int tid_before(__u32 x, __u32 y)
{
	return (__s32)(x - y) < 0;
}

/*
 * Where the kernel's next transaction would go: after the commit block
 * of the newest transaction before @tid, s_first if there is none.
 * Commits of @tid or later (a cut run's own) are not counted, so that a
 * re-run finds the same place.  Blocks there are the ring's oldest.
 */
static errcode_t log_start(struct e2sr_journal *j, __u32 tid, __u32 *start)
{
	const struct e2sr_jsb *jsb = &j->jsb;
	const unsigned char *b;
	__u32 jb, type, seq, best = 0;
	int found = 0;
	errcode_t err;

	*start = jsb->first;
	for (jb = jsb->first; jb < jsb->last; jb++) {
		err = e2sr_journal_block(j, jb, &b);
		if (err)
			return err;
		if (e2sr_jblock_header(jsb, b, &type, &seq) ||
		    type != E2SR_JBD2_COMMIT_BLOCK || !tid_before(seq, tid))
			continue;
		if (!found || tid_before(best, seq)) {
			best = seq;
			*start = log_pos(jsb, jb, 1);
			found = 1;
		}
	}
	return 0;
}

/*
 * The release's @n blocks with the evidence among them put ahead: new
 * arrays of *nall entries, the release's last.
 */
static errcode_t with_evidence(struct e2sr_orphans *o, size_t n,
			       blk64_t **blk, const unsigned char ***data,
			       size_t *nall, unsigned int bs)
{
	const unsigned char **d2 = NULL;
	blk64_t *b2 = NULL;
	size_t i, k, m = 0;
	errcode_t err;

	*nall = n;
	for (i = 0; i < o->nev; i++)
		for (k = 0; k < n; k++)
			if ((*blk)[k] == o->ev_blk[i])
				m++;
	if (!m)
		return 0;
	err = ext2fs_get_array(n + m, sizeof(*b2), &b2);
	if (!err)
		err = ext2fs_get_array(n + m, sizeof(*d2), &d2);
	if (err)
		goto out;
	m = 0;
	for (i = 0; i < o->nev; i++) {
		for (k = 0; k < n; k++) {
			if ((*blk)[k] != o->ev_blk[i])
				continue;
			b2[m] = o->ev_blk[i];
			d2[m++] = o->ev_data + (size_t)i * bs;
		}
	}
	memcpy(b2 + m, *blk, n * sizeof(*b2));
	memcpy(d2 + m, *data, n * sizeof(*d2));
	ext2fs_free_mem(blk);
	ext2fs_free_mem(data);
	*blk = b2;
	*data = d2;
	*nall = n + m;
	b2 = NULL;
	d2 = NULL;
out:
	ext2fs_free_mem(&b2);
	ext2fs_free_mem(&d2);
	return err;
}

/*
 * Lay the release, the blocks in @o->overlay, out as one transaction in
 * the journal of @fs (a handle over that overlay), and leave the journal
 * in the overlay as the write will leave it: the transaction from
 * s_first, replayed, the journal marked empty.  @found is the recovery
 * the run replays before (NULL: none): the journal is first left as its
 * end leaves it.  The journal opened over the overlay, the run's view of
 * it from now on, is returned in @ret.
 */
errcode_t e2sr_orphans_log(struct e2sr_orphans *o, ext2_filsys fs,
			   const struct e2sr_jrecovery *found, __u64 now,
			   struct e2sr_journal **ret, char *detail,
			   size_t len)
{
	size_t n = e2sr_overlay_count(o->overlay), i;
	const unsigned char **data = NULL, *d;
	struct e2sr_jrecovery check;
	struct e2sr_journal *j = NULL;
	unsigned char *copies = NULL;
	blk64_t *blk = NULL;
	unsigned int bs = fs->blocksize;
	size_t nall = n;
	__u64 ignored = 0;
	__u32 room;
	errcode_t err;

	memset(&check, 0, sizeof(check));
	*ret = NULL;
	if (!n || e2sr_overlay_unit(o->overlay) != bs) {
		snprintf(detail, len, "the release is not in whole blocks");
		return E2SR_ERR_ORPHANS;
	}
	/* The release's blocks, before the journal's join the overlay. */
	err = ext2fs_get_array(n, sizeof(*blk), &blk);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*data), &data);
	if (!err)
		err = ext2fs_get_array(n, bs, &copies);
	for (i = 0; i < n && !err; i++) {
		err = e2sr_overlay_block(o->overlay, i, &blk[i], &d);
		if (err)
			break;
		memcpy(copies + i * bs, d, bs);
		data[i] = copies + i * bs;
	}
	if (err)
		goto out;
	/* Channels opened now read and write this overlay. */
	e2sr_overlay_manager(o->overlay);
	err = e2sr_journal_open(fs, NULL, &j, detail, len);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		if (e2sr_journal_owns(j, blk[i])) {
			snprintf(detail, len, "the release changes journal "
				 "block %llu", (unsigned long long)blk[i]);
			err = E2SR_ERR_ORPHANS;
			goto out;
		}
	}
	if (found) {
		err = e2sr_journal_recover_finish(j, found, &ignored);
		if (err)
			goto out;
	}
	/*
	 * Evidence first, each block the release changes: the newest copy
	 * wins the replay, the older stays readable in the log.
	 */
	err = with_evidence(o, n, &blk, &data, &nall, bs);
	if (err)
		goto out;
	/* Small, as jbd2 keeps a transaction. */
	o->nlog = e2sr_jtx_log_blocks(&j->jsb, nall);
	room = (j->jsb.last - j->jsb.first) / 4;
	if (!o->nlog || o->nlog > room) {
		snprintf(detail, len, "releasing takes %u journal blocks, "
			 "more than the %u of one transaction", o->nlog,
			 room);
		err = E2SR_ERR_ORPHANS;
		goto out;
	}
	o->tid = j->jsb.sequence + 1;
	o->nblocks = n;
	err = log_start(j, o->tid, &o->log_first);
	if (err)
		goto out;
	err = ext2fs_get_array(o->nlog, bs, &o->log);
	if (!err)
		err = e2sr_jtx_build(&j->jsb, o->tid, now, blk, data, nall,
				     o->log);
	for (i = 0; i < o->nlog && !err; i++) {
		e2sr_journal_note_write(j, log_pos(&j->jsb, o->log_first, i),
					1);
		err = io_channel_write_blk64(j->io,
					     e2sr_journal_phys(j,
						log_pos(&j->jsb, o->log_first,
							i)),
					     1, o->log + (size_t)i * bs);
	}
	if (!err)
		err = e2sr_journal_write_sb(j, o->tid, o->log_first, 0);
	/* What was laid out must replay to the release, and nothing else. */
	if (!err)
		err = e2sr_journal_recover_scan(j,
						ext2fs_blocks_count(fs->super),
						&check, detail, len);
	if (!err)
		err = same_release(j, &check, blk + (nall - n),
				   data + (nall - n), n, detail, len);
	if (!err)
		err = e2sr_journal_recover_finish(j, &check, &ignored);
	if (err)
		goto out;
	o->how = E2SR_RECOVERY_VIEW;
	*ret = j;
	j = NULL;
out:
	e2sr_journal_recovery_free(&check);
	e2sr_journal_close(j);
	ext2fs_free_mem(&copies);
	ext2fs_free_mem(&data);
	ext2fs_free_mem(&blk);
	return err;
}

/*
 * The whole log, commit block included, on the real journal @j, which
 * must be as the view left it before the release: empty, the sequence
 * before the transaction's.  Nothing refers to these blocks yet: the
 * journal superblock still says the log is empty.
 */
errcode_t e2sr_orphans_write_log(struct e2sr_orphans *o,
				 struct e2sr_journal *j)
{
	errcode_t err = 0;
	__u32 i;

	if (j->jsb.start || j->jsb.sequence + 1 != o->tid || j->external)
		return E2SR_ERR_CHANGED;
	for (i = 0; i < o->nlog && !err; i++) {
		e2sr_journal_note_write(j, log_pos(&j->jsb, o->log_first, i),
					1);
		err = io_channel_write_blk64(j->io,
					     e2sr_journal_phys(j,
						log_pos(&j->jsb, o->log_first,
							i)),
					     1, o->log +
					     (size_t)i * j->blocksize);
	}
	if (!err)
		err = io_channel_flush(j->io);
	if (!err)
		o->bytes += (__u64)o->nlog * j->blocksize;
	return err;
}

/*
 * The commit point: the journal superblock names the log (s_start at
 * its first block, s_sequence its tid).  Before this write the log is
 * unreferenced and a cut changes nothing; after it jbd2, e2fsck and a
 * re-run replay the transaction, whose commit block is already there.
 * The filesystem must say needs_recovery first, or the kernel would
 * wipe the log at mount.
 */
errcode_t e2sr_orphans_commit(struct e2sr_orphans *o, struct e2sr_journal *j)
{
	errcode_t err;

	err = e2sr_journal_write_sb(j, o->tid, o->log_first, 0);
	if (!err)
		o->bytes += j->blocksize;
	return err;
}

/* Replay the committed release with the recovery's own code. */
errcode_t e2sr_orphans_replay(struct e2sr_orphans *o, struct e2sr_journal *j,
			      io_channel fsio, blk64_t fs_blocks,
			      char *detail, size_t len)
{
	struct e2sr_jrecovery rec;
	__u64 bytes = 0;
	errcode_t err;

	err = e2sr_journal_recover_scan(j, fs_blocks, &rec, detail, len);
	if (!err && (rec.transactions != 1 || rec.nblocks != o->nblocks))
		err = E2SR_ERR_CHANGED;
	if (!err)
		err = e2sr_journal_recover_write(j, fsio, &rec, &bytes);
	o->bytes += bytes;
	bytes = 0;
	if (!err)
		err = e2sr_journal_recover_finish(j, &rec, &bytes);
	o->bytes += bytes;
	e2sr_journal_recovery_free(&rec);
	if (!err)
		o->how = E2SR_RECOVERY_REPLAYED;
	return err;
}
