/*
 * core/internal.h - what the core's own files share. Nothing here is
 * exported from libweft; tests link the core's convenience library and may
 * use it.
 */
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/types.h>
#include <weft/backend.h>
#include <weft/model.h>
#include <weft/weft.h>

#define WEFT__MSG_MAX 2048

struct weft_context {
	char msg[WEFT__MSG_MAX];
	/* Set by weft_context_cancel(), from any thread or a signal
	 * handler (lock-free: context.c asserts it). */
	atomic_int cancelled;
	/* weft_context_set_progress(): called by weft__progress(). */
	weft_progress_fn progress;
	void *progress_user;
};

/* ---- util.c ------------------------------------------------------------- */

/* Set the context's message and return st. */
weft_status weft__fail(weft_context *ctx, weft_status st, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
weft_status weft__vfail(weft_context *ctx, weft_status st, const char *fmt,
			va_list ap);
/* Bounded formatting into a fixed buffer; always NUL-terminates. */
void weft__fmt(char *buf, size_t size, const char *fmt, ...) WEFT_PRINTF(3, 4);
/* Append to a NUL-terminated message, cutting what does not fit. */
void weft__msg_add(char *buf, size_t size, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
char *weft__strdup(const char *s);
/* text[0..len) with control characters and DEL written as \xNN, so
 * that raw bytes of a value never reach a terminal; cut to fit. */
void weft__escape(char *buf, size_t size, const char *text, size_t len);
/* "FILE:LINE: [section] key = value", or "[section] key = value (the
 * default)" when where is "default" or NULL: the start of a message about
 * a key's value. */
void weft__where_key(char *buf, size_t size, const char *where,
		     const char *section, const char *key, const char *value);
/* "dir/file", without doubling a trailing slash; NULL when out of
 * memory. */
char *weft__path_join(const char *dir, const char *file);
/* a followed by b in new memory; NULL when out of memory. */
char *weft__strcat(const char *a, const char *b);
/* Edit distance, capped (returns cap when greater). */
size_t weft__edit_distance(const char *a, const char *b, size_t cap);
/* The candidate closest to word, or NULL when none is close enough to be
 * a plausible typo. */
const char *weft__closest(const char *word, const char *const *cands, size_t n);
/* ---- plot.c: running gnuplot (runs' plots, ensembles' plots) ------------ */

/* The first executable file called name in $PATH, in new memory; *out
 * stays NULL when there is none. */
weft_status weft__plot_find(weft_context *ctx, const char *name, char **out);
/* 1-based index of the column called name[0..len) in a CSV header line,
 * or 0. */
unsigned weft__plot_column(const char *header, const char *name, size_t len);
/* Run gnuplot with argv and wait for it, up to $WEFT_GNUPLOT_TIMEOUT: 0
 * when it exited with status 0, -1 with why it did not draw in why,
 * WEFT_E_CANCELLED (gnuplot killed) when ctx was cancelled meanwhile. */
int weft__plot_gnuplot(weft_context *ctx, const char *gnuplot,
		       char *const argv[], char *why, size_t size);

/* rm -r path, not following symbolic links; what cannot be removed
 * stays. */
void weft__rm_tree(const char *path);
/* Monotonic clock in nanoseconds. */
uint64_t weft__now_ns(void);

/* ---- context.c ------------------------------------------------------------
 */

/* Report progress to ctx's callback, if any (ctx may be NULL). */
void weft__progress(weft_context *ctx, const char *what, uint64_t done,
		    uint64_t total);
/* 1 when ctx (may be NULL) was cancelled. */
int weft__cancelled(const weft_context *ctx);
/* WEFT_E_CANCELLED, with "cancelled while WHAT" as the message. */
weft_status weft__cancel_fail(weft_context *ctx, const char *fmt, ...)
	WEFT_PRINTF(2, 3);

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

/* Check one value against its declaration; on failure sets
 * "WHERE: [SECTION] KEY = TEXT: what is wrong" and returns WEFT_E_CONFIG. */
weft_status weft__config_check(weft_context *ctx, const char *where,
			       const char *section, const weft_key_desc *d,
			       const char *text);

/* ---- elf.c ----------------------------------------------------------------
 */

/* 0 when path is an ELF shared object this process can load that exports
 * symbol as data; otherwise -1, with the loader's stage ("open" or
 * "symbol") in *stage and why in why. Runs none of the file's code. */
int weft__elf_check(const char *path, const char *symbol, const char **stage,
		    char *why, size_t why_size);

/* ---- child.c ---------------------------------------------------------------
 */

/* How a child waited for by weft__child_wait() ended. */
typedef enum weft__child_end {
	WEFT__CHILD_DONE,      /* it exited or was killed: see *status */
	WEFT__CHILD_TIMEOUT,   /* it ran past its time and was killed */
	WEFT__CHILD_CANCELLED, /* ctx was cancelled; it was killed */
} weft__child_end;

/* Wait for child pid: read fd (a pipe whose write end only the child
 * holds, so that it closes when the child ends, crashed or not) until its
 * end, keeping what fits in out (NUL-terminated; out may be NULL), then
 * reap it. The child is killed with SIGKILL once it has run timeout_s
 * seconds, or as soon as ctx is cancelled. Closes fd. */
weft__child_end weft__child_wait(const weft_context *ctx, pid_t pid, int fd,
				 double timeout_s, char *out, size_t size,
				 int *status);
/* "SIGSEGV", or "signal N", for messages. */
void weft__signal_name(int sig, char *buf, size_t size);

/* ---- model_api.c ------------------------------------------------------------
 */

/* The model's check() (model ABI 1.1, optional) on cfg: validates its
 * parameters without a run. */
weft_status weft__model_check(weft_context *ctx, const weft_config *cfg,
			      const weft_model *model);

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
	int shadowed;
};

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
 * refused, or its probe, and is not loaded here. Fails only when ctx was
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

/* ---- models.c --------------------------------------------------------------
 */

/* 1 when name is one of the core's own sections, which no model may
 * take. */
int weft__is_core_section(const char *name);
/* What follows "no model plugin weft-model-NAME.so in DIRS": "; did you
 * mean 'seir'?", or "; models there: a, b" (or "none"). */
void weft__models_hint(const char *searched, const char *name, char *buf,
		       size_t size);

#endif /* WEFT_INTERNAL_H */
