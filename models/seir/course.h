/*
 * models/seir/course.h - the disease course and the interventions as the
 * host prepares them for the kernels: duration distributions turned into
 * tables of integer thresholds, per-age values, transmissibility classes,
 * the interventions string, and the day-by-layer beta table. Pure
 * functions of their arguments (no model context), so that tests can call
 * them directly; parse errors are written to `why` (what is wrong, without
 * the key's location, which the caller adds).
 */
#ifndef SEIR_COURSE_H
#define SEIR_COURSE_H

#include <stddef.h>
#include <stdint.h>
#include <weft/graph.h>
#include <weft/kernel_host.h>

#include "seir_shared.h"

/* ---- durations ---------------------------------------------------------- */

typedef enum seir_dist_kind {
	SEIR_DIST_FIXED,     /* fixed(DAYS) */
	SEIR_DIST_GEOMETRIC, /* geometric(MEAN): P(d) = q (1 - q)^(d - 1) */
	SEIR_DIST_GAMMA,     /* gamma(MEAN, SD), rounded to whole days */
	SEIR_DIST_LOGNORMAL  /* lognormal(MEAN, SD), rounded to whole days */
} seir_dist_kind;

typedef struct seir_dist {
	seir_dist_kind kind;
	double mean, sd; /* sd is 0 for fixed and unused for geometric */
} seir_dist;

/* Parse a duration: 0, or -1 with the reason in why. */
int weft__seir_dist_parse(const char *text, seir_dist *d, char *why,
			  size_t why_size);
/* The continuous distribution function of gamma and lognormal (for the
 * tests; fixed and geometric are already in days). */
double weft__seir_dist_cdf(const seir_dist *d, double x);
/* p[d - 1] = probability of d days, d = 1..SEIR_DUR_MAX: a continuous
 * value is rounded to the nearest day, values below 1.5 give 1 day and
 * the tail from SEIR_DUR_MAX - 0.5 on gives SEIR_DUR_MAX (likewise the
 * geometric tail). The p sum to 1. */
void weft__seir_dist_probs(const seir_dist *d, double p[SEIR_DUR_MAX]);
/* A duration that is a sum of independent terms, each rounded to whole
 * days on its own (0 allowed), the sum then taken to 1..SEIR_DUR_MAX:
 * "lognormal(1.1, 0.9) + lognormal(8, 2)" is Covasim's inf2sym +
 * mild2rec. One term is a plain duration (weft__seir_dist_probs). */
#define SEIR_DUR_TERMS 4
typedef struct seir_dur {
	int n;
	seir_dist term[SEIR_DUR_TERMS];
} seir_dur;

/* Parse "TERM + TERM + ...": 0, or -1 with the reason in why. */
int weft__seir_dur_parse(const char *text, seir_dur *d, char *why,
			 size_t why_size);
/* p[d - 1] = probability of d days, d = 1..SEIR_DUR_MAX: the terms'
 * distributions on 0..SEIR_DUR_MAX days convolved, 0 days counted as 1
 * and sums beyond SEIR_DUR_MAX as SEIR_DUR_MAX. */
void weft__seir_dur_probs(const seir_dur *d, double p[SEIR_DUR_MAX]);

/* The stages of a severe course from its duration's terms
 * (seir_stage_days, seir_shared.h): the last term is the time from the
 * last stage to recovery or death (SEIR_STAGE_REST); on a critical path
 * (critical != 0) the one before it is the time from severe to critical
 * (SEIR_STAGE_TO_CRIT, else 0 days); the terms before are summed into
 * the time from onset to severe (SEIR_STAGE_TO_SEV; none: 0 days). Each
 * a table of cumulative thresholds over 0..SEIR_DUR_MAX days. Their sum,
 * taken to 1..SEIR_DUR_MAX, has the distribution of weft__seir_dur_probs
 * (the terms are independent). */
void weft__seir_stage_tables(const seir_dur *d, int critical,
			     uint32_t out[SEIR_STAGES][SEIR_DUR_MAX + 1]);

