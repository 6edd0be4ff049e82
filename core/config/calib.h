/*
 * core/config/calib.h - the [calibration] section for `weft calibrate`
 * (config_calib.c). Plain C and <weft/weft.h> only: the weft command
 * includes this header for the one function libweft exports to it, which
 * is no part of the public interface.
 */
#ifndef WEFT_CALIB_H
#define WEFT_CALIB_H

#include <weft/weft.h>

/* The configuration's [calibration] section, checked as `weft calibrate`
 * needs it (its data file set and readable, with the time column and
 * every column the components name in its header; parameters of the
 * core or of the selected model; at least one parameter and one
 * component), as one JSON object in *json (the caller's, freed with
 * free()): config, data, time, table, trials, replicas, sampler,
 * combine, storage, study_name, seed ([simulation] seed), output
 * ([output] directory), parameters [{key, low, high, log, type}] and
 * components [{name, kind, data, model, weight, sigma2}]. *json is NULL
 * (and the status WEFT_OK) when the configuration has no [calibration]
 * section. Errors name the file and line of the key. */
WEFT_EXPORT weft_status weft__config_calibration(weft_context *ctx,
						 const weft_config *cfg,
						 char **json);

#endif /* WEFT_CALIB_H */
