/*
 * plugins/openmp/memory.c - device allocations, served from a pool.
 *
 * Device memory is host memory, aligned to 64 bytes. A request is rounded
 * up to a size class: a multiple of 64 bytes up to 4 KiB, then one of four
 * classes per power of two (so at most a fifth of a block goes unused).
 * A freed buffer keeps its block and waits on its class's free list; the
 * next allocation of that class takes it back without asking the system.
 * Pooled blocks are given back to the system when the device is closed,
 * or when the system cannot serve an allocation (then once more is tried).
 *
 * Buffer contents are not initialised, as on GPU backends.
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
static unsigned class_of(size_t bytes)
{
	unsigned p;
	size_t step, q;

	if (bytes <= WEFT__OMP_SMALL_MAX)
		return bytes ? (unsigned)((bytes - 1) / WEFT__OMP_ALIGN) : 0;
	p = floor_log2(bytes - 1); /* 2^p < bytes <= 2^(p+1), p >= 12 */
	step = (size_t)1 << (p - 2);
	q = (bytes - ((size_t)1 << p) + step - 1) / step; /* 1..4 */
	return WEFT__OMP_SMALL_CLASSES + 4 * (p - 12) + (unsigned)q - 1;
}

/* The block size of a class: the inverse of class_of(). */
static size_t class_bytes(unsigned cls)
{
	unsigned j, p;

	if (cls < WEFT__OMP_SMALL_CLASSES)
		return (size_t)(cls + 1) * WEFT__OMP_ALIGN;
	j = cls - WEFT__OMP_SMALL_CLASSES;
	p = 12 + j / 4;
	return ((size_t)1 << p) + ((size_t)(j % 4 + 1) << (p - 2));
}

/* Refuse at once what cannot be served: more than the host's memory (or
 * than a size class can hold). */
static weft_status check_size(const weft_device *dev, size_t bytes,
			      weft_error *err)
{
	uint64_t limit = dev->host_bytes;

	if (limit > SIZE_MAX / 2)
		limit = SIZE_MAX / 2;
	if ((uint64_t)bytes <= limit)
		return WEFT_OK;
	return weft__omp_fail(err, WEFT_E_NOMEM,
			      "cannot allocate %zu bytes on device 0 (host "
			      "memory, %llu bytes in total)",
			      bytes, (unsigned long long)dev->host_bytes);
}

/* Give every pooled block back to the system. */
static void pool_drain(weft_device *dev)
{
	for (unsigned c = 0; c < WEFT__OMP_N_CLASSES; c++) {
		while (dev->pool[c]) {
			weft_buf *b = dev->pool[c];

			dev->pool[c] = b->next;
			free(b->ptr);
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

static int block_alloc(weft_device *dev, unsigned cls, void **ptr)
{
	size_t bytes = class_bytes(cls);

	if (posix_memalign(ptr, WEFT__OMP_ALIGN, bytes) == 0)
		return 0;
	/* Blocks of other classes may be what the system is missing. */
	pool_drain(dev);
	return posix_memalign(ptr, WEFT__OMP_ALIGN, bytes);
}

/* A buffer with a new block from the system. */
static weft_status buf_new(weft_device *dev, size_t bytes, unsigned cls,
			   weft_buf **out, weft_error *err)
{
	weft_buf *b = calloc(1, sizeof *b);

	if (!b)
		goto fail;
	if (block_alloc(dev, cls, &b->ptr) != 0)
		goto free_buf;
	b->cls = cls;
	*out = b;
	return WEFT_OK;

free_buf:
	free(b);
fail:
	return weft__omp_fail(err, WEFT_E_NOMEM,
			      "cannot allocate %zu bytes on device 0: the "
			      "system allocator failed (host memory, %llu "
			      "bytes in total, %llu in use by this device)",
			      bytes, (unsigned long long)dev->host_bytes,
			      (unsigned long long)dev->st.bytes_in_use);
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

/* bytes_in_use counts the bytes callers asked for (the same on every
 * backend), not the size classes' rounding. */
static void account_alloc(weft_device *dev, size_t bytes)
{
	dev->st.bytes_in_use += bytes;
	if (dev->st.bytes_in_use > dev->st.bytes_peak)
		dev->st.bytes_peak = dev->st.bytes_in_use;
}

weft_status weft__omp_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err)
{
	uint64_t t0 = weft__omp_now_ns();
	weft_status st;
	weft_buf *b;
	unsigned cls;

	if (!dev || !out)
		return weft__omp_fail(err, WEFT_E_INVALID, "alloc: no %s",
				      dev ? "place for the buffer" : "device");
	*out = NULL;
	st = check_size(dev, bytes, err);
	if (st != WEFT_OK)
		return st;
	cls = class_of(bytes);
	b = pool_take(dev, cls);
	if (b) {
		dev->st.pool_reuses++;
	} else {
		st = buf_new(dev, bytes, cls, &b, err);
		if (st != WEFT_OK)
			return st;
		dev->st.allocs++;
	}
	b->size = bytes;
	live_push(dev, b);
	account_alloc(dev, bytes);
	*out = b;
	dev->st.time_ns[WEFT_PHASE_ALLOC] += weft__omp_now_ns() - t0;
	return WEFT_OK;
}

/* free() cannot report errors: a buffer freed twice is ignored the second
 * time rather than corrupting the pool. */
void weft__omp_free(weft_device *dev, weft_buf *buf)
{
	uint64_t t0 = weft__omp_now_ns();

	if (!dev || !buf || buf->pooled)
		return;
	live_unlink(dev, buf);
	dev->st.bytes_in_use -= buf->size;
	dev->st.frees++;
	buf->pooled = 1;
	buf->next = dev->pool[buf->cls];
	dev->pool[buf->cls] = buf;
	dev->st.time_ns[WEFT_PHASE_ALLOC] += weft__omp_now_ns() - t0;
}

/* The host is device 0; the buffer's block is the memory kernels see. */
weft_status weft__omp_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err)
{
	weft_status st;

	if (!dev)
		return weft__omp_fail(err, WEFT_E_INVALID, "native: no device");
	st = weft__chk_native(&weft__omp_chk, buf, out, err);
	if (st != WEFT_OK)
		return st;
	out->kind = WEFT_NATIVE_HOST;
	out->device = 0;
	out->handle = buf->ptr;
	out->offset = 0;
	out->bytes = buf->size;
	return WEFT_OK;
}

void weft__omp_memory_release(weft_device *dev)
{
	while (dev->live)
		weft__omp_free(dev, dev->live);
	pool_drain(dev);
}
