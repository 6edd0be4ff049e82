/*
 * plugins/opencl/memory.c - device allocations, served from a pool.
 *
 * Each allocation is one cl_mem (clCreateBuffer, read-write), whose
 * address OpenCL aligns to CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 512
 * bits, checked at open). The pool, its size classes and the live-buffer
 * list are plugins/common/pool.h: a freed buffer keeps its cl_mem and
 * waits on its class's free list; the next allocation of that class takes
 * it back without calling clCreateBuffer (counted as a pool reuse). A
 * request of 0 bytes gets a 64-byte block: a valid, distinct handle.
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

#define BUF_OF(p) WEFT__POOL_BUF_OF(weft_buf, p)

/* The pool's destroy hook: the block back to the driver. */
static void buf_destroy(void *ctx, struct weft__pool_buf *pb)
{
	weft_device *dev = ctx;
	weft_buf *b = BUF_OF(pb);

	clReleaseMemObject(b->mem);
	dev->held -= pb->block;
	free(b);
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
static weft_status block_size(weft_device *dev, size_t bytes, size_t block,
			      size_t *out, weft_error *err)
{
	if ((uint64_t)bytes > dev->max_alloc)
		return too_large(dev, bytes, err);
	if ((uint64_t)block > dev->max_alloc)
		block = (size_t)dev->max_alloc;
	/* Pooled blocks may be what stands in the way. */
	if (dev->held + block > dev->global_mem)
		weft__pool_drain(&dev->pool);
	if (dev->held + block > dev->global_mem)
		block = bytes > WEFT__OCL_GRAIN ? bytes : WEFT__OCL_GRAIN;
	if (dev->held + block > dev->global_mem)
		return no_room(dev, bytes, err);
	*out = block;
	return WEFT_OK;
}

/* The pool's create hook: a buffer with a new block from the driver. */
static weft_status buf_new(void *ctx, size_t bytes, size_t block,
			   struct weft__pool_buf **out, weft_error *err)
{
	weft_device *dev = ctx;
	weft_buf *b;
	weft_status st;
	cl_int rc;

	b = calloc(1, sizeof *b);
	if (!b)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "cannot allocate %zu bytes on device "
				      "'%s': out of host memory",
				      bytes, dev->names.device);
	st = block_size(dev, bytes, block, &b->pb.block, err);
	if (st != WEFT_OK)
		goto free_buf;
	b->mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, b->pb.block, NULL,
				&rc);
	if (!b->mem) {
		weft__pool_drain(&dev->pool); /* then try once more */
		b->mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE,
					b->pb.block, NULL, &rc);
	}
	if (!b->mem) {
		st = weft__ocl_cl_fail(dev, err, "clCreateBuffer", rc,
				       "allocating %zu bytes (%llu held)",
				       bytes, (unsigned long long)dev->held);
		goto free_buf;
	}
	dev->held += b->pb.block;
	*out = &b->pb;
	return WEFT_OK;

free_buf:
	free(b);
	return st;
}

static const weft__pool_ops pool_ops = { buf_new, buf_destroy };

void weft__ocl_memory_init(weft_device *dev)
{
	weft__pool_init(&dev->pool, &pool_ops, dev, &dev->st);
}

weft_status weft__ocl_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err)
{
	struct weft__pool_buf *pb;
	weft_status st = weft__chk_alloc(&weft__ocl_chk, dev, out, err);

	if (st != WEFT_OK)
		return st;
	if ((uint64_t)bytes > dev->max_alloc || bytes > WEFT__POOL_MAX)
		return too_large(dev, bytes, err);
	st = weft__pool_alloc(&dev->pool, bytes, &pb, err);
	if (st != WEFT_OK)
		return st;
	*out = BUF_OF(pb);
	return WEFT_OK;
}

/* A pooled cl_mem may still be used by enqueued commands; OpenCL keeps it
 * alive for them, and the in-order queue runs its next user after them. */
void weft__ocl_free(weft_device *dev, weft_buf *buf)
{
	if (dev && buf)
		weft__pool_free(&dev->pool, &buf->pb);
}

/* The buffer's own cl_mem, created in the device's context; `device` is
 * the index open() chose it by. */
weft_status weft__ocl_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err)
{
	weft_status st = weft__chk_native(&weft__ocl_chk, dev, buf, out, err);

	if (st != WEFT_OK)
		return st;
	out->kind = WEFT_NATIVE_OPENCL;
	out->device = (int32_t)dev->index;
	out->handle = (void *)buf->mem;
	out->offset = 0;
	out->bytes = buf->pb.size;
	return WEFT_OK;
}

/* A CPU device, or a GPU sharing the host's memory (an integrated one),
 * keeps its buffers in host memory: the core checks them against
 * MemAvailable. Otherwise OpenCL has no query of free memory: the total
 * less what this device holds (blocks live and pooled). */
weft_status weft__ocl_mem_info(weft_device *dev, weft_mem_info *out,
			       weft_error *err)
{
	weft_status st = weft__chk_mem_info(&weft__ocl_chk, dev, out, err);
	cl_bool unified = CL_FALSE;
	weft_mem_info mi;

	if (st != WEFT_OK)
		return st;
	if (clGetDeviceInfo(dev->id, CL_DEVICE_HOST_UNIFIED_MEMORY,
			    sizeof unified, &unified, NULL) != CL_SUCCESS)
		unified = CL_FALSE;
	if (!dev->is_gpu || unified) {
		weft__mem_info_host(&mi);
	} else {
		mi = (weft_mem_info){ .struct_size = sizeof mi };
		mi.total_bytes = dev->global_mem;
		mi.free_bytes = dev->global_mem > dev->held
					? dev->global_mem - dev->held
					: 0;
	}
	weft__mem_info_copy(out, &mi);
	return WEFT_OK;
}

void weft__ocl_memory_release(weft_device *dev)
{
	weft__pool_close(&dev->pool);
}
