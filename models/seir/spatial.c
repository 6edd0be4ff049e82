/*
 * models/seir/spatial.c - the SEIR model's patches ([seir] patch_file):
 * the file read by weft/patches.h (a row per patch: population, latitude
 * and longitude, initial_infected), the network between them by LASER's
 * migration models (the migration keys, as the patch model has them),
 * and the cumulative shares the population's builder draws a community
 * contact's patch from (population.c). The agents of a patch are
 * numbered together, its households, schools and workplaces lie within
 * it; what crosses patches is the community layer, along the network.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/patches.h>

#include "population.h"

void weft__seir_patches_free(seir_patches *pt)
{
	free(pt->start);
	free(pt->pops);
	free(pt->seeds);
	free(pt->cum);
	memset(pt, 0, sizeof *pt);
}

/* The migration keys and network_file, which only patch_file gives a
 * meaning to: refused without it. */
static weft_status sp_unused(weft_model_ctx *mc)
{
	const char *k = weft_migration_key_set(mc);

	if (!k && weft_patches_key_set(mc, "network_file"))
		k = "network_file";
	if (!k)
		return WEFT_OK;
	return weft_model_fail(mc, WEFT_E_CONFIG,
			       "[seir] %s (%s) applies to patches: set "
			       "patch_file too",
			       k, weft_model_where(mc, k));
}

/* What patch_file cannot go with. */
static weft_status sp_refuse(weft_model_ctx *mc, const seir_pop_params *pp)
{
	const char *where = weft_model_where(mc, "patch_file");

	if (pp->kind == SEIR_POP_CSV)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] patch_file (%s) with population = csv (%s): "
			"patches place synthetic or random populations; a "
			"population from files has its own contacts",
			where, weft_model_where(mc, "population"));
	if (pp->community_daily)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] patch_file (%s) with community_daily = true "
			"(%s): the community contacts between patches are "
			"stored ones; set community_daily = false",
			where, weft_model_where(mc, "community_daily"));
	return WEFT_OK;
}

/* The agents of each patch into start, their sum into pp->agents
 * (which, when [seir] agents is set, must be that sum). */
static weft_status sp_agents(weft_model_ctx *mc, seir_pop_params *pp,
			     const weft_patch_table *t, const char *path)
{
	uint64_t sum = 0;
	seir_patches *pt = &pp->patches;

	for (uint32_t q = 0; q < t->n; q++) {
		pt->start[q] = (uint32_t)sum;
		sum += t->pops[q];
		if (sum > 2000000000u)
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[seir] patch_file (%s): %s, line %u: the "
				"populations add up to more than 2000000000 "
				"agents",
				weft_model_where(mc, "patch_file"), path,
				t->lines[q]);
	}
	pt->start[t->n] = (uint32_t)sum;
	if (sum == 0)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[seir] patch_file (%s): %s: no agents "
				       "(every population is 0)",
				       weft_model_where(mc, "patch_file"),
				       path);
	if (pp->agents_declared && pp->agents != sum)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] agents = %u (%s), but the patches of "
			"patch_file (%s) hold %llu; leave agents out with "
			"patch_file",
			pp->agents, pp->agents_where,
			weft_model_where(mc, "patch_file"),
			(unsigned long long)sum);
	pp->agents = (uint32_t)sum;
	return WEFT_OK;
}

/* The file's initial_infected column: the seeds of each patch (the
 * initial_infected and initial_fraction keys then must not be set). */
static weft_status sp_seeds(weft_model_ctx *mc, seir_patches *pt,
			    weft_patch_table *t)
{
	static const char *const keys[] = { "initial_infected",
					    "initial_fraction" };

	if (!(t->has & 1u << WEFT_PATCH_COL_INF))
		return WEFT_OK;
	for (int k = 0; k < 2; k++)
		if (weft_patches_key_set(mc, keys[k]))
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[seir] %s (%s) and patch_file's column "
				"initial_infected (%s) both give the initial "
				"infections; keep one",
				keys[k], weft_model_where(mc, keys[k]),
				weft_model_where(mc, "patch_file"));
	pt->seeds = t->init;
	t->init = NULL;
	return WEFT_OK;
}

void weft__seir_patches_mixing(seir_patches *pt, const seir_csr *community)
{
	uint32_t q = 0;

	pt->entries = community->n_edges;
	pt->cross = 0;
	for (uint32_t a = 0; pt->n && a < pt->start[pt->n]; a++) {
		while (a >= pt->start[q + 1])
			q++;
		for (uint32_t e = community->row[a]; e < community->row[a + 1];
		     e++)
			pt->cross += community->col[e] < pt->start[q] ||
				     community->col[e] >= pt->start[q + 1];
	}
}

/* The network's entry from q to r not a finite number: the patches
 * named by their lines of the file. */
