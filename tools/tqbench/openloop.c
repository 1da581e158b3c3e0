// SPDX-License-Identifier: GPL-2.0
/*
 * openloop.c - tqbench's open-loop experiment: clients whose tasks arrive
 * as Poisson processes at set fractions of the device's capacity, whatever
 * the device does with them, so latency is the scheduler's and not the
 * depth of a closed loop.
 *
 * A mix is a cycle of phases, each a share of dominant-kernel tasks
 * (BKx: x% DK real tasks, the paper's mixes); "phased" is BK25/BK75, a
 * copy-bound phase then a kernel-bound one, --ol-phase-s each. First the
 * capacity of every phase's share is measured in the same run: a backlog
 * of its tasks, all submitted at once, through usched's auto and through
 * independent contexts; the better of the two is the 100% of the loads.
 * Then for each
 * load f and mix, each client draws its arrivals (rate f x capacity of the
 * phase / clients, exponential gaps) and its tasks from a seed of its own:
 * every setup gets the same arrivals, the same tasks at the same times.
 *
 * The setups are executors behind one interface, a point's arrivals in
 * and each task's delivery time and stage intervals out: usched's
 * in-process core (one client thread per client submitting at its times,
 * the loop on this thread), and independent contexts (each client its own
 * context and in-order queue, a thread that enqueues at its times and one
 * that finds completions by polling, as usched does: openloop_indep.c).
 * Worker processes through the daemon fit the same interface: fork the
 * clients, give each its arrivals, have each report its tasks' times
 * through memory shared with them (proc_openloop.c).
 *
 * Latency: from the arrival time (not the submission, which a late client
 * thread may delay) to the completion's delivery. Counted over the
 * arrivals after the first tenth of the run; throughput: completions
 * inside that window per second.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/openloop.h"
#include "tools/progress.h"
#include "tq/num.h"
#include "usched/core/usched.h"

static uint64_t rnd(uint64_t *st)
{
	return bench_rnd(st);
}

static double uniform01(uint64_t *st)
{
	return ((rnd(st) >> 11) + 0.5) * 0x1.0p-53;
}

/* A pool task: a DK one with probability pct%, else a DT one. */
static unsigned int ol_draw(const struct suite *s, unsigned int pct, uint64_t *st)
{
	bool dk = rnd(st) % 100 < pct;
	unsigned int idx[MAX_POOL], n = 0;

	for (unsigned int i = 0; i < s->npool; i++)
		if (s->pool[i].dk == dk)
			idx[n++] = i;
	return n ? idx[rnd(st) % n] : (unsigned int)(rnd(st) % s->npool);
}

/* usched */

struct ol_client {
	struct ol_run *r;
	unsigned int w;
};

