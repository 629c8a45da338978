/*
 * report.c --- what e2secrm tells the user: errors through com_err, the
 * inventory with -v, the plan, and what was done.
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

/* A deleted or journal-only secure-delete file whose map is gone. */
int file_map_lost(const struct e2sr_file *f)
{
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
	if (f->map_status & E2SR_MAP_EMPTY)
		return "map_gone";
	if ((f->map_status & E2SR_MAP_DAMAGED) &&
	    (f->map_error == E2SR_ERR_MAP_UNPROVEN ||
	     f->map_error == E2SR_ERR_MAP_SHORT))
		return "map_incomplete";
	return "map_damaged";
}

/*
 * Without -v, what is said per inode is said once per kind: a count and
 * the first few inode numbers, so that a run on a filesystem of millions
 * of files prints a screenful, not a log (cron mails all of it).  -v and
 * the JSON report list every one.
 */
#define REPORT_FIRST	5

struct ino_list {
	size_t		n;
	ext2_ino_t	first[REPORT_FIRST];
};

static void ino_list_add(struct ino_list *l, ext2_ino_t ino)
{
	if (l->n < REPORT_FIRST)
		l->first[l->n] = ino;
	l->n++;
}

/* "(inode 12)", "(inodes 12, 13, 14, 15, 16 and 307 more)" */
static void print_ino_list(const struct ino_list *l)
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
	if (f->map_status & E2SR_MAP_REUSED)
		printf(" map-partly-reused");
	if (f->map_status & E2SR_MAP_DAMAGED)
		printf(" map-damaged(%s)", error_message(f->map_error));
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

enum answer_when { ANSWER_PLANNED, ANSWER_DONE, ANSWER_FAILED };

/*
 * What answers residue no history traces, said the same wherever it is
 * said: --all-free-if-lost wipes every place it may lie (plan.c).  A run
 * that failed or was cancelled answered nothing: the advice stands.
 */
static const char *untraced_answer(const struct e2sr_ctx *ctx,
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

/*
 * The lines of the plan or of what was done, from the table of kinds:
 * all free blocks and unwritten extents only when planned, free records
 * only when asked for.  Blocks say their bytes; a second count goes on
 * the line of the first.
 */
static void print_counts(const struct e2sr_ctx *ctx,
			 const struct run_counts *c, unsigned bs)
{
	const struct e2sr_kind_count *kc;
	int k;

	for (k = 0; k < E2SR_KIND_COUNT; k++) {
		if (!e2sr_kind_shown(ctx, k))
			continue;
		kc = e2sr_kinds[k]->count;
		printf("  %-24s %10" PRIu64 " %s", kc[0].label, c->n[k][0],
		       kc[0].unit);
		if (kc[1].key)
			printf(" %13" PRIu64 " %s", c->n[k][1], kc[1].unit);
		else if (!strcmp(kc[0].unit, "blocks"))
			printf(" %14" PRIu64 " bytes",
			       c->n[k][0] * (uint64_t)bs);
		putchar('\n');
	}
}

static const char *jwhy_name(unsigned int why)
{
	switch (why) {
	case E2SR_JWHY_RECORD:
		return "record";
	case E2SR_JWHY_MAP:
		return "map";
	case E2SR_JWHY_NAME:
		return "name";
	case E2SR_JWHY_FC:
		return "fast-commit";
	case E2SR_JWHY_DESC:
		return "descriptor";
	case E2SR_JWHY_ALL:
		return "all";
	case E2SR_JWHY_NAMEBYTES:
		return "name bytes";
	}
	return "?";
}

/* -v: the journal blocks planned for each inode, and why (at most 12). */
static void print_journal_plan(const struct e2sr_ctx *ctx,
			       const struct cmd_opts *o)
{
	const struct e2sr_plan *plan = &ctx->plan;
	ext2_ino_t last = 0;
	size_t i, j, n;

	for (i = 0; i < ctx->inv.count; i++) {
		ext2_ino_t ino = ctx->inv.files[i].ino;

		if (ino == last)
			continue;
		last = ino;
		for (j = n = 0; j < plan->journal_count; j++) {
			if (plan->journal[j].ino != ino)
				continue;
			if (!n)
				printf("%s: inode %u: journal blocks", o->device,
				       ino);
			if (n < 12)
				printf(" %u (%s)", plan->journal[j].jblock,
				       jwhy_name(plan->journal[j].why));
			n++;
		}
		if (n > 12)
			printf(" and %zu more", n - 12);
		if (n)
			printf("\n");
	}
	for (j = n = 0; j < plan->journal_count; j++)
		n += plan->journal[j].why == E2SR_JWHY_DESC;
	if (n)
		printf("%s: %zu descriptor blocks of those copies\n", o->device,
		       n);
	for (j = n = 0; j < plan->journal_count; j++)
		n += plan->journal[j].why == E2SR_JWHY_NAMEBYTES;
	if (n)
		printf("%s: %zu known names without an entry header in stale "
		       "journal blocks\n", o->device, n);
}

/* Whether a secure-delete file with inode number @ino is in use. */
static int owner_live(const struct e2sr_ctx *ctx, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < ctx->inv.count; i++)
		if (ctx->inv.files[i].ino == ino &&
		    ctx->inv.files[i].state == E2SR_STATE_LIVE)
			return 1;
	return 0;
}

