/*
 * core/plugin/models.c - model plugins (weft-model-NAME.so): the checks of
 * their table before any of their code runs, and `weft models`' listing.
 *
 * A model's table is data: its keys, kernels and signatures can all be
 * checked without calling it, so a model that passes these checks can only
 * fail later in its own setup(). Header mismatches (ABI, size, name) are
 * the `version` stage; unusable contents the `check` stage.
 */
#include "plugin/plugin.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int model_check(weft__plugin *p);

const weft__plugin_kind weft__model_kind = {
	.noun = "model",
	.prefix = "weft-model-",
	.env = "WEFT_MODEL_PATH",
	.symbol = WEFT_MODEL_ENTRY_SYMBOL,
	.entry_macro = "WEFT_MODEL_ENTRY",
	.check = model_check,
	.probe = NULL,
};

static const char *const core_sections[] = { "simulation", "backend",
					     "output",	   "model",
					     "checkpoint", "ensemble",
					     "sweep",	   "calibration" };

int weft__is_core_section(const char *name)
{
	for (size_t i = 0; i < sizeof core_sections / sizeof *core_sections;
	     i++)
		if (strcmp(core_sections[i], name) == 0)
			return 1;
	return 0;
}

/* [a-z0-9_]+, as INI section and key names are matched. */
static int is_ident(const char *s)
{
	if (!s || !*s)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* ---- the header: the version stage --------------------------------------- */

static int check_header(weft__plugin *p, const weft_model *m)
{
	if (m->abi_major != WEFT_MODEL_ABI_MAJOR)
		return weft__plugin_refuse(p, "version",
					   "built for model ABI %" PRIu32
					   ".%" PRIu32 ", this weft expects "
					   "%d.x",
					   m->abi_major, m->abi_minor,
					   WEFT_MODEL_ABI_MAJOR);
	if (m->struct_size < WEFT_MODEL_V1_0_SIZE)
		return weft__plugin_refuse(p, "version",
					   "entry struct is %" PRIu32
					   " bytes, model ABI 1.0 needs at "
					   "least %zu",
					   m->struct_size,
					   (size_t)WEFT_MODEL_V1_0_SIZE);
	if (!m->name)
		return weft__plugin_refuse(p, "version",
					   "entry has no name (NULL), expected "
					   "'%s'",
					   p->name);
	if (strcmp(m->name, p->name) != 0)
		return weft__plugin_refuse(p, "version",
					   "entry is named '%.64s', but the "
					   "file is named for '%s'",
					   m->name, p->name);
	return 0;
}

/* ---- the contents: the check stage --------------------------------------- */

static int check_names(weft__plugin *p, const weft_model *m)
{
	if (!is_ident(m->name))
		return weft__plugin_refuse(p, "check",
					   "model name '%s' cannot name an INI "
					   "section (use a-z, 0-9 and '_')",
					   m->name);
	if (weft__is_core_section(m->name))
		return weft__plugin_refuse(
			p, "check",
			"model name '%s' clashes with the core's section "
			"[%s] (the core's sections are [simulation], "
			"[backend], [output], [model], [checkpoint], "
			"[ensemble] and [sweep])",
			m->name, m->name);
	if (!m->summary || !m->version)
		return weft__plugin_refuse(p, "check", "entry has no %s (NULL)",
					   !m->summary ? "summary" : "version");
	/* For listings, which load nothing (the check runs in a child). */
	weft__fmt(p->summary, sizeof p->summary, "%s", m->summary);
	weft__fmt(p->version, sizeof p->version, "%s", m->version);
	return 0;
}

static int check_functions(weft__plugin *p, const weft_model *m)
{
	const char *missing = !m->setup	     ? "setup"
			      : !m->finish   ? "finish"
			      : !m->teardown ? "teardown"
					     : NULL;

	if (missing)
		return weft__plugin_refuse(p, "check",
					   "entry has no %s function (NULL); "
					   "model ABI 1.0 requires setup, "
					   "finish and teardown",
					   missing);
	if (!m->collect != !m->emit)
		return weft__plugin_refuse(p, "check",
					   "entry has %s but no %s: a model "
					   "has both or neither",
					   m->collect ? "collect" : "emit",
					   m->collect ? "emit" : "collect");
	return 0;
}

/* One key: a name, a known type, a help line, a default that passes its
 * own declaration. */
static int check_key(weft__plugin *p, const weft_model *m,
		     const weft_key_desc *d)
{
	weft_context ctx = { .msg = "" };

	if (!is_ident(d->name))
		return weft__plugin_refuse(p, "check",
					   "key '%s' of [%s] is not a key name "
					   "(a-z, 0-9 and '_')",
					   d->name ? d->name : "(NULL)",
					   m->name);
	if (d->type > WEFT_KEY_ENUM || !d->def || !d->help || !d->help[0] ||
	    (d->type == WEFT_KEY_ENUM && !d->choices))
		return weft__plugin_refuse(
			p, "check", "key [%s] %s has %s", m->name, d->name,
			d->type > WEFT_KEY_ENUM	  ? "an unknown type"
			: !d->def		  ? "no default (NULL)"
			: !d->help || !d->help[0] ? "no help text"
						  : "no choices");
	/* "its default: [NAME] KEY = TEXT: why" (the path is the
	 * message's already). */
	if (weft__value_check(&ctx, "its default", m->name, d, d->def) !=
	    WEFT_OK)
		return weft__plugin_refuse(p, "check", "%s", ctx.msg);
	return 0;
}

static int check_keys(weft__plugin *p, const weft_model *m)
{
	if (m->n_keys && !m->keys)
		return weft__plugin_refuse(p, "check",
					   "entry has %" PRIu32 " keys but no "
					   "key table (NULL)",
					   m->n_keys);
	for (uint32_t k = 0; k < m->n_keys; k++) {
		if (check_key(p, m, &m->keys[k]))
			return -1;
		for (uint32_t j = 0; j < k; j++)
			if (strcmp(m->keys[j].name, m->keys[k].name) == 0)
				return weft__plugin_refuse(
					p, "check",
					"key [%s] %s is declared twice",
					m->name, m->keys[k].name);
	}
	return 0;
}

static int check_sig(weft__plugin *p, const weft_model *m, uint32_t i)
{
	const weft_kernel_desc *k = &m->program->kernels[i];
	const weft_kernel_sig *s = &m->sigs[i];

	if (!k->name || !k->host_fn)
		return weft__plugin_refuse(p, "check",
					   "kernel %" PRIu32 " has no %s", i,
					   !k->name ? "name" : "host build");
	if (!s->kernel || strcmp(s->kernel, k->name) != 0)
		return weft__plugin_refuse(
			p, "check",
			"signature %" PRIu32 " is for '%s', "
			"kernel %" PRIu32 " is '%s' (weft-wk "
			"writes both from the .wk file)",
			i, s->kernel ? s->kernel : "(NULL)", i, k->name);
	if (s->n_bufs > WEFT_KERNEL_MAX_BUFS || (s->n_bufs && !s->bufs))
		return weft__plugin_refuse(
			p, "check", "kernel %s declares %" PRIu32 " buffers%s",
			k->name, s->n_bufs,
			s->n_bufs > WEFT_KERNEL_MAX_BUFS ? " (at most 12)"
							 : " but names none");
	for (uint32_t b = 0; b < s->n_bufs; b++)
		if (!s->bufs[b])
			return weft__plugin_refuse(p, "check",
						   "kernel %s: buffer %" PRIu32
						   " has no name",
						   k->name, b);
	return 0;
}

static int check_program(weft__plugin *p, const weft_model *m)
{
	const weft_program_desc *pd = m->program;

	if (!pd)
		return weft__plugin_refuse(p, "check",
					   "it has no program (NULL; weft-wk "
					   "writes NAME_program)");
	if (pd->struct_size < WEFT_PROGRAM_DESC_V1_0_SIZE || !pd->name ||
	    !pd->source || !pd->kernels || pd->n_kernels == 0)
		return weft__plugin_refuse(
			p, "check", "its program is incomplete (%s)",
			pd->struct_size < WEFT_PROGRAM_DESC_V1_0_SIZE
				? "struct_size too small"
			: !pd->name   ? "no name"
			: !pd->source ? "no source text for run-time compilers"
				      : "no kernels");
	if (!m->sigs)
		return weft__plugin_refuse(p, "check",
					   "its kernels have no signatures "
					   "(sigs is NULL; weft-wk generates "
					   "them)");
	for (uint32_t i = 0; i < pd->n_kernels; i++)
		if (check_sig(p, m, i))
			return -1;
	return 0;
}

/* ---- the environment table (ABI 1.5) ------------------------------------ */

static const char *const key_type_names[] = { "INT", "REAL", "BOOL", "STRING",
					      "ENUM" };

static const weft_key_desc *find_key(const weft_model *m, const char *name)
{
	for (uint32_t k = 0; name && k < m->n_keys; k++)
		if (strcmp(m->keys[k].name, name) == 0)
			return &m->keys[k];
	return NULL;
}

/* The descriptor's key `field` ("env's count_key") names a key of the
 * model's section of type `type` and, for an ENUM, exactly `choices`. */
static int check_desc_key(weft__plugin *p, const weft_model *m,
			  const char *field, const char *name,
			  weft_key_type type, const char *choices)
{
	const weft_key_desc *d = find_key(m, name);

	if (!d)
		return weft__plugin_refuse(
			p, "check", "%s '%s' is not a key of [%s]", field,
			name ? name : "(NULL)", m->name);
	if (d->type != type)
		return weft__plugin_refuse(p, "check",
					   "%s [%s] %s is of type %s, expected "
					   "%s",
					   field, m->name, name,
					   key_type_names[d->type],
					   key_type_names[type]);
	if (choices && strcmp(d->choices, choices) != 0)
		return weft__plugin_refuse(p, "check",
					   "%s [%s] %s has choices '%s', "
					   "expected exactly '%s'",
					   field, m->name, name, d->choices,
					   choices);
	return 0;
}

/* [A-Za-z0-9_./-]+ ending in "-v" and digits: Gymnasium's "Name-v1". */
static int is_env_id(const char *id)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_./-";
	size_t n, d = 0;

	if (!id || !(n = strlen(id)) || strspn(id, chars) != n)
		return 0;
	while (d < n && id[n - 1 - d] >= '0' && id[n - 1 - d] <= '9')
		d++;
	return d > 0 && n - d >= 3 && id[n - d - 1] == 'v' &&
	       id[n - d - 2] == '-';
}