static void *usched_client(void *arg)
{
	struct ol_client *c = arg;
	struct ol_run *r = c->r;
	double lag = 0;

	for (unsigned int k = 0; k < r->narr[c->w]; k++) {
		uint64_t at = r->t0 + r->arr[c->w][k].t;
		struct usched_task t;
		int ret;

		ol_sleep_until(at);
		lag = fmax(lag, (double)(tqsim_clock_ns() - at));
		ret = runner_task(r->e, r->p, r->arr[c->w][k].pool, r->s, c->w + 1, &t);
		t.flags = 0;		/* independent tasks */
		t.user_data = (uint64_t)c->w << 32 | k;
		t.queued_ns = at;
		ret = ret ?: usched_submit(r->u, &t);
		if (ret) {
			pthread_mutex_lock(&r->lock);
			r->err = ret;
			r->total -= r->narr[c->w] - k;
			pthread_mutex_unlock(&r->lock);
			break;
		}
	}
	pthread_mutex_lock(&r->lock);
	r->lag_max = fmax(r->lag_max, lag);
	r->clients_left--;
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void usched_done(void *arg, const struct usched_completion *c)
{
	struct ol_run *r = arg;
	unsigned int w = c->user_data >> 32, k = (uint32_t)c->user_data;
	struct ol_done *d;

	if (w >= r->P || k >= r->narr[w])
		return;
	d = &r->done[w][k];
	d->done = tqsim_clock_ns();
	d->failed = c->status != 0;
	for (int s = 0; s < CLX_STAGES; s++) {
		d->iv[s][0] = c->stage_start[s];
		d->iv[s][1] = c->stage_end[s];
	}
	r->completed++;
}

static bool usched_finished(void *arg)
{
	struct ol_run *r = arg;
	bool done;

	pthread_mutex_lock(&r->lock);
	done = !r->clients_left && r->completed >= r->total;
	pthread_mutex_unlock(&r->lock);
	return done;
}

static int run_usched(struct ol_run *r)
{
	struct ol_client cl[MAX_WORKERS];
	pthread_t th[MAX_WORKERS];
	struct usched *u;
	int ret = runner_usched(r->e, r->p, &u);

	if (ret)
		return ret;
	r->u = u;
	r->clients_left = r->P;
	for (unsigned int w = 0; w < r->P; w++) {
		cl[w] = (struct ol_client){ r, w };
		pthread_create(&th[w], NULL, usched_client, &cl[w]);
	}
	ret = runner_drive(r->p, usched_done, usched_finished, r);
	if (ret)
		usched_cancel(u, USCHED_OWNER_ALL);
	for (unsigned int w = 0; w < r->P; w++)
		pthread_join(th[w], NULL);
	if (ret)	/* what was cancelled completes now */
		runner_drive(r->p, usched_done, usched_finished, r);
	return ret ?: r->err;
}

/* A point */

static void run_free(struct ol_run *r)
{
	for (unsigned int w = 0; w < MAX_WORKERS; w++) {
		free(r->arr[w]);
		free(r->done[w]);
		r->arr[w] = NULL;
		r->done[w] = NULL;
	}
}

/* Room for n arrivals per client; 0 or -ENOMEM. */
static int run_alloc(struct ol_run *r, unsigned int n)
{
	for (unsigned int w = 0; w < r->P; w++) {
		r->arr[w] = calloc(n ? n : 1, sizeof(*r->arr[w]));
		r->done[w] = calloc(n ? n : 1, sizeof(*r->done[w]));
		if (!r->arr[w] || !r->done[w])
			return -ENOMEM;
		r->narr[w] = 0;
	}
	return 0;
}

/* A point through the daemon (proc_openloop.c): the arrivals out, the delivery times back. */
static int run_procs_point(struct ol_run *r, struct olp_shm *sh)
{
	double last = 0;
	int ret;

	for (unsigned int w = 0; w < r->P; w++) {
		if (r->narr[w] > OLP_MAX)
			return -E2BIG;
		sh->narr[w] = r->narr[w];
		for (unsigned int k = 0; k < r->narr[w]; k++) {
			sh->at[w][k] = r->arr[w][k].t;
			sh->pool[w][k] = r->arr[w][k].pool;
			sh->done[w][k] = 0;
			sh->status[w][k] = 0;
			last = fmax(last, r->arr[w][k].t / 1e9);
		}
	}
	sh->t0 = r->t0;
	ret = ol_procs_go(last, &r->tg_size, &r->sched_share);
	for (unsigned int w = 0; w < r->P && !ret; w++) {
		for (unsigned int k = 0; k < r->narr[w]; k++) {
			r->done[w][k].done = sh->done[w][k];
			r->done[w][k].failed = sh->status[w][k] != 0;
		}
		r->completed += r->narr[w];
	}
	return ret;
}

static struct olp_shm *olp;	/* the proc setups' daemon and workers, while they run */

static int run_go(struct ol_run *r)
{
	int ret;

	r->total = 0;
	r->completed = 0;
	r->lag_max = 0;
	r->err = 0;
	for (unsigned int w = 0; w < r->P; w++) {
		r->total += r->narr[w];
		memset(r->done[w], 0, r->narr[w] * sizeof(*r->done[w]));
	}
	pthread_mutex_init(&r->lock, NULL);
	/* a little ahead, so that the clients' first arrivals are on time */
	r->t0 = tqsim_clock_ns() + (r->p == OL_INDEP_PROCS || r->proc ? 20000000 : 2000000);
	if (r->proc)
		ret = run_procs_point(r, olp);
	else
		ret = r->p >= 0 ? run_usched(r) :
		      r->p == OL_INDEP ? ol_run_indep(r) : ol_run_indep_procs(r);
	pthread_mutex_destroy(&r->lock);
	for (unsigned int w = 0; w < r->P && !ret; w++)
		for (unsigned int k = 0; k < r->narr[w]; k++)
			if (r->done[w][k].failed || !r->done[w][k].done)
				ret = -EIO;
	return ret;
}

/* Every pool task once per client at t = 0: programs built, buffers made. */
static int run_warm(struct ol_run *r)
{
	unsigned int P = r->P;
	int ret;

	/* usched: one client, so that kernels are registered from one thread */
	if (r->p >= 0 && !r->proc)
		r->P = 1;
	ret = run_alloc(r, r->s->npool);
	for (unsigned int w = 0; w < r->P && !ret; w++) {
		for (unsigned int i = 0; i < r->s->npool; i++)
			r->arr[w][i] = (struct ol_arr){ 0, i };
		r->narr[w] = r->s->npool;
	}
	ret = ret ?: run_go(r);
	run_free(r);
	r->P = P;
	return ret;
}

/* A backlog of n tasks of pct, all at t = 0: tasks per second. */
static int run_capacity(struct ol_run *r, unsigned int pct, unsigned int n, uint64_t seed,
			double *cap)
{
	uint64_t st = seed, last = 0;
	int ret = run_alloc(r, n / r->P + 1);

	for (unsigned int i = 0; i < n && !ret; i++) {
		unsigned int w = i % r->P;

		r->arr[w][r->narr[w]++] = (struct ol_arr){ 0, ol_draw(r->s, pct, &st) };
	}
	ret = ret ?: run_go(r);
	for (unsigned int w = 0; w < r->P && !ret; w++)
		for (unsigned int k = 0; k < r->narr[w]; k++)
			last = last > r->done[w][k].done ? last : r->done[w][k].done;
	if (!ret)
		*cap = last > r->t0 ? n / ((last - r->t0) / 1e9) : 0;
	run_free(r);
	return ret;
}

/* Poisson arrivals of one client over [0, secs): rate per phase, tasks of its share. */
unsigned int ol_arrivals(const struct suite *s, const struct ol_mix *m, const double *rate,
			 double secs, double phase_s, uint64_t seed, struct ol_arr *a, unsigned int cap)
{
	uint64_t st = seed;
	double t = 0, end = secs * 1e9, ph = phase_s * 1e9;
	unsigned int n = 0;

	while (t < end && n < cap) {
		unsigned int k = (unsigned int)(t / ph) % m->nphase;
		double next = (floor(t / ph) + 1) * ph, gap;

		if (!(rate[k] > 0)) {
			t = next;
			continue;
		}
		gap = -log(uniform01(&st)) / rate[k];
		if (t + gap >= next) {	/* memoryless: draw again from the phase's start */
			t = next;
			continue;
		}
		t += gap;
		if (t >= end)
			break;
		a[n++] = (struct ol_arr){ (uint64_t)t, ol_draw(s, m->pct[k], &st) };
	}
	return n;
}

static double pct_of(const double *v, size_t n, double q)
{
	return n ? v[(size_t)fmin(n - 1, fmax(0, ceil(q * n) - 1))] : 0;
}

/* A point's figures from its tasks. */
static void point_stats(const struct ol_run *r, double secs, struct ol_point *pt)
{
	uint64_t lo = r->t0 + (uint64_t)(secs * 1e8), hi = r->t0 + (uint64_t)(secs * 1e9);
	size_t n = 0, cap = r->total ? r->total : 1, niv = 0, done_in = 0, ndet = 0, nu = 0, no = 0;
	double *lat = malloc(cap * sizeof(double)), sum = 0, det = 0;
	double *lat_user = malloc(cap * sizeof(double)), *lat_others = malloc(cap * sizeof(double));
	double (*iv)[CLX_STAGES][2] = malloc(cap * sizeof(*iv));

	for (unsigned int w = 0; lat && iv && lat_user && lat_others && w < r->P; w++) {
		for (unsigned int k = 0; k < r->narr[w]; k++) {
			const struct ol_done *d = &r->done[w][k];
			uint64_t at = r->t0 + r->arr[w][k].t;
			double end = 0;

			memcpy(iv[niv++], d->iv, sizeof(iv[0]));
			done_in += d->done >= lo && d->done <= hi;
			if (at < lo || at > hi)
				continue;
			lat[n] = (d->done - at) / 1e6;
			if (w < r->P / 2)
				lat_user[nu++] = lat[n];
			else
				lat_others[no++] = lat[n];
			sum += lat[n++];
			/*
			 * usched in-process: the delivery after the last command's end
			 * (the core's clock sync; independent clients' stamps are
			 * aligned by their own delivery, so say nothing of it)
			 */
			for (int st = 0; st < CLX_STAGES; st++)
				end = fmax(end, d->iv[st][1]);
			if (r->p >= 0 && !r->proc && end > 0 && d->done >= end) {
				det += d->done - end;
				ndet++;
			}
		}
	}
	pt->detect_ms = ndet ? det / ndet / 1e6 : -1;
	pt->tasks = n;
	pt->offered = n / (0.9 * secs);
	pt->tput = done_in / (0.9 * secs);
	if (lat && iv && n) {
		qsort(lat, n, sizeof(double), tq_cmp_double);
		pt->p50 = pct_of(lat, n, 0.5);
		pt->p99 = pct_of(lat, n, 0.99);
		pt->p999 = pct_of(lat, n, 0.999);
		pt->mean = sum / n;
		busy_shares(iv, niv, lo, hi, pt->util, &pt->device_util);
		qsort(lat_user, nu, sizeof(double), tq_cmp_double);
		qsort(lat_others, no, sizeof(double), tq_cmp_double);
		pt->p50_user = pct_of(lat_user, nu, 0.5);
		pt->p99_user = pct_of(lat_user, nu, 0.99);
		pt->p50_others = pct_of(lat_others, no, 0.5);
		pt->p99_others = pct_of(lat_others, no, 0.99);
	}
	pt->lag_ms = r->lag_max / 1e6;
	free(lat_user);
	free(lat_others);
	free(lat);
	free(iv);
}

/* Parse "phased", "BKx", "BKx/BKy/...". */
static int parse_mix(const char *name, struct ol_mix *m)
{
	char buf[64], *save = NULL, *tok;

	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(buf, sizeof(buf), "%s", strcmp(name, "phased") ? name : "BK25/BK75");
	m->nphase = 0;
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		char *end;
		long x;

		if (strncmp(tok, "BK", 2) || m->nphase == OL_MAX_PHASES)
			return -EINVAL;
		x = strtol(tok + 2, &end, 10);
		if (*end || end == tok + 2 || x < 0 || x > 100)
			return -EINVAL;
		m->pct[m->nphase++] = (unsigned int)x;
	}
	return m->nphase ? 0 : -EINVAL;
}

