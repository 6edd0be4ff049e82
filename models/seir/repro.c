/*
 * models/seir/repro.c - reproduction numbers: who infected whom, as the
 * kernels count it (seir.wk: in seir_try every infector whose draw infects
 * a contact claims it, the lowest claimant is its infector, which
 * seir_credit credits the next day; seir_progress adds an agent's count
 * to the cohort of its day of onset when its infectious period ends),
 * turned into outputs:
 *   - the case reproduction number of each day's cohort of agents who
 *     became infectious (reproduction.csv, written at the end, when the
 *     counts are complete or as complete as the run let them be);
 *   - Rt, the instantaneous reproduction number of Cori et al. (2013)
 *     from the daily infections and the generation interval that the
 *     course implies (daily.csv, as the days are written);
 *   - R0, the mean secondary infections of the index cases (the agents
 *     exposed on day 0), in the summary;
 * and `[seir] r0`, which calibrates beta on the population before the
 * run with the next-generation estimate of R0 (seir.md says how).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "seir.h"

/* Host-side draws of the calibration's sample (seir_init.c uses 102). */
#define SEIR_PURPOSE_CALIBRATE 103u
/* Index agents sampled, and courses drawn for each. */
#define REPRO_AGENTS  16384u
#define REPRO_COURSES 2u
/* Cori's estimate: a window of 7 days, a Gamma(1, 5) prior (EpiEstim's
 * defaults: mean 5, sd 5). */
#define REPRO_WINDOW  7u
#define REPRO_PRIOR_A 1.0
#define REPRO_PRIOR_B 5.0

/* One index case of the sample: the agent, its infectious period (days,
 * and the early days of the viral load), and what it transmits on an
 * early and a late day relative to beta (its factors times the viral
 * load's levels). */
typedef struct repro_case {
	uint32_t a, dur, early;
	double f_early, f_late;
} repro_case;

typedef struct repro_sample {
	repro_case *c;
	uint32_t n;
	double sus[SEIR_AGE_BINS]; /* relative susceptibility by bin */
	double sus_mean;	   /* over the population */
	uint8_t *bin;		   /* every agent's age bin */
} repro_sample;

weft_status weft__seir_repro_params(weft_model_ctx *mc, seir_state *s)
{
	const char *r0_at = weft_model_where(mc, "r0");
	const char *beta_at = weft_model_where(mc, "beta");

	s->params.infection_log =
		(weft_u32)weft_model_bool(mc, "infection_log");
	s->r0_target = weft_model_real(mc, "r0");
	if (strcmp(r0_at, "default") != 0 && strcmp(beta_at, "default") != 0)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: r0 and %s: beta are both set; set "
				       "one of them (r0 calibrates beta)",
				       r0_at, beta_at);
	return WEFT_OK;
}

/* ---- the course of an index case ----------------------------------------
 */

/* Agent a's infectious period and factors, drawn as seir_onset() draws
 * them (no vaccine, no full hospitals) from a draw of the calibration's
 * own. */
