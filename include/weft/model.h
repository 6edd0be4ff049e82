/*
 * weft/model.h - the model author's header.
 *
 * A model is a plugin, weft-model-NAME.so, built from one directory:
 *   NAME.wk   its kernels, in the portable dialect (weft/kernel.h), once;
 *             weft-wk turns it into NAME_kernels.c (the host builds, the
 *             embedded source and the kernels' buffer signatures) and
 *             NAME_kernels.h (a launch helper per kernel);
 *   NAME.c    host code: parameters, state, the step's launch list,
 *             outputs, through the functions below and nothing else, and
 *             the entry (WEFT_MODEL_ENTRY).
 * A model never calls a backend API and a backend never sees model code:
 * the core hands the model's program (source text plus host-compiled
 * kernels) to whatever backend was chosen. The types both sides share
 * (weft_buf, weft_program_desc, weft_launch) are in weft/program.h,
 * included here. docs/writing-a-model.md walks from the installed
 * templates (share/weft/model-template-minimal, share/weft/model-template)
 * to a model that passes `weft conform`.
 *
 * What a first model needs, and what it may add later. The descriptor
 * (weft_model) and the functions below are grouped so:
 *
 *   every model   the descriptor's header (ABI, name, version, summary),
 *                 keys, program and sigs, setup(), finish(), teardown()
 *                 and conform_sets; and these functions: weft_model_fail,
 *                 weft_model_int/real/bool/string (one per key type),
 *                 weft_model_where, weft_model_seed, weft_model_steps,
 *                 weft_model_alloc, weft_model_free, weft_model_upload,
 *                 weft_model_download, weft_model_set_step and
 *                 weft_model_summary. The minimal template
 *                 (model-template-minimal) calls only these.
 *   optional: output files
 *                 weft_model_output_open and weft_output_*: CSV files
 *                 committed with the run; the descriptor's plot, and
 *                 weft_model_plot; weft_model_output_every and
 *                 weft_model_want_csv ([output] every and csv).
 *   optional: outputs between steps
 *                 collect() and emit(), with weft_model_copy,
 *                 weft_model_download_async, weft_model_output_slots and
 *                 weft_model_rows_*: rows read back while the next steps
 *                 run (the full template, models/template, does this).
 *   optional: checkpoints
 *                 the descriptor's checkpoints, with weft_model_state and,
 *                 for host memory that is state, weft_model_state_host.
 *   optional: validation and the memory estimate
 *                 check(); estimate(), with weft_model_estimate_add,
 *                 weft_model_estimate_setup and weft_model_rows_bytes.
 *   optional: long setups
 *                 weft_model_cancelled and weft_model_progress.
 *   optional: floating-point state
 *                 weft_model_buffer_tolerance.
 *   optional: ensembles
 *                 the descriptor's ensemble (what is aggregated).
 *   optional: applications that drive the run
 *                 weft_model_add_list and weft_model_array (CartPole).
 *   optional: environments (reinforcement learning)
 *                 the descriptor's env, with weft_model_env_spaces and
 *                 the protocol's views and lists (weft/env.h).
 *
 * Loading a model plugin from a harness (weft_model_plugin_open) is in
 * weft/harness.h.
 */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include <stdarg.h>
#include <weft/common.h>
#include <weft/env.h>
#include <weft/program.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_MODEL_ABI 1

/* ---- declared configuration keys (shared with the core's own sections) */

typedef enum weft_key_type {
	WEFT_KEY_INT,	 /* integer, range [min, max] */
	WEFT_KEY_REAL,	 /* finite real, range [min, max] */
	WEFT_KEY_BOOL,	 /* true/false, yes/no, on/off, 1/0 */
	WEFT_KEY_STRING, /* any text */
	WEFT_KEY_ENUM	 /* one of choices, "a|b|c" */
} weft_key_type;

typedef struct weft_key_desc {
	const char *name;
	weft_key_type type;
	const char *def; /* default, written as in an INI file */
	double min, max; /* INT and REAL only, inclusive */
	const char *choices;
	const char *help;
} weft_key_desc;

/* ---- what a model plots ([output] plot) ------------------------------ */

/* One curve of a plot: the sum of one or more columns of the CSV, named as
 * in its header line and joined by '+' ("S", or "I_asym+I_sym"). */
typedef struct weft_plot_curve {
	const char *columns;
	const char *label; /* its title in the key */
	const char *color; /* "#rrggbb", or NULL for gnuplot's next colour */
} weft_plot_curve;

