/*
 * tests/cli/wk/demo_shared.h - what demo's kernels and its host code share:
 * the parameter block (32-bit words only) and a helper from
 * demo_more.h. Inlined into the program text once however often it is
 * included.
 */
#ifndef DEMO_SHARED_H
#define DEMO_SHARED_H

#include "demo_more.h"

typedef struct demo_params {
	weft_u32 factor;
	weft_u32 offset;
} demo_params;

#endif /* DEMO_SHARED_H */
