// SPDX-License-Identifier: GPL-2.0
/*
 * auto.c - the auto policy: the best order it can find within a time
 * budget. It seeds with neh, gives branch and bound (exact.c) most of the
 * budget, which proves small TGs, and iterated greedy the rest; or goes on
 * from an earlier search of the same tasks (auto_resume(); the state it
 * goes on from is auto_resume.c's).
 */
#include <math.h>
#include <string.h>
#include <tq/rand.h>

#include "policy.h"

/*
 * How many tasks an iteration of iterated greedy removes: @nd, or fewer if
 * reinserting that many (about nd * n simulations) would not end before
 * the deadline at the pace so far, so that a small budget still completes
 * iterations (one cut short is dropped). One, to learn the pace, before any
 * was timed.
 */
static unsigned int fit_destroy(struct tqsim_ws *ws, unsigned int nd, unsigned int n)
{
	uint64_t now, done = ws->evals - ws->pace_evals;
	double per, left;

	if (!ws->deadline_ns || !ws->tail_evals)
		return nd;
	if (!done)
		return 1;
	now = tqsim_clock_ns();
	per = (double)(now - ws->pace_ns) / done;
	left = ((double)ws->deadline_ns - now) / per - ws->tail_evals;
	while (nd > 1 && nd * n > left)
		nd--;
	return nd;
}

