/*
 * record.h --- what the record's writers share: the facts of a run, once
 * gathered (record.c; the device's identity record_device.c), and the
 * two forms they are written in (record_text.c for people,
 * record_json.c for machines).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SECRM_RECORD_H
#define E2SECRM_RECORD_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "cmd.h"

#define GUIDELINE	"NIST SP 800-88 Rev. 2, Guidelines for Media " \
			"Sanitization (September 2025)"
#define TECHNIQUES	"IEEE 2883-2022, Standard for Sanitizing Storage"

/*
 * The fields of the certificate that only a person knows, set with
 * --record-field KEY=VALUE: the key on the command line and the member
 * of the JSON certificate.
 */
enum rec_field {
	FIELD_NAME,
	FIELD_TITLE,
	FIELD_ORGANIZATION,
	FIELD_LOCATION,
	FIELD_CONTACT,
	FIELD_MEDIA_SOURCE,
	FIELD_DESTINATION,
	FIELD_CONF_BEFORE,
	FIELD_CONF_AFTER,
	FIELD_COUNT
};

struct record_field_name {
	const char	*key;		/* on the command line */
	const char	*json;		/* the JSON certificate's */
};
extern const struct record_field_name record_field_names[FIELD_COUNT];

/* Said on every record, whatever the run did. */
extern const char record_limits[];

/* What the device is, from stat, sysfs and udev; "" is unknown. */
enum dev_type { DEV_MISSING, DEV_BLOCK, DEV_FILE, DEV_OTHER };

struct dev_id {
	enum dev_type	type;
	char		real[PATH_MAX];	/* the path resolved */
	char		name[64];		/* sysfs name: sdb1 */
	char		disk[64];		/* its disk: sdb */
	char		vendor[128];
	char		model[128];
	char		serial[128];
	char		wwn[128];
	char		media[96];
	char		backing[PATH_MAX];	/* loop devices */
	int		have_size;
	uint64_t	size;			/* bytes */
	char		sha256[65];	/* image files, after the run */
	char		sha_error[128];
};

struct outcome {
	const char	*code;		/* dry-run, refused, ... */
	char		summary[512];	/* the record's first line */
	int		wrote;		/* something may be written */
};

/* The SP 800-88 Rev. 2 category of a run, and what it covered. */
struct category {
	const char	*name;		/* "Clear" or "none" */
	const char	*description;	/* the certificate's line */
	const char	*scope;		/* NULL: nothing done */
	const char	*statement;
};

struct facts {
	const struct e2sr_ctx	*ctx;	/* NULL: refused before it */
	const struct cmd_opts	*o;
	int			status;
	const char		*why;		/* the error, or NULL */
	struct dev_id		dev;
	struct outcome		out;
	const struct fs_facts	*fs;
	const char		*lib_ver, *lib_date;
	const char		*person, *person_from;
	struct utsname		uts;
	char			start[32], end[32];
	char			mode[256];
	struct category		cat;
	char			verify[320];
	char			*command;	/* shell-quoted, or NULL */
	const char *const	*fields;	/* by enum rec_field */
	int			argc;		/* the command line */
	char			**argv;
};

/* record_device.c */
void record_identify(const char *device, struct dev_id *d);

/* record.c */
const char *record_or_unknown(const char *s);
const char *record_dev_type_name(enum dev_type t);
const char *record_method_used(enum e2sr_method m);

/* record_text.c, record_json.c */
void record_text(FILE *f, const struct facts *x);
void record_json(FILE *f, const struct facts *x);

#endif /* E2SECRM_RECORD_H */
