// SPDX-License-Identifier: GPL-2.0
/*
 * policies.c - the list of ordering policies, by name. It names every
 * policy's file, so it stays apart from policy.c, which they all call: the
 * files of the library call each other in one direction only
 * (selftests/layers.sh).
 */
#include <string.h>

#include "tqsim.h"

const struct tqsim_policy_ops *const tqsim_policies[] = {
	&tqsim_policy_fifo, &tqsim_policy_paper, &tqsim_policy_neh, &tqsim_policy_exact, &tqsim_policy_auto,
	&tqsim_policy_flow, NULL
};

const struct tqsim_policy_ops *tqsim_policy_find(const char *name)
{
	for (int i = 0; tqsim_policies[i]; i++)
		if (!strcmp(tqsim_policies[i]->name, name))
			return tqsim_policies[i];
	return NULL;
}
