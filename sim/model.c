// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the TG builder and the simulator.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model.h"

void tqsim_tg_init(struct tqsim_tg *tg)
{
	tg->ntasks = 0;
	tg->ncmds = 0;
	tg->nafter = 0;
}

int tqsim_tg_add_task(struct tqsim_tg *tg)
{
	struct tqsim_task *t;

	if (tg->ntasks >= TQSIM_MAX_TASKS)
		return -ENOSPC;
	t = &tg->task[tg->ntasks];
	memset(t, 0, sizeof(*t));
	for (int s = 0; s < TQSIM_STAGES; s++)
		t->first[s] = tg->ncmds;
	tg->release[tg->ntasks] = 0;
	tg->after[tg->ntasks] = -1;
	tg->kwidth[tg->ntasks] = 1;
	return tg->ntasks++;
}

int tqsim_tg_set_release(struct tqsim_tg *tg, unsigned int t, double ns)
{
	if (t >= tg->ntasks || !isfinite(ns) || ns < 0)
		return -EINVAL;
	tg->release[t] = ns;
	return 0;
}

int tqsim_tg_set_after(struct tqsim_tg *tg, unsigned int t, unsigned int pred)
{
	if (t >= tg->ntasks || pred >= t || tg->after[t] >= 0)
		return -EINVAL;
	tg->after[t] = pred;
	tg->nafter++;
	return 0;
}

int tqsim_tg_set_width(struct tqsim_tg *tg, unsigned int t, double w)
{
	if (t >= tg->ntasks || !(w > 0 && w <= 1))
		return -EINVAL;
	tg->kwidth[t] = w;
	return 0;
}

int tqsim_tg_add_cmd(struct tqsim_tg *tg, enum tqsim_stage s, double ns)
{
	struct tqsim_task *t;

	if (!tg->ntasks || (unsigned int)s >= TQSIM_STAGES || !isfinite(ns) || ns < 0)
		return -EINVAL;
	t = &tg->task[tg->ntasks - 1];
	/* the stage's commands must stay contiguous: no later stage begun yet */
	for (int later = s + 1; later < TQSIM_STAGES; later++)
		if (t->n[later])
			return -EINVAL;
	if (tg->ncmds >= TQSIM_MAX_CMDS || t->n[s] == UINT8_MAX)
		return -ENOSPC;
	if (!t->n[s])
		t->first[s] = tg->ncmds;
	tg->cmd_ns[tg->ncmds++] = ns;
	t->n[s]++;
	for (int later = s + 1; later < TQSIM_STAGES; later++)
		t->first[later] = tg->ncmds;
	return 0;
}

int tqsim_tg_add(struct tqsim_tg *tg, double htd_ns, double k_ns, double dth_ns)
{
	const double ns[TQSIM_STAGES] = { htd_ns, k_ns, dth_ns };
	int idx = tqsim_tg_add_task(tg);

	for (int s = 0; s < TQSIM_STAGES && idx >= 0; s++) {
		if (ns[s] != 0) {
			int ret = tqsim_tg_add_cmd(tg, s, ns[s]);

			if (ret) {
				tg->ntasks--;	/* drop the half-built task */
				tg->ncmds = tg->task[idx].first[0];
				return ret;
			}
		}
	}
	return idx;
}

double tqsim_task_work(const struct tqsim_tg *tg, unsigned int t, enum tqsim_stage s)
{
	const struct tqsim_task *task = &tg->task[t];
	double sum = 0;

	for (unsigned int c = 0; c < task->n[s]; c++)
		sum += tg->cmd_ns[task->first[s] + c];
	return sum;
}

void tqsim_dev_init(struct tqsim_dev *dev)
{
	memset(dev, 0, sizeof(*dev));
	dev->dma = 2;
	dev->kq = 1;
	for (int s = 0; s < TQSIM_STAGES; s++)
		dev->slow[s] = 1.0;
}

int tqsim_dev_check(const struct tqsim_dev *dev)
{
	if ((dev->dma != 1 && dev->dma != 2) || dev->kq < 1 || dev->kq > TQSIM_MAX_KQ ||
	    dev->kshare > TQSIM_SHARE_FIRST || !(isfinite(dev->kcost) && dev->kcost >= 0))
		return -EINVAL;
	for (unsigned int q = 1; q < dev->kq; q++)
		if (!isfinite(dev->kq_busy[q]) || dev->kq_busy[q] < 0)
			return -EINVAL;
	for (int s = 0; s < TQSIM_STAGES; s++) {
		if (!isfinite(dev->busy_until[s]) || dev->busy_until[s] < 0)
			return -EINVAL;
		if (s != TQSIM_K && !(dev->slow[s] >= 1.0 && isfinite(dev->slow[s])))
			return -EINVAL;
	}
	if (!(isfinite(dev->dep_ns) && dev->dep_ns >= 0 && isfinite(dev->gap_ns) &&
	      dev->gap_ns >= 0 && isfinite(dev->submit_ns) && dev->submit_ns >= 0))
		return -EINVAL;
	return 0;
}

