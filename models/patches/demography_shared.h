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
/* Purpose of the draw of a slot's sex (slot, 0; fertility_rates). */
#define PT_PURPOSE_FEMALE 33u

/* Buffer demog (read only): a head, then the tables. */
#define PT_DG_MORT   0 /* bins of death_rates; 0: no mortality by age */
#define PT_DG_AGES   1 /* 1: agents have dates of birth */
#define PT_DG_MAXTHR 2 /* the largest of the daily death thresholds */
#define PT_DG_BINS   3 /* bins of the pyramid: ages.csv's columns */
#define PT_DG_EVERY  4 /* a row of ages.csv every this many days */
#define PT_DG_ROWS   5 /* rows of ages.csv, day 0's included */
#define PT_DG_FERT   6 /* where the fertility table starts; 0: none */
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

/* Births by age of mother (fertility_rates; Starsim's ss.Pregnancy): the
 * fertility table in buffer dg from dg[PT_DG_FERT] on. */
#define PT_FERT_MAX  32u /* bins of fertility_rates at most */
#define PT_FT_BINS   0	 /* B, its bins */
#define PT_FT_MIN    1	 /* the youngest mother's age, days */
#define PT_FT_MAX    2	 /* the oldest's (inclusive) */
#define PT_FT_FEMALE 3	 /* the chance of a girl, a threshold */
#define PT_FT_DURLEN 4	 /* entries of the table of pregnancy weeks */
#define PT_FT_DURMIN 5	 /* its shortest, weeks */
#define PT_FT_EDGES                                       \
	6 /* B + 1 edges in days, then B rates per 1000   \
	     women a year (f64, low word first), then the \
	     table of weeks (cumulative thresholds) */

/* With fertility_rates buffer dob holds, after the dates of birth, a word
 * per slot (its pregnancy: PT_PG_FEMALE for a living woman, and while she
 * is pregnant the day of delivery plus PT_PG_BIAS in the low bits; 0 for
 * a man or the dead), then these words: */
#define PT_PG_FEMALE 0x80000000u
#define PT_PG_BIAS   0x100000u /* days before day 0 fit (burn-in) */
#define PT_FA_COUNTS                                        \
	0u /* by the day's parity, PT_FERT_MAX women of     \
	      child-bearing age a bin, then as many of them \
	      pregnant */
#define PT_FA_THR                                                      \
	128u		     /* the day's chances of conception, a bin \
				each, then their largest */
#define PT_FA_CONCEIVED 161u /* conceptions from day 0 on */
#define PT_FA_DELIVERED 162u /* deliveries from day 0 on */
#define PT_FA_WORDS	164u

/* Slot a's pregnancy word at its start: PT_PG_FEMALE with the chance
 * female_share (its own draw, keyed by (seed, a, PT_PURPOSE_FEMALE)),
 * else 0. */
WEFT_FN weft_u32 pt_sex(WEFT_GLOBAL const pt_params *p,
			WEFT_GLOBAL const weft_u32 *ft, weft_u32 a)
{
	weft_u32 t = ft[PT_FT_FEMALE];
	weft_u32 v = weft_philox(p->seed_lo, p->seed_hi, a, 0u, 0u,
				 PT_PURPOSE_FEMALE)
			     .v[0];

	return v < t || t == 0xFFFFFFFFu ? PT_PG_FEMALE : 0u;
}

/* Woman's age (days) as a bin of the fertility table ft: the last edge at
 * most age; B when none has it (younger than the first edge, or past the
 * last bin's upper edge). */
WEFT_FN weft_u32 pt_fert_bin(WEFT_GLOBAL const weft_u32 *ft, weft_u32 age)
{
	weft_u32 B = ft[PT_FT_BINS], k = 0u;

	if (age < ft[PT_FT_EDGES] || age >= ft[PT_FT_EDGES + B])
		return B;
	while (k + 1u < B && age >= ft[PT_FT_EDGES + k + 1u])
		k++;
	return k;
}

/* The day's chances of conception (Starsim's make_p_conceive) from the
 * counts c (PT_FERT_MAX women of child-bearing age a bin, then as many
 * pregnant) into thr (a 32-bit threshold a bin, then their largest): a
 * bin's rate per woman raised to one per woman not pregnant, rate x F /
 * (F - P), and 1 - exp(-rate / 1000 / 365). */
WEFT_FN void pt_fert_thresholds(WEFT_GLOBAL const weft_u32 *ft,
				WEFT_GLOBAL const weft_u32 *c,
				WEFT_GLOBAL weft_u32 *thr)
{
	weft_u32 B = ft[PT_FT_BINS], k, t, top = 0u;
	WEFT_GLOBAL const weft_u32 *r = ft + PT_FT_EDGES + B + 1u;

	for (k = 0u; k < B; k++) {
		weft_f64 rate = weft_u64_as_f64(
			((weft_u64)r[2u * k + 1u] << 32) | r[2u * k]);
		weft_u32 f = c[k], n = c[PT_FERT_MAX + k];
		weft_f64 prob;

		if (f > n)
			rate = rate * (weft_f64)f / (weft_f64)(f - n);
		prob = -weft_expm1(-rate / 1000.0 / 365.0);
		t = pt_chance(prob);
		thr[k] = t;
		top = t > top ? t : top;
	}
	thr[B] = top;
}

/* Slot a's conception today (day; age, the day its age is taken at) from
 * a trial drawn at the largest chance: kept at its bin's chance (pt_thin)
 * when a is a woman of child-bearing age not pregnant, its weeks drawn
 * from word r2. A pregnancy that ends today (delivery) ended first. Returns
 * 0, 1 (conceived) or 3 (conceived, and delivered first). */
WEFT_FN weft_u32 pt_conceive(WEFT_GLOBAL const weft_u32 *ft,
			     WEFT_GLOBAL const weft_u32 *thr,
			     WEFT_GLOBAL const weft_u32 *dob,
			     WEFT_GLOBAL weft_u32 *pg, weft_u32 day,
			     weft_u32 age_day, weft_u32 a, weft_u32 r1,
			     weft_u32 r2)
{
	weft_u32 B = ft[PT_FT_BINS], w = pg[a], low = w & ~PT_PG_FEMALE;
	weft_u32 age, b, weeks, ends;

	/* Pregnant: a delivery after today (the host's burn-in leaves past
	 * ones in place; the kernels clear them on their day). */
	if ((w & PT_PG_FEMALE) == 0u || low > day + PT_PG_BIAS)
		return 0u;
	ends = low == day + PT_PG_BIAS;
	age = age_day - dob[a];
	if (age < ft[PT_FT_MIN] || age > ft[PT_FT_MAX])
		return 0u;
	b = pt_fert_bin(ft, age);
	if (b == B || thr[b] == 0u ||
	    !(thr[b] == thr[B] ||
	      (weft_u64)r1 * thr[B] < ((weft_u64)thr[b] << 32)))
		return 0u;
	weeks = pt_duration(ft + PT_FT_EDGES + 3u * B + 1u, ft[PT_FT_DURLEN],
			    ft[PT_FT_DURMIN], r2);
	pg[a] = PT_PG_FEMALE | (day + 7u * weeks + PT_PG_BIAS);
	return ends ? 3u : 1u;
}

#endif
