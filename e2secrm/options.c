/*
 * options.c --- the command line, as e2fsck reads its own.
 *
 * Owns the usage message, the options and what each sets in struct
 * cmd_opts, and the pairs of options that contradict each other (a
 * table, refused with exit 16 before the device is touched).  What a run
 * does with them is e2secrm.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2secrm.h"
#include "cmd.h"

/* Where what each run saw is kept, one file per filesystem UUID. */
#define E2SR_STATE_DIR		"/var/lib/e2secrm"

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
		"\t--metrics FILE\twrite the run's Prometheus metrics to "
		"FILE\n"
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
		"\t--full\t\tscan everything, even when the last run's "
		"state\n\t\t\tproves what changed since\n"
		"\t--full-days N\tscan everything when the last full scan "
		"is N days old\n\t\t\t(default $E2SECRM_FULL_DAYS, or "
		"30; 0: always)\n"
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

/* A number of days for --full-days or E2SECRM_FULL_DAYS: 0, or -1. */
static int parse_days(const char *s, unsigned int *days)
{
	unsigned long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > FULL_DAYS_MAX)
		return -1;
	*days = (unsigned int)v;
	return 0;
}

/* --full-days, else $E2SECRM_FULL_DAYS, else 30. */
static void full_days_default(struct cmd_opts *o)
{
	const char *env = getenv("E2SECRM_FULL_DAYS");

	if (o->have_full_days)
		return;
	o->full_days = FULL_DAYS_DEFAULT;
	if (!env || !*env)
		return;
	if (parse_days(env, &o->full_days)) {
		com_err(program_name, 0, "E2SECRM_FULL_DAYS must be a number "
			"of days from 0 to %u: %s", FULL_DAYS_MAX, env);
		usage();
	}
}

/*
 * E2SECRM_TEST_TRUST: the tests of the incremental proof a test run
 * skips, to show that without one the plan would differ.  Never for
 * use on a disk one cares about.
 */
static int trust_parse(const char *env, unsigned int *trust)
{
	static const struct {
		const char	*name;
		unsigned int	bit;
	} names[] = {
		{ "age", E2SR_TRUST_AGE },
		{ "journal", E2SR_TRUST_JOURNAL },
		{ "checked", E2SR_TRUST_CHECKED },
		{ "offline", E2SR_TRUST_OFFLINE },
		{ "orphans", E2SR_TRUST_ORPHANS },
		{ "super", E2SR_TRUST_SUPER },
		{ "groups", E2SR_TRUST_GROUPS },
		{ "all", ~0U },
	};
	const char *p = env, *e;
	size_t i, len;

	*trust = 0;
	while (p && *p) {
		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len &&
			    !strncmp(p, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		*trust |= names[i].bit;
		p = e ? e + 1 : NULL;
	}
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

void options_parse(int argc, char **argv, struct cmd_opts *o)
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
		{ "metrics",	required_argument,	NULL, 'M' },
		{ "record",	required_argument,	NULL, 'R' },
		{ "record-field", required_argument,	NULL, 'K' },
		{ "verify",	no_argument,		NULL, 'W' },
		{ "state-dir",	required_argument,	NULL, 'P' },
		{ "no-state",	no_argument,		NULL, 'X' },
		{ "full",	no_argument,		NULL, 'G' },
		{ "full-days",	required_argument,	NULL, 'N' },
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
		case 'M':
			if (!*optarg) {
				com_err(program_name, 0,
					"--metrics needs a file name");
				usage();
			}
			o->metrics = optarg;
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
		case 'G':
			o->full = 1;
			break;
		case 'N':
			if (parse_days(optarg, &o->full_days)) {
				com_err(program_name, 0,
					"--full-days needs a number of days "
					"from 0 to %u: %s", FULL_DAYS_MAX,
					optarg);
				usage();
			}
			o->have_full_days = 1;
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
	full_days_default(o);
	if (trust_parse(getenv("E2SECRM_TEST_TRUST"), &o->trust)) {
		com_err(program_name, 0, "E2SECRM_TEST_TRUST names a test "
			"that does not exist: %s",
			getenv("E2SECRM_TEST_TRUST"));
		usage();
	}
	/*
	 * E2SECRM_RING_CHECK=1: a run that takes the log from the last
	 * run's ring facts walks it whole as well, and stops (exit 8) if
	 * the two differ: the tests' check of lib/find/ring_since.c.
	 */
	o->ring_check = getenv("E2SECRM_RING_CHECK") &&
			!strcmp(getenv("E2SECRM_RING_CHECK"), "1");
	if (!o->state_dir) {
		const char *env = getenv("E2SECRM_STATE_DIR");

		o->state_dir = env && *env ? env : E2SR_STATE_DIR;
	}
}
