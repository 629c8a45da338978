/*
 * discover_owners.c --- what the journal may not show, and who wrote
 * since.
 *
 * Owns the windows: the transactions in which a file may have gained and
 * lost blocks no copy of its record shows (from the commits' times and
 * the versions' ctime and mtime), handed to unseen.c; and the owners'
 * accounting: every run a committed record or a whole fast commit shows
 * its owner wrote, with the transaction, indexed for the plan
 * (e2sr_owned_index()), then the windows marked less what owners wrote
 * after each; and the lives the last run kept of which no version is
 * left (e2sr_disc_take_kept()).  The versions and ranges themselves are
 * discover_ident.c's and discover_fc.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"
#include "discover_int.h"

static int cmp_commit_time(const void *a, const void *b)
{
	const struct commit_time *x = a, *y = b;

	return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

/* The walk's commits by transaction, for when_started(). */
errcode_t e2sr_disc_index_commits(struct discover *d)
{
	const struct e2sr_jwalk *w = &d->ctx->history.walk;
	size_t i;
	errcode_t err;

	if (!w->ncommits)
		return 0;
	err = ext2fs_get_array(w->ncommits, sizeof(*d->ct), &d->ct);
	if (err)
		return err;
	for (i = 0; i < w->ncommits; i++) {
		d->ct[i].sequence = w->commits[i].sequence;
		d->ct[i].sec = w->commits[i].commit_sec;
		d->ct[i].nsec = w->commits[i].commit_nsec;
	}
	d->nct = w->ncommits;
	qsort(d->ct, d->nct, sizeof(*d->ct), cmp_commit_time);
	return 0;
}

/*
 * A time before which transaction @tid had not started: the commit of
 * the newest transaction up to tid - 2.  jbd2 commits one transaction at
 * a time, and @tid starts only once tid - 1 stops taking changes, which
 * is after tid - 2's commit block is written.  0 if the log has none.
 * (Tids are taken as they are: a wrap of the 32-bit tid is years of
 * commits away.)
 */
static const struct commit_time *when_started(const struct discover *d,
					      __u32 tid)
{
	size_t lo = 0, hi = d->nct, mid;

	if (tid < 2)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->ct[mid].sequence <= tid - 2)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !d->ct[lo - 1].sec)
		return NULL;
	return &d->ct[lo - 1];
}

/* Whether a time (@sec, @nsec; @precise: nanoseconds known) is before @c. */
static int before(__u32 sec, __u32 nsec, int precise,
		  const struct commit_time *c)
{
	__u64 s = sec;

	if (!precise)
		return s + 1 <= c->sec;
	return s < c->sec || (s == c->sec && nsec < c->nsec);
}

struct window {
	__u32		sequence;
	__u8		fc;
	__u8		known;		/* the transaction is known */
	const struct iversion *iv;
};

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

/*
 * Whether a version says its file may have been written inside its own
 * transaction: it changed (ctime) after the transaction began, and was
 * written then (its mtime differs from the version before it; a time
 * set back by utimes still moves ctime).
 */
static int written_in(const struct discover *d, const struct window *w,
		      const struct window *prev)
{
	const struct iversion *v = w->iv, *p;
	const struct commit_time *c = when_started(d, w->sequence);

	if (c && before(v->ctime, v->ctime_nsec, v->precise, c))
		return 0;
	if (!prev)
		return 1;
	p = prev->iv;
	return !(p->precise && v->precise && p->mtime == v->mtime &&
		 p->mtime_nsec == v->mtime_nsec);
}

/*
 * The first committed copy of @ino's inode table block after transaction
 * @newest, at which its life was there: into @tid, @sure as ended_in()
 * says.  0 when there is none.
 */
