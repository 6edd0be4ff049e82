/*
 * models/seir/seir_init.c - the first contents of every device buffer:
 * the population (age bins, the stored contact layers concatenated into
 * one CSR), the initial infections (exposed on day 0, with latent periods
 * drawn exactly as the kernels draw them), the active list, the
 * vaccination orders and care bytes, the tally and row 0 of the series. Every
 * byte of every buffer is written, since the conformance suite compares them
 * all.
 *
 * Host-side draws are Philox keyed by the run's seed with purposes of
 * their own (counter word 3), distinct from the kernels'.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "seir.h"

#define SEIR_PURPOSE_SEEDING 102u

/* Uniform integer in [0, n) from a 32-bit draw (multiply-shift). */
static uint32_t init_below(uint32_t draw, uint32_t n)
{
	return (uint32_t)(((uint64_t)draw * n) >> 32);
}

static uint32_t init_draw(const seir_params *p, uint64_t k, uint32_t patch,
			  uint32_t purpose)
{
	return weft_philox(p->seed_lo, p->seed_hi, (uint32_t)k,
			   (uint32_t)(k >> 32), patch, purpose)
		.v[0];
}

/* Fill bytes [from, bytes) of buf with one byte value, 1 MiB at a time. */
static weft_status init_fill(weft_model_ctx *mc, weft_buf *buf, size_t from,
			     size_t bytes, int value)
{
	size_t chunk = bytes - from < (1u << 20) ? bytes - from : (1u << 20);
	void *block = malloc(chunk ? chunk : 1);
	weft_status st = WEFT_OK;

	if (!block)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory",
				       chunk);
	memset(block, value, chunk);
	for (size_t at = from; at < bytes && !st; at += chunk)
		st = weft_model_upload(mc, buf, at, block,
				       bytes - at < chunk ? bytes - at : chunk);
	free(block);
	return st;
}

/* A device buffer of one byte per agent, byte i being fill(s, pop, i). */
static weft_status init_bytes(
	weft_model_ctx *mc, seir_state *s, const seir_population *pop,
	enum seir_buf_id id, const char *what,
	uint8_t (*fill)(const seir_state *, const seir_population *, uint32_t))
{
	uint32_t n = s->n_agents;
	uint8_t *b = malloc(n ? n : 1);
	weft_status st;

	if (!b)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %u bytes of host "
				       "memory for %s",
				       n, what);
	for (uint32_t i = 0; i < n; i++)
		b[i] = fill(s, pop, i);
	st = weft__seir_alloc(mc, s, id, what, n);
	if (!st)
		st = weft_model_upload(mc, s->buf[id], 0, b, n);
	free(b);
	return st;
}

/* Age bins of ten years, the last from 90 on, and the age band above. */
static uint8_t init_agebin(const seir_state *s, const seir_population *pop,
			   uint32_t i)
{
	return weft__seir_age_byte(s, pop->age[i]);
}

/* The transmissibility class: the top 8 bits of Philox(seed; 0, agent,
 * 0, REL_TRANS). */
static uint8_t init_relcls(const seir_state *s, const seir_population *pop,
			   uint32_t i)
{
	(void)pop;
	return weft__seir_rel_class(&s->params, i);
}

uint8_t weft__seir_rel_class(const seir_params *p, uint32_t i)
{
	return (uint8_t)(weft_philox(p->seed_lo, p->seed_hi, 0u, i, 0u,
				     SEIR_PURPOSE_REL_TRANS)
				 .v[0] >>
			 SEIR_REL_SHIFT);
}

/* Which layers are stored (their slots among an agent's rows), and
 * each one's largest weight. */
static weft_status init_slots(weft_model_ctx *mc, seir_state *s,
			      const seir_population *pop)
{
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		const seir_csr *c = &pop->layer[l];
		s->params.layer_slot[l] = SEIR_NONE;
		s->params.w_max[l] = 1000;
		s->n_edges[l] = c->row ? c->n_edges : 0;
		if (s->n_edges[l] == 0)
			continue;
		s->params.layer_slot[l] = s->n_slots++;
		s->edges_total += c->n_edges;
		s->params.weighted |= c->weight != NULL;
		for (uint64_t e = 0; c->weight && e < c->n_edges; e++)
			if (c->weight[e] > s->params.w_max[l] || e == 0)
				s->params.w_max[l] = c->weight[e];
	}
	s->params.n_slots = s->n_slots;
	if (s->edges_total >= UINT32_MAX)
		return weft_model_fail(mc, WEFT_E_MODEL,
				       "%llu stored contacts exceed the 2^32 "
				       "- 1 the kernels can index",
				       (unsigned long long)s->edges_total);
	return WEFT_OK;
}

