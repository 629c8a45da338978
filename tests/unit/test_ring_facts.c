/*
 * test_ring_facts.c --- the ring's kept facts (ring_facts.c), the walk
 * that takes positions from them (journal_walk.c), and which positions
 * the kernel wrote since (ring_fresh.c), on journals debugfs and
 * journal_write.c write on real images: the history from the facts must
 * be the history from the whole log, byte for byte, and a block changed
 * behind the facts' back must be seen to change it.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "jbd2.h"
#include "journal.h"
#include "testimg.h"
#include "crc32c.h"

/* What ring_fresh.c always reads: the default fast-commit area and one. */
#define FC_AREA		257

struct opened {
	ext2_filsys		fs;
	struct e2sr_journal	*j;
};

/* mke2fs, then two transactions written by debugfs (jblocks 1 to 7). */
static void make_two(struct testimg *t)
{
	char script[PATH_MAX + 128], data[PATH_MAX];
	int n;

	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 "
				     "-O metadata_csum '%s' 16M "
				     ">/dev/null 2>&1", t->img), 0);
	assert_int_equal(testimg_make_file(t, "data", 3 * 4096, 5), 0);
	assert_int_equal(testimg_path(t, "data", data, sizeof(data)), 0);
	n = snprintf(script, sizeof(script),
		     "jo -c\njw -b 100,200 %s\njc\njo\njw -b 300 %s\njc\n",
		     data, data);
	assert_true(n > 0 && (size_t)n < sizeof(script));
	assert_int_equal(testimg_debugfs(t, script), 0);
}

static void open_j(const char *img, struct opened *o)
{
	char detail[160];

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &o->fs),
			 0);
	assert_int_equal(ext2fs_read_bitmaps(o->fs), 0);
	assert_int_equal(e2sr_journal_open(o->fs, NULL, &o->j, detail,
					   sizeof(detail)), 0);
}

static void close_j(struct opened *o)
{
	e2sr_journal_close(o->j);
	ext2fs_close_free(&o->fs);
}

/* The history of @img, from @in and @fresh when given; @out filled. */
static void build(const char *img, const struct e2sr_ring_facts *in,
		  const __u8 *fresh, struct e2sr_ring_facts *out,
		  struct e2sr_history *h)
{
	struct e2sr_hist_facts hf;
	struct opened o;

	memset(&hf, 0, sizeof(hf));
	hf.in = in;
	hf.fresh = fresh;
	hf.out = out;
	open_j(img, &o);
	assert_int_equal(e2sr_history_build_facts(o.fs, o.j, 0, &hf, h), 0);
	close_j(&o);
}

static int same_walk(const struct e2sr_history *a,
		     const struct e2sr_history *b)
{
	const struct e2sr_jwalk *x = &a->walk, *y = &b->walk;
	size_t i, bits = (x->jsb.last - x->jsb.first) / 8 + 1;

	if (x->nblocks != y->nblocks || x->ncommits != y->ncommits ||
	    x->nrevokes != y->nrevokes || x->nstale != y->nstale ||
	    x->descriptors != y->descriptors ||
	    x->bad_blocks != y->bad_blocks || a->n != b->n ||
	    a->nrecs != b->nrecs || a->nicopies != b->nicopies)
		return 0;
	for (i = 0; i < x->nblocks; i++)
		if (x->blocks[i].jblock != y->blocks[i].jblock ||
		    x->blocks[i].fs_block != y->blocks[i].fs_block ||
		    x->blocks[i].sequence != y->blocks[i].sequence ||
		    x->blocks[i].verified != y->blocks[i].verified ||
		    x->blocks[i].trusted != y->blocks[i].trusted ||
		    x->blocks[i].committed != y->blocks[i].committed ||
		    x->blocks[i].zero != y->blocks[i].zero)
			return 0;
	for (i = 0; i < x->ncommits; i++)
		if (x->commits[i].jblock != y->commits[i].jblock ||
		    x->commits[i].sequence != y->commits[i].sequence ||
		    x->commits[i].commit_sec != y->commits[i].commit_sec)
			return 0;
	for (i = 0; i < a->nrecs; i++)
		if (a->rec_gen[i] != b->rec_gen[i] ||
		    a->rec_slot[i] != b->rec_slot[i])
			return 0;
	return !memcmp(x->stale, y->stale, bits) &&
	       !memcmp(a->dirlike, b->dirlike, bits) &&
	       !memcmp(a->inline_dirs, b->inline_dirs, bits);
}

