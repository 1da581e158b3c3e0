// SPDX-License-Identifier: GPL-2.0
/* clx.c - the OpenCL device, registered host memory and task instances of clx.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "clx.h"

/*
 * The OpenCL runtime keeps its allocations until exit: in SAN=1 builds
 * LeakSanitizer should report only ours. Unused without -fsanitize.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpocl.so\nleak:libOpenCL.so\nleak:libLLVM\nleak:libclang\n"
	       "leak:libnvidia-opencl.so\n";
}

static bool named(const struct tqk_cl_dev *d, void *want)
{
	return tqk_cl_match(want, d->index, d->name) || tqk_cl_match(want, d->index, d->plat_name);
}

static bool is_gpu(const struct tqk_cl_dev *d, void *arg)
{
	(void)arg;
	return d->type & CL_DEVICE_TYPE_GPU;
}

/* The device want names (see clx_open()); the first GPU, else any, when want is NULL. */
static int pick(struct clx *c, const char *want)
{
	struct tqk_cl_dev d;
	cl_int err = tqk_cl_find(want ? named : is_gpu, (void *)want, &d);

	if (err == CL_DEVICE_NOT_FOUND && !want)
		err = tqk_cl_find(named, NULL, &d);
	if (err)
		return -ENODEV;
	c->plat = d.plat;
	c->dev = d.dev;
	c->gpu = d.type & CL_DEVICE_TYPE_GPU;
	snprintf(c->name, sizeof(c->name), "%s", d.name);
	snprintf(c->platform, sizeof(c->platform), "%s", d.plat_name);
	return 0;
}

int clx_open(struct clx *c, const char *want)
{
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM, 0, 0 };
	cl_int err;

	memset(c, 0, sizeof(*c));
	if (pick(c, want)) {
		fprintf(stderr, "no OpenCL device%s%s\n", want ? " matches " : "",
			want ? want : "");
		return -ENODEV;
	}
	clGetDeviceInfo(c->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(c->cus), &c->cus, NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(c->max_alloc),
			&c->max_alloc, NULL);
	clGetDeviceInfo(c->dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(c->global_mem),
			&c->global_mem, NULL);
	props[1] = (cl_context_properties)c->plat;
	c->ctx = clCreateContext(props, 1, &c->dev, NULL, NULL, &err);
	if (err)
		goto fail;
	for (int s = 0; s < CLX_STAGES; s++) {
		c->q[s] = tqk_cl_queue(c->ctx, c->dev, CL_QUEUE_PROFILING_ENABLE, &err);
		if (err)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "%s: cannot set up: %s\n", c->name, tqk_cl_strerror(err));
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
	if (c->ctx)
		clReleaseContext(c->ctx);
	memset(c, 0, sizeof(*c));
}

void *clx_mmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void clx_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

int clx_region_add(struct clx *c, void *base, size_t len, struct clx_region *r)
{
	cl_event ev;
	cl_int err;
	int ret;

	r->base = base;
	r->len = len;
	r->mem = clCreateBuffer(c->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, len, base, &err);
	if (err)
		return -ENOMEM;
	/* mapped once for good: the host may touch USE_HOST_PTR memory only while mapped */
	r->map = clEnqueueMapBuffer(c->q[CLX_HTD], r->mem, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE,
				    0, len, 0, NULL, &ev, &err);
	if (err) {
		clReleaseMemObject(r->mem);
		return -ENOMEM;
	}
	ret = clx_wait(ev);
	clReleaseEvent(ev);
	if (ret)
		clReleaseMemObject(r->mem);
	return ret;
}

void clx_region_del(struct clx *c, struct clx_region *r)
{
	cl_event ev;

	if (!r->mem)
		return;
	if (!clEnqueueUnmapMemObject(c->q[CLX_HTD], r->mem, r->map, 0, NULL, &ev)) {
		clx_wait(ev);
		clReleaseEvent(ev);
	}
	clReleaseMemObject(r->mem);
	r->mem = NULL;
}

int clx_wait(cl_event ev)
{
	return tqk_cl_wait(ev) ? -EIO : 0;
}

uint64_t clx_start(cl_event ev)
{
	cl_ulong t;

	return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL) ?
	       0 : t;
}

uint64_t clx_end(cl_event ev)
{
	cl_ulong t;

	return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t), &t, NULL) ? 0 : t;
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
		err = tqk_cl_build(c->ctx, c->dev, t->source, NULL, &c->prog[i], &log);
		if (err) {
			fprintf(stderr, "%s: cannot build %s: %s\n%s", c->name, t->name,
				tqk_cl_strerror(err), log ? log : "");
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

static int copy(struct binst *in, const struct clx_region *r, cl_command_queue q, uint32_t i,
		int stage, cl_uint nwait, const cl_event *wait)
{
	const struct btask *b = in->b;
	char *host = clx_host(r, b->off[i]);
	cl_event *ev = &in->ev[in->nev];
	cl_int err;

	if (stage == CLX_HTD)
		err = clEnqueueWriteBuffer(q, in->dev[i], CL_FALSE, 0, b->l.buf[i].bytes, host,
					   nwait, wait, ev);
	else
		err = clEnqueueReadBuffer(q, in->dev[i], CL_FALSE, 0, b->l.buf[i].bytes, host,
					  nwait, wait, ev);
	if (err)
		return -EIO;
	in->ev_stage[in->nev++] = stage;
	return 0;
}

int binst_enqueue_in(struct binst *in, const struct clx_region *r, cl_command_queue qh,
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

int binst_enqueue_out(struct binst *in, const struct clx_region *r, cl_command_queue qd)
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
