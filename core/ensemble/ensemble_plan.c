/*
 * core/ensemble/ensemble_plan.c - an ensemble's runs: [sweep] lists and ranges
 * expanded into points, [scenario NAME] overrides, their product, and
 * every scenario's configuration built and validated before any run.
 *
 * A scenario's configuration is a copy of the base with its overrides
 * stored as if the file had set them at their own lines: a bad value is
 * reported with that file and line, by the same checks as the base's
 * keys, the model's included.
 */
#include "config/cfg.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble/ensemble.h"

/* A [sweep] key and its values, or a [scenario] override (one value). */
typedef struct plan_axis {
	const struct cfg_raw *raw; /* "section.key", its values, its line */
	char **values;
	size_t n;
} plan_axis;

static void axis_free(plan_axis *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->values[i]);
	free(a->values);
}

static weft_status axis_add(weft_context *ctx, plan_axis *a, const char *v,
			    size_t len)
{
	char **grown = realloc(a->values, (a->n + 1) * sizeof *grown);

	if (!grown || !(grown[a->n] = strndup(v, len))) {
		if (grown)
			a->values = grown;
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	a->values = grown;
	a->n++;
	return WEFT_OK;
}

/* A value of a list, once: two runs of the same point would write the
 * same files. */
static weft_status axis_new(weft_context *ctx, const char *where, plan_axis *a,
			    const char *v, size_t len)
{
	for (size_t i = 0; i < a->n; i++)
		if (strlen(a->values[i]) == len &&
		    strncmp(a->values[i], v, len) == 0)
			return weft__fail(ctx, WEFT_E_CONFIG,
					  "%s: '%.*s' is listed twice; each "
					  "value once",
					  where, (int)len, v);
	return axis_add(ctx, a, v, len);
}

/* "FILE:LINE: [sweep] section.key = value" for messages. */
static void plan_where(char *buf, size_t size, const weft_config *cfg,
		       const char *sec, const struct cfg_raw *r)
{
	weft__fmt(buf, size, "%s:%d: [%s] %s = %s",
		  cfg->t->path ? cfg->t->path : "(no file)", r->line, sec,
		  r->key, r->value);
}

/* A number of a range: the whole text, finite. */
static int plan_number(const char *s, size_t len, double *v, int *is_int)
{
	char buf[64], *end;

	if (!len || len >= sizeof buf)
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	*is_int &= strspn(buf, "+-0123456789") == len;
	return *end == '\0' && isfinite(*v);
}

/* start:stop:step, stop included when it is reached within rounding
 * (a millionth of a step): 0.01:0.05:0.01 is five values. */
static weft_status plan_range(weft_context *ctx, const char *where,
			      const char *text, plan_axis *a)
{
	const char *c1 = strchr(text, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
	double start, stop, step;
	int is_int = 1;
	char num[64];
	size_t n;

	if (!c2 || strchr(c2 + 1, ':') ||
	    !plan_number(text, (size_t)(c1 - text), &start, &is_int) ||
	    !plan_number(c1 + 1, (size_t)(c2 - c1 - 1), &stop, &is_int) ||
	    !plan_number(c2 + 1, strlen(c2 + 1), &step, &is_int))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: a range is start:stop:step, three "
				  "numbers (0.01:0.05:0.01)",
				  where);
	if (step == 0.0 || (stop - start) / step < 0.0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: a step of %g never goes from %g to %g; "
				  "give a step of the sign of stop - start, "
				  "not 0",
				  where, step, start, stop);
	if ((stop - start) / step + 1e-6 >= WEFT__ENS_MAX_RUNS)
		return weft__fail(ctx, WEFT_E_CONFIG, "%s: more than %d values",
				  where, WEFT__ENS_MAX_RUNS);
	n = (size_t)floor((stop - start) / step + 1e-6) + 1;
	for (size_t i = 0; i < n; i++) {
		double v = start + (double)i * step;
		weft__fmt(num, sizeof num, is_int ? "%.0f" : "%.12g", v);
		if (axis_add(ctx, a, num, strlen(num)))
			return WEFT_E_NOMEM;
	}
	return WEFT_OK;
}

/* v1, v2, ... or a range. */
static weft_status plan_values(weft_context *ctx, const weft_config *cfg,
			       const struct cfg_raw *r, plan_axis *a)
{
	char where[WEFT__MSG_MAX / 2];
	const char *p = r->value;

	plan_where(where, sizeof where, cfg, "sweep", r);
	a->raw = r;
	if (strchr(p, ':') && !strchr(p, ','))
		return plan_range(ctx, where, p, a);
	for (;;) {
		weft_status st;
		size_t len = strcspn(p, ",");
		const char *end = p + len;
		while (p < end && isspace((unsigned char)*p))
			p++;
		while (end > p && isspace((unsigned char)end[-1]))
			end--;
		if (end == p)
			return weft__fail(ctx, WEFT_E_CONFIG,
					  "%s: an empty value in the list; "
					  "give v1, v2, ... or start:stop:step",
					  where);
		if ((st = axis_new(ctx, where, a, p, (size_t)(end - p))))
			return st;
		p += strcspn(p, ",");
		if (!*p++)
			return WEFT_OK;
	}
}

/* ---- overrides ----------------------------------------------------------- */

/* What an override may not change: what every run shares. */
static const char *plan_fixed(const char *sec, const char *key)
{
	if (strcmp(sec, "output") == 0 || strcmp(sec, "ensemble") == 0 ||
	    strcmp(sec, "checkpoint") == 0 || strcmp(sec, "model") == 0 ||
	    strcmp(sec, "sweep") == 0)
		return sec;
	if (strcmp(sec, "simulation") == 0 && strcmp(key, "model") == 0)
		return "simulation";
	return NULL;
}

/* section.key = value of r, stored in cfg as the file's line. */
static weft_status plan_apply(weft_context *ctx, weft_config *cfg,
			      const char *header, const struct cfg_raw *r,
			      const char *value)
{
	char where[WEFT__MSG_MAX / 2], sec[128];
	const char *dot = strchr(r->key, '.');
	const char *path = cfg->t->path ? cfg->t->path : "(no file)";
	struct cfg_section *s;
	weft_status st;

	plan_where(where, sizeof where, cfg, header, r);
	if (!dot || dot == r->key || !dot[1] ||
	    (size_t)(dot - r->key) >= sizeof sec)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: expected section.key = value "
				  "(seir.beta = 0.02)",
				  where);
	weft__fmt(sec, sizeof sec, "%.*s", (int)(dot - r->key), r->key);
	if (plan_fixed(sec, dot + 1))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [%s] is the same for every run of an "
				  "ensemble; set it in [%s] itself",
				  where, sec, sec);
	s = weft__cfg_find(cfg, sec);
	if (!s) {
		weft__fmt(where, sizeof where, "%s:%d", path, r->line);
		if ((st = weft__cfg_model_section(ctx, cfg, where, sec, &s)))
			return st;
	}
	return weft__cfg_load_key(ctx, cfg, path, r->line, s, dot + 1, value);
}

