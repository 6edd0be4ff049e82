/*
 * models/cartpole/cartpole_shared.h - what the CartPole kernels and the
 * model's host code share, in the kernel dialect: the physical constants,
 * the parameter block, the control block and the layouts of the per-
 * environment buffers. Part of the program text handed to run-time
 * compilers (before cartpole.wk), and included by the host files.
 *
 * Floating point. The dynamics are CartPole-v1's (Gymnasium), computed in
 * f32 with + - * only, each operation written out in a fixed order (no
 * library sin/cos, no division: see cartpole.wk), so that every target that
 * rounds f32 operations as IEEE 754 says, one at a time, computes the same
 * bits. Contracting a * b + c into a fused multiply-add would break that;
 * the framework never contracts kernels (the host build weft-wk
 * generates turns contraction off, the OpenCL prelude says FP_CONTRACT
 * OFF, the CUDA backend compiles with --fmad=false: docs/kernel-dialect.md).
 */
#ifndef CARTPOLE_SHARED_H
#define CARTPOLE_SHARED_H

/* The environment protocol's bookkeeping, resets and autoreset modes
 * (weft/env.h): every environment's key, episode and step counters live
 * in its bookkeeping buffer (`env_book`, WEFT_ENV_WORDS arrays of n
 * words), moved by env.wk's helpers. */
#include <weft/env.wk>

/* CartPole-v1 as Gymnasium defines it (gymnasium/envs/classic_control/
 * cartpole.py), rounded to f32 by the compiler; the three quotients as
 * their nearest f32 values. */
#define CP_GRAVITY	   9.8f
#define CP_MASSPOLE	   0.1f
#define CP_INV_TOTAL_MASS  0.909090936f /* 1 / (1.0 + 0.1) */
#define CP_LENGTH	   0.5f		/* half the pole's length */
#define CP_POLEMASS_LENGTH 0.05f	/* 0.1 * 0.5 */
#define CP_FORCE	   10.0f
#define CP_TAU		   0.02f       /* seconds per step */
#define CP_FOUR_THIRDS	   1.33333337f /* 4 / 3 */
#define CP_X_THRESHOLD	   2.4f
#define CP_THETA_THRESHOLD 0.209439516f /* 12 degrees: 12 * 2 * pi / 360 */
/* Reset: uniform in [-0.05, 0.05): a 24-bit draw k - 2^23 times
 * 0.1 / 2^24 (exact products of powers of two). */
#define CP_RESET_SCALE	(0.1f * 5.9604644775390625e-8f)
#define CP_RESET_OFFSET 8388608

/* Purposes: the fourth counter word of a Philox draw. */
#define CP_PURPOSE_RESET  1u /* (env, episode, 0): the four state values */
#define CP_PURPOSE_ACTION 2u /* (env, episode, step): the random policy */
#define CP_PURPOSE_SEEDED                             \
	3u /* (0, episode, 0): the state values of an \
	    * environment given a seed of its own */

/* The reset keys: the first four words of the bookkeeping buffer
 * (`env_book`, weft/env.wk: WEFT_ENV_KEY_LO, _KEY_HI, _STREAM, _PURPOSE
 * are these, 0 to 3). Environment i draws episode e's state with
 * weft_philox(lo[i], hi[i]; stream[i], e, 0, purpose[i]), which is
 * weft_env_rand(book, n, i, 0, 0). At setup every environment has (seed;
 * i, CP_PURPOSE_RESET), [simulation] seed split in two words; an
 * environment reset with a seed s of its own (reset_some, WEFT_ENV_SEEDED)
 * gets (s; 0, CP_PURPOSE_SEEDED) and starts again at episode 0, so that
 * its episodes depend on s alone, not on its index. The purposes are
 * env.wk's WEFT_ENV_PURPOSE_RESET and WEFT_ENV_PURPOSE_SEEDED. */
#define CP_KEY_LO      WEFT_ENV_KEY_LO
#define CP_KEY_HI      WEFT_ENV_KEY_HI
#define CP_KEY_STREAM  WEFT_ENV_STREAM
#define CP_KEY_PURPOSE WEFT_ENV_PURPOSE
#define CP_KEY_ARRAYS  4

/* What cartpole_reset_some does for each environment (buffer `mask`, the
 * protocol's reset_mask): env.wk's WEFT_ENV_KEEP, _NEXT and _SEEDED. */
#define CP_MASK_KEEP   WEFT_ENV_KEEP   /* nothing (its observation is packed) */
#define CP_MASK_NEXT   WEFT_ENV_NEXT   /* a new episode, the next of its key */
#define CP_MASK_SEEDED WEFT_ENV_SEEDED /* episode 0 of reset_seed[i] */

#define CP_PRECISION_F32 0u /* f32 state and arithmetic */
#define CP_PRECISION_F64 1u /* binary64 (weft/double.h) */