int openloop_parse(struct opts *o)
{
	char buf[256], *save = NULL, *tok;
	struct ol_mix m;

	snprintf(buf, sizeof(buf), "%s", o->ol_mixes);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (parse_mix(tok, &m))
			return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", o->ol_loads);
	save = NULL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double f = strtod(tok, &end);

		if (*end || !(f > 0 && f <= 4))
			return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", o->ol_setups);
	save = NULL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool ok = !strcmp(tok, "independent") || !strcmp(tok, "auto-isolated") ||
			  (!strcmp(tok, "proc-independent") && o->process);

		for (int p = 0; p <= NPOL; p++)
			ok |= !strcmp(tok, pol_name(p)) ||
			      (o->process && !strncmp(tok, "proc-", 5) &&
			       !strcmp(tok + 5, pol_name(p)));
		if (!ok)
			return -EINVAL;
	}
	return 0;
}

/* The model's tasks per second at pct: one over the busiest engine's mean work. */
static double model_rate(const struct suite *s, unsigned int pct)
{
	double w[2][CLX_STAGES] = { { 0 } }, best = 0;
	unsigned int n[2] = { 0 };

	for (unsigned int i = 0; i < s->npool; i++) {
		n[s->pool[i].dk]++;
		for (unsigned int c = 0; c < s->pool[i].ncmds; c++)
			w[s->pool[i].dk][s->pool[i].cmd_stage[c]] += s->pool[i].cmd_ns[c];
	}
	for (int st = 0; st < CLX_STAGES; st++) {
		double dk = n[1] ? w[1][st] / n[1] : 0, dt = n[0] ? w[0][st] / n[0] : 0;

		best = fmax(best, pct / 100.0 * dk + (1 - pct / 100.0) * dt);
	}
	return best > 0 ? 1e9 / best : 0;
}

