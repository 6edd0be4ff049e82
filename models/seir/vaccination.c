/*
 * models/seir/vaccination.c - vaccination campaigns ([seir]
 * vaccine_campaigns, and the vaccine_doses keys as campaign 0): their
 * syntax, their orders (who is next, built once on the host: a random
 * permutation of the campaign's age group, by priority, cut at its
 * coverage) and their efficacies. The doses themselves are given on the
 * device (seir.wk: seir_campaign, a launch per campaign).
 *
 *   vaccine_campaigns = days=30-200 doses=2000 coverage=0.6 ages=50+
 *                       priority=oldest second=21, days=60- doses=500 ...
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "seir.h"

#define SEIR_PURPOSE_ORDER 104u /* as seir_init.c's */

/* Covasim 3.1.9's vaccines (covasim/parameters.py): their doses
 * (get_vaccine_dose_pars: nab_init's mean and standard deviation,
 * nab_boost, doses, interval) and their weights against the variants
 * wild, alpha, beta, gamma and delta (get_vaccine_variant_pars; 1
 * against other variants). */
#define VAC_KNOWN 8
static const struct vac_known {
	const char *name;
	double mean, sd, boost;
	uint32_t doses, interval;
	double variant[5];
} vac_known[VAC_KNOWN] = {
	{ "default", 0, 2, 2, 1, 0, { 1, 1, 1, 1, 1 } },
	{ "pfizer",
	  -1,
	  2,
	  4,
	  2,
	  21,
	  { 1, 1 / 2.0, 1 / 10.3, 1 / 6.7, 1 / 2.9 } },
	{ "moderna",
	  -1,
	  2,
	  8,
	  2,
	  28,
	  { 1, 1 / 1.8, 1 / 4.5, 1 / 8.6, 1 / 2.9 } },
	{ "az", -1.5, 2, 2, 2, 21, { 1, 1 / 2.3, 1 / 9.0, 1 / 2.9, 1 / 6.2 } },
	{ "jj", 1, 2, 3, 1, 0, { 1, 1, 1 / 3.6, 1 / 3.4, 1 / 1.6 } },
	{ "novavax",
	  -0.9,
	  2,
	  3,
	  2,
	  21,
	  { 1, 1 / 1.12, 1 / 4.7, 1 / 8.6, 1 / 6.2 } },
	{ "sinovac",
	  -2,
	  2,
	  2,
	  2,
	  14,
	  { 1, 1 / 1.12, 1 / 4.7, 1 / 8.6, 1 / 6.2 } },
	{ "sinopharm",
	  -1,
	  2,
	  2,
	  2,
	  21,
	  { 1, 1 / 1.12, 1 / 4.7, 1 / 8.6, 1 / 6.2 } },
};
static const char *const vac_variants[5] = { "wild", "alpha", "beta", "gamma",
					     "delta" };

/* ---- syntax ---------------------------------------------------------- */

/* A number in [lo, hi] at *p; 0, or -1. */
static int vac_number(const char **p, double lo, double hi, double *v)
{
	char *end;

	*v = weft__seir_strtod(*p, &end);
	if (end == *p || !(*v >= lo && *v <= hi))
		return -1;
	*p = end;
	return 0;
}

/* Whole years "LO-HI" or "LO+" at *p; 0, or -1. */
static int vac_ages(const char **p, uint32_t *lo, uint32_t *hi)
{
	double a, b = 255;

	if (vac_number(p, 0, 120, &a) || a != floor(a))
		return -1;
	if (**p == '+')
		(*p)++;
	else if (**p != '-' || (++*p, vac_number(p, a, 120, &b)) ||
		 b != floor(b))
		return -1;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	return 0;
}

/* "oldest", "random" or "AGES/AGES/..." at *p (up to a blank). */
static int vac_priority(const char **p, seir_campaign_spec *c)
{
	size_t n = strcspn(*p, " \t,");

	if (n == 6 && !strncmp(*p, "oldest", 6)) {
		c->oldest = 1;
		*p += n;
		return 0;
	}
	if (n == 6 && !strncmp(*p, "random", 6)) {
		*p += n;
		return 0;
	}
	for (;;) {
		if (c->n_prio == SEIR_MAX_BANDS ||
		    vac_ages(p, &c->prio_lo[c->n_prio], &c->prio_hi[c->n_prio]))
			return -1;
		c->n_prio++;
		if (**p != '/')
			return 0;
		(*p)++;
	}
}

