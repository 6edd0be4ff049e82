/*
 * models/seir/seir_params.c - the [seir] keys of the disease course, the
 * interventions and the run, checked and turned into the kernels'
 * parameter block (integer thresholds and fixed-point factors) and the
 * beta table. Every error names the key's file and line.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seir.h"

/* "FILE:LINE: [seir] key = value: why" */
static weft_status params_bad(weft_model_ctx *mc, const char *key,
			      const char *why)
{
	return weft_model_fail(mc, WEFT_E_CONFIG, "%s: [seir] %s = %s: %s",
			       weft_model_where(mc, key), key,
			       weft_model_string(mc, key), why);
}

static int params_set(weft_model_ctx *mc, const char *key)
{
	return strcmp(weft_model_where(mc, key), "default") != 0;
}

/* The four duration keys, in the order of the SEIR_DUR_* tables. */
static const char *const dur_keys[SEIR_N_DURS] = {
	"latent_duration", "asym_duration",	"sym_duration",
	"severe_duration", "critical_duration", "death_duration"
};

static weft_status params_durations(weft_model_ctx *mc, seir_params *p)
{
	char why[256];

	for (int k = 0; k < SEIR_N_DURS; k++) {
		seir_dur d;
		double prob[SEIR_DUR_MAX];
		uint32_t cum[SEIR_DUR_MAX];

		if (weft__seir_dur_parse(weft_model_string(mc, dur_keys[k]), &d,
					 why, sizeof why))
			return params_bad(mc, dur_keys[k], why);
		weft__seir_dur_probs(&d, prob);
		weft__seir_dist_table(prob, cum);
		memcpy(p->dur[k], cum, sizeof cum);
		/* A severe course's terms are its stages. */
		if (k >= SEIR_DUR_SEVERE)
			weft__seir_stage_tables(&d, k != SEIR_DUR_SEVERE,
						p->stage[k - SEIR_DUR_SEVERE +
							 SEIR_PATH_SEVERE]);
	}
	return WEFT_OK;
}

/* A per-age key into thresholds (probabilities) or Q16 factors. */
static weft_status params_by_age(weft_model_ctx *mc, const char *key, double hi,
				 int as_chance, weft_u32 out[SEIR_AGE_BINS])
{
	double v[SEIR_AGE_BINS];
	char why[256];

	if (weft__seir_parse_by_age(weft_model_string(mc, key), 0.0, hi, v, why,
				    sizeof why))
		return params_bad(mc, key, why);
	for (int b = 0; b < SEIR_AGE_BINS; b++)
		out[b] = as_chance ? weft__seir_threshold(v[b])
				   : weft__seir_q16(v[b]);
	return WEFT_OK;
}

static weft_status params_course(weft_model_ctx *mc, seir_params *p)
{
	double rel[SEIR_REL_CLASSES], k;
	weft_status st;

	if ((st = params_durations(mc, p)) ||
	    (st = params_by_age(mc, "symp_prob", 1.0, 1, p->risk.symp_thr)) ||
	    (st = params_by_age(mc, "severe_prob", 1.0, 1, p->risk.sev_thr)) ||
	    (st = params_by_age(mc, "critical_prob", 1.0, 1,
				p->risk.crit_thr[0])) ||
	    (st = params_by_age(mc, "death_prob", 1.0, 1,
				p->risk.death_thr[0])) ||
	    (st = params_by_age(mc, "susceptibility", 10.0, 0, p->sus_q16)))
		return st;
	if (!weft_model_bool(mc, "deaths"))
		memset(p->risk.death_thr, 0, sizeof p->risk.death_thr);
	/* Dying passes through critical, critical through severe. */
	for (int b = 0; b < SEIR_AGE_BINS; b++) {
		if (p->risk.crit_thr[0][b] < p->risk.death_thr[0][b])
			p->risk.crit_thr[0][b] = p->risk.death_thr[0][b];
		if (p->risk.sev_thr[b] < p->risk.crit_thr[0][b])
			p->risk.sev_thr[b] = p->risk.crit_thr[0][b];
		if (p->sus_q16[b] > p->sus_max)
			p->sus_max = p->sus_q16[b];
	}
	if ((st = weft__seir_severity_params(mc, p)))
		return st;
	weft_graph_tables_init(&p->skip);
	p->asym_q16 = weft__seir_q16(weft_model_real(mc, "asym_factor"));
	p->vl_on = (weft_u32)weft_model_bool(mc, "viral_load");
	p->vl_frac_pm = (weft_u32)lround(
		1000.0 * weft_model_real(mc, "viral_load_frac"));
	p->vl_ratio_q16 =
		weft__seir_q16(weft_model_real(mc, "viral_load_ratio"));
	for (weft_u32 d = 0; d <= SEIR_DUR_MAX; d++) {
		p->vl_early[d] = weft__seir_viral_early(
			weft_model_real(mc, "viral_load_frac"),
			weft_model_real(mc, "viral_load_cap"), d);
		p->vl_q16[0][d] = seir_viral_level_q16(p, d, 1);
		p->vl_q16[1][d] = seir_viral_level_q16(p, d, 0);
	}
	k = weft_model_real(mc, "rel_trans_dispersion");
	p->rel_trans = k > 0.0;
	weft__seir_rel_trans(k, rel);
	for (int c = 0; c < SEIR_REL_CLASSES; c++)
		p->rel_q16[c] = weft__seir_q16(rel[c]);
	return WEFT_OK;
}

