/*
 * models/minatar/minatar_freeway.h - MinAtar's Freeway in the kernel
 * dialect, on one environment's row of the state buffer: its first state,
 * one step and its observation. Included by minatar_shared.h (kernels and
 * host). Integers only.
 *
 * The rules are MinAtar's (kenjyoung/MinAtar,
 * minatar/environments/freeway.py, Env.act and _randomize_cars),
 * statement for statement; gymnax's MinFreeway computes the same rules.
 */
#ifndef MINATAR_FREEWAY_H
#define MINATAR_FREEWAY_H

/* Channels: chicken, car, speed1 to speed5 (the trail of a car of that
 * speed). Actions: Discrete(3), the minimal set: 0 no-op, 1 up, 2 down
 * (MinAtar's full-set indices 0 'n', 2 'u', 4 'd'). */
#define MA_FW_CHANNELS	 7u
#define MA_FW_CH_CHICKEN 0u
#define MA_FW_CH_CAR	 1u
#define MA_FW_CH_SPEED1	 2u
#define MA_FW_ACTIONS	 3u

/* State bytes (gymnax's EnvState fields, MinAtar's attributes). */
#define MA_FW_POS	 0u /* the chicken's row (column 4) */
#define MA_FW_MOVE_TIMER 1u
#define MA_FW_TERM_TIMER                           \
	2u /* u16 little-endian, signed: MinAtar's \
	    * terminate_timer, 2500 down to -1 */
#define MA_FW_TERMINAL 4u
/* Car j (0..7, on row j + 1) at 16 + 4 j: x, row, timer (steps until it
 * moves), speed (signed: its sign the direction, 1 to 5 steps a move). */
#define MA_FW_CARS	   16u
#define MA_FW_C_X	   0u
#define MA_FW_C_Y	   1u
#define MA_FW_C_TIMER	   2u
#define MA_FW_C_SPEED	   3u
#define MA_FW_PLAYER_SPEED 3u
#define MA_FW_TIME_LIMIT   2500

/* The draws of a randomization (k of the step: the first state's at step
 * 0, a crossing's at its step): one word per car. */
#define MA_FW_DRAW_SPEED_LO 2u /* cars 0-3: speed 1 + floor(5 w / 2^32) */
#define MA_FW_DRAW_SPEED_HI 3u /* cars 4-7 */
#define MA_FW_DRAW_DIR_LO   4u /* cars 0-3: top bit 1: +1 (right), 0: -1 */
#define MA_FW_DRAW_DIR_HI   5u /* cars 4-7 */

/* MinAtar's _randomize_cars: new speeds and directions; positions back
 * to column 0 when init. */
WEFT_FN void ma_fw_randomize(WEFT_GLOBAL weft_u8 *s, ma_draws d, weft_u32 init)
{
	weft_rand4 sp[2], dir[2];
	weft_u32 j;

	sp[0] = ma_draw(d, MA_FW_DRAW_SPEED_LO);
	sp[1] = ma_draw(d, MA_FW_DRAW_SPEED_HI);
	dir[0] = ma_draw(d, MA_FW_DRAW_DIR_LO);
	dir[1] = ma_draw(d, MA_FW_DRAW_DIR_HI);
	for (j = 0u; j < 8u; j++) {
		WEFT_GLOBAL weft_u8 *c = s + MA_FW_CARS + 4u * j;
		weft_i32 speed =
			1 + (weft_i32)WEFT_MULHI32(sp[j >> 2].v[j & 3u], 5u);

		if (!(dir[j >> 2].v[j & 3u] >> 31))
			speed = -speed;
		if (init) {
			c[MA_FW_C_X] = 0u;
			c[MA_FW_C_Y] = (weft_u8)(j + 1u);
		}
		c[MA_FW_C_TIMER] = (weft_u8)(speed < 0 ? -speed : speed);
		c[MA_FW_C_SPEED] = (weft_u8)(speed & 255);
	}
}

/* The first state: cars in column 0 with random speeds and directions
 * (the draws of step 0), the chicken on row 9. */
