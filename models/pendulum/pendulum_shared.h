/*
 * models/pendulum/pendulum_shared.h - what the Pendulum kernels
 * (pendulum.wk) and the model's host code (pendulum.c) share, in the
 * kernel dialect: Gymnasium's constants, the parameter block and the
 * layout of the packed result buffer.
 */
#ifndef PENDULUM_SHARED_H
#define PENDULUM_SHARED_H

/* Pendulum-v1 (gymnasium/envs/classic_control/pendulum.py). */
#define PD_MAX_SPEED  8.0  /* max_speed (the int 8 in Gymnasium) */
#define PD_MAX_TORQUE 2.0  /* max_torque */
#define PD_DT	      0.05 /* dt */
#define PD_OBS	      3	   /* cos(th), sin(th), thdot */
#define PD_STATE      2	   /* th, thdot: env.unwrapped.state */

#define PD_PRECISION_F32 0u
#define PD_PRECISION_F64 1u

#define PD_POLICY_RANDOM 0u
#define PD_POLICY_ZERO	 1u

/* The parameter block: 32-bit words only, the same layout on every
 * target. */
typedef struct pendulum_params {
	weft_u32 n_envs;
	weft_u32 seed_lo, seed_hi;
	weft_u32 max_steps;  /* truncation: an episode ends after this many */
	weft_u32 autoreset;  /* WEFT_ENV_AUTORESET_* of the act list */
	weft_u32 precision;  /* PD_PRECISION_* */
	weft_u32 policy;     /* PD_POLICY_*, for pendulum_policy */
	weft_u32 k_lo, k_hi; /* 3 * g / (2 * l) as binary64 bits */
	weft_u32 k_f32;	     /* and in float32: (3 * g) / 2 */
	weft_u32 reserved[2];
} pendulum_params;

/* The packed result buffer (io) for n environments, in bytes:
 *   0     f32 obs[n][3]        cos(th), sin(th), thdot
 *   12n   f32 reward[n]
 *   16n   u8  terminated[n]    (always 0: Pendulum never terminates)
 *   17n   u8  truncated[n]
 *   P     f32 final_obs[n][3]  the last observation of the episode that
 *                              ended in this step (where the flags say so)
 * with P = 18n rounded up to a multiple of 4; P + 12n bytes in all. */
#define PD_IO_REWARD(n)	    (12u * (n))
#define PD_IO_TERMINATED(n) (16u * (n))
#define PD_IO_TRUNCATED(n)  (17u * (n))
#define PD_IO_FINAL(n)	    ((18u * (n) + 3u) & ~3u)
#define PD_IO_BYTES(n)	    (PD_IO_FINAL(n) + 12u * (n))

#endif /* PENDULUM_SHARED_H */
