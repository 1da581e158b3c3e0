// SPDX-License-Identifier: GPL-2.0
/*
 * test_watchdog.c - the kernel-time watchdog and the started callback, in
 * process. A kernel that loops for seconds past a limit of 200 ms fails
 * with -ETIME well before it ends, its limit from opts.time_limit_ns or its
 * own; opts.wedged is called once, after that completion; the other task
 * in flight completes (0, or -EOWNERDEAD behind it), a task waiting
 * -ECANCELED, a new one is refused with -ENOTRECOVERABLE, and
 * usched_destroy() returns while the kernel still runs. A kernel inside
 * its limit completes. opts.started sees every task once, before its first
 * command starts. A kernel launched again at a new work-group size, which
 * PoCL compiles again before it runs, is not failed for the compile's time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tq/clock.h>

#include "selftests/tap.h"
#include "testlib.h"

#define LIMIT_NS	200000000ull
#define SPIN_NS		2500000000ull	/* how long the endless kernel runs */
#define NSEQ		16
#define COMPILE_LIMIT_NS 150000000ull	/* under PoCL's compile for a new work-group size */

static const char src[] =
	"__kernel void spin(__global uint *x, uint iters)\n"
	"{\n"
	"	uint v = x[0];\n"
	"\n"
	"	for (uint i = 0; i < iters; i++)\n"
	"		v = v * 1664525u + 1013904223u;\n"
	"	x[0] = v;\n"
	"}\n";

/* Long straight-line code: PoCL's compile at each new work-group size is slow. */
static const char heavy_src[] =
	"#define MIX v = (v ^ (v >> 13)) * 0x5bd1e995u + x[v & 3];\n"
	"#define R8(s) s s s s s s s s\n"
	"__kernel void heavy(__global uint *x, uint iters)\n"
	"{\n"
	"	uint v = x[0] + iters;\n"
	"\n"
	"	R8(R8(R8(MIX)))\n"
	"	x[0] = v;\n"
	"}\n";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct usched_completion got[NSEQ];
static uint64_t got_ns[NSEQ], started_ns[NSEQ];
static int ngot[NSEQ], nstarted[NSEQ], ndone, nwedged;
static int wedged_after;	/* completions delivered when wedged was called */

static void complete(void *arg, const struct usched_completion *c)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	if (c->user_data < NSEQ) {
		got[c->user_data] = *c;
		got_ns[c->user_data] = tq_now_ns();
		ngot[c->user_data]++;
	}
	ndone++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void wedged(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	nwedged++;
	wedged_after = ndone;
	pthread_mutex_unlock(&lock);
}

static void started(void *arg, const struct usched_start *t, unsigned int n)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < n; i++) {
		if (t[i].user_data < NSEQ) {
			started_ns[t[i].user_data] = tq_now_ns();
			nstarted[t[i].user_data]++;
		}
	}
	pthread_mutex_unlock(&lock);
}

static void reset(void)
{
	memset(got, 0, sizeof(got));
	memset(ngot, 0, sizeof(ngot));
	memset(nstarted, 0, sizeof(nstarted));
	ndone = nwedged = wedged_after = 0;
}

/* Wait until n completions in all, at most ms; returns whether they came. */
static bool wait_done(int n, unsigned int ms)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000l;
	if (ts.tv_nsec >= 1000000000l) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000l;
	}
	pthread_mutex_lock(&lock);
	while (ndone < n && !pthread_cond_timedwait(&cond, &lock, &ts))
		;
	ok = ndone >= n;
	pthread_mutex_unlock(&lock);
	return ok;
}

struct core {
	struct usched *u;
	struct tl_arena arena;
	uint32_t spin, kernel[16];
	uint32_t *x;
};

static int core_open(struct core *c, uint64_t default_limit)
{
	struct usched_opts o = { .complete = complete, .wedged = wedged, .started = started,
				 .time_limit_ns = default_limit, .max_tg = 1 };
	uint32_t prog;
	int ret;

	c->u = tl_open(&o, c->kernel);
	ret = tl_arena_init(&c->arena, c->u, 4 << 20);
	ret = ret ?: usched_prog_add(c->u, USCHED_SHARED, src, sizeof(src), NULL, &prog, NULL);
	ret = ret ?: usched_kernel_get(c->u, prog, "spin", &c->spin);
	ret = ret ?: usched_start(c->u);
	c->x = (uint32_t *)c->arena.base;
	c->arena.used = 4096;
	return ret;
}

