/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - what the two simulators share: model.c's, for one kernel
 * queue, and concurrent.c's, for kernels that run at once (tqsim_dev.kq > 1);
 * and the min and max every file of the library uses (policy.h includes
 * this). Internal to the library: not part of tqsim.h's API.
 */
#ifndef TQSIM_MODEL_H
#define TQSIM_MODEL_H

#include <string.h>

#include "tqsim.h"

/*
 * fmin/fmax without their NaN rules, which keep them from being inlined:
 * plain minsd/maxsd on the hot paths
 */
static inline double min_d(double a, double b)
{
	return a < b ? a : b;
}

static inline double max_d(double a, double b)
{
	return a > b ? a : b;
}

/*
 * Each position's predecessor's position in @order (its nearest ancestor
 * there), -1 for none, into @ppos; false when one comes after its task
 * (an infeasible order). Not inline: inlined, it took registers from
 * model.c's simulator loop, a few % slower; unused where policy.h
 * includes this.
 */
static __attribute__((noinline, unused)) bool
sim_chain_positions(const struct tqsim_tg *tg, const uint8_t *order, unsigned int n, int8_t *ppos)
{
	int8_t at[TQSIM_MAX_TASKS];

	memset(at, -1, sizeof(at));
	for (unsigned int pos = 0; pos < n; pos++)
		at[order[pos]] = pos;
	for (unsigned int pos = 0; pos < n; pos++) {
		int p = tg->after[order[pos]];

		while (p >= 0 && at[p] < 0)
			p = tg->after[p];
		ppos[pos] = p < 0 ? -1 : at[p];
		if (ppos[pos] > (int)pos)
			return false;
	}
	return true;
}

/*
 * Each position's release into @rel: its task's, or when the host has
 * launched it if later (dev->submit_ns per command before it, in usched's
 * launch order). With one copy engine the DtHs wait for the TG's end, but
 * those up to a predecessor's (@ppos as sim_chain_positions() gives it,
 * read only with @prec, whether the TG has chains) go before its
 * successor. Always inlined: model.c's simulator takes @prec as a constant.
 */
static inline __attribute__((always_inline)) void
sim_releases(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
	     unsigned int n, const int8_t *ppos, bool prec, double *rel)
{
	const double per_cmd = dev->submit_ns;
	double launch = 0;
	unsigned int outs = 0;	/* one copy engine: tasks whose DtHs are launched */

	for (unsigned int pos = 0; pos < n; pos++) {
		const struct tqsim_task *t = &tg->task[order[pos]];

		rel[pos] = tg->release[order[pos]];
		if (per_cmd == 0)
			continue;
		for (; prec && dev->dma == 1 && (int)outs <= ppos[pos]; outs++)
			launch += per_cmd * tg->task[order[outs]].n[TQSIM_DTH];
		rel[pos] = max_d(rel[pos], launch);
		/* the same sum as tqsim_prefix_push()'s, to the bit */
		launch += per_cmd * (t->n[TQSIM_HTD] + t->n[TQSIM_K] + (dev->dma == 2 ? t->n[TQSIM_DTH] : 0));
	}
}

/* tqsim_simulate() with concurrent kernels; @res NULL: the makespan only. */
double sim_concurrent(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
		      unsigned int n, struct tqsim_sim_result *res);

#endif /* TQSIM_MODEL_H */
