/*
 * plan.h --- the face of lib/plan/: what the stages and the kinds may
 * use of the journal plan (making it, the extent of one of its entries,
 * the names the journal holds).  What only the files of the journal
 * plan share is in plan_journal_int.h.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SR_PLAN_H
#define E2SR_PLAN_H

#include "e2secrm.h"

/* plan_journal.c */
errcode_t e2sr_plan_journal(struct e2sr_ctx *ctx);

/* plan_journal_entry.c */
size_t e2sr_jplan_block_end(const struct e2sr_plan *plan, size_t i);

/* plan_journal_names.c */
errcode_t e2sr_journal_names(struct e2sr_ctx *ctx, __u32 **hashes,
			     size_t *count, unsigned char **blob,
			     size_t *blob_len);
int e2sr_name_in(const __u32 *hashes, size_t count, const char *name,
		 unsigned int len);
errcode_t e2sr_jplan_index_written(struct e2sr_ctx *ctx);

#endif /* E2SR_PLAN_H */
