/*
 * models/seir/waning.c - [seir] waning: Covasim 3.1's waning immunity and
 * reinfection for one variant (covasim/immunity.py), as the block of
 * parameters and tables the kernels read after the beta table
 * (seir_shared.h, seir_waning): the NAb kinetics (nab_growth_decay), the
 * law of the initial NAb level (nab_init, rel_imm_symp), and what NAbs
 * leave of each risk (calc_VE), all in fixed point so that every backend
 * decides the same.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seir.h"

/* "FILE:LINE: [seir] key = value: why" */
static weft_status waning_bad(weft_model_ctx *mc, const char *key,
			      const char *why)
{
	return weft_model_fail(mc, WEFT_E_CONFIG, "%s: [seir] %s = %s: %s",
			       weft_model_where(mc, key), key,
			       weft_model_string(mc, key), why);
}

/* Exactly n numbers separated by commas, into v: 0, else -1. */
static int waning_numbers(const char *text, double *v, int n)
{
	const char *at = text;

	for (int i = 0; i < n; i++) {
		char *end;

		v[i] = strtod(at, &end);
		if (end == at || !isfinite(v[i]))
			return -1;
		at = end + strspn(end, " \t");
		if (i + 1 < n) {
			if (*at != ',')
				return -1;
			at++;
		}
	}
	return *at ? -1 : 0;
}

static weft_status waning_list(weft_model_ctx *mc, const char *key, double *v,
			       int n)
{
	char why[96];

	if (waning_numbers(weft_model_string(mc, key), v, n) == 0)
		return WEFT_OK;
	snprintf(why, sizeof why, "expected %d numbers separated by commas", n);
	return waning_bad(mc, key, why);
}

static uint32_t waning_q16_signed(double x)
{
	return (uint32_t)(int32_t)lround(x * 65536.0);
}

/* Covasim's nab_growth_decay before its np.diff: y[t], the NAb level t
 * days after an event relative to the peak, for t < n (linear growth
 * over growth_time days, then exponential decay whose rate falls
 * linearly from rate1 at time1 to rate2 at time2), in Q30. */
static void waning_kinetics(const double *d, uint32_t *kin, uint32_t n)
{
	uint32_t g = (uint32_t)d[0], in_mid = 0;
	double slowing = (d[1] - d[3]) / (d[4] - d[2]), titre = 0.0;

	for (uint32_t t = 0; t < n; t++) {
		double y;

		if (t < g) {
			y = (double)t / g;
		} else {
			uint32_t u = t - g; /* f2's t */
			double rate = d[1];

			if (u > d[4])
				rate = d[3];
			else if (u > d[2])
				rate = d[1] - slowing * in_mid++;
			if (u > 0)
				titre += rate;
			y = exp(-titre);
		}
		kin[t] = (uint32_t)lround(y * SEIR_Q30_ONE);
	}
}

/* What calc_VE leaves of a risk at log2 NAb l: 1 / (1 + e^alpha
 * nab^beta), Q16. */
static uint32_t waning_left(double alpha, double beta, double l)
{
	return (uint32_t)lround(65536.0 /
				(1.0 + exp(alpha) * pow(2.0, beta * l)));
}

/* The normal law of log2 of the initial NAb level on 1024 bins over
 * eight standard deviations either side of its mean. */
void weft__seir_nab_law(seir_nab_law *w, double mean, double sd)
{
	double lo = mean - 8.0 * sd, step;

	w->w = (uint32_t)lround(sd * 1024.0);
	if (w->w == 0)
		w->w = 1;
	step = w->w / 65536.0;
	w->lo = SEIR_NAB_LOG0 + waning_q16_signed(lo);
	for (uint32_t k = 0; k < SEIR_NAB_INIT_BINS; k++) {
		double x = lo + (k + 1) * step, c;

		c = sd > 0.0 ? 0.5 * erfc(-(x - mean) / (sd * sqrt(2.0)))
			     : (x >= mean ? 1.0 : 0.0);
		w->cum[k] = c >= 1.0 ? 0xFFFFFFFFu
				     : (uint32_t)floor(c * 4294967296.0);
	}
	w->cum[SEIR_NAB_INIT_BINS - 1] = 0xFFFFFFFFu;
}

