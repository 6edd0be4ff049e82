/*
 * plugins/opencl/transfer.c - moving bytes between the application and
 * device buffers, and between buffers, through the device's queue.
 *
 * Host memory goes through a staging area of pinned memory: a buffer
 * created with CL_MEM_ALLOC_HOST_PTR (so the driver can DMA from and to
 * it) and mapped once at open, for the device's life. Where the driver
 * refuses that, the area is ordinary aligned host memory and everything
 * below still holds.
 *
 *  - Blocking transfers run through the area in two halves, so that
 *    copying one chunk on the host overlaps moving the other; they return
 *    when their last chunk has completed.
 *  - An asynchronous write that fits in what is free of the area is
 *    copied there and enqueued; the caller's memory is free at once. A
 *    larger one is enqueued straight from the caller's memory, which the
 *    ABI says stays untouched until sync() (or wait() on a later fence).
 *  - An asynchronous read that fits is enqueued into the area and
 *    remembered; the bytes are copied to the caller, in issue order, once
 *    its command is known to have run: at sync(), at the next blocking
 *    transfer (which waits for the queue anyway), or at wait() on a fence
 *    issued after it. A larger one is read straight into the caller's
 *    memory, after the remembered ones are completed, so that reads into
 *    the same host bytes land in issue order.
 * Asynchronous transfers use the area as a ring, in issue order: each
 * holds its part until it is known complete, so that with fences (a
 * snapshot read while the next steps run, waited for a chunk later) the
 * area is reused without ever draining the queue.
 *
 * Argument checks are those of the OpenMP backend: nothing is enqueued or
 * counted for a refused transfer. A transfer of 0 bytes is valid, counted,
 * and enqueues nothing (OpenCL refuses 0-byte commands). Copies within one
 * buffer may overlap; they behave like memmove() (OpenCL refuses
 * overlapping copies, so those go through a temporary buffer).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* ---- the staging area ------------------------------------------------ */

static weft_status stage_pinned(weft_device *dev)
{
	cl_int rc;
	void *p;

	dev->stage = clCreateBuffer(dev->ctx,
				    CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
				    WEFT__OCL_STAGE_BYTES, NULL, &rc);
	if (!dev->stage)
		return WEFT_E_UNSUPPORTED;
	p = clEnqueueMapBuffer(dev->queue, dev->stage, CL_TRUE,
			       CL_MAP_READ | CL_MAP_WRITE, 0,
			       WEFT__OCL_STAGE_BYTES, 0, NULL, NULL, &rc);
	if (!p) {
		clReleaseMemObject(dev->stage);
		dev->stage = NULL;
		return WEFT_E_UNSUPPORTED;
	}
	dev->stage_ptr = p;
	return WEFT_OK;
}

weft_status weft__ocl_stage_open(weft_device *dev, weft_error *err)
{
	void *p = NULL;

	dev->stage_size = WEFT__OCL_STAGE_BYTES;
	if (stage_pinned(dev) == WEFT_OK)
		return WEFT_OK;
	if (posix_memalign(&p, 4096, WEFT__OCL_STAGE_BYTES) != 0)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "device '%s': cannot allocate %zu bytes "
				      "of host memory for staging transfers",
				      dev->names.device,
				      (size_t)WEFT__OCL_STAGE_BYTES);
	dev->stage_ptr = p;
	return WEFT_OK;
}

void weft__ocl_stage_close(weft_device *dev)
{
	if (dev->stage) {
		clEnqueueUnmapMemObject(dev->queue, dev->stage, dev->stage_ptr,
					0, NULL, NULL);
		clFinish(dev->queue);
		clReleaseMemObject(dev->stage);
	} else {
		free(dev->stage_ptr);
	}
	dev->stage = NULL;
	dev->stage_ptr = NULL;
}

void weft__ocl_complete_staged(weft_device *dev, uint64_t seq)
{
	size_t k = 0;

	for (; k < dev->n_pending && dev->pending[k].seq < seq; k++) {
		const struct weft__ocl_pending *p = &dev->pending[k];

		if (p->dst)
			memcpy(p->dst, dev->stage_ptr + p->at, p->bytes);
	}
	/* When nothing completed the list may not exist yet (NULL), and
	 * memmove() must not be given a NULL pointer, even for 0 bytes. */
	if (k) {
		memmove(dev->pending, dev->pending + k,
			(dev->n_pending - k) * sizeof *dev->pending);
		dev->n_pending -= k;
	}
	if (dev->n_pending == 0)
		dev->stage_head = 0;
}