/* The stored layers interleaved by agent: agent a's rows (one per stored
 * layer, in layer order) lie together, and so do its contacts, so that
 * an infector's walk reads one place of the rows and one run of
 * columns. Rows first, for every agent. */
static void init_rows(const seir_state *s, const seir_population *pop,
		      uint32_t *rows)
{
	uint32_t n = s->n_agents, at = 0, k = 0;

	for (uint32_t a = 0; a < n; a++)
		for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
			const seir_csr *c = &pop->layer[l];
			if (s->params.layer_slot[l] == SEIR_NONE)
				continue;
			rows[k++] = at;
			at += c->row[a + 1] - c->row[a];
		}
	rows[k] = at;
}

/* Columns and weights (1000 where a layer has none) of the agents from
 * a on, as many as fit in cap entries (at least one agent's); returns
 * the next agent. */
static uint32_t init_cols(const seir_state *s, const seir_population *pop,
			  uint32_t a, size_t cap, uint32_t *col, uint16_t *w,
			  size_t *len)
{
	size_t k = 0;

	for (; a < s->n_agents; a++) {
		size_t need = 0;
		for (int l = 0; l < SEIR_MAX_LAYERS; l++)
			if (s->params.layer_slot[l] != SEIR_NONE)
				need += pop->layer[l].row[a + 1] -
					pop->layer[l].row[a];
		if (k && k + need > cap)
			break;
		for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
			const seir_csr *c = &pop->layer[l];
			if (s->params.layer_slot[l] == SEIR_NONE)
				continue;
			for (uint32_t e = c->row[a]; e < c->row[a + 1];
			     e++, k++) {
				col[k] = c->col[e];
				if (w)
					w[k] = c->weight ? c->weight[e] : 1000;
			}
		}
	}
	*len = k;
	return a;
}

/* Upload the columns (and weights) in chunks of about 4 Mi entries. */
static weft_status init_upload_cols(weft_model_ctx *mc, seir_state *s,
				    const seir_population *pop)
{
	size_t cap = (size_t)1 << 22, most = cap, len, at = 0;
	uint32_t *col = NULL;
	uint16_t *w = NULL;
	weft_status st = WEFT_OK;

	for (uint32_t a = 0; a < s->n_agents; a++) {
		size_t need = 0;
		for (int l = 0; l < SEIR_MAX_LAYERS; l++)
			need += pop->layer[l].row ? pop->layer[l].row[a + 1] -
							    pop->layer[l].row[a]
						  : 0;
		most = need > most ? need : most;
	}
	col = malloc(most * sizeof *col);
	w = s->params.weighted ? malloc(most * sizeof *w) : NULL;
	if (!col || (s->params.weighted && !w)) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate %zu bytes of host "
				     "memory for contacts",
				     most * 6);
		goto free_chunks;
	}
	for (uint32_t a = 0; a < s->n_agents && !st; at += len) {
		a = init_cols(s, pop, a, cap, col, w, &len);
		st = weft_model_upload(mc, s->buf[SEIR_BUF_COLS], at * 4, col,
				       len * 4);
		if (!st && w)
			st = weft_model_upload(mc, s->buf[SEIR_BUF_WEIGHT],
					       at * 2, w, len * 2);
	}
free_chunks:
	free(w);
	free(col);
	return st;
}

static weft_status init_layers(weft_model_ctx *mc, seir_state *s,
			       const seir_population *pop)
{
	size_t nr;
	uint32_t *rows;
	weft_status st;

	if ((st = init_slots(mc, s, pop)))
		return st;
	nr = (size_t)s->n_agents * s->n_slots + 1;
	if ((st = weft__seir_alloc(mc, s, SEIR_BUF_ROWS, "contact rows",
				   nr * 4)) ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_COLS, "contacts",
				   s->edges_total * 4)) ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_WEIGHT, "contact weights",
				   s->params.weighted ? s->edges_total * 2
						      : 0)))
		return st;
	rows = malloc(nr * sizeof *rows);
	if (!rows)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for contact rows",
				       nr * 4);
	init_rows(s, pop, rows);
	st = weft_model_upload(mc, s->buf[SEIR_BUF_ROWS], 0, rows, nr * 4);
	free(rows);
	return st ? st : init_upload_cols(mc, s, pop);
}

