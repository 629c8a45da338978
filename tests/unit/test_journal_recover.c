/*
 * test_journal_recover.c --- journal recovery (journal_recover.c, the
 * replay in open.c and the dry run's view in journal_view.c) over
 * synthetic journals: the log is written block by block into the journal
 * inode of a real image, so that every rule of jbd2's recovery can be
 * put to it on its own, and the outcome is compared with what
 * `e2fsck -E journal_only` leaves on a copy of the same image.
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

#define BS		4096
#define JLEN		1024		/* -J size=4 with 4k blocks */
#define FS_BLOCKS	4096		/* 16M */
#define SEQ0		5		/* s_sequence of every log */
#define TGT		2000		/* free blocks from here on */
#define DEV_LEN		600		/* [TGT, TGT + DEV_LEN) pre-filled */

#define MKFS_NOCSUM	"-O ^metadata_csum"
#define MKFS_NOCSUM32	"-O ^metadata_csum,^64bit"
#define MKFS_CSUM	""
#define MKFS_CSUM32	"-O ^64bit"

#define F_REVOKE	E2SR_JBD2_INCOMPAT_REVOKE
#define F_64		E2SR_JBD2_INCOMPAT_64BIT
#define F_ASYNC		E2SR_JBD2_INCOMPAT_ASYNC_COMMIT
#define F_CSUM2		E2SR_JBD2_INCOMPAT_CSUM_V2
#define F_CSUM3		E2SR_JBD2_INCOMPAT_CSUM_V3

/* jb_desc() options */
#define D_NO_LAST	0x1		/* no tag carries LAST_TAG */

/* One block a descriptor logs: its content is content(blk, ver, magic). */
struct jd {
	blk64_t		blk;
	__u32		ver;
	int		magic;		/* starts with the magic: escaped */
	int		bad_csum;	/* tag checksum wrong */
};

/* A synthetic journal being written into the journal inode of an image. */
struct jb {
	struct testimg	*t;
	__u32		compat;		/* set before jb_sb() */
	__u32		incompat;
	blk64_t		pmap[JLEN];	/* journal block -> fs block */
	unsigned char	sb[BS];		/* journal block 0 as mke2fs wrote it */
	unsigned char	uuid[E2SR_JBD2_UUID_SIZE];
	__u32		seed;
	unsigned int	tag_bytes;
	unsigned int	tail;		/* 4 with csum v2/v3 */
	__u32		pos;		/* next log block */
	__u64		ctime;		/* next commit time */
	__u32		crc;		/* v1: crc32_be of the transaction */
	const unsigned char *raw0;	/* what is logged for fs block 0 */
	int		fd;
};

static void put16(unsigned char *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(unsigned char *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static __u32 get32(const unsigned char *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) |
	       ((__u32)p[2] << 8) | p[3];
}

static void put64(unsigned char *p, __u64 v)
{
	put32(p, v >> 32);
	put32(p + 4, (__u32)v);
}

static int csum_on(const struct jb *b)
{
	return !!(b->incompat & (F_CSUM2 | F_CSUM3));
}

/* What a logged block holds: version @ver of @blk. */
static void content(unsigned char *buf, blk64_t blk, __u32 ver, int magic)
{
	memset(buf, 0x11 + (int)((blk * 7 + ver * 13) % 200), BS);
	put32(buf + 4, (__u32)blk);
	put32(buf + 8, ver);
	put32(buf, magic ? E2SR_JBD2_MAGIC : 0x5A5A0000 | ver);
}

/* What the device holds at @blk before recovery. */
static void dev_content(unsigned char *buf, blk64_t blk)
{
	memset(buf, 0xD0, BS);
	put32(buf, 0xDE000000U + (__u32)blk);
}

static void rw_blk(int fd, blk64_t blk, void *buf, int write)
{
	ssize_t n;

	if (write)
		n = pwrite(fd, buf, BS, (off_t)blk * BS);
	else
		n = pread(fd, buf, BS, (off_t)blk * BS);
	assert_int_equal(n, BS);
}

static void read_img_blk(const char *path, blk64_t blk, void *buf)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	rw_blk(fd, blk, buf, 0);
	assert_int_equal(close(fd), 0);
}

static void jb_put(struct jb *b, __u32 jblk, const void *buf)
{
	assert_true(jblk < JLEN);
	rw_blk(b->fd, b->pmap[jblk], (void *)buf, 1);
}

static __u32 jb_next(__u32 pos)
{
	return pos + 1 >= JLEN ? 1 : pos + 1;
}

/* Block header; the tail checksum is set by jb_tail(). */
static void jb_header(unsigned char *p, __u32 type, __u32 seq)
{
	memset(p, 0, BS);
	put32(p, E2SR_JBD2_MAGIC);
	put32(p + 4, type);
	put32(p + 8, seq);
}

static void jb_tail(const struct jb *b, unsigned char *p)
{
	if (!csum_on(b))
		return;
	put32(p + BS - 4, 0);
	put32(p + BS - 4, ext2fs_crc32c_le(b->seed, p, BS));
}

/*
 * mke2fs a 16M image, map its journal, zero the log, fill the target
 * area with dev_content().  The journal superblock is written by jb_sb().
 */
static void jb_init(struct jb *b, struct testimg *t, const char *mkfs,
		    __u32 incompat)
{
	static unsigned char zero[BS];
	unsigned char buf[BS];
	ext2_filsys fs;
	blk64_t blk;
	__u32 i;

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->incompat = incompat;
	assert_int_equal(testimg_run("mke2fs -q -F -t ext4 -b 4096 -J size=4 "
				     "%s '%s' 16M >/dev/null 2>&1", mkfs,
				     t->img), 0);
	assert_int_equal(ext2fs_open(t->img, 0, 0, 0, unix_io_manager, &fs),
			 0);
	assert_int_equal(ext2fs_blocks_count(fs->super), FS_BLOCKS);
	for (i = 0; i < JLEN; i++) {
		assert_int_equal(ext2fs_bmap2(fs, EXT2_JOURNAL_INO, NULL, NULL,
					      0, i, NULL, &b->pmap[i]), 0);
		assert_true(b->pmap[i] && b->pmap[i] < TGT);
	}
	ext2fs_close_free(&fs);

	b->fd = open(t->img, O_RDWR);
	assert_true(b->fd >= 0);
	rw_blk(b->fd, b->pmap[0], b->sb, 0);
	assert_int_equal(get32(b->sb), E2SR_JBD2_MAGIC);
	memcpy(b->uuid, b->sb + 0x30, sizeof(b->uuid));
	b->seed = ext2fs_crc32c_le(~0U, b->uuid, sizeof(b->uuid));
	/* journal_tag_bytes() of the kernel */
	if (incompat & F_CSUM3) {
		b->tag_bytes = 16;
	} else {
		b->tag_bytes = 12;
		if (incompat & F_CSUM2)
			b->tag_bytes += 2;
		if (!(incompat & F_64))
			b->tag_bytes -= 4;
	}
	b->tail = csum_on(b) ? 4 : 0;
	for (i = 1; i < JLEN; i++)
		jb_put(b, i, zero);
	for (blk = TGT; blk < TGT + DEV_LEN; blk++) {
		dev_content(buf, blk);
		rw_blk(b->fd, blk, buf, 1);
	}
	b->pos = 1;
	b->ctime = 1700000000;
	b->crc = ~0U;
}