static struct usched_task spin_task(struct core *c, uint32_t iters, uint64_t user,
				    uint64_t limit)
{
	struct usched_task t = {
		.owner = 1, .user_data = user, .kernel = c->spin, .dim = 1, .global = { 1 },
		.nbufs = 1, .nargs = 2, .buf = { { c->x, 4, USCHED_INOUT } },
		.arg = { { .kind = USCHED_ARG_BUF, .buf = 0 }, { .kind = USCHED_ARG_SCALAR,
								 .size = 4 } },
		.time_limit_ns = limit,
	};

	memcpy(t.arg[1].val, &iters, 4);
	return t;
}

/* Iterations of spin() that run about ns, from a timed run of a few. */
static uint32_t calibrate(uint64_t ns)
{
	struct core c;
	struct usched_task t;
	uint32_t iters = 20000000;
	double per;
	int ret;

	reset();
	if (core_open(&c, 0))
		return 0;
	t = spin_task(&c, iters, 0, 0);
	ret = usched_submit(c.u, &t);
	if (!ret && wait_done(1, 60000) && !got[0].status) {
		per = (double)(got[0].stage_end[USCHED_K] - got[0].stage_start[USCHED_K]) / iters;
		tap_diag("spin: %.2f ns per iteration", per);
		iters = ns / per > 4e9 ? 4000000000u : (uint32_t)(ns / per);
	} else {
		iters = 0;
	}
	usched_destroy(c.u);
	tl_arena_free(&c.arena);
	return iters;
}

/*
 * An endless kernel (for the test: SPIN_NS) past a 200 ms limit, with the
 * limit from opts (own = false) or its own; another owner's VA behind it
 * in flight and one more waiting.
 */
static void test_overrun(uint32_t iters, bool own)
{
	const char *how = own ? "its own time_limit_ns" : "opts.time_limit_ns";
	const struct tqk_task *va = tqk_find("VA");
	struct tl_job j[2];
	struct usched_task t;
	struct core c;
	uint64_t t0, t1;
	int ret, late;

	reset();
	if (core_open(&c, own ? 0 : LIMIT_NS)) {
		tap_ok(0, "%s: open a core", how);
		return;
	}
	t = spin_task(&c, iters, 1, own ? LIMIT_NS : 0);
	t0 = tq_now_ns();
	ret = usched_submit(c.u, &t);
	for (int i = 0; i < 2 && !ret; i++) {
		ret = tl_job_init(&j[i], &c.arena, va, (struct tqk_size){ 4096, 0 }, 7 + i,
				  c.kernel[5], 2);
		j[i].task.user_data = 2 + i;
		j[i].task.time_limit_ns = own ? 0 : 30000000000ull;	/* its own: 30 s */
		ret = ret ?: usched_submit(c.u, &j[i].task);
	}
	if (!tap_ok(!ret && wait_done(3, 60000), "%s: the endless kernel, a VA in flight and one "
		    "waiting all complete (%s)", how, strerror(-ret))) {
		usched_destroy(c.u);
		return;
	}
	t1 = got_ns[1];
	tap_ok(got[1].status == -ETIME && ngot[1] == 1, "%s: the endless kernel fails with "
	       "-ETIME (%s)", how, strerror(-got[1].status));
	tap_ok(t1 - t0 >= LIMIT_NS && t1 - t0 < SPIN_NS / 2,
	       "%s: after its limit, long before it ends (%.0f ms after submission)", how,
	       (t1 - t0) / 1e6);
	late = got[2].status == -EOWNERDEAD || (!got[2].status && !tl_job_verify(&j[0], NULL));
	tap_ok(late && ngot[2] == 1 && ngot[3] == 1 &&
	       (got[3].status == -ECANCELED || got[3].status == -EOWNERDEAD),
	       "%s: the VA in flight -EOWNERDEAD (or done, right), the one waiting -ECANCELED "
	       "(%s, %s)", how, strerror(-got[2].status), strerror(-got[3].status));
	tap_ok(nwedged == 1 && wedged_after >= 1 && got_ns[1] <= got_ns[2],
	       "%s: opts.wedged called once, after the -ETIME completion (%d)", how, nwedged);
	ret = usched_submit(c.u, &j[0].task);
	tap_ok(ret == -ENOTRECOVERABLE, "%s: a new task is refused: %s", how, strerror(-ret));
	t0 = tq_now_ns();
	usched_destroy(c.u);
	t1 = tq_now_ns();
	tap_ok(t1 - t0 < SPIN_NS / 4, "%s: usched_destroy() returns while the kernel runs "
	       "(%.0f ms)", how, (t1 - t0) / 1e6);
	/* the wedged core is left to the process's exit, its arena with it */
}

