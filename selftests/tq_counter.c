// SPDX-License-Identifier: GPL-2.0
/*
 * tq_counter - print the server's counters for shell tests, on either
 * transport as libtq picks it: the module's sysfs files, or tqsubmitd's
 * (TQD_SOCK_STATS on its client socket, $TQ_SOCKET). One value a line, -1
 * for a counter the server does not have.
 *
 * Usage: tq_counter NAME...        e.g. tq_counter scheduler_pid in_flight
 */
#include <stdio.h>

#include "libtq_util.h"
#include "tq/version.h"

int main(int argc, char **argv)
{
	int i;

	tq_version_opt(argc, argv, "tq_counter");
	if (argc < 2) {
		fprintf(stderr, "usage: tq_counter NAME...\n");
		return 2;
	}
	if (lt_transport() < 0) {
		fprintf(stderr, "tq_counter: TQ_TRANSPORT is not module, socket or auto\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		printf("%lld\n", lt_stat(argv[i]));
	return 0;
}
