/*
 * run_kind.c --- whether the run scanned everything or what changed since
 * the last run, in words: the report's line, the JSON's fields, the
 * record's row.
 *
 * Owns the words for each reason a run is a full one (enum
 * e2sr_since_why, decided by lib/find/since.c), as a table.  What the
 * reasons mean is doc/incremental.md's; when they hold is since.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "e2secrm.h"
#include "cmd.h"

/* The reasons, in the order of enum e2sr_since_why; %u: why_arg. */
static const char *const why_text[E2SR_FULL_WHY_COUNT] = {
	[E2SR_SINCE_INCREMENTAL] = "",
	[E2SR_FULL_ASKED] = "asked (--full)",
	[E2SR_FULL_NO_STATE] = "no state from an earlier run",
	[E2SR_FULL_STATE_BAD] = "the state file is damaged or of another "
				"filesystem",
	[E2SR_FULL_STATE_OLD] = "the last run kept no record of the groups "
				"(a run cut, or an older version)",
	[E2SR_FULL_NOT_CLEAN] = "the last run left something behind",
	[E2SR_FULL_INTENT] = "a cut run's lives are pending",
	[E2SR_FULL_AGE] = "the last full scan is older than %u days",
	[E2SR_FULL_MODE] = "the options read the whole filesystem anyway",
	[E2SR_FULL_NO_JOURNAL] = "no journal proves what changed",
	[E2SR_FULL_FEATURE] = "ea_inode: EA inodes are read in full",
	[E2SR_FULL_RESIZED] = "the filesystem was resized",
	[E2SR_FULL_SUPER] = "the superblock changed outside the journal "
			    "(tune2fs?)",
	[E2SR_FULL_CHECKED] = "e2fsck checked the filesystem since the last "
			      "run",
	[E2SR_FULL_COPY] = "the filesystem's counters are behind the last "
			   "run's (another copy?)",
	[E2SR_FULL_OFFLINE] = "the filesystem was written offline since the "
			      "last run",
	[E2SR_FULL_JOURNAL] = "the journal is not the last run's",
	[E2SR_FULL_WRAPPED] = "the journal wrapped since the last run",
	[E2SR_FULL_ORPHANS] = "orphans were released outside the journal",
	[E2SR_FULL_GROUP] = "group %u changed outside the journal",
};

/* Why the run is a full one, in @buf. */
/* Why the journal was read whole in an incremental run (ring_since.c). */
static const char *const ring_why_text[E2SR_RF_WHY_COUNT] = {
	[E2SR_RF_OK] = "",
	[E2SR_RF_NONE_KEPT] = "the last run kept no ring facts",
	[E2SR_RF_NOT_INCREMENTAL] = "a full scan reads it whole",
	[E2SR_RF_EXTERNAL] = "the journal is on another device",
	[E2SR_RF_ORPHANS] = "orphans are released through it",
	[E2SR_RF_WROTE] = "this run wrote it",
	[E2SR_RF_OTHER] = "the kept facts are of another journal",
	[E2SR_RF_RECOVERY] = "the journal needed recovery",
	[E2SR_RF_NO_HEAD] = "the last run saw no commit to go on from",
	[E2SR_RF_CHAIN] = "the blocks the kernel wrote since cannot be told "
			  "from the rest",
	[E2SR_RF_WRAPPED] = "the kernel wrote the whole ring since",
	[E2SR_RF_READ] = "a read failed",
};

static const char *ring_why(const struct e2sr_since *s, char *buf,
			    size_t len)
{
	unsigned int why = s->ring_why;

	if (why == E2SR_RF_NONE_KEPT && s->ring_preset[0]) {
		snprintf(buf, len, "the last run's ring facts are not taken "
			 "(%s)", s->ring_preset);
		return buf;
	}
	return why < E2SR_RF_WHY_COUNT && ring_why_text[why] ?
	       ring_why_text[why] : "?";
}

const char *run_kind_reason(const struct e2sr_ctx *ctx, char *buf,
			    size_t len)
{
	const struct e2sr_since *s = &ctx->since;
	unsigned int why = s->why;

	if (why >= E2SR_FULL_WHY_COUNT)
		why = E2SR_FULL_NO_STATE;
	if (why == E2SR_FULL_AGE && !s->why_arg)
		snprintf(buf, len, "every run is a full one (--full-days or "
			 "E2SECRM_FULL_DAYS is 0)");
	else
		snprintf(buf, len, why_text[why], s->why_arg);
	if (why == E2SR_FULL_STATE_BAD && s->preset_why[0]) {
		size_t n = 0;

		while (buf[n])
			n++;
		snprintf(buf + n, len - n, " (%s)", s->preset_why);
	}
	return buf;
}

static const char *local_time(__u64 t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "an unknown time");
	return buf;
}

/*
 * Of a fast-commit area set aside past the log (journal_dev.c): whether
 * the run read it, or took it for all zero as the last run left it
 * (ring_fresh.c).  -1: no such area.
 */
static int fc_area_read(const struct e2sr_ctx *ctx)
{
	const struct e2sr_journal *j = ctx->journal;

	if (!j || !j->jsb.fc_blocks || j->jsb.start)
		return -1;
	return j->fc_seen;
}

static const char *fc_area_said(const struct e2sr_ctx *ctx)
{
	switch (fc_area_read(ctx)) {
	case 1:
		return "; the fast-commit area read";
	case 0:
		return ctx->journal->fc_quiet ?
		       "; the fast-commit area not read (all zero since "
		       "the last run)" : "; the fast-commit area not read";
	default:
		return "";
	}
}

