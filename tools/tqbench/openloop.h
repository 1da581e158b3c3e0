/* SPDX-License-Identifier: GPL-2.0 */
/*
 * openloop.h - what the open loop's files share: a point's arrivals in and
 * its tasks' times out (struct ol_run), run by one of the executors:
 * usched in-process or through the daemon (openloop.c), independent
 * clients as threads or processes (openloop_indep.c).
 */
#ifndef TQ_BENCH_OPENLOOP_H
#define TQ_BENCH_OPENLOOP_H

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "tools/tqbench/bench.h"

#define OL_INDEP	(-1)	/* ol_run.p: independent clients as threads */
#define OL_INDEP_PROCS	(-2)	/* as processes (indep.c) */

struct ol_arr {
	uint64_t t;			/* ns from the point's start */
	uint32_t pool;			/* the suite's pool task */
};

/* One task as it ran. */
struct ol_done {
	uint64_t done;			/* delivery, host ns */
	double iv[CLX_STAGES][2];	/* stage intervals, host ns (0: absent) */
	bool failed;
};

/* A point: the arrivals in, the tasks' times out. */
struct ol_run {
	struct env *e;
	const struct suite *s;
	int p;				/* usched's policy, or OL_INDEP(_PROCS) */
	bool proc;			/* usched: the daemon and worker processes */
	double tg_size, sched_share;	/* proc: the daemon's, for the point */
	unsigned int P;
	struct ol_arr *arr[MAX_WORKERS];
	unsigned int narr[MAX_WORKERS];
	struct ol_done *done[MAX_WORKERS];
	struct usched *u;		/* usched's core, p >= 0 */
	uint64_t t0;			/* host ns of t = 0 */
	uint64_t total, completed;
	unsigned int clients_left;	/* usched: clients still submitting */
	pthread_mutex_t lock;
	double lag_max;
	int err;
};

/* Sleep until CLOCK_MONOTONIC ns. */
static inline void ol_sleep_until(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* openloop.c: one client's Poisson arrivals over [0, secs), rate[k] per ns in phase k of m. */
unsigned int ol_arrivals(const struct suite *s, const struct ol_mix *m, const double *rate,
			 double secs, double phase_s, uint64_t seed, struct ol_arr *a, unsigned int cap);

/* openloop_indep.c: a point through independent clients, threads or processes (indep.c). */
int ol_run_indep(struct ol_run *r);
int ol_run_indep_procs(struct ol_run *r);

#endif /* TQ_BENCH_OPENLOOP_H */
