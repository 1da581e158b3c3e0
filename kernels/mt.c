// SPDX-License-Identifier: GPL-2.0
/*
 * mt.c - the MT task (a matrix transpose, mt.cl): its launch plan, seeded
 * inputs and host reference. n is the matrix side; m = n^2.
 */
#include <stdlib.h>

#include "internal.h"

enum { MT_IN, MT_OUT };

static void mt_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t n = sz.n;

	tqk_add_buf(l, n * n * sizeof(float), TQK_IN);
	tqk_add_buf(l, n * n * sizeof(float), TQK_OUT);
	tqk_arg_buf(l, MT_IN);
	tqk_arg_buf(l, MT_OUT);
	tqk_arg_int(l, n);
	tqk_grid(l, 2, n, n, 16, 16);
	l->m = n * n;
}

static void mt_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	tqk_gen_floats(seed, buf, dst, sz.n * sz.n, -1.0f, 1.0f);
}

static int mt_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		    struct tqk_mismatch *mm)
{
	uint64_t n = sz.n;
	float *in = tqk_regen(&tqk_task_mt, sz, seed, MT_IN);
	const float *out = bufs[MT_OUT];
	int ret = 0;

	if (!in)
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !ret; i++)
		for (uint64_t j = 0; j < n && !ret; j++)
			ret = tqk_expect(out[j * n + i], in[i * n + j], 0, MT_OUT, j * n + i, mm);
	free(in);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size mt_size_of(const struct tqk_launch *l)
{
	return tqk_size_arg(l, 2);
}

const struct tqk_task tqk_task_mt = {
	.name = "MT",
	.desc = "matrix transpose",
	.n_what = "matrix side (n x n floats)",
	.source = tqk_src_mt,
	.kernel = "transpose",
	.n_min = 16,
	.n_max = 16384,
	.n_align = 16,
	.iters_max = 1,
	.plan = mt_plan,
	.gen = mt_gen,
	.check = mt_check,
	.size_of = mt_size_of,
};
