/*
 * progress.c --- -C fd progress, in the manner of e2fsck: on fd 0 a bar on
 * the terminal, with the count done and the time the stage has left at
 * its pace so far; on any other descriptor one line per update,
 * "stage current maximum device", as e2fsck writes them.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

static struct {
	int		fd;
	const char	*device;
	int		active;
	int		last_percent;
	time_t		last_shown;
	enum e2sr_stage	last_stage;
	enum e2sr_stage	bar_stage;
	double		stage_start;	/* when the stage began, monotonic */
} prog;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The time the stage has left, at the pace it has kept so far: only once
 * it has run a few seconds and done some of its work, else nothing.
 */
static void time_left(unsigned long long cur, unsigned long long max,
		      char *buf, size_t len)
{
	double spent = now() - prog.stage_start, left;

	buf[0] = 0;
	if (spent < 3 || !cur || cur >= max)
		return;
	left = spent * (double)(max - cur) / (double)cur;
	if (left >= 3600)
		snprintf(buf, len, ", %d:%02d:%02d left", (int)(left / 3600),
			 (int)left / 60 % 60, (int)left % 60);
	else
		snprintf(buf, len, ", %d:%02d left", (int)left / 60,
			 (int)left % 60);
}

#define BAR_WIDTH	30

/*
 * The terminal bar, as e2fsck -C 0 draws it: the stage, a bar of '='
 * and the percentage, redrawn in place; a new stage starts a new line.
 */
static void bar_line(enum e2sr_stage stage, int percent,
		     unsigned long long cur, unsigned long long max)
{
	char line[200], bar[BAR_WIDTH + 1], left[40];
	int n, fill = percent * BAR_WIDTH / 100;

	if (prog.active && stage != prog.bar_stage && write(1, "\n", 1) < 0)
		return;
	prog.bar_stage = stage;
	memset(bar, '=', fill);
	memset(bar + fill, ' ', BAR_WIDTH - fill);
	bar[BAR_WIDTH] = 0;
	time_left(cur, max, left, sizeof(left));
	/* Spaces at the end: a shorter line over a longer one. */
	n = snprintf(line, sizeof(line), "\r%s: %-26s |%s| %3d%% %llu/%llu%s "
		     "   ", prog.device, e2sr_stage_label(stage), bar, percent,
		     cur, max, left);
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
	if (stage != prog.last_stage)
		prog.stage_start = now();
	/* The bar also moves each second, for its count and time left. */
	if (stage == prog.last_stage && percent == prog.last_percent &&
	    (prog.fd != 0 || time(NULL) == prog.last_shown))
		return;
	prog.last_stage = stage;
	prog.last_percent = percent;
	prog.last_shown = time(NULL);
	if (prog.fd == 0) {
		bar_line(stage, percent, cur, max);
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
