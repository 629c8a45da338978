/*
 * report.c --- what e2secrm tells the user of what it found: errors
 * through com_err, the inventory with -v, the recovery, orphans and
 * fast-commit replay, and how far back the journal shows.
 *
 * The plan and what was done are report_plan.c's; the counts every
 * report gives are counts.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>
#include <e2p/e2p.h>

#include "cmd.h"
#include "report.h"

void ino_list_add(struct ino_list *l, ext2_ino_t ino)
{
	if (l->n < REPORT_FIRST)
		l->first[l->n] = ino;
	l->n++;
}

/* "(inode 12)", "(inodes 12, 13, 14, 15, 16 and 307 more)" */
void print_ino_list(const struct ino_list *l)
{
	size_t i, shown = l->n < REPORT_FIRST ? l->n : REPORT_FIRST;

	printf("(inode%s", l->n == 1 ? "" : "s");
	for (i = 0; i < shown; i++)
		printf("%s %u", i ? "," : "", l->first[i]);
	if (l->n > shown)
		printf(" and %zu more", l->n - shown);
	printf(")");
}


/*
 * The device failed a read or a write for good: which block, and what to
 * do before anything else.  Nothing more is learnt by running again on a
 * disk that is failing.
 */
static void report_io_failure(const char *device)
{
	struct e2sr_io_failure f;

	if (!e2sr_io_watch_failure(&f))
		return;
	if (f.bytes)
		com_err(program_name, f.error, "while %s %u bytes at block "
			"%llu (of %u bytes) of %s", f.write ? "writing" :
			"reading", f.bytes, f.block, f.block_size, f.device);
	else
		com_err(program_name, f.error, "while %s block %llu (%u "
			"block%s of %u bytes) of %s", f.write ? "writing" :
			"reading", f.block, f.count, f.count == 1 ? "" : "s",
			f.block_size, f.device);
	fprintf(stderr, "%s: %s: check the disk before anything else (its "
		"SMART log: smartctl -a; a read-only surface scan: badblocks "
		"-sv), then run e2fsck -fn and e2secrm again\n", program_name,
		device);
}

void report_error(struct e2sr_ctx *ctx, errcode_t err, const char *doing,
		  const char *device)
{
	if (ctx->detail[0])
		com_err(program_name, err, "%s %s (%s)", doing, device,
			ctx->detail);
	else
		com_err(program_name, err, "%s %s", doing, device);
	report_io_failure(device);
}

/* Writes the device failed and then took: a disk to check, said once. */
void report_retried(const struct cmd_opts *o)
{
	unsigned long n = e2sr_io_watch_retried();

	if (n)
		printf("%s: %lu write%s failed and succeeded when tried again: "
		       "check the disk (smartctl -a, badblocks -sv)\n",
		       o->device, n, n == 1 ? "" : "s");
}

static const char *state_name(enum e2sr_state state)
{
	switch (state) {
	case E2SR_STATE_LIVE:
		return "live";
	case E2SR_STATE_ORPHAN:
		return "orphan";
	case E2SR_STATE_DELETED:
		return "deleted";
	case E2SR_STATE_UNCLEAR:
		return "unclear";
	case E2SR_STATE_HISTORIC:
		return "in journal only";
	}
	return "?";
}

static void print_map_status(const struct e2sr_file *f)
{
	if (f->map_status & E2SR_MAP_INLINE)
		printf(" inline-data");
	if (f->map_status & E2SR_MAP_SYMLINK)
		printf(" fast-symlink");
	if (f->map_status & E2SR_MAP_EMPTY)
		printf(" map-gone");
	if (f->map_status & E2SR_MAP_JOURNAL)
		printf(" map-from-journal(%u of %u copies)",
		       f->versions_mapped, f->versions);
	if (f->map_status & E2SR_MAP_KEPT)
		printf(" map-from-last-run");
	if (f->map_status & E2SR_MAP_REUSED)
		printf(" map-partly-reused");
	if (f->map_status & E2SR_MAP_DAMAGED)
		printf(" map-damaged(%s)", error_message(f->map_error));
	if (f->map_status & E2SR_MAP_UNPROVEN)
		printf(" map-incomplete(a window no bitmap copy accounts for)");
}

