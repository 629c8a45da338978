/*
 * metrics.c --- `--metrics FILE`: the run as Prometheus metrics, for
 * node_exporter's textfile collector.
 *
 * Owns the metrics: their names, help texts and labels, and the text
 * exposition format they are written in (version 0.0.4).  Every run
 * writes them, refusals, dry runs and cancelled runs included: when it
 * ended, its exit status, how long it took, the residues found and
 * wiped by kind (the table of kinds' JSON keys, lib/stages/kinds.c),
 * the bytes written, the lost or possibly incomplete maps, history the
 * journal no longer holds, and how far back the journal reaches; each
 * labelled with the device and the filesystem's UUID (empty when the
 * run did not get to open it).  The counts are those of the run: each
 * run is a new process whose counters start from zero.  The counts are
 * counts.c's, as the JSON report's are, so the two cannot disagree.
 *
 * The file is checked and its temporary file made before the device is
 * touched, and the metrics renamed over it once written and synced,
 * never through a symbolic link (outfile.c), so that the collector
 * never reads half a file.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>

#include "cmd.h"

static struct outfile out = { .fd = -1 };
static struct timespec started;

static void discard(void)
{
	outfile_discard(&out);
}

/* Before the run: a path that cannot be written is refused (exit 8). */
int metrics_open(const char *path)
{
	clock_gettime(CLOCK_MONOTONIC, &started);
	atexit(discard);
	return outfile_open(&out, "the metrics file", path);
}

/*
 * A label value: '\', '"' and a newline escaped as the format says; a
 * byte that is not UTF-8 (a Latin-1 path) is U+FFFD, since the format
 * is UTF-8 and a scraper refuses the whole file otherwise.
 */