static int ended_after(const struct discover *d, ext2_ino_t ino,
		       __u32 newest, __u32 *tid, int *sure)
{
	const struct e2sr_version *v;
	size_t i, count;
	int found = 0;
	blk64_t blk;

	blk = e2sr_disc_itable_block(d->ctx->fs, ino);
	if (!blk)
		return 0;
	v = e2sr_history_versions(&d->ctx->history, blk, &count);
	for (i = 0; v && i < count; i++) {
		if (v[i].kind != E2SR_JK_ITABLE || !v[i].committed ||
		    ino < v[i].ino || ino - v[i].ino >= v[i].ino_count ||
		    tid_le(v[i].sequence, newest))
			continue;
		if (!found || (__s32)(v[i].sequence - *tid) < 0) {
			*tid = v[i].sequence;
			*sure = v[i].verified;
		} else if (v[i].sequence == *tid && !v[i].verified) {
			*sure = 0;
		}
		found = 1;
	}
	return found;
}

/*
 * The transaction a life ended in when its record went to another file:
 * that of the first committed copy of its inode table block after its
 * newest version, a record changing only in a handle that logs its
 * block.  What it gained after that version, and lost with the record,
 * is named by no version of its own, nor is that transaction a window of
 * the record's next owner unless that one is a secure-delete file too.
 * Returns 0 when there is no such copy (the newest version is the newest
 * copy of the block) or no full commit's version.  @sure is 0 when that
 * copy failed its checksum: the life may have gone on in it, and ended
 * later.  A life already deleted at its newest version gets one window
 * more than it needs: free blocks wiped, never a live one.
 */
static int ended_in(const struct discover *d, size_t first, size_t end,
		    __u32 *tid, int *sure)
{
	__u32 newest = 0;
	size_t i;
	int have = 0;

	for (i = first; i < end; i++) {
		if (d->v[i].fc)
			continue;
		if (!have || tid_le(newest, d->v[i].sequence))
			newest = d->v[i].sequence;
		have = 1;
	}
	return have && ended_after(d, d->v[first].ino, newest, tid, sure);
}

/*
 * Transaction @tid as a window: the blocks it may have given a file and
 * taken back are accounted for from its bitmap copies (unseen.c), or
 * @whole is cleared when they cannot be.
 */
static errcode_t add_window(struct discover *d, __u32 tid, int *whole)
{
	int proven;
	errcode_t err;

	err = e2sr_unseen_whole(d->ctx, &d->unseen, tid, &proven);
	if (!err)
		err = e2sr_array_room(&d->wins, &d->awins, d->nwins + 1,
				      sizeof(*d->wins));
	if (err)
		return err;
	d->wins[d->nwins++] = tid;
	if (!proven)
		*whole = 0;
	return 0;
}

/*
 * Blocks a file gained and lost inside one transaction are in no copy of
 * its record: only in that transaction's fast commits, if it fsync'ed
 * them.  The fast-commit area holds the newest series whole (the
 * transaction its head names) and nothing of later transactions, which
 * had no fast commit; any older transaction's may be gone.  So for each
 * transaction before the head's in which a version says the file was
 * written (and for a fast commit's raw inode whose transaction is not
 * known), the blocks it may have had are accounted for from that
 * transaction's bitmap copies (unseen.c, once every identity has said
 * which); where they cannot be, the map may be incomplete, and a deleted
 * file's loss is said.
 */
