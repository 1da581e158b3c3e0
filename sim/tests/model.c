// SPDX-License-Identifier: GPL-2.0
/*
 * sim-model: the TG builder, the device check, the profile parser, and the
 * simulator against a second, deliberately naive implementation of the same
 * rules (ref_simulate: one generic event loop over every queue) on seeded
 * random TGs with several commands per stage, absent stages, busy engines,
 * both copy-engine counts and up to three kernel queues with kernels of
 * random widths; and the concurrent-kernel simulator with one kernel queue
 * against the one-queue simulator.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tq/rand.h>

#include "selftests/tap.h"
#include "sim/tqsim.h"
#include "sim/model.h"

static uint64_t rng = 42;

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * (double)(tq_xorshift64(&rng) >> 11) * 0x1.0p-53;
}

/* ---- the reference: every queue in one loop, stage readiness by flags ---- */

/* A queue: its list of (position, stage) entries, the head at entry i, command c. */
struct rq {
	unsigned int len, i, c, pos;
	uint8_t epos[2 * TQSIM_MAX_TASKS], estage[2 * TQSIM_MAX_TASKS];
	int stage;
	bool alive, run;
	double free, rem, end, start;
};

static void rq_add(struct rq *q, unsigned int pos, int stage)
{
	q->epos[q->len] = pos;
	q->estage[q->len++] = stage;
}

static bool rq_seek(const struct tqsim_tg *tg, const uint8_t *order, struct rq *q)
{
	for (; q->i < q->len; q->i++, q->c = 0) {
		q->pos = q->epos[q->i];
		q->stage = q->estage[q->i];
		if (q->c < tg->task[order[q->pos]].n[q->stage])
			return true;
	}
	return false;
}

static int first_stage_from(const struct tqsim_task *t, int s)
{
	while (s < TQSIM_STAGES && !t->n[s])
		s++;
	return s;
}

/*
 * Precedence by its definition: each position's nearest ancestor in the
 * order, found by search; INFINITY as the makespan when one comes later.
 */
static bool ref_chains(const struct tqsim_tg *tg, const uint8_t *order, unsigned int n, int *pp)
{
	for (unsigned int i = 0; i < n; i++) {
		pp[i] = -1;
		for (int a = tg->nafter ? tg->after[order[i]] : -1; a >= 0 && pp[i] < 0;
		     a = tg->after[a])
			for (unsigned int j = 0; j < n; j++)
				if (order[j] == a)
					pp[i] = j;
		if (pp[i] > (int)i)
			return false;
	}
	return true;
}

