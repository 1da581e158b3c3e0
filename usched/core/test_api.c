// SPDX-License-Identifier: GPL-2.0
/*
 * test_api.c - the core's API contract on a real device: program builds
 * (a compile error comes back with its build log; one build per source),
 * kernels, the checks usched_submit() makes, a task on an OpenCL C source
 * with scratch memory and a scalar, a launch the device refuses, cancelling,
 * dropping a region or a program while tasks use it, and usched_destroy()
 * running what is still queued, and a device profile in place of the
 * startup calibration.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftests/tap.h"
#include "testlib.h"

#define N	1024

static const char bad_src[] = "__kernel void broken(__global int *p) { p[0] = undeclared; }\n";

static const char good_src[] =
	"__kernel void fill(__global int *out, __global int *tmp, int v)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"\n"
	"	tmp[i] = v + (int)i;\n"
	"	out[i] = tmp[i] * 2;\n"
	"}\n"
	"__kernel void uses_local(__global int *p, __local int *l) { l[0] = 1; p[0] = l[0]; }\n";

static struct tl_sink sink;

/* Completions of tasks that are not tl_jobs: their user_data indexes this. */
static struct usched_completion got[10];
static int ngot[10];

/* Submitted by the completion callback of the task with user_data 8. */
static struct usched *chain_core;
static struct usched_task chain_task;
static int chain_ret = 1;

static void complete(void *arg, const struct usched_completion *c)
{
	(void)arg;
	if (c->user_data == 8)
		chain_ret = usched_submit(chain_core, &chain_task);
	got[c->user_data] = *c;
	ngot[c->user_data]++;
	pthread_mutex_lock(&sink.lock);
	sink.done++;
	pthread_mutex_unlock(&sink.lock);
}

/* fill(out, tmp, v) over N items, out in the arena. */
static struct usched_task fill_task(uint32_t kernel, int *out, uint64_t user_data)
{
	struct usched_task t = {
		.owner = 1, .user_data = user_data, .kernel = kernel, .dim = 1,
		.global = { N }, .nbufs = 2, .nargs = 3,
		.buf = { { out, N * sizeof(int), USCHED_OUT },
			 { NULL, N * sizeof(int), USCHED_SCRATCH } },
		.arg = { { .kind = USCHED_ARG_BUF, .buf = 0 }, { .kind = USCHED_ARG_BUF, .buf = 1 },
			 { .kind = USCHED_ARG_SCALAR, .size = 4 } },
	};
	int v = 7;

	memcpy(t.arg[2].val, &v, sizeof(v));
	return t;
}

static bool fill_ok(const int *out)
{
	for (int i = 0; i < N; i++)
		if (out[i] != 2 * (7 + i))
			return false;
	return true;
}

static void test_programs(struct usched *u, uint32_t *kfill)
{
	uint32_t id, id2, k;
	char *log, *log2;
	int ret;

	ret = usched_prog_add(u, USCHED_SHARED, bad_src, strlen(bad_src), NULL, &id, &log);
	tap_ok(ret == -ENOEXEC && log && strstr(log, "undeclared"),
	       "a compile error returns -ENOEXEC with the build log");
	ret = usched_prog_add(u, USCHED_SHARED, bad_src, sizeof(bad_src), NULL, &id, &log2);
	tap_ok(ret == -ENOEXEC && log && log2 && !strcmp(log, log2),
	       "the same source again: the same error and log, from the cache");
	free(log);
	free(log2);

	ret = usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), NULL, &id, &log);
	tap_ok(!ret && !log, "a good source builds");
	ret = usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), NULL, &id2, NULL);
	tap_ok(!ret && id2 == id, "registering it again gives the same program");
	ret = usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), "-cl-fast-relaxed-math", &id2, NULL);
	tap_ok(!ret && id2 != id, "other build options make another program");
	usched_prog_put(u, id2);

	tap_ok(usched_kernel_get(u, id, "nope", &k) == -ENOENT, "an unknown kernel name: -ENOENT");
	tap_ok(usched_kernel_get(u, id, "uses_local", &k) == -EOPNOTSUPP,
	       "a kernel with a __local argument: -EOPNOTSUPP");
	ret = usched_kernel_get(u, id, "fill", kfill);
	tap_ok(!ret && !usched_kernel_get(u, id, "fill", &k) && k == *kfill,
	       "a kernel by name, the same id twice");
	tap_ok(usched_prog_builtin(u, USCHED_SHARED, "NOPE", &id2) == -ENOENT, "an unknown built-in: -ENOENT");
	tap_ok(usched_kernel_get(u, 999, "fill", &k) == -ENOENT, "an unknown program: -ENOENT");
}

