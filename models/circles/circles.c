/*
 * circles.c - the circles model's host code: the plugin
 * weft-model-circles.so, FLAME GPU 2's Circles benchmark
 * (examples/cpp/circles_spatial3D and circles_spatial2D of FLAMEGPU2) on
 * weft's continuous space kit (weft/space.h, docs/space.md); the page is
 * models/circles/circles.md.
 *
 * N agents at positions uniform in [0, ENV_MAX)^d (ENV_MAX =
 * floor(cbrt(N)) in 3-D, floor(sqrt(N)) in 2-D), binned into cells of the
 * interaction radius over the walled box [0, ENV_MAX]^d. Each step every
 * agent is pushed by every other agent within the radius and moves by the
 * average push (circles.wk). Outputs: circles.csv (total drift, mean
 * neighbours within the radius, mean candidates read, per step), summary
 * lines, and with [circles] agents_csv = true, circles-agents.csv (every
 * agent's id, position and neighbour count after the last step, for the
 * brute-force check bench/circles_bruteforce.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/model.h>
#include <weft/space.h>

#include "circles_kernels.h"
#include "circles_shared.h"

#define CIRCLES_VERSION	   "1.0"
#define CIRCLES_SNAP_ROWS  2u
#define CIRCLES_MAX_ROWS   (1u << 26)
#define CIRCLES_MAX_AGENTS 200000000

_Static_assert(CIRCLES_K_WEFT_SPACE_GATHER - CIRCLES_K_WEFT_SPACE ==
		       WEFT_SPACE_K_GATHER,
	       "weft/space.h's kernel order is weft/space.wk's");

static const weft_key_desc circles_keys[] = {
	{ "agents", WEFT_KEY_INT, "16384", 1, CIRCLES_MAX_AGENTS, NULL,
	  "number of circles (agents); FLAME GPU 2's example has 16384, its "
	  "benchmark 1,000,000" },
	{ "dims", WEFT_KEY_INT, "3", 2, 3, NULL,
	  "2 or 3: the space's dimensions (FLAME's circles_spatial2D or "
	  "circles_spatial3D)" },
	{ "radius", WEFT_KEY_REAL, "2", 1e-3, 1e6, NULL,
	  "interaction radius: agents closer than this push each other; also "
	  "the width of a bin" },
	{ "repulse", WEFT_KEY_REAL, "0.05", 0, 1e6, NULL,
	  "repulsion factor: the push at a separation s is "
	  "sin(s / radius * 3.141 * -2) * repulse" },
	{ "env_max", WEFT_KEY_REAL, "0", 0, 1e6, NULL,
	  "side of the box [0, env_max] the agents start in; 0: FLAME's rule, "
	  "floor(cbrt(agents)) in 3-D, floor(sqrt(agents)) in 2-D" },
	{ "agents_csv", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "write circles-agents.csv after the last step: every agent's id, "
	  "position and neighbours within the radius in that step" },
};

typedef struct circles_state {
	circles_params params;
	uint32_t n, cells;
	uint64_t n_rows;
	weft_buf *p, *ctl, *tot, *series, *sum_scratch;
	weft_buf *cur[4], *next[4]; /* x, y, z, id */
	weft_buf *drift, *near, *cand;
	weft_buf *pdrift, *pnear, *pcand; /* per chunk (circles_chunks) */
	uint32_t chunks;
	weft_space_bins bins;
	uint32_t *host;
	weft_model_rows *rows;
	weft_output *csv, *agents_csv;
} circles_state;

/* FLAME's ENV_MAX: floor(cbrt(N)) or floor(sqrt(N)), in double as there. */
static float circles_env_max(uint32_t n, uint32_t dims, double key)
{
	if (key > 0)
		return (float)key;
	return (float)floor(dims == 3 ? cbrt((double)n) : sqrt((double)n));
}

/* The least f32 t with sqrtf(t) >= r (sqrtf correctly rounded, as on
 * every backend): sqrtf(d2) < r exactly when d2 < t. */
static float circles_near_d2(float r)
{
	volatile float t = r * r;

	while (t > 0.0f && sqrtf(t) >= r)
		t = nextafterf(t, 0.0f);
	while (sqrtf(t) < r)
		t = nextafterf(t, INFINITY);
	return t;
}

