// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the ordering policies: fifo, paper, neh, exact and auto (flow:
 * flow.c).
 *
 * Every policy works on the TG collapsed to one command per stage (ws->tg):
 * a stage's commands run back to back on one engine, so the collapsed TG has
 * the same makespan for every order and simulates faster. Not with a gap
 * between commands (dev->gap_ns): a collapsed copy would be slowed during
 * the gaps, so ws->tg is then the TG as given.
 *
 * exact is a depth-first branch and bound over order prefixes. A node's
 * state is each engine's free time after the prefix, computed with the
 * standalone times (bb_push): exact with one copy engine or no slowdown, and
 * never later than the simulation otherwise, since a slowdown only delays
 * commands. Its bound (bb_bound) adds the remaining work of each engine to
 * the earliest the engine can start on it (min head) and the least work that
 * must follow it (min tail), as in Taillard's machine bounds for the flow
 * shop. Leaves are scored by the simulator, so the result is the optimum of
 * the model itself.
 *
 * A task's release time is a head: it enters bb_push and the bounds as
 * max(engine free, release), which only moves them later where the model
 * does, so they stay lower bounds.
 *
 * The command latencies (dev->dep_ns, gap_ns) and the launch cost
 * (submit_ns) only delay commands: the bounds and bb_push leave them out and
 * stay lower bounds, except the copy bound's least overlap, which assumes
 * the HtD engine never idles (see copy_bound()).
 *
 * Chains of the same tasks are interchangeable: exact branches on only the
 * first of them (find_twins()).
 *
 * Precedence (tq_tg_set_after()): every policy builds feasible orders only.
 * The searches branch on, pick or insert a task only where its predecessor
 * is before it; the simulator gives INFINITY for any other order, so an
 * insertion never chooses an infeasible position. The bounds ignore the
 * waits for predecessors, a relaxation: each stays a lower bound, except
 * the copy bound (the HtD engine may now wait), which is skipped as for
 * release times.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tqsim.h"

static bool has(const struct tq_ws *ws, unsigned int t, int s)
{
	return ws->tg.task[t].n[s] != 0;
}

/* Johnson's rule for stages @a, @a + 1: is task @x before task @y? */
static bool johnson_before(const double *x, const double *y, int a)
{
	bool x_first = x[a] <= x[a + 1], y_first = y[a] <= y[a + 1];

	if (x_first != y_first)
		return x_first;
	return x_first ? x[a] < y[a] : x[a + 1] > y[a + 1];
}

static void johnson_order(struct tq_ws *ws, int a, uint8_t *order)
{
	for (unsigned int t = 0; t < ws->tg.ntasks; t++) {
		unsigned int i;

		for (i = t; i > 0 && johnson_before(ws->work[t], ws->work[order[i - 1]], a); i--)
			order[i] = order[i - 1];
		order[i] = t;
	}
}