/* A plot of one of the model's CSV outputs against one of its columns. The
 * core writes a gnuplot script next to the CSV and runs gnuplot on it
 * after the last step (docs/plots.md). Grows only by appending
 * fields; the core reads those that struct_size covers. */
typedef struct weft_plot_desc {
	uint32_t struct_size; /* sizeof(weft_plot_desc) */
	const char *csv;      /* the output plotted, as opened: "daily.csv" */
	const char *title;
	const char *x; /* the column of the x axis, by name */
	const char *xlabel, *ylabel;
	const weft_plot_curve *curves;
	uint32_t n_curves;
	/* A second panel under the first, same x axis, its own y scale (for
	 * curves too small to see beside the first panel's): n_curves2 = 0
	 * for none. */
	const char *ylabel2;
	const weft_plot_curve *curves2;
	uint32_t n_curves2;
} weft_plot_desc;

/* ---- what an ensemble aggregates ([ensemble], [sweep], [scenario]) ---- */

/* How a run's final outcome is read from its series (the rows of the
 * ensemble's CSV): the value of the last row, the largest value, the x
 * (step column) of the first row with the largest value, or the sum of
 * all rows. */
typedef enum weft_outcome_kind {
	WEFT_OUTCOME_LAST,
	WEFT_OUTCOME_MAX,
	WEFT_OUTCOME_ARGMAX,
	WEFT_OUTCOME_SUM
} weft_outcome_kind;

/* One final outcome of a run, shown in the ensemble's summary with its
 * mean and 5-95 % interval across runs: `kind` of the sum of `columns`
 * ("cumulative", "I_asym+I_sym"), divided by the sum of `per` in the
 * first row when per is not NULL (the population), times scale (0 is
 * taken as 1). */
typedef struct weft_outcome_desc {
	const char *name; /* [a-z0-9_]+: "attack_rate_pct", "peak_day" */
	const char *columns;
	uint32_t kind; /* a weft_outcome_kind */
	const char *per;
	double scale;
} weft_outcome_desc;

/* What an ensemble of runs of the model aggregates (docs/ensembles.md):
 * one of the CSV files it writes, with one row per output step; per
 * step, every column of `columns` gets its mean, standard deviation and
 * quantiles across runs. A model without this descriptor
 * (built for model ABI 1.3 or older, or leaving it NULL) gets the CSV of
 * its plot, its x column, and every other column, with the last row of
 * each column as its outcomes. Grows only by appending fields; the core
 * reads those that struct_size covers. */
typedef struct weft_ensemble_desc {
	uint32_t struct_size; /* sizeof(weft_ensemble_desc) */
	const char *csv;      /* the output aggregated: "daily.csv" */
	const char *x;	      /* its step column, the same in every run */
	const char *columns;  /* ','-separated; NULL: every column but x */
	/* Band plots: ','-separated columns drawn with their 5-95 % and
	 * 25-75 % bands and median, one plot per scenario; NULL: the first
	 * four aggregated columns. */
	const char *bands;
	const char *compare; /* the column compared across scenarios in one
			      * plot; NULL: the first of bands */
	const weft_outcome_desc *outcomes;
	uint32_t n_outcomes;
	/* Model ABI 1.6 (read only when struct_size covers it; optional).
	 * A BOOL key of the model's section that turns on its common random
	 * numbers mode (SEIR's "crn"): draws that stay paired, agent by
	 * agent, between two runs of one seed whose histories part. An
	 * ensemble that compares runs (two scenarios or sweep points or
	 * more) sets it true in every run unless the configuration sets it
	 * itself (in the model's section, a --set, a scenario or the
	 * sweep). NULL: the model has no such mode. */
	const char *crn_key;
} weft_ensemble_desc;

/* The 1.4 layout of weft_ensemble_desc, before crn_key. */
#define WEFT_ENSEMBLE_DESC_V1_4_SIZE \
	(offsetof(weft_ensemble_desc, n_outcomes) + sizeof(uint32_t))

/* ---- kernel signatures ------------------------------------------------ */

/* The buffers a kernel binds, by name, in slot order: what the kernel
 * declares with WEFT_BUF(T, name) in its .wk file. weft-wk generates one
 * per kernel (NAME_kernels.c) with the host builds and the embedded
 * source, and a launch helper per kernel that binds buffers by those
 * names (NAME_kernels.h). weft_model_set_step() and weft_model_add_list()
 * check every launch against its kernel's signature: as many buffers as
 * the kernel declares, none of them NULL. */
