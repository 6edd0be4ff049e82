/*
 * models/seir/seir_shared.h - what the SEIR kernels and the model's host
 * code share, in the kernel dialect: states, purposes, the parameter
 * block, the layouts of the tally and series buffers, the buffer slots of
 * the launches, and the integer helpers that turn draws into decisions
 * (duration sampling, chances, transmission thresholds). Part of the
 * program text handed to run-time compilers (before seir.wk), included by
 * the model's host files and by tests, which call the same helpers on the
 * host.
 */
#ifndef SEIR_SHARED_H
#define SEIR_SHARED_H

/* Contact-graph rows and skip sampling (weft_graph_tables, weft_graph_*). */
#include <weft/graph.wk>

/* Disease states: the low three bits of an agent's state byte. */
#define SEIR_S		0 /* susceptible */
#define SEIR_E		1 /* exposed: infected, not yet infectious */
#define SEIR_IA		2 /* infectious, asymptomatic; recovers */
#define SEIR_IS		3 /* infectious, symptomatic; recovers */
#define SEIR_ISD	4 /* infectious, symptomatic; dies at the end */
#define SEIR_R		5 /* recovered */
#define SEIR_D		6 /* dead */
#define SEIR_STATE_MASK 7u
/* Flags in the high bits of the state byte. */
#define SEIR_F_ISOLATE 0x40u /* symptomatic and isolating */
#define SEIR_F_VACC    0x80u /* vaccinated */
/* Bits 3 to 5 of the state byte: in E, whether the hospitals (0x08) and
 * the ICUs (0x10) were full on the day of exposure (Covasim decides the
 * course at infection: no_hosp_factor, no_icu_factor); in I_sym, the
 * stage of a severe course (SEIR_STG_*). 0 in every other state. */
#define SEIR_F_HOSP_FULL  0x08u
#define SEIR_F_ICU_FULL	  0x10u
#define SEIR_STAGE_SHIFT  3u
#define SEIR_STAGE_MASK	  0x38u
#define SEIR_STG_NONE	  0u /* mild (or asymptomatic) */
#define SEIR_STG_SEV_PRE  1u /* will be severe, and recover */
#define SEIR_STG_SEV	  2u /* severe (in hospital), will recover */
#define SEIR_STG_CRIT_PRE 3u /* will be severe then critical */
#define SEIR_STG_CRIT_SEV 4u /* severe, will be critical */
#define SEIR_STG_CRIT	  5u /* critical (in ICU) */

/* Age bins of ten years: 0-9, ..., 80-89, 90 and over. An agent's age
 * byte holds its bin in the low four bits and its age band (the outputs
 * by age, [seir] age_bands) in the high four. */
#define SEIR_AGE_BINS	10
#define SEIR_BIN_MASK	0x0Fu
#define SEIR_BAND_SHIFT 4u
#define SEIR_MAX_BANDS	16
/* What is counted by age band each day, in this order: new infections,
 * new severe (hospital admissions), new critical (ICU admissions),
 * deaths. */
#define SEIR_BAND_INF	   0
#define SEIR_BAND_SEV	   1
#define SEIR_BAND_CRIT	   2
#define SEIR_BAND_DEATH	   3
#define SEIR_BAND_DIAG	   4 /* positive tests (testing.c) */
#define SEIR_BAND_MEASURES 5
/* Classes of per-agent relative transmissibility (equally likely): an
 * agent's class is the top 8 bits of a draw. */
#define SEIR_REL_CLASSES 256
#define SEIR_REL_SHIFT	 24
/* Durations are 1 to SEIR_DUR_MAX days. */
#define SEIR_DUR_MAX 120
/* Duration tables, in the order of the params block. */
#define SEIR_DUR_LATENT	  0
#define SEIR_DUR_ASYM	  1
#define SEIR_DUR_SYM	  2 /* symptomatic, mild: recovers */
#define SEIR_DUR_SEVERE	  3 /* severe, recovers */
#define SEIR_DUR_CRITICAL 4 /* critical, recovers */
#define SEIR_DUR_DEATH	  5 /* critical, dies */
#define SEIR_N_DURS	  6

/* Vaccination campaigns ([seir] vaccine_campaigns; the vaccine_doses
 * keys are campaign 0): at most SEIR_CAMPAIGNS. An agent's care byte
 * holds the doses it received (bits 0-1: 0, 1 or 2) and from which
 * campaign (bits 2-3); its state byte's SEIR_F_VACC says it has one. */
#define SEIR_CAMPAIGNS	     4
#define SEIR_CARE_DOSES	     0x03u
#define SEIR_CARE_CAMP_SHIFT 2u
#define SEIR_CARE_CAMP	     0x0Cu
/* The agent's last dose came while it was exposed (E): the infection it
 * had then takes its symptoms and severity from one dose fewer, as
 * Covasim decides them at exposure (seir_progress clears it at onset). */
#define SEIR_CARE_LATENT 0x10u
/* What a dose protects against (seir_campaign.left_q16): infection,
 * symptoms given infection, severe disease given symptoms. */
#define SEIR_VE_INF   0
#define SEIR_VE_SYMP  1
#define SEIR_VE_SEV   2
#define SEIR_VE_KINDS 3
/* An end day meaning "to the end of the run". */
#define SEIR_FOREVER 0xFFFFFFFFu

/* One campaign: first doses from day `first` to day `last`, `doses` a
 * day to the next agents of its order (order[order_off + k], k from 0,
 * at most n_target of them: its coverage of its group); with interval
 * > 0 a second dose to each of them `interval` days after the first.
 * left_q16[d][k]: what is left of the risk k (SEIR_VE_*) after dose d +
 * 1 (Q16; 1 - efficacy). */
typedef struct seir_campaign {
	weft_u32 first, last, doses, n_target, order_off, interval;
	weft_u32 items; /* min(doses, n_target): the launch's first half
			 * gives first doses, its second half second ones;
			 * by chance (doses 0), n_target, an item an agent */
	/* By chance (prob=, Covasim's vaccinate_prob; doses 0): the daily
	 * chance of a first dose, a 32-bit threshold (2^32 - 1: 1). */
	weft_u32 prob_thr;
	weft_u32 left_q16[2][SEIR_VE_KINDS];
} seir_campaign;

