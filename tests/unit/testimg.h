/*
 * testimg.h --- test images for the unit tests.
 *
 * A test image lives alone in a temporary directory: made by mke2fs,
 * shaped by a debugfs script, hashed to prove that a refusal wrote
 * nothing, and removed with its directory at the end.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef TESTIMG_H
#define TESTIMG_H

#include <limits.h>
#include <stddef.h>
#include <ext2fs/ext2fs.h>

/* mke2fs options used when the caller gives none. */
#define TESTIMG_DEFAULT_OPTS	"-t ext4 -b 4096"

struct testimg {
	char	dir[PATH_MAX];		/* from mkdtemp */
	char	img[PATH_MAX];		/* dir/fs.img */
};

int testimg_setup(struct testimg *t);
int testimg_mkfs(struct testimg *t, const char *opts);
int testimg_debugfs(struct testimg *t, const char *script);
int testimg_path(struct testimg *t, const char *name, char *buf,
		 size_t len);
int testimg_make_file(struct testimg *t, const char *name, size_t size,
		      unsigned char seed);
int testimg_sha256(const char *path, char out[65]);
void testimg_mask_mark(unsigned char *img, size_t len);
int testimg_run(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void testimg_cleanup(struct testimg *t);

/* cmocka fixtures and an open that must succeed. */
struct e2sr_ctx;
int testimg_fixture_setup(void **state);
int testimg_fixture_teardown(void **state);
struct e2sr_ctx *open_img(const char *img, int flags);
struct e2sr_ctx *open_img_live(const char *img, int flags);

/* Little-endian stores, as the on-disk formats want them. */
void testimg_put_le16(unsigned char *p, unsigned int v);
void testimg_put_le32(unsigned char *p, __u32 v);

/* The tags "debugfs logdump -a" lists: fs block, journal block, flags. */
size_t testimg_logdump_tags(struct testimg *t, blk64_t *fsblk, blk64_t *jblk,
			    unsigned int *flags, size_t max);

#endif /* TESTIMG_H */
