/*
 * tests/models/test-population.c - the SEIR model's populations
 * (models/seir/population.h): determinism, the CSR invariants of every
 * layer, the statistics of the synthetic population against its
 * configured distributions, the random graph against the first SEIR
 * model's, the CSV loader's files and every error message, and the
 * parameters read from the [seir] keys.
 */
#include "internal.h"

#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "population_build.h"
#include "population_keys.h"
#include "run/sim.h"
#include "tap.h"

static const char *const layer_names[] = { "home", "school", "work",
					   "community" };

/* ---- helpers ---------------------------------------------------------------
 */

static seir_pop_params *params(seir_pop_kind kind, uint32_t agents,
			       uint64_t seed)
{
	static seir_pop_params pp;

	weft__seir_population_defaults(&pp);
	pp.kind = kind;
	pp.agents = agents;
	pp.seed = seed;
	return &pp;
}

static int build(const seir_pop_params *pp, seir_population *pop,
		 const char *name)
{
	char err[1024];
	weft_status st = weft__seir_population_build(pp, pop, err, sizeof err);

	if (!tap_ok(st == WEFT_OK, "%s: builds", name))
		tap_diag("%s", err);
	return st == WEFT_OK;
}

static uint32_t degree(const seir_csr *l, uint32_t i)
{
	return l->row[i + 1] - l->row[i];
}

/* Whether j is in row i (rows are sorted). */
static int has_edge(const seir_csr *l, uint32_t i, uint32_t j, uint64_t *at)
{
	uint32_t lo = l->row[i], hi = l->row[i + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->col[mid] == j) {
			*at = mid;
			return 1;
		}
		if (l->col[mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Every layer: row starts at 0, never decreases and ends at n_edges; col
 * in range, each row strictly increasing (sorted, no duplicates), no
 * self-loops; every edge stored both ways with the same weight. */
static const char *csr_broken(const seir_csr *l, uint32_t n)
{
	uint64_t back;

	if (!l->row || !l->col || l->row[0] != 0 || l->row[n] != l->n_edges)
		return "row[0] is not 0 or row[n] is not n_edges";
	for (uint32_t i = 0; i < n; i++) {
		if (l->row[i + 1] < l->row[i])
			return "row decreases";
		for (uint32_t e = l->row[i]; e < l->row[i + 1]; e++) {
			uint32_t j = l->col[e];
			if (j >= n)
				return "col out of range";
			if (j == i)
				return "self-loop";
			if (e > l->row[i] && j <= l->col[e - 1])
				return "row not strictly increasing";
			if (!has_edge(l, j, i, &back))
				return "not symmetric";
			if (l->weight && l->weight[back] != l->weight[e])
				return "weights not symmetric";
		}
	}
	return NULL;
}

static void check_layers(const seir_population *pop, const char *name)
{
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		const char *why = csr_broken(&pop->layer[l], pop->n_agents);
		if (!tap_ok(!why, "%s: %s layer is a valid symmetric CSR", name,
			    layer_names[l]))
			tap_diag("%s", why);
	}
}

static int same_layer(const seir_csr *a, const seir_csr *b, uint32_t n)
{
	if (a->n_edges != b->n_edges || !a->weight != !b->weight ||
	    memcmp(a->row, b->row, ((size_t)n + 1) * 4) ||
	    memcmp(a->col, b->col, (size_t)a->n_edges * 4))
		return 0;
	return !a->weight ||
	       !memcmp(a->weight, b->weight, (size_t)a->n_edges * 2);
}

/* Every array byte for byte, and the scalars. */
static int same_population(const seir_population *a, const seir_population *b)
{
	if (a->n_agents != b->n_agents ||
	    a->community_daily != b->community_daily ||
	    memcmp(a->layer_beta, b->layer_beta, sizeof a->layer_beta) ||
	    memcmp(a->age, b->age, a->n_agents))
		return 0;
	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		if (!same_layer(&a->layer[l], &b->layer[l], a->n_agents))
			return 0;
	return 1;
}

static double now_s(void)
{
	return (double)weft__now_ns() / 1e9;
}

/* Host bytes of the population as the device would hold it. */
static uint64_t pop_bytes(const seir_population *pop, uint64_t *edges)
{
	uint64_t bytes = pop->n_agents;

	*edges = 0;
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		const seir_csr *c = &pop->layer[l];
		bytes += ((uint64_t)pop->n_agents + 1) * 4 + c->n_edges * 4;
		bytes += c->weight ? c->n_edges * 2 : 0;
		*edges += c->n_edges;
	}
	return bytes;
}

/* ---- distributions and defaults ------------------------------------------ */

static void test_bins(void)
{
	static const struct {
		const char *text;
		uint32_t min, max;
		const char *err;
	} bad[] = {
		{ "0-9:1, 5-2:1", 0, 120, "'5-2:1': 5 is above 2" },
		{ "0-9:1, 100-130:1", 0, 120,
		  "'100-130:1': values must lie in 0-120" },
		{ "1:2, three:1", 1, 100,
		  "'three:1' is not a bin LO-HI:WEIGHT or VALUE:WEIGHT" },
		{ "1:0, 2:0", 1, 100, "the weights sum to 0" },
		{ "1:-1", 1, 100,
		  "'1:-1' is not a bin LO-HI:WEIGHT or VALUE:WEIGHT" },
		{ "", 1, 100, "'' is not a bin LO-HI:WEIGHT or VALUE:WEIGHT" },
	};
	const char *defaults[] = { SEIR_POP_DEFAULT_AGES,
				   SEIR_POP_DEFAULT_HOUSEHOLDS,
				   SEIR_POP_DEFAULT_WORKPLACES };
	seir_pop_bins b;
	char err[256];

	for (size_t i = 0; i < 3; i++) {
		weft_status st = weft__seir_pop_bins_parse(
			defaults[i], 0, 1000000, &b, err, sizeof err);
		tap_ok(st == WEFT_OK && b.n >= 7,
		       "default distribution %zu parses (%u bins)", i, b.n);
	}
	tap_ok(weft__seir_pop_bins_parse(" 7 : 1.5 ,10-12:2", 0, 20, &b, err,
					 sizeof err) == WEFT_OK &&
		       b.n == 2 && b.lo[0] == 7 && b.hi[0] == 7 &&
		       b.w[0] == 1.5 && b.lo[1] == 10 && b.hi[1] == 12,
	       "a bin is V:W or LO-HI:W, spaces allowed");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		weft_status st = weft__seir_pop_bins_parse(
			bad[i].text, bad[i].min, bad[i].max, &b, err,
			sizeof err);
		if (!tap_ok(st == WEFT_E_CONFIG && !strcmp(err, bad[i].err),
			    "bins '%s' rejected: %s", bad[i].text, bad[i].err))
			tap_diag("got: %s", err);
	}
}

static void test_defaults(void)
{
	static seir_pop_params defaults;
	seir_pop_params *pp = &defaults;

	weft__seir_population_defaults(pp);

	tap_ok(pp->agents == 37518 && pp->contacts == 10 &&
		       pp->school_contacts == 20 && pp->work_contacts == 16 &&
		       pp->community_contacts == 20 && !pp->community_daily &&
		       pp->school_age_min == 6 && pp->school_age_max == 21 &&
		       pp->work_age_min == 22 && pp->work_age_max == 64,
	       "defaults: Covasim hybrid contacts (s 20, w 16, c 20) and ages");
	tap_ok(pp->layer_beta[SEIR_L_HOME] == 3.0 &&
		       pp->layer_beta[SEIR_L_SCHOOL] == 0.6 &&
		       pp->layer_beta[SEIR_L_WORK] == 0.6 &&
		       pp->layer_beta[SEIR_L_COMMUNITY] == 0.3,
	       "defaults: Covasim hybrid beta_layer (3.0, 0.6, 0.6, 0.3)");
	tap_ok(pp->ages.n == 9 && pp->household_sizes.n == 7 &&
		       pp->workplace_sizes.n == 9 && !pp->duplicate_error &&
		       !pp->agents_file[0],
	       "defaults: the distributions are parsed, merge duplicates");
}

