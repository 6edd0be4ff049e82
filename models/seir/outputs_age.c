/*
 * models/seir/outputs_age.c - the outputs by age ([seir] age_bands): the
 * bands parsed, each agent's band kept in the high four bits of its age
 * byte, and by_age.csv, a row every [output] every days with the day's
 * new infections, new severe (hospital admissions), new critical (ICU
 * admissions) and deaths of each band, counted on the device (seir.wk:
 * seir_count_band, written into the series by seir_tally), and its plot.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seir.h"

/* "A-B" or "A+" at *p (blanks around); the bounds in *lo, *hi (255 for
 * "and over"). 0, or -1 when it is not one. */
static int age_band(const char **p, uint32_t *lo, uint32_t *hi)
{
	char *end;
	unsigned long a, b;

	*p += strspn(*p, " \t");
	if (**p < '0' || **p > '9')
		return -1;
	a = strtoul(*p, &end, 10);
	*p = end;
	if (**p == '+') {
		(*p)++;
		b = 255;
	} else if (**p == '-' && (*p)[1] >= '0' && (*p)[1] <= '9') {
		b = strtoul(*p + 1, &end, 10);
		*p = end;
	} else {
		return -1;
	}
	*p += strspn(*p, " \t");
	if (a > 120 || (b > 120 && b != 255))
		return -1;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	return 0;
}

/* The column suffix of band k: "0to17", "65plus". */
static void age_label(seir_age_bands *b, uint32_t k)
{
	if (b->hi[k] == 255 || b->hi[k] >= 120)
		snprintf(b->label[k], sizeof b->label[k], "%uplus",
			 (unsigned)b->lo[k]);
	else
		snprintf(b->label[k], sizeof b->label[k], "%uto%u",
			 (unsigned)b->lo[k], (unsigned)b->hi[k]);
}

int weft__seir_age_bands_parse(const char *text, seir_age_bands *b, char *why,
			       size_t why_size)
{
	const char *p = text;
	uint32_t next = 0, lo, hi;

	memset(b, 0, sizeof *b);
	if (!text[strspn(text, " \t")])
		return 0;
	for (;;) {
		const char *at = p + strspn(p, " \t");
		if (age_band(&p, &lo, &hi) || (*p && *p != ',')) {
			snprintf(why, why_size,
				 "'%.*s': expected a band LO-HI or LO+ (whole "
				 "years, 0 to 120)",
				 (int)strcspn(at, ","), at);
			return -1;
		}
		if (b->n == SEIR_MAX_BANDS) {
			snprintf(why, why_size, "more than %d bands",
				 SEIR_MAX_BANDS);
			return -1;
		}
		if (lo != next || hi < lo) {
			snprintf(why, why_size,
				 "'%.*s': bands must run from 0 upwards "
				 "without gaps or overlaps (this one should "
				 "start at %u)",
				 (int)strcspn(at, ","), at, next);
			return -1;
		}
		b->lo[b->n] = (uint8_t)lo;
		b->hi[b->n] = (uint8_t)hi;
		age_label(b, b->n);
		for (uint32_t a = lo; a <= (hi == 255 ? 255 : hi); a++)
			b->of_age[a] = (uint8_t)b->n;
		b->n++;
		next = hi == 255 ? 256 : hi + 1;
		if (!*p)
			break;
		p++;
	}
	if (next <= 120) {
		snprintf(why, why_size,
			 "the bands end at %u: the last must reach 120 (say "
			 "'%u+')",
			 next - 1, b->lo[b->n - 1]);
		return -1;
	}
	for (uint32_t a = 121; a < 256; a++)
		b->of_age[a] = (uint8_t)(b->n - 1);
	return 0;
}

weft_status weft__seir_age_params(weft_model_ctx *mc, seir_state *s)
{
	const char *text = weft_model_string(mc, "age_bands");
	char why[256];

	if (weft__seir_age_bands_parse(text, &s->bands, why, sizeof why))
		return weft_model_fail(
			mc, WEFT_E_CONFIG, "%s: [seir] age_bands = %s: %s",
			weft_model_where(mc, "age_bands"), text, why);
	s->params.n_bands = s->bands.n;
	s->params.row_words = SEIR_ROW_WORDS + s->bands.n * SEIR_BAND_MEASURES;
	return WEFT_OK;
}

