/*
 * plan_journal_index.c --- where a stale block of the log can hold
 * names, and the index of what it holds there, kept between runs.
 *
 * Owns the places the name search (plan_journal_names.c) and the search
 * for names' bytes (plan_journal.c) look at in one stale block: the
 * ranges of an inode table copy's inline directories or the whole of a
 * directory-shaped block, the aligned headers in them that read as
 * entries, and the slack where a name can lie without its header.  The
 * same walk gives each such block an index: the inode numbers of every
 * header that reads as an entry, and the keys (24-bit hashes) of the
 * three and four bytes that begin at each aligned place of the slack.
 * The ring facts
 * (ring_facts.c) keep it with the position; a later run asks the index
 * instead of reading the block, and reads it only when the index says
 * it may hold an entry of a secure-delete number or a name's first
 * bytes.  The facts hold a position only while its bytes are the ones
 * the index was made from (ring_fresh.c proves which the kernel wrote
 * since; a run forgets what it writes, and indexes again after the wipe
 * what it wrote in part), so a "no" is the block's own.  What a hit
 * means is the callers'.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_journal_int.h"
#include "e2secrm.h"
#include "util.h"
#include "find.h"

/*
 * The kind byte says the layout too: 1 and 2 were a first layout (a
 * filter where the keys are now), never to be read as this one.
 */
#define INDEX_DIR	3	/* made from a directory-shaped block */
#define INDEX_ITABLE	4	/* from an inode table copy's inline dirs */

/* A byte a name cannot hold. */
static int not_in_name(unsigned char c)
{
	return !c || c == '/';
}

/* A name the kernel could have written: no NUL, no slash. */
static int valid_name(const unsigned char *name, unsigned int len)
{
	return !memchr(name, 0, len) && !memchr(name, '/', len);
}

/*
 * Whether bytes [@off, @to) of @b begin with what reads as a directory
 * entry, removed ones and slack included: an aligned header whose
 * lengths fit and whose name the kernel could have written.  Its inode
 * is the caller's to judge.
 */
int e2sr_jplan_entry_at(const unsigned char *b, unsigned int to,
			unsigned int off)
{
	unsigned int rec_len, name_len;

	if (off + 8 >= to)
		return 0;
	rec_len = b[off + 4] | (b[off + 5] << 8);
	name_len = b[off + 6];
	if (!name_len || rec_len < 12 || (rec_len & 3) ||
	    8 + name_len > rec_len || off + 8 + name_len > to)
		return 0;
	return valid_name(b + off + 8, name_len);
}

/*
 * In a copy of an inode table block, the entries of inline directories:
 * after the parent's number in i_block, and in the in-inode xattr area
 * (system.data).  The rest of a record is numbers, no names.
 */
static errcode_t itable_ranges(struct e2sr_ctx *ctx, __u32 jblock,
			       const unsigned char *b, name_block_fn fn,
			       void *priv)
{
	unsigned int bs = ctx->journal->blocksize;
	unsigned int isz = EXT2_INODE_SIZE(ctx->fs->super), slot, extra;
	const unsigned char *r;
	errcode_t err;

	if (isz < EXT2_GOOD_OLD_INODE_SIZE || isz > bs)
		return 0;
	for (slot = 0; slot + isz <= bs; slot += isz) {
		r = b + slot;
		if (!e2sr_inline_dir_record(r))
			continue;
		err = fn(ctx, jblock, b, slot + 44, slot + 100, 0, priv);
		if (err)
			return err;
		if (isz <= EXT2_GOOD_OLD_INODE_SIZE + 4)
			continue;
		extra = r[128] | (r[129] << 8);
		if (extra & 3 || EXT2_GOOD_OLD_INODE_SIZE + extra >= isz)
			continue;
		err = fn(ctx, jblock, b, slot + EXT2_GOOD_OLD_INODE_SIZE + extra,
			 slot + isz, 0, priv);
		if (err)
			return err;
	}
	return 0;
}

/* The ranges of stale block @jblock that can hold entries, to @fn. */
errcode_t e2sr_jplan_block_ranges(struct e2sr_ctx *ctx, __u32 jblock,
				  const unsigned char *b, int itable,
				  name_block_fn fn, void *priv)
{
	if (itable)
		return itable_ranges(ctx, jblock, b, fn, priv);
	return fn(ctx, jblock, b, 0, ctx->journal->blocksize, 1, priv);
}

