// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the ordering policies: fifo, paper, neh, exact and auto.
 *
 * Every policy works on the TG collapsed to one command per stage (ws->tg):
 * a stage's commands run back to back on one engine, so the collapsed TG has
 * the same makespan for every order and simulates faster.
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
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tqsim.h"

static bool has(const struct tq_ws *ws, unsigned int t, int s)
{
	return ws->tg.task[t].n[s] != 0;
}

static int ws_setup(const struct tq_problem *pb, struct tq_ws *ws)
{
	const struct tq_tg *tg = pb->tg;

	if (!tg->ntasks || tq_dev_check(pb->dev))
		return -EINVAL;
	tq_tg_init(&ws->tg);
	for (unsigned int t = 0; t < tg->ntasks; t++) {
		tq_tg_add_task(&ws->tg);
		for (int s = 0; s < TQ_STAGES; s++) {
			ws->work[t][s] = tq_task_work(tg, t, s);
			if (tg->task[t].n[s])
				tq_tg_add_cmd(&ws->tg, s, ws->work[t][s]);
		}
	}
	ws->deadline_ns = 0;
	ws->timed_out = false;
	ws->evals = 0;
	ws->rng = pb->seed | 1;
	return 0;
}

static double sim(struct tq_ws *ws, const struct tq_dev *dev, const uint8_t *order,
		  unsigned int n)
{
	ws->evals++;
	return tq_makespan(&ws->tg, dev, order, n);
}

/* The budget check; the only place a policy looks at a clock. */
static bool expired(struct tq_ws *ws)
{
	if (ws->deadline_ns && tq_clock_ns() >= ws->deadline_ns)
		ws->timed_out = true;
	return ws->timed_out;
}

/* ---- bounds ---- */

struct bb_state {
	double h, k, d;		/* when each engine is free */
	double cmax;		/* latest end of a placed task */
};

static void bb_init(const struct tq_ws *ws, const struct tq_dev *dev, struct bb_state *st)
{
	const double *busy = dev->busy_until;

	st->k = busy[TQ_K];
	st->cmax = 0;
	if (dev->dma == 2) {
		st->h = busy[TQ_HTD];
		st->d = busy[TQ_DTH];
		return;
	}
	/* one copy engine: every HtD of the TG runs before the first DtH */
	st->h = fmax(busy[TQ_HTD], busy[TQ_DTH]);
	st->d = st->h;
	for (unsigned int t = 0; t < ws->tg.ntasks; t++)
		st->d += ws->work[t][TQ_HTD];
}

/* Place task @t after the prefix. */
static void bb_push(const struct tq_ws *ws, struct bb_state *st, unsigned int t)
{
	const double *w = ws->work[t];
	double e = 0;		/* end of the task's latest stage */

	if (has(ws, t, TQ_HTD)) {
		st->h += w[TQ_HTD];
		e = st->h;
	}
	if (has(ws, t, TQ_K)) {
		st->k = fmax(st->k, e) + w[TQ_K];
		e = st->k;
	}
	if (has(ws, t, TQ_DTH)) {
		st->d = fmax(st->d, e) + w[TQ_DTH];
		e = st->d;
	}
	st->cmax = fmax(st->cmax, e);
}

/* A lower bound on the makespan of every completion of the prefix by @rest. */
static double bb_bound(const struct tq_ws *ws, const struct bb_state *st, uint64_t rest)
{
	double sum[TQ_STAGES] = { 0 };
	double tail_h = INFINITY, head_k = INFINITY, tail_k = INFINITY, head_d = INFINITY;
	double lb = st->cmax;

	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		const double *w = ws->work[t];
		double eh = 0, ek, ed;

		if (has(ws, t, TQ_HTD)) {
			eh = st->h + w[TQ_HTD];
			tail_h = fmin(tail_h, w[TQ_K] + w[TQ_DTH]);
		}
		ek = eh;
		if (has(ws, t, TQ_K)) {
			ek = fmax(st->k, eh) + w[TQ_K];
			head_k = fmin(head_k, eh);
			tail_k = fmin(tail_k, w[TQ_DTH]);
		}
		ed = ek;
		if (has(ws, t, TQ_DTH)) {
			ed = fmax(st->d, ek) + w[TQ_DTH];
			head_d = fmin(head_d, ek);
		}
		lb = fmax(lb, ed);	/* the task's own chain */
		for (int s = 0; s < TQ_STAGES; s++)
			sum[s] += w[s];
	}
	/* each engine: earliest start + its remaining work + least work after it */
	if (tail_h < INFINITY)
		lb = fmax(lb, st->h + sum[TQ_HTD] + tail_h);
	if (head_k < INFINITY)
		lb = fmax(lb, fmax(st->k, head_k) + sum[TQ_K] + tail_k);
	if (head_d < INFINITY)
		lb = fmax(lb, fmax(st->d, head_d) + sum[TQ_DTH]);
	return lb;
}

