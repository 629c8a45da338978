/*
 * scan.c --- the find stage: the passes that read the filesystem and its
 * journal before anything is planned, in their order, as a table.
 *
 * Owns the order of the passes, as e2fsck's pass table does: the live
 * inode scan (inventory.c, which hands every record to livemap.c and
 * reads the tails of the groups), the lives a run cut before its end
 * saved (intent.c), then the versions only the journal still has
 * (discover.c, which needs the live map finished), and last what the
 * saved lives' proof says of their maps.  Each pass
 * owns its reading; this file knows their order, the cancel check
 * between them and the progress the command sees at the end.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include "e2secrm.h"
#include "util.h"
#include "find.h"

struct scan_pass {
	const char	*name;
	errcode_t	(*run)(struct e2sr_ctx *ctx);
};

static const struct scan_pass scan_passes[] = {
	{ "what changed since the last run", e2sr_since_decide },
	{ "live inodes", e2sr_inventory_pass },
	{ "what the next run rereads", e2sr_since_note_files },
	{ "lives a cut run saved", e2sr_intent_seed },
	{ "journal history", e2sr_discover_journal },
	{ "the maps the last run kept", e2sr_kept_maps },
	{ "what the saved lives' proof says", e2sr_intent_settle },
};

/* Every pass of the find stage, in order; the inventory is their result. */
errcode_t e2sr_inventory_scan(struct e2sr_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	size_t i;
	errcode_t err;

	for (i = 0; i < sizeof(scan_passes) / sizeof(scan_passes[0]); i++) {
		if (e2sr_cancelled(ctx))
			return E2SR_ERR_CANCELLED;
		err = scan_passes[i].run(ctx);
		if (err)
			return err;
	}
	e2sr_progress(ctx, E2SR_STAGE_SCAN, fs->super->s_inodes_count,
		      fs->super->s_inodes_count);
	return 0;
}
