/*
 * core/internal.h - every internal header of the core at once, for tests
 * that reach into the library (they link core/libweft-internal.la). The
 * core's own files never include it: each includes the header of its
 * folder, which includes the layers below (util/ < plugin/ < config/ <
 * output/ < run/ < ensemble/; tests/core/test-layers.sh checks it).
 */
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include "util/util.h"
#include "plugin/plugin.h"
#include "config/conf.h"
#include "config/cfg.h"
#include "output/output.h"
#include "run/sim.h"
#include "run/batch.h"
#include "run/memory.h"
#include "run/checkpoint.h"
#include "ensemble/ensemble.h"

#endif /* WEFT_INTERNAL_H */