/* The fs block holding journal block @lblk. */
static blk64_t jblock_phys(const char *img, blk64_t lblk)
{
	ext2_filsys fs;
	blk64_t pblk = 0;

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_JOURNAL_INO, NULL, NULL, 0,
				      lblk, NULL, &pblk), 0);
	ext2fs_close_free(&fs);
	assert_true(pblk != 0);
	return pblk;
}

static void rw_jblock(const char *img, blk64_t lblk, unsigned char *buf,
		      int write)
{
	blk64_t pblk = jblock_phys(img, lblk);
	ssize_t n;
	int fd;

	fd = open(img, O_RDWR);
	assert_true(fd >= 0);
	if (write)
		n = pwrite(fd, buf, 4096, (off_t)pblk * 4096);
	else
		n = pread(fd, buf, 4096, (off_t)pblk * 4096);
	assert_int_equal(n, 4096);
	assert_int_equal(close(fd), 0);
}

/*
 * The journal superblock's s_sequence set to @seq and s_start to 0 (as
 * the kernel leaves it clean), checksum and all.
 */
static void set_jsb_sequence(const char *img, __u32 seq)
{
	unsigned char b[4096];
	__u32 crc;

	rw_jblock(img, 0, b, 0);
	memset(b + 0x1c, 0, 4);
	b[0x18] = seq >> 24;
	b[0x19] = seq >> 16;
	b[0x1a] = seq >> 8;
	b[0x1b] = seq;
	memset(b + 0xFC, 0, 4);
	crc = ext2fs_crc32c_le(~0U, b, 1024);
	b[0xFC] = crc >> 24;
	b[0xFD] = crc >> 16;
	b[0xFE] = crc >> 8;
	b[0xFF] = crc;
	rw_jblock(img, 0, b, 1);
}

/* Empty facts of a log of positions 1 to 8, blocks of @bs bytes. */
static void facts_of_eight(struct e2sr_ring_facts *f, unsigned int bs)
{
	struct e2sr_jsb jsb;

	memset(&jsb, 0, sizeof(jsb));
	jsb.first = 1;
	jsb.last = 9;
	jsb.blocksize = bs;
	assert_int_equal(e2sr_rf_init(f, &jsb), 0);
}

/* A jbd2 block's bytes are kept short and given back whole. */
static void test_jbd2_bytes(void **state)
{
	struct e2sr_ring_facts f;
	unsigned char b[4096], back[4096];
	int k;

	(void)state;
	facts_of_eight(&f, 4096);
	for (k = 0; k < 3; k++) {
		memset(b, 0, sizeof(b));
		b[0] = 0xC0;
		b[1] = 0x3B;
		b[2] = 0x39;
		b[3] = 0x98;
		b[100] = 7;
		if (k >= 1)
			b[4095] = 9;	/* a tail */
		if (k == 2)
			memset(b + 200, 0x5a, 3800);	/* up to the tail */
		assert_int_equal(e2sr_rf_put_jbd2(&f, 1 + k, b), 0);
		e2sr_rf_get_jbd2(&f, 1 + k, back);
		assert_memory_equal(b, back, sizeof(b));
	}
	/* Short: the first holds 101 bytes and a tail of 4. */
	assert_true(f.ndata < 3 * 4096);
	e2sr_rf_free(&f);
}

