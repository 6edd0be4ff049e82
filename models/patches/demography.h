/*
 * demography.h - the patch model's ages and mortality by age (demography.c;
 * models/patches/patches.md, "Ages and mortality by age"): the keys, the
 * tables read from the age pyramid and the death rates, the dates of
 * birth at day 0, the buffers and launches, and ages.csv. Also what the
 * model's other host files share: patches.c's file helpers and the
 * campaigns' table (campaigns.c). The network from a file is
 * weft/patches.h's (weft_migration_network_read).
 */
#ifndef PATCHES_DEMOGRAPHY_H
#define PATCHES_DEMOGRAPHY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <weft/kernel_host.h>
#include <weft/model.h>
#include <weft/patches.h>

#include "patches_shared.h"

/* Births by age of mother (fertility.c), after the keys of ages. */
#define PT_FERT_KEYS                                                           \
	{ "fertility_rates",                                                   \
	  WEFT_KEY_STRING,                                                     \
	  "",                                                                  \
	  0,                                                                   \
	  0,                                                                   \
	  NULL,                                                                \
	  "a CSV file of births per 1000 women per year by the mother's "      \
	  "age: rows age,value, lower edges in years, increasing, at most "    \
	  "32 bins; the last bin one year wide unless a last row of value 0 "  \
	  "gives its upper edge (as Starsim's ss.Pregnancy reads an ASFR "     \
	  "table). Agents are women with the chance female_share; each day a " \
	  "woman of fertility_min_age to fertility_max_age who is not "        \
	  "pregnant conceives with 1 - exp(-r/1000/365), r her bin's rate "    \
	  "raised to one per woman not pregnant (her bin's women over those "  \
	  "not pregnant, Starsim's make_p_conceive), and delivers a baby in "  \
	  "her patch pregnancy_weeks later; her death ends it. Needs "         \
	  "age_pyramid, replaces cbr; a relative path is taken from the INI "  \
	  "file's directory; empty: none" },                                   \
		{ "fertility_min_age",                                         \
		  WEFT_KEY_REAL,                                               \
		  "15",                                                        \
		  0,                                                           \
		  200,                                                         \
		  NULL,                                                        \
		  "the youngest age of a mother, years (Starsim's "            \
		  "ss.Pregnancy min_age)" },                                   \
		{ "fertility_max_age",                                         \
		  WEFT_KEY_REAL,                                               \
		  "50",                                                        \
		  0,                                                           \
		  200,                                                         \
		  NULL,                                                        \
		  "the oldest age of a mother, years, inclusive (Starsim's "   \
		  "max_age)" },                                                \
		{ "pregnancy_weeks",                                           \
		  WEFT_KEY_STRING,                                             \
		  "32:0.001, 33:0.002, 34:0.005, 35:0.012, 36:0.026, "         \
		  "37:0.05, 38:0.087, 39:0.134, 40:0.188, 41:0.226, 42:0.269", \
		  0,                                                           \
		  0,                                                           \
		  NULL,                                                        \
		  "weeks of a pregnancy and their shares, WEEKS:SHARE "        \
		  "separated by commas, weeks increasing from 1 to 60 (one "   \
		  "number alone: every pregnancy that long); default "         \
		  "Starsim's dur_pregnancy" },                                 \
		{ "female_share",                                              \
		  WEFT_KEY_REAL,                                               \
		  "0.5",                                                       \
		  0,                                                           \
		  1,                                                           \
		  NULL,                                                        \
		  "with fertility_rates, the chance that an agent at day 0 "   \
		  "or a newborn is a woman (Starsim's ss.People and "          \
		  "sex_ratio)" },                                              \
	{                                                                      \
		"pregnancy_burnin", WEFT_KEY_BOOL, "true", 0, 0, NULL,         \
			"with fertility_rates, start the pregnancies under "   \
			"way at day 0: the longest pregnancy's days before "   \
			"day 0 run with the ages of day 0, conceptions only "  \
			"(Starsim's burnin; its burn-in also adds the babies " \
			"born during it, weft's does not: the age pyramid "    \
			"holds day 0's infants)"                               \
	}

/* The keys, appended to [patches]'s table. */
#define PT_DEMOG_KEYS                                                          \
	{ "age_pyramid",                                                       \
	  WEFT_KEY_STRING,                                                     \
	  "",                                                                  \
	  0,                                                                   \
	  0,                                                                   \
	  NULL,                                                                \
	  "a CSV file of the ages at day 0: rows age,value, the lower edge "   \
	  "of an age bin in years (the first 0, increasing) and its count or " \
	  "share; ages are uniform within a bin, the last bin as wide as the " \
	  "one before unless a last row of value 0 gives its upper edge "      \
	  "(Starsim's ss.People(age_data=...)); a first line that is not "     \
	  "numbers is a header, a relative path is taken from the INI "        \
	  "file's directory. Agents get dates of birth, ages.csv is written; " \
	  "empty: no ages" },                                                  \
		{ "death_rates",                                               \
		  WEFT_KEY_STRING,                                             \
		  "",                                                          \
		  0,                                                           \
		  0,                                                           \
		  NULL,                                                        \
		  "a CSV file of deaths per 1000 per year by age: rows "       \
		  "age,value, lower edges in years (the first 0, "             \
		  "increasing), the last bin open; each day a living agent "   \
		  "dies with 1 - exp(-value/1000/365) of its age bin "         \
		  "(Starsim's ss.Deaths(death_rate=...) with dt one day); "    \
		  "needs age_pyramid, replaces cdr; empty: none" },            \
		{ "ages_every",                                                \
		  WEFT_KEY_INT,                                                \
		  "365",                                                       \
		  1,                                                           \
		  4294967295.0,                                                \
		  NULL,                                                        \
		  "days between rows of ages.csv (the living by age bin of "   \
		  "age_pyramid), day 0 the first" },                           \
		{ "cbr_mode",                                                  \
		  WEFT_KEY_ENUM,                                               \
		  "laser",                                                     \
		  0,                                                           \
		  0,                                                           \
		  "laser|starsim",                                             \
		  "how cbr becomes a daily birth rate per agent: "             \
		  "laser, "                                                    \
		  "(1 + cbr/1000)^(1/365) - 1 (LASER's BirthsByCBR); "         \
		  "starsim, 1 - (1 - cbr/1000)^(1/365) (Starsim's "            \
		  "ss.Births(birth_rate=ss.peryear(cbr)) with dt one "         \
		  "day); default laser, LASER's" },                            \
		{ "cdr_mode",                                                  \
		  WEFT_KEY_ENUM,                                               \
		  "laser",                                                     \
		  0,                                                           \
		  0,                                                           \
		  "laser|starsim|measles",                                     \
		  "how cdr becomes a daily chance of death: laser, 1 - "       \
		  "exp(-(1 - (1 - cdr/1000)^(1/365))) (LASER's "               \
		  "MortalityByCDR); starsim, 1 - exp(-cdr/1000/365) "          \
		  "(Starsim's ss.Deaths(death_rate=ss.peryear(cdr)) "          \
		  "with dt one day); measles, (1 + cdr/1000)^(1/365) - "       \
		  "1 (laser-measles' VitalDynamicsProcess, whose "             \
		  "Poisson number of deaths a day, among all the "             \
		  "living, has the same mean); default laser, LASER's" },      \
		PT_FERT_KEYS

