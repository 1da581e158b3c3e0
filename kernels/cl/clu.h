/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * clu.h - the OpenCL plumbing every part of tq that drives a device
 * shares (libclu.a): walking and choosing devices, opening one (its
 * context and the sizes work is planned by), in-order profiled queues, a
 * program built with its log, waiting for an event without spinning, the
 * profiling stamps of a finished command, copies between host and device,
 * host memory registered with a context (CL_MEM_USE_HOST_PTR, mapped for
 * good), and error names. usched, kernels/ (tqk_cl.h), tqcalib and tqbench
 * use it; the transfer calibration on top of it is clu_calib.h.
 *
 * Nothing here keeps state: the caller owns every OpenCL object. OpenCL
 * 1.2 API only, so NVIDIA's OpenCL 3.0 and PoCL both work. Link with
 * -lOpenCL.
 */
#ifndef CLU_H
#define CLU_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One device as clu_find() walks them. */
struct clu_dev {
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
cl_int clu_find(bool (*want)(const struct clu_dev *d, void *arg), void *arg,
		struct clu_dev *d);

/*
 * A user's choice of a device or platform: digits name its index, anything
 * else a part of its name, any case. NULL chooses every one.
 */
bool clu_match(const char *choice, unsigned int index, const char *name);

/* The index-th device counting across all platforms in their order. */
cl_int clu_device(unsigned int index, cl_device_id *dev);

/* An open device: its context and the sizes callers plan their work by. */
struct clu_ctx {
	struct clu_dev d;
	cl_context ctx;
	cl_uint cus;			/* compute units; 0 if the driver does not say */
	uint64_t max_alloc;		/* the largest buffer */
	uint64_t global_mem;
};

/*
 * Open the first device want(d, arg) takes (see clu_find()): a context on
 * it and its sizes. CL_SUCCESS, or the error (then nothing is left open);
 * c->d.dev is NULL when no device was taken.
 */
cl_int clu_open(struct clu_ctx *c, bool (*want)(const struct clu_dev *d, void *arg),
		void *arg);
void clu_close(struct clu_ctx *c);

/* clCreateCommandQueue: deprecated by OpenCL 2.0, kept by every driver. */
cl_command_queue clu_queue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
			   cl_int *err);

/*
 * n in-order queues with profiling, one per engine a caller drives. On an
 * error those made so far stay in q[] for the caller to release.
 */
cl_int clu_queues(const struct clu_ctx *c, cl_command_queue *q, unsigned int n);

/*
 * Build src for dev into *prog. When the compiler rejects it (returns
 * CL_BUILD_PROGRAM_FAILURE), *log gets the build log, NUL-terminated, to
 * free(); otherwise *log is NULL. log may be NULL.
 */
cl_int clu_build(cl_context ctx, cl_device_id dev, const char *src, const char *opts,
		 cl_program *prog, char **log);

/*
 * Wait for ev without clWaitForEvents(), which spins on NVIDIA: flush its
 * queue and sleep until it completes. CL_SUCCESS, or the error of setting
 * the callback, or the event's error status.
 */
cl_int clu_wait(cl_event ev);

/* Profiling stamps of a finished command, in the device's ns; 0 on error. */
uint64_t clu_start(cl_event ev);
uint64_t clu_end(cl_event ev);

/* A non-blocking copy of bytes from host to dev (htd) or back, after the wait list. */
cl_int clu_copy(cl_command_queue q, bool htd, cl_mem dev, size_t bytes, void *host,
		cl_uint nwait, const cl_event *wait, cl_event *ev);

/* A page-aligned anonymous mapping of len bytes, or NULL; clu_unmap() frees it. */
void *clu_mmap(size_t len);
void clu_unmap(void *p, size_t len);

/* Host memory registered with one context (CL_MEM_USE_HOST_PTR), mapped for good. */
struct clu_region {
	char *base;
	size_t len;
	cl_mem mem;
	char *map;		/* base as the device mapped it: copy from/to here */
};

/*
 * Register [base, base + len) with ctx and map it on q, waiting for the map
 * (the host may touch USE_HOST_PTR memory only while it is mapped).
 * CL_SUCCESS, or the error with nothing left registered.
 */
cl_int clu_region_add(cl_context ctx, cl_command_queue q, void *base, size_t len,
		      struct clu_region *r);
/*
 * Unmap and release r (nothing when r->mem is NULL). wait: until the unmap
 * is done, for callers that free the host memory next; else the unmap is
 * flushed and the release left to wait for it.
 */
void clu_region_del(cl_command_queue q, struct clu_region *r, bool wait);

static inline char *clu_host(const struct clu_region *r, uint64_t off)
{
	return r->map + off;
}

/* "CL_INVALID_VALUE" and the like, or "unknown OpenCL error". */
const char *clu_strerror(cl_int err);

/*
 * y = a + b x by least squares on the relative error (each point weighted
 * 1/y^2), so small and large sizes count alike; a is kept >= 0 (refit
 * through the origin if it came out negative). 0, or -1 for fewer than two
 * distinct x. (kernels/cl/fit.c: no OpenCL needed.)
 */
int clu_fit_line(const double *x, const double *y, size_t n, double *a, double *b);

/*
 * Median of num[i] / den[i] over the last k indices where both are > 0
 * (counting down from n - 1: the largest sizes of a sweep); 0 if none.
 */
double clu_tail_ratio(const double *num, const double *den, size_t n, size_t k);

#ifdef __cplusplus
}
#endif

#endif /* CLU_H */
