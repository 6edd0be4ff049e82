/*
 * patches.c - the patch model's host code: the plugin weft-model-patches.so
 * (models/patches/patches.md).
 *
 * LASER's SEIR (laser-generic 1.1, laser.generic.SEIR) on weft: agents in
 * patches, no contact network; each day every susceptible agent in patch
 * p is exposed with probability 1 - exp(-force_p), the force being
 * beta I_p / N_p mixed between patches through LASER's network
 * (laser_core.migration's gravity, radiation, competing_destinations or
 * stouffer, row-normalised as laser.generic.Model does). Exposed and infectious
 * durations are drawn from the distributions LASER names (gamma, normal, ...),
 * rounded and at least a minimum, as LASER rounds them: here from a table of
 * the rounded distribution's cumulative probabilities, computed once on the
 * host, so that each draw is a few integer comparisons. Births and deaths at
 * crude rates are LASER's BirthsByCBR and MortalityByCDR; seasonality is the
 * seasonality of LASER's Transmission, importation its
 * Infect_Agents_In_Patch. The kernels are in patches.wk; this file reads
 * [patches] (or the patches from a CSV file), builds the agents at day 0,
 * the tables, the seasonality and the network, declares the day's four
 * launches (six with age_pyramid), and writes counts.csv (day,S,E,I,R),
 * patches.csv (day,patch,S,E,I,R) and with patch_series infectious.csv and
 * incidence.csv (day, a column per patch). Ages, mortality by age and
 * ages.csv are demography.c's. With diseases = 2, a second pt_state
 * (s->second, the keys ending in _2) holds a second disease on the same
 * agents: its own words, counts, rows and outputs (counts_2.csv, ...),
 * its four launches after the first's.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/math.h>
#include <weft/patches.h>
#include <weft/model.h>

#include "patches_kernels.h"
#include "patches_shared.h"
#include "demography.h"
#include "demography_shared.h"

/* 1.1: a run with importation and births checkpoints the newborns' links
 * too, so a checkpoint of 1.0 does not resume. 1.2: an agent's word holds
 * the date of its next transition, not the days left, so a checkpoint of
 * 1.1 does not resume. 1.3: the day's changes hold the campaigns' doses
 * (a word more per patch), so a checkpoint of 1.2 does not resume. 1.4:
 * they hold the day's deliveries too (births by age of mother), so a
 * checkpoint of 1.3 does not resume. */
#define PT_VERSION   "1.4"
#define PT_SNAP_ROWS 2u
#define PT_MAX_ROWS  (1u << 24)
#define PT_MAX_MIX   4096u /* patches with a network: P^2 work a day */

static const weft_key_desc pt_keys[] = {
	{ "populations", WEFT_KEY_STRING, "100000", 0, 0, NULL,
	  "agents in each patch, a comma-separated list (one number: one "
	  "patch); agents are numbered patch by patch" },
	{ "patch_file", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "a CSV file of the patches, one row each in order, with a header "
	  "naming its columns: population (needed), latitude and longitude "
	  "(or lat and lon), initial_infected, seasonality_phase and "
	  "seasonality_factor (each patch's cosine), id (if given, 0, 1, 2, "
	  "... in order); it replaces populations, latitudes and longitudes, "
	  "and initial_infected when it has that column. Lines of at most "
	  "4095 bytes; a relative path is taken from the INI file's "
	  "directory; models/patches/patches-geojson.py writes one from a "
	  "GeoJSON map" },
	{ "latitudes", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "each patch's latitude in degrees, a list as long as populations; "
	  "needed with more than one patch unless gravity_k = 0" },
	{ "longitudes", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "each patch's longitude in degrees, as latitudes" },
	{ "beta", WEFT_KEY_REAL, "0.198", 0, 1000, NULL,
	  "transmission rate: the force of infection of a patch is beta x "
	  "its infectious / its agents (LASER's params.beta)" },
	{ "exposed_duration", WEFT_KEY_STRING, "gamma(4.5, 1.0)", 0, 0, NULL,
	  "days exposed, drawn as LASER's distributions: gamma(shape, "
	  "scale), normal(loc, scale), lognormal(mean, sigma), "
	  "exponential(scale), uniform(low, high) or constant(value); "
	  "rounded to whole days, at least exposed_min" },
	{ "exposed_min", WEFT_KEY_INT, "1", 1, 16383, NULL,
	  "shortest exposed duration, days (LASER's expdurmin)" },
	{ "infectious_duration", WEFT_KEY_STRING, "normal(7, 2)", 0, 0, NULL,
	  "days infectious, as exposed_duration" },
	{ "infectious_min", WEFT_KEY_INT, "1", 1, 16383, NULL,
	  "shortest infectious duration, days (LASER's infdurmin)" },
	{ "initial_infected", WEFT_KEY_STRING, "10", 0, 0, NULL,
	  "infectious agents at day 0 in each patch: a list as long as "
	  "populations, or one number for every patch" },
	{ "initial_exposed", WEFT_KEY_STRING, "0", 0, 0, NULL,
	  "exposed agents at day 0 in each patch, after the infectious, "
	  "with exposed durations drawn (laser-measles' "
	  "InfectionSeedingProcess seeds exposed agents): a list as long as "
	  "the patches, or one number for every patch; 0: none" },
	{ "force_after_progression", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "the day's force of infection from the infectious after the "
	  "day's recoveries and onsets, as laser-measles' InfectionProcess "
	  "(DiseaseProcess, then TransmissionProcess); false: from the "
	  "counts at the start of the day, as LASER's" },
	{ "cbr", WEFT_KEY_REAL, "0", 0, 100, NULL,
	  "crude birth rate, births per 1000 agents per year: each day a "
	  "patch has Poisson((1 + cbr/1000)^(1/365) - 1) x its agents "
	  "births, susceptible (LASER's BirthsByCBR); 0: none" },
	{ "cdr", WEFT_KEY_REAL, "0", 0, 999, NULL,
	  "crude death rate, deaths per 1000 agents per year: each day every "
	  "living agent dies with chance 1 - exp(-(1 - (1 - "
	  "cdr/1000)^(1/365))) "
	  "(LASER's MortalityByCDR); 0: none" },
	{ "constant_population", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "with cbr, births replace deaths (laser-measles' "
	  "ConstantPopProcess): "
	  "each day every agent dies with cbr's daily rate (by cbr_mode) in "
	  "whatever state and a newborn takes its slot at once, susceptible, "
	  "in its patch; the agents stay as many, and no slot is added. Not "
	  "with cdr, death_rates or fertility_rates" },
	{ "capacity", WEFT_KEY_INT, "0", 0, 4294967280.0, NULL,
	  "agent slots on the device, the dead and the newborn included; 0: "
	  "the agents at day 0 grown at cbr (or at the most births of "
	  "fertility_rates of day 0's agents as they age, and a fifth more) "
	  "for the run's days, plus 5 % and 1000. A run whose births need "
	  "more stops with an error" },
	WEFT_MIGRATION_KEYS,
	{ "network_file", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "a CSV file of the network instead of a migration model's: a row "
	  "per source patch, a column per destination, P numbers a row, 0 "
	  "or more, 0 from a patch to itself (a first line that does not "
	  "begin with a number is a header; a relative path is taken from "
	  "the INI file's directory); used as given (the migration model's "
	  "keys, migration to network_float32, are refused with it); empty: "
	  "the migration model's" },
	{ "mixing_form", WEFT_KEY_ENUM, "force", 0, 0, "force|infectious",
	  "how the network mixes the patches: force, the patches' forces "
	  "flow along it (LASER's TransmissionSE: patch j's force is f_j + "
	  "sum_i f_i network[i][j] - f_j sum_l network[j][l], f_i = beta I_i "
	  "/ N_i); infectious, the infectious mix (laser-measles' mixing "
	  "matrix, the network with 1 - its row sums on the diagonal: beta "
	  "(I_j (1 - sum_l network[j][l]) + sum_i I_i network[i][j]) / N_j; "
	  "every row sum at most 1)" },
	{ "sia", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "supplementary immunization activities (laser-measles' "
	  "SIACalendarProcess): campaigns separated by commas, each 'day=D "
	  "coverage=F' and optionally patches=LIST (patch numbers N or "
	  "ranges A-B joined by +, or all; default all): before day D's "
	  "transmission each susceptible agent of those patches becomes "
	  "recovered (immune) with chance F (laser-measles immunizes "
	  "floor(F x the susceptible) of them); at most 64 campaigns, on "
	  "different days; against the first disease; empty: none" },
	{ "network_output", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "also write network.csv, the network the force of infection uses "
	  "(after max_rowsum), a row per source patch, a column per "
	  "destination, in full precision" },
	{ "seasonality", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "multipliers of beta, one per day, a comma-separated list: day t "
	  "uses item t modulo their number (LASER's Transmission "
	  "seasonality, ValuesMap.from_timeseries); empty: none" },
	{ "seasonality_file", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "the multipliers of seasonality from a file, one a line (the first "
	  "field of a CSV line; the first line that is not blank, if not a "
	  "number, is a "
	  "header); a relative path is taken from the INI file's directory" },
	{ "seasonality_factor", WEFT_KEY_REAL, "0", 0, 1, NULL,
	  "amplitude of a cosine forcing: beta on day t is beta x (1 + "
	  "factor cos(2 pi (t - seasonality_phase) / 365)) (LASER's "
	  "seasonality_factor); 0: none" },
	{ "seasonality_phase", WEFT_KEY_REAL, "0", -1e6, 1e6, NULL,
	  "the day of the cosine's peak (LASER's seasonality_phase)" },
	{ "seasonality_phases", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "each patch's peak day of the cosine, a list as long as the "
	  "patches (LASER's ValuesMap.from_array, per patch); empty: "
	  "seasonality_phase for every patch" },
	{ "seasonality_factors", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "each patch's amplitude of the cosine, 0 to 1, a list as long as "
	  "the patches; empty: seasonality_factor for every patch" },
	{ "importation_period", WEFT_KEY_INT, "0", 0, 4294967295.0, NULL,
	  "days between importations: on day t with t >= importation_start, "
	  "t < importation_end and (t - importation_start) a multiple of "
	  "this, importation_count susceptible agents of each patch of "
	  "importation_patchlist become infectious (LASER's "
	  "Infect_Agents_In_Patch); 0: none" },
	{ "importation_count", WEFT_KEY_INT, "1", 1, 4294967295.0, NULL,
	  "agents infected per patch per importation (fewer when the patch "
	  "has fewer susceptible)" },
	{ "importation_patchlist", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "the patches (0, 1, ...) that importations infect, a "
	  "comma-separated list; empty: every patch" },
	{ "importation_pressure", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "imported infections per 1000 agents per year (laser-measles' "
	  "ImportationPressureProcess crude_importation_rate): each day "
	  "from importation_start to before importation_end a patch has "
	  "Poisson(rate/1000/365 x its living) imports, each exposing one "
	  "of its susceptible agents with an exposed duration (fewer when "
	  "it has fewer susceptible); one number for every patch, or one "
	  "per patch; not with importation_period; empty: none" },
	{ "importation_start", WEFT_KEY_INT, "0", 0, 4294967295.0, NULL,
	  "first day of importation (importation_period's or "
	  "importation_pressure's)" },
	{ "importation_end", WEFT_KEY_INT, "0", 0, 4294967295.0, NULL,
	  "importation happens before this day; 0: the run's days" },
	{ "patch_series", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "also write infectious.csv and incidence.csv: a row per day of "
	  "[output] every, a column per patch, its infectious and its new "
	  "infections since the previous row (LASER's nodes.I and "
	  "nodes.newly_infected)" },
	{ "infection_probability", WEFT_KEY_ENUM, "exp", 0, 0, "exp|linear",
	  "a susceptible agent's daily chance of infection from its patch's "
	  "force f: exp, 1 - exp(-f) (LASER's); linear, f itself, at most 1 "
	  "(Starsim's ss.MixingPool: beta x the infectious' share of the "
	  "living)" },
	{ "diseases", WEFT_KEY_INT, "1", 1, 2, NULL,
	  "independent infections the agents carry: 2 adds a second SEIR "
	  "with its own beta_2, durations and initial agents (the keys "
	  "ending in _2), its own draws and its own outputs (counts_2.csv, "
	  "patches_2.csv, ...); births and deaths are the same agents' in "
	  "both (Starsim's two diseases in one sim). Not with importation" },
	{ "beta_2", WEFT_KEY_REAL, "0.198", 0, 1000, NULL,
	  "the second disease's beta (diseases = 2), as beta" },
	{ "exposed_duration_2", WEFT_KEY_STRING, "gamma(4.5, 1.0)", 0, 0, NULL,
	  "the second disease's exposed_duration" },
	{ "exposed_min_2", WEFT_KEY_INT, "1", 1, 16383, NULL,
	  "the second disease's exposed_min" },
	{ "infectious_duration_2", WEFT_KEY_STRING, "normal(7, 2)", 0, 0, NULL,
	  "the second disease's infectious_duration" },
	{ "infectious_min_2", WEFT_KEY_INT, "1", 1, 16383, NULL,
	  "the second disease's infectious_min" },
	{ "initial_infected_2", WEFT_KEY_STRING, "10", 0, 0, NULL,
	  "the second disease's initial_infected (patch_file's column is the "
	  "first disease's)" },
	{ "initial_exposed_2", WEFT_KEY_STRING, "0", 0, 0, NULL,
	  "the second disease's initial_exposed" },
	PT_DEMOG_KEYS,
};