/* An ensemble's plan: its scenarios, its sweep's axes, their product. */
typedef struct plan {
	weft_ensemble *e;
	const char *crn_key; /* the model's key set true in every run, or
			      * NULL (plan_crn) */
	size_t failed;	     /* the group plan_groups() stopped at */
	const struct cfg_ens_section **scen; /* NULL: the base only */
	size_t n_scen;
	plan_axis *axes; /* the [sweep] keys */
	size_t n_axes;
	size_t n_points;
} plan;

/* ---- common random numbers ----------------------------------------------
 */

/* Where an ensemble's default for the model's crn_key comes from, as
 * weft__cfg_where_of() reports it. */
#define PLAN_CRN_WHERE "the ensemble's default for compared runs"

/* 1 when a [scenario] or [sweep] line sets "section.key". */
static int plan_sets(const struct cfg_table *t, const char *full)
{
	for (size_t i = 0; i < t->n_ens; i++)
		for (size_t k = 0; k < t->ens[i].n_raw; k++)
			if (strcmp(t->ens[i].raw[k].key, full) == 0)
				return 1;
	return 0;
}

/* Runs that an ensemble compares (two scenarios or sweep points or more)
 * pair their draws agent by agent: the model's crn_key (weft/model.h) is
 * set true in every run unless the configuration sets it anywhere. The
 * summary says so. */
static weft_status plan_crn(plan *p)
{
	weft_ensemble *e = p->e;
	const weft_model *m = weft__config_model(e->base);
	const char *key = m ? weft__model_crn_key(m) : NULL;
	char full[256];

	if (!key || e->n_groups < 2)
		return WEFT_OK;
	weft__fmt(full, sizeof full, "%s.%s", m->name, key);
	if (strcmp(weft__cfg_where_of(e->base, m->name, key), "default") != 0 ||
	    plan_sets(e->base->t, full))
		return WEFT_OK;
	p->crn_key = key;
	free(e->crn_note);
	e->crn_note = weft__strdup(full);
	return e->crn_note ? WEFT_OK
			   : weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
}

