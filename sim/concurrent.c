// SPDX-License-Identifier: GPL-2.0
/*
 * concurrent.c - the simulator for a device whose kernels run at once
 * (tqsim_dev.kq > 1, tqsim.h): every queue an in-order list of stages, and one
 * event loop over all of them. Kernels share the device by their shares
 * (width or demand, fairly or first come first served, tqsim.h's struct
 * tqsim_dev), so a kernel's end depends on every kernel that starts
 * before it, and the K stage is no longer the recurrence model.c computes
 * ahead of the copies.
 *
 * The same rules as model.c's otherwise: a command waits for its queue
 * (gap_ns after the previous one), for the stage before it in its task
 * (dep_ns after), a task's first command for its release and for its
 * predecessor's last (dep_ns after); HtD and DtH slow each other down on two
 * copy engines; one copy engine runs every HtD, then every DtH (those up to
 * a predecessor's before its successor's HtD). With one kernel queue it
 * gives model.c's makespans (sim/tests/model.c checks that), just slower.
 */
#include <math.h>
#include <string.h>

#include "model.h"

/* One in-order queue: the stages it runs, in order, and how far it is. */
struct queue {
	uint8_t pos[2 * TQSIM_MAX_TASKS];		/* the entry's task, as a position in the order */
	uint8_t stage[2 * TQSIM_MAX_TASKS];	/* and its stage */
	unsigned int len, head;
	unsigned int c;		/* the head's command within its stage */
	unsigned int kq;	/* a kernel queue's index */
	bool run;		/* the head's command is running */
	double rem;		/* standalone ns left of it */
	double start;
	double free;		/* the queue may start a command from then on */
};

struct csim {
	const struct tqsim_tg *tg;
	const uint8_t *order;
	struct tqsim_sim_result *res;
	bool prec;
	double dep, gap, makespan;
	/* per position: its release, and a stage's end + dep_ns (INFINITY: not yet) */
	double rel[TQSIM_MAX_TASKS], hend[TQSIM_MAX_TASKS], kend[TQSIM_MAX_TASKS], dend[TQSIM_MAX_TASKS];
	int8_t ppos[TQSIM_MAX_TASKS];
	unsigned int nq;
	struct queue q[2 + TQSIM_MAX_KQ];
};

static inline const struct tqsim_task *task_at(const struct csim *sm, unsigned int pos)
{
	return &sm->tg->task[sm->order[pos]];
}

static void push(struct queue *q, unsigned int pos, int s)
{
	q->pos[q->len] = pos;
	q->stage[q->len++] = s;
}

/* When an engine busy until @busy may start its first command. */
static double engine_free(double busy, double gap)
{
	return busy > 0 ? busy + gap : 0;
}

/* When the task at @pos may start its first command: its release and its chain. */
static double first_ready(const struct csim *sm, unsigned int pos)
{
	double r = sm->rel[pos];

	for (int p = sm->prec ? sm->ppos[pos] : -1; p >= 0; p = sm->ppos[p]) {
		const struct tqsim_task *t = task_at(sm, p);

		if (t->n[TQSIM_DTH])
			return max_d(r, sm->dend[p]);
		if (t->n[TQSIM_K])
			return max_d(r, sm->kend[p]);
		if (t->n[TQSIM_HTD])
			return max_d(r, sm->hend[p]);
		r = max_d(r, sm->rel[p]);	/* a predecessor without commands */
	}
	return r;
}

/* When the head of @q, not running, may start; INFINITY while that is unknown. */
static double head_ready(const struct csim *sm, const struct queue *q)
{
	unsigned int pos = q->pos[q->head];
	const struct tqsim_task *t = task_at(sm, pos);
	double dep;

	if (q->c)
		return q->free;
	if (q->stage[q->head] == TQSIM_HTD || (q->stage[q->head] == TQSIM_K && !t->n[TQSIM_HTD]) ||
	    (q->stage[q->head] == TQSIM_DTH && !t->n[TQSIM_K] && !t->n[TQSIM_HTD]))
		dep = first_ready(sm, pos);
	else if (q->stage[q->head] == TQSIM_K || !t->n[TQSIM_K])
		dep = sm->hend[pos];
	else
		dep = sm->kend[pos];
	return max_d(q->free, dep);
}

static unsigned int head_cmd(const struct csim *sm, const struct queue *q)
{
	return task_at(sm, q->pos[q->head])->first[q->stage[q->head]] + q->c;
}

