// SPDX-License-Identifier: GPL-2.0
/*
 * test_conform.c - what OpenCL specifies for every call libtqcl.so
 * intercepts, checked on plain OpenCL: argument errors, blocking semantics,
 * event status and types, the order of an in-order queue, callbacks,
 * profiling, retain and release, and data through every mix of captured and
 * passed-through commands. It never links tq: libtq/layer/tests/conform.sh runs
 * it on the driver alone and under the layer, and the two runs must print
 * the same lines (each check's name carries the codes it saw), while the
 * layer's counters prove that the capturable part was captured.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <string.h>
#include <unistd.h>

#include "selftests/tap.h"

#define N 4096

static const char *src =
	"__kernel void t_add(__global const int *a, __global const int *b, __global int *c, int k)\n"
	"{ size_t i = get_global_id(0); c[i] = a[i] + b[i] * k; }\n"
	"__kernel void t_inc(__global int *a)\n"
	"{ a[get_global_id(0)] += 1; }\n"
	"__kernel void t_scal(__global int *o, char c, short s, long l, uint u)\n"
	"{ size_t i = get_global_id(0); o[i] = c + s + (int)l + (int)u + (int)i; }\n"
	"__kernel void t_local(__global int *a, __local int *tmp)\n"
	"{ size_t l = get_local_id(0); tmp[l] = a[get_global_id(0)];\n"
	"  barrier(CLK_LOCAL_MEM_FENCE); a[get_global_id(0)] = tmp[get_local_size(0) - 1 - l]; }\n"
	"__kernel void t_vec(__global int *o, int4 v)\n"
	"{ o[get_global_id(0)] = v.x + v.y + v.z + v.w; }\n"
	"__kernel void t_copy(__global int *d, __global const int *s)\n"
	"{ size_t i = get_global_id(0); d[i] = s[i] + 1; }\n"
	"__kernel void t_one(__global int *a)\n"
	"{ a[0] = 42; }\n";

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q, q2;
static cl_program prog;
static int a[N], b[N], c[N];

static cl_mem buf(cl_mem_flags f, const void *host)
{
	cl_int err;
	cl_mem m = clCreateBuffer(ctx, f, sizeof(int) * N, (void *)host, &err);

	if (!m) {
		printf("Bail out! clCreateBuffer: %d\n", err);
		exit(1);
	}
	return m;
}

static cl_kernel kern(const char *name)
{
	cl_int err;
	cl_kernel k = clCreateKernel(prog, name, &err);

	if (!k) {
		printf("Bail out! clCreateKernel(%s): %d\n", name, err);
		exit(1);
	}
	return k;
}

static cl_int status(cl_event e)
{
	cl_int st = 1234;

	clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
	return st;
}

static cl_command_type ctype(cl_event e)
{
	cl_command_type t = 0;

	clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL);
	return t;
}

static int check_add(const int *out, int k)
{
	for (int i = 0; i < N; i++)
		if (out[i] != a[i] + b[i] * k)
			return 0;
	return 1;
}

static void fill(void)
{
	for (int i = 0; i < N; i++) {
		a[i] = i * 3 + 1;
		b[i] = 7 - i;
	}
}

/* clEnqueueWriteBuffer and clEnqueueReadBuffer: errors, then semantics. */
static void test_rw(void)
{
	cl_mem m = buf(CL_MEM_READ_WRITE, NULL), hro = buf(CL_MEM_HOST_READ_ONLY, NULL);
	cl_mem hwo = buf(CL_MEM_HOST_WRITE_ONLY, NULL);
	cl_event e = NULL, e2 = NULL;
	cl_int err;
	size_t sz = sizeof(int) * N;

	err = clEnqueueWriteBuffer(NULL, m, CL_TRUE, 0, sz, a, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_COMMAND_QUEUE, "write: NULL queue: %d", err);
	err = clEnqueueWriteBuffer(q, NULL, CL_TRUE, 0, sz, a, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_MEM_OBJECT, "write: NULL buffer: %d", err);
	err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sz, NULL, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_VALUE, "write: NULL pointer: %d", err);
	err = clEnqueueWriteBuffer(q, m, CL_TRUE, 4, sz, a, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_VALUE, "write: past the end: %d", err);
	/* CL_INVALID_VALUE in OpenCL 1.x; PoCL 3.1 accepts it: conform.sh compares */
	err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 0, a, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_VALUE || err == CL_SUCCESS, "write: zero size: %d", err);
	err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sz, a, 1, NULL, NULL);
	tap_ok(err == CL_INVALID_EVENT_WAIT_LIST, "write: 1 event, NULL list: %d", err);
	err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sz, a, 0, &e, NULL);
	tap_ok(err == CL_INVALID_EVENT_WAIT_LIST, "write: 0 events, a list: %d", err);
	err = clEnqueueWriteBuffer(q, hro, CL_TRUE, 0, sz, a, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_OPERATION, "write: host-read-only buffer: %d", err);
	err = clEnqueueReadBuffer(q, hwo, CL_TRUE, 0, sz, c, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_OPERATION, "read: host-write-only buffer: %d", err);
	err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sz + 4, c, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_VALUE, "read: past the end: %d", err);
	err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, sz, NULL, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_VALUE, "read: NULL pointer: %d", err);

	/* a blocking write is complete on return; its event says so */
	err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sz, a, 0, NULL, &e);
	tap_ok(!err && status(e) == CL_COMPLETE, "write: blocking, complete on return: %d %d", err,
	       status(e));
	tap_ok(ctype(e) == CL_COMMAND_WRITE_BUFFER, "write: event type %#x", ctype(e));
	{
		cl_command_queue eq = NULL;
		cl_context ec = NULL;

		clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof(eq), &eq, NULL);
		clGetEventInfo(e, CL_EVENT_CONTEXT, sizeof(ec), &ec, NULL);
		tap_ok(eq == q && ec == ctx, "write: event queue and context");
		err = clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, 1, &ec, NULL);
		tap_ok(err == CL_INVALID_VALUE, "event info: short buffer: %d", err);
	}
	err = clSetUserEventStatus(e, CL_COMPLETE);
	tap_ok(err == CL_INVALID_EVENT, "a command's event is not a user event: %d", err);
	clReleaseEvent(e);

	/* a non-blocking read of part of it, then the rest: the data round-trips */
	memset(c, 0, sizeof(c));
	err = clEnqueueReadBuffer(q, m, CL_FALSE, 0, sz / 2, c, 0, NULL, &e);
	err |= clEnqueueReadBuffer(q, m, CL_FALSE, sz / 2, sz / 2, c + N / 2, 1, &e, &e2);
	err |= clWaitForEvents(1, &e2);
	tap_ok(!err && status(e) == CL_COMPLETE && status(e2) == CL_COMPLETE &&
	       !memcmp(a, c, sz), "read: two halves, non-blocking, waited for");
	tap_ok(ctype(e2) == CL_COMMAND_READ_BUFFER, "read: event type %#x", ctype(e2));
	clReleaseEvent(e);
	clReleaseEvent(e2);

	/* a partial write over data only the driver's buffer holds */
	{
		cl_mem d = buf(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b);

		err = clEnqueueWriteBuffer(q, d, CL_TRUE, 8, 8, a, 0, NULL, NULL);
		err |= clEnqueueReadBuffer(q, d, CL_TRUE, 0, sz, c, 0, NULL, NULL);
		tap_ok(!err && c[0] == b[0] && c[1] == b[1] && c[2] == a[0] && c[3] == a[1] &&
		       !memcmp(c + 4, b + 4, sz - 16), "write: part of a buffer made from host data");
		clReleaseMemObject(d);
	}
	clReleaseMemObject(m);
	clReleaseMemObject(hro);
	clReleaseMemObject(hwo);
}

