/*
 * ring_facts.c --- the facts of each log position, kept between runs.
 *
 * Owns struct e2sr_ring_facts (ring_facts.h): its arrays, a jbd2 block's
 * bytes kept short (the zeros between its last byte of content and its
 * tail are not kept), the records of an inode table copy as a stream
 * (slot, generation, then the runs the record names, each a pair of
 * varints, ended by a zero), and the one buffer the command keeps in the
 * state directory.  Nothing here reads the device or knows what a
 * record means: the walk (journal_walk.c) and the history's look
 * (history_recs.c) fill the facts and read them back; which positions the
 * kernel wrote since is ring_fresh.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <string.h>

#include "e2secrm.h"
#include "util.h"
#include "ring_facts.h"

#define RF_MAGIC	"E2SRRNG1"
#define RF_ORDER	0x01020304U
#define RF_VERSION	3	/* 2: the names index (noff[]); 3: packed */
#define RF_TAIL		4	/* a jbd2 block's tail: its checksum */

struct rf_head {
	char		magic[8];
	__u32		order;
	__u32		version;
	__u32		first;
	__u32		last;
	__u32		blocksize;
	__u32		ident;
	__u32		sequence;
	__u32		newest;
	__u32		head;
	__u32		flags;		/* RF_HAS_NEWEST, RF_FC_ZERO */
	__u64		ndata;
};

/* rf_head.flags; a file of before RF_FC_ZERO holds 0 or 1 there. */
#define RF_HAS_NEWEST	0x1
#define RF_FC_ZERO	0x2

/*
 * What identifies the journal the facts are of: its geometry, features
 * and uuid.  Another value and nothing kept is taken.
 */
__u32 e2sr_rf_ident(const struct e2sr_jsb *jsb)
{
	__u32 v[10];
	__u32 crc;

	v[0] = jsb->version;
	v[1] = jsb->blocksize;
	v[2] = jsb->maxlen;
	v[3] = jsb->first;
	v[4] = jsb->last;
	v[5] = jsb->compat;
	/* jbd2 sets these as it goes: not the log's layout. */
	v[6] = jsb->incompat & ~(E2SR_JBD2_INCOMPAT_REVOKE |
				 E2SR_JBD2_INCOMPAT_FAST_COMMIT);
	v[7] = jsb->ro_compat;
	v[8] = jsb->fc_blocks;
	v[9] = jsb->csum_version;
	crc = e2sr_crc32c_le(~0U, (const unsigned char *)v, sizeof(v));
	return e2sr_crc32c_le(crc, jsb->uuid, sizeof(jsb->uuid));
}

errcode_t e2sr_rf_init(struct e2sr_ring_facts *f, const struct e2sr_jsb *jsb)
{
	size_t n;
	errcode_t err;

	memset(f, 0, sizeof(*f));
	if (jsb->last <= jsb->first || jsb->blocksize < 1024 ||
	    jsb->blocksize > 65536)
		return EXT2_ET_INVALID_ARGUMENT;
	f->first = jsb->first;
	f->last = jsb->last;
	f->blocksize = jsb->blocksize;
	f->ident = e2sr_rf_ident(jsb);
	f->sequence = jsb->sequence;
	n = jsb->last - jsb->first;
	err = ext2fs_get_arrayzero(n, sizeof(*f->bits), &f->bits);
	if (!err)
		err = ext2fs_get_arrayzero(n, sizeof(*f->key), &f->key);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*f->off), &f->off);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*f->noff), &f->noff);
	if (err) {
		e2sr_rf_free(f);
		return err;
	}
	memset(f->off, 0xff, n * sizeof(*f->off));
	memset(f->noff, 0xff, n * sizeof(*f->noff));
	return 0;
}

void e2sr_rf_free(struct e2sr_ring_facts *f)
{
	ext2fs_free_mem(&f->bits);
	ext2fs_free_mem(&f->key);
	ext2fs_free_mem(&f->off);
	ext2fs_free_mem(&f->noff);
	ext2fs_free_mem(&f->data);
	memset(f, 0, sizeof(*f));
}

static int in_log(const struct e2sr_ring_facts *f, __u32 pos)
{
	return f->bits && pos >= f->first && pos < f->last;
}

