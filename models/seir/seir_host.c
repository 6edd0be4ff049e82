/*
 * models/seir/seir_host.c - the SEIR kernels compiled as C for host
 * backends, from the same source the run-time compilers get.
 */
#include "config.h"

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "seir.h"
#include "seir.wk"

/* In the order of the SEIR_K_* indexes (seir_shared.h). */
const weft_kernel_desc weft__seir_kernels[SEIR_N_KERNELS] = {
	{ "seir_vaccinate", seir_vaccinate },
	{ "seir_progress", seir_progress },
	{ "seir_transmit", seir_transmit },
	{ "seir_count", seir_count },
	{ "seir_scan_sums", seir_scan_sums },
	{ "seir_scan_top", seir_scan_top },
	{ "seir_scan_offs", seir_scan_offs },
	{ "seir_scatter", seir_scatter },
	{ "seir_copy", seir_copy },
	{ "seir_apply", seir_apply },
	{ "seir_tally", seir_tally },
};
