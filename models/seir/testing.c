/*
 * models/seir/testing.c - testing, contact tracing and quarantine
 * (Covasim's test_prob and contact_tracing): their keys into the
 * parameter block, and the summary of tests, diagnoses and quarantines.
 * The decisions are made on the device (seir.wk: seir_test, seir_trace,
 * and the factors of seir_contacts); models/seir/seir.md describes them.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seir.h"

/* Days are kept in 16 bits in the quarantine words. */
#define TESTING_LAST_DAY 65534u

static weft_status testing_bad(weft_model_ctx *mc, const char *key,
			       const char *why)
{
	return weft_model_fail(mc, WEFT_E_CONFIG, "%s: [seir] %s = %s: %s",
			       weft_model_where(mc, key), key,
			       weft_model_string(mc, key), why);
}

/* A key of one value (every layer) or four (home, school, work,
 * community), each from 0 to hi, whole numbers when whole. */
static weft_status testing_by_layer(weft_model_ctx *mc, const char *key,
				    double hi, int whole,
				    double out[SEIR_LAYERS])
{
	const char *s = weft_model_string(mc, key);
	char why[160];
	int n = 0;

	for (;;) {
		char *end;
		double v = strtod(s, &end);
		if (end == s || v < 0 || v > hi || (whole && v != floor(v))) {
			snprintf(why, sizeof why,
				 "value %d: expected %s from 0 to %g (one "
				 "value, or four for home, school, work, "
				 "community, separated by commas)",
				 n + 1, whole ? "a whole number" : "a number",
				 hi);
			return testing_bad(mc, key, why);
		}
		if (n < SEIR_LAYERS)
			out[n] = v;
		n++;
		while (*end == ' ')
			end++;
		if (*end == '\0')
			break;
		if (*end != ',') {
			snprintf(why, sizeof why, "expected ',' at '%.20s'",
				 end);
			return testing_bad(mc, key, why);
		}
		s = end + 1;
	}
	if (n != 1 && n != SEIR_LAYERS) {
		snprintf(why, sizeof why,
			 "%d values; expected 1 (every layer) or 4 (home, "
			 "school, work, community)",
			 n);
		return testing_bad(mc, key, why);
	}
	for (int l = n; l < SEIR_LAYERS; l++)
		out[l] = out[0];
	return WEFT_OK;
}

/* A per-layer factor key into Q16 factors (empty: `dflt`). */
static weft_status testing_factors(weft_model_ctx *mc, const char *key,
				   double dflt, weft_u32 out[SEIR_LAYERS])
{
	double v[SEIR_LAYERS] = { dflt, dflt, dflt, dflt };
	weft_status st;

	if (weft_model_string(mc, key)[0] &&
	    (st = testing_by_layer(mc, key, 1, 0, v)))
		return st;
	for (int l = 0; l < SEIR_LAYERS; l++)
		out[l] = weft__seir_q16(v[l]);
	return WEFT_OK;
}

/* Days FIRST to LAST of start_key and end_key (-1: to the end). */
static weft_status testing_days(weft_model_ctx *mc, const char *start_key,
				const char *end_key, weft_u32 *first,
				weft_u32 *last)
{
	int64_t a = weft_model_int(mc, start_key);
	int64_t b = weft_model_int(mc, end_key);

	if (b >= 0 && b < a)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: [seir] %s = %lld comes before %s: "
				       "%s = %lld",
				       weft_model_where(mc, end_key), end_key,
				       (long long)b,
				       weft_model_where(mc, start_key),
				       start_key, (long long)a);
	*first = (weft_u32)a;
	*last = b < 0 ? SEIR_FOREVER : (weft_u32)b;
	return WEFT_OK;
}

/* The probability of a *_quar_prob key (-1: that of `other`). */
static double testing_quar_prob(weft_model_ctx *mc, const char *key,
				double other)
{
	double v = weft_model_real(mc, key);

	return v < 0 ? other : v;
}

/* Covasim's test_num: tests a day, and the weights (x256) by kind:
 * 1, times symp_test when symptomatic, times quar_test on the day after
 * entering quarantine. */
static weft_status testing_by_number(weft_model_ctx *mc, seir_params *p)
{
	double symp = weft_model_real(mc, "test_symp_odds");
	double quar = weft_model_real(mc, "test_quar_odds");

	p->test_num = (weft_u32)weft_model_int(mc, "test_daily");
	if (!p->test_num)
		return WEFT_OK;
	if (p->testing)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] test_daily = %u: testing by number and by "
			"probability (test_symp_prob, test_asymp_prob) in one "
			"run; choose one",
			weft_model_where(mc, "test_daily"), p->test_num);
	p->testing = 1;
	p->test_all = 1;
	p->tnum_w8[SEIR_TEST_SYMP] = (weft_u32)floor(256 * symp + 0.5);
	p->tnum_w8[SEIR_TEST_ASYMP] = 256;
	p->tnum_w8[SEIR_TEST_SYMP_QUAR] =
		(weft_u32)floor(256 * symp * quar + 0.5);
	p->tnum_w8[SEIR_TEST_ASYMP_QUAR] = (weft_u32)floor(256 * quar + 0.5);
	return WEFT_OK;
}