static weft_status sp_not_finite(weft_model_ctx *mc, const char *path,
				 const weft_patch_table *t,
				 const weft_migration_desc *d, uint32_t q,
				 uint32_t r)
{
	return weft_model_fail(
		mc, WEFT_E_CONFIG,
		"[seir] migration = %s (%s): the network's entry from patch "
		"%u (%s, line %u) to patch %u (line %u) is not a finite "
		"number%s",
		weft_migration_names[d->model],
		weft_model_where(mc, "migration"), q, path, t->lines[q], r,
		t->lines[r],
		t->lat[q] == t->lat[r] && t->lon[q] == t->lon[r]
			? ": the two are at one place"
			: "");
}

/* The network's entries checked, and each row as cumulative 32-bit
 * thresholds, patch q's own share (1 - the row's sum) in its place;
 * pt->share the share that leaves a patch, weighted by the agents. */
static weft_status sp_cum(weft_model_ctx *mc, seir_patches *pt,
			  const double *net, const weft_migration_desc *d,
			  const weft_patch_table *t, const char *path)
{
	uint32_t P = pt->n;
	double total = 0;

	for (uint32_t q = 0; q < P; q++) {
		const double *row = net + (size_t)q * P;
		double sum = 0, acc = 0;

		for (uint32_t r = 0; r < P; r++) {
			if (!isfinite(row[r]))
				return sp_not_finite(mc, path, t, d, q, r);
			sum += row[r];
		}
		/* Rows are at most max_rowsum (at most 1), but for
		 * rounding. */
		sum = sum < 1 ? sum : 1;
		pt->share += sum * pt->pops[q];
		total += pt->pops[q];
		for (uint32_t r = 0; r < P; r++) {
			acc += r == q ? 1 - sum : row[r];
			acc = acc < 1 ? acc : 1;
			pt->cum[(size_t)q * P + r] =
				r + 1 == P ? 1ull << 32
					   : (uint64_t)floor(
						     acc * 4294967296.0 + 0.5);
		}
	}
	pt->share /= total;
	return WEFT_OK;
}

/* The network over the patches with agents (a patch of none takes no
 * share, and would leave 0/0 in radiation's and stouffer's sums), its
 * rows put back in place with 0 for the empty ones. */
static int sp_net_nonempty(const weft_migration_desc *d,
			   const weft_patch_table *t, double *net)
{
	uint32_t P = t->n, m = 0, *at = malloc((size_t)P * sizeof *at);
	uint32_t *pops = malloc((size_t)P * sizeof *pops);
	double *lat = malloc((size_t)P * sizeof *lat);
	double *lon = malloc((size_t)P * sizeof *lon);
	double *sub = NULL;
	int rc = -1;

	if (!at || !pops || !lat || !lon)
		goto free_all;
	for (uint32_t q = 0; q < P; q++)
		if (t->pops[q]) {
			at[m] = q;
			pops[m] = t->pops[q];
			lat[m] = t->lat[q];
			lon[m++] = t->lon[q];
		}
	if (!(sub = malloc((size_t)m * m * sizeof *sub)))
		goto free_all;
	{
		weft_migration_patches mp = { m, pops, lat, lon };
		if ((rc = weft_migration_network(d, &mp, sub)))
			goto free_all;
	}
	memset(net, 0, (size_t)P * P * sizeof *net);
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < m; j++)
			net[(size_t)at[i] * P + at[j]] = sub[(size_t)i * m + j];
free_all:
	free(sub);
	free(lon);
	free(lat);
	free(pops);
	free(at);
	return rc;
}

/* The file that key names, its path resolved against the INI file's
 * directory into path, opened for reading into *f; a failure names the
 * key and the path. */
static weft_status sp_open(weft_model_ctx *mc, const char *key, char *path,
			   FILE **f)
{
	const char *where = weft_model_where(mc, key);
	int err;

	snprintf(path, SEIR_POP_PATH_MAX, "%s", weft_model_string(mc, key));
	if (strlen(weft_model_string(mc, key)) >= SEIR_POP_PATH_MAX ||
	    !weft__seir_pop_resolve(path, where))
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[seir] %s (%s): the path is longer "
				       "than %d bytes",
				       key, where, SEIR_POP_PATH_MAX - 1);
	if ((*f = fopen(path, "r")))
		return WEFT_OK;
	err = errno;
	return weft_model_fail(mc, WEFT_E_IO,
			       "[seir] %s (%s): cannot open %s: %s", key, where,
			       path, strerror(err));
}

/* network_file's network (P x P) into net, read as the patch model
 * reads it (weft/patches.h), each row's sum at most 1 (what leaves a
 * patch); then the rows and columns of patches without agents zeroed
 * (pops NULL: not yet). */
