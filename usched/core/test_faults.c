// SPDX-License-Identifier: GPL-2.0
/*
 * test_faults.c - device errors (core.c, 8), injected where real ones come
 * in (exec_fault_arm()), since PoCL fails no command on its own. In one TG
 * of six built-in tasks, a command of one fails at its enqueue (HtD, K,
 * DtH) or on the device (its event's status at completion): that task
 * completes with the errno of its error, the error and the stage in its
 * completion, and every other task of the TG runs and is right; the tasks
 * chained after it (USCHED_TASK_LINKED) complete -ECANCELED, unlaunched
 * after a failed enqueue; the counters count each. A context-losing error
 * (CL_OUT_OF_RESOURCES on the device, a lost context at an enqueue) with
 * tasks in flight: the task -ENODEV, opts.wedged once after it, every
 * other task completed once (right, -EOWNERDEAD or -ECANCELED), a new task
 * refused, and a new core, a new context, serves tasks again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "selftests/tap.h"
#include "testlib.h"
#include "internal.h"

#define NJOBS		6
#define NLOST		8	/* the lost device's tasks: a VA, four long MMs, three VAs */
#define ARENA		(32 << 20)

#define CL_VENDOR_FAULT	(-9999)	/* NVIDIA's for a kernel's bad access: no name, -EIO */

static const char *const stage_name[] = { "HtD", "K", "DtH" };

/* Commands of stage s that task t has. */
static unsigned int cmds(const struct usched_task *t, enum usched_stage s)
{
	unsigned int n = 0;

	if (s == USCHED_K)
		return 1;
	for (unsigned int b = 0; b < t->nbufs; b++)
		n += !!(t->buf[b].dir & (s == USCHED_HTD ? USCHED_IN : USCHED_OUT));
	return n;
}

/* The first command of stage s of job k, counted from 1 in launch order (fifo). */
static unsigned int nth(const struct tl_job *j, unsigned int k, enum usched_stage s)
{
	unsigned int n = 1;

	for (unsigned int i = 0; i < k; i++)
		n += cmds(&j[i].task, s);
	return n;
}

struct core {
	struct usched *u;
	struct tl_arena arena;
	struct tl_sink sink;
	uint32_t kernel[16];
};

/*
 * The wedged cores, left to the process's exit (usched_destroy()): kept
 * where LeakSanitizer finds them (volatile: stored, never read).
 */
static struct usched *volatile wedged_cores[2];
static struct tl_job *culprit;	/* the lost device's task */
static int nwedged, culprit_seen;	/* its completions when opts.wedged came */

static void wedged(void *arg)
{
	(void)arg;
	nwedged++;
	culprit_seen = culprit ? atomic_load(&culprit->ncompl) : -1;
}

/* A core whose loop the test runs (tl_run()), so that one TG takes every task. */
static int core_open(struct core *c, unsigned int max_tg)
{
	struct usched_opts o = { .policy = "fifo", .max_tg = max_tg, .complete = tl_complete,
				 .complete_arg = &c->sink, .wedged = wedged };

	tl_sink_init(&c->sink);
	c->u = tl_open(&o, c->kernel);
	return tl_arena_init(&c->arena, c->u, ARENA);
}

/* The index of built-in task tt in tqk_tasks[], as struct core's kernel[]. */
static unsigned int kidx(const struct tqk_task *tt)
{
	unsigned int k = 0;

	while (tqk_tasks[k] != tt)
		k++;
	return k;
}

/* Job i of n built-in tasks of owner 1 in turn, from task @first on. */
static int job(struct core *c, struct tl_job *j, unsigned int i, unsigned int first)
{
	unsigned int k = (first + i) % tqk_ntasks;

	return tl_job_init(j, &c->arena, tqk_tasks[k], tl_small(tqk_tasks[k], i % 2),
			   100 * first + i, c->kernel[k], 1);
}

static int submit_all(struct core *c, struct tl_job *j, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; i < n && !ret; i++)
		ret = usched_submit(c->u, &j[i].task);
	return ret;
}

