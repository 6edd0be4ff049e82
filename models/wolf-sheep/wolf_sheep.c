/*
 * wolf_sheep.c - the wolf-sheep predator-prey model's host code: the
 * plugin weft-model-wolf_sheep.so (models/wolf-sheep/wolf-sheep.md).
 *
 * Sheep and wolves on a torus grid of grass, as in Mesa 3.5's example
 * (mesa.examples.advanced.wolf_sheep, after NetLogo's): two populations
 * of weft/agents.h (births and deaths on the device, a capacity each),
 * per-cell lists of weft/grid.h, grass per cell. The kernels are in
 * wolf_sheep.wk; this file reads [wolf_sheep], builds the state at step 0
 * on the host from counter-based draws, declares the step's launches and
 * the state, and writes counts.csv (step,sheep,wolves,grass).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/agents.h>
#include <weft/grid.h>
#include <weft/model.h>

#include "wolf_sheep_kernels.h"
#include "wolf_sheep_shared.h"

#define WS_VERSION "1.0"
/* Output points one collect() serves (the rows are appended on the
 * device, the populations' control blocks only grow): 128 steps run as
 * one chunk at [output] every = 1. A snapshot holds their rows and row 0. */
#define WS_COLLECT_POINTS 128u
#define WS_SNAP_ROWS	  (WS_COLLECT_POINTS + 1u)
#define WS_MAX_ROWS	  (1u << 26)
#define WS_MAX_LAUNCHES	  256u
/* The bins of a population's lists: the cells, and one more for the
 * sheep that died in the sheep phase but stay in their slots until the
 * step's one compaction (no wolf sees them). */
#define WS_BINS(cells) ((cells) + 1u)
/* The capacity of a population whose key is 0: this many times its
 * initial count, at least WS_MIN_CAPACITY. */
#define WS_CAP_FACTOR	100u
#define WS_MIN_CAPACITY 1024u

static const weft_key_desc ws_keys[] = {
	{ "width", WEFT_KEY_INT, "20", 1, 65536, NULL,
	  "columns of the grid, a torus" },
	{ "height", WEFT_KEY_INT, "20", 1, 65536, NULL,
	  "rows of the grid, a torus" },
	{ "initial_sheep", WEFT_KEY_INT, "100", 0, 100000000, NULL,
	  "sheep at step 0, each on a cell drawn uniformly" },
	{ "initial_wolves", WEFT_KEY_INT, "50", 0, 100000000, NULL,
	  "wolves at step 0, each on a cell drawn uniformly" },
	{ "sheep_reproduce", WEFT_KEY_REAL, "0.04", 0, 1, NULL,
	  "chance that a sheep that survives a step has a lamb, which gets "
	  "half its energy" },
	{ "wolf_reproduce", WEFT_KEY_REAL, "0.05", 0, 1, NULL,
	  "chance that a wolf that survives a step has a cub, which gets half "
	  "its energy" },
	{ "sheep_gain_from_food", WEFT_KEY_REAL, "4", 0, 1000000, NULL,
	  "energy a sheep gains from a patch of grass; a sheep starts with "
	  "a uniform energy in [0, 2 x this)" },
	{ "wolf_gain_from_food", WEFT_KEY_REAL, "20", 0, 1000000, NULL,
	  "energy a wolf gains from a sheep; a wolf starts with a uniform "
	  "energy in [0, 2 x this)" },
	{ "grass_regrowth_time", WEFT_KEY_INT, "30", 1, 1000000, NULL,
	  "steps before a patch eaten grows back" },
	{ "sheep_capacity", WEFT_KEY_INT, "0", 0, 1000000000, NULL,
	  "slots for sheep on the device: they must hold the sheep alive at "
	  "the start of a step plus the lambs born in it (births come before "
	  "that step's deaths); 0: 100 x initial_sheep, at least 1024. A run "
	  "that needs more stops with an error saying how many" },
	{ "wolf_capacity", WEFT_KEY_INT, "0", 0, 1000000000, NULL,
	  "slots for wolves, as sheep_capacity: the wolves alive at the "
	  "start of a step plus the cubs born in it; 0: 100 x "
	  "initial_wolves, at least 1024" },
};

