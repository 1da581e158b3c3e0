// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - what the ordering policies share: the workspace's set-up and
 * the decision of a policy without a budget. Each policy has a file of its
 * own: fifo.c, paper.c, neh.c, exact.c (bound.c: its bounds, every
 * policy's lower bound), auto.c (auto_resume.c: its state from call to
 * call) and flow.c; policy.h holds what they share, policies.c lists them.
 *
 * Every policy works on the TG collapsed to one command per stage (ws->tg):
 * a stage's commands run back to back on one engine, so the collapsed TG has
 * the same makespan for every order and simulates faster. Not with a gap
 * between commands (dev->gap_ns): a collapsed copy would be slowed during
 * the gaps, so ws->tg is then the TG as given.
 *
 * Precedence (tqsim_tg_set_after()): every policy builds feasible orders only.
 * The searches branch on, pick or insert a task only where its predecessor
 * is before it; the simulator gives INFINITY for any other order, so an
 * insertion never chooses an infeasible position.
 */
#include <errno.h>
#include <math.h>

#include "policy.h"

int ws_setup(const struct tqsim_problem *pb, struct tqsim_ws *ws)
{
	const struct tqsim_tg *tg = pb->tg;
	/* the launch cost counts commands: collapsing would change it too */
	bool collapse = pb->dev->gap_ns == 0 && pb->dev->submit_ns == 0;

	if (!tg->ntasks || tqsim_dev_check(pb->dev))
		return -EINVAL;
	tqsim_tg_init(&ws->tg);
	for (int s = 0; s < TQSIM_STAGES; s++)
		ws->all[s] = true;
	ws->released = false;
	for (unsigned int t = 0; t < tg->ntasks; t++) {
		tqsim_tg_add_task(&ws->tg);
		tqsim_tg_set_release(&ws->tg, t, tg->release[t]);
		ws->tg.kwidth[t] = tg->kwidth[t];
		if (tg->nafter && tg->after[t] >= 0)
			tqsim_tg_set_after(&ws->tg, t, tg->after[t]);
		ws->released |= tg->release[t] > 0 || ws->tg.after[t] >= 0;
		for (int s = 0; s < TQSIM_STAGES; s++) {
			ws->work[t][s] = tqsim_task_work(tg, t, s);
			if (tg->task[t].n[s] && collapse)
				tqsim_tg_add_cmd(&ws->tg, s, ws->work[t][s]);
			for (unsigned int c = 0; c < tg->task[t].n[s] && !collapse; c++)
				tqsim_tg_add_cmd(&ws->tg, s, tg->cmd_ns[tg->task[t].first[s] + c]);
			ws->all[s] &= tg->task[t].n[s] != 0;
		}
	}
	/*
	 * Without a slowdown the standalone recurrence is exact, and cheaper.
	 * With concurrent kernels neither is: the bound relaxes the kernel
	 * stage and no search branches on it (exact.c).
	 */
	ws->conc = pb->dev->kq > 1;
	ws->bb_sim = !ws->conc && pb->dev->dma == 2 && ws->all[TQSIM_HTD] &&
		     (pb->dev->slow[TQSIM_HTD] > 1 || pb->dev->slow[TQSIM_DTH] > 1);
	ws->deadline_ns = 0;
	ws->tail_evals = 0;
	ws->timed_out = false;
	ws->evals = 0;
	ws->rng = pb->seed;
	ws->bb_resume = NULL;
	ws->bb_min_evals = 0;
	ws->bb_floor_evals = 0;
	ws->bb_end_ns = 0;
	ws->walk_from = NULL;
	ws->walk_kept = false;
	ws->root_valid = false;
	bb_prepare(ws);
	return 0;
}

int decide(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d,
	   void (*run)(struct tqsim_ws *, const struct tqsim_dev *, struct tqsim_decision *))
{
	int ret = ws_setup(pb, ws);

	d->cursor.valid = false;
	d->walk.valid = false;
	if (ret)
		return ret;
	run(ws, pb->dev, d);
	d->lower_bound = fmin(root_bound(ws, pb->dev), d->makespan);
	d->optimal = d->lower_bound >= d->makespan;
	d->evals = ws->evals;
	return 0;
}

bool tqsim_next_perm(uint8_t *p, unsigned int n)
{
	int i = (int)n - 2, j = (int)n - 1;
	uint8_t t;

	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return false;
	while (p[j] <= p[i])
		j--;
	t = p[i];
	p[i] = p[j];
	p[j] = t;
	for (unsigned int a = i + 1, b = n - 1; a < b; a++, b--) {
		t = p[a];
		p[a] = p[b];
		p[b] = t;
	}
	return true;
}
