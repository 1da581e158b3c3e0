// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - tqbench's outputs: a table on stdout, CSV files, SVG plots in
 * the style of the paper's Figures 7 and 9-11 (drawn here, no plotting
 * package), and a markdown summary for Documentation/results/.
 *
 * Speedups are over the worst NoReorder order measured, as in the paper;
 * a setup's share of the best gain is (S - 1) / (S_best - 1), the paper's
 * "96% of the improvement obtained by the best ordering". The worst, median
 * and best orders are those NoReorder's runs found, timed as the trials ran
 * them beside the policies (run_trials); NoReorder's own times where there
 * were no trials.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/tqbench/bench.h"
#include "tq/num.h"

/* What the NoReorder orders give: worst, median, best; model error. */
struct summary {
	double worst, median, best;	/* the trials' where they ran */
	double sample_worst, sample_median, sample_best;	/* NoReorder's runs' */
	double model_err;		/* geometric mean |pred - meas| / meas; 0: none */
	double model_err_max;
};

static void summarize(const struct result *r, struct summary *s)
{
	double *v = malloc(r->nperms * sizeof(double)), lsum = 0;
	unsigned int n = 0;

	memset(s, 0, sizeof(*s));
	if (!v || !r->nperms) {
		free(v);
		return;
	}
	s->best = INFINITY;
	for (unsigned int p = 0; p < r->nperms; p++) {
		double m = r->perm_ms[p], pr = r->perm_pred_ms[p];

		v[p] = m;
		s->worst = fmax(s->worst, m);
		s->best = fmin(s->best, m);
		if (pr > 0 && m > 0) {
			double e = fabs(pr - m) / m;

			lsum += log(fmax(e, 1e-6));
			s->model_err_max = fmax(s->model_err_max, e);
			n++;
		}
	}
	s->median = tq_median(v, r->nperms);
	s->model_err = n ? exp(lsum / n) : 0;
	free(v);
	s->sample_worst = s->worst;
	s->sample_median = s->median;
	s->sample_best = s->best;
	if (!r->refs || r->ref_ms[REF_WORST] <= 0)
		return;
	s->worst = r->ref_ms[REF_WORST];
	s->median = r->ref_ms[REF_MEDIAN];
	s->best = r->ref_ms[REF_BEST];
}

static double speedup(const struct summary *s, double ms)
{
	return ms > 0 ? s->worst / ms : 0;
}

/* (worst / ms - 1) / (worst / best - 1); NaN when there is nothing to gain */
static double share_of(double worst, double best, double ms)
{
	return ms > 0 && worst > best ? (worst / ms - 1) / (worst / best - 1) : NAN;
}

static double share(const struct summary *s, double ms)
{
	return share_of(s->worst, s->best, ms);
}

/* The same against NoReorder's own runs' worst and best (the paper's way). */
static double sample_share(const struct summary *s, double ms)
{
	return share_of(s->sample_worst, s->sample_best, ms);
}

static void cell(FILE *f, double x, const char *fmt, int width)
{
	if (x > 0 && isfinite(x))
		fprintf(f, fmt, width, x);
	else
		fprintf(f, " %*s", width - 1, "-");
}

void report_tasks(FILE *f, const struct suite *s)
{
	fprintf(f, "# %s tasks, each alone (medians, ms)\n", s->name);
	fprintf(f, "%-12s %9s %9s %9s %5s %12s %12s\n", "task", "htd", "k", "dth", "class",
		"bytes_in", "bytes_out");
	for (unsigned int i = 0; i < s->npool; i++) {
		const struct btask *b = &s->pool[i];
		double st[CLX_STAGES] = { 0 };

		for (unsigned int c = 0; c < b->ncmds; c++)
			st[b->cmd_stage[c]] += b->cmd_ns[c] / 1e6;
		fprintf(f, "%-12s %9.3f %9.3f %9.3f %5s %12llu %12llu\n", b->name, st[CLX_HTD],
			st[CLX_K], st[CLX_DTH], b->dk ? "DK" : "DT",
			(unsigned long long)btask_bytes(b, BT_IN),
			(unsigned long long)btask_bytes(b, BT_OUT));
	}
}

static bool header_done;

/*
 * One row of tqbench.csv; rest holds the columns from model_err to orders.
 * workers: process for the policies through the daemon, else thread.
 */
static void csv_row_w(FILE *f, const struct result *r, const struct summary *s,
		      const char *setup, double ms, double pred, const char *rest, bool proc)
{
	fprintf(f, "%s,%s,%u,%u,%s,%.4f,%.4f,%.4f,%.4f%s,%s\n", r->s->name, r->s->bench[r->bench],
		r->T, r->N, setup, ms, speedup(s, ms), share(s, ms), pred, rest,
		proc ? "process" : "thread");
}

static void csv_row(FILE *f, const struct result *r, const struct summary *s,
		    const char *setup, double ms, double pred, const char *rest)
{
	csv_row_w(f, r, s, setup, ms, pred, rest, false);
}

