// SPDX-License-Identifier: GPL-2.0
/*
 * objects.c - what tasks refer to: registered host memory (regions),
 * programs (built once per source and options) and their kernels. Each is
 * named by an id and reference counted under u->lock, so one can be dropped
 * by its owner while tasks that use it are still queued or running. Each
 * region and program holds its domain (exec.c): it lives in that context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/tqk_cl.h"
#include "internal.h"

#define OPTS_MAX	1024	/* bytes of build options */

#define IDTAB_SLOTS	((1u << IDTAB_SLOT_BITS) - 1)
#define IDTAB_GENS	(1u << (32 - IDTAB_SLOT_BITS))

static int idtab_grow(struct idtab *t)
{
	uint32_t cap = t->cap ? 2 * t->cap : 16;
	void **slot;
	uint16_t *gen;

	if (t->n == IDTAB_SLOTS)
		return -ENOSPC;
	slot = realloc(t->slot, cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	t->slot = slot;
	gen = realloc(t->gen, cap * sizeof(*gen));
	if (!gen)
		return -ENOMEM;
	memset(gen + t->cap, 0, (cap - t->cap) * sizeof(*gen));
	t->gen = gen;
	t->cap = cap;
	return 0;
}

uint32_t idtab_add(struct idtab *t, void *p)
{
	uint32_t i = 0;

	if (t->nfree) {
		while (t->slot[i])
			i++;
		t->nfree--;
	} else {
		if (t->n == t->cap && idtab_grow(t))
			return 0;
		i = t->n++;
	}
	t->slot[i] = p;
	return (uint32_t)t->gen[i] << IDTAB_SLOT_BITS | (i + 1);
}

void *idtab_get(const struct idtab *t, uint32_t id)
{
	uint32_t i = (id & IDTAB_SLOTS) - 1;

	return i < t->n && t->gen[i] == id >> IDTAB_SLOT_BITS ? t->slot[i] : NULL;
}

void idtab_clear(struct idtab *t, uint32_t id)
{
	uint32_t i = (id & IDTAB_SLOTS) - 1;

	t->slot[i] = NULL;
	t->gen[i] = (t->gen[i] + 1) % IDTAB_GENS;
	t->nfree++;
}

/* Regions */

int usched_region_add(struct usched *u, uint64_t domain, void *base, size_t len, uint32_t *id)
{
	struct clu_region cr;
	struct region *r;
	cl_int err;
	int ret;

	if (!base || !len)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base = base;
	r->len = len;
	r->refs = 1;
	ret = domain_get(u, domain, &r->dom);
	if (ret)
		goto out_free;
	/* registered and mapped once for good, on the marker queue */
	err = clu_region_add(r->dom->ctx, r->dom->mq, base, len, &cr);
	if (err) {
		ret = cl_errno(err, -EINVAL);
		goto out_put;
	}
	r->mem = cr.mem;
	r->map = cr.map;

	pthread_mutex_lock(&u->lock);
	r->id = idtab_add(&u->regions, r);
	pthread_mutex_unlock(&u->lock);
	if (!r->id) {
		ret = -ENOMEM;
		goto out_release;
	}
	*id = r->id;
	return 0;

out_release:
	clu_region_del(r->dom->mq, &cr, false);
out_put:
	pthread_mutex_lock(&u->lock);
	domain_put(u, r->dom);
	pthread_mutex_unlock(&u->lock);
out_free:
	free(r);
	return ret;
}

void region_put(struct usched *u, struct region *r)
{
	struct clu_region cr = { .base = r->base, .len = r->len, .mem = r->mem, .map = r->map };

	if (--r->refs)
		return;
	/* The release waits for the unmap; nothing else uses the region now. */
	clu_region_del(r->dom->mq, &cr, false);
	domain_put(u, r->dom);
	free(r);
}

int usched_region_del(struct usched *u, uint32_t id)
{
	struct region *r;

	pthread_mutex_lock(&u->lock);
	r = idtab_get(&u->regions, id);
	if (r) {
		idtab_clear(&u->regions, id);
		region_put(u, r);
	}
	pthread_mutex_unlock(&u->lock);
	return r ? 0 : -ENOENT;
}

/*
 * The region of @dom holding [p, p + len), with a reference; or NULL with
 * *err -EINVAL when only other domains' regions hold it, else -EFAULT.
 */
struct region *region_find(struct usched *u, const struct domain *dom, const void *p,
			   uint64_t len, int *err)
{
	const char *c = p;

	*err = -EFAULT;
	for (uint32_t i = 0; i < u->regions.n; i++) {
		struct region *r = u->regions.slot[i];

		if (!r || c < r->base || len > r->len || (size_t)(c - r->base) > r->len - len)
			continue;
		if (r->dom == dom) {
			r->refs++;
			return r;
		}
		*err = -EINVAL;
	}
	return NULL;
}

/* Programs and kernels */

/* FNV-1a: the cache key's hash; equal hashes are confirmed by comparing keys. */
static uint64_t hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return h;
}

