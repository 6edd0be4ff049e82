/*
 * plugins/cuda/memory.c - device allocations, served from a pool.
 *
 * The pool, its size classes and the live-buffer list are
 * plugins/common/pool.h: a freed buffer keeps its device block on its
 * class's free list; the next allocation of that class takes it back
 * without calling cudaMalloc (which is slow and may synchronise the
 * device). free() never calls cudaFree: work still queued
 * may use the block, and whatever uses it next is queued after that work.
 * Pooled blocks go back to the device at close, and when an allocation
 * does not fit in the free device memory (after waiting for the streams,
 * so that no queued work still uses them).
 *
 * cudaMalloc memory is 256-byte aligned. Contents are not initialised.
 */
#include "config.h"

#include <stdlib.h>

#include "priv.h"

#define BUF_OF(p) WEFT__POOL_BUF_OF(weft_buf, p)

/* The pool's destroy hook. The caller has waited for the streams. */
static void buf_destroy(void *ctx, struct weft__pool_buf *pb)
{
	weft_buf *b = BUF_OF(pb);

	(void)ctx;
	(void)cudaFree(b->ptr);
	free(b);
}

static weft_status nomem(const weft_device *dev, size_t bytes, size_t avail,
			 weft_error *err)
{
	return weft__cuda_fail(err, WEFT_E_NOMEM,
			       "device %d (%s): cannot allocate %zu bytes (%zu "
			       "bytes free)",
			       dev->ordinal, dev->name, bytes, avail);
}

static weft_status free_memory(const weft_device *dev, size_t *avail,
			       weft_error *err)
{
	size_t total = 0;

	*avail = 0;
	return weft__cuda_check(dev, cudaMemGetInfo(avail, &total), err,
				"reading the free device memory");
}

/* Room for need bytes: refuse at once what cannot fit, after giving the
 * pool back if that could make it fit. */
static weft_status make_room(weft_device *dev, size_t bytes, size_t need,
			     weft_error *err)
{
	size_t avail;
	weft_status st = free_memory(dev, &avail, err);

	if (st != WEFT_OK || need <= avail)
		return st;
	if (!weft__pool_empty(&dev->pool)) {
		if ((st = weft__cuda_drain(dev, err)))
			return st;
		weft__pool_drain(&dev->pool);
		if ((st = free_memory(dev, &avail, err)))
			return st;
	}
	return need <= avail ? WEFT_OK : nomem(dev, bytes, avail, err);
}

/* A device block of need bytes for a request of bytes. */
static weft_status block_alloc(weft_device *dev, size_t bytes, size_t need,
			       void **ptr, weft_error *err)
{
	size_t avail = 0;
	weft_status st = make_room(dev, bytes, need, err);
	cudaError_t e;

	if (st != WEFT_OK)
		return st;
	e = cudaMalloc(ptr, need);
	if (e == cudaErrorMemoryAllocation && !weft__pool_empty(&dev->pool)) {
		(void)cudaGetLastError();
		if ((st = weft__cuda_drain(dev, err)))
			return st;
		weft__pool_drain(&dev->pool);
		e = cudaMalloc(ptr, need);
	}
	if (e == cudaErrorMemoryAllocation) {
		(void)cudaGetLastError();
		(void)free_memory(dev, &avail, NULL);
		return nomem(dev, bytes, avail, err);
	}
	return weft__cuda_check(dev, e, err, "cudaMalloc of %zu bytes", need);
}

/* The pool's create hook: a buffer with a new block from the device. */
static weft_status buf_new(void *ctx, size_t bytes, size_t block,
			   struct weft__pool_buf **out, weft_error *err)
{
	weft_device *dev = ctx;
	weft_buf *b = calloc(1, sizeof *b);
	weft_status st;

	if (!b)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "%s: out of host memory for a buffer "
				       "of %zu bytes",
				       dev->where, bytes);
	st = block_alloc(dev, bytes, block, &b->ptr, err);
	if (st != WEFT_OK) {
		free(b);
		return st;
	}
	b->pb.block = block;
	*out = &b->pb;
	return WEFT_OK;
}

