/*
 * fault_shim.c --- faults at the system call, below every cache, for
 * tests only (LD_PRELOAD).
 *
 * Owns an LD_PRELOAD library that watches the descriptors a program
 * opens on one device (E2SECRM_FAULT_DEV: an image file or a block
 * device, matched by fstat after the real open, so that symbolic links
 * and relative paths are the same device) and counts, 1-based, every
 * write system call and every read system call made on them.  Opens are
 * open, open64, openat, openat64 and the _FORTIFY_SOURCE entries
 * __open_2, __open64_2, __openat_2, __openat64_2 (libext2fs of Debian
 * calls __open64_2 and __open_2, which reach the system call without
 * passing through open64 or open).  Writes are write, pwrite, pwrite64,
 * pwritev, pwritev64, fallocate, fallocate64 and the ioctls BLKDISCARD,
 * BLKSECDISCARD and BLKZEROOUT; reads are read, pread, pread64, preadv,
 * preadv64, __read_chk, __pread_chk and __pread64_chk.  fsync and
 * fdatasync are not counted, but fail with EIO once the device is dead
 * (eio-from below).  A descriptor copied by dup is not watched.
 *
 * E2SECRM_FAULT chooses one fault:
 *   cut:K         the K-th write never happens: _exit(99), a power cut
 *   eio-once:K    the K-th write fails with EIO, later ones succeed
 *   eio-from:K    every write from the K-th on fails with EIO
 *   eio-twice:K   the K-th and the (K+1)-th writes fail with EIO, later
 *                 ones succeed: a write and unix_io's retry of it both
 *                 fail (a transient error that outlasts the retry)
 *   short:K       the K-th write writes half its bytes (rounded down to
 *                 512) and returns that count (fallocate and ioctls,
 *                 which have no count, are done whole)
 *   rio-once:K    the K-th read fails with EIO, later ones succeed
 *   rio-from:K    every read from the K-th on fails with EIO
 *   sig:K:INT     SIGINT (or TERM: SIGTERM) is raised at the process
 *                 just before the K-th write, which is then done
 * E2SECRM_FAULT_COUNT=FILE: at exit (and before the cut's _exit), write
 * "writes N\nreads M\n" to FILE: the write and read calls made on the
 * device (a cut write is not counted).
 *
 * Single-threaded programs only; nothing here allocates.  Linked into no
 * program: tests/scripts/t_fault.sh preloads it into e2secrm.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fs.h>

enum fault_kind {
	FAULT_NONE,
	FAULT_CUT,
	FAULT_EIO_ONCE,
	FAULT_EIO_FROM,
	FAULT_EIO_TWICE,
	FAULT_SHORT,
	FAULT_RIO_ONCE,
	FAULT_RIO_FROM,
	FAULT_SIG,
};

/* What is watched: one bit per descriptor below FD_MAX. */
#define FD_MAX		4096
static unsigned char dev_fds[FD_MAX / 8];

static enum fault_kind kind;
static unsigned long fault_at;
static int fault_sig;
static unsigned long writes, reads;
static int dead;		/* eio-from reached: the device fails writes */
static const char *dev_path;
static const char *count_path;

#define REAL(name)	real_##name
#define DECLARE_REAL(ret, name, ...) \
	static ret (*real_##name)(__VA_ARGS__)

DECLARE_REAL(int, open, const char *, int, ...);
DECLARE_REAL(int, open64, const char *, int, ...);
DECLARE_REAL(int, openat, int, const char *, int, ...);
DECLARE_REAL(int, openat64, int, const char *, int, ...);
DECLARE_REAL(int, __open_2, const char *, int);
DECLARE_REAL(int, __open64_2, const char *, int);
DECLARE_REAL(int, __openat_2, int, const char *, int);
DECLARE_REAL(int, __openat64_2, int, const char *, int);
DECLARE_REAL(int, close, int);
DECLARE_REAL(ssize_t, read, int, void *, size_t);
DECLARE_REAL(ssize_t, pread, int, void *, size_t, off_t);
DECLARE_REAL(ssize_t, pread64, int, void *, size_t, off64_t);
DECLARE_REAL(ssize_t, preadv, int, const struct iovec *, int, off_t);
DECLARE_REAL(ssize_t, preadv64, int, const struct iovec *, int, off64_t);
DECLARE_REAL(ssize_t, __read_chk, int, void *, size_t, size_t);
DECLARE_REAL(ssize_t, __pread_chk, int, void *, size_t, off_t, size_t);
DECLARE_REAL(ssize_t, __pread64_chk, int, void *, size_t, off64_t, size_t);
DECLARE_REAL(ssize_t, write, int, const void *, size_t);
DECLARE_REAL(ssize_t, pwrite, int, const void *, size_t, off_t);
DECLARE_REAL(ssize_t, pwrite64, int, const void *, size_t, off64_t);
DECLARE_REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t);
DECLARE_REAL(ssize_t, pwritev64, int, const struct iovec *, int, off64_t);
DECLARE_REAL(int, fsync, int);
DECLARE_REAL(int, fdatasync, int);
DECLARE_REAL(int, fallocate, int, int, off_t, off_t);
DECLARE_REAL(int, fallocate64, int, int, off64_t, off64_t);
DECLARE_REAL(int, ioctl, int, unsigned long, ...);

