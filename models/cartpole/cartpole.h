/*
 * models/cartpole/cartpole.h - what the CartPole model's host files share:
 * its state and buffers (the plugin, weft-model-cartpole.so, and the tests
 * that link the model's code).
 */
#ifndef WEFT_CARTPOLE_MODEL_H
#define WEFT_CARTPOLE_MODEL_H

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/model.h>

#include "cartpole_kernels.h"
#include "cartpole_shared.h"

/* The model's buffers, in allocation order (names in cartpole.c). */
enum {
	CP_B_PARAMS,
	CP_B_STATE,   /* f32 x, x_dot, theta, theta_dot: [4][CP_ROW(n)]; with
		       * precision = f64 the same as binary64 bits (u64) */
	CP_B_BOOK,    /* u32 [WEFT_ENV_WORDS][n]: each environment's key,
		       * episode, steps into it, ... (weft/env.wk) */
	CP_B_ACC,     /* u32 per-environment statistics (CP_ACC_*):
		       * [CP_ACC_ARRAYS][CP_ROW(n)] */
	CP_B_ACTIONS, /* u8: 0 pushes left, anything else right */
	CP_B_IO,      /* the packed result (CP_IO_*) */
	CP_B_PARTIALS,
	CP_B_SERIES,
	CP_B_CTL,
	CP_B_CONSTS,   /* u64: precision = f64's sin/cos table, policy */
	CP_B_MASK,     /* u8 [n]: which envs reset_some and set_state touch */
	CP_B_STATE_IN, /* f32 or u64 [n][4]: the states set_state sets, and
			* those the "state" list packs */
	CP_B_SEED,     /* u64 [n]: reset_some's seeds (WEFT_ENV_SEEDED) */
	CP_N_BUFS
};

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
	/* Totals of the rows emitted so far, for the summary and the CSV's
	 * running mean (written by emit() on the writer thread, read by
	 * finish() after it joined): host state, which checkpoints save. */
	struct cartpole_totals {
		uint64_t episodes, return_sum;
		uint32_t max_return, pad;
	} totals;
} cartpole_state;

/* glibc's table of sin(k/128) and cos(k/128) (cartpole_dyn64.h). */
extern const uint64_t weft__cartpole_trig_table[4 * CP64_TABLE_ROWS];

/* Bytes of the packed result buffer for n environments. */
size_t weft__cartpole_io_bytes(uint32_t n);
/* The state episode `episode` of environment `env` starts from, computed
 * by the kernels' own function (cp_reset_state, cartpole_shared.h). */
void weft__cartpole_reset_obs(const cartpole_params *p, uint32_t env,
			      uint32_t episode, float obs[4]);

#endif