static weft_status circles_read_params(weft_model_ctx *mc, circles_state *s)
{
	circles_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);
	uint64_t steps = weft_model_steps(mc);
	uint64_t every = weft_model_output_every(mc);
	weft_space_desc d = { 0 };
	const char *why;
	float env;

	memset(p, 0, sizeof *p);
	s->n = (uint32_t)weft_model_int(mc, "agents");
	s->chunks = (s->n + CIRCLES_CHUNK - 1) / CIRCLES_CHUNK;
	p->agents = s->n;
	p->dims = (uint32_t)weft_model_int(mc, "dims");
	env = circles_env_max(s->n, p->dims, weft_model_real(mc, "env_max"));
	p->radius = weft_f32_as_u32((float)weft_model_real(mc, "radius"));
	p->repulse = weft_f32_as_u32((float)weft_model_real(mc, "repulse"));
	p->near_d2 =
		weft_f32_as_u32(circles_near_d2(weft_u32_as_f32(p->radius)));
	p->env_max = weft_f32_as_u32(env);
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->every = (uint32_t)every;
	p->last_step = (uint32_t)steps;
	s->n_rows = (steps + every - 1) / every;
	p->n_rows = (uint32_t)s->n_rows;
	if (!(env > 0.0f))
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[circles] env_max: the box side is 0 "
				       "(%s): set env_max above 0",
				       weft_model_where(mc, "env_max"));
	d.dims = p->dims;
	d.wrap = 0;
	d.radius = weft_u32_as_f32(p->radius);
	for (int a = 0; a < 3; a++)
		d.max[a] = env;
	if ((why = weft_space_params(&d, p->space, &s->cells)))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[circles] radius = %g (%s), env_max = "
			"%g (%s): the space's bins: %s",
			(double)d.radius, weft_model_where(mc, "radius"),
			(double)env, weft_model_where(mc, "env_max"), why);
	if (s->n_rows > CIRCLES_MAX_ROWS)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[simulation] steps = %llu with a row every %llu "
			"steps ([output] every) make %llu rows of "
			"circles.csv, more than %u: raise [output] every",
			(unsigned long long)steps, (unsigned long long)every,
			(unsigned long long)s->n_rows, CIRCLES_MAX_ROWS);
	return WEFT_OK;
}

static weft_status circles_check(weft_model_ctx *mc)
{
	circles_state s;

	memset(&s, 0, sizeof s);
	return circles_read_params(mc, &s);
}

/* Bytes per agent on the device: current and next x, y, z, id (32), drift,
 * neighbours, candidates (12), the bins' keys and permutation (8); and 8
 * per bin (starts, cursor) plus the scans' scratch. */
#define CIRCLES_AGENT_BYTES 52u

static weft_status circles_estimate(weft_model_ctx *mc,
				    weft_model_estimate *est)
{
	circles_state s;
	uint64_t dev, rows;
	char what[96];
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = circles_read_params(mc, &s)))
		return st;
	dev = (uint64_t)CIRCLES_AGENT_BYTES * s.n +
	      2 * weft_space_starts_bytes(s.cells) +
	      weft_space_scan_scratch_bytes(s.cells) + 20 * (uint64_t)s.chunks +
	      weft_blocks_scratch_bytes(s.chunks) + sizeof s.params + 64;
	snprintf(what, sizeof what, "[circles] agents = %u (%u bins)", s.n,
		 s.cells);
	if ((st = weft_model_estimate_add(est, "the agents", what, dev,
					  16 * (uint64_t)s.n)))
		return st;
	rows = 4 * CIRCLES_ROW_WORDS * s.n_rows;
	return weft_model_estimate_add(
		est, "the rows", "[simulation] steps, [output] every", rows,
		rows + weft_model_rows_bytes(mc, CIRCLES_ROW_WORDS * 4,
					     CIRCLES_SNAP_ROWS));
}

