/*
 * models/seir/testing.c - testing, contact tracing and quarantine
 * (Covasim's test_prob, test_num and contact_tracing): their keys (the
 * test_* keys and the entries of test_interventions: several testing
 * interventions) into the parameter block, and the summary of tests,
 * diagnoses and quarantines.
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

/* Covasim's test_num's weights (x256) by kind: 1, times symp_test when
 * symptomatic, times quar_test on the day after entering quarantine. */
static void testing_weights(seir_test_iv *t, double symp, double quar)
{
	t->w8[SEIR_TEST_SYMP] = (weft_u32)floor(256 * symp + 0.5);
	t->w8[SEIR_TEST_ASYMP] = 256;
	t->w8[SEIR_TEST_SYMP_QUAR] = (weft_u32)floor(256 * symp * quar + 0.5);
	t->w8[SEIR_TEST_ASYMP_QUAR] = (weft_u32)floor(256 * quar + 0.5);
}

/* The chances of an intervention by probability, by kind; the quarantine
 * ones below 0 are those without quarantine. */
static void testing_chances(seir_test_iv *t, double symp, double asymp,
			    double sq, double aq)
{
	t->thr[SEIR_TEST_SYMP] = weft__seir_threshold(symp);
	t->thr[SEIR_TEST_ASYMP] = weft__seir_threshold(asymp);
	t->thr[SEIR_TEST_SYMP_QUAR] = weft__seir_threshold(sq < 0 ? symp : sq);
	t->thr[SEIR_TEST_ASYMP_QUAR] =
		weft__seir_threshold(aq < 0 ? asymp : aq);
}

/* The test_* keys: intervention 0 when on (a test_*_prob above 0, or
 * test_daily). */
static weft_status testing_read(weft_model_ctx *mc, seir_params *p)
{
	double symp = weft_model_real(mc, "test_symp_prob");
	double asymp = weft_model_real(mc, "test_asymp_prob");
	double sq = testing_quar_prob(mc, "test_symp_quar_prob", symp);
	double aq = testing_quar_prob(mc, "test_asymp_quar_prob", asymp);
	int by_prob = symp > 0 || asymp > 0 || sq > 0 || aq > 0;
	seir_test_iv *t = &p->tiv[0];
	weft_status st;

	t->num = (weft_u32)weft_model_int(mc, "test_daily");
	if (t->num && by_prob)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] test_daily = %u: testing by number and by "
			"probability (test_symp_prob, test_asymp_prob) in one "
			"run; choose one",
			weft_model_where(mc, "test_daily"), t->num);
	if ((st = testing_days(mc, "test_start", "test_end", &t->first,
			       &t->last)))
		return st;
	if (!t->num && !by_prob)
		return WEFT_OK;
	p->n_tests = 1;
	p->test_all = asymp > 0 || aq > 0 || t->num;
	testing_weights(t, weft_model_real(mc, "test_symp_odds"),
			weft_model_real(mc, "test_quar_odds"));
	testing_chances(t, symp, asymp, sq, aq);
	t->sens_thr =
		weft__seir_threshold(weft_model_real(mc, "test_sensitivity"));
	t->loss_thr =
		weft__seir_threshold(weft_model_real(mc, "test_loss_prob"));
	t->delay = (weft_u32)weft_model_int(mc, "test_delay");
	if (!t->num)
		memset(t->w8, 0, sizeof t->w8);
	return WEFT_OK;
}

/* ---- test_interventions ---------------------------------------------------
 *
 *   test_interventions = days=0-29 symp=0.05, days=30- symp=0.2
 *                        asymp=0.001, days=60- daily=500
 *
 * Entries separated by commas, each NAME=VALUE settings separated by
 * blanks (vaccine_campaigns' syntax): days=FIRST-LAST or FIRST- (whole
 * days from 0) and either the chances symp, asymp, symp_quar, asymp_quar
 * (test_prob's) or daily, symp_odds, quar_odds (test_num's), with
 * sensitivity, loss and delay; the settings not given are the test_*
 * keys' (test_sensitivity, test_loss_prob, test_delay, test_symp_odds,
 * test_quar_odds), the chances 0 (the quarantine ones: those without). */

/* The settings an entry leaves out: the test_* keys'. */
typedef struct testing_defaults {
	double symp_odds, quar_odds, sensitivity, loss, delay;
} testing_defaults;

