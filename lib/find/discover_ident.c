/*
 * discover_ident.c --- the identities the journal remembers, and their
 * lives.
 *
 * Owns collecting every version of every record that may matter (from
 * the walk's first look at inode table copies, and from the fast-commit
 * area through discover_fc.c), the secure-delete lives (creation time,
 * or an unchanged map across a new generation), and taking one identity:
 * whether it is a secure-delete file, which inventory file it joins or
 * adds, whether its empty map is proven.  Reading its maps is
 * discover_map.c's, the windows it may have been written in unseen are
 * discover_owners.c's.
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

static int cmp_identity(const void *a, const void *b)
{
	const struct iversion *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->map_crc != y->map_crc)
		return x->map_crc < y->map_crc ? -1 : 1;
	return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

/* A record of an inode table copy, as the first look at it saw it. */
struct ident {
	ext2_ino_t	ino;
	__u32		generation;
};

static int cmp_ident(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->generation < y->generation ? -1 :
	       x->generation > y->generation;
}

/*
 * Every record of every verified inode table copy that may matter.  The
 * walk listed each used record by number, generation and flags alone;
 * most are of files that never carried the flag: only the identities
 * that did (in some version), the inventory's and EA inodes are read
 * whole and checked.
 */
errcode_t e2sr_disc_collect_versions(struct discover *d)
{
	const struct e2sr_history *h = &d->ctx->history;
	struct e2sr_irec c;
	struct e2sr_journal *j = d->ctx->journal;
	struct ident *ids = NULL, key;
	struct e2sr_ino_set maybe;
	__u8 *matters = NULL, *want = NULL;
	struct iversion iv;
	size_t i, n = h->nrecs, nids = 0, cur = 0;
	__u32 last = 0;
	int have = 0;
	errcode_t err = 0;

	/* The walk took the first look (history.c): flagged or not. */
	for (i = 0; i < n; i++)
		nids += !!(h->rec_slot[i] & E2SR_IREC_FLAGGED);
	if (nids) {
		err = ext2fs_get_array(nids, sizeof(*ids), &ids);
		if (err)
			return err;
	}
	for (i = 0, nids = 0; i < n; i++) {
		if (!(h->rec_slot[i] & E2SR_IREC_FLAGGED))
			continue;
		e2sr_history_rec(h, i, &cur, &c);
		ids[nids].ino = c.ino;
		ids[nids++].generation = c.generation;
	}
	if (nids)
		qsort(ids, nids, sizeof(*ids), cmp_ident);
	/*
	 * The numbers of both, as a set: most records are of neither, and
	 * a bit (or a filter) says so before two binary searches would.
	 */
	err = e2sr_ino_set_init(&maybe, nids + d->nfiles);
	if (err)
		goto out;
	for (i = 0; i < nids; i++)
		e2sr_ino_set_add(&maybe, ids[i].ino, 0);
	for (i = 0; i < d->nfiles; i++)
		e2sr_ino_set_add(&maybe, d->files[i].ino, 0);
	e2sr_ino_set_done(&maybe);
	/* Which records matter, and so which copies the pass reads. */
	err = ext2fs_get_memzero(n / 8 + 1, &matters);
	if (!err && j)
		err = ext2fs_get_memzero(j->nblocks / 8 + 1, &want);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		e2sr_history_rec(h, i, &cur, &c);
		key.ino = c.ino;
		key.generation = c.generation;
		/*
		 * Other generations of those numbers too: one made at the
		 * same time is the same file (e2sr_disc_collect_lives()).
		 */
		if (!c.flagged && !e2sr_ino_set_has(&maybe, key.ino))
			continue;
		matters[i >> 3] |= 1 << (i & 7);
		if (want && c.jblock < j->nblocks)
			want[c.jblock >> 3] |= 1 << (c.jblock & 7);
	}
	if (want)
		e2sr_journal_want(j, want, 0, j->nblocks);
	/* In log order: the copies are read through a forward window. */
	for (i = 0; i < n; i++) {
		if (e2sr_cancelled(d->ctx)) {
			err = E2SR_ERR_CANCELLED;
			goto out;
		}
		if (!(matters[i >> 3] & (1 << (i & 7))))
			continue;
		e2sr_history_rec(h, i, &cur, &c);
		if (!have || c.jblock != last) {
			err = e2sr_disc_read_copy(d, c.jblock, c.escaped, 1);
			if (err)
				goto out;
			last = c.jblock;
			have = 1;
		}
		if (e2sr_disc_load_record(d, c.ino, c.offset, 0))
			continue;
		memset(&iv, 0, sizeof(iv));
		iv.ino = c.ino;
		iv.generation = d->inode->i_generation;
		iv.sequence = c.sequence;
		iv.jblock = c.jblock;
		iv.offset = c.offset;
		iv.escaped = c.escaped;
		iv.secrm = !!(d->inode->i_flags & EXT2_SECRM_FL);
		iv.map_crc = e2sr_disc_map_crc(d->inode);
		e2sr_disc_note_times(d, &iv, 0);
		err = e2sr_disc_add_version(d, &iv);
		if (err)
			goto out;
	}
	if (want)
		e2sr_journal_want(j, NULL, 0, 0);
	err = e2sr_disc_collect_fc_versions(d);
	if (!err && d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_identity);
