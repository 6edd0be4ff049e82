/*
 * weft/weft.h - the application header: configure, choose a backend, run a
 * model, read its results and counters. Backend authors use weft/backend.h,
 * model authors weft/model.h; applications need only this one.
 *
 * Every action function returns a weft_status; on failure the context
 * keeps one message naming what failed and where, read with
 * weft_context_error(). The library never prints and never exits.
 *
 * Ownership. What a function allocates for the caller is the caller's
 * and is released by the function its comment names: an object by its
 * own (weft_config_free() for weft_config_load()'s, weft_sim_close() for
 * weft_sim_open()'s, ...), a string or buffer by weft_free(), never by
 * free(): the library and the application may use different allocators.
 * A `const char *` or a pointer to a struct that a function returns
 * without saying so belongs to the object it was read from and stays
 * valid until that object is freed (or as the comment says); the caller
 * never frees it.
 *
 * Two more headers go with this one: weft/harness.h (loading a backend
 * or model plugin for a program that reads its table, such as `weft
 * conform`) and weft/distribute.h (an ensemble's runs spread over
 * processes, as weft-mpi does).
 *
 * Models and backends are plugins (weft-model-NAME.so,
 * weft-backend-NAME.so) found at run time: `weft models` and `weft
 * backends` list them.
 */
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stdio.h>
#include <weft/common.h>
#include <weft/env.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_context weft_context;
typedef struct weft_config weft_config;
typedef struct weft_sim weft_sim;
typedef struct weft_backend_list weft_backend_list;

/* The library's version, a static string. */
WEFT_EXPORT const char *weft_version(void);
/* The backend ABI version plugins must be built for (major must match). */
WEFT_EXPORT void weft_backend_abi(unsigned *major, unsigned *minor);
/* The model ABI version model plugins must be built for (major must
 * match; weft/model.h's WEFT_MODEL_ABI_MAJOR and _MINOR of this
 * library). */
WEFT_EXPORT void weft_model_abi(unsigned *major, unsigned *minor);

/* Free memory the library allocated for the caller: the strings and
 * buffers whose comments say "weft_free()" (weft_config_reference()'s
 * text). NULL is ignored. Objects have their own functions
 * (weft_context_free(), weft_config_free(), ...). */
WEFT_EXPORT void weft_free(void *p);

/* A new context; *out is the caller's, freed with weft_context_free()
 * (NULL is ignored). */
WEFT_EXPORT weft_status weft_context_new(weft_context **out);
WEFT_EXPORT void weft_context_free(weft_context *ctx);
/* The message of the last failure on this context ("" if none): ctx's,
 * valid until its next failure or weft_context_free(). */
WEFT_EXPORT const char *weft_context_error(const weft_context *ctx);
/* Record a failure on the context and return st: for libraries built on
 * libweft (the CartPole API, language bindings) that report their own
 * errors where their callers read weft's. */
WEFT_EXPORT weft_status weft_context_fail(weft_context *ctx, weft_status st,
					  const char *fmt, ...)
	WEFT_PRINTF(3, 4);

/* Cancellation. weft_context_cancel() asks every operation running on
 * ctx to stop: reading a configuration (between lines), `weft check`'s
 * validation, loading and probing plugins, a model's setup (its long loops
 * ask weft_model_cancelled()), the steps (between chunks), the output
 * pipeline's waits, the plot (gnuplot is killed) and the finish up to the
 * commit of the outputs. The operation returns WEFT_E_CANCELLED with a
 * message saying what it was doing; a run then commits nothing, as for any
 * failure. Once the outputs' commit has begun it completes (it takes a few
 * renames).
 *
 * It only sets an atomic flag: it is async-signal-safe and thread-safe, so
 * a signal handler (the weft command's SIGINT, a binding's Ctrl-C) or
 * another thread may call it while ctx is in use. The flag stays set, and
 * every later operation on ctx fails at its first check, until
 * weft_context_reset_cancel(). NULL is ignored. */
