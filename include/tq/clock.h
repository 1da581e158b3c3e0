/* SPDX-License-Identifier: GPL-2.0 */
/* clock.h - the one clock of tq's user space: CLOCK_MONOTONIC in ns. */
#ifndef TQ_CLOCK_H
#define TQ_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t tq_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* TQ_CLOCK_H */