/* The chances of a course by age bin. symp_thr: of symptoms. The
 * outcome of a symptomatic agent is one draw against nested thresholds:
 * below death_thr dies (after critical), below crit_thr critical, below
 * sev_thr severe, else mild. The first index is the capacity flags of
 * its exposure (bit 0: hospitals full, bit 1: ICUs full), which raise
 * the chances of critical given severe (no_hosp_factor) and of death
 * given critical (no_icu_factor). */
typedef struct seir_risk {
	weft_u32 symp_thr[SEIR_AGE_BINS];
	weft_u32 death_thr[4][SEIR_AGE_BINS];
	weft_u32 crit_thr[4][SEIR_AGE_BINS];
	weft_u32 sev_thr[SEIR_AGE_BINS];
} seir_risk;

/* Severe courses: their paths and stages (the terms of severe_duration,
 * critical_duration, death_duration: the last is the time to recovery or
 * death, the one before it on the critical paths from severe to
 * critical, the others up to severe). */
#define SEIR_PATH_SEVERE   0 /* severe, recovers */
#define SEIR_PATH_CRITICAL 1 /* critical, recovers */
#define SEIR_PATH_DEATH	   2 /* critical, dies */
#define SEIR_PATHS	   3
#define SEIR_STAGE_TO_SEV  0
#define SEIR_STAGE_TO_CRIT 1
#define SEIR_STAGE_REST	   2
#define SEIR_STAGES	   3

/* Layers (population.h numbers them the same): home, school, work,
 * community. The beta table has SEIR_BETA_COLS words per day: the four
 * layers, then the four layers for isolating agents. */
#define SEIR_LAYERS    4
#define SEIR_COMMUNITY 3
#define SEIR_BETA_COLS 8
/* Fixed-point formats: a factor of 1 is 1 << 16 (Q16); beta table
 * entries are probabilities times 2^28 (Q28, so values up to 16 fit). */
#define SEIR_Q16_ONE 65536u
#define SEIR_Q28_ONE 268435456u

/* Purposes: the fourth counter word, so that draws for different
 * decisions never coincide. Transmission over a stored layer L uses
 * SEIR_PURPOSE_TRANSMIT + L. */
#define SEIR_PURPOSE_TRANSMIT  1u  /* .. 4: (day, infector, contact) */
#define SEIR_PURPOSE_COMMUNITY 8u  /* (day, infector, k): contact, draw */
#define SEIR_PURPOSE_LATENT    9u  /* (day, agent): latent period */
#define SEIR_PURPOSE_ONSET     10u /* (day, agent): course at onset */
#define SEIR_PURPOSE_REL_TRANS 11u /* (0, agent): transmissibility class */
#define SEIR_PURPOSE_STAGES                          \
	12u /* (onset day, agent): a severe course's \
	     * stages */
/* Transmission draws (seir.wk, seir_walk_layer): (day, infector, 0,
 * TRANSMIT) gives each layer the skip to its first candidate; candidate
 * c (from 1) draws (day, infector, c, TRANSMIT + layer or COMMUNITY):
 * .v[0] its acceptance, .v[1] the next skip, .v[2] a daily partner.
 * With crn (SEIR_OPT_CRN) the day word is the day of the infector's
 * infectious period (0: its onset) instead. */

/* Reproduction numbers (models/seir/repro.c), in the tally buffer from
 * p->cohort_off: the cohorts hold, for each day d of onset of
 * infectiousness, two words: the secondary infections of the cohort's
 * agents that are no longer infectious, and how many they are; an
 * agent's secondary infections are a saturating 16-bit count, two agents
 * a word (agent a in the half a & 1 of word a / 2); its infector a word
 * (the lowest claimant of the day of its exposure; 2^32 - 1: none); with
 * infection_log, two words per agent: infector and day. */
#define SEIR_SEC_MAX	  0xFFFFu
#define SEIR_COHORT_WORDS 2u
#define SEIR_COHORT_SEC	  0u
#define SEIR_COHORT_ENDED 1u

/* The secondary infections counted for agent a so far. */
WEFT_FN weft_u32 seir_sec_of(const WEFT_GLOBAL weft_u32 *sec, weft_u32 a)
{
	return (sec[a >> 1] >> ((a & 1u) * 16u)) & SEIR_SEC_MAX;
}
/* Testing and tracing (testing.c): Philox(seed; day, agent, i, TEST)
 * decides testing intervention i's test (.v[0]), its sensitivity (.v[1])
 * and loss to follow-up (.v[2]), and by number its key (.v[3]); Philox(seed;
 * day, index case, layer << 28 | place / 4, TRACE) whether its contacts at
 * places 4k to 4k + 3 of that layer are traced (lane place % 4). */
#define SEIR_PURPOSE_TEST     20u
#define SEIR_PURPOSE_TRACE    21u
#define SEIR_PURPOSE_SYMPTOMS 22u /* (onset day, agent): days to symptoms */
/* What decides a test's chance (seir_params.test_thr). */
#define SEIR_TEST_SYMP	     0
#define SEIR_TEST_ASYMP	     1
#define SEIR_TEST_SYMP_QUAR  2
#define SEIR_TEST_ASYMP_QUAR 3
#define SEIR_TEST_KINDS	     4
/* Testing interventions (testing.c): the test_* keys (when on) and the
 * entries of test_interventions, at most SEIR_TESTS in all, at most one
 * of them by number. */
#define SEIR_TESTS 8
/* Testing by number: the passes of the radix selection (8 bits each) and
 * the key that no selection reaches (weight 0: the diagnosed). */
#define SEIR_TNUM_DONE 4u
#define SEIR_TNUM_NONE 0xFFFFFFFFu