WEFT_EXPORT void weft_context_cancel(weft_context *ctx);
/* 1 when weft_context_cancel() was called since the last reset. */
WEFT_EXPORT int weft_context_cancelled(const weft_context *ctx);
WEFT_EXPORT void weft_context_reset_cancel(weft_context *ctx);

/* Progress of a run's setup (weft_sim_open), which may take seconds
 * (building a population of millions of agents, compiling kernels).
 * fn is called on the thread that called into the library, from inside
 * that call, whenever the work reports a step: what it is doing ("model
 * seir: building the work layer"), and done of total units when known
 * (total 0: a phase without a count). It must return promptly and must
 * not call weft on ctx; the library never prints, so showing it (or not)
 * is the caller's choice: the weft command shows a progress line. NULL fn:
 * no calls. */
typedef void (*weft_progress_fn)(void *user, const char *what, uint64_t done,
				 uint64_t total);
WEFT_EXPORT void weft_context_set_progress(weft_context *ctx,
					   weft_progress_fn fn, void *user);

/* ---- configuration -------------------------------------------------- */

/* A configuration holding only defaults. *out is the caller's, freed with
 * weft_config_free() (NULL is ignored), as are weft_config_load()'s. */
WEFT_EXPORT weft_status weft_config_new(weft_context *ctx, weft_config **out);
/* Parse and validate an INI file. */
WEFT_EXPORT weft_status weft_config_load(weft_context *ctx, const char *path,
					 weft_config **out);
/* Override one key, "section.key=value", with the same checks (a relative
 * path in a value is taken from the current directory). An assignment
 * that is not of that form is WEFT_E_INVALID (a bad argument: the weft
 * command's usage error), a bad key or value WEFT_E_CONFIG. */
WEFT_EXPORT weft_status weft_config_set(weft_context *ctx, weft_config *cfg,
					const char *assignment);
/* Check what single keys cannot: the model's plugin is found and sound,
 * the backend name is a name, the output and checkpoint directories can
 * be written, the model's check() accepts its parameters and its
 * estimate() fits the host's memory. Validation keeps what it concluded
 * in cfg until a value changes, and weft_sim_open() (which validates when
 * cfg was not) trusts it: each of the model's hooks runs once per run.
 * Validation writes into cfg: validate before threads share it. */
WEFT_EXPORT weft_status weft_config_validate(weft_context *ctx,
					     const weft_config *cfg);
/* The memory a run of cfg (validated) needs, as its model estimates it
 * from the parameters and its input files' sizes (model ABI 1.3), and
 * what the host has for it: what `weft check` reports. weft_config_
 * validate() refuses a configuration whose host bytes do not fit;
 * weft_sim_open() checks the device bytes too, once the device is open
 * (docs/memory.md). */
typedef struct weft_estimate {
	uint32_t struct_size;  /* set by the caller: sizeof *out */
	int known;	       /* 0: the model gives no estimate (older ABI) */
	uint64_t host_bytes;   /* host memory at the run's peak */
	uint64_t device_bytes; /* the model's device buffers */
	uint64_t shared_bytes; /* host memory at the peak where the
				* device's memory is the host's (OpenMP,
				* a CPU OpenCL device) */
	uint64_t host_available;    /* what the host has (0: unknown) */
	const char *available_from; /* "MemAvailable", or the limit that
				     * is lower (the address-space limit,
				     * the cgroup's, $WEFT_MEM_AVAILABLE) */
	char parts[1024]; /* "12.0 MiB for agents ([seir] agents = 37518),
			   * ...", host and device bytes together */
} weft_estimate;

WEFT_EXPORT weft_status weft_config_estimate(weft_context *ctx,
					     const weft_config *cfg,
					     weft_estimate *out);
/* The value of a key as text (the default when unset), NULL if
 * undeclared: cfg's, valid until weft_config_free(cfg) or a
 * weft_config_set() of that key. A model's keys are declared once the
 * configuration has found its model: when a file or weft_config_set()
 * names the model's section, and at weft_config_validate() (which fails
 * saying why when it cannot). Reading never loads a plugin or changes
 * cfg, so threads may read one configuration at once. */
WEFT_EXPORT const char *weft_config_get(const weft_config *cfg,
					const char *section, const char *key);