/* ---- the synthetic population ---------------------------------------------
 */

static double bins_mean(const seir_pop_bins *b)
{
	double sum = 0, total = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		sum += b->w[i] * (b->lo[i] + b->hi[i]) / 2.0;
		total += b->w[i];
	}
	return sum / total;
}

/* The mean degree of a worker: a workplace of size s gives each of its s
 * workers min(s - 1, contacts) contacts on average. */
static double work_degree(const seir_pop_bins *b, uint32_t contacts)
{
	double num = 0, den = 0;
	for (uint32_t i = 0; i < b->n; i++)
		for (uint32_t s = b->lo[i]; s <= b->hi[i]; s++) {
			double p = b->w[i] / (b->hi[i] - b->lo[i] + 1);
			num += p * s * (s - 1 < contacts ? s - 1 : contacts);
			den += p * s;
		}
	return num / den;
}

static void check_ages(const seir_population *pop, const seir_pop_params *pp)
{
	double total = 0, worst = 0;

	for (uint32_t b = 0; b < pp->ages.n; b++)
		total += pp->ages.w[b];
	for (uint32_t b = 0; b < pp->ages.n; b++) {
		uint32_t count = 0;
		for (uint32_t i = 0; i < pop->n_agents; i++)
			count += pop->age[i] >= pp->ages.lo[b] &&
				 pop->age[i] <= pp->ages.hi[b];
		double d = fabs((double)count / pop->n_agents -
				pp->ages.w[b] / total);
		worst = d > worst ? d : worst;
	}
	tap_ok(worst < 0.01,
	       "age bins within 1 point of the configured fractions (worst "
	       "%.4f)",
	       worst);
}

static void check_households(const seir_population *pop,
			     const seir_pop_params *pp)
{
	const seir_csr *h = &pop->layer[SEIR_L_HOME];
	double households = 0, want = bins_mean(&pp->household_sizes), got;

	/* Households are cliques: an agent of a household of s has s - 1
	 * home contacts, and each household adds s times 1 / s. */
	for (uint32_t i = 0; i < pop->n_agents; i++)
		households += 1.0 / (degree(h, i) + 1);
	got = pop->n_agents / households;
	tap_ok(fabs(got / want - 1) < 0.02,
	       "mean household size %.3f within 2%% of the configured %.3f",
	       got, want);
}

/* Mean degree of the agents aged lo..hi in layer l, and whether anyone
 * else has a contact there. */
static double age_degree(const seir_population *pop, int l, uint32_t lo,
			 uint32_t hi, int *outside)
{
	uint64_t sum = 0, count = 0;

	*outside = 0;
	for (uint32_t i = 0; i < pop->n_agents; i++) {
		uint32_t d = degree(&pop->layer[l], i);
		if (pop->age[i] >= lo && pop->age[i] <= hi) {
			sum += d;
			count++;
		} else if (d) {
			*outside = 1;
		}
	}
	return count ? (double)sum / count : 0;
}

static void check_school_work(const seir_population *pop,
			      const seir_pop_params *pp)
{
	int outside;
	double got = age_degree(pop, SEIR_L_SCHOOL, pp->school_age_min,
				pp->school_age_max, &outside);
	double want = work_degree(&pp->workplace_sizes, pp->work_contacts);

	tap_ok(!outside, "school contacts only among ages %u-%u",
	       pp->school_age_min, pp->school_age_max);
	tap_ok(fabs(got / pp->school_contacts - 1) < 0.03,
	       "mean school degree %.3f within 3%% of school_contacts = %u",
	       got, pp->school_contacts);
	got = age_degree(pop, SEIR_L_WORK, pp->work_age_min, pp->work_age_max,
			 &outside);
	tap_ok(!outside, "work contacts only among ages %u-%u",
	       pp->work_age_min, pp->work_age_max);
	tap_ok(fabs(got / want - 1) < 0.05,
	       "mean work degree %.3f within 5%% of %.3f (work_contacts = "
	       "%u, capped by workplace sizes)",
	       got, want, pp->work_contacts);
}

static void check_daily_community(const seir_population *pop,
				  const seir_pop_params *pp)
{
	const seir_csr *c = &pop->layer[SEIR_L_COMMUNITY];
	int zeros = 1;

	for (uint32_t i = 0; i <= pop->n_agents; i++)
		zeros &= c->row[i] == 0;
	tap_ok(pop->community_daily == pp->community_contacts &&
		       c->n_edges == 0 && zeros,
	       "community_daily: community_daily = %u, layer not stored",
	       pop->community_daily);
	tap_ok(!memcmp(pop->layer_beta, pp->layer_beta, sizeof pop->layer_beta),
	       "layer_beta from the beta_* keys");
}

static void test_synthetic(void)
{
	seir_pop_params *pp = params(SEIR_POP_SYNTHETIC, 200000, 12345);
	seir_population a, b;

	pp->community_daily = 1; /* checked below: nothing stored */
	if (!build(pp, &a, "synthetic 200000"))
		return;
	check_layers(&a, "synthetic");
	check_ages(&a, pp);
	check_households(&a, pp);
	check_school_work(&a, pp);
	check_daily_community(&a, pp);
	if (build(pp, &b, "synthetic again")) {
		tap_ok(same_population(&a, &b),
		       "the same parameters give the same bytes");
		weft__seir_population_free(&b);
	}
	pp->seed = 54321;
	if (build(pp, &b, "synthetic, another seed")) {
		tap_ok(memcmp(a.age, b.age, a.n_agents) &&
			       !same_layer(&a.layer[SEIR_L_HOME],
					   &b.layer[SEIR_L_HOME], a.n_agents) &&
			       !same_layer(&a.layer[SEIR_L_WORK],
					   &b.layer[SEIR_L_WORK], a.n_agents),
		       "another seed gives other ages, households and "
		       "workplaces");
		weft__seir_population_free(&b);
	}
	weft__seir_population_free(&a);
}

static void test_stored_community(void)
{
	seir_pop_params *pp = params(SEIR_POP_SYNTHETIC, 200000, 99);
	seir_population pop;
	double mean;

	pp->community_daily = 0;
	if (!build(pp, &pop, "stored community"))
		return;
	mean = (double)pop.layer[SEIR_L_COMMUNITY].n_edges / pop.n_agents;
	tap_ok(pop.community_daily == 0, "community_daily = 0 when stored");
	tap_ok(!csr_broken(&pop.layer[SEIR_L_COMMUNITY], pop.n_agents),
	       "stored community layer is a valid symmetric CSR");
	tap_ok(fabs(mean / pp->community_contacts - 1) < 0.01,
	       "mean community degree %.3f within 1%% of %u", mean,
	       pp->community_contacts);
	weft__seir_population_free(&pop);
}

