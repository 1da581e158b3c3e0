// SPDX-License-Identifier: GPL-2.0
/*
 * bound.c - the lower bounds of branch and bound (exact.c), which are also
 * every policy's lower bound (root_bound(), in decide()): on the makespan
 * of every completion of an order prefix (bb_bound()), from the state of
 * its engines, and what they and the search prepare once per TG
 * (bb_prepare(): Johnson's orders and the chains' twins). Why each is a
 * lower bound, with releases, latencies, chains and concurrent kernels:
 * exact.c's head comment.
 */
#include <math.h>
#include <string.h>

#include "policy.h"

/* Johnson's rule for stages @a, @a + 1: is task @x before task @y? */
static bool johnson_before(const double *x, const double *y, int a)
{
	bool x_first = x[a] <= x[a + 1], y_first = y[a] <= y[a + 1];

	if (x_first != y_first)
		return x_first;
	return x_first ? x[a] < y[a] : x[a + 1] > y[a + 1];
}

static void johnson_order(struct tqsim_ws *ws, int a, uint8_t *order)
{
	for (unsigned int t = 0; t < ws->tg.ntasks; t++) {
		unsigned int i;

		for (i = t; i > 0 && johnson_before(ws->work[t], ws->work[order[i - 1]], a); i--)
			order[i] = order[i - 1];
		order[i] = t;
	}
}

/* Whether tasks @a and @b of ws->tg have the same commands and release time. */
static bool same_task(const struct tqsim_ws *ws, unsigned int a, unsigned int b)
{
	const struct tqsim_tg *tg = &ws->tg;

	if (tg->release[a] != tg->release[b])
		return false;
	for (int s = 0; s < TQSIM_STAGES; s++) {
		const struct tqsim_task *x = &tg->task[a], *y = &tg->task[b];

		if (x->n[s] != y->n[s] ||
		    memcmp(&tg->cmd_ns[x->first[s]], &tg->cmd_ns[y->first[s]],
			   x->n[s] * sizeof(tg->cmd_ns[0])))
			return false;
	}
	return true;
}

/*
 * Chains of the same tasks (ws->twins): swapping two of them, task for
 * task, in any order gives the same makespan, so of the orders that start
 * either chain at a node, branch and bound need search only those that
 * start the first: mixes draw their tasks from a few sizes, so this cuts
 * the nodes several times (Documentation/design/policies.md, twins). Only
 * where each task has at most one successor: chains then are paths.
 */
static void find_twins(struct tqsim_ws *ws)
{
	unsigned int n = ws->tg.ntasks;
	int8_t next[TQSIM_MAX_TASKS];

	ws->has_twins = false;
	memset(ws->twins, 0, n * sizeof(ws->twins[0]));
	memset(next, -1, sizeof(next));
	for (unsigned int t = 0; t < n; t++) {
		int a = ws->tg.after[t];

		if (a < 0)
			continue;
		if (next[a] >= 0)
			return;		/* a task with two successors */
		next[a] = (int8_t)t;
	}
	for (unsigned int h = 0; h < n; h++) {
		if (ws->tg.after[h] >= 0)
			continue;
		for (unsigned int g = 0; g < h; g++) {
			int x = (int)g, y = (int)h;

			if (ws->tg.after[g] >= 0)
				continue;
			while (x >= 0 && y >= 0 && same_task(ws, x, y)) {
				x = next[x];
				y = next[y];
			}
			if (x < 0 && y < 0) {
				ws->twins[h] |= 1ULL << g;
				ws->has_twins = true;
			}
		}
	}
}

void bb_prepare(struct tqsim_ws *ws)
{
	johnson_order(ws, TQSIM_HTD, ws->johnson[0]);
	johnson_order(ws, TQSIM_K, ws->johnson[1]);
	find_twins(ws);
}

