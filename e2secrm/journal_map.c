/*
 * journal_map.c --- `e2secrm --journal-map`: the history index, listed.
 *
 * One line per journal copy of a filesystem block, in journal block
 * order: what a forensic examiner needs to answer "which journal blocks
 * still hold copies of inode N, or of directory D".  The listing never
 * writes; it implies -n.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"

static int cmp_jblock(const void *a, const void *b)
{
	const struct e2sr_version *x = *(const struct e2sr_version *const *)a;
	const struct e2sr_version *y = *(const struct e2sr_version *const *)b;

	return x->jblock < y->jblock ? -1 : x->jblock > y->jblock;
}

static void print_version(const struct e2sr_version *v)
{
	char owner[32] = "-", where[24] = "-";

	switch (v->kind) {
	case E2SR_JK_ITABLE:
		snprintf(owner, sizeof(owner), "%u-%u", v->ino,
			 v->ino + v->ino_count - 1);
		break;
	case E2SR_JK_DIR:
	case E2SR_JK_DATA:
		snprintf(where, sizeof(where), "%llu",
			 (unsigned long long)v->lblk);
		/* fall through */
	case E2SR_JK_EXTENT:
	case E2SR_JK_IND:
	case E2SR_JK_EA:
		snprintf(owner, sizeof(owner), "%u", v->ino);
		break;
	default:
		break;
	}
	printf("%10u %10u %12llu  %-8s %-13s %-10s %s%s%s\n", v->jblock,
	       v->sequence, (unsigned long long)v->fs_block,
	       e2sr_jkind_name(v->kind), owner, where,
	       v->committed ? "committed" : "uncommitted",
	       v->verified ? ",verified" : "",
	       v->escaped ? ",escaped" : "");
}

static void print_fc(struct e2sr_ctx *ctx, const struct e2sr_fc_rec *r)
{
	const unsigned char *b;
	char detail[96] = "";
	unsigned int i, n;

	switch (r->tag) {
	case E2SR_FC_TAG_ADD_RANGE:
		snprintf(detail, sizeof(detail), "lblk %u, %u blocks at %llu",
			 r->lblk, r->count, (unsigned long long)r->pblk);
		break;
	case E2SR_FC_TAG_DEL_RANGE:
		snprintf(detail, sizeof(detail), "lblk %u, %u blocks",
			 r->lblk, r->count);
		break;
	case E2SR_FC_TAG_CREAT:
	case E2SR_FC_TAG_LINK:
	case E2SR_FC_TAG_UNLINK:
		n = snprintf(detail, sizeof(detail), "dir %u, name ",
			     r->parent);
		if (e2sr_journal_block(ctx->journal, r->jblock, &b))
			break;
		/* Printable bytes only: the name is on-disk data. */
		for (i = 0; i < r->name_len && n + 2 < sizeof(detail); i++)
			detail[n++] = b[r->name_off + i] >= 0x20 &&
				      b[r->name_off + i] < 0x7f ?
				      b[r->name_off + i] : '?';
		detail[n] = 0;
		break;
	case E2SR_FC_TAG_HEAD:
	case E2SR_FC_TAG_TAIL:
		snprintf(detail, sizeof(detail), "tid %u", r->tid);
		break;
	default:
		break;
	}
	printf("%10u %6u  %-10s %-10u %s\n", r->jblock, r->offset,
	       e2sr_fc_tag_name(r->tag), r->ino, detail);
}

static int fast_commit_map(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct e2sr_fcwalk fc;
	errcode_t err;
	size_t i;

	err = e2sr_fc_walk(ctx->journal, &fc);
	if (err) {
		report_error(ctx, err, "while walking the fast commits of",
			     o->device);
		return E2SR_EXIT_ERROR;
	}
	if (!fc.end) {
		e2sr_fc_walk_free(&fc);
		return E2SR_EXIT_OK;
	}
	printf("%s: fast-commit area %u-%u: %zu tags in %u blocks\n",
	       o->device, fc.first, fc.end - 1, fc.n, fc.blocks_used);
	if (fc.n)
		printf("%10s %6s  %-10s %-10s %s\n", "jblock", "offset",
		       "tag", "inode", "detail");
	for (i = 0; i < fc.n; i++)
		if (fc.recs[i].tag != E2SR_FC_TAG_PAD)
			print_fc(ctx, &fc.recs[i]);
	e2sr_fc_walk_free(&fc);
	return E2SR_EXIT_OK;
}

int journal_map(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	struct e2sr_history h;
	const struct e2sr_version **order = NULL;
	const struct e2sr_jwalk *w = &h.walk;
	errcode_t err;
	size_t i;

	if (!ctx->journal) {
		printf("%s: no journal to map\n", o->device);
		return E2SR_EXIT_OK;
	}
	err = e2sr_history_build(ctx->fs, ctx->journal, E2SR_HISTORY_OWNERS,
				 &h);
	if (err) {
		report_error(ctx, err, "while walking the journal of",
			     o->device);
		return E2SR_EXIT_ERROR;
	}
	printf("%s: %s journal, %u blocks of %u bytes, log %u-%u, "
	       "sequence %u, %s\n", o->device,
	       w->external ? "external" : "internal", w->jsb.maxlen,
	       w->jsb.blocksize, w->jsb.first, w->jsb.last - 1,
	       w->jsb.sequence, w->jsb.start ? "in use" : "empty");
	printf("%s: %u descriptors, %zu commits, %zu revoke blocks, "
	       "%zu copies attributed, %u blocks unattributed\n", o->device,
	       w->descriptors, w->ncommits, w->nrevokes, h.n,
	       w->unattributed);
	if (h.n) {
		if (ext2fs_get_array(h.n, sizeof(*order), &order)) {
			report_error(ctx, EXT2_ET_NO_MEMORY,
				     "while listing the journal of", o->device);
			e2sr_history_free(&h);
			return E2SR_EXIT_ERROR;
		}
		for (i = 0; i < h.n; i++)
			order[i] = &h.v[i];
		qsort(order, h.n, sizeof(*order), cmp_jblock);
		printf("%10s %10s %12s  %-8s %-13s %-10s %s\n", "jblock",
		       "tid", "fs block", "kind", "inode", "lblk", "state");
		for (i = 0; i < h.n; i++)
			print_version(order[i]);
	}
	ext2fs_free_mem(&order);
	e2sr_history_free(&h);
	return fast_commit_map(ctx, o);
}
