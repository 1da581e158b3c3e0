// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - the setups tqbench measures.
 *
 * NoReorder (run_noreorder) and the policies' orders (policy_orders) run
 * as fixed orders, driving OpenCL directly as the paper's NoReorder does:
 * one thread enqueues every task of the order on the three queues, a
 * worker's next task waiting on its previous one's last event. The
 * policies also run through usched, the scheduling core, one instance per
 * policy, its loop driven from this thread: every task is submitted first
 * (a worker's tasks flagged ORDERED), so the first TG holds one task of
 * each worker and the core forms the rest as they become ready. After
 * NoReorder, the trials (run_trials) run NoReorder's worst, median and best
 * orders again, each policy's order and each policy through usched, once
 * each per trial. Independent (run_independent) is what applications do
 * without tq: one thread per worker with its own context and queue.
 *
 * Makespans come from profiling stamps: the first command's start to the
 * last one's end. Each context has its own copy of the host arena, tasks'
 * inputs at offset 0 and outputs at env.out_base, registered with it.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/tqbench/bench.h"
#include "tools/tqcalib/progress.h"
#include "tq/num.h"
#include "usched/core/usched.h"

const char *const policy_names[NPOL] = { "fifo", "paper", "neh", "exact", "auto" };

/* usched's setups: the experiments' policies, then flow (the stream and the open loop only) */
const char *pol_name(int p)
{
	return p == POL_FLOW ? "flow" : p >= 0 && p < NPOL ? policy_names[p] : "?";
}

/* A usched instance per policy, made on first use. */
struct pol {
	struct usched *u;
	void *arena;
	uint32_t region;
	uint32_t kern[16];		/* per kernels/ task: kernel id, 0 until registered */
	bool failed;
};

/* An independent worker's own context. */
struct indep {
	struct clx c;
	void *arena;
	struct clu_region r;
	bool open;
};

static struct pol pol[NPOL + 1];
static struct indep ind[MAX_WORKERS];

static void *arena_new(size_t len)
{
	uint32_t *p = clu_mmap(len);

	/* a benign pattern: 0.5f as a float, a small int (no overflow in FLW's sums) */
	for (size_t i = 0; p && i < len / 4; i++)
		p[i] = 0x3f000000;
	return p;
}

int runners_init(struct env *e, uint64_t in_bytes, uint64_t out_bytes)
{
	e->out_base = (in_bytes + 4095) & ~4095ull;
	e->arena_len = e->out_base + ((out_bytes + 4095) & ~4095ull) + 4096;
	e->arena = arena_new(e->arena_len);
	if (!e->arena || clx_region_add(&e->c, e->arena, e->arena_len, &e->reg)) {
		fprintf(stderr, "tqbench: cannot register %zu bytes of host memory\n",
			e->arena_len);
		return -ENOMEM;
	}
	return 0;
}

void runners_reset(struct env *e)
{
	for (int p = 0; p <= NPOL; p++) {
		if (pol[p].u)
			usched_destroy(pol[p].u);
		clu_unmap(pol[p].arena, e->arena_len);
	}
	for (int w = 0; w < MAX_WORKERS; w++) {
		if (!ind[w].open)
			continue;
		clx_region_del(&ind[w].c, &ind[w].r);
		clx_close(&ind[w].c);
		clu_unmap(ind[w].arena, e->arena_len);
	}
	memset(pol, 0, sizeof(pol));
	memset(ind, 0, sizeof(ind));
}

void runners_fini(struct env *e)
{
	runners_reset(e);
	clx_region_del(&e->c, &e->reg);
	clu_unmap(e->arena, e->arena_len);
}

/* Fixed orders */

struct span {
	uint64_t first, last;
};

static void span_add(struct span *sp, const struct binst *in)
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
 * queued ahead of it.
 */
static int run_order(struct env *e, const struct result *r, struct binst *in,
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

			ret = binst_enqueue_in(&in[s], &e->reg, q[CLX_HTD], q[CLX_K], prev ? 1 : 0,
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

static int insts_init(struct clx *c, const struct result *r, struct binst *in)
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

static void insts_fini(const struct result *r, struct binst *in)
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
	static struct tq_sim_result res;
	static struct stamps t;
	const uint8_t *order = r->perm[order_no];
	struct tq_tg tg;

	result_tg(r, &tg);
	tq_simulate(&tg, &e->dev, order, r->nslots, &res);
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

/* A file's lines held back until a pass or trial is kept. */
struct held {
	FILE *f;			/* NULL where the file is off */
	char *buf;
	size_t len;
};

/* Hold what would go to dst (NULL: off); 0 or -ENOMEM. */
static int held_open(struct held *h, FILE *dst)
{
	*h = (struct held){ 0 };
	if (dst)
		h->f = open_memstream(&h->buf, &h->len);
	return dst && !h->f ? -ENOMEM : 0;
}

/* Write what was held to dst if keep, and let it go. */
static void held_close(struct held *h, FILE *dst, bool keep)
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
	static struct tq_ws ws;
	const struct tq_policy_ops *ops = tq_policy_find(policy_names[p]);
	struct tq_tg tg;
	struct tq_decision d;

	if (!ops)
		return -EINVAL;
	if (e->dev.dma == 2) {
		struct tq_problem pb = { .tg = &tg, .dev = &e->dev, .seed = e->o->seed,
					 .budget_ns = r->nslots > 8 ? 2e8 : 0 };

		result_tg(r, &tg);
		if (ops->order(&pb, &ws, &d))
			return -EINVAL;
		memcpy(order, d.order, r->nslots);
		return 0;
	}
	for (unsigned int rd = 0; rd < r->N; rd++) {
		struct tq_problem pb = { .tg = &tg, .dev = &e->dev, .seed = e->o->seed };

		tq_tg_init(&tg);
		for (unsigned int w = 0; w < r->T; w++) {
			const struct btask *b = &r->slot[rd * r->T + w];

			tq_tg_add_task(&tg);
			for (unsigned int c = 0; c < b->ncmds; c++)
				tq_tg_add_cmd(&tg, b->cmd_stage[c], b->cmd_ns[c]);
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

/* usched */

/* What the counted TGs of one policy add up to. */
struct tg_tally {
	double err_sum;			/* of log(|predicted - measured| / measured) */
	unsigned int nerr;
	double sched_max;		/* policy time over device time, the largest */
	unsigned int sched_over, sched_n;	/* TGs above 0.1%, TGs */
};

/* Tasks of a closed run (or a stream window), gathered by the completion callback. */
struct coll {
	unsigned int want, got, failed;
	uint64_t first, last;		/* CLOCK_MONOTONIC ns */
	/* every TG finished: a line of tg.csv each, and their errors */
	FILE *tgcsv;
	FILE *tasks;			/* usched-tasks.csv, with tgcsv */
	const char *tag;
	struct tg_tally *tally;		/* with tgcsv */
	/* stream mode */
	struct stream *st;
	/* the open loop's: every completion goes there, and it says when to stop */
	runner_done_fn hook;
	bool (*finished)(void *arg);
	void *hook_arg;
};

struct stream {
	struct env *e;
	struct pol *p;
	const struct suite *s;
	/*
	 * Each worker's own draws, seeded as the independent setup's workers:
	 * every setup sees the same sequence of tasks from each worker.
	 */
	uint64_t rng[MAX_WORKERS];
	uint64_t t_win, t_end;		/* counting window: [t_win, t_end] */
	uint64_t submitted, outstanding, counted;
	double *lat_ms;			/* per counted task */
	/*
	 * Per task completed, counted or not: stage start, end. A task that
	 * ends after the window may have run its kernel inside it.
	 */
	double (*iv)[CLX_STAGES][2];
	size_t niv;
	double load[CLX_STAGES];	/* standalone work of the counted tasks */
	size_t cap;
	int err;
};

static void on_complete(void *arg, const struct usched_completion *c);
static void on_tg(void *arg, const struct usched_tg_stat *s);

static int pol_open(struct env *e, int p)
{
	struct usched_opts uo = {
		.platform = e->c.platform,
		.device = e->c.name,
		.policy = pol_name(p),
		.profile = e->o->profile,
		.max_tg = e->o->max_tg,
		.kqueues = e->o->kqueues,
		.no_plans = e->o->no_plans,
		.no_refine = e->o->no_refine,
		.no_poll = e->o->no_poll,
		.no_clear = e->o->no_clear,
		.complete = on_complete,
		.tg_done = on_tg,
	};
	int ret;

	if (pol[p].u)
		return 0;
	if (pol[p].failed)
		return -ENODEV;
	pol[p].failed = true;
	ret = usched_create(&uo, &pol[p].u);
	if (ret) {
		fprintf(stderr, "tqbench: usched (%s): %s\n", pol_name(p), strerror(-ret));
		return ret;
	}
	pol[p].arena = arena_new(e->arena_len);
	if (!pol[p].arena)
		return -ENOMEM;
	ret = usched_region_add(pol[p].u, pol[p].arena, e->arena_len, &pol[p].region);
	if (ret) {
		fprintf(stderr, "tqbench: usched (%s): cannot register memory: %s\n",
			pol_name(p), strerror(-ret));
		return ret;
	}
	pol[p].failed = false;
	return 0;
}

static unsigned int task_index(const struct tqk_task *t)
{
	unsigned int i;

	for (i = 0; i < tqk_ntasks && tqk_tasks[i] != t; i++)
		;
	return i;
}

/* The usched task for btask b, owned by owner. */
static int to_usched(struct pol *pp, const struct btask *b, uint64_t owner, uint64_t user,
		     struct usched_task *t)
{
	unsigned int ti = task_index(b->tk);
	int ret;

	if (ti >= 16)
		return -EINVAL;
	if (!pp->kern[ti]) {
		uint32_t prog;

		ret = usched_prog_builtin(pp->u, b->tk->name, &prog);
		ret = ret ?: usched_kernel_get(pp->u, prog, b->tk->kernel, &pp->kern[ti]);
		if (ret)
			return ret;
	}
	memset(t, 0, sizeof(*t));
	t->owner = owner;
	t->user_data = user;
	t->m = b->l.m;
	t->kernel = pp->kern[ti];
	t->flags = USCHED_TASK_ORDERED;
	t->dim = b->l.dim;
	t->nbufs = b->l.nbufs;
	t->nargs = b->l.nargs;
	for (unsigned int d = 0; d < b->l.dim; d++) {
		t->global[d] = b->l.global[d];
		t->local[d] = b->l.local[d];
	}
	for (unsigned int i = 0; i < b->l.nbufs; i++) {
		t->buf[i].len = b->l.buf[i].bytes;
		t->buf[i].dir = b->dir[i];
		if (b->dir[i] != BT_SCRATCH)
			t->buf[i].host = (char *)pp->arena + b->off[i];
	}
	for (unsigned int i = 0; i < b->l.nargs; i++) {
		const struct tqk_arg *a = &b->l.arg[i];

		t->arg[i].kind = a->kind == TQK_ARG_BUF ? USCHED_ARG_BUF : USCHED_ARG_SCALAR;
		t->arg[i].buf = a->buf;
		t->arg[i].size = a->size;
		memcpy(t->arg[i].val, a->val, sizeof(t->arg[i].val));
	}
	return 0;
}

static struct coll *cur;	/* the run the callback reports to (this thread only) */

static void stream_submit(struct stream *st, uint64_t owner);

/* A line of stream-tasks.csv: one counted task's stages, from the window's start. */
static void stream_task_write(const struct stream *st, const struct usched_completion *c,
			      const struct btask *b, const double *alone)
{
	double t0 = st->t_win;

	fprintf(st->e->stream_tasks, "%s,%llu,%s,%.1f", pol_name(st->p - pol), (unsigned long long)c->tg,
		b->name, (c->queued_ns - t0) / 1e3);
	for (int s = 0; s < CLX_STAGES; s++)
		fprintf(st->e->stream_tasks, ",%.1f,%.1f", c->stage_end[s] > c->stage_start[s] ?
			(c->stage_start[s] - t0) / 1e3 : NAN,
			c->stage_end[s] > c->stage_start[s] ? (c->stage_end[s] - t0) / 1e3 : NAN);
	fprintf(st->e->stream_tasks, ",%.1f,%.1f,%.1f\n", alone[CLX_HTD] / 1e3,
		alone[CLX_K] / 1e3, alone[CLX_DTH] / 1e3);
}

static void on_complete(void *arg, const struct usched_completion *c)
{
	struct coll *co = cur;

	(void)arg;
	if (!co)
		return;
	if (co->hook) {
		co->hook(co->hook_arg, c);
		return;
	}
	co->got++;
	if (c->status) {
		co->failed++;
		return;
	}
	if (co->tasks) {
		fprintf(co->tasks, "%s,%llu,%llu,%.1f", co->tag, (unsigned long long)c->tg,
			(unsigned long long)c->user_data, c->queued_ns / 1e3);
		for (int s = 0; s < CLX_STAGES; s++)
			fprintf(co->tasks, ",%.1f,%.1f", c->stage_start[s] / 1e3,
				c->stage_end[s] / 1e3);
		fprintf(co->tasks, ",%llu", (unsigned long long)c->m);
		for (int s = 0; s < CLX_STAGES; s++)
			fprintf(co->tasks, ",%.1f,%.1f", c->pred_ns[s] / 1e3, c->busy_ns[s] / 1e3);
		fputc('\n', co->tasks);
	}
	if (!co->first || c->start_ns < co->first)
		co->first = c->start_ns;
	if (c->end_ns > co->last)
		co->last = c->end_ns;
	if (co->st) {
		struct stream *st = co->st;

		st->outstanding--;
		if (st->niv < st->cap) {
			for (int s = 0; s < CLX_STAGES; s++) {
				st->iv[st->niv][s][0] = c->stage_start[s];
				st->iv[st->niv][s][1] = c->stage_end[s];
			}
			st->niv++;
		}
		if (c->end_ns >= st->t_win && c->end_ns <= st->t_end && st->counted < st->cap) {
			const struct btask *b = &st->s->pool[c->user_data];
			double alone[CLX_STAGES] = { 0 };

			/* to the completion's delivery, as the independent workers' wait returns */
			st->lat_ms[st->counted] = (tq_clock_ns() - c->queued_ns) / 1e6;
			for (int s = 0; s < CLX_STAGES; s++) {
				for (unsigned int k = 0; k < b->ncmds; k++)
					if (b->cmd_stage[k] == s)
						alone[s] += b->cmd_ns[k];
				st->load[s] += alone[s];
			}
			st->counted++;
			if (st->e->stream_tasks)
				stream_task_write(st, c, b, alone);
		}
		if (tq_clock_ns() < st->t_end)
			stream_submit(st, c->owner);
	}
}

/* Every TG usched finished: its prediction against the measurement. */
static void on_tg(void *arg, const struct usched_tg_stat *s)
{
	struct coll *co = cur;
	double e;

	(void)arg;
	if (!co || s->measured_ns <= 0)
		return;
	e = fabs(s->predicted_ns - s->measured_ns) / s->measured_ns;
	if (co->tally) {
		double share = s->policy_ns / s->measured_ns;

		co->tally->sched_max = fmax(co->tally->sched_max, share);
		co->tally->sched_over += share > 1e-3;
		co->tally->sched_n++;
		if (e > 0) {
			co->tally->err_sum += log(e);
			co->tally->nerr++;
		}
	}
	if (co->tgcsv) {
		fprintf(co->tgcsv, "%s,%llu,%u,%.4f,%.4f,%.2f,%u,%.2f,%s", co->tag,
			(unsigned long long)s->seq, s->ntasks, s->predicted_ns / 1e6,
			s->measured_ns / 1e6, s->policy_ns / 1e3, s->inflight, s->host_ns / 1e3,
			usched_plan_name(s->plan));
		/* each stage's device time, in the model's schedule and measured */
		for (int st = 0; st < CLX_STAGES; st++)
			fprintf(co->tgcsv, ",%.4f,%.4f", s->pred_stage_ns[st] / 1e6,
				s->busy_stage_ns[st] / 1e6);
		fputc('\n', co->tgcsv);
	}
}

/* The collector has all it waits for. */
static bool drive_done(struct coll *co)
{
	if (co->finished)
		return co->finished(co->hook_arg);
	if (co->st)
		return !co->st->outstanding && tq_clock_ns() >= co->st->t_end;
	return co->got >= co->want;
}

/* Drive p's loop until the collector has all it waits for. */
static int drive(struct pol *pp, struct coll *co)
{
	struct pollfd pfd = { .fd = usched_fd(pp->u), .events = POLLIN };

	cur = co;
	for (;;) {
		int idle_ms = 0;

		usched_process(pp->u);
		if (drive_done(co))
			break;
		while (usched_idle(pp->u))
			;
		/*
		 * In slices: finished() may turn true with no event for the
		 * core (the open loop's last client leaving after its last
		 * task completed). 60 s without one is a hang, not a slow
		 * device: PoCL compiles at a kernel's first launch.
		 */
		while (poll(&pfd, 1, 100) == 0 && !drive_done(co)) {
			idle_ms += 100;
			if (idle_ms >= 60000) {
				fprintf(stderr, "tqbench: usched made no progress for 60 s\n");
				cur = NULL;
				return -ETIMEDOUT;
			}
		}
	}
	cur = NULL;
	return co->failed ? -EIO : 0;
}

int runner_usched(struct env *e, int p, struct usched **u)
{
	int ret = pol_open(e, p);

	*u = pol[p].u;
	return ret;
}

int runner_task(struct env *e, int p, unsigned int pool_i, const struct suite *s, uint64_t owner,
		struct usched_task *t)
{
	struct btask b = s->pool[pool_i];

	btask_layout(&b, e->out_base);
	return to_usched(&pol[p], &b, owner, pool_i, t);
}

int runner_drive(int p, runner_done_fn fn, bool (*finished)(void *arg), void *arg)
{
	struct coll co = { .hook = fn, .finished = finished, .hook_arg = arg };

	return drive(&pol[p], &co);
}

/* One closed run of r's slots through policy p; makespan in *ms. */
static int usched_once(struct env *e, struct result *r, int p, double *ms, FILE *tgcsv,
		       const char *tag, struct tg_tally *tally)
{
	struct pol *pp = &pol[p];
	struct coll co = { .want = r->nslots, .tgcsv = tgcsv, .tag = tag, .tally = tally,
			   .tasks = tgcsv ? e->usched_tasks : NULL };
	int ret = 0;

	/* round by round, workers in order: the first TG is one task of each */
	for (unsigned int s = 0; s < r->nslots && !ret; s++) {
		struct usched_task t;

		ret = to_usched(pp, &r->slot[s], 1 + s % r->T, s, &t);
		ret = ret ?: usched_submit(pp->u, &t);
	}
	if (ret) {
		fprintf(stderr, "tqbench: usched (%s): submit: %s\n", policy_names[p],
			strerror(-ret));
		usched_cancel(pp->u, USCHED_OWNER_ALL);
		return ret;
	}
	ret = drive(pp, &co);
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

static void usched_tally(struct result *r, int p, const struct usched_stats *a,
			 const struct tg_tally *t)
{
	struct usched_stats b;

	usched_stats(pol[p].u, &b);
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
		if (pol_open(e, p))
			continue;
		snprintf(tag[p], sizeof(tag[p]), "%s,%s,%u,%u,%s", r->s->name,
			 r->s->bench[r->bench], r->T, r->N, policy_names[p]);
		ret = usched_once(e, r, p, &warm, NULL, tag[p], NULL);
		progress_step(1, policy_names[p]);
		usched_stats(pol[p].u, &a[p]);
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
			usched_tally(r, ser[i].policy, &a[ser[i].policy], &tally[ser[i].policy]);
	}
	insts_fini(r, in);
	return ret;
}

/* Independent contexts */

static int ind_open(struct env *e, unsigned int w);

int runner_indep(struct env *e, unsigned int w, struct clx **c, struct clu_region **r)
{
	int ret = w < MAX_WORKERS ? ind_open(e, w) : -EINVAL;

	if (!ret) {
		*c = &ind[w].c;
		*r = &ind[w].r;
	}
	return ret;
}

static int ind_open(struct env *e, unsigned int w)
{
	if (ind[w].open)
		return 0;
	/* the same device: as the user named it, else by its name */
	if (clx_open(&ind[w].c, e->o->device ? e->o->device : e->c.name))
		return -ENODEV;
	ind[w].arena = arena_new(e->arena_len);
	if (!ind[w].arena || clx_region_add(&ind[w].c, ind[w].arena, e->arena_len, &ind[w].r)) {
		clx_close(&ind[w].c);
		return -ENOMEM;
	}
	ind[w].open = true;
	return 0;
}

struct worker {
	struct env *e;
	const struct result *r;
	unsigned int w;
	struct binst *in;
	pthread_barrier_t *go;
	struct span sp;
	int ret;
};

/* One application: its N tasks one after another on its own in-order queue. */
static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct indep *id = &ind[wk->w];
	cl_command_queue q = id->c.q[CLX_HTD];

	pthread_barrier_wait(wk->go);
	for (unsigned int rd = 0; rd < wk->r->N && !wk->ret; rd++) {
		struct binst *in = &wk->in[rd * wk->r->T + wk->w];

		wk->ret = binst_enqueue_in(in, &id->r, q, q, 0, NULL);
		wk->ret = wk->ret ?: binst_enqueue_out(in, &id->r, q);
		wk->ret = wk->ret ?: clx_wait(binst_last(in));
		if (!wk->ret)
			span_add(&wk->sp, in);
	}
	return NULL;
}

static int indep_once(struct env *e, struct result *r, struct binst *in, double *ms)
{
	struct worker wk[MAX_WORKERS];
	pthread_t th[MAX_WORKERS];
	pthread_barrier_t go;
	struct span sp = { 0 };
	int ret = 0;

	pthread_barrier_init(&go, NULL, r->T);
	for (unsigned int w = 0; w < r->T; w++) {
		wk[w] = (struct worker){ .e = e, .r = r, .w = w, .in = in, .go = &go };
		pthread_create(&th[w], NULL, worker_main, &wk[w]);
	}
	for (unsigned int w = 0; w < r->T; w++) {
		pthread_join(th[w], NULL);
		ret = ret ?: wk[w].ret;
		if (!sp.first || (wk[w].sp.first && wk[w].sp.first < sp.first))
			sp.first = wk[w].sp.first;
		if (wk[w].sp.last > sp.last)
			sp.last = wk[w].sp.last;
	}
	pthread_barrier_destroy(&go);
	*ms = (sp.last - sp.first) / 1e6;
	return ret;
}

int run_independent(struct env *e, struct result *r)
{
	static struct binst in[MAX_SLOTS];
	unsigned int runs = e->o->runs > 64 ? 64 : e->o->runs;
	double v[64], warm;
	int ret = 0;

	if (r->T > MAX_WORKERS)
		return -EINVAL;
	memset(in, 0, sizeof(in));
	for (unsigned int s = 0; s < r->nslots && !ret; s++) {
		unsigned int w = s % r->T;

		ret = ind_open(e, w);
		if (!ret && binst_init(&ind[w].c, &r->slot[s], &in[s]))
			ret = -ENOMEM;
	}
	ret = ret ?: indep_once(e, r, in, &warm);
	for (unsigned int k = 0; k < runs && !ret; k++) {
		steady_wait(e);
		ret = indep_once(e, r, in, &v[k]);
	}
	if (!ret)
		r->indep_ms = tq_median(v, runs);
	insts_fini(r, in);
	return ret;
}

/* The stream experiment */

/* BK50-like: a dominant-kernel or a dominant-transfer pool task, evenly. */
unsigned int stream_draw(const struct suite *s, uint64_t *rng)
{
	bool dk = bench_rnd(rng) & 1;
	unsigned int idx[MAX_POOL], n = 0;

	for (unsigned int i = 0; i < s->npool; i++)
		if (s->pool[i].dk == dk)
			idx[n++] = i;
	return n ? idx[bench_rnd(rng) % n] : bench_rnd(rng) % s->npool;
}

static void stream_submit(struct stream *st, uint64_t owner)
{
	unsigned int i = stream_draw(st->s, &st->rng[owner - 1]);
	struct btask b = st->s->pool[i];
	struct usched_task t;
	int ret;

	btask_layout(&b, st->e->out_base);
	ret = to_usched(st->p, &b, owner, i, &t);
	if (!ret) {
		t.flags = 0;	/* a stream's tasks are independent */
		ret = usched_submit(st->p->u, &t);
	}
	if (ret) {
		st->err = ret;
		return;
	}
	st->submitted++;
	st->outstanding++;
}

static int cmp_iv(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Busy time of the union of intervals iv[0..n-1] within [lo, hi]. */
static double union_busy(double (*iv)[2], size_t n, double lo, double hi)
{
	double busy = 0, cs = 0, ce = -1;

	qsort(iv, n, sizeof(*iv), cmp_iv);
	for (size_t i = 0; i < n; i++) {
		double s = fmax(iv[i][0], lo), t = fmin(iv[i][1], hi);

		if (t <= s)
			continue;
		if (s > ce) {
			busy += ce > cs ? ce - cs : 0;
			cs = s;
			ce = t;
		} else if (t > ce) {
			ce = t;
		}
	}
	return busy + (ce > cs ? ce - cs : 0);
}

static void percentiles(double *v, size_t n, double *p50, double *p99)
{
	double m = tq_median(v, n);	/* sorts v */

	*p50 = m;
	*p99 = n ? v[(size_t)fmin(n - 1, ceil(0.99 * n) - 1)] : 0;
}

/*
 * Each engine's busy share of [lo, hi], and the device's: the union of all
 * three. An engine that is idle while the device is busy waits on another
 * engine (a kernel behind its input copy); the device idle is the launch's
 * gaps.
 */
static void stream_util(struct stream_result *sr, double (*iv)[CLX_STAGES][2], size_t n,
			double lo, double hi);

void busy_shares(double (*iv)[CLX_STAGES][2], size_t n, double lo, double hi, double *util,
		 double *device)
{
	struct stream_result sr;

	stream_util(&sr, iv, n, lo, hi);
	memcpy(util, sr.util, sizeof(sr.util));
	*device = sr.device_util;
}

static void stream_util(struct stream_result *sr, double (*iv)[CLX_STAGES][2], size_t n,
			double lo, double hi)
{
	double (*one)[2] = malloc((n ? n : 1) * CLX_STAGES * sizeof(*one));
	size_t all = 0;

	/* one engine's intervals after another's: each its own run, then all of them */
	for (int s = 0; s < CLX_STAGES; s++) {
		size_t first = all;

		for (size_t i = 0; one && i < n; i++)
			if (iv[i][s][1] > iv[i][s][0])
				memcpy(one[all++], iv[i][s], sizeof(one[0]));
		sr->util[s] = one ? union_busy(one + first, all - first, lo, hi) / (hi - lo) : -1;
	}
	sr->device_util = one ? union_busy(one, all, lo, hi) / (hi - lo) : -1;
	free(one);
}

static int stream_usched(struct env *e, const struct suite *real, int p,
			 struct stream_result *sr)
{
	struct stream st = { .e = e, .p = &pol[p], .s = real };
	struct coll co = { .st = &st };
	struct usched_stats a, b;
	uint64_t now, dur = e->o->stream_s * 1e9;
	int ret;

	ret = pol_open(e, p);
	if (ret)
		return ret;
	st.cap = 1 << 20;
	st.lat_ms = malloc(st.cap * sizeof(double));
	st.iv = malloc(st.cap * sizeof(*st.iv));
	if (!st.lat_ms || !st.iv) {
		ret = -ENOMEM;
		goto out;
	}
	usched_stats(pol[p].u, &a);
	now = tq_clock_ns();
	/* the first tenth warms the core up and is not counted */
	st.t_win = now + dur / 10;
	st.t_end = now + dur;
	cur = &co;
	for (unsigned int w = 0; w < e->o->stream_workers; w++)
		st.rng[w] = e->o->seed + w;
	for (unsigned int w = 0; w < e->o->stream_workers; w++)
		for (unsigned int d = 0; d < e->o->stream_depth; d++)
			stream_submit(&st, w + 1);
	ret = st.err ?: drive(&pol[p], &co);
	if (ret)
		goto out;
	usched_stats(pol[p].u, &b);
	sr->tasks = st.counted;
	sr->secs = (st.t_end - st.t_win) / 1e9;
	sr->tput = st.counted / sr->secs;
	stream_util(sr, st.iv, st.niv, st.t_win, st.t_end);
	for (int s = 0; s < CLX_STAGES; s++)
		sr->bound_util = fmax(sr->bound_util, st.load[s] / (st.t_end - st.t_win));
	percentiles(st.lat_ms, st.counted, &sr->p50_ms, &sr->p99_ms);
	if (b.tgs > a.tgs) {
		sr->tg_err = (b.abs_err_sum - a.abs_err_sum) / (b.tgs - a.tgs);
		sr->sched_share = (b.policy_ns - a.policy_ns) /
				  fmax(1, b.measured_ns_sum - a.measured_ns_sum);
		sr->tg_size = (double)(b.completed - a.completed) / (b.tgs - a.tgs);
		sr->polled = (double)(b.polled - a.polled) / fmax(1, b.completed - a.completed);
	}
	sr->cleared = (double)(b.bytes_cleared - a.bytes_cleared) /
		      fmax(1, b.completed - a.completed);
out:
	cur = NULL;
	free(st.lat_ms);
	free(st.iv);
	return ret;
}

struct sworker {
	struct env *e;
	const struct suite *s;
	unsigned int w;
	uint64_t rng;
	double t_win, t_end;		/* host CLOCK_MONOTONIC ns */
	size_t n, cap;
	double *lat_ms;
	double (*iv)[CLX_STAGES][2];	/* device ns */
	double load[CLX_STAGES];
	uint64_t dev_off;		/* host ns - device ns, from the first task */
	int ret;
};

/*
 * An application in a loop: its own context, one task at a time. It keeps
 * the device buffers of its last few kinds of task, as an application
 * reuses its own, within a bound so eight of them fit the device.
 */
#define SW_CACHE	4

static void *sworker_main(void *arg)
{
	struct sworker *sw = arg;
	struct indep *id = &ind[sw->w];
	cl_command_queue q = id->c.q[CLX_HTD];
	struct binst inst[SW_CACHE] = { 0 };
	struct btask b[SW_CACHE];
	int kind[SW_CACHE] = { -1, -1, -1, -1 };
	unsigned int next = 0;

	for (;;) {
		uint64_t t0 = tq_clock_ns(), t1;
		unsigned int i = stream_draw(sw->s, &sw->rng), k;
		struct binst *in;

		if (t0 >= sw->t_end)
			break;
		for (k = 0; k < SW_CACHE && kind[k] != (int)i; k++)
			;
		if (k == SW_CACHE) {	/* not cached: replace the oldest */
			k = next++ % SW_CACHE;
			if (kind[k] >= 0)
				binst_fini(&inst[k]);
			kind[k] = -1;
			b[k] = sw->s->pool[i];
			btask_layout(&b[k], sw->e->out_base);
			if (binst_init(&id->c, &b[k], &inst[k])) {
				sw->ret = -ENOMEM;
				break;
			}
			kind[k] = i;
		}
		in = &inst[k];
		sw->ret = binst_enqueue_in(in, &id->r, q, q, 0, NULL);
		sw->ret = sw->ret ?: binst_enqueue_out(in, &id->r, q);
		sw->ret = sw->ret ?: clx_wait(binst_last(in));
		if (sw->ret)
			break;
		t1 = tq_clock_ns();
		if (t1 < sw->t_win || t1 > sw->t_end || sw->n >= sw->cap)
			continue;
		sw->lat_ms[sw->n] = (t1 - t0) / 1e6;
		for (int s = 0; s < CLX_STAGES; s++)
			sw->iv[sw->n][s][0] = sw->iv[sw->n][s][1] = 0;
		for (unsigned int c = 0; c < in->nev; c++) {
			int s = in->ev_stage[c];
			double st = clu_start(in->ev[c]), en = clu_end(in->ev[c]);

			if (!sw->iv[sw->n][s][0] || st < sw->iv[sw->n][s][0])
				sw->iv[sw->n][s][0] = st;
			sw->iv[sw->n][s][1] = fmax(sw->iv[sw->n][s][1], en);
			sw->load[s] += b[k].cmd_ns[c];
		}
		sw->n++;
	}
	for (unsigned int k = 0; k < SW_CACHE; k++)
		if (kind[k] >= 0)
			binst_fini(&inst[k]);
	return NULL;
}

/* IC_STREAM: what a client process is told, and tells back (then lat_ms[n], iv[n]) */
struct ic_stream {
	uint32_t w;
	uint64_t rng;
	double t_win, t_end;
};

struct ic_stream_reply {
	int32_t ret;
	uint64_t n;
	double load[CLX_STAGES];
};

int indep_stream_client(struct env *e, const struct suite *s, const void *req, size_t len,
			struct obuf *out)
{
	const struct ic_stream *q = req;
	struct ic_stream_reply rp = { 0 };
	struct sworker sw;
	int ret;

	if (len != sizeof(*q) || q->w >= MAX_WORKERS)
		return -EINVAL;
	ret = ind_open(e, q->w);
	if (ret)
		return ret;
	sw = (struct sworker){ .e = e, .s = s, .w = q->w, .rng = q->rng, .t_win = q->t_win,
			       .t_end = q->t_end, .cap = 1 << 16 };
	sw.lat_ms = malloc(sw.cap * sizeof(double));
	sw.iv = malloc(sw.cap * sizeof(*sw.iv));
	if (!sw.lat_ms || !sw.iv) {
		ret = -ENOMEM;
		goto out;
	}
	sworker_main(&sw);
	rp.ret = sw.ret;
	rp.n = sw.n;
	memcpy(rp.load, sw.load, sizeof(rp.load));
	ret = obuf_put(out, &rp, sizeof(rp));
	ret = ret ?: obuf_put(out, sw.lat_ms, sw.n * sizeof(double));
	ret = ret ?: obuf_put(out, sw.iv, sw.n * sizeof(*sw.iv));
out:
	free(sw.lat_ms);
	free(sw.iv);
	return ret;
}

/* The stream's clients as processes (indep.c): each runs sworker_main in its own. */
static int stream_independent_procs(struct env *e, const struct suite *real,
				    struct sworker *sw, unsigned int P, uint64_t start)
{
	struct obuf r = { 0 };
	int ret = indep_procs() >= P ? indep_procs_setup(e, real, P) : -ECHILD;
	uint64_t shift;

	/* every context open before the clock starts: all at once, as the threads' */
	for (unsigned int w = 0; w < P && !ret; w++) {
		struct ic_stream q = { .w = w, .t_win = 0, .t_end = 0 };

		ret = indep_send(w, IC_STREAM, &q, sizeof(q));
	}
	for (unsigned int w = 0; w < P && !ret; w++)
		ret = indep_recv(w, &r);
	/* the window as the threads have it, from now (their contexts were open at start) */
	shift = tq_clock_ns() - start;
	for (unsigned int w = 0; w < P && !ret; w++) {
		struct ic_stream q = { .w = w, .rng = sw[w].rng, .t_win = sw[w].t_win + shift,
				       .t_end = sw[w].t_end + shift };

		ret = indep_send(w, IC_STREAM, &q, sizeof(q));
	}
	for (unsigned int w = 0; w < P && !ret; w++) {
		const struct ic_stream_reply *rp;

		ret = indep_recv(w, &r);
		rp = (const void *)r.p;
		if (!ret && (r.len < sizeof(*rp) ||
			     r.len != sizeof(*rp) + rp->n * (sizeof(double) + sizeof(*sw->iv)) ||
			     rp->n > sw[w].cap))
			ret = -EPROTO;
		if (ret)
			break;
		sw[w].ret = rp->ret;
		sw[w].n = rp->n;
		memcpy(sw[w].load, rp->load, sizeof(rp->load));
		memcpy(sw[w].lat_ms, rp + 1, rp->n * sizeof(double));
		memcpy(sw[w].iv, (const char *)(rp + 1) + rp->n * sizeof(double),
		       rp->n * sizeof(*sw->iv));
	}
	free(r.p);
	if (ret)	/* replies may be left unread: these clients are done */
		indep_procs_stop(true);
	else
		indep_procs_reset();
	return ret;
}

/* procs: each worker a process of its own (indep.c), else a thread of this one */
static int stream_independent(struct env *e, const struct suite *real,
			      struct stream_result *sr, bool procs)
{
	unsigned int P = e->o->stream_workers;
	struct sworker sw[MAX_WORKERS];
	pthread_t th[MAX_WORKERS];
	uint64_t now, dur = e->o->stream_s * 1e9;
	double lo = INFINITY, hi = 0, load[CLX_STAGES] = { 0 };
	double *lat, (*iv)[CLX_STAGES][2];
	size_t n = 0;
	bool threads;
	int ret = 0;

	if (P > MAX_WORKERS)
		return -EINVAL;
	for (unsigned int w = 0; w < P && !ret && !procs; w++)
		ret = ind_open(e, w);
	if (ret)
		return ret;
	now = tq_clock_ns();
	for (unsigned int w = 0; w < P; w++) {
		sw[w] = (struct sworker){ .e = e, .s = real, .w = w, .rng = e->o->seed + w,
					  .t_win = now + dur / 10, .t_end = now + dur,
					  .cap = 1 << 16 };
		sw[w].lat_ms = malloc(sw[w].cap * sizeof(double));
		sw[w].iv = malloc(sw[w].cap * sizeof(*sw[w].iv));
		if (!sw[w].lat_ms || !sw[w].iv)
			ret = -ENOMEM;
	}
	threads = !procs && !ret;
	if (procs && !ret)
		ret = stream_independent_procs(e, real, sw, P, now);
	for (unsigned int w = 0; w < P && threads; w++)
		pthread_create(&th[w], NULL, sworker_main, &sw[w]);
	for (unsigned int w = 0; w < P; w++) {
		if (threads)
			pthread_join(th[w], NULL);
		ret = ret ?: sw[w].ret;
		n += sw[w].n;
	}
	lat = malloc((n ? n : 1) * sizeof(double));
	iv = malloc((n ? n : 1) * sizeof(*iv));
	n = 0;
	for (unsigned int w = 0; w < P; w++) {
		for (size_t i = 0; lat && iv && i < sw[w].n; i++, n++) {
			lat[n] = sw[w].lat_ms[i];
			memcpy(iv[n], sw[w].iv[i], sizeof(iv[0]));
			for (int s = 0; s < CLX_STAGES; s++) {
				if (iv[n][s][1] > iv[n][s][0]) {
					lo = fmin(lo, iv[n][s][0]);
					hi = fmax(hi, iv[n][s][1]);
				}
			}
		}
		for (int s = 0; s < CLX_STAGES; s++)
			load[s] += sw[w].load[s];
		free(sw[w].lat_ms);
		free(sw[w].iv);
	}
	sr->tasks = n;
	sr->secs = (dur - dur / 10) / 1e9;
	sr->tput = n / sr->secs;
	/* each context's stamps: the span of the counted commands is the window */
	if (lat && iv && n && hi > lo) {
		stream_util(sr, iv, n, lo, hi);
		for (int s = 0; s < CLX_STAGES; s++)
			sr->bound_util = fmax(sr->bound_util, load[s] / (hi - lo));
		percentiles(lat, n, &sr->p50_ms, &sr->p99_ms);
	}
	free(lat);
	free(iv);
	return ret;
}

int run_stream(struct env *e, const struct suite *real, const char *setup,
	       struct stream_result *sr)
{
	int ret = -EINVAL;

	memset(sr, 0, sizeof(*sr));
	snprintf(sr->setup, sizeof(sr->setup), "%s", setup);
	sr->workers = e->o->stream_workers;
	for (int s = 0; s < CLX_STAGES; s++)
		sr->util[s] = -1;
	sr->device_util = -1;
	/* probes would compete with the stream's copies: one wait before it only */
	steady_wait(e);
	progress_begin(setup, 1);
	if (!strcmp(setup, "independent") || !strcmp(setup, "proc-independent"))
		ret = stream_independent(e, real, sr, !strcmp(setup, "proc-independent"));
	for (int p = 0; p <= NPOL; p++)
		if (!strcmp(setup, pol_name(p)))
			ret = stream_usched(e, real, p, sr);
	/* auto with today's buffers handed on uncleared: what hygiene costs */
	if (!strcmp(setup, "auto-noclear")) {
		bool no_clear = e->o->no_clear;

		runners_reset(e);
		e->o->no_clear = true;
		for (int p = 0; p < NPOL; p++)
			if (!strcmp(policy_names[p], "auto"))
				ret = stream_usched(e, real, p, sr);
		runners_reset(e);
		e->o->no_clear = no_clear;
	}
	progress_end();
	/* what the stream's setup keeps on the device goes before the next */
	runners_reset(e);
	return ret;
}
