// SPDX-License-Identifier: GPL-2.0
/*
 * plans.c - auto's best order for each recurring mix of tasks.
 *
 * Applications run the same kernels on the same sizes again and again, so
 * the mix of tasks in a TG recurs. Keeping auto's best order per mix (a
 * plan) lets the next TG of that mix go on from there instead of starting
 * over, and a mix once proven optimal costs one simulation from then on.
 *
 * A mix is what its tasks run and copy: each task's kernel, size m and copy
 * times, and its predecessor in the TG; not its kernel times, which the
 * model keeps learning. The key lists the tasks in a canonical order (depth
 * in their chain, kernel, m, copies, then TG index), so that the same tasks
 * submitted in another order find the plan too; plans keep orders, cursors
 * and walks in canonical indices. A proven order is taken as it is only
 * while no kernel time and neither copy slowdown moved more than
 * PLAN_DRIFT since; otherwise the search resumes from it, and from its
 * unfinished proof (the cursor) only within PLAN_DRIFT too. Past PLAN_STALE
 * the plan is stale and auto also weighs neh's order. The caller plans only
 * TGs launched on an idle device without release times, where the mix is
 * the whole problem.
 *
 * What auto carries from TG to TG and how its task indices map lives in sim
 * (sim/auto_resume.c: struct tqsim_auto_state, tqsim_bb_cursor_map(),
 * tqsim_walk_map()), next to the search that reads it, since sim's tests and
 * tqsim resume too; this file only decides which plan a TG has and whether
 * its times still hold, and hands it to auto (plans_resume()).
 *
 * While the device runs the TG the loop has nothing to do, so its idle
 * time (usched_idle()) goes on with the plan's search (plans_arm(),
 * plans_refine()) up to a share of the TG's device time. Why each of these
 * (with what was measured): Documentation/design/usched-core.md, plans.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tq/clock.h>

#include "internal.h"

#define NPLANS	64	/* mixes remembered; the least recently used goes */
#define PLAN_DRIFT	0.01	/* a proven order holds while no kernel time moved more */
#define PLAN_STALE	0.05	/* past this neh's order may be the better start */

struct plan {
	uint64_t used;		/* the last TG that used it */
	struct plan_key key;
	uint8_t order[USCHED_MAX_TG];	/* canonical indices */
	bool optimal;
	double k_ns[USCHED_MAX_TG];	/* the kernel times it was ordered with */
	double slow[2];			/* and the copies' slowdowns */
	struct tqsim_bb_cursor cursor;	/* canonical indices */
	struct tqsim_walk walk;		/* canonical indices */
};

/*
 * The hashes apart from the plans, 8 cache lines: a lookup comes after the
 * loop slept and the copies took over the caches, and reading each
 * plan's own hash was a cache miss per plan.
 */
struct plans {
	uint64_t hash[NPLANS];	/* plan[i]'s key; 0: empty */
	struct plan plan[NPLANS];
	/* the newest TG's problem, for the loop's idle time; TG indices */
	struct {
		struct plan_match match;	/* its plan: match.plan */
		struct tqsim_tg tg;
		struct tqsim_dev dev;
		uint8_t order[USCHED_MAX_TG];	/* the best found */
		struct tqsim_bb_cursor cursor;
		struct tqsim_walk walk;
		uint64_t seq, calls;
		uint64_t spent_ns, allowed_ns;
		struct tqsim_auto_state *state;	/* auto's, to go on from the above */
	} idle;
};

struct plans *plans_create(void)
{
	struct plans *p = calloc(1, sizeof(struct plans));

	if (p && !(p->idle.state = tqsim_auto_state_create())) {
		free(p);
		p = NULL;
	}
	return p;
}

