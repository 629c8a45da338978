/*
 * discover.c --- secure-delete files as the journal remembers them.
 *
 * Owns finding, in journal copies of inode table blocks, every version of
 * every inode record, and deciding which belong to a secure-delete file:
 * a version does when any version of the same identity (inode number and
 * i_generation), in the journal or in the live table, carries the flag.
 * Data written before `chattr +s` is the file's too, and so is a record
 * the kernel has since reused for another file.  Each distinct block map
 * among those versions is read (blockmap.c, with the trust rules of a
 * deleted map) and added to the file's map, marked historic: the plan
 * wipes the blocks of it that are free now, and no other.
 *
 * This is what makes a file deleted by the kernel recoverable: unlink
 * zeroes the map in the record, but the journal still holds the record as
 * it was.
 *
 * Fast commits log a file's new extents as add_range tags and never the
 * extent tree blocks: a file whose tree is deeper than i_block has the map
 * of what it wrote since the last full commit only there.  A range is the
 * file's whose raw inode the same fast commit logged: the tags of one
 * commit run from the tail before to its own tail, whose checksum covers
 * them all, and the commit's inode tag for the range's inode number gives
 * the generation.  A range in a commit that is not whole, or whose inode
 * the commit did not log, is nobody's we can name, and is left alone.
 *
 * With ea_inode, a large xattr value lives in an inode of its own, which
 * does not carry the flag of the file it belongs to.  Every entry of a
 * secure-delete file's records (the live one and every journal version,
 * in-inode area and EA block as the journal kept it) that names an EA
 * inode is followed (ea_inode.c): the versions of that inode that are the
 * value the entry names make an identity of their own, taken into the
 * inventory with its maps and its journal copies, and wiped as the file's
 * own are.  One still in use is another file's value too (EA inodes are
 * shared by hash) and is left alone.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e2secrmP.h"
#include "crc32c.h"
#include "fast_commit.h"
#include "ea_inode.h"
#include "unaligned.h"

/* One record version found in the journal. */
struct iversion {
	ext2_ino_t	ino;
	__u32		generation;
	__u32		sequence;
	__u32		jblock;
	__u32		map_crc;	/* of what makes the block map */
	__u16		offset;		/* of the record in the block */
	__u16		len;		/* fast commit: bytes of raw inode */
	__u8		secrm;		/* the version carries the flag */
	__u8		escaped;
	/* When the file last changed (ctime) and was written (mtime). */
	__u8		precise;	/* nanoseconds known */
	__u8		fc;		/* a fast commit's raw inode */
	__u8		fc_whole;	/* its commit's tail checked */
	__u32		fc_tid;		/* then, its transaction */
	__u32		ctime;
	__u32		ctime_nsec;
	__u32		mtime;
	__u32		mtime_nsec;
	/* When the file was made: one life, whatever its generation. */
	__u32		crtime;		/* 0: the record has none */
	__u32		crtime_nsec;
	/* What it maps, flags aside (shape_crc()); whether nothing. */
	__u32		shape;
	__u8		empty;
};

/* A secure-delete life: its inode number and when it was made. */
struct life {
	ext2_ino_t	ino;
	__u32		crtime;
	__u32		crtime_nsec;
	long		idx;		/* the inventory's file, or -1 */
};

/* Which copy of a block a historic map is read through. */
struct nearest {
	const struct e2sr_history	*h;
	__u32				seq;
};

/* A block range a fast commit logged for an identity. */
struct frange {
	ext2_ino_t	ino;
	__u32		generation;
	__u32		lblk;
	__u32		len;
	blk64_t		pblk;
	__u16		kind;		/* data or unwritten */
	__u32		tid;		/* of the newest commit logging it */
};

/* When a transaction's commit block says it was written. */
struct commit_time {
	__u32		sequence;
	__u32		nsec;
	__u64		sec;
};

struct file_ref {
	ext2_ino_t	ino;
	__u32		generation;
	size_t		idx;
};

struct discover {
	struct e2sr_ctx		*ctx;
	struct nearest		near;
	io_channel		hio;		/* the history view */
	struct iversion		*v;
	size_t			n;
	size_t			alloc;
	unsigned char		*block;
	struct ext2_inode_large	*inode;	/* inode_size bytes, at least large */
	size_t			isize;
	struct file_ref		*files;	/* the inventory as it came in, */
	size_t			nfiles;	/* by inode and generation */
	struct frange		*r;	/* fast-commit ranges, by identity */
	size_t			nr;
	size_t			ralloc;
	int			ea_inode;	/* the feature is on */
	/* Entries naming EA inodes; their owner is an inventory index. */
	struct e2sr_ea_refs	refs;
	unsigned char		*eablock;	/* one EA block */
	struct ext2_inode_large	*live;	/* a live record, isize bytes */
	/* The fast-commit area: its newest series, and where it starts. */
	__u32			fc_first;
	__u32			fc_head;	/* the series' transaction */
	int			fc_has_head;
	int			fc_used;	/* a tag in some block */
	size_t			fc_vstart;	/* versions of this commit */
	struct e2sr_unseen	unseen;
	struct commit_time	*ct;	/* commits, by transaction */
	size_t			nct;
	__u32			*wins;	/* transactions to account for */
	size_t			nwins;
	size_t			awins;
	struct life		*lives;	/* +s lives with a creation time */
	size_t			nlives;
	size_t			alives;
};

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

static errcode_t add_version(struct discover *d, const struct iversion *iv)
{
	if (d->n == d->alloc &&
	    e2sr_array_room(&d->v, &d->alloc, d->n + 1,
			    sizeof(*d->v)))
		return EXT2_ET_NO_MEMORY;
	d->v[d->n++] = *iv;
	return 0;
}

/* The journal copy of a block, escape undone. */
/* @in_order: the caller goes through the log forward. */
static errcode_t read_copy(struct discover *d, __u32 jblock, int escaped,
			   int in_order)
{
	struct e2sr_jreplay r;

	memset(&r, 0, sizeof(r));
	r.jblock = jblock;
	r.escaped = escaped;
	if (in_order)
		return e2sr_journal_copy_pass(d->ctx->journal, &r, d->block);
	return e2sr_journal_copy(d->ctx->journal, &r, d->block);
}

/*
 * Load one record of the current copy into d->inode; 0 if it is sane.
 * @len is 0 for a whole record of an inode table copy, else the length
 * of a fast commit's raw inode: the base record and its extra fields,
 * not the in-inode xattr space the checksum covers, so it is taken on
 * the strength of its place in a well-formed tag.
 */
static int load_record(struct discover *d, ext2_ino_t ino, unsigned int off,
		       unsigned int len)
{
	ext2_filsys fs = d->ctx->fs;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);

	memset(d->inode, 0, d->isize);
	if (len) {
		if (len > isz)
			len = isz;
		if (off + len > fs->blocksize)
			return -1;
		memcpy(d->inode, d->block + off, len);
	} else {
		memcpy(d->inode, d->block + off, isz);
	}
	if (!d->inode->i_mode && !d->inode->i_flags)
		return -1;		/* never used */
	if (!len && ext2fs_has_feature_metadata_csum(fs->super) &&
	    !e2sr_inode_csum_ok(fs, ino, d->inode))
		return -1;
	return 0;
}

