/*
 * record_text.c --- the record for people: FILE of --record FILE.
 *
 * Owns the text form of the facts record.c gathers: the first line, the
 * device, the filesystem, the run, what was found and wiped, the limits
 * of a file-system-level run and the certificate, values from outside
 * written so that they cannot break a line.  The JSON form is
 * record_json.c's; both read the same struct facts.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

/*
 * A value from outside (a label, a path, a field) and a newline, in the
 * text: as written, but for control characters, which would break the
 * line or drive the terminal that shows it, written \t or \xNN.  The
 * JSON form holds the exact bytes.
 */
static void put_value(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('\n', f);
}

/*
 * @s from column @col to 78, folded at blanks, continued at column @col;
 * the caller has put the cursor at @col.
 */
static void put_wrapped(FILE *f, int col, const char *s)
{
	int width = 78 - col, n;

	while (strlen(s) > (size_t)width) {
		for (n = width; n > 0 && s[n] != ' '; n--)
			;
		if (!n)		/* one long word: let it run over */
			n = strcspn(s, " ");
		fprintf(f, "%.*s\n%*s", n, s, col, "");
		s += n;
		while (*s == ' ')
			s++;
	}
	fprintf(f, "%s\n", s);
}

/* A certificate line: "not recorded" when @value is NULL. */
static void put_field(FILE *f, const char *label, const char *value)
{
	fprintf(f, "    %-34s ", label);
	put_value(f, value ? value : "not recorded");
}