static double ref_simulate(const struct tqsim_tg *tg, const struct tqsim_dev *dev, const uint8_t *order,
			   unsigned int n, double *start, double *end)
{
	static struct rq q[2 + TQSIM_MAX_KQ];
	/* the kernel queues: q[1], then q[base ...] */
	int base = dev->dma == 2 ? 3 : 2, nq = base + dev->kq - 1, nk = 0;
	int next_stage[TQSIM_MAX_TASKS], pp[TQSIM_MAX_TASKS];
	struct rq *qh = &q[0], *qd = dev->dma == 2 ? &q[2] : NULL;
	/*
	 * tend: when a successor may start (a task with commands: its end +
	 * dep_ns); sready: when the task's next stage may start
	 */
	double now = 0, makespan = 0, tend[TQSIM_MAX_TASKS], sready[TQSIM_MAX_TASKS];
	double rel[TQSIM_MAX_TASKS], launched = 0;
	bool done[TQSIM_MAX_TASKS], out[TQSIM_MAX_TASKS] = { false };

	if (!ref_chains(tg, order, n, pp))
		return INFINITY;
	/*
	 * A task's release, or its launch when later: submit_ns per command the
	 * host enqueued before it, as usched's executor goes (one copy engine:
	 * the DtHs up to a predecessor's before its successor, the rest last).
	 */
	for (unsigned int i = 0; i < n; i++) {
		const struct tqsim_task *t = &tg->task[order[i]];

		for (int j = 0; dev->dma == 1 && j <= pp[i]; j++) {
			if (!out[j])
				launched += dev->submit_ns * tg->task[order[j]].n[TQSIM_DTH];
			out[j] = true;
		}
		rel[i] = fmax(tg->release[order[i]], launched);
		launched += dev->submit_ns * (t->n[TQSIM_HTD] + t->n[TQSIM_K]);
		if (dev->dma == 2)
			launched += dev->submit_ns * t->n[TQSIM_DTH];
	}
	memset(q, 0, sizeof(q));
	for (unsigned int i = 0; i < n; i++) {
		next_stage[i] = first_stage_from(&tg->task[order[i]], 0);
		done[i] = false;
	}
	for (int k = 1; k < (int)dev->kq; k++) {
		q[base + k - 1].stage = TQSIM_K;
		q[base + k - 1].free = dev->kq_busy[k];
		q[base + k - 1].free += q[base + k - 1].free > 0 ? dev->gap_ns : 0;
	}
	if (dev->dma == 2) {
		for (int s = 0; s < 3; s++) {
			for (unsigned int i = 0; i < n; i++) {
				int k = s == TQSIM_K && tg->task[order[i]].n[TQSIM_K] ? nk++ % dev->kq : 0;

				rq_add(s == TQSIM_K && k ? &q[base + k - 1] : &q[s], i, s);
			}
			q[s].free = dev->busy_until[s];
			/* an engine busy at t = 0 starts gap_ns after */
			q[s].free += q[s].free > 0 ? dev->gap_ns : 0;
		}
	} else {
		/* the copy FIFO: HtDs, the DtHs up to a predecessor's before its successor */
		unsigned int dnext = 0;

		for (unsigned int i = 0; i < n; i++) {
			for (; (int)dnext <= pp[i]; dnext++)
				rq_add(&q[0], dnext, TQSIM_DTH);
			rq_add(&q[0], i, TQSIM_HTD);
		}
		for (; dnext < n; dnext++)
			rq_add(&q[0], dnext, TQSIM_DTH);
		q[0].free = fmax(dev->busy_until[TQSIM_HTD], dev->busy_until[TQSIM_DTH]);
		q[0].free += q[0].free > 0 ? dev->gap_ns : 0;
		for (unsigned int i = 0; i < n; i++) {
			int k = tg->task[order[i]].n[TQSIM_K] ? nk++ % dev->kq : 0;

			rq_add(k ? &q[base + k - 1] : &q[1], i, TQSIM_K);
		}
		q[1].free = dev->busy_until[TQSIM_K];
		q[1].free += q[1].free > 0 ? dev->gap_ns : 0;
	}
	for (int i = 0; i < nq; i++)
		q[i].alive = rq_seek(tg, order, &q[i]);
	for (;;) {
		double next = INFINITY, f[2 + TQSIM_MAX_KQ], width = 0;
		bool both;

		/* a task without commands ends when it may start */
		for (unsigned int i = 0; i < n; i++)
			if (!done[i] && next_stage[i] == TQSIM_STAGES && (pp[i] < 0 || done[pp[i]])) {
				done[i] = true;
				tend[i] = fmax(rel[i], pp[i] < 0 ? 0 : tend[pp[i]]);
			}
		for (int i = 0; i < nq; i++) {
			double gate = q[i].free;
			unsigned int pos = q[i].pos;

			if (!q[i].alive || q[i].run || next_stage[pos] != q[i].stage)
				continue;
			/* a task's first command waits for its release and its predecessor */
			if (!q[i].c && first_stage_from(&tg->task[order[pos]], 0) == q[i].stage) {
				if (pp[pos] >= 0 && !done[pp[pos]])
					continue;
				gate = fmax(gate, rel[pos]);
				if (pp[pos] >= 0)
					gate = fmax(gate, tend[pp[pos]]);
			} else if (!q[i].c) {
				gate = fmax(gate, sready[pos]);	/* its previous stage + dep */
			}
			if (gate > now) {
				next = fmin(next, gate);
				continue;
			}
			q[i].run = true;
			q[i].start = now;
			q[i].rem = tg->cmd_ns[tg->task[order[pos]].first[q[i].stage] + q[i].c];
		}
		/* rates: copies slowed while both run, kernels sharing by width */
		both = qd && qh->run && qd->run;
		for (int i = 0; i < nq; i++)
			if (q[i].run && q[i].stage == TQSIM_K)
				width += tg->kwidth[order[q[i].pos]];
		for (int i = 0; i < nq; i++) {
			if (!q[i].run)
				continue;
			if (q[i].stage == TQSIM_K)
				f[i] = fmax(1, width);
			else
				f[i] = qd && both ? dev->slow[q[i].stage] : 1;
			q[i].end = now + q[i].rem * f[i];
			next = fmin(next, q[i].end);
		}
		if (next == INFINITY)
			break;
		for (int i = 0; i < nq; i++)
			if (q[i].run && q[i].end != next)
				q[i].rem -= (next - now) / f[i];
		now = next;
		for (int i = 0; i < nq; i++) {
			const struct tqsim_task *t;
			unsigned int cmd, pos = q[i].pos;

			if (!q[i].run || q[i].end != now)
				continue;
			t = &tg->task[order[pos]];
			cmd = t->first[q[i].stage] + q[i].c;
			start[cmd] = q[i].start;
			end[cmd] = now;
			makespan = fmax(makespan, now);
			q[i].run = false;
			q[i].free = now + dev->gap_ns;
			if (++q[i].c == t->n[q[i].stage]) {
				next_stage[pos] = first_stage_from(t, q[i].stage + 1);
				sready[pos] = now + dev->dep_ns;
				if (next_stage[pos] == TQSIM_STAGES) {
					done[pos] = true;
					tend[pos] = now + dev->dep_ns;
				}
			}
			q[i].alive = rq_seek(tg, order, &q[i]);
		}
	}
	return makespan;
}

/* ---- random TGs ---- */

static void random_tg(struct tqsim_tg *tg, unsigned int n, bool multi)
{
	tqsim_tg_init(tg);
	for (unsigned int t = 0; t < n; t++) {
		tqsim_tg_add_task(tg);
		for (int s = 0; s < TQSIM_STAGES; s++) {
			/* a stage is absent one time in five */
			unsigned int ncmd = uniform(0, 1) < 0.2 ? 0 : 1 + (multi ? uniform(0, 3) : 0);

			for (unsigned int c = 0; c < ncmd; c++)
				tqsim_tg_add_cmd(tg, s, uniform(0.01, 10) * 1e6);
		}
	}
}

/* Release times for about half the tasks, in the range of their work. */
static void random_release(struct tqsim_tg *tg)
{
	for (unsigned int t = 0; t < tg->ntasks; t++)
		if (uniform(0, 1) < 0.5)
			tqsim_tg_set_release(tg, t, uniform(0, 20e6));
}

/* A predecessor for about half the tasks, any earlier task. */
static void random_after(struct tqsim_tg *tg)
{
	for (unsigned int t = 1; t < tg->ntasks; t++)
		if (uniform(0, 1) < 0.5)
			tqsim_tg_set_after(tg, t, uniform(0, t));
}

/* A random order of the TG with each task after its predecessor. */
static void feasible_order(const struct tqsim_tg *tg, uint8_t *order)
{
	bool placed[TQSIM_MAX_TASKS] = { false };

	for (unsigned int i = 0; i < tg->ntasks; i++) {
		unsigned int cand[TQSIM_MAX_TASKS], nc = 0, pick;

		for (unsigned int t = 0; t < tg->ntasks; t++)
			if (!placed[t] && (tg->after[t] < 0 || placed[tg->after[t]]))
				cand[nc++] = t;
		pick = cand[(unsigned int)uniform(0, nc)];
		placed[pick] = true;
		order[i] = pick;
	}
}

