/*
 * models/minatar/minatar_seaquest.h - MinAtar's Seaquest in the kernel
 * dialect, on one environment's row of the state buffer: its first state,
 * one step and its observation. Included by minatar_shared.h (kernels and
 * host). Integers only.
 *
 * The rules are MinAtar's (kenjyoung/MinAtar,
 * minatar/environments/seaquest.py, Env.act, _surface, _spawn_enemy and
 * _spawn_diver), statement for statement, with its lists (bullets, fish,
 * subs, divers) kept in order in fixed-capacity arrays of the 128-byte
 * row, iterated last to first as MinAtar's reversed() loops do. A list
 * that is full drops what would be added to it (counted in
 * MA_SQ_OVERFLOW); gymnax's MinSeaquest holds 100 of each.
 */
#ifndef MINATAR_SEAQUEST_H
#define MINATAR_SEAQUEST_H

/* Channels: sub_front, sub_back, friendly_bullet, trail, enemy_bullet,
 * enemy_fish, enemy_sub, oxygen_guage, diver_guage, diver. Actions:
 * Discrete(6), MinAtar's minimal set = its full set: 0 no-op, 1 left,
 * 2 up, 3 right, 4 down, 5 fire. */
#define MA_SQ_CHANNELS 10u
#define MA_SQ_ACTIONS  6u

/* State bytes (gymnax's EnvState fields, MinAtar's attributes). */
#define MA_SQ_OXYGEN	    0u /* i16 little-endian (reaches -1) */
#define MA_SQ_SUB_X	    2u
#define MA_SQ_SUB_Y	    3u
#define MA_SQ_SUB_OR	    4u /* 1: facing right */
#define MA_SQ_DIVER_COUNT   5u /* signed: MinAtar's count reaches -1 */
#define MA_SQ_E_SPAWN_SPEED 6u
#define MA_SQ_E_SPAWN_TIMER 7u
#define MA_SQ_D_SPAWN_TIMER 9u
#define MA_SQ_MOVE_SPEED    10u
#define MA_SQ_RAMP_INDEX    11u
#define MA_SQ_SHOT_TIMER    12u
#define MA_SQ_SURFACE	    13u
#define MA_SQ_TERMINAL	    14u
#define MA_SQ_OVERFLOW	    20u /* entities dropped, full lists (saturates) */
/* This step's draws as used (weft's record, for comparisons that replay
 * them; 0 when none): enemy 0x80 | lr | is_sub << 1 | y << 2, diver
 * 0x80 | lr | y << 1; and the subs shot dead that fired as they died. */
#define MA_SQ_ENEMY_DRAW 21u
#define MA_SQ_DIVER_DRAW 22u
#define MA_SQ_DEAD_FIRED 23u
/* The lists: count byte, first byte, capacity. Entity j of a list is two
 * bytes at FIRST + 2 j: x | y << 4, then dir | timer << 1 | shot << 4
 * (dir 1: moving right; timer the steps until it moves; shot the steps
 * until an enemy sub fires). */
#define MA_SQ_FB_COUNT	 15u /* friendly bullets */
#define MA_SQ_FB	 24u
#define MA_SQ_FB_CAP	 4u
#define MA_SQ_EB_COUNT	 16u /* enemy bullets */
#define MA_SQ_EB	 32u
#define MA_SQ_EB_CAP	 12u
#define MA_SQ_FISH_COUNT 17u
#define MA_SQ_FISH	 56u
#define MA_SQ_FISH_CAP	 14u
#define MA_SQ_SUBS_COUNT 18u
#define MA_SQ_SUBS	 84u
#define MA_SQ_SUBS_CAP	 10u
#define MA_SQ_DIV_COUNT	 19u
#define MA_SQ_DIV	 104u
#define MA_SQ_DIV_CAP	 12u