/* The next definition of a symbol, once; abort if there is none. */
static void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		static const char msg[] = "fault_shim: a symbol is missing\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
	return p;
}

#define RESOLVE(name) do {						\
	if (!real_##name)						\
		*(void **)&real_##name = next_sym(#name);		\
} while (0)

static int watched(int fd)
{
	return fd >= 0 && fd < FD_MAX && (dev_fds[fd / 8] & (1u << (fd % 8)));
}

static void set_watched(int fd, int on)
{
	if (fd < 0 || fd >= FD_MAX)
		return;
	if (on)
		dev_fds[fd / 8] |= 1u << (fd % 8);
	else
		dev_fds[fd / 8] &= ~(1u << (fd % 8));
}

/* After a real open: is FD the device?  errno is left as it was. */
static void note_open(int fd)
{
	struct stat a, b;
	int saved = errno;

	if (fd < 0)
		return;
	set_watched(fd, 0);
	if (dev_path && !fstat(fd, &a) && !stat(dev_path, &b)) {
		if (S_ISBLK(a.st_mode) ? S_ISBLK(b.st_mode) &&
					 a.st_rdev == b.st_rdev :
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			set_watched(fd, 1);
	}
	errno = saved;
}

static void write_count(void)
{
	char buf[64];
	int fd, n;

	if (!count_path)
		return;
	RESOLVE(open);
	RESOLVE(write);
	RESOLVE(close);
	n = snprintf(buf, sizeof(buf), "writes %lu\nreads %lu\n", writes,
		     reads);
	fd = real_open(count_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0644);
	if (fd < 0)
		return;
	if (real_write(fd, buf, (size_t)n) != n)
		unlink(count_path);
	real_close(fd);
}

static void at_exit(void)
{
	int saved = errno;

	write_count();
	errno = saved;
}

static unsigned long parse_number(const char *s, const char **end)
{
	char *e;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || e == s || !v)
		return 0;
	*end = e;
	return v;
}

static void bad_config(const char *spec)
{
	static const char msg[] = "fault_shim: bad E2SECRM_FAULT: ";

	if (write(2, msg, sizeof(msg) - 1) < 0 ||
	    write(2, spec, strlen(spec)) < 0 || write(2, "\n", 1) < 0)
		_exit(97);
	_exit(97);
}

static void parse_fault(const char *spec)
{
	static const struct {
		const char *name;
		enum fault_kind kind;
	} kinds[] = {
		{ "cut:", FAULT_CUT },
		{ "eio-once:", FAULT_EIO_ONCE },
		{ "eio-from:", FAULT_EIO_FROM },
		{ "eio-twice:", FAULT_EIO_TWICE },
		{ "short:", FAULT_SHORT },
		{ "rio-once:", FAULT_RIO_ONCE },
		{ "rio-from:", FAULT_RIO_FROM },
		{ "sig:", FAULT_SIG },
	};
	const char *rest = NULL, *end = NULL;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].name);

		if (!strncmp(spec, kinds[i].name, n)) {
			kind = kinds[i].kind;
			rest = spec + n;
			break;
		}
	}
	if (!rest || !(fault_at = parse_number(rest, &end)))
		bad_config(spec);
	if (kind == FAULT_SIG) {
		if (!strcmp(end, ":INT"))
			fault_sig = SIGINT;
		else if (!strcmp(end, ":TERM"))
			fault_sig = SIGTERM;
		else
			bad_config(spec);
	} else if (*end) {
		bad_config(spec);
	}
}

