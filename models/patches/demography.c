/*
 * demography.c - the patch model's ages and mortality by age
 * (models/patches/patches.md, "Ages and mortality by age").
 *
 * With age_pyramid every agent has a date of birth (buffer dob, a day
 * relative to day 0): those at day 0 drawn from the pyramid's bins
 * (uniform within a bin, as Starsim's ss.histogram), newborns the day
 * after their birth's; an age is the day less it, computed when needed.
 * With death_rates each living agent dies each day with its age bin's
 * chance, Starsim's conversion of a yearly rate to a day's probability,
 * 1 - exp(-rate/1000/365) (ss.peryear(rate).to_prob(ss.days(1))). Every
 * ages_every days the kernels pt_age_due and pt_ages (patches.wk) count
 * the living by the pyramid's bins; ages.csv is written at the end.
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
#include "patches_kernels.h"

#define PT_MAX_BINS 1000u

double pt_demog_birth_rate(weft_model_ctx *mc, double cbr)
{
	if (!strcmp(weft_model_string(mc, "cbr_mode"), "starsim"))
		return -expm1(log1p(-cbr / 1000) / PT_YEAR_DAYS);
	return pow(1.0 + cbr / 1000, 1.0 / 365) - 1.0;
}

double pt_demog_death_chance(weft_model_ctx *mc, double cdr)
{
	const char *mode = weft_model_string(mc, "cdr_mode");

	if (!strcmp(mode, "starsim"))
		return -expm1(-cdr / 1000 / PT_YEAR_DAYS);
	if (!strcmp(mode, "measles"))
		return expm1(log1p(cdr / 1000) / 365);
	return -expm1(-(1.0 - pow(1.0 - cdr / 1000, 1.0 / 365)));
}

weft_status pt_rows_fail(weft_model_ctx *mc, const char *key, const char *path,
			 uint32_t line, const char *what)
{
	return weft_model_fail(mc, WEFT_E_CONFIG,
			       "[patches] %s (%s): %s:%u: %s", key,
			       weft_model_where(mc, key), path, line, what);
}

/* One line's two numbers: 1 if it has them, 0 if not. */
static int pt_two(const char *line, double *a, double *v)
{
	char *end;

	errno = 0;
	*a = strtod(line, &end);
	if (end == line || errno || !isfinite(*a))
		return 0;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end++ != ',')
		return 0;
	line = end;
	*v = strtod(line, &end);
	if (end == line || errno || !isfinite(*v))
		return 0;
	while (isspace((unsigned char)*end))
		end++;
	return *end == 0;
}

/* The checks of row ln (0-based k): lower edges from 0, increasing;
 * values 0 or more. NULL: fine. */
static const char *pt_row_check(const pt_rows *r, uint32_t k)
{
	if (k == 0 && r->age[0] != 0 && !r->any_start)
		return "the first age must be 0";
	if (k == 0 && r->age[0] < 0)
		return "a negative age";
	if (k > 0 && !(r->age[k] > r->age[k - 1]))
		return "ages must increase from row to row";
	if (r->age[k] > 200)
		return "an age above 200 years";
	if (r->val[k] < 0)
		return "a negative value";
	return NULL;
}

weft_status pt_read_rows(weft_model_ctx *mc, const char *key, pt_rows *r)
{
	char path[4096], line[4096];
	const char *what = NULL;
	uint32_t ln = 0, cap = 0;
	double a, v, total = 0;
	int rc, header = 0, any_start = r->any_start;
	FILE *f;
	weft_status st;

	memset(r, 0, sizeof *r);
	r->any_start = any_start;
	if ((st = pt_file_open(mc, key, path, sizeof path, &f)))
		return st;
	while (!what && (rc = weft_patch_getline(f, line, sizeof line)) != 0) {
		ln++;
		if (rc < 0) {
			what = "a line longer than 4095 bytes";
			break;
		}
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (!pt_two(line, &a, &v)) {
			/* The first line that is not blank may be a header,
			 * as in seasonality_file and patch_file. */
			if (r->n || header)
				what = "expected two numbers, age,value";
			header = 1;
			continue;
		}
		if (!isfinite(total += v)) {
			what = "the values' total is not a finite number; "
			       "scale them down";
			break;
		}
		if (r->n == cap) {
			double *ga, *gv;

			cap = cap ? 2 * cap : 32;
			ga = cap <= PT_MAX_BINS
				     ? realloc(r->age, cap * sizeof *ga)
				     : NULL;
			if (ga)
				r->age = ga;
			gv = ga ? realloc(r->val, cap * sizeof *gv) : NULL;
			if (gv)
				r->val = gv;
			if (!ga || !gv) {
				what = "too many rows (at most 1000)";
				break;
			}
		}
		r->age[r->n] = a;
		r->val[r->n] = v;
		r->last_line = ln;
		what = pt_row_check(r, r->n++);
	}
	fclose(f);
	if (!what && r->n == 0) {
		what = "no rows";
		ln = ln ? ln : 1;
	}
	if (what) {
		free(r->age);
		free(r->val);
		memset(r, 0, sizeof *r);
		return pt_rows_fail(mc, key, path, ln, what);
	}
	return WEFT_OK;
}