#define MA_SQ_MAX_OXYGEN	  200
#define MA_SQ_INIT_SPAWN	  20u
#define MA_SQ_DIVER_SPAWN	  30u
#define MA_SQ_INIT_MOVE		  5u
#define MA_SQ_SHOT_COOL_DOWN	  5u
#define MA_SQ_ENEMY_SHOT_INTERVAL 10u
#define MA_SQ_DIVER_MOVE	  5u

/* The draws of a step (k). */
#define MA_SQ_DRAW_ENEMY_LR  2u /* word 0 < 2^31: from the left */
#define MA_SQ_DRAW_ENEMY_SUB 3u /* word 0 < floor(2^32 / 3): a sub */
#define MA_SQ_DRAW_ENEMY_Y   4u /* row 1 + floor(8 w / 2^32) */
#define MA_SQ_DRAW_DIVER_LR  5u
#define MA_SQ_DRAW_DIVER_Y   6u

/* Fields of entity j of the list at first. */
WEFT_FN weft_i32 ma_sq_x(WEFT_GLOBAL const weft_u8 *s, weft_u32 first,
			 weft_i32 j)
{
	return s[first + 2u * (weft_u32)j] & 15;
}

WEFT_FN weft_i32 ma_sq_y(WEFT_GLOBAL const weft_u8 *s, weft_u32 first,
			 weft_i32 j)
{
	return s[first + 2u * (weft_u32)j] >> 4;
}

WEFT_FN weft_i32 ma_sq_dir(WEFT_GLOBAL const weft_u8 *s, weft_u32 first,
			   weft_i32 j)
{
	return s[first + 2u * (weft_u32)j + 1u] & 1;
}

WEFT_FN weft_i32 ma_sq_timer(WEFT_GLOBAL const weft_u8 *s, weft_u32 first,
			     weft_i32 j)
{
	return (s[first + 2u * (weft_u32)j + 1u] >> 1) & 7;
}

WEFT_FN weft_i32 ma_sq_shot(WEFT_GLOBAL const weft_u8 *s, weft_u32 first,
			    weft_i32 j)
{
	return s[first + 2u * (weft_u32)j + 1u] >> 4;
}

WEFT_FN void ma_sq_put(WEFT_GLOBAL weft_u8 *s, weft_u32 first, weft_i32 j,
		       weft_i32 x, weft_i32 y, weft_i32 dir, weft_i32 timer,
		       weft_i32 shot)
{
	s[first + 2u * (weft_u32)j] = (weft_u8)(x | y << 4);
	s[first + 2u * (weft_u32)j + 1u] =
		(weft_u8)(dir | timer << 1 | shot << 4);
}

/* Entity j removed, the later ones moving down (list order kept). */
WEFT_FN void ma_sq_remove(WEFT_GLOBAL weft_u8 *s, weft_u32 count,
			  weft_u32 first, weft_i32 j)
{
	weft_u32 n = s[count], k;

	for (k = first + 2u * (weft_u32)j; k + 2u < first + 2u * n; k++)
		s[k] = s[k + 2u];
	s[first + 2u * n - 2u] = 0u;
	s[first + 2u * n - 1u] = 0u;
	s[count] = (weft_u8)(n - 1u);
}

/* An entity added at the end; dropped (and counted) if the list is
 * full. */
WEFT_FN void ma_sq_append(WEFT_GLOBAL weft_u8 *s, weft_u32 count,
			  weft_u32 first, weft_u32 cap, weft_i32 x, weft_i32 y,
			  weft_i32 dir, weft_i32 timer, weft_i32 shot)
{
	weft_u32 n = s[count];

	if (n >= cap) {
		if (s[MA_SQ_OVERFLOW] < 255u)
			s[MA_SQ_OVERFLOW]++;
		return;
	}
	ma_sq_put(s, first, (weft_i32)n, x, y, dir, timer, shot);
	s[count] = (weft_u8)(n + 1u);
}

/* The first entity of a list at (x, y), or -1. */
WEFT_FN weft_i32 ma_sq_find(WEFT_GLOBAL const weft_u8 *s, weft_u32 count,
			    weft_u32 first, weft_i32 x, weft_i32 y)
{
	weft_i32 j;

	for (j = 0; j < (weft_i32)s[count]; j++)
		if (ma_sq_x(s, first, j) == x && ma_sq_y(s, first, j) == y)
			return j;
	return -1;
}