errcode_t e2sr_disc_check_unseen(struct discover *d, size_t first, size_t end,
				 size_t idx)
{
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	struct window *w = NULL;
	const struct window *prev = NULL;
	size_t i, n = 0;
	__u32 tid = 0;
	int sure = 0, whole = 1;
	errcode_t err = 0;

	if (!d->fc_used || file->state == E2SR_STATE_ORPHAN ||
	    file->state == E2SR_STATE_UNCLEAR)
		return 0;
	/*
	 * A directory in use never gives a block back (ext4 does not
	 * shrink directories): what it gained it still has.  But a file
	 * made in it takes its flag (EXT4_FL_INHERITED, fs/ext4/ext4.h),
	 * and one made, fsync'ed and removed in a transaction, its inode
	 * given to another file before the full commit, is in no copy:
	 * only the fast commits since written over named it.  The
	 * transactions in which the directory's entries changed are the
	 * windows such a file may have lived in, as for a file written in
	 * them.  Where one cannot be accounted for (its bitmap copies fail
	 * their tags, or it never committed), what such a file had may
	 * remain: a loss of the directory's, E2SR_MAP_UNPROVEN, as a
	 * deleted file's map is (exit bit 4, --all-free-if-lost).
	 */
	err = ext2fs_get_array(end - first, sizeof(*w), &w);
	if (err)
		return err;
	for (i = first; i < end; i++) {
		w[n].iv = &d->v[i];
		w[n].fc = d->v[i].fc;
		w[n].known = !d->v[i].fc || d->v[i].fc_whole;
		w[n].sequence = d->v[i].fc ? d->v[i].fc_tid :
				d->v[i].sequence;
		n++;
	}
	qsort(w, n, sizeof(*w), cmp_window);
	for (i = 0; i < n; i++) {
		if (!w[i].known) {
			whole = 0;
			continue;
		}
		if (w[i].fc) {
			/* A raw inode of its own says nothing of the time. */
			if (d->fc_has_head && w[i].sequence == d->fc_head)
				continue;
		} else {
			if (!written_in(d, &w[i], prev)) {
				prev = &w[i];
				continue;
			}
			prev = &w[i];
		}
		/* The head's series is whole; later ones had none. */
		if (d->fc_has_head &&
		    (__s32)(w[i].sequence - d->fc_head) >= 0)
			continue;
		err = add_window(d, w[i].sequence, &whole);
		if (err)
			goto out;
	}
	/* The transaction that gave its record to another file, as above. */
	if ((file->state == E2SR_STATE_DELETED ||
	     file->state == E2SR_STATE_HISTORIC) &&
	    ended_in(d, first, end, &tid, &sure)) {
		if (!sure)
			whole = 0;
		else if (!d->fc_has_head ||
			 (__s32)(tid - d->fc_head) < 0)
			err = add_window(d, tid, &whole);
		if (err)
			goto out;
	}
	if (!whole && (file->state == E2SR_STATE_DELETED ||
		       file->state == E2SR_STATE_HISTORIC)) {
		file->map_status |= E2SR_MAP_DAMAGED;
		if (!file->map_error)
			file->map_error = E2SR_ERR_MAP_UNPROVEN;
	} else if (!whole && file->state == E2SR_STATE_LIVE) {
		/*
		 * A file in use keeps its map, but not what it gained and
		 * lost in a window (truncated, punched), nor, for a
		 * directory, the files made in it then: a loss all the
		 * same, that only a wipe of all free space answers.
		 */
		file->map_status |= E2SR_MAP_UNPROVEN;
	}
out:
	ext2fs_free_mem(&w);
	return err;
}

/*
 * A life the last run saw live and kept (kept_maps.c), of which no copy
 * is left: that run wiped the older ones, and the life ended, its record
 * going to another file, in the first transaction after that run to log
 * its table block.  What it gained and lost there (written, fsync'ed,
 * deleted) only that transaction's fast commits named, as for a life
 * whose versions end in it (ended_in()): the same window.  Where it
 * cannot be had, the map may be incomplete.
 */
static errcode_t check_kept_end(struct discover *d, size_t idx, __u32 seen)
{
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	__u32 tid = 0;
	int sure = 0, whole = 1;
	errcode_t err = 0;

	if (!d->fc_used)
		return 0;
	if (!ended_after(d, file->ino, seen, &tid, &sure) || !sure)
		whole = 0;
	else if (!d->fc_has_head || (__s32)(tid - d->fc_head) < 0)
		err = add_window(d, tid, &whole);
	if (!err && !whole) {
		file->map_status |= E2SR_MAP_DAMAGED;
		if (!file->map_error)
			file->map_error = E2SR_ERR_MAP_UNPROVEN;
	}
	return err;
}

/*
 * The lives the last run saw live and kept (kept_maps.c) that no version
 * shows: that run wiped the copies of their records, and one deleted with
 * its inode given to another file in the same transaction left none
 * since.  Each that has ended (its inode another generation's now, or
 * free) is a historic identity, so that the kept map gives its blocks
 * back, and, with fast commits, the transaction it ended in is a window
 * (check_kept_end()): what it gained there no copy shows either.
 * Without this the run said nothing of it, its freed blocks unwiped.
 */
