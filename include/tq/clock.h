/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * clock.h - the one clock of tq's user space: CLOCK_MONOTONIC, the clock of
 * the ABI's times (queued_ns, start_ns, end_ns), so that what a program
 * reads here compares with what the module and the daemons report.
 */
#ifndef TQ_CLOCK_H
#define TQ_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, in CLOCK_MONOTONIC ns. */
static inline uint64_t tq_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Now, in CLOCK_MONOTONIC seconds. */
static inline double tq_now_s(void)
{
	return tq_now_ns() / 1e9;
}

#endif /* TQ_CLOCK_H */