int e2sr_rf_known(const struct e2sr_ring_facts *f, __u32 pos)
{
	return in_log(f, pos) && (f->bits[pos - f->first] & E2SR_RF_KNOWN);
}

/* Room for @len more bytes of data; a failure marks the facts broken. */
static errcode_t data_room(struct e2sr_ring_facts *f, size_t len)
{
	errcode_t err;

	if (f->broken)
		return EXT2_ET_NO_MEMORY;
	if (f->ndata + len >= E2SR_RF_NONE) {
		f->broken = 1;
		return EXT2_ET_NO_MEMORY;
	}
	err = e2sr_array_room(&f->data, &f->adata, f->ndata + len, 1);
	if (err)
		f->broken = 1;
	return err;
}

static errcode_t put(struct e2sr_ring_facts *f, const void *p, size_t len)
{
	errcode_t err = data_room(f, len);

	if (err)
		return err;
	memcpy(f->data + f->ndata, p, len);
	f->ndata += len;
	return 0;
}

/* @v as a varint in @b, seven bits a byte, low first: its length. */
static size_t varint(__u64 v, unsigned char b[10])
{
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static errcode_t put_varint(struct e2sr_ring_facts *f, __u64 v)
{
	unsigned char b[10];

	return put(f, b, varint(v, b));
}

static int get_varint(const unsigned char **p, const unsigned char *end,
		      __u64 *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		unsigned char c = *(*p)++;

		*v |= (__u64)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

/*
 * A block that begins with the jbd2 magic: its bytes up to the last one
 * that is not zero before the tail, and the tail.  jbd2 zeroes a
 * descriptor, commit or revoke block before filling it, so this is a few
 * hundred bytes; what is kept gives the block back byte for byte
 * whatever it holds.
 */
errcode_t e2sr_rf_put_jbd2(struct e2sr_ring_facts *f, __u32 pos,
			   const unsigned char *b)
{
	unsigned int bs = f->blocksize, len = bs - RF_TAIL;
	unsigned char hdr[2];
	__u32 at = (__u32)f->ndata;
	errcode_t err;

	if (!in_log(f, pos))
		return 0;
	while (len && !b[len - 1])
		len--;
	hdr[0] = len & 0xff;
	hdr[1] = (len >> 8) & 0xff;
	err = put(f, hdr, 2);
	if (!err)
		err = put(f, b + bs - RF_TAIL, RF_TAIL);
	if (!err)
		err = put(f, b, len);
	if (!err && len >= 65536) {
		f->broken = 1;
		err = EXT2_ET_INVALID_ARGUMENT;
	}
	if (err)
		return err;
	f->bits[pos - f->first] = E2SR_RF_KNOWN | E2SR_RF_JBD2;
	f->off[pos - f->first] = at;
	f->noff[pos - f->first] = E2SR_RF_NONE;
	return 0;
}

/* The bytes e2sr_rf_put_jbd2() kept of @pos, whole, in @b. */
void e2sr_rf_get_jbd2(const struct e2sr_ring_facts *f, __u32 pos,
		      unsigned char *b)
{
	const unsigned char *p;
	unsigned int len;

	memset(b, 0, f->blocksize);
	if (!in_log(f, pos) || f->off[pos - f->first] == E2SR_RF_NONE)
		return;
	p = f->data + f->off[pos - f->first];
	len = p[0] | (p[1] << 8);
	memcpy(b + f->blocksize - RF_TAIL, p + 2, RF_TAIL);
	memcpy(b, p + 2 + RF_TAIL, len);
}

void e2sr_rf_forget(struct e2sr_ring_facts *f, __u32 pos)
{
	if (!in_log(f, pos))
		return;
	f->bits[pos - f->first] = 0;
	f->off[pos - f->first] = E2SR_RF_NONE;
	f->noff[pos - f->first] = E2SR_RF_NONE;
}

/*
 * Position @pos left all zero by this run: not stale, no directory, no
 * record in it, and whether the tag that claimed it still checks
 * (always, in a journal without checksums; a block that was zero
 * already is as it was).  @zero: two blocks, the first all zero, the
 * second scratch (the caller's, once for all positions).
 */
void e2sr_rf_zeroed(struct e2sr_ring_facts *f, const struct e2sr_jsb *jsb,
		    __u32 pos, unsigned char *zero)
{
	const struct e2sr_rf_key *k;
	__u32 i = pos - f->first;

	if (!in_log(f, pos))
		return;
	if ((f->bits[i] & E2SR_RF_KNOWN) && !(f->bits[i] & E2SR_RF_JBD2) &&
	    !(f->bits[i] & E2SR_RF_STALE))
		return;
	if (f->bits[i] & E2SR_RF_JBD2)
		f->bits[i] = 0;
	f->bits[i] &= E2SR_RF_CLAIMED;
	f->bits[i] |= E2SR_RF_KNOWN | E2SR_RF_NORECS;
	f->off[i] = E2SR_RF_NONE;
	f->noff[i] = E2SR_RF_NONE;
	if (!(f->bits[i] & E2SR_RF_CLAIMED))
		return;
	k = &f->key[i];
	if (e2sr_jtag_verifies(jsb, k->sequence, k->flags, k->csum, zero,
			       zero + f->blocksize)) {
		f->bits[i] |= E2SR_RF_VERIFIED;
		/* An escaped copy's records are taken slot by slot. */
		if (k->flags & E2SR_JBD2_FLAG_ESCAPE)
			e2sr_rf_forget(f, pos);
	}
}

/* The size of what off[] names for @pos, from its encoding. */
static size_t blob_len(const struct e2sr_ring_facts *f, __u32 pos)
{
	struct e2sr_rf_reader r;
	struct e2sr_rf_rec rec;
	blk64_t b;
	__u32 l;
	__u32 i = pos - f->first;
	const unsigned char *p = f->data + f->off[i];

	if (f->bits[i] & E2SR_RF_JBD2)
		return 2 + RF_TAIL + (p[0] | (p[1] << 8));
	if (!e2sr_rf_recs_open(f, pos, &r))
		return 0;
	while (e2sr_rf_recs_next(&r, &rec))
		while (e2sr_rf_recs_next_run(&r, &b, &l))
			;
	return (size_t)(r.p - p);
}

/*
 * @from's data copied whole into @to, just made by e2sr_rf_init() for the
 * same log: e2sr_rf_copy_pos() from @from then names a position's bytes
 * where they already are.  A walk that takes most of the log from the
 * last run's facts copied them position by position, each record blob
 * parsed for its length: on the scale image's steady state, 31 000 table
 * copies' records, a fifth of the walk.  What no position names any more
 * is dropped when the facts are kept (pack_data()).  The caller clears
 * ->base once @from may change or go.
 */
errcode_t e2sr_rf_adopt(struct e2sr_ring_facts *to,
			const struct e2sr_ring_facts *from)
{
	if (to->ndata || to->first != from->first || to->last != from->last ||
	    !from->bits || from->broken)
		return EXT2_ET_INVALID_ARGUMENT;
	/* Not put(): without room @to stays whole, to be copied into. */
	if (from->ndata &&
	    e2sr_array_room(&to->data, &to->adata, from->ndata, 1))
		return EXT2_ET_NO_MEMORY;
	if (from->ndata)
		memcpy(to->data, from->data, from->ndata);
	to->ndata = from->ndata;
	to->base = from;
	return 0;
}

/* Position @pos of @from, as it is, into @to (of the same log). */
errcode_t e2sr_rf_copy_pos(struct e2sr_ring_facts *to,
			   const struct e2sr_ring_facts *from, __u32 pos)
{
	__u32 i = pos - from->first, at = (__u32)to->ndata;
	const unsigned char *p;
	size_t len;
	errcode_t err;

	if (!in_log(from, pos) || !in_log(to, pos))
		return 0;
	to->bits[i] = from->bits[i];
	to->key[i] = from->key[i];
	if (to->base == from) {
		/* The same bytes at the same offsets (e2sr_rf_adopt). */
		to->off[i] = from->off[i];
		to->noff[i] = from->noff[i];
		if (!e2sr_rf_get_index(from, pos, &p, &len)) {
			to->bits[i] &= ~E2SR_RF_INDEX;
			to->noff[i] = E2SR_RF_NONE;
		}
		return 0;
	}
	to->off[i] = E2SR_RF_NONE;
	to->noff[i] = E2SR_RF_NONE;
	if (from->off[i] != E2SR_RF_NONE) {
		len = blob_len(from, pos);
		err = put(to, from->data + from->off[i], len);
		if (err) {
			to->bits[i] = 0;
			return err;
		}
		to->off[i] = at;
	}
	to->bits[i] &= ~E2SR_RF_INDEX;
	if (e2sr_rf_get_index(from, pos, &p, &len))
		return e2sr_rf_put_index(to, pos, p, len);
	return 0;
}

/*
 * The names index of @pos: a varint length, then its bytes.  A failure
 * marks the facts broken, as any put's does.
 */
errcode_t e2sr_rf_put_index(struct e2sr_ring_facts *f, __u32 pos,
			    const unsigned char *p, size_t len)
{
	__u32 at = (__u32)f->ndata, i = pos - f->first;
	errcode_t err;

	if (!in_log(f, pos))
		return 0;
	err = put_varint(f, len);
	if (!err)
		err = put(f, p, len);
	if (err)
		return err;
	f->noff[i] = at;
	f->bits[i] |= E2SR_RF_INDEX;
	return 0;
}

int e2sr_rf_get_index(const struct e2sr_ring_facts *f, __u32 pos,
		      const unsigned char **p, size_t *len)
{
	const unsigned char *q, *end;
	__u32 i = pos - f->first;
	__u64 l;

	if (!in_log(f, pos) || !(f->bits[i] & E2SR_RF_INDEX) ||
	    f->noff[i] == E2SR_RF_NONE || f->noff[i] >= f->ndata)
		return 0;
	q = f->data + f->noff[i];
	end = f->data + f->ndata;
	if (!get_varint(&q, end, &l) || l > (__u64)(end - q))
		return 0;
	*p = q;
	*len = (size_t)l;
	return 1;
}

int e2sr_rf_key_is(const struct e2sr_ring_facts *f, __u32 pos,
		   blk64_t fs_block, __u32 sequence, __u32 csum, __u32 flags)
{
	const struct e2sr_rf_key *k;

	if (!in_log(f, pos) ||
	    !(f->bits[pos - f->first] & E2SR_RF_CLAIMED))
		return 0;
	k = &f->key[pos - f->first];
	return k->fs_block == fs_block && k->sequence == sequence &&
	       k->csum == csum && k->flags == flags;
}

/*
 * A copy resolved under a tag: the records taken under another one
 * before (a position claimed again) are not its.
 */
void e2sr_rf_set_key(struct e2sr_ring_facts *f, __u32 pos, blk64_t fs_block,
		     __u32 sequence, __u32 csum, __u32 flags, int verified)
{
	__u32 i = pos - f->first;

	if (!in_log(f, pos))
		return;
	if (!e2sr_rf_key_is(f, pos, fs_block, sequence, csum, flags)) {
		f->bits[i] &= ~(E2SR_RF_RECS | E2SR_RF_RECS_TRUSTED |
				E2SR_RF_INDEX);
		f->off[i] = E2SR_RF_NONE;
		f->noff[i] = E2SR_RF_NONE;
	}
	f->bits[i] |= E2SR_RF_CLAIMED;
	f->bits[i] &= ~E2SR_RF_VERIFIED;
	if (verified)
		f->bits[i] |= E2SR_RF_VERIFIED;
	f->key[i].fs_block = fs_block;
	f->key[i].sequence = sequence;
	f->key[i].csum = csum;
	f->key[i].flags = flags;
	f->key[i].pad = 0;
}

/*
 * The records of the copy at @pos: a mode byte (trusted or verified),
 * the count, then each record.  Written while the look reads the copy.
 */
void e2sr_rf_recs_begin(struct e2sr_rf_writer *w, struct e2sr_ring_facts *f,
			__u32 pos, int trusted)
{
	unsigned char hdr[5] = { 0 };

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pos = pos;
	w->start = f->ndata;
	w->count_at = f->ndata + 1;
	if (!in_log(f, pos)) {
		w->err = EXT2_ET_INVALID_ARGUMENT;
		return;
	}
	hdr[0] = trusted ? 2 : 1;
	w->err = put(f, hdr, sizeof(hdr));
}

void e2sr_rf_recs_add(struct e2sr_rf_writer *w, __u16 slot, __u32 gen)
{
	unsigned char b[6];

	if (w->err)
		return;
	if (w->count)
		w->err = put_varint(w->f, 0);	/* the runs' end */
	b[0] = slot & 0xff;
	b[1] = slot >> 8;
	memcpy(b + 2, &gen, 4);
	if (!w->err)
		w->err = put(w->f, b, sizeof(b));
	w->count++;
}

void e2sr_rf_recs_run(struct e2sr_rf_writer *w, blk64_t pblk, __u32 len)
{
	if (w->err || !w->count)
		return;
	w->err = put_varint(w->f, (__u64)pblk + 1);
	if (!w->err)
		w->err = put_varint(w->f, len);
}

/* The copy's records are all written: they are its position's. */
errcode_t e2sr_rf_recs_end(struct e2sr_rf_writer *w)
{
	struct e2sr_ring_facts *f = w->f;
	__u32 i;

	if (!w->err && w->count)
		w->err = put_varint(f, 0);
	if (w->err) {
		if (f->data && w->start <= f->ndata)
			f->ndata = w->start;
		f->broken = 1;
		return w->err;
	}
	i = w->pos - f->first;
	memcpy(f->data + w->count_at, &w->count, 4);
	f->off[i] = (__u32)w->start;
	f->bits[i] &= ~(E2SR_RF_RECS | E2SR_RF_RECS_TRUSTED);
	f->bits[i] |= f->data[w->start] == 2 ? E2SR_RF_RECS_TRUSTED :
					       E2SR_RF_RECS;
	return 0;
}

/* Whether @pos has records kept; @r then reads them. */
int e2sr_rf_recs_open(const struct e2sr_ring_facts *f, __u32 pos,
		      struct e2sr_rf_reader *r)
{
	__u32 i = pos - f->first;

	memset(r, 0, sizeof(*r));
	if (!in_log(f, pos) || f->off[i] == E2SR_RF_NONE ||
	    !(f->bits[i] & (E2SR_RF_RECS | E2SR_RF_RECS_TRUSTED)) ||
	    (f->bits[i] & E2SR_RF_JBD2) || f->off[i] + 5 > f->ndata)
		return 0;
	r->p = f->data + f->off[i] + 5;
	r->end = f->data + f->ndata;
	memcpy(&r->left, f->data + f->off[i] + 1, 4);
	return 1;
}

int e2sr_rf_recs_next(struct e2sr_rf_reader *r, struct e2sr_rf_rec *rec)
{
	blk64_t b;
	__u32 l;

	while (r->in_runs && e2sr_rf_recs_next_run(r, &b, &l))
		;
	if (!r->left || r->end - r->p < 6)
		return 0;
	rec->slot = r->p[0] | (r->p[1] << 8);
	memcpy(&rec->generation, r->p + 2, 4);
	r->p += 6;
	r->left--;
	r->in_runs = 1;
	return 1;
}

int e2sr_rf_recs_next_run(struct e2sr_rf_reader *r, blk64_t *pblk,
			  __u32 *len)
{
	__u64 s, l;

	if (!r->in_runs)
		return 0;
	if (!get_varint(&r->p, r->end, &s) || !s ||
	    !get_varint(&r->p, r->end, &l) || l > 0xffffffffULL) {
		r->in_runs = 0;
		return 0;
	}
	*pblk = s - 1;
	*len = (__u32)l;
	return 1;
}

/*
 * What off[] and noff[] name, packed in position order into @out, with
 * their new offsets in @off and @noff (n each).  The data a run left
 * behind (a position zeroed, claimed again, read back) is not carried:
 * after a run that wiped most of the log, 42 of the scale image's 51 MB
 * of facts were such.  @room bounds what is written; a file read back
 * whose blobs overlap could name more than its data holds.
 */
static errcode_t pack_data(const struct e2sr_ring_facts *f,
			   unsigned char *out, size_t room, __u32 *off,
			   __u32 *noff, size_t *used)
{
	size_t n = f->last - f->first, i, at = 0, len;
	const unsigned char *p, *from;

	for (i = 0; i < n; i++) {
		off[i] = noff[i] = E2SR_RF_NONE;
		if (f->off[i] != E2SR_RF_NONE) {
			len = blob_len(f, f->first + i);
			if (len > room - at)
				return EXT2_ET_INVALID_ARGUMENT;
			memcpy(out + at, f->data + f->off[i], len);
			if (len)
				off[i] = (__u32)at;
			at += len;
		}
		if (!e2sr_rf_get_index(f, f->first + i, &p, &len))
			continue;
		/* The index as kept: its varint length, then its bytes. */
		from = f->data + f->noff[i];
		len += p - from;
		if (len > room - at)
			return EXT2_ET_INVALID_ARGUMENT;
		memcpy(out + at, from, len);
		noff[i] = (__u32)at;
		at += len;
	}
	*used = at;
	return 0;
}

/* A buffer the encoder writes into, its room known beforehand. */
struct rf_out {
	unsigned char	*p;
	size_t		at;
	size_t		cap;
	int		over;
};

static void out_bytes(struct rf_out *o, const void *b, size_t len)
{
	if (o->over || len > o->cap - o->at) {
		o->over = 1;
		return;
	}
	memcpy(o->p + o->at, b, len);
	o->at += len;
}

static void out_varint(struct rf_out *o, __u64 v)
{
	unsigned char b[10];

	out_bytes(o, b, varint(v, b));
}

/* The positions @v names (off[] or noff[]): a count, then each. */
static void out_offsets(struct rf_out *o, const __u32 *v, size_t n)
{
	size_t i, count = 0, prev = 0;

	for (i = 0; i < n; i++)
		count += v[i] != E2SR_RF_NONE;
	out_varint(o, count);
	for (i = 0; i < n; i++) {
		if (v[i] == E2SR_RF_NONE)
			continue;
		out_varint(o, i - prev);
		out_varint(o, v[i]);
		prev = i;
	}
}

/* A tid's step from the last, both ways round the 32-bit space. */
static __u32 zigzag(__u32 now, __u32 prev)
{
	__u32 d = now - prev;

	return (d << 1) ^ ((d & 0x80000000U) ? 0xffffffffU : 0);
}

static __u32 unzigzag(__u32 z, __u32 prev)
{
	return prev + ((z >> 1) ^ (0U - (z & 1)));
}

/*
 * One buffer: a header, the data (what the positions name, packed),
 * then the positions packed (version 3), and a crc32c of all of it (the
 * command writes it beside the state; a damaged one is not taken).  The
 * positions: the bits as runs (a count and a value; most of a log is
 * claimed copies the last -y zeroed, all alike), each claimed one's tag
 * (fs_block, the tid's step from the one before, csum, flags), and the
 * positions that name data, with where.  As whole arrays (version 2)
 * the facts of a 1 GiB log were 9 MB to read, check and write each
 * night; packed, a third of that.
 */
errcode_t e2sr_rf_encode(const struct e2sr_ring_facts *f, void **buf,
			 size_t *len)
{
	struct rf_head h;
	size_t n = f->last - f->first, i, run, used = 0;
	struct rf_out o;
	__u32 *off = NULL, *noff = NULL, prev = 0, crc;
	const struct e2sr_rf_key *k;
	errcode_t err;

	if (f->broken || !f->bits)
		return EXT2_ET_INVALID_ARGUMENT;
	memset(&o, 0, sizeof(o));
	/* At most: a run a position, every tag and offset at its longest. */
	o.cap = sizeof(h) + f->ndata + n * (5 + 2 + 10 + 5 + 4 + 5) +
		2 * (10 + n * (5 + 5)) + sizeof(crc);
	err = ext2fs_get_mem(o.cap, &o.p);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*off), &off);
	if (!err)
		err = ext2fs_get_array(n, sizeof(*noff), &noff);
	if (err)
		goto out;
	err = pack_data(f, o.p + sizeof(h), f->ndata, off, noff, &used);
	if (err)
		goto out;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, RF_MAGIC, sizeof(h.magic));
	h.order = RF_ORDER;
	h.version = RF_VERSION;
	h.first = f->first;
	h.last = f->last;
	h.blocksize = f->blocksize;
	h.ident = f->ident;
	h.sequence = f->sequence;
	h.newest = f->newest;
	h.head = f->head;
	h.flags = (f->has_newest ? RF_HAS_NEWEST : 0) |
		  (f->fc_zero ? RF_FC_ZERO : 0);
	h.ndata = used;
	memcpy(o.p, &h, sizeof(h));
	o.at = sizeof(h) + used;
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n && f->bits[i + run] == f->bits[i];
		     run++)
			;
		out_varint(&o, run);
		out_bytes(&o, &f->bits[i], sizeof(f->bits[i]));
	}
	for (i = 0; i < n; i++) {
		if (!(f->bits[i] & E2SR_RF_CLAIMED))
			continue;
		k = &f->key[i];
		out_varint(&o, k->fs_block);
		out_varint(&o, zigzag(k->sequence, prev));
		out_bytes(&o, &k->csum, sizeof(k->csum));
		out_varint(&o, k->flags);
		prev = k->sequence;
	}
	out_offsets(&o, off, n);
	out_offsets(&o, noff, n);
	if (o.over) {
		err = EXT2_ET_INVALID_ARGUMENT;
		goto out;
	}
	crc = e2sr_crc32c_le(~0U, o.p, o.at);
	out_bytes(&o, &crc, sizeof(crc));
	*buf = o.p;
	*len = o.at;
	o.p = NULL;
