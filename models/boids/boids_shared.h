/*
 * boids_shared.h - what the boids model's kernels (boids.wk) and its host
 * code (boids.c) share: the parameter block, the control block, the rows
 * of the series, the purposes of the random draws and the initial state of
 * an agent. Written in the kernel dialect: weft-wk inlines it into the
 * program text, and boids.c compiles it after <weft/kernel_host.h>, so the
 * host computes the initial population with the same f32 operations a
 * device would.
 */
#ifndef BOIDS_SHARED_H
#define BOIDS_SHARED_H

/* Purposes: the last counter word of a draw, one per kind of draw. */
#define BOIDS_PURPOSE_POSITION 1u /* (id, 0, 0): x, y, z */
#define BOIDS_PURPOSE_VELOCITY 2u /* (id, 0, 0): fx, fy, fz, speed */

/* FLAME GPU 2's constants that its boids_spatial3D example writes into
 * the agent function rather than the environment. */
#define BOIDS_MIN_SPEED	     0.5f
#define BOIDS_MAX_SPEED	     1.0f /* FLAME: `if (agent_fscale > 1)` */
#define BOIDS_WALL_DISTANCE  0.10f
#define BOIDS_WALL_STRENGTH  0.05f
#define BOIDS_MIN_INIT_SPEED 0.1f
#define BOIDS_MAX_INIT_SPEED 1.0f

/* The parameter block (buffer p): 32-bit words only; floats as their
 * bits (weft_u32_as_f32), so that every compiler lays it out alike. */
typedef struct boids_params {
	weft_u32 agents;
	weft_u32 dims;		/* 2 or 3 */
	weft_u32 wrap;		/* 1: a torus; 0: walls (FLAME GPU 2's) */
	weft_u32 seed_lo;	/* [simulation] seed, low ... */
	weft_u32 seed_hi;	/* ... and high word */
	weft_u32 lo;		/* f32: the box's least coordinate */
	weft_u32 hi;		/* f32: its greatest (every axis) */
	weft_u32 width;		/* f32: hi - lo */
	weft_u32 half_width;	/* f32: width / 2 (minimum images) */
	weft_u32 radius;	/* f32: INTERACTION_RADIUS */
	weft_u32 separation;	/* f32: SEPARATION_RADIUS */
	weft_u32 time_scale;	/* f32: TIME_SCALE */
	weft_u32 global_scale;	/* f32: GLOBAL_SCALE */
	weft_u32 steer;		/* f32: STEER_SCALE */
	weft_u32 collision;	/* f32: COLLISION_SCALE */
	weft_u32 match;		/* f32: MATCH_SCALE */
	weft_u32 every;		/* a row of the series every this many steps */
	weft_u32 last_step;	/* [simulation] steps */
	weft_u32 n_rows;	/* rows the series holds */
	weft_u32 radius_sq;	/* f32: the least q with sqrt(q) >= radius */
	weft_u32 separation_sq; /* f32: the same for separation */
	weft_u32 rules;		/* BOIDS_RULES_FLAME or BOIDS_RULES_AGENTSJL */
	/* rules = agentsjl (Agents.jl's flocking example) only; radius is
	 * its visual_distance, radius_sq then the least q with sqrt(q) >
	 * radius, and separation_sq separation * separation (f32). */
	weft_u32 speed;		  /* f32: distance moved per step */
	weft_u32 cohere_factor;	  /* f32 */
	weft_u32 separate_factor; /* f32 */
	weft_u32 match_factor;	  /* f32 */
	weft_u32 reserved[2];	  /* 112 bytes */
} boids_params;

/* [boids] rules. */
#define BOIDS_RULES_FLAME    0u /* FLAME GPU 2's boids_spatial3D */
#define BOIDS_RULES_AGENTSJL 1u /* Agents.jl's flocking example */

/* The control block (buffer ctl), u32 words on the device. */
#define BOIDS_CTL_STEP	  0 /* steps done */
#define BOIDS_CTL_N	  1 /* live agents: the space's device-side count */
#define BOIDS_CTL_ROW	  2 /* the next row of the series */
#define BOIDS_CTL_NB_LO	  3 /* in-radius neighbours summed over the run */
#define BOIDS_CTL_NB_HI	  4
#define BOIDS_CTL_READ_LO 5 /* neighbour messages read over the run */
#define BOIDS_CTL_READ_HI 6
#define BOIDS_CTL_WORDS	  8

/* The step's sums (buffer sums), written by weft/blocks.h's reductions:
 * f32 elements 0-3, u64 elements 2-3 (bytes 16-31). */
#define BOIDS_SUM_SPEED 0 /* f32: the agents' speeds */
#define BOIDS_SUM_FX	1 /* f32: their velocities, per axis */
#define BOIDS_SUM_FY	2
#define BOIDS_SUM_FZ	3
#define BOIDS_SUM_NB	2 /* u64: in-radius neighbours, over the agents */
#define BOIDS_SUM_READ	3 /* u64: neighbour messages read */
#define BOIDS_SUM_WORDS 8