/* Cumulative thresholds for seir_duration(): cum[d - 1] = round(2^32 x
 * P(duration <= d)), the last one 2^32 - 1. */
void weft__seir_dist_table(const double p[SEIR_DUR_MAX],
			   uint32_t cum[SEIR_DUR_MAX]);

/* ---- per-age values, transmissibility ----------------------------------- */

/* "v" (every bin) or "v0, v1, ..., v9" (bins 0-9, ..., 80-89, 90+), each
 * from lo to hi: 0, or -1 with the reason in why. */
int weft__seir_parse_by_age(const char *text, double lo, double hi,
			    double out[SEIR_AGE_BINS], char *why,
			    size_t why_size);
/* The SEIR_REL_CLASSES equally likely classes of Covasim's beta_dist: a
 * negative binomial of mean 100 and dispersion k, times 0.01 (mean 1):
 * class c is the mean of the distribution between its quantiles c/256
 * and (c+1)/256, the classes scaled so that they average exactly 1.
 * k = 0: every class is 1. */
void weft__seir_rel_trans(double k, double out[SEIR_REL_CLASSES]);

/* The early days of Covasim's viral load for an infectious period of dur
 * days, counted as Covasim 3.1 counts them with its default 32-bit
 * precision: day e is early when e / dur (in double precision) is below
 * the turning point rounded to float, frac or, when frac x dur exceeds
 * cap, cap / dur (both in float). The rounding makes some periods one
 * early day longer than frac x dur or cap say (10 days: 4 early days, not
 * 3; 14 days: 5, not 4). */
uint32_t weft__seir_viral_early(double frac, double cap, uint32_t dur);

/* ---- interventions and the beta table ----------------------------------- */

typedef struct seir_intervention {
	unsigned layers;      /* bit l: layer l */
	uint32_t first, last; /* days, inclusive */
	double factor;	      /* multiplies beta on those layers and days */
} seir_intervention;

#define SEIR_MAX_INTERVENTIONS 64

/* Parse "LAYERS FIRST-LAST FACTOR, ..." (LAYERS: home, school, work,
 * community or all, joined by '+'): 0, or -1 with the reason (naming the
 * bad entry) in why. */
int weft__seir_interventions_parse(const char *text, seir_intervention *out,
				   size_t *n, char *why, size_t why_size);

typedef struct seir_beta_spec {
	double beta;			/* per contact per day */
	double layer_beta[SEIR_LAYERS]; /* population's layer weights */
	const seir_intervention *iv;	/* interventions */
	size_t n_iv;
	double iso_factor;  /* transmission left to isolating agents */
	uint32_t iso_start; /* first day isolation applies */
	uint32_t n_days;
	/* Seasonal forcing: beta x (1 + season_factor cos(2 pi (d -
	 * season_phase) / 365)) on day d; season_factor 0: none. */
	double season_factor, season_phase;
} seir_beta_spec;

/* The beta table's last row: the last day on which it changes (at most
 * n_days). */
uint32_t weft__seir_beta_last(const seir_beta_spec *b);
/* The beta table: rows 0..*last of SEIR_BETA_COLS Q28 words, day d using
 * row min(d, *last); malloc()ed, NULL when out of memory. */
uint32_t *weft__seir_beta_table(const seir_beta_spec *b, uint32_t *last);

/* ---- numbers and fixed point -------------------------------------------- */

/* strtod() in the C locale, whatever the application chose. */
double weft__seir_strtod(const char *s, char **end);

/* A probability as a threshold for seir_chance(): floor(p 2^32), 1
 * giving 2^32 - 1 (certain). */
uint32_t weft__seir_threshold(double p);
/* round(x 2^16) and round(x 2^28), saturated at 2^32 - 1. */
uint32_t weft__seir_q16(double x);
uint32_t weft__seir_q28(double x);

#endif /* SEIR_COURSE_H */
