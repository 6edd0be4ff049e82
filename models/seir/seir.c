/*
 * models/seir/seir.c - the SEIR model's host side: its keys, setup (the
 * parameters, the population, the device buffers and the day's launch
 * list), the daily CSV and the summary. Everything that runs per agent
 * per day is in seir.wk; models/seir/seir.md describes the model.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/patches.h>

#include "population_keys.h"
#include "seir.h"
#include "testing_keys.h"
#include "waning_keys.h"

static const weft_key_desc seir_keys[] = {
	SEIR_POPULATION_KEYS,
	{ "patch_file", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "a CSV file of patches (places), the patch model's form: a header "
	  "naming its columns, then a row per patch in order: population "
	  "(needed), latitude and longitude (or lat and lon), "
	  "initial_infected, id (if given, 0, 1, 2, ... in order). The "
	  "agents are the populations' sum, numbered patch by patch; "
	  "households, schools and workplaces lie within a patch, and each "
	  "community contact goes to another patch with the share of the "
	  "migration network (gravity_k and the keys after it), else stays "
	  "in its own. initial_infected seeds each patch (instead of the "
	  "initial_infected key). Writes by_patch.csv. With population = "
	  "synthetic or random, community_daily = false; a relative path is "
	  "taken from the INI file's directory; empty: no patches" },
	WEFT_MIGRATION_KEYS,
	{ "network_file", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "with patch_file, the network between the patches from a CSV file "
	  "instead of a migration model's (a modeller's own mobility data, "
	  "the patch model's network.csv): a row per source patch, a column "
	  "per destination, the share of the source's community contacts "
	  "made in the destination, 0 or more, 0 from a patch to itself, a "
	  "row's sum at most 1 (what stays is 1 - the sum); a first line "
	  "that does not begin with a number is a header; a relative path is "
	  "taken from the INI file's directory; the migration model's keys "
	  "(migration to network_float32) are refused with it; read with one "
	  "patch too; empty: the migration model's" },
	{ "beta", WEFT_KEY_REAL, "0.05", 0, 1, NULL,
	  "probability that a symptomatic agent infects one susceptible "
	  "contact of weight 1 in one day, before layer weights, "
	  "interventions and individual factors" },
	{ "latent_duration", WEFT_KEY_STRING, "lognormal(4.5, 1.5)", 0, 0, NULL,
	  "days exposed before becoming infectious: fixed(DAYS), "
	  "geometric(MEAN), gamma(MEAN, SD) or lognormal(MEAN, SD) (of the "
	  "variable, not its log), rounded to whole days, or a sum of such "
	  "terms joined by + (each rounded, as Covasim's stages are), taken "
	  "to 1 to 120 days (Covasim exp2inf)" },
	{ "asym_duration", WEFT_KEY_STRING, "lognormal(8, 2)", 0, 0, NULL,
	  "days an asymptomatic agent is infectious before recovering "
	  "(Covasim asym2rec)" },
	{ "sym_duration", WEFT_KEY_STRING,
	  "lognormal(1.1, 0.9) + lognormal(8, 2)", 0, 0, NULL,
	  "days a symptomatic agent with mild symptoms is infectious before "
	  "recovering (Covasim inf2sym + mild2rec)" },
	{ "severe_duration", WEFT_KEY_STRING,
	  "lognormal(1.1, 0.9) + lognormal(6.6, 4.9) + lognormal(18.1, 6.3)", 0,
	  0, NULL,
	  "days a severe case who recovers is infectious (Covasim inf2sym + "
	  "sym2sev + sev2rec)" },
	{ "critical_duration", WEFT_KEY_STRING,
	  "lognormal(1.1, 0.9) + lognormal(6.6, 4.9) + lognormal(1.5, 2) + "
	  "lognormal(18.1, 6.3)",
	  0, 0, NULL,
	  "days a critical case who recovers is infectious (Covasim inf2sym "
	  "+ sym2sev + sev2crit + crit2rec)" },
	{ "death_duration", WEFT_KEY_STRING,
	  "lognormal(1.1, 0.9) + lognormal(6.6, 4.9) + lognormal(1.5, 2) + "
	  "lognormal(10.7, 4.8)",
	  0, 0, NULL,
	  "days from infectiousness to death for a symptomatic agent who dies "
	  "(Covasim inf2sym + sym2sev + sev2crit + crit2die)" },
	{ "symp_prob", WEFT_KEY_STRING,
	  "0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.90", 0, 0,
	  NULL,
	  "probability of symptoms, one value or ten by age (0-9, ..., 90+; "
	  "Covasim symp_probs)" },
	{ "severe_prob", WEFT_KEY_STRING,
	  "0.001, 0.003, 0.012, 0.032, 0.049, 0.102, 0.166, 0.243, 0.273, "
	  "0.273",
	  0, 0, NULL,
	  "probability that a symptomatic agent has severe symptoms, one "
	  "value or ten by age (Covasim severe_probs / symp_probs); at "
	  "least critical_prob" },
	{ "critical_prob", WEFT_KEY_STRING,
	  "0.00006, 0.000145455, 0.0006, 0.0016, 0.00308571, 0.01244, "
	  "0.0454875, 0.104976, 0.193556, 0.193556",
	  0, 0, NULL,
	  "probability that a symptomatic agent becomes critical, one value "
	  "or ten by age (Covasim crit_probs / symp_probs); at least "
	  "death_prob" },
	{ "death_prob", WEFT_KEY_STRING,
	  "0.00004, 0.0000363636, 0.000166667, 0.000492308, 0.0014, "
	  "0.00353333, 0.009575, 0.0286941, 0.0921333, 0.179889",
	  0, 0, NULL,
	  "probability that a symptomatic agent dies (after being critical), "
	  "one value or ten by age (Covasim death_probs / symp_probs)" },
	{ "deaths", WEFT_KEY_BOOL, "true", 0, 0, NULL,
	  "whether anyone dies (false: death_prob is ignored)" },
	{ "n_beds_hosp", WEFT_KEY_INT, "-1", -1, 2000000000, NULL,
	  "hospital beds for agents who are severe or critical (Covasim "
	  "n_beds_hosp); -1: no limit. On a day when more agents need one "
	  "than there are beds, those infected that day become critical "
	  "no_hosp_factor times as often (given severe)" },
	{ "n_beds_icu", WEFT_KEY_INT, "-1", -1, 2000000000, NULL,
	  "ICU beds for critical agents (Covasim n_beds_icu); -1: no limit. "
	  "On a day when more agents are critical than there are beds, those "
	  "infected that day die no_icu_factor times as often (given "
	  "critical)" },
	{ "no_hosp_factor", WEFT_KEY_REAL, "2.0", 0, 100, NULL,
	  "how much more likely a severe agent becomes critical when it was "
	  "infected while the hospitals were full (Covasim no_hosp_factor)" },
	{ "no_icu_factor", WEFT_KEY_REAL, "2.0", 0, 100, NULL,
	  "how much more likely a critical agent dies when it was infected "
	  "while the ICUs were full (Covasim no_icu_factor)" },
	{ "susceptibility", WEFT_KEY_STRING,
	  "0.34, 0.67, 1.00, 1.00, 1.00, 1.00, 1.24, 1.47, 1.47, 1.47", 0, 0,
	  NULL,
	  "relative susceptibility, one value or ten by age, 0 to 10 "
	  "(Covasim sus_ORs)" },
	{ "asym_factor", WEFT_KEY_REAL, "1.0", 0, 10, NULL,
	  "transmissibility of asymptomatic agents relative to symptomatic "
	  "ones (Covasim asymp_factor)" },
	{ "rel_trans_dispersion", WEFT_KEY_REAL, "0", 0, 1000, NULL,
	  "dispersion k of individual transmissibility (Covasim's beta_dist: "
	  "a negative binomial of mean 100 and dispersion k, times 0.01, in "
	  "256 classes; Covasim uses 0.45); 0: every agent transmits alike" },
	{ "viral_load", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "Covasim's viral load: agents transmit more early in their "
	  "infectious period (viral_load_ratio times, for viral_load_frac of "
	  "it, at most viral_load_cap days), the period's mean unchanged" },
	{ "viral_load_frac", WEFT_KEY_REAL, "0.3", 0, 1, NULL,
	  "early part of the infectious period, in steps of 0.001 (Covasim "
	  "viral_dist frac_time)" },
	{ "viral_load_ratio", WEFT_KEY_REAL, "2", 1, 100, NULL,
	  "transmission early over transmission late (Covasim viral_dist "
	  "load_ratio)" },
	{ "viral_load_cap", WEFT_KEY_REAL, "4", 0, 120, NULL,
	  "the early part lasts at most this many days, in steps of 0.001 "
	  "(Covasim viral_dist high_cap)" },
	{ "initial_infected", WEFT_KEY_INT, "10", 0, 2000000000, NULL,
	  "agents exposed on day 0 (at most agents); not with "
	  "initial_fraction" },
	{ "initial_fraction", WEFT_KEY_REAL, "0", 0, 1, NULL,
	  "fraction of agents exposed on day 0, instead of initial_infected" },
	{ "interventions", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "beta multipliers by layer and day: 'LAYERS FIRST-LAST FACTOR, ...' "
	  "with LAYERS home, school, work, community or all (joined by +), "
	  "e.g. 'school 30-90 0, all 45-60 0.3'" },
	{ "seasonality_factor", WEFT_KEY_REAL, "0", 0, 1, NULL,
	  "seasonal forcing of beta on every layer, as LASER's Transmission "
	  "seasonality and the patch model's: day t's beta is times 1 + "
	  "seasonality_factor cos(2 pi (t - seasonality_phase) / 365), with "
	  "the interventions' factors; 0: none" },
	{ "seasonality_phase", WEFT_KEY_REAL, "0", -1e6, 1e6, NULL,
	  "the day of the seasonal cosine's peak (LASER's seasonality_phase)" },
	{ "isolation_prob", WEFT_KEY_REAL, "0", 0, 1, NULL,
	  "probability that a symptomatic agent isolates from symptom onset" },
	{ "isolation_factor", WEFT_KEY_REAL, "0.2", 0, 1, NULL,
	  "transmission left to isolating agents (Covasim iso_factor)" },
	{ "isolation_start", WEFT_KEY_INT, "0", 0, 1000000000, NULL,
	  "first day on which isolating agents transmit less" },
	{ "vaccine_doses", WEFT_KEY_INT, "0", 0, 2000000000, NULL,
	  "doses per day from vaccine_start (0: no vaccination); each dose "
	  "goes to the next agent in the order, the dead excepted" },
	{ "vaccine_start", WEFT_KEY_INT, "1", 1, 1000000000, NULL,
	  "first day of vaccination" },
	{ "vaccine_efficacy", WEFT_KEY_REAL, "0.9", 0, 1, NULL,
	  "reduction of a vaccinated agent's susceptibility" },
	{ "vaccine_priority", WEFT_KEY_ENUM, "none", 0, 0, "none|oldest",
	  "order of vaccination: random, or the oldest first" },
	{ "vaccine_efficacy_symptoms", WEFT_KEY_REAL, "0", 0, 1, NULL,
	  "reduction of a vaccinated agent's chance of symptoms once "
	  "infected (Covasim symp_imm); the default of every campaign" },
	{ "vaccine_efficacy_severe", WEFT_KEY_REAL, "0", 0, 1, NULL,
	  "reduction of a vaccinated symptomatic agent's chance of severe "
	  "disease (and so of critical and death; Covasim sev_imm); the "
	  "default of every campaign" },
	{ "vaccine_first_dose", WEFT_KEY_REAL, "0.5", 0, 1, NULL,
	  "the part of a two-dose campaign's efficacies that its first dose "
	  "gives" },
	{ "vaccine_campaigns", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "vaccination campaigns, separated by commas, each 'days=FIRST-LAST "
	  "doses=N' (first doses a day; LAST may be left out: to the end; "
	  "Covasim's vaccinate_num) or 'days=FIRST-LAST prob=F' (each agent "
	  "of the group not yet vaccinated gets its first dose with chance "
	  "F each day; Covasim's vaccinate_prob; not with priority=oldest "
	  "or bands) "
	  "and optionally coverage=F (of its age group, 0 to 1; default 1), "
	  "ages=LO-HI or LO+ (default all), priority=oldest, random or "
	  "AGES/AGES/... (bands first, in that order), second=DAYS (a second "
	  "dose that many days after the first), efficacy=, symptoms=, "
	  "severe=, first= (default: the vaccine_* keys), or with waning "
	  "vaccine=NAME, one of Covasim 3.1.9's vaccines with NAbs "
	  "(get_vaccine_dose_pars: default, pfizer, moderna, az, jj, "
	  "novavax, sinovac, sinopharm; its interval unless second= is "
	  "given); at most 4, the vaccine_doses keys counting as one; an "
	  "agent gets doses from one campaign only" },
	{ "age_bands", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "age bands of the outputs by age (by_age.csv and its plot: new "
	  "infections, severe, critical and deaths per day in each band), "
	  "'LO-HI, ..., LO+' in whole years from 0 without gaps, at most 16, "
	  "e.g. '0-17, 18-49, 50-64, 65+'; empty: no outputs by age" },
	{ "frontier", WEFT_KEY_BOOL, "true", 0, 0, NULL,
	  "work over the active list of exposed and infectious agents only "
	  "(false: over every agent, for comparison; same results)" },
	{ "count_work", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "count the infectors that draw and the candidates skip sampling "
	  "walks, for the summary (bench/seir-profile.sh; costs a few per "
	  "cent of a day; same results)" },
	{ "crn", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "common random numbers, for comparing scenarios: an agent's "
	  "course is drawn by agent whatever day it is infected, an "
	  "infector's contacts by the day of its infectious period, and its "
	  "walks keep their candidates and draws whatever isolation, "
	  "diagnosis, quarantine and interventions lower its chances to, so "
	  "that two scenarios run with the same seed pair agent by agent "
	  "(bench/crn.sh); other numbers than false, the same laws; costs "
	  "the candidates the lowered chances would have skipped (12 to 25 "
	  "% more time with isolation; models/seir/seir.md); an ensemble "
	  "that compares scenarios or sweep points sets it true in every "
	  "run unless the configuration sets it (docs/ensembles.md)" },
	{ "r0", WEFT_KEY_REAL, "0", 0, 100, NULL,
	  "basic reproduction number to calibrate beta for, instead of "
	  "beta: the beta whose next-generation estimate of R0 on this "
	  "population (a random index case's expected secondary infections "
	  "among susceptibles, without interventions) is r0; 0: beta as "
	  "given (models/seir/seir.md)" },
	{ "infection_log", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "write infections.csv: who infected whom on which day (8 bytes per "
	  "agent on the device; for tests and debugging)" },
	SEIR_TESTING_KEYS,
	SEIR_WANING_KEYS,
};

weft_status weft__seir_alloc(weft_model_ctx *mc, seir_state *s,
			     enum seir_buf_id id, const char *what,
			     size_t bytes)
{
	s->bytes[id] = bytes;
	return weft_model_alloc(mc, what, bytes, &s->buf[id]);
}

/* Words of the active set's bitmap, and the blocks that rebuild the
 * list from it. */