/* One testing intervention (Covasim's test_prob, or test_num when num
 * is not 0): on days first to last, an agent not yet diagnosed is
 * tested with the chance thr[SEIR_TEST_*] of its kind (symptomatic or
 * not, and in its first day of quarantine or not), or by number: num
 * agents a day, chosen without replacement with the weights
 * w8[SEIR_TEST_*] (x256) of their kinds (seir_tnum_key). An infectious
 * agent tests positive with sens_thr and is lost to follow-up with
 * loss_thr, else diagnosed delay days later. */
typedef struct seir_test_iv {
	weft_u32 first, last;
	weft_u32 num;
	weft_u32 thr[SEIR_TEST_KINDS];
	weft_u32 w8[SEIR_TEST_KINDS];
	weft_u32 sens_thr, loss_thr, delay;
} seir_test_iv;

/* "None": a layer that is not stored. */
#define SEIR_NONE 0xFFFFFFFFu
/* The active set is a bitmap (bit a of word a / 32); each work item of
 * the kernels that rebuild the active list owns SEIR_LIST_BLOCK words. */
#define SEIR_LIST_BLOCK 64u

/* The parameter block (buffer 0 of every launch): 32-bit words only, so
 * the layout is the same on every target. The beta table follows it in
 * the same buffer: beta_rows rows of SEIR_BETA_COLS words (Q28). */
typedef struct seir_params {
	weft_u32 n_agents;
	weft_u32 seed_lo;
	weft_u32 seed_hi;
	weft_u32 n_days;	  /* rows in the series after row 0 */
	weft_u32 frontier;	  /* 1: work over the active list */
	weft_u32 opts;		  /* SEIR_OPT_* bits */
	weft_u32 community_daily; /* contacts drawn per infectious day */
	weft_u32 layer_slot[SEIR_LAYERS]; /* a stored layer's place among an
					   * agent's rows, or SEIR_NONE */
	weft_u32 n_slots;		  /* stored layers: rows per agent */
	weft_u32 w_max[SEIR_LAYERS];	  /* a layer's largest weight, x1000 */
	weft_u32 sus_max;		  /* the largest of sus_q16 */
	weft_u32 weighted;    /* 1: the weight buffer holds x1000 weights */
	weft_u32 beta_last;   /* last row of the beta table (later days use
			       * it) */
	weft_u32 asym_q16;    /* transmissibility of asymptomatic agents */
	weft_u32 rel_trans;   /* 1: per-agent classes, else all 1 */
	weft_u32 iso_thr;     /* chance that a symptomatic agent isolates */
	weft_u32 n_campaigns; /* vaccination campaigns */
	seir_campaign camp[SEIR_CAMPAIGNS];
	/* Covasim's viral load (seir_viral_q16): on when vl_on is 1. */
	weft_u32 vl_on;
	weft_u32 vl_frac_pm;   /* early part of the infectious period, 1/1000 */
	weft_u32 vl_ratio_q16; /* early load over late load */
	/* seir_viral_level_q16() by duration: [0] early, [1] late. */
	weft_u32 vl_q16[2][SEIR_DUR_MAX + 1];
	/* Early days of a period by its duration (weft__seir_viral_early). */
	weft_u32 vl_early[SEIR_DUR_MAX + 1];
	/* The course's chances (each variant has its own with variants:
	 * seir_variant_tab). */
	seir_risk risk;
	/* Hospital and ICU beds (SEIR_NONE: no limit): full when more
	 * agents are severe or critical (critical ones) than beds. */
	weft_u32 hosp_beds;
	weft_u32 icu_beds;
	/* Outputs by age: n_bands bands (0: none), each SEIR_BAND_MEASURES
	 * counts in the tally after SEIR_TALLY_WORDS and in every row of the
	 * series after SEIR_ROW_WORDS; row_words in all. */
	weft_u32 n_bands;
	weft_u32 row_words;
	weft_u32 sus_q16[SEIR_AGE_BINS];    /* relative susceptibility */
	weft_u32 rel_q16[SEIR_REL_CLASSES]; /* transmissibility classes */
	/* Cumulative thresholds: a duration is the first day d whose
	 * dur[k][d - 1] exceeds the draw (seir_duration). */
	weft_u32 dur[SEIR_N_DURS][SEIR_DUR_MAX];
	/* The stages of a severe course (paths SEIR_PATH_*): days from
	 * onset to severe, from severe to critical (0 on the severe path),
	 * and the rest, each 0 to SEIR_DUR_MAX days: the first day d whose
	 * stage[path][k][d] exceeds the draw (seir_stage_days). */
	weft_u32 stage[SEIR_PATHS][SEIR_STAGES][SEIR_DUR_MAX + 1];
	/* Skip sampling's tables (weft/graph.wk), filled by
	 * weft_graph_tables_init. */
	weft_graph_tables skip;
	/* 1: seir_try logs every infection (infector, day) by infectee
	 * ([seir] infection_log, a debugging and test output). */
	weft_u32 infection_log;
	/* Where in the tally buffer, after the day's words and the bands',
	 * the reproduction counts lie (words): the cohorts (SEIR_COHORT_WORDS
	 * per day of onset), the secondary infections (two agents a word),
	 * the infectors (a word per agent), and with infection_log the log
	 * (two words per agent). */
	weft_u32 cohort_off, sec_off, inf_off, log_off;
	/* Testing (Covasim's test_prob and test_num; testing.c): n_tests
	 * interventions (seir_test_iv), tried in order on each agent;
	 * testing: n_tests is not 0. test_all: the kernel runs over every
	 * agent (someone without symptoms may be tested), else over the
	 * active list. test_num: the tests a day of the intervention by
	 * number, tnum_iv (0: none). Diagnosed agents transmit
	 * diag_q16[layer]. */
	weft_u32 testing;
	weft_u32 test_all;
	weft_u32 n_tests;
	weft_u32 test_num;
	weft_u32 tnum_iv;
	seir_test_iv tiv[SEIR_TESTS];
	weft_u32 diag_q16[SEIR_LAYERS];
	/* Days from becoming infectious to symptoms (Covasim's inf2sym: the
	 * terms of sym_duration before its last), 0 to SEIR_DUR_MAX
	 * (seir_stage_days): a symptomatic agent is tested as one from
	 * then on. */
	weft_u32 symp_onset[SEIR_DUR_MAX + 1];
	/* The rest of a mild symptomatic course after its days to symptoms
	 * (the last term of sym_duration), 0 to SEIR_DUR_MAX
	 * (seir_stage_days): the course is the two added, so that its
	 * symptoms begin inside it as Covasim's do (date_symptomatic, then
	 * sym2rec). */
	weft_u32 sym_rest[SEIR_DUR_MAX + 1];
	/* Contact tracing (Covasim's contact_tracing): on days trace_first
	 * to trace_last, the contacts of an agent diagnosed that day are
	 * traced on each stored layer with trace_thr[layer] and
	 * quarantined from trace_time[layer] days later to quar_period days
	 * after the diagnosis; in quarantine they transmit, and are
	 * susceptible, quar_q16[layer]. */
	weft_u32 tracing;
	weft_u32 trace_first, trace_last, quar_period;
	weft_u32 trace_thr[SEIR_LAYERS];
	weft_u32 trace_time[SEIR_LAYERS];
	weft_u32 quar_q16[SEIR_LAYERS];
	/* Patches ([seir] patch_file): n_patches (0: none); in the tally
	 * from patch_off, the first agent of each patch (n_patches + 1
	 * words), then the day's counts by patch (SEIR_BAND_MEASURES a
	 * patch, SEIR_PATCH_COUNTS); in every row of the series from
	 * patch_row, the day's counts by patch. */
	weft_u32 n_patches;
	weft_u32 patch_off;
	weft_u32 patch_row;
} seir_params;
#define SEIR_PATCH_COUNTS(p) ((p)->patch_off + (p)->n_patches + 1u)

