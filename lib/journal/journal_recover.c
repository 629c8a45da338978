/*
 * journal_recover.c --- recovering a journal the way jbd2 does.
 *
 * Owns the three recovery passes over the live log, from s_start and
 * s_sequence: the scan finds where the log ends (sequence numbers, commit
 * blocks and, per journal version, their checksums), the revoke pass
 * gathers revoke records, and the replay pass decides which copy of each
 * block recovery leaves behind.  The decision is data (struct
 * e2sr_jrecovery); it is written out by e2sr_journal_recover_write(), or
 * read through journal_view.c's in-memory view by a dry run.
 *
 * The rules are the kernel's (fs/jbd2/recovery.c, which e2fsck shares),
 * so that the result is what `e2fsck -E journal_only` leaves, with three
 * deliberate differences: where jbd2 would loop for ever, write outside
 * the filesystem or into the journal, or go on after a pass failed, this
 * code stops with an error before anything is written.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "journal_io.h"

/* The most distinct revoked blocks tracked: 16 bytes each. */
#define MAX_REVOKES		(1UL << 24)

/* Offsets in a commit block. */
#define COMMIT_OFF_TYPE		12
#define COMMIT_OFF_SIZE		13
#define COMMIT_OFF_CHKSUM	16
#define COMMIT_OFF_SEC		48

enum pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

struct revoke {
	blk64_t	blk;
	__u32	seq;
};

struct recover {
	struct e2sr_journal	*j;
	const struct e2sr_jsb	*jsb;
	blk64_t			fs_blocks;
	struct e2sr_jrecovery	*rec;
	char			*detail;
	size_t			dlen;

	int			end_set;
	__u32			end_seq;

	struct revoke		*revokes;
	size_t			nrevokes;
	size_t			arevokes;
	size_t			sorted;		/* revokes[0..sorted) sorted */

	struct e2sr_jreplay	*writes;	/* in log order */
	size_t			nwrites;
	size_t			awrites;

	/* the descriptor being replayed */
	unsigned char		*desc;
	__u32			seq;
	__u32			pos;
	__u32			nblocks;	/* log positions it covers */
	errcode_t		err;
};

static int tid_gt(__u32 x, __u32 y)
{
	return (__s32)(x - y) > 0;
}

static int tid_geq(__u32 x, __u32 y)
{
	return (__s32)(x - y) >= 0;
}

static __u32 ring_next(const struct e2sr_jsb *jsb, __u32 pos, __u32 n)
{
	__u64 p = (__u64)pos + n;
	__u32 len = jsb->last - jsb->first;

	if (p >= jsb->last)
		p = jsb->first + (p - jsb->first) % len;
	return (__u32)p;
}