/* The keys' values, checked. */
static weft_status waning_read(weft_model_ctx *mc, seir_state *s)
{
	seir_waning *w = &s->wan;
	double init[2], decay[5], eff[7], rel[SEIR_NAB_SYMPTOMS];
	double boost = weft_model_real(mc, "nab_boost");
	weft_status st;

	if ((st = waning_list(mc, "nab_init", init, 2)) ||
	    (st = waning_list(mc, "nab_decay", decay, 5)) ||
	    (st = waning_list(mc, "nab_eff", eff, 7)) ||
	    (st = waning_list(mc, "rel_imm_symp", rel, SEIR_NAB_SYMPTOMS)))
		return st;
	if (init[1] < 0.0 || init[1] > 16.0)
		return waning_bad(mc, "nab_init",
				  "the standard deviation must be 0 to 16");
	if (fabs(init[0]) > 64.0)
		return waning_bad(mc, "nab_init",
				  "the mean must be -64 to 64 (log2)");
	if (decay[0] < 1.0 || decay[0] > 1000.0 ||
	    decay[0] != floor(decay[0]) || decay[1] < 0.0 || decay[3] < 0.0 ||
	    decay[2] < 0.0 || decay[4] <= decay[2])
		return waning_bad(mc, "nab_decay",
				  "expected growth_time (whole days, 1 to "
				  "1000), decay_rate1 >= 0, decay_time1 >= 0, "
				  "decay_rate2 >= 0, decay_time2 > "
				  "decay_time1");
	if (eff[2] < 0.0 || eff[4] < 0.0 || eff[6] < 0.0 || eff[1] <= -1.0)
		return waning_bad(mc, "nab_eff",
				  "the betas must be >= 0 and alpha_inf_diff "
				  "> -1");
	for (int c = 0; c < SEIR_NAB_SYMPTOMS; c++)
		if (!(rel[c] > 0.0) ||
		    !isfinite(log2(rel[c] * (1.0 + eff[1]))) ||
		    fabs(log2(rel[c] * (1.0 + eff[1]))) > 64.0)
			return waning_bad(mc, "rel_imm_symp",
					  "each must be above 0, and times 1 + "
					  "alpha_inf_diff (nab_eff) within "
					  "2^-64 to 2^64");
	w->growth = (uint32_t)decay[0];
	w->boost_q16 = weft__seir_q16(boost);
	w->boost_log_q16 = waning_q16_signed(log2(boost));
	w->trans_q16 = weft__seir_q16(weft_model_real(mc, "trans_redux"));
	/* Natural NAbs are normalised to vaccine NAbs: times 1 +
	 * alpha_inf_diff (update_peak_nab). */
	for (int c = 0; c < SEIR_NAB_SYMPTOMS; c++)
		w->symp_log[c] =
			waning_q16_signed(log2(rel[c] * (1.0 + eff[1])));
	weft__seir_nab_law(&w->init, init[0], init[1]);
	for (uint32_t i = 0; i <= SEIR_NAB_STEPS; i++) {
		double l = -32.0 + i / 8.0;

		w->left_q16[SEIR_VE_INF][i] = waning_left(eff[0], eff[2], l);
		w->left_q16[SEIR_VE_SYMP][i] = waning_left(eff[3], eff[4], l);
		w->left_q16[SEIR_VE_SEV][i] = waning_left(eff[5], eff[6], l);
	}
	memcpy(s->wan_decay, decay, sizeof decay);
	return WEFT_OK;
}

/* The key that turned testing on, for messages: the first of them set. */
static const char *waning_testing_key(const weft_model_ctx *mc)
{
	static const char *const keys[] = {
		"test_daily",		"test_symp_prob",
		"test_asymp_prob",	"test_symp_quar_prob",
		"test_asymp_quar_prob", "test_interventions"
	};

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(weft_model_where(mc, keys[i]), "default") != 0)
			return keys[i];
	return "test_interventions";
}

