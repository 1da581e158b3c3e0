// SPDX-License-Identifier: GPL-2.0
/*
 * DCT: orthonormal 2D DCT-II of every 8x8 block of an n x n row-major float
 * image: Y = C X C^T, C[u][x] = a(u) cos((2x + 1) u pi / 16), a(0) =
 * sqrt(1/8), a(u > 0) = 1/2. A 16x16 work-group does 2x2 blocks, one
 * coefficient per work-item, in two passes through local memory.
 */
#define B 8
#define WG 16

__kernel __attribute__((reqd_work_group_size(WG, WG, 1)))
void dct8x8(__global const float *in, __global float *out, int n)
{
	__local float c[B][B];
	__local float x[WG][WG];
	__local float cx[WG][WG];	/* C X per block */
	int lx = get_local_id(0), ly = get_local_id(1);
	int gx = get_global_id(0), gy = get_global_id(1);
	int bx = lx & ~(B - 1), by = ly & ~(B - 1);	/* this block's corner */
	int u = ly & (B - 1), v = lx & (B - 1);		/* this item's coefficient */
	float s;

	if (lx < B && ly < B)
		c[ly][lx] = (ly ? 0.5f : sqrt(0.125f)) * cos((2 * lx + 1) * ly * M_PI_F / 16);
	x[ly][lx] = in[gy * n + gx];
	barrier(CLK_LOCAL_MEM_FENCE);
	s = 0.0f;
	for (int k = 0; k < B; k++)
		s += c[u][k] * x[by + k][bx + v];
	cx[ly][lx] = s;
	barrier(CLK_LOCAL_MEM_FENCE);
	s = 0.0f;
	for (int k = 0; k < B; k++)
		s += cx[by + u][bx + k] * c[v][k];
	out[gy * n + gx] = s;
}
