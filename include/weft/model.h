/*
 * weft/model.h - the model author's header.
 *
 * A model is one directory under models/ with:
 *   NAME.wk   its kernels, in the portable dialect (weft/kernel.h), once;
 *   NAME.c    host code: parameters, population, the step's launch list,
 *             outputs, through the functions below and nothing else.
 * A model never calls a backend API and a backend never sees model code:
 * the core hands the model's program (source text plus host-compiled
 * kernels) to whatever backend was chosen.
 */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include <stdarg.h>
#include <weft/backend.h>
#include <weft/common.h>

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
 * after the last step (docs/design.md, "Plots"). Grows only by appending
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

/* ---- kernel signatures ------------------------------------------------ */

/* The buffers a kernel binds, by name, in slot order: what the kernel
 * declares with WEFT_BUF(T, name) in its .wk file. weft-wk generates one
 * per kernel (NAME_kernels.c) with the host builds and the embedded
 * source, and a launch helper per kernel that binds buffers by those
 * names (NAME_kernels.h). weft_model_set_step() and weft_model_add_list()
 * check every launch against its kernel's signature: as many buffers as
 * the kernel declares, none of them NULL. */
typedef struct weft_kernel_sig {
	const char *kernel;	 /* program.kernels[i].name */
	const char *const *bufs; /* slot k is bufs[k] */
	uint32_t n_bufs;	 /* at most WEFT_KERNEL_MAX_BUFS */
} weft_kernel_sig;

/* ---- the model descriptor -------------------------------------------- */

typedef struct weft_model_ctx weft_model_ctx;

typedef struct weft_model {
	uint32_t abi_version; /* WEFT_MODEL_ABI */
	uint32_t struct_size; /* sizeof(weft_model) */
	const char *name;     /* also the INI section of its parameters */
	const char *summary;  /* one line for `weft models` */
	const weft_key_desc *keys;
	uint32_t n_keys;
	weft_program_desc program;

	/* Read parameters, build and upload the state, declare the step's
	 * launches with weft_model_set_step(). *state is the model's own. */
	weft_status (*setup)(weft_model_ctx *mc, void **state);
	/* Called between chunks of steps (never inside step()), after
	 * steps_done steps in all: read back and write what is due. NULL
	 * when the model has collect() and emit() (below) instead. */
	weft_status (*output)(weft_model_ctx *mc, void *state,
			      uint64_t steps_done);
	/* Called once after the last step: final outputs and summary. */
	weft_status (*finish)(weft_model_ctx *mc, void *state);
	void (*teardown)(weft_model_ctx *mc, void *state);

	/* Appended after the first layout (read only when struct_size covers
	 * it): a small, fast configuration for the conformance suite
	 * (`weft conform`), as newline-separated "section.key=value"
	 * overrides, e.g. "seir.agents=5000\nsimulation.steps=40". NULL: the
	 * model's defaults. */
	const char *conform_sets;

	/* Appended after conform_sets (read only when struct_size covers
	 * them): output in two halves instead of output(), so that reading
	 * results back overlaps the next steps and formatting them runs on
	 * the core's writer thread. A model sets both or neither; with both,
	 * output() is not called.
	 *
	 * collect: on the main thread, right after the chunk of steps that
	 * ends at steps_done was enqueued (the same points as output()).
	 * Enqueues what is due and never waits: device-to-device copies into
	 * the model's own snapshot buffers (weft_model_copy), then
	 * asynchronous reads into host memory of slot `slot`
	 * (weft_model_download_async). The core rotates through
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

	/* Appended after emit (read only when struct_size covers it): what
	 * [output] plot draws once the run has finished, from one of the
	 * CSV files the model writes. NULL: the model has no plot. */
	const weft_plot_desc *plot;
} weft_model;

/* ---- what a model may ask of the core ------------------------------- */
/* Exported from libweft; today's models are compiled into it (models/). */

/* Record a failure message (prefixed with the model name) and return st. */
WEFT_EXPORT weft_status weft_model_fail(weft_model_ctx *mc, weft_status st,
					const char *fmt, ...) WEFT_PRINTF(3, 4);

/* Parameters of the model's own section, already validated. */
WEFT_EXPORT int64_t weft_model_int(const weft_model_ctx *mc, const char *key);
WEFT_EXPORT double weft_model_real(const weft_model_ctx *mc, const char *key);
WEFT_EXPORT int weft_model_bool(const weft_model_ctx *mc, const char *key);
const char *weft_model_string(const weft_model_ctx *mc, const char *key);
/* Where a key's value came from ("astoria.ini:12", "--set seir.beta",
 * "default"), for error messages about values that are valid alone but not
 * together. */
const char *weft_model_where(const weft_model_ctx *mc, const char *key);

WEFT_EXPORT uint64_t weft_model_seed(const weft_model_ctx *mc);
WEFT_EXPORT uint64_t weft_model_steps(const weft_model_ctx *mc);
/* Output stride in steps ([output] every). */
WEFT_EXPORT uint64_t weft_model_output_every(const weft_model_ctx *mc);
/* Whether the per-step CSV is wanted ([output] csv). */
WEFT_EXPORT int weft_model_want_csv(const weft_model_ctx *mc);

/* Device memory; `what` names the buffer in error messages. */
WEFT_EXPORT weft_status weft_model_alloc(weft_model_ctx *mc, const char *what,
					 size_t bytes, weft_buf **out);
WEFT_EXPORT void weft_model_free(weft_model_ctx *mc, weft_buf *buf);
/* Declare buf (from weft_model_alloc) as holding f32 elements that the
 * conformance suite compares across backends within abs_tol; any other
 * buffer must match byte for byte. */
WEFT_EXPORT weft_status weft_model_buffer_tolerance(weft_model_ctx *mc,
						    weft_buf *buf,
						    double abs_tol);
/* Blocking host-to-device and device-to-host copies. */
WEFT_EXPORT weft_status weft_model_upload(weft_model_ctx *mc, weft_buf *dst,
					  size_t offset, const void *src,
					  size_t bytes);
WEFT_EXPORT weft_status weft_model_download(weft_model_ctx *mc, void *dst,
					    weft_buf *src, size_t offset,
					    size_t bytes);
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
 *   teardown(): weft_model_rows_close() (NULL is fine). */
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
WEFT_EXPORT void weft_model_rows_close(weft_model_ctx *mc,
				       weft_model_rows *rows);
/* The launches that make up one step; copied. */
WEFT_EXPORT weft_status weft_model_set_step(weft_model_ctx *mc,
					    const weft_launch *l, uint32_t n);

/* Output files: written to a temporary file under [output] directory and
 * renamed into place only when the whole run succeeds. */
typedef struct weft_output weft_output;
WEFT_EXPORT weft_status weft_model_output_open(weft_model_ctx *mc,
					       const char *filename,
					       weft_output **out);
WEFT_EXPORT weft_status weft_output_printf(weft_output *o, const char *fmt, ...)
	WEFT_PRINTF(2, 3);
WEFT_EXPORT weft_status weft_output_write(weft_output *o, const void *data,
					  size_t bytes);
/* Add a line to the run summary ("attack rate" = "53.1 %"). */
WEFT_EXPORT weft_status weft_model_summary(weft_model_ctx *mc, const char *key,
					   const char *fmt, ...)
	WEFT_PRINTF(3, 4);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_MODEL_H */