/* Bytes of the area a transfer of bytes holds: 64-byte boundaries. */
static size_t stage_take(size_t bytes)
{
	return (bytes + WEFT__OCL_GRAIN - 1) & ~(size_t)(WEFT__OCL_GRAIN - 1);
}

/* Where `take` bytes fit in the ring, or SIZE_MAX. Live parts run from
 * the oldest pending one's to stage_head, wrapping at the end when
 * stage_head is not past it. */
static size_t stage_place(const weft_device *dev, size_t take)
{
	size_t size = dev->stage_size, head = dev->stage_head, tail;

	if (dev->n_pending == 0)
		return take <= size ? 0 : SIZE_MAX;
	tail = dev->pending[0].at;
	if (head > tail) {
		if (take <= size - head)
			return head;
		return take <= tail ? 0 : SIZE_MAX;
	}
	return take <= tail - head ? head : SIZE_MAX;
}

static weft_status pending_room(weft_device *dev, weft_error *err)
{
	size_t cap = dev->cap_pending ? 2 * dev->cap_pending : 16;
	struct weft__ocl_pending *p;

	if (dev->n_pending < dev->cap_pending)
		return WEFT_OK;
	p = realloc(dev->pending, cap * sizeof *p);
	if (!p)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "out of host memory for %zu pending "
				      "asynchronous transfers",
				      cap);
	dev->pending = p;
	dev->cap_pending = cap;
	return WEFT_OK;
}

/* Record a staged transfer just enqueued at `at` (pending_room was made). */
static void stage_push(weft_device *dev, void *dst, size_t at, size_t bytes)
{
	struct weft__ocl_pending *p = &dev->pending[dev->n_pending++];

	p->dst = dst;
	p->at = at;
	p->take = stage_take(bytes);
	p->bytes = bytes;
	p->seq = dev->staged++;
	dev->stage_head = at + p->take;
}

/* Blocking transfers use the whole area: drain what async ones hold. */
static weft_status stage_claim(weft_device *dev, const char *op,
			       weft_error *err)
{
	if (dev->n_pending == 0)
		return WEFT_OK;
	return weft__ocl_finish(dev, op, err);
}

static weft_status wait_event(weft_device *dev, cl_event *ev, const char *op,
			      weft_error *err)
{
	cl_int rc;

	if (!*ev)
		return WEFT_OK;
	rc = clWaitForEvents(1, ev);
	clReleaseEvent(*ev);
	*ev = NULL;
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clWaitForEvents", rc,
					 "waiting for a %s", op);
	return WEFT_OK;
}

/* Wait for both halves; the first error is kept. */
static weft_status wait_both(weft_device *dev, cl_event ev[2], const char *op,
			     weft_status st, weft_error *err)
{
	weft_error spare;

	for (int i = 0; i < 2; i++) {
		weft_status s = wait_event(dev, &ev[i], op,
					   st == WEFT_OK ? err : &spare);

		if (st == WEFT_OK)
			st = s;
	}
	return st;
}

/* ---- blocking transfers ------------------------------------------------ */

static weft_status staged_write(weft_device *dev, weft_buf *dst, size_t offset,
				const unsigned char *src, size_t bytes,
				weft_error *err)
{
	size_t half = dev->stage_size / 2, done = 0;
	cl_event ev[2] = { NULL, NULL };
	weft_status st = stage_claim(dev, "write", err);
	unsigned i = 0;

	while (st == WEFT_OK && done < bytes) {
		size_t n = bytes - done < half ? bytes - done : half;
		unsigned char *at = dev->stage_ptr + i * half;
		cl_int rc;

		st = wait_event(dev, &ev[i], "write", err);
		if (st != WEFT_OK)
			break;
		memcpy(at, src + done, n);
		rc = clEnqueueWriteBuffer(dev->queue, dst->mem, CL_FALSE,
					  offset + done, n, at, 0, NULL,
					  &ev[i]);
		if (rc != CL_SUCCESS)
			st = weft__ocl_cl_fail(dev, err, "clEnqueueWriteBuffer",
					       rc,
					       "writing %zu bytes at offset "
					       "%zu of a %zu-byte buffer",
					       n, offset + done, dst->pb.size);
		done += n;
		i ^= 1;
	}
	return wait_both(dev, ev, "write", st, err);
}

