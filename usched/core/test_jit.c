// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit.c - when the core launches the next TG (core.c, 4).
 *
 * First jit_when() alone, on made-up predicted times: an idle device gets a
 * TG at once, so does a full one; otherwise the TG goes lead time before
 * the engine that needs it last would run dry; at the in-flight cap, or
 * with nothing ready, nothing goes. Then on the device, the loop run by
 * hand as the daemon does:
 *
 * - rounds: 4 owners x 3 rounds of ordered tasks, all submitted at once,
 *   with a profile whose copies are predicted to take 250 ms (the device is
 *   busy for as long as the core can tell): taking a task into a TG makes
 *   its successor ready, so the first TG holds rounds 1 and 2 (max_tg 8)
 *   and round 3 waits for the next TG, all 4 together;
 * - overlap: the same rounds with a profile that predicts a fast device, so
 *   the launch is due at once: round 3 joins a TG as soon as the first is
 *   launched, while it is still in flight; and in every case each task's
 *   first command starts after its predecessor's last command ends (the
 *   event wait, from the profiling timestamps), whether the predecessor is
 *   in the same TG or in flight;
 * - chains: 4 owners x 2 rounds ordered by auto form one TG of 8, launched
 *   in an order that keeps each chain, outputs verified; also with one copy
 *   engine (a predecessor's DtH copies go before its successor's HtD);
 * - the timer: a task submitted while a ~40 ms kernel runs is launched by
 *   the timer lead time before the kernel ends, not at once and not after;
 * - a full TG (max_tg ready) is launched at once behind a running one.
 *
 * jit_when_flow(), the flow policy's decision, on made-up times: it holds
 * the next TG back only as long as no task of it would end later, where
 * jit_when() lets a copy-heavy task's input copy wait, and with two kernel
 * queues no longer than the queue free first keeps it; and the chains
 * again with the flow policy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tq/clock.h>

#include "selftests/tap.h"
#include "testlib.h"
#include "internal.h"

#define MS		1000000ull
#define LONG_MS		40
/*
 * Three quarters of LONG_MS: the timer's launch then falls while the long
 * kernel runs even when a loaded host sized it twice as long as it runs.
 */
#define LEAD_US		30000
#define WORKERS		4
#define ROUNDS		3

/* jit_when() */

static struct jit_in busy_in(uint64_t now)
{
	struct jit_in in = {
		.now = now, .inflight = 1, .ready = 1, .max_tg = 8, .lead_ns = MS / 2,
		.busy = { now + 1 * MS, now + 20 * MS, now + 21 * MS },
		.first = { 0, 2 * MS, INFINITY },
	};

	return in;
}

static void test_decision(void)
{
	const uint64_t now = 1000 * MS;
	struct jit_in in = busy_in(now);

	tap_ok(jit_when(&in) == now + 18 * MS - MS / 2,
	       "kernel-bound: lead before the kernels run dry less the next HtD (%+.3f ms)",
	       ((double)jit_when(&in) - now) / MS);
	in.first[USCHED_DTH] = 5 * MS;
	in.busy[USCHED_DTH] = now + 30 * MS;
	tap_ok(jit_when(&in) == now + 25 * MS - MS / 2,
	       "DtH-bound: before the DtH engine runs dry less the next HtD and K");
	in = busy_in(now);
	in.busy[USCHED_HTD] = now + 10 * MS;
	in.busy[USCHED_K] = now + 11 * MS;
	in.first[USCHED_K] = 3 * MS;
	tap_ok(jit_when(&in) == now + 10 * MS - MS / 2,
	       "HtD-bound: before the HtD engine runs dry (the kernels idle anyway)");
	in = busy_in(now);
	in.lead_ns = 18 * MS;
	tap_ok(jit_when(&in) == 0, "due within the lead time: now");
	in = busy_in(now);
	for (int s = 0; s < USCHED_STAGES; s++)
		in.busy[s] = now - MS;
	tap_ok(jit_when(&in) == 0, "in-flight work predicted done already: now");
	in = busy_in(now);
	in.inflight = 0;
	tap_ok(jit_when(&in) == 0, "an idle device: now, with whatever is ready");
	in = busy_in(now);
	in.ready = 8;
	tap_ok(jit_when(&in) == 0, "max_tg tasks ready: now");
	in.inflight = TG_MAX_INFLIGHT;
	tap_ok(jit_when(&in) == JIT_WAIT, "%u TGs in flight: wait for one to finish",
	       TG_MAX_INFLIGHT);
	in = busy_in(now);
	in.ready = 0;
	tap_ok(jit_when(&in) == JIT_WAIT, "nothing ready: wait");
	in.inflight = 0;
	tap_ok(jit_when(&in) == JIT_WAIT, "nothing ready, idle device: wait");
}

