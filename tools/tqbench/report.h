/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what tqbench's report files share: an experiment's NoReorder
 * summary and the speedups and shares against it (report.c), and the SVG
 * drawing primitives (svg.c).
 */
#ifndef TQ_BENCH_REPORT_H
#define TQ_BENCH_REPORT_H

#include <stdio.h>

#include "tools/tqbench/bench.h"

/* What the NoReorder orders give: worst, median, best; model error. */
struct summary {
	double worst, median, best;	/* the trials' where they ran */
	double sample_worst, sample_median, sample_best;	/* NoReorder's runs' */
	double model_err;		/* geometric mean |pred - meas| / meas; 0: none */
	double model_err_max;
};

void summarize(const struct result *r, struct summary *s);
/* worst / ms; 0 for no time */
double speedup(const struct summary *s, double ms);
/* (worst / ms - 1) / (worst / best - 1); NaN when there is nothing to gain */
double share_of(double worst, double best, double ms);
double share(const struct summary *s, double ms);
/* The same against NoReorder's own runs' worst and best (the paper's way). */
double sample_share(const struct summary *s, double ms);
/* x with fmt in width, or "-" when it is not a positive number */
void cell(FILE *f, double x, const char *fmt, int width);

/* svg.c */
extern const char *const svg_colors[12];
void svg_begin(FILE *f, int w, int h);
void svg_text(FILE *f, double x, double y, const char *anchor, const char *s);
/* A marker: 0 circle, 1 square, 2 diamond, 3 triangle, 4 cross, 5 ring. */
void svg_marker(FILE *f, int shape, double x, double y, const char *color);
/* Tick k of an axis stepping by step, labelled (class "tick"). */
void svg_tick(FILE *f, double x, double y, const char *anchor, long k, double step);
/* About as many grid lines as a panel's y axis gets (tq_nice_step()). */
#define SVG_TICKS	6
/*
 * Axes of a panel at (x0, y0) size w x h for y in [*lo, *hi], a grid line
 * every nice step; widens the range to start and end at a tick.
 */
void svg_axes(FILE *f, double x0, double y0, double w, double h, double *lo, double *hi,
	      const char *title, const char *ylabel);

/* A legend's entries flow from (left, top) and wrap at right. */
struct svg_legend {
	double left, right, x, y;
};

/* An entry's key: a marker's shape (0-5), or one of these. */
enum { SVG_KEY_NONE = -1, SVG_KEY_BOX = -2, SVG_KEY_RANGE = -3 };
void svg_legend_begin(FILE *f, struct svg_legend *l, double left, double top, double right);
void svg_legend_add(FILE *f, struct svg_legend *l, int key, const char *color, const char *text);
void svg_legend_end(FILE *f);

#endif /* TQ_BENCH_REPORT_H */
