/*
 * counts.c --- the counts every report of a run gives: inodes by state,
 * what the plan holds and what was done, bytes, and why a map is lost.
 *
 * Owns counting from the context alone; the human report (report.c,
 * report_plan.c), the JSON report (json.c), the record (record*.c), the
 * metrics (metrics.c) and preen's summary (preen.c) each print them.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "cmd.h"

void count_inodes(const struct e2sr_ctx *ctx, struct run_inodes *n)
{
	size_t i;

	n->total = ctx->inv.count;
	n->live = n->deleted = n->historic = 0;
	for (i = 0; i < ctx->inv.count; i++) {
		enum e2sr_state s = ctx->inv.files[i].state;

		if (s == E2SR_STATE_DELETED)
			n->deleted++;
		else if (s == E2SR_STATE_HISTORIC)
			n->historic++;
		else
			n->live++;
	}
}

/* What the plan holds; all free blocks only when they are to be wiped. */
void count_found(const struct e2sr_ctx *ctx, struct run_counts *c)
{
	e2sr_kind_counts(ctx, 0, c->n);
}

void count_wiped(const struct e2sr_ctx *ctx, struct run_counts *c)
{
	e2sr_kind_counts(ctx, 1, c->n);
}

/* Bytes in whole blocks: names and records are inside other blocks. */
uint64_t count_bytes(const struct run_counts *c, unsigned int blocksize)
{
	uint64_t n = 0;
	int k, i;

	for (k = 0; k < E2SR_KIND_COUNT; k++)
		for (i = 0; i < 2; i++)
			if (e2sr_kinds[k]->count[i].unit &&
			    !strcmp(e2sr_kinds[k]->count[i].unit, "blocks"))
				n += c->n[k][i];
	return n * blocksize;
}

/*
 * A deleted or journal-only secure-delete file whose map is gone, or
 * one in use whose windows no bitmap copy accounts for.
 */
int file_map_lost(const struct e2sr_file *f)
{
	if (f->state == E2SR_STATE_LIVE)
		return !!(f->map_status & E2SR_MAP_UNPROVEN);
	return (f->state == E2SR_STATE_DELETED ||
		f->state == E2SR_STATE_HISTORIC) &&
	       (f->map_status & E2SR_MAP_LOST);
}

/*
 * Why a map is lost, as the JSON report and the record name it: gone
 * (no map anywhere), incomplete (fast commits that named part of it are
 * gone), or damaged (part of it could not be read, or is in use again).
 */
const char *file_loss_key(const struct e2sr_file *f)
{
	if (f->state == E2SR_STATE_LIVE)
		return "map_incomplete";	/* E2SR_MAP_UNPROVEN */
	if (f->map_status & E2SR_MAP_EMPTY)
		return "map_gone";
	if ((f->map_status & E2SR_MAP_DAMAGED) &&
	    (f->map_error == E2SR_ERR_MAP_UNPROVEN ||
	     f->map_error == E2SR_ERR_MAP_SHORT))
		return "map_incomplete";
	return "map_damaged";
}