/* Job i completed once, in TG tg, right. */
static bool right(const struct tl_job *j, uint64_t tg)
{
	return atomic_load(&j->ncompl) == 1 && !j->c.status && j->c.tg == tg &&
	       !j->c.cl_error && !tl_job_verify(j, NULL);
}

struct fault_case {
	const char *name;
	enum usched_stage stage;
	enum exec_fault_mode mode;
	cl_int err;
	unsigned int k;		/* the job it fails */
	int want;
};

static const struct fault_case cases[] = {
	{ "HtD enqueue", USCHED_HTD, FAULT_ENQUEUE, CL_MEM_OBJECT_ALLOCATION_FAILURE, 2, -ENOMEM },
	{ "K enqueue", USCHED_K, FAULT_ENQUEUE, CL_INVALID_KERNEL_ARGS, 3, -EINVAL },
	/* a marker still goes in: a launch that does not fit, not a lost context */
	{ "DtH enqueue", USCHED_DTH, FAULT_ENQUEUE, CL_OUT_OF_RESOURCES, 1, -ENOMEM },
	{ "HtD on the device", USCHED_HTD, FAULT_EVENT, CL_MEM_OBJECT_ALLOCATION_FAILURE, 0,
	  -ENOMEM },
	{ "K on the device", USCHED_K, FAULT_EVENT, CL_VENDOR_FAULT, 4, -EIO },
	/* CL_INVALID_* is -EINVAL only where the enqueue refused the command */
	{ "DtH on the device", USCHED_DTH, FAULT_EVENT, CL_INVALID_VALUE, 5, -EIO },
};

/*
 * One TG of NJOBS tasks, job fc->k failing as fc says; with @chain, jobs
 * from k + 1 on are chained after it (LINKED).
 */
static void test_fault(struct core *c, const struct fault_case *fc, bool chain)
{
	struct exec_fault f = { .stage = fc->stage, .err = fc->err, .mode = fc->mode };
	const char *name = fc->name;
	struct usched_stats s0, s1;
	struct tl_job j[NJOBS];
	struct tl_job *bad = &j[fc->k];
	unsigned int ok = 0, cancelled = 0, unrun = 0;
	unsigned long done = c->sink.done;
	int ret = 0;

	c->arena.used = 0;
	for (unsigned int i = 0; i < NJOBS && !ret; i++) {
		ret = job(c, &j[i], i, fc->k + 3 * chain);
		if (chain && i > fc->k)
			j[i].task.flags = USCHED_TASK_ORDERED | USCHED_TASK_LINKED;
	}
	f.nth = nth(j, fc->k, fc->stage);
	usched_stats(c->u, &s0);
	exec_fault_arm(c->u, &f);
	ret = ret ?: submit_all(c, j, NJOBS);
	if (!tap_ok(!ret, "%s%s: submit %d tasks (%s)", name, chain ? ", chained" : "", NJOBS,
		    strerror(-ret)))
		return;
	tl_run(c->u, &c->sink, done + NJOBS);
	usched_stats(c->u, &s1);

	tap_ok(atomic_load(&bad->ncompl) == 1 && bad->c.status == fc->want &&
	       bad->c.cl_error == fc->err && bad->c.cl_stage == fc->stage,
	       "%s%s: task %u completes once, %s, its error %d at %s (got %s, %d at %s)", name,
	       chain ? ", chained" : "", fc->k, strerror(-fc->want), fc->err,
	       stage_name[fc->stage], strerror(-bad->c.status), bad->c.cl_error,
	       stage_name[bad->c.cl_stage % 3]);
	for (unsigned int i = 0; i < NJOBS; i++) {
		if (i == fc->k)
			continue;
		if (chain && i > fc->k) {
			cancelled += atomic_load(&j[i].ncompl) == 1 &&
				     j[i].c.status == -ECANCELED;
			unrun += !j[i].c.start_ns;
			continue;
		}
		ok += right(&j[i], bad->c.tg);
	}
	tap_ok(ok == (chain ? fc->k : NJOBS - 1),
	       "%s%s: the TG's other tasks run and are right (%u)", name,
	       chain ? ", chained" : "", ok);
	if (chain) {
		/* after a failed enqueue they are not launched */
		tap_ok(cancelled == NJOBS - 1 - fc->k &&
		       (fc->mode != FAULT_ENQUEUE || unrun == cancelled),
		       "%s, chained: the %u tasks after it -ECANCELED (%u)%s", name,
		       NJOBS - 1 - fc->k, cancelled,
		       fc->mode == FAULT_ENQUEUE ? ", none of them run" : "");
	}
	tap_ok(s1.failed - s0.failed == 1 && s1.cancelled - s0.cancelled == cancelled &&
	       s1.cmd_failed[fc->stage] - s0.cmd_failed[fc->stage] == 1 &&
	       s1.completed - s0.completed == NJOBS && !s1.wedged && !s1.lost,
	       "%s%s: counted: 1 failed at %s, %u cancelled, %d completed, not wedged", name,
	       chain ? ", chained" : "", stage_name[fc->stage], cancelled, NJOBS);
}