/* Build time and memory (diagnostics, not asserted). */
static void time_build(uint32_t n, int stored)
{
	seir_pop_params *pp = params(SEIR_POP_SYNTHETIC, n, 7);
	seir_population pop;
	uint64_t edges, bytes;
	double t0 = now_s(), t;
	char name[96];

	pp->community_daily = !stored;
	snprintf(name, sizeof name, "synthetic %u agents%s", n,
		 stored ? ", community stored" : "");
	if (!build(pp, &pop, name))
		return;
	t = now_s() - t0;
	bytes = pop_bytes(&pop, &edges);
	tap_diag("%s: built in %.2f s (1 thread): %llu stored edges (%.1f "
		 "per agent: home %.1f, school %.1f, work %.1f, community "
		 "%.1f); %.1f MB, %.1f bytes per agent + 4 per stored edge",
		 name, t, (unsigned long long)edges, (double)edges / n,
		 (double)pop.layer[0].n_edges / n,
		 (double)pop.layer[1].n_edges / n,
		 (double)pop.layer[2].n_edges / n,
		 (double)pop.layer[3].n_edges / n, bytes / 1e6,
		 (double)(bytes - 4 * edges) / n);
	weft__seir_population_free(&pop);
}

/* ---- the random graph
 * -------------------------------------------------------- */

/* The first SEIR model's network, read back from a run of it: its
 * "contact rows" and "contacts" buffers; 0 when the model has none (it
 * has moved on to this module). */
static int legacy_network(uint32_t n, uint32_t contacts, uint64_t seed,
			  weft_digest **out, char *msg, size_t msg_size)
{
	char set[700];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	int ok = 0;

	*out = NULL;
	if (weft_context_new(&ctx) || weft_config_new(ctx, &cfg))
		goto done;
	snprintf(set, sizeof set, "output.directory=%s/legacy", tap_tmpdir());
	weft_config_set(ctx, cfg, set);
	snprintf(set, sizeof set, "simulation.seed=%llu",
		 (unsigned long long)seed);
	weft_config_set(ctx, cfg, set);
	snprintf(set, sizeof set, "seir.agents=%u", n);
	weft_config_set(ctx, cfg, set);
	snprintf(set, sizeof set, "seir.contacts=%u", contacts);
	weft_config_set(ctx, cfg, set);
	/* Declared once the model reads this module's keys. */
	weft_config_set(ctx, cfg, "seir.population=random");
	ok = !weft_sim_open(ctx, cfg, &sim) && !weft_sim_digest(sim, out);
done:
	snprintf(msg, msg_size, "%s", ctx ? weft_context_error(ctx) : "");
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return ok;
}

static const weft_digest_buf *digest_buf(const weft_digest *d, const char *name)
{
	for (size_t i = 0; i < weft_digest_count(d); i++)
		if (!strcmp(weft_digest_at(d, i)->name, name))
			return weft_digest_at(d, i);
	return NULL;
}

static void compare_legacy(const seir_population *pop, uint32_t contacts,
			   uint64_t seed)
{
	const seir_csr *c = &pop->layer[SEIR_L_COMMUNITY];
	const weft_digest_buf *row, *col;
	weft_digest *d;
	char msg[1024];

	if (!legacy_network(pop->n_agents, contacts, seed, &d, msg,
			    sizeof msg)) {
		tap_ok(0, "the first SEIR model runs for comparison");
		tap_diag("%s", msg);
		return;
	}
	row = digest_buf(d, "contact rows");
	col = digest_buf(d, "contacts");
	if (!row || !col)
		tap_skip(1, "the SEIR model has no 'contact rows' and "
			    "'contacts' buffers to compare with");
	else
		tap_ok(row->bytes == ((size_t)pop->n_agents + 1) * 4 &&
			       col->bytes == c->n_edges * 4 &&
			       !memcmp(row->data, c->row, row->bytes) &&
			       !memcmp(col->data, c->col, col->bytes),
		       "population = random: the same CSR as the SEIR model's "
		       "network (%llu edges)",
		       (unsigned long long)c->n_edges);
	weft_digest_free(d);
}

static void test_random(void)
{
	seir_pop_params *pp = params(SEIR_POP_RANDOM, 5000, 20200301);
	seir_population pop;
	int empty = 1, ones = 1;

	pp->contacts = 12;
	if (!build(pp, &pop, "random 5000 x 12"))
		return;
	check_layers(&pop, "random");
	for (int l = 0; l < SEIR_L_COMMUNITY; l++)
		empty &= pop.layer[l].n_edges == 0 &&
			 pop.layer[l].row[pop.n_agents] == 0;
	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		ones &= pop.layer_beta[l] == 1.0;
	tap_ok(empty && pop.community_daily == 0 &&
		       !pop.layer[SEIR_L_COMMUNITY].weight,
	       "random: one stored community layer, the others empty");
	tap_ok(ones, "random: every layer weight is 1");
	tap_ok(pop.layer[SEIR_L_COMMUNITY].n_edges > 5000 * 12 * 98 / 100 &&
		       pop.layer[SEIR_L_COMMUNITY].n_edges <
			       5000 * 12 * 102 / 100,
	       "random: mean degree within 2%% of contacts (%.3f)",
	       (double)pop.layer[SEIR_L_COMMUNITY].n_edges / 5000);
	compare_legacy(&pop, 12, 20200301);
	weft__seir_population_free(&pop);
}

/* A layer past 2^32 - 1 entries is refused before anything is drawn. */
static void test_too_many(void)
{
	seir_pop_params *pp = params(SEIR_POP_RANDOM, 2000000000, 1);
	seir_population pop;
	char err[512];
	weft_status st;

	pp->contacts = 1000;
	st = weft__seir_population_build(pp, &pop, err, sizeof err);
	tap_ok(st == WEFT_E_CONFIG && pop.age == NULL,
	       "random: a layer of 2e12 contacts is refused");
	tap_contains(err, "more than the 2^32 - 1 a contact layer can index",
		     "  ...saying why");
	pp = params(SEIR_POP_SYNTHETIC, 4400000, 1);
	weft__seir_pop_bins_parse("1:1", 1, 1, &pp->household_sizes, err,
				  sizeof err);
	pp->school_contacts = pp->work_contacts = 0;
	pp->community_contacts = 1000;
	pp->community_daily = 0;
	st = weft__seir_population_build(pp, &pop, err, sizeof err);
	tap_ok(st == WEFT_E_CONFIG && pop.age == NULL,
	       "synthetic: a stored community of 4.4e9 contacts is refused");
	tap_contains(err,
		     "the community layer would have about 4400000000 "
		     "contacts, more than the 2^32 - 1",
		     "  ...before drawing it");
}

/* ---- csv
 * --------------------------------------------------------------------- */

static char agents_path[600], edges_path[600];

/* Write the agents (and edges, unless NULL) files and build from them. */
static weft_status csv_build(const char *agents, const char *edges, int daily,
			     seir_population *pop, char *err, size_t err_size)
{
	seir_pop_params *pp = params(SEIR_POP_CSV, 0, 5);

	snprintf(agents_path, sizeof agents_path, "%s/a.csv", tap_tmpdir());
	snprintf(edges_path, sizeof edges_path, "%s/e.csv", tap_tmpdir());
	if (tap_write_file(agents_path, agents) ||
	    (edges && tap_write_file(edges_path, edges)))
		tap_bail("cannot write %s", agents_path);
	memcpy(pp->agents_file, agents_path, sizeof agents_path);
	if (edges)
		memcpy(pp->edges_file, edges_path, sizeof edges_path);
	pp->community_daily = daily;
	pp->community_contacts = 0;
	return weft__seir_population_build(pp, pop, err, err_size);
}

static const char A2[] = "id,age\n1,30\n2,40\n";
static const char A3[] = "id,age,household\n1,30,5\n2,31,5\n3,8,\n";

