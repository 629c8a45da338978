/*
 * unaligned.h --- reading and writing on-disk integers at any address.
 *
 * ext4 keeps its fields little-endian, jbd2 big-endian; both are read
 * here from byte buffers that need not be aligned, as the kernel's
 * get_unaligned_le32() and get_unaligned_be32() do.  Structures that
 * libext2fs swaps itself are not this file's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_UNALIGNED_H
#define E2SR_UNALIGNED_H

#include <ext2fs/ext2fs.h>

static inline __u16 e2sr_get_le16(const unsigned char *p)
{
	return (__u16)(p[0] | (p[1] << 8));
}

static inline __u32 e2sr_get_le32(const unsigned char *p)
{
	return (__u32)p[0] | ((__u32)p[1] << 8) | ((__u32)p[2] << 16) |
	       ((__u32)p[3] << 24);
}

static inline __u16 e2sr_get_be16(const unsigned char *p)
{
	return (__u16)((p[0] << 8) | p[1]);
}

static inline __u32 e2sr_get_be32(const unsigned char *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) |
	       ((__u32)p[2] << 8) | p[3];
}

static inline __u64 e2sr_get_be64(const unsigned char *p)
{
	return ((__u64)e2sr_get_be32(p) << 32) | e2sr_get_be32(p + 4);
}

static inline void e2sr_put_be32(unsigned char *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

#endif /* E2SR_UNALIGNED_H */
