// SPDX-License-Identifier: GPL-2.0
/*
 * svg.c - the SVG primitives tqbench's plots are drawn with (no plotting
 * package): the document, text, markers, a panel's axes and its grid.
 */
#include <math.h>
#include <stdio.h>

#include "tools/tqbench/report.h"

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

/* Axes of a panel at (x0, y0) size w x h for y in [lo, hi]; returns the y scale. */
void svg_axes(FILE *f, double x0, double y0, double w, double h, double lo, double hi,
	      double step, const char *title, const char *ylabel)
{
	char buf[32];

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", x0, y0, w, h);
	for (double v = ceil(lo / step - 1e-9) * step; v <= hi + 1e-9; v += step) {
		double y = y0 + h - (v - lo) / (hi - lo) * h;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#ddd\"/>\n", x0, y, x0 + w, y);
		snprintf(buf, sizeof(buf), "%.2f", v);
		svg_text(f, x0 - 4, y + 4, "end", buf);
	}
	svg_text(f, x0 + w / 2, y0 - 6, "middle", title);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		   "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", x0 - 38, y0 + h / 2,
		x0 - 38, y0 + h / 2, ylabel);
}

double svg_step(double range)
{
	double s = pow(10, floor(log10(range / 4)));

	return range / s > 20 ? 5 * s : range / s > 8 ? 2 * s : s;
}
