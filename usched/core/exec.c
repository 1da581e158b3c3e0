// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - the OpenCL executor: the device and its queues, the device
 * buffer pool, launching a TG's commands in the paper's queue scheme
 * (section 0.3), and collecting a finished task's profiling timestamps.
 *
 * With two copy engines a TG goes in task by task: each task's HtD copies on
 * the HtD queue, its kernel on a kernel queue waiting for the last copy,
 * its DtH copies on the DtH queue waiting for the kernel. With one, every
 * copy shares one transfer queue, and all HtD copies of the TG go before
 * its DtH copies (else a DtH waiting for its kernel would hold up the HtD
 * copies behind it). Every queue is in order and profiled; a queue is
 * flushed before another queue waits on its events, and each task's
 * commands as soon as they are in: enqueueing a command takes the host tens
 * of microseconds, so the device starts on a TG's first tasks while the
 * host launches the rest (the model's launch cost, dev.submit_ns).
 *
 * An ordered task whose predecessor is still in flight (core.c, 3) makes
 * its first command wait on the predecessor's last event. That event's
 * queue was flushed when the predecessor's TG was launched, and it was
 * enqueued before anything of this TG, so the wait cannot close a cycle.
 * A predecessor in the same TG comes earlier in the launch order (the
 * policies keep chains), so its last event exists by then: its queue is
 * flushed before the wait, and with one copy engine the DtH copies up to
 * the predecessor's go before the successor's HtD copies, as the model has
 * it (sim/model.c), since an HtD waiting for a DtH behind it would never run.
 *
 * A TG's tasks are all of one domain (core.c, 9), so its commands go to
 * that domain's queues and wait only on that context's events; TGs of
 * different domains may be in flight together, each context's queues
 * beside the others', and the driver time-slices the device between the
 * contexts.
 *
 * The OpenCL plumbing itself (choosing and opening the device, profiled
 * queues, waits, stamps, copies) is kernels/cl/clu.h's, shared with tqcalib,
 * tqbench and kernels/; what is usched's own is here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/tqk_cl.h"
#include "tq/clock.h"
#include "internal.h"

#define POOL_MIN	4096	/* smallest device buffer */
#define CLOCK_SAMPLES	5

int cl_errno(cl_int err, int fallback)
{
	switch (err) {
	case CL_SUCCESS:
		return 0;
	case CL_MEM_OBJECT_ALLOCATION_FAILURE:
	case CL_OUT_OF_RESOURCES:
	case CL_OUT_OF_HOST_MEMORY:
		return -ENOMEM;
	default:
		return fallback;
	}
}

/* Device errors (Documentation/usched.md, 15) */

void exec_fault_arm(struct usched *u, const struct exec_fault *f)
{
	u->fault = *f;
	u->fault.seen = 0;
	u->fault.fired = false;
}

/*
 * The seam of fault injection, before each enqueue of a task's command of
 * stage s: the error the armed fault gives that enqueue (0: none; then the
 * enqueue goes to OpenCL). FAULT_EVENT lets it through and marks its event
 * (the next of t's) to report the error once the command is over; a fired
 * FAULT_LOST fails every enqueue after it, ctx_lost()'s marker's too.
 */
static cl_int fault(struct usched *u, struct task *t, enum usched_stage s)
{
	struct exec_fault *f = &u->fault;

	if (f->fired)
		return f->err;
	if (!t || !f->nth || f->stage != s || ++f->seen != f->nth)
		return 0;
	f->nth = 0;
	if (f->mode == FAULT_EVENT) {
		t->fault_ev = t->nev + 1;
		t->fault_err = f->err;
		return 0;
	}
	f->fired = f->mode == FAULT_LOST;
	return f->err;
}

cl_int exec_cmd_status(const struct task *t, unsigned int e)
{
	cl_int st;

	if (clGetEventInfo(t->ev[e], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL))
		return CL_SUBMITTED;
	/* an injected fault shows when the command is over, as a real one does */
	if (e + 1 == t->fault_ev && st == CL_COMPLETE)
		return t->fault_err;
	return st;
}

/*
 * Whether the context still takes commands, after an enqueue failed with
 * an error that may mean it is lost: a launch that does not fit the device
 * (registers, local memory) says CL_OUT_OF_RESOURCES too on NVIDIA, and
 * then a marker still goes in.
 */
static bool ctx_lost(struct usched *u, struct domain *dom)
{
	cl_event ev;
	cl_int err;

	err = fault(u, NULL, USCHED_STAGES) ?: clEnqueueMarkerWithWaitList(dom->mq, 0, NULL, &ev);
	if (err)
		return true;
	clReleaseEvent(ev);
	return false;
}

/*
 * A command of t's of stage s failed with err, at its enqueue or, @ran, on
 * the device: keep both for its completion and return its status (the
 * mapping is usched.h's, struct usched_completion). The two errors that
 * lose the context on the device lose the core's device (u->lost), whichever
 * domain's context it was: the core is wedged as for the shared one (core.c, 8).
 */
static int cmd_failed(struct usched *u, struct task *t, enum usched_stage s, cl_int err,
		      bool ran)
{
	t->c.cl_error = err;
	t->c.cl_stage = s;
	if ((err == CL_OUT_OF_RESOURCES || err == CL_DEVICE_NOT_AVAILABLE) &&
	    (ran || ctx_lost(u, task_domain(t)))) {
		u->lost = true;
		u->wedging = true;
		return -ENODEV;
	}
	switch (err) {
	case CL_MEM_OBJECT_ALLOCATION_FAILURE:
	case CL_OUT_OF_HOST_MEMORY:
	case CL_OUT_OF_RESOURCES:
		return -ENOMEM;
	}
	/* the spec's CL_INVALID_*: an extension's errors start at -1000 */
	if (!ran && err <= CL_INVALID_VALUE && err > -1000)
		return -EINVAL;
	return -EIO;
}

int exec_wait(cl_event ev)
{
	return cl_errno(clu_wait(ev), -EIO);
}

/* Device choice */

struct choice {
	const char *platform, *device;	/* usched_opts' */
	unsigned int devno;	/* among the devices of the platforms chosen */
	char *names;		/* if not NULL: "0: name, 1: name" of those counted */
	size_t len;
};

/* The device the options name: platforms by index or name, then devices. */
static bool chosen(const struct clu_dev *d, void *arg)
{
	struct choice *c = arg;
	size_t n;

	if (!clu_match(c->platform, d->plat_index, d->plat_name))
		return false;
	if (c->names) {
		n = strlen(c->names);
		snprintf(c->names + n, c->len - n, "%s%u: %s", n ? ", " : "", c->devno, d->name);
	}
	return clu_match(c->device, c->devno++, d->name);
}

int usched_device_check(const char *platform, const char *device, char *names, size_t len)
{
	struct choice c = { platform, device, 0, names, len };
	struct clu_dev d;

	if (!len)
		return -EINVAL;
	names[0] = 0;
	return clu_find(chosen, &c, &d) ? -ENODEV : 0;
}

/*
 * Profiling timestamps are in the device's clock (PoCL: CLOCK_MONOTONIC_RAW;
 * NVIDIA: wall-clock time). The offset to CLOCK_MONOTONIC comes from
 * markers: the device stamps one queued while the host is inside
 * clEnqueueMarkerWithWaitList(). Of a few, the one whose call was shortest
 * bounds the offset best (the first call on a queue can take milliseconds).
 */
static int clock_sync(struct usched *u)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CLOCK_SAMPLES; i++) {
		cl_ulong queued;
		uint64_t h0, h1;
		cl_event ev;
		int ret;

		h0 = tq_now_ns();
		if (clEnqueueMarkerWithWaitList(u->shared.mq, 0, NULL, &ev))
			return -EIO;
		h1 = tq_now_ns();
		ret = exec_wait(ev);
		if (!ret && clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof(queued),
						    &queued, NULL))
			ret = -EIO;
		clReleaseEvent(ev);
		if (ret)
			return ret;
		if (h1 - h0 < best) {
			best = h1 - h0;
			u->clock_off = (int64_t)(h0 + (h1 - h0) / 2) - (int64_t)queued;
		}
	}
	return 0;
}

