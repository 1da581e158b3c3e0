// SPDX-License-Identifier: GPL-2.0
/*
 * orders.c - fixed orders, on tqbench's own context: NoReorder
 * (run_noreorder: every order of the slots, or a sample) and the order
 * each policy picks from the standalone times (policy_orders), driving
 * OpenCL directly as the paper's NoReorder does: one thread enqueues every
 * task of the order on the three queues, a worker's next task waiting on
 * its previous one's last event. NoReorder's command timelines go to
 * commands.csv, and how much slower than alone its copies ran to the
 * experiment's copy stretch. trials.c runs these orders again.
 *
 * Makespans come from profiling stamps: the first command's start to the
 * last one's end.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/bench.h"
#include "tools/progress.h"
#include "tq/num.h"

void span_add(struct span *sp, const struct binst *in)
{
	for (unsigned int c = 0; c < in->nev; c++) {
		uint64_t s = clu_start(in->ev[c]), t = clu_end(in->ev[c]);

		if (s && (!sp->first || s < sp->first))
			sp->first = s;
		if (t > sp->last)
			sp->last = t;
	}
}

/*
 * Run one order of the slots. Two copy engines: task by task on the HtD,
 * K and DtH queues (Figure 3). One: per round, the HtD halves and then the
 * DtH halves on one copy queue (Figure 2), so a round's DtH never holds up
 * its HtDs and a worker's next task (next round) waits on copies already
 * queued ahead of it. With usched's kernel queues (e->dev.kq > 1) the
 * kernel of the order's i-th task goes to kernel queue i % kq, as usched
 * launches a TG's and the model puts them: the fixed orders have the same
 * concurrent kernels usched has (the paper's NoReorder had them too).
 */
int run_order(struct env *e, const struct result *r, struct binst *in,
	      const uint8_t *order, double *ms)
{
	cl_command_queue *q = e->c.q;
	bool one = e->dev.dma == 1;
	struct span sp = { 0 };
	int ret = 0;

	for (unsigned int rd = 0; rd < r->N && !ret; rd++) {
		for (unsigned int i = rd * r->T; i < (rd + 1) * r->T && !ret; i++) {
			unsigned int s = order[i];
			cl_event prev = s >= r->T ? binst_last(&in[s - r->T]) : NULL;

			ret = binst_enqueue_in(&in[s], &e->reg, q[CLX_HTD],
					       clx_kq(&e->c, i % e->dev.kq), prev ? 1 : 0,
					       prev ? &prev : NULL);
			if (!one && !ret)
				ret = binst_enqueue_out(&in[s], &e->reg, q[CLX_DTH]);
		}
		for (unsigned int i = rd * r->T; one && i < (rd + 1) * r->T && !ret; i++)
			ret = binst_enqueue_out(&in[order[i]], &e->reg, q[CLX_HTD]);
	}
	for (unsigned int s = 0; s < r->nslots && !ret; s++)
		ret = clx_wait(binst_last(&in[s]));
	for (unsigned int s = 0; s < r->nslots && !ret; s++)
		span_add(&sp, &in[s]);
	*ms = (sp.last - sp.first) / 1e6;
	return ret;
}

int insts_init(struct clx *c, const struct result *r, struct binst *in)
{
	memset(in, 0, r->nslots * sizeof(*in));
	for (unsigned int s = 0; s < r->nslots; s++) {
		if (binst_init(c, &r->slot[s], &in[s])) {
			fprintf(stderr, "tqbench: %s: cannot set up task %s\n", c->name,
				r->slot[s].name);
			return -ENOMEM;
		}
	}
	return 0;
}

void insts_fini(const struct result *r, struct binst *in)
{
	for (unsigned int s = 0; s < r->nslots; s++)
		binst_fini(&in[s]);
}

/* The profiling stamps of every command of the order just run, read once. */
struct stamps {
	double start[MAX_SLOTS][CLX_MAX_CMDS], end[MAX_SLOTS][CLX_MAX_CMDS];
	double first;			/* the earliest start */
};

static void stamps_read(const struct result *r, const struct binst *in, struct stamps *t)
{
	t->first = INFINITY;
	for (unsigned int s = 0; s < r->nslots; s++) {
		for (unsigned int c = 0; c < in[s].nev; c++) {
			t->start[s][c] = clu_start(in[s].ev[c]);
			t->end[s][c] = clu_end(in[s].ev[c]);
			t->first = fmin(t->first, t->start[s][c]);
		}
	}
}

