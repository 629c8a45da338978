/*
 * e2secrm.c --- overwrite what is left of secure-delete files on an
 * unmounted ext2/ext3/ext4 filesystem.
 *
 * The command: options, the order of the engine's stages, questions,
 * signals and the exit status.  What it prints is in report.c.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <et/com_err.h>
#include <e2p/e2p.h>

#include "e2secrm.h"
#include "cmd.h"
#ifdef E2SR_TEST_CUT
#include "cut_io.h"
#endif

const char *program_name = "e2secrm";

/* Where what each run saw is kept, one file per filesystem UUID. */
#define E2SR_STATE_DIR		"/var/lib/e2secrm"

static volatile sig_atomic_t cancel_requested;

static void on_signal(int sig EXT2FS_ATTR((unused)))
{
	cancel_requested = 1;
}

static void usage_to(FILE *f, int status)
{
	fprintf(f,
		"Usage: %s [-n|-p|-y] [-fvV] [-C fd] [-j journal] [-m method] "
		"device\n"
		"\t-n\t\tdry run: open read-only, report, write nothing\n"
		"\t-p\t\tpreen: wipe without questions, one line (cron)\n"
		"\t-y\t\tassume yes to all questions\n"
		"\t-f\t\tproceed on a filesystem that is not clean\n"
		"\t-v\t\tdetail per secure-delete inode\n"
		"\t-C fd\t\twrite progress to file descriptor fd\n"
		"\t-j journal\tthe filesystem's external journal device\n"
		"\t-m method\tzero (default), random, discard or secdiscard\n"
		"\t--journal-map\tlist every journal copy and what it is "
		"(implies -n)\n"
		"\t--all-free\twipe every free block as well\n"
		"\t--all-free-if-lost\tthe same, only when a secure-delete "
		"file's map is gone\n"
		"\t--all-journal\twipe every journal block but its "
		"superblock\n"
		"\t--dir-slack\twipe every removed name in every directory\n"
		"\t--free-inodes\tscrub every free inode record\n"
		"\t--sanitize\tall of the above but --all-free-if-lost, "
		"for disposal\n"
		"\t--skip-zero\tread first, write only blocks not already "
		"zero\n"
		"\t--json FILE\twrite a JSON report to FILE (- for stdout)\n"
		"\t--json-plan\tlist every action planned and written in "
		"it\n"
		"\t--record FILE\twrite a sanitisation record to FILE (text) "
		"and FILE.json\n"
		"\t--record-field KEY=VALUE\n"
		"\t\t\ta field of the record a person fills: name, "
		"title,\n"
		"\t\t\torganization, location, contact, media-source, "
		"destination,\n"
		"\t\t\tconfidentiality-before, confidentiality-after\n"
		"\t--verify\tread back every wiped block\n"
		"\t--state-dir DIR\twhere what each run saw is kept "
		"(default " E2SR_STATE_DIR ")\n"
		"\t--no-state\tneither read nor write it\n"
		"\t--audit\t\tread the scope, count what is not wiped "
		"(read-only)\n"
		"\t-V\t\tprint version and exit\n"
		"-n, -p and -y exclude each other; --journal-map takes none of "
		"them\nnor any option that says how or what to write; "
		"--verify needs a run that writes.\n"
		"Without -y or -p and with no terminal to ask, nothing is "
		"written (exit 8).\n",
		program_name);
	exit(status);
}

static void usage(void)
{
	usage_to(stderr, E2SR_EXIT_USAGE);
}

static void show_version(void)
{
	const char *lib_ver, *lib_date;

	ext2fs_get_library_version(&lib_ver, &lib_date);
	fprintf(stderr, "e2secrm %s (%s)\n", E2SR_VERSION, E2SR_DATE);
	fprintf(stderr, "\tUsing EXT2FS Library version %s, %s\n",
		lib_ver, lib_date);
	exit(E2SR_EXIT_OK);
}

static int parse_method(const char *arg, enum e2sr_method *method)
{
	if (!strcmp(arg, "zero"))
		*method = E2SR_METHOD_ZERO;
	else if (!strcmp(arg, "random"))
		*method = E2SR_METHOD_RANDOM;
	else if (!strcmp(arg, "discard"))
		*method = E2SR_METHOD_DISCARD;
	else if (!strcmp(arg, "secdiscard"))
		*method = E2SR_METHOD_SECDISCARD;
	else
		return -1;
	return 0;
}

