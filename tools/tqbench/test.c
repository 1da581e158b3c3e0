// SPDX-License-Identifier: GPL-2.0
/*
 * test.c - a smoke run of tqcalib and tqbench on the first OpenCL device
 * (PoCL here), small enough for make check: the profile, then every setup
 * on three workers, and every output file there and well formed. The
 * numbers are not checked: speed is for the benchmarks, not the tests.
 * Skips when there is no OpenCL device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "../testutil.h"

/* Lines in dir/name, or -1 if it cannot be read; *first gets its first bytes. */
static int lines(const char *dir, const char *name, char *first, size_t size)
{
	char path[512], buf[4096];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	first[0] = 0;
	while (fgets(buf, sizeof(buf), f)) {
		if (!n)
			snprintf(first, size, "%.*s", (int)size - 1, buf);
		n++;
	}
	fclose(f);
	return n;
}

int main(void)
{
	static const char *const svgs[] = { "speedup-synthetic.svg", "speedup-real.svg",
					    "model.svg", "means.svg", "stream.svg" };
	char dir[] = "/tmp/tqbench-test.XXXXXX", cmd[1024], first[256];
	int st, n;

	if (!mkdtemp(dir))
		tap_skip_all("cannot make a temporary directory");
	snprintf(cmd, sizeof(cmd), "%s --quick -o %s/profile 2>&1; echo \"status $?\"",
		 TQCALIB_BIN, dir);
	st = test_run_status(cmd);
	if (st == 77) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			tap_diag("could not remove %s", dir);
		tap_skip_all("no OpenCL device");
	}
	tap_ok(st == 0, "tqcalib --quick");

	snprintf(cmd, sizeof(cmd), "%s --quick --profile %s/profile --out %s --data %s "
		 "--configs 3x1 --stream-s 0.3 --stream-workers 2 2>&1; echo \"status $?\"",
		 TQBENCH_BIN, dir, dir, TQ_DATA);
	tap_ok(test_run_status(cmd) == 0, "tqbench --quick");

	/* 2 suites x 5 benchmarks; per benchmark 3 NoReorder rows, 5 + 5 policies, 1 */
	n = lines(dir, "tqbench.csv", first, sizeof(first));
	tap_ok(n == 1 + 10 * 14, "tqbench.csv: a row per experiment and setup (%d lines)", n);
	n = lines(dir, "perms.csv", first, sizeof(first));
	tap_ok(n == 1 + 10 * 6, "perms.csv: every order of 3 tasks, 10 times (%d lines)", n);
	n = lines(dir, "stream.csv", first, sizeof(first));
	tap_ok(n == 1 + 4, "stream.csv: fifo, paper, auto, independent (%d lines)", n);
	tap_ok(lines(dir, "tg.csv", first, sizeof(first)) > 1, "tg.csv has TGs");
	n = lines(dir, "summary.md", first, sizeof(first));
	tap_ok(n > 20 && !strncmp(first, "<!--", 4), "summary.md written (%d lines)", n);
	for (size_t i = 0; i < sizeof(svgs) / sizeof(svgs[0]); i++) {
		n = lines(dir, svgs[i], first, sizeof(first));
		tap_ok(n > 3 && !strncmp(first, "<svg", 4), "%s is an SVG", svgs[i]);
	}

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