/* The domain's queues in its context c->ctx, every domain's alike. */
static cl_int domain_queues(struct usched *u, struct domain *dom, const struct clu_ctx *c)
{
	cl_int err;

	dom->ctx = c->ctx;
	/* Both copy queues exist either way: the probe needs two; dma 1 uses [HTD]. */
	err = clu_queues(c, &dom->q[USCHED_HTD], 1);
	err = err ?: clu_queues(c, &dom->q[USCHED_DTH], 1);
	err = err ?: clu_queues(c, dom->kq, u->o.kqueues);
	return err ?: clu_queues(c, &dom->mq, 1);
}

int exec_init(struct usched *u)
{
	struct choice ch = { .platform = u->o.platform, .device = u->o.device };
	struct clu_ctx c;
	uint64_t t = tq_now_ns();
	cl_int err;
	int ret;

	err = clu_open(&c, chosen, &ch);
	if (err)
		return cl_errno(err, -ENODEV);
	t = start_phase(u, USCHED_START_DEVICE, t);
	u->platform = c.d.plat;
	u->device = c.d.dev;
	snprintf(u->st.device, sizeof(u->st.device), "%s", c.d.name);
	err = domain_queues(u, &u->shared, &c);
	if (err)
		return cl_errno(err, -ENODEV);
	t = start_phase(u, USCHED_START_QUEUES, t);
	u->max_alloc = c.max_alloc;
	u->global_mem = c.global_mem;
	/* A TG takes at most a quarter, the TGs in flight half, the pool a quarter. */
	u->tg_bytes = c.global_mem / 4;
	u->inflight_max = c.global_mem / 2;
	u->shared.pool.max_bytes = c.global_mem / 4;
	ret = clock_sync(u);
	start_phase(u, USCHED_START_CLOCK, t);
	return ret;
}

