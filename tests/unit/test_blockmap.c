/*
 * test_blockmap.c --- the inventory of secure-delete files and their
 * block maps, and the plan built from them, on images shaped by debugfs.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "e2secrm.h"
#include "util.h"
#include "find_int.h"
#include "testimg.h"

#define MAX_BLOCKS	1024

/* The blocks of a live file, read with libext2fs before it is removed. */
struct file_blocks {
	ext2_ino_t	ino;
	__u32		flags;
	size_t		ndata;			/* last logical block + 1 */
	size_t		nmapped;		/* data blocks mapped */
	blk64_t		data[MAX_BLOCKS];	/* indexed by logical block */
	size_t		nmeta;
	blk64_t		meta[MAX_BLOCKS];	/* tree and indirect blocks */
};

static int collect_block(ext2_filsys fs EXT2FS_ATTR((unused)),
			 blk64_t *blocknr, e2_blkcnt_t blockcnt,
			 blk64_t ref_blk EXT2FS_ATTR((unused)),
			 int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct file_blocks *fb = priv;

	if (blockcnt < 0) {
		if (fb->nmeta < MAX_BLOCKS)
			fb->meta[fb->nmeta++] = *blocknr;
	} else if (blockcnt < MAX_BLOCKS) {
		fb->data[blockcnt] = *blocknr;
		fb->nmapped++;
		if ((size_t)blockcnt + 1 > fb->ndata)
			fb->ndata = blockcnt + 1;
	}
	return 0;
}

static void get_file_blocks(const char *img, const char *name,
			    struct file_blocks *fb)
{
	struct ext2_inode inode;
	ext2_filsys fs;

	memset(fb, 0, sizeof(*fb));
	assert_int_equal(ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name,
				      &fb->ino), 0);
	assert_int_equal(ext2fs_read_inode(fs, fb->ino, &inode), 0);
	fb->flags = inode.i_flags;
	if (ext2fs_inode_has_valid_blocks2(fs, &inode) &&
	    !(inode.i_flags & EXT4_INLINE_DATA_FL))
		assert_int_equal(ext2fs_block_iterate3(fs, fb->ino,
				 BLOCK_FLAG_READ_ONLY, NULL, collect_block,
				 fb), 0);
	ext2fs_free(fs);
}

