/*
 * tests/models/test-minatar-nvrtc.c - the MinAtar kernel source (its
 * games, and minatar_act, a WEFT_KERNEL_SIMD kernel) compiled by NVRTC
 * with the CUDA backend's prelude and options, for the oldest and a
 * recent architecture: what can be checked of the model on CUDA without a
 * GPU: every kernel of the program in the CUBIN
 * (tests/models/nvrtc-check.c). Skipped when libnvrtc cannot be loaded.
 */
#include "config.h"

#include "nvrtc-check.h"

#include "minatar_kernels.h"

int main(void)
{
	return nvrtc_check(&minatar_program, "MinAtar");
}
