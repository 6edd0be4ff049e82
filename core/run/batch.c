/*
 * core/run/batch.c - batched replicas: R runs stepped together on one device.
 *
 * Each replica is an ordinary weft_sim whose backend is the replica view
 * below: a weft_backend table of the core's, whose device is the
 * replica's view. Every path that reaches the backend through sim->vt
 * (the model API, the output pipeline, digests) thus works unchanged.
 *
 *  - While the replicas' setups run, one after another, the view keeps
 *    every buffer a model allocates in host memory (staging): writes,
 *    reads and copies are memcpy, and the step list is recorded as usual.
 *  - Then realize: every replica must have allocated the same buffers in
 *    the same order under the same names, and declared a step list of the
 *    same shape. Buffer i is allocated once for all replicas, R parts of
 *    stride[i] bytes (the largest replica's bytes rounded up to 256), each
 *    replica's staged bytes uploaded into its part; the replica's handles
 *    now refer to (the batch's buffer, r * stride[i]). The step lists
 *    become one list of the batch's buffers with their strides.
 *  - Each chunk of steps is one step_replicas() call; then every replica
 *    collects its outputs, one sync waits for all of their reads, and each
 *    replica emits on this thread (pipeline.c: no writer thread per
 *    replica).
 *
 * What the view cannot do (launching a list of a replica alone, native
 * handles, fences) fails with WEFT_E_UNSUPPORTED, saying so.
 */
#include "run/sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/batch.h"

/* A replica's part of a batch buffer: its stride's alignment. */
#define BATCH_ALIGN 256u

/* A buffer a replica allocated: its bytes in host memory until the batch
 * is realized, then its part of the batch's buffer; one allocated after
 * realize has a device buffer of its own. */
typedef struct batch_slice {
	struct batch_slice *next, *prev;
	size_t bytes;
	unsigned char *stage; /* staged bytes, until realize */
	weft_buf *real;	      /* the device buffer, after */
	size_t offset;	      /* of the replica's part in real */
	int own;	      /* real is this slice's alone */
	size_t index;	      /* its allocation index, at realize */
} batch_slice;

/* A replica's device: what the view's functions are given. */
typedef struct batch_view {
	weft__batch *b;
	uint32_t r;
	batch_slice *live; /* its buffers */
} batch_view;

struct weft__batch {
	weft_context *ctx;
	weft_sim *base;	 /* the backend, its device and the kernels */
	weft_backend vt; /* the view's table, named as the backend */
	uint32_t n;	 /* replicas */
	batch_view *views;
	weft_sim **sims;
	int realized;
	int dirty;	  /* work issued since the last sync */
	weft_buf **bufs;  /* the batch's buffers, by allocation index */
	uint64_t *stride; /* bytes per replica, by allocation index */
	size_t n_bufs;
	weft_launch *list; /* the step, on the batch's buffers */
	weft_replica_layout *layouts;
	uint32_t n_launches;
	uint64_t done, total, every;
};

/* ---- the replica view ---------------------------------------------------- */

#define VIEW(dev)   ((batch_view *)(void *)(dev))
#define SLICE(buf)  ((batch_slice *)(void *)(buf))
#define REAL(b)	    ((b)->base->vt)
#define REAL_DEV(b) ((b)->base->dev)

static weft_status view_err(weft_error *err, weft_status st, const char *what)
{
	snprintf(err->msg, sizeof err->msg, "%s", what);
	return st;
}

static weft_status view_probe(weft_probe *out)
{
	out->available = 0;
	snprintf(out->reason, sizeof out->reason,
		 "a batch's replica view, not a backend");
	return WEFT_OK;
}

static weft_status view_open(const weft_device_config *cfg, weft_device **out,
			     weft_error *err)
{
	(void)cfg;
	*out = NULL;
	return view_err(err, WEFT_E_UNSUPPORTED,
			"a batch's replica view opens no device");
}

/* The batch closes the device, once every replica is closed. */
static void view_close(weft_device *dev)
{
	(void)dev;
}

