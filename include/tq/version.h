/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * version.h - --version, the same in every program of tq: "NAME (tq)
 * VERSION" on stdout and status 0, as GNU's programs say it. TQ_VERSION is
 * tq's version (LIBTQ_VERSION), from the build's generated tq_version.h.
 */
#ifndef TQ_VERSION_H
#define TQ_VERSION_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tq_version.h"

/*
 * Answer --version if it is among @argv's options (those before "--"), as
 * @name. Called first in main(): it takes no other option into account.
 */
static inline void tq_version_opt(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--version")) {
			printf("%s (tq) %s\n", name, TQ_VERSION);
			exit(0);
		}
	}
}

#endif /* TQ_VERSION_H */
