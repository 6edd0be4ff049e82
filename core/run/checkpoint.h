/*
 * core/run/checkpoint.h - checkpoints of a run and resuming from them, shared
 * by checkpoint.c (taking and writing them), checkpoint_file.c (the
 * format: the manifest, the setup digest), resume.c (reading, checking
 * and restoring) and sim.c (when they are due).
 *
 * A checkpoint is a directory (docs/checkpoints.md):
 *   checkpoint.txt   the manifest: format, versions, model, step, the
 *                    configuration (canonical, and its hash), every
 *                    buffer, host state, row series and output, with
 *                    checksums; last, a line "end HASH" over the rest
 *   state.bin        the state's bytes: declared buffers, then declared
 *                    host memory, in declaration order, little-endian as
 *                    the devices hold them
 *   output.NAME      each output file as it was at the step reached
 * written as an output set (outdir.c: a new directory beside it, fsync,
 * one exchange), so a crash leaves the previous checkpoint or the new one.
 */
#ifndef WEFT_CHECKPOINT_H
#define WEFT_CHECKPOINT_H

#include "run/sim.h"

#include <pthread.h>

#include "output/output.h"

#define WEFT__CKPT_FORMAT   1u
#define WEFT__CKPT_MANIFEST "checkpoint.txt"
#define WEFT__CKPT_STATE    "state.bin"
#define WEFT__CKPT_OUTPUT   "output." /* output.NAME */
/* Most bytes of a manifest read (its lines are short; a configuration
 * and a hundred buffers take a few KiB). */
#define WEFT__CKPT_MANIFEST_MAX (4u << 20)

/* One buffer of the run as a checkpoint records it, in allocation order:
 * state buffers are saved; the others must come out of setup() the same
 * (their hash, taken once, is compared on resume). */
typedef struct weft__ckpt_buf {
	char *name; /* escaped for the manifest's one line */
	size_t bytes;
	int is_state;
	uint64_t hash; /* XXH3-64 of a buffer that is not state */
} weft__ckpt_buf;

/* What the buffers looked like after setup(): the layout of every buffer
 * and the hash of those that are not state. */
typedef struct weft__ckpt_layout {
	weft__ckpt_buf *b;
	size_t n;
} weft__ckpt_layout;

/* A checkpoint copied out of the run, ready to be written. */
typedef struct weft__ckpt_job {
	uint64_t step;
	char *manifest;
	size_t manifest_len;
	unsigned char *state;
	size_t state_bytes;
	size_t n_out;
	char **out_name;
	char **out_data;
	size_t *out_len;
} weft__ckpt_job;

/* The run's checkpoints (sim->ckpt). The writer thread owns job and the
 * directory's new set from its start to its join; the main thread reads
 * status and tctx only after joining it. */
typedef struct weft__ckpt {
	uint64_t every;	   /* [checkpoint] every; 0: only when asked */
	char *dir;	   /* [checkpoint] directory, resolved */
	weft__outputs set; /* the directory: lock, new set, commit */
	int prepared;	   /* set holds the lock and a new set */
	weft__ckpt_layout layout;
	int have_layout;
	pthread_t thread;
	int has_job;	    /* job taken, its status not yet seen */
	int busy;	    /* thread started and not joined */
	weft__ckpt_job job; /* what it writes */
	weft_context tctx;  /* its failure */
	weft_status status;
	unsigned seq;	    /* checkpoints begun by this run */
	uint64_t written;   /* in place */
	uint64_t last_step; /* of the last in place */
	uint64_t resumed_from;
	char *resumed_dir;
} weft__ckpt;

/* ---- checkpoint.c -------------------------------------------------------- */

/* [checkpoint] directory resolved: the key, or [output] directory with
 * ".checkpoint" appended (trailing slashes dropped). NULL when out of
 * memory. */
char *weft__ckpt_dir(const weft_config *cfg);
/* What weft_config_validate() checks of [checkpoint]: a model that can be
 * checkpointed when every > 0, a directory outside the output directory. */
weft_status weft__ckpt_validate(weft_context *ctx, const weft_config *cfg,
				const weft_model *model);
/* 1 when the model's descriptor says it declares its state (ABI 1.2). */
int weft__model_checkpoints(const weft_model *m);
/* After setup: with [checkpoint] every > 0, sim->ckpt made and the
 * directory locked, so that a second run writing there is refused at
 * once. */
weft_status weft__ckpt_start(weft_sim *sim);
/* 1 when a checkpoint is due after the step just done. */
int weft__ckpt_due(const weft_sim *sim);
/* Take a checkpoint at the step reached (settle the outputs, one sync,
 * copy the state out) and write it on a thread of its own; with wait,
 * return once it is in place. */
weft_status weft__ckpt_take(weft_sim *sim, int wait);
/* Wait for a checkpoint being written; its failure becomes the run's. */
weft_status weft__ckpt_join(weft_sim *sim);
/* Closing: wait for a checkpoint being written (it completes), release
 * the directory, free everything. */
void weft__ckpt_close(weft_sim *sim);
/* sim->ckpt, made when missing (NULL and a message when out of memory). */
weft__ckpt *weft__ckpt_get(weft_sim *sim);

/* ---- checkpoint_file.c --------------------------------------------------- */

/* The layout of the run's buffers, hashing (blocking reads) those that
 * are not state. */
weft_status weft__ckpt_layout_take(weft_sim *sim, weft__ckpt_layout *out);
void weft__ckpt_layout_free(weft__ckpt_layout *l);
/* The manifest of a checkpoint at the run's step: job->state and the
 * outputs must be filled; appends nothing else. */
weft_status weft__ckpt_manifest_write(weft_sim *sim, weft__ckpt_job *job);
void weft__ckpt_job_free(weft__ckpt_job *job);

/* A manifest as read back. Names are as written (escaped). */
typedef struct weft__ckpt_entry {
	char kind; /* 'b' buffer, 'h' host state, 'o' output */
	int is_state;
	char *name;
	uint64_t bytes, offset, hash;
} weft__ckpt_entry;

typedef struct weft__ckpt_manifest {
	unsigned format;
	char *weft;    /* the weft version that wrote it */
	char *model;   /* its model's name */
	char *version; /* the model's own version */
	unsigned abi_major, abi_minor;
	char *backend;
	uint64_t step, steps_total, chunks;
	char *config_hash; /* 32 hexadecimal digits */
	char *config;	   /* "section.key=value\n" lines */
	uint64_t state_bytes;
	weft__ckpt_entry *e; /* buffers, host state, outputs, in order */
	size_t n;
	uint64_t *rows; /* rows collected, per row series */
	size_t n_rows;
} weft__ckpt_manifest;

/* Parse text (len bytes, the whole checkpoint.txt) into m; a message
 * starting with what (the directory) when it is not a manifest this weft
 * reads: another format, truncated, damaged. */
weft_status weft__ckpt_manifest_read(weft_context *ctx, const char *what,
				     const char *text, size_t len,
				     weft__ckpt_manifest *m);
void weft__ckpt_manifest_free(weft__ckpt_manifest *m);
/* Read all of fd into new memory (NUL-terminated, *len bytes); 0, or an
 * errno value (EFBIG past max bytes). */
int weft__ckpt_slurp(int fd, size_t max, char **data, size_t *len);
/* 1 when this host stores integers little-endian, as checkpoints do. */
int weft__ckpt_little_endian(void);

#endif
