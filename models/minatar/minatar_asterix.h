/*
 * models/minatar/minatar_asterix.h - MinAtar's Asterix in the kernel
 * dialect, on one environment's row of the state buffer: its first state,
 * one step and its observation. Included by minatar_shared.h (kernels and
 * host). Integers only.
 *
 * The rules are MinAtar's (kenjyoung/MinAtar,
 * minatar/environments/asterix.py, Env.act and _spawn_entity), statement
 * for statement; gymnax's MinAsterix computes the same rules (its
 * differences: models/minatar/minatar.md).
 */
#ifndef MINATAR_ASTERIX_H
#define MINATAR_ASTERIX_H

/* Channels: player, enemy, trail, gold (MinAtar's channels dict order).
 * Actions: Discrete(5), the minimal set: 0 no-op, 1 left, 2 up, 3 right,
 * 4 down (MinAtar's full-set indices 0 to 4, 'n' 'l' 'u' 'r' 'd'). */
#define MA_AX_CHANNELS	4u
#define MA_AX_CH_PLAYER 0u
#define MA_AX_CH_ENEMY	1u
#define MA_AX_CH_TRAIL	2u
#define MA_AX_CH_GOLD	3u
#define MA_AX_ACTIONS	5u

/* State bytes (gymnax's EnvState fields, MinAtar's attributes). */
#define MA_AX_PLAYER_X	  0u
#define MA_AX_PLAYER_Y	  1u
#define MA_AX_SHOT_TIMER  2u /* always 0 (MinAtar keeps it unused) */
#define MA_AX_SPAWN_SPEED 3u
#define MA_AX_SPAWN_TIMER 4u
#define MA_AX_MOVE_SPEED  5u
#define MA_AX_MOVE_TIMER  6u
#define MA_AX_RAMP_TIMER  7u /* signed: it reaches -1 before a ramp */
#define MA_AX_RAMP_INDEX  9u
#define MA_AX_TERMINAL	  10u
/* This step's spawn, as drawn (weft's own record of its draws, for
 * comparisons that replay them; not in MinAtar or gymnax): the slot + 1
 * (0: no spawn, or none free), and lr | gold << 1. */
#define MA_AX_SPAWN_SLOT 11u
#define MA_AX_SPAWN_KIND 12u
/* Entity j (0..7, on row j + 1) at 16 + 4 j: x, lr (1: moving right,
 * spawned in column 0), gold, filled; an empty slot is four zeros. */
#define MA_AX_ENTITIES 16u
#define MA_AX_E_X      0u
#define MA_AX_E_LR     1u
#define MA_AX_E_GOLD   2u
#define MA_AX_E_FILLED 3u

#define MA_AX_RAMP_INTERVAL 100
#define MA_AX_INIT_SPAWN    10u
#define MA_AX_INIT_MOVE	    5u

/* The draws of a spawn (k of the step). */
#define MA_AX_DRAW_LR	2u /* word 0 < 2^31: from the left, moving right */
#define MA_AX_DRAW_GOLD 3u /* word 0 < floor(2^32 / 3): gold */
#define MA_AX_DRAW_SLOT 4u /* word 0: which free slot, uniformly */

/* The first state: the player at (5, 5), no entities, the timers at
 * their initial values. */
WEFT_FN void ma_ax_reset(WEFT_GLOBAL weft_u8 *s)
{
	weft_u32 k;

	for (k = 0u; k < MA_STATE_BYTES; k++)
		s[k] = 0u;
	s[MA_AX_PLAYER_X] = 5u;
	s[MA_AX_PLAYER_Y] = 5u;
	s[MA_AX_SPAWN_SPEED] = (weft_u8)MA_AX_INIT_SPAWN;
	s[MA_AX_SPAWN_TIMER] = (weft_u8)MA_AX_INIT_SPAWN;
	s[MA_AX_MOVE_SPEED] = (weft_u8)MA_AX_INIT_MOVE;
	s[MA_AX_MOVE_TIMER] = (weft_u8)MA_AX_INIT_MOVE;
	s[MA_AX_RAMP_TIMER] = (weft_u8)MA_AX_RAMP_INTERVAL;
}

