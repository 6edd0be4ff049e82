/*
 * models/seir/estimate.c - the SEIR model's memory estimate (model ABI
 * 1.2, estimate()): the device buffers seir.c and seir_init.c allocate,
 * and the host memory setup holds at its peak (the population's build,
 * or the upload that follows it with its scratch), from the parameters
 * and the population's size (population_size.c). Each part names the
 * keys that drive it, for the message of a run that does not fit.
 */

#include <stdio.h>
#include <string.h>

#include "seir.h"

/* Upload scratch of seir_init.c: the columns go up in chunks of 4 Mi
 * entries (or the longest row), with their weights; what a smaller
 * population does not touch of it is not counted. */
#define EST_COL_CHUNK ((uint64_t)1 << 22)

typedef struct seir_est {
	uint64_t n, entries, slots, days, beta_rows;
	int weighted;
	uint64_t dev_agents, dev_contacts, dev_series, dev_params;
	uint64_t host_series, host_beta, row_bytes;
} seir_est;

/* The campaigns' orders on the device (vaccination.c): each at most its
 * coverage of everyone (its age group is not known before the
 * population), and a word of each campaign's own. */
static uint64_t est_orders(const seir_state *s, uint64_t n)
{
	uint64_t bytes = 0;

	for (uint32_t c = 0; c < s->params.n_campaigns; c++) {
		double target = s->camps[c].coverage * (double)n + 0.5;
		uint64_t most = target < (double)n ? (uint64_t)target : n;
		bytes += 4 * most + 4;
	}
	return bytes;
}

/* Device bytes, as seir_alloc_all(), init_bytes() and init_layers()
 * allocate them. */
static void est_device(const seir_state *s, seir_est *e)
{
	uint64_t n = e->n, words = (n + 31) / 32;
	uint64_t blocks = (words + SEIR_LIST_BLOCK - 1) / SEIR_LIST_BLOCK;

	e->dev_agents = n + 2 * n + n + words * 4 + 4 * (n * e->slots + 1);
	if (s->params.rel_trans)
		e->dev_agents += n;
	if (s->params.frontier)
		e->dev_agents += 4 * n + 4 * blocks;
	if (s->params.n_campaigns)
		e->dev_agents += n + est_orders(s, n);
	/* The tally's secondary infections, infectors (and infection log),
	 * repro.c. */
	e->dev_agents += 4 * ((n + 1) / 2) + 4 * n +
			 (s->params.infection_log ? 8 * n : 0);
	/* Testing's diagnosis words, tracing's quarantine words, testing by
	 * number's keys (after the active set's). */
	if (s->params.testing)
		e->dev_agents += 4 * n;
	if (s->params.tracing)
		e->dev_agents += 4 * n;
	if (s->params.test_num)
		e->dev_agents += 4 * n;
	/* Waning immunity's two NAb words, and the day's reinfections. */
	if (s->params.opts & SEIR_OPT_WANING)
		e->dev_agents += 8 * n + 4;
	/* Variants' word per agent, and the day's counts by variant. */
	if (s->params.opts & SEIR_OPT_VARIANTS)
		e->dev_agents += 4 * n + 4 * SEIR_VARIANTS;
	e->dev_contacts = (e->weighted ? 6 : 4) * e->entries;
	e->dev_series = e->days * s->params.row_words * 4;
	e->dev_params = sizeof s->params + e->beta_rows * SEIR_BETA_COLS * 4 +
			(SEIR_TALLY_WORDS +
			 (uint64_t)s->params.n_bands * SEIR_BAND_MEASURES +
			 (s->params.n_patches
				  ? (uint64_t)s->params.n_patches *
						    (SEIR_BAND_MEASURES + 1) +
					    1
				  : 0) +
			 e->days * SEIR_COHORT_WORDS) *
				4;
}

/* The most host scratch of the uploads (seir_init.c): the rows, a chunk
 * of columns, the initial state, the vaccination order. */
static uint64_t est_upload_scratch(const seir_state *s, const seir_est *e)
{
	uint64_t n = e->n, most = 4 * (n * e->slots + 1);
	uint64_t chunk =
		e->entries < EST_COL_CHUNK ? e->entries : EST_COL_CHUNK;
	uint64_t cols = chunk * (e->weighted ? 6 : 4);
	/* The initial state: the states are all written, the timers, list
	 * and bitmap only for the seeds (the rest stays untouched). */
	uint64_t state = n;
	/* The campaigns' permutation and their orders, at once. */
	uint64_t order = 4 * n + 4 * (n * s->params.n_campaigns + 1);

	most = cols > most ? cols : most;
	most = state > most ? state : most;
	if (s->params.n_campaigns && order > most)
		most = order;
	return most;
}

