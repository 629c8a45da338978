/*
 * json.c --- `--json FILE`: the run's report, for machines.
 *
 * Owns the JSON report (its schema is in e2secrm(7), THE JSON REPORT):
 * what was opened, what the journal held and whether it was recovered,
 * what was found and what was wiped by kind, in blocks and bytes, what
 * was left and why,
 * the time each stage took, and the exit status.  The facts about the
 * filesystem are taken as soon as it is open, because the handle is gone
 * by the time the report is written.  The file is opened before the run,
 * without following a symbolic link.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <e2p/e2p.h>

#include "cmd.h"

static FILE *json_out;

static struct fs_facts facts;
static double t_start, t_open, t_scan, t_wipe;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Open the report before the run: a bad path is a usage-time error. */
int json_open(const char *path)
{
	int fd;

	t_start = now();
	if (!strcmp(path, "-")) {
		/* JSON alone on stdout; the human report moves to stderr. */
		fd = dup(1);
		if (fd < 0 || dup2(2, 1) < 0)
			return -1;
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			  O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
	}
	json_out = fdopen(fd, "w");
	if (!json_out) {
		close(fd);
		return -1;
	}
	return 0;
}

void json_mark(enum json_stage stage, struct e2sr_ctx *ctx)
{
	double t = now();

	switch (stage) {
	case JSON_OPENED:
		t_open = t;
		if (ctx && ctx->fs) {
			struct ext2_super_block *sb = ctx->fs->super;

			facts.opened = 1;
			snprintf(facts.uuid, sizeof(facts.uuid), "%s",
				 e2p_uuid2str(sb->s_uuid));
			/* Not NUL-terminated when all 16 bytes are used. */
			memcpy(facts.label, sb->s_volume_name, EXT2_LABEL_LEN);
			facts.label[EXT2_LABEL_LEN] = 0;
			facts.blocksize = ctx->fs->blocksize;
			facts.blocks = ext2fs_blocks_count(sb);
			facts.compat = sb->s_feature_compat;
			facts.incompat = sb->s_feature_incompat;
			facts.ro_compat = sb->s_feature_ro_compat;
		}
		break;
	case JSON_SCANNED:
		t_scan = t;
		break;
	case JSON_WIPED:
		t_wipe = t;
		break;
	}
}

/* Taken at JSON_OPENED whether or not a report was asked for. */
const struct fs_facts *json_facts(void)
{
	return &facts;
}

/*
 * The length of the well-formed UTF-8 sequence at @s (Unicode, table
 * 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or 0
 * if the bytes there are not one.  A NUL ends the string, so a sequence
 * cut by it is not well-formed either.
 */
