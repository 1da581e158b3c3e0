// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - the online model of usched's classes, deadlines and shares
 * (tqsim_stream_run()), for tqsim and the tests that hold the policy
 * against starvation and its shares: tasks arrive over time and TGs are
 * formed, throttled and ordered as usched/core forms them (core.c, 10).
 *
 * A TG is launched at once on an idle device, else lead_ns before an engine
 * would run dry without it (usched's jit_when()). It takes the highest class waiting
 * only: its tasks with a deadline first, earliest first; then, with
 * shares, the group of least virtual time (a group's engine time run in
 * the class over its weight; a group that comes back starts at the class's
 * clock, the virtual time of the group served last, so it banks nothing);
 * else the task that came first. While a higher class is active (tasks
 * waiting, or one arrived within TQSIM_PRIO_ACTIVE_NS) a lower class's TG
 * is launched as soon as every engine has at most ahead_ns left (not when
 * the engines need it: on one copy engine the higher class's copies would
 * keep it waiting for ever), and takes tasks while each engine's work left
 * plus theirs stays within ahead_ns (its first task always). A task with a deadline is admitted on arrival if the
 * model says it can end by then on the engines as they are
 * (tqsim_qos_earliest()); else it is refused, or with flag run and flagged.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tqsim.h"

#define STREAM_AHEAD_NS	2e6
#define STREAM_LEAD_NS	3e5

enum { ST_FUTURE, ST_WAITING, ST_TAKEN };

struct stream_state {
	struct tqsim_stream *s;
	const struct tqsim_dev *dev;
	struct tqsim_stream_task *t;
	uint8_t *state;
	double now;
	double busy[TQSIM_STAGES];		/* each engine's predicted end, absolute */
	double vtime[TQSIM_STREAM_SHARES][TQSIM_PRIOS];
	double vclock[TQSIM_PRIOS];
	unsigned int waiting[TQSIM_STREAM_SHARES][TQSIM_PRIOS];
	unsigned int nwaiting[TQSIM_PRIOS];
	double last_arrive[TQSIM_PRIOS];	/* -INFINITY: none yet */
	struct tqsim_sim_result res;
};

static double task_work(const struct tqsim_stream_task *t)
{
	return t->ns[TQSIM_HTD] + t->ns[TQSIM_K] + t->ns[TQSIM_DTH];
}

static double share_weight(const struct tqsim_stream *s, unsigned int g)
{
	return s->weight[g] > 0 ? s->weight[g] : 1;
}

/* The device with its engines' work left at @at. */
static void dev_at(const struct stream_state *st, double at, struct tqsim_dev *d)
{
	*d = *st->dev;
	for (int s = 0; s < TQSIM_STAGES; s++)
		d->busy_until[s] = fmax(0, st->busy[s] - at);
	for (unsigned int q = 1; q < d->kq; q++)
		d->kq_busy[q] = d->busy_until[TQSIM_K];
}

static void arrive(struct stream_state *st, unsigned int i)
{
	struct tqsim_stream_task *t = &st->t[i];
	unsigned int c = t->prio - TQSIM_PRIO_MIN;

	st->last_arrive[c] = t->arrive;
	if (t->deadline > 0) {
		struct tqsim_dev d;

		dev_at(st, st->now, &d);
		if (st->now + tqsim_qos_earliest(&d, t->ns[TQSIM_HTD], t->ns[TQSIM_K],
						 t->ns[TQSIM_DTH], &st->res) > t->arrive + t->deadline) {
			t->late = true;
			if (!st->s->flag) {
				t->refused = true;
				st->state[i] = ST_TAKEN;
				return;
			}
		}
	}
	st->state[i] = ST_WAITING;
	if (!st->waiting[t->share][c]++)
		st->vtime[t->share][c] = fmax(st->vtime[t->share][c], st->vclock[c]);
	st->nwaiting[c]++;
}

/* Whether a class above @c is active at st->now. */
static bool higher_active(const struct stream_state *st, unsigned int c)
{
	for (unsigned int h = c + 1; h < TQSIM_PRIOS; h++)
		if (st->nwaiting[h] || st->now - st->last_arrive[h] < TQSIM_PRIO_ACTIVE_NS)
			return true;
	return false;
}

/* Whether waiting task a is taken before b (both of one class). */
static bool picks_before(const struct stream_state *st, const struct tqsim_stream_task *a,
			 const struct tqsim_stream_task *b, unsigned int c)
{
	if (a->deadline > 0 || b->deadline > 0) {
		if (!(b->deadline > 0))
			return true;
		if (!(a->deadline > 0))
			return false;
		return a->arrive + a->deadline < b->arrive + b->deadline;
	}
	if (st->s->shares)
		return st->vtime[a->share][c] < st->vtime[b->share][c];
	return false;		/* the one that came first */
}

/*
 * When the next TG of class @c is needed, as usched's jit_when(): when the
 * engine that runs dry last would, each engine fed first by the earliest
 * its stage can start after a launch (HtD at once, K after the shortest
 * HtD, DtH after the shortest HtD + K among the tasks waiting).
 */
static double launch_at(const struct stream_state *st, unsigned int c, unsigned int n)
{
	double first[TQSIM_STAGES] = { 0, INFINITY, INFINITY }, need = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct tqsim_stream_task *t = &st->t[i];

		if (st->state[i] != ST_WAITING || (unsigned int)(t->prio - TQSIM_PRIO_MIN) != c)
			continue;
		first[TQSIM_K] = fmin(first[TQSIM_K], t->ns[TQSIM_HTD]);
		if (t->ns[TQSIM_DTH] > 0)
			first[TQSIM_DTH] = fmin(first[TQSIM_DTH], t->ns[TQSIM_HTD] + t->ns[TQSIM_K]);
	}
	for (int e = 0; e < TQSIM_STAGES; e++)
		need = fmax(need, st->busy[e] - first[e]);
	return need;
}

