/*
 * crc32c.h --- crc32c with the CPU's instruction, and the checksums built
 * on it that e2secrm computes many times per run (lib/util/crc32c.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_CRC32C_H
#define E2SR_CRC32C_H

#include <ext2fs/ext2fs.h>

__u32 e2sr_crc32c_le(__u32 crc, const void *buf, size_t len);
int e2sr_crc32c_hw(void);
int e2sr_inode_csum_ok(ext2_filsys fs, ext2_ino_t ino, const void *raw);

#endif /* E2SR_CRC32C_H */
