/*
 * record.c --- `--record FILE`: what a run did to a device, for people
 * who dispose of disks and for the auditors who ask them.
 *
 * Owns the record: FILE gets a text for people, FILE.json the same facts
 * for machines.  The guideline is NIST SP 800-88 Rev. 2 (September 2025,
 * doi:10.6028/NIST.SP.800-88r2), which withdrew Rev. 1 and refers the
 * techniques themselves to IEEE 2883-2022 (Standard for Sanitizing
 * Storage); its words are used where they apply: Clear (logical
 * techniques on user-addressable storage), Purge (which a file system
 * tool never does), logical sanitization, sanitization verification.
 * The certificate keeps the fields of Rev. 1's sample certificate
 * (Appendix G) that certificates still carry: manufacturer, model,
 * serial number, media type and source, the category (Clear, Purge or
 * Destroy), method used and its details, tool used, verification
 * method, confidentiality before and after, post-sanitization
 * destination, and the person's name, title, organization, location,
 * contact, the date and a signature.  What only a person knows comes
 * from --record-field KEY=VALUE; what is not given says "not recorded".
 * The counts by kind, the coverage and the verify result are the JSON
 * report's, from report.c and json.c: the record and the report cannot
 * disagree.  What the device is (sysfs, udev, the image's hash) is
 * record_device.c's; the text and the JSON are written by record_text.c
 * and record_json.c.
 *
 * The record never says more than the run did: a dry run, a refusal and
 * a run stopped before its first write say "nothing was written" on
 * their first line, the category is Clear only for a finished overwrite
 * that left nothing it knew of, always with the scope the options chose,
 * and never Purge.  Both files are made in the same directory
 * as temporary files when the run starts (so that a path that cannot
 * be written is refused before the device is touched), and renamed over
 * FILE and FILE.json once written and synced; never through a symbolic
 * link (outfile.c's steps, which the metrics share).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include <et/com_err.h>

#include "record.h"

enum { REC_TEXT, REC_JSON, REC_FILES };

static struct {
	/* FILE, FILE.json: temporary files beside them from the start. */
	struct outfile	file[REC_FILES];
	time_t		start;
	int		writes_began;
	int		argc;		/* the command line, as given */
	char		**argv;
} rec = { .file = { { .fd = -1 }, { .fd = -1 } } };

/*
 * The fields of the certificate that only a person knows, set with
 * --record-field KEY=VALUE (record.h names them).
 */
const struct record_field_name record_field_names[FIELD_COUNT] = {
	{ "name", "name" },
	{ "title", "title" },
	{ "organization", "organization" },
	{ "location", "location" },
	{ "contact", "contact" },
	{ "media-source", "media_source" },
	{ "destination", "post_sanitization_destination" },
	{ "confidentiality-before", "confidentiality_before" },
	{ "confidentiality-after", "confidentiality_after" },
};

/* Pointers into argv, which lives as long as the run; NULL: not given. */
static const char *fields[FIELD_COUNT];

static void unlink_temps(void)
{
	int i;

	for (i = 0; i < REC_FILES; i++)
		outfile_discard(&rec.file[i]);
}

/* Whether @a and @b name the same existing file. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Before the run: FILE and FILE.json must be usable, and neither may be
 * the device (an image file would be replaced by its record) nor the
 * --json report (@report, or NULL).
 */
int record_open(const char *path, const char *device, const char *report)
{
	char *json_path;

	rec.start = time(NULL);
	json_path = outfile_printf("%s.json", path);
	if (!json_path) {
		com_err(program_name, ENOMEM, "while preparing the record %s",
			path);
		return -1;
	}
	if (same_file(path, device) || same_file(json_path, device) ||
	    (report && (!strcmp(report, path) ||
			!strcmp(report, json_path) ||
			same_file(report, path) ||
			same_file(report, json_path)))) {
		com_err(program_name, 0, "the record %s (and %s) must be "
			"neither the device nor the --json report", path,
			json_path);
		ext2fs_free_mem(&json_path);
		return -1;
	}
	atexit(unlink_temps);
	if (outfile_open(&rec.file[REC_TEXT], "the record", path) ||
	    outfile_open(&rec.file[REC_JSON], "the record", json_path)) {
		ext2fs_free_mem(&json_path);
		unlink_temps();
		return -1;
	}
	ext2fs_free_mem(&json_path);
	return 0;
}

