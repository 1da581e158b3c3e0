// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - tqsubmitd's log: stderr until it detaches (the journal's under
 * systemd, priorities first), syslog after (include/tq/log.h).
 */
#include <stdarg.h>
#include <tq/log.h>

#include "tqsubmitd.h"

static struct tq_log lg = { .ident = "tqsubmitd", .max = LOG_INFO };

void tqd_log_init(bool to_syslog, bool verbose)
{
	tq_log_open(&lg, "tqsubmitd", to_syslog, verbose);
}

void tqd_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tq_vlog(&lg, prio, fmt, ap);
	va_end(ap);
}