#define PT_YEAR_DAYS 365.0 /* Starsim's days per year (and LASER's) */

/* A table of age,value rows from the file a key names: n rows (malloc'd
 * age and val); errors name the key's INI line, the file and its line.
 * Set any_start before reading for a table whose first age need not be
 * 0. */
typedef struct pt_rows {
	double *age, *val;
	uint32_t n, last_line; /* rows, the line of the last */
	int any_start;
} pt_rows;

weft_status pt_read_rows(weft_model_ctx *mc, const char *key, pt_rows *r);
weft_status pt_rows_fail(weft_model_ctx *mc, const char *key, const char *path,
			 uint32_t line, const char *what);
/* An age in years as a lower edge in days: the first day of that age. */
uint32_t pt_edge_days(double years);

typedef struct pt_demog {
	uint32_t *dg; /* buffer dg's words (demography_shared.h) */
	size_t dg_words;
	uint32_t n_mort, n_bins, every, rows;
	uint32_t *cum;	    /* pyramid: cumulative 32-bit thresholds */
	uint32_t *lo, *hi;  /* pyramid: the bins' edges in days */
	double *death_rate; /* death_rates: per 1000 per year, by bin */
	uint32_t *ages;	    /* host copy of buffer ages */
	weft_buf *dgbuf, *dobbuf, *agebuf;
	/* fertility_rates (fertility.c) */
	uint32_t *ft; /* the fertility table (PT_FT_*); NULL: none */
	uint32_t ft_words, n_fert;
	double fert_day; /* the most births a day per agent: capacity's */
	int burnin;
	uint32_t preg0; /* pregnant at day 0 */
} pt_demog;

/* The daily birth rate per agent of cbr by cbr_mode. */
double pt_demog_birth_rate(weft_model_ctx *mc, double cbr);
/* The daily chance of death of cdr by cdr_mode. */
double pt_demog_death_chance(weft_model_ctx *mc, double cdr);
/* Reads age_pyramid, death_rates and ages_every; steps: the run's days. */
weft_status pt_demog_read(weft_model_ctx *mc, pt_demog *d, uint64_t steps);
/* The buffers dg, dob (capacity words, the agents' dates of birth at day
 * 0 drawn) and ages (day 0's row counted). */
weft_status pt_demog_open(weft_model_ctx *mc, pt_demog *d, const pt_params *p);
/* The launches that count the ages (none without age_pyramid) into l;
 * returns their number. */
uint32_t pt_demog_launches(const pt_demog *d, weft_buf *ctl, weft_buf *agent,
			   weft_launch *l);
/* ages.csv and the summary's lines. */
weft_status pt_demog_finish(weft_model_ctx *mc, pt_demog *d);
void pt_demog_free_host(pt_demog *d);
void pt_demog_free(weft_model_ctx *mc, pt_demog *d);

/* fertility.c's: reads fertility_rates and its keys into d->ft (after
 * the pyramid's); the words of the dob buffer (pt_fert_open: the agents'
 * sexes, the burn-in, day 0's counts) and its summary. */
weft_status pt_fert_read(weft_model_ctx *mc, pt_demog *d, uint64_t steps);
size_t pt_fert_words(const pt_params *p);
void pt_fert_open(pt_demog *d, const pt_params *p, uint32_t *dob);
weft_status pt_fert_finish(weft_model_ctx *mc, pt_demog *d, const pt_params *p,
			   uint32_t days);

/* patches.c's: the path a key names, a relative one from the INI file's
 * directory. */
void pt_file_path(weft_model_ctx *mc, const char *key, char *out, size_t size);
/* patches.c's: the file key names opened for reading into *f, its path
 * into path; an error names the key, its INI line and the path. */
weft_status pt_file_open(weft_model_ctx *mc, const char *key, char *path,
			 size_t size, FILE **f);
/* demography.c's: a chance as a 32-bit threshold. */
uint32_t pt_threshold(double prob);
/* campaigns.c's: [patches] sia's table (patches_shared.h, PT_SIA_MAX). */
weft_status pt_sia_read(weft_model_ctx *mc, uint32_t P, uint64_t steps,
			uint32_t **table, uint32_t *n);

#endif
