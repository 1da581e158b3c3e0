// SPDX-License-Identifier: GPL-2.0
/*
 * MT: out = transpose(in) for n x n row-major floats, n a multiple of T.
 * A T x T tile goes through local memory so reads and writes both walk rows.
 */
#define T 16

__kernel __attribute__((reqd_work_group_size(T, T, 1)))
void transpose(__global const float *in, __global float *out, int n)
{
	__local float tile[T][T + 1];	/* + 1: no bank conflicts on tile[lx][ly] */
	int lx = get_local_id(0), ly = get_local_id(1);
	int gx = get_group_id(0) * T, gy = get_group_id(1) * T;

	tile[ly][lx] = in[(gy + ly) * n + gx + lx];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[(gx + ly) * n + gy + lx] = tile[lx][ly];
}
