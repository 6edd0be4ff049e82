/*
 * core/config/config_model.c - model sections: a section that is not one of the
 * core's is a model's, and its keys are the ones the model's plugin
 * declares. The plugin is found by name (weft-model-NAME.so in [model]
 * plugin_path, $WEFT_MODEL_PATH, the installed plugin directory) or given
 * by path ([model] plugin), loaded and checked (no model code runs), and
 * kept by the configuration for the run.
 *
 * A file may name a model's section before its [model] keys, so while a
 * file is read such a section is pending: its lines are kept, and checked
 * in order once the whole file has been read.
 */
#include "config/cfg.h"

#include <stdlib.h>
#include <string.h>

char *weft__cfg_model_search_path(const weft_config *cfg)
{
	const char *user = weft__config_opts(cfg)->model.plugin_path;

	return weft__plugin_search_path(&weft__model_kind,
					user[0] ? user : NULL);
}

/* [a-z0-9_]+: what a model may be called (models.c checks the same). */
static int is_model_name(const char *s)
{
	return *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* Give section s (new, or pending with that name) the model of plugin p,
 * which it then owns. */
static weft_status adopt(weft_context *ctx, const weft_config *cfg,
			 struct cfg_section *s, weft__plugin *p,
			 struct cfg_section **out)
{
	const weft_model *m = WEFT__MODEL(p);

	if (!s && !(s = weft__cfg_add(cfg, m->name))) {
		weft__plugin_free(p);
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	s->plugin = p;
	s->about = m->summary;
	s->pending = 0;
	if (weft__cfg_set_keys(s, m->keys, m->n_keys) != WEFT_OK)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	*out = s;
	return WEFT_OK;
}

/* [model] plugin = PATH: loaded once, its model's section made. */
static weft_status own_model(weft_context *ctx, const weft_config *cfg,
			     struct cfg_section **out)
{
	struct cfg_table *t = cfg->t;
	const char *path = weft__config_opts(cfg)->model.plugin;
	const char *where = weft__cfg_where_of(cfg, "model", "plugin");
	struct cfg_section *s;
	weft__plugin *p;

	*out = NULL;
	if (!path[0])
		return WEFT_OK;
	if (!strchr(path, '/') && is_model_name(path))
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [model] plugin = %s is a model name, not "
			"a plugin file: set [simulation] model = %s "
			"to look for weft-model-%s.so in the model "
			"search path, or give the file's path",
			where, path, path, path);
	if (t->own_model_path && strcmp(t->own_model_path, path) == 0) {
		*out = t->own_model;
		return WEFT_OK;
	}
	if (t->own_model_path)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [model] plugin = %s: the model of %s "
				  "was loaded already; set [model] plugin "
				  "once, before the model's keys",
				  where, path, t->own_model_path);
	if (weft__plugin_open_path(ctx, &weft__model_kind, path, 0, &p))
		return weft__fail(ctx, WEFT_E_PLUGIN, "%s: [model] plugin = %s",
				  where, weft__context_error(ctx));
	s = weft__cfg_find(cfg, p->name);
	if (s && !s->pending) {
		weft__plugin_free(p);
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [model] plugin = %s is model '%s', whose "
			"section was already read for %s",
			where, path, s->name, s->plugin->path);
	}
	if (!(t->own_model_path = weft__strdup(path))) {
		weft__plugin_free(p);
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	if (adopt(ctx, cfg, s, p, &t->own_model) != WEFT_OK)
		return WEFT_E_NOMEM;
	*out = t->own_model;
	return WEFT_OK;
}

/* What a message about [simulation] model starts with: "FILE:LINE:
 * [simulation] model = NAME", or "[simulation] model = seir (the
 * default)". */
static void selection_key(char *buf, size_t size, const char *where,
			  const char *name)
{
	weft__where_key(buf, size, where, "simulation", "model", name);
}

/* Find, load and check weft-model-NAME.so for section s (pending, or NULL
 * for a new one). `asker` says what needs it in messages; selection:
 * [simulation] model names it rather than a section header. */
static weft_status find_model(weft_context *ctx, const weft_config *cfg,
			      const char *where, const char *name,
			      int selection, struct cfg_section *s,
			      struct cfg_section **out)
{
	char *searched = weft__cfg_model_search_path(cfg);
	char hint[WEFT__MSG_MAX / 2], why[WEFT__MSG_MAX], key[WHERE_MAX];
	weft__plugin *p = NULL;
	weft_status st;

	if (!searched)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	st = weft__plugin_find(ctx, &weft__model_kind, searched, name, &p);
	if (selection)
		selection_key(key, sizeof key, where, name);
	else
		weft__fmt(key, sizeof key, "%s: [%s]", where, name);
	if (st == WEFT_OK && !p && selection) {
		weft__models_hint(searched, name, hint, sizeof hint);
		st = weft__fail(ctx, WEFT_E_CONFIG,
				"%s: no model plugin weft-model-%s.so in %s%s",
				key, name, searched, hint);
	} else if (st == WEFT_OK && !p) {
		weft__fmt(why, sizeof why,
			  " (no model plugin weft-model-%s.so in %s)", name,
			  searched);
		st = weft__cfg_unknown_section(ctx, cfg, where, name, why);
	} else if (st == WEFT_OK && p->stage) {
		st = weft__fail(ctx, WEFT_E_PLUGIN, "%s: %s: %s: %s", key,
				p->path, p->stage, p->reason);
		weft__plugin_free(p);
	} else if (st == WEFT_OK) {
		st = adopt(ctx, cfg, s, p, out);
	}
	free(searched);
	return st;
}

