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

/* Age bins of ten years: 0-9, ..., 80-89, 90 and over. */
#define SEIR_AGE_BINS 10
/* Classes of per-agent relative transmissibility (equally likely). */
#define SEIR_REL_CLASSES 16
/* Durations are 1 to SEIR_DUR_MAX days. */
#define SEIR_DUR_MAX 120
/* Duration tables, in the order of the params block. */
#define SEIR_DUR_LATENT 0
#define SEIR_DUR_ASYM	1
#define SEIR_DUR_SYM	2
#define SEIR_DUR_DEATH	3
#define SEIR_N_DURS	4

/* Layers (population.h numbers them the same): home, school, work,
 * community. The beta table has SEIR_BETA_COLS words per day: the four
 * layers, then the four layers for isolating agents. */
#define SEIR_LAYERS    4
#define SEIR_COMMUNITY 3
#define SEIR_BETA_COLS 8
/* Fixed-point formats: a factor of 1 is 1 << 16 (Q16); beta table
 * entries are probabilities times 2^28 (Q28, so values up to 16 fit). */
#define SEIR_Q16_ONE 65536u

/* Purposes: the fourth counter word, so that draws for different
 * decisions never coincide. Transmission over a stored layer L uses
 * SEIR_PURPOSE_TRANSMIT + L. */
#define SEIR_PURPOSE_TRANSMIT  1u  /* .. 4: (day, infector, contact) */
#define SEIR_PURPOSE_COMMUNITY 8u  /* (day, infector, k): contact, draw */
#define SEIR_PURPOSE_LATENT    9u  /* (day, agent): latent period */
#define SEIR_PURPOSE_ONSET     10u /* (day, agent): course at onset */
#define SEIR_PURPOSE_REL_TRANS 11u /* (0, agent): transmissibility class */

/* "None" in the claim array; a claim marked by the count pass has the
 * high bit set. Positions and agents are below 2^31. */
#define SEIR_NONE	0xFFFFFFFFu
#define SEIR_CLAIM_MARK 0x80000000u
/* Work items of the scan kernels each own a block of the active list. */
#define SEIR_SCAN_BLOCK 256u

/* The parameter block (buffer 0 of every launch): 32-bit words only, so
 * the layout is the same on every target. The beta table follows it in
 * the same buffer: beta_rows rows of SEIR_BETA_COLS words (Q28). */
typedef struct seir_params {
	weft_u32 n_agents;
	weft_u32 seed_lo;
	weft_u32 seed_hi;
	weft_u32 n_days;	  /* rows in the series after row 0 */
	weft_u32 frontier;	  /* 1: work over the active list */
	weft_u32 community_daily; /* contacts drawn per infectious day */
	weft_u32 layer_slot[SEIR_LAYERS]; /* row block of a stored layer, or
					   * SEIR_NONE */
	weft_u32 weighted;  /* 1: the weight buffer holds x1000 weights */
	weft_u32 beta_last; /* last row of the beta table (later days use
			     * it) */
	weft_u32 asym_q16;  /* transmissibility of asymptomatic agents */
	weft_u32 rel_trans; /* 1: per-agent classes, else all 1 */
	weft_u32 iso_thr;   /* chance that a symptomatic agent isolates */
	weft_u32 vac_start; /* first day of vaccination */
	weft_u32 vac_doses; /* doses per day */
	weft_u32 vac_q16;   /* susceptibility left by the vaccine */
	/* Covasim's viral load (seir_viral_q16): on when vl_on is 1. */
	weft_u32 vl_on;
	weft_u32 vl_frac_pm;   /* early part of the infectious period, 1/1000 */
	weft_u32 vl_cap_pm;    /* at most this many days, in 1/1000 days */
	weft_u32 vl_ratio_q16; /* early load over late load */
	/* seir_viral_level_q16() by duration: [0] early, [1] late. */
	weft_u32 vl_q16[2][SEIR_DUR_MAX + 1];
	weft_u32 symp_thr[SEIR_AGE_BINS];   /* chance of symptoms */
	weft_u32 death_thr[SEIR_AGE_BINS];  /* chance of death if symptomatic */
	weft_u32 sus_q16[SEIR_AGE_BINS];    /* relative susceptibility */
	weft_u32 rel_q16[SEIR_REL_CLASSES]; /* transmissibility classes */
	/* Cumulative thresholds: a duration is the first day d whose
	 * dur[k][d - 1] exceeds the draw (seir_duration). */
	weft_u32 dur[SEIR_N_DURS][SEIR_DUR_MAX];
} seir_params;

/* The tally (buffer 3): the day being simulated, running totals, today's
 * transitions, and the sizes of the active list. */
