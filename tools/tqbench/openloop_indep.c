// SPDX-License-Identifier: GPL-2.0
/*
 * openloop_indep.c - the open loop's independent clients: what
 * applications do without tq. Each client has its own context and
 * in-order queue (runners.c's), a thread that enqueues each task at its
 * arrival and one that finds completions by polling, as usched does; or
 * each client is a process of its own (indep.c), which runs the same two
 * threads (openloop_indep_client()).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/openloop.h"

#define OL_POLL_NS	100000	/* independent clients' completion poll */
#define OL_RING		4096

struct ol_flight {
	unsigned int k;
	unsigned int nev;
	cl_event ev[CLX_MAX_CMDS];
	uint8_t stage[CLX_MAX_CMDS];
};

struct ol_indep {
	struct ol_run *r;
	unsigned int w;
	struct clx *c;
	struct clu_region *reg;
	/* submitted, not yet found complete: a ring, in queue order */
	struct ol_flight ring[OL_RING];
	unsigned int head, tail;
	bool end;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int64_t off;			/* host ns - device ns, least seen */
	int err;
};

/* Each client's device buffers per pool task, made at its first use. */
static struct binst ol_inst[MAX_WORKERS][MAX_POOL];
static struct btask ol_bt[MAX_WORKERS][MAX_POOL];

