// SPDX-License-Identifier: GPL-2.0
/*
 * trials.c - the trials (run_trials): after NoReorder, its worst, median
 * and best orders run again, each policy's order as a fixed order
 * (orders.c), and each policy through usched in-process (runners.c), once
 * each per trial. The policies through usched: every task is submitted
 * first (a worker's tasks flagged ORDERED), so the first TG holds one task
 * of each worker and the core forms the rest as they become ready.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/bench.h"
#include "tools/progress.h"
#include "tq/num.h"
#include "usched/core/usched.h"

/* One closed run of r's slots through policy p; makespan in *ms. */
static int usched_once(struct env *e, struct result *r, int p, double *ms, FILE *tgcsv,
		       const char *tag, struct tg_tally *tally)
{
	struct coll co = { .want = r->nslots, .tgcsv = tgcsv, .tag = tag, .tally = tally,
			   .tasks = tgcsv ? e->usched_tasks : NULL };
	struct usched *u;
	int ret = runner_usched(e, p, &u);

	/* round by round, workers in order: the first TG is one task of each */
	for (unsigned int s = 0; s < r->nslots && !ret; s++) {
		struct usched_task t;

		ret = runner_btask(p, &r->slot[s], 1 + s % r->T, s, &t);
		ret = ret ?: usched_submit(u, &t);
	}
	if (ret) {
		fprintf(stderr, "tqbench: usched (%s): submit: %s\n", policy_names[p],
			strerror(-ret));
		usched_cancel(u, USCHED_OWNER_ALL);
		return ret;
	}
	ret = runner_collect(p, &co);
	*ms = (co.last - co.first) / 1e6;
	return ret;
}

/* NoReorder's worst, median and best orders, by their medians. */
static void pick_refs(struct result *r)
{
	unsigned int idx[r->nperms];

	r->refs = r->nperms && r->perm_ms[0] > 0;
	if (!r->refs)
		return;
	for (unsigned int p = 0; p < r->nperms; p++)
		idx[p] = p;
	/* insertion sort by median, fastest first: a few dozen orders */
	for (unsigned int i = 1; i < r->nperms; i++) {
		unsigned int x = idx[i], j = i;

		for (; j > 0 && r->perm_ms[idx[j - 1]] > r->perm_ms[x]; j--)
			idx[j] = idx[j - 1];
		idx[j] = x;
	}
	r->ref_perm[REF_WORST] = idx[r->nperms - 1];
	r->ref_perm[REF_MEDIAN] = idx[r->nperms / 2];
	r->ref_perm[REF_BEST] = idx[0];
}

/* One thing each trial runs once: a fixed order, or a policy through usched. */
struct series {
	const uint8_t *order;		/* NULL: policy through usched */
	int policy;
	double *out;			/* where the trials' median goes */
	double v[MAX_TRIALS];
};

static void usched_tally(struct env *e, struct result *r, int p, const struct usched_stats *a,
			 const struct tg_tally *t)
{
	struct usched_stats b;
	struct usched *u;

	runner_usched(e, p, &u);	/* open since the warm-up */
	usched_stats(u, &b);
	r->pol_tgs[p] = b.tgs - a->tgs;
	if (b.tgs > a->tgs) {
		r->pol_sched_ns[p] = (double)(b.policy_ns - a->policy_ns) / (b.tgs - a->tgs);
		r->pol_refine_ns[p] = (double)(b.refine_ns - a->refine_ns) / (b.tgs - a->tgs);
		r->pol_tg_ms[p] = (b.measured_ns_sum - a->measured_ns_sum) / 1e6 /
				  (b.tgs - a->tgs);
	}
	r->pol_tg_err[p] = t->nerr ? exp(t->err_sum / t->nerr) : 0;
	r->pol_copy_slow[p][0] = b.copy_slow[0];
	r->pol_copy_slow[p][1] = b.copy_slow[1];
	r->pol_sched_max[p] = t->sched_max;
	r->pol_sched_over[p] = t->sched_over;
	r->pol_sched_n[p] = t->sched_n;
}

/* Shuffle n indices in place. */
static void shuffle(unsigned int *v, unsigned int n, uint64_t *rng)
{
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = bench_rnd(rng) % i, x = v[i - 1];

		v[i - 1] = v[j];
		v[j] = x;
	}
}

/* Run series sr once; its makespan in *ms. */
static int series_run(struct env *e, struct result *r, struct binst *in, struct series *sr,
		      double *ms, FILE *tgcsv, const char *tag, struct tg_tally *tally)
{
	if (sr->order)
		return run_order(e, r, in, sr->order, ms);
	return usched_once(e, r, sr->policy, ms, tgcsv, tag, tally);
}