uint8_t weft__seir_age_byte(const seir_state *s, uint8_t age)
{
	uint32_t bin =
		age / 10u < SEIR_AGE_BINS - 1 ? age / 10u : SEIR_AGE_BINS - 1;

	return (uint8_t)(bin | (uint32_t)s->bands.of_age[age]
				       << SEIR_BAND_SHIFT);
}

/* ---- by_age.csv and its plot ------------------------------------------- */

static const char *const age_measures[SEIR_BAND_MEASURES] = {
	"new_infections", "new_severe", "new_critical", "new_deaths",
	"new_diagnoses"
};

/* A colour per band, the same in both panels. */
static const char *const age_colors[SEIR_MAX_BANDS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
	"#8c6d31", "#843c39", "#7b4173", "#000000"
};

/* The plot of by_age.csv: new infections by band, and below, new severe
 * (hospital admissions) by band. */
static weft_status age_plot(weft_model_ctx *mc, const seir_age_bands *b)
{
	char cols[2][SEIR_MAX_BANDS][40], labels[2][SEIR_MAX_BANDS][48];
	weft_plot_curve c[2][SEIR_MAX_BANDS];
	weft_plot_desc pd = {
		.struct_size = sizeof pd,
		.csv = "by_age.csv",
		.title = "SEIR epidemic by age band: new cases per day",
		.x = "day",
		.xlabel = "day",
		.ylabel = "new infections",
		.curves = c[0],
		.n_curves = b->n,
		.ylabel2 = "to hospital (new severe)",
		.curves2 = c[1],
		.n_curves2 = b->n,
	};

	for (int panel = 0; panel < 2; panel++)
		for (uint32_t k = 0; k < b->n; k++) {
			snprintf(cols[panel][k], sizeof cols[panel][k], "%s_%s",
				 age_measures[panel], b->label[k]);
			if (b->hi[k] == 255)
				snprintf(labels[panel][k],
					 sizeof labels[panel][k], "aged %u+",
					 (unsigned)b->lo[k]);
			else
				snprintf(labels[panel][k],
					 sizeof labels[panel][k], "aged %u-%u",
					 (unsigned)b->lo[k],
					 (unsigned)b->hi[k]);
			c[panel][k] = (weft_plot_curve){ cols[panel][k],
							 labels[panel][k],
							 age_colors[k] };
		}
	return weft_model_plot(mc, &pd);
}

weft_status weft__seir_age_open(weft_model_ctx *mc, seir_state *s)
{
	const seir_age_bands *b = &s->bands;
	weft_status st;

	if (!b->n || !weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "by_age.csv", &s->age_csv)) ||
	    (st = weft_output_printf(s->age_csv, "day")))
		return st;
	for (int m = 0; m < SEIR_BAND_MEASURES; m++)
		for (uint32_t k = 0; k < b->n; k++)
			if ((st = weft_output_printf(s->age_csv, ",%s_%s",
						     age_measures[m],
						     b->label[k])))
				return st;
	if ((st = weft_output_printf(s->age_csv, "\n")))
		return st;
	return age_plot(mc, b);
}

weft_status weft__seir_age_row(seir_state *s, uint64_t day, const uint32_t *row)
{
	const uint32_t *by = row + SEIR_ROW_WORDS;
	uint32_t n = s->bands.n;
	weft_status st;

	if (!s->age_csv)
		return WEFT_OK;
	if ((st = weft_output_printf(s->age_csv, "%llu",
				     (unsigned long long)day)))
		return st;
	for (int m = 0; m < SEIR_BAND_MEASURES; m++)
		for (uint32_t k = 0; k < n; k++)
			if ((st = weft_output_printf(
				     s->age_csv, ",%u",
				     by[k * SEIR_BAND_MEASURES + m])))
				return st;
	return weft_output_printf(s->age_csv, "\n");
}
