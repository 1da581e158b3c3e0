// SPDX-License-Identifier: GPL-2.0
/*
 * BS: Black-Scholes prices of n European options, one per work-item.
 * s: spot price, k: strike, t: years to expiry; r: riskless rate and
 * v: volatility, the same for all options.
 */

/* Standard normal CDF, Abramowitz & Stegun 26.2.17 (|error| < 7.5e-8). */
static float cnd(float d)
{
	const float a1 = 0.319381530f, a2 = -0.356563782f, a3 = 1.781477937f;
	const float a4 = -1.821255978f, a5 = 1.330274429f;
	float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
	float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
	float w = 1.0f - 0.398942280401f * exp(-0.5f * d * d) * poly;

	return d < 0.0f ? 1.0f - w : w;
}

__kernel void black_scholes(__global const float *s, __global const float *k,
			    __global const float *t, __global float *call, __global float *put,
			    float r, float v)
{
	int i = get_global_id(0);
	float sqrt_t = sqrt(t[i]);
	float d1 = (log(s[i] / k[i]) + (r + 0.5f * v * v) * t[i]) / (v * sqrt_t);
	float d2 = d1 - v * sqrt_t;
	float disc = k[i] * exp(-r * t[i]);
	float n1 = cnd(d1), n2 = cnd(d2);

	call[i] = s[i] * n1 - disc * n2;
	put[i] = disc * (1.0f - n2) - s[i] * (1.0f - n1);
}