void report_row(FILE *t, FILE *csv, FILE *perms, const struct result *r)
{
	static const char *const hdr[] = { "fifo", "paper", "neh", "exact", "auto" };
	const char *bench = r->s->bench[r->bench];
	struct summary s;

	summarize(r, &s);
	if (!header_done) {
		fprintf(t, "%-9s %-5s %4s %11s %8s %5s %5s |", "suite", "bench", "TxN", "perms",
			"worst_ms", "best", "med");
		for (int p = 0; p < NPOL; p++)
			fprintf(t, " %5s", hdr[p]);
		fprintf(t, " | %5s %5s | %5s %6s %6s %s\n", "auto*", "indep", "share", "model%",
			"tg%", "policies");
		header_done = true;
	}
	fprintf(t, "%-9s %-5s %2ux%u %5u/%-5llu %8.2f %5.2f %5.2f |", r->s->name, bench, r->T,
		r->N, r->nperms, (unsigned long long)fmin(r->perm_space, 99999), s.worst,
		speedup(&s, s.best), speedup(&s, s.median));
	for (int p = 0; p < NPOL; p++)
		cell(t, speedup(&s, r->pol_ms[p]), " %*.2f", 5);
	fprintf(t, " |");
	cell(t, speedup(&s, r->fixed_ms[NPOL - 1]), " %*.2f", 5);
	cell(t, speedup(&s, r->indep_ms), " %*.2f", 5);
	fprintf(t, " |");
	cell(t, 100 * share(&s, r->pol_ms[NPOL - 1]), " %*.0f%%", 4);
	cell(t, 100 * s.model_err, " %*.2f", 6);
	cell(t, 100 * r->pol_tg_err[NPOL - 1], " %*.2f", 6);
	fprintf(t, " thread\n");
	if (r->pol_proc) {
		/* the same experiment's policies through the daemon, beside the in-process row */
		fprintf(t, "%-9s %-5s %2ux%u %11s %8s %5s %5s |", r->s->name, bench, r->T, r->N, "",
			"", "", "");
		for (int p = 0; p < NPOL; p++)
			cell(t, speedup(&s, r->proc_ms[p]), " %*.2f", 5);
		fprintf(t, " | %5s %5s |", "", "");
		cell(t, 100 * share(&s, r->proc_ms[NPOL - 1]), " %*.0f%%", 4);
		fprintf(t, " %6s %6s process\n", "", "");
	}
	fflush(t);

	if (csv) {
		char rest[128];

		snprintf(rest, sizeof(rest), ",,,,,,%u", r->nperms);
		csv_row(csv, r, &s, "noreorder_worst", s.worst, 0, rest);
		csv_row(csv, r, &s, "noreorder_median", s.median, 0, rest);
		csv_row(csv, r, &s, "noreorder_sample_worst", s.sample_worst, 0, rest);
		csv_row(csv, r, &s, "noreorder_sample_median", s.sample_median, 0, rest);
		csv_row(csv, r, &s, "noreorder_sample_best", s.sample_best, 0, rest);
		snprintf(rest, sizeof(rest), ",%.6f,%.6f,,,,,%u", s.model_err, s.model_err_max,
			 r->nperms);
		csv_row(csv, r, &s, "noreorder_best", s.best, 0, rest);
		for (int p = 0; p < NPOL; p++) {
			char name[32];

			snprintf(name, sizeof(name), "usched_%s", policy_names[p]);
			snprintf(rest, sizeof(rest), ",%.6f,,%u,%.3f,%.3f,%.4f,", r->pol_tg_err[p],
				 r->pol_tgs[p], r->pol_sched_ns[p] / 1e3, r->pol_refine_ns[p] / 1e3,
				 r->pol_tg_ms[p]);
			if (r->pol_ms[p] > 0)
				csv_row(csv, r, &s, name, r->pol_ms[p], 0, rest);
			snprintf(rest, sizeof(rest), ",,,%u,%.3f,%.3f,%.4f,", r->proc_tgs[p],
				 r->proc_sched_ns[p] / 1e3, r->proc_refine_ns[p] / 1e3,
				 r->proc_tg_ms[p]);
			if (r->proc_ms[p] > 0)
				csv_row_w(csv, r, &s, name, r->proc_ms[p], 0, rest, true);
			snprintf(name, sizeof(name), "order_%s", policy_names[p]);
			if (r->fixed_ms[p] > 0)
				csv_row(csv, r, &s, name, r->fixed_ms[p], r->fixed_pred_ms[p],
					",,,,,,,");
		}
		if (r->indep_ms > 0)
			csv_row(csv, r, &s, "independent", r->indep_ms, 0, ",,,,,,,");
	}
	for (unsigned int p = 0; perms && p < r->nperms; p++) {
		fprintf(perms, "%s,%s,%u,%u,%u,", r->s->name, bench, r->T, r->N, p);
		for (unsigned int i = 0; i < r->nslots; i++)
			fprintf(perms, "%s%u", i ? " " : "", r->perm[p][i]);
		fprintf(perms, ",%.4f,%.4f\n", r->perm_ms[p], r->perm_pred_ms[p]);
	}
}

void report_stream(FILE *t, FILE *csv, const struct stream_result *sr)
{
	static bool hdr;

	if (!hdr) {
		fprintf(t, "%-12s %3s %8s %9s %6s %6s %6s %6s %6s %8s %8s %6s %7s %5s %6s\n",
			"stream", "P", "tasks", "tasks/s", "htd%", "k%", "dth%", "dev%", "bound%",
			"p50_ms", "p99_ms", "tg_err", "sched%", "tg_n", "poll%");
		hdr = true;
	}
	fprintf(t, "%-12s %3u %8llu %9.1f", sr->setup, sr->workers,
		(unsigned long long)sr->tasks, sr->tput);
	for (int s = 0; s < CLX_STAGES; s++)
		cell(t, 100 * sr->util[s], " %*.1f", 6);
	cell(t, 100 * sr->device_util, " %*.1f", 6);
	cell(t, 100 * sr->bound_util, " %*.1f", 6);
	fprintf(t, " %8.2f %8.2f", sr->p50_ms, sr->p99_ms);
	cell(t, 100 * sr->tg_err, " %*.2f", 6);
	cell(t, 100 * sr->sched_share, " %*.3f", 7);
	cell(t, sr->tg_size, " %*.1f", 5);
	if (sr->tg_size > 0)
		fprintf(t, " %6.1f", 100 * sr->polled);
	else
		fprintf(t, " %6s", "-");
	fputc('\n', t);
	if (csv)
		fprintf(csv, "%s,%u,%.3f,%llu,%.3f,%.5f,%.5f,%.5f,%.5f,%.5f,%.4f,%.4f,%.6f,%.6f,"
			"%.3f,%.4f\n", sr->setup, sr->workers, sr->secs,
			(unsigned long long)sr->tasks, sr->tput, sr->util[0], sr->util[1],
			sr->util[2], sr->device_util, sr->bound_util, sr->p50_ms, sr->p99_ms,
			sr->tg_err, sr->sched_share, sr->tg_size, sr->polled);
}

/* SVG */

static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
				      "#393b79", "#637939" };

/*
 * Figures 9 and 10: fifo, paper, neh, exact, auto (red dot, as the paper's
 * heuristic), auto's order run fixed, independent contexts.
 */