/* Each malformed file, and the exact message: the file (0: agents, 1:
 * edges), then what follows its path. */
static const struct bad_case {
	const char *agents, *edges;
	int daily, in_edges;
	const char *msg;
} bad_cases[] = {
	{ "", NULL, 1, 0,
	  ":1: empty file: expected a header line naming the columns (id, "
	  "age, household, school, work)" },
	{ "id,age,colour\n1,30,red\n", NULL, 1, 0,
	  ":1: unknown column 'colour' (the columns are id, age, household, "
	  "school, work)" },
	{ "id,household\n1,4\n", NULL, 1, 0,
	  ":1: no column 'age' (required: id, age)" },
	{ "id,age,id\n", NULL, 1, 0, ":1: column 'id' appears twice" },
	{ "id,age\n", NULL, 1, 0, ":1: no agents after the header" },
	{ "id,age\n1,30\n2\n", NULL, 1, 0,
	  ":3: 1 field, but the header has 2" },
	{ "id,age\n1,30,4\n", NULL, 1, 0,
	  ":2: 3 fields, but the header has 2" },
	{ "id,age\nx1,30\n", NULL, 1, 0,
	  ":2: id 'x1' is not a non-negative integer" },
	{ "id,age\n-1,30\n", NULL, 1, 0,
	  ":2: id '-1' is not a non-negative integer" },
	{ "id,age\n9223372036854775808,30\n", NULL, 1, 0,
	  ":2: id 9223372036854775808 is out of range "
	  "0-9223372036854775807" },
	{ "id,age\n1,130\n", NULL, 1, 0, ":2: age 130 is out of range 0-120" },
	{ "id,age\n1,3.5\n", NULL, 1, 0,
	  ":2: age '3.5' is not a whole number of years" },
	{ "id,age\n1,\n", NULL, 1, 0,
	  ":2: age '' is not a whole number of years" },
	{ "id,age,household\n1,30,h1\n", NULL, 1, 0,
	  ":2: household 'h1' is not a non-negative integer" },
	{ "id,age\n1,30\n\n2,40\n1,50\n", NULL, 1, 0,
	  ":5: duplicate agent id 1 (first at line 2)" },
	/* Files written by pandas: its index column (df.to_csv(path)),
	 * read back and written again ("Unnamed: 0"), and integers with
	 * missing values written as floats. */
	{ ",id,age\n0,1,30\n", NULL, 1, 0,
	  ":1: column 1 of the header has no name: a pandas index, written "
	  "by df.to_csv(path); write the file without it, df.to_csv(path, "
	  "index=False)" },
	{ "Unnamed: 0,id,age\n0,1,30\n", NULL, 1, 0,
	  ":1: column 1 of the header is 'Unnamed: 0': a pandas index read "
	  "back as a column; drop it, df = df.drop(columns='Unnamed: 0') (or "
	  "read with pd.read_csv(path, index_col=0)), then df.to_csv(path, "
	  "index=False)" },
	{ "id,age,school\n1,30,\n2,8,5.0\n", NULL, 1, 0,
	  ":3: school '5.0' is written as a float: pandas does that to an "
	  "integer column with missing values; write it as integers, "
	  "df['school'] = df['school'].astype('Int64') (astype(int) when "
	  "none is missing), then df.to_csv(path, index=False)" },
	{ "id,age\n1,30.0\n", NULL, 1, 0,
	  ":2: age '30.0' is written as a float: pandas does that to an "
	  "integer column with missing values; write it as integers, "
	  "df['age'] = df['age'].astype('Int64') (astype(int) when none is "
	  "missing), then df.to_csv(path, index=False)" },
	{ A2, "source,target,layer\n1,2.0,home\n", 1, 1,
	  ":2: agent id '2.0' is written as a float: pandas does that to an "
	  "integer column with missing values; write it as integers, "
	  "df['target'] = df['target'].astype('Int64') (astype(int) when "
	  "none is missing), then df.to_csv(path, index=False)" },
	{ "id,age,work\n1,30,5.5\n", NULL, 1, 0,
	  ":2: work '5.5' is not a non-negative integer" },
	{ A2, "source,target\n", 1, 1,
	  ":1: no column 'layer' (required: source, target, layer)" },
	{ A2, "source,target,layer\n1,99,home\n", 1, 1,
	  ":2: unknown agent id 99 (not in %s)" },
	{ A2, "source,target,layer\n1,two,home\n", 1, 1,
	  ":2: agent id 'two' is not a non-negative integer" },
	{ A2, "source,target,layer\n1,2,home\n2,2,work\n", 1, 1,
	  ":3: self-loop: agent 2 in contact with itself" },
	{ A2, "source,target,layer\n1,2,gym\n", 1, 1,
	  ":2: unknown layer 'gym' (home, school, work, community or h, s, "
	  "w, c)" },
	{ A2, "source,target,layer\n1,2\n", 1, 1,
	  ":2: 2 fields, but the header has 3" },
	{ A2, "source,target,layer,weight\n1,2,w,heavy\n", 1, 1,
	  ":2: weight 'heavy' is not a number" },
	{ A2, "source,target,layer,weight\n1,2,w,0\n", 1, 1,
	  ":2: weight 0 is not above 0" },
	{ A2, "source,target,layer,weight\n1,2,w,-0.5\n", 1, 1,
	  ":2: weight -0.5 is not above 0" },
	{ A2, "source,target,layer,weight\n1,2,w,70\n", 1, 1,
	  ":2: weight 70 is above 65.535, the largest" },
	{ A2, "source,target,layer,weight\n1,2,w,nan\n", 1, 1,
	  ":2: weight 'nan' is not a number" },
	{ A2, "source,target,layer\n1,2,community\n", 1, 1,
	  ":2: a community edge, but community_daily = true draws the "
	  "community layer anew every day; set community_daily = false to "
	  "store it" },
};

/* A build (st, err, pop) refused with WEFT_E_CONFIG and exactly want,
 * nothing left built. */
static void expect_refused(weft_status st, const char *err,
			   seir_population *pop, const char *want,
			   const char *group, const char *name)
{
	if (!tap_ok(st == WEFT_E_CONFIG && !strcmp(err, want) &&
			    pop->age == NULL,
		    "%s: %s", group, name))
		tap_diag("got (%d): %s; wanted %s", (int)st, err, want);
	if (st == WEFT_OK)
		weft__seir_population_free(pop);
}

static void test_csv_errors(void)
{
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *c = &bad_cases[i];
		seir_population pop;
		char err[1024], want[1600], tail[1200];
		weft_status st = csv_build(c->agents, c->edges, c->daily, &pop,
					   err, sizeof err);
		snprintf(tail, sizeof tail, c->msg, agents_path);
		snprintf(want, sizeof want, "%s%s",
			 c->in_edges ? edges_path : agents_path, tail);
		expect_refused(st, err, &pop, want, "csv error", tail);
	}
}