out:
	if (want)
		e2sr_journal_want(j, NULL, 0, 0);
	ext2fs_free_mem(&want);
	ext2fs_free_mem(&matters);
	e2sr_ino_set_free(&maybe);
	ext2fs_free_mem(&ids);
	return err;
}

static int cmp_life(const void *a, const void *b)
{
	const struct life *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->crtime != y->crtime)
		return x->crtime < y->crtime ? -1 : 1;
	return x->crtime_nsec < y->crtime_nsec ? -1 :
	       x->crtime_nsec > y->crtime_nsec;
}

static errcode_t add_life(struct discover *d, ext2_ino_t ino, __u32 sec,
			  __u32 nsec, long idx)
{
	errcode_t err;

	if (!sec)
		return 0;
	err = e2sr_array_room(&d->lives, &d->alives, d->nlives + 1,
			      sizeof(*d->lives));
	if (err)
		return err;
	d->lives[d->nlives].ino = ino;
	d->lives[d->nlives].crtime = sec;
	d->lives[d->nlives].crtime_nsec = nsec;
	d->lives[d->nlives].idx = idx;
	d->nlives++;
	return 0;
}

/*
 * Every secure-delete life that says when it was made: the versions that
 * carry the flag, and the inventory's records (files that carry it now,
 * or did when deleted).  A version of another generation made at the
 * same time is the same file: a flag set late, after `chattr -v`, makes
 * its earlier residue secure-delete too.
 */
errcode_t e2sr_disc_collect_lives(struct discover *d)
{
	struct e2sr_inventory *inv = &d->ctx->inv;
	unsigned int isz = EXT2_INODE_SIZE(d->ctx->fs->super);
	__u32 sec, nsec;
	size_t i;
	errcode_t err;

	for (i = 0; i < d->n; i++) {
		if (!d->v[i].secrm)
			continue;
		err = add_life(d, d->v[i].ino, d->v[i].crtime,
			       d->v[i].crtime_nsec, -1);
		if (err)
			return err;
	}
	for (i = 0; i < inv->count; i++) {
		if (inv->files[i].state != E2SR_STATE_LIVE &&
		    inv->files[i].state != E2SR_STATE_DELETED)
			continue;
		if (e2sr_disc_read_live(d, inv->files[i].ino))
			continue;
		e2sr_disc_record_crtime(d->live, isz, 0, &sec, &nsec);
		err = add_life(d, inv->files[i].ino, sec, nsec, (long)i);
		if (err)
			return err;
	}
	if (d->nlives)
		qsort(d->lives, d->nlives, sizeof(*d->lives), cmp_life);
	return 0;
}

/*
 * Whether a version of [first, end) is of a secure-delete life: @idx is
 * then the inventory's file of that life (the same file under its
 * generation now), or -1.  The inventory's own come first in the sort
 * only by chance: any one of equal lives will do, so the first with an
 * inventory file is taken.
 */
