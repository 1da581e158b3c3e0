// SPDX-License-Identifier: GPL-2.0
/*
 * replot.c - tqbench --replot DIR: the SVG plots drawn again from the CSV
 * files a run left in DIR (tqbench.csv with perms.csv, stream.csv,
 * openloop.csv), with no device: for runs kept in Documentation/results/
 * after the plots change. Columns are found by their header's names, so
 * older runs' files, with fewer columns, are read too.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/bench.h"

#define RP_MAX_COLS	32
#define RP_MAX_RESULTS	(MAX_CFG * 2 * MAX_BENCH)
#define RP_MAX_STREAM	16

/* A CSV file read a row at a time; its header names the columns. */
struct csv {
	FILE *f;
	char hdr[1024], row[1024];
	char *name[RP_MAX_COLS], *val[RP_MAX_COLS];
	unsigned int nhdr, nval;
};

static unsigned int split(char *s, char **out)
{
	unsigned int n = 0;

	s[strcspn(s, "\r\n")] = 0;
	while (n < RP_MAX_COLS) {
		out[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

/* Open dir/name and read its header: 0, -ENOENT when there is none. */
static int csv_open(struct csv *c, const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	c->f = fopen(path, "r");
	if (!c->f)
		return -errno;
	if (!fgets(c->hdr, sizeof(c->hdr), c->f)) {
		fclose(c->f);
		return -EINVAL;
	}
	c->nhdr = split(c->hdr, c->name);
	return 0;
}

static bool csv_next(struct csv *c)
{
	if (!fgets(c->row, sizeof(c->row), c->f))
		return false;
	c->nval = split(c->row, c->val);
	return true;
}

/* The current row's field of column @name; "" where the file has no such column. */
static const char *csv_get(const struct csv *c, const char *name)
{
	for (unsigned int i = 0; i < c->nhdr && i < c->nval; i++)
		if (!strcmp(c->name[i], name))
			return c->val[i];
	return "";
}

static double csv_num(const struct csv *c, const char *name)
{
	return atof(csv_get(c, name));
}

static struct suite rp_suites[2];
static unsigned int rp_nsuites;

static const struct suite *suite_of(const char *name, const char *bench, unsigned int *b)
{
	struct suite *s = NULL;

	for (unsigned int i = 0; i < rp_nsuites && !s; i++)
		if (!strcmp(rp_suites[i].name, name))
			s = &rp_suites[i];
	if (!s) {
		if (rp_nsuites == 2 || (strcmp(name, "synthetic") && strcmp(name, "real")))
			return NULL;
		s = &rp_suites[rp_nsuites++];
		s->name = !strcmp(name, "synthetic") ? "synthetic" : "real";
		s->synthetic = !strcmp(name, "synthetic");
	}
	for (*b = 0; *b < s->nbench; (*b)++)
		if (!strcmp(s->bench[*b], bench))
			return s;
	if (s->nbench == MAX_BENCH)
		return NULL;
	snprintf(s->bench[s->nbench++], sizeof(s->bench[0]), "%s", bench);
	return s;
}

/* The experiment of the current row, new if unseen; NULL when there is no room. */
static struct result *result_of(const struct csv *c, struct result **rs, unsigned int *n)
{
	unsigned int b, T = atoi(csv_get(c, "T")), N = atoi(csv_get(c, "N"));
	const struct suite *s = suite_of(csv_get(c, "suite"), csv_get(c, "bench"), &b);

	if (!s)
		return NULL;
	for (unsigned int i = 0; i < *n; i++)
		if (rs[i]->s == s && rs[i]->bench == b && rs[i]->T == T && rs[i]->N == N)
			return rs[i];
	if (*n == RP_MAX_RESULTS || !(rs[*n] = calloc(1, sizeof(**rs))))
		return NULL;
	*rs[*n] = (struct result){ .s = s, .bench = b, .T = T, .N = N };
	return rs[(*n)++];
}

/* A row of tqbench.csv into its experiment: the fields the plots draw. */
static void result_row(struct result *r, const struct csv *c)
{
	static const char *const ref[NREF] = { "noreorder_worst", "noreorder_median",
					       "noreorder_best" };
	const char *setup = csv_get(c, "setup");
	double ms = csv_num(c, "makespan_ms");

	for (int k = 0; k < NREF; k++) {
		if (!strcmp(setup, ref[k])) {
			r->ref_ms[k] = ms;
			r->refs = true;
		}
	}
	for (int p = 0; p < NPOL; p++) {
		if (!strncmp(setup, "usched_", 7) && !strcmp(setup + 7, policy_names[p]) &&
		    strcmp(csv_get(c, "workers"), "process")) {
			r->pol_ms[p] = ms;
			r->pol_tg_err[p] = csv_num(c, "model_err");
		}
		if (!strncmp(setup, "order_", 6) && !strcmp(setup + 6, policy_names[p]))
			r->fixed_ms[p] = ms;
	}
	if (!strcmp(setup, "independent"))
		r->indep_ms = ms;
}

/* A row of perms.csv: one more order of its experiment, measured and predicted. */
static int perm_row(struct result *r, const struct csv *c)
{
	double *m = realloc(r->perm_ms, (r->nperms + 1) * sizeof(double));

	if (!m)
		return -ENOMEM;
	r->perm_ms = m;
	m = realloc(r->perm_pred_ms, (r->nperms + 1) * sizeof(double));
	if (!m)
		return -ENOMEM;
	r->perm_pred_ms = m;
	r->perm_ms[r->nperms] = csv_num(c, "measured_ms");
	r->perm_pred_ms[r->nperms++] = csv_num(c, "predicted_ms");
	return 0;
}

/* speedup-*.svg, model.svg and means.svg from tqbench.csv and perms.csv (both needed). */
static int replot_experiments(const char *dir)
{
	struct result *rs[RP_MAX_RESULTS];
	unsigned int n = 0;
	struct csv c, cp;
	int ret = 0;

	if (csv_open(&c, dir, "tqbench.csv"))
		return 0;
	if (csv_open(&cp, dir, "perms.csv")) {
		fclose(c.f);
		return 0;
	}
	while (csv_next(&c)) {
		struct result *r = result_of(&c, rs, &n);

		if (r)
			result_row(r, &c);
	}
	while (!ret && csv_next(&cp)) {
		struct result *r = result_of(&cp, rs, &n);

		if (r)
			ret = perm_row(r, &cp);
	}
	fclose(c.f);
	fclose(cp.f);
	ret = ret ?: report_svg(dir, rs, n);
	for (unsigned int i = 0; i < n; i++) {
		free(rs[i]->perm_ms);
		free(rs[i]->perm_pred_ms);
		free(rs[i]);
	}
	return ret;
}

/* stream.svg from stream.csv. */
static int replot_stream(const char *dir)
{
	static const char *const util[CLX_STAGES] = { "util_htd", "util_k", "util_dth" };
	struct stream_result sr[RP_MAX_STREAM];
	unsigned int n = 0;
	struct csv c;

	if (csv_open(&c, dir, "stream.csv"))
		return 0;
	while (n < RP_MAX_STREAM && csv_next(&c)) {
		snprintf(sr[n].setup, sizeof(sr[n].setup), "%s", csv_get(&c, "setup"));
		sr[n].tput = csv_num(&c, "tasks_per_s");
		for (int s = 0; s < CLX_STAGES; s++)
			sr[n].util[s] = *csv_get(&c, util[s]) ? csv_num(&c, util[s]) : -1;
		n++;
	}
	fclose(c.f);
	return report_stream_svg(dir, sr, n);
}

/* openloop-MIX.svg from openloop.csv. */
static int replot_openloop(const char *dir)
{
	static struct ol_point pt[OL_MAX_MIXES * OL_MAX_LOADS * OL_MAX_SETUPS];
	struct ol_result res = { .pt = pt };
	struct csv c;

	if (csv_open(&c, dir, "openloop.csv"))
		return 0;
	while (res.npts < sizeof(pt) / sizeof(pt[0]) && csv_next(&c)) {
		struct ol_point *p = &pt[res.npts++];
		unsigned int m = 0, l = 0;

		*p = (struct ol_point){ .load = csv_num(&c, "load"),
					.tput = csv_num(&c, "tasks_per_s"),
					.offered = csv_num(&c, "offered_per_s"),
					.p50 = csv_num(&c, "p50_ms"),
					.p99 = csv_num(&c, "p99_ms") };
		snprintf(p->mix, sizeof(p->mix), "%s", csv_get(&c, "mix"));
		snprintf(p->setup, sizeof(p->setup), "%s", csv_get(&c, "setup"));
		while (m < res.nmix && strcmp(res.mix[m].name, p->mix))
			m++;
		if (m == res.nmix && m < OL_MAX_MIXES)
			snprintf(res.mix[res.nmix++].name, sizeof(res.mix[0].name), "%s", p->mix);
		while (l < res.nload && fabs(res.load[l] - p->load) > 1e-9)
			l++;
		if (l == res.nload && l < OL_MAX_LOADS)
			res.load[res.nload++] = p->load;
	}
	fclose(c.f);
	return report_openloop_svg(dir, &res);
}

int replot(const char *dir)
{
	int ret = replot_experiments(dir);

	ret = ret ?: replot_stream(dir);
	return ret ?: replot_openloop(dir);
}
