// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * copy.c - the copies into and out of the arena, split over helper threads.
 *
 * A captured write's bytes must be in the arena before its task can start,
 * and a captured read's result reaches the program only after the task
 * ended: on the driver alone those copies overlap the device's (the driver
 * stages a pageable buffer in chunks), through the layer they add to the
 * task's latency. One thread copies a few GB/s; memory gives several times
 * that, so a large copy is cut into pieces that helper threads copy beside
 * the caller. A copy that finds the helpers busy (another thread's) runs
 * alone, as before.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tqcl.h"

#define COPY_HELPERS	3		/* at most; fewer on fewer CPUs */
#define COPY_PIECE	(512 << 10)	/* the least worth a helper's wake-up */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	int helpers;			/* started; -1: none could be */
	unsigned int gen;		/* bumped for each split copy */
	unsigned int pending;		/* pieces not yet copied */
	bool busy;			/* a split copy is under way */
	struct {
		char *dst;
		const char *src;
		size_t len;
	} piece[COPY_HELPERS];
} cp = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.go = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void *helper(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg, seen = 0;

	pthread_mutex_lock(&cp.lock);
	for (;;) {
		while (cp.gen == seen)
			pthread_cond_wait(&cp.go, &cp.lock);
		seen = cp.gen;
		if (!cp.piece[i].len)
			continue;
		pthread_mutex_unlock(&cp.lock);
		memcpy(cp.piece[i].dst, cp.piece[i].src, cp.piece[i].len);
		pthread_mutex_lock(&cp.lock);
		cp.piece[i].len = 0;
		if (!--cp.pending)
			pthread_cond_signal(&cp.done);
	}
	return NULL;
}

/*
 * The helpers, at the first copy worth them (cp.lock held): one for every
 * 4 CPUs, at most COPY_HELPERS (on a small machine their wake-ups cost more
 * than they copy: none); TQCL_COPY_HELPERS=N sets how many (0: none).
 */
static void helpers_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus / 4 > COPY_HELPERS ? COPY_HELPERS : (int)(cpus / 4);
	const char *s = getenv("TQCL_COPY_HELPERS");
	pthread_attr_t attr;

	if (s && *s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (*end || v < 0 || v > COPY_HELPERS)
			fprintf(stderr, "tqcl: TQCL_COPY_HELPERS=%s is not 0 to %d; using %d\n", s,
				COPY_HELPERS, want);
		else
			want = v;
	}

	cp.helpers = -1;
	if (want < 1 || pthread_attr_init(&attr))
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < want; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, helper, (void *)(uintptr_t)i))
			break;
		cp.helpers = i + 1;
	}
	pthread_attr_destroy(&attr);
}

/* memcpy(@dst, @src, @len), in pieces beside the helpers when it is large. */
void tqcl_copy(void *dst, const void *src, size_t len)
{
	size_t n = len / COPY_PIECE, piece, at;

	if (n < 2 || tqcl.forked) {
		memcpy(dst, src, len);
		return;
	}
	pthread_mutex_lock(&cp.lock);
	if (!cp.helpers)
		helpers_start();
	if (cp.helpers < 1 || cp.busy) {
		pthread_mutex_unlock(&cp.lock);
		memcpy(dst, src, len);
		return;
	}
	if (n > (size_t)cp.helpers + 1)
		n = cp.helpers + 1;
	/* the caller copies the first piece, each helper one of the others (64-byte aligned) */
	piece = (len / n + 63) & ~(size_t)63;
	at = piece;
	for (size_t i = 0; i + 1 < n && at < len; i++) {
		cp.piece[i].dst = (char *)dst + at;
		cp.piece[i].src = (const char *)src + at;
		cp.piece[i].len = len - at < piece ? len - at : piece;
		at += cp.piece[i].len;
		cp.pending++;
	}
	cp.busy = true;
	cp.gen++;
	pthread_cond_broadcast(&cp.go);
	pthread_mutex_unlock(&cp.lock);

	memcpy(dst, src, piece < len ? piece : len);

	pthread_mutex_lock(&cp.lock);
	while (cp.pending)
		pthread_cond_wait(&cp.done, &cp.lock);
	cp.busy = false;
	pthread_mutex_unlock(&cp.lock);
}
