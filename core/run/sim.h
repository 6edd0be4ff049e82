/*
 * core/run/sim.h - the run object, shared by sim.c (the application side) and
 * model_api.c (what models may ask of the core).
 */
#ifndef WEFT_SIM_H
#define WEFT_SIM_H

#include "config/conf.h"

#include <pthread.h>

#include "output/output.h"

/* What a model's callbacks get. The writer thread's (for emit()) has
 * writer set: failures go to the writer's context, and calls that would
 * reach the backend are refused. check() gets one without a run (sim is
 * NULL): it may read parameters and fail, nothing else. */
struct weft_model_ctx {
	weft_sim *sim;		/* NULL in check() */
	int writer;		/* emit(), on the writer thread */
	const weft_config *cfg; /* the parameters */
	const weft_model *model;
	weft_context *ctx; /* where failures go */
	/* The first key the model read that its section does not declare
	 * ("" while none): the hook that read it fails (weft__mc_end). The
	 * getters record it through a const context, which is never a
	 * const object. */
	char undeclared[128];
};

/* A model context for sim's main thread (writer = 0) or its writer. */
void weft__mc_init(weft_model_ctx *mc, weft_sim *sim, int writer);
/* The end of a model hook that returned st: WEFT_E_MODEL naming the key
 * when the hook read a key its model does not declare. */
weft_status weft__mc_end(weft_model_ctx *mc, weft_status st);

/* Slots the output pipeline rotates through: the chunk being collected,
 * the one waited for and handed over, and the one being emitted. */
#define WEFT__SIM_SLOTS 3u

/* A chunk whose outputs were collected. */
typedef struct weft__chunk {
	uint64_t steps_done;
	unsigned slot;
	uint64_t token; /* the fence after its collect() (0: none) */
} weft__chunk;

/* The writer thread (pipeline.c): emits handed chunks in order. Fields
 * below mu are shared with the main thread and read or written under it. */
typedef struct weft__writer {
	pthread_t thread;
	int ready;	   /* mu and cv initialised */
	int started;	   /* thread running, not joined */
	weft_model_ctx mc; /* the writer's, for emit() */
	weft_context ctx;  /* its failure message (read by the main thread
			    * only once it has seen `failed` under mu) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	weft__chunk queue[WEFT__SIM_SLOTS]; /* handed, not yet emitted */
	unsigned head, count;
	uint64_t emitted;   /* chunks emit() returned for, in order */
	uint64_t emit_ns;   /* emit()'s cost, a running mean (pipeline.c) */
	int quit;	    /* no more chunks will be handed */
	int abandon;	    /* emit nothing more (the run is closing) */
	weft_status failed; /* the first failed emit(), or WEFT_OK */
} weft__writer;

/* The output pipeline of a model with collect() and emit(). */
typedef struct weft__pipe {
	int on;		     /* the model has collect() and emit() */
	int fences;	     /* the backend has fence() and wait() */
	uint64_t next;	     /* index of the next chunk to collect */
	weft__chunk pending; /* collected and fenced, not yet waited for */
	int has_pending;
	int unsynced; /* collect() ran since the last sync(): reads into the
		       * model's memory may be under way */
	weft__writer w;
} weft__pipe;

/* A buffer the model allocated with weft_model_alloc: what applications
 * see as a weft_sim_buffer (weft_sim_buffer_*, run.c), and what state
 * digests read. Allocated one by one so that handles stay valid. */
typedef struct weft_sim_buffer {
	char *name; /* the `what` the model gave */
	weft_buf *buf;
	size_t bytes;
	int is_f32;	/* weft_model_buffer_tolerance() was called */
	double abs_tol; /* for f32 buffers */
	int is_state;	/* weft_model_state(): saved by checkpoints */
} weft__sim_buf;

/* Host memory the model declared part of its state
 * (weft_model_state_host). */
typedef struct weft__sim_host {
	char *name;
	void *data;
	size_t bytes;
} weft__sim_host;

/* A launch list the model declared: "step" (index 0, set_step) and those
 * of weft_model_add_list(). */
typedef struct weft__sim_list {
	char *name;
	weft_launch *l;
	uint32_t n;
} weft__sim_list;

