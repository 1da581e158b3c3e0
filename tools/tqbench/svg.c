// SPDX-License-Identifier: GPL-2.0
/*
 * svg.c - the SVG primitives tqbench's plots are drawn with (no plotting
 * package): the document, text, markers, a panel's axes and its grid, and
 * legends laid out clear of one another, placed outside the panels.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/tqbench/report.h"
#include "tq/num.h"

const char *const svg_colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				   "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
				   "#393b79", "#637939" };

void svg_begin(FILE *f, int w, int h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"11\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h);
}

void svg_text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", x, y, anchor, s);
}

/* A marker: 0 circle, 1 square, 2 diamond, 3 triangle, 4 cross, 5 ring. */
void svg_marker(FILE *f, int shape, double x, double y, const char *color)
{
	switch (shape) {
	case 5:
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" "
			   "stroke-width=\"2\"/>\n", x, y, color);
		break;
	case 0:
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y, color);
		break;
	case 1:
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>\n",
			x - 3.5, y - 3.5, color);
		break;
	case 2:
		fprintf(f, "<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"%s\"/>\n", x, y - 5,
			color);
		break;
	case 3:
		fprintf(f, "<path d=\"M%.1f %.1fl5 9h-10z\" fill=\"%s\"/>\n", x, y - 5, color);
		break;
	default:
		fprintf(f, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" "
			   "stroke-width=\"2\"/>\n", x - 4, y - 4, color);
	}
}

/* Tick k of an axis stepping by step: its label, of class "tick" (tests read them). */
void svg_tick(FILE *f, double x, double y, const char *anchor, long k, double step)
{
	char buf[32];

	tq_tick_label(buf, sizeof(buf), k, step);
	fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
		x, y, anchor, buf);
}

/*
 * Axes of a panel at (x0, y0) size w x h for y in [*lo, *hi], widened to
 * the nice step's multiples, so that the axis starts and ends at a tick.
 */
void svg_axes(FILE *f, double x0, double y0, double w, double h, double *lo, double *hi,
	      const char *title, const char *ylabel)
{
	double step = tq_nice_step(*hi - *lo, SVG_TICKS);

	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", x0, y0, w, h);
	for (long k = lround(*lo / step); k * step <= *hi + step * 1e-9; k++) {
		double y = y0 + h - (k * step - *lo) / (*hi - *lo) * h;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#ddd\"/>\n", x0, y, x0 + w, y);
		svg_tick(f, x0 - 4, y + 4, "end", k, step);
	}
	svg_text(f, x0 + w / 2, y0 - 6, "middle", title);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		   "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", x0 - 38, y0 + h / 2,
		x0 - 38, y0 + h / 2, ylabel);
}

/* Text's width at font-size 11, about: no font metrics here. */
static double text_width(const char *s)
{
	return 6.5 * strlen(s);
}

void svg_legend_begin(FILE *f, struct svg_legend *l, double left, double top, double right)
{
	l->left = left;
	l->right = right;
	l->x = left;
	l->y = top;
	fprintf(f, "<g class=\"legend\">\n");
}

/*
 * An entry, left to right, on a new row where it would pass the right
 * edge: so no entry lies over another.
 */
void svg_legend_add(FILE *f, struct svg_legend *l, int key, const char *color, const char *text)
{
	double w = (key == SVG_KEY_NONE ? 0 : 14) + text_width(text);

	if (l->x > l->left && l->x + w > l->right) {
		l->x = l->left;
		l->y += 16;
	}
	if (key == SVG_KEY_BOX)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			l->x - 5, l->y - 5, color);
	else if (key == SVG_KEY_RANGE)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			   "stroke-width=\"2\"/>\n", l->x, l->y - 6, l->x, l->y + 6, color);
	else if (key != SVG_KEY_NONE)
		svg_marker(f, key, l->x, l->y, color);
	if (key == SVG_KEY_NONE)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", l->x - 5,
			l->y + 4, color, text);
	else
		svg_text(f, l->x + 9, l->y + 4, "start", text);
	l->x += w + 18;
}

void svg_legend_end(FILE *f)
{
	fprintf(f, "</g>\n");
}
