/*
 * models/minatar/minatar_space_invaders.h - MinAtar's Space Invaders in
 * the kernel dialect, on one environment's row of the state buffer: its
 * first state, one step and its observation. Included by
 * minatar_shared.h (kernels and host). Integers only; no random
 * decisions (beyond sticky actions).
 *
 * The rules are MinAtar's (kenjyoung/MinAtar,
 * minatar/environments/space_invaders.py, Env.act and _nearest_alien),
 * statement for statement; gymnax's MinSpaceInvaders computes the same
 * rules. The three 10x10 maps are held as one 10-bit mask per row (bit x
 * for column x).
 */
#ifndef MINATAR_SPACE_INVADERS_H
#define MINATAR_SPACE_INVADERS_H

/* Channels: cannon, alien, alien_left, alien_right, friendly_bullet,
 * enemy_bullet. Actions: Discrete(4), the minimal set: 0 no-op, 1 left,
 * 2 right, 3 fire (MinAtar's full-set indices 0 'n', 1 'l', 3 'r',
 * 5 'f'). */
#define MA_SI_CHANNELS	     6u
#define MA_SI_CH_CANNON	     0u
#define MA_SI_CH_ALIEN	     1u
#define MA_SI_CH_ALIEN_LEFT  2u
#define MA_SI_CH_ALIEN_RIGHT 3u
#define MA_SI_CH_FRIENDLY    4u
#define MA_SI_CH_ENEMY	     5u
#define MA_SI_ACTIONS	     4u

/* State bytes (gymnax's EnvState fields, MinAtar's attributes). */
#define MA_SI_POS		  0u
#define MA_SI_ALIEN_DIR		  1u /* signed: -1 left, +1 right */
#define MA_SI_ENEMY_MOVE_INTERVAL 2u
#define MA_SI_ALIEN_MOVE_TIMER	  3u
#define MA_SI_ALIEN_SHOT_TIMER	  4u
#define MA_SI_RAMP_INDEX	  5u
#define MA_SI_SHOT_TIMER	  6u
#define MA_SI_TERMINAL		  7u
/* Row y of each map: a u16 little-endian at MAP + 2 y, bit x column x. */
#define MA_SI_ALIENS  16u
#define MA_SI_FRIENDS 36u /* friendly bullets */
#define MA_SI_ENEMIES 56u /* enemy bullets */

#define MA_SI_SHOT_COOL_DOWN	  5u
#define MA_SI_ENEMY_MOVE	  12u
#define MA_SI_ENEMY_SHOT_INTERVAL 10u
#define MA_SI_FULL_ROW		  0xFCu /* columns 2 to 7 */

WEFT_FN weft_u32 ma_si_row(WEFT_GLOBAL const weft_u8 *s, weft_u32 map,
			   weft_u32 y)
{
	return (weft_u32)s[map + 2u * y] |
	       ((weft_u32)s[map + 2u * y + 1u] << 8);
}

WEFT_FN void ma_si_set_row(WEFT_GLOBAL weft_u8 *s, weft_u32 map, weft_u32 y,
			   weft_u32 v)
{
	s[map + 2u * y] = (weft_u8)(v & 255u);
	s[map + 2u * y + 1u] = (weft_u8)(v >> 8);
}

WEFT_FN weft_u32 ma_si_bits(weft_u32 v)
{
	weft_u32 c = 0u;

	for (; v; v &= v - 1u)
		c++;
	return c;
}

/* Aliens on rows 0 to 3, columns 2 to 7. */
WEFT_FN void ma_si_fill(WEFT_GLOBAL weft_u8 *s)
{
	weft_u32 y;

	for (y = 0u; y < 4u; y++)
		ma_si_set_row(s, MA_SI_ALIENS, y, MA_SI_FULL_ROW);
}

WEFT_FN void ma_si_reset(WEFT_GLOBAL weft_u8 *s)
{
	weft_u32 k;

	for (k = 0u; k < MA_STATE_BYTES; k++)
		s[k] = 0u;
	s[MA_SI_POS] = 5u;
	ma_si_fill(s);
	s[MA_SI_ALIEN_DIR] = 255u; /* -1 */
	s[MA_SI_ENEMY_MOVE_INTERVAL] = (weft_u8)MA_SI_ENEMY_MOVE;
	s[MA_SI_ALIEN_MOVE_TIMER] = (weft_u8)MA_SI_ENEMY_MOVE;
	s[MA_SI_ALIEN_SHOT_TIMER] = (weft_u8)MA_SI_ENEMY_SHOT_INTERVAL;
}

