// SPDX-License-Identifier: GPL-2.0
/*
 * sim-qos: the classes, deadlines and shares of usched's policy in the
 * model, over TGs and streams of the paper's synthetic tasks (Table 2,
 * data/synthetic_tasks.csv) at seeded random scales:
 * - one class <= 0 and no deadline: tqsim_qos_order() is the base policy;
 * - the high class's weighted completion time is the least of every order
 *   of the whole TG (exhaustive, T up to 8), on each device of the
 *   evaluation;
 * - earliest deadline first repairs an order that misses deadlines;
 * - starvation: under a steady high-priority load below capacity every
 *   best-effort task completes, before the high load ends;
 * - shares: two groups at 3:1 flooding one class get engine time within
 *   10% of 3:1 while both are backlogged;
 * - admission: a deadline no order can make is refused (or, flagged, run
 *   and flagged late); one the model can make is admitted and met;
 * - the bound on lower-class work ahead of a high task, by the model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tq/rand.h>

#include "selftests/tap.h"
#include "sim/tqsim.h"

#define DATA	"data/synthetic_tasks.csv"
#define UNIT_NS	1e7	/* Table 2's unit: 10 ms */

static double syn[8][TQSIM_STAGES];	/* T0..T7, ns */
static uint64_t rng = 45;
static struct tqsim_ws ws;
static struct tqsim_sim_result res;

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * (double)(tq_xorshift64(&rng) >> 11) * 0x1.0p-53;
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(tq_xorshift64(&rng) % n);
}

static int load_table2(void)
{
	char line[256];
	unsigned int n = 0;
	FILE *f = fopen(DATA, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && n < 8) {
		double v[3];
		char name[16];

		if (line[0] == '#' || sscanf(line, "%15[^,],%lf,%lf,%lf", name, &v[0], &v[1], &v[2]) != 4)
			continue;
		for (int s = 0; s < TQSIM_STAGES; s++)
			syn[n][s] = v[s] * UNIT_NS;
		n++;
	}
	fclose(f);
	return n == 8 ? 0 : -EINVAL;
}

/* A synthetic task, its times scaled by one random factor in [0.5, 1.5]. */
static void syn_task(double *ns)
{
	unsigned int k = pick(8);
	double scale = uniform(0.5, 1.5);

	for (int s = 0; s < TQSIM_STAGES; s++)
		ns[s] = syn[k][s] * scale;
}

static void devs(struct tqsim_dev *dev, unsigned int i)
{
	tqsim_dev_init(dev);
	if (i == 1)
		dev->slow[TQSIM_HTD] = dev->slow[TQSIM_DTH] = 1.08;
	if (i == 2)
		dev->dma = 1;
}

static void random_tg(struct tqsim_tg *tg, unsigned int n)
{
	tqsim_tg_init(tg);
	for (unsigned int t = 0; t < n; t++) {
		double ns[TQSIM_STAGES];

		syn_task(ns);
		tqsim_tg_add(tg, ns[0], ns[1], ns[2]);
	}
}

/* With every task in one class <= 0 and no deadline: the base policy's decision. */
static void test_default(void)
{
	static struct tqsim_ws ws2;
	bool same = true;

	for (unsigned int i = 0; i < 40; i++) {
		struct tqsim_problem pb = { .seed = i, .budget_ns = 1e9 };
		struct tqsim_decision a, b;
		struct tqsim_qos q;
		struct tqsim_dev dev;
		struct tqsim_tg tg;
		int prio = i % 2 ? 0 : -1;

		devs(&dev, i % 3);
		random_tg(&tg, 2 + i % 7);
		memset(&q, 0, sizeof(q));
		for (unsigned int t = 0; t < tg.ntasks; t++) {
			q.prio[t] = prio;
			q.weight[t] = 1 + t % 3;
		}
		pb.tg = &tg;
		pb.dev = &dev;
		tqsim_qos_order(&pb, &tqsim_policy_exact, &q, &ws, &res, &a);
		tqsim_policy_exact.order(&pb, &ws2, &b);
		same &= !memcmp(a.order, b.order, tg.ntasks) && a.makespan == b.makespan;
	}
	tap_ok(same, "one class <= 0, no deadline: tqsim_qos_order() is the base policy's order");
}