/*
 * The trials: NoReorder's reference orders and each policy's order
 * (orders), all in tqbench's context, and each policy through usched
 * (usched), in its usched's own context, once each per trial, in a new
 * random order every trial, so that a slow spell of the host falls on all
 * of them alike and the best order is measured on runs other than those
 * that chose it. A trial runs in blocks, one per context, each after an
 * uncounted run of its first series, so that no series pays the device's
 * switch between contexts (Documentation/design/tqbench.md).
 */
int run_trials(struct env *e, struct result *r, bool orders, bool usched, FILE *tgcsv)
{
	static struct binst in[MAX_SLOTS];
	static struct series ser[NREF + 2 * NPOL];
	struct usched_stats a[NPOL];
	struct tg_tally tally[NPOL] = { 0 };
	unsigned int trials = e->o->trials, nfix = 0, n, blk[1 + NPOL], nblk = 0;
	unsigned int fix[NREF + NPOL];
	char tag[NPOL][96];
	uint64_t rng = e->o->seed * 7919 + r->nslots;
	double warm;
	int ret;

	pick_refs(r);
	for (unsigned int i = 0; r->refs && i < NREF; i++)
		ser[nfix++] = (struct series){ .order = r->perm[r->ref_perm[i]],
					       .out = &r->ref_ms[i] };
	for (int p = 0; orders && p < NPOL; p++)
		ser[nfix++] = (struct series){ .order = r->pol_order[p],
					       .out = &r->fixed_ms[p] };
	if (!nfix && !usched)
		return 0;
	n = nfix;
	if (nfix)
		blk[nblk++] = 0;
	ret = insts_init(&e->c, r, in);
	progress_begin("trials", trials * (nfix + (usched ? NPOL : 0.0)) + (usched ? NPOL : 0));
	/* a first run of each policy fills its buffer pools and kernel models */
	for (int p = 0; usched && p < NPOL && !ret; p++) {
		struct usched *u;

		if (runner_usched(e, p, &u))
			continue;
		snprintf(tag[p], sizeof(tag[p]), "%s,%s,%u,%u,%s", r->s->name,
			 r->s->bench[r->bench], r->T, r->N, policy_names[p]);
		ret = usched_once(e, r, p, &warm, NULL, tag[p], NULL);
		progress_step(1, policy_names[p]);
		usched_stats(u, &a[p]);
		blk[nblk++] = n;
		ser[n++] = (struct series){ .policy = p, .out = &r->pol_ms[p] };
	}
	for (unsigned int i = 0; i < nfix; i++)
		fix[i] = i;
	for (unsigned int k = 0; k < trials && !ret; k++) {
		/* what the trial writes and tallies is kept only with the trial */
		FILE *tasks = e->usched_tasks;
		struct held tgs = { 0 }, held_tasks = { 0 };
		struct tg_tally keep[NPOL];
		unsigned int steps = 0;
		bool slow, redo;

		memcpy(keep, tally, sizeof(keep));
		ret = held_open(&tgs, tgcsv);
		ret = ret ?: held_open(&held_tasks, tasks);
		e->usched_tasks = held_tasks.f;
		shuffle(blk, nblk, &rng);
		shuffle(fix, nfix, &rng);
		if (!ret)
			steady_wait(e);
		for (unsigned int b = 0; b < nblk && !ret; b++) {
			bool fixed = blk[b] < nfix;
			unsigned int m = fixed ? nfix : 1;
			struct series *first = &ser[fixed ? fix[0] : blk[b]];
			int p = first->policy;

			/*
			 * A probe runs in tqbench's context: only here, where the
			 * uncounted run after it takes the switch back.
			 */
			steady_tick(e);
			/* uncounted: the device switches to this block's context */
			ret = series_run(e, r, in, first, &warm, NULL, tag[p], NULL);
			for (unsigned int i = 0; i < m && !ret; i++) {
				struct series *sr = &ser[fixed ? fix[i] : blk[b]];

				ret = series_run(e, r, in, sr, &sr->v[k], tgs.f, tag[sr->policy],
						 &tally[sr->policy]);
				progress_step(1, sr->order ? "orders" : policy_names[sr->policy]);
				steps++;
			}
		}
		slow = !ret && !steady_end(e);
		redo = slow && r->redone[1] < e->o->redo;
		e->usched_tasks = tasks;
		held_close(&tgs, tgcsv, !ret && !redo);
		held_close(&held_tasks, tasks, !ret && !redo);
		if (redo) {
			/* the host slowed its copies during the trial: run it again */
			r->redone[1]++;
			memcpy(tally, keep, sizeof(keep));
			progress_step(-(double)steps, "host slow: again");
			k--;
		} else {
			r->unsteady[1] += slow;
		}
	}
	progress_end();
	for (unsigned int i = 0; i < n && !ret; i++) {
		*ser[i].out = tq_median(ser[i].v, trials);
		if (!ser[i].order)
			usched_tally(e, r, ser[i].policy, &a[ser[i].policy], &tally[ser[i].policy]);
	}
	insts_fini(r, in);
	return ret;
}