static struct prog *prog_lookup(struct usched *u, const struct domain *dom, uint64_t h,
				const char *key, size_t keylen)
{
	for (uint32_t i = 0; i < u->progs.n; i++) {
		struct prog *p = u->progs.slot[i];

		if (p && p->dom == dom && p->hash == h && p->keylen == keylen &&
		    !memcmp(p->src, key, keylen))
			return p;
	}
	return NULL;
}

/* Under u->lock, or at usched_destroy(). */
static void prog_free(struct usched *u, struct prog *p)
{
	for (unsigned int i = 0; i < p->nkerns; i++) {
		clReleaseKernel(p->kerns[i]->k);
		free(p->kerns[i]);
	}
	free(p->kerns);
	if (p->prog)
		clReleaseProgram(p->prog);
	free(p->log);
	free(p->src);
	if (p->dom)
		domain_put(u, p->dom);
	free(p);
}

/* prog_free() of one never registered. */
static void prog_drop(struct usched *u, struct prog *p)
{
	pthread_mutex_lock(&u->lock);
	prog_free(u, p);
	pthread_mutex_unlock(&u->lock);
}

void prog_put(struct usched *u, struct prog *p)
{
	if (--p->refs)
		return;
	idtab_clear(&u->progs, p->id);
	for (unsigned int i = 0; i < p->nkerns; i++)
		idtab_clear(&u->kerns, p->kerns[i]->id);
	prog_free(u, p);
}

/* The registration's result: the id, or the failed build's log. */
static int prog_result(struct prog *p, uint32_t *id, char **log)
{
	if (p->prog) {
		*id = p->id;
		return 0;
	}
	if (log)
		*log = strdup(p->log ? p->log : "");
	return -ENOEXEC;
}

/*
 * The cache key of (src, options): source NUL options NUL, so the source is
 * a C string too. -EINVAL for an empty source, a NUL inside it, or options
 * too long; a terminating NUL is welcome, not needed.
 */
static int prog_key(const char *src, size_t len, const char *options, char **key,
		    size_t *keylen, size_t *srclen, uint64_t *h)
{
	size_t optlen = options ? strlen(options) : 0;

	while (src && len && !src[len - 1])
		len--;
	if (!src || !len || memchr(src, 0, len) || optlen > OPTS_MAX)
		return -EINVAL;
	*key = malloc(len + optlen + 2);
	if (!*key)
		return -ENOMEM;
	memcpy(*key, src, len);
	(*key)[len] = 0;
	memcpy(*key + len + 1, options ? options : "", optlen + 1);
	*keylen = len + optlen + 2;
	*srclen = len;
	*h = hash(*key, *keylen);
	return 0;
}

/*
 * A cache hit, under u->lock: a registration of a built program, or the
 * failed build's log (a failed build stays cached too, but takes no
 * reference).
 */
static int prog_take(struct prog *p, uint32_t *id, char **log)
{
	p->regs += !!p->prog;
	p->refs += !!p->prog;
	return prog_result(p, id, log);
}

