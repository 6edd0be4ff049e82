/*
 * plugins/opencl/memory.c - device allocations, served from a pool.
 *
 * Each allocation is one cl_mem (clCreateBuffer, read-write), whose
 * address OpenCL aligns to CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 512
 * bits, checked at open). A request is rounded up to a size class, as in
 * the OpenMP backend: a multiple of 64 bytes up to 4 KiB, then four
 * classes per power of two. A freed buffer keeps its cl_mem and waits on
 * its class's free list; the next allocation of that class takes it back
 * without calling clCreateBuffer (counted as a pool reuse). A request of 0
 * bytes gets a 64-byte block: a valid, distinct handle.
 *
 * Limits are checked before asking the driver, so that the message can
 * say what was asked and what the device has: a request above
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE, or above the global memory this device's
 * blocks leave free, fails with WEFT_E_NOMEM. Pooled blocks are released
 * first when they are what stands in the way. OpenCL drivers may allocate
 * lazily; a failure they report later comes from the command that found
 * it.
 *
 * Buffer contents are not initialised.
 */
#include "config.h"

#include <stdlib.h>

#include "priv.h"

/* Index of the highest set bit; x > 0. */
static unsigned floor_log2(size_t x)
{
	return 63u - (unsigned)__builtin_clzll((unsigned long long)x);
}

/* The size class of a request; bytes <= SIZE_MAX / 2. */
static unsigned class_of(size_t bytes)
{
	unsigned p;
	size_t step, q;

	if (bytes <= WEFT__OCL_SMALL_MAX)
		return bytes ? (unsigned)((bytes - 1) / WEFT__OCL_GRAIN) : 0;
	p = floor_log2(bytes - 1); /* 2^p < bytes <= 2^(p+1), p >= 12 */
	step = (size_t)1 << (p - 2);
	q = (bytes - ((size_t)1 << p) + step - 1) / step; /* 1..4 */
	return WEFT__OCL_SMALL_CLASSES + 4 * (p - 12) + (unsigned)q - 1;
}

/* The block size of a class: the inverse of class_of(). */
static size_t class_bytes(unsigned cls)
{
	unsigned j, p;

	if (cls < WEFT__OCL_SMALL_CLASSES)
		return (size_t)(cls + 1) * WEFT__OCL_GRAIN;
	j = cls - WEFT__OCL_SMALL_CLASSES;
	p = 12 + j / 4;
	return ((size_t)1 << p) + ((size_t)(j % 4 + 1) << (p - 2));
}

static void block_release(weft_device *dev, weft_buf *b)
{
	clReleaseMemObject(b->mem);
	dev->held -= b->block;
	free(b);
}

/* Give every pooled block back to the driver. */
static void pool_drain(weft_device *dev)
{
	for (unsigned c = 0; c < WEFT__OCL_N_CLASSES; c++) {
		while (dev->pool[c]) {
			weft_buf *b = dev->pool[c];

			dev->pool[c] = b->next;
			block_release(dev, b);
		}
	}
}

/* A pooled block of the class that holds at least bytes (blocks cut to the
 * device's limits may be smaller than their class). */
static weft_buf *pool_take(weft_device *dev, unsigned cls, size_t bytes)
{
	weft_buf **at = &dev->pool[cls];

	for (; *at; at = &(*at)->next) {
		weft_buf *b = *at;

		if (b->block < bytes)
			continue;
		*at = b->next;
		b->pooled = 0;
		b->next = NULL;
		return b;
	}
	return NULL;
}

static weft_status too_large(const weft_device *dev, size_t bytes,
			     weft_error *err)
{
	return weft__ocl_fail(err, WEFT_E_NOMEM,
			      "cannot allocate %zu bytes on device '%s': its "
			      "largest allocation is %llu bytes "
			      "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
			      bytes, dev->names.device,
			      (unsigned long long)dev->max_alloc);
}

static weft_status no_room(const weft_device *dev, size_t bytes,
			   weft_error *err)
{
	return weft__ocl_fail(err, WEFT_E_NOMEM,
			      "cannot allocate %zu bytes on device '%s': "
			      "%llu of its %llu bytes of global memory are "
			      "held by this device's buffers",
			      bytes, dev->names.device,
			      (unsigned long long)dev->held,
			      (unsigned long long)dev->global_mem);
}