static void put_label_value(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (p && *p) {
		n = json_utf8_length(p);
		if (!n) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

struct sample_labels {
	const char	*device;
	const char	*uuid;
};

/* "name{device=...,uuid=...[,key=value]} " */
static void put_name(FILE *f, const char *name,
		     const struct sample_labels *l, const char *key,
		     const char *value)
{
	fprintf(f, "%s{device=", name);
	put_label_value(f, l->device);
	fputs(",uuid=", f);
	put_label_value(f, l->uuid);
	if (key) {
		fprintf(f, ",%s=", key);
		put_label_value(f, value);
	}
	fputs("} ", f);
}

static void put_family(FILE *f, const char *name, const char *type,
		       const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_gauge(FILE *f, const struct sample_labels *l,
		      const char *name, const char *help, double v)
{
	put_family(f, name, "gauge", help);
	put_name(f, name, l, NULL, NULL);
	fprintf(f, "%.15g\n", v);
}

/* One sample per count of the table of kinds, labelled with its key. */
static void put_kinds(FILE *f, const struct sample_labels *l,
		      const char *name, const char *help,
		      const struct run_counts *c)
{
	int k, i;

	put_family(f, name, "counter", help);
	for (k = 0; k < E2SR_KIND_COUNT; k++)
		for (i = 0; i < 2; i++) {
			if (!e2sr_kinds[k]->count[i].key)
				continue;
			put_name(f, name, l, "kind",
				 e2sr_kinds[k]->count[i].key);
			fprintf(f, "%" PRIu64 "\n", c->n[k][i]);
		}
}

/* Secure-delete files whose map is lost, by why (file_loss_key()). */
static void put_lost(FILE *f, const struct sample_labels *l,
		     const struct e2sr_ctx *ctx)
{
	static const char *const why[] = {
		"map_gone", "map_incomplete", "map_damaged"
	};
	size_t i, n[3] = { 0, 0, 0 };
	int w;

	for (i = 0; ctx && i < ctx->inv.count; i++) {
		const struct e2sr_file *file = &ctx->inv.files[i];

		if (!file_map_lost(file))
			continue;
		for (w = 0; w < 3; w++)
			if (!strcmp(file_loss_key(file), why[w]))
				n[w]++;
	}
	put_family(f, "e2secrm_maps_lost", "gauge", "Secure-delete files "
		   "of the last run whose block map is lost (deleted: gone, "
		   "possibly incomplete, damaged; in use: incomplete): their "
		   "data may remain in free space (exit bit 4).");
	for (w = 0; w < 3; w++) {
		put_name(f, "e2secrm_maps_lost", l, "reason", why[w]);
		fprintf(f, "%zu\n", n[w]);
	}
}

/* How far back the journal reaches, where it is known. */
static void put_coverage(FILE *f, const struct sample_labels *l,
			 const struct e2sr_ctx *ctx)
{
	const struct e2sr_coverage *c = &ctx->coverage;

	if (c->how == E2SR_COVER_NONE)
		return;
	put_gauge(f, l, "e2secrm_journal_history_complete", "1 when the "
		  "journal's history of the last run reached back to the run "
		  "before or to the journal's creation, 0 when deletions in "
		  "between cannot be traced.", c->how != E2SR_COVER_GAP);
	if (c->have_from && c->oldest_time)
		put_gauge(f, l,
			  "e2secrm_journal_oldest_transaction_timestamp_seconds",
			  "Commit time of the oldest journal transaction the "
			  "last run could read (Unix time).",
			  (double)c->oldest_time);
	if (c->have_log && c->newest_time)
		put_gauge(f, l,
			  "e2secrm_journal_newest_transaction_timestamp_seconds",
			  "Commit time of the newest journal transaction the "
			  "last run could read (Unix time).",
			  (double)c->newest_time);
}

/* Whether the run read everything or what changed (run_kind.c). */
static void put_scope(FILE *f, const struct sample_labels *l,
		      const struct e2sr_ctx *ctx)
{
	const struct e2sr_since *s = &ctx->since;

	if (!s->decided)
		return;
	put_gauge(f, l, "e2secrm_run_incremental", "1 when the last run read "
		  "only what changed since the run before (e2secrm(7), "
		  "INCREMENTAL RUNS), 0 when it scanned everything.",
		  s->incremental);
	put_gauge(f, l, "e2secrm_groups_read", "Block groups whose inode "
		  "tables the last run read (all of them in a full scan).",
		  s->groups_read);
	if (s->incremental)
		put_gauge(f, l, "e2secrm_last_full_scan_timestamp_seconds",
			  "When the last full scan ended (Unix time).",
			  (double)s->prev.full_time);
}

static void put_all(FILE *f, const struct e2sr_ctx *ctx,
		    const struct cmd_opts *o, int status)
{
	const struct fs_facts *fx = json_facts();
	struct sample_labels l;
	struct timespec end, mono;
	struct run_counts found, wiped;

	clock_gettime(CLOCK_REALTIME, &end);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	l.device = o->device;
	l.uuid = ctx && fx->opened ? fx->uuid : "";
	memset(&found, 0, sizeof(found));
	memset(&wiped, 0, sizeof(wiped));
	if (ctx) {
		count_found(ctx, &found);
		count_wiped(ctx, &wiped);
	}
	put_gauge(f, &l, "e2secrm_run_end_timestamp_seconds", "When the last "
		  "run of e2secrm on the device ended (Unix time).",
		  end.tv_sec + end.tv_nsec / 1e9);
	put_gauge(f, &l, "e2secrm_run_exit_status", "Exit status of the last "
		  "run, bits: 1 wiped, 4 residue found and left, 8 refused or "
		  "failed, 16 usage, 32 cancelled.", status);
	put_gauge(f, &l, "e2secrm_run_dry_run", "1 when the last run wrote "
		  "nothing by design (-n, --audit).", o->dry_run);
	put_gauge(f, &l, "e2secrm_run_duration_seconds", "How long the last "
		  "run took.", (mono.tv_sec - started.tv_sec) +
		  (mono.tv_nsec - started.tv_nsec) / 1e9);
	put_kinds(f, &l, "e2secrm_residues_found_total", "Residues of "
		  "secure-delete files the last run found, by kind (blocks, "
		  "names, records).", &found);
	put_kinds(f, &l, "e2secrm_residues_wiped_total", "Residues of "
		  "secure-delete files the last run wiped, by kind.", &wiped);
	put_family(f, "e2secrm_written_bytes_total", "counter", "Bytes of "
		   "whole blocks the last run overwrote.");
	put_name(f, "e2secrm_written_bytes_total", &l, NULL, NULL);
	fprintf(f, "%" PRIu64 "\n", count_bytes(&wiped, fx->blocksize));
	put_lost(f, &l, ctx);
	put_gauge(f, &l, "e2secrm_history_untraced", "1 when the last run "
		  "found deletions the journal can no longer trace and did not "
		  "answer them with --all-free-if-lost (exit bit 4).",
		  ctx && ctx->plan.untraced && !ctx->plan.answered);
	put_gauge(f, &l, "e2secrm_left_for_e2fsck", "Secure-delete records "
		  "the last run left for e2fsck (orphans, records the bitmap "
		  "calls free).", ctx ? (double)ctx->plan.left : 0);
	if (ctx)
		put_coverage(f, &l, ctx);
	if (ctx)
		put_scope(f, &l, ctx);
}

/*
 * After the run, whatever it did; @ctx is NULL when the run was refused
 * before it began.  A file that cannot be written is said, and changes
 * nothing of the exit status: the run is done.
 */
void metrics_write(const struct e2sr_ctx *ctx, const struct cmd_opts *o,
		   int status)
{
	FILE *f;

	if (!outfile_wanted(&out))
		return;
	f = outfile_stream(&out);
	if (!f) {
		com_err(program_name, errno, "while writing the metrics file "
			"%s", out.path);
		outfile_discard(&out);
		return;
	}
	put_all(f, ctx, o, status);
	if (outfile_sync(f)) {
		com_err(program_name, errno, "while writing the metrics file "
			"%s", out.path);
		outfile_discard(&out);
		return;
	}
	if (outfile_commit(&out))
		outfile_discard(&out);
}
