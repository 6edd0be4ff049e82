/*
 * models/seir/variants.c - [seir] variants: Covasim 3.1's variants with
 * waning immunity (covasim/immunity.py's variant and init_immunity,
 * covasim/parameters.py's get_variant_pars and get_cross_immunity): each
 * variant's transmissibility (rel_beta), its chances of symptoms, severe
 * disease, critical disease and death (their rel_*_prob), the cross
 * immunity between variants, and the days and numbers of its imports, as
 * the table seir_variant_tab after the waning block (seir_shared.h).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "course.h"
#include "seir.h"

/* Covasim 3.1.9's variants (get_variant_pars: rel_beta, rel_symp_prob,
 * rel_severe_prob, rel_crit_prob, rel_death_prob) and its cross immunity
 * (get_cross_immunity[new][recovered], in this order of labels). */
#define VARIANT_KNOWN 5
static const char *const variant_labels[VARIANT_KNOWN] = { "wild", "alpha",
							   "beta", "gamma",
							   "delta" };
static const double variant_rel[VARIANT_KNOWN][5] = {
	{ 1.0, 1.0, 1.0, 1.0, 1.0 }, { 1.67, 1.0, 1.64, 1.0, 1.0 },
	{ 1.0, 1.0, 3.6, 1.0, 1.0 }, { 2.05, 1.0, 2.6, 1.0, 1.0 },
	{ 2.2, 1.0, 3.2, 1.0, 1.0 },
};
static const double variant_cross[VARIANT_KNOWN][VARIANT_KNOWN] = {
	{ 1.0, 0.5, 0.5, 0.34, 0.374 },	     { 0.5, 1.0, 0.8, 0.8, 0.689 },
	{ 0.066, 0.5, 1.0, 0.5, 0.086 },     { 0.34, 0.4, 0.4, 1.0, 0.088 },
	{ 0.374, 0.689, 0.086, 0.088, 1.0 },
};
/* The settings that give a variant's factors, in variant_rel's order. */
static const char *const variant_rel_names[5] = { "rel_beta", "rel_symp_prob",
						  "rel_severe_prob",
						  "rel_crit_prob",
						  "rel_death_prob" };

/* One entry of the variants key. */
typedef struct variant_entry {
	char label[16];
	double day, imports, patch, rel[5];
	int has_label, has_day, has_patch, has_rel[5];
} variant_entry;

static const char variant_names[] =
	"settings: variant, day, imports, patch, rel_beta, rel_symp_prob, "
	"rel_severe_prob, rel_crit_prob, rel_death_prob";

static const char *const variant_forms[][2] = {
	{ "variant", "a label of 1 to 15 letters, digits, '_' or '-'" },
	{ "day", "a whole day from 1 (the first step) to 65000" },
	{ "imports", "a whole number of agents from 0 to 10000" },
	{ "patch", "a patch of patch_file, a whole number from 0" },
	{ NULL, "a number from 0 to 100" },
};

