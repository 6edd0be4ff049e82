/*
 * core/config/cfg.h - what the configuration's files share: config.c (the
 * schema, values, --set, checks across keys, getters), config_file.c
 * (INI files), config_model.c (model sections: finding the model plugin
 * whose section it is) and config_ref.c (the Markdown reference).
 */
#ifndef WEFT_CFG_H
#define WEFT_CFG_H

#include "config/conf.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Room for "FILE:LINE" or "--set section.key" in messages. */
#define WHERE_MAX 512

struct cfg_value {
	char *text;  /* validated text; NULL while the default holds */
	char *where; /* "FILE:LINE" or "--set section.key"; NULL: default */
	int line;    /* line of the file being loaded; 0 when not set there */
};

/* A key = value line of a section that is not known yet while a file is
 * read (a model's section, known once the file's [model] keys are). */
struct cfg_raw {
	char *key, *value;
	int line;
};

struct cfg_section {
	char *name;
	struct cfg_table *t;  /* the table that holds it */
	const char *about;    /* one sentence, for the reference */
	weft__plugin *plugin; /* model sections: the model's plugin (owned);
			       * NULL for the core's sections and pending
			       * ones */
	const weft_key_desc *keys;
	size_t n_keys;
	const char **key_names; /* keys[i].name, for weft__closest() */
	struct cfg_value *vals;
	/* While a file is read: a section whose model is not known yet. */
	int pending;
	int header_line;     /* its first header's line */
	struct cfg_raw *raw; /* its lines, in order */
	size_t n_raw;
	/* [calibration]: its param. and component. lines (config_calib.c),
	 * line 0 for a --set. */
	struct cfg_raw *lines;
	size_t n_lines;
};

/* A [sweep] or [scenario NAME] section: lines of "section.key = value"
 * overrides, kept as written with their lines, expanded into the runs of
 * an ensemble by ensemble_plan.c. */
struct cfg_ens_section {
	char *name; /* "sweep", or the scenario's NAME */
	int is_sweep;
	int header_line;
	struct cfg_raw *raw;
	size_t n_raw;
};

/* Everything a configuration holds, behind a pointer so that functions
 * given a const configuration may still find model plugins (resolving a
 * model is a cache, not a change of meaning). */
struct cfg_table {
	struct cfg_section **secs; /* the core's sections, then models' */
	size_t n_secs;
	/* [model] plugin = PATH, once loaded: the path, and the section
	 * of the model it holds (which owns the plugin). */
	char *own_model_path;
	struct cfg_section *own_model;
	/* The file it was loaded from (NULL: none), and its [sweep] and
	 * [scenario NAME] sections, in the file's order. */
	char *path;
	struct cfg_ens_section *ens;
	size_t n_ens;
	/* The core's options, parsed (config.c: cfg_changed()). */
	weft__opts opts;
	/* The selected model's section once found; NULL before and after a
	 * value changes. */
	struct cfg_section *model;
	/* Validation's record (weft__config_valid()); freed on change. */
	void *valid;
};

struct weft_config {
	struct cfg_table *t;
};

/* ---- config.c -------------------------------------------------------------
 */

struct cfg_section *weft__cfg_find(const weft_config *cfg, const char *name);
long weft__cfg_find_key(const struct cfg_section *s, const char *key);
/* The first section that declares key, or NULL. */
struct cfg_section *weft__cfg_section_of_key(const weft_config *cfg,
					     const char *key);
/* A new section at the end (keys set by the caller); NULL when out of
 * memory. */
struct cfg_section *weft__cfg_add(const weft_config *cfg, const char *name);
/* Give s its keys (a model's), allocating its values. */
weft_status weft__cfg_set_keys(struct cfg_section *s, const weft_key_desc *keys,
			       size_t n_keys);
/* A new configuration holding cfg's values (and their origins) and its
 * [sweep] and [scenario] sections; its model sections load their
 * plugins again. */
weft_status weft__config_dup(weft_context *ctx, const weft_config *cfg,
			     weft_config **out);
/* Replace a value and its origin. */
weft_status weft__cfg_store(weft_context *ctx, struct cfg_section *s, size_t k,
			    const char *text, const char *where);
/* Errors shared by files and --set. */
weft_status weft__cfg_unknown_section(weft_context *ctx, const weft_config *cfg,
				      const char *where, const char *name,
				      const char *why);
weft_status weft__cfg_unknown_key(weft_context *ctx, const weft_config *cfg,
				  const char *where,
				  const struct cfg_section *s, const char *key);
/* "FILE:LINE", "--set section.key", or "default". */
const char *weft__cfg_where_of(const weft_config *cfg, const char *section,
			       const char *key);

/* ---- config_model.c --------------------------------------------------------
 */

/* The section of model `name`, finding and loading its plugin when the
 * configuration has none yet ([model] plugin when it is that model, else
 * weft-model-NAME.so in the model search path). `where` names what asked
 * for it in messages ("astoria.ini:3", "--set seir.beta"). */
weft_status weft__cfg_model_section(weft_context *ctx, const weft_config *cfg,
				    const char *where, const char *name,
				    struct cfg_section **out);
/* The section of model `name` when its plugin can be found and used, for
 * reading defaults and for hints; NULL otherwise (no message). It does
 * not look at [model] plugin, which a file may set further down. */
struct cfg_section *weft__cfg_model_lookup(const weft_config *cfg,
					   const char *name);
/* The sections a file named before their model was known: find each
 * model and check their lines in order. */
weft_status weft__cfg_resolve_pending(weft_context *ctx, weft_config *cfg,
				      const char *path);
/* The model the configuration selects ([model] plugin, or [simulation]
 * model), found and checked. */
weft_status weft__cfg_selected_model(weft_context *ctx, const weft_config *cfg,
				     struct cfg_section **out);
/* The model search path of this configuration. NULL when out of memory. */
char *weft__cfg_model_search_path(const weft_config *cfg);

/* ---- config_file.c --------------------------------------------------------
 */

/* Check and store one key = value line of section s. */
weft_status weft__cfg_load_key(weft_context *ctx, const weft_config *cfg,
			       const char *path, int line,
			       struct cfg_section *s, const char *key,
			       const char *value);

/* ---- config_calib.c --------------------------------------------------------
 */

/* The [calibration] section's declared keys. */
extern const weft_key_desc weft__calibration_keys[];
extern const size_t weft__n_calibration_keys;
/* 1 when key of section s is a [calibration] param.SECTION.KEY or
 * component.NAME line. */
int weft__cfg_calib_is_line(const struct cfg_section *s, const char *key);
/* Check the syntax of such a line and keep it (line: of the file, 0 for
 * --set, which replaces a line and has its key checked at once). */
weft_status weft__cfg_calib_line(weft_context *ctx, const weft_config *cfg,
				 struct cfg_section *s, const char *where,
				 int line, const char *key, const char *value);
/* Once a file is read: every param line names a numeric key of the core
 * or of a model, with bounds that key accepts. */
weft_status weft__cfg_calib_check(weft_context *ctx, const weft_config *cfg);

#endif
