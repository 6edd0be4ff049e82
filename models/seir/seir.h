/*
 * models/seir/seir.h - what the SEIR model's host files share.
 */
#ifndef WEFT_SEIR_H
#define WEFT_SEIR_H

#include <weft/kernel_host.h>
#include <weft/model.h>

#include "seir_shared.h"

#define SEIR_N_KERNELS 3
extern const weft_kernel_desc weft__seir_kernels[SEIR_N_KERNELS];
extern const char weft__seir_source[];

typedef struct seir_state {
	seir_params params;
	uint32_t n_agents;
	uint64_t n_edges; /* stored directed edges (both directions) */
	weft_buf *b_params, *b_state, *b_timer, *b_tally, *b_row, *b_col,
		*b_series;
	uint32_t *series;   /* host copy of the rows read so far */
	uint64_t rows_read; /* rows 0..rows_read-1 are in `series` */
	weft_output *csv;
	/* Output snapshots (seir.c): b_snap holds one region of snap_rows
	 * rows per output slot; collect() records which rows each slot's
	 * chunk read, emit() writes them. */
	weft_buf *b_snap;
	uint64_t snap_rows;
	uint64_t *slot_first, *slot_rows; /* per slot */
} seir_state;

/* seir_population.c: the synthetic contact layer (CSR, uploaded) and
 * the initial infections (state and timers, uploaded). */
weft_status weft__seir_build_population(weft_model_ctx *mc, seir_state *s);
weft_status weft__seir_seed_infections(weft_model_ctx *mc, seir_state *s);

#endif
