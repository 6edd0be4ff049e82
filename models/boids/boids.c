/*
 * boids.c - the boids model's host code: the plugin weft-model-boids.so
 * (models/boids/boids.md).
 *
 * Reynolds flocking as FLAME GPU 2's boids_spatial3D example defines it
 * (separation, cohesion, alignment within an interaction radius; speeds
 * kept in [0.5, 1]; walls that steer and clamp), in 3-D or 2-D, with a
 * torus as an option; or, with [boids] rules = agentsjl, as Agents.jl's
 * flocking example defines it (a torus, unit velocities, one step of
 * `speed`; boids.wk's boids_ajl_step). The neighbours come from weft's
 * continuous space kit (weft/space.h, weft/space.wk): agents are binned
 * by cell each step and kept in bin order; the kernels are in boids.wk.
 *
 * Outputs: boids.csv (mean speed, mean neighbours within the radius,
 * order parameter and messages read per agent, every [output] every
 * steps), the summary, and with [boids] dump = true boids-agents.csv:
 * every agent's position as the last step read it and its neighbour
 * count, for bench/boids-bruteforce.sh's O(N^2) check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/model.h>
#include <weft/space.h>

#include "boids_kernels.h"
#include "boids_shared.h"

#define BOIDS_VERSION "1.0"

/* Rows one output chunk may add (a chunk ends at the next multiple of
 * [output] every or at the last step: one row; two for safety). */
#define BOIDS_SNAP_ROWS 2u
#define BOIDS_MAX_ROWS	(1u << 26)
/* FLAME GPU 2's density: 4000 agents in the unit box. */
#define BOIDS_FLAME_AGENTS 4000.0

/* Agents.jl's flocking example's defaults (rules = agentsjl), for the
 * keys the two rule sets share: they replace FLAME's defaults there. */
#define BOIDS_AJL_AGENTS     100   /* n_birds */
#define BOIDS_AJL_BOX	     100.0 /* extent = (100, 100) */
#define BOIDS_AJL_RADIUS     5.0   /* visual_distance */
#define BOIDS_AJL_SEPARATION 2.0   /* separation */
/* Agents.jl's density: 100 birds per 100 x 100, 0.01 per unit area. */
#define BOIDS_AJL_DENSITY 0.01

/* [boids]: FLAME GPU 2's environment properties, with its values, and
 * Agents.jl's flocking example's parameters (rules = agentsjl). */
static const weft_key_desc boids_keys[] = {
	{ "rules", WEFT_KEY_ENUM, "flame", 0, 0, "flame|agentsjl",
	  "the flocking rules: flame, FLAME GPU 2's boids_spatial3D; "
	  "agentsjl, Agents.jl's flocking example (a torus; speed, "
	  "cohere_factor, separate_factor, match_factor; agents, dims, box, "
	  "boundary, radius and separation default to its values: 100, 2, "
	  "100, wrap, 5, 2)" },
	{ "agents", WEFT_KEY_INT, "4000", 1, 100000000, NULL,
	  "number of boids (FLAME GPU 2's POPULATION_TO_GENERATE; 100, "
	  "Agents.jl's n_birds, when unset with rules = agentsjl)" },
	{ "dims", WEFT_KEY_ENUM, "3", 0, 0, "2|3",
	  "dimensions of the space: 3 as FLAME GPU 2's boids_spatial3D, or "
	  "2 (z and its velocity stay 0); 2 when unset with rules = "
	  "agentsjl" },
	{ "box", WEFT_KEY_REAL, "1", 0, 1e6, NULL,
	  "side of the box, centred on 0 (FLAME: MIN_POSITION -0.5 to "
	  "MAX_POSITION 0.5); 0 keeps FLAME's density of 4000 agents per unit "
	  "volume (area in 2-D): side (agents / 4000)^(1/dims). With rules = "
	  "agentsjl the box is [0, box) per axis, 100 when unset (extent), "
	  "and 0 keeps Agents.jl's density of 0.01 per unit area (volume): "
	  "side (100 agents)^(1/dims)" },
	{ "boundary", WEFT_KEY_ENUM, "walls", 0, 0, "walls|wrap",
	  "walls: FLAME GPU 2's, boids steer away within 0.1 and positions "
	  "are clamped; wrap: a torus, with minimum-image distances (rules "
	  "= agentsjl: wrap when unset, walls refused)" },
	{ "radius", WEFT_KEY_REAL, "0.05", 1e-6, 1e6, NULL,
	  "interaction radius (INTERACTION_RADIUS): neighbours closer than "
	  "this are seen; with rules = agentsjl, visual_distance (5 when "
	  "unset): neighbours at most this far are seen" },
	{ "separation", WEFT_KEY_REAL, "0.01", 0, 1e6, NULL,
	  "separation radius (SEPARATION_RADIUS): neighbours closer than this "
	  "repel (rules = agentsjl: Agents.jl's separation, 2 when unset)" },
	{ "time_scale", WEFT_KEY_REAL, "0.0005", 0, 1e6, NULL,
	  "distance moved per step per unit of speed (TIME_SCALE)" },
	{ "global_scale", WEFT_KEY_REAL, "0.15", 0, 1e6, NULL,
	  "scale of the whole velocity change of a step (GLOBAL_SCALE)" },
	{ "steer_scale", WEFT_KEY_REAL, "0.055", 0, 1e6, NULL,
	  "weight of cohesion, the steer towards the neighbours' centre "
	  "(STEER_SCALE)" },
	{ "collision_scale", WEFT_KEY_REAL, "10", 0, 1e6, NULL,
	  "weight of separation from neighbours within the separation radius "
	  "(COLLISION_SCALE)" },
	{ "match_scale", WEFT_KEY_REAL, "0.015", 0, 1e6, NULL,
	  "weight of alignment with the neighbours' mean velocity "
	  "(MATCH_SCALE)" },
	{ "speed", WEFT_KEY_REAL, "1", 0, 1e6, NULL,
	  "rules = agentsjl only: distance moved per step (Agents.jl's "
	  "speed; the velocity is normalised to length 1 each step)" },
	{ "cohere_factor", WEFT_KEY_REAL, "0.1", 0, 1e6, NULL,
	  "rules = agentsjl only: weight of cohesion, the sum of the headings "
	  "to the neighbours (Agents.jl's cohere_factor)" },
	{ "separate_factor", WEFT_KEY_REAL, "0.25", 0, 1e6, NULL,
	  "rules = agentsjl only: weight of separation, minus the sum of the "
	  "headings to the neighbours closer than separation (Agents.jl's "
	  "separate_factor)" },
	{ "match_factor", WEFT_KEY_REAL, "0.04", 0, 1e6, NULL,
	  "rules = agentsjl only: weight of alignment, the sum of the "
	  "neighbours' velocities (Agents.jl's match_factor)" },
	{ "dump", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "write boids-agents.csv after the last step: every agent's position "
	  "as that step read it and its neighbours in the radius (for the "
	  "brute-force check)" },
};

