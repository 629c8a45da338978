/*
 * test_discover.c --- evidence discovery takes from the journal beyond
 * inode table copies: fast-commit add_range tags, attributed to the
 * identity the same commit's inode tag gives, and xattr entries naming
 * EA inodes.  The fast-commit area is written by hand into an image made
 * by mke2fs, so that every way a range can fail to be a file's is tried.
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
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "fast_commit.h"
#include "ea_inode.h"
#include "testimg.h"

#define BS		4096
#define RAW_INODE	160	/* what the kernel logs: 128 + extra */

static void put16(unsigned char *p, __u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(unsigned char *p, __u32 v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

/* One fast-commit block being written, with its commit's checksum. */
struct fcb {
	unsigned char	b[BS];
	unsigned int	off;
	__u32		crc;
};

static unsigned char *tag(struct fcb *f, unsigned int t, unsigned int len)
{
	unsigned char *p = f->b + f->off;

	assert_true(f->off + 4 + len <= BS);
	put16(p, t);
	put16(p + 2, len);
	f->off += 4 + len;
	return p + 4;
}

/* Close a tag: its header and value go into the commit's checksum. */
static void sum(struct fcb *f, const unsigned char *v, unsigned int len)
{
	f->crc = ext2fs_crc32c_le(f->crc, v - 4, 4 + len);
}

static void head(struct fcb *f, __u32 tid)
{
	unsigned char *v = tag(f, E2SR_FC_TAG_HEAD, 8);

	put32(v, 0);
	put32(v + 4, tid);
	sum(f, v, 8);
}

static void add_range(struct fcb *f, ext2_ino_t ino, __u32 lblk,
		      blk64_t pblk, __u16 len)
{
	unsigned char *v = tag(f, E2SR_FC_TAG_ADD_RANGE, 16);

	put32(v, ino);
	put32(v + 4, lblk);
	put16(v + 8, len);
	put16(v + 10, pblk >> 32);
	put32(v + 12, pblk);
	sum(f, v, 16);
}

static void inode_tag(struct fcb *f, ext2_ino_t ino, const void *raw)
{
	unsigned char *v = tag(f, E2SR_FC_TAG_INODE, 4 + RAW_INODE);

	put32(v, ino);
	memcpy(v + 4, raw, RAW_INODE);
	sum(f, v, 4 + RAW_INODE);
}

/* A pad to the block's end, but for its last byte, as the kernel does. */
static void pad(struct fcb *f)
{
	unsigned int len = BS - f->off - 4 - 1;
	unsigned char *v = tag(f, E2SR_FC_TAG_PAD, len);

	sum(f, v, len);
}

/* The tail ends the commit and the block; @good: a checksum that holds. */
static void tail(struct fcb *f, __u32 tid, int good)
{
	unsigned int len = BS - f->off - 4;
	unsigned char *v = tag(f, E2SR_FC_TAG_TAIL, len);

	put32(v, tid);
	f->crc = ext2fs_crc32c_le(f->crc, v - 4, 4 + 4);
	put32(v + 4, good ? f->crc : ~f->crc);
	f->crc = 0;
}

/* Start the next block of the same commit: the checksum goes on. */
static void next_block(struct fcb *f)
{
	memset(f->b, 0, BS);
	f->off = 0;
}

static void put_file(struct testimg *t, const char *name, size_t size)
{
	char host[PATH_MAX], script[2 * PATH_MAX];

	assert_int_equal(testimg_make_file(t, name, size, 7), 0);
	assert_int_equal(testimg_path(t, name, host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s %s\n", host, name);
	assert_int_equal(testimg_debugfs(t, script), 0);
}

/* The on-disk record of /@name, and its number. */
static ext2_ino_t raw_record(const char *img, const char *name,
			     unsigned char *raw)
{
	ext2_filsys fs;
	ext2_ino_t ino;

	assert_int_equal(ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name,
				      &ino), 0);
	assert_int_equal(ext2fs_read_inode_full(fs, ino,
			 (struct ext2_inode *)raw, EXT2_INODE_SIZE(fs->super)),
			 0);
	ext2fs_free(fs);
	return ino;
}

struct fc_area {
	blk64_t		phys[16];	/* fs blocks of the area's blocks */
	unsigned int	n;
	blk64_t		free[8];	/* free blocks to point ranges at */
};

static void find_area(const char *img, struct fc_area *a)
{
	struct e2sr_ctx *ctx;
	struct e2sr_fcwalk w;
	blk64_t b;
	unsigned int i;

	memset(a, 0, sizeof(*a));
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, img, E2SR_OPEN_RDONLY), 0);
	assert_non_null(ctx->journal);
	assert_int_equal(e2sr_fc_walk(ctx->journal, &w), 0);
	assert_true(w.end - w.first >= 8);
	for (i = 0; i < 8; i++)
		a->phys[a->n++] = e2sr_journal_phys(ctx->journal,
						    w.first + i);
	e2sr_fc_walk_free(&w);
	/* Free blocks far from anything mke2fs or debugfs allocated. */
	b = ext2fs_blocks_count(ctx->fs->super) - 64;
	for (i = 0; i < 8; b -= 3) {
		if (ext2fs_test_block_bitmap2(ctx->fs->block_map, b))
			continue;
		a->free[i++] = b;
	}
	e2sr_ctx_free(ctx);
}

static void write_block(const char *img, blk64_t blk, const void *buf)
{
	int fd = open(img, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, buf, BS, (off_t)blk * BS), BS);
	close(fd);
}