typedef struct weft_kernel_sig {
	const char *kernel;	 /* program->kernels[i].name */
	const char *const *bufs; /* slot k is bufs[k] */
	uint32_t n_bufs;	 /* at most WEFT_KERNEL_MAX_BUFS */
} weft_kernel_sig;

/* ---- the model descriptor -------------------------------------------- */

/* A model is a shared object weft-model-NAME.so exporting one data symbol,
 * WEFT_MODEL_ENTRY_SYMBOL, of type `const weft_model`: the loader reads
 * its header and checks the whole table (ABI, size, name, functions, keys,
 * kernels and signatures) before any of the model's code runs. */
#define WEFT_MODEL_ABI_MAJOR	1
#define WEFT_MODEL_ABI_MINOR	9
#define WEFT_MODEL_ENTRY_SYMBOL "weft_model_entry"

/* Export the entry of a model plugin; everything else in it is static (or
 * hidden):  WEFT_MODEL_ENTRY = { .abi_major = WEFT_MODEL_ABI_MAJOR, ... }; */
#define WEFT_MODEL_ENTRY                                             \
	WEFT_EXPORT extern const struct weft_model weft_model_entry; \
	const struct weft_model weft_model_entry

typedef struct weft_model_ctx weft_model_ctx;
/* What a model's estimate() fills, through weft_model_estimate_add(). */
typedef struct weft_model_estimate weft_model_estimate;