#define SEIR_T_DAY	 0
#define SEIR_T_S	 1
#define SEIR_T_E	 2
#define SEIR_T_IA	 3
#define SEIR_T_IS	 4 /* IS and ISD */
#define SEIR_T_R	 5
#define SEIR_T_D	 6
#define SEIR_T_CUM	 7 /* infected in all, seeds included */
#define SEIR_T_VAC	 8 /* vaccinated in all */
#define SEIR_T_NEW_E	 9
#define SEIR_T_NEW_IA	 10
#define SEIR_T_NEW_IS	 11
#define SEIR_T_REC_A	 12 /* IA -> R */
#define SEIR_T_REC_S	 13 /* IS -> R */
#define SEIR_T_NEW_D	 14 /* ISD -> D */
#define SEIR_T_NEW_VAC	 15
#define SEIR_T_COUNT	 16 /* active list entries today */
#define SEIR_T_NBLK	 17 /* scan blocks over them */
#define SEIR_T_NEXT	 18 /* entries tomorrow (written by the scan) */
#define SEIR_T_NEXT_NBLK 19
#define SEIR_TALLY_WORDS 20

/* A row of the series (the CSV's columns after the day). */
#define SEIR_R_S       0
#define SEIR_R_E       1
#define SEIR_R_IA      2
#define SEIR_R_IS      3
#define SEIR_R_R       4
#define SEIR_R_D       5
#define SEIR_R_NEW_INF 6
#define SEIR_R_NEW_D   7
#define SEIR_R_CUM     8
#define SEIR_R_VAC     9
#define SEIR_ROW_WORDS 10

/* A chance decided by a draw: p = threshold / 2^32, and the largest
 * threshold means certain (so that p = 1 never misses). */
WEFT_FN int seir_chance(weft_u32 draw, weft_u32 thr)
{
	return thr == 0xFFFFFFFFu || draw < thr;
}

/* Covasim's viral load (compute_viral_load): an agent infectious for dur
 * days transmits vl_ratio times as much in the early part of that period
 * (its first trans / 1000 days, trans = min(vl_frac_pm * dur, vl_cap_pm))
 * as in the rest, both levels divided by 1 + (trans / 1000 dur) (ratio -
 * 1) so that the period's mean stays 1. Integer arithmetic: the same bits
 * on every backend. The host tabulates the two levels by duration
 * (vl_q16); a kernel only tells early from late. */
WEFT_FN weft_u32 seir_viral_trans(const WEFT_GLOBAL seir_params *p,
				  weft_u32 dur)
{
	weft_u32 trans = p->vl_frac_pm * dur;

	return trans < p->vl_cap_pm ? trans : p->vl_cap_pm;
}

/* Whether day e of the period (0: its first day) is in the early part. */
WEFT_FN int seir_viral_early(const WEFT_GLOBAL seir_params *p, weft_u32 dur,
			     weft_u32 e)
{
	return e * 1000u < seir_viral_trans(p, dur);
}

/* The early (early != 0) or late level for a period of dur days, Q16. */
WEFT_FN weft_u32 seir_viral_level_q16(const WEFT_GLOBAL seir_params *p,
				      weft_u32 dur, int early)
{
	weft_u64 d_pm = (weft_u64)dur * 1000u;
	weft_u64 trans = seir_viral_trans(p, dur);
	weft_u64 num = early ? p->vl_ratio_q16 : SEIR_Q16_ONE;

	if (dur == 0u)
		return SEIR_Q16_ONE;
	return (weft_u32)(num * d_pm * SEIR_Q16_ONE /
			  (d_pm * SEIR_Q16_ONE +
			   trans * (p->vl_ratio_q16 - SEIR_Q16_ONE)));
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
	weft_u32 lo = 0, hi = SEIR_DUR_MAX - 1;

	while (lo < hi) {
		weft_u32 mid = (lo + hi) / 2u;
		if (draw < cum[mid] || cum[mid] == 0xFFFFFFFFu)
			hi = mid;
		else
			lo = mid + 1u;
	}
	return lo + 1u;
}

/* Whether one contact transmits: base (Q28, from the beta table) times
 * the infector's factor (Q16) times the contact's susceptibility (Q16)
 * times the edge weight (x1000), against a 32-bit draw. Integer
 * arithmetic only, so every target decides the same; with the factors'
 * ranges (beta table < 16, each factor < 2^23 in Q16, weights < 65536)
 * no intermediate exceeds 2^59. */
WEFT_FN int seir_transmits(weft_u32 draw, weft_u32 base, weft_u32 f_trans,
			   weft_u32 f_sus, weft_u32 weight)
{
	weft_u64 thr = ((weft_u64)base * f_trans) >> 16;

	thr = (thr * f_sus) >> 16;
	if (weight != 1000u)
		thr = thr * weight / 1000u;
	return (weft_u64)draw < (thr << 4);
}

#endif /* SEIR_SHARED_H */