/*
 * --record-field KEY=VALUE; 0, or -1 with a message naming the key.  The
 * last one given wins, so that the command line overrides what
 * E2SECRM_OPTS in /etc/e2secrm.conf sets for a whole organization; an
 * empty value takes a field back to "not recorded".  The value is kept
 * as given, in any encoding: both files write it as written.
 */
int record_field(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len;
	int i;

	if (!eq) {
		com_err(program_name, 0, "--record-field %s: KEY=VALUE "
			"expected", arg);
		return -1;
	}
	len = eq - arg;
	for (i = 0; i < FIELD_COUNT; i++) {
		if (strlen(record_field_names[i].key) != len ||
		    strncmp(arg, record_field_names[i].key, len))
			continue;
		fields[i] = eq[1] ? eq + 1 : NULL;
		return 0;
	}
	com_err(program_name, 0, "--record-field: unknown key \"%.*s\" "
		"(keys: name, title, organization, location, contact, "
		"media-source, destination, confidentiality-before, "
		"confidentiality-after)", (int)len, arg);
	return -1;
}

/* The command line, for the record; called once, before the run. */
void record_command_line(int argc, char **argv)
{
	rec.argc = argc;
	rec.argv = argv;
}

int record_wanted(void)
{
	return outfile_wanted(&rec.file[REC_TEXT]);
}

void record_writing(void)
{
	rec.writes_began = 1;
}

/* --- what the run was ---------------------------------------------------- */

static const char *operator_name(const char **from)
{
	struct passwd *pw;
	const char *s;

	s = getenv("SUDO_USER");
	if (s && *s) {
		*from = "SUDO_USER";
		return s;
	}
	s = getenv("USER");
	if (s && *s) {
		*from = "USER";
		return s;
	}
	pw = getpwuid(getuid());
	if (pw && pw->pw_name) {
		*from = "the password database";
		return pw->pw_name;
	}
	*from = "nowhere";
	return "unknown";
}

static void iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "unknown");
}

/* The options that decide what is wiped, as given. */
static void mode_options(const struct cmd_opts *o, char *buf, size_t len)
{
	int s = o->sanitize;

	snprintf(buf, len, "residues of secure-delete files");
	if ((s & E2SR_SANITIZE) == E2SR_SANITIZE) {
		strncat(buf, " + --sanitize", len - strlen(buf) - 1);
		s &= ~E2SR_SANITIZE;
	}
	if (s & E2SR_FREE_ALL)
		strncat(buf, " + --all-free", len - strlen(buf) - 1);
	if (s & E2SR_FREE_IF_LOST)
		strncat(buf, " + --all-free-if-lost", len - strlen(buf) - 1);
	if (s & E2SR_FREE_JOURNAL)
		strncat(buf, " + --all-journal", len - strlen(buf) - 1);
	if (s & E2SR_FREE_DIRSLACK)
		strncat(buf, " + --dir-slack", len - strlen(buf) - 1);
	if (s & E2SR_FREE_INODES)
		strncat(buf, " + --free-inodes", len - strlen(buf) - 1);
	if (o->skip_zero)
		strncat(buf, " + --skip-zero", len - strlen(buf) - 1);
	if (o->journal_map)
		snprintf(buf, len, "--journal-map (a listing)");
}

