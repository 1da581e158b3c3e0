// SPDX-License-Identifier: GPL-2.0
/*
 * clcopyk - a copy-kernel-copy loop on plain OpenCL, for measuring the
 * layer: each iteration writes two buffers, runs one kernel over them and
 * reads the result back (blocking), and checks it against the host's. It
 * never links tq: under OPENCL_LAYERS=libtqcl.so it is an unmodified
 * OpenCL program like any other, and without it runs on the driver alone.
 *
 *   clcopyk [-n ITERS] [-s BYTES] [-w WORK] [-W WARMUP] [-d DEVICE] [-o FILE] [-b DIR] [-k] [-q]
 *
 * It prints one line of key=value pairs: iterations per second, the
 * latency percentiles of one iteration, the host time of each enqueue call,
 * and the wall-clock span (CLOCK_REALTIME) for combining several processes;
 * -o FILE appends every iteration's latency (ns), one a line; -b DIR makes
 * processes start their timed iterations together: after the warm-up each
 * creates DIR/ready.PID and waits for DIR/go; -k creates, sets up and
 * releases a kernel object for every launch (clCreateKernel in a loop, as
 * pyopencl's prg.name(queue, ...) does).
 * Exit status 0 when every result was right, 1 otherwise.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <tq/clock.h>
#include <tq/version.h>

static const char *src =
	"__kernel void ckc_mix(__global const uint *a, __global const uint *b,\n"
	"		  __global uint *c, uint k, int work)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	uint x = a[i], y = b[i];\n"
	"\n"
	"	for (int j = 0; j < work; j++)\n"
	"		x = x * k + y;\n"
	"	c[i] = x;\n"
	"}\n";

/* CLOCK_REALTIME ns: the report's start_ns and end_ns are wall-clock times. */
static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p * (n - 1) + 0.5);

	return n ? v[i] / 1e3 : 0;
}

#define CHECK(what, err)							\
	do {									\
		if (err) {							\
			fprintf(stderr, "clcopyk: %s: OpenCL error %d\n", what,	\
				(int)(err));					\
			exit(1);						\
		}								\
	} while (0)

static cl_device_id pick_device(const char *want)
{
	cl_platform_id plats[8];
	cl_uint np = 0;

	CHECK("clGetPlatformIDs", clGetPlatformIDs(8, plats, &np));
	for (cl_uint p = 0; p < np; p++) {
		cl_device_id devs[8];
		cl_uint nd = 0;

		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 8, devs, &nd))
			continue;
		for (cl_uint d = 0; d < nd; d++) {
			char name[256] = "";

			clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
			if (!want || strcasestr(name, want))
				return devs[d];
		}
	}
	fprintf(stderr, "clcopyk: no OpenCL device%s%s\n", want ? " named " : "", want ? want : "");
	exit(1);
}

/* The kernel ckc_mix of @prog with its arguments set. */
static cl_kernel make_kernel(cl_program prog, cl_mem ma, cl_mem mb, cl_mem mc, cl_uint k,
			     int work)
{
	cl_int err;
	cl_kernel kern = clCreateKernel(prog, "ckc_mix", &err);

	CHECK("clCreateKernel", err);
	CHECK("clSetKernelArg", clSetKernelArg(kern, 0, sizeof(ma), &ma));
	CHECK("clSetKernelArg", clSetKernelArg(kern, 1, sizeof(mb), &mb));
	CHECK("clSetKernelArg", clSetKernelArg(kern, 2, sizeof(mc), &mc));
	CHECK("clSetKernelArg", clSetKernelArg(kern, 3, sizeof(k), &k));
	CHECK("clSetKernelArg", clSetKernelArg(kern, 4, sizeof(work), &work));
	return kern;
}

