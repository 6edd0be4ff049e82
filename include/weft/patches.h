/*
 * weft/patches.h - the patches of a spatial model: their CSV file (a row
 * per patch: population, coordinates, initial infections and the model's
 * own columns; weft_patch_table_read) and the network between them, as
 * LASER's migration models make it (laser_core.migration: gravity,
 * radiation, competing destinations and stouffer, on haversine distances
 * in km, each row scaled down to max_rowsum as row_normalizer does):
 * network[i][j] is the share of patch i that mixes with patch j, 0 on the
 * diagonal.
 *
 * A model whose patches mix takes WEFT_MIGRATION_KEYS into its key table;
 * weft_migration_read() reads and checks them, weft_migration_network()
 * fills the P x P network from the patches' populations and coordinates.
 * The patch model mixes its forces of infection through it, the SEIR
 * model its agents' community contacts. Header-only, static inline: the
 * same doubles on every host (link with -lm).
 */
#ifndef WEFT_PATCHES_H
#define WEFT_PATCHES_H

#include <ctype.h>
#include <stdio.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <weft/model.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The models, in the order of the migration key's choices. */
typedef enum weft_migration_model {
	WEFT_MIGRATION_GRAVITY = 0,
	WEFT_MIGRATION_RADIATION = 1,
	WEFT_MIGRATION_COMPETING = 2,
	WEFT_MIGRATION_STOUFFER = 3
} weft_migration_model;

static const char *const weft_migration_names[] = { "gravity", "radiation",
						    "competing_destinations",
						    "stouffer" };

/* One weft_key_desc initializer. */
#define WEFT_MIGRATION__KEY(name, type, def, min, max, choices, help) \
	{                                                             \
		name, type, def, min, max, choices, help              \
	}

#define WEFT_MIGRATION__K                                               \
	WEFT_MIGRATION__KEY(                                            \
		"gravity_k", WEFT_KEY_REAL, "500", 0, 1e300, NULL,      \
		"the network's scale k, of every migration model: "     \
		"gravity's network[i][j] = k pop_i^a pop_j^b / "        \
		"distance_ij^c, distances in km "                       \
		"(laser_core.migration.gravity; laser.generic.Model's " \
		"default); 0: no mixing")
#define WEFT_MIGRATION__A                                                     \
	WEFT_MIGRATION__KEY("gravity_a", WEFT_KEY_REAL, "1", -100, 100, NULL, \
			    "the network's exponent a of the source's "       \
			    "population (gravity, competing_destinations, "   \
			    "stouffer; LASER's default)")
#define WEFT_MIGRATION__B                                                     \
	WEFT_MIGRATION__KEY("gravity_b", WEFT_KEY_REAL, "1", -100, 100, NULL, \
			    "the network's exponent b of the destination's "  \
			    "population (gravity, competing_destinations, "   \
			    "stouffer; LASER's default)")
#define WEFT_MIGRATION__C                                                     \
	WEFT_MIGRATION__KEY("gravity_c", WEFT_KEY_REAL, "2", -100, 100, NULL, \
			    "the network's exponent c of the distance "       \
			    "(gravity, competing_destinations; LASER's "      \
			    "default)")
#define WEFT_MIGRATION__MAXROW                                            \
	WEFT_MIGRATION__KEY("max_rowsum", WEFT_KEY_REAL, "0.09375", 0, 1, \
			    NULL,                                         \
			    "rows of the network that sum to more are "   \
			    "scaled down to this "                        \
			    "(laser_core.migration.row_normalizer; "      \
			    "laser.generic.Model uses 1/16 + 1/32)")
#define WEFT_MIGRATION__MODEL                                                \
	WEFT_MIGRATION__KEY(                                                 \
		"migration", WEFT_KEY_ENUM, "gravity", 0, 0,                 \
		"gravity|radiation|competing_destinations|stouffer",         \
		"the network's model, as laser_core.migration names it: "    \
		"gravity, radiation (k, migration_include_home), "           \
		"competing_destinations (k, a, b, c, migration_delta) or "   \
		"stouffer (k, a, b, migration_include_home), k, a, b and c " \
		"being gravity_k, ..., gravity_c; default gravity, "         \
		"laser.generic.Model's")
#define WEFT_MIGRATION__DELTA                                                 \
	WEFT_MIGRATION__KEY("migration_delta", WEFT_KEY_REAL, "0", -100, 100, \
			    NULL,                                             \
			    "competing_destinations' exponent delta of the "  \
			    "competition from other destinations (LASER's "   \
			    "delta; no default there; 0: the gravity "        \
			    "network)")