/* The agents' fields, nxt_* (state after a step, by slot). */
enum { BOIDS_X, BOIDS_Y, BOIDS_Z, BOIDS_FX, BOIDS_FY, BOIDS_FZ, BOIDS_NF };

typedef struct boids_state {
	boids_params params;
	weft_space_desc desc;
	uint32_t n_cells;
	uint64_t n_rows;
	weft_buf *p, *space, *ctl, *sums, *series, *scratch;
	weft_buf *nxt[BOIDS_NF], *nxt_id, *cur, *cur_id;
	weft_buf *nb, *rd, *speed;
	weft_space_bins bins; /* keys, starts, cursor, perm */
	uint32_t *host;	      /* the rows read back, as series */
	weft_model_rows *rows;
	weft_output *csv;
} boids_state;

/* The least f32 q >= 0 whose correctly rounded square root is at least
 * r (+inf when none is): for q >= 0, sqrtf(q) < r exactly when q < it,
 * since sqrtf is monotone. A search over the bits of the non-negative
 * floats, which order as their bits do. */
static float boids_sq_threshold(float r)
{
	uint32_t lo = 0, hi = 0x7f800000u; /* +inf: sqrtf(inf) >= r */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sqrtf(weft_u32_as_f32(mid)) >= r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return weft_u32_as_f32(lo);
}

/* The least f32 q >= 0 whose correctly rounded square root is above r:
 * sqrtf(q) <= r exactly when q < it (Agents.jl's nearby_agents takes the
 * neighbours at a distance of at most the radius). */
static float boids_sq_threshold_above(float r)
{
	uint32_t lo = 0, hi = 0x7f800000u;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sqrtf(weft_u32_as_f32(mid)) > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return weft_u32_as_f32(lo);
}

/* ---- parameters --------------------------------------------------------- */

/* Whether [boids] key was left at its default. */
static int boids_unset(weft_model_ctx *mc, const char *key)
{
	const char *w = weft_model_where(mc, key);

	return !w || !strcmp(w, "default");
}

/* A real key under the rules: Agents.jl's default ajl in place of FLAME's
 * when rules = agentsjl and the key is unset. */
static double boids_real(weft_model_ctx *mc, uint32_t rules, const char *key,
			 double ajl)
{
	if (rules == BOIDS_RULES_AGENTSJL && boids_unset(mc, key))
		return ajl;
	return weft_model_real(mc, key);
}

/* The side of the box: [boids] box, or when it is 0 FLAME's density
 * (Agents.jl's with rules = agentsjl). */
static double boids_side(weft_model_ctx *mc, uint32_t rules, uint32_t agents,
			 uint32_t dims)
{
	double box = boids_real(mc, rules, "box", BOIDS_AJL_BOX);

	if (box > 0)
		return box;
	if (rules == BOIDS_RULES_AGENTSJL)
		return pow(agents / BOIDS_AJL_DENSITY, 1.0 / dims);
	return pow(agents / BOIDS_FLAME_AGENTS, 1.0 / dims);
}

/* Keys of one rule set set with the other: refused, naming both. */
static weft_status boids_foreign_keys(weft_model_ctx *mc, uint32_t rules)
{
	static const char *const flame[] = { "time_scale", "global_scale",
					     "steer_scale", "collision_scale",
					     "match_scale" };
	static const char *const ajl[] = { "speed", "cohere_factor",
					   "separate_factor", "match_factor" };
	int is_ajl = rules == BOIDS_RULES_AGENTSJL;
	const char *const *k = is_ajl ? flame : ajl;
	size_t n = is_ajl ? sizeof flame / sizeof flame[0]
			  : sizeof ajl / sizeof ajl[0];

	for (size_t i = 0; i < n; i++)
		if (!boids_unset(mc, k[i]))
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[boids] %s (%s) applies to rules = %s only, "
				"and rules is %s (%s): remove %s or change "
				"rules",
				k[i], weft_model_where(mc, k[i]),
				is_ajl ? "flame" : "agentsjl",
				is_ajl ? "agentsjl" : "flame",
				weft_model_where(mc, "rules"), k[i]);
	if (is_ajl && !strcmp(weft_model_string(mc, "boundary"), "walls") &&
	    !boids_unset(mc, "boundary"))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[boids] boundary = walls (%s) with rules = agentsjl "
			"(%s): Agents.jl's flocking example has no walls, "
			"only a torus: use boundary = wrap",
			weft_model_where(mc, "boundary"),
			weft_model_where(mc, "rules"));
	return WEFT_OK;
}