/* A new core, a new context: it serves tasks (the old one is left as it is). */
static void test_serves(const char *name)
{
	struct tl_job j[NJOBS];
	struct core c;
	unsigned int ok = 0;
	int ret;

	ret = core_open(&c, NJOBS);
	for (unsigned int i = 0; i < NJOBS && !ret; i++)
		ret = job(&c, &j[i], i, 1);
	ret = ret ?: submit_all(&c, j, NJOBS);
	if (!ret)
		tl_run(c.u, &c.sink, NJOBS);
	for (unsigned int i = 0; i < NJOBS && !ret; i++)
		ok += right(&j[i], j[i].c.tg) && j[i].c.tg;
	tap_ok(ok == NJOBS, "%s: a new core serves again, %u of %u tasks right (%s)", name, ok,
	       NJOBS, strerror(-ret));
	usched_destroy(c.u);
	tl_arena_free(&c.arena);
}

/*
 * The device lost with tasks in flight: a VA whose kernel fails with
 * CL_OUT_OF_RESOURCES on the device, four MMs that hold the kernel queue
 * long after it, in its TG, and three VAs after them.
 */
static void test_lost_device(void)
{
	const struct tqk_task *va = tqk_find("VA"), *mm = tqk_find("MM");
	struct exec_fault f = { .stage = USCHED_K, .nth = 1, .err = CL_OUT_OF_RESOURCES,
				.mode = FAULT_EVENT };
	unsigned int once = 0, fine = 0, dead = 0;
	struct tl_job j[NLOST];
	struct usched_stats s;
	struct core c;
	int ret;

	ret = core_open(&c, 5);
	for (unsigned int i = 0; i < NLOST && !ret; i++) {
		bool long_one = i >= 1 && i <= 4;

		ret = tl_job_init(&j[i], &c.arena, long_one ? mm : va,
				  (struct tqk_size){ long_one ? 512 : 4096, 0 }, 40 + i,
				  c.kernel[kidx(long_one ? mm : va)], 1);
	}
	culprit = &j[0];
	nwedged = 0;
	exec_fault_arm(c.u, &f);
	ret = ret ?: submit_all(&c, j, NLOST);
	if (!tap_ok(!ret, "lost device: submit %d tasks (%s)", NLOST, strerror(-ret)))
		return;
	tl_run(c.u, &c.sink, NLOST);

	tap_ok(j[0].c.status == -ENODEV && j[0].c.cl_error == CL_OUT_OF_RESOURCES &&
	       j[0].c.cl_stage == USCHED_K, "lost device: the task -ENODEV, CL_OUT_OF_RESOURCES "
	       "at K (%s, %d)", strerror(-j[0].c.status), j[0].c.cl_error);
	tap_ok(nwedged == 1 && culprit_seen == 1,
	       "lost device: opts.wedged once, after its completion (%d, %d)", nwedged,
	       culprit_seen);
	for (unsigned int i = 0; i < NLOST; i++) {
		int st = j[i].c.status;

		once += atomic_load(&j[i].ncompl) == 1;
		if (i)
			fine += right(&j[i], j[i].c.tg) || st == -EOWNERDEAD ||
				(st == -ECANCELED && !j[i].c.start_ns);
		dead += st == -EOWNERDEAD;
	}
	tap_ok(once == NLOST && fine == NLOST - 1 && j[4].c.status == -EOWNERDEAD,
	       "lost device: every task completes once (%u), the others right, -EOWNERDEAD or "
	       "-ECANCELED unrun (%u), the last long one in flight -EOWNERDEAD (%u in all)",
	       once, fine, dead);
	ret = usched_submit(c.u, &j[0].task);
	tap_ok(ret == -ENOTRECOVERABLE, "lost device: a new task is refused: %s", strerror(-ret));
	usched_stats(c.u, &s);
	tap_ok(s.wedged && s.lost && s.cmd_failed[USCHED_K] == 1 && s.completed == NLOST &&
	       s.failed == 1 + dead, "lost device: counted: wedged, lost, 1 failed at K, %llu "
	       "failed", (unsigned long long)s.failed);
	usched_destroy(c.u);
	wedged_cores[0] = c.u;	/* its arena with it */
	test_serves("lost device");
}

