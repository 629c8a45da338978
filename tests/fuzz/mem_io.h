/*
 * mem_io.h --- an io manager over a buffer in memory, for fuzz targets.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_MEM_IO_H
#define E2SR_MEM_IO_H

#include <ext2fs/ext2fs.h>

extern io_manager mem_io_manager;
void mem_io_set(unsigned char *buf, size_t len);
void mem_io_forbid_writes(int on);
int mem_io_written(void);

#endif /* E2SR_MEM_IO_H */