weft_status weft__seir_upload_population(weft_model_ctx *mc, seir_state *s,
					 const seir_population *pop)
{
	weft_status st;

	s->n_agents = pop->n_agents;
	s->params.n_agents = pop->n_agents;
	s->params.community_daily = pop->community_daily;
	if ((st = init_bytes(mc, s, pop, SEIR_BUF_AGEBIN, "age bins",
			     init_agebin)) ||
	    (s->params.rel_trans &&
	     (st = init_bytes(mc, s, pop, SEIR_BUF_RELCLS,
			      "transmissibility classes", init_relcls))) ||
	    (st = init_layers(mc, s, pop)))
		return st;
	return WEFT_OK;
}

/* ---- initial infections -------------------------------------------------- */

/* Mark `count` distinct agents of first..first + n - 1 (drawing until
 * enough distinct ones are found; attempt k is keyed by k and the patch
 * alone); when more than half are wanted, the agents left out are drawn
 * instead. */
static void init_pick(const seir_params *p, uint32_t patch, uint32_t first,
		      uint32_t n, uint32_t count, uint8_t *pick)
{
	int invert = count > n / 2;
	uint32_t want = invert ? n - count : count, found = 0;

	memset(pick + first, invert, n);
	for (uint64_t k = 0; found < want; k++) {
		uint32_t i = first + init_below(init_draw(p, k, patch,
							  SEIR_PURPOSE_SEEDING),
						n);
		if (pick[i] != invert)
			continue;
		pick[i] = (uint8_t)!invert;
		found++;
	}
}

/* The seeds over everyone, or with patch_file's initial_infected in each
 * patch. */
static void init_picks(const seir_state *s, uint8_t *pick)
{
	const seir_patches *pt = &s->patches;

	if (!pt->seeds) {
		init_pick(&s->params, 0, 0, s->n_agents, s->n_seeds, pick);
		return;
	}
	for (uint32_t q = 0; q < pt->n; q++)
		init_pick(&s->params, q, pt->start[q],
			  pt->start[q + 1] - pt->start[q], pt->seeds[q], pick);
}

/* Seeds are exposed on day 0, their latent periods drawn from (0, agent)
 * as seir_try() draws them; the active set and list hold them, in
 * order. */
static void init_seeds(const seir_params *p, uint32_t n, uint8_t *state,
		       uint16_t *timer, uint32_t *list, uint32_t *bits)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!state[i])
			continue;
		state[i] = SEIR_E;
		bits[i / 32] |= 1u << (i % 32);
		timer[i] = (uint16_t)seir_duration(
			p->dur[SEIR_DUR_LATENT],
			weft_philox(p->seed_lo, p->seed_hi,
				    SEIR_COURSE_DAY(p, 0u), i, 0u,
				    SEIR_PURPOSE_LATENT)
				.v[0]);
		/* With waning, the latent period in the high byte too, as
		 * seir_try() keeps it. */
		if (p->opts & SEIR_OPT_WANING)
			timer[i] = (uint16_t)(timer[i] | timer[i] << 8);
		list[k++] = i;
	}
}

static weft_status init_tally(weft_model_ctx *mc, seir_state *s)
{
	/* The counts by age band after the words of the tally, zero. */
	uint32_t t[SEIR_TALLY_WORDS + SEIR_MAX_BANDS * SEIR_BAND_MEASURES] = {
		0
	};
	uint32_t *row0 = s->series;
	size_t rows = (size_t)s->params.n_days + 1;
	weft_status st;

	t[SEIR_T_DAY] = 1;
	t[SEIR_T_S] = s->n_agents - s->n_seeds;
	t[SEIR_T_E] = s->n_seeds;
	t[SEIR_T_CUM] = s->n_seeds;
	t[SEIR_T_COUNT] = s->n_seeds;
	row0[SEIR_R_S] = t[SEIR_T_S];
	row0[SEIR_R_E] = s->n_seeds;
	row0[SEIR_R_CUM] = s->n_seeds;
	if ((st = weft_model_upload(mc, s->buf[SEIR_BUF_TALLY], 0, t,
				    s->params.patch_off * 4)) ||
	    (st = weft__seir_patch_upload(mc, s)))
		return st;
	return weft_model_upload(mc, s->buf[SEIR_BUF_SERIES], 0, s->series,
				 rows * s->params.row_words * 4);
}

