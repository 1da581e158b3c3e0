// SPDX-License-Identifier: GPL-2.0
/*
 * fit.c - tqcalib --fit (fit.h): the pairs' CSV and the split read, each
 * pair predicted by the model itself (two kernel-only tasks on two kernel
 * queues, released when each started), and the sharing rule that predicts
 * the fit pairs best, scored on the held-out pairs too.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqcalib/fit.h"
#include "tq/num.h"

static int fail(char *err, size_t len, const char *path, unsigned int line, const char *fmt, ...)
{
	int n = snprintf(err, len, "%s:%u: ", path, line);
	va_list ap;

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int pair_split_read(const char *path, struct pair_split *sp, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char buf[256];
	unsigned int ln = 0;
	int ret = 0;

	sp->n = 0;
	if (!f) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	while (!ret && fgets(buf, sizeof(buf), f)) {
		char role[8], key[PAIR_KEY + 1], extra;
		int r = ROLE_NONE;

		ln++;
		if (buf[0] == '#' || strspn(buf, " \t\r\n") == strlen(buf))
			continue;
		if (sscanf(buf, "%7s %48s %c", role, key, &extra) != 2 || strlen(key) >= PAIR_KEY ||
		    !strchr(key, '+'))
			ret = fail(err, len, path, ln, "expected: fit|hold A.C+B.C");
		else if ((r = !strcmp(role, "fit") ? ROLE_FIT : !strcmp(role, "hold") ? ROLE_HOLD : 0) == 0)
			ret = fail(err, len, path, ln, "'%s' is not fit or hold", role);
		else if (sp->n == PAIR_MAX)
			ret = fail(err, len, path, ln, "more than %d pairs", PAIR_MAX);
		for (unsigned int i = 0; !ret && i < sp->n; i++)
			if (!strcmp(sp->key[i], key))
				ret = fail(err, len, path, ln, "%s listed twice", key);
		if (!ret) {
			snprintf(sp->key[sp->n], PAIR_KEY, "%s", key);
			sp->role[sp->n++] = r;
		}
	}
	fclose(f);
	if (!ret && !sp->n)
		ret = fail(err, len, path, ln, "no pairs");
	return ret;
}

static int role_of(const struct pair_split *sp, const char *key)
{
	for (unsigned int i = 0; i < sp->n; i++)
		if (!strcmp(sp->key[i], key))
			return sp->role[i];
	return ROLE_NONE;
}

/* The CSV's numbers: a field that is not one whole finite number >= 0 is refused. */
static bool num(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v) && *v >= 0;
}

enum { C_KEY, C_A, C_B, C_AN, C_AIT, C_AM, C_AKIND, C_ABW, C_AD, C_AW, C_AALONE, C_BN, C_BIT,
       C_BM, C_BKIND, C_BBW, C_BD, C_BW, C_BALONE, C_AS, C_AE, C_BS, C_BE, C_REPS, NCOLS };

