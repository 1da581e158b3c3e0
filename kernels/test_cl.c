// SPDX-License-Identifier: GPL-2.0
/*
 * test_cl.c - every built-in task on the first OpenCL device, at two sizes:
 * build, copy in, run, copy out, verify against the host reference; then
 * corrupt the output and check that verification notices. Also checks that
 * a program that does not compile comes back with its build log.
 *
 * PoCL compiles kernels on the CPU and caches them in POCL_CACHE_DIR; when
 * that is unset we point it at build/pocl-cache, next to this binary's
 * directory, so reruns skip the compiles.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "selftests/tap.h"
#include "tqk_cl.h"

struct cl {
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
};

/* Two sizes per task: the smallest that exercises each path, kept quick. */
static const struct {
	const char *name;
	struct tqk_size sz[2];
} cases[] = {
	{ "MM", { { 32, 0 }, { 272, 0 } } },		/* 272: sampled rows + Freivalds */
	{ "BS", { { 256, 0 }, { 12288, 0 } } },
	{ "FWT", { { 1024, 0 }, { 16384, 0 } } },
	{ "FLW", { { 13, 0 }, { 300, 0 } } },		/* 13: items left idle; 300: sampled */
	{ "CONV", { { 16, 0 }, { 80, 0 } } },
	{ "VA", { { 256, 0 }, { 65536, 0 } } },
	{ "MT", { { 16, 0 }, { 144, 0 } } },
	{ "DCT", { { 16, 0 }, { 128, 0 } } },
	{ "SYN", { { 256, 0 }, { 4096, 7 } } },
};

static void set_pocl_cache(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	ssize_t len;

	if (getenv("POCL_CACHE_DIR"))
		return;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return;
	exe[len] = '\0';
	snprintf(dir, sizeof(dir), "%s/../pocl-cache", dirname(exe));
	mkdir(dir, 0755);
	setenv("POCL_CACHE_DIR", dir, 0);
}

/* The first device, a context and an in-order queue, or skip the whole test. */
static void cl_open(struct cl *cl)
{
	char name[256] = "", why[320];
	cl_int err = clu_device(0, &cl->dev);

	if (err) {
		snprintf(why, sizeof(why), "no OpenCL device: %s (%d)", clu_strerror(err), err);
		tap_skip_all(why);
	}
	clGetDeviceInfo(cl->dev, CL_DEVICE_NAME, sizeof(name), name, NULL);
	cl->ctx = clCreateContext(NULL, 1, &cl->dev, NULL, NULL, &err);
	if (!err)
		cl->q = clu_queue(cl->ctx, cl->dev, 0, &err);
	if (err) {
		snprintf(why, sizeof(why), "cannot use OpenCL device %s: %s (%d)", name,
			 clu_strerror(err), err);
		tap_skip_all(why);
	}
	tap_diag("device: %s", name);
}

/*
 * One run of t at sz: inputs in host memory, copied to device buffers,
 * the kernel, outputs copied back, then verified. Returns the verify
 * result, or -EIO with a diagnostic on an OpenCL error.
 */
static int run_task(struct cl *cl, const struct tqk_task *t, cl_kernel k, struct tqk_size sz,
		    uint64_t seed, void *host[], struct tqk_mismatch *mm)
{
	cl_mem dev[TQK_MAX_BUFS] = { 0 };
	struct tqk_launch l;
	cl_int err = 0;
	int ret = tqk_plan(t, sz, &l);

	if (ret || (ret = tqk_fill(t, sz, seed, host)))
		return ret;
	for (uint32_t i = 0; i < l.nbufs && !err; i++)
		dev[i] = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, l.buf[i].bytes, NULL, &err);
	for (uint32_t i = 0; i < l.nbufs && !err; i++)
		if (l.buf[i].dir & TQK_IN)
			err = clEnqueueWriteBuffer(cl->q, dev[i], CL_FALSE, 0, l.buf[i].bytes,
						   host[i], 0, NULL, NULL);
	if (!err)
		err = tqk_cl_set_args(k, &l, dev);
	if (!err)
		err = tqk_cl_enqueue(cl->q, k, &l, 0, NULL, NULL);
	for (uint32_t i = 0; i < l.nbufs && !err; i++)
		if (l.buf[i].dir & TQK_OUT)
			err = clEnqueueReadBuffer(cl->q, dev[i], CL_FALSE, 0, l.buf[i].bytes,
						  host[i], 0, NULL, NULL);
	if (!err)
		err = clFinish(cl->q);
	for (uint32_t i = 0; i < l.nbufs; i++)
		if (dev[i])
			clReleaseMemObject(dev[i]);
	if (err) {
		tap_diag("%s n=%lu: %s (%d)", t->name, (unsigned long)sz.n, clu_strerror(err),
			 err);
		return -EIO;
	}
	return tqk_verify(t, sz, seed, host, mm);
}

