// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - `tqsim bench`: how fast the simulator and the policies are on
 * this machine, against the targets (one 8-task simulation <= 0.3 us, neh at
 * T = 8 <= 10 us, exact at T = 8 <= 1 ms in the worst case). Random TGs, half
 * dominant-kernel and half dominant-transfer tasks, fixed seed; exact also
 * on the evaluation's T = 8 TGs (tqsim eval), which are harder.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tq/clock.h>
#include <tq/num.h>
#include <tq/rand.h>

#include "cli.h"

static uint64_t rng;

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * (double)(tq_xorshift64(&rng) >> 11) * 0x1.0p-53;
}

/* @n TGs of @T tasks from a fixed seed, so every policy meets the same ones. */
static void random_tgs(struct tqsim_tg *tgs, unsigned int n, unsigned int T)
{
	rng = 0x9e3779b97f4a7c15ULL + T;
	for (unsigned int i = 0; i < n; i++) {
		struct tqsim_tg *tg = &tgs[i];

		tqsim_tg_init(tg);
		for (unsigned int t = 0; t < T; t++) {
			if (t % 2)	/* dominant kernel */
				tqsim_tg_add(tg, uniform(0.05, 2) * NS_PER_MS,
					  uniform(3, 10) * NS_PER_MS, uniform(0.05, 2) * NS_PER_MS);
			else		/* dominant transfer */
				tqsim_tg_add(tg, uniform(1, 6) * NS_PER_MS,
					  uniform(0.1, 2) * NS_PER_MS, uniform(1, 6) * NS_PER_MS);
		}
	}
}

struct stat {
	double sum, max;
	unsigned int n;
};

static void bench_sim(FILE *f, const struct tqsim_dev *dev, const char *what)
{
	enum { TGS = 64, REPS = 20000 };
	static struct tqsim_tg tgs[TGS];
	uint8_t order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	volatile double sink = 0;
	uint64_t t0;
	double ns;

	random_tgs(tgs, TGS, 8);
	t0 = tq_now_ns();
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < TGS; i++)
			sink += tqsim_makespan(&tgs[i], dev, order, 8);
	ns = (double)(tq_now_ns() - t0) / (REPS * TGS);
	fprintf(f, "simulate   T=8  %-16s %8.3f us/sim   (%s)\n", what, ns / 1e3,
		dev->kq > 1 ? "the general event loop: no target" : "target <= 0.3");
	(void)sink;
}

/*
 * Each TG's best of three runs (noise), then mean and max over the TGs; the
 * max is returned.
 */
static double bench_policy(FILE *f, const struct tqsim_policy_ops *pol, const struct tqsim_dev *dev,
			   const struct tqsim_tg *tgs, unsigned int ntgs, const char *what,
			   const char *target)
{
	static struct tqsim_ws ws;
	struct stat st = { 0 };
	struct tqsim_decision d;

	for (unsigned int i = 0; i < ntgs; i++) {
		struct tqsim_problem pb = { .tg = &tgs[i], .dev = dev };
		double best = INFINITY;

		for (int r = 0; r < 3; r++) {
			uint64_t t0 = tq_now_ns();

			pol->order(&pb, &ws, &d);
			best = fmin(best, (double)(tq_now_ns() - t0));
		}
		st.sum += best;
		st.max = fmax(st.max, best);
		st.n++;
	}
	fprintf(f, "%-10s T=%-2u %-26s %8.3f us mean %9.3f us max  %s\n", pol->name,
		tgs[0].ntasks, what, st.sum / st.n / 1e3, st.max / 1e3, target);
	return st.max;
}

/*
 * auto with usched's budget, 0.1% of the TG's fifo makespan, on the
 * evaluation's TGs of @T tasks: its time over that makespan (each TG's best
 * of three runs: an overshoot of the deadline repeats, a preemption does
 * not), and for T <= 8 the share of the best order's gain over the worst
 * order it keeps (every run), the worst and the best from every feasible
 * order, also after two more TGs of the same tasks resumed from the order
 * before (usched's plans). With @chains, as usched forms T / 2 owners' two
 * ordered tasks each: task t runs after task t - T / 2.
 */
