/*
 * models/cartpole/cartpole.h - what the CartPole model's host files share
 * (the model, its host kernels and the C API of <weft/cartpole.h>).
 */
#ifndef WEFT_CARTPOLE_MODEL_H
#define WEFT_CARTPOLE_MODEL_H

#include <weft/kernel_host.h>
#include <weft/model.h>

#include "cartpole_shared.h"

#define CP_N_KERNELS 6
extern const weft_kernel_desc weft__cartpole_kernels[CP_N_KERNELS];
extern const char weft__cartpole_source[];
extern const weft_model weft__model_cartpole;

typedef struct cartpole_state {
	cartpole_params params;
	uint32_t n_envs;
	uint64_t n_rows;	   /* rows the series can hold */
	uint32_t *series;	   /* host copy of the rows collected */
	weft_buf *bufs[CP_N_BUFS]; /* by CP_B_* slot */
	size_t bytes[CP_N_BUFS];
	/* The statistics rows read back through output snapshots (CP_SNAP_ROWS
	 * rows per slot, never bound by a launch, so that reading a chunk's
	 * rows back overlaps the next steps; weft_model_rows_*). */
	weft_model_rows *rows;
	weft_output *csv;
	/* Totals of the rows emitted so far, for the summary (written by
	 * emit() on the writer thread, read by finish() after it joined). */
	uint64_t episodes, return_sum;
	uint32_t max_return;
} cartpole_state;

/* Bytes of the packed result buffer for n environments. */
size_t weft__cartpole_io_bytes(uint32_t n);
/* The state episode `episode` of environment `env` starts from, computed
 * by the kernels' own function (cartpole_host.c). */
void weft__cartpole_reset_obs(const cartpole_params *p, uint32_t env,
			      uint32_t episode, float obs[4]);
/* A launch of kernel k over extent items, binding every buffer. */
void weft__cartpole_launch(const cartpole_state *s, weft_launch *l,
			   uint32_t kernel, uint32_t extent);

#endif
