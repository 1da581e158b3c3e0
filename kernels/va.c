// SPDX-License-Identifier: GPL-2.0
/*
 * va.c - the VA task (a vector add, va.cl): its launch plan, seeded inputs
 * and host reference. n floats per vector; m = n.
 */
#include <stdlib.h>

#include "internal.h"

enum { VA_A, VA_B, VA_C };

static void va_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t bytes = sz.n * sizeof(float);

	tqk_add_buf(l, bytes, TQK_IN);
	tqk_add_buf(l, bytes, TQK_IN);
	tqk_add_buf(l, bytes, TQK_OUT);
	tqk_arg_buf(l, VA_A);
	tqk_arg_buf(l, VA_B);
	tqk_arg_buf(l, VA_C);
	tqk_grid(l, 1, sz.n, 1, 256, 1);
	l->m = sz.n;
}

static void va_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	tqk_gen_floats(seed, buf, dst, sz.n, -1.0f, 1.0f);
}

/* One correctly rounded float add per element: the result is exact. */
static int va_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		    struct tqk_mismatch *mm)
{
	float *a = tqk_regen(&tqk_task_va, sz, seed, VA_A);
	float *b = tqk_regen(&tqk_task_va, sz, seed, VA_B);
	const float *c = bufs[VA_C];
	int ret = -ENOMEM;

	if (!a || !b)
		goto out;
	ret = 0;
	for (uint64_t i = 0; i < sz.n && !ret; i++)
		ret = tqk_expect(c[i], a[i] + b[i], 0, VA_C, i, mm);
out:
	free(b);
	free(a);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size va_size_of(const struct tqk_launch *l)
{
	struct tqk_size sz = { .n = l->global[0] };

	return sz;
}

const struct tqk_task tqk_task_va = {
	.name = "VA",
	.desc = "vector addition, c = a + b",
	.n_what = "floats per vector",
	.source = tqk_src_va,
	.kernel = "vec_add",
	.n_min = 256,
	.n_max = 1 << 28,
	.n_align = 256,
	.iters_max = 1,
	.plan = va_plan,
	.gen = va_gen,
	.check = va_check,
	.size_of = va_size_of,
};
