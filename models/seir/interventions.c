/*
 * models/seir/interventions.c - the `interventions` string and the beta
 * table it shapes (course.h).
 *
 *   interventions = school 30-90 0, work 40-80 0.5, all 45-60 0.3
 *
 * Entries are separated by commas; each is LAYERS FIRST-LAST FACTOR:
 * layers (home, school, work, community, all; several joined by '+'), an
 * inclusive range of days, and a factor >= 0 that multiplies beta on
 * those layers and days. Overlapping entries multiply. (Commas, not
 * semicolons: " ;" starts a comment in an INI value.)
 */

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/patches.h>

#include "course.h"

static const char *const layer_names[SEIR_LAYERS] = { "home", "school", "work",
						      "community" };

static const char iv_form[] = "expected LAYERS FIRST-LAST FACTOR, for "
			      "example 'school 30-90 0'";

/* Layer names joined by '+' (in a copy of one word). */
static int iv_layers(char *word, unsigned *mask, char *why, size_t why_size,
		     const char *entry)
{
	char *save = NULL;

	*mask = 0;
	for (char *name = strtok_r(word, "+", &save); name;
	     name = strtok_r(NULL, "+", &save)) {
		int l;
		if (strcmp(name, "all") == 0) {
			*mask |= (1u << SEIR_LAYERS) - 1u;
			continue;
		}
		for (l = 0; l < SEIR_LAYERS; l++)
			if (strcmp(name, layer_names[l]) == 0)
				break;
		if (l == SEIR_LAYERS) {
			snprintf(why, why_size,
				 "'%s': unknown layer '%s' (layers: home, "
				 "school, work, community, all)",
				 entry, name);
			return -1;
		}
		*mask |= 1u << l;
	}
	if (*mask == 0) {
		snprintf(why, why_size, "'%s': %s", entry, iv_form);
		return -1;
	}
	return 0;
}

/* FIRST-LAST, whole days from 1. */
static int iv_days(const char *word, seir_intervention *iv, char *why,
		   size_t why_size, const char *entry)
{
	unsigned long long first, last;
	int used = 0;

	if (sscanf(word, "%llu-%llu%n", &first, &last, &used) != 2 ||
	    word[used] != '\0' || !isdigit((unsigned char)word[0]) ||
	    first < 1 || first > 4000000000ull || last > 4000000000ull) {
		snprintf(why, why_size,
			 "'%s': '%s' is not a range of days FIRST-LAST (whole "
			 "days from 1)",
			 entry, word);
		return -1;
	}
	if (last < first) {
		snprintf(why, why_size,
			 "'%s': the last day %llu comes before the first %llu",
			 entry, last, first);
		return -1;
	}
	iv->first = (uint32_t)first;
	iv->last = (uint32_t)last;
	return 0;
}

static int iv_factor(const char *word, double *f, char *why, size_t why_size,
		     const char *entry)
{
	char *end;
	double v = weft__seir_strtod(word, &end);

	if (end == word || *end != '\0' || !isfinite(v) || v < 0 || v > 1000) {
		snprintf(why, why_size,
			 "'%s': '%s' is not a factor (a number from 0 to "
			 "1000)",
			 entry, word);
		return -1;
	}
	*f = v;
	return 0;
}

/* One entry: three blank-separated words. */
static int iv_entry(char *entry, seir_intervention *iv, char *why,
		    size_t why_size)
{
	char copy[256], *save = NULL, *w[4];
	int n = 0;

	snprintf(copy, sizeof copy, "%s", entry);
	for (char *t = strtok_r(copy, " \t", &save); t && n < 4;
	     t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	if (n != 3) {
		snprintf(why, why_size, "'%s': %s", entry, iv_form);
		return -1;
	}
	if (iv_layers(w[0], &iv->layers, why, why_size, entry) ||
	    iv_days(w[1], iv, why, why_size, entry) ||
	    iv_factor(w[2], &iv->factor, why, why_size, entry))
		return -1;
	return 0;
}

/* Blanks trimmed from both ends, in place. */
static char *iv_trim(char *s)
{
	char *end = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int weft__seir_interventions_parse(const char *text, seir_intervention *out,
				   size_t *n, char *why, size_t why_size)
{
	char *copy = strdup(text), *rest, *entry;
	int rc = 0;

	*n = 0;
	if (!copy) {
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	rest = copy;
	if (*iv_trim(copy) == '\0')
		goto free_copy;
	while (rc == 0 && (entry = strsep(&rest, ",")) != NULL) {
		entry = iv_trim(entry);
		if (*entry == '\0') {
			snprintf(why, why_size, "entry %zu is empty; %s",
				 *n + 1, iv_form);
			rc = -1;
		} else if (*n == SEIR_MAX_INTERVENTIONS) {
			snprintf(why, why_size,
				 "more than %d entries (at '%s')",
				 SEIR_MAX_INTERVENTIONS, entry);
			rc = -1;
		} else {
			rc = iv_entry(entry, &out[*n], why, why_size);
			*n += rc == 0;
		}
	}
free_copy:
	free(copy);
	return rc;
}

/* The product of the factors of the entries covering (day, layer). */
static double iv_factor_on(const seir_beta_spec *b, uint32_t day, int l)
{
	double f = 1.0;

	for (size_t i = 0; i < b->n_iv; i++)
		if ((b->iv[i].layers >> l & 1u) && day >= b->iv[i].first &&
		    day <= b->iv[i].last)
			f *= b->iv[i].factor;
	return f;
}

/* Day d's seasonal factor (1 without forcing), LASER's cosine. */
static double iv_season(const seir_beta_spec *b, uint32_t d)
{
	if (b->season_factor == 0)
		return 1.0;
	return weft_patches_season(b->season_factor, b->season_phase, d);
}

uint32_t weft__seir_beta_last(const seir_beta_spec *b)
{
	/* The table changes on first and last + 1 of each entry, and on
	 * iso_start; after the last change every row is the same. With
	 * seasonal forcing it changes every day. */
	uint64_t changes = b->season_factor != 0 ? b->n_days : b->iso_start;

	for (size_t i = 0; i < b->n_iv; i++)
		if ((uint64_t)b->iv[i].last + 1 > changes)
			changes = (uint64_t)b->iv[i].last + 1;
	return changes < b->n_days ? (uint32_t)changes : b->n_days;
}

uint32_t *weft__seir_beta_table(const seir_beta_spec *b, uint32_t *last)
{
	uint32_t *t;

	*last = weft__seir_beta_last(b);
	t = malloc(((size_t)*last + 1) * SEIR_BETA_COLS * sizeof *t);
	if (!t)
		return NULL;
	for (uint32_t d = 0; d <= *last; d++)
		for (int l = 0; l < SEIR_LAYERS; l++) {
			double v = b->beta * b->layer_beta[l] *
				   iv_factor_on(b, d, l) * iv_season(b, d);
			uint32_t *row = t + (size_t)d * SEIR_BETA_COLS;
			row[l] = weft__seir_q28(v);
			row[SEIR_LAYERS + l] = weft__seir_q28(
				d >= b->iso_start ? v * b->iso_factor : v);
		}
	return t;
}
