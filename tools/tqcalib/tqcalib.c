// SPDX-License-Identifier: GPL-2.0
/*
 * tqcalib - measure an OpenCL device and write its profile ("tq-profile 1",
 * Documentation/sim.md), the file usched and tqsim read.
 *
 *	tqcalib [-o FILE] [--csv FILE] [--device D] [--quick] [--max-size BYTES]
 *		[--pairs FILE]
 *	tqcalib --fit PAIRS.csv --split FILE [-o FILE] [--csv FILE]
 *
 * Transfers: each size from 4 KiB up to 512 MiB (by 4x), HtD and DtH, alone
 * and while the other direction runs throughout, from host memory
 * registered with the device (CL_MEM_USE_HOST_PTR, mapped: what usched
 * copies from). Time = latency + bytes / bandwidth is fitted per direction
 * alone on the relative error, from 256 KiB up; overlapped, the same line
 * slowed by the median overlapped / alone ratio of the three largest sizes.
 * Whether the directions overlap at all gives the number of copy engines.
 * The transfer sweep and its fits are kernels/cl/clu_calib.h's, the calibration
 * usched's start-up shares (in its quick form).
 * Kernels: every kernels/ task over growing sizes
 * until it takes --kernel-ms, T = eta * m + gamma fitted over the sizes
 * that take at least 1/64 of that; the profile names each by its __kernel
 * function, as usched looks it up, with m as kernels/ defines it. At each
 * size also two runs at once on two kernel queues: the kernel's width, the
 * share of the device it fills, for usched with concurrent kernels; and
 * its demand, its throughput (m / time) there over the best it reached at
 * any size (no runs of its own). With --pairs, then every pair of the
 * kernels at three sizes side by side (pairs.c); --fit fits the model's
 * sharing rule to those pairs, no device needed (fit.c). The
 * model's command latencies: how long after an event on another queue a
 * command waiting on it starts, and after the previous command on its own
 * queue (measure_latencies()). Every time comes from the commands'
 * profiling stamps, median of --reps runs (31 for the latencies); waits
 * sleep, they never spin.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/cl/clu_calib.h"
#include "sim/tqsim.h"
#include "kernels/clx.h"
#include "tools/tqcalib/calib.h"
#include "tools/tqcalib/fit.h"
#include "tools/progress.h"
#include "tq/clock.h"
#include "tq/args.h"
#include "tq/num.h"
#include "tq/version.h"

#define MAX_REPS	CLU_CAL_REPS
#define LAT_BYTES	(64 << 10)	/* the copies of the latency runs */
#define LAT_GATE_BYTES	(4 << 20)	/* the copy that holds the queues up (~80 us) */
#define LAUNCH_TASKS	8		/* tasks a launch round enqueues */

struct opts {
	const char *out;
	const char *csv;
	const char *device;
	const char *tasks;	/* comma-separated subset of kernels/, NULL: all */
	const char *pairs;	/* --pairs: the pairs' CSV */
	const char *fit;	/* --fit: the pairs' CSV to fit on */
	const char *split;	/* --fit: the split file */
	bool quick;
	uint64_t max_bytes;	/* largest transfer */
	uint64_t task_bytes;	/* largest task (all its buffers) in the kernel sweep */
	unsigned int reps;
	double kernel_ms;	/* the sweep stops once a kernel takes this long */
};

/* The latency runs' medians and p90s in ns: the pooled medians go to the profile. */
enum { LAT_HTD_K, LAT_K_DTH, LAT_K_K, LAT_HTD_HTD, NLAT };

static const char *const lat_name[NLAT] = { "k_after_htd", "dth_after_k", "k_after_k",
					    "htd_after_htd" };

struct lats {
	double med[NLAT], p90[NLAT];
	double dep_ns, gap_ns;
	double submit_ns, submit_p90;	/* the host's launch of one command */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tqcalib [options]\n"
		"  -o, --out FILE      the profile (default: stdout)\n"
		"  --csv FILE          every measurement, as CSV\n"
		"  --device D          device index or name substring (default: first GPU)\n"
		"  --quick             few sizes, few runs (tests)\n"
		"  --max-size BYTES    largest transfer (default 512M; quick 4M)\n"
		"  --task-size BYTES   largest task in the kernel sweep (default 1 GiB;\n"
		"                      quick 16 MiB)\n"
		"  --reps N            runs per measurement, median taken (default 7; quick 3)\n"
		"  --kernel-ms MS      grow each kernel until it takes this long (default 20;\n"
		"                      quick 3)\n"
		"  --tasks LIST        kernels to measure, comma-separated (default: all)\n"
		"  --pairs FILE        then every pair of the kernels at three sizes side by\n"
		"                      side on two kernel queues, and each alone, as CSV\n"
		"  --fit CSV           no device: fit the sharing rule of concurrent kernels\n"
		"                      to --pairs's CSV; -o: its profile line, --csv: each\n"
		"                      pair predicted\n"
		"  --split FILE        with --fit: the pairs to fit on and those held out\n"
		"                      (tools/tqcalib/pairs-split.txt)\n"
		"  --version           print tq's version and exit\n");
}

