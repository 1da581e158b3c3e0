/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * internal.h - libtq's private parts: the arena allocator and the ring
 * set-up, shared with the native unit tests. Nothing here is exported.
 */
#ifndef LIBTQ_INTERNAL_H
#define LIBTQ_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

#include "tq.h"

/* One allocation: arena bytes [off, off + len). */
struct tq_extent {
	size_t off;
	size_t len;
};

/*
 * The arena allocator. Its state lives in our heap, never in the arena, which
 * the scheduler can write. The allocations are kept sorted by offset; free
 * space is the gaps between them, so freeing needs no coalescing.
 */
struct tq_arena {
	pthread_mutex_t lock;
	size_t size;
	struct tq_extent *used;
	size_t nr;
	size_t cap;
};

int tq_arena_init(struct tq_arena *a, size_t size);
void tq_arena_fini(struct tq_arena *a);
int tq_arena_alloc(struct tq_arena *a, size_t len, size_t *off);
int tq_arena_free(struct tq_arena *a, size_t off);

void tq_rings_init(struct tq *tq, const struct tq_setup *s, void *sq_map, void *cq_map);

#endif /* LIBTQ_INTERNAL_H */