int usched_prog_add(struct usched *u, uint64_t domain, const char *src, size_t len,
		    const char *options, uint32_t *id, char **log)
{
	char opts[OPTS_MAX + 32];
	struct domain *dom;
	size_t keylen;
	struct prog *p;
	cl_int err;
	uint64_t h;
	char *key;
	int ret;

	if (log)
		*log = NULL;
	ret = prog_key(src, len, options, &key, &keylen, &len, &h);
	if (ret)
		return ret;
	ret = domain_get(u, domain, &dom);
	if (ret) {
		free(key);
		return ret;
	}

	/* Builds are serialized so that two registrations of one source build it once. */
	pthread_mutex_lock(&u->build_lock);
	pthread_mutex_lock(&u->lock);
	p = prog_lookup(u, dom, h, key, keylen);
	if (p) {
		ret = prog_take(p, id, log);
		domain_put(u, dom);
	}
	pthread_mutex_unlock(&u->lock);
	if (p) {
		pthread_mutex_unlock(&u->build_lock);
		free(key);
		return ret;
	}

	ret = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p) {
		pthread_mutex_lock(&u->lock);
		domain_put(u, dom);
		pthread_mutex_unlock(&u->lock);
		goto out_unlock;
	}
	p->dom = dom;
	p->hash = h;
	p->src = key;
	p->keylen = keylen;
	key = NULL;
	p->regs = p->refs = 1;
	/* Argument info lets usched_submit() check each argument's kind. */
	snprintf(opts, sizeof(opts), USCHED_BUILD_OPTS " %s", p->src + len + 1);
	err = clu_build(dom->ctx, u->device, p->src, opts, &p->prog, &p->log);
	if (err && err != CL_BUILD_PROGRAM_FAILURE) {
		ret = cl_errno(err, -EINVAL);
		goto out_unlock;
	}
	/* A failed build is kept in the shared domain only: it would hold an isolation domain open. */
	if (!p->prog && dom != &u->shared) {
		ret = prog_result(p, id, log);
		goto out_unlock;
	}

	pthread_mutex_lock(&u->lock);
	p->id = idtab_add(&u->progs, p);
	if (p->id)
		ret = prog_result(p, id, log);
	pthread_mutex_unlock(&u->lock);
	if (p->id) {
		p->regs -= !p->prog;
		p->refs -= !p->prog;
		p = NULL;
	}
out_unlock:
	pthread_mutex_unlock(&u->build_lock);
	if (p)
		prog_drop(u, p);
	free(key);
	return ret;
}

int usched_prog_find(struct usched *u, uint64_t domain, const char *src, size_t len,
		     const char *options, uint32_t *id)
{
	struct domain *dom;
	struct prog *p;
	size_t keylen;
	uint64_t h;
	char *key;
	int ret;

	ret = prog_key(src, len, options, &key, &keylen, &len, &h);
	if (ret)
		return ret;
	pthread_mutex_lock(&u->lock);
	/* Only a built program: a failed build is built again, elsewhere. */
	dom = domain_find(u, domain);
	p = dom ? prog_lookup(u, dom, h, key, keylen) : NULL;
	ret = p && p->prog ? prog_take(p, id, NULL) : -ENOENT;
	if (dom)
		domain_put(u, dom);
	pthread_mutex_unlock(&u->lock);
	free(key);
	return ret;
}

int usched_prog_add_binary(struct usched *u, uint64_t domain, const char *src, size_t len,
			   const char *options, const void *bin, size_t binlen, uint32_t *id)
{
	const unsigned char *b = bin;
	char opts[OPTS_MAX + 32];
	cl_int err, status;
	size_t keylen;
	struct prog *p, *old;
	uint64_t h;
	char *key;
	int ret;

	if (!bin || !binlen)
		return -EINVAL;
	ret = prog_key(src, len, options, &key, &keylen, &len, &h);
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(key);
		return -ENOMEM;
	}
	p->hash = h;
	p->src = key;
	p->keylen = keylen;
	p->regs = p->refs = 1;
	ret = domain_get(u, domain, &p->dom);
	if (ret)
		goto out_free;
	p->prog = clCreateProgramWithBinary(p->dom->ctx, 1, &u->device, &binlen, &b, &status,
					    &err);
	if (!err)
		err = status;
	if (err) {
		p->prog = NULL;
		ret = err == CL_INVALID_BINARY ? -ENOEXEC : cl_errno(err, -EINVAL);
		goto out_free;
	}
	/* The same options as the build it came from: the argument info is kept. */
	snprintf(opts, sizeof(opts), USCHED_BUILD_OPTS " %s", p->src + len + 1);
	err = clBuildProgram(p->prog, 1, &u->device, opts, NULL, NULL);
	if (err) {
		ret = err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BINARY ? -ENOEXEC :
			cl_errno(err, -EINVAL);
		goto out_free;
	}

	pthread_mutex_lock(&u->lock);
	old = prog_lookup(u, p->dom, h, key, keylen);
	if (old && old->prog) {
		/* Built elsewhere at the same time: keep the one already cached. */
		ret = prog_take(old, id, NULL);
	} else {
		/* A failed in-process build of it is cached: that one cannot be used. */
		if (old) {
			idtab_clear(&u->progs, old->id);
			prog_free(u, old);
		}
		p->id = idtab_add(&u->progs, p);
		ret = p->id ? prog_result(p, id, NULL) : -ENOMEM;
		if (p->id)
			p = NULL;
	}
	pthread_mutex_unlock(&u->lock);
out_free:
	if (p)
		prog_drop(u, p);
	return ret;
}

