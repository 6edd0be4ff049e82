/*
 * fertility.c - births by age of mother in the patch model
 * (models/patches/patches.md, "Births by age of mother"), Starsim's
 * ss.Pregnancy: women conceive at their age bin's rate of fertility_rates,
 * carry for pregnancy_weeks, and deliver a baby in their patch.
 *
 * The host reads the keys into the fertility table (demography_shared.h,
 * PT_FT_*), draws every agent's sex at day 0, runs the burn-in (the
 * pregnancies under way at day 0) and counts day 0's women by bin; the
 * kernels (patches.wk, pt_fert_today and pt_fertility) do the days. The
 * burn-in uses the kernels' own functions (pt_conceive, pt_chain_*), so
 * its draws are made as the days' are.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/math.h>
#include <weft/model.h>

#include "demography.h"
#include "chain_shared.h"
#include "demography_shared.h"

#define PT_MAX_WEEKS 60u

static weft_status pt_weeks_fail(weft_model_ctx *mc, uint32_t item,
				 const char *what)
{
	return weft_model_fail(mc, WEFT_E_CONFIG,
			       "[patches] pregnancy_weeks (%s): item %u: %s",
			       weft_model_where(mc, "pregnancy_weeks"), item,
			       what);
}

/* pregnancy_weeks' WEEKS:SHARE items into share[] (by week); the first
 * and last weeks given. A lone number is every pregnancy's weeks. */
static weft_status pt_weeks_parse(weft_model_ctx *mc, double *share,
				  uint32_t *first, uint32_t *last)
{
	const char *s = weft_model_string(mc, "pregnancy_weeks");
	uint32_t item = 0, bare = 0;
	char *end;

	*first = *last = 0;
	while (*s) {
		long w;
		double v = 1;

		item++;
		while (isspace((unsigned char)*s))
			s++;
		errno = 0;
		w = strtol(s, &end, 10);
		if (end == s || errno || w < 1 || w > (long)PT_MAX_WEEKS)
			return pt_weeks_fail(mc, item,
					     "expected weeks, from 1 to 60");
		if (item > 1 && (uint32_t)w <= *last)
			return pt_weeks_fail(mc, item,
					     "weeks must increase from item "
					     "to item");
		for (s = end; isspace((unsigned char)*s); s++)
			;
		if (*s == ':') {
			v = strtod(++s, &end);
			if (end == s || !isfinite(v) || v < 0)
				return pt_weeks_fail(mc, item,
						     "expected a share of 0 "
						     "or more after ':'");
			for (s = end; isspace((unsigned char)*s); s++)
				;
		} else
			bare = item;
		if (*s && *s != ',')
			return pt_weeks_fail(mc, item,
					     "expected ',' between items");
		s += *s == ',';
		share[w] = v;
		*first = item == 1 ? (uint32_t)w : *first;
		*last = (uint32_t)w;
	}
	if (item == 0)
		return pt_weeks_fail(mc, 1, "no weeks");
	if (bare && item > 1)
		return pt_weeks_fail(mc, bare,
				     "give every item's share (WEEKS:SHARE) "
				     "when there are several");
	return WEFT_OK;
}

/* The table of weeks: cumulative 32-bit thresholds from week first on. */
static weft_status pt_weeks(weft_model_ctx *mc, uint32_t *tab, uint32_t *first,
			    uint32_t *len)
{
	double share[PT_MAX_WEEKS + 1] = { 0 }, total = 0, run = 0;
	uint32_t last;
	weft_status st;

	if ((st = pt_weeks_parse(mc, share, first, &last)))
		return st;
	for (uint32_t w = *first; w <= last; w++)
		total += share[w];
	if (!(total > 0))
		return pt_weeks_fail(mc, 1, "every share is 0");
	/* Weeks of share 0 at either end: none is drawn, none lengthens the
	 * burn-in. */
	while (share[*first] == 0)
		(*first)++;
	while (share[last] == 0)
		last--;
	*len = last - *first + 1;
	for (uint32_t w = *first; w <= last; w++) {
		run += share[w];
		tab[w - *first] = pt_threshold(run / total);
	}
	tab[*len - 1] = 0xFFFFFFFFu;
	return WEFT_OK;
}

/* The share of the agents at day 0 whose age (days) is in [x0, x1), from
 * the pyramid's bins (uniform within each). */
static double pt_pyramid_share(const pt_demog *d, double x0, double x1)
{
	double share = 0, prev = 0;

	for (uint32_t k = 0; k < d->n_bins; k++) {
		double c = d->cum[k] / 4294967296.0, lo = d->lo[k],
		       hi = d->hi[k];
		double a = x0 > lo ? x0 : lo, b = x1 < hi ? x1 : hi;

		if (b > a && hi > lo)
			share += (c - prev) * (b - a) / (hi - lo);
		prev = c;
	}
	return share;
}