/*
 * A live file by a path the directory tree gives (-v); a deleted file is
 * never named: its name is the secret being wiped.
 */
static void print_path(const struct e2sr_ctx *ctx, const struct e2sr_file *f)
{
	char *name = NULL;

	if (f->state != E2SR_STATE_LIVE || !f->parent || !ctx->fs)
		return;
	if (!ext2fs_get_pathname(ctx->fs, f->parent, f->ino, &name) && name)
		printf(" path %s", name);
	ext2fs_free_mem(&name);
}

static void print_file(const struct e2sr_ctx *ctx, const struct e2sr_file *f)
{
	size_t i;

	printf("inode %u generation %u: %s, mode %06o, size %" PRIu64
	       ", links %u,", f->ino, f->generation,
	       state_name(f->state), f->mode, (uint64_t)f->size, f->links);
	print_path(ctx, f);
	printf(" flags ");
	print_flags(stdout, f->flags, 0);
	printf(" (0x%x)", f->flags);
	print_map_status(f);
	if (f->ea_owner)
		printf(" xattr-value-of-inode(%u)", f->ea_owner);
	printf("\n");
	for (i = 0; i < f->map_count; i++) {
		const struct e2sr_extent *e = &f->map[i];

		printf("    %-11s ", e2sr_extent_kind_name(e->kind));
		if (e->kind == E2SR_EXT_DATA || e->kind == E2SR_EXT_UNWRITTEN)
			printf("logical %" PRIu64 " ", (uint64_t)e->lblk);
		printf("block %" PRIu64, (uint64_t)e->pblk);
		if (e->len > 1)
			printf("-%" PRIu64, (uint64_t)(e->pblk + e->len - 1));
		printf(" (%u block%s, %u free)%s\n", e->len,
		       e->len == 1 ? "" : "s", e->nfree,
		       e->historic ? " from journal" : "");
	}
}

/* Journal recovery is a write the user did not ask for: always say so. */
void report_recovery(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	const struct e2sr_jrecovery *rec = &ctx->replay.recovery;

	if (ctx->replay.how == E2SR_RECOVERY_NONE)
		return;
	if (o->dry_run)
		printf("%s: journal needs recovery; read as replayed "
		       "in memory (nothing written)\n", o->device);
	else
		printf("%s: journal needs recovery; replayed in memory, "
		       "written once every check has passed\n", o->device);
	if (!rec->transactions)
		printf("%s: no committed transaction to replay\n", o->device);
	else
		printf("%s: %u transaction%s (%u to %u), %zu block%s "
		       "replayed, %lu revoked\n", o->device,
		       rec->transactions, rec->transactions == 1 ? "" : "s",
		       rec->start_seq, rec->end_seq - 1, rec->nblocks,
		       rec->nblocks == 1 ? "" : "s", rec->nr_revoke_hits);
	if (rec->fc_tags)
		printf("%s: %u fast commit%s (%u tags) after transaction %u "
		       "replayed\n", o->device, rec->fc_commits,
		       rec->fc_commits == 1 ? "" : "s", rec->fc_tags,
		       rec->end_seq - 1);
	if (rec->failed_commit)
		printf("%s: journal transaction %u was corrupt, replay was "
		       "aborted\n", o->device, rec->failed_commit);
	if (rec->tag_csum_bad)
		printf("%s: journal checksum error: some copies were not "
		       "replayed\n", o->device);
}