/* The journal superblock: v2, b->incompat, log at @start, @seq. */
static void jb_sb(struct jb *b, __u32 start, __u32 seq)
{
	unsigned char p[BS];

	memcpy(p, b->sb, BS);
	put32(p + 0x04, E2SR_JBD2_SUPERBLOCK_V2);
	put32(p + 0x0C, BS);
	put32(p + 0x10, JLEN);
	put32(p + 0x14, 1);
	put32(p + 0x18, seq);
	put32(p + 0x1C, start);
	put32(p + 0x20, 0);
	put32(p + 0x24, b->compat);
	put32(p + 0x28, b->incompat);
	put32(p + 0x2C, 0);
	p[0x50] = csum_on(b) ? E2SR_JBD2_CRC32C_CHKSUM : 0;
	put32(p + 0x54, 0);
	put32(p + 0xFC, 0);
	if (csum_on(b))
		put32(p + 0xFC, ext2fs_crc32c_le(~0U, p, 1024));
	jb_put(b, 0, p);
	b->pos = start;
}

/* The kernel's escaping: a block that begins with the magic. */
static void stored(const struct jb *b, unsigned char *buf,
		   const struct jd *d)
{
	if (!d->blk && b->raw0)
		memcpy(buf, b->raw0, BS);
	else
		content(buf, d->blk, d->ver, d->magic);
	if (d->magic)
		put32(buf, 0);
}

static __u32 tag_csum(const struct jb *b, __u32 seq, const unsigned char *data)
{
	unsigned char s[4];
	__u32 crc;

	put32(s, seq);
	crc = ext2fs_crc32c_le(b->seed, s, 4);
	return ext2fs_crc32c_le(crc, data, BS);
}

/* The most tags one descriptor holds (the first one carries a uuid). */
static size_t jb_max_tags(const struct jb *b)
{
	size_t off = 12 + b->tag_bytes + 16, n = 1;

	while (off + b->tag_bytes <= BS - b->tail) {
		off += b->tag_bytes;
		n++;
	}
	return n;
}

/* A descriptor block at b->pos and its data blocks after it. */
static void jb_desc(struct jb *b, __u32 seq, const struct jd *d, size_t n,
		    unsigned int opts)
{
	unsigned char desc[BS], data[BS];
	size_t off = 12, i;
	__u32 flags, csum, dpos;

	jb_header(desc, E2SR_JBD2_DESCRIPTOR_BLOCK, seq);
	dpos = jb_next(b->pos);
	for (i = 0; i < n; i++) {
		assert_true(off + b->tag_bytes <= BS - b->tail);
		flags = i ? E2SR_JBD2_FLAG_SAME_UUID : 0;
		if (i == n - 1 && !(opts & D_NO_LAST))
			flags |= E2SR_JBD2_FLAG_LAST_TAG;
		if (d[i].magic)
			flags |= E2SR_JBD2_FLAG_ESCAPE;
		stored(b, data, &d[i]);
		csum = tag_csum(b, seq, data);
		if (d[i].bad_csum)
			csum ^= 0x1;
		put32(desc + off, (__u32)d[i].blk);
		if (b->incompat & F_CSUM3) {
			put32(desc + off + 4, flags);
			put32(desc + off + 8, (__u32)(d[i].blk >> 32));
			put32(desc + off + 12, csum);
		} else {
			if (b->incompat & F_CSUM2)
				put16(desc + off + 4, (__u16)csum);
			put16(desc + off + 6, (__u16)flags);
			if (b->incompat & F_64)
				put32(desc + off + 8,
				      (__u32)(d[i].blk >> 32));
		}
		off += b->tag_bytes;
		if (!i) {
			memcpy(desc + off, b->uuid, 16);
			off += 16;
		}
		jb_put(b, dpos, data);
		dpos = jb_next(dpos);
	}
	if (opts & D_NO_LAST)
		assert_true(off + b->tag_bytes > BS - b->tail);
	jb_tail(b, desc);
	jb_put(b, b->pos, desc);
	/* v1: the descriptor, then its data blocks as stored */
	b->crc = ext2fs_crc32_be(b->crc, desc, BS);
	for (i = 0; i < n; i++) {
		stored(b, data, &d[i]);
		b->crc = ext2fs_crc32_be(b->crc, data, BS);
	}
	b->pos = dpos;
}

/* A revoke block; @rcount 0 means the right one. */
static void jb_revoke(struct jb *b, __u32 seq, const blk64_t *blks, size_t n,
		      __u32 rcount)
{
	unsigned char p[BS];
	unsigned int rec = b->incompat & F_64 ? 8 : 4;
	size_t i;

	jb_header(p, E2SR_JBD2_REVOKE_BLOCK, seq);
	assert_true(16 + n * rec <= BS - b->tail);
	for (i = 0; i < n; i++) {
		if (rec == 8)
			put64(p + 16 + i * 8, blks[i]);
		else
			put32(p + 16 + i * 4, (__u32)blks[i]);
	}
	put32(p + 12, rcount ? rcount : 16 + n * rec);
	jb_tail(b, p);
	jb_put(b, b->pos, p);
	b->pos = jb_next(b->pos);
}

/* jb_commit() */
#define C_BAD		1		/* checksum wrong */
#define C_V1_NONE	2		/* v1 journal, no checksum given */

/* A commit block, its checksum per the journal's kind; times increase. */
static void jb_commit(struct jb *b, __u32 seq, int how)
{
	unsigned char p[BS];

	jb_header(p, E2SR_JBD2_COMMIT_BLOCK, seq);
	put64(p + 0x30, b->ctime++);
	if (b->compat & E2SR_JBD2_COMPAT_CHECKSUM && how != C_V1_NONE) {
		p[0x0C] = E2SR_JBD2_CRC32_CHKSUM;
		p[0x0D] = E2SR_JBD2_CRC32_CHKSUM_SIZE;
		put32(p + 0x10, b->crc ^ (how == C_BAD));
	}
	if (csum_on(b))
		put32(p + 0x10, ext2fs_crc32c_le(b->seed, p, BS) ^
		      (how == C_BAD));
	b->crc = ~0U;
	jb_put(b, b->pos, p);
	b->pos = jb_next(b->pos);
}

static void jb_trans(struct jb *b, __u32 seq, const struct jd *d, size_t n)
{
	jb_desc(b, seq, d, n, 0);
	jb_commit(b, seq, 0);
}

/* Close the image and mark it as needing recovery. */
static void jb_done(struct jb *b)
{
	ext2_filsys fs;

	assert_int_equal(close(b->fd), 0);
	b->fd = -1;
	assert_int_equal(ext2fs_open(b->t->img, EXT2_FLAG_RW, 0, 0,
				     unix_io_manager, &fs), 0);
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	ext2fs_mark_super_dirty(fs);
	assert_int_equal(ext2fs_close_free(&fs), 0);
}

