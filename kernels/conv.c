// SPDX-License-Identifier: GPL-2.0
/*
 * conv.c - the CONV task (a separable 2D convolution, conv.cl): its launch
 * plan, seeded inputs and host reference. n is the image side; m = n^2, the
 * pixels (taps are fixed).
 */
#include <stdlib.h>

#include "internal.h"

enum { CONV_IN, CONV_FILT, CONV_OUT };

#define CONV_R		8		/* R in conv.cl */
#define CONV_TAPS	(2 * CONV_R + 1)

static void conv_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t n = sz.n;

	tqk_add_buf(l, n * n * sizeof(float), TQK_IN);
	tqk_add_buf(l, 2 * CONV_TAPS * sizeof(float), TQK_IN);
	tqk_add_buf(l, n * n * sizeof(float), TQK_OUT);
	tqk_arg_buf(l, CONV_IN);
	tqk_arg_buf(l, CONV_FILT);
	tqk_arg_buf(l, CONV_OUT);
	tqk_arg_int(l, n);
	tqk_grid(l, 2, n, n, 16, 16);
	l->m = n * n;
}

static void conv_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	if (buf == CONV_IN)
		tqk_gen_floats(seed, buf, dst, sz.n * sz.n, 0.0f, 1.0f);
	else
		tqk_gen_floats(seed, buf, dst, 2 * CONV_TAPS, 0.05f, 1.0f);
}

/* Row pass of image row y (zeros outside the image) into dst, in double. */
static void conv_row(const float *in, const float *f, int64_t n, int64_t y, double *dst)
{
	for (int64_t x = 0; x < n; x++) {
		double s = 0.0;

		for (int64_t t = -CONV_R; t <= CONV_R && y >= 0 && y < n; t++)
			if (x + t >= 0 && x + t < n)
				s += f[CONV_R + t] * in[y * n + x + t];
		dst[x] = s;
	}
}

/*
 * Reference in double, keeping only the 2R + 1 row-pass rows the column
 * pass needs (row y lives in ring[(y + R) % TAPS]). Inputs and taps are
 * >= 0, so the result is its own sum of |terms| and 2 * TAPS float
 * roundings bound the error; 64 leaves room.
 */
static int conv_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		      struct tqk_mismatch *mm)
{
	int64_t n = sz.n;
	float *in = tqk_regen(&tqk_task_conv, sz, seed, CONV_IN);
	float *f = tqk_regen(&tqk_task_conv, sz, seed, CONV_FILT);
	double *ring = malloc(CONV_TAPS * n * sizeof(*ring));
	const float *out = bufs[CONV_OUT];
	int ret = -ENOMEM;

	if (!in || !f || !ring)
		goto out;
	ret = 0;
	for (int64_t y = -CONV_R; y < CONV_R; y++)
		conv_row(in, f, n, y, ring + (y + CONV_R) % CONV_TAPS * n);
	for (int64_t y = 0; y < n && !ret; y++) {
		conv_row(in, f, n, y + CONV_R, ring + (y + 2 * CONV_R) % CONV_TAPS * n);
		for (int64_t x = 0; x < n && !ret; x++) {
			double s = 0.0;

			for (int64_t t = -CONV_R; t <= CONV_R; t++)
				s += f[CONV_TAPS + CONV_R + t] *
				     ring[(y + t + CONV_R) % CONV_TAPS * n + x];
			ret = tqk_expect(out[y * n + x], s, 64 * FLT_EPSILON * s, CONV_OUT,
					 y * n + x, mm);
		}
	}
out:
	free(ring);
	free(f);
	free(in);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size conv_size_of(const struct tqk_launch *l)
{
	return tqk_size_arg(l, 3);
}

const struct tqk_task tqk_task_conv = {
	.name = "CONV",
	.desc = "separable 2D convolution, 17-tap rows then 17-tap columns",
	.n_what = "image side (n x n floats)",
	.source = tqk_src_conv,
	.kernel = "sep_conv",
	.n_min = 16,
	.n_max = 16384,
	.n_align = 16,
	.iters_max = 1,
	.plan = conv_plan,
	.gen = conv_gen,
	.check = conv_check,
	.size_of = conv_size_of,
};