/* seir_params.opts: count the transmission kernel's work ([seir]
 * count_work); common random numbers ([seir] crn, seir.md "Common
 * random numbers"). With crn the beta table has one more row, after
 * row beta_last: each layer's level chance (Q28; seir_crn_beta), and an
 * agent's course (latent period, symptoms, outcome, stages, isolation)
 * is drawn from (SEIR_CRN_DAY, agent), whichever day it is infected. */
#define SEIR_OPT_COUNT_WORK 1u
#define SEIR_OPT_CRN	    2u
/* [seir] waning: Covasim's waning immunity and reinfection (seir.md,
 * "Waning immunity and reinfection"; the block seir_waning after the beta
 * table, seir_wan()). */
#define SEIR_OPT_WANING 4u
/* The day word of the draws of an agent's course: the day of its
 * exposure (LATENT) or onset (ONSET, STAGES, SYMPTOMS), or with crn a
 * day that never is (agents are infected once: each draws its course
 * once). */
#define SEIR_CRN_DAY 0xFFFFFFFFu
#define SEIR_COURSE_DAY(p, day) \
	(((p)->opts & SEIR_OPT_CRN) ? SEIR_CRN_DAY : (day))

/* The tally (buffer 3): the day being simulated, running totals, today's
 * transitions, and the sizes of the active list; then, with age bands,
 * today's counts by band. */
#define SEIR_T_DAY	0
#define SEIR_T_S	1
#define SEIR_T_E	2
#define SEIR_T_IA	3
#define SEIR_T_IS	4 /* IS and ISD */
#define SEIR_T_R	5
#define SEIR_T_D	6
#define SEIR_T_CUM	7 /* infected in all, seeds included */
#define SEIR_T_VAC	8 /* vaccinated in all */
#define SEIR_T_NEW_E	9
#define SEIR_T_NEW_IA	10
#define SEIR_T_NEW_IS	11
#define SEIR_T_REC_A	12 /* IA -> R */
#define SEIR_T_REC_S	13 /* IS -> R */
#define SEIR_T_NEW_D	14 /* ISD -> D */
#define SEIR_T_NEW_VAC	15
#define SEIR_T_COUNT	16 /* active list entries (seir_list_top) */
#define SEIR_T_SEV	17 /* severe or critical (Covasim's n_severe) */
#define SEIR_T_CRIT	18 /* critical */
#define SEIR_T_NEW_SEV	19 /* became severe today */
#define SEIR_T_NEW_CRIT 20 /* became critical today */
#define SEIR_T_END_SEV	21 /* severe or critical, recovered or died */
#define SEIR_T_END_CRIT 22 /* critical, recovered or died */
#define SEIR_T_FULL	23 /* completed their campaign's doses */
#define SEIR_T_NEW_FULL 24
#define SEIR_T_WALK	25 /* infectors that drew today (count_work) */
#define SEIR_T_CAND	26 /* candidates walked today (count_work) */
#define SEIR_T_NEW_TEST 27 /* tests today */
#define SEIR_T_NEW_DIAG 28 /* positive tests today (to be diagnosed) */
#define SEIR_T_DIAG	29 /* positive tests in all */
#define SEIR_T_NEW_QUAR 30 /* agents put in quarantine today */
/* Testing by number (seir_tnum_count, seir_tnum_pick): the passes of
 * today's selection done (SEIR_TNUM_DONE: the threshold is known), the
 * high bits of the threshold found so far, the rank sought among the keys
 * that share them, and a histogram of the next 8 bits. */
#define SEIR_T_TN_PASS 31
#define SEIR_T_TN_KEY  32
#define SEIR_T_TN_LEFT 33
#define SEIR_T_TN_HIST 34 /* .. + 255 */
/* With tracing: the agents in quarantine (Covasim's n_quarantined) as of
 * the last row written, and the changes to come, by day modulo
 * SEIR_QRING (seir_quar_days). */
#define SEIR_T_N_QUAR	 290
#define SEIR_T_QRING	 291 /* .. + SEIR_QRING - 1 */
#define SEIR_QRING	 1024u
#define SEIR_TALLY_WORDS (SEIR_T_QRING + SEIR_QRING)

/* A row of the series (the CSV's columns after the day; with age bands,
 * the day's counts by band follow, by_age.csv's). */