static weft_status circles_alloc_all(weft_model_ctx *mc, circles_state *s)
{
	static const char *const cur_names[4] = { "x", "y", "z", "id" };
	static const char *const next_names[4] = { "next x", "next y", "next z",
						   "next id" };
	size_t n4 = 4 * (size_t)s->n;
	weft_status st;

	s->host = calloc(s->n_rows ? s->n_rows : 1,
			 CIRCLES_ROW_WORDS * sizeof(uint32_t));
	if (!s->host)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the host copy of %llu "
				       "rows",
				       (unsigned long long)s->n_rows);
	for (int f = 0; f < 4; f++)
		if ((st = weft_model_alloc(mc, cur_names[f], n4, &s->cur[f])) ||
		    (st = weft_model_alloc(mc, next_names[f], n4, &s->next[f])))
			return st;
	if ((st = weft_model_alloc(mc, "params", sizeof s->params, &s->p)) ||
	    (st = weft_model_alloc(mc, "ctl", 4 * CIRCLES_CTL_WORDS,
				   &s->ctl)) ||
	    (st = weft_model_alloc(mc, "totals", CIRCLES_TOT_BYTES, &s->tot)) ||
	    (st = weft_model_alloc(mc, "series",
				   4 * CIRCLES_ROW_WORDS * (size_t)s->n_rows,
				   &s->series)) ||
	    (st = weft_model_alloc(mc, "sum scratch",
				   weft_blocks_scratch_bytes(s->chunks),
				   &s->sum_scratch)) ||
	    (st = weft_model_alloc(mc, "drift", n4, &s->drift)) ||
	    (st = weft_model_alloc(mc, "neighbours", n4, &s->near)) ||
	    (st = weft_model_alloc(mc, "candidates", n4, &s->cand)) ||
	    (st = weft_model_alloc(mc, "chunk drift", 4 * (size_t)s->chunks,
				   &s->pdrift)) ||
	    (st = weft_model_alloc(mc, "chunk neighbours",
				   8 * (size_t)s->chunks, &s->pnear)) ||
	    (st = weft_model_alloc(mc, "chunk candidates",
				   8 * (size_t)s->chunks, &s->pcand)) ||
	    (st = weft_model_alloc(mc, "bin keys", weft_space_keys_bytes(s->n),
				   &s->bins.keys)) ||
	    (st = weft_model_alloc(mc, "bin perm", weft_space_keys_bytes(s->n),
				   &s->bins.perm)) ||
	    (st = weft_model_alloc(mc, "bin starts",
				   weft_space_starts_bytes(s->cells),
				   &s->bins.starts)) ||
	    (st = weft_model_alloc(mc, "bin cursor",
				   weft_space_starts_bytes(s->cells),
				   &s->bins.cursor)))
		return st;
	s->bins.count = s->ctl;
	s->bins.count_index = CIRCLES_CTL_COUNT;
	s->bins.capacity = s->n;
	s->bins.n_cells = s->cells;
	return weft_model_alloc(mc, "bin scan scratch",
				weft_space_scan_scratch_bytes(s->cells),
				&s->bins.scratch);
}

/* The most bytes of zeros setup uploads at once. */
#define CIRCLES_ZERO_BYTES ((size_t)1 << 20)

/* Zeros into bytes of buf from offset 0, zb at a time from the block of
 * zb zeros zeros. */
static weft_status circles_zero(weft_model_ctx *mc, weft_buf *buf, size_t bytes,
				const void *zeros, size_t zb)
{
	weft_status st = WEFT_OK;

	for (size_t at = 0; at < bytes && !st; at += zb)
		st = weft_model_upload(mc, buf, at, zeros,
				       bytes - at < zb ? bytes - at : zb);
	return st;
}

/* Zeros into every buffer a step writes before it reads: the step never
 * reads them, but checkpoints and `weft conform` compare every byte of
 * the state, so no byte may be left as the backend's alloc found it. */