/* One population: its agents, fields and per-cell lists. */
typedef struct ws_pop {
	weft_agents_pop pop;
	weft_buf *ids, *cell, *energy;
	weft_space_bins bins;
} ws_pop;

typedef struct ws_state {
	ws_params params;
	uint64_t n_rows;
	uint32_t n0[2], cap[2];
	weft_buf *p, *ctl, *grass, *wolfmap, *series;
	weft_buf *regrow; /* the regrowth ring (wolf_sheep_shared.h) */
	ws_pop sheep, wolves;
	uint32_t *host; /* rows read back */
	weft_model_rows *rows;
	weft_output *csv;
} ws_state;

/* ---- parameters ---------------------------------------------------------- */

static uint32_t ws_threshold(double x)
{
	double t = x * 4294967296.0;

	return t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
}

static uint32_t ws_capacity(weft_model_ctx *mc, const char *key, uint32_t n0)
{
	int64_t v = weft_model_int(mc, key);
	uint64_t c = (uint64_t)n0 * WS_CAP_FACTOR;

	if (v > 0)
		return (uint32_t)v;
	c = c < WS_MIN_CAPACITY ? WS_MIN_CAPACITY : c;
	return c > 1000000000u ? 1000000000u : (uint32_t)c;
}

static weft_status ws_read_params(weft_model_ctx *mc, ws_state *s)
{
	ws_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc), cells;
	uint64_t steps = weft_model_steps(mc);
	uint64_t every = weft_model_output_every(mc);

	memset(p, 0, sizeof *p);
	p->width = (uint32_t)weft_model_int(mc, "width");
	p->height = (uint32_t)weft_model_int(mc, "height");
	cells = (uint64_t)p->width * p->height;
	p->cells = (uint32_t)cells;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->sheep_repro_thr =
		ws_threshold(weft_model_real(mc, "sheep_reproduce"));
	p->wolf_repro_thr = ws_threshold(weft_model_real(mc, "wolf_reproduce"));
	p->sheep_gain = weft_f32_as_u32(
		(float)weft_model_real(mc, "sheep_gain_from_food"));
	p->wolf_gain = weft_f32_as_u32(
		(float)weft_model_real(mc, "wolf_gain_from_food"));
	p->regrowth = (uint32_t)weft_model_int(mc, "grass_regrowth_time");
	p->every = (uint32_t)every;
	p->last_step = (uint32_t)steps;
	s->n_rows = 1 + (steps + every - 1) / every;
	p->n_rows = (uint32_t)s->n_rows;
	s->n0[0] = (uint32_t)weft_model_int(mc, "initial_sheep");
	s->n0[1] = (uint32_t)weft_model_int(mc, "initial_wolves");
	s->cap[0] = ws_capacity(mc, "sheep_capacity", s->n0[0]);
	s->cap[1] = ws_capacity(mc, "wolf_capacity", s->n0[1]);
	if (cells > WEFT_SPACE_MAX_CELLS - 1)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[wolf_sheep] width = %u (%s) and "
			"height = %u (%s) make %llu cells, "
			"more than %u",
			p->width, weft_model_where(mc, "width"), p->height,
			weft_model_where(mc, "height"),
			(unsigned long long)cells, WEFT_SPACE_MAX_CELLS - 1);
	for (int k = 0; k < 2; k++)
		if (s->n0[k] > s->cap[k])
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[wolf_sheep] %s = %u (%s) is more than "
				"[wolf_sheep] %s = %u",
				k ? "initial_wolves" : "initial_sheep",
				s->n0[k],
				weft_model_where(mc, k ? "initial_wolves"
						       : "initial_sheep"),
				k ? "wolf_capacity" : "sheep_capacity",
				s->cap[k]);
	if (s->n_rows > WS_MAX_ROWS)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[simulation] steps = %llu with a row "
				       "every %llu steps make more than %u "
				       "rows of counts.csv: raise [output] "
				       "every",
				       (unsigned long long)steps,
				       (unsigned long long)every, WS_MAX_ROWS);
	return WEFT_OK;
}