/* Enqueue chunk k of a staged read into half k % 2. */
static weft_status read_chunk(weft_device *dev, weft_buf *src, size_t offset,
			      size_t bytes, size_t k, cl_event *ev,
			      weft_error *err)
{
	size_t half = dev->stage_size / 2, at = k * half;
	size_t n = bytes - at < half ? bytes - at : half;
	cl_int rc;

	rc = clEnqueueReadBuffer(dev->queue, src->mem, CL_FALSE, offset + at, n,
				 dev->stage_ptr + (k % 2) * half, 0, NULL, ev);
	if (rc == CL_SUCCESS)
		return WEFT_OK;
	return weft__ocl_cl_fail(dev, err, "clEnqueueReadBuffer", rc,
				 "reading %zu bytes at offset %zu of a "
				 "%zu-byte buffer",
				 n, offset + at, src->pb.size);
}

static weft_status staged_read(weft_device *dev, unsigned char *dst,
			       weft_buf *src, size_t offset, size_t bytes,
			       weft_error *err)
{
	size_t half = dev->stage_size / 2;
	size_t chunks = (bytes + half - 1) / half;
	cl_event ev[2] = { NULL, NULL };
	weft_status st = stage_claim(dev, "read", err);

	for (size_t k = 0; st == WEFT_OK && k < chunks && k < 2; k++)
		st = read_chunk(dev, src, offset, bytes, k, &ev[k], err);
	for (size_t k = 0; st == WEFT_OK && k < chunks; k++) {
		size_t at = k * half;
		size_t n = bytes - at < half ? bytes - at : half;

		st = wait_event(dev, &ev[k % 2], "read", err);
		if (st != WEFT_OK)
			break;
		memcpy(dst + at, dev->stage_ptr + (k % 2) * half, n);
		if (k + 2 < chunks)
			st = read_chunk(dev, src, offset, bytes, k + 2,
					&ev[k % 2], err);
	}
	return wait_both(dev, ev, "read", st, err);
}

/* ---- asynchronous transfers ------------------------------------------- */

static weft_status async_write(weft_device *dev, weft_buf *dst, size_t offset,
			       const void *src, size_t bytes, weft_error *err)
{
	size_t at = stage_place(dev, stage_take(bytes));
	const void *from = src;
	weft_status st;
	cl_int rc;

	if (at != SIZE_MAX) {
		if ((st = pending_room(dev, err)))
			return st;
		from = dev->stage_ptr + at;
		memcpy(dev->stage_ptr + at, src, bytes);
	}
	rc = clEnqueueWriteBuffer(dev->queue, dst->mem, CL_FALSE, offset, bytes,
				  from, 0, NULL, NULL);
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clEnqueueWriteBuffer", rc,
					 "writing %zu bytes at offset %zu of a "
					 "%zu-byte buffer (async)",
					 bytes, offset, dst->pb.size);
	if (at != SIZE_MAX)
		stage_push(dev, NULL, at, bytes);
	return WEFT_OK;
}

static weft_status async_read_staged(weft_device *dev, void *dst, weft_buf *src,
				     size_t offset, size_t bytes, size_t at,
				     weft_error *err)
{
	weft_status st = pending_room(dev, err);
	cl_int rc;

	if (st != WEFT_OK)
		return st;
	rc = clEnqueueReadBuffer(dev->queue, src->mem, CL_FALSE, offset, bytes,
				 dev->stage_ptr + at, 0, NULL, NULL);
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clEnqueueReadBuffer", rc,
					 "reading %zu bytes at offset %zu of a "
					 "%zu-byte buffer (async)",
					 bytes, offset, src->pb.size);
	stage_push(dev, dst, at, bytes);
	return WEFT_OK;
}

static weft_status async_read(weft_device *dev, void *dst, weft_buf *src,
			      size_t offset, size_t bytes, weft_error *err)
{
	size_t at = stage_place(dev, stage_take(bytes));
	weft_status st;
	cl_int rc;

	if (at != SIZE_MAX)
		return async_read_staged(dev, dst, src, offset, bytes, at, err);
	/* No room in the area: earlier staged reads land first. */
	if (dev->n_pending && (st = weft__ocl_finish(dev, "read", err)))
		return st;
	rc = clEnqueueReadBuffer(dev->queue, src->mem, CL_FALSE, offset, bytes,
				 dst, 0, NULL, NULL);
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clEnqueueReadBuffer", rc,
					 "reading %zu bytes at offset %zu of a "
					 "%zu-byte buffer (async)",
					 bytes, offset, src->pb.size);
	return WEFT_OK;
}