/* The device buffer pool */

struct pool_buf {
	struct pool_buf *next;
	cl_mem mem;
	uint64_t bytes;
	uint64_t owner;		/* whose task used it last */
};

/* Sizes round up to a quarter of a power of two: at most 25% unused. */
static uint64_t pool_class(uint64_t len)
{
	uint64_t step;

	if (len <= POOL_MIN)
		return POOL_MIN;
	step = (1ull << (63 - __builtin_clzll(len - 1))) / 4;
	return (len + step - 1) & ~(step - 1);
}

static void pool_drain(struct pool *p)
{
	while (p->free) {
		struct pool_buf *b = p->free;

		p->free = b->next;
		clReleaseMemObject(b->mem);
		free(b);
	}
	p->free_bytes = 0;
}

/*
 * A device buffer of at least len bytes for owner's task. *clean: it holds
 * nothing but owner's own bytes (it was owner's last), so it need not be
 * cleared; a new buffer may hold anything, OpenCL does not zero it.
 */
static cl_mem pool_get(struct usched *u, struct domain *dom, uint64_t len, uint64_t owner,
		       uint64_t *bytes, bool *clean, cl_int *err)
{
	struct pool *p = &dom->pool;
	uint64_t want = pool_class(len);
	struct pool_buf **pb, **any = NULL;
	cl_mem mem;

	if (want > u->max_alloc)
		want = len;	/* usched_submit() checked len against it */

	/* the owner's own buffer first: no clearing */
	for (pb = &p->free; *pb; pb = &(*pb)->next) {
		if ((*pb)->bytes != want)
			continue;
		if ((*pb)->owner == owner)
			break;
		if (!any)
			any = pb;
	}
	if (!*pb)
		pb = any;
	if (pb) {
		struct pool_buf *b = *pb;

		*pb = b->next;
		p->free_bytes -= want;
		mem = b->mem;
		*clean = b->owner == owner;
		free(b);
		*bytes = want;
		return mem;
	}
	*clean = false;
	mem = clCreateBuffer(dom->ctx, CL_MEM_READ_WRITE, want, NULL, err);
	if (cl_errno(*err, 0) == -ENOMEM && p->free) {
		pool_drain(p);	/* buffers of other sizes may be in the way */
		mem = clCreateBuffer(dom->ctx, CL_MEM_READ_WRITE, want, NULL, err);
	}
	*bytes = want;
	return *err ? NULL : mem;
}

