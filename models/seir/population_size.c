/*
 * models/seir/population_size.c - the size of a population before it is
 * built, for the model's memory estimate: its agents, the entries each
 * layer will store, and the host memory the build holds at its peak,
 * computed from the parameters (synthetic, random) or from the start of
 * the CSV files (csv: their sizes and first rows, never read whole).
 *
 * The formulas follow the builders (population.c, population_csr.c,
 * population_csv.c): expected contacts per agent from the distributions,
 * and the arrays each build allocates. tests/core/test-memory.sh holds the
 * result to what the run then measures.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "population_build.h"

/* ---- contacts per agent ------------------------------------------------- */

/* s summed over s = lo..hi. */
static double sz_sum(double lo, double hi)
{
	return hi < lo ? 0 : (lo + hi) * (hi - lo + 1) / 2;
}

/* s (s - 1) summed over s = lo..hi. */
static double sz_sum_pairs(double lo, double hi)
{
	double sq_hi = hi * (hi + 1) * (2 * hi + 1) / 6;
	double sq_lo = (lo - 1) * lo * (2 * lo - 1) / 6;

	return hi < lo ? 0 : sq_hi - sq_lo - sz_sum(lo, hi);
}

/* The share of the values lo..hi under bins (uniform within each). */
static double sz_share(const seir_pop_bins *b, uint32_t lo, uint32_t hi)
{
	double total = 0, in = 0;

	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t a = lo > b->lo[i] ? lo : b->lo[i];
		uint32_t z = hi < b->hi[i] ? hi : b->hi[i];
		total += b->w[i];
		if (a <= z)
			in += b->w[i] * (z - a + 1) / (b->hi[i] - b->lo[i] + 1);
	}
	return total > 0 ? in / total : 0;
}

/* Entries per member of groups whose sizes follow bins (weights per
 * group): a group of s is a clique when s - 1 <= d, else its members have
 * d contacts each on average. */
static double sz_per_member(const seir_pop_bins *b, double d)
{
	double members = 0, entries = 0;

	for (uint32_t i = 0; i < b->n; i++) {
		double lo = b->lo[i], hi = b->hi[i],
		       w = b->w[i] / (hi - lo + 1);
		double cut = hi < d + 1 ? hi : d + 1;
		members += w * sz_sum(lo, hi);
		entries += w * (sz_sum_pairs(lo, cut) +
				d * sz_sum(lo > cut + 1 ? lo : cut + 1, hi));
	}
	return members > 0 ? entries / members : 0;
}

/* Entries per member of one group of k with mean degree d. */
static double sz_group(double k, double d)
{
	return k < 1 ? 0 : k - 1 < d ? k - 1 : d;
}

static void sz_synthetic(const seir_pop_params *pp, double *entries)
{
	double n = pp->agents;
	double school =
		n * sz_share(&pp->ages, pp->school_age_min, pp->school_age_max);
	double workers =
		n * sz_share(&pp->ages, pp->work_age_min, pp->work_age_max);
	double g = pp->school_size ? floor((school + pp->school_size / 2) /
					   pp->school_size)
				   : 1;

	/* Households are cliques: sizes are at most 100. */
	entries[SEIR_L_HOME] = n * sz_per_member(&pp->household_sizes, 1e9);
	entries[SEIR_L_SCHOOL] = school * sz_group(school / (g < 1 ? 1 : g),
						   pp->school_contacts);
	entries[SEIR_L_WORK] =
		workers * (pp->work_one_group
				   ? sz_group(workers, pp->work_contacts)
				   : sz_per_member(&pp->workplace_sizes,
						   pp->work_contacts));
	if (!pp->community_daily)
		entries[SEIR_L_COMMUNITY] =
			n * sz_group(n, pp->community_contacts);
}

/* csv: the agents file's households as sampled, its schools and
 * workplaces at their mean degree, the edges file's rows in both
 * directions. */
