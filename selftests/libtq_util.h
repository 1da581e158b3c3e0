/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtq_util.h - what libtq's tests share: tq_echod as a child process, the
 * server's counters (the module's sysfs, or tqsubmitd's), a context's
 * fdinfo, and the checks that skip a test that cannot run here. The tests
 * run on either transport, as libtq picks it: in the test VM on the module,
 * natively on tqsubmitd under selftests/socket_env.sh (TQ_TRANSPORT=socket).
 */
#ifndef LIBTQ_UTIL_H
#define LIBTQ_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "selftests/tap.h"
#include "libtq/tq.h"
#include "selftests/kmod/tq_sysfs.h"
#include "tq_transport.h"

#ifndef TQ_ECHOD
#define TQ_ECHOD	"build/bin/tq_echod"
#endif
#ifndef TQSUBMITD
#define TQSUBMITD	"build/bin/tqsubmitd"
#endif

/*
 * Skip the whole program unless its transport is here: /dev/tqsubmit and
 * root (tq_echod attaches), or tqsubmitd's socket; and tq_echod.
 */
void lt_require_vm(void);

/* The transport the tests run on: TQT_MODULE or TQT_SOCKET (tq_transport.h). */
int lt_transport(void);
static inline int lt_socket(void)
{
	return lt_transport() == TQT_SOCKET;
}

/*
 * A global counter of the server: the module's sysfs file of that name, or
 * tqsubmitd's (its TQD_SOCK_STATS command); -1 when there is none.
 */
long long lt_stat(const char *name);

/*
 * A check on the server's counters: tap_ok(), or a skip when the server has
 * no counter @stat (a tqsubmitd without TQD_SOCK_STATS). Returns pass (1 if skipped).
 */
static inline int __attribute__((format(printf, 3, 4)))
lt_stat_ok(int pass, const char *stat, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (lt_stat(stat) < 0) {
		tap_skip(name, "the server has no counter %s (a tqsubmitd without TQD_SOCK_STATS)", stat);
		return 1;
	}
	return tap_ok(pass, "%s", name);
}

/* A check that needs a per-context counter (fdinfo) the socket has none of. */
#define LT_NO_FDINFO	"tqsubmitd's contexts are sockets: no fdinfo counters"

/*
 * Start tq_echod with up to two extra arguments (NULL for none) and wait
 * until it is the attached scheduler. Returns its pid or -1.
 */
pid_t lt_echod_start(const char *arg1, const char *arg2);

/* SIGTERM it (unless it exited on its own) and reap it; its wait status. */
int lt_echod_stop(pid_t pid);

/* Reap a tq_echod that exits by itself (-n); its wait status, -1 on timeout. */
int lt_echod_wait(pid_t pid, int timeout_ms);

/* Wait up to @timeout_ms for a counter to equal @want; returns its last value. */
long long lt_stat_wait(const char *name, long long want, int timeout_ms);

/* A field of /proc/PID/fdinfo/FD (PID 0: ours), "submitted" for example, or -1. */
long long lt_fdinfo(pid_t pid, int fd, const char *key);

/* Print /proc/self/fdinfo/FD as TAP comments (a failed test's evidence). */
void lt_fdinfo_dump(int fd);

int64_t lt_now_ms(void);

/*
 * Start tqsubmitd (@prog, NULL: $TQSUBMITD, else TQSUBMITD) in the
 * foreground on sockets in a new directory @dir (at least 64 bytes), and
 * point TQ_SOCKET and TQ_SCHED_SOCKET at them; wait until it listens.
 * Its pid, or -1 (said why on stderr). lt_tqsubmitd_stop() ends it.
 */
pid_t lt_tqsubmitd_start(const char *prog, char *dir);
void lt_tqsubmitd_stop(pid_t pid, const char *dir);

#endif /* LIBTQ_UTIL_H */
