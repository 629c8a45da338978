/*
 * crc32c.c --- crc32c with the CPU's instruction where it has one.
 *
 * Owns the one crc32c every checksum of e2secrm goes through: journal
 * tags, descriptor and commit blocks, fast-commit tails, the record
 * checksums of journal copies of inode tables.  On a run over a journal
 * of some tens of MiB these were 40% of the instructions with the
 * table-driven crc32c of libext2fs; SSE4.2's crc32 instruction computes
 * the same function (the Castagnoli polynomial, reflected, no inversion
 * inside) eight bytes at a time.  Elsewhere, or on a CPU without it, the
 * library's function answers, so the result never depends on the CPU.
 * Checksums that libext2fs computes itself (inode scans, bitmaps) stay
 * the library's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crc32c.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define E2SR_HAVE_SSE42_CRC 1
#include <nmmintrin.h>

/*
 * Bytes of each of the three streams a long buffer is cut into.  The
 * instruction takes three cycles and can start one a cycle: three
 * independent streams keep it busy, where one waits on itself.
 */
#define STRIPE		1360

/*
 * What running the crc over STRIPE zero bytes does to a state, a linear
 * map, as four tables of 256 (Z(x) = T0[x & 0xff] ^ ... ^ T3[x >> 24]):
 * crc(s, A B) = Z_|B|(crc(s, A)) ^ crc(0, B), so the three streams'
 * crcs combine into the one of the whole.
 */
static __u32 zeros[4][256];
static int zeros_ready;

__attribute__((target("sse4.2")))
static __u32 crc32c_sse42_1(__u32 crc, const unsigned char *p, size_t len)
{
	__u64 c = crc;
	__u64 v;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((__u32)c, *p++);
		len--;
	}
	while (len >= 8) {
		memcpy(&v, p, sizeof(v));
		c = _mm_crc32_u64(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((__u32)c, *p++);
	return (__u32)c;
}

/* The tables, from the images of the 32 one-bit states. */
__attribute__((target("sse4.2")))
static void zeros_init(void)
{
	static const unsigned char zero[STRIPE];
	__u32 basis[32], v;
	unsigned int i, k, b;

	for (i = 0; i < 32; i++)
		basis[i] = crc32c_sse42_1(1U << i, zero, STRIPE);
	for (k = 0; k < 4; k++)
		for (b = 0; b < 256; b++) {
			for (v = 0, i = 0; i < 8; i++)
				if (b & (1U << i))
					v ^= basis[8 * k + i];
			zeros[k][b] = v;
		}
	zeros_ready = 1;
}

static __u32 zeros_shift(__u32 c)
{
	return zeros[0][c & 0xff] ^ zeros[1][(c >> 8) & 0xff] ^
	       zeros[2][(c >> 16) & 0xff] ^ zeros[3][c >> 24];
}

__attribute__((target("sse4.2")))
static __u32 crc32c_sse42(__u32 crc, const unsigned char *p, size_t len)
{
	__u64 c0, c1, c2, v0, v1, v2;
	size_t i;

	if (len < 3 * STRIPE)
		return crc32c_sse42_1(crc, p, len);
	if (!zeros_ready)
		zeros_init();
	while (len >= 3 * STRIPE) {
		c0 = crc;
		c1 = c2 = 0;
		for (i = 0; i < STRIPE; i += 8) {
			memcpy(&v0, p + i, sizeof(v0));
			memcpy(&v1, p + STRIPE + i, sizeof(v1));
			memcpy(&v2, p + 2 * STRIPE + i, sizeof(v2));
			c0 = _mm_crc32_u64(c0, v0);
			c1 = _mm_crc32_u64(c1, v1);
			c2 = _mm_crc32_u64(c2, v2);
		}
		crc = zeros_shift(zeros_shift((__u32)c0) ^ (__u32)c1) ^
		      (__u32)c2;
		p += 3 * STRIPE;
		len -= 3 * STRIPE;
	}
	return crc32c_sse42_1(crc, p, len);
}
#endif

/* -1: not asked yet; then 0 or 1.  One thread: no race worth a lock. */
static int hw = -1;

int e2sr_crc32c_hw(void)
{
	if (hw < 0) {
#ifdef E2SR_HAVE_SSE42_CRC
		__builtin_cpu_init();
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
		hw = 0;
#endif
	}
	return hw;
}

/* As ext2fs_crc32c_le(): the caller seeds (~0 or a checksum seed). */
__u32 e2sr_crc32c_le(__u32 crc, const void *buf, size_t len)
{
#ifdef E2SR_HAVE_SSE42_CRC
	if (e2sr_crc32c_hw())
		return crc32c_sse42(crc, buf, len);
#endif
	return ext2fs_crc32c_le(crc, buf, len);
}

/*
 * Whether @raw, an inode record of inode_size bytes as on disk, carries
 * the metadata_csum checksum of inode @ino: the answer of
 * ext2fs_inode_csum_verify() (lib/ext2fs/csum.c), computed without
 * copying the record: crc32c(seed, le32 ino, le32 generation, the record
 * with i_checksum_lo, and i_checksum_hi when i_extra_isize covers it, as
 * zeros).  16 bits are compared without the high half.  A record of zeros
 * passes, as in the library.
 */
int e2sr_inode_csum_ok(ext2_filsys fs, ext2_ino_t ino, const void *raw)
{
	const struct ext2_inode_large *inode = raw;
	const unsigned char *p = raw;
	size_t size = EXT2_INODE_SIZE(fs->super);
	size_t lo = offsetof(struct ext2_inode_large, i_checksum_lo);
	size_t hi = offsetof(struct ext2_inode_large, i_checksum_hi);
	static const unsigned char zero[2];
	__u32 ino_le = ext2fs_cpu_to_le32(ino);
	__u32 crc, provided;
	int has_hi;
	size_t i;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 1;
	has_hi = size > EXT2_GOOD_OLD_INODE_SIZE &&
		 ext2fs_le16_to_cpu(inode->i_extra_isize) >=
		 EXT4_INODE_CSUM_HI_EXTRA_END;
	provided = ext2fs_le16_to_cpu(inode->i_checksum_lo);
	if (has_hi)
		provided |= (__u32)ext2fs_le16_to_cpu(inode->i_checksum_hi) <<
			    16;

	crc = e2sr_crc32c_le(fs->csum_seed, &ino_le, sizeof(ino_le));
	crc = e2sr_crc32c_le(crc, &inode->i_generation,
			     sizeof(inode->i_generation));
	crc = e2sr_crc32c_le(crc, p, lo);
	crc = e2sr_crc32c_le(crc, zero, 2);
	if (size <= EXT2_GOOD_OLD_INODE_SIZE) {
		crc = e2sr_crc32c_le(crc, p + lo + 2,
				     size - lo - 2);
	} else if (has_hi) {
		crc = e2sr_crc32c_le(crc, p + lo + 2, hi - lo - 2);
		crc = e2sr_crc32c_le(crc, zero, 2);
		crc = e2sr_crc32c_le(crc, p + hi + 2, size - hi - 2);
	} else {
		crc = e2sr_crc32c_le(crc, p + lo + 2, size - lo - 2);
	}
	if (!has_hi)
		crc &= 0xFFFF;
	if (crc == provided)
		return 1;
	for (i = 0; i < sizeof(struct ext2_inode); i++)
		if (p[i])
			return 0;
	return 1;
}