/* When an engine busy until @busy may start its first command: gap_ns after, if it is busy. */
static inline double engine_free(double busy, double gap)
{
	return busy > 0 ? busy + gap : 0;
}

/*
 * The simulator's steps take @prec, whether the TG has precedence, as a
 * constant: inlined, they compile to a copy without it, as fast as before.
 */
#define SIM_STEP static inline __attribute__((always_inline))

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
 *
 * Latencies: an engine's free time includes gap_ns after its last command
 * (free, kfree), and hend, kend and dend hold a stage's end + dep_ns, when a
 * command waiting on it may start; a release is stored as is.
 *
 * Precedence (@prec): a task's first command also waits for the end
 * of its predecessor's last command (first_ready()), INFINITY while that is
 * unknown. A feasible order has the predecessor ahead in every queue, so its
 * end becomes known without the task's help. With one copy engine, the
 * copy FIFO takes the DtHs up to the predecessor's before the task's HtD,
 * which would otherwise wait for them forever.
 */
struct sim {
	const struct tqsim_tg *tg;
	const uint8_t *order;
	unsigned int n;
	struct tqsim_sim_result *res;	/* NULL: makespan only */
	double makespan;
	double dep, gap;		/* the device's latencies */
	/* per position, a stage's end + dep (struct tqsim_prefix_buf) */
	double *hend;			/* the HtD stage; the release until then or if absent */
	double *kend;			/* the K stage, once placed */
	double *dend;			/* the DtH stage, before d.pos */
	const int8_t *ppos;		/* @prec: per position, its predecessor's or -1 */
	unsigned int kpos;		/* tasks whose kernels are placed */
	double kfree;			/* the K engine may start a kernel from then on */
	double now;			/* two engines: the event loop's clock */
	struct tqsim_copyq h, d;		/* the copy queues; one engine: d.pos only */
};

static inline const struct tqsim_task *task_at(const struct sim *sm, unsigned int pos)
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
		sm->res->engine_end[s] = end;	/* an engine runs its commands in order */
	}
}

/*
 * When the task at @pos may start its first command: its release (hend
 * holds it until its HtD ends), and with precedence the end of its
 * predecessor's last command, INFINITY while unknown (the HtDs before
 * @hknown are known). A predecessor without commands ends when it may start.
 */
SIM_STEP double first_ready(const struct sim *sm, bool prec, unsigned int hknown,
			   unsigned int pos)
{
	double r = sm->hend[pos];

	if (!prec)
		return r;
	for (int p = sm->ppos[pos]; p >= 0; p = sm->ppos[p]) {
		const struct tqsim_task *t = task_at(sm, p);

		if (t->n[TQSIM_DTH])
			return max_d(r, (unsigned int)p < sm->d.pos ? sm->dend[p] : INFINITY);
		if (t->n[TQSIM_K])
			return max_d(r, (unsigned int)p < sm->kpos ? sm->kend[p] : INFINITY);
		if (t->n[TQSIM_HTD])
			return max_d(r, (unsigned int)p < hknown ? sm->hend[p] : INFINITY);
		r = max_d(r, sm->hend[p]);
	}
	return r;
}

/*
 * Place every kernel whose start is known: in FIFO order, as long as its
 * task has no HtD or its HtD ended (the tasks before @hknown), and a task
 * without HtD knows when it may start.
 */
SIM_STEP void place_kernels(struct sim *sm, bool prec, unsigned int hknown)
{
	for (; sm->kpos < sm->n; sm->kpos++) {
		const struct tqsim_task *t = task_at(sm, sm->kpos);
		double ready = sm->hend[sm->kpos];

		if (t->n[TQSIM_HTD] && sm->kpos >= hknown && t->n[TQSIM_K])
			break;
		if (prec && !t->n[TQSIM_HTD]) {
			ready = first_ready(sm, prec, hknown, sm->kpos);
			if (ready == INFINITY && t->n[TQSIM_K])
				break;
		}
		for (unsigned int c = 0; c < t->n[TQSIM_K]; c++) {
			double start = max_d(sm->kfree, ready);

			ready = start + sm->tg->cmd_ns[t->first[TQSIM_K] + c];
			sm->kfree = ready + sm->gap;
			record(sm, TQSIM_K, t->first[TQSIM_K] + c, start, ready);
		}
		/* read only when the task has kernels */
		sm->kend[sm->kpos] = ready + sm->dep;
	}
}

