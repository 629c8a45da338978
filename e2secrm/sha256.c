/*
 * sha256.c --- SHA-256 (FIPS 180-4) of a file, for the record of a run
 * on an image file.
 *
 * The ext2fs library exports no SHA-256, and one hash of one file does
 * not justify a crypto library as a new dependency.  The test compares
 * the result with sha256sum(1).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static const uint32_t k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

struct sha256 {
	uint32_t	h[8];
	uint64_t	len;		/* bytes hashed so far */
	unsigned char	buf[64];
	size_t		fill;
};

#define ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
				    (w[i - 15] >> 3)) + w[i - 7] +
		       (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
			(w[i - 2] >> 10));
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		     ((e & f) ^ (~e & g)) + k256[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->fill = 0;
}

static void sha256_update(struct sha256 *s, const unsigned char *p,
			  size_t n)
{
	s->len += n;
	if (s->fill) {
		size_t k = 64 - s->fill < n ? 64 - s->fill : n;

		memcpy(s->buf + s->fill, p, k);
		s->fill += k;
		p += k;
		n -= k;
		if (s->fill < 64)
			return;
		sha256_block(s, s->buf);
		s->fill = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		sha256_block(s, p);
	memcpy(s->buf, p, n);
	s->fill = n;
}

static void sha256_final(struct sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->len * 8;
	int i;

	s->buf[s->fill++] = 0x80;
	if (s->fill > 56) {
		memset(s->buf + s->fill, 0, 64 - s->fill);
		sha256_block(s, s->buf);
		s->fill = 0;
	}
	memset(s->buf + s->fill, 0, 56 - s->fill);
	for (i = 0; i < 8; i++)
		s->buf[56 + i] = bits >> (56 - 8 * i);
	sha256_block(s, s->buf);
	for (i = 0; i < 32; i++)
		out[i] = s->h[i / 4] >> (24 - 8 * (i % 4));
}

/*
 * The hash of the file at @path as 64 hex digits in @hex (65 bytes);
 * 0, or -1 with errno.
 */
int sha256_file(const char *path, char *hex)
{
	enum { CHUNK = 1 << 20 };
	struct sha256 s;
	unsigned char *buf, out[32];
	ssize_t n;
	int fd, i, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ext2fs_get_mem(CHUNK, &buf)) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	sha256_init(&s);
	while ((n = read(fd, buf, CHUNK)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			ext2fs_free_mem(&buf);
			close(fd);
			errno = saved;
			return -1;
		}
		sha256_update(&s, buf, n);
	}
	ext2fs_free_mem(&buf);
	close(fd);
	sha256_final(&s, out);
	for (i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", out[i]);
	return 0;
}
