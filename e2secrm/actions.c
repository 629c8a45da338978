/*
 * actions.c --- the plan's actions, as the command shows them.
 *
 * Owns the list of what -v prints under "actions" and what --json-plan
 * puts in the JSON report: every action of the plan, in the order a run
 * writes them (lib/stages/execute.c's e2sr_plan_actions), and, as -y writes,
 * every action written, from the hook lib/ calls after each (so that a
 * test can hold the two lists side by side).  What an action is, and
 * which rule made it, is lib/'s; this file only lists and prints.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <inttypes.h>
#include <string.h>

#include "cmd.h"

/* -v: at most this many lines per kind; --json-plan lists them all. */
#define SHOW_PER_KIND	1000

struct action_list {
	struct e2sr_action	*a;
	size_t			count;
	size_t			alloc;
	int			failed;		/* out of memory: incomplete */
};

static struct action_list planned, written;

static void list_add(void *data, const struct e2sr_action *a)
{
	struct action_list *l = data;
	size_t alloc;

	if (l->failed)
		return;
	if (l->count == l->alloc) {
		alloc = l->alloc ? l->alloc * 2 : 256;
		if (ext2fs_resize_mem(l->alloc * sizeof(*l->a),
				      alloc * sizeof(*l->a), &l->a)) {
			l->failed = 1;
			return;
		}
		l->alloc = alloc;
	}
	l->a[l->count++] = *a;
}

/*
 * Before the first write: the plan's actions, kept for the report; and
 * the hook that lists the actions as they are written.
 */
void actions_take(struct e2sr_ctx *ctx)
{
	planned.count = written.count = 0;
	e2sr_plan_actions(ctx, list_add, &planned);
	ctx->hooks.done = list_add;
	ctx->hooks.done_data = &written;
}

void actions_free(void)
{
	ext2fs_free_mem(&planned.a);
	ext2fs_free_mem(&written.a);
	memset(&planned, 0, sizeof(planned));
	memset(&written, 0, sizeof(written));
}

static const char *kind_key(const struct e2sr_action *a)
{
	if (a->kind >= E2SR_KIND_COUNT)
		return "unknown";
	return e2sr_kinds[a->kind]->count[0].key;
}

/* The phase of execute its kind is written in; 0: not known. */
static int kind_phase(const struct e2sr_action *a)
{
	if (a->kind >= E2SR_KIND_COUNT)
		return 0;
	return e2sr_kinds[a->kind]->phase;
}

/* One action, on one line, as -v shows it. */
static void print_one(const struct e2sr_action *a)
{
	printf("  %s (%s):", kind_key(a), e2sr_why_key(a->why));
	switch (a->kind) {
	case E2SR_KIND_NAMES:
		printf(" directory %u block #%" PRIu64, a->ino,
		       (uint64_t)a->blk);
		/* An entry loses its inode, name length and name. */
		if (e2sr_why_bytes(a->why))
			printf(" bytes %u-%u", a->off, a->off + a->len - 1);
		else
			printf(" entry at byte %u (name of %u bytes)", a->off,
			       a->len);
		break;
	case E2SR_KIND_RECORDS:
	case E2SR_KIND_FREE_RECORDS:
		printf(" inode %u", a->ino);
		break;
	case E2SR_KIND_JOURNAL:
		printf(" journal block %" PRIu64, (uint64_t)a->blk);
		if (a->len)
			printf(" bytes %u-%u", a->off, a->off + a->len - 1);
		printf(" in stage %s", e2sr_jstage_key(a->jstage));
		break;
	case E2SR_KIND_UNWRITTEN:
		printf(" inode %u", a->ino);
		/* fall through */
	default:
		printf(" blocks %" PRIu64 "-%" PRIu64, (uint64_t)a->blk,
		       (uint64_t)(a->blk + a->count - 1));
		break;
	}
	if (a->owner && a->owner != a->ino)
		printf(" of inode %u", a->owner);
	printf("\n");
}

/* -v: the actions of the plan, each kind's first SHOW_PER_KIND. */
void actions_print(const struct cmd_opts *o)
{
	size_t shown[E2SR_KIND_COUNT] = { 0 }, more[E2SR_KIND_COUNT] = { 0 };
	size_t i;
	int k;

	if (!planned.count)
		return;
	printf("%s: actions, in the order they are written:\n", o->device);
	for (i = 0; i < planned.count; i++) {
		const struct e2sr_action *a = &planned.a[i];

		k = a->kind < E2SR_KIND_COUNT ? a->kind : 0;
		if (shown[k] == SHOW_PER_KIND) {
			more[k]++;
			continue;
		}
		shown[k]++;
		print_one(a);
	}
	for (k = 0; k < E2SR_KIND_COUNT; k++)
		if (more[k])
			printf("  %s: %zu more (--json-plan lists every "
			       "one)\n", e2sr_kinds[k]->count[0].key, more[k]);
}

static void json_list(FILE *f, const char *name,
		      const struct action_list *l)
{
	size_t i;

	fprintf(f, "  \"%s\": ", name);
	if (l->failed) {
		fprintf(f, "null,\n");
		return;
	}
	fprintf(f, "[");
	for (i = 0; i < l->count; i++) {
		const struct e2sr_action *a = &l->a[i];

		fprintf(f, "%s\n    {\"kind\": \"%s\", \"phase\": %d, "
			"\"why\": \"%s\", \"owner\": %u, \"inode\": %u, "
			"\"block\": %" PRIu64 ", \"blocks\": %" PRIu64
			", \"offset\": %u, \"length\": %u, \"crc\": %u",
			i ? "," : "", kind_key(a), kind_phase(a),
			e2sr_why_key(a->why), a->owner, a->ino,
			(uint64_t)a->blk, (uint64_t)a->count, a->off, a->len,
			a->crc);
		/* A journal block's stage: evidence goes last (kinds.c). */
		if (a->kind == E2SR_KIND_JOURNAL)
			fprintf(f, ", \"stage\": \"%s\"",
				e2sr_jstage_key(a->jstage));
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n", l->count ? "\n  " : "");
}

/*
 * --json-plan: "actions", what the plan holds, and "written", what was
 * written of it (empty with -n); null where memory ran out.
 */
void actions_json(FILE *f)
{
	json_list(f, "actions", &planned);
	json_list(f, "written", &written);
}
