// SPDX-License-Identifier: GPL-2.0
/*
 * test_queues.c - the queue scheme of the paper's section 0.3, checked
 * from OpenCL profiling timestamps, in fifo order so that the launch order
 * is the submission order. The loop is run by hand, as the daemon does, so
 * that the tasks submitted before the first usched_process() form one TG.
 *
 * dma 2: each task's kernel starts after its HtD copies end and its DtH
 * copies start after its kernel ends; each queue runs in order; the HtD
 * copies of task i + 1 do not wait for the kernel of task i (task i's
 * kernel is long, so they start before it ends). dma 1: on the one
 * transfer queue every HtD copy of a TG ends before its first DtH copy.
 * Then the rolling horizon: a second TG launched while the first runs
 * starts copying before the first ends. Then the trace file. Then two
 * kernel queues: the TG's kernels alternate between them, each in order.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tq/clock.h>

#include "selftests/tap.h"
#include "testlib.h"
#include "sim/tqsim.h"
#include "sim/trace.h"

#define NTASKS	6

#define LONG_MS	20
#define CLOCK_SLACK_NS	1000000	/* clock sync error allowed */

static uint32_t kernel[16];
static const struct tqk_task *syn, *va;
static uint32_t syn_iters;

static struct usched *open_core_kq(unsigned int dma, unsigned int kq, struct tl_sink *sink,
				   const char *trace)
{
	struct usched_opts o = {
		.policy = "fifo", .dma = dma, .kqueues = kq, .trace = trace,
		.complete = tl_complete, .complete_arg = sink,
	};

	return tl_open(&o, kernel);
}

static uint32_t kernel_of(const struct tqk_task *t)
{
	unsigned int i = 0;

	while (tqk_tasks[i] != t)
		i++;
	return kernel[i];
}

static void job_init(struct tl_job *j, struct tl_arena *a, const struct tqk_task *t,
		     struct tqk_size sz, uint64_t seed)
{
	int ret = tl_job_init(j, a, t, sz, seed, kernel_of(t), 1);

	if (ret) {
		tap_diag("%s job: %s", t->name, strerror(-ret));
		exit(1);
	}
}

/* Long kernels (SYN) alternating with short-copy tasks (VA). */
static void jobs_init(struct tl_job *j, struct tl_arena *a, unsigned int n, uint64_t seed0)
{
	for (unsigned int i = 0; i < n; i++)
		job_init(&j[i], a, i % 2 ? va : syn,
			 i % 2 ? (struct tqk_size){ 65536, 0 } :
				 (struct tqk_size){ 256, syn_iters },
			 seed0 + i);
}

/*
 * SYN iterations for a kernel of about LONG_MS on this device, CPU or GPU,
 * so that "long" means long next to a copy and to the host's enqueueing.
 * One work-group: on a CPU device the other cores stay free for copies.
 */
static void measure_syn(struct usched *u, struct tl_arena *a, struct tl_sink *sink)
{
	const uint32_t iters = 100000;
	struct tl_job j[2];
	double ns;

	for (int i = 0; i < 2; i++) {	/* the first run compiles */
		job_init(&j[i], a, syn, (struct tqk_size){ 256, iters }, i);
		usched_submit(u, &j[i].task);
		tl_run(u, sink, i + 1);
	}
	ns = j[1].c.stage_end[USCHED_K] - j[1].c.stage_start[USCHED_K];
	syn_iters = fmin(fmax(iters * LONG_MS * 1e6 / fmax(ns, 1), iters), syn->iters_max);
	tap_diag("SYN n=256: %u iterations take %.3f ms; long kernels get %u", iters, ns / 1e6,
		 syn_iters);
	a->used = 0;
}

static struct usched *open_core(unsigned int dma, struct tl_sink *sink, const char *trace)
{
	return open_core_kq(dma, 1, sink, trace);
}