/* Flip one bit high in a 32-bit element: any type's value changes a lot. */
static int corrupt_fails(const struct tqk_task *t, struct tqk_size sz, uint64_t seed,
			 void *host[], uint32_t buf, uint64_t index)
{
	uint32_t *word = (uint32_t *)host[buf] + index;
	struct tqk_mismatch mm;
	int ret;

	*word ^= 0x40000000;
	ret = tqk_verify(t, sz, seed, host, &mm);
	*word ^= 0x40000000;
	return ret == -EDOM;
}

static void test_task(struct cl *cl, const struct tqk_task *t, const struct tqk_size sz[2])
{
	void *host[TQK_MAX_BUFS] = { 0 };
	struct tqk_launch l = { 0 };
	struct tqk_mismatch mm;
	cl_program prog;
	cl_kernel k = NULL;
	char *log;
	cl_int err;

	err = clu_build(cl->ctx, cl->dev, t->source, NULL, &prog, &log);
	if (!err)
		k = clCreateKernel(prog, t->kernel, &err);
	if (!tap_ok(!err, "%s: build and create kernel %s", t->name, t->kernel)) {
		tap_diag("%s (%d)%s%s", clu_strerror(err), err, log ? "\n" : "", log ? log : "");
		free(log);
		return;
	}
	for (int s = 0; s < 2; s++) {
		uint32_t out = 0;
		int ret;

		ret = tqk_plan(t, sz[s], &l);
		for (uint32_t i = 0; i < l.nbufs; i++) {
			host[i] = malloc(l.buf[i].bytes);
			ret = host[i] ? ret : -ENOMEM;
			if (l.buf[i].dir & TQK_OUT)
				out = i;
		}
		if (!ret)
			ret = run_task(cl, t, k, sz[s], 1000 + s, host, &mm);
		if (!tap_ok(!ret, "%s n=%lu iters=%u: result matches the host reference", t->name,
			    (unsigned long)sz[s].n, sz[s].iters) && ret == -EDOM)
			tap_diag("buf %u [%lu]: got %.9g want %.9g tol %.3g", mm.buf,
				 (unsigned long)mm.index, mm.got, mm.want, mm.tol);
		if (!ret) {
			uint64_t words = l.buf[out].bytes / 4;

			tap_ok(corrupt_fails(t, sz[s], 1000 + s, host, out, words / 2) &&
			       corrupt_fails(t, sz[s], 1000 + s, host, out, words - 1),
			       "%s n=%lu: a corrupted output fails verification", t->name,
			       (unsigned long)sz[s].n);
		}
		for (uint32_t i = 0; i < l.nbufs; i++)
			free(host[i]);
	}
	clReleaseKernel(k);
	clReleaseProgram(prog);
}

static void test_build_error(struct cl *cl)
{
	static const char bad[] = "__kernel void broken(__global int *p) { p[0] = undeclared; }\n";
	cl_program prog;
	char *log;
	cl_int err;

	err = clu_build(cl->ctx, cl->dev, bad, NULL, &prog, &log);
	tap_ok(err == CL_BUILD_PROGRAM_FAILURE && log && strstr(log, "undeclared") && !prog,
	       "a compile error comes back with its build log");
	free(log);
}

int main(void)
{
	struct cl cl;

	set_pocl_cache();
	cl_open(&cl);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tqk_task *t = tqk_find(cases[i].name);

		if (tap_ok(t != NULL, "task %s exists", cases[i].name))
			test_task(&cl, t, cases[i].sz);
	}
	test_build_error(&cl);
	clReleaseCommandQueue(cl.q);
	clReleaseContext(cl.ctx);
	return tap_done();
}