static void repro_course(const seir_params *p, uint32_t bin, uint8_t cls,
			 weft_rand4 r, repro_case *c)
{
	uint32_t path = SEIR_PATHS, t;
	double f = 1.0;

	if (seir_chance(r.v[0], p->risk.symp_thr[bin])) {
		weft_u64 d = (weft_u64)r.v[1] << 16;
		path = d < (weft_u64)p->risk.death_thr[0][bin] * SEIR_Q16_ONE
			       ? SEIR_PATH_DEATH
		       : d < (weft_u64)p->risk.crit_thr[0][bin] * SEIR_Q16_ONE
			       ? SEIR_PATH_CRITICAL
		       : d < (weft_u64)p->risk.sev_thr[bin] * SEIR_Q16_ONE
			       ? SEIR_PATH_SEVERE
			       : SEIR_PATHS;
		t = seir_duration(p->dur[SEIR_DUR_SYM], r.v[2]);
	} else {
		f = p->asym_q16 / 65536.0;
		t = seir_duration(p->dur[SEIR_DUR_ASYM], r.v[2]);
	}
	if (path != SEIR_PATHS) {
		weft_rand4 q = weft_philox(p->seed_lo, p->seed_hi, r.v[3], 1u,
					   0u, SEIR_PURPOSE_CALIBRATE);
		t = seir_stage_days(p->stage[path][SEIR_STAGE_TO_SEV], q.v[0]) +
		    seir_stage_days(p->stage[path][SEIR_STAGE_TO_CRIT],
				    q.v[1]) +
		    seir_stage_days(p->stage[path][SEIR_STAGE_REST], q.v[2]);
		t = t < 1u ? 1u : t > SEIR_DUR_MAX ? SEIR_DUR_MAX : t;
	}
	if (p->rel_trans)
		f *= p->rel_q16[cls] / 65536.0;
	c->dur = t;
	c->early = p->vl_on ? p->vl_early[t] : 0u;
	c->f_early = f * (p->vl_on ? p->vl_q16[0][t] / 65536.0 : 1.0);
	c->f_late = f * (p->vl_on ? p->vl_q16[1][t] / 65536.0 : 1.0);
}

/* The sample: REPRO_AGENTS agents drawn uniformly (every agent when
 * there are fewer), REPRO_COURSES courses each. */
static weft_status repro_sample_make(weft_model_ctx *mc, const seir_state *s,
				     const seir_population *pop,
				     repro_sample *rs)
{
	const seir_params *p = &s->params;
	uint32_t n = pop->n_agents, k = n < REPRO_AGENTS ? n : REPRO_AGENTS;
	double count[SEIR_AGE_BINS] = { 0 };

	rs->n = k * REPRO_COURSES;
	rs->c = calloc(rs->n ? rs->n : 1, sizeof *rs->c);
	rs->bin = malloc(n ? n : 1);
	if (!rs->c || !rs->bin)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the sample of %u index "
				       "cases",
				       rs->n);
	for (uint32_t i = 0; i < n; i++) {
		rs->bin[i] =
			weft__seir_age_byte(s, pop->age[i]) & SEIR_BIN_MASK;
		count[rs->bin[i]] += 1.0;
	}
	rs->sus_mean = 0.0;
	for (uint32_t b = 0; b < SEIR_AGE_BINS; b++) {
		rs->sus[b] = p->sus_q16[b] / 65536.0;
		rs->sus_mean += rs->sus[b] * count[b] / (n ? n : 1);
	}
	for (uint32_t i = 0; i < rs->n; i++) {
		weft_rand4 r = weft_philox(p->seed_lo, p->seed_hi, i, 0u, 0u,
					   SEIR_PURPOSE_CALIBRATE);
		uint32_t a = k == n ? i / REPRO_COURSES
				    : (uint32_t)(((uint64_t)r.v[3] * n) >> 32);
		rs->c[i].a = a;
		repro_course(p, rs->bin[a], weft__seir_rel_class(p, a), r,
			     &rs->c[i]);
	}
	return WEFT_OK;
}

static void repro_sample_free(repro_sample *rs)
{
	free(rs->c);
	free(rs->bin);
}

/* The chance of `days` days without a transmission of daily chance p. */
static double repro_miss(double p, uint32_t days)
{
	if (days == 0u)
		return 1.0;
	return p >= 1.0 ? 0.0 : exp(days * log1p(-p));
}

/* The chance that one contact of daily chance bc (beta and the
 * contact's factors, before the infector's) is infected over the period
 * of c: 1 - the chance that every day misses. */
static double repro_edge(const repro_case *c, double bc)
{
	return 1.0 - repro_miss(bc * c->f_early, c->early) *
			     repro_miss(bc * c->f_late, c->dur - c->early);
}