WEFT_FN weft_i32 ma_sq_oxygen(WEFT_GLOBAL const weft_u8 *s)
{
	weft_i32 v = s[MA_SQ_OXYGEN] | s[MA_SQ_OXYGEN + 1u] << 8;

	return v >= 32768 ? v - 65536 : v;
}

WEFT_FN void ma_sq_set_oxygen(WEFT_GLOBAL weft_u8 *s, weft_i32 v)
{
	s[MA_SQ_OXYGEN] = (weft_u8)(v & 255);
	s[MA_SQ_OXYGEN + 1u] = (weft_u8)((v >> 8) & 255);
}

WEFT_FN void ma_sq_reset(WEFT_GLOBAL weft_u8 *s)
{
	weft_u32 k;

	for (k = 0u; k < MA_STATE_BYTES; k++)
		s[k] = 0u;
	ma_sq_set_oxygen(s, MA_SQ_MAX_OXYGEN);
	s[MA_SQ_SUB_X] = 5u;
	s[MA_SQ_E_SPAWN_SPEED] = (weft_u8)MA_SQ_INIT_SPAWN;
	s[MA_SQ_E_SPAWN_TIMER] = (weft_u8)MA_SQ_INIT_SPAWN;
	s[MA_SQ_D_SPAWN_TIMER] = (weft_u8)MA_SQ_DIVER_SPAWN;
	s[MA_SQ_MOVE_SPEED] = (weft_u8)MA_SQ_INIT_MOVE;
	s[MA_SQ_SURFACE] = 1u;
}

/* MinAtar's _spawn_enemy: a fish or (1/3) a sub from the left (1/2) or
 * the right on a random row 1-8; nothing if that row holds an enemy
 * moving the other way. */
WEFT_FN void ma_sq_spawn_enemy(WEFT_GLOBAL weft_u8 *s, ma_draws d)
{
	weft_i32 lr = ma_draw(d, MA_SQ_DRAW_ENEMY_LR).v[0] < 0x80000000u;
	weft_i32 sub = ma_draw(d, MA_SQ_DRAW_ENEMY_SUB).v[0] < 0x55555555u;
	weft_i32 y = 1 + (weft_i32)WEFT_MULHI32(
				 ma_draw(d, MA_SQ_DRAW_ENEMY_Y).v[0], 8u);
	weft_i32 j;

	s[MA_SQ_ENEMY_DRAW] = (weft_u8)(0x80 | lr | sub << 1 | y << 2);
	for (j = 0; j < (weft_i32)s[MA_SQ_SUBS_COUNT]; j++)
		if (ma_sq_y(s, MA_SQ_SUBS, j) == y &&
		    ma_sq_dir(s, MA_SQ_SUBS, j) != lr)
			return;
	for (j = 0; j < (weft_i32)s[MA_SQ_FISH_COUNT]; j++)
		if (ma_sq_y(s, MA_SQ_FISH, j) == y &&
		    ma_sq_dir(s, MA_SQ_FISH, j) != lr)
			return;
	if (sub)
		ma_sq_append(s, MA_SQ_SUBS_COUNT, MA_SQ_SUBS, MA_SQ_SUBS_CAP,
			     lr ? 0 : 9, y, lr, s[MA_SQ_MOVE_SPEED],
			     MA_SQ_ENEMY_SHOT_INTERVAL);
	else
		ma_sq_append(s, MA_SQ_FISH_COUNT, MA_SQ_FISH, MA_SQ_FISH_CAP,
			     lr ? 0 : 9, y, lr, s[MA_SQ_MOVE_SPEED], 0);
}

