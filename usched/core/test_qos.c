// SPDX-License-Identifier: GPL-2.0
/*
 * test_qos.c - classes, deadlines and shares (core.c, 10) on the OpenCL
 * device, checked from the core's own per-task timestamps, TG numbers and
 * predicted times, never from how fast the host runs:
 * - a CRITICAL task submitted behind queued NORMAL ones forms the first TG
 *   and starts before any of them;
 * - while a higher class is active, the predicted NORMAL work queued ahead
 *   of a CRITICAL task on the kernel engine stays within prio_ahead plus a
 *   kernel (one more for the model's error), and no NORMAL TG is launched
 *   between its submission and its launch;
 * - a deadline no order can make completes at once with -ETIMEDOUT and
 *   never runs (REFUSE), or runs flagged USCHED_DONE_LATE (FLAG); a task
 *   that ends after its deadline is flagged, one that ends before is not;
 * - two share groups at 3:1 flooding one class get predicted engine time
 *   within 10% of 3:1 while both are backlogged;
 * - usched_share_set() and bad classes refused with -EINVAL.
 * The loop is run by hand (tl_run()), so the tasks submitted before it
 * runs wait together.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tq/clock.h>

#include "selftests/tap.h"
#include "testlib.h"

#define AHEAD_MS	3
#define MAX_SEQ		4096

static uint32_t kernel[16];
static const struct tqk_task *syn, *va;
static uint32_t syn_iters;
static uint64_t launch_ns[MAX_SEQ];	/* by TG seq, from opts.tg_done */

static void tg_done(void *arg, const struct usched_tg_stat *s)
{
	(void)arg;
	if (s->seq < MAX_SEQ)
		launch_ns[s->seq] = s->launch_ns;
}

static uint32_t kernel_of(const struct tqk_task *t)
{
	unsigned int i = 0;

	while (tqk_tasks[i] != t)
		i++;
	return kernel[i];
}

/* A core and an arena of its own for the tasks' buffers. */
static struct usched *open_core(struct tl_sink *sink, unsigned int deadline, struct tl_arena *a)
{
	struct usched_opts o = {
		.complete = tl_complete, .complete_arg = sink, .tg_done = tg_done,
		.prio_ahead_ms = AHEAD_MS, .deadline = deadline,
	};
	struct usched *u;

	memset(launch_ns, 0, sizeof(launch_ns));
	u = tl_open(&o, kernel);
	if (tl_arena_init(a, u, 64 << 20)) {
		printf("Bail out! no arena\n");
		exit(1);
	}
	return u;
}

static void close_core(struct usched *u, struct tl_arena *a)
{
	usched_destroy(u);
	tl_arena_free(a);
}

static void job(struct tl_job *j, struct tl_arena *a, const struct tqk_task *t, uint32_t iters,
		uint64_t seed, uint64_t owner, int prio)
{
	struct tqk_size sz = t == syn ? (struct tqk_size){ 256, iters } : tl_small(t, 1);
	int ret = tl_job_init(j, a, t, sz, seed, kernel_of(t), owner);

	if (ret) {
		tap_diag("%s job: %s", t->name, strerror(-ret));
		exit(1);
	}
	j->task.prio = prio;
}

static void submit(struct usched *u, struct tl_job *j)
{
	int ret = usched_submit(u, &j->task);

	if (ret) {
		tap_diag("submit: %s", strerror(-ret));
		exit(1);
	}
}

/* SYN iterations for a kernel of about 1 ms here (the first runs compile and warm the model). */
static void measure_syn(struct tl_arena *a)
{
	const uint32_t iters = 20000;
	struct tl_sink sink;
	struct tl_job j[3];
	struct usched *u;
	double ns;

	tl_sink_init(&sink);
	u = open_core(&sink, 0, a);
	for (int i = 0; i < 3; i++) {
		job(&j[i], a, syn, iters, i, 1, 0);
		submit(u, &j[i]);
		tl_run(u, &sink, i + 1);
	}
	ns = j[2].c.stage_end[USCHED_K] - j[2].c.stage_start[USCHED_K];
	syn_iters = fmin(fmax(iters * 1e6 / fmax(ns, 1), 100), syn->iters_max);
	tap_diag("SYN n=256: %u iterations take %.3f ms; 1 ms kernels get %u", iters, ns / 1e6,
		 syn_iters);
	close_core(u, a);
}

