/*
 * weft/common.h - definitions shared by every weft header: status codes,
 * export macros and the fixed-size error buffer.
 *
 * Nothing here depends on a backend or a model.
 */
#ifndef WEFT_COMMON_H
#define WEFT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WEFT_EXPORT	       __attribute__((visibility("default")))
#define WEFT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define WEFT_EXPORT
#define WEFT_PRINTF(fmt, args)
#endif

/* Every action function returns one of these; results come back through
 * out-parameters. Negative values are failures. */
typedef enum weft_status {
	WEFT_OK = 0,
	WEFT_E_INVALID = -1,	 /* bad argument from the caller */
	WEFT_E_NOMEM = -2,	 /* host or device memory exhausted */
	WEFT_E_IO = -3,		 /* file system error */
	WEFT_E_CONFIG = -4,	 /* bad configuration file or override */
	WEFT_E_PLUGIN = -5,	 /* a plugin could not be loaded */
	WEFT_E_UNAVAILABLE = -6, /* backend present but cannot run here */
	WEFT_E_DEVICE = -7,	 /* device or driver failure */
	WEFT_E_MODEL = -8,	 /* model setup or data error */
	WEFT_E_UNSUPPORTED = -9, /* operation not offered by this backend */
	WEFT_E_INTERNAL = -10,	 /* a broken invariant: a bug in weft */
	WEFT_E_CANCELLED = -11	 /* stopped by weft_context_cancel() */
} weft_status;

/* Fixed-size message buffer handed to plugin and model code, so that no
 * allocation is needed to report an allocation failure. */
#define WEFT_ERROR_MAX 512
typedef struct weft_error {
	char msg[WEFT_ERROR_MAX];
} weft_error;

/* Transfer directions and timed phases, indexes into weft_stats. */
enum weft_dir {
	WEFT_DIR_H2D = 0,
	WEFT_DIR_D2H = 1,
	WEFT_DIR_D2D = 2,
	WEFT_DIR_COUNT = 3
};

enum weft_phase {
	WEFT_PHASE_ALLOC = 0,
	WEFT_PHASE_TRANSFER = 1,
	WEFT_PHASE_LOAD = 2,
	WEFT_PHASE_KERNEL = 3,
	WEFT_PHASE_SYNC = 4,
	WEFT_PHASE_COUNT = 5
};

typedef struct weft_stats {
	uint32_t struct_size;  /* set by the caller; fill only what fits */
	uint64_t allocs;       /* allocations served by the system */
	uint64_t pool_reuses;  /* allocations served from the pool */
	uint64_t frees;	       /* buffers returned (to the pool) */
	uint64_t bytes_in_use; /* live allocation bytes */
	uint64_t bytes_peak;   /* high-water mark of bytes_in_use */
	uint64_t xfer_count[WEFT_DIR_COUNT];
	uint64_t xfer_bytes[WEFT_DIR_COUNT];
	uint64_t launches; /* kernel launches executed or enqueued */
	uint64_t steps;	   /* model steps enqueued by step() */
	uint64_t syncs;	   /* host waits for the device */
	uint64_t time_ns[WEFT_PHASE_COUNT];
	/* ABI 1.1: backends that compile at run time. */
	uint64_t cache_hits;   /* programs loaded from the on-disk cache */
	uint64_t cache_misses; /* programs compiled (and cached if possible) */
	/* ABI 1.1: backends that capture a step's launches once and replay
	 * them (CUDA graphs). */
	uint64_t graph_captures; /* launch lists captured and instantiated */
	uint64_t graph_launches; /* captured graphs launched by step() */
	/* ABI 1.1: backends that stage host transfers in pinned memory. */
	uint64_t staging_allocs; /* pinned staging blocks allocated */
	uint64_t staging_reuses; /* transfers served by a pooled block */
	uint64_t xfer_waits;	 /* blocking transfers that waited for the
				  * device (not counted in syncs) */
	/* ABI 1.1: backends with fence() and wait(). */
	uint64_t fence_waits; /* wait() calls (not counted in syncs) */
} weft_stats;

/* Where a buffer's bytes live, in the terms of the runtime that holds them,
 * so that another library can use them without a copy (as DLPack's
 * DLTensor data and device do). Filled by a backend's native() (backend
 * ABI 1.2, weft/backend.h) and handed on by APIs such as
 * weft_cartpole_device_array() (weft/cartpole.h). */
typedef enum weft_native_kind {
	WEFT_NATIVE_HOST = 1,  /* handle: host memory, a `void *` the
				* process can read and write */
	WEFT_NATIVE_CUDA = 2,  /* handle: a CUDA device pointer (what
				* cudaMalloc returns; a CUdeviceptr) on the
				* CUDA device numbered `device` */
	WEFT_NATIVE_OPENCL = 3 /* handle: a cl_mem; its context is
				* clGetMemObjectInfo(CL_MEM_CONTEXT) */
} weft_native_kind;

typedef struct weft_native {
	uint32_t struct_size; /* set by the caller; fill only what fits */
	uint32_t kind;	      /* a weft_native_kind */
	int32_t device;	      /* the device in the backend's numbering,
			       * which for CUDA is the CUDA device ordinal
			       * (DLPack's device_id); 0 for the host */
	void *handle;	      /* as `kind` says; never NULL for a live buffer */
	size_t offset;	      /* the buffer's first byte is at this byte of
			       * the object `handle` names (0 unless the
			       * backend sub-allocates) */
	size_t bytes;	      /* bytes of the buffer (as asked for at alloc;
			       * the object may be larger) */
} weft_native;

/* The first published layout: a weft_native's struct_size is at least
 * this. */
#define WEFT_NATIVE_V1_2_SIZE (offsetof(weft_native, bytes) + sizeof(size_t))

/* Element types of typed views (weft_model_array, weft_sim_array), coded
 * as DLPack codes them: (type code << 8) | bits, with DLPack's kDLInt 0,
 * kDLUInt 1, kDLFloat 2. */
typedef enum weft_dtype {
	WEFT_DTYPE_I8 = (0 << 8) | 8,
	WEFT_DTYPE_I16 = (0 << 8) | 16,
	WEFT_DTYPE_I32 = (0 << 8) | 32,
	WEFT_DTYPE_I64 = (0 << 8) | 64,
	WEFT_DTYPE_U8 = (1 << 8) | 8,
	WEFT_DTYPE_U16 = (1 << 8) | 16,
	WEFT_DTYPE_U32 = (1 << 8) | 32,
	WEFT_DTYPE_U64 = (1 << 8) | 64,
	WEFT_DTYPE_F32 = (2 << 8) | 32,
	WEFT_DTYPE_F64 = (2 << 8) | 64
} weft_dtype;

/* Bytes of one element of a dtype (bits / 8). */
#define WEFT_DTYPE_BYTES(t) (((unsigned)(t)&0xffu) / 8u)

/* Transfer flags (backend transfers, weft_sim_read/write). */
enum {
	WEFT_XFER_ASYNC = 1u << 0 /* return before completion; the memory
				   * must stay untouched until a sync or the
				   * wait on a fence issued after it */
};

/* Short name of a status code ("invalid argument", ...). Never NULL. */
WEFT_EXPORT const char *weft_status_str(weft_status st);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_COMMON_H */