static size_t seir_words(const seir_state *s)
{
	return ((size_t)s->n_agents + 31) / 32;
}

static uint32_t seir_blocks(const seir_state *s)
{
	return (uint32_t)((seir_words(s) + SEIR_LIST_BLOCK - 1) /
			  SEIR_LIST_BLOCK);
}

/* Buffers of the agents' state and the day's work; the population's are
 * allocated by weft__seir_upload_population(). */
static weft_status seir_alloc_all(weft_model_ctx *mc, seir_state *s)
{
	size_t n = s->n_agents;
	size_t rows = (size_t)s->params.n_days + 1;
	weft_status st;

	if ((st = weft__seir_alloc(mc, s, SEIR_BUF_PARAMS, "params",
				   sizeof s->params + (size_t)s->beta_rows *
							      SEIR_BETA_COLS *
							      4)) ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_STATE, "state", n)) ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_TIMER, "timer", n * 2)) ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_TALLY, "tally",
				   weft__seir_repro_layout(s) * 4)) ||
	    (st = weft__seir_alloc(mc, s, SEIR_BUF_BITS, "active set",
				   (seir_words(s) +
				    weft__seir_testing_words(s) +
				    weft__seir_waning_words(s)) *
					   4)))
		return st;
	if (s->params.frontier &&
	    ((st = weft__seir_alloc(mc, s, SEIR_BUF_LIST, "active list",
				    n * 4)) ||
	     (st = weft__seir_alloc(mc, s, SEIR_BUF_OFFS, "list offsets",
				    (size_t)seir_blocks(s) * 4))))
		return st;
	if ((st = weft__seir_alloc(mc, s, SEIR_BUF_SERIES, "series",
				   rows * s->params.row_words * 4)))
		return st;
	s->series = calloc(rows, s->params.row_words * sizeof(uint32_t));
	if (!s->series)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the host copy of %zu "
				       "daily rows",
				       rows);
	return WEFT_OK;
}

