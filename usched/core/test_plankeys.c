// SPDX-License-Identifier: GPL-2.0
/*
 * test_plankeys.c - plans.c without a device: a mix is found again whatever
 * order its tasks come in, its order comes back in the new TG's indices;
 * another size, kernel or chain shape is another mix; a proven order stays
 * proven only while no kernel time moved more than 1%, and a proof's cursor
 * comes back (in the new indices) only as long; the least recently used of
 * 64 plans goes.
 */
#include <string.h>

#include "selftests/tap.h"
#include "internal.h"

#define N 5

static struct kern kern[2] = { { .id = 1 }, { .id = 2 } };

/* Task i of the mix: kernel, size and predicted stage times. */
static void task_init(struct task *t, unsigned int i, double k_scale)
{
	memset(t, 0, sizeof(*t));
	t->kern = &kern[i % 2];
	t->t.m = 1000 * (i + 1);
	t->pred[USCHED_HTD] = 1e6 * (i + 1);
	t->pred[USCHED_K] = 2e6 * (N - i) * k_scale;
	t->pred[USCHED_DTH] = 5e5 * (i % 3 + 1);
}

/*
 * The TG of the mix's tasks in submission order @sub (sub[j]: the mix task
 * submitted j-th), task 4 chained after task 1 when @chain (then 1 comes
 * first in @sub, as usched takes a predecessor into a TG first).
 */
static void tg_build(struct task *tasks, struct task **ptr, struct tqsim_tg *tg,
		     const unsigned int *sub, bool chain, double k_scale)
{
	int at[N];

	tqsim_tg_init(tg);
	for (unsigned int j = 0; j < N; j++) {
		task_init(&tasks[j], sub[j], k_scale);
		ptr[j] = &tasks[j];
		tqsim_tg_add(tg, tasks[j].pred[USCHED_HTD], tasks[j].pred[USCHED_K],
			  tasks[j].pred[USCHED_DTH]);
		at[sub[j]] = j;
	}
	if (chain)
		tqsim_tg_set_after(tg, at[4], at[1]);
}

