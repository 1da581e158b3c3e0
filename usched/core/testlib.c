// SPDX-License-Identifier: GPL-2.0
/*
 * testlib.c - what usched's tests share (testlib.h): finding a device, an
 * arena, the built-in tasks of kernels/ as usched tasks with their checks,
 * and a completion sink that counts every completion.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/tqk_cl.h"
#include "selftests/tap.h"
#include "testlib.h"

#define ALIGN	256	/* buffer alignment in the arena: every type's, and a cache line */

const char *tl_setup(void)
{
	static char why[160];
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	cl_device_id dev;
	ssize_t len;
	cl_int err;

	/* PoCL compiles on the CPU: keep its cache across runs, next to the tests. */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!getenv("POCL_CACHE_DIR") && len > 0) {
		exe[len] = '\0';
		snprintf(dir, sizeof(dir), "%s/../pocl-cache", dirname(exe));
		mkdir(dir, 0755);
		setenv("POCL_CACHE_DIR", dir, 0);
	}
	err = clu_device(0, &dev);
	if (!err)
		return NULL;
	snprintf(why, sizeof(why), "no OpenCL device: %s (%d)", clu_strerror(err), err);
	return why;
}

int tl_arena_init(struct tl_arena *a, struct usched *u, size_t len)
{
	a->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED)
		return -ENOMEM;
	a->len = len;
	a->used = 0;
	return usched_region_add(u, USCHED_SHARED, a->base, len, &a->region);
}

void tl_arena_free(struct tl_arena *a)
{
	munmap(a->base, a->len);
}

static void *arena_alloc(struct tl_arena *a, uint64_t bytes)
{
	void *p;

	if (bytes > a->len - a->used)
		return NULL;
	p = a->base + a->used;
	a->used += (bytes + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
	return p;
}

int tl_builtins(struct usched *u, uint32_t kernel[])
{
	for (unsigned int i = 0; i < tqk_ntasks; i++) {
		uint32_t prog;
		int ret = usched_prog_builtin(u, USCHED_SHARED, tqk_tasks[i]->name, &prog);

		if (!ret)
			ret = usched_kernel_get(u, prog, tqk_tasks[i]->kernel, &kernel[i]);
		if (ret)
			return ret;
	}
	return 0;
}

struct usched *tl_open(const struct usched_opts *o, uint32_t kernel[])
{
	struct usched *u;
	int ret = usched_create(o, &u);

	if (ret) {
		tap_diag("usched_create: %s", strerror(-ret));
		exit(1);
	}
	ret = tl_builtins(u, kernel);
	if (ret) {
		tap_diag("built-in programs: %s", strerror(-ret));
		exit(1);
	}
	return u;
}

struct tqk_size tl_small(const struct tqk_task *tt, unsigned int which)
{
	static const struct {
		const char *name;
		struct tqk_size sz[3];
	} sizes[] = {
		{ "MM", { { 32, 0 }, { 64, 0 }, { 128, 0 } } },
		{ "BS", { { 256, 0 }, { 4096, 0 }, { 12288, 0 } } },
		{ "FWT", { { 1024, 0 }, { 4096, 0 }, { 16384, 0 } } },
		{ "FLW", { { 17, 0 }, { 32, 0 }, { 64, 0 } } },
		{ "CONV", { { 16, 0 }, { 48, 0 }, { 80, 0 } } },
		{ "VA", { { 256, 0 }, { 4096, 0 }, { 65536, 0 } } },
		{ "MT", { { 16, 0 }, { 64, 0 }, { 144, 0 } } },
		{ "DCT", { { 16, 0 }, { 64, 0 }, { 128, 0 } } },
		{ "SYN", { { 256, 1 }, { 4096, 7 }, { 16384, 20 } } },
	};

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(sizes[i].name, tt->name))
			return sizes[i].sz[which % 3];
	return (struct tqk_size){ tt->n_min, 1 };
}

int tl_job_init(struct tl_job *j, struct tl_arena *a, const struct tqk_task *tt,
		struct tqk_size sz, uint64_t seed, uint32_t kernel, uint64_t owner)
{
	struct usched_task *t = &j->task;
	struct tqk_launch l;
	int ret;

	memset(j, 0, sizeof(*j));
	ret = tqk_plan(tt, sz, &l);
	if (ret)
		return ret;
	j->tt = tt;
	j->sz = sz;
	j->seed = seed;
	for (uint32_t i = 0; i < l.nbufs; i++) {
		j->bufs[i] = arena_alloc(a, l.buf[i].bytes);
		if (!j->bufs[i])
			return -ENOMEM;
		t->buf[i].host = j->bufs[i];
		t->buf[i].len = l.buf[i].bytes;
		t->buf[i].dir = l.buf[i].dir;	/* tqk_dir and usched_dir agree */
	}
	for (uint32_t i = 0; i < l.nargs; i++) {
		if (l.arg[i].kind == TQK_ARG_BUF) {
			t->arg[i].kind = USCHED_ARG_BUF;
			t->arg[i].buf = l.arg[i].buf;
		} else {
			t->arg[i].kind = USCHED_ARG_SCALAR;
			t->arg[i].size = l.arg[i].size;
			memcpy(t->arg[i].val, l.arg[i].val, l.arg[i].size);
		}
	}
	t->owner = owner;
	t->user_data = (uintptr_t)j;
	t->m = l.m;
	t->kernel = kernel;
	t->dim = l.dim;
	t->nbufs = l.nbufs;
	t->nargs = l.nargs;
	for (uint32_t d = 0; d < l.dim; d++) {
		t->global[d] = l.global[d];
		t->local[d] = l.local[d];
	}
	return tqk_fill(tt, sz, seed, j->bufs);
}

int tl_job_verify(const struct tl_job *j, struct tqk_mismatch *mm)
{
	return tqk_verify(j->tt, j->sz, j->seed, j->bufs, mm);
}

void tl_sink_init(struct tl_sink *s)
{
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->done = 0;
}

void tl_complete(void *arg, const struct usched_completion *c)
{
	struct tl_job *j = (struct tl_job *)(uintptr_t)c->user_data;
	struct tl_sink *s = arg;

	/* The first completion is kept; tests check that there is only one. */
	if (atomic_fetch_add(&j->ncompl, 1) == 0)
		j->c = *c;
	pthread_mutex_lock(&s->lock);
	s->done++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void tl_run(struct usched *u, struct tl_sink *s, unsigned long n)
{
	struct pollfd pfd = { .fd = usched_fd(u), .events = POLLIN };

	for (;;) {
		usched_process(u);
		if (s->done >= n)
			return;
		while (usched_idle(u))
			;
		poll(&pfd, 1, -1);
	}
}