/* ---- the day's launches
 * ------------------------------------------------------ */

/* Buffer id, or the state buffer when the configuration has none of that
 * kind (no frontier, no weights): the kernels that would read it are then
 * never launched, or never read it, and no backend sees NULL. */
static weft_buf *seir_b(const seir_state *s, enum seir_buf_id id)
{
	return s->buf[id] ? s->buf[id] : s->buf[SEIR_BUF_STATE];
}

#define B(k) seir_b(s, SEIR_BUF_##k)

/* Launch l over min(extent, tally[count]) items read on the device;
 * count < 0: over extent. */
static weft_launch seir_count_by(const seir_state *s, weft_launch l, int count)
{
	if (count >= 0) {
		l.extent_buf = s->buf[SEIR_BUF_TALLY];
		l.extent_offset = (uint32_t)count * 4;
	}
	return l;
}

/* Testing, then tracing (testing.c), over the active list (count) or
 * every agent: after the day's progression, before its transmission.
 * Testing without symptoms, and by number, runs over every agent. */
static uint32_t seir_day_testing(const seir_state *s, weft_launch *l, int count)
{
	uint32_t n = s->n_agents, k = 0;

	if (!s->params.testing)
		return 0;
	/* By number: four passes of the selection over every agent. */
	for (uint32_t pass = 0; s->params.test_num && pass < SEIR_TNUM_DONE;
	     pass++) {
		l[k++] = seir_tnum_count_launch(
			(seir_tnum_count_bufs){ .p = B(PARAMS),
						.state = B(STATE),
						.timer = B(TIMER),
						.tally = B(TALLY),
						.bits = B(BITS) },
			n);
		l[k++] = seir_tnum_pick_launch(
			(seir_tnum_pick_bufs){ .p = B(PARAMS),
					       .tally = B(TALLY) },
			1);
	}
	l[k++] = seir_count_by(
		s,
		seir_test_launch((seir_test_bufs){ .p = B(PARAMS),
						   .state = B(STATE),
						   .timer = B(TIMER),
						   .tally = B(TALLY),
						   .agebin = B(AGEBIN),
						   .list = B(LIST),
						   .bits = B(BITS) },
				 n),
		s->params.test_all ? -1 : count);
	if (s->params.tracing)
		l[k++] = seir_count_by(
			s,
			seir_trace_launch((seir_trace_bufs){ .p = B(PARAMS),
							     .state = B(STATE),
							     .tally = B(TALLY),
							     .list = B(LIST),
							     .bits = B(BITS),
							     .rows = B(ROWS),
							     .cols = B(COLS) },
					  n),
			count);
	return k;
}

