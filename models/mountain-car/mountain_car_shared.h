/*
 * models/mountain-car/mountain_car_shared.h - what the mountain-car
 * kernels and the model's host code share, in the kernel dialect: the
 * parameter block, the layout of the packed result buffer, Gymnasium's
 * constants and the state an episode starts from. Part of the program
 * text (after weft/env.wk and weft/math.h, see mountain_car.wk) and
 * included by mountain_car.c, which computes the initial states with the
 * kernels' own function.
 *
 * Floating point: binary64 (weft_f64, hardware doubles: the program
 * needs WEFT_CAP_F64, as weft/math.h does) or binary32, + - * and
 * comparisons in Gymnasium's order, one rounding each (the framework never
 * contracts a * b + c), the correctly rounded cosine weft_cos_cr
 * (weft/math.h) in f64 and, in f32, weft_sincosf_simd's below 4096 in
 * magnitude, weft_cosf's beyond (mc_cos32): the same bits on every
 * backend and thread count.
 */
#ifndef MOUNTAIN_CAR_SHARED_H
#define MOUNTAIN_CAR_SHARED_H

#define MC_PRECISION_F32 0u
#define MC_PRECISION_F64 1u

#define MC_POLICY_RANDOM 0u /* uniform actions, weft_env_rand(.., t, 15) */
#define MC_POLICY_ENERGY 1u /* push the way the car moves */

/* The parameter block (buffer p of every kernel): 32-bit words only. */
typedef struct mountain_car_params {
	weft_u32 n_envs;
	weft_u32 seed_lo, seed_hi; /* [simulation] seed */
	weft_u32 max_steps;	   /* truncation (max_episode_steps) */
	weft_u32 autoreset;	   /* WEFT_ENV_AUTORESET_* for act */
	weft_u32 precision;	   /* MC_PRECISION_* */
	weft_u32 continuous;	   /* 1: MountainCarContinuous-v0 */
	weft_u32 policy;	   /* MC_POLICY_*, for mountain_car_policy */
} mountain_car_params;

/* The packed result buffer (io) for n environments, in bytes:
 *   0        f32 obs[n][2]        position, velocity
 *   8n       f32 reward[n]
 *   12n      u8  terminated[n]
 *   13n      u8  truncated[n]
 *   P        f32 final_obs[n][2]  the last observation of the episode
 *                                 that ended last
 * with P = 14n rounded up to a multiple of 4; P + 8n bytes in all. */
#define MC_IO_REWARD(n)	    (8u * (n))
#define MC_IO_TERMINATED(n) (12u * (n))
#define MC_IO_TRUNCATED(n)  (13u * (n))
#define MC_IO_FINAL(n)	    ((14u * (n) + 3u) & ~3u)
#define MC_IO_BYTES(n)	    (MC_IO_FINAL(n) + 8u * (n))

/* The f32 constants (Gymnasium's observation bounds are float32; the
 * continuous environment's float32 arithmetic casts its Python floats to
 * float32 first, as NumPy 2 does): bits, so that every compiler reads
 * the same value. */
#define MC_F32_POWER	 0x3ac49ba6u /* float32(0.0015) */
#define MC_F32_GRAVITY	 0x3b23d70au /* float32(0.0025) */
#define MC_F32_FORCE	 0x3a83126fu /* float32(0.001) */
#define MC_F32_MAX_SPEED 0x3d8f5c29u /* float32(0.07) */
#define MC_F32_MIN_POS	 0xbf99999au /* float32(-1.2) */
#define MC_F32_MAX_POS	 0x3f19999au /* float32(0.6) */
#define MC_F32_GOAL	 0x3f000000u /* float32(0.5), MountainCar-v0 */
#define MC_F32_GOAL_CONT 0x3ee66666u /* float32(0.45), continuous */
#define MC_F32_TENTH	 0x3dcccccdu /* float32(0.1) */

#define MC_F32(bits) weft_u32_as_f32(bits)

/* Reset: position = -0.6 + (-0.4 - -0.6) * u, u a 53-bit uniform draw in
 * [0, 1) (numpy's uniform: low + (high - low) * next_double), velocity
 * 0. The scale is the double Python computes for high - low. */
#define MC_RESET_LOW   (-0.6)
#define MC_RESET_SCALE (-0.4 - -0.6)

/* The first position of the current episode of environment i (its
 * bookkeeping ep, weft/env.wk): 53 bits of two draws, as a double in
 * [-0.6, -0.4). */
WEFT_FN weft_f64 mc_reset_position(WEFT_GLOBAL const weft_u32 *ep, weft_u32 n,
				   weft_u32 i)
{
	weft_rand4 r = weft_env_rand(ep, n, i, 0u, 0u);
	/* (hi:lo >> 11) = (hi >> 11) * 2^32 + ((hi & 2047) << 21 | lo >> 11) */
	weft_u32 top = r.v[0] >> 11;
	weft_u32 low = ((r.v[0] & 2047u) << 21) | (r.v[1] >> 11);
	weft_f64 u = ((weft_f64)top * 4294967296.0 + (weft_f64)low) *
		     1.1102230246251565e-16; /* 2^-53 */

	return MC_RESET_LOW + MC_RESET_SCALE * u;
}

#endif /* MOUNTAIN_CAR_SHARED_H */
