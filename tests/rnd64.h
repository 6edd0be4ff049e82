/*
 * tests/rnd64.h - xorshift64*, the reproducible random operands of the C
 * tests that compare bits by the million (test-softf64,
 * test-cartpole-f64): one sequence per program, the same on every run.
 */
#ifndef TESTS_RND64_H
#define TESTS_RND64_H

#include <stdint.h>

static uint64_t tap_rng_state = 0x9e3779b97f4a7c15ull;

/* The next 64 random bits. */
static inline uint64_t tap_rnd64(void)
{
	tap_rng_state ^= tap_rng_state >> 12;
	tap_rng_state ^= tap_rng_state << 25;
	tap_rng_state ^= tap_rng_state >> 27;
	return tap_rng_state * 0x2545f4914f6cdd1dull;
}

#endif