/*
 * The high class's weighted completion time is the least over every order
 * of the whole TG: no order, lower-class tasks anywhere, serves the high
 * class better.
 */
static void test_exact(void)
{
	for (unsigned int dv = 0; dv < 3; dv++) {
		unsigned int cases = 0, worse = 0;
		double worst = 0;

		for (unsigned int n = 2; n <= 8; n++) {
			unsigned int reps = n <= 6 ? 12 : n == 7 ? 4 : 2;

			for (unsigned int r = 0; r < reps; r++) {
				struct tqsim_problem pb = { .seed = r, .budget_ns = 0 };
				uint8_t p[TQSIM_MAX_TASKS];
				struct tqsim_decision d;
				struct tqsim_qos q;
				struct tqsim_dev dev;
				struct tqsim_tg tg;
				double best = INFINITY, got;
				unsigned int nhigh = 0;

				devs(&dev, dv);
				random_tg(&tg, n);
				memset(&q, 0, sizeof(q));
				for (unsigned int t = 0; t < n; t++) {
					q.prio[t] = pick(2);
					q.weight[t] = 1 + pick(3);
					nhigh += q.prio[t];
				}
				if (!nhigh)
					q.prio[pick(n)] = 1;
				pb.tg = &tg;
				pb.dev = &dev;
				if (tqsim_qos_order(&pb, &tqsim_policy_auto, &q, &ws, &res, &d))
					continue;
				got = tqsim_qos_wct(&tg, &dev, &q, 1, d.order, n, &res);
				for (unsigned int i = 0; i < n; i++)
					p[i] = i;
				do {
					best = fmin(best, tqsim_qos_wct(&tg, &dev, &q, 1, p, n, &res));
				} while (tqsim_next_perm(p, n));
				cases++;
				if (got > best * (1 + 1e-9)) {
					worse++;
					worst = fmax(worst, got / best - 1);
				}
			}
		}
		tap_ok(!worse && cases, "device %u: high class's weighted completion time optimal over every "
		       "order in %u TGs of 2-8 tasks (%u worse, by up to %.3f%%)", dv, cases, worse,
		       100 * worst);
	}
}

/* A TG whose makespan order misses deadlines that earliest deadline first meets. */
static void test_edf(void)
{
	struct tqsim_problem pb = { .budget_ns = 1e9 };
	struct tqsim_decision d;
	struct tqsim_qos q;
	struct tqsim_dev dev;
	struct tqsim_tg tg;
	uint8_t fifo[3] = { 0, 1, 2 };
	int ret;

	tqsim_dev_init(&dev);
	tqsim_tg_init(&tg);
	tqsim_tg_add(&tg, 1e6, 10e6, 1e6);	/* long, no deadline */
	tqsim_tg_add(&tg, 1e6, 5e6, 1e6);	/* deadline 15 ms */
	tqsim_tg_add(&tg, 1e6, 1e6, 1e6);	/* deadline 5 ms */
	memset(&q, 0, sizeof(q));
	q.deadline[1] = 15e6;
	q.deadline[2] = 5e6;
	pb.tg = &tg;
	pb.dev = &dev;
	tap_ok(tqsim_qos_misses(&tg, &dev, &q, fifo, 3, &res) == 2,
	       "edf: the submission order misses both deadlines");
	ret = tqsim_qos_order(&pb, &tqsim_policy_auto, &q, &ws, &res, &d);
	tap_ok(!ret && !tqsim_qos_misses(&tg, &dev, &q, d.order, 3, &res) && d.order[0] == 2 &&
	       d.order[1] == 1, "edf: earliest deadline first meets both (order %u,%u,%u)",
	       d.order[0], d.order[1], d.order[2]);
}

/* The bottleneck engine's standalone work of @t, ns. */
static double bottleneck(const struct tqsim_stream_task *t)
{
	return fmax(t->ns[TQSIM_HTD] + t->ns[TQSIM_DTH], t->ns[TQSIM_K]);
}

#define NSTREAM	TQSIM_STREAM_MAX

static int cmp_arrive(const void *a, const void *b)
{
	const struct tqsim_stream_task *x = a, *y = b;

	return (x->arrive > y->arrive) - (x->arrive < y->arrive);
}

