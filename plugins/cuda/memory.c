/*
 * plugins/cuda/memory.c - device allocations, served from a pool.
 *
 * The size classes are the OpenMP backend's: a multiple of 64 bytes up to
 * 4 KiB, then four classes per power of two. A freed buffer keeps its
 * device block on its class's free list; the next allocation of that
 * class takes it back without calling cudaMalloc (which is slow and may
 * synchronise the device). free() never calls cudaFree: work still queued
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

/* Index of the highest set bit; x > 0. */
static unsigned floor_log2(size_t x)
{
	return 63u - (unsigned)__builtin_clzll((unsigned long long)x);
}

/* The size class of a request; bytes <= SIZE_MAX / 2 (see check_size). */
unsigned weft__cuda_class_of(size_t bytes)
{
	unsigned p;
	size_t step, q;

	if (bytes <= WEFT__CUDA_SMALL_MAX)
		return bytes ? (unsigned)((bytes - 1) / WEFT__CUDA_ALIGN) : 0;
	p = floor_log2(bytes - 1); /* 2^p < bytes <= 2^(p+1), p >= 12 */
	step = (size_t)1 << (p - 2);
	q = (bytes - ((size_t)1 << p) + step - 1) / step; /* 1..4 */
	return WEFT__CUDA_SMALL_CLASSES + 4 * (p - 12) + (unsigned)q - 1;
}

/* The block size of a class: the inverse of weft__cuda_class_of(). */
size_t weft__cuda_class_bytes(unsigned cls)
{
	unsigned j, p;

	if (cls < WEFT__CUDA_SMALL_CLASSES)
		return (size_t)(cls + 1) * WEFT__CUDA_ALIGN;
	j = cls - WEFT__CUDA_SMALL_CLASSES;
	p = 12 + j / 4;
	return ((size_t)1 << p) + ((size_t)(j % 4 + 1) << (p - 2));
}

static int pool_empty(const weft_device *dev)
{
	for (unsigned c = 0; c < WEFT__CUDA_N_CLASSES; c++)
		if (dev->pool[c])
			return 0;
	return 1;
}

/* Give every pooled block back to the device. The caller has waited for
 * the streams. */
static void pool_drain(weft_device *dev)
{
	for (unsigned c = 0; c < WEFT__CUDA_N_CLASSES; c++) {
		while (dev->pool[c]) {
			weft_buf *b = dev->pool[c];

			dev->pool[c] = b->next;
			(void)cudaFree(b->ptr);
			free(b);
		}
	}
}

static weft_buf *pool_take(weft_device *dev, unsigned cls)
{
	weft_buf *b = dev->pool[cls];

	if (b) {
		dev->pool[cls] = b->next;
		b->pooled = 0;
		b->next = NULL;
	}
	return b;
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
	if (!pool_empty(dev)) {
		if ((st = weft__cuda_drain(dev, err)))
			return st;
		pool_drain(dev);
		if ((st = free_memory(dev, &avail, err)))
			return st;
	}
	return need <= avail ? WEFT_OK : nomem(dev, bytes, avail, err);
}

/* A device block of class cls for a request of bytes. */
static weft_status block_alloc(weft_device *dev, size_t bytes, unsigned cls,
			       void **ptr, weft_error *err)
{
	size_t need = weft__cuda_class_bytes(cls), avail = 0;
	weft_status st = make_room(dev, bytes, need, err);
	cudaError_t e;

	if (st != WEFT_OK)
		return st;
	e = cudaMalloc(ptr, need);
	if (e == cudaErrorMemoryAllocation && !pool_empty(dev)) {
		(void)cudaGetLastError();
		if ((st = weft__cuda_drain(dev, err)))
			return st;
		pool_drain(dev);
		e = cudaMalloc(ptr, need);
	}
	if (e == cudaErrorMemoryAllocation) {
		(void)cudaGetLastError();
		(void)free_memory(dev, &avail, NULL);
		return nomem(dev, bytes, avail, err);
	}
	return weft__cuda_check(dev, e, err, "cudaMalloc of %zu bytes", need);
}