static weft_status circles_zero_all(weft_model_ctx *mc, circles_state *s)
{
	size_t n4 = 4 * (size_t)s->n;
	weft_buf *agent[] = { s->cur[0], s->cur[1], s->cur[2], s->cur[3],
			      s->drift,	 s->near,   s->cand };
	struct {
		weft_buf *buf;
		size_t bytes;
	} other[] = {
		{ s->pdrift, 4 * (size_t)s->chunks },
		{ s->pnear, 8 * (size_t)s->chunks },
		{ s->pcand, 8 * (size_t)s->chunks },
		{ s->sum_scratch, weft_blocks_scratch_bytes(s->chunks) },
		{ s->bins.keys, weft_space_keys_bytes(s->n) },
		{ s->bins.perm, weft_space_keys_bytes(s->n) },
		{ s->bins.starts, weft_space_starts_bytes(s->cells) },
		{ s->bins.cursor, weft_space_starts_bytes(s->cells) },
		{ s->bins.scratch, weft_space_scan_scratch_bytes(s->cells) },
	};
	/* no more than the positions' upload: the estimate's host bytes */
	size_t zb = n4 < CIRCLES_ZERO_BYTES ? n4 : CIRCLES_ZERO_BYTES;
	void *zeros = calloc(1, zb);
	weft_status st = WEFT_OK;

	if (!zeros)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the zeros of the state",
				       zb);
	for (size_t i = 0; i < sizeof agent / sizeof agent[0] && !st; i++)
		st = circles_zero(mc, agent[i], n4, zeros, zb);
	for (size_t i = 0; i < sizeof other / sizeof other[0] && !st; i++)
		st = circles_zero(mc, other[i].buf, other[i].bytes, zeros, zb);
	free(zeros);
	return st;
}

/* Step 0: positions drawn into the next arrays (the step's rebuild bins
 * them first), ids 0..N-1; the series (zeros) and the control block;
 * every other buffer zeros (circles_zero_all). */
static weft_status circles_upload_all(weft_model_ctx *mc, circles_state *s)
{
	const circles_params *p = &s->params;
	float env = weft_u32_as_f32(p->env_max);
	uint32_t ctl[CIRCLES_CTL_WORDS] = { 0 },
		 tot[CIRCLES_TOT_BYTES / 4] = { 0 };
	float *v = malloc(4 * (size_t)s->n);
	uint32_t *ids = (uint32_t *)v;
	weft_status st = WEFT_OK;

	if (!v)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the positions",
				       4 * (size_t)s->n);
	for (uint32_t a = 0; a < 3 && !st; a++) {
		for (uint32_t i = 0; i < s->n; i++)
			v[i] = a < p->dims
				       ? circles_place(p->seed_lo, p->seed_hi,
						       i, a, env)
				       : 0.0f;
		st = weft_model_upload(mc, s->next[a], 0, v, 4 * (size_t)s->n);
	}
	for (uint32_t i = 0; i < s->n && !st; i++)
		ids[i] = i;
	if (!st)
		st = weft_model_upload(mc, s->next[3], 0, ids,
				       4 * (size_t)s->n);
	free(v);
	ctl[CIRCLES_CTL_COUNT] = s->n;
	ctl[CIRCLES_CTL_CHUNKS] = s->chunks;
	if (!st && !(st = weft_model_upload(mc, s->p, 0, p, sizeof *p)) &&
	    !(st = weft_model_upload(mc, s->ctl, 0, ctl, sizeof ctl)) &&
	    !(st = weft_model_upload(mc, s->tot, 0, tot, sizeof tot)))
		st = weft_model_upload(mc, s->series, 0, s->host,
				       4 * CIRCLES_ROW_WORDS *
					       (size_t)s->n_rows);
	if (!st)
		st = circles_zero_all(mc, s);
	return st;
}

#define CIRCLES_MAX_LAUNCHES \
	(WEFT_SPACE_REBUILD_LAUNCHES(4) + 4 + 3 * WEFT_BLOCKS_REDUCE_LAUNCHES)

/* One step: rebuild (next -> current, bin order), ids kept, move, sums,
 * tick. Per-agent launches run over the device-side count. */