typedef struct weft_model {
	/* Header, identical in every ABI version. */
	uint32_t abi_major;   /* WEFT_MODEL_ABI_MAJOR it was built for */
	uint32_t abi_minor;   /* WEFT_MODEL_ABI_MINOR it was built for */
	uint32_t struct_size; /* sizeof(weft_model) it was built with */
	const char *name;     /* NAME of weft-model-NAME.so, [a-z0-9_]+; also
			       * the INI section of its parameters */
	const char *version;  /* the model's own version string */
	const char *summary;  /* one line for `weft models` */

	/* ABI 1.0. Every model: keys (n_keys may be 0), program and sigs,
	 * setup(), finish() and teardown(), conform_sets. */
	const weft_key_desc *keys; /* its section's keys, each with a help */
	uint32_t n_keys;
	/* Its kernels (host builds and source) and their signatures, one
	 * per kernel: NAME_program and NAME_sigs, which weft-wk writes. */
	const weft_program_desc *program;
	const weft_kernel_sig *sigs;

	/* Read parameters, build and upload the state, declare the step's
	 * launches with weft_model_set_step(). *state is the model's own. */
	weft_status (*setup)(weft_model_ctx *mc, void **state);
	/* Called once after the last step: final outputs and summary. */
	weft_status (*finish)(weft_model_ctx *mc, void *state);
	/* Whenever *state was set, also after a failed setup. */
	void (*teardown)(weft_model_ctx *mc, void *state);

	/* Optional: outputs between steps, in two halves, so that reading
	 * results back overlaps the next steps and formatting them runs on
	 * the core's writer thread. Both or neither (NULL: a model without
	 * outputs between steps, which may still write files in finish()).
	 *
	 * collect: on the main thread, right after the chunk of steps that
	 * ends at steps_done was enqueued (after every chunk that ends on a
	 * multiple of [output] every, and after the last step). Enqueues
	 * what is due and never waits: device-to-device copies into the
	 * model's own snapshot buffers (weft_model_copy), then asynchronous
	 * reads into host memory of slot `slot` (weft_model_download_async,
	 * or weft_model_rows_*). The core rotates through
	 * weft_model_output_slots() slots; host memory of a slot is the
	 * model's until emit() of that slot has returned, and the core does
	 * not hand the slot out again before.
	 *
	 * emit: on the writer thread, in chunk order, once everything collect
	 * enqueued for that chunk has completed (its host memory filled).
	 * Formats and writes outputs (weft_output_*) from host memory only:
	 * it must not call the backend (transfers, allocations, set_step are
	 * refused there), open outputs or add summary lines, and must not
	 * touch host memory that collect() of a later chunk writes. A failure
	 * (weft_model_fail, or a failed weft_output_*) fails the run. */
	weft_status (*collect)(weft_model_ctx *mc, void *state,
			       uint64_t steps_done, unsigned slot);
	weft_status (*emit)(weft_model_ctx *mc, void *state,
			    uint64_t steps_done, unsigned slot);

	/* A small, fast configuration for the conformance suite (`weft
	 * conform`), as newline-separated "section.key=value" overrides,
	 * e.g. "seir.agents=5000\nsimulation.steps=40". NULL: the model's
	 * defaults. */
	const char *conform_sets;
	/* Optional: what [output] plot draws once the run has finished,
	 * from one of the CSV files the model writes. NULL: no plot. */
	const weft_plot_desc *plot;

	/* ABI 1.1 (read only when struct_size covers it; optional). */
	/* Validate the parameters, every check that needs no run: values
	 * that are valid alone but not together, the syntax of structured
	 * strings, limits that follow from the parameters. Called by
	 * weft_config_validate() (so `weft check` sees what a run would
	 * refuse) and by the run before setup(). Reads parameters and calls
	 * weft_model_fail() only: no memory on a device, no outputs, no
	 * files read (mc has no run). setup() calls the same functions to
	 * read what it checked, so the checks are written once. It runs in
	 * a fork()ed child of the process (a crash there is an error naming
	 * the plugin): nothing it changes in memory outlives the call. */
	weft_status (*check)(weft_model_ctx *mc);

	/* ABI 1.2 (read only when struct_size covers it; optional). */
	/* Nonzero when setup() declares everything that a step changes and
	 * later steps or outputs depend on: device buffers with
	 * weft_model_state(), host memory (counters that emit() keeps, say)
	 * with weft_model_state_host(). Such a run can be checkpointed
	 * ([checkpoint] every) and resumed (`weft run --resume`): the core
	 * saves those bytes, the step reached and the outputs so far, and on
	 * resume runs setup() as usual and writes them back
	 * (docs/checkpoints.md). 0, and models built for 1.0 and
	 * 1.1: a configuration that asks for checkpoints is refused. */
	uint32_t checkpoints;

	/* ABI 1.3 (read only when struct_size covers it; optional). */
	/* The memory a run of these parameters needs, before anything is
	 * allocated: one weft_model_estimate_add() per part (agents,
	 * contacts, the daily series), each with the keys that drive it,
	 * its host bytes (the most setup() and the run hold at once:
	 * scratch, host copies) and its device bytes (weft_model_alloc,
	 * the output snapshots included). Computed from the parameters
	 * and, for input files, from their sizes and first lines (never
	 * reading them whole). Called after check() by
	 * weft_config_validate() (`weft check` reports it) and by the run,
	 * which refuses to start when it does not fit in MemAvailable or
	 * the device's free memory. The same restrictions as check(), but
	 * it may stat() and read the start of input files. */
	weft_status (*estimate)(weft_model_ctx *mc, weft_model_estimate *est);

	/* ABI 1.4 (read only when struct_size covers it; optional). */
	/* What an ensemble aggregates across runs: its CSV, columns and
	 * final outcomes. NULL, and models built for 1.3 and older: the
	 * defaults weft_ensemble_desc describes. */
	const weft_ensemble_desc *ensemble;

	/* ABI 1.5 (read only when struct_size covers it; optional). */
	/* An environment model (weft/env.h): the ids it serves and its
	 * keys for the number of environments, the autoreset mode and the
	 * precision. setup() then declares the spaces and the protocol's
	 * views and lists, which the core checks. NULL: not an
	 * environment. */
	const weft_env_model *env;

	/* ABI 1.7 (read only when struct_size covers it; optional). */
	/* How many output points one collect() may serve; 0 or 1: one each.
	 * A model whose collect() reads back only what its steps append
	 * (rows of weft_model_rows_*) or what only grows (weft/agents.h's
	 * control block, whose overflow records its step) writes the same
	 * outputs when the core calls collect() at every collect_points-th
	 * output point only: the steps between run as one chunk, with no
	 * host work between them. collect() and emit() then handle the rows
	 * of up to that many points at once (weft_model_rows_due() gives
	 * them, and the snapshot must hold them). The run's end, a
	 * checkpoint and an application stepping the run itself
	 * (weft_sim_step) still end a chunk where they fall. */
	uint32_t collect_points;
} weft_model;

/* The size of the first published layout: a model's struct_size is at
 * least this. Fields appended later are read only when struct_size covers
 * them. */
#define WEFT_MODEL_V1_0_SIZE \
	(offsetof(weft_model, plot) + sizeof(const weft_plot_desc *))
