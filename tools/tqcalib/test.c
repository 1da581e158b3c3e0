// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - the transfer fits (kernels/cl/fit.c) on the H200's own numbers, then tqcalib --quick
 * on the first OpenCL device (PoCL here): it must write a profile that sim's
 * parser takes, with sane numbers and every kernels/ task in it. The run
 * skips when there is no OpenCL device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/cl/clu.h"
#include "sim/tqsim.h"
#include "selftests/tap.h"
#include "selftests/testutil.h"

/* each kernels/ task's __kernel function: the names usched looks up */
static const char *const tasks[] = { "mm", "black_scholes", "fwt", "floyd_warshall", "sep_conv",
				     "vec_add", "transpose", "dct8x8", "synthetic_kernel" };

/*
 * tqcalib's transfer sweep on the H200 (2026-12-01 03:54, Documentation/
 * results/h200-plans/calib.csv, in git at f01bb45), 256 KiB .. 512 MiB, ns; 0: no copy of that
 * size was fully overlapped. The TGs' copies there ran 1.08-1.18 (HtD) and
 * 1.08-1.09 (DtH) times slower overlapped.
 */
static const double h200_bytes[] = { 262144, 1048576, 4194304, 16777216, 67108864, 268435456,
				      536870912 };
static const double h200_t[4][7] = {
	{ 7584, 21952, 94496, 345088, 1212000, 4861184, 9698432 },	/* htd alone */
	{ 0, 23040, 82432, 332032, 1310208, 5396736, 11209728 },	/* htd overlapped */
	{ 6112, 20640, 77248, 348096, 1209696, 4847776, 9710912 },	/* dth alone */
	{ 0, 26880, 87040, 333312, 1320960, 5268736, 10458368 },	/* dth overlapped */
};

static double line_slope(const double *t)
{
	double x[7], y[7], a, b;
	size_t n = 0;

	for (size_t i = 0; i < 7; i++) {
		if (t[i] > 0) {
			x[n] = h200_bytes[i];
			y[n++] = t[i];
		}
	}
	return clu_fit_line(x, y, n, &a, &b) ? 0 : b;
}

static void test_fits(void)
{
	for (int d = 0; d < 2; d++) {
		const double *alone = h200_t[2 * d], *ov = h200_t[2 * d + 1];
		double lines = line_slope(ov) / line_slope(alone);
		double slow = clu_tail_ratio(ov, alone, 7, 3);

		tap_ok(slow > (d ? 1.08 : 1.10) && slow < (d ? 1.09 : 1.12),
		       "%s overlapped: x%.3f from the three largest sizes (two lines: x%.3f)",
		       d ? "dth" : "htd", slow, lines);
	}
	{
		double num[] = { 2, 0, 3, 9 }, den[] = { 1, 1, 0, 3 };

		tap_ok(clu_tail_ratio(num, den, 4, 3) == 2.5,
		       "clu_tail_ratio skips sizes without a sample (3 and 2 of the last 3)");
		tap_ok(clu_tail_ratio(num, den, 0, 3) == 0, "clu_tail_ratio of nothing is 0");
	}
}

int main(void)
{
	char path[] = "/tmp/tqcalib-test.XXXXXX", cmd[512], text[8192];
	struct tqsim_profile p;
	struct tqsim_parse_err err;
	size_t len;
	FILE *f;
	int fd, st;

	test_fits();
	fd = mkstemp(path);
	if (fd < 0) {
		tap_skip("tqcalib --quick", "cannot make a temporary file");
		return tap_done();
	}
	close(fd);
	/* its report on stderr becomes TAP comments */
	snprintf(cmd, sizeof(cmd), "%s --quick -o %s 2>&1; echo \"status $?\"", TQCALIB_BIN,
		 path);
	st = test_run_status(cmd);
	if (st == 77) {
		unlink(path);
		tap_skip("tqcalib --quick", "no OpenCL device");
		return tap_done();
	}
	tap_ok(st == 0, "tqcalib --quick exits 0");

	f = fopen(path, "r");
	len = f ? fread(text, 1, sizeof(text), f) : 0;
	if (f)
		fclose(f);
	unlink(path);
	tap_ok(len > 0 && len < sizeof(text), "the profile was written");
	if (!tap_ok(tqsim_profile_parse(&p, text, len, &err) == 0, "the profile parses"))
		tap_diag("line %u: %s", err.line, err.reason);
	tap_ok(p.dma == 1 || p.dma == 2, "dma is 1 or 2 (%u)", p.dma);
	text[len < sizeof(text) ? len : 0] = 0;
	tap_ok(strstr(text, "\nlatency dependency ") && strstr(text, "\nlatency queue "),
	       "both command latencies written (dependency %.1f us, queue %.1f us)",
	       p.dep_ns / 1e3, p.gap_ns / 1e3);
	tap_ok(p.alone[TQSIM_HTD].bytes_per_ns > 0 && p.alone[TQSIM_DTH].bytes_per_ns > 0,
	       "both directions have a bandwidth (%.2f, %.2f GB/s)",
	       p.alone[TQSIM_HTD].bytes_per_ns, p.alone[TQSIM_DTH].bytes_per_ns);
	tap_ok(tqsim_profile_xfer_ns(&p, TQSIM_HTD, 1 << 20) > tqsim_profile_xfer_ns(&p, TQSIM_HTD, 4096),
	       "a larger copy is predicted to take longer");
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		double t1 = tqsim_profile_kernel_ns(&p, tasks[i], 1e6);

		tap_ok(t1 > 0 && t1 > tqsim_profile_kernel_ns(&p, tasks[i], 1e3),
		       "kernel %s: time grows with m", tasks[i]);
	}
	for (unsigned int i = 0; i < p.nkernels; i++) {
		const struct tqsim_kernel_model *k = &p.kernel[i];
		bool in_range = k->nwidth > 0;

		for (unsigned int j = 0; j < k->nwidth; j++)
			in_range &= k->width[j] >= 0.5 && k->width[j] <= 1;
		tap_ok(in_range, "kernel %s: %u widths measured, each in [0.5, 1] (first %.2f)",
		       k->name, k->nwidth, k->nwidth ? k->width[0] : 0);
	}
	return tap_done();
}
