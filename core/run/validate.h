/*
 * core/run/validate.h - validation (validate.c): everything that can be
 * checked of a configuration before a device is open, once. Its record
 * stays with the configuration (config/conf.h: weft__config_valid()) until
 * a value changes, and every run of that configuration trusts it: a run
 * checks again only what validation cannot know, the device's memory.
 */
#ifndef WEFT_VALIDATE_H
#define WEFT_VALIDATE_H

#include "run/memory.h"

/* What validation concluded. */
typedef struct weft__valid {
	const weft_model *model; /* the model it found and checked */
	weft_model_estimate est; /* its estimate() on the configuration */
} weft__valid;

/* The configuration's validation record, validating it first when it has
 * none: the core's checks, the output and checkpoint directories, the
 * model found, its check() and estimate() (each called once), and the
 * host's memory against the estimate. */
weft_status weft__validate(weft_context *ctx, const weft_config *cfg,
			   const weft__valid **out);
/* weft__validate(), for a caller that needs only the verdict. */
weft_status weft__validate_cfg(weft_context *ctx, const weft_config *cfg);
/* The estimate for a run of model on cfg: validation's when model is the
 * one validation checked; otherwise (a model given to the run directly)
 * model's check() and estimate() now. */
weft_status weft__validate_model(weft_context *ctx, const weft_config *cfg,
				 const weft__valid *v, const weft_model *model,
				 weft_model_estimate *est);

#endif /* WEFT_VALIDATE_H */