__attribute__((constructor)) static void fault_init(void)
{
	const char *spec = getenv("E2SECRM_FAULT");

	dev_path = getenv("E2SECRM_FAULT_DEV");
	count_path = getenv("E2SECRM_FAULT_COUNT");
	if (count_path && !*count_path)
		count_path = NULL;
	if (spec && *spec)
		parse_fault(spec);
	if (count_path)
		atexit(at_exit);
}

/*
 * One write call on the device: what the fault makes of it.  0: do it;
 * 1: fail it with EIO; 2: do half of it.  A cut does not return.
 */
static int one_write(void)
{
	unsigned long n = ++writes;

	switch (kind) {
	case FAULT_CUT:
		if (n == fault_at) {
			writes--;	/* it never happened */
			write_count();
			_exit(99);	/* the power is gone */
		}
		break;
	case FAULT_EIO_ONCE:
		if (n == fault_at)
			return 1;
		break;
	case FAULT_EIO_TWICE:
		if (n == fault_at || n == fault_at + 1)
			return 1;
		break;
	case FAULT_EIO_FROM:
		if (n >= fault_at) {
			dead = 1;
			return 1;
		}
		break;
	case FAULT_SHORT:
		if (n == fault_at)
			return 2;
		break;
	case FAULT_SIG:
		if (n == fault_at) {
			int saved = errno;

			kill(getpid(), fault_sig);
			errno = saved;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* One read call on the device: 1 to fail it with EIO. */
static int one_read(void)
{
	unsigned long n = ++reads;

	return (kind == FAULT_RIO_ONCE && n == fault_at) ||
	       (kind == FAULT_RIO_FROM && n >= fault_at);
}

static size_t half(size_t count)
{
	return (count / 2) & ~(size_t)511;
}

/* An iovec list cut to BYTES, in IOV (at most MAX entries). */
static int cut_iov(const struct iovec *in, int cnt, struct iovec *iov,
		   int max, size_t bytes)
{
	int i;

	for (i = 0; i < cnt && i < max && bytes; i++) {
		iov[i] = in[i];
		if (iov[i].iov_len > bytes)
			iov[i].iov_len = bytes;
		bytes -= iov[i].iov_len;
	}
	return i;
}

static size_t iov_total(const struct iovec *iov, int cnt)
{
	size_t t = 0;
	int i;

	for (i = 0; i < cnt; i++)
		t += iov[i].iov_len;
	return t;
}

#define FAIL_EIO()	do { errno = EIO; return -1; } while (0)

/* The opens: mode is read only when the flags say it is there. */
#define OPEN_MODE(flags, ap, last, mode) do {				\
	if ((flags) & (O_CREAT | __O_TMPFILE)) {			\
		va_start(ap, last);					\
		mode = va_arg(ap, mode_t);				\
		va_end(ap);						\
	}								\
} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	OPEN_MODE(flags, ap, flags, mode);
	RESOLVE(open);
	fd = real_open(path, flags, mode);
	note_open(fd);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	OPEN_MODE(flags, ap, flags, mode);
	RESOLVE(open64);
	fd = real_open64(path, flags, mode);
	note_open(fd);
	return fd;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	OPEN_MODE(flags, ap, flags, mode);
	RESOLVE(openat);
	fd = real_openat(dirfd, path, flags, mode);
	note_open(fd);
	return fd;
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	OPEN_MODE(flags, ap, flags, mode);
	RESOLVE(openat64);
	fd = real_openat64(dirfd, path, flags, mode);
	note_open(fd);
	return fd;
}

/*
 * What _FORTIFY_SOURCE makes of open, openat and read: libext2fs of
 * Debian calls __open64_2 and __open_2, which reach the system call
 * without passing through open64 or open.
 */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t count, off_t off,
		    size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t off,
		      size_t buflen);

int __open_2(const char *path, int flags)
{
	int fd;

	RESOLVE(__open_2);
	fd = real___open_2(path, flags);
	note_open(fd);
	return fd;
}