static int of_secrm_life(const struct discover *d, size_t first, size_t end,
			 long *idx)
{
	const struct life *l;
	struct life key;
	size_t i;

	*idx = -1;
	for (i = first; d->nlives && i < end; i++) {
		if (!d->v[i].crtime)
			continue;
		key.ino = d->v[i].ino;
		key.crtime = d->v[i].crtime;
		key.crtime_nsec = d->v[i].crtime_nsec;
		l = bsearch(&key, d->lives, d->nlives, sizeof(*d->lives),
			    cmp_life);
		if (!l)
			continue;
		while (l > d->lives && !cmp_life(l - 1, &key))
			l--;
		for (; l < d->lives + d->nlives && !cmp_life(l, &key); l++)
			if (l->idx >= 0) {
				*idx = l->idx;
				break;
			}
		return 1;
	}
	return 0;
}

/* Transaction IDs wrap: a is before b. */
static int tid_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* Of versions [first, end), the full commits' oldest and newest. */
static int seq_span(const struct discover *d, size_t first, size_t end,
		    size_t *old, size_t *young)
{
	size_t i;
	int any = 0;

	for (i = first; i < end; i++) {
		if (d->v[i].fc)
			continue;	/* its transaction may be unknown */
		if (!any || tid_before(d->v[i].sequence,
				       d->v[*old].sequence))
			*old = i;
		if (!any || tid_before(d->v[*young].sequence,
				       d->v[i].sequence))
			*young = i;
		any = 1;
	}
	return any;
}

/* Whether versions @a and @b map the same, and something. */
static int same_shape(const struct iversion *a, const struct iversion *b)
{
	return !a->empty && !b->empty && a->shape == b->shape;
}

/*
 * Without a creation time (128-byte records), another generation of a
 * secure-delete file is that file when the record says nothing else
 * changed across the new generation: the newest version before it and
 * the oldest after it map the same blocks, bytes and EA block, and map
 * something.  `chattr -v` changes the generation alone; a new file on a
 * freed number starts with nothing mapped, or with other blocks.  The
 * record on disk counts as the newest version of its generation.
 */
static int shape_life(struct discover *d, size_t first, size_t end,
		      long *idx)
{
	ext2_ino_t ino = d->v[first].ino;
	__u32 gen = d->v[first].generation;
	size_t lo = first, hi = end, g, gend, a0, a1, b0, b1;
	struct iversion disk;
	long f;

	*idx = -1;
	for (g = first; g < end; g++)
		if (d->v[g].crtime)
			return 0;	/* of_secrm_life() judges */
	if (!seq_span(d, first, end, &a0, &a1))
		return 0;
	while (lo > 0 && d->v[lo - 1].ino == ino)
		lo--;
	while (hi < d->n && d->v[hi].ino == ino)
		hi++;
	for (g = lo; g < hi; g = gend) {
		for (gend = g + 1; gend < hi &&
		     d->v[gend].generation == d->v[g].generation; gend++)
			;
		if (d->v[g].generation == gen ||
		    !seq_span(d, g, gend, &b0, &b1))
			continue;
		f = e2sr_disc_find_file(d, ino, d->v[g].generation);
		if (f < 0) {
			size_t k;
			int secrm = 0;

			for (k = g; k < gend; k++)
				secrm |= d->v[k].secrm;
			if (!secrm)
				continue;
		}
		if ((tid_before(d->v[a1].sequence, d->v[b0].sequence) &&
		     same_shape(&d->v[a1], &d->v[b0])) ||
		    (tid_before(d->v[b1].sequence, d->v[a0].sequence) &&
		     same_shape(&d->v[b1], &d->v[a0]))) {
			*idx = f;
			return 1;
		}
	}
	/* The record on disk, of a secure-delete file under another. */
	if (e2sr_disc_read_live(d, ino) || d->live->i_generation == gen)
		return 0;
	f = e2sr_disc_find_file(d, ino, d->live->i_generation);
	if (f < 0 || d->ctx->inv.files[f].state == E2SR_STATE_HISTORIC)
		return 0;
	for (g = lo; g < hi; g++)
		if (!d->v[g].fc && tid_before(d->v[a1].sequence,
					      d->v[g].sequence))
			return 0;	/* not the newest before it */
	disk.shape = e2sr_disc_shape_crc(d->live);
	disk.empty = e2sr_disc_shape_empty(d->live);
	if (!same_shape(&d->v[a1], &disk))
		return 0;
	*idx = f;
	return 1;
}