/*
 * -v: the unwritten runs planned, by file and whose old bytes they hold:
 * logical and physical blocks (at most 12 runs a line).
 */
static void print_unwritten_plan(const struct e2sr_ctx *ctx,
				 const struct cmd_opts *o)
{
	const struct e2sr_plan *plan = &ctx->plan;
	size_t i, n = 0;

	for (i = 0; i < plan->unwritten_runs; i++) {
		const struct e2sr_unwritten *u = &plan->unwritten[i];

		if (!i || u->ino != plan->unwritten[i - 1].ino ||
		    u->residue_of != plan->unwritten[i - 1].residue_of) {
			if (n > 12)
				printf(" and %zu more", n - 12);
			printf("%s%s: inode %u: unwritten", i ? "\n" : "",
			       o->device, u->ino);
			if (u->residue_of && u->residue_of != u->ino)
				printf(" (old bytes of secure-delete inode %u)",
				       u->residue_of);
			else if (u->residue_of && !owner_live(ctx, u->ino))
				printf(" (old bytes of an earlier secure-delete "
				       "file with this inode number)");
			n = 0;
		}
		if (n++ < 12)
			printf(" logical %" PRIu64 "-%" PRIu64 " block %"
			       PRIu64 "-%" PRIu64 " (%u)", (uint64_t)u->lblk,
			       (uint64_t)u->lblk + u->len - 1,
			       (uint64_t)u->pblk,
			       (uint64_t)(u->pblk + u->len - 1), u->len);
	}
	if (n > 12)
		printf(" and %zu more", n - 12);
	printf("\n");
}

/* What a run left of questioned records, as words: @left, E2SR_LEFT_*. */
static void print_left(unsigned int left)
{
	static const struct {
		unsigned int	bit;
		const char	*what;
	} what[] = {
		{ E2SR_LEFT_FILE, "a secure-delete file, whole" },
		{ E2SR_LEFT_NAMES, "the removed names in it" },
		{ E2SR_LEFT_UNWRITTEN, "its unwritten extents" },
		{ E2SR_LEFT_RECORD, "its free record" },
		{ E2SR_LEFT_BLOCKS, "free blocks it may map" },
	};
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (left & what[i].bit)
			printf("%s%s", n++ ? ", " : "", what[i].what);
}

/*
 * The records left because their flags or maps contradict each other
 * (lib/find/sanity.c): one line per kind of contradiction, naming the first
 * few records and what of them was left; -v, one line per record.
 */
