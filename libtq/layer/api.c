// SPDX-License-Identifier: GPL-2.0
/*
 * api.c - the entry points of libtqcl.so: clGetLayerInfo and clInitLayer,
 * which ocl-icd calls when OPENCL_LAYERS names this library, and the OpenCL
 * functions the layer overrides in the dispatch table it hands back. Every
 * other function of the table is the next one's, untouched.
 *
 * Three kinds of override:
 *  - tracking (contexts, queues, buffers, programs, kernels, their
 *    retain/release): call the driver, then note what the layer needs;
 *  - capture (clEnqueueWriteBuffer, clEnqueueReadBuffer,
 *    clEnqueueNDRangeKernel, clEnqueueTask): done through tq when every
 *    check passes, else passed through with the reason counted;
 *  - pass-through of every other command on a queue: first the buffers it
 *    names are brought up to date in the driver and the command is ordered
 *    after the queue's captured ones (pass_begin / pass_end).
 * A check that fails because an argument is invalid passes the call
 * through too: the driver gives the error OpenCL specifies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tqcl.h"

struct _cl_icd_dispatch tqcl_next;
static struct _cl_icd_dispatch layer;

struct tqcl tqcl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.stats_fd = -1,
};

#define LOCK()		pthread_mutex_lock(&tqcl.lock)
#define UNLOCK()	pthread_mutex_unlock(&tqcl.lock)

/* What a pass-through was: a write, read, kernel or other command. */
enum { K_WRITE, K_READ, K_KERNEL, K_OTHER };

static const char *const why_names[W_NR] = {
	[W_CAPTURE] = "captured",
	[W_OFF] = "off",
	[W_QUEUE_OOO] = "out-of-order-queue",
	[W_QUEUE_PROFILING] = "profiling-queue",
	[W_QUEUE_OTHER] = "queue-properties",
	[W_CTX_DEVICES] = "context-devices",
	[W_WAIT_FOREIGN] = "waits-for-driver-event",
	[W_QUEUE_BUSY] = "queue-busy",
	[W_INVALID] = "invalid-arguments",
	[W_BUF_UNKNOWN] = "not-a-plain-buffer",
	[W_BUF_ALIASED] = "aliased-buffer",
	[W_BUF_BIG] = "buffer-too-big",
	[W_ARENA_FULL] = "arena-full",
	[W_KERN_UNKNOWN] = "program-not-from-source",
	[W_KERN_ARGS] = "kernel-argument-kind",
	[W_KERN_LIMITS] = "kernel-too-many-arguments",
	[W_KERN_SCALAR] = "kernel-scalar-size",
	[W_KERN_ALIAS] = "kernel-buffer-twice",
	[W_KERN_SVM] = "kernel-svm",
	[W_KERN_OFFSET] = "global-offset",
	[W_KERN_SHAPE] = "work-size",
	[W_PROG_GLOBALS] = "program-scope-variables",
	[W_PROG_REFUSED] = "usched-refused",
	[W_ON_DEVICE] = "data-on-device",
	[W_MAPPED] = "buffer-mapped",
	[W_COMMAND] = "command",
};

void tqcl_count_pass(enum tqcl_why why, int kind)
{
	tqcl.st.why[why]++;
	switch (kind) {
	case K_WRITE:
		tqcl.st.pass_write++;
		break;
	case K_READ:
		tqcl.st.pass_read++;
		break;
	case K_KERNEL:
		tqcl.st.pass_kernel++;
		break;
	default:
		tqcl.st.pass_other++;
	}
}

/*
 * TQCL_STATS=1: a summary on stderr at exit; TQCL_STATS=PATH: one line of
 * key=value pairs appended to PATH (what the tests read).
 */
void tqcl_stats_print(void)
{
	const struct tqcl_stats *s = &tqcl.st;
	char line[2048];
	int n = 0;

	if (tqcl.stats_fd < 0)
		return;
	LOCK();
	if (tqcl.stats_fd == 2) {
		fprintf(stderr,
			"tqcl: pid %d: captured %llu writes (%llu bytes), %llu kernels, %llu reads (%llu bytes); tasks %llu ok, %llu replayed, %llu failed\n",
			(int)getpid(), (unsigned long long)s->cap_write,
			(unsigned long long)s->cap_write_bytes, (unsigned long long)s->cap_kernel,
			(unsigned long long)s->cap_read, (unsigned long long)s->cap_read_bytes,
			(unsigned long long)s->tasks_ok, (unsigned long long)s->tasks_replayed,
			(unsigned long long)s->tasks_failed);
		fprintf(stderr,
			"tqcl: passed through %llu writes, %llu kernels, %llu reads, %llu other commands; buffer syncs %llu to the arena, %llu to the device (%llu bytes)\n",
			(unsigned long long)s->pass_write, (unsigned long long)s->pass_kernel,
			(unsigned long long)s->pass_read, (unsigned long long)s->pass_other,
			(unsigned long long)s->sync_to_arena, (unsigned long long)s->sync_to_dev,
			(unsigned long long)s->sync_bytes);
		for (int i = 0; i < W_NR; i++)
			if (s->why[i])
				n += snprintf(line + n, sizeof(line) - n, " %s %llu", why_names[i],
					      (unsigned long long)s->why[i]);
		if (n)
			fprintf(stderr, "tqcl: passed through because:%s\n", line);
		UNLOCK();
		return;
	}
	n = snprintf(line, sizeof(line),
		     "pid=%d cap_write=%llu cap_read=%llu cap_kernel=%llu cap_write_bytes=%llu cap_read_bytes=%llu tasks_ok=%llu tasks_replayed=%llu tasks_failed=%llu pass_write=%llu pass_read=%llu pass_kernel=%llu pass_other=%llu sync_to_arena=%llu sync_to_dev=%llu sync_bytes=%llu progs=%llu kerns=%llu wait_ns=%llu layer_ns=%llu",
		     (int)getpid(), (unsigned long long)s->cap_write,
		     (unsigned long long)s->cap_read, (unsigned long long)s->cap_kernel,
		     (unsigned long long)s->cap_write_bytes, (unsigned long long)s->cap_read_bytes,
		     (unsigned long long)s->tasks_ok, (unsigned long long)s->tasks_replayed,
		     (unsigned long long)s->tasks_failed, (unsigned long long)s->pass_write,
		     (unsigned long long)s->pass_read, (unsigned long long)s->pass_kernel,
		     (unsigned long long)s->pass_other, (unsigned long long)s->sync_to_arena,
		     (unsigned long long)s->sync_to_dev, (unsigned long long)s->sync_bytes,
		     (unsigned long long)s->progs_registered,
		     (unsigned long long)s->kerns_registered, (unsigned long long)s->wait_ns,
		     (unsigned long long)s->layer_ns);
	for (int i = 0; i < W_NR; i++)
		if (s->why[i])
			n += snprintf(line + n, sizeof(line) - n, " why_%s=%llu", why_names[i],
				      (unsigned long long)s->why[i]);
	UNLOCK();
	if (n < (int)sizeof(line) - 1) {
		line[n++] = '\n';
		if (write(tqcl.stats_fd, line, n) != n)
			fprintf(stderr, "tqcl: could not write the statistics to %s\n",
				tqcl.stats_path);
	}
}

__attribute__((destructor)) static void tqcl_fini(void)
{
	if (tqcl.inited)
		tqcl_stats_print();
}

/* fork(): the child has no tq context (libtq(7)); it passes everything through. */
static void tqcl_atfork_child(void)
{
	tqcl.forked = true;
	tqcl.tq_ok = false;
	tqcl.tq_tried = true;
	pthread_mutex_init(&tqcl.lock, NULL);
	pthread_cond_init(&tqcl.cond, NULL);
}

static size_t parse_size(const char *s, size_t dflt)
{
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'G': case 'g':
		v <<= 10;
		/* fall through */
	case 'M': case 'm':
		v <<= 10;
		/* fall through */
	case 'K': case 'k':
		v <<= 10;
		end++;
	}
	if (*end || !v) {
		fprintf(stderr, "tqcl: TQCL_ARENA=%s is not a size; using %zu\n", s, dflt);
		return dflt;
	}
	return v;
}

