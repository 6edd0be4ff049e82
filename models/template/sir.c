/*
 * sir.c - the SIR model's host code: the plugin weft-model-sir.so, weft's
 * model template (docs/writing-a-model.md walks from a copy of it to a
 * model of your own).
 *
 * The model: a grid of width x height cells on a torus, each susceptible
 * (S), infected (I) or recovered (R). In a step, each infected cell
 * infects each susceptible von Neumann neighbour (north, east, south,
 * west) with probability beta, and an infected cell recovers after
 * `recovery` steps, for good. At step 0, `initial_infected` cells drawn
 * at random are infected. Everything random is a counter-based draw keyed
 * by the seed, so the run gives the same numbers, bit for bit, on every
 * backend and thread count.
 *
 * This file uses weft/model.h and nothing else of weft: the keys of
 * [sir]; setup() builds the state on the host, uploads it once and
 * declares the step's launches (the kernels are in sir.wk) and what its
 * state is, for checkpoints; collect() and emit() read back the rows of
 * the series and write sir.csv; finish() adds summary lines; teardown()
 * frees everything. The entry at the end is the only symbol the plugin
 * exports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/model.h>

#include "sir_kernels.h"
#include "sir_shared.h"

/* The model's own version, for `weft models` and the run summary. */
#define SIR_VERSION "1.0"

/* Rows of a chunk's output snapshot. A chunk ends at the next multiple
 * of [output] every or at the last step, and the device writes a row
 * only there; the first chunk also reads row 0, the state at step 0. */
#define SIR_SNAP_ROWS 2u
/* The most rows the series may hold (16 bytes each: 4 GiB). */
#define SIR_MAX_ROWS (1u << 28)

/* [sir]: every key with a default that passes its own check and a help
 * sentence (`weft conform` and `weft config-reference` show them). */
static const weft_key_desc sir_keys[] = {
	{ "width", WEFT_KEY_INT, "256", 3, 32768, NULL,
	  "columns of the grid, which wraps around: the first column "
	  "neighbours the last" },
	{ "height", WEFT_KEY_INT, "256", 3, 32768, NULL,
	  "rows of the grid, which wraps around: the first row neighbours "
	  "the last" },
	{ "beta", WEFT_KEY_REAL, "0.3", 0, 1, NULL,
	  "probability that an infected cell infects a susceptible neighbour "
	  "in one step, for each of its four neighbours on its own" },
	{ "recovery", WEFT_KEY_INT, "6", 1, SIR_MAX_RECOVERY, NULL,
	  "steps an infected cell stays infectious; it then recovers for "
	  "good" },
	{ "initial_infected", WEFT_KEY_INT, "4", 1, 1000000, NULL,
	  "cells infected at step 0, placed at random by draws keyed by the "
	  "seed; at most width x height" },
};

/* The model's state, *state of setup() and the functions after it. */
typedef struct sir_state {
	sir_params params;
	uint64_t n_rows;
	weft_buf *p;	  /* the parameter block */
	weft_buf *cells;  /* the grid twice: u32[2][height][width] */
	weft_buf *ctl;	  /* the control block, SIR_CTL_* */
	weft_buf *series; /* u32[n_rows][SIR_ROW_WORDS] */
	uint32_t *host;	  /* the rows read back so far, same layout */
	/* The rows read back through output snapshots (weft_model_rows_*),
	 * so that reading them overlaps the next steps. */
	weft_model_rows *rows;
	weft_output *csv; /* sir.csv, NULL when [output] csv = false */
	/* The largest infected count of the rows emitted so far and its step
	 * (written by emit() on the writer thread, read by finish() after it
	 * joined): host state, which checkpoints save (sir_declare_state). */
	struct sir_peak {
		uint32_t count;
		uint32_t step;
	} peak;
} sir_state;

/* ---- parameters ----------------------------------------------------------
 */

/* beta as a threshold for sir_chance(): floor(beta 2^32), saturated. */
static uint32_t sir_threshold(double beta)
{
	double t = beta * 4294967296.0;

	return t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
}

/* The parameter block from [sir], [simulation] and [output]; and the
 * checks of values that are valid alone but not together, naming where
 * each value came from. */
