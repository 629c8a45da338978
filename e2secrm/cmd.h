/*
 * cmd.h --- what the parts of the e2secrm command share.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SECRM_CMD_H
#define E2SECRM_CMD_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "e2secrm.h"

/* Exit status bits, as documented in e2secrm(8). */
#define E2SR_EXIT_OK		0	/* nothing of a secure-delete file */
#define E2SR_EXIT_WIPED		1	/* residues found and wiped */
#define E2SR_EXIT_LEFT		4	/* residues found and left */
#define E2SR_EXIT_ERROR		8	/* operational error */
#define E2SR_EXIT_USAGE		16	/* usage error */
#define E2SR_EXIT_CANCELLED	32	/* cancelled by the user */

/* Where the state file was read from and written to, and how it went. */
enum state_result {
	STATE_OFF = 0,		/* --no-state, -n with no journal, ... */
	STATE_NONE,		/* no file: no previous run */
	STATE_READ,		/* read: the previous run */
	STATE_BAD,		/* there, unusable: no previous run */
};

struct cmd_state {
	char			path[PATH_MAX + 48];
	char			intent_path[PATH_MAX + 48];
	char			uuid[40];
	enum state_result	read;
	int			written;
	enum state_result	intent;		/* the intent file, read */
	int			intent_written;
	int			have_since;	/* the state names a .since */
	__u32			since_crc;
	char			why[160];	/* STATE_BAD, or a write */
};

struct cmd_opts {
	const char		*device;
	int			dry_run;
	int			force;
	int			verbose;
	int			yes;
	int			preen;		/* -p */
	int			progress_fd;
	enum e2sr_method	method;
	const char		*ext_journal;
	int			journal_map;
	int			sanitize;	/* E2SR_FREE_* */
	const char		*json;		/* --json FILE, - for stdout */
	const char		*record;	/* --record FILE */
	int			verify;
	int			audit;		/* --audit */
	int			skip_zero;
	const char		*state_dir;	/* --state-dir, or default */
	int			no_state;	/* --no-state */
	int			json_plan;	/* --json-plan */
	const char		*metrics;	/* --metrics FILE */
	struct cmd_state	*state;		/* what became of it */
	int			full;		/* --full */
	unsigned int		full_days;	/* --full-days, or default */
	int			have_full_days;
	unsigned int		trust;		/* E2SECRM_TEST_TRUST */
	int			ring_check;	/* E2SECRM_RING_CHECK */
	int			left;		/* the run's exit bit 4 */
};

#define FULL_DAYS_DEFAULT	30
#define FULL_DAYS_MAX		36500

extern const char *program_name;

/*
 * What a run found (the plan) or wiped (the stats), by kind: counted once
 * here and printed by the human report, the JSON report and the record.
 */
struct run_counts {
	/* By kind (lib/stages/kinds.c). */
	uint64_t	n[E2SR_KIND_COUNT][2];
};

/* The secure-delete inodes of the inventory, by state. */
struct run_inodes {
	size_t		total;
	size_t		live;		/* in use, orphans, unclear */
	size_t		deleted;
	size_t		historic;	/* in the journal only */
};

/* The facts about the filesystem, taken while it is open. */
struct fs_facts {
	int		opened;
	char		uuid[40];
	char		label[EXT2_LABEL_LEN + 1];
	unsigned int	blocksize;
	uint64_t	blocks;
	__u32		compat, incompat, ro_compat;
};

/* counts.c */
void count_inodes(const struct e2sr_ctx *ctx, struct run_inodes *n);
void count_found(const struct e2sr_ctx *ctx, struct run_counts *c);
void count_wiped(const struct e2sr_ctx *ctx, struct run_counts *c);
uint64_t count_bytes(const struct run_counts *c, unsigned int blocksize);
int file_map_lost(const struct e2sr_file *f);
const char *file_loss_key(const struct e2sr_file *f);

/* report.c */
void report_error(struct e2sr_ctx *ctx, errcode_t err, const char *doing,
		  const char *device);
