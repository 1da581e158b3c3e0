// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c - the progress bar of progress.h: one redrawn line on a
 * terminal, a line a stage in a log.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/progress.h"
#include "tq/clock.h"

#define BAR	30

static struct {
	char what[64];
	double total, done;
	double t0, last;
	bool tty;
} pg;

void progress_begin(const char *what, double total)
{
	snprintf(pg.what, sizeof(pg.what), "%s", what);
	pg.total = total > 0 ? total : 1;
	pg.done = 0;
	pg.t0 = pg.last = tq_now_s();
	pg.tty = isatty(STDERR_FILENO);
	if (!pg.tty)
		fprintf(stderr, "%s ...\n", pg.what);
	progress_step(0, NULL);
}

void progress_step(double done, const char *note)
{
	double t = tq_now_s(), f;
	int fill;

	pg.done += done;
	if (!pg.tty || (t - pg.last < 0.1 && pg.done < pg.total && pg.done > 0))
		return;
	pg.last = t;
	f = pg.done / pg.total;
	f = f > 1 ? 1 : f;
	fill = (int)(f * BAR);
	fprintf(stderr, "\r%-24.24s [%.*s%*s] %3.0f%% %5.1fs %-28.28s", pg.what, fill,
		"##############################", BAR - fill, "", 100 * f, t - pg.t0,
		note ? note : "");
}

void progress_end(void)
{
	double t = tq_now_s() - pg.t0;

	if (pg.tty)
		fprintf(stderr, "\r%-24.24s [%.*s] 100%% %5.1fs %-28s\n", pg.what, BAR,
			"##############################", t, "");
	else
		fprintf(stderr, "%s: done in %.1f s\n", pg.what, t);
}
