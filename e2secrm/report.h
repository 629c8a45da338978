/*
 * report.h --- what the human report's files (report.c, report_plan.c)
 * share: inode lists said once per kind, and what answers residue no
 * history traces.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SECRM_REPORT_H
#define E2SECRM_REPORT_H

#include "cmd.h"

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

enum answer_when { ANSWER_PLANNED, ANSWER_DONE, ANSWER_FAILED };

/* report.c */
void ino_list_add(struct ino_list *l, ext2_ino_t ino);
void print_ino_list(const struct ino_list *l);
const char *untraced_answer(const struct e2sr_ctx *ctx,
			    enum answer_when when);

#endif /* E2SECRM_REPORT_H */