static uint64_t all_tasks(unsigned int n)
{
	return n == 64 ? ~0ULL : (1ULL << n) - 1;
}

static double root_bound(const struct tq_ws *ws, const struct tq_dev *dev)
{
	struct bb_state st;

	bb_init(ws, dev, &st);
	return bb_bound(ws, &st, all_tasks(ws->tg.ntasks));
}

/* Depth-first branch and bound below the prefix ws->cur[0..depth-1]. */
static void bb_dfs(struct tq_ws *ws, const struct tq_dev *dev, unsigned int depth,
		   uint64_t rest, const struct bb_state *st, struct tq_decision *d)
{
	struct tq_bb_child *ch = ws->child[depth];
	unsigned int n = ws->tg.ntasks, nc = 0;

	if (!(++ws->evals & 255) && expired(ws))
		return;
	/* children sorted by bound, so the best-looking prefix is tried first */
	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m), i;
		struct bb_state cs = *st;
		double lb;

		bb_push(ws, &cs, t);
		lb = depth + 1 < n ? bb_bound(ws, &cs, rest & ~(1ULL << t)) : cs.cmax;
		if (lb >= d->makespan)
			continue;
		for (i = nc++; i > 0 && ch[i - 1].lb > lb; i--)
			ch[i] = ch[i - 1];
		ch[i].lb = lb;
		ch[i].task = t;
	}
	for (unsigned int i = 0; i < nc && ch[i].lb < d->makespan; i++) {
		unsigned int t = ch[i].task;
		struct bb_state cs = *st;

		ws->cur[depth] = t;
		if (depth + 1 == n) {
			double ms = sim(ws, dev, ws->cur, n);

			if (ms < d->makespan) {
				d->makespan = ms;
				memcpy(d->order, ws->cur, n);
			}
			continue;
		}
		bb_push(ws, &cs, t);
		bb_dfs(ws, dev, depth + 1, rest & ~(1ULL << t), &cs, d);
		if (ws->timed_out)
			return;
	}
}

/* ---- insertion (NEH and iterated greedy) ---- */

/*
 * Insert @t into seq[0..len-1] where the makespan is least (earliest
 * position on ties); returns that makespan.
 */
static double insert_best(struct tq_ws *ws, const struct tq_dev *dev, uint8_t *seq,
			  unsigned int len, uint8_t t)
{
	uint8_t *try = ws->tmp;
	double best = INFINITY;
	unsigned int at = 0;

	try[0] = t;
	memcpy(try + 1, seq, len);
	for (unsigned int pos = 0; pos <= len; pos++) {
		double ms = sim(ws, dev, try, len + 1);

		if (ms < best) {
			best = ms;
			at = pos;
		}
		if (pos < len) {	/* move t one place later */
			try[pos] = try[pos + 1];
			try[pos + 1] = t;
		}
	}
	memmove(seq + at + 1, seq + at, len - at);
	seq[at] = t;
	return best;
}

/*
 * NEH: tasks by descending total work, each inserted where the simulated
 * makespan is least. The start order is kept if it is better, so neh is
 * never worse than its start order.
 */
