/*
 * plugins/openmp/priv.h - what the OpenMP backend's files share.
 *
 * The backend runs on the host: device memory is host memory, and every
 * operation (transfer or kernel launch) is executed eagerly, in the calling
 * thread, when it is issued. That satisfies the one in-order queue of
 * weft/backend.h trivially, makes WEFT_XFER_ASYNC mean the same as a
 * blocking transfer and leaves sync() nothing to wait for.
 *
 * A device is used from one host thread at a time; OpenMP threads are
 * started only inside a transfer or a launch and have finished when it
 * returns, so the counters need no locking.
 *
 * This backend is also the example third-party backends follow: it includes
 * only <weft/backend.h>, system headers and <omp.h>. Functions shared
 * between its files are named weft__omp_* and hidden by -fvisibility=hidden;
 * the plugin exports only weft_backend_entry.
 */
#ifndef WEFT_OPENMP_PRIV_H
#define WEFT_OPENMP_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <weft/backend.h>

#include "../common/check.h"

/* Buffer alignment: a cache line, and what backend.h promises. */
#define WEFT__OMP_ALIGN 64

/* Pool size classes (memory.c): multiples of 64 bytes up to 4 KiB, then four
 * classes per power of two up to 2^63. */
#define WEFT__OMP_SMALL_MAX	4096
#define WEFT__OMP_SMALL_CLASSES (WEFT__OMP_SMALL_MAX / WEFT__OMP_ALIGN)
#define WEFT__OMP_N_CLASSES	(WEFT__OMP_SMALL_CLASSES + 4 * (64 - 12))

/* A device allocation. While live it is on the device's live list; once
 * freed it waits on its class's free list for the next allocation of that
 * class. */
struct weft_buf {
	void *ptr;	       /* WEFT__OMP_ALIGN-aligned host memory */
	size_t size;	       /* bytes the caller asked for: transfers and
				* extents are checked against it */
	unsigned cls;	       /* pool size class of ptr's block */
	int pooled;	       /* 1 while on a free list */
	struct weft_buf *prev; /* live list (unused while pooled) */
	struct weft_buf *next; /* live list, or free list while pooled */
};

/* A loaded kernel: its name (for messages) and its host build. */
struct weft__omp_kernel {
	char *name;
	weft_host_kernel_fn fn;
};

struct weft_program {
	char *name;
	struct weft__omp_kernel *kernels;
	uint32_t n_kernels;
	struct weft_program *prev, *next; /* the device's program list */
};

struct weft_device {
	int threads;	       /* OpenMP threads per parallel region */
	uint64_t host_bytes;   /* physical memory, the allocation limit */
	struct weft_buf *live; /* buffers handed out and not freed */
	struct weft_buf *pool[WEFT__OMP_N_CLASSES]; /* free lists */
	struct weft_program *programs;
	uint64_t fences; /* token of the last fence() (0: none yet) */
	weft_stats st;
};

/* plugin.c: write "openmp: ..." into err (which may be NULL); returns st. */
weft_status weft__omp_fail(weft_error *err, weft_status st, const char *fmt,
			   ...) WEFT_PRINTF(3, 4);

/* memory.c */
weft_status weft__omp_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err);
void weft__omp_free(weft_device *dev, weft_buf *buf);
/* native(): the buffer's host memory (ABI 1.2). */
weft_status weft__omp_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err);
/* Release every buffer, live or pooled (close). */
void weft__omp_memory_release(weft_device *dev);

/* transfer.c */
weft_status weft__omp_write(weft_device *dev, weft_buf *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags,
			    weft_error *err);
weft_status weft__omp_read(weft_device *dev, void *dst, weft_buf *src,
			   size_t offset, size_t bytes, unsigned flags,
			   weft_error *err);
weft_status weft__omp_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			   weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err);

/* launch.c */
weft_status weft__omp_load_program(weft_device *dev,
				   const weft_program_desc *desc,
				   weft_program **out, weft_error *err);
void weft__omp_unload_program(weft_device *dev, weft_program *prog);
weft_status weft__omp_step(weft_device *dev, weft_program *prog,
			   const weft_launch *launches, uint32_t n_launches,
			   uint64_t n_steps, weft_error *err);
/* Unload every program still loaded (close). */
void weft__omp_programs_release(weft_device *dev);

/* Monotonic clock in nanoseconds, for the per-phase times. */
static inline uint64_t weft__omp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* plugin.c: the shared argument checks (plugins/common/check.h). */
extern const weft__chk_ops weft__omp_chk;

#endif /* WEFT_OPENMP_PRIV_H */