#define SEIR_R_S	0
#define SEIR_R_E	1
#define SEIR_R_IA	2
#define SEIR_R_IS	3
#define SEIR_R_R	4
#define SEIR_R_D	5
#define SEIR_R_NEW_INF	6
#define SEIR_R_NEW_D	7
#define SEIR_R_CUM	8
#define SEIR_R_VAC	9
#define SEIR_R_NEW_SEV	10 /* became severe that day */
#define SEIR_R_NEW_CRIT 11
#define SEIR_R_HOSP	12 /* severe or critical in a hospital bed */
#define SEIR_R_ICU	13 /* critical in an ICU bed */
#define SEIR_R_OVER_H	14 /* severe or critical without a hospital bed */
#define SEIR_R_OVER_I	15 /* critical without an ICU bed */
#define SEIR_R_FULL	16 /* completed their campaign's doses so far */
#define SEIR_R_WALK	17 /* with count_work: infectors that drew */
#define SEIR_R_CAND	18 /* with count_work: candidates walked */
#define SEIR_R_NEW_TEST 19 /* tests that day */
#define SEIR_R_NEW_DIAG                                          \
	20		   /* positive tests that day (Covasim's \
			    * new_diagnoses: counted on the test's day) */
#define SEIR_R_DIAG	21 /* positive tests so far */
#define SEIR_R_NEW_QUAR 22 /* agents notified and put in quarantine */
#define SEIR_R_ONSET	23 /* became infectious that day (a cohort) */
#define SEIR_R_N_QUAR	24 /* in quarantine that day */
#define SEIR_ROW_WORDS	25

/* The first index i of cum[0..hi] whose cumulative threshold exceeds
 * the draw, 2^32 - 1 standing for 2^32 (so the entry where the table
 * reaches 2^32 - 1 takes every larger draw). A binary search: the same
 * answer as a scan. The host makes the tables (non-decreasing, cum[hi] =
 * 2^32 - 1). */
WEFT_FN weft_u32 seir_search(const WEFT_GLOBAL weft_u32 *cum, weft_u32 hi,
			     weft_u32 draw)
{
	weft_u32 lo = 0;

	while (lo < hi) {
		weft_u32 mid = (lo + hi) / 2u;
		if (draw < cum[mid] || cum[mid] == 0xFFFFFFFFu)
			hi = mid;
		else
			lo = mid + 1u;
	}
	return lo;
}

/* Days of a stage, 0 to SEIR_DUR_MAX: the first d whose cumulative
 * threshold cum[d] exceeds the draw (as seir_duration, 0 days
 * included). */
WEFT_FN weft_u32 seir_stage_days(const WEFT_GLOBAL weft_u32 *cum, weft_u32 draw)
{
	return seir_search(cum, SEIR_DUR_MAX, draw);
}

/* A chance decided by a draw: p = threshold / 2^32, and the largest
 * threshold means certain (so that p = 1 never misses). */
WEFT_FN int seir_chance(weft_u32 draw, weft_u32 thr)
{
	return thr == 0xFFFFFFFFu || draw < thr;
}

/* The same chance times a factor f (Q16, at most 1: a vaccine's risk
 * left): draw < thr x f / 2^16, in 64-bit integers; f = 1 is
 * seir_chance itself. */
WEFT_FN int seir_chance_q16(weft_u32 draw, weft_u32 thr, weft_u32 f)
{
	if (f >= SEIR_Q16_ONE)
		return seir_chance(draw, thr);
	return ((weft_u64)draw << 16) < (weft_u64)thr * f;
}

/* Covasim's viral load (compute_viral_load): an agent infectious for dur
 * days transmits vl_ratio times as much in the early part of that period
 * (its first vl_early[dur] days: the host counts them as Covasim decides
 * them, weft__seir_viral_early) as in the rest; both levels are divided
 * by 1 + frac (ratio - 1), frac being vl_frac_pm / 1000 whether or not
 * the cap shortens the early part, as Covasim divides them. Integer
 * arithmetic: the same bits on every backend. The host tabulates the two
 * levels by duration (vl_q16); a kernel only tells early from late. */

/* Whether day e of the period (0: its first day) is in the early part. */
WEFT_FN int seir_viral_early(const WEFT_GLOBAL seir_params *p, weft_u32 dur,
			     weft_u32 e)
{
	return e < p->vl_early[dur];
}

/* The early (early != 0) or late level for a period of dur days, Q16. */
WEFT_FN weft_u32 seir_viral_level_q16(const WEFT_GLOBAL seir_params *p,
				      weft_u32 dur, int early)
{
	weft_u64 num = early ? p->vl_ratio_q16 : SEIR_Q16_ONE;

	if (dur == 0u)
		return SEIR_Q16_ONE;
	return (weft_u32)(num * 1000u * SEIR_Q16_ONE /
			  (1000u * (weft_u64)SEIR_Q16_ONE +
			   (weft_u64)p->vl_frac_pm *
				   (p->vl_ratio_q16 - SEIR_Q16_ONE)));
}

/* The factor on day e of a period of dur days, Q16. */
WEFT_FN weft_u32 seir_viral_q16(const WEFT_GLOBAL seir_params *p, weft_u32 dur,
				weft_u32 e)
{
	return seir_viral_level_q16(p, dur, seir_viral_early(p, dur, e));
}

/* A duration in days, 1 to SEIR_DUR_MAX: the first day d whose
 * cumulative threshold cum[d - 1] exceeds the draw, 2^32 - 1 standing for
 * 2^32 (so P(d) = (cum[d - 1] - cum[d - 2]) / 2^32 exactly, and the day
 * where the table reaches 2^32 - 1 takes every larger draw). A binary
 * search: the same answer as a scan. The host makes the table
 * (non-decreasing, the last entry 2^32 - 1). */
WEFT_FN weft_u32 seir_duration(const WEFT_GLOBAL weft_u32 *cum, weft_u32 draw)
{
	return seir_search(cum, SEIR_DUR_MAX - 1u, draw) + 1u;
}