/*
 * Starvation: high-class tasks (T0, kernel-bound) arrive every period at a
 * load rho of the bottleneck engine, for a horizon three times what the
 * best-effort work needs at the capacity left, plus a second;
 * best-effort tasks (normal and background) arrive all at once and then
 * spread. Every best-effort task must complete before the high load ends.
 */
static void test_starvation(void)
{
	static struct tqsim_stream_task t[NSTREAM];
	const double rhos[] = { 0.3, 0.6, 0.85 };
	unsigned int runs = 0, ok = 0;
	double worst_wait = 0;

	for (unsigned int dv = 0; dv < 3; dv++) {
		for (unsigned int ri = 0; ri < 3; ri++) {
			struct tqsim_stream s = { .ahead_ns = (ri + 1) * 1e6 };
			struct tqsim_dev dev;
			double be_work = 0, hi_work, period, horizon, last_be = 0;
			unsigned int n = 0, nbe = 100, done = 0;
			bool all = true;

			devs(&dev, dv);
			for (unsigned int i = 0; i < nbe; i++, n++) {
				syn_task(t[n].ns);
				t[n].prio = i % 4 ? 0 : -1;
				t[n].arrive = i < nbe / 2 ? 0 : uniform(0, 1e9);
				t[n].deadline = 0;
				t[n].share = i % 2;
				be_work += bottleneck(&t[n]);
			}
			/*
			 * with one copy engine a lone task's copies wait for the last
			 * one's DtH copy: its whole time is the high class's capacity
			 */
			hi_work = dev.dma == 1 ? syn[0][0] + syn[0][1] + syn[0][2] :
				  bottleneck(&(struct tqsim_stream_task){
					  .ns = { syn[0][0], syn[0][1], syn[0][2] } });
			period = hi_work / rhos[ri];
			horizon = 3 * be_work / (1 - rhos[ri]) + 1e9;
			for (double at = uniform(0, period); at < horizon && n < NSTREAM; at += period, n++)
				t[n] = (struct tqsim_stream_task){
					.arrive = at, .prio = 2, .ns = { syn[0][0], syn[0][1], syn[0][2] } };
			horizon = t[n - 1].arrive;
			qsort(t, n, sizeof(t[0]), cmp_arrive);
			runs++;
			if (tqsim_stream_run(&s, &dev, t, n, &ws))
				continue;
			for (unsigned int i = 0; i < n; i++) {
				if (t[i].prio == 2) {
					worst_wait = fmax(worst_wait, t[i].launch - t[i].arrive);
					continue;
				}
				all &= t[i].tg > 0 && t[i].end > 0;
				done += t[i].tg > 0;
				last_be = fmax(last_be, t[i].end);
			}
			if (getenv("QOS_DEBUG"))
				for (unsigned int i = 0; i < n; i++)
					if (t[i].prio < 2)
						tap_diag("be %u prio %d arrive %.1f launch %.1f end %.1f tg %u", i,
							 t[i].prio, t[i].arrive / 1e6, t[i].launch / 1e6,
							 t[i].end / 1e6, t[i].tg);
			if (all && last_be < horizon)
				ok++;
			else
				tap_diag("device %u rho %.2f: %u of %u best-effort done, last at %.0f ms, "
					 "high load until %.0f ms", dv, rhos[ri], done, nbe, last_be / 1e6,
					 horizon / 1e6);
		}
	}
	tap_ok(ok == runs, "starvation: every best-effort task completes under a steady high load "
	       "of 30-85%% of capacity, before it ends (%u of %u streams)", ok, runs);
	tap_diag("the high class's longest wait for its TG: %.2f ms", worst_wait / 1e6);
}

