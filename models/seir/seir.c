/*
 * models/seir/seir.c - the SEIR model's host side: parameters, a
 * deterministic synthetic population stored as CSR, initial infections,
 * the day's launch list and the daily CSV. Everything that runs per agent
 * per day is in seir.wk.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "seir.h"

static const weft_key_desc seir_keys[] = {
	{ "agents", WEFT_KEY_INT, "37518", 1, 2000000000, NULL,
	  "number of agents in the synthetic population" },
	{ "contacts", WEFT_KEY_INT, "10", 0, 1000, NULL,
	  "mean number of contacts per agent; the contact layer is a random "
	  "symmetric graph without self-loops or repeated pairs" },
	{ "beta", WEFT_KEY_REAL, "0.05", 0, 1, NULL,
	  "probability that an infectious agent infects one susceptible "
	  "contact in one day" },
	{ "latent_days", WEFT_KEY_INT, "3", 1, 255, NULL,
	  "days an exposed agent stays exposed before becoming infectious" },
	{ "infectious_days", WEFT_KEY_INT, "5", 1, 255, NULL,
	  "days an infectious agent stays infectious before recovering" },
	{ "initial_infected", WEFT_KEY_INT, "10", 0, 2000000000, NULL,
	  "agents infectious on day 0 (at most agents)" },
	{ "population_seed", WEFT_KEY_INT, "0", 0, 9007199254740991.0, NULL,
	  "seed of the synthetic population; 0 uses [simulation] seed, so "
	  "ensembles over seeds can share one population by setting it" },
};

/* Probability as a 32-bit threshold: transmit when draw < threshold. A
 * probability of 1 saturates at 2^32 - 1 (a miss once in 4e9 draws). */
static uint32_t seir_threshold(double p)
{
	double t = floor(p * 4294967296.0);
	return t >= 4294967295.0 ? 4294967295u : (uint32_t)t;
}

static weft_status seir_read_params(weft_model_ctx *mc, seir_state *s)
{
	int64_t agents = weft_model_int(mc, "agents");
	int64_t seeded = weft_model_int(mc, "initial_infected");
	uint64_t seed = weft_model_seed(mc);
	uint64_t steps = weft_model_steps(mc);

	if (seeded > agents)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: initial_infected = %lld exceeds "
				       "agents = %lld (%s)",
				       weft_model_where(mc, "initial_infected"),
				       (long long)seeded, (long long)agents,
				       weft_model_where(mc, "agents"));
	if (steps >= UINT32_MAX)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%llu steps is more days than the "
				       "series can hold (%u)",
				       (unsigned long long)steps,
				       UINT32_MAX - 1);
	s->n_agents = (uint32_t)agents;
	s->params.n_agents = s->n_agents;
	s->params.seed_lo = (uint32_t)seed;
	s->params.seed_hi = (uint32_t)(seed >> 32);
	s->params.beta_threshold = seir_threshold(weft_model_real(mc, "beta"));
	s->params.latent_days = (uint32_t)weft_model_int(mc, "latent_days");
	s->params.infectious_days =
		(uint32_t)weft_model_int(mc, "infectious_days");
	s->params.n_days = (uint32_t)steps;
	return WEFT_OK;
}

static weft_status seir_alloc_all(weft_model_ctx *mc, seir_state *s)
{
	size_t n = s->n_agents;
	size_t rows = (size_t)s->params.n_days + 1;
	weft_status st;

	if ((st = weft_model_alloc(mc, "params", sizeof s->params,
				   &s->b_params)) ||
	    (st = weft_model_alloc(mc, "state", n, &s->b_state)) ||
	    (st = weft_model_alloc(mc, "timer", n * sizeof(uint16_t),
				   &s->b_timer)) ||
	    (st = weft_model_alloc(mc, "tally",
				   SEIR_TALLY_WORDS * sizeof(uint32_t),
				   &s->b_tally)) ||
	    (st = weft_model_alloc(mc, "series",
				   rows * SEIR_ROW_WORDS * sizeof(uint32_t),
				   &s->b_series)))
		return st;
	s->series = calloc(rows, SEIR_ROW_WORDS * sizeof(uint32_t));
	if (!s->series)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the host copy of %zu "
				       "daily rows",
				       rows);
	return WEFT_OK;
}

