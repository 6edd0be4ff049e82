/*
 * core/run/run.c - driving a run from an application (weft/weft.h, "driving a
 * run"): the model's buffers and typed views by name, its launch lists,
 * transfers, fences and native handles, all on the device's one queue.
 *
 * This is what the CartPole API and the Python binding are written on: an
 * application never sees the backend's table, and every message names the
 * buffer, the bytes and the backend.
 */
#include "run/sim.h"

#include <stdlib.h>
#include <string.h>

/* ---- buffers ------------------------------------------------------------- */

size_t weft_sim_buffer_count(const weft_sim *sim)
{
	return sim ? sim->n_bufs : 0;
}

weft_sim_buffer *weft_sim_buffer_at(weft_sim *sim, size_t i)
{
	return sim && i < sim->n_bufs ? sim->bufs[i] : NULL;
}

weft_sim_buffer *weft_sim_buffer_find(weft_sim *sim, const char *name)
{
	for (size_t i = 0; sim && name && i < sim->n_bufs; i++)
		if (strcmp(sim->bufs[i]->name, name) == 0)
			return sim->bufs[i];
	return NULL;
}

weft_status weft_sim_buffer_info(const weft_sim_buffer *b,
				 weft_buffer_info *out)
{
	weft_buffer_info full;
	uint32_t size;

	if (!b || !out || out->struct_size < sizeof(uint32_t))
		return WEFT_E_INVALID;
	full = (weft_buffer_info){
		.name = b->name,
		.bytes = b->bytes,
		.is_f32 = b->is_f32,
		.abs_tol = b->abs_tol,
	};
	size = out->struct_size < sizeof full ? out->struct_size
					      : (uint32_t)sizeof full;
	memcpy(out, &full, size);
	out->struct_size = size;
	return WEFT_OK;
}

/* b belongs to sim and [offset, offset + bytes) lies in it. */
static weft_status weft__check_range(weft_sim *sim, const char *fn,
				     const weft_sim_buffer *b, size_t offset,
				     size_t bytes, const void *host)
{
	size_t i;

	if (!b)
		return weft__fail(sim->ctx, WEFT_E_INVALID, "%s: no buffer",
				  fn);
	for (i = 0; i < sim->n_bufs && sim->bufs[i] != b; i++)
		;
	if (i == sim->n_bufs)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "%s: the buffer is not one of this run's "
				  "(freed, or another run's)",
				  fn);
	if (offset > b->bytes || bytes > b->bytes - offset)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "%s: %zu bytes at offset %zu lie outside "
				  "'%s' (%zu bytes)",
				  fn, bytes, offset, b->name, b->bytes);
	if (!host && bytes)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "%s: no host memory for %zu bytes of '%s'",
				  fn, bytes, b->name);
	return WEFT_OK;
}

weft_status weft_sim_write(weft_sim *sim, weft_sim_buffer *dst, size_t offset,
			   const void *src, size_t bytes, unsigned flags)
{
	weft_status st;

	if (!sim)
		return WEFT_E_INVALID;
	if ((st = weft__check_range(sim, "weft_sim_write", dst, offset, bytes,
				    src)))
		return st;
	return weft__sim_write(sim, dst, offset, src, bytes, flags);
}

weft_status weft__sim_write(weft_sim *sim, weft_sim_buffer *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags)
{
	weft_error err = { { 0 } };
	uint64_t t0 = weft__now_ns();
	weft_status st;

	st = sim->vt->write(sim->dev, dst->buf, offset, src, bytes,
			    flags & WEFT_XFER_ASYNC, &err);
	if (st)
		return weft__fail(sim->ctx, st,
				  "writing %zu bytes of '%s' at offset %zu: "
				  "%s",
				  bytes, dst->name, offset, err.msg);
	if (bytes && !(flags & WEFT_XFER_ASYNC)) /* waited for the queue */
		weft__sim_waited(sim, t0, sim->steps_done);
	return WEFT_OK;
}

weft_status weft_sim_read(weft_sim *sim, void *dst, weft_sim_buffer *src,
			  size_t offset, size_t bytes, unsigned flags)
{
	weft_status st;

	if (!sim)
		return WEFT_E_INVALID;
	if ((st = weft__check_range(sim, "weft_sim_read", src, offset, bytes,
				    dst)))
		return st;
	return weft__sim_read(sim, dst, src, offset, bytes, flags);
}