/* The records of a copy, with their runs, read back as written. */
static void test_records(void **state)
{
	struct e2sr_ring_facts f;
	struct e2sr_rf_writer w;
	struct e2sr_rf_reader r;
	struct e2sr_rf_rec rec;
	blk64_t pblk;
	__u32 len;

	(void)state;
	facts_of_eight(&f, 1024);
	e2sr_rf_recs_begin(&w, &f, 4, 0);
	e2sr_rf_recs_add(&w, 3, 0xdeadbeef);
	e2sr_rf_recs_run(&w, 0x123456789ULL, 8);
	e2sr_rf_recs_run(&w, 17, 1);
	e2sr_rf_recs_add(&w, 0x8005, 2);
	e2sr_rf_recs_add(&w, 6, 3);
	e2sr_rf_recs_run(&w, 1, 32768);
	assert_int_equal(e2sr_rf_recs_end(&w), 0);
	assert_true(f.bits[4 - 1] & E2SR_RF_RECS);
	assert_true(e2sr_rf_recs_open(&f, 4, &r));
	assert_int_equal(r.left, 3);
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_int_equal(rec.slot, 3);
	assert_int_equal(rec.generation, 0xdeadbeef);
	assert_true(e2sr_rf_recs_next_run(&r, &pblk, &len));
	assert_true(pblk == 0x123456789ULL && len == 8);
	/* The rest of this record's runs skipped by the next record. */
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_int_equal(rec.slot, 0x8005);
	assert_false(e2sr_rf_recs_next_run(&r, &pblk, &len));
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_int_equal(rec.generation, 3);
	assert_true(e2sr_rf_recs_next_run(&r, &pblk, &len));
	assert_true(pblk == 1 && len == 32768);
	assert_false(e2sr_rf_recs_next_run(&r, &pblk, &len));
	assert_false(e2sr_rf_recs_next(&r, &rec));
	assert_false(e2sr_rf_recs_open(&f, 5, &r));
	e2sr_rf_free(&f);
}

/*
 * A copy with no record kept, as the last thing in the data: a stream
 * of 5 bytes, which decode once refused as damage (the scale bench's
 * first run after a -y read the whole log for it).
 */
static void test_empty_records_last(void **state)
{
	struct e2sr_ring_facts f, g;
	struct e2sr_rf_writer w;
	struct e2sr_rf_reader r;
	struct e2sr_rf_rec rec;
	unsigned char b[1024];
	void *buf;
	size_t len;

	(void)state;
	facts_of_eight(&f, 1024);
	memset(b, 0, sizeof(b));
	b[0] = 0xC0;
	b[1] = 0x3B;
	b[2] = 0x39;
	b[3] = 0x98;
	assert_int_equal(e2sr_rf_put_jbd2(&f, 1, b), 0);
	e2sr_rf_recs_begin(&w, &f, 4, 0);
	assert_int_equal(e2sr_rf_recs_end(&w), 0);
	assert_int_equal(e2sr_rf_encode(&f, &buf, &len), 0);
	assert_int_equal(e2sr_rf_decode(buf, len, &g), 0);
	assert_true(e2sr_rf_recs_open(&g, 4, &r));
	assert_false(e2sr_rf_recs_next(&r, &rec));
	free(buf);
	e2sr_rf_free(&g);
	e2sr_rf_free(&f);
}

/*
 * The names index of a position (plan_journal_index.c's bytes) is kept
 * beside its records, carried by a copy, given back by a decode, and
 * dropped when the position is forgotten or claimed under another tag.
 * Version 1 of the buffer had none: it is still taken, without them.
 */
