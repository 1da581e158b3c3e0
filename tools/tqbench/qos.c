// SPDX-License-Identifier: GPL-2.0
/*
 * qos.c - tqbench --setups qos: classes, deadlines and shares (issue 45,
 * Documentation/usched.md 17) measured through the usched daemon, every
 * client a process of its own, in one run:
 *
 * 1. A latency-critical client (one real task every QOS_PERIOD_MS,
 *    --qos-tasks of them counted) beside QOS_BE best-effort clients whose
 *    Poisson arrivals of BK50 tasks offer QOS_LOAD of the device's capacity
 *    (measured first, as the open loop does: the better of usched and
 *    independent contexts on a backlog). Four setups get the same arrivals:
 *    tq-prio (the daemon; the critical client's tasks CRITICAL), tq-normal
 *    (the same daemon and workers, every task NORMAL), independent (each
 *    client a process with an OpenCL context of its own: indep.c) and alone
 *    (the critical client by itself through the daemon). The critical
 *    client's p50 and p99 from arrival to completion seen, the best-effort
 *    clients' completions per second.
 * 2. Two users at shares QOS_WEIGHT_A:QOS_WEIGHT_B (usched.conf's [user]
 *    sections) under saturation: half the workers run as uid QOS_UID_A, half
 *    as QOS_UID_B (tqbench must be root), each keeping QOS_SHARE_DEPTH tasks
 *    in flight; their device time, all stages, from the daemon's per-uid
 *    counters (tq_client_engine_seconds_total) over the window.
 * 3. The best-effort clients at QOS_DL_LOAD of the capacity, each task with
 *    a deadline X times its time alone, a point for each X of --qos-deadline:
 *    the share refused by admission (-ETIMEDOUT) and the share of admitted
 *    tasks that completed late (TQ_CQE_F_LATE).
 *
 * Counted: arrivals after the first tenth of a point, completions inside
 * [a tenth, the end] for throughput, as the open loop counts.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/tqbench/openloop.h"
#include "tools/tqbench/proc.h"
#include "tools/progress.h"
#include "tq/clock.h"
#include "tq/num.h"

#define QOS_P		QOS_CLIENTS	/* client 0 is the critical one */
#define QOS_BE		(QOS_P - 1)	/* best-effort clients */
#define QOS_PERIOD_MS	10.0
#define QOS_LOAD	1.2		/* offered by the best-effort clients, of the capacity */
#define QOS_DL_LOAD	0.9
#define QOS_BK		50		/* their mix: BK50 */
#define QOS_UID_A	60001
#define QOS_UID_B	60002
#define QOS_WEIGHT_A	3
#define QOS_WEIGHT_B	1
/*
 * Each share worker's tasks in flight: far more than a TG and what usched
 * enqueues ahead, so that both users always have tasks ready (with a few
 * each, whatever completes is taken at the next TG and the weights never
 * decide)
 */
#define QOS_SHARE_DEPTH	16
#define QOS_POLICY	POL_FLOW	/* latency-aware: the open loop's headline */

const char *const qos_setup_names[QOS_NSETUP] = { "tq-prio", "tq-normal", "independent",
						  "alone" };

/* One point: each client's arrivals in, each task's completion out. */
struct qpoint {
	struct ol_run r;			/* arr, narr, done, t0, P */
	uint32_t *dl_us[MAX_WORKERS];		/* each arrival's deadline; 0: none */
	int32_t *status[MAX_WORKERS];
	uint32_t *flags[MAX_WORKERS];
	uint8_t prio[MAX_WORKERS];		/* each client's tasks' class */
	double secs;				/* of arrivals */
};

static void qpoint_free(struct qpoint *q)
{
	for (unsigned int w = 0; w < MAX_WORKERS; w++) {
		free(q->r.arr[w]);
		free(q->r.done[w]);
		free(q->dl_us[w]);
		free(q->status[w]);
		free(q->flags[w]);
	}
	memset(q, 0, sizeof(*q));
}

