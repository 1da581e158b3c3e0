// SPDX-License-Identifier: GPL-2.0
/*
 * syn.c - the SYN task (the paper's synthetic task, syn.cl): its launch
 * plan, seeded inputs and host reference. n uints, multiplied in place iters
 * times by SYN_FACTOR; m = n * iters. n sets the copies, iters the kernel,
 * as the paper's synthetic tasks T0..T7 need.
 */
#include <stdlib.h>

#include "internal.h"

enum { SYN_DATA };

#define SYN_FACTOR	3u	/* odd, so no value collapses to 0 */

static uint32_t syn_iters(struct tqk_size sz)
{
	return sz.iters ? sz.iters : 1;
}

static void syn_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint32_t factor = SYN_FACTOR;

	tqk_add_buf(l, sz.n * sizeof(uint32_t), TQK_INOUT);
	tqk_arg_buf(l, SYN_DATA);
	tqk_arg_int(l, syn_iters(sz));
	tqk_arg_scalar(l, &factor, sizeof(factor));
	tqk_grid(l, 1, sz.n, 1, 256, 1);
	l->m = sz.n * syn_iters(sz);
}

static void syn_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	struct tqk_rng r = tqk_rng_init(seed, buf);
	uint32_t *p = dst;

	for (uint64_t i = 0; i < sz.n; i++)
		p[i] = tqk_rng_next(&r);
}

/* Exact: every element times factor^iters, modulo 2^32. */
static int syn_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		     struct tqk_mismatch *mm)
{
	uint32_t *in = tqk_regen(&tqk_task_syn, sz, seed, SYN_DATA);
	const uint32_t *data = bufs[SYN_DATA];
	uint32_t mul = 1;
	int ret = 0;

	if (!in)
		return -ENOMEM;
	for (uint32_t i = 0; i < syn_iters(sz); i++)
		mul *= SYN_FACTOR;
	for (uint64_t i = 0; i < sz.n && !ret; i++)
		ret = tqk_expect(data[i], (uint32_t)(in[i] * mul), 0, SYN_DATA, i, mm);
	free(in);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size syn_size_of(const struct tqk_launch *l)
{
	int64_t iters = tqk_arg_get_int(l, 1);
	struct tqk_size sz = { .n = l->global[0] };

	sz.iters = iters > 0 ? (uint32_t)iters : 0;
	return sz;
}

const struct tqk_task tqk_task_syn = {
	.name = "SYN",
	.desc = "the paper's synthetic kernel (Listing 1), input[i] *= factor, iters times",
	.n_what = "uints (iters: num_iterations, 0 counts as 1)",
	.source = tqk_src_syn,
	.kernel = "synthetic_kernel",
	.n_min = 256,
	.n_max = 1 << 28,
	.n_align = 256,
	.iters_max = 1 << 24,
	.plan = syn_plan,
	.gen = syn_gen,
	.check = syn_check,
	.size_of = syn_size_of,
};
