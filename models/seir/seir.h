/*
 * models/seir/seir.h - what the SEIR model's host files share.
 */
#ifndef WEFT_SEIR_H
#define WEFT_SEIR_H

#include <weft/kernel_host.h>
#include <weft/model.h>

#include "course.h"
#include "population.h"
#include "seir_kernels.h"
#include "seir_shared.h"

/* Device buffers, in allocation order (the conformance suite compares
 * them in that order). */
enum seir_buf_id {
	SEIR_BUF_PARAMS, /* seir_params and the beta table */
	SEIR_BUF_STATE,	 /* u8 per agent */
	SEIR_BUF_TIMER,	 /* u16 per agent */
	SEIR_BUF_TALLY,
	SEIR_BUF_AGEBIN, /* u8 per agent */
	SEIR_BUF_RELCLS, /* u8 per agent (transmissibility classes) */
	SEIR_BUF_BITS,	 /* the active set: a bit per agent */
	SEIR_BUF_LIST,	 /* u32 per agent (frontier) */
	SEIR_BUF_OFFS,	 /* u32 per block of the bitmap (frontier) */
	SEIR_BUF_ORDER,	 /* u32 per agent (vaccination) */
	SEIR_BUF_ROWS,	 /* u32 per agent and stored layer, + 1 */
	SEIR_BUF_COLS,	 /* u32 per stored edge */
	SEIR_BUF_WEIGHT, /* u16 per stored edge (weighted layers) */
	SEIR_BUF_SERIES, /* a row per day */
	SEIR_BUF_CARE,	 /* u8 per agent: doses, campaign (vaccination) */
	SEIR_BUF_CAMP0,	 /* one word: a campaign's index, bound to its
			  * launch; SEIR_BUF_CAMP0 + c for campaign c */
	SEIR_N_BUFS = SEIR_BUF_CAMP0 + SEIR_CAMPAIGNS
};

/* The generation interval's longest: a latent period and an infectious
 * one. */
#define SEIR_GEN_MAX (2 * SEIR_DUR_MAX)

/* A vaccination campaign as configured (vaccination.c). */
typedef struct seir_campaign_spec {
	int has_days;
	uint32_t first, last, doses, interval; /* days; last SEIR_FOREVER */
	double prob;	 /* by chance (Covasim's vaccinate_prob), doses 0 */
	double coverage; /* of its age group */
	uint32_t age_lo, age_hi; /* its age group, years */
	int oldest;		 /* priority: oldest first */
	uint32_t n_prio;	 /* priority: these bands first */
	uint32_t prio_lo[SEIR_MAX_BANDS], prio_hi[SEIR_MAX_BANDS];
	double ve[SEIR_VE_KINDS]; /* efficacy after the last dose */
	double first_dose;	  /* the part of it a first of two gives */
	int vaccine;		  /* 1 + Covasim's vaccine (NAbs), 0: none */
	int has_interval, has_ve; /* second=, an efficacy set */
	uint32_t group;		  /* agents of its age group (at setup) */
} seir_campaign_spec;

/* The bands of the outputs by age ([seir] age_bands). */
typedef struct seir_age_bands {
	uint32_t n; /* 0: no outputs by age */
	uint8_t lo[SEIR_MAX_BANDS], hi[SEIR_MAX_BANDS]; /* years; hi 255:
							 * and over */
	uint8_t of_age[256];		/* the band of every age */
	char label[SEIR_MAX_BANDS][16]; /* "0to17", "65plus" */
} seir_age_bands;

typedef struct seir_repro_end seir_repro_end;