WEFT_FN void ma_sq_spawn_diver(WEFT_GLOBAL weft_u8 *s, ma_draws d)
{
	weft_i32 lr = ma_draw(d, MA_SQ_DRAW_DIVER_LR).v[0] < 0x80000000u;
	weft_i32 y = 1 + (weft_i32)WEFT_MULHI32(
				 ma_draw(d, MA_SQ_DRAW_DIVER_Y).v[0], 8u);

	s[MA_SQ_DIVER_DRAW] = (weft_u8)(0x80 | lr | y << 1);
	ma_sq_append(s, MA_SQ_DIV_COUNT, MA_SQ_DIV, MA_SQ_DIV_CAP, lr ? 0 : 9,
		     y, lr, MA_SQ_DIVER_MOVE, 0);
}

/* Friendly bullets, last to first: each moves; off the grid it goes; on
 * a fish (else a sub) both go, reward 1. */
WEFT_FN weft_u32 ma_sq_friendly(WEFT_GLOBAL weft_u8 *s)
{
	weft_u32 r = 0u;
	weft_i32 j, x, y, dir, hit;

	for (j = (weft_i32)s[MA_SQ_FB_COUNT] - 1; j >= 0; j--) {
		dir = ma_sq_dir(s, MA_SQ_FB, j);
		x = ma_sq_x(s, MA_SQ_FB, j) + (dir ? 1 : -1);
		y = ma_sq_y(s, MA_SQ_FB, j);
		if (x < 0 || x > 9) {
			ma_sq_remove(s, MA_SQ_FB_COUNT, MA_SQ_FB, j);
			continue;
		}
		hit = ma_sq_find(s, MA_SQ_FISH_COUNT, MA_SQ_FISH, x, y);
		if (hit >= 0) {
			ma_sq_remove(s, MA_SQ_FISH_COUNT, MA_SQ_FISH, hit);
		} else {
			hit = ma_sq_find(s, MA_SQ_SUBS_COUNT, MA_SQ_SUBS, x, y);
			if (hit >= 0)
				ma_sq_remove(s, MA_SQ_SUBS_COUNT, MA_SQ_SUBS,
					     hit);
		}
		if (hit >= 0) {
			ma_sq_remove(s, MA_SQ_FB_COUNT, MA_SQ_FB, j);
			r++;
			continue;
		}
		ma_sq_put(s, MA_SQ_FB, j, x, y, dir, 0, 0);
	}
	return r;
}

/* Divers, last to first: one on the sub is rescued (up to 6), else it
 * moves when its timer is 0 (off the grid it goes; onto the sub:
 * rescued). */
WEFT_FN void ma_sq_divers(WEFT_GLOBAL weft_u8 *s, weft_i32 sx, weft_i32 sy)
{
	weft_i32 j, x, y, dir, timer;

	for (j = (weft_i32)s[MA_SQ_DIV_COUNT] - 1; j >= 0; j--) {
		weft_i32 dc = ma_sbyte(s[MA_SQ_DIVER_COUNT]);

		x = ma_sq_x(s, MA_SQ_DIV, j);
		y = ma_sq_y(s, MA_SQ_DIV, j);
		dir = ma_sq_dir(s, MA_SQ_DIV, j);
		timer = ma_sq_timer(s, MA_SQ_DIV, j);
		if (x == sx && y == sy && dc < 6) {
			ma_sq_remove(s, MA_SQ_DIV_COUNT, MA_SQ_DIV, j);
			s[MA_SQ_DIVER_COUNT] = (weft_u8)((dc + 1) & 255);
			continue;
		}
		if (timer != 0) {
			ma_sq_put(s, MA_SQ_DIV, j, x, y, dir, timer - 1, 0);
			continue;
		}
		x += dir ? 1 : -1;
		if (x < 0 || x > 9) {
			ma_sq_remove(s, MA_SQ_DIV_COUNT, MA_SQ_DIV, j);
		} else if (x == sx && y == sy && dc < 6) {
			ma_sq_remove(s, MA_SQ_DIV_COUNT, MA_SQ_DIV, j);
			s[MA_SQ_DIVER_COUNT] = (weft_u8)((dc + 1) & 255);
		} else {
			ma_sq_put(s, MA_SQ_DIV, j, x, y, dir,
				  (weft_i32)MA_SQ_DIVER_MOVE, 0);
		}
	}
}

