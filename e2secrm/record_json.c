/*
 * record_json.c --- the record for machines: FILE.json of --record FILE.
 *
 * Owns the JSON form of the facts record.c gathers, member for member
 * what record_text.c writes for people, strings as json.c writes them.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

/* A JSON string, or null for what is unknown. */
static void jstr(FILE *f, const char *s)
{
	if (s && *s)
		json_string(f, s);
	else
		fputs("null", f);
}

void record_json(FILE *f, const struct facts *x)
{
	const struct dev_id *d = &x->dev;
	const struct e2sr_ctx *ctx = x->ctx;
	struct run_counts c;
	struct run_inodes ri;
	size_t i, n;

	fprintf(f, "{\n  \"record\": \"e2secrm sanitisation record\",\n");
	fprintf(f, "  \"summary\": ");
	json_string(f, x->out.summary);
	fprintf(f, ",\n  \"outcome\": \"%s\",\n  \"writes_began\": %s,\n",
		x->out.code, x->out.wrote ? "true" : "false");
	fprintf(f, "  \"dry_run\": %s,\n", x->o->dry_run ? "true" : "false");
	fprintf(f, "  \"device\": {\"path\": ");
	json_string(f, x->o->device);
	fprintf(f, ", \"resolved_path\": ");
	jstr(f, d->real);
	fprintf(f, ", \"type\": \"%s\", \"kernel_name\": ",
		record_dev_type_name(d->type));
	jstr(f, d->name);
	fprintf(f, ", \"disk\": ");
	jstr(f, d->disk);
	fprintf(f, ", \"manufacturer\": ");
	jstr(f, d->vendor);
	fprintf(f, ", \"model\": ");
	jstr(f, d->model);
	fprintf(f, ", \"serial\": ");
	jstr(f, d->serial);
	fprintf(f, ", \"wwn\": ");
	jstr(f, d->wwn);
	fprintf(f, ", \"media_type\": ");
	jstr(f, d->media);
	if (d->have_size)
		fprintf(f, ", \"size_bytes\": %" PRIu64, d->size);
	else
		fprintf(f, ", \"size_bytes\": null");
	fprintf(f, ", \"backing_file\": ");
	jstr(f, d->backing);
	fprintf(f, ", \"image_sha256\": ");
	jstr(f, d->sha256);
	fprintf(f, ", \"image_sha256_when\": %s",
		d->type == DEV_FILE ? "\"after the run\"" : "null");
	if (d->sha_error[0]) {
		fprintf(f, ", \"image_sha256_error\": ");
		json_string(f, d->sha_error);
	}
	fprintf(f, "},\n  \"filesystem\": ");
	if (x->fs && x->fs->opened) {
		fprintf(f, "{\"uuid\": \"%s\", \"label\": ", x->fs->uuid);
		json_string(f, x->fs->label);
		fprintf(f, ", \"block_size\": %u, \"blocks\": %" PRIu64 "}",
			x->fs->blocksize, x->fs->blocks);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\n  \"tool\": {\"name\": \"e2secrm\", \"version\": ");
	json_string(f, E2SR_VERSION);
	fprintf(f, ", \"date\": ");
	json_string(f, E2SR_DATE);
	fprintf(f, ", \"libext2fs_version\": ");
	json_string(f, x->lib_ver);
	fprintf(f, ", \"libext2fs_date\": ");
	json_string(f, x->lib_date);
	fprintf(f, "},\n  \"operator\": {\"name\": ");
	json_string(f, x->person);
	fprintf(f, ", \"from\": ");
	json_string(f, x->person_from);
	fprintf(f, "},\n  \"host\": ");
	json_string(f, x->uts.nodename);
	fprintf(f, ",\n  \"command_line\": [");
	for (i = 0; x->argv && i < (size_t)x->argc; i++) {
		fputs(i ? ", " : "", f);
		json_string(f, x->argv[i]);
	}
	fprintf(f, "],\n  \"command\": ");
	jstr(f, x->command);
	fprintf(f, ",\n  \"start\": \"%s\",\n  \"end\": \"%s\",\n",
		x->start, x->end);
	fprintf(f, "  \"mode\": ");
	json_string(f, x->mode);
	fprintf(f, ",\n  \"method\": \"%s\",\n",
		json_method_name(x->o->method));
	fprintf(f, "  \"nist_sp800_88\": {\"guideline\": ");
	json_string(f, GUIDELINE);
	fprintf(f, ", \"revision\": \"Rev. 2\", \"techniques\": ");
	json_string(f, TECHNIQUES);
	fprintf(f, ", \"category\": ");
	json_string(f, x->cat.name);
	fprintf(f, ", \"description\": ");
	json_string(f, x->cat.description);
	fprintf(f, ", \"scope\": ");
	jstr(f, x->cat.scope);
	fprintf(f, ", \"method_used\": ");
	json_string(f, x->out.wrote ? record_method_used(x->o->method) :
		    "none");
	fprintf(f, ", \"statement\": ");
	json_string(f, x->cat.statement);
	fprintf(f, ", \"limits\": ");
	json_string(f, record_limits);
	fprintf(f, "},\n");
	if (ctx) {
		count_inodes(ctx, &ri);
		fprintf(f, "  \"secure_delete_inodes\": {\"total\": %zu, "
			"\"in_use\": %zu, \"deleted\": %zu, "
			"\"journal_only\": %zu},\n  ", ri.total, ri.live,
			ri.deleted, ri.historic);
		fprintf(f, "\"orphans_released\": {\"written\": %s, "
			"\"inodes\": [", ctx->orphans.how ==
			E2SR_RECOVERY_REPLAYED ? "true" : "false");
		for (i = 0; i < ctx->orphans.n; i++)
			fprintf(f, "%s{\"inode\": %u, \"action\": \"%s\"}",
				i ? ", " : "", ctx->orphans.v[i].ino,
				ctx->orphans.v[i].links ? "truncated" :
				"deleted");
		fprintf(f, "]},\n  ");
		count_found(ctx, &c);
		json_counts(f, "found", &c);
		count_wiped(ctx, &c);
		fputs(",\n  ", f);
		json_counts(f, "wiped", &c);
		fprintf(f, ",\n  \"not_done\": {\"lost_maps\": [");
		for (i = n = 0; i < ctx->inv.count; i++)
			if (file_map_lost(&ctx->inv.files[i]))
				fprintf(f, "%s{\"inode\": %u, \"generation\": "
					"%u}", n++ ? ", " : "",
					ctx->inv.files[i].ino,
					ctx->inv.files[i].generation);
		fprintf(f, "], \"unrecoverable\": %zu, \"all_free_planned\": "
			"%s, \"untraced_answered\": %s, "
			"\"left_for_e2fsck\": %zu, "
			"\"damaged_directories\": %zu, "
			"\"writes_retried\": %lu},\n  ",
			ctx->plan.unrecoverable,
			ctx->plan.free_all ? "true" : "false",
			ctx->plan.answered ? "true" : "false", ctx->plan.left,
			ctx->plan.name_dirs_damaged, e2sr_io_watch_retried());
		json_coverage(f, ctx, x->o);
		fputs(",\n  \"scope_read\": {", f);
		run_kind_json(f, ctx);
		fputs("},\n  ", f);
		json_verify(f, ctx);
		fputs(",\n", f);
	} else {
		fprintf(f, "  \"secure_delete_inodes\": null,\n"
			"  \"found\": null,\n  \"wiped\": null,\n"
			"  \"not_done\": null,\n  \"coverage\": null,\n"
			"  \"scope_read\": null,\n"
			"  \"verify\": null,\n");
	}
	fprintf(f, "  \"verification_method\": ");
	json_string(f, x->verify);
	fprintf(f, ",\n  \"certificate\": {\"manufacturer\": ");
	jstr(f, d->vendor);
	fprintf(f, ", \"model\": ");
	jstr(f, d->model);
	fprintf(f, ", \"serial_number\": ");
	jstr(f, d->serial);
	fprintf(f, ", \"media_type\": ");
	jstr(f, d->media);
	fprintf(f, ", \"sanitization_description\": ");
	json_string(f, x->cat.description);
	fprintf(f, ", \"method_used\": ");
	json_string(f, x->out.wrote ? record_method_used(x->o->method) :
		    "none");
	fprintf(f, ", \"method_details\": ");
	json_string(f, x->mode);
	fprintf(f, ", \"tool_used\": ");
	json_string(f, "e2secrm " E2SR_VERSION);
	fprintf(f, ", \"verification_method\": ");
	json_string(f, x->verify);
	/* The fields a person fills, in the order of the table. */
	for (i = 0; i < FIELD_COUNT; i++) {
		fprintf(f, ", \"%s\": ", record_field_names[i].json);
		if (i == FIELD_NAME && !x->fields[i])
			json_string(f, x->person);
		else
			json_string(f, x->fields[i] ? x->fields[i] :
				    "not recorded");
	}
	fprintf(f, ", \"date\": \"%s\", \"host\": ", x->end);
	json_string(f, x->uts.nodename);
	fprintf(f, ", \"signature\": \"not recorded\"},\n  \"error\": ");
	jstr(f, x->why);
	fprintf(f, ",\n  \"exit_status\": %d\n}\n", x->status);
}

/* Write, sync and close one temporary file; 0 or -1 with errno. */