static void test_names_index(void **state)
{
	static const unsigned char ix[] = { 1, 2, 0x81, 0x01, 5, 8,
					    1, 2, 3, 4, 5, 6, 7, 8 };
	struct e2sr_ring_facts f, g, h;
	struct e2sr_rf_writer w;
	struct e2sr_rf_reader r;
	struct e2sr_rf_rec rec;
	const unsigned char *p;
	unsigned char *buf;
	size_t len, plen, head, k1, n = 8;
	unsigned char *v1;
	__u64 nd;
	__u32 crc;

	(void)state;
	facts_of_eight(&f, 1024);
	e2sr_rf_recs_begin(&w, &f, 4, 0);
	e2sr_rf_recs_add(&w, 3, 7);
	assert_int_equal(e2sr_rf_recs_end(&w), 0);
	f.bits[4 - 1] |= E2SR_RF_KNOWN | E2SR_RF_STALE;
	assert_int_equal(e2sr_rf_put_index(&f, 4, ix, sizeof(ix)), 0);
	f.bits[5 - 1] |= E2SR_RF_KNOWN | E2SR_RF_STALE;
	assert_int_equal(e2sr_rf_put_index(&f, 5, ix, 3), 0);
	assert_false(e2sr_rf_get_index(&f, 6, &p, &plen));
	assert_true(e2sr_rf_get_index(&f, 4, &p, &plen));
	assert_int_equal(plen, sizeof(ix));
	assert_memory_equal(p, ix, sizeof(ix));
	/* Kept and taken back. */
	assert_int_equal(e2sr_rf_encode(&f, (void **)&buf, &len), 0);
	assert_int_equal(e2sr_rf_decode(buf, len, &g), 0);
	assert_true(e2sr_rf_get_index(&g, 4, &p, &plen));
	assert_memory_equal(p, ix, sizeof(ix));
	assert_true(e2sr_rf_recs_open(&g, 4, &r));
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_int_equal(rec.generation, 7);
	/* Carried by a copy, records and index. */
	facts_of_eight(&h, 1024);
	assert_int_equal(e2sr_rf_copy_pos(&h, &g, 4), 0);
	assert_int_equal(e2sr_rf_copy_pos(&h, &g, 5), 0);
	assert_true(e2sr_rf_get_index(&h, 4, &p, &plen));
	assert_memory_equal(p, ix, sizeof(ix));
	assert_true(e2sr_rf_recs_open(&h, 4, &r));
	assert_true(e2sr_rf_get_index(&h, 5, &p, &plen));
	assert_int_equal(plen, 3);
	/* Forgotten, or claimed under another tag: no index. */
	e2sr_rf_forget(&h, 5);
	assert_false(e2sr_rf_get_index(&h, 5, &p, &plen));
	e2sr_rf_set_key(&h, 4, 1234, 5, 6, 0, 1);
	assert_false(e2sr_rf_get_index(&h, 4, &p, &plen));
	e2sr_rf_free(&h);
	e2sr_rf_free(&g);
	/*
	 * Version 1, as whole arrays: the header, bits[], key[], off[] (no
	 * noff[]), the data, the crc.  The header is version 3's, its
	 * version and data size changed.
	 */
	head = 56;
	k1 = head + n * (2 + sizeof(struct e2sr_rf_key) + 4) + f.ndata + 4;
	v1 = malloc(k1);
	assert_non_null(v1);
	memcpy(v1, buf, head);
	v1[12] = 1;
	v1[13] = v1[14] = v1[15] = 0;
	nd = f.ndata;
	memcpy(v1 + 48, &nd, 8);
	memcpy(v1 + head, f.bits, n * 2);
	memcpy(v1 + head + n * 2, f.key, n * sizeof(struct e2sr_rf_key));
	memcpy(v1 + head + n * (2 + sizeof(struct e2sr_rf_key)), f.off,
	       n * 4);
	memcpy(v1 + k1 - 4 - f.ndata, f.data, f.ndata);
	crc = e2sr_crc32c_le(~0U, v1, k1 - 4);
	memcpy(v1 + k1 - 4, &crc, 4);
	free(buf);
	buf = v1;
	len = k1;
	assert_int_equal(e2sr_rf_decode(buf, len, &g), 0);
	assert_false(e2sr_rf_get_index(&g, 4, &p, &plen));
	assert_true(e2sr_rf_recs_open(&g, 4, &r));
	free(buf);
	e2sr_rf_free(&g);
	e2sr_rf_free(&f);
}

static const unsigned char mixed_ix[] = { 3, 1, 4, 1, 5 };

/*
 * Facts of eight positions with something of each kind, some of it no
 * longer named: 2 records with a run, then forgotten; 3 a jbd2 block
 * (its bytes in @b); 4 trusted records with a run, and a names index;
 * 6 an index, then claimed under a tag (the index goes).  The bytes of
 * data no position names any more: their count.
 */
static size_t mixed_facts(struct e2sr_ring_facts *f, unsigned char *b)
{
	struct e2sr_rf_writer w;
	size_t gone;

	facts_of_eight(f, 1024);
	e2sr_rf_recs_begin(&w, f, 2, 0);
	e2sr_rf_recs_add(&w, 1, 11);
	e2sr_rf_recs_run(&w, 1000, 8);
	assert_int_equal(e2sr_rf_recs_end(&w), 0);
	gone = f->ndata;
	memset(b, 0, 1024);
	b[0] = 0xC0;
	b[1] = 0x3B;
	b[2] = 0x39;
	b[3] = 0x98;
	b[12] = 7;
	b[1020] = 0xaa;
	assert_int_equal(e2sr_rf_put_jbd2(f, 3, b), 0);
	e2sr_rf_recs_begin(&w, f, 4, 1);
	e2sr_rf_recs_add(&w, 5, 22);
	e2sr_rf_recs_run(&w, 77, 3);
	assert_int_equal(e2sr_rf_recs_end(&w), 0);
	f->bits[4 - 1] |= E2SR_RF_KNOWN | E2SR_RF_STALE;
	assert_int_equal(e2sr_rf_put_index(f, 4, mixed_ix, sizeof(mixed_ix)),
			 0);
	f->bits[6 - 1] |= E2SR_RF_KNOWN | E2SR_RF_STALE;
	assert_int_equal(e2sr_rf_put_index(f, 6, mixed_ix, 2), 0);
	gone += 1 + 2;
	e2sr_rf_forget(f, 2);
	e2sr_rf_set_key(f, 6, 99, 1, 2, 0, 1);
	return gone;
}