WEFT_EXPORT void weft_config_free(weft_config *cfg);
/* The reference of every key (Markdown: the core's sections and every
 * model plugin found), as docs/config.md holds it, in *markdown: a
 * NUL-terminated string, the caller's, freed with weft_free(). NULL on
 * failure. */
WEFT_EXPORT weft_status weft_config_reference(weft_context *ctx,
					      char **markdown);

/* ---- backends ------------------------------------------------------- */

typedef struct weft_backend_info {
	const char *name;
	const char *path;  /* plugin file, "" when none was found */
	const char *state; /* "available", "unavailable", "failed", "missing" */
	const char *stage; /* failed stage: open, symbol, version, probe */
	const char *reason;  /* why not available, "" when available */
	const char *devices; /* what the probe saw */
	int score;
	int shadowed; /* a plugin of the same name earlier in the path wins */
} weft_backend_info;

/* Find and probe every plugin: plugin_path (may be NULL), then
 * $WEFT_PLUGIN_PATH, then the installed plugin directory. *out is the
 * caller's, freed with weft_backend_list_free() (NULL is ignored); the
 * entries of weft_backend_list_at() and their strings are the list's. */
WEFT_EXPORT weft_status weft_backends_scan(weft_context *ctx,
					   const char *plugin_path,
					   weft_backend_list **out);
WEFT_EXPORT size_t weft_backend_list_count(const weft_backend_list *l);
WEFT_EXPORT const weft_backend_info *
weft_backend_list_at(const weft_backend_list *l, size_t i);
WEFT_EXPORT void weft_backend_list_free(weft_backend_list *l);

/* ---- models --------------------------------------------------------- */

typedef struct weft_model_list weft_model_list;

typedef struct weft_model_info {
	const char *name;
	const char *path;    /* plugin file */
	const char *state;   /* "available", "failed", or "shadowed" */
	const char *stage;   /* failed stage: open, symbol, version, check */
	const char *reason;  /* why it cannot be used, "" when available */
	const char *summary; /* its one line, "" when it failed */
	const char *version; /* its own version, "" when it failed */
} weft_model_info;

/* Find every model plugin, weft-model-NAME.so: model_path (':'-separated,
 * may be NULL), then $WEFT_MODEL_PATH, then the installed plugin
 * directory. Each is loaded and its table checked; none of its functions
 * is called. *out is the caller's, freed with weft_model_list_free()
 * (NULL is ignored); the entries of weft_model_list_at() and their
 * strings are the list's. */
WEFT_EXPORT weft_status weft_models_scan(weft_context *ctx,
					 const char *model_path,
					 weft_model_list **out);
WEFT_EXPORT size_t weft_model_list_count(const weft_model_list *l);
WEFT_EXPORT const weft_model_info *weft_model_list_at(const weft_model_list *l,
						      size_t i);
WEFT_EXPORT void weft_model_list_free(weft_model_list *l);

/* ---- environments (weft/env.h) -------------------------------------- */

typedef struct weft_env_list weft_env_list;

/* One environment id an available model serves. */
typedef struct weft_env_entry {
	const char *id;	     /* "Acrobot-v1" */
	const char *model;   /* the model that serves it: [simulation] model */
	const char *path;    /* its plugin file */
	const char *sets;    /* '\n'-separated section.key=value, "" if none */
	const char *summary; /* "" if none */
	/* The model's keys, as section.key ("acrobot.envs"): the number of
	 * environments, the autoreset mode (next_step|same_step|disabled)
	 * and the precision (f32|f64; "" for a model with one). */
	const char *count_key;
	const char *autoreset_key;
	const char *precision_key;
	uint32_t max_episode_steps; /* Gymnasium's truncation, 0 if none */
	/* Gymnasium's reward_threshold (the mean return at which the id
	 * counts as solved): has_reward_threshold 1 and the value, or 0 for
	 * none. */
	int has_reward_threshold;
	double reward_threshold;
} weft_env_entry;

/* Every environment id of the available models, found as
 * weft_models_scan() finds models (the first model on the path wins an
 * id, as it wins a name), sorted by id. *out is the caller's, freed with
 * weft_env_list_free() (NULL is ignored); entries and their strings are
 * the list's. */