static void decide_outcome(const struct cmd_opts *o, int status,
			   const char *why, struct outcome *out)
{
	const char *tail = "";

	out->wrote = rec.writes_began && !o->dry_run;
	if (o->audit && !(status & (E2SR_EXIT_ERROR | E2SR_EXIT_CANCELLED))) {
		/* Sanitization verification: its own outcome, to sign. */
		out->code = (status & E2SR_EXIT_LEFT) ? "audit-not-wiped" :
			    "audit-wiped";
		snprintf(out->summary, sizeof(out->summary),
			 "AUDIT: nothing was written; %s",
			 (status & E2SR_EXIT_LEFT) ? "the scope read still "
			 "holds residue, or holds what could not be judged "
			 "(see Verification)" : "every place of the scope "
			 "read holds only zeros");
	} else if (o->dry_run) {
		out->code = "dry-run";
		snprintf(out->summary, sizeof(out->summary),
			 "DRY RUN: nothing was written%s%s",
			 why ? "; the run stopped: " : "", why ? why : "");
	} else if (!out->wrote && (status & E2SR_EXIT_ERROR)) {
		out->code = "refused";
		snprintf(out->summary, sizeof(out->summary),
			 "REFUSED: nothing was written (%s)",
			 why ? why : "an error");
	} else if (!out->wrote && (status & E2SR_EXIT_CANCELLED)) {
		out->code = "cancelled";
		snprintf(out->summary, sizeof(out->summary),
			 "CANCELLED: nothing was written");
	} else if (!out->wrote) {
		out->code = "completed";
		snprintf(out->summary, sizeof(out->summary),
			 "COMPLETED: nothing to wipe was found; nothing was "
			 "written%s", (status & E2SR_EXIT_LEFT) ?
			 "; some residues could not be traced (see below)" :
			 "");
	} else if (status & E2SR_EXIT_ERROR) {
		out->code = "incomplete";
		snprintf(out->summary, sizeof(out->summary),
			 "INCOMPLETE: the run stopped after it began writing "
			 "(%s); part of the plan may be undone",
			 why ? why : "an error");
	} else if (status & E2SR_EXIT_CANCELLED) {
		out->code = "incomplete";
		snprintf(out->summary, sizeof(out->summary),
			 "INCOMPLETE: cancelled after it began writing; run "
			 "e2secrm again to finish");
	} else {
		out->code = "completed";
		if (status & E2SR_EXIT_LEFT)
			tail = "; some residues were left or could not be "
			       "traced (see below)";
		snprintf(out->summary, sizeof(out->summary),
			 "COMPLETED: %s%s", (status & E2SR_EXIT_WIPED) ?
			 "the residues planned were wiped" :
			 "nothing to wipe was found (the journal's recovery "
			 "was written)", tail);
	}
}

/*
 * Clear, in SP 800-88 Rev. 2 and IEEE 2883, applies logical techniques
 * to user-addressable storage.  An overwrite through the device's write
 * interface is one; e2secrm applies it to what one file system
 * addresses, so a finished overwrite that left nothing it knew of is
 * Clear of that scope and never more: the description always sends the
 * reader to the scope, so that the category cannot be read as the
 * device's.  Every other run is "none", with the reason next to it, so
 * that the certificate never says "none" above an overwrite unexplained.
 */
static void sanitization_category(const struct cmd_opts *o, int status,
				  const struct outcome *out,
				  struct category *c)
{
	int full = (o->sanitize & E2SR_SANITIZE) == E2SR_SANITIZE;
	int overwrite = o->method == E2SR_METHOD_ZERO ||
			o->method == E2SR_METHOD_RANDOM;

	c->name = "none";
	c->scope = NULL;
	if (!out->wrote) {
		c->description = "none (nothing was written)";
		c->statement = "No sanitization: nothing was written.";
		return;
	}
	if (status & (E2SR_EXIT_ERROR | E2SR_EXIT_CANCELLED)) {
		c->description = "none (the run did not finish)";
		c->statement = "No sanitization: the run did not finish; "
			"part of what was planned may not be written.";
		return;
	}
	if (!overwrite) {
		c->description = "none (blocks were unmapped, not "
			"overwritten)";
		c->statement = "Not Clear: with -m discard or secdiscard the "
			"blocks are unmapped, not overwritten (blocks that "
			"did not read back as zeros were written with "
			"zeros); what the device keeps behind its mapping "
			"is not addressed.";
		return;
	}
	if (status & E2SR_EXIT_LEFT) {
		c->description = "none (residues were left or could not be "
			"traced; see Not done)";
		c->statement = "Not Clear: the overwrite ran, but residues "
			"were found and left, or could not be traced (see "
			"Not done).";
		return;
	}
	c->name = "Clear";
	c->description = "Clear (logical, file-system level; see scope)";
	if (full) {
		c->scope = "the file system's unused space: every free "
			"block, the journal but its superblock, removed "
			"directory entries and free inode records.  Not its "
			"live files, by design.";
		c->statement = "Clear of the file system's unused space, and "
			"only of it: each location in the scope was "
			"overwritten once through the device's ordinary "
			"write interface (or read as zeros already, with "
			"--skip-zero).  Not Clear of the device: its live "
			"files remain, and never Purge or Destroy.";
		return;
	}
	c->scope = "the residues of secure-deletion (+s) files that the run "
		"found (their freed blocks, removed names, inode records "
		"and journal copies) and the parts of unused space the "
		"options named (Method details).  Not the rest of the "
		"unused space, not the live files.";
	c->statement = "Clear of the residues of secure-deletion files the "
		"run found, and only of them: each was overwritten once "
		"through the device's ordinary write interface.  Data of "
		"other deleted files may remain in the unused space, and "
		"never Purge or Destroy.";
}