/* One line of an id's sets: section.key=value, section and key names,
 * the value without control characters. */
static int is_set_line(const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len), *dot = memchr(s, '.', len);
	static const char ident[] = "abcdefghijklmnopqrstuvwxyz0123456789_";

	if (!eq || !dot || dot > eq || dot == s || eq == dot + 1 ||
	    strspn(s, ident) != (size_t)(dot - s) ||
	    strspn(dot + 1, ident) != (size_t)(eq - dot - 1))
		return 0;
	for (const char *c = eq + 1; c < s + len; c++)
		if ((unsigned char)*c < 0x20)
			return 0;
	return 1;
}

static int check_env_sets(weft__plugin *p, const weft_env_id *e)
{
	const char *s = e->sets;

	while (s && *s) {
		size_t len = strcspn(s, "\n");

		if (!is_set_line(s, len))
			return weft__plugin_refuse(
				p, "check",
				"env id '%s': sets line '%.*s' is not "
				"section.key=value",
				e->id, (int)(len > 200 ? 200 : len), s);
		s += len + (s[len] == '\n');
	}
	return 0;
}

/* The reward threshold of env's id i (1.9): 1 and *v, or 0 for none
 * (the descriptor predates them, has none, or NAN for this id). */
static int env_threshold(const weft_env_model *env, uint32_t i, double *v)
{
	if (env->struct_size < WEFT_ENV_MODEL_V1_9_SIZE ||
	    !env->reward_thresholds || isnan(env->reward_thresholds[i]))
		return 0;
	*v = env->reward_thresholds[i];
	return 1;
}