/* The campaigns' doses of the day: a launch each, in campaign order,
 * over its first doses and (two-dose campaigns) its second doses; by
 * chance (prob=), over its agents. */
static uint32_t seir_day_vaccination(const seir_state *s, weft_launch *l)
{
	uint32_t k = 0;

	for (uint32_t c = 0; c < s->params.n_campaigns; c++) {
		const seir_campaign *cp = &s->params.camp[c];
		if (!cp->items)
			continue;
		l[k++] = seir_vaccinate_launch(
			(seir_vaccinate_bufs){
				.p = B(PARAMS),
				.state = B(STATE),
				.care = B(CARE),
				.tally = B(TALLY),
				.order = B(ORDER),
				.camp = seir_b(s, SEIR_BUF_CAMP0 + c),
				.bits = B(BITS) },
			cp->interval && cp->doses ? 2 * cp->items : cp->items);
	}
	return k;
}

/* Yesterday's exposures credited, the day's doses (after the credit, so
 * that a dose to an agent exposed yesterday is known to have come during
 * its latency), progress, testing and tracing, and transmission over the
 * active list (count: SEIR_T_COUNT) or over every agent (count < 0). */
static uint32_t seir_day_core(const seir_state *s, weft_launch *l, int count)
{
	uint32_t n = s->n_agents, k;

	l[0] = seir_count_by(
		s,
		seir_credit_launch((seir_credit_bufs){ .p = B(PARAMS),
						       .state = B(STATE),
						       .tally = B(TALLY),
						       .list = B(LIST),
						       .bits = B(BITS) },
				   n),
		count);
	k = 1 + seir_day_vaccination(s, &l[1]);
	l[k++] = seir_count_by(
		s,
		seir_progress_launch((seir_progress_bufs){ .p = B(PARAMS),
							   .state = B(STATE),
							   .timer = B(TIMER),
							   .tally = B(TALLY),
							   .agebin = B(AGEBIN),
							   .list = B(LIST),
							   .care = B(CARE),
							   .bits = B(BITS) },
				     n),
		count);
	k += seir_day_testing(s, &l[k], count);
	l[k] = seir_count_by(
		s,
		seir_transmit_launch((seir_transmit_bufs){ .p = B(PARAMS),
							   .state = B(STATE),
							   .timer = B(TIMER),
							   .tally = B(TALLY),
							   .agebin = B(AGEBIN),
							   .relcls = B(RELCLS),
							   .list = B(LIST),
							   .bits = B(BITS),
							   .rows = B(ROWS),
							   .cols = B(COLS),
							   .weights = B(WEIGHT),
							   .care = B(CARE) },
				     n),
		count);
	return k + 1;
}

/* Tomorrow's active list from the bitmap: counts by block, offsets (and
 * the list's length), the agents in order. */
static uint32_t seir_day_list(const seir_state *s, weft_launch *l)
{
	uint32_t nb = seir_blocks(s);

	l[0] = seir_list_sums_launch((seir_list_sums_bufs){ .p = B(PARAMS),
							    .bits = B(BITS),
							    .offs = B(OFFS) },
				     nb);
	l[1] = seir_list_top_launch((seir_list_top_bufs){ .p = B(PARAMS),
							  .tally = B(TALLY),
							  .offs = B(OFFS) },
				    1);
	l[2] = seir_list_fill_launch((seir_list_fill_bufs){ .p = B(PARAMS),
							    .bits = B(BITS),
							    .offs = B(OFFS),
							    .list = B(LIST) },
				     nb);
	return 3;
}