/* Room for n arrivals per client, none yet. */
static int qpoint_alloc(struct qpoint *q, struct env *e, const struct suite *s, unsigned int P,
			unsigned int n)
{
	memset(q, 0, sizeof(*q));
	q->r.e = e;
	q->r.s = s;
	q->r.P = P;
	for (unsigned int w = 0; w < P; w++) {
		q->r.arr[w] = calloc(n ? n : 1, sizeof(*q->r.arr[w]));
		q->r.done[w] = calloc(n ? n : 1, sizeof(*q->r.done[w]));
		q->dl_us[w] = calloc(n ? n : 1, sizeof(*q->dl_us[w]));
		q->status[w] = calloc(n ? n : 1, sizeof(*q->status[w]));
		q->flags[w] = calloc(n ? n : 1, sizeof(*q->flags[w]));
		if (!q->r.arr[w] || !q->r.done[w] || !q->dl_us[w] || !q->status[w] || !q->flags[w])
			return -ENOMEM;
	}
	return 0;
}

/* The point through the daemon's workers (proc_openloop.c). */
static int point_daemon(struct olp_shm *sh, struct qpoint *q)
{
	double last = 0, tg, share;
	int ret;

	sh->stream = false;
	for (unsigned int w = 0; w < MAX_WORKERS; w++) {
		sh->narr[w] = w < q->r.P ? q->r.narr[w] : 0;
		sh->prio[w] = w < q->r.P ? q->prio[w] : 0;
		if (sh->narr[w] > OLP_MAX)
			return -E2BIG;
		for (unsigned int k = 0; k < sh->narr[w]; k++) {
			sh->at[w][k] = q->r.arr[w][k].t;
			sh->pool[w][k] = q->r.arr[w][k].pool;
			sh->deadline_us[w][k] = q->dl_us[w][k];
			sh->done[w][k] = 0;
			sh->status[w][k] = 0;
			sh->flags[w][k] = 0;
			last = fmax(last, q->r.arr[w][k].t / 1e9);
		}
	}
	/* a little ahead, so that the clients' first arrivals are on time */
	q->r.t0 = sh->t0 = tq_now_ns() + 20000000;
	ret = ol_procs_go(last, &tg, &share);
	for (unsigned int w = 0; w < q->r.P && !ret; w++) {
		for (unsigned int k = 0; k < q->r.narr[w]; k++) {
			q->r.done[w][k].done = sh->done[w][k];
			q->status[w][k] = sh->status[w][k];
			q->flags[w][k] = sh->flags[w][k];
			if (!sh->done[w][k])
				ret = -EIO;
		}
	}
	return ret;
}

/* The point through independent client processes (openloop_indep.c). */
static int point_indep(struct qpoint *q)
{
	int ret;

	q->r.t0 = tq_now_ns() + 20000000;
	ret = ol_run_indep_procs(&q->r);
	for (unsigned int w = 0; w < q->r.P && !ret; w++) {
		for (unsigned int k = 0; k < q->r.narr[w]; k++) {
			q->status[w][k] = q->r.done[w][k].failed ? -EIO : 0;
			if (!q->r.done[w][k].done)
				ret = -EIO;
		}
	}
	return ret;
}

/* Every pool task once per client at t = 0: programs built, buffers made. */
static int point_warm(struct env *e, const struct suite *s, struct olp_shm *sh)
{
	struct qpoint q;
	int ret = qpoint_alloc(&q, e, s, QOS_P, s->npool);

	for (unsigned int w = 0; w < QOS_P && !ret; w++) {
		for (unsigned int i = 0; i < s->npool; i++)
			q.r.arr[w][i] = (struct ol_arr){ 0, i };
		q.r.narr[w] = s->npool;
	}
	ret = ret ?: sh ? point_daemon(sh, &q) : point_indep(&q);
	for (unsigned int w = 0; w < QOS_P && !ret; w++)
		for (unsigned int k = 0; k < q.r.narr[w]; k++)
			if (q.status[w][k])
				ret = q.status[w][k];
	qpoint_free(&q);
	return ret;
}

