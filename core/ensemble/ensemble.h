/*
 * core/ensemble/ensemble.h - ensembles of runs ([ensemble], [sweep], [scenario
 * NAME]): the plan of runs (ensemble_plan.c), running them and their
 * results (ensemble.c), the aggregates and summary (ensemble_agg.c) and
 * the band plots (ensemble_plot.c). docs/ensembles.md.
 */
#ifndef WEFT_ENSEMBLE_H
#define WEFT_ENSEMBLE_H

#include "run/sim.h"
#include "run/validate.h"
#include "output/output.h"

/* The most runs an ensemble may have ([ensemble] runs's limit too). */
#define WEFT__ENS_MAX_RUNS 10000

/* A scenario: runs with the same overrides. */
typedef struct weft__ens_group {
	char *label;	  /* scenario, sweep point, both, or "base" */
	weft_config *cfg; /* the base with its overrides, validated */
	uint64_t seed0;	  /* its [simulation] seed: run r has seed0 + r */
	size_t failed;	  /* of its runs */
} weft__ens_group;

/* A run's result: its CSV (every column, as numbers), or its failure. */
typedef struct weft__ens_result {
	int have;   /* run, or received */
	int failed; /* then error says why */
	char *error;
	char *header; /* the CSV's column names, ','-separated */
	uint32_t rows, cols;
	double *v; /* rows * cols, row after row */
} weft__ens_result;

/* An outcome, as the model declared it or by default. */
typedef struct weft__ens_outcome {
	char *name, *columns, *per;
	uint32_t kind;
	double scale;
} weft__ens_outcome;

struct weft_ensemble {
	weft_context *ctx;
	const weft_config *base;
	weft__ens_group *groups;
	size_t n_groups;
	size_t per_group; /* [ensemble] runs */
	size_t n_runs;	  /* n_groups * per_group */
	int keep_runs;
	size_t batch;	   /* [ensemble] batch: replicas stepped together */
	char *batch_note;  /* summary.txt's "batch" line (NULL: none) */
	char *crn_note;	   /* "seir.crn" when the plan set the model's
			    * crn_key in every run (NULL: it did not) */
	char *crn_refused; /* why the model refused it, when it did */
	/* What is aggregated (ensemble_agg.c fills what the model left). */
	char *csv, *x, *columns, *bands, *compare;
	weft__ens_outcome *outcomes;
	size_t n_outcomes;
	weft__ens_result *res;
	unsigned char *wire; /* the last result's bytes */
	size_t wire_bytes;
	weft__outputs out; /* the set; its tmp is the stage */
	char *stage;	   /* where runs write (out.tmp, or attached) */
	char **summary;	   /* "key\0value" pairs */
	size_t n_summary;
	char **outputs; /* committed files */
	size_t n_outputs;
};

/* ---- ensemble.c ---------------------------------------------------------- */

/* Run i's configuration cfg: its place dir in the set, its CSV on and its
 * own plot off, its seed. */
weft_status weft__ens_run_cfg(weft_ensemble *e, weft_config *cfg, size_t i,
			      const char *dir);
/* Test hook ENSEMBLE_FAIL=N: run N fails as a model would. */
weft_status weft__ens_test_fail(weft_ensemble *e, size_t i);
/* Run i's result once its run ended with st (msg: its failure, NULL for
 * the context's message): read from its CSV, or its failure. */
weft_status weft__ens_run_result(weft_ensemble *e, size_t i, weft_status st,
				 const char *msg);
/* Runs i0 .. i0 + n - 1, one after another. */
weft_status weft__ens_run_each(weft_ensemble *e, size_t i0, size_t n);
/* STAGE/runs/SCENARIO/SEED, run i's place, and the lock its run leaves
 * beside it; WEFT_E_INVALID, naming the path, when one does not fit
 * (buffers of PATH_MAX: never a cut path). */
weft_status weft__ens_run_dir(weft_ensemble *e, size_t i, char *dir,
			      size_t dsize, char *lock, size_t lsize);
/* weft_ensemble_run_info() and weft_ensemble_summary_at() for i in
 * range: the core's own calls. */
void weft__ensemble_run_info(const weft_ensemble *e, size_t i,
			     const char **scenario, uint64_t *seed);
void weft__ensemble_summary_at(const weft_ensemble *e, size_t i,
			       const char **key, const char **value);

/* ---- ensemble_batch.c ---------------------------------------------------- */

/* Runs i0 .. i0 + n - 1, of one scenario, as one batch of replicas
 * ([ensemble] batch): every run of a batch that fails fails with its
 * message; a backend without batched replicas runs them (and the rest of
 * the ensemble) one after another, with a note in the summary. */
weft_status weft__ens_batch(weft_ensemble *e, size_t i0, size_t n);

/* ---- ensemble_plan.c ----------------------------------------------------- */

/* The groups of cfg, each validated. */
weft_status weft__ens_plan(weft_ensemble *e);

/* ---- ensemble_agg.c ------------------------------------------------------ */

/* What the model aggregates (its descriptor, or the defaults). */
weft_status weft__ens_desc(weft_ensemble *e);
/* Read a run's CSV file into r. */
weft_status weft__ens_read_csv(weft_context *ctx, const char *path,
			       weft__ens_result *r);
/* Write the per-scenario CSVs and the summary into the set. */
weft_status weft__ens_aggregate(weft_ensemble *e);
/* Add a summary line. */
weft_status weft__ens_summary(weft_ensemble *e, const char *key,
			      const char *fmt, ...) WEFT_PRINTF(3, 4);
/* The shortest text of v that reads back as v. */
void weft__ens_num(char *buf, size_t size, double v);

/* ---- ensemble_plot.c ----------------------------------------------------- */

/* Band plots per scenario and the comparison plot ([output] plot). */
weft_status weft__ens_plots(weft_ensemble *e);

#endif