static weft_status ws_check(weft_model_ctx *mc)
{
	ws_state s;

	memset(&s, 0, sizeof s);
	return ws_read_params(mc, &s);
}

/* Device bytes of one population: fields, the kit's buffers, lists (over
 * the cells and one more bin, WS_BINS). */
static uint64_t ws_pop_bytes(uint32_t cap, uint32_t cells)
{
	return weft_agents_bytes(cap, 3) +
	       weft_grid_lists_bytes(cap, WS_BINS(cells));
}

static weft_status ws_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	ws_state s;
	uint64_t rows, b;
	char keys[160];
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = ws_read_params(mc, &s)))
		return st;
	for (int k = 0; k < 2; k++) {
		b = ws_pop_bytes(s.cap[k], s.params.cells);
		snprintf(keys, sizeof keys, "[wolf_sheep] %s = %u",
			 k ? "wolf_capacity" : "sheep_capacity", s.cap[k]);
		if ((st = weft_model_estimate_add(est, k ? "wolves" : "sheep",
						  keys, 12 * (uint64_t)s.cap[k],
						  b)))
			return st;
	}
	snprintf(keys, sizeof keys, "[wolf_sheep] width = %u, height = %u",
		 s.params.width, s.params.height);
	if ((st = weft_model_estimate_add(
		     est, "the grid", keys, 4 * (uint64_t)s.params.cells,
		     8 * (uint64_t)s.params.cells + sizeof(ws_params) +
			     4 * WS_CTL_WORDS)))
		return st;
	if ((st = weft_model_estimate_add(
		     est, "the regrowth ring",
		     "[wolf_sheep] grass_regrowth_time",
		     4 * ((uint64_t)s.params.regrowth + 1),
		     4 * ((uint64_t)s.params.regrowth + 1))))
		return st;
	rows = WS_ROW_WORDS * 4 * s.n_rows;
	return weft_model_estimate_add(
		est, "the rows", "[simulation] steps, [output] every", rows,
		rows + weft_model_rows_bytes(mc, WS_ROW_WORDS * 4,
					     WS_SNAP_ROWS));
}

/* ---- the state at step 0 ------------------------------------------------- */

static weft_status ws_buf(weft_model_ctx *mc, const char *name, size_t bytes,
			  const void *data, weft_buf **out)
{
	weft_status st;

	if ((st = weft_model_alloc(mc, name, bytes, out)) ||
	    (st = weft_model_upload(mc, *out, 0, data, bytes)))
		return st;
	return weft_model_state(mc, *out);
}

/* A population at step 0: n agents, identities 0 .. n - 1, each on a cell
 * drawn uniformly and with an energy uniform in [0, 2 gain). */