const char *record_method_used(enum e2sr_method m)
{
	switch (m) {
	case E2SR_METHOD_ZERO:
		return "Overwrite: one pass of zeros";
	case E2SR_METHOD_RANDOM:
		return "Overwrite: one pass of random data";
	case E2SR_METHOD_DISCARD:
		return "Other: discard (zeros written where a discard did "
		       "not read back as zeros)";
	case E2SR_METHOD_SECDISCARD:
		return "Other: secure discard where the device has it, else "
		       "discard or zeros";
	}
	return "?";
}

/*
 * How the result was checked: the only place that says it, for the
 * record's Verification line and the certificate's Verification method.
 * --verify is sanitization verification during the run (each block
 * written read back).  An independent check of the scope afterwards,
 * by another run or on another machine (Rev. 2's sanitization
 * validation), is a second source to be said here, not elsewhere.
 */
static void verification_text(const struct e2sr_ctx *ctx,
			      const struct cmd_opts *o,
			      const struct outcome *out, char *buf,
			      size_t len)
{
	blk64_t read = 0;
	int k;

	if (ctx && o->audit) {
		for (k = 0; k < E2SR_KIND_COUNT; k++)
			read += ctx->stats.checked[k];
		snprintf(buf, len, "Full: sanitization verification by an "
			 "independent read (--audit, nothing written): every "
			 "place in the scope read with the caches off: %"
			 PRIu64 " read, %" PRIu64 " not wiped%s",
			 (uint64_t)read,
			 (uint64_t)e2sr_audit_unwiped(ctx),
			 ctx->stats.audit_random ? "; blocks overwritten with "
			 "random bytes were not judged" : "");
		return;
	}
	if (!out->wrote)
		snprintf(buf, len, "none (nothing was written)");
	else if (!ctx || !ctx->opts.verify)
		snprintf(buf, len, "none (no sanitization verification: "
			 "--verify was not given)");
	else
		snprintf(buf, len, "Full: sanitization verification "
			 "(--verify): every block wiped read back with the "
			 "caches off (names and inode records checked by the "
			 "stages that rewrote them): %" PRIu64 " blocks read "
			 "back, %" PRIu64 " mismatch%s",
			 (uint64_t)ctx->stats.verified,
			 (uint64_t)ctx->stats.verify_bad,
			 ctx->stats.verify_bad == 1 ? "" : "es");
}

/*
 * @s as a POSIX shell reads it back, into @out, which has room for
 * 4 * strlen(@s) + 4 bytes; returns the length.  Bare if it holds only
 * characters no shell gives a meaning to; else in single quotes, a quote
 * as '\''; or, when it holds control characters, which would break the
 * record's line, as $'...' with each as \ooo (bash, ksh, zsh and
 * POSIX.1-2024 sh read it).  Other bytes, UTF-8 or not, are kept.
 */
static size_t shell_word(char *out, const char *s)
{
	static const char safe[] = "@%+=:,./_-";
	const unsigned char *p;
	char *o = out;
	int plain = *s != 0, ctl = 0;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			ctl = 1;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr(safe, *p)))
			plain = 0;
	}
	if (plain)
		return sprintf(out, "%s", s);
	if (!ctl) {
		*o++ = '\'';
		for (p = (const unsigned char *)s; *p; p++) {
			if (*p == '\'')
				o += sprintf(o, "'\\''");
			else
				*o++ = *p;
		}
		*o++ = '\'';
		*o = 0;
		return o - out;
	}
	o += sprintf(o, "$'");
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			o += sprintf(o, "\\%03o", *p);
		else if (*p == '\'' || *p == '\\')
			o += sprintf(o, "\\%c", *p);
		else
			*o++ = *p;
	}
	*o++ = '\'';
	*o = 0;
	return o - out;
}

