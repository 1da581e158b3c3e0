// SPDX-License-Identifier: GPL-2.0
/*
 * independent.c - the experiments' independent setup (run_independent):
 * what applications do without tq, one thread per worker, each with its
 * own context and in-order queue (runners.c's), its N tasks one after
 * another. The stream's independent setups are stream.c's, the clients as
 * processes indep.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "tools/tqbench/bench.h"
#include "tq/num.h"

struct worker {
	struct env *e;
	const struct result *r;
	unsigned int w;
	struct clx *c;			/* its own context (runners.c) */
	struct clu_region *reg;
	struct binst *in;
	pthread_barrier_t *go;
	struct span sp;
	int ret;
};

/* One application: its N tasks one after another on its own in-order queue. */
static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	cl_command_queue q = wk->c->q[CLX_HTD];

	pthread_barrier_wait(wk->go);
	for (unsigned int rd = 0; rd < wk->r->N && !wk->ret; rd++) {
		struct binst *in = &wk->in[rd * wk->r->T + wk->w];

		wk->ret = binst_enqueue_in(in, wk->reg, q, q, 0, NULL);
		wk->ret = wk->ret ?: binst_enqueue_out(in, wk->reg, q);
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

	for (unsigned int w = 0; w < r->T && !ret; w++) {
		wk[w] = (struct worker){ .e = e, .r = r, .w = w, .in = in, .go = &go };
		ret = runner_indep(e, w, &wk[w].c, &wk[w].reg);	/* open: its tasks are bound */
	}
	if (ret)
		return ret;
	pthread_barrier_init(&go, NULL, r->T);
	for (unsigned int w = 0; w < r->T; w++)
		pthread_create(&th[w], NULL, worker_main, &wk[w]);
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
		struct clu_region *reg;
		struct clx *c;

		ret = runner_indep(e, w, &c, &reg);
		if (!ret && binst_init(c, &r->slot[s], &in[s]))
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