static weft_status sir_read_params(weft_model_ctx *mc, sir_state *s)
{
	sir_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);
	uint64_t steps = weft_model_steps(mc);
	uint64_t every = weft_model_output_every(mc);
	int64_t infected = weft_model_int(mc, "initial_infected");

	memset(p, 0, sizeof *p);
	p->width = (uint32_t)weft_model_int(mc, "width");
	p->height = (uint32_t)weft_model_int(mc, "height");
	p->cells = p->width * p->height; /* at most 2^30 */
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->beta_thr = sir_threshold(weft_model_real(mc, "beta"));
	p->recovery = (uint32_t)weft_model_int(mc, "recovery");
	/* Both at most 10^9 ([simulation] steps, [output] every). */
	p->every = (uint32_t)every;
	p->last_step = (uint32_t)steps;
	s->n_rows = 1 + (steps + every - 1) / every;
	p->n_rows = (uint32_t)s->n_rows;
	if (infected > (int64_t)p->cells)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[sir] initial_infected = %lld (%s) is "
				       "more than the %u cells of the %u x %u "
				       "grid",
				       (long long)infected,
				       weft_model_where(mc, "initial_infected"),
				       p->cells, p->width, p->height);
	if (s->n_rows > SIR_MAX_ROWS)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[simulation] steps = %llu with a row every %llu "
			"steps ([output] every) make %llu rows of sir.csv, "
			"more than %u: raise [output] every",
			(unsigned long long)steps, (unsigned long long)every,
			(unsigned long long)s->n_rows, SIR_MAX_ROWS);
	return WEFT_OK;
}

/* check() (model ABI 1.1): what sir_read_params() refuses, without a
 * run, so that `weft check` sees it too; setup() reads the parameters
 * with the same function. */
static weft_status sir_check(weft_model_ctx *mc)
{
	sir_state s;

	memset(&s, 0, sizeof s);
	return sir_read_params(mc, &s);
}

/* estimate() (model ABI 1.3): the memory a run needs, before anything is
 * allocated, from the same parameters, so that a grid too large for the
 * machine is refused at once with the keys that drive it (and `weft
 * check` reports it). Device: the buffers sir_alloc_all() allocates and
 * the output snapshots; host: the grid's upload copy and the rows' host
 * copy. */
static weft_status sir_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	sir_state s;
	uint64_t rows, cells;
	char grid[96];
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = sir_read_params(mc, &s)))
		return st;
	cells = s.params.cells;
	rows = SIR_ROW_WORDS * 4 * s.n_rows;
	snprintf(grid, sizeof grid, "[sir] width = %u, height = %u",
		 s.params.width, s.params.height);
	if ((st = weft_model_estimate_add(est, "the grid", grid, 2 * 4 * cells,
					  sizeof s.params + 2 * 4 * cells +
						  4 * SIR_CTL_WORDS)))
		return st;
	return weft_model_estimate_add(
		est, "the rows", "[simulation] steps, [output] every", rows,
		rows + weft_model_rows_bytes(mc, SIR_ROW_WORDS * 4,
					     SIR_SNAP_ROWS));
}

/* ---- the state at step 0 ---------------------------------------------------
 */

/* Infect `n` cells of grid 0, each where sir_seed_cell() draws it, drawing
 * again where a cell is infected already: serial, on the host, from
 * counter-based draws, so the same on every backend. */
static void sir_place(const sir_params *p, uint32_t n, uint32_t *grid)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t c, attempt = 0;

		do
			c = sir_seed_cell(p->seed_lo, p->seed_hi, k, attempt++,
					  p->cells);
		while (SIR_STATE(grid[c]) != SIR_S);
		grid[c] = SIR_CELL(SIR_I, p->recovery);
	}
}

static weft_status sir_alloc_all(weft_model_ctx *mc, sir_state *s)
{
	size_t cells = s->params.cells;
	weft_status st;

	s->host = calloc(s->n_rows, SIR_ROW_WORDS * sizeof(uint32_t));
	if (!s->host)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the host copy of %llu "
				       "rows",
				       (unsigned long long)s->n_rows);
	if ((st = weft_model_alloc(mc, "params", sizeof s->params, &s->p)) ||
	    (st = weft_model_alloc(mc, "cells", 2 * 4 * cells, &s->cells)) ||
	    (st = weft_model_alloc(mc, "ctl", 4 * SIR_CTL_WORDS, &s->ctl)))
		return st;
	return weft_model_alloc(mc, "series",
				SIR_ROW_WORDS * 4 * (size_t)s->n_rows,
				&s->series);
}

/* Every byte of every buffer is defined (the conformance suite compares
 * them all): grid 0 with its infections, grid 1 zero, the counts, and the
 * series with row 0 (step 0) and zeros. */
