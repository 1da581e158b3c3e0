/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tq_sysfs.h - the module's counters in sysfs and the module file the tests
 * reload, for the selftests of the module (tq_util.h) and libtq's suites
 * (selftests/libtq_util.h), whose other helpers cannot share a file: both
 * have a raw_enter(), the raw ioctl's and libtq's.
 */
#ifndef TQ_SELFTEST_SYSFS_H
#define TQ_SELFTEST_SYSFS_H

#include <stdio.h>
#include <stdlib.h>
#include <linux/tqsubmit.h>

#define TQ_SYSFS	"/sys/class/misc/" TQ_DEVICE_NAME "/"

/* A global counter from sysfs, or -1. */
static inline long long raw_stat(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), TQ_SYSFS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * The tqsubmit.ko that is loaded: scripts/vm's TQ_MODULE (a module built for
 * another kernel, such as the debug kernel's), else this tree's.
 */
static inline const char *raw_module_path(void)
{
	const char *ko = getenv("TQ_MODULE");

	return ko && *ko ? ko : "kmod/tqsubmit.ko";
}

#endif /* TQ_SELFTEST_SYSFS_H */
