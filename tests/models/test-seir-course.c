/*
 * tests/models/test-seir-course.c - SEIR's duration distributions, checked on
 * the host with the kernels' own sampling function (seir_duration() from
 * models/seir/seir_shared.h, compiled with the host prelude) and the
 * kernels' generator (weft_philox):
 *
 *  - a table's mean is within 0.1 day of the configured mean for every
 *    distribution used by the presets (the table rounds to whole days and
 *    puts what falls below 1.5 days on day 1, so a distribution with much
 *    mass below a day, which none of the presets has, would exceed that);
 *  - 200,000 sampled durations: their mean is within 4 standard errors of
 *    the table's mean, and Pearson's chi-square against the table's
 *    probabilities (bins merged until each expects at least 5) is below
 *    the 0.1 % critical value of its degrees of freedom; the same samples
 *    fail against a distribution whose mean is 5 % higher, so the test
 *    can fail;
 *  - every threshold boundary gives exactly the day it should;
 *  - per-age lists, transmissibility classes and the interventions parser,
 *    with their error messages.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "course.h"
#include "tap.h"

#define N_SAMPLES 200000

/* Mean of the table's distribution (probabilities from the thresholds, as
 * the sampler sees them). */
static double table_mean(const uint32_t *cum, double *prob)
{
	double mean = 0.0, below = 0.0;

	for (int d = 1; d <= SEIR_DUR_MAX; d++) {
		double c =
			cum[d - 1] == 0xFFFFFFFFu ? 4294967296.0 : cum[d - 1];
		prob[d - 1] = (c - below) / 4294967296.0;
		below = c;
		mean += d * prob[d - 1];
	}
	return mean;
}

/* Pearson's chi-square of the counts against prob, bins merged from day
 * 1 up until each expects at least 5; the degrees of freedom in *df. */
static double chi_square(const uint32_t *count, const double *prob, int *df)
{
	double chi = 0.0, e = 0.0, o = 0.0;
	int bins = 0;

	for (int d = 0; d < SEIR_DUR_MAX; d++) {
		e += prob[d] * N_SAMPLES;
		o += count[d];
		if (e < 5.0 && d + 1 < SEIR_DUR_MAX)
			continue;
		if (e > 0.0) {
			chi += (o - e) * (o - e) / e;
			bins++;
		} else if (o > 0.0) {
			chi += 1e9; /* a day the table cannot give */
		}
		e = o = 0.0;
	}
	*df = bins - 1;
	return chi;
}

/* The 0.1 % critical value of chi-square (Wilson-Hilferty). */
static double chi_critical(int df)
{
	double z = 3.090232, k = df > 0 ? df : 1;
	double t = 1.0 - 2.0 / (9.0 * k) + z * sqrt(2.0 / (9.0 * k));

	return k * t * t * t;
}

static void table_of(const char *spec, uint32_t *cum)
{
	seir_dist d;
	double p[SEIR_DUR_MAX];
	char why[256];

	if (weft__seir_dist_parse(spec, &d, why, sizeof why))
		tap_bail("%s: %s", spec, why);
	weft__seir_dist_probs(&d, p);
	weft__seir_dist_table(p, cum);
}

static void check_dist(const char *spec, double mean, const char *worse)
{
	uint32_t cum[SEIR_DUR_MAX], other[SEIR_DUR_MAX];
	uint32_t count[SEIR_DUR_MAX] = { 0 };
	double prob[SEIR_DUR_MAX], oprob[SEIR_DUR_MAX];
	double tm, sum = 0.0, sum2 = 0.0, sm, se, chi, ochi;
	int df, odf;

	table_of(spec, cum);
	table_of(worse, other);
	tm = table_mean(cum, prob);
	table_mean(other, oprob);
	tap_ok(fabs(tm - mean) <= 0.1,
	       "%s: the table's mean %.4f is within 0.1 day of %g", spec, tm,
	       mean);
	for (uint32_t i = 0; i < N_SAMPLES; i++) {
		uint32_t draw =
			weft_philox(7u, 0u, i, 0u, 0u, SEIR_PURPOSE_LATENT)
				.v[0];
		uint32_t d = seir_duration(cum, draw);
		count[d - 1]++;
		sum += d;
		sum2 += (double)d * d;
	}
	sm = sum / N_SAMPLES;
	se = sqrt((sum2 / N_SAMPLES - sm * sm) / N_SAMPLES);
	tap_ok(fabs(sm - tm) <= 4.0 * se + 1e-12,
	       "%s: sampled mean %.4f within 4 standard errors (%.4f) of the "
	       "table's",
	       spec, sm, se);
	chi = chi_square(count, prob, &df);
	tap_ok(chi < chi_critical(df),
	       "%s: chi-square %.1f < %.1f (0.1 %%, %d degrees of freedom)",
	       spec, chi, chi_critical(df), df);
	ochi = chi_square(count, oprob, &odf);
	tap_ok(ochi > chi_critical(odf),
	       "%s: the same samples fail against %s (chi-square %.0f > %.1f)",
	       spec, worse, ochi, chi_critical(odf));
}