#define CP_POLICY_LINEAR 0u
#define CP_POLICY_RANDOM 1u

/* The parameter block (buffer p of every kernel): 32-bit words only, so
 * the layout is the same on every target. */
typedef struct cartpole_params {
	weft_u32 n_envs;
	weft_u32 seed_lo;
	weft_u32 seed_hi;
	weft_u32 max_steps;  /* truncation: an episode ends after this many */
	weft_u32 policy;     /* CP_POLICY_*, for cartpole_policy */
	weft_u32 n_partials; /* items of cartpole_reduce */
	weft_u32 every;	     /* [output] every: statistics are reduced ... */
	weft_u32 last_step;  /* ... then, and after [simulation] steps */
	weft_u32 n_rows;     /* rows of the series */
	weft_f32 w[4];	     /* linear policy: push right when */
	weft_f32 bias;	     /* w . obs + bias > 0 */
	weft_u32 precision;  /* CP_PRECISION_* */
	weft_u32 autoreset;  /* WEFT_ENV_AUTORESET_*: what act does at an end */
} cartpole_params;

/* The control block (ctl of the step kernels): one word each. */
#define CP_CTL_STEP_LO	0 /* steps done since setup, 64 bits */
#define CP_CTL_STEP_HI	1
#define CP_CTL_REDUCE_N 2 /* device-side extent of cartpole_reduce */
#define CP_CTL_TOTAL_N	3 /* device-side extent of cartpole_total */
#define CP_CTL_ROW	4 /* next row of the series */
#define CP_CTL_EP_LO	8 /* the last reduction: episodes finished, */
#define CP_CTL_EP_HI	9
#define CP_CTL_SUM_LO	10 /* the sum of their returns (64 bits), */
#define CP_CTL_SUM_HI	11
#define CP_CTL_MAX	12 /* and the largest */
#define CP_CTL_WORDS	16

/* Per-environment statistics since the last reduction (acc), one
 * array of n_envs words each, rows CP_ROW(n_envs) apart. The episodes
 * ended since then are the bookkeeping's count (WEFT_ENV_ENDED) less
 * CP_ACC_COUNT, its value at the last reduction: the step, which counts
 * them there anyway, then writes one row fewer. */
#define CP_ACC_COUNT  0
#define CP_ACC_SUM_LO 1
#define CP_ACC_SUM_HI 2
#define CP_ACC_MAX    3
#define CP_ACC_ARRAYS 4

/* A partial sum of cartpole_reduce and a row of the series: 8 words. */
#define CP_ROW_STEP_LO 0 /* series only */
#define CP_ROW_STEP_HI 1
#define CP_ROW_EP_LO   2
#define CP_ROW_EP_HI   3
#define CP_ROW_SUM_LO  4
#define CP_ROW_SUM_HI  5
#define CP_ROW_MAX     6
#define CP_ROW_WORDS   8

/* The row stride R of every per-environment array: n rounded up to an odd
 * multiple of 64. The state's and the statistics' rows ([k][R]) and the
 * packed buffer's regions (at c R bytes, c < 64) then all begin 64-byte
 * aligned, and no two of them a multiple of 4 KiB apart, so that the
 * dozen arrays a step streams through fall in different sets of the
 * caches. With rows exactly n apart, a power of two such as 65,536 puts
 * every row in the same sets, and the step, limited by memory at that
 * size, ran 10 to 14 % slower than at 65,552. Written without a mask so
 * that it keeps the type of n (u32 in kernels, size_t on the host). */
#define CP_ROW(n) (((((n) + 63u) >> 6) << 6) | 64u)

/* The packed result buffer (io) for n environments, in bytes, R =
 * CP_ROW(n):
 *   0         f32 obs[n][4]       x, x_dot, theta, theta_dot after the step
 *                                 (after the automatic reset where the
 *                                 episode ended)
 *   16R       f32 reward[n]
 *   20R       u8  terminated[n]
 *   21R       u8  truncated[n]
 *   22R       f32 final_obs[n][4] the last state of the episode that ended
 *                                 last (where the flags say it just did)
 *   38R       f32 final_return[n] that episode's return
 * 42R bytes in all; a step's results are the first 21R + n (with
 * final_obs and final_return where an episode ended). */
#define CP_IO_REWARD(n)	      (16u * CP_ROW(n))
#define CP_IO_TERMINATED(n)   (20u * CP_ROW(n))
#define CP_IO_TRUNCATED(n)    (21u * CP_ROW(n))
#define CP_IO_FINAL(n)	      (22u * CP_ROW(n))
#define CP_IO_FINAL_RETURN(n) (38u * CP_ROW(n))
#define CP_IO_BYTES(n)	      (42u * CP_ROW(n))
#define CP_IO_STEP_BYTES(n)   (CP_IO_TRUNCATED(n) + (n))