static int planned(struct e2sr_ctx *ctx, blk64_t blk)
{
	return ext2fs_test_block_bitmap2(ctx->plan.data_blocks, blk);
}

/*
 * A deleted +s file S and a live plain file P.  Ranges go to S only from
 * whole commits (checksum good, blocks chained by pads) that logged S's
 * inode; never from a commit without S's inode tag, nor to P.
 */
static void test_fc_ranges(void **state)
{
	struct testimg *t = *state;
	unsigned char s_raw[512], p_raw[512];
	struct fc_area a;
	struct fcb f;
	struct e2sr_ctx *ctx;
	const struct e2sr_file *s = NULL;
	ext2_ino_t s_ino, p_ino, other = 40;
	size_t i, unwritten = 0;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 4096 -O fast_commit"),
			 0);
	put_file(t, "s", 100);
	put_file(t, "p", 100);
	/* EXT4_EXTENTS_FL | EXT2_SECRM_FL */
	assert_int_equal(testimg_debugfs(t,
			 "set_inode_field s flags 0x80001\n"), 0);
	s_ino = raw_record(t->img, "s", s_raw);
	assert_int_equal(testimg_debugfs(t, "rm s\n"), 0);
	p_ino = raw_record(t->img, "p", p_raw);
	find_area(t->img, &a);

	memset(&f, 0, sizeof(f));
	/* 0: whole, S's inode: free[0] data, free[1] unwritten are S's. */
	head(&f, 5);
	add_range(&f, s_ino, 0, a.free[0], 1);
	add_range(&f, s_ino, 1, a.free[1], 32768 + 1);
	inode_tag(&f, s_ino, s_raw);
	tail(&f, 5, 1);
	write_block(t->img, a.phys[0], f.b);
	/* 1: a range of an inode the commit did not log: nobody's. */
	next_block(&f);
	add_range(&f, other, 0, a.free[2], 1);
	inode_tag(&f, s_ino, s_raw);
	tail(&f, 5, 1);
	write_block(t->img, a.phys[1], f.b);
	/* 2: the checksum fails: the commit is not whole. */
	next_block(&f);
	add_range(&f, s_ino, 2, a.free[3], 1);
	inode_tag(&f, s_ino, s_raw);
	tail(&f, 5, 0);
	write_block(t->img, a.phys[2], f.b);
	/* 3: P's range, with P's inode: P is no secure-delete file. */
	next_block(&f);
	add_range(&f, p_ino, 0, a.free[4], 1);
	inode_tag(&f, p_ino, p_raw);
	tail(&f, 5, 1);
	write_block(t->img, a.phys[3], f.b);
	/* 4-5: one commit over two blocks, chained by a pad: S's. */
	next_block(&f);
	add_range(&f, s_ino, 3, a.free[5], 1);
	pad(&f);
	write_block(t->img, a.phys[4], f.b);
	next_block(&f);
	inode_tag(&f, s_ino, s_raw);
	tail(&f, 5, 1);
	write_block(t->img, a.phys[5], f.b);
	/* 6-7: the same, but block 6 ends without a pad: broken. */
	next_block(&f);
	add_range(&f, s_ino, 4, a.free[6], 1);
	write_block(t->img, a.phys[6], f.b);
	next_block(&f);
	inode_tag(&f, s_ino, s_raw);
	tail(&f, 5, 1);
	write_block(t->img, a.phys[7], f.b);

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, t->img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	for (i = 0; i < ctx->inv.count; i++)
		if (ctx->inv.files[i].ino == s_ino)
			s = &ctx->inv.files[i];
		else
			assert_int_not_equal(ctx->inv.files[i].ino, p_ino);
	assert_non_null(s);
	assert_int_equal(s->state, E2SR_STATE_DELETED);
	for (i = 0; i < s->map_count; i++)
		if (s->map[i].kind == E2SR_EXT_UNWRITTEN) {
			assert_int_equal(s->map[i].pblk, a.free[1]);
			assert_int_equal(s->map[i].len, 1);
			assert_int_equal(s->map[i].historic, 1);
			unwritten++;
		}
	assert_int_equal(unwritten, 1);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_true(planned(ctx, a.free[0]));
	assert_true(planned(ctx, a.free[1]));
	assert_false(planned(ctx, a.free[2]));
	assert_false(planned(ctx, a.free[3]));
	assert_false(planned(ctx, a.free[4]));
	assert_true(planned(ctx, a.free[5]));
	assert_false(planned(ctx, a.free[6]));
	e2sr_ctx_free(ctx);
}

/* A record with an in-inode area holding @n entries built by the caller. */
struct ibody {
	unsigned char	b[256];
	unsigned int	off;
};