/*
 * Copy @c of slot @s, if it is long enough to time well: how long it ran
 * over its standalone time into r's copy drift if no copy the other way
 * overlapped it, into r's overlapped ratios of its direction if copies the
 * other way covered it throughout (98% of it).
 */
static void copy_stretch(struct result *r, const struct binst *in, const struct stamps *t,
			 unsigned int s, unsigned int c)
{
	int dir = in[s].ev_stage[c] == CLX_HTD ? 0 : 1, other = dir ? CLX_HTD : CLX_DTH;
	double a = t->start[s][c], b = t->end[s][c], cover = 0, x;

	if (in[s].ev_stage[c] == CLX_K || in[s].b->cmd_ns[c] < 200e3 || !(b > a))
		return;
	/* one engine runs the other way: its copies never overlap each other */
	for (unsigned int o = 0; o < r->nslots; o++)
		for (unsigned int k = 0; k < in[o].nev; k++)
			if (in[o].ev_stage[k] == other)
				cover += fmax(0, fmin(b, t->end[o][k]) - fmax(a, t->start[o][k]));
	x = (b - a) / in[s].b->cmd_ns[c];
	if (cover == 0) {
		r->stretch.drift_sum += x;
		r->stretch.drift_n++;
	} else if (cover >= 0.98 * (b - a)) {
		r->stretch.ov_sum[dir] += x;
		r->stretch.ov_n[dir]++;
	}
}

/*
 * One line of commands.csv per command of the order just run: when it was
 * submitted to the device, started and ended (from the first start), its
 * standalone time, and where the model put it. Where a TG runs slower than
 * the model says, this shows whether commands ran longer or started later.
 * Copies that ran alone also go into r's copy drift: how much slower than
 * standalone the device copied while the experiment ran (a host or link
 * slowed by something else shows here, not in the model); copies that ran
 * overlapped, into the slowdown the profile should have had.
 */
static void timeline_write(struct env *e, struct result *r, const struct binst *in,
			   unsigned int order_no, unsigned int run)
{
	static const char *const stage[CLX_STAGES] = { "htd", "k", "dth" };
	static struct tqsim_sim_result res;
	static struct stamps t;
	const uint8_t *order = r->perm[order_no];
	struct tqsim_tg tg;

	result_tg(r, &tg);
	tqsim_simulate(&tg, &e->dev, order, r->nslots, &res);
	stamps_read(r, in, &t);
	for (unsigned int pos = 0; pos < r->nslots; pos++) {
		unsigned int s = order[pos];
		const struct btask *b = in[s].b;

		for (unsigned int c = 0; c < in[s].nev && c < b->ncmds; c++) {
			unsigned int tc = tg.task[s].first[0] + c;
			cl_ulong sub = 0;

			copy_stretch(r, in, &t, s, c);
			clGetEventProfilingInfo(in[s].ev[c], CL_PROFILING_COMMAND_SUBMIT,
						sizeof(sub), &sub, NULL);
			fprintf(e->cmds, "%s,%s,%u,%u,%u,%u,%u,%s,%s,%u,", r->s->name,
				r->s->bench[r->bench], r->T, r->N, order_no, run, pos, b->name,
				stage[in[s].ev_stage[c]], c);
			fprintf(e->cmds, "%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", b->cmd_ns[c] / 1e3,
				res.start[tc] / 1e3, res.end[tc] / 1e3,
				sub ? ((double)sub - t.first) / 1e3 : NAN,
				(t.start[s][c] - t.first) / 1e3, (t.end[s][c] - t.first) / 1e3);
		}
	}
}

/* Hold what would go to dst (NULL: off); 0 or -ENOMEM. */
int held_open(struct held *h, FILE *dst)
{
	*h = (struct held){ 0 };
	if (dst)
		h->f = open_memstream(&h->buf, &h->len);
	return dst && !h->f ? -ENOMEM : 0;
}

/* Write what was held to dst if keep, and let it go. */
void held_close(struct held *h, FILE *dst, bool keep)
{
	if (h->f)
		fclose(h->f);
	if (keep && h->len)
		fwrite(h->buf, 1, h->len, dst);
	free(h->buf);
	*h = (struct held){ 0 };
}