static weft_status ws_pop_open(weft_model_ctx *mc, ws_state *s, ws_pop *w,
			       int wolf)
{
	const ws_params *p = &s->params;
	uint32_t n = s->n0[wolf], cap = s->cap[wolf];
	float gain2;
	size_t bytes = 4 * (size_t)cap, sz;
	uint32_t *v = calloc(3 * (size_t)cap, 4), *z;
	const char *name = wolf ? "wolves" : "sheep";
	char key[64], bn[64];
	weft_status st;

	if (!v)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes for the %s",
				       3 * bytes, name);
	memcpy(&gain2, wolf ? &p->wolf_gain : &p->sheep_gain, 4);
	gain2 *= 2.0f;
	for (uint32_t k = 0; k < n; k++) {
		weft_rand4 r = weft_philox(p->seed_lo, p->seed_hi, k, 0, 0,
					   wolf ? WS_PURPOSE_INIT_WOLF
						: WS_PURPOSE_INIT_SHEEP);

		v[k] = k;
		v[cap + k] = WEFT_MULHI32(r.v[0], p->cells);
		v[2 * (size_t)cap + k] =
			weft_f32_as_u32(ws_unit(r.v[1]) * gain2);
	}
	snprintf(key, sizeof key, "[wolf_sheep] %s",
		 wolf ? "wolf_capacity" : "sheep_capacity");
	snprintf(bn, sizeof bn, "%s ids", name);
	st = weft_agents_open(mc, &w->pop, name, key, cap, n, n);
	if (!st)
		st = ws_buf(mc, bn, bytes, v, &w->ids);
	snprintf(bn, sizeof bn, "%s cell", name);
	if (!st)
		st = ws_buf(mc, bn, bytes, v + cap, &w->cell);
	snprintf(bn, sizeof bn, "%s energy", name);
	if (!st)
		st = ws_buf(mc, bn, bytes, v + 2 * (size_t)cap, &w->energy);
	free(v);
	if (st)
		return st;
	/* The per-cell lists, zeroed. */
	sz = weft_space_scan_scratch_bytes(WS_BINS(p->cells));
	if (sz < weft_space_starts_bytes(WS_BINS(p->cells)))
		sz = weft_space_starts_bytes(WS_BINS(p->cells));
	if (sz < weft_space_keys_bytes(cap))
		sz = weft_space_keys_bytes(cap);
	if (!(z = calloc(1, sz)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the zeros of the %s' "
				       "per-cell lists",
				       sz, name);
	w->bins.count = w->pop.ctl;
	w->bins.count_index = WEFT_AGENTS_COUNT;
	w->bins.capacity = cap;
	w->bins.n_cells = WS_BINS(p->cells);
	snprintf(bn, sizeof bn, "%s keys", name);
	st = ws_buf(mc, bn, weft_space_keys_bytes(cap), z, &w->bins.keys);
	snprintf(bn, sizeof bn, "%s perm", name);
	if (!st)
		st = ws_buf(mc, bn, weft_space_keys_bytes(cap), z,
			    &w->bins.perm);
	snprintf(bn, sizeof bn, "%s starts", name);
	if (!st)
		st = ws_buf(mc, bn, weft_space_starts_bytes(WS_BINS(p->cells)),
			    z, &w->bins.starts);
	snprintf(bn, sizeof bn, "%s cursor", name);
	if (!st)
		st = ws_buf(mc, bn, weft_space_starts_bytes(WS_BINS(p->cells)),
			    z, &w->bins.cursor);
	snprintf(bn, sizeof bn, "%s bin scratch", name);
	if (!st)
		st = ws_buf(mc, bn,
			    weft_space_scan_scratch_bytes(WS_BINS(p->cells)), z,
			    &w->bins.scratch);
	free(z);
	return st;
}

static void ws_pop_close(weft_model_ctx *mc, ws_pop *w)
{
	weft_model_free(mc, w->bins.scratch);
	weft_model_free(mc, w->bins.cursor);
	weft_model_free(mc, w->bins.starts);
	weft_model_free(mc, w->bins.perm);
	weft_model_free(mc, w->bins.keys);
	weft_model_free(mc, w->energy);
	weft_model_free(mc, w->cell);
	weft_model_free(mc, w->ids);
	weft_agents_close(mc, &w->pop);
}

/* The grid at step 0: each patch grown with chance 1/2, else regrowing
 * after a countdown uniform in 0 .. regrowth - 1 (0: grown after all);
 * ring[k] counts the countdowns of k (grown at the start of step k). */
static void ws_grass0(const ws_params *p, uint32_t *g, uint32_t *ring,
		      uint32_t *grown)
{
	*grown = 0;
	for (uint32_t c = 0; c < p->cells; c++) {
		weft_rand4 r = weft_philox(p->seed_lo, p->seed_hi, c, 0, 0,
					   WS_PURPOSE_INIT_GRASS);

		g[c] = r.v[0] < 0x80000000u ? 0u
					    : WEFT_MULHI32(r.v[1], p->regrowth);
		*grown += g[c] == 0u;
		ring[g[c]] += g[c] != 0u;
	}
}