static int check_env_id(weft__plugin *p, const weft_model *m,
			const weft_env_model *env, uint32_t i)
{
	const weft_env_id *e = &env->ids[i];
	double thr;

	if (!is_env_id(e->id))
		return weft__plugin_refuse(
			p, "check",
			"env id %" PRIu32 " '%.200s' is not an environment "
			"id: expected [A-Za-z0-9_./-]+ ending in -v and a "
			"version number (\"Name-v1\")",
			i, e->id ? e->id : "(NULL)");
	for (uint32_t j = 0; j < i; j++)
		if (strcmp(env->ids[j].id, e->id) == 0)
			return weft__plugin_refuse(
				p, "check",
				"env id '%s' is declared twice by model %s",
				e->id, m->name);
	if (e->summary)
		for (const char *c = e->summary; *c; c++)
			if ((unsigned char)*c < 0x20)
				return weft__plugin_refuse(
					p, "check",
					"env id '%s': its summary is not "
					"one line of text",
					e->id);
	if (env_threshold(env, i, &thr) && isinf(thr))
		return weft__plugin_refuse(p, "check",
					   "env id '%s': reward threshold %g "
					   "is not finite (NAN for none)",
					   e->id, thr);
	return check_env_sets(p, e);
}

/* The env text of weft__plugin.env (plugin.h): 0, or -1 refused. */
static int env_text(weft__plugin *p, const weft_env_model *env)
{
	char *t = malloc(WEFT__ENV_TEXT_MAX), rs[2] = { WEFT__ENV_RS, 0 };
	size_t n;

	if (!t)
		return weft__plugin_refuse(p, "check", "out of memory");
	n = (size_t)snprintf(t, WEFT__ENV_TEXT_MAX, "%s%c%s%c%s",
			     env->count_key, WEFT__ENV_FS, env->autoreset_key,
			     WEFT__ENV_FS,
			     env->precision_key ? env->precision_key : "");
	for (uint32_t i = 0; i < env->n_ids && n < WEFT__ENV_TEXT_MAX; i++) {
		const weft_env_id *e = &env->ids[i];
		char thr[32] = "";
		double v;

		if (env_threshold(env, i, &v))
			snprintf(thr, sizeof thr, "%.17g", v);
		n += (size_t)snprintf(
			t + n, WEFT__ENV_TEXT_MAX - n,
			"%s%s%c%" PRIu32 "%c%s%c%s%c%s", rs, e->id,
			WEFT__ENV_FS, e->max_episode_steps, WEFT__ENV_FS,
			e->summary ? e->summary : "", WEFT__ENV_FS,
			e->sets ? e->sets : "", WEFT__ENV_FS, thr);
	}
	if (n >= WEFT__ENV_TEXT_MAX) {
		free(t);
		return weft__plugin_refuse(p, "check",
					   "env: its ids, sets and summaries "
					   "take more than %d bytes",
					   WEFT__ENV_TEXT_MAX - 1);
	}
	free(p->env);
	p->env = t;
	return 0;
}