static int cmp_revoke(const void *a, const void *b)
{
	const struct revoke *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Sort and merge, keeping the newest sequence per block. */
static void compact_revokes(struct recover *r)
{
	size_t i, n = 0;

	qsort(r->revokes, r->nrevokes, sizeof(*r->revokes), cmp_revoke);
	for (i = 0; i < r->nrevokes; i++) {
		if (n && r->revokes[n - 1].blk == r->revokes[i].blk) {
			if (tid_gt(r->revokes[i].seq, r->revokes[n - 1].seq))
				r->revokes[n - 1].seq = r->revokes[i].seq;
			continue;
		}
		r->revokes[n++] = r->revokes[i];
	}
	r->nrevokes = n;
	r->sorted = n;
}

static errcode_t add_revoke(void *priv, blk64_t blk,
			    unsigned int index EXT2FS_ATTR((unused)))
{
	struct recover *r = priv;

	if (r->nrevokes == r->arevokes) {
		if (r->nrevokes)
			compact_revokes(r);
		if (r->nrevokes >= MAX_REVOKES)
			return E2SR_ERR_JOURNAL_TOO_BIG;
		/* Grow unless merging freed at least half. */
		if ((!r->arevokes || r->nrevokes * 2 > r->arevokes) &&
		    e2sr_array_room(&r->revokes, &r->arevokes,
				    r->arevokes ? r->arevokes * 2 : 256,
				    sizeof(*r->revokes)))
			return EXT2_ET_NO_MEMORY;
	}
	r->revokes[r->nrevokes].blk = blk;
	r->revokes[r->nrevokes].seq = r->seq;
	r->nrevokes++;
	r->rec->nr_revokes++;
	return 0;
}

/* Revoked in a transaction at least as new as @seq. */
static int revoked(struct recover *r, blk64_t blk, __u32 seq)
{
	size_t lo = 0, hi = r->nrevokes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->revokes[mid].blk == blk)
			return !tid_gt(seq, r->revokes[mid].seq);
		if (r->revokes[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static errcode_t count_tag(void *priv,
			   blk64_t blk EXT2FS_ATTR((unused)),
			   __u32 flags EXT2FS_ATTR((unused)),
			   __u32 csum EXT2FS_ATTR((unused)),
			   unsigned int index EXT2FS_ATTR((unused)))
{
	struct recover *r = priv;

	r->nblocks++;
	return 0;
}

static __u32 count_tags(struct recover *r, const unsigned char *desc)
{
	r->nblocks = 0;
	e2sr_jdesc_tags_replay(r->jsb, desc, count_tag, r);
	return r->nblocks;
}

static errcode_t add_write(struct recover *r, blk64_t blk, __u32 pos,
			   __u32 flags)
{
	struct e2sr_jreplay *nw;

	if (e2sr_array_room(&r->writes, &r->awrites, r->nwrites + 1,
			    sizeof(*r->writes)))
		return EXT2_ET_NO_MEMORY;
	nw = &r->writes[r->nwrites++];
	nw->fs_block = blk;
	nw->jblock = pos;
	nw->sequence = r->seq;
	nw->order = (__u32)r->nwrites - 1;
	nw->escaped = !!(flags & E2SR_JBD2_FLAG_ESCAPE);
	return 0;
}

/* One tag of a descriptor in the replay pass. */
static errcode_t replay_tag(void *priv, blk64_t blk, __u32 flags,
			    __u32 csum, unsigned int index EXT2FS_ATTR((unused)))
{
	struct recover *r = priv;
	const unsigned char *data;
	__u32 pos = r->pos;
	errcode_t err;

	r->pos = ring_next(r->jsb, r->pos, 1);
	r->nblocks++;
	err = e2sr_journal_block(r->j, pos, &data);
	if (err)
		return err;
	if (revoked(r, blk, r->seq)) {
		r->rec->nr_revoke_hits++;
		return 0;
	}
	if (e2sr_jtag_csum_ok(r->jsb, r->seq, data, csum)) {
		/* jbd2 skips the copy, goes on, and fails the recovery. */
		r->rec->tag_csum_bad = 1;
		return 0;
	}
	if (blk >= r->fs_blocks || e2sr_journal_owns(r->j, blk)) {
		snprintf(r->detail, r->dlen,
			 "journal block %u of transaction %u copies block %llu",
			 pos, r->seq, (unsigned long long)blk);
		return E2SR_ERR_JOURNAL_BAD_TARGET;
	}
	r->rec->nr_replays++;
	return add_write(r, blk, pos, flags);
}

/* The v1 transaction checksum: crc32_be over descriptor and data. */
static errcode_t sum_blocks(struct recover *r, const unsigned char *desc,
			    __u32 *pos, __u32 *crc)
{
	const unsigned char *data;
	__u32 n, i;
	errcode_t err;

	n = count_tags(r, desc);
	*crc = ext2fs_crc32_be(*crc, desc, r->jsb->blocksize);
	for (i = 0; i < n; i++) {
		err = e2sr_journal_block(r->j, *pos, &data);
		if (err)
			return err;
		*pos = ring_next(r->jsb, *pos, 1);
		*crc = ext2fs_crc32_be(*crc, data, r->jsb->blocksize);
	}
	return 0;
}

static errcode_t do_pass(struct recover *r, enum pass pass)
{
	const struct e2sr_jsb *jsb = r->jsb;
	const unsigned char *b;
	__u32 loglen = jsb->last - jsb->first;
	__u32 next_seq = jsb->sequence, pos = jsb->start, type, seq, n;
	__u32 crc = ~0U, found;
	__u64 used = 0, commit_time, last_commit_time = 0;
	int need_check_commit_time = 0, v1 = 0;
	errcode_t err;

	if (jsb->compat & E2SR_JBD2_COMPAT_CHECKSUM)
		v1 = 1;
	for (;;) {
		if (pass != PASS_SCAN && tid_geq(next_seq, r->end_seq))
			break;
		/* A live log is shorter than the ring; more is a loop. */
		if (used >= loglen) {
			snprintf(r->detail, r->dlen,
				 "log from block %u never ends", jsb->start);
			return E2SR_ERR_JOURNAL_LOOP;
		}
		err = e2sr_journal_block(r->j, pos, &b);
		if (err)
			return err;
		used++;
		pos = ring_next(jsb, pos, 1);
		if (e2sr_get_be32(b) != E2SR_JBD2_MAGIC)
			break;
		type = e2sr_get_be32(b + 4);
		seq = e2sr_get_be32(b + 8);
		if (seq != next_seq)
			break;

		switch (type) {
		case E2SR_JBD2_DESCRIPTOR_BLOCK:
			if (!e2sr_jblock_tail_ok(jsb, b)) {
				/*
				 * The scan can meet stale blocks of an old
				 * journal: judged at the next commit.  In a
				 * later pass it is corruption.
				 */
				if (pass != PASS_SCAN) {
					snprintf(r->detail, r->dlen,
						 "descriptor checksum, "
						 "transaction %u", next_seq);
					return E2SR_ERR_JOURNAL_CORRUPT;
				}
				need_check_commit_time = 1;
			}
			memcpy(r->desc, b, jsb->blocksize);
			if (pass == PASS_SCAN && v1 && !need_check_commit_time &&
			    !r->end_set) {
				err = sum_blocks(r, r->desc, &pos, &crc);
				if (err)
					return err;
				used += r->nblocks;
				continue;
			}
			if (pass != PASS_REPLAY) {
				n = count_tags(r, r->desc);
				pos = ring_next(jsb, pos, n);
				used += n;
				continue;
			}
			r->seq = next_seq;
			r->pos = pos;
			r->nblocks = 0;
			err = e2sr_jdesc_tags_replay(jsb, r->desc, replay_tag,
						     r);
			if (err)
				return err;
			pos = r->pos;
			used += r->nblocks;
			continue;

		case E2SR_JBD2_COMMIT_BLOCK:
			commit_time = e2sr_get_be64(b + COMMIT_OFF_SEC);
			if (need_check_commit_time) {
				/* A stale block of the same journal: bad. */
				if (commit_time >= last_commit_time) {
					snprintf(r->detail, r->dlen,
						 "checksum, transaction %u",
						 next_seq);
					return E2SR_ERR_JOURNAL_CORRUPT;
				}
				goto done;	/* of an older journal */
			}
			if (pass == PASS_SCAN && v1) {
				found = e2sr_get_be32(b + COMMIT_OFF_CHKSUM);
				if (r->end_set) {
					r->rec->failed_commit = r->end_seq;
					goto done;
				}
				if (!((crc == found &&
				       b[COMMIT_OFF_TYPE] ==
				       E2SR_JBD2_CRC32_CHKSUM &&
				       b[COMMIT_OFF_SIZE] ==
				       E2SR_JBD2_CRC32_CHKSUM_SIZE) ||
				      (!b[COMMIT_OFF_TYPE] &&
				       !b[COMMIT_OFF_SIZE] && !found)))
					goto chksum_error;
				crc = ~0U;
			}
			if (pass == PASS_SCAN && jsb->csum_version) {
				struct e2sr_jcommit c;

				if (e2sr_jcommit_check(jsb, b, &c))
					goto chksum_error;
			}
			goto commit_ok;
chksum_error:
			if (commit_time < last_commit_time)
				goto done;	/* of an older journal */
			r->end_seq = next_seq;
			r->end_set = 1;
			if (!(jsb->incompat &
			      E2SR_JBD2_INCOMPAT_ASYNC_COMMIT)) {
				r->rec->failed_commit = next_seq;
				goto done;
			}
commit_ok:
			if (pass == PASS_SCAN) {
				last_commit_time = commit_time;
				r->rec->transactions++;
			}
			next_seq++;
			continue;

		case E2SR_JBD2_REVOKE_BLOCK:
			if (pass == PASS_SCAN && !e2sr_jblock_tail_ok(jsb, b))
				need_check_commit_time = 1;
			if (pass != PASS_REVOKE)
				continue;
			r->seq = next_seq;
			err = e2sr_jrevoke_records_replay(jsb, b, add_revoke,
							  r);
			if (err == E2SR_ERR_JOURNAL_BAD_REVOKE)
				snprintf(r->detail, r->dlen,
					 "revoke block %u, transaction %u",
					 pos ? pos - 1 : 0, next_seq);
			if (err)
				return err;
			continue;

		default:
			goto done;
		}
	}
done:
	if (pass == PASS_SCAN) {
		if (!r->end_set) {
			r->end_seq = next_seq;
			r->end_set = 1;
		}
	} else if (r->end_seq != next_seq) {
		snprintf(r->detail, r->dlen,
			 "pass %d ended at transaction %u, scan at %u",
			 (int)pass, next_seq, r->end_seq);
		return E2SR_ERR_JOURNAL_CORRUPT;
	}
	return 0;
}

static int cmp_write(const void *a, const void *b)
{
	const struct e2sr_jreplay *x = a, *y = b;

	if (x->fs_block != y->fs_block)
		return x->fs_block < y->fs_block ? -1 : 1;
	/* The same block again: the later log position wins. */
	return x->order < y->order ? -1 : x->order > y->order;
}

/* What the writes leave: the last copy of each block. */
static void keep_last_writes(struct recover *r)
{
	size_t i, n = 0;

	if (!r->nwrites)
		return;
	qsort(r->writes, r->nwrites, sizeof(*r->writes), cmp_write);
	for (i = 0; i < r->nwrites; i++) {
		if (n && r->writes[n - 1].fs_block == r->writes[i].fs_block) {
			r->writes[n - 1] = r->writes[i];
			continue;
		}
		r->writes[n++] = r->writes[i];
	}
	r->nwrites = n;
}

errcode_t e2sr_journal_recover_scan(struct e2sr_journal *j,
				    blk64_t fs_blocks,
				    struct e2sr_jrecovery *rec,
				    char *detail, size_t detail_len)
{
	struct recover r;
	errcode_t err;

	memset(rec, 0, sizeof(*rec));
	memset(&r, 0, sizeof(r));
	r.j = j;
	r.jsb = &j->jsb;
	r.fs_blocks = fs_blocks;
	r.rec = rec;
	r.detail = detail;
	r.dlen = detail_len;
	rec->start_seq = j->jsb.sequence;
	rec->jerrno = j->jsb.errno_val;

	if (!j->jsb.start) {
		/* Nothing to recover: jbd2 only moves the sequence on. */
		rec->end_seq = j->jsb.sequence;
		return 0;
	}
	err = ext2fs_get_mem(j->blocksize, &r.desc);
	if (err)
		return err;
	err = do_pass(&r, PASS_SCAN);
	if (!err)
		err = do_pass(&r, PASS_REVOKE);
	if (!err) {
		if (r.nrevokes)
			compact_revokes(&r);
		err = do_pass(&r, PASS_REPLAY);
	}
	ext2fs_free_mem(&r.desc);
	ext2fs_free_mem(&r.revokes);
	if (err) {
		ext2fs_free_mem(&r.writes);
		return err;
	}
	rec->end_seq = r.end_seq;
	keep_last_writes(&r);
	rec->blocks = r.writes;
	rec->nblocks = r.nwrites;
	return 0;
}

/* The block recovery leaves at r->fs_block, escape undone. */
static void restore_escape(const struct e2sr_jreplay *r, unsigned char *p)
{
	if (r->escaped) {
		p[0] = (E2SR_JBD2_MAGIC >> 24) & 0xff;
		p[1] = (E2SR_JBD2_MAGIC >> 16) & 0xff;
		p[2] = (E2SR_JBD2_MAGIC >> 8) & 0xff;
		p[3] = E2SR_JBD2_MAGIC & 0xff;
	}
}

/* One copy, read on its own: for lookups in no particular order. */
errcode_t e2sr_journal_copy(struct e2sr_journal *j,
			    const struct e2sr_jreplay *r, void *buf)
{
	errcode_t err;

	err = e2sr_journal_read(j, r->jblock, 1, buf);
	if (!err)
		restore_escape(r, buf);
	return err;
}

/*
 * The same through the passes' read window, for a pass that takes its
 * copies in log order; it invalidates what e2sr_journal_block returned.
 */
errcode_t e2sr_journal_copy_pass(struct e2sr_journal *j,
				 const struct e2sr_jreplay *r, void *buf)
{
	const unsigned char *b;
	errcode_t err;

	err = e2sr_journal_block(j, r->jblock, &b);
	if (!err) {
		memcpy(buf, b, j->blocksize);
		restore_escape(r, buf);
	}
	return err;
}

/*
 * Write what recovery leaves and flush.  The journal still says it
 * needs recovery: a crash here leaves a log that replays to the same
 * result.  e2sr_journal_recover_finish() then marks it empty.
 */
errcode_t e2sr_journal_recover_write(struct e2sr_journal *j, io_channel fsio,
				     const struct e2sr_jrecovery *rec,
				     __u64 *bytes_written)
{
	unsigned char *buf;
	errcode_t err = 0;
	size_t i;

	*bytes_written = 0;
	err = ext2fs_get_mem(j->blocksize, &buf);
	if (err)
		return err;
	for (i = 0; i < rec->nblocks && !err; i++) {
		err = e2sr_journal_copy(j, &rec->blocks[i], buf);
		if (!err)
			err = io_channel_write_blk64(fsio,
						     rec->blocks[i].fs_block,
						     1, buf);
		if (!err)
			*bytes_written += j->blocksize;
	}
	ext2fs_free_mem(&buf);
	if (!err)
		err = io_channel_flush(fsio);
	return err;
}

/*
 * Mark the journal empty as e2fsck does: s_start 0, s_sequence one past
 * the end.  e2fsck keeps the old s_sequence when the replay pass failed
 * (a copy with a bad checksum), and moves past the log otherwise.  A
 * journal already empty (a run cut after this write) is left as it is,
 * so that the re-run ends where the first run would have.
 */
errcode_t e2sr_journal_recover_finish(struct e2sr_journal *j,
				      const struct e2sr_jrecovery *rec,
				      __u64 *bytes_written)
{
	errcode_t err;

	if (!j->jsb.start)
		return 0;
	err = e2sr_journal_write_sb(j, rec->tag_csum_bad ?
				    rec->start_seq : rec->end_seq + 1,
				    0, 0);
	if (!err)
		*bytes_written += j->blocksize;
	return err;
}

void e2sr_journal_recovery_free(struct e2sr_jrecovery *rec)
{
	if (!rec)
		return;
	ext2fs_free_mem(&rec->blocks);
	memset(rec, 0, sizeof(*rec));
}
