// SPDX-License-Identifier: GPL-2.0
/*
 * The arena allocator without the module: alignment, first fit, reuse of
 * freed gaps, exhaustion, bad frees, and threads allocating at once against
 * a shadow map that catches any overlap.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "selftests/tap.h"
#include "tq/rand.h"
#include "internal.h"

#define ARENA	(1 << 20)
#define THREADS	4
#define ROUNDS	20000

static struct tq_arena arena;
static unsigned char owner[ARENA / TQ_BUF_ALIGN];	/* granule -> thread + 1 */
static int overlaps;

static void test_basic(void)
{
	size_t a, b, c, d;

	tap_ok(tq_arena_init(&arena, ARENA) == 0, "init");
	tap_ok(tq_arena_alloc(&arena, 0, &a) == -EINVAL, "zero length is EINVAL");
	tap_ok(tq_arena_alloc(&arena, ARENA + 1, &a) == -ENOMEM, "more than the arena is ENOMEM");
	tap_ok(tq_arena_alloc(&arena, SIZE_MAX, &a) == -ENOMEM, "SIZE_MAX does not wrap");
	tap_ok(!tq_arena_alloc(&arena, 1, &a) && a == 0, "first allocation at 0");
	tap_ok(!tq_arena_alloc(&arena, TQ_BUF_ALIGN + 1, &b) && b == TQ_BUF_ALIGN,
	       "lengths round up to TQ_BUF_ALIGN");
	tap_ok(!tq_arena_alloc(&arena, 100, &c) && c == 3 * TQ_BUF_ALIGN, "next one follows");
	tap_ok(tq_arena_free(&arena, b) == 0, "free the middle one");
	tap_ok(tq_arena_free(&arena, b) == -EINVAL, "double free is EINVAL");
	tap_ok(tq_arena_free(&arena, b + 8) == -EINVAL, "free inside an allocation is EINVAL");
	tap_ok(!tq_arena_alloc(&arena, TQ_BUF_ALIGN, &d) && d == b, "first fit reuses the gap");
	tap_ok(!tq_arena_alloc(&arena, 2 * TQ_BUF_ALIGN, &d) && d == 4 * TQ_BUF_ALIGN,
	       "too big for the gap goes after the last");
	tq_arena_fini(&arena);

	tq_arena_init(&arena, ARENA);
	tap_ok(!tq_arena_alloc(&arena, ARENA, &a) && a == 0, "the whole arena at once");
	tap_ok(tq_arena_alloc(&arena, 1, &b) == -ENOMEM, "then nothing is left");
	tap_ok(!tq_arena_free(&arena, a) && !tq_arena_alloc(&arena, ARENA, &a),
	       "freed, the whole arena again");
	tq_arena_fini(&arena);
}

/* Fill the arena with small blocks, free every other, refill the holes. */
static void test_fill(void)
{
	size_t n = ARENA / TQ_BUF_ALIGN, i, off;
	int ok = 1;

	tq_arena_init(&arena, ARENA);
	for (i = 0; i < n; i++)
		ok &= !tq_arena_alloc(&arena, 1, &off) && off == i * TQ_BUF_ALIGN;
	tap_ok(ok && arena.nr == n, "%zu granules allocated in order", n);
	for (i = 0; i < n; i += 2)
		ok &= !tq_arena_free(&arena, i * TQ_BUF_ALIGN);
	tap_ok(ok && tq_arena_alloc(&arena, 2 * TQ_BUF_ALIGN, &off) == -ENOMEM,
	       "no two adjacent free granules after freeing every other");
	for (i = 0; i < n; i += 2)
		ok &= !tq_arena_alloc(&arena, TQ_BUF_ALIGN, &off) && off == i * TQ_BUF_ALIGN;
	tap_ok(ok, "the holes refill lowest first");
	for (i = 0; i < n; i++)
		ok &= !tq_arena_free(&arena, i * TQ_BUF_ALIGN);
	tap_ok(ok && arena.nr == 0 && !tq_arena_alloc(&arena, ARENA, &off),
	       "all freed, the gaps merged into one");
	tq_arena_fini(&arena);
}

static void claim(size_t off, size_t len, unsigned char from, unsigned char to)
{
	size_t g;

	for (g = off / TQ_BUF_ALIGN; g < (off + len + TQ_BUF_ALIGN - 1) / TQ_BUF_ALIGN; g++) {
		unsigned char expect = from;

		if (!__atomic_compare_exchange_n(&owner[g], &expect, to, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			__atomic_fetch_add(&overlaps, 1, __ATOMIC_RELAXED);
	}
}

static void *worker(void *arg)
{
	unsigned char me = (unsigned char)(uintptr_t)arg;
	uint64_t seed = me;
	struct tq_extent held[16] = { 0 };
	int i, k;

	for (i = 0; i < ROUNDS; i++) {
		k = tq_rand_next(&seed) % 16;
		if (held[k].len) {
			claim(held[k].off, held[k].len, me, 0);
			if (tq_arena_free(&arena, held[k].off))
				__atomic_fetch_add(&overlaps, 1, __ATOMIC_RELAXED);
			held[k].len = 0;
		} else {
			size_t len = 1 + tq_rand_next(&seed) % (8 * TQ_BUF_ALIGN);

			if (!tq_arena_alloc(&arena, len, &held[k].off)) {
				held[k].len = len;
				claim(held[k].off, len, 0, me);
			}
		}
	}
	for (k = 0; k < 16; k++) {
		if (held[k].len) {
			claim(held[k].off, held[k].len, me, 0);
			tq_arena_free(&arena, held[k].off);
		}
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[THREADS];
	size_t off;
	int i;

	/* Small enough that threads run out and take each other's gaps. */
	tq_arena_init(&arena, 64 * TQ_BUF_ALIGN);
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	tap_ok(overlaps == 0, "%d threads x %d rounds: no overlap, no bad free (%d)", THREADS,
	       ROUNDS, overlaps);
	tap_ok(arena.nr == 0 && !tq_arena_alloc(&arena, 64 * TQ_BUF_ALIGN, &off),
	       "everything came back");
	tq_arena_fini(&arena);
}

int main(void)
{
	test_basic();
	test_fill();
	test_threads();
	return tap_done();
}