/* Bits set in a map's column x, and its count of aliens. */
WEFT_FN weft_u32 ma_si_count(WEFT_GLOBAL const weft_u8 *s)
{
	weft_u32 y, c = 0u;

	for (y = 0u; y < 10u; y++)
		c += ma_si_bits(ma_si_row(s, MA_SI_ALIENS, y));
	return c;
}

WEFT_FN weft_u32 ma_si_column(WEFT_GLOBAL const weft_u8 *s, weft_u32 x)
{
	weft_u32 y, any = 0u;

	for (y = 0u; y < 10u; y++)
		any |= ma_si_row(s, MA_SI_ALIENS, y) >> x & 1u;
	return any;
}

/* The aliens move: sideways, or down one row (wrapping, as np.roll)
 * and turning when they reach the side they move to. */
WEFT_FN void ma_si_move_aliens(WEFT_GLOBAL weft_u8 *s)
{
	weft_i32 dir = ma_sbyte(s[MA_SI_ALIEN_DIR]);
	weft_u32 y, v, last;

	if ((dir < 0 && ma_si_column(s, 0u)) ||
	    (dir > 0 && ma_si_column(s, 9u))) {
		s[MA_SI_ALIEN_DIR] = (weft_u8)((-dir) & 255);
		last = ma_si_row(s, MA_SI_ALIENS, 9u);
		if (last)
			s[MA_SI_TERMINAL] = 1u;
		for (y = 9u; y > 0u; y--)
			ma_si_set_row(s, MA_SI_ALIENS, y,
				      ma_si_row(s, MA_SI_ALIENS, y - 1u));
		ma_si_set_row(s, MA_SI_ALIENS, 0u, last);
		return;
	}
	for (y = 0u; y < 10u; y++) {
		v = ma_si_row(s, MA_SI_ALIENS, y);
		v = dir > 0 ? ((v << 1) | (v >> 9)) & 0x3FFu
			    : (v >> 1) | ((v & 1u) << 9);
		ma_si_set_row(s, MA_SI_ALIENS, y, v);
	}
}

/* MinAtar's _nearest_alien: the column nearest to pos holding an alien
 * (the left one of two as near), and its lowest alien; it fires. */
WEFT_FN void ma_si_alien_fires(WEFT_GLOBAL weft_u8 *s, weft_i32 pos)
{
	weft_i32 dist, x, k;
	weft_u32 y;

	for (dist = 0; dist < 10; dist++)
		for (k = 0; k < 2; k++) {
			x = k ? pos + dist : pos - dist;
			if (x < 0 || x > 9 || (k && dist == 0) ||
			    !ma_si_column(s, (weft_u32)x))
				continue;
			for (y = 9u;; y--)
				if (ma_si_row(s, MA_SI_ALIENS, y) >> x & 1u)
					break;
			ma_si_set_row(s, MA_SI_ENEMIES, y,
				      ma_si_row(s, MA_SI_ENEMIES, y) |
					      (1u << x));
			return;
		}
}

/* One step with action a of the minimal set: the reward (aliens shot).
 * A terminal state stays as it is, with reward 0. */
