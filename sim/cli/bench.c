// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - `tqsim bench`: how fast the simulator and the policies are on
 * this machine, against the targets (one 8-task simulation <= 0.3 us, neh at
 * T = 8 <= 10 us, exact at T = 8 <= 1 ms in the worst case). Random TGs, half
 * dominant-kernel and half dominant-transfer tasks, fixed seed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(double lo, double hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (hi - lo) * (double)(rng >> 11) * 0x1.0p-53;
}

static void random_tg(struct tq_tg *tg, unsigned int n)
{
	tq_tg_init(tg);
	for (unsigned int t = 0; t < n; t++) {
		if (t % 2)	/* dominant kernel */
			tq_tg_add(tg, uniform(0.05, 2) * NS_PER_MS, uniform(3, 10) * NS_PER_MS,
				  uniform(0.05, 2) * NS_PER_MS);
		else		/* dominant transfer */
			tq_tg_add(tg, uniform(1, 6) * NS_PER_MS, uniform(0.1, 2) * NS_PER_MS,
				  uniform(1, 6) * NS_PER_MS);
	}
}

struct stat {
	double sum, max;
	unsigned int n;
};

static void stat_add(struct stat *st, double v)
{
	st->sum += v;
	st->max = fmax(st->max, v);
	st->n++;
}

static void bench_sim(FILE *f, const struct tq_dev *dev, const char *what)
{
	enum { TGS = 64, REPS = 20000 };
	static struct tq_tg tgs[TGS];
	uint8_t order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	volatile double sink = 0;
	uint64_t t0;
	double ns;

	for (int i = 0; i < TGS; i++)
		random_tg(&tgs[i], 8);
	t0 = tq_clock_ns();
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < TGS; i++)
			sink += tq_makespan(&tgs[i], dev, order, 8);
	ns = (double)(tq_clock_ns() - t0) / (REPS * TGS);
	fprintf(f, "simulate   T=8  %-16s %8.3f us/sim   (target <= 0.3)\n", what, ns / 1e3);
	(void)sink;
}

/* Each instance's best of three runs (noise), then mean and max over instances. */
static void bench_policy(FILE *f, const struct tq_policy_ops *pol, const struct tq_dev *dev,
			 unsigned int n, unsigned int instances, const char *what,
			 const char *target)
{
	static struct tq_ws ws;
	static struct tq_tg tg;
	struct tq_problem pb = { .tg = &tg, .dev = dev };
	struct stat st = { 0 };
	struct tq_decision d;

	for (unsigned int i = 0; i < instances; i++) {
		double best = INFINITY;

		random_tg(&tg, n);
		for (int r = 0; r < 3; r++) {
			uint64_t t0 = tq_clock_ns();

			pol->order(&pb, &ws, &d);
			best = fmin(best, (double)(tq_clock_ns() - t0));
		}
		stat_add(&st, best);
	}
	fprintf(f, "%-10s T=%-2u %-16s %8.3f us mean %9.3f us max  %s\n", pol->name, n, what,
	       st.sum / st.n / 1e3, st.max / 1e3, target);
}

void bench_all(FILE *f)
{
	const char *what[3] = { "dma2 slow1.00", "dma2 slow1.08", "dma1" };
	struct tq_dev dev[3];

	for (int i = 0; i < 3; i++)
		tq_dev_init(&dev[i]);
	dev[1].slow[TQ_HTD] = dev[1].slow[TQ_DTH] = 1.08;
	dev[2].dma = 1;
	for (int i = 0; i < 3; i++)
		bench_sim(f, &dev[i], what[i]);
	for (int i = 0; i < 3; i++)
		bench_policy(f, &tq_policy_paper, &dev[i], 8, 200, what[i], "");
	for (int i = 0; i < 3; i++)
		bench_policy(f, &tq_policy_neh, &dev[i], 8, 200, what[i], "(target mean <= 10)");
	for (int i = 0; i < 3; i++)
		bench_policy(f, &tq_policy_exact, &dev[i], 8, 200, what[i], "(target max <= 1000)");
	for (int i = 0; i < 3; i++)
		bench_policy(f, &tq_policy_exact, &dev[i], 10, 20, what[i], "");
}

int cmd_bench(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: tqsim bench\n");
		return EXIT_BAD_INPUT;
	}
	bench_all(stdout);
	return 0;
}