typedef struct seir_state {
	seir_params params;
	seir_beta_spec spec; /* what the beta table is made of */
	seir_intervention iv[SEIR_MAX_INTERVENTIONS];
	seir_campaign_spec camps[SEIR_CAMPAIGNS];
	uint32_t *beta;	    /* the beta table (host copy until uploaded) */
	uint32_t beta_rows; /* its rows */
	uint32_t n_agents;
	uint32_t n_seeds;
	uint32_t n_slots;		   /* stored layers */
	uint64_t n_edges[SEIR_MAX_LAYERS]; /* stored entries per layer */
	uint64_t edges_total;
	weft_buf *buf[SEIR_N_BUFS];
	size_t bytes[SEIR_N_BUFS]; /* device bytes of each buffer */
	uint32_t *series;	   /* host copy of the rows read so far */
	/* The daily rows read back through output snapshots: collect()
	 * enqueues, emit() writes the slot's rows (weft_model_rows_*). */
	weft_model_rows *rows;
	weft_output *csv;
	seir_age_bands bands;
	weft_output *age_csv; /* by_age.csv */
	/* Reproduction numbers (repro.c). */
	uint32_t *seeds;	      /* the agents exposed on day 0 */
	double r0_target;	      /* [seir] r0; 0: beta as given */
	double r0_model;	      /* the next-generation estimate */
	size_t repro_agent_bytes;     /* the tally's bytes per agent */
	struct seir_repro_end *fin;   /* what the last chunk read back */
	double gen[SEIR_GEN_MAX + 1]; /* generation interval, by day */
	/* [seir] waning (waning.c): the block after the beta table, but
	 * its kinetics, and nab_decay's five numbers. */
	seir_waning wan;
	double wan_decay[5];
	/* [seir] variants (variants.c): the table after the waning block,
	 * and the variants' labels. */
	seir_variant_tab var;
	char var_label[SEIR_VARIANTS][16];
	/* Vaccines with NAbs (vaccination.c): their table after the
	 * variants'. */
	seir_vx_tab vx;
	/* [seir] patch_file (population.h; outputs_patch.c): the patches,
	 * and by_patch.csv. */
	seir_patches patches;
	weft_output *patch_csv;
} seir_state;

/* outputs_patch.c: n_patches into p, their words in the series' rows
 * (after the bands'), checked against the series' 32-bit index. */
weft_status weft__seir_patch_layout(weft_model_ctx *mc, seir_params *p,
				    uint32_t n_patches);
/* outputs_patch.c: the patches' first agents and zero counts into the
 * tally. */
weft_status weft__seir_patch_upload(weft_model_ctx *mc, seir_state *s);
/* outputs_patch.c: by_patch.csv's header, and day's rows from its row of
 * the series. */
weft_status weft__seir_patch_open(weft_model_ctx *mc, seir_state *s);
weft_status weft__seir_patch_row(seir_state *s, uint64_t day,
				 const uint32_t *row);
/* outputs_patch.c: the summary's lines of the patches over days + 1
 * rows. */
weft_status weft__seir_patch_summary(weft_model_ctx *mc, const seir_state *s,
				     uint64_t days);

/* seir.c: allocate a device buffer of the model (and remember its size). */
weft_status weft__seir_alloc(weft_model_ctx *mc, seir_state *s,
			     enum seir_buf_id id, const char *what,
			     size_t bytes);

/* waning.c: [seir] waning and its keys into s->wan (SEIR_OPT_WANING;
 * the series' rows get a word, new_reinfections). */
weft_status weft__seir_waning_params(weft_model_ctx *mc, seir_state *s);
/* variants.c: [seir] variants and variant_immunity into s->var
 * (SEIR_OPT_VARIANTS, with waning; the series' rows get a word per
 * variant, before the reinfections'). */
weft_status weft__seir_variants_params(weft_model_ctx *mc, seir_state *s);
/* vaccination.c: the campaigns with a vaccine= of Covasim's: NAb events
 * (SEIR_OPT_VXNAB, with waning) and their table s->vx. After the
 * variants. */
weft_status weft__seir_vaccine_nabs(weft_model_ctx *mc, seir_state *s);
/* waning.c: a normal law of log2 NAb levels (mean, sd) into law. */
void weft__seir_nab_law(seir_nab_law *law, double mean, double sd);
/* variants.c: each import's agents (everyone, or its patch's: patch=N),
 * once the population's size and patches are known. */
weft_status weft__seir_imports_place(weft_model_ctx *mc, seir_state *s);
/* variants.c: the words of the active set's buffer after the waning
 * ones: a variant word per agent and the day's counts (0 without). */
size_t weft__seir_variants_words(const seir_state *s);
/* variants.c: the daily.csv columns of the variants (",new_infections_
 * LABEL" each; "" without), and their values in row r. */
void weft__seir_variants_header(const seir_state *s, char *out, size_t size);
void weft__seir_variants_row(const seir_state *s, const uint32_t *r, char *out,
			     size_t size);
/* variants.c: the summary's line of infections by variant. */
void weft__seir_variants_summary(weft_model_ctx *mc, const seir_state *s,
				 uint64_t days);
/* waning.c: the words of the active set's buffer after testing's: two
 * NAb words per agent and the day's reinfections (0 without waning). */
size_t weft__seir_waning_words(const seir_state *s);
/* waning.c: the reinfections over days + 1 rows (0 without waning). */
uint64_t weft__seir_waning_reinf(const seir_state *s, uint64_t days);
/* waning.c: the summary's line of reinfections over days + 1 rows
 * (nothing without waning). */