/* Write a host file of @size bytes into the image as /@name. */
static void put_file(struct testimg *t, const char *name, size_t size)
{
	char host[PATH_MAX], script[2 * PATH_MAX];

	assert_int_equal(testimg_make_file(t, name, size, size & 0xff), 0);
	assert_int_equal(testimg_path(t, name, host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s %s\n", host, name);
	assert_int_equal(testimg_debugfs(t, script), 0);
}

/* Add EXT2_SECRM_FL to /@name, keeping its other flags. */
static void set_secrm(struct testimg *t, const char *name, __u32 flags)
{
	char script[128];

	snprintf(script, sizeof(script), "set_inode_field %s flags 0x%x\n",
		 name, flags | EXT2_SECRM_FL);
	assert_int_equal(testimg_debugfs(t, script), 0);
}

static void rm_file(struct testimg *t, const char *name)
{
	char script[128];

	snprintf(script, sizeof(script), "rm %s\n", name);
	assert_int_equal(testimg_debugfs(t, script), 0);
}

static struct e2sr_ctx *scan(const char *img)
{
	struct e2sr_ctx *ctx;

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_true(ctx->inv.inodes_scanned > 0);
	return ctx;
}

/* The map lists exactly fb's blocks, each run free (or in use) whole. */
static void check_map(const struct e2sr_file *f, const struct file_blocks *fb,
		      int want_free)
{
	size_t i, j, ndata = 0, nmeta = 0;
	blk64_t b;

	for (i = 0; i < f->map_count; i++) {
		const struct e2sr_extent *e = &f->map[i];

		assert_true(e->len > 0);
		assert_int_equal(e->nfree, want_free ? e->len : 0);
		if (e->kind == E2SR_EXT_DATA ||
		    e->kind == E2SR_EXT_UNWRITTEN) {
			for (b = 0; b < e->len; b++) {
				assert_true(e->lblk + b < fb->ndata);
				assert_int_equal(fb->data[e->lblk + b],
						 e->pblk + b);
			}
			ndata += e->len;
			continue;
		}
		assert_true(e->kind == E2SR_EXT_TREE ||
			    e->kind == E2SR_EXT_IND);
		for (b = 0; b < e->len; b++) {
			for (j = 0; j < fb->nmeta; j++)
				if (fb->meta[j] == e->pblk + b)
					break;
			assert_true(j < fb->nmeta);
		}
		nmeta += e->len;
	}
	assert_int_equal(ndata, fb->nmapped);
	assert_int_equal(nmeta, fb->nmeta);
	assert_int_equal(f->free_blocks,
			 want_free ? fb->nmapped + fb->nmeta : 0);
	assert_int_equal(f->map_status, 0);
	assert_int_equal(f->map_error, 0);
}

static size_t count_kind(const struct e2sr_file *f,
			 enum e2sr_extent_kind kind)
{
	size_t i, n = 0;

	for (i = 0; i < f->map_count; i++)
		if (f->map[i].kind == kind)
			n += f->map[i].len;
	return n;
}

static void check_plan(struct e2sr_ctx *ctx, blk64_t data, blk64_t meta,
		       size_t inodes)
{
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.data_count, data);
	assert_int_equal(ctx->plan.meta_count, meta);
	assert_int_equal(ctx->plan.inode_count, inodes);
	assert_int_equal(ctx->plan.unrecoverable, 0);
	assert_int_equal(ctx->plan.left, 0);
	assert_int_equal(e2sr_plan_empty(ctx),
			 !data && !meta && !inodes);
}

/* ext4: an extent-mapped file, flagged, then removed. */
static void test_ext4_deleted(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	put_file(t, "f", 10 * 4096 - 100);
	get_file_blocks(t->img, "f", &fb);
	assert_int_equal(fb.flags, EXT4_EXTENTS_FL);
	assert_int_equal(fb.ndata, 10);
	assert_int_equal(fb.nmeta, 0);
	set_secrm(t, "f", fb.flags);	/* 0x80001 */
	rm_file(t, "f");

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	assert_int_equal(f->state, E2SR_STATE_DELETED);
	assert_int_equal(f->flags & EXT2_SECRM_FL, EXT2_SECRM_FL);
	assert_int_equal(f->size, 10 * 4096 - 100);
	assert_true(LINUX_S_ISREG(f->mode));
	assert_int_not_equal(f->dtime, 0);
	check_map(f, &fb, 1);
	check_plan(ctx, 10, 0, 1);
	assert_int_equal(ctx->plan.inodes[0], fb.ino);
	e2sr_ctx_free(ctx);
}

/* ext4: more than four extents, so the map has an extent leaf block. */
static void test_ext4_tree_block(void **state)
{
	struct testimg *t = *state;
	char script[16 * PATH_MAX], host[PATH_MAX];
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;
	size_t n = 0;
	int i;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	/* Holes of one block each in a run of small files. */
	assert_int_equal(testimg_make_file(t, "one", 4096, 1), 0);
	assert_int_equal(testimg_make_file(t, "big", 20 * 4096, 2), 0);
	assert_int_equal(testimg_path(t, "one", host, sizeof(host)), 0);
	for (i = 0; i < 12; i++)
		n += snprintf(script + n, sizeof(script) - n,
			      "write %s x%d\n", host, i);
	for (i = 1; i < 12; i += 2)
		n += snprintf(script + n, sizeof(script) - n, "rm x%d\n", i);
	assert_true(n < sizeof(script));
	assert_int_equal(testimg_debugfs(t, script), 0);
	assert_int_equal(testimg_path(t, "big", host, sizeof(host)), 0);
	snprintf(script, sizeof(script), "write %s big\n", host);
	assert_int_equal(testimg_debugfs(t, script), 0);

	get_file_blocks(t->img, "big", &fb);
	assert_int_equal(fb.ndata, 20);
	assert_int_equal(fb.nmeta, 1);	/* needs > 4 extents */
	set_secrm(t, "big", fb.flags);
	rm_file(t, "big");

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	assert_int_equal(f->state, E2SR_STATE_DELETED);
	check_map(f, &fb, 1);
	assert_int_equal(count_kind(f, E2SR_EXT_TREE), 1);
	check_plan(ctx, 20, 1, 1);
	e2sr_ctx_free(ctx);
}

/* Preallocated blocks are listed as unwritten, and planned as data. */
static void test_ext4_unwritten(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	put_file(t, "u", 4096);
	assert_int_equal(testimg_debugfs(t, "fallocate u 4 9\n"), 0);
	get_file_blocks(t->img, "u", &fb);
	assert_int_equal(fb.nmapped, 7);
	set_secrm(t, "u", fb.flags);
	rm_file(t, "u");

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	check_map(f, &fb, 1);
	assert_int_equal(count_kind(f, E2SR_EXT_DATA), 1);
	assert_int_equal(count_kind(f, E2SR_EXT_UNWRITTEN), 6);
	check_plan(ctx, 7, 0, 1);
	e2sr_ctx_free(ctx);
}

/* Put @len bytes of 0xa5 at the start of block @blk of the image. */
static void dirty_block(const char *img, blk64_t blk, size_t len)
{
	unsigned char junk[64];
	FILE *f;

	memset(junk, 0xa5, sizeof(junk));
	assert_true(len <= sizeof(junk));
	f = fopen(img, "r+b");
	assert_non_null(f);
	assert_int_equal(fseeko(f, (off_t)blk * 4096, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Zero block @blk of the image. */
static void zero_block(const char *img, blk64_t blk)
{
	unsigned char z[4096];
	FILE *f;

	memset(z, 0, sizeof(z));
	f = fopen(img, "r+b");
	assert_non_null(f);
	assert_int_equal(fseeko(f, (off_t)blk * 4096, SEEK_SET), 0);
	assert_int_equal(fwrite(z, 1, sizeof(z), f), sizeof(z));
	assert_int_equal(fclose(f), 0);
}

static int block_is_zero(const char *img, blk64_t blk)
{
	unsigned char buf[4096];
	FILE *f;
	int ok;

	f = fopen(img, "rb");
	assert_non_null(f);
	assert_int_equal(fseeko(f, (off_t)blk * 4096, SEEK_SET), 0);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
	assert_int_equal(fclose(f), 0);
	ok = e2sr_all_zero(buf, sizeof(buf));
	return ok;
}

/*
 * A live +s file's unwritten extent: planned by default, but only the
 * blocks that do not read as zeros; another file's only with --all-free,
 * and then whole.  After the wipe nothing is planned again.
 */
static void test_live_unwritten(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb, fp;
	struct e2sr_ctx *ctx;
	const struct e2sr_unwritten *u;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	put_file(t, "u", 4096);
	put_file(t, "p", 4096);
	assert_int_equal(testimg_debugfs(t, "fallocate u 4 11\n"
					    "fallocate p 4 11\n"), 0);
	get_file_blocks(t->img, "u", &fb);
	get_file_blocks(t->img, "p", &fp);
	assert_int_equal(fb.nmapped, 9);
	set_secrm(t, "u", fb.flags);

	/* Fresh blocks read as zeros: nothing to do. */
	ctx = scan(t->img);
	check_plan(ctx, 0, 0, 0);
	assert_int_equal(ctx->plan.unwritten_count, 0);
	e2sr_ctx_free(ctx);

	dirty_block(t->img, fb.data[5], 1);
	dirty_block(t->img, fb.data[6], 64);
	dirty_block(t->img, fb.data[9], 1);
	dirty_block(t->img, fp.data[7], 1);
	ctx = scan(t->img);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_false(e2sr_plan_empty(ctx));
	assert_int_equal(ctx->plan.unwritten_count, 3);
	assert_int_equal(ctx->plan.unwritten_runs, 2);
	u = &ctx->plan.unwritten[0];
	assert_int_equal(u->ino, fb.ino);
	assert_int_equal(u->lblk, 5);
	assert_int_equal(u->pblk, fb.data[5]);
	assert_int_equal(u->len, 2);
	u = &ctx->plan.unwritten[1];
	assert_int_equal(u->lblk, 9);
	assert_int_equal(u->pblk, fb.data[9]);
	assert_int_equal(u->len, 1);
	assert_int_equal(e2sr_execute_check(ctx), 0);
	e2sr_ctx_free(ctx);

	/* --all-free: every live file's, whole, read or not. */
	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	ctx->opts.sanitize = E2SR_FREE_ALL;
	assert_int_equal(e2sr_open(ctx, t->img, E2SR_OPEN_RDONLY), 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.unwritten_count, 16);
	e2sr_ctx_free(ctx);

	/* The wipe: zeros; the next plan has nothing of them. */
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(e2sr_execute_check(ctx), 0);
	assert_int_equal(e2sr_execute(ctx), 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_UNWRITTEN][0], 3);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	ctx = scan(t->img);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.unwritten_count, 0);
	e2sr_ctx_free(ctx);
	assert_int_equal(testimg_run("e2fsck -fn %s >/dev/null 2>&1", t->img),
			 0);
}

/*
 * A deleted +s file's blocks handed to another file's preallocation:
 * the old bytes sit under that file's unwritten extent.  Planned as its
 * runs, as the +s file's residue, only where they are not zeros; once
 * whichever file owns them (a live +s file's own runs are not planned
 * twice).  After the wipe the owner still reads zeros and nothing is
 * planned again.
 */
static void test_residue_unwritten(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fs_, fp;
	struct e2sr_ctx *ctx;
	const struct e2sr_unwritten *u;
	char cmd[64];
	blk64_t b;
	size_t i, n;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	put_file(t, "s", 8 * 4096 - 1);
	assert_int_equal(testimg_debugfs(t, "write /dev/null p\n"), 0);
	get_file_blocks(t->img, "s", &fs_);
	assert_int_equal(fs_.nmapped, 8);
	set_secrm(t, "s", fs_.flags);
	rm_file(t, "s");
	assert_int_equal(testimg_debugfs(t, "fallocate p 0 15\n"), 0);
	get_file_blocks(t->img, "p", &fp);
	assert_int_equal(fp.nmapped, 16);
	/* The allocator gave p the freed blocks: the case under test. */
	for (i = n = 0; i < 16; i++)
		for (b = 0; b < 8; b++)
			n += fp.data[i] == fs_.data[b];
	assert_int_equal(n, 8);

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	assert_int_equal(ctx->inv.unwritten_count, 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.data_count, 0);
	assert_int_equal(ctx->plan.inode_count, 1);
	assert_int_equal(ctx->plan.unwritten_count, 8);
	for (i = n = 0; i < ctx->plan.unwritten_runs; i++) {
		u = &ctx->plan.unwritten[i];
		assert_int_equal(u->ino, fp.ino);
		assert_int_equal(u->residue_of, fs_.ino);
		for (b = 0; b < u->len; b++) {
			assert_int_equal(fp.data[u->lblk + b], u->pblk + b);
			n++;
		}
	}
	assert_int_equal(n, 8);
	assert_int_equal(e2sr_execute_check(ctx), 0);
	e2sr_ctx_free(ctx);

	/* A block already zeros is not planned. */
	zero_block(t->img, fs_.data[3]);
	ctx = scan(t->img);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.unwritten_count, 7);
	e2sr_ctx_free(ctx);

	/* p flagged too: its own runs, each block once. */
	set_secrm(t, "p", fp.flags);
	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 2);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(ctx->plan.unwritten_count, 7);
	for (i = 0; i < ctx->plan.unwritten_runs; i++)
		assert_int_equal(ctx->plan.unwritten[i].residue_of, fp.ino);
	e2sr_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "set_inode_field p flags 0x%x\n",
		 fp.flags);
	assert_int_equal(testimg_debugfs(t, cmd), 0);

	/* The wipe: zeros under p, p still unwritten there. */
	ctx = open_img(t->img, 0);
	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_int_equal(e2sr_execute_check(ctx), 0);
	assert_int_equal(e2sr_execute(ctx), 0);
	assert_int_equal(ctx->stats.wiped[E2SR_KIND_UNWRITTEN][0], 7);
	assert_int_equal(e2sr_close(ctx), 0);
	e2sr_ctx_free(ctx);
	for (b = 0; b < 8; b++)
		assert_true(block_is_zero(t->img, fs_.data[b]));
	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 0);
	assert_int_equal(e2sr_plan_build(ctx), 0);
	assert_true(e2sr_plan_empty(ctx));
	e2sr_ctx_free(ctx);
	get_file_blocks(t->img, "p", &fp);
	assert_int_equal(fp.nmapped, 16);
	assert_int_equal(testimg_run("debugfs -R 'ex p' %s 2>/dev/null | "
				     "grep -c Uninit | grep -qx 1", t->img),
			 0);
	assert_int_equal(testimg_run("e2fsck -fn %s >/dev/null 2>&1", t->img),
			 0);
}