out:
	ext2fs_free_mem(&o.p);
	ext2fs_free_mem(&off);
	ext2fs_free_mem(&noff);
	return err;
}

static unsigned int jbd2_len(const struct e2sr_ring_facts *f, size_t i)
{
	const unsigned char *p = f->data + f->off[i];

	return p[0] | ((unsigned int)p[1] << 8);
}

/* Versions 1 and 2: the arrays whole, then the data. */
static int arrays_in(const unsigned char *p, size_t len, unsigned int version,
		     struct e2sr_ring_facts *f, size_t ndata)
{
	size_t n = f->last - f->first, at = sizeof(struct rf_head), i;

	if (len != at + n * (sizeof(*f->bits) + sizeof(*f->key) +
			     sizeof(*f->off) +
			     (version > 1 ? sizeof(*f->noff) : 0)) +
		   ndata)
		return 0;
	memcpy(f->bits, p + at, n * sizeof(*f->bits));
	at += n * sizeof(*f->bits);
	memcpy(f->key, p + at, n * sizeof(*f->key));
	at += n * sizeof(*f->key);
	memcpy(f->off, p + at, n * sizeof(*f->off));
	at += n * sizeof(*f->off);
	if (version > 1) {
		memcpy(f->noff, p + at, n * sizeof(*f->noff));
		at += n * sizeof(*f->noff);
	} else {
		/* Version 1 had no names index: its positions have none. */
		for (i = 0; i < n; i++)
			f->bits[i] &= ~E2SR_RF_INDEX;
	}
	if (ndata)
		memcpy(f->data, p + at, ndata);
	return 1;
}

