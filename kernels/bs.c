// SPDX-License-Identifier: GPL-2.0
/*
 * bs.c - the BS task (Black-Scholes option prices, bs.cl): its launch plan,
 * seeded inputs and host reference. n is the number of options; m = n.
 */
#include <stdlib.h>

#include "internal.h"

enum { BS_S, BS_K, BS_T, BS_CALL, BS_PUT };

#define BS_RATE		0.02f
#define BS_VOL		0.30f

static void bs_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t bytes = sz.n * sizeof(float);

	for (int i = BS_S; i <= BS_T; i++)
		tqk_add_buf(l, bytes, TQK_IN);
	tqk_add_buf(l, bytes, TQK_OUT);
	tqk_add_buf(l, bytes, TQK_OUT);
	for (uint32_t i = BS_S; i <= BS_PUT; i++)
		tqk_arg_buf(l, i);
	tqk_arg_float(l, BS_RATE);
	tqk_arg_float(l, BS_VOL);
	tqk_grid(l, 1, sz.n, 1, 256, 1);
	l->m = sz.n;
}

static void bs_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	static const float lo[] = { 5.0f, 1.0f, 0.25f }, hi[] = { 30.0f, 100.0f, 10.0f };

	tqk_gen_floats(seed, buf, dst, sz.n, lo[buf], hi[buf]);
}

static double cnd(double d)
{
	return 0.5 * erfc(-d / sqrt(2.0));
}

/*
 * Reference in double with the exact normal CDF. A price is a difference
 * of terms up to s and k, and the kernel's float log/exp and its CDF
 * approximation (7.5e-8) err by a few ulp of those, hence the tolerance.
 */
static int bs_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		    struct tqk_mismatch *mm)
{
	float *s = tqk_regen(&tqk_task_bs, sz, seed, BS_S);
	float *k = tqk_regen(&tqk_task_bs, sz, seed, BS_K);
	float *t = tqk_regen(&tqk_task_bs, sz, seed, BS_T);
	const float *call = bufs[BS_CALL], *put = bufs[BS_PUT];
	const double r = BS_RATE, v = BS_VOL;
	int ret = -ENOMEM;

	if (!s || !k || !t)
		goto out;
	ret = 0;
	for (uint64_t i = 0; i < sz.n && !ret; i++) {
		double sqrt_t = sqrt(t[i]);
		double d1 = (log((double)s[i] / k[i]) + (r + 0.5 * v * v) * t[i]) / (v * sqrt_t);
		double d2 = d1 - v * sqrt_t;
		double disc = k[i] * exp(-r * t[i]);
		double tol = 64 * FLT_EPSILON * (s[i] + k[i]);

		ret = tqk_expect(call[i], s[i] * cnd(d1) - disc * cnd(d2), tol, BS_CALL, i, mm);
		if (!ret)
			ret = tqk_expect(put[i], disc * cnd(-d2) - s[i] * cnd(-d1), tol, BS_PUT, i,
					 mm);
	}
out:
	free(t);
	free(k);
	free(s);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size bs_size_of(const struct tqk_launch *l)
{
	struct tqk_size sz = { .n = l->global[0] };

	return sz;
}

const struct tqk_task tqk_task_bs = {
	.name = "BS",
	.desc = "Black-Scholes European call and put prices",
	.n_what = "options (5 float arrays of n)",
	.source = tqk_src_bs,
	.kernel = "black_scholes",
	.n_min = 256,
	.n_max = 1 << 26,
	.n_align = 256,
	.iters_max = 1,
	.plan = bs_plan,
	.gen = bs_gen,
	.check = bs_check,
	.size_of = bs_size_of,
};
