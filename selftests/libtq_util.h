/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtq_util.h - what libtq's tests in the VM share: tq_echod as a child
 * process, the module's sysfs counters, a context's fdinfo, and the checks
 * that skip a test that cannot run here.
 */
#ifndef LIBTQ_UTIL_H
#define LIBTQ_UTIL_H

#include <stdint.h>
#include <sys/types.h>

#include "tq.h"
#include "tq_sysfs.h"

#ifndef TQ_ECHOD
#define TQ_ECHOD	"build/bin/tq_echod"
#endif

/* Skip the whole program unless /dev/tqsubmit, root and tq_echod are here. */
void lt_require_vm(void);

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

#endif /* LIBTQ_UTIL_H */