static const int fig_shape[7] = { 1, 2, 3, 5, 0, 5, 3 };
static const char *const fig_color[7] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
					  "#d62728", "#8c564b", "#e377c2" };

static void svg_begin(FILE *f, int w, int h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"11\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", x, y, anchor, s);
}

/* A marker: 0 circle, 1 square, 2 diamond, 3 triangle, 4 cross, 5 ring. */
static void marker(FILE *f, int shape, double x, double y, const char *color)
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
static void panel_axes(FILE *f, double x0, double y0, double w, double h, double lo, double hi,
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
		text(f, x0 - 4, y + 4, "end", buf);
	}
	text(f, x0 + w / 2, y0 - 6, "middle", title);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		   "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", x0 - 38, y0 + h / 2,
		x0 - 38, y0 + h / 2, ylabel);
}

static double nice_step(double range)
{
	double s = pow(10, floor(log10(range / 4)));

	return range / s > 20 ? 5 * s : range / s > 8 ? 2 * s : s;
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
			hi = fmax(hi, speedup(&s, rs[i]->pol_ms[p]));
		if (rs[i]->indep_ms > 0)
			lo = fmin(lo, speedup(&s, rs[i]->indep_ms));
	}
	if (!ncfg)
		return 0;
	hi = ceil(hi * 20) / 20;
	lo = floor(lo * 20) / 20;
	W = 70 + ncfg * (pw + 60);
	H = ph + 140;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	for (unsigned int c = 0; c < ncfg; c++) {
		double x0 = 70 + c * (pw + 60), y0 = 40;
		char title[64];
		unsigned int nb = 0;

		snprintf(title, sizeof(title), "%s, T=%u, N=%u", suite, cfg[c][0], cfg[c][1]);
		panel_axes(f, x0, y0, pw, ph, lo, hi, nice_step(hi - lo), title,
			   "speedup over the worst order");
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
			marker(f, 4, x, ym, "#000");
			for (int p = 0; p < NPOL; p++)
				if (r->pol_ms[p] > 0)
					marker(f, fig_shape[p], x + 10 + 4 * p,
					       Y(speedup(&s, r->pol_ms[p])), fig_color[p]);
			if (r->fixed_ms[NPOL - 1] > 0)
				marker(f, fig_shape[5], x - 10,
				       Y(speedup(&s, r->fixed_ms[NPOL - 1])), fig_color[5]);
			if (r->indep_ms > 0)
				marker(f, fig_shape[6], x - 18, Y(speedup(&s, r->indep_ms)),
				       fig_color[6]);
			text(f, x, y0 + ph + 14, "middle", r->s->bench[r->bench]);
#undef Y
		}
	}
	/* legend */
	{
		double y = H - 50;

		fprintf(f, "<line x1=\"70\" y1=\"%.1f\" x2=\"70\" y2=\"%.1f\" stroke=\"#555\" "
			   "stroke-width=\"2\"/>\n", y - 6, y + 6);
		text(f, 78, y + 4, "start", "NoReorder: worst (1) to best order");
		marker(f, 4, 300, y, "#000");
		text(f, 310, y + 4, "start", "median order");
		for (int p = 0; p < 7; p++) {
			double x = 70 + (p % 4) * 170, yy = y + 18 + (p / 4) * 16;

			marker(f, fig_shape[p], x, yy, fig_color[p]);
			text(f, x + 10, yy + 4, "start",
			     p < NPOL ? setups[p] : p == 5 ? "auto's order, fixed (no usched)" :
			     "independent contexts");
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">policies: through usched"
			   "</text>\n", W - 200, H - 8);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

/* Figure 7: the model's error per benchmark (every order of one TG) and usched's per TG. */
static int svg_model(const char *path, struct result *const *rs, unsigned int n)
{
	unsigned int m = 0, idx[64], T = 0;
	double hi = 0.5;
	int bw = 16, W, H = 300, x0 = 60, y0 = 30, ph = 200;
	char title[96];
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
	hi = ceil(hi * 2) / 2;
	W = x0 + 20 + m * (2 * bw + 14);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W < 420 ? 420 : W, H);
	snprintf(title, sizeof(title), "model error per benchmark (T=%u, N=1): geometric mean", T);
	panel_axes(f, x0, y0, m * (2 * bw + 14), ph, 0, hi, nice_step(hi), title,
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
					y0 + ph - h, bw, h, colors[j]);
		}
		snprintf(lab, sizeof(lab), "%s", r->s->bench[r->bench]);
		text(f, x + bw, y0 + ph + 14, "middle", lab);
		text(f, x + bw, y0 + ph + 28, "middle", r->s->synthetic ? "syn" : "real");
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n", x0,
		H - 36, colors[0]);
	text(f, x0 + 14, H - 27, "start", "every order, standalone times (NoReorder)");
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n", x0,
		H - 20, colors[1]);
	text(f, x0 + 14, H - 11, "start", "usched (auto), per TG, its own model");
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

/* Figure 11: geometric means over a suite's experiments of each speedup. */
static int svg_means(const char *path, struct result *const *rs, unsigned int n)
{
	static const char *const names[] = { "best order", "median order", "fifo", "paper", "neh",
					     "exact", "auto", "independent" };
	const char *suites[2] = { "synthetic", "real" };
	double g[2][8] = { { 0 } }, hi = 1.1;
	unsigned int cnt[2][8] = { { 0 } };
	int W = 560, H = 300, x0 = 60, y0 = 30, ph = 200;
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
	hi = ceil(hi * 10) / 10;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	panel_axes(f, x0, y0, W - x0 - 20, ph, 0, hi, nice_step(hi),
		   "geometric mean speedup over the worst order", "speedup");
	for (int k = 0; k < 2; k++) {
		for (int j = 0; j < 8; j++) {
			double x = x0 + 10 + j * 58 + k * 22, h = g[k][j] / hi * ph;

			if (!cnt[k][j])
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"%.1f\" "
				   "fill=\"%s\"/>\n", x, y0 + ph - h, h, colors[k]);
		}
	}
	for (int j = 0; j < 8; j++)
		text(f, x0 + 31 + j * 58, y0 + ph + 14, "middle", names[j]);
	for (int k = 0; k < 2; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			x0 + k * 120, H - 30, colors[k]);
		text(f, x0 + 14 + k * 120, H - 21, "start", suites[k]);
	}
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