/* The image after `e2fsck -y -E journal_only` on a copy of it. */
static void fsck_copy(struct jb *b, char *copy, size_t len)
{
	assert_int_equal(testimg_path(b->t, "fsck.img", copy, len), 0);
	assert_int_equal(testimg_run("cp '%s' '%s'", b->t->img, copy), 0);
	/* 0 or 1 (fixed); a journal checksum error is still a recovery. */
	assert_true(testimg_run("e2fsck -y -E journal_only '%s' "
				">'%s/fsck.log' 2>&1", copy,
				b->t->dir) >= 0);
}

/* e2sr_open(), expecting @want; the context is the caller's. */
static struct e2sr_ctx *recover(struct jb *b, int flags, errcode_t want)
{
	struct e2sr_ctx *ctx;
	errcode_t err;

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	err = e2sr_open(ctx, b->t->img, flags);
	/* Opening decides; a read-write run writes the replay here. */
	if (!err && !(flags & E2SR_OPEN_RDONLY))
		err = e2sr_begin_write(ctx);
	if (err != want)
		print_error("e2sr_open: %ld (%s) [%s], want %ld (%s)\n",
			    (long)err, error_message(err), ctx->detail,
			    (long)want, error_message(want));
	assert_int_equal(err, want);
	return ctx;
}

static void done(struct e2sr_ctx *ctx)
{
	e2sr_close(ctx);
	e2sr_ctx_free(ctx);
}

/* Block @blk of the image holds content(blk, ver, magic). */
static void expect_ver(const char *img, blk64_t blk, __u32 ver, int magic)
{
	unsigned char got[BS], want[BS];

	read_img_blk(img, blk, got);
	content(want, blk, ver, magic);
	if (memcmp(got, want, BS))
		print_error("block %llu: not version %u\n",
			    (unsigned long long)blk, ver);
	assert_memory_equal(got, want, BS);
}

/* Block @blk of the image is as the device had it. */
static void expect_dev(const char *img, blk64_t blk)
{
	unsigned char got[BS], want[BS];

	read_img_blk(img, blk, got);
	dev_content(want, blk);
	if (memcmp(got, want, BS))
		print_error("block %llu: written\n", (unsigned long long)blk);
	assert_memory_equal(got, want, BS);
}

struct sbstate {
	__u16	state;
	int	needs_recovery;
};

static void fs_state(const char *img, struct sbstate *s)
{
	ext2_filsys fs;

	assert_int_equal(ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs), 0);
	s->state = fs->super->s_state;
	s->needs_recovery =
		ext2fs_has_feature_journal_needs_recovery(fs->super);
	ext2fs_close_free(&fs);
}

/* The journal superblock's s_sequence, s_start, s_errno. */
static void jsb_fields(struct jb *b, const char *img, __u32 *seq,
		       __u32 *start, __u32 *jerrno)
{
	unsigned char p[BS];

	read_img_blk(img, b->pmap[0], p);
	*seq = get32(p + 0x18);
	*start = get32(p + 0x1C);
	*jerrno = get32(p + 0x20);
}

/*
 * e2secrm's replay left what e2fsck's leaves: every block but block 0
 * (the superblock, with its times and counters) byte for byte, the
 * journal superblock included, and the same filesystem state.
 */
static void same_as_fsck(const char *img, const char *copy)
{
	unsigned char a[BS], c[BS];
	struct sbstate sa, sc;
	blk64_t blk;
	int fa, fc;

	fa = open(img, O_RDONLY);
	fc = open(copy, O_RDONLY);
	assert_true(fa >= 0 && fc >= 0);
	for (blk = 1; blk < FS_BLOCKS; blk++) {
		rw_blk(fa, blk, a, 0);
		rw_blk(fc, blk, c, 0);
		if (memcmp(a, c, BS))
			print_error("block %llu differs from e2fsck's\n",
				    (unsigned long long)blk);
		assert_memory_equal(a, c, BS);
	}
	close(fa);
	close(fc);
	fs_state(img, &sa);
	fs_state(copy, &sc);
	if (sa.state != sc.state)
		print_error("s_state %#x, e2fsck's %#x\n", sa.state,
			    sc.state);
	assert_int_equal(sa.state, sc.state);
	assert_int_equal(sa.needs_recovery, sc.needs_recovery);
	assert_int_equal(sa.needs_recovery, 0);
}

/* Replay with @flags, expect @want, compare with e2fsck's replay. */
static struct e2sr_ctx *replay_cmp(struct jb *b, int flags, errcode_t want)
{
	char copy[PATH_MAX];
	struct e2sr_ctx *ctx;

	fsck_copy(b, copy, sizeof(copy));
	if (want) {
		char before[65], after[65];

		/* The refusal comes before the replay is written... */
		assert_int_equal(testimg_sha256(b->t->img, before), 0);
		ctx = recover(b, flags, want);
		done(ctx);
		assert_int_equal(testimg_sha256(b->t->img, after), 0);
		assert_string_equal(before, after);
		/* ...and -f replays as e2fsck does. */
		flags |= E2SR_OPEN_FORCE;
	}
	ctx = recover(b, flags, 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_REPLAYED);
	same_as_fsck(b->t->img, copy);
	return ctx;
}

static void expect_jsb(struct jb *b, __u32 want_seq)
{
	__u32 seq, start, jerrno;

	jsb_fields(b, b->t->img, &seq, &start, &jerrno);
	assert_int_equal(start, 0);
	assert_int_equal(seq, want_seq);
	assert_int_equal(jerrno, 0);
}

/* Whether rec->blocks has @blk from journal block @jblk. */
static void expect_rec(const struct e2sr_jrecovery *rec, blk64_t blk,
		       __u32 jblk, __u32 seq)
{
	size_t i;

	for (i = 0; i < rec->nblocks; i++) {
		if (rec->blocks[i].fs_block != blk)
			continue;
		assert_int_equal(rec->blocks[i].jblock, jblk);
		assert_int_equal(rec->blocks[i].sequence, seq);
		return;
	}
	print_error("block %llu not in the recovery\n",
		    (unsigned long long)blk);
	fail();
}

/* 1. One transaction of two blocks. */
static void test_one_transaction(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 0 } };

	jb_init(&b, *state, MKFS_NOCSUM, F_REVOKE | F_64);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.start_seq, SEQ0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
	assert_int_equal(ctx->replay.recovery.nblocks, 2);
	assert_int_equal(ctx->replay.recovery.failed_commit, 0);
	assert_int_equal(ctx->replay.recovery.tag_csum_bad, 0);
	expect_rec(&ctx->replay.recovery, TGT, 2, SEQ0);
	expect_rec(&ctx->replay.recovery, TGT + 1, 3, SEQ0);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 0);
	expect_ver(b.t->img, TGT + 1, 1, 0);
	expect_dev(b.t->img, TGT + 2);
	expect_jsb(&b, SEQ0 + 2);

	/* Recovered: a second open has nothing to do. */
	ctx = recover(&b, 0, 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_NONE);
	done(ctx);
}

