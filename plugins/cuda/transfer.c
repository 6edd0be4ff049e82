/*
 * plugins/cuda/transfer.c - moving bytes between the application and
 * device buffers on the copy stream, and between buffers on the compute
 * stream.
 *
 * Every transfer is bounds-checked first (a refused transfer changes and
 * counts nothing), then ordered after what it could conflict with
 * (plugin.c, "Ordering"): a write or read after the compute stream's tail,
 * numbered on the copy stream and recorded in the buffer it touches
 * (copy_wrote, copy_read); a device-to-device copy, issued on the compute
 * stream like the launches that produce what it copies, after the copy
 * stream's tail only when a buffer it touches has a hazard there. Then:
 *
 *  - blocking transfers go straight from or to the caller's memory and
 *    wait for their own completion event: the host waits for this
 *    transfer (and, the queue being in order, what was issued before it),
 *    never for later work. Counted in xfer_waits, not in syncs.
 *  - asynchronous writes copy the caller's bytes into a pinned staging
 *    block at issue time (the caller may reuse its memory at once), and
 *    the device copies from there without the host waiting;
 *  - asynchronous reads land in a pinned staging block; sync(), or wait()
 *    on a fence issued after them, copies them to the callers' memory in
 *    issue order.
 *
 * Staging blocks (cudaMallocHost, a size class of at least 64 KiB) are
 * kept and reused: a write's block is free again once its event has
 * completed, a read's once sync() or wait() delivered it. Counted in
 * staging_allocs and staging_reuses.
 *
 * A copy within one buffer whose ranges overlap goes through device
 * scratch memory (two copies), so that it behaves like memmove().
 * 0-byte transfers are valid, issue nothing and are counted.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* A blocking transfer was just issued on stream s: wait for it (and so
 * for everything it was ordered after), not for the other stream. */
static weft_status wait_own(weft_device *dev, int s, const char *op,
			    size_t bytes, weft_error *err)
{
	cudaEvent_t ev = dev->xfer_done[s];
	weft_status st;

	st = weft__cuda_check(dev, cudaEventRecord(ev, dev->stream[s]), err,
			      "%s of %zu bytes: recording its event", op,
			      bytes);
	if (st == WEFT_OK)
		st = weft__cuda_check(dev, cudaEventSynchronize(ev), err,
				      "%s of %zu bytes", op, bytes);
	if (st == WEFT_OK)
		weft__cuda_seen(dev, s);
	dev->st.xfer_waits++;
	return st;
}

/* ---- staging blocks ---------------------------------------------------------
 */

/* The smallest free block that holds bytes, unlinked; NULL if none. */
static struct weft__cuda_stage *stage_take_free(weft_device *dev, size_t bytes)
{
	struct weft__cuda_stage **best = NULL;

	for (struct weft__cuda_stage **p = &dev->stage_free; *p;
	     p = &(*p)->next)
		if ((*p)->cap >= bytes && (!best || (*p)->cap < (*best)->cap))
			best = p;
	if (best) {
		struct weft__cuda_stage *b = *best;

		*best = b->next;
		b->next = NULL;
		return b;
	}
	return NULL;
}

/* Move the in-flight writes whose copy has completed to the free list
 * (cudaEventQuery does not wait). Reads stay until sync() delivers them,
 * and so does a block whose event could not be recorded: its event still
 * shows an earlier transfer, so only a sync or a fence wait frees it. */
static void stage_reclaim(weft_device *dev)
{
	struct weft__cuda_stage **p = &dev->inflight, *last = NULL;

	while (*p) {
		struct weft__cuda_stage *b = *p;
		cudaError_t e = b->is_read || !b->recorded
					? cudaErrorNotReady
					: cudaEventQuery(b->done);

		if (e != cudaSuccess) {
			if (e != cudaErrorNotReady)
				(void)cudaGetLastError();
			last = b;
			p = &b->next;
			continue;
		}
		*p = b->next;
		b->next = dev->stage_free;
		dev->stage_free = b;
	}
	dev->inflight_tail = last;
}