/* A torus narrower than two radii: the minimum image would see only one
 * image of a neighbour with two within the radius (and, below one radius,
 * would miss the agent's own image), so it is refused, naming the keys
 * that set the box and the radius and the smallest side allowed. */
static weft_status boids_small_torus(weft_model_ctx *mc, const boids_params *p,
				     float side)
{
	double r = weft_u32_as_f32(p->radius);
	double boxv = boids_real(mc, p->rules, "box", BOIDS_AJL_BOX);
	char box[160];

	if (boxv > 0)
		snprintf(box, sizeof box, "[boids] box = %g (%s)", boxv,
			 weft_model_where(mc, "box"));
	else
		snprintf(box, sizeof box,
			 "[boids] box = 0 (%s) with agents = %u (%s), a "
			 "side of %g,",
			 weft_model_where(mc, "box"), p->agents,
			 weft_model_where(mc, "agents"), (double)side);
	return weft_model_fail(
		mc, WEFT_E_CONFIG,
		"%s with boundary = wrap (%s) and radius = %g (%s): a torus "
		"must be at least two radii wide, a side of %g or more: raise "
		"[boids] box or lower radius",
		box, weft_model_where(mc, "boundary"), r,
		weft_model_where(mc, "radius"), 2.0 * r);
}

/* The parameter block and the space's description from [boids],
 * [simulation] and [output]; what does not fit together is refused with
 * the keys that say so. */
static weft_status boids_read_params(weft_model_ctx *mc, boids_state *s)
{
	boids_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);
	uint64_t steps = weft_model_steps(mc);
	uint64_t every = weft_model_output_every(mc);
	uint32_t words[WEFT_SPACE_P_WORDS];
	float side, lo, hi, r, sep;
	const char *why;
	weft_status st;
	int ajl;

	memset(p, 0, sizeof *p);
	p->rules = strcmp(weft_model_string(mc, "rules"), "agentsjl")
			   ? BOIDS_RULES_FLAME
			   : BOIDS_RULES_AGENTSJL;
	ajl = p->rules == BOIDS_RULES_AGENTSJL;
	if ((st = boids_foreign_keys(mc, p->rules)))
		return st;
	p->agents = ajl && boids_unset(mc, "agents")
			    ? BOIDS_AJL_AGENTS
			    : (uint32_t)weft_model_int(mc, "agents");
	p->dims = (ajl && boids_unset(mc, "dims")) ||
				  !strcmp(weft_model_string(mc, "dims"), "2")
			  ? 2u
			  : 3u;
	p->wrap = ajl || !strcmp(weft_model_string(mc, "boundary"), "wrap");
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	side = (float)boids_side(mc, p->rules, p->agents, p->dims);
	lo = ajl ? 0.0f : -side / 2; /* Agents.jl's box is [0, extent) */
	hi = ajl ? side : side / 2;
	p->lo = weft_f32_as_u32(lo);
	p->hi = weft_f32_as_u32(hi);
	p->width = weft_f32_as_u32(hi - lo);
	p->half_width = weft_f32_as_u32((hi - lo) * 0.5f);
	r = (float)boids_real(mc, p->rules, "radius", BOIDS_AJL_RADIUS);
	sep = (float)boids_real(mc, p->rules, "separation",
				BOIDS_AJL_SEPARATION);
	p->radius = weft_f32_as_u32(r);
	p->separation = weft_f32_as_u32(sep);
	p->radius_sq = weft_f32_as_u32(ajl ? boids_sq_threshold_above(r)
					   : boids_sq_threshold(r));
	p->separation_sq =
		weft_f32_as_u32(ajl ? sep * sep : boids_sq_threshold(sep));
	if (ajl) {
		p->speed = weft_f32_as_u32((float)weft_model_real(mc, "speed"));
		p->cohere_factor = weft_f32_as_u32(
			(float)weft_model_real(mc, "cohere_factor"));
		p->separate_factor = weft_f32_as_u32(
			(float)weft_model_real(mc, "separate_factor"));
		p->match_factor = weft_f32_as_u32(
			(float)weft_model_real(mc, "match_factor"));
	}
	p->time_scale =
		weft_f32_as_u32((float)weft_model_real(mc, "time_scale"));
	p->global_scale =
		weft_f32_as_u32((float)weft_model_real(mc, "global_scale"));
	p->steer = weft_f32_as_u32((float)weft_model_real(mc, "steer_scale"));
	p->collision =
		weft_f32_as_u32((float)weft_model_real(mc, "collision_scale"));
	p->match = weft_f32_as_u32((float)weft_model_real(mc, "match_scale"));
	p->every = (uint32_t)every;
	p->last_step = (uint32_t)steps;
	s->n_rows = steps / every + (steps % every != 0);
	p->n_rows = (uint32_t)s->n_rows;
	s->desc = (weft_space_desc){ .dims = p->dims,
				     .wrap = (int)p->wrap,
				     .min = { lo, lo, lo },
				     .max = { hi, hi, hi },
				     .radius = ajl ? nextafterf(r, INFINITY)
						   : r };
	if (!(hi > lo))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[boids] box = %g (%s) makes an empty "
			"box in f32",
			boids_real(mc, p->rules, "box", BOIDS_AJL_BOX),
			weft_model_where(mc, "box"));
	if (p->wrap && hi - lo < 2.0f * weft_u32_as_f32(p->radius))
		return boids_small_torus(mc, p, side);
	why = weft_space_params(&s->desc, words, &s->n_cells);
	if (why)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[boids] radius = %g (%s) in a box of "
				       "side %g: %s",
				       (double)r,
				       weft_model_where(mc, "radius"),
				       (double)side, why);
	if (s->n_rows > BOIDS_MAX_ROWS)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[simulation] steps = %llu with a row every %llu "
			"steps ([output] every) make %llu rows of boids.csv, "
			"more than %u: raise [output] every",
			(unsigned long long)steps, (unsigned long long)every,
			(unsigned long long)s->n_rows, BOIDS_MAX_ROWS);
	return WEFT_OK;
}