/*
 * @gen of @ino is the inventory file @idx under another generation: the
 * journal plan reads its copies as that file's (plan_journal.c).
 */
static errcode_t note_joined(struct e2sr_ctx *ctx, ext2_ino_t ino, __u32 gen,
			     long idx)
{
	struct e2sr_inventory *inv = &ctx->inv;
	struct e2sr_gen *g;

	if (idx < 0 || inv->files[idx].generation == gen)
		return 0;
	if (e2sr_array_room(&inv->joined, &inv->joined_alloc,
			    inv->joined_count + 1, sizeof(*inv->joined)))
		return EXT2_ET_NO_MEMORY;
	g = &inv->joined[inv->joined_count++];
	g->ino = ino;
	g->generation = gen;
	return 0;
}

/*
 * An identity that is secure-delete only in the journal: the record is
 * free without the flag, or belongs to another file (new generation),
 * or to this file with the flag since removed, or to this file under an
 * earlier generation (the same creation time).
 */
static errcode_t add_identity(struct e2sr_ctx *ctx, const struct iversion *iv,
			      long *idx)
{
	__u32 sec, nsec;
	ext2_filsys fs = ctx->fs;
	struct ext2_inode_large *live;
	struct e2sr_file *file;
	int isz = EXT2_INODE_SIZE(fs->super);
	errcode_t err;

	err = e2sr_inventory_add(&ctx->inv, &file);
	if (err)
		return err;
	*idx = (long)(ctx->inv.count - 1);
	file->ino = iv->ino;
	file->generation = iv->generation;
	file->state = E2SR_STATE_HISTORIC;

	err = ext2fs_get_memzero(isz > (int)sizeof(*live) ? isz :
				 (int)sizeof(*live), &live);
	if (err)
		return err;
	err = ext2fs_read_inode_full(fs, iv->ino, (struct ext2_inode *)live,
				     isz);
	if (err == EXT2_ET_INODE_CSUM_INVALID)
		err = 0;
	if (!err)
		e2sr_disc_record_crtime(live, isz, 0, &sec, &nsec);
	if (!err && (live->i_generation == iv->generation ||
		     (sec && sec == iv->crtime && nsec == iv->crtime_nsec)) &&
	    ext2fs_test_inode_bitmap2(fs->inode_map, iv->ino) &&
	    live->i_links_count) {
		/* The same file, alive, flag removed: its map is not ours. */
		file->state = E2SR_STATE_LIVE;
		file->mode = live->i_mode;
		file->links = live->i_links_count;
		file->flags = live->i_flags;
		file->size = EXT2_I_SIZE(live);
		err = e2sr_file_map(ctx, file, live);
	}
	ext2fs_free_mem(&live);
	return err;
}

/*
 * How far after a commit's time a creation time must be to prove the
 * file was made after the commit was stamped, in nanoseconds.  jbd2
 * stamps a commit from the coarse real-time clock, which lags the real
 * time by up to a tick (10 ms at HZ=100, the slowest); a creation time
 * is the coarse clock too, or since 6.13's multigrain stamps a time no
 * later than the real one, so a file made before the commit's stamp has
 * one less than a tick after it.  Two ticks at the slowest: a run, a
 * mount and a create take some tens of milliseconds on a small image.
 */
#define CRTIME_MARGIN_NS	20000000U