/* ext3 at 1k blocks: indirect, double indirect and its indirect block. */
static void test_ext3_indirect(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;

	assert_int_equal(testimg_mkfs(t, "-t ext3 -b 1024"), 0);
	put_file(t, "f", 300 * 1024);
	get_file_blocks(t->img, "f", &fb);
	assert_int_equal(fb.flags & EXT4_EXTENTS_FL, 0);
	assert_int_equal(fb.ndata, 300);
	assert_int_equal(fb.nmeta, 3);	/* IND, DIND, IND under DIND */
	set_secrm(t, "f", fb.flags);
	rm_file(t, "f");

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	assert_int_equal(f->state, E2SR_STATE_DELETED);
	check_map(f, &fb, 1);
	assert_int_equal(count_kind(f, E2SR_EXT_IND), 3);
	assert_int_equal(count_kind(f, E2SR_EXT_TREE), 0);
	check_plan(ctx, 300, 3, 1);
	e2sr_ctx_free(ctx);
}

/* A live flagged file is listed, but none of its blocks is free. */
static void test_live(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	put_file(t, "f", 5 * 4096);
	get_file_blocks(t->img, "f", &fb);
	set_secrm(t, "f", fb.flags);

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	assert_int_equal(f->state, E2SR_STATE_LIVE);
	assert_int_equal(f->links, 1);
	assert_int_equal(f->dtime, 0);
	check_map(f, &fb, 0);
	check_plan(ctx, 0, 0, 0);
	e2sr_ctx_free(ctx);
}