static int measure_xfers(struct clx *c, const struct opts *o, struct clu_cal_xfers *x, FILE *csv)
{
	struct clu_cal_sweep sw = {
		.max_bytes = o->max_bytes < c->max_alloc ? o->max_bytes : c->max_alloc,
		.reps = o->reps,
		.quick = o->quick,
		.csv = csv,
		.step = progress_step,
	};
	int ret = clu_cal_xfers(c->ctx, c->q[CLX_HTD], c->q[CLX_DTH], &sw, x);

	if (ret == -ENOMEM)
		fprintf(stderr, "tqcalib: cannot set up %llu bytes of transfer memory\n",
			(unsigned long long)sw.max_bytes);
	else if (ret)
		fprintf(stderr, "tqcalib: a transfer failed\n");
	return ret;
}

/*
 * Host memory for task @b alone, laid out from 0, mapped and registered as
 * @r: task_region_del() gives it back. 0 or -errno.
 */
static int task_region_add(struct clx *c, struct btask *b, struct clu_region *r)
{
	size_t len = btask_host_bytes(b) + 4096;
	void *base = clu_mmap(len);
	int ret;

	if (!base)
		return -ENOMEM;
	ret = clx_region_add(c, base, len, r);
	if (ret) {
		clu_unmap(base, len);
		return ret;
	}
	btask_layout(b, 0);
	return 0;
}

static void task_region_del(struct clx *c, struct clu_region *r)
{
	clx_region_del(c, r);
	clu_unmap(r->base, r->len);
}

/*
 * Two runs of the kernel at once, one on each kernel queue: the time from
 * the first start to the last end, in ns.
 */
static int time_pair(struct clx *c, const struct binst *in, double *ns)
{
	cl_command_queue q[2] = { clx_kq(c, 0), clx_kq(c, 1) };
	cl_event ev[2] = { NULL, NULL };
	int ret = 0;

	for (int i = 0; i < 2 && !ret; i++)
		if (tqk_cl_enqueue(q[i], in->k, &in->b->l, 0, NULL, &ev[i]))
			ret = -EIO;
	clFlush(q[0]);
	clFlush(q[1]);
	for (int i = 0; i < 2; i++)
		if (ev[i])
			ret = clx_wait(ev[i]) ?: ret;
	if (!ret)
		*ns = (double)(fmax(clu_end(ev[0]), clu_end(ev[1])) -
			       fmin(clu_start(ev[0]), clu_start(ev[1])));
	for (int i = 0; i < 2; i++)
		if (ev[i])
			clReleaseEvent(ev[i]);
	return ret;
}

/*
 * One size of a kernel sweep: median kernel time in ns, and its width
 * (struct tqsim_tg): two runs at once take max(1, 2 w) times one run alone, so
 * w is half their ratio, which cannot tell widths under 0.5 apart.
 */
static int time_kernel(struct clx *c, const struct tqk_task *t, struct tqk_size sz,
		       unsigned int reps, double *ns, double *width)
{
	void *bufs[TQK_MAX_BUFS];
	double v[MAX_REPS];
	struct clu_region r = { 0 };
	struct binst in = { 0 };
	struct btask b;
	int ret;

	ret = calib_task(&b, t, sz);
	ret = ret ?: task_region_add(c, &b, &r);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < b.l.nbufs; i++)
		bufs[i] = clu_host(&r, b.off[i]);
	if (t != tqk_find("SYN"))
		tqk_fill(t, sz, 1, bufs);
	ret = binst_init(c, &b, &in);
	if (ret)
		goto out_region;
	/* once with its copies (inputs in place, kernel warm), then the kernel alone */
	ret = binst_enqueue_in(&in, &r, c->q[CLX_HTD], c->q[CLX_K], 0, NULL);
	ret = ret ?: clx_wait(binst_last(&in));
	for (unsigned int i = 0; i < reps && !ret; i++) {
		cl_event ev;

		if (tqk_cl_enqueue(c->q[CLX_K], in.k, &b.l, 0, NULL, &ev)) {
			ret = -EIO;
			break;
		}
		ret = clx_wait(ev);
		v[i] = (double)(clu_end(ev) - clu_start(ev));
		clReleaseEvent(ev);
	}
	if (!ret)
		*ns = tq_median(v, reps);
	for (unsigned int i = 0; i < reps && !ret; i++)
		ret = time_pair(c, &in, &v[i]);
	if (!ret)
		*width = fmin(1, fmax(0.5, tq_median(v, reps) / (2 * *ns)));
	binst_fini(&in);