/* The chance (Q28, a probability times 2^28; 2^28 and above: certain)
 * that one contact transmits: base (Q28, from the beta table) times the
 * infector's factor (Q16) times the contact's susceptibility (Q16) times
 * the edge weight (x1000). Integer arithmetic only, so every target
 * decides the same; with the factors' ranges (beta table < 16, each
 * factor < 2^23 in Q16, weights < 65536) no intermediate exceeds 2^59.
 * Monotone in every factor, so the largest factors bound it. */
WEFT_FN weft_u64 seir_chance_q28(weft_u32 base, weft_u32 f_trans,
				 weft_u32 f_sus, weft_u32 weight)
{
	weft_u64 thr = ((weft_u64)base * f_trans) >> 16;

	thr = (thr * f_sus) >> 16;
	if (weight != 1000u)
		thr = thr * weight / 1000u;
	return thr;
}

/* ---- skip sampling ----------------------------------------------------
 * An infector walks the contacts of a layer as candidates with the kit's
 * skip sampling (weft/graph.wk, docs/graph.md): each place is a candidate
 * with the rate q = lvl_q28[k] / 2^28 of a level k at least the layer's
 * largest chance today, and a candidate whose own chance is c transmits
 * with probability c / q (weft_graph_accepts). The places between two
 * candidates are skipped unseen (weft_graph_skip). Work is proportional
 * to the candidates, not to the contacts. */

/* ---- testing, tracing and quarantine (testing.c) ------------------------
 * An agent's diagnosis word (with testing) is 0, or the day of its
 * diagnosis plus 1 (set by its positive test, test_delay days before);
 * its quarantine word (with tracing) is 0, or the first day of its
 * quarantine (low half) and the day after its last (high half). Both are
 * dates, not countdowns: whether an agent is diagnosed or in quarantine
 * on a day is a comparison, and no kernel visits it when that changes.
 * They follow the active set's bitmap in its buffer (n diagnosis words,
 * then n quarantine words): seir_transmit, which reads them, binds 12
 * buffers already, the most a launch may (WEFT_KERNEL_MAX_BUFS). */
#define SEIR_DIAG_WORDS(p, bits) ((bits) + ((p)->n_agents + 31u) / 32u)
#define SEIR_QUAR_WORDS(p, bits) (SEIR_DIAG_WORDS(p, bits) + (p)->n_agents)
/* With testing by number, today's key of every agent follows (after the
 * quarantine words, if any): computed by the selection's first pass,
 * read by the others and by seir_test. */
#define SEIR_KEY_WORDS(p, bits) \
	(SEIR_QUAR_WORDS(p, bits) + ((p)->tracing ? (p)->n_agents : 0u))

/* Diagnosed on or before day (isolating, as Covasim's `isolated`). */
WEFT_FN int seir_diagnosed(weft_u32 dg, weft_u32 day)
{
	return dg != 0u && dg - 1u <= day;
}

/* In quarantine on day: within its days, and not diagnosed (a diagnosis
 * ends a quarantine: the agent isolates instead). */
WEFT_FN int seir_quarantined(weft_u32 q, weft_u32 dg, weft_u32 day)
{
	return day >= (q & 0xFFFFu) && day < (q >> 16) &&
	       !seir_diagnosed(dg, day);
}

/* Testing by number: an agent's key, the smallest test_num keys of the
 * day being tested. -log2(u) / w for a uniform u (draw) and the weight w
 * of its kind (w8 = 256 w): the exponential race of Efraimidis and
 * Spirakis, whose smallest keys are a weighted sample without
 * replacement, as Covasim's choose_w draws it. In integers: -log2(u) in
 * Q48 (weft_graph_neglog2_q48, up to 2^53) over w8 is in Q40; the key keeps 27
 * bits of fraction (>> 13), below SEIR_TNUM_NONE. */
WEFT_FN weft_u32 seir_tnum_key_of(weft_u64 neglog2_q48, weft_u32 w8)
{
	weft_u64 k;

	if (w8 == 0u)
		return SEIR_TNUM_NONE;
	k = neglog2_q48 / w8 >> 13;
	return k >= SEIR_TNUM_NONE - 1u ? SEIR_TNUM_NONE - 1u : (weft_u32)k;
}

/* ---- waning immunity and reinfection ([seir] waning; waning.c) ----------
 * Covasim's neutralising antibodies (NAbs) after natural infection, for
 * one variant. Each agent has two words after the other per-agent words
 * of the active set's buffer (SEIR_NAB_WORDS): word 0 is 0 (never
 * infected) or log2 of its peak NAb level in Q16 plus SEIR_NAB_LOG0, bit
 * 31 set after its first reinfection (Covasim's breakthrough: it
 * transmits trans_redux as much from then on); word 1 holds the day of
 * its last NAb event (the day of its last exposure, low half) and its
 * NAb level that day relative to the new peak (Q16, high half: 0 after a
 * first infection). Its NAb level on day t is the peak times
 * seir_nab_rel_q30() of the days since: nothing is updated daily. After
 * the agents' words, one word counts the day's reinfections. The
 * parameters and tables lie after the beta table (seir_wan()). */
#define SEIR_NAB_LOG0	   0x40000000u /* log2 1 (Q16), offset */
#define SEIR_NAB_FLAG	   0x80000000u /* reinfected once at least */
#define SEIR_NAB_INIT_BINS 1024u       /* of the initial log2 NAb's law */
/* The efficacy tables: log2 NAb from -32 to 32 in steps of 1/8. */
#define SEIR_NAB_STEPS	 512u
#define SEIR_NAB_STEP_SH 13u /* Q16 to steps of 1/8 */
#define SEIR_NAB_TAB_LO	 (SEIR_NAB_LOG0 - (32u << 16))
#define SEIR_Q30_ONE	 0x40000000u
/* What decides the initial NAb level (Covasim's rel_imm_symp). */
#define SEIR_NAB_ASYMP	  0
#define SEIR_NAB_MILD	  1
#define SEIR_NAB_SEVERE	  2
#define SEIR_NAB_SYMPTOMS 3
#define SEIR_PURPOSE_NAB  23u /* (day of exposure, agent): initial NAb */

