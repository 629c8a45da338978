/*
 * audit.c --- what --audit says: the scope read, and what in it still
 * holds residue, by kind.
 *
 * Owns the text of an audit's result (lib/stages/execute.c's e2sr_audit() reads
 * the plan's places; the counts are in ctx->stats): per kind, how many
 * places were read and how many are not wiped, with the first few block
 * numbers, then one closing line that says whether the scope is clean
 * and, where the scope cannot see everything, what would.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cmd.h"

static void first_places(const struct e2sr_stats *st, int k)
{
	blk64_t i, shown = st->unwiped[k] < E2SR_SHOW_FIRST ?
			   st->unwiped[k] : E2SR_SHOW_FIRST;

	printf(" (%s ", k == E2SR_KIND_NAMES ? "in directories" :
	       k == E2SR_KIND_RECORDS ? "inodes" :
	       k == E2SR_KIND_JOURNAL ? "journal blocks" : "blocks");
	for (i = 0; i < shown; i++)
		printf("%s%" PRIu64, i ? ", " : "",
		       (uint64_t)st->first_unwiped[k][i]);
	if (st->unwiped[k] > shown)
		printf(" and %" PRIu64 " more", (uint64_t)
		       (st->unwiped[k] - shown));
	printf(")");
}

void report_audit(const struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	const struct e2sr_stats *st = &ctx->stats;
	const struct e2sr_plan *p = &ctx->plan;
	blk64_t bad = e2sr_audit_unwiped(ctx), read = 0;
	int k;

	for (k = 0; k < E2SR_KIND_COUNT; k++)
		read += st->checked[k];
	if (read)
		printf("%s: audit: read %" PRIu64 " places in the scope:\n",
		       o->device, (uint64_t)read);
	else
		printf("%s: audit: the scan found no place in the scope that "
		       "holds residue\n", o->device);
	for (k = 0; k < E2SR_KIND_COUNT; k++) {
		const struct e2sr_kind_count *kc = e2sr_kinds[k]->count;

		if (!st->checked[k])
			continue;
		printf("  %-24s %10" PRIu64 " %-7s read, %" PRIu64
		       " not wiped", kc[0].label, (uint64_t)st->checked[k],
		       kc[0].unit, (uint64_t)st->unwiped[k]);
		if (st->unwiped[k])
			first_places(st, k);
		putchar('\n');
	}
	if (st->audit_random)
		printf("%s: audit: -m random: blocks overwritten with random "
		       "bytes cannot be told from residue; only --verify, "
		       "during the run, checks them (names, records and "
		       "journal copies were read)\n", o->device);
	if (p->unrecoverable || (p->untraced && !p->answered))
		printf("%s: audit: what the journal cannot trace is outside "
		       "this scope: --audit --all-free-if-lost reads all free "
		       "space for it\n", o->device);
	if (bad)
		printf("%s: audit: %" PRIu64 " place%s not wiped\n",
		       o->device, (uint64_t)bad, bad == 1 ? "" : "s");
	else if (st->audit_random)
		printf("%s: audit: every place read holds only zeros; the "
		       "blocks of the scope were not judged\n", o->device);
	else
		printf("%s: audit: every place read holds only zeros\n",
		       o->device);
}
