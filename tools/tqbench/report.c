// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - tqbench's table on stdout and its CSV rows, and the summary of
 * an experiment's NoReorder orders they and the other reports measure
 * against. The SVG plots are report_svg.c's, the markdown summary
 * report_md.c's, the open loop's report_openloop.c's.
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

#include "tools/tqbench/report.h"
#include "tq/num.h"

void summarize(const struct result *r, struct summary *s)
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

double speedup(const struct summary *s, double ms)
{
	return ms > 0 ? s->worst / ms : 0;
}

/* (worst / ms - 1) / (worst / best - 1); NaN when there is nothing to gain */
double share_of(double worst, double best, double ms)
{
	return ms > 0 && worst > best ? (worst / ms - 1) / (worst / best - 1) : NAN;
}

double share(const struct summary *s, double ms)
{
	return share_of(s->worst, s->best, ms);
}

/* The same against NoReorder's own runs' worst and best (the paper's way). */
double sample_share(const struct summary *s, double ms)
{
	return share_of(s->sample_worst, s->sample_best, ms);
}

void cell(FILE *f, double x, const char *fmt, int width)
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

void report_features(FILE *f, const struct env *e, const char *prefix)
{
	unsigned int kq = e->dev.kq;

	fprintf(f, "%sdevice features: %u copy engine%s; ", prefix, e->dev.dma,
		e->dev.dma == 1 ? "" : "s");
	if (kq == 1)
		fprintf(f, "1 kernel queue for usched and for NoReorder and the fixed orders");
	else
		fprintf(f, "%u kernel queues for usched and for NoReorder and the fixed orders (the "
			"order's i-th kernel on queue i %% %u, as usched launches)", kq, kq);
	fprintf(f, "; independent contexts: a context and an in-order queue per worker, their "
		"kernels at once as far as the driver runs different contexts' kernels at once\n");
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
			"%.3f,%.4f,%.3f,%.3f,%u\n", sr->setup, sr->workers, sr->secs,
			(unsigned long long)sr->tasks, sr->tput, sr->util[0], sr->util[1],
			sr->util[2], sr->device_util, sr->bound_util, sr->p50_ms, sr->p99_ms,
			sr->tg_err, sr->sched_share, sr->tg_size, sr->polled, sr->tput_user,
			sr->tput_others, sr->domains);
}