/* Over agent a's stored contacts, the sum of their chances at this
 * beta: over the period of index case c (repro_edge), or without c a
 * day's chance itself (linear in beta). */
static double repro_stored(const seir_population *pop, const repro_sample *rs,
			   uint32_t a, const repro_case *c, double beta)
{
	double r = 0.0;

	for (int l = 0; l < SEIR_MAX_LAYERS; l++) {
		const seir_csr *g = &pop->layer[l];
		double bl = beta * pop->layer_beta[l];

		if (!g->n_edges || bl == 0.0)
			continue;
		for (uint32_t e = g->row[a]; e < g->row[a + 1]; e++) {
			double bc = bl * rs->sus[rs->bin[g->col[e]]] *
				    (g->weight ? g->weight[e] / 1000.0 : 1.0);
			r += c ? repro_edge(c, bc) : bc;
		}
	}
	return r;
}

/* The daily community contacts' part of a day at this beta: partners
 * drawn anew each day, so their expected infections are linear in it. */
static double repro_daily(const seir_population *pop, const repro_sample *rs,
			  double beta)
{
	return pop->community_daily * beta * pop->layer_beta[SEIR_L_COMMUNITY] *
	       rs->sus_mean;
}

/* The expected secondary infections of index case c in a population of
 * susceptibles at this beta. */
static double repro_case_r(const seir_population *pop, const repro_sample *rs,
			   const repro_case *c, double beta)
{
	return repro_stored(pop, rs, c->a, c, beta) +
	       repro_daily(pop, rs, beta) * (c->early * c->f_early +
					     (c->dur - c->early) * c->f_late);
}

/* The next-generation estimate of R0 at this beta: the mean over the
 * sample. */
static double repro_r0_at(const seir_population *pop, const repro_sample *rs,
			  double beta)
{
	double sum = 0.0;

	for (uint32_t i = 0; i < rs->n; i++)
		sum += repro_case_r(pop, rs, &rs->c[i], beta);
	return rs->n ? sum / rs->n : 0.0;
}

/* The beta whose estimate is r0 (to 1e-6 of it), by false position with
 * the Illinois rule on [0, 1] (the estimate grows with beta): 0, or -1
 * when beta = 1 does not reach r0 (*at_one: its estimate). */
static int repro_solve(const seir_population *pop, const repro_sample *rs,
		       double r0, double *beta, double *at_one)
{
	double lo = 0.0, hi = 1.0, flo = -r0, fhi;
	int side = 0;

	*at_one = repro_r0_at(pop, rs, 1.0);
	fhi = *at_one - r0;
	if (fhi < 0.0)
		return -1;
	for (int it = 0; it < 100; it++) {
		double x = (lo * fhi - hi * flo) / (fhi - flo);
		double fx = repro_r0_at(pop, rs, x) - r0;

		*beta = x;
		if (fabs(fx) <= 1e-6 * r0)
			break;
		if (fx < 0.0) {
			lo = x;
			flo = fx;
			fhi = side == -1 ? fhi / 2 : fhi;
			side = -1;
		} else {
			hi = x;
			fhi = fx;
			flo = side == 1 ? flo / 2 : flo;
			side = 1;
		}
	}
	return 0;
}

/* ---- the generation interval ------------------------------------------ */

/* w(d), the chance that an infection happens d days after its infector's:
 * the infector's latent period (its table) plus the day of its infectious
 * period, weighted by what it transmits that day (its factors and the
 * viral load) and by its contacts (at beta = 1, linear), over the
 * sample. */
