/*
 * models/cartpole/cartpole_host.c - the CartPole kernels compiled as C for
 * host backends, from the same source the run-time compilers get. Built
 * with -ffp-contract=off (local.mk): the f32 arithmetic must round
 * operation by operation, as on every other target.
 */
#include "config.h"

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "cartpole.h"
#include "cartpole.wk"

const weft_kernel_desc weft__cartpole_kernels[CP_N_KERNELS] = {
	{ "cartpole_act", cartpole_act },
	{ "cartpole_policy", cartpole_policy },
	{ "cartpole_pack", cartpole_pack },
	{ "cartpole_reset", cartpole_reset },
	{ "cartpole_reduce", cartpole_reduce },
	{ "cartpole_total", cartpole_total },
};

void weft__cartpole_reset_obs(const cartpole_params *p, uint32_t env,
			      uint32_t episode, float obs[4])
{
	cartpole_obs s = cp_reset_state(p, env, episode);

	obs[0] = s.x;
	obs[1] = s.x_dot;
	obs[2] = s.theta;
	obs[3] = s.theta_dot;
}