weft_status weft__sim_read(weft_sim *sim, void *dst, weft_sim_buffer *src,
			   size_t offset, size_t bytes, unsigned flags)
{
	weft_error err = { { 0 } };
	uint64_t t0 = weft__now_ns();
	weft_status st;

	st = sim->vt->read(sim->dev, dst, src->buf, offset, bytes,
			   flags & WEFT_XFER_ASYNC, &err);
	if (st)
		return weft__fail(sim->ctx, st,
				  "reading %zu bytes of '%s' at offset %zu: "
				  "%s",
				  bytes, src->name, offset, err.msg);
	if (bytes && !(flags & WEFT_XFER_ASYNC)) /* waited for the queue */
		weft__sim_waited(sim, t0, sim->steps_done);
	return WEFT_OK;
}

weft_status weft_sim_native(weft_sim *sim, weft_sim_buffer *b, weft_native *out)
{
	weft_native full;
	weft_status st;
	char what[256];

	memset(&full, 0, sizeof full); /* padding included: answers compare */
	if (!sim)
		return WEFT_E_INVALID;
	if ((st = weft__check_range(sim, "weft_sim_native", b, 0, 0, NULL)))
		return st;
	if (!out || out->struct_size < WEFT_NATIVE_V1_2_SIZE)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_native: %s (struct_size must be at "
				  "least %zu)",
				  out ? "struct_size too small" : "no output",
				  (size_t)WEFT_NATIVE_V1_2_SIZE);
	weft__fmt(what, sizeof what, "buffer '%s'", b->name);
	if ((st = weft__sim_native(sim, b->buf, what, &full)))
		return st;
	full.struct_size = out->struct_size < sizeof full
				   ? out->struct_size
				   : (uint32_t)sizeof full;
	memcpy(out, &full, full.struct_size);
	return WEFT_OK;
}

/* ---- typed views -----------------------------------------------------------
 */

size_t weft_sim_array_count(const weft_sim *sim)
{
	return sim ? sim->n_arrays : 0;
}

static weft_status weft__array_fill(weft_sim *sim, const weft__sim_array *a,
				    weft_array *out)
{
	weft_array full;
	weft_status st;
	char what[256];
	int64_t stride = 1;
	uint32_t size;

	memset(&full, 0, sizeof full);
	weft__fmt(what, sizeof what, "view '%s' of buffer '%s'", a->name,
		  a->b->name);
	full.mem.struct_size = sizeof full.mem;
	if ((st = weft__sim_native(sim, a->b->buf, what, &full.mem)))
		return st;
	full.name = a->name;
	full.buffer = a->b;
	full.offset = a->offset;
	full.dtype = a->dtype;
	full.ndim = a->ndim;
	full.bytes = WEFT_DTYPE_BYTES(a->dtype);
	for (uint32_t d = a->ndim; d-- > 0;) {
		full.shape[d] = a->shape[d];
		full.strides[d] = stride;
		stride *= a->shape[d];
		full.bytes *= (size_t)a->shape[d];
	}
	size = out->struct_size < sizeof full ? out->struct_size
					      : (uint32_t)sizeof full;
	full.struct_size = size;
	memcpy(out, &full, size);
	return WEFT_OK;
}

weft_status weft_sim_array_at(weft_sim *sim, size_t i, weft_array *out)
{
	if (!sim)
		return WEFT_E_INVALID;
	if (!out || out->struct_size < sizeof(uint32_t))
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_array_at: no output, or its "
				  "struct_size is not set");
	if (i >= sim->n_arrays)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_array_at: view %zu of %zu", i,
				  sim->n_arrays);
	return weft__array_fill(sim, &sim->arrays[i], out);
}

weft_status weft_sim_array_find(weft_sim *sim, const char *name,
				weft_array *out)
{
	char names[WEFT__MSG_MAX / 2] = "";
	long k;

	if (!sim)
		return WEFT_E_INVALID;
	if ((k = weft__sim_array_index(sim, name)) >= 0)
		return weft_sim_array_at(sim, (size_t)k, out);
	for (size_t i = 0; i < sim->n_arrays; i++)
		weft__msg_add(names, sizeof names, "%s%s", i ? ", " : "",
			      sim->arrays[i].name);
	return weft__fail(sim->ctx, WEFT_E_INVALID,
			  "model %s has no view named '%s' (its views: %s)",
			  sim->model->name, name ? name : "(NULL)",
			  names[0] ? names : "none");
}

