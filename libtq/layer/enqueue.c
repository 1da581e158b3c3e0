// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * enqueue.c - the commands the layer captures: clEnqueueWriteBuffer,
 * clEnqueueReadBuffer, clEnqueueNDRangeKernel and clEnqueueTask, done
 * through tq when every check passes (the queue, its wait list, the
 * buffers, the kernel's arguments and shape), else passed through
 * (pass.c) with the reason counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tqcl.h"

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
	bool again, waited = false;
	uint64_t t1;
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
			waited = true;
			continue;
		}
		break;
	}
	t1 = tq_now_ns();
	if (waited && tqcl.last_reap_ns && t1 >= tqcl.last_reap_ns) {
		tqcl.st.t_wakes++;
		tqcl.st.t_wake_ns += t1 - tqcl.last_reap_ns;
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
		t1 = tq_now_ns();
		tqcl_copy((char *)b->shadow + off, ptr, size);
		b->home = TQCL_ARENA;
		tqcl.st.cap_write++;
		tqcl.st.cap_write_bytes += size;
		tqcl.st.t_copy_in_ns += tq_now_ns() - t1;
	} else {
		tqcl_copy(ptr, (char *)b->shadow + off, size);
		tqcl.st.cap_read++;
		tqcl.st.cap_read_bytes += size;
		tqcl.st.t_copy_out_ns += tq_now_ns() - t1;
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
		if (!k->tqk || k->tqk->tq_state != 2) {
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
		tq_prep_task(d, k->p->tq_id, k->tqk->tq_id, dim, global, local ? loc : NULL);
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
	return tqcl_pass_begin(p, queue, mems, wr, n, nw, wl, ev, why, K_KERNEL);
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
	tqcl_pass_end(&p, err);
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

/* The functions of this file in the layer's dispatch table @t. */
void tqcl_override_enqueue(struct _cl_icd_dispatch *t)
{
	OVERRIDE(t, EnqueueWriteBuffer);
	OVERRIDE(t, EnqueueReadBuffer);
	OVERRIDE(t, EnqueueNDRangeKernel);
	OVERRIDE(t, EnqueueTask);
}