/*
 * jit_when_flow(): behind a long kernel, a copy-light task A (0.1 ms in,
 * 0.1 ms kernel, 5 ms out) and a copy-heavy B (5 ms in, 5 ms kernel).
 * jit_when() waits for the DtH engine (A's copy out), so B's input copy
 * waits while its engine idles and then holds up B's kernel; the flow
 * decision launches when B's slack ends, which keeps every end the model
 * predicts for a launch now.
 */
static void test_flow_decision(void)
{
	static struct tqsim_sim_result res;
	const uint64_t now = 1000 * MS;
	const uint8_t ab[2] = { 0, 1 };
	struct jit_in in = {
		.now = now, .inflight = 1, .ready = 2, .max_tg = 8, .lead_ns = MS / 2,
		.busy = { now + 1 * MS, now + 20 * MS, now + 21 * MS },
		.first = { 0, 0.1 * MS, 0.2 * MS },
	};
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	uint64_t flow, jit;
	double b[3];

	tqsim_dev_init(&dev);
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0.1 * MS, 0.1 * MS, 5 * MS);
	tqsim_tg_add(&tg, 5 * MS, 5 * MS, 0);
	flow = jit_when_flow(&in, &tg, &dev, &res);
	jit = jit_when(&in);
	tap_ok(flow == now + 15 * MS - MS / 2, "flow: launch lead before the copy-heavy task's "
	       "slack ends (%+.3f ms)", ((double)flow - now) / MS);
	tap_ok(jit == now + 20.8 * MS - MS / 2 && flow < jit, "jit_when() waits longer (%+.3f ms)",
	       ((double)jit - now) / MS);
	/* B's predicted end (from now) launched now, at flow's time, at jit_when()'s */
	for (int k = 0; k < 3; k++) {
		uint64_t at = k == 0 ? now : k == 1 ? flow + MS / 2 : jit + MS / 2;
		double end = 0;

		for (int s = 0; s < USCHED_STAGES; s++)
			dev.busy_until[s] = in.busy[s] > at ? (double)(in.busy[s] - at) : 0;
		tqsim_simulate(&tg, &dev, ab, 2, &res);
		end = res.end[tg.task[1].first[TQSIM_K]] + (at - now);
		b[k] = end;
	}
	tqsim_dev_init(&dev);
	tap_ok(fabs(b[1] - b[0]) < 1 && b[2] > b[0] + 4 * MS, "the copy-heavy task ends "
	       "at %.2f ms launched then or now, at %.2f ms at jit_when()'s time", b[1] / MS,
	       b[2] / MS);
	/* one kernel-only task behind the kernel: waiting costs it nothing, both wait */
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0, 2 * MS, 0);
	in.ready = 1;
	in.first[USCHED_K] = 0;
	in.first[USCHED_DTH] = INFINITY;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == now + 20 * MS - MS / 2 &&
	       jit_when(&in) == now + 20 * MS - MS / 2,
	       "flow: a task that would wait on the device anyway is held back as long");
	in.lead_ns = 20 * MS;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == 0, "flow: slack within the lead: now");
	in.lead_ns = MS / 2;
	in.inflight = 0;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == 0, "flow: an idle device: now");
	in.inflight = 1;
	in.ready = 8;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == 0, "flow: max_tg ready: now");
	in.inflight = TG_MAX_INFLIGHT;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == JIT_WAIT, "flow: at the cap: wait");
	in.inflight = 1;
	in.ready = 0;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == JIT_WAIT, "flow: nothing ready: wait");
}

/*
 * jit_when_flow() with two kernel queues: the long kernel runs on queue 0
 * until +20 ms, queue 1 is free from +1 ms. A kernel-only task can start on
 * queue 1 then, so holding it until the long kernel ends would cost it
 * 19 ms: it is launched lead time before +1 ms. The queues' busy-until that
 * the device kept from the last TG's launch (stale here) count for nothing.
 */
