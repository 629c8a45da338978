/*
 * json.c --- `--json FILE`: the run's report, for machines.
 *
 * Owns the JSON report (its schema is in e2secrm(8)): what was opened,
 * what the journal held and whether it was recovered, what was found and
 * what was wiped by kind, in blocks and bytes, what was left and why,
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

static struct {
	int		opened;
	char		uuid[40];
	unsigned int	blocksize;
	uint64_t	blocks;
	__u32		compat, incompat, ro_compat;
	double		start, t_open, t_scan, t_wipe;
} facts;

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

	facts.start = now();
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
		facts.t_open = t;
		if (ctx && ctx->fs) {
			struct ext2_super_block *sb = ctx->fs->super;

			facts.opened = 1;
			snprintf(facts.uuid, sizeof(facts.uuid), "%s",
				 e2p_uuid2str(sb->s_uuid));
			facts.blocksize = ctx->fs->blocksize;
			facts.blocks = ext2fs_blocks_count(sb);
			facts.compat = sb->s_feature_compat;
			facts.incompat = sb->s_feature_incompat;
			facts.ro_compat = sb->s_feature_ro_compat;
		}
		break;
	case JSON_SCANNED:
		facts.t_scan = t;
		break;
	case JSON_WIPED:
		facts.t_wipe = t;
		break;
	}
}

static void put_string(const char *s)
{
	fputc('"', json_out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(json_out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(json_out, "\\u%04x", c);
		else
			fputc(c, json_out);
	}
	fputc('"', json_out);
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

struct json_counts {
	uint64_t	data;
	uint64_t	meta;
	uint64_t	names;
	uint64_t	records;
	uint64_t	journal;
	uint64_t	all_free;
	uint64_t	unwritten;
	uint64_t	free_records;
	uint64_t	itable;
};

static void put_counts(const char *name, const struct json_counts *c)
{
	uint64_t bs = facts.blocksize;

	fprintf(json_out,
		"  \"%s\": {\"data_blocks\": %" PRIu64
		", \"metadata_blocks\": %" PRIu64 ", \"names\": %" PRIu64
		", \"inode_records\": %" PRIu64 ", \"journal_blocks\": %"
		PRIu64 ", \"all_free_blocks\": %" PRIu64
		", \"unwritten_blocks\": %" PRIu64
		", \"free_inode_records\": %" PRIu64
		", \"inode_table_blocks\": %" PRIu64 ", \"bytes\": %"
		PRIu64 "},\n", name, c->data, c->meta, c->names, c->records,
		c->journal, c->all_free, c->unwritten, c->free_records,
		c->itable, (c->data + c->meta + c->journal + c->all_free +
			    c->unwritten + c->itable) * bs);
}

static const char *method_name(enum e2sr_method m)
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

/* How far back the journal's history goes; null without a journal. */
static void put_coverage(const struct e2sr_ctx *ctx,
			 const struct cmd_opts *o)
{
	const struct e2sr_coverage *c = &ctx->coverage;
	const struct cmd_state *st = o->state;

	if (c->how == E2SR_COVER_NONE) {
		fprintf(json_out, "  \"coverage\": null,\n");
		return;
	}
	fprintf(json_out, "  \"coverage\": {\"complete\": %s, \"reaches\": ",
		c->how == E2SR_COVER_GAP ? "false" : "true");
	fputs(c->how == E2SR_COVER_CREATION ? "\"creation\"" :
	      c->how == E2SR_COVER_PREVIOUS ? "\"previous_run\"" : "null",
	      json_out);
	if (c->have_from)
		fprintf(json_out, ", \"oldest_tid\": %u, \"oldest_time\": %"
			PRIu64, c->oldest, (uint64_t)c->oldest_time);
	else
		fprintf(json_out, ", \"oldest_tid\": null, "
			"\"oldest_time\": null");
	if (c->have_log)
		fprintf(json_out, ", \"newest_tid\": %u, \"newest_time\": %"
			PRIu64, c->newest, (uint64_t)c->newest_time);
	else
		fprintf(json_out, ", \"newest_tid\": null, "
			"\"newest_time\": null");
	if (c->have_prev)
		fprintf(json_out, ", \"previous_run\": {\"tid\": %u, "
			"\"tid_time\": %" PRIu64 ", \"run_time\": %" PRIu64
			", \"unanswered\": %u}", c->prev.tid,
			(uint64_t)c->prev.tid_time,
			(uint64_t)c->prev.run_time, c->prev.unanswered);
	else
		fprintf(json_out, ", \"previous_run\": null");
	fprintf(json_out, ", \"state_file\": ");
	if (st && st->read != STATE_OFF)
		put_string(st->path);
	else
		fputs("null", json_out);
	fprintf(json_out, ", \"state_read\": \"%s\", \"state_mismatch\": %s, "
		"\"state_written\": %s},\n",
		state_name(st ? st->read : STATE_OFF),
		c->prev_mismatch ? "true" : "false",
		st && st->written ? "true" : "false");
}