/* Enemies of one list (subs or fish), last to first: on the sub: the
 * end; each moves when its timer is 0 (off the grid it goes; onto the
 * sub: the end; onto a friendly bullet: both go, reward 1); subs fire
 * every 11 steps (even one shot dead this step, as MinAtar's loop
 * does). */
WEFT_FN weft_u32 ma_sq_enemies(WEFT_GLOBAL weft_u8 *s, weft_u32 count,
			       weft_u32 first, weft_u32 subs, weft_i32 sx,
			       weft_i32 sy)
{
	weft_u32 r = 0u;
	weft_i32 j, x, y, dir, timer, shot, gone, fire, hit;

	for (j = (weft_i32)s[count] - 1; j >= 0; j--) {
		x = ma_sq_x(s, first, j);
		y = ma_sq_y(s, first, j);
		dir = ma_sq_dir(s, first, j);
		timer = ma_sq_timer(s, first, j);
		shot = ma_sq_shot(s, first, j);
		gone = 0;
		if (x == sx && y == sy)
			s[MA_SQ_TERMINAL] = 1u;
		if (timer == 0) {
			timer = s[MA_SQ_MOVE_SPEED];
			x += dir ? 1 : -1;
			if (x < 0 || x > 9) {
				gone = 1;
			} else if (x == sx && y == sy) {
				s[MA_SQ_TERMINAL] = 1u;
			} else {
				hit = ma_sq_find(s, MA_SQ_FB_COUNT, MA_SQ_FB, x,
						 y);
				if (hit >= 0) {
					ma_sq_remove(s, MA_SQ_FB_COUNT,
						     MA_SQ_FB, hit);
					gone = 2;
					r++;
				}
			}
		} else {
			timer--;
		}
		fire = 0;
		if (subs) {
			fire = shot == 0;
			shot = fire ? (weft_i32)MA_SQ_ENEMY_SHOT_INTERVAL
				    : shot - 1;
		}
		if (gone)
			ma_sq_remove(s, count, first, j);
		else
			ma_sq_put(s, first, j, x, y, dir, timer, shot);
		/* A sub leaving the grid fires off it: MinAtar's bullet
		 * goes at once, unseen; none is added. */
		if (fire && gone != 1) {
			ma_sq_append(s, MA_SQ_EB_COUNT, MA_SQ_EB, MA_SQ_EB_CAP,
				     x, y, dir, 0, 0);
			if (gone == 2 && s[MA_SQ_DEAD_FIRED] < 255u)
				s[MA_SQ_DEAD_FIRED]++;
		}
	}
	return r;
}

/* Enemy bullets, last to first: on the sub before or after moving: the
 * end; off the grid they go. */
WEFT_FN void ma_sq_enemy_bullets(WEFT_GLOBAL weft_u8 *s, weft_i32 sx,
				 weft_i32 sy)
{
	weft_i32 j, x, y, dir;

	for (j = (weft_i32)s[MA_SQ_EB_COUNT] - 1; j >= 0; j--) {
		x = ma_sq_x(s, MA_SQ_EB, j);
		y = ma_sq_y(s, MA_SQ_EB, j);
		dir = ma_sq_dir(s, MA_SQ_EB, j);
		if (x == sx && y == sy)
			s[MA_SQ_TERMINAL] = 1u;
		x += dir ? 1 : -1;
		if (x < 0 || x > 9) {
			ma_sq_remove(s, MA_SQ_EB_COUNT, MA_SQ_EB, j);
			continue;
		}
		if (x == sx && y == sy)
			s[MA_SQ_TERMINAL] = 1u;
		ma_sq_put(s, MA_SQ_EB, j, x, y, dir, 0, 0);
	}
}

