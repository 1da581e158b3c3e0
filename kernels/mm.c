// SPDX-License-Identifier: GPL-2.0
/*
 * mm.c - the MM task (a matrix multiply, mm.cl): its launch plan, seeded
 * inputs and host reference. n is the matrix side; m = n^3, the
 * multiply-adds.
 */
#include <stdlib.h>

#include "internal.h"

enum { MM_A, MM_B, MM_C };

static void mm_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t n = sz.n, bytes = n * n * sizeof(float);

	tqk_add_buf(l, bytes, TQK_IN);
	tqk_add_buf(l, bytes, TQK_IN);
	tqk_add_buf(l, bytes, TQK_OUT);
	tqk_arg_buf(l, MM_A);
	tqk_arg_buf(l, MM_B);
	tqk_arg_buf(l, MM_C);
	tqk_arg_int(l, n);
	tqk_grid(l, 2, n, n, 16, 16);
	l->m = n * n * n;
}

static void mm_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	tqk_gen_floats(seed, buf, dst, sz.n * sz.n, 0.0f, 1.0f);
}

/*
 * Freivalds' test over the whole matrix: c x = a (b x) for x of random
 * signs. Row i may be off by n * FLT_EPSILON * sum_j c_ij (see mm_check),
 * with that sum taken as a (b 1) so that a wrong c cannot loosen it.
 * tmp holds 3n doubles.
 */
static int mm_freivalds(const float *a, const float *b, const float *c, uint64_t n,
			uint64_t seed, double *tmp, struct tqk_mismatch *mm)
{
	double *x = tmp, *bx = tmp + n, *b1 = tmp + 2 * n;
	struct tqk_rng r = tqk_rng_init(seed, TQK_MAX_BUFS);	/* no buffer's stream */
	int ret = 0;

	for (uint64_t j = 0; j < n; j++)
		x[j] = (tqk_rng_next(&r) & 1) ? 1.0 : -1.0;
	for (uint64_t k = 0; k < n; k++) {
		bx[k] = b1[k] = 0.0;
		for (uint64_t j = 0; j < n; j++) {
			bx[k] += b[k * n + j] * x[j];
			b1[k] += b[k * n + j];
		}
	}
	for (uint64_t i = 0; i < n && !ret; i++) {
		double abx = 0.0, ab1 = 0.0, cx = 0.0;

		for (uint64_t k = 0; k < n; k++) {
			abx += a[i * n + k] * bx[k];
			ab1 += a[i * n + k] * b1[k];
			cx += c[i * n + k] * x[k];
		}
		ret = tqk_expect(cx, abx, n * FLT_EPSILON * ab1 * 1.01, MM_C, i * n, mm);
	}
	return ret;
}

/*
 * Inputs are >= 0, so c_ij itself is sum_k |a_ik b_kj| and n * FLT_EPSILON
 * times it bounds the float error of any summation order. Checked rows get
 * that test per element; larger matrices add Freivalds' test, which catches
 * a wrong element outside them once its error passes twice its row's bound.
 */
static int mm_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		    struct tqk_mismatch *mm)
{
	uint64_t n = sz.n;
	float *a = tqk_regen(&tqk_task_mm, sz, seed, MM_A);
	float *b = tqk_regen(&tqk_task_mm, sz, seed, MM_B);
	const float *c = bufs[MM_C];
	double *want = malloc(3 * n * sizeof(*want));
	int ret = -ENOMEM;

	if (!a || !b || !want)
		goto out;
	ret = 0;
	for (uint64_t r = 0; r < tqk_rows_checked(n) && !ret; r++) {
		uint64_t i = tqk_row(n, r);

		for (uint64_t j = 0; j < n; j++)
			want[j] = 0.0;
		for (uint64_t k = 0; k < n; k++) {
			double aik = a[i * n + k];

			for (uint64_t j = 0; j < n; j++)
				want[j] += aik * b[k * n + j];
		}
		for (uint64_t j = 0; j < n && !ret; j++)
			ret = tqk_expect(c[i * n + j], want[j], n * FLT_EPSILON * want[j],
					 MM_C, i * n + j, mm);
	}
	if (!ret && n > TQK_ROWS_ALL)
		ret = mm_freivalds(a, b, c, n, seed, want, mm);
out:
	free(want);
	free(b);
	free(a);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size mm_size_of(const struct tqk_launch *l)
{
	return tqk_size_arg(l, 3);
}

const struct tqk_task tqk_task_mm = {
	.name = "MM",
	.desc = "matrix multiplication, c = a * b",
	.n_what = "matrix side (n x n floats)",
	.source = tqk_src_mm,
	.kernel = "mm",
	.n_min = 16,
	.n_max = 8192,
	.n_align = 16,
	.iters_max = 1,
	.plan = mm_plan,
	.gen = mm_gen,
	.check = mm_check,
	.size_of = mm_size_of,
};