static weft_status sir_upload_all(weft_model_ctx *mc, sir_state *s)
{
	const sir_params *p = &s->params;
	uint32_t n = (uint32_t)weft_model_int(mc, "initial_infected");
	uint32_t ctl[SIR_CTL_WORDS] = { 0 };
	uint32_t *grid = calloc(2 * (size_t)p->cells, sizeof *grid);
	weft_status st;

	if (!grid)
		return weft_model_fail(
			mc, WEFT_E_NOMEM,
			"cannot allocate %zu bytes of host memory "
			"for the grid",
			2 * sizeof *grid * p->cells);
	sir_place(p, n, grid);
	ctl[SIR_CTL_S] = p->cells - n;
	ctl[SIR_CTL_I] = n;
	ctl[SIR_CTL_ROW] = 1;
	s->host[SIR_ROW_S] = ctl[SIR_CTL_S];
	s->host[SIR_ROW_I] = ctl[SIR_CTL_I];
	if (!(st = weft_model_upload(mc, s->p, 0, p, sizeof *p)) &&
	    !(st = weft_model_upload(mc, s->cells, 0, grid,
				     2 * sizeof *grid * p->cells)) &&
	    !(st = weft_model_upload(mc, s->ctl, 0, ctl, sizeof ctl)))
		st = weft_model_upload(mc, s->series, 0, s->host,
				       SIR_ROW_WORDS * 4 * (size_t)s->n_rows);
	free(grid);
	return st;
}

/* ---- launches and views ----------------------------------------------------
 */

/* One step: every cell, then the one item that counts the step. The list
 * is declared once; step(n) runs it n times with no host in between. */
static weft_status sir_set_step(weft_model_ctx *mc, sir_state *s)
{
	weft_launch l[2];

	l[0] = sir_step_launch(
		(sir_step_bufs){ .p = s->p, .cells = s->cells, .ctl = s->ctl },
		s->params.cells);
	l[1] = sir_tick_launch((sir_tick_bufs){ .p = s->p,
						.ctl = s->ctl,
						.series = s->series },
			       1);
	return weft_model_set_step(mc, l, 2);
}

/* What an application sees (weft_sim_array_find(), or numpy through a
 * binding): both grids, the current one being cells[step % 2], and the
 * counts S, I, R after the last step. */
static weft_status sir_add_views(weft_model_ctx *mc, sir_state *s)
{
	int64_t grids[3] = { 2, s->params.height, s->params.width };
	int64_t counts[1] = { 3 };
	weft_status st;

	st = weft_model_array(mc, "cells", s->cells, 0, WEFT_DTYPE_U32, 3,
			      grids);
	if (st)
		return st;
	return weft_model_array(mc, "counts", s->ctl, 4 * SIR_CTL_S,
				WEFT_DTYPE_U32, 1, counts);
}

/* What a checkpoint saves: everything a step changes that later steps or
 * outputs read. The grids and the control block (its step counter keys
 * the draws); the series and its snapshots are declared by
 * weft_model_rows_open(); the peak is kept on the host. The parameter
 * block is not state: setup() makes it again from the configuration. */
static weft_status sir_declare_state(weft_model_ctx *mc, sir_state *s)
{
	weft_status st;

	if ((st = weft_model_state(mc, s->cells)) ||
	    (st = weft_model_state(mc, s->ctl)))
		return st;
	return weft_model_state_host(mc, "peak", &s->peak, sizeof s->peak);
}

static weft_status sir_setup(weft_model_ctx *mc, void **out)
{
	sir_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s; /* from here on, teardown() frees what is set */
	if ((st = sir_read_params(mc, s)) || (st = sir_alloc_all(mc, s)) ||
	    (st = sir_upload_all(mc, s)) || (st = sir_set_step(mc, s)) ||
	    (st = sir_add_views(mc, s)) || (st = sir_declare_state(mc, s)) ||
	    (st = weft_model_rows_open(mc, s->series, s->host,
				       SIR_ROW_WORDS * sizeof(uint32_t),
				       SIR_SNAP_ROWS, &s->rows)))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "sir.csv", &s->csv)))
		return st;
	return weft_output_printf(s->csv, "step,S,I,R\n");
}

/* ---- outputs ---------------------------------------------------------------
 */

/* Main thread, right after the chunk ending at steps_done was enqueued:
 * enqueue the reads of the rows it wrote. Never waits. */
static weft_status sir_collect(weft_model_ctx *mc, void *state,
			       uint64_t steps_done, unsigned slot)
{
	sir_state *s = state;

	/* The rows written by steps_done: row 0 (the state at step 0), one
	 * per multiple of `every`, one after the last step. */
	return weft_model_rows_collect(
		mc, s->rows, slot,
		weft_model_rows_due(steps_done, s->params.every,
				    s->params.last_step, 1, s->n_rows));
}

/* Writer thread, once the slot's rows are in host memory: append them to
 * sir.csv, in order. Host memory only: no backend, no summary here. */
