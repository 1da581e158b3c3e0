// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the TG builder and the event-driven simulator.
 *
 * The simulator keeps one FIFO cursor per queue (HtD, K, DtH; with one copy
 * engine, a transfer queue holding every HtD then every DtH, and K). Each
 * step starts every head command whose engine is free and whose task has
 * finished its previous existing stage, re-estimates the end of the running
 * transfers (they slow each other while both run), and jumps to the earliest
 * end or engine release. At most three engines run, so a step is a few
 * dozen instructions and a TG of T tasks takes about 3T steps.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tqsim.h"

void tq_tg_init(struct tq_tg *tg)
{
	tg->ntasks = 0;
	tg->ncmds = 0;
}

int tq_tg_add_task(struct tq_tg *tg)
{
	struct tq_task *t;

	if (tg->ntasks >= TQ_MAX_TASKS)
		return -ENOSPC;
	t = &tg->task[tg->ntasks];
	memset(t, 0, sizeof(*t));
	for (int s = 0; s < TQ_STAGES; s++)
		t->first[s] = tg->ncmds;
	return tg->ntasks++;
}

int tq_tg_add_cmd(struct tq_tg *tg, enum tq_stage s, double ns)
{
	struct tq_task *t;

	if (!tg->ntasks || (unsigned int)s >= TQ_STAGES || !isfinite(ns) || ns < 0)
		return -EINVAL;
	t = &tg->task[tg->ntasks - 1];
	/* the stage's commands must stay contiguous: no later stage begun yet */
	for (int later = s + 1; later < TQ_STAGES; later++)
		if (t->n[later])
			return -EINVAL;
	if (tg->ncmds >= TQ_MAX_CMDS || t->n[s] == UINT8_MAX)
		return -ENOSPC;
	if (!t->n[s])
		t->first[s] = tg->ncmds;
	tg->cmd_ns[tg->ncmds++] = ns;
	t->n[s]++;
	for (int later = s + 1; later < TQ_STAGES; later++)
		t->first[later] = tg->ncmds;
	return 0;
}

int tq_tg_add(struct tq_tg *tg, double htd_ns, double k_ns, double dth_ns)
{
	const double ns[TQ_STAGES] = { htd_ns, k_ns, dth_ns };
	int idx = tq_tg_add_task(tg);

	for (int s = 0; s < TQ_STAGES && idx >= 0; s++) {
		if (ns[s] != 0) {
			int ret = tq_tg_add_cmd(tg, s, ns[s]);

			if (ret) {
				tg->ntasks--;	/* drop the half-built task */
				tg->ncmds = tg->task[idx].first[0];
				return ret;
			}
		}
	}
	return idx;
}

double tq_task_work(const struct tq_tg *tg, unsigned int t, enum tq_stage s)
{
	const struct tq_task *task = &tg->task[t];
	double sum = 0;

	for (unsigned int c = 0; c < task->n[s]; c++)
		sum += tg->cmd_ns[task->first[s] + c];
	return sum;
}

void tq_dev_init(struct tq_dev *dev)
{
	memset(dev, 0, sizeof(*dev));
	dev->dma = 2;
	for (int s = 0; s < TQ_STAGES; s++)
		dev->slow[s] = 1.0;
}

int tq_dev_check(const struct tq_dev *dev)
{
	if (dev->dma != 1 && dev->dma != 2)
		return -EINVAL;
	for (int s = 0; s < TQ_STAGES; s++) {
		if (!isfinite(dev->busy_until[s]) || dev->busy_until[s] < 0)
			return -EINVAL;
		if (s != TQ_K && !(dev->slow[s] >= 1.0 && isfinite(dev->slow[s])))
			return -EINVAL;
	}
	return 0;
}

/*
 * A queue: its position in the TG order (pos), the stage it is walking and
 * the next command of that stage (c). The K queue walks stage TQ_K; with
 * dma == 2 the copy queues walk one stage each; with dma == 1 queue 0 walks
 * every HtD and then every DtH (last_stage says where it stops).
 */
struct queue {
	unsigned int pos;
	unsigned int c;
	int stage;
	int last_stage;
	bool running;
	double free_at;		/* engine free from this time on */
	double rem;		/* standalone ns left of the running transfer */
	double end;		/* end of the running command, as last estimated */
	double start;
};

struct sim {
	const struct tq_tg *tg;
	const uint8_t *order;
	unsigned int n;
	uint8_t next[TQ_MAX_TASKS];	/* stage the task may run next */
};

/* First existing stage of the task at or after @s (TQ_STAGES: none). */
static inline int next_stage(const struct tq_task *t, int s)
{
	while (s < TQ_STAGES && !t->n[s])
		s++;
	return s;
}

/* Move @q to its next command, skipping tasks without one; false at the end. */
static inline bool queue_seek(const struct sim *sm, struct queue *q)
{
	for (;;) {
		while (q->pos < sm->n) {
			const struct tq_task *t = &sm->tg->task[sm->order[q->pos]];

			if (q->c < t->n[q->stage])
				return true;
			q->pos++;
			q->c = 0;
		}
		if (q->stage == q->last_stage)
			return false;
		q->stage = q->last_stage;	/* dma 1: DtH after every HtD */
		q->pos = 0;
	}
}