uint32_t pt_edge_days(double years)
{
	return (uint32_t)ceil(years * PT_YEAR_DAYS - 1e-9);
}

/* The pyramid: bins, their edges in days, cumulative thresholds; the
 * upper edge of the last bin as Starsim's ss.histogram puts it. */
static weft_status pt_pyramid(weft_model_ctx *mc, pt_demog *d)
{
	const char *key = "age_pyramid";
	char path[4096];
	pt_rows r = { .any_start = 0 };
	double total = 0, run = 0, top;
	uint32_t n;
	weft_status st;

	if ((st = pt_read_rows(mc, key, &r)))
		return st;
	pt_file_path(mc, key, path, sizeof path);
	/* A last row of value 0 gives the upper edge. */
	n = r.n > 1 && r.val[r.n - 1] == 0 ? r.n - 1 : r.n;
	for (uint32_t k = 0; k < n; k++)
		total += r.val[k];
	if (n < 1 || (n == r.n && r.n < 2) || !(total > 0)) {
		free(r.age);
		free(r.val);
		return pt_rows_fail(mc, key, path, r.last_line,
				    !(total > 0)
					    ? "no agents: every value is 0"
					    : "one row: give the upper "
					      "edge as a last row of value "
					      "0");
	}
	top = n < r.n ? r.age[n] : 2 * r.age[n - 1] - r.age[n - 2];
	d->n_bins = n;
	d->cum = calloc(n, sizeof *d->cum);
	d->lo = calloc(n, sizeof *d->lo);
	d->hi = calloc(n, sizeof *d->hi);
	if (!d->cum || !d->lo || !d->hi) {
		free(r.age);
		free(r.val);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the age pyramid");
	}
	for (uint32_t k = 0; k < n; k++) {
		double c;

		run += r.val[k];
		c = run / total * 4294967296.0;
		d->cum[k] = c >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)c;
		d->lo[k] = pt_edge_days(r.age[k]);
		d->hi[k] = pt_edge_days(k + 1 < n ? r.age[k + 1] : top);
	}
	d->cum[n - 1] = 0xFFFFFFFFu;
	free(r.age);
	free(r.val);
	return WEFT_OK;
}

/* death_rates: d->death_rate holds the bins' lower edges in years, then
 * their rates. */
static weft_status pt_mortality(weft_model_ctx *mc, pt_demog *d)
{
	pt_rows r = { .any_start = 0 };
	weft_status st;

	if ((st = pt_read_rows(mc, "death_rates", &r)))
		return st;
	d->n_mort = r.n;
	if (!(d->death_rate = malloc(2 * (size_t)r.n * sizeof(double)))) {
		free(r.age);
		free(r.val);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the death rates");
	}
	memcpy(d->death_rate, r.age, r.n * sizeof(double));
	memcpy(d->death_rate + r.n, r.val, r.n * sizeof(double));
	free(r.age);
	free(r.val);
	return WEFT_OK;
}

/* A chance as a 32-bit threshold: a draw below it succeeds (0 for none,
 * 2^32 - 1 for 1). */
uint32_t pt_threshold(double prob)
{
	return pt_chance(prob);
}

/* Buffer dg's words: the head, mortality's edges and thresholds, the
 * pyramid's edges. */