static weft_status stage_new(weft_device *dev, size_t bytes,
			     struct weft__cuda_stage **out, weft_error *err)
{
	size_t cap = weft__pool_class_bytes(weft__pool_class(bytes));
	struct weft__cuda_stage *b = calloc(1, sizeof *b);
	weft_status st;

	if (cap < WEFT__CUDA_STAGE_MIN)
		cap = WEFT__CUDA_STAGE_MIN;
	if (!b)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "%s: out of host memory", dev->where);
	st = weft__cuda_check(dev, cudaMallocHost(&b->host, cap), err,
			      "allocating %zu bytes of pinned host memory for "
			      "staging",
			      cap);
	if (st == WEFT_OK) {
		st = weft__cuda_check(dev,
				      cudaEventCreateWithFlags(
					      &b->done, cudaEventDisableTiming),
				      err, "creating a staging event");
		if (st != WEFT_OK)
			(void)cudaFreeHost(b->host);
	}
	if (st != WEFT_OK) {
		free(b);
		return st;
	}
	b->cap = cap;
	*out = b;
	dev->st.staging_allocs++;
	return WEFT_OK;
}

/* A staging block of at least bytes: a free one, one whose write has
 * completed, or a new one. */
static weft_status stage_get(weft_device *dev, size_t bytes,
			     struct weft__cuda_stage **out, weft_error *err)
{
	struct weft__cuda_stage *b = stage_take_free(dev, bytes);

	if (!b) {
		stage_reclaim(dev);
		b = stage_take_free(dev, bytes);
	}
	if (!b)
		return stage_new(dev, bytes, out, err);
	dev->st.staging_reuses++;
	*out = b;
	return WEFT_OK;
}

static void stage_put_free(weft_device *dev, struct weft__cuda_stage *b)
{
	b->next = dev->stage_free;
	dev->stage_free = b;
}

/* b's copy was issued: record its event and queue it in issue order. */
static weft_status stage_issued(weft_device *dev, struct weft__cuda_stage *b,
				const char *op, weft_error *err)
{
	weft_status st = weft__cuda_check(
		dev, cudaEventRecord(b->done, dev->stream[WEFT__CUDA_COPY]),
		err, "%s of %zu bytes: recording its event", op, b->bytes);

	b->recorded = st == WEFT_OK;
	b->next = NULL;
	if (dev->inflight_tail)
		dev->inflight_tail->next = b;
	else
		dev->inflight = b;
	dev->inflight_tail = b;
	return st;
}

void weft__cuda_stage_complete(weft_device *dev, int deliver)
{
	while (dev->inflight) {
		struct weft__cuda_stage *b = dev->inflight;

		dev->inflight = b->next;
		if (deliver && b->is_read && b->bytes)
			memcpy(b->dst, b->host, b->bytes);
		stage_put_free(dev, b);
	}
	dev->inflight_tail = NULL;
}

void weft__cuda_stage_complete_to(weft_device *dev, uint64_t op)
{
	while (dev->inflight && dev->inflight->op <= op) {
		struct weft__cuda_stage *b = dev->inflight;

		dev->inflight = b->next;
		if (b->is_read && b->bytes)
			memcpy(b->dst, b->host, b->bytes);
		stage_put_free(dev, b);
	}
	if (!dev->inflight)
		dev->inflight_tail = NULL;
}

void weft__cuda_stage_release(weft_device *dev)
{
	weft__cuda_stage_complete(dev, 0);
	while (dev->stage_free) {
		struct weft__cuda_stage *b = dev->stage_free;

		dev->stage_free = b->next;
		(void)cudaEventDestroy(b->done);
		(void)cudaFreeHost(b->host);
		free(b);
	}
}

/* ---- write / read / copy ----------------------------------------------------
 */

/* A staging block for an asynchronous transfer. When pinned memory cannot
 * be had (a large transfer on a machine with little pinnable memory),
 * *b is NULL and the status WEFT_OK: the transfer then runs blocking,
 * from or into the caller's memory, which the ABI allows. */