static void bench_auto(FILE *f, const char *data_dir, unsigned int T, bool chains)
{
	enum { REPS = 3 };
	static struct tqsim_tg tgs[EVAL_TGS];
	static struct tqsim_ws ws;
	static double ms[40320];
	struct stat share = { 0 }, ratio = { 0 }, resumed = { 0 };
	uint8_t from[TQSIM_MAX_TASKS];
	struct tqsim_auto_state *st = tqsim_auto_state_create();
	struct tqsim_decision d;
	struct tqsim_dev dev;

	if (!st) {
		fprintf(f, "auto       T=%-2u at 0.1%% budget: no memory\n", T);
		return;
	}
	for (unsigned int di = 0; di < EVAL_DEVS; di++) {
		eval_dev(&dev, di);
		if (eval_tgs(data_dir, T, di, EVAL_SEEDS, tgs) != EVAL_TGS) {
			fprintf(f, "auto       T=%-2u at 0.1%% budget: no data\n", T);
			tqsim_auto_state_destroy(st);
			return;
		}
		for (unsigned int i = 0; i < EVAL_TGS && chains; i++)
			for (unsigned int t = T / 2; t < T; t++)
				tqsim_tg_set_after(&tgs[i], t, t - T / 2);
		/* warm up: reading the data leaves the first run several times slower */
		for (unsigned int i = 0; i < EVAL_TGS; i++) {
			struct tqsim_problem pb = { .tg = &tgs[i], .dev = &dev, .budget_ns = 1e3 };

			tqsim_policy_auto.order(&pb, &ws, &d);
		}
		for (unsigned int i = 0; i < EVAL_TGS; i++) {
			uint8_t p[TQSIM_MAX_TASKS];
			double fifo, worst, best;
			unsigned int n = 0;

			for (unsigned int t = 0; t < T; t++)
				p[t] = t;
			fifo = tqsim_makespan(&tgs[i], &dev, p, T);
			do
				if ((ms[n] = tqsim_makespan(&tgs[i], &dev, p, T)) < INFINITY)
					n++;
			while (T <= 8 && tqsim_next_perm(p, T));
			qsort(ms, n, sizeof(ms[0]), tq_cmp_double);
			best = ms[0];
			worst = ms[n - 1];
			double tmin = INFINITY;

			for (int r = 0; r < REPS; r++) {
				struct tqsim_problem pb = { .tg = &tgs[i], .dev = &dev,
							 .budget_ns = 1e-3 * fifo, .seed = r + 1 };
				uint64_t t0 = tq_now_ns();
				double x;

				tqsim_policy_auto.order(&pb, &ws, &d);
				tmin = fmin(tmin, (tq_now_ns() - t0) / fifo);
				/* as tqsim eval: 1 when every order is as good */
				x = worst / best - 1 < 1e-12 ? 1 :
				    (worst / d.makespan - 1) / (worst / best - 1);
				if (T > 8)
					continue;
				share.sum += x;
				share.max = fmax(share.max, 1 - x);	/* the worst loss */
				share.n++;
			}
			ratio.sum += tmin;
			ratio.max = fmax(ratio.max, tmin);
			ratio.n++;
			/* the third TG of these tasks, each resumed from the order before */
			for (int r = 0; r < 3 && T <= 8; r++) {
				struct tqsim_problem pb = { .tg = &tgs[i], .dev = &dev,
							 .budget_ns = 1e-3 * fifo, .seed = 10 + r,
							 .state = st };
				double x;

				tqsim_auto_resume(st, r ? from : NULL, false, false);
				tqsim_policy_auto.order(&pb, &ws, &d);
				memcpy(from, d.order, T);
				if (r < 2)
					continue;
				x = worst / best - 1 < 1e-12 ? 1 :
				    (worst / d.makespan - 1) / (worst / best - 1);
				resumed.sum += x;
				resumed.max = fmax(resumed.max, 1 - x);
				resumed.n++;
			}
		}
	}
	fprintf(f, "auto       T=%-2u %s at 0.1%% budget: policy time / fifo makespan %.4f%% "
		"mean %.4f%% max  (target 0.1%%)", T, chains ? "chains" : "      ",
		100 * ratio.sum / ratio.n, 100 * ratio.max);
	if (share.n)
		fprintf(f, "; best gain over worst kept %.2f%% mean %.2f%% min",
			100 * share.sum / share.n, 100 * (1 - share.max));
	if (resumed.n)
		fprintf(f, ", third TG resumed %.2f%% mean %.2f%% min",
			100 * resumed.sum / resumed.n, 100 * (1 - resumed.max));
	fputc('\n', f);
	tqsim_auto_state_destroy(st);
}

