/*
 * cmd.h --- what the parts of the e2secrm command share.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SECRM_CMD_H
#define E2SECRM_CMD_H

#include "e2secrm.h"

/* Exit status bits, as documented in e2secrm(8). */
#define E2SR_EXIT_OK		0	/* nothing of a secure-delete file */
#define E2SR_EXIT_WIPED		1	/* residues found and wiped */
#define E2SR_EXIT_LEFT		4	/* residues found and left */
#define E2SR_EXIT_ERROR		8	/* operational error */
#define E2SR_EXIT_USAGE		16	/* usage error */
#define E2SR_EXIT_CANCELLED	32	/* cancelled by the user */

struct cmd_opts {
	const char		*device;
	int			dry_run;
	int			force;
	int			verbose;
	int			yes;
	int			progress_fd;
	enum e2sr_method	method;
	const char		*ext_journal;
	int			journal_map;
	int			sanitize;	/* E2SR_FREE_* */
	const char		*json;		/* --json FILE, - for stdout */
	int			verify;
	int			skip_zero;
};

extern const char *program_name;

/* report.c */
void report_error(struct e2sr_ctx *ctx, errcode_t err, const char *doing,
		  const char *device);
void report_recovery(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_replayed(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_inventory(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_plan(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_done(struct e2sr_ctx *ctx, const struct cmd_opts *o,
		 errcode_t err);

/* json.c */
enum json_stage {
	JSON_OPENED,
	JSON_SCANNED,
	JSON_WIPED,
};
int json_open(const char *path);
void json_mark(enum json_stage stage, struct e2sr_ctx *ctx);
void json_write(struct e2sr_ctx *ctx, const struct cmd_opts *o, int status,
		errcode_t err);

/* journal_map.c */
int journal_map(struct e2sr_ctx *ctx, const struct cmd_opts *o);

/* progress.c */
void progress_setup(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void progress_done(struct e2sr_ctx *ctx);

#endif /* E2SECRM_CMD_H */