void weft__seir_waning_summary(weft_model_ctx *mc, const seir_state *s,
			       uint64_t days);
/* waning.c: entries of the NAb kinetics (days 0 to the run's days + 1). */
uint32_t weft__seir_waning_kin(const seir_params *p);
/* waning.c: rows of the beta table the waning block takes (0 without). */
uint32_t weft__seir_waning_rows(const seir_params *p);
/* waning.c: the waning block into dst (weft__seir_waning_rows() rows). */
void weft__seir_waning_table(const seir_state *s, uint32_t *dst);

/* seir_params.c: every [seir] key but the population's into s->params
 * (the population-dependent words are filled in later). */
weft_status weft__seir_read_params(weft_model_ctx *mc, seir_state *s);
/* severity.c: hospital and ICU beds, and the outcome thresholds when they
 * were full at exposure (from those of p->risk.crit_thr[0],
 * p->risk.death_thr[0]). */
weft_status weft__seir_severity_params(weft_model_ctx *mc, seir_params *p);
/* severity.c: a variant's chances from the base ones: Covasim's
 * rel_symp_prob, rel_severe_prob, rel_crit_prob and rel_death_prob (rel,
 * in that order) on the chances of symptoms, of severe given symptoms, of
 * critical given severe and of death given critical, each capped at 1,
 * then the capacity flags' thresholds (no_hosp_factor fh, no_icu_factor
 * fi). */
void weft__seir_risk_variant(const seir_risk *base, const double rel[4],
			     double fh, double fi, seir_risk *out);
/* severity.c: summary lines of hospital and ICU load over days + 1 rows. */
void weft__seir_severity_summary(weft_model_ctx *mc, const seir_state *s,
				 uint64_t days);

/* outputs_age.c: "LO-HI, ..., LO+" (from 0, contiguous, up to 120 and
 * over, at most SEIR_MAX_BANDS; empty: none) into b: 0, or -1 with the
 * reason in why. */
int weft__seir_age_bands_parse(const char *text, seir_age_bands *b, char *why,
			       size_t why_size);
/* outputs_age.c: [seir] age_bands into s->bands, params.n_bands and
 * params.row_words. */
weft_status weft__seir_age_params(weft_model_ctx *mc, seir_state *s);
/* outputs_age.c: an agent's age byte: its bin, and its band above. */
uint8_t weft__seir_age_byte(const seir_state *s, uint8_t age);
/* outputs_age.c: by_age.csv (with bands and [output] csv) and its plot. */
weft_status weft__seir_age_open(weft_model_ctx *mc, seir_state *s);
/* outputs_age.c: the row of `day` of by_age.csv, from its series row. */
weft_status weft__seir_age_row(seir_state *s, uint64_t day,
			       const uint32_t *row);

/* seir_params.c: one entry of a settings list ("NAME=VALUE ..." up to a
 * comma, as vaccine_campaigns and test_interventions are written) into
 * out, from *p on: each setting handed to set(), which reads its value
 * from *p on and returns 0, -1 (a bad value) or -2 (an unknown name).
 * names lists the settings and forms says what each value must be
 * ({name, form} pairs, the last {NULL, every other's form}), for the
 * messages. 0, or -1 with the reason in why. */
/* seir_params.c: a setting's number in [lo, hi] at *p (whole when
 * `whole`), *p moved past it: 0, or -1. */
int weft__seir_setting_number(const char **p, double lo, double hi, int whole,
			      double *v);
typedef int (*weft__seir_setting_fn)(const char *name, size_t len,
				     const char **p, void *out);
int weft__seir_settings_entry(const char **p, weft__seir_setting_fn set,
			      void *out, const char *names,
			      const char *const (*forms)[2], char *why,
			      size_t why_size);

/* vaccination.c: the campaigns of vaccine_campaigns (at most max), each
 * from the defaults d: 0, or -1 with the reason in why. */
int weft__seir_campaigns_parse(const char *text, const seir_campaign_spec *d,
			       seir_campaign_spec *out, uint32_t *n,
			       uint32_t max, char *why, size_t why_size);
/* vaccination.c: the vaccine_* keys into s->camps and params.camp. */
weft_status weft__seir_vaccination_params(weft_model_ctx *mc, seir_state *s);
/* vaccination.c: every campaign's order, one after another (*len
 * entries, malloc()ed), and their places and coverage in params.camp. */
weft_status weft__seir_vaccination_orders(weft_model_ctx *mc, seir_state *s,
					  const seir_population *pop,
					  uint32_t **orders, size_t *len);

