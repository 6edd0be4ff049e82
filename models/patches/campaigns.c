/*
 * models/patches/campaigns.c - [patches] sia: supplementary immunization
 * activities (laser-measles' SIACalendarProcess), campaigns that make
 * the susceptible agents of some patches immune on a day. Their syntax,
 * and their table for the device (patches_shared.h, PT_SIA_*):
 *
 *   sia = day=180 coverage=0.9 patches=0-4+7, day=400 coverage=0.8
 *
 * The doses themselves are given in the agents' kernel (patches.wk,
 * pt_immunize), at the chance that the force kernel sets for the day.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demography.h"

/* A whole number in [0, max] at *p, *p moved past it: 1; 0 if none. */
static int pt_sia_uint(const char **p, uint64_t max, uint64_t *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return 0;
	*v = strtoull(*p, &end, 10);
	*p = end;
	return *v <= max;
}

/* patches=LIST of one campaign into row (P words, 1 for a patch in it):
 * NULL, or what is wrong. */
static const char *pt_sia_patches(const char **p, uint32_t P, uint32_t *row)
{
	uint64_t lo, hi;

	if (!strncmp(*p, "all", 3)) {
		*p += 3;
		for (uint32_t j = 0; j < P; j++)
			row[j] = 1;
		return NULL;
	}
	do {
		if (!pt_sia_uint(p, UINT32_MAX, &lo))
			return "patches= wants patch numbers, N or A-B "
			       "joined by +, or all";
		hi = lo;
		if (**p == '-' && (++*p, !pt_sia_uint(p, UINT32_MAX, &hi)))
			return "patches= has a range A-B without its B";
		if (hi < lo || hi >= P)
			return "patches= names a patch beyond the last (or a "
			       "range A-B with B below A)";
		for (uint64_t j = lo; j <= hi; j++)
			row[j] = 1;
	} while (**p == '+' && ++*p);
	return NULL;
}

/* One campaign, the text from p to e (its comma or the end): its day,
 * chance and patches (row). NULL, or what is wrong. */
static const char *pt_sia_one(const char *p, const char *e, uint32_t P,
			      uint64_t steps, uint32_t *day, double *cover,
			      uint32_t *row)
{
	int have_day = 0, have_cover = 0, have_patches = 0;
	const char *what;
	uint64_t v;
	char *end;

	while ((p += strspn(p, " \t")) < e) {
		if (!strncmp(p, "day=", 4)) {
			p += 4;
			if (have_day++)
				return "day= given twice";
			if (!pt_sia_uint(&p, steps ? steps - 1 : 0, &v))
				return "day= wants a day of the run (0 to its "
				       "steps less 1)";
			*day = (uint32_t)v;
		} else if (!strncmp(p, "coverage=", 9)) {
			p += 9;
			if (have_cover++)
				return "coverage= given twice";
			/* Decimals only (strtod takes "0x.8" too). */
			*cover = strtod(p, &end);
			if (end == p || end != p + strspn(p, "0123456789.") ||
			    !(*cover >= 0 && *cover <= 1))
				return "coverage= wants a number from 0 to 1";
			p = end;
		} else if (!strncmp(p, "patches=", 8)) {
			p += 8;
			if (have_patches++)
				return "patches= given twice";
			if ((what = pt_sia_patches(&p, P, row)))
				return what;
		} else
			return "unknown field (day=, coverage=, patches=)";
		if (p < e && *p != ' ' && *p != '\t')
			return "a field runs into text after it";
	}
	if (!have_day || !have_cover)
		return "a campaign needs day= and coverage=";
	for (uint32_t j = 0; !have_patches && j < P; j++)
		row[j] = 1;
	return NULL;
}

/* sia's campaigns into *table (malloc'd; patches_shared.h, PT_SIA_MAX:
 * their days, then a row of P chances each), *n of them; errors name the
 * key's INI line and the campaign. */
weft_status pt_sia_read(weft_model_ctx *mc, uint32_t P, uint64_t steps,
			uint32_t **table, uint32_t *n)
{
	const char *text = weft_model_string(mc, "sia");
	const char *where = weft_model_where(mc, "sia");
	const char *what = NULL, *p = text, *e;
	uint32_t *t, *row = NULL, k = 0, day = 0;
	size_t cap = 1;
	double cover = 0;

	*table = NULL;
	*n = 0;
	if (!text[0])
		return WEFT_OK;
	/* The days, then a row of chances per campaign. */
	for (const char *q = text; *q && cap < PT_SIA_MAX; q++)
		cap += *q == ',';
	if (!(t = calloc(PT_SIA_MAX + cap * P, sizeof *t)) ||
	    !(row = calloc(P, sizeof *row))) {
		free(t);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "[patches] sia (%s): cannot allocate "
				       "the campaigns of %u patches",
				       where, P);
	}
	/* Each campaign up to its comma (a comma at the end leaves an empty
	 * campaign, refused as any other). */
	for (k = 0; !what && p; k++) {
		e = p + strcspn(p, ",");
		memset(row, 0, (size_t)P * sizeof *row);
		if (k == PT_SIA_MAX)
			what = "more campaigns than 64";
		else if (!(what = pt_sia_one(p, e, P, steps, &day, &cover,
					     row))) {
			for (uint32_t c = 0; c < k; c++)
				if (t[c] == day)
					what = "a second campaign on the same "
					       "day";
			t[k] = day;
			for (uint32_t j = 0; j < P; j++)
				t[PT_SIA_MAX + (size_t)k * P + j] =
					row[j] ? pt_threshold(cover) : 0;
		}
		p = *e ? e + 1 : NULL;
	}
	free(row);
	if (what) {
		free(t);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] sia (%s): campaign %u: %s",
				       where, k, what);
	}
	*table = t;
	*n = k;
	return WEFT_OK;
}
