// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * capture.c - the tq side of libtqcl.so: the one libtq context of the
 * process, its completion thread (the reaper), program and kernel
 * registration, the buffers' shadows in the arena and their syncs with the
 * driver's buffers, tasks, and the user events that stand for captured
 * commands.
 *
 * Ordering. tq runs the tasks of one context in any order, so the layer
 * keeps OpenCL's: a command that writes a buffer waits until no task uses
 * its shadow, one that reads it until no task writes it. Each queue keeps a
 * FIFO of its captured commands; a command's event completes only when every
 * command before it has, so the program sees an in-order queue even when
 * independent tasks overlap on the device.
 *
 * Failure. A task that tq fails (a limit of usched's, a scheduler's crash)
 * is run again by the driver on the real buffers, from the shadows it would
 * have read (the replay), so that tq's limits never become the program's
 * errors. If the context itself breaks, every task in flight is replayed and
 * the layer passes everything through from then on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tqcl.h"

/* Tasks submitted and not yet completed, for the fallback. */
static struct tqcl_task **inflight;
static unsigned int ninflight, inflight_cap;

cl_int tqcl_errno_to_cl(int err)
{
	switch (err) {
	case 0:
		return CL_COMPLETE;
	case -ENOMEM:
	case -EFBIG:
		return CL_MEM_OBJECT_ALLOCATION_FAILURE;
	default:
		return CL_OUT_OF_RESOURCES;
	}
}

/* Wait on tqcl.cond (tqcl.lock held), counting the time as waiting. */
void tqcl_wait(void)
{
	uint64_t t0 = tq_now_ns();

	pthread_cond_wait(&tqcl.cond, &tqcl.lock);
	tqcl.st.wait_ns += tq_now_ns() - t0;
}

static void *reaper(void *arg);
static void *signaller(void *arg);

/*
 * Open the context at the first command that could be captured. Without a
 * transport (no /dev/tqsubmit, no tqsubmitd) everything passes through.
 */
bool tqcl_tq_ready(void)
{
	int ret;

	if (tqcl.tq_tried)
		return tqcl.tq_ok;
	tqcl.tq_tried = true;
	if (tqcl.disabled || tqcl.forked)
		return false;
	ret = tq_open(&tqcl.tq, 256, tqcl.arena_bytes, TQ_OPEN_PRIO(tqcl.prio));
	/* the module charges the arena to RLIMIT_MEMLOCK: try smaller ones, down to 16 MiB */
	for (size_t a = tqcl.arena_bytes / 2; (ret == -ENOMEM || ret == -EFBIG) && a >= 16 << 20;
	     a /= 2)
		ret = tq_open(&tqcl.tq, 256, a, TQ_OPEN_PRIO(tqcl.prio));
	if (ret) {
		if (tqcl.stats_fd >= 0)
			fprintf(stderr, "tqcl: tq_open: %s: everything passes through\n",
				tq_strerror(ret));
		return false;
	}
	if (pthread_create(&tqcl.signaller, NULL, signaller, NULL)) {
		tq_close(&tqcl.tq);
		return false;
	}
	if (pthread_create(&tqcl.reaper, NULL, reaper, NULL)) {
		/* the signaller waits for nothing: it stays asleep */
		tq_close(&tqcl.tq);
		return false;
	}
	tqcl.tq_ok = true;
	return true;
}

/* A free SQ slot (lock held); waits for the scheduler to take some. */
static struct tq_desc *desc_get(void)
{
	struct tq_desc *d;

	while (!(d = tq_get_desc(&tqcl.tq))) {
		int ret = tq_submit(&tqcl.tq);

		if (ret < 0)
			return NULL;
		/* the reaper broadcasts on every completion */
		tqcl_wait();
		if (!tqcl.tq_ok)
			return NULL;
	}
	return d;
}