/* One pass over every order: run k of each; its command timelines into cmds. */
static int noreorder_pass(struct env *e, struct result *r, struct binst *in, double *v,
			  unsigned int k, FILE *cmds)
{
	unsigned int runs = e->o->runs;
	int ret = 0;

	e->cmds = cmds;
	steady_wait(e);
	for (unsigned int p = 0; p < r->nperms && !ret; p++) {
		ret = run_order(e, r, in, r->perm[p], &v[(size_t)p * runs + k]);
		if (!ret && cmds && (r->N == 1 || e->dev.dma == 2))
			timeline_write(e, r, in, p, k);
		steady_tick(e);
		progress_step(1, NULL);
	}
	return ret;
}

int run_noreorder(struct env *e, struct result *r)
{
	static struct binst in[MAX_SLOTS];
	unsigned int runs = e->o->runs;
	double *v = calloc((size_t)r->nperms * runs, sizeof(double));
	FILE *cmds = e->cmds;
	double warm;
	int ret = -ENOMEM;

	if (!v)
		return ret;
	ret = insts_init(&e->c, r, in);
	/* a warm-up run; then runs rounds over all orders, so drift spreads evenly */
	ret = ret ?: run_order(e, r, in, r->perm[0], &warm);
	progress_begin("NoReorder", (double)runs * r->nperms);
	for (unsigned int k = 0; k < runs && !ret; k++) {
		/* the pass's timelines go to commands.csv only if it is kept */
		struct copy_stretch before = r->stretch;
		struct held pass;
		bool slow, redo;

		ret = held_open(&pass, cmds);
		ret = ret ?: noreorder_pass(e, r, in, v, k, pass.f);
		slow = !ret && !steady_end(e);
		redo = slow && r->redone[0] < e->o->redo;
		held_close(&pass, cmds, !redo);
		if (redo) {
			/* the host slowed its copies during the pass: run it again */
			r->redone[0]++;
			r->stretch = before;
			progress_step(-(double)r->nperms, "host slow: again");
			k--;
		} else {
			r->unsteady[0] += slow;
		}
	}
	e->cmds = cmds;
	progress_end();
	for (unsigned int p = 0; p < r->nperms && !ret; p++)
		r->perm_ms[p] = tq_median(&v[(size_t)p * runs], runs);
	insts_fini(r, in);
	free(v);
	return ret;
}

/*
 * The order policy p picks for r from the standalone times. On two copy
 * engines, all T x N tasks at once with each worker's tasks chained, as
 * usched orders them when they are submitted together; with one copy
 * engine round by round, as run_order() runs them (see predict_ms()).
 * exact gets 0.2 s on the larger sets, where proving the best order can
 * take far longer.
 */
static int policy_order(struct env *e, const struct result *r, int p, uint8_t *order)
{
	static struct tqsim_ws ws;
	const struct tqsim_policy_ops *ops = tqsim_policy_find(policy_names[p]);
	struct tqsim_tg tg;
	struct tqsim_decision d;

	if (!ops)
		return -EINVAL;
	if (e->dev.dma == 2) {
		struct tqsim_problem pb = { .tg = &tg, .dev = &e->dev, .seed = e->o->seed,
					 .budget_ns = r->nslots > 8 ? 2e8 : 0 };

		result_tg(r, &tg);
		if (ops->order(&pb, &ws, &d))
			return -EINVAL;
		memcpy(order, d.order, r->nslots);
		return 0;
	}
	for (unsigned int rd = 0; rd < r->N; rd++) {
		struct tqsim_problem pb = { .tg = &tg, .dev = &e->dev, .seed = e->o->seed };

		tqsim_tg_init(&tg);
		for (unsigned int w = 0; w < r->T; w++) {
			const struct btask *b = &r->slot[rd * r->T + w];

			tqsim_tg_add_task(&tg);
			for (unsigned int c = 0; c < b->ncmds; c++)
				tqsim_tg_add_cmd(&tg, b->cmd_stage[c], b->cmd_ns[c]);
			tqsim_tg_set_width(&tg, w, r->share[rd * r->T + w]);
		}
		if (ops->order(&pb, &ws, &d))
			return -EINVAL;
		for (unsigned int i = 0; i < r->T; i++)
			order[rd * r->T + i] = rd * r->T + d.order[i];
	}
	return 0;
}

int policy_orders(struct env *e, struct result *r)
{
	for (int p = 0; p < NPOL; p++) {
		int ret = policy_order(e, r, p, r->pol_order[p]);

		if (ret)
			return ret;
		r->fixed_pred_ms[p] = predict_ms(e, r, r->pol_order[p]);
	}
	return 0;
}