/* One data line into @r; 0 or the reason. */
static const char *csv_row(char *line, struct pair_row *r)
{
	char *f[NCOLS + 1];
	unsigned int nf = 0;
	static const int numeric[] = { C_AD, C_AW, C_AALONE, C_BD, C_BW, C_BALONE, C_AS, C_AE,
				       C_BS, C_BE };
	double v[NCOLS];

	line[strcspn(line, "\r\n")] = 0;
	for (char *p = line; nf <= NCOLS; p++) {
		f[nf++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = 0;
	}
	if (nf != NCOLS)
		return "wrong number of fields";
	if (strlen(f[C_KEY]) >= PAIR_KEY || strlen(f[C_A]) >= PAIR_NAME ||
	    strlen(f[C_B]) >= PAIR_NAME || !*f[C_A] || !*f[C_B])
		return "key or item names too long or empty";
	for (size_t i = 0; i < sizeof(numeric) / sizeof(numeric[0]); i++)
		if (!num(f[numeric[i]], &v[numeric[i]]))
			return "a time, share or demand is not a number >= 0";
	if (!(v[C_AD] > 0 && v[C_AD] <= 1 && v[C_BD] > 0 && v[C_BD] <= 1 && v[C_AW] > 0 &&
	      v[C_AW] <= 1 && v[C_BW] > 0 && v[C_BW] <= 1))
		return "a demand or width outside (0, 1]";
	if (!(v[C_AALONE] > 0 && v[C_BALONE] > 0 && v[C_AE] > v[C_AS] && v[C_BE] > v[C_BS]))
		return "a kernel that takes no time, or ends before it starts";
	snprintf(r->key, sizeof(r->key), "%s", f[C_KEY]);
	snprintf(r->a, sizeof(r->a), "%s", f[C_A]);
	snprintf(r->b, sizeof(r->b), "%s", f[C_B]);
	r->demand[0] = v[C_AD];
	r->demand[1] = v[C_BD];
	r->width[0] = v[C_AW];
	r->width[1] = v[C_BW];
	r->alone[0] = v[C_AALONE];
	r->alone[1] = v[C_BALONE];
	r->start[0] = v[C_AS];
	r->start[1] = v[C_BS];
	r->end[0] = v[C_AE];
	r->end[1] = v[C_BE];
	return NULL;
}

int pair_csv_read(const char *path, const struct pair_split *sp, struct pair_row *rows,
		  unsigned int *n, unsigned int *unlisted, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	unsigned int ln = 0;
	int ret = 0;

	*n = *unlisted = 0;
	if (!f) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	while (!ret && fgets(buf, sizeof(buf), f)) {
		const char *why;

		ln++;
		if (ln == 1) {
			buf[strcspn(buf, "\r\n")] = 0;
			if (strcmp(buf, PAIR_CSV_HEADER))
				ret = fail(err, len, path, ln, "not tqcalib --pairs's header");
			continue;
		}
		if (*n == PAIR_MAX) {
			ret = fail(err, len, path, ln, "more than %d pairs", PAIR_MAX);
		} else if ((why = csv_row(buf, &rows[*n]))) {
			ret = fail(err, len, path, ln, "%s", why);
		} else {
			rows[*n].role = role_of(sp, rows[*n].key);
			if (rows[*n].role == ROLE_NONE)
				++*unlisted;
			else
				++*n;
		}
	}
	fclose(f);
	if (!ret && ln == 0)
		ret = fail(err, len, path, 0, "empty");
	return ret;
}

void pair_predict(const struct pair_row *r, const struct pair_rule *ru, double *end)
{
	static const uint8_t ab[] = { 0, 1 };
	struct tqsim_sim_result res;
	struct tqsim_dev dev;
	struct tqsim_tg tg;
	double t0 = fmin(r->start[0], r->start[1]);

	tqsim_dev_init(&dev);
	dev.kq = 2;
	dev.kshare = ru->kshare;
	dev.kcost = ru->kcost;
	tqsim_tg_init(&tg);
	for (int i = 0; i < 2; i++) {
		tqsim_tg_add(&tg, 0, r->alone[i], 0);
		tqsim_tg_set_release(&tg, i, r->start[i] - t0);
		tqsim_tg_set_width(&tg, i, ru->src == TQSIM_SRC_DEMAND ? r->demand[i] : r->width[i]);
	}
	tqsim_simulate(&tg, &dev, ab, 2, &res);
	end[0] = res.end[0] + t0;
	end[1] = res.end[1] + t0;
}

static double pct(double *v, unsigned int n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(double), tq_cmp_double);
	return v[(unsigned int)((n - 1) * q + 0.5)];
}

void pair_score(const struct pair_row *rows, unsigned int n, int role, const struct pair_rule *ru,
		struct pair_stats *st)
{
	double *ends = malloc(2 * (n + 1) * sizeof(double)), *ms = malloc((n + 1) * sizeof(double));
	double sum = 0;

