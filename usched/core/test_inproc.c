// SPDX-License-Identifier: GPL-2.0
/*
 * test_inproc.c - the in-process path: several threads, each an owner with
 * its own arena, submit a mix of every built-in task through one core run
 * by usched_start()'s thread. Every result must match the host reference,
 * every task must complete exactly once, and a task flagged
 * USCHED_TASK_ORDERED must start after its owner's previous task ended.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftests/tap.h"
#include "testlib.h"

#define NTHREADS	4
#define NJOBS		16	/* per thread */

struct worker {
	pthread_t thread;
	unsigned int id;
	struct usched *u;
	struct tl_sink *sink;
	struct tl_arena arena;
	struct tl_job job[NJOBS];
	int submit_err;
	unsigned int wrong;
	char why[160];
};

static uint32_t kernel[16];

static bool all_done(struct worker *w)
{
	for (unsigned int k = 0; k < NJOBS; k++)
		if (!atomic_load(&w->job[k].ncompl))
			return false;
	return true;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	for (unsigned int k = 0; k < NJOBS; k++) {
		unsigned int t = (w->id * 5 + k) % tqk_ntasks;
		struct tl_job *j = &w->job[k];
		int ret;

		ret = tl_job_init(j, &w->arena, tqk_tasks[t], tl_small(tqk_tasks[t], k + w->id),
				  w->id * 1000 + k, kernel[t], w->id);
		if (!ret) {
			if (k % 3 == 2)
				j->task.flags = USCHED_TASK_ORDERED;
			ret = usched_submit(w->u, &j->task);
		}
		if (ret && !w->submit_err)
			w->submit_err = ret;
	}
	pthread_mutex_lock(&w->sink->lock);
	while (!w->submit_err && !all_done(w))
		pthread_cond_wait(&w->sink->cond, &w->sink->lock);
	pthread_mutex_unlock(&w->sink->lock);

	for (unsigned int k = 0; k < NJOBS && !w->submit_err; k++) {
		struct tl_job *j = &w->job[k];
		struct tqk_mismatch mm;
		int ret = j->c.status ? j->c.status : tl_job_verify(j, &mm);

		if (ret && !w->wrong++)
			snprintf(w->why, sizeof(w->why), "%s n=%lu: %s%s", j->tt->name,
				 (unsigned long)j->sz.n, strerror(-ret),
				 ret == -EDOM ? " (wrong result)" : "");
	}
	return NULL;
}

int main(void)
{
	struct usched_opts o = { .complete = tl_complete };
	static struct worker w[NTHREADS];
	unsigned int once = 0, ordered = 0, nordered = 0;
	const char *why = tl_setup();
	struct usched_stats st;
	struct tl_sink sink;
	struct usched *u;
	int ret;

	if (why)
		tap_skip_all(why);
	tl_sink_init(&sink);
	o.complete_arg = &sink;
	ret = usched_create(&o, &u);
	if (!tap_ok(!ret, "create a core (%s)", strerror(-ret)))
		return tap_done();
	ret = tl_builtins(u, kernel);
	tap_ok(!ret, "register every built-in program (%s)", strerror(-ret));
	ret = usched_start(u);
	tap_ok(!ret, "start the core's thread");

	for (unsigned int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .id = i + 1, .u = u, .sink = &sink };
		ret = tl_arena_init(&w[i].arena, u, 8 << 20);
		if (ret) {
			tap_diag("arena: %s", strerror(-ret));
			return 1;
		}
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	}
	for (unsigned int i = 0; i < NTHREADS; i++) {
		pthread_join(w[i].thread, NULL);
		tap_ok(!w[i].submit_err, "thread %u submitted %u tasks (%s)", w[i].id, NJOBS,
		       strerror(-w[i].submit_err));
		if (!tap_ok(!w[i].wrong, "thread %u: every result matches the host reference",
			    w[i].id))
			tap_diag("%u wrong, first: %s", w[i].wrong, w[i].why);
	}
	usched_stats(u, &st);
	usched_destroy(u);

	for (unsigned int i = 0; i < NTHREADS; i++) {
		for (unsigned int k = 0; k < NJOBS; k++) {
			struct tl_job *j = &w[i].job[k];

			once += j->ncompl == 1;
			if (j->task.flags & USCHED_TASK_ORDERED) {
				nordered++;
				ordered += j->c.start_ns >= w[i].job[k - 1].c.end_ns;
			}
		}
		tl_arena_free(&w[i].arena);
	}
	tap_ok(once == NTHREADS * NJOBS && sink.done == NTHREADS * NJOBS,
	       "every task completed exactly once (%u of %u, %lu completions)", once,
	       NTHREADS * NJOBS, sink.done);
	tap_ok(ordered == nordered, "%u of %u ordered tasks started after their predecessor ended",
	       ordered, nordered);
	tap_ok(st.submitted == NTHREADS * NJOBS && st.completed == st.submitted && !st.failed &&
	       !st.waiting && !st.running, "stats: %lu submitted, %lu completed, %lu failed",
	       (unsigned long)st.submitted, (unsigned long)st.completed,
	       (unsigned long)st.failed);
	tap_diag("%lu TGs, %.1f tasks each; predicted %.3f ms, measured %.3f ms in all; "
		 "mean |error| %.1f%%; policy %s %.3f ms in all", (unsigned long)st.tgs,
		 st.tgs ? (double)st.completed / st.tgs : 0, st.predicted_ns_sum / 1e6,
		 st.measured_ns_sum / 1e6, st.tgs ? 100 * st.abs_err_sum / st.tgs : 0, st.policy,
		 st.policy_ns / 1e6);
	return tap_done();
}
