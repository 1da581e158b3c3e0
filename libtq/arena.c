// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * arena.c - first-fit allocation of a context's arena.
 *
 * Clients allocate a few buffers and reuse them, so a sorted array of
 * allocations searched linearly is enough, and it is easy to check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int tq_arena_init(struct tq_arena *a, size_t size)
{
	memset(a, 0, sizeof(*a));
	a->size = size;
	return -pthread_mutex_init(&a->lock, NULL);
}

void tq_arena_fini(struct tq_arena *a)
{
	pthread_mutex_destroy(&a->lock);
	free(a->used);
	a->used = NULL;
	a->nr = 0;
	a->cap = 0;
}

/* Insert @e at index @i, growing the array if needed. */
static int tq_arena_insert(struct tq_arena *a, size_t i, struct tq_extent e)
{
	if (a->nr == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		struct tq_extent *p = realloc(a->used, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->used = p;
		a->cap = cap;
	}
	memmove(&a->used[i + 1], &a->used[i], (a->nr - i) * sizeof(*a->used));
	a->used[i] = e;
	a->nr++;
	return 0;
}

int tq_arena_alloc(struct tq_arena *a, size_t len, size_t *off)
{
	size_t i, start = 0;
	int ret = -ENOMEM;

	if (!len || len > a->size)
		return len ? -ENOMEM : -EINVAL;
	len = (len + TQ_BUF_ALIGN - 1) & ~(size_t)(TQ_BUF_ALIGN - 1);

	pthread_mutex_lock(&a->lock);
	/* The first gap that fits: before allocation i, or after the last one. */
	for (i = 0; i <= a->nr; i++) {
		size_t end = i < a->nr ? a->used[i].off : a->size;

		if (end - start >= len) {
			ret = tq_arena_insert(a, i, (struct tq_extent){ start, len });
			if (!ret)
				*off = start;
			break;
		}
		if (i < a->nr)
			start = a->used[i].off + a->used[i].len;
	}
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int tq_arena_free(struct tq_arena *a, size_t off)
{
	size_t lo = 0, hi;
	int ret = -EINVAL;

	pthread_mutex_lock(&a->lock);
	hi = a->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->used[mid].off < off) {
			lo = mid + 1;
		} else if (a->used[mid].off > off) {
			hi = mid;
		} else {
			memmove(&a->used[mid], &a->used[mid + 1],
				(a->nr - mid - 1) * sizeof(*a->used));
			a->nr--;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return ret;
}
