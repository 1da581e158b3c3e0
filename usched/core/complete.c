// SPDX-License-Identifier: GPL-2.0
/*
 * complete.c - the completion path (5, 7): a task back from the device is
 * collected (after its callback, by polling or by the watchdog), its TG's
 * accounting closed, its owner's bookkeeping done and its completion
 * delivered.
 * Numbers in parentheses name the sections of the essay at the top of core.c.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * A TG's last task is collected: the copy model learns from its copies,
 * and its stats are counted and told (opts.tg_done).
 */
static void tg_finish(struct usched *u, struct tg *tg)
{
	struct usched_tg_stat ts;
	double measured = 0;
	unsigned int i;

	for (i = 0; u->inflight[i] != tg; i++)
		;
	memmove(&u->inflight[i], &u->inflight[i + 1], (--u->ninflight - i) * sizeof(tg));
	u->inflight_bytes -= tg->bytes;
	if (tg->last_end > tg->first_start && tg->first_start)
		measured = tg->last_end - tg->first_start;
	/* the copy model (model.c): with one engine nothing overlaps */
	for (int d = 0; d < 2 && u->dev.dma == 2; d++) {
		xmodel_learn(&u->xm[d], tg->copy[d], tg->ncopy[d], tg->copy[!d], tg->ncopy[!d]);
		u->dev.slow[d ? TQSIM_DTH : TQSIM_HTD] = u->xm[d].slow;
	}
	ts = (struct usched_tg_stat){
		.seq = tg->seq, .ntasks = tg->n, .inflight = tg->inflight,
		.predicted_ns = tg->pred_ns, .measured_ns = measured,
		.policy_ns = tg->policy_ns, .host_ns = tg->host_ns, .launch_ns = tg->launch_ns,
		.start_ns = tg->first_start, .end_ns = tg->last_end, .plan = tg->plan,
	};
	for (int s = 0; s < USCHED_STAGES; s++) {
		ts.pred_stage_ns[s] = tg->pred_stage[s];
		ts.busy_stage_ns[s] = tg->busy_stage[s];
	}
	trace_tg_done(u, tg);
	free(tg);

	pthread_mutex_lock(&u->lock);
	u->st.tgs++;
	u->st.policy_ns += ts.policy_ns;
	u->st.planned[ts.plan]++;
	u->st.last = ts;
	u->st.copy_slow[0] = u->dev.slow[TQSIM_HTD];
	u->st.copy_slow[1] = u->dev.slow[TQSIM_DTH];
	if (measured) {
		u->st.predicted_ns_sum += ts.predicted_ns;
		u->st.measured_ns_sum += measured;
		u->st.abs_err_sum += fabs(ts.predicted_ns / measured - 1);
		for (int s = 0; s < USCHED_STAGES; s++) {
			u->st.pred_stage_ns_sum[s] += ts.pred_stage_ns[s];
			u->st.busy_stage_ns_sum[s] += ts.busy_stage_ns[s];
		}
	}
	pthread_mutex_unlock(&u->lock);
	if (u->o.tg_done)
		u->o.tg_done(u->o.tg_arg, &ts);
}

/* A launched task is back: timestamps, buffers, its TG's accounting. */
void task_collect(struct usched *u, struct task *t)
{
	struct tg *tg = t->tg;

	exec_collect(u, t);
	u->limited -= t->limit_ns != 0;
	/* What runs behind it is as late as it is (4). */
	if (t->c.end_ns)
		u->drift = (int64_t)(t->c.end_ns - t->pred_end);
	if (t->c.start_ns && (!tg->first_start || t->c.start_ns < tg->first_start))
		tg->first_start = t->c.start_ns;
	if (t->c.end_ns > tg->last_end)
		tg->last_end = t->c.end_ns;
	for (int s = 0; s < USCHED_STAGES; s++) {
		tg->pred_stage[s] += t->c.pred_ns[s];
		tg->busy_stage[s] += t->c.busy_ns[s];
	}
	for (int d = 0; d < 2 && !t->c.status; d++) {
		int s = d ? USCHED_DTH : USCHED_HTD;

		if (t->c.stage_start[s] && t->c.stage_end[s] > t->c.stage_start[s])
			tg->copy[d][tg->ncopy[d]++] = (struct tg_copy){
				t->c.stage_start[s], t->c.stage_end[s], t->pred[s] };
	}
	for (unsigned int i = 0; i < tg->n; i++)
		if (tg->task[i] == t)
			tg->task[i] = NULL;	/* poll_done() looks at those left */
	t->tg = NULL;
	if (!--tg->left)
		tg_finish(u, tg);
}

/*
 * A task of a TG in flight that polling may complete: not yet collected,
 * and not one completed at launch without its events (it has no callback).
 */
static bool pollable(const struct task *t)
{
	return t && !t->err && t->nev;
}

