// SPDX-License-Identifier: GPL-2.0
/* cl.c - the OpenCL helpers of tqk_cl.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tqk_cl.h"

#define MAX_PLATFORMS	16
#define MAX_DEVICES	64

cl_int tqk_cl_find(bool (*want)(const struct tqk_cl_dev *d, void *arg), void *arg,
		   struct tqk_cl_dev *d)
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

bool tqk_cl_match(const char *choice, unsigned int index, const char *name)
{
	if (!choice)
		return true;
	if (*choice && strspn(choice, "0123456789") == strlen(choice))
		return strtoul(choice, NULL, 10) == index;
	return strcasestr(name, choice);
}

static bool has_index(const struct tqk_cl_dev *d, void *index)
{
	return d->index == *(unsigned int *)index;
}

cl_int tqk_cl_device(unsigned int index, cl_device_id *dev)
{
	struct tqk_cl_dev d;
	cl_int err = tqk_cl_find(has_index, &index, &d);

	if (!err)
		*dev = d.dev;
	return err;
}

cl_command_queue tqk_cl_queue(cl_context ctx, cl_device_id dev,
			      cl_command_queue_properties props, cl_int *err)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return clCreateCommandQueue(ctx, dev, props, err);
#pragma GCC diagnostic pop
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

cl_int tqk_cl_build(cl_context ctx, cl_device_id dev, const char *src, const char *opts,
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

cl_int tqk_cl_set_args(cl_kernel k, const struct tqk_launch *l, const cl_mem bufs[])
{
	for (cl_uint i = 0; i < l->nargs; i++) {
		const struct tqk_arg *a = &l->arg[i];
		cl_int err;

		if (a->kind == TQK_ARG_BUF)
			err = clSetKernelArg(k, i, sizeof(cl_mem), &bufs[a->buf]);
		else
			err = clSetKernelArg(k, i, a->size, a->val);
		if (err)
			return err;
	}
	return CL_SUCCESS;
}

cl_int tqk_cl_enqueue(cl_command_queue q, cl_kernel k, const struct tqk_launch *l,
		      cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	return clEnqueueNDRangeKernel(q, k, l->dim, NULL, l->global, l->local, nwait, wait, ev);
}

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

cl_int tqk_cl_wait(cl_event ev)
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

const char *tqk_cl_strerror(cl_int err)
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
