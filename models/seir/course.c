/*
 * models/seir/course.c - duration distributions and their threshold
 * tables, per-age values, transmissibility classes and fixed-point
 * conversions (course.h). Floating point is used here, on the host, once
 * per run; the kernels only compare integers against what this computes.
 */

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "course.h"

/* ---- numbers in the C locale --------------------------------------------- */

double weft__seir_strtod(const char *s, char **end)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	double v;

	if (c == (locale_t)0)
		return strtod(s, end);
	v = strtod_l(s, end, c);
	freelocale(c);
	return v;
}

/* A finite number starting at *s, blanks around it skipped; 0 on
 * success, -1 when there is none. */
static int course_number(const char **s, double *v)
{
	char *end;

	while (isspace((unsigned char)**s))
		(*s)++;
	*v = weft__seir_strtod(*s, &end);
	if (end == *s || !isfinite(*v))
		return -1;
	*s = end;
	while (isspace((unsigned char)**s))
		(*s)++;
	return 0;
}

/* ---- distribution functions -------------------------------------------- */

/* Regularised lower incomplete gamma P(a, x): the series below a + 1,
 * else the continued fraction for 1 - P (modified Lentz). */
static double course_gamma_p(double a, double x)
{
	double lead;

	if (x <= 0.0)
		return 0.0;
	lead = exp(-x + a * log(x) - lgamma(a));
	if (x < a + 1.0) {
		double sum = 1.0 / a, term = sum, ap = a;
		for (int i = 0; i < 10000 && fabs(term) > fabs(sum) * 1e-16;
		     i++) {
			ap += 1.0;
			term *= x / ap;
			sum += term;
		}
		return sum * lead;
	}
	double b = x + 1.0 - a, c = 1.0 / 1e-300, d = 1.0 / b, h = d;
	for (int i = 1; i < 10000; i++) {
		double an = -i * (i - a), del;
		b += 2.0;
		d = an * d + b;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		c = b + an / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-16)
			break;
	}
	return 1.0 - lead * h;
}

double weft__seir_dist_cdf(const seir_dist *d, double x)
{
	double v = d->sd * d->sd, m = d->mean;

	if (x <= 0.0)
		return 0.0;
	if (d->kind == SEIR_DIST_GAMMA) /* shape m^2/v, scale v/m */
		return course_gamma_p(m * m / v, x * m / v);
	if (d->kind == SEIR_DIST_LOGNORMAL) {
		double s2 = log(1.0 + v / (m * m)), mu = log(m) - s2 / 2.0;
		return 0.5 * erfc(-(log(x) - mu) / sqrt(2.0 * s2));
	}
	if (d->kind == SEIR_DIST_GEOMETRIC)
		return 1.0 - pow(1.0 - 1.0 / m, floor(x));
	return x >= m ? 1.0 : 0.0;
}

void weft__seir_dist_probs(const seir_dist *d, double p[SEIR_DUR_MAX])
{
	double below = 0.0;

	for (int day = 1; day < SEIR_DUR_MAX; day++) {
		/* fixed and geometric are whole days already; the others
		 * are rounded to the nearest day. */
		double x = d->kind == SEIR_DIST_GAMMA ||
					   d->kind == SEIR_DIST_LOGNORMAL
				   ? day + 0.5
				   : day;
		double f = weft__seir_dist_cdf(d, x);
		p[day - 1] = f > below ? f - below : 0.0;
		below = f > below ? f : below;
	}
	p[SEIR_DUR_MAX - 1] = below < 1.0 ? 1.0 - below : 0.0;
}

/* A term on 0..SEIR_DUR_MAX days: a continuous one rounded to the
 * nearest day (0 allowed), the tail from SEIR_DUR_MAX - 0.5 on lumped in
 * the last. */
static void course_term_probs(const seir_dist *d, double q[SEIR_DUR_MAX + 1])
{
	double below = 0.0;
	int cont = d->kind == SEIR_DIST_GAMMA || d->kind == SEIR_DIST_LOGNORMAL;

	for (int day = 0; day < SEIR_DUR_MAX; day++) {
		double f = weft__seir_dist_cdf(d, cont ? day + 0.5 : day);
		q[day] = f > below ? f - below : 0.0;
		below = f > below ? f : below;
	}
	q[SEIR_DUR_MAX] = below < 1.0 ? 1.0 - below : 0.0;
}

