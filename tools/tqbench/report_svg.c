// SPDX-License-Identifier: GPL-2.0
/*
 * report_svg.c - tqbench's SVG plots of the experiments, in the style of
 * the paper's Figures 7 and 9-11 (speedups per benchmark, the model's
 * error, the means over a suite), and the stream's throughput and engine
 * use.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/report.h"

/*
 * Figures 9 and 10: fifo, paper, neh, exact, auto (red dot, as the paper's
 * heuristic), auto's order run fixed, independent contexts.
 */
static const int fig_shape[7] = { 1, 2, 3, 5, 0, 5, 3 };
static const char *const fig_color[7] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
					  "#d62728", "#8c564b", "#e377c2" };

/* Widen [*lo, *hi] to hold v, a speedup drawn; 0: none. */
static void span(double v, double *lo, double *hi)
{
	if (v > 0) {
		*lo = fmin(*lo, v);
		*hi = fmax(*hi, v);
	}
}

/* Figures 9 and 10: speedup over the worst order, per benchmark, one panel per TxN. */
static int svg_speedups(const char *path, const char *suite, struct result *const *rs,
			unsigned int n)
{
	static const char *const setups[] = { "fifo", "paper", "neh", "exact", "auto",
					      "auto order", "independent" };
	unsigned int cfg[MAX_CFG][2], ncfg = 0;
	double hi = 1.1, lo = 1;
	int pw = 300, ph = 220, W, H;
	FILE *f;

	for (unsigned int i = 0; i < n; i++) {
		struct summary s;
		bool seen = false;

		if (strcmp(rs[i]->s->name, suite))
			continue;
		for (unsigned int c = 0; c < ncfg; c++)
			seen |= cfg[c][0] == rs[i]->T && cfg[c][1] == rs[i]->N;
		if (!seen && ncfg < MAX_CFG) {
			cfg[ncfg][0] = rs[i]->T;
			cfg[ncfg++][1] = rs[i]->N;
		}
		summarize(rs[i], &s);
		hi = fmax(hi, speedup(&s, s.best));
		for (int p = 0; p < NPOL; p++)
			span(speedup(&s, rs[i]->pol_ms[p]), &lo, &hi);
		span(speedup(&s, rs[i]->fixed_ms[NPOL - 1]), &lo, &hi);
		span(speedup(&s, rs[i]->indep_ms), &lo, &hi);
	}
	if (!ncfg)
		return 0;
	W = 70 + ncfg * (pw + 60);
	H = ph + 150;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	for (unsigned int c = 0; c < ncfg; c++) {
		double x0 = 70 + c * (pw + 60), y0 = 40;
		char title[64];
		unsigned int nb = 0;

		snprintf(title, sizeof(title), "%s, T=%u, N=%u", suite, cfg[c][0], cfg[c][1]);
		svg_axes(f, x0, y0, pw, ph, &lo, &hi, title, "speedup over the worst order");
		for (unsigned int i = 0; i < n; i++) {
			const struct result *r = rs[i];
			struct summary s;
			double x, y1, yb, ym;
#define Y(v) (y0 + ph - ((v) - lo) / (hi - lo) * ph)
			if (strcmp(r->s->name, suite) || r->T != cfg[c][0] || r->N != cfg[c][1])
				continue;
			summarize(r, &s);
			x = x0 + (nb + 0.5) * pw / r->s->nbench;
			nb++;
			y1 = Y(1);
			yb = Y(speedup(&s, s.best));
			ym = Y(speedup(&s, s.median));
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				   "stroke=\"#555\" stroke-width=\"2\"/>\n", x, y1, x, yb);
			fprintf(f, "<path d=\"M%.1f %.1fh12M%.1f %.1fh12\" stroke=\"#555\" "
				   "stroke-width=\"2\"/>\n", x - 6, yb, x - 6, y1);
			svg_marker(f, 4, x, ym, "#000");
			for (int p = 0; p < NPOL; p++)
				if (r->pol_ms[p] > 0)
					svg_marker(f, fig_shape[p], x + 10 + 4 * p,
					       Y(speedup(&s, r->pol_ms[p])), fig_color[p]);
			if (r->fixed_ms[NPOL - 1] > 0)
				svg_marker(f, fig_shape[5], x - 10,
				       Y(speedup(&s, r->fixed_ms[NPOL - 1])), fig_color[5]);
			if (r->indep_ms > 0)
				svg_marker(f, fig_shape[6], x - 18, Y(speedup(&s, r->indep_ms)),
				       fig_color[6]);
			svg_text(f, x, y0 + ph + 14, "middle", r->s->bench[r->bench]);
#undef Y
		}
	}
	/* the legend below the panels */
	{
		struct svg_legend l;

		svg_legend_begin(f, &l, 70, 40 + ph + 40, W - 10);
		svg_legend_add(f, &l, SVG_KEY_RANGE, "#555", "NoReorder: worst (1) to best order");
		svg_legend_add(f, &l, 4, "#000", "median order");
		for (int p = 0; p < 7; p++)
			svg_legend_add(f, &l, fig_shape[p], fig_color[p],
				       p < NPOL ? setups[p] : p == 5 ?
				       "auto's order, fixed (no usched)" : "independent contexts");
		svg_legend_add(f, &l, SVG_KEY_NONE, "#555", "(policies: through usched)");
		svg_legend_end(f);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

/* Figure 7: the model's error per benchmark (every order of one TG) and usched's per TG. */
static int svg_model(const char *path, struct result *const *rs, unsigned int n)
{
	unsigned int m = 0, idx[64], T = 0;
	double hi = 0.5, lo = 0;
	int bw = 16, W, H = 310, x0 = 60, y0 = 30, ph = 200;
	char title[96];
	struct svg_legend l;
	FILE *f;

	/* one TG per experiment (N = 1), the smallest T run: the paper's T = 4 */
	for (unsigned int i = 0; i < n; i++)
		if (rs[i]->N == 1 && (!T || rs[i]->T < T))
			T = rs[i]->T;
	for (unsigned int i = 0; i < n && m < 64; i++) {
		struct summary s;

		if (rs[i]->N != 1 || rs[i]->T != T)
			continue;
		summarize(rs[i], &s);
		idx[m++] = i;
		hi = fmax(hi, 100 * fmax(s.model_err, rs[i]->pol_tg_err[NPOL - 1]));
	}
	if (!m)
		return 0;
	W = x0 + 20 + m * (2 * bw + 14);
	W = W < 420 ? 420 : W;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	snprintf(title, sizeof(title), "model error per benchmark (T=%u, N=1): geometric mean", T);
	svg_axes(f, x0, y0, m * (2 * bw + 14), ph, &lo, &hi, title,
		 "|predicted - measured| / measured, %");
	for (unsigned int k = 0; k < m; k++) {
		const struct result *r = rs[idx[k]];
		struct summary s;
		double x = x0 + 7 + k * (2 * bw + 14), v[2];
		char lab[32];

		summarize(r, &s);
		v[0] = 100 * s.model_err;
		v[1] = 100 * r->pol_tg_err[NPOL - 1];
		for (int j = 0; j < 2; j++) {
			double h = v[j] / hi * ph;

			if (v[j] > 0)
				fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
					   "height=\"%.1f\" fill=\"%s\"/>\n", x + j * bw,
					y0 + ph - h, bw, h, svg_colors[j]);
		}
		snprintf(lab, sizeof(lab), "%s", r->s->bench[r->bench]);
		svg_text(f, x + bw, y0 + ph + 14, "middle", lab);
		svg_text(f, x + bw, y0 + ph + 28, "middle", r->s->synthetic ? "syn" : "real");
	}
	svg_legend_begin(f, &l, x0, y0 + ph + 48, W - 10);
	svg_legend_add(f, &l, SVG_KEY_BOX, svg_colors[0],
		       "every order, standalone times (NoReorder)");
	svg_legend_add(f, &l, SVG_KEY_BOX, svg_colors[1], "usched (auto), per TG, its own model");
	svg_legend_end(f);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

/* Figure 11: geometric means over a suite's experiments of each speedup. */
static int svg_means(const char *path, struct result *const *rs, unsigned int n)
{
	static const char *const names[] = { "best order", "median order", "fifo", "paper", "neh",
					     "exact", "auto", "independent" };
	const char *suites[2] = { "synthetic", "real" };
	double g[2][8] = { { 0 } }, hi = 1.1, lo = 0;
	unsigned int cnt[2][8] = { { 0 } };
	/* a group of two bars and its label every P pixels */
	int P = 76, x0 = 60, W = x0 + 8 * P + 20, H = 300, y0 = 30, ph = 200;
	struct svg_legend l;
	FILE *f;

	for (unsigned int i = 0; i < n; i++) {
		int k = strcmp(rs[i]->s->name, "synthetic") != 0;
		struct summary s;
		double v[8];

		summarize(rs[i], &s);
		v[0] = speedup(&s, s.best);
		v[1] = speedup(&s, s.median);
		for (int p = 0; p < NPOL; p++)
			v[2 + p] = speedup(&s, rs[i]->pol_ms[p]);
		v[7] = speedup(&s, rs[i]->indep_ms);
		for (int j = 0; j < 8; j++) {
			if (v[j] > 0) {
				g[k][j] += log(v[j]);
				cnt[k][j]++;
			}
		}
	}
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < 8; j++)
			if (cnt[k][j])
				hi = fmax(hi, g[k][j] = exp(g[k][j] / cnt[k][j]));
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	svg_axes(f, x0, y0, W - x0 - 20, ph, &lo, &hi,
		 "geometric mean speedup over the worst order", "speedup");
	for (int k = 0; k < 2; k++) {
		for (int j = 0; j < 8; j++) {
			double x = x0 + P / 2 - 22 + j * P + k * 22, h = g[k][j] / hi * ph;

			if (!cnt[k][j])
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"%.1f\" "
				   "fill=\"%s\"/>\n", x, y0 + ph - h, h, svg_colors[k]);
		}
	}
	for (int j = 0; j < 8; j++)
		svg_text(f, x0 + P / 2 + j * P, y0 + ph + 14, "middle", names[j]);
	svg_legend_begin(f, &l, x0, y0 + ph + 40, W - 10);
	for (int k = 0; k < 2; k++)
		svg_legend_add(f, &l, SVG_KEY_BOX, svg_colors[k], suites[k]);
	svg_legend_end(f);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