static weft_status init_agents(weft_model_ctx *mc, seir_state *s)
{
	uint32_t n = s->n_agents;
	uint8_t *state = calloc(n ? n : 1, 1);
	uint16_t *timer = calloc(n ? n : 1, sizeof *timer);
	uint32_t *list = calloc(n ? n : 1, sizeof *list);
	uint32_t *bits = calloc(n / 32 + 1, sizeof *bits);
	weft_status st = WEFT_E_NOMEM;

	if (!state || !timer || !list || !bits) {
		weft_model_fail(mc, st,
				"cannot allocate %zu bytes of host memory for "
				"the initial state",
				(size_t)n * 7);
		goto free_arrays;
	}
	init_picks(s, state);
	init_seeds(&s->params, n, state, timer, list, bits);
	/* The seeds, in order, for the index cases' R0 (repro.c). */
	s->seeds = malloc(((size_t)s->n_seeds + 1) * sizeof *s->seeds);
	if (!s->seeds) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate the list of seeds");
		goto free_arrays;
	}
	memcpy(s->seeds, list, (size_t)s->n_seeds * sizeof *list);
	if ((st = weft_model_upload(mc, s->buf[SEIR_BUF_STATE], 0, state, n)) ||
	    (st = weft_model_upload(mc, s->buf[SEIR_BUF_TIMER], 0, timer,
				    (size_t)n * 2)) ||
	    (st = weft_model_upload(mc, s->buf[SEIR_BUF_BITS], 0, bits,
				    ((size_t)n + 31) / 32 * 4)) ||
	    (st = init_fill(mc, s->buf[SEIR_BUF_BITS],
			    ((size_t)n + 31) / 32 * 4, s->bytes[SEIR_BUF_BITS],
			    0)))
		goto free_arrays;
	if (s->buf[SEIR_BUF_LIST])
		st = weft_model_upload(mc, s->buf[SEIR_BUF_LIST], 0, list,
				       (size_t)n * 4);
free_arrays:
	free(bits);
	free(list);
	free(timer);
	free(state);
	return st;
}

/* ---- vaccination -----------------------------------------------------------
 */

/* The campaigns' orders (vaccination.c), every agent's care byte (0: no
 * dose) and each campaign's index buffer, bound to its launch. */
static weft_status init_vaccination(weft_model_ctx *mc, seir_state *s,
				    const seir_population *pop)
{
	uint32_t *orders = NULL;
	size_t len = 0;
	weft_status st;

	if (!s->params.n_campaigns)
		return WEFT_OK;
	if ((st = weft__seir_vaccination_orders(mc, s, pop, &orders, &len)))
		return st;
	st = weft__seir_alloc(mc, s, SEIR_BUF_ORDER, "vaccination order",
			      len * 4);
	if (!st)
		st = weft_model_upload(mc, s->buf[SEIR_BUF_ORDER], 0, orders,
				       len * 4);
	free(orders);
	if (st ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_CARE, "care",
				   s->n_agents)) ||
	    (st = init_fill(mc, s->buf[SEIR_BUF_CARE], 0, s->n_agents, 0)))
		return st;
	for (uint32_t c = 0; c < s->params.n_campaigns; c++) {
		char what[32];
		snprintf(what, sizeof what, "campaign %u", c);
		if ((st = weft__seir_alloc(mc, s, SEIR_BUF_CAMP0 + c, what,
					   4)) ||
		    (st = weft_model_upload(mc, s->buf[SEIR_BUF_CAMP0 + c], 0,
					    &c, 4)))
			return st;
	}
	return WEFT_OK;
}

weft_status weft__seir_upload_state(weft_model_ctx *mc, seir_state *s,
				    const seir_population *pop)
{
	weft_status st;

	if ((st = init_agents(mc, s)) || (st = init_tally(mc, s)))
		return st;
	if (s->buf[SEIR_BUF_OFFS] &&
	    (st = init_fill(mc, s->buf[SEIR_BUF_OFFS], 0,
			    s->bytes[SEIR_BUF_OFFS], 0)))
		return st;
	return init_vaccination(mc, s, pop);
}