/* Whether @sec.@nsec is later than the commit @prev kept, by the margin. */
static int after_commit(const struct e2sr_cover_prev *prev, __u32 sec,
			__u32 nsec)
{
	__u64 t;

	if (!prev->have_nsec)
		return sec > prev->tid_time;	/* a state of whole seconds */
	/*
	 * In seconds first: the state keeps the commit block's time as it
	 * is, and one debugfs wrote says 7.7e18 seconds, which counted in
	 * nanoseconds would wrap.  Within a second of it, the nanoseconds.
	 */
	if (sec < prev->tid_time)
		return 0;
	if (sec - prev->tid_time > 1)
		return 1;
	t = (sec - prev->tid_time) * 1000000000ULL + nsec;
	return t > prev->tid_nsec && t - prev->tid_nsec > CRTIME_MARGIN_NS;
}

/*
 * Whether the life of versions [first, end) was made after the previous
 * run: its creation time is later than the newest commit that run saw
 * (the kernel stamps both from one clock; the state keeps that commit's
 * time, to the nanosecond since the state has tid_nsec, by the margin
 * above) and not before the run ended (its state's time, in seconds).
 * Before the nanoseconds, a file made in the second of that commit (a
 * run, a mount and a churn within one second) was reported as a lost
 * map.  A life made in fast commits the kernel or that run replayed
 * before the run has a creation time after that commit but before the
 * run: the second test keeps it out, unless that run ended within the
 * second the life was made.  No version may be from a transaction that
 * run saw, or the clock is not to be trusted.  A record without a
 * creation time proves nothing.
 */
static int made_after_prev(const struct discover *d, size_t first,
			   size_t end)
{
	const struct e2sr_cover_prev *prev = &d->ctx->coverage.prev;
	__u32 sec = 0, nsec = 0;
	size_t i;

	if (!prev->tid_time || !prev->run_time)
		return 0;
	for (i = first; i < end; i++) {
		if (!d->v[i].fc && tid_le(d->v[i].sequence, prev->tid))
			return 0;
		if (d->v[i].fc && d->v[i].fc_whole &&
		    tid_le(d->v[i].fc_tid, prev->tid))
			return 0;
		if (!d->v[i].crtime)
			continue;
		if (!sec || d->v[i].crtime < sec ||
		    (d->v[i].crtime == sec && d->v[i].crtime_nsec < nsec)) {
			sec = d->v[i].crtime;
			nsec = d->v[i].crtime_nsec;
		}
	}
	return sec && after_commit(prev, sec, nsec) && sec >= prev->run_time;
}

/*
 * Whether the identity of versions [first, end), none of which shows a
 * block map, is accounted for: the readable history (coverage.c) holds
 * its whole life, or the previous run saw all of it.
 *  - The journal reaches back to its own creation, or a readable copy of
 *    the inode's table block from before every version of it holds
 *    another record (or none while the inode bitmap says free) in its
 *    place: every transaction since is readable, and each change of the
 *    record logged its block, so a map it had would be in some version
 *  - unless a run wiped it: a copy since then whose slot reads as no
 *    record while the inode was in use held one a run scrubbed (a live
 *    secure-delete file's copies are wiped; its unlink then leaves a
 *    record with no map).  Only the state's kept maps know those blocks.
 *  - Every version is from a transaction the previous run saw: that run
 *    saw these and maybe more (its own journal wipe, cut short, may have
 *    taken the rest, after the blocks they mapped), and its state is only
 *    written when it left no lost map unanswered.
 *  - With the history back to the previous run, the life was made after
 *    that run (made_after_prev()): every transaction it lived in is
 *    readable, as from the journal's creation, and is taken as that is
 *    (with or without fast commits: the gap between two commits below is
 *    the same).
 *    Its first version may be the first copy of its block since the run
 *    (that run's journal wipe took the older ones), which the test above
 *    cannot use; without this, a file made empty in a +s directory,
 *    committed, and deleted under a new file of the same number was
 *    reported every night as a lost map it never had.
 * What the journal cannot show either way: blocks allocated, written and
 * freed between two commits; with fast commits, the windows of
 * discover_owners.c account for them (the one it ended in too).  A run
 * zeroes the parts of copies it wipes whatever the method
 * (wipe_journal.c): a wiped slot never reads as another's record.
 */