static void test_distributions(void)
{
	/* The presets' distributions (Covasim's, models/seir/seir.md), and a
	 * geometric one; each against one with a 5 % larger mean. */
	check_dist("lognormal(4.6, 4.8)", 4.6, "lognormal(4.83, 4.8)");
	check_dist("lognormal(8, 2)", 8.0, "lognormal(8.4, 2)");
	check_dist("lognormal(9, 2.2)", 9.0, "lognormal(9.45, 2.2)");
	check_dist("lognormal(16.8, 9.1)", 16.8, "lognormal(17.6, 9.1)");
	check_dist("gamma(8, 2)", 8.0, "gamma(8.4, 2)");
	check_dist("gamma( 5.5 ,3 )", 5.5, "gamma(5.8, 3)");
	check_dist("geometric(5)", 5.0, "geometric(5.25)");
}

static void test_fixed_and_bounds(void)
{
	uint32_t cum[SEIR_DUR_MAX];
	int exact = 1;

	table_of("fixed(3)", cum);
	tap_ok(seir_duration(cum, 0) == 3 &&
		       seir_duration(cum, 0xFFFFFFFFu) == 3 &&
		       seir_duration(cum, 0x80000000u) == 3,
	       "fixed(3) always gives 3 days");
	table_of("fixed(120)", cum);
	tap_ok(seir_duration(cum, 0) == 120, "fixed(120) gives 120 days");
	/* The first day whose threshold exceeds the draw, at every
	 * boundary of a wide table. */
	table_of("lognormal(16.8, 9.1)", cum);
	for (int d = 1; d < SEIR_DUR_MAX; d++) {
		uint32_t lo = d > 1 ? cum[d - 2] : 0;
		if (cum[d - 1] == lo)
			continue; /* a day of probability 0 */
		exact &= seir_duration(cum, cum[d - 1] - 1) == (uint32_t)d &&
			 seir_duration(cum, lo) == (uint32_t)d;
	}
	tap_ok(exact, "each day d is drawn exactly for draws in [cum[d-1], "
		      "cum[d])");
	{
		int top = 0;
		while (cum[top] != 0xFFFFFFFFu)
			top++;
		tap_ok(cum[SEIR_DUR_MAX - 1] == 0xFFFFFFFFu &&
			       seir_duration(cum, 0xFFFFFFFFu) ==
				       (uint32_t)top + 1 &&
			       seir_duration(cum, 0xFFFFFFFEu) ==
				       (uint32_t)top + 1,
		       "the largest draws give the first day whose threshold "
		       "is 2^32 - 1 (day %d)",
		       top + 1);
	}
}

static void parse_fails(const char *spec, const char *want)
{
	seir_dist d;
	char why[256] = "";
	int rc = weft__seir_dist_parse(spec, &d, why, sizeof why);

	tap_ok(rc == -1, "'%s' is refused", spec);
	tap_contains(why, want, "  ...saying why");
}