#define WEFT_MIGRATION__HOME                                                  \
	WEFT_MIGRATION__KEY("migration_include_home", WEFT_KEY_BOOL, "false", \
			    0, 0, NULL,                                       \
			    "radiation and stouffer: whether the source's "   \
			    "own population is in the sum of the "            \
			    "populations as close or closer (LASER's "        \
			    "include_home; no default there)")
#define WEFT_MIGRATION__F32                                                  \
	WEFT_MIGRATION__KEY("network_float32", WEFT_KEY_BOOL, "false", 0, 0, \
			    NULL,                                            \
			    "round the network to float32 as LASER's "       \
			    "row_normalizer returns it (its row sums "       \
			    "and scaling in float32 too), so that the "      \
			    "model mixes through LASER's very network; "     \
			    "default false: double precision, within "       \
			    "3e-7 of it")

/* The migration keys, weft_key_desc initializers for a model's key
 * table (in its alphabetical place: gravity_k .. network_float32). */
#define WEFT_MIGRATION_KEYS                                      \
	WEFT_MIGRATION__K, WEFT_MIGRATION__A, WEFT_MIGRATION__B, \
		WEFT_MIGRATION__C, WEFT_MIGRATION__MAXROW,       \
		WEFT_MIGRATION__MODEL, WEFT_MIGRATION__DELTA,    \
		WEFT_MIGRATION__HOME, WEFT_MIGRATION__F32

/* LASER's seasonal multiplier of transmission on day t (Transmission's
 * seasonality, a cosine): 1 + a cos(2 pi (t - phase) / 365). */
static inline double weft_patches_season(double a, double phase, double t)
{
	return 1 + a * cos(2 * 3.14159265358979323846 * (t - phase) / 365);
}

/* A network's model and parameters (weft_migration_read fills it). */
typedef struct weft_migration_desc {
	weft_migration_model model;
	double k, a, b, c, delta; /* gravity_k, gravity_a, _b, _c, delta */
	int include_home;	  /* migration_include_home */
	double max_rowsum;
	int float32; /* network_float32 */
} weft_migration_desc;

/* Whether the configuration sets key (an INI file or --set), rather
 * than leaving it to its default. */
static inline int weft_patches_key_set(const weft_model_ctx *mc,
				       const char *key)
{
	return strcmp(weft_model_where(mc, key), "default") != 0;
}

/* The keys of WEFT_MIGRATION_KEYS into *d; a key that the chosen model
 * does not use, or a negative exponent where LASER refuses one, fails
 * with a message that names the key, its place and `section`. */
static inline weft_status weft_migration_read(weft_model_ctx *mc,
					      const char *section,
					      weft_migration_desc *d)
{
	static const char *const abc[] = { "gravity_a", "gravity_b",
					   "gravity_c" };
	const char *m = weft_model_string(mc, "migration");
	const char *where = weft_model_where(mc, "migration");
	int k, uses;

	/* One of the key's choices, which the configuration checked. */
	for (k = 0; k < 3 && strcmp(m, weft_migration_names[k]); k++)
		;
	d->model = (weft_migration_model)k;
	if (k != WEFT_MIGRATION_COMPETING &&
	    weft_patches_key_set(mc, "migration_delta"))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[%s] migration_delta (%s) is a parameter of "
			"competing_destinations, not of migration = %s (%s)",
			section, weft_model_where(mc, "migration_delta"), m,
			where);
	if ((k == WEFT_MIGRATION_GRAVITY || k == WEFT_MIGRATION_COMPETING) &&
	    weft_patches_key_set(mc, "migration_include_home"))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[%s] migration_include_home (%s) is a parameter of "
			"radiation and stouffer, not of migration = %s (%s)",
			section, weft_model_where(mc, "migration_include_home"),
			m, where);
	/* gravity_a, _b, _c that the model uses: none, a and b, or all. */
	uses = k == WEFT_MIGRATION_RADIATION  ? 0
	       : k == WEFT_MIGRATION_STOUFFER ? 2
					      : 3;
	for (int q = 0; k != WEFT_MIGRATION_GRAVITY && q < uses; q++)
		if (weft_model_real(mc, abc[q]) < 0)
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[%s] %s = %g (%s) is negative; migration = %s "
				"(%s) needs it 0 or more, as "
				"laser_core.migration does",
				section, abc[q], weft_model_real(mc, abc[q]),
				weft_model_where(mc, abc[q]), m, where);
	d->k = weft_model_real(mc, "gravity_k");
	d->a = weft_model_real(mc, "gravity_a");
	d->b = weft_model_real(mc, "gravity_b");
	d->c = weft_model_real(mc, "gravity_c");
	d->delta = weft_model_real(mc, "migration_delta");
	d->include_home = weft_model_bool(mc, "migration_include_home");
	d->max_rowsum = weft_model_real(mc, "max_rowsum");
	d->float32 = weft_model_bool(mc, "network_float32");
	return WEFT_OK;
}