static void repro_generation(seir_state *s, const seir_population *pop,
			     const repro_sample *rs)
{
	const weft_u32 *lat = s->params.dur[SEIR_DUR_LATENT];
	double day[SEIR_DUR_MAX] = { 0 }, total = 0.0;

	memset(s->gen, 0, sizeof s->gen);
	for (uint32_t i = 0; i < rs->n; i++) {
		const repro_case *c = &rs->c[i];
		double reach = repro_stored(pop, rs, c->a, NULL, 1.0) +
			       repro_daily(pop, rs, 1.0);
		for (uint32_t t = 0; t < c->dur; t++)
			day[t] +=
				reach * (t < c->early ? c->f_early : c->f_late);
	}
	for (uint32_t l = 1; l <= SEIR_DUR_MAX; l++) {
		/* P(latent = l) from the cumulative thresholds. */
		double hi = lat[l - 1] == 0xFFFFFFFFu ? 4294967296.0
						      : (double)lat[l - 1];
		double lo = l == 1 ? 0.0 : (double)lat[l - 2];
		double pl = (hi - lo) / 4294967296.0;
		if (l > 1 && lat[l - 2] == 0xFFFFFFFFu)
			break;
		for (uint32_t t = 0; t < SEIR_DUR_MAX && pl > 0.0; t++)
			s->gen[l + t] += pl * day[t];
	}
	for (uint32_t d = 0; d <= SEIR_GEN_MAX; d++)
		total += s->gen[d];
	for (uint32_t d = 0; d <= SEIR_GEN_MAX && total > 0.0; d++)
		s->gen[d] /= total;
}

weft_status weft__seir_repro_setup(weft_model_ctx *mc, seir_state *s,
				   const seir_population *pop)
{
	repro_sample rs = { 0 };
	double at_one = 0.0, beta = s->spec.beta;
	weft_status st;

	if ((st = repro_sample_make(mc, s, pop, &rs)))
		goto free_sample;
	repro_generation(s, pop, &rs);
	if (s->r0_target > 0.0) {
		if (repro_solve(pop, &rs, s->r0_target, &beta, &at_one)) {
			st = weft_model_fail(
				mc, WEFT_E_CONFIG,
				"%s: r0 = %g cannot be reached on this "
				"population: beta = 1 gives R0 = %.3f",
				weft_model_where(mc, "r0"), s->r0_target,
				at_one);
			goto free_sample;
		}
		s->spec.beta = beta;
	}
	s->r0_model = repro_r0_at(pop, &rs, s->spec.beta);
free_sample:
	repro_sample_free(&rs);
	return st;
}

/* ---- the tally's reproduction counts ------------------------------------
 */

size_t weft__seir_repro_layout(seir_state *s)
{
	return weft__seir_tally_layout(&s->params, s->n_agents,
				       &s->repro_agent_bytes);
}

/* The counts zero, the infectors none (all ones). */
weft_status weft__seir_repro_upload(weft_model_ctx *mc, seir_state *s)
{
	const seir_params *p = &s->params;
	size_t at = (size_t)p->cohort_off * 4;
	size_t bytes = s->bytes[SEIR_BUF_TALLY] - at;
	unsigned char *init = calloc(1, bytes ? bytes : 1);
	weft_status st;

	if (!init)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the reproduction counts",
				       bytes);
	memset(init + ((size_t)p->inf_off - p->cohort_off) * 4, 0xff,
	       (size_t)s->n_agents * 4);
	st = weft_model_upload(mc, s->buf[SEIR_BUF_TALLY], at, init, bytes);
	free(init);
	return st;
}

/* ---- Rt ------------------------------------------------------------------
 */

/* Infections on day d: the exposures of the day, the seeds on day 0. */
static double repro_incidence(const seir_state *s, uint64_t d)
{
	const uint32_t *r = s->series + d * s->params.row_words;

	return d == 0 ? r[SEIR_R_CUM] : r[SEIR_R_NEW_INF];
}

/* The infection pressure on day d: sum over s of w(s) I(d - s). */
static double repro_pressure(const seir_state *s, uint64_t d)
{
	double lambda = 0.0;

	for (uint64_t k = 1; k <= SEIR_GEN_MAX && k <= d; k++)
		lambda += s->gen[k] * repro_incidence(s, d - k);
	return lambda;
}

