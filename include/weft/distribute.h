/*
 * weft/distribute.h - an ensemble's runs spread over processes.
 *
 * weft_ensemble_run() (weft/weft.h) does an ensemble's runs, all of them,
 * in the calling process. A program that spreads them over processes or
 * machines (weft-mpi, mpi/weft-mpi.c) does the same in parts, with the
 * functions below, each process holding its own weft_ensemble of the same
 * configuration (weft_ensemble_open()):
 *
 *   first process   weft_ensemble_begin(), then hands weft_ensemble_stage()
 *                   to the others;
 *   the others      weft_ensemble_attach() with that staging directory (a
 *                   directory every process can reach);
 *   wherever runs are done
 *                   weft_ensemble_run_one(), or weft_ensemble_batch_at()
 *                   and weft_ensemble_run_batch() then
 *                   weft_ensemble_result(), and sends each result's bytes
 *                   to the first process;
 *   first process   weft_ensemble_add_result() for each run, then
 *                   weft_ensemble_finish().
 *
 * The aggregates depend on the results only, taken in run order, so they
 * are the same byte for byte as weft_ensemble_run()'s. The failed runs,
 * the summary and the files committed are read in the first process as
 * after weft_ensemble_run() (weft/weft.h).
 */
#ifndef WEFT_DISTRIBUTE_H
#define WEFT_DISTRIBUTE_H

#include <weft/common.h>
#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lock the output directory and make the set runs are written into; its
 * path, for the other processes, in weft_ensemble_stage() (e's string,
 * valid until weft_ensemble_close()). */
WEFT_EXPORT weft_status weft_ensemble_begin(weft_ensemble *e);
WEFT_EXPORT const char *weft_ensemble_stage(const weft_ensemble *e);
/* In another process: write runs into stage, begun elsewhere (copied). */
WEFT_EXPORT weft_status weft_ensemble_attach(weft_ensemble *e,
					     const char *stage);
/* Run i and keep its result; a failed run is a result too (WEFT_OK), only
 * a cancellation or a broken ensemble is an error. Its bytes in *data and
 * *bytes, for weft_ensemble_add_result() elsewhere: e's, valid until the
 * next call on e (copy them to keep them). */
WEFT_EXPORT weft_status weft_ensemble_run_one(weft_ensemble *e, size_t i,
					      const void **data, size_t *bytes);
/* How many runs from run i weft_ensemble_run() steps together: [ensemble]
 * batch of them, fewer where run i's scenario ends (1: a run alone; 0:
 * i is past the last run). Once this process has found the backend
 * without batched replicas, 1 from then on. */
WEFT_EXPORT size_t weft_ensemble_batch_at(const weft_ensemble *e, size_t i);
/* Runs i .. i + n - 1, all of one scenario, as one batch of replicas (one
 * after another on a backend without them), keeping their results as
 * weft_ensemble_run_one() does; n = 1 is run i alone. */
WEFT_EXPORT weft_status weft_ensemble_run_batch(weft_ensemble *e, size_t i,
						size_t n);
/* The bytes of run i's result, once it ran here, for
 * weft_ensemble_add_result() elsewhere: e's, valid until the next call on
 * e. */
WEFT_EXPORT weft_status weft_ensemble_result(weft_ensemble *e, size_t i,
					     const void **data, size_t *bytes);
/* In the first process: run i's result, as weft_ensemble_result() gave
 * it in whichever process ran it; copied. */
WEFT_EXPORT weft_status weft_ensemble_add_result(weft_ensemble *e, size_t i,
						 const void *data,
						 size_t bytes);
/* Aggregate, summarise, plot, and commit the set. Every run's result must
 * be in. */
WEFT_EXPORT weft_status weft_ensemble_finish(weft_ensemble *e);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_DISTRIBUTE_H */
