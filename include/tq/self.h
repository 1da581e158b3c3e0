/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * self.h - where a program of tq finds another it starts by default: the
 * one beside it, in the directory of /proc/self/exe (a build tree's
 * build/bin/, or the installed bin/ and libexec ones beside each other).
 */
#ifndef TQ_SELF_H
#define TQ_SELF_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * @name beside this program, in @buf of @len bytes; @name alone when
 * /proc/self/exe cannot be read. A path past @len is cut short (and then
 * names no file: the caller's access() or exec says so).
 */
static inline void tq_sibling_path(char *buf, size_t len, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = 0;
	slash = strrchr(buf, '/');
	if (slash)
		snprintf(slash + 1, len - (size_t)(slash + 1 - buf), "%s", name);
	else
		snprintf(buf, len, "%s", name);
}

#endif /* TQ_SELF_H */