/* Whether tasks @a and @b of ws->tg have the same commands and release time. */
static bool same_task(const struct tq_ws *ws, unsigned int a, unsigned int b)
{
	const struct tq_tg *tg = &ws->tg;

	if (tg->release[a] != tg->release[b])
		return false;
	for (int s = 0; s < TQ_STAGES; s++) {
		const struct tq_task *x = &tg->task[a], *y = &tg->task[b];

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
 * start the first. The real mixes draw their tasks from a few sizes and
 * the synthetic ones repeat their four: on the H200 runs' 6- and 8-task
 * mixes exact's nodes fell 3-14 times. Only where each task has at most
 * one successor: chains then are paths.
 */
static void find_twins(struct tq_ws *ws)
{
	unsigned int n = ws->tg.ntasks;
	int8_t next[TQ_MAX_TASKS];

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

static int ws_setup(const struct tq_problem *pb, struct tq_ws *ws)
{
	const struct tq_tg *tg = pb->tg;
	/* the launch cost counts commands: collapsing would change it too */
	bool collapse = pb->dev->gap_ns == 0 && pb->dev->submit_ns == 0;

	if (!tg->ntasks || tq_dev_check(pb->dev))
		return -EINVAL;
	tq_tg_init(&ws->tg);
	for (int s = 0; s < TQ_STAGES; s++)
		ws->all[s] = true;
	ws->released = false;
	for (unsigned int t = 0; t < tg->ntasks; t++) {
		tq_tg_add_task(&ws->tg);
		tq_tg_set_release(&ws->tg, t, tg->release[t]);
		if (tg->nafter && tg->after[t] >= 0)
			tq_tg_set_after(&ws->tg, t, tg->after[t]);
		ws->released |= tg->release[t] > 0 || ws->tg.after[t] >= 0;
		for (int s = 0; s < TQ_STAGES; s++) {
			ws->work[t][s] = tq_task_work(tg, t, s);
			if (tg->task[t].n[s] && collapse)
				tq_tg_add_cmd(&ws->tg, s, ws->work[t][s]);
			for (unsigned int c = 0; c < tg->task[t].n[s] && !collapse; c++)
				tq_tg_add_cmd(&ws->tg, s, tg->cmd_ns[tg->task[t].first[s] + c]);
			ws->all[s] &= tg->task[t].n[s] != 0;
		}
	}
	/* without a slowdown the standalone recurrence is exact, and cheaper */
	ws->bb_sim = pb->dev->dma == 2 && ws->all[TQ_HTD] &&
		     (pb->dev->slow[TQ_HTD] > 1 || pb->dev->slow[TQ_DTH] > 1);
	johnson_order(ws, TQ_HTD, ws->johnson[0]);
	johnson_order(ws, TQ_K, ws->johnson[1]);
	ws->deadline_ns = 0;
	ws->tail_evals = 0;
	ws->timed_out = false;
	ws->evals = 0;
	ws->rng = pb->seed | 1;
	ws->bb_resume = NULL;
	ws->bb_min_evals = 0;
	ws->bb_floor_evals = 0;
	ws->bb_end_ns = 0;
	ws->walk_from = NULL;
	ws->walk_kept = pb->resume_walk != NULL;
	ws->root_valid = false;
	find_twins(ws);
	return 0;
}

static double sim(struct tq_ws *ws, const struct tq_dev *dev, const uint8_t *order,
		  unsigned int n)
{
	ws->evals++;
	return tq_makespan(&ws->tg, dev, order, n);
}

/* The tasks of @rest whose predecessor is not in @rest: those that may go next. */
static uint64_t available(const struct tq_ws *ws, uint64_t rest)
{
	uint64_t av = rest;

	if (!ws->tg.nafter)
		return rest;
	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		int a = ws->tg.after[t];

		if (a >= 0 && (rest >> a & 1))
			av &= ~(1ULL << t);
	}
	return av;
}

/* The budget check; the only place a policy looks at a clock. */
static bool expired(struct tq_ws *ws)
{
	uint64_t now;

	if (!ws->deadline_ns)
		return ws->timed_out;
	now = tq_clock_ns();
	if (ws->tail_evals)
		now += ws->tail_evals * (now - ws->pace_ns) / (ws->evals - ws->pace_evals + 1);
	if (now >= ws->deadline_ns)
		ws->timed_out = true;
	return ws->timed_out;
}

/* ---- bounds ---- */

/*
 * Orders within this relative distance of each other count as equal: the
 * bounds and the simulator add the same times in different orders, so a
 * bound may come out an ulp below the makespan it should equal.
 */
#define BB_EPS	1e-12

/* fmax/fmin without their NaN rules, which keep them from being inlined */
static inline double max_d(double a, double b)
{
	return a > b ? a : b;
}

static inline double min_d(double a, double b)
{
	return a < b ? a : b;
}

static void bb_init(const struct tq_ws *ws, const struct tq_dev *dev, struct tq_bb_node *nd)
{
	struct tq_bb_state *st = &nd->st;
	const double *busy = dev->busy_until;

	memset(st, 0, sizeof(*st));
	st->k = busy[TQ_K];
	if (ws->bb_sim) {
		tq_prefix_init(&nd->pf, dev);
		st->h = busy[TQ_HTD];
		st->d = busy[TQ_DTH];
		return;
	}
	if (dev->dma == 2) {
		st->h = busy[TQ_HTD];
		st->d = busy[TQ_DTH];
		return;
	}
	/*
	 * one copy engine: every HtD of the TG runs before the first DtH,
	 * unless a task waits for a predecessor (then DtHs may come first)
	 */
	st->h = max_d(busy[TQ_HTD], busy[TQ_DTH]);
	st->d = st->h;
	for (unsigned int t = 0; t < ws->tg.ntasks && !ws->tg.nafter; t++)
		st->d += ws->work[t][TQ_HTD];
}

/*
 * Place task @t after the prefix, by the standalone recurrence: exact with
 * one copy engine or without slowdown, never later than the simulation
 * otherwise, since a slowdown only delays commands.
 */
static void bb_push(const struct tq_ws *ws, struct tq_bb_state *st, unsigned int t)
{
	const double *w = ws->work[t];
	double e = ws->tg.release[t];	/* end of the task's latest stage */

	if (has(ws, t, TQ_HTD)) {
		st->h = max_d(st->h, e) + w[TQ_HTD];
		e = st->h;
	}
	if (has(ws, t, TQ_K)) {
		st->k = max_d(st->k, e) + w[TQ_K];
		e = st->k;
	}
	if (has(ws, t, TQ_DTH)) {
		st->d = max_d(st->d, e) + w[TQ_DTH];
		e = st->d;
	}
	st->cmax = max_d(st->cmax, e);
}

/*
 * The state of a prefix simulated up to its last HtD's end (bb_sim). Up to
 * then the simulation of any completion is this one, so h and k are exact.
 * The prefix's DtHs left then can only be slowed by the HtDs to come, so
 * running them at full speed (and without gaps) gives a DtH release never
 * later than the true one.
 */
static void bb_from_prefix(const struct tq_ws *ws, const struct tq_prefix *p,
			   struct tq_bb_state *st)
{
	const struct tq_prefix_buf *buf = &ws->pbuf;
	double free = p->d.run ? p->now + p->d.rem : max_d(p->now, p->d.free);

	st->dres = p->d.run ? p->d.rem : 0;
	for (unsigned int pos = p->d.pos; pos < p->n; pos++) {
		unsigned int t = buf->order[pos];
		const struct tq_task *task = &ws->tg.task[t];
		/* the head's commands after the running one (several if not collapsed) */
		unsigned int c = pos == p->d.pos ? p->d.c + p->d.run : 0;

		if (c >= task->n[TQ_DTH])
			continue;
		if (!c)
			free = max_d(free, has(ws, t, TQ_K) ? buf->kend[pos] : buf->hend[pos]);
		for (; c < task->n[TQ_DTH]; c++) {
			free += ws->tg.cmd_ns[task->first[TQ_DTH] + c];
			st->dres += ws->tg.cmd_ns[task->first[TQ_DTH] + c];
		}
	}
	st->h = p->h.free;
	st->k = p->kfree;
	st->d = free;
	st->cmax = max_d(p->makespan, free);
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
static double copy_bound(const struct tq_ws *ws, const struct tq_dev *dev,
			 const struct tq_bb_state *st, const double *sum, uint64_t rest)
{
	const double sh = dev->slow[TQ_HTD], sd = dev->slow[TQ_DTH];
	double a = 1 - 1 / sh, hw = sum[TQ_HTD], dw = st->dres + sum[TQ_DTH], best = INFINITY;
	bool lat = dev->dep_ns > 0 || dev->gap_ns > 0 || dev->submit_ns > 0;

	for (uint64_t m = rest; m; m &= m - 1) {
		const double *w = ws->work[__builtin_ctzll(m)];
		double tail = w[TQ_K] + w[TQ_DTH], before = dw - w[TQ_DTH];
		double ready = max_d(st->k, st->h + sh * (hw - w[TQ_HTD])) + sum[TQ_K] - w[TQ_K];
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
static double johnson(const struct tq_ws *ws, int a, uint64_t rest, double ra, double rb)
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
static double bb_bound(const struct tq_ws *ws, const struct tq_dev *dev,
		       const struct tq_bb_state *st, uint64_t rest, double cut)
{
	double sum[TQ_STAGES] = { 0 }, end[TQ_MAX_TASKS];
	double tail_h = INFINITY, head_k = INFINITY, tail_k = INFINITY, head_d = INFINITY;
	double dmin = INFINITY, lb = st->cmax, h = INFINITY;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		double eh = ws->tg.release[t], ek, ed;
		int p = ws->tg.after[t];

		/* after its predecessor's earliest end (a lower index: done already) */
		if (p >= 0 && (rest >> p & 1))
			eh = max_d(eh, end[p]);
		if (has(ws, t, TQ_HTD)) {
			h = min_d(h, eh);
			eh = max_d(st->h, eh) + w[TQ_HTD];
			tail_h = min_d(tail_h, w[TQ_K] + w[TQ_DTH]);
		}
		ek = eh;
		if (has(ws, t, TQ_K)) {
			ek = max_d(st->k, eh) + w[TQ_K];
			head_k = min_d(head_k, eh);
			tail_k = min_d(tail_k, w[TQ_DTH]);
		}
		ed = ek;
		if (has(ws, t, TQ_DTH)) {
			ed = max_d(st->d, ek) + w[TQ_DTH];
			head_d = min_d(head_d, ek);
		}
		dmin = min_d(dmin, w[TQ_DTH]);
		lb = max_d(lb, ed);	/* the task's own stages, after its chain's */
		end[t] = ed;
		for (int s = 0; s < TQ_STAGES; s++)
			sum[s] += w[s];
	}
	/* the HtD engine starts on the rest at the earliest release among them */
	h = max_d(st->h, h);
	/* each engine: earliest start + its remaining work + least work after it */
	if (tail_h < INFINITY)
		lb = max_d(lb, h + sum[TQ_HTD] + tail_h);
	if (head_k < INFINITY)
		lb = max_d(lb, max_d(st->k, head_k) + sum[TQ_K] + tail_k);
	if (head_d < INFINITY)
		lb = max_d(lb, max_d(st->d, head_d) + sum[TQ_DTH]);
	/* copy_bound assumes the HtD engine never waits: no releases */
	if (ws->bb_sim && !ws->released && rest && lb < cut)
		lb = max_d(lb, copy_bound(ws, dev, st, sum, rest));
	/* pairs of engines, valid when no task skips the first of the pair */
	if (lb >= cut || !rest || !ws->all[TQ_HTD])
		return lb;
	lb = max_d(lb, johnson(ws, TQ_HTD, rest, h, st->k) + dmin);
	if (lb < cut && ws->all[TQ_K])
		lb = max_d(lb, johnson(ws, TQ_K, rest, max_d(st->k, head_k), st->d));
	return lb;
}

static uint64_t all_tasks(unsigned int n)
{
	return n == 64 ? ~0ULL : (1ULL << n) - 1;
}

static double root_bound(struct tq_ws *ws, const struct tq_dev *dev)
{
	/*
	 * Once per TG (ws_setup()): the search only copies node[0], and the
	 * callers asked for it twice (auto resumed and exact: for the
	 * decision's lower bound and again as the search began, 3% of a
	 * resumed 4-task TG's instructions; the first ~1 us on cold caches).
	 */
	if (!ws->root_valid) {
		bb_init(ws, dev, &ws->node[0]);
		ws->root_lb = bb_bound(ws, dev, &ws->node[0].st, all_tasks(ws->tg.ntasks),
				       INFINITY);
		ws->root_valid = true;
	}
	return ws->root_lb;
}

/* Place task @t after the prefix ws->cur[0..depth-1], into ws->node[depth + 1]. */
static void bb_place(struct tq_ws *ws, const struct tq_dev *dev, unsigned int depth,
		     unsigned int t)
{
	struct tq_bb_node *nd = &ws->node[depth + 1];

	*nd = ws->node[depth];
	ws->cur[depth] = t;
	if (ws->bb_sim)
		tq_prefix_push(&ws->tg, dev, &ws->pbuf, &nd->pf, t);
	else
		bb_push(ws, &nd->st, t);
}

/* The makespan of the whole order just placed. */
static double bb_leaf(struct tq_ws *ws, const struct tq_dev *dev)
{
	unsigned int n = ws->tg.ntasks;

	if (!ws->bb_sim)
		return sim(ws, dev, ws->cur, n);
	ws->evals++;
	return tq_prefix_finish(&ws->tg, dev, &ws->pbuf, &ws->node[n].pf);
}

/*
 * Whether the deadline passed, checked every 4th call: a child or a leaf
 * costs ~0.1-0.4 us, a clock read ~25 ns, and at T = 16 a node has up to
 * 16 children. If so, the prefix ws->cur[0..depth-1] and the children
 * finished along it and below it are where the search stopped
 * (ws->bb_stop). Never on the way down a resume cursor's path, nor for
 * BB_MIN_PROGRESS nodes after: on the H200's host the resumed TGs of a
 * 10 ms mix spent their budget on cold caches before branch and bound
 * began, stopped on the way down and never got further (run 22's real
 * BK75 at 4x1, 0.13% each TG). This way each TG adds to the proof, and
 * then the order is taken as it is. But where the path ends within the
 * budget, those nodes stop at its end (ws->bb_end_ns) once the children
 * there are bounded and the search went one down (n + 1 nodes: the cursor
 * moves on; stopped sooner it would stay where it was): without that the
 * resumed TGs of a mix no budget proves went over it TG after TG (runs 25
 * and 27: real BK25 at 6x1, 0.11%). A TG whose path ends past the budget
 * is over it anyway and takes all of them: the sooner the proof ends, the
 * sooner the TGs take the proven order at a fraction of the budget (real
 * BK75 at 4x1 stayed unproven over its five TGs at 0.14-0.19% without).
 */
#define BB_MIN_PROGRESS	16
static bool bb_expired(struct tq_ws *ws, unsigned int depth)
{
	if ((++ws->evals & 3) || ws->bb_resume || ws->evals < ws->bb_floor_evals)
		return false;
	if (ws->evals < ws->bb_min_evals && (!ws->bb_end_ns || tq_clock_ns() < ws->bb_end_ns))
		return false;
	if (!expired(ws))
		return false;
	ws->bb_stop.valid = true;
	ws->bb_stop.depth = depth;
	memcpy(ws->bb_stop.path, ws->cur, depth);
	memcpy(ws->bb_stop.done, ws->bb_done, (depth + 1) * sizeof(ws->bb_done[0]));
	return true;
}

/* Off a resume cursor's path: BB_MIN_PROGRESS nodes more, or to the budget's end. */
static void bb_leave_path(struct tq_ws *ws)
{
	ws->bb_resume = NULL;
	ws->bb_min_evals = ws->evals + BB_MIN_PROGRESS;
	ws->bb_floor_evals = ws->bb_end_ns && tq_clock_ns() < ws->bb_end_ns ?
			     ws->evals + ws->tg.ntasks + 1 : ws->bb_min_evals;
}

/*
 * The children of the prefix ws->cur[0..depth-1] to search: the tasks of
 * @rest that may go next, but on the way down a resume cursor's path
 * (ws->bb_resume) not those it finished there; its own child first.
 * Returns that child, or -1.
 */
static int bb_children(struct tq_ws *ws, unsigned int depth, uint64_t rest, uint64_t *av)
{
	const struct tq_bb_cursor *from = ws->bb_resume;

	*av = available(ws, rest);
	/* a chain's twin: only while the first of them has not started (all of @rest) */
	for (uint64_t m = ws->has_twins ? *av : 0; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);

		if (ws->twins[t] & rest)
			*av &= ~(1ULL << t);
	}
	if (!from)
		return -1;
	ws->bb_done[depth] = from->done[depth] & *av;
	*av &= ~from->done[depth];
	if (depth == from->depth || from->path[depth] >= ws->tg.ntasks ||
	    !(*av >> from->path[depth] & 1)) {
		bb_leave_path(ws);	/* there, or the path is gone */
		return -1;
	}
	return from->path[depth];
}

/* Place task @t after the prefix ws->cur[0..depth-1]; a lower bound of the orders from there. */
static double bb_child(struct tq_ws *ws, const struct tq_dev *dev, unsigned int depth,
		       uint64_t rest, unsigned int t, double cut)
{
	struct tq_bb_node *nd = &ws->node[depth + 1];

	bb_place(ws, dev, depth, t);
	if (ws->bb_sim)
		bb_from_prefix(ws, &nd->pf, &nd->st);
	return bb_bound(ws, dev, &nd->st, rest & ~(1ULL << t), cut);
}

/*
 * Depth-first branch and bound below the prefix ws->cur[0..depth-1]. On
 * the way down a resume cursor's path its child goes first, straight away:
 * the siblings' bounds wait until it is done, so that going back down
 * costs a bound per depth.
 */
static void bb_dfs(struct tq_ws *ws, const struct tq_dev *dev, unsigned int depth,
		   uint64_t rest, struct tq_decision *d)
{
	struct tq_bb_child *ch = ws->child[depth];
	unsigned int n = ws->tg.ntasks, nc = 0;
	uint64_t av;
	int first;

	ws->bb_done[depth] = 0;
	if (bb_expired(ws, depth))
		return;
	if (depth + 1 == n) {
		bb_place(ws, dev, depth, __builtin_ctzll(rest));
		double ms = bb_leaf(ws, dev);

		if (ms < d->makespan) {
			d->makespan = ms;
			memcpy(d->order, ws->cur, n);
		}
		return;
	}
	first = bb_children(ws, depth, rest, &av);
	if (first >= 0) {
		if (bb_child(ws, dev, depth, rest, first, d->makespan * (1 - BB_EPS)) <
		    d->makespan * (1 - BB_EPS))
			bb_dfs(ws, dev, depth + 1, rest & ~(1ULL << first), d);
		if (ws->timed_out)
			return;
		if (ws->bb_resume)	/* the path ended in a leaf or a cut */
			bb_leave_path(ws);
		ws->bb_done[depth] |= 1ULL << first;
		av &= ~(1ULL << first);
	}
	/* children sorted by bound, so the best-looking prefix is tried first */
	for (uint64_t m = av; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m), i;
		double cut = d->makespan * (1 - BB_EPS), lb;

		if (bb_expired(ws, depth))
			return;
		lb = bb_child(ws, dev, depth, rest, t, cut);
		if (lb >= cut)
			continue;
		for (i = nc++; i > 0 && ch[i - 1].lb > lb; i--)
			ch[i] = ch[i - 1];
		ch[i].lb = lb;
		ch[i].task = t;
	}
	for (unsigned int i = 0; i < nc && ch[i].lb < d->makespan * (1 - BB_EPS); i++) {
		unsigned int t = ch[i].task;

		bb_place(ws, dev, depth, t);
		bb_dfs(ws, dev, depth + 1, rest & ~(1ULL << t), d);
		if (ws->timed_out)
			return;
		ws->bb_done[depth] |= 1ULL << t;
	}
}

/* ---- insertion (NEH and iterated greedy) ---- */

/* Whether task @a comes before task @t in @t's chain of predecessors. */
static bool ancestor(const struct tq_ws *ws, unsigned int a, unsigned int t)
{
	for (int p = ws->tg.after[t]; p >= 0; p = ws->tg.after[p])
		if ((unsigned int)p == a)
			return true;
	return false;
}

/*
 * Where @t may go in seq[0..len-1]: after its last ancestor and up to its
 * first descendant, [*lo, *hi]; every position without precedence.
 */
static void window(const struct tq_ws *ws, const uint8_t *seq, unsigned int len, uint8_t t,
		   unsigned int *lo, unsigned int *hi)
{
	*lo = 0;
	*hi = len;
	if (!ws->tg.nafter)
		return;
	for (unsigned int i = 0; i < len; i++) {
		if (ancestor(ws, seq[i], t)) {
			*lo = i + 1;
		} else if (ancestor(ws, t, seq[i])) {
			*hi = i;
			break;
		}
	}
}

/*
 * Insert @t into seq[0..len-1] where the makespan is least (earliest
 * position on ties), among the feasible positions; returns that makespan.
 * With @part it stops at the deadline (every 4th sim), seq untouched:
 * INFINITY, and how far it got in @part, to go on from there when called
 * again with it (part->pos == 0: from the start).
 */
static double insert_best(struct tq_ws *ws, const struct tq_dev *dev, uint8_t *seq,
			  unsigned int len, uint8_t t, struct tq_ins *part)
{
	uint8_t *try = ws->tmp;
	double best = INFINITY;
	unsigned int lo, hi, at, from;

	window(ws, seq, len, t, &lo, &hi);
	at = lo;
	from = lo;
	if (part && part->pos > lo && part->pos <= hi && part->at >= lo && part->at < part->pos) {
		from = part->pos;
		best = part->best;
		at = part->at;
	}
	memcpy(try, seq, from);
	try[from] = t;
	memcpy(try + from + 1, seq + from, len - from);
	for (unsigned int pos = from; pos <= hi; pos++) {
		if (part && !((pos - from) & 3) && expired(ws)) {
			*part = (struct tq_ins){ .pos = (uint8_t)pos, .at = (uint8_t)at, .best = best };
			return INFINITY;
		}
		double ms = sim(ws, dev, try, len + 1);

		if (ms < best) {
			best = ms;
			at = pos;
		}
		if (pos < hi) {	/* move t one place later */
			try[pos] = try[pos + 1];
			try[pos + 1] = t;
		}
	}
	if (part)
		part->pos = 0;
	memmove(seq + at + 1, seq + at, len - at);
	seq[at] = t;
	return best;
}

/*
 * The insertion order: @start, each task moved behind its predecessor (the
 * first task of @start whose predecessor is placed goes next), so that each
 * insertion has a feasible position: after the predecessor, and no
 * successor placed yet.
 */
static void neh_chains(const struct tq_ws *ws, const uint8_t *start, uint8_t *ins)
{
	unsigned int n = ws->tg.ntasks;
	uint64_t rest = all_tasks(n);

	for (unsigned int i = 0; i < n; i++) {
		uint64_t av = available(ws, rest);
		unsigned int j = 0;

		while (!(av >> start[j] & 1))
			j++;
		ins[i] = start[j];
		rest &= ~(1ULL << start[j]);
	}
}

/*
 * NEH: tasks by descending total work, each inserted where the simulated
 * makespan is least. The start order is kept if it is better, so neh is
 * never worse than its start order. @timed: at the deadline the tasks not
 * yet inserted go after the others in their insertion order (feasible:
 * that order has every task after its predecessor).
 */
static void neh(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d, bool timed)
{
	unsigned int n = ws->tg.ntasks;
	uint8_t *start = ws->seq;
	double total[TQ_MAX_TASKS], ms, start_ms;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i;

		total[t] = ws->work[t][TQ_HTD] + ws->work[t][TQ_K] + ws->work[t][TQ_DTH];
		/* with chains, round by round: a task after every task fewer links deep */
		for (int p = ws->tg.after[t]; p >= 0; p = ws->tg.after[p])
			total[t] -= 1e15;
		for (i = t; i > 0 && total[start[i - 1]] < total[t]; i--)
			start[i] = start[i - 1];
		start[i] = t;
	}
	neh_chains(ws, start, ws->cur);
	d->order[0] = ws->cur[0];
	ms = sim(ws, dev, d->order, 1);
	for (unsigned int i = 1; i < n; i++) {
		if (timed && expired(ws)) {
			memcpy(d->order + i, ws->cur + i, n - i);
			ms = sim(ws, dev, d->order, n);
			break;
		}
		ms = insert_best(ws, dev, d->order, i, ws->cur[i], NULL);
	}
	start_ms = sim(ws, dev, start, n);
	if (start_ms < ms) {
		memcpy(d->order, start, n);
		ms = start_ms;
	}
	d->makespan = ms;
}

static uint64_t rng_next(struct tq_ws *ws)
{
	/* xorshift64*: a few cycles, and reproducible from the seed */
	ws->rng ^= ws->rng >> 12;
	ws->rng ^= ws->rng << 25;
	ws->rng ^= ws->rng >> 27;
	return ws->rng * 0x2545f4914f6cdd1dULL;
}

/*
 * How many tasks an iteration of iterated greedy removes: @nd, or fewer if
 * reinserting that many (about nd * n simulations) would not end before
 * the deadline at the pace so far, so that a small budget still completes
 * iterations (one cut short is dropped): on the H200's host a resumed TG
 * of 12 chained tasks at 0.1% had time for ~30 simulations, less than one
 * iteration of 4. One, to learn the pace, before any was timed.
 */
static unsigned int fit_destroy(struct tq_ws *ws, unsigned int nd, unsigned int n)
{
	uint64_t now, done = ws->evals - ws->pace_evals;
	double per, left;

	if (!ws->deadline_ns || !ws->tail_evals)
		return nd;
	if (!done)
		return 1;
	now = tq_clock_ns();
	per = (double)(now - ws->pace_ns) / done;
	left = ((double)ws->deadline_ns - now) / per - ws->tail_evals;
	while (nd > 1 && nd * n > left)
		nd--;
	return nd;
}

/* Whether @order is a permutation of 0..n-1. */
static bool is_perm(const uint8_t *order, unsigned int n)
{
	uint64_t seen = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (order[i] >= n || seen >> order[i] & 1)
			return false;
		seen |= 1ULL << order[i];
	}
	return true;
}