static weft_status view_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			      weft_error *err)
{
	batch_view *v = VIEW(dev);
	weft__batch *b = v->b;
	batch_slice *s = calloc(1, sizeof *s);
	weft_status st = WEFT_OK;

	*out = NULL;
	if (!s)
		return view_err(err, WEFT_E_NOMEM, "out of host memory");
	if (b->realized)
		st = REAL(b)->alloc(REAL_DEV(b), bytes, &s->real, err);
	else if (!(s->stage = calloc(1, bytes ? bytes : 1)))
		st = view_err(err, WEFT_E_NOMEM,
			      "cannot stage it in host memory");
	if (st) {
		free(s);
		return st;
	}
	s->bytes = bytes;
	s->own = b->realized;
	s->next = v->live;
	if (v->live)
		v->live->prev = s;
	v->live = s;
	*out = (weft_buf *)s;
	return WEFT_OK;
}

/* A buffer of the batch's own stays until the batch closes. */
static void view_free(weft_device *dev, weft_buf *buf)
{
	batch_view *v = VIEW(dev);
	batch_slice *s = SLICE(buf);

	if (!s)
		return;
	if (s->prev)
		s->prev->next = s->next;
	else
		v->live = s->next;
	if (s->next)
		s->next->prev = s->prev;
	if (s->own)
		REAL(v->b)->free(REAL_DEV(v->b), s->real);
	free(s->stage);
	free(s);
}

/* [offset, offset + bytes) lies in s: the device would not see a replica
 * reach into the next one's part. */
static weft_status view_range(const batch_slice *s, size_t offset, size_t bytes,
			      weft_error *err)
{
	if (offset <= s->bytes && bytes <= s->bytes - offset)
		return WEFT_OK;
	snprintf(err->msg, sizeof err->msg,
		 "%zu bytes at offset %zu lie outside the buffer (%zu bytes)",
		 bytes, offset, s->bytes);
	return WEFT_E_INVALID;
}

static weft_status view_write(weft_device *dev, weft_buf *dst, size_t offset,
			      const void *src, size_t bytes, unsigned flags,
			      weft_error *err)
{
	weft__batch *b = VIEW(dev)->b;
	batch_slice *s = SLICE(dst);
	weft_status st = view_range(s, offset, bytes, err);

	if (st || !bytes)
		return st;
	if (s->stage) {
		memcpy(s->stage + offset, src, bytes);
		return WEFT_OK;
	}
	b->dirty = 1;
	return REAL(b)->write(REAL_DEV(b), s->real, s->offset + offset, src,
			      bytes, flags, err);
}

static weft_status view_read(weft_device *dev, void *dst, weft_buf *src,
			     size_t offset, size_t bytes, unsigned flags,
			     weft_error *err)
{
	weft__batch *b = VIEW(dev)->b;
	batch_slice *s = SLICE(src);
	weft_status st = view_range(s, offset, bytes, err);

	if (st || !bytes)
		return st;
	if (s->stage) {
		memcpy(dst, s->stage + offset, bytes);
		return WEFT_OK;
	}
	b->dirty = 1;
	return REAL(b)->read(REAL_DEV(b), dst, s->real, s->offset + offset,
			     bytes, flags, err);
}

static weft_status view_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			     weft_buf *src, size_t src_offset, size_t bytes,
			     unsigned flags, weft_error *err)
{
	weft__batch *b = VIEW(dev)->b;
	batch_slice *d = SLICE(dst), *s = SLICE(src);
	weft_status st = view_range(d, dst_offset, bytes, err);

	if (st || (st = view_range(s, src_offset, bytes, err)) || !bytes)
		return st;
	if (d->stage && s->stage) {
		memmove(d->stage + dst_offset, s->stage + src_offset, bytes);
		return WEFT_OK;
	}
	b->dirty = 1;
	return REAL(b)->copy(REAL_DEV(b), d->real, d->offset + dst_offset,
			     s->real, s->offset + src_offset, bytes, flags,
			     err);
}

static weft_status view_load_program(weft_device *dev,
				     const weft_program_desc *desc,
				     weft_program **out, weft_error *err)
{
	(void)dev;
	(void)desc;
	*out = NULL;
	return view_err(err, WEFT_E_UNSUPPORTED,
			"a batch's replicas share the batch's kernels");
}

static void view_unload_program(weft_device *dev, weft_program *prog)
{
	(void)dev;
	(void)prog;
}

static weft_status view_step(weft_device *dev, weft_program *prog,
			     const weft_launch *launches, uint32_t n_launches,
			     uint64_t n_steps, weft_error *err)
{
	(void)dev;
	(void)prog;
	(void)launches;
	(void)n_launches;
	(void)n_steps;
	return view_err(err, WEFT_E_UNSUPPORTED,
			"a replica of a batch steps only with the batch: its "
			"launch lists cannot be launched alone");
}