WEFT_FN void ma_fw_reset(WEFT_GLOBAL weft_u8 *s, ma_draws d)
{
	weft_u32 k;

	for (k = 0u; k < MA_STATE_BYTES; k++)
		s[k] = 0u;
	ma_fw_randomize(s, d, 1u);
	s[MA_FW_POS] = 9u;
	s[MA_FW_MOVE_TIMER] = (weft_u8)MA_FW_PLAYER_SPEED;
	s[MA_FW_TERM_TIMER] = (weft_u8)(MA_FW_TIME_LIMIT & 255);
	s[MA_FW_TERM_TIMER + 1u] = (weft_u8)(MA_FW_TIME_LIMIT >> 8);
}

/* One step with action a of the minimal set: the reward (1 for a
 * crossing). A terminal state stays as it is, with reward 0. */
WEFT_FN weft_u32 ma_fw_step(WEFT_GLOBAL weft_u8 *s, weft_u32 a, ma_draws d)
{
	weft_i32 pos = s[MA_FW_POS], mt = s[MA_FW_MOVE_TIMER], tt;
	weft_u32 r = 0u, j;

	if (s[MA_FW_TERMINAL])
		return 0u;
	if (a == 1u && mt == 0) {
		mt = MA_FW_PLAYER_SPEED;
		pos = pos > 0 ? pos - 1 : 0;
	} else if (a == 2u && mt == 0) {
		mt = MA_FW_PLAYER_SPEED;
		pos = pos < 9 ? pos + 1 : 9;
	}
	if (pos == 0) {
		r = 1u;
		ma_fw_randomize(s, d, 0u);
		pos = 9;
	}
	for (j = 0u; j < 8u; j++) {
		WEFT_GLOBAL weft_u8 *c = s + MA_FW_CARS + 4u * j;
		weft_i32 x = c[MA_FW_C_X], y = (weft_i32)j + 1;
		weft_i32 speed = ma_sbyte(c[MA_FW_C_SPEED]);

		if (x == 4 && y == pos)
			pos = 9;
		if (c[MA_FW_C_TIMER] == 0u) {
			c[MA_FW_C_TIMER] =
				(weft_u8)(speed < 0 ? -speed : speed);
			x += speed > 0 ? 1 : -1;
			x = x < 0 ? 9 : x > 9 ? 0 : x;
			c[MA_FW_C_X] = (weft_u8)x;
			if (x == 4 && y == pos)
				pos = 9;
		} else {
			c[MA_FW_C_TIMER]--;
		}
	}
	s[MA_FW_POS] = (weft_u8)pos;
	s[MA_FW_MOVE_TIMER] = (weft_u8)(mt > 0 ? mt - 1 : 0);
	tt = (weft_i32)(s[MA_FW_TERM_TIMER] |
			((weft_u32)s[MA_FW_TERM_TIMER + 1u] << 8)) -
	     1;
	if (tt < 0) {
		s[MA_FW_TERMINAL] = 1u;
		tt = 65535; /* -1 */
	}
	s[MA_FW_TERM_TIMER] = (weft_u8)(tt & 255);
	s[MA_FW_TERM_TIMER + 1u] = (weft_u8)(tt >> 8);
	return r;
}

/* The observation [10][10][7] of state s into o (every byte written). */
WEFT_FN void ma_fw_obs(WEFT_GLOBAL const weft_u8 *s, WEFT_GLOBAL weft_u8 *o)
{
	weft_u32 j;

	ma_obs_clear(o, MA_FW_CHANNELS);
	o[7u * (10u * s[MA_FW_POS] + 4u) + MA_FW_CH_CHICKEN] = 1u;
	for (j = 0u; j < 8u; j++) {
		WEFT_GLOBAL const weft_u8 *c = s + MA_FW_CARS + 4u * j;
		weft_i32 x = c[MA_FW_C_X], speed = ma_sbyte(c[MA_FW_C_SPEED]);
		weft_i32 back = speed > 0 ? x - 1 : x + 1;
		weft_u32 row = 10u * c[MA_FW_C_Y];

		back = back < 0 ? 9 : back > 9 ? 0 : back;
		o[7u * (row + (weft_u32)x) + MA_FW_CH_CAR] = 1u;
		o[7u * (row + (weft_u32)back) + MA_FW_CH_SPEED1 +
		  (weft_u32)(speed < 0 ? -speed : speed) - 1u] = 1u;
	}
}

#endif /* MINATAR_FREEWAY_H */
