/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testlib.h - what usched's tests share: finding a device, an arena, the
 * built-in tasks of kernels/ as usched tasks with their checks, and a
 * completion sink that counts every completion.
 */
#ifndef USCHED_TESTLIB_H
#define USCHED_TESTLIB_H

#include <pthread.h>
#include <stdatomic.h>

#include "kernels/tqkernels.h"
#include "usched.h"

/* Point PoCL's kernel cache into build/; NULL, or why no test can run. */
const char *tl_setup(void);

/* Host memory for task buffers, registered as one region. */
struct tl_arena {
	char *base;
	size_t len, used;
	uint32_t region;
};

int tl_arena_init(struct tl_arena *a, struct usched *u, size_t len);
void tl_arena_free(struct tl_arena *a);

/* One run of a built-in task; its usched_task's user_data points back to it. */
struct tl_job {
	const struct tqk_task *tt;
	struct tqk_size sz;
	uint64_t seed;
	void *bufs[TQK_MAX_BUFS];
	struct usched_task task;
	struct usched_completion c;
	atomic_int ncompl;
};

/* Kernel ids of every built-in task, indexed as tqk_tasks[]. */
int tl_builtins(struct usched *u, uint32_t kernel[]);
/* usched_create(o), then tl_builtins(); on failure a TAP diagnostic and exit(1). */
struct usched *tl_open(const struct usched_opts *o, uint32_t kernel[]);
/* A small size of tt that runs quickly on a CPU; which picks one of a few. */
struct tqk_size tl_small(const struct tqk_task *tt, unsigned int which);
int tl_job_init(struct tl_job *j, struct tl_arena *a, const struct tqk_task *tt,
		struct tqk_size sz, uint64_t seed, uint32_t kernel, uint64_t owner);
int tl_job_verify(const struct tl_job *j, struct tqk_mismatch *mm);

/* usched_opts.complete = tl_complete, .complete_arg = a struct tl_sink. */
struct tl_sink {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long done;
};

void tl_sink_init(struct tl_sink *s);
void tl_complete(void *arg, const struct usched_completion *c);
/* Wait for n completions by running usched_process(). */
void tl_run(struct usched *u, struct tl_sink *s, unsigned long n);

#endif /* USCHED_TESTLIB_H */