int weft__seir_rt(const seir_state *s, uint64_t d, double *rt)
{
	double inf = 0.0, lambda = 0.0;

	if (d < REPRO_WINDOW)
		return -1;
	for (uint64_t k = d + 1 - REPRO_WINDOW; k <= d; k++) {
		inf += repro_incidence(s, k);
		lambda += repro_pressure(s, k);
	}
	if (lambda < 1.0)
		return -1;
	*rt = (REPRO_PRIOR_A + inf) / (1.0 / REPRO_PRIOR_B + lambda);
	return 0;
}

/* ---- the end of the run ------------------------------------------------ */

/* The host copies the end of the run needs, read with the last chunk's
 * outputs: the tally's reproduction counts (from cohort_off on), the
 * agents' states and timers. */
struct seir_repro_end {
	uint32_t *counts;
	uint8_t *state;
	uint16_t *timer;
	uint32_t *nab; /* with waning: the agents' NAb words */
};

void weft__seir_repro_free(seir_state *s)
{
	if (!s->fin)
		return;
	free(s->fin->counts);
	free(s->fin->state);
	free(s->fin->timer);
	free(s->fin->nab);
	free(s->fin);
	s->fin = NULL;
}

/* With waning: the agents' NAb words (after the bitmap and testing's
 * words in the active set's buffer), which say which index cases were
 * infected again (repro_summary). */
static weft_status repro_collect_nab(weft_model_ctx *mc, const seir_state *s,
				     seir_repro_end *f)
{
	size_t n = s->n_agents;
	size_t at = (((size_t)n + 31) / 32 + weft__seir_testing_words(s)) * 4;

	if (!(s->params.opts & SEIR_OPT_WANING))
		return WEFT_OK;
	f->nab = malloc(n ? 8 * n : 1);
	if (!f->nab)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the NAb words",
				       8 * n);
	return weft_model_download_async(mc, f->nab, s->buf[SEIR_BUF_BITS], at,
					 8 * n);
}

weft_status weft__seir_repro_collect(weft_model_ctx *mc, seir_state *s,
				     uint64_t steps_done)
{
	size_t n = s->n_agents, at = (size_t)s->params.cohort_off * 4;
	size_t bytes = s->bytes[SEIR_BUF_TALLY] - at;
	seir_repro_end *f;
	weft_status st;

	if (steps_done != weft_model_steps(mc) || s->fin)
		return WEFT_OK;
	f = s->fin = calloc(1, sizeof *f);
	if (f) {
		f->counts = malloc(bytes);
		f->state = malloc(n ? n : 1);
		f->timer = malloc(n ? n * 2 : 1);
	}
	if (!f || !f->counts || !f->state || !f->timer)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the reproduction counts",
				       bytes + 3 * n);
	if ((st = weft_model_download_async(
		     mc, f->counts, s->buf[SEIR_BUF_TALLY], at, bytes)) ||
	    (st = weft_model_download_async(mc, f->state,
					    s->buf[SEIR_BUF_STATE], 0, n)))
		return st;
	if ((st = weft_model_download_async(mc, f->timer,
					    s->buf[SEIR_BUF_TIMER], 0, n * 2)))
		return st;
	return repro_collect_nab(mc, s, f);
}

/* The counts at the end: by day of onset, the cohorts' (secondary
 * infections of those no longer infectious, how many) and those of the
 * agents still infectious (their secondary infections so far, how
 * many); every agent's; their total. */
typedef struct repro_end {
	const uint32_t *cohort, *sec;
	uint32_t *open;
	uint64_t total;
} repro_end;

/* The exposures of the last day, which seir_credit would have credited
 * the next day: their infectors' counts and log lines, in the host copy
 * (an agent still S whose infector is known). */