/* MinAtar's _surface (with divers): a full load of 6 pays oxygen / 20;
 * oxygen refilled, one diver less (-1 after a full load, as MinAtar);
 * the difficulty ramps. */
WEFT_FN weft_u32 ma_sq_surface(WEFT_GLOBAL weft_u8 *s, weft_u32 ramping)
{
	weft_i32 dc = ma_sbyte(s[MA_SQ_DIVER_COUNT]);
	weft_u32 r = 0u;

	s[MA_SQ_SURFACE] = 1u;
	if (dc == 6) {
		dc = 0;
		r = (weft_u32)(ma_sq_oxygen(s) * 10 / MA_SQ_MAX_OXYGEN);
	}
	ma_sq_set_oxygen(s, MA_SQ_MAX_OXYGEN);
	s[MA_SQ_DIVER_COUNT] = (weft_u8)((dc - 1) & 255);
	if (ramping &&
	    (s[MA_SQ_E_SPAWN_SPEED] > 1u || s[MA_SQ_MOVE_SPEED] > 2u)) {
		if (s[MA_SQ_MOVE_SPEED] > 2u && (s[MA_SQ_RAMP_INDEX] & 1u))
			s[MA_SQ_MOVE_SPEED]--;
		if (s[MA_SQ_E_SPAWN_SPEED] > 1u)
			s[MA_SQ_E_SPAWN_SPEED]--;
		s[MA_SQ_RAMP_INDEX]++;
	}
	return r;
}

/* One step with action a: the reward (enemies shot, and oxygen / 20
 * for surfacing with 6 divers). A terminal state stays as it is, with
 * reward 0. */
WEFT_FN weft_u32 ma_sq_step(WEFT_GLOBAL weft_u8 *s, weft_u32 a, ma_draws d,
			    weft_u32 ramping)
{
	weft_i32 sx = s[MA_SQ_SUB_X], sy = s[MA_SQ_SUB_Y], ox;
	weft_u32 r;

	if (s[MA_SQ_TERMINAL])
		return 0u;
	s[MA_SQ_ENEMY_DRAW] = 0u;
	s[MA_SQ_DIVER_DRAW] = 0u;
	s[MA_SQ_DEAD_FIRED] = 0u;
	if (s[MA_SQ_E_SPAWN_TIMER] == 0u) {
		ma_sq_spawn_enemy(s, d);
		s[MA_SQ_E_SPAWN_TIMER] = s[MA_SQ_E_SPAWN_SPEED];
	}
	if (s[MA_SQ_D_SPAWN_TIMER] == 0u) {
		ma_sq_spawn_diver(s, d);
		s[MA_SQ_D_SPAWN_TIMER] = (weft_u8)MA_SQ_DIVER_SPAWN;
	}
	if (a == 5u && s[MA_SQ_SHOT_TIMER] == 0u) {
		ma_sq_append(s, MA_SQ_FB_COUNT, MA_SQ_FB, MA_SQ_FB_CAP, sx, sy,
			     s[MA_SQ_SUB_OR], 0, 0);
		s[MA_SQ_SHOT_TIMER] = (weft_u8)MA_SQ_SHOT_COOL_DOWN;
	} else if (a == 1u) {
		sx = sx > 0 ? sx - 1 : 0;
		s[MA_SQ_SUB_OR] = 0u;
	} else if (a == 3u) {
		sx = sx < 9 ? sx + 1 : 9;
		s[MA_SQ_SUB_OR] = 1u;
	} else if (a == 2u) {
		sy = sy > 0 ? sy - 1 : 0;
	} else if (a == 4u) {
		sy = sy < 8 ? sy + 1 : 8;
	}
	s[MA_SQ_SUB_X] = (weft_u8)sx;
	s[MA_SQ_SUB_Y] = (weft_u8)sy;
	r = ma_sq_friendly(s);
	ma_sq_divers(s, sx, sy);
	r += ma_sq_enemies(s, MA_SQ_SUBS_COUNT, MA_SQ_SUBS, 1u, sx, sy);
	ma_sq_enemy_bullets(s, sx, sy);
	r += ma_sq_enemies(s, MA_SQ_FISH_COUNT, MA_SQ_FISH, 0u, sx, sy);
	if (s[MA_SQ_E_SPAWN_TIMER])
		s[MA_SQ_E_SPAWN_TIMER]--;
	if (s[MA_SQ_D_SPAWN_TIMER])
		s[MA_SQ_D_SPAWN_TIMER]--;
	if (s[MA_SQ_SHOT_TIMER])
		s[MA_SQ_SHOT_TIMER]--;
	ox = ma_sq_oxygen(s);
	if (ox <= 0)
		s[MA_SQ_TERMINAL] = 1u;
	if (sy > 0) {
		ma_sq_set_oxygen(s, ox - 1);
		s[MA_SQ_SURFACE] = 0u;
	} else if (!s[MA_SQ_SURFACE]) {
		if (s[MA_SQ_DIVER_COUNT] == 0u)
			s[MA_SQ_TERMINAL] = 1u;
		else
			r += ma_sq_surface(s, ramping);
	}
	return r;
}