static void pool_put(struct domain *dom, cl_mem mem, uint64_t bytes, uint64_t owner)
{
	struct pool *p = &dom->pool;
	struct pool_buf *b = NULL;

	if (p->free_bytes + bytes <= p->max_bytes)
		b = malloc(sizeof(*b));
	if (!b) {
		clReleaseMemObject(mem);
		return;
	}
	b->mem = mem;
	b->bytes = bytes;
	b->owner = owner;
	b->next = p->free;
	p->free = b;
	p->free_bytes += bytes;
}

static void domain_close(struct domain *dom)
{
	pool_drain(&dom->pool);
	for (unsigned int i = 0; i < MAX_KQUEUES; i++)
		if (dom->kq[i])
			clReleaseCommandQueue(dom->kq[i]);
	for (int s = 0; s < USCHED_STAGES; s++)
		if (dom->q[s])
			clReleaseCommandQueue(dom->q[s]);
	if (dom->mq)
		clReleaseCommandQueue(dom->mq);
	if (dom->ctx)
		clReleaseContext(dom->ctx);
}

void exec_fini(struct usched *u)
{
	domain_close(&u->shared);
}

/* Isolation domains (core.c, 9) */

struct domain *domain_find(struct usched *u, uint64_t key)
{
	struct list *p, *n;

	if (key == USCHED_SHARED)
		return &u->shared;
	list_for_each_safe(p, n, &u->domains) {
		struct domain *dom = list_entry(p, struct domain, node);

		if (dom->key == key) {
			dom->refs++;
			return dom;
		}
	}
	return NULL;
}

/* A new context on the core's device, with queues and a pool like the shared one's. */
static int domain_open(struct usched *u, uint64_t key, struct domain **out)
{
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
					  (cl_context_properties)u->platform, 0 };
	struct clu_ctx c = { .d = { .plat = u->platform, .dev = u->device } };
	struct domain *dom = calloc(1, sizeof(*dom));
	cl_int err;

	if (!dom)
		return -ENOMEM;
	dom->key = key;
	dom->refs = 1;
	/* A smaller pool: each domain's buffers are the device memory others lack. */
	dom->pool.max_bytes = u->global_mem / 16;
	c.ctx = clCreateContext(props, 1, &u->device, NULL, NULL, &err);
	if (!err)
		err = domain_queues(u, dom, &c);
	if (err) {
		domain_close(dom);
		free(dom);
		return cl_errno(err, -ENODEV);
	}
	*out = dom;
	return 0;
}

int domain_get(struct usched *u, uint64_t key, struct domain **out)
{
	struct domain *dom;
	int ret = 0;

	/* Opening one takes long: not under u->lock, and one at a time. */
	pthread_mutex_lock(&u->domain_lock);
	pthread_mutex_lock(&u->lock);
	dom = domain_find(u, key);
	pthread_mutex_unlock(&u->lock);
	if (!dom) {
		ret = domain_open(u, key, &dom);
		if (!ret) {
			pthread_mutex_lock(&u->lock);
			list_add_tail(&dom->node, &u->domains);
			u->st.domains++;
			pthread_mutex_unlock(&u->lock);
		}
	}
	pthread_mutex_unlock(&u->domain_lock);
	*out = dom;
	return ret;
}

void domain_put(struct usched *u, struct domain *dom)
{
	if (dom == &u->shared || --dom->refs)
		return;
	list_del_init(&dom->node);
	u->st.domains--;
	domain_close(dom);
	free(dom);
}