out_region:
	task_region_del(c, &r);
	return ret;
}

/* The next size: about twice the work, and strictly more. */
static struct tqk_size next_size(const struct tqk_task *t, struct tqk_size sz)
{
	double m1, m2, deg;
	uint64_t n;

	if (t == tqk_find("SYN")) {
		sz.iters *= 2;
		return sz;
	}
	/* how fast m grows with n tells by how much to scale n */
	m1 = tqk_m(t, sz);
	m2 = tqk_m(t, (struct tqk_size){ tqk_round_n(t, 2 * sz.n), sz.iters });
	deg = m2 > m1 && tqk_round_n(t, 2 * sz.n) > sz.n ?
	      log(m2 / m1) / log((double)tqk_round_n(t, 2 * sz.n) / sz.n) : 1;
	n = tqk_round_n(t, (uint64_t)(sz.n * pow(2, 1 / deg)));
	if (n <= sz.n)
		n = sz.n + t->n_align;
	sz.n = n;
	return sz;
}

/*
 * Up to TQSIM_WIDTH_POINTS of the sweep's @n points spread over it, both
 * ends kept, m ascending: @v's into @pm and @pv; how many.
 */
static unsigned int spread(const double *m, const double *v, size_t n, double *pm, double *pv)
{
	unsigned int k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t at = n <= TQSIM_WIDTH_POINTS ? i : i * (n - 1) / (TQSIM_WIDTH_POINTS - 1);

		if (at >= n || k == TQSIM_WIDTH_POINTS || (k && m[at] <= pm[k - 1]))
			break;
		pm[k] = m[at];
		pv[k++] = v[at];
	}
	return k;
}

static int sweep_kernel(struct clx *c, const struct tqk_task *t, const struct opts *o,
			struct tqsim_kernel_model *km, struct sweep *sw, FILE *csv)
{
	struct tqk_size sz = { t->n_min, 1 };
	double *m = sw->m, *ns = sw->ns, *w = sw->width, fm[MAX_STEPS], fns[MAX_STEPS];
	double kmax = o->kernel_ms * 1e6, eta, gamma, best = 0;
	size_t n = 0, nf = 0;

	if (t == tqk_find("SYN"))
		sz.n = clx_syn_n(c);
	while (n < MAX_STEPS && sz.n <= t->n_max && sz.iters <= t->iters_max) {
		struct btask b;
		uint64_t bytes = 0;
		int ret;

		if (calib_task(&b, t, sz))
			break;
		for (uint32_t i = 0; i < b.l.nbufs; i++) {
			bytes += b.l.buf[i].bytes;
			if (b.l.buf[i].bytes > c->max_alloc)
				bytes = UINT64_MAX;
		}
		if (bytes > o->task_bytes)
			break;
		ret = time_kernel(c, t, sz, o->reps, &ns[n], &w[n]);
		if (ret) {
			fprintf(stderr, "tqcalib: %s n=%llu: failed (%s)\n", t->name,
				(unsigned long long)sz.n, strerror(-ret));
			break;
		}
		m[n] = tqk_m(t, sz);
		sw->sz[n] = sz;
		sw->bytes[n] = (double)bytes;
		if (csv)
			fprintf(csv, "kernel,%s,%llu,%u,%.0f,%llu,%.0f,\nkernel_pair,%s,%llu,%u,%.0f,"
				"%llu,%.0f,\n", t->name, (unsigned long long)sz.n, sz.iters, m[n],
				(unsigned long long)bytes, ns[n], t->name,
				(unsigned long long)sz.n, sz.iters, m[n],
				(unsigned long long)bytes, 2 * w[n] * ns[n]);
		if (ns[n++] > kmax)
			break;
		sz = next_size(t, sz);
	}
	/* fit where tasks will run: the sizes that take at least kmax / 64 */
	for (size_t i = 0; i < n; i++) {
		if (ns[i] >= kmax / 64) {
			fm[nf] = m[i];
			fns[nf++] = ns[i];
		}
	}
	for (size_t i = n >= 3 ? n - 3 : 0; nf < 3 && i < n; i++) {
		fm[nf] = m[i];
		fns[nf++] = ns[i];
	}
	if (clu_fit_line(fm, fns, nf, &gamma, &eta)) {
		fprintf(stderr, "tqcalib: %s: too few sizes to fit\n", t->name);
		return -1;
	}
	/* usched looks a kernel's prior up by its __kernel function name */
	snprintf(km->name, sizeof(km->name), "%s", t->kernel);
	km->eta_ns = eta;
	km->gamma_ns = gamma;
	/* demand: throughput over the best throughput of the sweep */
	for (size_t i = 0; i < n; i++)
		best = fmax(best, m[i] / ns[i]);
	for (size_t i = 0; i < n; i++)
		sw->demand[i] = fmin(1, fmax(1e-4, m[i] / ns[i] / best));
	sw->t = t;
	sw->n = n;
	km->nwidth = spread(m, w, n, km->width_m, km->width);
	km->ndemand = spread(m, sw->demand, n, km->demand_m, km->demand);
	return 0;
}