static void CL_CALLBACK on_complete(cl_event e, cl_int st, void *ud)
{
	(void)e;
	__atomic_store_n((int *)ud, st == CL_COMPLETE ? 1 : -1, __ATOMIC_RELEASE);
}

/* clEnqueueNDRangeKernel and clEnqueueTask: errors, events, data. */
static void test_kernel(void)
{
	cl_mem ma = buf(CL_MEM_READ_ONLY, NULL), mb = buf(CL_MEM_READ_ONLY, NULL);
	cl_mem mc = buf(CL_MEM_WRITE_ONLY, NULL);
	cl_kernel k = kern("t_add");
	size_t g = N, l = 64, big = 1 << 20, off = 16;
	cl_event ek = NULL, er = NULL;
	int k3 = 3, cb = 0;
	cl_int err;

	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_KERNEL_ARGS, "kernel: arguments not set: %d", err);
	clSetKernelArg(k, 0, sizeof(ma), &ma);
	clSetKernelArg(k, 1, sizeof(mb), &mb);
	clSetKernelArg(k, 2, sizeof(mc), &mc);
	err = clSetKernelArg(k, 3, sizeof(k3), &k3);
	tap_ok(!err, "kernel: arguments set");
	err = clSetKernelArg(k, 4, sizeof(k3), &k3);
	tap_ok(err == CL_INVALID_ARG_INDEX, "kernel: argument 4 of 4: %d", err);
	err = clEnqueueNDRangeKernel(q, k, 0, NULL, &g, NULL, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_WORK_DIMENSION, "kernel: work_dim 0: %d", err);
	err = clEnqueueNDRangeKernel(q, k, 4, NULL, &g, NULL, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_WORK_DIMENSION, "kernel: work_dim 4: %d", err);
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &big, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_WORK_GROUP_SIZE || err == CL_INVALID_WORK_ITEM_SIZE,
	       "kernel: local size over the device's: %d", err);
	err = clEnqueueNDRangeKernel(NULL, k, 1, NULL, &g, NULL, 0, NULL, NULL);
	tap_ok(err == CL_INVALID_COMMAND_QUEUE, "kernel: NULL queue: %d", err);

	/* write, kernel, read on one in-order queue: the pattern the layer captures */
	fill();
	memset(c, 0, sizeof(c));
	err = clEnqueueWriteBuffer(q, ma, CL_FALSE, 0, sizeof(a), a, 0, NULL, NULL);
	err |= clEnqueueWriteBuffer(q, mb, CL_FALSE, 0, sizeof(b), b, 0, NULL, NULL);
	err |= clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &ek);
	tap_ok(!err && ctype(ek) == CL_COMMAND_NDRANGE_KERNEL, "kernel: enqueued, event type %#x",
	       ctype(ek));
	err = clSetEventCallback(ek, CL_COMPLETE, on_complete, &cb);
	tap_ok(!err, "kernel: callback set: %d", err);
	err = clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof(c), c, 0, NULL, &er);
	tap_ok(!err && check_add(c, 3), "kernel: blocking read has the result");
	tap_ok(status(ek) == CL_COMPLETE && status(er) == CL_COMPLETE,
	       "kernel: in order: its event is complete when the later read is");
	for (int i = 0; i < 2000 && !__atomic_load_n(&cb, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	tap_ok(cb == 1, "kernel: callback ran with CL_COMPLETE: %d", cb);
	{
		cl_ulong t = 0;

		err = clGetEventProfilingInfo(ek, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL);
		tap_ok(err == CL_PROFILING_INFO_NOT_AVAILABLE,
		       "kernel: no profiling on a queue without it: %d", err);
	}
	err = clRetainEvent(ek);
	err |= clReleaseEvent(ek);
	tap_ok(!err && status(ek) == CL_COMPLETE, "kernel: retain and release its event");
	clReleaseEvent(ek);
	clReleaseEvent(er);

	/* the same launch again with another scalar, no event asked for */
	k3 = -2;
	clSetKernelArg(k, 3, sizeof(k3), &k3);
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
	err |= clFinish(q);
	err |= clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && check_add(c, -2), "kernel: again, a new scalar, after clFinish");

	/* a global offset: the driver's */
	memset(c, 0, sizeof(c));
	clEnqueueWriteBuffer(q, mc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	g = N - off;
	err = clEnqueueNDRangeKernel(q, k, 1, &off, &g, NULL, 0, NULL, NULL);
	err |= clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && c[0] == 0 && c[off - 1] == 0 && c[off] == a[off] - 2 * b[off] &&
	       c[N - 1] == a[N - 1] - 2 * b[N - 1], "kernel: global offset");

	/* the input released while the kernel may run: the result is still right */
	{
		cl_mem t = buf(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a);

		g = N;
		clSetKernelArg(k, 0, sizeof(t), &t);
		err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
		err |= clReleaseMemObject(t);
		err |= clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && check_add(c, -2), "kernel: input released after the launch");
		clSetKernelArg(k, 0, sizeof(ma), &ma);
	}

	/* clEnqueueTask */
	{
		cl_kernel one = kern("t_one");
		cl_mem m = buf(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b);

		clSetKernelArg(one, 0, sizeof(m), &m);
		err = clEnqueueTask(q, one, 0, NULL, &ek);
		err |= clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && c[0] == 42 && c[1] == b[1] && c[N - 1] == b[N - 1] &&
		       ctype(ek) == CL_COMMAND_NDRANGE_KERNEL, "task: one work-item, the rest kept");
		clReleaseEvent(ek);
		clReleaseMemObject(m);
		clReleaseKernel(one);
	}
	clReleaseKernel(k);
	clReleaseMemObject(ma);
	clReleaseMemObject(mb);
	clReleaseMemObject(mc);
}

