// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - usched's log: stderr in the foreground (systemd's journal
 * takes it from there), syslog once daemonized.
 */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "daemon.h"

static bool log_stderr = true;
static bool log_debug;

void dlog_init(bool foreground, bool verbose)
{
	log_stderr = foreground;
	log_debug = verbose;
	if (!foreground)
		openlog("usched", LOG_PID, LOG_DAEMON);
}

void dlog(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG && !log_debug)
		return;
	va_start(ap, fmt);
	if (log_stderr) {
		fprintf(stderr, "usched: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(prio, fmt, ap);
	}
	va_end(ap);
}
