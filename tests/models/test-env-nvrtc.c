/*
 * tests/models/test-env-nvrtc.c - the classic-control environment models'
 * kernel sources (acrobot, pendulum, mountain_car: their vectorising f32
 * steps, the math library's weft_sincosf_simd, and the correctly rounded
 * sin, cos and pow of their f64 steps, which the CUDA prelude keeps as one
 * copy each, WEFT_FN_OUTLINE) compiled by NVRTC with the CUDA backend's
 * prelude and options, for the oldest and a recent architecture: what can
 * be checked of them on CUDA without a GPU (tests/models/nvrtc-check.c).
 * MinAtar's source has its own test (test-minatar-nvrtc). Skipped when
 * libnvrtc cannot be loaded.
 */
#include "config.h"

#include "nvrtc-check.h"

#include "acrobot_kernels.h"
#include "mountain_car_kernels.h"
#include "pendulum_kernels.h"

int main(void)
{
	static const weft_program_desc *const progs[] = {
		&acrobot_program,
		&pendulum_program,
		&mountain_car_program,
	};
	static const char *const whats[] = { "acrobot", "pendulum",
					     "mountain_car" };

	return nvrtc_check_all(progs, whats, 3);
}
