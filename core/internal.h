/*
 * core/internal.h - what the core's own files share. Nothing here is
 * exported from libweft; tests link the core's convenience library and may
 * use it.
 */
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <weft/backend.h>
#include <weft/model.h>
#include <weft/weft.h>

#define WEFT__MSG_MAX 2048

struct weft_context {
	char msg[WEFT__MSG_MAX];
};

/* ---- util.c ------------------------------------------------------------- */

/* Set the context's message and return st. */
weft_status weft__fail(weft_context *ctx, weft_status st, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
weft_status weft__vfail(weft_context *ctx, weft_status st, const char *fmt,
			va_list ap);
/* Bounded formatting into a fixed buffer; always NUL-terminates. */
void weft__fmt(char *buf, size_t size, const char *fmt, ...) WEFT_PRINTF(3, 4);
char *weft__strdup(const char *s);
/* a followed by b in new memory; NULL when out of memory. */
char *weft__strcat(const char *a, const char *b);
/* Edit distance, capped (returns cap when greater). */
size_t weft__edit_distance(const char *a, const char *b, size_t cap);
/* The candidate closest to word, or NULL when none is close enough to be
 * a plausible typo. */
const char *weft__closest(const char *word, const char *const *cands, size_t n);
/* Monotonic clock in nanoseconds. */
uint64_t weft__now_ns(void);

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

/* Check one value against its declaration; on failure sets
 * "WHERE: [SECTION] KEY = TEXT: what is wrong" and returns WEFT_E_CONFIG. */
weft_status weft__config_check(weft_context *ctx, const char *where,
			       const char *section, const weft_key_desc *d,
			       const char *text);

/* ---- models.c: the registry ---------------------------------------------- */

extern const weft_model *const weft__models[];
extern const size_t weft__n_models;
const weft_model *weft__model_find(const char *name);

/* ---- loader.c ------------------------------------------------------------ */

/* One plugin file and what became of it. */
typedef struct weft__plugin {
	char *name;
	char *path;
	void *dl;		/* dlopen handle, NULL when loading failed */
	const weft_backend *vt; /* valid once the version check passed */
	const char *stage;	/* where it failed: "open", "symbol",
				 * "version", "probe"; NULL when usable */
	char reason[WEFT__MSG_MAX];
	weft_probe probe;
	int shadowed;
} weft__plugin;

typedef struct weft__plugin_set {
	weft__plugin *items;
	size_t n;
	char *searched; /* the directories searched, in order, for messages */
} weft__plugin_set;

/* Discover weft-backend-*.so in plugin_path (":"-separated, may be NULL),
 * $WEFT_PLUGIN_PATH and WEFT_PLUGINDIR, in that order; load, check and
 * probe each. Failures are recorded in the set, not returned. */
weft_status weft__plugins_scan(weft_context *ctx, const char *plugin_path,
			       weft__plugin_set **out);
/* Load, check and probe one plugin given by path; on failure the message
 * names the path, the stage and the reason. */
weft_status weft__plugin_load_path(weft_context *ctx, const char *path,
				   weft__plugin **out);
/* "auto" picks the available plugin with the highest score; any other
 * name must match exactly and be available: no fallback. */
weft_status weft__plugins_select(weft_context *ctx, weft__plugin_set *set,
				 const char *name, weft__plugin **out);
void weft__plugin_free(weft__plugin *p);
void weft__plugins_free(weft__plugin_set *set);

#endif /* WEFT_INTERNAL_H */