static weft_status pt_fert_check(weft_model_ctx *mc, const pt_demog *d)
{
	const char *key = "fertility_rates";
	double lo = weft_model_real(mc, "fertility_min_age"),
	       hi = weft_model_real(mc, "fertility_max_age");

	if (!d->n_bins)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] %s (%s) needs ages: give "
				       "age_pyramid too",
				       key, weft_model_where(mc, key));
	if (weft_model_real(mc, "cbr") > 0)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] %s (%s) and cbr = %g (%s): give one of them",
			key, weft_model_where(mc, key),
			weft_model_real(mc, "cbr"),
			weft_model_where(mc, "cbr"));
	if (lo > hi)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] fertility_min_age = %g (%s) is above "
			"fertility_max_age = %g (%s)",
			lo, weft_model_where(mc, "fertility_min_age"), hi,
			weft_model_where(mc, "fertility_max_age"));
	return WEFT_OK;
}

/* Births a day per agent on day t if no one died: the agents at day 0
 * aged t days, the women of each bin within the mothers' ages at its
 * rate. */
static double pt_fert_births(const pt_demog *d, const uint32_t *ft,
			     const pt_rows *r, double female, double t)
{
	uint32_t B = ft[PT_FT_BINS];
	double births = 0;

	for (uint32_t k = 0; k < B; k++) {
		double lo = ft[PT_FT_EDGES + k], hi = ft[PT_FT_EDGES + k + 1];

		lo = lo > ft[PT_FT_MIN] ? lo : ft[PT_FT_MIN];
		hi = hi < ft[PT_FT_MAX] + 1.0 ? hi : ft[PT_FT_MAX] + 1.0;
		if (hi > lo)
			births += r->val[k] / 1000 / PT_YEAR_DAYS * female *
				  pt_pyramid_share(d, lo - t, hi - t);
	}
	return births;
}

/* The table's head, edges and rates from the rows (B bins, the upper
 * edge top years); for the capacity, the most births a day per agent of
 * the run's days (those of day 0's agents as they age, a year apart). */
static void pt_fert_fill(weft_model_ctx *mc, pt_demog *d, const pt_rows *r,
			 uint32_t B, double top, uint64_t steps)
{
	uint32_t *ft = d->ft;
	double female = weft_model_real(mc, "female_share");

	ft[PT_FT_BINS] = B;
	ft[PT_FT_MIN] = pt_edge_days(weft_model_real(mc, "fertility_min_age"));
	ft[PT_FT_MAX] = (uint32_t)floor(
		weft_model_real(mc, "fertility_max_age") * PT_YEAR_DAYS + 1e-9);
	ft[PT_FT_FEMALE] = pt_threshold(female);
	for (uint32_t k = 0; k < B; k++) {
		uint64_t bits;

		ft[PT_FT_EDGES + k] = pt_edge_days(r->age[k]);
		memcpy(&bits, &r->val[k], 8);
		ft[PT_FT_EDGES + B + 1 + 2 * k] = (uint32_t)bits;
		ft[PT_FT_EDGES + B + 2 + 2 * k] = (uint32_t)(bits >> 32);
	}
	ft[PT_FT_EDGES + B] = pt_edge_days(top);
	d->fert_day = 0;
	for (uint64_t t = 0; t <= steps; t += 365) {
		double b = pt_fert_births(d, ft, r, female, (double)t);

		d->fert_day = b > d->fert_day ? b : d->fert_day;
	}
}

weft_status pt_fert_read(weft_model_ctx *mc, pt_demog *d, uint64_t steps)
{
	const char *key = "fertility_rates";
	uint32_t weeks[PT_MAX_WEEKS], first = 0, len = 0, B;
	pt_rows r = { .any_start = 1 };
	char path[4096];
	double top;
	weft_status st;

	if (!weft_model_string(mc, key)[0])
		return WEFT_OK;
	if ((st = pt_fert_check(mc, d)) ||
	    (st = pt_weeks(mc, weeks, &first, &len)) ||
	    (st = pt_read_rows(mc, key, &r)))
		return st;
	/* A last row of value 0 gives the upper edge; without one the last
	 * bin is a year wide (Starsim's ss.Pregnancy). */
	B = r.n > 1 && r.val[r.n - 1] == 0 ? r.n - 1 : r.n;
	top = B < r.n ? r.age[B] : r.age[B - 1] + 1;
	if (B > PT_FERT_MAX) {
		pt_file_path(mc, key, path, sizeof path);
		free(r.age);
		free(r.val);
		return pt_rows_fail(mc, key, path, r.last_line,
				    "more than 32 age bins");
	}
	d->ft_words = PT_FT_EDGES + 3 * B + 1 + len;
	if (!(d->ft = calloc(d->ft_words, sizeof *d->ft))) {
		free(r.age);
		free(r.val);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the fertility table");
	}
	pt_fert_fill(mc, d, &r, B, top, steps);
	d->ft[PT_FT_DURLEN] = len;
	d->ft[PT_FT_DURMIN] = first;
	memcpy(d->ft + PT_FT_EDGES + 3 * B + 1, weeks, 4 * (size_t)len);
	d->n_fert = B;
	d->burnin = weft_model_bool(mc, "pregnancy_burnin");
	free(r.age);
	free(r.val);
	return WEFT_OK;
}

