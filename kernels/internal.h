/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the task files share: the seeded generator, launch
 * builders and tolerance checks. Not installed.
 */
#ifndef TQK_INTERNAL_H
#define TQK_INTERNAL_H

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <tq/rand.h>

#include "tqkernels.h"

/* OpenCL program sources, embedded by kernels/build.mk. */
extern const char tqk_src_mm[], tqk_src_bs[], tqk_src_fwt[], tqk_src_flw[], tqk_src_conv[],
	tqk_src_va[], tqk_src_mt[], tqk_src_dct[], tqk_src_syn[];

extern const struct tqk_task tqk_task_mm, tqk_task_bs, tqk_task_fwt, tqk_task_flw,
	tqk_task_conv, tqk_task_va, tqk_task_mt, tqk_task_dct, tqk_task_syn;

/*
 * splitmix64: tiny, fast, and the same stream everywhere, so a seed names
 * the same inputs in every process. Each buffer gets its own stream so
 * tqk_verify() can regenerate one input without the others.
 */
struct tqk_rng {
	uint64_t s;
};

static inline struct tqk_rng tqk_rng_init(uint64_t seed, uint32_t buf)
{
	struct tqk_rng r = { seed ^ (0x9e3779b97f4a7c15ull * (buf + 1)) };

	return r;
}

static inline uint64_t tqk_rng_next(struct tqk_rng *r)
{
	return tq_rand_next(&r->s);
}

/* Uniform in [lo, hi), with 24 random bits so every value is exact in float. */
static inline float tqk_rng_float(struct tqk_rng *r, float lo, float hi)
{
	return lo + (hi - lo) * (float)(tqk_rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

static inline void tqk_gen_floats(uint64_t seed, uint32_t buf, float *dst, uint64_t count,
				  float lo, float hi)
{
	struct tqk_rng r = tqk_rng_init(seed, buf);

	for (uint64_t i = 0; i < count; i++)
		dst[i] = tqk_rng_float(&r, lo, hi);
}

/* A fresh copy of input buffer buf as tqk_fill() makes it, or NULL; free() it. */
void *tqk_regen(const struct tqk_task *t, struct tqk_size sz, uint64_t seed, uint32_t buf);

/* Launch builders, used by the plan functions in argument order. */
static inline void tqk_add_buf(struct tqk_launch *l, uint64_t bytes, enum tqk_dir dir)
{
	l->buf[l->nbufs].bytes = bytes;
	l->buf[l->nbufs].dir = dir;
	l->nbufs++;
}

static inline void tqk_arg_buf(struct tqk_launch *l, uint32_t buf)
{
	struct tqk_arg *a = &l->arg[l->nargs++];

	a->kind = TQK_ARG_BUF;
	a->buf = buf;
}

static inline void tqk_arg_scalar(struct tqk_launch *l, const void *val, uint32_t size)
{
	struct tqk_arg *a = &l->arg[l->nargs++];

	a->kind = TQK_ARG_SCALAR;
	a->size = size;
	memcpy(a->val, val, size);
}

static inline void tqk_arg_int(struct tqk_launch *l, int32_t v)
{
	tqk_arg_scalar(l, &v, sizeof(v));
}

static inline void tqk_arg_float(struct tqk_launch *l, float v)
{
	tqk_arg_scalar(l, &v, sizeof(v));
}

static inline void tqk_grid(struct tqk_launch *l, uint32_t dim, size_t gx, size_t gy,
			    size_t lx, size_t ly)
{
	l->dim = dim;
	l->global[0] = gx;
	l->global[1] = gy;
	l->local[0] = lx;
	l->local[1] = ly;
}

/* Scalar argument i of a launch as an int, or -1 if it is not a 4-byte scalar. */
static inline int64_t tqk_arg_get_int(const struct tqk_launch *l, uint32_t i)
{
	int32_t v;

	if (i >= l->nargs || l->arg[i].kind != TQK_ARG_SCALAR || l->arg[i].size != sizeof(v))
		return -1;
	memcpy(&v, l->arg[i].val, sizeof(v));
	return v;
}

/* A size whose n is the int argument i (0, which no task takes, if it is not one). */
static inline struct tqk_size tqk_size_arg(const struct tqk_launch *l, uint32_t i)
{
	int64_t v = tqk_arg_get_int(l, i);
	struct tqk_size sz = { .n = v > 0 ? (uint64_t)v : 0 };

	return sz;
}

/* Record a wrong element in *mm (may be NULL); returns -EDOM. */
static inline int tqk_mismatch_at(struct tqk_mismatch *mm, uint32_t buf, uint64_t index,
				  double got, double want, double tol)
{
	if (mm) {
		mm->buf = buf;
		mm->index = index;
		mm->got = got;
		mm->want = want;
		mm->tol = tol;
	}
	return -EDOM;
}

/* Compare one element. Written so that NaN, the poison in outputs, fails. */
static inline int tqk_expect(double got, double want, double tol, uint32_t buf, uint64_t index,
			     struct tqk_mismatch *mm)
{
	if (fabs(got - want) <= tol)
		return 0;
	return tqk_mismatch_at(mm, buf, index, got, want, tol);
}

/*
 * Rows the O(n^3) tasks check against their reference: all of them up to
 * TQK_ROWS_ALL, else TQK_ROWS_SAMPLE rows spread evenly, first and last
 * included, so one check costs at most about TQK_ROWS_SAMPLE * n^2.
 */
#define TQK_ROWS_ALL	256
#define TQK_ROWS_SAMPLE	32

static inline uint64_t tqk_rows_checked(uint64_t n)
{
	return n <= TQK_ROWS_ALL ? n : TQK_ROWS_SAMPLE;
}

static inline uint64_t tqk_row(uint64_t n, uint64_t k)
{
	uint64_t rows = tqk_rows_checked(n);

	return rows == n ? k : k * (n - 1) / (rows - 1);
}

#endif /* TQK_INTERNAL_H */
