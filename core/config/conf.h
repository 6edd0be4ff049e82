/*
 * core/config/conf.h - the configuration as the layers above it read it:
 * typed getters of validated values and where a value came from. The
 * configuration's own files share config/cfg.h besides.
 */
#ifndef WEFT_CONF_H
#define WEFT_CONF_H

#include "plugin/plugin.h"

/* ---- config.c ------------------------------------------------------------ */

/* The core's own keys, parsed: refreshed whenever one of them changes,
 * so that reading them is a field access. Strings belong to the
 * configuration and hold until that key changes. */
typedef struct weft__opts {
	struct {
		const char *model;
		uint64_t steps, seed;
	} simulation;
	struct {
		const char *name, *plugin, *device, *platform, *cache_dir,
			*plugin_path;
		uint32_t threads;
		int profile; /* time every launch (WEFT_DEVICE_PROFILE) */
	} backend;
	struct {
		const char *directory, *plot;
		uint64_t every;
		int csv, summary;
	} output;
	struct {
		const char *plugin, *plugin_path;
	} model;
	struct {
		uint64_t every;
		const char *directory;
	} checkpoint;
	struct {
		uint32_t runs, batch;
		int keep_runs;
	} ensemble;
} weft__opts;

/* weft_config_new() and weft_config_free(), for the core. */
weft_status weft__config_new(weft_context *ctx, weft_config **out);
void weft__config_free(weft_config *cfg);

/* The core's options of c; never NULL for a configuration. */
const weft__opts *weft__config_opts(const weft_config *c);

/* Typed access to the values of declared keys (0, 0.0, false or "" for a
 * key that is not declared). No getter loads a plugin or changes c. */
int64_t weft__config_int(const weft_config *c, const char *section,
			 const char *key);
double weft__config_real(const weft_config *c, const char *section,
			 const char *key);
int weft__config_bool(const weft_config *c, const char *section,
		      const char *key);
const char *weft__config_str(const weft_config *c, const char *section,
			     const char *key);
/* "file.ini:12", "--set section.key", or "default". */
const char *weft__config_where(const weft_config *c, const char *section,
			       const char *key);

/* 1 when the configuration asks for output files ([output] csv or
 * summary; a plot needs the CSV): only then is the output directory
 * checked, locked and replaced by a run. */
int weft__config_writes(const weft_config *c);
/* 1 when the configuration is an ensemble's ([ensemble] runs set, or
 * scenarios): weft_config_is_ensemble(). */
int weft__config_is_ensemble(const weft_config *c);

/* 1 when [section] key is declared (a core key, or a key of a model
 * whose section the configuration holds). */
int weft__config_has(const weft_config *c, const char *section,
		     const char *key);

/* The model the configuration selects, once it was found (validation, or
 * a file or --set that named its section; NULL before), and its plugin
 * file (""). Neither loads it: weft__config_select() does. */
const weft_model *weft__config_model(const weft_config *c);
const char *weft__config_model_path(const weft_config *c);
/* Find the model the configuration selects ([model] plugin, or
 * [simulation] model), loading its plugin when no section holds it yet;
 * the message says why when it cannot be used. */
weft_status weft__config_select(weft_context *ctx, const weft_config *c,
				const weft_model **out);

/* The checks across the core's keys that need nothing but the
 * configuration ([backend] name and plugin, [output] directory and
 * plot): the first part of validation (run/validate.c). */
weft_status weft__config_check_core(weft_context *ctx, const weft_config *c);

/* What validation concluded (run/validate.c's record, in memory from
 * malloc() that the configuration frees), NULL until it is kept and
 * again as soon as any value changes: a configuration validated once is
 * trusted by every run of it until it changes. */
void *weft__config_valid(const weft_config *c);
void weft__config_keep_valid(const weft_config *c, void *valid);

/* ---- config_hash.c ------------------------------------------------------- */

/* The configuration as a checkpoint records it: "section.key=value\n" for
 * every key that must be the same to resume ([simulation], [output] every
 * and csv, the model's section), values in canonical form, and its
 * XXH3-128 in 32 hexadecimal digits (hash must hold 33 bytes). */
weft_status weft__config_canonical(weft_context *ctx, const weft_config *cfg,
				   char **text, char *hash);

#endif /* WEFT_CONF_H */