WEFT_EXPORT weft_status weft_env_list_scan(weft_context *ctx,
					   const char *model_path,
					   weft_env_list **out);
WEFT_EXPORT size_t weft_env_list_count(const weft_env_list *l);
WEFT_EXPORT const weft_env_entry *weft_env_list_at(const weft_env_list *l,
						   size_t i);
/* The entry of that id, or NULL. */
WEFT_EXPORT const weft_env_entry *weft_env_list_find(const weft_env_list *l,
						     const char *id);
WEFT_EXPORT void weft_env_list_free(weft_env_list *l);

/* ---- running -------------------------------------------------------- */

/* Load the backend, open the device, set the model up. The output
 * directory is created here and outputs are written to hidden temporary
 * files in it; no output file is created or replaced under its own name
 * until weft_sim_finish() succeeds. *out is the caller's, freed with
 * weft_sim_close(); cfg must outlive it. The strings that the weft_sim_*
 * functions below return (backend and model names, summary lines, output
 * paths, buffer and view names) are sim's, valid until weft_sim_close(). */
WEFT_EXPORT weft_status weft_sim_open(weft_context *ctx, const weft_config *cfg,
				      weft_sim **out);
/* Advance n steps: the backend enqueues them in chunks of [output] every
 * with no host synchronisation inside a chunk. */
WEFT_EXPORT weft_status weft_sim_step(weft_sim *sim, uint64_t n);
WEFT_EXPORT uint64_t weft_sim_steps_done(const weft_sim *sim);
WEFT_EXPORT uint64_t weft_sim_steps_total(const weft_sim *sim);
/* Final outputs and summary, the plot ([output] plot: runs gnuplot, found
 * on PATH, in a child process; never fails for want of it, see the
 * summary's "plot" line); renames every output into place. */
WEFT_EXPORT weft_status weft_sim_finish(weft_sim *sim);
WEFT_EXPORT const char *weft_sim_backend(const weft_sim *sim);
WEFT_EXPORT const char *weft_sim_model(const weft_sim *sim);
WEFT_EXPORT weft_status weft_sim_stats(weft_sim *sim, weft_stats *out);

/* One kernel's counters (weft_sim_kernel_stats). */
typedef struct weft_kernel_stats_row {
	const char *name;  /* the kernel's name, sim's */
	uint64_t launches; /* launches since the program was loaded */
	uint64_t time_ns;  /* device time of the timed launches; 0 unless
			    * the run profiles ([backend] profile, which
			    * `weft run --stats` sets) */
	uint64_t timed;	   /* launches whose time is in time_ns: those
			    * known complete (a backend that queues work
			    * times a launch once it has completed) */
} weft_kernel_stats_row;
/* Per-kernel counters of the run's program, a row per kernel of the model
 * in its program's order: rows[0 .. min(cap, kernels)) filled, *n set to
 * the number of kernels (cap 0 and rows NULL ask only for that). Time
 * covers the launches known complete: call weft_sim_sync() first for all
 * of it. Never waits. WEFT_E_UNSUPPORTED, with a message naming the
 * backend, when the backend keeps no per-kernel counters (backend ABI 1.5
 * kernel_stats()). */
WEFT_EXPORT weft_status weft_sim_kernel_stats(weft_sim *sim,
					      weft_kernel_stats_row *rows,
					      size_t cap, size_t *n);

/* How long the run's steps took (weft_sim_step() and weft_sim_finish()). */
typedef struct weft_sim_times {
	uint32_t struct_size; /* set by the caller */
	uint64_t steps;	      /* steps run since the run was opened */
	/* From the first step's enqueue to the completion of the last
	 * step's work, as seen by the first wait after it that covers it
	 * (a sync, a fence wait, a blocking transfer: the output pipeline's,
	 * the model's, the application's). While none has, `complete` is 0
	 * and this ends where the last enqueue returned. No wait is added
	 * to measure it. */
	uint64_t steps_ns;
	int complete;
	/* Host time spent between chunks on outputs and checkpoints
	 * (collect(), fences, handing chunks to the writer, checkpoints),
	 * not counting the output pipeline's waits for the device, which
	 * wait for the steps' work: part of steps_ns. */
	uint64_t outputs_ns;
} weft_sim_times;
/* out->struct_size is set by the caller; only what it covers is filled. */
WEFT_EXPORT weft_status weft_sim_times_get(const weft_sim *sim,
					   weft_sim_times *out);
