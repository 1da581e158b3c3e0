// SPDX-License-Identifier: GPL-2.0
/*
 * report_md.c - tqbench's markdown summary for Documentation/results/
 * (summary.md): the experiments' speedups and shares, the model's error,
 * the trials' host notes and the stream.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/tqbench/report.h"
#include "tq/num.h"

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
			  const struct tqsim_dev *dev)
{
	bool off = (htd > 0 && fabs(htd / dev->slow[TQSIM_HTD] - 1) > 0.01) ||
		   (dth > 0 && fabs(dth / dev->slow[TQSIM_DTH] - 1) > 0.01);

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
	report_features(f, e, "- ");
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
			if (!strcmp(sr[i].setup, "auto") && !strcmp(sr[j].setup, "auto-isolated") &&
			    sr[i].tput_user > 0 && sr[i].tput_others > 0)
				fprintf(f, "- per-user contexts' cost, stream: with %u of %u workers "
					   "one user in an OpenCL context of its own (auto-isolated "
					   "over auto), that user's throughput %.3f, the others' "
					   "%.3f, all %.3f; p99 %.2f against %.2f ms\n",
					sr[j].workers / 2, sr[j].workers,
					sr[j].tput_user / sr[i].tput_user,
					sr[j].tput_others / sr[i].tput_others, sr[j].tput / sr[i].tput,
					sr[j].p99_ms, sr[i].p99_ms);
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
