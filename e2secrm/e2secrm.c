/*
 * e2secrm.c --- overwrite what is left of secure-delete files on an
 * unmounted ext2/ext3/ext4 filesystem.
 *
 * The command: the order of the engine's stages, the question before
 * the first write, signals and the exit status.  The options are
 * options.c's, what passes between runs handover.c's, what it prints
 * report.c's (preen.c's under -p, audit.c's under --audit), the files
 * it writes after a run json.c's, record.c's and metrics.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>

#include "e2secrm.h"
#include "cmd.h"
#ifdef E2SR_TEST_CUT
#include "cut_io.h"
#endif

const char *program_name = "e2secrm";

static volatile sig_atomic_t cancel_requested;

static void on_signal(int sig EXT2FS_ATTR((unused)))
{
	cancel_requested = 1;
}


/*
 * Ask before the first write, as e2fsck asks before a repair: -y and -p
 * answer for the user, and a run with neither and nobody at a terminal
 * was refused before it began (need_terminal()).
 */
static int confirm(const struct cmd_opts *o)
{
	char answer[16];

	if (o->yes || o->preen)
		return 1;
	printf("Overwrite the residues listed above on %s? (y,N) ",
	       o->device);
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return answer[0] == 'y' || answer[0] == 'Y';
}


/* Found and left, or not traceable and not answered: exit bit 4. */
static int left_over(const struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *p = &ctx->plan;

	return p->left || (p->untraced && !p->answered);
}

/*
 * Whether a run cut short (cancelled, or an error after the first wipe)
 * had written any residue away: exit bit 1 beside its 32 or 8.
 */
static int wrote_any(const struct e2sr_stats *st)
{
	int k;

	for (k = 0; k < E2SR_KIND_COUNT; k++)
		if (st->wiped[k][0])
			return 1;
	return 0;
}

/*
 * --audit: the plan's places read instead of written, and counted.  Exit
 * 0 when the scope holds nothing but zeros and nothing is left that the
 * scope cannot see (a lost map, deletions the journal cannot trace: the
 * report says what answers them); 4 otherwise.
 */
static int audit(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	errcode_t err;
	int status = 0;

	err = e2sr_audit(ctx);
	if (err) {
		report_error(ctx, err, "while auditing", o->device);
		return E2SR_EXIT_ERROR;
	}
	report_audit(ctx, o);
	/* Blocks it could not judge (-m random) are not proven wiped. */
	if (e2sr_audit_unwiped(ctx) || left_over(ctx) ||
	    ctx->stats.audit_random)
		status |= E2SR_EXIT_LEFT;
	return status;
}