static void est_keys(const seir_pop_params *pp, const seir_pop_size *ps,
		     char *agents, char *contacts, size_t size)
{
	if (pp->kind != SEIR_POP_CSV)
		snprintf(agents, size, "[seir] agents = %llu",
			 (unsigned long long)ps->agents);
	else
		snprintf(agents, size, "[seir] agents_file, %s%llu rows",
			 pp->agents_declared ? "" : "about ",
			 (unsigned long long)ps->agents);
	snprintf(
		contacts, size, "%s",
		pp->kind == SEIR_POP_RANDOM ? "[seir] contacts, community_daily"
		: pp->kind == SEIR_POP_CSV
			? "[seir] agents_file, edges_file, school_contacts, "
			  "work_contacts, community_contacts, community_daily"
			: "[seir] household_sizes, school_contacts, "
			  "work_contacts, community_contacts, community_daily");
}

/* The parts: host bytes at the later of the host's peaks, device bytes
 * of every buffer. The host holds most either while the population is
 * uploaded (the population, the upload's scratch, the beta table) or
 * while the steps run (the series' host copy, calloc()ed at setup but
 * written, and so resident, only as the days are read back). The build
 * before them is setup's alone: no device buffer exists yet. */
static weft_status est_parts(weft_model_ctx *mc, weft_model_estimate *est,
			     const seir_pop_params *pp, const seir_pop_size *ps,
			     const seir_est *e, uint64_t upload)
{
	int stepping = e->host_series > ps->pop_bytes + upload;
	uint64_t every = weft_model_output_every(mc);
	uint64_t snap = weft_model_rows_bytes(
		mc, e->row_bytes, (every < e->days ? every : e->days) + 1);
	char agents[256], contacts[256], steps[64];
	weft_status st;

	est_keys(pp, ps, agents, contacts, sizeof agents);
	snprintf(steps, sizeof steps, "[simulation] steps = %llu",
		 (unsigned long long)weft_model_steps(mc));
	if ((st = weft_model_estimate_setup(est, "building the population",
					    contacts, ps->build_bytes)) ||
	    (st = weft_model_estimate_add(
		     est, "agents", agents,
		     stepping ? 0 : ps->pop_bytes + upload - ps->contact_bytes,
		     e->dev_agents)) ||
	    (st = weft_model_estimate_add(est, "contacts", contacts,
					  stepping ? 0 : ps->contact_bytes,
					  e->dev_contacts)) ||
	    (st = weft_model_estimate_add(est, "the daily series", steps,
					  stepping ? e->host_series : 0,
					  e->dev_series + snap)))
		return st;
	return weft_model_estimate_add(
		est, "the parameters and beta table",
		"[seir] interventions, isolation_start, seasonality_factor; "
		"[simulation] steps",
		e->host_beta, e->dev_params);
}

weft_status weft__seir_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	seir_pop_params pp;
	seir_pop_size ps;
	seir_state s;
	seir_est e = { 0 };
	uint64_t mix;
	char err[WEFT_ERROR_MAX];
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = weft__seir_read_params(mc, &s)) ||
	    (st = weft__seir_population_params(mc, &pp, 0)))
		return st;
	st = weft__seir_patch_layout(mc, &s.params, pp.patches.n);
	/* The patches' shares, 8 bytes a pair of patches, live through the
	 * build; making them holds three times as much. */
	mix = pp.patches.mixes ? 8ull * pp.patches.n * pp.patches.n : 0;
	weft__seir_patches_free(&pp.patches);
	if (st)
		return st;
	if ((st = weft__seir_population_size(&pp, &ps, err, sizeof err)))
		return weft_model_fail(mc, st, "%s", err);
	ps.build_bytes =
		ps.build_bytes + mix > 3 * mix ? ps.build_bytes + mix : 3 * mix;
	e.n = ps.agents;
	e.weighted = ps.weighted;
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		e.entries += ps.entries[l];
		e.slots += ps.entries[l] > 0;
	}
	e.days = (uint64_t)s.params.n_days + 1;
	/* With crn, the row of level chances after the last. */
	e.beta_rows = (uint64_t)weft__seir_beta_last(&s.spec) + 1 +
		      ((s.params.opts & SEIR_OPT_CRN) ? 1u : 0u) +
		      weft__seir_waning_rows(&s.params);
	e.row_bytes = (uint64_t)s.params.row_words * 4;
	/* The series' host copy, and what the last chunk reads back for the
	 * reproduction numbers (repro.c): the cohorts, every agent's counts
	 * and infector (and log), state and timer, and with waning the NAb
	 * words (repro_collect_nab). */
	e.host_series = e.days * e.row_bytes + e.days * SEIR_COHORT_WORDS * 4 +
			4 * ((e.n + 1) / 2) + 4 * e.n +
			(s.params.infection_log ? 8 * e.n : 0) + 3 * e.n +
			((s.params.opts & SEIR_OPT_WANING) ? 8 * e.n : 0);
	e.host_beta = e.beta_rows * SEIR_BETA_COLS * 4;
	est_device(&s, &e);
	return est_parts(mc, est, &pp, &ps, &e, est_upload_scratch(&s, &e));
}