/* The 1.1 layout, which appended check(). */
#define WEFT_MODEL_V1_1_SIZE \
	(offsetof(weft_model, check) + sizeof(weft_status(*)(weft_model_ctx *)))
/* The 1.2 layout, which appended checkpoints. */
#define WEFT_MODEL_V1_2_SIZE \
	(offsetof(weft_model, checkpoints) + sizeof(uint32_t))

/* The 1.3 layout, which appended estimate(). */
#define WEFT_MODEL_V1_3_SIZE              \
	(offsetof(weft_model, estimate) + \
	 sizeof(weft_status(*)(weft_model_ctx *, weft_model_estimate *)))

/* The 1.4 layout, which appended ensemble. */
#define WEFT_MODEL_V1_4_SIZE \
	(offsetof(weft_model, ensemble) + sizeof(const weft_ensemble_desc *))

/* The 1.5 layout, which appended env (1.6 changed weft_ensemble_desc
 * only). */
#define WEFT_MODEL_V1_5_SIZE \
	(offsetof(weft_model, env) + sizeof(const weft_env_model *))

/* The 1.7 layout, which appended collect_points. */
#define WEFT_MODEL_V1_7_SIZE \
	(offsetof(weft_model, collect_points) + sizeof(uint32_t))

/* ---- what a model may ask of the core ------------------------------- */
/* Exported from libweft, which every model plugin links (pkg-config
 * weft). Grouped by need, as the opening comment says: "every model",
 * then one group for each optional part. check() and estimate() may only
 * read parameters (and fail); emit(), on the writer thread, may only
 * write outputs from host memory: the calls that reach the device or
 * change the run fail with WEFT_E_INVALID there. */

/* ---- every model: messages and parameters ----------------------------- */

/* Record a failure message (prefixed with the model name) and return st. */
WEFT_EXPORT weft_status weft_model_fail(weft_model_ctx *mc, weft_status st,
					const char *fmt, ...) WEFT_PRINTF(3, 4);

/* Parameters of the model's own section, already validated. A string is
 * the configuration's: valid until the run is closed, never freed by the
 * model. */
WEFT_EXPORT int64_t weft_model_int(const weft_model_ctx *mc, const char *key);
WEFT_EXPORT double weft_model_real(const weft_model_ctx *mc, const char *key);
WEFT_EXPORT int weft_model_bool(const weft_model_ctx *mc, const char *key);
WEFT_EXPORT const char *weft_model_string(const weft_model_ctx *mc,
					  const char *key);
/* Where a key's value came from ("astoria.ini:12", "--set seir.beta",
 * "default"), for error messages about values that are valid alone but not
 * together. The configuration's string, as for weft_model_string(). */
WEFT_EXPORT const char *weft_model_where(const weft_model_ctx *mc,
					 const char *key);

/* [simulation] seed and steps. */
WEFT_EXPORT uint64_t weft_model_seed(const weft_model_ctx *mc);
WEFT_EXPORT uint64_t weft_model_steps(const weft_model_ctx *mc);

/* ---- every model: device memory, the step, the summary ---------------- */

/* Device memory; `what` names the buffer in error messages and state
 * digests. *out is the model's: free it with weft_model_free() (in
 * teardown(); NULL is ignored). */
WEFT_EXPORT weft_status weft_model_alloc(weft_model_ctx *mc, const char *what,
					 size_t bytes, weft_buf **out);
WEFT_EXPORT void weft_model_free(weft_model_ctx *mc, weft_buf *buf);

/* Blocking host-to-device and device-to-host copies. */
WEFT_EXPORT weft_status weft_model_upload(weft_model_ctx *mc, weft_buf *dst,
					  size_t offset, const void *src,
					  size_t bytes);
WEFT_EXPORT weft_status weft_model_download(weft_model_ctx *mc, void *dst,
					    weft_buf *src, size_t offset,
					    size_t bytes);

/* The launches that make up one step; copied. Each launch is checked
 * against its kernel's signature (weft_kernel_sig). */
WEFT_EXPORT weft_status weft_model_set_step(weft_model_ctx *mc,
					    const weft_launch *l, uint32_t n);

/* Add a line to the run summary ("attack rate" = "53.1 %"); key and the
 * formatted value are copied. */
WEFT_EXPORT weft_status weft_model_summary(weft_model_ctx *mc, const char *key,
					   const char *fmt, ...)
	WEFT_PRINTF(3, 4);