static void retire(struct csim *sm, struct queue *q, double now)
{
	unsigned int pos = q->pos[q->head];
	int s = q->stage[q->head];
	struct tqsim_sim_result *res = sm->res;

	sm->makespan = max_d(sm->makespan, now);
	if (res) {
		unsigned int cmd = head_cmd(sm, q);

		res->start[cmd] = q->start;
		res->end[cmd] = now;
		res->busy[s] += now - q->start;
		res->engine_end[s] = max_d(res->engine_end[s], now);
		if (s == TQSIM_K)
			res->kq_end[q->kq] = now;
	}
	q->run = false;
	q->free = now + sm->gap;
	if (++q->c < task_at(sm, pos)->n[s])
		return;
	if (s == TQSIM_HTD)
		sm->hend[pos] = now + sm->dep;
	else if (s == TQSIM_K)
		sm->kend[pos] = now + sm->dep;
	else
		sm->dend[pos] = now + sm->dep;
	q->head++;
	q->c = 0;
}

/* The queues' entries: the copy queue(s), then the kernel queues round-robin. */
static void build_queues(struct csim *sm, const struct tqsim_dev *dev, unsigned int n)
{
	const double *busy = dev->busy_until;
	unsigned int nk = 0, outs = 0;

	memset(sm->q, 0, sizeof(sm->q));
	sm->nq = dev->dma + dev->kq;
	if (dev->dma == 2) {
		sm->q[0].free = engine_free(busy[TQSIM_HTD], sm->gap);
		sm->q[1].free = engine_free(busy[TQSIM_DTH], sm->gap);
	} else {
		sm->q[0].free = engine_free(max_d(busy[TQSIM_HTD], busy[TQSIM_DTH]), sm->gap);
	}
	for (unsigned int k = 0; k < dev->kq; k++) {
		struct queue *q = &sm->q[dev->dma + k];

		q->kq = k;
		q->free = engine_free(k ? dev->kq_busy[k] : busy[TQSIM_K], sm->gap);
	}
	for (unsigned int pos = 0; pos < n; pos++) {
		const struct tqsim_task *t = task_at(sm, pos);

		/* one copy engine: the DtHs up to a predecessor's go before its successor */
		for (; dev->dma == 1 && sm->prec && (int)outs <= sm->ppos[pos]; outs++)
			if (task_at(sm, outs)->n[TQSIM_DTH])
				push(&sm->q[0], outs, TQSIM_DTH);
		if (t->n[TQSIM_HTD])
			push(&sm->q[0], pos, TQSIM_HTD);
		if (t->n[TQSIM_K])
			push(&sm->q[dev->dma + nk++ % dev->kq], pos, TQSIM_K);
		if (t->n[TQSIM_DTH] && dev->dma == 2)
			push(&sm->q[1], pos, TQSIM_DTH);
	}
	for (; dev->dma == 1 && outs < n; outs++)
		if (task_at(sm, outs)->n[TQSIM_DTH])
			push(&sm->q[0], outs, TQSIM_DTH);
}

static double share_of(const struct csim *sm, const struct queue *q)
{
	return sm->tg->kwidth[sm->order[q->pos[q->head]]];
}

/*
 * TQSIM_SHARE_FIRST: the running kernels' slowdowns into @f, each kernel
 * served in the order it started (a lower queue first at the same start)
 * from what those before it leave of the device. A kernel left nothing
 * waits (INFINITY).
 */
static void first_served(const struct csim *sm, const struct tqsim_dev *dev, double *f)
{
	bool done[2 + TQSIM_MAX_KQ] = { false };
	double left = 1;

	for (;;) {
		const struct queue *q;
		int at = -1;
		double rate;

		for (unsigned int i = dev->dma; i < sm->nq; i++)
			if (sm->q[i].run && !done[i] && (at < 0 || sm->q[i].start < sm->q[at].start))
				at = i;
		if (at < 0)
			return;
		q = &sm->q[at];
		done[at] = true;
		rate = min_d(1, left / share_of(sm, q));
		f[at] = rate > 0 ? 1 / rate : INFINITY;
		left = max_d(0, left - rate * share_of(sm, q));
	}
}

/*
 * The kernels' slowdowns into @f (standalone time over time taken) for
 * the @nk running kernels of total share @width (tqsim.h, struct tqsim_dev).
 */