static void random_dev(struct tqsim_dev *dev)
{
	tqsim_dev_init(dev);
	dev->dma = uniform(0, 1) < 0.5 ? 1 : 2;
	dev->slow[TQSIM_HTD] = uniform(0, 1) < 0.3 ? 1 : uniform(1, 2);
	dev->slow[TQSIM_DTH] = uniform(0, 1) < 0.3 ? 1 : uniform(1, 2);
	for (int s = 0; s < TQSIM_STAGES; s++)
		dev->busy_until[s] = uniform(0, 1) < 0.5 ? 0 : uniform(0, 5e6);
	/* latencies half the time, each alone or both, up to a tenth of a command */
	if (uniform(0, 1) < 0.5) {
		dev->dep_ns = uniform(0, 1) < 0.3 ? 0 : uniform(0, 1e6);
		dev->gap_ns = uniform(0, 1) < 0.3 ? 0 : uniform(0, 1e6);
	}
	if (uniform(0, 1) < 0.3)
		dev->submit_ns = uniform(0, 1e6);
}

/* Two or three kernel queues, some busy, and kernels of random widths; returns 1. */
static unsigned int random_kq(struct tqsim_tg *tg, struct tqsim_dev *dev)
{
	dev->kq = 2 + uniform(0, 2);
	for (unsigned int k = 1; k < dev->kq; k++)
		dev->kq_busy[k] = uniform(0, 1) < 0.5 ? 0 : uniform(0, 5e6);
	for (unsigned int t = 0; t < tg->ntasks; t++)
		tqsim_tg_set_width(tg, t, uniform(0, 1) < 0.3 ? 1 : uniform(0.05, 1));
	return 1;
}

static void shuffle(uint8_t *order, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		order[i] = i;
	for (unsigned int i = n - 1; i > 0; i--) {
		unsigned int j = uniform(0, i + 1);
		uint8_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

static bool close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1e6, fmax(fabs(a), fabs(b)));
}

static void test_against_reference(void)
{
	static struct tqsim_sim_result res;
	static double start[TQSIM_MAX_CMDS], end[TQSIM_MAX_CMDS];
	unsigned int bad_cmd = 0, bad_ms = 0, bad_fast = 0, bad_busy = 0, runs = 4000;
	unsigned int chained = 0, infeasible = 0, conc = 0;
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	uint8_t order[TQSIM_MAX_TASKS];

	for (unsigned int r = 0; r < runs; r++) {
		unsigned int n = 1 + uniform(0, 12), keep;
		double busy[TQSIM_STAGES] = { 0 };

		random_tg(&tg, n, r % 2);
		if (r % 3 == 2)
			random_release(&tg);
		random_dev(&dev);
		if (r % 7 < 3)
			conc += random_kq(&tg, &dev);
		shuffle(order, n);
		if (r % 4 == 1) {	/* precedence, mostly feasible orders */
			random_after(&tg);
			if (r % 16 != 1)
				feasible_order(&tg, order);
		}
		keep = r % 5 ? n : 1 + uniform(0, n);	/* sometimes a prefix only */
		for (unsigned int c = 0; c < tg.ncmds; c++)
			start[c] = end[c] = NAN;
		double ref = ref_simulate(&tg, &dev, order, keep, start, end);

		tqsim_simulate(&tg, &dev, order, keep, &res);
		chained += tg.nafter && ref < INFINITY;
		infeasible += ref == INFINITY;
		bad_ms += ref != res.makespan && !close_to(ref, res.makespan);
		bad_fast += tqsim_makespan(&tg, &dev, order, keep) != res.makespan;
		if (ref == INFINITY)
			continue;
		for (unsigned int c = 0; c < tg.ncmds; c++) {
			if (isnan(start[c]) != isnan(res.start[c]) ||
			    (!isnan(start[c]) && (!close_to(start[c], res.start[c]) ||
						  !close_to(end[c], res.end[c])))) {
				if (!bad_cmd++)
					tap_diag("run %u cmd %u: ref %.1f-%.1f, sim %.1f-%.1f", r, c,
						 start[c], end[c], res.start[c], res.end[c]);
			}
		}
		for (unsigned int i = 0; i < keep; i++) {
			const struct tqsim_task *t = &tg.task[order[i]];

			for (int s = 0; s < TQSIM_STAGES; s++)
				for (unsigned int c = 0; c < t->n[s]; c++)
					busy[s] += end[t->first[s] + c] - start[t->first[s] + c];
		}
		for (int s = 0; s < TQSIM_STAGES; s++)
			bad_busy += !close_to(busy[s], res.busy[s]);
	}
	tap_ok(!bad_cmd, "every command's start and end match the reference (%u runs, %u with "
	       "precedence, %u infeasible)", runs, chained, infeasible);
	tap_ok(chained > 500 && infeasible > 30, "precedence covered: feasible and infeasible orders");
	tap_ok(conc > 1000, "concurrent kernels covered (%u runs with 2 or 3 kernel queues)", conc);
	tap_ok(!bad_ms, "makespan matches the reference");
	tap_ok(!bad_fast, "tqsim_makespan equals tqsim_simulate's makespan");
	tap_ok(!bad_busy, "per-engine busy time is the sum of the command times");
}

/*
 * The concurrent-kernel simulator with one kernel queue is the one-queue
 * simulator, by a second implementation: same command times, same ends.
 */
static void test_concurrent_one_queue(void)
{
	static struct tqsim_sim_result a, b;
	unsigned int bad = 0, runs = 2000;
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	uint8_t order[TQSIM_MAX_TASKS];

	for (unsigned int r = 0; r < runs; r++) {
		unsigned int n = 1 + uniform(0, 12);

		random_tg(&tg, n, r % 2);
		if (r % 3 == 2)
			random_release(&tg);
		random_dev(&dev);
		shuffle(order, n);
		if (r % 4 == 1) {
			random_after(&tg);
			feasible_order(&tg, order);
		}
		for (unsigned int t = 0; t < n; t++)
			tqsim_tg_set_width(&tg, t, uniform(0.05, 1));	/* unread with one queue */
		tqsim_simulate(&tg, &dev, order, n, &a);
		sim_concurrent(&tg, &dev, order, n, &b);
		bad += !close_to(a.makespan, b.makespan);
		for (unsigned int c = 0; c < tg.ncmds; c++)
			bad += !close_to(a.start[c], b.start[c]) || !close_to(a.end[c], b.end[c]);
		for (int s = 0; s < TQSIM_STAGES; s++)
			bad += !close_to(a.engine_end[s], b.engine_end[s]) ||
			       !close_to(a.busy[s], b.busy[s]);
		bad += !close_to(a.kq_end[0], b.kq_end[0]);
	}
	tap_ok(!bad, "one kernel queue: the concurrent simulator gives the same times (%u runs)",
	       runs);
}

