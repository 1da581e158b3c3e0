/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * num.h - the small numeric helpers tq's tools and tests share.
 */
#ifndef TQ_NUM_H
#define TQ_NUM_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * The whole of @s as an unsigned decimal number, with a binary suffix (K, M,
 * G or T, either case) where @suffix allows: 0, or -EINVAL for nothing, a
 * sign, anything after the number, or a value past 64 bits. The one parser
 * of the numbers tq's programs take on their command lines.
 */
static inline int tq_parse_u64(const char *s, bool suffix, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (suffix && *end) {
		const char *units = "KMGT", *u = strchr(units, toupper((unsigned char)*end));

		if (!u)
			return -EINVAL;
		shift = 10 * (unsigned int)(u - units + 1);
		end++;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/* The whole of @s as a finite number: 0, or -EINVAL. */
static inline int tq_parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*out) ? 0 : -EINVAL;
}

/*
 * The step of an axis over @range with at most @most steps: the smallest of
 * 1, 2, 2.5 and 5 times a power of ten that is enough ("nice numbers"). The
 * one tick step of tq's plots.
 */
static inline double tq_nice_step(double range, int most)
{
	static const double mant[] = { 1, 2, 2.5, 5 };
	double p;

	if (!(range > 0) || most < 1)
		return 1;
	p = pow(10, floor(log10(range / most)));
	for (size_t i = 0; i < sizeof(mant) / sizeof(mant[0]); i++)
		if (mant[i] * p * most >= range * (1 - 1e-9))
			return mant[i] * p;
	return 10 * p;
}

/*
 * The label of tick @k (the value k * @step) with as many decimals as the
 * step has: "0" at zero, never "-0" or "-0.00".
 */
static inline int tq_tick_label(char *buf, size_t size, long k, double step)
{
	int d = 0;

	while (d < 9 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6)
		d++;
	return snprintf(buf, size, "%.*f", d, k ? k * step : 0.0);
}

#endif /* TQ_NUM_H */