static weft_status circles_set_step(weft_model_ctx *mc, circles_state *s)
{
	weft_launch l[CIRCLES_MAX_LAUNCHES];
	uint32_t n = 0, cap = s->n, bf = CIRCLES_K_WEFT_BLOCKS;

	n += weft_space_rebuild(l + n, CIRCLES_K_WEFT_SPACE, bf, s->p,
				s->next[0], s->next[1],
				s->params.dims == 3 ? s->next[2] : NULL,
				&s->bins, s->next, s->cur, 4);
	l[n] = circles_ids_launch(
		(circles_ids_bufs){ .id = s->cur[3], .nid = s->next[3] }, cap);
	l[n].extent_buf = s->ctl;
	l[n++].extent_offset = 4 * CIRCLES_CTL_COUNT;
	l[n] = circles_move_launch(
		(circles_move_bufs){ .p = s->p,
				     .starts = s->bins.starts,
				     .x = s->cur[0],
				     .y = s->cur[1],
				     .z = s->cur[2],
				     .nx = s->next[0],
				     .ny = s->next[1],
				     .nz = s->next[2],
				     .drift = s->drift,
				     .near = s->near,
				     .cand = s->cand },
		cap);
	l[n].extent_buf = s->ctl;
	l[n++].extent_offset = 4 * CIRCLES_CTL_COUNT;
	l[n++] = circles_chunks_launch(
		(circles_chunks_bufs){ .ctl = s->ctl,
				       .drift = s->drift,
				       .near = s->near,
				       .cand = s->cand,
				       .pdrift = s->pdrift,
				       .pnear = s->pnear,
				       .pcand = s->pcand },
		s->chunks);
	n += weft_blocks_sum_f32(l + n, bf, s->pdrift, s->ctl,
				 CIRCLES_CTL_CHUNKS, s->sum_scratch, s->chunks,
				 s->tot, CIRCLES_TOT_DRIFT);
	n += weft_blocks_reduce_u64(l + n, bf, WEFT_BLOCKS_OP_SUM, s->pnear,
				    s->ctl, CIRCLES_CTL_CHUNKS, s->sum_scratch,
				    s->chunks, s->tot, CIRCLES_TOT_NEAR);
	n += weft_blocks_reduce_u64(l + n, bf, WEFT_BLOCKS_OP_SUM, s->pcand,
				    s->ctl, CIRCLES_CTL_CHUNKS, s->sum_scratch,
				    s->chunks, s->tot, CIRCLES_TOT_CAND);
	l[n++] = circles_tick_launch((circles_tick_bufs){ .p = s->p,
							  .ctl = s->ctl,
							  .tot = s->tot,
							  .series = s->series },
				     1);
	return weft_model_set_step(mc, l, n);
}

/* Views: the latest positions, ids, neighbours and candidates of each
 * agent, all at the slots of the last step (the next arrays). */
static weft_status circles_add_views(weft_model_ctx *mc, circles_state *s)
{
	int64_t shape[1] = { s->n };
	weft_status st;

	if ((st = weft_model_array(mc, "x", s->next[0], 0, WEFT_DTYPE_F32, 1,
				   shape)) ||
	    (st = weft_model_array(mc, "y", s->next[1], 0, WEFT_DTYPE_F32, 1,
				   shape)) ||
	    (st = weft_model_array(mc, "z", s->next[2], 0, WEFT_DTYPE_F32, 1,
				   shape)) ||
	    (st = weft_model_array(mc, "id", s->next[3], 0, WEFT_DTYPE_U32, 1,
				   shape)) ||
	    (st = weft_model_array(mc, "neighbours", s->near, 0, WEFT_DTYPE_U32,
				   1, shape)))
		return st;
	return weft_model_array(mc, "candidates", s->cand, 0, WEFT_DTYPE_U32, 1,
				shape);
}

/* What a checkpoint saves: every buffer a step writes (a step starts from
 * the next arrays; the others it rewrites before reading, but the
 * checkpoint must find them as the run left them); the series through
 * weft_model_rows_open. The parameter block is not state. */
static weft_status circles_declare_state(weft_model_ctx *mc, circles_state *s)
{
	weft_buf *bufs[] = { s->cur[0],	      s->cur[1],      s->cur[2],
			     s->cur[3],	      s->next[0],     s->next[1],
			     s->next[2],      s->next[3],     s->drift,
			     s->near,	      s->cand,	      s->ctl,
			     s->tot,	      s->sum_scratch, s->bins.keys,
			     s->bins.perm,    s->bins.starts, s->bins.cursor,
			     s->bins.scratch, s->pdrift,      s->pnear,
			     s->pcand };
	weft_status st;

	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if ((st = weft_model_state(mc, bufs[i])))
			return st;
	return WEFT_OK;
}

