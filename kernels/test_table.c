// SPDX-License-Identifier: GPL-2.0
/*
 * test_table.c - the task table without a device: names, size rules,
 * launch descriptors, bytes, seeded inputs, and that an output the device
 * never wrote fails verification.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "selftests/tap.h"
#include "tqkernels.h"

/* The task column of data/real_task_ranges.csv, then SYN. */
static const char *const names[] = { "MM", "BS", "FWT", "FLW", "CONV", "VA", "MT", "DCT", "SYN" };

/* Every buffer allocated for a plan, freed by free_bufs(). */
static int alloc_bufs(const struct tqk_launch *l, void *bufs[])
{
	for (uint32_t i = 0; i < l->nbufs; i++) {
		bufs[i] = malloc(l->buf[i].bytes);
		if (!bufs[i])
			return -ENOMEM;
	}
	return 0;
}

static void free_bufs(const struct tqk_launch *l, void *bufs[])
{
	for (uint32_t i = 0; i < l->nbufs; i++)
		free(bufs[i]);
}

/* The descriptor is self-consistent: args name real buffers, groups tile the grid. */
static int launch_sane(const struct tqk_task *t, struct tqk_size sz)
{
	struct tqk_launch l;
	uint64_t in = 0, out = 0;

	if (tqk_plan(t, sz, &l) || !l.nbufs || l.nbufs > TQK_MAX_BUFS || !l.nargs ||
	    l.nargs > TQK_MAX_ARGS || l.dim < 1 || l.dim > 2 || !l.m)
		return 0;
	for (uint32_t i = 0; i < l.nargs; i++) {
		const struct tqk_arg *a = &l.arg[i];

		if (a->kind == TQK_ARG_BUF ? a->buf >= l.nbufs : !a->size || a->size > 8)
			return 0;
	}
	for (uint32_t d = 0; d < l.dim; d++)
		if (!l.local[d] || l.global[d] % l.local[d])
			return 0;
	for (uint32_t i = 0; i < l.nbufs; i++) {
		if (!l.buf[i].bytes)
			return 0;
		in += l.buf[i].dir & TQK_IN ? l.buf[i].bytes : 0;
		out += l.buf[i].dir & TQK_OUT ? l.buf[i].bytes : 0;
	}
	return in && out && in == tqk_bytes_in(t, sz) && out == tqk_bytes_out(t, sz) &&
	       l.m == tqk_m(t, sz);
}

static void test_sizes(const struct tqk_task *t)
{
	struct tqk_size lo = { t->n_min, 0 }, hi = { t->n_max, t->iters_max };
	struct tqk_size big = { t->n_max + t->n_align, 0 };
	struct tqk_size small = { t->n_min - 1, 0 }, iters = { t->n_min, t->iters_max + 1 };
	struct tqk_launch l;

	tap_ok(tqk_size_ok(t, lo) && tqk_size_ok(t, hi), "%s: takes n_min and n_max", t->name);
	tap_ok(!tqk_size_ok(t, big) && !tqk_size_ok(t, small) && !tqk_size_ok(t, iters) &&
	       tqk_plan(t, big, &l) == -EINVAL && !tqk_bytes_in(t, big) && !tqk_m(t, big),
	       "%s: rejects sizes out of range", t->name);
	if (t->n_align > 1) {
		struct tqk_size odd = { t->n_min + 1, 0 };

		tap_ok(!tqk_size_ok(t, odd) && tqk_round_n(t, odd.n) == t->n_min,
		       "%s: rejects and rounds n off its alignment", t->name);
	}
	tap_ok(tqk_round_n(t, 0) == t->n_min && tqk_round_n(t, UINT64_MAX / 2) == t->n_max,
	       "%s: tqk_round_n clamps", t->name);
	tap_ok(launch_sane(t, lo) && launch_sane(t, hi), "%s: launch descriptors consistent",
	       t->name);
	tap_ok(tqk_m(t, (struct tqk_size){ 2 * t->n_min, 0 }) > tqk_m(t, lo) &&
	       tqk_bytes_in(t, (struct tqk_size){ 2 * t->n_min, 0 }) > tqk_bytes_in(t, lo),
	       "%s: m and bytes grow with n", t->name);
}

