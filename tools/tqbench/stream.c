// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - the stream experiment (run_stream): each of --stream-workers
 * keeps --stream-depth tasks in flight for --stream-s seconds, each new one
 * drawn BK50-like from the real suite's pool, through usched in-process
 * (each policy, runners.c) or as independent applications (threads, or
 * processes through indep.c); counted over the last 90%: tasks per second,
 * latency, each engine's busy share. The stream through the daemon is
 * proc_openloop.c's.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/bench.h"
#include "tools/progress.h"
#include "tq/num.h"
#include "usched/core/usched.h"

struct stream {
	struct env *e;
	int p;				/* the policy */
	struct usched *u;
	const struct suite *s;
	/*
	 * Each worker's own draws, seeded as the independent setup's workers:
	 * every setup sees the same sequence of tasks from each worker.
	 */
	uint64_t rng[MAX_WORKERS];
	uint64_t t_win, t_end;		/* counting window: [t_win, t_end] */
	uint64_t submitted, outstanding, counted;
	uint64_t counted_user;		/* of them, workers 1..P/2's */
	double *lat_ms;			/* per counted task */
	/*
	 * Per task completed, counted or not: stage start, end. A task that
	 * ends after the window may have run its kernel inside it.
	 */
	double (*iv)[CLX_STAGES][2];
	size_t niv;
	double load[CLX_STAGES];	/* standalone work of the counted tasks */
	size_t cap;
	unsigned int failed;		/* tasks completed with an error */
	int err;
};

/* A line of stream-tasks.csv: one counted task's stages, from the window's start. */
static void stream_task_write(const struct stream *st, const struct usched_completion *c,
			      const struct btask *b, const double *alone)
{
	double t0 = st->t_win;

	fprintf(st->e->stream_tasks, "%s,%llu,%s,%.1f", pol_name(st->p), (unsigned long long)c->tg,
		b->name, (c->queued_ns - t0) / 1e3);
	for (int s = 0; s < CLX_STAGES; s++)
		fprintf(st->e->stream_tasks, ",%.1f,%.1f", c->stage_end[s] > c->stage_start[s] ?
			(c->stage_start[s] - t0) / 1e3 : NAN,
			c->stage_end[s] > c->stage_start[s] ? (c->stage_end[s] - t0) / 1e3 : NAN);
	fprintf(st->e->stream_tasks, ",%.1f,%.1f,%.1f\n", alone[CLX_HTD] / 1e3,
		alone[CLX_K] / 1e3, alone[CLX_DTH] / 1e3);
}

/* BK50-like: a dominant-kernel or a dominant-transfer pool task, evenly. */
unsigned int stream_draw(const struct suite *s, uint64_t *rng)
{
	bool dk = bench_rnd(rng) & 1;
	unsigned int idx[MAX_POOL], n = 0;

	for (unsigned int i = 0; i < s->npool; i++)
		if (s->pool[i].dk == dk)
			idx[n++] = i;
	return n ? idx[bench_rnd(rng) % n] : bench_rnd(rng) % s->npool;
}

static void stream_submit(struct stream *st, uint64_t owner);

/*
 * A stream task completed (runner_drive()'s hook): counted if it ended in
 * the window, and another drawn in its place until the window's end.
 */
