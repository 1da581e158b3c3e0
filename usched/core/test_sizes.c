// SPDX-License-Identifier: GPL-2.0
/*
 * test_sizes.c - the size m a task's kernel model takes, and what a
 * completion and a TG report of the model against the device. A built-in
 * task that gives no m (the daemon's: the uapi has none) takes its plan's,
 * the m the profile's kernel lines and in-process submitters use, not the
 * product of its global sizes (FLW: one work-group of 256 at every n; MM:
 * n^2 work-items for n^3 multiply-adds); a given m is kept; a kernel of
 * other source takes the product of its global sizes. Every completion has
 * each stage's time in the model's schedule and as measured, and each TG's
 * per-stage sums are its tasks'.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "selftests/tap.h"
#include "testlib.h"

#define NJOBS	8
#define N	4096

static const char twice_src[] =
	"__kernel void twice(__global float *a) { a[get_global_id(0)] *= 2.0f; }\n";

static uint32_t kernel[16];

/* The TGs' per-stage sums, as tg_done reported them. */
static double tg_pred[USCHED_STAGES], tg_busy[USCHED_STAGES];
static unsigned int tg_tasks;

static void on_tg(void *arg, const struct usched_tg_stat *s)
{
	(void)arg;
	tg_tasks += s->ntasks;
	for (int st = 0; st < USCHED_STAGES; st++) {
		tg_pred[st] += s->pred_stage_ns[st];
		tg_busy[st] += s->busy_stage_ns[st];
	}
}

static unsigned int task_no(const char *name)
{
	for (unsigned int i = 0; i < tqk_ntasks; i++)
		if (!strcmp(tqk_tasks[i]->name, name))
			return i;
	return 0;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)) + 1;
}