/*
 * A record's creation time, seconds and nanoseconds; 0 seconds when the
 * record (or a fast commit's copy of @len bytes of it) holds none.  Only
 * debugfs changes it: two records of one inode number with the same
 * creation time are one file, whatever their generations say
 * (`chattr -v` sets a new one).
 */
static void record_crtime(const struct ext2_inode_large *in,
			  unsigned int isz, unsigned int len, __u32 *sec,
			  __u32 *nsec)
{
	unsigned int need = offsetof(struct ext2_inode_large,
				     i_crtime_extra) +
			    sizeof(in->i_crtime_extra);
	unsigned int extra;

	*sec = 0;
	*nsec = 0;
	if (isz < need || (len && len < need))
		return;
	extra = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;
	if (extra < need || extra > isz)
		return;
	*sec = in->i_crtime;
	*nsec = in->i_crtime_extra >> EXT4_EPOCH_BITS;
}

/*
 * What a record maps, its flags aside: blocks, bytes, EA block.  The
 * generation and the flags are what `chattr -v` and `chattr +s` change.
 */
static __u32 shape_crc(const struct ext2_inode_large *inode)
{
	__u32 crc;

	crc = e2sr_crc32c_le(~0U, (const unsigned char *)inode->i_block,
			       sizeof(inode->i_block));
	crc = e2sr_crc32c_le(crc, (const unsigned char *)&inode->i_blocks,
			       sizeof(inode->i_blocks));
	crc = e2sr_crc32c_le(crc, (const unsigned char *)&inode->i_size,
			       sizeof(inode->i_size));
	crc = e2sr_crc32c_le(crc,
			       (const unsigned char *)&inode->i_size_high,
			       sizeof(inode->i_size_high));
	return e2sr_crc32c_le(crc,
				(const unsigned char *)&inode->i_file_acl,
				sizeof(inode->i_file_acl));
}

static int shape_empty(const struct ext2_inode_large *inode)
{
	return !inode->i_size && !inode->i_size_high && !inode->i_blocks &&
	       !inode->i_file_acl;
}

/*
 * The times of the record in d->inode.  Nanoseconds are known where the
 * record is large enough to hold both extra fields (and, for a fast
 * commit's raw inode, where the tag held them): @len as load_record's.
 */
static void note_times(const struct discover *d, struct iversion *iv,
		       unsigned int len)
{
	const struct ext2_inode_large *in = d->inode;
	unsigned int isz = EXT2_INODE_SIZE(d->ctx->fs->super);
	unsigned int need = offsetof(struct ext2_inode_large, i_mtime_extra) +
			    sizeof(in->i_mtime_extra);

	iv->ctime = in->i_ctime;
	iv->mtime = in->i_mtime;
	unsigned int extra = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;

	iv->precise = isz >= need && (!len || len >= need) &&
		      extra >= need && extra <= isz;
	if (iv->precise) {
		iv->ctime_nsec = in->i_ctime_extra >> EXT4_EPOCH_BITS;
		iv->mtime_nsec = in->i_mtime_extra >> EXT4_EPOCH_BITS;
	}
	record_crtime(in, isz, len, &iv->crtime, &iv->crtime_nsec);
	iv->shape = shape_crc(in);
	iv->empty = shape_empty(in);
}

/* What a record maps and its flags: one map of one file's life. */
static __u32 map_crc(const struct ext2_inode_large *inode)
{
	return e2sr_crc32c_le(shape_crc(inode),
			      (const unsigned char *)&inode->i_flags,
			      sizeof(inode->i_flags));
}

/* An add_range tag of the fast commit being read, not yet attributed. */
struct fc_pending {
	ext2_ino_t	ino;
	__u32		lblk;
	__u32		len;
	blk64_t		pblk;
	__u16		kind;
};

/* An inode tag of the fast commit being read. */
struct fc_seen {
	ext2_ino_t	ino;
	__u32		generation;
};

/* One fast commit as it is read: its checksum and tags so far. */
struct fc_collect {
	struct discover		*d;
	__u32			crc;
	unsigned int		last_tag;	/* of the current block */
	struct fc_pending	*pend;
	size_t			npend;
	size_t			apend;
	struct fc_seen		*seen;
	size_t			nseen;
	size_t			aseen;
};

/* What the commit read so far is worth nothing: start again. */
static void fc_reset(struct fc_collect *c)
{
	c->crc = 0;
	c->npend = 0;
	c->nseen = 0;
	c->d->fc_vstart = c->d->n;
}

/* The raw inodes of a commit whose tail checked: its transaction. */
static void fc_versions_whole(struct discover *d, __u32 tid)
{
	size_t i;

	for (i = d->fc_vstart; i < d->n; i++) {
		d->v[i].fc_whole = 1;
		d->v[i].fc_tid = tid;
	}
}

/* Room for one more in an array of @alloc, full. */
static errcode_t grow(void *v, size_t *alloc, size_t size)
{
	return e2sr_array_room(v, alloc, *alloc + 1, size);
}

/* Raw inodes that fast commits logged: versions too.  @gen: its own. */
static errcode_t fc_inode(struct discover *d, const struct e2sr_fc_rec *rec,
			  int *taken, __u32 *gen)
{
	ext2_filsys fs = d->ctx->fs;
	struct iversion iv;

	*taken = 0;
	if (rec->len <= 4 || rec->ino < EXT2_FIRST_INODE(fs->super) ||
	    rec->ino > fs->super->s_inodes_count)
		return 0;
	memset(&iv, 0, sizeof(iv));
	iv.ino = rec->ino;
	iv.jblock = rec->jblock;
	iv.offset = rec->offset + E2SR_FC_TL_SIZE + 4;
	iv.len = rec->len - 4;
	if (load_record(d, iv.ino, iv.offset, iv.len))
		return 0;
	iv.generation = d->inode->i_generation;
	iv.secrm = !!(d->inode->i_flags & EXT2_SECRM_FL);
	iv.map_crc = map_crc(d->inode);
	iv.fc = 1;
	note_times(d, &iv, iv.len);
	*taken = 1;
	*gen = iv.generation;
	return add_version(d, &iv);
}

static int cmp_seen(const void *a, const void *b)
{
	const struct fc_seen *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->generation < y->generation ? -1 :
	       x->generation > y->generation;
}

static errcode_t note_seen(struct fc_collect *c, ext2_ino_t ino, __u32 gen)
{
	errcode_t err;

	if (c->nseen == c->aseen) {
		err = grow(&c->seen, &c->aseen, sizeof(*c->seen));
		if (err)
			return err;
	}
	c->seen[c->nseen].ino = ino;
	c->seen[c->nseen].generation = gen;
	c->nseen++;
	return 0;
}

/*
 * The generation the commit's inode tags give @ino; 0 if they give none,
 * or two (the kernel logs an inode once per commit).  @seen is sorted.
 */
static int seen_generation(const struct fc_collect *c, ext2_ino_t ino,
			   __u32 *gen)
{
	size_t lo = 0, hi = c->nseen, mid, first;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->seen[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->nseen || c->seen[lo].ino != ino)
		return 0;
	first = lo;
	hi = c->nseen;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->seen[mid].ino <= ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Sorted by generation: the first and the last tell. */
	if (c->seen[lo - 1].generation != c->seen[first].generation)
		return 0;
	*gen = c->seen[first].generation;
	return 1;
}

