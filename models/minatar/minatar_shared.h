/*
 * models/minatar/minatar_shared.h - what the MinAtar kernels (minatar.wk)
 * and the model's host code (minatar.c) share, in the kernel dialect: the
 * games, the parameter block, the layouts of the per-environment state and
 * of the packed result buffer `io`. Part of the program text handed to
 * run-time compilers (before minatar.wk), and included by the host file.
 *
 * Arithmetic: integers only (grid coordinates, counts, byte flags), and
 * random decisions are integer comparisons of Philox draws: every backend
 * and thread count gives the same bytes by construction.
 */
#ifndef MINATAR_SHARED_H
#define MINATAR_SHARED_H

#include <weft/env.wk>

/* The games (key `game`); each adds its kernels' branch in minatar.wk,
 * its state layout below and its id in minatar.c. */
#define MA_GAME_BREAKOUT       0u
#define MA_GAME_ASTERIX	       1u
#define MA_GAME_FREEWAY	       2u
#define MA_GAME_SPACE_INVADERS 3u
#define MA_GAME_SEAQUEST       4u

/* The grid: 10 x 10 cells, observations [10][10][channels] of u8 0/1 in
 * C order (row y, column x, channel c), as MinAtar's state() and gymnax's
 * get_obs() give them. */
#define MA_GRID	    10u
#define MA_MAX_CHAN 10u /* the most channels a game has (Seaquest) */

/* Every game: byte 8 of its state is the action it applied last (sticky
 * actions; 0 when an episode begins). */
#define MA_LAST_ACTION 8u

/* ---- Breakout ------------------------------------------------------------
 * Channels: paddle, ball, trail, brick (MinAtar's channels dict order).
 * Actions: Discrete(3), the minimal action set: 0 no-op, 1 left, 2 right
 * (MinAtar's full-set indices 0 'n', 1 'l', 3 'r'). */
#define MA_BO_CHANNELS	4u
#define MA_BO_CH_PADDLE 0u
#define MA_BO_CH_BALL	1u
#define MA_BO_CH_TRAIL	2u
#define MA_BO_CH_BRICK	3u
#define MA_BO_ACTIONS	3u
#define MA_BO_ACT_NOOP	0u
#define MA_BO_ACT_LEFT	1u
#define MA_BO_ACT_RIGHT 2u

/* Breakout's state: bytes of environment i's row of `state` (u8
 * [n][MA_BO_STATE_BYTES], the protocol's optional view `state`). The
 * names are gymnax's EnvState fields (MinAtar's attributes); time is the
 * bookkeeping's steps into the episode (env_book word WEFT_ENV_T). */
#define MA_BO_BALL_X 0u
#define MA_BO_BALL_Y 1u
#define MA_BO_BALL_DIR                                         \
	2u /* 0 up-left, 1 up-right, 2 down-right, 3 down-left \
	    */
#define MA_BO_POS	  3u /* the paddle's column (row 9) */
#define MA_BO_STRIKE	  4u /* a brick was hit in the previous step */
#define MA_BO_LAST_X	  5u /* the ball's previous cell: the trail */
#define MA_BO_LAST_Y	  6u
#define MA_BO_TERMINAL	  7u /* the ball passed the paddle */
#define MA_BO_LAST_ACTION MA_LAST_ACTION
#define MA_BO_BRICKS	  16u /* brick_map[y][x] at 16 + 10 y + x */
/* Bricks are on rows 1 to 3 only, rows 0 and 4 to 9 never hold one: an
 * episode's first state and a refill put them on rows 1 to 3, and a step
 * only takes them away (MinAtar's brick_map[1:4, :] = 1). A program that
 * writes the `state` view must keep it so: the observation and the
 * refill read bytes 24 to 55 of the map's (cells 8 to 39), act's plan
 * bytes 16 to 55 (rows 0 to 3), all in the row's first 64 bytes
 * (minatar_breakout.h, minatar.wk). */
#define MA_BO_STATE_BYTES 128u