/*
 * A point's seconds of arrivals: --ol-s, or longer at a low load, so that at
 * least --ol-tasks arrivals fall in the counted window (a p99 over a few
 * hundred tasks is their second largest); whole cycles of the mix's phases.
 */
static double point_secs(const struct opts *o, const struct ol_mix *mx, const double *rate,
			 unsigned int P)
{
	double mean = 0, need, cycle = mx->nphase * o->ol_phase_s;

	for (unsigned int k = 0; k < mx->nphase; k++)
		mean += rate[k] / mx->nphase;
	/* rate: arrivals per ns and client; the first tenth is not counted */
	need = mean > 0 ? o->ol_tasks / (0.9 * P * mean * 1e9) : 0;
	if (need <= o->ol_s)
		return o->ol_s;
	return ceil(need / cycle) * cycle;
}

/*
 * A setup's policy (proc-POLICY: through the daemon; auto-isolated: auto,
 * half the clients in an isolation domain), or OL_INDEP(_PROCS).
 */
static int setup_policy(const char *setup)
{
	const char *pol = strncmp(setup, "proc-", 5) ? setup : setup + 5;

	if (!strcmp(setup, "auto-isolated"))
		pol = "auto";

	for (int p = 0; p <= NPOL; p++)
		if (!strcmp(pol, pol_name(p)))
			return p;
	return strcmp(setup, "proc-independent") ? OL_INDEP : OL_INDEP_PROCS;
}