errcode_t e2sr_disc_take_kept(struct discover *d)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	const struct e2sr_since_state *p = &ctx->since.prev;
	const struct e2sr_kept *k;
	struct e2sr_file *file;
	size_t i;
	errcode_t err;

	if (!ctx->since.have_prev || !p->kept_count ||
	    !ctx->coverage.have_prev || ctx->coverage.prev_mismatch)
		return 0;
	/* Identities discovery added are looked up too. */
	ext2fs_free_mem(&d->files);
	d->files = NULL;
	d->nfiles = 0;
	err = e2sr_disc_index_files(d);
	for (i = 0; !err && i < p->kept_count; i++) {
		k = &p->kept[i];
		if (k->ino < EXT2_FIRST_INODE(fs->super) ||
		    k->ino > fs->super->s_inodes_count ||
		    e2sr_disc_find_file(d, k->ino, k->generation) >= 0)
			continue;
		/* The same life, in use: its flag taken off, not ended. */
		if (!e2sr_disc_read_live(d, k->ino) &&
		    d->live->i_generation == k->generation &&
		    ext2fs_test_inode_bitmap2(fs->inode_map, k->ino))
			continue;
		err = e2sr_inventory_add(&ctx->inv, &file);
		if (err)
			break;
		file->ino = k->ino;
		file->generation = k->generation;
		file->state = E2SR_STATE_HISTORIC;
		err = check_kept_end(d, ctx->inv.count - 1,
				     ctx->coverage.prev.tid);
	}
	return err;
}

/* Whether transaction @tid has a commit in the log. */
static int committed(const struct discover *d, __u32 tid)
{
	struct commit_time key;

	key.sequence = tid;
	return d->nct && bsearch(&key, d->ct, d->nct, sizeof(*d->ct),
				 cmp_commit_time) != NULL;
}

struct owned_list {
	struct e2sr_owned	*v;
	size_t			n;
	size_t			alloc;
	blk64_t			first;	/* of the filesystem: [first, end) */
	blk64_t			end;
	/* Only runs over these blocks matter (NULL: all of them). */
	ext2fs_block_bitmap	interest;
};

/*
 * Block 0 is no run: it is what a record without an EA block, or an
 * indirect map's unused pointer, says (and on 1 KiB blocks it is before
 * the first).  Every such record added it once: 1.4 million times on the
 * scale image, half the list.
 */
static errcode_t add_owned(struct owned_list *o, blk64_t pblk, __u32 len,
			   __u32 tid)
{
	errcode_t err;

	if (!pblk || !len || pblk < o->first || pblk >= o->end ||
	    len > o->end - pblk)
		return 0;
	if (o->interest &&
	    ext2fs_test_block_bitmap_range2(o->interest, pblk, len))
		return 0;	/* none of them is a block in question */
	err = e2sr_array_room(&o->v, &o->alloc, o->n + 1, sizeof(*o->v));
	if (err)
		return err;
	o->v[o->n].pblk = pblk;
	o->v[o->n].len = len;
	o->v[o->n].tid = tid;
	o->n++;
	return 0;
}

/* e2sr_inode_runs()' callback: a run of a record, to the list. */
struct record_runs {
	struct owned_list	*o;
	__u32			tid;
	errcode_t		err;
};

static int record_run(void *priv, blk64_t pblk, __u32 len)
{
	struct record_runs *r = priv;

	r->err = add_owned(r->o, pblk, len, r->tid);
	return r->err ? E2SR_RUNS_ABORT : 0;
}

/* What one record maps that needs no other block to read (inode_runs.c). */
static errcode_t record_owned(struct discover *d, struct owned_list *o,
			      const struct ext2_inode_large *in, __u32 tid)
{
	struct record_runs r;

	r.o = o;
	r.tid = tid;
	r.err = 0;
	e2sr_inode_runs(d->ctx->fs, in, record_run, &r);
	return r.err;
}

/*
 * Every run a committed copy of some record, or a whole fast commit,
 * shows its owner wrote, with the transaction: what proves a block the
 * window of an older transaction marks is someone else's since.  Only
 * asked for when some window is to be marked.  Every question asked of
 * the runs is of a block free now (unseen.c, plan.c), so only records
 * the walk saw naming a free block are read again (history.c), and only
 * their copies are read.
 */