/* Kernels on two queues by hand: overlap by width, sharing, queues and their busy times. */
static void test_concurrent(void)
{
	static struct tqsim_sim_result res;
	const uint8_t ab[] = { 0, 1 }, abc[] = { 0, 1, 2 };
	struct tqsim_tg tg;
	struct tqsim_dev dev;

	tqsim_dev_init(&dev);
	dev.kq = 2;
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0, 10, 0);
	tqsim_tg_add(&tg, 0, 10, 0);
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 20, "two kernels that fill the device share it");
	tqsim_tg_set_width(&tg, 0, 0.5);
	tqsim_tg_set_width(&tg, 1, 0.5);
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 10, "two kernels of half the device overlap");
	tqsim_tg_set_width(&tg, 0, 0.75);
	tqsim_tg_set_width(&tg, 1, 0.75);
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 15, "widths 0.75 + 0.75: each at 1/1.5");
	dev.kq = 1;
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 20, "one kernel queue: widths do not matter");

	/* 10 and 4 filling the device: both at half speed to 8, the rest alone */
	dev.kq = 2;
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0, 10, 0);
	tqsim_tg_add(&tg, 0, 4, 0);
	tqsim_simulate(&tg, &dev, ab, 2, &res);
	tap_ok(res.end[1] == 8 && res.makespan == 14 && res.kq_end[0] == 14 && res.kq_end[1] == 8 &&
	       res.engine_end[TQSIM_K] == 14 && res.busy[TQSIM_K] == 22,
	       "a short kernel beside a long one: ends 8 and 14, queues free at 14 and 8");

	/* round-robin: the third kernel goes to queue 0 behind the first */
	tqsim_tg_init(&tg);
	for (int i = 0; i < 3; i++) {
		tqsim_tg_add(&tg, 0, 10, 0);
		tqsim_tg_set_width(&tg, i, 0.5);
	}
	tqsim_simulate(&tg, &dev, abc, 3, &res);
	tap_ok(res.start[2] == 10 && res.makespan == 20, "kernels go to the queues round-robin");
	dev.kq = 3;
	tap_ok(tqsim_makespan(&tg, &dev, abc, 3) == 15, "three queues: 1.5 of the device shared");
	dev.kq = 2;
	dev.busy_until[TQSIM_K] = 6;
	dev.kq_busy[1] = 2;
	tqsim_simulate(&tg, &dev, abc, 3, &res);
	tap_ok(res.start[0] == 6 && res.start[1] == 2 && res.start[2] == 16,
	       "each kernel queue starts when it is free");

	/* with copies: the kernels of (2, 10, 1) x 2 overlap at half width */
	tqsim_dev_init(&dev);
	dev.kq = 2;
	tqsim_tg_init(&tg);
	for (int i = 0; i < 2; i++) {
		tqsim_tg_add(&tg, 2, 10, 1);
		tqsim_tg_set_width(&tg, i, 0.5);
	}
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 15, "with copies: 15 with two kernel queues");
	dev.kq = 1;
	tap_ok(tqsim_makespan(&tg, &dev, ab, 2) == 23, "and 23 with one");

	tap_ok(tqsim_tg_set_width(&tg, 0, 0) == -EINVAL && tqsim_tg_set_width(&tg, 0, 1.5) == -EINVAL &&
	       tqsim_tg_set_width(&tg, 0, NAN) == -EINVAL && tqsim_tg_set_width(&tg, 2, 1) == -EINVAL &&
	       !tqsim_tg_set_width(&tg, 0, 1), "a width outside (0, 1] or of no task is refused");
	dev.kq = 0;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "no kernel queue is refused");
	dev.kq = TQSIM_MAX_KQ + 1;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "more than TQSIM_MAX_KQ kernel queues are refused");
	dev.kq = 2;
	dev.kq_busy[1] = -1;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "a negative kernel queue busy time is refused");
}

/* Without gaps a stage's commands behave as one command of their total time. */
static void test_collapse(void)
{
	unsigned int bad = 0;
	struct tqsim_tg tg, one;
	struct tqsim_dev dev;
	uint8_t order[TQSIM_MAX_TASKS];

	for (int r = 0; r < 1000; r++) {
		unsigned int n = 1 + uniform(0, 10);

		random_tg(&tg, n, true);
		random_dev(&dev);
		/* a gap comes between the commands of a stage; launches count commands */
		dev.gap_ns = 0;
		dev.submit_ns = 0;
		shuffle(order, n);
		if (r % 2)
			random_after(&tg);
		feasible_order(&tg, order);
		tqsim_tg_init(&one);
		for (unsigned int t = 0; t < n; t++) {
			tqsim_tg_add_task(&one);
			if (tg.after[t] >= 0)
				tqsim_tg_set_after(&one, t, tg.after[t]);
			for (int s = 0; s < TQSIM_STAGES; s++)
				if (tg.task[t].n[s])
					tqsim_tg_add_cmd(&one, s, tqsim_task_work(&tg, t, s));
		}
		bad += !close_to(tqsim_makespan(&tg, &dev, order, n), tqsim_makespan(&one, &dev, order, n));
	}
	tap_ok(!bad, "one command per stage gives the same makespan as the stage's commands");
}

/*
 * The prefix simulation: pushing an order task by task and finishing gives
 * tqsim_makespan() to the bit, and each prefix stops at the end of its last HtD
 * with the K engine where the whole order's simulation has them then (its
 * last kernel's end + gap_ns, the gap also after a busy engine).
 */