/* 2. The newest copy of a block wins, within a transaction too. */
static void test_newest_wins(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 0 } };
	const struct jd t6[] = { { TGT, 2, 0, 0 } };
	const struct jd t7[] = { { TGT + 1, 3, 0, 0 }, { TGT + 2, 3, 0, 0 } };
	const struct jd t8[] = { { TGT + 3, 4, 0, 0 }, { TGT + 3, 5, 0, 0 },
				 { TGT + 2, 4, 0, 0 } };

	jb_init(&b, *state, MKFS_NOCSUM, F_REVOKE | F_64);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_trans(&b, SEQ0 + 1, t6, 1);
	jb_trans(&b, SEQ0 + 2, t7, 2);
	jb_trans(&b, SEQ0 + 3, t8, 3);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 4);
	assert_int_equal(ctx->replay.recovery.transactions, 4);
	assert_int_equal(ctx->replay.recovery.nblocks, 4);
	assert_int_equal(ctx->replay.recovery.nr_replays, 8);
	expect_rec(&ctx->replay.recovery, TGT, 6, SEQ0 + 1);
	expect_rec(&ctx->replay.recovery, TGT + 3, 14, SEQ0 + 3);
	done(ctx);
	expect_ver(b.t->img, TGT, 2, 0);
	expect_ver(b.t->img, TGT + 1, 3, 0);
	expect_ver(b.t->img, TGT + 2, 4, 0);
	expect_ver(b.t->img, TGT + 3, 5, 0);
	expect_jsb(&b, SEQ0 + 5);
}

/*
 * 3. Revokes: a copy is skipped when a committed transaction at least as
 * new revokes its block; a revoke in an uncommitted one counts for
 * nothing.
 */
static void revoke_case(struct testimg *t, const char *mkfs, __u32 incompat)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 0 },
				 { TGT + 2, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 4, 2, 0, 0 } };
	const struct jd t7[] = { { TGT + 1, 3, 0, 0 }, { TGT + 3, 3, 0, 0 } };
	const struct jd t8[] = { { TGT + 5, 4, 0, 0 } };
	const blk64_t r6[] = { TGT, TGT + 1 };
	const blk64_t r7[] = { TGT + 2, TGT + 3 };
	const blk64_t r8[] = { TGT + 4 };

	jb_init(&b, t, mkfs, incompat);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 3);
	jb_revoke(&b, SEQ0 + 1, r6, 2, 0);
	jb_trans(&b, SEQ0 + 1, t6, 1);
	jb_desc(&b, SEQ0 + 2, t7, 2, 0);
	jb_revoke(&b, SEQ0 + 2, r7, 2, 0);	/* TGT + 3: its own */
	jb_commit(&b, SEQ0 + 2, 0);
	jb_revoke(&b, SEQ0 + 3, r8, 1, 0);	/* never committed */
	jb_desc(&b, SEQ0 + 3, t8, 1, 0);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 3);
	assert_int_equal(ctx->replay.recovery.nr_revoke_hits, 4);
	assert_int_equal(ctx->replay.recovery.nblocks, 2);
	done(ctx);
	expect_dev(b.t->img, TGT);
	expect_ver(b.t->img, TGT + 1, 3, 0);
	expect_dev(b.t->img, TGT + 2);
	expect_dev(b.t->img, TGT + 3);
	expect_ver(b.t->img, TGT + 4, 2, 0);
	expect_dev(b.t->img, TGT + 5);
	expect_jsb(&b, SEQ0 + 4);
}

static void test_revoke(void **state)
{
	revoke_case(*state, MKFS_NOCSUM, F_REVOKE | F_64);
}

/* 4. An escaped block gets its magic back; csum v3 over the stored copy. */
static void test_escape(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	unsigned char p[BS];
	const struct jd t5[] = { { TGT, 1, 1, 0 }, { TGT + 1, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 2, 2, 1, 0 } };

	jb_init(&b, *state, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_trans(&b, SEQ0 + 1, t6, 1);
	/* As logged: the magic is not there. */
	rw_blk(b.fd, b.pmap[2], p, 0);
	assert_int_equal(get32(p), 0);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.nblocks, 3);
	assert_int_equal(ctx->replay.recovery.tag_csum_bad, 0);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 1);
	expect_ver(b.t->img, TGT + 1, 1, 0);
	expect_ver(b.t->img, TGT + 2, 2, 1);
	expect_jsb(&b, SEQ0 + 3);
}

/* 5. A log that runs past the end of the ring goes on at s_first. */
static void wrap_case(struct testimg *t, __u32 start, __u32 incompat)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 1, 0 },
				 { TGT + 2, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 3, 2, 0, 0 }, { TGT, 2, 0, 0 } };
	__u32 p;

	jb_init(&b, t, incompat & F_CSUM3 ? MKFS_CSUM : MKFS_NOCSUM,
		incompat);
	jb_sb(&b, start, SEQ0);
	jb_trans(&b, SEQ0, t5, 3);
	jb_trans(&b, SEQ0 + 1, t6, 2);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 2);
	assert_int_equal(ctx->replay.recovery.nblocks, 4);
	/* journal block of t5's second copy: start + 2, wrapped */
	p = start + 2 >= JLEN ? start + 2 - (JLEN - 1) : start + 2;
	expect_rec(&ctx->replay.recovery, TGT + 1, p, SEQ0);
	done(ctx);
	expect_ver(t->img, TGT, 2, 0);
	expect_ver(t->img, TGT + 1, 1, 1);
	expect_ver(t->img, TGT + 2, 1, 0);
	expect_ver(t->img, TGT + 3, 2, 0);
	expect_jsb(&b, SEQ0 + 3);
}

static void test_wrap(void **state)
{
	struct testimg *t = *state;

	wrap_case(t, JLEN - 2, F_REVOKE | F_64);	/* in the data */
	testimg_cleanup(t);
	assert_int_equal(testimg_setup(t), 0);
	wrap_case(t, JLEN - 4, F_REVOKE | F_CSUM3);	/* at the commit */
	testimg_cleanup(t);
	assert_int_equal(testimg_setup(t), 0);
	wrap_case(t, JLEN - 1, F_REVOKE | F_64 | F_CSUM3); /* at once */
}

/* 6. Every tag layout: 8, 12, 10, 14 and 16 bytes. */
static void test_tag_layouts(void **state)
{
	static const struct {
		const char	*mkfs;
		__u32		incompat;
		unsigned int	tag_bytes;
	} cfg[] = {
		{ MKFS_NOCSUM32, F_REVOKE, 8 },
		{ MKFS_NOCSUM, F_REVOKE | F_64, 12 },
		{ MKFS_CSUM32, F_REVOKE | F_CSUM2, 10 },
		{ MKFS_CSUM, F_REVOKE | F_64 | F_CSUM2, 14 },
		{ MKFS_CSUM32, F_REVOKE | F_CSUM3, 16 },
		{ MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3, 16 },
	};
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	struct jb b;
	size_t i;

	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		const struct jd t5[] = { { TGT, 1, 0, 0 },
					 { TGT + 1, 1, 1, 0 },
					 { TGT + 2, 1, 0, 0 } };
		const struct jd t6[] = { { TGT + 2, 2, 0, 0 } };
		const blk64_t r6[] = { TGT };

		if (i) {
			testimg_cleanup(t);
			assert_int_equal(testimg_setup(t), 0);
		}
		jb_init(&b, t, cfg[i].mkfs, cfg[i].incompat);
		assert_int_equal(b.tag_bytes, cfg[i].tag_bytes);
		jb_sb(&b, 1, SEQ0);
		jb_trans(&b, SEQ0, t5, 3);
		jb_revoke(&b, SEQ0 + 1, r6, 1, 0);
		jb_trans(&b, SEQ0 + 1, t6, 1);
		jb_done(&b);

		ctx = replay_cmp(&b, 0, 0);
		assert_int_equal(ctx->journal->jsb.tag_bytes,
				 cfg[i].tag_bytes);
		assert_int_equal(ctx->replay.recovery.nblocks, 2);
		assert_int_equal(ctx->replay.recovery.nr_revoke_hits, 1);
		assert_int_equal(ctx->replay.recovery.tag_csum_bad, 0);
		done(ctx);
		expect_dev(t->img, TGT);
		expect_ver(t->img, TGT + 1, 1, 1);
		expect_ver(t->img, TGT + 2, 2, 0);
		expect_jsb(&b, SEQ0 + 3);
	}
}

