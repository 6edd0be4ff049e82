/*
 * plugins/openmp/transfer.c - moving bytes between the application and
 * device buffers, and between buffers.
 *
 * Every transfer is bounds-checked, then executed at once in the calling
 * thread (large ones split across the device's OpenMP threads), so that
 * issue order is completion order and WEFT_XFER_ASYNC needs no queue: an
 * asynchronous transfer is simply complete before it returns.
 *
 * A transfer of 0 bytes is valid and is counted like any other: the
 * counters count transfers issued, so that a caller's count of transfers
 * per step does not depend on the sizes involved.
 *
 * Copies within one buffer may overlap; they behave like memmove().
 */
#include "config.h"

#include <omp.h>
#include <string.h>

#include "priv.h"

/* Least bytes per thread for which a copy is split across threads: below
 * that, starting threads costs more than it saves. */
#define COPY_MIN_CHUNK ((size_t)512 * 1024)

static int ranges_overlap(const void *a, const void *b, size_t n)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + n && y < x + n;
}

static void copy_bytes(weft_device *dev, void *dst, const void *src, size_t n)
{
	size_t nt = n / COPY_MIN_CHUNK;

	if (nt > 1) {
		size_t team = (size_t)weft__omp_team(dev);

		nt = nt < team ? nt : team;
	}
	if (nt <= 1 || ranges_overlap(dst, src, n)) {
		memmove(dst, src, n);
		return;
	}
#pragma omp parallel num_threads((int)nt)
	{
		size_t k = (size_t)omp_get_num_threads();
		size_t t = (size_t)omp_get_thread_num();
		/* Contiguous chunks on cache-line boundaries. */
		size_t chunk = ((n + k - 1) / k + WEFT__OMP_ALIGN - 1) &
			       ~(size_t)(WEFT__OMP_ALIGN - 1);
		size_t begin = t * chunk < n ? t * chunk : n;
		size_t end = n - begin < chunk ? n : begin + chunk;

		memcpy((char *)dst + begin, (const char *)src + begin,
		       end - begin);
	}
}

weft_status weft__omp_write(weft_device *dev, weft_buf *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags,
			    weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_write(&weft__omp_chk, dev, dst, offset, src, bytes,
			     flags, err);
	if (st != WEFT_OK)
		return st;
	if (bytes)
		copy_bytes(dev, (char *)dst->ptr + offset, src, bytes);
	weft__stats_xfer(&dev->st, WEFT_DIR_H2D, bytes, t0);
	return WEFT_OK;
}

weft_status weft__omp_read(weft_device *dev, void *dst, weft_buf *src,
			   size_t offset, size_t bytes, unsigned flags,
			   weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_read(&weft__omp_chk, dev, dst, src, offset, bytes, flags,
			    err);
	if (st != WEFT_OK)
		return st;
	if (bytes)
		copy_bytes(dev, dst, (const char *)src->ptr + offset, bytes);
	weft__stats_xfer(&dev->st, WEFT_DIR_D2H, bytes, t0);
	return WEFT_OK;
}

weft_status weft__omp_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			   weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_copy(&weft__omp_chk, dev, dst, dst_offset, src,
			    src_offset, bytes, flags, err);
	if (st != WEFT_OK)
		return st;
	if (bytes)
		copy_bytes(dev, (char *)dst->ptr + dst_offset,
			   (const char *)src->ptr + src_offset, bytes);
	weft__stats_xfer(&dev->st, WEFT_DIR_D2D, bytes, t0);
	return WEFT_OK;
}