/*
 * Where a name can lie without its header in [from, to): in a block
 * that reads as a directory block, an entry's slack past its name, or
 * the name of an entry whose inode is zero (the first of a block,
 * removed); elsewhere, the whole range.  Each to @fn, until it returns
 * non-zero.
 */
void e2sr_jplan_slack(const unsigned char *b, unsigned int from,
		      unsigned int to, int dir, slack_fn fn, void *priv)
{
	unsigned int off, rec_len, used;

	if (!dir) {
		fn(priv, from, to);
		return;
	}
	/*
	 * e2sr_dir_shaped() checked the chain and every length in it; a
	 * length that would not move on ends it all the same.
	 */
	for (off = from; off + 8 <= to; off += rec_len) {
		rec_len = b[off + 4] | (b[off + 5] << 8);
		if (to >= 65536 && (rec_len == 65535 || !rec_len))
			rec_len = 65536;
		if (rec_len < 8 || off + rec_len > to)
			break;
		used = e2sr_get_le32(b + off) ? 8 + ((b[off + 6] + 3U) & ~3U) :
						8;
		if (used < rec_len && fn(priv, off + used, off + rec_len))
			return;
	}
}

/* The index being made of one block. */
struct index_make {
	const unsigned char	*b;
	__u32			*inos;
	size_t			ninos;
	size_t			ainos;
	__u32			*keys;
	size_t			nkeys;
	size_t			akeys;
	errcode_t		err;
};

/*
 * A key: the three or four bytes as a word, mixed (a multiply and two
 * shifts: a block has up to a thousand places, and this runs at each),
 * 24 bits of it.  A stale directory block holds a handful of keys: a
 * few hundred names match one by chance about once in a thousand blocks.
 */
static __u32 key_hash(const unsigned char *p, unsigned int len)
{
	__u32 h = p[0] | (p[1] << 8) | (p[2] << 16);

	if (len > 3)
		h |= (__u32)p[3] << 24;
	h = h * 0x9e3779b1U ^ len * 0x85ebca77U;
	h ^= h >> 15;
	h *= 0x2c1b3c6dU;
	h ^= h >> 12;
	return h >> 8;
}

static void add_u32(struct index_make *m, __u32 **v, size_t *n, size_t *a,
		    __u32 x)
{
	if (m->err)
		return;
	/* Room is made a block's worth at a time (e2sr_jplan_index_make). */
	if (*n >= *a)
		m->err = e2sr_array_room(v, a, *n + 1, sizeof(**v));
	if (!m->err)
		(*v)[(*n)++] = x;
}

/*
 * The first bytes of any name the byte search could find in [from, to):
 * it looks at each aligned place whose first byte is not zero, for names
 * of E2SR_NAME_MIN bytes or more that fit before @to.  A name holds no
 * NUL and no slash.
 */
static int slack_keys(void *priv, unsigned int from, unsigned int to)
{
	struct index_make *m = priv;
	const unsigned char *b = m->b;
	unsigned int p;

	for (p = from; p + E2SR_NAME_MIN <= to && !m->err; p += 4) {
		if (not_in_name(b[p]) || not_in_name(b[p + 1]) ||
		    not_in_name(b[p + 2]))
			continue;
		add_u32(m, &m->keys, &m->nkeys, &m->akeys, key_hash(b + p, 3));
		if (p + 4 <= to && !not_in_name(b[p + 3]))
			add_u32(m, &m->keys, &m->nkeys, &m->akeys,
				key_hash(b + p, 4));
	}
	return m->err != 0;
}