static void test_submit_checks(struct usched *u, uint32_t kfill, int *out)
{
	struct usched_task t = fill_task(kfill, out, 0);
	int outside[N];

	t.kernel = 12345;
	tap_ok(usched_submit(u, &t) == -ENOENT, "an unknown kernel: -ENOENT");
	t = fill_task(kfill, out, 0);
	t.dim = 0;
	tap_ok(usched_submit(u, &t) == -EINVAL, "no work dimension: -EINVAL");
	t = fill_task(kfill, outside, 0);
	tap_ok(usched_submit(u, &t) == -EFAULT, "a buffer outside every region: -EFAULT");
	t = fill_task(kfill, out, 0);
	t.buf[0].len = 1ull << 62;
	tap_ok(usched_submit(u, &t) == -EFBIG, "a buffer larger than the device takes: -EFBIG");
	t = fill_task(kfill, out, 0);
	t.nargs = 2;
	tap_ok(usched_submit(u, &t) == -EINVAL, "an argument left unset: -EINVAL");
	t = fill_task(kfill, out, 0);
	t.arg[1] = t.arg[2];
	tap_ok(usched_submit(u, &t) == -EINVAL, "a scalar for a buffer argument: -EINVAL");
	t = fill_task(kfill, out, 0);
	t.arg[2].size = 9;
	tap_ok(usched_submit(u, &t) == -EINVAL, "a scalar of 9 bytes: -EINVAL");
}

/*
 * A device profile instead of the startup calibration: its dma, its
 * transfer lines and its kernel line (by kernel name) make the first
 * prediction, before the kernel has run.
 */
static void test_profile(void)
{
	static const char prof[] =
		"tq-profile 1\n"
		"dma 1\n"
		"htd alone 1000 10.0\n"
		"dth alone 2000 20.0\n"
		"kernel fill 0.5 3000\n";
	/* fill: no HtD; K 0.5 * 1024 + 3000; DtH 2000 + 4096 / 20 */
	const double want = 0.5 * N + 3000 + 2000 + N * sizeof(int) / 20.0;
	char path[] = "/tmp/usched-profile-XXXXXX";
	struct usched_opts o = { .complete = complete };
	struct usched_stats st;
	struct tl_arena a;
	struct usched_task t;
	uint32_t prog, k;
	struct usched *u;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0 || write(fd, prof, strlen(prof)) != (ssize_t)strlen(prof)) {
		tap_diag("cannot write %s", path);
		exit(1);
	}
	close(fd);
	o.profile = path;
	ret = usched_create(&o, &u);
	if (!tap_ok(!ret, "create a core from a device profile (%s)", strerror(-ret)))
		return;
	usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), NULL, &prog, NULL);
	usched_kernel_get(u, prog, "fill", &k);
	tl_arena_init(&a, u, 1 << 20);
	t = fill_task(k, (int *)a.base, 0);
	ngot[0] = 0;
	usched_submit(u, &t);
	tl_run(u, &sink, sink.done + 1);
	usched_stats(u, &st);
	tap_ok(st.dma == 1, "the profile's dma");
	tap_ok(fabs(st.last.predicted_ns - want) < 1, "the profile's lines predict %.1f ns (%.1f)",
	       st.last.predicted_ns, want);
	usched_destroy(u);
	tl_arena_free(&a);

	fd = open(path, O_WRONLY | O_TRUNC);
	ret = write(fd, "tq-profile 1\ndma 3\n", 19) == 19 ? 0 : -1;
	close(fd);
	tap_ok(!ret && usched_create(&o, &u) == -EINVAL, "a bad profile: -EINVAL");
	unlink(path);
}