static weft_status boids_check(weft_model_ctx *mc)
{
	boids_state s;

	memset(&s, 0, sizeof s);
	return boids_read_params(mc, &s);
}

/* Device bytes per agent: 6 f32 fields twice, ids twice, keys, perm,
 * neighbours, messages read, speed. */
#define BOIDS_AGENT_BYTES (4u * (2u * BOIDS_NF + 2u + 5u))

static size_t boids_scratch_bytes(const boids_state *s)
{
	size_t a = weft_blocks_scratch_bytes(s->params.agents);
	size_t b = weft_space_scan_scratch_bytes(s->n_cells);

	return a > b ? a : b;
}

static weft_status boids_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	boids_state s;
	uint64_t n, rows;
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = boids_read_params(mc, &s)))
		return st;
	n = s.params.agents;
	rows = 4ull * BOIDS_ROW_WORDS * (s.n_rows ? s.n_rows : 1);
	/* Host: the upload's copy of the fields and its buffer of zeros
	 * (setup() frees both); device: every per-agent buffer. */
	if ((st = weft_model_estimate_add(est, "the agents", "[boids] agents",
					  2ull * 4 * BOIDS_NF * n,
					  BOIDS_AGENT_BYTES * n)) ||
	    (st = weft_model_estimate_add(
		     est, "the cells", "[boids] radius, box, dims",
		     weft_space_starts_bytes(s.n_cells),
		     2 * weft_space_starts_bytes(s.n_cells) +
			     boids_scratch_bytes(&s))))
		return st;
	return weft_model_estimate_add(
		est, "the rows", "[simulation] steps, [output] every", rows,
		rows + weft_model_rows_bytes(mc, 4 * BOIDS_ROW_WORDS,
					     BOIDS_SNAP_ROWS));
}

/* ---- buffers --------------------------------------------------------------
 */

static weft_status boids_alloc_all(weft_model_ctx *mc, boids_state *s)
{
	static const char *const names[BOIDS_NF] = { "x",  "y",	 "z",
						     "fx", "fy", "fz" };
	size_t n4 = 4 * (size_t)s->params.agents;
	size_t starts = weft_space_starts_bytes(s->n_cells);
	weft_status st;

	s->host = calloc(s->n_rows ? s->n_rows : 1, 4 * BOIDS_ROW_WORDS);
	if (!s->host)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the host copy of %llu "
				       "rows",
				       (unsigned long long)s->n_rows);
	for (int f = 0; f < BOIDS_NF; f++)
		if ((st = weft_model_alloc(mc, names[f], n4, &s->nxt[f])))
			return st;
	if ((st = weft_model_alloc(mc, "params", sizeof s->params, &s->p)) ||
	    (st = weft_model_alloc(mc, "space", WEFT_SPACE_PARAM_BYTES,
				   &s->space)) ||
	    (st = weft_model_alloc(mc, "ctl", 4 * BOIDS_CTL_WORDS, &s->ctl)) ||
	    (st = weft_model_alloc(mc, "sums", 4 * BOIDS_SUM_WORDS,
				   &s->sums)) ||
	    (st = weft_model_alloc(mc, "series",
				   4 * BOIDS_ROW_WORDS *
					   (size_t)(s->n_rows ? s->n_rows : 1),
				   &s->series)) ||
	    (st = weft_model_alloc(mc, "scratch", boids_scratch_bytes(s),
				   &s->scratch)) ||
	    (st = weft_model_alloc(mc, "id", n4, &s->nxt_id)) ||
	    (st = weft_model_alloc(mc, "binned", BOIDS_NF * n4, &s->cur)) ||
	    (st = weft_model_alloc(mc, "binned_id", n4, &s->cur_id)) ||
	    (st = weft_model_alloc(mc, "neighbours", n4, &s->nb)) ||
	    (st = weft_model_alloc(mc, "read", n4, &s->rd)) ||
	    (st = weft_model_alloc(mc, "speed", n4, &s->speed)) ||
	    (st = weft_model_alloc(mc, "keys", n4, &s->bins.keys)) ||
	    (st = weft_model_alloc(mc, "perm", n4, &s->bins.perm)) ||
	    (st = weft_model_alloc(mc, "starts", starts, &s->bins.starts)))
		return st;
	return weft_model_alloc(mc, "cursor", starts, &s->bins.cursor);
}