	memset(st, 0, sizeof(*st));
	if (!ends || !ms) {
		free(ends);
		free(ms);
		st->end_mean = INFINITY;
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct pair_row *r = &rows[i];
		double e[2], ea, eb, t0 = fmin(r->start[0], r->start[1]);
		double meas = fmax(r->end[0], r->end[1]) - t0;

		if (role != ROLE_NONE && r->role != role)
			continue;
		pair_predict(r, ru, e);
		ea = fabs(e[0] - r->end[0]) / (r->end[0] - t0);
		eb = fabs(e[1] - r->end[1]) / (r->end[1] - t0);
		ends[2 * st->n] = ea;
		ends[2 * st->n + 1] = eb;
		ms[st->n] = fabs(fmax(e[0], e[1]) - t0 - meas) / meas;
		sum += (ea + eb) / 2;
		st->n++;
	}
	st->end_mean = st->n ? sum / st->n : INFINITY;
	st->end_median = pct(ends, 2 * st->n, 0.5);
	st->end_p90 = pct(ends, 2 * st->n, 0.9);
	st->ms_median = pct(ms, st->n, 0.5);
	st->ms_p90 = pct(ms, st->n, 0.9);
	free(ends);
	free(ms);
}

unsigned int pair_lost(const struct pair_row *rows, unsigned int n)
{
	unsigned int lost = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct pair_row *r = &rows[i];
		double t0 = fmin(r->start[0], r->start[1]);

		/* one after the other: the second starts when it did, or when the first ended */
		lost += fmax(r->end[0], r->end[1]) - t0 >
			fmax(r->start[1] - t0, r->alone[0]) + r->alone[1];
	}
	return lost;
}

static const char *const src_name[] = { "width", "demand" };
static const char *const form_name[] = { "fair", "first" };

static void report(FILE *out, const char *what, const struct pair_row *rows, unsigned int n,
		   const struct pair_rule *ru)
{
	struct pair_stats f, h;

	pair_score(rows, n, ROLE_FIT, ru, &f);
	pair_score(rows, n, ROLE_HOLD, ru, &h);
	fprintf(out, "%-30s %-6s %-5s %5.2f | %7.2f%% %7.2f%% %7.2f%% | %7.2f%% %7.2f%% %7.2f%%\n",
		what, src_name[ru->src], form_name[ru->kshare], ru->kcost, 100 * f.end_mean,
		100 * f.ms_median, 100 * f.ms_p90, 100 * h.end_mean, 100 * h.ms_median,
		100 * h.ms_p90);
}

int pair_fit(const struct pair_row *rows, unsigned int n, struct pair_rule *best, FILE *out,
	     char *line, size_t len)
{
	const struct pair_rule before = { TQSIM_SRC_WIDTH, TQSIM_SHARE_FAIR, 0 };
	struct pair_rule form_best[2][2];
	double form_score[2][2], best_score = INFINITY;
	unsigned int nfit = 0, nhold = 0;

	for (unsigned int i = 0; i < n; i++) {
		nfit += rows[i].role == ROLE_FIT;
		nhold += rows[i].role == ROLE_HOLD;
	}
	if (nfit < 3)
		return -ENODATA;
	for (unsigned int s = 0; s < 2; s++) {
		for (unsigned int k = 0; k < 2; k++) {
			form_score[s][k] = INFINITY;
			for (unsigned int c = 0; c <= 50; c++) {
				struct pair_rule ru = { s, k, c / 100.0 };
				struct pair_stats st;

				pair_score(rows, n, ROLE_FIT, &ru, &st);
				if (st.end_mean < form_score[s][k]) {
					form_score[s][k] = st.end_mean;
					form_best[s][k] = ru;
				}
			}
			if (form_score[s][k] < best_score) {
				best_score = form_score[s][k];
				*best = form_best[s][k];
			}
		}
	}
	fprintf(out, "pairs: %u fit, %u held out; together slower than one after the other "
		"(a second queue lost): %u\n", nfit, nhold, pair_lost(rows, n));
	fprintf(out, "%-30s %-6s %-5s %5s | %-26s | %s\n", "rule", "share", "form", "cost",
		"fit: ends mean, ms p50, p90", "held out: the same");
	report(out, "before issue 44 (default)", rows, n, &before);
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int k = 0; k < 2; k++)
			report(out, "best cost of this form", rows, n, &form_best[s][k]);
	report(out, "chosen (least on the fit set)", rows, n, best);
	snprintf(line, len, "concurrent %s %s %.2f", src_name[best->src], form_name[best->kshare],
		 best->kcost);
	return 0;
}