WEFT_EXPORT size_t weft_sim_summary_count(const weft_sim *sim);
WEFT_EXPORT weft_status weft_sim_summary_at(const weft_sim *sim, size_t i,
					    const char **key,
					    const char **value);
/* Output files committed by weft_sim_finish(), for the caller to list. */
WEFT_EXPORT size_t weft_sim_output_count(const weft_sim *sim);
WEFT_EXPORT const char *weft_sim_output_at(const weft_sim *sim, size_t i);
/* Free everything; outputs not yet committed are removed. NULL is
 * ignored. */
WEFT_EXPORT void weft_sim_close(weft_sim *sim);

/* ---- an output directory held ---------------------------------------- */
/* A program that writes into an [output] directory itself (weft
 * calibrate's results beside a run's) holds it as weft's runs do while
 * they write: PARENT/.BASE.weft-lock locked (flock, without waiting; this
 * process's pid in it), so that no run replaces the directory meanwhile
 * and it writes under no run. Refused with WEFT_E_IO naming the process
 * that holds it ("... is in use by another run (pid N, which holds
 * PATH)"). A symlink's target is what is held, as runs hold it. */
typedef struct weft_dir_lock weft_dir_lock;
WEFT_EXPORT weft_status weft_dir_lock_take(weft_context *ctx, const char *dir,
					   weft_dir_lock **out);
/* The lock file removed and the lock released; NULL is ignored. */
WEFT_EXPORT void weft_dir_lock_release(weft_dir_lock *lock);

/* ---- ensembles ------------------------------------------------------ */
/*
 * Many runs of one configuration ([ensemble] runs, [sweep], [scenario
 * NAME]; docs/config.md, docs/ensembles.md): every run is the
 * configuration plus its scenario's and sweep point's overrides, with the
 * seeds [simulation] seed, seed + 1, ... A "scenario" below is a group of
 * runs with the same overrides: a [scenario NAME], a sweep point
 * ("seir.beta=0.02"), both ("school+seir.beta=0.02"), or "base".
 *
 * The outputs are one set, committed all or nothing like a run's: per run
 * the model's outputs in runs/SCENARIO/SEED/ ([ensemble] keep_runs), per
 * scenario SCENARIO.csv (per step and aggregated column: mean, sample
 * standard deviation, quantiles 5, 25, 50, 75, 95 %), summary.csv and
 * summary.txt (final outcomes: mean and 5-95 % interval), and the plots.
 * A run that fails is reported with its scenario and seed; the others
 * still run; the aggregates of its scenario are not written.
 *
 * weft_ensemble_run() does it all in this process. A program that spreads
 * the runs over processes (weft-mpi) does the same in parts, with the
 * functions of weft/distribute.h.
 *
 * The strings the weft_ensemble_* functions return (scenarios, messages,
 * summary lines, output paths) are the ensemble's, valid until
 * weft_ensemble_close().
 */
typedef struct weft_ensemble weft_ensemble;

/* Expand cfg (validated) into its runs and validate every one of them as
 * weft_config_validate() does, before any runs: a bad override is
 * reported with its file and line. cfg must outlive the ensemble. *out is
 * the caller's, freed with weft_ensemble_close(). */
WEFT_EXPORT weft_status weft_ensemble_open(weft_context *ctx,
					   const weft_config *cfg,
					   weft_ensemble **out);
/* 1 when cfg describes an ensemble ([ensemble] runs set, or a [sweep] or
 * [scenario NAME] section), 0 for a single run. */
