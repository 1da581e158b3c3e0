/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tqkernels.h - tq's built-in tasks: the paper's real kernels and its
 * synthetic one, as pure data plus functions.
 *
 * A task is one OpenCL C 1.2 kernel with a fixed list of buffers. Its size is
 * struct tqk_size: n (the problem size; what n means is per task) and iters
 * (used by SYN alone). tqk_plan() turns a size into a struct tqk_launch:
 * buffer byte sizes and directions, kernel arguments (buffers by index,
 * scalars as raw bytes), work sizes and the kernel model's m (T = eta*m +
 * gamma). Nothing here touches OpenCL; tqk_cl.h has the few helpers that do.
 *
 * A run, with host memory the caller owns (an mmap'ed arena, say):
 *
 *	struct tqk_launch l;
 *	void *bufs[TQK_MAX_BUFS];
 *
 *	tqk_plan(t, sz, &l);
 *	for (i = 0; i < l.nbufs; i++)
 *		bufs[i] = arena_alloc(l.buf[i].bytes);
 *	tqk_fill(t, sz, seed, bufs);		inputs; outputs are poisoned
 *	... copy TQK_IN and TQK_INOUT buffers in, set args from l.arg[],
 *	    enqueue l.global/l.local, copy TQK_OUT and TQK_INOUT buffers out ...
 *	tqk_verify(t, sz, seed, bufs, &mm);	0, or -EDOM with mm filled in
 *
 * tqk_verify() regenerates the inputs from the seed, so the caller need not
 * keep them (INOUT buffers are overwritten by the device anyway).
 *
 * Functions return 0 or a negative errno: -EINVAL for a size the task does
 * not take (see tqk_size_ok()), -ENOMEM, -EDOM for a wrong result.
 */
#ifndef TQKERNELS_H
#define TQKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TQK_MAX_BUFS	6
#define TQK_MAX_ARGS	8

/* Direction of a buffer as the host sees it: copied in, out, or both. */
enum tqk_dir {
	TQK_IN = 1,
	TQK_OUT = 2,
	TQK_INOUT = 3,
};

struct tqk_size {
	uint64_t n;		/* problem size; see each task's n_what */
	uint32_t iters;		/* SYN: num_iterations; other tasks: 0 or 1 */
};

struct tqk_buf {
	uint64_t bytes;
	enum tqk_dir dir;
};

enum tqk_arg_kind {
	TQK_ARG_BUF,		/* a __global buffer: buf is the buffer index */
	TQK_ARG_SCALAR,		/* a by-value argument: size bytes of val */
};

struct tqk_arg {
	enum tqk_arg_kind kind;
	uint32_t buf;
	uint32_t size;
	unsigned char val[8];	/* host byte order, as clSetKernelArg wants */
};

struct tqk_launch {
	uint32_t nbufs;
	struct tqk_buf buf[TQK_MAX_BUFS];
	uint32_t nargs;		/* arg[i] is kernel argument i */
	struct tqk_arg arg[TQK_MAX_ARGS];
	uint32_t dim;		/* 1 or 2 */
	size_t global[2];
	size_t local[2];	/* never 0: every kernel has a fixed group shape */
	uint64_t m;		/* the kernel model's data size, T = eta*m + gamma */
};

/* First wrong element found by tqk_verify(). */
struct tqk_mismatch {
	uint32_t buf;		/* buffer index */
	uint64_t index;		/* element index in that buffer */
	double got;
	double want;
	double tol;		/* largest |got - want| accepted there */
};

struct tqk_task {
	const char *name;	/* as in the paper's Table 5 (real_task_ranges.csv) */
	const char *desc;
	const char *n_what;	/* what n counts, for humans */
	const char *source;	/* OpenCL C 1.2 program, NUL-terminated */
	const char *kernel;	/* __kernel function name in source */
	uint64_t n_min;		/* valid n: n_min <= n <= n_max, n % n_align == 0 */
	uint64_t n_max;
	uint32_t n_align;
	uint32_t iters_max;	/* SYN: largest iters; others 1 */

	/* Private to the library; use the tqk_* functions below. */
	void (*plan)(struct tqk_size sz, struct tqk_launch *l);
	void (*gen)(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst);
	int (*check)(struct tqk_size sz, uint64_t seed, void *const bufs[],
		     struct tqk_mismatch *mm);
	/* the size a launch names through its scalars or work size */
	struct tqk_size (*size_of)(const struct tqk_launch *l);
};

/* The table: tqk_ntasks entries, SYN last. */
extern const struct tqk_task *const tqk_tasks[];
extern const unsigned int tqk_ntasks;

/* The task named name (exact, case-sensitive), or NULL. */
const struct tqk_task *tqk_find(const char *name);

/* Nonzero if the task takes this size. */
int tqk_size_ok(const struct tqk_task *t, struct tqk_size sz);

/* The nearest valid n to n (clamped to the range, rounded to n_align). */
uint64_t tqk_round_n(const struct tqk_task *t, uint64_t n);

int tqk_plan(const struct tqk_task *t, struct tqk_size sz, struct tqk_launch *l);

/*
 * Whether a launch that someone else built (a client of a shared device)
 * keeps the kernel inside its own buffers: its arguments and work size
 * must be tqk_plan()'s for a size the task takes (the size read back from
 * its scalars or work size), except that the buffer an argument names may
 * be any of l->buf[] at least as long as the plan's buffer for it, and an
 * all-zero l->local stands for the plan's (every kernel requires its group
 * shape). Buffers no argument names, and directions, do not matter: the
 * kernel reaches only its arguments. Returns 0 or -EINVAL; on 0, *plan
 * (unless NULL) is the plan the launch was checked against.
 */
int tqk_launch_check(const struct tqk_task *t, const struct tqk_launch *l,
		     struct tqk_launch *plan);

/* Bytes copied host to device (IN + INOUT), device to host (OUT + INOUT),
 * and the model's m; all 0 for a size the task does not take. */
uint64_t tqk_bytes_in(const struct tqk_task *t, struct tqk_size sz);
uint64_t tqk_bytes_out(const struct tqk_task *t, struct tqk_size sz);
uint64_t tqk_m(const struct tqk_task *t, struct tqk_size sz);

/*
 * Fill every IN and INOUT buffer with the inputs that seed generates, and
 * poison every OUT buffer (all bytes 0xff) so that an output never written
 * fails tqk_verify() even where an earlier run left the right answer.
 * bufs[i] must hold l.buf[i].bytes.
 */
int tqk_fill(const struct tqk_task *t, struct tqk_size sz, uint64_t seed, void *const bufs[]);

/*
 * Check the OUT and INOUT buffers against the host reference for the inputs
 * seed generates. Returns 0, or -EDOM with the first bad element in *mm (mm
 * may be NULL). Large MM and FLW are checked on a spread of rows plus a
 * whole-matrix test (see Documentation/kernels.md), so the check stays
 * O(n^2).
 */
int tqk_verify(const struct tqk_task *t, struct tqk_size sz, uint64_t seed, void *const bufs[],
	       struct tqk_mismatch *mm);

#ifdef __cplusplus
}
#endif

#endif /* TQKERNELS_H */
