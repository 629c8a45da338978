/*
 * report_plan.c --- what e2secrm tells the user of the plan and of what
 * was done: the counts by kind, the journal's and unwritten extents'
 * plans with -v, the records e2fsck would question, and what is left of
 * each secure-delete file and why.
 *
 * What was found is report.c's; the counts themselves are counts.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <inttypes.h>
#include <string.h>

#include "cmd.h"
#include "report.h"

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
	LEFT_LIVE_UNPROVEN,	/* in use, a window unaccounted for */
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
	if (f->state == E2SR_STATE_LIVE && file_map_lost(f))
		return LEFT_LIVE_UNPROVEN;
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
	case LEFT_LIVE_UNPROVEN:
		printf("%s: inode %u (in use): blocks %s between two full "
		       "commits were logged only by fast commits gone since, "
		       "and the bitmaps of that transaction cannot be read; "
		       "data blocks may remain in free space\n", o->device,
		       f->ino, LINUX_S_ISDIR(f->mode) ?
		       "a file made in this directory may have had" :
		       "it may have had and given back");
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
	[LEFT_LIVE_UNPROVEN] = {
		"secure-delete file in use may have had blocks no map shows",
		"secure-delete files in use may have had blocks no map shows",
		"blocks it (a directory: a file made in it) had between two "
		"full commits were logged only by fast commits gone since, "
		"and the bitmaps of that transaction cannot be read",
		"blocks they (directories: files made in them) had between "
		"two full commits were logged only by fast commits gone "
		"since, and the bitmaps of those transactions cannot be "
		"read" },
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
	       l[LEFT_MAP_DAMAGED].n + l[LEFT_LIVE_UNPROVEN].n;
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