/*
 * What a position no longer names (forgotten, zeroed, claimed under
 * another tag) is not kept: the data is packed, and every position that
 * is kept reads back as it was.
 */
static void test_packed(void **state)
{
	struct e2sr_ring_facts f, g;
	struct e2sr_rf_reader r;
	struct e2sr_rf_rec rec;
	const unsigned char *p;
	unsigned char b[1024], back[1024];
	size_t len, plen, gone, n = 8;
	blk64_t pblk;
	__u32 l;
	void *buf;

	(void)state;
	gone = mixed_facts(&f, b);

	assert_int_equal(e2sr_rf_encode(&f, &buf, &len), 0);
	/* Less than the header (56 bytes) and what is kept alone. */
	assert_true(len < 56 + n * (2 + sizeof(struct e2sr_rf_key) + 8) +
			  f.ndata - gone + 4);
	assert_int_equal(e2sr_rf_decode(buf, len, &g), 0);
	assert_int_equal(g.ndata, f.ndata - gone);
	assert_false(e2sr_rf_recs_open(&g, 2, &r));
	e2sr_rf_get_jbd2(&g, 3, back);
	assert_memory_equal(back, b, sizeof(b));
	assert_true(e2sr_rf_recs_open(&g, 4, &r));
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_true(rec.slot == 5 && rec.generation == 22);
	assert_true(e2sr_rf_recs_next_run(&r, &pblk, &l));
	assert_true(pblk == 77 && l == 3);
	assert_false(e2sr_rf_recs_next(&r, &rec));
	assert_true(e2sr_rf_get_index(&g, 4, &p, &plen));
	assert_int_equal(plen, sizeof(mixed_ix));
	assert_memory_equal(p, mixed_ix, sizeof(mixed_ix));
	assert_false(e2sr_rf_get_index(&g, 6, &p, &plen));
	assert_true(e2sr_rf_key_is(&g, 6, 99, 1, 2, 0));
	free(buf);
	e2sr_rf_free(&g);
	e2sr_rf_free(&f);
}

/*
 * A walk's facts that open with the last run's data (e2sr_rf_adopt)
 * name each position taken where its bytes already are, and keep
 * exactly what copying the positions one by one keeps: the same buffer,
 * byte for byte, with what neither names (a forgotten position's
 * records, a claimed position's index) dropped from both.  Data put
 * after goes after the adopted bytes and leaves the source unchanged;
 * facts already written to, or of another log, are refused.
 */
