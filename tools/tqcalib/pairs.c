// SPDX-License-Identifier: GPL-2.0
/*
 * pairs.c - tqcalib --pairs (issue 44): what two kernels do to each other
 * side by side. Each kernels/ task of the sweep at three sizes (items
 * NAME.S, NAME.M, NAME.L); every ordered pair of items (an item with
 * itself too) run at once, the first on the kernel queue and the second
 * on a second one, right after; and each item alone. Every time from the
 * profiling stamps, median of the runs, the runs of all pairs interleaved
 * so that a drift of the device spreads over them. The buffers are filled
 * on the device (0.5f, tqbench's pattern): no host memory.
 *
 * Per item also its kind: the bytes of its buffers over its time alone,
 * as a share of the most any sweep point moved (bw_share; "memory" from
 * half of it, else "compute"): a rough mark of what bounds it, for reading
 * the pairs, not used by the model.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cl/clu_calib.h"
#include "tools/progress.h"
#include "tools/tqcalib/calib.h"
#include "tools/tqcalib/fit.h"
#include "tq/num.h"

#define CLASSES		3
#define MAX_ITEMS	(16 * CLASSES)

static const char class_name[CLASSES] = { 'S', 'M', 'L' };
static const double class_frac[CLASSES] = { 1.0 / 200, 1.0 / 40, 3.0 / 20 };

struct item {
	char name[PAIR_NAME];
	unsigned int order;		/* in the split's order: task index * 3 + class */
	const struct sweep *sw;
	unsigned int at;		/* the sweep's size */
	struct btask b;
	struct binst in[2];		/* one for each side of a pair */
	double alone_ns, bw_share;
};

int calib_task(struct btask *b, const struct tqk_task *t, struct tqk_size sz)
{
	if (t == tqk_find("SYN"))
		return btask_syn(b, "SYN", sz.n, sz.iters, 0, 0);
	return btask_real(b, t, sz);
}

/* The sweep's size closest to @ns alone, in log time. */
static unsigned int nearest(const struct sweep *sw, double ns)
{
	unsigned int at = 0;

	for (unsigned int i = 1; i < sw->n; i++)
		if (fabs(log(sw->ns[i] / ns)) < fabs(log(sw->ns[at] / ns)))
			at = i;
	return at;
}

/* Every device buffer of @in filled with 0.5f. */
static int fill(struct clx *c, struct binst *in)
{
	static const cl_uint half = 0x3f000000;
	static const cl_uchar zero;
	cl_int err = 0;

	for (uint32_t i = 0; i < in->b->l.nbufs && !err; i++) {
		uint64_t bytes = in->b->l.buf[i].bytes;

		if (bytes % 4)
			err = clEnqueueFillBuffer(c->q[CLX_K], in->dev[i], &zero, 1, 0, bytes, 0,
						  NULL, NULL);
		else
			err = clEnqueueFillBuffer(c->q[CLX_K], in->dev[i], &half, 4, 0, bytes, 0,
						  NULL, NULL);
	}
	return err || clFinish(c->q[CLX_K]) ? -EIO : 0;
}

/* One run of @in alone on the kernel queue: its time in ns. */
static int run_alone(struct clx *c, struct binst *in, double *ns)
{
	cl_event ev;
	int ret;

	if (tqk_cl_enqueue(c->q[CLX_K], in->k, &in->b->l, 0, NULL, &ev))
		return -EIO;
	ret = clx_wait(ev);
	*ns = (double)(clu_end(ev) - clu_start(ev));
	clReleaseEvent(ev);
	return ret;
}

/*
 * One run of a pair: @a on the kernel queue, @b on the second right
 * after; v[] = a's start and end, b's start and end, ns from the first start.
 */
static int run_pair(struct clx *c, struct binst *a, struct binst *b, double *v)
{
	cl_event ev[2] = { NULL, NULL };
	int ret = 0;

	if (tqk_cl_enqueue(c->q[CLX_K], a->k, &a->b->l, 0, NULL, &ev[0]) ||
	    tqk_cl_enqueue(clx_kq(c, 1), b->k, &b->b->l, 0, NULL, &ev[1]))
		ret = -EIO;
	clFlush(c->q[CLX_K]);
	clFlush(clx_kq(c, 1));
	for (int i = 0; i < 2; i++)
		if (ev[i])
			ret = clx_wait(ev[i]) ?: ret;
	if (!ret) {
		double t0 = (double)(clu_start(ev[0]) < clu_start(ev[1]) ? clu_start(ev[0]) :
				     clu_start(ev[1]));

		for (int i = 0; i < 2; i++) {
			v[2 * i] = (double)clu_start(ev[i]) - t0;
			v[2 * i + 1] = (double)clu_end(ev[i]) - t0;
		}
	}
	for (int i = 0; i < 2; i++)
		if (ev[i])
			clReleaseEvent(ev[i]);
	return ret;
}

/* The items: each sweep at each class, its instances filled and warm. */
static int items_init(struct clx *c, const struct sweep *sw, unsigned int n, double kernel_ms,
		      struct item *it, unsigned int *nit)
{
	double bw_max = 0;
	int ret = 0;