void weft__seir_dur_probs(const seir_dur *d, double p[SEIR_DUR_MAX])
{
	double sum[SEIR_DUR_MAX + 1] = { 1.0 }, q[SEIR_DUR_MAX + 1];

	for (int t = 0; t < d->n; t++) {
		double next[SEIR_DUR_MAX + 1] = { 0.0 };
		course_term_probs(&d->term[t], q);
		for (int i = 0; i <= SEIR_DUR_MAX; i++)
			for (int j = 0; j <= SEIR_DUR_MAX; j++) {
				int k = i + j < SEIR_DUR_MAX ? i + j
							     : SEIR_DUR_MAX;
				next[k] += sum[i] * q[j];
			}
		memcpy(sum, next, sizeof sum);
	}
	for (int day = 1; day <= SEIR_DUR_MAX; day++)
		p[day - 1] = sum[day];
	p[0] += sum[0];
}

/* The sum of terms [from, to) on 0..SEIR_DUR_MAX days, 0 kept, sums
 * beyond SEIR_DUR_MAX lumped in the last (no terms: 0 days). */
static void course_terms_sum(const seir_dur *d, int from, int to,
			     double sum[SEIR_DUR_MAX + 1])
{
	double q[SEIR_DUR_MAX + 1];

	memset(sum, 0, (SEIR_DUR_MAX + 1) * sizeof *sum);
	sum[0] = 1.0;
	for (int t = from; t < to; t++) {
		double next[SEIR_DUR_MAX + 1] = { 0.0 };
		course_term_probs(&d->term[t], q);
		for (int i = 0; i <= SEIR_DUR_MAX; i++)
			for (int j = 0; j <= SEIR_DUR_MAX; j++)
				next[i + j < SEIR_DUR_MAX ? i + j
							  : SEIR_DUR_MAX] +=
					sum[i] * q[j];
		memcpy(sum, next, sizeof next);
	}
}

/* Cumulative thresholds of a distribution on 0..SEIR_DUR_MAX days, for
 * seir_stage_days(). */
static void course_stage_table(const double p[SEIR_DUR_MAX + 1],
			       uint32_t cum[SEIR_DUR_MAX + 1])
{
	double sum = 0.0;

	for (int i = 0; i <= SEIR_DUR_MAX; i++) {
		double t;
		sum += p[i];
		t = floor(sum * 4294967296.0 + 0.5);
		cum[i] = t >= 4294967295.0 ? 4294967295u : (uint32_t)t;
	}
	cum[SEIR_DUR_MAX] = 4294967295u;
}

void weft__seir_stage_tables(const seir_dur *d, int critical,
			     uint32_t out[SEIR_STAGES][SEIR_DUR_MAX + 1])
{
	int last = d->n - 1;
	int to_crit = critical && d->n >= 2 ? last - 1 : last;
	double p[SEIR_DUR_MAX + 1];

	course_terms_sum(d, 0, to_crit, p);
	course_stage_table(p, out[SEIR_STAGE_TO_SEV]);
	course_terms_sum(d, to_crit, last, p);
	course_stage_table(p, out[SEIR_STAGE_TO_CRIT]);
	course_terms_sum(d, last, d->n, p);
	course_stage_table(p, out[SEIR_STAGE_REST]);
}

void weft__seir_dist_table(const double p[SEIR_DUR_MAX],
			   uint32_t cum[SEIR_DUR_MAX])
{
	double sum = 0.0;

	for (int i = 0; i < SEIR_DUR_MAX; i++) {
		double t;
		sum += p[i];
		t = floor(sum * 4294967296.0 + 0.5);
		cum[i] = t >= 4294967295.0 ? 4294967295u : (uint32_t)t;
	}
	cum[SEIR_DUR_MAX - 1] = 4294967295u;
}

/* ---- parsing durations -------------------------------------------------- */

static const char dist_forms[] = "expected fixed(DAYS), geometric(MEAN), "
				 "gamma(MEAN, SD) or lognormal(MEAN, SD)";

