// SPDX-License-Identifier: GPL-2.0
/*
 * auto_resume.c - auto going on from an earlier search of the same tasks:
 * its state between calls (struct tqsim_auto_state, opaque outside the
 * library), the cursor's and walk's task indices mapped from one submission
 * order to another, and taking a proven order as it is. The resumed search
 * is auto.c's (auto_resume()).
 *
 * The resumption lives here, in sim, not in usched/core/plans.c: sim's own tests
 * and tqsim's bench resume too, sim must not depend on usched, and only the
 * search knows what its cursor and walk mean. plans.c keeps one per
 * recurring mix and decides which mix a TG is and whether its times still
 * hold (Documentation/design/policies.md, resumption).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

struct tqsim_auto_state *tqsim_auto_state_create(void)
{
	return calloc(1, sizeof(struct tqsim_auto_state));
}

void tqsim_auto_state_destroy(struct tqsim_auto_state *st)
{
	free(st);
}

void tqsim_auto_state_clear(struct tqsim_auto_state *st)
{
	*st = (struct tqsim_auto_state){ .order = NULL };
}

void tqsim_auto_resume(struct tqsim_auto_state *st, const uint8_t *order, bool optimal, bool stale)
{
	st->order = order;
	st->optimal = optimal;
	st->stale = stale;
}

void tqsim_auto_resume_cursor(struct tqsim_auto_state *st, const struct tqsim_bb_cursor *cursor)
{
	st->cursor = cursor;
}

void tqsim_auto_resume_walk(struct tqsim_auto_state *st, const struct tqsim_walk *walk)
{
	st->walk = walk;
}

void tqsim_auto_prove_max(struct tqsim_auto_state *st, unsigned int n)
{
	st->prove_max = n;
}

void tqsim_auto_start(struct tqsim_auto_state *st, uint64_t start_ns)
{
	st->start_ns = start_ns;
}

/*
 * Task index @i as map[i]. Out of range (a cursor or walk that makes no
 * sense) it stays as it is, for the search to ignore.
 */
static uint8_t index_map(const uint8_t *map, uint8_t i, unsigned int n)
{
	return i < n ? map[i] : i;
}

void tqsim_bb_cursor_map(struct tqsim_bb_cursor *to, const struct tqsim_bb_cursor *from,
		      const uint8_t *map, unsigned int n)
{
	to->valid = from->valid && from->depth < n;
	if (!to->valid)
		return;
	to->depth = from->depth;
	for (unsigned int k = 0; k <= from->depth; k++) {
		to->done[k] = 0;
		for (uint64_t b = from->done[k]; b; b &= b - 1) {
			unsigned int i = __builtin_ctzll(b);

			if (i < n)
				to->done[k] |= 1ULL << map[i];
		}
		if (k < from->depth)
			to->path[k] = index_map(map, from->path[k], n);
	}
}

void tqsim_walk_map(struct tqsim_walk *to, const struct tqsim_walk *from, const uint8_t *map,
		 unsigned int n)
{
	if (!from->valid || from->len > n || from->nd > n) {
		to->valid = false;
		return;
	}
	*to = *from;	/* then its task indices mapped */
	for (unsigned int i = 0; i < n; i++)
		to->cur[i] = index_map(map, from->cur[i], n);
	for (unsigned int i = 0; i < from->len; i++)
		to->seq[i] = index_map(map, from->seq[i], n);
	for (unsigned int i = 0; i < from->nd; i++)
		to->removed[i] = index_map(map, from->removed[i], n);
}

uint64_t auto_start_ns(const struct tqsim_problem *pb)
{
	return pb->state && pb->state->start_ns ? pb->state->start_ns : tqsim_clock_ns();
}

bool auto_keeps_walk(const struct tqsim_problem *pb)
{
	return pb->state && pb->state->walk;
}

/*
 * A lower bound without the search's setup: each engine's work after it is
 * free. With one copy engine both directions share it.
 */
static double load_bound(const struct tqsim_tg *tg, const struct tqsim_dev *dev)
{
	double work[TQSIM_STAGES] = { 0 }, lb;

	for (unsigned int t = 0; t < tg->ntasks; t++)
		for (int s = 0; s < TQSIM_STAGES; s++)
			work[s] += tqsim_task_work(tg, t, s);
	lb = dev->busy_until[TQSIM_K] + work[TQSIM_K];
	if (dev->dma == 2)
		return max_d(lb, max_d(dev->busy_until[TQSIM_HTD] + work[TQSIM_HTD],
				       dev->busy_until[TQSIM_DTH] + work[TQSIM_DTH]));
	return max_d(lb, max_d(dev->busy_until[TQSIM_HTD], dev->busy_until[TQSIM_DTH]) +
			 work[TQSIM_HTD] + work[TQSIM_DTH]);
}

/*
 * A proven resume order: one simulation on the TG as given, no search state
 * (on cold caches the set-up and the root bound would be half the choice's
 * time). False: no such order, or one against a chain (the search starts
 * afresh).
 */
bool auto_take(const struct tqsim_problem *pb, struct tqsim_decision *d)
{
	const struct tqsim_auto_state *st = pb->state;
	const struct tqsim_tg *tg = pb->tg;
	unsigned int n = tg->ntasks;
	double lb;

	if (!st || !st->order || !st->optimal || st->stale || !n ||
	    tqsim_dev_check(pb->dev) || !is_perm(st->order, n))
		return false;
	d->makespan = tqsim_makespan(tg, pb->dev, st->order, n);
	if (!(d->makespan < INFINITY))
		return false;
	memcpy(d->order, st->order, n);
	lb = load_bound(tg, pb->dev);
	d->optimal = !(lb < d->makespan);
	d->lower_bound = min_d(lb, d->makespan);
	d->evals = 1;
	return true;
}