/* The most bytes of zeros setup uploads at once. */
#define BOIDS_ZERO_BYTES ((size_t)1 << 20)

/* A block of zeros and its size (at most BOIDS_ZERO_BYTES, and no more
 * than the fields' upload, so the estimate's host bytes hold). */
typedef struct boids_zeros {
	const void *z;
	size_t bytes;
} boids_zeros;

/* Zeros into every byte of buf, a block of zeros at a time. */
static weft_status boids_zero(weft_model_ctx *mc, weft_buf *buf, size_t bytes,
			      boids_zeros zeros)
{
	weft_status st = WEFT_OK;

	for (size_t at = 0; at < bytes && !st; at += zeros.bytes)
		st = weft_model_upload(mc, buf, at, zeros.z,
				       bytes - at < zeros.bytes ? bytes - at
								: zeros.bytes);
	return st;
}

/* Every byte of every buffer: the initial population (boids_init_agent,
 * by id, slot = id), the parameter blocks, the control block, zeros. */
static weft_status boids_upload_all(weft_model_ctx *mc, boids_state *s)
{
	const boids_params *p = &s->params;
	uint32_t n = p->agents, words[WEFT_SPACE_P_WORDS], cells;
	uint32_t ctl[BOIDS_CTL_WORDS] = { 0 };
	size_t n4 = 4 * (size_t)n, starts = weft_space_starts_bytes(s->n_cells);
	size_t series;
	float *f;
	uint32_t *id;
	void *z;
	boids_zeros zeros;
	weft_status st = WEFT_OK;

	series = 4 * BOIDS_ROW_WORDS * (size_t)(s->n_rows ? s->n_rows : 1);
	zeros.bytes = BOIDS_NF * n4 < BOIDS_ZERO_BYTES ? BOIDS_NF * n4
						       : BOIDS_ZERO_BYTES;
	f = malloc(BOIDS_NF * n4);
	zeros.z = z = calloc(1, zeros.bytes);
	if (!f || !z) {
		free(f);
		free(z);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the upload",
				       BOIDS_NF * n4 + zeros.bytes);
	}
	for (uint32_t i = 0; i < n; i++) {
		float a[6];

		if (p->rules == BOIDS_RULES_AGENTSJL)
			boids_init_agent_ajl(p->seed_lo, p->seed_hi, p->dims,
					     weft_u32_as_f32(p->lo),
					     weft_u32_as_f32(p->hi), i, a);
		else
			boids_init_agent(p->seed_lo, p->seed_hi, p->dims,
					 weft_u32_as_f32(p->lo),
					 weft_u32_as_f32(p->hi), i, a);
		for (int k = 0; k < BOIDS_NF; k++)
			f[(size_t)k * n + i] = a[k];
	}
	weft_space_params(&s->desc, words, &cells);
	ctl[BOIDS_CTL_N] = n;
	for (int k = 0; k < BOIDS_NF && !st; k++)
		st = weft_model_upload(mc, s->nxt[k], 0, f + (size_t)k * n, n4);
	id = (uint32_t *)f; /* the fields are up: ids in their place */
	for (uint32_t i = 0; i < n; i++)
		id[i] = i;
	if (!st)
		st = weft_model_upload(mc, s->nxt_id, 0, id, n4);
	if (!st && !(st = weft_model_upload(mc, s->p, 0, p, sizeof *p)) &&
	    !(st = weft_model_upload(mc, s->space, 0, words,
				     WEFT_SPACE_PARAM_BYTES)) &&
	    !(st = weft_model_upload(mc, s->ctl, 0, ctl, sizeof ctl)) &&
	    !(st = boids_zero(mc, s->sums, 4 * BOIDS_SUM_WORDS, zeros)) &&
	    !(st = boids_zero(mc, s->series, series, zeros)) &&
	    !(st = boids_zero(mc, s->scratch, boids_scratch_bytes(s), zeros)) &&
	    !(st = boids_zero(mc, s->cur, BOIDS_NF * n4, zeros)) &&
	    !(st = boids_zero(mc, s->cur_id, n4, zeros)) &&
	    !(st = boids_zero(mc, s->nb, n4, zeros)) &&
	    !(st = boids_zero(mc, s->rd, n4, zeros)) &&
	    !(st = boids_zero(mc, s->speed, n4, zeros)) &&
	    !(st = boids_zero(mc, s->bins.keys, n4, zeros)) &&
	    !(st = boids_zero(mc, s->bins.perm, n4, zeros)) &&
	    !(st = boids_zero(mc, s->bins.starts, starts, zeros)))
		st = boids_zero(mc, s->bins.cursor, starts, zeros);
	free(f);
	free(z);
	return st;
}

/* ---- the step ---------------------------------------------------------------
 */

/* A per-agent launch: capacity items, the count read on the device. */
static weft_launch boids_per_agent(weft_launch l, const boids_state *s)
{
	l.extent = s->params.agents;
	l.extent_buf = s->ctl;
	l.extent_offset = 4 * BOIDS_CTL_N;
	return l;
}

/* The most launches a step has: the rebuild without gathers, gather,
 * step, post, six reductions, tick. */
#define BOIDS_MAX_LAUNCHES                    \
	(WEFT_SPACE_REBUILD_LAUNCHES(0) + 3 + \
	 6 * WEFT_BLOCKS_REDUCE_LAUNCHES + 1)