/* A CRITICAL task behind 12 queued NORMAL ones: the first TG, alone, started first. */
static void test_overtake(struct tl_arena *a)
{
	enum { N = 12 };
	struct tl_job j[N + 1];
	struct tl_sink sink;
	struct usched *u;
	bool later = true, first = true;

	tl_sink_init(&sink);
	u = open_core(&sink, 0, a);
	for (unsigned int i = 0; i < N; i++) {
		job(&j[i], a, i % 2 ? va : syn, syn_iters, 10 + i, 1, USCHED_PRIO_NORMAL);
		submit(u, &j[i]);
	}
	job(&j[N], a, va, 0, 99, 2, USCHED_PRIO_CRITICAL);
	submit(u, &j[N]);
	tl_run(u, &sink, N + 1);
	for (unsigned int i = 0; i < N; i++) {
		later &= j[i].c.tg > j[N].c.tg;
		first &= j[i].c.stage_start[USCHED_HTD] >= j[N].c.stage_end[USCHED_HTD];
	}
	tap_ok(!j[N].c.status && j[N].c.tg == 1 && later && !tl_job_verify(&j[N], NULL),
	       "overtake: the CRITICAL task submitted last formed TG 1 alone, every NORMAL one later");
	tap_ok(first, "overtake: its HtD copy ended before any NORMAL task's began");
	close_core(u, a);
}

/*
 * The bound ahead: a CRITICAL task run first makes the class active; then
 * a flood of NORMAL 1 ms kernels; once some have completed, a second
 * CRITICAL task. On the kernel engine, the NORMAL tasks of earlier TGs
 * whose kernel had not ended when it was submitted ran before its kernel:
 * their predicted kernel time is what it waited behind.
 */
static void test_ahead(struct tl_arena *a)
{
	enum { N = 48, WARM = 3 };
	static struct tl_job j[N + 2], warm[WARM];
	struct tl_sink sink;
	struct usched *u;
	double ahead = 0, max_k = 0;
	unsigned int behind = 0;
	bool none_between = true;
	const struct usched_completion *x;

	tl_sink_init(&sink);
	u = open_core(&sink, 0, a);
	/* the kernel model learns the NORMAL kernel's time first (its first run is dropped) */
	for (unsigned int i = 0; i < WARM; i++) {
		job(&warm[i], a, syn, syn_iters, 250 + i, 1, USCHED_PRIO_NORMAL);
		submit(u, &warm[i]);
		tl_run(u, &sink, i + 1);
	}
	job(&j[N], a, va, 0, 200, 2, USCHED_PRIO_CRITICAL);
	submit(u, &j[N]);
	tl_run(u, &sink, WARM + 1);
	for (unsigned int i = 0; i < N; i++) {
		job(&j[i], a, syn, syn_iters, 300 + i, 1, USCHED_PRIO_NORMAL);
		submit(u, &j[i]);
	}
	tl_run(u, &sink, WARM + 1 + 6);
	job(&j[N + 1], a, va, 0, 201, 2, USCHED_PRIO_CRITICAL);
	submit(u, &j[N + 1]);
	tl_run(u, &sink, WARM + N + 2);
	x = &j[N + 1].c;
	for (unsigned int i = 0; i < N; i++) {
		const struct usched_completion *c = &j[i].c;

		max_k = fmax(max_k, c->pred_ns[USCHED_K]);
		if (c->tg < x->tg && c->stage_end[USCHED_K] > x->queued_ns) {
			ahead += c->pred_ns[USCHED_K];
			behind++;
		}
		/* a NORMAL TG launched after it came and before its own */
		if (c->tg > x->tg)
			continue;
		none_between &= c->tg >= MAX_SEQ || launch_ns[c->tg] <= x->queued_ns ||
				c->tg == x->tg;
	}
	tap_ok(!x->status && none_between,
	       "ahead: no NORMAL TG launched between the CRITICAL task's submission and its launch");
	tap_diag("ahead: the CRITICAL task's kernel started %.2f ms after its submission",
		 ((double)x->stage_start[USCHED_K] - x->queued_ns) / 1e6);
	tap_ok(behind && ahead <= AHEAD_MS * 1e6 + 2 * max_k,
	       "ahead: it waited behind %u NORMAL kernels of %.2f ms predicted (bound %d ms + a "
	       "kernel, %.2f ms, + one for the model's error)", behind, ahead / 1e6, AHEAD_MS,
	       max_k / 1e6);
	close_core(u, a);
}