/* Arguments tq cannot carry, and commands the layer never captures, between captured ones. */
static void test_mixed(void)
{
	cl_mem m = buf(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a), d = buf(CL_MEM_READ_WRITE, NULL);
	cl_kernel inc = kern("t_inc"), loc = kern("t_local"), vec = kern("t_vec");
	cl_kernel scal = kern("t_scal"), cp = kern("t_copy");
	size_t g = N, l = 64;
	cl_int err;
	int *p;

	fill();
	clSetKernelArg(inc, 0, sizeof(m), &m);
	err = clEnqueueNDRangeKernel(q, inc, 1, NULL, &g, NULL, 0, NULL, NULL);
	err |= clEnqueueNDRangeKernel(q, inc, 1, NULL, &g, NULL, 0, NULL, NULL);
	/* a copy by the driver sees what the kernels wrote */
	err |= clEnqueueCopyBuffer(q, m, d, 0, 0, sizeof(a), 0, NULL, NULL);
	err |= clEnqueueReadBuffer(q, d, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && c[0] == a[0] + 2 && c[N - 1] == a[N - 1] + 2,
	       "inout kernel twice, then clEnqueueCopyBuffer");
	/* a fill by the driver, then a kernel on it */
	{
		int pat = 5;

		err = clEnqueueFillBuffer(q, m, &pat, sizeof(pat), 0, sizeof(a), 0, NULL, NULL);
		err |= clEnqueueNDRangeKernel(q, inc, 1, NULL, &g, NULL, 0, NULL, NULL);
		err |= clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && c[0] == 6 && c[N - 1] == 6, "clEnqueueFillBuffer, then a kernel");
	}
	/* mapped: the driver's; written through the mapping, then a kernel */
	p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 0, sizeof(a), 0, NULL, NULL, &err);
	tap_ok(p && !err && p[0] == 6, "map after a kernel sees its result: %d", err);
	if (p) {
		for (int i = 0; i < N; i++)
			p[i] = i;
		err = clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
		err |= clEnqueueNDRangeKernel(q, inc, 1, NULL, &g, NULL, 0, NULL, NULL);
		err |= clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && c[0] == 1 && c[N - 1] == N, "unmap, then a kernel sees the writes");
	}
	/* local memory: the driver's */
	clSetKernelArg(loc, 0, sizeof(m), &m);
	clSetKernelArg(loc, 1, l * sizeof(int), NULL);
	err = clEnqueueNDRangeKernel(q, loc, 1, NULL, &g, &l, 0, NULL, NULL);
	err |= clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && c[0] == 64 && c[63] == 1 && c[64] == 128, "a __local argument");
	/* a 16-byte scalar: the driver's */
	{
		cl_int4 v = { { 1, 2, 3, 4 } };

		clSetKernelArg(vec, 0, sizeof(d), &d);
		clSetKernelArg(vec, 1, sizeof(v), &v);
		err = clEnqueueNDRangeKernel(q, vec, 1, NULL, &g, NULL, 0, NULL, NULL);
		err |= clEnqueueReadBuffer(q, d, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && c[0] == 10 && c[N - 1] == 10, "an int4 argument");
	}
	/* scalars of 1, 2, 8 and 4 bytes */
	{
		cl_char ch = -3;
		cl_short sh = 300;
		cl_long lo = 100000;
		cl_uint u = 7;

		clSetKernelArg(scal, 0, sizeof(d), &d);
		clSetKernelArg(scal, 1, sizeof(ch), &ch);
		clSetKernelArg(scal, 2, sizeof(sh), &sh);
		clSetKernelArg(scal, 3, sizeof(lo), &lo);
		clSetKernelArg(scal, 4, sizeof(u), &u);
		err = clEnqueueNDRangeKernel(q, scal, 1, NULL, &g, NULL, 0, NULL, NULL);
		err |= clEnqueueReadBuffer(q, d, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && c[0] == 100304 && c[N - 1] == 100304 + N - 1,
		       "char, short, long and uint arguments");
	}
	/* one writable buffer bound twice: the driver's */
	clSetKernelArg(cp, 0, sizeof(m), &m);
	clSetKernelArg(cp, 1, sizeof(m), &m);
	err = clEnqueueNDRangeKernel(q, cp, 1, NULL, &g, NULL, 0, NULL, NULL);
	err |= clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && c[0] == 65 && c[63] == 2, "one buffer as two arguments");
	/* a sub-buffer of a buffer a kernel wrote */
	{
		cl_buffer_region r = { 256, 256 };
		cl_mem s = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
		int x[64];

		err |= clEnqueueReadBuffer(q, s, CL_TRUE, 0, sizeof(x), x, 0, NULL, NULL);
		tap_ok(s && !err && x[0] == c[64] && x[63] == c[127], "a sub-buffer sees the data");
		if (s)
			clReleaseMemObject(s);
	}
	clReleaseKernel(inc);
	clReleaseKernel(loc);
	clReleaseKernel(vec);
	clReleaseKernel(scal);
	clReleaseKernel(cp);
	clReleaseMemObject(m);
	clReleaseMemObject(d);
}

