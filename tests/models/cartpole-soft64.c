/*
 * tests/models/cartpole-soft64.c - the model's f64 functions
 * (cartpole_dyn64.h) compiled on weft/double.h's software path, as a
 * device without doubles runs them, for tests/models/test-cartpole-f64.c.
 */
#define WEFT_D64_SOFT 1
#include "cartpole.h"

#include "cartpole-soft64.h"

#if WEFT_D64_HARDWARE
#error "WEFT_D64_SOFT must select weft/double.h's software path"
#endif

uint64_t cp_soft_sin(uint64_t x)
{
	return weft_d64_bits(
		cp64_sin(weft_d64_from_bits(x), weft__cartpole_trig_table));
}

uint64_t cp_soft_cos(uint64_t x)
{
	return weft_d64_bits(
		cp64_cos(weft_d64_from_bits(x), weft__cartpole_trig_table));
}

int cp_soft_step(uint64_t s[4], unsigned action)
{
	cartpole_obs64 d;

	d.x = weft_d64_from_bits(s[0]);
	d.x_dot = weft_d64_from_bits(s[1]);
	d.theta = weft_d64_from_bits(s[2]);
	d.theta_dot = weft_d64_from_bits(s[3]);
	d = cp64_dynamics(d, action, weft__cartpole_trig_table);
	s[0] = weft_d64_bits(d.x);
	s[1] = weft_d64_bits(d.x_dot);
	s[2] = weft_d64_bits(d.theta);
	s[3] = weft_d64_bits(d.theta_dot);
	return cp64_terminated(d);
}

void cp_soft_reset(uint32_t lo, uint32_t hi, uint32_t episode, uint64_t s[4])
{
	weft_u32 keys[CP_KEY_ARRAYS] = { lo, hi, 0u, CP_PURPOSE_RESET };
	cartpole_obs64 d = cp64_reset_state(cp_reset_draw(keys, 1, 0, episode));

	s[0] = weft_d64_bits(d.x);
	s[1] = weft_d64_bits(d.x_dot);
	s[2] = weft_d64_bits(d.theta);
	s[3] = weft_d64_bits(d.theta_dot);
}