static weft_status pt_dg_words(weft_model_ctx *mc, pt_demog *d)
{
	uint32_t m = d->n_mort, *w;

	d->dg_words = PT_DG_HEAD + 2 * (size_t)m + d->n_bins + d->ft_words;
	if (!(w = d->dg = calloc(d->dg_words, sizeof *w)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the demography");
	w[PT_DG_MORT] = m;
	w[PT_DG_AGES] = d->n_bins ? 1 : 0;
	w[PT_DG_BINS] = d->n_bins;
	w[PT_DG_EVERY] = d->every;
	w[PT_DG_ROWS] = d->rows;
	for (uint32_t k = 0; k < m; k++) {
		uint32_t t = pt_threshold(
			-expm1(-d->death_rate[m + k] / 1000 / PT_YEAR_DAYS));

		w[PT_DG_HEAD + k] = pt_edge_days(d->death_rate[k]);
		w[PT_DG_HEAD + m + k] = t;
		if (t > w[PT_DG_MAXTHR])
			w[PT_DG_MAXTHR] = t;
	}
	for (uint32_t k = 0; k < d->n_bins; k++)
		w[PT_DG_HEAD + 2 * m + k] = d->lo[k];
	if (d->ft) {
		w[PT_DG_FERT] = PT_DG_HEAD + 2 * m + d->n_bins;
		memcpy(w + w[PT_DG_FERT], d->ft, 4 * (size_t)d->ft_words);
	}
	return WEFT_OK;
}

weft_status pt_demog_read(weft_model_ctx *mc, pt_demog *d, uint64_t steps)
{
	int pyr = weft_model_string(mc, "age_pyramid")[0] != 0;
	int mort = weft_model_string(mc, "death_rates")[0] != 0;
	weft_status st;

	memset(d, 0, sizeof *d);
	d->every = (uint32_t)weft_model_int(mc, "ages_every");
	if (mort && !pyr)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] death_rates (%s) needs ages: "
				       "give age_pyramid too",
				       weft_model_where(mc, "death_rates"));
	if (mort && weft_model_real(mc, "cdr") > 0)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[patches] death_rates (%s) and cdr = %g (%s): give "
			"one of them",
			weft_model_where(mc, "death_rates"),
			weft_model_real(mc, "cdr"),
			weft_model_where(mc, "cdr"));
	if (pyr && (st = pt_pyramid(mc, d)))
		return st;
	if (mort && (st = pt_mortality(mc, d)))
		return st;
	if ((st = pt_fert_read(mc, d, steps)))
		return st;
	d->rows = pyr ? (uint32_t)(1 + steps / d->every) : 0;
	if ((uint64_t)d->rows * (1 + d->n_bins) > (1u << 26))
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "[patches] ages_every = %u (%s): too "
				       "many rows of ages.csv; raise it",
				       d->every,
				       weft_model_where(mc, "ages_every"));
	return pt_dg_words(mc, d);
}

/* The dates of birth at day 0 (agent a's age from its own draw keyed by
 * (seed, a, PT_PURPOSE_AGE): a bin by the cumulative thresholds, a day
 * uniform within it) and day 0's row. */
static void pt_dob0(const pt_demog *d, const pt_params *p, uint32_t *dob,
		    uint32_t *row)
{
	row[0] = 0;
	for (uint32_t a = 0; a < p->agents; a++) {
		weft_rand4 r = weft_philox(p->seed_lo, p->seed_hi, a, 0, 0,
					   PT_PURPOSE_AGE);
		uint32_t k = pt_duration(d->cum, d->n_bins, 0, r.v[0]);
		uint32_t age =
			d->lo[k] +
			(uint32_t)(((uint64_t)r.v[1] * (d->hi[k] - d->lo[k])) >>
				   32);

		dob[a] = 0u - age;
		row[1 + k]++;
	}
}

weft_status pt_demog_open(weft_model_ctx *mc, pt_demog *d, const pt_params *p)
{
	size_t W = 1 + (size_t)d->n_bins;
	size_t ab = PT_AG_HEAD + W * d->rows;
	/* With fertility_rates the pregnancies' words follow. */
	size_t words = pt_fert_words(p);
	uint32_t *dob = NULL;
	weft_status st;

	if ((st = weft_model_alloc(mc, "demography", 4 * d->dg_words,
				   &d->dgbuf)) ||
	    (st = weft_model_upload(mc, d->dgbuf, 0, d->dg, 4 * d->dg_words)))
		return st;
	if (!d->n_bins) { /* no ages: words the kernels do not read */
		if ((st = weft_model_alloc(mc, "dob", 4, &d->dobbuf)) ||
		    (st = weft_model_upload(mc, d->dobbuf, 0, d->dg, 4)))
			return st;
		return WEFT_OK;
	}
	if (!(d->ages = calloc(ab, 4)) || !(dob = calloc(words, sizeof *dob))) {
		free(dob);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes for the "
				       "dates of birth",
				       4 * words);
	}
	pt_dob0(d, p, dob, d->ages + PT_AG_HEAD);
	d->ages[PT_AG_NEXT] = 1;
	if (p->fert)
		pt_fert_open(d, p, dob);
	if ((st = weft_model_alloc(mc, "dob", 4 * words, &d->dobbuf)) ||
	    (st = weft_model_upload(mc, d->dobbuf, 0, dob, 4 * words)) ||
	    (st = weft_model_state(mc, d->dobbuf)) ||
	    (st = weft_model_alloc(mc, "ages", 4 * ab, &d->agebuf)) ||
	    (st = weft_model_upload(mc, d->agebuf, 0, d->ages, 4 * ab)))
		goto free_dob;
	st = weft_model_state(mc, d->agebuf);