/* The law of log2 of an initial NAb level (a normal law): bin k of the
 * cumulative thresholds cum spans lo + k w to one step more (Q16, from
 * -SEIR_NAB_LOG0 offset 0), drawn uniformly within (seir_nab_draw). */
typedef struct seir_nab_law {
	weft_u32 lo, w;
	weft_u32 cum[SEIR_NAB_INIT_BINS];
} seir_nab_law;

/* The waning parameters, after the beta table (and its crn row), the
 * NAb kinetics (kin_q30: n_kin words) right after the structure; the
 * host rounds the two up to whole rows of the table. */
typedef struct seir_waning {
	weft_u32 growth;	/* nab_decay growth_time, days */
	weft_u32 boost_q16;	/* nab_boost */
	weft_u32 boost_log_q16; /* log2(nab_boost), Q16 */
	weft_u32 trans_q16;	/* trans_redux */
	/* log2 of rel_imm_symp times (1 + alpha_inf_diff), Q16, signed
	 * (two's complement): added to a draw of the initial law, which
	 * init.lo offsets by SEIR_NAB_LOG0 (so the sum is never near 0). */
	weft_u32 symp_log[SEIR_NAB_SYMPTOMS];
	seir_nab_law init; /* of a first infection (nab_init) */
	/* What is left of each risk (SEIR_VE_*: 1 - calc_VE of 'sus',
	 * 'symp', 'sev'), Q16, by log2 NAb (SEIR_NAB_TAB_LO + i 2^13). */
	weft_u32 left_q16[SEIR_VE_KINDS][SEIR_NAB_STEPS + 1];
	weft_u32 n_kin;	  /* kin_q30 entries */
	weft_u32 var_off; /* words from this block to the variants' */
	weft_u32 vx_off;  /* words from this block to the vaccines' */
} seir_waning;

/* The waning block (with SEIR_OPT_WANING): after the beta table's rows
 * and the crn row. */
WEFT_FN const WEFT_GLOBAL seir_waning *
seir_wan(const WEFT_GLOBAL seir_params *p)
{
	const WEFT_GLOBAL weft_u32 *table =
		(const WEFT_GLOBAL weft_u32 *)(p + 1);

	return (const WEFT_GLOBAL seir_waning
			*)(table + (p->beta_last + 1u +
				    ((p->opts & SEIR_OPT_CRN) ? 1u : 0u)) *
					   SEIR_BETA_COLS);
}

/* An agent's NAb level on `day` relative to its peak (Q30): Covasim's
 * nab_kin summed from its NAb event (nab_growth_decay: y, its table
 * kin_q30), with the level of the event day added and capped at the peak
 * while it grows (the daily clipping of update_nab). w1: its word 1. */
WEFT_FN weft_u32 seir_nab_rel_q30(const WEFT_GLOBAL seir_waning *w, weft_u32 w1,
				  weft_u32 day)
{
	const WEFT_GLOBAL weft_u32 *kin = (const WEFT_GLOBAL weft_u32 *)(w + 1);
	weft_u32 k = (day - (w1 & 0xFFFFu)) & 0xFFFFu, r;

	if (k >= w->n_kin)
		k = w->n_kin - 1u;
	if (k >= w->growth)
		return kin[k];
	r = kin[k] + ((w1 >> 16) << 14);
	return r > SEIR_Q30_ONE ? SEIR_Q30_ONE : r;
}

/* What is left of risk kind (SEIR_VE_*) to an agent whose word 0 is w0
 * with NAbs at rel (Q30) of its peak: the table at log2 NAb, linearly
 * interpolated (Q16). 1 without NAbs. */
WEFT_FN weft_u32 seir_nab_left(const WEFT_GLOBAL seir_params *p,
			       const WEFT_GLOBAL seir_waning *w, weft_u32 w0,
			       weft_u32 rel, weft_u32 kind)
{
	const WEFT_GLOBAL weft_u32 *t = w->left_q16[kind];
	weft_u32 lg, i, f;

	if (w0 == 0u || rel == 0u)
		return SEIR_Q16_ONE;
	/* log2(rel) from the kit's -log2((draw + 1) / 2^32), Q48. */
	lg = (w0 & ~SEIR_NAB_FLAG) -
	     (weft_u32)(weft_graph_neglog2_q48(&p->skip, (rel << 2) - 1u) >>
			32);
	if (lg <= SEIR_NAB_TAB_LO)
		return t[0];
	i = (lg - SEIR_NAB_TAB_LO) >> SEIR_NAB_STEP_SH;
	if (i >= SEIR_NAB_STEPS)
		return t[SEIR_NAB_STEPS];
	f = (lg - SEIR_NAB_TAB_LO) & ((1u << SEIR_NAB_STEP_SH) - 1u);
	/* The tables decrease with the NAb level. */
	return t[i] - (weft_u32)(((weft_u64)(t[i] - t[i + 1u]) * f) >>
				 SEIR_NAB_STEP_SH);
}

/* The NAb words of the agents (two each) and then the day's
 * reinfections, after the other per-agent words of the active set's
 * buffer (those testing, tracing and testing by number have:
 * weft__seir_testing_words). */
#define SEIR_NAB_WORDS(p, bits)                                         \
	(SEIR_DIAG_WORDS(p, bits) +                                     \
	 (p)->n_agents *                                                \
		 (((p)->testing ? 1u : 0u) + ((p)->tracing ? 1u : 0u) + \
		  ((p)->test_num ? 1u : 0u)))
#define SEIR_NAB_REINF(p, bits) (SEIR_NAB_WORDS(p, bits) + 2u * (p)->n_agents)