/* The root's state: the engines free when the device's busy times end. */
static void bb_init(const struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_bb_node *nd)
{
	struct tqsim_bb_state *st = &nd->st;
	const double *busy = dev->busy_until;

	memset(st, 0, sizeof(*st));
	st->k = busy[TQSIM_K];
	for (unsigned int q = 1; ws->conc && q < dev->kq; q++)
		st->k = min_d(st->k, dev->kq_busy[q]);
	if (ws->bb_sim) {
		tqsim_prefix_init(&nd->pf, dev);
		st->h = busy[TQSIM_HTD];
		st->d = busy[TQSIM_DTH];
		return;
	}
	if (dev->dma == 2) {
		st->h = busy[TQSIM_HTD];
		st->d = busy[TQSIM_DTH];
		return;
	}
	/*
	 * one copy engine: every HtD of the TG runs before the first DtH,
	 * unless a task waits for a predecessor (then DtHs may come first)
	 */
	st->h = max_d(busy[TQSIM_HTD], busy[TQSIM_DTH]);
	st->d = st->h;
	for (unsigned int t = 0; t < ws->tg.ntasks && !ws->tg.nafter; t++)
		st->d += ws->work[t][TQSIM_HTD];
}

/*
 * The two copy engines under the overlap slowdown (bb_sim), given which task
 * @j of @rest runs last. From h the HtD engine runs the remaining HtD work
 * hw without a gap, so it ends at hE = h + hw + (1 - 1/slow_h) x, x being
 * the time a DtH runs alongside, which does x/slow_d of the DtH work dw still
 * to run after h. Whatever of dw is left runs after hE, and so do j's K and
 * DtH:
 *	makespan >= hE + max(K_j + DtH_j, dw - x/slow_d).
 * x is at most slow_h hw, and j's DtH cannot be part of it. And x is at
 * least what the DtH engine must do before hE: by `ready' every DtH before
 * j's can run (every HtD but j's ended, even fully slowed, and the kernels
 * after them), and from then on the DtH engine works at >= 1/slow_d until
 * those are done. Without this bound the slowdown is invisible to the
 * others, and the best order ends several % above them.
 *
 * With latencies or a launch cost the HtD engine may idle z (in gaps, or
 * waiting for the host to launch the next task), while a DtH runs at full
 * speed: hE grows by z and dw - x/slow_d shrinks by at most z, so the
 * inequality holds, but the DtH engine may do its forced work in those gaps
 * instead of alongside an HtD (and dep_ns delays `ready'), so x has no lower
 * limit but 0. The DtH engine may also run alone in the gap before h.
 */
static double copy_bound(const struct tqsim_ws *ws, const struct tqsim_dev *dev,
			 const struct tqsim_bb_state *st, const double *sum, uint64_t rest)
{
	const double sh = dev->slow[TQSIM_HTD], sd = dev->slow[TQSIM_DTH];
	double a = 1 - 1 / sh, hw = sum[TQSIM_HTD], dw = st->dres + sum[TQSIM_DTH], best = INFINITY;
	bool lat = dev->dep_ns > 0 || dev->gap_ns > 0 || dev->submit_ns > 0;

	for (uint64_t m = rest; m; m &= m - 1) {
		const double *w = ws->work[__builtin_ctzll(m)];
		double tail = w[TQSIM_K] + w[TQSIM_DTH], before = dw - w[TQSIM_DTH];
		double ready = max_d(st->k, st->h + sh * (hw - w[TQSIM_HTD])) + sum[TQSIM_K] - w[TQSIM_K];
		double lo = lat ? 0 : sd * min_d(before, max_d(0, (st->h + hw - ready) / sd));
		double hi = max_d(lo, min_d(sh * hw, sd * before));
		/* the least over [lo, hi]: below the kink the slope is a - 1/slow_d */
		double x = a < 1 / sd ? sd * (dw - tail) : 0;

		x = min_d(max_d(x, lo), hi);
		best = min_d(best, hw + a * x + max_d(tail, dw - x / sd));
	}
	/* with a gap, from the last HtD's end (h - gap), where dres is counted */
	return (lat ? st->h - dev->gap_ns : st->h) + best;
}

/*
 * The two-machine flow shop of stages @a and @a + 1 over @rest, machines
 * free from @ra and @rb: Johnson's order is optimal, so its makespan is a
 * lower bound on when the later stage of the last task ends.
 */
