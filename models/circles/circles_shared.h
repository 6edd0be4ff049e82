/*
 * circles_shared.h - what the circles model's kernels (circles.wk) and its
 * host code (circles.c) share: the parameter block (whose first words are
 * the space kit's, weft/space.wk), the control block, the rows of the
 * series and the draw of the initial positions. Written in the kernel
 * dialect: circles.c compiles it after <weft/kernel_host.h>, so the host
 * places the agents with the same function a kernel would use.
 */
#ifndef CIRCLES_SHARED_H
#define CIRCLES_SHARED_H

/* The parameter block (buffer p): the space's 16 words
 * (weft_space_params), then the model's. 32-bit words only. */
typedef struct circles_params {
	weft_u32 space[16]; /* WEFT_SPACE_P_*: the binning */
	weft_u32 agents;    /* N */
	weft_u32 dims;	    /* 2 or 3 */
	weft_u32 radius;    /* f32 bits: RADIUS */
	weft_u32 repulse;   /* f32 bits: REPULSE */
	weft_u32 env_max;   /* f32 bits: ENV_MAX */
	weft_u32 seed_lo, seed_hi;
	weft_u32 every;	    /* a row of the series every this many steps */
	weft_u32 last_step; /* and one at the last step */
	weft_u32 n_rows;    /* rows the series holds */
	weft_u32 near_d2;   /* f32 bits: least d2 with sqrtf(d2) >= RADIUS */
	weft_u32 reserved;
} circles_params;

/* The control block (buffer ctl), one word each. */
#define CIRCLES_CTL_STEP   0 /* steps done */
#define CIRCLES_CTL_COUNT  1 /* agents (the space kit's device-side count) */
#define CIRCLES_CTL_ROW	   2 /* the next row of the series */
#define CIRCLES_CTL_CHUNKS 3 /* chunks of CIRCLES_CHUNK agents (capacity) */
#define CIRCLES_CTL_WORDS  4

/* Agents per chunk of the step's partial sums (circles_chunks). */
#define CIRCLES_CHUNK 512u

/* The step's totals (buffer tot): u64 elements 0 and 1, f32 element 4. */
#define CIRCLES_TOT_NEAR  0u /* u64: neighbours within the radius */
#define CIRCLES_TOT_CAND  1u /* u64: candidates read (messages) */
#define CIRCLES_TOT_DRIFT 4u /* f32: total drift (blocks' fixed order) */
#define CIRCLES_TOT_BYTES 32u

/* A row of the series: one line of circles.csv. */
#define CIRCLES_ROW_STEP    0
#define CIRCLES_ROW_DRIFT   1 /* f32 bits */
#define CIRCLES_ROW_NEAR_LO 2
#define CIRCLES_ROW_NEAR_HI 3
#define CIRCLES_ROW_CAND_LO 4
#define CIRCLES_ROW_CAND_HI 5
#define CIRCLES_ROW_WORDS   8

#define CIRCLES_PURPOSE_PLACE 1u /* (agent, 0, 0): its x, y, z */

/* Coordinate `axis` (0, 1, 2) of agent `id` at step 0: uniform in [0,
 * ENV_MAX): word `axis` of the draw keyed by (seed; id, 0, 0, PLACE), its
 * top 24 bits as u = (w >> 8) 2^-24 (exact in f32), times ENV_MAX rounded
 * to f32; a product that rounds up to ENV_MAX becomes 0. */
WEFT_FN weft_f32 circles_place(weft_u32 seed_lo, weft_u32 seed_hi, weft_u32 id,
			       weft_u32 axis, weft_f32 env_max)
{
	weft_rand4 r = weft_philox(seed_lo, seed_hi, id, 0u, 0u,
				   CIRCLES_PURPOSE_PLACE);
	weft_f32 u = (weft_f32)(r.v[axis] >> 8) * 5.9604644775390625e-8f;
	weft_f32 x = u * env_max;

	return x < env_max ? x : 0.0f;
}

#endif /* CIRCLES_SHARED_H */
