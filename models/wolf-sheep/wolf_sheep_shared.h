/*
 * wolf_sheep_shared.h - what the wolf-sheep model's kernels (wolf_sheep.wk)
 * and its host code (wolf_sheep.c) share: the parameter block, the
 * control block, the rows of counts.csv, the purposes of the draws and
 * the decisions made from them. Written in the kernel dialect.
 */
#ifndef WOLF_SHEEP_SHARED_H
#define WOLF_SHEEP_SHARED_H

/* Purposes: the last counter word of a draw. */
#define WS_PURPOSE_SHEEP_MOVE  1u /* (step, sheep id) */
#define WS_PURPOSE_SHEEP_BIRTH 2u /* (step, sheep id) */
#define WS_PURPOSE_GRAZE       3u /* (step, cell): which sheep eats */
#define WS_PURPOSE_WOLF_MOVE   4u /* (step, wolf id) */
#define WS_PURPOSE_WOLF_BIRTH  5u /* (step, wolf id) */
#define WS_PURPOSE_HUNT	       6u /* (step, cell): which wolves eat which sheep */
#define WS_PURPOSE_INIT_SHEEP  7u /* (k, 0): sheep k at step 0 */
#define WS_PURPOSE_INIT_WOLF   8u /* (k, 0): wolf k at step 0 */
#define WS_PURPOSE_INIT_GRASS  9u /* (cell, 0): the cell's grass */

/* The parameter block: 32-bit words only. */
typedef struct ws_params {
	weft_u32 width, height, cells;
	weft_u32 seed_lo, seed_hi;
	weft_u32 sheep_repro_thr; /* sheep_reproduce as a 32-bit threshold */
	weft_u32 wolf_repro_thr;
	weft_u32 sheep_gain; /* f32 bits: energy from a grass patch */
	weft_u32 wolf_gain;  /* f32 bits: energy from a sheep */
	weft_u32 regrowth;   /* grass_regrowth_time, steps */
	weft_u32 every;	     /* a row every this many steps */
	weft_u32 last_step;  /* and at the last step */
	weft_u32 n_rows;
	weft_u32 reserved[3]; /* 64 bytes */
} ws_params;

/* The model's control block (buffer ctl). */
#define WS_CTL_STEP  0 /* steps done */
#define WS_CTL_GROWN 1 /* grown patches at the end of the last step */
#define WS_CTL_ROW   2 /* the next row of the series */
#define WS_CTL_EATEN 3 /* grass patches eaten this step (0 between steps) */
#define WS_CTL_WORDS 4

/* A row of counts.csv. */
#define WS_ROW_STEP  0
#define WS_ROW_SHEEP 1
#define WS_ROW_WOLF  2
#define WS_ROW_GRASS 3
#define WS_ROW_WORDS 4

/* A cell's grass word: 0 when fully grown, else the step after which it
 * regrows (at the start of step k, a patch whose word is at most k - 1
 * is grown again).
 *
 * The grown patches are counted without visiting the cells: a patch eaten
 * in step t (counting from 0) grows back at the start of step
 * t + 1 + regrowth, and a patch of step 0's countdown g at the start of
 * step g. The regrowth ring (regrowth + 1 words) holds at slot
 * t % (regrowth + 1) the patches that grow back at the start of step t:
 * first the countdowns', then, once step t has read it, the patches eaten
 * in step t, which grow back exactly regrowth + 1 steps later. */

/* A chance decided by a draw: p = thr / 2^32; the largest is certain. */
WEFT_FN int ws_chance(weft_u32 draw, weft_u32 thr)
{
	return thr == 0xFFFFFFFFu || draw < thr;
}

/* A uniform f32 in [0, 1) from the top 24 bits of a draw: exact. */
WEFT_FN weft_f32 ws_unit(weft_u32 draw)
{
	return (weft_f32)(draw >> 8) * (1.0f / 16777216.0f);
}

#endif