static weft_status testing_read(weft_model_ctx *mc, seir_params *p)
{
	double symp = weft_model_real(mc, "test_symp_prob");
	double asymp = weft_model_real(mc, "test_asymp_prob");
	double sq = testing_quar_prob(mc, "test_symp_quar_prob", symp);
	double aq = testing_quar_prob(mc, "test_asymp_quar_prob", asymp);
	weft_status st;

	p->testing = symp > 0 || asymp > 0 || sq > 0 || aq > 0;
	p->test_all = asymp > 0 || aq > 0;
	if ((st = testing_by_number(mc, p)))
		return st;
	p->test_thr[SEIR_TEST_SYMP] = weft__seir_threshold(symp);
	p->test_thr[SEIR_TEST_ASYMP] = weft__seir_threshold(asymp);
	p->test_thr[SEIR_TEST_SYMP_QUAR] = weft__seir_threshold(sq);
	p->test_thr[SEIR_TEST_ASYMP_QUAR] = weft__seir_threshold(aq);
	p->sens_thr =
		weft__seir_threshold(weft_model_real(mc, "test_sensitivity"));
	p->loss_thr =
		weft__seir_threshold(weft_model_real(mc, "test_loss_prob"));
	p->test_delay = (weft_u32)weft_model_int(mc, "test_delay");
	return testing_days(mc, "test_start", "test_end", &p->test_first,
			    &p->test_last);
}

static weft_status tracing_read(weft_model_ctx *mc, seir_params *p)
{
	double prob[SEIR_LAYERS] = { 0 }, tt[SEIR_LAYERS];
	weft_status st;

	p->quar_period = (weft_u32)weft_model_int(mc, "quar_period");
	if ((weft_model_string(mc, "trace_probs")[0] &&
	     (st = testing_by_layer(mc, "trace_probs", 1, 0, prob))) ||
	    (st = testing_by_layer(mc, "trace_time", 1000, 1, tt)) ||
	    (st = testing_factors(mc, "quar_factor", 0.3, p->quar_q16)) ||
	    (st = testing_days(mc, "trace_start", "trace_end", &p->trace_first,
			       &p->trace_last)))
		return st;
	for (int l = 0; l < SEIR_LAYERS; l++) {
		p->trace_thr[l] = weft__seir_threshold(prob[l]);
		p->trace_time[l] = (weft_u32)tt[l];
		p->tracing |= p->trace_thr[l] != 0;
		if (p->trace_time[l] >= p->quar_period) {
			char why[128];
			snprintf(why, sizeof why,
				 "%u days is not below quar_period = %u (the "
				 "quarantine would be over before it began)",
				 p->trace_time[l], p->quar_period);
			return testing_bad(mc, "trace_time", why);
		}
	}
	return WEFT_OK;
}

/* The days to symptoms: the terms of sym_duration before its last (its
 * "time to severe" as a severe course's stages would count it), and the
 * rest of a mild course, its last term; checked already by the course's
 * keys. */
static void testing_symptoms(weft_model_ctx *mc, seir_params *p)
{
	static uint32_t stages[SEIR_STAGES][SEIR_DUR_MAX + 1];
	seir_dur d;
	char why[256];

	if (weft__seir_dur_parse(weft_model_string(mc, "sym_duration"), &d, why,
				 sizeof why) == 0) {
		weft__seir_stage_tables(&d, 0, stages);
		memcpy(p->symp_onset, stages[SEIR_STAGE_TO_SEV],
		       sizeof p->symp_onset);
		memcpy(p->sym_rest, stages[SEIR_STAGE_REST],
		       sizeof p->sym_rest);
	}
}

weft_status weft__seir_testing_params(weft_model_ctx *mc, seir_state *s)
{
	seir_params *p = &s->params;
	weft_status st;

	testing_symptoms(mc, p);
	if ((st = testing_read(mc, p)) || (st = tracing_read(mc, p)) ||
	    (st = testing_factors(mc, "diagnosed_factor",
				  weft_model_real(mc, "isolation_factor"),
				  p->diag_q16)))
		return st;
	if (p->tracing && !p->testing)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] trace_probs = %s: tracing follows "
			"diagnoses, and there is no testing (set "
			"test_symp_prob or test_asymp_prob)",
			weft_model_where(mc, "trace_probs"),
			weft_model_string(mc, "trace_probs"));
	if (p->testing && (uint64_t)p->n_days + p->test_delay + p->quar_period >
				  TESTING_LAST_DAY)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%llu steps with testing: quarantines keep days in 16 "
			"bits, so steps + test_delay + quar_period must be at "
			"most %u",
			(unsigned long long)p->n_days, TESTING_LAST_DAY);
	return WEFT_OK;
}

size_t weft__seir_testing_words(const seir_state *s)
{
	return (size_t)s->n_agents *
	       ((s->params.testing ? 1 : 0) + (s->params.tracing ? 1 : 0) +
		(s->params.test_num ? 1 : 0));
}

void weft__seir_testing_summary(weft_model_ctx *mc, const seir_state *s,
				uint64_t days)
{
	uint64_t tests = 0, quar = 0;
	const uint32_t *last = s->series + days * s->params.row_words;

	if (!s->params.testing)
		return;
	for (uint64_t d = 1; d <= days; d++) {
		const uint32_t *r = s->series + d * s->params.row_words;
		tests += r[SEIR_R_NEW_TEST];
		quar += r[SEIR_R_NEW_QUAR];
	}
	weft_model_summary(mc, "tests",
			   "%llu, %u positive (%.2f %% of the "
			   "infected)",
			   (unsigned long long)tests, last[SEIR_R_DIAG],
			   100.0 * last[SEIR_R_DIAG] /
				   (last[SEIR_R_CUM] ? last[SEIR_R_CUM] : 1));
	if (s->params.tracing)
		weft_model_summary(mc, "quarantined", "%llu times",
				   (unsigned long long)quar);
}