int usched_device_names(struct usched *u, char *platform, size_t plen, char *device,
			size_t dlen)
{
	if (clGetPlatformInfo(u->platform, CL_PLATFORM_NAME, plen, platform, NULL) ||
	    clGetDeviceInfo(u->device, CL_DEVICE_NAME, dlen, device, NULL))
		return -EINVAL;
	return 0;
}

int usched_prog_builtin(struct usched *u, uint64_t domain, const char *name, uint32_t *id)
{
	const struct tqk_task *t = tqk_find(name);

	if (!t)
		return -ENOENT;
	return usched_prog_add(u, domain, t->source, strlen(t->source), NULL, id, NULL);
}

int usched_prog_put(struct usched *u, uint32_t id)
{
	struct prog *p;
	int ret;

	pthread_mutex_lock(&u->lock);
	p = idtab_get(&u->progs, id);
	ret = p && p->regs ? 0 : -ENOENT;
	if (!ret) {
		p->regs--;
		prog_put(u, p);
	}
	pthread_mutex_unlock(&u->lock);
	return ret;
}

/*
 * What each argument takes. A task must set every argument: a kernel object
 * is shared by all tasks, and an argument left unset would keep the value a
 * previous task (another owner's buffer, even) gave it.
 */
static int kern_args(struct kern *k)
{
	cl_uint nargs;

	if (clGetKernelInfo(k->k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL))
		return -EINVAL;
	if (nargs > USCHED_MAX_ARGS)
		return -EOPNOTSUPP;
	k->nargs = nargs;
	for (cl_uint i = 0; i < nargs; i++) {
		cl_kernel_arg_address_qualifier q;

		/* Without argument info (an old driver) the kind goes unchecked. */
		if (clGetKernelArgInfo(k->k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(q), &q,
				       NULL))
			continue;
		if (q == CL_KERNEL_ARG_ADDRESS_LOCAL)
			return -EOPNOTSUPP;
		k->arg_kind[i] = q == CL_KERNEL_ARG_ADDRESS_PRIVATE ? USCHED_ARG_SCALAR :
								      USCHED_ARG_BUF;
	}
	return 0;
}

int usched_kernel_get(struct usched *u, uint32_t prog, const char *name, uint32_t *id)
{
	struct kern *k = NULL, **kerns;
	struct prog *p;
	cl_int err;
	int ret;

	if (!name || strlen(name) >= sizeof(k->name))
		return -EINVAL;
	pthread_mutex_lock(&u->lock);
	p = idtab_get(&u->progs, prog);
	ret = -ENOENT;
	if (!p || !p->regs)
		goto out;
	for (unsigned int i = 0; i < p->nkerns; i++) {
		if (!strcmp(p->kerns[i]->name, name)) {
			*id = p->kerns[i]->id;
			ret = 0;
			goto out;
		}
	}
	ret = -ENOMEM;
	kerns = realloc(p->kerns, (p->nkerns + 1) * sizeof(*kerns));
	if (!kerns)
		goto out;
	p->kerns = kerns;
	k = calloc(1, sizeof(*k));
	if (!k)
		goto out;
	k->k = clCreateKernel(p->prog, name, &err);
	if (err) {
		ret = err == CL_INVALID_KERNEL_NAME ? -ENOENT : cl_errno(err, -EINVAL);
		goto out;
	}
	ret = kern_args(k);
	if (ret) {
		clReleaseKernel(k->k);
		goto out;
	}
	strcpy(k->name, name);
	k->prog = p;
	kmodel_init(&k->model, &u->prof, name);
	k->id = idtab_add(&u->kerns, k);
	if (!k->id) {
		clReleaseKernel(k->k);
		goto out;
	}
	p->kerns[p->nkerns++] = k;
	*id = k->id;
	k = NULL;
	ret = 0;
out:
	pthread_mutex_unlock(&u->lock);
	free(k);
	return ret;
}

struct kern *kern_get(struct usched *u, uint32_t id)
{
	struct kern *k = idtab_get(&u->kerns, id);

	if (k)
		k->prog->refs++;
	return k;
}

/* At usched_destroy(), when no task is left: whatever the users did not drop. */
void objects_free(struct usched *u)
{
	for (uint32_t i = 0; i < u->regions.n; i++)
		if (u->regions.slot[i])
			region_put(u, u->regions.slot[i]);
	for (uint32_t i = 0; i < u->progs.n; i++)
		if (u->progs.slot[i])
			prog_free(u, u->progs.slot[i]);
	free(u->regions.slot);
	free(u->regions.gen);
	free(u->progs.slot);
	free(u->progs.gen);
	free(u->kerns.slot);
	free(u->kerns.gen);
}