static void tqcl_init(void)
{
	const char *s = getenv("TQCL_STATS");

	tqcl.disabled = getenv("TQCL_DISABLE") && strcmp(getenv("TQCL_DISABLE"), "0");
	tqcl.profiling = getenv("TQCL_PROFILING") && !strcmp(getenv("TQCL_PROFILING"), "1");
	tqcl.device = getenv("TQCL_DEVICE");
	if (tqcl.device && !*tqcl.device)
		tqcl.device = NULL;
	tqcl.arena_bytes = parse_size(getenv("TQCL_ARENA"), 256 << 20);
	if (s && !strcmp(s, "1")) {
		tqcl.stats_fd = 2;
	} else if (s && *s && strcmp(s, "0")) {
		snprintf(tqcl.stats_path, sizeof(tqcl.stats_path), "%s", s);
		tqcl.stats_fd = open(s, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (tqcl.stats_fd < 0)
			fprintf(stderr, "tqcl: TQCL_STATS=%s: %s\n", s, strerror(errno));
	}
	pthread_atfork(NULL, NULL, tqcl_atfork_child);
	tqcl.inited = true;
}

/* ---- the records' references ------------------------------------------ */

/*
 * The retain and release of every object type the layer keeps a record of
 * go through these two. A retain is the driver's first; when it succeeds,
 * the record (if the layer has one) counts one more program reference, the
 * int at offset off. A release is seen by the layer first: drop(record)
 * under the lock, then the driver's release.
 */
static cl_int ref_retained(cl_int err, struct tqcl_map *m, const void *obj, size_t off)
{
	char *r;

	if (err)
		return err;
	LOCK();
	r = tqcl_map_get(m, obj);
	if (r)
		(*(int *)(r + off))++;
	UNLOCK();
	return err;
}

/* fn(record) under the lock, where the layer has a record of obj. */
static void rec_apply(struct tqcl_map *m, const void *obj, void (*fn)(void *rec))
{
	void *r;

	LOCK();
	r = tqcl_map_get(m, obj);
	if (r)
		fn(r);
	UNLOCK();
}

/* l_RetainX(x): struct rec's field refs in tqcl.map counts it. */
#define RETAIN(fn, type, map, rec, refs)					\
	static cl_int CL_API_CALL l_##fn(type obj)				\
	{									\
		return ref_retained(tqcl_next.cl##fn(obj), &tqcl.map, obj,	\
				    offsetof(struct rec, refs));		\
	}

/* l_ReleaseX(x): drop(record), then the driver's release. */
#define RELEASE(fn, type, map, drop)						\
	static cl_int CL_API_CALL l_##fn(type obj)				\
	{									\
		rec_apply(&tqcl.map, obj, drop);				\
		return tqcl_next.cl##fn(obj);					\
	}

/* ---- contexts ------------------------------------------------------ */

static cl_context ctx_record(cl_context c)
{
	if (c) {
		LOCK();
		tqcl_ctx_get(c);
		UNLOCK();
	}
	return c;
}

static cl_context CL_API_CALL l_CreateContext(const cl_context_properties *props, cl_uint ndev,
					      const cl_device_id *devs,
					      void (CL_CALLBACK *notify)(const char *, const void *,
									  size_t, void *),
					      void *ud, cl_int *err)
{
	return ctx_record(tqcl_next.clCreateContext(props, ndev, devs, notify, ud, err));
}

static cl_context CL_API_CALL l_CreateContextFromType(const cl_context_properties *props,
						      cl_device_type type,
						      void (CL_CALLBACK *notify)(const char *,
										  const void *,
										  size_t, void *),
						      void *ud, cl_int *err)
{
	return ctx_record(tqcl_next.clCreateContextFromType(props, type, notify, ud, err));
}

RETAIN(RetainContext, cl_context, ctxs, tqcl_ctx, refs)

/*
 * The program's last reference: what the shadows hold goes back into the
 * buffers (which may outlive the context), and our queue goes, so that the
 * driver can free the context when the program is done with it.
 */
static void ctx_last_release(struct tqcl_ctx *c)
{
	struct tqcl_map *m = &tqcl.mems;

	c->capture = false;
	for (size_t i = 0; i < m->nb; i++) {
		for (struct tqcl_node *n = m->b[i]; n; n = n->next) {
			struct tqcl_mem *b = (struct tqcl_mem *)n;

			if (b->c != c)
				continue;
			tqcl_mem_idle(b, true);
			tqcl_sync_dev(b, false);
			b->nocap = true;
			if (b->shadow && !tqcl.forked)
				tq_buf_free(&tqcl.tq, b->shadow);
			b->shadow = NULL;
			b->home = TQCL_DEV;
		}
	}
	if (c->q)
		tqcl_next.clReleaseCommandQueue(c->q);
	c->q = NULL;
	/* records of its buffers still point at it: the record stays, unmapped */
	tqcl_map_del(&tqcl.ctxs, c->ctx);
}

static void ctx_unref(void *rec)
{
	struct tqcl_ctx *c = rec;

	if (c->refs == 1)
		ctx_last_release(c);
	else
		c->refs--;
}

RELEASE(ReleaseContext, cl_context, ctxs, ctx_unref)

/* ---- queues ---------------------------------------------------------- */

static void queue_record(cl_command_queue queue, cl_context ctx, cl_device_id dev,
			 cl_command_queue_properties props, bool other)
{
	struct tqcl_queue *q = calloc(1, sizeof(*q));
	struct tqcl_ctx *c;

	if (!q)
		return;
	LOCK();
	c = tqcl_ctx_get(ctx);
	q->q = queue;
	q->c = c;
	q->props = props;
	q->refs = 1;
	if (!c || !c->capture || c->dev != dev)
		q->why = W_CTX_DEVICES;
	else if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
		q->why = W_QUEUE_OOO;
	else if (other || (props & CL_QUEUE_ON_DEVICE))
		q->why = W_QUEUE_OTHER;
	else if ((props & CL_QUEUE_PROFILING_ENABLE) && !tqcl.profiling)
		q->why = W_QUEUE_PROFILING;
	else
		q->capture = true;
	if (!c || tqcl_map_put(&tqcl.queues, &q->node, queue))
		free(q);
	UNLOCK();
}

static cl_command_queue CL_API_CALL l_CreateCommandQueue(cl_context ctx, cl_device_id dev,
							 cl_command_queue_properties props,
							 cl_int *err)
{
	cl_command_queue q = tqcl_next.clCreateCommandQueue(ctx, dev, props, err);

	if (q)
		queue_record(q, ctx, dev, props, false);
	return q;
}

static cl_command_queue CL_API_CALL
l_CreateCommandQueueWithProperties(cl_context ctx, cl_device_id dev,
				   const cl_queue_properties *props, cl_int *err)
{
	cl_command_queue q = tqcl_next.clCreateCommandQueueWithProperties(ctx, dev, props, err);
	cl_command_queue_properties bits = 0;
	bool other = false;

	if (!q)
		return q;
	for (const cl_queue_properties *p = props; p && *p; p += 2) {
		if (p[0] == CL_QUEUE_PROPERTIES)
			bits = p[1];
		else if (p[0] != 0x1096 /* CL_QUEUE_PRIORITY_KHR, a hint */)
			other = true;
	}
	queue_record(q, ctx, dev, bits, other);
	return q;
}

RETAIN(RetainCommandQueue, cl_command_queue, queues, tqcl_queue, refs)

/* The last release flushes (OpenCL): the captured commands finish first. */
static void queue_unref(void *rec)
{
	struct tqcl_queue *q = rec;

	if (--q->refs <= 0) {
		tqcl_queue_drain(q);
		tqcl_queue_drop(q);
	}
}

static cl_int CL_API_CALL l_ReleaseCommandQueue(cl_command_queue queue)
{
	rec_apply(&tqcl.queues, queue, queue_unref);
	tqcl_signal_ready();
	return tqcl_next.clReleaseCommandQueue(queue);
}

static void queue_drain(void *rec)
{
	tqcl_queue_drain(rec);
}

static cl_int CL_API_CALL l_Finish(cl_command_queue queue)
{
	rec_apply(&tqcl.queues, queue, queue_drain);
	return tqcl_next.clFinish(queue);
}

/* ---- buffers --------------------------------------------------------- */

static void mem_record(cl_mem m, cl_context ctx, cl_mem_flags flags, size_t size)
{
	struct tqcl_mem *b = calloc(1, sizeof(*b));

	if (!b)
		return;
	LOCK();
	b->m = m;
	b->c = tqcl_ctx_get(ctx);
	b->size = size;
	b->flags = flags;
	b->refs = 1;
	b->home = TQCL_DEV;
	/* the program may read host_ptr itself (PoCL lets it): the driver keeps those */
	b->nocap = flags & CL_MEM_USE_HOST_PTR;
	if (!b->c || tqcl_map_put(&tqcl.mems, &b->node, m))
		free(b);
	UNLOCK();
}

static cl_mem CL_API_CALL l_CreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size,
					 void *host, cl_int *err)
{
	cl_mem m = tqcl_next.clCreateBuffer(ctx, flags, size, host, err);

	if (m)
		mem_record(m, ctx, flags, size);
	return m;
}

