/*
 * core/sim.h - the run object, shared by sim.c (the application side) and
 * model_api.c (what models may ask of the core).
 */
#ifndef WEFT_SIM_H
#define WEFT_SIM_H

#include "internal.h"
#include "output.h"

struct weft_model_ctx {
	weft_sim *sim;
};

typedef struct weft__summary_line {
	char *key;
	char *value;
} weft__summary_line;

struct weft_sim {
	weft_context *ctx;
	const weft_config *cfg;
	weft__plugin_set *plugins; /* discovery, when chosen by name */
	weft__plugin *own_plugin;  /* loaded by path, when [backend] plugin */
	weft__plugin *plugin;	   /* the one in use */
	const weft_backend *vt;
	weft_device *dev;
	weft_program *prog;
	const weft_model *model;
	void *mstate;
	weft_model_ctx mc;
	weft_launch *launches;
	uint32_t n_launches;
	uint64_t steps_total, steps_done, every;
	const char *outdir;
	char *cache_dir;	 /* resolved default cache directory, owned */
	weft__outputs outputs;	 /* open, not yet committed */
	weft__outputs committed; /* renamed into place */
	weft__summary_line *summary;
	size_t n_summary;
};

#endif
