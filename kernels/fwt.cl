// SPDX-License-Identifier: GPL-2.0
/*
 * FWT: fast Walsh(-Hadamard) transform, natural order, unnormalised, of each
 * LEN-float block of in, written to out. A whole-array transform needs one
 * launch per butterfly stride (or a grid-wide barrier OpenCL 1.2 lacks); tq's
 * model has one kernel per task, so each work-group transforms its own block
 * in local memory, all log2(LEN) stages in one launch.
 */
#define LEN 1024
#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void fwt(__global const float *in, __global float *out)
{
	__local float x[LEN];
	int lid = get_local_id(0);
	size_t base = get_group_id(0) * (size_t)LEN;

	for (int i = lid; i < LEN; i += WG)
		x[i] = in[base + i];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int h = 1; h < LEN; h <<= 1) {
		for (int p = lid; p < LEN / 2; p += WG) {
			/* p-th butterfly: pairs (i, i + h), i with bit h clear */
			int i = ((p & ~(h - 1)) << 1) | (p & (h - 1));
			float a = x[i], b = x[i + h];

			x[i] = a + b;
			x[i + h] = a - b;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int i = lid; i < LEN; i += WG)
		out[base + i] = x[i];
}
