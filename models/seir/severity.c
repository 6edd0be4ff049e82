/*
 * models/seir/severity.c - severe courses and hospital capacity (Covasim's
 * n_beds_hosp, n_beds_icu, no_hosp_factor, no_icu_factor): the outcome
 * thresholds when the beds were full at exposure, and the summary lines
 * of hospital and ICU load. The stages themselves are drawn on the device
 * (seir.wk: seir_stages, seir_stage_at) from the tables of
 * weft__seir_stage_tables() (course.c).
 */

#include <math.h>
#include <stdio.h>

#include "seir.h"

/* Beds of a key: SEIR_NONE for -1 (no limit). */
static weft_u32 severity_beds(weft_model_ctx *mc, const char *key)
{
	int64_t v = weft_model_int(mc, key);

	return v < 0 ? SEIR_NONE : (weft_u32)v;
}

/* p (a threshold over 2^32) times f, at most `cap`. */
static weft_u32 severity_scale(weft_u32 thr, weft_u32 of, double f)
{
	double v = (double)thr * f;

	return v >= (double)of ? of : (weft_u32)floor(v + 0.5);
}

/* The thresholds for capacity flags `full` (bit 0: hospitals, bit 1:
 * ICUs) from those without: Covasim multiplies the chance of critical
 * given severe by no_hosp_factor, and of death given critical by
 * no_icu_factor, each capped at 1. The outcome is one draw against
 * nested thresholds (death < critical < severe), so the conditional
 * chances scale the widths of the nested intervals. */
static void severity_full(seir_risk *r, int full, double fh, double fi)
{
	for (int b = 0; b < SEIR_AGE_BINS; b++) {
		weft_u32 sev = r->sev_thr[b], crit = r->crit_thr[0][b];
		weft_u32 death = r->death_thr[0][b], c2 = crit, d2;

		if (full & 1)
			c2 = severity_scale(crit, sev, fh);
		d2 = crit ? severity_scale(
				    (weft_u32)floor((double)death * c2 / crit +
						    0.5),
				    c2, (full & 2) ? fi : 1.0)
			  : 0;
		r->crit_thr[full][b] = c2;
		r->death_thr[full][b] = d2;
	}
}

/* A threshold (over 2^32) from its value, rounded, at most the last. */
static weft_u32 severity_round(double v)
{
	return v >= 4294967295.0 ? 0xFFFFFFFFu : (weft_u32)floor(v + 0.5);
}

/* A conditional chance `of` over `given` (thresholds) times f, at most 1. */
static double severity_given(double of, double given, double f)
{
	return given > 0.0 ? fmin(1.0, of / given * f) : 0.0;
}

void weft__seir_risk_variant(const seir_risk *base, const double rel[4],
			     double fh, double fi, seir_risk *out)
{
	*out = *base;
	for (int b = 0; b < SEIR_AGE_BINS; b++) {
		double sev = base->sev_thr[b], crit = base->crit_thr[0][b];
		double death = base->death_thr[0][b];
		double s2 = fmin(sev * rel[1], 4294967295.0);
		double c2 = s2 * severity_given(crit, sev, rel[2]);

		out->symp_thr[b] = severity_round(base->symp_thr[b] * rel[0]);
		out->sev_thr[b] = severity_round(s2);
		out->crit_thr[0][b] = severity_round(c2);
		out->death_thr[0][b] = severity_round(
			c2 * severity_given(death, crit, rel[3]));
	}
	for (int full = 1; full < 4; full++)
		severity_full(out, full, fh, fi);
}

weft_status weft__seir_severity_params(weft_model_ctx *mc, seir_params *p)
{
	double fh = weft_model_real(mc, "no_hosp_factor");
	double fi = weft_model_real(mc, "no_icu_factor");

	p->hosp_beds = severity_beds(mc, "n_beds_hosp");
	p->icu_beds = severity_beds(mc, "n_beds_icu");
	for (int full = 1; full < 4; full++)
		severity_full(&p->risk, full, fh, fi);
	return WEFT_OK;
}

/* Peaks of the daily rows' column col, and the days it was above 0. */
static void severity_peak(const seir_state *s, uint64_t days, int col,
			  uint32_t *peak, uint64_t *peak_day, uint64_t *above)
{
	*peak = 0;
	*peak_day = 0;
	*above = 0;
	for (uint64_t d = 0; d <= days; d++) {
		uint32_t v = s->series[d * s->params.row_words + col];
		if (v > *peak) {
			*peak = v;
			*peak_day = d;
		}
		*above += v > 0;
	}
}

/* "severe or critical" and "critical" summary lines: the peaks, and the
 * days over capacity when beds are limited. */
static void severity_line(weft_model_ctx *mc, const seir_state *s,
			  uint64_t days, const char *key, int col_in,
			  int col_over, weft_u32 beds, const char *what)
{
	uint32_t peak, over;
	uint64_t day, over_day, over_days, unused;

	severity_peak(s, days, col_in, &peak, &day, &unused);
	severity_peak(s, days, col_over, &over, &over_day, &over_days);
	if (beds == SEIR_NONE) {
		weft_model_summary(mc, key, "peak %u %s on day %llu (no limit)",
				   peak, what, (unsigned long long)day);
		return;
	}
	weft_model_summary(mc, key,
			   "peak %u %s on day %llu of %u beds; over capacity "
			   "on %llu days, by up to %u on day %llu",
			   peak, what, (unsigned long long)day, beds,
			   (unsigned long long)over_days, over,
			   (unsigned long long)over_day);
}

void weft__seir_severity_summary(weft_model_ctx *mc, const seir_state *s,
				 uint64_t days)
{
	uint64_t sev = 0, crit = 0;

	for (uint64_t d = 0; d <= days; d++) {
		sev += s->series[d * s->params.row_words + SEIR_R_NEW_SEV];
		crit += s->series[d * s->params.row_words + SEIR_R_NEW_CRIT];
	}
	weft_model_summary(mc, "severe, critical",
			   "%llu became severe, %llu critical",
			   (unsigned long long)sev, (unsigned long long)crit);
	severity_line(mc, s, days, "hospital", SEIR_R_HOSP, SEIR_R_OVER_H,
		      s->params.hosp_beds, "in hospital beds");
	severity_line(mc, s, days, "ICU", SEIR_R_ICU, SEIR_R_OVER_I,
		      s->params.icu_beds, "in ICU beds");
}