/*
 * When the DtH of the task at @pos may start, INFINITY while unknown: after
 * its kernels, else after its HtD (known for the tasks before @hknown).
 */
SIM_STEP double dth_ready(const struct sim *sm, bool prec, unsigned int hknown,
			  unsigned int pos)
{
	const struct tqsim_task *t = task_at(sm, pos);

	if (t->n[TQSIM_K])
		return pos < sm->kpos ? sm->kend[pos] : INFINITY;
	if (!t->n[TQSIM_HTD])
		return first_ready(sm, prec, hknown, pos);
	return pos < hknown ? sm->hend[pos] : INFINITY;
}

/* Run the (>= 1) commands of stage @s back to back from @start; returns the last end. */
static inline double run_stage(struct sim *sm, unsigned int pos, int s, double start)
{
	const struct tqsim_task *t = task_at(sm, pos);
	double end = start;

	for (unsigned int c = 0; c < t->n[s]; c++) {
		end = start + sm->tg->cmd_ns[t->first[s] + c];
		record(sm, s, t->first[s] + c, start, end);
		start = end + sm->gap;
	}
	return end;
}

/* One copy engine: the DtHs of the tasks before @upto, the HtDs before @hknown known. */
SIM_STEP double run_dths(struct sim *sm, bool prec, unsigned int hknown, unsigned int upto,
			 double free)
{
	place_kernels(sm, prec, hknown);
	for (; sm->d.pos < upto; sm->d.pos++) {
		if (task_at(sm, sm->d.pos)->n[TQSIM_DTH]) {
			double end = run_stage(sm, sm->d.pos, TQSIM_DTH,
					       max_d(free, dth_ready(sm, prec, hknown, sm->d.pos)));

			sm->dend[sm->d.pos] = end + sm->dep;
			free = end + sm->gap;
		}
	}
	return free;
}

/*
 * One copy engine: every HtD in order, then every DtH in order; with
 * precedence, the DtHs up to a task's predecessor's before its HtD.
 */
SIM_STEP double copy_engine(struct sim *sm, bool prec, double free)
{
	for (unsigned int pos = 0; pos < sm->n; pos++) {
		if (prec && sm->ppos[pos] >= (int)sm->d.pos)
			free = run_dths(sm, prec, pos, sm->ppos[pos] + 1, free);
		if (task_at(sm, pos)->n[TQSIM_HTD]) {
			double end = run_stage(sm, pos, TQSIM_HTD,
					       max_d(free, first_ready(sm, prec, pos, pos)));

			sm->hend[pos] = end + sm->dep;
			free = end + sm->gap;
		}
	}
	return run_dths(sm, prec, sm->n, sm->n, free);
}

/* Move @q past tasks without a command in stage @s. */
static inline void seek(const struct sim *sm, struct tqsim_copyq *q, int s)
{
	while (q->pos < sm->n && q->c == task_at(sm, q->pos)->n[s]) {
		q->pos++;
		q->c = 0;
	}
	q->any = q->pos < sm->n;
}

static inline void start(const struct sim *sm, struct tqsim_copyq *q, int s, double now)
{
	q->run = true;
	q->start = now;
	q->rem = sm->tg->cmd_ns[task_at(sm, q->pos)->first[s] + q->c];
}

/* Retire @q's running command at @now and move to the next. */
static inline void retire(struct sim *sm, struct tqsim_copyq *q, int s, double now)
{
	record(sm, s, task_at(sm, q->pos)->first[s] + q->c, q->start, now);
	q->run = false;
	q->free = now + sm->gap;
	q->c++;
}

/*
 * Two copy engines: HtD and DtH progress at 1/slow while both run. Runs to
 * the end, or with @to_end false only until the HtD queue is empty.
 */