/* [simulation] model = output: a core section is no model's. A plugin of
 * that name is still looked for, so that its path and why it was refused
 * (stage check) are what the message says. */
static weft_status core_section_model(weft_context *ctx, const weft_config *cfg,
				      const char *where, const char *name)
{
	struct cfg_section *s = NULL;
	weft_status st = find_model(ctx, cfg, where, name, 1, NULL, &s);
	char key[WHERE_MAX];

	if (st != WEFT_OK && st != WEFT_E_CONFIG)
		return st;
	selection_key(key, sizeof key, where, name);
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s names the core's section [%s], not a model (the "
			  "core's sections are [simulation], [backend], "
			  "[output] and [model])",
			  key, name);
}

static weft_status model_section(weft_context *ctx, const weft_config *cfg,
				 const char *where, const char *name,
				 int selection, struct cfg_section **out)
{
	struct cfg_section *s = weft__cfg_find(cfg, name), *own;
	weft_status st;

	*out = NULL;
	if (selection && weft__is_core_section(name))
		return core_section_model(ctx, cfg, where, name);
	if (s && !s->pending) {
		*out = s;
		return WEFT_OK;
	}
	if ((st = own_model(ctx, cfg, &own)))
		return st;
	if (own && strcmp(own->name, name) == 0) {
		*out = own;
		return WEFT_OK;
	}
	if (!is_model_name(name) && selection) {
		char key[WHERE_MAX];
		selection_key(key, sizeof key, where, name);
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s is not a model name (a-z, 0-9 and "
				  "'_')%s",
				  key,
				  strchr(name, '/') ? "; to load a model "
						      "plugin file, set "
						      "[model] plugin = PATH"
						    : "");
	}
	if (!is_model_name(name))
		return weft__cfg_unknown_section(ctx, cfg, where, name, NULL);
	return find_model(ctx, cfg, where, name, selection, s, out);
}

weft_status weft__cfg_model_section(weft_context *ctx, const weft_config *cfg,
				    const char *where, const char *name,
				    struct cfg_section **out)
{
	return model_section(ctx, cfg, where, name, 0, out);
}

struct cfg_section *weft__cfg_model_lookup(const weft_config *cfg,
					   const char *name)
{
	struct cfg_section *s = weft__cfg_find(cfg, name);
	weft_context ctx = { .msg = "" };

	if (s)
		return s->pending ? NULL : s;
	if (!is_model_name(name) || weft__is_core_section(name))
		return NULL;
	if (find_model(&ctx, cfg, "lookup", name, 0, NULL, &s) != WEFT_OK)
		return NULL;
	return s;
}

weft_status weft__cfg_selected_model(weft_context *ctx, const weft_config *cfg,
				     struct cfg_section **out)
{
	const char *name = weft__config_opts(cfg)->simulation.model;
	const char *where = weft__cfg_where_of(cfg, "simulation", "model");
	struct cfg_section *own;
	weft_status st;

	*out = NULL;
	if ((st = own_model(ctx, cfg, &own)))
		return st;
	if (own && strcmp(where, "default") != 0 &&
	    strcmp(own->name, name) != 0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [simulation] model = %s, but [model] "
				  "plugin = %s (%s) is model '%s'; leave "
				  "[simulation] model unset, or make them "
				  "agree",
				  where, name, cfg->t->own_model_path,
				  weft__cfg_where_of(cfg, "model", "plugin"),
				  own->name);
	if (own) {
		*out = own;
		return WEFT_OK;
	}
	return model_section(ctx, cfg, where, name, 1, out);
}

/* ---- sections named in a file before their model was known --------------- */

static weft_status resolve_one(weft_context *ctx, weft_config *cfg,
			       const char *path, struct cfg_section *s)
{
	struct cfg_raw *raw = s->raw;
	size_t n_raw = s->n_raw;
	char where[WHERE_MAX];
	char *name = weft__strdup(s->name);
	weft_status st;

	if (!name)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	s->raw = NULL;
	s->n_raw = 0;
	weft__fmt(where, sizeof where, "%s:%d", path, s->header_line);
	st = model_section(ctx, cfg, where, name, 0, &s);
	for (size_t i = 0; st == WEFT_OK && i < n_raw; i++)
		st = weft__cfg_load_key(ctx, cfg, path, raw[i].line, s,
					raw[i].key, raw[i].value);
	for (size_t i = 0; i < n_raw; i++) {
		free(raw[i].key);
		free(raw[i].value);
	}
	free(raw);
	free(name);
	return st;
}

weft_status weft__cfg_resolve_pending(weft_context *ctx, weft_config *cfg,
				      const char *path)
{
	struct cfg_section *own;
	weft_status st = own_model(ctx, cfg, &own);

	for (size_t i = 0; st == WEFT_OK && i < cfg->t->n_secs; i++)
		if (cfg->t->secs[i]->pending || cfg->t->secs[i]->n_raw)
			st = resolve_one(ctx, cfg, path, cfg->t->secs[i]);
	return st;
}