/* Whether @w has an iteration under way whose tasks are those of an @n-task TG, once each. */
static bool walk_pending_ok(const struct tqsim_walk *w, unsigned int n)
{
	uint8_t all[TQSIM_MAX_TASKS];

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
static void descent_step(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d,
			 double *cur_ms, struct tqsim_descent *ds)
{
	unsigned int n = ws->tg.ntasks, i = ds->at;
	uint8_t *o = ws->cur, a = o[i], b = o[i + 1];
	double ms;

	if (ds->fails >= n - 1) {
		if (ds->stage == DESCENT_FIFO && d->makespan < *cur_ms) {
			memcpy(ws->cur, d->order, n);
			*cur_ms = d->makespan;
			*ds = (struct tqsim_descent){ .stage = DESCENT_BEST };
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
 * worse order with probability exp(-delta / temperature). Where the caller
 * keeps the walk (ws->walk_kept), it goes on from ws->walk_from and leaves
 * its state in d->walk, an iteration under way included, and an iteration
 * keeps all its removals, so that a budget smaller than one iteration still
 * moves the walk on. A new walk begins with two swap descents
 * (descent_step()), from fifo's order and then from d->order, and goes on
 * from the better: a pass costs n - 1 simulations to an iteration's 4n,
 * and fifo's order, round by round, may be a few swaps from the optimum
 * where neh's is not (Documentation/design/policies.md, the walk).
 */
static void iterated_greedy(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d)
{
	const struct tqsim_walk *from = ws->walk_from;
	unsigned int n = ws->tg.ntasks, ndestroy = n / 2 < 4 ? n / 2 : 4;
	unsigned int len = n, nd = 0, j = 0;
	struct tqsim_descent ds = { .stage = DESCENT_FIFO };
	double cur_ms, total = 0, temp;
	struct tqsim_ins ins = { .pos = 0 };

	if (n < 3)
		return;		/* neh already tried every order */
	for (unsigned int t = 0; t < n; t++)
		for (int s = 0; s < TQSIM_STAGES; s++)
			total += ws->work[t][s];
	temp = 0.4 * total / (n * TQSIM_STAGES * 10);	/* their T = 0.4 */
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
				unsigned int r = tq_rand_next(&ws->rng) % len;

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
			double u = tq_rand_unit(&ws->rng);

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

/*
 * When @order's first command may start: its first task's release or the
 * end of what keeps that task's first engine busy, whichever is later.
 */
static double first_start(const struct tqsim_ws *ws, const struct tqsim_dev *dev,
			  const uint8_t *order)
{
	unsigned int t = order[0];
	int s = 0;

	while (s < TQSIM_STAGES - 1 && !has(ws, t, s))
		s++;
	return max_d(ws->tg.release[t], dev->busy_until[s]);
}

/* auto's budget: budget_frac of @seed's device time (it ends at @seed_ms), else budget_ns. */
static uint64_t budget_ns(const struct tqsim_problem *pb, struct tqsim_ws *ws, const uint8_t *seed,
			  double seed_ms)
{
	double ns = pb->budget_frac > 0 ?
		    pb->budget_frac * (seed_ms - first_start(ws, pb->dev, seed)) : pb->budget_ns;

	if (!(ns > 0)) {
		uint8_t order[TQSIM_MAX_TASKS];

		for (unsigned int t = 0; t < ws->tg.ntasks; t++)
			order[t] = t;
		ns = 0.01 * sim(ws, pb->dev, order, ws->tg.ntasks);
	}
	return ns < 1 ? 1 : (uint64_t)ns;
}

/*
 * Iterated greedy from d until @end. It reads the clock every 4th
 * simulation, and the root bound follows, so it stops 6 simulations' time
 * early, at its own pace since it began: a first simulation on cold caches
 * (usched's loop sleeps between TGs) takes several times longer than the
 * rest and would cut the search short.
 */
static void greedy_rest(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d,
			uint64_t end)
{
	ws->timed_out = false;
	ws->deadline_ns = end;
	ws->tail_evals = 6;
	ws->pace_ns = tqsim_clock_ns();
	ws->pace_evals = ws->evals;
	iterated_greedy(ws, dev, d);
	ws->tail_evals = 0;
	ws->timed_out = true;
}

/*
 * With chains: branch and bound for an eighth of the budget, which proves
 * small TGs; else iterated greedy for the rest from the better of its best
 * order and the submission order (always feasible). The bounds leave out
 * how the chains' waits idle the engines, so on larger TGs of chains branch
 * and bound proves nothing in one budget and only takes time from the
 * search (Documentation/design/policies.md, chains).
 */
static void chains_search(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d,
			  uint64_t start, uint64_t budget)
{
	unsigned int n = ws->tg.ntasks;
	uint8_t id[TQSIM_MAX_TASKS];
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

#define AUTO_REPROVE_MAX	6	/* tasks: branch and bound proves these in budget */
#define AUTO_CHAINS_PROVE_MAX	8	/* tasks with chains: proven over tens of TGs */

/*
 * A resumed search (an order to resume, feasible, not taken by
 * auto_take()): iterated greedy goes on from it for the whole budget, since
 * branch and bound from the same incumbent would only repeat the earlier
 * search. A TG small enough to prove (prove_max) first gets branch and
 * bound from the cursor, for 7/8 of the budget (3/4 without one): a proof
 * spread over a few TGs. A stale order goes against neh's first. False: no
 * order to resume.
 */
static bool auto_resume(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d,
			uint64_t start)
{
	const struct tqsim_auto_state *st = pb->state;
	const struct tqsim_bb_cursor *from;
	unsigned int n = ws->tg.ntasks;
	uint64_t budget;
	bool proven = false;
	double ms;

	if (!st || !st->order || !is_perm(st->order, n))
		return false;
	from = st->stale ? NULL : st->cursor;
	ms = sim(ws, pb->dev, st->order, n);
	if (!(ms < INFINITY))
		return false;
	if (st->stale) {
		/* half the budget at most: neh at 12-16 tasks can take all of it */
		ws->deadline_ns = start + budget_ns(pb, ws, st->order, ms) / 2;
		neh(ws, pb->dev, d, true);	/* the seed if it is the better */
		ws->deadline_ns = 0;
		ws->timed_out = false;
	}
	if (!st->stale || d->makespan > ms) {
		memcpy(d->order, st->order, n);
		d->makespan = ms;
	}
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = false;
	budget = budget_ns(pb, ws, d->order, d->makespan);
	ws->bb_end_ns = start + budget;
	if (!st->stale)
		ws->walk_from = st->walk;
	if (n <= (st->prove_max ? st->prove_max :
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
 * auto: branch and bound for the first 3/4 of the budget; if it cannot
 * prove the optimum by then, iterated greedy from its best order for the
 * rest: at a tight budget exact's best order is the better use of the time
 * (Documentation/design/policies.md, auto). TGs of more than 4 tasks with
 * chains go to chains_search() instead.
 */
static int auto_order(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	uint64_t start, budget;
	int ret;

	d->cursor.valid = false;
	d->walk.valid = false;
	if (auto_take(pb, d))
		return 0;
	start = auto_start_ns(pb);
	ret = ws_setup(pb, ws);

	if (ret)
		return ret;
	ws->walk_kept = auto_keeps_walk(pb);
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

const struct tqsim_policy_ops tqsim_policy_auto = { .name = "auto", .order = auto_order };