static inline unsigned int head_cmd(const struct sim *sm, const struct queue *q)
{
	return sm->tg->task[sm->order[q->pos]].first[q->stage] + q->c;
}

/*
 * The core; @res == NULL skips the per-command record. Inlined into both
 * entry points so the makespan path carries no record branches.
 */
static inline __attribute__((always_inline)) double
simulate(const struct tq_tg *tg, const struct tq_dev *dev, const uint8_t *order,
	 unsigned int n, struct tq_sim_result *res)
{
	struct sim sm = { .tg = tg, .order = order, .n = n };
	struct queue qs[TQ_STAGES];
	int nq = dev->dma == 2 ? 3 : 2;
	/* queue index of each engine's copy role; dma 1 has no overlap */
	struct queue *qh = &qs[0], *qd = dev->dma == 2 ? &qs[2] : NULL;
	double slow_h = dev->slow[TQ_HTD], slow_d = dev->slow[TQ_DTH];
	double now = 0, makespan = 0;
	bool alive[TQ_STAGES];

	for (unsigned int i = 0; i < n; i++)
		sm.next[i] = next_stage(&tg->task[order[i]], 0);
	memset(qs, 0, sizeof(qs));
	if (dev->dma == 2) {
		for (int s = 0; s < TQ_STAGES; s++) {
			qs[s].stage = qs[s].last_stage = s;
			qs[s].free_at = dev->busy_until[s];
		}
	} else {
		qs[0].stage = TQ_HTD;
		qs[0].last_stage = TQ_DTH;
		qs[0].free_at = fmax(dev->busy_until[TQ_HTD], dev->busy_until[TQ_DTH]);
		qs[1].stage = qs[1].last_stage = TQ_K;
		qs[1].free_at = dev->busy_until[TQ_K];
	}
	if (res) {
		memset(res->busy, 0, sizeof(res->busy));
		for (unsigned int c = 0; c < tg->ncmds; c++)
			res->start[c] = res->end[c] = NAN;	/* tasks left out */
	}
	for (int i = 0; i < nq; i++)
		alive[i] = queue_seek(&sm, &qs[i]);

	for (;;) {
		double next = INFINITY;
		bool overlap;

		/* start every head that may start now */
		for (int i = 0; i < nq; i++) {
			struct queue *q = &qs[i];

			if (!alive[i] || q->running || sm.next[q->pos] != q->stage)
				continue;
			if (q->free_at > now) {
				next = fmin(next, q->free_at);
				continue;
			}
			q->running = true;
			q->start = now;
			q->rem = tg->cmd_ns[head_cmd(&sm, q)];
			q->end = now + q->rem;
		}
		/* re-estimate the transfers' ends: both directions at once are slower */
		overlap = qd && qh->running && qd->running;
		if (overlap) {
			qh->end = now + qh->rem * slow_h;
			qd->end = now + qd->rem * slow_d;
		} else if (qd) {
			if (qh->running)
				qh->end = now + qh->rem;
			if (qd->running)
				qd->end = now + qd->rem;
		}
		for (int i = 0; i < nq; i++)
			if (qs[i].running)
				next = fmin(next, qs[i].end);
		if (next == INFINITY)
			break;

		/* advance to @next: charge the transfers' progress, retire what ended */
		if (qd) {
			double dt = next - now;

			if (qh->running && qh->end != next)
				qh->rem = fmax(0, qh->rem - (overlap ? dt / slow_h : dt));
			if (qd->running && qd->end != next)
				qd->rem = fmax(0, qd->rem - (overlap ? dt / slow_d : dt));
		}
		now = next;
		for (int i = 0; i < nq; i++) {
			struct queue *q = &qs[i];
			unsigned int pos;
			const struct tq_task *t;

			if (!q->running || q->end != now)
				continue;
			pos = q->pos;
			t = &tg->task[order[pos]];
			q->running = false;
			q->free_at = now;
			if (res) {
				unsigned int c = head_cmd(&sm, q);

				res->start[c] = q->start;
				res->end[c] = now;
				res->busy[q->stage] += now - q->start;
			}
			if (++q->c == t->n[q->stage])
				sm.next[pos] = next_stage(t, q->stage + 1);
			alive[i] = queue_seek(&sm, q);
		}
		makespan = now;
	}
	if (res) {
		res->makespan = makespan;
		if (dev->dma == 2) {
			for (int s = 0; s < TQ_STAGES; s++)
				res->engine_end[s] = qs[s].free_at;
		} else {
			res->engine_end[TQ_HTD] = res->engine_end[TQ_DTH] = qs[0].free_at;
			res->engine_end[TQ_K] = qs[1].free_at;
		}
	}
	return makespan;
}

void tq_simulate(const struct tq_tg *tg, const struct tq_dev *dev,
		 const uint8_t *order, unsigned int n, struct tq_sim_result *res)
{
	simulate(tg, dev, order, n, res);
}

double tq_makespan(const struct tq_tg *tg, const struct tq_dev *dev,
		   const uint8_t *order, unsigned int n)
{
	return simulate(tg, dev, order, n, NULL);
}