int report_svg(const char *dir, struct result *const *rs, unsigned int n)
{
	char path[512];
	int ret;

	snprintf(path, sizeof(path), "%s/speedup-synthetic.svg", dir);
	ret = svg_speedups(path, "synthetic", rs, n);
	snprintf(path, sizeof(path), "%s/speedup-real.svg", dir);
	ret = ret ?: svg_speedups(path, "real", rs, n);
	snprintf(path, sizeof(path), "%s/model.svg", dir);
	ret = ret ?: svg_model(path, rs, n);
	snprintf(path, sizeof(path), "%s/means.svg", dir);
	return ret ?: svg_means(path, rs, n);
}

/*
 * The stream: each setup's throughput as a share of the best setup's (the
 * best's bar at 100%), its engines' busy shares beside it, one axis in %.
 */
int report_stream_svg(const char *dir, const struct stream_result *sr, unsigned int n)
{
	int W = 120 + n * 150, H = 300, x0 = 60, y0 = 30, ph = 200;
	double best = 0, lo = 0, hi = 110;	/* room above 100% for the bars' labels */
	static const char *const en[] = { "HtD engine", "kernels", "DtH engine" };
	struct svg_legend l;
	char path[512];
	FILE *f;

	for (unsigned int i = 0; i < n; i++)
		best = fmax(best, sr[i].tput);
	if (!(best > 0))
		return 0;
	snprintf(path, sizeof(path), "%s/stream.svg", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	svg_axes(f, x0, y0, n * 150, ph, &lo, &hi,
		 "stream: throughput (bars, % of the best setup's) and engine use (dots, % busy)",
		 "%");
	for (unsigned int i = 0; i < n; i++) {
		double x = x0 + 20 + i * 150, h = 100 * sr[i].tput / best / hi * ph;
		char lab[64];

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"40\" height=\"%.1f\" "
			   "fill=\"#1f77b4\"><title>%s: %.1f%% of the best</title></rect>\n", x,
			y0 + ph - h, h, sr[i].setup, 100 * sr[i].tput / best);
		snprintf(lab, sizeof(lab), "%.0f/s", sr[i].tput);
		svg_text(f, x + 20, y0 + ph - h - 4, "middle", lab);
		for (int s = 0; s < CLX_STAGES; s++)
			if (sr[i].util[s] >= 0)
				svg_marker(f, s, x + 60 + 14 * s,
					   y0 + ph - 100 * sr[i].util[s] / hi * ph,
					   svg_colors[1 + s]);
		svg_text(f, x + 50, y0 + ph + 14, "middle", sr[i].setup);
	}
	svg_legend_begin(f, &l, x0, y0 + ph + 36, W - 10);
	for (int s = 0; s < CLX_STAGES; s++)
		svg_legend_add(f, &l, s, svg_colors[1 + s], en[s]);
	svg_legend_end(f);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}