/* An entry being read: the chances (below 0: not given) and the rest. */
typedef struct testing_entry {
	double symp, asymp, sq, aq, odds, quar_odds, sens, loss;
	double first, last, daily, delay;
	int has_days;
} testing_entry;

static const char testing_settings[] =
	"days, symp, asymp, symp_quar, asymp_quar, daily, symp_odds, "
	"quar_odds, sensitivity, loss, delay";

/* The value of setting `name` at *p into e: 0, -1 (bad value) or -2
 * (unknown setting). */
static int testing_setting(const char *name, size_t len, const char **p,
			   testing_entry *e)
{
#define IS(s) (len == sizeof(s) - 1 && !strncmp(name, s, len))
	if (IS("days")) {
		if (weft__seir_setting_number(p, 0, 65000, 1, &e->first) ||
		    **p != '-')
			return -1;
		(*p)++;
		e->last = -1;
		if (**p && **p != ' ' && **p != '\t' && **p != ',' &&
		    weft__seir_setting_number(p, e->first, 65000, 1, &e->last))
			return -1;
		e->has_days = 1;
		return 0;
	}
	if (IS("daily"))
		return weft__seir_setting_number(p, 1, 2000000000, 1,
						 &e->daily);
	if (IS("delay"))
		return weft__seir_setting_number(p, 0, 365, 1, &e->delay);
	if (IS("symp_odds") || IS("quar_odds"))
		return weft__seir_setting_number(
			p, 0, 1000, 0,
			IS("symp_odds") ? &e->odds : &e->quar_odds);
	if (IS("symp") || IS("asymp") || IS("symp_quar") || IS("asymp_quar") ||
	    IS("sensitivity") || IS("loss"))
		return weft__seir_setting_number(p, 0, 1, 0,
						 IS("symp")	    ? &e->symp
						 : IS("asymp")	    ? &e->asymp
						 : IS("symp_quar")  ? &e->sq
						 : IS("asymp_quar") ? &e->aq
						 : IS("sensitivity")
							 ? &e->sens
							 : &e->loss);
#undef IS
	return -2;
}

/* What a setting's value must be, for messages. */
static const char *const testing_forms[][2] = {
	{ "days", "FIRST-LAST or FIRST- (whole days from 0 to 65000)" },
	{ "daily", "a whole number of tests a day, from 1" },
	{ "delay", "whole days from 0 to 365" },
	{ "symp_odds", "a number from 0 to 1000" },
	{ "quar_odds", "a number from 0 to 1000" },
	{ NULL, "a number from 0 to 1" },
};

static int testing_set(const char *name, size_t len, const char **p, void *e)
{
	return testing_setting(name, len, p, e);
}

/* One entry, "NAME=VALUE ..." up to a comma, into e (defaults set by the
 * caller): 0, or -1 with why. */
static int testing_entry_read(const char **p, testing_entry *e, char *why,
			      size_t why_size)
{
	const char *at = *p + strspn(*p, " \t");
	int n = (int)strcspn(at, ",");

	if (weft__seir_settings_entry(p, testing_set, e, testing_settings,
				      testing_forms, why, why_size))
		return -1;
	if (!e->has_days) {
		snprintf(why, why_size,
			 "'%.*s': needs days=FIRST-LAST or days=FIRST-", n, at);
		return -1;
	}
	if (e->daily > 0 &&
	    (e->symp > 0 || e->asymp > 0 || e->sq > 0 || e->aq > 0)) {
		snprintf(why, why_size,
			 "'%.*s': testing by number (daily) and by "
			 "probability (symp, asymp, symp_quar, asymp_quar) in "
			 "one entry; choose one",
			 n, at);
		return -1;
	}
	if (e->daily == 0 &&
	    !(e->symp > 0 || e->asymp > 0 || e->sq > 0 || e->aq > 0)) {
		snprintf(why, why_size,
			 "'%.*s': tests nobody: needs daily=N, or a chance "
			 "above 0 (symp, asymp, symp_quar, asymp_quar)",
			 n, at);
		return -1;
	}
	return 0;
}

