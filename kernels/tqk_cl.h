/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tqk_cl.h - what running a kernels/ task on OpenCL needs beyond the
 * shared helpers of kernels/cl/clu.h (choosing a device, queues, building a
 * program with its log, waiting for an event, error names; included here):
 * set a kernel's arguments from a struct tqk_launch and enqueue it over its
 * work sizes. The caller owns every OpenCL object; nothing here keeps
 * state.
 *
 * OpenCL 1.2 API only, so NVIDIA's OpenCL 3.0 and PoCL both work. Link
 * libtqkernels.a, then libclu.a and -lOpenCL.
 */
#ifndef TQK_CL_H
#define TQK_CL_H

#include "kernels/cl/clu.h"
#include "tqkernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Set every kernel argument l describes; bufs[i] backs l->buf[i]. */
cl_int tqk_cl_set_args(cl_kernel k, const struct tqk_launch *l, const cl_mem bufs[]);

/* Enqueue k over l's global and local work sizes. */
cl_int tqk_cl_enqueue(cl_command_queue q, cl_kernel k, const struct tqk_launch *l,
		      cl_uint nwait, const cl_event *wait, cl_event *ev);

#ifdef __cplusplus
}
#endif

#endif /* TQK_CL_H */