/* The keys that each disease has its own of (diseases = 2). */
enum {
	PT_K_BETA,
	PT_K_EXP,
	PT_K_EXP_MIN,
	PT_K_INF,
	PT_K_INF_MIN,
	PT_K_INIT,
	PT_K_EXP0,
	PT_N_DKEYS
};
static const char *const pt_dkeys[2][PT_N_DKEYS] = {
	{ "beta", "exposed_duration", "exposed_min", "infectious_duration",
	  "infectious_min", "initial_infected", "initial_exposed" },
	{ "beta_2", "exposed_duration_2", "exposed_min_2",
	  "infectious_duration_2", "infectious_min_2", "initial_infected_2",
	  "initial_exposed_2" },
};

/* A duration distribution, parsed. */
typedef struct pt_dist {
	char name[16];
	double a, b;
	int nargs;
} pt_dist;

/* The migration models of laser_core.migration. */

typedef struct pt_state {
	pt_params params;
	weft_migration_desc mig; /* the migration model and its keys */
	int net_file;		 /* 1: the network from network_file */
	double *net_in;		 /* network_file's, P x P and the row sums */
	uint32_t *sia;		 /* the campaigns' table (sia), or NULL */
	uint32_t *pops, *init;	 /* per patch */
	uint32_t *exp0;		 /* per patch: exposed at day 0 */
	double *lat, *lon;
	uint32_t *lines;	/* patch_file's line of each patch, or NULL */
	double *phase, *factor; /* patch_file's seasonality columns, or NULL */
	uint32_t *tab;		/* exposed table, then infectious */
	double *season; /* beta x the multiplier of each day of the cycle */
	uint32_t *imp;	/* per patch: count, first slot, slots, imported */
	double *press;	/* importation_pressure: per patch a daily chance */
	uint64_t n_rows;
	weft_buf *p, *ctl, *agent, *thr, *cnt, *delta, *net, *tabbuf;
	weft_buf *soon; /* the blocks' words (PT_BLOCK_WORDS) */
	weft_buf *series, *seasbuf, *impbuf, *inc, *born, *due, *siabuf;
	uint32_t *host;
	weft_model_rows *rows;
	weft_output *csv, *pcsv, *icsv, *ncsv;
	pt_demog dg;		 /* ages and mortality by age (demography.c) */
	unsigned disease;	 /* 0, or 1: the second disease */
	struct pt_state *second; /* the first's: the second disease, or NULL */
} pt_state;

/* Disease s's name of one of the keys each disease has its own of. */
#define PT_KEY(s, k) (pt_dkeys[(s)->disease][k])

/* ---- parameters ---------------------------------------------------------- */

/* A comma-separated list of numbers: *n of them into *out (malloc'd). */
static weft_status pt_list(weft_model_ctx *mc, const char *key, double **out,
			   uint32_t *n)
{
	const char *s = weft_model_string(mc, key), *q;
	size_t cap = 1;
	double *v;
	char *end;

	*out = NULL;
	*n = 0;
	for (q = s; *q; q++)
		cap += *q == ',';
	if (!(v = malloc(cap * sizeof *v)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate [patches] %s", key);
	for (q = s; *q;) {
		while (isspace((unsigned char)*q))
			q++;
		if (!*q && *n == 0)
			break;
		errno = 0;
		v[*n] = strtod(q, &end);
		if (end == q || errno || !isfinite(v[*n])) {
			free(v);
			return weft_model_fail(mc, WEFT_E_CONFIG,
					       "[patches] %s (%s): item %u is "
					       "not a number",
					       key, weft_model_where(mc, key),
					       *n + 1);
		}
		(*n)++;
		for (q = end; isspace((unsigned char)*q); q++)
			;
		if (*q == ',')
			q++;
		else if (*q) {
			free(v);
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[patches] %s (%s): expected ',' "
				"after item %u",
				key, weft_model_where(mc, key), *n);
		}
	}
	*out = v;
	return WEFT_OK;
}

/* A list of counts: whole numbers in [0, max]; one number stands for
 * every one of want patches when want is not 0. */
static weft_status pt_counts(weft_model_ctx *mc, const char *key, uint32_t want,
			     double max, uint32_t **out, uint32_t *n)
{
	double *v;
	uint32_t k, m;
	weft_status st;

	*out = NULL;
	if ((st = pt_list(mc, key, &v, &m)))
		return st;
	if (want && m != want && m != 1) {
		free(v);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s): %u numbers for %u "
				       "patches; give one, or one per patch",
				       key, weft_model_where(mc, key), m, want);
	}
	*n = want ? want : m;
	if (!(*out = calloc(*n ? *n : 1, sizeof **out))) {
		free(v);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate [patches] %s", key);
	}
	for (k = 0; k < *n; k++) {
		double x = v[m == 1 ? 0 : k];

		if (x < 0 || x > max || x != floor(x)) {
			free(v);
			return weft_model_fail(mc, WEFT_E_CONFIG,
					       "[patches] %s (%s): item %u, "
					       "%g, is not a whole "
					       "number in [0, %.0f]",
					       key, weft_model_where(mc, key),
					       k + 1, x, max);
		}
		(*out)[k] = (uint32_t)x;
	}
	free(v);
	return WEFT_OK;
}

static weft_status pt_parse_dist(weft_model_ctx *mc, const char *key,
				 pt_dist *d)
{
	static const struct {
		const char *name;
		int nargs;
	} known[] = { { "gamma", 2 },	  { "normal", 2 },
		      { "lognormal", 2 }, { "exponential", 1 },
		      { "uniform", 2 },	  { "constant", 1 } };
	const char *s = weft_model_string(mc, key);
	int used = 0, k;

	memset(d, 0, sizeof *d);
	d->nargs = sscanf(s, " %15[a-z_] ( %lf , %lf ) %n", d->name, &d->a,
			  &d->b, &used);
	if (d->nargs == 2) {
		used = 0;
		sscanf(s, " %15[a-z_] ( %lf ) %n", d->name, &d->a, &used);
	}
	for (k = 0; k < (int)(sizeof known / sizeof known[0]); k++)
		if (!strcmp(d->name, known[k].name))
			break;
	if (!used || s[used] || k == (int)(sizeof known / sizeof known[0]) ||
	    d->nargs - 1 != known[k].nargs)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] %s = %s (%s): expected gamma(shape, scale), "
			"normal(loc, scale), lognormal(mean, sigma), "
			"exponential(scale), uniform(low, high) or "
			"constant(value)",
			key, s, weft_model_where(mc, key));
	if ((!strcmp(d->name, "gamma") && (d->a <= 0 || d->b <= 0)) ||
	    (!strcmp(d->name, "normal") && d->b <= 0) ||
	    (!strcmp(d->name, "lognormal") && d->b <= 0) ||
	    (!strcmp(d->name, "exponential") && d->a <= 0) ||
	    (!strcmp(d->name, "uniform") && d->b <= d->a))
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s = %s (%s): a scale, "
				       "shape or width must be positive",
				       key, s, weft_model_where(mc, key));
	return WEFT_OK;
}

/* The regularized lower incomplete gamma function P(a, x): its series
 * below a + 1, its continued fraction above (Numerical Recipes' gser and
 * gcf). */
static double pt_gamma_p(double a, double x)
{
	double gln = lgamma(a), sum, del, ap, b, c, d, h;

	if (x <= 0)
		return 0;
	if (x < a + 1) {
		ap = a;
		sum = del = 1 / a;
		for (int n = 0; n < 10000 && fabs(del) > fabs(sum) * 1e-16;
		     n++) {
			ap += 1;
			del *= x / ap;
			sum += del;
		}
		return sum * exp(-x + a * log(x) - gln);
	}
	b = x + 1 - a;
	c = 1 / 1e-300;
	d = 1 / b;
	h = d;
	for (int i = 1; i < 10000; i++) {
		double an = -i * (i - a), dl;

		b += 2;
		d = an * d + b;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = b + an / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1 / d;
		dl = d * c;
		h *= dl;
		if (fabs(dl - 1) < 1e-16)
			break;
	}
	return 1 - exp(-x + a * log(x) - gln) * h;
}

/* P(X <= x) for the distribution. */
static double pt_cdf(const pt_dist *d, double x)
{
	if (!strcmp(d->name, "gamma"))
		return pt_gamma_p(d->a, x / d->b);
	if (!strcmp(d->name, "normal"))
		return 0.5 * erfc(-(x - d->a) / (d->b * sqrt(2.0)));
	if (!strcmp(d->name, "lognormal"))
		return x <= 0 ? 0
			      : 0.5 * erfc(-(log(x) - d->a) /
					   (d->b * sqrt(2.0)));
	if (!strcmp(d->name, "exponential"))
		return x <= 0 ? 0 : -expm1(-x / d->a);
	if (!strcmp(d->name, "uniform"))
		return x <= d->a   ? 0
		       : x >= d->b ? 1
				   : (x - d->a) / (d->b - d->a);
	return x >= d->a ? 1 : 0; /* constant */
}

/* The table of max(round(X), shortest): entry k is floor(2^32 P(D <= shortest
 * + k)), the last one 2^32 - 1, up to the first duration that leaves less
 * than 2^-33 above it (at most PT_MAX_DAYS). */
static uint32_t pt_table(const pt_dist *d, uint32_t shortest, uint32_t *cum)
{
	uint32_t len = 0;

	for (uint32_t day = shortest; day <= PT_MAX_DAYS; day++) {
		double c = pt_cdf(d, day + 0.5), t = c * 4294967296.0;

		cum[len++] = t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
		if (c >= 1.0 - 0x1p-33)
			break;
	}
	cum[len - 1] = 0xFFFFFFFFu;
	return len;
}

static weft_status pt_coords(weft_model_ctx *mc, pt_state *s)
{
	double *lat = NULL, *lon = NULL;
	uint32_t nlat, nlon, P = s->params.patches;
	weft_status st;

	if ((st = pt_list(mc, "latitudes", &lat, &nlat)) ||
	    (st = pt_list(mc, "longitudes", &lon, &nlon)))
		goto free_lists;
	if (nlat != P || nlon != P) {
		st = weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] latitudes (%s) and longitudes (%s): %u "
			"and %u numbers for %u patches; the gravity network "
			"needs one of each per patch (or gravity_k = 0)",
			weft_model_where(mc, "latitudes"),
			weft_model_where(mc, "longitudes"), nlat, nlon, P);
		goto free_lists;
	}
	s->lat = lat;
	s->lon = lon;
	return WEFT_OK;