WEFT_FN weft_u32 ma_si_step(WEFT_GLOBAL weft_u8 *s, weft_u32 a,
			    weft_u32 ramping)
{
	weft_i32 pos = s[MA_SI_POS];
	weft_u32 r = 0u, y, v, count;

	if (s[MA_SI_TERMINAL])
		return 0u;
	if (a == 3u && s[MA_SI_SHOT_TIMER] == 0u) {
		ma_si_set_row(s, MA_SI_FRIENDS, 9u,
			      ma_si_row(s, MA_SI_FRIENDS, 9u) | (1u << pos));
		s[MA_SI_SHOT_TIMER] = (weft_u8)MA_SI_SHOT_COOL_DOWN;
	} else if (a == 1u) {
		pos = pos > 0 ? pos - 1 : 0;
	} else if (a == 2u) {
		pos = pos < 9 ? pos + 1 : 9;
	}
	s[MA_SI_POS] = (weft_u8)pos;
	/* Friendly bullets up a row, enemy ones down. */
	for (y = 0u; y < 9u; y++)
		ma_si_set_row(s, MA_SI_FRIENDS, y,
			      ma_si_row(s, MA_SI_FRIENDS, y + 1u));
	ma_si_set_row(s, MA_SI_FRIENDS, 9u, 0u);
	for (y = 9u; y > 0u; y--)
		ma_si_set_row(s, MA_SI_ENEMIES, y,
			      ma_si_row(s, MA_SI_ENEMIES, y - 1u));
	ma_si_set_row(s, MA_SI_ENEMIES, 0u, 0u);
	if (ma_si_row(s, MA_SI_ENEMIES, 9u) >> pos & 1u)
		s[MA_SI_TERMINAL] = 1u;
	if (ma_si_row(s, MA_SI_ALIENS, 9u) >> pos & 1u)
		s[MA_SI_TERMINAL] = 1u;
	if (s[MA_SI_ALIEN_MOVE_TIMER] == 0u) {
		count = ma_si_count(s);
		s[MA_SI_ALIEN_MOVE_TIMER] =
			(weft_u8)(count < s[MA_SI_ENEMY_MOVE_INTERVAL]
					  ? count
					  : s[MA_SI_ENEMY_MOVE_INTERVAL]);
		ma_si_move_aliens(s);
		if (ma_si_row(s, MA_SI_ALIENS, 9u) >> pos & 1u)
			s[MA_SI_TERMINAL] = 1u;
	}
	if (s[MA_SI_ALIEN_SHOT_TIMER] == 0u) {
		s[MA_SI_ALIEN_SHOT_TIMER] = (weft_u8)MA_SI_ENEMY_SHOT_INTERVAL;
		ma_si_alien_fires(s, pos);
	}
	for (y = 0u; y < 10u; y++) {
		v = ma_si_row(s, MA_SI_ALIENS, y) &
		    ma_si_row(s, MA_SI_FRIENDS, y);
		r += ma_si_bits(v);
		ma_si_set_row(s, MA_SI_ALIENS, y,
			      ma_si_row(s, MA_SI_ALIENS, y) & ~v);
		ma_si_set_row(s, MA_SI_FRIENDS, y,
			      ma_si_row(s, MA_SI_FRIENDS, y) & ~v);
	}
	if (s[MA_SI_SHOT_TIMER])
		s[MA_SI_SHOT_TIMER]--;
	s[MA_SI_ALIEN_MOVE_TIMER]--;
	s[MA_SI_ALIEN_SHOT_TIMER]--;
	if (ma_si_count(s) == 0u) {
		if (s[MA_SI_ENEMY_MOVE_INTERVAL] > 6u && ramping) {
			s[MA_SI_ENEMY_MOVE_INTERVAL]--;
			s[MA_SI_RAMP_INDEX]++;
		}
		ma_si_fill(s);
	}
	return r;
}

/* The observation [10][10][6] of state s into o (every byte written). */
WEFT_FN void ma_si_obs(WEFT_GLOBAL const weft_u8 *s, WEFT_GLOBAL weft_u8 *o)
{
	weft_u32 dir_ch = ma_sbyte(s[MA_SI_ALIEN_DIR]) < 0
				  ? MA_SI_CH_ALIEN_LEFT
				  : MA_SI_CH_ALIEN_RIGHT;
	weft_u32 y, x;

	ma_obs_clear(o, MA_SI_CHANNELS);
	o[6u * (90u + s[MA_SI_POS]) + MA_SI_CH_CANNON] = 1u;
	for (y = 0u; y < 10u; y++)
		for (x = 0u; x < 10u; x++) {
			weft_u32 c = 6u * (10u * y + x);
			weft_u32 alien =
				ma_si_row(s, MA_SI_ALIENS, y) >> x & 1u;

			o[c + MA_SI_CH_ALIEN] = (weft_u8)alien;
			o[c + dir_ch] = (weft_u8)alien;
			o[c + MA_SI_CH_FRIENDLY] =
				(weft_u8)(ma_si_row(s, MA_SI_FRIENDS, y) >> x &
					  1u);
			o[c + MA_SI_CH_ENEMY] =
				(weft_u8)(ma_si_row(s, MA_SI_ENEMIES, y) >> x &
					  1u);
		}
}

#endif /* MINATAR_SPACE_INVADERS_H */