/* The cells' buffers (grass, the wolf map), the regrowth ring, the
 * control block and the parameters. */
static weft_status ws_grid_open(weft_model_ctx *mc, ws_state *s,
				uint32_t *grown)
{
	const ws_params *p = &s->params;
	size_t cb = 4 * (size_t)p->cells, rb = 4 * ((size_t)p->regrowth + 1);
	uint32_t *g = calloc(1, cb), *ring = calloc(1, rb);
	uint32_t ctl[WS_CTL_WORDS] = { 0 };
	weft_status st;

	if (!g || !ring) {
		free(g);
		free(ring);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the grass at step 0",
				       cb + rb);
	}
	ws_grass0(p, g, ring, grown);
	ctl[WS_CTL_ROW] = 1;
	ctl[WS_CTL_GROWN] = *grown;
	st = ws_buf(mc, "grass", cb, g, &s->grass);
	if (!st)
		st = ws_buf(mc, "regrowth ring", rb, ring, &s->regrow);
	memset(g, 0, cb);
	if (!st)
		st = ws_buf(mc, "wolf map", cb, g, &s->wolfmap);
	free(ring);
	free(g);
	if (!st)
		st = ws_buf(mc, "ctl", sizeof ctl, ctl, &s->ctl);
	if (!st)
		st = weft_model_alloc(mc, "params", sizeof s->params, &s->p);
	if (!st)
		st = weft_model_upload(mc, s->p, 0, &s->params,
				       sizeof s->params);
	return st;
}