static errcode_t born_in_view(struct discover *d, size_t first, size_t end,
			      int *born)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	const struct e2sr_coverage *cov = &ctx->coverage;
	const struct e2sr_version *v;
	ext2_ino_t ino = d->v[first].ino;
	__u32 gen = d->v[first].generation, seq = 0, last = 0, before = 0;
	int have_seq = 0, seen, have_before, from_start, used;
	size_t i, count;
	blk64_t blk;
	errcode_t err;

	*born = 0;
	seen = cov->have_prev;
	for (i = first; i < end; i++) {
		if (d->v[i].len) {
			seen = 0;	/* fast commit: after every full one */
			continue;
		}
		if (!have_seq || tid_le(d->v[i].sequence, seq))
			seq = d->v[i].sequence;
		if (!have_seq || tid_le(last, d->v[i].sequence))
			last = d->v[i].sequence;
		have_seq = 1;
		if (!tid_le(d->v[i].sequence, cov->prev.tid))
			seen = 0;
	}
	if (seen) {
		*born = 1;
		return 0;
	}
	/*
	 * Before every version: the filesystem's creation, or the newest
	 * transaction the previous run saw for a life made after it.
	 */
	from_start = cov->how == E2SR_COVER_CREATION;
	have_before = from_start;
	if (!have_before && cov->how == E2SR_COVER_PREVIOUS &&
	    made_after_prev(d, first, end)) {
		before = cov->prev.tid;
		have_before = 1;
	}
	if (!have_before && !cov->have_from)
		return 0;
	blk = e2sr_disc_itable_block(fs, ino);
	if (!blk)
		return 0;
	v = e2sr_history_versions(&ctx->history, blk, &count);
	/* The newest copy from before every version that holds another. */
	for (i = 0; i < count; i++) {
		if (v[i].kind != E2SR_JK_ITABLE || !v[i].verified ||
		    ino < v[i].ino || ino - v[i].ino >= v[i].ino_count ||
		    !e2sr_coverage_readable(cov, v[i].sequence) ||
		    (have_seq && tid_le(seq, v[i].sequence)))
			continue;
		if (have_before && !from_start &&
		    tid_le(v[i].sequence, before))
			continue;
		err = e2sr_disc_read_copy(d, v[i].jblock, v[i].escaped, 0);
		if (err)
			return err;
		if (e2sr_disc_slot_record(d, ino, &v[i])) {
			if (d->inode->i_generation == gen)
				continue;	/* itself, or a copy of it */
		} else {
			err = e2sr_disc_ino_used_at(d, ino, v[i].sequence,
						    &used);
			if (err)
				return err;
			if (used)
				continue;	/* wiped, or not known */
		}
		before = v[i].sequence;	/* someone else's then, or none */
		have_before = 1;
		from_start = 0;
	}
	if (!have_before)
		return 0;
	/* No copy since then hides a version a run wiped. */
	for (i = 0; i < count; i++) {
		if (v[i].kind != E2SR_JK_ITABLE || !v[i].verified ||
		    ino < v[i].ino || ino - v[i].ino >= v[i].ino_count ||
		    !e2sr_coverage_readable(cov, v[i].sequence) ||
		    (!from_start && tid_le(v[i].sequence, before)) ||
		    (have_seq && !tid_le(v[i].sequence, last)))
			continue;
		err = e2sr_disc_read_copy(d, v[i].jblock, v[i].escaped, 0);
		if (err)
			return err;
		if (e2sr_disc_slot_record(d, ino, &v[i]))
			continue;
		/*
		 * Not known: no bitmap copy up to it, so the life's own
		 * allocation (which logs one) came later.
		 */
		err = e2sr_disc_ino_used_at(d, ino, v[i].sequence, &used);
		if (err)
			return err;
		if (used == 1)
			return 0;	/* a version some run wiped */
	}
	*born = 1;
	return 0;
}

/*
 * What the newest copy of a life found only in the journal says of it
 * (mode, links, flags, size), for the report: nothing decides on these
 * once the identity is taken.  A life seen only in fast commits keeps
 * zeros.
 */
static errcode_t newest_said(struct discover *d, size_t first, size_t end,
			     struct e2sr_file *file)
{
	size_t i, best = end;
	errcode_t err;