/* -v: one orphan released, and how. */
static void print_orphan(const struct cmd_opts *o, const struct e2sr_orphan *e)
{
	if (e->links)
		printf("%s: orphan inode %u%s (%s): truncated to %llu bytes, "
		       "%llu block%s freed\n", o->device, e->ino,
		       e->secrm ? " +s" : "",
		       e->in_file ? "orphan file" : "orphan list",
		       (unsigned long long)e->size,
		       (unsigned long long)e->freed, e->freed == 1 ? "" : "s");
	else
		printf("%s: orphan inode %u%s (%s): deleted, %llu block%s "
		       "freed\n", o->device, e->ino, e->secrm ? " +s" : "",
		       e->in_file ? "orphan file" : "orphan list",
		       (unsigned long long)e->freed, e->freed == 1 ? "" : "s");
}

/* Releasing orphans is a repair the user did not ask for: say so. */
void report_orphans(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	const struct e2sr_orphans *or = &ctx->orphans;
	/* By what was done (deleted, truncated) and whether +s. */
	struct ino_list l[2][2];
	uint64_t freed[2][2];
	size_t i;
	int t, sd;

	if (!or->n)
		return;
	printf("%s: %zu orphan inode%s (deleted or truncated while open) "
	       "%s, as mounting or e2fsck -p would\n", o->device, or->n,
	       or->n == 1 ? "" : "s", o->dry_run ?
	       "released in memory (nothing written)" :
	       "released in memory, written once every check has passed");
	memset(l, 0, sizeof(l));
	memset(freed, 0, sizeof(freed));
	for (i = 0; i < or->n; i++) {
		const struct e2sr_orphan *e = &or->v[i];

		if (o->verbose) {
			print_orphan(o, e);
			continue;
		}
		ino_list_add(&l[!!e->links][!!e->secrm], e->ino);
		freed[!!e->links][!!e->secrm] += e->freed;
	}
	for (t = 0; t < 2; t++)
		for (sd = 1; sd >= 0; sd--) {
			if (!l[t][sd].n)
				continue;
			printf("%s: %zu orphan inode%s%s %s ", o->device,
			       l[t][sd].n, l[t][sd].n == 1 ? "" : "s",
			       sd ? " +s" : "", t ? "truncated" : "deleted");
			print_ino_list(&l[t][sd]);
			printf(": %" PRIu64 " block%s freed\n", freed[t][sd],
			       freed[t][sd] == 1 ? "" : "s");
		}
}

/* After e2sr_begin_write(): the replay is on the device now. */
void report_replayed(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	if (ctx->replay.how == E2SR_RECOVERY_REPLAYED)
		printf("%s: journal recovered (%llu KiB written)\n",
		       o->device,
		       (unsigned long long)(ctx->replay.bytes >> 10));
	if (ctx->orphans.how == E2SR_RECOVERY_REPLAYED)
		printf("%s: orphans released through journal transaction "
		       "%u (%llu KiB written)\n", o->device,
		       ctx->orphans.tid,
		       (unsigned long long)(ctx->orphans.bytes >> 10));
}

void report_inventory(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct e2sr_inventory *inv = &ctx->inv;
	struct run_inodes n;
	size_t i;

	if (o->verbose)
		for (i = 0; i < inv->count; i++)
			print_file(ctx, &inv->files[i]);
	count_inodes(ctx, &n);
	printf("%s: %zu secure-delete inode%s (%zu in use, %zu deleted",
	       o->device, n.total, n.total == 1 ? "" : "s", n.live,
	       n.deleted);
	if (n.historic)
		printf(", %zu only in the journal", n.historic);
	printf(") among %u inodes scanned\n", inv->inodes_scanned);
}

/* A commit or run time, local; 0 is "no time recorded". */
static const char *when(__u64 sec, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!sec || (__u64)t != sec || !localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "an unknown time");
	return buf;
}

/*
 * What answers residue no history traces, said the same wherever it is
 * said: --all-free-if-lost wipes every place it may lie (plan.c).  A run
 * that failed or was cancelled answered nothing: the advice stands.
 */
