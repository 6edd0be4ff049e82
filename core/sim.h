/*
 * core/sim.h - the run object, shared by sim.c (the application side) and
 * model_api.c (what models may ask of the core).
 */
#ifndef WEFT_SIM_H
#define WEFT_SIM_H

#include "internal.h"
#include "output.h"

struct weft_model_ctx {
	weft_sim *sim;
};

/* A buffer the model allocated with weft_model_alloc, recorded for state
 * digests. */
typedef struct weft__sim_buf {
	char *name; /* the `what` the model gave */
	weft_buf *buf;
	size_t bytes;
	int is_f32;	/* weft_model_buffer_tolerance() was called */
	double abs_tol; /* for f32 buffers */
} weft__sim_buf;

typedef struct weft__summary_line {
	char *key;
	char *value;
} weft__summary_line;

struct weft_sim {
	weft_context *ctx;
	const weft_config *cfg;
	weft__plugin_set *plugins; /* discovery, when chosen by name */
	weft__plugin *own_plugin;  /* loaded by path, when [backend] plugin */
	weft__plugin *plugin;	   /* the one in use */
	const weft_backend *vt;
	weft_device *dev;
	weft_program *prog;
	const weft_model *model;
	void *mstate;
	weft_model_ctx mc;
	weft_launch *launches;
	uint32_t n_launches;
	uint64_t steps_total, steps_done, every;
	const char *outdir;
	char *cache_dir;	 /* resolved default cache directory, owned */
	weft__outputs outputs;	 /* open, not yet committed */
	weft__outputs committed; /* renamed into place */
	weft__summary_line *summary;
	size_t n_summary;
	weft__sim_buf *bufs; /* live model buffers, in allocation order */
	size_t n_bufs;
};

/* ---- state digests (sim.c), for the conformance suite ----------------- */

/* One model buffer as downloaded: its bytes and their XXH3-64 hash. */
typedef struct weft__digest_buf {
	char *name;
	size_t bytes;
	int is_f32; /* compare as f32 elements within abs_tol */
	double abs_tol;
	uint64_t hash;	     /* XXH3_64bits of data */
	unsigned char *data; /* the buffer's bytes, owned */
} weft__digest_buf;

typedef struct weft__digest {
	weft__digest_buf *bufs; /* in allocation order */
	size_t n;
} weft__digest;

/* Wait for the device, then download every live model buffer (blocking)
 * and hash it. */
weft_status weft__sim_digest(weft_sim *sim, weft__digest **out);
void weft__digest_free(weft__digest *d);

/* Record a new model buffer; drop the record of a freed one. */
weft_status weft__sim_buf_add(weft_sim *sim, const char *name, weft_buf *buf,
			      size_t bytes);
void weft__sim_buf_drop(weft_sim *sim, weft_buf *buf);
weft__sim_buf *weft__sim_buf_find(weft_sim *sim, weft_buf *buf);

#endif