/* When @b started after @a ended, ns; < 0 if the two engines' stamps disagree. */
static double after_ns(cl_event a, cl_event b)
{
	return (double)clu_start(b) - (double)clu_end(a);
}

/*
 * One latency round: a small HtD, SYN on the K queue waiting on it, a small
 * DtH waiting on SYN. Then a long HtD holds both queues up: behind it on
 * the HtD queue two small HtDs, and on the K queue SYN waiting on it and two
 * more SYNs. The gaps measured are between the two commands that waited in
 * the queue behind another, as commands of a TG wait. (A user event holding
 * the queues instead delays the command after it by an order of magnitude
 * more than commands of a TG wait.) v[LAT_*] in ns.
 */
static int lat_round(struct clx *c, struct clu_cal *m, struct binst *in, double *v)
{
	const struct tqk_launch *l = &in->b->l;
	cl_command_queue *q = c->q;
	cl_event ev[9] = { 0 };
	int ret = -EIO;

	if (clu_copy(q[CLX_HTD], true, m->dev[CLU_HTD], LAT_BYTES, m->host[CLU_HTD], 0, NULL,
		     &ev[0]) ||
	    tqk_cl_enqueue(q[CLX_K], in->k, l, 1, &ev[0], &ev[1]) ||
	    clu_copy(q[CLX_DTH], false, m->dev[CLU_DTH], LAT_BYTES, m->host[CLU_DTH], 1, &ev[1],
		     &ev[2]))
		goto out;
	clFlush(q[CLX_HTD]);
	clFlush(q[CLX_K]);
	if (clx_wait(ev[2]))
		goto out;
	if (clu_copy(q[CLX_HTD], true, m->dev[CLU_HTD], LAT_GATE_BYTES, m->host[CLU_HTD], 0, NULL,
		     &ev[3]) ||
	    clu_copy(q[CLX_HTD], true, m->dev[CLU_HTD], LAT_BYTES, m->host[CLU_HTD], 0, NULL,
		     &ev[4]) ||
	    clu_copy(q[CLX_HTD], true, m->dev[CLU_HTD], LAT_BYTES, m->host[CLU_HTD], 0, NULL,
		     &ev[5]))
		goto out;
	clFlush(q[CLX_HTD]);
	if (tqk_cl_enqueue(q[CLX_K], in->k, l, 1, &ev[3], &ev[6]) ||
	    tqk_cl_enqueue(q[CLX_K], in->k, l, 0, NULL, &ev[7]) ||
	    tqk_cl_enqueue(q[CLX_K], in->k, l, 0, NULL, &ev[8]))
		goto out;
	clFlush(q[CLX_K]);
	if (clx_wait(ev[5]) || clx_wait(ev[8]))
		goto out;
	v[LAT_HTD_K] = after_ns(ev[0], ev[1]);
	v[LAT_K_DTH] = after_ns(ev[1], ev[2]);
	v[LAT_K_K] = after_ns(ev[7], ev[8]);
	v[LAT_HTD_HTD] = after_ns(ev[4], ev[5]);
	ret = 0;
out:
	for (int i = 0; i < 9; i++)
		if (ev[i])
			clReleaseEvent(ev[i]);
	return ret;
}

/*
 * The model's command latencies (Documentation/sim.md): dependency = the
 * median over both waits of the dependent chain (K after HtD, DtH after K),
 * queue gap = the median over both back-to-back pairs (K, K and HtD, HtD).
 * A negative median (stamps of two engines that disagree) counts as 0.
 */