/* Whether @w has an iteration under way whose tasks are those of an @n-task TG, once each. */
static bool walk_pending_ok(const struct tq_walk *w, unsigned int n)
{
	uint8_t all[TQ_MAX_TASKS];

	if (!w->nd || w->next >= w->nd || (unsigned int)(w->len + w->nd - w->next) != n)
		return false;
	memcpy(all, w->seq, w->len);
	memcpy(all + w->len, w->removed + w->next, w->nd - w->next);
	return is_perm(all, n);
}

enum { DESCENT_FIFO, DESCENT_BEST, DESCENT_DONE };

/*
 * One step of a swap descent on ws->cur (makespan *cur_ms): swap the
 * adjacent pair at ds->at and keep the swap if the makespan falls, a task
 * and its predecessor passed over without a simulation. After n - 1 steps
 * in a row that kept nothing the order is a local optimum, and the descent
 * from fifo's order goes on from the best order found if that is better.
 */
static void descent_step(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d,
			 double *cur_ms, struct tq_descent *ds)
{
	unsigned int n = ws->tg.ntasks, i = ds->at;
	uint8_t *o = ws->cur, a = o[i], b = o[i + 1];
	double ms;

	if (ds->fails >= n - 1) {
		if (ds->stage == DESCENT_FIFO && d->makespan < *cur_ms) {
			memcpy(ws->cur, d->order, n);
			*cur_ms = d->makespan;
			*ds = (struct tq_descent){ .stage = DESCENT_BEST };
		} else {
			ds->stage = DESCENT_DONE;
		}
		return;
	}
	ds->at = (uint8_t)((i + 1) % (n - 1));
	ds->fails++;
	if (ws->tg.after[b] == a)
		return;
	o[i] = b;
	o[i + 1] = a;
	ms = sim(ws, dev, o, n);
	if (!(ms < *cur_ms)) {
		o[i] = a;
		o[i + 1] = b;
		return;
	}
	*cur_ms = ms;
	ds->fails = 0;
	if (ms < d->makespan) {
		d->makespan = ms;
		memcpy(d->order, o, n);
	}
}