/* The most state bytes a game has: the stride of `state`. */
#define MA_STATE_BYTES 128u

/* Purposes of the draws within a step (k of weft_env_rand, < 16): one k
 * per random decision, so that no two decisions share a draw. */
#define MA_DRAW_START  0u  /* step 0: the first state (Breakout: the side) */
#define MA_DRAW_STICKY 1u  /* step t: keep the last action? */
#define MA_DRAW_GAME   2u  /* step t: the game's own decisions, k = 2 to 14 */
#define MA_DRAW_POLICY 15u /* step t: the random policy of `weft run` */

#define MA_POLICY_RANDOM 0u

/* The parameter block (buffer p of every kernel): 32-bit words only. */
typedef struct minatar_params {
	weft_u32 n_envs;
	weft_u32 seed_lo;
	weft_u32 seed_hi;
	weft_u32 game;	    /* MA_GAME_* */
	weft_u32 autoreset; /* WEFT_ENV_AUTORESET_* */
	weft_u32 max_steps; /* truncation: after this many steps (0: none) */
	weft_u32 sticky;    /* P(repeat the last action) as floor(p 2^32),
			     * saturated; 0: never */
	weft_u32 policy;    /* MA_POLICY_* (weft run) */
	weft_u32 n_actions; /* the game's minimal action set */
	weft_u32 channels;  /* the game's observation channels */
	weft_u32 obs_bytes; /* 100 * channels */
	weft_u32 ramping;   /* MinAtar's difficulty ramping (Asterix, Space
			     * Invaders): 1 on, 0 off */
} minatar_params;

/* The packed result buffer (io) for n environments whose observation has
 * B = obs_bytes bytes (B a multiple of 4), in bytes:
 *   0           u8  obs[n][B]        after the step (after the automatic
 *                                    reset where the episode ended, SAME_STEP)
 *   B n         f32 reward[n]
 *   (B+4) n     u8  terminated[n]
 *   (B+5) n     u8  truncated[n]
 *   F           u8  final_obs[n][B]  the last observation of the episode
 *                                    that ended in this step (SAME_STEP)
 * with F = (B + 6) n rounded up to a multiple of 4; F + B n bytes in
 * all. */
#define MA_IO_REWARD(n, B)     ((B) * (n))
#define MA_IO_TERMINATED(n, B) (((B) + 4u) * (n))
#define MA_IO_TRUNCATED(n, B)  (((B) + 5u) * (n))
#define MA_IO_FINAL(n, B)      ((((B) + 6u) * (n) + 3u) & ~3u)
#define MA_IO_BYTES(n, B)      (MA_IO_FINAL(n, B) + (B) * (n))

/* Where a game's step draws: environment i of n's bookkeeping, step t
 * of the episode (0: its first state). Draw k of the step is
 * weft_env_rand(book, n, i, t, k). */
typedef struct ma_draws {
	WEFT_GLOBAL const weft_u32 *book;
	weft_u32 n, i, t;
} ma_draws;

WEFT_FN weft_rand4 ma_draw(ma_draws d, weft_u32 k)
{
	return weft_env_rand(d.book, d.n, d.i, d.t, k);
}

/* A signed byte of the state (two's complement). */
WEFT_FN weft_i32 ma_sbyte(weft_u32 b)
{
	return b >= 128u ? (weft_i32)b - 256 : (weft_i32)b;
}

/* 1 where the target stores 32-bit words little-endian (byte k of a word
 * at the lowest address but k): the host (GCC and Clang say), CUDA, and
 * OpenCL devices that define __ENDIAN_LITTLE__. Observations are then
 * written a cell (four channels) per word where a game's layout allows
 * (Breakout); the bytes are those of the per-byte code other targets
 * run. Defined beforehand, it is kept: a test build of the model sets 0
 * to run the per-byte code on the host (tests/models/minatar.am). */