free_lists:
	free(lat);
	free(lon);
	return st;
}

/* The path that key names, a relative one taken from the directory of the
 * INI file that set it (weft_model_where: "FILE:LINE"). */
void pt_file_path(weft_model_ctx *mc, const char *key, char *out, size_t size)
{
	const char *path = weft_model_string(mc, key);
	const char *where = weft_model_where(mc, key);
	const char *colon = strrchr(where, ':'), *slash = NULL;

	for (const char *q = where; colon && q < colon; q++)
		if (*q == '/')
			slash = q;
	if (path[0] == '/' || !colon || !slash ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		snprintf(out, size, "%s", path);
	else
		snprintf(out, size, "%.*s%s", (int)(slash + 1 - where), where,
			 path);
}

weft_status pt_file_open(weft_model_ctx *mc, const char *key, char *path,
			 size_t size, FILE **f)
{
	int err;

	pt_file_path(mc, key, path, size);
	if ((*f = fopen(path, "r")))
		return WEFT_OK;
	err = errno;
	return weft_model_fail(mc, WEFT_E_IO,
			       "[patches] %s (%s): cannot open %s: %s", key,
			       weft_model_where(mc, key), path, strerror(err));
}

/* patch_file's columns of the patch model's own (weft/patches.h reads
 * the file): each patch's seasonal cosine. */
static const weft_patch_column pt_cols[] = { { "seasonality_phase", -DBL_MAX,
					       DBL_MAX },
					     { "seasonality_factor", 0, 1 } };
enum { PT_COL_PHASE = WEFT_PATCH_COLS, PT_COL_FACTOR };

#define PT_LONG_LINE "a line longer than 4095 bytes"

/* patch_file: *n patches into s->pops, s->init, s->lines, s->lat,
 * s->lon, s->phase and s->factor; *has the columns found (bits of
 * WEFT_PATCH_COL_* and PT_COL_*). */
static weft_status pt_read_file(weft_model_ctx *mc, pt_state *s, uint32_t *n,
				unsigned *has)
{
	char path[4096];
	weft_patch_table t;
	FILE *f;
	weft_status st;

	if ((st = pt_file_open(mc, "patch_file", path, sizeof path, &f)))
		return st;
	st = weft_patch_table_read(mc, "patches", "patch_file", f, path,
				   pt_cols, 2, PT_MAX_PATCHES, &t);
	fclose(f);
	if (st)
		return st;
	*n = t.n;
	*has = t.has;
	s->pops = t.pops;
	s->init = t.init;
	s->lines = t.lines;
	s->lat = t.lat;
	s->lon = t.lon;
	s->phase = t.extra[0];
	s->factor = t.extra[1];
	return WEFT_OK;
}

/* The patches: from patch_file, or from populations, initial_infected
 * and (with a network) latitudes and longitudes. */
static weft_status pt_read_patches(weft_model_ctx *mc, pt_state *s, uint32_t *n)
{
	unsigned has = 0;
	uint32_t m;
	weft_status st;

	if (!weft_model_string(mc, "patch_file")[0])
		return pt_counts(mc, "populations", 0, 4e9, &s->pops, n);
	if ((st = pt_read_file(mc, s, n, &has)))
		return st;
	if (!(has & (1u << PT_COL_PHASE))) {
		free(s->phase);
		s->phase = NULL;
	}
	if (!(has & (1u << PT_COL_FACTOR))) {
		free(s->factor);
		s->factor = NULL;
	}
	if (!(has & (1u << WEFT_PATCH_COL_LAT))) {
		free(s->lat);
		free(s->lon);
		free(s->lines); /* the coordinates are the keys' */
		s->lat = s->lon = NULL;
		s->lines = NULL;
	}
	/* The file's initial_infected column is the first disease's. */
	if ((has & (1u << WEFT_PATCH_COL_INF) && !s->disease) || !*n)
		return WEFT_OK;
	free(s->init);
	s->init = NULL;
	return pt_counts(mc, PT_KEY(s, PT_K_INIT), *n, 4e9, &s->init, &m);
}

/* initial_exposed, after initial_infected, and force_after_progression. */
static weft_status pt_exposed0(weft_model_ctx *mc, pt_state *s)
{
	pt_params *p = &s->params;
	const char *key = PT_KEY(s, PT_K_EXP0);
	uint32_t m;
	weft_status st;

	if ((st = pt_counts(mc, key, p->patches, 4e9, &s->exp0, &m)))
		return st;
	for (uint32_t k = 0; k < p->patches; k++)
		if ((uint64_t)s->init[k] + s->exp0[k] > s->pops[k])
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[patches] %s (%s): patch %u has %u exposed "
				"and %u infected among %u agents",
				key, weft_model_where(mc, key), k, s->exp0[k],
				s->init[k], s->pops[k]);
	/* Imported agents count their onsets too (patches.wk, pt_infect). */
	p->after_prog = weft_model_bool(mc, "force_after_progression") ? 1 : 0;
	return WEFT_OK;
}

/* constant_population (laser-measles' ConstantPopProcess): cbr's daily
 * rate becomes every agent's chance of dying and being replaced in its
 * slot by a newborn (the deaths' chain; no new slots). */
static weft_status pt_constant_pop(weft_model_ctx *mc, pt_state *s, double rate)
{
	const char *key = "constant_population", *other = NULL;
	pt_params *p = &s->params;

	if (!weft_model_bool(mc, key))
		return WEFT_OK;
	if (weft_model_real(mc, "cbr") <= 0)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s) needs cbr above 0: "
				       "its births replace its deaths",
				       key, weft_model_where(mc, key));
	if (weft_model_real(mc, "cdr") > 0)
		other = "cdr";
	else if (weft_model_string(mc, "death_rates")[0])
		other = "death_rates";
	if (other)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s): deaths are cbr's "
				       "there; remove %s (%s)",
				       key, weft_model_where(mc, key), other,
				       weft_model_where(mc, other));
	p->reborn = 1;
	p->birth_lo = p->birth_hi = 0;
	p->death_thr = pt_threshold(rate);
	return WEFT_OK;
}

/* Births and deaths (LASER's BirthsByCBR and MortalityByCDR) and the
 * capacity they need. */
static weft_status pt_vitals(weft_model_ctx *mc, pt_state *s)
{
	pt_params *p = &s->params;
	double cbr = weft_model_real(mc, "cbr"),
	       cdr = weft_model_real(mc, "cdr");
	double rate = pt_demog_birth_rate(mc, cbr); /* by cbr_mode */
	double pd = pt_demog_death_chance(mc, cdr); /* by cdr_mode */
	double cap = weft_model_int(mc, "capacity");
	double grow;
	uint64_t bb;
	weft_status st;

	/* Births by age of mother: the most births of day 0's agents as
	 * they age, and a fifth more, in place of cbr's. */
	p->fert = s->dg.n_fert ? 1 : 0;
	grow = p->fert ? 1.2 * s->dg.fert_day : cbr > 0 ? rate : 0;
	memcpy(&bb, &rate, 8);
	p->birth_lo = cbr > 0 ? (uint32_t)bb : 0;
	p->birth_hi = cbr > 0 ? (uint32_t)(bb >> 32) : 0;
	p->death_thr = cdr > 0 ? pt_threshold(pd) : 0;
	if ((st = pt_constant_pop(mc, s, rate)))
		return st;
	if (p->reborn)
		grow = 0;
	if (cap == 0)
		cap = grow > 0 || p->fert
			      ? p->agents *
						pow(1.0 + grow,
						    (double)p->last_step) *
						1.05 +
					1000
			      : p->agents;
	if (cap > 4294967280.0)
		cap = 4294967280.0;
	if (cap < p->agents)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] capacity = %.0f (%s) is less "
				       "than the %u agents at day 0",
				       cap, weft_model_where(mc, "capacity"),
				       p->agents);
	p->capacity = (uint32_t)cap;
	return WEFT_OK;
}

/* seasonality_file: the multipliers, one a line (a CSV line's first
 * field), into *out (malloc'd), *n of them; the first line that is not
 * blank, if not a number, is a header. Lines of at most 4095 bytes. */
static weft_status pt_read_season(weft_model_ctx *mc, double **out, uint32_t *n)
{
	char path[4096], line[4096], *end;
	const char *where = weft_model_where(mc, "seasonality_file");
	const char *what = NULL;
	size_t cap = 0;
	uint32_t ln = 0;
	double x, *v = NULL, *g;
	int r, header = 0;
	FILE *f;
	weft_status st;

	*out = NULL;
	*n = 0;
	if ((st = pt_file_open(mc, "seasonality_file", path, sizeof path, &f)))
		return st;
	while (!what && (r = weft_patch_getline(f, line, sizeof line)) != 0) {
		ln++;
		if (r < 0) {
			what = PT_LONG_LINE;
			break;
		}
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		errno = 0;
		x = strtod(line, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r' ||
		       *end == '\n')
			end++;
		if (end == line || (*end && *end != ',') || errno ||
		    !isfinite(x)) {
			/* The first line that is not blank may be a
			 * header. */
			if (*n || header)
				what = "not a number";
			header = 1;
			continue;
		}
		if (x < 0) {
			what = "a negative multiplier";
			break;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 512;
			if (cap > 100000000 ||
			    !(g = realloc(v, cap * sizeof *v))) {
				what = "too many lines (at most 100000000)";
				break;
			}
			v = g;
		}
		v[(*n)++] = x;
	}
	fclose(f);
	if (!what && *n == 0)
		what = "no multipliers";
	if (what) {
		free(v);
		*n = 0;
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] seasonality_file (%s): %s, "
				       "line %u: %s",
				       where, path, ln, what);
	}
	*out = v;
	return WEFT_OK;
}

/* seasonality_phases or seasonality_factors: *n numbers (0, or one per
 * patch) into *out; factors from 0 to 1. */
static weft_status pt_season_list(weft_model_ctx *mc, const pt_state *s,
				  const char *key, double **out, uint32_t *n)
{
	uint32_t P = s->params.patches;
	int factors = !strcmp(key, "seasonality_factors");
	weft_status st;

	if ((st = pt_list(mc, key, out, n)))
		return st;
	if (*n && *n != P)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s): %u numbers for %u "
				       "patches; give one per patch",
				       key, weft_model_where(mc, key), *n, P);
	for (uint32_t j = 0; factors && j < *n; j++)
		if (!((*out)[j] >= 0 && (*out)[j] <= 1))
			return weft_model_fail(mc, WEFT_E_CONFIG,
					       "[patches] %s (%s): item %u, "
					       "%g, is not in [0, 1]",
					       key, weft_model_where(mc, key),
					       j + 1, (*out)[j]);
	return WEFT_OK;
}

/* The cosine, 365 days: one multiplier a day, or with seasonality_phases
 * or seasonality_factors a row of one per patch a day (LASER's ValuesMap
 * by day and node), each patch's amplitude and phase from its list or
 * the key for every patch. *v malloc'd, p->season_patches set. */
