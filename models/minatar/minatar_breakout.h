/*
 * models/minatar/minatar_breakout.h - MinAtar's Breakout in the kernel
 * dialect, on one environment's row of the state buffer (layout
 * MA_BO_* in minatar_shared.h): its first state, one step and its
 * observation. Included by minatar.wk (the kernels) and, through
 * minatar.h, by the host (the first states setup uploads), so that both
 * use the same code. Integers only.
 *
 * The rules are MinAtar's (kenjyoung/MinAtar,
 * minatar/environments/breakout.py, Env.act), statement for statement,
 * which gymnax's MinBreakout (step_agent, step_ball_brick) computes
 * branch-free; models/minatar/minatar.md lists them.
 */
#ifndef MINATAR_BREAKOUT_H
#define MINATAR_BREAKOUT_H

/* Rows 1 to 3 filled with bricks. */
WEFT_FN void ma_bo_fill(WEFT_GLOBAL weft_u8 *s)
{
	weft_u32 k;

	for (k = 10u; k < 40u; k++)
		s[MA_BO_BRICKS + k] = 1u;
}

/* The first state of an episode: the ball on row 3 in column 0 moving
 * down-right (side 0), or in column 9 moving down-left (side 1); the
 * paddle in column 4; bricks on rows 1 to 3. Every other byte 0. */
WEFT_FN void ma_bo_begin(WEFT_GLOBAL weft_u8 *s, weft_u32 side)
{
	weft_u32 k;

	for (k = 0u; k < MA_BO_STATE_BYTES; k++)
		s[k] = 0u;
	s[MA_BO_BALL_X] = (weft_u8)(side ? 9u : 0u);
	s[MA_BO_BALL_Y] = 3u;
	s[MA_BO_BALL_DIR] = (weft_u8)(side ? 3u : 2u);
	s[MA_BO_POS] = 4u;
	s[MA_BO_LAST_X] = s[MA_BO_BALL_X];
	s[MA_BO_LAST_Y] = 3u;
	ma_bo_fill(s);
}

/* The side of an episode's first state: a draw's top bit (MinAtar's
 * random.choice(2)). */
WEFT_FN weft_u32 ma_bo_side(weft_u32 draw)
{
	return draw >> 31;
}

/* The first state from draw r (MA_DRAW_START of step 0). */
WEFT_FN void ma_bo_reset(WEFT_GLOBAL weft_u8 *s, weft_rand4 r)
{
	ma_bo_begin(s, ma_bo_side(r.v[0]));
}

/* Whether a brick is left: the bytes of cells 8 to 39 (rows 1 to 3 and
 * two cells of row 0, which never has one: MA_BO_BRICKS) read as 8
 * words, nonzero where one is. */
WEFT_FN weft_u32 ma_bo_bricks_left(WEFT_GLOBAL const weft_u8 *s)
{
	WEFT_GLOBAL const weft_u32 *w =
		(WEFT_GLOBAL const weft_u32 *)(s + MA_BO_BRICKS + 8u);
	weft_u32 k, any = 0u;

	for (k = 0u; k < 8u; k++)
		any |= w[k];
	return any;
}

/* Rows 1 to 3 filled again once every brick is gone. */
WEFT_FN void ma_bo_refill(WEFT_GLOBAL weft_u8 *s)
{
	if (!ma_bo_bricks_left(s))
		ma_bo_fill(s);
}

/* One step with action a of the minimal set (MA_BO_ACT_*): the reward (0
 * or 1). A terminal state stays as it is, with reward 0 (MinAtar's act
 * returns at once). */
