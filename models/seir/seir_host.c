/*
 * models/seir/seir_host.c - the SEIR kernels compiled as C for host
 * backends, from the same source the run-time compilers get.
 */
#include "config.h"

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "seir.h"
#include "seir.wk"

const weft_kernel_desc weft__seir_kernels[SEIR_N_KERNELS] = {
	{ "seir_progress", seir_progress },
	{ "seir_transmit", seir_transmit },
	{ "seir_tally", seir_tally },
};
