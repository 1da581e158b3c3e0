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
	int lid = get_local_id(0);

	for (int k = 0; k < n; k++) {
		__global const int *dk = d + (size_t)k * n;

		for (int i = 0; i < n; i++) {
			__global int *di = d + (size_t)i * n;
			int dik = di[k];

			for (int j = lid; j < n; j += WG) {
				int via = dik + dk[j];

				if (via < di[j])
					di[j] = via;
			}
		}
		barrier(CLK_GLOBAL_MEM_FENCE);
	}
}
