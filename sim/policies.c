// SPDX-License-Identifier: GPL-2.0
/*
 * policies.c - the list of ordering policies, by name. It names every
 * policy's file, so it stays apart from policy.c, which they all call: the
 * files of the library call each other in one direction only
 * (selftests/layers.sh).
 */
#include <string.h>

#include "tqsim.h"

const struct tq_policy_ops *const tq_policies[] = {
	&tq_policy_fifo, &tq_policy_paper, &tq_policy_neh, &tq_policy_exact, &tq_policy_auto,
	&tq_policy_flow, NULL
};

const struct tq_policy_ops *tq_policy_find(const char *name)
{
	for (int i = 0; tq_policies[i]; i++)
		if (!strcmp(tq_policies[i]->name, name))
			return tq_policies[i];
	return NULL;
}