/* ---- optional: output files ------------------------------------------- */

/* Output stride in steps ([output] every). */
WEFT_EXPORT uint64_t weft_model_output_every(const weft_model_ctx *mc);
/* Whether the per-step CSV is wanted ([output] csv). */
WEFT_EXPORT int weft_model_want_csv(const weft_model_ctx *mc);

/* Output files: written to a temporary file under [output] directory and
 * renamed into place only when the whole run succeeds. *out belongs to
 * the run, which closes and commits it (or removes it): the model writes
 * to it until finish() returns and never closes it. Opened in setup(), or
 * in finish() for a file written at the end; not from emit(). */
typedef struct weft_output weft_output;
WEFT_EXPORT weft_status weft_model_output_open(weft_model_ctx *mc,
					       const char *filename,
					       weft_output **out);
WEFT_EXPORT weft_status weft_output_printf(weft_output *o, const char *fmt, ...)
	WEFT_PRINTF(2, 3);
WEFT_EXPORT weft_status weft_output_write(weft_output *o, const void *data,
					  size_t bytes);
/* Another plot ([output] plot), of another CSV the model writes, for plots
 * that depend on the parameters (SEIR's by_age.csv: a curve per
 * configured age band). Drawn like the descriptor's `plot`, after it, into
 * NAME.gp and NAME.png beside NAME.csv. Only in setup; pd, its strings and
 * its curves are copied. */
WEFT_EXPORT weft_status weft_model_plot(weft_model_ctx *mc,
					const weft_plot_desc *pd);

/* ---- optional: outputs between steps (collect() and emit()) ----------- */

/* For collect(): enqueued, never waited for. A device-to-device copy
 * (within one buffer it behaves like memmove()), and an asynchronous read
 * whose bytes are in dst when emit() of the chunk is called: dst must stay
 * valid, and untouched by the model, until then. */
WEFT_EXPORT weft_status weft_model_copy(weft_model_ctx *mc, weft_buf *dst,
					size_t dst_offset, weft_buf *src,
					size_t src_offset, size_t bytes);
WEFT_EXPORT weft_status weft_model_download_async(weft_model_ctx *mc, void *dst,
						  weft_buf *src, size_t offset,
						  size_t bytes);
/* How many slots collect() and emit() rotate through (at least 2): chunk c
 * uses slot c % slots. Known from setup() on, to size snapshot buffers. */
WEFT_EXPORT unsigned weft_model_output_slots(const weft_model_ctx *mc);

/* A row series read back through output snapshots, for models whose step
 * appends fixed-size rows to a device buffer (daily counts, statistics):
 * the snapshot buffer ("series snapshots", slot_rows rows per output
 * slot) and the bookkeeping of which rows each slot holds.
 *   setup():   weft_model_rows_open(mc, series, host, row_bytes, ...);
 *              host (same layout as series, as many rows) is the model's
 *              and stays valid until close;
 *   collect(): weft_model_rows_collect(mc, rows, slot, end) enqueues the
 *              rows not read yet, up to end (exclusive): a copy into the
 *              slot's region, then an asynchronous read into host at the
 *              rows' own place;
 *   emit():    weft_model_rows_slot() gives the rows [first, end) of the
 *              slot, now in host;
 *   teardown(): weft_model_rows_close() (NULL is fine).
 * *out is the model's: weft_model_rows_close() frees it and its snapshot
 * buffer (series and host stay the model's).
 * For checkpoints it declares the series and the snapshot buffer state
 * itself, records how many rows were collected, and on resume reads the
 * rows collected before the checkpoint back into host (finish() may then
 * read every row there, as after an uninterrupted run). */
typedef struct weft_model_rows weft_model_rows;
WEFT_EXPORT weft_status weft_model_rows_open(weft_model_ctx *mc,
					     weft_buf *series, void *host,
					     size_t row_bytes,
					     uint64_t slot_rows,
					     weft_model_rows **out);
WEFT_EXPORT weft_status weft_model_rows_collect(weft_model_ctx *mc,
						weft_model_rows *rows,
						unsigned slot, uint64_t end);
WEFT_EXPORT void weft_model_rows_slot(const weft_model_rows *rows,
				      unsigned slot, uint64_t *first,
				      uint64_t *end);