	for (unsigned int k = 0; k < n; k++)
		for (unsigned int i = 0; i < sw[k].n; i++)
			bw_max = fmax(bw_max, sw[k].bytes[i] / sw[k].ns[i]);
	*nit = 0;
	for (unsigned int k = 0; k < n && !ret; k++) {
		unsigned int ti = 0;

		while (ti < tqk_ntasks && tqk_tasks[ti] != sw[k].t)
			ti++;
		for (unsigned int cl = 0; cl < CLASSES && !ret && sw[k].n; cl++) {
			struct item *x = &it[(*nit)++];

			x->sw = &sw[k];
			x->order = ti * CLASSES + cl;
			x->at = nearest(&sw[k], class_frac[cl] * kernel_ms * 1e6);
			snprintf(x->name, sizeof(x->name), "%s.%c", sw[k].t->name, class_name[cl]);
			x->bw_share = bw_max > 0 ? sw[k].bytes[x->at] / sw[k].ns[x->at] / bw_max : 0;
			ret = calib_task(&x->b, sw[k].t, sw[k].sz[x->at]);
			for (int s = 0; s < 2 && !ret; s++) {
				double warm;

				ret = binst_init(c, &x->b, &x->in[s]);
				ret = ret ?: fill(c, &x->in[s]);
				ret = ret ?: run_alone(c, &x->in[s], &warm);
			}
		}
	}
	return ret;
}

static void item_csv(FILE *f, const struct item *x)
{
	const struct sweep *sw = x->sw;

	fprintf(f, ",%llu,%u,%.0f,%s,%.3f,%.4f,%.4f,%.0f", (unsigned long long)sw->sz[x->at].n,
		sw->sz[x->at].iters, sw->m[x->at], x->bw_share >= 0.5 ? "memory" : "compute",
		x->bw_share, sw->demand[x->at], sw->width[x->at], x->alone_ns);
}

int pairs_measure(struct clx *c, const struct sweep *sw, unsigned int n, double kernel_ms,
		  unsigned int reps, const char *path)
{
	static struct item it[MAX_ITEMS];
	unsigned int nit = 0, np;
	double *v = NULL, *alone = NULL;
	FILE *f = NULL;
	int ret;

	memset(it, 0, sizeof(it));
	ret = n * CLASSES <= MAX_ITEMS ? items_init(c, sw, n, kernel_ms, it, &nit) : -EINVAL;
	np = nit * nit;
	if (!ret) {
		v = calloc((size_t)np * reps * 4, sizeof(double));
		alone = calloc((size_t)nit * reps, sizeof(double));
		f = fopen(path, "w");
		ret = !v || !alone ? -ENOMEM : !f ? -errno : 0;
		if (!f)
			perror(path);
	}
	progress_begin("pairs", (double)reps * (np + nit));
	/* rep by rep over every item alone and every pair, in the same order */
	for (unsigned int r = 0; r < reps && !ret; r++) {
		for (unsigned int i = 0; i < nit && !ret; i++)
			ret = run_alone(c, &it[i].in[0], &alone[(size_t)i * reps + r]);
		for (unsigned int p = 0; p < np && !ret; p++)
			ret = run_pair(c, &it[p / nit].in[0], &it[p % nit].in[1],
				       &v[((size_t)p * reps + r) * 4]);
		progress_step(np + nit, NULL);
	}
	progress_end();
	if (ret)
		fprintf(stderr, "tqcalib: the pair runs failed (%s)\n", strerror(-ret));
	for (unsigned int i = 0; i < nit && !ret; i++)
		it[i].alone_ns = tq_median(&alone[(size_t)i * reps], reps);
	if (!ret)
		fprintf(f, "%s\n", PAIR_CSV_HEADER);
	for (unsigned int p = 0; p < np && !ret; p++) {
		const struct item *a = &it[p / nit], *b = &it[p % nit];
		double med[4], col[CLU_CAL_REPS];

		for (int k = 0; k < 4; k++) {
			for (unsigned int r = 0; r < reps; r++)
				col[r] = v[((size_t)p * reps + r) * 4 + k];
			med[k] = tq_median(col, reps);
		}
		/* the split's key: the lower item first */
		if (a->order <= b->order)
			fprintf(f, "%s+%s,%s,%s", a->name, b->name, a->name, b->name);
		else
			fprintf(f, "%s+%s,%s,%s", b->name, a->name, a->name, b->name);
		item_csv(f, a);
		item_csv(f, b);
		fprintf(f, ",%.0f,%.0f,%.0f,%.0f,%u\n", med[0], med[1], med[2], med[3], reps);
	}
	if (f && fclose(f) && !ret) {
		perror(path);
		ret = -EIO;
	}
	for (unsigned int i = 0; i < nit; i++)
		for (int s = 0; s < 2; s++)
			binst_fini(&it[i].in[s]);
	free(v);
	free(alone);
	if (!ret)
		fprintf(stderr, "tqcalib: %u items, %u pairs: wrote %s\n", nit, np, path);
	return ret;
}