int main(void)
{
	struct usched_opts o = { .complete = complete, .policy = "paper" };
	const char *why = tl_setup();
	struct usched_stats st;
	struct tl_arena a;
	struct usched *u;
	uint32_t kfill, id;
	struct usched_task t;
	int *out, *out2;
	int ret;

	if (why)
		tap_skip_all(why);
	tl_sink_init(&sink);
	ret = usched_create(&o, &u);
	if (!tap_ok(!ret, "create a core, no thread: the test runs the loop"))
		return tap_done();
	tl_arena_init(&a, u, 1 << 20);
	out = (int *)a.base;
	out2 = out + N;
	test_programs(u, &kfill);
	test_submit_checks(u, kfill, out);

	/* A source task with scratch memory and a scalar, run by the loop here. */
	memset(out, 0xff, N * sizeof(int));
	t = fill_task(kfill, out, 0);
	ret = usched_submit(u, &t);
	tl_run(u, &sink, 1);
	tap_ok(!ret && ngot[0] == 1 && !got[0].status && got[0].tg && fill_ok(out),
	       "a task on a source program: OUT and SCRATCH buffers, a scalar");

	/* A work-group size that does not divide the work: the launch fails. */
	t = fill_task(kfill, out, 1);
	t.global[0] = N - 1;
	t.local[0] = 64;
	usched_submit(u, &t);
	tl_run(u, &sink, 2);
	tap_ok(ngot[1] == 1 && got[1].status == -EINVAL,
	       "a launch the device refuses completes with -EINVAL");

	/* Cancel owner 2's queued tasks, an ordered chain among them; owner 1's run. */
	for (int i = 2; i < 5; i++) {
		t = fill_task(kfill, out2, i);
		t.owner = 2;
		t.flags = i > 2 ? USCHED_TASK_ORDERED : 0;
		usched_submit(u, &t);
	}
	memset(out, 0, N * sizeof(int));
	t = fill_task(kfill, out, 5);
	usched_submit(u, &t);
	usched_cancel(u, 2);
	tl_run(u, &sink, 6);
	tap_ok(ngot[2] == 1 && ngot[3] == 1 && ngot[4] == 1 && got[2].status == -ECANCELED &&
	       got[3].status == -ECANCELED && got[4].status == -ECANCELED && !got[4].tg,
	       "cancelled tasks complete once with -ECANCELED, never launched");
	tap_ok(ngot[5] == 1 && !got[5].status && fill_ok(out), "another owner's task still runs");

	/* Drop the region and the program while a task uses them. */
	memset(out, 0, N * sizeof(int));
	t = fill_task(kfill, out, 6);
	usched_submit(u, &t);
	tap_ok(!usched_region_del(u, a.region), "remove the region while a task uses it");
	usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), NULL, &id, NULL);
	for (int i = 0; i < 3; i++)	/* test_programs() registered it twice */
		usched_prog_put(u, id);
	tap_ok(usched_prog_put(u, id) == -ENOENT, "drop the program's registrations");
	tl_run(u, &sink, 7);
	tap_ok(ngot[6] == 1 && !got[6].status && fill_ok(out),
	       "the task still runs with both");
	tap_ok(usched_submit(u, &t) == -ENOENT, "afterwards its kernel is gone");
	tl_arena_free(&a);

	/* A completion callback submits the next task. */
	tl_arena_init(&a, u, 1 << 20);
	usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), NULL, &id, NULL);
	usched_kernel_get(u, id, "fill", &kfill);
	memset(a.base, 0, 2 * N * sizeof(int));
	t = fill_task(kfill, (int *)a.base, 8);
	chain_core = u;
	chain_task = fill_task(kfill, (int *)a.base + N, 9);
	usched_submit(u, &t);
	tl_run(u, &sink, 9);
	tap_ok(!chain_ret && ngot[8] == 1 && ngot[9] == 1 && !got[9].status &&
	       fill_ok((int *)a.base + N), "a completion callback may submit");
	usched_prog_put(u, id);
	usched_region_del(u, a.region);
	tl_arena_free(&a);

	/* usched_destroy() runs what is still queued. */
	tl_arena_init(&a, u, 1 << 20);
	usched_prog_add(u, USCHED_SHARED, good_src, strlen(good_src), NULL, &id, NULL);
	usched_kernel_get(u, id, "fill", &kfill);
	t = fill_task(kfill, (int *)a.base, 7);
	usched_submit(u, &t);
	usched_stats(u, &st);
	usched_destroy(u);
	tap_ok(ngot[7] == 1 && !got[7].status && fill_ok((int *)a.base),
	       "usched_destroy() runs a task still queued");
	tl_arena_free(&a);
	tap_ok(st.cancelled == 3 && st.failed == 1 && st.submitted == 10 && st.completed == 9,
	       "stats: %lu submitted, %lu completed, %lu cancelled, %lu failed",
	       (unsigned long)st.submitted, (unsigned long)st.completed,
	       (unsigned long)st.cancelled, (unsigned long)st.failed);
	test_profile();
	return tap_done();
}
