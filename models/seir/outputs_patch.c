/*
 * models/seir/outputs_patch.c - the outputs by patch ([seir] patch_file):
 * the patches' layout on the device (their first agents in the tally,
 * their counts in every row of the series, seir.wk's seir_count_band and
 * seir_tally) and by_patch.csv, a row per patch every [output] every
 * days with the day's new infections, new severe, new critical, deaths
 * and new diagnoses of the patch (the measures of by_age.csv).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seir.h"

weft_status weft__seir_patch_layout(weft_model_ctx *mc, seir_params *p,
				    uint32_t n_patches)
{
	uint64_t words = (uint64_t)n_patches * SEIR_BAND_MEASURES;

	p->n_patches = n_patches;
	p->patch_row = SEIR_ROW_WORDS + p->n_bands * SEIR_BAND_MEASURES;
	/* The series' rows are indexed in 32 bits (seir_tally). */
	if (((uint64_t)p->row_words + words) * ((uint64_t)p->n_days + 1) >=
	    UINT32_MAX)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"[seir] patch_file (%s): %u patches over %u days are "
			"more counts than the series can index (2^32 words); "
			"fewer days or patches",
			weft_model_where(mc, "patch_file"), n_patches,
			p->n_days);
	/* The patches' words go after the bands', before the variants' and
	 * the reinfections' (which are placed from the row's end). */
	p->row_words += (uint32_t)words;
	return WEFT_OK;
}

weft_status weft__seir_patch_upload(weft_model_ctx *mc, seir_state *s)
{
	const seir_params *p = &s->params;
	size_t words = SEIR_PATCH_COUNTS(p) - p->patch_off +
		       (size_t)p->n_patches * SEIR_BAND_MEASURES;
	uint32_t *t;
	weft_status st;

	if (!p->n_patches)
		return WEFT_OK;
	if (!(t = calloc(words, sizeof *t)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the patches' %zu "
				       "words of the tally",
				       words);
	memcpy(t, s->patches.start, ((size_t)p->n_patches + 1) * sizeof *t);
	st = weft_model_upload(mc, s->buf[SEIR_BUF_TALLY],
			       (size_t)p->patch_off * 4, t, words * 4);
	free(t);
	return st;
}

weft_status weft__seir_patch_open(weft_model_ctx *mc, seir_state *s)
{
	weft_status st;

	if (!s->params.n_patches || !weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "by_patch.csv", &s->patch_csv)))
		return st;
	return weft_output_printf(s->patch_csv,
				  "day,patch,new_infections,new_severe,"
				  "new_critical,new_deaths,new_diagnoses\n");
}

weft_status weft__seir_patch_row(seir_state *s, uint64_t day,
				 const uint32_t *row)
{
	const uint32_t *by = row + s->params.patch_row;
	weft_status st = WEFT_OK;

	for (uint32_t q = 0; s->patch_csv && q < s->params.n_patches && !st;
	     q++, by += SEIR_BAND_MEASURES)
		st = weft_output_printf(s->patch_csv,
					"%llu,%u,%u,%u,%u,%u,%u\n",
					(unsigned long long)day, q, by[0],
					by[1], by[2], by[3], by[4]);
	return st;
}

/* The patch of agent a (the last whose first agent is at most a). */
static uint32_t patch_of(const seir_patches *pt, uint32_t a)
{
	uint32_t lo = 0, hi = pt->n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;
		if (pt->start[mid] <= a)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

weft_status weft__seir_patch_summary(weft_model_ctx *mc, const seir_state *s,
				     uint64_t days)
{
	const seir_patches *pt = &s->patches;
	uint64_t *inf;
	uint32_t lo = 0, hi = 0;

	if (!pt->n)
		return WEFT_OK;
	weft_model_summary(mc, "patches",
			   "%u (by_patch.csv); community contacts between "
			   "patches: %llu of %llu (%.2f %%; the network's "
			   "share %.2f %%)",
			   pt->n, (unsigned long long)pt->cross,
			   (unsigned long long)pt->entries,
			   pt->entries ? 100.0 * pt->cross / pt->entries : 0.0,
			   100.0 * pt->share);
	if (!(inf = calloc(pt->n, sizeof *inf)))
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the patches' counts");
	/* Infected in all: the seeds of day 0, then each day's. */
	for (uint32_t k = 0; k < s->n_seeds; k++)
		inf[patch_of(pt, s->seeds[k])]++;
	for (uint64_t d = 1; d <= days; d++) {
		const uint32_t *by = s->series + d * s->params.row_words +
				     s->params.patch_row;
		for (uint32_t q = 0; q < pt->n; q++)
			inf[q] += by[q * SEIR_BAND_MEASURES];
	}
	/* From the first patch with agents (there is one). */
	while (!pt->pops[lo])
		lo++;
	hi = lo;
	for (uint32_t q = 0; q < pt->n; q++) {
		double r = pt->pops[q] ? (double)inf[q] / pt->pops[q] : 0;
		if (pt->pops[q] && r < (double)inf[lo] / pt->pops[lo])
			lo = q;
		if (pt->pops[q] && r > (double)inf[hi] / pt->pops[hi])
			hi = q;
	}
	weft_model_summary(
		mc, "infections per agent by patch",
		"%.2f %% (patch %u) to %.2f %% (patch %u)",
		pt->pops[lo] ? 100.0 * inf[lo] / pt->pops[lo] : 0.0, lo,
		pt->pops[hi] ? 100.0 * inf[hi] / pt->pops[hi] : 0.0, hi);
	free(inf);
	return WEFT_OK;
}