static void test_adopt(void **state)
{
	struct e2sr_ring_facts f, one, all, other;
	struct e2sr_rf_writer w;
	struct e2sr_rf_reader r;
	struct e2sr_rf_rec rec;
	struct e2sr_jsb jsb;
	const unsigned char *p;
	unsigned char b[1024];
	void *buf1, *buf2;
	size_t len1, len2, plen, had;
	__u32 pos;

	(void)state;
	mixed_facts(&f, b);
	had = f.ndata;

	facts_of_eight(&one, 1024);
	facts_of_eight(&all, 1024);
	assert_int_equal(e2sr_rf_adopt(&all, &f), 0);
	assert_ptr_equal(all.base, &f);
	assert_int_equal(all.ndata, f.ndata);
	for (pos = 1; pos < 9; pos++) {
		assert_int_equal(e2sr_rf_copy_pos(&one, &f, pos), 0);
		assert_int_equal(e2sr_rf_copy_pos(&all, &f, pos), 0);
		assert_int_equal(one.bits[pos - 1], all.bits[pos - 1]);
	}
	/* Nothing copied one by one: the offsets are the source's. */
	assert_int_equal(all.ndata, had);
	assert_int_equal(all.off[4 - 1], f.off[4 - 1]);
	assert_false(e2sr_rf_get_index(&all, 6, &p, &plen));
	assert_true(e2sr_rf_get_index(&all, 4, &p, &plen));
	assert_int_equal(plen, sizeof(mixed_ix));
	assert_memory_equal(p, mixed_ix, sizeof(mixed_ix));
	all.base = NULL;
	assert_int_equal(e2sr_rf_encode(&one, &buf1, &len1), 0);
	assert_int_equal(e2sr_rf_encode(&all, &buf2, &len2), 0);
	assert_int_equal(len1, len2);
	assert_memory_equal(buf1, buf2, len1);
	free(buf1);
	free(buf2);

	/* Put after: past the adopted bytes, the source untouched. */
	e2sr_rf_recs_begin(&w, &all, 7, 0);
	e2sr_rf_recs_add(&w, 2, 44);
	assert_int_equal(e2sr_rf_recs_end(&w), 0);
	assert_true(all.off[7 - 1] >= had);
	assert_int_equal(f.ndata, had);
	assert_false(e2sr_rf_recs_open(&f, 7, &r));
	assert_true(e2sr_rf_recs_open(&all, 7, &r));
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_true(rec.slot == 2 && rec.generation == 44);
	assert_true(e2sr_rf_recs_open(&all, 4, &r));
	assert_true(e2sr_rf_recs_next(&r, &rec));
	assert_true(rec.slot == 5 && rec.generation == 22);

	/* Refused: facts written to already, or of another log. */
	assert_int_equal(e2sr_rf_adopt(&all, &f),
			 EXT2_ET_INVALID_ARGUMENT);
	memset(&jsb, 0, sizeof(jsb));
	jsb.first = 1;
	jsb.last = 17;
	jsb.blocksize = 1024;
	assert_int_equal(e2sr_rf_init(&other, &jsb), 0);
	assert_int_equal(e2sr_rf_adopt(&other, &f),
			 EXT2_ET_INVALID_ARGUMENT);
	assert_null(other.base);
	e2sr_rf_free(&other);
	e2sr_rf_free(&all);
	e2sr_rf_free(&one);
	e2sr_rf_free(&f);
}

/*
 * The positions packed (version 3): a log of 4096 positions, most of
 * them claimed copies a run zeroed, with tids that step back round the
 * 32-bit space, encode to far less than the arrays, and decode to the
 * same bits and tags; a buffer whose runs pass the log's end, though its
 * crc holds, is refused.
 */
static void test_packed_positions(void **state)
{
	struct e2sr_ring_facts f, g;
	struct e2sr_jsb jsb;
	unsigned char *buf, *p;
	size_t len, i, n = 4096;
	__u32 crc, seq;

	(void)state;
	memset(&jsb, 0, sizeof(jsb));
	jsb.first = 1;
	jsb.last = 1 + n;
	jsb.blocksize = 4096;
	assert_int_equal(e2sr_rf_init(&f, &jsb), 0);
	for (i = 0; i < n; i++) {
		if (i % 97 == 5)
			continue;		/* not known */
		seq = 0xfffffff0U + (__u32)(i / 64);	/* wraps at 1024 */
		if (i % 500 == 7)
			seq -= 3;		/* a step back */
		e2sr_rf_set_key(&f, 1 + i, 1000000 + i * 7919, seq,
				(__u32)(i * 2654435761U), i % 3 ? 0 : 8, 1);
		f.bits[i] |= E2SR_RF_KNOWN | E2SR_RF_NORECS;
	}
	assert_int_equal(e2sr_rf_encode(&f, (void **)&buf, &len), 0);
	assert_true(len < n * (2 + sizeof(struct e2sr_rf_key) + 8) / 2);
	assert_int_equal(e2sr_rf_decode(buf, len, &g), 0);
	assert_memory_equal(g.bits, f.bits, n * sizeof(*f.bits));
	for (i = 0; i < n; i++) {
		if (!(f.bits[i] & E2SR_RF_CLAIMED))
			continue;
		assert_true(e2sr_rf_key_is(&g, 1 + i, f.key[i].fs_block,
					   f.key[i].sequence, f.key[i].csum,
					   f.key[i].flags));
		assert_int_equal(g.off[i], E2SR_RF_NONE);
	}
	e2sr_rf_free(&g);
	/* The first run made one longer than the log, the crc made anew. */
	p = buf + 56;
	assert_true(p[0] < 0x80 && p[0] + 1 < 0x80);
	p[0]++;
	crc = e2sr_crc32c_le(~0U, buf, len - 4);
	memcpy(buf + len - 4, &crc, 4);
	assert_int_equal(e2sr_rf_decode(buf, len, &g),
			 E2SR_ERR_RING_FACTS_BAD);
	free(buf);
	e2sr_rf_free(&f);
}