static int variant_set(const char *name, size_t len, const char **p, void *out)
{
	variant_entry *e = out;

#define IS(s) (len == sizeof(s) - 1 && !strncmp(name, s, len))
	if (IS("variant")) {
		size_t n = strspn(*p, "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

		if (n == 0 || n >= sizeof e->label || e->has_label)
			return -1;
		memcpy(e->label, *p, n);
		e->label[n] = '\0';
		*p += n;
		e->has_label = 1;
		return 0;
	}
	if (IS("day")) {
		e->has_day = 1;
		return weft__seir_setting_number(p, 1, 65000, 1, &e->day);
	}
	if (IS("imports"))
		return weft__seir_setting_number(p, 0, 10000, 1, &e->imports);
	if (IS("patch")) {
		e->has_patch = 1;
		return weft__seir_setting_number(p, 0, SEIR_MAX_PATCHES - 1, 1,
						 &e->patch);
	}
	for (int k = 0; k < 5; k++)
		if (len == strlen(variant_rel_names[k]) &&
		    !strncmp(name, variant_rel_names[k], len)) {
			e->has_rel[k] = 1;
			return weft__seir_setting_number(p, 0, 100, 0,
							 &e->rel[k]);
		}
#undef IS
	return -2;
}

static int variant_known(const char *label)
{
	for (int k = 0; k < VARIANT_KNOWN; k++)
		if (!strcmp(label, variant_labels[k]))
			return k;
	return -1;
}

/* "FILE:LINE: [seir] key = value: why" */
static weft_status variant_bad(weft_model_ctx *mc, const char *key,
			       const char *why)
{
	return weft_model_fail(mc, WEFT_E_CONFIG, "%s: [seir] %s = %s: %s",
			       weft_model_where(mc, key), key,
			       weft_model_string(mc, key), why);
}

/* The variant of label e->label: an index of s->var_label (a new one
 * with its factors, Covasim's for known labels, else 1, and any the
 * entry sets), or -1 with why. */
static int variant_index(seir_state *s, const variant_entry *e, double *rel,
			 char *why, size_t why_size)
{
	seir_variant_tab *t = &s->var;
	int known = variant_known(e->label), set = 0;

	for (int k = 0; k < 5; k++)
		set |= e->has_rel[k];
	for (uint32_t v = 1; v < t->n; v++) {
		if (strcmp(s->var_label[v], e->label) != 0)
			continue;
		if (!set)
			return (int)v;
		snprintf(why, why_size,
			 "'%s' is imported again: its factors go on its "
			 "first entry",
			 e->label);
		return -1;
	}
	if (t->n == SEIR_VARIANTS) {
		snprintf(why, why_size, "at most %u variants besides wild",
			 SEIR_VARIANTS - 1);
		return -1;
	}
	for (int k = 0; k < 5; k++)
		rel[t->n * 5 + k] = e->has_rel[k] ? e->rel[k]
				    : known >= 0  ? variant_rel[known][k]
						  : 1.0;
	snprintf(s->var_label[t->n], sizeof s->var_label[t->n], "%s", e->label);
	return (int)t->n++;
}

/* One entry into the variants and the imports: 0, or -1 with why. */
static int variant_entry_add(seir_state *s, const char **p, double *rel,
			     char *why, size_t why_size)
{
	seir_variant_tab *t = &s->var;
	variant_entry e;
	const char *at = *p + strspn(*p, " \t");
	int n = (int)strcspn(at, ","), v;

	memset(&e, 0, sizeof e);
	e.imports = 1; /* Covasim's n_imports */
	if (weft__seir_settings_entry(p, variant_set, &e, variant_names,
				      variant_forms, why, why_size))
		return -1;
	if (!e.has_label || !e.has_day) {
		snprintf(why, why_size, "'%.*s': needs variant=LABEL and day=D",
			 n, at);
		return -1;
	}
	if (!strcmp(e.label, "wild")) {
		snprintf(why, why_size,
			 "'%.*s': wild is the seeds' variant; give another "
			 "label",
			 n, at);
		return -1;
	}
	if ((v = variant_index(s, &e, rel, why, why_size)) < 0)
		return -1;
	if (t->n_imports == SEIR_IMPORTS) {
		snprintf(why, why_size, "at most %u entries", SEIR_IMPORTS);
		return -1;
	}
	t->imp[t->n_imports++] =
		(seir_import){ .day = (uint32_t)e.day,
			       .variant = (uint32_t)v,
			       .count = (uint32_t)e.imports,
			       .patch = e.has_patch ? (uint32_t)e.patch
						    : SEIR_NONE };
	return 0;
}

weft_status weft__seir_imports_place(weft_model_ctx *mc, seir_state *s)
{
	const seir_patches *pt = &s->patches;
	char why[160];

	for (uint32_t i = 0; i < s->var.n_imports; i++) {
		seir_import *im = &s->var.imp[i];
		uint32_t q = im->patch;

		im->first = 0;
		im->span = s->n_agents;
		if (q == SEIR_NONE)
			continue;
		if (q >= pt->n) {
			snprintf(why, sizeof why, "entry %u: patch=%u, but %s",
				 i + 1, q,
				 pt->n ? "patch_file has fewer patches"
				       : "there is no patch_file");
			return variant_bad(mc, "variants", why);
		}
		if (!pt->pops[q]) {
			snprintf(why, sizeof why,
				 "entry %u: patch=%u has no agents", i + 1, q);
			return variant_bad(mc, "variants", why);
		}
		im->first = pt->start[q];
		im->span = pt->pops[q];
	}
	return WEFT_OK;
}

/* variant_immunity: n rows of n numbers, or Covasim's defaults. */
static weft_status variant_immunity(weft_model_ctx *mc, seir_state *s,
				    double *imm)
{
	const char *text = weft_model_string(mc, "variant_immunity");
	uint32_t n = s->var.n;
	char why[160];

	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++) {
			int ka = variant_known(s->var_label[a]);
			int kb = variant_known(s->var_label[b]);

			imm[a * n + b] = ka >= 0 && kb >= 0
						 ? variant_cross[ka][kb]
						 : 1.0;
		}
	if (!*text)
		return WEFT_OK;
	for (uint32_t a = 0; a < n; a++) {
		for (uint32_t b = 0; b < n; b++) {
			char *end;
			double x = weft__seir_strtod(text, &end);

			if (end == text || !(x >= 0.0 && x <= 100.0))
				goto bad;
			text = end + strspn(end, " \t");
			if (*text != (b + 1 < n ? ',' : a + 1 < n ? ';' : '\0'))
				goto bad;
			text += *text ? 1 : 0;
			imm[a * n + b] = x;
		}
	}
	return WEFT_OK;
bad:
	snprintf(why, sizeof why,
		 "expected %u rows of %u numbers from 0 to 100 (',' between "
		 "numbers, ';' between rows: wild, then %s...)",
		 n, n, s->var_label[1]);
	return variant_bad(mc, "variant_immunity", why);
}

