// SPDX-License-Identifier: GPL-2.0
/*
 * fifo.c - the fifo policy: the TG's own order, the baseline the others are
 * measured against (and always feasible with chains: a predecessor comes
 * first).
 */
#include "policy.h"

static void fifo(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d)
{
	for (unsigned int t = 0; t < ws->tg.ntasks; t++)
		d->order[t] = t;
	d->makespan = sim(ws, dev, d->order, ws->tg.ntasks);
}

static int fifo_order(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d)
{
	return decide(pb, ws, d, fifo);
}

const struct tqsim_policy_ops tqsim_policy_fifo = { .name = "fifo", .order = fifo_order };
