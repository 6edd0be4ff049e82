/*
 * sir_shared.h - what the SIR model's kernels (sir.wk) and its host code
 * (sir.c) share: the cell encoding, the parameter block, the control block,
 * the rows of the series, the purposes of the random draws and the two
 * decisions made from them. Written in the kernel dialect: weft-wk inlines
 * it into the program text that run-time compilers get, and sir.c compiles
 * it after <weft/kernel_host.h>, so the host places the first infections
 * with the same functions and the same draws a kernel would use.
 */
#ifndef SIR_SHARED_H
#define SIR_SHARED_H

/* A cell is one 32-bit word: its state in the low byte and, while it is
 * infected, the steps it stays infectious in the three bytes above. */
#define SIR_S		      0u
#define SIR_I		      1u
#define SIR_R		      2u
#define SIR_STATE(c)	      ((c)&0xFFu)
#define SIR_LEFT(c)	      ((c) >> 8)
#define SIR_CELL(state, left) ((state) | ((left) << 8))
#define SIR_MAX_RECOVERY      16777215 /* what three bytes hold */

/* Purposes: the last counter word of a draw, one per kind of decision, so
 * that no two decisions ever read the same random numbers. */
#define SIR_PURPOSE_INFECT 1u /* (step, cell, 0): word d for neighbour d */
#define SIR_PURPOSE_SEED   2u /* (k, attempt, 0): where infection k starts */

/* The neighbours of a cell, in the order of the words of its draw. */
#define SIR_NORTH 0u
#define SIR_EAST  1u
#define SIR_SOUTH 2u
#define SIR_WEST  3u

/* The parameter block (buffer p of the kernels): 32-bit words only, so
 * that the host compiler, OpenCL and CUDA lay it out alike. */
typedef struct sir_params {
	weft_u32 width, height;
	weft_u32 cells;	      /* width * height, at most 2^30 */
	weft_u32 seed_lo;     /* [simulation] seed, low ... */
	weft_u32 seed_hi;     /* ... and high word */
	weft_u32 beta_thr;    /* beta as a 32-bit threshold (sir_chance) */
	weft_u32 recovery;    /* steps a cell stays infectious */
	weft_u32 every;	      /* a row of the series every this many */
	weft_u32 last_step;   /* steps, and one after the last step */
	weft_u32 n_rows;      /* rows the series holds (row 0: step 0) */
	weft_u32 reserved[2]; /* 48 bytes */
} sir_params;

/* The control block (buffer ctl), one word each. It lives on the device:
 * the step counter that keys the draws and picks the half of the grid to
 * read, and the counts, so no step ever waits for the host. */
#define SIR_CTL_STEP  0 /* steps done */
#define SIR_CTL_S     1 /* cells susceptible, */
#define SIR_CTL_I     2 /* infected */
#define SIR_CTL_R     3 /* and recovered after the last step */
#define SIR_CTL_NEW_I 4 /* infections of the step under way (atomic adds) */
#define SIR_CTL_NEW_R 5 /* recoveries of the step under way (atomic adds) */
#define SIR_CTL_ROW   6 /* the next row of the series */
#define SIR_CTL_WORDS 8

/* A row of the series: what one line of sir.csv says. */
#define SIR_ROW_STEP  0
#define SIR_ROW_S     1
#define SIR_ROW_I     2
#define SIR_ROW_R     3
#define SIR_ROW_WORDS 4

/* A chance decided by a draw: p = thr / 2^32, and the largest threshold
 * means certain (so that beta = 1 never misses). An integer comparison: no
 * floating point decides anything, on any device. */
WEFT_FN int sir_chance(weft_u32 draw, weft_u32 thr)
{
	return thr == 0xFFFFFFFFu || draw < thr;
}

/* Where initial infection k goes at its attempt-th try: a cell uniform over
 * the grid (the high word of draw * cells), keyed by (seed; k, attempt).
 * The host tries again, attempt + 1, when the cell is already infected. */
WEFT_FN weft_u32 sir_seed_cell(weft_u32 seed_lo, weft_u32 seed_hi, weft_u32 k,
			       weft_u32 attempt, weft_u32 cells)
{
	weft_rand4 r =
		weft_philox(seed_lo, seed_hi, k, attempt, 0u, SIR_PURPOSE_SEED);

	return WEFT_MULHI32(r.v[0], cells);
}

#endif /* SIR_SHARED_H */
