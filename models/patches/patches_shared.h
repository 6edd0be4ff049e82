/*
 * patches_shared.h - what the patch model's kernels (patches.wk) and its
 * host code (patches.c) share: the parameter block, the agent word, the
 * control block, the rows of the series and the purposes of the draws.
 * Written in the kernel dialect.
 */
#ifndef PATCHES_SHARED_H
#define PATCHES_SHARED_H

/* Purposes: the low 8 bits of the last counter word of a draw; a chain
 * of trials (PT_PURPOSE_INFECT, PT_PURPOSE_DEATH) has its draw's number
 * in the bits above. 5 and 7 were the draws of an earlier agents'
 * kernel. */
#define PT_PURPOSE_INFECT 1u /* (day, block, disease): exposures */
#define PT_PURPOSE_EXPOSE_EACH                                            \
	2u			  /* (day, agent, disease): in a block of \
				     several patches */
#define PT_PURPOSE_INFECTIOUS 3u  /* (day, agent): an infectious duration */
#define PT_PURPOSE_INIT	      4u  /* (agent, 0): a duration at day 0 */
#define PT_PURPOSE_DEATH      6u  /* (day, block): deaths */
#define PT_PURPOSE_BIRTH      8u  /* (day, patch): the day's births */
#define PT_PURPOSE_IMPORT     9u  /* (day, patch): where importation starts */
#define PT_PURPOSE_IMPORT_DUR 10u /* (day, agent): an imported duration */
#define PT_PURPOSE_SIA	      11u /* (day, block): a campaign's doses */
#define PT_PURPOSE_SIA_EACH \
	12u /* (day, agent): in a block of several patches */
#define PT_PURPOSE_CONCEIVE 13u /* (day, block): conceptions */
#define PT_PURPOSE_PRESSURE 14u /* (day, patch, chunk): imports' number */

/* Campaigns (sia; campaigns.c): at most PT_SIA_MAX. Their table (buffer
 * sia): the day of each, then from word PT_SIA_MAX a row of P chances
 * (32-bit thresholds) each. pt_force writes the day's chance of patch j
 * to thr[P + j] and whether the day has a campaign to thr[2P]. */
#define PT_SIA_MAX 64u

/* A block's words (buffer soon): the day its mask was brought up to, the
 * mask (pt_soon_bit), its patch or PT_MIXED for several (patches.wk,
 * pt_block_patch). */
#define PT_BLOCK_WORDS 3u
#define PT_MIXED       0xFFFFFFFFu

/* No slot: the end of a patch's newborns (pt_link). */
#define PT_NO_SLOT 0xFFFFFFFFu

/* Agent slots per work item of pt_agents and pt_ages (a block): a
 * block's exposures and deaths are chains of trials over its slots
 * (patches.wk, pt_expose), about one draw a block a day plus one per
 * event; a multiple of 16 (pt_agents' pass goes 16 words at a time). */
#define PT_GROUP 256u

/* An agent is one 32-bit word: its patch, its date (the day, modulo
 * 16384, of its next transition while exposed or infectious) and its
 * state. */
#define PT_S	       0u
#define PT_E	       1u
#define PT_I	       2u
#define PT_R	       3u
#define PT_PATCH_MASK  0xFFFFu
#define PT_DATE_SHIFT  16
#define PT_DATE_MASK   0x3FFFu /* durations of at most 16383 days */
#define PT_STATE_SHIFT 30
#define PT_MAX_PATCHES 65536u
#define PT_MAX_DAYS    16383u
/* A dead agent: state R with every date bit set (LASER's DECEASED). */
#define PT_DEAD_HI 0xFFFFu /* its word's top 16 bits */

WEFT_FN weft_u32 pt_word(weft_u32 state, weft_u32 date, weft_u32 patch)
{
	return (state << PT_STATE_SHIFT) |
	       ((date & PT_DATE_MASK) << PT_DATE_SHIFT) | patch;
}

/* A block's mask of the days to come (buffer soon, PT_BLOCK_WORDS): bit j
 * set when some agent of
 * the block may move on j days after that day, bit 31 for 31 days or
 * more. A bit is set when a date is given, and stays until its day has
 * passed (a death leaves it: the pass finds no one), so that a block's
 * pass over its words can be skipped on the days whose bit is clear.
 * The bit of a date dur days after today: */
WEFT_FN weft_u32 pt_soon_bit(weft_u32 dur)
{
	return 1u << (dur < 31u ? dur : 31u);
}

/* The mask m brought s days on: bit j + s becomes bit j; bit 31 (31 days
 * or more) may be any of the last s + 1 bits now. */
WEFT_FN weft_u32 pt_soon_shift(weft_u32 m, weft_u32 s)
{
	weft_u32 far = m >> 31;

	if (s == 0u)
		return m;
	m = s >= 32u ? 0u : m >> s;
	if (far != 0u)
		m |= s >= 31u ? 0xFFFFFFFFu : 0xFFFFFFFFu << (31u - s);
	return m;
}

