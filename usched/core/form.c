// SPDX-License-Identifier: GPL-2.0
/*
 * form.c - TG formation: the next TG's tasks, taken round-robin over
 * owners (3), and their order by the policy from the engines' predicted
 * busy-until times (4), auto's plans and flow's second step included.
 * Numbers in parentheses name the sections of the essay at the top of core.c.
 */
#include <math.h>

#include "internal.h"

static uint64_t task_bytes(const struct task *t)
{
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < t->t.nbufs; i++)
		bytes += t->t.buf[i].len;
	return bytes;
}

/*
 * Take the next TG's tasks, round-robin over owners (3), within limit bytes
 * (one task always fits an idle device), all of the first one's domain (9);
 * under u->lock. A task taken makes its ordered successor ready for the
 * next pass. An owner whose next task is of another domain is not served,
 * and keeps its place at the front for the next TG.
 */
unsigned int tg_form(struct usched *u, struct task **tasks, uint64_t limit, uint64_t *bytes)
{
	struct list served = LIST_INIT(served);
	unsigned int n = 0, max = u->st.max_tg;
	bool more = true;

	*bytes = 0;
	while (more && n < max) {
		struct list *p, *nx;

		more = false;
		list_for_each_safe(p, nx, &u->owners) {
			struct owner *o = list_entry(p, struct owner, node);
			struct task *t;

			if (list_empty(&o->ready))
				continue;
			t = list_first(&o->ready, struct task, node);
			if (n && task_domain(t) != task_domain(tasks[0]))
				continue;
			if ((n || u->ninflight) && *bytes + task_bytes(t) > limit)
				continue;
			*bytes += task_bytes(t);
			list_del_init(&t->node);
			t->taken = true;
			task_unblock(u, t);
			tasks[n++] = t;
			list_del_init(&o->node);
			list_add_tail(&o->node, &served);
			more = true;
			if (n == max)
				break;
		}
		list_splice_tail(&served, &u->owners);
	}
	u->nwaiting -= n;
	u->nready -= n;
	u->st.running += n;
	return n;
}

/*
 * Whether the TG in u->simtg has a plan (plans.c): its mix is the whole
 * problem, nothing in flight before it and no task released later.
 */
static bool tg_plannable(const struct usched *u)
{
	for (int s = 0; s < USCHED_STAGES; s++)
		if (u->dev.busy_until[s] > 0)
			return false;
	for (unsigned int i = 0; i < u->simtg.ntasks; i++)
		if (u->simtg.release[i] > 0)
			return false;
	return true;
}

/* Simulate @order of u->simtg into u->res; its device time: first start to makespan. */
static double tg_device_ns(struct usched *u, const uint8_t *order, unsigned int n)
{
	struct tqsim_sim_result *res = u->res;
	double first;

	tqsim_simulate(&u->simtg, &u->dev, order, n, res);
	first = res->makespan;
	for (unsigned int c = 0; c < u->simtg.ncmds; c++)
		first = fmin(first, res->start[c]);
	return res->makespan - first;
}

/*
 * The flow policy's second step: from auto's order d, the order of least
 * flow cost (sim/flow.c) with the tasks left waiting behind the TG and the
 * arrival rate as weights, in a budget of u->budget of the TG's predicted
 * device time (so flow takes up to twice auto's time). d stays as it was
 * if that fails.
 */
static void tg_flow(struct usched *u, struct tg *tg, struct tqsim_problem *pb, struct tqsim_decision *d)
{
	struct tqsim_decision f = *d;

	pb->budget_ns = fmax(u->budget * tg_device_ns(u, d->order, tg->n), 1);
	pb->flow_behind = tg->behind;
	pb->flow_rate = tg->rate;
	if (!tqsim_flow_refine(pb, u->res, &f))
		*d = f;
}

/*
 * Concurrent kernels: the kernel queues' busy-until into u->dev, the queue
 * free first as the model's queue 0 (tg->kq_base) and the others after it
 * round-robin, as exec_launch() sends the TG's kernels.
 */