/* The descriptor's env (ABI 1.5): its keys, ids and sets. */
static int check_env(weft__plugin *p, const weft_model *m)
{
	const weft_env_model *env =
		m->struct_size >= WEFT_MODEL_V1_5_SIZE ? m->env : NULL;

	if (!env)
		return 0;
	if (env->struct_size < WEFT_ENV_MODEL_V1_5_SIZE)
		return weft__plugin_refuse(p, "check",
					   "env's struct_size is %" PRIu32
					   ", model ABI 1.5 needs at least "
					   "%zu (weft_env_model through n_ids)",
					   env->struct_size,
					   (size_t)WEFT_ENV_MODEL_V1_5_SIZE);
	if (check_desc_key(p, m, "env's count_key", env->count_key,
			   WEFT_KEY_INT, NULL) ||
	    check_desc_key(p, m, "env's autoreset_key", env->autoreset_key,
			   WEFT_KEY_ENUM, WEFT_AUTORESET_CHOICES) ||
	    (env->precision_key &&
	     check_desc_key(p, m, "env's precision_key", env->precision_key,
			    WEFT_KEY_ENUM, "f32|f64")))
		return -1;
	if (env->n_ids < 1 || !env->ids)
		return weft__plugin_refuse(p, "check",
					   "env has no ids (%s): an "
					   "environment model serves at least "
					   "one",
					   env->ids ? "n_ids is 0"
						    : "ids is NULL");
	for (uint32_t i = 0; i < env->n_ids; i++)
		if (check_env_id(p, m, env, i))
			return -1;
	return env_text(p, env);
}