/* key = true in the model's section of cfg. */
static weft_status plan_crn_set(weft_context *ctx, weft_config *cfg,
				const char *key)
{
	struct cfg_section *s;
	weft_status st = weft__cfg_selected_model(ctx, cfg, &s);
	long k;

	if (st)
		return st;
	k = weft__cfg_find_key(s, key);
	if (k < 0)
		return weft__fail(ctx, WEFT_E_INTERNAL,
				  "ensemble: [%s] has no key %s", s->name, key);
	return weft__cfg_store(ctx, s, (size_t)k, "true", PLAN_CRN_WHERE);
}

/* ---- the product --------------------------------------------------------- */

/* "school+seir.beta=0.02": the scenario's name, then the sweep point's
 * keys, as a file name ('/' and blanks made '_'). */
static char *plan_label(const plan *p, const struct cfg_ens_section *s,
			size_t point)
{
	char buf[1024] = "";
	size_t n = 0;

	if (s)
		weft__msg_add(buf, sizeof buf, "%s", s->name);
	for (size_t a = 0; a < p->n_axes; a++) {
		const plan_axis *ax = &p->axes[a];
		weft__msg_add(buf, sizeof buf, "%s%s=%s", buf[0] ? "+" : "",
			      ax->raw->key, ax->values[point % ax->n]);
		point /= ax->n;
	}
	if (!buf[0])
		weft__fmt(buf, sizeof buf, "base");
	for (n = 0; buf[n]; n++)
		if (buf[n] == '/' || isspace((unsigned char)buf[n]) ||
		    (unsigned char)buf[n] < 0x20)
			buf[n] = '_';
	return weft__strdup(buf);
}