/* Each option that can contradict another, as a bit of parse_args()'s. */
enum {
	OPT_N		= 1 << 0,
	OPT_Y		= 1 << 1,
	OPT_P		= 1 << 2,
	OPT_STATE_DIR	= 1 << 3,
	OPT_NO_STATE	= 1 << 4,
	OPT_JOURNAL_MAP	= 1 << 5,
	OPT_VERIFY	= 1 << 6,
	OPT_ALL_FREE	= 1 << 7,
	OPT_IF_LOST	= 1 << 8,
	OPT_ALL_JOURNAL	= 1 << 9,
	OPT_DIR_SLACK	= 1 << 10,
	OPT_FREE_INODES	= 1 << 11,
	OPT_SANITIZE	= 1 << 12,
	OPT_SKIP_ZERO	= 1 << 13,
	OPT_METHOD	= 1 << 14,
	OPT_AUDIT	= 1 << 15,
};

/*
 * Pairs that say two different things, refused before the device is
 * touched (exit 16), as e2fsck refuses -n with -y.  A listing never
 * writes, so every option that says how to write contradicts it.
 */
static const struct {
	int		a, b;
	const char	*a_name, *b_name;
} conflicts[] = {
	{ OPT_N, OPT_Y,			"-n", "-y" },
	{ OPT_N, OPT_P,			"-n", "-p" },
	{ OPT_P, OPT_Y,			"-p", "-y" },
	{ OPT_STATE_DIR, OPT_NO_STATE,	"--state-dir", "--no-state" },
	{ OPT_VERIFY, OPT_N,		"--verify", "-n" },
	{ OPT_ALL_FREE, OPT_IF_LOST,	"--all-free", "--all-free-if-lost" },
	{ OPT_SANITIZE, OPT_IF_LOST,	"--sanitize", "--all-free-if-lost" },
	{ OPT_JOURNAL_MAP, OPT_Y,	"--journal-map", "-y" },
	{ OPT_JOURNAL_MAP, OPT_P,	"--journal-map", "-p" },
	{ OPT_JOURNAL_MAP, OPT_VERIFY,	"--journal-map", "--verify" },
	{ OPT_JOURNAL_MAP, OPT_ALL_FREE, "--journal-map", "--all-free" },
	{ OPT_JOURNAL_MAP, OPT_IF_LOST,	"--journal-map", "--all-free-if-lost" },
	{ OPT_JOURNAL_MAP, OPT_ALL_JOURNAL, "--journal-map", "--all-journal" },
	{ OPT_JOURNAL_MAP, OPT_DIR_SLACK, "--journal-map", "--dir-slack" },
	{ OPT_JOURNAL_MAP, OPT_FREE_INODES, "--journal-map", "--free-inodes" },
	{ OPT_JOURNAL_MAP, OPT_SANITIZE, "--journal-map", "--sanitize" },
	{ OPT_JOURNAL_MAP, OPT_SKIP_ZERO, "--journal-map", "--skip-zero" },
	{ OPT_JOURNAL_MAP, OPT_METHOD,	"--journal-map", "-m" },
	{ OPT_AUDIT, OPT_Y,		"--audit", "-y" },
	{ OPT_AUDIT, OPT_P,		"--audit", "-p" },
	{ OPT_AUDIT, OPT_VERIFY,	"--audit", "--verify" },
	{ OPT_AUDIT, OPT_SKIP_ZERO,	"--audit", "--skip-zero" },
	{ OPT_AUDIT, OPT_JOURNAL_MAP,	"--audit", "--journal-map" },
};

static void refuse_conflicts(int given)
{
	size_t i;

	for (i = 0; i < sizeof(conflicts) / sizeof(conflicts[0]); i++) {
		if ((given & conflicts[i].a) && (given & conflicts[i].b)) {
			com_err(program_name, 0, "%s and %s cannot be given "
				"together", conflicts[i].a_name,
				conflicts[i].b_name);
			usage();
		}
	}
}