static void test_prefix(void)
{
	static struct tqsim_sim_result res;
	static struct tqsim_prefix_buf buf;
	unsigned int bad_ms = 0, bad_now = 0, runs = 2000, lat = 0;
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	uint8_t order[TQSIM_MAX_TASKS];

	for (unsigned int r = 0; r < runs; r++) {
		unsigned int n = 1 + uniform(0, 12);
		struct tqsim_prefix p;

		/* like random_tg(), but tqsim_prefix_* need an HtD in every task */
		tqsim_tg_init(&tg);
		for (unsigned int t = 0; t < n; t++) {
			tqsim_tg_add_task(&tg);
			for (int s = 0; s < TQSIM_STAGES; s++) {
				unsigned int ncmd = s == TQSIM_HTD || uniform(0, 1) >= 0.2 ?
						    1 + (r % 2 ? uniform(0, 3) : 0) : 0;

				for (unsigned int c = 0; c < ncmd; c++)
					tqsim_tg_add_cmd(&tg, s, uniform(0.01, 10) * 1e6);
			}
		}
		if (r % 3 == 2)
			random_release(&tg);
		random_dev(&dev);
		dev.dma = 2;
		shuffle(order, n);
		if (r % 2) {
			random_after(&tg);
			feasible_order(&tg, order);
		}
		tqsim_simulate(&tg, &dev, order, n, &res);
		tqsim_prefix_init(&p, &dev);
		for (unsigned int i = 0; i < n; i++) {
			const struct tqsim_task *t = &tg.task[order[i]];
			double kend = dev.busy_until[TQSIM_K] > 0 ?
				      dev.busy_until[TQSIM_K] + dev.gap_ns : 0;

			tqsim_prefix_push(&tg, &dev, &buf, &p, order[i]);
			for (unsigned int j = 0; j <= i; j++) {
				const struct tqsim_task *u = &tg.task[order[j]];

				if (u->n[TQSIM_K])
					kend = res.end[u->first[TQSIM_K] + u->n[TQSIM_K] - 1] +
					       dev.gap_ns;
			}
			bad_now += p.now != res.end[t->first[TQSIM_HTD] + t->n[TQSIM_HTD] - 1] ||
				   p.kfree != kend;
		}
		bad_ms += tqsim_prefix_finish(&tg, &dev, &buf, &p) != res.makespan;
		lat += dev.dep_ns > 0 && dev.gap_ns > 0;
	}
	tap_ok(!bad_now, "each prefix stops at its last HtD's end, K engine as in the whole "
	       "order (%u runs, %u with both latencies)", runs, lat);
	tap_ok(!bad_ms, "pushing the order task by task gives tqsim_makespan to the bit");
}

/*
 * The launch cost, by hand (ms): A = (0.01, 1, 0.01), B = (2, 0.1, 2),
 * 0.1 a command. Two engines, A, B: A 0-0.01 0.01-1.01 1.01-1.02; B launched
 * after A's three commands, 0.3-2.3 2.3-2.4 2.4-4.4. B, A: B 0-2 2-2.1
 * 2.1-4.1; A's HtD launched at 0.3 queues behind B's, 2-2.01 2.1-3.1
 * 4.1-4.11. Without the launch cost the two tie: B's HtD 0.01-2.01 in A, B. One copy engine, A, B: the DtHs are launched last, B's HtD at
 * 0.2 after A's HtD and K: 0.2-2.2, A's DtH 2.2-2.21, B's K 2.2-2.3 and DtH
 * 2.3-4.3.
 */
static void test_launch(void)
{
	static const double ab[] = { 0, 0.01, 0.01, 1.01, 1.01, 1.02, 0.3, 2.3, 2.3, 2.4, 2.4, 4.4 };
	static const double ba[] = { 2, 2.01, 2.1, 3.1, 4.1, 4.11, 0, 2, 2, 2.1, 2.1, 4.1 };
	static struct tqsim_sim_result res;
	const uint8_t o_ab[] = { 0, 1 }, o_ba[] = { 1, 0 };
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	bool ok_ab = true, ok_ba = true;

	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 0.01e6, 1e6, 0.01e6);
	tqsim_tg_add(&tg, 2e6, 0.1e6, 2e6);
	tqsim_dev_init(&dev);
	tap_ok(dev.submit_ns == 0 && close_to(tqsim_makespan(&tg, &dev, o_ab, 2), 4.11e6) &&
	       close_to(tqsim_makespan(&tg, &dev, o_ba, 2), 4.11e6),
	       "no launch cost by default: A, B and B, A tie at 4.11 ms");
	dev.submit_ns = 0.1e6;
	tqsim_simulate(&tg, &dev, o_ab, 2, &res);
	for (unsigned int c = 0; c < 6; c++)
		ok_ab &= close_to(res.start[c], ab[2 * c] * 1e6) &&
			 close_to(res.end[c], ab[2 * c + 1] * 1e6);
	tap_ok(ok_ab && close_to(res.makespan, 4.4e6),
	       "A, B: B's HtD waits for its launch after A's three commands (4.4 ms)");
	tqsim_simulate(&tg, &dev, o_ba, 2, &res);
	for (unsigned int c = 0; c < 6; c++)
		ok_ba &= close_to(res.start[c], ba[2 * c] * 1e6) &&
			 close_to(res.end[c], ba[2 * c + 1] * 1e6);
	tap_ok(ok_ba && close_to(res.makespan, 4.11e6),
	       "B, A: A's launch is hidden behind B's HtD (4.11 ms, now the better order)");
	dev.dma = 1;
	tap_ok(close_to(tqsim_makespan(&tg, &dev, o_ab, 2), 4.3e6),
	       "one copy engine: the DtHs are launched last, B's HtD at 0.2 ms (4.3 ms)");
}