/* The name before '(' and the numbers inside; the count in *n. */
static int course_call(const char *text, char *name, size_t name_size,
		       double *args, int max_args, int *n, char *why,
		       size_t why_size)
{
	const char *s = text;
	size_t len = 0;

	*n = 0;
	while (isspace((unsigned char)*s))
		s++;
	while (isalpha((unsigned char)s[len]) && len + 1 < name_size)
		len++;
	memcpy(name, s, len);
	name[len] = '\0';
	s += len;
	while (isspace((unsigned char)*s))
		s++;
	if (len == 0 || *s != '(') {
		snprintf(why, why_size, "%s", dist_forms);
		return -1;
	}
	s++;
	while (*n < max_args) {
		if (course_number(&s, &args[*n]) != 0) {
			snprintf(why, why_size,
				 "%s(...): expected a number at '%.20s'", name,
				 s);
			return -1;
		}
		(*n)++;
		if (*s != ',')
			break;
		s++;
	}
	if (*s != ')' || s[1 + strspn(s + 1, " \t")] != '\0') {
		snprintf(why, why_size, "%s(...): expected ')' at the end",
			 name);
		return -1;
	}
	return 0;
}

/* Names, argument counts and what the arguments mean, by kind. */
static const struct {
	const char *name;
	seir_dist_kind kind;
	int args;
	const char *form;
} dist_kinds[] = {
	{ "fixed", SEIR_DIST_FIXED, 1, "fixed(DAYS)" },
	{ "geometric", SEIR_DIST_GEOMETRIC, 1, "geometric(MEAN)" },
	{ "gamma", SEIR_DIST_GAMMA, 2, "gamma(MEAN, SD)" },
	{ "lognormal", SEIR_DIST_LOGNORMAL, 2, "lognormal(MEAN, SD)" },
};

static int course_dist_check(const seir_dist *d, const char *form, char *why,
			     size_t why_size)
{
	double m = d->mean;

	if (d->kind == SEIR_DIST_FIXED &&
	    (m != floor(m) || m < 1 || m > SEIR_DUR_MAX)) {
		snprintf(why, why_size,
			 "%s: DAYS must be a whole number from 1 to %d", form,
			 SEIR_DUR_MAX);
		return -1;
	}
	if (d->kind == SEIR_DIST_GEOMETRIC && (m < 1 || m > SEIR_DUR_MAX)) {
		snprintf(why, why_size, "%s: MEAN must be from 1 to %d", form,
			 SEIR_DUR_MAX);
		return -1;
	}
	if ((d->kind == SEIR_DIST_GAMMA || d->kind == SEIR_DIST_LOGNORMAL) &&
	    (m <= 0 || m > SEIR_DUR_MAX || d->sd <= 0 || d->sd > 10 * m)) {
		snprintf(why, why_size,
			 "%s: MEAN must be above 0 and at most %d days, SD "
			 "above 0 and at most 10 times MEAN",
			 form, SEIR_DUR_MAX);
		return -1;
	}
	return 0;
}

int weft__seir_dist_parse(const char *text, seir_dist *d, char *why,
			  size_t why_size)
{
	char name[16];
	double args[3];
	int n;

	if (course_call(text, name, sizeof name, args, 3, &n, why, why_size))
		return -1;
	for (size_t k = 0; k < sizeof dist_kinds / sizeof dist_kinds[0]; k++) {
		if (strcmp(name, dist_kinds[k].name) != 0)
			continue;
		if (n != dist_kinds[k].args) {
			snprintf(why, why_size, "expected %s: %d number%s",
				 dist_kinds[k].form, dist_kinds[k].args,
				 dist_kinds[k].args > 1 ? "s" : "");
			return -1;
		}
		d->kind = dist_kinds[k].kind;
		d->mean = args[0];
		d->sd = n > 1 ? args[1] : 0.0;
		return course_dist_check(d, dist_kinds[k].form, why, why_size);
	}
	snprintf(why, why_size, "unknown distribution '%s'; %s", name,
		 dist_forms);
	return -1;
}

int weft__seir_dur_parse(const char *text, seir_dur *d, char *why,
			 size_t why_size)
{
	char term[128];
	const char *s = text;

	d->n = 0;
	for (;;) {
		size_t len = strcspn(s, "+");
		if (d->n == SEIR_DUR_TERMS) {
			snprintf(why, why_size, "more than %d terms",
				 SEIR_DUR_TERMS);
			return -1;
		}
		snprintf(term, sizeof term, "%.*s", (int)len, s);
		if (weft__seir_dist_parse(term, &d->term[d->n], why, why_size))
			return -1;
		d->n++;
		if (s[len] == '\0')
			return 0;
		s += len + 1;
	}
}

