/*
 * testimg.c --- test images for the unit tests.
 *
 * Owns the temporary directory of one test and everything in it: the
 * image made by mke2fs, the host files and debugfs scripts that shape it,
 * and their removal.  Tools are run through the shell; paths come from
 * mkdtemp and hold no quotes.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "e2secrm.h"

#include "testimg.h"

/* Run a shell command; returns its exit status, or -1. */
int testimg_run(const char *fmt, ...)
{
	char cmd[3 * PATH_MAX];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		return -1;
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int testimg_setup(struct testimg *t)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(t->dir, sizeof(t->dir), "%s/e2sr-unit.XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(t->dir) || !mkdtemp(t->dir))
		return -1;
	return testimg_path(t, "fs.img", t->img, sizeof(t->img));
}

int testimg_path(struct testimg *t, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", t->dir, name);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* A fresh 8M image; opts replaces TESTIMG_DEFAULT_OPTS when given. */
int testimg_mkfs(struct testimg *t, const char *opts)
{
	if (!opts)
		opts = TESTIMG_DEFAULT_OPTS;
	return testimg_run("mke2fs -q -F %s '%s' 8M >'%s/mkfs.log' 2>&1",
			   opts, t->img, t->dir);
}

/* Run a debugfs -w script, one command a line, on the image. */
int testimg_debugfs(struct testimg *t, const char *script)
{
	char path[PATH_MAX];
	FILE *f;
	int err;

	if (testimg_path(t, "debugfs.cmd", path, sizeof(path)))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	err = fputs(script, f) < 0;
	if (fclose(f))
		err = 1;
	if (err)
		return -1;
	return testimg_run("debugfs -w -f '%s' '%s' >'%s/debugfs.log' 2>&1",
			   path, t->img, t->dir);
}

/* A host file of @size bytes, never zero, different for each seed. */
int testimg_make_file(struct testimg *t, const char *name, size_t size,
		      unsigned char seed)
{
	char path[PATH_MAX];
	FILE *f;
	size_t i;
	int err = 0;

	if (testimg_path(t, name, path, sizeof(path)))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (i = 0; i < size && !err; i++)
		err = putc(1 + (i * 7 + seed) % 251, f) == EOF;
	if (fclose(f))
		err = 1;
	return err ? -1 : 0;
}

/*
 * The mark a run that begins to write leaves (lib/open/begin_write.c):
 * the primary superblock's s_wtime, s_wtime_hi, s_kbytes_written and
 * checksum, zeroed in @img, so that two images compare as the run's
 * writes left them (as tests/lib.sh's same() compares them).
 */
void testimg_mask_mark(unsigned char *img, size_t len)
{
	static const struct {
		size_t off, len;
	} f[] = {
		{ 1024 + 48, 4 }, { 1024 + 376, 8 }, { 1024 + 628, 1 },
		{ 1024 + 1020, 4 },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].off + f[i].len <= len)
			memset(img + f[i].off, 0, f[i].len);
}

/*
 * sha256 of a file as hex, the mark of a run that began to write aside
 * (testimg_mask_mark): hashed from a copy with it masked; "absent" for a
 * file that does not exist.
 */
int testimg_sha256(const char *path, char out[65])
{
	char cmd[2 * PATH_MAX + 64], copy[PATH_MAX + 8];
	unsigned char sb[2048];
	struct stat st;
	FILE *p;
	int n, ok, fd;

	if (stat(path, &st)) {
		strcpy(out, "absent");
		return 0;
	}
	n = snprintf(copy, sizeof(copy), "%s.mask", path);
	if (n < 0 || (size_t)n >= sizeof(copy) ||
	    testimg_run("cp --sparse=always '%s' '%s'", path, copy))
		return -1;
	fd = open(copy, O_RDWR);
	ok = fd >= 0 && pread(fd, sb, sizeof(sb), 0) == (ssize_t)sizeof(sb);
	if (ok) {
		testimg_mask_mark(sb, sizeof(sb));
		ok = pwrite(fd, sb, sizeof(sb), 0) == (ssize_t)sizeof(sb);
	}
	if (fd >= 0)
		close(fd);
	n = snprintf(cmd, sizeof(cmd), "sha256sum '%s'", copy);
	if (!ok || n < 0 || (size_t)n >= sizeof(cmd)) {
		unlink(copy);
		return -1;
	}
	p = popen(cmd, "r");
	if (!p) {
		unlink(copy);
		return -1;
	}
	ok = fscanf(p, "%64s", out) == 1;
	if (pclose(p) || !ok || strlen(out) != 64)
		ok = 0;
	unlink(copy);
	return ok ? 0 : -1;
}

void testimg_cleanup(struct testimg *t)
{
	if (t->dir[0])
		testimg_run("rm -rf '%s'", t->dir);
	t->dir[0] = 0;
}

/* cmocka fixture: a fresh image directory for every test. */
int testimg_fixture_setup(void **state)
{
	static struct testimg t;

	memset(&t, 0, sizeof(t));
	if (testimg_setup(&t))
		return -1;
	*state = &t;
	return 0;
}

int testimg_fixture_teardown(void **state)
{
	testimg_cleanup(*state);
	return 0;
}

struct e2sr_ctx *open_img(const char *img, int flags)
{
	struct e2sr_ctx *ctx;

	assert_int_equal(e2sr_ctx_new(&ctx), 0);
	assert_int_equal(e2sr_open(ctx, img, flags), 0);
	/* Tests that open to write go straight to writing. */
	if (!(flags & E2SR_OPEN_RDONLY))
		assert_int_equal(e2sr_begin_write(ctx), 0);
	return ctx;
}

/*
 * Opened and scanned: the writer proves "free" against the live set the
 * scan builds, so a write test needs it.
 */
struct e2sr_ctx *open_img_live(const char *img, int flags)
{
	struct e2sr_ctx *ctx = open_img(img, flags);

	assert_int_equal(e2sr_inventory_scan(ctx), 0);
	return ctx;
}

/* Lines "FS block N logged at journal block M (flags 0xF)" of logdump. */
size_t testimg_logdump_tags(struct testimg *t, blk64_t *fsblk, blk64_t *jblk,
			    unsigned int *flags, size_t max)
{
	char path[PATH_MAX], line[256];
	unsigned long long a, b;
	unsigned int f;
	size_t n = 0;
	FILE *fp;

	assert_int_equal(testimg_path(t, "logdump.txt", path, sizeof(path)),
			 0);
	assert_int_equal(testimg_run("debugfs -R 'logdump -a' '%s' >'%s' 2>&1",
				     t->img, path), 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) && n < max) {
		if (sscanf(line, " FS block %llu logged at journal block %llu"
			   " (flags 0x%x)", &a, &b, &f) != 3)
			continue;
		fsblk[n] = a;
		jblk[n] = b;
		flags[n] = f;
		n++;
	}
	fclose(fp);
	return n;
}

void testimg_put_le16(unsigned char *p, unsigned int v)
{
	p[0] = v;
	p[1] = v >> 8;
}

void testimg_put_le32(unsigned char *p, __u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}