/*
 * Iterated greedy (Ruiz and Stuetzle 2007) until the deadline: remove a
 * few random tasks, reinsert each where the makespan is least, accept a
 * worse order with probability exp(-delta / temperature). Where
 * the caller keeps the walk (ws->walk_kept), it goes on from ws->walk_from
 * and leaves its state in d->walk, an iteration under way included, and
 * an iteration keeps all its removals: a TG of 12 chained tasks at 0.1% on
 * cold caches has time for less than one, and started over from the best
 * order each TG the walk never left it (the H200 runs' round mixes,
 * replayed: at the twentieth TG 0.07% above the optimum on average, 0.31%
 * before). A new walk begins with two swap descents (descent_step()), from
 * fifo's order and then from d->order, and goes on from the better: a pass
 * costs n - 1 simulations to an iteration's 4n, and fifo's order, round by
 * round, is a few swaps from the optimum where neh's may not be: in runs 35
 * and 36 real BK50 at 6x2 stayed 2.6-8.1% above it for 7 TGs. On the 164
 * round mixes of the H200 runs, replayed at 80-100 ns a task per
 * simulation, the mean excess over the first seven TGs fell from
 * 0.63-0.75% to 0.42-0.49%, at the twentieth TG from 0.09-0.14% to
 * 0.08-0.10%.
 */