/* Rows collected so far (0 for NULL). */
WEFT_EXPORT uint64_t weft_model_rows_read(const weft_model_rows *rows);
/* The usual stride's rows once steps_done steps are done, the `end` that
 * collect() gives weft_model_rows_collect(): `first` rows before any
 * step (1: a row 0 holding the state at step 0; 0: none), one per
 * multiple of `every`, and one after last_step when it is not a multiple
 * of every; at most n_rows. */
WEFT_EXPORT uint64_t weft_model_rows_due(uint64_t steps_done, uint64_t every,
					 uint64_t last_step, uint64_t first,
					 uint64_t n_rows);
WEFT_EXPORT void weft_model_rows_close(weft_model_ctx *mc,
				       weft_model_rows *rows);

/* ---- optional: checkpoints (the descriptor's `checkpoints`) ----------- */

/* Only in setup(). Declare buf (from weft_model_alloc) part of the state:
 * what steps change and later steps or outputs read (agents' states,
 * counters and step counters on the device, a series of rows). A
 * checkpoint saves its bytes; a resumed run writes them back after
 * setup() has built everything else again. Buffers setup() fills and no
 * step changes (parameters, contact networks) are not state: a resume
 * checks that setup() rebuilt them byte for byte. Declaring a buffer
 * twice is harmless. */
WEFT_EXPORT weft_status weft_model_state(weft_model_ctx *mc, weft_buf *buf);
/* Declare `bytes` of host memory at `data` part of the state, under a
 * name ([a-z0-9_]+, unique): totals that emit() adds up, say. It must
 * stay valid until teardown and hold plain bytes (fixed-width integers,
 * no pointers): a checkpoint copies it as it is, once the writer thread
 * has emitted every chunk collected so far, and a resume copies it back
 * after setup(). data stays the model's. */
WEFT_EXPORT weft_status weft_model_state_host(weft_model_ctx *mc,
					      const char *name, void *data,
					      size_t bytes);

/* ---- optional: the memory estimate (estimate()) ----------------------- */

/* For estimate(): one part of the memory a run needs. what names it
 * ("agents", "contacts"), keys says what drives it, as a user would
 * change it ("[seir] agents = 100000000"); both are copied. Bytes add up
 * across parts: host_bytes is what the part holds in host memory at the
 * run's peak, device_bytes in the device's. */
WEFT_EXPORT weft_status weft_model_estimate_add(weft_model_estimate *est,
						const char *what,
						const char *keys,
						uint64_t host_bytes,
						uint64_t device_bytes);
/* For estimate(): host memory that setup() holds only before its first
 * weft_model_alloc() and frees before it (building a population from
 * its parameters): on a backend whose device memory is the host's, it
 * is never held together with the device buffers. */
WEFT_EXPORT weft_status weft_model_estimate_setup(weft_model_estimate *est,
						  const char *what,
						  const char *keys,
						  uint64_t host_bytes);
/* The device bytes weft_model_rows_open() allocates for its snapshots of
 * rows of row_bytes, slot_rows per slot. */
WEFT_EXPORT uint64_t weft_model_rows_bytes(const weft_model_ctx *mc,
					   size_t row_bytes,
					   uint64_t slot_rows);

/* ---- optional: long setups -------------------------------------------- */

/* 1 when the run was cancelled (weft_context_cancel(), the weft
 * command's SIGINT or SIGTERM). A model's long loops in setup() (building
 * a population from millions of agents, reading large files) ask it, say
 * once per ten thousand agents or rows, and return
 * weft_model_fail(mc, WEFT_E_CANCELLED, "...") at once, so that the run
 * ends promptly. Async-signal-safe flag read; 0 for NULL. */
WEFT_EXPORT int weft_model_cancelled(const weft_model_ctx *mc);

/* Progress of setup()'s long phases, for the application's progress line
 * (weft_context_set_progress(); the weft command shows it): what the
 * model is doing ("building the work layer"; the core adds "model
 * NAME: "), and done of total units when it knows them (total 0: a phase
 * without a count). Call it when a phase starts and, in long loops, say
 * every million agents; the application decides what to show. Ignored
 * outside setup() and finish() (from check() and emit()). */
WEFT_EXPORT void weft_model_progress(const weft_model_ctx *mc, const char *what,
				     uint64_t done, uint64_t total);

/* ---- optional: floating-point state ----------------------------------- */

/* Declare buf (from weft_model_alloc) as holding f32 elements that the
 * conformance suite compares across backends within abs_tol; any other
 * buffer must match byte for byte. */