/* A row of the series (one line of boids.csv), u32 words. */
#define BOIDS_ROW_STEP	  0
#define BOIDS_ROW_AGENTS  1
#define BOIDS_ROW_SPEED	  2 /* f32 bits: the sums above */
#define BOIDS_ROW_FX	  3
#define BOIDS_ROW_FY	  4
#define BOIDS_ROW_FZ	  5
#define BOIDS_ROW_NB_LO	  6 /* u64: neighbours in the radius */
#define BOIDS_ROW_NB_HI	  7
#define BOIDS_ROW_READ_LO 8 /* u64: messages read */
#define BOIDS_ROW_READ_HI 9
#define BOIDS_ROW_WORDS	  10

/* A 32-bit draw as an f32 uniform in [0, 1): its high 24 bits times
 * 2^-24, exact. */
WEFT_FN weft_f32 boids_unit(weft_u32 draw)
{
	return (weft_f32)(draw >> 8) * 5.9604644775390625e-8f;
}

/* The state of agent `id` at step 0, as FLAME GPU 2's boids_spatial3D
 * generates it, with counter-based draws in place of its mt19937_64:
 * each coordinate uniform in [lo, hi) (std::uniform_real_distribution's
 * a + (b - a) u), a direction of three components uniform in [-1, 1),
 * normalised, times a speed uniform in [0.1, 1). Draws keyed by (seed;
 * id, 0, 0, purpose): position words 0-2 are x, y, z; velocity words 0-2
 * fx, fy, fz and word 3 the speed. In 2-D, z and fz are 0 and words 2
 * are unused. A direction of length 0 (probability 2^-48 in 2-D) is
 * taken as (1, 0, 0), where FLAME would divide by 0. */
WEFT_FN void boids_init_agent(weft_u32 seed_lo, weft_u32 seed_hi, weft_u32 dims,
			      weft_f32 lo, weft_f32 hi, weft_u32 id,
			      weft_f32 *s)
{
	weft_rand4 p = weft_philox(seed_lo, seed_hi, id, 0u, 0u,
				   BOIDS_PURPOSE_POSITION);
	weft_rand4 v = weft_philox(seed_lo, seed_hi, id, 0u, 0u,
				   BOIDS_PURPOSE_VELOCITY);
	weft_f32 fx, fy, fz = 0.0f, len, mag;

	s[0] = lo + (hi - lo) * boids_unit(p.v[0]);
	s[1] = lo + (hi - lo) * boids_unit(p.v[1]);
	s[2] = dims == 3u ? lo + (hi - lo) * boids_unit(p.v[2]) : 0.0f;
	fx = -1.0f + (1.0f - -1.0f) * boids_unit(v.v[0]);
	fy = -1.0f + (1.0f - -1.0f) * boids_unit(v.v[1]);
	if (dims == 3u)
		fz = -1.0f + (1.0f - -1.0f) * boids_unit(v.v[2]);
	mag = BOIDS_MIN_INIT_SPEED +
	      (BOIDS_MAX_INIT_SPEED - BOIDS_MIN_INIT_SPEED) *
		      boids_unit(v.v[3]);
	len = WEFT_SQRT_F32(fx * fx + fy * fy + fz * fz);
	if (len == 0.0f) {
		fx = 1.0f;
		len = 1.0f;
	}
	fx = fx / len;
	fy = fy / len;
	fz = fz / len;
	s[3] = fx * mag;
	s[4] = fy * mag;
	s[5] = fz * mag;
}

/* The state of agent `id` at step 0 as Agents.jl's flocking example
 * generates it (rules = agentsjl), with the same counter-based draws as
 * boids_init_agent: each coordinate uniform in [lo, hi) (its
 * random_position in a box of [0, extent)), each velocity component
 * `rand() * 2 - 1`, uniform in [-1, 1), not normalised (the first step
 * normalises it). Position words 0-2 are x, y, z; velocity words 0-2 fx,
 * fy, fz (word 3 unused); in 2-D, z and fz are 0. */
WEFT_FN void boids_init_agent_ajl(weft_u32 seed_lo, weft_u32 seed_hi,
				  weft_u32 dims, weft_f32 lo, weft_f32 hi,
				  weft_u32 id, weft_f32 *s)
{
	weft_rand4 p = weft_philox(seed_lo, seed_hi, id, 0u, 0u,
				   BOIDS_PURPOSE_POSITION);
	weft_rand4 v = weft_philox(seed_lo, seed_hi, id, 0u, 0u,
				   BOIDS_PURPOSE_VELOCITY);

	s[0] = lo + (hi - lo) * boids_unit(p.v[0]);
	s[1] = lo + (hi - lo) * boids_unit(p.v[1]);
	s[2] = dims == 3u ? lo + (hi - lo) * boids_unit(p.v[2]) : 0.0f;
	s[3] = boids_unit(v.v[0]) * 2.0f - 1.0f;
	s[4] = boids_unit(v.v[1]) * 2.0f - 1.0f;
	s[5] = dims == 3u ? boids_unit(v.v[2]) * 2.0f - 1.0f : 0.0f;
}

#endif /* BOIDS_SHARED_H */