static void test_flow_kqueues(void)
{
	static struct tqsim_sim_result res;
	const uint64_t now = 1000 * MS;
	struct jit_in in = {
		.now = now, .inflight = 1, .ready = 1, .max_tg = 8, .lead_ns = MS / 2,
		.busy = { now + 1 * MS, now + 20 * MS, now + 21 * MS },
		.first = { 0, 0, INFINITY },
		.kqueues = 2, .kq_busy = { now + 20 * MS, now + 1 * MS },
	};
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	uint64_t at;

	tqsim_dev_init(&dev);
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0, 2 * MS, 0);
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == now + 20 * MS - MS / 2,
	       "flow, one kernel queue: held until the kernel in flight ends");
	dev.kq = 2;
	dev.busy_until[TQSIM_K] = 50 * MS;
	dev.kq_busy[1] = 50 * MS;
	at = jit_when_flow(&in, &tg, &dev, &res);
	tap_ok(at == now + 1 * MS - MS / 2, "flow, two kernel queues: launched lead time before "
	       "the queue free first runs dry (%+.3f ms)", ((double)at - now) / MS);
	in.kq_busy[0] = now + 1 * MS;
	in.kq_busy[1] = now + 20 * MS;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == at, "flow, two kernel queues: either "
	       "queue free first, the same");
	in.kq_busy[0] = in.kq_busy[1] = now + 20 * MS;
	tap_ok(jit_when_flow(&in, &tg, &dev, &res) == now + 20 * MS - MS / 2,
	       "flow, two kernel queues both busy: held until the first runs dry");
	/* jit_when() likewise: the kernels' engine has room when a queue runs dry */
	in.kq_busy[1] = now + 1 * MS;
	tap_ok(jit_when(&in) == now + 1 * MS - MS / 2, "jit_when(), two kernel queues: lead "
	       "time before the queue free first runs dry (%+.3f ms)",
	       ((double)jit_when(&in) - now) / MS);
	in.kqueues = 1;
	tap_ok(jit_when(&in) == now + 20 * MS - MS / 2, "jit_when(), one kernel queue: before "
	       "the kernel in flight ends");
}

/* On the device */

static uint32_t kernel[16];
static const struct tqk_task *syn, *va;

static uint32_t kernel_of(const struct tqk_task *t)
{
	unsigned int i = 0;

	while (tqk_tasks[i] != t)
		i++;
	return kernel[i];
}

/* Every finished TG, from usched_opts.tg_done. */
static struct usched_tg_stat tgs[64];
static unsigned int ntgs;

static void tg_done(void *arg, const struct usched_tg_stat *s)
{
	(void)arg;
	if (ntgs < 64)
		tgs[ntgs++] = *s;
}

static const struct usched_tg_stat *tg_of(uint64_t seq)
{
	for (unsigned int i = 0; i < ntgs; i++)
		if (tgs[i].seq == seq)
			return &tgs[i];
	return NULL;
}

static struct usched *open_core(struct usched_opts *o, struct tl_sink *sink)
{
	struct usched *u;

	if (!o->policy)
		o->policy = "fifo";
	o->complete = tl_complete;
	o->complete_arg = sink;
	o->tg_done = tg_done;
	u = tl_open(o, kernel);
	ntgs = 0;
	return u;
}

static void job(struct tl_job *j, struct tl_arena *a, const struct tqk_task *t,
		struct tqk_size sz, uint64_t owner, uint32_t flags)
{
	int ret = tl_job_init(j, a, t, sz, owner * 100 + a->used % 97, kernel_of(t), owner);

	if (ret) {
		tap_diag("%s job: %s", t->name, strerror(-ret));
		exit(1);
	}
	j->task.flags = flags;
}

static const char slow_prof[] = "tq-profile 1\n"
				"dma 2\n"
				"htd alone 250000000 10.0\n"
				"htd overlapped 250000000 10.0\n"
				"dth alone 1000 10.0\n"
				"dth overlapped 1000 10.0\n";
static const char fast_prof[] = "tq-profile 1\n"
				"dma 2\n"
				"htd alone 1000 100.0\n"
				"htd overlapped 1000 100.0\n"
				"dth alone 1000 100.0\n"
				"dth overlapped 1000 100.0\n";