/* Form, order and run the next TG of class @c at st->now. */
static void run_tg(struct stream_state *st, unsigned int c, bool throttled, unsigned int n,
		   struct tqsim_ws *ws)
{
	struct tqsim_stream *s = st->s;
	unsigned int max = s->max_tg ? s->max_tg : 8, k = 0;
	double ahead = s->ahead_ns > 0 ? s->ahead_ns : STREAM_AHEAD_NS, taken[TQSIM_STAGES] = { 0 };
	unsigned int pick[TQSIM_MAX_TASKS];
	struct tqsim_problem pb = { 0 };
	struct tqsim_decision d;
	struct tqsim_qos q;
	struct tqsim_dev dev;
	struct tqsim_tg tg;

	memset(&q, 0, sizeof(q));
	dev_at(st, st->now, &dev);
	while (k < max) {
		int best = -1;

		for (unsigned int i = 0; i < n; i++) {
			const struct tqsim_stream_task *t = &st->t[i];
			bool fits = true;

			if (st->state[i] != ST_WAITING || (unsigned int)(t->prio - TQSIM_PRIO_MIN) != c)
				continue;
			for (int e = 0; e < TQSIM_STAGES && throttled && k; e++)
				fits &= dev.busy_until[e] + taken[e] + t->ns[e] <= ahead;
			if (fits && (best < 0 || picks_before(st, t, &st->t[best], c)))
				best = i;
		}
		if (best < 0)
			break;
		st->state[best] = ST_TAKEN;
		pick[k++] = best;
		st->nwaiting[c]--;
		st->waiting[st->t[best].share][c]--;
		st->vclock[c] = fmax(st->vclock[c], st->vtime[st->t[best].share][c]);
		st->vtime[st->t[best].share][c] += task_work(&st->t[best]) /
						    share_weight(s, st->t[best].share);
		for (int e = 0; e < TQSIM_STAGES; e++)
			taken[e] += st->t[best].ns[e];
	}
	tqsim_tg_init(&tg);
	for (unsigned int i = 0; i < k; i++) {
		const struct tqsim_stream_task *t = &st->t[pick[i]];

		tqsim_tg_add(&tg, t->ns[TQSIM_HTD], t->ns[TQSIM_K], t->ns[TQSIM_DTH]);
		q.prio[i] = t->prio;
		q.weight[i] = share_weight(s, t->share);
		if (t->deadline > 0)
			q.deadline[i] = fmax(t->arrive + t->deadline - st->now, 1);
	}
	pb.tg = &tg;
	pb.dev = &dev;
	pb.budget_frac = 0.01;
	pb.seed = s->tgs + 1;
	if (tqsim_qos_order(&pb, s->base ? s->base : &tqsim_policy_auto, &q, ws, &st->res, &d))
		for (unsigned int i = 0; i < k; i++)
			d.order[i] = i;
	tqsim_simulate(&tg, &dev, d.order, k, &st->res);
	s->tgs++;
	for (int e = 0; e < TQSIM_STAGES; e++)
		st->busy[e] = fmax(st->busy[e], st->now + st->res.engine_end[e]);
	for (unsigned int i = 0; i < k; i++) {
		struct tqsim_stream_task *t = &st->t[pick[i]];
		const struct tqsim_task *tk = &tg.task[i];
		double end = 0;

		for (int e = 0; e < TQSIM_STAGES; e++)
			for (unsigned int cmd = tk->first[e]; cmd < (unsigned int)tk->first[e] + tk->n[e];
			     cmd++)
				end = fmax(end, st->res.end[cmd]);
		t->launch = st->now;
		t->end = st->now + end;
		t->tg = s->tgs;
		t->late |= t->deadline > 0 && t->end > t->arrive + t->deadline;
		s->busy[t->share] += task_work(t);
		s->end = fmax(s->end, t->end);
	}
}