static double johnson(const struct tqsim_ws *ws, int a, uint64_t rest, double ra, double rb)
{
	const uint8_t *order = ws->johnson[a];

	for (unsigned int i = 0; i < ws->tg.ntasks; i++) {
		const double *w = ws->work[order[i]];

		if (!(rest >> order[i] & 1))
			continue;
		ra += w[a];
		rb = max_d(rb, ra) + w[a + 1];
	}
	return rb;
}

/*
 * A lower bound on the makespan of every completion of the prefix by @rest;
 * once it reaches @cut, the costlier bounds are skipped.
 */
double bb_bound(const struct tqsim_ws *ws, const struct tqsim_dev *dev, const struct tqsim_bb_state *st,
		uint64_t rest, double cut)
{
	double sum[TQSIM_STAGES] = { 0 }, end[TQSIM_MAX_TASKS];
	double tail_h = INFINITY, head_k = INFINITY, tail_k = INFINITY, head_d = INFINITY;
	double dmin = INFINITY, lb = st->cmax, h = INFINITY, kwidth = 0;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		double eh = ws->tg.release[t], ek, ed;
		int p = ws->tg.after[t];

		/* after its predecessor's earliest end (a lower index: done already) */
		if (p >= 0 && (rest >> p & 1))
			eh = max_d(eh, end[p]);
		if (has(ws, t, TQSIM_HTD)) {
			h = min_d(h, eh);
			eh = max_d(st->h, eh) + w[TQSIM_HTD];
			tail_h = min_d(tail_h, w[TQSIM_K] + w[TQSIM_DTH]);
		}
		ek = eh;
		if (has(ws, t, TQSIM_K)) {
			ek = max_d(st->k, eh) + w[TQSIM_K];
			head_k = min_d(head_k, eh);
			tail_k = min_d(tail_k, w[TQSIM_DTH]);
		}
		ed = ek;
		if (has(ws, t, TQSIM_DTH)) {
			ed = max_d(st->d, ek) + w[TQSIM_DTH];
			head_d = min_d(head_d, ek);
		}
		dmin = min_d(dmin, w[TQSIM_DTH]);
		lb = max_d(lb, ed);	/* the task's own stages, after its chain's */
		end[t] = ed;
		for (int s = 0; s < TQSIM_STAGES; s++)
			sum[s] += w[s];
		kwidth += w[TQSIM_K] * ws->tg.kwidth[t];
	}
	/* the HtD engine starts on the rest at the earliest release among them */
	h = max_d(st->h, h);
	/* each engine: earliest start + its remaining work + least work after it */
	if (tail_h < INFINITY)
		lb = max_d(lb, h + sum[TQSIM_HTD] + tail_h);
	if (head_k < INFINITY && ws->conc)
		lb = max_d(lb, max_d(st->k, head_k) + max_d(kwidth, sum[TQSIM_K] / dev->kq) + tail_k);
	else if (head_k < INFINITY)
		lb = max_d(lb, max_d(st->k, head_k) + sum[TQSIM_K] + tail_k);
	if (head_d < INFINITY)
		lb = max_d(lb, max_d(st->d, head_d) + sum[TQSIM_DTH]);
	/* copy_bound assumes the HtD engine never waits: no releases */
	if (ws->bb_sim && !ws->released && rest && lb < cut)
		lb = max_d(lb, copy_bound(ws, dev, st, sum, rest));
	/* pairs of engines, valid when no task skips the first of the pair */
	if (lb >= cut || !rest || !ws->all[TQSIM_HTD] || ws->conc)
		return lb;
	lb = max_d(lb, johnson(ws, TQSIM_HTD, rest, h, st->k) + dmin);
	if (lb < cut && ws->all[TQSIM_K])
		lb = max_d(lb, johnson(ws, TQSIM_K, rest, max_d(st->k, head_k), st->d));
	return lb;
}

double root_bound(struct tqsim_ws *ws, const struct tqsim_dev *dev)
{
	/*
	 * Once per TG (ws_setup()): the search only copies node[0], and a
	 * caller may ask twice (for the decision's lower bound and as the
	 * search begins).
	 */
	if (!ws->root_valid) {
		bb_init(ws, dev, &ws->node[0]);
		ws->root_lb = bb_bound(ws, dev, &ws->node[0].st, all_tasks(ws->tg.ntasks),
				       INFINITY);
		ws->root_valid = true;
	}
	return ws->root_lb;
}
