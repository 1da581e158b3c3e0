// SPDX-License-Identifier: GPL-2.0
/*
 * form.c - TG formation: the next TG's tasks, taken round-robin over
 * owners (3) from the highest class ready, by deadline and fair share (10),
 * and their order by the policy from the engines' predicted busy-until
 * times (4), auto's plans and flow's second step included; the admission
 * test of tasks with a deadline (10).
 * Numbers in parentheses name the sections of the essay at the top of core.c.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "internal.h"

static uint64_t task_bytes(const struct task *t)
{
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < t->t.nbufs; i++)
		bytes += t->t.buf[i].len;
	return bytes;
}

/* Whether ready task a of class c is taken before b (10): earliest deadline, least virtual time. */
static bool picks_before(const struct usched *u, const struct task *a, const struct task *b,
			 unsigned int c)
{
	if (a->t.deadline_ns || b->t.deadline_ns)
		return a->t.deadline_ns && (!b->t.deadline_ns || a->t.deadline_ns < b->t.deadline_ns);
	return u->shares_on && a->share->vtime[c] < b->share->vtime[c];
}

/* Its standalone engine time, all stages (10). */
static double task_work(const struct task *t)
{
	return t->pred[USCHED_HTD] + t->pred[USCHED_K] + t->pred[USCHED_DTH];
}

/*
 * Take the next TG's tasks, round-robin over owners (3), within limit bytes
 * (one task always fits an idle device), all of the first one's domain (9),
 * all of the highest class ready, those with a deadline first and by fair
 * share, within prio_ahead of each engine while a higher class is active
 * (10); under u->lock. A task taken makes its ordered successor ready for
 * the next pick; its owner goes to the back. An owner whose next task is of
 * another domain is not served, and keeps its place at the front for the
 * next TG.
 */
unsigned int tg_form(struct usched *u, struct task **tasks, uint64_t limit, uint64_t *bytes)
{
	unsigned int n = 0, max = u->st.max_tg;
	double left[USCHED_STAGES], taken[USCHED_STAGES] = { 0 };
	uint64_t now = tq_now_ns();
	int top = ready_top(u);
	bool throttled;

	*bytes = 0;
	if (top < 0)
		return 0;
	throttled = prio_above_active(u, top, now);
	for (int s = 0; s < USCHED_STAGES; s++) {
		uint64_t busy = u->busy_abs[s] + u->drift;

		left[s] = u->ninflight && busy > now ? (double)(busy - now) : 0;
	}
	while (n < max) {
		struct task *best = NULL;
		struct owner *bo = NULL;
		struct list *p, *nx;

		list_for_each_safe(p, nx, &u->owners) {
			struct owner *o = list_entry(p, struct owner, node);
			struct list *r = &o->ready[top];
			bool fits = true;
			struct task *t;

			if (list_empty(r))
				continue;
			t = list_first(r, struct task, node);
			if (n && task_domain(t) != task_domain(tasks[0]))
				continue;
			if ((n || u->ninflight) && *bytes + task_bytes(t) > limit)
				continue;
			if (throttled && n) {
				model_predict(u, t);
				for (int s = 0; s < USCHED_STAGES; s++)
					fits &= left[s] + taken[s] + t->pred[s] <= u->ahead_ns;
			}
			if (fits && (!best || picks_before(u, t, best, top))) {
				best = t;
				bo = o;
			}
		}
		if (!best)
			break;
		*bytes += task_bytes(best);
		ready_del(u, best);
		best->taken = true;
		task_unblock(u, best);
		tasks[n++] = best;
		list_del_init(&bo->node);
		list_add_tail(&bo->node, &u->owners);
		if (!throttled && !u->shares_on)
			continue;
		model_predict(u, best);
		for (int s = 0; s < USCHED_STAGES; s++)
			taken[s] += best->pred[s];
		u->vclock[top] = fmax(u->vclock[top], best->share->vtime[top]);
		best->share->vtime[top] += task_work(best) / best->share->weight;
	}
	u->nwaiting -= n;
	u->st.running += n;
	return n;
}

/*
 * The admission test (10): a task with a deadline that the model says
 * cannot end by then, run next on the engines as they are now, completes
 * with -ETIMEDOUT (opts.deadline REFUSE) or runs flagged late (FLAG);
 * under u->lock.
 */
void tg_admit(struct usched *u)
{
	uint64_t now = tq_now_ns();
	struct tqsim_dev dev = u->dev;
	struct list *p, *n;

	if (list_empty(&u->admit))
		return;
	for (int s = 0; s < USCHED_STAGES; s++) {
		uint64_t busy = u->busy_abs[s] + u->drift;

		dev.busy_until[s] = u->ninflight && busy > now ? (double)(busy - now) : 0;
	}
	for (unsigned int q = 1; q < dev.kq; q++)
		dev.kq_busy[q] = dev.busy_until[USCHED_K];
	list_for_each_safe(p, n, &u->admit) {
		struct task *t = list_entry(p, struct task, admit_node);
		double end;

		list_del_init(&t->admit_node);
		model_predict(u, t);
		end = tqsim_qos_earliest(&dev, t->pred[USCHED_HTD], t->pred[USCHED_K],
					 t->pred[USCHED_DTH], u->res);
		if (now + end <= t->t.deadline_ns)
			continue;
		t->late = true;
		if (u->o.deadline == USCHED_DEADLINE_FLAG)
			continue;
		task_drop(u, t, -ETIMEDOUT);
		u->st.refused++;
		wake(u);
	}
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
 * A latency class's TG (above NORMAL) in the order of least weighted
 * completion time, each task weighing its group's weight; a TG with
 * deadlines earliest deadline first where that misses fewer (10).
 * Leaves @d as it is otherwise.
 */
static void tg_qos(struct usched *u, struct tg *tg, struct task **tasks,
		   const struct tqsim_policy_ops *pol, struct tqsim_problem *pb,
		   struct tqsim_decision *d)
{
	struct tqsim_decision q_d;
	struct tqsim_qos q;
	bool deadlines = false;

	tg->prio = tasks[0]->t.prio;
	memset(&q, 0, sizeof(q));
	for (unsigned int i = 0; i < tg->n; i++) {
		uint64_t dl = tasks[i]->t.deadline_ns;

		q.prio[i] = tg->prio;
		q.weight[i] = tasks[i]->share->weight;
		if (dl)
			q.deadline[i] = dl > tg->launch_ns ? (double)(dl - tg->launch_ns) : 1;
		deadlines |= dl != 0;
	}
	if (tg->prio > USCHED_PRIO_NORMAL && tg->n > 1) {
		uint8_t fifo[TQSIM_MAX_TASKS];

		for (unsigned int i = 0; i < tg->n; i++)
			fifo[i] = i;
		pb->budget_ns = fmax(u->budget * EXACT_BUDGET * tg_device_ns(u, fifo, tg->n), 1);
		pb->state = NULL;
		if (!tqsim_qos_order(pb, pol, &q, u->ws, u->res, &q_d))
			*d = q_d;
	} else if (deadlines) {
		tqsim_qos_edf(&u->simtg, &u->dev, &q, d->order, tg->n, u->res);
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
	tg_qos(u, tg, tasks, pol, &pb, &d);
	tg->policy_ns = tq_now_ns() - t0;
	tg_predict(u, tg, tasks, &d);
	/* the loop's idle time while the device runs it goes on with its plan */
	if (planned)
		plans_arm(u->plans, u->match, &u->simtg, &u->dev, &dm, tg->seq,
			  proven ? 0 : (uint64_t)(u->refine * tg->pred_ns));
}