static weft_status params_interventions(weft_model_ctx *mc, seir_state *s)
{
	seir_params *p = &s->params;
	char why[256];

	if (weft__seir_interventions_parse(
		    weft_model_string(mc, "interventions"), s->iv,
		    &s->spec.n_iv, why, sizeof why))
		return params_bad(mc, "interventions", why);
	s->spec.iv = s->iv;
	s->spec.beta = weft_model_real(mc, "beta");
	s->spec.iso_factor = weft_model_real(mc, "isolation_factor");
	s->spec.iso_start = (uint32_t)weft_model_int(mc, "isolation_start");
	s->spec.n_days = p->n_days;
	s->spec.season_factor = weft_model_real(mc, "seasonality_factor");
	s->spec.season_phase = weft_model_real(mc, "seasonality_phase");
	if (s->spec.season_factor == 0 && params_set(mc, "seasonality_phase"))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] seasonality_phase (%s) needs an amplitude: "
			"seasonality_factor (%s) above 0",
			weft_model_where(mc, "seasonality_phase"),
			weft_model_where(mc, "seasonality_factor"));
	p->iso_thr =
		weft__seir_threshold(weft_model_real(mc, "isolation_prob"));
	return weft__seir_vaccination_params(mc, s);
}

static weft_status params_run(weft_model_ctx *mc, seir_state *s)
{
	uint64_t seed = weft_model_seed(mc);
	uint64_t steps = weft_model_steps(mc);

	if (params_set(mc, "initial_infected") &&
	    params_set(mc, "initial_fraction"))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: initial_infected and %s: "
			"initial_fraction are both set; set "
			"one of them",
			weft_model_where(mc, "initial_infected"),
			weft_model_where(mc, "initial_fraction"));
	s->params.seed_lo = (uint32_t)seed;
	s->params.seed_hi = (uint32_t)(seed >> 32);
	s->params.n_days = (uint32_t)steps;
	s->params.frontier = (weft_u32)weft_model_bool(mc, "frontier");
	s->params.opts =
		(weft_model_bool(mc, "count_work") ? SEIR_OPT_COUNT_WORK : 0u) |
		(weft_model_bool(mc, "crn") ? SEIR_OPT_CRN : 0u);
	return WEFT_OK;
}

weft_status weft__seir_read_params(weft_model_ctx *mc, seir_state *s)
{
	uint64_t steps = weft_model_steps(mc);
	weft_status st;

	if ((st = params_run(mc, s)) || (st = params_course(mc, &s->params)) ||
	    (st = params_interventions(mc, s)) ||
	    (st = weft__seir_age_params(mc, s)) ||
	    (st = weft__seir_repro_params(mc, s)))
		return st;
	/* The series' rows are indexed in 32 bits (seir_tally). */
	if (steps >= UINT32_MAX / s->params.row_words)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%llu steps is more days than the "
				       "series can hold (%u)",
				       (unsigned long long)steps,
				       UINT32_MAX / s->params.row_words - 1);
	if ((st = weft__seir_testing_params(mc, s)) ||
	    (st = weft__seir_waning_params(mc, s)) ||
	    (st = weft__seir_variants_params(mc, s)))
		return st;
	return weft__seir_vaccine_nabs(mc, s);
}

/* [seir] crn: the beta table's row after its last (rows rows before
 * it): each layer's level chance, the largest of its column (every day,
 * isolating or not) and of its beta before interventions at the
 * seasonal peak (1 + seasonality_factor), so that measures that only
 * lower a chance leave it as it is. */
static void params_crn_row(const seir_beta_spec *b, uint32_t *table,
			   uint32_t rows)
{
	uint32_t *crn = table + (size_t)rows * SEIR_BETA_COLS;

	for (int l = 0; l < SEIR_LAYERS; l++) {
		uint32_t m = weft__seir_q28(b->beta * b->layer_beta[l] *
					    (1 + b->season_factor));

		for (uint32_t r = 0; r < rows; r++) {
			const uint32_t *row =
				table + (size_t)r * SEIR_BETA_COLS;

			m = row[l] > m ? row[l] : m;
			m = row[SEIR_LAYERS + l] > m ? row[SEIR_LAYERS + l] : m;
		}
		crn[l] = m;
		crn[SEIR_LAYERS + l] = 0u;
	}
}

