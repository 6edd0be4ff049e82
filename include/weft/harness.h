/*
 * weft/harness.h - loading a backend or a model plugin for a harness.
 *
 * What a program that reads a plugin's table itself (the conformance
 * suite, `weft conform`; a backend or model author's own tests; the weft
 * command, to say why a model cannot be found) uses to load a plugin
 * exactly as a run would: the same search, the same checks before any of
 * the plugin's code runs, the same messages (path, stage, reason).
 * Exported from libweft. An application that only runs models needs
 * weft/weft.h alone; backends and models never load plugins.
 *
 * The tables are declared here by name only: a harness that reads a
 * backend's table includes weft/backend.h, one that reads a model's
 * table weft/model.h.
 */
#ifndef WEFT_HARNESS_H
#define WEFT_HARNESS_H

#include <weft/common.h>
#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plugins' tables (weft/backend.h, weft/model.h). */
typedef struct weft_backend weft_backend;
typedef struct weft_probe weft_probe;
typedef struct weft_model weft_model;

/* ---- backend plugins ---------------------------------------------------- */

typedef struct weft_backend_plugin weft_backend_plugin;

/* Keep a plugin whose probe says it cannot run here (weft_backend_plugin_
 * probe() says why) instead of failing with WEFT_E_UNAVAILABLE. */
#define WEFT_PLUGIN_KEEP_UNAVAILABLE 1u

/* spec is a path (it contains '/') of a weft-backend-NAME.so, or a name
 * ("auto": the best available) looked up in plugin_path (':'-separated,
 * may be NULL), $WEFT_PLUGIN_PATH and the installed plugin directory.
 * *out is the caller's, released with weft_backend_plugin_close(). */
WEFT_EXPORT weft_status weft_backend_plugin_open(weft_context *ctx,
						 const char *spec,
						 const char *plugin_path,
						 unsigned flags,
						 weft_backend_plugin **out);
/* Its checked table, its file, and what its probe said: owned by p, valid
 * until weft_backend_plugin_close(p). */
WEFT_EXPORT const weft_backend *
weft_backend_plugin_table(const weft_backend_plugin *p);
WEFT_EXPORT const char *weft_backend_plugin_path(const weft_backend_plugin *p);
WEFT_EXPORT const weft_probe *
weft_backend_plugin_probe(const weft_backend_plugin *p);
/* Release the plugin and free p (NULL is ignored); close every device
 * opened through its table first. */
WEFT_EXPORT void weft_backend_plugin_close(weft_backend_plugin *p);

/* ---- model plugins ------------------------------------------------------ */

typedef struct weft_model_plugin weft_model_plugin;

/* spec is a path (it contains '/') of a weft-model-NAME.so, or a name
 * looked up in model_path (':'-separated, may be NULL), $WEFT_MODEL_PATH
 * and the installed plugin directory. *out is the caller's, released with
 * weft_model_plugin_close(). */
WEFT_EXPORT weft_status weft_model_plugin_open(weft_context *ctx,
					       const char *spec,
					       const char *model_path,
					       weft_model_plugin **out);
/* Its checked table and its file: owned by p, valid until
 * weft_model_plugin_close(p). */
WEFT_EXPORT const weft_model *
weft_model_plugin_table(const weft_model_plugin *p);
WEFT_EXPORT const char *weft_model_plugin_path(const weft_model_plugin *p);
/* Release the plugin and free p (NULL is ignored). */
WEFT_EXPORT void weft_model_plugin_close(weft_model_plugin *p);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_HARNESS_H */