static void test_parse(void)
{
	seir_dist d;
	char why[256];

	tap_ok(weft__seir_dist_parse(" lognormal( 4.6 , 4.8 ) ", &d, why,
				     sizeof why) == 0 &&
		       d.kind == SEIR_DIST_LOGNORMAL && d.mean == 4.6 &&
		       d.sd == 4.8,
	       "blanks are allowed around names and numbers");
	parse_fails("normal(3, 1)", "unknown distribution 'normal'; expected "
				    "fixed(DAYS), geometric(MEAN), "
				    "gamma(MEAN, SD) or lognormal(MEAN, SD)");
	parse_fails("gamma(3)", "expected gamma(MEAN, SD): 2 numbers");
	parse_fails("fixed(2, 3)", "expected fixed(DAYS): 1 number");
	parse_fails("fixed(0)",
		    "fixed(DAYS): DAYS must be a whole number from 1 to 120");
	parse_fails("fixed(2.5)", "DAYS must be a whole number");
	parse_fails("geometric(0.5)", "geometric(MEAN): MEAN must be from 1");
	parse_fails("lognormal(5, 0)", "SD above 0");
	parse_fails("gamma(200, 3)", "at most 120 days");
	parse_fails("lognormal(5, x)", "lognormal(...): expected a number at "
				       "'x)'");
	parse_fails("gamma(5, 2", "gamma(...): expected ')' at the end");
	parse_fails("gamma(5, 2) extra", "expected ')' at the end");
	parse_fails("3", "expected fixed(DAYS)");
}

static void test_by_age(void)
{
	double v[SEIR_AGE_BINS];
	char why[256] = "";

	tap_ok(weft__seir_parse_by_age("0.5", 0, 1, v, why, sizeof why) == 0 &&
		       v[0] == 0.5 && v[9] == 0.5,
	       "one value applies to every age bin");
	tap_ok(weft__seir_parse_by_age("0,1,2,3,4,5,6,7,8,9", 0, 10, v, why,
				       sizeof why) == 0 &&
		       v[0] == 0 && v[9] == 9,
	       "ten values, one per bin");
	tap_ok(weft__seir_parse_by_age("0.1, 0.2", 0, 1, v, why, sizeof why) ==
		       -1,
	       "two values are refused");
	tap_contains(why, "2 values; expected 1 (every age) or 10",
		     "  ...saying how many are expected");
	weft__seir_parse_by_age("0.1, 1.5", 0, 1, v, why, sizeof why);
	tap_contains(why, "value 2 (1.5) is outside 0 to 1",
		     "a value out of range is named");
	weft__seir_parse_by_age("0.1; 0.2", 0, 1, v, why, sizeof why);
	tap_contains(why, "expected ',' at '; 0.2'", "a wrong separator");
}

static void test_rel_trans(void)
{
	double c[SEIR_REL_CLASSES], mean = 0.0, var = 0.0;
	int rising = 1;

	weft__seir_rel_trans(0.45, c);
	for (int i = 0; i < SEIR_REL_CLASSES; i++) {
		mean += c[i] / SEIR_REL_CLASSES;
		var += c[i] * c[i] / SEIR_REL_CLASSES;
		rising &= i == 0 || c[i] >= c[i - 1];
	}
	var -= mean * mean;
	tap_ok(fabs(mean - 1.0) < 1e-9 && rising,
	       "k = 0.45: %d non-decreasing classes of mean 1 (%.12f), %.3f "
	       "to %.3f",
	       SEIR_REL_CLASSES, mean, c[0], c[SEIR_REL_CLASSES - 1]);
	/* Covasim's NB(mean 100, dispersion k) x 0.01 has variance 0.01 +
	 * 1/k (2.2322 for 0.45); binning loses the spread within classes,
	 * little of it with 256. */
	tap_ok(var < 0.01 + 1.0 / 0.45 && var > 0.98 * (0.01 + 1.0 / 0.45),
	       "  ...their variance %.4f is within 2%% of the negative "
	       "binomial's %.4f",
	       var, 0.01 + 1.0 / 0.45);
	/* P(0) = (k / (100 + k))^k: 8.77 % of agents never transmit. */
	tap_ok(c[21] == 0.0 && c[22] > 0.0,
	       "  ...the 22 lowest classes (8.6 %%) are 0, as P(0) = 8.77 %%");
	weft__seir_rel_trans(0.0, c);
	tap_ok(c[0] == 1.0 && c[SEIR_REL_CLASSES - 1] == 1.0,
	       "k = 0: every class is 1");
}

static void iv_fails(const char *text, const char *want)
{
	seir_intervention iv[SEIR_MAX_INTERVENTIONS];
	size_t n;
	char why[256] = "";

	tap_ok(weft__seir_interventions_parse(text, iv, &n, why, sizeof why) ==
		       -1,
	       "interventions '%s' are refused", text);
	tap_contains(why, want, "  ...naming the bad entry");
}