/* The command line as one shell line, allocated; NULL if none. */
static char *command_line(void)
{
	size_t len = 1;
	char *buf, *o;
	int i;

	if (!rec.argv)
		return NULL;
	for (i = 0; i < rec.argc; i++)
		len += 4 * strlen(rec.argv[i]) + 5;
	if (ext2fs_get_mem(len, &buf))
		return NULL;
	o = buf;
	*o = 0;
	for (i = 0; i < rec.argc; i++) {
		if (i)
			*o++ = ' ';
		o += shell_word(o, rec.argv[i]);
	}
	return buf;
}

/* --- writing ------------------------------------------------------------- */

const char record_limits[] =
	"A file-system-level run is logical sanitization of what one file "
	"system addresses, within the scope its options chose; nothing "
	"more.  It is never Purge (nor Destroy): it writes through the "
	"device's ordinary interface and cannot reach space outside the "
	"file system, sectors the device has remapped, over-provisioned or "
	"other areas no logical address names.  It is never sanitization "
	"of the whole device: for that, the device's own sanitize command, "
	"cryptographic erase or destruction, as IEEE 2883 describes them "
	"for the media.";

const char *record_or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

const char *record_dev_type_name(enum dev_type t)
{
	switch (t) {
	case DEV_MISSING:
		return "missing";
	case DEV_BLOCK:
		return "block device";
	case DEV_FILE:
		return "image file";
	case DEV_OTHER:
		return "other";
	}
	return "?";
}

static int finish_file(int i, const struct facts *x)
{
	FILE *f;

	f = outfile_stream(&rec.file[i]);
	if (!f)
		return -1;
	if (i == REC_TEXT)
		record_text(f, x);
	else
		record_json(f, x);
	return outfile_sync(f);
}

int record_write(const struct e2sr_ctx *ctx, const struct cmd_opts *o,
		 int status, errcode_t err, const char *why)
{
	static char errbuf[400];
	struct facts x;
	int i;

	if (!record_wanted())
		return 0;
	memset(&x, 0, sizeof(x));
	x.ctx = ctx;
	x.o = o;
	x.status = status;
	if (!why && err) {
		if (ctx && ctx->detail[0])
			snprintf(errbuf, sizeof(errbuf), "%s (%s)",
				 error_message(err), ctx->detail);
		else
			snprintf(errbuf, sizeof(errbuf), "%s",
				 error_message(err));
		why = errbuf;
	}
	x.why = why;
	record_identify(o->device, &x.dev);
	decide_outcome(o, status, why, &x.out);
	x.fs = ctx ? json_facts() : NULL;
	ext2fs_get_library_version(&x.lib_ver, &x.lib_date);
	x.person = operator_name(&x.person_from);
	if (uname(&x.uts))
		snprintf(x.uts.nodename, sizeof(x.uts.nodename), "unknown");
	iso_time(rec.start, x.start, sizeof(x.start));
	iso_time(time(NULL), x.end, sizeof(x.end));
	mode_options(o, x.mode, sizeof(x.mode));
	sanitization_category(o, status, &x.out, &x.cat);
	verification_text(ctx, o, &x.out, x.verify, sizeof(x.verify));
	x.command = command_line();
	x.fields = fields;
	x.argc = rec.argc;
	x.argv = rec.argv;

	for (i = 0; i < REC_FILES; i++) {
		if (finish_file(i, &x)) {
			com_err(program_name, errno, "while writing the "
				"record %s", rec.file[i].path);
			ext2fs_free_mem(&x.command);
			return -1;
		}
	}
	ext2fs_free_mem(&x.command);
	/* The JSON form first: the text is what people look for. */
	if (outfile_commit(&rec.file[REC_JSON]) ||
	    outfile_commit(&rec.file[REC_TEXT]))
		return -1;
	return 0;
}