static void test_csv_missing(void)
{
	seir_pop_params *pp = params(SEIR_POP_CSV, 0, 5);
	seir_population pop;
	char err[1024], want[1200];

	snprintf(pp->agents_file, sizeof pp->agents_file, "%s/none.csv",
		 tap_tmpdir());
	snprintf(want, sizeof want,
		 "cannot open the agents file '%s': No such file or directory",
		 pp->agents_file);
	tap_ok(weft__seir_population_build(pp, &pop, err, sizeof err) ==
			       WEFT_E_IO &&
		       !strcmp(err, want),
	       "csv: a missing agents file is named with the path tried");
	csv_build(A2, "source,target,layer\n", 1, &pop, err, sizeof err);
	weft__seir_population_free(&pop);
	snprintf(pp->agents_file, sizeof pp->agents_file, "%s", agents_path);
	snprintf(pp->edges_file, sizeof pp->edges_file, "%s/none-e.csv",
		 tap_tmpdir());
	snprintf(want, sizeof want,
		 "cannot open the edges file '%s': No such file or directory",
		 pp->edges_file);
	tap_ok(weft__seir_population_build(pp, &pop, err, sizeof err) ==
			       WEFT_E_IO &&
		       !strcmp(err, want),
	       "csv: so is a missing edges file");
	pp->agents_file[0] = '\0';
	tap_ok(weft__seir_population_build(pp, &pop, err, sizeof err) ==
			       WEFT_E_CONFIG &&
		       !strcmp(err, "population = csv needs agents_file"),
	       "csv: agents_file must be set");
}

/* ---- csv: bounded reads ----------------------------------------------------
 */

/* bytes of text (NUL bytes included) into path. */
static void write_bytes(const char *path, const char *text, size_t bytes)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(text, 1, bytes, f) != bytes || fclose(f) != 0)
		tap_bail("cannot write %s", path);
}

/* The build from pp fails with WEFT_E_CONFIG and exactly want. */
static void csv_refused(const seir_pop_params *pp, const char *want,
			const char *name)
{
	seir_population pop;
	char err[1024];
	weft_status st = weft__seir_population_build(pp, &pop, err, sizeof err);

	expect_refused(st, err, &pop, want, "csv bounds", name);
}

/* Lines, NUL bytes, /dev/zero: memory stays bounded whatever a file
 * holds, and each is refused at its line (/dev/zero as a device). */
static void test_csv_lines(void)
{
	seir_pop_params *pp = params(SEIR_POP_CSV, 0, 5);
	char text[SEIR_POP_LINE_MAX + 64], want[1200];
	size_t len;

	snprintf(pp->agents_file, sizeof pp->agents_file, "%s/long.csv",
		 tap_tmpdir());
	len = (size_t)snprintf(text, sizeof text, "id,age\n1,30\n2,");
	memset(text + len, '4', SEIR_POP_LINE_MAX);
	write_bytes(pp->agents_file, text, len + SEIR_POP_LINE_MAX);
	snprintf(want, sizeof want,
		 "%s:3: line longer than 4096 bytes, the most a line of a "
		 "population file may hold",
		 pp->agents_file);
	csv_refused(pp, want, "a line of 4098 bytes, named by its line");
	snprintf(pp->agents_file, sizeof pp->agents_file, "%s/nul.csv",
		 tap_tmpdir());
	write_bytes(pp->agents_file, "id,age\n1,3\0\n", 12);
	snprintf(want, sizeof want,
		 "%s:2: a NUL byte at column 4: a population file holds text",
		 pp->agents_file);
	csv_refused(pp, want, "a NUL byte, named by its line and column");
	snprintf(pp->agents_file, sizeof pp->agents_file, "/dev/zero");
	csv_refused(pp,
		    "the agents file '/dev/zero' is a character device, not a "
		    "regular file: give the path of a CSV file",
		    "an agents file that is /dev/zero, at once");
	snprintf(pp->agents_file, sizeof pp->agents_file, "%s/a2.csv",
		 tap_tmpdir());
	write_bytes(pp->agents_file, "id,age\n1,30\n2,40\n", 17);
	snprintf(pp->edges_file, sizeof pp->edges_file, "/dev/zero");
	csv_refused(pp,
		    "the edges file '/dev/zero' is a character device, not a "
		    "regular file: give the path of a CSV file",
		    "an edges file that is /dev/zero, at once");
	pp->edges_file[0] = '\0';
}

/* [seir] agents, when set, declares the rows of agents_file: a row past
 * them is refused at its line, fewer at the end. */
static void test_csv_declared(void)
{
	seir_pop_params *pp = params(SEIR_POP_CSV, 2, 5);
	char want[1200];

	pp->agents_declared = 1;
	snprintf(pp->agents_where, sizeof pp->agents_where, "town.ini:4");
	snprintf(pp->agents_file, sizeof pp->agents_file, "%s/a3.csv",
		 tap_tmpdir());
	write_bytes(pp->agents_file, "id,age\n1,30\n\n2,40\n3,50\n", 23);
	snprintf(want, sizeof want,
		 "%s:5: more agents than [seir] agents = 2 (town.ini:4)",
		 pp->agents_file);
	csv_refused(pp, want, "a row past the agents declared, at its line");
	write_bytes(pp->agents_file, "id,age\n1,30\n", 12);
	snprintf(want, sizeof want,
		 "%s:2: 1 agent, but [seir] agents = 2 (town.ini:4)",
		 pp->agents_file);
	csv_refused(pp, want, "fewer agents than declared");
}

/* An agents file of n rows, household h for all but the first two. */
static void write_household(const char *path, int n, int h)
{
	size_t size = (size_t)n * 24 + 32, len;
	char *text = malloc(size);

	if (!text)
		tap_bail("out of memory");
	len = (size_t)snprintf(text, size, "id,age,household\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, size - len, "%d,30,%d\n", i,
					i < 2 ? 3 : h);
	write_bytes(path, text, len);
	free(text);
}

/* A household of 40,000 members would store 1.6e9 contacts: refused at
 * the line of its first member past household_max. */
static void test_csv_household_max(void)
{
	seir_pop_params *pp = params(SEIR_POP_CSV, 0, 5);
	seir_population pop;
	char err[1024], want[1200];

	snprintf(pp->agents_file, sizeof pp->agents_file, "%s/big-hh.csv",
		 tap_tmpdir());
	write_household(pp->agents_file, 40002, 7);
	snprintf(want, sizeof want,
		 "%s:1004: household 7 has more than 1000 members, the most "
		 "[seir] household_max allows (its first member is at line 4)",
		 pp->agents_file);
	csv_refused(pp, want, "a household of 40000 members, at its line");
	write_household(pp->agents_file, 1002, 9);
	if (tap_ok(weft__seir_population_build(pp, &pop, err, sizeof err) ==
			   WEFT_OK,
		   "csv bounds: a household of household_max members is "
		   "built")) {
		tap_ok(pop.layer[SEIR_L_HOME].n_edges == 1000 * 999 + 2,
		       "csv bounds: ...as a clique");
		weft__seir_population_free(&pop);
	} else {
		tap_diag("%s", err);
	}
}

/* A well-mixed 32-bit hash (lowbias32): workplaces at random. */
static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ (x >> 16);
}

/* What the estimate reads of a file: its rows from its size and first
 * rows, the header checked. */
static void test_csv_sample(void)
{
	size_t size = 100001 * 32, len;
	char *text = malloc(size), path[700], err[1024];
	seir_pop_sample sm;
	weft_status st;

	if (!text)
		tap_bail("out of memory");
	len = (size_t)snprintf(text, size, "id,age,household,work\n");
	for (int i = 0; i < 100000; i++)
		len += (size_t)snprintf(text + len, size - len, "%d,%d,%d,%d\n",
					1000000 + i, i % 90, i / 4,
					(int)(mix32((uint32_t)i) % 5000));
	snprintf(path, sizeof path, "%s/sample.csv", tap_tmpdir());
	write_bytes(path, text, len);
	free(text);
	st = weft__pop_csv_sample(path, 0, &sm, err, sizeof err);
	if (!tap_ok(st == WEFT_OK && sm.rows >= 90000 && sm.rows <= 110000,
		    "csv sample: 100000 rows estimated from the file's size "
		    "and first rows (%llu)",
		    (unsigned long long)sm.rows))
		tap_diag("%s", err);
	tap_ok(st == WEFT_OK && sm.share[0] == 1.0 && sm.share[1] == 0 &&
		       sm.group[0] > 2.9 && sm.group[0] < 3.1 &&
		       sm.group[2] > 14 && sm.group[2] < 26,
	       "csv sample: households of 4 listed together (%.2f), "
	       "workplaces of 20 at random (%.2f)",
	       sm.group[0], sm.group[2]);
	tap_ok(weft__pop_csv_sample("/dev/zero", 0, &sm, err, sizeof err) ==
			       WEFT_E_CONFIG &&
		       !strcmp(err, "the agents file '/dev/zero' is a "
				    "character device, not a regular file: "
				    "give the path of a CSV file"),
	       "csv sample: /dev/zero is refused, as a device");
}