SIM_STEP void copy_engines(struct sim *sm, bool prec, const struct tqsim_dev *dev, bool to_end)
{
	const double slow_h = dev->slow[TQSIM_HTD], slow_d = dev->slow[TQSIM_DTH];
	struct tqsim_copyq *h = &sm->h, *d = &sm->d;
	double now = sm->now;

	while (h->any || (to_end && d->any)) {
		double fh = 1, fd = 1, h_end = INFINITY, d_end = INFINITY, next;
		double d_ready = d->any ? max_d(d->free, dth_ready(sm, prec, h->pos, d->pos)) :
				 INFINITY;
		double h_ready = h->any && !h->c ?
				 max_d(h->free, first_ready(sm, prec, h->pos, h->pos)) : h->free;

		/* an HtD waits for its engine and its task's release; a DtH for its task's K */
		if (h->any && !h->run && h_ready <= now)
			start(sm, h, TQSIM_HTD, now);
		if (!d->run && d_ready <= now)
			start(sm, d, TQSIM_DTH, now);
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
			retire(sm, h, TQSIM_HTD, now);
			if (h->c == task_at(sm, h->pos)->n[TQSIM_HTD])
				sm->hend[h->pos] = now + sm->dep;
			seek(sm, h, TQSIM_HTD);
			place_kernels(sm, prec, h->pos);
		}
		if (d->run && d_end == now) {
			retire(sm, d, TQSIM_DTH, now);
			if (prec && d->c == task_at(sm, d->pos)->n[TQSIM_DTH]) {
				sm->dend[d->pos] = now + sm->dep;
				seek(sm, d, TQSIM_DTH);
				/* a kernel may wait for this end */
				place_kernels(sm, prec, h->pos);
			} else {
				seek(sm, d, TQSIM_DTH);
			}
		}
	}
	sm->now = now;
	if (to_end)
		place_kernels(sm, prec, sm->n);	/* tasks after the last HtD */
}

/* Bring both copy queues and the K queue up to the tasks added to the order. */
SIM_STEP void copy_engines_seek(struct sim *sm, bool prec)
{
	seek(sm, &sm->h, TQSIM_HTD);
	seek(sm, &sm->d, TQSIM_DTH);
	place_kernels(sm, prec, sm->h.pos);	/* leading tasks without HtD */
}

/*
 * The core; @res == NULL skips the per-command record. Inlined into both
 * entry points so the makespan path carries no record branches, and once
 * per value of @prec.
 */
SIM_STEP double simulate(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
			 unsigned int n, struct tqsim_sim_result *res, bool prec)
{
	const double *busy = dev->busy_until;
	double hend[TQSIM_MAX_TASKS], kend[TQSIM_MAX_TASKS], dend[TQSIM_MAX_TASKS];
	int8_t ppos[TQSIM_MAX_TASKS];
	struct sim sm = { .tg = tg, .order = order, .n = n, .res = res, .hend = hend,
			  .kend = kend, .dend = dend, .dep = dev->dep_ns, .gap = dev->gap_ns,
			  .kfree = engine_free(busy[TQSIM_K], dev->gap_ns) };

	if (res) {
		memset(res->busy, 0, sizeof(res->busy));
		memcpy(res->engine_end, busy, sizeof(res->engine_end));	/* record() moves them */
		for (unsigned int c = 0; c < tg->ncmds; c++)
			res->start[c] = res->end[c] = NAN;	/* tasks left out */
	}
	if (prec) {
		if (!sim_chain_positions(tg, order, n, ppos)) {
			if (res) {
				for (int s = 0; s < TQSIM_STAGES; s++)
					res->engine_end[s] = INFINITY;
				res->makespan = INFINITY;
			}
			return INFINITY;
		}
		sm.ppos = ppos;
		for (unsigned int pos = 0; pos < n; pos++)
			dend[pos] = INFINITY;	/* read only once run; this keeps gcc quiet */
	}
	sim_releases(tg, dev, order, n, ppos, prec, hend);
	if (dev->dma == 2) {
		sm.h.free = engine_free(busy[TQSIM_HTD], sm.gap);
		sm.d.free = engine_free(busy[TQSIM_DTH], sm.gap);
		copy_engines_seek(&sm, prec);
		copy_engines(&sm, prec, dev, true);
	} else {
		copy_engine(&sm, prec, engine_free(max_d(busy[TQSIM_HTD], busy[TQSIM_DTH]), sm.gap));
		/* one engine: its last command, else its busy time */
		if (res)
			res->engine_end[TQSIM_HTD] = res->engine_end[TQSIM_DTH] =
				max_d(max_d(res->engine_end[TQSIM_HTD], res->engine_end[TQSIM_DTH]),
				      max_d(busy[TQSIM_HTD], busy[TQSIM_DTH]));
	}
	if (res) {
		res->makespan = sm.makespan;
		res->kq_end[0] = res->engine_end[TQSIM_K];
	}
	return sm.makespan;
}

