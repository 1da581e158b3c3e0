/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * rand.h - tq's one pseudo-random generator, for reproducible draws (test
 * inputs, task mixes, the fuzzer, the policies' searches): a seed names
 * the same sequence in every process and on every host. Not for secrets.
 *
 * splitmix64 (Steele, Lea and Flood; Vigna's constants): the state is the
 * seed itself, any 64-bit value, 0 included, so seeding is an assignment.
 * For independent streams from one seed, seed each with tq_rand_mix() of
 * the seed and the stream's index (nearby seeds then give unrelated
 * streams).
 */
#ifndef TQ_RAND_H
#define TQ_RAND_H

#include <stdint.h>

#define TQ_RAND_GAMMA	0x9e3779b97f4a7c15ull	/* the state's step: 2^64 / golden ratio */

/* splitmix64's finalizer: a bijection that scatters nearby values. */
static inline uint64_t tq_rand_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The next draw of the sequence whose state is *s. */
static inline uint64_t tq_rand_next(uint64_t *s)
{
	return tq_rand_mix(*s += TQ_RAND_GAMMA);
}

/* Uniform in [0, 1), with 53 random bits. */
static inline double tq_rand_unit(uint64_t *s)
{
	return (double)(tq_rand_next(s) >> 11) * 0x1.0p-53;
}

/*
 * xorshift64 (Marsaglia, 13/7/17; the state never 0): not for new code.
 * It stays for the draws that committed results were made with, so that
 * they reproduce: sim's evaluation (Documentation/results/sim-eval.md)
 * draws its TGs with it, and sim's bench and tests theirs.
 */
static inline uint64_t tq_xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif /* TQ_RAND_H */