void json_write(struct e2sr_ctx *ctx, const struct cmd_opts *o, int status,
		errcode_t err)
{
	const struct e2sr_plan *p = &ctx->plan;
	const struct e2sr_stats *st = &ctx->stats;
	const struct e2sr_journal *j = ctx->journal;
	size_t i, live = 0, deleted = 0, historic = 0, n;
	double end = now();
	struct json_counts c;

	if (!json_out)
		return;
	for (i = 0; i < ctx->inv.count; i++) {
		enum e2sr_state s = ctx->inv.files[i].state;

		if (s == E2SR_STATE_DELETED)
			deleted++;
		else if (s == E2SR_STATE_HISTORIC)
			historic++;
		else
			live++;
	}
	fprintf(json_out, "{\n  \"program\": \"e2secrm\",\n  \"version\": ");
	put_string(E2SR_VERSION);
	fprintf(json_out, ",\n  \"device\": ");
	put_string(o->device);
	fprintf(json_out, ",\n  \"dry_run\": %s,\n  \"method\": \"%s\",\n",
		o->dry_run ? "true" : "false", method_name(o->method));
	if (facts.opened) {
		fprintf(json_out, "  \"filesystem\": {\"uuid\": \"%s\", "
			"\"block_size\": %u, \"blocks\": %" PRIu64
			", \"features\": ", facts.uuid, facts.blocksize,
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
			recovered_name(ctx->recovered),
			ctx->recovery.transactions, ctx->recovery.nblocks,
			ctx->recovery.fc_commits,
			ctx->have_history ? ctx->history.n : (size_t)0);
	} else {
		fprintf(json_out, "  \"journal\": null,\n");
	}
	put_coverage(ctx, o);
	fprintf(json_out, "  \"secure_delete_inodes\": {\"total\": %zu, "
		"\"in_use\": %zu, \"deleted\": %zu, \"journal_only\": %zu},\n",
		ctx->inv.count, live, deleted, historic);
	memset(&c, 0, sizeof(c));
	c.data = p->data_count;
	c.meta = p->meta_count;
	c.names = p->name_count;
	c.records = p->inode_count;
	c.journal = p->journal_blocks;
	c.all_free = p->free_all ? p->free_count : 0;
	c.unwritten = p->unwritten_count;
	c.free_records = p->free_inodes;
	c.itable = p->itable_blocks;
	put_counts("found", &c);
	c.data = st->data_wiped;
	c.meta = st->meta_wiped;
	c.names = st->names_wiped;
	c.records = st->inodes_scrubbed;
	c.journal = st->journal_wiped;
	c.all_free = st->free_wiped;
	c.unwritten = st->unwritten_wiped;
	c.free_records = st->free_inodes_scrubbed;
	c.itable = st->itable_written;
	put_counts("wiped", &c);
	fprintf(json_out, "  \"skipped_zero_blocks\": %" PRIu64 ",\n",
		(uint64_t)st->zero_skipped);
	fprintf(json_out, "  \"unrecoverable\": [");
	for (i = n = 0; i < ctx->inv.count; i++) {
		const struct e2sr_file *f = &ctx->inv.files[i];

		if ((f->state == E2SR_STATE_DELETED ||
		     f->state == E2SR_STATE_HISTORIC) &&
		    (f->map_status & E2SR_MAP_LOST))
			fprintf(json_out, "%s{\"inode\": %u, \"generation\": %u}",
				n++ ? ", " : "", f->ino, f->generation);
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
	fprintf(json_out, "  \"timings\": {\"open\": %.3f, \"scan\": %.3f, "
		"\"wipe\": %.3f, \"total\": %.3f, \"wipe_stages\": "
		"{\"freed_blocks\": %.3f, \"all_free\": %.3f, "
		"\"names_and_records\": %.3f, \"journal\": %.3f, "
		"\"verify\": %.3f}},\n",
		span(facts.start, facts.t_open),
		span(facts.t_open, facts.t_scan),
		span(facts.t_scan, facts.t_wipe), span(facts.start, end),
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
