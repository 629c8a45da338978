/*
 * find.h --- what the files of lib/find/ share among themselves.
 *
 * The layers above call the find stage through e2secrmP.h; what only the
 * files of lib/find/ use is declared here: so far the note sanity.c
 * keeps of a questioned record, which inventory.c makes as it reads the
 * inode tables.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_FIND_H
#define E2SR_FIND_H

#include "e2secrmP.h"

/* sanity.c */
errcode_t e2sr_question_note(struct e2sr_ctx *ctx, ext2_ino_t ino,
			     enum e2sr_question why);

#endif /* E2SR_FIND_H */
