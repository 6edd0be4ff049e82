/*
 * conform/rng.h - splitmix64, the generator of the suite's random inputs
 * (groups blocks, floats and math): the same sequence from the same seed
 * on every run and machine, so that a failure repeats.
 */
#ifndef WEFT_CONFORM_RNG_H
#define WEFT_CONFORM_RNG_H

#include <stdint.h>

/* The next number of the sequence whose state is *s. */
static inline uint64_t weft__ct_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

#endif /* WEFT_CONFORM_RNG_H */
