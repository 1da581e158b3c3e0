// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the one clock of the library. Only the policies' time budget
 * (auto, and exact when given a budget) reads it; the simulator never does.
 */
#include <time.h>

#include "tqsim.h"

uint64_t tq_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