/* 6b. A csum v2 tag checksum (16 bits) that does not match. */
static void test_csum2_bad_tag(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 1 } };

	jb_init(&b, *state, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM2);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, E2SR_ERR_UNCLEAN);
	assert_int_equal(ctx->replay.recovery.tag_csum_bad, 1);
	assert_int_equal(ctx->replay.recovery.nblocks, 1);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 0);
	expect_dev(b.t->img, TGT + 1);
}

/* 7. A transaction without its commit block is not replayed. */
static void test_no_commit(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 } };
	const struct jd t6[] = { { TGT, 2, 0, 0 }, { TGT + 1, 2, 0, 0 } };

	jb_init(&b, *state, MKFS_NOCSUM, F_REVOKE | F_64);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 1);
	jb_desc(&b, SEQ0 + 1, t6, 2, 0);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
	assert_int_equal(ctx->replay.recovery.nblocks, 1);
	assert_int_equal(ctx->replay.recovery.failed_commit, 0);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 0);
	expect_dev(b.t->img, TGT + 1);
	expect_jsb(&b, SEQ0 + 2);
}

/*
 * 8. csum v3, the last commit's checksum wrong: that transaction is not
 * replayed, and the filesystem is marked with errors.
 */
static void bad_commit_log(struct jb *b, struct testimg *t)
{
	const struct jd t5[] = { { TGT, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 1, 2, 0, 0 }, { TGT, 2, 0, 0 } };

	jb_init(b, t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(b, 1, SEQ0);
	jb_trans(b, SEQ0, t5, 1);
	jb_desc(b, SEQ0 + 1, t6, 2, 0);
	jb_commit(b, SEQ0 + 1, C_BAD);
	jb_done(b);
}

static void test_bad_commit_csum(void **state)
{
	struct testimg *t = *state;
	char before[65], after[65];
	struct sbstate s;
	struct e2sr_ctx *ctx;
	struct jb b;

	bad_commit_log(&b, t);

	/* A dry run sees the errors too, and writes nothing. */
	assert_int_equal(testimg_sha256(t->img, before), 0);
	ctx = recover(&b, E2SR_OPEN_RDONLY, E2SR_ERR_FS_ERRORS);
	done(ctx);
	ctx = recover(&b, E2SR_OPEN_RDONLY | E2SR_OPEN_FORCE, 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_VIEW);
	assert_int_equal(ctx->replay.recovery.failed_commit, SEQ0 + 1);
	done(ctx);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);

	ctx = replay_cmp(&b, 0, E2SR_ERR_FS_ERRORS);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
	assert_int_equal(ctx->replay.recovery.failed_commit, SEQ0 + 1);
	assert_int_equal(ctx->replay.recovery.nblocks, 1);
	done(ctx);
	expect_ver(t->img, TGT, 1, 0);
	expect_dev(t->img, TGT + 1);
	expect_jsb(&b, SEQ0 + 2);
	fs_state(t->img, &s);
	assert_true(s.state & EXT2_ERROR_FS);

	/* Replayed: only the errors stand in the way now. */
	ctx = recover(&b, 0, E2SR_ERR_FS_ERRORS);
	done(ctx);
	ctx = recover(&b, E2SR_OPEN_FORCE, 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_NONE);
	done(ctx);
}

/*
 * 8b. A bad commit checksum whose commit time is older than the last
 * good commit's: a stale block of an older log, the log just ends there.
 */
static void test_stale_bad_commit(void **state)
{
	struct jb b;
	struct sbstate s;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 1, 2, 0, 0 } };

	jb_init(&b, *state, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 1);
	b.ctime -= 100;
	jb_desc(&b, SEQ0 + 1, t6, 1, 0);
	jb_commit(&b, SEQ0 + 1, C_BAD);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
	assert_int_equal(ctx->replay.recovery.failed_commit, 0);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 0);
	expect_dev(b.t->img, TGT + 1);
	fs_state(b.t->img, &s);
	assert_false(s.state & EXT2_ERROR_FS);
}

/*
 * 9. csum v3, one data block's tag checksum wrong: that copy is skipped,
 * the others replayed, the filesystem left not clean and s_sequence as
 * it was.
 */
static void test_bad_tag_csum(void **state)
{
	struct jb b;
	struct sbstate s;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 1 },
				 { TGT + 2, 1, 1, 0 } };
	const struct jd t6[] = { { TGT + 3, 2, 0, 0 } };

	jb_init(&b, *state, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 3);
	jb_trans(&b, SEQ0 + 1, t6, 1);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, E2SR_ERR_UNCLEAN);
	assert_int_equal(ctx->replay.recovery.tag_csum_bad, 1);
	assert_int_equal(ctx->replay.recovery.failed_commit, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 2);
	assert_int_equal(ctx->replay.recovery.nblocks, 3);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 0);
	expect_dev(b.t->img, TGT + 1);
	expect_ver(b.t->img, TGT + 2, 1, 1);
	expect_ver(b.t->img, TGT + 3, 2, 0);
	expect_jsb(&b, SEQ0);
	fs_state(b.t->img, &s);
	assert_false(s.state & EXT2_VALID_FS);
}

/* Refused: both opens fail with @want and the image is unchanged. */
static void expect_refused(struct jb *b, errcode_t want)
{
	char before[65], after[65];
	struct e2sr_ctx *ctx;

	assert_int_equal(testimg_sha256(b->t->img, before), 0);
	ctx = recover(b, E2SR_OPEN_RDONLY, want);
	e2sr_ctx_free(ctx);
	ctx = recover(b, 0, want);
	e2sr_ctx_free(ctx);
	ctx = recover(b, E2SR_OPEN_FORCE, want);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_sha256(b->t->img, after), 0);
	assert_string_equal(before, after);
}

static void fresh(struct testimg *t)
{
	testimg_cleanup(t);
	assert_int_equal(testimg_setup(t), 0);
}

