// SPDX-License-Identifier: GPL-2.0
/*
 * CONV: separable 2D convolution of an n x n row-major float image with a
 * (2R+1)-tap row filter then a (2R+1)-tap column filter, zero outside the
 * image. filt holds the row taps then the column taps; taps are applied as
 * out(x) = sum_t f[R + t] * in(x + t).
 *
 * The SDK version is two launches (rows, then columns). tq's model has one
 * kernel per task, so here each work-group loads its tile plus an R-wide
 * apron into local memory, runs the row pass over tile and vertical apron,
 * then the column pass: both passes in one launch, the apron's row sums
 * computed by more than one group.
 */
#define R 8
#define TW 16
#define AW (TW + 2 * R)

__kernel __attribute__((reqd_work_group_size(TW, TW, 1)))
void sep_conv(__global const float *in, __constant float *filt, __global float *out, int n)
{
	__local float tile[AW][AW];
	__local float rows[AW][TW];
	int lx = get_local_id(0), ly = get_local_id(1);
	int x0 = get_group_id(0) * TW - R, y0 = get_group_id(1) * TW - R;
	float s;

	for (int y = ly; y < AW; y += TW) {
		for (int x = lx; x < AW; x += TW) {
			int gx = x0 + x, gy = y0 + y;
			int inside = gx >= 0 && gx < n && gy >= 0 && gy < n;

			tile[y][x] = inside ? in[gy * n + gx] : 0.0f;
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int y = ly; y < AW; y += TW) {
		s = 0.0f;
		for (int t = -R; t <= R; t++)
			s += filt[R + t] * tile[y][lx + R + t];
		rows[y][lx] = s;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	s = 0.0f;
	for (int t = -R; t <= R; t++)
		s += filt[3 * R + 1 + t] * rows[ly + R + t][lx];
	out[(y0 + R + ly) * n + x0 + R + lx] = s;
}