static void iterated_greedy(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	const struct tq_walk *from = ws->walk_from;
	unsigned int n = ws->tg.ntasks, ndestroy = n / 2 < 4 ? n / 2 : 4;
	unsigned int len = n, nd = 0, j = 0;
	struct tq_descent ds = { .stage = DESCENT_FIFO };
	double cur_ms, total = 0, temp;
	struct tq_ins ins = { .pos = 0 };

	if (n < 3)
		return;		/* neh already tried every order */
	for (unsigned int t = 0; t < n; t++)
		for (int s = 0; s < TQ_STAGES; s++)
			total += ws->work[t][s];
	temp = 0.4 * total / (n * TQ_STAGES * 10);	/* their T = 0.4 */
	cur_ms = INFINITY;
	if (from && from->valid && is_perm(from->cur, n))
		cur_ms = sim(ws, dev, from->cur, n);
	if (cur_ms < INFINITY) {
		memcpy(ws->cur, from->cur, n);
		ds = from->descent;
		if (ds.stage > DESCENT_DONE || ds.at >= n - 1)
			ds.stage = DESCENT_DONE;
		if (walk_pending_ok(from, n)) {
			nd = from->nd;
			j = from->next;
			len = from->len;
			memcpy(ws->seq, from->seq, len);
			memcpy(ws->removed, from->removed, nd);
			ins = from->ins;
		}
	} else {
		for (unsigned int t = 0; t < n; t++)
			ws->cur[t] = (uint8_t)t;	/* fifo: a predecessor comes first */
		cur_ms = sim(ws, dev, ws->cur, n);
		if (cur_ms < d->makespan) {
			d->makespan = cur_ms;
			memcpy(d->order, ws->cur, n);
		}
	}
	while (!expired(ws)) {
		double ms = 0;

		if (!nd && ds.stage != DESCENT_DONE) {
			descent_step(ws, dev, d, &cur_ms, &ds);
			continue;
		}
		if (!nd) {
			nd = ws->walk_kept ? ndestroy : fit_destroy(ws, ndestroy, n);
			len = n;
			j = 0;
			ins.pos = 0;
			memcpy(ws->seq, ws->cur, n);
			for (unsigned int k = 0; k < nd; k++) {
				unsigned int r = rng_next(ws) % len;

				ws->removed[k] = ws->seq[r];
				memmove(ws->seq + r, ws->seq + r + 1, --len - r);
			}
			/*
			 * with precedence, reinsert by index (predecessors first):
			 * each then has a feasible position, after its nearest
			 * ancestor and before the descendants still in seq
			 */
			for (unsigned int k = 1; k < nd && ws->tg.nafter; k++)
				for (uint8_t *r = ws->removed + k; r > ws->removed && r[-1] > r[0]; r--) {
					uint8_t t = r[0];

					r[0] = r[-1];
					r[-1] = t;
				}
		}
		/* a reinsertion is T sims: stop at the deadline within one */
		for (; j < nd; j++) {
			ms = insert_best(ws, dev, ws->seq, len, ws->removed[j], &ins);
			if (ws->timed_out)
				break;
			len++;
		}
		if (ws->timed_out)
			break;		/* seq is partial; d holds the best so far */
		nd = 0;
		if (ms > cur_ms) {
			double u = (rng_next(ws) >> 11) * 0x1.0p-53;

			if (!(temp > 0) || u >= exp((cur_ms - ms) / temp))
				continue;
		}
		memcpy(ws->cur, ws->seq, n);
		cur_ms = ms;
		if (ms < d->makespan) {
			d->makespan = ms;
			memcpy(d->order, ws->seq, n);
		}
	}
	d->walk.valid = true;
	memcpy(d->walk.cur, ws->cur, n);
	d->walk.nd = (uint8_t)nd;
	d->walk.next = (uint8_t)j;
	d->walk.len = (uint8_t)len;
	d->walk.ins = ins;
	d->walk.descent = ds;
	memcpy(d->walk.seq, ws->seq, len);
	memcpy(d->walk.removed, ws->removed, nd);
}