static void test_interventions(void)
{
	seir_intervention iv[SEIR_MAX_INTERVENTIONS];
	seir_beta_spec b = { .beta = 0.5,
			     .layer_beta = { 1, 1, 1, 2 },
			     .iv = iv,
			     .iso_factor = 0.25,
			     .iso_start = 3,
			     .n_days = 100 };
	uint32_t last, *t;
	char why[256] = "";

	tap_ok(weft__seir_interventions_parse(" school 30-90 0, work+community "
					      "40-80 0.5 ,all 45-60 0.3 ",
					      iv, &b.n_iv, why,
					      sizeof why) == 0 &&
		       b.n_iv == 3 && iv[0].layers == 2 && iv[0].first == 30 &&
		       iv[0].last == 90 && iv[0].factor == 0 &&
		       iv[1].layers == 12 && iv[2].layers == 15 &&
		       iv[2].factor == 0.3,
	       "three entries parsed (%s)", why);
	t = weft__seir_beta_table(&b, &last);
	tap_ok(t && last == 91, "the table stops changing after day 90");
	tap_ok(t && t[0 * 8 + 3] == weft__seir_q28(1.0) &&
		       t[29 * 8 + 1] == weft__seir_q28(0.5) &&
		       t[30 * 8 + 1] == 0 && t[90 * 8 + 1] == 0 &&
		       t[91 * 8 + 1] == weft__seir_q28(0.5),
	       "school closed on days 30 to 90 only");
	tap_ok(t && t[50 * 8 + 3] == weft__seir_q28(0.5 * 2 * 0.5 * 0.3) &&
		       t[50 * 8 + 0] == weft__seir_q28(0.5 * 0.3),
	       "overlapping entries multiply");
	tap_ok(t && t[2 * 8 + 4] == t[2 * 8 + 0] &&
		       t[3 * 8 + 4] == weft__seir_q28(0.5 * 0.25),
	       "isolation applies from its first day");
	free(t);
	/* Seasonal forcing: every day its row, the cosine times the
	 * interventions' factors (phase 10: the peak on day 10). */
	b.season_factor = 0.4;
	b.season_phase = 10;
	t = weft__seir_beta_table(&b, &last);
	tap_ok(t && last == 100 && t[10 * 8 + 0] == weft__seir_q28(0.5 * 1.4) &&
		       t[50 * 8 + 0] ==
			       weft__seir_q28(
				       0.5 * 0.3 *
				       (1 +
					0.4 * cos(2 * 3.14159265358979323846 *
						  40 / 365))) &&
		       t[99 * 8 + 3] ==
			       weft__seir_q28(
				       0.5 * 2 *
				       (1 +
					0.4 * cos(2 * 3.14159265358979323846 *
						  89 / 365))),
	       "seasonality: a row a day, 1 + 0.4 cos(2 pi (t - 10) / 365) "
	       "times the interventions' factors");
	free(t);
	b.season_factor = 0;
	tap_ok(weft__seir_interventions_parse("  ", iv, &b.n_iv, why,
					      sizeof why) == 0 &&
		       b.n_iv == 0,
	       "an empty string is no intervention");
	iv_fails("schol 30-90 0", "'schol 30-90 0': unknown layer 'schol' "
				  "(layers: home, school, work, community, "
				  "all)");
	iv_fails("school 30 0", "'school 30 0': '30' is not a range of days "
				"FIRST-LAST");
	iv_fails("school 90-30 0",
		 "'school 90-30 0': the last day 30 comes before the first 90");
	iv_fails("school 0-30 0", "'0-30' is not a range of days");
	iv_fails("school 30-90 x", "'school 30-90 x': 'x' is not a factor");
	iv_fails("school 30-90 -1", "'-1' is not a factor");
	iv_fails("school 30-90", "'school 30-90': expected LAYERS FIRST-LAST "
				 "FACTOR, for example 'school 30-90 0'");
	iv_fails("school 1-2 0,, work 1-2 0", "entry 2 is empty");
}

/* ---- viral load -----------------------------------------------------------
 */

