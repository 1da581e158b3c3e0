/* SPDX-License-Identifier: GPL-2.0 */
/* num.h - small numeric helpers of tq's user space. */
#ifndef TQ_NUM_H
#define TQ_NUM_H

#include <stddef.h>
#include <stdlib.h>

/* qsort() comparison of doubles, ascending. */
static inline int tq_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorts v); 0 for n == 0. */
static inline double tq_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), tq_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* TQ_NUM_H */