/* One range of the block: its entries' inodes and its slack's keys. */
static errcode_t index_range(struct e2sr_ctx *ctx, __u32 jblock,
			     const unsigned char *b, unsigned int from,
			     unsigned int to, int dir, void *priv)
{
	struct index_make *m = priv;
	unsigned int off;
	__u32 ino;

	(void)ctx;
	(void)jblock;
	for (off = from; off + 8 < to && !m->err; off += 4) {
		ino = e2sr_get_le32(b + off);
		if (ino && e2sr_jplan_entry_at(b, to, off))
			add_u32(m, &m->inos, &m->ninos, &m->ainos, ino);
	}
	if (!m->err)
		e2sr_jplan_slack(b, from, to, dir, slack_keys, m);
	return m->err;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * @v sorted, a byte at a time from the lowest (a byte alike in all is
 * passed over: keys have 24 bits), through @tmp (room for @n), and its
 * repeats dropped: the count left.  A block gives up to two thousand
 * keys; qsort's compare by call was a third of making an index, and
 * making them a seventh of an incremental -y after a 1% churn.
 */
static size_t unique_u32(__u32 *v, size_t n, __u32 *tmp)
{
	size_t count[256], i, k, c;
	__u32 *from = v, *to = tmp, *swap, any = 0, all = ~0U;
	unsigned int shift;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		any |= v[i];
		all &= v[i];
	}
	for (shift = 0; shift < 32; shift += 8) {
		if (!(((any ^ all) >> shift) & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(from[i] >> shift) & 0xff]++;
		for (i = 0, k = 0; i < 256; i++) {
			c = count[i];
			count[i] = k;
			k += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xff]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	for (i = 1, k = 0; i < n; i++)
		if (v[i] != v[k])
			v[++k] = v[i];
	return k + 1;
}

static size_t put_varint(unsigned char *p, __u32 v)
{
	size_t n = 0;

	do {
		p[n] = v & 0x7f;
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static int get_varint(const unsigned char **p, const unsigned char *end,
		      __u32 *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 35) {
		unsigned char c = *(*p)++;

		*v |= (__u32)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

/* The count of @v, then each (sorted) as its difference from the last. */
static size_t put_sorted(unsigned char *p, const __u32 *v, size_t n)
{
	size_t i, at;
	__u32 prev = 0;

	at = put_varint(p, n);
	for (i = 0; i < n; i++) {
		at += put_varint(p + at, v[i] - prev);
		prev = v[i];
	}
	return at;
}

/*
 * The index of stale block @jblock, whose bytes are @b: a kind byte, the
 * inode numbers, then the keys, each as put_sorted() puts them.  In
 * *@out, freed by the caller.
 */
errcode_t e2sr_jplan_index_make(struct e2sr_ctx *ctx, __u32 jblock,
				const unsigned char *b, int itable,
				unsigned char **out, size_t *len)
{
	struct index_make m;
	unsigned char *p = NULL;
	__u32 *tmp = NULL;
	size_t at = 0, places = ctx->journal->blocksize / 4;
	errcode_t err;

	*out = NULL;
	*len = 0;
	memset(&m, 0, sizeof(m));
	m.b = b;
	/* An entry and two keys at most at each aligned place. */
	err = e2sr_array_room(&m.inos, &m.ainos, places, sizeof(*m.inos));
	if (!err)
		err = e2sr_array_room(&m.keys, &m.akeys, 2 * places,
				      sizeof(*m.keys));
	if (!err)
		err = e2sr_jplan_block_ranges(ctx, jblock, b, itable,
					      index_range, &m);
	if (!err)
		err = ext2fs_get_array(m.ninos > m.nkeys ? m.ninos + 1 :
				       m.nkeys + 1,
				       sizeof(*tmp), &tmp);
	if (err)
		goto out;
	m.ninos = unique_u32(m.inos, m.ninos, tmp);
	m.nkeys = unique_u32(m.keys, m.nkeys, tmp);
	err = ext2fs_get_mem(1 + 5 * (m.ninos + m.nkeys + 2), &p);
	if (err)
		goto out;
	p[at++] = itable ? INDEX_ITABLE : INDEX_DIR;
	at += put_sorted(p + at, m.inos, m.ninos);
	at += put_sorted(p + at, m.keys, m.nkeys);
	*out = p;
	*len = at;
out:
	ext2fs_free_mem(&tmp);
	ext2fs_free_mem(&m.inos);
	ext2fs_free_mem(&m.keys);
	return err;
}

/* An index read back: where its two lists begin. */
struct index_view {
	const unsigned char	*inos;		/* the count, then varints */
	const unsigned char	*keys;
	const unsigned char	*end;
};

/* Past a list put_sorted() put: 0 when it does not parse. */
static int skip_sorted(const unsigned char **q, const unsigned char *end)
{
	__u32 n, i, x;

	if (!get_varint(q, end, &n))
		return 0;
	for (i = 0; i < n; i++)
		if (!get_varint(q, end, &x))
			return 0;
	return 1;
}

static int index_open(const unsigned char *p, size_t len, int itable,
		      struct index_view *v)
{
	const unsigned char *q;

	if (len < 1 || p[0] != (itable ? INDEX_ITABLE : INDEX_DIR))
		return 0;
	v->end = p + len;
	q = v->inos = p + 1;
	if (!skip_sorted(&q, v->end))
		return 0;
	v->keys = q;
	return skip_sorted(&q, v->end) && q == v->end;
}

static int has_u32(const __u32 *v, size_t n, __u32 x)
{
	return n && bsearch(&x, v, n, sizeof(*v), cmp_u32) != NULL;
}

/*
 * Whether the index @p (@len bytes, of a block of kind @itable) answers
 * for the block: it parses and is of that kind.  Then *@ask says
 * whether the block may hold an entry naming one of @set (when @set) or
 * the first bytes of a name whose key (e2sr_jplan_index_key()) is one of
 * @keys, sorted.
 */
int e2sr_jplan_index_ask(const unsigned char *p, size_t len, int itable,
			 const struct e2sr_ino_set *set, const __u32 *keys,
			 size_t nkeys, int *ask)
{
	struct index_view v;
	const unsigned char *q;
	__u32 n, i, x = 0, d;

	if (!index_open(p, len, itable, &v))
		return 0;
	*ask = 0;
	q = set ? v.inos : v.keys;
	get_varint(&q, v.end, &n);
	for (i = 0; i < n && !*ask; i++) {
		get_varint(&q, v.end, &d);
		x += d;
		*ask = set ? e2sr_ino_set_has(set, x) :
			     has_u32(keys, nkeys, x);
	}
	return 1;
}

/* The key a name of @len bytes (E2SR_NAME_MIN or more) is asked by. */
__u32 e2sr_jplan_index_key(const unsigned char *name, unsigned int len)
{
	return key_hash(name, len < 4 ? len : 4);
}

/*
 * The index that answers for name block @jb: the last run's, kept with
 * the position, else the one this run made when a pass before read the
 * block (e2sr_jplan_index_note) and keeps its facts.  The plan asks for
 * names twice (the names of secure-delete numbers, then their bytes):
 * the second pass then reads only what the first one's index says may
 * hold what it asks, not every directory copy the kernel wrote since,
 * again.  Nothing is written between the two; a run that writes forgets
 * what it wrote from its facts (e2sr_ring_settle), and a plan made again
 * after writes starts its facts again.
 */
static int index_kept(struct e2sr_ctx *ctx, __u32 jb,
		      const unsigned char **p, size_t *len)
{
	struct e2sr_ring_facts *out;

	if (e2sr_ring_index(ctx, jb, p, len))
		return 1;
	out = e2sr_ring_index_out(ctx);
	return out && e2sr_rf_get_index(out, jb, p, len);
}

/*
 * Whether name block @jb is passed over: the index kept of it says it
 * holds none of what @q asks.  -1 when no index answers.
 */
int e2sr_jplan_index_no(struct e2sr_ctx *ctx, const struct name_query *q,
			__u32 jb, int itable)
{
	const unsigned char *p;
	size_t len;
	int ask;

	if (!q || !index_kept(ctx, jb, &p, &len) ||
	    !e2sr_jplan_index_ask(p, len, itable, q->set, q->keys, q->nkeys,
				  &ask))
		return -1;
	return !ask;
}

/*
 * Block @jb read (its bytes @b): its index made and kept in this run's
 * facts when they have none for it that answers; with ring_check, the
 * index it was passed over by (@no > 0) compared with the one its bytes
 * give.
 */
errcode_t e2sr_jplan_index_note(struct e2sr_ctx *ctx, __u32 jb,
				 const unsigned char *b, int itable, int no)
{
	struct e2sr_ring_facts *out = e2sr_ring_index_out(ctx);
	const unsigned char *kept;
	unsigned char *made;
	size_t len, klen;
	int put, ask;
	errcode_t err;

	put = out && !(e2sr_rf_get_index(out, jb, &kept, &klen) &&
		       e2sr_jplan_index_ask(kept, klen, itable, NULL, NULL, 0,
					    &ask));
	if (!put && no <= 0)
		return 0;
	err = e2sr_jplan_index_make(ctx, jb, b, itable, &made, &len);
	if (err)
		return err == EXT2_ET_NO_MEMORY ? 0 : err;
	if (no > 0 && !(index_kept(ctx, jb, &kept, &klen) &&
			klen == len && !memcmp(kept, made, len)))
		err = E2SR_ERR_RING_FACTS_DIFFER;
	if (!err && put)
		err = e2sr_rf_put_index(out, jb, made, len);
	ext2fs_free_mem(&made);
	/* No room to keep it: the next run reads the block. */
	return err == EXT2_ET_NO_MEMORY ? 0 : err;
}

static void set_bit(__u8 *map, __u32 i)
{
	map[i >> 3] |= 1 << (i & 7);
}

static int test_bit(const __u8 *map, __u32 i)
{
	return map[i >> 3] & (1 << (i & 7));
}

/* The maps of the log's name blocks (ctx->names), made once. */
errcode_t e2sr_jplan_index_maps(struct e2sr_ctx *ctx)
{
	const struct e2sr_jsb *jsb = &ctx->history.walk.jsb;
	size_t len = (jsb->last - jsb->first) / 8 + 1;
	errcode_t err;

	if (ctx->names.name_map)
		return 0;
	ctx->names.map_first = jsb->first;
	err = ext2fs_get_memzero(len, &ctx->names.name_map);
	if (!err)
		err = ext2fs_get_memzero(len, &ctx->names.itable_map);
	if (err)
		ext2fs_free_mem(&ctx->names.name_map);
	return err;
}

/* Log block @jb is a name block (of an inode table, @itable). */
void e2sr_jplan_index_mark(struct e2sr_ctx *ctx, __u32 jb, int itable)
{
	set_bit(ctx->names.name_map, jb - ctx->names.map_first);
	if (itable)
		set_bit(ctx->names.itable_map, jb - ctx->names.map_first);
}

/*
 * After the wipe, and after the ring's facts took back what the run
 * wrote (e2sr_ring_settle()): each name block the run wrote in part
 * lost its index with its old bytes, and is read and indexed again, so
 * that the next run does not read it for names.  Before, the night after
 * a churn's clean run read again every directory copy that run had
 * wiped an entry in.  A block it zeroed whole is no name block.
 */
errcode_t e2sr_jplan_index_written(struct e2sr_ctx *ctx)
{
	struct e2sr_ring_facts *out = e2sr_ring_index_out(ctx);
	const struct e2sr_journal *j = ctx->journal;
	const unsigned char *b, *kept;
	unsigned char *made;
	size_t len, klen;
	__u32 pos, i;
	int itable;
	errcode_t err = 0;

	if (!out || !j || !ctx->names.name_map || !j->written)
		return 0;
	for (pos = out->first; !err && pos < out->last; pos++) {
		i = pos - ctx->names.map_first;
		if (pos < ctx->names.map_first ||
		    !test_bit(ctx->names.name_map, i) ||
		    !e2sr_journal_wrote(j, pos) ||
		    e2sr_journal_zeroed(j, pos) ||
		    !e2sr_rf_known(out, pos) ||
		    e2sr_rf_get_index(out, pos, &kept, &klen))
			continue;
		/*
		 * Still a name block as the read-back found it: what the
		 * wipe left may no longer read as a directory block.
		 */
		itable = !!test_bit(ctx->names.itable_map, i);
		if (!(out->bits[pos - out->first] &
		      (itable ? E2SR_RF_INLINE : E2SR_RF_DIRLIKE)))
			continue;
		err = e2sr_journal_block(ctx->journal, pos, &b);
		if (err)
			break;
		err = e2sr_jplan_index_make(ctx, pos, b, itable, &made, &len);
		if (err)
			break;
		err = e2sr_rf_put_index(out, pos, made, len);
		ext2fs_free_mem(&made);
	}
	/* No room to keep one: the next run reads the block. */
	return err == EXT2_ET_NO_MEMORY ? 0 : err;
}
