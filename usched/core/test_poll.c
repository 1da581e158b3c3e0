// SPDX-License-Identifier: GPL-2.0
/*
 * test_poll.c - completion by polling (core.c, 5). The OpenCL callbacks
 * are parked (u->hold_callbacks), as a driver's may come late
 * (Documentation/design/usched-core.md, polling for completion): the
 * loop must still complete every task, exactly once and with the right
 * result, by finding its last command done at its predicted end. The
 * parked callbacks, let through, then free the tasks, and usched_destroy()
 * waits for them. With no_poll nothing completes until the callbacks come.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "selftests/tap.h"
#include "testlib.h"
#include "internal.h"

#define NJOBS	24
#define WAIT_MS	20000	/* a broken poll fails here rather than hanging make check */

static uint32_t kernel[16];

/*
 * The loop by hand until n completions (and, if @freed, no task awaiting its
 * callback), for at most ms. It wakes only when usched_fd() does: with the
 * callbacks parked, only the timer that poll_when() armed can wake it.
 */
static bool run_for(struct usched *u, struct tl_sink *s, unsigned long n, bool freed, int ms)
{
	struct pollfd pfd = { .fd = usched_fd(u), .events = POLLIN };
	uint64_t end = tq_now_ns() + ms * 1000000ull;

	for (;;) {
		uint64_t now;

		usched_process(u);
		if (s->done >= n && (!freed || !u->awaiting))
			return true;
		now = tq_now_ns();
		if (now >= end || !poll(&pfd, 1, (int)((end - now + 999999) / 1000000)))
			return false;	/* nothing woke the loop in time */
	}
}

static void submit_all(struct usched *u, struct tl_arena *a, struct tl_job *job)
{
	for (unsigned int k = 0; k < NJOBS; k++) {
		unsigned int t = k % tqk_ntasks;
		int ret = tl_job_init(&job[k], a, tqk_tasks[t], tl_small(tqk_tasks[t], k), k + 1,
				      kernel[t], 1 + k % 3);

		ret = ret ?: usched_submit(u, &job[k].task);
		if (ret) {
			tap_diag("submit %s: %s", tqk_tasks[t]->name, strerror(-ret));
			exit(1);
		}
	}
}

/* Every job completed once, successfully, with the host reference's result. */
static void check_jobs(const struct tl_job *job, const char *what)
{
	unsigned int once = 0, right = 0;

	for (unsigned int k = 0; k < NJOBS; k++) {
		struct tqk_mismatch mm;

		once += job[k].ncompl == 1;
		right += !job[k].c.status && !tl_job_verify(&job[k], &mm);
	}
	tap_ok(once == NJOBS, "%s: every task completed exactly once (%u of %u)", what, once,
	       NJOBS);
	tap_ok(right == NJOBS, "%s: every result matches the host reference (%u of %u)", what,
	       right, NJOBS);
}

static void run(bool no_poll)
{
	struct usched_opts o = { .complete = tl_complete, .no_poll = no_poll };
	const char *what = no_poll ? "no_poll" : "polled";
	static struct tl_job job[NJOBS];
	struct usched_stats st;
	struct tl_arena arena;
	struct tl_sink sink;
	struct usched *u;
	bool ok;

	memset(job, 0, sizeof(job));
	tl_sink_init(&sink);
	o.complete_arg = &sink;
	u = tl_open(&o, kernel);
	if (tl_arena_init(&arena, u, 8 << 20)) {
		tap_diag("arena");
		exit(1);
	}
	atomic_store(&u->hold_callbacks, true);
	submit_all(u, &arena, job);

	if (no_poll) {
		run_for(u, &sink, NJOBS, false, 500);
		tap_ok(!sink.done, "no_poll: nothing completes while the callbacks are parked (%lu)",
		       sink.done);
		callbacks_release(u);
		ok = run_for(u, &sink, NJOBS, true, WAIT_MS);
		tap_ok(ok, "no_poll: the callbacks let through complete all %u tasks", NJOBS);
	} else {
		ok = run_for(u, &sink, NJOBS, false, WAIT_MS);
		tap_ok(ok, "polled: all %u tasks complete with their callbacks parked (%lu)", NJOBS,
		       sink.done);
		tap_ok(u->awaiting == NJOBS, "polled: each one keeps its last event for its callback "
		       "(%u awaiting)", u->awaiting);
		callbacks_release(u);
		ok = run_for(u, &sink, NJOBS, true, WAIT_MS);
		tap_ok(ok && !u->awaiting, "polled: the parked callbacks free them (%u awaiting)",
		       u->awaiting);
	}
	check_jobs(job, what);
	usched_stats(u, &st);
	if (no_poll)
		tap_ok(!st.polled, "no_poll: no task counted as polled (%llu)",
		       (unsigned long long)st.polled);
	else
		tap_ok(st.polled == NJOBS && st.completed == NJOBS && !st.failed,
		       "polled: the counters have %llu polled of %llu completed, %llu failed",
		       (unsigned long long)st.polled, (unsigned long long)st.completed,
		       (unsigned long long)st.failed);
	usched_destroy(u);
	tl_arena_free(&arena);
}

int main(void)
{
	const char *why = tl_setup();

	if (why)
		tap_skip_all(why);
	run(false);
	run(true);
	return tap_done();
}