/* The parameter block: 32-bit words only. */
typedef struct pt_params {
	weft_u32 seed_lo, seed_hi;
	weft_u32 agents, patches;
	weft_u32 beta_lo, beta_hi; /* beta's f64 bits */
	weft_u32 exp_len, exp_min; /* the exposed table: entries, shortest */
	weft_u32 inf_len, inf_min; /* the infectious table, after it */
	weft_u32 mixing;	   /* 1: the network applies */
	weft_u32 every;		   /* a row every this many days */
	weft_u32 last_step;	   /* and at the last day */
	weft_u32 n_rows;
	weft_u32 row_words; /* 1 + 4 x patches */
	weft_u32 capacity;  /* agent slots, births included */
	weft_u32 death_thr; /* daily chance of death (cdr), a threshold */
	weft_u32 birth_lo, birth_hi; /* daily birth rate (cbr), f64 bits */
	weft_u32 season_len; /* seasonality: beta of day t is buffer season's
				entry t % season_len; 0: beta every day */
	weft_u32 imp_period; /* importation every this many days; 0: none */
	weft_u32 imp_start;  /* from this day (tick) */
	weft_u32 imp_end;    /* to before this one */
	weft_u32 incidence;  /* 1: rows hold each patch's new infections */
	weft_u32 season_patches; /* 1: season holds a row of one per patch a
				    day of the cycle */
	weft_u32 after_prog;	 /* 1: the force after the day's onsets and
				    recoveries (force_after_progression) */
	weft_u32 disease;	 /* 0, or 1: the second disease (diseases =
				    2), the third word of its own draws */
	weft_u32 linear;	 /* 1: the chance of infection is the force
				    itself (infection_probability = linear) */
	weft_u32 pair;		 /* 1: the first disease of two, whose pass
				    kills in the second's words too */
	weft_u32 mix_infectious; /* 1: the network mixes the infectious
				    (mixing_form = infectious) */
	weft_u32 sia;		 /* campaigns (sia): their number; 0: none */
	weft_u32 fert;		 /* 1: births by age of mother
				    (fertility_rates), in both diseases */
	weft_u32 reborn;   /* 1: constant_population, a death's slot taken by a
			      newborn at once (death_thr the chance) */
	weft_u32 pressure; /* 1: importation_pressure, a daily chance per
			      agent and patch after the tables (buffer tab,
			      f64), from imp_start to before imp_end */
} pt_params;

/* Whether importation happens on day (tick) t: LASER's
 * Infect_Agents_In_Patch, t >= start, (t - start) % period == 0, t < end. */
WEFT_FN int pt_import_due(WEFT_GLOBAL const pt_params *p, weft_u32 t)
{
	return p->imp_period != 0u && t >= p->imp_start && t < p->imp_end &&
	       (t - p->imp_start) % p->imp_period == 0u;
}

/* Whether agents are born: at a crude rate (cbr) or by age of mother. */
WEFT_FN int pt_births_on(WEFT_GLOBAL const pt_params *p)
{
	return (p->birth_lo | p->birth_hi | p->fert) != 0u;
}

/* A chance as a 32-bit threshold: a draw below it succeeds (0 for none,
 * 2^32 - 1 for 1); the host's and the kernels' (prob x 2^32 is exact). */
WEFT_FN weft_u32 pt_chance(weft_f64 prob)
{
	weft_f64 t = prob * 4294967296.0;

	return !(prob > 0.0)	   ? 0u
	       : t >= 4294967295.0 ? 0xFFFFFFFFu
				   : (weft_u32)t;
}

/* Whether importation_pressure imports on day (tick) t. */
WEFT_FN int pt_pressure_due(WEFT_GLOBAL const pt_params *p, weft_u32 t)
{
	return p->pressure != 0u && t >= p->imp_start && t < p->imp_end;
}

/* Whether some importation runs (its agents found through the patches'
 * slots and the newborns' links). */
WEFT_FN int pt_imports_on(WEFT_GLOBAL const pt_params *p)
{
	return p->imp_period != 0u || p->pressure != 0u;
}

/* The control block (buffer ctl). */
#define PT_CTL_STEP   0 /* days done */
#define PT_CTL_ROW    1 /* the next row of the series */
#define PT_CTL_COUNT  2 /* agent slots in use (the dead keep theirs) */
#define PT_CTL_GROUPS 3 /* groups of PT_GROUP slots: pt_agents' extent */
#define PT_CTL_BORN   4 /* births in all */
#define PT_CTL_OVER   5 /* births that found no slot (capacity) */
#define PT_CTL_IMMUNE 6 /* agents immunized by campaigns (sia) in all */
#define PT_CTL_WORDS  8

/* A row of the series: the day, then S, E, I, R of each patch, then (with
 * p->incidence) each patch's new infections since the previous row. Counts
 * (buffer cnt) hold the same four words per patch; the day's changes
 * (buffer delta): newly exposed, newly infectious, newly recovered,
 * deaths from S, E, I and R, the susceptible immunized by a campaign
 * (sia), and the day's deliveries (births by age of mother). */
#define PT_ROW_DAY 0
#define PT_DELTAS                                            \
	9 /* then deaths from S, E, I and R; then immunized; \
	     then deliveries (fertility_rates) */

/* Whether the day that ends at step s (1-based) writes a row. */
WEFT_FN int pt_row_due(WEFT_GLOBAL const pt_params *p, weft_u32 s, weft_u32 row)
{
	return row < p->n_rows && (s % p->every == 0u || s == p->last_step);
}

/* A duration from a table of cumulative thresholds (patches.c's
 * pt_table): the smallest k with draw < cum[k], the last entry taking
 * what is left; a fixed number of integer comparisons. */
WEFT_FN weft_u32 pt_duration(WEFT_GLOBAL const weft_u32 *cum, weft_u32 len,
			     weft_u32 shortest, weft_u32 draw)
{
	weft_u32 lo = 0u, hi = len - 1u;

	while (lo < hi) {
		weft_u32 mid = (lo + hi) >> 1;

		if (draw < cum[mid])
			hi = mid;
		else
			lo = mid + 1u;
	}
	return shortest + lo;
}

#endif
