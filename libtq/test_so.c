// SPDX-License-Identifier: GPL-2.0
/*
 * libtq.so.1 as a user gets it: the soname, every function of libtq.map at
 * its version (LIBTQ_1.0, or LIBTQ_1.1 for what 1.1 added), and none of
 * libtq's private functions.
 */
#include <dlfcn.h>
#include <errno.h>

#include <string.h>

#include "selftests/tap.h"

static const char *const exported[] = {
	"tq_open", "tq_close", "tq_buf_alloc", "tq_buf_free", "tq_enter", "tq_wait",
	"tq_register_program", "tq_register_builtin", "tq_lookup_kernel", "tq_strerror",
};

static const char *const exported_1_1[] = {
	"tq_register_program_log",
};

static const char *const private[] = {
	"tq_arena_init", "tq_arena_alloc", "tq_arena_free", "tq_rings_init",
};

int main(void)
{
	void *h = dlopen(LIBTQ_SO, RTLD_NOW | RTLD_LOCAL);
	const char *(*err)(int);
	unsigned int i;

	if (!tap_ok(h != NULL, "dlopen %s", LIBTQ_SO)) {
		tap_diag("%s", dlerror());
		return tap_done();
	}
	for (i = 0; i < sizeof(exported) / sizeof(exported[0]); i++)
		tap_ok(dlvsym(h, exported[i], "LIBTQ_1.0") != NULL, "%s@LIBTQ_1.0", exported[i]);
	for (i = 0; i < sizeof(exported_1_1) / sizeof(exported_1_1[0]); i++)
		tap_ok(dlvsym(h, exported_1_1[i], "LIBTQ_1.1") != NULL &&
		       dlvsym(h, exported_1_1[i], "LIBTQ_1.0") == NULL, "%s@LIBTQ_1.1 only",
		       exported_1_1[i]);
	for (i = 0; i < sizeof(private) / sizeof(private[0]); i++)
		tap_ok(dlsym(h, private[i]) == NULL, "%s is not exported", private[i]);
	err = (const char *(*)(int))dlvsym(h, "tq_strerror", "LIBTQ_1.0");
	tap_ok(err && err(-ETIME) && strstr(err(-ETIME), "timed out"), "the library runs");
	dlclose(h);
	return tap_done();
}
