// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - tqcalib --quick on the first OpenCL device (PoCL here): it must
 * write a profile that sim's parser takes, with sane numbers and every
 * kernels/ task in it. Skips when there is no OpenCL device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/tqsim.h"
#include "../tap.h"
#include "../testutil.h"

/* each kernels/ task's __kernel function: the names usched looks up */
static const char *const tasks[] = { "mm", "black_scholes", "fwt", "floyd_warshall", "sep_conv",
				     "vec_add", "transpose", "dct8x8", "synthetic_kernel" };

int main(void)
{
	char path[] = "/tmp/tqcalib-test.XXXXXX", cmd[512], text[8192];
	struct tq_profile p;
	struct tq_parse_err err;
	size_t len;
	FILE *f;
	int fd, st;

	fd = mkstemp(path);
	if (fd < 0)
		tap_skip_all("cannot make a temporary file");
	close(fd);
	/* its report on stderr becomes TAP comments */
	snprintf(cmd, sizeof(cmd), "%s --quick -o %s 2>&1; echo \"status $?\"", TQCALIB_BIN,
		 path);
	st = test_run_status(cmd);
	if (st == 77) {
		unlink(path);
		tap_skip_all("no OpenCL device");
	}
	tap_ok(st == 0, "tqcalib --quick exits 0");

	f = fopen(path, "r");
	len = f ? fread(text, 1, sizeof(text), f) : 0;
	if (f)
		fclose(f);
	unlink(path);
	tap_ok(len > 0 && len < sizeof(text), "the profile was written");
	if (!tap_ok(tq_profile_parse(&p, text, len, &err) == 0, "the profile parses"))
		tap_diag("line %u: %s", err.line, err.reason);
	tap_ok(p.dma == 1 || p.dma == 2, "dma is 1 or 2 (%u)", p.dma);
	text[len < sizeof(text) ? len : 0] = 0;
	tap_ok(strstr(text, "\nlatency dependency ") && strstr(text, "\nlatency queue "),
	       "both command latencies written (dependency %.1f us, queue %.1f us)",
	       p.dep_ns / 1e3, p.gap_ns / 1e3);
	tap_ok(p.alone[TQ_HTD].bytes_per_ns > 0 && p.alone[TQ_DTH].bytes_per_ns > 0,
	       "both directions have a bandwidth (%.2f, %.2f GB/s)",
	       p.alone[TQ_HTD].bytes_per_ns, p.alone[TQ_DTH].bytes_per_ns);
	tap_ok(tq_profile_xfer_ns(&p, TQ_HTD, 1 << 20) > tq_profile_xfer_ns(&p, TQ_HTD, 4096),
	       "a larger copy is predicted to take longer");
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		double t1 = tq_profile_kernel_ns(&p, tasks[i], 1e6);

		tap_ok(t1 > 0 && t1 > tq_profile_kernel_ns(&p, tasks[i], 1e3),
		       "kernel %s: time grows with m", tasks[i]);
	}
	return tap_done();
}