static void tg_model_kqueues(struct usched *u, struct tg *tg)
{
	uint64_t busy[MAX_KQUEUES];

	for (unsigned int q = 0; q < u->o.kqueues; q++)
		busy[q] = u->kq_busy_abs[q] + u->drift;
	/* nothing in flight: every queue free at the launch */
	tg->kq_base = kq_place(busy, u->o.kqueues, u->ninflight ? tg->launch_ns : UINT64_MAX,
			       &u->dev);
}

/*
 * The TG's tasks into u->simtg as the models predict them, chained as
 * submitted (3), and the engines' busy-until into u->dev (4).
 */
static void tg_model(struct usched *u, struct tg *tg, struct task **tasks)
{
	tqsim_tg_init(&u->simtg);
	tg->launch_ns = tq_now_ns();
	for (unsigned int i = 0; i < tg->n; i++) {
		const struct task *pred = tasks[i]->after;
		unsigned int j = 0;

		model_predict(u, tasks[i]);
		tqsim_tg_add(&u->simtg, tasks[i]->pred[USCHED_HTD], tasks[i]->pred[USCHED_K],
			  tasks[i]->pred[USCHED_DTH]);
		tqsim_tg_set_width(&u->simtg, i, tasks[i]->kwidth);
		/* a predecessor in this TG was taken before it (3) */
		while (pred && j < i && tasks[j] != pred)
			j++;
		if (pred && j < i)
			tqsim_tg_set_after(&u->simtg, i, j);
		/* a predecessor in flight: not before its predicted end, corrected (4) */
		else if (pred && (int64_t)(pred->pred_end + u->drift - tg->launch_ns) > 0)
			tqsim_tg_set_release(&u->simtg, i, pred->pred_end + u->drift - tg->launch_ns);
	}
	for (int s = 0; s < USCHED_STAGES; s++) {
		uint64_t busy = u->busy_abs[s] + u->drift;

		u->dev.busy_until[s] = u->ninflight && busy > tg->launch_ns ?
				       busy - tg->launch_ns : 0;
	}
	tg_model_kqueues(u, tg);
}

/*
 * The policy's time: auto u->budget of its seed's device time, counted from
 * @t0 so that the plan's lookup counts too; exact EXACT_BUDGET times that of
 * the fifo order, so that it proves small TGs but a large TG of chains cannot
 * hold the loop up.
 */
static void tg_budget(struct usched *u, struct tg *tg, const struct tqsim_policy_ops *pol,
		      uint64_t t0, struct tqsim_problem *pb)
{
	uint8_t fifo[TQSIM_MAX_TASKS];

	pb->budget_frac = u->budget;
	tqsim_auto_state_clear(u->auto_state);
	tqsim_auto_start(u->auto_state, t0);
	pb->state = u->auto_state;
	if (pol != &tqsim_policy_exact)
		return;
	for (unsigned int i = 0; i < tg->n; i++)
		fifo[i] = i;
	pb->budget_ns = fmax(u->budget * EXACT_BUDGET * tg_device_ns(u, fifo, tg->n), 1);
}

/* auto's plan for the TG's mix (plans.c), its state set to go on from it; tg->plan says how. */
static void tg_plan_find(struct usched *u, struct tg *tg, struct task **tasks)
{
	bool optimal;

	if (plans_resume(u->plans, tasks, &u->simtg,
			 (double[]){ u->dev.slow[TQSIM_HTD], u->dev.slow[TQSIM_DTH] }, u->match,
			 u->auto_state, &optimal))
		tg->plan = optimal ? USCHED_PLAN_PROVEN : USCHED_PLAN_RESUMED;
}

/*
 * The policy's order into @d, kept as the mix's plan if @planned; fifo's
 * (always feasible) if it fails, which cannot happen: an error, or an order
 * against a chain. Returns whether the plan's order is proven optimal.
 */