/* One sync for the whole batch: the replicas' reads after a chunk are
 * waited for by the first replica's. */
static weft_status view_sync(weft_device *dev, weft_error *err)
{
	weft__batch *b = VIEW(dev)->b;
	weft_status st;

	if (!b->dirty)
		return WEFT_OK;
	st = REAL(b)->sync(REAL_DEV(b), err);
	if (st == WEFT_OK)
		b->dirty = 0;
	return st;
}

/* The device's counters, shared by the replicas. */
static weft_status view_stats(weft_device *dev, weft_stats *out)
{
	weft__batch *b = VIEW(dev)->b;

	return REAL(b)->stats(REAL_DEV(b), out);
}

static weft_status view_native(weft_device *dev, weft_buf *buf,
			       weft_native *out, weft_error *err)
{
	(void)dev;
	(void)buf;
	(void)out;
	return view_err(err, WEFT_E_UNSUPPORTED,
			"a replica of a batch has no native buffers of its "
			"own (its buffers are parts of the batch's)");
}

static const weft_backend view_table = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.probe = view_probe,
	.open = view_open,
	.close = view_close,
	.alloc = view_alloc,
	.free = view_free,
	.write = view_write,
	.read = view_read,
	.copy = view_copy,
	.load_program = view_load_program,
	.unload_program = view_unload_program,
	.step = view_step,
	.sync = view_sync,
	.stats = view_stats,
	.native = view_native,
};

/* ---- realize ------------------------------------------------------------- */

static uint64_t batch_seed(const weft__batch *b, uint32_t r)
{
	return (uint64_t)weft__config_opts(b->sims[r]->cfg)->simulation.seed;
}

/* Fail with "batch of N replicas: replica R (seed S): ...". */
static weft_status batch_fail(weft__batch *b, uint32_t r, weft_status st,
			      const char *fmt, ...) WEFT_PRINTF(4, 5);