/* The value of setting `name` at *p into c. */
static int vac_setting(const char *name, size_t len, const char **p,
		       seir_campaign_spec *c)
{
	double v, w;

#define IS(s) (len == sizeof(s) - 1 && !strncmp(name, s, len))
	if (IS("days")) {
		if (vac_number(p, 1, 1e9, &v) || v != floor(v) || **p != '-')
			return -1;
		(*p)++;
		w = SEIR_FOREVER;
		if (**p && **p != ' ' && **p != '\t' && **p != ',' &&
		    (vac_number(p, v, 1e9, &w) || w != floor(w)))
			return -1;
		c->first = (uint32_t)v;
		c->last = (uint32_t)w;
		c->has_days = 1;
	} else if (IS("doses")) {
		if (vac_number(p, 1, 2e9, &v) || v != floor(v))
			return -1;
		c->doses = (uint32_t)v;
	} else if (IS("prob")) {
		if (vac_number(p, 0, 1, &c->prob) || !(c->prob > 0))
			return -1;
	} else if (IS("coverage")) {
		if (vac_number(p, 0, 1, &c->coverage))
			return -1;
	} else if (IS("ages")) {
		return vac_ages(p, &c->age_lo, &c->age_hi);
	} else if (IS("priority")) {
		return vac_priority(p, c);
	} else if (IS("second")) {
		if (vac_number(p, 1, 1000, &v) || v != floor(v))
			return -1;
		c->interval = (uint32_t)v;
		c->has_interval = 1;
	} else if (IS("vaccine")) {
		size_t n = strcspn(*p, " \t,");

		c->vaccine = 0;
		for (int k = 0; k < VAC_KNOWN; k++)
			if (n == strlen(vac_known[k].name) &&
			    !strncmp(*p, vac_known[k].name, n))
				c->vaccine = k + 1;
		*p += n;
		return c->vaccine ? 0 : -1;
	} else if (IS("efficacy") || IS("symptoms") || IS("severe") ||
		   IS("first")) {
		if (vac_number(p, 0, 1, &v))
			return -1;
		c->has_ve = 1;
		*(IS("efficacy")   ? &c->ve[SEIR_VE_INF]
		  : IS("symptoms") ? &c->ve[SEIR_VE_SYMP]
		  : IS("severe")   ? &c->ve[SEIR_VE_SEV]
				   : &c->first_dose) = v;
	} else {
		return -2;
	}
#undef IS
	return 0;
}

/* What a setting's value must be, for messages. */
static const char *const vac_forms[][2] = {
	{ "days", "FIRST-LAST or FIRST- (whole days from 1)" },
	{ "doses", "a whole number of first doses a day, from 1" },
	{ "prob", "a daily chance above 0, at most 1" },
	{ "ages", "LO-HI or LO+ (whole years, 0 to 120)" },
	{ "priority", "oldest, random or bands AGES/AGES/..." },
	{ "second", "whole days from 1 to 1000" },
	{ "vaccine",
	  "one of Covasim's: default, pfizer, moderna, az, jj, novavax, "
	  "sinovac, sinopharm" },
	{ NULL, "a number from 0 to 1" },
};

static const char vac_settings[] =
	"days, doses, prob, coverage, ages, priority, second, vaccine, "
	"efficacy, symptoms, severe, first";

static int vac_set(const char *name, size_t len, const char **p, void *c)
{
	return vac_setting(name, len, p, c);
}

/* One campaign, "NAME=VALUE ..." up to a comma, into c (defaults set by
 * the caller): 0, or -1 with why. */