/* With variants: the day's imports after its transmission, and, over
 * tomorrow's list (count), the variants of the day's exposures. */
static weft_launch seir_day_import(const seir_state *s)
{
	return seir_imports_launch((seir_imports_bufs){ .p = B(PARAMS),
							.state = B(STATE),
							.timer = B(TIMER),
							.tally = B(TALLY),
							.agebin = B(AGEBIN),
							.bits = B(BITS) },
				   1);
}

static weft_launch seir_day_variants(const seir_state *s, int count)
{
	return seir_count_by(
		s,
		seir_variant_count_launch(
			(seir_variant_count_bufs){ .p = B(PARAMS),
						   .state = B(STATE),
						   .tally = B(TALLY),
						   .list = B(LIST),
						   .bits = B(BITS) },
			s->n_agents),
		count);
}

/* One day (seir.wk): with the frontier, work over the active list whose
 * size the device keeps in the tally; without, over every agent. */
static weft_status seir_set_step(weft_model_ctx *mc, seir_state *s)
{
	uint32_t k = 0;
	int count = s->params.frontier ? SEIR_T_COUNT : -1;
	int variants = (s->params.opts & SEIR_OPT_VARIANTS) != 0;
	weft_launch l[13 + 2 * SEIR_TNUM_DONE + SEIR_CAMPAIGNS];

	k += seir_day_core(s, &l[k], count);
	if (variants)
		l[k++] = seir_day_import(s);
	if (s->params.frontier)
		k += seir_day_list(s, &l[k]);
	if (variants)
		l[k++] = seir_day_variants(s, count);
	l[k++] = seir_tally_launch((seir_tally_bufs){ .p = B(PARAMS),
						      .tally = B(TALLY),
						      .series = B(SERIES),
						      .bits = B(BITS) },
				   1);
	return weft_model_set_step(mc, l, k);
}

#undef B

/* WEFT_E_CANCELLED once the run was cancelled (weft_model_cancelled):
 * setup stops between its long steps, and reports each one as it starts
 * (weft_model_progress). */
static weft_status seir_go_on(weft_model_ctx *mc, const char *doing)
{
	if (!weft_model_cancelled(mc)) {
		weft_model_progress(mc, doing, 0, 0);
		return WEFT_OK;
	}
	return weft_model_fail(mc, WEFT_E_CANCELLED, "cancelled while %s",
			       doing);
}

/* Everything after the population is built: sizes, buffers, uploads,
 * launches. */
static weft_status seir_build(weft_model_ctx *mc, seir_state *s,
			      const seir_population *pop)
{
	weft_status st;

	s->n_agents = pop->n_agents;
	if ((st = weft__seir_imports_place(mc, s)) ||
	    (st = weft__seir_count_seeds(mc, s)) ||
	    (st = seir_go_on(mc, "estimating R0")) ||
	    (st = weft__seir_repro_setup(mc, s, pop)) ||
	    (st = weft__seir_make_beta(mc, s, pop)) ||
	    (st = seir_go_on(mc, "allocating the state")) ||
	    (st = seir_alloc_all(mc, s)) ||
	    (st = seir_go_on(mc, "uploading the population")) ||
	    (st = weft__seir_upload_population(mc, s, pop)) ||
	    (st = seir_go_on(mc, "uploading the state")) ||
	    (st = weft__seir_upload_state(mc, s, pop)) ||
	    (st = weft__seir_repro_upload(mc, s)) ||
	    (st = weft_model_upload(mc, s->buf[SEIR_BUF_PARAMS], 0, &s->params,
				    sizeof s->params)) ||
	    (st = weft_model_upload(mc, s->buf[SEIR_BUF_PARAMS],
				    sizeof s->params, s->beta,
				    (size_t)s->beta_rows * SEIR_BETA_COLS * 4)))
		return st;
	return seir_set_step(mc, s);
}

/* What a checkpoint saves: the buffers the day's kernels write (agents'
 * states and timers, the tally with the day counter that keys every
 * draw, the active set and list and the list's offsets, the care byte of
 * vaccination campaigns (doses given, which campaign); the series and
 * its snapshots are declared by weft_model_rows_open()). The rest is what
 * setup() builds from the configuration and the population (parameters
 * and beta table, ages, transmissibility classes, vaccination order,
 * contacts), which a resume builds again. SEIR keeps no host state: the
 * interventions are in the beta table, the counts on the device. */
static weft_status seir_declare_state(weft_model_ctx *mc, seir_state *s)
{
	static const enum seir_buf_id state[] = {
		SEIR_BUF_STATE, SEIR_BUF_TIMER, SEIR_BUF_TALLY, SEIR_BUF_BITS,
		SEIR_BUF_LIST,	SEIR_BUF_OFFS,	SEIR_BUF_CARE,
	};
	weft_status st = WEFT_OK;

	for (size_t i = 0; i < sizeof state / sizeof state[0] && !st; i++)
		if (s->buf[state[i]])
			st = weft_model_state(mc, s->buf[state[i]]);
	return st;
}

/* Output snapshots: each slot's region holds a chunk's rows (at most
 * `every`, plus day 0 in the first). */
static weft_status seir_snap_setup(weft_model_ctx *mc, seir_state *s)
{
	uint64_t every = weft_model_output_every(mc);

	return weft_model_rows_open(
		mc, s->buf[SEIR_BUF_SERIES], s->series,
		s->params.row_words * sizeof(uint32_t),
		(every < s->params.n_days ? every : s->params.n_days) + 1,
		&s->rows);
}

