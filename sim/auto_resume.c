// SPDX-License-Identifier: GPL-2.0
/*
 * auto_resume.c - auto going on from an earlier search of the same tasks.
 */
#include <math.h>
#include <string.h>

#include "policy.h"

/*
 * A resumed search (pb->resume, feasible, not taken by auto_take()):
 * iterated greedy goes on from it for the whole budget. neh's order is one
 * the earlier search started from, and branch and bound from the same
 * incumbent would only repeat that search, while iterated greedy, seeded
 * anew, adds to it. But a small TG's order goes unproven because its times
 * moved (usched's plans), not because the search ran out: branch and bound
 * proves it again in a few microseconds (4 tasks on the H200's host:
 * iterated greedy spent the whole budget, over 0.1% of a 10 ms TG). Where
 * caches are cold even that does not fit one budget, so the proof goes on
 * from where the last one stopped (pb->resume_cursor), for 7/8 of the
 * budget (iterated greedy, which keeps to its end, gets the rest): a proof
 * spread over a few TGs, after which the order is taken as it is. On the
 * H200 runs' mixes (tqsim, at the H200 host's pace) 4-task ones are proven
 * by the second TG, 6-task ones after 6-26 TGs where none was in 30
 * before. TGs of up to 8 tasks with chains are proven the same way:
 * iterated greedy alone stayed 2.7% above the optimum of run 20's real
 * BK50 at 4x2 (three chains would have to move at once). With the walk
 * kept from TG to TG, 7/8 of the budget for the proof beat half of it: on
 * the 50 4x2 mixes of the H200 runs (the caches emptied between TGs) the
 * seventh TG was 0.06-0.07% above the optimum on average (0.44-0.49%), the
 * twentieth 0-0.001% (0.12-0.17%). A stale resume order (the times moved
 * since) goes against neh's first. False: no resume.
 */
#define AUTO_REPROVE_MAX	6	/* tasks: branch and bound proves these in budget */
#define AUTO_CHAINS_PROVE_MAX	8	/* tasks with chains: proven over tens of TGs */

bool auto_resume(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d,
		 uint64_t start)
{
	const struct tq_bb_cursor *from = pb->resume_stale ? NULL : pb->resume_cursor;
	unsigned int n = ws->tg.ntasks;
	uint64_t budget;
	bool proven = false;
	double ms;

	if (!pb->resume || !is_perm(pb->resume, n))
		return false;
	ms = sim(ws, pb->dev, pb->resume, n);
	if (!(ms < INFINITY))
		return false;
	if (pb->resume_stale) {
		/* half the budget at most: neh at 12-16 tasks can take all of it */
		ws->deadline_ns = start + budget_ns(pb, ws, pb->resume, ms) / 2;
		neh(ws, pb->dev, d, true);	/* the seed if it is the better */
		ws->deadline_ns = 0;
		ws->timed_out = false;
	}
	if (!pb->resume_stale || d->makespan > ms) {
		memcpy(d->order, pb->resume, n);
		d->makespan = ms;
	}
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = false;
	budget = budget_ns(pb, ws, d->order, d->makespan);
	ws->bb_end_ns = start + budget;
	if (!pb->resume_stale)
		ws->walk_from = pb->resume_walk;
	if (n <= (pb->prove_max ? pb->prove_max :
		  ws->tg.nafter ? AUTO_CHAINS_PROVE_MAX : AUTO_REPROVE_MAX)) {
		ws->deadline_ns = start + (from && from->valid ? budget / 8 * 7 : budget / 4 * 3);
		bb_from(ws, pb->dev, d, from);
		proven = !ws->timed_out;
	}
	if (proven)
		exact_finish(ws, d);
	else
		greedy_rest(ws, pb->dev, d, start + budget);
	d->evals = ws->evals;
	return true;
}

/*
 * A lower bound without the search's setup: each engine's work after it is
 * free. With one copy engine both directions share it.
 */
static double load_bound(const struct tq_tg *tg, const struct tq_dev *dev)
{
	double work[TQ_STAGES] = { 0 }, lb;

	for (unsigned int t = 0; t < tg->ntasks; t++)
		for (int s = 0; s < TQ_STAGES; s++)
			work[s] += tq_task_work(tg, t, s);
	lb = dev->busy_until[TQ_K] + work[TQ_K];
	if (dev->dma == 2)
		return max_d(lb, max_d(dev->busy_until[TQ_HTD] + work[TQ_HTD],
				       dev->busy_until[TQ_DTH] + work[TQ_DTH]));
	return max_d(lb, max_d(dev->busy_until[TQ_HTD], dev->busy_until[TQ_DTH]) +
			 work[TQ_HTD] + work[TQ_DTH]);
}

/*
 * A proven resume order: one simulation on the TG as given, no search
 * state. usched takes one for most TGs of a recurring mix, right after its
 * loop slept through the previous TG with its caches taken over by the
 * copies: on the H200's host the whole choice then cost 7-9 us, most of
 * the 0.1% of a 10 ms TG, and setting up the search state and the root
 * bound was half of that (cold caches here: 4.3 us with, 2.3 us without).
 * False: no such order, or one against a chain (the search starts afresh).
 */
bool auto_take(const struct tq_problem *pb, struct tq_decision *d)
{
	const struct tq_tg *tg = pb->tg;
	unsigned int n = tg->ntasks;
	double lb;

	if (!pb->resume || !pb->resume_optimal || pb->resume_stale || !n ||
	    tq_dev_check(pb->dev) || !is_perm(pb->resume, n))
		return false;
	d->makespan = tq_makespan(tg, pb->dev, pb->resume, n);
	if (!(d->makespan < INFINITY))
		return false;
	memcpy(d->order, pb->resume, n);
	lb = load_bound(tg, pb->dev);
	d->optimal = !(lb < d->makespan);
	d->lower_bound = min_d(lb, d->makespan);
	d->evals = 1;
	return true;
}