static weft_status stage_or_none(weft_device *dev, size_t bytes,
				 struct weft__cuda_stage **b, weft_error *err)
{
	weft_status st = stage_get(dev, bytes, b, err);

	if (st == WEFT_E_NOMEM) {
		*b = NULL; /* counted as an xfer_wait by the blocking path */
		return WEFT_OK;
	}
	return st;
}

static weft_status write_async(weft_device *dev, char *dst, const void *src,
			       size_t bytes, uint64_t op,
			       struct weft__cuda_stage **bp, weft_error *err)
{
	struct weft__cuda_stage *b;
	weft_status st = stage_or_none(dev, bytes, bp, err);

	if (st != WEFT_OK || !(b = *bp))
		return st;
	memcpy(b->host, src, bytes);
	b->is_read = 0;
	b->bytes = bytes;
	b->op = op;
	st = weft__cuda_check(dev,
			      cudaMemcpyAsync(dst, b->host, bytes,
					      cudaMemcpyHostToDevice,
					      dev->stream[WEFT__CUDA_COPY]),
			      err, "asynchronous write of %zu bytes", bytes);
	if (st != WEFT_OK) {
		stage_put_free(dev, b);
		return st;
	}
	return stage_issued(dev, b, "asynchronous write", err);
}

static weft_status issue_write(weft_device *dev, weft_buf *dst, size_t offset,
			       const void *src, size_t bytes, unsigned flags,
			       weft_error *err)
{
	char *to = (char *)dst->ptr + offset;
	uint64_t op;
	weft_status st = weft__cuda_order_copy(dev, &op, err);

	if (st != WEFT_OK)
		return st;
	dst->copy_wrote = op;
	if (flags & WEFT_XFER_ASYNC) {
		struct weft__cuda_stage *b;

		st = write_async(dev, to, src, bytes, op, &b, err);
		if (st != WEFT_OK || b)
			return st;
	}
	st = weft__cuda_check(dev,
			      cudaMemcpyAsync(to, src, bytes,
					      cudaMemcpyHostToDevice,
					      dev->stream[WEFT__CUDA_COPY]),
			      err, "write of %zu bytes", bytes);
	return st == WEFT_OK
		       ? wait_own(dev, WEFT__CUDA_COPY, "write", bytes, err)
		       : st;
}

weft_status weft__cuda_write(weft_device *dev, weft_buf *dst, size_t offset,
			     const void *src, size_t bytes, unsigned flags,
			     weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_write(&weft__cuda_chk, dev, dst, offset, src, bytes,
			     flags, err);
	if (st != WEFT_OK)
		return st;
	if (bytes &&
	    ((st = weft__cuda_enter(dev, err)) ||
	     (st = issue_write(dev, dst, offset, src, bytes, flags, err))))
		return st;
	weft__stats_xfer(&dev->st, WEFT_DIR_H2D, bytes, t0);
	return WEFT_OK;
}

static weft_status read_async(weft_device *dev, void *dst, const char *src,
			      size_t bytes, uint64_t op,
			      struct weft__cuda_stage **bp, weft_error *err)
{
	struct weft__cuda_stage *b;
	weft_status st = stage_or_none(dev, bytes, bp, err);

	if (st != WEFT_OK || !(b = *bp))
		return st;
	b->is_read = 1;
	b->dst = dst;
	b->bytes = bytes;
	b->op = op;
	st = weft__cuda_check(dev,
			      cudaMemcpyAsync(b->host, src, bytes,
					      cudaMemcpyDeviceToHost,
					      dev->stream[WEFT__CUDA_COPY]),
			      err, "asynchronous read of %zu bytes", bytes);
	if (st != WEFT_OK) {
		stage_put_free(dev, b);
		return st;
	}
	return stage_issued(dev, b, "asynchronous read", err);
}