/* A count then (step, where) pairs, into @v: 0 when it does not parse. */
static int offsets_in(const unsigned char **q, const unsigned char *end,
		      __u32 *v, size_t n)
{
	__u64 count, step, where, i, pos = 0;

	if (!get_varint(q, end, &count) || count > n)
		return 0;
	for (i = 0; i < count; i++) {
		if (!get_varint(q, end, &step) || !get_varint(q, end, &where) ||
		    (i && !step) || step >= n - pos || where >= E2SR_RF_NONE)
			return 0;
		pos += step;
		v[pos] = (__u32)where;
	}
	return 1;
}

/* Version 3: the data, then the positions packed (e2sr_rf_encode()). */
static int packed_in(const unsigned char *p, size_t len,
		     struct e2sr_ring_facts *f, size_t ndata)
{
	const unsigned char *q = p + sizeof(struct rf_head) + ndata;
	const unsigned char *end = p + len;
	size_t n = f->last - f->first, i = 0, j;
	struct e2sr_rf_key *k;
	__u64 run, v;
	__u32 prev = 0;
	__u16 bits;

	if (len < sizeof(struct rf_head) + ndata)
		return 0;
	if (ndata)
		memcpy(f->data, p + sizeof(struct rf_head), ndata);
	while (i < n) {
		if (!get_varint(&q, end, &run) || !run || run > n - i ||
		    end - q < (ptrdiff_t)sizeof(bits))
			return 0;
		memcpy(&bits, q, sizeof(bits));
		q += sizeof(bits);
		for (j = 0; j < run; j++)
			f->bits[i++] = bits;
	}
	for (i = 0; i < n; i++) {
		if (!(f->bits[i] & E2SR_RF_CLAIMED))
			continue;
		k = &f->key[i];
		if (!get_varint(&q, end, &v))
			return 0;
		k->fs_block = v;
		if (!get_varint(&q, end, &v) || v > 0xffffffffULL)
			return 0;
		k->sequence = unzigzag((__u32)v, prev);
		prev = k->sequence;
		if (end - q < (ptrdiff_t)sizeof(k->csum))
			return 0;
		memcpy(&k->csum, q, sizeof(k->csum));
		q += sizeof(k->csum);
		if (!get_varint(&q, end, &v) || v > 0xffffffffULL)
			return 0;
		k->flags = (__u32)v;
	}
	return offsets_in(&q, end, f->off, n) &&
	       offsets_in(&q, end, f->noff, n) && q == end;
}