/* A PROGRAM or KERNEL descriptor, answered through the reaper (lock held). */
static int reg_run(struct tq_desc *tmpl, const char *a, size_t a_len, const char *b,
		   size_t b_len, uint32_t *id)
{
	struct tqcl_reg reg = { 0 };
	void *pa = NULL, *pb = NULL;
	uint64_t oa, ob = 0;
	struct tq_desc *d;
	int ret;

	if (!a_len || a_len > UINT32_MAX || b_len > UINT32_MAX)
		return -EINVAL;
	ret = tq_buf_alloc(&tqcl.tq, a_len, &pa, &oa);
	if (ret)
		return ret;
	memcpy(pa, a, a_len);
	if (b_len) {
		ret = tq_buf_alloc(&tqcl.tq, b_len, &pb, &ob);
		if (ret)
			goto out;
		memcpy(pb, b, b_len);
	}
	d = desc_get();
	if (!d) {
		ret = -EBADFD;
		goto out;
	}
	*d = *tmpl;
	tq_prep_buf(d, 0, oa, a_len, TQ_DIR_IN);
	if (b_len)
		tq_prep_buf(d, 0, ob, b_len, TQ_DIR_IN);
	/* odd: a registration; tasks are aligned pointers */
	tq_desc_set_data(d, (uintptr_t)&reg | 1);
	ret = tq_submit(&tqcl.tq);
	if (ret < 0)
		goto out;
	while (!reg.done && tqcl.tq_ok)
		tqcl_wait();
	ret = reg.done ? reg.status : -EBADFD;
	if (!ret) {
		if (reg.result > UINT32_MAX)
			ret = -EPROTO;
		else
			*id = reg.result;
	}
out:
	/* answered (or the context is gone): the scheduler is done with the text */
	if (pb)
		tq_buf_free(&tqcl.tq, pb);
	tq_buf_free(&tqcl.tq, pa);
	return ret;
}

/* Is a program-scope variable in @p? Those live on the device, between launches. */
static bool prog_has_globals(struct tqcl_prog *p)
{
	size_t total = 0;

	if (!p->globals_checked) {
		p->globals_checked = true;
		/* an OpenCL 1.x device has none to report (the query fails) */
		if (!tqcl_next.clGetProgramBuildInfo(p->p, p->c->dev,
						    CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
						    sizeof(total), &total, NULL))
			p->globals = total != 0;
	}
	return p->globals;
}

/* @p's tq kernel of @name, made (not yet registered) on first need; NULL: no memory. */
static struct tqcl_pkern *prog_kernel(struct tqcl_prog *p, const char *name)
{
	struct tqcl_pkern *pk;
	size_t len = strlen(name);

	for (pk = p->kerns; pk; pk = pk->next)
		if (!strcmp(pk->name, name))
			return pk;
	pk = calloc(1, sizeof(*pk) + len + 1);
	if (!pk)
		return NULL;
	memcpy(pk->name, name, len + 1);
	pk->next = p->kerns;
	p->kerns = pk;
	return pk;
}

/*
 * Register @k's program and then its kernel of @k's name with usched, once
 * for every cl_kernel of that program and name (lock held; may wait): a
 * program that makes a cl_kernel per launch must not spend usched's kernel
 * quota on each. The program's own source and its last build options:
 * usched builds them for its device, within its program policy. Returns 0,
 * or the refusal.
 */
