/*
 * conform/host.c - the conformance suite's kernels compiled as C for
 * host backends, from the same source the run-time compilers get
 * (conform/conform_source.c).
 */
#include "config.h"

#include <stddef.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "conform.h"
#include "shared.h"
#include "conform.wk"

const weft_kernel_desc weft__conform_kernels[CF_N_KERNELS] = {
	[CF_K_ALIGN] = { "cf_align", cf_align },
	[CF_K_FILL] = { "cf_fill", cf_fill },
	[CF_K_INC] = { "cf_inc", cf_inc },
	[CF_K_MAD] = { "cf_mad", cf_mad },
	[CF_K_COUNT] = { "cf_count", cf_count },
	[CF_K_BUMP] = { "cf_bump", cf_bump },
	[CF_K_ATOMIC] = { "cf_atomic", cf_atomic },
};