free_dob:
	free(dob);
	return st;
}

uint32_t pt_demog_launches(const pt_demog *d, weft_buf *ctl, weft_buf *agent,
			   weft_launch *l)
{
	if (!d->n_bins)
		return 0;
	l[0] = patches_pt_age_due_launch(
		(patches_pt_age_due_bufs){
			.dg = d->dgbuf, .ctl = ctl, .ages = d->agebuf },
		1);
	l[1] = patches_pt_ages_launch(
		(patches_pt_ages_bufs){ .dg = d->dgbuf,
					.ctl = ctl,
					.agent = agent,
					.dob = d->dobbuf,
					.ages = d->agebuf },
		0xFFFFFFF0u / PT_GROUP);
	/* Over the groups in use on the days of a row, none on the others. */
	l[1].extent_buf = d->agebuf;
	l[1].extent_offset = 4 * PT_AG_EXTENT;
	return 2;
}

/* ages.csv: day, then a column a<AGE> per bin of the pyramid (its lower
 * edge in years); and the summary's lines. */
weft_status pt_demog_finish(weft_model_ctx *mc, pt_demog *d)
{
	size_t W = 1 + (size_t)d->n_bins;
	uint32_t rows, m = d->n_mort, low = 0xFFFFFFFFu;
	double mean0 = 0, mean1 = 0, n0 = 0, n1 = 0;
	weft_output *o = NULL;
	weft_status st;

	if (!d->n_bins)
		return WEFT_OK;
	if ((st = weft_model_download(mc, d->ages, d->agebuf, 0,
				      4 * (PT_AG_HEAD + W * d->rows))))
		return st;
	rows = d->ages[PT_AG_NEXT];
	if (weft_model_want_csv(mc) &&
	    ((st = weft_model_output_open(mc, "ages.csv", &o)) ||
	     (st = weft_output_printf(o, "day"))))
		return st;
	for (uint32_t k = 0; o && k < d->n_bins; k++)
		if ((st = weft_output_printf(o, ",a%g",
					     d->lo[k] / PT_YEAR_DAYS)))
			return st;
	for (uint32_t r = 0; r < rows; r++) {
		const uint32_t *row = d->ages + PT_AG_HEAD + r * W;

		if (o && (st = weft_output_printf(o, "\n%u", row[0])))
			return st;
		for (uint32_t k = 0; k < d->n_bins; k++) {
			/* The mean age by the bins' midpoints. */
			double mid = (d->lo[k] + d->hi[k]) / 2.0 / PT_YEAR_DAYS;

			if (o &&
			    (st = weft_output_printf(o, ",%u", row[1 + k])))
				return st;
			mean0 += r == 0 ? mid * row[1 + k] : 0;
			n0 += r == 0 ? row[1 + k] : 0;
			mean1 += r == rows - 1 ? mid * row[1 + k] : 0;
			n1 += r == rows - 1 ? row[1 + k] : 0;
		}
	}
	if (o && (st = weft_output_printf(o, "\n")))
		return st;
	weft_model_summary(mc, "ages",
			   "%u bins to %.4g years; mean age by bin midpoints "
			   "%.2f years at day 0, %.2f on day %u",
			   d->n_bins, d->hi[d->n_bins - 1] / PT_YEAR_DAYS,
			   n0 ? mean0 / n0 : 0, n1 ? mean1 / n1 : 0,
			   d->ages[PT_AG_HEAD + (rows - 1) * W]);
	if (!m)
		return WEFT_OK;
	for (uint32_t k = 0; k < m; k++)
		if (d->dg[PT_DG_HEAD + m + k] < low)
			low = d->dg[PT_DG_HEAD + m + k];
	return weft_model_summary(mc, "mortality by age",
				  "%u bins, daily chance of death %.3g to %.3g",
				  m, low / 4294967296.0,
				  d->dg[PT_DG_MAXTHR] / 4294967296.0);
}

void pt_demog_free_host(pt_demog *d)
{
	free(d->dg);
	free(d->cum);
	free(d->lo);
	free(d->hi);
	free(d->death_rate);
	free(d->ages);
	free(d->ft);
	d->dg = d->cum = d->lo = d->hi = d->ages = d->ft = NULL;
	d->death_rate = NULL;
}

void pt_demog_free(weft_model_ctx *mc, pt_demog *d)
{
	weft_model_free(mc, d->agebuf);
	weft_model_free(mc, d->dobbuf);
	weft_model_free(mc, d->dgbuf);
	d->agebuf = d->dobbuf = d->dgbuf = NULL;
	pt_demog_free_host(d);
}