/* The patches: P of them, their populations and coordinates (degrees). */
typedef struct weft_migration_patches {
	uint32_t n;
	const uint32_t *pops;
	const double *lat, *lon;
} weft_migration_patches;

/* LASER's haversine distance in km between patches i and j
 * (laser_core.migration.distance, Earth radius 6371 km). The models
 * beyond gravity follow its order of operations (degrees to radians
 * first), so that the patches at equal distances there (a grid's
 * neighbours) are at equal distances here: the ranks by distance decide
 * radiation and stouffer. gravity keeps the order weft has always used
 * (the same within double rounding) so that its networks stay bit for bit
 * as they were. */
static inline double weft_migration_km(const weft_migration_desc *d,
				       const weft_migration_patches *pp,
				       uint32_t i, uint32_t j)
{
	double rad = 3.14159265358979323846 / 180, h;
	const double *lat = pp->lat, *lon = pp->lon;

	if (d->model == WEFT_MIGRATION_GRAVITY) {
		double dlat = (lat[j] - lat[i]) * rad;
		double dlon = (lon[j] - lon[i]) * rad;

		h = sin(dlat / 2) * sin(dlat / 2) +
		    cos(lat[i] * rad) * cos(lat[j] * rad) * sin(dlon / 2) *
			    sin(dlon / 2);
	} else {
		double li = lat[i] * rad, lj = lat[j] * rad;
		double sl = sin((lj - li) / 2);
		double so = sin((lon[j] * rad - lon[i] * rad) / 2);

		h = sl * sl + cos(li) * cos(lj) * (so * so);
	}
	return 2 * asin(sqrt(h)) * 6371.0;
}

/* x + y, in float32 when f32 (x and y floats already: the double sum
 * rounded to float is the float sum). */
static inline double weft_migration__add(double x, double y, int f32)
{
	return f32 ? (double)(float)(x + y) : x + y;
}

/* numpy's pairwise sum of n doubles, or with f32 of n floats in float
 * arithmetic (np.sum along a contiguous row of float64 or float32): 8
 * accumulators up to 128 items, halves above, a plain loop below 8. */
static inline double weft_migration__sum(const double *a, size_t n, int f32)
{
	double r[8], res = 0;
	size_t i, n2;

	if (n < 8) {
		for (i = 0; i < n; i++)
			res = weft_migration__add(res, a[i], f32);
		return res;
	}
	if (n > 128) {
		n2 = n / 2;
		n2 -= n2 % 8;
		return weft_migration__add(
			weft_migration__sum(a, n2, f32),
			weft_migration__sum(a + n2, n - n2, f32), f32);
	}
	memcpy(r, a, sizeof r);
	for (i = 8; i < n - n % 8; i += 8)
		for (int k = 0; k < 8; k++)
			r[k] = weft_migration__add(r[k], a[i + k], f32);
	for (int k = 0; k < 8; k += 2)
		r[k] = weft_migration__add(r[k], r[k + 1], f32);
	res = weft_migration__add(weft_migration__add(r[0], r[2], f32),
				  weft_migration__add(r[4], r[6], f32), f32);
	for (; i < n; i++)
		res = weft_migration__add(res, a[i], f32);
	return res;
}

/* A row scaled down to maxrow when its sum exceeds it (row_normalizer).
 * f32 (network_float32): as LASER's row_normalizer computes it, the row
 * rounded to float32 (network.astype(np.float32)), its sum numpy's in
 * float32, each entry entry x max_rowsum / sum in float32. */
static inline void weft_migration__normalize(double *row, uint32_t P,
					     double maxrow, int f32)
{
	double sum = 0;
	float m = (float)maxrow, s;

	if (!f32) {
		for (uint32_t j = 0; j < P; j++)
			sum += row[j];
		for (uint32_t j = 0; sum > maxrow && j < P; j++)
			row[j] *= maxrow / sum;
		return;
	}
	for (uint32_t j = 0; j < P; j++)
		row[j] = (float)row[j];
	s = (float)weft_migration__sum(row, P, 1);
	for (uint32_t j = 0; s > m && j < P; j++)
		row[j] = (float)row[j] * m / s;
}

/* gravity's term k pop_i^a pop_j^b / d_ij^c, 0 on the diagonal
 * (laser_core.migration.gravity). */
