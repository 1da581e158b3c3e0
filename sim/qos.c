// SPDX-License-Identifier: GPL-2.0
/*
 * qos.c - classes, deadlines and weights in a TG's order (tqsim_qos_order())
 * and the admission test of a task with a deadline (tqsim_qos_earliest()).
 *
 * Classes go first, highest first: no task waits behind a lower class's
 * task of its TG. A predecessor takes its successor's class where that is
 * higher (priority inheritance), so a chain never waits on a lower segment.
 * Each class's tasks are ordered after the higher ones', on engines busy
 * with them: the latency classes (above 0) for the least weighted
 * completion time sum w_i C_i (every order of up to TQSIM_QOS_EXACT_MAX
 * tasks within the budget, flow's refinement beyond), class 0 and below by
 * the base policy (auto: makespan), as without classes. Then deadlines:
 * where the order misses some, earliest deadline first within each class
 * (least laxity: deadline less standalone work, first) if the model says it
 * misses fewer.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tqsim.h"

static double weight(const struct tqsim_qos *q, unsigned int t)
{
	return q->weight[t] > 0 ? q->weight[t] : 1;
}

double tqsim_qos_wct(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const struct tqsim_qos *q,
		     int prio, const uint8_t *order, unsigned int n, struct tqsim_sim_result *res)
{
	double sum = 0;

	tqsim_simulate(tg, dev, order, n, res);
	if (!(res->makespan < INFINITY))
		return INFINITY;
	for (unsigned int i = 0; i < n; i++)
		if (q->prio[order[i]] == prio)
			sum += weight(q, order[i]) * tqsim_task_end(tg, res, order[i]);
	return sum;
}

unsigned int tqsim_qos_misses(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			      const struct tqsim_qos *q, const uint8_t *order, unsigned int n,
			      struct tqsim_sim_result *res)
{
	unsigned int late = 0;

	tqsim_simulate(tg, dev, order, n, res);
	if (!(res->makespan < INFINITY))
		return n + 1;
	for (unsigned int i = 0; i < n; i++)
		late += q->deadline[order[i]] > 0 && tqsim_task_end(tg, res, order[i]) > q->deadline[order[i]];
	return late;
}

/* The task's standalone work, all stages. */
static double work(const struct tqsim_tg *tg, unsigned int t)
{
	return tqsim_task_work(tg, t, TQSIM_HTD) + tqsim_task_work(tg, t, TQSIM_K) +
	       tqsim_task_work(tg, t, TQSIM_DTH);
}

/* Whether a goes before b in an earliest-deadline order: least laxity first, no deadline last. */
static bool edf_before(const struct tqsim_tg *tg, const struct tqsim_qos *q, unsigned int a,
		       unsigned int b)
{
	if (!(q->deadline[b] > 0))
		return q->deadline[a] > 0;
	if (!(q->deadline[a] > 0))
		return false;
	return q->deadline[a] - work(tg, a) < q->deadline[b] - work(tg, b);
}

unsigned int tqsim_qos_edf(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			   const struct tqsim_qos *q, uint8_t *order, unsigned int n,
			   struct tqsim_sim_result *res)
{
	unsigned int late = tqsim_qos_misses(tg, dev, q, order, n, res), late2;
	uint8_t alt[TQSIM_MAX_TASKS];

	if (!late)
		return 0;
	/* stable insertion sort inside each run of one class: the classes stay in place */
	memcpy(alt, order, n);
	for (unsigned int i = 1; i < n; i++) {
		uint8_t t = alt[i];
		unsigned int j = i;

		while (j > 0 && q->prio[alt[j - 1]] == q->prio[t] && edf_before(tg, q, t, alt[j - 1]) &&
		       !(tg->nafter && tg->after[t] == alt[j - 1])) {
			alt[j] = alt[j - 1];
			j--;
		}
		alt[j] = t;
	}
	late2 = tqsim_qos_misses(tg, dev, q, alt, n, res);
	if (late2 < late) {
		memcpy(order, alt, n);
		return late2;
	}
	return late;
}