int json_utf8_length(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;	/* 80..C1: continuation, overlong; F5..FF */
	/* Only the second byte's range depends on the first. */
	if (s[0] == 0xe0)
		lo = 0xa0;	/* overlong below U+0800 */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* U+D800..DFFF are surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* overlong below U+10000 */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * @s as a JSON string, text as written: well-formed UTF-8 goes out as it
 * is; escaped are only '"' and '\', which JSON requires, and control
 * characters, C0, DEL and C1 (U+0080..U+009F): JSON requires the first,
 * and the others would be obeyed by a terminal that shows the file.
 *
 * A label or a path is bytes, not text, and may hold bytes that are not
 * UTF-8 (a Latin-1 label, a truncated sequence).  Each such byte 0xXY is
 * written as the lone surrogate \udcXY, as Python's "surrogateescape"
 * (PEP 383) decodes file names: no well-formed UTF-8 can give U+DC80..
 * U+DCFF, so the mapping is lossless, a string needs no second member to
 * say how it was written, and Python gives the bytes back with
 * json.load() and str.encode("utf-8", "surrogateescape").  The price is
 * that a lone surrogate, valid in JSON's grammar (RFC 8259, section 8.2),
 * is shown by some readers as U+FFFD (jq) or refused by strict ones; it
 * is paid only by strings that were not UTF-8 to begin with, which no
 * scheme could give them as text anyway.
 */
void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (p && *p) {
		n = json_utf8_length(p);
		if (!n) {
			fprintf(f, "\\udc%02x", *p++);
			continue;
		}
		if (n > 1 && !(p[0] == 0xc2 && p[1] < 0xa0)) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		if (n > 1) {	/* C1: U+0080..U+009F */
			fprintf(f, "\\u%04x", p[1]);
			p += 2;
			continue;
		}
		switch (*p) {
		case '"':
		case '\\':
			fprintf(f, "\\%c", *p);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
		p++;
	}
	fputc('"', f);
}

static void put_string(const char *s)
{
	json_string(json_out, s);
}

static void put_features(void)
{
	static const int kinds[3] = { E2P_FEATURE_COMPAT, E2P_FEATURE_INCOMPAT,
				      E2P_FEATURE_RO_INCOMPAT };
	__u32 masks[3] = { facts.compat, facts.incompat, facts.ro_compat };
	int k, bit, first = 1;

	fputc('[', json_out);
	for (k = 0; k < 3; k++) {
		for (bit = 0; bit < 32; bit++) {
			if (!(masks[k] & (1U << bit)))
				continue;
			fputs(first ? "" : ", ", json_out);
			put_string(e2p_feature2string(kinds[k], 1U << bit));
			first = 0;
		}
	}
	fputc(']', json_out);
}

static double span(double from, double to)
{
	return from && to && to >= from ? to - from : 0;
}

/*
 * "name": {...} with no indent or separator: the caller places it.  The
 * keys are the table of kinds' (lib/stages/kinds.c), in its order.
 */
void json_counts(FILE *f, const char *name, const struct run_counts *c)
{
	const char *sep = "";
	int k, i;

	fprintf(f, "\"%s\": {", name);
	for (k = 0; k < E2SR_KIND_COUNT; k++)
		for (i = 0; i < 2; i++) {
			if (!e2sr_kinds[k]->count[i].key)
				continue;
			fprintf(f, "%s\"%s\": %" PRIu64, sep,
				e2sr_kinds[k]->count[i].key, c->n[k][i]);
			sep = ", ";
		}
	fprintf(f, "%s\"bytes\": %" PRIu64 "}", sep,
		count_bytes(c, facts.blocksize));
}

/* "verify": null without --verify, else what was read back. */
void json_verify(FILE *f, const struct e2sr_ctx *ctx)
{
	if (!ctx->opts.verify) {
		fputs("\"verify\": null", f);
		return;
	}
	fprintf(f, "\"verify\": {\"blocks_read_back\": %" PRIu64
		", \"mismatches\": %" PRIu64 "}",
		(uint64_t)ctx->stats.verified, (uint64_t)ctx->stats.verify_bad);
}

const char *json_method_name(enum e2sr_method m)
{
	switch (m) {
	case E2SR_METHOD_ZERO:
		return "zero";
	case E2SR_METHOD_RANDOM:
		return "random";
	case E2SR_METHOD_DISCARD:
		return "discard";
	case E2SR_METHOD_SECDISCARD:
		return "secdiscard";
	}
	return "?";
}

/* Orphans the run released (or, dry, would): one object each. */
static void json_orphans(const struct e2sr_ctx *ctx)
{
	const struct e2sr_orphans *or = &ctx->orphans;
	size_t i;

	fprintf(json_out, "  \"orphans\": {\"released\": \"%s\", "
		"\"transaction\": %u, \"inodes\": [",
		!or->n ? "none" : or->how == E2SR_RECOVERY_REPLAYED ?
		"written" : "in_memory", or->n ? or->tid : 0);
	for (i = 0; i < or->n; i++) {
		const struct e2sr_orphan *e = &or->v[i];

		fprintf(json_out, "%s{\"inode\": %u, \"action\": \"%s\", "
			"\"from\": \"%s\", \"secure_delete\": %s, "
			"\"size\": %" PRIu64 ", \"blocks_freed\": %" PRIu64
			"}", i ? ", " : "", e->ino,
			e->links ? "truncated" : "deleted",
			e->in_file ? "orphan_file" : "orphan_list",
			e->secrm ? "true" : "false", (uint64_t)e->size,
			(uint64_t)e->freed);
	}
	fputs("]},\n", json_out);
}

static const char *recovered_name(enum e2sr_recovered r)
{
	switch (r) {
	case E2SR_RECOVERY_NONE:
		return "none";
	case E2SR_RECOVERY_REPLAYED:
		return "replayed";
	case E2SR_RECOVERY_VIEW:
		return "in-memory";
	}
	return "?";
}

static const char *state_name(enum state_result r)
{
	switch (r) {
	case STATE_OFF:
		return "off";
	case STATE_NONE:
		return "none";
	case STATE_READ:
		return "read";
	case STATE_BAD:
		return "unusable";
	}
	return "?";
}

/*
 * "coverage": how far back the journal's history goes, null without a
 * journal; no indent or separator.
 */
void json_coverage(FILE *f, const struct e2sr_ctx *ctx,
		   const struct cmd_opts *o)
{
	const struct e2sr_coverage *c = &ctx->coverage;
	const struct cmd_state *st = o->state;

	if (c->how == E2SR_COVER_NONE) {
		fprintf(f, "\"coverage\": null");
		return;
	}
	fprintf(f, "\"coverage\": {\"complete\": %s, \"reaches\": ",
		c->how == E2SR_COVER_GAP ? "false" : "true");
	fputs(c->how == E2SR_COVER_CREATION ? "\"creation\"" :
	      c->how == E2SR_COVER_PREVIOUS ? "\"previous_run\"" : "null",
	      f);
	if (c->have_from)
		fprintf(f, ", \"oldest_tid\": %u, \"oldest_time\": %"
			PRIu64, c->oldest, (uint64_t)c->oldest_time);
	else
		fprintf(f, ", \"oldest_tid\": null, "
			"\"oldest_time\": null");
	if (c->have_log)
		fprintf(f, ", \"newest_tid\": %u, \"newest_time\": %"
			PRIu64, c->newest, (uint64_t)c->newest_time);
	else
		fprintf(f, ", \"newest_tid\": null, "
			"\"newest_time\": null");
	if (c->have_prev)
		fprintf(f, ", \"previous_run\": {\"tid\": %u, "
			"\"tid_time\": %" PRIu64 ", \"run_time\": %" PRIu64
			", \"unanswered\": %u}", c->prev.tid,
			(uint64_t)c->prev.tid_time,
			(uint64_t)c->prev.run_time, c->prev.unanswered);
	else
		fprintf(f, ", \"previous_run\": null");
	fprintf(f, ", \"state_file\": ");
	if (st && st->read != STATE_OFF)
		json_string(f, st->path);
	else
		fputs("null", f);
	fprintf(f, ", \"state_read\": \"%s\", \"state_mismatch\": %s, "
		"\"state_written\": %s}",
		state_name(st ? st->read : STATE_OFF),
		c->prev_mismatch ? "true" : "false",
		st && st->written ? "true" : "false");
}

/* What a run left of a questioned record: E2SR_LEFT_* as JSON strings. */
static void json_left(unsigned int left)
{
	static const struct {
		unsigned int	bit;
		const char	*key;
	} keys[] = {
		{ E2SR_LEFT_FILE, "secure_delete_file" },
		{ E2SR_LEFT_NAMES, "names" },
		{ E2SR_LEFT_UNWRITTEN, "unwritten_extents" },
		{ E2SR_LEFT_RECORD, "free_record" },
		{ E2SR_LEFT_BLOCKS, "free_blocks" },
	};
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (left & keys[i].bit)
			fprintf(json_out, "%s\"%s\"", n++ ? ", " : "",
				keys[i].key);
}

/*
 * --audit: by kind (the kinds table's keys), places read, those not
 * wiped and the first of them; blocks of random bytes not judged.
 */
static void json_audit(FILE *f, const struct e2sr_ctx *ctx)
{
	const struct e2sr_stats *st = &ctx->stats;
	blk64_t i;
	int k, n = 0;

	fprintf(f, "  \"audit\": {\"not_wiped\": %" PRIu64 ", "
		"\"random_not_judged\": %s, \"kinds\": {",
		(uint64_t)e2sr_audit_unwiped(ctx),
		st->audit_random ? "true" : "false");
	for (k = 0; k < E2SR_KIND_COUNT; k++) {
		if (!st->checked[k] || !e2sr_kinds[k]->count[0].key)
			continue;
		fprintf(f, "%s\"%s\": {\"read\": %" PRIu64 ", \"not_wiped\": %"
			PRIu64 ", \"first\": [", n++ ? ", " : "",
			e2sr_kinds[k]->count[0].key, (uint64_t)st->checked[k],
			(uint64_t)st->unwiped[k]);
		for (i = 0; i < st->unwiped[k] && i < E2SR_SHOW_FIRST; i++)
			fprintf(f, "%s%" PRIu64, i ? ", " : "",
				(uint64_t)st->first_unwiped[k][i]);
		fputs("]}", f);
	}
	fputs("}},\n", f);
}

void json_write(struct e2sr_ctx *ctx, const struct cmd_opts *o, int status,
		errcode_t err)
{
	const struct e2sr_plan *p = &ctx->plan;
	const struct e2sr_stats *st = &ctx->stats;
	const struct e2sr_journal *j = ctx->journal;
	size_t i, n;
	double end = now();
	struct run_inodes inodes;
	struct run_counts c;

	if (!json_out)
		return;
	count_inodes(ctx, &inodes);
	fprintf(json_out, "{\n  \"program\": \"e2secrm\",\n  \"version\": ");
	put_string(E2SR_VERSION);
	fprintf(json_out, ",\n  \"device\": ");
	put_string(o->device);
	fprintf(json_out, ",\n  \"dry_run\": %s,\n  \"method\": \"%s\",\n",
		o->dry_run ? "true" : "false", json_method_name(o->method));
	if (facts.opened) {
		fprintf(json_out, "  \"filesystem\": {\"uuid\": \"%s\", "
			"\"label\": ", facts.uuid);
		put_string(facts.label);
		fprintf(json_out, ", \"block_size\": %u, \"blocks\": %"
			PRIu64 ", \"features\": ", facts.blocksize,
			facts.blocks);
		put_features();
		fprintf(json_out, "},\n");
	} else {
		fprintf(json_out, "  \"filesystem\": null,\n");
	}
	if (j) {
		fprintf(json_out, "  \"journal\": {\"external\": %s, "
			"\"blocks\": %u, \"block_size\": %u, \"sequence\": %u, "
			"\"recovered\": \"%s\", \"transactions_replayed\": %u, "
			"\"blocks_replayed\": %zu, \"fast_commits_replayed\": %u, "
			"\"copies_attributed\": %zu"
			"},\n", j->external ? "true" : "false", j->jsb.maxlen,
			j->blocksize, j->jsb.sequence,
			recovered_name(ctx->replay.how),
			ctx->replay.recovery.transactions, ctx->replay.recovery.nblocks,
			ctx->replay.recovery.fc_commits,
			ctx->history.built || ctx->history.released ?
			ctx->history.n : (size_t)0);
	} else {
		fprintf(json_out, "  \"journal\": null,\n");
	}
	json_orphans(ctx);
	fputs("  ", json_out);
	json_coverage(json_out, ctx, o);
	fputs(",\n  ", json_out);
	run_kind_json(json_out, ctx);
	fprintf(json_out, ",\n  \"secure_delete_inodes\": {\"total\": %zu, "
		"\"in_use\": %zu, \"deleted\": %zu, \"journal_only\": %zu},\n",
		inodes.total, inodes.live, inodes.deleted, inodes.historic);
	count_found(ctx, &c);
	fputs("  ", json_out);
	json_counts(json_out, "found", &c);
	count_wiped(ctx, &c);
	fputs(",\n  ", json_out);
	json_counts(json_out, "wiped", &c);
	fputs(",\n  ", json_out);
	json_verify(json_out, ctx);
	fputs(",\n", json_out);
	if (o->audit)
		json_audit(json_out, ctx);
	fprintf(json_out, "  \"skipped_zero_blocks\": %" PRIu64 ",\n",
		(uint64_t)st->zero_skipped);
	fprintf(json_out, "  \"writes_retried\": %lu,\n",
		e2sr_io_watch_retried());
	fprintf(json_out, "  \"unmapped_free_blocks\": %" PRIu64 ",\n",
		(uint64_t)p->unseen_count);
	fprintf(json_out, "  \"unrecoverable\": [");
	for (i = n = 0; i < ctx->inv.count; i++) {
		const struct e2sr_file *f = &ctx->inv.files[i];

		if (!file_map_lost(f))
			continue;
		fprintf(json_out, "%s{\"inode\": %u, \"generation\": %u, "
			"\"why\": \"%s\"}", n++ ? ", " : "", f->ino,
			f->generation, file_loss_key(f));
	}
	fprintf(json_out, "],\n  \"unwritten_extents\": [");
	for (i = 0; i < p->unwritten_runs; i++) {
		fprintf(json_out, "%s{\"inode\": %u, \"logical\": %" PRIu64
			", \"block\": %" PRIu64 ", \"blocks\": %u, "
			"\"residue_of\": ", i ? ", " : "",
			p->unwritten[i].ino, (uint64_t)p->unwritten[i].lblk,
			(uint64_t)p->unwritten[i].pblk, p->unwritten[i].len);
		/* Whose old bytes: null under --all-free, which takes all. */
		if (p->unwritten[i].residue_of)
			fprintf(json_out, "%u}", p->unwritten[i].residue_of);
		else
			fprintf(json_out, "null}");
	}
	fprintf(json_out, "],\n  \"left_for_e2fsck\": %zu,\n", p->left);
	/* Each of them: the text says a kind once, the JSON all of it. */
	fprintf(json_out, "  \"left_for_e2fsck_inodes\": [");
	for (i = n = 0; i < ctx->inv.count; i++) {
		const struct e2sr_file *f = &ctx->inv.files[i];

		if (f->state != E2SR_STATE_ORPHAN &&
		    f->state != E2SR_STATE_UNCLEAR)
			continue;
		fprintf(json_out, "%s{\"inode\": %u, \"generation\": %u, "
			"\"state\": \"%s\"}", n++ ? ", " : "", f->ino,
			f->generation, f->state == E2SR_STATE_ORPHAN ?
			"orphan" : "unclear");
	}
	fprintf(json_out, "],\n");
	/* Records whose flags or maps contradict each other, left. */
	fprintf(json_out, "  \"questioned\": [");
	for (i = n = 0; i < ctx->inv.question_count; i++) {
		const struct e2sr_question_entry *q = &ctx->inv.questions[i];

		if (!q->left)
			continue;
		fprintf(json_out, "%s{\"inode\": %u, \"why\": \"%s\", "
			"\"left\": [", n++ ? ", " : "", q->ino,
			e2sr_question_key(q->why));
		json_left(q->left);
		fprintf(json_out, "]}");
	}
	fprintf(json_out, "],\n");
	if (o->json_plan)
		actions_json(json_out);
	fprintf(json_out, "  \"timings\": {\"open\": %.3f, \"scan\": %.3f, "
		"\"wipe\": %.3f, \"total\": %.3f, \"wipe_stages\": "
		"{\"freed_blocks\": %.3f, \"all_free\": %.3f, "
		"\"names_and_records\": %.3f, \"journal\": %.3f, "
		"\"verify\": %.3f}},\n",
		span(t_start, t_open), span(t_open, t_scan),
		span(t_scan, t_wipe), span(t_start, end),
		st->time_blocks, st->time_free, st->time_records,
		st->time_journal, st->time_verify);
	fprintf(json_out, "  \"error\": ");
	if (err)
		put_string(error_message(err));
	else
		fputs("null", json_out);
	fprintf(json_out, ",\n  \"exit_status\": %d\n}\n", status);
	fclose(json_out);
	json_out = NULL;
}