static weft_status pt_season_cosine(weft_model_ctx *mc, pt_state *s, double **v)
{
	pt_params *p = &s->params;
	double amp = weft_model_real(mc, "seasonality_factor");
	double phase = weft_model_real(mc, "seasonality_phase");
	double *ph = NULL, *am = NULL;
	uint32_t nph = 0, nam = 0, w;
	weft_status st;

	*v = NULL;
	if ((st = pt_season_list(mc, s, "seasonality_phases", &ph, &nph)) ||
	    (st = pt_season_list(mc, s, "seasonality_factors", &am, &nam)))
		goto free_lists;
	if ((nph && s->phase) || (nam && s->factor)) {
		st = weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] %s (%s) and patch_file's column %s (%s): "
			"give one of them",
			nph && s->phase ? "seasonality_phases"
					: "seasonality_factors",
			weft_model_where(mc, nph && s->phase
						     ? "seasonality_phases"
						     : "seasonality_factors"),
			nph && s->phase ? "seasonality_phase"
					: "seasonality_factor",
			weft_model_where(mc, "patch_file"));
		goto free_lists;
	}
	/* patch_file's columns stand for the lists. */
	if (s->phase && !(ph = malloc(p->patches * sizeof *ph)))
		st = WEFT_E_NOMEM;
	if (s->factor && !(am = malloc(p->patches * sizeof *am)))
		st = WEFT_E_NOMEM;
	if (st) {
		st = weft_model_fail(mc, st, "cannot allocate the seasonality");
		goto free_lists;
	}
	if (s->phase) {
		memcpy(ph, s->phase, p->patches * sizeof *ph);
		nph = p->patches;
	}
	if (s->factor) {
		memcpy(am, s->factor, p->patches * sizeof *am);
		nam = p->patches;
	}
	if (nph && !nam && !(amp > 0) && s->phase) {
		char path[4096];

		pt_file_path(mc, "patch_file", path, sizeof path);
		st = weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] patch_file (%s): %s's column "
			"seasonality_phase needs an amplitude: a column "
			"seasonality_factor, seasonality_factor (%s) above 0, "
			"or seasonality_factors",
			weft_model_where(mc, "patch_file"), path,
			weft_model_where(mc, "seasonality_factor"));
		goto free_lists;
	}
	if (nph && !nam && !(amp > 0)) {
		st = weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] seasonality_phases (%s) needs an amplitude: "
			"seasonality_factor (%s) above 0, or "
			"seasonality_factors",
			weft_model_where(mc, "seasonality_phases"),
			weft_model_where(mc, "seasonality_factor"));
		goto free_lists;
	}
	p->season_patches = nph || nam;
	w = p->season_patches ? p->patches : 1;
	if (!(*v = malloc(365 * (size_t)w * sizeof **v))) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate the seasonality");
		goto free_lists;
	}
	for (uint32_t t = 0; t < 365; t++)
		for (uint32_t j = 0; j < w; j++)
			(*v)[(size_t)t * w + j] = weft_patches_season(
				nam ? am[j] : amp, nph ? ph[j] : phase, t);
free_lists:
	free(ph);
	free(am);
	return st;
}

/* Seasonality (LASER's Transmission(seasonality=...)): the multipliers of
 * beta from seasonality, seasonality_file or the cosine of
 * seasonality_factor (at most one of them); s->season holds beta times
 * each, day t taking entry t % p->season_len (with p->season_patches,
 * row t % p->season_len of one per patch). None: season_len 0. */
static weft_status pt_seasonality(weft_model_ctx *mc, pt_state *s)
{
	pt_params *p = &s->params;
	double beta = weft_model_real(mc, PT_KEY(s, PT_K_BETA));
	int list = weft_model_string(mc, "seasonality")[0] != 0;
	int file = weft_model_string(mc, "seasonality_file")[0] != 0;
	int cosine = weft_model_real(mc, "seasonality_factor") > 0 ||
		     weft_model_string(mc, "seasonality_phases")[0] ||
		     weft_model_string(mc, "seasonality_factors")[0] ||
		     s->phase || s->factor;
	double *v = NULL;
	uint32_t n = 0;
	size_t all;
	char path[4096], src[4400];
	weft_status st;

	/* The cosine's source: patch_file's columns when it has them. */
	if (s->phase || s->factor) {
		pt_file_path(mc, "patch_file", path, sizeof path);
		snprintf(src, sizeof src, "patch_file (%s): %s's column %s",
			 weft_model_where(mc, "patch_file"), path,
			 s->phase ? "seasonality_phase" : "seasonality_factor");
	} else
		snprintf(src, sizeof src, "seasonality_factor (%s)",
			 weft_model_where(mc, "seasonality_factor"));
	if (list + file + cosine > 1)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] seasonality (%s), "
				       "seasonality_file (%s) and %s: give one "
				       "of them",
				       weft_model_where(mc, "seasonality"),
				       weft_model_where(mc, "seasonality_file"),
				       src);
	if (list && (st = pt_list(mc, "seasonality", &v, &n)))
		return st;
	if (file && (st = pt_read_season(mc, &v, &n)))
		return st;
	if (cosine) {
		if ((st = pt_season_cosine(mc, s, &v)))
			return st;
		n = 365;
	}
	all = (size_t)n * (p->season_patches ? p->patches : 1);
	for (size_t t = 0; t < all; t++) {
		if (v[t] < 0) {
			double bad = v[t];

			free(v);
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[patches] seasonality (%s): item %zu, %g, is "
				"negative; multipliers of beta are 0 or more",
				weft_model_where(mc, "seasonality"), t + 1,
				bad);
		}
		v[t] *= beta;
	}
	if (list && n == 0) {
		free(v);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] seasonality (%s): no "
				       "multipliers",
				       weft_model_where(mc, "seasonality"));
	}
	s->season = v;
	p->season_len = n;
	return WEFT_OK;
}

/* Importation (LASER's Infect_Agents_In_Patch): the days, and s->imp, per
 * patch the agents to infect each time (importation_count for each time
 * the patch is in importation_patchlist, every patch when it is empty),
 * the patch's first slot and its slots at day 0. */
/* Whether key was set (in an INI file or by --set), not left to its
 * default. */
static int pt_set(const weft_model_ctx *mc, const char *key)
{
	return strcmp(weft_model_where(mc, key), "default") != 0;
}

/* importation_pressure (laser-measles' ImportationPressureProcess): its
 * yearly imports per 1000 agents as each patch's daily chance per agent,
 * rate / 1000 / 365, into s->press. */
static weft_status pt_pressure(weft_model_ctx *mc, pt_state *s)
{
	const char *key = "importation_pressure";
	pt_params *p = &s->params;
	uint32_t n = 0, P = p->patches;
	double *v = NULL;
	weft_status st;

	if (!weft_model_string(mc, key)[0])
		return WEFT_OK;
	if ((st = pt_list(mc, key, &v, &n)))
		return st;
	if (n != 1 && n != P) {
		free(v);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s): %u items for %u "
				       "patches; give one, or one per patch",
				       key, weft_model_where(mc, key), n, P);
	}
	for (uint32_t k = 0; k < n; k++)
		if (!(v[k] >= 0 && v[k] <= 365000)) {
			st = weft_model_fail(mc, WEFT_E_CONFIG,
					     "[patches] %s (%s): item %u, %g, "
					     "is not a rate from 0 to 365000 "
					     "per 1000 a year",
					     key, weft_model_where(mc, key),
					     k + 1, v[k]);
			free(v);
			return st;
		}
	if (!(s->press = malloc(P * sizeof *s->press))) {
		free(v);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate [patches] %s", key);
	}
	for (uint32_t j = 0; j < P; j++)
		s->press[j] = v[n == 1 ? 0 : j] / 1000 / 365;
	free(v);
	p->pressure = 1;
	/* LASER's importation's own keys do not apply. */
	for (const char *const *o =
		     (const char *const[]){ "importation_patchlist",
					    "importation_count", NULL };
	     *o; o++)
		if (pt_set(mc, *o))
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[patches] %s (%s): importation_period's, not "
				"importation_pressure's (%s): remove it",
				*o, weft_model_where(mc, *o),
				weft_model_where(mc, key));
	return WEFT_OK;
}

static weft_status pt_importation(weft_model_ctx *mc, pt_state *s)
{
	pt_params *p = &s->params;
	uint32_t P = p->patches, n = 0, first = 0;
	uint64_t count = (uint64_t)weft_model_int(mc, "importation_count");
	int64_t end = weft_model_int(mc, "importation_end");
	const char *lk = "importation_patchlist";
	double *v = NULL;
	weft_status st;

	p->imp_period = (uint32_t)weft_model_int(mc, "importation_period");
	if ((st = pt_pressure(mc, s)))
		return st;
	if (!pt_imports_on(p))
		return WEFT_OK;
	if (p->imp_period && p->pressure)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] importation_pressure (%s): not with "
			"importation_period (%s); give one of them",
			weft_model_where(mc, "importation_pressure"),
			weft_model_where(mc, "importation_period"));
	p->imp_start = (uint32_t)weft_model_int(mc, "importation_start");
	p->imp_end = end ? (uint32_t)end : p->last_step;
	if (!end && p->imp_end <= p->imp_start)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] importation_start = %u (%s) is not before "
			"the run's end, [simulation] steps = %u, where "
			"importation stops with importation_end = 0 (%s): no "
			"day would import",
			p->imp_start, weft_model_where(mc, "importation_start"),
			p->last_step, weft_model_where(mc, "importation_end"));
	if (p->imp_end <= p->imp_start)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] importation_end = %u (%s) is not after "
			"importation_start = %u (%s): no day would import",
			p->imp_end, weft_model_where(mc, "importation_end"),
			p->imp_start,
			weft_model_where(mc, "importation_start"));
	if (p->imp_period && (st = pt_list(mc, lk, &v, &n)))
		return st;
	if (!(s->imp = calloc(4 * (size_t)P, sizeof *s->imp))) {
		free(v);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the importation");
	}
	for (uint32_t k = 0; k < n; k++) {
		uint64_t want;

		if (!(v[k] >= 0 && v[k] < P && v[k] == floor(v[k]))) {
			st = weft_model_fail(mc, WEFT_E_CONFIG,
					     "[patches] %s (%s): item %u, %g, "
					     "is not a patch (0 to %u)",
					     lk, weft_model_where(mc, lk),
					     k + 1, v[k], P - 1);
			free(v);
			return st;
		}
		want = s->imp[4 * (uint32_t)v[k]] + count;
		s->imp[4 * (uint32_t)v[k]] =
			want > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)want;
	}
	free(v);
	for (uint32_t j = 0; j < P; j++) {
		if (n == 0 && p->imp_period)
			s->imp[4 * j] = (uint32_t)count;
		s->imp[4 * j + 1] = first;
		s->imp[4 * j + 2] = s->pops[j];
		first += s->pops[j];
	}
	return WEFT_OK;
}

/* The migration model and its parameters: laser_core.migration's names;
 * LASER asserts k, a, b and c to be 0 or more in the models beyond
 * gravity (weft's gravity keeps its wider range); delta only for
 * competing_destinations and include_home only for radiation and
 * stouffer. */
static weft_status pt_migration(weft_model_ctx *mc, pt_state *s)
{
	weft_status st;

	if (s->net_file &&
	    (st = weft_migration_replaced(mc, "patches", "network_file")))
		return st;
	if ((st = weft_migration_read(mc, "patches", &s->mig)))
		return st;
	if (weft_model_bool(mc, "network_output") &&
	    s->params.patches > PT_MAX_MIX)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] network_output (%s): %u patches; "
			"network.csv is written for at most %u",
			weft_model_where(mc, "network_output"),
			s->params.patches, PT_MAX_MIX);
	return WEFT_OK;
}

static weft_status pt_row_sums(weft_model_ctx *mc, const pt_state *s,
			       double *net);

/* network_file's network and its row sums into s->net_in, read with the
 * keys so that `weft check` refuses a bad file. */