/* A whole commit: each range goes to the identity its inode tag gives. */
static errcode_t fc_commit(struct fc_collect *c, __u32 tid)
{
	struct discover *d = c->d;
	struct frange *r;
	__u32 gen;
	size_t i;
	errcode_t err;

	if (!c->npend || !c->nseen)
		return 0;
	qsort(c->seen, c->nseen, sizeof(*c->seen), cmp_seen);
	for (i = 0; i < c->npend; i++) {
		if (!seen_generation(c, c->pend[i].ino, &gen))
			continue;
		if (d->nr == d->ralloc) {
			err = grow(&d->r, &d->ralloc, sizeof(*d->r));
			if (err)
				return err;
		}
		r = &d->r[d->nr++];
		r->ino = c->pend[i].ino;
		r->generation = gen;
		r->lblk = c->pend[i].lblk;
		r->len = c->pend[i].len;
		r->pblk = c->pend[i].pblk;
		r->kind = c->pend[i].kind;
		r->tid = tid;
	}
	return 0;
}

/*
 * One tag, in the order the kernel wrote them.  The checksum is the
 * kernel's replay scan's: every tag's header and value since the last
 * tail, then the tail's header and tid.
 */
static errcode_t fc_tag(void *priv, const struct e2sr_fc_rec *rec)
{
	struct fc_collect *c = priv;
	struct discover *d = c->d;
	const unsigned char *tl = d->block + rec->offset;
	struct fc_pending *p;
	__u32 gen = 0;
	int taken;
	errcode_t err = 0;

	c->last_tag = rec->tag;
	if (rec->tag == E2SR_FC_TAG_TAIL) {
		c->crc = ext2fs_crc32c_le(c->crc, tl, E2SR_FC_TL_SIZE + 4);
		if (e2sr_get_le32(tl + E2SR_FC_TL_SIZE + 4) == c->crc) {
			err = fc_commit(c, rec->tid);
			fc_versions_whole(d, rec->tid);
		}
		fc_reset(c);
		return err;
	}
	/* The newest series starts the area, with its transaction. */
	if (rec->tag == E2SR_FC_TAG_HEAD && rec->jblock == d->fc_first &&
	    rec->offset == 0) {
		d->fc_head = rec->tid;
		d->fc_has_head = 1;
	}
	c->crc = ext2fs_crc32c_le(c->crc, tl, E2SR_FC_TL_SIZE + rec->len);
	switch (rec->tag) {
	case E2SR_FC_TAG_INODE:
		err = fc_inode(d, rec, &taken, &gen);
		if (!err && taken)
			err = note_seen(c, rec->ino, gen);
		break;
	case E2SR_FC_TAG_ADD_RANGE:
		if (!rec->count)
			break;
		if (c->npend == c->apend) {
			err = grow(&c->pend, &c->apend,
				   sizeof(*c->pend));
			if (err)
				break;
		}
		p = &c->pend[c->npend++];
		p->ino = rec->ino;
		p->lblk = rec->lblk;
		p->len = rec->count;
		p->pblk = rec->pblk;
		p->kind = (rec->flags & E2SR_FC_UNWRITTEN) ?
			  E2SR_EXT_UNWRITTEN : E2SR_EXT_DATA;
		break;
	default:
		break;
	}
	return err;
}

static int cmp_frange(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->pblk != y->pblk)
		return x->pblk < y->pblk ? -1 : 1;
	if (x->lblk != y->lblk)
		return x->lblk < y->lblk ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Each commit logs again what changed since the last: keep each once. */
static void sort_ranges(struct discover *d)
{
	size_t i, n = 0;

	if (!d->nr)
		return;
	qsort(d->r, d->nr, sizeof(*d->r), cmp_frange);
	for (i = 0; i < d->nr; i++) {
		if (n && !cmp_frange(&d->r[n - 1], &d->r[i])) {
			if ((__s32)(d->r[i].tid - d->r[n - 1].tid) > 0)
				d->r[n - 1].tid = d->r[i].tid;
			continue;
		}
		d->r[n++] = d->r[i];
	}
	d->nr = n;
}

/*
 * Raw inodes that fast commits logged are versions, and the ranges they
 * logged with them are maps.  Every block of the area is read, stale
 * commits of earlier rounds too.  A commit that goes on into the next
 * block ends its block with a pad; a block that ends otherwise, or holds
 * no tag, breaks the commit it was part of.
 */
static errcode_t collect_fc_versions(struct discover *d)
{
	struct e2sr_fcwalk fc;
	struct fc_collect c;
	__u32 pos;
	errcode_t err;

	err = e2sr_fc_walk(d->ctx->journal, &fc);
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.d = d;
	/* The kernel's j_fc_first is j_last + 1: the first block is unused. */
	d->fc_first = fc.first + 1;
	d->fc_used = fc.blocks_used != 0;
	d->fc_vstart = d->n;
	for (pos = fc.first; pos < fc.end && !err; pos++) {
		err = read_copy(d, pos, 0, 1);
		if (err)
			break;
		c.last_tag = 0;
		err = e2sr_fc_parse_block(d->block, d->ctx->fs->blocksize,
					  pos, fc_tag, &c);
		if (!err && c.last_tag != E2SR_FC_TAG_PAD)
			fc_reset(&c);
	}
	ext2fs_free_mem(&c.pend);
	ext2fs_free_mem(&c.seen);
	e2sr_fc_walk_free(&fc);
	if (!err)
		sort_ranges(d);
	return err;
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

static long find_file(const struct discover *d, ext2_ino_t ino, __u32 gen);

/*
 * Every record of every verified inode table copy that may matter.  The
 * walk listed each used record by number, generation and flags alone;
 * most are of files that never carried the flag: only the identities
 * that did (in some version), the inventory's and EA inodes are read
 * whole and checked.
 */
static errcode_t collect_versions(struct discover *d)
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
		 * same time is the same file (collect_lives()).
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
			err = read_copy(d, c.jblock, c.escaped, 1);
			if (err)
				goto out;
			last = c.jblock;
			have = 1;
		}
		if (load_record(d, c.ino, c.offset, 0))
			continue;
		memset(&iv, 0, sizeof(iv));
		iv.ino = c.ino;
		iv.generation = d->inode->i_generation;
		iv.sequence = c.sequence;
		iv.jblock = c.jblock;
		iv.offset = c.offset;
		iv.escaped = c.escaped;
		iv.secrm = !!(d->inode->i_flags & EXT2_SECRM_FL);
		iv.map_crc = map_crc(d->inode);
		note_times(d, &iv, 0);
		err = add_version(d, &iv);
		if (err)
			goto out;
	}
	if (want)
		e2sr_journal_want(j, NULL, 0, 0);
	err = collect_fc_versions(d);
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