static void stream_complete(void *arg, const struct usched_completion *c)
{
	struct stream *st = arg;

	if (c->status) {
		st->failed++;
		return;
	}
	st->outstanding--;
	if (st->niv < st->cap) {
		for (int s = 0; s < CLX_STAGES; s++) {
			st->iv[st->niv][s][0] = c->stage_start[s];
			st->iv[st->niv][s][1] = c->stage_end[s];
		}
		st->niv++;
	}
	if (c->end_ns >= st->t_win && c->end_ns <= st->t_end && st->counted < st->cap) {
		const struct btask *b = &st->s->pool[c->user_data];
		double alone[CLX_STAGES] = { 0 };

		/* to the completion's delivery, as the independent workers' wait returns */
		st->lat_ms[st->counted] = (tqsim_clock_ns() - c->queued_ns) / 1e6;
		for (int s = 0; s < CLX_STAGES; s++) {
			for (unsigned int k = 0; k < b->ncmds; k++)
				if (b->cmd_stage[k] == s)
					alone[s] += b->cmd_ns[k];
			st->load[s] += alone[s];
		}
		st->counted++;
		st->counted_user += c->owner <= st->e->o->stream_workers / 2;
		if (st->e->stream_tasks)
			stream_task_write(st, c, b, alone);
	}
	if (tqsim_clock_ns() < st->t_end)
		stream_submit(st, c->owner);
}

/* Every task out has completed and the window is over. */
static bool stream_finished(void *arg)
{
	const struct stream *st = arg;

	return !st->outstanding && tqsim_clock_ns() >= st->t_end;
}

static void stream_submit(struct stream *st, uint64_t owner)
{
	unsigned int i = stream_draw(st->s, &st->rng[owner - 1]);
	struct usched_task t;
	int ret;

	ret = runner_task(st->e, st->p, i, st->s, owner, &t);
	if (!ret) {
		t.flags = 0;	/* a stream's tasks are independent */
		ret = usched_submit(st->u, &t);
	}
	if (ret) {
		st->err = ret;
		return;
	}
	st->submitted++;
	st->outstanding++;
}

