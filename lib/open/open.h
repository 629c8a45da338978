/*
 * open.h --- the face of lib/open/ for the layers above it: what the
 * context's teardown asks of opening.  The command opens, begins to
 * write and closes through e2secrm.h; what only the files of lib/open/
 * share is in open_int.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_OPEN_H
#define E2SR_OPEN_H

#include "e2secrm.h"

/* orphan.c */
void e2sr_orphans_free(struct e2sr_orphans *o);

#endif /* E2SR_OPEN_H */