/* Deadlines: refused, flagged, met. */
static void test_deadlines(struct tl_arena *a)
{
	enum { N = 24 };
	static struct tl_job j[N + 3];
	struct usched_stats st;
	struct tl_sink sink;
	struct usched *u;
	bool consistent = true;

	for (unsigned int mode = USCHED_DEADLINE_REFUSE; mode <= USCHED_DEADLINE_FLAG; mode++) {
		const char *m = mode == USCHED_DEADLINE_FLAG ? "flag" : "refuse";

		tl_sink_init(&sink);
		u = open_core(&sink, mode, a);
		/* no model can run anything in 1 us */
		job(&j[0], a, va, 0, 400, 1, USCHED_PRIO_NORMAL);
		j[0].task.deadline_ns = tq_now_ns() + 1000;
		submit(u, &j[0]);
		/* nor fail to in 100 s */
		job(&j[1], a, va, 0, 401, 1, USCHED_PRIO_NORMAL);
		j[1].task.deadline_ns = tq_now_ns() + 100000000000ull;
		submit(u, &j[1]);
		tl_run(u, &sink, 2);
		usched_stats(u, &st);
		if (mode == USCHED_DEADLINE_REFUSE)
			tap_ok(j[0].c.status == -ETIMEDOUT && !j[0].c.tg && !j[0].c.start_ns &&
			       st.refused == 1, "deadline, refuse: one it cannot make completes "
			       "-ETIMEDOUT (%d), never ran", j[0].c.status);
		else
			tap_ok(!j[0].c.status && j[0].c.tg && j[0].c.flags & USCHED_DONE_LATE &&
			       !tl_job_verify(&j[0], NULL) && st.late == 1,
			       "deadline, flag: one it cannot make runs, USCHED_DONE_LATE");
		tap_ok(!j[1].c.status && !(j[1].c.flags & USCHED_DONE_LATE),
		       "deadline, %s: one it can make runs, not flagged", m);
		/*
		 * A BACKGROUND task with a deadline it makes on the idle engines,
		 * behind NORMAL 1 ms kernels: whether it ends in time or not,
		 * its flag says which.
		 */
		for (unsigned int i = 0; i < N; i++) {
			job(&j[3 + i], a, syn, syn_iters, 500 + i, 3, USCHED_PRIO_NORMAL);
			submit(u, &j[3 + i]);
		}
		job(&j[2], a, va, 0, 402, 4, USCHED_PRIO_BACKGROUND);
		j[2].task.deadline_ns = tq_now_ns() + 5000000;
		submit(u, &j[2]);
		tl_run(u, &sink, 2 + N + 1);
		if (j[2].c.status == -ETIMEDOUT) {
			tap_skip("deadline: its flag says whether it ended in time", "the host stalled "
				 "5 ms before the admission test");
		} else {
			consistent = !j[2].c.status &&
				     !!(j[2].c.flags & USCHED_DONE_LATE) ==
				     (j[2].c.end_ns > j[2].task.deadline_ns);
			tap_ok(consistent, "deadline, %s: USCHED_DONE_LATE %s, its end %.2f ms %s the "
			       "deadline", m, j[2].c.flags & USCHED_DONE_LATE ? "set" : "clear",
			       fabs((double)j[2].c.end_ns - j[2].task.deadline_ns) / 1e6,
			       j[2].c.end_ns > j[2].task.deadline_ns ? "past" : "before");
		}
		for (unsigned int i = 0; i < N; i++)
			consistent &= j[3 + i].c.tg > 0 && j[3 + i].c.tg < j[2].c.tg;
		tap_ok(consistent, "deadline, %s: the BACKGROUND task ran after every NORMAL one", m);
		close_core(u, a);
	}
}