static weft_status pt_network_in(weft_model_ctx *mc, pt_state *s)
{
	uint32_t P = s->params.patches;
	char path[4096];
	FILE *f;
	weft_status st;

	if (!(s->net_in = malloc(((size_t)P * P + P) * sizeof *s->net_in)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "[patches] network_file (%s): cannot "
				       "allocate %zu bytes for %u patches",
				       weft_model_where(mc, "network_file"),
				       ((size_t)P * P + P) * sizeof *s->net_in,
				       P);
	if ((st = pt_file_open(mc, "network_file", path, sizeof path, &f)))
		return st;
	st = weft_migration_network_read(mc, "patches", "network_file", f, path,
					 P, s->net_in);
	fclose(f);
	return st ? st : pt_row_sums(mc, s, s->net_in);
}

static weft_status pt_read_params(weft_model_ctx *mc, pt_state *s)
{
	pt_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc), agents = 0;
	uint64_t steps = weft_model_steps(mc);
	uint64_t every = weft_model_output_every(mc);
	double beta = weft_model_real(mc, PT_KEY(s, PT_K_BETA));
	const char *key, *ikey = PT_KEY(s, PT_K_INIT);
	uint64_t bb;
	uint32_t n;
	weft_status st;

	memset(p, 0, sizeof *p);
	if ((st = pt_read_patches(mc, s, &n)))
		return st;
	key = weft_model_string(mc, "patch_file")[0] ? "patch_file"
						     : "populations";
	if (n == 0 || n > PT_MAX_PATCHES)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s): %u patches; between "
				       "1 and %u",
				       key, weft_model_where(mc, key), n,
				       PT_MAX_PATCHES);
	p->patches = n;
	for (uint32_t k = 0; k < n; k++)
		agents += s->pops[k];
	if (agents == 0 || agents > 0xFFFFFFF0u)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] populations (%s): %llu agents "
			"in all; between 1 and %u",
			weft_model_where(mc, "populations"),
			(unsigned long long)agents, 0xFFFFFFF0u);
	p->agents = (uint32_t)agents;
	if (!s->init && (st = pt_counts(mc, ikey, n, 4e9, &s->init, &n)))
		return st;
	for (uint32_t k = 0; k < n; k++)
		if (s->init[k] > s->pops[k])
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[patches] %s (%s): patch %u has %u infected "
				"among %u agents",
				ikey, weft_model_where(mc, ikey), k, s->init[k],
				s->pops[k]);
	if ((st = pt_exposed0(mc, s)))
		return st;
	s->net_file = weft_model_string(mc, "network_file")[0] != 0;
	p->mixing =
		n > 1 && (s->net_file || weft_model_real(mc, "gravity_k") > 0);
	p->mix_infectious =
		!strcmp(weft_model_string(mc, "mixing_form"), "infectious");
	if (p->mixing && n > PT_MAX_MIX)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] populations (%s): %u patches with a "
			"network; at most %u (%s)",
			weft_model_where(mc, "populations"), n, PT_MAX_MIX,
			s->net_file ? "network_file mixes them: remove it"
				    : "or gravity_k = 0");
	if (p->mixing && !s->net_file && !s->lat && (st = pt_coords(mc, s)))
		return st;
	/* Read, so that a bad file is refused, with one patch too; the
	 * second disease mixes through the first's network. */
	if (s->net_file && !s->disease && (st = pt_network_in(mc, s)))
		return st;
	/* Campaigns immunize against the first disease. */
	if (!s->disease && (st = pt_sia_read(mc, n, steps, &s->sia, &p->sia)))
		return st;
	if ((st = pt_migration(mc, s)))
		return st;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->disease = s->disease;
	p->pair = !s->disease && weft_model_int(mc, "diseases") >= 2;
	p->linear = strcmp(weft_model_string(mc, "infection_probability"),
			   "linear") == 0;
	memcpy(&bb, &beta, 8);
	p->beta_lo = (uint32_t)bb;
	p->beta_hi = (uint32_t)(bb >> 32);
	p->every = (uint32_t)every;
	p->last_step = (uint32_t)steps;
	s->n_rows = 1 + (steps + every - 1) / every;
	p->incidence = weft_model_bool(mc, "patch_series") ? 1 : 0;
	p->row_words = 1 + (4 + p->incidence) * n;
	if (s->n_rows * p->row_words > PT_MAX_ROWS * 16ull ||
	    s->n_rows > PT_MAX_ROWS || steps > 0xFFFFFFF0u)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[simulation] steps = %llu with a row "
				       "every %llu days for %u patches make "
				       "too many rows; raise [output] every",
				       (unsigned long long)steps,
				       (unsigned long long)every, n);
	p->n_rows = (uint32_t)s->n_rows;
	/* Ages first: births by age of mother size the capacity. */
	if ((st = pt_demog_read(mc, &s->dg, steps)) ||
	    (st = pt_vitals(mc, s)) || (st = pt_seasonality(mc, s)))
		return st;
	if ((st = pt_importation(mc, s)))
		return st;
	if (pt_imports_on(p) && weft_model_int(mc, "diseases") == 2)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] diseases = 2 (%s): not with %s (%s); "
			"importation infects with one disease",
			weft_model_where(mc, "diseases"),
			p->pressure ? "importation_pressure"
				    : "importation_period",
			weft_model_where(mc, p->pressure
						     ? "importation_pressure"
						     : "importation_period"));
	return WEFT_OK;
}

/* Both tables, into s->tab (PT_MAX_DAYS + 1 words each at most). */
static weft_status pt_tables(weft_model_ctx *mc, pt_state *s)
{
	pt_params *p = &s->params;
	pt_dist de, di;
	weft_status st;

	if ((st = pt_parse_dist(mc, PT_KEY(s, PT_K_EXP), &de)) ||
	    (st = pt_parse_dist(mc, PT_KEY(s, PT_K_INF), &di)))
		return st;
	/* With importation_pressure, each patch's daily chance after them
	 * (two words each). */
	if (!(s->tab = calloc(2 * (PT_MAX_DAYS + 1) + 2 * (size_t)p->patches,
			      4)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the duration tables");
	p->exp_min = (uint32_t)weft_model_int(mc, PT_KEY(s, PT_K_EXP_MIN));
	p->inf_min = (uint32_t)weft_model_int(mc, PT_KEY(s, PT_K_INF_MIN));
	p->exp_len = pt_table(&de, p->exp_min, s->tab);
	p->inf_len = pt_table(&di, p->inf_min, s->tab + p->exp_len);
	for (uint32_t j = 0; p->pressure && j < p->patches; j++) {
		uint32_t *w = s->tab + p->exp_len + p->inf_len + 2 * j;
		uint64_t bits;

		memcpy(&bits, &s->press[j], 8);
		w[0] = (uint32_t)bits; /* low word first, as the kernel reads */
		w[1] = (uint32_t)(bits >> 32);
	}
	return WEFT_OK;
}

/* Words of buffer tab: the tables, and importation_pressure's chances. */
static size_t pt_tab_words(const pt_params *p)
{
	return p->exp_len + p->inf_len +
	       (p->pressure ? 2 * (size_t)p->patches : 0);
}

static void pt_free_host(pt_state *s)
{
	free(s->net_in);
	free(s->sia);
	s->net_in = NULL;
	s->sia = NULL;
	free(s->pops);
	free(s->init);
	free(s->exp0);
	free(s->lat);
	free(s->lon);
	free(s->lines);
	free(s->phase);
	free(s->factor);
	free(s->tab);
	free(s->press);
	s->press = NULL;
	free(s->season);
	free(s->imp);
	pt_demog_free_host(&s->dg);
	s->season = NULL;
	s->pops = s->init = s->exp0 = s->tab = s->imp = NULL;
	s->lat = s->lon = NULL;
	s->lines = NULL;
	s->phase = s->factor = NULL;
}

static double pt_distance(const pt_state *s, uint32_t i, uint32_t j);

/* Patches i and j at one place, where gravity and competing_destinations
 * divide by their distance, 0: an error naming both and where their
 * coordinates come from (patch_file's lines, or the keys' items). */
static weft_status pt_same_place(weft_model_ctx *mc, const pt_state *s,
				 uint32_t i, uint32_t j)
{
	char path[4096];

	if (s->lines) {
		pt_file_path(mc, "patch_file", path, sizeof path);
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] patch_file (%s): %s, lines %u and %u: "
			"patches %u and %u are at one place (latitude %g, "
			"longitude %g); migration = %s (%s) divides by their "
			"distance, 0: move one or merge them",
			weft_model_where(mc, "patch_file"), path, s->lines[i],
			s->lines[j], i, j, s->lat[i], s->lon[i],
			weft_migration_names[s->mig.model],
			weft_model_where(mc, "migration"));
	}
	return weft_model_fail(
		mc, WEFT_E_CONFIG,
		"[patches] latitudes (%s) and longitudes (%s), items %u and "
		"%u: patches %u and %u are at one place (latitude %g, "
		"longitude %g); migration = %s (%s) divides by their "
		"distance, 0: move one or merge them",
		weft_model_where(mc, "latitudes"),
		weft_model_where(mc, "longitudes"), i + 1, j + 1, i, j,
		s->lat[i], s->lon[i], weft_migration_names[s->mig.model],
		weft_model_where(mc, "migration"));
}

/* Whether the network divides by a distance of 0: gravity and
 * competing_destinations with gravity_c above 0, two patches at one
 * place. P^2 / 2 distances, as many as the network's own. */
static weft_status pt_check_places(weft_model_ctx *mc, const pt_state *s)
{
	uint32_t P = s->params.patches;

	if (!s->params.mixing || s->net_file || !(s->mig.c > 0) ||
	    (s->mig.model != WEFT_MIGRATION_GRAVITY &&
	     s->mig.model != WEFT_MIGRATION_COMPETING))
		return WEFT_OK;
	for (uint32_t i = 0; i < P; i++)
		for (uint32_t j = i + 1; j < P; j++)
			if (pt_distance(s, i, j) == 0)
				return pt_same_place(mc, s, i, j);
	return WEFT_OK;
}

static weft_status pt_check(weft_model_ctx *mc)
{
	pt_state s;
	weft_status st;

	memset(&s, 0, sizeof s);
	if (!(st = pt_read_params(mc, &s)) && !(st = pt_check_places(mc, &s)))
		st = pt_tables(mc, &s);
	pt_free_host(&s);
	if (st || weft_model_int(mc, "diseases") < 2)
		return st;
	/* The second disease's keys. */
	memset(&s, 0, sizeof s);
	s.disease = 1;
	if (!(st = pt_read_params(mc, &s)))
		st = pt_tables(mc, &s);
	pt_free_host(&s);
	return st;
}

/* The memory a run needs, from its parameters: the agents (a word per
 * slot, and with age_pyramid a date of birth; built on the host at day 0
 * too), the network, the series' rows and the ages' rows. */
/* What pt_open() and pt_extras() allocate besides the agents, the network
 * and the rows: the per-patch words (counts, thresholds, the day's
 * changes, importation, incidence), the seasonality series, the
 * campaigns and the newborns' links. */
static weft_status pt_estimate_extras(weft_model_estimate *est,
				      const pt_state *s)
{
	const pt_params *p = &s->params;
	uint64_t P = p->patches;
	uint64_t patch = P * (16 + 4 + 4 * PT_DELTAS + 16 + 4);
	uint64_t season = s->season ? 8 * (uint64_t)p->season_len *
					      (p->season_patches ? P : 1)
				    : 8;
	uint64_t born = pt_imports_on(p) && pt_births_on(p)
				? 4 * (2 * P + p->capacity - p->agents)
				: 4;
	/* The table and the day's chances (thresholds' second part). */
	uint64_t sia = p->sia ? 4 * (PT_SIA_MAX + p->sia * P + P + 1) : 4;
	/* The durations' tables, and importation_pressure's chances. */
	uint64_t tab = 4 * (uint64_t)pt_tab_words(p);
	weft_status st;

	if ((st = weft_model_estimate_add(est, "the patches' counts",
					  "[patches] populations", patch,
					  patch)) ||
	    (st = weft_model_estimate_add(
		     est, "the seasonality",
		     "[patches] seasonality, seasonality_phases", season,
		     season)) ||
	    (st = weft_model_estimate_add(est, "the campaigns", "[patches] sia",
					  sia, sia)))
		return st;
	if ((st = weft_model_estimate_add(est, "the tables",
					  "[patches] importation_pressure", tab,
					  tab)))
		return st;
	return weft_model_estimate_add(est, "the newborns' links",
				       "[patches] importation_period, "
				       "importation_pressure, cbr, capacity",
				       born, born);
}

