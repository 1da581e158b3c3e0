// SPDX-License-Identifier: GPL-2.0
/*
 * exact.c - the exact policy: a depth-first branch and bound over order
 * prefixes, seeded with neh's order, that proves the optimum of the model
 * unless its budget ends first. Auto runs its search (bb_from()). Its
 * bounds are in bound.c, since they give every policy's lower bound
 * (root_bound()); this comment tells why they are bounds.
 *
 * A node's state is each engine's free time after the prefix, computed with
 * the standalone times (bb_push): exact with one copy engine or no
 * slowdown, and never later than the simulation otherwise, since a slowdown
 * only delays commands. Its bound (bb_bound) adds the remaining work of each
 * engine to the earliest the engine can start on it (min head) and the
 * least work that must follow it (min tail), as in Taillard's machine bounds
 * for the flow shop. Leaves are scored by the simulator, so the result is
 * the optimum of the model itself.
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
 * Precedence: the bounds ignore the waits for predecessors, a relaxation:
 * each stays a lower bound, except the copy bound (the HtD engine may now
 * wait), which is skipped as for release times.
 *
 * Concurrent kernels (ws->conc): no kernel waits for another in the node
 * state (a kernel may start as soon as the earliest queue is free, st->k,
 * and run at its standalone rate), and the kernel stage's bound is the
 * device's capacity: kq queues run at most kq kernels at full rate, and the
 * kernels running at once progress by at most one unit of width per unit of
 * time. Both relax the model, so the bounds stay lower bounds and the
 * search, whose leaves the simulator scores, still proves the optimum; only
 * the bounds that treat the kernels as one machine (Johnson's) are skipped.
 */
#include <math.h>
#include <string.h>

#include "policy.h"

/*
 * Orders within this relative distance of each other count as equal: the
 * bounds and the simulator add the same times in different orders, so a
 * bound may come out an ulp below the makespan it should equal.
 */
#define BB_EPS	1e-12

/*
 * Place task @t after the prefix, by the standalone recurrence: exact with
 * one copy engine or without slowdown, never later than the simulation
 * otherwise, since a slowdown only delays commands.
 */
