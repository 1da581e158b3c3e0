/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - what the policy files of libtqsim share: the workspace's
 * set-up (policy.c), the small steps every search takes (inline here: they
 * run once per simulation or search node), and the pieces one policy
 * borrows from another (neh's insertion, the bounds, exact's branch and
 * bound, auto's state). Internal to the library: not part of tqsim.h's API.
 */
#ifndef TQSIM_POLICY_H
#define TQSIM_POLICY_H

#include "model.h"

/* Whether task @t of ws->tg has stage @s. */
static inline bool has(const struct tqsim_ws *ws, unsigned int t, int s)
{
	return ws->tg.task[t].n[s] != 0;
}

/* The set of tasks 0..n-1. */
static inline uint64_t all_tasks(unsigned int n)
{
	return n == 64 ? ~0ULL : (1ULL << n) - 1;
}

/* One simulation of ws->tg, counted in ws->evals. */
static inline double sim(struct tqsim_ws *ws, const struct tqsim_dev *dev, const uint8_t *order,
			 unsigned int n)
{
	ws->evals++;
	return tqsim_makespan(&ws->tg, dev, order, n);
}

/* The tasks of @rest whose predecessor is not in @rest: those that may go next. */
static inline uint64_t available(const struct tqsim_ws *ws, uint64_t rest)
{
	uint64_t av = rest;

	if (!ws->tg.nafter)
		return rest;
	for (uint64_t m = rest; m; m &= m - 1) {
		unsigned int t = __builtin_ctzll(m);
		int a = ws->tg.after[t];

		if (a >= 0 && (rest >> a & 1))
			av &= ~(1ULL << t);
	}
	return av;
}

/* The budget check; the only place a policy looks at a clock. */
static inline bool expired(struct tqsim_ws *ws)
{
	uint64_t now;

	if (!ws->deadline_ns)
		return ws->timed_out;
	now = tqsim_clock_ns();
	if (ws->tail_evals)
		now += ws->tail_evals * (now - ws->pace_ns) / (ws->evals - ws->pace_evals + 1);
	if (now >= ws->deadline_ns)
		ws->timed_out = true;
	return ws->timed_out;
}

/* Whether @order is a permutation of 0..n-1. */
static inline bool is_perm(const uint8_t *order, unsigned int n)
{
	uint64_t seen = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (order[i] >= n || seen >> order[i] & 1)
			return false;
		seen |= 1ULL << order[i];
	}
	return true;
}

/* policy.c: ws from pb's TG (collapsed where that keeps the makespan); 0 or -EINVAL. */
int ws_setup(const struct tqsim_problem *pb, struct tqsim_ws *ws);
/* policy.c: a policy without a budget: set up, @run, the root bound as lower bound. */
int decide(const struct tqsim_problem *pb, struct tqsim_ws *ws, struct tqsim_decision *d,
	   void (*run)(struct tqsim_ws *, const struct tqsim_dev *, struct tqsim_decision *));

/* neh.c: neh's order into d; @timed: it stops at the deadline. */
void neh(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d, bool timed);
/* neh.c: insert @t into seq[0..len-1] where the makespan is least; @part: resumable. */
double insert_best(struct tqsim_ws *ws, const struct tqsim_dev *dev, uint8_t *seq, unsigned int len,
		   uint8_t t, struct tqsim_ins *part);

/* bound.c: Johnson's orders and the chains' twins, for the bounds and the search. */
void bb_prepare(struct tqsim_ws *ws);
/* bound.c: the bound on every order of the TG, once per ws_setup(). */
double root_bound(struct tqsim_ws *ws, const struct tqsim_dev *dev);
/* bound.c: the bound on every completion of a prefix in state @st by @rest; @cut: enough. */
double bb_bound(const struct tqsim_ws *ws, const struct tqsim_dev *dev, const struct tqsim_bb_state *st,
		uint64_t rest, double cut);

/* exact.c: branch and bound from d's order and from cursor @from (NULL: the start). */
void bb_from(struct tqsim_ws *ws, const struct tqsim_dev *dev, struct tqsim_decision *d,
	     const struct tqsim_bb_cursor *from);
/* exact.c: d proven optimal unless the search ran out of time; returns 0. */
int exact_finish(struct tqsim_ws *ws, struct tqsim_decision *d);

/*
 * auto's state between calls (tqsim_auto_*(), tqsim.h): auto_resume.c sets it
 * and auto.c's resumed search reads it.
 */
struct tqsim_auto_state {
	const uint8_t *order;			/* the order to go on from; NULL: none */
	bool optimal;				/* proven optimal then */
	bool stale;				/* made for times that have since moved */
	const struct tqsim_bb_cursor *cursor;	/* where its proof stopped; NULL: none */
	const struct tqsim_walk *walk;		/* its walk; not NULL: the caller keeps it */
	unsigned int prove_max;			/* 0: AUTO_REPROVE_MAX, AUTO_CHAINS_PROVE_MAX */
	uint64_t start_ns;			/* 0: auto's own entry */
};

/* auto_resume.c: where auto's budget counts from: pb's state's start, else now. */
uint64_t auto_start_ns(const struct tqsim_problem *pb);
/* auto_resume.c: whether the caller keeps iterated greedy's walk from call to call. */
bool auto_keeps_walk(const struct tqsim_problem *pb);
/* auto_resume.c: a proven resume order taken as it is; false: none. */
bool auto_take(const struct tqsim_problem *pb, struct tqsim_decision *d);

#endif /* TQSIM_POLICY_H */