static inline double weft_migration__gravity(const weft_migration_desc *d,
					     const weft_migration_patches *pp,
					     uint32_t i, uint32_t j)
{
	double dist = i == j ? 1 : weft_migration_km(d, pp, i, j);

	return i == j ? 0
		      : d->k * pow(pp->pops[i], d->a) * pow(pp->pops[j], d->b) *
				pow(dist, -d->c);
}

/* competing_destinations: gravity times (sum over k not in {i, j} of
 * pop_k^b / d_jk^c)^delta, the sum as LASER forms it (numpy's row sum of
 * the competition matrix less the k = i term). row: P doubles; sums: P
 * doubles. */
static inline void weft_migration__competing(const weft_migration_desc *d,
					     const weft_migration_patches *pp,
					     double *net, double *row,
					     double *sums)
{
	uint32_t P = pp->n;

	for (uint32_t i = 0; i < P; i++)
		for (uint32_t j = 0; j < P; j++)
			net[(size_t)i * P + j] =
				weft_migration__gravity(d, pp, i, j);
	for (uint32_t j = 0; j < P; j++) {
		for (uint32_t k = 0; k < P; k++)
			row[k] = j == k ? 0
					: pow(pp->pops[k], d->b) *
						  pow(weft_migration_km(d, pp,
									j, k),
						      -d->c);
		sums[j] = weft_migration__sum(row, P, 0);
	}
	for (uint32_t i = 0; i < P; i++)
		for (uint32_t j = 0; j < P; j++) {
			double cm = pow(pp->pops[i], d->b) *
				    pow(weft_migration_km(d, pp, j, i), -d->c);

			if (i != j)
				net[(size_t)i * P + j] *=
					pow(sums[j] - cm, d->delta);
		}
}

/* A destination of a row sorted by distance. */
typedef struct weft_migration__near {
	double d;
	uint32_t j;
} weft_migration__near;

/* By distance, then by patch: numpy's stable argsort. */
static inline int weft_migration__near_cmp(const void *x, const void *y)
{
	const weft_migration__near *a = (const weft_migration__near *)x;
	const weft_migration__near *b = (const weft_migration__near *)y;

	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return a->j < b->j ? -1 : a->j > b->j;
}

/* radiation and stouffer, row i: the destinations by distance from i,
 * the population as close or closer (every patch at the same distance
 * counted, laser_core.migration.sum_populations_as_close_or_closer), less
 * the first one's (i itself) without include_home; then LASER's formula
 * for each. near, cum: P each. */
static inline void weft_migration__ranked(const weft_migration_desc *d,
					  const weft_migration_patches *pp,
					  uint32_t i, double *out,
					  weft_migration__near *near,
					  double *cum)
{
	uint32_t P = pp->n, q, e;
	double pi = pp->pops[i], sp;

	for (q = 0; q < P; q++) {
		near[q].d = weft_migration_km(d, pp, i, q);
		near[q].j = q;
	}
	qsort(near, P, sizeof *near, weft_migration__near_cmp);
	for (q = 0; q < P; q++)
		cum[q] = (q ? cum[q - 1] : 0) + pp->pops[near[q].j];
	for (q = 0; q < P; q = e + 1) {
		for (e = q; e + 1 < P && near[e + 1].d == near[q].d; e++)
			;
		for (uint32_t t = q; t < e; t++)
			cum[t] = cum[e];
	}
	for (q = 0; q < P; q++) {
		sp = pp->pops[near[q].j];
		if (!d->include_home)
			cum[q] -= pp->pops[near[0].j];
		if (d->model == WEFT_MIGRATION_RADIATION)
			out[near[q].j] = d->k * pi * sp / (pi + cum[q]) /
					 (pi + sp + cum[q]);
		else
			out[near[q].j] =
				q == 0 ? 0
				       : d->k * pow(pi, d->a) *
						 pow(sp / cum[q], d->b);
	}
	out[i] = 0;
}

/* The network of d's model over the patches into net (P x P, row i the
 * shares of patch i), each row scaled down to max_rowsum. 0, or -1 when
 * its scratch (a few P doubles) cannot be allocated. Entries need not be
 * finite (a patch of no agents, two patches at one place): the caller
 * checks them. */