/* 10a. Descriptors of the right sequence all round the ring. */
static void test_hostile_loop(void **state)
{
	struct testimg *t = *state;
	const struct jd d[] = { { TGT, 1, 0, 0 } };
	unsigned char p[BS];
	struct jb b;
	__u32 i;

	/* every block a descriptor: the log is read at any alignment */
	jb_init(&b, t, MKFS_NOCSUM, F_REVOKE | F_64);
	jb_sb(&b, 1, SEQ0);
	jb_desc(&b, SEQ0, d, 1, 0);
	rw_blk(b.fd, b.pmap[1], p, 0);
	for (i = 2; i < JLEN; i++)
		jb_put(&b, i, p);
	jb_done(&b);
	expect_refused(&b, E2SR_ERR_JOURNAL_LOOP);

	/* revoke blocks all round, never a commit */
	fresh(t);
	jb_init(&b, t, MKFS_NOCSUM, F_REVOKE | F_64);
	jb_sb(&b, 1, SEQ0);
	for (i = 0; i < JLEN - 1; i++) {
		const blk64_t r[] = { TGT };

		jb_revoke(&b, SEQ0, r, 1, 0);
	}
	jb_done(&b);
	expect_refused(&b, E2SR_ERR_JOURNAL_LOOP);
}

/* 10b. Tags that would write outside the filesystem or into the journal. */
static void test_hostile_targets(void **state)
{
	struct testimg *t = *state;
	struct jb b;
	blk64_t bad[4];
	size_t i;

	for (i = 0; i < 4; i++) {
		const struct jd ok[] = { { TGT, 1, 0, 0 } };
		struct jd d[] = { { TGT + 1, 1, 0, 0 }, { 0, 1, 0, 0 } };

		if (i)
			fresh(t);
		jb_init(&b, t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
		bad[0] = FS_BLOCKS;
		bad[1] = b.pmap[0];		/* the journal superblock */
		bad[2] = b.pmap[6];		/* the tag's own data block */
		bad[3] = (1ULL << 32) | (TGT + 2); /* 64-bit tag, high word */
		d[1].blk = bad[i];
		jb_sb(&b, 1, SEQ0);
		jb_trans(&b, SEQ0, ok, 1);
		jb_trans(&b, SEQ0 + 1, d, 2);
		jb_done(&b);
		expect_refused(&b, E2SR_ERR_JOURNAL_BAD_TARGET);
	}
}

/*
 * 10c. What jbd2 would not write is no refusal: a bad target in an
 * uncommitted transaction, one revoked later, one whose copy fails its
 * checksum.
 */
static void test_unwritten_bad_targets(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	struct jb b;
	const struct jd t5[] = { { TGT, 1, 0, 0 },
				 { FS_BLOCKS + 5, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 1, 2, 0, 0 },
				 { FS_BLOCKS + 6, 2, 0, 1 } };
	const struct jd t7[] = { { FS_BLOCKS + 7, 3, 0, 0 } };
	const blk64_t r6[] = { FS_BLOCKS + 5 };

	jb_init(&b, t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_revoke(&b, SEQ0 + 1, r6, 1, 0);
	jb_trans(&b, SEQ0 + 1, t6, 2);
	jb_desc(&b, SEQ0 + 2, t7, 1, 0);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, E2SR_ERR_UNCLEAN);
	assert_int_equal(ctx->replay.recovery.nblocks, 2);
	assert_int_equal(ctx->replay.recovery.tag_csum_bad, 1);
	done(ctx);
	expect_ver(t->img, TGT, 1, 0);
	expect_ver(t->img, TGT + 1, 2, 0);
}

/* 10d. A revoke block whose r_count runs past the block (or its tail). */
static void test_hostile_revoke(void **state)
{
	static const struct {
		const char	*mkfs;
		__u32		incompat;
		__u32		rcount;
	} cfg[] = {
		{ MKFS_NOCSUM, F_REVOKE | F_64, BS + 8 },
		{ MKFS_NOCSUM, F_REVOKE | F_64, 0xFFFFFFF0U },
		{ MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3, BS },
		{ MKFS_CSUM, F_REVOKE | F_CSUM3, BS - 4 + 1 },
	};
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;
	struct jb b;
	size_t i;

	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		const struct jd t5[] = { { TGT, 1, 0, 0 } };
		const blk64_t r[] = { TGT };

		if (i)
			fresh(t);
		jb_init(&b, t, cfg[i].mkfs, cfg[i].incompat);
		jb_sb(&b, 1, SEQ0);
		jb_trans(&b, SEQ0, t5, 1);
		jb_revoke(&b, SEQ0 + 1, r, 1, cfg[i].rcount);
		jb_commit(&b, SEQ0 + 1, 0);
		jb_done(&b);
		expect_refused(&b, E2SR_ERR_JOURNAL_BAD_REVOKE);
	}

	/* The same block in a transaction never committed: not read. */
	fresh(t);
	{
		const struct jd t5[] = { { TGT, 1, 0, 0 } };
		const blk64_t r[] = { TGT };

		jb_init(&b, t, MKFS_NOCSUM, F_REVOKE | F_64);
		jb_sb(&b, 1, SEQ0);
		jb_trans(&b, SEQ0, t5, 1);
		jb_revoke(&b, SEQ0 + 1, r, 1, BS + 8);
		jb_done(&b);
		ctx = replay_cmp(&b, 0, 0);
		assert_int_equal(ctx->replay.recovery.nblocks, 1);
		done(ctx);
		expect_ver(t->img, TGT, 1, 0);
	}
}

/*
 * 10e. A descriptor whose tags never say LAST_TAG: the list ends where
 * the next tag would not fit, and that is a valid transaction.
 */
static void no_last_tag_case(struct testimg *t, const char *mkfs,
			     __u32 incompat)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	struct jd d[600];
	size_t n, i;

	jb_init(&b, t, mkfs, incompat);
	n = jb_max_tags(&b);
	assert_true(n <= DEV_LEN && n < sizeof(d) / sizeof(d[0]));
	for (i = 0; i < n; i++) {
		d[i].blk = TGT + i;
		d[i].ver = 1;
		d[i].magic = !(i % 97);
		d[i].bad_csum = 0;
	}
	jb_sb(&b, 1, SEQ0);
	jb_desc(&b, SEQ0, d, n, D_NO_LAST);
	jb_commit(&b, SEQ0, 0);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.nblocks, n);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
	done(ctx);
	for (i = 0; i < n; i++)
		expect_ver(t->img, TGT + i, 1, d[i].magic);
	expect_jsb(&b, SEQ0 + 2);
}