static weft_status circles_setup(weft_model_ctx *mc, void **out)
{
	circles_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	if ((st = circles_read_params(mc, s)) ||
	    (st = circles_alloc_all(mc, s)) ||
	    (st = circles_upload_all(mc, s)) ||
	    (st = circles_set_step(mc, s)) || (st = circles_add_views(mc, s)) ||
	    (st = circles_declare_state(mc, s)) ||
	    (st = weft_model_rows_open(mc, s->series, s->host,
				       CIRCLES_ROW_WORDS * sizeof(uint32_t),
				       CIRCLES_SNAP_ROWS, &s->rows)))
		return st;
	if (weft_model_bool(mc, "agents_csv") &&
	    ((st = weft_model_output_open(mc, "circles-agents.csv",
					  &s->agents_csv)) ||
	     (st = weft_output_printf(s->agents_csv,
				      "id,x,y,z,neighbours,candidates\n"))))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "circles.csv", &s->csv)))
		return st;
	return weft_output_printf(s->csv, "step,drift,neighbours,candidates\n");
}

static weft_status circles_collect(weft_model_ctx *mc, void *state,
				   uint64_t steps_done, unsigned slot)
{
	circles_state *s = state;

	return weft_model_rows_collect(
		mc, s->rows, slot,
		weft_model_rows_due(steps_done, s->params.every,
				    s->params.last_step, 0, s->n_rows));
}

static uint64_t u64_of(const uint32_t *w)
{
	return (uint64_t)w[0] | (uint64_t)w[1] << 32;
}

static weft_status circles_emit(weft_model_ctx *mc, void *state,
				uint64_t steps_done, unsigned slot)
{
	circles_state *s = state;
	uint64_t first, end;
	weft_status st;

	(void)mc;
	(void)steps_done;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t r = first; r < end && s->csv; r++) {
		const uint32_t *row = s->host + r * CIRCLES_ROW_WORDS;

		if ((st = weft_output_printf(
			     s->csv, "%u,%.9g,%.6f,%.6f\n",
			     row[CIRCLES_ROW_STEP],
			     (double)weft_u32_as_f32(row[CIRCLES_ROW_DRIFT]),
			     (double)u64_of(row + CIRCLES_ROW_NEAR_LO) / s->n,
			     (double)u64_of(row + CIRCLES_ROW_CAND_LO) / s->n)))
			return st;
	}
	return WEFT_OK;
}

/* circles-agents.csv: every agent by id. */
static weft_status circles_write_agents(weft_model_ctx *mc, circles_state *s)
{
	size_t n4 = 4 * (size_t)s->n;
	uint32_t *w = malloc(6 * n4 + 4), *ids = w + 3 * (size_t)s->n,
		 *nb = w + 4 * (size_t)s->n, *cd = w + 5 * (size_t)s->n;
	uint32_t *at = malloc(n4 + 4);
	weft_status st = WEFT_OK;

	if (!w || !at) {
		free(w);
		free(at);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate host memory for "
				       "circles-agents.csv");
	}
	for (int f = 0; f < 4 && !st; f++)
		st = weft_model_download(mc, w + f * (size_t)s->n, s->next[f],
					 0, n4);
	if (!st)
		st = weft_model_download(mc, nb, s->near, 0, n4);
	if (!st)
		st = weft_model_download(mc, cd, s->cand, 0, n4);
	for (uint32_t k = 0; k < s->n && !st; k++)
		at[ids[k] < s->n ? ids[k] : 0] = k;
	for (uint32_t i = 0; i < s->n && !st; i++) {
		uint32_t k = at[i];

		st = weft_output_printf(
			s->agents_csv, "%u,%.9g,%.9g,%.9g,%u,%u\n", i,
			(double)weft_u32_as_f32(w[k]),
			(double)weft_u32_as_f32(w[s->n + k]),
			(double)weft_u32_as_f32(w[2 * (size_t)s->n + k]), nb[k],
			cd[k]);
	}
	free(w);
	free(at);
	return st;
}

