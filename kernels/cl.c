// SPDX-License-Identifier: GPL-2.0
/* cl.c - the OpenCL helpers of tqk_cl.h. */
#include <stdlib.h>

#include "tqk_cl.h"

cl_int tqk_cl_device(unsigned int index, cl_device_id *dev)
{
	cl_platform_id plats[16];
	cl_uint nplats, ndevs;
	cl_int err;

	err = clGetPlatformIDs(16, plats, &nplats);
	if (err)
		return err;
	for (cl_uint p = 0; p < nplats && p < 16; p++) {
		cl_device_id devs[64];

		if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &ndevs))
			continue;
		if (ndevs > 64)
			ndevs = 64;
		if (index < ndevs) {
			*dev = devs[index];
			return CL_SUCCESS;
		}
		index -= ndevs;
	}
	return CL_DEVICE_NOT_FOUND;
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