static errcode_t collect_owned(struct discover *d, struct owned_list *o)
{
	const struct e2sr_history *h = &d->ctx->history;
	struct e2sr_journal *j = d->ctx->journal;
	ext2_filsys fs = d->ctx->fs;
	struct e2sr_irec c;
	size_t i, cur = 0;
	__u8 *want = NULL;
	__u32 last = 0;
	int have = 0;
	errcode_t err = 0;

	o->first = fs->super->s_first_data_block;
	o->end = ext2fs_blocks_count(fs->super);
	if (j && h->nrecs) {
		err = ext2fs_get_memzero(j->nblocks / 8 + 1, &want);
		if (err)
			return err;
		for (i = 0; i < h->nrecs; i++) {
			if (!(h->rec_slot[i] & E2SR_IREC_FREEMAP))
				continue;
			e2sr_history_rec(h, i, &cur, &c);
			if (c.jblock < j->nblocks)
				want[c.jblock >> 3] |= 1 << (c.jblock & 7);
		}
		e2sr_journal_want(j, want, 0, j->nblocks);
		cur = 0;
	}
	for (i = 0; i < h->nrecs && !err; i++) {
		if (e2sr_cancelled(d->ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		if (!(h->rec_slot[i] & E2SR_IREC_FREEMAP))
			continue;
		e2sr_history_rec(h, i, &cur, &c);
		if (!committed(d, c.sequence))
			continue;
		if (!have || c.jblock != last) {
			err = e2sr_disc_read_copy(d, c.jblock, c.escaped, 1);
			if (err)
				break;
			last = c.jblock;
			have = 1;
		}
		if (e2sr_disc_load_record(d, c.ino, c.offset, 0))
			continue;
		err = record_owned(d, o, d->inode, c.sequence);
	}
	if (want) {
		e2sr_journal_want(j, NULL, 0, 0);
		ext2fs_free_mem(&want);
	}
	for (i = 0; i < d->nr && !err; i++)
		if (d->r[i].kind == E2SR_EXT_DATA)
			err = add_owned(o, d->r[i].pblk, d->r[i].len,
					d->r[i].tid);
	return err;
}

/*
 * The blocks of historic maps free now, which the plan may wipe: only
 * runs over them are kept when no window asks for more, so that what is
 * kept grows with the secure-delete files' maps, not with the log.
 * @any: whether there is one.
 */
static errcode_t historic_free(struct discover *d, ext2fs_block_bitmap *set,
			       int *any)
{
	const struct e2sr_inventory *inv = &d->ctx->inv;
	const struct e2sr_extent *e;
	size_t i, j;
	errcode_t err;

	*any = 0;
	*set = NULL;
	for (i = 0; i < inv->count; i++) {
		for (j = 0; j < inv->files[i].map_count; j++) {
			e = &inv->files[i].map[j];
			if (!e->historic || !e->nfree)
				continue;
			if (!*set) {
				err = ext2fs_allocate_block_bitmap(d->ctx->fs,
						"freed historic blocks", set);
				if (err)
					return err;
			}
			ext2fs_mark_block_bitmap_range2(*set, e->pblk, e->len);
			*any = 1;
		}
	}
	return 0;
}

/*
 * What owners wrote, and when: indexed by block with the newest
 * transaction (the plan keeps it: a historic map's freed block that an
 * owner wrote after the map's transaction), then the windows the
 * identities asked for are marked, less what the index shows written
 * after each.
 */
errcode_t e2sr_disc_account_owners(struct discover *d)
{
	struct owned_list o;
	ext2fs_block_bitmap set;
	int any;
	errcode_t err;

	memset(&o, 0, sizeof(o));
	err = historic_free(d, &set, &any);
	if (err || (!d->nwins && !any))
		goto out;
	/* A window's blocks are any free block of its groups: all runs. */
	o.interest = d->nwins ? NULL : set;
	err = collect_owned(d, &o);
	if (!err)
		err = e2sr_owned_index(d->ctx, o.v, o.n);
	ext2fs_free_mem(&o.v);
	if (!err)
		err = e2sr_unseen_mark(d->ctx, &d->unseen, d->wins,
				       d->nwins);
out:
	ext2fs_free_mem(&o.v);
	if (set)
		ext2fs_free_block_bitmap(set);
	return err;
}
