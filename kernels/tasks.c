// SPDX-License-Identifier: GPL-2.0
/*
 * tasks.c - the task table and the size-checked entry points over it. Each
 * task's own file (mm.c, bs.c, ...) holds its plan, generator and reference.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"

const struct tqk_task *const tqk_tasks[] = {
	&tqk_task_mm, &tqk_task_bs, &tqk_task_fwt, &tqk_task_flw, &tqk_task_conv,
	&tqk_task_va, &tqk_task_mt, &tqk_task_dct, &tqk_task_syn,
};

const unsigned int tqk_ntasks = sizeof(tqk_tasks) / sizeof(tqk_tasks[0]);

const struct tqk_task *tqk_find(const char *name)
{
	for (unsigned int i = 0; i < tqk_ntasks; i++)
		if (!strcmp(tqk_tasks[i]->name, name))
			return tqk_tasks[i];
	return NULL;
}

int tqk_size_ok(const struct tqk_task *t, struct tqk_size sz)
{
	return sz.n >= t->n_min && sz.n <= t->n_max && sz.n % t->n_align == 0 &&
	       sz.iters <= t->iters_max;
}

uint64_t tqk_round_n(const struct tqk_task *t, uint64_t n)
{
	n = (n + t->n_align / 2) / t->n_align * t->n_align;
	if (n < t->n_min)
		return t->n_min;
	if (n > t->n_max)
		return t->n_max;
	return n;
}

int tqk_plan(const struct tqk_task *t, struct tqk_size sz, struct tqk_launch *l)
{
	if (!tqk_size_ok(t, sz))
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	t->plan(sz, l);
	return 0;
}

int tqk_launch_check(const struct tqk_task *t, const struct tqk_launch *l,
		     struct tqk_launch *plan)
{
	struct tqk_launch p;
	bool any_local = false;

	if (tqk_plan(t, t->size_of(l), &p) || l->nargs != p.nargs || l->dim != p.dim)
		return -EINVAL;
	for (uint32_t i = 0; i < p.nargs; i++) {
		const struct tqk_arg *a = &l->arg[i], *want = &p.arg[i];

		if (a->kind != want->kind)
			return -EINVAL;
		if (a->kind == TQK_ARG_BUF ?
		    a->buf >= l->nbufs || l->buf[a->buf].bytes < p.buf[want->buf].bytes :
		    a->size != want->size || memcmp(a->val, want->val, a->size))
			return -EINVAL;
	}
	for (uint32_t d = 0; d < p.dim; d++)
		any_local |= l->local[d] != 0;
	for (uint32_t d = 0; d < p.dim; d++)
		if (l->global[d] != p.global[d] || (any_local && l->local[d] != p.local[d]))
			return -EINVAL;
	if (plan)
		*plan = p;
	return 0;
}

static uint64_t bytes_dir(const struct tqk_task *t, struct tqk_size sz, enum tqk_dir dir)
{
	struct tqk_launch l;
	uint64_t bytes = 0;

	if (tqk_plan(t, sz, &l))
		return 0;
	for (uint32_t i = 0; i < l.nbufs; i++)
		if (l.buf[i].dir & dir)
			bytes += l.buf[i].bytes;
	return bytes;
}

uint64_t tqk_bytes_in(const struct tqk_task *t, struct tqk_size sz)
{
	return bytes_dir(t, sz, TQK_IN);
}

uint64_t tqk_bytes_out(const struct tqk_task *t, struct tqk_size sz)
{
	return bytes_dir(t, sz, TQK_OUT);
}

uint64_t tqk_m(const struct tqk_task *t, struct tqk_size sz)
{
	struct tqk_launch l;

	return tqk_plan(t, sz, &l) ? 0 : l.m;
}

int tqk_fill(const struct tqk_task *t, struct tqk_size sz, uint64_t seed, void *const bufs[])
{
	struct tqk_launch l;
	int ret = tqk_plan(t, sz, &l);

	if (ret)
		return ret;
	for (uint32_t i = 0; i < l.nbufs; i++) {
		if (l.buf[i].dir & TQK_IN)
			t->gen(sz, seed, i, bufs[i]);
		else
			memset(bufs[i], 0xff, l.buf[i].bytes);
	}
	return 0;
}

void *tqk_regen(const struct tqk_task *t, struct tqk_size sz, uint64_t seed, uint32_t buf)
{
	struct tqk_launch l;
	void *p;

	memset(&l, 0, sizeof(l));
	t->plan(sz, &l);
	p = malloc(l.buf[buf].bytes);
	if (p)
		t->gen(sz, seed, buf, p);
	return p;
}

int tqk_verify(const struct tqk_task *t, struct tqk_size sz, uint64_t seed, void *const bufs[],
	       struct tqk_mismatch *mm)
{
	if (!tqk_size_ok(t, sz))
		return -EINVAL;
	return t->check(sz, seed, bufs, mm);
}
