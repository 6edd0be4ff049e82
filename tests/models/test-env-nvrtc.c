/*
 * tests/models/test-env-nvrtc.c - the environment models' kernel sources
 * (acrobot, pendulum, mountain_car, minatar: their vectorising f32 steps
 * and the math library's weft_sincosf_simd among them) compiled by NVRTC
 * with the CUDA backend's prelude and options, for the oldest and a
 * recent architecture: what can be checked of them on CUDA without a GPU
 * (tests/models/nvrtc-check.c). Skipped when libnvrtc cannot be loaded.
 */
#include "config.h"

#include "nvrtc-check.h"

#include "acrobot_kernels.h"
#include "minatar_kernels.h"
#include "mountain_car_kernels.h"
#include "pendulum_kernels.h"

int main(void)
{
	static const weft_program_desc *const progs[] = {
		&acrobot_program,
		&pendulum_program,
		&mountain_car_program,
		&minatar_program,
	};
	static const char *const whats[] = { "acrobot", "pendulum",
					     "mountain_car", "minatar" };

	return nvrtc_check_all(progs, whats, 4);
}