/* Within the limit: done; opts.started before each task's first command. */
static void test_within(uint32_t iters)
{
	const struct tqk_task *va = tqk_find("VA");
	struct usched_stats st;
	struct tl_job j[3];
	struct usched_task t;
	struct core c;
	int ret, early = 0;

	reset();
	if (core_open(&c, 0)) {
		tap_ok(0, "within: open a core");
		return;
	}
	t = spin_task(&c, iters / 50, 0, 20 * LIMIT_NS);	/* ~50 ms of 4 s */
	ret = usched_submit(c.u, &t);
	for (int i = 0; i < 3 && !ret; i++) {
		ret = tl_job_init(&j[i], &c.arena, va, (struct tqk_size){ 4096, 0 }, 3 + i,
				  c.kernel[5], 3 + i % 2);
		j[i].task.user_data = 1 + i;
		ret = ret ?: usched_submit(c.u, &j[i].task);
	}
	tap_ok(!ret && wait_done(4, 60000) && !got[0].status && ngot[0] == 1,
	       "a kernel inside its limit completes (%s)", strerror(-got[0].status));
	for (int i = 0; i < 4; i++)
		early += nstarted[i] == 1 && started_ns[i] <= got[i].start_ns && got[i].start_ns;
	tap_ok(early == 4, "opts.started: each task once, before its first command starts "
	       "(%d of 4)", early);
	usched_stats(c.u, &st);
	tap_ok(!st.timeouts && !st.wedged, "no timeout counted, not wedged");
	usched_destroy(c.u);
	tl_arena_free(&c.arena);
}

/*
 * A kernel's launches at new work-group sizes under a limit shorter than
 * PoCL's compile for each (hundreds of ms; its kernel cache is off for the
 * test): each completes.
 */
static void test_recompile(void)
{
	static const size_t sizes[] = { 2, 4, 8, 16 };
	uint64_t t0, slowest = 0;
	struct usched_stats st;
	struct usched_task t;
	uint32_t prog, heavy;
	struct core c;
	int ret, ok = 0;

	reset();
	if (core_open(&c, 0)) {
		tap_ok(0, "recompile: open a core");
		return;
	}
	ret = usched_prog_add(c.u, USCHED_SHARED, heavy_src, sizeof(heavy_src), NULL, &prog, NULL);
	ret = ret ?: usched_kernel_get(c.u, prog, "heavy", &heavy);
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !ret; i++) {
		t = spin_task(&c, 1, 1 + i, COMPILE_LIMIT_NS);
		t.kernel = heavy;
		t.global[0] = sizes[i];
		t.local[0] = sizes[i];
		t0 = tq_now_ns();
		ret = usched_submit(c.u, &t);
		if (ret || !wait_done(1 + i, 60000))
			break;
		ok += !got[1 + i].status;
		if (got_ns[1 + i] - t0 > slowest)
			slowest = got_ns[1 + i] - t0;
	}
	usched_stats(c.u, &st);
	tap_ok(ok == 4 && !st.timeouts && !st.wedged,
	       "recompile: 4 launches at new work-group sizes under a %.0f ms limit complete "
	       "(%d of 4; the slowest took %.0f ms, compile included)",
	       COMPILE_LIMIT_NS / 1e6, ok, slowest / 1e6);
	usched_destroy(c.u);
	tl_arena_free(&c.arena);
}

int main(void)
{
	const char *why;
	uint32_t iters;

	/* every new work-group size compiled for real, every run */
	setenv("POCL_KERNEL_CACHE", "0", 1);
	why = tl_setup();

	if (why)
		tap_skip_all(why);
	iters = calibrate(SPIN_NS);
	if (!tap_ok(iters > 0, "calibrate the spinning kernel (%u iterations for %.1f s)", iters,
		    SPIN_NS / 1e9))
		return tap_done();
	test_within(iters);
	test_recompile();
	test_overrun(iters, false);
	test_overrun(iters, true);
	return tap_done();
}