int report_stream_svg(const char *dir, const struct stream_result *sr, unsigned int n)
{
	int W = 120 + n * 150, H = 300, x0 = 60, y0 = 30, ph = 200;
	double hi = 1;
	char path[512];
	FILE *f;

	if (!n)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		hi = fmax(hi, sr[i].tput);
	hi *= 1.1;
	snprintf(path, sizeof(path), "%s/stream.svg", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	panel_axes(f, x0, y0, n * 150, ph, 0, 100, 20,
		   "stream: throughput (bar, % of the best) and engine use (dots)", "%");
	for (unsigned int i = 0; i < n; i++) {
		double x = x0 + 20 + i * 150, h = sr[i].tput / hi * ph;
		char lab[64];

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"40\" height=\"%.1f\" "
			   "fill=\"#1f77b4\"/>\n", x, y0 + ph - h, h);
		snprintf(lab, sizeof(lab), "%.0f/s", sr[i].tput);
		text(f, x + 20, y0 + ph - h - 4, "middle", lab);
		for (int s = 0; s < CLX_STAGES; s++)
			if (sr[i].util[s] >= 0)
				marker(f, s, x + 60 + 14 * s, y0 + ph - sr[i].util[s] * ph,
				       colors[1 + s]);
		text(f, x + 50, y0 + ph + 14, "middle", sr[i].setup);
	}
	for (int s = 0; s < CLX_STAGES; s++) {
		static const char *const en[] = { "HtD engine", "kernels", "DtH engine" };

		marker(f, s, x0 + 10 + s * 110, H - 25, colors[1 + s]);
		text(f, x0 + 20 + s * 110, H - 21, "start", en[s]);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

/* Markdown */

struct tally {
	double sum, min, max;
	unsigned int n;
};

static void tally_add(struct tally *t, double x)
{
	if (!isfinite(x))
		return;
	t->min = t->n ? fmin(t->min, x) : x;
	t->max = t->n ? fmax(t->max, x) : x;
	t->sum += x;
	t->n++;
}

static double tally_mean(const struct tally *t)
{
	return t->n ? t->sum / t->n : 0;
}

/*
 * Overlapped slowdowns @htd, @dth (0: none seen) that differ from the
 * profile's by more than 1% in either direction, after @what: the host's
 * copies did not overlap as calibrated.
 */
static void slowdowns_off(FILE *f, const char *what, double htd, double dth,
			  const struct tq_dev *dev)
{
	bool off = (htd > 0 && fabs(htd / dev->slow[TQ_HTD] - 1) > 0.01) ||
		   (dth > 0 && fabs(dth / dev->slow[TQ_DTH] - 1) > 0.01);

	if (!off || dev->dma != 2)
		return;
	fprintf(f, "%s", what);
	if (htd > 0)
		fprintf(f, " HtD x%.3f", htd);
	if (dth > 0)
		fprintf(f, " DtH x%.3f", dth);
}

/* Passes and trials run again for a slow host, or kept though it was (steady.c). */
static void host_note(FILE *f, const struct result *r)
{
	static const char *const what[2] = { "passes", "trials" };

	for (int i = 0; i < 2; i++) {
		if (r->redone[i])
			fprintf(f, "; %s run again %u", what[i], r->redone[i]);
		if (r->unsteady[i])
			fprintf(f, "; %s unsteady %u", what[i], r->unsteady[i]);
	}
}

int report_md(const char *path, const struct env *e, struct result *const *rs, unsigned int n,
	      const struct stream_result *sr, unsigned int nstream, const char *cmdline)
{
	static const char *const suite_name[2] = { "synthetic", "real tasks" };
	static const char *const group_name[2] = { "one TG (N = 1)", "rounds (N > 1)" };
	char when[64];
	time_t now = time(NULL);
	/*
	 * [suite][N == 1 or not][auto through usched, auto's order fixed,
	 * auto through usched against NoReorder's own runs]
	 */
	struct tally sh[2][2][3] = { 0 }, sched[2] = { 0 }, refine[2] = { 0 };
	double sched_max[2] = { 0 };
	unsigned int sched_over[2] = { 0 }, sched_n[2] = { 0 };
	unsigned int beats[2][2] = { { 0 } }, all[2][2] = { { 0 } }, flat[2][2] = { { 0 } };
	double worst_err[2] = { 0 };
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f, "<!-- written by tqbench; see Documentation/results/README.md -->\n");
	fprintf(f, "# tqbench on %s\n\n", e->c.name);
	fprintf(f, "- date: %s\n- device: %s (%s), %u compute units, copy engines: %u\n", when,
		e->c.name, e->c.platform, e->c.cus, e->prof.dma);
	fprintf(f, "- command: `%s`\n", cmdline);
	fprintf(f, "- synthetic time unit %.3g ms; real tasks sized to Table 5 (%s) x %.3g; "
		   "%u runs per NoReorder order, median; %u trials of the reference orders and "
		   "the policies, median\n\n", e->o->unit_ms, e->o->table5, e->o->real_scale,
		e->o->runs, e->o->trials);
	if (e->steady.probes)
		fprintf(f, "- steady host (--steady): %u probes of the host's overlapped HtD "
			   "copies, %u above x%.3f; waited %u times for a steady host, %.1f s in "
			   "all\n\n", e->steady.probes, e->steady.slow_probes, e->steady.limit,
			e->steady.waits, e->steady.waited_s);

	if (n) {	/* none with --setups stream alone */
		fprintf(f, "## Speedup over the worst order\n\n");
		fprintf(f, "| suite | bench | TxN | orders | worst ms | best | median | fifo | "
			   "paper | neh | exact | auto | auto order | independent | auto share | "
			   "model err | usched TG err |\n");
		fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct result *r = rs[i];
		const struct copy_stretch *c = &r->stretch;
		int k = !r->s->synthetic, g = r->N > 1;
		struct summary s;
		double x;

		summarize(r, &s);
		fprintf(f, "| %s | %s | %ux%u | %u of %llu | %.2f | %.3f | %.3f |", r->s->name,
			r->s->bench[r->bench], r->T, r->N, r->nperms,
			(unsigned long long)r->perm_space, s.worst, speedup(&s, s.best),
			speedup(&s, s.median));
		for (int p = 0; p < NPOL; p++) {
			if (r->pol_ms[p] > 0)
				fprintf(f, " %.3f |", speedup(&s, r->pol_ms[p]));
			else
				fprintf(f, " - |");
		}
		fprintf(f, " %.3f |", speedup(&s, r->fixed_ms[NPOL - 1]));
		if (r->indep_ms > 0)
			fprintf(f, " %.3f |", speedup(&s, r->indep_ms));
		else
			fprintf(f, " - |");
		x = share(&s, r->pol_ms[NPOL - 1]);
		if (isfinite(x))
			fprintf(f, " %.1f%% |", 100 * x);
		else
			fprintf(f, " - |");
		if (s.model_err > 0)
			fprintf(f, " %.2f%% (max %.2f%%)", 100 * s.model_err,
				100 * s.model_err_max);
		else
			fprintf(f, " -");
		/* copies alone ran slower than standalone: the device was not as measured */
		if (c->drift_n && c->drift_sum / c->drift_n > 1.01)
			fprintf(f, "; copies +%.1f%%", 100 * (c->drift_sum / c->drift_n - 1));
		slowdowns_off(f, "; overlapped", c->ov_n[0] ? c->ov_sum[0] / c->ov_n[0] : 0,
			      c->ov_n[1] ? c->ov_sum[1] / c->ov_n[1] : 0, &e->dev);
		host_note(f, r);
		fprintf(f, " |");
		if (r->pol_tg_err[NPOL - 1] > 0)
			fprintf(f, " %.2f%%", 100 * r->pol_tg_err[NPOL - 1]);
		else
			fprintf(f, " -");
		slowdowns_off(f, "; learned", r->pol_copy_slow[NPOL - 1][0],
			      r->pol_copy_slow[NPOL - 1][1], &e->dev);
		fprintf(f, " |\n");
		/* a share of less than 2% to gain is noise: those are counted apart */
		if (r->pol_ms[NPOL - 1] > 0) {
			all[k][g]++;
			beats[k][g] += r->pol_ms[NPOL - 1] < s.median;
			if (speedup(&s, s.best) < 1.02) {
				flat[k][g]++;
			} else {
				tally_add(&sh[k][g][0], share(&s, r->pol_ms[NPOL - 1]));
				tally_add(&sh[k][g][2], sample_share(&s, r->pol_ms[NPOL - 1]));
			}
		}
		if (r->fixed_ms[NPOL - 1] > 0 && speedup(&s, s.best) >= 1.02)
			tally_add(&sh[k][g][1], share(&s, r->fixed_ms[NPOL - 1]));
		if (r->N == 1)
			worst_err[k] = fmax(worst_err[k], s.model_err);
		if (r->pol_tg_ms[NPOL - 1] > 0) {
			tally_add(&sched[g],
				  r->pol_sched_ns[NPOL - 1] / 1e6 / r->pol_tg_ms[NPOL - 1]);
			tally_add(&refine[g],
				  r->pol_refine_ns[NPOL - 1] / 1e6 / r->pol_tg_ms[NPOL - 1]);
		}
		sched_max[g] = fmax(sched_max[g], r->pol_sched_max[NPOL - 1]);
		sched_over[g] += r->pol_sched_over[NPOL - 1];
		sched_n[g] += r->pol_sched_n[NPOL - 1];
	}
	if (n)
		fprintf(f, "\nSpeedups are over the worst NoReorder order measured. *worst*, *median*, "
			   "*best*: the orders NoReorder's runs found worst, median and best, run again "
			   "in the trials beside the policies: chosen on one set of runs and timed on "
			   "another, as the least of many noisy medians is too good. *auto order*: the "
			   "order auto picks from the standalone times, run as a fixed order without "
			   "usched. *auto share*: (S_auto - 1) / (S_best - 1) with auto through usched. "
			   "*model err*: geometric mean over the orders of |predicted - measured| / "
			   "measured makespan, the model fed each command's standalone time (the T x N "
			   "tasks as one TG, each worker's tasks chained; with one copy engine N = 1 "
			   "only); *copies +x%%*: NoReorder's copies that no copy the other way "
			   "overlapped ran x%% longer than standalone on average (shown above 1%%: the "
			   "device or its host slowed down, which no model of the TG predicts); "
			   "*overlapped HtD xa DtH xb*: those the other way covered throughout ran a and "
			   "b times standalone on average (shown where the profile's slowdown is more "
			   "than 1%% off). *usched TG err*: the same per TG as usched predicted it; "
			   "*learned*: auto's usched's copy slowdowns after its runs (its copy model, "
			   "shown where more than 1%% off the profile's).\n\n");

	fprintf(f, "## Against the targets\n\n");
	for (int k = 0; k < 2; k++) {
		for (int g = 0; g < 2; g++) {
			if (!all[k][g])
				continue;
			fprintf(f, "- %s, %s: auto's share of the best order's gain through "
				   "usched: mean %.1f%%, lowest %.1f%%; its order run fixed: mean "
				   "%.1f%%, lowest %.1f%%; through usched against NoReorder's own "
				   "runs' worst and best: mean %.1f%%, lowest %.1f%% (target %s; "
				   "over %u experiments, %u more with under 2%% to gain left out); "
				   "auto beats the median order in %u of %u\n",
				suite_name[k], group_name[g], 100 * tally_mean(&sh[k][g][0]),
				100 * sh[k][g][0].min, 100 * tally_mean(&sh[k][g][1]),
				100 * sh[k][g][1].min, 100 * tally_mean(&sh[k][g][2]),
				100 * sh[k][g][2].min, k ? ">= 97%" : ">= 99%", sh[k][g][0].n,
				flat[k][g], beats[k][g], all[k][g]);
		}
		if (worst_err[k] > 0)
			fprintf(f, "- %s: the model's worst geometric-mean error of a benchmark "
				   "(one TG) %.2f%% (target %s)\n", suite_name[k],
				100 * worst_err[k], k ? "< 2%" : "< 0.5%");
	}
	for (int g = 0; g < 2; g++) {
		if (!sched[g].n)
			continue;
		fprintf(f, "- auto's scheduling time per TG over the TG's device time, %s: "
			   "mean %.3f%%, largest mean of an experiment %.3f%%", group_name[g],
			100 * tally_mean(&sched[g]), 100 * sched[g].max);
		/* per TG: in-process only (the daemon's metrics give sums) */
		if (sched_n[g])
			fprintf(f, "; per TG at most %.3f%%, %u of %u TGs above 0.1%%",
				100 * sched_max[g], sched_over[g], sched_n[g]);
		fprintf(f, " (target < 0.1%%)\n");
		fprintf(f, "- the loop's idle time going on with auto's plans while the device ran, "
			   "%s: mean %.3f%% of the TGs' device time, largest mean of an "
			   "experiment %.3f%% (off the critical path, at most 1%%)\n",
			group_name[g], 100 * tally_mean(&refine[g]), 100 * refine[g].max);
	}
	for (unsigned int i = 0; i < nstream; i++) {
		double busiest = fmax(sr[i].util[0], fmax(sr[i].util[1], sr[i].util[2]));

		if (strcmp(sr[i].setup, "auto"))
			continue;
		fprintf(f, "- stream, auto: busiest engine %.1f%% busy (target >= 97%%), "
			   "p99 latency %.2f ms", 100 * busiest, sr[i].p99_ms);
		if (sr[i].device_util > 0)
			fprintf(f, "; of its idle %.1f%%, %.1f%% while other engines ran (it "
				   "waited on them) and %.1f%% with the device idle",
				100 * (1 - busiest), 100 * (sr[i].device_util - busiest),
				100 * (1 - sr[i].device_util));
		fputc('\n', f);
	}
	for (unsigned int i = 0; i < nstream; i++) {
		for (unsigned int j = 0; j < nstream; j++) {
			if ((!strcmp(sr[i].setup, "auto") || !strcmp(sr[i].setup, "proc-auto")) &&
			    (!strcmp(sr[j].setup, "independent") ||
			     !strcmp(sr[j].setup, "proc-independent")) && sr[j].tput > 0)
				fprintf(f, "- stream throughput, %s over %s: %.3f; p50 %.2f against "
					   "%.2f ms, p99 %.2f against %.2f ms\n", sr[i].setup,
					sr[j].setup, sr[i].tput / sr[j].tput, sr[i].p50_ms,
					sr[j].p50_ms, sr[i].p99_ms, sr[j].p99_ms);
			if (!strcmp(sr[i].setup, "auto") && !strcmp(sr[j].setup, "auto-noclear") &&
			    sr[j].tput > 0)
				fprintf(f, "- memory hygiene's cost, stream: auto's throughput "
					   "clearing over not clearing (auto-noclear, today's "
					   "behaviour): %.3f; p50 latency %.2f over %.2f ms; %.0f "
					   "bytes cleared per task\n", sr[i].tput / sr[j].tput,
					sr[i].p50_ms, sr[j].p50_ms, sr[i].cleared);
		}
	}

	if (nstream) {
		fprintf(f, "\n## Stream\n\n| setup | workers | tasks | tasks/s | HtD busy | "
			   "K busy | DtH busy | device busy | busiest load | p50 ms | p99 ms | "
			   "TG err | sched share | tasks/TG | polled |\n|---|---|---|---|---|---|---|"
			   "---|---|---|---|---|---|---|---|\n");
		for (unsigned int i = 0; i < nstream; i++) {
			fprintf(f, "| %s | %u | %llu | %.1f |", sr[i].setup, sr[i].workers,
				(unsigned long long)sr[i].tasks, sr[i].tput);
			for (int s = 0; s < CLX_STAGES; s++) {
				if (sr[i].util[s] >= 0)
					fprintf(f, " %.1f%% |", 100 * sr[i].util[s]);
				else
					fprintf(f, " - |");
			}
			if (sr[i].device_util >= 0)
				fprintf(f, " %.1f%% |", 100 * sr[i].device_util);
			else
				fprintf(f, " - |");
			fprintf(f, " %.1f%% | %.2f | %.2f |", 100 * sr[i].bound_util, sr[i].p50_ms,
				sr[i].p99_ms);
			if (sr[i].tg_size > 0)
				fprintf(f, " %.2f%% | %.4f%% | %.1f | %.1f%% |\n", 100 * sr[i].tg_err,
					100 * sr[i].sched_share, sr[i].tg_size, 100 * sr[i].polled);
			else
				fprintf(f, " - | - | - | - |\n");
		}
		fprintf(f, "\n*busiest load*: the standalone work of the counted tasks on the "
			   "busiest engine over the window: what a perfect schedule would keep "
			   "busy; the measured busy shares beside it are unions of the commands' "
			   "profiled intervals. *device busy*: the union of all three engines' "
			   "intervals; where an engine is idle while the device is busy, it waits on "
			   "another engine's commands.\n");
	}
	return fclose(f) ? -errno : 0;
}

/* The open loop */

static const char *const ol_order[] = { "fifo", "paper", "neh", "exact", "auto", "flow",
					"independent", "proc-fifo", "proc-paper", "proc-auto",
					"proc-flow", "proc-independent" };

static int ol_color(const char *setup)
{
	for (unsigned int i = 0; i < sizeof(ol_order) / sizeof(ol_order[0]); i++)
		if (!strcmp(setup, ol_order[i]))
			return i;
	return 0;
}

/* A mix's name as a file name's part: "BK25/BK75" as "BK25-BK75". */
static const char *ol_file(const char *mix)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s", mix);
	for (char *c = buf; *c; c++)
		if (*c == '/')
			*c = '-';
	return buf;
}

