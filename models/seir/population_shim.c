/*
 * models/seir/population_shim.c - TEMPORARY stand-in for the populations
 * module: `population = random` only, a random symmetric contact graph
 * stored as the community layer (or, with community_daily, contacts drawn
 * on the device every day), and uniform ages 0 to 89. The populations
 * module replaces this file, population.h and population_keys.h at merge.
 *
 * Everything is a pure function of the population seed (Philox draws
 * indexed by edge or agent), built once on the host.
 */
#include "internal.h"

#include <Random123/philox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "population.h"

/* Host-side draws have their own purposes (counter word 3). */
#define POP_PURPOSE_EDGES 101u
#define POP_PURPOSE_AGES  103u

/* Uniform integer in [0, n) from a 32-bit draw (multiply-shift). */
static uint32_t pop_below(uint32_t draw, uint32_t n)
{
	return (uint32_t)(((uint64_t)draw * n) >> 32);
}

static philox4x32_ctr_t pop_draw(uint64_t seed, uint32_t c0, uint32_t c1,
				 uint32_t purpose)
{
	philox4x32_key_t k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
	philox4x32_ctr_t c = { { c0, c1, 0, purpose } };
	return philox4x32(c, k);
}

weft_status weft__seir_population_params(weft_model_ctx *mc,
					 seir_pop_params *pp)
{
	const char *kind = weft_model_string(mc, "population");
	static const char *const layer_keys[SEIR_MAX_LAYERS] = {
		"beta_home", "beta_school", "beta_work", "beta_community"
	};

	memset(pp, 0, sizeof *pp);
	if (strcmp(kind, "random") != 0)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: [seir] population = %s: not built "
				       "yet (only population = random until "
				       "the populations module is merged)",
				       weft_model_where(mc, "population"),
				       kind);
	pp->kind = 1;
	pp->agents = (uint32_t)weft_model_int(mc, "agents");
	pp->contacts = (uint32_t)weft_model_int(mc, "contacts");
	pp->community_daily = weft_model_bool(mc, "community_daily");
	pp->seed = (uint64_t)weft_model_int(mc, "population_seed");
	if (pp->seed == 0)
		pp->seed = weft_model_seed(mc);
	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		pp->layer_beta[l] = weft_model_real(mc, layer_keys[l]);
	snprintf(pp->contacts_where, sizeof pp->contacts_where, "%s",
		 weft_model_where(mc, "contacts"));
	return WEFT_OK;
}

/* The e-th undirected edge; 0 when it is a self-loop (dropped). */
static int pop_edge(uint64_t seed, uint64_t e, uint32_t n, uint32_t *a,
		    uint32_t *b)
{
	philox4x32_ctr_t r = pop_draw(seed, (uint32_t)e, (uint32_t)(e >> 32),
				      POP_PURPOSE_EDGES);
	*a = pop_below(r.v[0], n);
	*b = pop_below(r.v[1], n);
	return *a != *b;
}

static int pop_cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* Sort each row and drop repeated contacts, compacting col and row. */
static uint64_t pop_dedup_rows(uint32_t *row, uint32_t *col, uint32_t n)
{
	uint64_t w = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t begin = row[i], end = row[i + 1];
		qsort(col + begin, end - begin, sizeof *col, pop_cmp_u32);
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
static void pop_fill_csr(uint64_t seed, uint64_t m, uint32_t n, uint32_t *row,
			 uint32_t *col, uint32_t *cursor)
{
	uint32_t a, b;
	for (uint64_t e = 0; e < m; e++)
		if (pop_edge(seed, e, n, &a, &b)) {
			row[a + 1]++;
			row[b + 1]++;
		}
	for (uint32_t i = 0; i < n; i++)
		row[i + 1] += row[i];
	memcpy(cursor, row, (size_t)n * sizeof *cursor);
	for (uint64_t e = 0; e < m; e++)
		if (pop_edge(seed, e, n, &a, &b)) {
			col[cursor[a]++] = b;
			col[cursor[b]++] = a;
		}
}

static weft_status pop_random_layer(const seir_pop_params *pp, seir_csr *csr,
				    char *err, size_t err_size)
{
	uint32_t n = pp->agents;
	uint64_t m = ((uint64_t)n * pp->contacts) / 2;
	uint32_t *cursor;

	if (2 * m >= UINT32_MAX) {
		snprintf(err, err_size,
			 "%llu contacts exceed the 2^32 - 1 a contact layer "
			 "can index; lower agents or contacts (%s)",
			 (unsigned long long)(2 * m), pp->contacts_where);
		return WEFT_E_CONFIG;
	}
	csr->row = calloc((size_t)n + 1, sizeof *csr->row);
	csr->col = malloc((2 * m + 1) * sizeof *csr->col);
	cursor = malloc((size_t)n * sizeof *cursor);
	if (!csr->row || !csr->col || !cursor) {
		free(cursor);
		snprintf(err, err_size,
			 "cannot allocate %llu bytes of host memory for the "
			 "contact layer",
			 (unsigned long long)((2 * m + 2 * (uint64_t)n) * 4));
		return WEFT_E_NOMEM;
	}
	pop_fill_csr(pp->seed, m, n, csr->row, csr->col, cursor);
	csr->n_edges = pop_dedup_rows(csr->row, csr->col, n);
	free(cursor);
	return WEFT_OK;
}

weft_status weft__seir_population_build(const seir_pop_params *pp,
					seir_population *pop, char *err,
					size_t err_size)
{
	uint32_t n = pp->agents;
	weft_status st;

	memset(pop, 0, sizeof *pop);
	pop->n_agents = n;
	memcpy(pop->layer_beta, pp->layer_beta, sizeof pop->layer_beta);
	pop->age = malloc(n ? n : 1);
	if (!pop->age) {
		snprintf(err, err_size,
			 "cannot allocate %u bytes of host memory for ages", n);
		return WEFT_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		pop->age[i] = (uint8_t)pop_below(
			pop_draw(pp->seed, i, 0, POP_PURPOSE_AGES).v[0], 90);
	if (pp->community_daily) {
		pop->community_daily = pp->contacts;
		return WEFT_OK;
	}
	st = pop_random_layer(pp, &pop->layer[SEIR_L_COMMUNITY], err, err_size);
	if (st)
		weft__seir_population_free(pop);
	return st;
}

void weft__seir_population_free(seir_population *pop)
{
	free(pop->age);
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		free(pop->layer[l].row);
		free(pop->layer[l].col);
		free(pop->layer[l].weight);
	}
	memset(pop, 0, sizeof *pop);
}
