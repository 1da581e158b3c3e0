// SPDX-License-Identifier: GPL-2.0
/* util.c - the OpenCL helpers of clu.h, shared by usched, kernels/, tqcalib and tqbench. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernels/cl/clu.h"

#define MAX_PLATFORMS	16
#define MAX_DEVICES	64

/*
 * The OpenCL runtime keeps its allocations until exit: in SAN=1 builds
 * LeakSanitizer should report only ours. Here, so that every program that
 * drives a device through this library has it. Unused without -fsanitize.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpocl.so\nleak:libOpenCL.so\nleak:libLLVM\nleak:libclang\n"
	       "leak:libnvidia-opencl.so\n";
}

/* Devices */

cl_int clu_find(bool (*want)(const struct clu_dev *d, void *arg), void *arg,
		struct clu_dev *d)
{
	cl_platform_id plats[MAX_PLATFORMS];
	cl_uint nplats;
	cl_int err;

	memset(d, 0, sizeof(*d));
	err = clGetPlatformIDs(MAX_PLATFORMS, plats, &nplats);
	if (err)
		return err;
	for (cl_uint p = 0; p < nplats && p < MAX_PLATFORMS; p++) {
		cl_device_id devs[MAX_DEVICES];
		cl_uint ndevs;

		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &ndevs))
			continue;
		d->plat = plats[p];
		d->plat_index = p;
		memset(d->plat_name, 0, sizeof(d->plat_name));
		clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof(d->plat_name) - 1,
				  d->plat_name, NULL);
		for (cl_uint i = 0; i < ndevs && i < MAX_DEVICES; i++, d->index++) {
			d->dev = devs[i];
			d->type = 0;
			clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof(d->type), &d->type, NULL);
			memset(d->name, 0, sizeof(d->name));
			clGetDeviceInfo(devs[i], CL_DEVICE_NAME, sizeof(d->name) - 1, d->name,
					NULL);
			if (want(d, arg))
				return CL_SUCCESS;
		}
	}
	return CL_DEVICE_NOT_FOUND;
}

bool clu_match(const char *choice, unsigned int index, const char *name)
{
	if (!choice)
		return true;
	if (*choice && strspn(choice, "0123456789") == strlen(choice))
		return strtoul(choice, NULL, 10) == index;
	return strcasestr(name, choice);
}

static bool has_index(const struct clu_dev *d, void *index)
{
	return d->index == *(unsigned int *)index;
}

cl_int clu_device(unsigned int index, cl_device_id *dev)
{
	struct clu_dev d;
	cl_int err = clu_find(has_index, &index, &d);

	if (!err)
		*dev = d.dev;
	return err;
}

cl_int clu_open(struct clu_ctx *c, bool (*want)(const struct clu_dev *d, void *arg), void *arg)
{
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM, 0, 0 };
	cl_ulong global, max_alloc;
	cl_int err;

	memset(c, 0, sizeof(*c));
	err = clu_find(want, arg, &c->d);
	if (err) {
		memset(&c->d, 0, sizeof(c->d));
		return err;
	}
	clGetDeviceInfo(c->d.dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(c->cus), &c->cus, NULL);
	err = clGetDeviceInfo(c->d.dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL);
	err = err ?: clGetDeviceInfo(c->d.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc),
				     &max_alloc, NULL);
	if (err)
		return err;
	c->global_mem = global;
	c->max_alloc = max_alloc;
	props[1] = (cl_context_properties)c->d.plat;
	c->ctx = clCreateContext(props, 1, &c->d.dev, NULL, NULL, &err);
	if (err)
		c->ctx = NULL;
	return err;
}

void clu_close(struct clu_ctx *c)
{
	if (c->ctx)
		clReleaseContext(c->ctx);
	c->ctx = NULL;
}

/* Queues and programs */

cl_command_queue clu_queue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
			   cl_int *err)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return clCreateCommandQueue(ctx, dev, props, err);
#pragma GCC diagnostic pop
}

cl_int clu_queues(const struct clu_ctx *c, cl_command_queue *q, unsigned int n)
{
	cl_int err = CL_SUCCESS;

	for (unsigned int i = 0; i < n && !err; i++) {
		q[i] = clu_queue(c->ctx, c->d.dev, CL_QUEUE_PROFILING_ENABLE, &err);
		if (err)
			q[i] = NULL;
	}
	return err;
}

static char *build_log(cl_program prog, cl_device_id dev)
{
	size_t len = 0;
	char *log;

	if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len))
		return NULL;
	log = malloc(len + 1);
	if (!log)
		return NULL;
	if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL))
		len = 0;
	log[len] = '\0';
	return log;
}

cl_int clu_build(cl_context ctx, cl_device_id dev, const char *src, const char *opts,
		 cl_program *prog, char **log)
{
	cl_int err;

	if (log)
		*log = NULL;
	*prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	if (err)
		return err;
	err = clBuildProgram(*prog, 1, &dev, opts, NULL, NULL);
	if (err == CL_BUILD_PROGRAM_FAILURE && log)
		*log = build_log(*prog, dev);
	if (err) {
		clReleaseProgram(*prog);
		*prog = NULL;
	}
	return err;
}

/* Events */

struct waiter {
	int fd;
	cl_int status;
};

static void CL_CALLBACK waiter_done(cl_event ev, cl_int status, void *arg)
{
	struct waiter *w = arg;

	(void)ev;
	w->status = status;
	eventfd_write(w->fd, 1);	/* the last touch of w: the waiter may return */
}

