/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tqk_cl.h - the few OpenCL helpers every user of tqkernels.h needs:
 * pick a device, make a queue, build a program (with its log on failure),
 * set a kernel's arguments from a struct tqk_launch, enqueue it and wait
 * for an event. The caller owns every OpenCL object; nothing here keeps
 * state.
 *
 * OpenCL 1.2 API only, so NVIDIA's OpenCL 3.0 and PoCL both work. Link
 * with -lOpenCL.
 */
#ifndef TQK_CL_H
#define TQK_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdbool.h>

#include "tqkernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One device as tqk_cl_find() walks them. */
struct tqk_cl_dev {
	cl_platform_id plat;
	cl_device_id dev;
	cl_device_type type;
	unsigned int plat_index;	/* in clGetPlatformIDs() order */
	unsigned int index;		/* counting across all platforms in their order */
	char plat_name[128];
	char name[128];
};

/*
 * Walk every device of every platform in order until want(d, arg) says
 * yes; *d is that device. CL_DEVICE_NOT_FOUND when none is wanted, or
 * clGetPlatformIDs()'s error.
 */
cl_int tqk_cl_find(bool (*want)(const struct tqk_cl_dev *d, void *arg), void *arg,
		   struct tqk_cl_dev *d);

/*
 * A user's choice of a device or platform: digits name its index, anything
 * else a part of its name, any case. NULL chooses every one.
 */
bool tqk_cl_match(const char *choice, unsigned int index, const char *name);

/* The index-th device counting across all platforms in their order. */
cl_int tqk_cl_device(unsigned int index, cl_device_id *dev);

/* clCreateCommandQueue: deprecated by OpenCL 2.0, kept by every driver. */
cl_command_queue tqk_cl_queue(cl_context ctx, cl_device_id dev,
			      cl_command_queue_properties props, cl_int *err);

/*
 * Build src for dev into *prog. When the compiler rejects it (returns
 * CL_BUILD_PROGRAM_FAILURE), *log gets the build log, NUL-terminated, to
 * free(); otherwise *log is NULL. log may be NULL.
 */
cl_int tqk_cl_build(cl_context ctx, cl_device_id dev, const char *src, const char *opts,
		    cl_program *prog, char **log);

/* Set every kernel argument l describes; bufs[i] backs l->buf[i]. */
cl_int tqk_cl_set_args(cl_kernel k, const struct tqk_launch *l, const cl_mem bufs[]);

/* Enqueue k over l's global and local work sizes. */
cl_int tqk_cl_enqueue(cl_command_queue q, cl_kernel k, const struct tqk_launch *l,
		      cl_uint nwait, const cl_event *wait, cl_event *ev);

/*
 * Wait for ev without clWaitForEvents(), which spins on NVIDIA: flush its
 * queue and sleep until it completes. CL_SUCCESS, or the error of setting
 * the callback, or the event's error status.
 */
cl_int tqk_cl_wait(cl_event ev);

/* "CL_INVALID_VALUE" and the like, or "unknown OpenCL error". */
const char *tqk_cl_strerror(cl_int err);

#ifdef __cplusplus
}
#endif

#endif /* TQK_CL_H */