static int cmp_file_ref(const void *a, const void *b)
{
	const struct file_ref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Identities are looked up in the inventory the scan made; the ones
 * discovery adds are new identities, never looked up again.
 */
static errcode_t index_files(struct discover *d)
{
	const struct e2sr_inventory *inv = &d->ctx->inv;
	size_t i;
	errcode_t err;

	if (!inv->count)
		return 0;
	err = ext2fs_get_array(inv->count, sizeof(*d->files), &d->files);
	if (err)
		return err;
	for (i = 0; i < inv->count; i++) {
		d->files[i].ino = inv->files[i].ino;
		d->files[i].generation = inv->files[i].generation;
		d->files[i].idx = i;
	}
	d->nfiles = inv->count;
	qsort(d->files, d->nfiles, sizeof(*d->files), cmp_file_ref);
	return 0;
}

/* The first inventory file of an identity, or -1. */
static long find_file(const struct discover *d, ext2_ino_t ino, __u32 gen)
{
	size_t lo = 0, hi = d->nfiles, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->files[mid].ino < ino ||
		    (d->files[mid].ino == ino &&
		     d->files[mid].generation < gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->nfiles && d->files[lo].ino == ino &&
	    d->files[lo].generation == gen)
		return (long)d->files[lo].idx;
	return -1;
}

static int read_live(struct discover *d, ext2_ino_t ino);

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
static errcode_t collect_lives(struct discover *d)
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
		if (read_live(d, inv->files[i].ino))
			continue;
		record_crtime(d->live, isz, 0, &sec, &nsec);
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
		f = find_file(d, ino, d->v[g].generation);
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
	if (read_live(d, ino) || d->live->i_generation == gen)
		return 0;
	f = find_file(d, ino, d->live->i_generation);
	if (f < 0 || d->ctx->inv.files[f].state == E2SR_STATE_HISTORIC)
		return 0;
	for (g = lo; g < hi; g++)
		if (!d->v[g].fc && tid_before(d->v[a1].sequence,
					      d->v[g].sequence))
			return 0;	/* not the newest before it */
	disk.shape = shape_crc(d->live);
	disk.empty = shape_empty(d->live);
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
		record_crtime(live, isz, 0, &sec, &nsec);
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

static int tid_le(__u32 a, __u32 b)
{
	return (__s32)(a - b) <= 0;
}

/*
 * The copy of @blk a record of transaction @seq saw: the newest one not
 * after it, else the oldest one after it.  Layout blocks never hold a
 * map, and unverified copies are not trusted with one.
 */
static int nearest_copy(void *priv, blk64_t blk, struct e2sr_jreplay *copy)
{
	const struct nearest *n = priv;
	const struct e2sr_version *v, *best = NULL;
	size_t i, count;

	v = e2sr_history_versions(n->h, blk, &count);
	for (i = 0; i < count; i++) {
		if (!v[i].verified || (v[i].kind != E2SR_JK_FREE &&
		    v[i].kind != E2SR_JK_UNKNOWN &&
		    v[i].kind != E2SR_JK_EXTENT && v[i].kind != E2SR_JK_IND &&
		    v[i].kind != E2SR_JK_EA && v[i].kind != E2SR_JK_DATA))
			continue;
		if (!best) {
			best = &v[i];
			continue;
		}
		if (tid_le(v[i].sequence, n->seq)) {
			if (!tid_le(best->sequence, n->seq) ||
			    tid_le(best->sequence, v[i].sequence))
				best = &v[i];
		} else if (!tid_le(best->sequence, n->seq) &&
			   tid_le(v[i].sequence, best->sequence)) {
			best = &v[i];
		}
	}
	if (!best)
		return 0;
	memset(copy, 0, sizeof(*copy));
	copy->fs_block = blk;
	copy->jblock = best->jblock;
	copy->sequence = best->sequence;
	copy->escaped = best->escaped;
	return 1;
}

/*
 * Read a historic map through the history view: its tree, indirect and
 * EA blocks as the journal kept them near the record's transaction,
 * where the device's copy may be someone else's by now.
 */
static errcode_t map_through_history(struct discover *d,
				     struct e2sr_file *tmp, __u32 seq)
{
	struct e2sr_map_source src;

	if (!d->hio)
		return e2sr_file_map(d->ctx, tmp, d->inode);
	d->near.seq = seq;
	src.io = d->hio;
	src.lookup = nearest_copy;
	src.priv = &d->near;
	return e2sr_file_map_from(d->ctx, tmp, d->inode, &src);
}

/*
 * The blocks a record counts for its map (i_blocks, in blocks, less its
 * EA block, which every inode sharing it is charged for).
 */
static blk64_t record_blocks(ext2_filsys fs, struct ext2_inode_large *in)
{
	blk64_t n = ext2fs_get_stat_i_blocks(fs, (struct ext2_inode *)in) /
		    (fs->blocksize / 512);

	if (n && ext2fs_file_acl_block(fs, (struct ext2_inode *)in))
		n--;
	return n;
}

static int cmp_ext_pblk(const void *a, const void *b)
{
	const struct e2sr_extent *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* The distinct blocks of a file's map, EA blocks aside. */
static errcode_t map_distinct(const struct e2sr_file *f, blk64_t *count)
{
	struct e2sr_extent *e;
	blk64_t end = 0, n = 0, s, t;
	size_t i, k = 0;
	errcode_t err;

	*count = 0;
	if (!f->map_count)
		return 0;
	err = ext2fs_get_array(f->map_count, sizeof(*e), &e);
	if (err)
		return err;
	for (i = 0; i < f->map_count; i++)
		if (f->map[i].kind != E2SR_EXT_EA && f->map[i].len)
			e[k++] = f->map[i];
	qsort(e, k, sizeof(*e), cmp_ext_pblk);
	for (i = 0; i < k; i++) {
		s = e[i].pblk > end ? e[i].pblk : end;
		t = e[i].pblk + e[i].len;
		if (t > s)
			n += t - s;
		if (t > end)
			end = t;
	}
	ext2fs_free_mem(&e);
	*count = n;
	return 0;
}

/* The transaction of a version, 0 when not known. */
static __u32 version_seq(const struct iversion *iv)
{
	if (!iv->fc)
		return iv->sequence;
	return iv->fc_whole ? iv->fc_tid : 0;
}

/*
 * Versions with one map are read once, and the extents it gave say the
 * newest of them: the file held those blocks until then, and its own
 * later copies are not another owner's writes.  One of unknown time
 * makes them all unknown (never taken for overwritten).
 */
static void raise_seq(struct e2sr_file *file, size_t from, __u32 seq)
{
	size_t i;

	for (i = from; i < file->map_count; i++) {
		if (!seq || !file->map[i].seq)
			file->map[i].seq = 0;
		else if (seq > file->map[i].seq)
			file->map[i].seq = seq;
	}
}

/* Map one historic record and fold its extents into the file. */
static errcode_t map_version(struct discover *d, size_t fidx,
			     const struct iversion *iv, blk64_t charge)
{
	struct e2sr_ctx *ctx = d->ctx;
	struct e2sr_file tmp, *file;
	blk64_t said;
	size_t i, n;
	errcode_t err;

	err = read_copy(d, iv->jblock, iv->escaped, 0);
	if (err)
		return err;
	if (load_record(d, iv->ino, iv->offset, iv->len))
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	tmp.ino = iv->ino;
	tmp.generation = iv->generation;
	tmp.state = E2SR_STATE_DELETED;	/* trust only what is free */
	err = map_through_history(d, &tmp, iv->sequence);
	if (err) {
		e2sr_file_free(&tmp);
		return err;
	}
	file = &ctx->inv.files[fidx];
	file->versions_mapped++;
	if (EXT2_I_SIZE(d->inode) || d->inode->i_blocks)
		file->had_data = 1;
	said = record_blocks(ctx->fs, d->inode);
	said = said > charge ? said - charge : 0;
	if (said > file->blocks_said)
		file->blocks_said = said;
	n = file->map_count + tmp.map_count;
	if (tmp.map_count && e2sr_array_room(&file->map, &file->map_alloc, n,
					     sizeof(*file->map))) {
		e2sr_file_free(&tmp);
		return EXT2_ET_NO_MEMORY;
	}
	for (i = 0; i < tmp.map_count; i++) {
		tmp.map[i].historic = 1;
		tmp.map[i].seq = version_seq(iv);
		file->map[file->map_count++] = tmp.map[i];
	}
	if (tmp.map_count) {
		file->map_status |= E2SR_MAP_JOURNAL;
		file->map_status &= ~E2SR_MAP_EMPTY;
		file->free_blocks += tmp.free_blocks;
	}
	/* A live file's old map is in use again by itself: no news. */
	if (file->state != E2SR_STATE_LIVE) {
		file->map_status |= tmp.map_status &
				    (E2SR_MAP_DAMAGED | E2SR_MAP_REUSED |
				     E2SR_MAP_WIPED);
		if (!file->map_error)
			file->map_error = tmp.map_error;
	}
	e2sr_file_free(&tmp);
	return 0;
}

/*
 * The record's slot in an inode table copy; a fast commit's raw inode is
 * one tag among others of its block, which goes whole.
 */
static errcode_t add_jcopy(struct e2sr_inventory *inv,
			   const struct iversion *iv, unsigned int isize)
{
	if (e2sr_array_room(&inv->jcopies, &inv->jcopy_alloc,
			    inv->jcopy_count + 1, sizeof(*inv->jcopies)))
		return EXT2_ET_NO_MEMORY;
	inv->jcopies[inv->jcopy_count].jblock = iv->jblock;
	inv->jcopies[inv->jcopy_count].ino = iv->ino;
	inv->jcopies[inv->jcopy_count].off = iv->len ? 0 : iv->offset;
	inv->jcopies[inv->jcopy_count].len = iv->len ? 0 : isize;
	inv->jcopies[inv->jcopy_count].flagged = iv->secrm;
	inv->jcopy_count++;
	return 0;
}

/*
 * The entries of an EA block that name EA inodes: the block as the
 * journal kept it near transaction @seq when @historic, else the device's.
 * A block that cannot be read hides what it named.
 */
static errcode_t block_refs(struct discover *d, blk64_t blk, __u32 seq,
			    int historic, size_t idx)
{
	ext2_filsys fs = d->ctx->fs;
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	errcode_t err;

	if (!blk)
		return 0;
	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return 0;	/* the map walk says it is damaged */
	if (historic && d->hio) {
		d->near.seq = seq;
		err = io_channel_read_blk64(d->hio, blk, 1, d->eablock);
	} else {
		err = io_channel_read_blk64(fs->io, blk, 1, d->eablock);
	}
	if (err) {
		file->map_status |= E2SR_MAP_DAMAGED;
		if (!file->map_error)
			file->map_error = err;
		return 0;
	}
	return e2sr_ea_refs_block(fs, d->eablock, (ext2_ino_t)idx, &d->refs);
}

/*
 * The EA inodes a journal version of a record names, and in @charge the
 * blocks their values count in the record's i_blocks: the kernel charges
 * each value, rounded up to whole blocks, to the inode whose entry names
 * it (ext4_xattr_inode_alloc_quota), not to the EA inode's map.  -1 when
 * the version cannot say (a fast commit's raw inode stops before the
 * in-inode area).
 */
static errcode_t version_refs(struct discover *d, const struct iversion *iv,
			      size_t idx, blk64_t *charge)
{
	ext2_filsys fs = d->ctx->fs;
	size_t n0 = d->refs.n, i;
	errcode_t err;

	*charge = (blk64_t)-1;
	if (iv->len)
		return 0;
	err = read_copy(d, iv->jblock, iv->escaped, 0);
	if (err)
		return err;
	if (load_record(d, iv->ino, iv->offset, 0))
		return 0;
	err = e2sr_ea_refs_ibody(fs, d->inode, (ext2_ino_t)idx, &d->refs);
	if (err)
		return err;
	err = block_refs(d, ext2fs_file_acl_block(fs,
				(struct ext2_inode *)d->inode),
			 iv->sequence, 1, idx);
	if (err)
		return err;
	*charge = 0;
	for (i = n0; i < d->refs.n; i++)
		*charge += (d->refs.v[i].size + fs->blocksize - 1) /
			   fs->blocksize;
	return 0;
}

/*
 * Each version's copy is planned; each distinct map is read.  @refs:
 * whether the versions' xattr entries are followed too.
 */
static errcode_t map_versions(struct discover *d, size_t first, size_t end,
			      size_t idx, int refs)
{
	struct e2sr_ctx *ctx = d->ctx;
	blk64_t charge = 0, said_charge = 0;
	size_t i, from = 0;
	errcode_t err;

	/*
	 * A version that cannot show its entries is charged what the last
	 * one that could was; none before it: nothing, so that a count the
	 * map falls short of is said (a loss reported, not hidden).
	 */
	for (i = first; i < end; i++) {
		/* The copy holding it is a residue too. */
		err = add_jcopy(&ctx->inv, &d->v[i],
				EXT2_INODE_SIZE(ctx->fs->super));
		if (err)
			return err;
		/* Its entries may differ where its map does not. */
		if (refs) {
			err = version_refs(d, &d->v[i], idx, &charge);
			if (err)
				return err;
			if (charge != (blk64_t)-1)
				said_charge = charge;
		}
		/* Versions with the same map: read it once. */
		if (i > first && d->v[i].map_crc == d->v[i - 1].map_crc) {
			raise_seq(&ctx->inv.files[idx], from,
				  version_seq(&d->v[i]));
			continue;
		}
		from = ctx->inv.files[idx].map_count;
		err = map_version(d, (size_t)idx, &d->v[i], said_charge);
		if (err)
			return err;
	}
	return 0;
}

/* The first fast-commit range of an identity, or d->nr. */
static size_t first_range(const struct discover *d, ext2_ino_t ino,
			  __u32 gen)
{
	size_t lo = 0, hi = d->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->r[mid].ino < ino ||
		    (d->r[mid].ino == ino && d->r[mid].generation < gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The ranges fast commits logged for the identity join its map as
 * historic extents: the plan wipes what of them is free now.  A range
 * outside the filesystem is a damaged map, not a write.
 */
static errcode_t map_ranges(struct discover *d, size_t idx, ext2_ino_t ino,
			    __u32 gen)
{
	ext2_filsys fs = d->ctx->fs;
	blk64_t end = ext2fs_blocks_count(fs->super);
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	const struct frange *r;
	struct e2sr_extent *e;
	size_t i;
	__u32 k, nfree;

	for (i = first_range(d, ino, gen); i < d->nr; i++) {
		r = &d->r[i];
		if (r->ino != ino || r->generation != gen)
			break;
		if (!r->len || r->len > 32768 ||
		    r->pblk < fs->super->s_first_data_block ||
		    r->pblk >= end || r->len > end - r->pblk) {
			file->map_status |= E2SR_MAP_DAMAGED;
			if (!file->map_error)
				file->map_error = EXT2_ET_BAD_BLOCK_NUM;
			continue;
		}
		if (file->map_count == file->map_alloc &&
		    e2sr_array_room(&file->map, &file->map_alloc,
				    file->map_count + 1, sizeof(*file->map)))
			return EXT2_ET_NO_MEMORY;
		for (k = 0, nfree = 0; k < r->len; k++)
			if (!ext2fs_test_block_bitmap2(fs->block_map,
						       r->pblk + k))
				nfree++;
		e = &file->map[file->map_count++];
		memset(e, 0, sizeof(*e));
		e->pblk = r->pblk;
		e->lblk = r->lblk;
		e->len = r->len;
		e->kind = r->kind;
		e->nfree = nfree;
		e->historic = 1;
		e->seq = r->tid;
		file->free_blocks += nfree;
		file->had_data = 1;
		file->map_status |= E2SR_MAP_JOURNAL;
		file->map_status &= ~E2SR_MAP_EMPTY;
	}
	return 0;
}

/*
 * Orphans and unclear records are e2fsck's to settle, and so is what
 * their entries name.
 */
static int follows_refs(const struct e2sr_file *file)
{
	return file->state == E2SR_STATE_LIVE ||
	       file->state == E2SR_STATE_DELETED ||
	       file->state == E2SR_STATE_HISTORIC;
}

/* The live record of @ino into d->live, on-disk bytes; 0 if read. */
static int read_live(struct discover *d, ext2_ino_t ino)
{
	ext2_filsys fs = d->ctx->fs;
	errcode_t err;

	memset(d->live, 0, d->isize);
	err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)d->live,
				 EXT2_INODE_SIZE(fs->super),
				 READ_INODE_NOCSUM);
	return err ? -1 : 0;
}

/* The EA inodes the live records of the inventory's files name. */
static errcode_t live_refs(struct discover *d)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	size_t i, n = ctx->inv.count;
	errcode_t err;

	for (i = 0; i < n; i++) {
		const struct e2sr_file *file = &ctx->inv.files[i];

		if (file->state == E2SR_STATE_HISTORIC ||
		    !follows_refs(file) || read_live(d, file->ino))
			continue;
		err = e2sr_ea_refs_ibody(fs, d->live, (ext2_ino_t)i,
					 &d->refs);
		if (!err)
			err = block_refs(d, ext2fs_file_acl_block(fs,
					(struct ext2_inode *)d->live), 0, 0, i);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Whether @record is the value one of refs [a, b) names.  A deleted EA
 * inode has lost its size with its map, not its flag nor its hash.
 */
static int ea_matches(const struct discover *d, size_t a, size_t b,
		      const struct ext2_inode_large *record)
{
	struct e2sr_ea_ref r;
	size_t i;

	for (i = a; i < b; i++) {
		r = d->refs.v[i];
		if (e2sr_ea_ref_matches(&r, record))
			return 1;
		if (!record->i_links_count && !EXT2_I_SIZE(record)) {
			r.size = 0;
			if (e2sr_ea_ref_matches(&r, record))
				return 1;
		}
	}
	return 0;
}

/* The first version of inode @ino in d->v, or d->n. */
static size_t first_version(const struct discover *d, ext2_ino_t ino)
{
	size_t lo = 0, hi = d->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * An EA inode identity the inventory does not have yet: its state from
 * the live record, its maps from that record and from its versions
 * [first, end) of d->v.  @owner: the inventory file whose value it is.
 */
static errcode_t add_ea_identity(struct discover *d, ext2_ino_t ino,
				 __u32 gen, size_t first, size_t end,
				 size_t owner)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	struct e2sr_file *file;
	ext2_ino_t owner_ino = ctx->inv.files[owner].ino;
	size_t idx;
	int used;
	errcode_t err;

	if (find_file(d, ino, gen) >= 0)
		return 0;	/* +s itself (inherited): already taken */
	err = e2sr_inventory_add(&ctx->inv, &file);
	if (err)
		return err;
	idx = ctx->inv.count - 1;
	file->ino = ino;
	file->generation = gen;
	file->ea_owner = owner_ino;
	file->state = E2SR_STATE_HISTORIC;
	if (!read_live(d, ino) && d->live->i_generation == gen) {
		used = ext2fs_test_inode_bitmap2(fs->inode_map, ino);
		file->mode = d->live->i_mode;
		file->links = d->live->i_links_count;
		file->flags = d->live->i_flags;
		file->dtime = d->live->i_dtime;
		file->size = EXT2_I_SIZE(d->live);
		/* As the scan decides a secure-delete record's state. */
		if (used)
			file->state = file->links ? E2SR_STATE_LIVE :
				      E2SR_STATE_ORPHAN;
		else
			file->state = file->links ? E2SR_STATE_UNCLEAR :
				      E2SR_STATE_DELETED;
		err = e2sr_file_map(ctx, file, d->live);
		if (err)
			return err;
	}
	file->versions += end - first;
	err = map_versions(d, first, end, idx, 0);
	if (err)
		return err;
	file = &ctx->inv.files[idx];
	if ((file->map_status & E2SR_MAP_EMPTY) && !file->had_data &&
	    !file->size)
		file->map_status &= ~E2SR_MAP_EMPTY;
	return 0;
}

/*
 * EA inode @ino, named by refs [a, b): every identity of it that is the
 * value one of them names, in the live table or in the journal.  None at
 * all: the value cannot be traced, and its owners' maps say so.
 */
static errcode_t take_ea_inode(struct discover *d, size_t a, size_t b)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_ino_t ino = d->refs.v[a].ea_ino;
	size_t owner = d->refs.v[a].owner, i, x, y;
	int found = 0, live_gen_ok;
	__u32 live_gen = 0;
	errcode_t err;

	live_gen_ok = !read_live(d, ino) && ea_matches(d, a, b, d->live);
	if (live_gen_ok)
		live_gen = d->live->i_generation;
	for (x = first_version(d, ino); x < d->n && d->v[x].ino == ino;
	     x = y) {
		for (y = x + 1; y < d->n && d->v[y].ino == ino &&
		     d->v[y].generation == d->v[x].generation; y++)
			;
		if (live_gen_ok && d->v[x].generation == live_gen) {
			err = add_ea_identity(d, ino, live_gen, x, y, owner);
			if (err)
				return err;
			found = 1;
			live_gen_ok = 0;	/* taken */
			continue;
		}
		for (i = x; i < y; i++) {
			err = read_copy(d, d->v[i].jblock, d->v[i].escaped, 0);
			if (err)
				return err;
			if (load_record(d, ino, d->v[i].offset, d->v[i].len) ||
			    !ea_matches(d, a, b, d->inode))
				continue;
			err = add_ea_identity(d, ino, d->v[x].generation, x, y,
					      owner);
			if (err)
				return err;
			found = 1;
			break;
		}
	}
	if (live_gen_ok) {
		err = add_ea_identity(d, ino, live_gen, 0, 0, owner);
		if (err)
			return err;
		found = 1;
	}
	if (found)
		return 0;
	for (i = a; i < b; i++) {
		struct e2sr_file *f = &ctx->inv.files[d->refs.v[i].owner];

		f->map_status |= E2SR_MAP_DAMAGED;
		if (!f->map_error)
			f->map_error = EXT2_ET_EA_INODE_CORRUPTED;
	}
	return 0;
}

/*
 * Whether the identity of versions [first, end), none of which shows a
 * block map, is accounted for: the readable history (coverage.c) holds
 * its whole life, or the previous run saw all of it.
 *  - The journal reaches back to its own creation, or a readable copy of
 *    the inode's table block from before every version of it holds
 *    another record (or none) in its place: every transaction since is
 *    readable, and each change of the record logged its block, so a map
 *    it had would be in some version.
 *  - Every version is from a transaction the previous run saw: that run
 *    saw these and maybe more (its own journal wipe, cut short, may have
 *    taken the rest, after the blocks they mapped), and its state is only
 *    written when it left no lost map unanswered.
 * What the journal cannot show either way: blocks allocated, written and
 * freed between two commits.
 */
static errcode_t born_in_view(struct discover *d, size_t first, size_t end,
			      int *born)
{
	struct e2sr_ctx *ctx = d->ctx;
	ext2_filsys fs = ctx->fs;
	const struct e2sr_coverage *cov = &ctx->coverage;
	const struct e2sr_version *v;
	ext2_ino_t ino = d->v[first].ino;
	__u32 ipg = fs->super->s_inodes_per_group, gen = d->v[first].generation;
	__u32 ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super), seq = 0;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);
	int have_seq = 0, seen;
	size_t i, count;
	blk64_t blk;
	errcode_t err;

	*born = cov->how == E2SR_COVER_CREATION;
	if (*born)
		return 0;
	seen = cov->have_prev;
	for (i = first; i < end; i++) {
		if (d->v[i].len) {
			seen = 0;	/* fast commit: after every full one */
			continue;
		}
		if (!have_seq || tid_le(d->v[i].sequence, seq))
			seq = d->v[i].sequence;
		have_seq = 1;
		if (!tid_le(d->v[i].sequence, cov->prev.tid))
			seen = 0;
	}
	if (seen) {
		*born = 1;
		return 0;
	}
	if (!cov->have_from || !ipb)
		return 0;
	blk = ext2fs_inode_table_loc(fs, (ino - 1) / ipg);
	if (!blk)
		return 0;
	blk += ((ino - 1) % ipg) / ipb;
	v = e2sr_history_versions(&ctx->history, blk, &count);
	for (i = 0; i < count; i++) {
		const struct ext2_inode_large *rec;

		if (v[i].kind != E2SR_JK_ITABLE || !v[i].verified ||
		    ino < v[i].ino || ino - v[i].ino >= v[i].ino_count ||
		    !e2sr_coverage_readable(cov, v[i].sequence) ||
		    (have_seq && tid_le(seq, v[i].sequence)))
			continue;
		err = read_copy(d, v[i].jblock, v[i].escaped, 0);
		if (err)
			return err;
		rec = (const struct ext2_inode_large *)
		      (d->block + (ino - v[i].ino) * isz);
		if (!rec->i_mode && !rec->i_flags) {
			*born = 1;	/* never used then */
			return 0;
		}
		memcpy(d->inode, rec, isz);
		if (ext2fs_has_feature_metadata_csum(fs->super) &&
		    !ext2fs_inode_csum_verify(fs, ino, d->inode))
			continue;
		if (d->inode->i_generation != gen) {
			*born = 1;	/* someone else's then */
			return 0;
		}
	}
	return 0;
}

