// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * program.c - the tracking overrides of programs and kernels: a program's
 * source and build options, a kernel's arguments as they are set (what a
 * captured launch needs to make a tq task of it).
 */
#include <stdlib.h>
#include <string.h>

#include "tqcl.h"

static cl_program CL_API_CALL l_CreateProgramWithSource(cl_context ctx, cl_uint count,
							const char **strings, const size_t *lengths,
							cl_int *err)
{
	cl_program p = tqcl_next.clCreateProgramWithSource(ctx, count, strings, lengths, err);
	struct tqcl_prog *r;
	size_t len = 0, n;
	char *src;

	if (!p)
		return p;
	for (cl_uint i = 0; i < count; i++)
		len += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	r = calloc(1, sizeof(*r));
	src = malloc(len + 1);
	if (!r || !src) {
		free(r);
		free(src);
		return p;
	}
	len = 0;
	for (cl_uint i = 0; i < count; i++) {
		n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(src + len, strings[i], n);
		len += n;
	}
	src[len] = 0;
	/* text ends at its first NUL for usched, as for the driver */
	len = strlen(src);
	r->p = p;
	r->src = src;
	r->len = len;
	r->refs = 1;
	LOCK();
	r->c = tqcl_ctx_get(ctx);
	if (!len || !r->c || tqcl_map_put(&tqcl.progs, &r->node, p)) {
		free(src);
		free(r);
	}
	UNLOCK();
	return p;
}

static cl_int CL_API_CALL l_BuildProgram(cl_program prog, cl_uint ndev, const cl_device_id *devs,
					 const char *opts,
					 void (CL_CALLBACK *notify)(cl_program, void *), void *ud)
{
	cl_int err = tqcl_next.clBuildProgram(prog, ndev, devs, opts, notify, ud);
	struct tqcl_prog *p;

	if (err)
		return err;
	LOCK();
	p = tqcl_map_get(&tqcl.progs, prog);
	if (p) {
		free(p->opts);
		p->opts = strdup(opts ? opts : "");
		p->tq_state = 0;
		/* a new build is a new tq program: its kernels are looked up again */
		for (struct tqcl_pkern *pk = p->kerns; pk; pk = pk->next)
			pk->tq_state = 0;
		p->globals_checked = false;
	}
	UNLOCK();
	return err;
}

RETAIN(RetainProgram, cl_program, progs, tqcl_prog, refs)

static void prog_unref(void *rec)
{
	tqcl_prog_drop(rec);
}

RELEASE(ReleaseProgram, cl_program, progs, prog_unref)

static void kern_record(cl_kernel k, cl_program prog, const struct tqcl_kern *from)
{
	struct tqcl_kern *r = calloc(1, sizeof(*r));

	if (!r)
		return;
	if (from) {
		*r = *from;
		r->tqk = NULL;	/* found again by name: the same one */
	}
	r->k = k;
	r->refs = 1;
	if (!from)
		tqcl_kern_init_args(r);
	LOCK();
	r->p = tqcl_map_get(&tqcl.progs, prog);
	if (r->p)
		r->p->refs++;
	if (tqcl_map_put(&tqcl.kerns, &r->node, k)) {
		if (r->p)
			tqcl_prog_drop(r->p);
		free(r);
	}
	UNLOCK();
}

static cl_kernel CL_API_CALL l_CreateKernel(cl_program prog, const char *name, cl_int *err)
{
	cl_kernel k = tqcl_next.clCreateKernel(prog, name, err);

	if (k)
		kern_record(k, prog, NULL);
	return k;
}

static cl_int CL_API_CALL l_CreateKernelsInProgram(cl_program prog, cl_uint n, cl_kernel *ks,
						   cl_uint *n_ret)
{
	cl_uint got = 0;
	cl_int err = tqcl_next.clCreateKernelsInProgram(prog, n, ks, &got);

	if (n_ret)
		*n_ret = got;
	if (!err && ks)
		for (cl_uint i = 0; i < got && i < n; i++)
			kern_record(ks[i], prog, NULL);
	return err;
}

