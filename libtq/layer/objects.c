// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * objects.c - the layer's records of the program's OpenCL objects: pointer
 * maps from the driver's handles to them, and their lifetimes. A record
 * lives while the program holds a reference (its retain and release calls
 * are counted) or while captured work still needs it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "tqcl.h"

static size_t hash_ptr(const void *p, size_t nb)
{
	uint64_t x = (uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x & (nb - 1);
}

void *tqcl_map_get(struct tqcl_map *m, const void *key)
{
	struct tqcl_node *n;

	if (!m->nb || !key)
		return NULL;
	for (n = m->b[hash_ptr(key, m->nb)]; n; n = n->next)
		if (n->key == key)
			return n;
	return NULL;
}

static int map_grow(struct tqcl_map *m)
{
	size_t nb = m->nb ? m->nb * 2 : 64;
	struct tqcl_node **b = calloc(nb, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < m->nb; i++) {
		struct tqcl_node *n = m->b[i], *next;

		for (; n; n = next) {
			size_t h = hash_ptr(n->key, nb);

			next = n->next;
			n->next = b[h];
			b[h] = n;
		}
	}
	free(m->b);
	m->b = b;
	m->nb = nb;
	return 0;
}

/* An existing record under @key is replaced: the driver reused a freed handle. */
int tqcl_map_put(struct tqcl_map *m, struct tqcl_node *n, const void *key)
{
	size_t h;

	tqcl_map_del(m, key);
	if (m->n + 1 > m->nb && map_grow(m))
		return -1;
	n->key = key;
	h = hash_ptr(key, m->nb);
	n->next = m->b[h];
	m->b[h] = n;
	m->n++;
	return 0;
}

void tqcl_map_del(struct tqcl_map *m, const void *key)
{
	struct tqcl_node **pp;

	if (!m->nb)
		return;
	for (pp = &m->b[hash_ptr(key, m->nb)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->key == key) {
			*pp = (*pp)->next;
			m->n--;
			return;
		}
	}
}

/*
 * The record of a context, made at its creation. Only a context of one
 * device (and that TQCL_DEVICE names, when set) is captured for: usched runs
 * every task on its own device, which must be the one the program chose.
 */
struct tqcl_ctx *tqcl_ctx_get(cl_context ctx)
{
	struct tqcl_ctx *c = tqcl_map_get(&tqcl.ctxs, ctx);
	cl_device_id devs[2];
	size_t sz = 0;

	if (c || !ctx)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ctx = ctx;
	c->refs = 1;
	if (!tqcl_next.clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof(devs), devs, &sz) &&
	    sz == sizeof(cl_device_id))
		c->dev = devs[0];
	if (c->dev && tqcl.device) {
		char name[256] = "";

		tqcl_next.clGetDeviceInfo(c->dev, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
		if (!strcasestr(name, tqcl.device))
			c->dev = NULL;
	}
	c->capture = c->dev != NULL;
	if (tqcl_map_put(&tqcl.ctxs, &c->node, ctx)) {
		free(c);
		return NULL;
	}
	return c;
}

void tqcl_mem_drop(struct tqcl_mem *b)
{
	tqcl_map_del(&tqcl.mems, b->m);
	if (b->shadow && !tqcl.forked)
		tq_buf_free(&tqcl.tq, b->shadow);
	free(b);
}

void tqcl_prog_drop(struct tqcl_prog *p)
{
	if (--p->refs > 0)
		return;
	tqcl_map_del(&tqcl.progs, p->p);
	while (p->kerns) {
		struct tqcl_pkern *pk = p->kerns;

		p->kerns = pk->next;
		free(pk);
	}
	free(p->src);
	free(p->opts);
	free(p);
}

void tqcl_kern_drop(struct tqcl_kern *k)
{
	if (--k->refs > 0)
		return;
	if (tqcl_map_get(&tqcl.kerns, k->k) == k)
		tqcl_map_del(&tqcl.kerns, k->k);
	if (k->p)
		tqcl_prog_drop(k->p);
	free(k);
}

/*
 * What each argument takes, from the driver's argument info where it has
 * some (PoCL always; others when built with -cl-kernel-arg-info): the kind
 * decides whether a value set later is a buffer or a scalar, and a const or
 * __constant pointer is a buffer the kernel only reads (no copy back).
 */
void tqcl_kern_init_args(struct tqcl_kern *k)
{
	cl_uint nargs = 0;

	if (tqcl_next.clGetKernelInfo(k->k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL) ||
	    tqcl_next.clGetKernelInfo(k->k, CL_KERNEL_FUNCTION_NAME, sizeof(k->name) - 1, k->name,
				      NULL) || nargs > TQCL_MAX_ARGS) {
		k->bad_args = true;
		return;
	}
	k->nargs = nargs;
	for (cl_uint i = 0; i < nargs; i++) {
		struct tqcl_arg *a = &k->arg[i];
		cl_kernel_arg_address_qualifier aq;
		cl_kernel_arg_type_qualifier tq = 0;
		char type[128] = "";

		if (tqcl_next.clGetKernelArgInfo(k->k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
						 sizeof(aq), &aq, NULL))
			continue;	/* no argument info: classified by value */
		tqcl_next.clGetKernelArgInfo(k->k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(type) - 1,
					     type, NULL);
		tqcl_next.clGetKernelArgInfo(k->k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq,
					     NULL);
		if (aq == CL_KERNEL_ARG_ADDRESS_LOCAL || strstr(type, "image") ||
		    strstr(type, "pipe") || strstr(type, "sampler") || strstr(type, "queue_t") ||
		    strstr(type, "event_t") || strstr(type, "reserve_id"))
			a->info = 3;
		else if (aq == CL_KERNEL_ARG_ADDRESS_PRIVATE)
			a->info = 2;
		else
			a->info = 1;
		a->ro = aq == CL_KERNEL_ARG_ADDRESS_CONSTANT || (tq & CL_KERNEL_ARG_TYPE_CONST);
	}
}

void tqcl_queue_drop(struct tqcl_queue *q)
{
	tqcl_map_del(&tqcl.queues, q->q);
	if (q->last_real)
		tqcl_next.clReleaseEvent(q->last_real);
	free(q);
}