static uint16_t weight_of(const seir_csr *l, uint32_t a, uint32_t b)
{
	uint64_t at;
	if (!has_edge(l, a, b, &at))
		return 0;
	return l->weight ? l->weight[at] : 1000;
}

/* duplicate_edges = error: the earliest line that repeats a pair, with
 * the line it repeats (here line 4 repeats 3 before line 5 repeats 2). */
static void test_csv_duplicate_error(void)
{
	seir_pop_params *pp = params(SEIR_POP_CSV, 0, 5);
	seir_population pop;
	char err[1024], want[1200];

	if (tap_write_file(edges_path, "source,target,layer\n1,2,h\n"
				       "2,3,w\n3,2,work\n2,1,home\n"))
		tap_bail("cannot write %s", edges_path);
	pp->duplicate_error = 1;
	memcpy(pp->agents_file, agents_path, sizeof agents_path);
	memcpy(pp->edges_file, edges_path, sizeof edges_path);
	snprintf(want, sizeof want,
		 "%s:4: duplicate edge 3-2 in layer work (first at line 3; "
		 "duplicate_edges = error)",
		 edges_path);
	if (!tap_ok(weft__seir_population_build(pp, &pop, err, sizeof err) ==
				    WEFT_E_CONFIG &&
			    !strcmp(err, want),
		    "duplicate_edges = error names both lines"))
		tap_diag("got: %s", err);
	pp->duplicate_error = 0;
	if (!tap_ok(weft__seir_population_build(pp, &pop, err, sizeof err) ==
			    WEFT_OK,
		    "duplicate_edges = merge accepts the same file"))
		tap_diag("%s", err);
	else
		tap_ok(pop.layer[SEIR_L_HOME].n_edges == 2 &&
			       pop.layer[SEIR_L_WORK].n_edges == 2,
		       "  ...storing each pair once");
	weft__seir_population_free(&pop);
}

/* merge keeps one edge with the largest weight, also against the edges
 * its groups imply; error names both lines. */
static void test_csv_duplicates(void)
{
	static const char edges[] = "source,target,layer,weight\n"
				    "1,2,home,0.5\n"
				    "3,1,c,2\n"
				    "1,3,community,0.25\n"
				    "2,3,work,0.0004\n"
				    "3,2,school,65.535\n"
				    "1,2,s,2.5\n";
	seir_population pop;
	const seir_csr *l = pop.layer;
	char err[1024];

	if (!tap_ok(csv_build(A3, edges, 0, &pop, err, sizeof err) == WEFT_OK,
		    "csv: duplicates merged"))
		tap_diag("%s", err);
	else {
		check_layers(&pop, "csv duplicates");
		tap_ok(l[SEIR_L_HOME].n_edges == 2 &&
			       weight_of(&l[SEIR_L_HOME], 0, 1) == 1000,
		       "merge: household 1-2 stays weight 1 (max of 1, 0.5)");
		tap_ok(l[SEIR_L_COMMUNITY].n_edges == 2 &&
			       weight_of(&l[SEIR_L_COMMUNITY], 0, 2) == 2000 &&
			       weight_of(&l[SEIR_L_COMMUNITY], 2, 0) == 2000,
		       "merge: community 3-1 and 1-3 are one edge of weight 2");
		tap_ok(weight_of(&l[SEIR_L_WORK], 1, 2) == 1 &&
			       weight_of(&l[SEIR_L_SCHOOL], 1, 2) == 65535 &&
			       weight_of(&l[SEIR_L_SCHOOL], 0, 1) == 2500,
		       "weights in thousandths: 0.0004 -> 1, 65.535, 2.5");
		weft__seir_population_free(&pop);
	}
	test_csv_duplicate_error();
}

/* LF or CRLF, a byte order mark, blank lines, spaces around fields and
 * no final newline all read the same. */
static void test_csv_line_endings(void)
{
	static const char a_lf[] = "id,age,household,school\n"
				   "10,30,5,\n12,31,5,\n15,8,,3\n17,9,,3\n";
	static const char e_lf[] = "source,target,layer,weight\n"
				   "10,15,c,0.5\n12,17,s,\n";
	static const char a_crlf[] =
		"\xef\xbb\xbfid , age,household ,school\r\n"
		"10,30,5,\r\n\r\n 12 ,31, 5,\r\n"
		"15,8,,3\r\n  \r\n17,9,,3";
	static const char e_crlf[] = "source,target,layer,weight\r\n"
				     "10, 15 ,c,0.5\r\n12,17,s,";
	seir_population a, b;
	char err[1024];

	if (!tap_ok(csv_build(a_lf, e_lf, 0, &a, err, sizeof err) == WEFT_OK,
		    "csv: LF files load"))
		tap_diag("%s", err);
	else if (!tap_ok(csv_build(a_crlf, e_crlf, 0, &b, err, sizeof err) ==
				 WEFT_OK,
			 "csv: CRLF files load"))
		tap_diag("%s", err);
	else {
		tap_ok(same_population(&a, &b),
		       "CRLF, a byte order mark, blank lines, spaces and no "
		       "final newline read the same as LF");
		tap_ok(a.n_agents == 4 && a.age[0] == 30 && a.age[3] == 9 &&
			       a.layer[SEIR_L_SCHOOL].weight == NULL &&
			       weight_of(&a.layer[SEIR_L_SCHOOL], 1, 3) &&
			       weight_of(&a.layer[SEIR_L_SCHOOL], 2, 3) &&
			       weight_of(&a.layer[SEIR_L_COMMUNITY], 0, 2) ==
				       500,
		       "ids map to 0..n-1 in file order; an empty weight is 1");
		weft__seir_population_free(&b);
	}
	weft__seir_population_free(&a);
}

/* A group of at most contacts + 1 agents is a clique; a larger one gets
 * random contacts within it, contacts on average. */
static void test_csv_groups(void)
{
	char agents[4096] = "id,age,school,work\n", err[1024];
	size_t used = strlen(agents);
	seir_population pop;
	uint64_t sum = 0;
	int inside = 1, small = 1, work = 1;

	for (int i = 0; i < 51; i++)
		used += (size_t)snprintf(agents + used, sizeof agents - used,
					 "%d,%d,%s,%s\n", 100 + i,
					 i < 34 ? 10 : 40,
					 i < 30	  ? "1"
					 : i < 34 ? "2"
						  : "",
					 i < 34 ? "" : "7");
	if (!tap_ok(csv_build(agents, NULL, 1, &pop, err, sizeof err) ==
			    WEFT_OK,
		    "csv: schools and workplaces load"))
		return (void)tap_diag("%s", err);
	check_layers(&pop, "csv groups");
	for (uint32_t i = 0; i < 34; i++) {
		const seir_csr *s = &pop.layer[SEIR_L_SCHOOL];
		for (uint32_t e = s->row[i]; e < s->row[i + 1]; e++)
			inside &= (i < 30) == (s->col[e] < 30);
		if (i < 30)
			sum += degree(s, i);
		else
			small &= degree(s, i) == 3;
	}
	for (uint32_t i = 34; i < 51; i++)
		work &= degree(&pop.layer[SEIR_L_WORK], i) == 16;
	tap_ok(inside, "school contacts stay within each school");
	tap_ok(small && work,
	       "groups of at most contacts + 1 (4 pupils, 17 workers with "
	       "work_contacts = 16) are cliques");
	tap_ok(sum >= 30 * 17 && sum <= 30 * 23,
	       "a school of 30 with school_contacts = 20: mean degree %.2f",
	       sum / 30.0);
	weft__seir_population_free(&pop);
}