static void parse_args(int argc, char **argv, struct cmd_opts *o)
{
	static const struct option longopts[] = {
		{ "method",	required_argument,	NULL, 'm' },
		{ "journal-map", no_argument,		NULL, 'J' },
		{ "all-free",	no_argument,		NULL, 'F' },
		{ "all-free-if-lost", no_argument,	NULL, 'L' },
		{ "all-journal", no_argument,		NULL, 'A' },
		{ "dir-slack",	no_argument,		NULL, 'D' },
		{ "free-inodes", no_argument,		NULL, 'I' },
		{ "sanitize",	no_argument,		NULL, 'S' },
		{ "skip-zero",	no_argument,		NULL, 'Z' },
		{ "json",	required_argument,	NULL, 'O' },
		{ "json-plan",	no_argument,		NULL, 'T' },
		{ "record",	required_argument,	NULL, 'R' },
		{ "record-field", required_argument,	NULL, 'K' },
		{ "verify",	no_argument,		NULL, 'W' },
		{ "state-dir",	required_argument,	NULL, 'P' },
		{ "no-state",	no_argument,		NULL, 'X' },
		{ "audit",	no_argument,		NULL, 'U' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c, given = 0;

	memset(o, 0, sizeof(*o));
	o->progress_fd = -1;
	while ((c = getopt_long(argc, argv, "nfvypC:j:m:Vh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			o->dry_run = 1;
			given |= OPT_N;
			break;
		case 'p':
			o->preen = 1;
			given |= OPT_P;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'y':
			o->yes = 1;
			given |= OPT_Y;
			break;
		case 'C':
			errno = 0;
			o->progress_fd = strtol(optarg, &end, 0);
			if (errno || *end || o->progress_fd < 0) {
				com_err(program_name, 0,
					"invalid progress file descriptor: %s",
					optarg);
				usage();
			}
			/* As e2fsck: a descriptor that is not open is an error. */
			if (fcntl(o->progress_fd, F_GETFD) < 0) {
				com_err(program_name, errno, "while checking "
					"progress file descriptor %s",
					optarg);
				usage();
			}
			break;
		case 'j':
			o->ext_journal = optarg;
			break;
		case 'F':
			given |= OPT_ALL_FREE;
			o->sanitize |= E2SR_FREE_ALL;
			break;
		case 'L':
			given |= OPT_IF_LOST;
			o->sanitize |= E2SR_FREE_IF_LOST;
			break;
		case 'A':
			given |= OPT_ALL_JOURNAL;
			o->sanitize |= E2SR_FREE_JOURNAL;
			break;
		case 'D':
			given |= OPT_DIR_SLACK;
			o->sanitize |= E2SR_FREE_DIRSLACK;
			break;
		case 'I':
			given |= OPT_FREE_INODES;
			o->sanitize |= E2SR_FREE_INODES;
			break;
		case 'S':
			given |= OPT_SANITIZE;
			o->sanitize |= E2SR_SANITIZE;
			break;
		case 'Z':
			given |= OPT_SKIP_ZERO;
			o->skip_zero = 1;
			break;
		case 'O':
			o->json = optarg;
			break;
		case 'T':
			o->json_plan = 1;
			break;
		case 'R':
			if (!*optarg) {
				com_err(program_name, 0,
					"--record needs a file name");
				usage();
			}
			o->record = optarg;
			break;
		case 'K':
			if (record_field(optarg))
				usage();
			break;
		case 'W':
			given |= OPT_VERIFY;
			o->verify = 1;
			break;
		case 'P':
			if (!*optarg) {
				com_err(program_name, 0,
					"--state-dir needs a directory");
				usage();
			}
			o->state_dir = optarg;
			given |= OPT_STATE_DIR;
			break;
		case 'U':
			given |= OPT_AUDIT;
			o->audit = 1;
			o->dry_run = 1;	/* an audit never writes */
			break;
		case 'X':
			given |= OPT_NO_STATE;
			o->no_state = 1;
			break;
		case 'J':
			given |= OPT_JOURNAL_MAP;
			o->journal_map = 1;
			o->dry_run = 1;	/* a listing never writes */
			break;
		case 'm':
			given |= OPT_METHOD;
			if (parse_method(optarg, &o->method)) {
				com_err(program_name, 0,
					"unknown wipe method: %s", optarg);
				usage();
			}
			break;
		case 'V':
			show_version();
			break;
		case 'h':
			usage_to(stdout, E2SR_EXIT_OK);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	refuse_conflicts(given);
	if (o->json_plan && !o->json) {
		fprintf(stderr, "%s: --json-plan needs --json FILE\n",
			program_name);
		usage();
	}
	o->device = argv[optind];
	if (!o->state_dir) {
		const char *env = getenv("E2SECRM_STATE_DIR");

		o->state_dir = env && *env ? env : E2SR_STATE_DIR;
	}
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

/*
 * The lives a run cut before its end had proved secure-delete (its
 * intent file): this run takes them for such files as surely.  A file
 * that cannot be used is reported and taken as none.
 */
static void load_intent(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;
	struct e2sr_life *lives;
	size_t n;
	errcode_t err;

	intent_read(o->state_dir, st->uuid, &lives, &n, st);
	if (st->intent == STATE_BAD) {
		com_err(program_name, 0, "%s: intent file %s: %s; taken as "
			"none", o->device, st->intent_path, st->why);
		return;
	}
	if (st->intent != STATE_READ)
		return;
	err = e2sr_intent_set(ctx, lives, n);
	ext2fs_free_mem(&lives);
	if (err) {
		com_err(program_name, err, "%s: while reading intent file %s; "
			"taken as none", o->device, st->intent_path);
		return;
	}
	if (n && !o->preen)
		printf("%s: an interrupted run proved %zu secure-delete "
		       "%s (%s): taken as proven\n", o->device, n,
		       n == 1 ? "life" : "lives", st->intent_path);
}

/*
 * Before the first write: the lives this run wipes, saved and synced,
 * so that a run after a cut anywhere from here on still knows them
 * when what proved them is gone (DESIGN.md, rule 2).  Without it the
 * run goes on, and says that a cut may leave what a re-run cannot trace.
 */
static void save_intent(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;
	struct e2sr_life *lives;
	size_t n;
	errcode_t err;

	if (st->intent == STATE_OFF)
		return;
	err = e2sr_intent_lives(ctx, &lives, &n);
	if (err) {
		com_err(program_name, err, "warning: %s: while listing the "
			"lives to save in %s: a run cut from here on may leave "
			"what the next run cannot trace", o->device,
			st->intent_path);
		return;
	}
	if (n && intent_write(o->state_dir, st->uuid, lives, n, st))
		com_err(program_name, 0, "warning: %s: intent file %s not "
			"written (%s): a run cut from here on may leave what "
			"the next run cannot trace", o->device,
			st->intent_path, st->why);
	ext2fs_free_mem(&lives);
}

/* The run has ended as planned: its intent, and any before it, is done. */
static void clear_intent(const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;

	if (st->intent == STATE_OFF || o->dry_run)
		return;
	if (intent_clear(o->state_dir, st->uuid, st))
		com_err(program_name, 0, "warning: %s: intent file %s not "
			"removed (%s)", o->device, st->intent_path, st->why);
}

/*
 * What the previous run saw, before anything is decided: -n reads it
 * too, so that it says what -y would.  A file that cannot be used is
 * reported and taken as no previous run, not a refusal.
 */
static void load_state(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct cmd_state *st = o->state;
	struct e2sr_cover_prev prev;

	st->read = STATE_OFF;
	st->intent = STATE_OFF;
	if (o->no_state)
		return;
	snprintf(st->uuid, sizeof(st->uuid), "%s",
		 e2p_uuid2str(ctx->fs->super->s_uuid));
	load_intent(ctx, o);
	/* A journal on another device not given: nothing to count on. */
	if (!ctx->journal && ext2fs_has_feature_journal(ctx->fs->super))
		return;
	state_read(o->state_dir, st->uuid, &prev, st);
	/*
	 * Written when the filesystem had no journal (sequence 0, which
	 * jbd2 never uses): no point in this journal's history.  The gap
	 * this leaves covers the losses it may have carried.
	 */
	if (st->read == STATE_READ && ctx->journal && !prev.sequence) {
		com_err(program_name, 0, "%s: state file %s was written when "
			"the filesystem had no journal; taken as no previous "
			"run", o->device, st->path);
		st->read = STATE_NONE;
	}
	if (st->read == STATE_READ) {
		ctx->coverage.have_prev = 1;
		ctx->coverage.prev = prev;
	} else if (st->read == STATE_BAD) {
		com_err(program_name, 0, "%s: state file %s: %s; taken as no "
			"previous run", o->device, st->path, st->why);
	}
}

/*
 * What this run saw, for the next one: the next run counts everything
 * up to it as handled.  So never after a gap or a lost map no one
 * answered, and, when the wipe of every place they may lie answers them
 * (plan->answered), only once it is done (@early 0, at the end of a run
 * that wrote what it planned).  Unanswered, they are carried: the
 * previous run's state is written again with the losses counted (this
 * run wiped the records and copies that showed them, so the state is
 * the only trace left for the next run to report); with no previous
 * state the next run sees a gap anyway, but for a filesystem without a
 * journal, where the count is the only trace and a state is always
 * written.  With nothing to answer the state is written before the wipe
 * too (@early 1): a run cut in its journal wipe has wiped the blocks
 * first, and the re-run must not take the copies it wiped for maps lost
 * to the ring.  A failure is a warning: this run's work is done.
 */
static void save_state(struct e2sr_ctx *ctx, const struct cmd_opts *o,
		       int early)
{
	struct cmd_state *st = o->state;
	enum e2sr_cover_how how = ctx->coverage.how;
	int nojournal = !ctx->plan.has_journal;
	int complete = how == E2SR_COVER_CREATION ||
		       how == E2SR_COVER_PREVIOUS || nojournal;
	__u32 pending = e2sr_coverage_pending(ctx);
	int open = !complete || ctx->plan.unrecoverable || pending;
	struct e2sr_cover_prev now;

	if (st->read == STATE_OFF || o->dry_run)
		return;
	if (early && open)
		return;
	if (open && !ctx->plan.answered) {
		if (nojournal) {
			/* No history: the count is all a state holds. */
			e2sr_coverage_next(ctx, &now);
			now.run_time = (__u64)time(NULL);
		} else if (!ctx->coverage.have_prev ||
			   ctx->coverage.prev_mismatch) {
			return;
		} else {
			now = ctx->coverage.prev;
		}
		now.unanswered = pending + (__u32)ctx->plan.unrecoverable +
				 !complete;
	} else {
		e2sr_coverage_next(ctx, &now);
		now.run_time = (__u64)time(NULL);
	}
	if (state_write(o->state_dir, st->uuid, &now, st))
		com_err(program_name, 0, "warning: %s: state file %s not "
			"written (%s): the next run cannot count on this one",
			o->device, st->path, st->why);
}

/* Found and left, or not traceable and not answered: exit bit 4. */
static int left_over(const struct e2sr_ctx *ctx)
{
	const struct e2sr_plan *p = &ctx->plan;

	return p->left || (p->untraced && !p->answered);
}

/* Whether a cancelled run had written any residue away: exit bit 1. */
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
	load_state(ctx, o);
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
	save_intent(ctx, o);
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
		err = e2sr_close(ctx);
		if (err) {
			report_error(ctx, err, "while flushing", o->device);
			goto fail;
		}
		if (left_over(ctx))
			status |= E2SR_EXIT_LEFT;
		goto out;
	}
	save_state(ctx, o, 1);
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
		save_state(ctx, o, 0);
		clear_intent(o);
	}
	/* No record asked for is no record written: exit bit 8. */
	if (record_write(ctx, o, status, 0, NULL))
		status |= E2SR_EXIT_ERROR;
	json_write(ctx, o, status, 0);
	actions_free();
	e2sr_ctx_free(ctx);
	return status;
fail:
	status |= E2SR_EXIT_ERROR;
	if (o->preen)
		preen_summary(ctx, o, status);
	else
		report_retried(o);
	record_write(ctx, o, status, err, NULL);
	json_write(ctx, o, status, err);
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
	parse_args(argc, argv, &opts);
	record_command_line(argc, argv);
	opts.state = &state;
	/*
	 * The report line by line, so that a log shows how far a run got;
	 * a journal listing into a pipe, a line per copy, goes in blocks.
	 */
	if (!opts.journal_map || isatty(1))
		setvbuf(stdout, NULL, _IOLBF, 0);
	/* Before anything is opened: no file is left for a refused run. */
	if (need_terminal(&opts)) {
		com_err(program_name, 0, "%s: need a terminal to ask before "
			"writing: give -y or -p to wipe without asking, or -n "
			"to see what would be wiped", opts.device);
		exit(E2SR_EXIT_ERROR);
	}
	/* Both files are checked before the device is touched. */
	if (opts.record && record_open(opts.record, opts.device, opts.json))
		exit(E2SR_EXIT_ERROR);
	if (opts.json && json_open(opts.json)) {
		char why[PATH_MAX + 64];
		int saved = errno;

		com_err(program_name, saved, "while opening the report %s",
			opts.json);
		snprintf(why, sizeof(why), "the report %s could not be "
			 "opened: %s", opts.json, strerror(saved));
		record_write(NULL, &opts, E2SR_EXIT_ERROR, 0, why);
		exit(E2SR_EXIT_ERROR);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	return run(&opts);
}