static inline int weft_migration_network(const weft_migration_desc *d,
					 const weft_migration_patches *pp,
					 double *net)
{
	uint32_t P = pp->n;
	weft_migration__near *near = NULL;
	double *cum = NULL;

	if (d->model != WEFT_MIGRATION_GRAVITY &&
	    (!(cum = (double *)malloc(2 * (size_t)P * sizeof *cum + 1)) ||
	     !(near = (weft_migration__near *)malloc(P * sizeof *near + 1)))) {
		free(cum);
		return -1;
	}
	if (d->model == WEFT_MIGRATION_COMPETING)
		weft_migration__competing(d, pp, net, cum, cum + P);
	for (uint32_t i = 0; i < P; i++) {
		double *row = net + (size_t)i * P;

		if (d->model == WEFT_MIGRATION_GRAVITY)
			for (uint32_t j = 0; j < P; j++)
				row[j] = weft_migration__gravity(d, pp, i, j);
		else if (d->model != WEFT_MIGRATION_COMPETING)
			weft_migration__ranked(d, pp, i, row, near, cum);
		weft_migration__normalize(row, P, d->max_rowsum, d->float32);
	}
	free(cum);
	free(near);
	return 0;
}

/* ---- a network from a file -------------------------------------------- */

/* Whether the field at p begins as a number: a digit, a sign or a point
 * (a header's first field does not; strtod would take "inf" or "nan"). */
static inline int weft_migration__numeric(const char *p)
{
	p += strspn(p, " \t");
	return *p && strchr("0123456789+-.", *p) != NULL;
}

/* Row r of the matrix from line into row (P numbers): NULL, or what is
 * wrong with it. A row of P + 1 fields begins with its source patch's
 * number, r (the patch model's network.csv). */
static inline const char *weft_migration__row(const char *line, uint32_t P,
					      uint32_t r, double *row)
{
	const char *p = line, *last = line + strlen(line);
	size_t fields = 1;
	char *end;

	while (last > line && strchr(" \t\r\n", last[-1]))
		last--;
	if (last > line && last[-1] == ',')
		return "a comma at the end of the line (an empty entry)";
	for (const char *q = line; *q; q++)
		fields += *q == ',';
	if (fields == (size_t)P + 1) {
		unsigned long src = strtoul(p, &end, 10);

		if (end == p || src != r ||
		    *(p = end + strspn(end, " \t")) != ',')
			return "a row of one field more than the patches does "
			       "not begin with its source patch's number";
		p++;
	} else if (fields != P)
		return "not as many entries as patches (or one more: the "
		       "source patch's number first)";
	for (uint32_t j = 0; j < P; j++) {
		if (!weft_migration__numeric(p))
			return p[strspn(p, " \t")] == ',' ||
					       p[strspn(p, " \t\r\n")] == 0
				       ? "an empty entry"
				       : "an entry is not a number";
		/* An entry that underflows (1e-320) is taken as strtod
		 * gives it; one that overflows is not finite. */
		row[j] = strtod(p, &end);
		if (end == p || !isfinite(row[j]))
			return "an entry is not a number";
		if (row[j] < 0)
			return "a negative entry";
		if (j == r && row[j] != 0)
			return "the entry from a patch to itself is not 0 "
			       "(what stays is 1 - the row's sum)";
		p = end + strspn(end, " \t");
		if (j + 1 < P && *p++ != ',')
			return "an entry is not a number";
	}
	if (p[strspn(p, " \t\r\n")] != 0)
		return "text after the last entry";
	return NULL;
}

/* The next line of f, of any length, into *line (grown as needed, *cap
 * its size; the newline kept, a NUL at the end): its length, or -1 at
 * the end of the file. *bad: 1 when the line cannot grow, 2 for a NUL
 * byte in it, 3 for a read error (-1 then too). */
static inline long weft_migration__line(FILE *f, char **line, size_t *cap,
					int *bad)
{
	size_t len = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (*cap - len < 2) {
			size_t want = *cap ? 2 * *cap : 4096;
			char *g = (char *)realloc(*line, want);

			if (!g) {
				*bad = 1;
				return -1;
			}
			*line = g;
			*cap = want;
		}
		if (c == 0) {
			*bad = 2;
			return -1;
		}
		(*line)[len++] = (char)c;
		(*line)[len] = 0;
		if (c == '\n')
			return (long)len;
	}
	if (ferror(f)) {
		*bad = 3;
		return -1;
	}
	return len ? (long)len : -1;
}

/* A network given as a matrix (a modeller's own mobility data, another
 * tool's matrix) from f into net, P rows of P: a row per source patch, a
 * column per destination, entries 0 or more, 0 from a patch to itself
 * (a row may begin with its patch's number); a first line that does not
 * begin with a number is a header, blank lines are skipped. Errors name
 * "[SECTION] KEY (WHERE): PATH, line N". f stays open. */