cl_int clu_wait(cl_event ev)
{
	struct waiter w = { .fd = eventfd(0, EFD_CLOEXEC) };
	cl_command_queue q;
	eventfd_t v;
	cl_int err;

	if (w.fd < 0)
		return CL_OUT_OF_HOST_MEMORY;
	err = clSetEventCallback(ev, CL_COMPLETE, waiter_done, &w);
	if (!err && !clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof(q), &q, NULL) && q)
		clFlush(q);
	if (!err) {
		while (eventfd_read(w.fd, &v) && errno == EINTR)
			;
		err = w.status < 0 ? w.status : CL_SUCCESS;
	}
	close(w.fd);
	return err;
}

uint64_t clu_start(cl_event ev)
{
	cl_ulong t;

	return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL) ?
	       0 : t;
}

uint64_t clu_end(cl_event ev)
{
	cl_ulong t;

	return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t), &t, NULL) ? 0 : t;
}

/* Host memory */

cl_int clu_copy(cl_command_queue q, bool htd, cl_mem dev, size_t bytes, void *host,
		cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	if (htd)
		return clEnqueueWriteBuffer(q, dev, CL_FALSE, 0, bytes, host, nwait, wait, ev);
	return clEnqueueReadBuffer(q, dev, CL_FALSE, 0, bytes, host, nwait, wait, ev);
}

void *clu_mmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void clu_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

cl_int clu_region_add(cl_context ctx, cl_command_queue q, void *base, size_t len,
		      struct clu_region *r)
{
	cl_event ev;
	cl_int err;

	*r = (struct clu_region){ .base = base, .len = len };
	r->mem = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, len, base, &err);
	if (err) {
		r->mem = NULL;
		return err;
	}
	/*
	 * Mapped once for good; waiting through clu_wait() does not spin a
	 * core. Invalidating: the host's bytes are the truth, and a driver
	 * that took a copy at clCreateBuffer() (NVIDIA) would otherwise write
	 * that copy back over what the host wrote since, e.g. a client writing
	 * its arena while usched registers it.
	 */
	r->map = clEnqueueMapBuffer(q, r->mem, CL_FALSE, CL_MAP_WRITE_INVALIDATE_REGION, 0, len, 0,
				    NULL, &ev, &err);
	if (!err) {
		err = clu_wait(ev);
		clReleaseEvent(ev);
		if (err)
			clEnqueueUnmapMemObject(q, r->mem, r->map, 0, NULL, NULL);
	}
	if (err) {
		clReleaseMemObject(r->mem);
		r->mem = NULL;
		r->map = NULL;
	}
	return err;
}

void clu_region_del(cl_command_queue q, struct clu_region *r, bool wait)
{
	cl_event ev;

	if (!r->mem)
		return;
	if (!wait) {
		clEnqueueUnmapMemObject(q, r->mem, r->map, 0, NULL, NULL);
		clFlush(q);
	} else if (!clEnqueueUnmapMemObject(q, r->mem, r->map, 0, NULL, &ev)) {
		clu_wait(ev);
		clReleaseEvent(ev);
	}
	clReleaseMemObject(r->mem);
	r->mem = NULL;
}

const char *clu_strerror(cl_int err)
{
#define E(x) case x: return #x
	switch (err) {
	E(CL_SUCCESS);
	E(CL_DEVICE_NOT_FOUND);
	E(CL_DEVICE_NOT_AVAILABLE);
	E(CL_COMPILER_NOT_AVAILABLE);
	E(CL_MEM_OBJECT_ALLOCATION_FAILURE);
	E(CL_OUT_OF_RESOURCES);
	E(CL_OUT_OF_HOST_MEMORY);
	E(CL_PROFILING_INFO_NOT_AVAILABLE);
	E(CL_BUILD_PROGRAM_FAILURE);
	E(CL_MISALIGNED_SUB_BUFFER_OFFSET);
	E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
	E(CL_INVALID_VALUE);
	E(CL_INVALID_DEVICE);
	E(CL_INVALID_CONTEXT);
	E(CL_INVALID_QUEUE_PROPERTIES);
	E(CL_INVALID_COMMAND_QUEUE);
	E(CL_INVALID_HOST_PTR);
	E(CL_INVALID_MEM_OBJECT);
	E(CL_INVALID_BUFFER_SIZE);
	E(CL_INVALID_PROGRAM);
	E(CL_INVALID_PROGRAM_EXECUTABLE);
	E(CL_INVALID_KERNEL_NAME);
	E(CL_INVALID_KERNEL);
	E(CL_INVALID_ARG_INDEX);
	E(CL_INVALID_ARG_VALUE);
	E(CL_INVALID_ARG_SIZE);
	E(CL_INVALID_KERNEL_ARGS);
	E(CL_INVALID_WORK_DIMENSION);
	E(CL_INVALID_WORK_GROUP_SIZE);
	E(CL_INVALID_WORK_ITEM_SIZE);
	E(CL_INVALID_GLOBAL_OFFSET);
	E(CL_INVALID_EVENT_WAIT_LIST);
	E(CL_INVALID_EVENT);
	E(CL_INVALID_OPERATION);
	E(CL_INVALID_GLOBAL_WORK_SIZE);
	case -1001:	/* the ICD loader's: no platform installed */
		return "CL_PLATFORM_NOT_FOUND_KHR";
	}
#undef E
	return "unknown OpenCL error";
}