void record_text(FILE *f, const struct facts *x)
{
	const struct dev_id *d = &x->dev;
	const struct e2sr_ctx *ctx = x->ctx;
	struct run_counts found, wiped;
	size_t i, n;
	int k, q;

	fprintf(f, "%s\n\n", x->out.summary);
	fprintf(f, "e2secrm sanitization record (NIST SP 800-88 Rev. 2; "
		"techniques: IEEE 2883)\n\n");
	fprintf(f, "%-26s %s\n", "Outcome:", x->out.code);
	fprintf(f, "%-26s %d\n", "Exit status:", x->status);
	fprintf(f, "%-26s %s\n", "Error:", x->why ? x->why : "none");
	fprintf(f, "%-26s %s\n", "Writes began:",
		x->out.wrote ? "yes" : "no");

	fprintf(f, "\nDevice\n");
	fprintf(f, "  %-24s ", "Path:");
	put_value(f, x->o->device);
	fprintf(f, "  %-24s ", "Resolved path:");
	put_value(f, record_or_unknown(d->real));
	fprintf(f, "  %-24s %s\n", "Type:", record_dev_type_name(d->type));
	if (d->type == DEV_BLOCK) {
		fprintf(f, "  %-24s %s\n", "Kernel name:",
			record_or_unknown(d->name));
		fprintf(f, "  %-24s %s\n", "Disk:", record_or_unknown(d->disk));
	}
	fprintf(f, "  %-24s ", "Manufacturer:");
	put_value(f, record_or_unknown(d->vendor));
	fprintf(f, "  %-24s ", "Model:");
	put_value(f, record_or_unknown(d->model));
	fprintf(f, "  %-24s ", "Serial number:");
	put_value(f, record_or_unknown(d->serial));
	fprintf(f, "  %-24s ", "WWN:");
	put_value(f, record_or_unknown(d->wwn));
	fprintf(f, "  %-24s %s\n", "Media type:", record_or_unknown(d->media));
	if (d->have_size)
		fprintf(f, "  %-24s %" PRIu64 " bytes\n", "Size:", d->size);
	else
		fprintf(f, "  %-24s unknown\n", "Size:");
	if (d->backing[0]) {
		fprintf(f, "  %-24s ", "Backing file:");
		put_value(f, d->backing);
	}
	if (d->type == DEV_FILE)
		fprintf(f, "  %-24s %s (computed after the run)\n",
			"Image sha256:", d->sha256[0] ? d->sha256 :
			d->sha_error);

	fprintf(f, "\nFilesystem\n");
	if (x->fs && x->fs->opened) {
		fprintf(f, "  %-24s %s\n", "UUID:", x->fs->uuid);
		fprintf(f, "  %-24s ", "Label:");
		put_value(f, x->fs->label[0] ? x->fs->label : "(none)");
		fprintf(f, "  %-24s %u\n", "Block size:", x->fs->blocksize);
		fprintf(f, "  %-24s %" PRIu64 "\n", "Blocks:", x->fs->blocks);
	} else {
		fprintf(f, "  not opened\n");
	}

	fprintf(f, "\nRun\n");
	fprintf(f, "  %-24s e2secrm %s (%s)\n", "Tool:", E2SR_VERSION,
		E2SR_DATE);
	fprintf(f, "  %-24s %s (%s)\n", "libext2fs:", x->lib_ver,
		x->lib_date);
	fprintf(f, "  %-24s ", "Operator:");
	fprintf(f, "%s (from %s)\n", x->person, x->person_from);
	fprintf(f, "  %-24s ", "Host:");
	put_value(f, x->uts.nodename);
	/* One line, unfolded, so that it can be copied back to a shell. */
	fprintf(f, "  %-24s %s\n", "Command line:",
		x->command ? x->command : "unknown");
	fprintf(f, "  %-24s %s\n", "Start (UTC):", x->start);
	fprintf(f, "  %-24s %s\n", "End (UTC):", x->end);
	fprintf(f, "  %-24s %s%s\n", "Mode:", x->o->audit ? "audit (--audit, "
		"read-only): " : x->o->dry_run ? "dry run (-n): " : "",
		x->mode);
	fprintf(f, "  %-24s %s\n", "Method:", json_method_name(x->o->method));

	fprintf(f, "\nSanitization\n");
	fprintf(f, "  %-24s ", "Guideline:");
	put_wrapped(f, 27, GUIDELINE);
	fprintf(f, "  %-24s ", "Techniques:");
	put_wrapped(f, 27, TECHNIQUES);
	fprintf(f, "  %-24s %s\n", "Category:", x->cat.description);
	fprintf(f, "  %-24s ", "Scope:");
	put_wrapped(f, 27, x->cat.scope ? x->cat.scope : "none");
	fprintf(f, "  %-24s ", "");
	put_wrapped(f, 27, x->cat.statement);
	fprintf(f, "  %-24s ", "What this run is not:");
	put_wrapped(f, 27, record_limits);

	if (!ctx) {
		fprintf(f, "\nNothing was scanned: the run was refused before "
			"the device was opened.\n");
		goto certificate;
	}
	count_found(ctx, &found);
	count_wiped(ctx, &wiped);
	{
		struct run_inodes ri;

		count_inodes(ctx, &ri);
		fprintf(f, "\nSecure-delete inodes: %zu (%zu in use, %zu "
			"deleted, %zu only in the journal)\n", ri.total,
			ri.live, ri.deleted, ri.historic);
	}
	fprintf(f, "\n  %-26s %14s %14s\n", "Residues, by kind", "found",
		"wiped");
	for (k = 0; k < E2SR_KIND_COUNT; k++)
		for (q = 0; q < 2; q++)
			if (e2sr_kinds[k]->count[q].record)
				fprintf(f, "  %-26s %14" PRIu64 " %14" PRIu64
					"\n", e2sr_kinds[k]->count[q].record,
					found.n[k][q], wiped.n[k][q]);
	fprintf(f, "  %-26s %14" PRIu64 " %14" PRIu64 "\n", "bytes (blocks)",
		count_bytes(&found, x->fs->blocksize),
		count_bytes(&wiped, x->fs->blocksize));
	if (ctx->orphans.n) {
		fprintf(f, "  %-24s %zu (%s):", "Orphans released:",
			ctx->orphans.n,
			ctx->orphans.how == E2SR_RECOVERY_REPLAYED ?
			"written" : "in memory only");
		for (i = 0; i < ctx->orphans.n; i++)
			fprintf(f, "%s inode %u %s", i ? "," : "",
				ctx->orphans.v[i].ino,
				ctx->orphans.v[i].links ? "truncated" :
				"deleted");
		fprintf(f, "\n");
	}

	fprintf(f, "\nNot done\n");
	fprintf(f, "  %-24s %zu", "Lost block maps:", ctx->plan.unrecoverable);
	for (i = n = 0; i < ctx->inv.count; i++)
		if (file_map_lost(&ctx->inv.files[i]))
			fprintf(f, "%s inode %u generation %u", n++ ? "," : "",
				ctx->inv.files[i].ino,
				ctx->inv.files[i].generation);
	fprintf(f, "\n");
	if (ctx->plan.unrecoverable)
		fprintf(f, "  %-24s %s\n", "", ctx->plan.answered &&
			x->out.wrote && !(x->status & (E2SR_EXIT_ERROR |
						       E2SR_EXIT_CANCELLED)) ?
			"answered: free space, the journal's stale blocks "
			"and removed names were wiped" :
			"not answered: their blocks may remain in free space "
			"or the journal");
	if (ctx->coverage.how == E2SR_COVER_NONE)
		fprintf(f, "  %-24s no journal: deletions whose inode was used "
			"again cannot be traced\n", "Journal coverage:");
	else if (ctx->coverage.how == E2SR_COVER_GAP)
		fprintf(f, "  %-24s GAP: deletions before the history read "
			"cannot be traced (%s)\n", "Journal coverage:",
			ctx->plan.answered ? "free space, the journal's stale "
			"blocks and removed names were planned for them" :
			"not answered");
	else
		fprintf(f, "  %-24s complete back to %s\n",
			"Journal coverage:",
			ctx->coverage.how == E2SR_COVER_CREATION ?
			"the journal's creation" : "the previous run");
	run_kind_record(f, ctx);
	fprintf(f, "  %-24s %zu\n", "Left for e2fsck:", ctx->plan.left);
	fprintf(f, "  %-24s %zu\n", "Damaged directories:",
		ctx->plan.name_dirs_damaged);
	fprintf(f, "  %-24s %lu%s\n", "Writes retried:",
		e2sr_io_watch_retried(), e2sr_io_watch_retried() ?
		" (failed once, then succeeded: check the disk)" : "");

certificate:
	fprintf(f, "\n%-26s ", "Verification:");
	put_wrapped(f, 27, x->verify);

	/*
	 * The sample certificate's fields (Rev. 1, Appendix G): the record
	 * names only the revision in force, whose words the values use.
	 */
	fprintf(f, "\nCertificate of sanitization (the fields of the SP "
		"800-88 sample certificate)\n");
	fprintf(f, "  Person performing sanitization\n");
	put_field(f, "Name:", x->fields[FIELD_NAME] ? x->fields[FIELD_NAME] :
		  x->person);
	put_field(f, "Title:", x->fields[FIELD_TITLE]);
	put_field(f, "Organization:", x->fields[FIELD_ORGANIZATION]);
	put_field(f, "Location:", x->fields[FIELD_LOCATION]);
	put_field(f, "Phone or other contact:", x->fields[FIELD_CONTACT]);
	fprintf(f, "  Media information\n");
	put_field(f, "Manufacturer:", record_or_unknown(d->vendor));
	put_field(f, "Model:", record_or_unknown(d->model));
	put_field(f, "Serial number:", record_or_unknown(d->serial));
	put_field(f, "Media type:", record_or_unknown(d->media));
	put_field(f, "Media source:", x->fields[FIELD_MEDIA_SOURCE]);
	put_field(f, "Pre-sanitization confidentiality:",
		  x->fields[FIELD_CONF_BEFORE]);
	fprintf(f, "  Sanitization details\n");
	put_field(f, "Sanitization description:", x->cat.description);
	put_field(f, "Method used:", x->out.wrote ?
		  record_method_used(x->o->method) :
		  "none (nothing was written)");
	put_field(f, "Method details:", x->mode);
	fprintf(f, "    %-34s e2secrm %s\n", "Tool used:", E2SR_VERSION);
	fprintf(f, "    %-34s ", "Verification method:");
	put_wrapped(f, 39, x->verify);
	put_field(f, "Post-sanitization confidentiality:",
		  x->fields[FIELD_CONF_AFTER]);
	put_field(f, "Post-sanitization destination:",
		  x->fields[FIELD_DESTINATION]);
	fprintf(f, "  Signed\n");
	put_field(f, "Date:", x->end);
	put_field(f, "Host:", x->uts.nodename);
	fprintf(f, "    %-34s ________________________________\n",
		"Signature:");
}