/* Files without the flag, live or removed, are not listed. */
static void test_unflagged(void **state)
{
	struct testimg *t = *state;
	struct e2sr_ctx *ctx;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	put_file(t, "a", 3 * 4096);
	put_file(t, "b", 4 * 4096);
	rm_file(t, "b");

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 0);
	check_plan(ctx, 0, 0, 0);
	e2sr_ctx_free(ctx);
}

/* inline_data: the contents live in the record, there is no block. */
static void test_inline(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -b 4096 -O inline_data"),
			 0);
	put_file(t, "f", 40);
	get_file_blocks(t->img, "f", &fb);
	assert_int_equal(fb.flags & EXT4_INLINE_DATA_FL, EXT4_INLINE_DATA_FL);
	set_secrm(t, "f", fb.flags);

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->state, E2SR_STATE_LIVE);
	assert_int_equal(f->map_status, E2SR_MAP_INLINE);
	assert_int_equal(f->map_count, 0);
	e2sr_ctx_free(ctx);

	rm_file(t, "f");
	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	assert_int_equal(f->state, E2SR_STATE_DELETED);
	assert_int_equal(f->map_status, E2SR_MAP_INLINE);
	assert_int_equal(f->map_count, 0);
	assert_int_equal(f->size, 40);
	check_plan(ctx, 0, 0, 1);
	e2sr_ctx_free(ctx);
}