/* The checks setup() makes before it builds anything (model ABI 1.1),
 * so that `weft check` sees them: every [seir] key read by the functions
 * setup() reads them with, into a state of its own, and the initial
 * infections against the agents when their number is known without
 * building the population (not for population = csv). */
static weft_status seir_check(weft_model_ctx *mc)
{
	seir_pop_params pp;
	seir_state s;
	weft_status st;

	memset(&s, 0, sizeof s);
	if ((st = weft__seir_read_params(mc, &s)) ||
	    (st = weft__seir_population_params(mc, &pp, 1)))
		return st;
	s.patches = pp.patches;
	if (pp.kind != SEIR_POP_CSV) {
		s.n_agents = pp.agents;
		st = weft__seir_patch_layout(mc, &s.params, s.patches.n);
		if (!st)
			st = weft__seir_imports_place(mc, &s);
		if (!st)
			st = weft__seir_count_seeds(mc, &s);
	}
	weft__seir_patches_free(&s.patches);
	return st;
}

static weft_status seir_setup(weft_model_ctx *mc, void **out)
{
	seir_state *s = calloc(1, sizeof *s);
	seir_pop_params pp;
	seir_population pop;
	char err[WEFT_ERROR_MAX], vcols[32 * SEIR_VARIANTS];
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	if ((st = weft__seir_read_params(mc, s)) ||
	    (st = weft__seir_population_params(mc, &pp, 1)))
		return st;
	/* The state owns the patches; the build reads them. */
	s->patches = pp.patches;
	if ((st = weft__seir_patch_layout(mc, &s->params, s->patches.n)) ||
	    (st = seir_go_on(mc, "building the population")))
		return st;
	st = weft__seir_population_build(&pp, &pop, err, sizeof err);
	if (st)
		return weft_model_fail(mc, st, "%s", err);
	weft__seir_patches_mixing(&s->patches, &pop.layer[SEIR_L_COMMUNITY]);
	/* The contacts' shares are built in: not kept for the run. */
	free(s->patches.cum);
	s->patches.cum = NULL;
	st = seir_build(mc, s, &pop);
	weft__seir_population_free(&pop);
	if (st == WEFT_OK)
		st = seir_declare_state(mc, s);
	if (st == WEFT_OK)
		st = seir_snap_setup(mc, s);
	if (st)
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	weft__seir_variants_header(s, vcols, sizeof vcols);
	if ((st = weft_model_output_open(mc, "daily.csv", &s->csv)) ||
	    (st = weft_output_printf(s->csv,
				     "day,S,E,I_asym,I_sym,R,D,"
				     "new_infections,new_deaths,"
				     "cumulative,vaccinated,new_severe,"
				     "new_critical,hospitalised,icu,"
				     "over_hosp,over_icu,"
				     "fully_vaccinated,new_tests,"
				     "new_diagnoses,diagnosed,"
				     "new_quarantined,n_quarantined,"
				     "new_infectious,Rt%s%s\n",
				     (s->params.opts & SEIR_OPT_WANING)
					     ? ",new_reinfections"
					     : "",
				     vcols)))
		return st;
	if ((st = weft__seir_age_open(mc, s)))
		return st;
	return weft__seir_patch_open(mc, s);
}

/* Main thread, after the chunk ending at steps_done was enqueued: the
 * rows of days not read yet, up to steps_done, on their way to `series`. */
static weft_status seir_collect(weft_model_ctx *mc, void *state,
				uint64_t steps_done, unsigned slot)
{
	seir_state *s = state;
	weft_status st =
		weft_model_rows_collect(mc, s->rows, slot, steps_done + 1);

	return st ? st : weft__seir_repro_collect(mc, s, steps_done);
}

/* Writer thread, once the slot's rows are in `series`: append the CSV rows
 * due among them (every `every` days, and the last day of the run). */
static weft_status seir_emit(weft_model_ctx *mc, void *state,
			     uint64_t steps_done, unsigned slot)
{
	seir_state *s = state;
	uint64_t every = weft_model_output_every(mc);
	uint64_t first, end;
	weft_status st;

	(void)steps_done;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t d = first; s->csv && d < end; d++) {
		const uint32_t *r = s->series + d * s->params.row_words;
		char rt[32] = "", reinf[16] = "", vcols[16 * SEIR_VARIANTS];
		double v;
		if (d % every != 0 && d != weft_model_steps(mc))
			continue;
		if (weft__seir_rt(s, d, &v) == 0)
			snprintf(rt, sizeof rt, "%.4f", v);
		/* With waning: new_reinfections, the row's last word. */
		if (s->params.opts & SEIR_OPT_WANING)
			snprintf(reinf, sizeof reinf, ",%u",
				 r[s->params.row_words - 1]);
		/* With variants: new infections by variant. */
		weft__seir_variants_row(s, r, vcols, sizeof vcols);
		st = weft_output_printf(
			s->csv,
			"%llu,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,"
			"%u,%u,%u,%u,%u,%u,%u,%s%s%s\n",
			(unsigned long long)d, r[SEIR_R_S], r[SEIR_R_E],
			r[SEIR_R_IA], r[SEIR_R_IS], r[SEIR_R_R], r[SEIR_R_D],
			r[SEIR_R_NEW_INF], r[SEIR_R_NEW_D], r[SEIR_R_CUM],
			r[SEIR_R_VAC], r[SEIR_R_NEW_SEV], r[SEIR_R_NEW_CRIT],
			r[SEIR_R_HOSP], r[SEIR_R_ICU], r[SEIR_R_OVER_H],
			r[SEIR_R_OVER_I], r[SEIR_R_FULL], r[SEIR_R_NEW_TEST],
			r[SEIR_R_NEW_DIAG], r[SEIR_R_DIAG], r[SEIR_R_NEW_QUAR],
			r[SEIR_R_N_QUAR], r[SEIR_R_ONSET], rt, reinf, vcols);
		if (st || (st = weft__seir_age_row(s, d, r)) ||
		    (st = weft__seir_patch_row(s, d, r)))
			return st;
	}
	return WEFT_OK;
}