static int vac_campaign(const char **p, seir_campaign_spec *c, char *why,
			size_t why_size)
{
	const char *at = *p + strspn(*p, " \t");
	int n = (int)strcspn(at, ",");

	if (weft__seir_settings_entry(p, vac_set, c, vac_settings, vac_forms,
				      why, why_size))
		return -1;
	if (c->doses && c->prob > 0) {
		snprintf(why, why_size,
			 "'%.*s': doses= and prob= both given: a campaign "
			 "gives its doses by number or by chance",
			 n, at);
		return -1;
	}
	if (!c->has_days || !(c->doses || c->prob > 0)) {
		snprintf(why, why_size,
			 "'%.*s': needs days=FIRST-LAST and one of doses=N "
			 "(first doses a day) and prob=F (each agent's daily "
			 "chance)",
			 n, at);
		return -1;
	}
	if (c->prob > 0 && (c->oldest || c->n_prio)) {
		snprintf(why, why_size,
			 "'%.*s': prob= gives every agent of the group its "
			 "chance each day, in no order: not with "
			 "priority=oldest or bands",
			 n, at);
		return -1;
	}
	if (c->vaccine && c->has_ve) {
		snprintf(why, why_size,
			 "'%.*s': a vaccine with NAbs (vaccine=) takes no "
			 "efficacy, symptoms, severe or first: its NAbs decide",
			 n, at);
		return -1;
	}
	/* A two-dose vaccine's interval, unless second= sets one. */
	if (c->vaccine && !c->has_interval)
		c->interval = vac_known[c->vaccine - 1].interval;
	return 0;
}

int weft__seir_campaigns_parse(const char *text,
			       const seir_campaign_spec *defaults,
			       seir_campaign_spec *out, uint32_t *n,
			       uint32_t max, char *why, size_t why_size)
{
	const char *p = text;

	*n = 0;
	if (!text[strspn(text, " \t")])
		return 0;
	for (;;) {
		if (*n == max) {
			snprintf(why, why_size,
				 "more than %u campaigns (at most %d, the "
				 "vaccine_doses keys counting as one)",
				 max, SEIR_CAMPAIGNS);
			return -1;
		}
		out[*n] = *defaults;
		if (vac_campaign(&p, &out[*n], why, why_size))
			return -1;
		(*n)++;
		if (!*p)
			return 0;
		p++;
	}
}

/* ---- the keys ----------------------------------------------------------- */

/* The defaults of every campaign: the global efficacy keys, all ages,
 * everyone (coverage 1), random order, one dose. */
static void vac_defaults(weft_model_ctx *mc, seir_campaign_spec *d)
{
	memset(d, 0, sizeof *d);
	d->coverage = 1.0;
	d->age_hi = 255;
	d->last = SEIR_FOREVER;
	d->ve[SEIR_VE_INF] = weft_model_real(mc, "vaccine_efficacy");
	d->ve[SEIR_VE_SYMP] = weft_model_real(mc, "vaccine_efficacy_symptoms");
	d->ve[SEIR_VE_SEV] = weft_model_real(mc, "vaccine_efficacy_severe");
	d->first_dose = weft_model_real(mc, "vaccine_first_dose");
}

/* A campaign's efficacies into the kernels' factors: after the second
 * dose (or the only one) the efficacy, after the first of two its
 * first_dose part. */
static void vac_factors(const seir_campaign_spec *c, seir_campaign *k)
{
	/* A vaccine with NAbs: its NAbs protect (seir_vx_tab), no constant
	 * efficacy. */
	if (c->vaccine) {
		for (int e = 0; e < SEIR_VE_KINDS; e++)
			k->left_q16[0][e] = k->left_q16[1][e] = SEIR_Q16_ONE;
		return;
	}
	for (int e = 0; e < SEIR_VE_KINDS; e++) {
		double one = c->interval ? c->first_dose * c->ve[e] : c->ve[e];
		k->left_q16[0][e] = weft__seir_q16(1.0 - one);
		k->left_q16[1][e] = weft__seir_q16(1.0 - c->ve[e]);
	}
}

/* A campaign by chance: its daily chance as a 32-bit threshold
 * (seir_campaign_trial; at least 1, so that a chance below 2^-32 is not
 * none). */
static void vac_chance(double prob, seir_campaign *k)
{
	uint32_t t = weft__seir_threshold(prob);

	k->prob_thr = prob > 0 && t == 0 ? 1u : t;
}

