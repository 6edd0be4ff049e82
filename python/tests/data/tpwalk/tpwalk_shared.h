/*
 * tpwalk_shared.h - what the kernels (tpwalk.wk) and the host code
 * (tpwalk.c) of the test's third-party environment model share, in the
 * kernel dialect: the parameter block, the layout of the packed result
 * buffer and how an episode begins. Included after <weft/kernel.h> (or
 * <weft/kernel_host.h>) and <weft/env.wk>.
 *
 * The environment: a walker on the integers, starting at -1, 0 or 1
 * (drawn), moved by its action (-1, 0 or +1: Discrete(3, start=-1));
 * the episode terminates at +goal (reward 1) or -goal (reward -1), every
 * other step costs 0.125, and it is truncated after max_episode_steps.
 * Its observation is (position, mark), f32, with mark a number in [0, 1)
 * drawn when the episode begins and kept through it, so that episodes
 * of different seeds differ.
 */
#ifndef TPWALK_SHARED_H
#define TPWALK_SHARED_H

/* The parameter block: 32-bit words, the same layout on every target. */
typedef struct tpwalk_params {
	weft_u32 n_envs;
	weft_u32 seed_lo, seed_hi;
	weft_u32 goal;	    /* |position| at which an episode terminates */
	weft_u32 max_steps; /* truncation */
	weft_u32 autoreset; /* WEFT_ENV_AUTORESET_* */
	weft_u32 reserved[2];
} tpwalk_params;

#define TW_OBS 2 /* position, mark */

/* The packed result buffer (io) for n environments, in bytes:
 *   0     f32 obs[n][2]
 *   8n    f32 reward[n]
 *   12n   u8  terminated[n]
 *   13n   u8  truncated[n]
 *   F     f32 final_obs[n][2]   F = 14n rounded up to a multiple of 4
 *   F+8n  u32 steps[n]          the info field "steps": the steps into
 *                               the episode after the step (where
 *                               SAME_STEP began a new one: the ended
 *                               episode's), 0 where one begins */
#define TW_IO_REWARD(n)	    (8u * (n))
#define TW_IO_TERMINATED(n) (12u * (n))
#define TW_IO_TRUNCATED(n)  (13u * (n))
#define TW_IO_FINAL(n)	    ((14u * (n) + 3u) & ~3u)
#define TW_IO_STEPS(n)	    (TW_IO_FINAL(n) + 8u * (n))
#define TW_IO_BYTES(n)	    (TW_IO_STEPS(n) + 4u * (n))

/* The state buffer: u32 [2][n], the position (i32 bits) then the mark
 * (f32 bits) of each environment. */

/* Environment i begins an episode (the bookkeeping already moved to
 * it): its first position and its mark, drawn. */
WEFT_FN void tw_begin(WEFT_GLOBAL const weft_u32 *ep, weft_u32 n, weft_u32 i,
		      WEFT_GLOBAL weft_u32 *state)
{
	weft_rand4 r = weft_env_rand(ep, n, i, 0u, 0u);
	weft_i32 pos = (weft_i32)(r.v[0] % 3u) - 1;

	state[i] = (weft_u32)pos;
	state[n + i] =
		weft_f32_as_u32((weft_f32)(r.v[1] >> 8) * (1.0f / 16777216.0f));
}

/* Environment i's observation into obs[0..2). */
WEFT_FN void tw_obs(WEFT_GLOBAL const weft_u32 *state, weft_u32 n, weft_u32 i,
		    WEFT_GLOBAL weft_f32 *obs)
{
	obs[0] = (weft_f32)(weft_i32)state[i];
	obs[1] = weft_u32_as_f32(state[n + i]);
}

#endif /* TPWALK_SHARED_H */