static weft_status ws_series_open(weft_model_ctx *mc, ws_state *s,
				  uint32_t grown)
{
	size_t bytes = WS_ROW_WORDS * 4 * (size_t)s->n_rows;
	weft_status st;

	if (!(s->host = calloc(s->n_rows, WS_ROW_WORDS * 4)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %llu rows",
				       (unsigned long long)s->n_rows);
	s->host[WS_ROW_SHEEP] = s->n0[0];
	s->host[WS_ROW_WOLF] = s->n0[1];
	s->host[WS_ROW_GRASS] = grown;
	if ((st = weft_model_alloc(mc, "series", bytes, &s->series)) ||
	    (st = weft_model_upload(mc, s->series, 0, s->host, bytes)))
		return st;
	return weft_model_rows_open(mc, s->series, s->host, WS_ROW_WORDS * 4,
				    WS_SNAP_ROWS, &s->rows);
}

/* ---- the step ------------------------------------------------------------ */

#define WS_B WOLF_SHEEP_K_WEFT_BLOCKS
#define WS_S WOLF_SHEEP_K_WEFT_SPACE
#define WS_G WOLF_SHEEP_K_WEFT_GRID
#define WS_A WOLF_SHEEP_K_WEFT_AGENTS

/* A launch over a population's live agents. */
static weft_launch ws_over(weft_launch l, const ws_pop *w)
{
	l.extent = w->pop.capacity;
	l.extent_buf = w->pop.ctl;
	l.extent_offset = 4 * WEFT_AGENTS_COUNT;
	return l;
}

static uint32_t ws_lists(weft_launch *l, const ws_pop *w)
{
	return weft_grid_lists(l, WS_G, WS_S, WS_B, w->cell, &w->bins);
}

/* The fate kernel wrote nchild and alive: births, each child in its
 * parent's cell with its energy. */
static uint32_t ws_births(weft_launch *l, const ws_pop *w)
{
	uint32_t n = weft_agents_births(l, WS_B, WS_A, &w->pop);

	l[n++] = ws_over(
		wolf_sheep_ws_birth_launch(
			(wolf_sheep_ws_birth_bufs){ .pctl = w->pop.ctl,
						    .nchild = w->pop.nchild,
						    .offs = w->pop.offs,
						    .ids = w->ids,
						    .cell = w->cell,
						    .energy = w->energy,
						    .alive = w->pop.alive },
			1),
		w);
	return n + weft_agents_births_end(l + n, WS_A, &w->pop);
}

/* The animals whose alive flag is 0 removed, the others kept in order. */
static uint32_t ws_deaths(weft_launch *l, const ws_pop *w)
{
	weft_buf *fields[3] = { w->ids, w->cell, w->energy };

	return weft_agents_deaths(l, WS_B, WS_A, &w->pop, fields, 3);
}

static uint32_t ws_sheep_phase(weft_launch *l, ws_state *s)
{
	const ws_pop *sh = &s->sheep, *wo = &s->wolves;
	uint32_t n = 0, cells = s->params.cells;

	l[n++] = wolf_sheep_ws_grass_launch(
		(wolf_sheep_ws_grass_bufs){ .ctl = s->ctl,
					    .grass = s->grass,
					    .wolfmap = s->wolfmap },
		cells);
	l[n++] = ws_over(
		wolf_sheep_ws_wolf_map_launch(
			(wolf_sheep_ws_wolf_map_bufs){ .cell = wo->cell,
						       .wolfmap = s->wolfmap },
			1),
		wo);
	l[n++] = ws_over(wolf_sheep_ws_sheep_move_launch(
				 (wolf_sheep_ws_sheep_move_bufs){
					 .p = s->p,
					 .ctl = s->ctl,
					 .ids = sh->ids,
					 .cell = sh->cell,
					 .energy = sh->energy,
					 .grass = s->grass,
					 .wolfmap = s->wolfmap },
				 1),
			 sh);
	n += ws_lists(l + n, sh);
	l[n++] = ws_over(
		wolf_sheep_ws_graze_launch(
			(wolf_sheep_ws_graze_bufs){ .p = s->p,
						    .ctl = s->ctl,
						    .grass = s->grass,
						    .starts = sh->bins.starts,
						    .perm = sh->bins.perm,
						    .cell = sh->cell,
						    .energy = sh->energy },
			1),
		sh);
	l[n++] = ws_over(wolf_sheep_ws_sheep_fate_launch(
				 (wolf_sheep_ws_sheep_fate_bufs){
					 .p = s->p,
					 .ctl = s->ctl,
					 .ids = sh->ids,
					 .energy = sh->energy,
					 .nchild = sh->pop.nchild,
					 .alive = sh->pop.alive },
				 1),
			 sh);
	return n + ws_births(l + n, sh);
}

static uint32_t ws_wolf_phase(weft_launch *l, ws_state *s)
{
	const ws_pop *sh = &s->sheep, *wo = &s->wolves;
	uint32_t n = 0;

	l[n++] = ws_over(wolf_sheep_ws_sheep_keys_launch(
				 (wolf_sheep_ws_sheep_keys_bufs){
					 .p = s->p,
					 .cell = sh->cell,
					 .alive = sh->pop.alive,
					 .keys = sh->bins.keys },
				 1),
			 sh);
	n += weft_space_bin_keys(l + n, WS_S, WS_B, &sh->bins);
	l[n++] = ws_over(wolf_sheep_ws_wolf_move_launch(
				 (wolf_sheep_ws_wolf_move_bufs){
					 .p = s->p,
					 .ctl = s->ctl,
					 .ids = wo->ids,
					 .cell = wo->cell,
					 .energy = wo->energy,
					 .sstarts = sh->bins.starts },
				 1),
			 wo);
	n += ws_lists(l + n, wo);
	l[n++] = ws_over(
		wolf_sheep_ws_hunt_launch(
			(wolf_sheep_ws_hunt_bufs){ .p = s->p,
						   .ctl = s->ctl,
						   .sstarts = sh->bins.starts,
						   .sperm = sh->bins.perm,
						   .salive = sh->pop.alive,
						   .wstarts = wo->bins.starts,
						   .wperm = wo->bins.perm,
						   .wcell = wo->cell,
						   .wenergy = wo->energy },
			1),
		wo);
	l[n++] = ws_over(wolf_sheep_ws_wolf_fate_launch(
				 (wolf_sheep_ws_wolf_fate_bufs){
					 .p = s->p,
					 .ctl = s->ctl,
					 .ids = wo->ids,
					 .energy = wo->energy,
					 .nchild = wo->pop.nchild,
					 .alive = wo->pop.alive },
				 1),
			 wo);
	n += ws_births(l + n, wo);
	n += ws_deaths(l + n, wo);
	return n + ws_deaths(l + n, sh);
}

static weft_status ws_set_step(weft_model_ctx *mc, ws_state *s)
{
	weft_launch *l = calloc(WS_MAX_LAUNCHES, sizeof *l);
	uint32_t n;
	weft_status st;

	if (!l)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the step's %u launches",
				       WS_MAX_LAUNCHES * sizeof *l,
				       (unsigned)WS_MAX_LAUNCHES);
	n = ws_sheep_phase(l, s);
	n += ws_wolf_phase(l + n, s);
	l[n++] = wolf_sheep_ws_tick_launch(
		(wolf_sheep_ws_tick_bufs){ .p = s->p,
					   .ctl = s->ctl,
					   .sctl = s->sheep.pop.ctl,
					   .wctl = s->wolves.pop.ctl,
					   .regrow = s->regrow,
					   .series = s->series },
		1);
	st = weft_model_set_step(mc, l, n);
	free(l);
	return st;
}