WEFT_EXPORT weft_status weft_model_buffer_tolerance(weft_model_ctx *mc,
						    weft_buf *buf,
						    double abs_tol);

/* ---- optional: for applications that drive the run -------------------- */

/* A launch list of its own name, besides the step's, for applications
 * that drive the run themselves (weft_sim_list() and weft_sim_launch() in
 * weft/weft.h): CartPole's "act" (a step with the actions in the action
 * buffer) or "reset". Copied and checked like the step's; names are
 * [a-z0-9_]+, unique, and "step" is the step's own list. Only in setup. */
WEFT_EXPORT weft_status weft_model_add_list(weft_model_ctx *mc,
					    const char *name,
					    const weft_launch *l, uint32_t n);
/* A typed view of part of a buffer, by name, for applications
 * (weft_sim_array() in weft/weft.h: a binding hands it to numpy, PyTorch
 * or JAX without a copy, as DLPack describes a tensor): elements of
 * `dtype` from byte `offset` of buf, C order, shape[0..ndim). Names are
 * [a-z0-9_]+ and unique; the view must lie inside the buffer. Only in
 * setup. */
WEFT_EXPORT weft_status weft_model_array(weft_model_ctx *mc, const char *name,
					 weft_buf *buf, size_t offset,
					 weft_dtype dtype, uint32_t ndim,
					 const int64_t *shape);

/* ---- optional: environments (the descriptor's env) -------------------- */

/* Only in setup, once, by an environment model: one environment's
 * observation and action spaces (weft/env.h). Both are copied, bounds
 * included. The core checks them (a Box's bounds low <= high, a
 * Discrete's n >= 1 and dtype an integer type) and, after setup(), that
 * the protocol's views have these dtypes and shapes. */
WEFT_EXPORT weft_status weft_model_env_spaces(weft_model_ctx *mc,
					      const weft_env_space *obs,
					      const weft_env_space *action);

/* Where an environment model keeps the protocol's views (weft/env.h):
 * obs, reward, terminated, truncated and final_obs at byte offsets of
 * one buffer (io), the others at offset 0 of their own buffers. Grows
 * only by appending fields; the core reads those that struct_size
 * covers. */
typedef struct weft_env_views {
	uint32_t struct_size;  /* sizeof(weft_env_views) */
	uint32_t reward_dtype; /* WEFT_DTYPE_F32 or WEFT_DTYPE_F64 */
	weft_buf *io;
	size_t obs, reward, terminated, truncated, final_obs;
	weft_buf *actions, *reset_mask, *reset_seed;
	weft_buf *env_book; /* weft/env.wk's bookkeeping */
	/* The optional view "state": dtype [n, state_k]; NULL for none. */
	weft_buf *state;
	uint32_t state_dtype;
	int64_t state_k;
} weft_env_views;

/* Only in setup, after weft_model_env_spaces(): declare every view of
 * the protocol (weft_model_array) with the dtypes and shapes the spaces
 * and the count key give: obs and final_obs [n, O], actions [n, A] ([n]
 * for Discrete), reward, terminated, truncated, reset_mask, reset_seed
 * [n], env_book u32 [WEFT_ENV_WORDS, n], and state when v->state is
 * not NULL. The model declares views of its own besides with
 * weft_model_array. */
WEFT_EXPORT weft_status weft_model_env_views(weft_model_ctx *mc,
					     const weft_env_views *v);

/* Only in setup, by an environment model: the view `name`, declared
 * before with weft_model_array, is one of its info fields (weft/env.h),
 * Gymnasium's info[name] of every step: its first dimension is the
 * number of environments, it lies in the buffer of obs (so that a device
 * backend brings it back with the step's other results in one read),
 * and the act list writes it (reset_some too, for the environments it
 * resets). Not one of the protocol's views, nor final_info, nor a name
 * that begins with '_' (Gymnasium's masks); each named once; at most
 * WEFT_ENV_MAX_INFO. Model ABI 1.8. */
WEFT_EXPORT weft_status weft_model_env_info(weft_model_ctx *mc,
					    const char *name);

/* For finish(): read env_book (weft/env.wk's bookkeeping, as
 * weft_model_env_views declares it) and add the summary lines "episodes
 * ended" (their number) and "mean return" (their returns summed in
 * environment order, the same on every backend, over their number; 0
 * when none ended). */
WEFT_EXPORT weft_status weft_model_env_summary(weft_model_ctx *mc,
					       weft_buf *env_book);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_MODEL_H */
