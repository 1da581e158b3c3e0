// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * track.c - the tracking overrides of contexts, command queues and buffers:
 * the driver creates, retains and releases them; the layer keeps its
 * records of them (objects.c) beside, and the retain and release helpers
 * every tracked type shares.
 */
#include <stdlib.h>

#include "tqcl.h"

/* ---- the records' references ------------------------------------------ */

/*
 * The retain and release of every object type the layer keeps a record of
 * go through these two. A retain is the driver's first; when it succeeds,
 * the record (if the layer has one) counts one more program reference, the
 * int at offset off. A release is seen by the layer first: drop(record)
 * under the lock, then the driver's release.
 */
cl_int tqcl_ref_retained(cl_int err, struct tqcl_map *m, const void *obj, size_t off)
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
void tqcl_rec_apply(struct tqcl_map *m, const void *obj, void (*fn)(void *rec))
{
	void *r;

	LOCK();
	r = tqcl_map_get(m, obj);
	if (r)
		fn(r);
	UNLOCK();
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
	tqcl_rec_apply(&tqcl.queues, queue, queue_unref);
	tqcl_signal_ready();
	return tqcl_next.clReleaseCommandQueue(queue);
}

static void queue_drain(void *rec)
{
	tqcl_queue_drain(rec);
}

static cl_int CL_API_CALL l_Finish(cl_command_queue queue)
{
	tqcl_rec_apply(&tqcl.queues, queue, queue_drain);
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

/* The functions of this file in the layer's dispatch table @t. */
void tqcl_override_track(struct _cl_icd_dispatch *t)
{
	OVERRIDE(t, CreateContext);
	OVERRIDE(t, CreateContextFromType);
	OVERRIDE(t, RetainContext);
	OVERRIDE(t, ReleaseContext);
	OVERRIDE(t, CreateCommandQueue);
	OVERRIDE(t, CreateCommandQueueWithProperties);
	OVERRIDE(t, RetainCommandQueue);
	OVERRIDE(t, ReleaseCommandQueue);
	OVERRIDE(t, Finish);
	OVERRIDE(t, CreateBuffer);
	OVERRIDE(t, CreateBufferWithProperties);
	OVERRIDE(t, CreateSubBuffer);
	OVERRIDE(t, RetainMemObject);
	OVERRIDE(t, ReleaseMemObject);
}
