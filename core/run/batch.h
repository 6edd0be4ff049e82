/*
 * core/run/batch.h - batched replicas (batch.c): R runs of one configuration,
 * differing only in [simulation] seed and [output] directory, stepped
 * together on one device, each launch of their step one launch for all of
 * them (the backend's step_replicas(), ABI 1.4). docs/ensembles.md,
 * "Batched replicas".
 */
#ifndef WEFT_BATCH_H
#define WEFT_BATCH_H

#include "run/sim.h"

/* The most replicas a batch may have ([ensemble] batch's limit too). */
#define WEFT__BATCH_MAX 4096u

typedef struct weft__batch weft__batch;

/* Open the device once, then set up cfgs[0..n-1] one after another as the
 * batch's replicas (model NULL: the configurations' own), and allocate
 * their buffers together. WEFT_E_UNSUPPORTED, with *no_replicas set, when
 * the backend has no step_replicas() (the caller may then run them one
 * after another); any other failure names the replica, buffer or launch. */
weft_status weft__batch_open(weft_context *ctx, const weft_config *const *cfgs,
			     uint32_t n, const weft_model *model,
			     weft__batch **out, int *no_replicas);
/* Step every replica n steps (fewer at the end), in chunks that end where
 * [output] every says, with each replica's outputs after each chunk. */
weft_status weft__batch_step(weft__batch *b, uint64_t n);
/* Replica r, a run: weft_sim_finish(), weft_sim_digest() and the queries
 * work on it; stepping it alone does not. */
weft_sim *weft__batch_sim(weft__batch *b, uint32_t r);
/* Close every replica, then the device. NULL does nothing. */
void weft__batch_close(weft__batch *b);

#endif