/* A typed view the model declared (weft_model_array). */
typedef struct weft__sim_array {
	char *name;
	weft__sim_buf *b;
	size_t offset;
	uint32_t dtype, ndim;
	int64_t shape[WEFT_ARRAY_MAX_DIMS];
} weft__sim_array;

typedef struct weft__summary_line {
	char *key;
	char *value;
} weft__summary_line;

struct weft_sim {
	weft_context *ctx;
	const weft_config *cfg;
	/* cfg's validation (validate.h), while the run opens; NULL after. */
	const struct weft__valid *valid;
	weft__plugin_set *plugins; /* discovery, when chosen by name */
	weft__plugin *own_plugin;  /* loaded by path, when [backend] plugin */
	weft__plugin *plugin;	   /* the one in use */
	const weft_backend *vt;
	weft_device *dev;
	weft_program *prog;
	const weft_model *model;
	/* The file of the model's plugin (util/crash.h), for naming it in a
	 * crash; NULL when not found. */
	const char *model_file;
	void *mstate;
	weft_model_ctx mc;
	weft__sim_list *lists; /* lists[0] is "step", the step's own */
	uint32_t n_lists;
	weft__sim_array *arrays;
	size_t n_arrays;
	/* An environment model's spaces (weft_model_env_spaces): copies,
	 * their bounds in env_bounds (low and high of the observation,
	 * then of the action; NULL for infinite ones), owned. */
	int has_env_spaces;
	weft_env_space env_obs, env_act;
	double *env_bounds[4];
	/* Its info fields (weft_model_env_info): indices in arrays. */
	uint32_t env_info[WEFT_ENV_MAX_INFO];
	uint32_t n_env_info;
	int has_fences; /* the backend has fence() and wait() */
	int batched;	/* a replica of a batch (batch.c): vt is its view */
	uint64_t last_fence; /* the last token weft_sim_fence() gave */
	uint64_t steps_total, steps_done, every;
	/* Output points one chunk may span (the model's collect_points,
	 * ABI 1.7; 1 for the others): collect() runs at the chunk's end. */
	uint64_t collect_points;
	const char *outdir;
	char *cache_dir;       /* resolved default cache directory, owned */
	weft__outputs outputs; /* the new set, until and after its commit */
	weft__summary_line *summary;
	size_t n_summary;
	weft__sim_buf **bufs; /* live model buffers, in allocation order */
	size_t n_bufs;
	weft__pipe pipe;
	/* Checkpoints (checkpoint.c, resume.c): the state the model
	 * declared besides its buffers, and the run's checkpoints (NULL
	 * until one is asked for). */
	int in_setup; /* the model's setup() is running */
	int finished; /* weft_sim_finish() has begun */
	weft__sim_host *hosts;
	size_t n_hosts;
	weft_model_rows **rows; /* row series open, in opening order */
	size_t n_rows;
	struct weft__ckpt *ckpt;
	weft_plot_desc **plots; /* weft_model_plot()'s, copies, owned */
	size_t n_plots;
	/* Step timing (weft_sim_times_get): the first enqueue's clock (t0,
	 * 0 before it) and steps_done then (from), the end of the last
	 * enqueue, the first wait that covered every step enqueued
	 * (t_done, at steps_done = done_at; UINT64_MAX: none yet), the last
	 * application fence and the steps it covers, the host time spent
	 * on outputs and checkpoints between chunks, less the time of every
	 * wait made through the core (waits_ns: syncs, fence waits,
	 * blocking transfers; weft__sim_waited), which wait for the steps'
	 * work. */
	struct {
		uint64_t t0, from, t_enq, t_done, done_at;
		uint64_t fence, fence_at;
		uint64_t outputs_ns, waits_ns;
	} tm;
};

/* The backend a run of cfg uses, loaded (sim.c; validation's memory
 * verdict asks the same one, memory.c): [backend] plugin, a file loaded
 * into *own, else [backend] name from [backend] plugin_path ("auto": the
 * highest score), the discovery's set in *set; *out is the one chosen.
 * The caller frees *set and *own. */
weft_status weft__sim_choose_backend(weft_context *ctx, const weft_config *cfg,
				     weft__plugin_set **set, weft__plugin **own,
				     weft__plugin **out);
/* The device that backend opens for cfg, as [backend] says (threads,
 * platform, device: digits an index, anything else a name substring):
 * dc filled, its flags 0 and cache_dir NULL. */