/* Every EA inode the secure-delete files' entries named. */
static errcode_t take_ea_inodes(struct discover *d)
{
	size_t a, b;
	errcode_t err;

	if (!d->refs.n)
		return 0;
	e2sr_ea_refs_sort(&d->refs);
	/* Identities discovery added are looked up from now on too. */
	ext2fs_free_mem(&d->files);
	d->files = NULL;
	d->nfiles = 0;
	err = index_files(d);
	for (a = 0; !err && a < d->refs.n; a = b) {
		if (e2sr_cancelled(d->ctx))
			return E2SR_ERR_CANCELLED;
		for (b = a + 1; b < d->refs.n &&
		     d->refs.v[b].ea_ino == d->refs.v[a].ea_ino; b++)
			;
		err = take_ea_inode(d, a, b);
	}
	return err;
}

static int cmp_commit_time(const void *a, const void *b)
{
	const struct commit_time *x = a, *y = b;

	return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

/* The walk's commits by transaction, for when_started(). */
static errcode_t index_commits(struct discover *d)
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
static errcode_t check_unseen(struct discover *d, size_t first, size_t end,
			      size_t idx)
{
	struct e2sr_file *file = &d->ctx->inv.files[idx];
	struct window *w = NULL;
	const struct window *prev = NULL;
	size_t i, n = 0;
	int proven, whole = 1;
	errcode_t err;

	if (!d->fc_used || file->state == E2SR_STATE_ORPHAN ||
	    file->state == E2SR_STATE_UNCLEAR)
		return 0;
	/*
	 * A directory in use never gives a block back (ext4 does not
	 * shrink directories): what it gained it still has.
	 */
	if (file->state == E2SR_STATE_LIVE && LINUX_S_ISDIR(file->mode))
		return 0;
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
		err = e2sr_unseen_whole(d->ctx, &d->unseen, w[i].sequence,
					&proven);
		if (!err)
			err = e2sr_array_room(&d->wins, &d->awins,
					      d->nwins + 1, sizeof(*d->wins));
		if (err)
			goto out;
		d->wins[d->nwins++] = w[i].sequence;
		if (!proven)
			whole = 0;
	}
	if (!whole && (file->state == E2SR_STATE_DELETED ||
		       file->state == E2SR_STATE_HISTORIC)) {
		file->map_status |= E2SR_MAP_DAMAGED;
		if (!file->map_error)
			file->map_error = E2SR_ERR_MAP_UNPROVEN;
	}
out:
	ext2fs_free_mem(&w);
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

/*
 * What one record maps that needs no other block to read: the extents in
 * i_block (not unwritten ones: their blocks hold anyone's old bytes), or
 * the index blocks of a deeper tree, or the direct and indirect blocks of
 * an indirect map; and its EA block.  Only files, directories and slow
 * symlinks: other records keep other things in i_block.
 */
static errcode_t record_owned(struct discover *d, struct owned_list *o,
			      const struct ext2_inode_large *in, __u32 tid)
{
	ext2_filsys fs = d->ctx->fs;
	const struct ext3_extent_header *eh = (const void *)in->i_block;
	const struct ext3_extent *ex = (const void *)(eh + 1);
	const struct ext3_extent_idx *ix = (const void *)(eh + 1);
	__u16 i, n;
	__u32 len;
	errcode_t err = 0;

	if (!LINUX_S_ISREG(in->i_mode) && !LINUX_S_ISDIR(in->i_mode) &&
	    !LINUX_S_ISLNK(in->i_mode))
		return 0;
	/* A deleted record (debugfs' kill_file keeps its map) owns none. */
	if ((in->i_flags & EXT4_INLINE_DATA_FL) || !in->i_blocks ||
	    !in->i_links_count || in->i_dtime)
		return 0;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC)
			return 0;
		n = ext2fs_le16_to_cpu(eh->eh_entries);
		if (n > 4)
			return 0;
		for (i = 0; i < n && !err; i++) {
			if (ext2fs_le16_to_cpu(eh->eh_depth)) {
				err = add_owned(o, ext2fs_le32_to_cpu(
						ix[i].ei_leaf) |
					((blk64_t)ext2fs_le16_to_cpu(
						ix[i].ei_leaf_hi) << 32), 1,
					tid);
				continue;
			}
			len = ext2fs_le16_to_cpu(ex[i].ee_len);
			if (len > EXT_INIT_MAX_LEN)
				continue;	/* unwritten */
			err = add_owned(o, ext2fs_le32_to_cpu(ex[i].ee_start) |
					((blk64_t)ext2fs_le16_to_cpu(
						ex[i].ee_start_hi) << 32),
					len, tid);
		}
	} else if (!LINUX_S_ISLNK(in->i_mode) ||
		   EXT2_I_SIZE(in) >= sizeof(in->i_block)) {
		for (i = 0; i < EXT2_N_BLOCKS && !err; i++)
			err = add_owned(o, ext2fs_le32_to_cpu(in->i_block[i]),
					1, tid);
	}
	if (!err)
		err = add_owned(o, ext2fs_file_acl_block(fs,
					(const struct ext2_inode *)in), 1, tid);
	return err;
}