int main(int argc, char **argv)
{
	size_t bytes = 1 << 20, n, global;
	unsigned long iters = 100, warmup = 3;
	uint64_t *lat, call[3] = { 0 }, t0_real, t0, t1;
	const char *want = NULL, *lat_file = NULL, *barrier = NULL;
	int work = 16, opt, quiet = 0, fresh = 0;
	unsigned long bad = 0;
	cl_uint k = 1664525u;
	cl_uint *a, *b, *c;
	cl_int err;

	tq_version_opt(argc, argv, "clcopyk");
	while ((opt = getopt(argc, argv, "n:s:w:W:d:o:b:kqh")) != -1) {
		switch (opt) {
		case 'n': iters = strtoul(optarg, NULL, 0); break;
		case 's': bytes = strtoull(optarg, NULL, 0); break;
		case 'w': work = atoi(optarg); break;
		case 'W': warmup = strtoul(optarg, NULL, 0); break;
		case 'd': want = optarg; break;
		case 'o': lat_file = optarg; break;
		case 'b': barrier = optarg; break;
		case 'k': fresh = 1; break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: clcopyk [-n ITERS] [-s BYTES] [-w WORK] [-W WARMUP] [-d DEVICE] [-o FILE] [-b DIR] [-k] [-q]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	n = bytes / sizeof(cl_uint);
	if (!n || !iters || work < 0) {
		fprintf(stderr, "clcopyk: -s must be at least 4 bytes, -n at least 1, -w at least 0\n");
		return 2;
	}
	bytes = n * sizeof(cl_uint);
	global = n;

	cl_device_id dev = pick_device(want);
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK("clCreateContext", err);
	cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK("clCreateCommandQueue", err);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK("clCreateProgramWithSource", err);
	CHECK("clBuildProgram", clBuildProgram(prog, 1, &dev, "", NULL, NULL));
	cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
	CHECK("clCreateBuffer", err);
	cl_mem mb = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
	CHECK("clCreateBuffer", err);
	cl_mem mc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
	CHECK("clCreateBuffer", err);
	cl_kernel kern = fresh ? NULL : make_kernel(prog, ma, mb, mc, k, work);

	a = malloc(bytes);
	b = malloc(bytes);
	c = malloc(bytes);
	lat = calloc(iters, sizeof(*lat));
	if (!a || !b || !c || !lat) {
		fprintf(stderr, "clcopyk: out of memory\n");
		return 1;
	}

	t0_real = wall_ns();
	t0 = tq_now_ns();
	for (unsigned long it = 0; it < warmup + iters; it++) {
		uint64_t s = tq_now_ns(), u;
		unsigned int seed = it * 2654435761u + getpid();

		for (size_t i = 0; i < n; i++) {
			a[i] = seed + i;
			b[i] = seed ^ (i * 40503u);
		}
		if (it == warmup) {
			if (barrier) {
				char path[4096];
				FILE *f;

				snprintf(path, sizeof(path), "%s/ready.%d", barrier, (int)getpid());
				f = fopen(path, "w");
				if (f)
					fclose(f);
				snprintf(path, sizeof(path), "%s/go", barrier);
				while (access(path, F_OK))
					usleep(1000);
				s = tq_now_ns();
			}
			t0_real = wall_ns();
			t0 = s;
		}
		/* the warm-up's calls build programs: only the timed ones count */
		u = tq_now_ns();
		CHECK("clEnqueueWriteBuffer",
		      clEnqueueWriteBuffer(q, ma, CL_FALSE, 0, bytes, a, 0, NULL, NULL));
		CHECK("clEnqueueWriteBuffer",
		      clEnqueueWriteBuffer(q, mb, CL_FALSE, 0, bytes, b, 0, NULL, NULL));
		if (it >= warmup)
			call[0] += tq_now_ns() - u;
		u = tq_now_ns();
		if (fresh)
			kern = make_kernel(prog, ma, mb, mc, k, work);
		CHECK("clEnqueueNDRangeKernel",
		      clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, NULL, 0, NULL, NULL));
		if (fresh) {
			CHECK("clReleaseKernel", clReleaseKernel(kern));
			kern = NULL;
		}
		if (it >= warmup)
			call[1] += tq_now_ns() - u;
		u = tq_now_ns();
		CHECK("clEnqueueReadBuffer",
		      clEnqueueReadBuffer(q, mc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
		if (it >= warmup)
			call[2] += tq_now_ns() - u;
		if (it >= warmup)
			lat[it - warmup] = tq_now_ns() - s;
		for (size_t i = 0; i < n; i++) {
			cl_uint x = a[i];

			for (int j = 0; j < work; j++)
				x = x * k + b[i];
			if (c[i] != x) {
				if (!bad && !quiet)
					fprintf(stderr, "clcopyk: iteration %lu: c[%zu] = %u, not %u\n",
						it, i, c[i], x);
				bad++;
				break;
			}
		}
	}
	t1 = tq_now_ns();
	CHECK("clFinish", clFinish(q));

	if (lat_file) {
		FILE *f = fopen(lat_file, "a");

		if (!f) {
			perror(lat_file);
			return 1;
		}
		for (unsigned long i = 0; i < iters; i++)
			fprintf(f, "%llu\n", (unsigned long long)lat[i]);
		fclose(f);
	}
	qsort(lat, iters, sizeof(*lat), cmp_u64);
	printf("clcopyk: pid=%d iters=%lu bytes=%zu work=%d wall_s=%.6f iter_per_s=%.2f "
	       "p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f call_write_us=%.2f "
	       "call_kernel_us=%.2f call_read_us=%.2f start_ns=%llu end_ns=%llu errors=%lu\n",
	       (int)getpid(), iters, bytes, work, (t1 - t0) / 1e9, iters / ((t1 - t0) / 1e9),
	       pct(lat, iters, 0.5), pct(lat, iters, 0.9), pct(lat, iters, 0.99),
	       pct(lat, iters, 1.0), call[0] / 2e3 / iters, call[1] / 1e3 / iters,
	       call[2] / 1e3 / iters,
	       (unsigned long long)t0_real,
	       (unsigned long long)(t0_real + (t1 - t0)), bad);

	clReleaseMemObject(ma);
	clReleaseMemObject(mb);
	clReleaseMemObject(mc);
	if (kern)
		clReleaseKernel(kern);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	free(a);
	free(b);
	free(c);
	free(lat);
	return bad ? 1 : 0;
}