static weft_status sz_csv(const seir_pop_params *pp, double *n, double *entries,
			  double *edge_rows, int *weighted, int *group_cols,
			  char *err, size_t err_size)
{
	seir_pop_sample a, e;
	weft_status st;

	if ((st = weft__pop_csv_sample(pp->agents_file, 0, &a, err, err_size)))
		return st;
	memset(&e, 0, sizeof e);
	if (pp->edges_file[0] &&
	    (st = weft__pop_csv_sample(pp->edges_file, 1, &e, err, err_size)))
		return st;
	*n = pp->agents_declared ? pp->agents : (double)a.rows;
	*group_cols = a.columns - 2;
	entries[SEIR_L_HOME] = *n * a.share[0] * a.group[0];
	entries[SEIR_L_SCHOOL] =
		*n * a.share[1] * sz_group(a.group[1] + 1, pp->school_contacts);
	entries[SEIR_L_WORK] =
		*n * a.share[2] * sz_group(a.group[2] + 1, pp->work_contacts);
	if (!pp->community_daily)
		entries[SEIR_L_COMMUNITY] =
			*n * sz_group(*n, pp->community_contacts);
	*edge_rows = (double)e.rows;
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		entries[l] += 2 * *edge_rows * e.share[l];
		weighted[l] = e.weighted[l];
	}
	return WEFT_OK;
}

/* ---- host memory of the build ---------------------------------------------
 */

/* Bytes of an id map of count entries (population_csv.c: open addressing
 * at most half full, a 64-bit key and a 32-bit value per slot). */
static double sz_map(double count)
{
	double cap = 16;

	while (cap < 2 * count)
		cap *= 2;
	return cap * 12;
}

/* What building a layer over n agents adds while it runs: the fill
 * pass's cursors and the buckets (population_csr.c). */
static double sz_layer_scratch(double n)
{
	return 4 * n + (floor(n / (1 << SEIR_POP_BUCKET_SHIFT)) + 1) *
			       (SEIR_POP_BUCKET_CAP * 8 + 4);
}

/* csv: the agents' arrays (id, line, groups, the id map) and the edges'
 * (ends, line, weight, layer; and their pairs, for duplicate_edges =
 * error) while the layers are built. */
static double sz_csv_rows(double n, int group_cols, double edge_rows,
			  int duplicate_error)
{
	return 12 * n + 8 * group_cols * n + sz_map(n) + 15 * edge_rows +
	       (duplicate_error ? 16 * edge_rows : 0);
}

/* csv: a layer's groups (group of each agent, offsets, members, the id
 * map), while home, school or work is built; the community layer, built
 * last, has none, and is not there yet. */
static double sz_csv_groups(double n, double community, int weighted)
{
	double groups = 12 * n + sz_map(n);
	double stored = community < 1 ? 0
				      : 4 * (n + 1) + (weighted ? 6 : 4) *
							      (community + 1);
	return groups > stored ? groups - stored : 0;
}

weft_status weft__seir_population_size(const seir_pop_params *pp,
				       seir_pop_size *out, char *err,
				       size_t err_size)
{
	double n = pp->agents, entries[SEIR_MAX_LAYERS] = { 0 };
	double edge_rows = 0, layers = 0, build, contacts = 0;
	int weighted[SEIR_MAX_LAYERS] = { 0 }, group_cols = 0;
	weft_status st;

	memset(out, 0, sizeof *out);
	if (pp->kind == SEIR_POP_CSV &&
	    (st = sz_csv(pp, &n, entries, &edge_rows, weighted, &group_cols,
			 err, err_size)))
		return st;
	if (pp->kind == SEIR_POP_SYNTHETIC)
		sz_synthetic(pp, entries);
	if (pp->kind == SEIR_POP_RANDOM && !pp->community_daily)
		entries[SEIR_L_COMMUNITY] = n * sz_group(n, pp->contacts);
	/* An empty layer's rows are calloc()ed and never written: no
	 * memory is resident for them. */
	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		out->entries[l] = (uint64_t)ceil(entries[l]);
		out->weighted |= weighted[l];
		if (entries[l] < 1)
			continue;
		contacts += (weighted[l] ? 6 : 4) * (entries[l] + 1);
		layers += 4 * (n + 1);
	}
	/* Every build: the ages, the layers, one layer's scratch. */
	build = n + layers + contacts + (layers > 0 ? sz_layer_scratch(n) : 0);
	if (pp->kind == SEIR_POP_SYNTHETIC) /* school and work members */
		build += 8 * n + 12;
	if (pp->kind == SEIR_POP_CSV) /* the files' rows, a layer's groups */
		build += sz_csv_rows(n, group_cols, edge_rows,
				     pp->duplicate_error) +
			 sz_csv_groups(n, entries[SEIR_L_COMMUNITY],
				       weighted[SEIR_L_COMMUNITY]);
	out->agents = (uint64_t)n;
	out->contact_bytes = (uint64_t)contacts;
	out->pop_bytes = (uint64_t)(n + layers + contacts);
	out->build_bytes = (uint64_t)build;
	return WEFT_OK;
}