/* Covasim's compute_viral_load() for one agent infectious for dur days, on
 * its day e (t - date_infectious), in double precision as Covasim computes
 * it; *early says which level. The cap shortens the early part, but the
 * levels are divided by 1 + frac_time (ratio - 1) whatever the cap:
 * "load = (load_ratio * early + load * ~early) / (load + frac_time *
 * (load_ratio - load))" (covasim/utils.py, 3.1.9). */
static double covasim_load(double frac, double ratio, double cap, int dur,
			   int e, int *early)
{
	/* Covasim's default precision is 32 bits: its dates, durations
	 * and viral_dist are floats, and numba computes (t - start) / total
	 * in double (an integer minus a float), compared with the float
	 * turning point. */
	float f = (float)frac, c = (float)cap, d = (float)dur;
	float trans_point = f * d > c ? c / d : f;

	*early = (double)e / dur < (double)trans_point;
	return (*early ? ratio : 1.0) / (1.0 + frac * (ratio - 1.0));
}

/* Every duration 1 to SEIR_DUR_MAX, every day of it: the kernels' level
 * (seir_viral_q16() of seir_shared.h, compiled with the host prelude)
 * (early or late) is Covasim's exactly, and the factor within 2 / 65536. */
static void viral_load_case(double frac, double ratio, double cap)
{
	seir_params p;
	int wrong_level = 0, n = 0;
	double worst = 0;

	memset(&p, 0, sizeof p);
	p.vl_on = 1;
	p.vl_frac_pm = (uint32_t)lround(frac * 1000);
	p.vl_ratio_q16 = weft__seir_q16(ratio);
	for (uint32_t d = 0; d <= SEIR_DUR_MAX; d++)
		p.vl_early[d] = weft__seir_viral_early(frac, cap, d);
	for (int dur = 1; dur <= SEIR_DUR_MAX; dur++)
		for (int e = 0; e < dur; e++) {
			int early;
			double want =
				covasim_load(frac, ratio, cap, dur, e, &early);
			double got =
				seir_viral_q16(&p, (weft_u32)dur, (weft_u32)e) /
				65536.0;
			double high =
				seir_viral_q16(&p, (weft_u32)dur, 0u) / 65536.0;

			/* With ratio 1 both levels are 1. */
			wrong_level += ratio > 1.0 && early != (got == high);
			if (fabs(got - want) > worst)
				worst = fabs(got - want);
			n++;
		}
	tap_ok(wrong_level == 0 && worst <= 2.0 / 65536,
	       "viral load (frac %.3g, ratio %g, cap %g): Covasim's early and "
	       "late days and factors on %d infectious days (%d levels wrong, "
	       "largest difference %.2g)",
	       frac, ratio, cap, n, wrong_level, worst);
}

static void test_viral_load(void)
{
	seir_params p;

	viral_load_case(0.3, 2.0, 4.0); /* Covasim's viral_dist */
	viral_load_case(0.5, 3.0, 10.0);
	viral_load_case(0.25, 1.0, 4.0); /* ratio 1: all 1 */
	memset(&p, 0, sizeof p);
	p.vl_frac_pm = 300;
	p.vl_ratio_q16 = weft__seir_q16(2.0);
	for (uint32_t d = 0; d <= SEIR_DUR_MAX; d++)
		p.vl_early[d] = weft__seir_viral_early(0.3, 4.0, d);
	/* Covasim with 32-bit floats: 3 / 10 is below 0.3f, so a 10-day
	 * period has 4 early days; 9 days have 3 (2.7); 16 days have 4 (4 /
	 * 16 is exact) but 14 days 5 (4 / 14 is below (float)(4 / 14)). */
	tap_ok(p.vl_early[10] == 4 && p.vl_early[9] == 3 &&
		       p.vl_early[16] == 4 && p.vl_early[14] == 5 &&
		       seir_viral_q16(&p, 20, 4) > seir_viral_q16(&p, 20, 5) &&
		       seir_viral_q16(&p, 20, 5) == seir_viral_q16(&p, 20, 19),
	       "the early days as Covasim's float32 arithmetic counts them "
	       "(9: %u, 10: %u, 14: %u, 16: %u days)",
	       p.vl_early[9], p.vl_early[10], p.vl_early[14], p.vl_early[16]);
	tap_ok(seir_viral_q16(&p, 10, 0) == 100824u &&
		       seir_viral_q16(&p, 10, 9) == 50412u &&
		       seir_viral_q16(&p, 40, 0) == 100824u,
	       "a 10-day period: 2/1.3 and 1/1.3 in Q16 (%u, %u), and a "
	       "40-day one too (capped: %u)",
	       (unsigned)seir_viral_q16(&p, 10, 0),
	       (unsigned)seir_viral_q16(&p, 10, 9),
	       (unsigned)seir_viral_q16(&p, 40, 0));
}