int main(void)
{
	static const unsigned int fwd[N] = { 0, 1, 2, 3, 4 }, mixed[N] = { 3, 0, 4, 2, 1 },
		mixed_chain[N] = { 3, 1, 0, 4, 2 };
	static struct plan_match m;
	static double slow[2];
	static struct tqsim_tg tg;
	struct task tasks[N], *ptr[N];
	struct tqsim_decision d = { .order = { 2, 0, 3, 1, 4 } };
	struct plans *p = plans_create();
	uint8_t resume[TQSIM_MAX_TASKS], want[N];
	bool optimal, same = true;

	if (!tap_ok(p != NULL, "plans_create"))
		return tap_done();
	tg_build(tasks, ptr, &tg, fwd, false, 1);
	tap_ok(!plans_find(p, ptr, &tg, slow, &m, resume, &optimal), "a new mix has no plan");
	plans_keep(p, &m, &d, true, 1);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && optimal &&
	       !memcmp(resume, d.order, N), "found again: the order kept, proven");

	/* the same tasks submitted in another order: the same mix tasks, in the new indices */
	for (unsigned int pos = 0; pos < N; pos++)
		for (unsigned int j = 0; j < N; j++)
			if (mixed[j] == fwd[d.order[pos]])
				want[pos] = j;
	tg_build(tasks, ptr, &tg, mixed, false, 1);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && optimal, "found in another order");
	for (unsigned int pos = 0; pos < N; pos++)
		same &= resume[pos] == want[pos];
	tap_ok(same, "its order comes back in the new TG's indices");

	tg_build(tasks, ptr, &tg, mixed, false, 1.005);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && optimal,
	       "kernel times 0.5%% longer: still proven");
	tg_build(tasks, ptr, &tg, mixed, false, 1.02);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && !optimal,
	       "kernel times 2%% longer: a plan to resume from, not proven");
	plans_keep(p, &m, &d, false, 2);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && !optimal,
	       "kept unproven: stays unproven");

	slow[0] = 1.10;
	slow[1] = 1.09;
	plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
	plans_keep(p, &m, &d, true, 3);
	slow[0] = 1.105;
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && optimal,
	       "proven anew; HtD copies' slowdown 0.5%% higher: still proven");
	slow[0] = 1.13;
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && !optimal,
	       "HtD copies' slowdown 2.7%% higher: a plan to resume from, not proven");
	slow[0] = 1.10;

	tg_build(tasks, ptr, &tg, mixed, false, 1.04);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && !m.stale,
	       "kernel times 4%% longer: the plan is a start as it is");
	tg_build(tasks, ptr, &tg, mixed, false, 1.08);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && m.stale && !optimal,
	       "8%% longer: stale, to go against neh's order");
	slow[0] = slow[1] = 0;

	tg_build(tasks, ptr, &tg, fwd, true, 1);
	tap_ok(!plans_find(p, ptr, &tg, slow, &m, resume, &optimal), "a chain makes another mix");
	plans_keep(p, &m, &d, false, 3);
	tg_build(tasks, ptr, &tg, mixed_chain, true, 1);
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal),
	       "the chained mix found in another order");
	tasks[0].t.m++;
	tap_ok(!plans_find(p, ptr, &tg, slow, &m, resume, &optimal), "another size is another mix");
	tasks[0].t.m--;
	tasks[0].kern = &kern[(mixed_chain[0] + 1) % 2];
	tap_ok(!plans_find(p, ptr, &tg, slow, &m, resume, &optimal), "another kernel is another mix");

	/* 64 more mixes (each its own size of task 0): the least recently used goes */
	for (unsigned int i = 0; i < 64; i++) {
		tg_build(tasks, ptr, &tg, fwd, false, 1);
		tasks[0].t.m = 1000000 + i;
		plans_find(p, ptr, &tg, slow, &m, resume, &optimal);
		plans_keep(p, &m, &d, false, 10 + i);
	}
	tg_build(tasks, ptr, &tg, mixed_chain, true, 1);
	tap_ok(!plans_find(p, ptr, &tg, slow, &m, resume, &optimal), "64 plans kept: the oldest went");
	tg_build(tasks, ptr, &tg, fwd, false, 1);
	tasks[0].t.m = 1000000 + 63;
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal), "the newest is there");

	/* an unfinished proof's cursor, kept in fwd's indices, comes back in mixed's */
	d.cursor = (struct tqsim_bb_cursor){ .valid = true, .depth = 2, .path = { 2, 0 },
					  .done = { 1 << 1 | 1 << 3, 1 << 4, 1 << 1 } };
	/* and iterated greedy's walk, an iteration under way: task 1 still to go back in */
	d.walk = (struct tqsim_walk){ .valid = true, .nd = 2, .next = 1, .len = 4,
				   .ins = { .pos = 3, .at = 1, .best = 7e6 },
				   .cur = { 0, 1, 2, 3, 4 }, .seq = { 2, 0, 4, 3 },
				   .removed = { 4, 1 } };
	plans_keep(p, &m, &d, false, 100);
	tg_build(tasks, ptr, &tg, mixed, false, 1);
	tasks[1].t.m = 1000000 + 63;	/* mix task 0, now TG task 1 */
	same = plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && m.cursor.valid &&
	       m.cursor.depth == 2 && m.cursor.path[0] == 3 && m.cursor.path[1] == 1 &&
	       m.cursor.done[0] == (1 << 4 | 1 << 0) && m.cursor.done[1] == 1 << 2 &&
	       m.cursor.done[2] == 1 << 4;
	tap_ok(same, "a proof's cursor comes back in the new TG's indices");
	same = m.walk.valid && m.walk.nd == 2 && m.walk.next == 1 && m.walk.len == 4 &&
	       m.walk.ins.pos == 3 && m.walk.ins.at == 1 && m.walk.ins.best == 7e6 &&
	       !memcmp(m.walk.cur, (uint8_t[]){ 1, 4, 3, 0, 2 }, 5) &&
	       !memcmp(m.walk.seq, (uint8_t[]){ 3, 1, 2, 0 }, 4) &&
	       !memcmp(m.walk.removed, (uint8_t[]){ 2, 4 }, 2);
	tap_ok(same, "and so does iterated greedy's walk");
	tg_build(tasks, ptr, &tg, mixed, false, 1.02);
	tasks[1].t.m = 1000000 + 63;
	tap_ok(plans_find(p, ptr, &tg, slow, &m, resume, &optimal) && !m.cursor.valid,
	       "kernel times 2%% longer: the cursor is left out, the order kept");
	plans_destroy(p);
	return tap_done();
}