static void neh(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	unsigned int n = ws->tg.ntasks;
	uint8_t *start = ws->seq;
	double total[TQ_MAX_TASKS], ms, start_ms;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i;

		total[t] = ws->work[t][TQ_HTD] + ws->work[t][TQ_K] + ws->work[t][TQ_DTH];
		for (i = t; i > 0 && total[start[i - 1]] < total[t]; i--)
			start[i] = start[i - 1];
		start[i] = t;
	}
	d->order[0] = start[0];
	ms = sim(ws, dev, d->order, 1);
	for (unsigned int i = 1; i < n; i++)
		ms = insert_best(ws, dev, d->order, i, start[i]);
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
 * Iterated greedy (Ruiz and Stuetzle 2007) from d->order until the deadline:
 * remove a few random tasks, reinsert each where the makespan is least,
 * accept a worse order with probability exp(-delta / temperature).
 */
static void iterated_greedy(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	unsigned int n = ws->tg.ntasks, ndestroy = n / 2 < 4 ? n / 2 : 4;
	double cur_ms = d->makespan, total = 0, temp;

	if (n < 3)
		return;		/* neh already tried every order */
	for (unsigned int t = 0; t < n; t++)
		for (int s = 0; s < TQ_STAGES; s++)
			total += ws->work[t][s];
	temp = 0.4 * total / (n * TQ_STAGES * 10);	/* their T = 0.4 */
	memcpy(ws->cur, d->order, n);
	while (!expired(ws)) {
		unsigned int len = n;
		double ms = 0;

		memcpy(ws->seq, ws->cur, n);
		for (unsigned int j = 0; j < ndestroy; j++) {
			unsigned int r = rng_next(ws) % len;

			ws->removed[j] = ws->seq[r];
			memmove(ws->seq + r, ws->seq + r + 1, --len - r);
		}
		for (unsigned int j = 0; j < ndestroy; j++)
			ms = insert_best(ws, dev, ws->seq, len++, ws->removed[j]);
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
				tm[s] = fmax(tm[s], ws->res.end[ws->tg.task[ot[i]].first[s]]);
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

static void paper(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	unsigned int n = ws->tg.ntasks, len = 0;
	uint64_t rest = all_tasks(n);
	uint8_t *ot = d->order;
	double tm[TQ_STAGES];

	ot[len] = paper_first(ws, rest);
	rest &= ~(1ULL << ot[len++]);
	while (len + 2 < n) {
		paper_update(ws, dev, ot, len, tm);
		ot[len] = paper_next(ws, rest, tm);
		rest &= ~(1ULL << ot[len++]);
	}
	if (len + 2 == n) {
		unsigned int a = __builtin_ctzll(rest), b = 63 - __builtin_clzll(rest);
		double da = ws->work[a][TQ_DTH], db = ws->work[b][TQ_DTH];

		/*
		 * select_last_tasks: select_next_task with the DtH criterion first,
		 * the shorter DtH last so the TG does not end on a long transfer.
		 */
		if (da != db) {
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

static int neh_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	return decide(pb, ws, d, neh);
}

/* Branch and bound seeded with neh; proves optimality unless the deadline hits. */
static void branch_and_bound(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	struct bb_state st;

	neh(ws, dev, d);
	bb_init(ws, dev, &st);
	bb_dfs(ws, dev, 0, all_tasks(ws->tg.ntasks), &st, d);
}

static int exact_finish(struct tq_ws *ws, struct tq_decision *d)
{
	if (!ws->timed_out) {
		d->lower_bound = d->makespan;
		d->optimal = true;
	}
	return 0;
}

static uint64_t budget_ns(const struct tq_problem *pb, struct tq_ws *ws)
{
	double ns = pb->budget_ns;

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
 * auto: branch and bound for the first half of the budget; if it cannot
 * prove the optimum by then, iterated greedy from its best order for the
 * rest.
 */
static int auto_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	uint64_t start, budget;
	int ret = ws_setup(pb, ws);

	if (ret)
		return ret;
	start = tq_clock_ns();
	budget = budget_ns(pb, ws);
	ws->deadline_ns = start + budget / 2;
	branch_and_bound(ws, pb->dev, d);
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = false;
	if (ws->timed_out) {
		ws->timed_out = false;
		ws->deadline_ns = start + budget;
		iterated_greedy(ws, pb->dev, d);
		ws->timed_out = true;
	}
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
	NULL
};

const struct tq_policy_ops *tq_policy_find(const char *name)
{
	for (int i = 0; tq_policies[i]; i++)
		if (!strcmp(tq_policies[i]->name, name))
			return tq_policies[i];
	return NULL;
}