/* Unlike what weft/model.h asks of estimate() (sizes and first lines
 * only), this reads the parameters in full, patch_file, age_pyramid and
 * death_rates included: the patches and the age bins are counted from
 * them, and they are small tables (a row per patch, at most 65536; a row
 * per age bin, at most 1000). */
static weft_status pt_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	pt_state s;
	const pt_params *p = &s.params;
	uint64_t per, net, rows, ages, two, soon, agents;
	char keys[128];
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = pt_read_params(mc, &s)))
		goto free_host;
	/* A word per slot, a date of birth with ages, a pregnancy's word
	 * with fertility_rates. */
	per = s.dg.n_bins ? (s.dg.n_fert ? 12 : 8) : 4;
	snprintf(keys, sizeof keys, "[patches] populations, cbr, capacity%s%s",
		 s.dg.n_bins ? ", age_pyramid" : "",
		 s.dg.n_fert ? ", fertility_rates" : "");
	net = p->mixing ? 8 * ((uint64_t)p->patches * p->patches + p->patches)
			: 8;
	rows = 4 * (uint64_t)p->row_words * s.n_rows;
	ages = 4 * (PT_AG_HEAD + (1 + (uint64_t)s.dg.n_bins) * s.dg.rows);
	/* A word per slot (and a date of birth), and per block of PT_GROUP
	 * slots its words (pt_blocks). */
	soon = 4 * PT_BLOCK_WORDS *
	       (((uint64_t)p->capacity + PT_GROUP - 1) / PT_GROUP);
	agents = per * p->capacity + soon +
		 (s.dg.n_fert ? 4 * (uint64_t)PT_FA_WORDS : 0);
	if ((st = weft_model_estimate_add(est, "the agents", keys, agents,
					  agents)) ||
	    (st = weft_model_estimate_add(est, "the network",
					  "[patches] populations, gravity_k, "
					  "network_file",
					  net, net)) ||
	    (st = weft_model_estimate_add(
		     est, "the rows",
		     "[simulation] steps, [output] every, [patches] "
		     "patch_series",
		     rows,
		     rows + weft_model_rows_bytes(mc, 4 * (size_t)p->row_words,
						  PT_SNAP_ROWS))))
		goto free_host;
	if (s.dg.n_bins &&
	    (st = weft_model_estimate_add(est, "the ages' rows",
					  "[patches] ages_every", ages, ages)))
		goto free_host;
	/* diseases = 2: a second word per slot, its rows, its seasonality
	 * and its patches' words (as pt_estimate_extras counts the
	 * first's); it mixes through the first's network. */
	two = 4 * (uint64_t)p->capacity + soon + rows +
	      (uint64_t)p->patches * (40 + 4 * PT_DELTAS) +
	      (s.season ? 8 * (uint64_t)p->season_len *
				  (p->season_patches ? p->patches : 1)
			: 8);
	if (weft_model_int(mc, "diseases") == 2 &&
	    (st = weft_model_estimate_add(
		     est, "the second disease", "[patches] diseases", two,
		     two + weft_model_rows_bytes(mc, 4 * (size_t)p->row_words,
						 PT_SNAP_ROWS))))
		goto free_host;
	st = pt_estimate_extras(est, &s);
free_host:
	pt_free_host(&s);
	return st;
}

/* ---- the state at day 0 -------------------------------------------------- */

/* Disease s's buffer called name ("agents 2": the second disease's). */
static weft_status pt_buf(weft_model_ctx *mc, const pt_state *s,
			  const char *name, size_t bytes, const void *data,
			  weft_buf **out)
{
	char full[64];
	weft_status st;

	snprintf(full, sizeof full, "%s%s", name, s->disease ? " 2" : "");
	if ((st = weft_model_alloc(mc, full, bytes, out)))
		return st;
	return weft_model_upload(mc, *out, 0, data, bytes);
}

/* A buffer that the days change: part of a checkpoint. */
static weft_status pt_state_buf(weft_model_ctx *mc, const pt_state *s,
				const char *name, size_t bytes,
				const void *data, weft_buf **out)
{
	weft_status st;

	if ((st = pt_buf(mc, s, name, bytes, data, out)))
		return st;
	return weft_model_state(mc, *out);
}

/* The haversine distance between patches i and j, in km, as the
 * migration model computes it (weft/patches.h). */
static double pt_distance(const pt_state *s, uint32_t i, uint32_t j)
{
	weft_migration_patches pp = { s->params.patches, s->pops, s->lat,
				      s->lon };

	return weft_migration_km(&s->mig, &pp, i, j);
}

/* LASER's network (laser_core.migration's model that migration names, on
 * its haversine distances), rows scaled down to max_rowsum
 * (row_normalizer), or network_file's as given; then the row sums, P
 * more words (pt_row_sums). */
static weft_status pt_network(weft_model_ctx *mc, const pt_state *s,
			      double *net)
{
	uint32_t P = s->params.patches;
	weft_migration_patches pp = { P, s->pops, s->lat, s->lon };

	if (s->net_file) {
		memcpy(net, s->net_in, ((size_t)P * P + P) * sizeof *net);
		return WEFT_OK;
	}
	if (weft_migration_network(&s->mig, &pp, net))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the network");
	return pt_row_sums(mc, s, net);
}

/* The network's row sums into its last P words; fails on an entry that
 * is not a finite number (a patch of no agents, say), and with
 * mixing_form = infectious on a row sum above 1 (what stays in the patch
 * would be negative; laser-measles refuses it too). */
static weft_status pt_row_sums(weft_model_ctx *mc, const pt_state *s,
			       double *net)
{
	uint32_t P = s->params.patches;

	for (uint32_t i = 0; i < P; i++) {
		double sum = 0;

		for (uint32_t j = 0; j < P; j++) {
			if (!isfinite(net[(size_t)i * P + j]) && i != j &&
			    pt_distance(s, i, j) == 0)
				return pt_same_place(mc, s, i < j ? i : j,
						     i < j ? j : i);
			if (!isfinite(net[(size_t)i * P + j]))
				return weft_model_fail(
					mc, WEFT_E_CONFIG,
					"[patches] migration = %s (%s): the "
					"network's entry from patch %u to "
					"patch %u is not a finite number",
					weft_migration_names[s->mig.model],
					weft_model_where(mc, "migration"), i,
					j);
			sum += net[(size_t)i * P + j];
		}
		if (s->params.mix_infectious && sum > 1)
			return weft_model_fail(
				mc, WEFT_E_CONFIG,
				"[patches] mixing_form = infectious (%s): the "
				"network's row of patch %u sums to %.17g, "
				"above 1",
				weft_model_where(mc, "mixing_form"), i, sum);
		net[(size_t)P * P + i] = sum;
	}
	return WEFT_OK;
}

/* network_output: network.csv, a row per source patch, a column per
 * destination, each entry in full precision (%.17g); net NULL: no mixing,
 * every entry 0. */
static weft_status pt_network_csv(weft_model_ctx *mc, const pt_state *s,
				  const double *net)
{
	uint32_t P = s->params.patches;
	weft_output *o;
	weft_status st;

	if (!weft_model_bool(mc, "network_output") || !weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "network.csv", &o)) ||
	    (st = weft_output_printf(o, "source")))
		return st;
	for (uint32_t j = 0; j < P; j++)
		if ((st = weft_output_printf(o, ",p%u", j)))
			return st;
	for (uint32_t i = 0; i < P; i++) {
		if ((st = weft_output_printf(o, "\n%u", i)))
			return st;
		for (uint32_t j = 0; j < P; j++)
			if ((st = weft_output_printf(
				     o, ",%.17g",
				     net ? net[(size_t)i * P + j] : 0.0)))
				return st;
	}
	return weft_output_printf(o, "\n");
}

/* The agents at day 0, patch by patch: the first initial_infected of
 * each patch infectious, the next initial_exposed exposed (agents of a
 * patch are alike, so which ones does not matter), with durations drawn
 * from the infectious and the exposed table: a duration of t days moves
 * on at day t - 1's step (its date). With force_after_progression, due
 * (2 words a patch) counts those whose date is day 0 (as pt_agents
 * counts them). */
static void pt_agents0(const pt_state *s, uint32_t *w, uint32_t *cnt,
		       uint32_t *due)
{
	const pt_params *p = &s->params;
	const uint32_t *inf = s->tab + p->exp_len;
	uint32_t a = 0;

	for (uint32_t j = 0; j < p->patches; j++) {
		for (uint32_t k = 0; k < s->pops[j]; k++, a++) {
			uint32_t r = weft_philox(p->seed_lo, p->seed_hi, a, 0,
						 p->disease, PT_PURPOSE_INIT)
					     .v[0];

			if (k < s->init[j])
				w[a] = pt_word(PT_I,
					       pt_duration(inf, p->inf_len,
							   p->inf_min, r) -
						       1,
					       j);
			else if (k - s->init[j] < s->exp0[j])
				w[a] = pt_word(PT_E,
					       pt_duration(s->tab, p->exp_len,
							   p->exp_min, r) -
						       1,
					       j);
			else
				w[a] = pt_word(PT_S, 0, j);
			if (due && (w[a] >> PT_STATE_SHIFT) - PT_E < 2 &&
			    ((w[a] >> PT_DATE_SHIFT) & PT_DATE_MASK) == 0)
				due[2 * j + (w[a] >> PT_STATE_SHIFT) - PT_E]++;
		}
		cnt[4 * j] = s->pops[j] - s->init[j] - s->exp0[j];
		cnt[4 * j + 1] = s->exp0[j];
		cnt[4 * j + 2] = s->init[j];
	}
}

/* Importation with births: where each patch's newborns are, so that
 * importation visits its own patch's newborns only. Per patch the first
 * and the last of its newborns (none: 0xFFFFFFFF), then for each slot
 * after the agents at day 0 the next newborn of its patch, in slot order
 * (pt_tick links them). Otherwise a word, not part of a checkpoint. */