/* ---- skip sampling and summed durations -------------------------------- */

/* Gaps between candidates at the level of chance q, and the acceptance of
 * a candidate of chance q, over 1,000,000 draws: means within 4 standard
 * errors of the geometric's (1 - q_k) / q_k and of q / q_k. */
static void skip_case(double q)
{
	static weft_graph_tables p;
	uint32_t pc = (uint32_t)(q * 268435456.0), k;
	double qk, sum = 0.0, acc = 0.0, n = 1000000.0, gm, gsd, asd;

	weft_graph_tables_init(&p);
	k = weft_graph_level(&p, pc);
	qk = p.lvl_q28[k] / 268435456.0;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		weft_rand4 r = weft_philox(7, 0, 1, i, 0, 99);
		sum += (double)weft_graph_gap(&p, k, r.v[0]);
		acc += weft_graph_accepts(&p, k, pc, r.v[1]);
	}
	gm = (1 - qk) / qk;
	gsd = sqrt(1 - qk) / qk / sqrt(n);
	asd = sqrt(pc / 268435456.0 / qk * (1 - pc / 268435456.0 / qk) / n);
	tap_ok(qk >= q && qk < q * 1.045 && fabs(sum / n - gm) < 4 * gsd &&
		       fabs(acc / n - pc / 268435456.0 / qk) < 4 * asd + 1e-9,
	       "skip sampling at chance %g: level rate %.5f, mean gap %.3f "
	       "(geometric %.3f), acceptance %.5f (%.5f)",
	       q, qk, sum / n, gm, acc / n, pc / 268435456.0 / qk);
}

/* The largest k whose rate is at least pc, by scanning from the top. */
static uint32_t level_ref(const weft_graph_tables *p, uint32_t pc)
{
	uint32_t k = 0;

	while (k + 1 < WEFT_GRAPH_LEVELS && p->lvl_q28[k + 1] >= pc)
		k++;
	return k;
}

/* The kernels' shortcuts against their definitions (weft/graph.wk):
 * weft_graph_ilog2 against a shift loop, weft_graph_level against a scan
 * of the rates (every pc up to 2^16, every rate and its neighbours,
 * 200,000 drawn ones), weft_graph_skip against weft_graph_gap capped
 * (draws, levels and lengths on both sides of 2^13, where its shortcut
 * stops). */
