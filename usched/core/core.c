// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - the scheduling core: submission, TG formation, the loop.
 *
 * 1. Objects. A struct usched owns one OpenCL device, its context and
 *    queues. Regions (registered host memory), programs and kernels are
 *    named by ids (objects.c) and reference counted: a task holds its
 *    regions and its kernel's program from submission to completion, so an
 *    owner may drop them while its tasks still run. An owner (a client
 *    context or thread) exists while it has tasks not completed. A task is
 *    allocated by usched_submit(), waits on its owner's ready list (or
 *    blocked list), is taken into a TG, launched, pushed on the done stack
 *    by its last command's callback, completed and freed by the loop. A TG
 *    lives from formation until its last task completes.
 *
 * 2. Threads and locks. Submitters call in from any thread; u->lock guards
 *    what they share with the loop: owners and their lists, the id tables,
 *    reference counts, the counters. The loop (usched_process(): the
 *    in-process thread, or the daemon's event loop) alone touches the
 *    executor: queues, TGs in flight, the buffer pool, the models, the
 *    trace. OpenCL's callback threads touch only the done stack (lock-free)
 *    and the eventfd. Program builds run on the registering thread under
 *    u->build_lock, so a slow build never stalls the loop.
 *
 * 3. TG formation. A TG is up to max_tg ready tasks taken round-robin over
 *    owners, each owner's in submission order; owners served move to the
 *    back, so one owner's flood cannot starve the others. A task flagged
 *    USCHED_TASK_ORDERED is not ready until its owner's previous task has
 *    been taken into a TG; other tasks of one owner are independent. Taking
 *    a task makes its ordered successor ready at once, so the next pass of
 *    the same formation may take it too: a T x N submission of ordered
 *    tasks forms a first TG of min(max_tg, T x N) tasks, round by round, and
 *    the policy orders the chains as a whole (tg_order() tells the model,
 *    tq_tg_set_after(); every policy keeps each task after its
 *    predecessor). A successor in a later TG, its predecessor in flight,
 *    gets a release time instead, the predecessor's predicted end. Either
 *    way its first command waits on the predecessor's last event on the
 *    device (exec.c). TG size is also capped by device memory (a quarter of
 *    it per TG). USCHED_TASK_LINKED adds a chain's promise to ORDERED (the
 *    daemon's TQ_DESC_F_AFTER): if the predecessor fails, a successor not
 *    yet taken is cancelled (-ECANCELED) and never runs; one already taken
 *    waits on the failed task's last event, which a device error fails too,
 *    and is reported -ECANCELED whatever its commands did.
 *
 * 4. The rolling horizon, just in time. A TG is launched when the device
 *    is about to need it, not as soon as a slot frees: at once on an idle
 *    device (no latency added) or when max_tg tasks are ready; otherwise
 *    lead time before the work in flight stops feeding the engines
 *    (jit_when()), so that tasks arriving meanwhile, ordered ones made
 *    ready by completions above all, join it and are ordered together. A
 *    timerfd wakes the loop then; usched_fd() is an epoll fd over it and the
 *    eventfd. The lead covers the host's cost of forming, ordering and
 *    enqueueing a TG (measured) plus a margin; TGs in flight are bounded by
 *    that timing, by TG_MAX_INFLIGHT and by half the device memory. The
 *    policy orders a TG from each engine's predicted busy-until time (the
 *    last TG's simulated engine ends, shifted by how late or early the last
 *    task completed against its prediction), so its first copies overlap
 *    the tail of the work already queued.
 * 5. Completion. clSetEventCallback() on a task's last command only pushes
 *    the task on the done stack and writes the eventfd; no OpenCL call runs
 *    in a callback and nothing waits with clFinish() or clWaitForEvents(),
 *    which spin a core on NVIDIA. The loop reads the profiling timestamps,
 *    releases events, recycles buffers, feeds the kernel model, completes
 *    the task and decides on the next TG. A counter of callbacks running lets
 *    usched_destroy() free the core only once none can touch it.
 *    NVIDIA delivers callbacks late, in batches, milliseconds after the
 *    command ended (Documentation/design/usched-core.md), which in a closed
 *    loop of submitters keeps their next tasks from the device. So the loop
 *    also asks a task's last event whether it is done when the model says
 *    it should be (its predicted end, corrected by the drift), again after
 *    50 us, 100 us, ... up to every 1.6 ms while it is not, and completes it
 *    at once when it is (poll_done()). Its callback still comes and frees it;
 *    the loop keeps its last event until then; usched_destroy() waits for it.
 *
 * 6. Shutdown. usched_destroy() refuses new tasks, runs the loop until every
 *    task submitted has completed (usched_cancel() first drops the waiting
 *    ones), then frees everything.
 *
 * 7. The watchdog. A task may have a time limit for its kernel. NVIDIA
 *    gives a command no profiling START before it completes, so the loop
 *    infers the start: a kernel queue is in order, so its kernel runs once
 *    every earlier kernel on its queue is done and its own inputs are in
 *    (its last HtD copy, or its predecessor's last command, is done). The
 *    loop asks those events while tasks with a limit are in flight, every
 *    limit / 8 (1-100 ms) until it sees the kernel free to run, and fails
 *    the task with -ETIME limit ns after that (never sooner than the limit:
 *    it sees the start late, if at all). A driver that reports CL_RUNNING
 *    tells the start better, and PoCL compiles a kernel at its first launch,
 *    before it runs: from CL_RUNNING on, the limit counts from there; a
 *    kernel's first launch not seen running gets WATCH_FIRST_GRACE_NS more
 *    (a driver may be compiling it). OpenCL cannot stop a running
 *    kernel, so the core is wedged from then on: after the culprit's
 *    completion it calls opts.wedged (a daemon re-executes itself there,
 *    and its OpenCL context dies with the old image), then completes the
 *    other tasks in flight with -EOWNERDEAD and those waiting with
 *    -ECANCELED, refuses new ones, and usched_destroy() leaves the OpenCL
 *    objects the endless kernel still uses to the process's exit.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "kernels/tqkernels.h"
#include "internal.h"

_Static_assert((int)USCHED_HTD == (int)TQ_HTD && (int)USCHED_K == (int)TQ_K &&
	       (int)USCHED_DTH == (int)TQ_DTH, "usched and sim name stages alike");
_Static_assert(USCHED_MAX_TG <= TQ_MAX_TASKS, "a TG fits the simulator");

/* Submission */

static struct owner *owner_get(struct usched *u, uint64_t id)
{
	struct list *p, *n;
	struct owner *o;

	list_for_each_safe(p, n, &u->owners) {
		o = list_entry(p, struct owner, node);
		if (o->id == id)
			return o;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->id = id;
	list_init(&o->ready);
	list_init(&o->blocked);
	list_add_tail(&o->node, &u->owners);
	return o;
}

/* The shape of a task, before anything is looked up. */
static int task_check(const struct usched_task *d)
{
	if (d->dim < 1 || d->dim > 3 || d->nbufs > USCHED_MAX_BUFS || d->nargs > USCHED_MAX_ARGS ||
	    d->flags & ~(USCHED_TASK_ORDERED | USCHED_TASK_LINKED) ||
	    (d->flags & USCHED_TASK_LINKED && !(d->flags & USCHED_TASK_ORDERED)))
		return -EINVAL;
	for (unsigned int i = 0; i < d->dim; i++)
		if (!d->global[i])
			return -EINVAL;
	for (unsigned int i = 0; i < d->nbufs; i++) {
		const struct usched_buf *b = &d->buf[i];

		if (!b->len || b->dir < USCHED_IN || b->dir > USCHED_SCRATCH ||
		    (b->dir != USCHED_SCRATCH && !b->host))
			return -EINVAL;
	}
	for (unsigned int i = 0; i < d->nargs; i++) {
		const struct usched_arg *a = &d->arg[i];

		if (a->kind == USCHED_ARG_BUF ? a->buf >= d->nbufs :
		    a->kind != USCHED_ARG_SCALAR || !a->size || a->size > USCHED_MAX_SCALAR)
			return -EINVAL;
	}
	return 0;
}

/* Drop what a task holds; under u->lock. */
static void task_unref(struct usched *u, struct task *t)
{
	for (unsigned int i = 0; i < t->t.nbufs; i++)
		if (t->reg[i])
			region_put(u, t->reg[i]);
	if (t->kern)
		prog_put(u, t->kern->prog);
}

/*
 * The built-in task of kernels/ whose kernel k is, or NULL: its source
 * built without options, whichever way it was registered; under u->lock.
 */
static const struct tqk_task *kern_builtin(struct kern *k)
{
	const char *src = k->prog->src;

	if (k->builtin_known)
		return k->builtin;
	k->builtin_known = true;
	for (unsigned int i = 0; i < tqk_ntasks && !src[strlen(src) + 1]; i++) {
		const struct tqk_task *tt = tqk_tasks[i];

		if (!strcmp(k->name, tt->kernel) && !strcmp(src, tt->source))
			k->builtin = tt;
	}
	return k->builtin;
}

/*
 * What memory hygiene zeroes of a task's device buffers before its kernel
 * (exec.c): any kernel may read a whole pooled buffer, slack included, so
 * an unknown kernel gets everything its copies in do not overwrite.
 */
static void clear_all(struct task *t)
{
	const struct usched_task *d = &t->t;

	for (unsigned int i = 0; i < d->nbufs; i++) {
		t->clear_from[i] = d->buf[i].dir & USCHED_IN ? d->buf[i].len : 0;
		t->clear_to[i] = CLEAR_END;
	}
}

/*
 * A built-in kernel is trusted code whose launch was checked against its
 * plan: it reads only the first plan-bytes of the buffers its arguments
 * name and writes all of those its plan has as output (the host references
 * check every byte). So only what it reads without the task's copy in, and
 * what is copied back without it or the kernel writing it, is zeroed.
 */
static void clear_builtin(struct task *t, const struct tqk_launch *plan)
{
	const struct usched_task *d = &t->t;

	for (unsigned int i = 0; i < d->nbufs; i++) {
		uint32_t dir = d->buf[i].dir;
		uint64_t written = 0;
		bool read = false;

		for (unsigned int a = 0; a < d->nargs; a++) {
			const struct tqk_buf *pb;

			if (d->arg[a].kind != USCHED_ARG_BUF || d->arg[a].buf != i)
				continue;
			pb = &plan->buf[plan->arg[a].buf];
			read |= pb->dir & TQK_IN;
			if (pb->dir & TQK_OUT && pb->bytes > written)
				written = pb->bytes;
		}
		t->clear_from[i] = t->clear_to[i] = 0;
		if (dir & USCHED_IN)
			continue;	/* its own bytes, in full */
		if (read)
			t->clear_to[i] = d->buf[i].len;
		else if (dir & USCHED_OUT && written < d->buf[i].len) {
			t->clear_from[i] = written;
			t->clear_to[i] = d->buf[i].len;
		}
	}
}

/*
 * A built-in kernel's task must stay within its own buffers: its arguments
 * and work size are the task's plan for a size it takes, each buffer it
 * passes at least as long as the plan's (tqk_launch_check()). Its kernel
 * trusts its scalars and work size, and other owners' buffers share the
 * device memory. Buffers no argument names only copy, and may be any.
 */
static int builtin_check(const struct tqk_task *tt, struct task *t)
{
	const struct usched_task *d = &t->t;
	struct tqk_launch l = { .nargs = d->nargs, .dim = d->dim }, plan;
	int ret;

	if (d->nargs > TQK_MAX_ARGS || d->dim > 2)
		return -EINVAL;
	for (unsigned int i = 0; i < d->nargs; i++) {
		const struct usched_arg *a = &d->arg[i];

		if (a->kind == USCHED_ARG_BUF) {
			if (l.nbufs == TQK_MAX_BUFS)
				return -EINVAL;
			l.buf[l.nbufs] = (struct tqk_buf){ .bytes = d->buf[a->buf].len };
			l.arg[i] = (struct tqk_arg){ .kind = TQK_ARG_BUF, .buf = l.nbufs++ };
		} else {
			l.arg[i] = (struct tqk_arg){ .kind = TQK_ARG_SCALAR, .size = a->size };
			memcpy(l.arg[i].val, a->val, a->size);
		}
	}
	for (unsigned int i = 0; i < d->dim; i++) {
		l.global[i] = d->global[i];
		l.local[i] = d->local[i];
	}
	ret = tqk_launch_check(tt, &l, &plan);
	if (ret)
		return ret;
	clear_builtin(t, &plan);
	/*
	 * A task that gives no size (the daemon's: the uapi has none) gets its
	 * plan's, the m the profile's kernel lines and in-process submitters
	 * use; the product of the global sizes is no size for kernels whose
	 * grid does not grow with m (FLW: one work-group; MM: n^2 of n^3).
	 */
	if (!t->t.m)
		t->t.m = plan.m;
	return 0;
}

/* Look up what the task names, taking references; under u->lock. */
static int task_resolve(struct usched *u, struct task *t)
{
	const struct usched_task *d = &t->t;
	const struct tqk_task *tt;
	int ret;

	t->kern = kern_get(u, d->kernel);
	if (!t->kern)
		return -ENOENT;
	if (d->nargs != t->kern->nargs)
		return -EINVAL;
	/*
	 * A kind the driver did not tell (no argument info) is refused too: a
	 * scalar set on a __global argument would be taken for a cl_mem handle.
	 */
	for (unsigned int i = 0; i < d->nargs; i++)
		if (t->kern->arg_kind[i] != d->arg[i].kind)
			return -EINVAL;
	tt = kern_builtin(t->kern);
	clear_all(t);
	ret = tt ? builtin_check(tt, t) : 0;
	if (ret)
		return ret;
	for (unsigned int i = 0; i < d->nbufs; i++) {
		if (d->buf[i].len > u->max_alloc)
			return -EFBIG;
		if (d->buf[i].dir == USCHED_SCRATCH)
			continue;
		t->reg[i] = region_find(u, d->buf[i].host, d->buf[i].len);
		if (!t->reg[i])
			return -EFAULT;
	}
	return 0;
}

int usched_submit(struct usched *u, const struct usched_task *d)
{
	struct owner *o;
	struct task *t;
	int ret;

	ret = task_check(d);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->u = u;
	t->t = *d;
	list_init(&t->node);
	if (!t->t.queued_ns)
		t->t.queued_ns = tq_now_ns();
	t->c.user_data = d->user_data;
	t->c.owner = d->owner;
	t->c.queued_ns = t->t.queued_ns;
	t->limit_ns = d->time_limit_ns ? d->time_limit_ns : u->o.time_limit_ns;

	pthread_mutex_lock(&u->lock);
	ret = u->st.wedged ? -ENOTRECOVERABLE : -ESHUTDOWN;
	if (u->closing || u->st.wedged)
		goto out_unref;
	ret = task_resolve(u, t);
	if (ret)
		goto out_unref;
	/* no size given, and no built-in's plan gave one (task_resolve()) */
	if (!t->t.m) {
		t->t.m = 1;
		for (unsigned int i = 0; i < d->dim; i++)
			t->t.m *= d->global[i];
	}
	t->c.m = t->t.m;
	t->c.kernel = d->kernel;
	ret = -ENOMEM;
	o = owner_get(u, d->owner);
	if (!o)
		goto out_unref;
	t->owner = o;
	if (d->flags & USCHED_TASK_ORDERED && o->last) {
		t->after = o->last;
		o->last->next_ordered = t;
	}
	if (t->after && !t->after->taken) {
		t->blocked = true;
		list_add_tail(&t->node, &o->blocked);
	} else {
		list_add_tail(&t->node, &o->ready);
		u->nready++;
	}
	o->last = t;
	o->ntasks++;
	/* the flow policy's arrival rate (4) */
	if (u->arr_last && t->t.queued_ns > u->arr_last) {
		double gap = t->t.queued_ns - u->arr_last;

		u->arr_gap = u->arr_gap ? 0.875 * u->arr_gap + 0.125 * gap : gap;
	}
	if (t->t.queued_ns > u->arr_last)
		u->arr_last = t->t.queued_ns;
	u->nwaiting++;
	u->st.submitted++;
	pthread_mutex_unlock(&u->lock);
	wake(u);
	return 0;

out_unref:
	task_unref(u, t);
	pthread_mutex_unlock(&u->lock);
	free(t);
	return ret;
}

/* Returns how many were taken. */
static unsigned int cancel_list(struct usched *u, struct list *l)
{
	unsigned int ret = 0;
	struct list *p, *n;

	list_for_each_safe(p, n, l) {
		struct task *t = list_entry(p, struct task, node);

		if (t->after)
			t->after->next_ordered = NULL;
		t->after = NULL;
		t->blocked = false;
		t->c.status = -ECANCELED;
		list_del(&t->node);
		list_add_tail(&t->node, &u->cancelled);
		u->nwaiting--;
		ret++;
	}
	return ret;
}

int usched_cancel(struct usched *u, uint64_t owner)
{
	struct list *p, *n;

	pthread_mutex_lock(&u->lock);
	list_for_each_safe(p, n, &u->owners) {
		struct owner *o = list_entry(p, struct owner, node);

		if (owner != USCHED_OWNER_ALL && o->id != owner)
			continue;
		u->nready -= cancel_list(u, &o->ready);
		cancel_list(u, &o->blocked);
		if (o->last && o->last->c.status == -ECANCELED)
			o->last = NULL;
	}
	pthread_mutex_unlock(&u->lock);
	wake(u);
	return 0;
}

void usched_stats(struct usched *u, struct usched_stats *s)
{
	pthread_mutex_lock(&u->lock);
	*s = u->st;
	s->waiting = u->nwaiting;
	pthread_mutex_unlock(&u->lock);
}

const char *usched_plan_name(uint32_t plan)
{
	static const char *const name[USCHED_PLANS] = { "none", "resumed", "proven" };

	return plan < USCHED_PLANS ? name[plan] : "?";
}

/* TG formation and launch */

static uint64_t task_bytes(const struct task *t)
{
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < t->t.nbufs; i++)
		bytes += t->t.buf[i].len;
	return bytes;
}

static void task_unblock(struct usched *u, struct task *t);
static uint64_t poll_when(struct usched *u);

/*
 * Take the next TG's tasks, round-robin over owners (3), within limit bytes
 * (one task always fits an idle device); under u->lock. A task taken makes
 * its ordered successor ready for the next pass.
 */
static unsigned int tg_form(struct usched *u, struct task **tasks, uint64_t limit,
			    uint64_t *bytes)
{
	struct list served = LIST_INIT(served);
	unsigned int n = 0, max = u->st.max_tg;
	bool more = true;

	*bytes = 0;
	while (more && n < max) {
		struct list *p, *nx;

		more = false;
		list_for_each_safe(p, nx, &u->owners) {
			struct owner *o = list_entry(p, struct owner, node);
			struct task *t;

			if (list_empty(&o->ready))
				continue;
			t = list_first(&o->ready, struct task, node);
			if ((n || u->ninflight) && *bytes + task_bytes(t) > limit)
				continue;
			*bytes += task_bytes(t);
			list_del(&t->node);
			t->taken = true;
			task_unblock(u, t);
			tasks[n++] = t;
			list_del(&o->node);
			list_add_tail(&o->node, &served);
			more = true;
			if (n == max)
				break;
		}
		list_splice_tail(&served, &u->owners);
	}
	u->nwaiting -= n;
	u->nready -= n;
	u->st.running += n;
	return n;
}

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
 * the queue free first as the model's queue 0 (busy_until[TQ_K]), the others
 * after it round-robin in kq_busy[], as exec_launch() sends a TG's kernels.
 * Returns the queue free first.
 */
static unsigned int kq_place(const uint64_t *busy, unsigned int nq, uint64_t at, struct tq_dev *d)
{
	unsigned int base = kq_first(busy, nq);

	for (unsigned int i = 0; i < nq; i++) {
		uint64_t b = busy[(base + i) % nq];
		double rel = b > at ? (double)(b - at) : 0;

		if (i)
			d->kq_busy[i] = rel;
		else
			d->busy_until[TQ_K] = rel;
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

/* Task t's end in res: its last command's. */
static double sim_task_end(const struct tq_tg *tg, const struct tq_sim_result *res, unsigned int t)
{
	const struct tq_task *tk = &tg->task[t];
	double end = 0;

	for (int s = 0; s < USCHED_STAGES; s++)
		for (unsigned int c = tk->first[s]; c < (unsigned int)tk->first[s] + tk->n[s]; c++)
			end = fmax(end, res->end[c]);
	return end;
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
uint64_t jit_when_flow(const struct jit_in *in, const struct tq_tg *tg, const struct tq_dev *dev,
		       struct tq_sim_result *res)
{
	static const uint8_t fifo[TQ_MAX_TASKS] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
		22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,
		42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
		62, 63 };
	double e1[TQ_MAX_TASKS], slack = INFINITY;
	struct tq_dev d = *dev;

	if (!in->ready || in->inflight >= TG_MAX_INFLIGHT)
		return JIT_WAIT;
	if (!in->inflight || in->ready >= in->max_tg || !tg->ntasks)
		return 0;
	for (int s = 0; s < USCHED_STAGES; s++)
		d.busy_until[s] = in->busy[s] > in->now ? (double)(in->busy[s] - in->now) : 0;
	/* a kernel may start on the queue free first, not after the latest one */
	if (d.kq > 1 && in->kqueues == d.kq)
		kq_place(in->kq_busy, d.kq, in->now, &d);
	tq_simulate(tg, &d, fifo, tg->ntasks, res);
	for (unsigned int i = 0; i < tg->ntasks; i++)
		e1[i] = sim_task_end(tg, res, i);
	memset(d.busy_until, 0, sizeof(d.busy_until));
	memset(d.kq_busy, 0, sizeof(d.kq_busy));
	tq_simulate(tg, &d, fifo, tg->ntasks, res);
	for (unsigned int i = 0; i < tg->ntasks; i++)
		slack = fmin(slack, e1[i] - sim_task_end(tg, res, i));
	if (!(slack > in->lead_ns))
		return 0;
	return in->now + (uint64_t)slack - in->lead_ns;
}

/*
 * The flow policy's candidates for the next TG, into u->jit_tg: the ready
 * tasks round-robin over owners, as tg_form() takes them (the ordered
 * successors it would make ready left out); under u->lock.
 */
static void jit_gather_flow(struct usched *u, unsigned int max)
{
	struct tq_tg *tg = &u->jit_tg;
	bool more = true;

	tq_tg_init(tg);
	for (unsigned int depth = 0; more && tg->ntasks < max; depth++) {
		struct list *p, *n;

		more = false;
		list_for_each_safe(p, n, &u->owners) {
			struct owner *o = list_entry(p, struct owner, node);
			struct list *q = o->ready.next;
			struct task *t;

			for (unsigned int k = 0; k < depth && q != &o->ready; k++)
				q = q->next;
			if (q == &o->ready)
				continue;
			t = list_entry(q, struct task, node);
			model_predict(u, t);
			tq_tg_add(tg, t->pred[USCHED_HTD], t->pred[USCHED_K], t->pred[USCHED_DTH]);
			more = true;
			if (tg->ntasks == max)
				break;
		}
	}
}

/* jit_when()'s inputs; under u->lock. */
static void jit_gather(struct usched *u, struct jit_in *in)
{
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
	if (!in->ready || !in->inflight || in->ready >= in->max_tg)
		return;		/* the answer does not depend on first[] */
	if (u->flow) {
		jit_gather_flow(u, in->max_tg);
		return;
	}
	/* The tasks the next TG can start with: each owner's first ready one. */
	list_for_each_safe(p, n, &u->owners) {
		struct owner *o = list_entry(p, struct owner, node);
		struct task *t;

		if (list_empty(&o->ready))
			continue;
		t = list_first(&o->ready, struct task, node);
		model_predict(u, t);
		in->first[USCHED_K] = fmin(in->first[USCHED_K], t->pred[USCHED_HTD]);
		if (t->pred[USCHED_DTH] > 0)
			in->first[USCHED_DTH] = fmin(in->first[USCHED_DTH],
						     t->pred[USCHED_HTD] + t->pred[USCHED_K]);
		if (++seen == in->max_tg)
			break;
	}
}

/*
 * Whether the TG in u->simtg has a plan (plans.c): its mix is the whole
 * problem, nothing in flight before it and no task released later.
 */
static bool tg_plannable(const struct usched *u)
{
	for (int s = 0; s < USCHED_STAGES; s++)
		if (u->dev.busy_until[s] > 0)
			return false;
	for (unsigned int i = 0; i < u->simtg.ntasks; i++)
		if (u->simtg.release[i] > 0)
			return false;
	return true;
}

/* Simulate @order of u->simtg into u->res; its device time: first start to makespan. */
static double tg_device_ns(struct usched *u, const uint8_t *order, unsigned int n)
{
	struct tq_sim_result *res = u->res;
	double first;

	tq_simulate(&u->simtg, &u->dev, order, n, res);
	first = res->makespan;
	for (unsigned int c = 0; c < u->simtg.ncmds; c++)
		first = fmin(first, res->start[c]);
	return res->makespan - first;
}

/*
 * The flow policy's second step: from auto's order d, the order of least
 * flow cost (sim/flow.c) with the tasks left waiting behind the TG and the
 * arrival rate as weights, in a budget of u->budget of the TG's predicted
 * device time (so flow takes up to twice auto's time). d stays as it was
 * if that fails.
 */
static void tg_flow(struct usched *u, struct tg *tg, struct tq_problem *pb, struct tq_decision *d)
{
	struct tq_decision f = *d;

	pb->budget_ns = fmax(u->budget * tg_device_ns(u, d->order, tg->n), 1);
	pb->flow_behind = tg->behind;
	pb->flow_rate = tg->rate;
	if (!tq_flow_refine(pb, u->res, &f))
		*d = f;
}

/*
 * Concurrent kernels: the kernel queues' busy-until into u->dev, the queue
 * free first as the model's queue 0 (tg->kq_base) and the others after it
 * round-robin, as exec_launch() sends the TG's kernels.
 */
static void tg_model_kqueues(struct usched *u, struct tg *tg)
{
	uint64_t busy[MAX_KQUEUES];

	for (unsigned int q = 0; q < u->o.kqueues; q++)
		busy[q] = u->kq_busy_abs[q] + u->drift;
	/* nothing in flight: every queue free at the launch */
	tg->kq_base = kq_place(busy, u->o.kqueues, u->ninflight ? tg->launch_ns : UINT64_MAX,
			       &u->dev);
}

/*
 * The TG's tasks into u->simtg as the models predict them, chained as
 * submitted (3), and the engines' busy-until into u->dev (4).
 */
static void tg_model(struct usched *u, struct tg *tg, struct task **tasks)
{
	tq_tg_init(&u->simtg);
	tg->launch_ns = tq_now_ns();
	for (unsigned int i = 0; i < tg->n; i++) {
		const struct task *pred = tasks[i]->after;
		unsigned int j = 0;

		model_predict(u, tasks[i]);
		tq_tg_add(&u->simtg, tasks[i]->pred[USCHED_HTD], tasks[i]->pred[USCHED_K],
			  tasks[i]->pred[USCHED_DTH]);
		tq_tg_set_width(&u->simtg, i, tasks[i]->kwidth);
		/* a predecessor in this TG was taken before it (3) */
		while (pred && j < i && tasks[j] != pred)
			j++;
		if (pred && j < i)
			tq_tg_set_after(&u->simtg, i, j);
		/* a predecessor in flight: not before its predicted end, corrected (4) */
		else if (pred && (int64_t)(pred->pred_end + u->drift - tg->launch_ns) > 0)
			tq_tg_set_release(&u->simtg, i, pred->pred_end + u->drift - tg->launch_ns);
	}
	for (int s = 0; s < USCHED_STAGES; s++) {
		uint64_t busy = u->busy_abs[s] + u->drift;

		u->dev.busy_until[s] = u->ninflight && busy > tg->launch_ns ?
				       busy - tg->launch_ns : 0;
	}
	tg_model_kqueues(u, tg);
}

/*
 * The policy's time: auto u->budget of its seed's device time, counted from
 * @t0 so that the plan's lookup counts too; exact EXACT_BUDGET times that of
 * the fifo order, so that it proves small TGs but a large TG of chains cannot
 * hold the loop up.
 */
static void tg_budget(struct usched *u, struct tg *tg, const struct tq_policy_ops *pol,
		      uint64_t t0, struct tq_problem *pb)
{
	uint8_t fifo[TQ_MAX_TASKS];

	pb->budget_frac = u->budget;
	tq_auto_state_clear(u->auto_state);
	tq_auto_start(u->auto_state, t0);
	pb->state = u->auto_state;
	if (pol != &tq_policy_exact)
		return;
	for (unsigned int i = 0; i < tg->n; i++)
		fifo[i] = i;
	pb->budget_ns = fmax(u->budget * EXACT_BUDGET * tg_device_ns(u, fifo, tg->n), 1);
}

/* auto's plan for the TG's mix (plans.c), its state set to go on from it; tg->plan says how. */
static void tg_plan_find(struct usched *u, struct tg *tg, struct task **tasks)
{
	bool optimal;

	if (plans_resume(u->plans, tasks, &u->simtg,
			 (double[]){ u->dev.slow[TQ_HTD], u->dev.slow[TQ_DTH] }, u->match,
			 u->auto_state, &optimal))
		tg->plan = optimal ? USCHED_PLAN_PROVEN : USCHED_PLAN_RESUMED;
}

/*
 * The policy's order into @d, kept as the mix's plan if @planned; fifo's
 * (always feasible) if it fails, which cannot happen: an error, or an order
 * against a chain. Returns whether the plan's order is proven optimal.
 */
static bool tg_decide(struct usched *u, struct tg *tg, const struct tq_policy_ops *pol,
		      const struct tq_problem *pb, bool planned, struct tq_decision *d)
{
	bool proven = true;

	if (pol->order(pb, u->ws, d) || !(d->makespan < INFINITY)) {
		for (unsigned int i = 0; i < tg->n; i++)
			d->order[i] = i;
	} else if (planned) {
		proven = d->optimal || tg->plan == USCHED_PLAN_PROVEN;
		plans_keep(u->plans, u->match, d, proven, tg->seq);
	}
	return proven;
}

/*
 * What the model predicts for the TG in @d's order: its device time, each
 * engine's busy-until and each task's end (4); and the TG's tasks in that
 * order.
 */
static void tg_predict(struct usched *u, struct tg *tg, struct task **tasks,
		       const struct tq_decision *d)
{
	struct tq_sim_result *res = u->res;

	tg->pred_ns = tg_device_ns(u, d->order, tg->n);
	for (int s = 0; s < USCHED_STAGES; s++)
		u->busy_abs[s] = tg->launch_ns + (uint64_t)res->engine_end[s] - u->drift;
	for (unsigned int i = 0; i < u->o.kqueues; i++)
		u->kq_busy_abs[(tg->kq_base + i) % u->o.kqueues] =
			tg->launch_ns + (uint64_t)res->kq_end[i] - u->drift;
	for (unsigned int i = 0; i < tg->n; i++) {
		const struct tq_task *st = &u->simtg.task[i];
		double end = 0, kran;

		for (int s = 0; s < USCHED_STAGES; s++) {
			tasks[i]->c.pred_ns[s] = 0;
			for (unsigned int c = st->first[s]; c < st->first[s] + st->n[s]; c++) {
				end = fmax(end, res->end[c]);
				tasks[i]->c.pred_ns[s] += res->end[c] - res->start[c];
			}
		}
		/* the K stage's run time in the model: its standalone time, or longer where shared */
		kran = tasks[i]->c.pred_ns[USCHED_K];
		tasks[i]->kshare = u->o.kqueues > 1 && kran > 0 ?
				   fmin(1, tasks[i]->pred[USCHED_K] / kran) : 1;
		tasks[i]->pred_end = tg->launch_ns + (uint64_t)end - u->drift;
		tg->task[i] = tasks[d->order[i]];
	}
}

/*
 * Order the TG with the policy from the engines' predicted busy-until times
 * (4), and remember what the model predicts for the order chosen. auto (and
 * flow, which orders for makespan as auto does, plans and all, then for
 * latency) goes on from the mix's plan where the TG has one.
 */
static void tg_order(struct usched *u, struct tg *tg, struct task **tasks)
{
	struct tq_problem pb = { .tg = &u->simtg, .dev = &u->dev, .seed = tg->seq };
	const struct tq_policy_ops *pol = u->flow ? &tq_policy_auto : u->policy;
	struct tq_decision d, dm;
	bool planned, proven;
	uint64_t t0;

	tg_model(u, tg, tasks);
	t0 = tq_now_ns();
	tg_budget(u, tg, pol, t0, &pb);
	planned = pol == &tq_policy_auto && u->plans && tg_plannable(u);
	if (planned)
		tg_plan_find(u, tg, tasks);
	proven = tg_decide(u, tg, pol, &pb, planned, &d);
	dm = d;
	if (u->flow && tg->n > 1)
		tg_flow(u, tg, &pb, &d);
	tg->policy_ns = tq_now_ns() - t0;
	tg_predict(u, tg, tasks, &d);
	/* the loop's idle time while the device runs it goes on with its plan */
	if (planned)
		plans_arm(u->plans, u->match, &u->simtg, &u->dev, &dm, tg->seq,
			  proven ? 0 : (uint64_t)(u->refine * tg->pred_ns));
}

static void timer_set(struct usched *u, uint64_t at)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (at == u->timer_at)
		return;
	u->timer_at = at;
	if (at != JIT_WAIT) {
		its.it_value.tv_sec = at / 1000000000;
		its.it_value.tv_nsec = at % 1000000000;
	}
	timerfd_settime(u->tfd, TFD_TIMER_ABSTIME, &its, NULL);	/* zero disarms */
}

/* Make @t's ordered successor ready, if it waits for @t; under u->lock. */
static void task_unblock(struct usched *u, struct task *t)
{
	struct task *next = t->next_ordered;

	if (!next || !next->blocked)
		return;
	next->blocked = false;
	list_del(&next->node);
	list_add_tail(&next->node, &t->owner->ready);
	u->nready++;
}

/*
 * The TG's tasks are about to reach the device: tell opts.started, and
 * count those the watchdog watches (7).
 */
static void tg_started(struct usched *u, struct tg *tg)
{
	struct usched_start s[USCHED_MAX_TG];

	for (unsigned int i = 0; i < tg->n; i++) {
		struct task *t = tg->task[i];

		s[i] = (struct usched_start){ t->t.owner, t->t.user_data };
		u->limited += t->limit_ns != 0;
		t->first = !t->kern->launched;
		t->kern->launched = true;
	}
	if (u->o.started)
		u->o.started(u->o.started_arg, s, tg->n);
}

/* Launch TGs while jit_when() says so, then set the timer for the next one. */
static void tg_launch_next(struct usched *u)
{
	uint64_t at = JIT_WAIT, poll_at;

	for (;;) {
		struct task *tasks[USCHED_MAX_TG];
		uint64_t t0 = tq_now_ns(), limit;
		struct jit_in in;
		struct tg *tg;

		tg = calloc(1, sizeof(*tg));
		if (!tg)
			break;		/* the next event tries again */
		limit = u->inflight_max > u->inflight_bytes ? u->inflight_max - u->inflight_bytes
							     : 0;
		pthread_mutex_lock(&u->lock);
		jit_gather(u, &in);
		at = u->flow ? jit_when_flow(&in, &u->jit_tg, &u->dev, u->res) : jit_when(&in);
		if (!at) {
			tg->n = tg_form(u, tasks, fmin(limit, u->tg_bytes), &tg->bytes);
			/* the flow objective's weights (4): who waits behind it, who comes */
			tg->behind = u->nwaiting;
			tg->rate = u->arr_gap > 0 ? 1 / fmax(u->arr_gap, (double)(t0 - fmin(t0,
				   u->arr_last))) : 0;
		}
		pthread_mutex_unlock(&u->lock);
		if (!tg->n) {
			free(tg);
			if (!at)
				at = JIT_WAIT;	/* device memory: wait for a TG to finish */
			break;
		}
		tg->seq = ++u->tg_seq;
		tg->left = tg->n;
		tg->inflight = u->ninflight;
		tg_order(u, tg, tasks);
		for (unsigned int i = 0; i < tg->n; i++) {
			tg->task[i]->tg = tg;
			tg->task[i]->c.tg = tg->seq;
		}
		u->inflight[u->ninflight++] = tg;
		u->inflight_bytes += tg->bytes;
		tg_started(u, tg);
		exec_launch(u, tg);
		tg->host_ns = tq_now_ns() - t0;
		u->host_ns = u->host_ns ? 0.875 * u->host_ns + 0.125 * tg->host_ns : tg->host_ns;
	}
	poll_at = poll_when(u);
	/* kernels with a limit went out: the watchdog looks for their start (7) */
	if (u->limited && u->watch_at == JIT_WAIT)
		u->watch_at = tq_now_ns() + WATCH_TICK_MIN;
	if (u->watch_at < poll_at)
		poll_at = u->watch_at;
	timer_set(u, at < poll_at ? at : poll_at);
}

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
		u->dev.slow[d ? TQ_DTH : TQ_HTD] = u->xm[d].slow;
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
	free(tg);

	pthread_mutex_lock(&u->lock);
	u->st.tgs++;
	u->st.policy_ns += ts.policy_ns;
	u->st.planned[ts.plan]++;
	u->st.last = ts;
	u->st.copy_slow[0] = u->dev.slow[TQ_HTD];
	u->st.copy_slow[1] = u->dev.slow[TQ_DTH];
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

/* Completion */

/* A launched task is back: timestamps, buffers, its TG's accounting. */
static void task_collect(struct usched *u, struct task *t)
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
static void poll_done(struct usched *u, struct task **tail)
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
			cl_int st;

			if (!pollable(t) || predicted_end(u, t) > now)
				continue;
			if (clGetEventInfo(t->ev[t->nev - 1], CL_EVENT_COMMAND_EXECUTION_STATUS,
					   sizeof(st), &st, NULL) || st > CL_COMPLETE) {
				missed = true;
				continue;
			}
			if (st < 0)
				t->err = cl_errno(st, -EIO);
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
static uint64_t poll_when(struct usched *u)
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
	list_del(&next->node);
	if (!next->blocked)
		u->nready--;
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
		list_del(&o->node);
		free(o);
	}
	if (t->c.tg)
		u->st.running--;
	u->st.completed++;
	u->st.polled += t->polled;
	u->st.bytes_cleared += t->cleared;
	if (status == -ECANCELED)
		u->st.cancelled++;
	else if (status)
		u->st.failed++;
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
static struct task **watch(struct usched *u, struct task **tail)
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
				allowed += WATCH_FIRST_GRACE_NS;
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
static void deliver(struct usched *u, struct task *list)
{
	struct task *t, *next;
	struct list *p, *n;

	pthread_mutex_lock(&u->lock);
	list_for_each_safe(p, n, &u->cancelled) {
		t = list_entry(p, struct task, node);
		list_del(&t->node);
		t->batch_next = list;
		list = t;
	}
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

/*
 * A kernel overran its limit (7): tell opts.wedged, then complete every
 * other task, in flight (-EOWNERDEAD) or waiting (-ECANCELED).
 */
static void wedge(struct usched *u)
{
	struct task *due[TG_MAX_INFLIGHT * USCHED_MAX_TG], *list = NULL, **tail = &list;
	unsigned int n = 0;

	pthread_mutex_lock(&u->lock);
	u->st.wedged = true;
	pthread_mutex_unlock(&u->lock);
	if (u->o.wedged)
		u->o.wedged(u->o.wedged_arg);
	/* those with a callback to come; the others are on the done stack already */
	for (unsigned int g = 0; g < u->ninflight; g++)
		for (unsigned int i = 0; i < u->inflight[g]->n; i++)
			if (u->inflight[g]->task[i] && u->inflight[g]->task[i]->cb)
				due[n++] = u->inflight[g]->task[i];
	for (unsigned int i = 0; i < n; i++) {
		struct task *t = due[i];

		if (!t->err)
			t->err = -EOWNERDEAD;
		t->polled = true;
		u->awaiting++;
		task_collect(u, t);
		t->batch_next = NULL;
		*tail = t;
		tail = &t->batch_next;
	}
	usched_cancel(u, USCHED_OWNER_ALL);
	deliver(u, list);
	timer_set(u, JIT_WAIT);
}

int usched_process(struct usched *u)
{
	struct task *done, *t, *next, *list = NULL, **tail = &list, *dl = NULL;
	uint64_t expired;
	eventfd_t v;

	/* Both are non-blocking: this just clears them. */
	eventfd_read(u->efd, &v);
	if (read(u->tfd, &expired, sizeof(expired)) == sizeof(expired))
		u->timer_at = JIT_WAIT;	/* it fired, and is not set any more */
	/* before any task of this batch is collected: watch() looks at their events */
	if (u->limited && !u->st.wedged)
		tail = watch(u, tail);
	/*
	 * The done stack is newest first; reverse it into completion order.
	 * A polled task's callback has come: it is free to go (5).
	 */
	done = atomic_exchange_explicit(&u->done, NULL, memory_order_acquire);
	for (t = done; t; t = next) {
		next = t->done_next;
		if (t->polled) {
			exec_callback_came(t);
			u->awaiting--;
			free(t);
			continue;
		}
		t->batch_next = dl;
		dl = t;
	}
	*tail = dl;
	for (t = dl; t; t = t->batch_next) {
		task_collect(u, t);
		tail = &t->batch_next;
	}
	poll_done(u, tail);
	deliver(u, list);
	if (u->wedging && !u->st.wedged)
		wedge(u);
	if (u->st.wedged)
		return -ENOTRECOVERABLE;
	if (!u->limited)
		u->watch_at = JIT_WAIT;
	tg_launch_next(u);
	return 0;
}

bool usched_idle(struct usched *u)
{
	struct pollfd pfd = { .fd = u->epfd, .events = POLLIN };
	uint64_t now = tq_now_ns(), end = 0, spent;

	if (!u->plans || !u->ninflight)
		return false;
	for (int s = 0; s < USCHED_STAGES; s++) {
		uint64_t busy = u->busy_abs[s] + u->drift;

		if (busy > end)
			end = busy;
	}
	/* a slice short of the device's predicted end: never in the next TG's way */
	if (end < now + 2 * IDLE_SLICE_NS)
		return false;
	/* an event waits: the loop first */
	if (poll(&pfd, 1, 0))
		return false;
	spent = plans_refine(u->plans, u->ws, IDLE_SLICE_NS);
	if (!spent)
		return false;
	pthread_mutex_lock(&u->lock);
	u->st.refine_ns += spent;
	pthread_mutex_unlock(&u->lock);
	return true;
}

/* The loop */

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int usched_fd(struct usched *u)
{
	return u->epfd;
}

/* Closing and nothing left to run. */
static bool drained(struct usched *u)
{
	bool ret;

	pthread_mutex_lock(&u->lock);
	/* a wedged core's callbacks may never come (7) */
	ret = u->closing && !u->nwaiting && !u->st.running && list_empty(&u->cancelled) &&
	      (!u->awaiting || u->st.wedged);
	pthread_mutex_unlock(&u->lock);
	return ret;
}

static void *loop(void *arg)
{
	struct usched *u = arg;
	struct pollfd pfd = { .fd = u->epfd, .events = POLLIN };

	for (;;) {
		usched_process(u);
		if (drained(u))
			return NULL;
		while (usched_idle(u))
			;
		poll(&pfd, 1, -1);
	}
}

int usched_start(struct usched *u)
{
	int ret;

	if (u->threaded)
		return -EBUSY;
	ret = -pthread_create(&u->thread, NULL, loop, u);
	if (!ret)
		u->threaded = true;
	return ret;
}

static void usched_free(struct usched *u)
{
	struct list *p, *n;

	if (u->trace)
		trace_close(u->trace);
	objects_free(u);
	exec_fini(u);
	list_for_each_safe(p, n, &u->owners)
		free(list_entry(p, struct owner, node));
	free(u->ws);
	tq_auto_state_destroy(u->auto_state);
	free(u->res);
	plans_destroy(u->plans);
	free(u->match);
	if (u->efd >= 0)
		close(u->efd);
	if (u->tfd >= 0)
		close(u->tfd);
	if (u->epfd >= 0)
		close(u->epfd);
	pthread_mutex_destroy(&u->build_lock);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

void usched_destroy(struct usched *u)
{
	pthread_mutex_lock(&u->lock);
	u->closing = true;
	pthread_mutex_unlock(&u->lock);
	wake(u);
	if (u->threaded)
		pthread_join(u->thread, NULL);
	else
		loop(u);
	/* A callback may still be on its way out after pushing its task (5). */
	while (atomic_load_explicit(&u->callbacks, memory_order_acquire))
		sched_yield();
	/* the endless kernel still uses the context, and its callback u (7) */
	if (u->st.wedged)
		return;
	usched_free(u);
}

int usched_create(const struct usched_opts *o, struct usched **out)
{
	struct usched *u;
	int ret;

	if (o->max_tg > USCHED_MAX_TG || o->kqueues > MAX_KQUEUES || o->dma > 2 ||
	    !(o->budget >= 0 && o->budget <= 1) || !(o->refine >= 0 && o->refine <= 1))
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->o = *o;
	u->o.kqueues = o->kqueues ? o->kqueues : 1;
	u->st.kqueues = u->o.kqueues;
	u->st.max_tg = o->max_tg ? o->max_tg : 8;
	u->policy = tq_policy_find(o->policy ? o->policy : "auto");
	u->flow = u->policy == &tq_policy_flow;
	pthread_mutex_init(&u->lock, NULL);
	pthread_mutex_init(&u->build_lock, NULL);
	list_init(&u->owners);
	list_init(&u->cancelled);
	u->budget = o->budget ? o->budget : AUTO_BUDGET;
	u->refine = o->no_refine ? 0 : o->refine ? o->refine : REFINE_DEFAULT;
	u->timer_at = JIT_WAIT;
	u->watch_at = JIT_WAIT;
	u->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	u->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	u->epfd = epoll_create1(EPOLL_CLOEXEC);
	u->ws = malloc(sizeof(*u->ws));
	u->auto_state = tq_auto_state_create();
	u->res = malloc(sizeof(*u->res));
	if (!o->no_plans) {
		u->plans = plans_create();
		u->match = malloc(sizeof(*u->match));
	}
	ret = -EINVAL;
	if (!u->policy)
		goto out_free;
	snprintf(u->st.policy, sizeof(u->st.policy), "%s", u->policy->name);
	ret = -ENOMEM;
	if (u->efd < 0 || u->tfd < 0 || u->epfd < 0 || !u->ws || !u->auto_state || !u->res ||
	    (!o->no_plans && (!u->plans || !u->match)) || epoll_add(u->epfd, u->efd) ||
	    epoll_add(u->epfd, u->tfd))
		goto out_free;
	ret = exec_init(u);
	if (!ret)
		ret = model_init(u);
	if (!ret && o->trace)
		ret = exec_trace_open(u, o->trace);
	if (ret)
		goto out_free;
	*out = u;
	return 0;

out_free:
	usched_free(u);
	return ret;
}