static weft_status batch_fail(weft__batch *b, uint32_t r, weft_status st,
			      const char *fmt, ...)
{
	char msg[WEFT__MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return weft__fail(b->ctx, st,
			  "batch of %u replicas of model %s: replica %u (seed "
			  "%llu): %s",
			  b->n, b->base->model->name, r,
			  (unsigned long long)batch_seed(b, r), msg);
}

/* Replica r allocated replica 0's buffers, in its order, under its names;
 * each slice learns its allocation index. */
static weft_status batch_same_bufs(weft__batch *b, uint32_t r)
{
	const weft_sim *s0 = b->sims[0], *s = b->sims[r];

	for (size_t i = 0; i < s->n_bufs && i < s0->n_bufs; i++) {
		if (strcmp(s->bufs[i]->name, s0->bufs[i]->name) != 0)
			return batch_fail(
				b, r, WEFT_E_UNSUPPORTED,
				"its buffer %zu is '%s', replica 0's is '%s': "
				"a batched model allocates the same buffers "
				"whatever the seed",
				i, s->bufs[i]->name, s0->bufs[i]->name);
		SLICE(s->bufs[i]->buf)->index = i;
	}
	if (s->n_bufs != s0->n_bufs)
		return batch_fail(b, r, WEFT_E_UNSUPPORTED,
				  "it allocated %zu buffers, replica 0 %zu: a "
				  "batched model allocates the same buffers "
				  "whatever the seed",
				  s->n_bufs, s0->n_bufs);
	return WEFT_OK;
}

/* Buffer i's stride: the largest replica's bytes, rounded up. */
static weft_status batch_stride(weft__batch *b, size_t i)
{
	uint64_t most = 0;

	for (uint32_t r = 0; r < b->n; r++)
		if (b->sims[r]->bufs[i]->bytes > most)
			most = b->sims[r]->bufs[i]->bytes;
	if (most > (SIZE_MAX - BATCH_ALIGN) / b->n)
		return batch_fail(b, 0, WEFT_E_NOMEM,
				  "buffer '%s': %u parts of %llu bytes do not "
				  "fit a size_t",
				  b->sims[0]->bufs[i]->name, b->n,
				  (unsigned long long)most);
	most = (most + BATCH_ALIGN - 1) / BATCH_ALIGN * BATCH_ALIGN;
	b->stride[i] = most ? most : BATCH_ALIGN;
	return WEFT_OK;
}

/* Buffer i for every replica: allocated, each part uploaded from its
 * staging, and the replicas' handles pointed at their parts. */
static weft_status batch_alloc_one(weft__batch *b, size_t i)
{
	const char *name = b->sims[0]->bufs[i]->name;
	size_t bytes;
	weft_error err = { { 0 } };
	weft_status st;

	if ((st = batch_stride(b, i)))
		return st;
	bytes = (size_t)b->stride[i] * b->n;
	st = REAL(b)->alloc(REAL_DEV(b), bytes, &b->bufs[i], &err);
	if (st)
		return weft__fail(b->ctx, st,
				  "allocating %s for %u replicas (%zu bytes): "
				  "%s",
				  name, b->n, bytes, err.msg);
	for (uint32_t r = 0; r < b->n; r++) {
		batch_slice *s = SLICE(b->sims[r]->bufs[i]->buf);
		s->real = b->bufs[i];
		s->offset = (size_t)b->stride[i] * r;
		st = REAL(b)->write(REAL_DEV(b), s->real, s->offset, s->stage,
				    s->bytes, 0, &err);
		if (st)
			return batch_fail(b, r, st,
					  "uploading %s (%zu bytes): %s", name,
					  s->bytes, err.msg);
		free(s->stage);
		s->stage = NULL;
	}
	return WEFT_OK;
}

/* The allocation index of a buffer launch i of replica r binds. */
static weft_status batch_index(weft__batch *b, uint32_t r, uint32_t i,
			       weft_buf *buf, size_t *index)
{
	if (!weft__sim_buf_find(b->sims[r], buf))
		return batch_fail(b, r, WEFT_E_INVALID,
				  "step launch %u binds a buffer that is not "
				  "one of the replica's",
				  i);
	*index = SLICE(buf)->index;
	return WEFT_OK;
}

/* What differs between launch i of replica r and replica 0's (NULL:
 * nothing), for the message. */
static weft_status batch_launch_diff(weft__batch *b, uint32_t r, uint32_t i,
				     const char **what)
{
	const weft_launch *l0 = &WEFT__SIM_STEP(b->sims[0])->l[i];
	const weft_launch *l = &WEFT__SIM_STEP(b->sims[r])->l[i];
	size_t x0 = 0, x = 0;
	weft_status st;

	*what = l->kernel != l0->kernel ? "its kernel"
		: l->extent != l0->extent
			? "its extent (a batched model's extents do not "
			  "depend on the seed: counts that do are read on the "
			  "device)"
		: (l->extent_buf == NULL) != (l0->extent_buf == NULL) ||
				l->extent_offset != l0->extent_offset
			? "its device-side count"
			: NULL;
	for (uint32_t k = 0; !*what && k < l->n_bufs; k++) {
		if ((st = batch_index(b, 0, i, l0->bufs[k], &x0)) ||
		    (st = batch_index(b, r, i, l->bufs[k], &x)))
			return st;
		if (x != x0)
			*what = "the buffers it binds";
	}
	if (!*what && l->extent_buf &&
	    ((st = batch_index(b, 0, i, l0->extent_buf, &x0)) ||
	     (st = batch_index(b, r, i, l->extent_buf, &x))))
		return st;
	if (!*what && l->extent_buf && x != x0)
		*what = "its device-side count's buffer";
	return WEFT_OK;
}

/* Replica r's step list has replica 0's shape. */
static weft_status batch_same_step(weft__batch *b, uint32_t r)
{
	const weft__sim_list *s0 = WEFT__SIM_STEP(b->sims[0]);
	const weft__sim_list *s = WEFT__SIM_STEP(b->sims[r]);
	const char *what;
	weft_status st;

	if (s->n != s0->n)
		return batch_fail(b, r, WEFT_E_UNSUPPORTED,
				  "its step has %u launches, replica 0's %u",
				  s->n, s0->n);
	for (uint32_t i = 0; i < s->n; i++) {
		if ((st = batch_launch_diff(b, r, i, &what)))
			return st;
		if (what)
			return batch_fail(
				b, r, WEFT_E_UNSUPPORTED,
				"step launch %u (%s) differs from replica 0's "
				"in %s",
				i, b->base->model->sigs[s->l[i].kernel].kernel,
				what);
	}
	return WEFT_OK;
}

/* Replica 0's step on the batch's buffers, with their strides. */
static void batch_merge(weft__batch *b)
{
	const weft__sim_list *s0 = WEFT__SIM_STEP(b->sims[0]);

	for (uint32_t i = 0; i < s0->n; i++) {
		weft_launch *l = &b->list[i];
		weft_replica_layout *y = &b->layouts[i];
		*l = s0->l[i];
		memset(y, 0, sizeof *y);
		for (uint32_t k = 0; k < l->n_bufs; k++) {
			size_t x = SLICE(l->bufs[k])->index;
			l->bufs[k] = b->bufs[x];
			y->stride[k] = b->stride[x];
		}
		if (l->extent_buf) {
			size_t x = SLICE(l->extent_buf)->index;
			l->extent_buf = b->bufs[x];
			y->extent_stride = b->stride[x];
		}
	}
	b->n_launches = s0->n;
}

static weft_status batch_realize(weft__batch *b)
{
	size_t n = b->sims[0]->n_bufs;
	uint32_t nl = WEFT__SIM_STEP(b->sims[0])->n;
	weft_status st;

	for (uint32_t r = 0; r < b->n; r++)
		if ((st = batch_same_bufs(b, r)))
			return st;
	for (uint32_t r = 1; r < b->n; r++)
		if ((st = batch_same_step(b, r)))
			return st;
	b->bufs = calloc(n + 1, sizeof *b->bufs);
	b->stride = calloc(n + 1, sizeof *b->stride);
	b->list = calloc(nl + 1, sizeof *b->list);
	b->layouts = calloc(nl + 1, sizeof *b->layouts);
	if (!b->bufs || !b->stride || !b->list || !b->layouts)
		return weft__fail(b->ctx, WEFT_E_NOMEM, "out of memory");
	b->realized = 1;
	b->n_bufs = n;
	for (size_t i = 0; i < n; i++)
		if ((st = batch_alloc_one(b, i)))
			return st;
	batch_merge(b);
	return WEFT_OK;
}

/* ---- open, step, close --------------------------------------------------- */

/* Test hook NO_STEP_REPLICAS (util.h: weft__test_hook), set, treats the
 * backend as one without step_replicas(), so that tests reach the
 * fallback on any. */
static int batch_has_replicas(const weft_backend *vt)
{
	const char *hide = weft__test_hook("NO_STEP_REPLICAS");

	return vt->struct_size >= WEFT_BACKEND_V1_4_SIZE && vt->step_replicas &&
	       !(hide && *hide);
}

/* The device, once: the backend of cfg, when it batches. */
static weft_status batch_device(weft__batch *b, const weft_config *cfg,
				const weft_model *model, int *no_replicas)
{
	const weft_backend *vt;
	weft_status st;

	st = weft__sim_open_base(b->ctx, cfg, model, b->n, &b->base);
	if (st)
		return st;
	vt = b->base->vt;
	if (!batch_has_replicas(vt)) {
		*no_replicas = 1;
		return weft__fail(b->ctx, WEFT_E_UNSUPPORTED,
				  "backend %s (%s) cannot batch replicas: %s",
				  vt->name, b->base->plugin->path,
				  vt->struct_size < WEFT_BACKEND_V1_4_SIZE
					  ? "built for a backend ABI older "
					    "than 1.4, which added "
					    "step_replicas()"
					  : "its step_replicas() is NULL");
	}
	b->vt = view_table;
	b->vt.name = vt->name;
	b->vt.version = vt->version;
	b->vt.description = vt->description;
	return WEFT_OK;
}

/* Checkpoints are a run's own: a batch takes none. */
static weft_status batch_no_checkpoints(weft_context *ctx,
					const weft_config *cfg)
{
	if (weft__config_opts(cfg)->checkpoint.every == 0)
		return WEFT_OK;
	return weft__fail(ctx, WEFT_E_UNSUPPORTED,
			  "%s: [checkpoint] every: a batch of replicas takes "
			  "no checkpoints",
			  weft__config_where(cfg, "checkpoint", "every"));
}

/* Replica r's setup, through its view. */
static weft_status batch_replica(weft__batch *b, const weft_config *cfg,
				 uint32_t r)
{
	b->views[r] = (batch_view){ .b = b, .r = r };
	return weft__sim_open_replica(b->ctx, cfg, b->base, &b->vt,
				      (weft_device *)(void *)&b->views[r],
				      &b->sims[r]);
}

weft_status weft__batch_open(weft_context *ctx, const weft_config *const *cfgs,
			     uint32_t n, const weft_model *model,
			     weft__batch **out, int *no_replicas)
{
	weft__batch *b;
	weft_status st;

	*out = NULL;
	*no_replicas = 0;
	if (n < 1 || n > WEFT__BATCH_MAX || !cfgs)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "a batch has 1 to %u replicas, not %u",
				  WEFT__BATCH_MAX, n);
	if ((st = batch_no_checkpoints(ctx, cfgs[0])))
		return st;
	b = calloc(1, sizeof *b);
	if (b) {
		b->views = calloc(n, sizeof *b->views);
		b->sims = calloc(n, sizeof *b->sims);
	}
	if (!b || !b->views || !b->sims) {
		if (b) {
			free(b->views);
			free(b->sims);
		}
		free(b);
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	b->ctx = ctx;
	b->n = n;
	st = batch_device(b, cfgs[0], model, no_replicas);
	for (uint32_t r = 0; st == WEFT_OK && r < n; r++)
		st = batch_replica(b, cfgs[r], r);
	if (st == WEFT_OK)
		st = batch_realize(b);
	if (st) {
		weft__batch_close(b);
		return st;
	}
	b->total = b->sims[0]->steps_total;
	b->every = b->sims[0]->every;
	*out = b;
	return WEFT_OK;
}

/* After a chunk that ends on an output point: every replica collects,
 * then each emits (the first one's sync waits for all). */
static weft_status batch_outputs(weft__batch *b)
{
	weft_status st;

	for (uint32_t r = 0; r < b->n; r++)
		if (b->sims[r]->pipe.on && (st = weft__pipe_chunk(b->sims[r])))
			return st;
	for (uint32_t r = 0; r < b->n; r++)
		if ((st = weft__pipe_settle(b->sims[r])))
			return st;
	return WEFT_OK;
}

static weft_status batch_enqueue(weft__batch *b, uint64_t n)
{
	weft_error err = { { 0 } };
	weft_status st = REAL(b)->step_replicas(REAL_DEV(b), b->base->prog,
						b->list, b->layouts,
						b->n_launches, b->n, n, &err);

	if (st)
		return weft__fail(
			b->ctx, st, "step %llu of a batch of %u replicas: %s",
			(unsigned long long)b->done + 1, b->n, err.msg);
	b->dirty = 1;
	return WEFT_OK;
}

weft_status weft__batch_step(weft__batch *b, uint64_t n)
{
	weft_status st;

	if (n > b->total - b->done)
		n = b->total - b->done;
	while (n > 0) {
		uint64_t chunk = b->every - b->done % b->every;
		if (weft__cancelled(b->ctx))
			return weft__cancel_fail(
				b->ctx,
				"stepping a batch of %u replicas (%llu of "
				"%llu steps done)",
				b->n, (unsigned long long)b->done,
				(unsigned long long)b->total);
		if (chunk > n)
			chunk = n;
		if ((st = batch_enqueue(b, chunk)))
			return st;
		b->done += chunk;
		n -= chunk;
		for (uint32_t r = 0; r < b->n; r++)
			b->sims[r]->steps_done = b->done;
		if ((b->done % b->every == 0 || b->done == b->total) &&
		    (st = batch_outputs(b)))
			return st;
	}
	return WEFT_OK;
}

weft_sim *weft__batch_sim(weft__batch *b, uint32_t r)
{
	return b && r < b->n ? b->sims[r] : NULL;
}

/* What a replica's model left allocated, once its run is closed. */
static void batch_view_free(batch_view *v)
{
	while (v->live)
		view_free((weft_device *)(void *)v, (weft_buf *)v->live);
}

void weft__batch_close(weft__batch *b)
{
	if (!b)
		return;
	for (uint32_t r = 0; r < b->n; r++) {
		weft__sim_close(b->sims[r]);
		if (b->views[r].b)
			batch_view_free(&b->views[r]);
	}
	for (size_t i = 0; i < b->n_bufs; i++)
		REAL(b)->free(REAL_DEV(b), b->bufs[i]);
	weft__sim_close(b->base);
	free(b->bufs);
	free(b->stride);
	free(b->list);
	free(b->layouts);
	free(b->views);
	free(b->sims);
	free(b);
}