/* Same seed, same inputs; another seed, other inputs; unwritten outputs fail. */
static void test_fill(const struct tqk_task *t)
{
	struct tqk_size sz = { tqk_round_n(t, 256), 3 };	/* FLW needs paths to shorten */
	void *a[TQK_MAX_BUFS] = { 0 }, *b[TQK_MAX_BUFS] = { 0 };
	struct tqk_mismatch mm;
	struct tqk_launch l = { 0 };
	int same = 1, differ = 0;

	if (t->iters_max == 1)
		sz.iters = 0;
	if (tqk_plan(t, sz, &l) || alloc_bufs(&l, a) || alloc_bufs(&l, b)) {
		tap_ok(0, "%s: allocate buffers", t->name);
		goto out;
	}
	tqk_fill(t, sz, 42, a);
	tqk_fill(t, sz, 42, b);
	for (uint32_t i = 0; i < l.nbufs; i++)
		same &= !memcmp(a[i], b[i], l.buf[i].bytes);
	tqk_fill(t, sz, 43, b);
	for (uint32_t i = 0; i < l.nbufs; i++)
		if (l.buf[i].dir & TQK_IN)
			differ |= !!memcmp(a[i], b[i], l.buf[i].bytes);
	tap_ok(same && differ, "%s: inputs follow the seed", t->name);
	tap_ok(tqk_verify(t, sz, 42, a, &mm) == -EDOM,
	       "%s: outputs the kernel never wrote fail verification", t->name);
out:
	free_bufs(&l, a);
	free_bufs(&l, b);
}

/*
 * tqk_launch_check(): a plan passes, as does a longer buffer, a zero local
 * size, another direction or a buffer no argument names; a buffer argument
 * shorter than the plan's, or moved to a shorter buffer, another size's work
 * size or scalar, or an argument missing do not.
 */
static void test_launch_check(const struct tqk_task *t)
{
	struct tqk_size sz = { 2 * t->n_min, t->iters_max }, big = { 4 * t->n_min, 0 };
	struct tqk_launch p, l, b;
	int ok, bad = 0, nbuf = 0;

	if (tqk_plan(t, sz, &p) || tqk_plan(t, big, &b)) {
		tap_ok(0, "%s: plan two sizes", t->name);
		return;
	}
	l = p;
	ok = !tqk_launch_check(t, &l, NULL);
	l.buf[0].bytes += 4096;
	l.buf[0].dir ^= TQK_OUT;
	memset(l.local, 0, sizeof(l.local));
	l.buf[l.nbufs++] = (struct tqk_buf){ 4, TQK_IN };	/* named by no argument */
	ok &= !tqk_launch_check(t, &l, NULL);
	tap_ok(ok, "%s: its plan passes the bounds check (a longer buffer, another direction, "
	       "zero local, an extra buffer too)", t->name);
	for (uint32_t i = 0; i < p.nargs; i++) {
		if (p.arg[i].kind != TQK_ARG_BUF)
			continue;
		nbuf++;
		l = p;
		l.buf[l.arg[i].buf].bytes--;
		bad += tqk_launch_check(t, &l, NULL) == -EINVAL;
		l = p;
		l.buf[l.nbufs] = (struct tqk_buf){ 4, TQK_OUT };
		l.arg[i].buf = l.nbufs++;
		bad += tqk_launch_check(t, &l, NULL) == -EINVAL;
	}
	tap_ok(bad == 2 * nbuf, "%s: a buffer argument shorter than the size needs, or moved to "
	       "a short buffer: -EINVAL", t->name);
	/* the bigger size's work size and scalars with this size's buffers */
	l = b;
	memcpy(l.buf, p.buf, sizeof(l.buf));
	ok = tqk_launch_check(t, &l, NULL) == -EINVAL;
	l = p;
	memcpy(l.global, b.global, sizeof(l.global));
	ok &= !memcmp(p.global, b.global, sizeof(p.global)) ||	/* FLW: one group */
	      tqk_launch_check(t, &l, NULL) == -EINVAL;
	for (uint32_t i = 0; i < p.nargs; i++) {
		l = p;
		if (l.arg[i].kind == TQK_ARG_BUF) {
			l.arg[i].kind = TQK_ARG_SCALAR;
			l.arg[i].size = 4;
		} else {
			l.arg[i].val[0] ^= 1;
		}
		ok &= tqk_launch_check(t, &l, NULL) == -EINVAL;
	}
	l = p;
	l.global[0] *= 2;
	l.nargs--;
	ok &= tqk_launch_check(t, &l, NULL) == -EINVAL;
	tap_ok(ok, "%s: another size's work size or scalars, or an argument changed: -EINVAL",
	       t->name);
}

int main(void)
{
	unsigned int nnames = sizeof(names) / sizeof(names[0]);
	int all = tqk_ntasks == nnames;

	for (unsigned int i = 0; i < nnames && all; i++)
		all = tqk_find(names[i]) == tqk_tasks[i];
	tap_ok(all, "table holds the paper's tasks, named as in Table 5, then SYN");
	tap_ok(!tqk_find("mm") && !tqk_find("TM") && !tqk_find(""), "tqk_find is exact");
	for (unsigned int i = 0; i < tqk_ntasks; i++) {
		test_sizes(tqk_tasks[i]);
		test_fill(tqk_tasks[i]);
		test_launch_check(tqk_tasks[i]);
	}
	return tap_done();
}