static cl_kernel CL_API_CALL l_CloneKernel(cl_kernel src, cl_int *err)
{
	cl_kernel k = tqcl_next.clCloneKernel(src, err);
	struct tqcl_kern *from, copy;
	cl_program prog = NULL;

	if (!k)
		return k;
	LOCK();
	from = tqcl_map_get(&tqcl.kerns, src);
	if (from)
		copy = *from;
	UNLOCK();
	tqcl_next.clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(prog), &prog, NULL);
	if (from)
		kern_record(k, prog, &copy);
	return k;
}

RETAIN(RetainKernel, cl_kernel, kerns, tqcl_kern, refs)

static void kern_unref(void *rec)
{
	tqcl_kern_drop(rec);
}

RELEASE(ReleaseKernel, cl_kernel, kerns, kern_unref)

/*
 * What the argument now is. A buffer is told apart from a scalar by the
 * argument info, else by the value: a cl_mem the layer knows.
 */
static cl_int CL_API_CALL l_SetKernelArg(cl_kernel kern, cl_uint i, size_t size,
					 const void *value)
{
	cl_int err = tqcl_next.clSetKernelArg(kern, i, size, value);
	struct tqcl_kern *k;
	struct tqcl_arg *a;

	if (err)
		return err;
	LOCK();
	k = tqcl_map_get(&tqcl.kerns, kern);
	if (!k || i >= k->nargs)
		goto out;
	a = &k->arg[i];
	a->size = size <= 255 ? size : 255;
	a->val = 0;
	if (!value || a->info == 3) {
		a->kind = A_OTHER;	/* local memory, image, sampler, ... */
	} else if (a->info == 1 || (a->info == 0 && size == sizeof(cl_mem) &&
				    tqcl_map_get(&tqcl.mems, *(const cl_mem *)value))) {
		a->kind = size == sizeof(cl_mem) ? A_BUF : A_OTHER;
		if (a->kind == A_BUF)
			memcpy(&a->val, value, sizeof(cl_mem));
	} else if (size == 1 || size == 2 || size == 4 || size == 8) {
		a->kind = A_SCALAR;
		memcpy(&a->val, value, size);
	} else {
		a->kind = A_OTHER;
		a->size = 0;		/* a scalar tq cannot carry */
	}
out:
	UNLOCK();
	return err;
}

static void kern_svm(void *rec)
{
	((struct tqcl_kern *)rec)->svm = true;
}

static void kern_mark_svm(cl_kernel kern)
{
	tqcl_rec_apply(&tqcl.kerns, kern, kern_svm);
}

static cl_int CL_API_CALL l_SetKernelArgSVMPointer(cl_kernel kern, cl_uint i, const void *v)
{
	cl_int err = tqcl_next.clSetKernelArgSVMPointer(kern, i, v);

	if (!err)
		kern_mark_svm(kern);
	return err;
}

static cl_int CL_API_CALL l_SetKernelExecInfo(cl_kernel kern, cl_kernel_exec_info name,
					      size_t size, const void *v)
{
	cl_int err = tqcl_next.clSetKernelExecInfo(kern, name, size, v);

	if (!err)
		kern_mark_svm(kern);
	return err;
}

/* The functions of this file in the layer's dispatch table @t. */
void tqcl_override_program(struct _cl_icd_dispatch *t)
{
	OVERRIDE(t, CreateProgramWithSource);
	OVERRIDE(t, BuildProgram);
	OVERRIDE(t, RetainProgram);
	OVERRIDE(t, ReleaseProgram);
	OVERRIDE(t, CreateKernel);
	OVERRIDE(t, CreateKernelsInProgram);
	OVERRIDE(t, CloneKernel);
	OVERRIDE(t, RetainKernel);
	OVERRIDE(t, ReleaseKernel);
	OVERRIDE(t, SetKernelArg);
	OVERRIDE(t, SetKernelArgSVMPointer);
	OVERRIDE(t, SetKernelExecInfo);
}