static void report_questioned(const struct e2sr_ctx *ctx,
			      const struct cmd_opts *o)
{
	const struct e2sr_inventory *inv = &ctx->inv;
	unsigned int left;
	size_t i, n, shown;
	int why;

	for (why = E2SR_Q_NONE + 1; why < E2SR_Q_COUNT; why++) {
		n = 0;
		for (i = 0; i < inv->question_count; i++)
			n += inv->questions[i].why == why &&
			     inv->questions[i].left;
		if (!n)
			continue;
		if (!o->verbose)
			printf("%s: inode%s", o->device, n > 1 ? "s" : "");
		left = 0;
		for (i = 0, shown = 0; i < inv->question_count; i++) {
			const struct e2sr_question_entry *q =
				&inv->questions[i];

			if (q->why != why || !q->left)
				continue;
			if (o->verbose) {
				printf("%s: inode %u: %s, as e2fsck would "
				       "question it: left for e2fsck (",
				       o->device, q->ino,
				       e2sr_question_text(why));
				print_left(q->left);
				printf("); run e2fsck -f, then e2secrm "
				       "again\n");
				continue;
			}
			if (shown < REPORT_FIRST)
				printf("%s %u", shown ? "," : "", q->ino);
			left |= q->left;
			shown++;
		}
		if (o->verbose)
			continue;
		if (n > REPORT_FIRST)
			printf(" and %zu more", n - REPORT_FIRST);
		printf(": %s, as e2fsck would question %s: left for e2fsck (",
		       e2sr_question_text(why), n > 1 ? "them" : "it");
		print_left(left);
		printf("); run e2fsck -f, then e2secrm again\n");
	}
}

/*
 * What the plan leaves of a secure-delete file, by kind, and what the
 * run cannot know of it: said per inode with -v, else once per kind.
 */
enum left_kind {
	LEFT_NONE = -1,
	LEFT_ORPHAN,		/* in use, no links */
	LEFT_UNCLEAR,		/* free in the bitmap, still linked */
	LEFT_EA_SHARED,		/* EA inode whose value others share */
	LEFT_MAP_GONE,		/* no map anywhere */
	LEFT_MAP_UNPROVEN,	/* fast commits that named part of it gone */
	LEFT_MAP_DAMAGED,	/* part of it unreadable or in use again */
	LEFT_KIND_COUNT
};

static enum left_kind left_kind_of(const struct e2sr_ctx *ctx,
				   const struct e2sr_file *f)
{
	/* Named with its kind of contradiction, by report_questioned(). */
	if (f->questioned)
		return LEFT_NONE;
	if (f->state == E2SR_STATE_ORPHAN)
		return LEFT_ORPHAN;
	if (f->state == E2SR_STATE_UNCLEAR)
		return LEFT_UNCLEAR;
	if (f->ea_owner && f->state == E2SR_STATE_LIVE &&
	    !owner_live(ctx, f->ea_owner))
		return LEFT_EA_SHARED;
	if ((f->state == E2SR_STATE_DELETED ||
	     f->state == E2SR_STATE_HISTORIC) &&
	    (f->map_status & E2SR_MAP_EMPTY))
		return LEFT_MAP_GONE;
	if (file_map_lost(f) && f->map_error == E2SR_ERR_MAP_UNPROVEN)
		return LEFT_MAP_UNPROVEN;
	if (file_map_lost(f))
		return LEFT_MAP_DAMAGED;
	return LEFT_NONE;
}

/* Why part of a map could not be read, as -v and the summary say it. */
static const char *map_damage(const struct e2sr_file *f)
{
	return (f->map_status & E2SR_MAP_DAMAGED) ?
	       error_message(f->map_error) : "tree blocks in use again";
}

/* -v: the file, one line, as it was said before summaries. */
static void print_left_file(const struct cmd_opts *o,
			    const struct e2sr_file *f, enum left_kind k)
{
	switch (k) {
	case LEFT_ORPHAN:
		printf("%s: inode %u is an orphan (in use, no links): left "
		       "for e2fsck; run e2secrm again after it\n", o->device,
		       f->ino);
		break;
	case LEFT_UNCLEAR:
		printf("%s: inode %u: the inode bitmap calls it free but it "
		       "is still linked: left alone; run e2fsck, then "
		       "e2secrm again\n", o->device, f->ino);
		break;
	case LEFT_EA_SHARED:
		printf("%s: inode %u: EA inode holding an xattr value of "
		       "inode %u, still in use by another file that shares "
		       "the value: left alone\n", o->device, f->ino,
		       f->ea_owner);
		break;
	case LEFT_MAP_GONE:
		printf("%s: inode %u: its block map is lost: not in its "
		       "record, nor in any journal copy still readable; data "
		       "blocks it had may remain in free space\n", o->device,
		       f->ino);
		break;
	case LEFT_MAP_UNPROVEN:
		printf("%s: inode %u: its block map may be incomplete: blocks "
		       "it had between two full commits were logged only by "
		       "fast commits gone since, and the bitmaps of that "
		       "transaction cannot be read; data blocks it had may "
		       "remain in free space\n", o->device, f->ino);
		break;
	case LEFT_MAP_DAMAGED:
		printf("%s: inode %u: part of its block map could not be read "
		       "(%s); data blocks under it may remain in free space\n",
		       o->device, f->ino, map_damage(f));
		break;
	default:
		break;
	}
}

