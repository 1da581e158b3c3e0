// SPDX-License-Identifier: GPL-2.0
/*
 * neh.c - the neh policy (Nawaz, Enscore and Ham): tasks by descending
 * work, each inserted where the simulated makespan is least. Its insertion
 * (insert_best()) is also iterated greedy's (auto.c), and its order seeds
 * exact and auto.
 */
#include <math.h>
#include <string.h>

#include "policy.h"

/* Whether task @a comes before task @t in @t's chain of predecessors. */
static bool ancestor(const struct tqsim_ws *ws, unsigned int a, unsigned int t)
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
static void window(const struct tqsim_ws *ws, const uint8_t *seq, unsigned int len, uint8_t t,
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
double insert_best(struct tqsim_ws *ws, const struct tqsim_dev *dev, uint8_t *seq, unsigned int len,
		   uint8_t t, struct tqsim_ins *part)
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
			*part = (struct tqsim_ins){ .pos = (uint8_t)pos, .at = (uint8_t)at, .best = best };
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
static void neh_chains(const struct tqsim_ws *ws, const uint8_t *start, uint8_t *ins)
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
void neh(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d, bool timed)
{
	unsigned int n = ws->tg.ntasks;
	uint8_t *start = ws->seq;
	double total[TQSIM_MAX_TASKS], ms, start_ms;

	for (unsigned int t = 0; t < n; t++) {
		unsigned int i;

		total[t] = ws->work[t][TQSIM_HTD] + ws->work[t][TQSIM_K] + ws->work[t][TQSIM_DTH];
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

static void neh_whole(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d)
{
	neh(ws, dev, d, false);
}

static int neh_order(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	return decide(pb, ws, d, neh_whole);
}

const struct tqsim_policy_ops tqsim_policy_neh = { .name = "neh", .order = neh_order };