/*
 * The capacity at each share pcts[j] of dominant-kernel tasks, tasks per
 * second: a backlog of its tasks from P clients, all submitted at once,
 * through usched's auto and through independent contexts (cap[j]); a
 * backlog lasts about secs / 3. what names it on the progress bar.
 */
int openloop_capacity(struct env *e, const struct suite *s, const char *what, unsigned int P,
		      const unsigned int *pcts, unsigned int npct, double secs, struct ol_cap *cap)
{
	struct ol_run r = { .e = e, .s = s, .P = P };
	int ret = 0;

	progress_begin(what, 2.0 * npct);
	for (int side = 0; side < 2 && !ret; side++) {
		r.p = side ? -1 : setup_policy("auto");
		steady_wait(e);
		ret = run_warm(&r);
		for (unsigned int j = 0; j < npct && !ret; j++) {
			double est = model_rate(s, pcts[j]);
			unsigned int n = (unsigned int)fmin(4000, fmax(8.0 * r.P, 0.7 * secs / 3 * est));
			double c = 0;

			ret = run_capacity(&r, pcts[j], n, e->o->seed * 7 + pcts[j], &c);
			cap[j].pct = pcts[j];
			*(side ? &cap[j].indep : &cap[j].usched) = c;
			progress_step(1, NULL);
		}
		if (side)
			openloop_indep_forget();
		runners_reset(e);
	}
	progress_end();
	return ret;
}