/* Launching */

static void CL_CALLBACK task_done(cl_event ev, cl_int status, void *arg)
{
	struct task *t = arg;
	struct usched *u = t->u;
	_Atomic(struct task *) *stack;
	bool hold;

	/* Only record and signal: no OpenCL calls here (see core.c, 5). */
	(void)ev;
	(void)status;	/* exec_collect() asks every command's event */
	atomic_fetch_add(&u->callbacks, 1);
	/* counted first, so that callbacks_release() waits for this push */
	hold = atomic_load(&u->hold_callbacks);
	stack = hold ? &u->held : &u->done;
	t->done_next = atomic_load_explicit(stack, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(stack, &t->done_next, t,
						      memory_order_release,
						      memory_order_relaxed))
		;
	if (!hold)
		wake(u);
	atomic_fetch_sub_explicit(&u->callbacks, 1, memory_order_release);
}

/* One copy of buffer i in stage s, after the wait events; recorded in t->ev. */
static int copy(struct usched *u, struct task *t, cl_command_queue q, unsigned int i,
		enum usched_stage s, cl_uint nwait, const cl_event *wait)
{
	const struct usched_buf *b = &t->t.buf[i];
	char *host = t->reg[i]->map + ((char *)b->host - t->reg[i]->base);
	cl_int err = fault(u, t, s) ?: clu_copy(q, s == USCHED_HTD, t->dev[i], b->len, host,
						 nwait, wait, &t->ev[t->nev]);

	if (err)
		return cmd_failed(u, t, s, err, false);
	t->ev_stage[t->nev++] = s;
	return 0;
}

/* Zero bytes [off, off + len) of a device buffer on q after *wait (if any), without an event. */
static cl_int clear(cl_command_queue q, cl_mem mem, uint64_t off, uint64_t len, cl_event *wait)
{
	static const cl_uint zero;
	size_t pattern = sizeof(zero);

	/* the offset and the size must be multiples of the pattern's */
	while ((off | len) & (pattern - 1))
		pattern /= 2;
	return clEnqueueFillBuffer(q, mem, &zero, pattern, off, len, wait ? 1 : 0, wait, NULL);
}

/*
 * Memory hygiene: the device bytes a task's kernel may read, or its copies
 * back may return, that neither its copies in nor (for a built-in) its
 * kernel write are zeroed before the kernel runs (core.c sets the ranges),
 * unless the buffer's last user was the same owner: its own bytes are no
 * secret to it. The fills go on the kernel's own queue after the task's
 * last HtD copy: there they cost kernel-engine time just before the kernel
 * that needs them, and hold up no copies (a fill on a copy queue can wait
 * there for the compute units a running kernel holds). The bytes cleared
 * are counted in t->cleared.
 */
static int clear_bufs(struct usched *u, struct task *t, const bool *clean)
{
	const struct usched_task *d = &t->t;
	cl_event *wait = t->nev ? &t->ev[t->nev - 1] : NULL;

	if (u->o.no_clear)
		return 0;
	for (unsigned int i = 0; i < d->nbufs; i++) {
		uint64_t from = t->clear_from[i];
		uint64_t to = t->clear_to[i] < t->dev_bytes[i] ? t->clear_to[i] : t->dev_bytes[i];
		cl_int err;

		if (clean[i] || from >= to)
			continue;
		err = clear(task_domain(t)->kq[t->kq], t->dev[i], from, to - from, wait);
		if (err)
			return cmd_failed(u, t, USCHED_K, err, false);
		t->cleared += to - from;
	}
	return 0;
}