int __open64_2(const char *path, int flags)
{
	int fd;

	RESOLVE(__open64_2);
	fd = real___open64_2(path, flags);
	note_open(fd);
	return fd;
}

int __openat_2(int dirfd, const char *path, int flags)
{
	int fd;

	RESOLVE(__openat_2);
	fd = real___openat_2(dirfd, path, flags);
	note_open(fd);
	return fd;
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	int fd;

	RESOLVE(__openat64_2);
	fd = real___openat64_2(dirfd, path, flags);
	note_open(fd);
	return fd;
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	RESOLVE(__read_chk);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real___read_chk(fd, buf, count, buflen);
}

ssize_t __pread_chk(int fd, void *buf, size_t count, off_t off,
		    size_t buflen)
{
	RESOLVE(__pread_chk);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real___pread_chk(fd, buf, count, off, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t off,
		      size_t buflen)
{
	RESOLVE(__pread64_chk);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real___pread64_chk(fd, buf, count, off, buflen);
}

int close(int fd)
{
	RESOLVE(close);
	set_watched(fd, 0);
	return real_close(fd);
}

ssize_t read(int fd, void *buf, size_t count)
{
	RESOLVE(read);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real_read(fd, buf, count);
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
	RESOLVE(pread);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real_pread(fd, buf, count, off);
}

ssize_t pread64(int fd, void *buf, size_t count, off64_t off)
{
	RESOLVE(pread64);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real_pread64(fd, buf, count, off);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	RESOLVE(preadv);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real_preadv(fd, iov, cnt, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	RESOLVE(preadv64);
	if (watched(fd) && one_read())
		FAIL_EIO();
	return real_preadv64(fd, iov, cnt, off);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	RESOLVE(write);
	if (watched(fd)) {
		switch (one_write()) {
		case 1:
			FAIL_EIO();
		case 2:
			count = half(count);
			break;
		}
	}
	return real_write(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t off)
{
	RESOLVE(pwrite);
	if (watched(fd)) {
		switch (one_write()) {
		case 1:
			FAIL_EIO();
		case 2:
			count = half(count);
			break;
		}
	}
	return real_pwrite(fd, buf, count, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t off)
{
	RESOLVE(pwrite64);
	if (watched(fd)) {
		switch (one_write()) {
		case 1:
			FAIL_EIO();
		case 2:
			count = half(count);
			break;
		}
	}
	return real_pwrite64(fd, buf, count, off);
}

#define IOV_CUT_MAX	64

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	struct iovec part[IOV_CUT_MAX];

	RESOLVE(pwritev);
	if (watched(fd)) {
		switch (one_write()) {
		case 1:
			FAIL_EIO();
		case 2:
			cnt = cut_iov(iov, cnt, part, IOV_CUT_MAX,
				      half(iov_total(iov, cnt)));
			iov = part;
			break;
		}
	}
	return real_pwritev(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	struct iovec part[IOV_CUT_MAX];

	RESOLVE(pwritev64);
	if (watched(fd)) {
		switch (one_write()) {
		case 1:
			FAIL_EIO();
		case 2:
			cnt = cut_iov(iov, cnt, part, IOV_CUT_MAX,
				      half(iov_total(iov, cnt)));
			iov = part;
			break;
		}
	}
	return real_pwritev64(fd, iov, cnt, off);
}

int fsync(int fd)
{
	RESOLVE(fsync);
	if (watched(fd) && dead)
		FAIL_EIO();
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	RESOLVE(fdatasync);
	if (watched(fd) && dead)
		FAIL_EIO();
	return real_fdatasync(fd);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	RESOLVE(fallocate);
	if (watched(fd) && one_write() == 1)
		FAIL_EIO();
	return real_fallocate(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	RESOLVE(fallocate64);
	if (watched(fd) && one_write() == 1)
		FAIL_EIO();
	return real_fallocate64(fd, mode, off, len);
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	RESOLVE(ioctl);
	if (watched(fd) && (request == BLKDISCARD ||
			    request == BLKSECDISCARD ||
			    request == BLKZEROOUT) && one_write() == 1)
		FAIL_EIO();
	return real_ioctl(fd, request, arg);
}
