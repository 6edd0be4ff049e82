/*
 * core/run/validate.c - a configuration validated once. Validation runs
 * every check that needs no device: the core's keys together
 * (config/config.c), what the output and checkpoint directories hold
 * (output/outdir.c, run/checkpoint.c), the model found and its own
 * check(), its estimate() against the host's memory. The record it keeps
 * in the configuration lets every run of that configuration skip all of
 * it, so that a model's check() and estimate() run once per run however
 * the run is started (weft run, weft check, the library, Python).
 */
#include "run/validate.h"

#include <stdlib.h>

#include "run/checkpoint.h"
#include "util/crash.h"

/* The model's estimate() (memory.c), as a call into its plugin
 * (util/crash.h: a crash there names the plugin and the hook). */
static weft_status validate_estimate(weft_context *ctx, const weft_config *cfg,
				     const weft_model *model,
				     weft_model_estimate *est)
{
	weft__in_plugin at;
	weft_status st;

	weft__crash_set(&at, "model", weft__crash_file(model), "estimate()", 1);
	st = weft__mem_estimate(ctx, cfg, model, est);
	weft__crash_clear(&at);
	return st;
}

/* The directory a run replaces, when the configuration writes: one that
 * holds nothing weft wrote, or outputs (a run's or an ensemble's, which
 * replace each other), not a checkpoint. */
static weft_status validate_outdir(weft_context *ctx, const weft_config *cfg)
{
	if (!weft__config_writes(cfg))
		return WEFT_OK;
	return weft__outputs_check(
		ctx, "output", weft__config_opts(cfg)->output.directory,
		weft__config_where(cfg, "output", "directory"));
}

/* The model's check() and estimate(), and the host bytes it needs. */
static weft_status validate_run(weft_context *ctx, const weft_config *cfg,
				weft__valid *v)
{
	weft_status st = weft__model_check(ctx, cfg, v->model);

	if (st == WEFT_OK)
		st = weft__ckpt_validate(ctx, cfg, v->model);
	if (st == WEFT_OK)
		st = validate_estimate(ctx, cfg, v->model, &v->est);
	/* The host's bytes before any allocation, and the device's when the
	 * verdict depends on it: the verdict the run gives (memory.c). */
	if (st == WEFT_OK)
		st = weft__mem_fits_config(ctx, cfg, v->model, &v->est);
	return st;
}

weft_status weft__validate(weft_context *ctx, const weft_config *cfg,
			   const weft__valid **out)
{
	weft__valid *v = weft__config_valid(cfg);
	weft_status st;

	*out = v;
	if (v)
		return WEFT_OK;
	if (weft__cancelled(ctx))
		return weft__cancel_fail(ctx, "validating the configuration");
	v = calloc(1, sizeof *v);
	if (!v)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if ((st = weft__config_check_core(ctx, cfg)) ||
	    (st = validate_outdir(ctx, cfg)) ||
	    (st = weft__config_select(ctx, cfg, &v->model)) ||
	    (st = validate_run(ctx, cfg, v))) {
		free(v);
		return st;
	}
	weft__config_keep_valid(cfg, v);
	*out = v;
	return WEFT_OK;
}

weft_status weft__validate_cfg(weft_context *ctx, const weft_config *cfg)
{
	const weft__valid *v;

	return weft__validate(ctx, cfg, &v);
}

weft_status weft_config_validate(weft_context *ctx, const weft_config *cfg)
{
	if (!cfg)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_validate: cfg is NULL");
	return weft__validate_cfg(ctx, cfg);
}

weft_status weft__validate_model(weft_context *ctx, const weft_config *cfg,
				 const weft__valid *v, const weft_model *model,
				 weft_model_estimate *est)
{
	weft_status st;

	if (model == v->model) {
		*est = v->est;
		return WEFT_OK;
	}
	if ((st = weft__model_check(ctx, cfg, model)))
		return st;
	return validate_estimate(ctx, cfg, model, est);
}