const weft_ensemble_desc *weft__model_ensemble(const weft_model *m)
{
	if (m->struct_size < WEFT_MODEL_V1_4_SIZE || !m->ensemble ||
	    m->ensemble->struct_size < WEFT_ENSEMBLE_DESC_V1_4_SIZE)
		return NULL;
	return m->ensemble;
}

const char *weft__model_crn_key(const weft_model *m)
{
	const weft_ensemble_desc *d = weft__model_ensemble(m);

	if (!d || d->struct_size < offsetof(weft_ensemble_desc, crn_key) +
					   sizeof(const char *))
		return NULL;
	return d->crn_key;
}

/* The descriptor's ensemble (ABI 1.4): its crn_key (1.6), a BOOL key of
 * the model's section whose default is false. */
static int check_ensemble(weft__plugin *p, const weft_model *m)
{
	const char *key = weft__model_crn_key(m);
	const weft_key_desc *d = find_key(m, key);

	if (!key)
		return 0;
	if (check_desc_key(p, m, "ensemble's crn_key", key, WEFT_KEY_BOOL,
			   NULL))
		return -1;
	/* An ensemble that cannot use the mode leaves the key as it is:
	 * off, the model's default draws. */
	if (!d->def || strcmp(d->def, "false") != 0)
		return weft__plugin_refuse(
			p, "check",
			"ensemble's crn_key [%s] %s has the "
			"default '%s', expected 'false' (the "
			"mode is off unless an ensemble or the "
			"configuration turns it on)",
			m->name, key, d->def ? d->def : "(NULL)");
	return 0;
}

static int model_check(weft__plugin *p)
{
	const weft_model *m = WEFT__MODEL(p);

	return check_header(p, m) || check_names(p, m) ||
	       check_functions(p, m) || check_keys(p, m) ||
	       check_program(p, m) || check_env(p, m) || check_ensemble(p, m);
}

/* ---- the public listing -------------------------------------------------- */

struct weft_model_list {
	weft__plugin_set *set;
	weft_model_info *items;
	size_t n;
};

static void info_from_plugin(weft_model_info *info, const weft__plugin *p)
{
	int ok = !p->stage && !p->shadowed;

	info->name = p->name;
	info->path = p->path;
	info->stage = p->stage ? p->stage : "";
	info->reason = p->stage || p->shadowed ? p->reason : "";
	info->summary = ok ? p->summary : "";
	info->version = ok ? p->version : "";
	info->state = p->shadowed ? "shadowed"
		      : p->stage  ? "failed"
				  : "available";
}