weft_status weft__seir_vaccination_params(weft_model_ctx *mc, seir_state *s)
{
	const char *text = weft_model_string(mc, "vaccine_campaigns");
	seir_campaign_spec d;
	uint32_t n = 0, legacy = 0;
	char why[300];

	vac_defaults(mc, &d);
	if (weft_model_int(mc, "vaccine_doses") > 0) {
		/* The simple keys: campaign 0, from vaccine_start on. */
		s->camps[0] = d;
		s->camps[0].first =
			(uint32_t)weft_model_int(mc, "vaccine_start");
		s->camps[0].doses =
			(uint32_t)weft_model_int(mc, "vaccine_doses");
		s->camps[0].oldest = !strcmp(
			weft_model_string(mc, "vaccine_priority"), "oldest");
		legacy = 1;
	}
	if (weft__seir_campaigns_parse(text, &d, s->camps + legacy, &n,
				       SEIR_CAMPAIGNS - legacy, why,
				       sizeof why))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] vaccine_campaigns = %s: %s",
			weft_model_where(mc, "vaccine_campaigns"), text, why);
	s->params.n_campaigns = n + legacy;
	for (uint32_t c = 0; c < s->params.n_campaigns; c++) {
		seir_campaign *k = &s->params.camp[c];
		k->first = s->camps[c].first;
		k->last = s->camps[c].last;
		k->doses = s->camps[c].doses;
		k->interval = s->camps[c].interval;
		vac_chance(s->camps[c].prob, k);
		vac_factors(&s->camps[c], k);
	}
	return WEFT_OK;
}

/* ---- the orders ------------------------------------------------------------
 */

static uint32_t vac_below(uint32_t draw, uint32_t n)
{
	return (uint32_t)(((uint64_t)draw * n) >> 32);
}

/* Campaign c's rank of an age: its place in the priority list (the
 * listed bands first, in order; the others after them), or the age
 * itself reversed (oldest first), or 0 (random). */
static uint32_t vac_rank(const seir_campaign_spec *c, uint8_t age)
{
	if (c->oldest)
		return 255u - age;
	for (uint32_t k = 0; k < c->n_prio; k++)
		if (age >= c->prio_lo[k] && age <= c->prio_hi[k])
			return k;
	return c->n_prio;
}

/* A random permutation of the agents (Fisher-Yates, swap i keyed by
 * (i, campaign)); campaign 0's is the one weft has always drawn. */
static int vac_permute(weft_model_ctx *mc, const seir_params *p, uint32_t c,
		       uint32_t n, uint32_t *perm)
{
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		weft_rand4 r = weft_philox(p->seed_lo, p->seed_hi, i - 1, 0u, c,
					   SEIR_PURPOSE_ORDER);
		uint32_t j = vac_below(r.v[0], i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
		if (i % 65536 == 0 && weft_model_cancelled(mc))
			return -1;
	}
	return 0;
}

/* Campaign c's order into out: its age group from the permutation, by
 * rank (a stable counting sort, so that ties stay random); its size. */
static uint32_t vac_order(const seir_campaign_spec *c, const uint8_t *age,
			  const uint32_t *perm, uint32_t n, uint32_t *out)
{
	uint32_t count[257] = { 0 }, size = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint8_t a = age[perm[k]];
		if (a >= c->age_lo && a <= c->age_hi)
			count[vac_rank(c, a) + 1]++;
	}
	for (int r = 0; r < 256; r++)
		count[r + 1] += count[r];
	for (uint32_t k = 0; k < n; k++) {
		uint8_t a = age[perm[k]];
		if (a < c->age_lo || a > c->age_hi)
			continue;
		out[count[vac_rank(c, a)]++] = perm[k];
		size++;
	}
	return size;
}

weft_status weft__seir_vaccination_orders(weft_model_ctx *mc, seir_state *s,
					  const seir_population *pop,
					  uint32_t **orders, size_t *len)
{
	uint32_t n = s->n_agents, nc = s->params.n_campaigns;
	uint32_t *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
	uint32_t *all = malloc(((size_t)n * nc + 1) * sizeof *all);
	size_t at = 0;

	if (!perm || !all) {
		free(perm);
		free(all);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the vaccination orders",
				       (size_t)n * (nc + 1) * 4);
	}
	for (uint32_t c = 0; c < nc; c++) {
		seir_campaign *k = &s->params.camp[c];
		uint32_t size;
		if (vac_permute(mc, &s->params, c, n, perm)) {
			free(perm);
			free(all);
			return weft_model_fail(mc, WEFT_E_CANCELLED,
					       "cancelled while drawing the "
					       "vaccination orders");
		}
		size = vac_order(&s->camps[c], pop->age, perm, n, all + at);
		k->order_off = (uint32_t)at;
		k->n_target =
			(uint32_t)floor(s->camps[c].coverage * size + 0.5);
		k->items = k->doses && k->doses < k->n_target ? k->doses
							      : k->n_target;
		s->camps[c].group = size;
		at += k->n_target;
	}
	free(perm);
	*orders = all;
	*len = at;
	return WEFT_OK;
}