/* The six next-step fields, as the gather and the step kernels both take
 * them (designated initializers of boids_gather_bufs, boids_step_bufs). */
#define BOIDS_NXT_BUFS(x)                                                    \
	.nxt_x = (x)[BOIDS_X], .nxt_y = (x)[BOIDS_Y], .nxt_z = (x)[BOIDS_Z], \
	.nxt_fx = (x)[BOIDS_FX], .nxt_fy = (x)[BOIDS_FY],                    \
	.nxt_fz = (x)[BOIDS_FZ]

static weft_status boids_set_step(weft_model_ctx *mc, boids_state *s)
{
	weft_launch l[BOIDS_MAX_LAUNCHES];
	uint32_t n = 0, cap = s->params.agents;
	weft_buf *const *x = s->nxt;

	s->bins.count = s->ctl;
	s->bins.count_index = BOIDS_CTL_N;
	s->bins.capacity = cap;
	s->bins.n_cells = s->n_cells;
	s->bins.scratch = s->scratch;
	n += weft_space_rebuild(l + n, BOIDS_K_WEFT_SPACE, BOIDS_K_WEFT_BLOCKS,
				s->space, x[BOIDS_X], x[BOIDS_Y],
				s->params.dims == 3 ? x[BOIDS_Z] : NULL,
				&s->bins, NULL, NULL, 0);
	l[n++] = boids_per_agent(
		boids_gather_launch((boids_gather_bufs){ .p = s->p,
							 .perm = s->bins.perm,
							 BOIDS_NXT_BUFS(x),
							 .nxt_id = s->nxt_id,
							 .cur = s->cur,
							 .cur_id = s->cur_id },
				    cap),
		s);
	if (s->params.rules == BOIDS_RULES_AGENTSJL)
		l[n++] = boids_per_agent(
			boids_ajl_step_launch(
				(boids_ajl_step_bufs){ .p = s->p,
						       .space = s->space,
						       .starts = s->bins.starts,
						       .cur = s->cur,
						       BOIDS_NXT_BUFS(x),
						       .nb = s->nb,
						       .rd = s->rd },
				cap),
			s);
	else
		l[n++] = boids_per_agent(
			boids_step_launch(
				(boids_step_bufs){ .p = s->p,
						   .space = s->space,
						   .starts = s->bins.starts,
						   .cur = s->cur,
						   BOIDS_NXT_BUFS(x),
						   .nb = s->nb,
						   .rd = s->rd },
				cap),
			s);
	l[n++] = boids_per_agent(
		boids_post_launch((boids_post_bufs){ .cur_id = s->cur_id,
						     .nxt_fx = x[BOIDS_FX],
						     .nxt_fy = x[BOIDS_FY],
						     .nxt_fz = x[BOIDS_FZ],
						     .nxt_id = s->nxt_id,
						     .speed = s->speed },
				  cap),
		s);
	n += weft_blocks_sum_f32(l + n, BOIDS_K_WEFT_BLOCKS, s->speed, s->ctl,
				 BOIDS_CTL_N, s->scratch, cap, s->sums,
				 BOIDS_SUM_SPEED);
	for (int k = 0; k < 3; k++)
		n += weft_blocks_sum_f32(l + n, BOIDS_K_WEFT_BLOCKS,
					 x[BOIDS_FX + k], s->ctl, BOIDS_CTL_N,
					 s->scratch, cap, s->sums,
					 BOIDS_SUM_FX + (uint32_t)k);
	n += weft_blocks_sum_u32(l + n, BOIDS_K_WEFT_BLOCKS, s->nb, s->ctl,
				 BOIDS_CTL_N, s->scratch, cap, s->sums,
				 BOIDS_SUM_NB);
	n += weft_blocks_sum_u32(l + n, BOIDS_K_WEFT_BLOCKS, s->rd, s->ctl,
				 BOIDS_CTL_N, s->scratch, cap, s->sums,
				 BOIDS_SUM_READ);
	l[n++] = boids_tick_launch((boids_tick_bufs){ .p = s->p,
						      .ctl = s->ctl,
						      .sums = s->sums,
						      .series = s->series },
				   1);
	return weft_model_set_step(mc, l, n);
}

/* Views for applications: the state after the last step, by position
 * (nxt_*, id), and each agent's neighbour count in that step. */
static weft_status boids_add_views(weft_model_ctx *mc, boids_state *s)
{
	static const char *const names[BOIDS_NF] = { "x",  "y",	 "z",
						     "fx", "fy", "fz" };
	int64_t shape[1] = { s->params.agents };
	weft_status st;

	for (int f = 0; f < BOIDS_NF; f++)
		if ((st = weft_model_array(mc, names[f], s->nxt[f], 0,
					   WEFT_DTYPE_F32, 1, shape)))
			return st;
	if ((st = weft_model_array(mc, "id", s->nxt_id, 0, WEFT_DTYPE_U32, 1,
				   shape)))
		return st;
	return weft_model_array(mc, "neighbours", s->nb, 0, WEFT_DTYPE_U32, 1,
				shape);
}

/* What a checkpoint saves: every buffer a step writes. The agents after
 * the last step and the control block are what later steps read; the
 * rest (the bins, the bin-ordered copy, the counts, the sums, scratch) a
 * step rebuilds before reading it, but the core holds every buffer that
 * changes in a step to be declared, and the views read them. The series
 * is declared by weft_model_rows_open(). */