/* Device buffers, HtD copies and the kernel of t. */
static int launch_in(struct usched *u, struct task *t)
{
	struct domain *dom = task_domain(t);
	const struct usched_task *d = &t->t;
	cl_kernel k = t->kern->k;
	bool clean[USCHED_MAX_BUFS];
	cl_event after = NULL;
	bool local = false;
	cl_int err;
	int ret;

	if (t->after && t->after->nev) {
		after = t->after->ev[t->after->nev - 1];
		/* a predecessor of this TG: its DtH queue is not flushed yet */
		if (t->after->tg == t->tg && t->after->ev_stage[t->after->nev - 1] == USCHED_DTH)
			clFlush(dom->q[u->dev.dma == 2 ? USCHED_DTH : USCHED_HTD]);
	}

	for (unsigned int i = 0; i < d->nbufs; i++) {
		t->dev[i] = pool_get(u, dom, d->buf[i].len, d->owner, &t->dev_bytes[i],
				     &clean[i], &err);
		if (!t->dev[i])
			return cmd_failed(u, t, USCHED_HTD, err, false);
	}
	for (unsigned int i = 0; i < d->nbufs; i++) {
		if (d->buf[i].dir & USCHED_IN) {
			/* the first waits for the predecessor; in order, the rest follow */
			bool wait = after && !t->nev;

			ret = copy(u, t, dom->q[USCHED_HTD], i, USCHED_HTD, wait,
				   wait ? &after : NULL);
			if (ret)
				return ret;
		}
	}
	if (t->nev)
		clFlush(dom->q[USCHED_HTD]);
	ret = clear_bufs(u, t, clean);
	if (ret)
		return ret;

	for (unsigned int i = 0; i < d->nargs; i++) {
		const struct usched_arg *a = &d->arg[i];

		if (a->kind == USCHED_ARG_BUF)
			err = clSetKernelArg(k, i, sizeof(cl_mem), &t->dev[a->buf]);
		else
			err = clSetKernelArg(k, i, a->size, a->val);
		if (err)
			return cmd_failed(u, t, USCHED_K, err, false);
	}
	for (unsigned int i = 0; i < d->dim; i++)
		local |= d->local[i] != 0;
	/*
	 * An in-order queue: waiting for the last HtD copy waits for them all;
	 * without one, for the predecessor.
	 */
	if (t->nev)
		after = t->ev[t->nev - 1];
	err = fault(u, t, USCHED_K) ?:
	      clEnqueueNDRangeKernel(dom->kq[t->kq], k, d->dim, NULL, d->global,
				     local ? d->local : NULL, after ? 1 : 0,
				     after ? &after : NULL, &t->ev[t->nev]);
	if (err)
		return cmd_failed(u, t, USCHED_K, err, false);
	t->ev_stage[t->nev++] = USCHED_K;
	t->kev = t->nev;
	clFlush(dom->kq[t->kq]);
	return 0;
}

/* The DtH copies of t on queue q, after its kernel (its latest event). */
static int launch_out(struct usched *u, struct task *t, cl_command_queue q)
{
	cl_event kernel = t->ev[t->nev - 1];

	for (unsigned int i = 0; i < t->t.nbufs; i++) {
		if (t->t.buf[i].dir & USCHED_OUT) {
			int ret = copy(u, t, q, i, USCHED_DTH, 1, &kernel);

			if (ret)
				return ret;
		}
	}
	return 0;
}

/* One copy engine: the DtH copies of the TG's tasks [from, to), in order; returns @to. */
static unsigned int launch_outs(struct usched *u, struct tg *tg, unsigned int from,
				unsigned int to, cl_command_queue out)
{
	for (; from < to; from++) {
		struct task *t = tg->task[from];

		if (!t->err)
			t->err = launch_out(u, t, out);
	}
	return to;
}

/*
 * Launch the TG's tasks in their order. A task the device refuses gets its
 * error in t->err and completes when what it did launch has finished; a
 * LINKED successor of it in this TG is not launched (-ECANCELED), nor is
 * any task once the device is lost.
 */
