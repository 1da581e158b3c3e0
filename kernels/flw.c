// SPDX-License-Identifier: GPL-2.0
/*
 * flw.c - the FLW task (Floyd-Warshall shortest paths, flw.cl): its launch
 * plan, seeded inputs and host reference. n is the number of vertices;
 * m = n^3, the relaxations.
 */
#include <stdlib.h>

#include "internal.h"

enum { FLW_D };

#define FLW_INF		0x3fffffff	/* no edge; INF + INF still fits an int */
#define FLW_WMAX	1000

static void flw_plan(struct tqk_size sz, struct tqk_launch *l)
{
	uint64_t n = sz.n;

	tqk_add_buf(l, n * n * sizeof(int32_t), TQK_INOUT);
	tqk_arg_buf(l, FLW_D);
	tqk_arg_int(l, n);
	tqk_grid(l, 1, 256, 1, 256, 1);		/* one work-group: see flw.cl */
	l->m = n * n * n;
}

/* A random digraph: each edge present with probability 1/2, weight 1..WMAX. */
static void flw_gen(struct tqk_size sz, uint64_t seed, uint32_t buf, void *dst)
{
	struct tqk_rng r = tqk_rng_init(seed, buf);
	int32_t *w = dst;

	for (uint64_t i = 0; i < sz.n; i++) {
		for (uint64_t j = 0; j < sz.n; j++) {
			uint64_t x = tqk_rng_next(&r);

			w[i * sz.n + j] = (x & 1) ? FLW_INF : 1 + (int32_t)((x >> 1) % FLW_WMAX);
		}
		w[i * sz.n + i] = 0;
	}
}

/* Dense Dijkstra from src: O(n^2), an independent reference for one row. */
static void flw_dijkstra(const int32_t *w, uint64_t n, uint64_t src, int32_t *dist,
			 unsigned char *done)
{
	for (uint64_t v = 0; v < n; v++) {
		dist[v] = w[src * n + v];
		done[v] = 0;
	}
	for (uint64_t iter = 0; iter < n; iter++) {
		uint64_t u = n;

		for (uint64_t v = 0; v < n; v++)
			if (!done[v] && (u == n || dist[v] < dist[u]))
				u = v;
		if (dist[u] == FLW_INF)
			break;
		done[u] = 1;
		for (uint64_t v = 0; v < n; v++) {
			int32_t e = w[u * n + v];

			if (e != FLW_INF && dist[u] + e < dist[v])
				dist[v] = dist[u] + e;
		}
	}
}

/*
 * Every element: 0 on the diagonal, else between 1 and the direct edge.
 * Checked rows: exactly Dijkstra's distances (paths stay far below INF).
 */
static int flw_check(struct tqk_size sz, uint64_t seed, void *const bufs[],
		     struct tqk_mismatch *mm)
{
	uint64_t n = sz.n;
	int32_t *w = tqk_regen(&tqk_task_flw, sz, seed, FLW_D);
	int32_t *dist = malloc(n * sizeof(*dist));
	unsigned char *done = malloc(n);
	const int32_t *d = bufs[FLW_D];
	int ret = -ENOMEM;

	if (!w || !dist || !done)
		goto out;
	ret = 0;
	for (uint64_t i = 0; i < n * n && !ret; i++) {
		int32_t lo = i % (n + 1) ? 1 : 0;

		if (d[i] < lo || d[i] > w[i])
			ret = tqk_mismatch_at(mm, FLW_D, i, d[i], w[i], 0);
	}
	for (uint64_t r = 0; r < tqk_rows_checked(n) && !ret; r++) {
		uint64_t i = tqk_row(n, r);

		flw_dijkstra(w, n, i, dist, done);
		for (uint64_t j = 0; j < n && !ret; j++)
			ret = tqk_expect(d[i * n + j], dist[j], 0, FLW_D, i * n + j, mm);
	}
out:
	free(done);
	free(dist);
	free(w);
	return ret;
}

/* The launch's n (tqk_launch_check()). */
static struct tqk_size flw_size_of(const struct tqk_launch *l)
{
	return tqk_size_arg(l, 1);
}

const struct tqk_task tqk_task_flw = {
	.name = "FLW",
	.desc = "Floyd-Warshall all-pairs shortest paths, in place",
	.n_what = "vertices (n x n int distance matrix)",
	.source = tqk_src_flw,
	.kernel = "floyd_warshall",
	.n_min = 2,
	.n_max = 2048,
	.n_align = 1,
	.iters_max = 1,
	.plan = flw_plan,
	.gen = flw_gen,
	.check = flw_check,
	.size_of = flw_size_of,
};