/* Each task ran once, correctly, all in one TG, and in stage order. */
static void check_tasks(struct tl_job *j, unsigned int n, const char *what)
{
	uint64_t tg = j[0].c.tg, now = tq_now_ns();
	bool ok = true, order = true, clock = true;

	for (unsigned int i = 0; i < n; i++) {
		const struct usched_completion *c = &j[i].c;

		ok &= j[i].ncompl == 1 && !c->status && c->tg == tg && tg &&
		      !tl_job_verify(&j[i], NULL);
		order &= c->stage_start[USCHED_K] >= c->stage_end[USCHED_HTD] &&
			 c->stage_start[USCHED_DTH] >= c->stage_end[USCHED_K];
		/* the clocks agree to within the clock sync's error */
		clock &= c->start_ns + CLOCK_SLACK_NS >= c->queued_ns &&
			 c->end_ns <= now + CLOCK_SLACK_NS;
		if (c->start_ns + CLOCK_SLACK_NS < c->queued_ns || c->end_ns > now + CLOCK_SLACK_NS)
			tap_diag("task %u: queued - start %.3f us, end - now %.3f us", i,
				 ((int64_t)(c->queued_ns - c->start_ns)) / 1e3,
				 ((int64_t)(c->end_ns - now)) / 1e3);
	}
	tap_ok(ok, "%s: every task completed once, all in TG %lu, results verified", what,
	       (unsigned long)tg);
	tap_ok(order, "%s: K after its HtD, DtH after its K", what);
	tap_ok(clock, "%s: device times in CLOCK_MONOTONIC: queued <= start, end <= now", what);
}

/* Stage s of task i + 1 starts after stage s of task i ends (one in-order queue). */
static bool in_order(struct tl_job *j, unsigned int n, int s)
{
	for (unsigned int i = 0; i + 1 < n; i++)
		if (j[i + 1].c.stage_start[s] < j[i].c.stage_end[s])
			return false;
	return true;
}

static void test_dma2(void)
{
	struct tl_job j[NTASKS];
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;
	bool early = true;

	tl_sink_init(&sink);
	u = open_core(2, &sink, NULL);
	tl_arena_init(&a, u, 16 << 20);
	measure_syn(u, &a, &sink);
	sink.done = 0;
	jobs_init(j, &a, NTASKS, 100);
	for (unsigned int i = 0; i < NTASKS; i++)
		usched_submit(u, &j[i].task);
	tl_run(u, &sink, NTASKS);
	check_tasks(j, NTASKS, "dma 2");
	tap_ok(in_order(j, NTASKS, USCHED_HTD) && in_order(j, NTASKS, USCHED_K) &&
	       in_order(j, NTASKS, USCHED_DTH), "dma 2: each queue runs in TG order");
	for (unsigned int i = 0; i + 1 < NTASKS; i += 2)
		early &= j[i + 1].c.stage_start[USCHED_HTD] < j[i].c.stage_end[USCHED_K];
	tap_ok(early, "dma 2: HtD of task i+1 starts before the kernel of task i ends");
	for (unsigned int i = 0; i < NTASKS; i++)
		tap_diag("task %u %-3s HtD %8.3f-%8.3f K %8.3f-%8.3f DtH %8.3f-%8.3f ms", i,
			 j[i].tt->name,
			 (j[i].c.stage_start[0] - j[0].c.start_ns) / 1e6,
			 (j[i].c.stage_end[0] - j[0].c.start_ns) / 1e6,
			 (j[i].c.stage_start[1] - j[0].c.start_ns) / 1e6,
			 (j[i].c.stage_end[1] - j[0].c.start_ns) / 1e6,
			 (j[i].c.stage_start[2] - j[0].c.start_ns) / 1e6,
			 (j[i].c.stage_end[2] - j[0].c.start_ns) / 1e6);
	usched_destroy(u);
	tl_arena_free(&a);
}