/* When the model says t's last command ends (4), corrected by the drift. */
static uint64_t predicted_end(const struct usched *u, const struct task *t)
{
	return t->pred_end + u->drift;
}

/*
 * Append the tasks in flight whose predicted end has passed and whose last
 * command is done (5) to the batch at *tail, collected. The callback of
 * each is still to come.
 */
void poll_done(struct usched *u, struct task **tail)
{
	struct task *due[TG_MAX_INFLIGHT * USCHED_MAX_TG];
	unsigned int n = 0;
	uint64_t now = tq_now_ns();
	bool missed = false;

	if (u->o.no_poll)
		return;
	for (unsigned int g = 0; g < u->ninflight; g++) {
		struct tg *tg = u->inflight[g];

		for (unsigned int i = 0; i < tg->n; i++) {
			struct task *t = tg->task[i];

			if (!pollable(t) || predicted_end(u, t) > now)
				continue;
			/* over, or failed: exec_collect() tells which */
			if (exec_cmd_status(t, t->nev - 1) > CL_COMPLETE) {
				missed = true;
				continue;
			}
			t->polled = true;
			u->awaiting++;
			due[n++] = t;
		}
	}
	if (n)
		u->poll_misses = 0;
	else if (missed && u->poll_misses <= POLL_RETRY_MAX)
		u->poll_misses++;
	/* collecting may finish a TG: the scan is over */
	for (unsigned int i = 0; i < n; i++) {
		task_collect(u, due[i]);
		due[i]->batch_next = NULL;
		*tail = due[i];
		tail = &due[i]->batch_next;
	}
}

/*
 * When poll_done() should look next: the first predicted end still ahead,
 * or sooner a retry for a task due and not done.
 */
uint64_t poll_when(struct usched *u)
{
	uint64_t now = tq_now_ns(), at = JIT_WAIT;
	bool due = false;

	if (u->o.no_poll)
		return JIT_WAIT;
	for (unsigned int g = 0; g < u->ninflight; g++) {
		struct tg *tg = u->inflight[g];

		for (unsigned int i = 0; i < tg->n; i++) {
			const struct task *t = tg->task[i];
			uint64_t end;

			if (!pollable(t))
				continue;
			end = predicted_end(u, t);
			if (end <= now)
				due = true;
			else if (end < at)
				at = end;
		}
	}
	if (due) {
		uint64_t retry = now + (POLL_RETRY_NS << (u->poll_misses ? u->poll_misses - 1 : 0));

		if (retry < at)
			at = retry;
	}
	return at;
}

void callbacks_release(struct usched *u)
{
	struct task *t;

	atomic_store(&u->hold_callbacks, false);
	/* a callback that saw the hold is counted until it has pushed its task */
	while (atomic_load(&u->callbacks))
		sched_yield();
	for (t = atomic_exchange(&u->held, NULL); t;) {
		struct task *next = t->done_next;

		t->done_next = atomic_load(&u->done);
		while (!atomic_compare_exchange_weak(&u->done, &t->done_next, t))
			;
		t = next;
	}
	wake(u);
}

/*
 * A LINKED task's predecessor failed: cancel it if it was not taken (its
 * successor follows when it is released), else mark it; under u->lock.
 */
static void task_link_failed(struct usched *u, struct task *next)
{
	if (next->taken) {
		next->pred_failed = true;
		return;
	}
	if (!next->blocked)
		ready_del(u, next);
	list_del_init(&next->node);
	list_del_init(&next->admit_node);
	next->blocked = false;
	next->c.status = -ECANCELED;
	list_add_tail(&next->node, &u->cancelled);
	u->nwaiting--;
	wake(u);
}

/* Owner bookkeeping and counters of a completed task; under u->lock. */
static void task_release(struct usched *u, struct task *t)
{
	struct owner *o = t->owner;
	struct task *next = t->next_ordered;
	int status;

	if (t->pred_failed)
		t->c.status = -ECANCELED;
	status = t->c.status;
	u->live_prio[task_prio(t)]--;
	/* ran, and ended past its deadline, or was let run past it (10) */
	if (t->t.deadline_ns && t->c.tg &&
	    (t->late || (t->c.end_ns ? t->c.end_ns : tq_now_ns()) > t->t.deadline_ns)) {
		t->c.flags |= USCHED_DONE_LATE;
		u->st.late++;
	}
	if (next) {
		if (status && next->t.flags & USCHED_TASK_LINKED)
			task_link_failed(u, next);
		else
			task_unblock(u, t);	/* it was never taken */
		next->after = NULL;
	}
	/* completed before its predecessor (an error, or callbacks out of order) */
	if (t->after)
		t->after->next_ordered = NULL;
	if (o->last == t)
		o->last = NULL;
	if (!--o->ntasks) {
		list_del_init(&o->node);
		free(o);
	}
	if (t->c.tg) {
		u->st.running--;
		u->st.isolated += task_domain(t) != &u->shared;
	}
	u->st.completed++;
	u->st.polled += t->polled;
	u->st.bytes_cleared += t->cleared;
	if (status == -ECANCELED) {
		u->st.cancelled++;
	} else if (status) {
		u->st.failed++;
		if (t->c.cl_error)
			u->st.cmd_failed[t->c.cl_stage]++;
	}
	u->st.timeouts += status == -ETIME;
	for (unsigned int i = 0; i < t->t.nbufs && !status; i++) {
		if (t->t.buf[i].dir & USCHED_IN)
			u->st.bytes_htd += t->t.buf[i].len;
		if (t->t.buf[i].dir & USCHED_OUT)
			u->st.bytes_dth += t->t.buf[i].len;
	}
	task_unref(u, t);
}

