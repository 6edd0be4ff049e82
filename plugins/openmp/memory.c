/*
 * plugins/openmp/memory.c - device allocations, served from a pool.
 *
 * Device memory is host memory, aligned to 64 bytes. The pool, its size
 * classes and the live-buffer list are plugins/common/pool.h; what is
 * this backend's own is the block: posix_memalign() of the class's size.
 * Pooled blocks are given back to the system when the device is closed,
 * or when the system cannot serve an allocation (then once more is tried).
 * In a sanitizer build the bytes of a block past the request, and whole
 * pooled blocks, are poisoned (guard_block).
 *
 * Buffer contents are not initialised, as on GPU backends.
 */
#include "config.h"

#include <stdlib.h>

#include "priv.h"

#define BUF_OF(p) WEFT__POOL_BUF_OF(weft_buf, p)

/* AddressSanitizer's manual poisoning (sanitizer/asan_interface.h): weak,
 * so that they are NULL except in a sanitizer build (make check-sanitize),
 * where the process's runtime defines them. A block is larger than the
 * request it serves (size classes) and stays with the device when freed;
 * without poisoning, a kernel's write past the bytes asked for, or into a
 * freed buffer, would land in memory ASan believes is in use. */
void __asan_poison_memory_region(void const volatile *addr, size_t size)
	__attribute__((weak));
void __asan_unpoison_memory_region(void const volatile *addr, size_t size)
	__attribute__((weak));

/* Only [ptr, ptr + usable) may be touched. */
static void guard_block(const weft_buf *b, size_t usable)
{
	if (!__asan_poison_memory_region || !__asan_unpoison_memory_region)
		return;
	__asan_unpoison_memory_region(b->ptr, usable);
	__asan_poison_memory_region((char *)b->ptr + usable,
				    b->pb.block - usable);
}

/* Refuse at once what cannot be served: more than the host's memory (or
 * than a size class can hold). */
static weft_status check_size(const weft_device *dev, size_t bytes,
			      weft_error *err)
{
	uint64_t limit = dev->host_bytes;

	if (limit > WEFT__POOL_MAX)
		limit = WEFT__POOL_MAX;
	if ((uint64_t)bytes <= limit)
		return WEFT_OK;
	return weft__omp_fail(err, WEFT_E_NOMEM,
			      "cannot allocate %zu bytes on device 0 (host "
			      "memory, %llu bytes in total)",
			      bytes, (unsigned long long)dev->host_bytes);
}

static int block_alloc(weft_device *dev, size_t block, void **ptr)
{
	if (posix_memalign(ptr, WEFT__OMP_ALIGN, block) == 0)
		return 0;
	/* Blocks of other classes may be what the system is missing. */
	weft__pool_drain(&dev->pool);
	return posix_memalign(ptr, WEFT__OMP_ALIGN, block);
}

/* The pool's create hook: a buffer with a new block from the system. */
static weft_status buf_new(void *ctx, size_t bytes, size_t block,
			   struct weft__pool_buf **out, weft_error *err)
{
	weft_device *dev = ctx;
	weft_buf *b = calloc(1, sizeof *b);

	if (!b)
		goto fail;
	if (block_alloc(dev, block, &b->ptr) != 0)
		goto free_buf;
	b->pb.block = block;
	*out = &b->pb;
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

/* The pool's destroy hook. */
static void buf_destroy(void *ctx, struct weft__pool_buf *pb)
{
	weft_buf *b = BUF_OF(pb);

	(void)ctx;
	guard_block(b, pb->block); /* the allocator's again */
	free(b->ptr);
	free(b);
}

static const weft__pool_ops pool_ops = { buf_new, buf_destroy };

void weft__omp_memory_init(weft_device *dev)
{
	weft__pool_init(&dev->pool, &pool_ops, dev, &dev->st);
}

weft_status weft__omp_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err)
{
	struct weft__pool_buf *pb;
	weft_status st;

	if ((st = weft__chk_alloc(&weft__omp_chk, dev, out, err)) ||
	    (st = check_size(dev, bytes, err)) ||
	    (st = weft__pool_alloc(&dev->pool, bytes, &pb, err)))
		return st;
	*out = BUF_OF(pb);
	guard_block(*out, bytes);
	dev->buf_gen++;
	return WEFT_OK;
}

void weft__omp_free(weft_device *dev, weft_buf *buf)
{
	if (!dev || !buf || buf->pb.pooled)
		return;
	weft__pool_free(&dev->pool, &buf->pb);
	guard_block(buf, 0); /* pooled: nothing may touch it */
	dev->buf_gen++;
}

/* The host is device 0; the buffer's block is the memory kernels see. */
weft_status weft__omp_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err)
{
	weft_status st = weft__chk_native(&weft__omp_chk, dev, buf, out, err);

	if (st != WEFT_OK)
		return st;
	out->kind = WEFT_NATIVE_HOST;
	out->device = 0;
	out->handle = buf->ptr;
	out->offset = 0;
	out->bytes = buf->pb.size;
	return WEFT_OK;
}

void weft__omp_memory_release(weft_device *dev)
{
	weft__pool_close(&dev->pool);
}