weft_status weft__seir_waning_params(weft_model_ctx *mc, seir_state *s)
{
	seir_params *p = &s->params;
	const char *tk;

	if (!weft_model_bool(mc, "waning")) {
		/* The NAb keys are checked whether or not they are used. */
		seir_state *scratch = calloc(1, sizeof *scratch);
		weft_status st;

		if (!scratch)
			return weft_model_fail(mc, WEFT_E_NOMEM,
					       "out of memory checking the "
					       "NAb keys");
		st = waning_read(mc, scratch);
		free(scratch);
		return st;
	}
	if (p->opts & SEIR_OPT_CRN)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: [seir] waning = true does not "
				       "work with %s: crn = true (an agent's "
				       "course is drawn once, and may be "
				       "infected again)",
				       weft_model_where(mc, "waning"),
				       weft_model_where(mc, "crn"));
	if (p->testing) {
		tk = waning_testing_key(mc);
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: [seir] waning = true does not "
				       "work with testing yet (%s: [seir] %s "
				       "turns it on; a diagnosis is kept for "
				       "good)",
				       weft_model_where(mc, "waning"),
				       weft_model_where(mc, tk), tk);
	}
	if (p->n_days > 65000)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: [seir] waning = true runs at most "
				       "65000 days ([simulation] steps asks "
				       "for %u): the days of NAb events are "
				       "16 bits",
				       weft_model_where(mc, "waning"),
				       p->n_days);
	p->opts |= SEIR_OPT_WANING;
	/* new_reinfections: the last word of every row. */
	p->row_words++;
	return waning_read(mc, s);
}

size_t weft__seir_waning_words(const seir_state *s)
{
	if (!(s->params.opts & SEIR_OPT_WANING))
		return 0;
	return 2 * (size_t)s->n_agents + 1 + weft__seir_variants_words(s);
}

uint32_t weft__seir_waning_kin(const seir_params *p)
{
	return p->n_days + 2;
}

uint32_t weft__seir_waning_rows(const seir_params *p)
{
	size_t words = sizeof(seir_waning) / 4 + weft__seir_waning_kin(p);

	/* With variants and vaccines with NAbs their tables follow. */
	if (p->opts & SEIR_OPT_VARIANTS)
		words += sizeof(seir_variant_tab) / 4;
	if (p->opts & SEIR_OPT_VXNAB)
		words += sizeof(seir_vx_tab) / 4;

	if (!(p->opts & SEIR_OPT_WANING))
		return 0;
	return (uint32_t)((words + SEIR_BETA_COLS - 1) / SEIR_BETA_COLS);
}

void weft__seir_waning_table(const seir_state *s, uint32_t *dst)
{
	seir_waning *w = (seir_waning *)(void *)dst;
	uint32_t n = weft__seir_waning_kin(&s->params);

	memset(dst, 0,
	       (size_t)weft__seir_waning_rows(&s->params) * SEIR_BETA_COLS * 4);
	*w = s->wan;
	w->n_kin = n;
	waning_kinetics(s->wan_decay, (uint32_t *)(void *)(w + 1), n);
	w->var_off = (uint32_t)(sizeof(seir_waning) / 4) + n;
	w->vx_off = w->var_off;
	if (s->params.opts & SEIR_OPT_VARIANTS) {
		memcpy(dst + w->var_off, &s->var, sizeof s->var);
		w->vx_off += (uint32_t)(sizeof s->var / 4);
	}
	if (s->params.opts & SEIR_OPT_VXNAB)
		memcpy(dst + w->vx_off, &s->vx, sizeof s->vx);
}

uint64_t weft__seir_waning_reinf(const seir_state *s, uint64_t days)
{
	uint64_t reinf = 0;
	uint32_t w = s->params.row_words;

	if (!(s->params.opts & SEIR_OPT_WANING))
		return 0;
	for (uint64_t d = 1; d <= days; d++)
		reinf += s->series[d * w + w - 1];
	return reinf;
}

void weft__seir_waning_summary(weft_model_ctx *mc, const seir_state *s,
			       uint64_t days)
{
	uint64_t reinf = weft__seir_waning_reinf(s, days), cum;

	if (!(s->params.opts & SEIR_OPT_WANING))
		return;
	cum = s->series[days * s->params.row_words + SEIR_R_CUM];
	weft_model_summary(mc, "reinfections",
			   "%llu (%.2f %% of the %llu infections; waning "
			   "immunity)",
			   (unsigned long long)reinf,
			   cum ? 100.0 * (double)reinf / (double)cum : 0.0,
			   (unsigned long long)cum);
}