int tqcl_register_kernel(struct tqcl_kern *k)
{
	struct tqcl_prog *p = k->p;
	static int refused;	/* the policy said no: it will again */
	static bool told;	/* the user, of that */
	struct tqcl_pkern *pk;
	int ret;

	if (!k->tqk) {
		k->tqk = prog_kernel(p, k->name);
		if (!k->tqk)
			return -ENOMEM;
	}
	pk = k->tqk;
	while (pk->tq_state == 1 || p->tq_state == 1)
		tqcl_wait();
	if (pk->tq_state == 2)
		return 0;
	if (pk->tq_state < 0)
		return pk->tq_state;
	if (prog_has_globals(p))
		return -EOPNOTSUPP;
	if (p->tq_state == 0) {
		struct tq_desc d = { .opcode = TQ_OP_PROGRAM };
		const char *o = p->opts ? p->opts : "";
		cl_build_status bs = CL_BUILD_NONE;

		/* only a program the driver built is one the program launches */
		tqcl_next.clGetProgramBuildInfo(p->p, p->c->dev, CL_PROGRAM_BUILD_STATUS,
						sizeof(bs), &bs, NULL);
		if (bs != CL_BUILD_SUCCESS)
			return -EAGAIN;
		if (refused)
			return refused;
		p->tq_state = 1;
		ret = reg_run(&d, p->src, p->len, o, strlen(o), &p->tq_id);
		p->tq_state = ret ? (ret < 0 ? ret : -EINVAL) : 2;
		if (!ret)
			tqcl.st.progs_registered++;
		else if (ret == -EPERM)
			refused = ret;
		/* Once: the program still runs, on the driver alone, and the user should know why. */
		if (ret == -EPERM && !__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
			fprintf(stderr, "tqcl: usched does not run this user's OpenCL C source "
				"(usched.conf: allow-source, isolate-source): its kernels run on "
				"the driver alone, not scheduled by tq\n");
		else if (ret && tqcl.stats_fd >= 0)
			fprintf(stderr, "tqcl: usched refused a program: %s\n", tq_strerror(ret));
		pthread_cond_broadcast(&tqcl.cond);
	}
	if (p->tq_state != 2) {
		pk->tq_state = p->tq_state;
		return pk->tq_state;
	}
	{
		struct tq_desc d = { .opcode = TQ_OP_KERNEL, .program = p->tq_id };

		pk->tq_state = 1;
		ret = reg_run(&d, pk->name, strlen(pk->name), NULL, 0, &pk->tq_id);
		pk->tq_state = ret ? (ret < 0 ? ret : -EINVAL) : 2;
		if (!ret)
			tqcl.st.kerns_registered++;
		else if (tqcl.stats_fd >= 0)
			fprintf(stderr, "tqcl: usched refused kernel %s: %s\n", pk->name,
				tq_strerror(ret));
		pthread_cond_broadcast(&tqcl.cond);
	}
	return pk->tq_state == 2 ? 0 : pk->tq_state;
}

/* The context's own in-order queue, for syncing buffers and replays. */
static cl_command_queue ctx_queue(struct tqcl_ctx *c)
{
	cl_int err;

	if (!c->q && c->dev)
		c->q = tqcl_next.clCreateCommandQueue(c->ctx, c->dev, 0, &err);
	return c->q;
}

/*
 * Until @b's shadow is free for a command that writes it (no task uses
 * it) or reads it (no task writes it). Lock held.
 */
void tqcl_mem_idle(struct tqcl_mem *b, bool for_write)
{
	while (b->writers || (for_write && b->readers))
		tqcl_wait();
}

/*
 * Make the shadow hold @b's data before a captured command uses it (lock
 * held, @b idle for writing when the data must come from the device). With
 * !@need_data the command overwrites all of it. 0, or -ENOMEM (no arena
 * room) or -EIO (the driver's read failed).
 */
int tqcl_sync_arena(struct tqcl_mem *b, bool need_data)
{
	cl_command_queue q;

	if (!b->shadow) {
		int ret = tq_buf_alloc(&tqcl.tq, b->size, &b->shadow, &b->off);

		if (ret) {
			b->shadow = NULL;
			return ret;
		}
	}
	if (b->home != TQCL_DEV || !need_data)
		return 0;
	q = ctx_queue(b->c);
	if (!q || tqcl_next.clEnqueueReadBuffer(q, b->m, CL_TRUE, 0, b->size, b->shadow, 0, NULL,
						NULL))
		return -EIO;
	tqcl.st.sync_to_arena++;
	tqcl.st.sync_bytes += b->size;
	b->home = TQCL_BOTH;
	return 0;
}

/*
 * Make the driver's buffer hold @b's data before a command passes through
 * (lock held): waits for the tasks writing the shadow, then writes it into
 * the buffer. @will_write: the command may change the buffer, so the shadow
 * is stale after it. 0, or a CL error of the write.
 */
int tqcl_sync_dev(struct tqcl_mem *b, bool will_write)
{
	tqcl_mem_idle(b, false);
	if (b->home == TQCL_ARENA && !tqcl.forked) {
		cl_command_queue q = ctx_queue(b->c);
		cl_int err = q ? tqcl_next.clEnqueueWriteBuffer(q, b->m, CL_TRUE, 0, b->size,
								b->shadow, 0, NULL, NULL) :
				 CL_OUT_OF_RESOURCES;

		if (err)
			return err;
		tqcl.st.sync_to_dev++;
		tqcl.st.sync_bytes += b->size;
		b->home = TQCL_BOTH;
	}
	if (will_write)
		b->home = TQCL_DEV;
	return 0;
}

/* A new captured command's record and user event (lock held). */
struct tqcl_op *tqcl_op_new(struct tqcl_queue *q, enum tqcl_cmd cmd, cl_int *err)
{
	struct tqcl_op *op = calloc(1, sizeof(*op));

	if (!op) {
		*err = CL_OUT_OF_HOST_MEMORY;
		return NULL;
	}
	op->ev = tqcl_next.clCreateUserEvent(q->c->ctx, err);
	if (!op->ev) {
		free(op);
		return NULL;
	}
	op->cmd = cmd;
	op->q = q;
	op->queue = q->q;
	op->props = q->props;
	op->shown = CL_QUEUED;
	op->t_queued = tq_now_ns();
	return op;
}

/* Free @op once nothing needs it: signalled, not the program's, its task done. */
static void op_maybe_free(struct tqcl_op *op)
{
	if (op->in_fifo || op->app_refs > 0 || op->task)
		return;
	if (op->app_has)
		tqcl_map_del(&tqcl.evs, op->ev);
	tqcl_next.clReleaseEvent(op->ev);
	if (op->pushed)
		tqcl_next.clReleaseCommandQueue(op->queue);
	free(op);
}

void tqcl_op_unref(struct tqcl_op *op)
{
	op->app_refs--;
	op_maybe_free(op);
}

/* The events to set outside the lock: done heads of every queue's FIFO. */
static struct tqcl_op **sig;
static unsigned int nsig, sig_cap;
/*
 * The signaller's own: it wakes for the events of tasks the reaper
 * completed, not at every broadcast; a program's thread that pushed a
 * command sets the events itself (op_finish()).
 */
static pthread_cond_t sig_cond = PTHREAD_COND_INITIALIZER;

static void fifo_advance(struct tqcl_queue *q)
{
	while (q->fifo && q->fifo->done) {
		struct tqcl_op *op = q->fifo;

		q->fifo = op->next;
		if (!q->fifo)
			q->fifo_tail = NULL;
		q->nfifo--;
		op->signalled = true;
		op->shown = op->status;
		if (nsig == sig_cap) {
			unsigned int cap = sig_cap ? sig_cap * 2 : 64;
			struct tqcl_op **n = realloc(sig, cap * sizeof(*n));

			if (!n)
				abort();	/* an event never completing would hang the program */
			sig = n;
			sig_cap = cap;
		}
		sig[nsig++] = op;
	}
	pthread_cond_broadcast(&tqcl.cond);
}

/* Append @op to its queue's FIFO (lock held); a done op may complete at once. */
void tqcl_op_push(struct tqcl_op *op)
{
	struct tqcl_queue *q = op->q;

	tqcl_next.clRetainCommandQueue(q->q);
	op->pushed = true;
	op->in_fifo = true;
	if (q->fifo_tail)
		q->fifo_tail->next = op;
	else
		q->fifo = op;
	q->fifo_tail = op;
	q->nfifo++;
	fifo_advance(q);
}

/*
 * Set the user events of the commands that completed, in order (lock not
 * held: setting one runs the program's callbacks, which may call OpenCL).
 */
void tqcl_signal_ready(void)
{
	for (;;) {
		struct tqcl_op *op;

		pthread_mutex_lock(&tqcl.lock);
		if (!nsig) {
			pthread_mutex_unlock(&tqcl.lock);
			return;
		}
		op = sig[0];
		memmove(sig, sig + 1, --nsig * sizeof(*sig));
		pthread_mutex_unlock(&tqcl.lock);

		tqcl_next.clSetUserEventStatus(op->ev, op->status);

		pthread_mutex_lock(&tqcl.lock);
		op->in_fifo = false;
		op_maybe_free(op);
		pthread_cond_broadcast(&tqcl.cond);
		pthread_mutex_unlock(&tqcl.lock);
	}
}

/* Until every captured command of @q has completed (lock held). */
void tqcl_queue_drain(struct tqcl_queue *q)
{
	while (q->nfifo)
		tqcl_wait();
}

static void inflight_del(struct tqcl_task *t)
{
	for (unsigned int i = 0; i < ninflight; i++) {
		if (inflight[i] == t) {
			inflight[i] = inflight[--ninflight];
			return;
		}
	}
}

/* Submit @t (lock held, its buffers marked). 0 or -errno. */
int tqcl_submit_task(struct tqcl_task *t)
{
	struct tq_desc *d;
	int ret;

	if (ninflight == inflight_cap) {
		unsigned int cap = inflight_cap ? inflight_cap * 2 : 64;
		struct tqcl_task **n = realloc(inflight, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		inflight = n;
		inflight_cap = cap;
	}
	d = desc_get();
	if (!d)
		return -EBADFD;
	*d = t->d;
	tq_desc_set_data(d, (uintptr_t)t);
	/* before the doorbell: the task may start before tq_submit() returns */
	t->op->t_submit = tq_now_ns();
	ret = tq_submit(&tqcl.tq);
	if (ret < 0)
		return ret;
	inflight[ninflight++] = t;
	t->op->shown = CL_SUBMITTED;
	return 0;
}

/*
 * Run @t's kernel with the driver on the real buffers, from the shadows, and
 * bring what it wrote back into them (lock held). Returns CL_COMPLETE or
 * the driver's error.
 */
static cl_int replay(struct tqcl_task *t)
{
	struct tqcl_ctx *c = t->mem[0] ? t->mem[0]->c : t->op->q->c;
	cl_command_queue q = ctx_queue(c);
	const struct tq_desc *d = &t->d;
	size_t global[3], local[3];
	cl_program prog = NULL;
	cl_kernel k;
	cl_int err;

	if (!q || tqcl_next.clGetKernelInfo(t->k->k, CL_KERNEL_PROGRAM, sizeof(prog), &prog, NULL))
		return CL_OUT_OF_RESOURCES;
	k = tqcl_next.clCreateKernel(prog, t->k->name, &err);
	if (!k)
		return err;
	for (unsigned int i = 0; i < d->nr_bufs && !err; i++) {
		struct tqcl_mem *b = t->mem[i];

		/* the shadow is the data: the buffer may be stale */
		if (b->home == TQCL_ARENA)
			err = tqcl_next.clEnqueueWriteBuffer(q, b->m, CL_TRUE, 0, b->size,
							     b->shadow, 0, NULL, NULL);
		if (!err)
			err = tqcl_next.clSetKernelArg(k, d->bufs[i].arg, sizeof(cl_mem), &b->m);
	}
	for (unsigned int i = 0; i < d->nr_scalars && !err; i++)
		err = tqcl_next.clSetKernelArg(k, d->scalars[i].arg, d->scalars[i].size,
					       &d->scalars[i].value);
	for (unsigned int i = 0; i < d->work_dim; i++) {
		global[i] = d->global[i];
		local[i] = d->local[i];
	}
	if (!err)
		err = tqcl_next.clEnqueueNDRangeKernel(q, k, d->work_dim, NULL, global,
						       d->flags & TQ_DESC_F_LOCAL ? local : NULL,
						       0, NULL, NULL);
	for (unsigned int i = 0; i < d->nr_bufs && !err; i++)
		if (t->wr[i])
			err = tqcl_next.clEnqueueReadBuffer(q, t->mem[i]->m, CL_TRUE, 0,
							    t->mem[i]->size, t->mem[i]->shadow,
							    0, NULL, NULL);
	if (!err)
		err = tqcl_next.clFinish(q);
	tqcl_next.clReleaseKernel(k);
	/* the buffers now hold what the shadows do */
	for (unsigned int i = 0; i < d->nr_bufs && !err; i++)
		t->mem[i]->home = TQCL_BOTH;
	return err ? err : CL_COMPLETE;
}

/* A task's end (lock held): status, buffers free, its event in order. */
static void task_done(struct tqcl_task *t, int status, uint64_t start, uint64_t end)
{
	struct tqcl_op *op = t->op;

	inflight_del(t);
	op->t_start = start ? start : op->t_submit;
	op->t_end = end ? end : tq_now_ns();
	if (status) {
		cl_int err = replay(t);

		op->status = err;
		op->t_end = tq_now_ns();
		if (err == CL_COMPLETE)
			tqcl.st.tasks_replayed++;
		else
			tqcl.st.tasks_failed++;
		if (tqcl.stats_fd >= 0)
			fprintf(stderr, "tqcl: task of %s failed in tq (%s); replayed: %d\n",
				t->k->name, tq_strerror(status), err);
	} else {
		uint64_t now = tq_now_ns();

		op->status = CL_COMPLETE;
		tqcl.st.tasks_ok++;
		/* the stages of its latency (TQCL_STATS); clocks of two processes: keep sane ones */
		if (start && end && start >= op->t_submit && end >= start && now >= end) {
			tqcl.st.tq_timed++;
			tqcl.st.t_queue_ns += start - op->t_submit;
			tqcl.st.t_device_ns += end - start;
			tqcl.st.t_deliver_ns += now - end;
		}
		tqcl.last_reap_ns = now;
	}
	for (unsigned int i = 0; i < t->d.nr_bufs; i++) {
		if (t->wr[i])
			t->mem[i]->writers--;
		else
			t->mem[i]->readers--;
	}
	op->done = true;
	op->task = NULL;
	tqcl_next.clReleaseKernel(t->k->k);
	tqcl_kern_drop(t->k);
	free(t);
	fifo_advance(op->q);
	if (nsig)
		pthread_cond_signal(&sig_cond);
}

/* The context broke: the driver runs what tq held, and captures nothing more. */
static void fall_back(int why)
{
	if (tqcl.stats_fd >= 0)
		fprintf(stderr, "tqcl: the tq context failed (%s): passing everything through\n",
			tq_strerror(why));
	tqcl.tq_ok = false;
	while (ninflight)
		task_done(inflight[ninflight - 1], why, 0, 0);
	pthread_cond_broadcast(&tqcl.cond);
}

/* The completion side of the context: one thread, for the life of the process. */
static void *reaper(void *arg)
{
	(void)arg;
	for (;;) {
		struct tq_cqe *cqe, c;
		int ret = tq_wait(&tqcl.tq, &cqe, -1);

		if (ret == -EINTR)
			continue;
		pthread_mutex_lock(&tqcl.lock);
		if (ret) {
			fall_back(ret);
			pthread_mutex_unlock(&tqcl.lock);
			return NULL;
		}
		c = *cqe;
		tq_cqe_seen(&tqcl.tq, cqe);
		if (c.user_data & 1) {
			struct tqcl_reg *r = (struct tqcl_reg *)(uintptr_t)(c.user_data & ~1ull);

			r->status = c.status;
			r->result = c.result;
			r->done = 1;
			pthread_cond_broadcast(&tqcl.cond);
		} else if (c.user_data) {
			task_done((struct tqcl_task *)(uintptr_t)c.user_data, c.status, c.start_ns,
				  c.end_ns);
		}
		pthread_mutex_unlock(&tqcl.lock);
	}
	return NULL;
}

/*
 * Sets the events of completed commands, so that the reaper never runs
 * the program's callbacks: one that enqueues a command may wait for a task,
 * which only the reaper can complete.
 */
static void *signaller(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&tqcl.lock);
		while (!nsig)
			pthread_cond_wait(&sig_cond, &tqcl.lock);
		pthread_mutex_unlock(&tqcl.lock);
		tqcl_signal_ready();
	}
	return NULL;
}