/* Requests no size class can hold: more than half the address space. */
static weft_status check_size(weft_device *dev, size_t bytes, weft_error *err)
{
	size_t avail;

	if (bytes <= WEFT__POOL_MAX)
		return WEFT_OK;
	(void)free_memory(dev, &avail, NULL);
	return nomem(dev, bytes, avail, err);
}

static const weft__pool_ops pool_ops = { buf_new, buf_destroy };

void weft__cuda_memory_init(weft_device *dev)
{
	weft__pool_init(&dev->pool, &pool_ops, dev, &dev->st);
}

weft_status weft__cuda_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			     weft_error *err)
{
	struct weft__pool_buf *pb;
	weft_status st;

	if ((st = weft__chk_alloc(&weft__cuda_chk, dev, out, err)) ||
	    (st = weft__cuda_enter(dev, err)) ||
	    (st = check_size(dev, bytes, err)) ||
	    (st = weft__pool_alloc(&dev->pool, bytes, &pb, err)))
		return st;
	*out = BUF_OF(pb);
	return WEFT_OK;
}

/* free() never calls cudaFree (see above). */
void weft__cuda_free(weft_device *dev, weft_buf *buf)
{
	if (dev && buf)
		weft__pool_free(&dev->pool, &buf->pb);
}

/* The buffer's device pointer, on the CUDA device numbered `ordinal`. */
weft_status weft__cuda_native(weft_device *dev, weft_buf *buf, weft_native *out,
			      weft_error *err)
{
	weft_status st = weft__chk_native(&weft__cuda_chk, dev, buf, out, err);

	if (st != WEFT_OK)
		return st;
	out->kind = WEFT_NATIVE_CUDA;
	out->device = dev->ordinal;
	out->handle = buf->ptr;
	out->offset = 0;
	out->bytes = buf->pb.size;
	return WEFT_OK;
}

/* What cudaMemGetInfo says: the device's memory and how much is free
 * (blocks this device keeps pooled are not counted as free). */
weft_status weft__cuda_mem_info(weft_device *dev, weft_mem_info *out,
				weft_error *err)
{
	weft_status st = weft__chk_mem_info(&weft__cuda_chk, dev, out, err);
	weft_mem_info mi = { .struct_size = sizeof mi };
	size_t avail = 0, total = 0;

	if (st != WEFT_OK || (st = weft__cuda_enter(dev, err)) ||
	    (st = weft__cuda_check(dev, cudaMemGetInfo(&avail, &total), err,
				   "reading the free device memory")))
		return st;
	mi.total_bytes = total;
	mi.free_bytes = avail;
	weft__mem_info_copy(out, &mi);
	return WEFT_OK;
}

/* Grown (never shrunk) when an overlapping copy needs more; the old block
 * may still be in use by queued copies, so the streams are waited for
 * before it is freed. */
weft_status weft__cuda_scratch(weft_device *dev, size_t bytes, void **out,
			       weft_error *err)
{
	weft_status st;
	size_t need;

	if (bytes <= dev->scratch_size) {
		*out = dev->scratch;
		return WEFT_OK;
	}
	if (bytes > WEFT__POOL_MAX)
		return check_size(dev, bytes, err);
	need = weft__pool_class_bytes(weft__pool_class(bytes));
	if (dev->scratch) {
		if ((st = weft__cuda_drain(dev, err)))
			return st;
		(void)cudaFree(dev->scratch);
		dev->scratch = NULL;
		dev->scratch_size = 0;
	}
	if ((st = block_alloc(dev, bytes, need, &dev->scratch, err))) {
		dev->scratch = NULL;
		return st;
	}
	dev->scratch_size = need;
	*out = dev->scratch;
	return WEFT_OK;
}

/* The streams are idle (close). */
void weft__cuda_memory_release(weft_device *dev)
{
	weft__pool_close(&dev->pool);
	if (dev->scratch)
		(void)cudaFree(dev->scratch);
	dev->scratch = NULL;
	dev->scratch_size = 0;
}