const char *untraced_answer(const struct e2sr_ctx *ctx,
			    enum answer_when when)
{
	int jnl = ctx->plan.has_journal;

	if (ctx->plan.answered && when == ANSWER_DONE)
		return jnl ? "free space, the journal's stale blocks and "
			     "removed names were wiped" :
			     "free space and removed names were wiped";
	if (ctx->plan.answered && when == ANSWER_PLANNED)
		return jnl ? "free space, the journal's stale blocks and "
			     "removed names will be wiped for them" :
			     "free space and removed names will be wiped for "
			     "them";
	if (jnl && !ctx->journal)
		return "give the journal's device (-j) and wipe free space, "
		       "its stale blocks and removed names to be sure "
		       "(--all-free-if-lost)";
	return jnl ? "wipe free space, the journal's stale blocks and "
		     "removed names to be sure (--all-free-if-lost)" :
		     "wipe free space and removed names to be sure "
		     "(--all-free-if-lost)";
}

/*
 * How far back the journal shows what happened, and whether that reaches
 * the last run (or the journal's creation): a deletion before the
 * history starts and after the last run cannot be traced at all.
 */
void report_coverage(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	const struct e2sr_coverage *c = &ctx->coverage;
	const struct cmd_state *st = o->state;
	char t1[32], t2[32], t3[32], last[96];

	if (!ctx->journal && c->how == E2SR_COVER_GAP) {
		printf("%s: the journal is on another device and was not "
		       "given (-j): deletions cannot be traced through it\n",
		       o->device);
		printf("%s: %s\n", o->device,
		       untraced_answer(ctx, ANSWER_PLANNED));
		return;
	}
	if (!ctx->journal && o->verbose)
		printf("%s: no journal: a deleted secure-delete file whose "
		       "inode was used again since cannot be traced\n",
		       o->device);
	if (c->prev_mismatch)
		printf("%s: the state file %s does not match this journal "
		       "(reset, or another filesystem with the same UUID): "
		       "taken as no previous run\n", o->device, st->path);
	if (e2sr_coverage_pending(ctx)) {
		printf("%s: %u lost map(s) or gap(s) an earlier run reported "
		       "are not answered: what they held cannot be traced\n",
		       o->device, e2sr_coverage_pending(ctx));
		printf("%s: %s\n", o->device,
		       untraced_answer(ctx, ANSWER_PLANNED));
	}
	if (!ctx->journal)
		return;
	if (c->have_prev)
		snprintf(last, sizeof(last), "the last run (%s, transaction "
			 "%u)", when(c->prev.run_time, t3, sizeof(t3)),
			 c->prev.tid);
	else
		snprintf(last, sizeof(last), "the filesystem was made");
	if (!c->have_from && c->how != E2SR_COVER_GAP) {
		printf("%s: journal: no transaction since %s\n", o->device,
		       last);
		return;
	}
	if (c->how != E2SR_COVER_GAP) {
		printf("%s: journal history covers transactions %u..%u (%s to "
		       "%s), back to %s\n", o->device, c->oldest, c->newest,
		       when(c->oldest_time, t1, sizeof(t1)),
		       when(c->newest_time, t2, sizeof(t2)),
		       c->how == E2SR_COVER_CREATION ?
		       "the journal's creation" : last);
		return;
	}
	if (c->have_from)
		printf("%s: journal history covers transactions %u..%u since "
		       "%s; deletions before that, since %s, cannot be "
		       "traced\n", o->device, c->oldest, c->newest,
		       when(c->oldest_time, t1, sizeof(t1)), last);
	else
		printf("%s: journal holds no transaction that can be read in "
		       "full; deletions since %s cannot be traced\n",
		       o->device, last);
	printf("%s: %s\n", o->device,
	       untraced_answer(ctx, ANSWER_PLANNED));
	if (!ctx->plan.answered)
		printf("%s: run e2secrm more often than the journal fills "
		       "(see e2secrm(7), How often to run)\n", o->device);
}