static weft_status sp_net_file(weft_model_ctx *mc, uint32_t P,
			       const uint32_t *pops, double *net)
{
	const char *where = weft_model_where(mc, "network_file");
	char path[SEIR_POP_PATH_MAX];
	FILE *f;
	weft_status st;

	if ((st = sp_open(mc, "network_file", path, &f)))
		return st;
	st = weft_migration_network_read(mc, "seir", "network_file", f, path, P,
					 net);
	fclose(f);
	for (uint32_t q = 0; !st && q < P; q++) {
		double sum = 0;

		for (uint32_t r = 0; r < P; r++)
			sum += net[(size_t)q * P + r];
		if (sum > 1)
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[seir] network_file (%s): %s: the row of "
				"patch %u sums to %.17g; the shares of a "
				"patch's contacts that leave it add up to at "
				"most 1",
				where, path, q, sum);
		for (uint32_t r = 0; pops && r < P; r++)
			if (!pops[q] || !pops[r])
				net[(size_t)q * P + r] = 0;
	}
	return st;
}

/* With network_file: the migration keys refused, and the file read and
 * checked (a one-patch file too, which then mixes nothing). */
static weft_status sp_net_file_check(weft_model_ctx *mc, uint32_t P)
{
	double *net;
	weft_status st;

	if ((st = weft_migration_replaced(mc, "seir", "network_file")))
		return st;
	if (P >= 2)
		return WEFT_OK; /* read with the network below */
	if (!(net = malloc(sizeof *net)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the network");
	st = sp_net_file(mc, P, NULL, net);
	free(net);
	return st;
}

/* The network between the patches (more than one, mixing), and its
 * cumulative shares (the network itself freed once they are made). */
static weft_status sp_network(weft_model_ctx *mc, seir_patches *pt,
			      const weft_patch_table *t, const char *path,
			      int network)
{
	weft_migration_desc d;
	size_t P = t->n;
	double *net;
	int file = weft_model_string(mc, "network_file")[0] != 0;
	weft_status st;

	if ((file && (st = sp_net_file_check(mc, t->n))) ||
	    (st = weft_migration_read(mc, "seir", &d)))
		return st;
	if (P < 2 || (!file && d.k == 0))
		return WEFT_OK;
	if (!file && !(t->has & 1u << WEFT_PATCH_COL_LAT))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] patch_file (%s): %u patches mix through the "
			"migration network, which needs the columns latitude "
			"and longitude (or gravity_k = 0: no mixing)",
			weft_model_where(mc, "patch_file"), t->n);
	if (P > SEIR_MAX_MIX)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] patch_file (%s): %u patches; at most %u mix "
			"through a network (%s)",
			weft_model_where(mc, "patch_file"), t->n, SEIR_MAX_MIX,
			file ? "network_file mixes them: remove it"
			     : "or gravity_k = 0: no mixing");
	pt->mixes = 1;
	if (!network)
		return WEFT_OK;
	net = malloc(P * P * sizeof *net);
	pt->cum = malloc(P * P * sizeof *pt->cum);
	if (!net || !pt->cum || (!file && sp_net_nonempty(&d, t, net))) {
		free(net);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "[seir] patch_file: cannot allocate "
				       "the network of %u patches",
				       t->n);
	}
	st = file ? sp_net_file(mc, t->n, t->pops, net) : WEFT_OK;
	if (!st)
		st = sp_cum(mc, pt, net, &d, t, path);
	free(net);
	return st;
}

static weft_status sp_read(weft_model_ctx *mc, seir_pop_params *pp, char *path,
			   weft_patch_table *t)
{
	seir_patches *pt = &pp->patches;
	FILE *f;
	weft_status st;

	if ((st = sp_open(mc, "patch_file", path, &f)))
		return st;
	st = weft_patch_table_read(mc, "seir", "patch_file", f, path, NULL, 0,
				   SEIR_MAX_PATCHES, t);
	fclose(f);
	if (st)
		return st;
	if (t->n == 0)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[seir] patch_file (%s): %s: no patches",
				       weft_model_where(mc, "patch_file"),
				       path);
	pt->n = t->n;
	pt->pops = t->pops; /* shared with t until the end */
	if (!(pt->start = malloc(((size_t)t->n + 1) * sizeof *pt->start)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "[seir] patch_file: cannot allocate "
				       "%u patches",
				       t->n);
	return WEFT_OK;
}

weft_status weft__seir_patches_params(weft_model_ctx *mc, seir_pop_params *pp,
				      int network)
{
	char path[SEIR_POP_PATH_MAX];
	weft_patch_table t;
	weft_status st;

	memset(&pp->patches, 0, sizeof pp->patches);
	if (!weft_model_string(mc, "patch_file")[0])
		return sp_unused(mc);
	if ((st = sp_refuse(mc, pp)))
		return st;
	memset(&t, 0, sizeof t);
	st = sp_read(mc, pp, path, &t);
	if (!st)
		st = sp_agents(mc, pp, &t, path);
	if (!st)
		st = sp_seeds(mc, &pp->patches, &t);
	if (!st)
		st = sp_network(mc, &pp->patches, &t, path, network);
	t.pops = NULL; /* pp->patches' (or NULL) */
	weft_patch_table_free(&t);
	if (st)
		weft__seir_patches_free(&pp->patches);
	return st;
}