/*
 * Each kind once: what it is, singular and plural, before the inode
 * numbers, and why and what comes of it, after them.
 */
static const struct {
	const char	*one, *many;
	const char	*why_one, *why_many;
} left_text[LEFT_KIND_COUNT] = {
	[LEFT_ORPHAN] = {
		"secure-delete inode is an orphan",
		"secure-delete inodes are orphans",
		"in use, no links: left for e2fsck; run e2secrm again after it",
		"in use, no links: left for e2fsck; run e2secrm again after "
		"it" },
	[LEFT_UNCLEAR] = {
		"secure-delete inode is free in the inode bitmap",
		"secure-delete inodes are free in the inode bitmap",
		"but still linked: left alone; run e2fsck, then e2secrm again",
		"but still linked: left alone; run e2fsck, then e2secrm "
		"again" },
	[LEFT_EA_SHARED] = {
		"EA inode holds an xattr value of a secure-delete file",
		"EA inodes hold xattr values of secure-delete files",
		"the value is still in use by another file that shares it: "
		"left alone",
		"the values are still in use by other files that share them: "
		"left alone" },
	[LEFT_MAP_GONE] = {
		"secure-delete file lost its block map",
		"secure-delete files lost their block maps",
		"not in its record, nor in any journal copy still readable",
		"not in their records, nor in any journal copy still "
		"readable" },
	[LEFT_MAP_UNPROVEN] = {
		"secure-delete file's block map may be incomplete",
		"secure-delete files' block maps may be incomplete",
		"blocks it had between two full commits were logged only by "
		"fast commits gone since, and the bitmaps of that transaction "
		"cannot be read",
		"blocks they had between two full commits were logged only by "
		"fast commits gone since, and the bitmaps of those "
		"transactions cannot be read" },
	[LEFT_MAP_DAMAGED] = {
		"secure-delete file lost part of its block map",
		"secure-delete files lost part of their block maps",
		"it could not be read",
		"those parts could not be read" },
};

/*
 * The files the plan leaves, or cannot wholly trace, by kind; and, once,
 * what answers the lost maps (data blocks may remain in free space).
 */
static void report_left_files(const struct e2sr_ctx *ctx,
			      const struct cmd_opts *o)
{
	struct ino_list l[LEFT_KIND_COUNT];
	const struct e2sr_file *damaged = NULL;
	int damage_varies = 0;
	size_t i, lost;
	enum left_kind k;

	memset(l, 0, sizeof(l));
	for (i = 0; i < ctx->inv.count; i++) {
		const struct e2sr_file *f = &ctx->inv.files[i];

		k = left_kind_of(ctx, f);
		if (k == LEFT_NONE)
			continue;
		if (o->verbose)
			print_left_file(o, f, k);
		ino_list_add(&l[k], f->ino);
		if (k != LEFT_MAP_DAMAGED)
			continue;
		if (!damaged)
			damaged = f;
		else if (strcmp(map_damage(f), map_damage(damaged)))
			damage_varies = 1;
	}
	for (k = 0; k < LEFT_KIND_COUNT && !o->verbose; k++) {
		int one = l[k].n == 1;

		if (!l[k].n)
			continue;
		printf("%s: %zu %s ", o->device, l[k].n,
		       one ? left_text[k].one : left_text[k].many);
		print_ino_list(&l[k]);
		printf(": %s", one ? left_text[k].why_one :
		       left_text[k].why_many);
		if (k == LEFT_MAP_DAMAGED && damage_varies)
			printf(" (for more than one reason: -v gives each)");
		else if (k == LEFT_MAP_DAMAGED)
			printf(" (%s)", map_damage(damaged));
		putchar('\n');
	}
	lost = l[LEFT_MAP_GONE].n + l[LEFT_MAP_UNPROVEN].n +
	       l[LEFT_MAP_DAMAGED].n;
	if (lost)
		printf("%s: data blocks %s had may remain in free space: %s\n",
		       o->device, lost == 1 ? "that file" : "those files",
		       untraced_answer(ctx, ANSWER_PLANNED));
}

