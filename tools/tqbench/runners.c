// SPDX-License-Identifier: GPL-2.0
/*
 * runners.c - what tqbench's setups run on, each opened on first use and
 * closed by runners_reset(): a usched instance per policy, its loop driven
 * from this thread (every completion to a collector: a closed run's tasks,
 * or a hook of the stream's or the open loop's), and an independent
 * context per worker. The experiments' setups are orders.c's (fixed orders), trials.c's (usched
 * beside them) and independent.c's; the stream is stream.c's, the open
 * loop openloop.c's.
 *
 * Each context has its own copy of the host arena, tasks' inputs at offset
 * 0 and outputs at env.out_base, registered with it.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tqbench/bench.h"
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
	/*
	 * Owners 1..iso_owners submit as a user usched isolates would: their
	 * own arena and kernels in an isolation domain (usched.h's domains).
	 */
	unsigned int iso_owners;
	void *iso_arena;
	uint32_t iso_region;
	uint32_t iso_kern[16];
	bool failed;
};

#define ISO_DOMAIN	1	/* the isolated owners' domain key (the daemon's: uid + 1) */

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
		clu_unmap(pol[p].iso_arena, e->arena_len);
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

/* usched */

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
	ret = usched_region_add(pol[p].u, USCHED_SHARED, pol[p].arena, e->arena_len, &pol[p].region);
	if (!ret && e->o->isolate_owners) {
		pol[p].iso_owners = e->o->isolate_owners;
		pol[p].iso_arena = arena_new(e->arena_len);
		ret = !pol[p].iso_arena ? -ENOMEM :
		      usched_region_add(pol[p].u, ISO_DOMAIN, pol[p].iso_arena, e->arena_len,
					&pol[p].iso_region);
	}
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
	bool iso = owner <= pp->iso_owners;
	uint32_t *kern = iso ? pp->iso_kern : pp->kern;
	char *arena = iso ? pp->iso_arena : pp->arena;
	int ret;

	if (ti >= 16)
		return -EINVAL;
	if (!kern[ti]) {
		uint32_t prog;

		ret = usched_prog_builtin(pp->u, iso ? ISO_DOMAIN : USCHED_SHARED, b->tk->name,
					  &prog);
		ret = ret ?: usched_kernel_get(pp->u, prog, b->tk->kernel, &kern[ti]);
		if (ret)
			return ret;
	}
	memset(t, 0, sizeof(*t));
	t->owner = owner;
	t->user_data = user;
	t->m = b->l.m;
	t->kernel = kern[ti];
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
			t->buf[i].host = arena + b->off[i];
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

int runner_btask(int p, const struct btask *b, uint64_t owner, uint64_t user,
		 struct usched_task *t)
{
	return to_usched(&pol[p], b, owner, user, t);
}

int runner_collect(int p, struct coll *co)
{
	return drive(&pol[p], co);
}

int runner_drive(int p, runner_done_fn fn, bool (*finished)(void *arg), void *arg)
{
	struct coll co = { .hook = fn, .finished = finished, .hook_arg = arg };

	return drive(&pol[p], &co);
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