void bench_all(FILE *f, const char *data_dir)
{
	enum { BENCH_TGS = 200 };
	static const char *const what[EVAL_DEVS] = { "dma2 slow1.00", "dma2 slow1.08", "dma1" };
	static struct tqsim_tg tgs8[BENCH_TGS], tgs10[BENCH_TGS], eval8[EVAL_DEVS][EVAL_TGS];
	struct tqsim_dev dev[EVAL_DEVS], lat_dev;
	double worst = 0;
	char label[64];
	bool have_eval = true;

	random_tgs(tgs8, BENCH_TGS, 8);
	random_tgs(tgs10, 20, 10);
	for (unsigned int i = 0; i < EVAL_DEVS; i++) {
		eval_dev(&dev[i], i);
		have_eval &= eval_tgs(data_dir, 8, i, EVAL_SEEDS, eval8[i]) == EVAL_TGS;
	}
	for (int i = 0; i < EVAL_DEVS; i++)
		bench_sim(f, &dev[i], what[i]);
	/* with the H200's command latencies: the same steps, a few more adds */
	lat_dev = dev[1];
	lat_dev.dep_ns = 8000;
	lat_dev.gap_ns = 1300;
	bench_sim(f, &lat_dev, "dma2 1.08 +lat");
	/* two kernel queues: concurrent.c's event loop over every queue (kernels of width 1) */
	lat_dev.kq = 2;
	bench_sim(f, &lat_dev, "dma2 1.08 +lat kq2");
	for (int i = 0; i < EVAL_DEVS; i++)
		bench_policy(f, &tqsim_policy_paper, &dev[i], tgs8, BENCH_TGS, what[i], "");
	for (int i = 0; i < EVAL_DEVS; i++)
		bench_policy(f, &tqsim_policy_neh, &dev[i], tgs8, BENCH_TGS, what[i],
			     "(target mean <= 10)");
	/* exact's target is its worst case over the bench's and the evaluation's T = 8 TGs */
	for (int i = 0; i < EVAL_DEVS; i++) {
		snprintf(label, sizeof(label), "%s bench", what[i]);
		worst = fmax(worst, bench_policy(f, &tqsim_policy_exact, &dev[i], tgs8, BENCH_TGS,
						 label, ""));
		if (!have_eval)
			continue;
		snprintf(label, sizeof(label), "%s eval", what[i]);
		worst = fmax(worst, bench_policy(f, &tqsim_policy_exact, &dev[i], eval8[i],
						 EVAL_TGS, label, ""));
	}
	fprintf(f, "exact      T=8  worst of the %u TGs above %9.3f us max  (target max <= 1000)%s\n",
		EVAL_DEVS * (BENCH_TGS + (have_eval ? EVAL_TGS : 0)), worst / 1e3,
		have_eval ? "" : " without the evaluation's TGs: no data");
	for (int i = 0; i < EVAL_DEVS; i++)
		bench_policy(f, &tqsim_policy_exact, &dev[i], tgs10, 20, what[i], "");
	for (unsigned int T = 4; T <= 16; T += T < 8 ? 2 : 4) {
		bench_auto(f, data_dir, T, false);
		bench_auto(f, data_dir, T, true);
	}
}

int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = "data";
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'd') {
			fprintf(stderr, "usage: tqsim bench [--data DIR]\n");
			return EXIT_BAD_INPUT;
		}
		dir = optarg;
	}
	if (optind != argc) {
		fprintf(stderr, "usage: tqsim bench [--data DIR]\n");
		return EXIT_BAD_INPUT;
	}
	bench_all(stdout, dir);
	return 0;
}
