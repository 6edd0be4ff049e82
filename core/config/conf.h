/*
 * core/config/conf.h - the configuration as the layers above it read it:
 * typed getters of validated values and where a value came from. The
 * configuration's own files share config/cfg.h besides.
 */
#ifndef WEFT_CONF_H
#define WEFT_CONF_H

#include "plugin/plugin.h"

/* ---- config.c ------------------------------------------------------------ */

/* Typed access to validated values; the key must be declared. */
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

/* The model the configuration selects, once weft_config_validate() has
 * found and checked it (NULL before), and its plugin file. */
const weft_model *weft__config_model(const weft_config *c);
const char *weft__config_model_path(const weft_config *c);



/* ---- config_hash.c ------------------------------------------------------- */

/* The configuration as a checkpoint records it: "section.key=value\n" for
 * every key that must be the same to resume ([simulation], [output] every
 * and csv, the model's section), values in canonical form, and its
 * XXH3-128 in 32 hexadecimal digits (hash must hold 33 bytes). */
weft_status weft__config_canonical(weft_context *ctx, const weft_config *cfg,
				   char **text, char *hash);

#endif /* WEFT_CONF_H */