/* Contacts stored per layer, or drawn daily. */
static void seir_summary_contacts(weft_model_ctx *mc, const seir_state *s)
{
	static const char *const names[SEIR_MAX_LAYERS] = { "home", "school",
							    "work",
							    "community" };
	char line[256] = "";
	size_t at = 0;

	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %llu",
				       l ? ", " : "", names[l],
				       (unsigned long long)s->n_edges[l]);
	weft_model_summary(mc, "contacts stored", "%s (mean degree %.2f)", line,
			   (double)s->edges_total / s->n_agents);
	if (s->params.community_daily)
		weft_model_summary(mc, "community contacts",
				   "%u drawn per infectious agent per day",
				   s->params.community_daily);
}

/* Device bytes: per agent (everything but the columns and weights and
 * the fixed-size buffers) and per stored contact. */
static void seir_summary_memory(weft_model_ctx *mc, const seir_state *s)
{
	size_t total = 0,
	       edges = s->bytes[SEIR_BUF_COLS] + s->bytes[SEIR_BUF_WEIGHT];
	size_t fixed = s->bytes[SEIR_BUF_PARAMS] + s->bytes[SEIR_BUF_TALLY] +
		       s->bytes[SEIR_BUF_SERIES] - s->repro_agent_bytes;

	for (int b = 0; b < SEIR_N_BUFS; b++)
		total += s->bytes[b];
	weft_model_summary(
		mc, "device memory",
		"%zu bytes: %.1f per agent, %.1f per stored "
		"contact, %zu for parameters and series",
		total, (double)(total - edges - fixed) / s->n_agents,
		s->edges_total ? (double)edges / s->edges_total : 0.0, fixed);
}

/* With count_work: the transmission kernel's work over the days run,
 * per infectious agent-day and per transmission. */
static void seir_summary_work(weft_model_ctx *mc, const seir_state *s,
			      uint64_t days)
{
	uint64_t walk = 0, cand = 0, inf = 0, trans = 0;

	for (uint64_t d = 1; d <= days; d++) {
		const uint32_t *r = s->series + d * s->params.row_words;
		walk += r[SEIR_R_WALK];
		cand += r[SEIR_R_CAND];
		inf += (uint64_t)r[SEIR_R_IA] + r[SEIR_R_IS];
		trans += r[SEIR_R_NEW_INF];
	}
	weft_model_summary(mc, "work counted",
			   "%llu infectors drew, %llu candidates walked "
			   "(%.3f and %.3f per infectious agent-day, %.2f "
			   "candidates per transmission)",
			   (unsigned long long)walk, (unsigned long long)cand,
			   inf ? (double)walk / inf : 0.0,
			   inf ? (double)cand / inf : 0.0,
			   trans ? (double)cand / trans : 0.0);
}

static weft_status seir_finish(weft_model_ctx *mc, void *state)
{
	seir_state *s = state;
	uint64_t read = weft_model_rows_read(s->rows);
	uint64_t days = read ? read - 1 : 0, peak_day = 0, ever;
	uint32_t peak = 0, n = s->n_agents;
	const uint32_t *last = s->series + days * s->params.row_words;
	weft_status st;

	for (uint64_t d = 0; d <= days; d++) {
		const uint32_t *r = s->series + d * s->params.row_words;
		if (r[SEIR_R_IA] + r[SEIR_R_IS] > peak) {
			peak = r[SEIR_R_IA] + r[SEIR_R_IS];
			peak_day = d;
		}
	}
	weft_model_summary(mc, "agents", "%u", n);
	seir_summary_contacts(mc, s);
	weft_model_summary(mc, "days", "%llu", (unsigned long long)days);
	weft_model_summary(mc, "final S/E/I_asym/I_sym/R/D",
			   "%u / %u / %u / %u / %u / %u", last[SEIR_R_S],
			   last[SEIR_R_E], last[SEIR_R_IA], last[SEIR_R_IS],
			   last[SEIR_R_R], last[SEIR_R_D]);
	/* Agents infected at least once: with waning, the infections less
	 * the reinfections. */
	ever = last[SEIR_R_CUM] - weft__seir_waning_reinf(s, days);
	weft_model_summary(mc, "infected in all", "%llu (attack rate %.2f %%)",
			   (unsigned long long)ever,
			   100.0 * (double)ever / (n ? n : 1));
	if ((st = weft__seir_patch_summary(mc, s, days)))
		return st;
	weft__seir_waning_summary(mc, s, days);
	weft__seir_variants_summary(mc, s, days);
	weft_model_summary(
		mc, "peak infectious", "%u on day %llu (prevalence %.2f %%)",
		peak, (unsigned long long)peak_day, 100.0 * peak / (n ? n : 1));
	weft_model_summary(mc, "deaths", "%u (%.3f %% of agents)",
			   last[SEIR_R_D],
			   100.0 * last[SEIR_R_D] / (n ? n : 1));
	weft__seir_severity_summary(mc, s, days);
	weft__seir_vaccination_summary(mc, s, last);
	weft__seir_testing_summary(mc, s, days);
	if (s->params.opts & SEIR_OPT_COUNT_WORK)
		seir_summary_work(mc, s, days);
	seir_summary_memory(mc, s);
	return weft__seir_repro_finish(mc, s, days);
}