static weft_status buf_new(weft_device *dev, size_t bytes, unsigned cls,
			   weft_buf **out, weft_error *err)
{
	weft_buf *b = calloc(1, sizeof *b);
	weft_status st;

	if (!b)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "%s: out of host memory for a buffer "
				       "of %zu bytes",
				       dev->where, bytes);
	st = block_alloc(dev, bytes, cls, &b->ptr, err);
	if (st != WEFT_OK) {
		free(b);
		return st;
	}
	b->cls = cls;
	*out = b;
	return WEFT_OK;
}

static void live_push(weft_device *dev, weft_buf *b)
{
	b->prev = NULL;
	b->next = dev->live;
	if (dev->live)
		dev->live->prev = b;
	dev->live = b;
}

static void live_unlink(weft_device *dev, weft_buf *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		dev->live = b->next;
	if (b->next)
		b->next->prev = b->prev;
	b->prev = b->next = NULL;
}

/* Requests no size class can hold: more than half the address space. */
static weft_status check_size(weft_device *dev, size_t bytes, weft_error *err)
{
	size_t avail;

	if (bytes <= SIZE_MAX / 2)
		return WEFT_OK;
	(void)free_memory(dev, &avail, NULL);
	return nomem(dev, bytes, avail, err);
}

weft_status weft__cuda_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			     weft_error *err)
{
	uint64_t t0 = weft__cuda_now_ns();
	weft_status st;
	weft_buf *b;
	unsigned cls;

	if (!dev || !out)
		return weft__cuda_fail(err, WEFT_E_INVALID, "alloc: no %s",
				       dev ? "place for the buffer" : "device");
	*out = NULL;
	if ((st = weft__cuda_enter(dev, err)) ||
	    (st = check_size(dev, bytes, err)))
		return st;
	cls = weft__cuda_class_of(bytes);
	b = pool_take(dev, cls);
	if (b) {
		dev->st.pool_reuses++;
	} else {
		if ((st = buf_new(dev, bytes, cls, &b, err)))
			return st;
		dev->st.allocs++;
	}
	b->size = bytes;
	live_push(dev, b);
	dev->st.bytes_in_use += bytes;
	if (dev->st.bytes_in_use > dev->st.bytes_peak)
		dev->st.bytes_peak = dev->st.bytes_in_use;
	*out = b;
	dev->st.time_ns[WEFT_PHASE_ALLOC] += weft__cuda_now_ns() - t0;
	return WEFT_OK;
}

/* A buffer freed twice is ignored the second time. */
void weft__cuda_free(weft_device *dev, weft_buf *buf)
{
	uint64_t t0 = weft__cuda_now_ns();

	if (!dev || !buf || buf->pooled)
		return;
	live_unlink(dev, buf);
	dev->st.bytes_in_use -= buf->size;
	dev->st.frees++;
	buf->pooled = 1;
	buf->next = dev->pool[buf->cls];
	dev->pool[buf->cls] = buf;
	dev->st.time_ns[WEFT_PHASE_ALLOC] += weft__cuda_now_ns() - t0;
}

/* The buffer's device pointer, on the CUDA device numbered `ordinal`. */
weft_status weft__cuda_native(weft_device *dev, weft_buf *buf, weft_native *out,
			      weft_error *err)
{
	weft_status st;

	if (!dev)
		return weft__cuda_fail(err, WEFT_E_INVALID,
				       "native: no device");
	st = weft__chk_native(&weft__cuda_chk, buf, out, err);
	if (st != WEFT_OK)
		return st;
	out->kind = WEFT_NATIVE_CUDA;
	out->device = dev->ordinal;
	out->handle = buf->ptr;
	out->offset = 0;
	out->bytes = buf->size;
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
	if (bytes > SIZE_MAX / 2)
		return check_size(dev, bytes, err);
	need = weft__cuda_class_bytes(weft__cuda_class_of(bytes));
	if (dev->scratch) {
		if ((st = weft__cuda_drain(dev, err)))
			return st;
		(void)cudaFree(dev->scratch);
		dev->scratch = NULL;
		dev->scratch_size = 0;
	}
	if ((st = block_alloc(dev, bytes, weft__cuda_class_of(bytes),
			      &dev->scratch, err))) {
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
	while (dev->live)
		weft__cuda_free(dev, dev->live);
	pool_drain(dev);
	if (dev->scratch)
		(void)cudaFree(dev->scratch);
	dev->scratch = NULL;
	dev->scratch_size = 0;
}
