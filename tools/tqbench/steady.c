// SPDX-License-Identifier: GPL-2.0
/*
 * steady.c - whether the host copies at the profile's speed right now.
 *
 * HtD copies that a DtH overlaps can run well over the profile's slowdown
 * in spells that do not depend on what runs on the GPU (the host's, not
 * the GPU's: Documentation/design/tqbench.md). No model of a TG predicts a
 * spell, and one that falls on some orders and not others moves their
 * comparison.
 *
 * So tqbench probes the host: one HtD and one DtH of PROBE_BYTES started
 * together (in the transfer memory of kernels/cl/clu_calib.h), three times, the
 * median HtD time over its standalone time. A probe within the profile's
 * HtD slowdown times (1 + tolerance) is steady.
 * A pass of NoReorder or a trial starts once a probe is steady (waiting at
 * most --steady-wait), probes every TICK_S while it runs and once at its
 * end, and is run again (at most --redo times an experiment) when one of
 * those probes was not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/tqbench/bench.h"
#include "tq/clock.h"
#include "tq/num.h"

#define PROBE_BYTES	(128ull << 20)
#define PROBE_REPS	3
#define TICK_S		0.5
#define WAIT_STEP_NS	50000000L	/* between probes while waiting */

/* One copy each way (dth false: HtD alone); the HtD's time in ns, 0 on error. */
static double probe_once(struct env *e, bool dth)
{
	struct clu_cal *m = &e->steady.mem;
	cl_event h = NULL, d = NULL;
	double ns = 0;

	if (dth && clu_copy(e->c.q[CLX_DTH], false, m->dev[CLU_DTH], PROBE_BYTES, m->host[CLU_DTH],
			    0, NULL, &d))
		return 0;
	if (dth)
		clFlush(e->c.q[CLX_DTH]);
	if (!clu_copy(e->c.q[CLX_HTD], true, m->dev[CLU_HTD], PROBE_BYTES, m->host[CLU_HTD], 0,
		      NULL, &h)) {
		clFlush(e->c.q[CLX_HTD]);
		if (!clx_wait(h))
			ns = (double)clu_end(h) - (double)clu_start(h);
		clReleaseEvent(h);
	}
	if (d) {
		clx_wait(d);
		clReleaseEvent(d);
	}
	return ns > 0 ? ns : 0;
}

/* The median of PROBE_REPS probes: HtD overlapped (or alone) in ns. */
static double probe(struct env *e, bool dth)
{
	double v[PROBE_REPS];

	for (int i = 0; i < PROBE_REPS; i++)
		v[i] = probe_once(e, dth);
	return tq_median(v, PROBE_REPS);
}

/* Probe now: true when the host is steady. */
static bool steady_probe(struct env *e)
{
	struct steady *st = &e->steady;
	double x = probe(e, true) / st->alone_ns;

	st->last_s = tq_now_s();
	st->probes++;
	if (x > st->limit || !(x > 0)) {
		st->slow_probes++;
		return false;
	}
	return true;
}

int steady_init(struct env *e)
{
	struct steady *st = &e->steady;
	const struct opts *o = e->o;
	double tol = o->steady_pct;

	memset(st, 0, sizeof(*st));
	/* by default only where the copies overlap on a GPU's own engines */
	if (tol < 0)
		tol = e->c.gpu && e->dev.dma == 2 ? 6 : 0;
	if (tol == 0 || e->dev.dma != 2)
		return 0;
	if (clu_cal_init(&st->mem, e->c.ctx, e->c.q[CLX_HTD], e->c.q[CLX_DTH], PROBE_BYTES))
		goto fail;
	probe(e, false);		/* warm: first touches, driver setup */
	st->alone_ns = probe(e, false);
	if (!(st->alone_ns > 0))
		goto fail;
	st->limit = e->dev.slow[TQSIM_HTD] * (1 + tol / 100);
	/* for tools/tqbench/test.c: a limit no probe meets */
	if (getenv("TQBENCH_STEADY_LIMIT"))
		st->limit = atof(getenv("TQBENCH_STEADY_LIMIT"));
	st->on = true;
	fprintf(stderr, "tqbench: steady host: overlapped HtD within x%.3f (profile x%.3f + %g%%)\n",
		st->limit, e->dev.slow[TQSIM_HTD], tol);
	return 0;
fail:
	fprintf(stderr, "tqbench: cannot set up the host probe\n");
	steady_fini(e);
	return -ENOMEM;
}

void steady_fini(struct env *e)
{
	struct steady *st = &e->steady;

	clu_cal_fini(&st->mem);
	st->on = false;
}

void steady_wait(struct env *e)
{
	struct steady *st = &e->steady;
	const struct timespec step = { 0, WAIT_STEP_NS };
	double t0 = tq_now_s();
	bool ok;

	st->spoiled = false;
	if (!st->on)
		return;
	ok = steady_probe(e);
	if (ok)
		return;
	st->waits++;
	while (!ok && tq_now_s() - t0 < e->o->steady_wait_s) {
		nanosleep(&step, NULL);
		ok = steady_probe(e);
	}
	st->waited_s += tq_now_s() - t0;
	/* still slow after the wait: it runs anyway, and counts as unsteady */
	st->spoiled = !ok;
}

void steady_tick(struct env *e)
{
	struct steady *st = &e->steady;

	if (st->on && tq_now_s() - st->last_s >= TICK_S && !steady_probe(e))
		st->spoiled = true;
}

bool steady_end(struct env *e)
{
	struct steady *st = &e->steady;

	if (!st->on)
		return true;
	if (!steady_probe(e))
		st->spoiled = true;
	return !st->spoiled;
}
