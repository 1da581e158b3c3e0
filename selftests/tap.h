/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the smallest TAP producer, for tq's native test programs.
 *
 * Each test program prints one "ok N - name" or "not ok N - name" line per
 * check and ends with tap_done(), which prints the plan and returns the exit
 * status (0 all passed, 1 any failed). A whole program that cannot run calls
 * tap_skip_all(reason), which exits 77 as automake and liburing do.
 * scripts/runtests counts these lines for make check's summary.
 */
#ifndef TQ_TAP_H
#define TQ_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count;
static int tap_failed;

static inline void tap_vresult(int pass, const char *fmt, va_list ap)
{
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		tap_failed++;
}

/* Record one check; returns pass so callers can chain diagnostics. */
static inline int __attribute__((format(printf, 2, 3)))
tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	return pass;
}

/* A skipped check counts as skipped, never as passed. */
static inline void __attribute__((format(printf, 2, 3)))
tap_skip(const char *name, const char *why_fmt, ...)
{
	va_list ap;

	printf("ok %d - %s # SKIP ", ++tap_count, name);
	va_start(ap, why_fmt);
	vprintf(why_fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Diagnostics go to stdout as TAP comments so they stay next to the check. */
static inline void __attribute__((format(printf, 1, 2)))
tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline __attribute__((noreturn)) void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(77);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* TQ_TAP_H */