static weft_status ws_setup(weft_model_ctx *mc, void **out)
{
	ws_state *s = calloc(1, sizeof *s);
	uint32_t grown = 0;
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	if ((st = ws_read_params(mc, s)) ||
	    (st = ws_grid_open(mc, s, &grown)) ||
	    (st = ws_pop_open(mc, s, &s->sheep, 0)) ||
	    (st = ws_pop_open(mc, s, &s->wolves, 1)) ||
	    (st = ws_series_open(mc, s, grown)) || (st = ws_set_step(mc, s)))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "counts.csv", &s->csv)))
		return st;
	return weft_output_printf(s->csv, "step,sheep,wolves,grass\n");
}

/* ---- outputs ------------------------------------------------------------- */

static weft_status ws_collect(weft_model_ctx *mc, void *state,
			      uint64_t steps_done, unsigned slot)
{
	ws_state *s = state;
	weft_status st;

	if ((st = weft_agents_collect(mc, &s->sheep.pop, slot)) ||
	    (st = weft_agents_collect(mc, &s->wolves.pop, slot)))
		return st;
	return weft_model_rows_collect(
		mc, s->rows, slot,
		weft_model_rows_due(steps_done, s->params.every,
				    s->params.last_step, 1, s->n_rows));
}

static weft_status ws_emit(weft_model_ctx *mc, void *state, uint64_t steps_done,
			   unsigned slot)
{
	ws_state *s = state;
	uint64_t first, end;
	weft_status st;

	if ((st = weft_agents_check(mc, &s->sheep.pop, slot, steps_done)) ||
	    (st = weft_agents_check(mc, &s->wolves.pop, slot, steps_done)))
		return st;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t r = first; r < end && s->csv; r++) {
		const uint32_t *row = s->host + r * WS_ROW_WORDS;

		if ((st = weft_output_printf(
			     s->csv, "%u,%u,%u,%u\n", row[WS_ROW_STEP],
			     row[WS_ROW_SHEEP], row[WS_ROW_WOLF],
			     row[WS_ROW_GRASS])))
			return st;
	}
	return WEFT_OK;
}