static void test_no_last_tag(void **state)
{
	struct testimg *t = *state;

	no_last_tag_case(t, MKFS_NOCSUM32, F_REVOKE);		/* 508 tags */
	fresh(t);
	no_last_tag_case(t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	fresh(t);
	no_last_tag_case(t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM2);
}

/* 11. A dry run reads the recovered filesystem and writes nothing. */
static void test_dry_run_view(void **state)
{
	struct testimg *t = *state;
	char before[65], after[65], copy[PATH_MAX];
	unsigned char *got, *want;
	struct e2sr_ctx *ctx;
	struct jb b;
	blk64_t blk;
	int fd;
	const struct jd t5[] = { { TGT, 1, 1, 0 }, { TGT + 1, 1, 0, 0 },
				 { TGT + 3, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 1, 2, 0, 0 }, { TGT + 5, 2, 1, 0 } };

	jb_init(&b, t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(&b, JLEN - 3, SEQ0);
	jb_trans(&b, SEQ0, t5, 3);
	jb_trans(&b, SEQ0 + 1, t6, 2);
	jb_done(&b);
	fsck_copy(&b, copy, sizeof(copy));

	got = malloc((size_t)FS_BLOCKS * BS);
	want = malloc((size_t)FS_BLOCKS * BS);
	assert_non_null(got);
	assert_non_null(want);

	assert_int_equal(testimg_sha256(t->img, before), 0);
	ctx = recover(&b, E2SR_OPEN_RDONLY, 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_VIEW);
	assert_int_equal(ctx->replay.recovery.nblocks, 4);

	/* One block at a time. */
	for (blk = TGT; blk <= TGT + 6; blk++) {
		assert_int_equal(io_channel_read_blk64(ctx->fs->io, blk, 1,
						       got), 0);
		if (blk == TGT || blk == TGT + 5)
			content(want, blk, blk == TGT ? 1 : 2, 1);
		else if (blk == TGT + 1)
			content(want, blk, 2, 0);
		else if (blk == TGT + 3)
			content(want, blk, 1, 0);
		else
			dev_content(want, blk);
		assert_memory_equal(got, want, BS);
	}

	/* The whole filesystem in one read: what e2fsck's replay left. */
	fd = open(copy, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, want, (size_t)FS_BLOCKS * BS, 0),
			 (ssize_t)FS_BLOCKS * BS);
	close(fd);
	assert_int_equal(io_channel_read_blk64(ctx->fs->io, 0, FS_BLOCKS,
					       got), 0);
	/*
	 * But for the superblock and the journal superblock: the view shows
	 * the replayed blocks, not the journal emptied after them.
	 */
	memcpy(want, got, BS);
	memcpy(want + b.pmap[0] * BS, got + b.pmap[0] * BS, BS);
	assert_memory_equal(got, want, (size_t)FS_BLOCKS * BS);

	/* A range over replayed and untouched blocks, not block-aligned. */
	memset(got, 0, 3 * BS);
	assert_int_equal(io_channel_read_blk64(ctx->fs->io, TGT + 2,
					       -(2 * BS + 100), got), 0);
	assert_memory_equal(got, want + (size_t)(TGT + 2) * BS, 2 * BS + 100);
	assert_int_equal(got[2 * BS + 100], 0);

	/* The view does not write. */
	assert_int_equal(io_channel_write_blk64(ctx->fs->io, TGT, 1, got),
			 EXT2_ET_RO_FILSYS);
	done(ctx);
	free(got);
	free(want);
	assert_int_equal(testimg_sha256(t->img, after), 0);
	assert_string_equal(before, after);
}

/*
 * 12. async_commit: a bad commit checksum in the middle ends the log
 * there, the scan reads on, and no commit is reported as failed.
 */
static void test_async_commit(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 } };
	const struct jd t6[] = { { TGT + 1, 2, 0, 0 } };
	const struct jd t7[] = { { TGT + 2, 3, 0, 0 } };

	jb_init(&b, *state, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3 | F_ASYNC);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 1);
	jb_desc(&b, SEQ0 + 1, t6, 1, 0);
	jb_commit(&b, SEQ0 + 1, C_BAD);
	jb_trans(&b, SEQ0 + 2, t7, 1);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
	assert_int_equal(ctx->replay.recovery.failed_commit, 0);
	assert_int_equal(ctx->replay.recovery.nblocks, 1);
	done(ctx);
	expect_ver(b.t->img, TGT, 1, 0);
	expect_dev(b.t->img, TGT + 1);
	expect_dev(b.t->img, TGT + 2);
	expect_jsb(&b, SEQ0 + 2);
}

/*
 * A descriptor or revoke block whose tail checksum is wrong: a stale
 * block of an older log when its commit is older than the last good one
 * (the log ends there), corruption when it is newer (refused; e2fsck
 * would give up the whole journal).
 */
static void test_bad_block_tail(void **state)
{
	struct testimg *t = *state;
	unsigned char p[BS];
	struct e2sr_ctx *ctx;
	struct jb b;
	__u32 at;
	int stale, revoke;

	for (revoke = 0; revoke < 2; revoke++) {
		for (stale = 0; stale < 2; stale++) {
			const struct jd t5[] = { { TGT, 1, 0, 0 } };
			const struct jd t6[] = { { TGT + 1, 2, 0, 0 } };
			const blk64_t r6[] = { TGT + 2 };

			if (revoke || stale)
				fresh(t);
			jb_init(&b, t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
			jb_sb(&b, 1, SEQ0);
			jb_trans(&b, SEQ0, t5, 1);
			at = b.pos;
			if (stale)
				b.ctime -= 100;
			if (revoke)
				jb_revoke(&b, SEQ0 + 1, r6, 1, 0);
			jb_trans(&b, SEQ0 + 1, t6, 1);
			rw_blk(b.fd, b.pmap[at], p, 0);
			p[100] ^= 0xFF;
			rw_blk(b.fd, b.pmap[at], p, 1);
			jb_done(&b);
			if (!stale) {
				expect_refused(&b, E2SR_ERR_JOURNAL_CORRUPT);
				continue;
			}
			ctx = replay_cmp(&b, 0, 0);
			assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + 1);
			assert_int_equal(ctx->replay.recovery.nblocks, 1);
			done(ctx);
			expect_ver(t->img, TGT, 1, 0);
			expect_dev(t->img, TGT + 1);
		}
	}
}

/*
 * The v1 transaction checksum (COMPAT_CHECKSUM): crc32_be over the
 * descriptors and data.  A commit may also carry none.  A bad one ends
 * the log and fails the commit; with async_commit too, as jbd2 reports
 * the failed commit when the next commit is read.
 */
static void v1_case(struct testimg *t, __u32 incompat, int bad_middle)
{
	struct jb b;
	struct sbstate s;
	struct e2sr_ctx *ctx;
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 1, 0 } };
	const struct jd t6[] = { { TGT + 2, 2, 0, 0 } };
	const struct jd t7[] = { { TGT + 3, 3, 0, 0 } };
	const struct jd t8[] = { { TGT + 4, 4, 0, 0 } };

	jb_init(&b, t, MKFS_NOCSUM, incompat);
	b.compat = E2SR_JBD2_COMPAT_CHECKSUM;
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_desc(&b, SEQ0 + 1, t6, 1, 0);
	jb_commit(&b, SEQ0 + 1, C_V1_NONE);
	jb_desc(&b, SEQ0 + 2, t7, 1, 0);
	jb_commit(&b, SEQ0 + 2, bad_middle ? C_BAD : 0);
	jb_trans(&b, SEQ0 + 3, t8, 1);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, bad_middle ? E2SR_ERR_FS_ERRORS : 0);
	assert_int_equal(ctx->replay.recovery.end_seq, SEQ0 + (bad_middle ? 2 : 4));
	assert_int_equal(ctx->replay.recovery.failed_commit,
			 bad_middle ? SEQ0 + 2 : 0);
	done(ctx);
	expect_ver(t->img, TGT, 1, 0);
	expect_ver(t->img, TGT + 1, 1, 1);
	expect_ver(t->img, TGT + 2, 2, 0);
	if (bad_middle) {
		expect_dev(t->img, TGT + 3);
		expect_dev(t->img, TGT + 4);
	} else {
		expect_ver(t->img, TGT + 3, 3, 0);
		expect_ver(t->img, TGT + 4, 4, 0);
	}
	fs_state(t->img, &s);
	assert_int_equal(!!(s.state & EXT2_ERROR_FS), bad_middle);
}