void plans_destroy(struct plans *p)
{
	if (p)
		tqsim_auto_state_destroy(p->idle.state);
	free(p);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_d(double a, double b)
{
	return (a > b) - (a < b);
}

/* The canonical order of tasks: -1 if a goes first, 1 if b, 0 if the same. */
static int plan_task_cmp(const struct plan_task *a, const struct plan_task *b)
{
	int c = cmp_u64(a->depth, b->depth);

	if (!c)
		c = cmp_u64(a->kern, b->kern);
	if (!c)
		c = cmp_u64(a->m, b->m);
	if (!c)
		c = cmp_d(a->htd, b->htd);
	if (!c)
		c = cmp_d(a->dth, b->dth);
	return c;
}

/* FNV-1a over the key's tasks by 64-bit words: a few ns per task. */
static uint64_t key_hash(const struct plan_key *k)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ k->n;

	for (unsigned int i = 0; i < k->n; i++) {
		const struct plan_task *t = &k->task[i];
		uint64_t w[4] = { (uint64_t)t->kern << 32 | t->depth, t->m };

		memcpy(&w[2], &t->htd, sizeof(w[2]));
		memcpy(&w[3], &t->dth, sizeof(w[3]));
		for (int j = 0; j < 4; j++)
			h = (h ^ w[j]) * 0x100000001b3ULL;
		h = (h ^ (uint8_t)k->after[i]) * 0x100000001b3ULL;
	}
	return h | 1;	/* never 0, an empty plan's */
}

/* Build the key of the TG of @tasks (chains in @tg) into @m. */
static void make_key(struct task *const *tasks, const struct tqsim_tg *tg, struct plan_match *m)
{
	struct plan_task in[USCHED_MAX_TG];
	struct plan_key *k = &m->key;
	unsigned int n = tg->ntasks;

	k->n = n;
	for (unsigned int t = 0; t < n; t++) {
		unsigned int i, depth = 0;

		for (int p = tg->after[t]; p >= 0; p = tg->after[p])
			depth++;
		in[t] = (struct plan_task){
			.kern = tasks[t]->kern->id, .depth = depth, .m = tasks[t]->t.m,
			.htd = tasks[t]->pred[USCHED_HTD], .dth = tasks[t]->pred[USCHED_DTH],
		};
		/* insertion sort: ties stay in TG order */
		for (i = t; i > 0 && plan_task_cmp(&in[t], &in[m->canon[i - 1]]) < 0; i--)
			m->canon[i] = m->canon[i - 1];
		m->canon[i] = t;
	}
	for (unsigned int i = 0; i < n; i++)
		m->rank[m->canon[i]] = i;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int t = m->canon[i];

		k->task[i] = in[t];
		k->after[i] = tg->after[t] < 0 ? -1 : m->rank[tg->after[t]];
		m->k_ns[i] = tasks[t]->pred[USCHED_K];
	}
	m->hash = key_hash(k);
}

static bool same_key(const struct plan_key *a, const struct plan_key *b)
{
	return a->n == b->n && !memcmp(a->task, b->task, a->n * sizeof(a->task[0])) &&
	       !memcmp(a->after, b->after, a->n);
}

/* How far @now moved from @then, relative to it. */
static double rel_move(double now, double then)
{
	if (then > 0)
		return fabs(now / then - 1);
	return now == then ? 0 : INFINITY;
}

bool plans_find(struct plans *p, struct task *const *tasks, const struct tqsim_tg *tg,
		const double *slow, struct plan_match *m, uint8_t *resume, bool *optimal)
{
	make_key(tasks, tg, m);
	memcpy(m->slow, slow, sizeof(m->slow));
	m->plan = NULL;
	m->cursor.valid = false;
	for (unsigned int i = 0; i < NPLANS; i++) {
		struct plan *pl = &p->plan[i];
		double moved = 0;

		if (p->hash[i] != m->hash || !same_key(&pl->key, &m->key))
			continue;
		m->plan = pl;
		for (unsigned int pos = 0; pos < m->key.n; pos++) {
			resume[pos] = m->canon[pl->order[pos]];
			moved = fmax(moved, rel_move(m->k_ns[pos], pl->k_ns[pos]));
		}
		for (int d = 0; d < 2; d++)
			moved = fmax(moved, rel_move(m->slow[d], pl->slow[d]));
		*optimal = pl->optimal && moved <= PLAN_DRIFT;
		m->stale = moved > PLAN_STALE;
		m->cursor.valid = false;
		if (moved <= PLAN_DRIFT)
			tqsim_bb_cursor_map(&m->cursor, &pl->cursor, m->canon, m->key.n);
		tqsim_walk_map(&m->walk, &pl->walk, m->canon, m->key.n);
		return true;
	}
	return false;
}