static weft_status boids_declare_state(weft_model_ctx *mc, boids_state *s)
{
	weft_buf *bufs[] = { s->nxt_id,	    s->ctl,	  s->sums,
			     s->scratch,    s->cur,	  s->cur_id,
			     s->nb,	    s->rd,	  s->speed,
			     s->bins.keys,  s->bins.perm, s->bins.starts,
			     s->bins.cursor };
	weft_status st;

	for (int f = 0; f < BOIDS_NF; f++)
		if ((st = weft_model_state(mc, s->nxt[f])))
			return st;
	for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++)
		if ((st = weft_model_state(mc, bufs[k])))
			return st;
	return WEFT_OK;
}

static weft_status boids_setup(weft_model_ctx *mc, void **out)
{
	boids_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	if ((st = boids_read_params(mc, s)) || (st = boids_alloc_all(mc, s)) ||
	    (st = boids_upload_all(mc, s)) || (st = boids_set_step(mc, s)) ||
	    (st = boids_add_views(mc, s)) ||
	    (st = boids_declare_state(mc, s)) ||
	    (st = weft_model_rows_open(mc, s->series, s->host,
				       4 * BOIDS_ROW_WORDS, BOIDS_SNAP_ROWS,
				       &s->rows)))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "boids.csv", &s->csv)))
		return st;
	return weft_output_printf(
		s->csv,
		"step,mean_speed,mean_neighbours,order,messages_read\n");
}

/* ---- outputs ---------------------------------------------------------------
 */

static weft_status boids_collect(weft_model_ctx *mc, void *state,
				 uint64_t steps_done, unsigned slot)
{
	boids_state *s = state;

	return weft_model_rows_collect(
		mc, s->rows, slot,
		weft_model_rows_due(steps_done, s->params.every,
				    s->params.last_step, 0, s->n_rows));
}

static uint64_t boids_u64(const uint32_t *w)
{
	return (uint64_t)w[0] | (uint64_t)w[1] << 32;
}

/* One line of boids.csv from a row: means over the agents, and the order
 * parameter |sum of velocities| / sum of speeds (= |mean velocity| /
 * mean speed), computed in double from the row's f32 sums (the same bits
 * on every backend, so the same text). */
static weft_status boids_line(weft_output *o, const uint32_t *row)
{
	double n = row[BOIDS_ROW_AGENTS] ? row[BOIDS_ROW_AGENTS] : 1;
	double sp = weft_u32_as_f32(row[BOIDS_ROW_SPEED]);
	double vx = weft_u32_as_f32(row[BOIDS_ROW_FX]);
	double vy = weft_u32_as_f32(row[BOIDS_ROW_FY]);
	double vz = weft_u32_as_f32(row[BOIDS_ROW_FZ]);
	double order = sp > 0 ? sqrt(vx * vx + vy * vy + vz * vz) / sp : 0;

	return weft_output_printf(
		o, "%u,%.6f,%.4f,%.6f,%.4f\n", row[BOIDS_ROW_STEP], sp / n,
		(double)boids_u64(row + BOIDS_ROW_NB_LO) / n, order,
		(double)boids_u64(row + BOIDS_ROW_READ_LO) / n);
}

static weft_status boids_emit(weft_model_ctx *mc, void *state,
			      uint64_t steps_done, unsigned slot)
{
	boids_state *s = state;
	uint64_t first, end;
	weft_status st;

	(void)mc;
	(void)steps_done;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t r = first; r < end && s->csv; r++)
		if ((st = boids_line(s->csv, s->host + r * BOIDS_ROW_WORDS)))
			return st;
	return WEFT_OK;
}

/* boids-agents.csv: each agent's id, its position as the last step read
 * it (bin order) and its neighbours within the radius in that step;
 * positions with 9 significant digits, which read back as the same f32. */
static weft_status boids_dump(weft_model_ctx *mc, boids_state *s)
{
	uint32_t n = s->params.agents;
	size_t n4 = 4 * (size_t)n;
	float *cur = malloc(BOIDS_NF * n4);
	uint32_t *id = malloc(n4), *nb = malloc(n4);
	weft_output *o = NULL;
	weft_status st;

	if (!cur || !id || !nb) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate the agents' dump");
		goto free_host;
	}
	if ((st = weft_model_download(mc, cur, s->cur, 0, BOIDS_NF * n4)) ||
	    (st = weft_model_download(mc, id, s->cur_id, 0, n4)) ||
	    (st = weft_model_download(mc, nb, s->nb, 0, n4)) ||
	    (st = weft_model_output_open(mc, "boids-agents.csv", &o)) ||
	    (st = weft_output_printf(o,
				     "# dims=%u wrap=%u lo=%.9g hi=%.9g "
				     "radius=%.9g%s\nid,x,y,z,neighbours\n",
				     s->params.dims, s->params.wrap,
				     (double)weft_u32_as_f32(s->params.lo),
				     (double)weft_u32_as_f32(s->params.hi),
				     (double)weft_u32_as_f32(s->params.radius),
				     s->params.rules == BOIDS_RULES_AGENTSJL
					     ? " rules=agentsjl"
					     : "")))
		goto free_host;
	for (uint32_t i = 0; i < n && !st; i++)
		st = weft_output_printf(o, "%u,%.9g,%.9g,%.9g,%u\n", id[i],
					(double)cur[i], (double)cur[n + i],
					(double)cur[2 * (size_t)n + i], nb[i]);