static void seir_teardown(weft_model_ctx *mc, void *state)
{
	seir_state *s = state;
	if (!s)
		return;
	for (int b = 0; b < SEIR_N_BUFS; b++)
		weft_model_free(mc, s->buf[b]);
	weft_model_rows_close(mc, s->rows);
	free(s->beta);
	free(s->series);
	free(s->seeds);
	weft__seir_repro_free(s);
	weft__seir_patches_free(&s->patches);
	free(s);
}

/* [output] plot: the states over the days, from daily.csv. */
static const weft_plot_curve seir_curves[] = {
	{ "S", "susceptible (S)", "#1f77b4" },
	{ "E", "exposed (E)", "#ff7f0e" },
	{ "I_asym+I_sym", "infectious (I_asym + I_sym)", "#d62728" },
	{ "R", "recovered (R)", "#2ca02c" },
	{ "D", "dead (D)", "#000000" },
	{ "vaccinated", "vaccinated so far", "#9467bd" },
};

/* The second panel: what the first one's scale hides. */
static const weft_plot_curve seir_curves2[] = {
	{ "E", "exposed (E)", "#ff7f0e" },
	{ "I_asym", "infectious, asymptomatic", "#e377c2" },
	{ "I_sym", "infectious, symptomatic", "#d62728" },
	{ "new_infections", "new infections that day", "#17becf" },
	{ "new_deaths", "deaths that day", "#000000" },
};

static const weft_plot_desc seir_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "daily.csv",
	.title = "SEIR epidemic: agents in each state",
	.x = "day",
	.xlabel = "day",
	.ylabel = "agents",
	.curves = seir_curves,
	.n_curves = sizeof seir_curves / sizeof seir_curves[0],
	.ylabel2 = "agents",
	.curves2 = seir_curves2,
	.n_curves2 = sizeof seir_curves2 / sizeof seir_curves2[0],
};

/* Ensembles: every column of daily.csv per day; the summary's final
 * outcomes. */
static const weft_outcome_desc seir_outcomes[] = {
	{ "attack_rate_pct", "cumulative", WEFT_OUTCOME_LAST,
	  "S+E+I_asym+I_sym+R+D", 100.0 },
	{ "peak_infectious", "I_asym+I_sym", WEFT_OUTCOME_MAX, NULL, 1.0 },
	{ "peak_day", "I_asym+I_sym", WEFT_OUTCOME_ARGMAX, NULL, 1.0 },
	{ "deaths", "D", WEFT_OUTCOME_LAST, NULL, 1.0 },
	{ "peak_hospitalised", "hospitalised", WEFT_OUTCOME_MAX, NULL, 1.0 },
};

static const weft_ensemble_desc seir_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "daily.csv",
	.x = "day",
	.bands = "S,E,I_sym,R",
	.compare = "I_sym",
	.outcomes = seir_outcomes,
	.n_outcomes = sizeof seir_outcomes / sizeof seir_outcomes[0],
	.crn_key = "crn", /* compared runs pair their draws (seir.md) */
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "seir",
	.version = WEFT_MODEL_VERSION,
	.summary = "SEIR epidemic (Covasim-like course, layered contacts, "
		   "interventions, vaccination) over the active set",
	.keys = seir_keys,
	.n_keys = sizeof seir_keys / sizeof seir_keys[0],
	.program = &seir_program,
	.sigs = seir_sigs,
	.setup = seir_setup,
	.finish = seir_finish,
	.teardown = seir_teardown,
	.check = seir_check,
	.estimate = weft__seir_estimate,
	/* `weft conform`: small enough for a few seconds on a CPU OpenCL,
	 * with every path on: interventions, isolation, vaccination by
	 * age, deaths, individual transmissibility, severe courses with
	 * hospitals and ICUs over capacity, outputs by age, a second,
	 * two-dose campaign with efficacies against symptoms and severe
	 * disease, testing by number (the selection's passes over every
	 * agent) with a delay, losses and isolation of the diagnosed, a
	 * second testing intervention by probability overlapping it,
	 * tracing with a delay and quarantine, the infection log (the
	 * reproduction numbers' counts are always on). */
	.conform_sets = "seir.population=random\n"
			"seir.agents=5000\n"
			"seir.contacts=12\n"
			"seir.beta=0.06\n"
			"seir.initial_infected=20\n"
			"seir.death_prob=0.05\n"
			"seir.rel_trans_dispersion=0.45\n"
			"seir.viral_load=true\n"
			"seir.interventions=community 12-20 0.5, all 25-30 "
			"0.8\n"
			"seir.isolation_prob=0.5\n"
			"seir.isolation_start=10\n"
			"seir.vaccine_doses=150\n"
			"seir.vaccine_start=5\n"
			"seir.vaccine_priority=oldest\n"
			"seir.n_beds_hosp=3\n"
			"seir.n_beds_icu=1\n"
			"seir.age_bands=0-19, 20-49, 50-64, 65+\n"
			"seir.vaccine_campaigns=days=8-30 doses=60 "
			"coverage=0.5 ages=50+ second=7 symptoms=0.5 "
			"severe=0.8\n"
			"seir.infection_log=true\n"
			"seir.test_daily=150\n"
			"seir.test_quar_odds=5\n"
			"seir.test_delay=1\n"
			"seir.test_sensitivity=0.9\n"
			"seir.test_loss_prob=0.05\n"
			"seir.test_interventions=days=20- symp=0.3 "
			"asymp=0.01 delay=2\n"
			"seir.diagnosed_factor=0.3, 0.1, 0.1, 0.1\n"
			"seir.trace_probs=0.7\n"
			"seir.trace_time=1\n"
			"seir.quar_period=7\n"
			"simulation.steps=40\n",
	.collect = seir_collect,
	.emit = seir_emit,
	.plot = &seir_plot,
	.ensemble = &seir_ensemble,
	/* setup() declares its state (seir_declare_state). */
	.checkpoints = 1,
};