static void bb_push(const struct tqsim_ws *ws, struct tqsim_bb_state *st, unsigned int t)
{
	const double *w = ws->work[t];
	double e = ws->tg.release[t];	/* end of the task's latest stage */

	if (has(ws, t, TQSIM_HTD)) {
		st->h = max_d(st->h, e) + w[TQSIM_HTD];
		e = st->h;
	}
	if (has(ws, t, TQSIM_K) && ws->conc) {
		e = max_d(st->k, e) + w[TQSIM_K];
	} else if (has(ws, t, TQSIM_K)) {
		st->k = max_d(st->k, e) + w[TQSIM_K];
		e = st->k;
	}
	if (has(ws, t, TQSIM_DTH)) {
		st->d = max_d(st->d, e) + w[TQSIM_DTH];
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
static void bb_from_prefix(const struct tqsim_ws *ws, const struct tqsim_prefix *p,
			   struct tqsim_bb_state *st)
{
	const struct tqsim_prefix_buf *buf = &ws->pbuf;
	double free = p->d.run ? p->now + p->d.rem : max_d(p->now, p->d.free);

	st->dres = p->d.run ? p->d.rem : 0;
	for (unsigned int pos = p->d.pos; pos < p->n; pos++) {
		unsigned int t = buf->order[pos];
		const struct tqsim_task *task = &ws->tg.task[t];
		/* the head's commands after the running one (several if not collapsed) */
		unsigned int c = pos == p->d.pos ? p->d.c + p->d.run : 0;

		if (c >= task->n[TQSIM_DTH])
			continue;
		if (!c)
			free = max_d(free, has(ws, t, TQSIM_K) ? buf->kend[pos] : buf->hend[pos]);
		for (; c < task->n[TQSIM_DTH]; c++) {
			free += ws->tg.cmd_ns[task->first[TQSIM_DTH] + c];
			st->dres += ws->tg.cmd_ns[task->first[TQSIM_DTH] + c];
		}
	}
	st->h = p->h.free;
	st->k = p->kfree;
	st->d = free;
	st->cmax = max_d(p->makespan, free);
}

/* Place task @t after the prefix ws->cur[0..depth-1], into ws->node[depth + 1]. */
static void bb_place(struct tqsim_ws *ws, const struct tqsim_dev *dev, unsigned int depth,
		     unsigned int t)
{
	struct tqsim_bb_node *nd = &ws->node[depth + 1];

	*nd = ws->node[depth];
	ws->cur[depth] = t;
	if (ws->bb_sim)
		tqsim_prefix_push(&ws->tg, dev, &ws->pbuf, &nd->pf, t);
	else
		bb_push(ws, &nd->st, t);
}

/* The makespan of the whole order just placed. */
static double bb_leaf(struct tqsim_ws *ws, const struct tqsim_dev *dev)
{
	unsigned int n = ws->tg.ntasks;

	if (!ws->bb_sim)
		return sim(ws, dev, ws->cur, n);
	ws->evals++;
	return tqsim_prefix_finish(&ws->tg, dev, &ws->pbuf, &ws->node[n].pf);
}

/*
 * Whether the deadline passed, checked every 4th call (a clock read costs
 * a fraction of a child's bound). If so, the prefix ws->cur[0..depth-1] and
 * the children finished along it and below it are where the search stopped
 * (ws->bb_stop). Never on the way down a resume cursor's path, nor for
 * BB_MIN_PROGRESS nodes after, so that each resumed TG adds to the proof
 * even when its budget was spent before the search began. But where the
 * path ends within the budget, those nodes stop at its end (ws->bb_end_ns)
 * once the children there are bounded and the search went one down (n + 1
 * nodes: the cursor moves on), so that a mix no budget proves does not go
 * over it TG after TG. A TG whose path ends past the budget is over it
 * anyway and takes all of them (Documentation/design/policies.md,
 * resumption).
 */
#define BB_MIN_PROGRESS	16
static bool bb_expired(struct tqsim_ws *ws, unsigned int depth)
{
	if ((++ws->evals & 3) || ws->bb_resume || ws->evals < ws->bb_floor_evals)
		return false;
	if (ws->evals < ws->bb_min_evals && (!ws->bb_end_ns || tqsim_clock_ns() < ws->bb_end_ns))
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
static void bb_leave_path(struct tqsim_ws *ws)
{
	ws->bb_resume = NULL;
	ws->bb_min_evals = ws->evals + BB_MIN_PROGRESS;
	ws->bb_floor_evals = ws->bb_end_ns && tqsim_clock_ns() < ws->bb_end_ns ?
			     ws->evals + ws->tg.ntasks + 1 : ws->bb_min_evals;
}

/*
 * The children of the prefix ws->cur[0..depth-1] to search: the tasks of
 * @rest that may go next, but on the way down a resume cursor's path
 * (ws->bb_resume) not those it finished there; its own child first.
 * Returns that child, or -1.
 */
static int bb_children(struct tqsim_ws *ws, unsigned int depth, uint64_t rest, uint64_t *av)
{
	const struct tqsim_bb_cursor *from = ws->bb_resume;

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
static double bb_child(struct tqsim_ws *ws, const struct tqsim_dev *dev, unsigned int depth,
		       uint64_t rest, unsigned int t, double cut)
{
	struct tqsim_bb_node *nd = &ws->node[depth + 1];

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
static void bb_dfs(struct tqsim_ws *ws, const struct tqsim_dev *dev, unsigned int depth,
		   uint64_t rest, struct tqsim_decision *d)
{
	struct tqsim_bb_child *ch = ws->child[depth];
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

/*
 * Branch and bound from d's order, whose makespan is the first incumbent,
 * and from where an earlier search stopped, @from (NULL: the start). Where
 * it runs out of time goes to d->cursor.
 */
void bb_from(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d,
	     const struct tqsim_bb_cursor *from)
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
static void branch_and_bound(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d)
{
	neh(ws, dev, d, false);
	bb_from(ws, dev, d, NULL);
}

int exact_finish(struct tqsim_ws *ws, struct tqsim_decision *d)
{
	if (!ws->timed_out) {
		d->lower_bound = d->makespan;
		d->optimal = true;
	}
	return 0;
}

static int exact_order(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	int ret = ws_setup(pb, ws);

	d->cursor.valid = false;
	d->walk.valid = false;
	if (ret)
		return ret;
	/* exact has no default budget: without one it always proves the optimum */
	if (pb->budget_ns > 0)
		ws->deadline_ns = tqsim_clock_ns() + (uint64_t)pb->budget_ns;
	branch_and_bound(ws, pb->dev, d);
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = false;
	d->evals = ws->evals;
	return exact_finish(ws, d);
}

const struct tqsim_policy_ops tqsim_policy_exact = { .name = "exact", .order = exact_order };
