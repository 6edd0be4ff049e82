/*
 * core/plugin/plugin.h - plugin files of any kind (backends, models):
 * finding, checking, probing in a child, loading. Above util/, below
 * config/.
 */
#ifndef WEFT_PLUGIN_H
#define WEFT_PLUGIN_H

#include "util/util.h"

/* ---- loader.c: plugin files of any kind ------------------------------------
 */

typedef struct weft__plugin weft__plugin;

/* What differs between kinds of plugins (backends.c, models.c). */
typedef struct weft__plugin_kind {
	const char *noun;	 /* "backend", "model" */
	const char *prefix;	 /* "weft-backend-": files PREFIXNAME.so */
	const char *env;	 /* the search path's environment variable */
	const char *symbol;	 /* the entry's symbol */
	const char *entry_macro; /* what defines it, for messages */
	/* The version and check stages, on p->entry: nonzero (after
	 * weft__plugin_refuse) when p cannot be used. Calls nothing in p. */
	int (*check)(weft__plugin *p);
	/* The probe stage, or NULL: the first plugin code that runs. */
	void (*probe)(weft__plugin *p);
} weft__plugin_kind;

extern const weft__plugin_kind weft__backend_kind;
extern const weft__plugin_kind weft__model_kind;

/* One plugin file and what became of it. */
struct weft__plugin {
	const weft__plugin_kind *kind;
	char *name;
	char *path;
	void *dl;	   /* dlopen handle, NULL when loading failed */
	const void *entry; /* the entry once symbol lookup succeeded; NULL
			    * when the plugin was refused before its code
			    * could run */
	const char *stage; /* where it failed: "open", "symbol", "version",
			    * "check", "probe"; NULL when usable */
	char reason[WEFT__MSG_MAX];
	weft_probe probe;  /* backends */
	char summary[256]; /* models: the entry's, for listings */
	char version[64];
	/* Models with env (ABI 1.5): its keys and ids as text, for
	 * listings (models.c writes it at the check stage, envs.c reads
	 * it), NULL for other models; at most WEFT__ENV_TEXT_MAX bytes
	 * with its '\0'. Owned. */
	char *env;
	int shadowed;
};

#define WEFT__ENV_TEXT_MAX 32768

/* The entry, as its kind's type. */
#define WEFT__BACKEND(p) ((const weft_backend *)(p)->entry)
#define WEFT__MODEL(p)	 ((const weft_model *)(p)->entry)

typedef struct weft__plugin_set {
	const weft__plugin_kind *kind;
	weft__plugin *items;
	size_t n;
	char *searched; /* the directories searched, in order, for messages */
	/* While scanning: the caller's context, the children's time limit,
	 * and a failure that stopped the scan (a cancellation). */
	weft_context *ctx;
	double timeout;
	weft_status st;
} weft__plugin_set;

/* Length of NAME when file is exactly PREFIXNAME.so with NAME made of
 * [a-z0-9_-]; 0 when file is not that kind's plugin name. */
size_t weft__plugin_name_len(const weft__plugin_kind *kind, const char *file);
/* Record why p cannot be used (stage and reason); returns -1. */
int weft__plugin_refuse(weft__plugin *p, const char *stage, const char *fmt,
			...) WEFT_PRINTF(3, 4);
/* The stage under way, for weft__plugin_load_here()'s at. */
enum weft__plugin_at {
	WEFT__AT_OPEN = 1,
	WEFT__AT_SYMBOL,
	WEFT__AT_CHECK,
	WEFT__AT_PROBE
};

/* Take p (kind, name and path set) through every stage in this process:
 * open, symbol, the kind's checks and, with probe, the probe. at, when
 * not NULL, is set to the stage under way (isolate.c's child). */
void weft__plugin_load_here(weft__plugin *p, int probe, volatile int *at);

/* ---- isolate.c ------------------------------------------------------------
 */

/* $WEFT_PROBE_TIMEOUT: the seconds a plugin's child may take (5 by
 * default; 0: no child, everything in this process). */
weft_status weft__probe_timeout(weft_context *ctx, double *out);
/* Every stage of p, with its file read as ELF first and the rest in a
 * child process (timeout 0: in this process): p records where it was
 * refused, or its probe, and is not loaded here (unless its probe said no
 * in the child while a GPU driver may be running in this process: then
 * it is probed again here, and stays loaded). Fails only when ctx was
 * cancelled or the system refuses a process. */
weft_status weft__plugin_inspect(weft_context *ctx, weft__plugin *p,
				 double timeout);
/* Load p, which weft__plugin_inspect() found usable (or refused only by
 * its probe), into this process: open, symbol, checks and probe again
 * (its answer here is the one kept; the kind's status when it fails). */
weft_status weft__plugin_attach(weft__plugin *p);
/* WEFT_E_UNAVAILABLE for a probe's no, WEFT_E_PLUGIN for the rest. */
weft_status weft__plugin_status(const weft__plugin *p);
/* Load one plugin given by path; on failure the message names the path,
 * the stage and the reason. keep_failed: return a plugin whose entry was
 * checked but which failed later (its probe said no) instead. */
weft_status weft__plugin_open_path(weft_context *ctx,
				   const weft__plugin_kind *kind,
				   const char *path, int keep_failed,
				   weft__plugin **out);
void weft__plugin_free(weft__plugin *p);
/* The directories to search, joined by ':': user_path (may be NULL), the
 * kind's environment variable, the installed plugin directory. */
char *weft__plugin_search_path(const weft__plugin_kind *kind,
			       const char *user_path);
/* Every plugin of a kind in user_path, the environment's path and the
 * installed directory, loaded (and probed) in order; a later file of a
 * name already found is recorded as shadowed, not loaded. */