static void seir_launch(weft_launch *l, uint32_t kernel, uint32_t extent,
			weft_buf *const *bufs, uint32_t n_bufs)
{
	memset(l, 0, sizeof *l);
	l->kernel = kernel;
	l->extent = extent;
	l->n_bufs = n_bufs;
	memcpy(l->bufs, bufs, n_bufs * sizeof bufs[0]);
}

/* One day: progression, transmission, tally (see seir.wk). */
static weft_status seir_set_step(weft_model_ctx *mc, seir_state *s)
{
	weft_launch l[3];
	weft_buf *prog[] = { s->b_params, s->b_state, s->b_timer, s->b_tally };
	weft_buf *trans[] = { s->b_params, s->b_state, s->b_timer,
			      s->b_tally,  s->b_row,   s->b_col };
	weft_buf *tally[] = { s->b_params, NULL, NULL, s->b_tally,
			      s->b_series };

	/* Unused slots of the tally launch are bound to a real buffer so
	 * that no backend ever sees a NULL among bound buffers. */
	tally[1] = s->b_state;
	tally[2] = s->b_timer;
	seir_launch(&l[0], SEIR_K_PROGRESS, s->n_agents, prog, 4);
	seir_launch(&l[1], SEIR_K_TRANSMIT, s->n_agents, trans, 6);
	seir_launch(&l[2], SEIR_K_TALLY, 1, tally, 5);
	return weft_model_set_step(mc, l, 3);
}

/* Output snapshots: one region of snap_rows rows per output slot in
 * b_snap, each big enough for a chunk's rows (at most `every`, plus day 0
 * in the first), zeroed so that every byte is defined (state digests
 * compare it). */
static weft_status seir_snap_setup(weft_model_ctx *mc, seir_state *s)
{
	unsigned slots = weft_model_output_slots(mc);
	uint64_t every = weft_model_output_every(mc);
	size_t bytes;
	void *zero;
	weft_status st;

	s->snap_rows =
		(every < s->params.n_days ? every : s->params.n_days) + 1;
	bytes = (size_t)slots * s->snap_rows * SEIR_ROW_WORDS *
		sizeof(uint32_t);
	s->slot_first = calloc(slots, sizeof *s->slot_first);
	s->slot_rows = calloc(slots, sizeof *s->slot_rows);
	zero = calloc(1, bytes);
	if (!s->slot_first || !s->slot_rows || !zero) {
		free(zero);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes for output "
				       "snapshots",
				       bytes);
	}
	st = weft_model_alloc(mc, "series snapshots", bytes, &s->b_snap);
	if (st == WEFT_OK)
		st = weft_model_upload(mc, s->b_snap, 0, zero, bytes);
	free(zero);
	return st;
}

static weft_status seir_setup(weft_model_ctx *mc, void **out)
{
	seir_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	if ((st = seir_read_params(mc, s)) || (st = seir_alloc_all(mc, s)) ||
	    (st = weft__seir_build_population(mc, s)) ||
	    (st = weft__seir_seed_infections(mc, s)) ||
	    (st = weft_model_upload(mc, s->b_params, 0, &s->params,
				    sizeof s->params)) ||
	    (st = seir_set_step(mc, s)) || (st = seir_snap_setup(mc, s)))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "daily.csv", &s->csv)))
		return st;
	return weft_output_printf(s->csv, "day,S,E,I,R,new_infections\n");
}

/* Main thread, after the chunk ending at steps_done was enqueued: copy the
 * rows not read yet into the slot's snapshot region, then read them back
 * into `series` asynchronously. Chunks' rows are disjoint in `series`, so
 * no two slots share host memory; the next steps may overwrite nothing
 * the read needs, since it reads the snapshot. */
static weft_status seir_collect(weft_model_ctx *mc, void *state,
				uint64_t steps_done, unsigned slot)
{
	seir_state *s = state;
	size_t row_bytes = SEIR_ROW_WORDS * sizeof(uint32_t);
	uint64_t first = s->rows_read;
	uint64_t n = steps_done >= first ? steps_done + 1 - first : 0;
	size_t region = (size_t)slot * s->snap_rows * row_bytes;
	weft_status st;

	s->slot_first[slot] = first;
	s->slot_rows[slot] = 0;
	if (n == 0)
		return WEFT_OK;
	if (n > s->snap_rows)
		return weft_model_fail(mc, WEFT_E_INTERNAL,
				       "%llu rows after step %llu do not fit "
				       "a snapshot region of %llu rows",
				       (unsigned long long)n,
				       (unsigned long long)steps_done,
				       (unsigned long long)s->snap_rows);
	if ((st = weft_model_copy(mc, s->b_snap, region, s->b_series,
				  first * row_bytes, n * row_bytes)) ||
	    (st = weft_model_download_async(mc,
					    s->series + first * SEIR_ROW_WORDS,
					    s->b_snap, region, n * row_bytes)))
		return st;
	s->slot_rows[slot] = n;
	s->rows_read = steps_done + 1;
	return WEFT_OK;
}

