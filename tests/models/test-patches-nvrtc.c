/*
 * tests/models/test-patches-nvrtc.c - the patch model's kernel source
 * (models/patches/patches.wk with weft/math.h) compiled by NVRTC with the
 * CUDA backend's prelude and options, for the oldest and a recent
 * architecture: what can be checked of the model on CUDA without a GPU
 * (tests/models/nvrtc-check.c). Skipped when libnvrtc cannot be loaded.
 */
#include "config.h"

#include "nvrtc-check.h"

#include "patches_kernels.h"

int main(void)
{
	return nvrtc_check(&patches_program, "patches");
}