int tqsim_stream_run(struct tqsim_stream *s, const struct tqsim_dev *dev,
		     struct tqsim_stream_task *t, unsigned int n, struct tqsim_ws *ws)
{
	static struct stream_state zero;
	struct stream_state st = zero;
	uint8_t state[TQSIM_STREAM_MAX];
	unsigned int next = 0;

	if (tqsim_dev_check(dev) || n > sizeof(state))
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (t[i].prio < TQSIM_PRIO_MIN || t[i].prio > TQSIM_PRIO_MAX ||
		    t[i].share >= TQSIM_STREAM_SHARES || !(t[i].arrive >= 0) ||
		    (i && t[i].arrive < t[i - 1].arrive) || !(t[i].deadline >= 0) ||
		    !(task_work(&t[i]) > 0))
			return -EINVAL;
		for (int e = 0; e < TQSIM_STAGES; e++)
			if (!(t[i].ns[e] >= 0 && t[i].ns[e] < INFINITY))
				return -EINVAL;
		t[i].launch = t[i].end = 0;
		t[i].tg = 0;
		t[i].refused = t[i].late = false;
		state[i] = ST_FUTURE;
	}
	s->tgs = 0;
	s->end = 0;
	memset(s->busy, 0, sizeof(s->busy));
	st.s = s;
	st.dev = dev;
	st.t = t;
	st.state = state;
	for (unsigned int c = 0; c < TQSIM_PRIOS; c++)
		st.last_arrive[c] = -INFINITY;
	for (;;) {
		double lead = s->lead_ns > 0 ? s->lead_ns : STREAM_LEAD_NS;
		double ahead = s->ahead_ns > 0 ? s->ahead_ns : STREAM_AHEAD_NS;
		double end = 0, at;
		bool throttled;
		int top = -1;

		while (next < n && t[next].arrive <= st.now)
			arrive(&st, next++);
		for (int c = TQSIM_PRIOS - 1; c >= 0 && top < 0; c--)
			if (st.nwaiting[c])
				top = c;
		if (top < 0) {
			if (next == n)
				return 0;
			st.now = t[next].arrive;
			continue;
		}
		for (int e = 0; e < TQSIM_STAGES; e++)
			end = fmax(end, st.busy[e]);
		throttled = higher_active(&st, top);
		/* throttled, as soon as the bound allows: it never waits for the engines to need it */
		at = throttled ? end - ahead : launch_at(&st, top, n) - lead;
		if (next < n && t[next].arrive < at) {
			st.now = t[next].arrive;	/* it may join, or outrank, the TG */
			continue;
		}
		st.now = fmax(st.now, at);
		run_tg(&st, top, throttled, n, ws);
	}
}