/* ---- per-age values ---------------------------------------------------- */

int weft__seir_parse_by_age(const char *text, double lo, double hi,
			    double out[SEIR_AGE_BINS], char *why,
			    size_t why_size)
{
	const char *s = text;
	int n = 0;

	for (;;) {
		double v;
		if (course_number(&s, &v) != 0) {
			snprintf(why, why_size,
				 "expected a number at '%.20s' (one value, or "
				 "%d for ages 0-9, 10-19, ..., 90+, separated "
				 "by commas)",
				 s, SEIR_AGE_BINS);
			return -1;
		}
		if (v < lo || v > hi) {
			snprintf(why, why_size,
				 "value %d (%g) is outside %g to %g", n + 1, v,
				 lo, hi);
			return -1;
		}
		if (n < SEIR_AGE_BINS)
			out[n] = v;
		n++;
		if (*s == '\0')
			break;
		if (*s != ',') {
			snprintf(why, why_size, "expected ',' at '%.20s'", s);
			return -1;
		}
		s++;
	}
	if (n != 1 && n != SEIR_AGE_BINS) {
		snprintf(why, why_size,
			 "%d values; expected 1 (every age) or %d (ages 0-9, "
			 "10-19, ..., 90+)",
			 n, SEIR_AGE_BINS);
		return -1;
	}
	for (int b = n; b < SEIR_AGE_BINS; b++)
		out[b] = out[0];
	return 0;
}

/* ---- transmissibility classes ------------------------------------------ */

void weft__seir_rel_trans(double k, double out[SEIR_REL_CLASSES])
{
	/* NB(r = k, p = k / (100 + k)): P(0) = p^r, P(x + 1) = P(x) (x + r)
	 * (1 - p) / (x + 1). Walk the values in order, sharing each one's
	 * mass out among the classes its quantiles cover. */
	double p = k / (100.0 + k), px, x = 0.0, mass = 0.0,
	       sum[SEIR_REL_CLASSES] = { 0.0 };
	double total = 0.0, w = 1.0 / SEIR_REL_CLASSES;
	int c = 0;

	if (k <= 0.0) {
		for (c = 0; c < SEIR_REL_CLASSES; c++)
			out[c] = 1.0;
		return;
	}
	px = exp(k * log(p));
	while (c < SEIR_REL_CLASSES && x < 1e7) {
		double left = px;
		while (left > 0.0 && c < SEIR_REL_CLASSES) {
			double take = mass + left > w ? w - mass : left;
			sum[c] += take * x * 0.01;
			mass += take;
			left -= take;
			if (mass >= w * (1.0 - 1e-12)) {
				c++;
				mass = 0.0;
			}
		}
		px *= (x + k) * (1.0 - p) / (x + 1.0);
		x += 1.0;
		if (px < 1e-300 && x > 100.0)
			break;
	}
	for (c = 0; c < SEIR_REL_CLASSES; c++)
		total += sum[c];
	/* The classes' mean is E[X] = 1 but for the tail's rounding. */
	for (c = 0; c < SEIR_REL_CLASSES; c++)
		out[c] = sum[c] / (w * total);
}

uint32_t weft__seir_viral_early(double frac, double cap, uint32_t dur)
{
	float f = (float)frac, c = (float)cap, d = (float)dur;
	float point = f * d > c ? c / d : f;
	uint32_t e = 0;

	while (e < dur && (double)e / dur < (double)point)
		e++;
	return e;
}

/* ---- fixed point ------------------------------------------------------- */

uint32_t weft__seir_threshold(double p)
{
	double t = floor(p * 4294967296.0);
	return t >= 4294967295.0 ? 4294967295u : t <= 0.0 ? 0u : (uint32_t)t;
}

static uint32_t course_fixed(double x, double one)
{
	double t = floor(x * one + 0.5);
	return t >= 4294967295.0 ? 4294967295u : t <= 0.0 ? 0u : (uint32_t)t;
}

uint32_t weft__seir_q16(double x)
{
	return course_fixed(x, 65536.0);
}

uint32_t weft__seir_q28(double x)
{
	return course_fixed(x, 268435456.0);
}