/* Scenario s at sweep point `point`: its configuration, validated. */
static weft_status plan_group(plan *p, const struct cfg_ens_section *s,
			      size_t point, weft__ens_group *g)
{
	weft_context *ctx = p->e->ctx;
	weft_config *cfg;
	weft_status st;
	size_t at = point;

	if (!(g->label = plan_label(p, s, point)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if ((st = weft__config_dup(ctx, p->e->base, &cfg)))
		return st;
	g->cfg = cfg;
	if (p->crn_key)
		st = plan_crn_set(ctx, cfg, p->crn_key);
	for (size_t i = 0; st == WEFT_OK && s && i < s->n_raw; i++) {
		char header[128];
		weft__fmt(header, sizeof header, "scenario %s", s->name);
		st = plan_apply(ctx, cfg, header, &s->raw[i], s->raw[i].value);
	}
	for (size_t a = 0; st == WEFT_OK && a < p->n_axes; a++) {
		const plan_axis *ax = &p->axes[a];
		st = plan_apply(ctx, cfg, "sweep", ax->raw,
				ax->values[at % ax->n]);
		at /= ax->n;
	}
	if (st == WEFT_OK)
		st = weft__validate_cfg(ctx, cfg);
	if (st != WEFT_OK) {
		char msg[WEFT__MSG_MAX];
		weft__fmt(msg, sizeof msg, "%s", weft__context_error(ctx));
		return weft__fail(ctx, st, "%s (in scenario %s)", msg,
				  g->label);
	}
	g->seed0 = (uint64_t)weft__config_opts(cfg)->simulation.seed;
	return WEFT_OK;
}

/* The [sweep] keys' values, and the scenarios. */
static weft_status plan_read(plan *p)
{
	const struct cfg_table *t = p->e->base->t;
	weft_status st = WEFT_OK;

	p->scen = calloc(t->n_ens + 1, sizeof *p->scen);
	if (!p->scen)
		return weft__fail(p->e->ctx, WEFT_E_NOMEM, "out of memory");
	p->n_points = 1;
	for (size_t i = 0; st == WEFT_OK && i < t->n_ens; i++) {
		const struct cfg_ens_section *s = &t->ens[i];
		if (!s->is_sweep) {
			p->scen[p->n_scen++] = s;
			continue;
		}
		p->axes = calloc(s->n_raw + 1, sizeof *p->axes);
		if (!p->axes)
			return weft__fail(p->e->ctx, WEFT_E_NOMEM,
					  "out of memory");
		for (size_t k = 0; st == WEFT_OK && k < s->n_raw; k++) {
			st = plan_values(p->e->ctx, p->e->base, &s->raw[k],
					 &p->axes[p->n_axes++]);
			if (st == WEFT_OK && p->n_points <= WEFT__ENS_MAX_RUNS)
				p->n_points *= p->axes[p->n_axes - 1].n;
		}
	}
	return st;
}

/* Too many runs: say how many, from what, and the limit. */
static weft_status plan_count(plan *p)
{
	weft_ensemble *e = p->e;
	size_t scen = p->n_scen ? p->n_scen : 1;
	double runs = (double)scen * (double)p->n_points * (double)e->per_group;

	if (runs <= WEFT__ENS_MAX_RUNS) {
		e->n_groups = scen * p->n_points;
		e->n_runs = e->n_groups * e->per_group;
		return WEFT_OK;
	}
	return weft__fail(e->ctx, WEFT_E_CONFIG,
			  "%s: the ensemble has %s%.0f runs (%zu scenarios x "
			  "%s%zu sweep points x %zu runs, %s); at most %d are "
			  "allowed: fewer values, scenarios or [ensemble] runs",
			  e->base->t->path ? e->base->t->path : "ensemble",
			  p->n_points > WEFT__ENS_MAX_RUNS ? "more than " : "",
			  runs, scen,
			  p->n_points > WEFT__ENS_MAX_RUNS ? "more than " : "",
			  p->n_points, e->per_group,
			  weft__cfg_where_of(e->base, "ensemble", "runs"),
			  WEFT__ENS_MAX_RUNS);
}

static weft_status plan_checkpoints(weft_ensemble *e)
{
	if (weft__config_opts(e->base)->checkpoint.every == 0)
		return WEFT_OK;
	return weft__fail(
		e->ctx, WEFT_E_CONFIG,
		"%s: [checkpoint] every = %lld: an ensemble does "
		"not checkpoint its runs (each is short; an "
		"interrupted ensemble is run again); set every = 0",
		weft__cfg_where_of(e->base, "checkpoint", "every"),
		(long long)weft__config_opts(e->base)->checkpoint.every);
}

/* Every group's configuration, validated. */
static weft_status plan_groups(plan *p)
{
	weft_ensemble *e = p->e;
	weft_status st = WEFT_OK;

	e->groups = calloc(e->n_groups, sizeof *e->groups);
	if (!e->groups)
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	for (size_t g = 0; st == WEFT_OK && g < e->n_groups; g++) {
		p->failed = g;
		if (weft__cancelled(e->ctx))
			st = weft__cancel_fail(e->ctx, "validating the "
						       "ensemble's runs");
		else
			st = plan_group(
				p, p->n_scen ? p->scen[g / p->n_points] : NULL,
				g % p->n_points, &e->groups[g]);
	}
	return st;
}

static void plan_groups_free(weft_ensemble *e)
{
	for (size_t g = 0; e->groups && g < e->n_groups; g++) {
		free(e->groups[g].label);
		weft__config_free(e->groups[g].cfg);
	}
	free(e->groups);
	e->groups = NULL;
}

/* The model refused its common random numbers in some run (SEIR's with
 * waning immunity, say): every run keeps the model's default draws, so
 * that the runs still pair alike, and the summary says why. */
static weft_status plan_crn_refused(plan *p)
{
	weft_ensemble *e = p->e;
	size_t g = p->failed;
	weft__ens_group alone = { 0 };
	char why[WEFT__MSG_MAX];
	weft_status st;

	weft__fmt(why, sizeof why, "%s", weft__context_error(e->ctx));
	/* The group that failed, without the mode: when it fails again, the
	 * error is the configuration's own, and the others need no second
	 * look. */
	p->crn_key = NULL;
	st = plan_group(p, p->n_scen ? p->scen[g / p->n_points] : NULL,
			g % p->n_points, &alone);
	free(alone.label);
	weft__config_free(alone.cfg);
	if (st != WEFT_OK)
		return st;
	plan_groups_free(e);
	free(e->crn_note);
	e->crn_note = NULL;
	if (!(e->crn_refused = weft__strdup(why)))
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	return plan_groups(p);
}

weft_status weft__ens_plan(weft_ensemble *e)
{
	plan p = { .e = e };
	weft_status st;

	e->per_group = (size_t)weft__config_opts(e->base)->ensemble.runs;
	e->keep_runs = weft__config_opts(e->base)->ensemble.keep_runs;
	e->batch = (size_t)weft__config_opts(e->base)->ensemble.batch;
	if ((st = plan_checkpoints(e)) || (st = plan_read(&p)) ||
	    (st = plan_count(&p)) || (st = plan_crn(&p)))
		goto free_plan;
	st = plan_groups(&p);
	if (st == WEFT_E_CONFIG && p.crn_key)
		st = plan_crn_refused(&p);
free_plan:
	for (size_t a = 0; a < p.n_axes; a++)
		axis_free(&p.axes[a]);
	free(p.axes);
	free(p.scen);
	return st;
}