weft_status weft_models_scan(weft_context *ctx, const char *model_path,
			     weft_model_list **out)
{
	if (!out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_models_scan: out is NULL");
	return weft__models_scan(ctx, model_path, out);
}

weft_status weft__models_scan(weft_context *ctx, const char *model_path,
			      weft_model_list **out)
{
	weft_model_list *l;
	weft_status st;

	*out = NULL;
	l = calloc(1, sizeof *l);
	if (!l)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	st = weft__plugins_scan_kind(ctx, &weft__model_kind, model_path,
				     &l->set);
	if (st == WEFT_OK &&
	    !(l->items = calloc(l->set->n + 1, sizeof *l->items)))
		st = weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (st != WEFT_OK) {
		weft__model_list_free(l);
		return st;
	}
	for (size_t i = 0; i < l->set->n; i++)
		info_from_plugin(&l->items[l->n++], &l->set->items[i]);
	*out = l;
	return WEFT_OK;
}

size_t weft_model_list_count(const weft_model_list *l)
{
	return l ? weft__model_list_count(l) : 0;
}

size_t weft__model_list_count(const weft_model_list *l)
{
	return l->n;
}

const weft_model_info *weft_model_list_at(const weft_model_list *l, size_t i)
{
	return l && i < l->n ? weft__model_list_at(l, i) : NULL;
}

const weft_model_info *weft__model_list_at(const weft_model_list *l, size_t i)
{
	return &l->items[i];
}

void weft_model_list_free(weft_model_list *l)
{
	weft__model_list_free(l);
}

void weft__model_list_free(weft_model_list *l)
{
	if (!l)
		return;
	free(l->items);
	weft__plugins_free(l->set);
	free(l);
}

/* ---- loading for harnesses (weft/harness.h) ---------------------------------
 */

struct weft_model_plugin {
	weft__plugin *p;
};

void weft__models_hint(const char *searched, const char *name, char *buf,
		       size_t size)
{
	weft__names models;
	char list[WEFT__MSG_MAX / 2];
	const char *best;

	weft__plugin_names(&weft__model_kind, searched, &models);
	best = weft__closest(name, (const char *const *)models.name, models.n);
	if (best) {
		weft__fmt(buf, size, "; did you mean '%s'?", best);
	} else {
		weft__names_join(&models, list, sizeof list);
		weft__fmt(buf, size, "; models there: %s", list);
	}
	weft__names_free(&models);
}

/* By name: the first weft-model-NAME.so in the search path. A file name
 * is not a model name: "weft-model-x.so" is not looked for as
 * weft-model-weft-model-x.so.so, nor opened from the current directory. */
static weft_status model_find_name(weft_context *ctx, const char *name,
				   const char *model_path, weft__plugin **out)
{
	char hint[WEFT__MSG_MAX / 2];
	char *searched;
	weft_status st;
	size_t len = strlen(name);
	int file = len > 3 && strcmp(name + len - 3, ".so") == 0;

	if (!is_ident(name))
		return weft__fail(ctx, WEFT_E_PLUGIN,
				  "'%s' is not a model name (a-z, 0-9 and "
				  "'_')%s%s",
				  name,
				  file ? "; give a plugin file as a path, such "
					 "as ./"
				       : "",
				  file ? name : "");
	searched = weft__plugin_search_path(&weft__model_kind, model_path);
	if (!searched)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	st = weft__plugin_find(ctx, &weft__model_kind, searched, name, out);
	if (st == WEFT_OK && !*out) {
		weft__models_hint(searched, name, hint, sizeof hint);
		st = weft__fail(ctx, WEFT_E_PLUGIN,
				"no model plugin weft-model-%s.so in %s%s",
				name, searched, hint);
	}
	if (st == WEFT_OK && (*out)->stage) {
		st = weft__fail(ctx, WEFT_E_PLUGIN, "%s: %s: %s", (*out)->path,
				(*out)->stage, (*out)->reason);
		weft__plugin_free(*out);
		*out = NULL;
	}
	free(searched);
	return st;
}

weft_status weft_model_plugin_open(weft_context *ctx, const char *spec,
				   const char *model_path,
				   weft_model_plugin **out)
{
	weft_model_plugin *mp;
	weft_status st;

	if (!spec || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_model_plugin_open: NULL argument");
	*out = NULL;
	mp = calloc(1, sizeof *mp);
	if (!mp)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (strchr(spec, '/'))
		st = weft__plugin_open_path(ctx, &weft__model_kind, spec, 0,
					    &mp->p);
	else
		st = model_find_name(ctx, spec, model_path, &mp->p);
	if (st != WEFT_OK) {
		free(mp);
		return st;
	}
	*out = mp;
	return WEFT_OK;
}

const weft_model *weft_model_plugin_table(const weft_model_plugin *mp)
{
	return mp ? WEFT__MODEL(mp->p) : NULL;
}

const char *weft_model_plugin_path(const weft_model_plugin *mp)
{
	return mp ? mp->p->path : "";
}

void weft_model_plugin_close(weft_model_plugin *mp)
{
	if (!mp)
		return;
	weft__plugin_free(mp->p);
	free(mp);
}