static void ibody_start(struct ibody *r)
{
	memset(r, 0, sizeof(r->b));
	put16(r->b + 128, 32);		/* i_extra_isize */
	put32(r->b + 160, EXT2_EXT_ATTR_MAGIC);
	r->off = 164;
}

static void ibody_entry(struct ibody *r, const char *name, __u8 index,
			__u32 inum, __u32 size, __u32 hash)
{
	unsigned int len = strlen(name);
	unsigned char *e = r->b + r->off;

	e[0] = len;
	e[1] = index;
	put16(e + 2, 0);
	put32(e + 4, inum);
	put32(e + 8, size);
	put32(e + 12, hash);
	memcpy(e + 16, name, len);
	r->off += EXT2_EXT_ATTR_LEN(len);
}

/* An EA inode's record: flag, size, and its value's hash in i_atime. */
static void ea_record(unsigned char *rec, __u32 flags, __u32 size,
		      __u32 hash, __u16 links)
{
	memset(rec, 0, 256);
	put32(rec + offsetof(struct ext2_inode, i_flags), flags);
	put32(rec + offsetof(struct ext2_inode, i_size), size);
	put32(rec + offsetof(struct ext2_inode, i_atime), hash);
	put16(rec + offsetof(struct ext2_inode, i_links_count), links);
}

/*
 * Entries naming EA inodes, and the check of a value inode against the
 * entry: numbers taken from a kernel-made file (user.big, 15000 bytes).
 */
static void test_ea_refs(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ea_refs refs;
	struct ibody r;
	unsigned char rec[256], blk[BS];
	ext2_filsys fs;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 4096 -I 256 -O ea_inode"),
			 0);
	assert_int_equal(ext2fs_open(t->img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	memset(&refs, 0, sizeof(refs));

	ibody_start(&r);
	ibody_entry(&r, "small", 1, 0, 10, 0x1234);	/* value inline */
	ibody_entry(&r, "big", 1, 13, 15000, 0x9f0443b9);
	ibody_entry(&r, "far", 1, 1u << 30, 15000, 1);	/* past the fs */
	assert_int_equal(e2sr_ea_refs_ibody(fs, r.b, 7, &refs), 0);
	assert_int_equal(refs.n, 1);
	assert_int_equal(refs.v[0].ea_ino, 13);
	assert_int_equal(refs.v[0].owner, 7);
	assert_int_equal(refs.v[0].size, 15000);

	ea_record(rec, EXT4_EA_INODE_FL | EXT4_EXTENTS_FL, 15000, 0x1a4343b8,
		  1);
	assert_true(e2sr_ea_ref_matches(&refs.v[0], rec));
	/* Another value's inode, a plain file, a different size: no. */
	ea_record(rec, EXT4_EA_INODE_FL, 15000, 0x1a4343b9, 1);
	assert_false(e2sr_ea_ref_matches(&refs.v[0], rec));
	ea_record(rec, EXT4_EXTENTS_FL, 15000, 0x1a4343b8, 1);
	assert_false(e2sr_ea_ref_matches(&refs.v[0], rec));
	ea_record(rec, EXT4_EA_INODE_FL, 14000, 0x1a4343b8, 1);
	assert_false(e2sr_ea_ref_matches(&refs.v[0], rec));

	/* An entry running past the area ends the walk. */
	refs.n = 0;
	ibody_start(&r);
	ibody_entry(&r, "big", 1, 13, 15000, 0x9f0443b9);
	r.b[r.off] = 200;			/* name_len past the record */
	put32(r.b + r.off + 4, 14);
	assert_int_equal(e2sr_ea_refs_ibody(fs, r.b, 7, &refs), 0);
	assert_int_equal(refs.n, 1);
	/* No magic, or an extra size past the record: nothing. */
	refs.n = 0;
	put32(r.b + 160, 0);
	assert_int_equal(e2sr_ea_refs_ibody(fs, r.b, 7, &refs), 0);
	put32(r.b + 160, EXT2_EXT_ATTR_MAGIC);
	put16(r.b + 128, 252);
	assert_int_equal(e2sr_ea_refs_ibody(fs, r.b, 7, &refs), 0);
	assert_int_equal(refs.n, 0);

	/* An EA block: header, then the same entry. */
	memset(blk, 0, sizeof(blk));
	put32(blk, EXT2_EXT_ATTR_MAGIC);
	put32(blk + 4, 1);
	put32(blk + 8, 1);
	memcpy(blk + 32, r.b + 164, 16 + 4);
	assert_int_equal(e2sr_ea_refs_block(fs, blk, 9, &refs), 0);
	assert_int_equal(refs.n, 1);
	assert_int_equal(refs.v[0].owner, 9);
	put32(blk + 8, 2);			/* h_blocks: not one block */
	assert_int_equal(e2sr_ea_refs_block(fs, blk, 9, &refs), 0);
	assert_int_equal(refs.n, 1);

	e2sr_ea_refs_free(&refs);
	ext2fs_free(fs);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
					      testimg_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fc_ranges),
		T(test_ea_refs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