/* ---- launch lists, fences -------------------------------------------------
 */

long weft__sim_array_index(const weft_sim *sim, const char *name)
{
	for (size_t i = 0; name && i < sim->n_arrays; i++)
		if (strcmp(sim->arrays[i].name, name) == 0)
			return (long)i;
	return -1;
}

long weft__sim_list_find(const weft_sim *sim, const char *name)
{
	for (uint32_t i = 0; name && i < sim->n_lists; i++)
		if (strcmp(sim->lists[i].name, name) == 0)
			return (long)i;
	return -1;
}

weft_status weft_sim_list(weft_sim *sim, const char *name, uint32_t *index)
{
	long i = sim ? weft__sim_list_find(sim, name) : -1;

	if (i >= 0) {
		if (index)
			*index = (uint32_t)i;
		return WEFT_OK;
	}
	if (!sim)
		return WEFT_E_INVALID;
	return weft__fail(sim->ctx, WEFT_E_INVALID,
			  "model %s has no launch list named '%s'",
			  sim->model ? sim->model->name : "",
			  name ? name : "(NULL)");
}

weft_status weft_sim_launch(weft_sim *sim, uint32_t list, uint64_t n)
{
	weft_error err = { { 0 } };
	const weft__sim_list *l;
	weft_status st;

	if (!sim)
		return WEFT_E_INVALID;
	if (list >= sim->n_lists)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_launch: list %u of %u", list,
				  sim->n_lists);
	l = &sim->lists[list];
	if (n == 0)
		return WEFT_OK;
	st = sim->vt->step(sim->dev, sim->prog, l->l, l->n, n, &err);
	if (st)
		return weft__fail(sim->ctx, st, "launch list '%s' (x%llu): %s",
				  l->name, (unsigned long long)n, err.msg);
	return WEFT_OK;
}

weft_status weft_sim_sync(weft_sim *sim)
{
	if (!sim)
		return WEFT_E_INVALID;
	return weft__sim_sync(sim);
}

weft_status weft__sim_sync(weft_sim *sim)
{
	weft_error err = { { 0 } };
	uint64_t t0 = weft__now_ns();
	weft_status st;

	st = sim->vt->sync(sim->dev, &err);
	if (st)
		return weft__fail(sim->ctx, st, "sync: %s", err.msg);
	weft__sim_waited(sim, t0, sim->steps_done);
	return WEFT_OK;
}

weft_status weft_sim_fence(weft_sim *sim, uint64_t *token)
{
	weft_error err = { { 0 } };
	weft_status st;

	if (!sim)
		return WEFT_E_INVALID;
	if (!token)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_fence: no place for the token");
	if (!sim->has_fences) {
		/* Without fences a wait is a sync: any number will do. */
		*token = ++sim->last_fence;
		return WEFT_OK;
	}
	st = sim->vt->fence(sim->dev, token, &err);
	if (st)
		return weft__fail(sim->ctx, st, "fence: %s", err.msg);
	sim->last_fence = *token;
	sim->tm.fence = *token;
	sim->tm.fence_at = sim->steps_done;
	return WEFT_OK;
}

weft_status weft_sim_wait(weft_sim *sim, uint64_t token)
{
	weft_error err = { { 0 } };
	uint64_t t0;
	weft_status st;

	if (!sim)
		return WEFT_E_INVALID;
	if (token == 0 || token > sim->last_fence)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_wait: token %llu was not given by "
				  "weft_sim_fence (the last is %llu)",
				  (unsigned long long)token,
				  (unsigned long long)sim->last_fence);
	if (!sim->has_fences)
		return weft__sim_sync(sim);
	t0 = weft__now_ns();
	st = sim->vt->wait(sim->dev, token, &err);
	if (st)
		return weft__fail(sim->ctx, st, "wait: %s", err.msg);
	/* Covers the steps the last fence did, or fewer. */
	weft__sim_waited(sim, t0,
			 token >= sim->tm.fence ? sim->tm.fence_at
						: UINT64_MAX);
	return WEFT_OK;
}
