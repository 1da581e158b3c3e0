// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * pass.c - pass-through: every command on a queue that the layer does not
 * capture goes to the driver, after the buffers it names are brought up to
 * date in the driver and ordered after the queue's captured commands
 * (tqcl_pass_begin(), tqcl_pass_end()).
 */
#include <stdlib.h>
#include <string.h>

#include "tqcl.h"

/* ---- pass-through of commands ------------------------------------------ */

/*
 * Before a command passes through (takes the lock and drops it): the
 * buffers it names hold their data in the driver, and it waits for the
 * queue's captured commands. Returns 0 or the CL error of a sync.
 */
cl_int tqcl_pass_begin(struct pass *p, cl_command_queue queue, cl_mem *mems, const bool *wr,
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
			if (nw)		/* wl may be NULL with none: memcpy() wants a pointer */
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
void tqcl_pass_end(struct pass *p, cl_int err)
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

/* Any other command, naming these buffers. */
#define PASS(call, queue, mems, wr, n, kind, nw, wl, ev)			\
	PASS_WHY(call, W_COMMAND, queue, mems, wr, n, kind, nw, wl, ev)

/* A command with no buffer of its own, ordered after the captured ones. */
#define PASS_ORDERED(call, queue, nw, wl, ev)					\
	PASS(call, queue, NULL, NULL, 0, K_OTHER, nw, wl, ev)

/* ---- every other command: passed through ------------------------------- */

/* tqcl_pass_begin for a command naming the n buffers of the program's list ms. */
static cl_int pass_begin_list(struct pass *p, cl_command_queue queue, cl_uint n,
			      const cl_mem *ms, cl_uint nw, const cl_event *wl, cl_event *ev,
			      int kind)
{
	cl_mem *copy = n && ms ? malloc(n * sizeof(*copy)) : NULL;
	cl_int e;

	if (copy)
		memcpy(copy, ms, n * sizeof(*copy));
	e = tqcl_pass_begin(p, queue, copy, NULL, copy ? n : 0, nw, wl, ev, W_COMMAND, kind);
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
	cl_int e = tqcl_pass_begin(&p, queue, &m, &wr, 1, nw, wl, ev, W_COMMAND, K_OTHER);

	if (!e)
		ptr = tqcl_next.clEnqueueMapBuffer(queue, m, blocking, flags, off, size, p.nw,
						   p.wl, p.evp, &e);
	if (err)
		*err = e;
	tqcl_pass_end(&p, e);
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
	cl_int e = tqcl_pass_begin(&p, queue, &m, &wr, 1, nw, wl, ev, W_COMMAND, K_OTHER);

	if (!e)
		e = tqcl_next.clEnqueueUnmapMemObject(queue, m, ptr, p.nw, p.wl, p.evp);
	tqcl_pass_end(&p, e);
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
	tqcl_pass_end(&p, e);
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
	tqcl_pass_end(&p, e);
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
	cl_int e = tqcl_pass_begin(&p, queue, NULL, NULL, 0, nw, wl, ev, W_COMMAND, K_OTHER);

	if (!e)
		ptr = tqcl_next.clEnqueueMapImage(queue, img, bl, f, o, r, rp, sp, p.nw, p.wl,
						  p.evp, &e);
	if (err)
		*err = e;
	tqcl_pass_end(&p, e);
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

/* The functions of this file in the layer's dispatch table @t. */
void tqcl_override_pass(struct _cl_icd_dispatch *t)
{
	OVERRIDE(t, EnqueueReadBufferRect);
	OVERRIDE(t, EnqueueWriteBufferRect);
	OVERRIDE(t, EnqueueCopyBuffer);
	OVERRIDE(t, EnqueueCopyBufferRect);
	OVERRIDE(t, EnqueueFillBuffer);
	OVERRIDE(t, EnqueueCopyImageToBuffer);
	OVERRIDE(t, EnqueueCopyBufferToImage);
	OVERRIDE(t, EnqueueMapBuffer);
	OVERRIDE(t, EnqueueUnmapMemObject);
	OVERRIDE(t, EnqueueMigrateMemObjects);
	OVERRIDE(t, EnqueueNativeKernel);
	OVERRIDE(t, EnqueueReadImage);
	OVERRIDE(t, EnqueueWriteImage);
	OVERRIDE(t, EnqueueCopyImage);
	OVERRIDE(t, EnqueueFillImage);
	OVERRIDE(t, EnqueueMapImage);
	OVERRIDE(t, EnqueueMarkerWithWaitList);
	OVERRIDE(t, EnqueueBarrierWithWaitList);
	OVERRIDE(t, EnqueueMarker);
	OVERRIDE(t, EnqueueBarrier);
	OVERRIDE(t, EnqueueWaitForEvents);
	OVERRIDE(t, EnqueueSVMFree);
	OVERRIDE(t, EnqueueSVMMemcpy);
	OVERRIDE(t, EnqueueSVMMemFill);
	OVERRIDE(t, EnqueueSVMMap);
	OVERRIDE(t, EnqueueSVMUnmap);
	OVERRIDE(t, EnqueueSVMMigrateMem);
}