static int cmp_iv(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Busy time of the union of intervals iv[0..n-1] within [lo, hi]. */
static double union_busy(double (*iv)[2], size_t n, double lo, double hi)
{
	double busy = 0, cs = 0, ce = -1;

	qsort(iv, n, sizeof(*iv), cmp_iv);
	for (size_t i = 0; i < n; i++) {
		double s = fmax(iv[i][0], lo), t = fmin(iv[i][1], hi);

		if (t <= s)
			continue;
		if (s > ce) {
			busy += ce > cs ? ce - cs : 0;
			cs = s;
			ce = t;
		} else if (t > ce) {
			ce = t;
		}
	}
	return busy + (ce > cs ? ce - cs : 0);
}

static void percentiles(double *v, size_t n, double *p50, double *p99)
{
	double m = tq_median(v, n);	/* sorts v */

	*p50 = m;
	*p99 = n ? v[(size_t)fmin(n - 1, ceil(0.99 * n) - 1)] : 0;
}

/*
 * Each engine's busy share of [lo, hi], and the device's: the union of all
 * three. An engine that is idle while the device is busy waits on another
 * engine (a kernel behind its input copy); the device idle is the launch's
 * gaps.
 */
static void stream_util(struct stream_result *sr, double (*iv)[CLX_STAGES][2], size_t n,
			double lo, double hi);

void busy_shares(double (*iv)[CLX_STAGES][2], size_t n, double lo, double hi, double *util,
		 double *device)
{
	struct stream_result sr;

	stream_util(&sr, iv, n, lo, hi);
	memcpy(util, sr.util, sizeof(sr.util));
	*device = sr.device_util;
}

static void stream_util(struct stream_result *sr, double (*iv)[CLX_STAGES][2], size_t n,
			double lo, double hi)
{
	double (*one)[2] = malloc((n ? n : 1) * CLX_STAGES * sizeof(*one));
	size_t all = 0;

	/* one engine's intervals after another's: each its own run, then all of them */
	for (int s = 0; s < CLX_STAGES; s++) {
		size_t first = all;

		for (size_t i = 0; one && i < n; i++)
			if (iv[i][s][1] > iv[i][s][0])
				memcpy(one[all++], iv[i][s], sizeof(one[0]));
		sr->util[s] = one ? union_busy(one + first, all - first, lo, hi) / (hi - lo) : -1;
	}
	sr->device_util = one ? union_busy(one, all, lo, hi) / (hi - lo) : -1;
	free(one);
}

static int stream_usched(struct env *e, const struct suite *real, int p,
			 struct stream_result *sr)
{
	struct stream st = { .e = e, .p = p, .s = real };
	struct usched_stats a, b;
	uint64_t now, dur = e->o->stream_s * 1e9;
	int ret;

	ret = runner_usched(e, p, &st.u);
	if (ret)
		return ret;
	st.cap = 1 << 20;
	st.lat_ms = malloc(st.cap * sizeof(double));
	st.iv = malloc(st.cap * sizeof(*st.iv));
	if (!st.lat_ms || !st.iv) {
		ret = -ENOMEM;
		goto out;
	}
	usched_stats(st.u, &a);
	now = tqsim_clock_ns();
	/* the first tenth warms the core up and is not counted */
	st.t_win = now + dur / 10;
	st.t_end = now + dur;
	for (unsigned int w = 0; w < e->o->stream_workers; w++)
		st.rng[w] = e->o->seed + w;
	for (unsigned int w = 0; w < e->o->stream_workers; w++)
		for (unsigned int d = 0; d < e->o->stream_depth; d++)
			stream_submit(&st, w + 1);
	ret = st.err ?: runner_drive(p, stream_complete, stream_finished, &st);
	if (!ret && st.failed)
		ret = -EIO;
	if (ret)
		goto out;
	usched_stats(st.u, &b);
	sr->tasks = st.counted;
	sr->secs = (st.t_end - st.t_win) / 1e9;
	sr->tput = st.counted / sr->secs;
	sr->tput_user = st.counted_user / sr->secs;
	sr->tput_others = (st.counted - st.counted_user) / sr->secs;
	sr->domains = b.domains;
	stream_util(sr, st.iv, st.niv, st.t_win, st.t_end);
	for (int s = 0; s < CLX_STAGES; s++)
		sr->bound_util = fmax(sr->bound_util, st.load[s] / (st.t_end - st.t_win));
	percentiles(st.lat_ms, st.counted, &sr->p50_ms, &sr->p99_ms);
	if (b.tgs > a.tgs) {
		sr->tg_err = (b.abs_err_sum - a.abs_err_sum) / (b.tgs - a.tgs);
		sr->sched_share = (b.policy_ns - a.policy_ns) /
				  fmax(1, b.measured_ns_sum - a.measured_ns_sum);
		sr->tg_size = (double)(b.completed - a.completed) / (b.tgs - a.tgs);
		sr->polled = (double)(b.polled - a.polled) / fmax(1, b.completed - a.completed);
	}
	sr->cleared = (double)(b.bytes_cleared - a.bytes_cleared) /
		      fmax(1, b.completed - a.completed);
out:
	free(st.lat_ms);
	free(st.iv);
	return ret;
}

struct sworker {
	struct env *e;
	const struct suite *s;
	unsigned int w;
	uint64_t rng;
	double t_win, t_end;		/* host CLOCK_MONOTONIC ns */
	size_t n, cap;
	double *lat_ms;
	double (*iv)[CLX_STAGES][2];	/* device ns */
	double load[CLX_STAGES];
	uint64_t dev_off;		/* host ns - device ns, from the first task */
	int ret;
};

/*
 * An application in a loop: its own context, one task at a time. It keeps
 * the device buffers of its last few kinds of task, as an application
 * reuses its own, within a bound so eight of them fit the device.
 */
#define SW_CACHE	4

static void *sworker_main(void *arg)
{
	struct sworker *sw = arg;
	struct clu_region *reg;
	cl_command_queue q;
	struct clx *c;
	struct binst inst[SW_CACHE] = { 0 };
	struct btask b[SW_CACHE];
	int kind[SW_CACHE] = { -1, -1, -1, -1 };
	unsigned int next = 0;

	sw->ret = runner_indep(sw->e, sw->w, &c, &reg);	/* open: the caller opened it */
	if (sw->ret)
		return NULL;
	q = c->q[CLX_HTD];
	for (;;) {
		uint64_t t0 = tqsim_clock_ns(), t1;
		unsigned int i = stream_draw(sw->s, &sw->rng), k;
		struct binst *in;

		if (t0 >= sw->t_end)
			break;
		for (k = 0; k < SW_CACHE && kind[k] != (int)i; k++)
			;
		if (k == SW_CACHE) {	/* not cached: replace the oldest */
			k = next++ % SW_CACHE;
			if (kind[k] >= 0)
				binst_fini(&inst[k]);
			kind[k] = -1;
			b[k] = sw->s->pool[i];
			btask_layout(&b[k], sw->e->out_base);
			if (binst_init(c, &b[k], &inst[k])) {
				sw->ret = -ENOMEM;
				break;
			}
			kind[k] = i;
		}
		in = &inst[k];
		sw->ret = binst_enqueue_in(in, reg, q, q, 0, NULL);
		sw->ret = sw->ret ?: binst_enqueue_out(in, reg, q);
		sw->ret = sw->ret ?: clx_wait(binst_last(in));
		if (sw->ret)
			break;
		t1 = tqsim_clock_ns();
		if (t1 < sw->t_win || t1 > sw->t_end || sw->n >= sw->cap)
			continue;
		sw->lat_ms[sw->n] = (t1 - t0) / 1e6;
		for (int s = 0; s < CLX_STAGES; s++)
			sw->iv[sw->n][s][0] = sw->iv[sw->n][s][1] = 0;
		for (unsigned int c = 0; c < in->nev; c++) {
			int s = in->ev_stage[c];
			double st = clu_start(in->ev[c]), en = clu_end(in->ev[c]);

			if (!sw->iv[sw->n][s][0] || st < sw->iv[sw->n][s][0])
				sw->iv[sw->n][s][0] = st;
			sw->iv[sw->n][s][1] = fmax(sw->iv[sw->n][s][1], en);
			sw->load[s] += b[k].cmd_ns[c];
		}
		sw->n++;
	}
	for (unsigned int k = 0; k < SW_CACHE; k++)
		if (kind[k] >= 0)
			binst_fini(&inst[k]);
	return NULL;
}

/* IC_STREAM: what a client process is told, and tells back (then lat_ms[n], iv[n]) */
struct ic_stream {
	uint32_t w;
	uint64_t rng;
	double t_win, t_end;
};

struct ic_stream_reply {
	int32_t ret;
	uint64_t n;
	double load[CLX_STAGES];
};

int indep_stream_client(struct env *e, const struct suite *s, const void *req, size_t len,
			struct obuf *out)
{
	const struct ic_stream *q = req;
	struct ic_stream_reply rp = { 0 };
	struct clu_region *reg;
	struct sworker sw;
	struct clx *c;
	int ret;

	if (len != sizeof(*q) || q->w >= MAX_WORKERS)
		return -EINVAL;
	ret = runner_indep(e, q->w, &c, &reg);
	if (ret)
		return ret;
	sw = (struct sworker){ .e = e, .s = s, .w = q->w, .rng = q->rng, .t_win = q->t_win,
			       .t_end = q->t_end, .cap = 1 << 16 };
	sw.lat_ms = malloc(sw.cap * sizeof(double));
	sw.iv = malloc(sw.cap * sizeof(*sw.iv));
	if (!sw.lat_ms || !sw.iv) {
		ret = -ENOMEM;
		goto out;
	}
	sworker_main(&sw);
	rp.ret = sw.ret;
	rp.n = sw.n;
	memcpy(rp.load, sw.load, sizeof(rp.load));
	ret = obuf_put(out, &rp, sizeof(rp));
	ret = ret ?: obuf_put(out, sw.lat_ms, sw.n * sizeof(double));
	ret = ret ?: obuf_put(out, sw.iv, sw.n * sizeof(*sw.iv));
out:
	free(sw.lat_ms);
	free(sw.iv);
	return ret;
}

/* The stream's clients as processes (indep.c): each runs sworker_main in its own. */
static int stream_independent_procs(struct env *e, const struct suite *real,
				    struct sworker *sw, unsigned int P, uint64_t start)
{
	struct obuf r = { 0 };
	int ret = indep_procs() >= P ? indep_procs_setup(e, real, P) : -ECHILD;
	uint64_t shift;

	/* every context open before the clock starts: all at once, as the threads' */
	for (unsigned int w = 0; w < P && !ret; w++) {
		struct ic_stream q = { .w = w, .t_win = 0, .t_end = 0 };

		ret = indep_send(w, IC_STREAM, &q, sizeof(q));
	}
	for (unsigned int w = 0; w < P && !ret; w++)
		ret = indep_recv(w, &r);
	/* the window as the threads have it, from now (their contexts were open at start) */
	shift = tqsim_clock_ns() - start;
	for (unsigned int w = 0; w < P && !ret; w++) {
		struct ic_stream q = { .w = w, .rng = sw[w].rng, .t_win = sw[w].t_win + shift,
				       .t_end = sw[w].t_end + shift };

		ret = indep_send(w, IC_STREAM, &q, sizeof(q));
	}
	for (unsigned int w = 0; w < P && !ret; w++) {
		const struct ic_stream_reply *rp;

		ret = indep_recv(w, &r);
		rp = (const void *)r.p;
		if (!ret && (r.len < sizeof(*rp) ||
			     r.len != sizeof(*rp) + rp->n * (sizeof(double) + sizeof(*sw->iv)) ||
			     rp->n > sw[w].cap))
			ret = -EPROTO;
		if (ret)
			break;
		sw[w].ret = rp->ret;
		sw[w].n = rp->n;
		memcpy(sw[w].load, rp->load, sizeof(rp->load));
		memcpy(sw[w].lat_ms, rp + 1, rp->n * sizeof(double));
		memcpy(sw[w].iv, (const char *)(rp + 1) + rp->n * sizeof(double),
		       rp->n * sizeof(*sw->iv));
	}
	free(r.p);
	if (ret)	/* replies may be left unread: these clients are done */
		indep_procs_stop(true);
	else
		indep_procs_reset();
	return ret;
}

/* procs: each worker a process of its own (indep.c), else a thread of this one */
static int stream_independent(struct env *e, const struct suite *real,
			      struct stream_result *sr, bool procs)
{
	unsigned int P = e->o->stream_workers;
	struct sworker sw[MAX_WORKERS];
	pthread_t th[MAX_WORKERS];
	uint64_t now, dur = e->o->stream_s * 1e9;
	double lo = INFINITY, hi = 0, load[CLX_STAGES] = { 0 };
	double *lat, (*iv)[CLX_STAGES][2];
	size_t n = 0;
	bool threads;
	int ret = 0;

	if (P > MAX_WORKERS)
		return -EINVAL;
	for (unsigned int w = 0; w < P && !ret && !procs; w++) {
		struct clu_region *reg;
		struct clx *c;

		ret = runner_indep(e, w, &c, &reg);
	}
	if (ret)
		return ret;
	now = tqsim_clock_ns();
	for (unsigned int w = 0; w < P; w++) {
		sw[w] = (struct sworker){ .e = e, .s = real, .w = w, .rng = e->o->seed + w,
					  .t_win = now + dur / 10, .t_end = now + dur,
					  .cap = 1 << 16 };
		sw[w].lat_ms = malloc(sw[w].cap * sizeof(double));
		sw[w].iv = malloc(sw[w].cap * sizeof(*sw[w].iv));
		if (!sw[w].lat_ms || !sw[w].iv)
			ret = -ENOMEM;
	}
	threads = !procs && !ret;
	if (procs && !ret)
		ret = stream_independent_procs(e, real, sw, P, now);
	for (unsigned int w = 0; w < P && threads; w++)
		pthread_create(&th[w], NULL, sworker_main, &sw[w]);
	for (unsigned int w = 0; w < P; w++) {
		if (threads)
			pthread_join(th[w], NULL);
		ret = ret ?: sw[w].ret;
		n += sw[w].n;
	}
	lat = malloc((n ? n : 1) * sizeof(double));
	iv = malloc((n ? n : 1) * sizeof(*iv));
	n = 0;
	for (unsigned int w = 0; w < P; w++) {
		for (size_t i = 0; lat && iv && i < sw[w].n; i++, n++) {
			lat[n] = sw[w].lat_ms[i];
			memcpy(iv[n], sw[w].iv[i], sizeof(iv[0]));
			for (int s = 0; s < CLX_STAGES; s++) {
				if (iv[n][s][1] > iv[n][s][0]) {
					lo = fmin(lo, iv[n][s][0]);
					hi = fmax(hi, iv[n][s][1]);
				}
			}
		}
		for (int s = 0; s < CLX_STAGES; s++)
			load[s] += sw[w].load[s];
		free(sw[w].lat_ms);
		free(sw[w].iv);
	}
	sr->tasks = n;
	sr->secs = (dur - dur / 10) / 1e9;
	sr->tput = n / sr->secs;
	/* each context's stamps: the span of the counted commands is the window */
	if (lat && iv && n && hi > lo) {
		stream_util(sr, iv, n, lo, hi);
		for (int s = 0; s < CLX_STAGES; s++)
			sr->bound_util = fmax(sr->bound_util, load[s] / (hi - lo));
		percentiles(lat, n, &sr->p50_ms, &sr->p99_ms);
	}
	free(lat);
	free(iv);
	return ret;
}

int run_stream(struct env *e, const struct suite *real, const char *setup,
	       struct stream_result *sr)
{
	int ret = -EINVAL;

	memset(sr, 0, sizeof(*sr));
	snprintf(sr->setup, sizeof(sr->setup), "%s", setup);
	sr->workers = e->o->stream_workers;
	for (int s = 0; s < CLX_STAGES; s++)
		sr->util[s] = -1;
	sr->device_util = -1;
	/* probes would compete with the stream's copies: one wait before it only */
	steady_wait(e);
	progress_begin(setup, 1);
	if (!strcmp(setup, "independent") || !strcmp(setup, "proc-independent"))
		ret = stream_independent(e, real, sr, !strcmp(setup, "proc-independent"));
	for (int p = 0; p <= NPOL; p++)
		if (!strcmp(setup, pol_name(p)))
			ret = stream_usched(e, real, p, sr);
	/* auto with today's buffers handed on uncleared: what hygiene costs */
	if (!strcmp(setup, "auto-noclear")) {
		bool no_clear = e->o->no_clear;

		runners_reset(e);
		e->o->no_clear = true;
		for (int p = 0; p < NPOL; p++)
			if (!strcmp(policy_names[p], "auto"))
				ret = stream_usched(e, real, p, sr);
		runners_reset(e);
		e->o->no_clear = no_clear;
	}
	/*
	 * auto with workers 1..P/2 as one user usched isolates (isolate-source):
	 * their tasks in an OpenCL context of their own, never in a TG with
	 * the others'. Against auto: what isolation costs that user and the rest.
	 */
	if (!strcmp(setup, "auto-isolated")) {
		runners_reset(e);
		e->o->isolate_owners = e->o->stream_workers / 2;
		for (int p = 0; p < NPOL; p++)
			if (!strcmp(policy_names[p], "auto"))
				ret = stream_usched(e, real, p, sr);
		runners_reset(e);
		e->o->isolate_owners = 0;
	}
	progress_end();
	/* what the stream's setup keeps on the device goes before the next */
	runners_reset(e);
	return ret;
}