/*
 * Release times, by hand (ms): A = (2, 3, 1) from 0, B = (1, 1, 1) from 4,
 * C = (-, 1, -) from 3, two engines, no slowdown.
 * A, B: A 0-2 2-5 5-6, B's HtD waits for 4: 4-5 5-6 6-7.
 * B, A: B 4-5 5-6 6-7, A's HtD queues behind B's: 5-7 7-10 10-11.
 * C alone: its kernel starts at 3.
 */
static void test_release(void)
{
	static const double ab[] = { 0, 2, 2, 5, 5, 6, 4, 5, 5, 6, 6, 7 };
	static const double ba[] = { 5, 7, 7, 10, 10, 11, 4, 5, 5, 6, 6, 7 };
	static struct tqsim_sim_result res;
	const uint8_t o_ab[] = { 0, 1 }, o_ba[] = { 1, 0 }, o_c[] = { 2 };
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	bool ok_ab = true, ok_ba = true;

	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 2e6, 3e6, 1e6);
	tqsim_tg_add(&tg, 1e6, 1e6, 1e6);
	tqsim_tg_add(&tg, 0, 1e6, 0);
	tap_ok(tqsim_tg_set_release(&tg, 1, 4e6) == 0 && tqsim_tg_set_release(&tg, 2, 3e6) == 0 &&
	       tg.release[0] == 0, "tqsim_tg_set_release sets one task's release, 0 by default");
	tap_ok(tqsim_tg_set_release(&tg, 3, 1) == -EINVAL && tqsim_tg_set_release(&tg, 0, -1) == -EINVAL &&
	       tqsim_tg_set_release(&tg, 0, INFINITY) == -EINVAL, "and rejects bad tasks and times");
	tqsim_dev_init(&dev);
	tqsim_simulate(&tg, &dev, o_ab, 2, &res);
	for (unsigned int c = 0; c < 6; c++)
		ok_ab &= res.start[c] == ab[2 * c] * 1e6 && res.end[c] == ab[2 * c + 1] * 1e6;
	tap_ok(ok_ab && res.makespan == 7e6, "A, B: B's HtD waits for its release (7 ms)");
	tqsim_simulate(&tg, &dev, o_ba, 2, &res);
	for (unsigned int c = 0; c < 6; c++)
		ok_ba &= res.start[c] == ba[2 * c] * 1e6 && res.end[c] == ba[2 * c + 1] * 1e6;
	tap_ok(ok_ba && res.makespan == 11e6, "B, A: A's HtD queues behind B's release (11 ms)");
	tqsim_simulate(&tg, &dev, o_c, 1, &res);
	tap_ok(res.start[6] == 3e6 && res.makespan == 4e6,
	       "a task without HtD: its kernel waits for its release");
	dev.dma = 1;
	tap_ok(tqsim_makespan(&tg, &dev, o_ab, 2) == 7e6 && tqsim_makespan(&tg, &dev, o_ba, 2) == 11e6,
	       "the same with one copy engine");
}

/*
 * Precedence, by hand (ms): A = (2, 3, 1), B = (1, 1, 1) after A,
 * C = (1, 1, 1); two engines, no slowdown.
 * A, B, C: A 0-2 2-5 5-6; B's HtD waits for A's end: 6-7 7-8 8-9; C's HtD
 * queues behind B's: 7-8 8-9 9-10. 10 ms.
 * A, C, B: C 2-3 5-6 6-7; B 6-7 7-8 8-9. 9 ms.
 * One copy engine, A, C, B: the copy FIFO is A.htd C.htd A.dth B.htd C.dth
 * B.dth: A 0-2 2-5 5-6, C 2-3 5-6 7-8, B 6-7 7-8 8-9. 9 ms. A, B, C: A.htd
 * A.dth B.htd C.htd B.dth C.dth: 6-7 for B's HtD, C 7-8 8-9 9-10. 10 ms.
 */
static void test_after(void)
{
	static const double acb[] = { 0, 2, 2, 5, 5, 6, 6, 7, 7, 8, 8, 9, 2, 3, 5, 6, 6, 7 };
	static const double abc[] = { 0, 2, 2, 5, 5, 6, 6, 7, 7, 8, 8, 9, 7, 8, 8, 9, 9, 10 };
	static const double acb1[] = { 0, 2, 2, 5, 5, 6, 6, 7, 7, 8, 8, 9, 2, 3, 5, 6, 7, 8 };
	static struct tqsim_sim_result res;
	const uint8_t o_abc[] = { 0, 1, 2 }, o_acb[] = { 0, 2, 1 }, o_bac[] = { 1, 0, 2 };
	const uint8_t o_b[] = { 1 }, o_cb[] = { 2, 1 };
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	bool ok[3] = { true, true, true };

	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 2e6, 3e6, 1e6);
	tqsim_tg_add(&tg, 1e6, 1e6, 1e6);
	tqsim_tg_add(&tg, 1e6, 1e6, 1e6);
	tap_ok(tqsim_tg_set_after(&tg, 0, 0) == -EINVAL && tqsim_tg_set_after(&tg, 0, 1) == -EINVAL &&
	       tqsim_tg_set_after(&tg, 3, 0) == -EINVAL && tg.nafter == 0 && tg.after[1] == -1,
	       "tqsim_tg_set_after refuses pred >= t and a bad task");
	tap_ok(tqsim_tg_set_after(&tg, 1, 0) == 0 && tqsim_tg_set_after(&tg, 1, 0) == -EINVAL &&
	       tg.nafter == 1 && tg.after[1] == 0, "and a second predecessor (chains)");
	tqsim_dev_init(&dev);
	tqsim_simulate(&tg, &dev, o_abc, 3, &res);
	for (unsigned int c = 0; c < 9; c++)
		ok[0] &= res.start[c] == abc[2 * c] * 1e6 && res.end[c] == abc[2 * c + 1] * 1e6;
	tap_ok(ok[0] && res.makespan == 10e6,
	       "A, B, C: B's HtD waits for A's DtH and holds up C's (10 ms)");
	tqsim_simulate(&tg, &dev, o_acb, 3, &res);
	for (unsigned int c = 0; c < 9; c++)
		ok[1] &= res.start[c] == acb[2 * c] * 1e6 && res.end[c] == acb[2 * c + 1] * 1e6;
	tap_ok(ok[1] && res.makespan == 9e6, "A, C, B: C runs while B waits (9 ms)");
	tqsim_simulate(&tg, &dev, o_bac, 3, &res);
	tap_ok(res.makespan == INFINITY && isnan(res.start[0]) &&
	       tqsim_makespan(&tg, &dev, o_bac, 3) == INFINITY &&
	       tqsim_makespan(&tg, &dev, o_cb, 2) < INFINITY && tqsim_makespan(&tg, &dev, o_b, 1) == 3e6,
	       "B before A is infeasible (INFINITY); without A in the order, B is free");
	dev.dma = 1;
	tqsim_simulate(&tg, &dev, o_acb, 3, &res);
	for (unsigned int c = 0; c < 9; c++)
		ok[2] &= res.start[c] == acb1[2 * c] * 1e6 && res.end[c] == acb1[2 * c + 1] * 1e6;
	tap_ok(ok[2] && res.makespan == 9e6 && tqsim_makespan(&tg, &dev, o_abc, 3) == 10e6 &&
	       tqsim_makespan(&tg, &dev, o_bac, 3) == INFINITY,
	       "one copy engine: A's DtH goes before B's HtD (9 and 10 ms), B before A infeasible");
	tqsim_tg_set_release(&tg, 1, 8e6);
	dev.dma = 2;
	tap_ok(tqsim_makespan(&tg, &dev, o_acb, 3) == 11e6,
	       "a release later than the predecessor's end wins (max of the two)");
}