static int measure_latencies(struct clx *c, const struct opts *o, struct lats *lt, FILE *csv)
{
	const struct tqk_task *syn = tqk_find("SYN");
	unsigned int reps = o->quick ? 7 : 31;
	double v[NLAT][MAX_REPS], pool[2 * MAX_REPS];
	struct clu_cal m;
	struct binst in = { 0 };
	struct btask b;
	int ret;

	ret = clu_cal_init(&m, c->ctx, c->q[CLX_HTD], c->q[CLX_DTH], LAT_GATE_BYTES);
	ret = ret ?: btask_syn(&b, "SYN", syn->n_min, 1, 0, 0);	/* the tiniest kernel */
	ret = ret ?: binst_init(c, &b, &in);
	for (unsigned int i = 0; i <= reps && !ret; i++) {
		double w[NLAT];

		ret = lat_round(c, &m, &in, w);
		for (int k = 0; k < NLAT && i; k++)	/* round 0 warms up */
			v[k][i - 1] = w[k];
		progress_step(1, NULL);
	}
	binst_fini(&in);
	clu_cal_fini(&m);
	if (ret) {
		fprintf(stderr, "tqcalib: the latency runs failed\n");
		return ret;
	}
	for (int k = 0; k < NLAT; k++) {
		qsort(v[k], reps, sizeof(double), tq_cmp_double);
		lt->med[k] = tq_median(v[k], reps);
		lt->p90[k] = v[k][(reps - 1) * 9 / 10];
		if (csv)
			fprintf(csv, "latency,%s,,,,%d,%.0f,\n", lat_name[k], LAT_BYTES, lt->med[k]);
	}
	memcpy(pool, v[LAT_HTD_K], reps * sizeof(double));
	memcpy(pool + reps, v[LAT_K_DTH], reps * sizeof(double));
	lt->dep_ns = fmax(0, tq_median(pool, 2 * reps));
	memcpy(pool, v[LAT_K_K], reps * sizeof(double));
	memcpy(pool + reps, v[LAT_HTD_HTD], reps * sizeof(double));
	lt->gap_ns = fmax(0, tq_median(pool, 2 * reps));
	return 0;
}

/*
 * The launch cost (Documentation/sim.md): the host time to enqueue a TG as
 * tqbench and usched do, LAUNCH_TASKS small synthetic tasks (a 64 KiB HtD,
 * SYN at its smallest, a 64 KiB DtH), each queue flushed per task, over
 * the commands enqueued; median of the rounds after a warm-up. With one
 * copy engine the DtHs go on the HtD queue, each after its task.
 */
static int measure_launch(struct clx *c, const struct opts *o, unsigned int dma, struct lats *lt,
			  FILE *csv)
{
	const struct tqk_task *syn = tqk_find("SYN");
	unsigned int reps = o->quick ? 7 : 31;
	static struct binst in[LAUNCH_TASKS];
	struct clu_region r = { 0 };
	double v[MAX_REPS];
	struct btask b;
	int ret;

	ret = btask_syn(&b, "SYN", syn->n_min, 1, LAT_BYTES, LAT_BYTES);
	/* the tasks share the host memory: nothing is checked */
	ret = ret ?: task_region_add(c, &b, &r);
	if (ret)
		return ret;
	for (unsigned int t = 0; t < LAUNCH_TASKS && !ret; t++)
		ret = binst_init(c, &b, &in[t]);
	for (unsigned int i = 0; i <= reps && !ret; i++) {
		cl_command_queue out = c->q[dma == 2 ? CLX_DTH : CLX_HTD];
		unsigned int cmds = 0;
		double t0 = (double)tq_now_ns();

		for (unsigned int t = 0; t < LAUNCH_TASKS && !ret; t++) {
			ret = binst_enqueue_in(&in[t], &r, c->q[CLX_HTD], c->q[CLX_K], 0, NULL);
			ret = ret ?: binst_enqueue_out(&in[t], &r, out);
			cmds += in[t].nev;
		}
		if (i && !ret)	/* round 0 warms up */
			v[i - 1] = ((double)tq_now_ns() - t0) / cmds;
		for (unsigned int t = 0; t < LAUNCH_TASKS && !ret; t++)
			ret = clx_wait(binst_last(&in[t]));
		progress_step(1, NULL);
	}
	for (unsigned int t = 0; t < LAUNCH_TASKS; t++)
		binst_fini(&in[t]);
	task_region_del(c, &r);
	if (ret) {
		fprintf(stderr, "tqcalib: the launch runs failed\n");
		return ret;
	}
	qsort(v, reps, sizeof(double), tq_cmp_double);
	lt->submit_ns = tq_median(v, reps);
	lt->submit_p90 = v[(reps - 1) * 9 / 10];
	if (csv)
		fprintf(csv, "latency,submit,,,,%d,%.0f,\n", LAT_BYTES, lt->submit_ns);
	return 0;
}