/* Entry e into intervention t. */
static void testing_entry_set(const testing_entry *e, seir_test_iv *t)
{
	memset(t, 0, sizeof *t);
	t->first = (weft_u32)e->first;
	t->last = e->last < 0 ? SEIR_FOREVER : (weft_u32)e->last;
	t->num = (weft_u32)e->daily;
	if (t->num)
		testing_weights(t, e->odds, e->quar_odds);
	else
		testing_chances(t, e->symp, e->asymp, e->sq, e->aq);
	t->sens_thr = weft__seir_threshold(e->sens);
	t->loss_thr = weft__seir_threshold(e->loss);
	t->delay = (weft_u32)e->delay;
}

/* The entries of `text` into out[0..*n) (at most max), counting those by
 * number in *n_num: 0, or -1 with why. */
static int testing_parse(const char *text, const testing_defaults *d,
			 seir_test_iv *out, uint32_t *n, uint32_t max,
			 uint32_t *n_num, char *why, size_t why_size)
{
	const char *p = text;

	*n = 0;
	if (!text[strspn(text, " \t")])
		return 0;
	for (;;) {
		testing_entry e = { .sq = -1, .aq = -1 };
		const char *at = p + strspn(p, " \t");
		if (*n == max) {
			snprintf(why, why_size,
				 "more than %u entries (at most %d testing "
				 "interventions, the test_* keys counting as "
				 "one when on)",
				 max, SEIR_TESTS);
			return -1;
		}
		e.odds = d->symp_odds;
		e.quar_odds = d->quar_odds;
		e.sens = d->sensitivity;
		e.loss = d->loss;
		e.delay = d->delay;
		if (testing_entry_read(&p, &e, why, why_size))
			return -1;
		if (e.daily > 0 && ++*n_num > 1) {
			snprintf(why, why_size,
				 "'%.*s': a second testing intervention by "
				 "number (daily); at most one in a run",
				 (int)strcspn(at, ","), at);
			return -1;
		}
		testing_entry_set(&e, &out[*n]);
		(*n)++;
		if (!*p)
			return 0;
		p++;
	}
}

/* test_interventions, after intervention 0 (the test_* keys, when on). */
static weft_status testing_list(weft_model_ctx *mc, seir_params *p)
{
	const char *text = weft_model_string(mc, "test_interventions");
	testing_defaults d = {
		.symp_odds = weft_model_real(mc, "test_symp_odds"),
		.quar_odds = weft_model_real(mc, "test_quar_odds"),
		.sensitivity = weft_model_real(mc, "test_sensitivity"),
		.loss = weft_model_real(mc, "test_loss_prob"),
		.delay = (double)weft_model_int(mc, "test_delay"),
	};
	uint32_t legacy = p->n_tests, n = 0, n_num = p->tiv[0].num != 0;
	char why[400];

	if (testing_parse(text, &d, p->tiv + legacy, &n, SEIR_TESTS - legacy,
			  &n_num, why, sizeof why))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] test_interventions = %s: %s",
			weft_model_where(mc, "test_interventions"), text, why);
	p->n_tests = legacy + n;
	p->testing = p->n_tests != 0;
	for (uint32_t i = 0; i < p->n_tests; i++) {
		const seir_test_iv *t = &p->tiv[i];
		if (t->num) {
			p->tnum_iv = i;
			p->test_num = t->num;
		}
		p->test_all |= t->num || t->thr[SEIR_TEST_ASYMP] ||
			       t->thr[SEIR_TEST_ASYMP_QUAR];
	}
	return WEFT_OK;
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
	uint32_t delay = 0;
	weft_status st;

	testing_symptoms(mc, p);
	if ((st = testing_read(mc, p)) || (st = testing_list(mc, p)) ||
	    (st = tracing_read(mc, p)) ||
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
	for (uint32_t i = 0; i < p->n_tests; i++)
		delay = p->tiv[i].delay > delay ? p->tiv[i].delay : delay;
	if (p->testing &&
	    (uint64_t)p->n_days + delay + p->quar_period > TESTING_LAST_DAY)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] quar_period = %u with %llu steps and "
			"testing: quarantines keep days in 16 bits, so steps + "
			"test_delay (the longest delay of the testing "
			"interventions, %u) + quar_period must be at most %u",
			weft_model_where(mc, "quar_period"),
			(unsigned)p->quar_period, (unsigned long long)p->n_days,
			(unsigned)delay, TESTING_LAST_DAY);
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
