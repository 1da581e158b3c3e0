// SPDX-License-Identifier: GPL-2.0
/*
 * fifo.c - the fifo policy: the TG's own order, the baseline the others are
 * measured against (and always feasible with chains: a predecessor comes
 * first).
 */
#include "policy.h"

static void fifo(struct tq_ws *ws, const struct tq_dev *dev, struct tq_decision *d)
{
	for (unsigned int t = 0; t < ws->tg.ntasks; t++)
		d->order[t] = t;
	d->makespan = sim(ws, dev, d->order, ws->tg.ntasks);
}

static int fifo_order(const struct tq_problem *pb, struct tq_ws *ws, struct tq_decision *d)
{
	return decide(pb, ws, d, fifo);
}

const struct tq_policy_ops tq_policy_fifo = { .name = "fifo", .order = fifo_order };