/* The latency runs on stderr. */
static void report_lats(const struct lats *lt)
{
	fprintf(stderr, "start after the previous end, median (p90) us:");
	for (int k = 0; k < NLAT; k++)
		fprintf(stderr, " %s %.1f (%.1f)", lat_name[k], lt->med[k] / 1e3, lt->p90[k] / 1e3);
	fprintf(stderr, "\nlatency: dependency %.1f us, queue %.1f us; launch %.1f us a command "
		"(p90 %.1f)\n", lt->dep_ns / 1e3, lt->gap_ns / 1e3, lt->submit_ns / 1e3,
		lt->submit_p90 / 1e3);
}

static bool wanted(const struct opts *o, const char *name)
{
	const char *p = o->tasks;
	size_t len = strlen(name);

	if (!p)
		return true;
	while (*p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return false;
}

static void print_profile(FILE *f, const struct clx *c, const struct tqsim_profile *p,
			  const struct opts *o, const struct clu_cal_xfers *x)
{
	static const char *const dir[] = { [TQSIM_HTD] = "htd", [TQSIM_DTH] = "dth" };
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(f, "tq-profile 1\n");
	fprintf(f, "# tqcalib%s, %s; platform %s; transfers %.0f B .. %.0f B, median of %u\n",
		o->quick ? " --quick" : "", when, c->platform, x->bytes[0], x->bytes[x->n - 1],
		o->reps);
	fprintf(f, "device %s\n", p->device);
	fprintf(f, "dma %u\n", p->dma);
	fprintf(f, "# direction alone|overlapped latency_ns GB/s\n");
	for (int s = TQSIM_HTD; s <= TQSIM_DTH; s += 2) {
		fprintf(f, "%s alone %.0f %.4f\n", dir[s], p->alone[s].lat_ns,
			p->alone[s].bytes_per_ns);
		if (p->dma == 2)
			fprintf(f, "%s overlapped %.0f %.4f\n", dir[s], p->overlapped[s].lat_ns,
				p->overlapped[s].bytes_per_ns);
	}
	fprintf(f, "# command latencies, ns: a waited-on event's end to the waiting command's "
		   "start;\n# the previous command's end to the next one's on its queue\n");
	fprintf(f, "latency dependency %.0f\n", p->dep_ns);
	fprintf(f, "latency queue %.0f\n", p->gap_ns);
	fprintf(f, "# the host's launch of one command of a TG, ns\n");
	fprintf(f, "latency submit %.0f\n", p->submit_ns);
	fprintf(f, "# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ "
		   "defines it)\n");
	for (unsigned int i = 0; i < p->nkernels; i++)
		fprintf(f, "kernel %s %.6g %.0f\n", p->kernel[i].name, p->kernel[i].eta_ns,
			p->kernel[i].gamma_ns);
	fprintf(f, "# kernel function m:width ... (the share of the device it fills, from two "
		   "runs at once;\n# 0.5: at most half)\n");
	for (unsigned int i = 0; i < p->nkernels; i++) {
		const struct tqsim_kernel_model *k = &p->kernel[i];

		if (!k->nwidth)
			continue;
		fprintf(f, "width %s", k->name);
		for (unsigned int j = 0; j < k->nwidth; j++)
			fprintf(f, " %.6g:%.3f", k->width_m[j], k->width[j]);
		fprintf(f, "\n");
	}
	fprintf(f, "# kernel function m:demand ... (its throughput, m over time, over the best of "
		   "its sweep;\n# what the rule 'concurrent demand' shares by, Documentation/sim.md)\n");
	for (unsigned int i = 0; i < p->nkernels; i++) {
		const struct tqsim_kernel_model *k = &p->kernel[i];

		if (!k->ndemand)
			continue;
		fprintf(f, "demand %s", k->name);
		for (unsigned int j = 0; j < k->ndemand; j++)
			fprintf(f, " %.6g:%.4f", k->demand_m[j], k->demand[j]);
		fprintf(f, "\n");
	}
}

/* How well the fitted transfer lines match the measurements, on stderr. */
static void report_xfers(const struct clu_cal_xfers *x, const struct tqsim_profile *p)
{
	fprintf(stderr, "%10s %10s %10s %10s %10s %7s %7s\n", "bytes", "htd us", "dth us",
		"htd+ us", "dth+ us", "cover", "fit err");
	for (unsigned int i = 0; i < x->n; i++) {
		double e = 0;

		for (int s = TQSIM_HTD; s <= TQSIM_DTH; s += 2) {
			double pred = tqsim_profile_xfer_ns(p, s, x->bytes[i]);
			double got = x->t[s == TQSIM_HTD ? CLU_HTD_ALONE : CLU_DTH_ALONE][i];

			e = fmax(e, fabs(pred - got) / got);
		}
		fprintf(stderr, "%10.0f %10.1f %10.1f %10.1f %10.1f %7.2f %6.1f%%\n", x->bytes[i],
			x->t[CLU_HTD_ALONE][i] / 1e3, x->t[CLU_DTH_ALONE][i] / 1e3, x->t[CLU_HTD_OV][i] / 1e3,
			x->t[CLU_DTH_OV][i] / 1e3, fmin(x->cover[0][i], x->cover[1][i]), 100 * e);
	}
	if (p->dma == 2)
		fprintf(stderr, "overlapped: htd x%.3f, dth x%.3f (median of the %d largest sizes)\n",
			p->alone[TQSIM_HTD].bytes_per_ns / p->overlapped[TQSIM_HTD].bytes_per_ns,
			p->alone[TQSIM_DTH].bytes_per_ns / p->overlapped[TQSIM_DTH].bytes_per_ns,
			CLU_CAL_SLOW_SIZES);
}

/* --tasks: names of the built-in tasks only. */
static bool tasks_ok(const char *list)
{
	const char *names[tqk_ntasks];

	for (unsigned int i = 0; i < tqk_ntasks; i++)
		names[i] = tqk_tasks[i]->name;
	return tq_arg_list("tqcalib", "tasks", list, names, tqk_ntasks);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "csv", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' },
		{ "quick", no_argument, NULL, 'q' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "task-size", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "kernel-ms", required_argument, NULL, 'k' },
		{ "tasks", required_argument, NULL, 't' },
		{ "pairs", required_argument, NULL, 'P' },
		{ "fit", required_argument, NULL, 'F' },
		{ "split", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t max = 0, task = 0;
	double kms = 0;
	bool ok = true;
	int ch;

	*o = (struct opts){ 0 };
	while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'o':
			o->out = optarg;
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'q':
			o->quick = true;
			break;
		case 'm':
			ok &= tq_arg_size("tqcalib", "max-size", optarg, &max);
			break;
		case 's':
			ok &= tq_arg_size("tqcalib", "task-size", optarg, &task);
			break;
		case 'r':
			ok &= tq_arg_uint("tqcalib", "reps", optarg, MAX_REPS / 3, &o->reps);
			break;
		case 'k':
			ok &= tq_arg_double("tqcalib", "kernel-ms", optarg, &kms);
			break;
		case 't':
			o->tasks = optarg;
			break;
		case 'P':
			o->pairs = optarg;
			break;
		case 'F':
			o->fit = optarg;
			break;
		case 'S':
			o->split = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return -1;
	}
	if (!ok || (o->tasks && !tasks_ok(o->tasks)))
		return -1;
	if (!o->fit != !o->split || (o->fit && o->pairs)) {
		fprintf(stderr, "tqcalib: --fit and --split go together, without --pairs\n");
		return -1;
	}
	o->max_bytes = max ? max : o->quick ? 4 << 20 : 512 << 20;
	o->task_bytes = task ? task : o->quick ? 16 << 20 : 1ull << 30;
	o->reps = o->reps ? o->reps : o->quick ? 3 : 7;
	o->kernel_ms = kms > 0 ? kms : o->quick ? 3 : 20;
	if (o->max_bytes < 4096) {
		fprintf(stderr, "tqcalib: --max-size is at least 4096\n");
		return -1;
	}
	return 0;
}

/* --csv with --fit: each pair measured and predicted, by the rule before and the one fitted. */
static int fit_csv(const char *path, const struct pair_row *rows, unsigned int n,
		   const struct pair_rule *best)
{
	static const char *const role[] = { "-", "fit", "hold" };
	const struct pair_rule before = { TQSIM_SRC_WIDTH, TQSIM_SHARE_FAIR, 0 };
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "key,a,b,role,a_end_ns,b_end_ns,before_a_ns,before_b_ns,fitted_a_ns,"
		   "fitted_b_ns\n");
	for (unsigned int i = 0; i < n; i++) {
		double e0[2], e1[2];

		pair_predict(&rows[i], &before, e0);
		pair_predict(&rows[i], best, e1);
		fprintf(f, "%s,%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", rows[i].key, rows[i].a,
			rows[i].b, role[rows[i].role], rows[i].end[0], rows[i].end[1], e0[0], e0[1],
			e1[0], e1[1]);
	}
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* tqcalib --fit: no device. */
static int fit_main(const struct opts *o)
{
	static struct pair_split sp;
	static struct pair_row rows[PAIR_MAX];
	char err[PATH_MAX + 128], line[64];
	unsigned int n, unlisted;
	struct pair_rule best;
	FILE *out;

	if (pair_split_read(o->split, &sp, err, sizeof(err)) ||
	    pair_csv_read(o->fit, &sp, rows, &n, &unlisted, err, sizeof(err))) {
		fprintf(stderr, "tqcalib: %s\n", err);
		return 2;
	}
	if (unlisted)
		fprintf(stderr, "tqcalib: %u pairs of %s are not in %s: left out\n", unlisted,
			o->fit, o->split);
	if (pair_fit(rows, n, &best, stdout, line, sizeof(line))) {
		fprintf(stderr, "tqcalib: %s has %u pairs the split says to fit on: 3 at least\n",
			o->fit, n);
		return 1;
	}
	printf("the profile's line: %s\n", line);
	if (o->csv && fit_csv(o->csv, rows, n, &best))
		return 1;
	if (!o->out)
		return 0;
	out = fopen(o->out, "w");
	if (!out || fprintf(out, "# tqcalib --fit %s --split %s: the sharing rule of concurrent "
			    "kernels\n%s\n", o->fit, o->split, line) < 0 || fclose(out)) {
		perror(o->out);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct clu_cal_xfers x;
	static struct sweep sw[TQSIM_PROFILE_KERNELS];
	struct lats lat;
	struct tqsim_profile p = { 0 }, back;
	struct tqsim_parse_err perr;
	struct opts o;
	struct clx c;
	char *text = NULL;
	size_t len = 0, ntasks = 0;
	FILE *csv = NULL, *mem, *out;
	int ret = 1;

	tq_version_opt(argc, argv, "tqcalib");
	if (parse_opts(argc, argv, &o))
		return 2;
	if (o.fit)
		return fit_main(&o);
	if (clx_open(&c, o.device))
		return 77;	/* no device: as a test's skip */
	fprintf(stderr, "tqcalib: %s (%s), %u compute units\n", c.name, c.platform, c.cus);
	if (o.csv) {
		csv = fopen(o.csv, "w");
		if (!csv) {
			perror(o.csv);
			goto out;
		}
		fprintf(csv, "kind,name,n,iters,m,bytes,median_ns,cover\n");
	}
	for (unsigned int i = 0; i < tqk_ntasks; i++)
		ntasks += wanted(&o, tqk_tasks[i]->name);

	progress_begin("transfers", 10);
	if (measure_xfers(&c, &o, &x, csv))
		goto out;
	progress_end();
	snprintf(p.device, sizeof(p.device), "%.63s", c.name);
	switch (clu_cal_fit(&x, &p)) {
	case 0:
		break;
	case 1:
		fprintf(stderr, "tqcalib: no overlapped copy was fully covered; dma 1\n");
		break;
	default:
		fprintf(stderr, "tqcalib: cannot fit the transfer times\n");
		goto out;
	}
	report_xfers(&x, &p);

	progress_begin("latencies", 2 * ((o.quick ? 7 : 31) + 1));
	if (measure_latencies(&c, &o, &lat, csv) || measure_launch(&c, &o, p.dma, &lat, csv))
		goto out;
	progress_end();
	report_lats(&lat);
	p.dep_ns = lat.dep_ns;
	p.gap_ns = lat.gap_ns;
	p.submit_ns = lat.submit_ns;

	progress_begin("kernels", ntasks);
	for (unsigned int i = 0; i < tqk_ntasks; i++) {
		const struct tqk_task *t = tqk_tasks[i];

		if (!wanted(&o, t->name))
			continue;
		progress_step(0, t->name);
		if (sweep_kernel(&c, t, &o, &p.kernel[p.nkernels], &sw[p.nkernels], csv))
			goto out;
		fprintf(stderr, "%s%-5s eta %.4g ns/unit of m, gamma %.1f us\n",
			isatty(STDERR_FILENO) ? "\r\033[K" : "", t->name,
			p.kernel[p.nkernels].eta_ns, p.kernel[p.nkernels].gamma_ns / 1e3);
		p.nkernels++;
		progress_step(1, t->name);
	}
	progress_end();
	if (o.pairs && pairs_measure(&c, sw, p.nkernels, o.kernel_ms, o.reps, o.pairs))
		goto out;

	/* write it, then read it back with sim's parser: the profile must load */
	mem = open_memstream(&text, &len);
	if (!mem)
		goto out;
	print_profile(mem, &c, &p, &o, &x);
	fclose(mem);
	if (tqsim_profile_parse(&back, text, len, &perr)) {
		fprintf(stderr, "tqcalib: the profile does not parse: line %u: %s\n", perr.line,
			perr.reason);
		goto out;
	}
	out = o.out ? fopen(o.out, "w") : stdout;
	if (!out || fwrite(text, 1, len, out) != len || (o.out && fclose(out))) {
		perror(o.out ? o.out : "stdout");
		goto out;
	}
	if (o.out)
		fprintf(stderr, "tqcalib: wrote %s\n", o.out);
	ret = 0;
out:
	free(text);
	if (csv)
		fclose(csv);
	clx_close(&c);
	return ret;
}