static void repro_pending(const seir_state *s, uint64_t days)
{
	const seir_params *p = &s->params;
	uint32_t *inf = s->fin->counts + (p->inf_off - p->cohort_off);
	uint32_t *sec = s->fin->counts + (p->sec_off - p->cohort_off);
	uint32_t *log = s->fin->counts + (p->log_off - p->cohort_off);

	for (uint32_t j = 0; j < s->n_agents; j++) {
		uint32_t a = inf[j], sh = (inf[j] & 1u) * 16u;
		uint32_t x = s->fin->state[j] & SEIR_STATE_MASK;
		/* With waning, a recovered agent claimed today is exposed
		 * again (seir_credit clears its infector word). */
		if ((x != SEIR_S &&
		     !(x == SEIR_R && (p->opts & SEIR_OPT_WANING))) ||
		    a == SEIR_NONE)
			continue;
		if (((sec[a >> 1] >> sh) & SEIR_SEC_MAX) != SEIR_SEC_MAX)
			sec[a >> 1] += 1u << sh;
		if (p->infection_log) {
			log[2 * (size_t)j] = a;
			log[2 * (size_t)j + 1] = (uint32_t)days;
		}
	}
}

static weft_status repro_read(weft_model_ctx *mc, const seir_state *s,
			      uint64_t days, repro_end *e)
{
	const seir_repro_end *f = s->fin;

	repro_pending(s, days);
	e->cohort = f->counts;
	e->sec = f->counts + (s->params.sec_off - s->params.cohort_off);
	e->open = calloc((size_t)days + 1, 2 * 4);
	if (!e->open)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the reproduction "
				       "counts");
	for (uint32_t a = 0; a < s->n_agents; a++) {
		uint32_t x = f->state[a] & SEIR_STATE_MASK, tm = f->timer[a];
		/* Onset: `days` less the infectious days gone by. */
		uint64_t onset = days + (tm & 0xffu) - (tm >> 8);
		e->total += seir_sec_of(e->sec, a);
		if (x < SEIR_IA || x > SEIR_ISD || onset > days)
			continue;
		e->open[onset * 2] += seir_sec_of(e->sec, a);
		e->open[onset * 2 + 1]++;
	}
	/* With waning an agent's count starts again at each infection:
	 * the ended infections' counts are in their cohorts. */
	if (s->params.opts & SEIR_OPT_WANING) {
		e->total = 0;
		for (uint64_t d = 0; d <= days; d++)
			e->total +=
				(uint64_t)e->cohort[d * 2 + SEIR_COHORT_SEC] +
				e->open[d * 2];
	}
	return WEFT_OK;
}

/* reproduction.csv: by day of onset, the cohort, its secondary
 * infections (those of its agents still infectious so far), how many
 * are still infectious, the case reproduction number; and Rt. */
static weft_status repro_csv(weft_model_ctx *mc, const seir_state *s,
			     uint64_t days, const repro_end *e)
{
	weft_output *o;
	weft_status st;

	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "reproduction.csv", &o)) ||
	    (st = weft_output_printf(o, "day,new_infectious,secondary,"
					"still_infectious,case_R,Rt\n")))
		return st;
	for (uint64_t d = 0; d <= days && !st; d++) {
		uint32_t size =
			s->series[d * s->params.row_words + SEIR_R_ONSET];
		uint64_t sec = (uint64_t)e->cohort[d * 2 + SEIR_COHORT_SEC] +
			       e->open[d * 2];
		char cr[32] = "", rt[32] = "";
		double v;

		if (size)
			snprintf(cr, sizeof cr, "%.4f", (double)sec / size);
		if (weft__seir_rt(s, d, &v) == 0)
			snprintf(rt, sizeof rt, "%.4f", v);
		st = weft_output_printf(o, "%llu,%u,%llu,%u,%s,%s\n",
					(unsigned long long)d, size,
					(unsigned long long)sec,
					e->open[d * 2 + 1], cr, rt);
	}
	return st;
}