/* The shipped example (examples/population): it loads, households are
 * cliques, weights are kept where the file gives them. */
static void test_csv_example(void)
{
	const char *src = getenv("WEFT_SRCDIR");
	seir_pop_params *pp = params(SEIR_POP_CSV, 0, 1);
	unsigned long long id, hh[400];
	uint32_t n = 0, age, cliques = 1;
	char *text, *line;
	seir_population pop;

	snprintf(pp->agents_file, sizeof pp->agents_file,
		 "%s/examples/population/agents.csv", src ? src : ".");
	snprintf(pp->edges_file, sizeof pp->edges_file,
		 "%s/examples/population/edges.csv", src ? src : ".");
	pp->community_daily = 0;
	text = tap_read_file(pp->agents_file, NULL);
	for (line = text ? strchr(text, '\n') : NULL; line && n < 400;
	     line = strchr(line + 1, '\n'))
		if (sscanf(line + 1, "%llu,%u,%llu", &id, &age, &hh[n]) == 3)
			n++;
	free(text);
	if (!build(pp, &pop, "the example population"))
		return;
	check_layers(&pop, "example");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (hh[i] == hh[j])
				cliques &= weight_of(&pop.layer[SEIR_L_HOME], i,
						     j) != 0;
	tap_ok(pop.n_agents == n && n >= 300, "example: %u agents", n);
	tap_ok(cliques, "example: every household is a clique");
	tap_ok(pop.layer[SEIR_L_HOME].weight &&
		       pop.layer[SEIR_L_COMMUNITY].weight &&
		       !pop.layer[SEIR_L_SCHOOL].weight,
	       "example: weighted home and community layers, unweighted "
	       "school layer");
	tap_diag("example: stored edges home %llu, school %llu, work %llu, "
		 "community %llu",
		 (unsigned long long)pop.layer[0].n_edges,
		 (unsigned long long)pop.layer[1].n_edges,
		 (unsigned long long)pop.layer[2].n_edges,
		 (unsigned long long)pop.layer[3].n_edges);
	weft__seir_population_free(&pop);
}

/* ---- parameters from the [seir] keys ---------------------------------------
 */

/* Parameters of cfg as the SEIR model would read them. */
static weft_status read_params(weft_context *ctx, const weft_config *cfg,
			       seir_pop_params *pp)
{
	weft_sim sim;
	weft_model_ctx mc;
	weft_status st;

	memset(&sim, 0, sizeof sim);
	memset(&mc, 0, sizeof mc);
	sim.ctx = ctx;
	sim.cfg = cfg;
	sim.model = weft__config_model(cfg);
	weft__mc_init(&mc, &sim, 0);
	st = weft__seir_population_params(&mc, pp, 1);
	pp->mc = NULL; /* no run: compared with the defaults' */
	return st;
}

static weft_config *load_ini(weft_context *ctx, const char *text, char *path,
			     size_t size)
{
	weft_config *cfg = NULL;

	snprintf(path, size, "%s/ini", tap_tmpdir());
	mkdir(path, 0700);
	snprintf(path, size, "%s/ini/pop.ini", tap_tmpdir());
	if (tap_write_file(path, text) || weft_config_load(ctx, path, &cfg))
		tap_bail("cannot load %s: %s", path, weft_context_error(ctx));
	return cfg;
}

static void test_params_files(weft_context *ctx)
{
	static seir_pop_params pp;
	char path[700], want[800];
	weft_config *cfg = load_ini(ctx,
				    "[simulation]\nseed = 4242\n[seir]\n"
				    "population = csv\n"
				    "agents_file = people.csv\n"
				    "edges_file = /data/e.csv\n"
				    "school_size = 50\n",
				    path, sizeof path);

	tap_ok(read_params(ctx, cfg, &pp) == WEFT_OK &&
		       pp.kind == SEIR_POP_CSV && pp.seed == 4242 &&
		       pp.school_size == 50,
	       "params: read from the [seir] keys; seed 0 is [simulation] "
	       "seed");
	snprintf(want, sizeof want, "%s/ini/people.csv", tap_tmpdir());
	tap_ok(!strcmp(pp.agents_file, want) &&
		       !strcmp(pp.edges_file, "/data/e.csv"),
	       "params: a relative path is taken from the INI file's "
	       "directory, an absolute one kept");
	weft_config_set(ctx, cfg, "seir.agents_file=rel.csv");
	tap_ok(read_params(ctx, cfg, &pp) == WEFT_OK &&
		       !strcmp(pp.agents_file, "rel.csv"),
	       "params: a path from --set is taken from the current "
	       "directory");
	weft_config_free(cfg);
}

static void test_params_errors(weft_context *ctx)
{
	static seir_pop_params pp;
	char path[700], want[1200];
	weft_config *cfg = load_ini(ctx, "[seir]\nages = 0-9:1, 9-3:2\n", path,
				    sizeof path);

	snprintf(want, sizeof want,
		 "model seir: %s:2: [seir] ages = 0-9:1, 9-3:2: '9-3:2': 9 is "
		 "above 3",
		 path);
	if (!tap_ok(read_params(ctx, cfg, &pp) == WEFT_E_CONFIG &&
			    !strcmp(weft_context_error(ctx), want),
		    "params: a bad distribution names file:line and key"))
		tap_diag("got: %s", weft_context_error(ctx));
	weft_config_free(cfg);
	cfg = load_ini(ctx, "[seir]\nwork_age_min = 70\n", path, sizeof path);
	snprintf(want, sizeof want,
		 "model seir: %s:2: work_age_min = 70 is above work_age_max = "
		 "64 (default)",
		 path);
	if (!tap_ok(read_params(ctx, cfg, &pp) == WEFT_E_CONFIG &&
			    !strcmp(weft_context_error(ctx), want),
		    "params: age ranges are checked together"))
		tap_diag("got: %s", weft_context_error(ctx));
	weft_config_free(cfg);
}

/* examples/population/town.ini, read as the model reads it, builds. */
static void test_params_town(weft_context *ctx)
{
	static seir_pop_params pp;
	const char *src = getenv("WEFT_SRCDIR");
	char path[700], err[1024];
	weft_config *cfg = NULL;
	seir_population pop;

	snprintf(path, sizeof path, "%s/examples/population/town.ini",
		 src ? src : ".");
	if (weft_config_load(ctx, path, &cfg) ||
	    read_params(ctx, cfg, &pp) != WEFT_OK) {
		tap_ok(0, "examples/population/town.ini: parameters read");
		tap_diag("%s", weft_context_error(ctx));
	} else if (!tap_ok(weft__seir_population_build(&pp, &pop, err,
						       sizeof err) == WEFT_OK,
			   "examples/population/town.ini: its population "
			   "builds")) {
		tap_diag("%s", err);
	} else {
		weft__seir_population_free(&pop);
	}
	weft_config_free(cfg);
}

