// SPDX-License-Identifier: GPL-2.0
/*
 * cl.c - the OpenCL helpers of tqk_cl.h that know struct tqk_launch; the
 * rest of the plumbing (devices, queues, builds, waits) is kernels/cl/util.c's.
 */
#include "tqk_cl.h"

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
