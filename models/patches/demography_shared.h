/*
 * demography_shared.h - what the patch model's kernels (patches.wk) and its
 * demography (demography.c) share: the words of the demography buffer
 * (ages, mortality by age, the age rows), the age of an agent and its daily
 * chance of death (models/patches/patches.md, "Ages and mortality by age").
 * Written in the kernel dialect; include after patches_shared.h.
 *
 * An agent's date of birth is a day relative to day 0, kept as the 32-bit
 * two's complement word of buffer dob (an agent of 30 years at day 0 was
 * born on day -10950): its age in days on day t is t - dob, computed when
 * it is needed (no daily pass).
 */
#ifndef PATCHES_DEMOGRAPHY_SHARED_H
#define PATCHES_DEMOGRAPHY_SHARED_H

/* Purpose of the draws of the ages at day 0 (agent, 0). */
#define PT_PURPOSE_AGE 32u

/* Buffer demog (read only): a head, then the tables. */
#define PT_DG_MORT   0 /* bins of death_rates; 0: no mortality by age */
#define PT_DG_AGES   1 /* 1: agents have dates of birth */
#define PT_DG_MAXTHR 2 /* the largest of the daily death thresholds */
#define PT_DG_BINS   3 /* bins of the pyramid: ages.csv's columns */
#define PT_DG_EVERY  4 /* a row of ages.csv every this many days */
#define PT_DG_ROWS   5 /* rows of ages.csv, day 0's included */
#define PT_DG_HEAD                                        \
	8 /* then PT_DG_MORT lower edges in days, as many \
	     thresholds, PT_DG_BINS lower edges in days */

/* Buffer ages (a state): a head, then rows of 1 + PT_DG_BINS words (the
 * day, then the living of each bin of the pyramid). */
#define PT_AG_EXTENT 0 /* pt_ages' items today: the groups, or 0 */
#define PT_AG_NEXT   1 /* the next row */
#define PT_AG_ROW    2 /* the row pt_ages counts into */
#define PT_AG_HEAD   4

/* The bin of age (days) among n lower edges, the first 0: the last edge
 * at most age (numpy's digitize less one, as Starsim's ss.Deaths bins). */
WEFT_FN weft_u32 pt_age_bin(WEFT_GLOBAL const weft_u32 *edges, weft_u32 n,
			    weft_u32 age)
{
	weft_u32 k = 0u;

	while (k + 1u < n && age >= edges[k + 1u])
		k++;
	return k;
}

/* Agent a's daily chance of death on day t as a 32-bit threshold: its age
 * bin's with death_rates, the crude rate's (cdr) without. */
WEFT_FN weft_u32 pt_death_thr(WEFT_GLOBAL const pt_params *p,
			      WEFT_GLOBAL const weft_u32 *dg,
			      WEFT_GLOBAL const weft_u32 *dob, weft_u32 t,
			      weft_u32 a)
{
	weft_u32 n = dg[PT_DG_MORT];

	if (n == 0u)
		return p->death_thr;
	return dg[PT_DG_HEAD + n + pt_age_bin(dg + PT_DG_HEAD, n, t - dob[a])];
}

#endif
