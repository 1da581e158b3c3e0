// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the one clock of the library, tq's (<tq/clock.h>). Only the
 * policies' time budget (auto, and exact when given a budget) reads it; the
 * simulator never does.
 */
#include <tq/clock.h>

#include "tqsim.h"

uint64_t tqsim_clock_ns(void)
{
	return tq_now_ns();
}
