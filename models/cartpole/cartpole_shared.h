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
 * bits. Contracting a * b + c into a fused multiply-add would break that:
 * the host build is compiled with -ffp-contract=off (models/cartpole/
 * local.mk), the CUDA backend compiles with --fmad=false, and OpenCL C,
 * whose default is FP_CONTRACT ON, is told here.
 */
#ifndef CARTPOLE_SHARED_H
#define CARTPOLE_SHARED_H

#ifdef WEFT_TARGET_OPENCL
#pragma OPENCL FP_CONTRACT OFF
#endif

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

#define CP_POLICY_LINEAR 0u
#define CP_POLICY_RANDOM 1u

/* The parameter block (buffer 0 of every launch): 32-bit words only, so
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
	weft_u32 reserved[2];
} cartpole_params;

/* The control block (buffer 9 of the step kernels): one word each. */
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

/* Per-environment statistics since the last reduction (buffer 4), one
 * array of n_envs words each. */
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

/* The packed result buffer (buffer 6) for n environments, in bytes:
 *   0         f32 obs[n][4]       x, x_dot, theta, theta_dot after the step
 *                                 (after the automatic reset where the
 *                                 episode ended)
 *   16n       f32 reward[n]
 *   20n       u8  terminated[n]
 *   21n       u8  truncated[n]
 *   P         f32 final_obs[n][4] the last state of the episode that ended
 *                                 last (where the flags say it just did)
 *   P + 16n   f32 final_return[n] that episode's return
 * with P = 22n rounded up to a multiple of 4; P + 20n bytes in all. */
#define CP_IO_REWARD(n)	      (16u * (n))
#define CP_IO_TERMINATED(n)   (20u * (n))
#define CP_IO_TRUNCATED(n)    (21u * (n))
#define CP_IO_FINAL(n)	      ((22u * (n) + 3u) & ~3u)
#define CP_IO_FINAL_RETURN(n) (CP_IO_FINAL(n) + 16u * (n))

/* Kernel indexes in weft__cartpole_kernels. */
#define CP_K_ACT    0
#define CP_K_POLICY 1
#define CP_K_PACK   2
#define CP_K_RESET  3
#define CP_K_REDUCE 4
#define CP_K_TOTAL  5

/* Buffer slots of the launches (every kernel binds the same list). */
#define CP_B_PARAMS   0
#define CP_B_STATE    1 /* f32 x[n], x_dot[n], theta[n], theta_dot[n] */
#define CP_B_STEPS    2 /* u32: steps into the current episode */
#define CP_B_EPISODE  3 /* u32: episodes begun, which keys the reset */
#define CP_B_ACC      4
#define CP_B_ACTIONS  5 /* u8: 0 pushes left, 1 pushes right */
#define CP_B_IO	      6
#define CP_B_PARTIALS 7
#define CP_B_SERIES   8
#define CP_B_CTL      9
#define CP_N_BUFS     10

#endif /* CARTPOLE_SHARED_H */