/* The table from the factors and the cross immunity. */
static void variant_table(weft_model_ctx *mc, seir_state *s, const double *rel,
			  const double *imm)
{
	seir_variant_tab *t = &s->var;
	double fh = weft_model_real(mc, "no_hosp_factor");
	double fi = weft_model_real(mc, "no_icu_factor");

	for (uint32_t v = 0; v < t->n; v++) {
		t->rel_beta_q16[v] =
			(uint32_t)lround(rel[v * 5] * SEIR_Q16_ONE);
		weft__seir_risk_variant(&s->params.risk, rel + v * 5 + 1, fh,
					fi, &t->risk[v]);
		for (uint32_t r = 0; r < t->n; r++) {
			double x = imm[v * t->n + r];

			t->imm_log[v][r] = x <= 0.0
						   ? SEIR_IMM_NONE
						   : (uint32_t)(int32_t)lround(
							     log2(x) * 65536.0);
		}
	}
	/* The seeds' variant keeps the base chances exactly. */
	t->risk[0] = s->params.risk;
}

weft_status weft__seir_variants_params(weft_model_ctx *mc, seir_state *s)
{
	const char *text = weft_model_string(mc, "variants");
	double rel[SEIR_VARIANTS * 5] = { 1.0, 1.0, 1.0, 1.0, 1.0 };
	double imm[SEIR_VARIANTS * SEIR_VARIANTS];
	char why[320];
	weft_status st;

	memset(&s->var, 0, sizeof s->var);
	s->var.n = 1;
	snprintf(s->var_label[0], sizeof s->var_label[0], "wild");
	if (!*text) {
		if (*weft_model_string(mc, "variant_immunity"))
			return variant_bad(mc, "variant_immunity",
					   "needs [seir] variants");
		return WEFT_OK;
	}
	if (!(s->params.opts & SEIR_OPT_WANING))
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: [seir] variants needs waning "
				       "immunity (%s: [seir] waning = true): "
				       "an agent's variant and its cross "
				       "immunity are kept with its NAbs",
				       weft_model_where(mc, "variants"),
				       weft_model_where(mc, "waning"));
	while (*text) {
		if (variant_entry_add(s, &text, rel, why, sizeof why))
			return variant_bad(mc, "variants", why);
		text += *text == ',' ? 1 : 0;
	}
	if ((st = variant_immunity(mc, s, imm)))
		return st;
	variant_table(mc, s, rel, imm);
	s->params.opts |= SEIR_OPT_VARIANTS;
	s->params.row_words += s->var.n;
	return WEFT_OK;
}

size_t weft__seir_variants_words(const seir_state *s)
{
	if (!(s->params.opts & SEIR_OPT_VARIANTS))
		return 0;
	return (size_t)s->n_agents + SEIR_VARIANTS;
}

void weft__seir_variants_header(const seir_state *s, char *out, size_t size)
{
	size_t at = 0;

	out[0] = '\0';
	for (uint32_t v = 0;
	     (s->params.opts & SEIR_OPT_VARIANTS) && v < s->var.n && at < size;
	     v++)
		at += (size_t)snprintf(out + at, size - at,
				       ",new_infections_%s", s->var_label[v]);
}

void weft__seir_variants_row(const seir_state *s, const uint32_t *r, char *out,
			     size_t size)
{
	uint32_t n = s->var.n, col = s->params.row_words - 1 - n;
	size_t at = 0;

	out[0] = '\0';
	for (uint32_t v = 0;
	     (s->params.opts & SEIR_OPT_VARIANTS) && v < n && at < size; v++)
		at += (size_t)snprintf(out + at, size - at, ",%u", r[col + v]);
}

void weft__seir_variants_summary(weft_model_ctx *mc, const seir_state *s,
				 uint64_t days)
{
	uint32_t n = s->var.n, col = s->params.row_words - 1 - n;
	char line[512];
	size_t at = 0;

	if (!(s->params.opts & SEIR_OPT_VARIANTS))
		return;
	line[0] = '\0';
	for (uint32_t v = 0; v < n && at < sizeof line; v++) {
		uint64_t sum = 0;

		for (uint64_t d = 0; d <= days; d++)
			sum += s->series[d * s->params.row_words + col + v];
		at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %llu",
				       v ? ", " : "", s->var_label[v],
				       (unsigned long long)sum);
	}
	weft_model_summary(mc, "variants", "infections by variant: %s", line);
}