/* MinAtar's _spawn_entity: an enemy or (1/3) gold from the left (1/2)
 * or the right, in a free slot chosen uniformly; nothing when all eight
 * are taken. */
WEFT_FN void ma_ax_spawn(WEFT_GLOBAL weft_u8 *s, ma_draws d)
{
	weft_u32 lr = ma_draw(d, MA_AX_DRAW_LR).v[0] < 0x80000000u;
	weft_u32 gold = ma_draw(d, MA_AX_DRAW_GOLD).v[0] < 0x55555555u;
	weft_u32 nfree = 0u, j, pick;
	WEFT_GLOBAL weft_u8 *e;

	for (j = 0u; j < 8u; j++)
		nfree += !s[MA_AX_ENTITIES + 4u * j + MA_AX_E_FILLED];
	s[MA_AX_SPAWN_KIND] = (weft_u8)(lr | gold << 1);
	if (!nfree)
		return;
	pick = WEFT_MULHI32(ma_draw(d, MA_AX_DRAW_SLOT).v[0], nfree);
	for (j = 0u; j < 8u; j++) {
		if (s[MA_AX_ENTITIES + 4u * j + MA_AX_E_FILLED])
			continue;
		if (pick-- == 0u)
			break;
	}
	e = s + MA_AX_ENTITIES + 4u * j;
	e[MA_AX_E_X] = (weft_u8)(lr ? 0u : 9u);
	e[MA_AX_E_LR] = (weft_u8)lr;
	e[MA_AX_E_GOLD] = (weft_u8)gold;
	e[MA_AX_E_FILLED] = 1u;
	s[MA_AX_SPAWN_SLOT] = (weft_u8)(j + 1u);
}

/* Entity j meets the player at (px, py): gold is taken (returns 1, the
 * slot emptied), an enemy ends the episode. */
WEFT_FN weft_u32 ma_ax_meet(WEFT_GLOBAL weft_u8 *s, weft_u32 j, weft_i32 x,
			    weft_i32 px, weft_i32 py)
{
	WEFT_GLOBAL weft_u8 *e = s + MA_AX_ENTITIES + 4u * j;
	weft_u32 k;

	if (x != px || (weft_i32)j + 1 != py)
		return 0u;
	if (!e[MA_AX_E_GOLD]) {
		s[MA_AX_TERMINAL] = 1u;
		return 0u;
	}
	for (k = 0u; k < 4u; k++)
		e[k] = 0u;
	return 1u;
}

/* Every entity one column on, those leaving the grid removed: the gold
 * that moved onto the player. */
WEFT_FN weft_u32 ma_ax_move(WEFT_GLOBAL weft_u8 *s, weft_i32 px, weft_i32 py)
{
	weft_u32 r = 0u, j, k;

	for (j = 0u; j < 8u; j++) {
		WEFT_GLOBAL weft_u8 *e = s + MA_AX_ENTITIES + 4u * j;
		weft_i32 x = e[MA_AX_E_X];

		if (!e[MA_AX_E_FILLED])
			continue;
		x += e[MA_AX_E_LR] ? 1 : -1;
		if (x < 0 || x > 9) {
			for (k = 0u; k < 4u; k++)
				e[k] = 0u;
			continue;
		}
		e[MA_AX_E_X] = (weft_u8)x;
		r += ma_ax_meet(s, j, x, px, py);
	}
	return r;
}

