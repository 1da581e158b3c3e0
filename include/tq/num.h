/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * num.h - the small numeric helpers tq's tools and tests share.
 */
#ifndef TQ_NUM_H
#define TQ_NUM_H

#include <stddef.h>
#include <stdlib.h>

/* Ascending order of doubles, for qsort(). */
static inline int tq_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median of v[0..n): sorts v in place; with n even, the mean of the two
 * middle values; 0 when n is 0.
 */
static inline double tq_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), tq_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* TQ_NUM_H */