void tqsim_simulate(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		 const uint8_t *order, unsigned int n, struct tqsim_sim_result *res)
{
	if (dev->kq > 1)
		sim_concurrent(tg, dev, order, n, res);
	else if (tg->nafter)
		simulate(tg, dev, order, n, res, true);
	else
		simulate(tg, dev, order, n, res, false);
}

double tqsim_task_end(const struct tqsim_tg *tg, const struct tqsim_sim_result *res,
		      unsigned int t)
{
	const struct tqsim_task *tk = &tg->task[t];
	double end = 0;

	for (int s = 0; s < TQSIM_STAGES; s++)
		for (unsigned int c = tk->first[s]; c < (unsigned int)tk->first[s] + tk->n[s]; c++)
			end = fmax(end, res->end[c]);
	return end;
}

double tqsim_makespan(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		   const uint8_t *order, unsigned int n)
{
	if (dev->kq > 1)
		return sim_concurrent(tg, dev, order, n, NULL);
	return tg->nafter ? simulate(tg, dev, order, n, NULL, true) :
			    simulate(tg, dev, order, n, NULL, false);
}

/*
 * The prefix simulation: the event loop of simulate() cut where the HtD
 * queue runs dry and resumed when a task is appended. The same steps in the
 * same order, so the same makespan to the bit.
 */
static inline void prefix_load(struct sim *sm, const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			       struct tqsim_prefix_buf *buf, const struct tqsim_prefix *p)
{
	*sm = (struct sim){ .tg = tg, .order = buf->order, .n = p->n, .hend = buf->hend,
			    .kend = buf->kend, .dend = buf->dend,
			    .dep = dev->dep_ns, .gap = dev->gap_ns,
			    .ppos = buf->ppos, .makespan = p->makespan, .kpos = p->kpos,
			    .kfree = p->kfree, .now = p->now, .h = p->h, .d = p->d };
}

static inline void prefix_store(const struct sim *sm, struct tqsim_prefix *p)
{
	p->n = sm->n;
	p->kpos = sm->kpos;
	p->now = sm->now;
	p->kfree = sm->kfree;
	p->makespan = sm->makespan;
	p->h = sm->h;
	p->d = sm->d;
}

void tqsim_prefix_init(struct tqsim_prefix *p, const struct tqsim_dev *dev)
{
	memset(p, 0, sizeof(*p));
	p->kfree = engine_free(dev->busy_until[TQSIM_K], dev->gap_ns);
	p->h.free = engine_free(dev->busy_until[TQSIM_HTD], dev->gap_ns);
	p->d.free = engine_free(dev->busy_until[TQSIM_DTH], dev->gap_ns);
}

void tqsim_prefix_push(const struct tqsim_tg *tg, const struct tqsim_dev *dev, struct tqsim_prefix_buf *buf,
		    struct tqsim_prefix *p, unsigned int task)
{
	const struct tqsim_task *t = &tg->task[task];
	struct sim sm;

	buf->order[p->n] = task;
	/* two copy engines: every command of the tasks before it, as releases() */
	buf->hend[p->n] = max_d(tg->release[task], p->launch);
	p->launch += dev->submit_ns * (t->n[TQSIM_HTD] + t->n[TQSIM_K] + t->n[TQSIM_DTH]);
	if (tg->nafter) {
		int a = tg->after[task], pos = -1;

		/* its nearest ancestor in the prefix, as sim_chain_positions() */
		for (; a >= 0 && pos < 0; a = tg->after[a])
			for (pos = p->n - 1; pos >= 0 && buf->order[pos] != a; pos--)
				;
		buf->ppos[p->n] = pos;
	}
	prefix_load(&sm, tg, dev, buf, p);
	sm.n++;
	if (tg->nafter) {
		copy_engines_seek(&sm, true);
		copy_engines(&sm, true, dev, false);
	} else {
		copy_engines_seek(&sm, false);
		copy_engines(&sm, false, dev, false);
	}
	prefix_store(&sm, p);
}

double tqsim_prefix_finish(const struct tqsim_tg *tg, const struct tqsim_dev *dev,
			struct tqsim_prefix_buf *buf, const struct tqsim_prefix *p)
{
	struct sim sm;

	prefix_load(&sm, tg, dev, buf, p);
	if (tg->nafter)
		copy_engines(&sm, true, dev, true);
	else
		copy_engines(&sm, false, dev, true);
	return sm.makespan;
}