/* Events across queues, user events, markers. */
static void test_events(void)
{
	cl_mem m = buf(CL_MEM_READ_WRITE, NULL), d = buf(CL_MEM_READ_WRITE, NULL);
	cl_kernel cp = kern("t_copy");
	cl_event ue, ew, ek, er, mk;
	size_t g = N;
	cl_int err;

	fill();
	ue = clCreateUserEvent(ctx, &err);
	/* a write that waits for the program's user event */
	err |= clEnqueueWriteBuffer(q, m, CL_FALSE, 0, sizeof(a), a, 1, &ue, &ew);
	clSetKernelArg(cp, 0, sizeof(d), &d);
	clSetKernelArg(cp, 1, sizeof(m), &m);
	err |= clEnqueueNDRangeKernel(q, cp, 1, NULL, &g, NULL, 0, NULL, &ek);
	err |= clFlush(q);
	usleep(100000);
	tap_ok(!err && status(ew) > CL_COMPLETE && status(ek) > CL_COMPLETE,
	       "user event: the commands after it wait");
	clSetUserEventStatus(ue, CL_COMPLETE);
	err = clEnqueueReadBuffer(q, d, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && c[0] == a[0] + 1 && c[N - 1] == a[N - 1] + 1 && status(ek) == CL_COMPLETE,
	       "user event set: they ran, in order");
	clReleaseEvent(ue);
	clReleaseEvent(ew);
	clReleaseEvent(ek);

	/* a kernel on q, a read on q2 that waits for its event */
	err = clEnqueueWriteBuffer(q, m, CL_FALSE, 0, sizeof(b), b, 0, NULL, NULL);
	err |= clEnqueueNDRangeKernel(q, cp, 1, NULL, &g, NULL, 0, NULL, &ek);
	err |= clFlush(q);
	err |= clEnqueueReadBuffer(q2, d, CL_FALSE, 0, sizeof(c), c, 1, &ek, &er);
	err |= clWaitForEvents(1, &er);
	tap_ok(!err && c[0] == b[0] + 1 && c[N - 1] == b[N - 1] + 1, "across queues, by event");
	/* a marker after captured work completes after it */
	err = clEnqueueNDRangeKernel(q, cp, 1, NULL, &g, NULL, 0, NULL, NULL);
	err |= clEnqueueMarkerWithWaitList(q, 0, NULL, &mk);
	err |= clWaitForEvents(1, &mk);
	err |= clEnqueueReadBuffer(q, d, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
	tap_ok(!err && status(mk) == CL_COMPLETE && c[0] == b[0] + 1, "marker after a kernel");
	{
		cl_event list[2] = { ek, mk };

		err = clWaitForEvents(2, list);
		tap_ok(!err, "clWaitForEvents on a kernel's and a marker's events: %d", err);
	}
	clReleaseEvent(ek);
	clReleaseEvent(er);
	clReleaseEvent(mk);
	clReleaseKernel(cp);
	clReleaseMemObject(m);
	clReleaseMemObject(d);
}

/* Out-of-order and profiling queues: the driver's, with the same results. */
static void test_queues(void)
{
	cl_queue_properties ooo[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
				      0 };
	cl_queue_properties pro[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
	cl_mem m = buf(CL_MEM_READ_WRITE, NULL);
	cl_kernel inc = kern("t_inc");
	size_t g = N;
	cl_event e = NULL;
	cl_int err;
	cl_command_queue qo = clCreateCommandQueueWithProperties(ctx, dev, ooo, &err);
	cl_command_queue qp = clCreateCommandQueueWithProperties(ctx, dev, pro, &err);

	fill();
	clSetKernelArg(inc, 0, sizeof(m), &m);
	if (qo) {
		err = clEnqueueWriteBuffer(qo, m, CL_TRUE, 0, sizeof(a), a, 0, NULL, &e);
		err |= clEnqueueNDRangeKernel(qo, inc, 1, NULL, &g, NULL, 1, &e, NULL);
		err |= clFinish(qo);
		err |= clEnqueueReadBuffer(qo, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		tap_ok(!err && c[0] == a[0] + 1, "out-of-order queue");
		clReleaseEvent(e);
		clReleaseCommandQueue(qo);
	} else {
		tap_skip("out-of-order queue", "the device has none");
	}
	if (qp) {
		cl_ulong t0 = 0, t1 = 0;

		err = clEnqueueWriteBuffer(qp, m, CL_TRUE, 0, sizeof(a), a, 0, NULL, NULL);
		err |= clEnqueueNDRangeKernel(qp, inc, 1, NULL, &g, NULL, 0, NULL, &e);
		err |= clEnqueueReadBuffer(qp, m, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL);
		err |= clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
		err |= clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
		tap_ok(!err && c[0] == a[0] + 1 && t1 >= t0 && t0, "profiling queue: times");
		clReleaseEvent(e);
		clReleaseCommandQueue(qp);
	}
	clReleaseKernel(inc);
	clReleaseMemObject(m);
}

/* Many launches in flight over independent buffers, then one clFinish. */
static void test_many(void)
{
	enum { M = 16 };
	cl_mem in[M], out[M];
	cl_kernel cp = kern("t_copy");
	static int res[M][N], inp[M][N];
	size_t g = N;
	cl_int err = 0;
	int bad = 0;

	fill();
	for (int i = 0; i < M; i++) {
		in[i] = buf(CL_MEM_READ_ONLY, NULL);
		out[i] = buf(CL_MEM_WRITE_ONLY, NULL);
		/* a non-blocking write's memory is not the program's until it completes */
		memcpy(inp[i], a, sizeof(a));
		for (int j = 0; j < 4; j++)
			inp[i][j] = i * 1000 + j;
		err |= clEnqueueWriteBuffer(q, in[i], CL_FALSE, 0, sizeof(a), inp[i], 0, NULL, NULL);
		clSetKernelArg(cp, 0, sizeof(out[i]), &out[i]);
		clSetKernelArg(cp, 1, sizeof(in[i]), &in[i]);
		err |= clEnqueueNDRangeKernel(q, cp, 1, NULL, &g, NULL, 0, NULL, NULL);
		err |= clEnqueueReadBuffer(q, out[i], CL_FALSE, 0, sizeof(res[i]), res[i], 0, NULL,
					   NULL);
	}
	err |= clFinish(q);
	for (int i = 0; i < M; i++) {
		bad += res[i][0] != i * 1000 + 1 || res[i][3] != i * 1000 + 4 ||
		       res[i][N - 1] != a[N - 1] + 1;
		clReleaseMemObject(in[i]);
		clReleaseMemObject(out[i]);
	}
	tap_ok(!err && !bad, "16 write-kernel-read in flight, one clFinish: %d wrong", bad);
	clReleaseKernel(cp);
}

int main(void)
{
	cl_platform_id plat;
	cl_int err;

	if (clGetPlatformIDs(1, &plat, NULL) ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
		tap_skip_all("no OpenCL device");
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	q = clCreateCommandQueue(ctx, dev, 0, &err);
	q2 = clCreateCommandQueue(ctx, dev, 0, &err);
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	err = clBuildProgram(prog, 1, &dev, "-DUNUSED=1", NULL, NULL);
	if (err) {
		printf("Bail out! clBuildProgram: %d\n", err);
		return 1;
	}
	test_rw();
	test_kernel();
	test_mixed();
	test_events();
	test_queues();
	test_many();
	clReleaseProgram(prog);
	clReleaseCommandQueue(q2);
	clReleaseCommandQueue(q);
	err = clReleaseContext(ctx);
	tap_ok(!err, "release the context: %d", err);
	return tap_done();
}