	for (i = first; i < end; i++) {
		if (d->v[i].len)
			continue;
		if (best == end ||
		    tid_le(d->v[best].sequence, d->v[i].sequence))
			best = i;
	}
	if (best == end)
		return 0;
	err = e2sr_disc_read_copy(d, d->v[best].jblock, d->v[best].escaped,
				  0);
	if (err)
		return err;
	if (e2sr_disc_load_record(d, d->v[best].ino, d->v[best].offset, 0))
		return 0;
	file->mode = d->inode->i_mode;
	file->links = d->inode->i_links_count;
	file->flags = d->inode->i_flags;
	file->size = EXT2_I_SIZE(d->inode);
	return 0;
}

/* One identity: versions [first, end) of d->v, same ino and generation. */
errcode_t e2sr_disc_take_identity(struct discover *d, size_t first, size_t end)
{
	struct e2sr_ctx *ctx = d->ctx;
	const struct iversion *iv = &d->v[first];
	struct e2sr_file *file;
	int secrm = 0, added = 0;
	long idx, life = -1;
	size_t i;
	errcode_t err;

	idx = e2sr_disc_find_file(d, iv->ino, iv->generation);
	for (i = first; i < end; i++)
		secrm |= d->v[i].secrm;
	/*
	 * Another generation of a secure-delete file (its creation time
	 * says so) is that file: its versions join the inventory's file
	 * when there is one.
	 */
	if (idx < 0 && (of_secrm_life(d, first, end, &life) ||
			shape_life(d, first, end, &life))) {
		idx = life;
		err = note_joined(ctx, iv->ino, iv->generation, idx);
		if (err)
			return err;
	} else if (!secrm && idx < 0) {
		return 0;	/* never secure-delete */
	}
	if (idx < 0) {
		err = add_identity(ctx, iv, &idx);
		if (err)
			return err;
		added = 1;
	}
	ctx->inv.files[idx].versions += end - first;
	err = e2sr_disc_map_versions(d, first, end, (size_t)idx,
			d->ea_inode &&
			e2sr_disc_follows_refs(&ctx->inv.files[idx]));
	if (err)
		return err;
	err = e2sr_disc_map_ranges(d, (size_t)idx, iv->ino, iv->generation);
	if (err)
		return err;
	/*
	 * A version counted more blocks than every map read for the file
	 * names: some of them were in copies gone by now (a fast-commit
	 * area written over before a full commit logged the tree block), and
	 * their bytes are where nothing says.  EA inodes' values, charged
	 * to their owner, were taken off the count (version_refs).
	 */
	file = &ctx->inv.files[idx];
	/* A subtree a run wiped counted blocks it took with it first. */
	if (file->blocks_said && !(file->map_status & E2SR_MAP_WIPED) &&
	    (file->state == E2SR_STATE_DELETED ||
	     file->state == E2SR_STATE_HISTORIC)) {
		blk64_t known;

		err = e2sr_disc_map_distinct(file, &known);
		if (err)
			return err;
		if (known < file->blocks_said) {
			file->map_status |= E2SR_MAP_DAMAGED;
			if (!file->map_error)
				file->map_error = E2SR_ERR_MAP_SHORT;
		}
	}
	/*
	 * No version shows a map.  Empty only if the journal shows the
	 * record's whole life: else its map may be in copies gone by now.
	 */
	file = &ctx->inv.files[idx];
	if (!file->had_data && !file->map_count &&
	    (file->state == E2SR_STATE_DELETED ||
	     file->state == E2SR_STATE_HISTORIC)) {
		int born;

		err = born_in_view(d, first, end, &born);
		if (err)
			return err;
		if (born)
			file->map_status &= ~E2SR_MAP_EMPTY;
		else
			file->map_status |= E2SR_MAP_EMPTY;
	}
	err = e2sr_disc_check_unseen(d, first, end, (size_t)idx);
	if (err || !added || ctx->inv.files[idx].state != E2SR_STATE_HISTORIC)
		return err;
	return newest_said(d, first, end, &ctx->inv.files[idx]);
}