/* A task's time alone, ms: its commands one after another. */
static double alone_ms(const struct btask *b)
{
	double ns = 0;

	for (unsigned int c = 0; c < b->ncmds; c++)
		ns += b->cmd_ns[c];
	return ns / 1e6;
}

/* The critical client's task: --qos-task (a pool task, or a kernel's smallest), or the smallest. */
static int crit_task(const struct opts *o, const struct suite *s)
{
	int best = -1;

	for (unsigned int i = 0; i < s->npool; i++) {
		const char *n = s->pool[i].name;
		size_t len = strcspn(n, "/");

		if (o->qos_task && strcmp(n, o->qos_task) &&
		    (strlen(o->qos_task) != len || strncmp(n, o->qos_task, len)))
			continue;
		if (best < 0 || alone_ms(&s->pool[i]) < alone_ms(&s->pool[best]))
			best = (int)i;
	}
	return best;
}

static double pct(const double *v, size_t n, double q)
{
	return n ? v[(size_t)fmin(n - 1, fmax(0, ceil(q * n) - 1))] : 0;
}

/*
 * The point's arrivals: the critical client's every QOS_PERIOD_MS from half
 * a period (none without crit), the best-effort clients' Poisson at load of
 * the capacity (the same seeds in every setup: the same tasks at the same
 * times), each with a deadline dl_x times its time alone (0: none).
 */
static int arrivals(struct qpoint *q, struct env *e, const struct suite *s,
		    const struct qos_result *res, int crit, double load, double secs, double dl_x,
		    uint64_t seed)
{
	const struct ol_mix mix = { .name = "BK50", .nphase = 1, .pct = { QOS_BK } };
	double rate = load * res->cap / QOS_BE / 1e9;
	unsigned int cap = (unsigned int)(rate * secs * 1e9 * 2 + 64);
	int ret = qpoint_alloc(q, e, s, QOS_P, (unsigned int)fmax(cap, secs * 1e3 / QOS_PERIOD_MS +
								       2));

	q->secs = secs;
	for (double t = QOS_PERIOD_MS / 2; !ret && crit >= 0 && t < secs * 1e3; t += QOS_PERIOD_MS)
		q->r.arr[0][q->r.narr[0]++] = (struct ol_arr){ (uint64_t)(t * 1e6),
							       (uint32_t)crit };
	for (unsigned int w = 1; w < QOS_P && !ret && load > 0; w++)
		q->r.narr[w] = ol_arrivals(s, &mix, &rate, secs, secs, seed * 1000003 + w * 31 + 1,
					   q->r.arr[w], cap);
	for (unsigned int w = 0; w < QOS_P && !ret && dl_x > 0; w++) {
		for (unsigned int k = 0; k < q->r.narr[w]; k++) {
			double us = dl_x * alone_ms(&s->pool[q->r.arr[w][k].pool]) * 1e3;

			q->dl_us[w][k] = (uint32_t)fmin(us, TQ_DEADLINE_MAX *
							     TQ_DEADLINE_UNIT_NS / 1e3);
		}
	}
	return ret;
}