static inline weft_status weft_migration_network_read(weft_model_ctx *mc,
						      const char *section,
						      const char *key, FILE *f,
						      const char *path,
						      uint32_t P, double *net)
{
	const char *where = weft_model_where(mc, key);
	const char *what = NULL;
	char *line = NULL, msg[96];
	size_t cap = 0;
	uint32_t ln = 0, rows = 0;
	int seen = 0, bad = 0;

	while (!what && weft_migration__line(f, &line, &cap, &bad) > 0) {
		/* A UTF-8 byte order mark before the first line. */
		char *at = ln++ || strncmp(line, "\xEF\xBB\xBF", 3) ? line
								    : line + 3;

		if (at[strspn(at, " \t\r\n")] == 0)
			continue;
		if (rows == P) {
			what = "more rows than patches";
			break;
		}
		/* The first line that is not blank, if it does not begin
		 * with a number, is a header. */
		if (!seen++ && !weft_migration__numeric(at))
			continue;
		what = weft_migration__row(at, P, rows, net + (size_t)rows * P);
		rows += what == NULL;
	}
	free(line);
	if (bad == 1)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "[%s] %s (%s): %s, line %u: cannot "
				       "allocate the line",
				       section, key, where, path, ln + 1);
	if (bad == 2) {
		what = "a NUL byte (not a text file?)";
		ln++;
	}
	if (bad == 3)
		return weft_model_fail(mc, WEFT_E_IO,
				       "[%s] %s (%s): %s: cannot be read "
				       "(a directory?)",
				       section, key, where, path);
	if (what)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[%s] %s (%s): %s, line %u: %s", section,
				       key, where, path, ln, what);
	if (rows < P) {
		snprintf(msg, sizeof msg, "%u row%s for %u patches", rows,
			 rows == 1 ? "" : "s", P);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[%s] %s (%s): %s: %s", section, key,
				       where, path, msg);
	}
	return WEFT_OK;
}

/* The first of the migration keys that the configuration sets (an INI
 * file or --set), or NULL. */
static inline const char *weft_migration_key_set(const weft_model_ctx *mc)
{
	static const char *const keys[] = {
		"migration", "migration_delta", "migration_include_home",
		"gravity_k", "gravity_a",	"gravity_b",
		"gravity_c", "max_rowsum",	"network_float32"
	};

	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
		if (weft_patches_key_set(mc, keys[k]))
			return keys[k];
	return NULL;
}

/* With a network from a file (key), the migration keys have no use: a
 * set one fails, naming it and key. */
static inline weft_status weft_migration_replaced(weft_model_ctx *mc,
						  const char *section,
						  const char *key)
{
	const char *k = weft_migration_key_set(mc);

	if (!k)
		return WEFT_OK;
	return weft_model_fail(mc, WEFT_E_CONFIG,
			       "[%s] %s (%s) is a parameter of the migration "
			       "model, which %s (%s) replaces",
			       section, k, weft_model_where(mc, k), key,
			       weft_model_where(mc, key));
}

/* ---- the patch file --------------------------------------------------- */

/* The columns every patch file may have (population is needed; latitude
 * and longitude come together), and up to WEFT_PATCH_EXTRA_MAX of the
 * model's own, each a number in [min, max]. */
enum {
	WEFT_PATCH_COL_ID,
	WEFT_PATCH_COL_POP,
	WEFT_PATCH_COL_LAT,
	WEFT_PATCH_COL_LON,
	WEFT_PATCH_COL_INF,
	WEFT_PATCH_COLS
};
#define WEFT_PATCH_EXTRA_MAX 4
#define WEFT_PATCH_LINE_MAX  4096 /* bytes, the newline included */

typedef struct weft_patch_column {
	const char *name;
	double min, max;
} weft_patch_column;

/* A patch file read: n patches, each array n long (lat and lon NaN,
 * init 0, an extra column NaN where the file has no such column); has:
 * bit WEFT_PATCH_COL_* for each standard column found, bit
 * WEFT_PATCH_COLS + k for extra column k. */
typedef struct weft_patch_table {
	uint32_t n;
	uint32_t *pops, *init;
	uint32_t *lines; /* the file's line of each patch */
	double *lat, *lon;
	double *extra[WEFT_PATCH_EXTRA_MAX];
	unsigned has;
} weft_patch_table;

static inline void weft_patch_table_free(weft_patch_table *t)
{
	free(t->pops);
	free(t->init);
	free(t->lines);
	free(t->lat);
	free(t->lon);
	for (int k = 0; k < WEFT_PATCH_EXTRA_MAX; k++)
		free(t->extra[k]);
	memset(t, 0, sizeof *t);
}

/* A line of f into line (size bytes; its newline kept when it fits): 1;
 * 0 at the end of the file; -1 for a line longer than size - 1 bytes,
 * which fgets() would split. */