static weft_status circles_finish(weft_model_ctx *mc, void *state)
{
	circles_state *s = state;
	uint32_t tot[CIRCLES_TOT_BYTES / 4], ctl[CIRCLES_CTL_WORDS];
	weft_status st;
	double n = s->n;

	if ((st = weft_model_download(mc, tot, s->tot, 0, sizeof tot)) ||
	    (st = weft_model_download(mc, ctl, s->ctl, 0, sizeof ctl)))
		return st;
	if (s->agents_csv && (st = circles_write_agents(mc, s)))
		return st;
	weft_model_summary(mc, "agents", "%u in %u-D, box [0, %g], %u bins",
			   s->n, s->params.dims,
			   (double)weft_u32_as_f32(s->params.env_max),
			   s->cells);
	weft_model_summary(mc, "messages read",
			   "%.2f per agent per step (candidates in the "
			   "neighbouring bins, last step)",
			   (double)u64_of(tot + 2 * CIRCLES_TOT_CAND) / n);
	weft_model_summary(mc, "neighbours",
			   "%.2f within the radius per agent (last step)",
			   (double)u64_of(tot + 2 * CIRCLES_TOT_NEAR) / n);
	weft_model_summary(mc, "total drift", "%.9g after step %u",
			   (double)weft_u32_as_f32(tot[CIRCLES_TOT_DRIFT]),
			   ctl[CIRCLES_CTL_STEP]);
	return WEFT_OK;
}

static void circles_teardown(weft_model_ctx *mc, void *state)
{
	circles_state *s = state;

	if (!s)
		return;
	weft_model_rows_close(mc, s->rows);
	for (int f = 0; f < 4; f++) {
		weft_model_free(mc, s->cur[f]);
		weft_model_free(mc, s->next[f]);
	}
	weft_model_free(mc, s->p);
	weft_model_free(mc, s->ctl);
	weft_model_free(mc, s->tot);
	weft_model_free(mc, s->series);
	weft_model_free(mc, s->sum_scratch);
	weft_model_free(mc, s->drift);
	weft_model_free(mc, s->near);
	weft_model_free(mc, s->cand);
	weft_model_free(mc, s->pdrift);
	weft_model_free(mc, s->pnear);
	weft_model_free(mc, s->pcand);
	weft_model_free(mc, s->bins.keys);
	weft_model_free(mc, s->bins.perm);
	weft_model_free(mc, s->bins.starts);
	weft_model_free(mc, s->bins.cursor);
	weft_model_free(mc, s->bins.scratch);
	free(s->host);
	free(s);
}

static const weft_plot_curve circles_curves[] = {
	{ "drift", "total drift", "#1f77b4" },
};

static const weft_plot_desc circles_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "circles.csv",
	.title = "Circles: total drift",
	.x = "step",
	.xlabel = "step",
	.ylabel = "total drift",
	.curves = circles_curves,
	.n_curves = 1,
};

static const weft_outcome_desc circles_outcomes[] = {
	{ "final_drift", "drift", WEFT_OUTCOME_LAST, NULL, 1.0 },
};

static const weft_ensemble_desc circles_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "circles.csv",
	.x = "step",
	.compare = "drift",
	.outcomes = circles_outcomes,
	.n_outcomes = 1,
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "circles",
	.version = CIRCLES_VERSION,
	.summary = "FLAME GPU 2's Circles: agents repelling their neighbours "
		   "within a radius in continuous 2-D or 3-D space",
	.keys = circles_keys,
	.n_keys = sizeof circles_keys / sizeof circles_keys[0],
	.program = &circles_program,
	.sigs = circles_sigs,
	.setup = circles_setup,
	.check = circles_check,
	.estimate = circles_estimate,
	.finish = circles_finish,
	.teardown = circles_teardown,
	.collect = circles_collect,
	.emit = circles_emit,
	/* `weft conform`: 4096 agents in 3-D for 20 steps. */
	.conform_sets = "circles.agents=4096\n"
			"simulation.steps=20\n",
	.plot = &circles_plot,
	.ensemble = &circles_ensemble,
	.checkpoints = 1,
};
