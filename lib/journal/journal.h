/*
 * journal.h --- the face of lib/journal/: what the layers above may use
 * of the journal, the headers of its parts gathered in one.  The on-disk
 * format (jbd2.h), the journal's device, reads, recovery and view
 * (journal_io.h), the physical walk (journal_walk.h), the history index
 * (history.h), the fast-commit area (fast_commit.h) and its replay
 * (fc_replay.h).  A file of another folder, and e2secrm.h, include this
 * one; the files of lib/journal/ include the part they use.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_JOURNAL_H
#define E2SR_JOURNAL_H

#include "jbd2.h"
#include "journal_io.h"
#include "journal_walk.h"
#include "history.h"
#include "fast_commit.h"
#include "fc_replay.h"
#include "ring_facts.h"
#include "ring_fresh.h"


#endif /* E2SR_JOURNAL_H */