static void test_builder(void)
{
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	int ret = 0;

	tqsim_tg_init(&tg);
	tap_ok(tqsim_tg_add_cmd(&tg, TQSIM_HTD, 1) == -EINVAL, "a command needs a task");
	tap_ok(tqsim_tg_add(&tg, 1, 0, 2) == 0 && tg.task[0].n[TQSIM_K] == 0 && tg.ncmds == 2,
	       "tqsim_tg_add: 0 ns makes the stage absent");
	tqsim_tg_add_task(&tg);
	tqsim_tg_add_cmd(&tg, TQSIM_K, 5);
	tap_ok(tqsim_tg_add_cmd(&tg, TQSIM_HTD, 1) == -EINVAL, "stages are added in order");
	tap_ok(tqsim_tg_add_cmd(&tg, TQSIM_DTH, -1) == -EINVAL, "negative duration refused");
	tap_ok(tqsim_tg_add_cmd(&tg, TQSIM_DTH, NAN) == -EINVAL, "NaN duration refused");
	tap_ok(tqsim_tg_add(&tg, 1, -1, 1) == -EINVAL && tg.ntasks == 2 && tg.ncmds == 3,
	       "a refused tqsim_tg_add leaves the TG as it was");
	tqsim_tg_init(&tg);
	for (int t = 0; t < TQSIM_MAX_TASKS && !ret; t++)
		ret = tqsim_tg_add(&tg, 1, 1, 1) < 0;
	tap_ok(!ret && tqsim_tg_add_task(&tg) == -ENOSPC, "TQSIM_MAX_TASKS tasks, then -ENOSPC");
	tqsim_tg_init(&tg);
	tqsim_tg_add_task(&tg);
	for (int c = 0; c < TQSIM_MAX_CMDS && !ret; c++)
		ret = tqsim_tg_add_cmd(&tg, TQSIM_HTD, 1);
	tap_ok(ret == -ENOSPC && tg.task[0].n[TQSIM_HTD] == UINT8_MAX,
	       "at most 255 commands per stage");

	tqsim_dev_init(&dev);
	tap_ok(!tqsim_dev_check(&dev), "default device is valid");
	dev.dma = 3;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "dma 3 refused");
	tqsim_dev_init(&dev);
	dev.slow[TQSIM_DTH] = 0.5;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "slowdown < 1 refused");
	tqsim_dev_init(&dev);
	dev.busy_until[TQSIM_K] = -1;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "negative busy_until refused");
	tqsim_dev_init(&dev);
	tap_ok(dev.dep_ns == 0 && dev.gap_ns == 0, "no latencies by default");
	dev.dep_ns = -1;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "negative dependency latency refused");
	dev.dep_ns = 8000;
	dev.gap_ns = INFINITY;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "infinite queue gap refused");
	dev.gap_ns = NAN;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "NaN queue gap refused");
	dev.gap_ns = 1300;
	tap_ok(!tqsim_dev_check(&dev), "latencies >= 0 accepted");
	dev.submit_ns = -1;
	tap_ok(tqsim_dev_check(&dev) == -EINVAL, "negative launch cost refused");
}

static void test_empty(void)
{
	static struct tqsim_sim_result res;
	struct tqsim_tg tg;
	struct tqsim_dev dev;
	uint8_t order[1] = { 0 };

	tqsim_dev_init(&dev);
	dev.busy_until[TQSIM_K] = 7;
	tqsim_tg_init(&tg);
	tqsim_tg_add_task(&tg);
	tqsim_simulate(&tg, &dev, order, 1, &res);
	tap_ok(res.makespan == 0 && res.engine_end[TQSIM_K] == 7,
	       "a task without commands: makespan 0, busy engines keep their release time");
}

static const char good_profile[] =
	"# a test device\n"
	"tq-profile 1\n"
	"device Test GPU 9000   # comment\n"
	"dma 2\n"
	"htd alone 8000 50\n"
	"htd overlapped 8000 40\n"
	"dth alone 9000 50\n"
	"dth overlapped 9000 25\n"
	"kernel mm 2.5 4000\n"
	"kernel va 0.5 1000\n"
	"width mm 100:0.2 10000:1\n";