static void *indep_submitter(void *arg)
{
	struct ol_indep *id = arg;
	struct ol_run *r = id->r;
	cl_command_queue q = id->c->q[CLX_HTD];
	double lag = 0;

	for (unsigned int k = 0; k < r->narr[id->w] && !id->err; k++) {
		uint64_t at = r->t0 + r->arr[id->w][k].t;
		unsigned int i = r->arr[id->w][k].pool;
		struct binst *in = &ol_inst[id->w][i];
		struct ol_flight *f;
		int ret;

		ol_sleep_until(at);
		lag = fmax(lag, (double)(tqsim_clock_ns() - at));
		if (!in->b) {
			ol_bt[id->w][i] = r->s->pool[i];
			btask_layout(&ol_bt[id->w][i], r->e->out_base);
			if (binst_init(id->c, &ol_bt[id->w][i], in)) {
				id->err = -ENOMEM;
				break;
			}
		}
		pthread_mutex_lock(&id->lock);
		while (id->tail - id->head == OL_RING)
			pthread_cond_wait(&id->cv, &id->lock);
		pthread_mutex_unlock(&id->lock);
		ret = binst_enqueue_in(in, id->reg, q, q, 0, NULL);
		ret = ret ?: binst_enqueue_out(in, id->reg, q);
		if (ret) {
			id->err = ret;
			break;
		}
		f = &id->ring[id->tail % OL_RING];
		f->k = k;
		f->nev = in->nev;
		for (unsigned int c = 0; c < in->nev; c++) {
			clRetainEvent(in->ev[c]);
			f->ev[c] = in->ev[c];
			f->stage[c] = in->ev_stage[c];
		}
		pthread_mutex_lock(&id->lock);
		id->tail++;
		pthread_cond_broadcast(&id->cv);
		pthread_mutex_unlock(&id->lock);
	}
	pthread_mutex_lock(&id->lock);
	id->end = true;
	pthread_cond_broadcast(&id->cv);
	pthread_mutex_unlock(&id->lock);
	pthread_mutex_lock(&r->lock);
	r->lag_max = fmax(r->lag_max, lag);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void *indep_completer(void *arg)
{
	struct ol_indep *id = arg;
	struct ol_run *r = id->r;

	for (;;) {
		struct ol_flight *f;
		struct ol_done *d;
		cl_int st = CL_QUEUED;

		pthread_mutex_lock(&id->lock);
		while (id->head == id->tail && !id->end)
			pthread_cond_wait(&id->cv, &id->lock);
		if (id->head == id->tail) {
			pthread_mutex_unlock(&id->lock);
			break;
		}
		f = &id->ring[id->head % OL_RING];
		pthread_mutex_unlock(&id->lock);
		/* an in-order queue: the task's last command is its end */
		for (;;) {
			if (clGetEventInfo(f->ev[f->nev - 1], CL_EVENT_COMMAND_EXECUTION_STATUS,
					   sizeof(st), &st, NULL))
				st = -1;
			if (st <= CL_COMPLETE)
				break;
			ol_sleep_until(tqsim_clock_ns() + OL_POLL_NS);
		}
		d = &r->done[id->w][f->k];
		d->done = tqsim_clock_ns();
		d->failed = st < 0;
		for (unsigned int c = 0; c < f->nev; c++) {
			int s = f->stage[c];
			double a = clu_start(f->ev[c]), b = clu_end(f->ev[c]);

			if (!d->iv[s][0] || a < d->iv[s][0])
				d->iv[s][0] = a;
			d->iv[s][1] = fmax(d->iv[s][1], b);
			clReleaseEvent(f->ev[c]);
		}
		if (d->iv[CLX_K][1] > 0 || d->iv[CLX_DTH][1] > 0) {
			double last = fmax(d->iv[CLX_K][1], d->iv[CLX_DTH][1]);

			id->off = (int64_t)fmin((double)id->off, (double)d->done - last);
		}
		pthread_mutex_lock(&id->lock);
		id->head++;
		pthread_cond_broadcast(&id->cv);
		pthread_mutex_unlock(&id->lock);
		pthread_mutex_lock(&r->lock);
		r->completed++;
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* Clients w0..w1-1 of r, each a submitting and a completing thread. */
static int run_indep_range(struct ol_run *r, unsigned int w0, unsigned int w1)
{
	static struct ol_indep id[MAX_WORKERS];
	pthread_t ts[MAX_WORKERS], tc[MAX_WORKERS];
	int ret = 0;

	for (unsigned int w = w0; w < w1 && !ret; w++) {
		id[w] = (struct ol_indep){ .r = r, .w = w, .off = INT64_MAX };
		ret = runner_indep(r->e, w, &id[w].c, &id[w].reg);
	}
	if (ret)
		return ret;
	for (unsigned int w = w0; w < w1; w++) {
		pthread_mutex_init(&id[w].lock, NULL);
		pthread_cond_init(&id[w].cv, NULL);
		pthread_create(&ts[w], NULL, indep_submitter, &id[w]);
		pthread_create(&tc[w], NULL, indep_completer, &id[w]);
	}
	for (unsigned int w = w0; w < w1; w++) {
		pthread_join(ts[w], NULL);
		pthread_join(tc[w], NULL);
		ret = ret ?: id[w].err;
		pthread_mutex_destroy(&id[w].lock);
		pthread_cond_destroy(&id[w].cv);
	}
	/* the device's stamps onto the host's clock, per context */
	for (unsigned int w = w0; w < w1; w++)
		for (unsigned int k = 0; k < r->narr[w]; k++)
			for (int s = 0; s < CLX_STAGES; s++)
				for (int j = 0; j < 2 && r->done[w][k].iv[s][1] > 0; j++)
					r->done[w][k].iv[s][j] += (double)id[w].off;
	return ret;
}

int ol_run_indep(struct ol_run *r)
{
	return run_indep_range(r, 0, r->P);
}

/* Independent clients as processes (indep.c): a client's arrivals out, its tasks back. */
struct ic_openloop {
	uint32_t w, narr;
	uint64_t t0;
	/* then narr struct ol_arr */
};

struct ic_openloop_reply {
	int32_t ret;
	uint32_t narr;
	double lag;
	/* then narr struct ol_done */
};

int openloop_indep_client(struct env *e, const struct suite *s, const void *req, size_t len,
			  struct obuf *out)
{
	const struct ic_openloop *q = req;
	struct ic_openloop_reply rp = { 0 };
	struct ol_run r = { .e = e, .s = s };
	int ret;

	if (len < sizeof(*q) || q->w >= MAX_WORKERS ||
	    len != sizeof(*q) + (size_t)q->narr * sizeof(struct ol_arr))
		return -EINVAL;
	r.P = q->w + 1;
	r.t0 = q->t0;
	r.narr[q->w] = q->narr;
	r.total = q->narr;
	r.arr[q->w] = malloc((q->narr ? q->narr : 1) * sizeof(struct ol_arr));
	r.done[q->w] = calloc(q->narr ? q->narr : 1, sizeof(struct ol_done));
	if (!r.arr[q->w] || !r.done[q->w]) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(r.arr[q->w], q + 1, q->narr * sizeof(struct ol_arr));
	pthread_mutex_init(&r.lock, NULL);
	rp.ret = run_indep_range(&r, q->w, q->w + 1);
	pthread_mutex_destroy(&r.lock);
	rp.narr = q->narr;
	rp.lag = r.lag_max;
	ret = obuf_put(out, &rp, sizeof(rp));
	ret = ret ?: obuf_put(out, r.done[q->w], q->narr * sizeof(struct ol_done));
out:
	free(r.arr[q->w]);
	free(r.done[q->w]);
	return ret;
}

int ol_run_indep_procs(struct ol_run *r)
{
	struct obuf b = { 0 };
	int ret = 0;

	for (unsigned int w = 0; w < r->P && !ret; w++) {
		struct ic_openloop q = { .w = w, .narr = r->narr[w], .t0 = r->t0 };

		b.len = 0;
		ret = obuf_put(&b, &q, sizeof(q));
		ret = ret ?: obuf_put(&b, r->arr[w], r->narr[w] * sizeof(struct ol_arr));
		ret = ret ?: indep_send(w, IC_OPENLOOP, b.p, b.len);
	}
	for (unsigned int w = 0; w < r->P && !ret; w++) {
		const struct ic_openloop_reply *rp;

		ret = indep_recv(w, &b);
		rp = (const void *)b.p;
		if (!ret && (b.len < sizeof(*rp) || rp->narr != r->narr[w] ||
			     b.len != sizeof(*rp) + rp->narr * sizeof(struct ol_done)))
			ret = -EPROTO;
		if (ret)
			break;
		memcpy(r->done[w], rp + 1, rp->narr * sizeof(struct ol_done));
		r->lag_max = fmax(r->lag_max, rp->lag);
		r->completed += rp->narr;
		ret = rp->ret;
	}
	free(b.p);
	if (ret)	/* replies may be left unread: these clients are done */
		indep_procs_stop(true);
	return ret;
}

/* Forget the independent clients' buffers: their contexts go with runners_reset(). */
void openloop_indep_forget(void)
{
	for (unsigned int w = 0; w < MAX_WORKERS; w++)
		for (unsigned int i = 0; i < MAX_POOL; i++)
			if (ol_inst[w][i].b)
				binst_fini(&ol_inst[w][i]);
}