static cl_mem CL_API_CALL l_CreateBufferWithProperties(cl_context ctx,
						       const cl_mem_properties *props,
						       cl_mem_flags flags, size_t size, void *host,
						       cl_int *err)
{
	cl_mem m = tqcl_next.clCreateBufferWithProperties(ctx, props, flags, size, host, err);

	/* properties the layer does not know: the driver keeps the buffer */
	if (m && (!props || !props[0]))
		mem_record(m, ctx, flags, size);
	return m;
}

/* A sub-buffer aliases its parent's device memory: the parent is never captured again. */
static cl_mem CL_API_CALL l_CreateSubBuffer(cl_mem parent, cl_mem_flags flags,
					    cl_buffer_create_type type, const void *info,
					    cl_int *err)
{
	struct tqcl_mem *b;

	LOCK();
	b = tqcl_map_get(&tqcl.mems, parent);
	if (b) {
		tqcl_mem_idle(b, true);
		tqcl_sync_dev(b, true);
		b->nocap = true;
	}
	UNLOCK();
	return tqcl_next.clCreateSubBuffer(parent, flags, type, info, err);
}

RETAIN(RetainMemObject, cl_mem, mems, tqcl_mem, refs)

static void mem_unref(void *rec)
{
	struct tqcl_mem *b = rec;

	if (--b->refs <= 0) {
		/* the tasks using the shadow end before it goes */
		tqcl_mem_idle(b, true);
		tqcl_mem_drop(b);
	}
}

RELEASE(ReleaseMemObject, cl_mem, mems, mem_unref)

/* ---- programs and kernels -------------------------------------------- */

static cl_program CL_API_CALL l_CreateProgramWithSource(cl_context ctx, cl_uint count,
							const char **strings, const size_t *lengths,
							cl_int *err)
{
	cl_program p = tqcl_next.clCreateProgramWithSource(ctx, count, strings, lengths, err);
	struct tqcl_prog *r;
	size_t len = 0, n;
	char *src;

	if (!p)
		return p;
	for (cl_uint i = 0; i < count; i++)
		len += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	r = calloc(1, sizeof(*r));
	src = malloc(len + 1);
	if (!r || !src) {
		free(r);
		free(src);
		return p;
	}
	len = 0;
	for (cl_uint i = 0; i < count; i++) {
		n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(src + len, strings[i], n);
		len += n;
	}
	src[len] = 0;
	/* text ends at its first NUL for usched, as for the driver */
	len = strlen(src);
	r->p = p;
	r->src = src;
	r->len = len;
	r->refs = 1;
	LOCK();
	r->c = tqcl_ctx_get(ctx);
	if (!len || !r->c || tqcl_map_put(&tqcl.progs, &r->node, p)) {
		free(src);
		free(r);
	}
	UNLOCK();
	return p;
}

static cl_int CL_API_CALL l_BuildProgram(cl_program prog, cl_uint ndev, const cl_device_id *devs,
					 const char *opts,
					 void (CL_CALLBACK *notify)(cl_program, void *), void *ud)
{
	cl_int err = tqcl_next.clBuildProgram(prog, ndev, devs, opts, notify, ud);
	struct tqcl_prog *p;

	if (err)
		return err;
	LOCK();
	p = tqcl_map_get(&tqcl.progs, prog);
	if (p) {
		free(p->opts);
		p->opts = strdup(opts ? opts : "");
		p->tq_state = 0;
		p->globals_checked = false;
	}
	UNLOCK();
	return err;
}

RETAIN(RetainProgram, cl_program, progs, tqcl_prog, refs)

static void prog_unref(void *rec)
{
	tqcl_prog_drop(rec);
}

RELEASE(ReleaseProgram, cl_program, progs, prog_unref)

static void kern_record(cl_kernel k, cl_program prog, const struct tqcl_kern *from)
{
	struct tqcl_kern *r = calloc(1, sizeof(*r));

	if (!r)
		return;
	if (from) {
		*r = *from;
		r->tq_state = from->tq_state == 2 ? 2 : 0;
	}
	r->k = k;
	r->refs = 1;
	if (!from)
		tqcl_kern_init_args(r);
	LOCK();
	r->p = tqcl_map_get(&tqcl.progs, prog);
	if (r->p)
		r->p->refs++;
	if (tqcl_map_put(&tqcl.kerns, &r->node, k)) {
		if (r->p)
			tqcl_prog_drop(r->p);
		free(r);
	}
	UNLOCK();
}

static cl_kernel CL_API_CALL l_CreateKernel(cl_program prog, const char *name, cl_int *err)
{
	cl_kernel k = tqcl_next.clCreateKernel(prog, name, err);

	if (k)
		kern_record(k, prog, NULL);
	return k;
}

static cl_int CL_API_CALL l_CreateKernelsInProgram(cl_program prog, cl_uint n, cl_kernel *ks,
						   cl_uint *n_ret)
{
	cl_uint got = 0;
	cl_int err = tqcl_next.clCreateKernelsInProgram(prog, n, ks, &got);

	if (n_ret)
		*n_ret = got;
	if (!err && ks)
		for (cl_uint i = 0; i < got && i < n; i++)
			kern_record(ks[i], prog, NULL);
	return err;
}

static cl_kernel CL_API_CALL l_CloneKernel(cl_kernel src, cl_int *err)
{
	cl_kernel k = tqcl_next.clCloneKernel(src, err);
	struct tqcl_kern *from, copy;
	cl_program prog = NULL;

	if (!k)
		return k;
	LOCK();
	from = tqcl_map_get(&tqcl.kerns, src);
	if (from)
		copy = *from;
	UNLOCK();
	tqcl_next.clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(prog), &prog, NULL);
	if (from)
		kern_record(k, prog, &copy);
	return k;
}

RETAIN(RetainKernel, cl_kernel, kerns, tqcl_kern, refs)

static void kern_unref(void *rec)
{
	tqcl_kern_drop(rec);
}

RELEASE(ReleaseKernel, cl_kernel, kerns, kern_unref)

/*
 * What the argument now is. A buffer is told apart from a scalar by the
 * argument info, else by the value: a cl_mem the layer knows.
 */
static cl_int CL_API_CALL l_SetKernelArg(cl_kernel kern, cl_uint i, size_t size,
					 const void *value)
{
	cl_int err = tqcl_next.clSetKernelArg(kern, i, size, value);
	struct tqcl_kern *k;
	struct tqcl_arg *a;

	if (err)
		return err;
	LOCK();
	k = tqcl_map_get(&tqcl.kerns, kern);
	if (!k || i >= k->nargs)
		goto out;
	a = &k->arg[i];
	a->size = size <= 255 ? size : 255;
	a->val = 0;
	if (!value || a->info == 3) {
		a->kind = A_OTHER;	/* local memory, image, sampler, ... */
	} else if (a->info == 1 || (a->info == 0 && size == sizeof(cl_mem) &&
				    tqcl_map_get(&tqcl.mems, *(const cl_mem *)value))) {
		a->kind = size == sizeof(cl_mem) ? A_BUF : A_OTHER;
		if (a->kind == A_BUF)
			memcpy(&a->val, value, sizeof(cl_mem));
	} else if (size == 1 || size == 2 || size == 4 || size == 8) {
		a->kind = A_SCALAR;
		memcpy(&a->val, value, size);
	} else {
		a->kind = A_OTHER;
		a->size = 0;		/* a scalar tq cannot carry */
	}
out:
	UNLOCK();
	return err;
}

static void kern_svm(void *rec)
{
	((struct tqcl_kern *)rec)->svm = true;
}

static void kern_mark_svm(cl_kernel kern)
{
	rec_apply(&tqcl.kerns, kern, kern_svm);
}

static cl_int CL_API_CALL l_SetKernelArgSVMPointer(cl_kernel kern, cl_uint i, const void *v)
{
	cl_int err = tqcl_next.clSetKernelArgSVMPointer(kern, i, v);

	if (!err)
		kern_mark_svm(kern);
	return err;
}

static cl_int CL_API_CALL l_SetKernelExecInfo(cl_kernel kern, cl_kernel_exec_info name,
					      size_t size, const void *v)
{
	cl_int err = tqcl_next.clSetKernelExecInfo(kern, name, size, v);

	if (!err)
		kern_mark_svm(kern);
	return err;
}

