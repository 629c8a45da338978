/*
 * preen.c --- what -p says: one line a device, and on stderr only what
 * needs a person.
 *
 * Owns the output of a run under -p, as e2fsck -p has it for cron and
 * boot scripts: on stdout "DEV: clean" or "DEV: N residues wiped, M
 * bytes"; on stderr, one line each for residue left and why (exit bit
 * 4) with what answers it, a cancellation, and writes the device failed
 * and then took.  Errors and refusals are com_err's, as in every mode.
 * The reasons are read off the plan; the words are here.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* One more clause of a reason, "; " between them. */
static void clause(char *buf, size_t len, size_t *at, int *n,
		   const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*at >= len)
		return;
	if ((*n)++) {
		w = snprintf(buf + *at, len - *at, "; ");
		*at += w > 0 ? (size_t)w : 0;
		if (*at >= len)
			return;
	}
	va_start(ap, fmt);
	w = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	*at += w > 0 ? (size_t)w : 0;
}

/* Why residue is left, as a list of clauses; 0 when nothing is. */
static int left_why(const struct e2sr_ctx *ctx, char *buf, size_t len)
{
	const struct e2sr_plan *p = &ctx->plan;
	size_t at = 0;
	int n = 0;

	buf[0] = 0;
	if (p->unrecoverable)
		clause(buf, len, &at, &n, "%zu secure-delete file%s lost a "
		       "block map (-y --all-free-if-lost wipes all free "
		       "space for them)", p->unrecoverable,
		       p->unrecoverable == 1 ? "" : "s");
	if (p->untraced && !p->answered && !p->unrecoverable)
		clause(buf, len, &at, &n, "deletions the journal no longer "
		       "shows cannot be traced (-y --all-free-if-lost "
		       "answers them)");
	if (p->left)
		clause(buf, len, &at, &n, "%zu inode%s left for e2fsck (run "
		       "e2fsck -f, then e2secrm again)", p->left,
		       p->left == 1 ? "" : "s");
	if (p->name_dirs_damaged)
		clause(buf, len, &at, &n, "%zu damaged director%s not read "
		       "for names (run e2fsck -f)", p->name_dirs_damaged,
		       p->name_dirs_damaged == 1 ? "y" : "ies");
	return n;
}

void preen_summary(const struct e2sr_ctx *ctx, const struct cmd_opts *o,
		   int status)
{
	unsigned long retried = e2sr_io_watch_retried();
	struct run_counts c;
	uint64_t items = 0;
	char why[512];
	int k;

	if (retried)
		fprintf(stderr, "%s: %lu write%s failed and succeeded when "
			"tried again: check the disk\n", o->device, retried,
			retried == 1 ? "" : "s");
	if (status & E2SR_EXIT_ERROR)
		return;		/* com_err said it, with the next step */
	if (status & E2SR_EXIT_CANCELLED)
		fprintf(stderr, "%s: cancelled; run e2secrm -p again to "
			"finish\n", o->device);
	count_wiped(ctx, &c);
	for (k = 0; k < E2SR_KIND_COUNT; k++)
		items += c.n[k][0];
	if (items)
		printf("%s: %" PRIu64 " residue%s wiped, %" PRIu64 " bytes\n",
		       o->device, items, items == 1 ? "" : "s",
		       count_bytes(&c, EXT2_BLOCK_SIZE(&ctx->sb_seen)));
	else if (!(status & (E2SR_EXIT_LEFT | E2SR_EXIT_CANCELLED)))
		printf("%s: clean\n", o->device);
	if ((status & E2SR_EXIT_LEFT) &&
	    !(status & E2SR_EXIT_CANCELLED) && left_why(ctx, why, sizeof(why)))
		fprintf(stderr, "%s: residue left: %s\n", o->device, why);
}