static bool tg_decide(struct usched *u, struct tg *tg, const struct tqsim_policy_ops *pol,
		      const struct tqsim_problem *pb, bool planned, struct tqsim_decision *d)
{
	bool proven = true;

	if (pol->order(pb, u->ws, d) || !(d->makespan < INFINITY)) {
		for (unsigned int i = 0; i < tg->n; i++)
			d->order[i] = i;
	} else if (planned) {
		proven = d->optimal || tg->plan == USCHED_PLAN_PROVEN;
		plans_keep(u->plans, u->match, d, proven, tg->seq);
	}
	return proven;
}

/*
 * What the model predicts for the TG in @d's order: its device time, each
 * engine's busy-until and each task's end (4); and the TG's tasks in that
 * order.
 */
static void tg_predict(struct usched *u, struct tg *tg, struct task **tasks,
		       const struct tqsim_decision *d)
{
	struct tqsim_sim_result *res = u->res;

	tg->pred_ns = tg_device_ns(u, d->order, tg->n);
	for (int s = 0; s < USCHED_STAGES; s++)
		u->busy_abs[s] = tg->launch_ns + (uint64_t)res->engine_end[s] - u->drift;
	for (unsigned int i = 0; i < u->o.kqueues; i++)
		u->kq_busy_abs[(tg->kq_base + i) % u->o.kqueues] =
			tg->launch_ns + (uint64_t)res->kq_end[i] - u->drift;
	for (unsigned int i = 0; i < tg->n; i++) {
		const struct tqsim_task *st = &u->simtg.task[i];
		double end = 0, kran;

		for (int s = 0; s < USCHED_STAGES; s++) {
			tasks[i]->c.pred_ns[s] = 0;
			for (unsigned int c = st->first[s]; c < st->first[s] + st->n[s]; c++) {
				end = fmax(end, res->end[c]);
				tasks[i]->c.pred_ns[s] += res->end[c] - res->start[c];
			}
		}
		/* the K stage's run time in the model: its standalone time, or longer where shared */
		kran = tasks[i]->c.pred_ns[USCHED_K];
		tasks[i]->kshare = u->o.kqueues > 1 && kran > 0 ?
				   fmin(1, tasks[i]->pred[USCHED_K] / kran) : 1;
		tasks[i]->pred_end = tg->launch_ns + (uint64_t)end - u->drift;
		tg->task[i] = tasks[d->order[i]];
	}
}

/*
 * Order the TG with the policy from the engines' predicted busy-until times
 * (4), and remember what the model predicts for the order chosen. auto (and
 * flow, which orders for makespan as auto does, plans and all, then for
 * latency) goes on from the mix's plan where the TG has one.
 */
void tg_order(struct usched *u, struct tg *tg, struct task **tasks)
{
	struct tqsim_problem pb = { .tg = &u->simtg, .dev = &u->dev, .seed = tg->seq };
	const struct tqsim_policy_ops *pol = u->flow ? &tqsim_policy_auto : u->policy;
	struct tqsim_decision d, dm;
	bool planned, proven;
	uint64_t t0;

	tg_model(u, tg, tasks);
	t0 = tq_now_ns();
	tg_budget(u, tg, pol, t0, &pb);
	planned = pol == &tqsim_policy_auto && u->plans && tg_plannable(u);
	if (planned)
		tg_plan_find(u, tg, tasks);
	proven = tg_decide(u, tg, pol, &pb, planned, &d);
	dm = d;
	if (u->flow && tg->n > 1)
		tg_flow(u, tg, &pb, &d);
	tg->policy_ns = tq_now_ns() - t0;
	tg_predict(u, tg, tasks, &d);
	/* the loop's idle time while the device runs it goes on with its plan */
	if (planned)
		plans_arm(u->plans, u->match, &u->simtg, &u->dev, &dm, tg->seq,
			  proven ? 0 : (uint64_t)(u->refine * tg->pred_ns));
}