/*
 * The context lost at an enqueue: the second task's kernel, its HtD copies
 * in, and every enqueue after it fail with CL_DEVICE_NOT_AVAILABLE, a
 * marker too.
 */
static void test_lost_enqueue(void)
{
	struct exec_fault f = { .stage = USCHED_K, .nth = 2, .err = CL_DEVICE_NOT_AVAILABLE,
				.mode = FAULT_LOST };
	unsigned int unrun = 0;
	struct tl_job j[NJOBS];
	struct usched_stats s;
	struct core c;
	bool first;
	int ret;

	ret = core_open(&c, NJOBS);
	for (unsigned int i = 0; i < NJOBS && !ret; i++)
		ret = job(&c, &j[i], i, 2);
	culprit = &j[1];
	nwedged = 0;
	exec_fault_arm(c.u, &f);
	ret = ret ?: submit_all(&c, j, NJOBS);
	if (!tap_ok(!ret, "lost at an enqueue: submit %d tasks (%s)", NJOBS, strerror(-ret)))
		return;
	tl_run(c.u, &c.sink, NJOBS);
	usched_stats(c.u, &s);

	tap_ok(j[1].c.status == -ENODEV && j[1].c.cl_error == CL_DEVICE_NOT_AVAILABLE &&
	       j[1].c.cl_stage == USCHED_K && nwedged == 1 && culprit_seen == 1,
	       "lost at an enqueue: the task -ENODEV, CL_DEVICE_NOT_AVAILABLE at K, then "
	       "opts.wedged once (%s, %d, %d)", strerror(-j[1].c.status), nwedged, culprit_seen);
	for (unsigned int i = 2; i < NJOBS; i++)
		unrun += atomic_load(&j[i].ncompl) == 1 && j[i].c.status == -ECANCELED &&
			 !j[i].c.start_ns;
	/* one copy engine: its DtH copies go after the loss */
	first = right(&j[0], j[1].c.tg) || j[0].c.status == -EOWNERDEAD ||
		(s.dma == 1 && j[0].c.status == -ENODEV);
	tap_ok(unrun == NJOBS - 2 && first && atomic_load(&j[0].ncompl) == 1,
	       "lost at an enqueue: the tasks after it not launched, -ECANCELED (%u), the one "
	       "before right, -EOWNERDEAD or, one copy engine, -ENODEV (%s)", unrun,
	       strerror(-j[0].c.status));
	tap_ok(s.wedged && s.lost && s.cmd_failed[USCHED_K] == 1 && s.completed == NJOBS,
	       "lost at an enqueue: counted: wedged, lost, failed at K");
	usched_destroy(c.u);
	wedged_cores[1] = c.u;
	test_serves("lost at an enqueue");
}

int main(void)
{
	const char *why = tl_setup();
	struct core c;

	if (why)
		tap_skip_all(why);
	if (core_open(&c, NJOBS)) {
		tap_ok(0, "open a core");
		return tap_done();
	}
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_fault(&c, &cases[i], false);
	test_fault(&c, &cases[1], true);	/* K enqueue */
	test_fault(&c, &cases[4], true);	/* K on the device */
	usched_destroy(c.u);
	tl_arena_free(&c.arena);
	test_lost_device();
	test_lost_enqueue();
	return tap_done();
}