/* Command ev's status; an event that cannot say counts as done. */
static cl_int ev_status(cl_event ev)
{
	cl_int st;

	if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL))
		return CL_COMPLETE;
	return st;
}

static bool ev_over(cl_event ev)
{
	return ev_status(ev) <= CL_COMPLETE;
}

/* Whether t's kernel may run as far as its own inputs go (7). */
static bool inputs_in(const struct task *t)
{
	unsigned int k = t->kev - 1;	/* its HtD copies come before it in ev[] */

	if (k)
		return ev_over(t->ev[k - 1]);
	return !t->after || !t->after->nev || ev_over(t->after->ev[t->after->nev - 1]);
}

/*
 * The watchdog (7): append the tasks whose kernel has run past its limit to
 * the batch at *tail, collected with -ETIME, and set u->watch_at. Only the
 * first kernel not over on each kernel queue can be running.
 */
struct task **watch_limits(struct usched *u, struct task **tail)
{
	struct task *due[TG_MAX_INFLIGHT * USCHED_MAX_TG];
	bool head[MAX_KQUEUES] = { false };
	uint64_t now = tq_now_ns();
	unsigned int n = 0;

	u->watch_at = JIT_WAIT;
	for (unsigned int g = 0; g < u->ninflight; g++) {
		struct tg *tg = u->inflight[g];

		for (unsigned int i = 0; i < tg->n; i++) {
			struct task *t = tg->task[i];
			uint64_t tick, at, allowed;
			cl_int st;

			if (!t || !t->kev || head[t->kq])
				continue;
			st = ev_status(t->ev[t->kev - 1]);
			if (st <= CL_COMPLETE)
				continue;
			head[t->kq] = true;
			if (!t->limit_ns)
				continue;
			/* a driver that says when it runs says best (PoCL: after compiling it) */
			if (st == CL_RUNNING && !t->k_running) {
				t->k_running = true;
				t->k_seen = now;
			} else if (!t->k_seen && inputs_in(t)) {
				t->k_seen = now;
			}
			allowed = t->limit_ns;
			if (t->first && !t->k_running)
				allowed += WATCH_COMPILE_GRACE_NS;
			tick = t->limit_ns / 8;
			tick = tick < WATCH_TICK_MIN ? WATCH_TICK_MIN :
			       tick > WATCH_TICK_MAX ? WATCH_TICK_MAX : tick;
			if (t->k_seen && now - t->k_seen >= allowed) {
				due[n++] = t;
				continue;
			}
			at = t->k_seen ? t->k_seen + allowed : now + tick;
			/* not yet seen running: look again, it may say so */
			if (!t->k_running && now + tick < at)
				at = now + tick;
			if (at < u->watch_at)
				u->watch_at = at;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		struct task *t = due[i];

		/* its callback comes when the kernel ends, if ever, and frees it (5) */
		t->err = -ETIME;
		t->polled = true;
		u->awaiting++;
		u->wedging = true;
		task_collect(u, t);
		t->batch_next = NULL;
		*tail = t;
		tail = &t->batch_next;
	}
	return tail;
}

/* Release the batch of completed tasks and run their completion callbacks. */
void batch_deliver(struct usched *u, struct task *list)
{
	struct task *t, *next;
	struct list *p, *n;
	uint64_t now;

	pthread_mutex_lock(&u->lock);
	list_for_each_safe(p, n, &u->cancelled) {
		t = list_entry(p, struct task, node);
		list_del_init(&t->node);
		t->batch_next = list;
		list = t;
	}
	pthread_mutex_unlock(&u->lock);
	/* before task_release(): its kernel's name is the trace's */
	now = tq_now_ns();
	for (t = list; t; t = t->batch_next)
		trace_task_done(u, t, now);
	pthread_mutex_lock(&u->lock);
	for (t = list; t; t = t->batch_next)
		task_release(u, t);
	pthread_mutex_unlock(&u->lock);

	/* The callback may submit: u->lock is not held. */
	for (t = list; t; t = next) {
		next = t->batch_next;
		if (u->o.complete)
			u->o.complete(u->o.complete_arg, &t->c);
		if (!t->polled)
			free(t);
	}
}
