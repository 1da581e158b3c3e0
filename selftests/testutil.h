/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testutil.h - what native tests that drive a tool share: writing an input
 * file and running a shell command for its output or its exit status.
 */
#ifndef TQ_TESTUTIL_H
#define TQ_TESTUTIL_H

#include <stdio.h>
#include <sys/wait.h>

/* Write text to dir/name; a test that reads it back fails if this did not work. */
static inline void test_write(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Run cmd with sh; its stdout, NUL-terminated, into out; its exit status, or -1. */
static inline int test_capture(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Run cmd, which ends by printing "status $?", its other output as TAP
 * comments; returns that status, or -1.
 */
static inline int test_run_status(const char *cmd)
{
	char line[512];
	int st = -1;
	FILE *f = popen(cmd, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "status %d", &st) != 1)
			printf("# %s", line);
	if (f)
		pclose(f);
	return st;
}

#endif /* TQ_TESTUTIL_H */