size_t pt_fert_words(const pt_params *p)
{
	return p->fert ? 2 * (size_t)p->capacity + PT_FA_WORDS : p->capacity;
}

/* The burn-in (Starsim's burnin): the days before day 0 as long as the
 * longest pregnancy, with the women's ages of day 0 (Starsim does not age
 * them either) and their bins' counts c, conceptions only: the
 * pregnancies that end before day 0 leave no baby. */
static void pt_fert_burnin(const pt_params *p, const uint32_t *ft,
			   const uint32_t *dob, uint32_t *pg, uint32_t *c)
{
	uint32_t B = ft[PT_FT_BINS], thr[PT_FERT_MAX + 1];
	uint32_t D = 7 * (ft[PT_FT_DURMIN] + ft[PT_FT_DURLEN] - 1);
	/* ends[(D + t) B + b]: pregnancies of bin b that end on day t. */
	uint32_t ends[7 * PT_MAX_WEEKS * PT_FERT_MAX] = { 0 };

	for (uint32_t k = D; k >= 1; k--) {
		uint32_t day = 0u - k;

		for (uint32_t b = 0; b < B; b++)
			c[PT_FERT_MAX + b] -= ends[(D - k) * B + b];
		pt_fert_thresholds(ft, c, thr);
		if (thr[B] == 0)
			continue;
		for (uint32_t g = 0; (uint64_t)g * PT_GROUP < p->agents; g++) {
			uint32_t a0 = g * PT_GROUP;
			uint32_t n = p->agents - a0 < PT_GROUP ? p->agents - a0
							       : PT_GROUP;
			pt_chain ch = pt_chain_start(
				day, g, 0u, PT_PURPOSE_CONCEIVE, thr[B], n);

			while (pt_chain_next(p, &ch)) {
				uint32_t a = a0 + ch.k, b;
				int64_t due;

				if (!pt_conceive(ft, thr, dob, pg, day, 0u, a,
						 ch.r.v[1], ch.r.v[2]))
					continue;
				b = pt_fert_bin(ft, 0u - dob[a]);
				c[PT_FERT_MAX + b]++;
				due = (int64_t)(pg[a] & ~PT_PG_FEMALE) -
				      PT_PG_BIAS;
				if (due < 0)
					ends[(D + due) * B + b]++;
			}
		}
	}
}

void pt_fert_open(pt_demog *d, const pt_params *p, uint32_t *dob)
{
	const uint32_t *ft = d->ft;
	uint32_t *pg = dob + p->capacity, *fa = pg + p->capacity;
	/* Day 0's counts, in the words pt_fert_today reads on day 0. */
	uint32_t *c = fa + PT_FA_COUNTS + 2 * PT_FERT_MAX;

	for (uint32_t a = 0; a < p->agents; a++) {
		uint32_t b;

		pg[a] = pt_sex(p, ft, a);
		b = pt_fert_bin(ft, 0u - dob[a]);
		if (pg[a] && 0u - dob[a] >= ft[PT_FT_MIN] &&
		    0u - dob[a] <= ft[PT_FT_MAX] && b < ft[PT_FT_BINS])
			c[b]++;
	}
	if (d->burnin)
		pt_fert_burnin(p, ft, dob, pg, c);
	/* Those that ended before day 0 are over. */
	d->preg0 = 0;
	for (uint32_t a = 0; a < p->agents; a++) {
		uint32_t low = pg[a] & ~PT_PG_FEMALE;

		if (low != 0 && low < PT_PG_BIAS)
			pg[a] = PT_PG_FEMALE;
		else
			d->preg0 += low != 0;
	}
}

weft_status pt_fert_finish(weft_model_ctx *mc, pt_demog *d, const pt_params *p,
			   uint32_t days)
{
	uint32_t fa[PT_FA_WORDS], women = 0, pregnant = 0, *c;
	weft_status st;

	if (!p->fert)
		return WEFT_OK;
	if ((st = weft_model_download(mc, fa, d->dobbuf,
				      8 * (size_t)p->capacity, sizeof fa)))
		return st;
	/* The counts of the last day's pass (day 0's before any). */
	c = fa + PT_FA_COUNTS + 2 * PT_FERT_MAX * (days ? (days - 1) & 1 : 1);
	for (uint32_t k = 0; k < d->n_fert; k++) {
		women += c[k];
		pregnant += c[PT_FERT_MAX + k];
	}
	return weft_model_summary(
		mc, "pregnancies",
		"%u under way at day 0, %u conceived and %u delivered from "
		"day 0 on; %u of %u women of child-bearing age pregnant at "
		"the end",
		d->preg0, fa[PT_FA_CONCEIVED], fa[PT_FA_DELIVERED], pregnant,
		women);
}