static void test_params(void)
{
	static seir_pop_params from_keys, from_defaults;
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;

	/* The model's keys are declared once the configuration has found
	 * its model (validation). */
	if (weft_context_new(&ctx) || weft_config_new(ctx, &cfg) ||
	    weft_config_validate(ctx, cfg))
		tap_bail("cannot create a configuration: %s",
			 ctx ? weft_context_error(ctx) : "no context");
	if (!weft_config_get(cfg, "seir", "household_sizes")) {
		tap_skip(7, "the SEIR model does not declare "
			    "SEIR_POPULATION_KEYS yet");
		goto free_all;
	}
	weft__seir_population_defaults(&from_defaults);
	from_defaults.seed = 1; /* [simulation] seed's default */
	tap_ok(read_params(ctx, cfg, &from_keys) == WEFT_OK &&
		       !memcmp(&from_keys, &from_defaults, sizeof from_keys),
	       "params: an empty configuration gives the defaults");
	test_params_files(ctx);
	test_params_errors(ctx);
	test_params_town(ctx);
free_all:
	weft_config_free(cfg);
	weft_context_free(ctx);
}

/* ---- patches ---------------------------------------------------------------
 */

/* The entries of layer l between agents of different patches. */
static uint64_t cross_entries(const seir_csr *l, const seir_patches *pt)
{
	uint64_t cross = 0;
	uint32_t q = 0;

	for (uint32_t a = 0; a < pt->start[pt->n]; a++) {
		while (a >= pt->start[q + 1])
			q++;
		for (uint32_t e = l->row[a]; e < l->row[a + 1]; e++)
			cross += l->col[e] < pt->start[q] ||
				 l->col[e] >= pt->start[q + 1];
	}
	return cross;
}

/* Four patches (one empty) whose community mixes by net (shares of each
 * row, 0 on the diagonal), as spatial.c lays the shares out. */
#define TP_N 4
static void patches_make(seir_patches *pt, const double net[TP_N][TP_N],
			 uint64_t *cum, uint32_t *start, uint32_t *pops)
{
	static const uint32_t sizes[TP_N] = { 30000, 0, 12000, 8000 };
	double total = 0;

	memset(pt, 0, sizeof *pt);
	pt->n = TP_N;
	pt->start = start;
	pt->pops = pops;
	for (uint32_t q = 0; q < TP_N; q++) {
		double sum = 0, acc = 0;
		pops[q] = sizes[q];
		start[q + 1] = start[q] + sizes[q];
		for (uint32_t r = 0; r < TP_N; r++)
			sum += net[q][r];
		for (uint32_t r = 0; r < TP_N; r++) {
			acc += r == q ? 1 - sum : net[q][r];
			cum[q * TP_N + r] =
				r + 1 == TP_N
					? 1ull << 32
					: (uint64_t)(acc * 4294967296.0 + 0.5);
		}
		pt->share += sum * sizes[q];
		total += sizes[q];
	}
	pt->share /= total;
	pt->cum = net ? cum : NULL;
}

static void test_patches(void)
{
	static const double net[TP_N][TP_N] = { { 0, 0, 0.10, 0.05 },
						{ 0, 0, 0, 0 },
						{ 0.20, 0, 0, 0.02 },
						{ 0.15, 0, 0.05, 0 } };
	uint64_t cum[TP_N * TP_N];
	uint32_t start[TP_N + 1] = { 0 }, pops[TP_N];
	seir_pop_params *pp = params(SEIR_POP_SYNTHETIC, 50000, 777);
	seir_population pop, one, none;
	seir_patches *pt = &pp->patches;
	double got, want;

	patches_make(pt, net, cum, start, pops);
	pp->community_daily = 0;
	if (!build(pp, &pop, "synthetic in 4 patches"))
		return;
	check_layers(&pop, "synthetic in 4 patches");
	for (int l = SEIR_L_HOME; l < SEIR_L_COMMUNITY; l++)
		tap_ok(pop.layer[l].n_edges > 0 &&
			       cross_entries(&pop.layer[l], pt) == 0,
		       "patches: the %s layer's %llu entries stay within "
		       "their patches",
		       layer_names[l],
		       (unsigned long long)pop.layer[l].n_edges);
	got = (double)cross_entries(&pop.layer[SEIR_L_COMMUNITY], pt) /
	      pop.layer[SEIR_L_COMMUNITY].n_edges;
	want = pt->share;
	tap_ok(fabs(got / want - 1) < 0.05,
	       "patches: %.4f of the community's entries cross patches, the "
	       "network's share %.4f (within 5 %%)",
	       got, want);
	tap_ok(degree(&pop.layer[SEIR_L_COMMUNITY], start[1] - 1) > 0 &&
		       fabs((double)pop.layer[SEIR_L_COMMUNITY].n_edges /
				    pop.n_agents / pp->community_contacts -
			    1) < 0.02,
	       "patches: mean community degree %.3f within 2%% of %u",
	       (double)pop.layer[SEIR_L_COMMUNITY].n_edges / pop.n_agents,
	       pp->community_contacts);
	weft__seir_population_free(&pop);

	/* No network: nothing crosses. */
	pt->cum = NULL;
	if (build(pp, &pop, "synthetic in 4 patches, no mixing")) {
		tap_ok(cross_entries(&pop.layer[SEIR_L_COMMUNITY], pt) == 0,
		       "patches without a network: no community contact "
		       "crosses");
		weft__seir_population_free(&pop);
	}
	pp->kind = SEIR_POP_RANDOM;
	pp->contacts = 10;
	pt->cum = cum;
	if (build(pp, &pop, "random in 4 patches")) {
		got = (double)cross_entries(&pop.layer[SEIR_L_COMMUNITY], pt) /
		      pop.layer[SEIR_L_COMMUNITY].n_edges;
		tap_ok(fabs(got / want - 1) < 0.05,
		       "patches, random: %.4f of the entries cross, the "
		       "network's share %.4f",
		       got, want);
		weft__seir_population_free(&pop);
	}

	/* One patch of everyone is no patch at all, byte for byte. */
	pp->kind = SEIR_POP_SYNTHETIC;
	pt->n = 1;
	start[1] = pp->agents;
	pops[0] = pp->agents;
	pt->cum = NULL;
	if (build(pp, &one, "synthetic, one patch")) {
		memset(pt, 0, sizeof *pt);
		if (build(pp, &none, "synthetic, no patch")) {
			tap_ok(same_population(&one, &none),
			       "one patch of everyone gives the population "
			       "without patches, byte for byte");
			weft__seir_population_free(&none);
		}
		weft__seir_population_free(&one);
	}
	memset(pt, 0, sizeof *pt);
}

int main(void)
{
	test_bins();
	test_defaults();
	test_synthetic();
	test_stored_community();
	test_random();
	test_patches();
	test_too_many();
	test_csv_errors();
	test_csv_missing();
	test_csv_duplicates();
	test_csv_line_endings();
	test_csv_groups();
	test_csv_example();
	test_csv_lines();
	test_csv_declared();
	test_csv_household_max();
	test_csv_sample();
	test_params();
	time_build(1000000, 0);
	/* WEFT_POP_BIG=8400000: time a large build too, with the community
	 * layer drawn daily and stored. */
	if (getenv("WEFT_POP_BIG")) {
		time_build((uint32_t)atol(getenv("WEFT_POP_BIG")), 0);
		time_build((uint32_t)atol(getenv("WEFT_POP_BIG")), 1);
	}
	return tap_done();
}
