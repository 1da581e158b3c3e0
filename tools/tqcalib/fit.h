/* SPDX-License-Identifier: GPL-2.0 */
/* fit.h - the statistics tqcalib and tqbench need: medians and a straight-line fit. */
#ifndef TQ_FIT_H
#define TQ_FIT_H

#include <stddef.h>

/* Median of v[0..n-1] (reorders v); 0 for n == 0. */
double median(double *v, size_t n);

/*
 * y = a + b x by least squares on the relative error (each point weighted
 * 1/y^2), so small and large sizes count alike; a is kept >= 0 (refit
 * through the origin if it came out negative). 0, or -1 for fewer than two
 * distinct x.
 */
int fit_line(const double *x, const double *y, size_t n, double *a, double *b);

/*
 * Median of num[i] / den[i] over the last k indices where both are > 0
 * (counting down from n - 1: the largest sizes of a sweep); 0 if none.
 */
double tail_ratio(const double *num, const double *den, size_t n, size_t k);

#endif /* TQ_FIT_H */