bool plans_resume(struct plans *p, struct task *const *tasks, const struct tqsim_tg *tg,
		  const double *slow, struct plan_match *m, struct tqsim_auto_state *st,
		  bool *optimal)
{
	if (!plans_find(p, tasks, tg, slow, m, m->order, optimal))
		return false;
	tqsim_auto_resume(st, m->order, *optimal, m->stale);
	tqsim_auto_resume_cursor(st, &m->cursor);
	tqsim_auto_resume_walk(st, &m->walk);
	return true;
}

void plans_keep(struct plans *p, struct plan_match *m, const struct tqsim_decision *d,
		bool proven, uint64_t seq)
{
	struct plan *pl = m->plan;
	unsigned int n = m->key.n;
	/* a proven order taken as it is keeps the times it was proven with */
	bool taken = proven && pl && pl->optimal;

	if (!pl) {
		unsigned int lru = 0;

		for (unsigned int i = 1; i < NPLANS && p->hash[lru]; i++)
			if (!p->hash[i] || p->plan[i].used < p->plan[lru].used)
				lru = i;
		pl = &p->plan[lru];
		p->hash[lru] = m->hash;
		pl->key.n = n;
		memcpy(pl->key.task, m->key.task, n * sizeof(m->key.task[0]));
		memcpy(pl->key.after, m->key.after, n);
	}
	m->plan = pl;	/* for plans_arm() */
	pl->used = seq;
	pl->optimal = proven;
	tqsim_bb_cursor_map(&pl->cursor, &d->cursor, m->rank, n);
	tqsim_walk_map(&pl->walk, &d->walk, m->rank, n);
	for (unsigned int pos = 0; pos < n; pos++)
		pl->order[pos] = m->rank[d->order[pos]];
	if (!taken) {
		memcpy(pl->k_ns, m->k_ns, n * sizeof(pl->k_ns[0]));
		memcpy(pl->slow, m->slow, sizeof(pl->slow));
	}
}

void plans_arm(struct plans *p, const struct plan_match *m, const struct tqsim_tg *tg,
	       const struct tqsim_dev *dev, const struct tqsim_decision *d, uint64_t seq,
	       uint64_t allowed_ns)
{
	p->idle.allowed_ns = m->plan ? allowed_ns : 0;
	p->idle.spent_ns = 0;
	if (!p->idle.allowed_ns)
		return;
	p->idle.match = *m;
	p->idle.tg = *tg;
	p->idle.dev = *dev;
	memcpy(p->idle.order, d->order, tg->ntasks);
	p->idle.cursor = d->cursor;
	p->idle.walk = d->walk;
	p->idle.seq = seq;
	p->idle.calls = 0;
}

uint64_t plans_refine(struct plans *p, struct tqsim_ws *ws, uint64_t slice_ns)
{
	uint64_t start = tq_now_ns(), spent;
	struct tqsim_decision d;
	struct tqsim_problem pb = {
		.tg = &p->idle.tg, .dev = &p->idle.dev, .state = p->idle.state,
		.seed = p->idle.seq + ++p->idle.calls,
	};

	if (p->idle.spent_ns >= p->idle.allowed_ns)
		return 0;
	pb.budget_ns = fmin(slice_ns, p->idle.allowed_ns - p->idle.spent_ns);
	/* auto goes on from the order, proof and walk where the last slice left them */
	tqsim_auto_state_clear(p->idle.state);
	tqsim_auto_resume(p->idle.state, p->idle.order, false, false);
	tqsim_auto_resume_cursor(p->idle.state, &p->idle.cursor);
	tqsim_auto_resume_walk(p->idle.state, &p->idle.walk);
	tqsim_auto_prove_max(p->idle.state, IDLE_PROVE_MAX);
	tqsim_auto_start(p->idle.state, start);
	if (tqsim_policy_auto.order(&pb, ws, &d) || !(d.makespan < INFINITY)) {
		p->idle.allowed_ns = 0;
		return 1;
	}
	plans_keep(p, &p->idle.match, &d, d.optimal, p->idle.seq);
	memcpy(p->idle.order, d.order, p->idle.tg.ntasks);
	p->idle.cursor = d.cursor;
	p->idle.walk = d.walk;
	if (d.optimal)
		p->idle.allowed_ns = 0;
	spent = tq_now_ns() - start;
	p->idle.spent_ns += spent;
	return spent ? spent : 1;
}

const char *usched_plan_name(uint32_t plan)
{
	static const char *const name[USCHED_PLANS] = { "none", "resumed", "proven" };

	return plan < USCHED_PLANS ? name[plan] : "?";
}