/* [seir] waning: its block after the table's rows (seir_wan()). */
static weft_status params_waning_rows(weft_model_ctx *mc, seir_state *s)
{
	uint32_t rows = weft__seir_waning_rows(&s->params), *t;

	if (rows == 0)
		return WEFT_OK;
	t = realloc(s->beta,
		    ((size_t)s->beta_rows + rows) * SEIR_BETA_COLS * sizeof *t);
	if (!t)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the waning "
				       "immunity's tables (%u rows)",
				       rows);
	s->beta = t;
	weft__seir_waning_table(s, t + (size_t)s->beta_rows * SEIR_BETA_COLS);
	s->beta_rows += rows;
	return WEFT_OK;
}

weft_status weft__seir_make_beta(weft_model_ctx *mc, seir_state *s,
				 const seir_population *pop)
{
	uint32_t last;

	memcpy(s->spec.layer_beta, pop->layer_beta, sizeof pop->layer_beta);
	s->beta = weft__seir_beta_table(&s->spec, &last);
	if (!s->beta)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the beta table (%llu "
				       "days)",
				       (unsigned long long)last + 1);
	s->params.beta_last = last;
	s->beta_rows = last + 1;
	if (s->params.opts & SEIR_OPT_CRN) {
		uint32_t *t =
			realloc(s->beta, ((size_t)last + 2) * SEIR_BETA_COLS *
						 sizeof *t);

		if (!t)
			return weft_model_fail(mc, WEFT_E_NOMEM,
					       "cannot allocate the beta "
					       "table's crn row");
		s->beta = t;
		params_crn_row(&s->spec, t, s->beta_rows);
		s->beta_rows++;
	}
	return params_waning_rows(mc, s);
}

/* How many agents are infected on day 0. */
weft_status weft__seir_count_seeds(weft_model_ctx *mc, seir_state *s)
{
	uint32_t n = s->n_agents;
	int64_t count = weft_model_int(mc, "initial_infected");

	if (s->patches.seeds) { /* patch_file's column, within each patch */
		count = 0;
		for (uint32_t q = 0; q < s->patches.n; q++)
			count += s->patches.seeds[q];
	} else if (params_set(mc, "initial_fraction"))
		count = (int64_t)floor(
			weft_model_real(mc, "initial_fraction") * n + 0.5);
	else if (count > (int64_t)n)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: initial_infected = %lld exceeds "
				       "agents = %u",
				       weft_model_where(mc, "initial_infected"),
				       (long long)count, n);
	s->n_seeds = (uint32_t)count;
	return WEFT_OK;
}

/* What setting name's value must be, from forms (ended by {NULL, the
 * others' form}). */
static const char *params_form(const char *const (*forms)[2], const char *name,
			       size_t len)
{
	for (; forms[0][0]; forms++)
		if (strlen(forms[0][0]) == len &&
		    !strncmp(name, forms[0][0], len))
			return forms[0][1];
	return forms[0][1];
}

int weft__seir_setting_number(const char **p, double lo, double hi, int whole,
			      double *v)
{
	char *end;

	*v = weft__seir_strtod(*p, &end);
	if (end == *p || !(*v >= lo && *v <= hi) || (whole && *v != floor(*v)))
		return -1;
	*p = end;
	return 0;
}

int weft__seir_settings_entry(const char **p, weft__seir_setting_fn set,
			      void *out, const char *names,
			      const char *const (*forms)[2], char *why,
			      size_t why_size)
{
	const char *at = *p + strspn(*p, " \t");
	int n = (int)strcspn(at, ",");

	*p = at;
	while (**p && **p != ',') {
		const char *name = *p;
		size_t len = strcspn(name, "= \t,");
		int rc;

		if (name[len] != '=') {
			snprintf(why, why_size,
				 "'%.*s': '%.*s' is not NAME=VALUE (%s)", n, at,
				 (int)len, name, names);
			return -1;
		}
		*p = name + len + 1;
		rc = set(name, len, p, out);
		if (rc == 0 && **p && **p != ' ' && **p != '\t' && **p != ',')
			rc = -1;
		if (rc == -2) {
			snprintf(why, why_size,
				 "'%.*s': unknown setting '%.*s' (%s)", n, at,
				 (int)len, name, names);
			return -1;
		}
		if (rc) {
			snprintf(why, why_size,
				 "'%.*s': bad value of %.*s: expected %s", n,
				 at, (int)len, name,
				 params_form(forms, name, len));
			return -1;
		}
		*p += strspn(*p, " \t");
	}
	return 0;
}