errcode_t e2sr_rf_decode(const void *buf, size_t len,
			 struct e2sr_ring_facts *f)
{
	const unsigned char *p = buf;
	struct rf_head h;
	struct e2sr_jsb jsb;
	size_t n, i;
	__u32 crc;
	errcode_t err;
	int ok;

	memset(f, 0, sizeof(*f));
	if (len < sizeof(h) + sizeof(crc))
		return E2SR_ERR_RING_FACTS_BAD;
	memcpy(&crc, p + len - sizeof(crc), sizeof(crc));
	if (crc != e2sr_crc32c_le(~0U, p, len - sizeof(crc)))
		return E2SR_ERR_RING_FACTS_BAD;
	len -= sizeof(crc);
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, RF_MAGIC, sizeof(h.magic)) ||
	    h.order != RF_ORDER || !h.version || h.version > RF_VERSION ||
	    h.last <= h.first || h.ndata >= E2SR_RF_NONE ||
	    h.ndata > len - sizeof(h))
		return E2SR_ERR_RING_FACTS_BAD;
	n = h.last - h.first;
	memset(&jsb, 0, sizeof(jsb));
	jsb.first = h.first;
	jsb.last = h.last;
	jsb.blocksize = h.blocksize;
	jsb.sequence = h.sequence;
	err = e2sr_rf_init(f, &jsb);
	if (!err && h.ndata)
		err = ext2fs_get_mem(h.ndata, &f->data);
	if (err) {
		e2sr_rf_free(f);
		return err == EXT2_ET_INVALID_ARGUMENT ?
		       E2SR_ERR_RING_FACTS_BAD : err;
	}
	f->ident = h.ident;
	f->newest = h.newest;
	f->head = h.head;
	f->has_newest = !!(h.flags & RF_HAS_NEWEST);
	f->fc_zero = !!(h.flags & RF_FC_ZERO);
	f->ndata = f->adata = h.ndata;
	ok = h.version < 3 ? arrays_in(p, len, h.version, f, h.ndata) :
			     packed_in(p, len, f, h.ndata);
	if (!ok) {
		e2sr_rf_free(f);
		return E2SR_ERR_RING_FACTS_BAD;
	}
	for (i = 0; i < n; i++) {
		/* An index must lie in the data; its reader checks its end. */
		if ((f->bits[i] & E2SR_RF_INDEX) &&
		    (size_t)f->noff[i] >= f->ndata) {
			e2sr_rf_free(f);
			return E2SR_ERR_RING_FACTS_BAD;
		}
		if (f->off[i] == E2SR_RF_NONE)
			continue;
		/*
		 * A jbd2 block's bytes must be there whole; a records
		 * stream's count at least (its reader stops at the end of
		 * the data).  A copy with no record kept is a stream of 5
		 * bytes, shorter than a jbd2 block's least: as the last
		 * thing kept, the file was once refused for it.
		 */
		if (!(f->bits[i] & E2SR_RF_JBD2) &&
		    (size_t)f->off[i] + 5 > f->ndata) {
			e2sr_rf_free(f);
			return E2SR_ERR_RING_FACTS_BAD;
		}
		if ((f->bits[i] & E2SR_RF_JBD2) &&
		    ((size_t)f->off[i] + 2 + RF_TAIL > f->ndata ||
		     jbd2_len(f, i) > f->blocksize - RF_TAIL ||
		     (size_t)f->off[i] + 2 + RF_TAIL + jbd2_len(f, i) >
		     f->ndata)) {
			e2sr_rf_free(f);
			return E2SR_ERR_RING_FACTS_BAD;
		}
	}
	return 0;
}