int run_openloop(struct env *e, const struct suite *s, struct ol_result *res)
{
	const struct opts *o = e->o;
	char buf[256], *save = NULL, *tok;
	const char *setups[OL_MAX_SETUPS];
	unsigned int nsetup = 0, npct = 0, npts = 0;
	unsigned int pcts[OL_MAX_MIXES * OL_MAX_PHASES];
	struct ol_run r = { .e = e, .s = s, .P = o->ol_clients };
	double secs = o->ol_s;
	int ret = 0, setup_failed = 0;

	memset(res, 0, sizeof(*res));
	res->secs = secs;
	res->clients = o->ol_clients;
	res->phase_s = o->ol_phase_s;
	res->min_tasks = o->ol_tasks;
	snprintf(buf, sizeof(buf), "%s", o->ol_mixes);
	for (tok = strtok_r(buf, ",", &save); tok && res->nmix < OL_MAX_MIXES;
	     tok = strtok_r(NULL, ",", &save))
		if (!parse_mix(tok, &res->mix[res->nmix]))
			res->nmix++;
	snprintf(buf, sizeof(buf), "%s", o->ol_loads);
	save = NULL;
	for (tok = strtok_r(buf, ",", &save); tok && res->nload < OL_MAX_LOADS;
	     tok = strtok_r(NULL, ",", &save))
		res->load[res->nload++] = atof(tok);
	snprintf(buf, sizeof(buf), "%s", o->ol_setups);
	save = NULL;
	for (tok = strtok_r(buf, ",", &save); tok && nsetup < OL_MAX_SETUPS; tok = strtok_r(NULL, ",", &save))
		setups[nsetup++] = tok;
	for (unsigned int m = 0; m < res->nmix; m++) {
		for (unsigned int k = 0; k < res->mix[m].nphase; k++) {
			unsigned int j = 0;

			while (j < npct && pcts[j] != res->mix[m].pct[k])
				j++;
			if (j == npct)
				pcts[npct++] = res->mix[m].pct[k];
		}
	}
	res->pt = calloc((size_t)nsetup * res->nmix * res->nload, sizeof(*res->pt));
	if (!res->pt)
		return -ENOMEM;

	ret = openloop_capacity(e, s, "open loop: capacity", r.P, pcts, npct, secs, res->cap);
	res->ncap = npct;
	if (ret) {
		fprintf(stderr, "tqbench: open loop: capacity: %s\n", strerror(-ret));
		return ret;
	}

	progress_begin("open loop", (double)nsetup * res->nmix * res->nload);
	for (unsigned int si = 0; si < nsetup; si++) {
		bool iso = !strcmp(setups[si], "auto-isolated");

		r.p = setup_policy(setups[si]);
		r.proc = r.p >= 0 && !strncmp(setups[si], "proc-", 5);
		/* each setup's usched is made anew (runners_reset() below) */
		e->o->isolate_owners = iso ? r.P / 2 : 0;
		steady_wait(e);
		ret = r.p == OL_INDEP_PROCS ? indep_procs_setup(e, s, r.P) : 0;
		if (!ret && r.proc) {
			olp = ol_procs_open(e, s, r.p, r.P, NULL, NULL);
			ret = olp ? 0 : -EIO;
		}
		ret = ret ?: run_warm(&r);
		if (ret) {
			/* the setup's points are left out; the others still run and are written */
			fprintf(stderr, "tqbench: open loop: %s: %s\n", setups[si], strerror(-ret));
			if (olp)
				ol_procs_close(true);
			olp = NULL;
			setup_failed = ret;
			ret = 0;
			if (r.p == OL_INDEP_PROCS && indep_procs())
				indep_procs_reset();
			runners_reset(e);
			continue;
		}
		for (unsigned int m = 0; m < res->nmix; m++) {
			const struct ol_mix *mx = &res->mix[m];

			for (unsigned int l = 0; l < res->nload; l++) {
				struct ol_point *pt = &res->pt[npts];
				double rate[OL_MAX_PHASES], peak = 0;
				unsigned int cap;

				for (unsigned int k = 0; k < mx->nphase; k++) {
					unsigned int j = 0;

					while (res->cap[j].pct != mx->pct[k])
						j++;
					/* the device's capacity: the better setup's backlog */
					rate[k] = res->load[l] * fmax(res->cap[j].usched,
								      res->cap[j].indep) / r.P / 1e9;
					peak = fmax(peak, rate[k]);
				}
				pt->secs = point_secs(o, mx, rate, r.P);
				cap = (unsigned int)(peak * pt->secs * 1e9 * 2 + 64);
				ret = run_alloc(&r, cap);
				for (unsigned int w = 0; w < r.P && !ret; w++)
					r.narr[w] = ol_arrivals(s, mx, rate, pt->secs, res->phase_s,
								 o->seed * 1000003 + m * 7919 +
								 l * 104729 + w * 31 + 1,
								 r.arr[w], cap);
				snprintf(pt->mix, sizeof(pt->mix), "%s", mx->name);
				snprintf(pt->setup, sizeof(pt->setup), "%s", setups[si]);
				pt->load = res->load[l];
				steady_wait(e);
				if (!ret) {
					struct usched_stats a = { 0 }, b = { 0 };
					struct usched *u = NULL;

					if (r.p >= 0 && !r.proc && !runner_usched(e, r.p, &u))
						usched_stats(u, &a);
					ret = run_go(&r);
					if (u)
						usched_stats(u, &b);
					if (b.tgs > a.tgs) {
						pt->tg_size = (double)(b.completed - a.completed) /
							      (b.tgs - a.tgs);
						pt->sched_share = (b.policy_ns - a.policy_ns) /
							fmax(1, b.measured_ns_sum - a.measured_ns_sum);
					}
				}
				if (!ret)
					point_stats(&r, pt->secs, pt);
				if (!ret && r.proc) {
					/* the daemon keeps the commands' stamps: unknown here */
					for (int st = 0; st < CLX_STAGES; st++)
						pt->util[st] = -1;
					pt->device_util = -1;
					pt->tg_size = r.tg_size;
					pt->sched_share = r.sched_share;
				}
				pt->err = ret;
				run_free(&r);
				npts++;
				progress_step(1, setups[si]);
				if (ret) {
					fprintf(stderr, "tqbench: open loop: %s %s at %.0f%%: %s\n",
						setups[si], mx->name, 100 * res->load[l],
						strerror(-ret));
					ret = 0;
				}
			}
		}
		if (r.p == OL_INDEP)
			openloop_indep_forget();
		if (r.p == OL_INDEP_PROCS && indep_procs())
			indep_procs_reset();
		if (r.proc) {
			ol_procs_close(false);
			olp = NULL;
		}
		runners_reset(e);
	}
	e->o->isolate_owners = 0;
	progress_end();
	res->npts = npts;
	return ret ?: setup_failed;
}

void openloop_free(struct ol_result *res)
{
	free(res->pt);
	res->pt = NULL;
}