static void test_skip_exact(void)
{
	static weft_graph_tables p;
	uint32_t bad_log = 0, bad_lvl = 0, bad_skip = 0, n_lvl = 0, pc;

	weft_graph_tables_init(&p);
	for (uint32_t i = 0; i < 32; i++) {
		for (uint32_t d = 0; d < 3; d++) {
			uint32_t x = d == 0   ? 1u << i
				     : d == 1 ? (1u << i) + 1
					      : (1u << i) - 1;
			uint32_t e = 0;
			if (x == 0)
				continue;
			while (e < 31 && x >> (e + 1))
				e++;
			bad_log += weft_graph_ilog2(x) != e;
		}
	}
	for (pc = 1; pc <= 1u << 16; pc++, n_lvl++)
		bad_lvl += weft_graph_level(&p, pc) != level_ref(&p, pc);
	for (uint32_t k = 0; k < WEFT_GRAPH_LEVELS; k++) {
		for (uint32_t d = 0; d < 3; d++, n_lvl++) {
			pc = p.lvl_q28[k] + d - 1;
			if (pc >= 1 && pc <= SEIR_Q28_ONE)
				bad_lvl += weft_graph_level(&p, pc) !=
					   level_ref(&p, pc);
		}
	}
	for (uint32_t i = 0; i < 200000; i++, n_lvl++) {
		weft_rand4 r = weft_philox(3, 0, 2, i, 0, 98);
		pc = (r.v[0] >> (r.v[1] & 31u) >> 4) + 1;
		bad_lvl += weft_graph_level(&p, pc) != level_ref(&p, pc);
	}
	for (uint32_t i = 0; i < 200000; i++) {
		weft_rand4 r = weft_philox(3, 0, 3, i, 0, 98);
		uint32_t k = 1 + r.v[1] % (WEFT_GRAPH_LEVELS - 1);
		uint32_t left =
			r.v[2] % 3 ? r.v[3] % 16384 : r.v[3] >> (r.v[2] & 31u);
		uint64_t g = weft_graph_gap(&p, k, r.v[0]);
		bad_skip += weft_graph_skip(&p, k, r.v[0], left) !=
			    (g < left ? (uint32_t)g : left);
	}
	/* Where left x -log2(1 - q) would pass 2^64: the longest skip (draw
	 * 0) at the highest rates, every length from below 2^13 to 2^16. */
	for (uint32_t k = 1; k <= 16; k++) {
		for (uint32_t left = 8000; left < 65536; left++) {
			uint64_t g = weft_graph_gap(&p, k, 0);
			bad_skip += weft_graph_skip(&p, k, 0, left) !=
				    (g < left ? (uint32_t)g : left);
		}
	}
	tap_ok(bad_log == 0 && bad_lvl == 0 && bad_skip == 0,
	       "weft_graph_ilog2, weft_graph_level (%u rates) and "
	       "weft_graph_skip give their definitions' answers (wrong: %u, "
	       "%u, %u)",
	       n_lvl, bad_log, bad_lvl, bad_skip);
}

static void test_skip(void)
{
	seir_dur d;
	double p[SEIR_DUR_MAX], mean = 0.0;
	char why[256];

	skip_case(0.3);
	skip_case(0.016);
	skip_case(0.002);
	tap_ok(!weft__seir_dur_parse("lognormal(1.1, 0.9) + lognormal(8, 2)",
				     &d, why, sizeof why) &&
		       d.n == 2,
	       "a sum of two stages parses");
	weft__seir_dur_probs(&d, p);
	for (int i = 0; i < SEIR_DUR_MAX; i++)
		mean += (i + 1) * p[i];
	tap_ok(fabs(mean - 9.1) < 0.1,
	       "  ...its mean %.3f is within 0.1 day of 1.1 + 8", mean);
}

/* The probability of stage table cum[] (seir_stage_days) giving d. */
static double stage_p(const uint32_t *cum, int d)
{
	double hi = cum[d] == 0xFFFFFFFFu ? 4294967296.0 : cum[d];
	double lo = d == 0			? 0.0
		    : cum[d - 1] == 0xFFFFFFFFu ? 4294967296.0
						: cum[d - 1];

	return (hi - lo) / 4294967296.0;
}

/* A severe course's stages (weft__seir_stage_tables): their sum, taken
 * to 1..120 days as the kernel takes it, has the distribution of the
 * whole key's convolution (within the tables' rounding), and each stage
 * is drawn from its table by seir_stage_days exactly. */
static void stage_case(const char *text, int critical, double want_sev)
{
	static uint32_t t[SEIR_STAGES][SEIR_DUR_MAX + 1];
	double whole[SEIR_DUR_MAX], sum[SEIR_DUR_MAX] = { 0 }, err = 0.0;
	double sev = 0.0;
	char why[256];
	seir_dur d;
	int exact = 1;

	if (weft__seir_dur_parse(text, &d, why, sizeof why))
		tap_bail("%s: %s", text, why);
	weft__seir_dur_probs(&d, whole);
	weft__seir_stage_tables(&d, critical, t);
	for (int a = 0; a <= SEIR_DUR_MAX; a++) {
		double pa = stage_p(t[SEIR_STAGE_TO_SEV], a);
		sev += a * pa;
		for (int b = 0; pa > 0 && b <= SEIR_DUR_MAX; b++) {
			double pb = pa * stage_p(t[SEIR_STAGE_TO_CRIT], b);
			for (int c = 0; pb > 0 && c <= SEIR_DUR_MAX; c++) {
				int dur = a + b + c;
				dur = dur < 1 ? 1 : dur > 120 ? 120 : dur;
				sum[dur - 1] +=
					pb * stage_p(t[SEIR_STAGE_REST], c);
			}
		}
	}
	for (int i = 0; i < SEIR_DUR_MAX; i++)
		err = fmax(err, fabs(sum[i] - whole[i]));
	for (int k = 0; k < SEIR_STAGES; k++)
		for (int day = 0; day <= SEIR_DUR_MAX; day++) {
			uint32_t lo = day ? t[k][day - 1] : 0;
			if (stage_p(t[k], day) > 0 &&
			    (seir_stage_days(t[k], lo) != (uint32_t)day ||
			     seir_stage_days(t[k], t[k][day] - 1) !=
				     (uint32_t)day))
				exact = 0;
		}
	tap_ok(err < 1e-8 && fabs(sev - want_sev) < 0.1 && exact,
	       "stages of '%s': their sum is the whole period (largest "
	       "difference %.1e), the mean time to severe %.2f days, every "
	       "threshold gives its day",
	       text, err, sev);
}