int main(void)
{
	struct usched_opts o = { .complete = tl_complete, .tg_done = on_tg };
	/* FLW at two sizes (one grid), MM at two; the last of each with m given */
	static const struct { const char *name; unsigned int which; bool given; } mix[NJOBS] = {
		{ "FLW", 0, false }, { "FLW", 2, false }, { "MM", 0, false }, { "MM", 1, false },
		{ "VA", 1, false }, { "FLW", 1, true }, { "MM", 2, true }, { "BS", 1, false },
	};
	static struct tl_job job[NJOBS + 1];
	double pred[USCHED_STAGES] = { 0 }, busy[USCHED_STAGES] = { 0 };
	unsigned int right = 0, timed = 0, spans = 0;
	const char *why = tl_setup();
	struct usched_stats st;
	struct usched_task *t;
	struct tl_arena a, b;
	struct tl_sink sink;
	struct usched *u;
	uint32_t prog, ktwice;
	int ret;

	if (why)
		tap_skip_all(why);
	tl_sink_init(&sink);
	o.complete_arg = &sink;
	u = tl_open(&o, kernel);
	ret = tl_arena_init(&a, u, 16 << 20);
	ret = ret ?: tl_arena_init(&b, u, N * sizeof(float));
	tap_ok(!ret, "two arenas (%s)", strerror(-ret));

	for (unsigned int i = 0; i < NJOBS; i++) {
		const struct tqk_task *tt = tqk_tasks[task_no(mix[i].name)];

		ret = tl_job_init(&job[i], &a, tt, tl_small(tt, mix[i].which), i,
				  kernel[task_no(mix[i].name)], 1 + i % 2);
		if (ret)
			break;
		/* the daemon's tasks give none; given ones are kept whatever they are */
		job[i].task.m = mix[i].given ? 12345 + i : 0;
		ret = usched_submit(u, &job[i].task);
		if (ret)
			break;
	}
	tap_ok(!ret, "submit %u built-in tasks, most without m (%s)", NJOBS, strerror(-ret));

	/* a kernel of other source, without m: the product of its global sizes */
	ret = usched_prog_add(u, USCHED_SHARED, twice_src, strlen(twice_src), NULL, &prog, NULL);
	ret = ret ?: usched_kernel_get(u, prog, "twice", &ktwice);
	t = &job[NJOBS].task;
	*t = (struct usched_task){
		.owner = 3, .user_data = (uintptr_t)&job[NJOBS], .kernel = ktwice, .dim = 2,
		.global = { N / 64, 64 }, .nbufs = 1, .nargs = 1,
		.buf = { { b.base, N * sizeof(float), USCHED_INOUT } },
		.arg = { { .kind = USCHED_ARG_BUF, .buf = 0 } },
	};
	ret = ret ?: usched_submit(u, t);
	tap_ok(!ret, "submit a task of OpenCL C source without m (%s)", strerror(-ret));
	tl_run(u, &sink, NJOBS + 1);
	usched_stats(u, &st);

	for (unsigned int i = 0; i < NJOBS; i++) {
		const struct tl_job *j = &job[i];
		uint64_t want = mix[i].given ? 12345 + i : tqk_m(j->tt, j->sz);

		if (j->c.m == want && j->c.kernel == j->task.kernel)
			right++;
		else
			tap_diag("%s n=%llu: m %llu, want %llu", j->tt->name,
				 (unsigned long long)j->sz.n, (unsigned long long)j->c.m,
				 (unsigned long long)want);
	}
	tap_ok(right == NJOBS, "built-in tasks: m is the plan's (n^3 for FLW and MM), or the one given");
	tap_ok(job[NJOBS].c.m == N && !job[NJOBS].c.status,
	       "other source: m is the product of the global sizes (%llu)",
	       (unsigned long long)job[NJOBS].c.m);
	{
		const struct tl_job *f0 = &job[0], *f2 = &job[1];

		tap_ok(f0->c.m != f2->c.m && f0->task.global[0] == f2->task.global[0],
		       "two FLW sizes on one grid: two sizes for the model (%llu, %llu)",
		       (unsigned long long)f0->c.m, (unsigned long long)f2->c.m);
	}

	for (unsigned int i = 0; i <= NJOBS; i++) {
		const struct usched_completion *c = &job[i].c;
		bool ok = !c->status && c->tg;

		for (int s = 0; s < USCHED_STAGES; s++) {
			bool has = c->stage_end[s] > 0;

			pred[s] += c->pred_ns[s];
			busy[s] += c->busy_ns[s];
			/* a stage that ran was scheduled and took time; none, neither */
			ok &= has ? c->pred_ns[s] > 0 && c->busy_ns[s] > 0 :
				    !c->pred_ns[s] && !c->busy_ns[s];
			/* an in-order queue: its commands' times fit in the stage's span */
			spans += has && c->busy_ns[s] <= c->stage_end[s] - c->stage_start[s];
			spans += !has;
		}
		timed += ok && c->pred_ns[USCHED_K] > 0;
	}
	tap_ok(timed == NJOBS + 1, "each completion: every stage it ran predicted and measured, "
	       "none other (%u of %u)", timed, NJOBS + 1);
	tap_ok(spans == (NJOBS + 1) * USCHED_STAGES,
	       "a stage's measured time fits its span (%u of %u)", spans,
	       (NJOBS + 1) * USCHED_STAGES);
	ret = 0;
	for (int s = 0; s < USCHED_STAGES; s++)
		ret |= !near(tg_pred[s], pred[s]) || !near(tg_busy[s], busy[s]) ||
		       !near(st.pred_stage_ns_sum[s], pred[s]) ||
		       !near(st.busy_stage_ns_sum[s], busy[s]);
	tap_ok(!ret && tg_tasks == NJOBS + 1,
	       "the TGs' per-stage sums, and the stats', are their tasks' (%u tasks)", tg_tasks);
	tap_diag("K: %.3f ms predicted, %.3f ms measured; HtD %.3f / %.3f; DtH %.3f / %.3f",
		 pred[USCHED_K] / 1e6, busy[USCHED_K] / 1e6, pred[USCHED_HTD] / 1e6,
		 busy[USCHED_HTD] / 1e6, pred[USCHED_DTH] / 1e6, busy[USCHED_DTH] / 1e6);
	usched_destroy(u);
	tl_arena_free(&a);
	tl_arena_free(&b);
	return tap_done();
}
