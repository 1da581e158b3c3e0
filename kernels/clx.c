// SPDX-License-Identifier: GPL-2.0
/*
 * clx.c - the OpenCL device, registered host memory and task instances of
 * clx.h, on the helpers of kernels/cl/clu.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/clx.h"

static bool named(const struct clu_dev *d, void *want)
{
	return clu_match(want, d->index, d->name) || clu_match(want, d->index, d->plat_name);
}

static bool is_gpu(const struct clu_dev *d, void *arg)
{
	(void)arg;
	return d->type & CL_DEVICE_TYPE_GPU;
}

int clx_open(struct clx *c, const char *want)
{
	struct clu_ctx cc;
	cl_int err;

	memset(c, 0, sizeof(*c));
	/* the device want names; the first GPU, else any, when want is NULL */
	err = clu_open(&cc, want ? named : is_gpu, (void *)want);
	if (err == CL_DEVICE_NOT_FOUND && !want)
		err = clu_open(&cc, named, NULL);
	if (!cc.d.dev) {
		fprintf(stderr, "no OpenCL device%s%s\n", want ? " matches " : "",
			want ? want : "");
		return -ENODEV;
	}
	c->plat = cc.d.plat;
	c->dev = cc.d.dev;
	c->gpu = cc.d.type & CL_DEVICE_TYPE_GPU;
	snprintf(c->name, sizeof(c->name), "%s", cc.d.name);
	snprintf(c->platform, sizeof(c->platform), "%s", cc.d.plat_name);
	c->ctx = cc.ctx;
	c->cus = cc.cus;
	c->max_alloc = cc.max_alloc;
	c->global_mem = cc.global_mem;
	err = err ?: clu_queues(&cc, c->q, CLX_STAGES);
	err = err ?: clu_queues(&cc, c->kx, CLX_MAX_KQ - 1);
	if (!err)
		return 0;
	fprintf(stderr, "%s: cannot set up: %s\n", c->name, clu_strerror(err));
	clx_close(c);
	return -ENODEV;
}

void clx_close(struct clx *c)
{
	for (size_t i = 0; i < sizeof(c->prog) / sizeof(c->prog[0]); i++)
		if (c->prog[i])
			clReleaseProgram(c->prog[i]);
	for (int s = 0; s < CLX_STAGES; s++)
		if (c->q[s])
			clReleaseCommandQueue(c->q[s]);
	for (int i = 0; i < CLX_MAX_KQ - 1; i++)
		if (c->kx[i])
			clReleaseCommandQueue(c->kx[i]);
	if (c->ctx)
		clReleaseContext(c->ctx);
	memset(c, 0, sizeof(*c));
}

int clx_region_add(struct clx *c, void *base, size_t len, struct clu_region *r)
{
	return clu_region_add(c->ctx, c->q[CLX_HTD], base, len, r) ? -ENOMEM : 0;
}

void clx_region_del(struct clx *c, struct clu_region *r)
{
	clu_region_del(c->q[CLX_HTD], r, true);
}

int clx_wait(cl_event ev)
{
	return clu_wait(ev) ? -EIO : 0;
}

cl_kernel clx_kernel(struct clx *c, const struct tqk_task *t)
{
	unsigned int i;
	char *log = NULL;
	cl_kernel k;
	cl_int err;

	for (i = 0; i < tqk_ntasks && tqk_tasks[i] != t; i++)
		;
	if (i == tqk_ntasks || i >= sizeof(c->prog) / sizeof(c->prog[0]))
		return NULL;
	if (!c->prog[i]) {
		err = clu_build(c->ctx, c->dev, t->source, NULL, &c->prog[i], &log);
		if (err) {
			fprintf(stderr, "%s: cannot build %s: %s\n%s", c->name, t->name,
				clu_strerror(err), log ? log : "");
			free(log);
			return NULL;
		}
	}
	k = clCreateKernel(c->prog[i], t->kernel, &err);
	return err ? NULL : k;
}

/* Tasks */

static void count_cmds(struct btask *b)
{
	b->ncmds = 0;
	for (int s = CLX_HTD; s < CLX_STAGES; s++) {
		if (s == CLX_K) {
			b->cmd_stage[b->ncmds++] = CLX_K;
			continue;
		}
		for (uint32_t i = 0; i < b->l.nbufs; i++)
			if (b->dir[i] & (s == CLX_HTD ? BT_IN : BT_OUT) && b->dir[i] != BT_SCRATCH)
				b->cmd_stage[b->ncmds++] = s;
	}
}

int btask_real(struct btask *b, const struct tqk_task *tk, struct tqk_size sz)
{
	int ret;

	memset(b, 0, sizeof(*b));
	ret = tqk_plan(tk, sz, &b->l);
	if (ret)
		return ret;
	snprintf(b->name, sizeof(b->name), "%s", tk->name);
	b->tk = tk;
	b->sz = sz;
	for (uint32_t i = 0; i < b->l.nbufs; i++)
		b->dir[i] = b->l.buf[i].dir;
	count_cmds(b);
	return 0;
}

