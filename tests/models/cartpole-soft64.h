/*
 * tests/models/cartpole-soft64.h - CartPole's f64 functions compiled on
 * weft/double.h's software path (cartpole-soft64.c), for
 * tests/models/test-cartpole-f64.c, which has the hardware path: doubles
 * as their 64 bits.
 */
#ifndef TESTS_CARTPOLE_SOFT64_H
#define TESTS_CARTPOLE_SOFT64_H

#include <stdint.h>

uint64_t cp_soft_sin(uint64_t x);
uint64_t cp_soft_cos(uint64_t x);
/* One step of the model's f64 dynamics: s (x, x_dot, theta, theta_dot)
 * becomes the next state; returns whether it terminated. */
int cp_soft_step(uint64_t s[4], unsigned action);
/* The state an episode of key (lo, hi; stream, purpose) starts from. */
void cp_soft_reset(uint32_t lo, uint32_t hi, uint32_t episode, uint64_t s[4]);

#endif