void weft__sim_device_config(const weft_config *cfg, weft_device_config *dc);

/* weft_sim_open() with the model given instead of found by the name in
 * [simulation] model (whose section still holds its keys): for tests that
 * run test-only models. */
weft_status weft__sim_open_model(weft_context *ctx, const weft_config *cfg,
				 const weft_model *model, weft_sim **out);

/* A batch's device (core/run/batch.c): the backend, device and kernels of
 * cfg for `replicas` runs (the memory check counts them all), without a
 * model setup or an output directory. */
weft_status weft__sim_open_base(weft_context *ctx, const weft_config *cfg,
				const weft_model *model, uint32_t replicas,
				weft_sim **out);
/* A replica of a batch: a run of cfg set up through the replica view vt
 * (device dev) instead of a backend of its own; base's model and plugin. */
weft_status weft__sim_open_replica(weft_context *ctx, const weft_config *cfg,
				   const weft_sim *base, const weft_backend *vt,
				   weft_device *dev, weft_sim **out);

/* Where buf's bytes live (the backend's native(), ABI 1.2): a
 * WEFT_E_UNSUPPORTED failure naming the backend and its plugin when the
 * backend does not have it. Messages start with `what`. Never waits. */
weft_status weft__sim_native(weft_sim *sim, weft_buf *buf, const char *what,
			     weft_native *out);
/* The index of the launch list of that name, or -1 (no message). */
/* The index of the view (weft_model_array) called name, or -1. */
long weft__sim_array_index(const weft_sim *sim, const char *name);
long weft__sim_list_find(const weft_sim *sim, const char *name);
/* The step's launches: lists[0]. */
#define WEFT__SIM_STEP(sim) (&(sim)->lists[0])

/* ---- what the exported calls do (sim.c, run.c) ---------------------------
 *
 * weft_sim_xxx() checks its arguments and calls weft__sim_xxx(), which
 * does the work; the core calls weft__sim_xxx() with arguments it knows
 * to be right: sim not NULL, a buffer of sim's and bytes inside it.
 * weft__sim_close() takes NULL. */
weft_status weft__sim_step(weft_sim *sim, uint64_t n);
weft_status weft__sim_finish(weft_sim *sim);
void weft__sim_close(weft_sim *sim);
weft_status weft__sim_read(weft_sim *sim, void *dst, weft_sim_buffer *src,
			   size_t offset, size_t bytes, unsigned flags);
weft_status weft__sim_write(weft_sim *sim, weft_sim_buffer *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags);
weft_status weft__sim_sync(weft_sim *sim);
/* A wait made through the core, begun at t0 (weft__now_ns()), returned
 * and covers the work of the steps up to steps_done = upto (a sync, a
 * fence wait, a blocking transfer): its time is counted in tm.waits_ns
 * (not host time of the outputs and checkpoints between chunks), and the
 * steps' time ends here when it covers every step enqueued and none
 * before did. Every such wait comes here, and only once. */
void weft__sim_waited(weft_sim *sim, uint64_t t0, uint64_t upto);

/* ---- environments (env.c) ---------------------------------------------- */

/* After setup(), for an environment model (the descriptor's env): its
 * spaces declared, and the protocol's views and lists (weft/env.h) with
 * their dtypes and shapes; a failure names the model, the view or list,
 * and what was expected and found. WEFT_OK for other models. */
weft_status weft__sim_env_check(weft_sim *sim);

/* ---- the output pipeline (pipeline.c) ---------------------------------- */

/* After setup: use collect()/emit() when the model has them (fences when
 * the backend has them), and start the writer thread. */
weft_status weft__pipe_start(weft_sim *sim);
/* After a chunk that ends on an output point: collect it, fence, wait for
 * the chunk before and hand that one to the writer. */
weft_status weft__pipe_chunk(weft_sim *sim);
/* After the last chunk: wait for everything, let the writer emit what is
 * left and join it; its failure, if any, becomes the run's. */
weft_status weft__pipe_drain(weft_sim *sim);
/* Closing: stop the writer (emitting nothing more) and join it; wait for
 * the device when reads into the model's memory may be under way. */
void weft__pipe_stop(weft_sim *sim);

