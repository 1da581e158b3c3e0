// SPDX-License-Identifier: GPL-2.0
/*
 * dct.c - the DCT task (the 8x8 block DCT-II, dct.cl): its launch plan,
 * seeded inputs and host reference. n is the image side; m = n^2.
 */
#include <stdlib.h>

#include "internal.h"

enum { DCT_IN, DCT_OUT };

#define DCT_B		8

static void dct_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t n = sz.n;

	tqk_add_buf(l, n * n * sizeof(float), TQK_IN);
	tqk_add_buf(l, n * n * sizeof(float), TQK_OUT);
	tqk_arg_buf(l, DCT_IN);
	tqk_arg_buf(l, DCT_OUT);
	tqk_arg_int(l, n);
	tqk_grid(l, 2, n, n, 16, 16);
	l->m = n * n;
}

static void dct_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	tqk_gen_floats(seed, buf, dst, sz.n * sz.n, 0.0f, 1.0f);
}

/*
 * Reference in double, the same two passes. With inputs in [0, 1) every
 * coefficient's terms sum to at most 8 in absolute value; 16 float
 * roundings of that plus the kernel's float cos() stay under DCT_TOL.
 */
#define DCT_TOL		(64 * 8 * FLT_EPSILON)

static int dct_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		     struct tqk_mismatch *mm)
{
	uint64_t n = sz.n;
	float *in = tqk_regen(&tqk_task_dct, sz, seed, DCT_IN);
	const float *out = bufs[DCT_OUT];
	double c[DCT_B][DCT_B], cx[DCT_B][DCT_B];
	int ret = 0;

	if (!in)
		return -ENOMEM;
	for (int u = 0; u < DCT_B; u++)
		for (int x = 0; x < DCT_B; x++)
			c[u][x] = (u ? 0.5 : sqrt(0.125)) * cos((2 * x + 1) * u * M_PI / 16);
	for (uint64_t by = 0; by < n && !ret; by += DCT_B) {
		for (uint64_t bx = 0; bx < n && !ret; bx += DCT_B) {
			const float *blk = in + by * n + bx;

			for (int u = 0; u < DCT_B; u++) {
				for (int x = 0; x < DCT_B; x++) {
					cx[u][x] = 0.0;
					for (int k = 0; k < DCT_B; k++)
						cx[u][x] += c[u][k] * blk[k * n + x];
				}
			}
			for (int u = 0; u < DCT_B && !ret; u++) {
				for (int v = 0; v < DCT_B && !ret; v++) {
					uint64_t i = (by + u) * n + bx + v;
					double y = 0.0;

					for (int k = 0; k < DCT_B; k++)
						y += cx[u][k] * c[v][k];
					ret = tqk_expect(out[i], y, DCT_TOL, DCT_OUT, i, mm);
				}
			}
		}
	}
	free(in);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size dct_size_of(const struct tqk_launch *l)
{
	return tqk_size_arg(l, 2);
}

const struct tqk_task tqk_task_dct = {
	.name = "DCT",
	.desc = "2D DCT-II of every 8x8 block",
	.n_what = "image side (n x n floats)",
	.source = tqk_src_dct,
	.kernel = "dct8x8",
	.n_min = 16,
	.n_max = 16384,
	.n_align = 16,
	.iters_max = 1,
	.plan = dct_plan,
	.gen = dct_gen,
	.check = dct_check,
	.size_of = dct_size_of,
};
