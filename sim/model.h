/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - what the two simulators share: model.c's, for one kernel
 * queue, and concurrent.c's, for kernels that run at once (tq_dev.kq > 1);
 * and the min and max every file of the library uses (policy.h includes
 * this). Internal to the library: not part of tqsim.h's API.
 */
#ifndef TQSIM_MODEL_H
#define TQSIM_MODEL_H

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
 * (an infeasible order).
 */
bool sim_chain_positions(const struct tq_tg *tg, const uint8_t *order, unsigned int n,
			 int8_t *ppos);
/*
 * Each position's release into @rel: its task's, or when the host has
 * launched it if later (dev->submit_ns per command before it). @ppos as
 * sim_chain_positions() gives it, read only when the TG has chains.
 */
void sim_releases(const struct tq_tg *tg, const struct tq_dev *dev, const uint8_t *order,
		  unsigned int n, const int8_t *ppos, double *rel);
/* tq_simulate() with concurrent kernels; @res NULL: the makespan only. */
double sim_concurrent(const struct tq_tg *tg, const struct tq_dev *dev, const uint8_t *order,
		      unsigned int n, struct tq_sim_result *res);

#endif /* TQSIM_MODEL_H */
