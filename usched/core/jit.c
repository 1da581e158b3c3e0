// SPDX-License-Identifier: GPL-2.0
/*
 * jit.c - the launch decision: when the next TG is needed (4), by
 * jit_when() or the flow policy's jit_when_flow(), from what jit_gather()
 * reads of the core; kq_place() lays the kernel queues out for the model.
 * Numbers in parentheses name the sections of the essay at the top of core.c.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

/* The kernel queue free first, of @nq whose predicted ends are @busy. */
static unsigned int kq_first(const uint64_t *busy, unsigned int nq)
{
	unsigned int first = 0;

	for (unsigned int q = 1; q < nq; q++)
		if (busy[q] < busy[first])
			first = q;
	return first;
}

/*
 * The kernel queues' predicted ends @busy (host ns) into @d relative to @at:
 * the queue free first as the model's queue 0 (busy_until[TQSIM_K]), the others
 * after it round-robin in kq_busy[], as exec_launch() sends a TG's kernels.
 * Returns the queue free first.
 */
unsigned int kq_place(const uint64_t *busy, unsigned int nq, uint64_t at, struct tqsim_dev *d)
{
	unsigned int base = kq_first(busy, nq);

	for (unsigned int i = 0; i < nq; i++) {
		uint64_t b = busy[(base + i) % nq];
		double rel = b > at ? (double)(b - at) : 0;

		if (i)
			d->kq_busy[i] = rel;
		else
			d->busy_until[TQSIM_K] = rel;
	}
	return base;
}

/* When the kernels' engine first has room: with kernel queues, the queue free first. */
static uint64_t kernels_free(const struct jit_in *in)
{
	return in->kqueues > 1 ? in->kq_busy[kq_first(in->kq_busy, in->kqueues)] :
				 in->busy[USCHED_K];
}

/*
 * The launch decision (4). The next TG is needed by the time the work in
 * flight stops feeding the engine that needs it last: an engine s idles
 * from busy[s] unless the next TG's first command on s is queued, and that
 * command can start first[s] after the TG does (its HtD copies come before
 * its kernels, its kernels before its DtH copies); with kernel queues, the
 * kernels' engine idles from the queue free first. An engine that runs dry
 * earlier is held up by the one before it anyway. Launch lead_ns before
 * that time, at once on an idle device or with a full TG, and never past
 * TG_MAX_INFLIGHT TGs in flight.
 */
uint64_t jit_when(const struct jit_in *in)
{
	double need = 0;

	if (!in->ready || in->inflight >= TG_MAX_INFLIGHT)
		return JIT_WAIT;
	if (!in->inflight || in->ready >= in->max_tg)
		return 0;
	for (int s = 0; s < USCHED_STAGES; s++) {
		uint64_t busy = s == USCHED_K ? kernels_free(in) : in->busy[s];

		need = fmax(need, (double)busy - in->first[s]);
	}
	if (need <= (double)in->now + in->lead_ns)
		return 0;
	return (uint64_t)need - in->lead_ns;
}

/*
 * The flow policy's launch (4): hold the next TG back only while that
 * costs its tasks nothing. A task launched at L ends no earlier than L plus
 * its end on an idle device, e0; launched now it ends at e1. While the
 * model's engines keep it waiting anyway, e1 - e0 is the launch's slack:
 * launching within it changes none of its times, so tasks arriving
 * meanwhile join the TG for free. jit_when() instead waits for the engine
 * that needs work last, which lets a copy-heavy task's HtD copy wait while
 * its engine idles and then hold up its kernel.
 */
uint64_t jit_when_flow(const struct jit_in *in, const struct tqsim_tg *tg, const struct tqsim_dev *dev,
		       struct tqsim_sim_result *res)
{
	static const uint8_t fifo[TQSIM_MAX_TASKS] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
		22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,
		42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
		62, 63 };
	double e1[TQSIM_MAX_TASKS], slack = INFINITY;
	struct tqsim_dev d = *dev;

	if (!in->ready || in->inflight >= TG_MAX_INFLIGHT)
		return JIT_WAIT;
	if (!in->inflight || in->ready >= in->max_tg || !tg->ntasks)
		return 0;
	for (int s = 0; s < USCHED_STAGES; s++)
		d.busy_until[s] = in->busy[s] > in->now ? (double)(in->busy[s] - in->now) : 0;
	/* a kernel may start on the queue free first, not after the latest one */
	if (d.kq > 1 && in->kqueues == d.kq)
		kq_place(in->kq_busy, d.kq, in->now, &d);
	tqsim_simulate(tg, &d, fifo, tg->ntasks, res);
	for (unsigned int i = 0; i < tg->ntasks; i++)
		e1[i] = tqsim_task_end(tg, res, i);
	memset(d.busy_until, 0, sizeof(d.busy_until));
	memset(d.kq_busy, 0, sizeof(d.kq_busy));
	tqsim_simulate(tg, &d, fifo, tg->ntasks, res);
	for (unsigned int i = 0; i < tg->ntasks; i++)
		slack = fmin(slack, e1[i] - tqsim_task_end(tg, res, i));
	if (!(slack > in->lead_ns))
		return 0;
	return in->now + (uint64_t)slack - in->lead_ns;
}