static weft_status sir_emit(weft_model_ctx *mc, void *state,
			    uint64_t steps_done, unsigned slot)
{
	sir_state *s = state;
	uint64_t first, end;
	weft_status st;

	(void)mc;
	(void)steps_done;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t r = first; r < end; r++) {
		const uint32_t *row = s->host + r * SIR_ROW_WORDS;

		if (row[SIR_ROW_I] > s->peak.count) {
			s->peak.count = row[SIR_ROW_I];
			s->peak.step = row[SIR_ROW_STEP];
		}
		if (s->csv &&
		    (st = weft_output_printf(s->csv, "%u,%u,%u,%u\n",
					     row[SIR_ROW_STEP], row[SIR_ROW_S],
					     row[SIR_ROW_I], row[SIR_ROW_R])))
			return st;
	}
	return WEFT_OK;
}

/* Once, after the last step (the writer has emitted everything): the
 * final counts, read from the device, and the summary. */
static weft_status sir_finish(weft_model_ctx *mc, void *state)
{
	sir_state *s = state;
	const sir_params *p = &s->params;
	uint32_t ctl[SIR_CTL_WORDS];
	weft_status st;

	st = weft_model_download(mc, ctl, s->ctl, 0, sizeof ctl);
	if (st)
		return st;
	weft_model_summary(mc, "grid", "%u x %u cells (a torus)", p->width,
			   p->height);
	weft_model_summary(mc, "final S/I/R", "%u / %u / %u", ctl[SIR_CTL_S],
			   ctl[SIR_CTL_I], ctl[SIR_CTL_R]);
	weft_model_summary(mc, "infected in all", "%u (attack rate %.2f %%)",
			   p->cells - ctl[SIR_CTL_S],
			   100.0 * (p->cells - ctl[SIR_CTL_S]) / p->cells);
	weft_model_summary(mc, "peak infected",
			   "%u at step %u (of the rows of sir.csv)",
			   s->peak.count, s->peak.step);
	return WEFT_OK;
}

/* Whenever setup() set *state, also after a failed setup: free whatever
 * is there (weft_model_free and weft_model_rows_close take NULL). */
static void sir_teardown(weft_model_ctx *mc, void *state)
{
	sir_state *s = state;

	if (!s)
		return;
	weft_model_rows_close(mc, s->rows);
	weft_model_free(mc, s->series);
	weft_model_free(mc, s->ctl);
	weft_model_free(mc, s->cells);
	weft_model_free(mc, s->p);
	free(s->host);
	free(s);
}

/* ---- the entry ------------------------------------------------------------
 */

/* [output] plot: the three curves over the steps, from sir.csv. */
static const weft_plot_curve sir_curves[] = {
	{ "S", "susceptible", "#1f77b4" },
	{ "I", "infected", "#d62728" },
	{ "R", "recovered", "#2ca02c" },
};

static const weft_plot_desc sir_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "sir.csv",
	.title = "SIR on a grid",
	.x = "step",
	.xlabel = "step",
	.ylabel = "cells",
	.curves = sir_curves,
	.n_curves = sizeof sir_curves / sizeof sir_curves[0],
};

/* Ensembles ([ensemble] runs, [sweep], [scenario NAME]): every column of
 * sir.csv per step, and these final outcomes across runs (mean, 5-95 %):
 * what a model declares so that its ensembles summarise what matters. */
static const weft_outcome_desc sir_outcomes[] = {
	{ "recovered_pct", "R", WEFT_OUTCOME_LAST, "S+I+R", 100.0 },
	{ "peak_infected", "I", WEFT_OUTCOME_MAX, NULL, 1.0 },
	{ "peak_step", "I", WEFT_OUTCOME_ARGMAX, NULL, 1.0 },
};

static const weft_ensemble_desc sir_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "sir.csv",
	.x = "step",
	.compare = "I",
	.outcomes = sir_outcomes,
	.n_outcomes = sizeof sir_outcomes / sizeof sir_outcomes[0],
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "sir", /* weft-model-sir.so, and the section [sir] */
	.version = SIR_VERSION,
	.summary = "SIR epidemic on a grid (weft's model template): "
		   "infection of von Neumann neighbours, fixed recovery",
	.keys = sir_keys,
	.n_keys = sizeof sir_keys / sizeof sir_keys[0],
	.program = &sir_program, /* sir_kernels.c, written by weft-wk */
	.sigs = sir_sigs,
	.setup = sir_setup,
	.check = sir_check,
	.estimate = sir_estimate,
	.finish = sir_finish,
	.teardown = sir_teardown,
	.collect = sir_collect,
	.emit = sir_emit,
	/* `weft conform`: a 64 x 64 grid for 60 steps, well under a second
	 * per run on any backend. */
	.conform_sets = "sir.width=64\n"
			"sir.height=64\n"
			"sir.initial_infected=3\n"
			"simulation.steps=60\n",
	.plot = &sir_plot,
	.ensemble = &sir_ensemble,
	/* setup() declares its state (sir_declare_state): runs can be
	 * checkpointed and resumed. */
	.checkpoints = 1,
};
