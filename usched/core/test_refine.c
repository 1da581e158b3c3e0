// SPDX-License-Identifier: GPL-2.0
/*
 * test_refine.c - the loop's idle time for plans (plans_arm(),
 * plans_refine()) without a device: the plan of 8 chained tasks that one
 * TG's budget left unproven is proven in slices, to exact's optimum, and
 * then nothing is left to do, and so is that of 8 tasks without chains
 * (which a TG's resumed search only walks); a plan armed with no time, or with less than
 * one slice, takes no more than that slice; slices on 16 tasks, too many
 * to prove, move the walk on and never make the plan worse.
 */
#include <math.h>
#include <string.h>

#include "selftests/tap.h"
#include "internal.h"

#define SLICE_NS	50000

static struct kern kern = { .id = 1 };

/*
 * @n tasks in chains: task t after task t - @T. Stage times in ms, each
 * task's copies summed into one command a stage (the real BK75 mix at 4x2
 * of Documentation/sim.md's chain bound, its tasks repeated for more).
 */
static void tg_build(struct task *tasks, struct task **ptr, struct tqsim_tg *tg, unsigned int n,
		     unsigned int T)
{
	static const double ms[8][3] = {
		{ 1.0214, 5.8453, 0.5097 }, { 0.0043, 1.1045, 0.0031 },
		{ 0.8025, 3.9205, 0.3998 }, { 1.2504, 0.0429, 0.8322 },
		{ 0.8025, 3.9205, 0.3998 }, { 0.8025, 3.9205, 0.3998 },
		{ 0.8025, 3.9205, 0.3998 }, { 12.5086, 0.2997, 6.2682 },
	};

	tqsim_tg_init(tg);
	for (unsigned int t = 0; t < n; t++) {
		memset(&tasks[t], 0, sizeof(tasks[t]));
		tasks[t].kern = &kern;
		tasks[t].t.m = 1000 * (t % 8 + 1);
		for (int s = 0; s < USCHED_STAGES; s++)
			tasks[t].pred[s] = ms[t % 8][s] * 1e6 * (1 + t / 8 * 0.1);
		ptr[t] = &tasks[t];
		tqsim_tg_add(tg, tasks[t].pred[USCHED_HTD], tasks[t].pred[USCHED_K],
			  tasks[t].pred[USCHED_DTH]);
		if (t >= T) {
			tqsim_tg_set_after(tg, t, t - T);
			tasks[t].after = &tasks[t - T];
		}
	}
}

/* auto at @budget_ns for @tg, as usched orders a TG of a mix the first time. */
static int order_once(struct tqsim_ws *ws, const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		      double budget_ns, struct tqsim_decision *d)
{
	struct tqsim_problem pb = { .tg = tg, .dev = dev, .budget_ns = budget_ns, .seed = 1 };

	return tqsim_policy_auto.order(&pb, ws, d);
}

int main(void)
{
	static struct plan_match m;
	static struct tqsim_ws ws;
	static struct tqsim_tg tg;
	static const double slow[2] = { 1, 1 };
	struct task tasks[16], *ptr[16];
	struct tqsim_decision d, ex;
	struct tqsim_problem pb = { .tg = &tg };
	struct plans *p = plans_create();
	uint8_t resume[TQSIM_MAX_TASKS];
	unsigned int calls = 0;
	uint64_t spent = 0, got;
	bool optimal = true;
	struct tqsim_dev dev;
	double before;

	if (!tap_ok(p != NULL, "plans_create"))
		return tap_done();
	tqsim_dev_init(&dev);
	dev.slow[TQSIM_HTD] = 1.15;
	dev.slow[TQSIM_DTH] = 1.08;
	pb.dev = &dev;
	tg_build(tasks, ptr, &tg, 8, 4);
	plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
	order_once(&ws, &tg, &dev, 1, &d);
	tap_ok(!d.optimal, "8 chained tasks at 1 ns: unproven (%.4f ms)", d.makespan / 1e6);
	plans_keep(p, &m, &d, false, 1);
	plans_arm(p, &m, &tg, &dev, &d, 1, 0);
	tap_ok(!plans_refine(p, &ws, SLICE_NS), "armed with no time: nothing to do");

	plans_arm(p, &m, &tg, &dev, &d, 1, 1000000000);
	while ((got = plans_refine(p, &ws, SLICE_NS)) && calls < 100000) {
		spent += got;
		calls++;
	}
	tap_ok(!got, "armed with 1 s: its slices end (%u slices, %.1f us)", calls, spent / 1e3);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && optimal,
	       "the plan is proven");
	tqsim_policy_exact.order(&pb, &ws, &ex);
	tap_ok(fabs(tqsim_makespan(&tg, &dev, resume, 8) - ex.makespan) <= 1e-6 * ex.makespan,
	       "its order is exact's optimum (%.4f ms, exact %.4f ms, first TG's %.4f ms)",
	       tqsim_makespan(&tg, &dev, resume, 8) / 1e6, ex.makespan / 1e6, d.makespan / 1e6);

	/* 8 tasks without chains: a TG's resumed search only walks them; the idle time proves them */
	tg_build(tasks, ptr, &tg, 8, 8);
	plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
	order_once(&ws, &tg, &dev, 1, &d);
	plans_keep(p, &m, &d, false, 2);
	plans_arm(p, &m, &tg, &dev, &d, 2, 1000000000);
	for (calls = 0; plans_refine(p, &ws, SLICE_NS) && calls < 100000; calls++)
		;
	tqsim_policy_exact.order(&pb, &ws, &ex);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && optimal &&
	       fabs(tqsim_makespan(&tg, &dev, resume, 8) - ex.makespan) <= 1e-6 * ex.makespan,
	       "8 tasks without chains proven too, to exact's optimum (%u slices, %.4f ms)", calls,
	       ex.makespan / 1e6);

	/* another mix, less time than one slice: one slice, cut short */
	tg_build(tasks, ptr, &tg, 8, 2);
	plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
	order_once(&ws, &tg, &dev, 1, &d);
	plans_keep(p, &m, &d, false, 3);
	plans_arm(p, &m, &tg, &dev, &d, 3, 1);
	got = plans_refine(p, &ws, SLICE_NS);
	tap_ok(got && !plans_refine(p, &ws, SLICE_NS), "armed with 1 ns: one slice, then done");

	/* 16 tasks: no proof, the walk goes on; the plan only gets better */
	tg_build(tasks, ptr, &tg, 16, 8);
	plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
	order_once(&ws, &tg, &dev, 1, &d);
	before = d.makespan;
	plans_keep(p, &m, &d, false, 4);
	plans_arm(p, &m, &tg, &dev, &d, 4, 2000000);
	calls = 0;
	while (plans_refine(p, &ws, SLICE_NS) && calls < 100000)
		calls++;
	plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
	tap_ok(!optimal && m.walk.valid, "16 chained tasks after 2 ms of slices: unproven, "
	       "the walk kept (%u slices)", calls);
	tap_ok(tqsim_makespan(&tg, &dev, resume, 16) <= before,
	       "and the plan no worse: %.4f ms from %.4f ms", tqsim_makespan(&tg, &dev, resume, 16) / 1e6,
	       before / 1e6);
	plans_destroy(p);
	return tap_done();
}