/* ---- the paper's Algorithm 1 ---- */

/*
 * update(OT): the completion time of the last HtD, K and DtH command when
 * the ordered tasks are simulated alone.
 */
static void paper_update(struct tq_ws *ws, const struct tq_dev *dev, const uint8_t *ot,
			 unsigned int len, double *tm)
{
	tq_simulate(&ws->tg, dev, ot, len, &ws->res);
	ws->evals++;
	for (int s = 0; s < TQ_STAGES; s++)
		tm[s] = 0;
	for (unsigned int i = 0; i < len; i++)
		for (int s = 0; s < TQ_STAGES; s++)
			if (has(ws, ot[i], s))
				tm[s] = fmax(tm[s], ws->res.end[ws->tg.task[ot[i]].first[s] +
							      ws->tg.task[ot[i]].n[s] - 1]);
}

/*
 * select_first_task: the tasks with a short HtD and a long K compared to the
 * others (no other task has both a shorter-or-equal HtD and a longer-or-equal
 * K), and of those the one with the longest DtH.
 */
static unsigned int paper_first(const struct tq_ws *ws, uint64_t rest)
{
	int best = -1;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		bool dominated = false;

		for (uint64_t o = rest; o && !dominated; o &= o - 1) {
			const double *v = ws->work[__builtin_ctzll(o)];

			dominated = v[TQ_HTD] <= w[TQ_HTD] && v[TQ_K] >= w[TQ_K] &&
				    (v[TQ_HTD] < w[TQ_HTD] || v[TQ_K] > w[TQ_K]);
		}
		if (!dominated && (best < 0 || w[TQ_DTH] > ws->work[best][TQ_DTH]))
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
static unsigned int paper_next(const struct tq_ws *ws, uint64_t rest, const double *tm)
{
	double best_score = INFINITY;
	bool best_fits = false;
	int best = -1;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		double htd_end = tm[TQ_HTD] + w[TQ_HTD];
		double fit_k = tm[TQ_K] - htd_end;
		double fit_d = fmax(tm[TQ_K], htd_end) + w[TQ_K] - tm[TQ_DTH];
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
static void paper(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	unsigned int n = ws->tg.ntasks, len = 0;
	uint64_t rest = all_tasks(n);
	uint8_t *ot = d->order;
	double tm[TQ_STAGES];

	ot[len] = paper_first(ws, available(ws, rest));
	rest &= ~(1ULL << ot[len++]);
	while (len + 2 < n) {
		paper_update(ws, dev, ot, len, tm);
		ot[len] = paper_next(ws, available(ws, rest), tm);
		rest &= ~(1ULL << ot[len++]);
	}
	if (len + 2 == n) {
		unsigned int a = __builtin_ctzll(rest), b = 63 - __builtin_clzll(rest);
		double da = ws->work[a][TQ_DTH], db = ws->work[b][TQ_DTH];

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

/* ---- the policies ---- */

static int decide(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d,
		  void (*run)(struct tq_ws *, const struct tq_dev *, struct tq_decision *))
{
	int ret = ws_setup(pb, ws);

	d->cursor.valid = false;
	d->walk.valid = false;
	if (ret)
		return ret;
	run(ws, pb->dev, d);
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = d->lower_bound >= d->makespan;
	d->evals = ws->evals;
	return 0;
}

static void fifo(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	for (unsigned int t = 0; t < ws->tg.ntasks; t++)
		d->order[t] = t;
	d->makespan = sim(ws, dev, d->order, ws->tg.ntasks);
}

static int fifo_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	return decide(pb, ws, d, fifo);
}

static int paper_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	return decide(pb, ws, d, paper);
}

static void neh_whole(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	neh(ws, dev, d, false);
}

static int neh_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	return decide(pb, ws, d, neh_whole);
}

/*
 * Branch and bound from d's order, whose makespan is the first incumbent,
 * and from where an earlier search stopped, @from (NULL: the start). Where
 * it runs out of time goes to d->cursor.
 */
static void bb_from(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d,
		    const struct tq_bb_cursor *from)
{
	if (root_bound(ws, dev) >= d->makespan * (1 - BB_EPS))
		return;
	ws->bb_resume = from && from->valid ? from : NULL;
	bb_dfs(ws, dev, 0, all_tasks(ws->tg.ntasks), d);
	ws->bb_resume = NULL;
	if (ws->timed_out)
		d->cursor = ws->bb_stop;
}

/* Branch and bound seeded with neh; proves optimality unless the deadline hits. */
static void branch_and_bound(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	neh(ws, dev, d, false);
	bb_from(ws, dev, d, NULL);
}

static int exact_finish(struct tq_ws *ws, struct tq_decision *d)
{
	if (!ws->timed_out) {
		d->lower_bound = d->makespan;
		d->optimal = true;
	}
	return 0;
}

/*
 * When @order's first command may start: its first task's release or the
 * end of what keeps that task's first engine busy, whichever is later.
 */
static double first_start(const struct tq_ws *ws, const struct tq_dev *dev,
			  const uint8_t *order)
{
	unsigned int t = order[0];
	int s = 0;

	while (s < TQ_STAGES - 1 && !has(ws, t, s))
		s++;
	return max_d(ws->tg.release[t], dev->busy_until[s]);
}

/* auto's budget: budget_frac of @seed's device time (it ends at @seed_ms), else budget_ns. */
static uint64_t budget_ns(const struct tq_problem *pb, struct tq_ws *ws, const uint8_t *seed,
			  double seed_ms)
{
	double ns = pb->budget_frac > 0 ?
		    pb->budget_frac * (seed_ms - first_start(ws, pb->dev, seed)) : pb->budget_ns;

	if (!(ns > 0)) {
		uint8_t order[TQ_MAX_TASKS];

		for (unsigned int t = 0; t < ws->tg.ntasks; t++)
			order[t] = t;
		ns = 0.01 * sim(ws, pb->dev, order, ws->tg.ntasks);
	}
	return ns < 1 ? 1 : (uint64_t)ns;
}

static int exact_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	int ret = ws_setup(pb, ws);

	d->cursor.valid = false;
	d->walk.valid = false;
	if (ret)
		return ret;
	/* exact has no default budget: without one it always proves the optimum */
	if (pb->budget_ns > 0)
		ws->deadline_ns = tq_clock_ns() + (uint64_t)pb->budget_ns;
	branch_and_bound(ws, pb->dev, d);
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = false;
	d->evals = ws->evals;
	return exact_finish(ws, d);
}