WEFT_EXPORT int weft_config_is_ensemble(const weft_config *cfg);
WEFT_EXPORT size_t weft_ensemble_run_count(const weft_ensemble *e);
WEFT_EXPORT size_t weft_ensemble_scenario_count(const weft_ensemble *e);
WEFT_EXPORT const char *weft_ensemble_scenario_at(const weft_ensemble *e,
						  size_t i);
/* "section.key", the model's common random numbers key that the ensemble
 * sets true in every run because it compares runs and the configuration
 * does not set it (docs/ensembles.md); NULL when it sets none. */
WEFT_EXPORT const char *weft_ensemble_crn_key(const weft_ensemble *e);
/* Why the model refused its common random numbers with these runs'
 * settings, so that no run has them; NULL when it did not refuse. */
WEFT_EXPORT const char *weft_ensemble_crn_refused(const weft_ensemble *e);
/* Run i's scenario and seed (NULL pointers are skipped). */
WEFT_EXPORT weft_status weft_ensemble_run_info(const weft_ensemble *e, size_t i,
					       const char **scenario,
					       uint64_t *seed);
/* Everything: begin, every run in order, finish. WEFT_OK when the
 * outputs were committed, runs that failed included (then
 * weft_ensemble_failed_count() > 0). */
WEFT_EXPORT weft_status weft_ensemble_run(weft_ensemble *e);
/* The runs that failed: their index, scenario, seed and message. */
WEFT_EXPORT size_t weft_ensemble_failed_count(const weft_ensemble *e);
WEFT_EXPORT weft_status weft_ensemble_failed_at(const weft_ensemble *e,
						size_t k, size_t *index,
						const char **message);
/* The summary lines and the files committed, as for a run. */
WEFT_EXPORT size_t weft_ensemble_summary_count(const weft_ensemble *e);
WEFT_EXPORT weft_status weft_ensemble_summary_at(const weft_ensemble *e,
						 size_t i, const char **key,
						 const char **value);
WEFT_EXPORT size_t weft_ensemble_output_count(const weft_ensemble *e);
WEFT_EXPORT const char *weft_ensemble_output_at(const weft_ensemble *e,
						size_t i);
/* Free it; a set not committed is removed. NULL is ignored. */
WEFT_EXPORT void weft_ensemble_close(weft_ensemble *e);

/* ---- checkpoints ---------------------------------------------------- */
/*
 * With [checkpoint] every = N, weft_sim_step() writes a checkpoint after
 * every N steps into [checkpoint] directory: the model's state (what it
 * declared with weft_model_state()), the step reached, the outputs so far
 * and the configuration's hash, replacing the previous checkpoint in one
 * step (docs/checkpoints.md). Each costs one wait for the
 * device; its files are written by a thread of their own while the next
 * steps run. A checkpoint that cannot be written fails the run (the
 * previous one stays). The model must be able to: its descriptor's
 * `checkpoints` (model ABI 1.2).
 */

/* Write a checkpoint of the run at the step reached, into [checkpoint]
 * directory, whether or not [checkpoint] every is set, and return once it
 * is in place. Not after weft_sim_finish(). Calls no cancellation check:
 * an application may call it once a cancelled weft_sim_step() returned,
 * to keep what was done. */
WEFT_EXPORT weft_status weft_sim_checkpoint(weft_sim *sim);
/* Open a run as weft_sim_open() does (*out the caller's, freed with
 * weft_sim_close()) and continue it from the checkpoint in dir: the run
 * is at the checkpoint's step, its outputs hold what they held there, and
 * stepping it to the end gives the outputs an uninterrupted run gives,
 * byte for byte, on any backend. Refused, with
 * the reason, before setup when dir holds no checkpoint this weft reads
 * (another format, truncated, damaged), one of another weft version,
 * model or model version, or of another configuration (the first key that
 * differs is named); after setup when setup() did not rebuild what the
 * checkpointed run had (an input file changed). */
WEFT_EXPORT weft_status weft_sim_resume(weft_context *ctx,
					const weft_config *cfg, const char *dir,
					weft_sim **out);
/* The checks weft_sim_resume() makes before setup, all of them, state
 * checksums included, without opening a run (`weft check --resume`): the
 * checkpoint's step in *step (may be NULL). */