/* Entities of a list into channel c of o, with their trails (channel 3)
 * if trail. */
WEFT_FN void ma_sq_draw(WEFT_GLOBAL const weft_u8 *s, weft_u32 count,
			weft_u32 first, weft_u32 c, weft_u32 trail,
			WEFT_GLOBAL weft_u8 *o)
{
	weft_i32 j, x, y, back;

	for (j = 0; j < (weft_i32)s[count]; j++) {
		x = ma_sq_x(s, first, j);
		y = ma_sq_y(s, first, j);
		o[10u * (weft_u32)(10 * y + x) + c] = 1u;
		back = ma_sq_dir(s, first, j) ? x - 1 : x + 1;
		if (trail && back >= 0 && back <= 9)
			o[10u * (weft_u32)(10 * y + back) + 3u] = 1u;
	}
}

/* The observation [10][10][10] of state s into o (every byte written). */
WEFT_FN void ma_sq_obs(WEFT_GLOBAL const weft_u8 *s, WEFT_GLOBAL weft_u8 *o)
{
	weft_i32 sx = s[MA_SQ_SUB_X], sy = s[MA_SQ_SUB_Y], k;
	weft_i32 back = s[MA_SQ_SUB_OR] ? sx - 1 : sx + 1;
	weft_i32 ox = ma_sq_oxygen(s), dc = ma_sbyte(s[MA_SQ_DIVER_COUNT]);

	ma_obs_clear(o, MA_SQ_CHANNELS);
	o[10u * (weft_u32)(10 * sy + sx)] = 1u;
	/* The sub's back is on the grid (MinAtar moves it so); a state
	 * written otherwise wraps as numpy's -1 does, or is not drawn. */
	back = back < 0 ? 9 : back;
	if (back <= 9)
		o[10u * (weft_u32)(10 * sy + back) + 1u] = 1u;
	ox = (ox > 0 ? ox : 0) * 10 / MA_SQ_MAX_OXYGEN;
	for (k = 0; k < 10; k++) {
		o[10u * (weft_u32)(90 + k) + 7u] = (weft_u8)(k < ox);
		o[10u * (weft_u32)(90 + k) + 8u] =
			(weft_u8)(k >= 9 - dc && k < 9);
	}
	ma_sq_draw(s, MA_SQ_FB_COUNT, MA_SQ_FB, 2u, 0u, o);
	ma_sq_draw(s, MA_SQ_EB_COUNT, MA_SQ_EB, 4u, 0u, o);
	ma_sq_draw(s, MA_SQ_FISH_COUNT, MA_SQ_FISH, 5u, 1u, o);
	ma_sq_draw(s, MA_SQ_SUBS_COUNT, MA_SQ_SUBS, 6u, 1u, o);
	ma_sq_draw(s, MA_SQ_DIV_COUNT, MA_SQ_DIV, 9u, 1u, o);
}

#endif /* MINATAR_SEAQUEST_H */
