// SPDX-License-Identifier: GPL-2.0
/*
 * MM: c = a * b for n x n row-major float matrices, n a multiple of TILE.
 * Each work-group computes one TILE x TILE block of c, walking the shared
 * dimension one tile of a and b at a time through local memory.
 */
#define TILE 16

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void mm(__global const float *a, __global const float *b, __global float *c, int n)
{
	__local float ta[TILE][TILE];
	__local float tb[TILE][TILE + 1];	/* + 1: no bank conflicts on tb[k][tx] */
	int tx = get_local_id(0), ty = get_local_id(1);
	int col = get_global_id(0), row = get_global_id(1);
	float acc = 0.0f;

	for (int t = 0; t < n; t += TILE) {
		ta[ty][tx] = a[row * n + t + tx];
		tb[ty][tx] = b[(t + ty) * n + col];
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int k = 0; k < TILE; k++)
			acc += ta[ty][k] * tb[k][tx];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	c[row * n + col] = acc;
}