weft_status weft__plugins_scan_kind(weft_context *ctx,
				    const weft__plugin_kind *kind,
				    const char *user_path,
				    weft__plugin_set **out);
/* The plugin of that name that is not shadowed, usable or not; NULL. */
weft__plugin *weft__plugins_find(weft__plugin_set *set, const char *name);
void weft__plugins_free(weft__plugin_set *set);
/* Load only the first PREFIXNAME.so in the directories `searched`; *out
 * is NULL when there is none, else a plugin that may have failed (its
 * stage says where). Fails only for want of memory. */
weft_status weft__plugin_find(weft_context *ctx, const weft__plugin_kind *kind,
			      const char *searched, const char *name,
			      weft__plugin **out);

/* Names of the plugins of a kind in some directories, unloaded, for
 * suggestions and messages. */
#define WEFT__NAMES_MAX 64
typedef struct weft__names {
	char *name[WEFT__NAMES_MAX];
	size_t n;
} weft__names;
void weft__plugin_names(const weft__plugin_kind *kind, const char *searched,
			weft__names *out);
void weft__names_free(weft__names *names);
/* "a, b, c", or "none". */
void weft__names_join(const weft__names *names, char *buf, size_t size);

/* ---- backends.c ------------------------------------------------------------
 */

/* Discover weft-backend-*.so in plugin_path (":"-separated, may be NULL),
 * $WEFT_PLUGIN_PATH and WEFT_PLUGINDIR, in that order; load, check and
 * probe each. Failures are recorded in the set, not returned. */
weft_status weft__plugins_scan(weft_context *ctx, const char *plugin_path,
			       weft__plugin_set **out);
/* Load, check and probe one backend plugin given by path. */
weft_status weft__plugin_load_path(weft_context *ctx, const char *path,
				   weft__plugin **out);
/* The backend a run uses, by name: "auto" probes every plugin (each in
 * a child) and loads the available one with the highest score; any other
 * name loads only the first weft-backend-NAME.so of plugin_path,
 * $WEFT_PLUGIN_PATH and the installed directory, which must be available:
 * no fallback. What must be freed goes to *set (a scan) or *own (one
 * plugin); *out is the one chosen. */
weft_status weft__backend_choose(weft_context *ctx, const char *plugin_path,
				 const char *name, int keep_unavailable,
				 weft__plugin_set **set, weft__plugin **own,
				 weft__plugin **out);
/* "auto" picks the available plugin with the highest score; any other
 * name must match exactly and be available: no fallback. The one picked
 * is loaded into this process. */
weft_status weft__plugins_select(weft_context *ctx, weft__plugin_set *set,
				 const char *name, weft__plugin **out);

/* Under `auto`, the next candidate after `after` (NULL: the first) in
 * the order auto tries them (by score, highest first, the first found on
 * ties), loaded into this process; *out is NULL when none is left. For
 * falling back when a candidate's device lacks what the program needs. */
weft_status weft__plugins_auto_next(weft_context *ctx, weft__plugin_set *set,
				    const weft__plugin *after,
				    weft__plugin **out);

/* The one place that decides whether a device meets a program's needs
 * (weft_program_desc.needs, ABI 1.5): 1 when it does (or the program
 * needs nothing), else 0 with why = "no WHAT on its device: REASON"
 * (the backend's caps() detail, which names the device). A backend
 * without caps() is taken to have exact f32 with subnormals and nothing
 * newer. */
int weft__backend_meets_needs(const weft_backend *vt, weft_device *dev,
			      const weft_program_desc *pd, char *why,
			      size_t size);
/* "A and B" of what pd needs (empty when nothing). */
void weft__backend_needs_list(const weft_program_desc *pd, char *buf,
			      size_t size);
/* Refuse, before load_program(), a program whose needs
 * (weft_program_desc.needs, ABI 1.5) the device lacks: the message names
 * the model (its name; the program's when NULL), the backend and its plugin
 * file (path), what is missing and the backend's reason (its caps() detail,
 * which names the device). A backend without caps() is taken to have exact
 * f32 with subnormals and nothing newer. */
weft_status weft__backend_check_needs(weft_context *ctx, const char *model,
				      const char *path, const weft_backend *vt,
				      weft_device *dev,
				      const weft_program_desc *pd);

/* ---- models.c --------------------------------------------------------------
 */

/* 1 when name is one of the core's own sections, which no model may
 * take. */
int weft__is_core_section(const char *name);
/* What follows "no model plugin weft-model-NAME.so in DIRS": "; did you
 * mean 'seir'?", or "; models there: a, b" (or "none"). */
void weft__models_hint(const char *searched, const char *name, char *buf,
		       size_t size);
/* weft_models_scan() and the list's accessors, without their argument
 * checks: out is not NULL, l is a list, i < its count (free takes
 * NULL). */
weft_status weft__models_scan(weft_context *ctx, const char *model_path,
			      weft_model_list **out);
size_t weft__model_list_count(const weft_model_list *l);
/* The env text's separators (weft__plugin.env): fields of a record, and
 * records (the first: count, autoreset and precision keys; then one an
 * id: id, max_episode_steps, summary, sets, reward_threshold as "%.17g"
 * or "" for none). */
#define WEFT__ENV_FS '\x1f'
#define WEFT__ENV_RS '\x1e'
const weft_model_info *weft__model_list_at(const weft_model_list *l, size_t i);
void weft__model_list_free(weft_model_list *l);
/* The model's ensemble descriptor when its ABI has one (1.4), it set it
 * and it covers the 1.4 fields; NULL otherwise. */
const weft_ensemble_desc *weft__model_ensemble(const weft_model *m);
/* Its crn_key (1.6) when the descriptor covers it and sets it, else
 * NULL. */
const char *weft__model_crn_key(const weft_model *m);

#endif /* WEFT_PLUGIN_H */
