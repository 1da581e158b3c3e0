// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - the scheduling core's loop and life: usched_create() and
 * usched_destroy(), usched_process() (completions in, the next TGs out),
 * usched_idle() and the loop's thread. The essay below is the whole core's;
 * its other files name its sections by number: submit.c (1, 3), form.c
 * (3, 4), jit.c (4), complete.c (5, 7), exec.c, objects.c, model.c,
 * plans.c, trace.c.
 *
 * 1. Objects. A struct usched owns one OpenCL device, its shared context
 *    and queues, and the isolation domains' (9). Regions (registered host memory), programs and kernels are
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
 *    tqsim_tg_set_after(); every policy keeps each task after its
 *    predecessor). A successor in a later TG, its predecessor in flight,
 *    gets a release time instead, the predecessor's predicted end. Either
 *    way its first command waits on the predecessor's last event on the
 *    device (exec.c). TG size is also capped by device memory (a quarter of
 *    it per TG). USCHED_TASK_LINKED adds a chain's promise to ORDERED (the
 *    daemon's TQ_DESC_F_AFTER): if the predecessor fails, a successor not
 *    yet taken is cancelled (-ECANCELED) and never runs; one taken into the
 *    same TG behind a task whose launch failed is not launched; one whose
 *    predecessor's commands went in waits on its last event, which a device
 *    error fails too, and is reported -ECANCELED whatever its commands did.
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
 *    tells the start better, and PoCL compiles a kernel at its first launch
 *    of each work-group size, before it runs: from CL_RUNNING on, the limit
 *    counts from there. A kernel's first launch of a shape (its local size,
 *    or its global size where the driver chooses the local one) not seen
 *    running gets WATCH_COMPILE_GRACE_NS more (the driver may be compiling
 *    it). OpenCL cannot stop a running
 *    kernel, so the core is wedged from then on: after the culprit's
 *    completion it calls opts.wedged (a daemon re-executes itself there,
 *    and its OpenCL context dies with the old image), then completes the
 *    other tasks in flight with -EOWNERDEAD and those waiting with
 *    -ECANCELED, refuses new ones, and usched_destroy() leaves the OpenCL
 *    objects the endless kernel still uses to the process's exit.
 *
 * 8. Device errors. A command that fails, at its enqueue or on the device
 *    (a negative execution status: exec_collect() asks every command of a
 *    finished task), fails its task alone, -ENOMEM, -EINVAL or -EIO by the
 *    error (usched.h), with the error and the command's stage in its
 *    completion; the rest of its TG runs, its LINKED successors complete
 *    -ECANCELED (3). CL_OUT_OF_RESOURCES or CL_DEVICE_NOT_AVAILABLE on the
 *    device, or from an enqueue after which a marker fails too, mean the
 *    context is lost (NVIDIA's, after a kernel's fault): that task completes
 *    -ENODEV and the core is wedged as in 7, opts.wedged first: a daemon
 *    re-executes itself and gets a new context. Tests inject faults where
 *    real errors come in (exec.c, exec_fault_arm()).
 *
 * 9. Isolation domains. Regions and programs are registered in a domain
 *    (usched.h): the shared one, opened by usched_create(), or an
 *    isolation domain of a key, an OpenCL context of its own on the same
 *    device with its own queues (as many and of the same kind) and buffer
 *    pool, opened at its key's first registration and closed when its
 *    last region and program go (exec.c, domain_get()). Its tasks'
 *    kernels, regions and device buffers are its context's, so one key's
 *    kernel cannot reach another's device memory. OpenCL cannot wait on an
 *    event of another context, so a TG is of one domain: formation takes
 *    the first task's domain's tasks only and leaves each owner whose next
 *    task is of another domain at the front for the next TG (3's
 *    fairness holds), and an ORDERED task of another domain than its
 *    predecessor is refused. TGs of different domains may be in flight
 *    together; each context's commands go to its own queues and the driver
 *    time-slices the device between them. The model, the launch decision
 *    and the metrics are the core's, as if one context ran everything.
 *    A lost context, of any domain, wedges the core (8).
 *
 * 10. Classes, deadlines and shares. A task has a class (usched_task.prio,
 *    BACKGROUND to CRITICAL), maybe a deadline and a fair-share group (an
 *    explicit share, else its owner's own). Each owner keeps a ready list
 *    per class, and a TG is of one class: the highest with a task ready
 *    (form.c), so a higher task never waits behind a lower one's command
 *    not yet enqueued. While a class above the TG's is active (tasks not
 *    completed, or one submitted within PRIO_ACTIVE_NS) the lower TG is
 *    launched as soon as every engine has at most opts.prio_ahead_ms of
 *    predicted work left (not when the engines need it: on one copy engine
 *    the higher class's copies would keep it waiting for ever), and takes
 *    tasks while each engine's work left plus theirs stays within it, its
 *    first always: a high task waits for at most that plus the command on
 *    the engine. Inside the class, tasks with a deadline are taken first,
 *    earliest first; then, once a task named a share or a weight was set
 *    (usched_share_set()), the group of least virtual time (its engine time
 *    in the class, the model's standalone prediction, over its weight; a
 *    group that had nothing ready starts at the class's clock, the virtual
 *    time of the group served last, so idling banks nothing); else
 *    round-robin as in 3. The policy orders the TG as before; a latency
 *    class's (above NORMAL) is then ordered for the least weighted
 *    completion time (sim/qos.c: every order of up to 8 tasks in exact's
 *    budget), and one with deadlines earliest deadline first (least laxity)
 *    where the model says that misses fewer. Admission: the loop tries each
 *    new task with a deadline once, before the next formation: if the model
 *    says it cannot end by then even run next on the engines as they are,
 *    it completes with -ETIMEDOUT and never runs (opts.deadline REFUSE),
 *    or runs and its completion says USCHED_DONE_LATE (FLAG); any task
 *    that ends after its deadline says so too. With every task NORMAL, no
 *    deadline and no share named, formation, launch and order are 3's and
 *    4's as they were.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <tq/daemon.h>

#include "internal.h"

_Static_assert((int)USCHED_HTD == (int)TQSIM_HTD && (int)USCHED_K == (int)TQSIM_K &&
	       (int)USCHED_DTH == (int)TQSIM_DTH, "usched and sim name stages alike");
_Static_assert(USCHED_MAX_TG <= TQSIM_MAX_TASKS, "a TG fits the simulator");

void usched_stats(struct usched *u, struct usched_stats *s)
{
	pthread_mutex_lock(&u->lock);
	*s = u->st;
	s->waiting = u->nwaiting;
	pthread_mutex_unlock(&u->lock);
	trace_stats(u, s);
}

const char *usched_start_phase_name(unsigned int phase)
{
	static const char *const name[USCHED_START_PHASES] = { "device", "queues", "clock",
							       "calibration" };

	return phase < USCHED_START_PHASES ? name[phase] : "?";
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

/*
 * Whether this is the kernel's first launch of t's shape, which a driver
 * may compile before it runs (7): PoCL specialises a kernel for each
 * work-group size, its own choice from the global size where the task
 * gives none. Remembers the shape.
 */
static bool kern_new_shape(struct kern *k, const struct usched_task *t)
{
	const size_t *by = t->local[0] ? t->local : t->global;
	uint64_t key = t->dim;

	for (unsigned int d = 0; d < t->dim; d++)
		key = key * 0x100000001b3ull ^ by[d];
	key = key << 1 | (t->local[0] != 0);
	for (unsigned int i = 0; i < k->nshape && i < KERN_SHAPES; i++)
		if (k->shape[i] == key)
			return false;
	k->shape[k->nshape++ % KERN_SHAPES] = key;
	return true;
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
		t->first = kern_new_shape(t->kern, &t->t);
	}
	if (u->o.started)
		u->o.started(u->o.started_arg, s, tg->n);
}

/* Launch TGs while jit_when() says so, then set the timer for the next one. */
static void tg_launch_next(struct usched *u)
{
	uint64_t at = JIT_WAIT, poll_at;

	/* the device was lost at a launch: usched_process() wedges the core (8) */
	while (!u->lost) {
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
		tg_admit(u);
		jit_gather(u, &in);
		at = u->flow ? jit_when_flow(&in, &u->jit_tg, &u->dev, u->res) : jit_when(&in);
		/*
		 * a higher class is active: as soon as no more than prio_ahead of
		 * lower-class work is ahead (10), not when the engines need it
		 */
		if (at != JIT_WAIT && in.throttled)
			at = in.not_before > t0 ? in.not_before : 0;
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
		tg->dom = task_domain(tasks[0]);
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
		trace_tg_launch(u, tg, tasks);
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

/*
 * A kernel overran its limit (7) or the device was lost (8): tell
 * opts.wedged, then complete every other task, in flight (-EOWNERDEAD) or
 * waiting (-ECANCELED).
 */
static void wedge(struct usched *u)
{
	struct task *due[TG_MAX_INFLIGHT * USCHED_MAX_TG], *list = NULL, **tail = &list;
	unsigned int n = 0;

	pthread_mutex_lock(&u->lock);
	u->st.wedged = true;
	u->st.lost = u->lost;
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
	batch_deliver(u, list);
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
	/* before any task of this batch is collected: watch_limits() looks at their events */
	if (u->limited && !u->st.wedged)
		tail = watch_limits(u, tail);
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
	batch_deliver(u, list);
	if (u->wedging && !u->st.wedged)
		wedge(u);
	if (u->st.wedged) {
		trace_flush(u);
		return -ENOTRECOVERABLE;
	}
	if (!u->limited)
		u->watch_at = JIT_WAIT;
	tg_launch_next(u);
	trace_flush(u);
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

	trace_fini(u);
	objects_free(u);
	exec_fini(u);
	list_for_each_safe(p, n, &u->owners)
		free(list_entry(p, struct owner, node));
	list_for_each_safe(p, n, &u->shares)
		free(list_entry(p, struct share, node));
	free(u->ws);
	tqsim_auto_state_destroy(u->auto_state);
	free(u->res);
	plans_destroy(u->plans);
	free(u->match);
	if (u->efd >= 0)
		close(u->efd);
	if (u->tfd >= 0)
		close(u->tfd);
	if (u->epfd >= 0)
		close(u->epfd);
	pthread_mutex_destroy(&u->trace_lock);
	pthread_mutex_destroy(&u->domain_lock);
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
	usched_trace_stop(u);	/* whole, even when wedged */
	/* the endless kernel still uses the context, and its callback u (7) */
	if (u->st.wedged)
		return;
	usched_free(u);
}

/* opts.trace: a file of its own, mode 0640 as a daemon's trace (whatever the umask). */
static int trace_open_path(struct usched *u, const char *path, uint64_t max_bytes)
{
	int group_err, fd = tq_file_create(path, 0, (gid_t)-1, &group_err);

	return fd < 0 ? fd : usched_trace_start(u, fd, max_bytes);
}

int usched_create(const struct usched_opts *o, struct usched **out)
{
	struct usched *u;
	int ret;

	if (o->max_tg > USCHED_MAX_TG || o->kqueues > MAX_KQUEUES || o->dma > 2 ||
	    !(o->budget >= 0 && o->budget <= 1) || !(o->refine >= 0 && o->refine <= 1) ||
	    !(o->prio_ahead_ms >= 0 && o->prio_ahead_ms <= 1000) ||
	    o->deadline > USCHED_DEADLINE_FLAG)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->o = *o;
	u->o.kqueues = o->kqueues ? o->kqueues : 1;
	u->st.kqueues = u->o.kqueues;
	u->st.max_tg = o->max_tg ? o->max_tg : 8;
	u->policy = tqsim_policy_find(o->policy ? o->policy : "auto");
	u->flow = u->policy == &tqsim_policy_flow;
	pthread_mutex_init(&u->lock, NULL);
	pthread_mutex_init(&u->build_lock, NULL);
	pthread_mutex_init(&u->domain_lock, NULL);
	pthread_mutex_init(&u->trace_lock, NULL);
	list_init(&u->owners);
	list_init(&u->domains);
	list_init(&u->cancelled);
	list_init(&u->admit);
	list_init(&u->shares);
	u->ahead_ns = o->prio_ahead_ms ? (uint64_t)(o->prio_ahead_ms * 1e6) : PRIO_AHEAD_NS;
	u->budget = o->budget ? o->budget : AUTO_BUDGET;
	u->refine = o->no_refine ? 0 : o->refine ? o->refine : REFINE_DEFAULT;
	u->timer_at = JIT_WAIT;
	u->watch_at = JIT_WAIT;
	u->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	u->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	u->epfd = epoll_create1(EPOLL_CLOEXEC);
	u->ws = malloc(sizeof(*u->ws));
	u->auto_state = tqsim_auto_state_create();
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
	if (!ret) {
		uint64_t t = tq_now_ns();

		ret = model_init(u);
		start_phase(u, USCHED_START_CALIB, t);
	}
	if (!ret && o->trace)
		ret = trace_open_path(u, o->trace, o->trace_max);
	if (ret)
		goto out_free;
	*out = u;
	return 0;

out_free:
	usched_free(u);
	return ret;
}