/*
 * Facts of a walk, kept and taken back: a walk from them reads nothing
 * and gives the history the whole log gives; a damaged buffer is refused.
 */
static void test_walk_from_facts(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ring_facts f, back;
	struct e2sr_history whole, kept;
	unsigned char *p;
	void *buf;
	size_t len;

	make_two(t);
	build(t->img, NULL, NULL, &f, &whole);
	assert_true(whole.walk.read > 0);
	assert_int_equal(whole.walk.nblocks, 3);
	assert_true(f.has_newest);
	assert_int_equal(f.newest, 2);
	assert_int_equal(f.head, 8);
	build(t->img, &f, NULL, NULL, &kept);
	assert_int_equal(kept.walk.read, 0);
	assert_true(same_walk(&whole, &kept));
	e2sr_history_free(&kept);

	assert_int_equal(e2sr_rf_encode(&f, &buf, &len), 0);
	assert_int_equal(e2sr_rf_decode(buf, len, &back), 0);
	build(t->img, &back, NULL, NULL, &kept);
	assert_int_equal(kept.walk.read, 0);
	assert_true(same_walk(&whole, &kept));
	e2sr_history_free(&kept);
	e2sr_rf_free(&back);
	p = buf;
	p[len / 2] ^= 1;
	assert_int_equal(e2sr_rf_decode(buf, len, &back),
			 E2SR_ERR_RING_FACTS_BAD);
	ext2fs_free_mem(&buf);
	e2sr_history_free(&whole);
	e2sr_rf_free(&f);
}

/*
 * A copy changed behind the facts: with its position fresh the walk is
 * the whole log's; without, the facts say what no longer is (what
 * ring_fresh.c's proof is for).
 */
static void test_changed_copy(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ring_facts f;
	struct e2sr_history whole, kept;
	unsigned char b[4096];
	__u8 fresh[1024];

	make_two(t);
	build(t->img, NULL, NULL, &f, &whole);
	e2sr_history_free(&whole);
	rw_jblock(t->img, 2, b, 0);
	b[10] ^= 0xff;
	rw_jblock(t->img, 2, b, 1);
	build(t->img, NULL, NULL, NULL, &whole);
	assert_int_equal(whole.walk.blocks[0].jblock, 2);
	assert_int_equal(whole.walk.blocks[0].verified, 0);
	memset(fresh, 0, sizeof(fresh));
	fresh[(2 - 1) >> 3] |= 1 << ((2 - 1) & 7);
	build(t->img, &f, fresh, NULL, &kept);
	/* Read once, and again for the look at a trusted copy. */
	assert_true(kept.walk.read >= 1 && kept.walk.read <= 2);
	assert_true(same_walk(&whole, &kept));
	e2sr_history_free(&kept);
	build(t->img, &f, NULL, NULL, &kept);
	assert_false(same_walk(&whole, &kept));
	e2sr_history_free(&kept);
	e2sr_history_free(&whole);
	e2sr_rf_free(&f);
}

/* A transaction @tid of one block (fs block 400) at jblock @at. */
static void write_trans(const char *img, __u32 at, __u32 tid)
{
	struct opened o;
	unsigned char data[4096], log[3 * 4096];
	const unsigned char *d[1] = { data };
	blk64_t blk = 400;
	int i;

	memset(data, 0x42, sizeof(data));
	open_j(img, &o);
	assert_int_equal(e2sr_jtx_build(&o.j->jsb, tid, 1234, &blk, d, 1,
					log), 0);
	close_j(&o);
	for (i = 0; i < 3; i++)
		rw_jblock(img, at + i, log + i * 4096, 1);
}

/*
 * What the kernel wrote since: the chain from the kept head is fresh,
 * and with it the walk is the whole log's; a chain that went round the
 * ring (the block before it changed), and a sequence moved with no chain
 * to show for it, are refused.
 */
