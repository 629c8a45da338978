/*
 * progress.c --- -C fd progress, in the manner of e2fsck: on fd 0 a bar on
 * the terminal, on any other descriptor one line per update,
 * "stage current maximum device".
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static struct {
	int		fd;
	const char	*device;
	int		active;
	int		last_percent;
	enum e2sr_stage	last_stage;
	enum e2sr_stage	bar_stage;
} prog;

#define BAR_WIDTH	30

/*
 * The terminal bar, as e2fsck -C 0 draws it: the stage, a bar of '='
 * and the percentage, redrawn in place; a new stage starts a new line.
 */
static void bar_line(enum e2sr_stage stage, int percent)
{
	char line[160], bar[BAR_WIDTH + 1];
	int n, fill = percent * BAR_WIDTH / 100;

	if (prog.active && stage != prog.bar_stage && write(1, "\n", 1) < 0)
		return;
	prog.bar_stage = stage;
	memset(bar, '=', fill);
	memset(bar + fill, ' ', BAR_WIDTH - fill);
	bar[BAR_WIDTH] = 0;
	n = snprintf(line, sizeof(line), "\r%s: %-26s |%s| %3d%%",
		     prog.device, e2sr_stage_label(stage), bar, percent);
	prog.active = 1;
	if (n > 0 && write(1, line, n) < 0)
		return;
}

static void on_progress(void *data EXT2FS_ATTR((unused)),
			enum e2sr_stage stage, unsigned long long cur,
			unsigned long long max)
{
	char line[160];
	int percent, n;

	if (!max)
		return;
	percent = (int)(cur * 100 / max);
	if (percent > 100)
		percent = 100;
	if (stage == prog.last_stage && percent == prog.last_percent)
		return;
	prog.last_stage = stage;
	prog.last_percent = percent;
	if (prog.fd == 0) {
		bar_line(stage, percent);
		return;
	}
	n = snprintf(line, sizeof(line), "%d %llu %llu %s\n", stage, cur, max,
		     prog.device);
	if (n > 0 && write(prog.fd, line, n) < 0)
		return;
}

void progress_setup(struct e2sr_ctx *ctx, const struct cmd_opts *o)
{
	if (o->progress_fd < 0)
		return;
	if (o->progress_fd == 0 && !isatty(1))
		return;
	prog.fd = o->progress_fd;
	prog.device = o->device;
	prog.last_percent = -1;
	ctx->hooks.progress = on_progress;
}

void progress_done(struct e2sr_ctx *ctx EXT2FS_ATTR((unused)))
{
	if (prog.active && write(1, "\n", 1) < 0)
		return;
	prog.active = 0;
}