static inline int weft_patch_getline(FILE *f, char *line, size_t size)
{
	size_t len;
	int c;

	if (!fgets(line, (int)size, f))
		return 0;
	len = strlen(line);
	if (len + 1 < size || line[len - 1] == '\n')
		return 1;
	if ((c = getc(f)) == EOF || c == '\n')
		return 1;
	ungetc(c, f);
	return -1;
}

/* The next comma-separated field from *p, its spaces and line end
 * trimmed; an empty field stays one (strtok would merge ",,"). NULL after
 * the last. */
static inline char *weft_patch__field(char **p)
{
	char *tok = *p, *comma;
	size_t e;

	if (!tok)
		return NULL;
	comma = strchr(tok, ',');
	*p = comma ? comma + 1 : NULL;
	if (comma)
		*comma = 0;
	while (isspace((unsigned char)*tok))
		tok++;
	for (e = strlen(tok); e && isspace((unsigned char)tok[e - 1]);)
		tok[--e] = 0;
	return tok;
}

/* Column k's name (and its other spelling): the standard ones, then the
 * model's. */
static inline const char *weft_patch__name(const weft_patch_column *extra,
					   int k, int other)
{
	static const char *const names[WEFT_PATCH_COLS][2] = {
		{ "id", "id" },
		{ "population", "population" },
		{ "latitude", "lat" },
		{ "longitude", "lon" },
		{ "initial_infected", "initial_infected" }
	};

	return k < WEFT_PATCH_COLS ? names[k][other]
				   : extra[k - WEFT_PATCH_COLS].name;
}

/* The header's column of each field (-1 for none), ncol fields. */
static inline void weft_patch__header(char *line,
				      const weft_patch_column *extra, int ncol,
				      int *col)
{
	char *p = line, *tok;

	for (int k = 0; k < ncol; k++)
		col[k] = -1;
	for (int c = 0; (tok = weft_patch__field(&p)); c++)
		for (int k = 0; k < ncol; k++)
			if (!strcmp(tok, weft_patch__name(extra, k, 0)) ||
			    !strcmp(tok, weft_patch__name(extra, k, 1)))
				col[k] = c;
}

/* One row's fields into v (NAN where the header has no such column): 1;
 * 0 with *bad the field that the row lacks, leaves empty or holds no
 * finite number in. */
static inline int weft_patch__row(char *line, const int *col, int ncol,
				  double *v, int *bad)
{
	char *p = line, *tok, *end;

	for (int k = 0; k < ncol; k++)
		v[k] = NAN;
	for (int c = 0; (tok = weft_patch__field(&p)); c++) {
		for (int k = 0; k < ncol; k++) {
			if (col[k] != c)
				continue;
			v[k] = strtod(tok, &end);
			if (end == tok || *end || !isfinite(v[k])) {
				*bad = k;
				return 0;
			}
		}
	}
	for (int k = 0; k < ncol; k++)
		if (col[k] >= 0 && isnan(v[k])) {
			*bad = k;
			return 0;
		}
	return 1;
}

/* *a grown to m entries of `size` bytes: 1, or 0 when it cannot be. */
static inline int weft_patch__resize(void **a, size_t m, size_t size)
{
	void *q = realloc(*a, m * size);

	if (q)
		*a = q;
	return q != NULL;
}

/* Room for patch t->n in every array of t. */
static inline int weft_patch__grow(weft_patch_table *t, uint32_t n_extra)
{
	size_t m = (size_t)t->n + 1;
	int ok = weft_patch__resize((void **)&t->pops, m, 4) &&
		 weft_patch__resize((void **)&t->init, m, 4) &&
		 weft_patch__resize((void **)&t->lines, m, 4) &&
		 weft_patch__resize((void **)&t->lat, m, sizeof(double)) &&
		 weft_patch__resize((void **)&t->lon, m, sizeof(double));

	for (uint32_t k = 0; ok && k < n_extra; k++)
		ok = weft_patch__resize((void **)&t->extra[k], m,
					sizeof(double));
	return ok;
}