/*
 * One line: an incremental run always says so (what it did not read is
 * part of what it reports); -v says why a run is a full one.
 */
void run_kind_report(const struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	const struct e2sr_since *s = &ctx->since;
	char why[256], t1[32], t2[32];

	if (!s->decided)
		return;
	if (s->incremental) {
		printf("%s: incremental run since transaction %u (%s), "
		       "last full scan %s: %u of %u groups read (%u inode "
		       "table blocks), %u changed, %u blocks logged since "
		       "(%u reads answered from their logged copies, %u "
		       "records as the last run kept them)\n",
		       o->device,
		       ctx->coverage.prev.tid,
		       local_time(ctx->coverage.prev.run_time, t1,
				  sizeof(t1)),
		       local_time(s->prev.full_time, t2, sizeof(t2)),
		       s->groups_read, s->groups, s->table_blocks,
		       s->groups_changed, s->log_blocks, s->from_log,
		       s->from_kept);
		if (s->ring_used)
			printf("%s: journal: %u of %u log blocks read (%u "
			       "the kernel wrote since the last run, or may "
			       "have), the rest as it kept them; %u name "
			       "searches of stale blocks answered by their "
			       "kept index, %u read%s\n", o->device,
			       s->ring_read,
			       s->ring_blocks, s->ring_fresh,
			       ctx->names.passed_over, ctx->names.reads,
			       fc_area_said(ctx));
		else if (ctx->journal)
			printf("%s: journal: read whole (%u log blocks): %s\n",
			       o->device, s->ring_read,
			       ring_why(s, why, sizeof(why)));
		return;
	}
	if (o->verbose)
		printf("%s: full scan: %s\n", o->device,
		       run_kind_reason(ctx, why, sizeof(why)));
}

/* The JSON fields, after a comma: "run", "full_reason", "since_tid"... */
void run_kind_json(FILE *f, const struct e2sr_ctx *ctx)
{
	const struct e2sr_since *s = &ctx->since;
	char why[256];

	if (!s->decided) {
		fputs("\"run\": null, \"full_reason\": null, "
		      "\"since_tid\": null, \"since_time\": null, "
		      "\"full_time\": null, \"groups\": null, "
		      "\"groups_read\": null, \"table_blocks_read\": null, "
		      "\"blocks_from_log\": null, \"records_kept\": null, "
		      "\"groups_changed\": null, \"log_blocks_since\": null, "
		      "\"log_blocks_read\": null, \"ring_facts\": null, "
		      "\"name_searches_indexed\": null, "
		      "\"name_block_reads\": null, \"fc_area_read\": null",
		      f);
		return;
	}
	fprintf(f, "\"run\": \"%s\", \"full_reason\": ",
		s->incremental ? "incremental" : "full");
	if (s->incremental)
		fputs("null", f);
	else
		json_string(f, run_kind_reason(ctx, why, sizeof(why)));
	if (s->incremental)
		fprintf(f, ", \"since_tid\": %u, \"since_time\": %" PRIu64
			", \"full_time\": %" PRIu64 ", \"groups\": %u"
			", \"groups_read\": %u, \"table_blocks_read\": %u"
			", \"blocks_from_log\": %u, \"records_kept\": %u"
			", \"groups_changed\": %u, \"log_blocks_since\": %u",
			ctx->coverage.prev.tid,
			(uint64_t)ctx->coverage.prev.run_time,
			(uint64_t)s->prev.full_time, s->groups, s->groups_read,
			s->table_blocks, s->from_log, s->from_kept,
			s->groups_changed, s->log_blocks);
	else
		fprintf(f, ", \"since_tid\": null, \"since_time\": null, "
			"\"full_time\": null, \"groups\": %u, "
			"\"groups_read\": %u, \"table_blocks_read\": null, "
			"\"blocks_from_log\": null, \"records_kept\": null, "
			"\"groups_changed\": null, \"log_blocks_since\": null",
			s->groups, s->groups_read);
	fprintf(f, ", \"log_blocks_read\": %u, \"ring_facts\": ",
		s->ring_read);
	if (s->ring_used)
		fputs("\"used\"", f);
	else
		json_string(f, ring_why(s, why, sizeof(why)));
	fprintf(f, ", \"name_searches_indexed\": %u, \"name_block_reads\": %u",
		ctx->names.passed_over, ctx->names.reads);
	fprintf(f, ", \"fc_area_read\": %s", fc_area_read(ctx) < 0 ? "null" :
		fc_area_read(ctx) ? "true" : "false");
}

/* The record's row: what was read, and since when. */
void run_kind_record(FILE *f, const struct e2sr_ctx *ctx)
{
	const struct e2sr_since *s = &ctx->since;
	char why[256], t1[32], t2[32];

	if (!s->decided)
		return;
	if (s->incremental)
		fprintf(f, "  %-24s incremental: what changed since the run "
			"of %s (transaction %u); last full scan %s\n",
			"Scope read:",
			local_time(ctx->coverage.prev.run_time, t1,
				   sizeof(t1)),
			ctx->coverage.prev.tid,
			local_time(s->prev.full_time, t2, sizeof(t2)));
	else
		fprintf(f, "  %-24s full scan (%s)\n", "Scope read:",
			run_kind_reason(ctx, why, sizeof(why)));
}