/* Two groups at 3:1 flooding one class: engine time within 10% of 3:1 while both wait. */
static void test_shares(void)
{
	static struct tqsim_stream_task t[NSTREAM];

	for (unsigned int dv = 0; dv < 3; dv++) {
		struct tqsim_stream s = { .shares = true, .weight = { 3, 1 } };
		struct tqsim_dev dev;
		unsigned int n = 600, last_tg = UINT32_MAX;
		double busy[2] = { 0, 0 }, ratio;

		devs(&dev, dv);
		for (unsigned int i = 0; i < n; i++) {
			syn_task(t[i].ns);
			/* group 1's tasks twice group 0's: the shares are of time, not of tasks */
			for (int e = 0; e < TQSIM_STAGES && i % 2; e++)
				t[i].ns[e] *= 2;
			t[i].arrive = 0;
			t[i].prio = 0;
			t[i].deadline = 0;
			t[i].share = i % 2;
		}
		tqsim_stream_run(&s, &dev, t, n, &ws);
		/* both backlogged until the first group runs out */
		for (unsigned int g = 0; g < 2; g++) {
			unsigned int last = 0;

			for (unsigned int i = 0; i < n; i++)
				if (t[i].share == g && t[i].tg > last)
					last = t[i].tg;
			if (last < last_tg)
				last_tg = last;
		}
		for (unsigned int i = 0; i < n; i++)
			if (t[i].tg && t[i].tg < last_tg)
				busy[t[i].share] += t[i].ns[0] + t[i].ns[1] + t[i].ns[2];
		ratio = busy[0] / busy[1];
		tap_ok(fabs(ratio / 3 - 1) <= 0.10, "device %u: shares 3:1 under saturation get engine "
		       "time %.3f:1 (%u TGs)", dv, ratio, last_tg - 1);
	}
}

/* Admission: refused or flagged when no order can make it; admitted and met when it can. */
static void test_admission(void)
{
	struct tqsim_stream_task t[6];
	struct tqsim_dev dev;

	tqsim_dev_init(&dev);
	for (int flag = 0; flag < 2; flag++) {
		struct tqsim_stream s = { .flag = flag };

		memset(t, 0, sizeof(t));
		for (unsigned int i = 0; i < 4; i++)
			t[i] = (struct tqsim_stream_task){ .arrive = 0, .ns = { 2e6, 8e6, 2e6 } };
		/* behind 4 x 8 ms of kernels, 5 ms is too little; 60 ms is plenty */
		t[4] = (struct tqsim_stream_task){ .arrive = 1e6, .ns = { 1e6, 1e6, 1e6 },
						   .deadline = 5e6 };
		t[5] = (struct tqsim_stream_task){ .arrive = 1e6, .ns = { 1e6, 1e6, 1e6 },
						   .deadline = 60e6 };
		tqsim_stream_run(&s, &dev, t, 6, &ws);
		if (flag)
			tap_ok(!t[4].refused && t[4].tg && t[4].late,
			       "admission, flag: a deadline it cannot make runs, flagged late");
		else
			tap_ok(t[4].refused && !t[4].tg, "admission, refuse: a deadline it cannot make "
			       "is refused and never runs");
		tap_ok(!t[5].refused && t[5].tg && !t[5].late && t[5].end <= t[5].arrive + 60e6,
		       "admission: a deadline it can make is admitted and met (%s)",
		       flag ? "flag" : "refuse");
	}
}

/*
 * Deadlines at 90% load: Table 2's tasks in one class arrive as a Poisson
 * stream at 90% of the bottleneck engine's capacity, each with a deadline
 * of @mult times its time alone; the share admitted, and the share of those
 * admitted that end late.
 */
static void load_deadlines(double mult, double *admitted, double *late)
{
	static struct tqsim_stream_task t[2000];
	unsigned int n = sizeof(t) / sizeof(t[0]), in = 0, lost = 0, runs = 0;

	rng = 4501;	/* the same streams whatever the tests before drew */
	for (unsigned int dv = 0; dv < 3; dv++) {
		struct tqsim_stream s = { 0 };
		struct tqsim_dev dev;
		double at = 0, work = 0;

		devs(&dev, dv);
		for (unsigned int i = 0; i < n; i++) {
			syn_task(t[i].ns);
			work += dev.dma == 1 ? t[i].ns[0] + t[i].ns[2] > t[i].ns[1] ?
				t[i].ns[0] + t[i].ns[2] : t[i].ns[1] : bottleneck(&t[i]);
		}
		for (unsigned int i = 0; i < n; i++) {
			at += -log(1 - uniform(0, 1)) * work / n / 0.9;
			t[i].arrive = at;
			t[i].prio = 0;
			t[i].share = 0;
			t[i].deadline = mult * (t[i].ns[0] + t[i].ns[1] + t[i].ns[2]);
		}
		if (tqsim_stream_run(&s, &dev, t, n, &ws))
			continue;
		runs++;
		for (unsigned int i = 0; i < n; i++) {
			in += !t[i].refused;
			lost += !t[i].refused && t[i].end > t[i].arrive + t[i].deadline;
		}
	}
	*admitted = runs ? (double)in / (runs * n) : 0;
	*late = in ? (double)lost / in : 1;
}

