/*
 * weft/weft.h - the application header: configure, choose a backend, run a
 * model, read its results and counters. Backend authors use weft/backend.h,
 * model authors weft/model.h; applications need only this one.
 *
 * Every action function returns a weft_status; on failure the context
 * keeps one message naming what failed and where, read with
 * weft_context_error(). The library never prints and never exits.
 */
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stdio.h>
#include <weft/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_context weft_context;
typedef struct weft_config weft_config;
typedef struct weft_sim weft_sim;
typedef struct weft_backend_list weft_backend_list;

WEFT_EXPORT const char *weft_version(void);
/* The backend ABI version plugins must be built for (major must match). */
WEFT_EXPORT void weft_backend_abi(unsigned *major, unsigned *minor);

WEFT_EXPORT weft_status weft_context_new(weft_context **out);
WEFT_EXPORT void weft_context_free(weft_context *ctx);
/* The message of the last failure on this context ("" if none). */
WEFT_EXPORT const char *weft_context_error(const weft_context *ctx);

/* ---- configuration -------------------------------------------------- */

/* A configuration holding only defaults. */
WEFT_EXPORT weft_status weft_config_new(weft_context *ctx, weft_config **out);
/* Parse and validate an INI file. */
WEFT_EXPORT weft_status weft_config_load(weft_context *ctx, const char *path,
					 weft_config **out);
/* Override one key, "section.key=value", with the same checks. */
WEFT_EXPORT weft_status weft_config_set(weft_context *ctx, weft_config *cfg,
					const char *assignment);
/* Check what single keys cannot: the model exists, the backend name is a
 * name. weft_sim_open() calls it; exposed for `weft check`. */
WEFT_EXPORT weft_status weft_config_validate(weft_context *ctx,
					     const weft_config *cfg);
/* The value of a key as text (the default when unset), NULL if undeclared. */
WEFT_EXPORT const char *weft_config_get(const weft_config *cfg,
					const char *section, const char *key);
WEFT_EXPORT void weft_config_free(weft_config *cfg);
/* Write the reference of every key (Markdown) to buf; see docs/config.md. */
WEFT_EXPORT weft_status weft_config_reference(weft_context *ctx,
					      char **markdown);

/* ---- backends ------------------------------------------------------- */

typedef struct weft_backend_info {
	const char *name;
	const char *path;  /* plugin file, "" when none was found */
	const char *state; /* "available", "unavailable", "failed", "missing" */
	const char *stage; /* failed stage: open, symbol, version, probe */
	const char *reason;  /* why not available, "" when available */
	const char *devices; /* what the probe saw */
	int score;
	int shadowed; /* a plugin of the same name earlier in the path wins */
} weft_backend_info;

/* Find and probe every plugin: plugin_path (may be NULL), then
 * $WEFT_PLUGIN_PATH, then the installed plugin directory. */
WEFT_EXPORT weft_status weft_backends_scan(weft_context *ctx,
					   const char *plugin_path,
					   weft_backend_list **out);
WEFT_EXPORT size_t weft_backend_list_count(const weft_backend_list *l);
WEFT_EXPORT const weft_backend_info *
weft_backend_list_at(const weft_backend_list *l, size_t i);
WEFT_EXPORT void weft_backend_list_free(weft_backend_list *l);

/* ---- models --------------------------------------------------------- */

WEFT_EXPORT size_t weft_model_count(void);
/* Name and one-line summary of the i-th model. */
WEFT_EXPORT weft_status weft_model_info(size_t i, const char **name,
					const char **summary);

/* ---- running -------------------------------------------------------- */

/* Load the backend, open the device, set the model up. The output
 * directory is created here and outputs are written to hidden temporary
 * files in it; no output file is created or replaced under its own name
 * until weft_sim_finish() succeeds. */
WEFT_EXPORT weft_status weft_sim_open(weft_context *ctx, const weft_config *cfg,
				      weft_sim **out);
/* Advance n steps: the backend enqueues them in chunks of [output] every
 * with no host synchronisation inside a chunk. */
WEFT_EXPORT weft_status weft_sim_step(weft_sim *sim, uint64_t n);
WEFT_EXPORT uint64_t weft_sim_steps_done(const weft_sim *sim);
WEFT_EXPORT uint64_t weft_sim_steps_total(const weft_sim *sim);
/* Final outputs and summary, the plot ([output] plot: runs gnuplot, found
 * on PATH, in a child process; never fails for want of it, see the
 * summary's "plot" line); renames every output into place. */
WEFT_EXPORT weft_status weft_sim_finish(weft_sim *sim);
WEFT_EXPORT const char *weft_sim_backend(const weft_sim *sim);
WEFT_EXPORT const char *weft_sim_model(const weft_sim *sim);
WEFT_EXPORT weft_status weft_sim_stats(weft_sim *sim, weft_stats *out);
WEFT_EXPORT size_t weft_sim_summary_count(const weft_sim *sim);
WEFT_EXPORT weft_status weft_sim_summary_at(const weft_sim *sim, size_t i,
					    const char **key,
					    const char **value);
/* Output files committed by weft_sim_finish(), for the caller to list. */
WEFT_EXPORT size_t weft_sim_output_count(const weft_sim *sim);
WEFT_EXPORT const char *weft_sim_output_at(const weft_sim *sim, size_t i);
/* Free everything; outputs not yet committed are removed. */
WEFT_EXPORT void weft_sim_close(weft_sim *sim);

/* ---- the conformance suite ----------------------------------------- */

/* What `weft conform` runs: every promise of the backend ABI, tested
 * through a plugin's vtable, and every model run on it and compared with
 * a reference backend by state digest. */
typedef struct weft_conform_options {
	uint32_t struct_size;	 /* sizeof(weft_conform_options) */
	const char *plugin;	 /* a path (contains '/') or a backend name */
	const char *plugin_path; /* more directories to search, or NULL */
	const char *reference;	 /* backend (name or path) that models are
				  * compared with; NULL: "openmp" */
	const char *device;	 /* as [backend] device: index or name; NULL */
	const char *platform;	 /* as [backend] platform; NULL */
	const char *only;	 /* comma-separated group names; NULL: all */
	unsigned timeout_s;	 /* per group; 0: 120 */
	int isolate;		 /* 1: run each group in a fork()ed child, which
				  * alone loads the plugin (a crash or a hang
				  * becomes a failed test); 0: in this process */
} weft_conform_options;

/* Run the suite and print its results to tap as TAP (the plan last);
 * *n_failed counts the failed tests. A plugin that cannot be loaded is one
 * failed test ("load: ..."); one whose probe says it cannot run here is
 * skipped ("1..0 # SKIP ..."). Returns WEFT_OK whenever the suite ran,
 * WEFT_E_INVALID for bad options (an unknown group), another error when
 * the suite itself could not run (no temporary directory, no fork). */
WEFT_EXPORT weft_status weft_conform_run(weft_context *ctx,
					 const weft_conform_options *opt,
					 FILE *tap, int *n_failed);
/* The groups, in the order they run. */
WEFT_EXPORT size_t weft_conform_group_count(void);
WEFT_EXPORT weft_status weft_conform_group_info(size_t i, const char **name,
						const char **summary);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_WEFT_H */