/* ---- the vtable's transfers -------------------------------------------- */

weft_status weft__ocl_write(weft_device *dev, weft_buf *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags,
			    weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_write(&weft__ocl_chk, dev, dst, offset, src, bytes,
			     flags, err);
	if (st == WEFT_OK && bytes)
		st = flags & WEFT_XFER_ASYNC
			     ? async_write(dev, dst, offset, src, bytes, err)
			     : staged_write(dev, dst, offset, src, bytes, err);
	if (st != WEFT_OK)
		return st;
	weft__stats_xfer(&dev->st, WEFT_DIR_H2D, bytes, t0);
	return WEFT_OK;
}

weft_status weft__ocl_read(weft_device *dev, void *dst, weft_buf *src,
			   size_t offset, size_t bytes, unsigned flags,
			   weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_read(&weft__ocl_chk, dev, dst, src, offset, bytes, flags,
			    err);
	if (st == WEFT_OK && bytes)
		st = flags & WEFT_XFER_ASYNC
			     ? async_read(dev, dst, src, offset, bytes, err)
			     : staged_read(dev, dst, src, offset, bytes, err);
	if (st != WEFT_OK)
		return st;
	weft__stats_xfer(&dev->st, WEFT_DIR_D2H, bytes, t0);
	return WEFT_OK;
}

static int ranges_overlap(size_t a, size_t b, size_t n)
{
	return a < b + n && b < a + n;
}

/* Overlapping copy within one buffer: through a temporary buffer. */
static weft_status copy_via_temp(weft_device *dev, weft_buf *b, size_t dst_off,
				 size_t src_off, size_t bytes, cl_event *ev,
				 weft_error *err)
{
	cl_mem tmp;
	cl_int rc;

	tmp = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
	if (!tmp)
		return weft__ocl_cl_fail(dev, err, "clCreateBuffer", rc,
					 "%zu bytes for an overlapping copy",
					 bytes);
	rc = clEnqueueCopyBuffer(dev->queue, b->mem, tmp, src_off, 0, bytes, 0,
				 NULL, NULL);
	if (rc == CL_SUCCESS)
		rc = clEnqueueCopyBuffer(dev->queue, tmp, b->mem, 0, dst_off,
					 bytes, 0, NULL, ev);
	/* Released once the copies that use it have run. */
	clReleaseMemObject(tmp);
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clEnqueueCopyBuffer", rc,
					 "overlapping copy of %zu bytes",
					 bytes);
	return WEFT_OK;
}

static weft_status enqueue_copy(weft_device *dev, weft_buf *dst,
				size_t dst_offset, weft_buf *src,
				size_t src_offset, size_t bytes, unsigned flags,
				weft_error *err)
{
	cl_event ev = NULL;
	cl_event *want = flags & WEFT_XFER_ASYNC ? NULL : &ev;
	weft_status st = WEFT_OK;
	cl_int rc;

	if (dst == src && ranges_overlap(dst_offset, src_offset, bytes)) {
		st = copy_via_temp(dev, dst, dst_offset, src_offset, bytes,
				   want, err);
	} else {
		rc = clEnqueueCopyBuffer(dev->queue, src->mem, dst->mem,
					 src_offset, dst_offset, bytes, 0, NULL,
					 want);
		if (rc != CL_SUCCESS)
			st = weft__ocl_cl_fail(dev, err, "clEnqueueCopyBuffer",
					       rc,
					       "copying %zu bytes from offset "
					       "%zu to offset %zu",
					       bytes, src_offset, dst_offset);
	}
	if (st == WEFT_OK)
		st = wait_event(dev, &ev, "copy", err);
	return st;
}

weft_status weft__ocl_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			   weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_copy(&weft__ocl_chk, dev, dst, dst_offset, src,
			    src_offset, bytes, flags, err);
	if (st == WEFT_OK && bytes)
		st = enqueue_copy(dev, dst, dst_offset, src, src_offset, bytes,
				  flags, err);
	if (st != WEFT_OK)
		return st;
	weft__stats_xfer(&dev->st, WEFT_DIR_D2D, bytes, t0);
	return WEFT_OK;
}