static void test_fresh(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ring_facts f;
	struct e2sr_history whole, kept;
	struct opened o;
	unsigned char b[4096];
	__u8 *fresh;
	__u32 count, seq, k, maxlen;
	int quiet;

	make_two(t);
	/*
	 * debugfs leaves its transactions to recover: as the kernel's
	 * replay and clean unmount leave it, the next transaction is 3.
	 */
	seq = 3;
	set_jsb_sequence(t->img, seq);
	build(t->img, NULL, NULL, &f, &whole);
	e2sr_history_free(&whole);
	assert_int_equal(f.sequence, seq);
	open_j(t->img, &o);
	/* No fast_commit feature: nothing written since, no chain. */
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 0, &fresh, &count, &quiet),
			 E2SR_RF_OK);
	assert_int_equal(count, 0);
	assert_false(quiet);
	ext2fs_free_mem(&fresh);
	/* With it: the area was all zero, and its first block still is. */
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_OK);
	assert_int_equal(count, 0);
	assert_true(quiet);
	ext2fs_free_mem(&fresh);
	maxlen = o.j->jsb.maxlen;
	close_j(&o);
	/*
	 * A round of fast commits writes the area's first block (j_fc_first,
	 * the 255th from the end): the whole area (256 and one) is fresh.
	 */
	memset(b, 0, sizeof(b));
	b[0] = 9;		/* a head tag */
	b[2] = 8;
	rw_jblock(t->img, maxlen - 255, b, 1);
	open_j(t->img, &o);
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_OK);
	assert_int_equal(count, FC_AREA);
	assert_false(quiet);
	assert_false(fresh[(f.head - 1) >> 3] & (1 << ((f.head - 1) & 7)));
	ext2fs_free_mem(&fresh);
	close_j(&o);
	memset(b, 0, sizeof(b));
	rw_jblock(t->img, maxlen - 255, b, 1);

	/* No chain for the sequence moved. */
	set_jsb_sequence(t->img, seq + 2);
	open_j(t->img, &o);
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_CHAIN);
	close_j(&o);

	write_trans(t->img, f.head, seq);
	open_j(t->img, &o);
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_OK);
	assert_int_equal(count, 3);
	for (k = 0; k < 3; k++)
		assert_true(fresh[(f.head + k - 1) >> 3] &
			    (1 << ((f.head + k - 1) & 7)));
	close_j(&o);
	build(t->img, NULL, NULL, NULL, &whole);
	assert_int_equal(whole.walk.nblocks, 4);
	build(t->img, &f, fresh, NULL, &kept);
	assert_true(kept.walk.read >= 3 && kept.walk.read < FC_AREA + 10);
	assert_true(same_walk(&whole, &kept));
	e2sr_history_free(&kept);
	e2sr_history_free(&whole);
	ext2fs_free_mem(&fresh);

	/*
	 * A chain whose first transaction is far after the kept sequence
	 * may have gone round the ring: the block before it must be as
	 * kept.  As it is:
	 */
	write_trans(t->img, f.head, seq + 10);
	set_jsb_sequence(t->img, seq + 11);
	open_j(t->img, &o);
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_OK);
	ext2fs_free_mem(&fresh);
	close_j(&o);
	/* Changed: the ring went round. */
	rw_jblock(t->img, f.head - 1, b, 0);
	b[100] ^= 1;
	rw_jblock(t->img, f.head - 1, b, 1);
	open_j(t->img, &o);
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_WRAPPED);
	close_j(&o);
	/* Right after the kept sequence, three transactions cannot. */
	write_trans(t->img, f.head, seq);
	set_jsb_sequence(t->img, seq + 2);
	open_j(t->img, &o);
	assert_int_equal(e2sr_rf_fresh(o.j, &f, 1, &fresh, &count, &quiet),
			 E2SR_RF_OK);
	ext2fs_free_mem(&fresh);
	close_j(&o);
	e2sr_rf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jbd2_bytes),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_empty_records_last),
		cmocka_unit_test(test_names_index),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_adopt),
		cmocka_unit_test(test_packed_positions),
		cmocka_unit_test_setup_teardown(test_walk_from_facts,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_changed_copy,
			testimg_fixture_setup, testimg_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_fresh,
			testimg_fixture_setup, testimg_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