static weft_status ws_finish(weft_model_ctx *mc, void *state)
{
	ws_state *s = state;
	uint32_t sc[WEFT_AGENTS_CTL_WORDS], wc[WEFT_AGENTS_CTL_WORDS];
	weft_status st;

	if ((st = weft_model_download(mc, sc, s->sheep.pop.ctl, 0,
				      sizeof sc)) ||
	    (st = weft_model_download(mc, wc, s->wolves.pop.ctl, 0, sizeof wc)))
		return st;
	weft_model_summary(mc, "grid", "%u x %u cells (a torus)",
			   s->params.width, s->params.height);
	weft_model_summary(mc, "final sheep/wolves", "%u / %u",
			   sc[WEFT_AGENTS_COUNT], wc[WEFT_AGENTS_COUNT]);
	weft_model_summary(mc, "born in all", "%u sheep, %u wolves",
			   sc[WEFT_AGENTS_NEXT] - s->n0[0],
			   wc[WEFT_AGENTS_NEXT] - s->n0[1]);
	weft_model_summary(mc, "capacity", "%u sheep, %u wolves", s->cap[0],
			   s->cap[1]);
	return WEFT_OK;
}

static void ws_teardown(weft_model_ctx *mc, void *state)
{
	ws_state *s = state;

	if (!s)
		return;
	weft_model_rows_close(mc, s->rows);
	ws_pop_close(mc, &s->wolves);
	ws_pop_close(mc, &s->sheep);
	weft_model_free(mc, s->series);
	weft_model_free(mc, s->p);
	weft_model_free(mc, s->ctl);
	weft_model_free(mc, s->regrow);
	weft_model_free(mc, s->wolfmap);
	weft_model_free(mc, s->grass);
	free(s->host);
	free(s);
}

/* ---- the entry ----------------------------------------------------------- */

static const weft_plot_curve ws_curves[] = {
	{ "sheep", "sheep", "#1f77b4" },
	{ "wolves", "wolves", "#d62728" },
	{ "grass", "grown grass patches", "#2ca02c" },
};

static const weft_plot_desc ws_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "counts.csv",
	.title = "Wolf-sheep predation",
	.x = "step",
	.xlabel = "step",
	.ylabel = "count",
	.curves = ws_curves,
	.n_curves = sizeof ws_curves / sizeof ws_curves[0],
};

static const weft_outcome_desc ws_outcomes[] = {
	{ "final_sheep", "sheep", WEFT_OUTCOME_LAST, NULL, 1.0 },
	{ "final_wolves", "wolves", WEFT_OUTCOME_LAST, NULL, 1.0 },
	{ "peak_wolves", "wolves", WEFT_OUTCOME_MAX, NULL, 1.0 },
};

static const weft_ensemble_desc ws_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "counts.csv",
	.x = "step",
	.compare = "sheep",
	.outcomes = ws_outcomes,
	.n_outcomes = sizeof ws_outcomes / sizeof ws_outcomes[0],
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "wolf_sheep", /* weft-model-wolf_sheep.so, [wolf_sheep] */
	.version = WS_VERSION,
	.summary = "wolf-sheep predation (Mesa's and NetLogo's): sheep, "
		   "wolves and regrowing grass on a torus grid",
	.keys = ws_keys,
	.n_keys = sizeof ws_keys / sizeof ws_keys[0],
	.program = &wolf_sheep_program,
	.sigs = wolf_sheep_sigs,
	.setup = ws_setup,
	.check = ws_check,
	.estimate = ws_estimate,
	.finish = ws_finish,
	.teardown = ws_teardown,
	.collect = ws_collect,
	.emit = ws_emit,
	/* `weft conform`: a 40 x 40 grid, busier than the example, 60
	 * steps. */
	.conform_sets = "wolf_sheep.width=40\n"
			"wolf_sheep.height=40\n"
			"wolf_sheep.initial_sheep=400\n"
			"wolf_sheep.initial_wolves=100\n"
			"simulation.steps=60\n",
	.plot = &ws_plot,
	.ensemble = &ws_ensemble,
	.checkpoints = 1,
	.collect_points = WS_COLLECT_POINTS,
};
