/*
 * cut_io.h --- a power cut after the k-th write, for tests only.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_CUT_IO_H
#define E2SR_CUT_IO_H

#include <ext2fs/ext2fs.h>

io_manager cut_io_setup(void);
void cut_io_allow_writes(void);

#endif /* E2SR_CUT_IO_H */