WEFT_EXPORT weft_status weft_checkpoint_check(weft_context *ctx,
					      const weft_config *cfg,
					      const char *dir, uint64_t *step);

typedef struct weft_checkpoint_info {
	uint32_t struct_size;	 /* set by the caller: sizeof *out */
	const char *dir;	 /* where this run writes them ("" none yet) */
	uint64_t every;		 /* [checkpoint] every */
	uint64_t written;	 /* checkpoints this run put in place */
	uint64_t last_step;	 /* the step of the last of them */
	uint64_t resumed_from;	 /* the step it resumed from (0: none) */
	const char *resumed_dir; /* and the directory ("" none) */
} weft_checkpoint_info;

/* What the run did with checkpoints, for the caller to report; its
 * strings are sim's, valid until weft_sim_close(). */
WEFT_EXPORT weft_status weft_sim_checkpoint_info(const weft_sim *sim,
						 weft_checkpoint_info *out);

/* ---- state digests -------------------------------------------------- */

/* Every model buffer of a run as it is now (after waiting for the
 * device), with its XXH3-64 hash: what the conformance suite compares
 * across backends, and what tells two runs apart byte for byte. */
typedef struct weft_digest_buf {
	const char *name; /* as the model named the buffer */
	size_t bytes;
	int is_f32;	/* compare as f32 elements within abs_tol */
	double abs_tol; /* (weft_model_buffer_tolerance); 0 otherwise */
	uint64_t hash;	/* XXH3-64 of data */
	const unsigned char *data;
} weft_digest_buf;

typedef struct weft_digest weft_digest;

/* *out is the caller's, freed with weft_digest_free() (NULL is ignored);
 * it holds copies of the buffers' bytes, so it outlives sim. */
WEFT_EXPORT weft_status weft_sim_digest(weft_sim *sim, weft_digest **out);
/* The buffers, in allocation order: d's, valid until weft_digest_free(d),
 * their names and data included. */
WEFT_EXPORT size_t weft_digest_count(const weft_digest *d);
WEFT_EXPORT const weft_digest_buf *weft_digest_at(const weft_digest *d,
						  size_t i);
WEFT_EXPORT void weft_digest_free(weft_digest *d);

/* ---- driving a run ------------------------------------------------- */
/*
 * For applications that step a model their own way (the CartPole API of
 * weft/cartpole.h, the Python binding): the model's buffers, by the names
 * it gave them; its launch lists, by name; transfers, fences and native
 * handles through the run. Everything is issued on the device's one
 * in-order queue, after whatever weft_sim_step() issued. Messages name the
 * buffer, the bytes and the backend.
 */
typedef struct weft_sim_buffer weft_sim_buffer;

typedef struct weft_buffer_info {
	uint32_t struct_size; /* set by the caller: sizeof *out */
	const char *name;     /* as the model named it ("state", "io") */
	size_t bytes;
	int is_f32;	/* f32 elements compared within abs_tol across
			 * backends (weft_model_buffer_tolerance) */
	double abs_tol; /* 0 for buffers that match byte for byte */
} weft_buffer_info;

/* The model's live buffers, in allocation order. A handle stays valid
 * until the model frees the buffer (for most models: until close). */
WEFT_EXPORT size_t weft_sim_buffer_count(const weft_sim *sim);
WEFT_EXPORT weft_sim_buffer *weft_sim_buffer_at(weft_sim *sim, size_t i);
/* NULL when the model has no buffer of that name. */
WEFT_EXPORT weft_sim_buffer *weft_sim_buffer_find(weft_sim *sim,
						  const char *name);
WEFT_EXPORT weft_status weft_sim_buffer_info(const weft_sim_buffer *b,
					     weft_buffer_info *out);

/* Host to device and device to host, within the buffer. flags 0 blocks
 * until done; WEFT_XFER_ASYNC returns at once, and the host memory must
 * stay untouched until weft_sim_sync(), or weft_sim_wait() on a fence
 * issued after the transfer. */
WEFT_EXPORT weft_status weft_sim_write(weft_sim *sim, weft_sim_buffer *dst,
				       size_t offset, const void *src,
				       size_t bytes, unsigned flags);
