// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - the latency objective and the flow policy.
 *
 * A TG's makespan is what the tasks behind it wait for; its tasks' own
 * completion times are what their submitters wait for. The flow cost of an
 * order weighs both (tqsim_flow_cost()):
 *
 *	J = sum_i C_i + behind * C_max + rate * C_max^2 / 2
 *
 * C_i: task i's last command's end, C_max: the makespan, both from the TG's
 * launch; behind: tasks already waiting for the next TG, each held up by
 * about the makespan; rate: arrivals per ns expected while the TG runs,
 * arriving evenly over it and so held up by half of it on average. With
 * nobody behind J is the TG's total flow time (shortest work first, where
 * the engines allow); with a long queue it is the makespan.
 *
 * flow = auto's order (the makespan search, plans and all in usched), then
 * a search for a lower J within the same budget: fifo's order, adjacent
 * swaps from the best order so far, then the tasks by ascending total work,
 * each inserted where J is least. Infeasible orders (a task before its
 * predecessor) simulate to INFINITY and are never taken.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tqsim.h"

double tqsim_flow_cost(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
		    unsigned int n, double behind, double rate, struct tqsim_sim_result *res)
{
	double sum = 0;

	tqsim_simulate(tg, dev, order, n, res);
	if (!(res->makespan < INFINITY))
		return INFINITY;
	for (unsigned int i = 0; i < n; i++)
		sum += tqsim_task_end(tg, res, order[i]);
	return sum + behind * res->makespan + rate * res->makespan * res->makespan / 2;
}

struct flow_search {
	const struct tqsim_problem *pb;
	struct tqsim_sim_result *res;
	uint64_t deadline;
	unsigned int sims;
	bool out;		/* the deadline passed */
	uint8_t best[TQSIM_MAX_TASKS];
	double best_j, best_ms;
};

/* J of order; INFINITY once the budget is spent (checked every 4th simulation). */
static double flow_try(struct flow_search *fs, const uint8_t *order)
{
	const struct tqsim_problem *pb = fs->pb;
	unsigned int n = pb->tg->ntasks;
	double j;

	if (fs->out || (!(fs->sims & 3) && fs->sims && tqsim_clock_ns() >= fs->deadline)) {
		fs->out = true;
		return INFINITY;
	}
	fs->sims++;
	j = tqsim_flow_cost(pb->tg, pb->dev, order, n, pb->flow_behind, pb->flow_rate, fs->res);
	if (j < fs->best_j * (1 - 1e-12)) {
		fs->best_j = j;
		fs->best_ms = fs->res->makespan;
		memcpy(fs->best, order, n);
	}
	return j;
}

/* Adjacent swaps from the best order while one lowers J. */
static void flow_swaps(struct flow_search *fs)
{
	unsigned int n = fs->pb->tg->ntasks;
	uint8_t cur[TQSIM_MAX_TASKS];
	bool better = true;

	while (better && !fs->out) {
		better = false;
		for (unsigned int i = 0; i + 1 < n && !fs->out; i++) {
			double before = fs->best_j;

			memcpy(cur, fs->best, n);
			cur[i] = fs->best[i + 1];
			cur[i + 1] = fs->best[i];
			flow_try(fs, cur);
			better |= fs->best_j < before;
		}
	}
}

/* Tasks by ascending total work, each inserted where J is least. */
static void flow_insert(struct flow_search *fs)
{
	const struct tqsim_tg *tg = fs->pb->tg;
	unsigned int n = tg->ntasks;
	uint8_t by[TQSIM_MAX_TASKS], seq[TQSIM_MAX_TASKS + 1], tr[TQSIM_MAX_TASKS + 1];
	double total[TQSIM_MAX_TASKS];
	unsigned int len = 0;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i;

		total[t] = 0;
		for (int s = 0; s < TQSIM_STAGES; s++)
			total[t] += tqsim_task_work(tg, t, s);
		for (i = t; i > 0 && total[by[i - 1]] > total[t]; i--)
			by[i] = by[i - 1];
		by[i] = (uint8_t)t;
	}
	for (unsigned int k = 0; k < n && !fs->out; k++) {
		double bj = INFINITY;
		unsigned int at = len;

		/*
		 * J of the partial order: the tasks placed so far alone. A
		 * task whose predecessor is not placed yet goes last for now.
		 */
		for (unsigned int pos = 0; pos <= len && !fs->out; pos++) {
			double j;

			memcpy(tr, seq, pos);
			tr[pos] = by[k];
			memcpy(tr + pos + 1, seq + pos, len - pos);
			fs->sims++;
			j = tqsim_flow_cost(tg, fs->pb->dev, tr, len + 1, fs->pb->flow_behind,
					 fs->pb->flow_rate, fs->res);
			if (j < bj) {
				bj = j;
				at = pos;
			}
			if (!(fs->sims & 3) && tqsim_clock_ns() >= fs->deadline)
				fs->out = true;
		}
		memmove(seq + at + 1, seq + at, len - at);
		seq[at] = by[k];
		len++;
	}
	if (len == n)
		flow_try(fs, seq);
}

int tqsim_flow_refine(const struct tqsim_problem *pb, struct tqsim_sim_result *res, struct tqsim_decision *d)
{
	const struct tqsim_tg *tg = pb->tg;
	unsigned int n = tg->ntasks;
	struct flow_search fs = { .pb = pb, .res = res, .best_j = INFINITY };
	uint8_t fifo[TQSIM_MAX_TASKS];
	double budget;

	if (!n || tqsim_dev_check(pb->dev) || pb->flow_behind < 0 || pb->flow_rate < 0 ||
	    !isfinite(pb->flow_behind) || !isfinite(pb->flow_rate))
		return -EINVAL;
	budget = pb->budget_ns > 0 ? pb->budget_ns :
		 (pb->budget_frac > 0 ? pb->budget_frac : 0.01) * d->makespan;
	fs.deadline = tqsim_clock_ns() + (uint64_t)fmax(budget, 1);
	memcpy(fs.best, d->order, n);
	fs.best_j = tqsim_flow_cost(tg, pb->dev, d->order, n, pb->flow_behind, pb->flow_rate, res);
	fs.best_ms = res->makespan;
	fs.sims = 1;
	if (n > 1) {
		for (unsigned int t = 0; t < n; t++)
			fifo[t] = (uint8_t)t;
		flow_try(&fs, fifo);
		flow_swaps(&fs);
		flow_insert(&fs);
		flow_swaps(&fs);
	}
	if (!(fs.best_ms < INFINITY))
		return -EINVAL;	/* d's order was infeasible and nothing better came */
	memcpy(d->order, fs.best, n);
	d->makespan = fs.best_ms;
	d->flow = fs.best_j;
	d->lower_bound = fmin(d->lower_bound, d->makespan);
	d->optimal = d->optimal && !(d->lower_bound < d->makespan);
	d->evals += fs.sims;
	return 0;
}

static int flow_order(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	int ret = tqsim_policy_auto.order(pb, ws, d);

	return ret ?: tqsim_flow_refine(pb, &ws->res, d);
}

const struct tqsim_policy_ops tqsim_policy_flow = { .name = "flow", .order = flow_order };
