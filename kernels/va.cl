// SPDX-License-Identifier: GPL-2.0
/* VA: c = a + b over n floats. */
__kernel void vec_add(__global const float *a, __global const float *b, __global float *c)
{
	int i = get_global_id(0);

	c[i] = a[i] + b[i];
}