/* ---- events ---------------------------------------------------------- */

RETAIN(RetainEvent, cl_event, evs, tqcl_op, app_refs)

static cl_int CL_API_CALL l_ReleaseEvent(cl_event ev)
{
	struct tqcl_op *op;
	cl_int err;

	LOCK();
	op = tqcl_map_get(&tqcl.evs, ev);
	/* the driver's reference first: ours may be the last */
	err = tqcl_next.clReleaseEvent(ev);
	if (op && !err)
		tqcl_op_unref(op);
	UNLOCK();
	return err;
}

static cl_int info_ret(const void *v, size_t n, size_t size, void *value, size_t *size_ret)
{
	if (value) {
		if (size < n)
			return CL_INVALID_VALUE;
		memcpy(value, v, n);
	}
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

static const cl_command_type cmd_types[] = {
	[C_WRITE] = CL_COMMAND_WRITE_BUFFER,
	[C_READ] = CL_COMMAND_READ_BUFFER,
	[C_KERNEL] = CL_COMMAND_NDRANGE_KERNEL,
};

/* Our events answer as the commands they stand for; the rest is the user event's. */
static cl_int CL_API_CALL l_GetEventInfo(cl_event ev, cl_event_info name, size_t size,
					 void *value, size_t *size_ret)
{
	struct tqcl_op *op;
	cl_command_queue q;
	cl_command_type t;
	cl_int st;

	LOCK();
	op = tqcl_map_get(&tqcl.evs, ev);
	if (op) {
		q = op->queue;
		t = cmd_types[op->cmd];
		st = op->shown;
	}
	UNLOCK();
	if (op) {
		switch (name) {
		case CL_EVENT_COMMAND_QUEUE:
			return info_ret(&q, sizeof(q), size, value, size_ret);
		case CL_EVENT_COMMAND_TYPE:
			return info_ret(&t, sizeof(t), size, value, size_ret);
		case CL_EVENT_COMMAND_EXECUTION_STATUS:
			return info_ret(&st, sizeof(st), size, value, size_ret);
		}
	}
	return tqcl_next.clGetEventInfo(ev, name, size, value, size_ret);
}

/*
 * Profiling of a captured command (only on profiling queues, with
 * TQCL_PROFILING=1): CLOCK_MONOTONIC times; a kernel's START..END is its
 * whole task, copies included, as tq reports it.
 */
static cl_int CL_API_CALL l_GetEventProfilingInfo(cl_event ev, cl_profiling_info name,
						  size_t size, void *value, size_t *size_ret)
{
	struct tqcl_op *op;
	cl_ulong t = 0;
	bool ok = false, prof = false;

	LOCK();
	op = tqcl_map_get(&tqcl.evs, ev);
	if (op) {
		prof = op->props & CL_QUEUE_PROFILING_ENABLE;
		ok = op->signalled && op->status == CL_COMPLETE;
		switch (name) {
		case CL_PROFILING_COMMAND_QUEUED:
			t = op->t_queued;
			break;
		case CL_PROFILING_COMMAND_SUBMIT:
			t = op->t_submit ? op->t_submit : op->t_queued;
			break;
		case CL_PROFILING_COMMAND_START:
			t = op->t_start;
			break;
		case CL_PROFILING_COMMAND_END:
		case CL_PROFILING_COMMAND_COMPLETE:
			t = op->t_end;
			break;
		default:
			UNLOCK();
			return CL_INVALID_VALUE;
		}
	}
	UNLOCK();
	if (!op)
		return tqcl_next.clGetEventProfilingInfo(ev, name, size, value, size_ret);
	if (!prof || !ok)
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	return info_ret(&t, sizeof(t), size, value, size_ret);
}

/* Our events are commands' events, not the program's user events. */
static cl_int CL_API_CALL l_SetUserEventStatus(cl_event ev, cl_int status)
{
	bool ours;

	LOCK();
	ours = tqcl_map_get(&tqcl.evs, ev) != NULL;
	UNLOCK();
	if (ours)
		return CL_INVALID_EVENT;
	return tqcl_next.clSetUserEventStatus(ev, status);
}

/* ---- pass-through of commands ------------------------------------------ */

struct pass {
	struct tqcl_queue *q;
	cl_uint nw;
	const cl_event *wl;
	cl_event *buf;
	cl_event *evp, tmp, *app;
};

/*
 * Before a command passes through (takes the lock and drops it): the
 * buffers it names hold their data in the driver, and it waits for the
 * queue's captured commands. Returns 0 or the CL error of a sync.
 */
static cl_int pass_begin(struct pass *p, cl_command_queue queue, cl_mem *mems, const bool *wr,
			 unsigned int n, cl_uint nw, const cl_event *wl, cl_event *ev,
			 enum tqcl_why why, int kind)
{
	cl_int err = 0;

	memset(p, 0, sizeof(*p));
	p->nw = nw;
	p->wl = wl;
	p->evp = ev;
	p->app = ev;
	LOCK();
	tqcl_count_pass(why, kind);
	for (unsigned int i = 0; i < n && !err; i++) {
		struct tqcl_mem *b = tqcl_map_get(&tqcl.mems, mems[i]);

		if (b)
			err = tqcl_sync_dev(b, wr ? wr[i] : true);
	}
	p->q = tqcl_map_get(&tqcl.queues, queue);
	/* without tq nothing is captured any more: no order to keep but the FIFO's */
	if (p->q && (!p->q->capture || (tqcl.tq_tried && !tqcl.tq_ok && !p->q->fifo_tail)))
		p->q = NULL;
	/* an ill-formed list is the driver's to refuse, unchanged */
	if (p->q && p->q->fifo_tail && !(nw && !wl) && !(!nw && wl)) {
		p->buf = malloc((nw + 1) * sizeof(cl_event));
		if (p->buf) {
			memcpy(p->buf, wl, nw * sizeof(cl_event));
			p->buf[nw] = p->q->fifo_tail->ev;
			p->wl = p->buf;
			p->nw = nw + 1;
		}
	}
	if (p->q && !ev)
		p->evp = &p->tmp;
	UNLOCK();
	return err;
}

/* After it: its event is the queue's last command passed through. */
static void pass_end(struct pass *p, cl_int err)
{
	free(p->buf);
	if (!p->q)
		return;
	LOCK();
	/* the queue may have gone meanwhile (another thread's last release) */
	if (!err && *p->evp && tqcl_map_get(&tqcl.queues, p->q->q) == p->q) {
		if (p->app)
			tqcl_next.clRetainEvent(*p->app);
		if (p->q->last_real)
			tqcl_next.clReleaseEvent(p->q->last_real);
		p->q->last_real = *p->evp;
	} else if (!err && !p->app && p->tmp) {
		tqcl_next.clReleaseEvent(p->tmp);
	}
	UNLOCK();
}

/*
 * Pass call through for why, counted as kind, and return its error: the n
 * buffers mems (wr[i]: written; wr NULL: all) go to the driver first, and
 * it is ordered after the queue's captured commands. call names the wait
 * list and event as p.nw, p.wl, p.evp.
 */
#define PASS_WHY(call, why, queue, mems, wr, n, kind, nw, wl, ev)		\
	do {									\
		struct pass p;							\
		cl_int e = pass_begin(&p, queue, mems, wr, n, nw, wl, ev,	\
				      why, kind);				\
		if (!e)								\
			e = call;						\
		pass_end(&p, e);						\
		return e;							\
	} while (0)

/* Any other command, naming these buffers. */
#define PASS(call, queue, mems, wr, n, kind, nw, wl, ev)			\
	PASS_WHY(call, W_COMMAND, queue, mems, wr, n, kind, nw, wl, ev)

/* A command with no buffer of its own, ordered after the captured ones. */
#define PASS_ORDERED(call, queue, nw, wl, ev)					\
	PASS(call, queue, NULL, NULL, 0, K_OTHER, nw, wl, ev)

/* ---- capture checks ---------------------------------------------------- */

/*
 * The checks every captured command shares (lock held). May wait for the
 * layer's own events in the wait list; returns 0 to capture, else why not.
 * *again: the lock was dropped while waiting: check everything again.
 */
static enum tqcl_why cmd_check(cl_command_queue queue, cl_uint nw, const cl_event *wl,
			       struct tqcl_queue **qp, bool *again)
{
	struct tqcl_queue *q = tqcl_map_get(&tqcl.queues, queue);

	*again = false;
	if (!q)
		return W_INVALID;
	if (!q->capture)
		return q->why;
	if (!tqcl.tq_ok && !tqcl_tq_ready())
		return W_OFF;
	if ((nw && !wl) || (!nw && wl))
		return W_INVALID;
	for (cl_uint i = 0; i < nw; i++) {
		struct tqcl_op *op = tqcl_map_get(&tqcl.evs, wl[i]);
		cl_int st = CL_QUEUED;

		if (op) {
			if (op->queue != queue && tqcl_map_get(&tqcl.queues, op->queue) &&
			    ((struct tqcl_queue *)tqcl_map_get(&tqcl.queues, op->queue))->c !=
				    q->c)
				return W_INVALID;
			if (!op->done) {
				/* ours always complete, without the program's help */
				tqcl_wait();
				*again = true;
				return 0;
			}
			if (op->status != CL_COMPLETE)
				return W_WAIT_FOREIGN;
			continue;
		}
		if (tqcl_next.clGetEventInfo(wl[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
					     sizeof(st), &st, NULL) || st != CL_COMPLETE)
			return W_WAIT_FOREIGN;
	}
	if (q->last_real) {
		cl_int st = CL_QUEUED;

		tqcl_next.clGetEventInfo(q->last_real, CL_EVENT_COMMAND_EXECUTION_STATUS,
					 sizeof(st), &st, NULL);
		if (st != CL_COMPLETE)
			return W_QUEUE_BUSY;
		tqcl_next.clReleaseEvent(q->last_real);
		q->last_real = NULL;
	}
	*qp = q;
	return 0;
}

/* A buffer a captured command may use (lock held). */
static enum tqcl_why mem_check(struct tqcl_queue *q, cl_mem m, struct tqcl_mem **bp)
{
	struct tqcl_mem *b = tqcl_map_get(&tqcl.mems, m);

	if (!b)
		return W_BUF_UNKNOWN;
	if (b->c != q->c)
		return W_INVALID;
	if (b->nocap)
		return W_BUF_ALIASED;
	if (b->mapped)
		return W_MAPPED;
	if (b->size > UINT32_MAX || b->size > tqcl.tq.arena_bytes / 2)
		return W_BUF_BIG;
	*bp = b;
	return 0;
}

/* Give the program its event (a reference of its own) and wait if blocking. */
static void op_finish(struct tqcl_op *op, cl_event *ev, bool blocking)
{
	if (ev) {
		tqcl_next.clRetainEvent(op->ev);
		op->app_refs++;
		op->app_has = true;
		tqcl_map_put(&tqcl.evs, &op->node, op->ev);
		*ev = op->ev;
	}
	if (blocking)
		op->app_refs++;		/* held while we wait below */
	tqcl_op_push(op);
	UNLOCK();
	tqcl_signal_ready();
	if (blocking) {
		LOCK();
		/* a blocking command returns complete: the queue before it too */
		while (!op->signalled)
			tqcl_wait();
		tqcl_op_unref(op);
		UNLOCK();
		tqcl_signal_ready();
	}
}

/* ---- writes and reads -------------------------------------------------- */

/*
 * A write or read of [off, off + size) of one buffer, captured (copied
 * into or out of the shadow) or not: returns the reason not to, with the
 * lock held either way.
 */
static enum tqcl_why rw_capture(cl_command_queue queue, cl_mem m, bool write, cl_bool blocking,
				size_t off, size_t size, void *ptr, cl_uint nw,
				const cl_event *wl, cl_event *ev, cl_int *ret)
{
	struct tqcl_queue *q = NULL;
	struct tqcl_mem *b = NULL;
	uint64_t t0 = tq_now_ns();
	struct tqcl_op *op;
	enum tqcl_why why;
	bool again;
	int err;

	for (;;) {
		why = cmd_check(queue, nw, wl, &q, &again);
		if (again)
			continue;
		if (why)
			return why;
		why = mem_check(q, m, &b);
		if (why)
			return why;
		if (!ptr || !size || off > b->size || size > b->size - off)
			return W_INVALID;
		if (b->flags & (write ? CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS :
				CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
			return W_INVALID;
		if (!write && b->home == TQCL_DEV)
			return W_ON_DEVICE;
		if (b->writers || (write && b->readers)) {
			tqcl_wait();
			continue;
		}
		break;
	}
	op = tqcl_op_new(q, write ? C_WRITE : C_READ, ret);
	if (!op)
		return 0;
	if (write) {
		err = tqcl_sync_arena(b, off || size != b->size);
		if (err) {
			tqcl_op_unref(op);
			return err == -ENOMEM ? W_ARENA_FULL : W_BUF_BIG;
		}
		memcpy((char *)b->shadow + off, ptr, size);
		b->home = TQCL_ARENA;
		tqcl.st.cap_write++;
		tqcl.st.cap_write_bytes += size;
	} else {
		memcpy(ptr, (char *)b->shadow + off, size);
		tqcl.st.cap_read++;
		tqcl.st.cap_read_bytes += size;
	}
	op->t_submit = op->t_start = t0;
	op->t_end = tq_now_ns();
	op->done = true;
	op->status = CL_COMPLETE;
	tqcl.st.layer_ns += op->t_end - t0;
	*ret = CL_SUCCESS;
	op_finish(op, ev, blocking);
	LOCK();
	return 0;
}

static cl_int CL_API_CALL l_EnqueueWriteBuffer(cl_command_queue queue, cl_mem m, cl_bool blocking,
					       size_t off, size_t size, const void *ptr,
					       cl_uint nw, const cl_event *wl, cl_event *ev)
{
	cl_int err = CL_SUCCESS;
	enum tqcl_why why;
	bool wr = true;

	LOCK();
	why = rw_capture(queue, m, true, blocking, off, size, (void *)ptr, nw, wl, ev, &err);
	UNLOCK();
	if (!why)
		return err;
	PASS_WHY(tqcl_next.clEnqueueWriteBuffer(queue, m, blocking, off, size, ptr, p.nw, p.wl,
						p.evp), why, queue, &m, &wr, 1, K_WRITE, nw, wl,
		 ev);
}

static cl_int CL_API_CALL l_EnqueueReadBuffer(cl_command_queue queue, cl_mem m, cl_bool blocking,
					      size_t off, size_t size, void *ptr, cl_uint nw,
					      const cl_event *wl, cl_event *ev)
{
	cl_int err = CL_SUCCESS;
	enum tqcl_why why;
	bool wr = false;

	LOCK();
	why = rw_capture(queue, m, false, blocking, off, size, ptr, nw, wl, ev, &err);
	UNLOCK();
	if (!why)
		return err;
	PASS_WHY(tqcl_next.clEnqueueReadBuffer(queue, m, blocking, off, size, ptr, p.nw, p.wl,
					       p.evp), why, queue, &m, &wr, 1, K_READ, nw, wl, ev);
}

/* ---- kernels ----------------------------------------------------------- */

/* Check a launch's shape against what tq carries and what the driver would accept. */
static enum tqcl_why shape_check(struct tqcl_kern *k, cl_device_id dev, cl_uint dim,
				 const size_t *offset, const size_t *global, const size_t *local)
{
	size_t wg = 0, reqd[3] = { 0 }, items = 1;

	if (dim < 1 || dim > 3 || !global)
		return W_INVALID;
	for (cl_uint i = 0; offset && i < dim; i++)
		if (offset[i])
			return W_KERN_OFFSET;
	for (cl_uint i = 0; i < dim; i++)
		if (!global[i])
			return W_KERN_SHAPE;
	if (!local) {
		if (!tqcl_next.clGetKernelWorkGroupInfo(k->k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
							 sizeof(reqd), reqd, NULL) && reqd[0])
			return W_KERN_SHAPE;	/* the driver's choice of local size */
		return 0;
	}
	for (cl_uint i = 0; i < dim; i++) {
		if (!local[i] || local[i] > UINT32_MAX || global[i] % local[i])
			return W_KERN_SHAPE;
		items *= local[i];
	}
	if (tqcl_next.clGetKernelWorkGroupInfo(k->k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
					       &wg, NULL) || items > wg)
		return W_INVALID;
	if (!tqcl_next.clGetKernelWorkGroupInfo(k->k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
						sizeof(reqd), reqd, NULL) && reqd[0])
		for (cl_uint i = 0; i < dim; i++)
			if (reqd[i] != local[i])
				return W_INVALID;
	return 0;
}

/*
 * The launch as a tq task (lock held): its buffers, its scalars. Returns
 * 0 (then *ret is the call's result) or why it passes through.
 */
static enum tqcl_why kernel_capture(cl_command_queue queue, cl_kernel kern, cl_uint dim,
				    const size_t *offset, const size_t *global,
				    const size_t *local, cl_uint nw, const cl_event *wl,
				    cl_event *ev, cl_int *ret)
{
	uint64_t t0 = tq_now_ns();
	struct tqcl_queue *q = NULL;
	struct tqcl_task *t;
	struct tqcl_kern *k;
	struct tqcl_op *op;
	enum tqcl_why why;
	unsigned int nb, ns;
	bool again, busy;
	int err;

	if (tqcl.tq_tried && !tqcl.tq_ok)
		return W_OFF;
	t = calloc(1, sizeof(*t));
	if (!t)
		return W_ARENA_FULL;
	for (;;) {
		why = cmd_check(queue, nw, wl, &q, &again);
		if (again)
			continue;
		if (why)
			goto out_free;
		k = tqcl_map_get(&tqcl.kerns, kern);
		why = W_INVALID;
		if (!k || k->bad_args)
			goto out_free;
		why = W_KERN_UNKNOWN;
		if (!k->p || !k->p->src)
			goto out_free;
		why = W_INVALID;
		if (k->p->c != q->c)
			goto out_free;
		why = W_KERN_SVM;
		if (k->svm)
			goto out_free;
		why = shape_check(k, q->c->dev, dim, offset, global, local);
		if (why)
			goto out_free;
		/* the arguments, in order: tq's indices must be exactly 0..n-1 */
		nb = ns = 0;
		busy = false;
		for (unsigned int i = 0; i < k->nargs; i++) {
			struct tqcl_arg *a = &k->arg[i];
			struct tqcl_mem *b = NULL;

			switch (a->kind) {
			case A_UNSET:
				why = W_INVALID;	/* CL_INVALID_KERNEL_ARGS */
				goto out_free;
			case A_OTHER:
				why = a->size ? W_KERN_ARGS : W_KERN_SCALAR;
				goto out_free;
			case A_SCALAR:
				why = W_KERN_LIMITS;
				if (ns == TQ_MAX_SCALARS)
					goto out_free;
				ns++;
				continue;
			}
			why = a->val ? mem_check(q, (cl_mem)(uintptr_t)a->val, &b) : W_KERN_ARGS;
			if (why)
				goto out_free;
			why = W_KERN_LIMITS;
			if (nb == TQ_MAX_BUFS)
				goto out_free;
			t->mem[nb] = b;
			t->wr[nb] = !a->ro && !(b->flags & CL_MEM_READ_ONLY);
			for (unsigned int j = 0; j < nb; j++) {
				why = W_KERN_ALIAS;
				if (t->mem[j] == b && (t->wr[j] || t->wr[nb]))
					goto out_free;
			}
			busy |= b->writers || (t->wr[nb] && b->readers) ||
				(b->home == TQCL_DEV && b->readers);
			nb++;
		}
		why = W_KERN_SHAPE;
		if (nb + ns != k->nargs)
			goto out_free;
		if (k->tq_state != 2) {
			err = tqcl_register_kernel(k);
			why = err == -EOPNOTSUPP && k->p->globals ? W_PROG_GLOBALS :
			      err == -EAGAIN ? W_INVALID : W_PROG_REFUSED;
			if (err)
				goto out_free;
			continue;	/* that waited: the arguments may have changed */
		}
		if (busy) {
			tqcl_wait();
			continue;
		}
		break;
	}
	/* the shadows hold the data; the tasks' copies move it */
	for (unsigned int i = 0; i < nb; i++) {
		err = tqcl_sync_arena(t->mem[i], true);
		why = err == -ENOMEM ? W_ARENA_FULL : W_BUF_BIG;
		if (err)
			goto out_free;
	}
	op = tqcl_op_new(q, C_KERNEL, ret);
	if (!op) {
		free(t);
		return 0;
	}
	{
		struct tq_desc *d = &t->d;
		size_t loc[3] = { 0 };

		for (unsigned int i = 0; local && i < dim; i++)
			loc[i] = local[i];
		memset(d, 0, sizeof(*d));
		tq_prep_task(d, k->p->tq_id, k->tq_id, dim, global, local ? loc : NULL);
		nb = 0;
		for (unsigned int i = 0; i < k->nargs; i++) {
			struct tqcl_arg *a = &k->arg[i];

			if (a->kind == A_SCALAR) {
				tq_prep_scalar(d, i, &a->val, a->size);
				continue;
			}
			tq_prep_buf(d, i, t->mem[nb]->off, t->mem[nb]->size,
				    t->wr[nb] ? TQ_DIR_INOUT : TQ_DIR_IN);
			nb++;
		}
	}
	t->op = op;
	t->k = k;
	k->refs++;
	tqcl_next.clRetainKernel(k->k);
	for (unsigned int i = 0; i < nb; i++) {
		if (t->wr[i]) {
			t->mem[i]->writers++;
			t->mem[i]->home = TQCL_ARENA;
		} else {
			t->mem[i]->readers++;
		}
	}
	op->task = t;
	err = tqcl_submit_task(t);
	if (err) {
		/* the context broke under us: the driver runs it (the reaper replays the rest) */
		op->task = NULL;
		for (unsigned int i = 0; i < nb; i++) {
			if (t->wr[i])
				t->mem[i]->writers--;
			else
				t->mem[i]->readers--;
		}
		tqcl_next.clReleaseKernel(k->k);
		tqcl_kern_drop(k);
		tqcl_op_unref(op);
		why = W_OFF;
		goto out_free;
	}
	tqcl.st.cap_kernel++;
	tqcl.st.layer_ns += tq_now_ns() - t0;
	*ret = CL_SUCCESS;
	op_finish(op, ev, false);
	LOCK();
	return 0;

out_free:
	free(t);
	return why;
}

/* A kernel passing through: its buffer arguments go to the driver first. */
static cl_int kernel_pass(cl_command_queue queue, cl_kernel kern, enum tqcl_why why,
			  struct pass *p, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	cl_mem mems[TQCL_MAX_ARGS];
	bool wr[TQCL_MAX_ARGS];
	struct tqcl_kern *k;
	unsigned int n = 0;

	LOCK();
	k = tqcl_map_get(&tqcl.kerns, kern);
	for (unsigned int i = 0; k && i < k->nargs; i++) {
		struct tqcl_arg *a = &k->arg[i];

		if (a->kind == A_BUF && a->val) {
			struct tqcl_mem *b = tqcl_map_get(&tqcl.mems, (cl_mem)(uintptr_t)a->val);

			mems[n] = (cl_mem)(uintptr_t)a->val;
			wr[n++] = !a->ro && !(b && (b->flags & CL_MEM_READ_ONLY));
		}
	}
	UNLOCK();
	return pass_begin(p, queue, mems, wr, n, nw, wl, ev, why, K_KERNEL);
}

/* A launch, captured or passed through (task: as the driver's clEnqueueTask). */
static cl_int kernel_enqueue(cl_command_queue queue, cl_kernel kern, cl_uint dim,
			     const size_t *offset, const size_t *global, const size_t *local,
			     cl_uint nw, const cl_event *wl, cl_event *ev, bool task)
{
	cl_int err = CL_SUCCESS;
	enum tqcl_why why;
	struct pass p;

	LOCK();
	why = kernel_capture(queue, kern, dim, offset, global, local, nw, wl, ev, &err);
	UNLOCK();
	if (!why)
		return err;
	err = kernel_pass(queue, kern, why, &p, nw, wl, ev);
	if (!err && task)
		err = tqcl_next.clEnqueueTask(queue, kern, p.nw, p.wl, p.evp);
	else if (!err)
		err = tqcl_next.clEnqueueNDRangeKernel(queue, kern, dim, offset, global, local,
						       p.nw, p.wl, p.evp);
	pass_end(&p, err);
	return err;
}

static cl_int CL_API_CALL l_EnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kern,
						 cl_uint dim, const size_t *offset,
						 const size_t *global, const size_t *local,
						 cl_uint nw, const cl_event *wl, cl_event *ev)
{
	return kernel_enqueue(queue, kern, dim, offset, global, local, nw, wl, ev, false);
}

/* clEnqueueTask is a launch of one work-item in one work-group. */
static cl_int CL_API_CALL l_EnqueueTask(cl_command_queue queue, cl_kernel kern, cl_uint nw,
					const cl_event *wl, cl_event *ev)
{
	static const size_t one[1] = { 1 };

	return kernel_enqueue(queue, kern, 1, NULL, one, one, nw, wl, ev, true);
}

/* ---- every other command: passed through ------------------------------- */

/* pass_begin for a command naming the n buffers of the program's list ms. */
static cl_int pass_begin_list(struct pass *p, cl_command_queue queue, cl_uint n,
			      const cl_mem *ms, cl_uint nw, const cl_event *wl, cl_event *ev,
			      int kind)
{
	cl_mem *copy = n && ms ? malloc(n * sizeof(*copy)) : NULL;
	cl_int e;

	if (copy)
		memcpy(copy, ms, n * sizeof(*copy));
	e = pass_begin(p, queue, copy, NULL, copy ? n : 0, nw, wl, ev, W_COMMAND, kind);
	free(copy);
	return e;
}

static cl_int CL_API_CALL l_EnqueueReadBufferRect(cl_command_queue queue, cl_mem m,
						  cl_bool blocking, const size_t *bo,
						  const size_t *ho, const size_t *reg, size_t brp,
						  size_t bsp, size_t hrp, size_t hsp, void *ptr,
						  cl_uint nw, const cl_event *wl, cl_event *ev)
{
	bool wr = false;

	PASS(tqcl_next.clEnqueueReadBufferRect(queue, m, blocking, bo, ho, reg, brp, bsp, hrp, hsp,
					       ptr, p.nw, p.wl, p.evp), queue, &m, &wr, 1, K_READ,
					       nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueWriteBufferRect(cl_command_queue queue, cl_mem m,
						   cl_bool blocking, const size_t *bo,
						   const size_t *ho, const size_t *reg, size_t brp,
						   size_t bsp, size_t hrp, size_t hsp,
						   const void *ptr, cl_uint nw, const cl_event *wl,
						   cl_event *ev)
{
	bool wr = true;

	PASS(tqcl_next.clEnqueueWriteBufferRect(queue, m, blocking, bo, ho, reg, brp, bsp, hrp, hsp,
						ptr, p.nw, p.wl, p.evp), queue, &m, &wr, 1, K_WRITE,
						nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
					      size_t so, size_t dof, size_t size, cl_uint nw,
					      const cl_event *wl, cl_event *ev)
{
	cl_mem ms[2] = { src, dst };
	bool wr[2] = { false, true };

	PASS(tqcl_next.clEnqueueCopyBuffer(queue, src, dst, so, dof, size, p.nw, p.wl, p.evp),
					   queue, ms, wr, 2, K_OTHER, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
						  const size_t *so, const size_t *dof,
						  const size_t *reg, size_t srp, size_t ssp,
						  size_t drp, size_t dsp, cl_uint nw,
						  const cl_event *wl, cl_event *ev)
{
	cl_mem ms[2] = { src, dst };
	bool wr[2] = { false, true };

	PASS(tqcl_next.clEnqueueCopyBufferRect(queue, src, dst, so, dof, reg, srp, ssp, drp, dsp,
					       p.nw, p.wl, p.evp), queue, ms, wr, 2, K_OTHER, nw,
					       wl, ev);
}

static cl_int CL_API_CALL l_EnqueueFillBuffer(cl_command_queue queue, cl_mem m,
					      const void *pat, size_t ps, size_t off, size_t size,
					      cl_uint nw, const cl_event *wl, cl_event *ev)
{
	bool wr = true;

	PASS(tqcl_next.clEnqueueFillBuffer(queue, m, pat, ps, off, size, p.nw, p.wl, p.evp), queue,
					   &m, &wr, 1, K_OTHER, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src,
						     cl_mem dst, const size_t *so,
						     const size_t *reg, size_t dof, cl_uint nw,
						     const cl_event *wl, cl_event *ev)
{
	bool wr = true;

	PASS(tqcl_next.clEnqueueCopyImageToBuffer(queue, src, dst, so, reg, dof, p.nw, p.wl, p.evp),
						  queue, &dst, &wr, 1, K_OTHER, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src,
						     cl_mem dst, size_t so, const size_t *dof,
						     const size_t *reg, cl_uint nw,
						     const cl_event *wl, cl_event *ev)
{
	bool wr = false;

	PASS(tqcl_next.clEnqueueCopyBufferToImage(queue, src, dst, so, dof, reg, p.nw, p.wl, p.evp),
						  queue, &src, &wr, 1, K_OTHER, nw, wl, ev);
}

/* A mapped buffer is the driver's until unmapped: the program may write through it. */
static void *CL_API_CALL l_EnqueueMapBuffer(cl_command_queue queue, cl_mem m, cl_bool blocking,
					    cl_map_flags flags, size_t off, size_t size,
					    cl_uint nw, const cl_event *wl, cl_event *ev,
					    cl_int *err)
{
	bool wr = true;
	struct tqcl_mem *b;
	struct pass p;
	void *ptr = NULL;
	cl_int e = pass_begin(&p, queue, &m, &wr, 1, nw, wl, ev, W_COMMAND, K_OTHER);

	if (!e)
		ptr = tqcl_next.clEnqueueMapBuffer(queue, m, blocking, flags, off, size, p.nw,
						   p.wl, p.evp, &e);
	if (err)
		*err = e;
	pass_end(&p, e);
	if (ptr) {
		LOCK();
		b = tqcl_map_get(&tqcl.mems, m);
		if (b)
			b->mapped++;
		UNLOCK();
	}
	return ptr;
}

static cl_int CL_API_CALL l_EnqueueUnmapMemObject(cl_command_queue queue, cl_mem m, void *ptr,
						  cl_uint nw, const cl_event *wl, cl_event *ev)
{
	bool wr = true;
	struct tqcl_mem *b;
	struct pass p;
	cl_int e = pass_begin(&p, queue, &m, &wr, 1, nw, wl, ev, W_COMMAND, K_OTHER);

	if (!e)
		e = tqcl_next.clEnqueueUnmapMemObject(queue, m, ptr, p.nw, p.wl, p.evp);
	pass_end(&p, e);
	if (!e) {
		LOCK();
		b = tqcl_map_get(&tqcl.mems, m);
		if (b && b->mapped)
			b->mapped--;
		UNLOCK();
	}
	return e;
}

static cl_int CL_API_CALL l_EnqueueMigrateMemObjects(cl_command_queue queue, cl_uint n,
						     const cl_mem *ms, cl_mem_migration_flags f,
						     cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct pass p;
	cl_int e = pass_begin_list(&p, queue, n, ms, nw, wl, ev, K_OTHER);

	if (!e)
		e = tqcl_next.clEnqueueMigrateMemObjects(queue, n, ms, f, p.nw, p.wl, p.evp);
	pass_end(&p, e);
	return e;
}

static cl_int CL_API_CALL l_EnqueueNativeKernel(cl_command_queue queue,
						void (CL_CALLBACK *fn)(void *), void *args,
						size_t cb, cl_uint n, const cl_mem *ms,
						const void **locs, cl_uint nw, const cl_event *wl,
						cl_event *ev)
{
	struct pass p;
	cl_int e = pass_begin_list(&p, queue, n, ms, nw, wl, ev, K_KERNEL);

	if (!e)
		e = tqcl_next.clEnqueueNativeKernel(queue, fn, args, cb, n, ms, locs, p.nw, p.wl,
						    p.evp);
	pass_end(&p, e);
	return e;
}

static cl_int CL_API_CALL l_EnqueueReadImage(cl_command_queue queue, cl_mem img, cl_bool bl,
					     const size_t *o, const size_t *r, size_t rp,
					     size_t sp, void *ptr, cl_uint nw, const cl_event *wl,
					     cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueReadImage(queue, img, bl, o, r, rp, sp, ptr, p.nw, p.wl,
						  p.evp), queue, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueWriteImage(cl_command_queue queue, cl_mem img, cl_bool bl,
					      const size_t *o, const size_t *r, size_t rp,
					      size_t sp, const void *ptr, cl_uint nw,
					      const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueWriteImage(queue, img, bl, o, r, rp, sp, ptr, p.nw, p.wl,
						   p.evp), queue, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueCopyImage(cl_command_queue queue, cl_mem s, cl_mem d,
					     const size_t *so, const size_t *dof,
					     const size_t *r, cl_uint nw, const cl_event *wl,
					     cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueCopyImage(queue, s, d, so, dof, r, p.nw, p.wl, p.evp),
		     queue, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueFillImage(cl_command_queue queue, cl_mem img,
					     const void *color, const size_t *o, const size_t *r,
					     cl_uint nw, const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueFillImage(queue, img, color, o, r, p.nw, p.wl, p.evp),
		     queue, nw, wl, ev);
}

static void *CL_API_CALL l_EnqueueMapImage(cl_command_queue queue, cl_mem img, cl_bool bl,
					   cl_map_flags f, const size_t *o, const size_t *r,
					   size_t *rp, size_t *sp, cl_uint nw, const cl_event *wl,
					   cl_event *ev, cl_int *err)
{
	struct pass p;
	void *ptr = NULL;
	cl_int e = pass_begin(&p, queue, NULL, NULL, 0, nw, wl, ev, W_COMMAND, K_OTHER);

	if (!e)
		ptr = tqcl_next.clEnqueueMapImage(queue, img, bl, f, o, r, rp, sp, p.nw, p.wl,
						  p.evp, &e);
	if (err)
		*err = e;
	pass_end(&p, e);
	return ptr;
}

static cl_int CL_API_CALL l_EnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint nw,
						      const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueMarkerWithWaitList(queue, p.nw, p.wl, p.evp), queue, nw,
		     wl, ev);
}

static cl_int CL_API_CALL l_EnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint nw,
						       const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueBarrierWithWaitList(queue, p.nw, p.wl, p.evp), queue,
		     nw, wl, ev);
}

/* The 1.1 marker, barrier and wait take no wait list: the captured commands end first. */
static void drain_queue(cl_command_queue queue)
{
	struct tqcl_queue *q;

	LOCK();
	tqcl_count_pass(W_COMMAND, K_OTHER);
	q = tqcl_map_get(&tqcl.queues, queue);
	if (q)
		tqcl_queue_drain(q);
	UNLOCK();
}

static cl_int CL_API_CALL l_EnqueueMarker(cl_command_queue queue, cl_event *ev)
{
	drain_queue(queue);
	return tqcl_next.clEnqueueMarker(queue, ev);
}

static cl_int CL_API_CALL l_EnqueueBarrier(cl_command_queue queue)
{
	drain_queue(queue);
	return tqcl_next.clEnqueueBarrier(queue);
}

static cl_int CL_API_CALL l_EnqueueWaitForEvents(cl_command_queue queue, cl_uint n,
						 const cl_event *evs)
{
	drain_queue(queue);
	return tqcl_next.clEnqueueWaitForEvents(queue, n, evs);
}

static cl_int CL_API_CALL l_EnqueueSVMFree(cl_command_queue queue, cl_uint n, void *ptrs[],
					   void (CL_CALLBACK *fn)(cl_command_queue, cl_uint,
								  void *[], void *),
					   void *ud, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueSVMFree(queue, n, ptrs, fn, ud, p.nw, p.wl, p.evp), queue,
		     nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueSVMMemcpy(cl_command_queue queue, cl_bool bl, void *d,
					     const void *s, size_t size, cl_uint nw,
					     const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueSVMMemcpy(queue, bl, d, s, size, p.nw, p.wl, p.evp),
		     queue, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueSVMMemFill(cl_command_queue queue, void *ptr,
					      const void *pat, size_t ps, size_t size, cl_uint nw,
					      const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueSVMMemFill(queue, ptr, pat, ps, size, p.nw, p.wl, p.evp),
		     queue, nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueSVMMap(cl_command_queue queue, cl_bool bl, cl_map_flags f,
					  void *ptr, size_t size, cl_uint nw, const cl_event *wl,
					  cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueSVMMap(queue, bl, f, ptr, size, p.nw, p.wl, p.evp), queue,
		     nw, wl, ev);
}

static cl_int CL_API_CALL l_EnqueueSVMUnmap(cl_command_queue queue, void *ptr, cl_uint nw,
					    const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueSVMUnmap(queue, ptr, p.nw, p.wl, p.evp), queue, nw, wl,
		     ev);
}

static cl_int CL_API_CALL l_EnqueueSVMMigrateMem(cl_command_queue queue, cl_uint n,
						 const void **ptrs, const size_t *sizes,
						 cl_mem_migration_flags f, cl_uint nw,
						 const cl_event *wl, cl_event *ev)
{
	PASS_ORDERED(tqcl_next.clEnqueueSVMMigrateMem(queue, n, ptrs, sizes, f, p.nw, p.wl,
						      p.evp), queue, nw, wl, ev);
}

/* ---- the layer API ------------------------------------------------------ */

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t size, void *value,
					       size_t *size_ret)
{
	static const char layer_name[] = "tqcl: OpenCL copy-kernel-copy through tq";
	cl_layer_api_version v = CL_LAYER_API_VERSION_100;

	switch (name) {
	case CL_LAYER_API_VERSION:
		return info_ret(&v, sizeof(v), size, value, size_ret);
	case CL_LAYER_NAME:
		return info_ret(layer_name, sizeof(layer_name), size, value, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

#define OVERRIDE(f)	(layer.cl##f = l_##f)

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
					    const struct _cl_icd_dispatch *target,
					    cl_uint *num_entries_ret,
					    const struct _cl_icd_dispatch **layer_ret)
{
	size_t n = num_entries * sizeof(void *);

	if (!target || !num_entries_ret || !layer_ret)
		return CL_INVALID_VALUE;
	if (n > sizeof(tqcl_next))
		n = sizeof(tqcl_next);
	memcpy(&tqcl_next, target, n);
	layer = tqcl_next;
	tqcl_init();
	if (!tqcl.disabled) {
		OVERRIDE(CreateContext);
		OVERRIDE(CreateContextFromType);
		OVERRIDE(RetainContext);
		OVERRIDE(ReleaseContext);
		OVERRIDE(CreateCommandQueue);
		OVERRIDE(CreateCommandQueueWithProperties);
		OVERRIDE(RetainCommandQueue);
		OVERRIDE(ReleaseCommandQueue);
		OVERRIDE(Finish);
		OVERRIDE(CreateBuffer);
		OVERRIDE(CreateBufferWithProperties);
		OVERRIDE(CreateSubBuffer);
		OVERRIDE(RetainMemObject);
		OVERRIDE(ReleaseMemObject);
		OVERRIDE(CreateProgramWithSource);
		OVERRIDE(BuildProgram);
		OVERRIDE(RetainProgram);
		OVERRIDE(ReleaseProgram);
		OVERRIDE(CreateKernel);
		OVERRIDE(CreateKernelsInProgram);
		OVERRIDE(CloneKernel);
		OVERRIDE(RetainKernel);
		OVERRIDE(ReleaseKernel);
		OVERRIDE(SetKernelArg);
		OVERRIDE(SetKernelArgSVMPointer);
		OVERRIDE(SetKernelExecInfo);
		OVERRIDE(RetainEvent);
		OVERRIDE(ReleaseEvent);
		OVERRIDE(GetEventInfo);
		OVERRIDE(GetEventProfilingInfo);
		OVERRIDE(SetUserEventStatus);
		OVERRIDE(EnqueueWriteBuffer);
		OVERRIDE(EnqueueReadBuffer);
		OVERRIDE(EnqueueNDRangeKernel);
		OVERRIDE(EnqueueTask);
		OVERRIDE(EnqueueReadBufferRect);
		OVERRIDE(EnqueueWriteBufferRect);
		OVERRIDE(EnqueueCopyBuffer);
		OVERRIDE(EnqueueCopyBufferRect);
		OVERRIDE(EnqueueFillBuffer);
		OVERRIDE(EnqueueCopyImageToBuffer);
		OVERRIDE(EnqueueCopyBufferToImage);
		OVERRIDE(EnqueueMapBuffer);
		OVERRIDE(EnqueueUnmapMemObject);
		OVERRIDE(EnqueueMigrateMemObjects);
		OVERRIDE(EnqueueNativeKernel);
		OVERRIDE(EnqueueReadImage);
		OVERRIDE(EnqueueWriteImage);
		OVERRIDE(EnqueueCopyImage);
		OVERRIDE(EnqueueFillImage);
		OVERRIDE(EnqueueMapImage);
		OVERRIDE(EnqueueMarkerWithWaitList);
		OVERRIDE(EnqueueBarrierWithWaitList);
		OVERRIDE(EnqueueMarker);
		OVERRIDE(EnqueueBarrier);
		OVERRIDE(EnqueueWaitForEvents);
		OVERRIDE(EnqueueSVMFree);
		OVERRIDE(EnqueueSVMMemcpy);
		OVERRIDE(EnqueueSVMMemFill);
		OVERRIDE(EnqueueSVMMap);
		OVERRIDE(EnqueueSVMUnmap);
		OVERRIDE(EnqueueSVMMigrateMem);
	}
	*layer_ret = &layer;
	*num_entries_ret = sizeof(layer) / sizeof(void *);
	return CL_SUCCESS;
}