/* ---- the summary --------------------------------------------------------- */

/* "aged 50+" / "aged 0-17" / "of all ages". */
static void vac_group(const seir_campaign_spec *c, char *buf, size_t size)
{
	if (c->age_lo == 0 && c->age_hi >= 120)
		snprintf(buf, size, "of all ages");
	else if (c->age_hi >= 120)
		snprintf(buf, size, "aged %u+", c->age_lo);
	else
		snprintf(buf, size, "aged %u-%u", c->age_lo, c->age_hi);
}

void weft__seir_vaccination_summary(weft_model_ctx *mc, const seir_state *s,
				    const uint32_t *last)
{
	uint32_t n = s->n_agents, doses[SEIR_CAMPAIGNS][3] = { { 0 } };
	uint8_t *care = NULL;
	char group[48];

	weft_model_summary(mc, "vaccinated", "%u (%u with every dose)",
			   last[SEIR_R_VAC], last[SEIR_R_FULL]);
	if (!s->params.n_campaigns || !(care = malloc(n ? n : 1)))
		return;
	if (weft_model_download(mc, care, s->buf[SEIR_BUF_CARE], 0, n) ==
	    WEFT_OK)
		for (uint32_t i = 0; i < n; i++)
			doses[(care[i] & SEIR_CARE_CAMP) >>
			      SEIR_CARE_CAMP_SHIFT]
			     [care[i] & SEIR_CARE_DOSES]++;
	free(care);
	for (uint32_t c = 0; c < s->params.n_campaigns; c++) {
		const seir_campaign_spec *cs = &s->camps[c];
		uint32_t first = doses[c][1] + doses[c][2];
		char key[32];
		vac_group(cs, group, sizeof group);
		snprintf(key, sizeof key, "campaign %u", c + 1);
		weft_model_summary(
			mc, key,
			"%u of %u agents %s vaccinated (%.1f %%; coverage "
			"%.1f %%), %u with %s",
			first, cs->group, group,
			cs->group ? 100.0 * first / cs->group : 0.0,
			100.0 * cs->coverage,
			cs->interval ? doses[c][2] : first,
			cs->interval ? "both doses" : "its one dose");
	}
}

/* ---- vaccines with NAbs ----------------------------------------------------
 */

/* log2 of a vaccine's weight against variant `label`, Q16 signed. */
static uint32_t vac_weight(const struct vac_known *v, const char *label)
{
	double x = 1.0;

	for (int k = 0; k < 5; k++)
		if (!strcmp(label, vac_variants[k]))
			x = v->variant[k];
	return (uint32_t)(int32_t)lround(log2(x) * 65536.0);
}

weft_status weft__seir_vaccine_nabs(weft_model_ctx *mc, seir_state *s)
{
	seir_vx_tab *t = &s->vx;
	int any = 0;

	memset(t, 0, sizeof *t);
	for (uint32_t c = 0; c < s->params.n_campaigns; c++) {
		const struct vac_known *v;

		if (!s->camps[c].vaccine)
			continue;
		v = &vac_known[s->camps[c].vaccine - 1];
		any = 1;
		t->on[c] = 1;
		t->boost_q16[c] = weft__seir_q16(v->boost);
		t->boost_log_q16[c] =
			(uint32_t)(int32_t)lround(log2(v->boost) * 65536.0);
		for (uint32_t k = 0; k < s->var.n; k++)
			t->imm_log[c][k] = vac_weight(v, s->var_label[k]);
		weft__seir_nab_law(&t->law[c], v->mean, v->sd);
	}
	if (!any)
		return WEFT_OK;
	if (!(s->params.opts & SEIR_OPT_WANING))
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: [seir] vaccine_campaigns: a "
			"vaccine with NAbs (vaccine=) needs "
			"waning immunity (%s: [seir] waning = "
			"true)",
			weft_model_where(mc, "vaccine_campaigns"),
			weft_model_where(mc, "waning"));
	s->params.opts |= SEIR_OPT_VXNAB;
	return WEFT_OK;
}