WEFT_FN weft_u32 ma_bo_step(WEFT_GLOBAL weft_u8 *s, weft_u32 a)
{
	weft_i32 pos = s[MA_BO_POS], bx = s[MA_BO_BALL_X];
	weft_i32 by = s[MA_BO_BALL_Y], dir = s[MA_BO_BALL_DIR];
	weft_i32 nx, ny;
	weft_u32 reward = 0u, toggle = 0u, cell;

	if (s[MA_BO_TERMINAL])
		return 0u;
	if (a == MA_BO_ACT_LEFT)
		pos = pos > 0 ? pos - 1 : 0;
	else if (a == MA_BO_ACT_RIGHT)
		pos = pos < 9 ? pos + 1 : 9;
	/* Directions 0 up-left, 1 up-right, 2 down-right, 3 down-left. */
	nx = dir == 0 || dir == 3 ? bx - 1 : bx + 1;
	ny = dir < 2 ? by - 1 : by + 1;
	if (nx < 0 || nx > 9) {
		nx = nx < 0 ? 0 : 9;
		dir ^= 1; /* [1, 0, 3, 2] */
	}
	cell = (weft_u32)(ny * 10 + nx);
	if (ny < 0) {
		ny = 0;
		dir = 3 - dir; /* [3, 2, 1, 0] */
	} else if (s[MA_BO_BRICKS + cell]) {
		toggle = 1u;
		if (!s[MA_BO_STRIKE]) {
			reward = 1u;
			s[MA_BO_BRICKS + cell] = 0u;
			ny = by;
			dir = 3 - dir;
		}
	} else if (ny == 9) {
		ma_bo_refill(s);
		if (bx == pos) {
			dir = 3 - dir;
			ny = by;
		} else if (nx == pos) {
			dir ^= 2; /* [2, 3, 0, 1] */
			ny = by;
		} else {
			s[MA_BO_TERMINAL] = 1u;
		}
	}
	s[MA_BO_STRIKE] = (weft_u8)toggle;
	s[MA_BO_POS] = (weft_u8)pos;
	s[MA_BO_LAST_X] = (weft_u8)bx;
	s[MA_BO_LAST_Y] = (weft_u8)by;
	s[MA_BO_BALL_X] = (weft_u8)nx;
	s[MA_BO_BALL_Y] = (weft_u8)ny;
	s[MA_BO_BALL_DIR] = (weft_u8)dir;
	return reward;
}

/* The observation [10][10][4] of state s into o (every byte written; o
 * 4-byte aligned). Where the target is little-endian (MA_LE32), cell c's
 * four channels are the 32-bit word c of o, so the frame is written as
 * 100 words: 0 but where a brick is, whose cell's word is the brick byte
 * shifted to the top byte (the brick channel), then the paddle, ball and
 * trail bytes (one cell each) set to 1. Bricks are on rows 1 to 3 only
 * (MA_BO_BRICKS), so only the words of cells 8 to 39 are made from the
 * map: 32 cells, a multiple of the vector width, from a copy of
 * their bytes (so that the compiler knows the stores cannot change it);
 * on the host a widening load, a shift and a store for every 8 cells
 * with AVX2 or AVX-512. The bytes are the per-cell loop's, which other
 * targets run. Performance: models/minatar/minatar.md. */
WEFT_FN void ma_bo_obs(WEFT_GLOBAL const weft_u8 *s, WEFT_GLOBAL weft_u8 *o)
{
	weft_u32 paddle = 90u + s[MA_BO_POS];
	weft_u32 ball = 10u * s[MA_BO_BALL_Y] + s[MA_BO_BALL_X];
	weft_u32 trail = 10u * s[MA_BO_LAST_Y] + s[MA_BO_LAST_X];
	weft_u32 c;
#if MA_LE32
	WEFT_GLOBAL weft_u32 *o32 = (WEFT_GLOBAL weft_u32 *)o;
	weft_u8 bm[32];

	for (c = 0u; c < 32u; c++)
		bm[c] = s[MA_BO_BRICKS + 8u + c];
	for (c = 0u; c < 8u; c++)
		o32[c] = 0u;
	for (c = 0u; c < 32u; c++)
		o32[8u + c] = (weft_u32)bm[c] << 24;
	for (c = 40u; c < 100u; c++)
		o32[c] = 0u;
	if (paddle < 100u)
		o[4u * paddle + MA_BO_CH_PADDLE] = 1u;
	if (ball < 100u)
		o[4u * ball + MA_BO_CH_BALL] = 1u;
	if (trail < 100u)
		o[4u * trail + MA_BO_CH_TRAIL] = 1u;
#else
	for (c = 0u; c < 100u; c++) {
		o[4u * c + MA_BO_CH_PADDLE] = (weft_u8)(c == paddle);
		o[4u * c + MA_BO_CH_BALL] = (weft_u8)(c == ball);
		o[4u * c + MA_BO_CH_TRAIL] = (weft_u8)(c == trail);
		o[4u * c + MA_BO_CH_BRICK] = s[MA_BO_BRICKS + c];
	}
#endif
}

#endif /* MINATAR_BREAKOUT_H */
