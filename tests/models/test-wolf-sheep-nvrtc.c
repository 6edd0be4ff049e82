/*
 * tests/models/test-wolf-sheep-nvrtc.c - the wolf-sheep kernel source (its
 * own kernels and the kit's: weft/agents.wk, weft/grid.wk, weft/space.wk,
 * weft/blocks.wk) compiled by NVRTC with the CUDA backend's prelude and
 * options, for the oldest and a recent architecture: what can be checked
 * of the model on CUDA without a GPU (tests/models/nvrtc-check.c).
 * Skipped when libnvrtc cannot be loaded.
 */
#include "config.h"

#include "nvrtc-check.h"

#include "wolf_sheep_kernels.h"

int main(void)
{
	return nvrtc_check(&wolf_sheep_program, "wolf-sheep");
}
