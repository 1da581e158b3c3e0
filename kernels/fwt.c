// SPDX-License-Identifier: GPL-2.0
/*
 * fwt.c - the FWT task (the fast Walsh-Hadamard transform, fwt.cl): its
 * launch plan, seeded inputs and host reference. n floats, transformed in
 * independent blocks of FWT_LEN; m = n.
 */
#include <stdlib.h>

#include "internal.h"

enum { FWT_IN, FWT_OUT };

#define FWT_LEN		1024	/* LEN in fwt.cl */
#define FWT_LOG2	10

static void fwt_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t bytes = sz.n * sizeof(float);

	tqk_add_buf(l, bytes, TQK_IN);
	tqk_add_buf(l, bytes, TQK_OUT);
	tqk_arg_buf(l, FWT_IN);
	tqk_arg_buf(l, FWT_OUT);
	tqk_grid(l, 1, sz.n / FWT_LEN * 256, 1, 256, 1);
	l->m = sz.n;
}

static void fwt_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	tqk_gen_floats(seed, buf, dst, sz.n, -1.0f, 1.0f);
}

/*
 * Reference: the same butterflies in double. Each of the log2(LEN) float
 * stages adds at most one rounding of values bounded by the block's
 * sum |x|, which bounds the error.
 */
static int fwt_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		     struct tqk_mismatch *mm)
{
	float *in = tqk_regen(&tqk_task_fwt, sz, seed, FWT_IN);
	const float *out = bufs[FWT_OUT];
	double x[FWT_LEN];
	int ret = -ENOMEM;

	if (!in)
		return ret;
	ret = 0;
	for (uint64_t base = 0; base < sz.n && !ret; base += FWT_LEN) {
		double sum = 0.0;

		for (int i = 0; i < FWT_LEN; i++) {
			x[i] = in[base + i];
			sum += fabs(x[i]);
		}
		for (int h = 1; h < FWT_LEN; h <<= 1) {
			for (int i = 0; i < FWT_LEN; i += 2 * h) {
				for (int j = i; j < i + h; j++) {
					double a = x[j], b = x[j + h];

					x[j] = a + b;
					x[j + h] = a - b;
				}
			}
		}
		for (int i = 0; i < FWT_LEN && !ret; i++)
			ret = tqk_expect(out[base + i], x[i], FWT_LOG2 * FLT_EPSILON * sum,
					 FWT_OUT, base + i, mm);
	}
	free(in);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size fwt_size_of(const struct tqk_launch *l)
{
	struct tqk_size sz = { .n = l->global[0] / 256 * FWT_LEN };

	return sz;
}

const struct tqk_task tqk_task_fwt = {
	.name = "FWT",
	.desc = "fast Walsh-Hadamard transform of each 1024-float block",
	.n_what = "floats (a multiple of 1024)",
	.source = tqk_src_fwt,
	.kernel = "fwt",
	.n_min = FWT_LEN,
	.n_max = 1 << 27,
	.n_align = FWT_LEN,
	.iters_max = 1,
	.plan = fwt_plan,
	.gen = fwt_gen,
	.check = fwt_check,
	.size_of = fwt_size_of,
};
