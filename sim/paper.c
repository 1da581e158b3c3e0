// SPDX-License-Identifier: GPL-2.0
/*
 * paper.c - the paper policy: Algorithm 1 of Lazaro-Munoz et al. (see
 * Documentation/sim.md), a greedy that picks each next task by how well its
 * copies fit the engines' time still ahead.
 */
#include <math.h>

#include "policy.h"

/*
 * update(OT): the completion time of the last HtD, K and DtH command when
 * the ordered tasks are simulated alone.
 */
static void paper_update(struct tqsim_ws *ws, const struct tqsim_dev *dev, const uint8_t *ot,
			 unsigned int len, double *tm)
{
	tqsim_simulate(&ws->tg, dev, ot, len, &ws->res);
	ws->evals++;
	for (int s = 0; s < TQSIM_STAGES; s++)
		tm[s] = 0;
	for (unsigned int i = 0; i < len; i++)
		for (int s = 0; s < TQSIM_STAGES; s++)
			if (has(ws, ot[i], s))
				tm[s] = fmax(tm[s], ws->res.end[ws->tg.task[ot[i]].first[s] +
							      ws->tg.task[ot[i]].n[s] - 1]);
}

/*
 * select_first_task: the tasks with a short HtD and a long K compared to the
 * others (no other task has both a shorter-or-equal HtD and a longer-or-equal
 * K), and of those the one with the longest DtH.
 */
static unsigned int paper_first(const struct tqsim_ws *ws, uint64_t rest)
{
	int best = -1;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		bool dominated = false;

		for (uint64_t o = rest; o && !dominated; o &= o - 1) {
			const double *v = ws->work[__builtin_ctzll(o)];

			dominated = v[TQSIM_HTD] <= w[TQSIM_HTD] && v[TQSIM_K] >= w[TQSIM_K] &&
				    (v[TQSIM_HTD] < w[TQSIM_HTD] || v[TQSIM_K] > w[TQSIM_K]);
		}
		if (!dominated && (best < 0 || w[TQSIM_DTH] > ws->work[best][TQSIM_DTH]))
			best = t;
	}
	return best;
}

/*
 * select_next_task: best fit of the new task's HtD into the K time still
 * ahead (tm[K] - tm[HTD]), and of its K into the DtH time still ahead. A task
 * whose HtD fits is preferred; among the same kind, the least misfit
 * |HtD slack| + |K vs DtH slack| wins.
 */
static unsigned int paper_next(const struct tqsim_ws *ws, uint64_t rest, const double *tm)
{
	double best_score = INFINITY;
	bool best_fits = false;
	int best = -1;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		double htd_end = tm[TQSIM_HTD] + w[TQSIM_HTD];
		double fit_k = tm[TQSIM_K] - htd_end;
		double fit_d = fmax(tm[TQSIM_K], htd_end) + w[TQSIM_K] - tm[TQSIM_DTH];
		double score = fabs(fit_k) + fabs(fit_d);
		bool fits = fit_k >= 0;

		if (best < 0 || (fits && !best_fits) ||
		    (fits == best_fits && score < best_score)) {
			best = t;
			best_fits = fits;
			best_score = score;
		}
	}
	return best;
}

/* With precedence, paper picks each task among those whose predecessor is placed. */
static void paper(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d)
{
	unsigned int n = ws->tg.ntasks, len = 0;
	uint64_t rest = all_tasks(n);
	uint8_t *ot = d->order;
	double tm[TQSIM_STAGES];

	ot[len] = paper_first(ws, available(ws, rest));
	rest &= ~(1ULL << ot[len++]);
	while (len + 2 < n) {
		paper_update(ws, dev, ot, len, tm);
		ot[len] = paper_next(ws, available(ws, rest), tm);
		rest &= ~(1ULL << ot[len++]);
	}
	if (len + 2 == n) {
		unsigned int a = __builtin_ctzll(rest), b = 63 - __builtin_clzll(rest);
		double da = ws->work[a][TQSIM_DTH], db = ws->work[b][TQSIM_DTH];

		/*
		 * select_last_tasks: select_next_task with the DtH criterion first,
		 * the shorter DtH last so the TG does not end on a long transfer.
		 */
		if (available(ws, rest) != rest) {
			ot[len] = a;	/* b runs after a */
		} else if (da != db) {
			ot[len] = da > db ? a : b;
		} else {
			paper_update(ws, dev, ot, len, tm);
			ot[len] = paper_next(ws, rest, tm);
		}
		rest &= ~(1ULL << ot[len++]);
	}
	if (rest)
		ot[len++] = __builtin_ctzll(rest);
	d->makespan = sim(ws, dev, ot, n);
}

static int paper_order(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	return decide(pb, ws, d, paper);
}

const struct tqsim_policy_ops tqsim_policy_paper = { .name = "paper", .order = paper_order };