/*
 * Admission at 90% load: at 20x a task's time alone it admits at least 95%
 * and at most 1% of those admitted end late. At 5x (said, not held) about
 * 2% of the admitted end late: later tasks with earlier deadlines overtake
 * them, which admission on arrival does not foresee (Documentation/usched.md).
 */
static void test_load_deadlines(void)
{
	for (double mult = 5; mult <= 20; mult *= 4) {
		double admitted, late;

		load_deadlines(mult, &admitted, &late);
		if (mult < 20)
			tap_diag("deadlines at %.0fx a task's time alone, 90%% load: %.1f%% admitted, "
				 "%.2f%% of those late", mult, 100 * admitted, 100 * late);
		else
			tap_ok(late <= 0.01 && admitted >= 0.95, "deadlines at %.0fx a task's time "
			       "alone, 90%% load: %.1f%% admitted (at least 95%%), %.2f%% of those late "
			       "(at most 1%%)", mult, 100 * admitted, 100 * late);
	}
}

/*
 * The bound on lower-class work ahead: with a high class active, a high
 * task arriving at any time waits for its TG's launch no longer than
 * ahead plus one lower-class task's longest stage plus the lead.
 */
static void test_ahead(void)
{
	static struct tqsim_stream_task t[NSTREAM];
	struct tqsim_stream s = { .ahead_ns = 2e6 };
	struct tqsim_dev dev;
	double max_stage = 0, worst = 0;
	unsigned int n = 0;

	tqsim_dev_init(&dev);
	for (unsigned int i = 0; i < 300; i++, n++) {
		syn_task(t[n].ns);
		for (int e = 0; e < TQSIM_STAGES; e++) {
			t[n].ns[e] /= 5;
			max_stage = fmax(max_stage, t[n].ns[e]);
		}
		t[n].arrive = 0;
		t[n].prio = 0;
	}
	for (double at = 0; n < 400; at += uniform(5e6, 20e6), n++)
		t[n] = (struct tqsim_stream_task){ .arrive = at, .prio = 1,
						   .ns = { 0.1e6, 0.5e6, 0.1e6 } };
	qsort(t, n, sizeof(t[0]), cmp_arrive);
	tqsim_stream_run(&s, &dev, t, n, &ws);
	for (unsigned int i = 0; i < n; i++)
		if (t[i].prio == 1 && t[i].arrive > 0)
			worst = fmax(worst, t[i].launch - t[i].arrive);
	tap_ok(worst <= s.ahead_ns + max_stage + 3e5, "ahead: a high task waits at most %.2f ms for "
	       "its launch (bound: 2 ms ahead + %.2f ms, a lower task's stage, + the lead)",
	       worst / 1e6, max_stage / 1e6);
}

/* Bad input: refused, nothing run. */
static void test_errors(void)
{
	struct tqsim_stream_task t[2] = {
		{ .arrive = 2, .ns = { 1, 1, 1 } }, { .arrive = 1, .ns = { 1, 1, 1 } } };
	struct tqsim_stream s = { 0 };
	struct tqsim_dev dev;

	tqsim_dev_init(&dev);
	tap_ok(tqsim_stream_run(&s, &dev, t, 2, &ws) == -EINVAL, "stream: unsorted arrivals -EINVAL");
	t[1].arrive = 3;
	t[1].prio = 3;
	tap_ok(tqsim_stream_run(&s, &dev, t, 2, &ws) == -EINVAL, "stream: class 3 -EINVAL");
	t[1].prio = 0;
	t[1].share = TQSIM_STREAM_SHARES;
	tap_ok(tqsim_stream_run(&s, &dev, t, 2, &ws) == -EINVAL, "stream: share out of range -EINVAL");
}

int main(void)
{
	int ret = load_table2();

	if (ret) {
		printf("Bail out! %s: %s\n", DATA, strerror(-ret));
		return 1;
	}
	test_default();
	test_exact();
	test_edf();
	test_starvation();
	test_shares();
	test_admission();
	test_load_deadlines();
	test_ahead();
	test_errors();
	return tap_done();
}