/* ---- variants ([seir] variants, with waning; variants.c) ----------------
 * Covasim 3.1's variants: variant 0 is the seeds' ("wild"), the others
 * are imported on their days. An infection's variant is its infector's;
 * an agent exposed by several infectors on one day takes its infector's,
 * the lowest claimant's (seir_claim). Each agent has one more word after
 * the day's reinfections (SEIR_VAR_WORDS): bits 0-3 the variant of its
 * last infection, bits 4-7 the one before (whose NAbs protect it at its
 * onset, through the cross immunity of the two). After the agents' words,
 * SEIR_VARIANTS words count the day's infections by variant
 * (seir_variant_count, seir_imports), read and cleared by seir_tally. */
#define SEIR_OPT_VARIANTS   8u
#define SEIR_VARIANTS	    8u
#define SEIR_IMPORTS	    16u
#define SEIR_VAR_MASK	    0xFu
#define SEIR_IMM_NONE	    0x80000000u /* cross immunity 0: no NAbs */
#define SEIR_PURPOSE_IMPORT 24u		/* (day, event, k): an imported agent */
/* (day, agent, campaign): a daily trial of a first dose (prob=). */
#define SEIR_PURPOSE_VAC_PROB 25u
#define SEIR_IMPORT_TRIES     256u

/* On day `day`, `count` agents drawn among the susceptible (S, or R) are
 * exposed to `variant` (Covasim's cv.variant days and n_imports). */
typedef struct seir_import {
	weft_u32 day, variant, count;
	/* The agents it draws from: first .. first + span - 1 (everyone,
	 * or with patch=N the agents of patch N); patch: N, or SEIR_NONE. */
	weft_u32 first, span, patch;
} seir_import;

/* The variants' table, var_off words after the waning block. imm_log:
 * log2 of Covasim's cross immunity, immunity[new][recovered], Q16
 * signed (added to log2 of the NAb level), or SEIR_IMM_NONE for 0. */
typedef struct seir_variant_tab {
	weft_u32 n;	    /* variants, 2 to SEIR_VARIANTS */
	weft_u32 n_imports; /* entries of imp, in day order */
	weft_u32 rel_beta_q16[SEIR_VARIANTS];
	weft_u32 imm_log[SEIR_VARIANTS][SEIR_VARIANTS];
	seir_import imp[SEIR_IMPORTS];
	seir_risk risk[SEIR_VARIANTS];
} seir_variant_tab;

WEFT_FN const WEFT_GLOBAL seir_variant_tab *
seir_var(const WEFT_GLOBAL seir_params *p)
{
	const WEFT_GLOBAL seir_waning *w = seir_wan(p);

	return (const WEFT_GLOBAL seir_variant_tab
			*)((const WEFT_GLOBAL weft_u32 *)w + w->var_off);
}

/* A variant word's bit: the infection before the last one exists (the
 * agent was recovered when it was exposed). */
#define SEIR_VAR_HAD_PREV 0x200u

/* The agents' variant words and the day's counts by variant. */
#define SEIR_VAR_WORDS(p, bits) (SEIR_NAB_REINF(p, bits) + 1u)
#define SEIR_VAR_COUNT(p, bits) (SEIR_VAR_WORDS(p, bits) + (p)->n_agents)

/* ---- vaccines with NAbs (vaccine_campaigns' vaccine=; vaccination.c) ---
 * Covasim 3.1's vaccines: each dose of a campaign with on[c] is a NAb
 * event (update_peak_nab): an agent without NAbs draws its peak from the
 * vaccine's law, one with NAbs has its peak multiplied by the vaccine's
 * nab_boost; imm_log[c][v]: log2 of the vaccine's weight against variant
 * v (get_vaccine_variant_pars), as the variants' imm_log. */
#define SEIR_OPT_VXNAB 16u
typedef struct seir_vx_tab {
	weft_u32 on[SEIR_CAMPAIGNS];
	weft_u32 boost_q16[SEIR_CAMPAIGNS];
	weft_u32 boost_log_q16[SEIR_CAMPAIGNS];
	weft_u32 imm_log[SEIR_CAMPAIGNS][SEIR_VARIANTS];
	seir_nab_law law[SEIR_CAMPAIGNS];
} seir_vx_tab;

WEFT_FN const WEFT_GLOBAL seir_vx_tab *seir_vx(const WEFT_GLOBAL seir_params *p)
{
	const WEFT_GLOBAL seir_waning *w = seir_wan(p);

	return (const WEFT_GLOBAL seir_vx_tab *)((const WEFT_GLOBAL weft_u32 *)
							 w +
						 w->vx_off);
}

/* log2 of the weight of an agent's NAbs against variant v (Q16 signed,
 * SEIR_IMM_NONE for 0): Covasim's max(natural_imm, vaccine_imm), natural
 * from an infection by variant r when had, vaccine from campaign ci when
 * vacc. */
WEFT_FN weft_u32 seir_nab_weight(const WEFT_GLOBAL seir_params *p, weft_u32 v,
				 weft_u32 r, weft_u32 had, weft_u32 vacc,
				 weft_u32 ci)
{
	weft_i32 nat = had ? (weft_i32)seir_var(p)->imm_log[v][r]
			   : (weft_i32)SEIR_IMM_NONE;
	weft_i32 vx = vacc ? (weft_i32)seir_vx(p)->imm_log[ci][v]
			   : (weft_i32)SEIR_IMM_NONE;

	return (weft_u32)(nat > vx ? nat : vx);
}

/* Word 0 of an agent's NAbs weighted by imm (seir_nab_weight): log2 of
 * the level plus imm (none left for SEIR_IMM_NONE). */
WEFT_FN weft_u32 seir_nab_cross(weft_u32 w0, weft_u32 imm)
{
	if (w0 == 0u || imm == 0u)
		return w0;
	if (imm == SEIR_IMM_NONE)
		return 0u;
	return (((w0 & ~SEIR_NAB_FLAG) + imm) & ~SEIR_NAB_FLAG) |
	       (w0 & SEIR_NAB_FLAG);
}

/* A chance (Q28) or factor times f (Q16, at most 1). */
WEFT_FN weft_u32 seir_times_q16(weft_u32 v, weft_u32 f)
{
	return (weft_u32)(((weft_u64)v * f) >> 16);
}

#endif /* SEIR_SHARED_H */
