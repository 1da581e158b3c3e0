// SPDX-License-Identifier: GPL-2.0
/* fit.c - the line fit and ratio of clu.h: plain arithmetic, no OpenCL. */
#include "kernels/cl/clu.h"
#include "tq/num.h"

int clu_fit_line(const double *x, const double *y, size_t n, double *a, double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det;

	for (size_t i = 0; i < n; i++) {
		double w = y[i] > 0 ? 1 / (y[i] * y[i]) : 0;

		sw += w;
		sx += w * x[i];
		sy += w * y[i];
		sxx += w * x[i] * x[i];
		sxy += w * x[i] * y[i];
	}
	det = sw * sxx - sx * sx;
	if (n < 2 || !(det > 1e-12 * sw * sxx))
		return -1;
	*a = (sy * sxx - sx * sxy) / det;
	*b = (sw * sxy - sx * sy) / det;
	if (*a < 0) {
		*a = 0;
		*b = sxy / sxx;
	}
	return 0;
}

double clu_tail_ratio(const double *num, const double *den, size_t n, size_t k)
{
	double r[64];
	size_t nr = 0;

	if (k > sizeof(r) / sizeof(r[0]))
		k = sizeof(r) / sizeof(r[0]);
	for (size_t i = n; i-- > 0 && nr < k;)
		if (num[i] > 0 && den[i] > 0)
			r[nr++] = num[i] / den[i];
	return tq_median(r, nr);
}