/* The block for a request: its class's size, cut to what the device can
 * give (never below the request). */
static weft_status block_size(weft_device *dev, size_t bytes, unsigned cls,
			      size_t *out, weft_error *err)
{
	size_t block = class_bytes(cls);

	if ((uint64_t)bytes > dev->max_alloc)
		return too_large(dev, bytes, err);
	if ((uint64_t)block > dev->max_alloc)
		block = (size_t)dev->max_alloc;
	if (dev->held + block > dev->global_mem)
		pool_drain(dev); /* pooled blocks may be in the way */
	if (dev->held + block > dev->global_mem)
		block = bytes > WEFT__OCL_GRAIN ? bytes : WEFT__OCL_GRAIN;
	if (dev->held + block > dev->global_mem)
		return no_room(dev, bytes, err);
	*out = block;
	return WEFT_OK;
}

/* A buffer with a new block from the driver. */
static weft_status buf_new(weft_device *dev, size_t bytes, unsigned cls,
			   weft_buf **out, weft_error *err)
{
	weft_buf *b;
	weft_status st;
	cl_int rc;

	b = calloc(1, sizeof *b);
	if (!b)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "cannot allocate %zu bytes on device "
				      "'%s': out of host memory",
				      bytes, dev->names.device);
	st = block_size(dev, bytes, cls, &b->block, err);
	if (st != WEFT_OK)
		goto free_buf;
	b->mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, b->block, NULL,
				&rc);
	if (!b->mem) {
		pool_drain(dev); /* then try once more */
		b->mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, b->block,
					NULL, &rc);
	}
	if (!b->mem) {
		st = weft__ocl_cl_fail(dev, err, "clCreateBuffer", rc,
				       "allocating %zu bytes (%llu held)",
				       bytes, (unsigned long long)dev->held);
		goto free_buf;
	}
	b->cls = cls;
	dev->held += b->block;
	*out = b;
	return WEFT_OK;

free_buf:
	free(b);
	return st;
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

weft_status weft__ocl_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err)
{
	uint64_t t0 = weft__ocl_now_ns();
	weft_status st;
	weft_buf *b;
	unsigned cls;

	if (!dev || !out)
		return weft__ocl_fail(err, WEFT_E_INVALID, "alloc: no %s",
				      dev ? "place for the buffer" : "device");
	*out = NULL;
	if ((uint64_t)bytes > dev->max_alloc || bytes > SIZE_MAX / 2)
		return too_large(dev, bytes, err);
	cls = class_of(bytes);
	b = pool_take(dev, cls, bytes);
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
	dev->st.time_ns[WEFT_PHASE_ALLOC] += weft__ocl_now_ns() - t0;
	return WEFT_OK;
}

/* free() cannot report errors: a buffer freed twice is ignored the second
 * time rather than corrupting the pool. A pooled cl_mem may still be used
 * by enqueued commands; OpenCL keeps it alive for them, and the in-order
 * queue runs its next user after them. */
void weft__ocl_free(weft_device *dev, weft_buf *buf)
{
	uint64_t t0 = weft__ocl_now_ns();

	if (!dev || !buf || buf->pooled)
		return;
	live_unlink(dev, buf);
	dev->st.bytes_in_use -= buf->size;
	dev->st.frees++;
	buf->pooled = 1;
	buf->next = dev->pool[buf->cls];
	dev->pool[buf->cls] = buf;
	dev->st.time_ns[WEFT_PHASE_ALLOC] += weft__ocl_now_ns() - t0;
}

/* The buffer's own cl_mem, created in the device's context; `device` is
 * the index open() chose it by. */
weft_status weft__ocl_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err)
{
	weft_status st;

	if (!dev)
		return weft__ocl_fail(err, WEFT_E_INVALID, "native: no device");
	st = weft__chk_native(&weft__ocl_chk, buf, out, err);
	if (st != WEFT_OK)
		return st;
	out->kind = WEFT_NATIVE_OPENCL;
	out->device = (int32_t)dev->index;
	out->handle = (void *)buf->mem;
	out->offset = 0;
	out->bytes = buf->size;
	return WEFT_OK;
}

void weft__ocl_memory_release(weft_device *dev)
{
	while (dev->live)
		weft__ocl_free(dev, dev->live);
	pool_drain(dev);
}