int exec_launch(struct usched *u, struct tg *tg)
{
	cl_command_queue out = tg->dom->q[u->dev.dma == 2 ? USCHED_DTH : USCHED_HTD];
	unsigned int outs = 0;	/* one copy engine: tasks whose DtHs are enqueued */

	for (unsigned int i = 0; i < tg->n; i++) {
		struct task *t = tg->task[i];

		/* one copy engine: the DtHs up to a predecessor's in this TG first */
		for (unsigned int j = outs; u->dev.dma == 1 && t->after && j < i; j++)
			if (tg->task[j] == t->after)
				outs = launch_outs(u, tg, outs, j + 1, out);
		/* the model's round-robin from the queue free first (form.c, tg_model()) */
		t->kq = (tg->kq_base + i) % u->o.kqueues;
		if (u->lost || (t->after && t->after->tg == tg && t->after->err &&
				t->t.flags & USCHED_TASK_LINKED)) {
			t->err = -ECANCELED;
			continue;
		}
		t->err = launch_in(u, t);
		if (u->dev.dma == 2 && !t->err) {
			t->err = launch_out(u, t, out);
			clFlush(out);
		}
	}
	if (u->dev.dma == 1)
		launch_outs(u, tg, outs, tg->n, out);
	clFlush(out);
	for (unsigned int i = 0; i < tg->n; i++) {
		struct task *t = tg->task[i];

		/* a lost device's callbacks may never come: its failed task completes first */
		if (t->nev && !(u->lost && t->err) &&
		    !clSetEventCallback(t->ev[t->nev - 1], CL_COMPLETE, task_done, t)) {
			t->cb = true;
			continue;
		}
		/*
		 * Nothing to wait for, or no way to: complete it now. Its
		 * buffers are then released, not pooled (see exec_collect()),
		 * and OpenCL keeps them alive while commands still use them.
		 */
		if (!t->err)
			t->err = -EIO;
		task_done(NULL, CL_SUCCESS, t);
	}
	return 0;
}

/*
 * A finished task: read its commands' timestamps into t->c, learn from its
 * kernel's time, give its device buffers back. Runs on the loop thread.
 */
void exec_collect(struct usched *u, struct task *t)
{
	unsigned int cmd[USCHED_STAGES] = { 0 };	/* commands seen per stage */
	struct usched_completion *c = &t->c;
	int status = t->err;

	/* the first command that failed on the device fails the task */
	for (unsigned int e = 0; e < t->nev && !status; e++) {
		cl_int st = exec_cmd_status(t, e);

		if (st < 0)
			status = cmd_failed(u, t, t->ev_stage[e], st, true);
	}
	for (unsigned int e = 0; e < t->nev; e++) {
		unsigned int s = t->ev_stage[e];
		uint64_t start = clu_start(t->ev[e]);
		uint64_t end = start ? clu_end(t->ev[e]) : 0;	/* 0: it did not run */

		/* a callback on its way holds the last event: exec_callback_came() drops it */
		if (!t->polled || e + 1 < t->nev)
			clReleaseEvent(t->ev[e]);
		if (!end)
			continue;
		start += u->clock_off;
		end += u->clock_off;
		c->busy_ns[s] += end - start;
		if (!c->stage_start[s] || start < c->stage_start[s])
			c->stage_start[s] = start;
		if (end > c->stage_end[s])
			c->stage_end[s] = end;
		/* standalone: a kernel the model has share the device ran slower */
		if (s == USCHED_K && !status)
			kmodel_add(&t->kern->model, t->t.m, (end - start) * t->kshare);
		trace_cmd(u, t, e, cmd[s]++, start, end);
	}
	for (int s = 0; s < USCHED_STAGES; s++) {
		if (c->stage_start[s] && (!c->start_ns || c->stage_start[s] < c->start_ns))
			c->start_ns = c->stage_start[s];
		if (c->stage_end[s] > c->end_ns)
			c->end_ns = c->stage_end[s];
	}
	for (unsigned int i = 0; i < t->t.nbufs; i++) {
		if (!t->dev[i])
			continue;
		if (status)
			clReleaseMemObject(t->dev[i]);
		else
			pool_put(task_domain(t), t->dev[i], t->dev_bytes[i], t->t.owner);
	}
	c->status = status;
}

void exec_callback_came(struct task *t)
{
	clReleaseEvent(t->ev[t->nev - 1]);
}