static void test_v1_checksum(void **state)
{
	struct testimg *t = *state;

	v1_case(t, F_REVOKE | F_64, 0);
	fresh(t);
	v1_case(t, F_REVOKE | F_64, 1);
	fresh(t);
	v1_case(t, F_REVOKE | F_64 | F_ASYNC, 0);
	fresh(t);
	v1_case(t, F_REVOKE | F_64 | F_ASYNC, 1);
}

/* Transaction ids wrap: 0 is newer than 0xffffffff, for revokes too. */
static void test_tid_wrap(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	const __u32 s0 = 0xFFFFFFFEU;
	const struct jd ta[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 0 } };
	const struct jd tc[] = { { TGT + 1, 3, 0, 0 }, { TGT + 2, 3, 0, 0 } };
	const struct jd td[] = { { TGT + 3, 4, 0, 0 } };
	const blk64_t rb[] = { TGT, TGT + 1, TGT + 3 };

	jb_init(&b, *state, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	jb_sb(&b, 1, s0);
	jb_trans(&b, s0, ta, 2);		/* 0xfffffffe */
	jb_revoke(&b, s0 + 1, rb, 3, 0);	/* 0xffffffff */
	jb_commit(&b, s0 + 1, 0);
	jb_trans(&b, s0 + 2, tc, 2);		/* 0 */
	jb_trans(&b, s0 + 3, td, 1);		/* 1 */
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.start_seq, s0);
	assert_int_equal(ctx->replay.recovery.end_seq, 2);
	assert_int_equal(ctx->replay.recovery.nr_revoke_hits, 2);
	done(ctx);
	expect_dev(b.t->img, TGT);
	expect_ver(b.t->img, TGT + 1, 3, 0);
	expect_ver(b.t->img, TGT + 2, 3, 0);
	expect_ver(b.t->img, TGT + 3, 4, 0);
	expect_jsb(&b, 3);
}

/*
 * More revoke records than the first allocation, repeated, a block
 * revoked first by an older and then by a newer transaction: the newest
 * revoke counts, whatever the merging.
 */
static void test_many_revokes(void **state)
{
	struct jb b;
	struct e2sr_ctx *ctx;
	blk64_t r[510];
	size_t i, n = sizeof(r) / sizeof(r[0]);
	const struct jd t5[] = { { TGT, 1, 0, 0 }, { TGT + 1, 1, 0, 0 } };
	const struct jd t7[] = { { TGT, 3, 0, 0 }, { TGT + 1, 3, 0, 0 } };

	jb_init(&b, *state, MKFS_NOCSUM, F_REVOKE | F_64);
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	/* T6: both blocks among 508 others, twice */
	for (i = 0; i < n; i++)
		r[i] = 3000 + i % 300;
	r[7] = TGT;
	r[400] = TGT + 1;
	jb_revoke(&b, SEQ0 + 1, r, n, 0);
	jb_revoke(&b, SEQ0 + 1, r, n, 0);
	jb_commit(&b, SEQ0 + 1, 0);
	jb_trans(&b, SEQ0 + 2, t7, 2);
	/* T8: TGT + 1 again, last, among the same others */
	for (i = 0; i < n; i++)
		r[i] = 3000 + (i * 7) % 300;
	r[n - 1] = TGT + 1;
	jb_revoke(&b, SEQ0 + 3, r, n, 0);
	jb_commit(&b, SEQ0 + 3, 0);
	jb_done(&b);

	ctx = replay_cmp(&b, 0, 0);
	assert_int_equal(ctx->replay.recovery.nr_revokes, 3 * n);
	assert_int_equal(ctx->replay.recovery.nr_revoke_hits, 3);
	assert_int_equal(ctx->replay.recovery.nblocks, 1);
	done(ctx);
	expect_ver(b.t->img, TGT, 3, 0);
	expect_dev(b.t->img, TGT + 1);
}

/*
 * The superblock itself in the journal: the replay and the dry run's
 * view both see the journal's copy.
 */
static void test_superblock_logged(void **state)
{
	struct testimg *t = *state;
	unsigned char raw[BS];
	struct e2sr_ctx *ctx;
	ext2_filsys fs;
	struct jb b;
	int fd;
	const struct jd t5[] = { { 0, 1, 0, 0 }, { TGT, 1, 0, 0 } };

	jb_init(&b, t, MKFS_CSUM, F_REVOKE | F_64 | F_CSUM3);
	/* block 0 with another volume name, as the kernel would log it */
	assert_int_equal(ext2fs_open(t->img, 0, 0, 0, unix_io_manager, &fs),
			 0);
	strcpy((char *)fs->super->s_volume_name, "from-journal");
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	ext2fs_superblock_csum_set(fs, fs->super);
	rw_blk(b.fd, 0, raw, 0);
	memcpy(raw + SUPERBLOCK_OFFSET, fs->super, SUPERBLOCK_SIZE);
	ext2fs_free(fs);
	b.raw0 = raw;
	jb_sb(&b, 1, SEQ0);
	jb_trans(&b, SEQ0, t5, 2);
	jb_done(&b);

	ctx = recover(&b, E2SR_OPEN_RDONLY, 0);
	assert_int_equal(ctx->replay.how, E2SR_RECOVERY_VIEW);
	assert_string_equal((char *)ctx->fs->super->s_volume_name,
			    "from-journal");
	done(ctx);

	ctx = replay_cmp(&b, 0, 0);
	assert_string_equal((char *)ctx->fs->super->s_volume_name,
			    "from-journal");
	done(ctx);
	fd = open(t->img, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, raw, BS, 0), BS);
	close(fd);
	assert_string_equal((char *)raw + SUPERBLOCK_OFFSET + 0x78,
			    "from-journal");
	expect_ver(t->img, TGT, 1, 0);
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
						testimg_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_one_transaction),
		T(test_newest_wins),
		T(test_revoke),
		T(test_escape),
		T(test_wrap),
		T(test_tag_layouts),
		T(test_csum2_bad_tag),
		T(test_no_commit),
		T(test_bad_commit_csum),
		T(test_stale_bad_commit),
		T(test_bad_tag_csum),
		T(test_hostile_loop),
		T(test_hostile_targets),
		T(test_unwritten_bad_targets),
		T(test_hostile_revoke),
		T(test_no_last_tag),
		T(test_dry_run_view),
		T(test_async_commit),
		T(test_bad_block_tail),
		T(test_v1_checksum),
		T(test_tid_wrap),
		T(test_many_revokes),
		T(test_superblock_logged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