static void kernel_rates(const struct csim *sm, const struct tqsim_dev *dev, unsigned int nk,
			 double width, double *f)
{
	double cost = nk > 1 ? 1 + dev->kcost : 1;

	if (dev->kshare == TQSIM_SHARE_FIRST) {
		first_served(sm, dev, f);
		for (unsigned int i = dev->dma; i < sm->nq; i++)
			f[i] *= cost;
		return;
	}
	for (unsigned int i = dev->dma; i < sm->nq; i++)
		f[i] = max_d(1, width) * cost;
}

/*
 * The event loop: start every head that may start now, give each running
 * command its rate, step to the next end or start, charge the progress and
 * retire what ends there.
 */
static void run(struct csim *sm, const struct tqsim_dev *dev)
{
	double now = 0, f[2 + TQSIM_MAX_KQ], end[2 + TQSIM_MAX_KQ];

	for (;;) {
		double width = 0, next = INFINITY;
		unsigned int nk = 0;
		bool copies = true;

		for (unsigned int i = 0; i < sm->nq; i++) {
			struct queue *q = &sm->q[i];

			if (q->head < q->len && !q->run && head_ready(sm, q) <= now) {
				q->run = true;
				q->start = now;
				q->rem = sm->tg->cmd_ns[head_cmd(sm, q)];
			}
			if (i < dev->dma) {
				copies &= q->run;
			} else if (q->run) {
				width += share_of(sm, q);
				nk++;
			}
		}
		kernel_rates(sm, dev, nk, width, f);
		for (unsigned int i = 0; i < sm->nq; i++) {
			struct queue *q = &sm->q[i];

			end[i] = INFINITY;
			if (q->head >= q->len)
				continue;
			if (i < dev->dma)	/* a kernel's: kernel_rates() */
				f[i] = dev->dma == 2 && copies ? dev->slow[q->stage[q->head]] : 1;
			if (!q->run)
				end[i] = head_ready(sm, q);
			else	/* a kernel left nothing of the device waits */
				end[i] = f[i] < INFINITY ? now + q->rem * f[i] : q->rem > 0 ? INFINITY : now;
			if (end[i] < next)
				next = end[i];
		}
		if (next == INFINITY)
			break;
		for (unsigned int i = 0; i < sm->nq; i++) {
			struct queue *q = &sm->q[i];

			if (!q->run)
				continue;
			if (end[i] == next)
				retire(sm, q, next);
			else
				q->rem = max_d(0, q->rem - (next - now) / f[i]);
		}
		now = next;
	}
}

double sim_concurrent(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
		      unsigned int n, struct tqsim_sim_result *res)
{
	const double *busy = dev->busy_until;
	struct csim sm = { .tg = tg, .order = order, .res = res, .prec = tg->nafter != 0,
			   .dep = dev->dep_ns, .gap = dev->gap_ns };
	bool feasible = !sm.prec || sim_chain_positions(tg, order, n, sm.ppos);

	if (res) {
		memset(res->busy, 0, sizeof(res->busy));
		memcpy(res->engine_end, busy, sizeof(res->engine_end));
		res->kq_end[0] = busy[TQSIM_K];
		for (unsigned int k = 1; k < dev->kq; k++) {
			res->kq_end[k] = dev->kq_busy[k];
			res->engine_end[TQSIM_K] = max_d(res->engine_end[TQSIM_K], dev->kq_busy[k]);
		}
		for (unsigned int c = 0; c < tg->ncmds; c++)
			res->start[c] = res->end[c] = NAN;
	}
	if (feasible) {
		sim_releases(tg, dev, order, n, sm.ppos, sm.prec, sm.rel);
		for (unsigned int pos = 0; pos < n; pos++)
			sm.hend[pos] = sm.kend[pos] = sm.dend[pos] = INFINITY;
		build_queues(&sm, dev, n);
		run(&sm, dev);
		/* a queue left waiting: the order deadlocks (cannot happen when feasible) */
		for (unsigned int i = 0; i < sm.nq; i++)
			feasible &= sm.q[i].head == sm.q[i].len;
	}
	if (!feasible) {
		sm.makespan = INFINITY;
		if (res)
			for (int s = 0; s < TQSIM_STAGES; s++)
				res->engine_end[s] = INFINITY;
	}
	if (res) {
		res->makespan = sm.makespan;
		if (dev->dma == 1)
			res->engine_end[TQSIM_HTD] = res->engine_end[TQSIM_DTH] =
				max_d(max_d(res->engine_end[TQSIM_HTD], res->engine_end[TQSIM_DTH]),
				      max_d(busy[TQSIM_HTD], busy[TQSIM_DTH]));
	}
	return sm.makespan;
}