static void test_dma1(void)
{
	struct tl_job j[NTASKS];
	uint64_t last_htd = 0, first_dth = UINT64_MAX;
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;

	tl_sink_init(&sink);
	u = open_core(1, &sink, NULL);
	tl_arena_init(&a, u, 16 << 20);
	jobs_init(j, &a, NTASKS, 200);
	for (unsigned int i = 0; i < NTASKS; i++)
		usched_submit(u, &j[i].task);
	tl_run(u, &sink, NTASKS);
	check_tasks(j, NTASKS, "dma 1");
	for (unsigned int i = 0; i < NTASKS; i++) {
		if (j[i].c.stage_end[USCHED_HTD] > last_htd)
			last_htd = j[i].c.stage_end[USCHED_HTD];
		if (j[i].c.stage_start[USCHED_DTH] < first_dth)
			first_dth = j[i].c.stage_start[USCHED_DTH];
	}
	tap_ok(last_htd <= first_dth, "dma 1: every HtD of the TG ends before its first DtH");
	tap_ok(in_order(j, NTASKS, USCHED_HTD) && in_order(j, NTASKS, USCHED_DTH),
	       "dma 1: HtD and DtH copies each in TG order");
	usched_destroy(u);
	tl_arena_free(&a);
}

/* Two TGs in flight; the trace holds every command. */
static void test_horizon(void)
{
	char trace[] = "/tmp/usched-trace-XXXXXX";
	struct tl_job j[2 * NTASKS];
	uint64_t end1 = 0, start2 = UINT64_MAX;
	unsigned int cmds = 0, slices = 0, predicted = 0;
	bool predicted_tid[64] = { false };
	struct usched_stats st;
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;
	char line[4096];
	FILE *f;
	int fd;

	fd = mkstemp(trace);
	close(fd);
	tl_sink_init(&sink);
	u = open_core(2, &sink, trace);
	tl_arena_init(&a, u, 32 << 20);
	jobs_init(j, &a, 2 * NTASKS, 300);
	for (unsigned int i = 0; i < NTASKS; i++)
		usched_submit(u, &j[i].task);
	usched_process(u);
	for (unsigned int i = NTASKS; i < 2 * NTASKS; i++)
		usched_submit(u, &j[i].task);
	tl_run(u, &sink, 2 * NTASKS);
	check_tasks(j, NTASKS, "TG 1");
	check_tasks(j + NTASKS, NTASKS, "TG 2");
	tap_ok(j[NTASKS].c.tg == j[0].c.tg + 1, "the second batch is the next TG");
	for (unsigned int i = 0; i < NTASKS; i++) {
		if (j[i].c.end_ns > end1)
			end1 = j[i].c.end_ns;
		if (j[NTASKS + i].c.start_ns < start2)
			start2 = j[NTASKS + i].c.start_ns;
	}
	tap_ok(start2 < end1, "TG 2 starts %.3f ms before TG 1 ends",
	       (int64_t)(end1 - start2) / 1e6);
	usched_stats(u, &st);
	tap_ok(st.tgs == 2 && st.completed == 2 * NTASKS && st.measured_ns_sum > 0 &&
	       st.predicted_ns_sum > 0,
	       "stats: 2 TGs, %lu tasks, predicted %.3f ms, measured %.3f ms",
	       (unsigned long)st.completed, st.predicted_ns_sum / 1e6, st.measured_ns_sum / 1e6);
	usched_destroy(u);
	tl_arena_free(&a);

	for (unsigned int i = 0; i < 2 * NTASKS; i++)
		for (unsigned int b = 0; b < j[i].task.nbufs; b++)
			cmds += !!(j[i].task.buf[b].dir & USCHED_IN) +
				!!(j[i].task.buf[b].dir & USCHED_OUT);
	cmds += 2 * NTASKS;
	/*
	 * each command as it ran, and each stage as predicted (the model has
	 * a stage's copies as one command), on their tracks (usched/core/trace.c)
	 */
	f = fopen(trace, "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *tid = strstr(line, "\"tid\": ");
		unsigned int t;

		if (!tid || sscanf(tid, "\"tid\": %u", &t) != 1 || t >= TQTRACE_ID_BASE + 64)
			continue;
		if (strstr(line, "\"thread_name\"") && strstr(line, " predicted\"}"))
			predicted_tid[t - TQTRACE_ID_BASE] = true;
		if (strstr(line, "\"ph\": \"X\"") && (strstr(line, "\"cat\": \"HtD\"") ||
		    strstr(line, "\"cat\": \"K\"") || strstr(line, "\"cat\": \"DtH\"")))
			(predicted_tid[t - TQTRACE_ID_BASE] ? &predicted : &slices)[0]++;
	}
	tap_ok(f && slices == cmds && predicted == 3 * 2 * NTASKS,
	       "trace: %u measured command slices for %u commands, %u predicted stages", slices,
	       cmds, predicted);
	if (f)
		fclose(f);
	unlink(trace);
}