void report_recovery(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_orphans(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_replayed(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_inventory(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_coverage(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_retried(const struct cmd_opts *o);

/* report_plan.c */
void report_plan(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void report_done(struct e2sr_ctx *ctx, const struct cmd_opts *o,
		 errcode_t err);

/* audit.c */
void report_audit(const struct e2sr_ctx *ctx, const struct cmd_opts *o);

/* preen.c */
void preen_summary(const struct e2sr_ctx *ctx, const struct cmd_opts *o,
		   int status);

/* options.c */
void options_parse(int argc, char **argv, struct cmd_opts *o);

/* handover.c */
void handover_load(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void handover_save_intent(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void handover_clear_intent(const struct cmd_opts *o);
void handover_save_state(struct e2sr_ctx *ctx, const struct cmd_opts *o,
			 int early);

/* state.c */
void state_read(const char *dir, const char *uuid,
		struct e2sr_cover_prev *prev, struct cmd_state *st);
int state_write(const char *dir, const char *uuid,
		const struct e2sr_cover_prev *now, const __u32 *since_crc,
		struct cmd_state *st);
enum state_result state_read_file(const char *dir, const char *path,
				  size_t max, unsigned char **data,
				  size_t *size, struct cmd_state *st);
int state_replace(const char *dir, const char *path, const char *text,
		  size_t len, struct cmd_state *st);
int state_remove(const char *dir, const char *path, struct cmd_state *st);

/* state_ring.c */
int ring_write(const char *dir, const char *uuid, __u32 since_crc,
	       const struct e2sr_ring_facts *f, struct cmd_state *st);
int ring_read(const char *dir, const char *uuid, __u32 since_crc,
	      struct e2sr_ring_facts *f, struct cmd_state *st);

/* run_kind.c */
const char *run_kind_reason(const struct e2sr_ctx *ctx, char *buf,
			    size_t len);
void run_kind_report(const struct e2sr_ctx *ctx, const struct cmd_opts *o);
void run_kind_json(FILE *f, const struct e2sr_ctx *ctx);
void run_kind_record(FILE *f, const struct e2sr_ctx *ctx);

/* state_since.c */
int since_write(const char *dir, const char *uuid,
		const struct e2sr_since_state *s, __u32 *crc,
		struct cmd_state *st);
int since_read(const char *dir, const char *uuid, __u32 crc,
	       struct e2sr_since_state *s, struct cmd_state *st);
void intent_read(const char *dir, const char *uuid, struct e2sr_life **lives,
		 size_t *count, struct e2sr_fs_mark *mark, int *have_mark,
		 struct cmd_state *st);
int intent_write(const char *dir, const char *uuid,
		 const struct e2sr_life *lives, size_t count,
		 const struct e2sr_fs_mark *mark, struct cmd_state *st);
int intent_clear(const char *dir, const char *uuid, struct cmd_state *st);

/* actions.c */
void actions_take(struct e2sr_ctx *ctx);
void actions_print(const struct cmd_opts *o);
void actions_json(FILE *f);
void actions_free(void);

/* json.c */
enum json_stage {
	JSON_OPENED,
	JSON_SCANNED,
	JSON_WIPED,
};
int json_open(const char *path);
void json_mark(enum json_stage stage, struct e2sr_ctx *ctx);
const struct fs_facts *json_facts(void);
int json_utf8_length(const unsigned char *s);
void json_string(FILE *f, const char *s);
void json_counts(FILE *f, const char *name, const struct run_counts *c);
void json_coverage(FILE *f, const struct e2sr_ctx *ctx,
		   const struct cmd_opts *o);
void json_verify(FILE *f, const struct e2sr_ctx *ctx);
const char *json_method_name(enum e2sr_method m);
void json_write(struct e2sr_ctx *ctx, const struct cmd_opts *o, int status,
		errcode_t err);

/* record.c */
int record_open(const char *path, const char *device,
		const char *report);
int record_field(const char *arg);
void record_command_line(int argc, char **argv);
int record_wanted(void);
void record_writing(void);
int record_write(const struct e2sr_ctx *ctx, const struct cmd_opts *o,
		 int status, errcode_t err, const char *why);

/* outfile.c: written beside its path, renamed over it; never a link. */
struct outfile {
	const char	*what;		/* "the record", in messages */
	char		*path;
	char		*tmp;		/* made beside it at the start */
	int		fd;
};
int outfile_open(struct outfile *of, const char *what, const char *path);
int outfile_wanted(const struct outfile *of);
FILE *outfile_stream(struct outfile *of);
int outfile_sync(FILE *f);
int outfile_commit(struct outfile *of);
char *outfile_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void outfile_discard(struct outfile *of);

/* metrics.c */
int metrics_open(const char *path);
void metrics_write(const struct e2sr_ctx *ctx, const struct cmd_opts *o,
		   int status);

/* sha256.c */
int sha256_file(const char *path, char *hex);

/* journal_map.c */
int journal_map(struct e2sr_ctx *ctx, const struct cmd_opts *o);

/* progress.c */
void progress_setup(struct e2sr_ctx *ctx, const struct cmd_opts *o);
void progress_done(struct e2sr_ctx *ctx);

#endif /* E2SECRM_CMD_H */
