/*
 * ring_fresh.h --- which log blocks the kernel wrote since the ring's
 * facts were kept (ring_fresh.c).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_RING_FRESH_H
#define E2SR_RING_FRESH_H

#include "journal_io.h"
#include "ring_facts.h"

/* Why the kept facts are not used: the reasons, as data. */
enum e2sr_rf_why {
	E2SR_RF_OK = 0,
	E2SR_RF_NONE_KEPT,	/* no facts kept, or not this state's */
	E2SR_RF_NOT_INCREMENTAL, /* the run scans everything */
	E2SR_RF_EXTERNAL,	/* the journal is on another device */
	E2SR_RF_ORPHANS,	/* orphans are released through it */
	E2SR_RF_WROTE,		/* this run wrote the log, unnoted */
	E2SR_RF_OTHER,		/* another journal's */
	E2SR_RF_RECOVERY,	/* the journal needed recovery */
	E2SR_RF_NO_HEAD,	/* the kept ring's newest had no commit */
	E2SR_RF_CHAIN,		/* what was written since does not parse */
	E2SR_RF_WRAPPED,	/* the kernel wrote the whole ring since */
	E2SR_RF_READ,		/* a read failed, or no memory */
	E2SR_RF_WHY_COUNT
};

enum e2sr_rf_why e2sr_rf_fresh(struct e2sr_journal *j,
			       const struct e2sr_ring_facts *f,
			       int fast_commit, __u8 **fresh, __u32 *count,
			       int *fc_quiet);

#endif /* E2SR_RING_FRESH_H */
