/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * log.h - how tq's daemons (usched, tqsubmitd) write their log: a line on
 * stderr, with sd-daemon(3)'s "<N>" priority first when stderr is systemd's
 * journal (so that journalctl -p err shows their errors), or syslog(3) once
 * they have detached from the terminal. Priorities are syslog's (LOG_ERR...).
 */
#ifndef TQ_LOG_H
#define TQ_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <syslog.h>

struct tq_log {
	const char *ident;	/* the program: each line's "IDENT: ", syslog's tag */
	int max;		/* lines of a lower priority (a greater number) are left out */
	bool syslog;		/* detached: syslog(3), not stderr */
	bool journal;		/* stderr is the journal's stream: "<N>" first */
};

/* Whether stderr is the journal's: $JOURNAL_STREAM names its "DEVICE:INODE". */
static inline bool tq_log_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) &&
	       st.st_dev == dev && st.st_ino == ino;
}

/* Log as @ident to syslog or stderr; LOG_DEBUG's lines only when @verbose. */
static inline void tq_log_open(struct tq_log *l, const char *ident, bool to_syslog, bool verbose)
{
	l->ident = ident;
	l->max = verbose ? LOG_DEBUG : LOG_INFO;
	l->syslog = to_syslog;
	l->journal = tq_log_journal();
	if (to_syslog)
		openlog(ident, LOG_PID, LOG_DAEMON);
}

/* One line at priority @prio; written whole, so that threads' lines do not mix. */
static inline void tq_vlog(const struct tq_log *l, int prio, const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	if (prio > l->max)
		return;
	if (l->syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	n = l->journal ? snprintf(line, sizeof(line), "<%d>%s: ", prio, l->ident) :
			 snprintf(line, sizeof(line), "%s: ", l->ident);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	fprintf(stderr, "%s\n", line);
}

#endif /* TQ_LOG_H */
