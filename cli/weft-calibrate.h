/*
 * cli/weft-calibrate.h - `weft calibrate` (weft-calibrate.c): a
 * configuration's [calibration] section checked by libweft, then run by
 * the Python package (python -m weft calibrate, docs/calibration.md).
 */
#ifndef WEFT_CLI_CALIBRATE_H
#define WEFT_CLI_CALIBRATE_H

#include <weft/weft.h>

/* `weft calibrate CONFIG [--set S.K=V]... [--trials N] [--storage URL]
 * [--python PATH]`: the exit status (0, 1 failed, 2 bad command line, 128
 * + N when the interpreter was ended by signal N). */
int weft_cli_calibrate(weft_context *ctx, int argc, char **argv);

/* For `weft check`: the [calibration] section checked as `weft
 * calibrate` checks it. 0 and *present 0 without one; 0 and *present 1
 * when it is fine; 1 (its message in ctx) when not. */
int weft_cli_calibration_check(weft_context *ctx, const weft_config *cfg,
			       int *present);

#endif
