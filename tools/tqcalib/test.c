// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - the transfer fits (kernels/cl/fit.c) on the H200's own numbers;
 * the pairs' fit (fit.c) on pairs made by a known rule, and its refusals;
 * then tqcalib --quick on the first OpenCL device (PoCL here): it must
 * write a profile that sim's parser takes, with sane numbers and every
 * kernels/ task in it; and --pairs on two kernels, fitted with the
 * committed split. The runs skip when there is no OpenCL device.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/cl/clu.h"
#include "sim/tqsim.h"
#include "tools/tqcalib/fit.h"
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

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static uint64_t rng = 44;

static double uniform(double lo, double hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (hi - lo) * (double)(rng >> 11) / (double)(1ull << 53);
}

/*
 * Pairs made by the rule "demand first 0.12" with the committed split's
 * keys, as a CSV: the fit must find that rule and predict the held-out
 * pairs exactly.
 */
static void test_fit_known(const char *dir)
{
	static struct pair_split sp;
	static struct pair_row rows[PAIR_MAX];
	const struct pair_rule truth = { TQSIM_SRC_DEMAND, TQSIM_SHARE_FIRST, 0.12 };
	char csv[512], err[512], line[64];
	struct pair_rule best;
	struct pair_stats hold;
	unsigned int n = 0, unlisted = 0;
	FILE *f, *null;
	int ret;

	ret = pair_split_read(TQCALIB_SPLIT, &sp, err, sizeof(err));
	if (!tap_ok(!ret && sp.n == 378, "the committed split reads: %u pairs", sp.n))
		tap_diag("%s", err);
	snprintf(csv, sizeof(csv), "%s/known.csv", dir);
	f = fopen(csv, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", PAIR_CSV_HEADER);
	for (unsigned int i = 0; i < sp.n; i++) {
		struct pair_row r = { .start = { 0, uniform(0, 2e4) } };
		double end[2];

		for (int k = 0; k < 2; k++) {
			r.alone[k] = uniform(5e4, 3e6);
			r.demand[k] = uniform(0.05, 1);
			r.width[k] = uniform(0.5, 1);
		}
		pair_predict(&r, &truth, end);
		fprintf(f, "%s,x,y,1,1,1,compute,0.1,%.6f,%.6f,%.1f,2,1,2,memory,0.9,%.6f,%.6f,%.1f,"
			"0,%.1f,%.1f,%.1f,3\n", sp.key[i], r.demand[0], r.width[0], r.alone[0],
			r.demand[1], r.width[1], r.alone[1], end[0], r.start[1], end[1]);
	}
	/* a pair the split does not list is left out */
	fprintf(f, "ZZ.S+ZZ.S,ZZ.S,ZZ.S,1,1,1,compute,0.1,1,1,10,1,1,1,compute,0.1,1,1,10,0,10,10,20,3\n");
	fclose(f);
	ret = pair_csv_read(csv, &sp, rows, &n, &unlisted, err, sizeof(err));
	if (!tap_ok(!ret && n == sp.n && unlisted == 1, "its CSV reads: %u pairs, %u unlisted", n,
		    unlisted))
		tap_diag("%s", err);
	null = fopen("/dev/null", "w");
	ret = pair_fit(rows, n, &best, null ? null : stderr, line, sizeof(line));
	if (null)
		fclose(null);
	tap_ok(!ret && best.src == truth.src && best.kshare == truth.kshare &&
	       fabs(best.kcost - truth.kcost) < 1e-9,
	       "the fit finds the rule that made the pairs: %s", line);
	pair_score(rows, n, ROLE_HOLD, &best, &hold);
	tap_ok(hold.n == 126 && hold.ms_p90 < 1e-4 && hold.end_mean < 1e-4,
	       "and predicts the %u held-out pairs (p90 %.4f%%)", hold.n, 100 * hold.ms_p90);
	unlink(csv);
}

/* Bad splits and CSVs: refused with the file, the line and why. */
static void test_fit_refusals(const char *dir)
{
	static const struct {
		const char *split, *csv, *why;
	} bad[] = {
		{ "fit MM.S+VA.S\nmaybe MM.S+VA.M\n", NULL, ":2: 'maybe' is not fit or hold" },
		{ "fit MM.S+VA.S\nfit MM.S+VA.S\n", NULL, ":2: MM.S+VA.S listed twice" },
		{ "fit MM.S\n", NULL, ":1: expected: fit|hold A.C+B.C" },
		{ "# nothing\n", NULL, ":1: no pairs" },
		{ "fit A+B\n", "key,a,b\n", ":1: not tqcalib --pairs's header" },
		{ "fit A+B\n", PAIR_CSV_HEADER "\nA+B,A,B,1\n", ":2: wrong number of fields" },
		{ "fit A+B\n", PAIR_CSV_HEADER "\nA+B,A,B,1,1,1,k,1,0,1,10,1,1,1,k,1,1,1,10,0,10,0,10,3\n",
		  ":2: a demand or width outside (0, 1]" },
		{ "fit A+B\n", PAIR_CSV_HEADER "\nA+B,A,B,1,1,1,k,1,1,1,10,1,1,1,k,1,1,1,10,0,10,5,5,3\n",
		  ":2: a kernel that takes no time" },
		{ "fit A+B\n", PAIR_CSV_HEADER "\nA+B,A,B,1,1,1,k,1,1,1,-10,1,1,1,k,1,1,1,10,0,10,0,10,3\n",
		  ":2: a time, share or demand is not a number" },
	};
	static struct pair_split sp;
	static struct pair_row rows[4];
	char split[512], csv[512], err[1024];
	unsigned int n, unlisted;

	snprintf(split, sizeof(split), "%s/split", dir);
	snprintf(csv, sizeof(csv), "%s/bad.csv", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		write_file(split, bad[i].split);
		ret = pair_split_read(split, &sp, err, sizeof(err));
		if (bad[i].csv) {
			write_file(csv, bad[i].csv);
			ret = ret ?: pair_csv_read(csv, &sp, rows, &n, &unlisted, err, sizeof(err));
		}
		tap_ok(ret == -EINVAL && strstr(err, bad[i].why), "refused: %s (%s)", bad[i].why, err);
	}
	write_file(split, "fit A+B\nhold A+A\n");
	write_file(csv, PAIR_CSV_HEADER
		   "\nA+B,A,B,1,1,1,k,1,1,1,10,1,1,1,k,1,1,1,10,0,10,0,20,3\n"
		   "A+A,A,A,1,1,1,k,1,1,1,10,1,1,1,k,1,1,1,10,0,10,0,20,3\n");
	tap_ok(!pair_split_read(split, &sp, err, sizeof(err)) &&
	       !pair_csv_read(csv, &sp, rows, &n, &unlisted, err, sizeof(err)) && n == 2 &&
	       pair_lost(rows, n) == 0, "two pairs that ran one after the other read, none lost");
	{
		struct pair_rule best;
		char line[64];

		tap_ok(pair_fit(rows, n, &best, stderr, line, sizeof(line)) == -ENODATA,
		       "fewer than 3 pairs to fit on: -ENODATA");
	}
	unlink(split);
	unlink(csv);
}

/* tqcalib --pairs on two kernels, then --fit on its CSV with the committed split. */
static void test_pairs_run(const char *dir)
{
	char cmd[2048], csv[256], prof[256], text[8192];
	struct tqsim_profile p;
	struct tqsim_parse_err err;
	unsigned int lines = 0;
	size_t len;
	FILE *f;
	int st;

	snprintf(csv, sizeof(csv), "%s/pairs.csv", dir);
	snprintf(prof, sizeof(prof), "%s/profile", dir);
	snprintf(cmd, sizeof(cmd), "%s --quick --tasks VA,SYN --pairs %s -o %s 2>&1; "
		 "echo \"status $?\"", TQCALIB_BIN, csv, prof);
	st = test_run_status(cmd);
	if (st == 77) {
		tap_skip("tqcalib --pairs", "no OpenCL device");
		return;
	}
	tap_ok(st == 0, "tqcalib --quick --tasks VA,SYN --pairs exits 0");
	f = fopen(csv, "r");
	while (f && fgets(text, sizeof(text), f))
		lines++;
	if (f)
		fclose(f);
	tap_ok(lines == 1 + 36, "the CSV has its header and 36 pairs (6 items, each order): %u lines",
	       lines);
	f = fopen(prof, "r");
	len = f ? fread(text, 1, sizeof(text), f) : 0;
	if (f)
		fclose(f);
	if (tap_ok(!tqsim_profile_parse(&p, text, len, &err), "its profile parses")) {
		bool ok = p.nkernels == 2;

		for (unsigned int i = 0; i < p.nkernels; i++)
			for (unsigned int j = 0; j < p.kernel[i].ndemand; j++)
				ok &= p.kernel[i].ndemand > 0 && p.kernel[i].demand[j] > 0 &&
				      p.kernel[i].demand[j] <= 1;
		tap_ok(ok, "each kernel has demand points in (0, 1]");
	}
	snprintf(cmd, sizeof(cmd), "%s --fit %s --split %s -o %s.rule 2>&1; echo \"status $?\"",
		 TQCALIB_BIN, csv, TQCALIB_SPLIT, prof);
	tap_ok(test_run_status(cmd) == 0, "tqcalib --fit on them with the committed split exits 0");
	snprintf(cmd, sizeof(cmd), "%s.rule", prof);
	f = fopen(cmd, "r");
	len = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	text[len] = 0;
	tap_ok(strstr(text, "\nconcurrent ") != NULL, "and writes the profile's concurrent line");
	unlink(cmd);
	unlink(csv);
	unlink(prof);
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
	{
		char dir[] = "/tmp/tqcalib-fit.XXXXXX";

		if (mkdtemp(dir)) {
			test_fit_known(dir);
			test_fit_refusals(dir);
			test_pairs_run(dir);
			rmdir(dir);
		}
	}
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
