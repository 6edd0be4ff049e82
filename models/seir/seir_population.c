/*
 * models/seir/seir_population.c - the synthetic population: a random
 * symmetric contact graph stored as CSR, and the initial infections.
 *
 * Both are pure functions of their seeds (Philox draws indexed by edge or
 * attempt number), built once on the host, uploaded once, and identical
 * whatever the backend or thread count.
 */
#include "internal.h"

#include <Random123/philox.h>
#include <stdlib.h>
#include <string.h>

#include "seir.h"

/* Host-side draws use their own purposes (counter word 3), distinct from
 * the kernels' (seir_shared.h). */
#define SEIR_PURPOSE_EDGES   101u
#define SEIR_PURPOSE_SEEDING 102u

/* Uniform integer in [0, n) from a 32-bit draw (Lemire's multiply-shift;
 * the bias is below n / 2^32, immaterial at our sizes). */
static uint32_t seir_below(uint32_t draw, uint32_t n)
{
	return (uint32_t)(((uint64_t)draw * n) >> 32);
}

static philox4x32_ctr_t seir_draw(uint64_t seed, uint32_t c0, uint32_t c1,
				  uint32_t purpose)
{
	philox4x32_key_t k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
	philox4x32_ctr_t c = { { c0, c1, 0, purpose } };
	return philox4x32(c, k);
}

/* The e-th undirected edge; 0 when it is a self-loop (dropped). */
static int seir_edge(uint64_t seed, uint64_t e, uint32_t n, uint32_t *a,
		     uint32_t *b)
{
	philox4x32_ctr_t r = seir_draw(seed, (uint32_t)e, (uint32_t)(e >> 32),
				       SEIR_PURPOSE_EDGES);
	*a = seir_below(r.v[0], n);
	*b = seir_below(r.v[1], n);
	return *a != *b;
}

static int seir_cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* Sort each row and drop repeated contacts, compacting col and row. */
static uint64_t seir_dedup_rows(uint32_t *row, uint32_t *col, uint32_t n)
{
	uint64_t w = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t begin = row[i], end = row[i + 1];
		qsort(col + begin, end - begin, sizeof *col, seir_cmp_u32);
		row[i] = (uint32_t)w;
		for (uint32_t e = begin; e < end; e++)
			if (e == begin || col[e] != col[e - 1])
				col[w++] = col[e];
	}
	row[n] = (uint32_t)w;
	return w;
}

/* Degrees, prefix sums, then fill: the edge list is drawn twice rather
 * than stored. */
static void seir_fill_csr(uint64_t seed, uint64_t m, uint32_t n, uint32_t *row,
			  uint32_t *col, uint32_t *cursor)
{
	uint32_t a, b;
	for (uint64_t e = 0; e < m; e++)
		if (seir_edge(seed, e, n, &a, &b)) {
			row[a + 1]++;
			row[b + 1]++;
		}
	for (uint32_t i = 0; i < n; i++)
		row[i + 1] += row[i];
	memcpy(cursor, row, (size_t)n * sizeof *cursor);
	for (uint64_t e = 0; e < m; e++)
		if (seir_edge(seed, e, n, &a, &b)) {
			col[cursor[a]++] = b;
			col[cursor[b]++] = a;
		}
}

static weft_status seir_upload_csr(weft_model_ctx *mc, seir_state *s,
				   const uint32_t *row, const uint32_t *col)
{
	size_t rb = ((size_t)s->n_agents + 1) * sizeof *row;
	size_t cb = (size_t)s->n_edges * sizeof *col;
	weft_status st;

	if ((st = weft_model_alloc(mc, "contact rows", rb, &s->b_row)) ||
	    (st = weft_model_alloc(mc, "contacts", cb, &s->b_col)) ||
	    (st = weft_model_upload(mc, s->b_row, 0, row, rb)) ||
	    (st = weft_model_upload(mc, s->b_col, 0, col, cb)))
		return st;
	return WEFT_OK;
}

weft_status weft__seir_build_population(weft_model_ctx *mc, seir_state *s)
{
	uint64_t pop_seed = (uint64_t)weft_model_int(mc, "population_seed");
	uint32_t n = s->n_agents;
	uint64_t m =
		((uint64_t)n * (uint64_t)weft_model_int(mc, "contacts")) / 2;
	uint32_t *row, *col, *cursor;
	weft_status st = WEFT_OK;

	if (pop_seed == 0)
		pop_seed = weft_model_seed(mc);
	if (2 * m >= UINT32_MAX)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%llu contacts exceed the 2^32 - 1 a "
				       "contact layer can index; lower agents "
				       "or contacts (%s)",
				       (unsigned long long)(2 * m),
				       weft_model_where(mc, "contacts"));
	row = calloc((size_t)n + 1, sizeof *row);
	col = malloc((2 * m + 1) * sizeof *col);
	cursor = malloc((size_t)n * sizeof *cursor);
	if (!row || !col || !cursor) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate %llu bytes of host "
				     "memory for the contact layer",
				     (unsigned long long)((2 * m + 2 * n) * 4));
		goto free_arrays;
	}
	seir_fill_csr(pop_seed, m, n, row, col, cursor);
	s->n_edges = seir_dedup_rows(row, col, n);
	st = seir_upload_csr(mc, s, row, col);
free_arrays:
	free(cursor);
	free(col);
	free(row);
	return st;
}

/* Pick initial_infected distinct agents by drawing until enough distinct
 * ones are found; the k-th attempt is keyed by k alone. */
static void seir_pick_seeds(uint64_t seed, uint32_t n, uint32_t count,
			    const seir_params *p, uint8_t *state,
			    uint16_t *timer)
{
	uint32_t found = 0;
	for (uint64_t k = 0; found < count; k++) {
		philox4x32_ctr_t r =
			seir_draw(seed, (uint32_t)k, (uint32_t)(k >> 32),
				  SEIR_PURPOSE_SEEDING);
		uint32_t i = seir_below(r.v[0], n);
		if (state[i] == SEIR_I)
			continue;
		state[i] = SEIR_I;
		timer[i] = (uint16_t)p->infectious_days;
		found++;
	}
}

weft_status weft__seir_seed_infections(weft_model_ctx *mc, seir_state *s)
{
	uint32_t n = s->n_agents;
	uint32_t count = (uint32_t)weft_model_int(mc, "initial_infected");
	uint32_t tally[SEIR_TALLY_WORDS] = { 0 };
	uint32_t row0[SEIR_ROW_WORDS] = { n - count, 0, count, 0, 0 };
	uint8_t *state = calloc(n, 1);
	uint16_t *timer = calloc(n, sizeof *timer);
	weft_status st;

	if (!state || !timer) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate %zu bytes of host memory "
				     "for the initial state",
				     (size_t)n * 3);
		goto free_arrays;
	}
	seir_pick_seeds(weft_model_seed(mc), n, count, &s->params, state,
			timer);
	tally[SEIR_T_DAY] = 1;
	tally[SEIR_T_S] = n - count;
	tally[SEIR_T_I] = count;
	if ((st = weft_model_upload(mc, s->b_state, 0, state, n)) ||
	    (st = weft_model_upload(mc, s->b_timer, 0, timer,
				    (size_t)n * sizeof *timer)) ||
	    (st = weft_model_upload(mc, s->b_tally, 0, tally, sizeof tally)))
		goto free_arrays;
	st = weft_model_upload(mc, s->b_series, 0, row0, sizeof row0);
free_arrays:
	free(timer);
	free(state);
	return st;
}
