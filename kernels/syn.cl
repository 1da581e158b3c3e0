// SPDX-License-Identifier: GPL-2.0
/*
 * SYN: the synthetic task of the paper's Listing 1. input's size sets the
 * copies' times and num_iterations the kernel's. uint rather than the
 * listing's int, so the wrap-around is defined and the host checks it
 * exactly.
 */
__kernel void synthetic_kernel(__global uint *input, int num_iterations, uint factor)
{
	int idx = get_global_id(0);

	for (int i = 0; i < num_iterations; i++)
		input[idx] *= factor;
}