/* MinAtar's difficulty ramp, at the end of every step. */
WEFT_FN void ma_ax_ramp(WEFT_GLOBAL weft_u8 *s)
{
	weft_i32 timer = ma_sbyte(s[MA_AX_RAMP_TIMER]);

	if (s[MA_AX_SPAWN_SPEED] <= 1u && s[MA_AX_MOVE_SPEED] <= 1u)
		return;
	if (timer >= 0) {
		s[MA_AX_RAMP_TIMER] = (weft_u8)(timer - 1);
		return;
	}
	if (s[MA_AX_MOVE_SPEED] > 1u && (s[MA_AX_RAMP_INDEX] & 1u))
		s[MA_AX_MOVE_SPEED]--;
	if (s[MA_AX_SPAWN_SPEED] > 1u)
		s[MA_AX_SPAWN_SPEED]--;
	s[MA_AX_RAMP_INDEX]++;
	s[MA_AX_RAMP_TIMER] = (weft_u8)MA_AX_RAMP_INTERVAL;
}

/* One step with action a of the minimal set: the reward (gold taken). A
 * terminal state stays as it is, with reward 0. */
WEFT_FN weft_u32 ma_ax_step(WEFT_GLOBAL weft_u8 *s, weft_u32 a, ma_draws d,
			    weft_u32 ramping)
{
	weft_i32 px = s[MA_AX_PLAYER_X], py = s[MA_AX_PLAYER_Y];
	weft_u32 r = 0u, j;

	if (s[MA_AX_TERMINAL])
		return 0u;
	s[MA_AX_SPAWN_SLOT] = 0u;
	s[MA_AX_SPAWN_KIND] = 0u;
	if (s[MA_AX_SPAWN_TIMER] == 0u) {
		ma_ax_spawn(s, d);
		s[MA_AX_SPAWN_TIMER] = s[MA_AX_SPAWN_SPEED];
	}
	if (a == 1u)
		px = px > 0 ? px - 1 : 0;
	else if (a == 3u)
		px = px < 9 ? px + 1 : 9;
	else if (a == 2u)
		py = py > 1 ? py - 1 : 1;
	else if (a == 4u)
		py = py < 8 ? py + 1 : 8;
	s[MA_AX_PLAYER_X] = (weft_u8)px;
	s[MA_AX_PLAYER_Y] = (weft_u8)py;
	for (j = 0u; j < 8u; j++)
		if (s[MA_AX_ENTITIES + 4u * j + MA_AX_E_FILLED])
			r += ma_ax_meet(s, j, s[MA_AX_ENTITIES + 4u * j], px,
					py);
	if (s[MA_AX_MOVE_TIMER] == 0u) {
		s[MA_AX_MOVE_TIMER] = s[MA_AX_MOVE_SPEED];
		r += ma_ax_move(s, px, py);
	}
	s[MA_AX_SPAWN_TIMER]--;
	s[MA_AX_MOVE_TIMER]--;
	if (ramping)
		ma_ax_ramp(s);
	return r;
}

/* The observation [10][10][4] of state s into o (every byte written). */
WEFT_FN void ma_ax_obs(WEFT_GLOBAL const weft_u8 *s, WEFT_GLOBAL weft_u8 *o)
{
	weft_u32 j;

	ma_obs_clear(o, MA_AX_CHANNELS);
	o[4u * (10u * s[MA_AX_PLAYER_Y] + s[MA_AX_PLAYER_X]) +
	  MA_AX_CH_PLAYER] = 1u;
	for (j = 0u; j < 8u; j++) {
		WEFT_GLOBAL const weft_u8 *e = s + MA_AX_ENTITIES + 4u * j;
		weft_i32 x = e[MA_AX_E_X], back = e[MA_AX_E_LR] ? x - 1 : x + 1;
		weft_u32 row = 10u * (j + 1u);

		if (!e[MA_AX_E_FILLED])
			continue;
		o[4u * (row + (weft_u32)x) +
		  (e[MA_AX_E_GOLD] ? MA_AX_CH_GOLD : MA_AX_CH_ENEMY)] = 1u;
		if (back >= 0 && back <= 9)
			o[4u * (row + (weft_u32)back) + MA_AX_CH_TRAIL] = 1u;
	}
}

#endif /* MINATAR_ASTERIX_H */
