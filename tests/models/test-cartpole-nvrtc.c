/*
 * tests/models/test-cartpole-nvrtc.c - the CartPole kernel source compiled by
 * NVRTC with the CUDA backend's prelude and options (--fmad=false), for
 * the oldest and a recent architecture: what can be checked of the model
 * on CUDA without a GPU: every kernel of the program in the CUBIN
 * (tests/models/nvrtc-check.c). Skipped when libnvrtc cannot be loaded.
 */
#include "config.h"

#include "nvrtc-check.h"

#include "cartpole_kernels.h"

int main(void)
{
	return nvrtc_check(&cartpole_program, "CartPole");
}