/* one copy engine: exec puts a predecessor's DtH before its successor's HtD */
static const char fast1_prof[] = "tq-profile 1\n"
				 "dma 1\n"
				 "htd alone 1000 100.0\n"
				 "dth alone 1000 100.0\n";

/*
 * 4 owners x @rounds rounds of ordered VA tasks under profile @prof, the
 * policy @policy; max_tg is 8, so each TG holds two rounds.
 */
static void test_rounds(const char *prof, const char *what, unsigned int rounds,
			const char *policy)
{
	bool overlap = prof == fast_prof;
	char path[] = "/tmp/usched-profile-XXXXXX";
	struct usched_opts o = { .profile = path, .policy = policy, .max_tg = 8 };
	struct tl_job j[ROUNDS][WORKERS];
	bool together = true, ok = true, sizes = true;
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;
	int fd;

	unsigned int inflight = 0, early = 0;

	fd = mkstemp(path);
	if (fd < 0 || write(fd, prof, strlen(prof)) != (ssize_t)strlen(prof)) {
		tap_diag("cannot write %s", path);
		exit(1);
	}
	close(fd);
	tl_sink_init(&sink);
	u = open_core(&o, &sink);
	tl_arena_init(&a, u, 128 << 20);
	/*
	 * Under overlap, a TG long enough (some ms on PoCL) that a loaded host
	 * still launches the next while it runs: that is what is tested.
	 */
	for (unsigned int r = 0; r < rounds; r++)
		for (unsigned int w = 0; w < WORKERS; w++)
			job(&j[r][w], &a, va, (struct tqk_size){ overlap ? 1 << 19 : 4096, 0 },
			    w + 1, USCHED_TASK_ORDERED);
	for (unsigned int r = 0; r < rounds; r++)
		for (unsigned int w = 0; w < WORKERS; w++)
			usched_submit(u, &j[r][w].task);
	tl_run(u, &sink, rounds * WORKERS);

	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t prev_end = 0;

		for (unsigned int w = 0; w < WORKERS && r; w++)
			if (j[r - 1][w].c.end_ns > prev_end)
				prev_end = j[r - 1][w].c.end_ns;
		/* launched while the round before was still in flight */
		if (r && tg_of(j[r][0].c.tg))
			early += tg_of(j[r][0].c.tg)->launch_ns < prev_end;
		for (unsigned int w = 0; w < WORKERS; w++) {
			/* rounds 2k and 2k + 1 in TG k + 1 */
			together &= j[r][w].c.tg == r / 2 + 1;
			ok &= j[r][w].ncompl == 1 && !j[r][w].c.status &&
			      !tl_job_verify(&j[r][w], NULL);
			if (r)
				ok &= j[r][w].c.start_ns >= j[r - 1][w].c.end_ns;
			if (r && tg_of(j[r][w].c.tg))
				inflight += tg_of(j[r][w].c.tg)->launch_ns < j[r - 1][w].c.end_ns;
		}
		tap_diag("round %u: TGs %lu %lu %lu %lu", r, (unsigned long)j[r][0].c.tg,
			 (unsigned long)j[r][1].c.tg, (unsigned long)j[r][2].c.tg,
			 (unsigned long)j[r][3].c.tg);
	}
	for (unsigned int k = 0; k < ntgs; k++)	/* two rounds a TG, the last may have one */
		sizes &= tgs[k].ntasks == (tgs[k].seq * 2 <= rounds ? 2 : 1) * WORKERS;
	tap_ok(ok, "%s: every task completed once, verified, after its predecessor", what);
	tap_ok(together && sizes && ntgs == (rounds + 1) / 2,
	       "%s: %u TG(s), two rounds of every owner a TG (the first %u tasks)",
	       what, ntgs, ntgs ? tgs[0].ntasks : 0);
	if (overlap && rounds > 2)
		tap_ok(early == rounds - 1, "overlap: %u of %u rounds were launched while the "
		       "round before ran (%u of %u tasks before their predecessor ended)",
		       early, rounds - 1, inflight, (rounds - 1) * WORKERS);
	usched_destroy(u);
	tl_arena_free(&a);
	unlink(path);
}