/* ---- what the kernels and the host share of the dynamics ---------------- */

/* CartPole's state, in Gymnasium's order. */
typedef struct cartpole_obs {
	weft_f32 x, x_dot, theta, theta_dot;
} cartpole_obs;

/* sin t for |t| <= 0.25: Taylor to t^7; the next term is below 4e-12,
 * a hundredth of an f32 ulp of the result. */
WEFT_FN weft_f32 cp_sin(weft_f32 t)
{
	weft_f32 t2 = t * t;
	weft_f32 p = -1.98412701e-4f;

	p = p * t2 + 8.33333377e-3f;
	p = p * t2 - 0.166666672f;
	p = p * t2;
	return t + t * p;
}

/* cos t for |t| <= 0.25: Taylor to t^6; the next term is below 4e-10. */
WEFT_FN weft_f32 cp_cos(weft_f32 t)
{
	weft_f32 t2 = t * t;
	weft_f32 p = -1.38888892e-3f;

	p = p * t2 + 4.16666679e-2f;
	p = p * t2 - 0.5f;
	p = p * t2;
	return 1.0f + p;
}

/* 1/d for d in [0.62, 0.67] (the denominator of the angular acceleration
 * for |theta| <= 90 degrees): three Newton steps from 1/0.6222, whose
 * relative error (< 0.08) squares at each step. */
WEFT_FN weft_f32 cp_recip(weft_f32 d)
{
	weft_f32 r = 1.60720026f;

	r = r * (2.0f - d * r);
	r = r * (2.0f - d * r);
	r = r * (2.0f - d * r);
	return r;
}

/* One Euler step of CartPole-v1 (Gymnasium's CartPoleEnv.step), action 1
 * pushing right. */
WEFT_FN cartpole_obs cp_dynamics(cartpole_obs s, weft_u32 action)
{
	weft_f32 force = action ? CP_FORCE : -CP_FORCE;
	weft_f32 c = cp_cos(s.theta);
	weft_f32 sn = cp_sin(s.theta);
	weft_f32 temp, den, thetaacc, xacc;
	cartpole_obs n;

	temp = (force + CP_POLEMASS_LENGTH * (s.theta_dot * s.theta_dot) * sn) *
	       CP_INV_TOTAL_MASS;
	den = CP_LENGTH *
	      (CP_FOUR_THIRDS - CP_MASSPOLE * (c * c) * CP_INV_TOTAL_MASS);
	thetaacc = (CP_GRAVITY * sn - c * temp) * cp_recip(den);
	xacc = temp - CP_POLEMASS_LENGTH * thetaacc * c * CP_INV_TOTAL_MASS;
	n.x = s.x + CP_TAU * s.x_dot;
	n.x_dot = s.x_dot + CP_TAU * xacc;
	n.theta = s.theta + CP_TAU * s.theta_dot;
	n.theta_dot = s.theta_dot + CP_TAU * thetaacc;
	return n;
}

WEFT_FN int cp_terminated(cartpole_obs s)
{
	return s.x < -CP_X_THRESHOLD || s.x > CP_X_THRESHOLD ||
	       s.theta < -CP_THETA_THRESHOLD || s.theta > CP_THETA_THRESHOLD;
}

WEFT_FN weft_f32 cp_uniform(weft_u32 draw)
{
	return (weft_f32)((weft_i32)(draw >> 8) - CP_RESET_OFFSET) *
	       CP_RESET_SCALE;
}

/* The four draws of episode `episode` of environment i (CP_KEY_*: the
 * bookkeeping buffer's first four words, or four words of one
 * environment); with the bookkeeping buffer's own episode, the same as
 * weft_env_rand(book, n, i, 0, 0). */
WEFT_FN weft_rand4 cp_reset_draw(WEFT_GLOBAL const weft_u32 *keys, weft_u32 n,
				 weft_u32 i, weft_u32 episode)
{
	return weft_philox(keys[CP_KEY_LO * n + i], keys[CP_KEY_HI * n + i],
			   keys[CP_KEY_STREAM * n + i], episode, 0u,
			   keys[CP_KEY_PURPOSE * n + i]);
}

/* The state an episode starts from: four values uniform in [-0.05, 0.05),
 * from the four draws r. */
WEFT_FN cartpole_obs cp_reset_state(weft_rand4 r)
{
	cartpole_obs s;

	s.x = cp_uniform(r.v[0]);
	s.x_dot = cp_uniform(r.v[1]);
	s.theta = cp_uniform(r.v[2]);
	s.theta_dot = cp_uniform(r.v[3]);
	return s;
}

#include "cartpole_dyn64.h"

#endif /* CARTPOLE_SHARED_H */
