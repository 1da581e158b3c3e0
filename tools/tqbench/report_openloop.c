// SPDX-License-Identifier: GPL-2.0
/*
 * report_openloop.c - the open loop's outputs: openloop.csv,
 * openloop-capacity.csv, a latency-throughput plot per mix
 * (openloop-MIX.svg) and summary.md's section.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/report.h"
#include "tq/num.h"

static const char *const ol_order[] = { "fifo", "paper", "neh", "exact", "auto", "flow",
					"independent", "proc-fifo", "proc-paper", "proc-auto",
					"proc-flow", "proc-independent", "auto-isolated" };

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
	double xhi = 1, ylo = INFINITY, yhi = 0, xstep;
	bool drawn[sizeof(ol_order) / sizeof(ol_order[0])] = { false };
	char path[512], buf[64];
	struct svg_legend l;
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
	/* x from 0 to a tick a little past the fastest point */
	xstep = tq_nice_step(xhi * 1.05, SVG_TICKS);
	xhi = ceil(xhi * 1.05 / xstep - 1e-9) * xstep;
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
	svg_text(f, x0, 20, "start", buf);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", x0, y0, pw, ph);
	for (double v = ylo; v <= yhi * 1.001; v *= 10) {
		for (int m = 1; m < 10 && v * m <= yhi * 1.001; m++) {
			double y = y0 + ph - log10(v * m / ylo) / log10(yhi / ylo) * ph;

			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n",
				x0, y, x0 + pw, y, m == 1 ? "#bbb" : "#eee");
			if (m == 1) {
				snprintf(buf, sizeof(buf), "%g", v);
				svg_text(f, x0 - 5, y + 4, "end", buf);
			}
		}
	}
	for (long k = 0; k * xstep <= xhi + xstep * 1e-9; k++) {
		double x = x0 + k * xstep / xhi * pw;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n",
			x, y0, x, y0 + ph);
		svg_tick(f, x, y0 + ph + 15, "middle", k, xstep);
	}
	svg_text(f, x0 + pw / 2, y0 + ph + 32, "middle", "throughput (tasks/s)");
	fprintf(f, "<text x=\"15\" y=\"%d\" transform=\"rotate(-90 15 %d)\" "
		   "text-anchor=\"middle\">latency (ms, log): p99 solid, p50 dashed</text>\n",
		y0 + ph / 2, y0 + ph / 2);
	for (unsigned int si = 0; si < sizeof(ol_order) / sizeof(ol_order[0]); si++) {
		const char *col = svg_colors[ol_color(ol_order[si]) % 12];

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
				drawn[si] = true;
			}
			if (!first)
				fprintf(f, "\"/>\n");
			for (unsigned int l = 0; l < res->nload && !q; l++) {
				const struct ol_point *p = ol_find(res, mix, ol_order[si],
								   res->load[l]);

				if (p && p->p99 > 0)
					svg_marker(f, ol_color(ol_order[si]) % 6, x0 + p->tput / xhi * pw,
					       y0 + ph - log10(fmax(p->p99, ylo) / ylo) /
					       log10(yhi / ylo) * ph, col);
			}
		}
	}
	/* the legend right of the plot, an entry a row */
	svg_legend_begin(f, &l, x0 + pw + 20, y0 + 10, x0 + pw + 21);
	for (unsigned int si = 0; si < sizeof(ol_order) / sizeof(ol_order[0]); si++)
		if (drawn[si])
			svg_legend_add(f, &l, ol_color(ol_order[si]) % 6,
				       svg_colors[ol_color(ol_order[si]) % 12], ol_order[si]);
	svg_legend_end(f);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

int report_openloop(const char *dir, const struct ol_result *res)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/openloop.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "mix,setup,load,offered_per_s,tasks,tasks_per_s,p50_ms,p99_ms,p999_ms,mean_ms,"
		   "util_htd,util_k,util_dth,util_device,tasks_per_tg,sched_share,lag_ms,secs,"
		   "detect_ms,p50_user_ms,p99_user_ms,p50_others_ms,p99_others_ms\n");
	for (unsigned int i = 0; i < res->npts; i++) {
		const struct ol_point *p = &res->pt[i];

		if (p->err)
			continue;
		fprintf(f, "%s,%s,%.2f,%.2f,%llu,%.2f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,"
			   "%.2f,%.6f,%.3f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f\n", p->mix, p->setup,
			p->load, p->offered, (unsigned long long)p->tasks, p->tput, p->p50, p->p99,
			p->p999, p->mean, p->util[0], p->util[1], p->util[2], p->device_util,
			p->tg_size, p->sched_share, p->lag_ms, p->secs, p->detect_ms, p->p50_user,
			p->p99_user, p->p50_others, p->p99_others);
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
	return report_openloop_svg(dir, res);
}

int report_openloop_svg(const char *dir, const struct ol_result *res)
{
	int ret = 0;

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
		unsigned int niso;

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
		niso = 0;
		for (unsigned int l = 0; l < res->nload; l++) {
			const struct ol_point *a = ol_find(res, mix, "auto-isolated", res->load[l]);
			const struct ol_point *b = ol_find(res, mix, "auto", res->load[l]);

			if (!a || !b || !b->p99_user || !b->p99_others || !b->tput)
				continue;
			if (!niso++)
				fprintf(f, "- per-user contexts' cost, open loop: half the clients one "
					   "user in an OpenCL context of its own (auto-isolated "
					   "against auto; that user's p99 ratio, the others' p99 ratio, "
					   "throughput ratio):");
			fprintf(f, " %.0f%% %.2f, %.2f, %.3f;", 100 * res->load[l],
				a->p99_user / b->p99_user, a->p99_others / b->p99_others,
				a->tput / b->tput);
		}
		if (niso)
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
