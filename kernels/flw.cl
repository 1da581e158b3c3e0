// SPDX-License-Identifier: GPL-2.0
/*
 * FLW: Floyd-Warshall all-pairs shortest paths on the n x n row-major
 * distance matrix d, in place (weights >= 0, d[i][i] = 0, no edge = a large
 * value whose double still fits in an int).
 *
 * Step k needs all of step k - 1 done, and OpenCL 1.2 has no barrier across
 * work-groups, so the task is ONE work-group that loops over k with a
 * barrier between steps: one launch, as tq's model wants, at the cost of
 * using one compute unit. Step k never changes row k or column k (d[k][k] is
 * 0), so the in-place updates within a step do not race.
 */
#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void floyd_warshall(__global int *d, int n)
{
	int nn = n * n;

	for (int k = 0; k < n; k++) {
		/* all n * n elements shared out, so small n still uses every item */
		for (int e = get_local_id(0); e < nn; e += WG) {
			int i = e / n, j = e - i * n;
			int via = d[i * n + k] + d[k * n + j];

			if (via < d[e])
				d[e] = via;
		}
		barrier(CLK_GLOBAL_MEM_FENCE);
	}
}