/*
 * The flow policy's candidates for the next TG, into u->jit_tg: the ready
 * tasks round-robin over owners, as tg_form() takes them (the ordered
 * successors it would make ready left out); under u->lock.
 */
static void jit_gather_flow(struct usched *u, unsigned int max, unsigned int top)
{
	struct tqsim_tg *tg = &u->jit_tg;
	bool more = true;

	tqsim_tg_init(tg);
	for (unsigned int depth = 0; more && tg->ntasks < max; depth++) {
		struct list *p, *n;

		more = false;
		list_for_each_safe(p, n, &u->owners) {
			struct owner *o = list_entry(p, struct owner, node);
			struct list *q = o->ready[top].next;
			struct task *t;

			for (unsigned int k = 0; k < depth && q != &o->ready[top]; k++)
				q = q->next;
			if (q == &o->ready[top])
				continue;
			t = list_entry(q, struct task, node);
			model_predict(u, t);
			tqsim_tg_add(tg, t->pred[USCHED_HTD], t->pred[USCHED_K], t->pred[USCHED_DTH]);
			more = true;
			if (tg->ntasks == max)
				break;
		}
	}
}

/*
 * jit_when()'s inputs, from the highest class ready (10); under u->lock.
 * While a class above it is active, when every engine has at most
 * prio_ahead left (in->not_before).
 */
void jit_gather(struct usched *u, struct jit_in *in)
{
	int top = ready_top(u);
	unsigned int seen = 0;
	struct list *p, *n;

	in->now = tq_now_ns();
	in->inflight = u->ninflight;
	in->ready = u->nready;
	in->max_tg = u->st.max_tg;
	in->lead_ns = u->o.lead_us ? u->o.lead_us * 1000ull :
		      (uint64_t)fmin(LEAD_MARGIN_NS + 2 * u->host_ns, LEAD_MAX_NS);
	for (int s = 0; s < USCHED_STAGES; s++)
		in->busy[s] = u->busy_abs[s] + u->drift;
	in->kqueues = u->o.kqueues;
	for (unsigned int q = 0; q < u->o.kqueues; q++)
		in->kq_busy[q] = u->kq_busy_abs[q] + u->drift;
	in->first[USCHED_HTD] = 0;
	in->first[USCHED_K] = in->first[USCHED_DTH] = INFINITY;
	in->not_before = 0;
	in->throttled = top >= 0 && prio_above_active(u, top, in->now);
	if (in->throttled && u->ninflight) {
		uint64_t end = 0;

		for (int s = 0; s < USCHED_STAGES; s++)
			end = in->busy[s] > end ? in->busy[s] : end;
		if (end > in->now + u->ahead_ns)
			in->not_before = end - u->ahead_ns;
	}
	if (!in->ready || !in->inflight || in->ready >= in->max_tg)
		return;		/* the answer does not depend on first[] */
	if (u->flow) {
		jit_gather_flow(u, in->max_tg, top);
		return;
	}
	/* The tasks the next TG can start with: each owner's first ready one. */
	list_for_each_safe(p, n, &u->owners) {
		struct owner *o = list_entry(p, struct owner, node);
		struct task *t;

		if (list_empty(&o->ready[top]))
			continue;
		t = list_first(&o->ready[top], struct task, node);
		model_predict(u, t);
		in->first[USCHED_K] = fmin(in->first[USCHED_K], t->pred[USCHED_HTD]);
		if (t->pred[USCHED_DTH] > 0)
			in->first[USCHED_DTH] = fmin(in->first[USCHED_DTH],
						     t->pred[USCHED_HTD] + t->pred[USCHED_K]);
		if (++seen == in->max_tg)
			break;
	}
}