/*
 * Every order of @idx (m tasks) after @prefix (k tasks) and before the
 * lower classes' tasks @rest (r, in their index order: on one copy engine
 * their HtD copies go before the TG's DtH copies, so they count) for the
 * least weighted completion time of class @prio, into @idx; stops at
 * @deadline. The whole order into @full; returns its cost.
 */
static double wct_exact(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const struct tqsim_qos *q,
			int prio, const uint8_t *prefix, unsigned int k, uint8_t *idx, unsigned int m,
			const uint8_t *rest, unsigned int r, uint64_t deadline, uint8_t *full,
			struct tqsim_sim_result *res)
{
	uint8_t perm[TQSIM_MAX_TASKS], cur[TQSIM_MAX_TASKS];
	double best_cost = INFINITY;
	unsigned long tries = 0;

	for (unsigned int i = 0; i < m; i++)
		perm[i] = i;
	memcpy(cur, prefix, k);
	memcpy(cur + k, idx, m);
	memcpy(cur + k + m, rest, r);
	memcpy(full, cur, k + m + r);
	do {
		double c;

		for (unsigned int i = 0; i < m; i++)
			cur[k + i] = idx[perm[i]];
		c = tqsim_qos_wct(tg, dev, q, prio, cur, k + m + r, res);
		if (c < best_cost) {
			best_cost = c;
			memcpy(full, cur, k + m + r);
		}
		if (deadline && !(++tries & 63) && tqsim_clock_ns() >= deadline)
			break;
	} while (tqsim_next_perm(perm, m));
	memcpy(idx, full + k, m);
	return best_cost;
}

/*
 * The tasks @idx (m of them, ascending) of @tg as a TG of their own into
 * @sub, a predecessor outside them released at its end in @pres (the
 * higher classes' simulation), or at 0 with none.
 */
static void tg_subset(const struct tqsim_tg *tg, const uint8_t *idx, unsigned int m,
		      const struct tqsim_sim_result *pres, bool simulated, struct tqsim_tg *sub)
{
	int8_t pos[TQSIM_MAX_TASKS];

	memset(pos, -1, sizeof(pos));
	tqsim_tg_init(sub);
	for (unsigned int i = 0; i < m; i++) {
		unsigned int t = idx[i];
		int a = tg->nafter ? tg->after[t] : -1;
		double rel = tg->release[t];

		pos[t] = i;
		tqsim_tg_add_task(sub);
		for (int s = 0; s < TQSIM_STAGES; s++)
			for (unsigned int c = 0; c < tg->task[t].n[s]; c++)
				tqsim_tg_add_cmd(sub, s, tg->cmd_ns[tg->task[t].first[s] + c]);
		sub->kwidth[i] = tg->kwidth[t];
		if (a >= 0 && pos[a] >= 0)
			tqsim_tg_set_after(sub, i, pos[a]);
		else if (a >= 0 && simulated)
			rel = fmax(rel, tqsim_task_end(tg, pres, a));
		tqsim_tg_set_release(sub, i, rel);
	}
}

int tqsim_qos_order(const struct tqsim_problem *pb, const struct tqsim_policy_ops *base,
		    const struct tqsim_qos *q, struct tqsim_ws *ws, struct tqsim_sim_result *res,
		    struct tqsim_decision *d)
{
	const struct tqsim_tg *tg = pb->tg;
	unsigned int n = tg->ntasks, k = 0;
	int8_t eff[TQSIM_MAX_TASKS];
	struct tqsim_qos eq = *q;
	bool plain = true;
	uint64_t deadline = pb->budget_ns > 0 ? tqsim_clock_ns() + (uint64_t)pb->budget_ns : 0;
	int hi = INT8_MIN, lo = INT8_MAX;
	uint8_t top_order[TQSIM_MAX_TASKS];
	double top_cost = INFINITY, cost;