static void test_stages(void)
{
	stage_case("lognormal(1.1, 0.9) + lognormal(6.6, 4.9) + "
		   "lognormal(18.1, 6.3)",
		   0, 7.7);
	stage_case("lognormal(1.1, 0.9) + lognormal(6.6, 4.9) + "
		   "lognormal(1.5, 2) + lognormal(10.7, 4.8)",
		   1, 7.7);
	stage_case("fixed(3) + fixed(4)", 0, 3.0);
	stage_case("fixed(2) + fixed(5)", 1, 0.0);
	stage_case("gamma(20, 5)", 1, 0.0);
}

/* Testing by number: the smallest keys of seir_tnum_key_of are a
 * weighted sample without replacement (Covasim's choose_w): over 200,000
 * trials of four agents of weights 1, 2, 3 and 10, the first key's agent
 * comes with probability w / W, and the two smallest include an agent
 * with the probability of two draws without replacement, each within 4
 * standard errors. */
static void test_tnum_keys(void)
{
	static weft_graph_tables p;
	static const double w[4] = { 1, 2, 3, 10 };
	const double total = 16, trials = 200000;
	double first[4] = { 0 }, two[4] = { 0 };
	int within = 1;

	weft_graph_tables_init(&p);
	for (uint32_t t = 0; t < trials; t++) {
		uint32_t key[4], a = 0, b = 1;
		for (uint32_t i = 0; i < 4; i++)
			key[i] = seir_tnum_key_of(
				weft_graph_neglog2_q48(
					&p,
					weft_philox(7, 0, t, i, 0, 99).v[3]),
				(uint32_t)(w[i] * 256));
		if (key[b] < key[a]) {
			a = 1;
			b = 0;
		}
		for (uint32_t i = 2; i < 4; i++) {
			if (key[i] < key[a]) {
				b = a;
				a = i;
			} else if (key[i] < key[b]) {
				b = i;
			}
		}
		first[a]++;
		two[a]++;
		two[b]++;
	}
	for (int i = 0; i < 4; i++) {
		double p1 = w[i] / total, p2 = p1;
		for (int j = 0; j < 4; j++)
			if (j != i)
				p2 += w[j] / total * w[i] / (total - w[j]);
		within &= fabs(first[i] / trials - p1) <
				  4 * sqrt(p1 * (1 - p1) / trials) &&
			  fabs(two[i] / trials - p2) <
				  4 * sqrt(p2 * (1 - p2) / trials);
	}
	tap_ok(within,
	       "test_num's keys: the smallest is agent i with w_i / W (%.4f "
	       "for w 10 of 16: 0.625), the two smallest a sample without "
	       "replacement (%.4f: 0.9002)",
	       first[3] / trials, two[3] / trials);
	tap_ok(seir_tnum_key_of(0, 0) == SEIR_TNUM_NONE &&
		       seir_tnum_key_of((uint64_t)32 << 48, 1) ==
			       SEIR_TNUM_NONE - 1,
	       "weight 0 is never tested; the largest key stays below it");
}

int main(void)
{
	test_distributions();
	test_fixed_and_bounds();
	test_parse();
	test_by_age();
	test_rel_trans();
	test_interventions();
	test_viral_load();
	test_skip();
	test_stages();
	test_skip_exact();
	test_tnum_keys();
	return tap_done();
}
