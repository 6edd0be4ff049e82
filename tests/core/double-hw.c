/*
 * tests/core/double-hw.c - weft/double.h's hardware path (the host prelude
 * says WEFT_HAS_F64 1) for tests/core/test-softf64.c. Compiled, as kernels
 * are, without contraction (-ffp-contract=off in tests/core/softf64.am).
 */
#include <weft/kernel_host.h>
#include <weft/double.h>

#include "double-ops.h"

#if !WEFT_D64_HARDWARE
#error "double-hw.c must compile weft/double.h's hardware path"
#endif

#define D64_OP_FN d64_hw_op
#include "double-op.h"