/*
 * Iterated greedy from d until @end. It reads the clock every 4th
 * simulation, and the root bound follows, so it stops 6 simulations' time
 * early, at its own pace since it began: a first simulation on cold caches
 * (usched's loop sleeps between TGs) takes several times longer than the
 * rest and would cut the search short.
 */
static void greedy_rest(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d,
			uint64_t end)
{
	ws->timed_out = false;
	ws->deadline_ns = end;
	ws->tail_evals = 6;
	ws->pace_ns = tq_clock_ns();
	ws->pace_evals = ws->evals;
	iterated_greedy(ws, dev, d);
	ws->tail_evals = 0;
	ws->timed_out = true;
}

/*
 * With chains: branch and bound for an eighth of the budget, which proves
 * small TGs; else iterated greedy for the rest from the better of its best
 * order and the submission order (always feasible). The bounds leave out
 * how the chains' waits idle the engines, so at 0.1% branch and bound
 * proves nothing on T x N TGs of 8 tasks or more in one TG and only takes
 * time from the search: on the TGs of the H200's 4x2, 4x4 and 6x2 runs
 * (tqsim, this machine) auto ended 2.2% above the best order known on
 * average this way, against 6.7% with branch and bound for 3/4 of the
 * budget.
 */
static void chains_search(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d,
			  uint64_t start, uint64_t budget)
{
	unsigned int n = ws->tg.ntasks;
	uint8_t id[TQ_MAX_TASKS];
	double ms;

	ws->deadline_ns = start + budget / 8;
	bb_from(ws, dev, d, NULL);
	if (!ws->timed_out)
		return;
	for (unsigned int i = 0; i < n; i++)
		id[i] = i;
	ms = sim(ws, dev, id, n);
	if (ms < d->makespan) {
		memcpy(d->order, id, n);
		d->makespan = ms;
	}
	greedy_rest(ws, dev, d, start + budget);
}

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

