// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - tqsubmitd's log: lines on stderr (the journal's, under systemd),
 * those above tqd_log_level left out (--verbose raises it to TQD_DEBUG).
 */
#include <stdarg.h>
#include <stdio.h>

#include "tqsubmitd.h"

int tqd_log_level = TQD_INFO;

void tqd_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > tqd_log_level)
		return;
	va_start(ap, fmt);
	fputs("tqsubmitd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