/* The point of setup at load l of mix m; NULL if none or failed. */
static const struct ol_point *ol_find(const struct ol_result *res, const char *mix,
				      const char *setup, double load)
{
	for (unsigned int i = 0; i < res->npts; i++) {
		const struct ol_point *p = &res->pt[i];

		if (!p->err && !strcmp(p->mix, mix) && !strcmp(p->setup, setup) &&
		    fabs(p->load - load) < 1e-9)
			return p;
	}
	return NULL;
}

/*
 * The latency-throughput curve of one mix: throughput on x, latency on a
 * log scale on y, a line per setup through its loads; p99 solid, p50
 * dashed.
 */
static int ol_svg(const char *dir, const struct ol_result *res, const char *mix)
{
	int W = 640, H = 420, x0 = 70, y0 = 40, pw = 420, ph = 320;
	double xhi = 1, ylo = INFINITY, yhi = 0;
	char path[512], buf[64];
	FILE *f;

	for (unsigned int i = 0; i < res->npts; i++) {
		const struct ol_point *p = &res->pt[i];

		if (p->err || strcmp(p->mix, mix))
			continue;
		xhi = fmax(xhi, fmax(p->tput, p->offered));
		if (p->p50 > 0)
			ylo = fmin(ylo, p->p50);
		yhi = fmax(yhi, p->p99);
	}
	if (!(yhi > 0))
		return 0;
	xhi *= 1.05;
	ylo = pow(10, floor(log10(ylo)));
	yhi = pow(10, ceil(log10(yhi)));
	if (yhi <= ylo)
		yhi = ylo * 10;
	snprintf(path, sizeof(path), "%s/openloop-%s.svg", dir, ol_file(mix));
	f = fopen(path, "w");
	if (!f)
		return -errno;
	svg_begin(f, W, H);
	snprintf(buf, sizeof(buf), "open loop, %s: latency against throughput", mix);
	text(f, x0, 20, "start", buf);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", x0, y0, pw, ph);
	for (double v = ylo; v <= yhi * 1.001; v *= 10) {
		for (int m = 1; m < 10 && v * m <= yhi * 1.001; m++) {
			double y = y0 + ph - log10(v * m / ylo) / log10(yhi / ylo) * ph;

			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				x0, y, x0 + pw, y, m == 1 ? "#bbb" : "#eee");
			if (m == 1) {
				snprintf(buf, sizeof(buf), "%g", v);
				text(f, x0 - 5, y + 4, "end", buf);
			}
		}
	}
	for (int k = 0; k <= 5; k++) {
		double v = xhi * k / 5, x = x0 + pw * k / 5.0;

		snprintf(buf, sizeof(buf), "%.0f", v);
		text(f, x, y0 + ph + 15, "middle", buf);
	}
	text(f, x0 + pw / 2, y0 + ph + 32, "middle", "throughput (tasks/s)");
	fprintf(f, "<text x=\"15\" y=\"%d\" transform=\"rotate(-90 15 %d)\" "
		   "text-anchor=\"middle\">latency (ms, log): p99 solid, p50 dashed</text>\n",
		y0 + ph / 2, y0 + ph / 2);
	for (unsigned int si = 0, row = 0; si < sizeof(ol_order) / sizeof(ol_order[0]); si++) {
		const char *col = colors[ol_color(ol_order[si]) % 12];
		bool any = false;

		for (int q = 0; q < 2; q++) {
			bool first = true;

			for (unsigned int l = 0; l < res->nload; l++) {
				const struct ol_point *p = ol_find(res, mix, ol_order[si],
								   res->load[l]);
				double v, x, y;

				if (!p)
					continue;
				v = q ? p->p50 : p->p99;
				if (!(v > 0))
					continue;
				x = x0 + p->tput / xhi * pw;
				y = y0 + ph - log10(fmax(v, ylo) / ylo) / log10(yhi / ylo) * ph;
				if (first)
					fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
						   "stroke-width=\"%s\"%s points=\"", col,
						q ? "1" : "2",
						q ? " stroke-dasharray=\"4 3\"" : "");
				fprintf(f, "%.1f,%.1f ", x, y);
				first = false;
				any = true;
			}
			if (!first)
				fprintf(f, "\"/>\n");
			for (unsigned int l = 0; l < res->nload && !q; l++) {
				const struct ol_point *p = ol_find(res, mix, ol_order[si],
								   res->load[l]);

				if (p && p->p99 > 0)
					marker(f, ol_color(ol_order[si]) % 6, x0 + p->tput / xhi * pw,
					       y0 + ph - log10(fmax(p->p99, ylo) / ylo) /
					       log10(yhi / ylo) * ph, col);
			}
		}
		if (any) {
			marker(f, ol_color(ol_order[si]) % 6, x0 + pw + 20, y0 + 10 + 18 * row, col);
			text(f, x0 + pw + 30, y0 + 14 + 18 * row, "start", ol_order[si]);
			row++;
		}
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