/*
 * Every run a committed copy of some record, or a whole fast commit,
 * shows its owner wrote, with the transaction: what proves a block the
 * window of an older transaction marks is someone else's since.  Only
 * asked for when some window is to be marked; it reads every inode table
 * copy of the log again.
 */
static errcode_t collect_owned(struct discover *d, struct owned_list *o)
{
	const struct e2sr_history *h = &d->ctx->history;
	ext2_filsys fs = d->ctx->fs;
	struct e2sr_irec c;
	size_t i, cur = 0;
	__u32 last = 0;
	int have = 0;
	errcode_t err = 0;

	o->first = fs->super->s_first_data_block;
	o->end = ext2fs_blocks_count(fs->super);
	for (i = 0; i < h->nrecs && !err; i++) {
		if (e2sr_cancelled(d->ctx))
			return E2SR_ERR_CANCELLED;
		e2sr_history_rec(h, i, &cur, &c);
		if (!committed(d, c.sequence))
			continue;
		if (!have || c.jblock != last) {
			err = read_copy(d, c.jblock, c.escaped, 1);
			if (err)
				return err;
			last = c.jblock;
			have = 1;
		}
		if (load_record(d, c.ino, c.offset, 0))
			continue;
		err = record_owned(d, o, d->inode, c.sequence);
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
static errcode_t account_owners(struct discover *d)
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

/* One identity: versions [first, end) of d->v, same ino and generation. */
static errcode_t take_identity(struct discover *d, size_t first, size_t end)
{
	struct e2sr_ctx *ctx = d->ctx;
	const struct iversion *iv = &d->v[first];
	struct e2sr_file *file;
	int secrm = 0;
	long idx, life = -1;
	size_t i;
	errcode_t err;

	idx = find_file(d, iv->ino, iv->generation);
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
	}
	ctx->inv.files[idx].versions += end - first;
	err = map_versions(d, first, end, (size_t)idx,
			   d->ea_inode && follows_refs(&ctx->inv.files[idx]));
	if (err)
		return err;
	err = map_ranges(d, (size_t)idx, iv->ino, iv->generation);
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

		err = map_distinct(file, &known);
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
	return check_unseen(d, first, end, (size_t)idx);
}

/*
 * Without a journal there are no versions, but EA inodes the live records
 * name are still the files' own.
 */
errcode_t e2sr_discover_journal(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct discover d;
	size_t i, first;
	errcode_t err = 0;

	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.ea_inode = ext2fs_has_feature_ea_inode(fs->super);
	if (!ctx->journal && !d.ea_inode)
		return e2sr_coverage_scan(ctx);
	if (ctx->journal && !ctx->history.built) {
		err = e2sr_history_build(fs, ctx->journal, 0, &ctx->history);
		if (err)
			return err;
	}
	/* How far back the history reaches: what "empty" can rest on. */
	err = e2sr_coverage_scan(ctx);
	if (err)
		return err;
	d.isize = EXT2_INODE_SIZE(fs->super);
	if (d.isize < sizeof(struct ext2_inode_large))
		d.isize = sizeof(struct ext2_inode_large);
	err = ext2fs_get_mem(fs->blocksize, &d.block);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &d.eablock);
	if (!err)
		err = ext2fs_get_memzero(d.isize, &d.inode);
	if (!err)
		err = ext2fs_get_memzero(d.isize, &d.live);
	if (!err)
		err = index_files(&d);
	if (!err && d.ea_inode)
		err = live_refs(&d);
	if (!err && ctx->journal)
		err = collect_versions(&d);
	if (!err && ctx->journal)
		err = index_commits(&d);
	if (!err && d.n)
		err = collect_lives(&d);
	if (!err && d.n) {
		io_manager m;

		d.near.h = &ctx->history;
		m = e2sr_view_manager_lookup(ctx->journal, nearest_copy,
					     &d.near);
		/* Without it, maps are read from the device alone. */
		if (m->open(fs->device_name, 0, &d.hio) ||
		    io_channel_set_blksize(d.hio, fs->blocksize)) {
			if (d.hio)
				io_channel_close(d.hio);
			d.hio = NULL;
		}
	}
	for (first = 0; !err && first < d.n; first = i) {
		if (e2sr_cancelled(ctx)) {
			err = E2SR_ERR_CANCELLED;
			break;
		}
		for (i = first + 1; i < d.n &&
		     d.v[i].ino == d.v[first].ino &&
		     d.v[i].generation == d.v[first].generation; i++)
			;
		err = take_identity(&d, first, i);
	}
	if (!err)
		err = take_ea_inodes(&d);
	if (!err)
		err = account_owners(&d);
	if (d.hio)
		io_channel_close(d.hio);
	ext2fs_free_mem(&d.v);
	ext2fs_free_mem(&d.r);
	ext2fs_free_mem(&d.files);
	e2sr_ea_refs_free(&d.refs);
	ext2fs_free_mem(&d.block);
	ext2fs_free_mem(&d.eablock);
	ext2fs_free_mem(&d.inode);
	ext2fs_free_mem(&d.live);
	ext2fs_free_mem(&d.ct);
	ext2fs_free_mem(&d.wins);
	ext2fs_free_mem(&d.lives);
	e2sr_unseen_free(&d.unseen);
	return err;
}