static weft_status pt_newborns(weft_model_ctx *mc, pt_state *s,
			       const void *zero)
{
	const pt_params *p = &s->params;
	size_t words = 2 * (size_t)p->patches + (p->capacity - p->agents);
	uint32_t *none;
	weft_status st;

	if (!pt_imports_on(p) || !pt_births_on(p))
		return pt_buf(mc, s, "newborns", 4, zero, &s->born);
	if (!(none = malloc(4 * words)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the newborns' links");
	memset(none, 0xFF, 4 * words);
	st = pt_state_buf(mc, s, "newborns", 4 * words, none, &s->born);
	free(none);
	return st;
}

/* The buffers of seasonality, importation and the per-patch series; a
 * word or two each when off, and then not part of a checkpoint (those
 * of runs without them stay as they were). zero: enough zero bytes. */
static weft_status pt_extras(weft_model_ctx *mc, pt_state *s, const void *zero)
{
	const pt_params *p = &s->params;
	size_t P = p->patches;
	weft_status st;

	if ((st = pt_buf(mc, s, "season",
			 s->season ? 8 * (size_t)p->season_len *
					     (p->season_patches ? P : 1)
				   : 8,
			 s->season ? (const void *)s->season : zero,
			 &s->seasbuf)))
		return st;
	st = s->imp ? pt_state_buf(mc, s, "importation", 16 * P, s->imp,
				   &s->impbuf)
		    : pt_buf(mc, s, "importation", 16, zero, &s->impbuf);
	if (st || (st = pt_newborns(mc, s, zero)))
		return st;
	if ((st = pt_buf(mc, s, "campaigns",
			 s->sia ? 4 * (PT_SIA_MAX + (size_t)p->sia * P) : 4,
			 s->sia ? (const void *)s->sia : zero, &s->siabuf)))
		return st;
	return p->incidence
		       ? pt_state_buf(mc, s, "incidence", 4 * P, zero, &s->inc)
		       : pt_buf(mc, s, "incidence", 4, zero, &s->inc);
}

/* The blocks' words (patches_shared.h, PT_BLOCK_WORDS): for the agents at
 * day 0, the bits of their dates (day 0's; pt_soon_bit) and each block's
 * patch (patches.wk, pt_block_patch). w: the agent words at day 0. */
static weft_status pt_blocks(weft_model_ctx *mc, pt_state *s, const uint32_t *w)
{
	const pt_params *p = &s->params;
	size_t blocks = ((size_t)p->capacity + PT_GROUP - 1) / PT_GROUP;
	uint32_t *m = calloc(blocks, 4 * PT_BLOCK_WORDS);
	weft_status st;

	if (!m)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the blocks' words",
				       4 * PT_BLOCK_WORDS * blocks);
	for (uint32_t a = 0; a < p->agents; a++) {
		uint32_t *b = m + PT_BLOCK_WORDS * (a / PT_GROUP);
		uint32_t j = w[a] & PT_PATCH_MASK;

		if ((w[a] >> PT_STATE_SHIFT) - PT_E < 2)
			b[1] |= pt_soon_bit((w[a] >> PT_DATE_SHIFT) &
					    PT_DATE_MASK);
		b[2] = a % PT_GROUP == 0 || b[2] == j ? j : PT_MIXED;
	}
	st = pt_state_buf(mc, s, "blocks", 4 * PT_BLOCK_WORDS * blocks, m,
			  &s->soon);
	free(m);
	return st;
}

static weft_status pt_open(weft_model_ctx *mc, pt_state *s)
{
	const pt_params *p = &s->params;
	uint32_t P = p->patches, ctl[PT_CTL_WORDS] = { 0 };
	/* The second disease mixes through the first's network. */
	int mix = p->mixing && !s->disease;
	size_t nb = mix ? 8 * ((size_t)P * P + P) : 8;
	size_t ab = 4 * (size_t)p->capacity, zb = 4 * PT_DELTAS * (size_t)P;
	uint32_t *w = calloc(1, ab > zb ? ab : zb);
	uint32_t *cnt = calloc(4 * (size_t)P, 4);
	uint32_t *due = calloc(4 * (size_t)P, 4);
	double *net = calloc(1, nb);
	weft_status st;

	if (!w || !cnt || !due || !net) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate %zu bytes of host "
				     "memory for the agents at day 0",
				     ab + nb + 32 * (size_t)P);
		goto free_host;
	}
	pt_agents0(s, w, cnt, p->after_prog ? due : NULL);
	ctl[PT_CTL_ROW] = 1;
	ctl[PT_CTL_COUNT] = p->agents;
	ctl[PT_CTL_GROUPS] =
		(uint32_t)(((uint64_t)p->agents + PT_GROUP - 1) / PT_GROUP);
	if ((mix && (st = pt_network(mc, s, net))) ||
	    (!s->disease && (st = pt_network_csv(mc, s, mix ? net : NULL))))
		goto free_host;
	/* network_file's copy is in net now. */
	free(s->net_in);
	s->net_in = NULL;
	if ((st = pt_buf(mc, s, "params", sizeof *p, p, &s->p)) ||
	    (st = pt_state_buf(mc, s, "ctl", sizeof ctl, ctl, &s->ctl)) ||
	    (st = pt_state_buf(mc, s, "agents", ab, w, &s->agent)) ||
	    (st = pt_state_buf(mc, s, "counts", 16 * (size_t)P, cnt,
			       &s->cnt)) ||
	    (st = pt_buf(mc, s, "network", nb, net, &s->net)) ||
	    (st = pt_buf(mc, s, "tables", 4 * pt_tab_words(p), s->tab,
			 &s->tabbuf)))
		goto free_host;
	/* force_after_progression's onsets and recoveries due, by the
	 * parity of the day (a word, not part of a checkpoint, without). */
	st = p->after_prog
		     ? pt_state_buf(mc, s, "due", 16 * (size_t)P, due, &s->due)
		     : pt_buf(mc, s, "due", 4, due, &s->due);
	if (st || (st = pt_blocks(mc, s, w)))
		goto free_host;
	memset(w, 0, ab > zb ? ab : zb);
	/* With campaigns, the day's chances of each patch and whether there
	 * is one (pt_campaign_today). */
	if ((st = pt_state_buf(mc, s, "thresholds",
			       4 * ((size_t)P + (p->sia ? P + 1 : 0)), w,
			       &s->thr)) ||
	    (st = pt_state_buf(mc, s, "changes", zb, w, &s->delta)) ||
	    (st = pt_extras(mc, s, w)))
		goto free_host;
	/* The second disease's kernels read the first's ages. */
	if (!s->disease && (st = pt_demog_open(mc, &s->dg, p)))
		goto free_host;
	if (!(s->host = calloc(s->n_rows, 4 * (size_t)p->row_words))) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate %llu rows",
				     (unsigned long long)s->n_rows);
		goto free_host;
	}
	memcpy(s->host + 1, cnt, 16 * (size_t)P);
	st = pt_buf(mc, s, "series", 4 * (size_t)p->row_words * s->n_rows,
		    s->host, &s->series);
	if (!st)
		st = weft_model_rows_open(mc, s->series, s->host,
					  4 * (size_t)p->row_words,
					  PT_SNAP_ROWS, &s->rows);
free_host:
	free(w);
	free(cnt);
	free(due);
	free(net);
	return st;
}

/* ---- the day ------------------------------------------------------------- */

/* Disease s's four launches of the day into l. From the first disease's
 * state f: the network and the ages (read by the deaths, written for the
 * newborns). The first's pass kills in the second's words too (other:
 * with one disease or for the second's pass, its own, unused). */
static void pt_launches(const pt_state *s, const pt_state *f, weft_launch *l)
{
	uint32_t P = s->params.patches;
	const pt_state *o = s->second ? s->second : s;
	const pt_demog *dg = &f->dg;

	l[0] = patches_pt_force_launch(
		(patches_pt_force_bufs){ .p = s->p,
					 .cnt = s->cnt,
					 .net = f->net,
					 .ctl = s->ctl,
					 .season = s->seasbuf,
					 .due = s->due,
					 .sia = s->siabuf,
					 .thr = s->thr,
					 .dg = dg->dgbuf,
					 .dob = dg->dobbuf },
		P);
	l[1] = patches_pt_agents_launch(
		(patches_pt_agents_bufs){ .p = s->p,
					  .ctl = s->ctl,
					  .thr = s->thr,
					  .tab = s->tabbuf,
					  .agent = s->agent,
					  .delta = s->delta,
					  .dg = dg->dgbuf,
					  .dob = dg->dobbuf,
					  .due = s->due,
					  .other = o->agent,
					  .odelta = o->delta,
					  .soon = s->soon },
		(uint32_t)(((uint64_t)s->params.capacity + PT_GROUP - 1) /
			   PT_GROUP));
	/* Over the groups in use, a count on the device (births add). */
	l[1].extent_buf = s->ctl;
	l[1].extent_offset = 4 * PT_CTL_GROUPS;
	l[2] = patches_pt_tally_launch(
		(patches_pt_tally_bufs){ .p = s->p,
					 .ctl = s->ctl,
					 .cnt = s->cnt,
					 .delta = s->delta,
					 .series = s->series,
					 .tab = s->tabbuf,
					 .agent = s->agent,
					 .imp = s->impbuf,
					 .inc = s->inc,
					 .born = s->born,
					 .due = s->due,
					 .soon = s->soon },
		P);
	l[3] = patches_pt_tick_launch(
		(patches_pt_tick_bufs){ .p = s->p,
					.ctl = s->ctl,
					.series = s->series,
					.delta = s->delta,
					.agent = s->agent,
					.dg = dg->dgbuf,
					.dob = dg->dobbuf,
					.born = s->born,
					.soon = s->soon },
		1);
}

/* The day: the first disease's four launches, the second's four (with
 * diseases = 2), and with ages two more: the rows of ages.csv
 * (demography.c). */
static weft_status pt_set_step(weft_model_ctx *mc, pt_state *s)
{
	weft_launch l[10];
	uint32_t n = 4;

	pt_launches(s, s, l);
	if (s->second) {
		pt_launches(s->second, s, l + n);
		n += 4;
	}
	return weft_model_set_step(
		mc, l, n + pt_demog_launches(&s->dg, s->ctl, s->agent, l + n));
}

/* Disease s's output file called name ("counts.csv"; the second
 * disease's "counts_2.csv"). */
static weft_status pt_output_open(weft_model_ctx *mc, const pt_state *s,
				  const char *name, weft_output **out)
{
	char full[64];
	size_t n = strlen(name) - 4; /* less ".csv" */

	snprintf(full, sizeof full, "%.*s%s.csv", (int)n, name,
		 s->disease ? "_2" : "");
	return weft_model_output_open(mc, full, out);
}

static weft_status pt_outputs_open(weft_model_ctx *mc, pt_state *s)
{
	weft_status st;

	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if (s->second && (st = pt_outputs_open(mc, s->second)))
		return st;
	if ((st = pt_output_open(mc, s, "counts.csv", &s->csv)) ||
	    (st = weft_output_printf(s->csv, "day,S,E,I,R\n")) ||
	    (st = pt_output_open(mc, s, "patches.csv", &s->pcsv)) ||
	    (st = weft_output_printf(s->pcsv, "day,patch,S,E,I,R\n")))
		return st;
	if (!s->params.incidence)
		return WEFT_OK;
	if ((st = pt_output_open(mc, s, "infectious.csv", &s->icsv)) ||
	    (st = pt_output_open(mc, s, "incidence.csv", &s->ncsv)) ||
	    (st = weft_output_printf(s->icsv, "day")) ||
	    (st = weft_output_printf(s->ncsv, "day")))
		return st;
	for (uint32_t j = 0; j < s->params.patches; j++)
		if ((st = weft_output_printf(s->icsv, ",p%u", j)) ||
		    (st = weft_output_printf(s->ncsv, ",p%u", j)))
			return st;
	if ((st = weft_output_printf(s->icsv, "\n")))
		return st;
	return weft_output_printf(s->ncsv, "\n");
}

/* diseases = 2: the second disease, s->second, its parameters read from
 * the keys ending in _2, its buffers opened beside the first's. */