int report_openloop(const char *dir, const struct ol_result *res)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/openloop.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "mix,setup,load,offered_per_s,tasks,tasks_per_s,p50_ms,p99_ms,p999_ms,mean_ms,"
		   "util_htd,util_k,util_dth,util_device,tasks_per_tg,sched_share,lag_ms,secs,"
		   "detect_ms\n");
	for (unsigned int i = 0; i < res->npts; i++) {
		const struct ol_point *p = &res->pt[i];

		if (p->err)
			continue;
		fprintf(f, "%s,%s,%.2f,%.2f,%llu,%.2f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,"
			   "%.2f,%.6f,%.3f,%.2f,%.3f\n", p->mix, p->setup, p->load, p->offered,
			(unsigned long long)p->tasks, p->tput, p->p50, p->p99, p->p999, p->mean,
			p->util[0], p->util[1], p->util[2], p->device_util, p->tg_size,
			p->sched_share, p->lag_ms, p->secs, p->detect_ms);
	}
	if (fclose(f))
		return -errno;
	snprintf(path, sizeof(path), "%s/openloop-capacity.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "dk_pct,usched_auto_per_s,independent_per_s\n");
	for (unsigned int j = 0; j < res->ncap; j++)
		fprintf(f, "%u,%.2f,%.2f\n", res->cap[j].pct, res->cap[j].usched,
			res->cap[j].indep);
	if (fclose(f))
		return -errno;
	for (unsigned int m = 0; m < res->nmix && !ret; m++)
		ret = ol_svg(dir, res, res->mix[m].name);
	return ret;
}

