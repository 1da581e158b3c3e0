// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - usched's log: stderr in the foreground (the journal's under
 * systemd, priorities first), syslog once daemonized (include/tq/log.h).
 */
#include <stdarg.h>
#include <tq/log.h>

#include "daemon.h"

static struct tq_log lg = { .ident = "usched", .max = LOG_INFO };

void dlog_init(bool foreground, bool verbose)
{
	tq_log_open(&lg, "usched", !foreground, verbose);
}

void dlog(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tq_vlog(&lg, prio, fmt, ap);
	va_end(ap);
}