static bool auto_resume(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d,
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
static bool auto_take(const struct tq_problem *pb, struct tq_decision *d)
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

/*
 * auto: branch and bound for the first 3/4 of the budget; if it cannot
 * prove the optimum by then, iterated greedy from its best order for the
 * rest. On T = 6-8 TGs at a tight budget (0.1%) exact's best order is the
 * better use of the time: with half, auto kept less of the best gain. TGs
 * of more than 4 tasks with chains go to chains_search() instead.
 */
static int auto_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	uint64_t start, budget;
	int ret;

	d->cursor.valid = false;
	d->walk.valid = false;
	if (auto_take(pb, d))
		return 0;
	start = pb->start_ns ? pb->start_ns : tq_clock_ns();
	ret = ws_setup(pb, ws);

	if (ret)
		return ret;
	if (auto_resume(pb, ws, d, start))
		return 0;
	neh(ws, pb->dev, d, false);	/* the seed: always to its end */
	budget = budget_ns(pb, ws, d->order, d->makespan);
	if (ws->tg.nafter && ws->tg.ntasks > 4) {
		chains_search(ws, pb->dev, d, start, budget);
		d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
		d->optimal = false;
		d->evals = ws->evals;
		return exact_finish(ws, d);
	}
	ws->deadline_ns = start + budget / 4 * 3;
	bb_from(ws, pb->dev, d, NULL);
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = false;
	if (ws->timed_out)
		greedy_rest(ws, pb->dev, d, start + budget);
	d->evals = ws->evals;
	return exact_finish(ws, d);
}

const struct tq_policy_ops tq_policy_fifo = { .name = "fifo", .order = fifo_order };
const struct tq_policy_ops tq_policy_paper = { .name = "paper", .order = paper_order };
const struct tq_policy_ops tq_policy_neh = { .name = "neh", .order = neh_order };
const struct tq_policy_ops tq_policy_exact = { .name = "exact", .order = exact_order };
const struct tq_policy_ops tq_policy_auto = { .name = "auto", .order = auto_order };

const struct tq_policy_ops *const tq_policies[] = {
	&tq_policy_fifo, &tq_policy_paper, &tq_policy_neh, &tq_policy_exact, &tq_policy_auto,
	&tq_policy_flow, NULL
};

const struct tq_policy_ops *tq_policy_find(const char *name)
{
	for (int i = 0; tq_policies[i]; i++)
		if (!strcmp(tq_policies[i]->name, name))
			return tq_policies[i];
	return NULL;
}

bool tq_next_perm(uint8_t *p, unsigned int n)
{
	int i = (int)n - 2, j = (int)n - 1;
	uint8_t t;

	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return false;
	while (p[j] <= p[i])
		j--;
	t = p[i];
	p[i] = p[j];
	p[j] = t;
	for (unsigned int a = i + 1, b = n - 1; a < b; a++, b--) {
		t = p[a];
		p[a] = p[b];
		p[b] = t;
	}
	return true;
}