/* ---- row series (model_rows.c) ------------------------------------------ */

/* weft_model_rows_read(): rows collected so far (r not NULL). */
uint64_t weft__model_rows_read(const weft_model_rows *r);
/* A resume: rows [0, read) were collected before the checkpoint; read
 * them from the series (restored already) into the model's host copy. */
weft_status weft__rows_restore(weft_model_ctx *mc, weft_model_rows *r,
			       uint64_t read);

/* Wait until every chunk collected so far has been emitted: the pending
 * one waited for and handed over, the writer idle. A checkpoint then
 * reads the outputs and the model's host state as they are after the
 * last step enqueued. */
weft_status weft__pipe_settle(weft_sim *sim);

/* A resumed run: chunks were collected and emitted before its checkpoint,
 * so the next one takes the slot an uninterrupted run would. */
void weft__pipe_resume(weft_sim *sim, uint64_t chunks);

/* A new output file of the run; the output directory is prepared first
 * if the configuration wrote nothing until now (weft__config_writes). */
weft_status weft__sim_output_open(weft_sim *sim, const char *name,
				  weft_output **out);

/* ---- plots (plot.c) ------------------------------------------------------ */

/* [output] plot: after the model's finish(), write the gnuplot script of
 * the model's plot and run gnuplot, both into outputs committed with the
 * rest. gnuplot missing or failing adds a "plot" summary line, never an
 * error; a plot the model declared wrongly, or a script that cannot be
 * written, is one. */
weft_status weft__sim_plot(weft_sim *sim);
/* A copy of pd (its strings and curves too) added to sim->plots, drawn
 * after the descriptor's own (weft_model_plot). */
weft_status weft__sim_plot_add(weft_sim *sim, const weft_plot_desc *pd);
/* Free sim->plots. */
void weft__sim_plots_free(weft_sim *sim);

/* Record a new model buffer; drop the record of a freed one. */
weft_status weft__sim_buf_add(weft_sim *sim, const char *name, weft_buf *buf,
			      size_t bytes);
void weft__sim_buf_drop(weft_sim *sim, weft_buf *buf);
weft__sim_buf *weft__sim_buf_find(weft_sim *sim, weft_buf *buf);

/* ---- model_api.c ------------------------------------------------------------
 */

/* The model's check() (model ABI 1.1, optional) on cfg: validates its
 * parameters without a run. */
weft_status weft__model_check(weft_context *ctx, const weft_config *cfg,
			      const weft_model *model);

/* What the model API's calls do (weft/model.h), for the core's own use on
 * a model's behalf (row series, plots, the summary). They refuse what the
 * exported calls refuse (a call from emit() or check() that may not come
 * from there), with the same messages, which name the exported call. */
weft_status weft__model_fail(weft_model_ctx *mc, weft_status st,
			     const char *fmt, ...) WEFT_PRINTF(3, 4);
weft_status weft__model_vfail(weft_model_ctx *mc, weft_status st,
			      const char *fmt, va_list ap) WEFT_PRINTF(3, 0);
weft_status weft__model_summary(weft_model_ctx *mc, const char *key,
				const char *fmt, ...) WEFT_PRINTF(3, 4);
weft_status weft__model_vsummary(weft_model_ctx *mc, const char *key,
				 const char *fmt, va_list ap) WEFT_PRINTF(3, 0);
unsigned weft__model_output_slots(const weft_model_ctx *mc);
weft_status weft__model_alloc(weft_model_ctx *mc, const char *what,
			      size_t bytes, weft_buf **out);
void weft__model_free(weft_model_ctx *mc, weft_buf *buf);
weft_status weft__model_state(weft_model_ctx *mc, weft_buf *buf);
weft_status weft__model_upload(weft_model_ctx *mc, weft_buf *dst, size_t offset,
			       const void *src, size_t bytes);
weft_status weft__model_download(weft_model_ctx *mc, void *dst, weft_buf *src,
				 size_t offset, size_t bytes);
weft_status weft__model_download_async(weft_model_ctx *mc, void *dst,
				       weft_buf *src, size_t offset,
				       size_t bytes);
weft_status weft__model_copy(weft_model_ctx *mc, weft_buf *dst,
			     size_t dst_offset, weft_buf *src,
			     size_t src_offset, size_t bytes);

#endif
