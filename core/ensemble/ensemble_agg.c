/*
 * core/ensemble/ensemble_agg.c - what an ensemble aggregates (the model's
 * weft_ensemble_desc, or the defaults), the runs' CSVs read back, and the
 * aggregates: per scenario and step, each column's mean, sample standard
 * deviation (ddof = 1) and quantiles, and the summary of final outcomes.
 *
 * Exact, and independent of the order runs finish in: every value of a
 * step is kept, taken in run order, and sorted; the quantile q of n
 * sorted values is numpy's default ('linear', Hyndman and Fan's type 7):
 * at the virtual index (n - 1) q, interpolated between its neighbours as
 * numpy interpolates. Numbers are written as the shortest text that reads
 * back as the same double.
 */
#include "config/cfg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble/ensemble.h"

static const double ens_q[] = { 0.05, 0.25, 0.50, 0.75, 0.95 };
#define ENS_NQ 5

void weft__ens_num(char *buf, size_t size, double v)
{
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, size, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* ---- what is aggregated -------------------------------------------------- */

static char *ens_dup(const char *s)
{
	return s ? weft__strdup(s) : NULL;
}

static weft_status ens_outcomes(weft_ensemble *e, const weft_ensemble_desc *d)
{
	e->outcomes = calloc(d->n_outcomes + 1, sizeof *e->outcomes);
	if (!e->outcomes)
		return WEFT_E_NOMEM;
	for (uint32_t i = 0; i < d->n_outcomes; i++) {
		const weft_outcome_desc *o = &d->outcomes[i];
		weft__ens_outcome *t = &e->outcomes[i];
		t->name = ens_dup(o->name);
		t->columns = ens_dup(o->columns);
		t->per = ens_dup(o->per);
		t->kind = o->kind;
		t->scale = o->scale != 0.0 ? o->scale : 1.0;
		e->n_outcomes++;
		if (!t->name || !t->columns || (o->per && !t->per))
			return WEFT_E_NOMEM;
	}
	return WEFT_OK;
}

weft_status weft__ens_desc(weft_ensemble *e)
{
	const weft_model *m = weft__config_model(e->base);
	const weft_ensemble_desc *d = m ? weft__model_ensemble(m) : NULL;
	const weft_plot_desc *pd = m ? m->plot : NULL;
	int bad;

	if (!m)
		return weft__fail(e->ctx, WEFT_E_INTERNAL,
				  "ensemble: no model");
	if (!d && (!pd || !pd->csv || !pd->x))
		return weft__fail(e->ctx, WEFT_E_MODEL,
				  "model %s declares neither what an ensemble "
				  "aggregates (model ABI 1.4's ensemble) nor "
				  "a plot of a CSV: an ensemble of it has "
				  "nothing to aggregate",
				  m->name);
	e->csv = ens_dup(d && d->csv ? d->csv : pd->csv);
	e->x = ens_dup(d && d->x ? d->x : pd->x);
	e->columns = ens_dup(d ? d->columns : NULL);
	e->bands = ens_dup(d ? d->bands : NULL);
	e->compare = ens_dup(d ? d->compare : NULL);
	bad = !e->csv || !e->x || (d && d->columns && !e->columns) ||
	      (d && d->bands && !e->bands) || (d && d->compare && !e->compare);
	if (!bad && d && d->n_outcomes && d->outcomes)
		bad = ens_outcomes(e, d) != WEFT_OK;
	return bad ? weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory")
		   : WEFT_OK;
}

/* ---- a run's CSV ----------------------------------------------------------
 */

static weft_status ens_slurp(weft_context *ctx, const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0;
	char *buf = NULL, *grown;

	if (!f)
		return weft__fail(ctx, WEFT_E_IO, "cannot read %s: %s", path,
				  strerror(errno));
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			if (!(grown = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return weft__fail(ctx, WEFT_E_NOMEM,
						  "out of memory reading %s",
						  path);
			}
			buf = grown;
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*out = buf;
	return WEFT_OK;
}

/* Columns of a header line: its commas plus one. */
static uint32_t ens_ncols(const char *line, size_t len)
{
	uint32_t n = 1;

	for (size_t i = 0; i < len; i++)
		n += line[i] == ',';
	return n;
}

static weft_status ens_row(weft_context *ctx, const char *path, int line,
			   const char *p, size_t len, double *v, uint32_t cols)
{
	uint32_t c = 0;
	const char *end = p + len;

	while (c < cols && p <= end) {
		char *stop;
		if (p == end || *p == ',') {
			/* An empty cell: a value the model could not give
			 * (SEIR's Rt before a week of infections), NaN. */
			v[c++] = NAN;
			p++;
			continue;
		}
		errno = 0;
		v[c] = strtod(p, &stop);
		if (stop == p || (stop < end && *stop != ',') ||
		    !isfinite(v[c]))
			return weft__fail(ctx, WEFT_E_MODEL,
					  "%s:%d: column %u is not a number",
					  path, line, c + 1);
		c++;
		p = stop + 1;
	}
	if (c != cols || p <= end)
		return weft__fail(ctx, WEFT_E_MODEL,
				  "%s:%d: %s columns than the header's %u",
				  path, line, c != cols ? "fewer" : "more",
				  cols);
	return WEFT_OK;
}

static weft_status ens_parse(weft_context *ctx, const char *path,
			     const char *text, weft__ens_result *r)
{
	size_t hl = strcspn(text, "\r\n");
	const char *p = text + hl;
	size_t cap = 0;
	int line = 1;
	weft_status st = WEFT_OK;

	if (!hl)
		return weft__fail(ctx, WEFT_E_MODEL,
				  "%s: no header line: an ensemble aggregates "
				  "a CSV with one",
				  path);
	r->cols = ens_ncols(text, hl);
	if (!(r->header = strndup(text, hl)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	while (st == WEFT_OK && *p) {
		size_t len;
		p += strspn(p, "\r\n");
		line++;
		if (!*p)
			break;
		len = strcspn(p, "\r\n");
		if ((size_t)(r->rows + 1) * r->cols > cap) {
			double *grown;
			cap = cap ? 2 * cap : 64 * (size_t)r->cols;
			if (!(grown = realloc(r->v, cap * sizeof *grown)))
				return weft__fail(ctx, WEFT_E_NOMEM,
						  "out of memory");
			r->v = grown;
		}
		st = ens_row(ctx, path, line, p, len,
			     r->v + (size_t)r->rows * r->cols, r->cols);
		r->rows++;
		p += len;
	}
	return st;
}

weft_status weft__ens_read_csv(weft_context *ctx, const char *path,
			       weft__ens_result *r)
{
	char *text = NULL;
	weft_status st;

	if ((st = ens_slurp(ctx, path, &text)))
		return st;
	st = ens_parse(ctx, path, text, r);
	free(text);
	return st;
}

/* ---- columns by name ------------------------------------------------------
 */

/* The index of name (len bytes) in header, or -1. */
static long ens_col(const char *header, const char *name, size_t len)
{
	return (long)weft__plot_column(header, name, len) - 1;
}

/* The sum of the columns "A+B" of row `row` of r; NAN when one is
 * missing. */
static double ens_sum(const weft__ens_result *r, uint32_t row,
		      const char *columns)
{
	double s = 0.0;

	for (const char *c = columns; *c;) {
		size_t len = strcspn(c, "+");
		long k = ens_col(r->header, c, len);
		if (k < 0)
			return NAN;
		s += r->v[(size_t)row * r->cols + (size_t)k];
		c += len;
		c += *c == '+';
	}
	return s;
}

/* One outcome of a run. */
static double ens_outcome(const weft__ens_result *r, long xcol,
			  const weft__ens_outcome *o)
{
	double v = 0.0, best = -INFINITY, at = 0.0, per = 1.0;

	for (uint32_t row = 0; row < r->rows; row++) {
		double s = ens_sum(r, row, o->columns);
		if (s > best) {
			best = s;
			at = r->v[(size_t)row * r->cols + (size_t)xcol];
		}
		v = o->kind == WEFT_OUTCOME_SUM ? v + s : s;
	}
	if (o->kind == WEFT_OUTCOME_MAX)
		v = best;
	else if (o->kind == WEFT_OUTCOME_ARGMAX)
		return at;
	if (o->per && r->rows)
		per = ens_sum(r, 0, o->per);
	return v / per * o->scale;
}

/* ---- statistics ---------------------------------------------------------- */

static int ens_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* numpy.quantile(v, q) of the n sorted values, method 'linear': the
 * virtual index n q + (1 - q) - 1 (numpy's own arithmetic), and numpy's
 * _lerp between its neighbours. */
static double ens_quantile(const double *v, size_t n, double q)
{
	double vi = (double)n * q + (1.0 + q * (1.0 - 1.0 - 1.0)) - 1.0;
	double lo = floor(vi), g = vi - lo, a, b, d;
	size_t i = lo < 0 ? 0 : (size_t)lo;

	if (i >= n - 1)
		return v[n - 1];
	a = v[i];
	b = v[i + 1];
	d = b - a;
	return g >= 0.5 ? b - d * (1.0 - g) : a + d * g;
}

/* mean, sample standard deviation (two passes, ddof = 1; NaN for one
 * run), quantiles of the runs' values that are numbers (as numpy's
 * nanmean, nanstd and nanquantile: a run's empty cell is left out; none
 * at all: NaN); v is reordered. */
static void ens_stats(double *v, size_t n, double out[2 + ENS_NQ])
{
	double sum = 0.0, ss = 0.0, mean;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	n = m;
	if (n == 0) {
		for (int q = 0; q < 2 + ENS_NQ; q++)
			out[q] = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	out[0] = mean;
	out[1] = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	qsort(v, n, sizeof *v, ens_cmp);
	for (int q = 0; q < ENS_NQ; q++)
		out[2 + q] = ens_quantile(v, n, ens_q[q]);
}

/* ---- one scenario ---------------------------------------------------------
 */

typedef struct ens_cols {
	long *idx; /* the aggregated columns, by index of the CSV */
	char **name;
	size_t n;
	long x;
} ens_cols;

static void ens_cols_free(ens_cols *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->name[i]);
	free(c->name);
	free(c->idx);
}

/* The aggregated columns of header: the model's list, or all but x. */
static weft_status ens_cols_find(weft_ensemble *e, const char *header,
				 ens_cols *c)
{
	const char *list = e->columns ? e->columns : header;
	size_t most = ens_ncols(list, strlen(list));

	c->x = ens_col(header, e->x, strlen(e->x));
	c->idx = calloc(most, sizeof *c->idx);
	c->name = calloc(most, sizeof *c->name);
	if (!c->idx || !c->name)
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	if (c->x < 0)
		return weft__fail(e->ctx, WEFT_E_MODEL,
				  "ensemble: %s has no column '%s' (its "
				  "header: %s)",
				  e->csv, e->x, header);
	for (const char *p = list;;) {
		size_t len = strcspn(p, ",");
		long k = ens_col(header, p, len);
		if (k < 0)
			return weft__fail(e->ctx, WEFT_E_MODEL,
					  "ensemble: %s has no column '%.*s' "
					  "(its header: %s)",
					  e->csv, (int)len, p, header);
		if (k != c->x) {
			c->idx[c->n] = k;
			if (!(c->name[c->n++] = strndup(p, len)))
				return weft__fail(e->ctx, WEFT_E_NOMEM,
						  "out of memory");
		}
		if (!p[len])
			return WEFT_OK;
		p += len + 1;
	}
}

/* The runs of group g agree on the header, the rows and the x column. */
static weft_status ens_agree(weft_ensemble *e, size_t g)
{
	const weft__ens_result *r0 = &e->res[g * e->per_group];

	for (size_t k = 1; k < e->per_group; k++) {
		const weft__ens_result *r = &e->res[g * e->per_group + k];
		if (strcmp(r->header, r0->header) != 0 || r->rows != r0->rows)
			return weft__fail(
				e->ctx, WEFT_E_MODEL,
				"ensemble: scenario %s: the runs "
				"with seeds %llu and %llu wrote %s "
				"of different %s",
				e->groups[g].label,
				(unsigned long long)e->groups[g].seed0,
				(unsigned long long)(e->groups[g].seed0 + k),
				e->csv,
				r->rows != r0->rows ? "lengths" : "columns");
	}
	return WEFT_OK;
}

static weft_status ens_write_row(weft_output *o, const weft_ensemble *e,
				 size_t g, const ens_cols *c, uint32_t row,
				 double *vals)
{
	const weft__ens_result *r0 = &e->res[g * e->per_group];
	char num[40];
	weft_status st;

	weft__ens_num(num, sizeof num,
		      r0->v[(size_t)row * r0->cols + (size_t)c->x]);
	if ((st = weft__output_printf(o, "%s", num)))
		return st;
	for (size_t j = 0; j < c->n; j++) {
		double s[2 + ENS_NQ];
		for (size_t k = 0; k < e->per_group; k++) {
			const weft__ens_result *r =
				&e->res[g * e->per_group + k];
			vals[k] =
				r->v[(size_t)row * r->cols + (size_t)c->idx[j]];
		}
		ens_stats(vals, e->per_group, s);
		for (int q = 0; q < 2 + ENS_NQ; q++) {
			weft__ens_num(num, sizeof num, s[q]);
			if ((st = weft__output_printf(o, ",%s", num)))
				return st;
		}
	}
	return weft__output_printf(o, "\n");
}

/* SCENARIO.csv: x, then per column its mean, std and quantiles. */
static weft_status ens_write_group(weft_ensemble *e, size_t g)
{
	const weft__ens_result *r0 = &e->res[g * e->per_group];
	ens_cols c = { 0 };
	char name[1100];
	weft_output *o;
	double *vals = NULL;
	weft_status st;

	if ((st = ens_agree(e, g)) || (st = ens_cols_find(e, r0->header, &c)))
		goto free_cols;
	weft__fmt(name, sizeof name, "%s.csv", e->groups[g].label);
	if ((st = weft__output_open(e->ctx, &e->out, name, &o)) ||
	    (st = weft__output_printf(o, "%s", e->x)))
		goto free_cols;
	for (size_t j = 0; st == WEFT_OK && j < c.n; j++)
		st = weft__output_printf(o,
					 ",%s_mean,%s_std,%s_q05,%s_q25,"
					 "%s_q50,%s_q75,%s_q95",
					 c.name[j], c.name[j], c.name[j],
					 c.name[j], c.name[j], c.name[j],
					 c.name[j]);
	if (st == WEFT_OK)
		st = weft__output_printf(o, "\n");
	if (st == WEFT_OK && !(vals = calloc(e->per_group, sizeof *vals)))
		st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	for (uint32_t row = 0; st == WEFT_OK && row < r0->rows; row++)
		st = ens_write_row(o, e, g, &c, row, vals);
free_cols:
	free(vals);
	ens_cols_free(&c);
	return st;
}

/* ---- the summary -----------------------------------------------------------
 */

/* The outcomes by default: the last row of every aggregated column. */
static weft_status ens_default_outcomes(weft_ensemble *e, const char *header)
{
	ens_cols c = { 0 };
	weft_status st = ens_cols_find(e, header, &c);

	if (st == WEFT_OK &&
	    !(e->outcomes = calloc(c.n + 1, sizeof *e->outcomes)))
		st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	for (size_t j = 0; st == WEFT_OK && j < c.n; j++) {
		weft__ens_outcome *o = &e->outcomes[e->n_outcomes++];
		o->name = weft__strcat(c.name[j], "_final");
		o->columns = weft__strdup(c.name[j]);
		o->kind = WEFT_OUTCOME_LAST;
		o->scale = 1.0;
		if (!o->name || !o->columns)
			st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	}
	ens_cols_free(&c);
	return st;
}

/* Outcome k of group g's runs, in run order, into v. */
static void ens_outcome_values(const weft_ensemble *e, size_t g, size_t k,
			       double *v)
{
	const weft__ens_result *r0 = &e->res[g * e->per_group];
	long xcol = ens_col(r0->header, e->x, strlen(e->x));

	for (size_t i = 0; i < e->per_group; i++)
		v[i] = ens_outcome(&r0[i], xcol, &e->outcomes[k]);
}

/* One outcome of group g over its runs: mean, q05, q95. */
static void ens_outcome_stats(const weft_ensemble *e, size_t g, size_t k,
			      double *vals, double s[2 + ENS_NQ])
{
	ens_outcome_values(e, g, k, vals);
	ens_stats(vals, e->per_group, s);
}

/* A scenario's line of summary.csv and of the summary. */
static weft_status ens_summary_group(weft_ensemble *e, weft_output *csv,
				     size_t g, double *vals)
{
	weft__ens_group *gr = &e->groups[g];
	char line[1024] = "", m[40], lo[40], hi[40];
	weft_status st;

	if ((st = weft__output_printf(csv, "%s,%zu,%zu", gr->label,
				      e->per_group, gr->failed)))
		return st;
	for (size_t k = 0; k < e->n_outcomes; k++) {
		double s[2 + ENS_NQ];
		if (gr->failed) {
			st = weft__output_printf(csv, ",,,");
			continue;
		}
		ens_outcome_stats(e, g, k, vals, s);
		weft__ens_num(m, sizeof m, s[0]);
		weft__ens_num(lo, sizeof lo, s[2]);
		weft__ens_num(hi, sizeof hi, s[2 + ENS_NQ - 1]);
		if ((st = weft__output_printf(csv, ",%s,%s,%s", m, lo, hi)))
			return st;
		weft__msg_add(line, sizeof line, "%s%s %.4g (%.4g-%.4g)",
			      k ? ", " : "", e->outcomes[k].name, s[0], s[2],
			      s[2 + ENS_NQ - 1]);
	}
	if (gr->failed)
		weft__fmt(line, sizeof line,
			  "%zu of %zu runs failed: no aggregates", gr->failed,
			  e->per_group);
	if (st == WEFT_OK)
		st = weft__output_printf(csv, "\n");
	return st ? st : weft__ens_summary(e, gr->label, "%s", line);
}

static weft_status ens_write_summary(weft_ensemble *e)
{
	weft_output *csv;
	double *vals = calloc(e->per_group, sizeof *vals);
	weft_status st;

	if (!vals)
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	st = weft__output_open(e->ctx, &e->out, "summary.csv", &csv);
	if (st == WEFT_OK)
		st = weft__output_printf(csv, "scenario,runs,failed");
	for (size_t k = 0; st == WEFT_OK && k < e->n_outcomes; k++)
		st = weft__output_printf(
			csv, ",%s_mean,%s_q05,%s_q95", e->outcomes[k].name,
			e->outcomes[k].name, e->outcomes[k].name);
	if (st == WEFT_OK)
		st = weft__output_printf(csv, "\n");
	for (size_t g = 0; st == WEFT_OK && g < e->n_groups; g++)
		st = ens_summary_group(e, csv, g, vals);
	free(vals);
	return st;
}

/* ---- paired differences ----------------------------------------------------
 */

/* Student's t distribution's 0.975 quantile for df degrees of freedom
 * (df >= 1): exact to 9 digits up to 30, then the Cornish-Fisher
 * expansion's first three terms (within 1e-4 at 31, closer beyond). */
static double ens_t975(size_t df)
{
	static const double t[30] = {
		12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184,
		2.44691185, 2.36462425, 2.30600414, 2.26215716, 2.22813885,
		2.20098516, 2.17881283, 2.16036866, 2.14478669, 2.13144955,
		2.11990530, 2.10981558, 2.10092204, 2.09302405, 2.08596345,
		2.07961384, 2.07387307, 2.06865761, 2.06389856, 2.05953855,
		2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246,
	};
	const double z = 1.959963984540054, z3 = z * z * z, z5 = z3 * z * z;
	double d = (double)df;

	if (df <= 30)
		return t[df - 1];
	return z + (z3 + z) / (4.0 * d) +
	       (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d);
}

/* Outcome k's differences of group g from group 0, seed by seed (run i of
 * every group has seed `seed + i`), into d (base: scratch); their mean,
 * std, the 95 % interval of the mean (Student's t) and q05, q95 into
 * s[6]. A pair where either run has no value is left out. */
static void ens_diff_stats(const weft_ensemble *e, size_t g, size_t k,
			   double *d, double *base, double s[6])
{
	double st[2 + ENS_NQ], half;
	size_t n = 0;

	ens_outcome_values(e, g, k, d);
	ens_outcome_values(e, 0, k, base);
	for (size_t i = 0; i < e->per_group; i++) {
		d[i] -= base[i];
		n += !isnan(d[i]);
	}
	ens_stats(d, e->per_group, st);
	half = n > 1 ? ens_t975(n - 1) * st[1] / sqrt((double)n) : NAN;
	s[0] = st[0];
	s[1] = st[1];
	s[2] = st[0] - half;
	s[3] = st[0] + half;
	s[4] = st[2];
	s[5] = st[2 + ENS_NQ - 1];
}

/* Scenario g's line of differences.csv, and its summary line. Its runs
 * pair with the first scenario's only when both have the same seeds (a
 * scenario or a sweep may set [simulation] seed): otherwise, as with a
 * failed run, the line has no values, and the summary says why. */
static weft_status ens_diff_group(weft_ensemble *e, weft_output *csv, size_t g,
				  double *d, double *base)
{
	const weft__ens_group *gr = &e->groups[g], *g0 = &e->groups[0];
	int failed = gr->failed || g0->failed;
	int unpaired = gr->seed0 != g0->seed0;
	char line[1024] = "", num[6][40];
	weft_status st = weft__output_printf(csv, "%s,%s,%zu", gr->label,
					     g0->label, e->per_group);

	for (size_t k = 0; st == WEFT_OK && k < e->n_outcomes; k++) {
		double s[6];

		if (failed || unpaired) {
			st = weft__output_printf(csv, ",,,,,,");
			continue;
		}
		ens_diff_stats(e, g, k, d, base, s);
		for (int j = 0; j < 6; j++)
			weft__ens_num(num[j], sizeof num[j], s[j]);
		st = weft__output_printf(csv, ",%s,%s,%s,%s,%s,%s", num[0],
					 num[1], num[2], num[3], num[4],
					 num[5]);
		weft__msg_add(line, sizeof line, "%s%s %+.4g (%.4g..%.4g)",
			      k ? ", " : "", e->outcomes[k].name, s[0], s[2],
			      s[3]);
	}
	if (st == WEFT_OK)
		st = weft__output_printf(csv, "\n");
	if (st || failed)
		return st;
	if (unpaired)
		return weft__ens_summary(
			e, "difference",
			"%s - %s: not paired (its seeds start at %llu, the "
			"first scenario's at %llu)",
			gr->label, g0->label, (unsigned long long)gr->seed0,
			(unsigned long long)g0->seed0);
	return weft__ens_summary(e, "difference", "%s - %s: %s", gr->label,
				 g0->label, line);
}

/* differences.csv: with several scenarios, each one's final outcomes
 * minus the first scenario's, paired seed by seed (the same seed gives
 * both runs the same population and draws wherever their histories
 * agree: far less noise than the difference of two means). */
static weft_status ens_write_differences(weft_ensemble *e)
{
	double *d, *base;
	weft_output *csv;
	weft_status st;

	if (e->n_groups < 2 || !e->n_outcomes)
		return WEFT_OK;
	d = calloc(e->per_group, sizeof *d);
	base = calloc(e->per_group, sizeof *base);
	if (!d || !base) {
		st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
		goto free_vals;
	}
	st = weft__output_open(e->ctx, &e->out, "differences.csv", &csv);
	if (st == WEFT_OK)
		st = weft__output_printf(csv, "scenario,baseline,pairs");
	for (size_t k = 0; st == WEFT_OK && k < e->n_outcomes; k++) {
		const char *n = e->outcomes[k].name;

		st = weft__output_printf(csv,
					 ",%s_diff_mean,%s_diff_std,"
					 "%s_diff_ci95_lo,%s_diff_ci95_hi,"
					 "%s_diff_q05,%s_diff_q95",
					 n, n, n, n, n, n);
	}
	if (st == WEFT_OK)
		st = weft__output_printf(csv, "\n");
	for (size_t g = 1; st == WEFT_OK && g < e->n_groups; g++)
		st = ens_diff_group(e, csv, g, d, base);
free_vals:
	free(base);
	free(d);
	return st;
}

/* summary.txt: the summary lines, then the failed runs. */
static weft_status ens_write_text(weft_ensemble *e)
{
	weft_output *o;
	const char *k, *v;
	weft_status st = weft__output_open(e->ctx, &e->out, "summary.txt", &o);

	for (size_t i = 0; st == WEFT_OK && i < e->n_summary; i++) {
		weft__ensemble_summary_at(e, i, &k, &v);
		st = weft__output_printf(o, "%-24s %s\n", k, v);
	}
	for (size_t i = 0; st == WEFT_OK && i < e->n_runs; i++) {
		const char *label;
		uint64_t seed;
		if (!e->res[i].failed)
			continue;
		weft__ensemble_run_info(e, i, &label, &seed);
		st = weft__output_printf(
			o, "failed run %zu (%s, seed %llu): %s\n", i, label,
			(unsigned long long)seed,
			e->res[i].error ? e->res[i].error : "");
	}
	return st;
}

weft_status weft__ens_aggregate(weft_ensemble *e)
{
	const char *header = NULL;
	size_t failed = 0;
	weft_status st = WEFT_OK;

	for (size_t g = 0; g < e->n_groups; g++) {
		e->groups[g].failed = 0;
		for (size_t k = 0; k < e->per_group; k++)
			e->groups[g].failed +=
				e->res[g * e->per_group + k].failed != 0;
		if (!e->groups[g].failed && !header)
			header = e->res[g * e->per_group].header;
		failed += e->groups[g].failed;
	}
	if ((st = weft__ens_summary(e, "runs",
				    "%zu (%zu scenarios x %zu seeds), %zu "
				    "failed",
				    e->n_runs, e->n_groups, e->per_group,
				    failed)))
		return st;
	if (e->batch_note &&
	    (st = weft__ens_summary(e, "batch", "%s", e->batch_note)))
		return st;
	if (e->crn_note &&
	    (st = weft__ens_summary(e, "crn",
				    "%s = true in every run: common random "
				    "numbers, the default when runs are "
				    "compared (set %s = false for the "
				    "model's default draws)",
				    e->crn_note, e->crn_note)))
		return st;
	if (e->crn_refused &&
	    (st = weft__ens_summary(e, "crn",
				    "the model's common random numbers are "
				    "off in every run: with them, %s",
				    e->crn_refused)))
		return st;
	if (header && !e->n_outcomes && (st = ens_default_outcomes(e, header)))
		return st;
	for (size_t g = 0; st == WEFT_OK && g < e->n_groups; g++)
		if (!e->groups[g].failed)
			st = ens_write_group(e, g);
	if (st == WEFT_OK)
		st = ens_write_summary(e);
	if (st == WEFT_OK)
		st = ens_write_differences(e);
	if (st == WEFT_OK)
		st = ens_write_text(e);
	return st;
}