static void test_profile(void)
{
	static const struct {
		const char *text;
		unsigned int line;
		const char *reason;
	} bad[] = {
		{ "dma 2\n", 1, "expected 'tq-profile 1' first" },
		{ "tq-profile 2\n", 1, "unsupported profile version 2" },
		{ "tq-profile 1\ndma 3\n", 2, "dma must be 1 or 2" },
		{ "tq-profile 1\ndma 1\nhtd alone 1\n", 3, "expected: htd alone|overlapped" },
		{ "tq-profile 1\ndma 1\nhtd sideways 1 2\n", 3, "'sideways' is not alone" },
		{ "tq-profile 1\ndma 1\nhtd alone 1 0\n", 3, "bandwidth must be > 0" },
		{ "tq-profile 1\ndma 1\nhtd alone -1 2\n", 3, "expected: htd alone" },
		{ "tq-profile 1\nbogus 1\n", 2, "unknown key 'bogus'" },
		{ "tq-profile 1\nkernel a 1 1\nkernel a 1 1\n", 3, "kernel a given twice" },
		{ "tq-profile 1\ndma 1\n", 2, "missing htd alone or dth alone" },
		{ "tq-profile 1\n", 1, "missing dma" },
		{ "tq-profile 1\ndma 2\nhtd alone 1 1\ndth alone 1 1\n", 4, "dma 2 needs" },
		{ "", 0, "empty profile" },
		{ "tq-profile 1\nlatency dependency -1\n", 2, "expected: latency dependency|queue" },
		{ "tq-profile 1\nlatency dependency inf\n", 2, "expected: latency dependency|queue" },
		{ "tq-profile 1\nlatency dependency\n", 2, "expected: latency dependency|queue" },
		{ "tq-profile 1\nlatency kernel 5\n", 2, "expected: latency dependency|queue" },
		{ "tq-profile 1\nlatency queue 1 2\n", 2, "expected: latency dependency|queue" },
		{ "tq-profile 1\nlatency queue 1\nlatency queue 2\n", 3, "latency queue given twice" },
		{ "tq-profile 1\nlatency submit 1\nlatency submit 2\n", 3, "latency submit given twice" },
		{ "tq-profile 1\nwidth a 1:1\n", 2, "width of kernel a before its kernel line" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a\n", 3, "expected: width NAME M:W" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a 1\n", 3, "expected M:W, got '1'" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a 1:0\n", 3, "width point: m > 0" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a 0:1\n", 3, "width point: m > 0" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a 1:1.5\n", 3, "width point: m > 0" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a 2:1 1:1\n", 3, "width points must ascend" },
		{ "tq-profile 1\nkernel a 1 1\nwidth a 1:1\nwidth a 2:1\n", 4, "width a given twice" },
	};
	static const char lat_profile[] =
		"tq-profile 1\ndma 1\nhtd alone 1 1\ndth alone 1 1\n"
		"latency dependency 8000.5\nlatency queue 1300 # back to back\n"
		"latency submit 17000\n";
	struct tqsim_profile p;
	struct tqsim_parse_err err;
	struct tqsim_dev dev;
	int ret = tqsim_profile_parse(&p, good_profile, strlen(good_profile), &err);

	tap_ok(!ret, "a good profile parses");
	tap_ok(!strcmp(p.device, "Test GPU 9000") && p.dma == 2 && p.nkernels == 2,
	       "device name, dma and kernels read");
	tap_ok(tqsim_profile_xfer_ns(&p, TQSIM_HTD, 1e6) == 8000 + 1e6 / 50, "transfer = latency + bytes/bw");
	tap_ok(tqsim_profile_kernel_ns(&p, "mm", 1000) == 2.5 * 1000 + 4000, "kernel = eta*m + gamma");
	tap_ok(tqsim_profile_kernel_ns(&p, "nope", 1) < 0, "unknown kernel gives -1");
	tap_ok(fabs(tqsim_profile_kernel_width(&p, "mm", 1000) - 0.6) < 1e-12 &&
	       tqsim_profile_kernel_width(&p, "mm", 10) == 0.2 &&
	       tqsim_profile_kernel_width(&p, "mm", 1e6) == 1 &&
	       tqsim_profile_kernel_width(&p, "va", 1000) == 1 &&
	       tqsim_profile_kernel_width(&p, "nope", 1000) == 1,
	       "kernel width: interpolated in log m, held at the ends, 1 without a width line");
	tqsim_profile_to_dev(&p, &dev);
	tap_ok(dev.dma == 2 && dev.slow[TQSIM_HTD] == 1.25 && dev.slow[TQSIM_DTH] == 2 &&
	       !tqsim_dev_check(&dev), "slowdowns are the alone/overlapped bandwidth ratios");
	tap_ok(p.dep_ns == 0 && p.gap_ns == 0 && p.submit_ns == 0 && dev.dep_ns == 0 &&
	       dev.gap_ns == 0 && dev.submit_ns == 0, "a profile without latency lines has none");
	ret = tqsim_profile_parse(&p, lat_profile, strlen(lat_profile), &err);
	tqsim_profile_to_dev(&p, &dev);
	tap_ok(!ret && p.dep_ns == 8000.5 && p.gap_ns == 1300 && dev.dep_ns == 8000.5 &&
	       dev.gap_ns == 1300 && p.submit_ns == 17000 && dev.submit_ns == 17000 &&
	       dev.dma == 1 && !tqsim_dev_check(&dev),
	       "latency dependency, queue and submit read, and copied to the device");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = tqsim_profile_parse(&p, bad[i].text, strlen(bad[i].text), &err);
		tap_ok(ret == -EINVAL && err.line == bad[i].line &&
		       !strncmp(err.reason, bad[i].reason, strlen(bad[i].reason)),
		       "bad profile %zu: line %u '%s' (got %u '%s')", i, bad[i].line,
		       bad[i].reason, err.line, ret ? err.reason : "accepted");
	}
}

int main(void)
{
	test_builder();
	test_empty();
	test_profile();
	test_release();
	test_launch();
	test_after();
	test_against_reference();
	test_concurrent_one_queue();
	test_concurrent();
	test_collapse();
	test_prefix();
	return tap_done();
}