/* A fast symlink keeps its target in i_block, which is not a map. */
static void test_fast_symlink(void **state)
{
	struct testimg *t = *state;
	struct file_blocks fb;
	struct e2sr_ctx *ctx;
	struct e2sr_file *f;

	assert_int_equal(testimg_mkfs(t, NULL), 0);
	assert_int_equal(testimg_debugfs(t, "symlink l /a/b/c\n"), 0);
	get_file_blocks(t->img, "l", &fb);
	set_secrm(t, "l", fb.flags);
	rm_file(t, "l");

	ctx = scan(t->img);
	assert_int_equal(ctx->inv.count, 1);
	f = &ctx->inv.files[0];
	assert_int_equal(f->ino, fb.ino);
	assert_true(LINUX_S_ISLNK(f->mode));
	assert_int_equal(f->state, E2SR_STATE_DELETED);
	assert_int_equal(f->map_status, E2SR_MAP_SYMLINK);
	assert_int_equal(f->map_count, 0);
	check_plan(ctx, 0, 0, 1);
	e2sr_ctx_free(ctx);
}

/* Write @buf to block @blk of @img, which must be free. */
static void put_block(const char *img, blk64_t blk, const void *buf)
{
	ext2_filsys fs;

	assert_int_equal(ext2fs_open(img, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0,
				     0, unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_read_block_bitmap(fs), 0);
	assert_false(ext2fs_test_block_bitmap2(fs->block_map, blk));
	assert_int_equal(io_channel_write_blk64(fs->io, blk, 1, buf), 0);
	assert_int_equal(ext2fs_close_free(&fs), 0);
}

/*
 * A deleted record whose depth-2 tree sends all 4 x 340 paths through
 * one index block to one leaf: the leaf is listed (and read) once and the
 * map is damaged, where before the fix the walk listed the leaf and its
 * four extents once per path until the fs-sized limit stopped it.
 */
static void test_ext4_shared_leaf(void **state)
{
	struct testimg *t = *state;
	const blk64_t leaf = 2040, index = 2030, data = 1900;
	unsigned char buf[4096], ibuf[256];
	struct ext2_inode_large *inode = (struct ext2_inode_large *)ibuf;
	struct ext3_extent_header *eh = (struct ext3_extent_header *)buf;
	struct ext3_extent *ex = (struct ext3_extent *)(eh + 1);
	struct ext3_extent_idx *ix = (struct ext3_extent_idx *)(eh + 1);
	struct e2sr_ctx *ctx;
	struct e2sr_file file;
	int i;

	assert_int_equal(testimg_mkfs(t, "-t ext4 -O ^metadata_csum -b 4096"),
			 0);
	/* The leaf: four one-block extents that do not merge. */
	memset(buf, 0, sizeof(buf));
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16(4);
	eh->eh_max = ext2fs_cpu_to_le16(340);
	for (i = 0; i < 4; i++) {
		ex[i].ee_block = ext2fs_cpu_to_le32(i);
		ex[i].ee_len = ext2fs_cpu_to_le16(1);
		ex[i].ee_start = ext2fs_cpu_to_le32(data + 2 * i);
	}
	put_block(t->img, leaf, buf);
	/* The index block: 340 entries, all naming the leaf. */
	memset(buf, 0, sizeof(buf));
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16(340);
	eh->eh_max = ext2fs_cpu_to_le16(340);
	eh->eh_depth = ext2fs_cpu_to_le16(1);
	for (i = 0; i < 340; i++) {
		ix[i].ei_block = ext2fs_cpu_to_le32(i * 4);
		ix[i].ei_leaf = ext2fs_cpu_to_le32(leaf);
	}
	put_block(t->img, index, buf);

	/* The record: depth 2, four root entries naming the index block. */
	memset(ibuf, 0, sizeof(ibuf));
	inode->i_mode = LINUX_S_IFREG | 0644;
	inode->i_flags = EXT4_EXTENTS_FL | EXT2_SECRM_FL;
	inode->i_blocks = 0xffffffff;	/* claims more than the fs has */
	inode->i_size = 0x7fffffff;
	eh = (struct ext3_extent_header *)inode->i_block;
	ix = (struct ext3_extent_idx *)(eh + 1);
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16(4);
	eh->eh_max = ext2fs_cpu_to_le16(4);
	eh->eh_depth = ext2fs_cpu_to_le16(2);
	for (i = 0; i < 4; i++) {
		ix[i].ei_block = ext2fs_cpu_to_le32(i * 1360);
		ix[i].ei_leaf = ext2fs_cpu_to_le32(index);
	}

	ctx = open_img(t->img, E2SR_OPEN_RDONLY);
	memset(&file, 0, sizeof(file));
	file.ino = 20;
	file.state = E2SR_STATE_DELETED;
	assert_int_equal(e2sr_file_map(ctx, &file, inode), 0);
	assert_true(file.map_status & E2SR_MAP_DAMAGED);
	assert_int_equal(count_kind(&file, E2SR_EXT_TREE), 2);
	assert_int_equal(count_kind(&file, E2SR_EXT_DATA), 4);
	assert_true(file.map_count <= 6);
	e2sr_file_free(&file);
	e2sr_ctx_free(ctx);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, testimg_fixture_setup, \
						testimg_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ext4_deleted),
		T(test_ext4_tree_block),
		T(test_ext4_shared_leaf),
		T(test_ext4_unwritten),
		T(test_live_unwritten),
		T(test_residue_unwritten),
		T(test_ext3_indirect),
		T(test_live),
		T(test_unflagged),
		T(test_inline),
		T(test_fast_symlink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
