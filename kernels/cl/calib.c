// SPDX-License-Identifier: GPL-2.0
/* calib.c - the transfer calibration of clu_calib.h: tqcalib's sweep and usched's quick one. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "kernels/cl/clu_calib.h"
#include "tq/num.h"

#define QUICK_SMALL	(64 << 10)	/* clu_cal_quick()'s copy sizes, bytes */
#define QUICK_LARGE	(32 << 20)
#define QUICK_RUNS	3
#define QUICK_DMA2	0.75	/* two engines: both at once take < this * the sum alone */
#define COVERED		0.98	/* an overlapped copy covered throughout: at least this share */

const char *const clu_cal_xfer_name[CLU_NXFER] = { "htd_alone", "dth_alone", "htd_overlapped",
						   "dth_overlapped" };

/* Transfer memory */

int clu_cal_init(struct clu_cal *m, cl_context ctx, cl_command_queue htd, cl_command_queue dth,
		 size_t max)
{
	cl_int err;

	memset(m, 0, sizeof(*m));
	m->q[CLU_HTD] = htd;
	m->q[CLU_DTH] = dth;
	m->len = 2 * max;
	m->base = clu_mmap(m->len);
	if (!m->base || clu_region_add(ctx, htd, m->base, m->len, &m->r))
		return -ENOMEM;
	m->host[CLU_HTD] = clu_host(&m->r, 0);
	m->host[CLU_DTH] = m->host[CLU_HTD] + max;
	memset(m->host[CLU_HTD], 0x5a, m->len);	/* touch every page before timing */
	for (int d = 0; d < 2; d++) {
		m->dev[d] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, max, NULL, &err);
		if (err) {
			m->dev[d] = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

void clu_cal_fini(struct clu_cal *m)
{
	clu_region_del(m->q[CLU_HTD], &m->r, true);
	clu_unmap(m->base, m->len);
	for (int d = 0; d < 2; d++)
		if (m->dev[d])
			clReleaseMemObject(m->dev[d]);
	memset(m, 0, sizeof(*m));
}

/* A copy in direction d of bytes from/to the start of its area. */
static cl_int copy(struct clu_cal *m, int d, size_t bytes, cl_event *ev)
{
	return clu_copy(m->q[d], d == CLU_HTD, m->dev[d], bytes, m->host[d], 0, NULL, ev);
}

/* Measurements */

double clu_cal_run(struct clu_cal *m, bool htd, bool dth, size_t bytes, double ns[2])
{
	uint64_t t[2][2] = { { 0 } };
	cl_event ev[2] = { NULL, NULL };
	int ret = 0;

	if (htd && copy(m, CLU_HTD, bytes, &ev[0]))
		return 0;
	if (dth && copy(m, CLU_DTH, bytes, &ev[1]))
		ret = -EIO;
	/* both flushed before either is waited on, so that both at once do run at once */
	for (int d = 0; d < 2; d++)
		if (ev[d])
			clFlush(m->q[d]);
	for (int d = 0; d < 2; d++) {
		if (!ev[d])
			continue;
		if (!ret && clu_wait(ev[d]))
			ret = -EIO;
		if (!ret) {
			t[d][0] = clu_start(ev[d]);
			t[d][1] = clu_end(ev[d]);
			if (!t[d][0] || !t[d][1])
				ret = -EIO;
		}
		ns[d] = (double)(t[d][1] - t[d][0]);
	}
	for (int d = 0; d < 2; d++)
		if (ev[d])
			clReleaseEvent(ev[d]);
	if (ret)
		return 0;
	if (htd && dth)
		return fmax(t[0][1], t[1][1]) - fmin(t[0][0], t[1][0]);
	return htd ? ns[0] : ns[1];
}

int clu_cal_alone(struct clu_cal *m, int d, size_t bytes, unsigned int reps, double *ns)
{
	double v[CLU_CAL_REPS], cur[2];

	if (reps > CLU_CAL_REPS)
		reps = CLU_CAL_REPS;
	for (unsigned int i = 0; i < reps; i++) {
		if (!clu_cal_run(m, d == CLU_HTD, d == CLU_DTH, bytes, cur))
			return -EIO;
		v[i] = cur[d];
	}
	*ns = tq_median(v, reps);
	return 0;
}

int clu_cal_overlapped(struct clu_cal *m, int d, size_t bytes, unsigned int reps, double *ns,
		       double *cover)
{
	int o = d == CLU_HTD ? CLU_DTH : CLU_HTD;
	double v[CLU_CAL_REPS], cv[CLU_CAL_REPS];
	unsigned int nv = 0;

	if (reps > CLU_CAL_REPS)
		reps = CLU_CAL_REPS;
	for (unsigned int i = 0; i < reps; i++) {
		cl_event oev[CLU_CAL_OTHERS], ev;
		double t0, t1, lo, hi;
		int ret = 0;

		for (int k = 0; k < CLU_CAL_OTHERS; k++)
			if (copy(m, o, bytes, &oev[k]))
				return -EIO;
		clFlush(m->q[o]);
		if (copy(m, d, bytes, &ev))
			return -EIO;
		ret |= clu_wait(ev);
		ret |= clu_wait(oev[CLU_CAL_OTHERS - 1]);
		t0 = clu_start(ev);
		t1 = clu_end(ev);
		lo = fmax(t0, clu_start(oev[0]));
		hi = fmin(t1, clu_end(oev[CLU_CAL_OTHERS - 1]));
		cv[i] = t1 > t0 ? fmax(0, hi - lo) / (t1 - t0) : 0;
		if (cv[i] > COVERED)
			v[nv++] = t1 - t0;
		clReleaseEvent(ev);
		for (int k = 0; k < CLU_CAL_OTHERS; k++)
			clReleaseEvent(oev[k]);
		if (ret)
			return -EIO;
	}
	*ns = nv ? tq_median(v, nv) : 0;
	*cover = tq_median(cv, reps);
	return 0;
}

/* tqcalib's sweep */

int clu_cal_xfers(cl_context ctx, cl_command_queue htd, cl_command_queue dth,
		  const struct clu_cal_sweep *s, struct clu_cal_xfers *x)
{
	uint64_t max = s->max_bytes;
	struct clu_cal m;
	int ret;

	x->n = 0;
	for (uint64_t b = 4096; b < max && x->n < CLU_CAL_SIZES - 1; b *= 4)
		x->bytes[x->n++] = b;
	x->bytes[x->n++] = max;

	ret = clu_cal_init(&m, ctx, htd, dth, max);
	for (unsigned int i = 0; i < x->n && !ret; i++) {
		size_t bytes = x->bytes[i];
		/* more runs where they are cheap and noisy */
		unsigned int reps = bytes <= (1 << 20) && !s->quick ? 3 * s->reps : s->reps;
		char note[32];
		double warm;

		snprintf(note, sizeof(note), "%zu KiB", bytes >> 10);
		if (s->step)
			s->step(0, note);
		ret = clu_cal_alone(&m, CLU_HTD, bytes, 1, &warm);
		ret = ret ?: clu_cal_alone(&m, CLU_DTH, bytes, 1, &warm);
		ret = ret ?: clu_cal_alone(&m, CLU_HTD, bytes, reps, &x->t[CLU_HTD_ALONE][i]);
		ret = ret ?: clu_cal_alone(&m, CLU_DTH, bytes, reps, &x->t[CLU_DTH_ALONE][i]);
		ret = ret ?: clu_cal_overlapped(&m, CLU_HTD, bytes, reps, &x->t[CLU_HTD_OV][i],
						&x->cover[CLU_HTD][i]);
		ret = ret ?: clu_cal_overlapped(&m, CLU_DTH, bytes, reps, &x->t[CLU_DTH_OV][i],
						&x->cover[CLU_DTH][i]);
		for (int k = 0; s->csv && !ret && k < CLU_NXFER; k++)
			fprintf(s->csv, "transfer,%s,%zu,,,%zu,%.0f,%.3f\n", clu_cal_xfer_name[k],
				bytes, bytes, x->t[k][i],
				k >= CLU_HTD_OV ? x->cover[k - CLU_HTD_OV][i] : 1.0);
		if (s->step)
			s->step(1, note);
	}
	clu_cal_fini(&m);
	return ret;
}

/*
 * Fit one transfer series. Tasks copy hundreds of KiB and more, and below
 * that caches (PoCL) and fixed costs bend the line: fit from
 * CLU_CAL_FIT_MIN up, unless that leaves fewer than three sizes.
 */
static int fit_series(const struct clu_cal_xfers *x, int k, struct tqsim_xfer_model *xm)
{
	double bx[CLU_CAL_SIZES], ty[CLU_CAL_SIZES], lat, slope;
	unsigned int first = 0;
	size_t n = 0;

	while (first + 3 < x->n && x->bytes[first] < CLU_CAL_FIT_MIN)
		first++;
	for (unsigned int i = first; i < x->n; i++) {
		if (x->t[k][i] > 0) {
			bx[n] = x->bytes[i];
			ty[n++] = x->t[k][i];
		}
	}
	if (clu_fit_line(bx, ty, n, &lat, &slope) || !(slope > 0))
		return -1;
	xm->lat_ns = lat;
	xm->bytes_per_ns = 1 / slope;
	return 0;
}

/*
 * A copy overlapped by the other direction: sim's model slows it by one
 * factor, alone over overlapped bandwidth. A line fitted to the overlapped
 * times on their own gives a ratio that the small sizes' noise sets
 * (Documentation/sim.md, calibration). So the factor is the median over
 * the CLU_CAL_SLOW_SIZES largest sizes (milliseconds each, as tasks copy),
 * and the overlapped line is the alone one with that much less bandwidth.
 */
static int fit_overlapped(const struct clu_cal_xfers *x, int alone, int ov,
			  const struct tqsim_xfer_model *a, struct tqsim_xfer_model *xm)
{
	double slow = clu_tail_ratio(x->t[ov], x->t[alone], x->n, CLU_CAL_SLOW_SIZES);

	if (!(slow > 0))
		return -1;
	xm->lat_ns = a->lat_ns;
	xm->bytes_per_ns = a->bytes_per_ns / slow;
	return 0;
}

int clu_cal_fit(const struct clu_cal_xfers *x, struct tqsim_profile *p)
{
	/* two copy engines when the largest copies overlap the other way */
	double big_cover = fmin(x->cover[CLU_HTD][x->n - 1], x->cover[CLU_DTH][x->n - 1]);

	p->dma = big_cover > 0.5 ? 2 : 1;
	if (fit_series(x, CLU_HTD_ALONE, &p->alone[TQSIM_HTD]) ||
	    fit_series(x, CLU_DTH_ALONE, &p->alone[TQSIM_DTH]))
		return -1;
	if (p->dma == 2 &&
	    (fit_overlapped(x, CLU_HTD_ALONE, CLU_HTD_OV, &p->alone[TQSIM_HTD],
			    &p->overlapped[TQSIM_HTD]) ||
	     fit_overlapped(x, CLU_DTH_ALONE, CLU_DTH_OV, &p->alone[TQSIM_DTH],
			    &p->overlapped[TQSIM_DTH]))) {
		p->dma = 1;
		return 1;
	}
	return 0;
}

/* usched's start-up */

/* The fastest of a few runs: the others were disturbed. */
static double fastest(struct clu_cal *m, bool htd, bool dth, uint64_t bytes, double ns[2])
{
	double best = 0, cur[2] = { 0, 0 };

	for (int r = 0; r < QUICK_RUNS; r++) {
		double span = clu_cal_run(m, htd, dth, bytes, cur);

		if (!span)
			return 0;
		if (!best || span < best) {
			best = span;
			ns[0] = cur[0];
			ns[1] = cur[1];
		}
	}
	return best;
}

/* latency + bytes / bandwidth through the two sizes' times. */
static void line2(struct tqsim_xfer_model *x, double t_small, double t_large)
{
	double slope = fmax((t_large - t_small) / (QUICK_LARGE - QUICK_SMALL), 1e-6);

	x->bytes_per_ns = 1 / slope;
	x->lat_ns = fmax(t_small - QUICK_SMALL * slope, 0);
}

int clu_cal_quick(cl_context ctx, cl_command_queue htd, cl_command_queue dth,
		  struct tqsim_profile *p)
{
	double small[2], large[2], both[2], span, dummy[2];
	struct clu_cal m;
	int ret;

	ret = clu_cal_init(&m, ctx, htd, dth, QUICK_LARGE);
	if (ret)
		goto out;
	ret = -EIO;
	/* a first run of each pays for first touches */
	if (!clu_cal_run(&m, true, true, QUICK_LARGE, dummy))
		goto out;
	for (int d = 0; d < 2; d++) {
		small[d] = fastest(&m, !d, d, QUICK_SMALL, dummy);
		large[d] = fastest(&m, !d, d, QUICK_LARGE, dummy);
		if (!small[d] || !large[d])
			goto out;
	}
	span = fastest(&m, true, true, QUICK_LARGE, both);
	if (!span)
		goto out;
	ret = 0;

	for (int d = 0; d < 2; d++) {
		enum tqsim_stage s = d ? TQSIM_DTH : TQSIM_HTD;
		struct tqsim_xfer_model *x = &p->alone[s];

		line2(x, small[d], large[d]);
		/* the latency stays; only the bandwidth suffers from the other direction */
		p->overlapped[s].lat_ns = x->lat_ns;
		p->overlapped[s].bytes_per_ns =
			fmin(QUICK_LARGE / fmax(both[d] - x->lat_ns, 1), x->bytes_per_ns);
	}
	p->dma = span < QUICK_DMA2 * (large[0] + large[1]) ? 2 : 1;
out:
	clu_cal_fini(&m);
	return ret;
}