/* Part 1's figures of a point: the critical client's latency, the others' throughput. */
static void part1_stats(const struct qpoint *q, struct qos_point *pt)
{
	uint64_t lo = (uint64_t)(q->secs * 1e8), hi = (uint64_t)(q->secs * 1e9);
	double *lat = malloc((q->r.narr[0] + 1) * sizeof(double));
	size_t n = 0;
	uint64_t done_in = 0;

	pt->err = lat ? 0 : -ENOMEM;
	for (unsigned int w = 0; w < q->r.P && !pt->err; w++) {
		for (unsigned int k = 0; k < q->r.narr[w]; k++) {
			uint64_t at = q->r.arr[w][k].t, done = q->r.done[w][k].done - q->r.t0;

			if (q->status[w][k]) {
				fprintf(stderr, "tqbench: qos: client %u's task %u: %s\n", w, k,
					strerror(-q->status[w][k]));
				pt->err = q->status[w][k];
				break;
			}
			if (w == 0 && at >= lo && at <= hi)
				lat[n++] = (q->r.done[w][k].done - q->r.t0 - at) / 1e6;
			if (w > 0) {
				pt->be_n += at >= lo && at <= hi;
				done_in += done >= lo && done <= hi;
			}
		}
	}
	if (!pt->err) {
		qsort(lat, n, sizeof(double), tq_cmp_double);
		pt->crit_n = n;
		pt->crit_p50 = pct(lat, n, 0.5);
		pt->crit_p99 = pct(lat, n, 0.99);
		pt->be_offered = pt->be_n / (0.9 * q->secs);
		pt->be_tput = done_in / (0.9 * q->secs);
	}
	free(lat);
}

/* Part 3's figures: counted arrivals refused, failed, late among the admitted. */
static int part3_stats(const struct qpoint *q, struct qos_dl *dl)
{
	uint64_t lo = (uint64_t)(q->secs * 1e8), hi = (uint64_t)(q->secs * 1e9);
	size_t cap = 1, n = 0;
	double *lat;

	for (unsigned int w = 0; w < q->r.P; w++)
		cap += q->r.narr[w];
	lat = malloc(cap * sizeof(double));
	if (!lat)
		return -ENOMEM;
	for (unsigned int w = 0; w < q->r.P; w++) {
		for (unsigned int k = 0; k < q->r.narr[w]; k++) {
			uint64_t at = q->r.arr[w][k].t;
			int32_t st = q->status[w][k];

			if (at < lo || at > hi)
				continue;
			dl->tasks++;
			if (st == -ETIMEDOUT) {
				dl->refused++;
			} else if (st) {
				dl->failed++;
			} else {
				dl->late += !!(q->flags[w][k] & TQ_CQE_F_LATE);
				lat[n++] = (q->r.done[w][k].done - q->r.t0 - at) / 1e6;
			}
		}
	}
	qsort(lat, n, sizeof(double), tq_cmp_double);
	dl->p99 = pct(lat, n, 0.99);
	free(lat);
	if (dl->failed)
		fprintf(stderr, "tqbench: qos: deadlines %gx: %llu task(s) failed\n", dl->x,
			(unsigned long long)dl->failed);
	return dl->failed ? -EIO : 0;
}

/* usched.conf for the daemon: the two users' shares, every user's tasks in one context. */
static const char *write_conf(const struct opts *o)
{
	static char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/qos-usched.conf", o->out);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return NULL;
	}
	fprintf(f, "# tqbench --setups qos: the daemon's settings (tqbench writes this file)\n"
		"# built-ins of every user in the one context, as root's: a TG never mixes contexts\n"
		"isolate-source = no\n\n[user %u]\nshare = %u\n\n[user %u]\nshare = %u\n",
		QOS_UID_A, QOS_WEIGHT_A, QOS_UID_B, QOS_WEIGHT_B);
	if (fclose(f)) {
		perror(path);
		return NULL;
	}
	return path;
}

/* Part 1 (tq-prio, tq-normal, alone) and part 3 on one daemon with QOS_P root workers. */
static int parts_daemon(struct env *e, const struct suite *s, int crit, const char *conf,
			struct qos_result *res)
{
	static const int order[] = { QOS_ALONE, QOS_PRIO, QOS_NORMAL };
	struct olp_shm *sh = ol_procs_open(e, s, QOS_POLICY, QOS_P, NULL, conf);
	struct qpoint q = { 0 };
	int ret = sh ? 0 : -EIO, err = 0;

