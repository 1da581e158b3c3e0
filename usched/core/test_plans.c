// SPDX-License-Identifier: GPL-2.0
/*
 * test_plans.c - auto's plans (plans.c): the same mix of six tasks from six
 * owners, submitted round after round on an idle device, is ordered afresh
 * once and from its plan after that, also when submitted in another order;
 * another mix gets a plan of its own; with no_plans every TG is ordered
 * afresh. At a budget too small to prove the mix, the loop's idle time goes
 * on with its plan while the device runs (usched_idle()), and not with
 * no_refine. Every result is checked against the host reference.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "selftests/tap.h"
#include "testlib.h"

#define NTASKS	6
#define ROUNDS	5

static const char *const mix[NTASKS] = { "MM", "BS", "FWT", "CONV", "VA", "DCT" };
static struct tl_sink sink;
static struct tl_job job[NTASKS];
static uint32_t kernel[16];
static unsigned int plan_of[USCHED_PLANS];	/* TGs finished, by enum usched_plan */
static unsigned int tgs_of_six;

static void on_tg(void *arg, const struct usched_tg_stat *s)
{
	(void)arg;
	if (s->plan < USCHED_PLANS)
		plan_of[s->plan]++;
	tgs_of_six += s->ntasks == NTASKS;
}

/* The index in tqk_tasks[] (and kernel[]) of the task @name; -1: none. */
static int task_named(const char *name)
{
	for (unsigned int i = 0; i < tqk_ntasks; i++)
		if (!strcmp(tqk_tasks[i]->name, name))
			return i;
	return -1;
}

/*
 * One round: the mix at size @which, submitted forwards or backwards, each
 * task from its own owner, all before the loop runs, so they form one TG.
 * Returns the tasks whose results are wrong, or -errno.
 */
static int round_run(struct usched *u, struct tl_arena *a, unsigned int which, bool backwards)
{
	unsigned long want = sink.done + NTASKS;
	int wrong = 0;

	a->used = 0;
	for (unsigned int i = 0; i < NTASKS; i++) {
		unsigned int k = backwards ? NTASKS - 1 - i : i;
		int t = task_named(mix[k]), ret;

		if (t < 0)
			return -ENOENT;
		ret = tl_job_init(&job[k], a, tqk_tasks[t], tl_small(tqk_tasks[t], which),
				  100 + k, kernel[t], k + 1);
		if (!ret)
			ret = usched_submit(u, &job[k].task);
		if (ret)
			return ret;
	}
	tl_run(u, &sink, want);
	for (unsigned int k = 0; k < NTASKS; k++) {
		struct tqk_mismatch mm;

		wrong += job[k].c.status || tl_job_verify(&job[k], &mm);
		atomic_store(&job[k].ncompl, 0);
	}
	return wrong;
}

static void run_core(bool no_plans)
{
	struct usched_opts o = { .complete = tl_complete, .complete_arg = &sink,
				 .tg_done = on_tg, .no_plans = no_plans };
	struct usched_stats st;
	struct tl_arena a;
	struct usched *u = tl_open(&o, kernel);
	int bad = 0, ret;

	memset(plan_of, 0, sizeof(plan_of));
	tgs_of_six = 0;
	ret = tl_arena_init(&a, u, 64 << 20);
	for (unsigned int r = 0; r < ROUNDS && !ret; r++) {
		ret = round_run(u, &a, 1, r == ROUNDS - 1);
		bad += ret > 0;
	}
	tap_ok(ret >= 0 && !bad, "%s: %u rounds of %u tasks, every result right (%s)",
	       no_plans ? "no plans" : "plans", ROUNDS, NTASKS, ret < 0 ? strerror(-ret) : "ok");
	if (!tap_ok(tgs_of_six == ROUNDS, "each round is one TG (%u of %u)", tgs_of_six, ROUNDS))
		goto out;
	if (no_plans) {
		tap_ok(plan_of[USCHED_PLAN_NONE] == ROUNDS,
		       "no_plans: every TG ordered afresh (%u of %u)", plan_of[USCHED_PLAN_NONE],
		       ROUNDS);
	} else {
		tap_ok(plan_of[USCHED_PLAN_NONE] == 1 &&
		       plan_of[USCHED_PLAN_RESUMED] + plan_of[USCHED_PLAN_PROVEN] == ROUNDS - 1,
		       "the first TG of the mix is ordered afresh, the %u after it from its plan, "
		       "the last submitted backwards too (afresh %u, resumed %u, proven %u)",
		       ROUNDS - 1, plan_of[USCHED_PLAN_NONE], plan_of[USCHED_PLAN_RESUMED],
		       plan_of[USCHED_PLAN_PROVEN]);
		ret = round_run(u, &a, 2, false);
		tap_ok(!ret && plan_of[USCHED_PLAN_NONE] == 2,
		       "the mix at other sizes is another mix: ordered afresh");
	}
	usched_stats(u, &st);
	tap_ok(st.planned[USCHED_PLAN_NONE] == plan_of[USCHED_PLAN_NONE] &&
	       st.planned[USCHED_PLAN_RESUMED] == plan_of[USCHED_PLAN_RESUMED] &&
	       st.planned[USCHED_PLAN_PROVEN] == plan_of[USCHED_PLAN_PROVEN],
	       "%s: the stats count the TGs by plan as the callback saw them",
	       no_plans ? "no plans" : "plans");
out:
	usched_destroy(u);
	tl_arena_free(&a);
}

/*
 * auto at 1e-7 of a TG's device time (well under a microsecond) cannot prove
 * the mix, so its plan is armed for the loop's idle time, which the loop
 * spends (tl_run() calls usched_idle()) unless @no_refine.
 */
static void run_refine(bool no_refine)
{
	struct usched_opts o = { .complete = tl_complete, .complete_arg = &sink,
				 .budget = 1e-7, .refine = 0.5, .no_refine = no_refine };
	struct usched_stats st;
	struct tl_arena a;
	struct usched *u = tl_open(&o, kernel);
	int bad = 0, ret;

	ret = tl_arena_init(&a, u, 64 << 20);
	for (unsigned int r = 0; r < ROUNDS && !ret; r++) {
		ret = round_run(u, &a, 2, false);
		bad += ret > 0;
	}
	usched_stats(u, &st);
	tap_ok(ret >= 0 && !bad, "%s: %u rounds at a budget of 1e-7, every result right (%s)",
	       no_refine ? "no_refine" : "refine", ROUNDS, ret < 0 ? strerror(-ret) : "ok");
	if (no_refine)
		tap_ok(!st.refine_ns, "no_refine: no idle time spent on plans");
	else
		tap_ok(st.refine_ns > 0, "the loop's idle time went on with the plan: %.1f us, "
		       "%.4f%% of the %.1f ms the TGs ran", st.refine_ns / 1e3,
		       100 * st.refine_ns / st.measured_ns_sum, st.measured_ns_sum / 1e6);
	usched_destroy(u);
	tl_arena_free(&a);
}

int main(void)
{
	const char *why = tl_setup();

	if (why)
		tap_skip_all(why);
	tl_sink_init(&sink);
	run_core(false);
	run_core(true);
	run_refine(false);
	run_refine(true);
	return tap_done();
}
