// SPDX-License-Identifier: GPL-2.0
/*
 * clcopyk - a copy-kernel-copy loop on plain OpenCL, for measuring the
 * layer: each iteration writes two buffers, runs one kernel over them and
 * reads the result back (blocking), and checks it against the host's. It
 * never links tq: under OPENCL_LAYERS=libtqcl.so it is an unmodified
 * OpenCL program like any other, and without it runs on the driver alone.
 *
 *   clcopyk [-n ITERS] [-s BYTES] [-w WORK] [-W WARMUP] [-d DEVICE] [-o FILE] [-b DIR] [-k] [-q]
 *           [-r RATE [-j PHASE]]
 *
 * It prints one line of key=value pairs: iterations per second, the
 * latency percentiles of one iteration, the host time of each enqueue call,
 * and the wall-clock span (CLOCK_REALTIME) for combining several processes;
 * -o FILE appends every iteration's latency (ns), one a line; -b DIR makes
 * processes start their timed iterations together: after the warm-up each
 * creates DIR/ready.PID and waits for DIR/go; -k creates, sets up and
 * releases a kernel object for every launch (clCreateKernel in a loop, as
 * pyopencl's prg.name(queue, ...) does).
 *
 * -r RATE: the open loop of tqcl-bench --load. Iteration i is released at
 * RATE per second, (i + PHASE) / RATE seconds after the start (-j PHASE in
 * [0, 1) staggers processes), or at once when the one before ends later:
 * its latency runs from its release to its read's return, queueing
 * included. -r 0: back to back, the saturated run that measures capacity.
 * Either way the inputs are a few sets made before the timed loop and each
 * result is compared whole with the host's, so that the host's share of an
 * iteration is the program's OpenCL calls alone.
 *
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

/* What ckc_mix computes for element @i of @a and @b. */
static cl_uint mix(cl_uint a, cl_uint b, cl_uint k, int work)
{
	for (int j = 0; j < work; j++)
		a = a * k + b;
	return a;
}

/* The inputs of iteration @it into @a and @b (n elements). */
static void fill(cl_uint *a, cl_uint *b, size_t n, unsigned long it)
{
	unsigned int seed = it * 2654435761u + getpid();

	for (size_t i = 0; i < n; i++) {
		a[i] = seed + i;
		b[i] = seed ^ (i * 40503u);
	}
}

/* Sleep until @t (CLOCK_MONOTONIC ns, tq_now_ns()'s clock). */
static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
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

/* Paced runs (-r): inputs made before the loop, rotated so that a stale result shows. */
#define NSETS	3

int main(int argc, char **argv)
{
	size_t bytes = 1 << 20, n, global;
	unsigned long iters = 100, warmup = 3;
	uint64_t *lat, call[3] = { 0 }, t0_real, t0, t1, period = 0;
	const char *want = NULL, *lat_file = NULL, *barrier = NULL;
	int work = 16, opt, quiet = 0, fresh = 0;
	double rate = -1, phase = 0;
	unsigned long bad = 0;
	cl_uint k = 1664525u;
	cl_uint *a, *b, *c, *set[NSETS][3];
	cl_int err;

	tq_version_opt(argc, argv, "clcopyk");
	while ((opt = getopt(argc, argv, "n:s:w:W:d:o:b:r:j:kqh")) != -1) {
		switch (opt) {
		case 'n': iters = strtoul(optarg, NULL, 0); break;
		case 's': bytes = strtoull(optarg, NULL, 0); break;
		case 'w': work = atoi(optarg); break;
		case 'W': warmup = strtoul(optarg, NULL, 0); break;
		case 'd': want = optarg; break;
		case 'o': lat_file = optarg; break;
		case 'b': barrier = optarg; break;
		case 'r': rate = strtod(optarg, NULL); break;
		case 'j': phase = strtod(optarg, NULL); break;
		case 'k': fresh = 1; break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: clcopyk [-n ITERS] [-s BYTES] [-w WORK] [-W WARMUP] [-d DEVICE] [-o FILE] [-b DIR] [-k] [-q] [-r RATE [-j PHASE]]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	n = bytes / sizeof(cl_uint);
	if (!n || !iters || work < 0) {
		fprintf(stderr, "clcopyk: -s must be at least 4 bytes, -n at least 1, -w at least 0\n");
		return 2;
	}
	if ((rate != -1 && !(rate >= 0)) || !(phase >= 0 && phase < 1)) {
		fprintf(stderr, "clcopyk: -r takes iterations per second (0: back to back), -j a phase in [0, 1)\n");
		return 2;
	}
	if (rate > 0)
		period = (uint64_t)(1e9 / rate);
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
	for (int i = 0; rate >= 0 && i < NSETS; i++) {
		for (int j = 0; j < 3; j++) {
			set[i][j] = malloc(bytes);
			if (!set[i][j]) {
				fprintf(stderr, "clcopyk: out of memory\n");
				return 1;
			}
		}
		fill(set[i][0], set[i][1], n, i);
		for (size_t e = 0; e < n; e++)
			set[i][2][e] = mix(set[i][0][e], set[i][1][e], k, work);
	}

	t0_real = wall_ns();
	t0 = tq_now_ns();
	for (unsigned long it = 0; it < warmup + iters; it++) {
		uint64_t s = tq_now_ns(), u;
		const cl_uint *in_a = a, *in_b = b;

		if (rate >= 0) {
			in_a = set[it % NSETS][0];
			in_b = set[it % NSETS][1];
		} else {
			fill(a, b, n, it);
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
		if (it >= warmup && period) {
			/* its release: latency counts from there, however late it starts */
			s = t0 + (uint64_t)((it - warmup + phase) * period);
			if (s > tq_now_ns())
				sleep_until(s);
		}
		/* the warm-up's calls build programs: only the timed ones count */
		u = tq_now_ns();
		CHECK("clEnqueueWriteBuffer",
		      clEnqueueWriteBuffer(q, ma, CL_FALSE, 0, bytes, in_a, 0, NULL, NULL));
		CHECK("clEnqueueWriteBuffer",
		      clEnqueueWriteBuffer(q, mb, CL_FALSE, 0, bytes, in_b, 0, NULL, NULL));
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
		if (rate >= 0) {
			if (memcmp(c, set[it % NSETS][2], bytes)) {
				if (!bad && !quiet)
					fprintf(stderr, "clcopyk: iteration %lu: a wrong result\n", it);
				bad++;
			}
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			cl_uint x = mix(a[i], b[i], k, work);

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
	for (int i = 0; rate >= 0 && i < NSETS; i++)
		for (int j = 0; j < 3; j++)
			free(set[i][j]);
	return bad ? 1 : 0;
}