	if (!n || tqsim_dev_check(pb->dev))
		return -EINVAL;
	for (unsigned int t = 0; t < n; t++) {
		eff[t] = q->prio[t];
		plain &= q->prio[t] <= 0 && q->prio[t] == q->prio[0] && !(q->deadline[t] > 0);
	}
	/* one class that is not a latency class, no deadline: the base policy's order as it is */
	if (plain)
		return base->order(pb, ws, d);
	/* a predecessor inherits its successor's class (after[t] < t) */
	for (unsigned int t = n; t-- > 0;)
		if (tg->nafter && tg->after[t] >= 0 && eff[tg->after[t]] < eff[t])
			eff[tg->after[t]] = eff[t];
	for (unsigned int t = 0; t < n; t++) {
		hi = eff[t] > hi ? eff[t] : hi;
		lo = eff[t] < lo ? eff[t] : lo;
		eq.prio[t] = eff[t];
	}
	memset(d, 0, sizeof(*d));
	for (int c = hi; c >= lo; c--) {
		uint8_t idx[TQSIM_MAX_TASKS], rest[TQSIM_MAX_TASKS];
		unsigned int r = 0;
		struct tqsim_problem sp = *pb;
		struct tqsim_dev dev = *pb->dev;
		struct tqsim_decision sd;
		struct tqsim_tg sub;
		unsigned int m = 0;

		for (unsigned int t = 0; t < n; t++) {
			if (eff[t] == c)
				idx[m++] = t;
			else if (eff[t] < c)
				rest[r++] = t;
		}
		if (!m)
			continue;
		/* the engines as the higher classes leave them */
		if (k) {
			tqsim_simulate(tg, pb->dev, d->order, k, res);
			for (int s = 0; s < TQSIM_STAGES; s++)
				dev.busy_until[s] = res->engine_end[s];
			if (dev.kq > 1) {
				dev.busy_until[TQSIM_K] = res->kq_end[0];
				for (unsigned int i = 1; i < dev.kq; i++)
					dev.kq_busy[i] = res->kq_end[i];
			}
		}
		if (c > 0 && m <= TQSIM_QOS_EXACT_MAX) {
			cost = wct_exact(tg, pb->dev, &eq, c, d->order, k, idx, m, rest, r, deadline,
					 top_order, res);
			if (c == hi)
				top_cost = cost;
			memcpy(d->order + k, idx, m);
			k += m;
			continue;
		}
		tg_subset(tg, idx, m, res, k > 0, &sub);
		sp.tg = &sub;
		sp.dev = &dev;
		sp.state = NULL;
		if (base->order(&sp, ws, &sd))
			for (unsigned int i = 0; i < m; i++)
				sd.order[i] = i;
		if (c > 0) {
			sp.flow_behind = 0;
			sp.flow_rate = 0;
			tqsim_flow_refine(&sp, res, &sd);
		}
		for (unsigned int i = 0; i < m; i++)
			d->order[k + i] = idx[sd.order[i]];
		k += m;
	}
	/*
	 * The lower classes' orders may slow the top class's copies (their
	 * overlap): keep the top class's best where they would.
	 */
	if (top_cost < INFINITY && tqsim_qos_wct(tg, pb->dev, &eq, hi, d->order, n, res) > top_cost)
		memcpy(d->order, top_order, n);
	tqsim_qos_edf(tg, pb->dev, &eq, d->order, n, res);
	tqsim_simulate(tg, pb->dev, d->order, n, res);
	d->makespan = res->makespan;
	d->lower_bound = 0;	/* no bound on another objective's makespan */
	d->optimal = false;
	return 0;
}

double tqsim_qos_earliest(const struct tqsim_dev *dev, double htd_ns, double k_ns, double dth_ns,
			  struct tqsim_sim_result *res)
{
	static const uint8_t first[1] = { 0 };
	struct tqsim_tg tg;

	tqsim_tg_init(&tg);
	if (tqsim_tg_add(&tg, htd_ns, k_ns, dth_ns) < 0)
		return INFINITY;
	tqsim_simulate(&tg, dev, first, 1, res);
	return res->makespan;
}