WEFT_EXPORT weft_status weft_sim_read(weft_sim *sim, void *dst,
				      weft_sim_buffer *src, size_t offset,
				      size_t bytes, unsigned flags);
/* Where the buffer's bytes live (host pointer, CUDA device pointer,
 * cl_mem; weft/common.h), to hand to another library without a copy.
 * Never waits. WEFT_E_UNSUPPORTED when the backend does not expose native
 * buffers (a plugin built for a backend ABI older than 1.2). */
WEFT_EXPORT weft_status weft_sim_native(weft_sim *sim, weft_sim_buffer *b,
					weft_native *out);

/* A typed view the model declared (weft_model_array): its memory, byte
 * offset, dtype, C-order shape and strides, as DLPack's DLTensor has
 * them. */
#define WEFT_ARRAY_MAX_DIMS 4
typedef struct weft_array {
	uint32_t struct_size; /* set by the caller: sizeof *out */
	const char *name;
	weft_sim_buffer *buffer; /* the buffer it views */
	weft_native mem;	 /* that buffer's native memory */
	size_t offset;		 /* bytes from the buffer's start */
	size_t bytes;		 /* bytes of the view */
	uint32_t dtype;		 /* a weft_dtype */
	uint32_t ndim;
	int64_t shape[WEFT_ARRAY_MAX_DIMS];
	int64_t strides[WEFT_ARRAY_MAX_DIMS]; /* in elements */
} weft_array;

WEFT_EXPORT size_t weft_sim_array_count(const weft_sim *sim);
/* The i-th (or the named) view; WEFT_E_INVALID naming the views there are
 * when there is none, WEFT_E_UNSUPPORTED as for weft_sim_native(). */
WEFT_EXPORT weft_status weft_sim_array_at(weft_sim *sim, size_t i,
					  weft_array *out);
WEFT_EXPORT weft_status weft_sim_array_find(weft_sim *sim, const char *name,
					    weft_array *out);

/* A launch list the model declared (weft_model_add_list), by name; "step"
 * is the step's own list. */
WEFT_EXPORT weft_status weft_sim_list(weft_sim *sim, const char *name,
				      uint32_t *index);
/* Enqueue n repetitions of that list; never waits. Unlike
 * weft_sim_step(), it neither counts as steps of the run nor writes
 * outputs. */
WEFT_EXPORT weft_status weft_sim_launch(weft_sim *sim, uint32_t list,
					uint64_t n);
/* Mark the point after everything issued so far (its token in *token,
 * increasing from 1); never waits. weft_sim_wait() returns once
 * everything issued before that fence has completed, asynchronous reads
 * included, without waiting for later work. A backend without fences
 * (ABI 1.0) synchronises in weft_sim_wait() instead. */
WEFT_EXPORT weft_status weft_sim_fence(weft_sim *sim, uint64_t *token);
WEFT_EXPORT weft_status weft_sim_wait(weft_sim *sim, uint64_t token);
/* Wait for everything issued. */
WEFT_EXPORT weft_status weft_sim_sync(weft_sim *sim);

/* What an environment model's run declared (weft/env.h): the number of
 * environments, the autoreset mode and one environment's spaces (their
 * bounds are sim's). The views and lists of the protocol are found by
 * name with weft_sim_array_find() and weft_sim_list(). WEFT_E_INVALID
 * when the run's model is not an environment model. */
typedef struct weft_env_info {
	uint32_t struct_size; /* set by the caller: sizeof *out */
	uint32_t num_envs;
	uint32_t autoreset; /* a weft_autoreset */
	uint32_t precision; /* 32 or 64: the model's precision key (32 when
			     * it has none) */
	weft_env_space observation, action;
	/* Its info fields (weft_model_env_info), the names of views
	 * (weft_sim_array_find), valid while the run is open. */
	uint32_t n_info;
	const char *info[WEFT_ENV_MAX_INFO];
} weft_env_info;

WEFT_EXPORT weft_status weft_sim_env(const weft_sim *sim, weft_env_info *out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_WEFT_H */
