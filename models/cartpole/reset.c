/*
 * models/cartpole/reset.c - the state an episode starts from, computed on
 * the host by the kernels' own function (cp_reset_state,
 * cartpole_shared.h): the initial state of `weft run`, and the tests'
 * reference. Built with the kernels' host builds (-ffp-contract=off).
 */
#include "cartpole.h"

void weft__cartpole_reset_obs(const cartpole_params *p, uint32_t env,
			      uint32_t episode, float obs[4])
{
	cartpole_obs s = cp_reset_state(p, env, episode);

	obs[0] = s.x;
	obs[1] = s.x_dot;
	obs[2] = s.theta;
	obs[3] = s.theta_dot;
}