/* What is wrong with a row's values v (NULL: nothing), patch t->n. */
static inline const char *weft_patch__check(const weft_patch_table *t,
					    const int *col, const double *v,
					    const weft_patch_column *extra,
					    uint32_t n_extra, char *what,
					    size_t size)
{
	if (!(v[WEFT_PATCH_COL_POP] >= 0 && v[WEFT_PATCH_COL_POP] <= 4e9 &&
	      v[WEFT_PATCH_COL_POP] == floor(v[WEFT_PATCH_COL_POP])))
		return "population is not a whole number in [0, 4000000000]";
	if (col[WEFT_PATCH_COL_ID] >= 0 && v[WEFT_PATCH_COL_ID] != t->n)
		return "ids must be 0, 1, 2, ... in order";
	if (col[WEFT_PATCH_COL_INF] >= 0 &&
	    !(v[WEFT_PATCH_COL_INF] >= 0 &&
	      v[WEFT_PATCH_COL_INF] <= v[WEFT_PATCH_COL_POP] &&
	      v[WEFT_PATCH_COL_INF] == floor(v[WEFT_PATCH_COL_INF])))
		return "initial_infected is not a whole number in [0, "
		       "population]";
	for (uint32_t k = 0; k < n_extra; k++) {
		double x = v[WEFT_PATCH_COLS + k];

		if (col[WEFT_PATCH_COLS + k] >= 0 &&
		    !(x >= extra[k].min && x <= extra[k].max)) {
			snprintf(what, size, "%s is not in [%g, %g]",
				 extra[k].name, extra[k].min, extra[k].max);
			return what;
		}
	}
	return NULL;
}

/* Patch file f (read from its start; `path` for messages) into *t: a
 * header naming the columns, then a row per patch in order (blank lines
 * skipped), lines of at most WEFT_PATCH_LINE_MAX - 1 bytes, at most
 * max_patches rows. A bad file fails with "[SECTION] KEY (WHERE): PATH,
 * line N: what"; t is then freed. f stays open. */
static inline weft_status
weft_patch_table_read(weft_model_ctx *mc, const char *section, const char *key,
		      FILE *f, const char *path, const weft_patch_column *extra,
		      uint32_t n_extra, uint32_t max_patches,
		      weft_patch_table *t)
{
	char line[WEFT_PATCH_LINE_MAX], buf[128];
	const char *what = NULL;
	int col[WEFT_PATCH_COLS + WEFT_PATCH_EXTRA_MAX], bad, r;
	int ncol = WEFT_PATCH_COLS + (int)n_extra;
	double v[WEFT_PATCH_COLS + WEFT_PATCH_EXTRA_MAX];
	uint32_t ln = 1;

	memset(t, 0, sizeof *t);
	if ((r = weft_patch_getline(f, line, sizeof line)) <= 0) {
		what = r ? "a line longer than 4095 bytes" : "no header";
		goto fail;
	}
	weft_patch__header(line, extra, ncol, col);
	if (col[WEFT_PATCH_COL_POP] < 0) {
		what = "the header has no column population";
		goto fail;
	}
	if ((col[WEFT_PATCH_COL_LAT] < 0) != (col[WEFT_PATCH_COL_LON] < 0)) {
		what = "the header has latitude without longitude or "
		       "longitude without latitude";
		goto fail;
	}
	for (int k = 0; k < ncol; k++)
		t->has |= col[k] >= 0 ? 1u << k : 0u;
	while (!what && (r = weft_patch_getline(f, line, sizeof line)) != 0) {
		ln++;
		if (r < 0) {
			what = "a line longer than 4095 bytes";
			break;
		}
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (!weft_patch__row(line, col, ncol, v, &bad)) {
			snprintf(buf, sizeof buf,
				 "the column %s is empty or not a number",
				 weft_patch__name(extra, bad, 0));
			what = buf;
		} else if (!(what = weft_patch__check(t, col, v, extra, n_extra,
						      buf, sizeof buf)) &&
			   t->n >= max_patches) {
			snprintf(buf, sizeof buf, "more than %u patches",
				 max_patches);
			what = buf;
		}
		if (what)
			break;
		if (!weft_patch__grow(t, n_extra)) {
			weft_patch_table_free(t);
			return weft_model_fail(mc, WEFT_E_NOMEM,
					       "[%s] %s: cannot allocate the "
					       "patches",
					       section, key);
		}
		t->lines[t->n] = ln;
		t->pops[t->n] = (uint32_t)v[WEFT_PATCH_COL_POP];
		t->init[t->n] = col[WEFT_PATCH_COL_INF] >= 0
					? (uint32_t)v[WEFT_PATCH_COL_INF]
					: 0;
		t->lat[t->n] = v[WEFT_PATCH_COL_LAT];
		t->lon[t->n] = v[WEFT_PATCH_COL_LON];
		for (uint32_t k = 0; k < n_extra; k++)
			t->extra[k][t->n] = v[WEFT_PATCH_COLS + k];
		t->n++;
	}
	if (!what)
		return WEFT_OK;
fail:
	weft_patch_table_free(t);
	return weft_model_fail(mc, WEFT_E_CONFIG,
			       "[%s] %s (%s): %s, line %u: %s", section, key,
			       weft_model_where(mc, key), path, ln, what);
}

#ifdef __cplusplus
}
#endif

#endif /* WEFT_PATCHES_H */
