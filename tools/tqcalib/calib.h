/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calib.h - what tqcalib.c's kernel sweep hands pairs.c: each size of a
 * kernels/ task it timed, alone and two at once, and the task at a size.
 */
#ifndef TQCALIB_CALIB_H
#define TQCALIB_CALIB_H

#include "kernels/clx.h"

#define MAX_STEPS	48

/* One kernel's sweep: per size, its time alone, width and demand (sim/tqsim.h). */
struct sweep {
	const struct tqk_task *t;
	unsigned int n;
	struct tqk_size sz[MAX_STEPS];
	double m[MAX_STEPS], ns[MAX_STEPS], bytes[MAX_STEPS];
	double width[MAX_STEPS], demand[MAX_STEPS];
};

/* Task @t at size @sz as tqcalib runs it (SYN on device memory alone); 0 or -errno. */
int calib_task(struct btask *b, const struct tqk_task *t, struct tqk_size sz);

/*
 * tqcalib --pairs: from the @n sweeps, each kernel at three sizes (S, M, L:
 * alone closest to 1/200, 1/40 and 3/20 of @kernel_ms), every ordered pair
 * of them run side by side on two kernel queues @reps times, and each
 * alone; one CSV line per pair to @path (fit.h). 0 or -errno.
 */
int pairs_measure(struct clx *c, const struct sweep *sw, unsigned int n, double kernel_ms,
		  unsigned int reps, const char *path);

#endif /* TQCALIB_CALIB_H */