int btask_syn(struct btask *b, const char *name, uint64_t n_k, uint32_t iters, uint64_t htd,
	      uint64_t dth)
{
	const struct tqk_task *syn = tqk_find("SYN");
	int ret;

	memset(b, 0, sizeof(*b));
	b->sz = (struct tqk_size){ n_k, iters };
	ret = tqk_plan(syn, b->sz, &b->l);
	if (ret)
		return ret;
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->tk = syn;
	b->dir[0] = BT_SCRATCH;
	/* whole pages, so copies never share a page */
	if (htd) {
		b->l.buf[b->l.nbufs] = (struct tqk_buf){ (htd + 4095) & ~4095ull, TQK_IN };
		b->dir[b->l.nbufs++] = BT_IN;
	}
	if (dth) {
		b->l.buf[b->l.nbufs] = (struct tqk_buf){ (dth + 4095) & ~4095ull, TQK_OUT };
		b->dir[b->l.nbufs++] = BT_OUT;
	}
	count_cmds(b);
	return 0;
}

uint64_t clx_syn_n(const struct clx *c)
{
	return (uint64_t)(c->cus ? c->cus : 1) * 8192;
}

uint64_t btask_bytes(const struct btask *b, uint32_t dir)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < b->l.nbufs; i++)
		if (b->dir[i] != BT_SCRATCH && (b->dir[i] & dir))
			n += b->l.buf[i].bytes;
	return n;
}

void btask_layout(struct btask *b, uint64_t out_base)
{
	uint64_t off = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < b->l.nbufs; i++) {
			if (b->dir[i] == BT_SCRATCH || (b->dir[i] == BT_OUT) != pass)
				continue;
			b->off[i] = off;
			off += (b->l.buf[i].bytes + 4095) & ~4095ull;
		}
		if (out_base)
			off = out_base;
	}
}

uint64_t btask_host_bytes(const struct btask *b)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < b->l.nbufs; i++)
		if (b->dir[i] != BT_SCRATCH)
			n += (b->l.buf[i].bytes + 4095) & ~4095ull;
	return n;
}

int binst_init(struct clx *c, const struct btask *b, struct binst *in)
{
	cl_int err;

	memset(in, 0, sizeof(*in));
	in->b = b;
	for (uint32_t i = 0; i < b->l.nbufs; i++) {
		in->dev[i] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, b->l.buf[i].bytes, NULL,
					    &err);
		if (err)
			goto fail;
	}
	in->k = clx_kernel(c, b->tk);
	if (!in->k)
		goto fail;
	err = tqk_cl_set_args(in->k, &b->l, in->dev);
	if (err)
		goto fail;
	return 0;
fail:
	binst_fini(in);
	return -ENOMEM;
}

void binst_release(struct binst *in)
{
	for (unsigned int e = 0; e < in->nev; e++)
		clReleaseEvent(in->ev[e]);
	in->nev = 0;
}

void binst_fini(struct binst *in)
{
	binst_release(in);
	for (uint32_t i = 0; i < TQK_MAX_BUFS; i++)
		if (in->dev[i])
			clReleaseMemObject(in->dev[i]);
	if (in->k)
		clReleaseKernel(in->k);
	memset(in, 0, sizeof(*in));
}

static int copy(struct binst *in, const struct clu_region *r, cl_command_queue q, uint32_t i,
		int stage, cl_uint nwait, const cl_event *wait)
{
	const struct btask *b = in->b;

	if (clu_copy(q, stage == CLX_HTD, in->dev[i], b->l.buf[i].bytes, clu_host(r, b->off[i]),
		     nwait, wait, &in->ev[in->nev]))
		return -EIO;
	in->ev_stage[in->nev++] = stage;
	return 0;
}

int binst_enqueue_in(struct binst *in, const struct clu_region *r, cl_command_queue qh,
		     cl_command_queue qk, cl_uint nwait, const cl_event *wait)
{
	const struct btask *b = in->b;
	unsigned int first;

	binst_release(in);
	for (uint32_t i = 0; i < b->l.nbufs; i++) {
		if (b->dir[i] == BT_SCRATCH || !(b->dir[i] & BT_IN))
			continue;
		/* in order: only the first copy needs the wait list */
		first = !in->nev;
		if (copy(in, r, qh, i, CLX_HTD, first ? nwait : 0, first ? wait : NULL))
			return -EIO;
	}
	if (in->nev)
		clFlush(qh);
	/* an in-order queue: waiting for the last copy waits for all */
	if (in->nev ? tqk_cl_enqueue(qk, in->k, &b->l, 1, &in->ev[in->nev - 1], &in->ev[in->nev])
		    : tqk_cl_enqueue(qk, in->k, &b->l, nwait, wait, &in->ev[in->nev]))
		return -EIO;
	in->ev_stage[in->nev++] = CLX_K;
	clFlush(qk);
	return 0;
}

int binst_enqueue_out(struct binst *in, const struct clu_region *r, cl_command_queue qd)
{
	const struct btask *b = in->b;
	cl_event kernel = in->ev[in->nev - 1];
	bool any = false;

	for (uint32_t i = 0; i < b->l.nbufs; i++) {
		if (b->dir[i] == BT_SCRATCH || !(b->dir[i] & BT_OUT))
			continue;
		if (copy(in, r, qd, i, CLX_DTH, any ? 0 : 1, any ? NULL : &kernel))
			return -EIO;
		any = true;
	}
	if (any)
		clFlush(qd);
	return 0;
}

cl_event binst_last(const struct binst *in)
{
	return in->nev ? in->ev[in->nev - 1] : NULL;
}