	if (!ret) {
		steady_wait(e);
		ret = point_warm(e, s, sh);
	}
	for (unsigned int i = 0; i < 3 && !ret; i++) {
		struct qos_point *pt = &res->pt[order[i]];

		progress_step(0, qos_setup_names[order[i]]);
		ret = arrivals(&q, e, s, res, crit, order[i] == QOS_ALONE ? 0 : res->load, res->secs,
			       0, e->o->seed);
		q.prio[0] = order[i] == QOS_NORMAL ? TQ_PRIO_DEFAULT : TQ_PRIO_CRITICAL;
		steady_wait(e);
		ret = ret ?: point_daemon(sh, &q);
		if (!ret)
			part1_stats(&q, pt);
		else
			pt->err = ret;
		if (pt->err)
			fprintf(stderr, "tqbench: qos: %s: %s\n", qos_setup_names[order[i]],
				strerror(-pt->err));
		err = err ?: pt->err;
		qpoint_free(&q);
		progress_step(1, qos_setup_names[order[i]]);
	}
	for (unsigned int i = 0; i < 3 && ret; i++)
		if (res->pt[order[i]].err == 1)
			res->pt[order[i]].err = ret;
	/* 3: the best-effort clients alone, each task with a deadline; a point per multiple */
	for (unsigned int i = 0; i < res->ndl; i++) {
		struct qos_dl *dl = &res->dl[i];
		char note[32];

		if (ret) {
			dl->err = ret;
			continue;
		}
		snprintf(note, sizeof(note), "deadlines %gx", dl->x);
		progress_step(0, note);
		dl->err = arrivals(&q, e, s, res, -1, res->dl_load, res->dl_secs, dl->x,
				   e->o->seed + 1);
		steady_wait(e);
		dl->err = dl->err ?: point_daemon(sh, &q);
		dl->err = dl->err ?: part3_stats(&q, dl);
		qpoint_free(&q);
		if (dl->err)
			fprintf(stderr, "tqbench: qos: %s: %s\n", note, strerror(-dl->err));
		err = err ?: dl->err;
		progress_step(1, note);
	}
	ret = ol_procs_close(ret != 0) ?: ret;
	return ret ?: err;
}

/* Part 1's independent setup: each client a process with a context of its own. */
static int part_indep(struct env *e, const struct suite *s, int crit, struct qos_result *res)
{
	struct qos_point *pt = &res->pt[QOS_INDEP];
	struct qpoint q = { 0 };
	int ret;

	progress_step(0, "independent");
	ret = indep_procs() >= QOS_P ? indep_procs_setup(e, s, QOS_P) : -ECHILD;
	if (!ret) {
		steady_wait(e);
		ret = point_warm(e, s, NULL);
	}
	ret = ret ?: arrivals(&q, e, s, res, crit, res->load, res->secs, 0, e->o->seed);
	if (!ret) {
		steady_wait(e);
		ret = point_indep(&q);
	}
	if (!ret)
		part1_stats(&q, pt);
	else
		pt->err = ret;
	qpoint_free(&q);
	if (indep_procs())
		indep_procs_reset();
	if (pt->err)
		fprintf(stderr, "tqbench: qos: independent: %s\n", strerror(-pt->err));
	progress_step(1, "independent");
	return pt->err;
}

/* Part 2: two users at their shares, each half the workers, a stream each. */
static int part_shares(struct env *e, const struct suite *s, const char *conf,
		       struct qos_result *res)
{
	const struct opts *o = e->o;
	uint32_t uid[QOS_BE];
	struct olp_shm *sh;
	uint64_t now;
	int ret;