/* Whether a point of @mix says how late usched delivered (detect_ms). */
static bool ol_has_detect(const struct ol_result *res, const char *mix)
{
	for (unsigned int i = 0; i < res->npts; i++)
		if (!res->pt[i].err && res->pt[i].detect_ms >= 0 && !strcmp(res->pt[i].mix, mix))
			return true;
	return false;
}

static void ol_cell(FILE *f, const struct ol_point *p)
{
	if (p)
		fprintf(f, " %.1f / %.1f / %.1f / %.1f |", p->tput, p->p50, p->p99, p->p999);
	else
		fprintf(f, " - |");
}

int report_openloop_md(FILE *f, const struct ol_result *res)
{
	/* each usched setup against the baseline beside it: threads, processes */
	static const char *const ol_pairs[][2] = {
		{ "flow", "independent" }, { "auto", "independent" },
		{ "flow", "proc-independent" }, { "auto", "proc-independent" },
		{ "proc-flow", "proc-independent" }, { "proc-auto", "proc-independent" },
	};
	double maxload = 0;

	for (unsigned int l = 0; l < res->nload; l++)
		maxload = fmax(maxload, res->load[l]);
	fprintf(f, "\n## Open loop\n\n%u clients, Poisson arrivals over %.1f s per point", res->clients,
		res->secs);
	if (res->min_tasks)
		fprintf(f, ", longer at low loads for at least %u counted arrivals", res->min_tasks);
	fprintf(f, " (the first tenth not counted), phases of %.2f s; the same arrivals and tasks "
		   "for every setup. Capacity (tasks/s; a backlog of the phase's tasks at once), the "
		   "loads' 100%% the better of the two:\n\n| DK share | usched (auto) | independent | ratio |\n"
		   "|---|---|---|---|\n", res->phase_s);
	for (unsigned int j = 0; j < res->ncap; j++)
		fprintf(f, "| %u%% | %.1f | %.1f | %.2fx |\n", res->cap[j].pct, res->cap[j].usched,
			res->cap[j].indep, res->cap[j].indep > 0 ?
			res->cap[j].usched / res->cap[j].indep : 0);
	for (unsigned int m = 0; m < res->nmix; m++) {
		const char *mix = res->mix[m].name;
		bool present[sizeof(ol_order) / sizeof(ol_order[0])] = { false };

		for (unsigned int i = 0; i < res->npts; i++)
			if (!strcmp(res->pt[i].mix, mix))
				present[ol_color(res->pt[i].setup)] = true;
		fprintf(f, "\n### %s\n\n![%s](openloop-%s.svg)\n\nPer setup: throughput (tasks/s) "
			   "/ p50 / p99 / p99.9 latency (ms)\n\n| load | offered |", mix, mix,
			ol_file(mix));
		for (unsigned int si = 0; si < sizeof(ol_order) / sizeof(ol_order[0]); si++)
			if (present[si])
				fprintf(f, " %s |", ol_order[si]);
		fprintf(f, "\n|---|---|");
		for (unsigned int si = 0; si < sizeof(ol_order) / sizeof(ol_order[0]); si++)
			if (present[si])
				fprintf(f, "---|");
		fprintf(f, "\n");
		for (unsigned int l = 0; l < res->nload; l++) {
			const struct ol_point *any = NULL;

			for (unsigned int si = 0; si < sizeof(ol_order) / sizeof(ol_order[0]) &&
			     !any; si++)
				any = ol_find(res, mix, ol_order[si], res->load[l]);
			fprintf(f, "| %.0f%% | %.1f |", 100 * res->load[l], any ? any->offered : 0);
			for (unsigned int si = 0; si < sizeof(ol_order) / sizeof(ol_order[0]); si++)
				if (present[si])
					ol_cell(f, ol_find(res, mix, ol_order[si], res->load[l]));
			fprintf(f, "\n");
		}
		fprintf(f, "\nAgainst the targets (%s):\n\n", mix);
		for (unsigned int k = 0; k < sizeof(ol_pairs) / sizeof(ol_pairs[0]); k++) {
			const char *us = ol_pairs[k][0], *base = ol_pairs[k][1];
			const char *what = strncmp(base, "proc-", 5) ? "independent contexts'" :
					   "independent processes'";
			unsigned int met = 0, n = 0;
			const struct ol_point *a, *b;

			for (unsigned int l = 0; l < res->nload; l++) {
				if (res->load[l] > 0.9 + 1e-9)
					continue;
				a = ol_find(res, mix, us, res->load[l]);
				b = ol_find(res, mix, base, res->load[l]);
				if (!a || !b)
					continue;
				n++;
				met += a->p99 <= b->p99;
			}
			if (n)
				fprintf(f, "- %s: p99 no worse than %s at %u of %u loads up to "
					   "90%%\n", us, what, met, n);
			a = ol_find(res, mix, us, maxload);
			b = ol_find(res, mix, base, maxload);
			if (a && b && b->tput > 0)
				fprintf(f, "- %s: throughput at %.0f%% offered %.2fx %s (target >= "
					   "1.3)\n", us, 100 * maxload, a->tput / b->tput, what);
		}
		fprintf(f, "- ordering inside usched, auto against fifo (throughput ratio, p99 "
			   "ratio):");
		for (unsigned int l = 0; l < res->nload; l++) {
			const struct ol_point *a = ol_find(res, mix, "auto", res->load[l]);
			const struct ol_point *b = ol_find(res, mix, "fifo", res->load[l]);

			if (a && b && b->tput > 0 && b->p99 > 0)
				fprintf(f, " %.0f%% %.3f, %.2f;", 100 * res->load[l], a->tput / b->tput,
					a->p99 / b->p99);
		}
		fprintf(f, "\n");
		if (!ol_has_detect(res, mix))
			continue;
		fprintf(f, "- usched in-process, the delivery after the task's last command "
			   "ended (mean ms):");
		for (unsigned int i = 0; i < res->npts; i++) {
			const struct ol_point *p = &res->pt[i];

			if (!p->err && p->detect_ms >= 0 && !strcmp(p->mix, mix))
				fprintf(f, " %s %.0f%% %.2f;", p->setup, 100 * p->load, p->detect_ms);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\nLatency: from each task's arrival time to its completion's delivery "
		   "(usched by its poll at the predicted end, independent clients by polling "
		   "their last event every 0.1 ms). Throughput: completions inside the counted "
		   "window per second; above the capacity it is what the setup sustains.\n");
	return ferror(f) ? -EIO : 0;
}
