// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the TG builder and the simulator.
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
	tg->release[tg->ntasks] = 0;
	return tg->ntasks++;
}

int tq_tg_set_release(struct tq_tg *tg, unsigned int t, double ns)
{
	if (t >= tg->ntasks || !isfinite(ns) || ns < 0)
		return -EINVAL;
	tg->release[t] = ns;
	return 0;
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

/* fmin/fmax without their NaN rules: plain minsd/maxsd on the hot path */
static inline double min_d(double a, double b)
{
	return a < b ? a : b;
}

static inline double max_d(double a, double b)
{
	return a > b ? a : b;
}

/*
 * The simulation. Kernels never change speed and never run alongside each
 * other, so the K queue is a recurrence: a kernel starts when the previous
 * one ends and its task's HtD stage is done (place_kernels()), computed as
 * soon as that HtD end is known. An HtD command waits only for its engine
 * and, the first of its task, for the task's release time. A task's release
 * also stands in for the end of its HtD stage when it has none (hend), so
 * its kernel or DtH waits for it.
 * With one copy engine every DtH waits for the last HtD, so the whole TG is
 * a recurrence (copy_engine()). With two, the only coupling left is the
 * overlap slowdown of HtD and DtH, and the event loop in copy_engines()
 * steps from one HtD or DtH start or end to the next, re-estimating both
 * ends at each step (the paper's Figure 5).
 */
struct sim {
	const struct tq_tg *tg;
	const uint8_t *order;
	unsigned int n;
	struct tq_sim_result *res;	/* NULL: makespan only */
	double makespan;
	double *hend;			/* per position: end of the HtD stage, release if absent */
	double *kend;			/* end of the K stage, once placed */
	unsigned int kpos;		/* tasks whose kernels are placed */
	double kfree;			/* the K engine is free from then on */
	double now;			/* two engines: the event loop's clock */
	struct tq_copyq h, d;		/* two engines: the copy queues */
};

static inline const struct tq_task *task_at(const struct sim *sm, unsigned int pos)
{
	return &sm->tg->task[sm->order[pos]];
}

static inline void record(struct sim *sm, int s, unsigned int cmd, double start, double end)
{
	sm->makespan = max_d(sm->makespan, end);
	if (sm->res) {
		sm->res->start[cmd] = start;
		sm->res->end[cmd] = end;
		sm->res->busy[s] += end - start;
	}
}

/*
 * Place every kernel whose start is known: in FIFO order, as long as its
 * task has no HtD or its HtD ended (the tasks before @hknown).
 */
static inline void place_kernels(struct sim *sm, unsigned int hknown)
{
	for (; sm->kpos < sm->n; sm->kpos++) {
		const struct tq_task *t = task_at(sm, sm->kpos);
		double ready = sm->hend[sm->kpos];

		if (t->n[TQ_HTD] && sm->kpos >= hknown && t->n[TQ_K])
			break;
		for (unsigned int c = 0; c < t->n[TQ_K]; c++) {
			double start = max_d(sm->kfree, ready);

			ready = sm->kfree = start + sm->tg->cmd_ns[t->first[TQ_K] + c];
			record(sm, TQ_K, t->first[TQ_K] + c, start, ready);
		}
		sm->kend[sm->kpos] = ready;
	}
}

/*
 * When the DtH of the task at @pos may start, INFINITY while unknown: after
 * its kernels, else after its HtD (known for the tasks before @hknown).
 */
static inline double dth_ready(const struct sim *sm, unsigned int hknown, unsigned int pos)
{
	const struct tq_task *t = task_at(sm, pos);

	if (t->n[TQ_K])
		return pos < sm->kpos ? sm->kend[pos] : INFINITY;
	return pos < hknown || !t->n[TQ_HTD] ? sm->hend[pos] : INFINITY;
}

/* Run the commands of stage @s back to back from @free; returns the engine's release. */
static inline double run_stage(struct sim *sm, unsigned int pos, int s, double free)
{
	const struct tq_task *t = task_at(sm, pos);

	for (unsigned int c = 0; c < t->n[s]; c++) {
		double end = free + sm->tg->cmd_ns[t->first[s] + c];

		record(sm, s, t->first[s] + c, free, end);
		free = end;
	}
	return free;
}

static inline double release_at(const struct sim *sm, unsigned int pos)
{
	return sm->tg->release[sm->order[pos]];
}

/* One copy engine: every HtD in order, then every DtH in order. */
static inline double copy_engine(struct sim *sm, double free)
{
	for (unsigned int pos = 0; pos < sm->n; pos++)
		if (task_at(sm, pos)->n[TQ_HTD])
			sm->hend[pos] = free = run_stage(sm, pos, TQ_HTD,
							 max_d(free, release_at(sm, pos)));
	place_kernels(sm, sm->n);
	for (unsigned int pos = 0; pos < sm->n; pos++)
		if (task_at(sm, pos)->n[TQ_DTH])
			free = run_stage(sm, pos, TQ_DTH, max_d(free, dth_ready(sm, sm->n, pos)));
	return free;
}

/* Move @q past tasks without a command in stage @s. */
static inline void seek(const struct sim *sm, struct tq_copyq *q, int s)
{
	while (q->pos < sm->n && q->c == task_at(sm, q->pos)->n[s]) {
		q->pos++;
		q->c = 0;
	}
	q->any = q->pos < sm->n;
}

static inline void start(const struct sim *sm, struct tq_copyq *q, int s, double now)
{
	q->run = true;
	q->start = now;
	q->rem = sm->tg->cmd_ns[task_at(sm, q->pos)->first[s] + q->c];
}

/* Retire @q's running command at @now and move to the next. */
static inline void retire(struct sim *sm, struct tq_copyq *q, int s, double now)
{
	record(sm, s, task_at(sm, q->pos)->first[s] + q->c, q->start, now);
	q->run = false;
	q->free = now;
	q->c++;
}

/*
 * Two copy engines: HtD and DtH progress at 1/slow while both run. Runs to
 * the end, or with @to_end false only until the HtD queue is empty.
 */
static inline void copy_engines(struct sim *sm, const struct tq_dev *dev, bool to_end)
{
	const double slow_h = dev->slow[TQ_HTD], slow_d = dev->slow[TQ_DTH];
	struct tq_copyq *h = &sm->h, *d = &sm->d;
	double now = sm->now;

	while (h->any || (to_end && d->any)) {
		double fh = 1, fd = 1, h_end = INFINITY, d_end = INFINITY, next;
		double d_ready = d->any ? max_d(d->free, dth_ready(sm, h->pos, d->pos)) : INFINITY;
		double h_ready = h->any && !h->c ? max_d(h->free, release_at(sm, h->pos)) : h->free;

		/* an HtD waits for its engine and its task's release; a DtH for its task's K */
		if (h->any && !h->run && h_ready <= now)
			start(sm, h, TQ_HTD, now);
		if (!d->run && d_ready <= now)
			start(sm, d, TQ_DTH, now);
		if (h->run && d->run) {
			fh = slow_h;
			fd = slow_d;
		}
		if (h->run)
			h_end = now + h->rem * fh;
		else if (h->any)
			h_end = h_ready;
		if (d->run)
			d_end = now + d->rem * fd;
		else
			d_end = d_ready;
		next = min_d(h_end, d_end);

		/* charge the progress up to @next, then retire what ends there */
		if (h->run && h_end != next)
			h->rem = max_d(0, h->rem - (next - now) / fh);
		if (d->run && d_end != next)
			d->rem = max_d(0, d->rem - (next - now) / fd);
		now = next;
		if (h->run && h_end == now) {
			retire(sm, h, TQ_HTD, now);
			if (h->c == task_at(sm, h->pos)->n[TQ_HTD])
				sm->hend[h->pos] = now;
			seek(sm, h, TQ_HTD);
			place_kernels(sm, h->pos);
		}
		if (d->run && d_end == now) {
			retire(sm, d, TQ_DTH, now);
			seek(sm, d, TQ_DTH);
		}
	}
	sm->now = now;
	if (to_end)
		place_kernels(sm, sm->n);	/* tasks after the last HtD */
}

/* Bring both copy queues and the K queue up to the tasks added to the order. */
static inline void copy_engines_seek(struct sim *sm)
{
	seek(sm, &sm->h, TQ_HTD);
	seek(sm, &sm->d, TQ_DTH);
	place_kernels(sm, sm->h.pos);	/* leading tasks without HtD */
}

/*
 * The core; @res == NULL skips the per-command record. Inlined into both
 * entry points so the makespan path carries no record branches.
 */
static inline __attribute__((always_inline)) double
simulate(const struct tq_tg *tg, const struct tq_dev *dev, const uint8_t *order,
	 unsigned int n, struct tq_sim_result *res)
{
	const double *busy = dev->busy_until;
	double hend[TQ_MAX_TASKS], kend[TQ_MAX_TASKS];
	struct sim sm = { .tg = tg, .order = order, .n = n, .res = res, .hend = hend,
			  .kend = kend, .kfree = busy[TQ_K] };

	for (unsigned int pos = 0; pos < n; pos++)
		hend[pos] = tg->release[order[pos]];
	if (res) {
		memset(res->busy, 0, sizeof(res->busy));
		for (unsigned int c = 0; c < tg->ncmds; c++)
			res->start[c] = res->end[c] = NAN;	/* tasks left out */
	}
	if (dev->dma == 2) {
		sm.h.free = busy[TQ_HTD];
		sm.d.free = busy[TQ_DTH];
		copy_engines_seek(&sm);
		copy_engines(&sm, dev, true);
		if (res) {
			res->engine_end[TQ_HTD] = sm.h.free;
			res->engine_end[TQ_DTH] = sm.d.free;
		}
	} else {
		double free = copy_engine(&sm, max_d(busy[TQ_HTD], busy[TQ_DTH]));

		if (res)
			res->engine_end[TQ_HTD] = res->engine_end[TQ_DTH] = free;
	}
	if (res) {
		res->engine_end[TQ_K] = sm.kfree;
		res->makespan = sm.makespan;
	}
	return sm.makespan;
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

/*
 * The prefix simulation: the event loop of simulate() cut where the HtD
 * queue runs dry and resumed when a task is appended. The same steps in the
 * same order, so the same makespan to the bit.
 */
static inline void prefix_load(struct sim *sm, const struct tq_tg *tg, struct tq_prefix_buf *buf,
			       const struct tq_prefix *p)
{
	*sm = (struct sim){ .tg = tg, .order = buf->order, .n = p->n, .hend = buf->hend,
			    .kend = buf->kend, .makespan = p->makespan, .kpos = p->kpos,
			    .kfree = p->kfree, .now = p->now, .h = p->h, .d = p->d };
}

static inline void prefix_store(const struct sim *sm, struct tq_prefix *p)
{
	p->n = sm->n;
	p->kpos = sm->kpos;
	p->now = sm->now;
	p->kfree = sm->kfree;
	p->makespan = sm->makespan;
	p->h = sm->h;
	p->d = sm->d;
}

void tq_prefix_init(struct tq_prefix *p, const struct tq_dev *dev)
{
	memset(p, 0, sizeof(*p));
	p->kfree = dev->busy_until[TQ_K];
	p->h.free = dev->busy_until[TQ_HTD];
	p->d.free = dev->busy_until[TQ_DTH];
}

void tq_prefix_push(const struct tq_tg *tg, const struct tq_dev *dev, struct tq_prefix_buf *buf,
		    struct tq_prefix *p, unsigned int task)
{
	struct sim sm;

	buf->order[p->n] = task;
	buf->hend[p->n] = tg->release[task];
	prefix_load(&sm, tg, buf, p);
	sm.n++;
	copy_engines_seek(&sm);
	copy_engines(&sm, dev, false);
	prefix_store(&sm, p);
}

double tq_prefix_finish(const struct tq_tg *tg, const struct tq_dev *dev,
			struct tq_prefix_buf *buf, const struct tq_prefix *p)
{
	struct sim sm;

	prefix_load(&sm, tg, buf, p);
	copy_engines(&sm, dev, true);
	return sm.makespan;
}
