/*
 * core/ensemble.h - ensembles of runs ([ensemble], [sweep], [scenario
 * NAME]): the plan of runs (ensemble_plan.c), running them and their
 * results (ensemble.c), the aggregates and summary (ensemble_agg.c) and
 * the band plots (ensemble_plot.c). docs/design.md, "Ensembles".
 */
#ifndef WEFT_ENSEMBLE_H
#define WEFT_ENSEMBLE_H

#include "internal.h"
#include "output.h"

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