static int run(struct cmd_opts *o)
{
	struct e2sr_ctx *ctx;
	const char *stage;
	errcode_t err;
	int status = E2SR_EXIT_OK;
	int flags = 0;

	err = e2sr_ctx_new(&ctx);
	if (err) {
		com_err(program_name, err, "while starting");
		return E2SR_EXIT_ERROR;
	}
	ctx->hooks.cancel = &cancel_requested;
	ctx->opts.method = o->method;
	ctx->opts.ext_journal = o->ext_journal;
	ctx->opts.sanitize = o->sanitize;
	/* An audit reads what --verify would read after a run. */
	ctx->opts.verify = o->verify || o->audit;
	ctx->opts.skip_zero = o->skip_zero;
#ifdef E2SR_TEST_CUT
	/* tests/e2secrm-cut only: the power goes after the k-th write. */
	ctx->opts.io_manager = cut_io_setup();
#endif
	progress_setup(ctx, o);

	if (o->dry_run)
		flags |= E2SR_OPEN_RDONLY;
	if (o->force)
		flags |= E2SR_OPEN_FORCE;
	if (o->journal_map)
		flags |= E2SR_OPEN_LISTING;
	err = e2sr_open(ctx, o->device, flags);
	json_mark(JSON_OPENED, err ? NULL : ctx);
	if (err) {
		report_error(ctx, err, "while opening", o->device);
		goto fail;
	}
	if (!o->preen) {
		report_recovery(ctx, o);
		report_orphans(ctx, o);
	}
	if (o->journal_map) {
		status = journal_map(ctx, o);
		goto out;
	}
	handover_load(ctx, o);
	stage = "while scanning";
	err = e2sr_inventory_scan(ctx);
	if (!err) {
		stage = "while planning";
		err = e2sr_plan_build(ctx);
	}
	json_mark(JSON_SCANNED, ctx);
	progress_done(ctx);
	if (err == E2SR_ERR_CANCELLED) {
		/* -p: preen_summary() says it on stderr. */
		if (!o->preen)
			printf("%s: cancelled %s; nothing written\n",
			       o->device, stage);
		status |= E2SR_EXIT_CANCELLED;
		goto out;
	}
	if (err) {
		report_error(ctx, err, stage, o->device);
		goto fail;
	}
	/* What the writers would refuse, refused before anything is written. */
	err = e2sr_execute_check(ctx);
	if (err) {
		report_error(ctx, err, "while checking the plan", o->device);
		goto fail;
	}
	/* The plan as -v and --json-plan list it, and what is written. */
	if (o->verbose || o->json_plan)
		actions_take(ctx);
	if (!o->preen) {
		report_inventory(ctx, o);
		report_coverage(ctx, o);
		run_kind_report(ctx, o);
	}
	if (o->audit) {
		status = audit(ctx, o);
		goto out;
	}

	if (e2sr_plan_empty(ctx) &&
	    ctx->replay.how != E2SR_RECOVERY_VIEW &&
	    ctx->orphans.how != E2SR_RECOVERY_VIEW) {
		if (left_over(ctx))
			status |= E2SR_EXIT_LEFT;
		if (!o->preen)
			report_plan(ctx, o);
		goto out;
	}
	if (!o->preen)
		report_plan(ctx, o);
	if (o->dry_run) {
		if (!e2sr_plan_empty(ctx) || left_over(ctx))
			status |= E2SR_EXIT_LEFT;
		goto out;
	}
	if (!e2sr_plan_empty(ctx) && !confirm(o)) {
		printf("%s: nothing written.\n", o->device);
		status |= E2SR_EXIT_LEFT | E2SR_EXIT_CANCELLED;
		goto out;
	}
#ifdef E2SR_TEST_CUT
	/* Every check has passed: from here on the run may write. */
	cut_io_allow_writes();
#endif
	handover_save_intent(ctx, o);
	record_writing();
	err = e2sr_begin_write(ctx);
	if (err) {
		report_error(ctx, err,
			     ctx->replay.how == E2SR_RECOVERY_NONE &&
			     !ctx->orphans.n ? "while reopening read-write" :
			     ctx->replay.how == E2SR_RECOVERY_NONE ?
			     "while releasing orphan inodes" :
			     "while recovering the journal", o->device);
		goto fail;
	}
	if (!o->preen)
		report_replayed(ctx, o);
	if (e2sr_plan_empty(ctx)) {
		/* The filesystem as this run leaves it, for the next. */
		e2sr_since_capture_fs(ctx);
		err = e2sr_close(ctx);
		if (err) {
			report_error(ctx, err, "while flushing", o->device);
			goto fail;
		}
		if (left_over(ctx))
			status |= E2SR_EXIT_LEFT;
		goto out;
	}
	handover_save_state(ctx, o, 1);
	err = e2sr_execute(ctx);
	json_mark(JSON_WIPED, ctx);
	progress_done(ctx);
	if (!o->preen)
		report_done(ctx, o, err);
	if (err == E2SR_ERR_CANCELLED) {
		status |= E2SR_EXIT_CANCELLED | E2SR_EXIT_LEFT;
		if (wrote_any(&ctx->stats))
			status |= E2SR_EXIT_WIPED;
		e2sr_close(ctx);
		goto out;
	}
	if (err) {
		report_error(ctx, err, "while wiping", o->device);
		e2sr_close(ctx);
		goto fail;
	}
	/* What it wrote of the log, read back for the next run's facts. */
	err = e2sr_settle(ctx);
	if (err) {
		report_error(ctx, err, "while reading back the journal",
			     o->device);
		e2sr_close(ctx);
		goto fail;
	}
	e2sr_since_capture_fs(ctx);
	err = e2sr_close(ctx);
	if (err) {
		report_error(ctx, err, "while flushing", o->device);
		goto fail;
	}
	status |= E2SR_EXIT_WIPED;
	if (left_over(ctx))
		status |= E2SR_EXIT_LEFT;
out:
	if (o->preen)
		preen_summary(ctx, o, status);
	else
		report_retried(o);
	if (!(status & (E2SR_EXIT_ERROR | E2SR_EXIT_CANCELLED))) {
		o->left = !!(status & E2SR_EXIT_LEFT);
		handover_save_state(ctx, o, 0);
		handover_clear_intent(o);
	}
	/* No record asked for is no record written: exit bit 8. */
	if (record_write(ctx, o, status, 0, NULL))
		status |= E2SR_EXIT_ERROR;
	json_write(ctx, o, status, 0);
	metrics_write(ctx, o, status);
	actions_free();
	e2sr_ctx_free(ctx);
	return status;
fail:
	status |= E2SR_EXIT_ERROR;
	if (wrote_any(&ctx->stats))
		status |= E2SR_EXIT_WIPED;
	if (o->preen)
		preen_summary(ctx, o, status);
	else
		report_retried(o);
	record_write(ctx, o, status, err, NULL);
	json_write(ctx, o, status, err);
	metrics_write(ctx, o, status);
	actions_free();
	e2sr_ctx_free(ctx);
	return status;
}