/* Writer thread, once the slot's rows are in `series`: append the CSV rows
 * due among them (every `every` days, and the last day of the run). */
static weft_status seir_emit(weft_model_ctx *mc, void *state,
			     uint64_t steps_done, unsigned slot)
{
	seir_state *s = state;
	uint64_t every = weft_model_output_every(mc);
	uint64_t first = s->slot_first[slot];
	uint64_t end = first + s->slot_rows[slot];
	weft_status st;

	(void)steps_done;
	for (uint64_t d = first; s->csv && d < end; d++) {
		const uint32_t *r = s->series + d * SEIR_ROW_WORDS;
		if (d % every != 0 && d != weft_model_steps(mc))
			continue;
		st = weft_output_printf(s->csv, "%llu,%u,%u,%u,%u,%u\n",
					(unsigned long long)d, r[0], r[1], r[2],
					r[3], r[4]);
		if (st)
			return st;
	}
	return WEFT_OK;
}

static weft_status seir_finish(weft_model_ctx *mc, void *state)
{
	seir_state *s = state;
	uint64_t days = s->rows_read ? s->rows_read - 1 : 0;
	uint64_t infected = 0, peak_day = 0;
	uint32_t peak = 0;
	const uint32_t *last = s->series + days * SEIR_ROW_WORDS;

	for (uint64_t d = 0; d <= days; d++) {
		const uint32_t *r = s->series + d * SEIR_ROW_WORDS;
		infected += d ? r[4] : r[2];
		if (r[2] > peak) {
			peak = r[2];
			peak_day = d;
		}
	}
	weft_model_summary(mc, "agents", "%u", s->n_agents);
	weft_model_summary(mc, "contacts stored", "%llu (mean degree %.2f)",
			   (unsigned long long)s->n_edges,
			   (double)s->n_edges / s->n_agents);
	weft_model_summary(mc, "days", "%llu", (unsigned long long)days);
	weft_model_summary(mc, "final S/E/I/R", "%u / %u / %u / %u", last[0],
			   last[1], last[2], last[3]);
	weft_model_summary(mc, "infected in all", "%llu (attack rate %.2f %%)",
			   (unsigned long long)infected,
			   100.0 * (double)infected / s->n_agents);
	weft_model_summary(mc, "peak infectious", "%u on day %llu", peak,
			   (unsigned long long)peak_day);
	return WEFT_OK;
}

static void seir_teardown(weft_model_ctx *mc, void *state)
{
	seir_state *s = state;
	if (!s)
		return;
	weft_model_free(mc, s->b_params);
	weft_model_free(mc, s->b_state);
	weft_model_free(mc, s->b_timer);
	weft_model_free(mc, s->b_tally);
	weft_model_free(mc, s->b_row);
	weft_model_free(mc, s->b_col);
	weft_model_free(mc, s->b_series);
	weft_model_free(mc, s->b_snap);
	free(s->slot_first);
	free(s->slot_rows);
	free(s->series);
	free(s);
}

const weft_model weft__model_seir = {
	.abi_version = WEFT_MODEL_ABI,
	.struct_size = sizeof(weft_model),
	.name = "seir",
	.summary = "SEIR epidemic on a synthetic contact network (CSR), "
		   "integer-day timers",
	.keys = seir_keys,
	.n_keys = sizeof seir_keys / sizeof seir_keys[0],
	.program = {
		.struct_size = sizeof(weft_program_desc),
		.name = "seir",
		.source = weft__seir_source,
		.kernels = weft__seir_kernels,
		.n_kernels = SEIR_N_KERNELS,
	},
	.setup = seir_setup,
	.finish = seir_finish,
	.teardown = seir_teardown,
	/* `weft conform`: small enough for a few seconds on a CPU OpenCL. */
	.conform_sets = "seir.agents=5000\n"
			"simulation.steps=40\n",
	.collect = seir_collect,
	.emit = seir_emit,
};