void report_plan(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct e2sr_plan *plan = &ctx->plan;
	unsigned bs = ctx->fs->blocksize;
	struct run_counts c;

	report_left_files(ctx, o);
	report_questioned(ctx, o);
	if (plan->name_dirs_damaged)
		printf("%s: names in %zu damaged director%s were left\n",
		       o->device, plan->name_dirs_damaged,
		       plan->name_dirs_damaged == 1 ? "y" : "ies");

	/* Never "nothing" alone while something cannot be seen. */
	if (e2sr_plan_empty(ctx) && plan->untraced && !plan->answered) {
		printf("%s: nothing to wipe among what the journal can trace; "
		       "what it cannot may remain in free space "
		       "(--all-free-if-lost wipes it, --audit "
		       "--all-free-if-lost reads it)\n", o->device);
		return;
	}
	if (e2sr_plan_empty(ctx)) {
		printf("%s: nothing to wipe\n", o->device);
		return;
	}
	printf("%s: %s:\n", o->device, o->dry_run ? "would wipe" :
	       "to wipe");
	count_found(ctx, &c);
	print_counts(ctx, &c, bs);
	if (plan->journal_parts)
		printf("  %-24s %10zu blocks (other files' bytes kept)\n",
		       "  of them, in part", plan->journal_parts);
	if (plan->unseen_count)
		printf("  %-24s %10" PRIu64 " blocks (free where +s files "
		       "wrote between two full commits)\n",
		       "  of freed data, unmapped", (uint64_t)plan->unseen_count);
	if (o->verbose && plan->journal_count)
		print_journal_plan(ctx, o);
	if (o->verbose && plan->unwritten_runs)
		print_unwritten_plan(ctx, o);
	if (o->verbose)
		actions_print(o);
}

void report_done(struct e2sr_ctx *ctx, const struct cmd_opts *o,
		 errcode_t err)
{
	struct e2sr_stats *st = &ctx->stats;
	unsigned bs = ctx->fs ? ctx->fs->blocksize : 0;
	struct run_counts c;

	printf("%s: %s:\n", o->device, err ? "wiped before stopping" :
	       "wiped");
	count_wiped(ctx, &c);
	print_counts(ctx, &c, bs);
	if (ctx->opts.skip_zero)
		printf("%s: %" PRIu64 " blocks already zero were not "
		       "written (--skip-zero)\n", o->device,
		       (uint64_t)st->zero_skipped);
	if (ctx->opts.method == E2SR_METHOD_DISCARD ||
	    ctx->opts.method == E2SR_METHOD_SECDISCARD)
		printf("%s: %" PRIu64 " blocks discarded, %" PRIu64 " zeroed "
		       "by the device, %lu runs written as zeros (no "
		       "discard that reads back zeros)\n", o->device,
		       (uint64_t)st->discarded, (uint64_t)st->zeroed_out,
		       st->discard_fallback);
	if (ctx->opts.verify)
		printf("%s: verified %" PRIu64 " blocks read back: %s\n",
		       o->device, (uint64_t)st->verified,
		       st->verify_bad ? "MISMATCH" : "all as written");
	if (ctx->opts.method == E2SR_METHOD_SECDISCARD && st->secdiscard_fallback)
		printf("%s: secure discard unavailable for %lu runs (not a "
		       "block device, or not supported): discarded or zeroed instead\n",
		       o->device, st->secdiscard_fallback);
	if (err == E2SR_ERR_CANCELLED)
		printf("%s: cancelled at a safe point; run e2secrm again to "
		       "finish\n", o->device);
	if (ctx->plan.unrecoverable)
		printf("%s: %zu secure-delete file%s lost all or part of a block map: "
		       "%s\n", o->device, ctx->plan.unrecoverable,
		       ctx->plan.unrecoverable == 1 ? "" : "s",
		       untraced_answer(ctx, err ? ANSWER_FAILED :
					    ANSWER_DONE));
}