/*
 * A run that may write, with nobody to answer its question: refused, as
 * e2fsck refuses interactive repairs without a terminal, so that a script
 * that forgot -n never wipes.
 */
static int need_terminal(const struct cmd_opts *o)
{
	return !o->dry_run && !o->yes && !o->preen && !isatty(0);
}

int main(int argc, char **argv)
{
	static struct cmd_state state;
	struct cmd_opts opts;
	struct sigaction sa;

	if (argc && argv[0] && *argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		program_name = slash ? slash + 1 : argv[0];
	}
	options_parse(argc, argv, &opts);
	record_command_line(argc, argv);
	opts.state = &state;
	/*
	 * The report line by line, so that a log shows how far a run got;
	 * a journal listing into a pipe, a line per copy, goes in blocks.
	 */
	if (!opts.journal_map || isatty(1))
		setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * The metrics say every run, a refusal too: their file is checked
	 * first, and a file that cannot be written is the only refusal they
	 * do not say.
	 */
	if (opts.metrics && metrics_open(opts.metrics))
		exit(E2SR_EXIT_ERROR);
	/* Before anything else is opened: no file is left for a refused run. */
	if (need_terminal(&opts)) {
		com_err(program_name, 0, "%s: need a terminal to ask before "
			"writing: give -y or -p to wipe without asking, or -n "
			"to see what would be wiped", opts.device);
		metrics_write(NULL, &opts, E2SR_EXIT_ERROR);
		exit(E2SR_EXIT_ERROR);
	}
	/* The files are checked before the device is touched. */
	if (opts.record && record_open(opts.record, opts.device, opts.json)) {
		metrics_write(NULL, &opts, E2SR_EXIT_ERROR);
		exit(E2SR_EXIT_ERROR);
	}
	if (opts.json && json_open(opts.json)) {
		char why[PATH_MAX + 64];
		int saved = errno;

		com_err(program_name, saved, "while opening the report %s",
			opts.json);
		snprintf(why, sizeof(why), "the report %s could not be "
			 "opened: %s", opts.json, strerror(saved));
		record_write(NULL, &opts, E2SR_EXIT_ERROR, 0, why);
		metrics_write(NULL, &opts, E2SR_EXIT_ERROR);
		exit(E2SR_EXIT_ERROR);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	return run(&opts);
}