free_host:
	free(cur);
	free(id);
	free(nb);
	return st;
}

static weft_status boids_finish(weft_model_ctx *mc, void *state)
{
	boids_state *s = state;
	const boids_params *p = &s->params;
	uint32_t ctl[BOIDS_CTL_WORDS];
	double steps, n = p->agents;
	weft_status st;

	if ((st = weft_model_download(mc, ctl, s->ctl, 0, sizeof ctl)))
		return st;
	steps = ctl[BOIDS_CTL_STEP] ? ctl[BOIDS_CTL_STEP] : 1;
	if (p->rules == BOIDS_RULES_AGENTSJL)
		weft_model_summary(mc, "rules",
				   "Agents.jl's flocking example (agentsjl)");
	weft_model_summary(mc, "agents", "%u boids in %u-D", p->agents,
			   p->dims);
	weft_model_summary(mc, "box", "[%.6g, %.6g]^%u, %s, %u cells",
			   (double)weft_u32_as_f32(p->lo),
			   (double)weft_u32_as_f32(p->hi), p->dims,
			   p->wrap ? "wrapped (a torus)" : "walls", s->n_cells);
	weft_model_summary(
		mc, "neighbour messages read", "%.2f per agent per step",
		(double)boids_u64(ctl + BOIDS_CTL_READ_LO) / (n * steps));
	weft_model_summary(
		mc, "neighbours within the radius", "%.2f per agent per step",
		(double)boids_u64(ctl + BOIDS_CTL_NB_LO) / (n * steps));
	if (s->n_rows) {
		const uint32_t *row =
			s->host + (s->n_rows - 1) * BOIDS_ROW_WORDS;
		double sp = weft_u32_as_f32(row[BOIDS_ROW_SPEED]);
		double vx = weft_u32_as_f32(row[BOIDS_ROW_FX]);
		double vy = weft_u32_as_f32(row[BOIDS_ROW_FY]);
		double vz = weft_u32_as_f32(row[BOIDS_ROW_FZ]);

		weft_model_summary(mc, "final mean speed", "%.6f", sp / n);
		weft_model_summary(
			mc, "final order",
			"%.6f (|mean velocity| / mean speed)",
			sp > 0 ? sqrt(vx * vx + vy * vy + vz * vz) / sp : 0);
	}
	if (!weft_model_bool(mc, "dump"))
		return WEFT_OK;
	if (!ctl[BOIDS_CTL_STEP])
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[boids] dump = true (%s) needs at "
				       "least one step: [simulation] steps "
				       "is 0",
				       weft_model_where(mc, "dump"));
	return boids_dump(mc, s);
}

static void boids_teardown(weft_model_ctx *mc, void *state)
{
	boids_state *s = state;
	weft_buf *bufs[] = {
		s ? s->p : NULL,	   s ? s->space : NULL,
		s ? s->ctl : NULL,	   s ? s->sums : NULL,
		s ? s->series : NULL,	   s ? s->scratch : NULL,
		s ? s->nxt_id : NULL,	   s ? s->cur : NULL,
		s ? s->cur_id : NULL,	   s ? s->nb : NULL,
		s ? s->rd : NULL,	   s ? s->speed : NULL,
		s ? s->bins.keys : NULL,   s ? s->bins.perm : NULL,
		s ? s->bins.starts : NULL, s ? s->bins.cursor : NULL
	};

	if (!s)
		return;
	weft_model_rows_close(mc, s->rows);
	for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++)
		weft_model_free(mc, bufs[k]);
	for (int f = 0; f < BOIDS_NF; f++)
		weft_model_free(mc, s->nxt[f]);
	free(s->host);
	free(s);
}

/* ---- the entry -------------------------------------------------------------
 */

static const weft_plot_curve boids_curves[] = {
	{ "order", "order (|mean velocity| / mean speed)", "#d62728" },
	{ "mean_speed", "mean speed", "#1f77b4" },
};

static const weft_plot_curve boids_curves2[] = {
	{ "mean_neighbours", "neighbours within the radius", "#2ca02c" },
};

static const weft_plot_desc boids_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "boids.csv",
	.title = "Boids (Reynolds flocking)",
	.x = "step",
	.xlabel = "step",
	.ylabel = "order, mean speed",
	.curves = boids_curves,
	.n_curves = sizeof boids_curves / sizeof boids_curves[0],
	.curves2 = boids_curves2,
	.n_curves2 = sizeof boids_curves2 / sizeof boids_curves2[0],
	.ylabel2 = "neighbours per agent",
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "boids",
	.version = BOIDS_VERSION,
	.summary = "Reynolds flocking as FLAME GPU 2's boids_spatial3D "
		   "or Agents.jl's flocking example (separation, cohesion, "
		   "alignment), 2-D or 3-D",
	.keys = boids_keys,
	.n_keys = sizeof boids_keys / sizeof boids_keys[0],
	.program = &boids_program,
	.sigs = boids_sigs,
	.setup = boids_setup,
	.check = boids_check,
	.estimate = boids_estimate,
	.finish = boids_finish,
	.teardown = boids_teardown,
	.collect = boids_collect,
	.emit = boids_emit,
	/* `weft conform`: 2048 boids for 30 steps, well under a second. */
	.conform_sets = "boids.agents=2048\n"
			"simulation.steps=30\n",
	.plot = &boids_plot,
	.checkpoints = 1,
};