static weft_status issue_read(weft_device *dev, void *dst, weft_buf *src,
			      size_t offset, size_t bytes, unsigned flags,
			      weft_error *err)
{
	const char *from = (const char *)src->ptr + offset;
	uint64_t op;
	weft_status st = weft__cuda_order_copy(dev, &op, err);

	if (st != WEFT_OK)
		return st;
	src->copy_read = op;
	if (flags & WEFT_XFER_ASYNC) {
		struct weft__cuda_stage *b;

		st = read_async(dev, dst, from, bytes, op, &b, err);
		if (st != WEFT_OK || b)
			return st;
	}
	st = weft__cuda_check(dev,
			      cudaMemcpyAsync(dst, from, bytes,
					      cudaMemcpyDeviceToHost,
					      dev->stream[WEFT__CUDA_COPY]),
			      err, "read of %zu bytes", bytes);
	return st == WEFT_OK
		       ? wait_own(dev, WEFT__CUDA_COPY, "read", bytes, err)
		       : st;
}

weft_status weft__cuda_read(weft_device *dev, void *dst, weft_buf *src,
			    size_t offset, size_t bytes, unsigned flags,
			    weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_read(&weft__cuda_chk, dev, dst, src, offset, bytes,
			    flags, err);
	if (st != WEFT_OK)
		return st;
	if (bytes &&
	    ((st = weft__cuda_enter(dev, err)) ||
	     (st = issue_read(dev, dst, src, offset, bytes, flags, err))))
		return st;
	weft__stats_xfer(&dev->st, WEFT_DIR_D2H, bytes, t0);
	return WEFT_OK;
}

static int ranges_overlap(const weft_buf *a, size_t ao, const weft_buf *b,
			  size_t bo, size_t n)
{
	return a == b && ao < bo + n && bo < ao + n;
}

/* On the compute stream: it reads src and writes dst. */
static weft_status issue_copy(weft_device *dev, weft_buf *dst, char *to,
			      weft_buf *src, const char *from, size_t bytes,
			      void *scratch, weft_error *err)
{
	cudaStream_t s = dev->stream[WEFT__CUDA_COMPUTE];
	int wait = weft__cuda_hazard(dev, src, 0) ||
		   weft__cuda_hazard(dev, dst, 1);
	weft_status st = weft__cuda_order_compute(dev, wait, err);

	if (st == WEFT_OK && scratch)
		st = weft__cuda_check(dev,
				      cudaMemcpyAsync(scratch, from, bytes,
						      cudaMemcpyDeviceToDevice,
						      s),
				      err,
				      "overlapping copy of %zu bytes (to "
				      "scratch)",
				      bytes);
	if (st == WEFT_OK)
		st = weft__cuda_check(
			dev,
			cudaMemcpyAsync(to, scratch ? scratch : from, bytes,
					cudaMemcpyDeviceToDevice, s),
			err, "copy of %zu bytes", bytes);
	return st;
}

weft_status weft__cuda_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			    weft_buf *src, size_t src_offset, size_t bytes,
			    unsigned flags, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	void *scratch = NULL;
	weft_status st;

	st = weft__chk_copy(&weft__cuda_chk, dev, dst, dst_offset, src,
			    src_offset, bytes, flags, err);
	if (st != WEFT_OK)
		return st;
	if (bytes && (st = weft__cuda_enter(dev, err)))
		return st;
	if (bytes && ranges_overlap(dst, dst_offset, src, src_offset, bytes) &&
	    (st = weft__cuda_scratch(dev, bytes, &scratch, err)))
		return st;
	if (bytes &&
	    ((st = issue_copy(dev, dst, (char *)dst->ptr + dst_offset, src,
			      (const char *)src->ptr + src_offset, bytes,
			      scratch, err)) ||
	     (!(flags & WEFT_XFER_ASYNC) &&
	      (st = wait_own(dev, WEFT__CUDA_COMPUTE, "copy", bytes, err)))))
		return st;
	weft__stats_xfer(&dev->st, WEFT_DIR_D2D, bytes, t0);
	return WEFT_OK;
}