/* SYN iterations for a kernel of about LONG_MS here, on one work-group. */
static uint32_t syn_iters(struct usched *u, struct tl_arena *a, struct tl_sink *sink)
{
	const uint32_t iters = 100000;
	struct tl_job j[3];
	double ns = 0;

	/* The first run compiles, and the model drops it; the model's mean is of the others. */
	for (int i = 0; i < 3; i++) {
		job(&j[i], a, syn, (struct tqk_size){ 256, iters }, 9, 0);
		usched_submit(u, &j[i].task);
		tl_run(u, sink, i + 1);
		if (i)
			ns += (j[i].c.stage_end[USCHED_K] - j[i].c.stage_start[USCHED_K]) / 2.0;
	}
	return fmin(fmax(iters * LONG_MS * 1e6 / fmax(ns, 1), iters), syn->iters_max);
}

static void test_timer(void)
{
	struct usched_opts o = { .lead_us = LEAD_US, .max_tg = 2 };
	const struct usched_tg_stat *t1, *t2;
	struct tl_job j[5];
	struct tl_arena a;
	struct tl_sink sink;
	struct usched *u;
	uint64_t iters, sub;

	tl_sink_init(&sink);
	u = open_core(&o, &sink);
	tl_arena_init(&a, u, 4 << 20);
	iters = syn_iters(u, &a, &sink);

	/* one task behind a long kernel: the timer launches it */
	job(&j[0], &a, syn, (struct tqk_size){ 256, iters }, 9, 0);
	job(&j[1], &a, va, (struct tqk_size){ 4096, 0 }, 1, 0);
	usched_submit(u, &j[0].task);
	usched_process(u);
	sub = tq_now_ns();
	usched_submit(u, &j[1].task);
	tl_run(u, &sink, 5);
	t1 = tg_of(j[0].c.tg);
	t2 = tg_of(j[1].c.tg);
	if (!tap_ok(t1 && t2 && t1 != t2, "timer: the long task and the other in TGs of their own"))
		goto out;
	tap_diag("long kernel %.3f ms (predicted TG %.3f ms); the other launched %.3f ms after "
		 "its submission, %.3f ms before the long TG ended", (j[0].c.stage_end[USCHED_K] -
		 j[0].c.stage_start[USCHED_K]) / 1e6, t1->predicted_ns / 1e6,
		 ((double)t2->launch_ns - sub) / 1e6, ((double)t1->end_ns - t2->launch_ns) / 1e6);
	tap_ok(t2->inflight == 1 && t2->launch_ns < t1->end_ns,
	       "timer: launched while the long TG still ran");
	tap_ok(t2->launch_ns >= sub + LONG_MS * MS / 20,
	       "timer: not at once: it waited for the next TG's time");

	/* max_tg (2) tasks ready behind a long kernel: at once */
	job(&j[2], &a, syn, (struct tqk_size){ 256, iters }, 9, 0);
	job(&j[3], &a, va, (struct tqk_size){ 4096, 0 }, 1, 0);
	job(&j[4], &a, va, (struct tqk_size){ 4096, 0 }, 2, 0);
	usched_submit(u, &j[2].task);
	usched_process(u);
	sub = tq_now_ns();
	usched_submit(u, &j[3].task);
	usched_submit(u, &j[4].task);
	usched_process(u);
	tl_run(u, &sink, 8);
	t1 = tg_of(j[2].c.tg);
	t2 = tg_of(j[3].c.tg);
	tap_ok(t1 && t2 && t2->ntasks == 2 && t2->inflight == 1 &&
	       t2->launch_ns < sub + LONG_MS * MS / 20,
	       "a full TG behind a long one: launched at once (%.3f ms)",
	       t2 ? ((double)t2->launch_ns - sub) / 1e6 : -1);
out:
	usched_destroy(u);
	tl_arena_free(&a);
}

int main(void)
{
	const char *why;

	test_decision();
	test_flow_decision();
	test_flow_kqueues();
	why = tl_setup();
	if (why) {
		tap_skip("rounds, timer and full TGs on the device", "%s", why);
		return tap_done();
	}
	syn = tqk_find("SYN");
	va = tqk_find("VA");
	test_rounds(slow_prof, "rounds", ROUNDS, NULL);
	test_rounds(fast_prof, "overlap", ROUNDS, NULL);
	test_rounds(fast_prof, "chains", 2, "auto");
	test_rounds(fast1_prof, "chains, dma 1", 2, "auto");
	test_rounds(fast_prof, "chains, flow", 2, "flow");
	test_timer();
	return tap_done();
}