	res->uid[0] = QOS_UID_A;
	res->uid[1] = QOS_UID_B;
	res->weight[0] = QOS_WEIGHT_A;
	res->weight[1] = QOS_WEIGHT_B;
	res->share_secs = 0.8 * o->qos_s;
	if (geteuid()) {
		res->share_err = 1;
		snprintf(res->share_why, sizeof(res->share_why),
			 "not run: two users need two uids (tqbench runs as uid %u, not root)",
			 (unsigned int)geteuid());
		return 0;
	}
	progress_step(0, "shares");
	for (unsigned int w = 0; w < QOS_BE; w++)
		uid[w] = w < QOS_BE / 2 ? QOS_UID_A : QOS_UID_B;
	sh = ol_procs_open(e, s, QOS_POLICY, QOS_BE, uid, conf);
	ret = sh ? 0 : -EIO;
	if (!ret) {
		steady_wait(e);
		sh->stream = true;
		sh->depth = QOS_SHARE_DEPTH;
		sh->seed = o->seed;
		now = tq_now_ns();
		/* the window after a fifth: every worker's depth of tasks queued by then */
		sh->from_ns = now + (uint64_t)(0.2 * o->qos_s * 1e9);
		sh->end_ns = now + (uint64_t)(o->qos_s * 1e9);
		ret = ol_procs_stream_uids(2, res->uid, res->engine_s, res->tasks);
	}
	ret = ol_procs_close(ret != 0) ?: ret;
	if (!ret && !(res->engine_s[0] > 0 && res->engine_s[1] > 0)) {
		fprintf(stderr, "tqbench: qos: shares: no device time of uid %u or %u in the daemon's "
			"metrics\n", res->uid[0], res->uid[1]);
		ret = -EPROTO;
	}
	res->share_err = ret;
	if (ret)
		fprintf(stderr, "tqbench: qos: shares: %s\n", strerror(-ret));
	progress_step(1, "shares");
	return ret;
}

int run_qos(struct env *e, const struct suite *s, struct qos_result *res)
{
	const struct opts *o = e->o;
	const unsigned int bk = QOS_BK;
	struct ol_cap cap = { 0 };
	const char *conf;
	int crit = crit_task(o, s), ret, err;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < QOS_NSETUP; i++)
		res->pt[i].err = 1;
	res->share_err = 1;
	res->dl_load = QOS_DL_LOAD;
	res->dl_secs = o->qos_s;
	res->ndl = o->qos_ndl;
	for (unsigned int i = 0; i < res->ndl; i++)
		res->dl[i] = (struct qos_dl){ .err = 1, .x = o->qos_deadline[i] };
	if (crit < 0) {
		fprintf(stderr, "tqbench: --qos-task %s: no such task in the real suite (tasks.txt)\n",
			o->qos_task);
		return -EINVAL;
	}
	snprintf(res->crit_task, sizeof(res->crit_task), "%s", s->pool[crit].name);
	res->crit_alone_ms = alone_ms(&s->pool[crit]);
	res->period_ms = QOS_PERIOD_MS;
	res->be_clients = QOS_BE;
	res->load = QOS_LOAD;
	/* counted: the arrivals after the first tenth, --qos-tasks of the critical client's */
	res->secs = o->qos_tasks * QOS_PERIOD_MS / 1e3 / 0.9;
	conf = write_conf(o);
	if (!conf)
		return -EIO;
	ret = openloop_capacity(e, s, "qos: capacity", QOS_BE, &bk, 1, fmin(o->qos_s, 3), &cap);
	if (ret) {
		fprintf(stderr, "tqbench: qos: capacity: %s\n", strerror(-ret));
		return ret;
	}
	res->cap_usched = cap.usched;
	res->cap_indep = cap.indep;
	res->cap = fmax(cap.usched, cap.indep);
	fprintf(stderr, "tqbench: qos: capacity %.1f tasks/s (usched %.1f, independent %.1f); "
		"critical task %s, %.3f ms alone\n", res->cap, cap.usched, cap.indep,
		res->crit_task, res->crit_alone_ms);
	progress_begin("qos", 5 + res->ndl);
	ret = parts_daemon(e, s, crit, conf, res);
	err = part_indep(e, s, crit, res);
	ret = ret ?: err;
	err = part_shares(e, s, conf, res);
	progress_end();
	return ret ?: err;
}