#ifndef MA_LE32
#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#define MA_LE32 1
#elif defined(__OPENCL_VERSION__)
#if defined(__ENDIAN_LITTLE__)
#define MA_LE32 1
#else
#define MA_LE32 0
#endif
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MA_LE32 1
#else
#define MA_LE32 0
#endif
#endif /* MA_LE32 */
#if MA_LE32 != 0 && MA_LE32 != 1
#error "MA_LE32 must be 0 or 1"
#endif

/* Every byte of a [10][10][channels] observation 0. */
WEFT_FN void ma_obs_clear(WEFT_GLOBAL weft_u8 *o, weft_u32 channels)
{
	weft_u32 k;

	for (k = 0u; k < 100u * channels; k++)
		o[k] = 0u;
}

#include "minatar_breakout.h"
#include "minatar_asterix.h"
#include "minatar_freeway.h"
#include "minatar_space_invaders.h"
#include "minatar_seaquest.h"

/* ---- every game: one branch per game -------------------------------- */

/* The game's first state, from the draws of step 0 (d.t = 0). */
WEFT_FN void ma_reset(WEFT_GLOBAL const minatar_params *p,
		      WEFT_GLOBAL weft_u8 *s, ma_draws d)
{
	if (p->game == MA_GAME_BREAKOUT)
		ma_bo_reset(s, ma_draw(d, MA_DRAW_START));
	else if (p->game == MA_GAME_ASTERIX)
		ma_ax_reset(s);
	else if (p->game == MA_GAME_FREEWAY)
		ma_fw_reset(s, d);
	else if (p->game == MA_GAME_SPACE_INVADERS)
		ma_si_reset(s);
	else if (p->game == MA_GAME_SEAQUEST)
		ma_sq_reset(s);
}

/* One step of the game with action a (already checked), its draws d
 * (d.t the step, from 1): the reward. */
WEFT_FN weft_u32 ma_step(WEFT_GLOBAL const minatar_params *p,
			 WEFT_GLOBAL weft_u8 *s, weft_u32 a, ma_draws d)
{
	if (p->game == MA_GAME_BREAKOUT)
		return ma_bo_step(s, a);
	if (p->game == MA_GAME_ASTERIX)
		return ma_ax_step(s, a, d, p->ramping);
	if (p->game == MA_GAME_FREEWAY)
		return ma_fw_step(s, a, d);
	if (p->game == MA_GAME_SPACE_INVADERS)
		return ma_si_step(s, a, p->ramping);
	if (p->game == MA_GAME_SEAQUEST)
		return ma_sq_step(s, a, d, p->ramping);
	return 0u;
}

WEFT_FN weft_u32 ma_terminal(WEFT_GLOBAL const minatar_params *p,
			     WEFT_GLOBAL const weft_u8 *s)
{
	if (p->game == MA_GAME_BREAKOUT)
		return s[MA_BO_TERMINAL];
	if (p->game == MA_GAME_ASTERIX)
		return s[MA_AX_TERMINAL];
	if (p->game == MA_GAME_FREEWAY)
		return s[MA_FW_TERMINAL];
	if (p->game == MA_GAME_SPACE_INVADERS)
		return s[MA_SI_TERMINAL];
	if (p->game == MA_GAME_SEAQUEST)
		return s[MA_SQ_TERMINAL];
	return 0u;
}

WEFT_FN void ma_obs(WEFT_GLOBAL const minatar_params *p,
		    WEFT_GLOBAL const weft_u8 *s, WEFT_GLOBAL weft_u8 *o)
{
	if (p->game == MA_GAME_BREAKOUT)
		ma_bo_obs(s, o);
	else if (p->game == MA_GAME_ASTERIX)
		ma_ax_obs(s, o);
	else if (p->game == MA_GAME_FREEWAY)
		ma_fw_obs(s, o);
	else if (p->game == MA_GAME_SPACE_INVADERS)
		ma_si_obs(s, o);
	else if (p->game == MA_GAME_SEAQUEST)
		ma_sq_obs(s, o);
}

#endif /* MINATAR_SHARED_H */