/* vaccination.c: summary lines: the vaccinated, and each campaign's
 * coverage reached (its agents' care bytes read from the device). */
void weft__seir_vaccination_summary(weft_model_ctx *mc, const seir_state *s,
				    const uint32_t *last);

/* repro.c: [seir] r0 (not with beta) and infection_log. */
weft_status weft__seir_repro_params(weft_model_ctx *mc, seir_state *s);
/* repro.c: the generation interval and, with r0, beta calibrated on the
 * population (before the beta table is made). */
weft_status weft__seir_repro_setup(weft_model_ctx *mc, seir_state *s,
				   const seir_population *pop);
/* The tally's words for n agents: the day's, the bands', then the
 * cohorts, the secondary infections, each agent's infector and the log,
 * whose offsets it sets in p; *agent_bytes: the bytes per agent of those
 * after the cohorts. Inline: bench/cuda-bench lays a tally out too. */
static inline size_t weft__seir_tally_layout(seir_params *p, size_t n,
					     size_t *agent_bytes)
{
	size_t sec = (n + 1) / 2;
	size_t log = p->infection_log ? 2 * n : 0;

	p->patch_off = SEIR_TALLY_WORDS + p->n_bands * SEIR_BAND_MEASURES;
	p->cohort_off =
		p->patch_off +
		(p->n_patches ? SEIR_PATCH_COUNTS(p) - p->patch_off +
					p->n_patches * SEIR_BAND_MEASURES
			      : 0u);
	p->sec_off = p->cohort_off + (p->n_days + 1) * SEIR_COHORT_WORDS;
	p->inf_off = p->sec_off + (weft_u32)sec;
	/* Without the log, its offset is the end (never written). */
	p->log_off = p->inf_off + (weft_u32)n;
	*agent_bytes = (sec + n + log) * 4;
	return (size_t)p->log_off + log;
}
/* repro.c: weft__seir_tally_layout() for s's agents, into s->params and
 * s->repro_agent_bytes. */
size_t weft__seir_repro_layout(seir_state *s);
/* repro.c: the reproduction counts' first contents (zero). */
weft_status weft__seir_repro_upload(weft_model_ctx *mc, seir_state *s);
/* repro.c: Rt on day d (Cori et al.) from the rows up to d in
 * s->series: 0, or -1 when there is too little to estimate it. */
int weft__seir_rt(const seir_state *s, uint64_t d, double *rt);
/* repro.c: after the last step (steps_done = steps), enqueue the reads
 * of what the end of the run needs (no sync: they complete with the
 * chunk's outputs). */
weft_status weft__seir_repro_collect(weft_model_ctx *mc, seir_state *s,
				     uint64_t steps_done);
void weft__seir_repro_free(seir_state *s);
/* repro.c: reproduction.csv, infections.csv and the summary's lines. */
weft_status weft__seir_repro_finish(weft_model_ctx *mc, const seir_state *s,
				    uint64_t days);
/* seir_init.c: agent i's transmissibility class (a draw of the seed). */
uint8_t weft__seir_rel_class(const seir_params *p, uint32_t i);

/* seir_params.c: the beta table, once the population's layer weights are
 * known. */
weft_status weft__seir_make_beta(weft_model_ctx *mc, seir_state *s,
				 const seir_population *pop);

/* seir_params.c: the initial infections' count, once the population's
 * size is known. */
weft_status weft__seir_count_seeds(weft_model_ctx *mc, seir_state *s);

/* testing.c: the keys of testing, tracing and quarantine into
 * s->params (after the run's and the interventions' keys). */
weft_status weft__seir_testing_params(weft_model_ctx *mc, seir_state *s);
/* testing.c: the words after the active set's bitmap, in its buffer:
 * the diagnosis words (testing) and the quarantine words (tracing). */
size_t weft__seir_testing_words(const seir_state *s);
/* testing.c: summary lines of tests, diagnoses and quarantines. */
void weft__seir_testing_summary(weft_model_ctx *mc, const seir_state *s,
				uint64_t days);

/* estimate.c: the memory a run needs (the model's estimate()). */
weft_status weft__seir_estimate(weft_model_ctx *mc, weft_model_estimate *est);

/* seir_init.c: the population's ages and layers, the initial infections,
 * the vaccination order and every other buffer's first contents, on the
 * device. */
weft_status weft__seir_upload_population(weft_model_ctx *mc, seir_state *s,
					 const seir_population *pop);
weft_status weft__seir_upload_state(weft_model_ctx *mc, seir_state *s,
				    const seir_population *pop);

#endif