static weft_status pt_second(weft_model_ctx *mc, pt_state *s)
{
	pt_state *d;
	weft_status st;

	if (weft_model_int(mc, "diseases") < 2)
		return WEFT_OK;
	if (!(d = s->second = calloc(1, sizeof *d)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the second disease");
	d->disease = 1;
	if ((st = pt_read_params(mc, d)) || (st = pt_tables(mc, d)))
		return st;
	return pt_open(mc, d);
}

static weft_status pt_setup(weft_model_ctx *mc, void **out)
{
	pt_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	if ((st = pt_read_params(mc, s)) || (st = pt_tables(mc, s)) ||
	    (st = pt_open(mc, s)) || (st = pt_second(mc, s)) ||
	    (st = pt_set_step(mc, s)))
		return st;
	return pt_outputs_open(mc, s);
}

/* ---- outputs ------------------------------------------------------------- */

static uint64_t pt_rows_due(const pt_state *s, uint64_t steps_done)
{
	uint64_t every = s->params.every;
	uint64_t rows = 1 + steps_done / every;

	if (steps_done == s->params.last_step && steps_done % every != 0)
		rows++;
	return rows < s->n_rows ? rows : s->n_rows;
}

static weft_status pt_collect(weft_model_ctx *mc, void *state,
			      uint64_t steps_done, unsigned slot)
{
	pt_state *s = state;
	weft_status st;

	if (s->second && (st = pt_collect(mc, s->second, steps_done, slot)))
		return st;
	return weft_model_rows_collect(mc, s->rows, slot,
				       pt_rows_due(s, steps_done));
}

/* A row of infectious.csv and incidence.csv: the day, then a column per
 * patch. */
static weft_status pt_emit_wide(pt_state *s, const uint32_t *row)
{
	uint32_t P = s->params.patches;
	weft_status st;

	if ((st = weft_output_printf(s->icsv, "%u", row[PT_ROW_DAY])) ||
	    (st = weft_output_printf(s->ncsv, "%u", row[PT_ROW_DAY])))
		return st;
	for (uint32_t j = 0; j < P; j++)
		if ((st = weft_output_printf(s->icsv, ",%u",
					     row[1 + 4 * (size_t)j + 2])) ||
		    (st = weft_output_printf(s->ncsv, ",%u",
					     row[1 + 4 * (size_t)P + j])))
			return st;
	if ((st = weft_output_printf(s->icsv, "\n")))
		return st;
	return weft_output_printf(s->ncsv, "\n");
}

static weft_status pt_emit_row(pt_state *s, const uint32_t *row)
{
	uint64_t t[4] = { 0, 0, 0, 0 };
	weft_status st;

	for (uint32_t j = 0; j < s->params.patches; j++) {
		const uint32_t *c = row + 1 + 4 * (size_t)j;

		for (int k = 0; k < 4; k++)
			t[k] += c[k];
		if ((st = weft_output_printf(s->pcsv, "%u,%u,%u,%u,%u,%u\n",
					     row[PT_ROW_DAY], j, c[0], c[1],
					     c[2], c[3])))
			return st;
	}
	return weft_output_printf(
		s->csv, "%u,%llu,%llu,%llu,%llu\n", row[PT_ROW_DAY],
		(unsigned long long)t[0], (unsigned long long)t[1],
		(unsigned long long)t[2], (unsigned long long)t[3]);
}

static weft_status pt_emit(weft_model_ctx *mc, void *state, uint64_t steps_done,
			   unsigned slot)
{
	pt_state *s = state;
	uint64_t first, end;
	weft_status st;

	if (s->second && (st = pt_emit(mc, s->second, steps_done, slot)))
		return st;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t r = first; r < end && s->csv; r++)
		if ((st = pt_emit_row(s, s->host + r * s->params.row_words)) ||
		    (s->icsv &&
		     (st = pt_emit_wide(s, s->host + r * s->params.row_words))))
			return st;
	return WEFT_OK;
}

/* The summary's line on importation: the agents imported in all. */
static weft_status pt_summary_imports(weft_model_ctx *mc, const pt_state *s)
{
	const pt_params *p = &s->params;
	uint32_t *imp = malloc(16 * (size_t)p->patches);
	uint64_t total = 0;
	weft_status st;

	if (!imp)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the importation");
	st = weft_model_download(mc, imp, s->impbuf, 0,
				 16 * (size_t)p->patches);
	for (uint32_t j = 0; !st && j < p->patches; j++)
		total += imp[4 * j + 3];
	free(imp);
	if (st)
		return st;
	if (p->pressure)
		return weft_model_summary(mc, "importation pressure",
					  "%llu exposed from day %u to before "
					  "day %u",
					  (unsigned long long)total,
					  p->imp_start, p->imp_end);
	return weft_model_summary(mc, "importation",
				  "%llu infected, every %u days from day %u "
				  "to before day %u",
				  (unsigned long long)total, p->imp_period,
				  p->imp_start, p->imp_end);
}

/* Disease s's last counts into t (S, E, I, R in all) and its peak of
 * infectious. */
static void pt_totals(const pt_state *s, uint64_t *t, uint64_t *peak,
		      uint64_t *peak_day)
{
	const pt_params *p = &s->params;
	uint64_t rows = weft_model_rows_read(s->rows);

	*peak = *peak_day = 0;
	for (uint64_t r = 0; r < rows; r++) {
		const uint32_t *row = s->host + r * p->row_words;
		uint64_t inf = 0;

		for (uint32_t j = 0; j < p->patches; j++)
			inf += row[1 + 4 * (size_t)j + 2];
		if (inf > *peak) {
			*peak = inf;
			*peak_day = row[PT_ROW_DAY];
		}
	}
	for (uint32_t j = 0; rows && j < p->patches; j++)
		for (int k = 0; k < 4; k++)
			t[k] += s->host[(rows - 1) * p->row_words + 1 +
					4 * (size_t)j + k];
}

/* The summary's lines of disease s: its durations, peak and final
 * counts, each named with prefix ("" or "disease 2 "). immune: the agents
 * its campaigns immunized, recovered but not infected (not in the attack
 * rate; those of them who died are not in R either, so it may then be a
 * little low). */
static weft_status pt_summary_disease(weft_model_ctx *mc, const pt_state *s,
				      const char *prefix, uint32_t immune)
{
	const pt_params *p = &s->params;
	uint64_t t[4] = { 0, 0, 0, 0 }, peak, peak_day, r;
	char what[3][64];

	pt_totals(s, t, &peak, &peak_day);
	snprintf(what[0], sizeof what[0], "%sdurations", prefix);
	snprintf(what[1], sizeof what[1], "%speak infectious", prefix);
	snprintf(what[2], sizeof what[2], "%sfinal S/E/I/R", prefix);
	weft_model_summary(mc, what[0],
			   "exposed %u..%u days, infectious %u..%u days",
			   p->exp_min, p->exp_min + p->exp_len - 1, p->inf_min,
			   p->inf_min + p->inf_len - 1);
	/* The peak of the rows written: with a row every few days, say
	 * so (the days between are not seen). */
	weft_model_summary(mc, what[1], "%llu on day %llu%s",
			   (unsigned long long)peak,
			   (unsigned long long)peak_day,
			   p->every > 1 ? " (of the rows written)" : "");
	r = t[3] > immune ? t[3] - immune : 0;
	return weft_model_summary(
		mc, what[2], "%llu / %llu / %llu / %llu (attack %.4f%s)",
		(unsigned long long)t[0], (unsigned long long)t[1],
		(unsigned long long)t[2], (unsigned long long)t[3],
		(double)(t[1] + t[2] + r) / p->agents,
		immune ? "; R's immunized by campaigns not counted" : "");
}

static weft_status pt_finish(weft_model_ctx *mc, void *state)
{
	pt_state *s = state;
	const pt_params *p = &s->params;
	uint64_t t[4] = { 0, 0, 0, 0 }, peak, peak_day;
	uint32_t ctl[PT_CTL_WORDS];
	weft_status st;

	pt_totals(s, t, &peak, &peak_day);
	if ((st = weft_model_download(mc, ctl, s->ctl, 0, sizeof ctl)))
		return st;
	if (ctl[PT_CTL_OVER])
		return weft_model_fail(
			mc, WEFT_E_MODEL,
			"the agents ran out of capacity: %u births found no "
			"slot among [patches] capacity = %u (%s); raise it to "
			"at least %llu",
			ctl[PT_CTL_OVER], p->capacity,
			weft_model_where(mc, "capacity"),
			(unsigned long long)p->capacity + ctl[PT_CTL_OVER]);
	weft_model_summary(mc, "agents", "%u in %u patch%s", p->agents,
			   p->patches, p->patches == 1 ? "" : "es");
	if (p->death_thr || pt_births_on(p) || s->dg.n_mort)
		weft_model_summary(mc, "births and deaths",
				   "%u born, %u alive at the end, capacity %u",
				   ctl[PT_CTL_BORN],
				   (uint32_t)(t[0] + t[1] + t[2] + t[3]),
				   p->capacity);
	if (pt_imports_on(p) && (st = pt_summary_imports(mc, s)))
		return st;
	if (p->sia)
		weft_model_summary(
			mc, "campaigns", "%u agents immunized in %u campaign%s",
			ctl[PT_CTL_IMMUNE], p->sia, p->sia == 1 ? "" : "s");
	if ((st = pt_fert_finish(mc, &s->dg, p, ctl[PT_CTL_STEP])) ||
	    (st = pt_demog_finish(mc, &s->dg)) ||
	    (st = pt_summary_disease(mc, s, "", ctl[PT_CTL_IMMUNE])))
		return st;
	return s->second ? pt_summary_disease(mc, s->second, "disease 2 ", 0)
			 : WEFT_OK;
}

static void pt_teardown(weft_model_ctx *mc, void *state)
{
	pt_state *s = state;

	if (!s)
		return;
	pt_teardown(mc, s->second);
	weft_model_rows_close(mc, s->rows);
	weft_model_free(mc, s->series);
	weft_model_free(mc, s->inc);
	weft_model_free(mc, s->born);
	weft_model_free(mc, s->impbuf);
	weft_model_free(mc, s->siabuf);
	weft_model_free(mc, s->seasbuf);
	weft_model_free(mc, s->delta);
	weft_model_free(mc, s->due);
	weft_model_free(mc, s->thr);
	weft_model_free(mc, s->soon);
	weft_model_free(mc, s->tabbuf);
	weft_model_free(mc, s->net);
	weft_model_free(mc, s->cnt);
	weft_model_free(mc, s->agent);
	weft_model_free(mc, s->ctl);
	weft_model_free(mc, s->p);
	free(s->host);
	pt_demog_free(mc, &s->dg);
	pt_free_host(s);
	free(s);
}

/* ---- the entry ----------------------------------------------------------- */

static const weft_plot_curve pt_curves[] = {
	{ "S", "susceptible", "#1f77b4" },
	{ "E", "exposed", "#9467bd" },
	{ "I", "infectious", "#ff7f0e" },
	{ "R", "recovered", "#2ca02c" },
};

static const weft_plot_desc pt_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "counts.csv",
	.title = "SEIR in patches (LASER's)",
	.x = "day",
	.xlabel = "day",
	.ylabel = "agents",
	.curves = pt_curves,
	.n_curves = sizeof pt_curves / sizeof pt_curves[0],
};

static const weft_outcome_desc pt_outcomes[] = {
	{ "final_R", "R", WEFT_OUTCOME_LAST, NULL, 1.0 },
	{ "peak_I", "I", WEFT_OUTCOME_MAX, NULL, 1.0 },
};

static const weft_ensemble_desc pt_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "counts.csv",
	.x = "day",
	.compare = "I",
	.outcomes = pt_outcomes,
	.n_outcomes = sizeof pt_outcomes / sizeof pt_outcomes[0],
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "patches", /* weft-model-patches.so, [patches] */
	.version = PT_VERSION,
	.summary = "SEIR with a force of infection per patch and gravity "
		   "mixing between patches (IDM's LASER, laser-generic 1.1)",
	.keys = pt_keys,
	.n_keys = sizeof pt_keys / sizeof pt_keys[0],
	.program = &patches_program,
	.sigs = patches_sigs,
	.setup = pt_setup,
	.check = pt_check,
	.estimate = pt_estimate,
	.finish = pt_finish,
	.teardown = pt_teardown,
	.collect = pt_collect,
	.emit = pt_emit,
	/* `weft conform`: three patches mixed through the gravity network,
	 * a fast epidemic, births and deaths, seasonality, importation and
	 * the per-patch series, 60 days. */
	.conform_sets = "patches.populations=3000,2000,1500\n"
			"patches.latitudes=47.6,47.2,46.9\n"
			"patches.longitudes=-122.3,-122.4,-121.9\n"
			"patches.initial_infected=20,0,0\n"
			"patches.beta=0.6\n"
			"patches.cbr=80\n"
			"patches.cdr=40\n"
			"patches.seasonality_factor=0.3\n"
			"patches.seasonality_phase=20\n"
			"patches.importation_period=5\n"
			"patches.importation_count=3\n"
			"patches.importation_patchlist=1,2,2\n"
			"patches.importation_start=2\n"
			"patches.patch_series=true\n"
			"simulation.steps=60\n",
	.plot = &pt_plot,
	.ensemble = &pt_ensemble,
	.checkpoints = 1,
};