/* The infection log: one line per infection, in infectee order. */
static weft_status repro_log(weft_model_ctx *mc, const seir_state *s)
{
	const uint32_t *log =
		s->fin->counts + (s->params.log_off - s->params.cohort_off);
	weft_output *o;
	weft_status st;

	if (!s->params.infection_log || !weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "infections.csv", &o)) ||
	    (st = weft_output_printf(o, "infectee,infector,day\n")))
		return st;
	/* An imported infection (variants) has no infector: left empty. */
	for (uint32_t j = 0; j < s->n_agents && !st; j++) {
		char by[16] = "";

		if (!log[2 * j + 1])
			continue;
		if (log[2 * j] != SEIR_NONE)
			snprintf(by, sizeof by, "%u", log[2 * j]);
		st = weft_output_printf(o, "%u,%s,%u\n", j, by, log[2 * j + 1]);
	}
	return st;
}

/* With waning: whether agent a was exposed again, its count of
 * secondary infections restarted (seir_credit): reinfected (its NAb
 * word's bit) or exposed again and not yet infectious. */
static int repro_again(const seir_state *s, uint32_t a)
{
	uint32_t w0;

	if (!s->fin->nab)
		return 0;
	w0 = s->fin->nab[2 * (size_t)a];
	return (w0 & SEIR_NAB_FLAG) ||
	       (w0 != 0 && (s->fin->state[a] & SEIR_STATE_MASK) == SEIR_E);
}

/* R0 of the index cases: their mean secondary infections, its standard
 * error, and how many of them could still infect; with waning, those
 * infected again are left out (their counts restarted). */
static void repro_summary(weft_model_ctx *mc, const seir_state *s,
			  const repro_end *e, const uint32_t *last)
{
	double sum = 0.0, sq = 0.0, m;
	uint32_t k = 0, again = 0;
	char left_out[96] = "";

	for (uint32_t i = 0; i < s->n_seeds; i++) {
		double x = seir_sec_of(e->sec, s->seeds[i]);
		if (repro_again(s, s->seeds[i])) {
			again++;
			continue;
		}
		sum += x;
		sq += x * x;
		k++;
	}
	if (again)
		snprintf(left_out, sizeof left_out,
			 "; %u infected again left out", again);
	m = k ? sum / k : 0.0;
	if (s->r0_target > 0.0)
		weft_model_summary(mc, "beta calibrated",
				   "%.6f for r0 = %g (next-generation "
				   "estimate)",
				   s->spec.beta, s->r0_target);
	weft_model_summary(mc, "R0 expected",
			   "%.3f (next-generation estimate at beta %.6f)",
			   s->r0_model, s->spec.beta);
	weft_model_summary(mc, "R0 of the index cases",
			   "%.3f +- %.3f (%u agents exposed on day 0%s)", m,
			   k > 1 ? sqrt((sq / k - m * m) / (k - 1)) : 0.0,
			   s->n_seeds, left_out);
	weft_model_summary(mc, "secondary infections",
			   "%llu counted for their infectors (%u infections "
			   "after day 0%s)",
			   (unsigned long long)e->total,
			   last[SEIR_R_CUM] - s->n_seeds,
			   (s->params.opts & SEIR_OPT_VARIANTS)
				   ? "; the imported have none"
				   : "");
}

weft_status weft__seir_repro_finish(weft_model_ctx *mc, const seir_state *s,
				    uint64_t days)
{
	repro_end e = { 0 };
	weft_status st;

	/* A run that stopped before its last step has no end to read. */
	if (!s->fin)
		return WEFT_OK;
	if ((st = repro_read(mc, s, days, &e)) == WEFT_OK &&
	    (st = repro_csv(mc, s, days, &e)) == WEFT_OK &&
	    (st = repro_log(mc, s)) == WEFT_OK)
		repro_summary(mc, s, &e,
			      s->series + days * s->params.row_words);
	free(e.open);
	return st;
}