/*
 * Two kernel queues: in the trace, the kernels of the TG's tasks (fifo:
 * in submission order) go to the two queues' tracks in turn, as the model
 * places them, and each queue runs its kernels in order.
 */
static void test_kqueues(void)
{
	char trace[] = "/tmp/usched-trace-XXXXXX";
	struct tl_job j[NTASKS];
	int track[NTASKS];
	unsigned int k_tid = 0, k1_tid = 0;
	bool alternate = true, order = true;
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;
	char line[4096];
	FILE *f;
	int fd;

	fd = mkstemp(trace);
	close(fd);
	tl_sink_init(&sink);
	u = open_core_kq(2, 2, &sink, trace);
	tl_arena_init(&a, u, 16 << 20);
	jobs_init(j, &a, NTASKS, 400);
	for (unsigned int i = 0; i < NTASKS; i++) {
		usched_submit(u, &j[i].task);
		track[i] = -1;
	}
	tl_run(u, &sink, NTASKS);
	check_tasks(j, NTASKS, "two kernel queues");
	usched_destroy(u);
	tl_arena_free(&a);

	f = fopen(trace, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long task;
		const char *p = strstr(line, "\"task\": ");
		unsigned int tid;

		/* the measured kernel queues' tracks, by name */
		if (strstr(line, "\"thread_name\"") && sscanf(strstr(line, "\"tid\": "), "\"tid\": %u",
								&tid) == 1) {
			if (strstr(line, "{\"name\": \"K\"}"))
				k_tid = tid;
			if (strstr(line, "{\"name\": \"K1\"}"))
				k1_tid = tid;
		}
		if (!strstr(line, "\"cat\": \"K\"") || !p || !strstr(line, "\"tid\": ") ||
		    sscanf(strstr(line, "\"tid\": "), "\"tid\": %u", &tid) != 1 ||
		    sscanf(p, "\"task\": \"%llu\"", &task) != 1)
			continue;
		for (unsigned int i = 0; i < NTASKS; i++)
			if ((uintptr_t)&j[i] == task && (tid == k_tid || tid == k1_tid))
				track[i] = tid == k1_tid;
	}
	if (f)
		fclose(f);
	unlink(trace);
	/* the kernel queues' tracks: K 0, K1 1 */
	for (unsigned int i = 0; i < NTASKS; i++) {
		alternate &= track[i] == (int)(i % 2);
		if (i >= 2)
			order &= j[i].c.stage_start[USCHED_K] >= j[i - 2].c.stage_end[USCHED_K];
	}
	tap_ok(alternate, "two kernel queues: the TG's kernels alternate between them (%d %d %d ...)",
	       track[0], track[1], track[2]);
	tap_ok(order, "two kernel queues: each runs its kernels in order");
}

int main(void)
{
	const char *why = tl_setup();

	if (why)
		tap_skip_all(why);
	syn = tqk_find("SYN");
	va = tqk_find("VA");
	test_dma2();
	test_dma1();
	test_horizon();
	test_kqueues();
	return tap_done();
}