/* Two groups at 3:1 flooding NORMAL: predicted engine time within 10% of 3:1. */
static void test_shares(struct tl_arena *a)
{
	enum { NA = 96, NB = 48 };
	static struct tl_job j[NA + NB];
	struct tl_sink sink;
	struct usched *u;
	uint64_t last[2] = { 0, 0 }, window;
	double busy[2] = { 0, 0 }, ratio;

	tl_sink_init(&sink);
	u = open_core(&sink, 0, a);
	tap_ok(!usched_share_set(u, 100, 3) && !usched_share_set(u, 200, 1),
	       "shares: weights 3 and 1 set");
	for (unsigned int i = 0; i < NA + NB; i++) {
		bool b = i >= NA;

		job(&j[i], a, syn, syn_iters / 2, 600 + i, b ? 2 : 1, USCHED_PRIO_NORMAL);
		j[i].task.share = b ? 200 : 100;
		submit(u, &j[i]);
	}
	tl_run(u, &sink, NA + NB);
	for (unsigned int i = 0; i < NA + NB; i++)
		if (j[i].c.tg > last[i >= NA])
			last[i >= NA] = j[i].c.tg;
	window = last[0] < last[1] ? last[0] : last[1];
	for (unsigned int i = 0; i < NA + NB; i++)
		if (j[i].c.tg < window)
			for (int s = 0; s < USCHED_STAGES; s++)
				busy[i >= NA] += j[i].c.pred_ns[s];
	ratio = busy[1] > 0 ? busy[0] / busy[1] : 0;
	tap_ok(fabs(ratio / 3 - 1) <= 0.10, "shares: 3:1 under saturation get predicted engine "
	       "time %.3f:1 over %lu TGs", ratio, (unsigned long)window - 1);
	close_core(u, a);
}

static void test_errors(struct tl_arena *a)
{
	struct tl_sink sink;
	struct tl_job j;
	struct usched *u;
	struct usched_opts bad = { .deadline = 2 };

	tl_sink_init(&sink);
	u = open_core(&sink, 0, a);
	tap_ok(usched_share_set(u, 0, 1) == -EINVAL && usched_share_set(u, 7, 0) == -EINVAL &&
	       usched_share_set(u, 7, USCHED_SHARE_MAX + 1) == -EINVAL &&
	       !usched_share_set(u, 7, USCHED_SHARE_MAX),
	       "usched_share_set(): share 0, weight 0 and past USCHED_SHARE_MAX -EINVAL");
	job(&j, a, va, 0, 700, 1, USCHED_PRIO_MAX + 1);
	tap_ok(usched_submit(u, &j.task) == -EINVAL, "a class above USCHED_PRIO_MAX -EINVAL");
	j.task.prio = USCHED_PRIO_MIN - 1;
	tap_ok(usched_submit(u, &j.task) == -EINVAL, "a class below USCHED_PRIO_MIN -EINVAL");
	close_core(u, a);
	tap_ok(usched_create(&bad, &u) == -EINVAL, "opts.deadline 2 -EINVAL");
	bad = (struct usched_opts){ .prio_ahead_ms = -1 };
	tap_ok(usched_create(&bad, &u) == -EINVAL, "opts.prio_ahead_ms -1 -EINVAL");
}

int main(void)
{
	const char *why = tl_setup();
	struct tl_arena a;

	if (why)
		tap_skip_all(why);
	syn = tqk_find("SYN");
	va = tqk_find("VA");
	measure_syn(&a);
	test_overtake(&a);
	test_ahead(&a);
	test_deadlines(&a);
	test_shares(&a);
	test_errors(&a);
	return tap_done();
}
