/*
 * weft/program.h - what backends and models share: device buffers, a
 * model's program (its kernels, as portable source and as host builds)
 * and the kernel launches of a step.
 *
 * A model declares these (weft/model.h: weft_model_alloc() gives it
 * buffers, its descriptor names its program, weft_model_set_step() takes
 * its launches); a backend receives them (weft/backend.h: alloc(),
 * load_program(), step()). The core passes them from one to the other
 * unchanged, so both headers include this one and neither includes the
 * other: a model never sees a backend's table, a backend never sees a
 * model's API.
 *
 * Everything here is part of the backend ABI (WEFT_BACKEND_ABI_MAJOR in
 * weft/backend.h) and grows only by appending.
 */
#ifndef WEFT_PROGRAM_H
#define WEFT_PROGRAM_H

#include <weft/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most buffers one kernel launch binds. */
#define WEFT_KERNEL_MAX_BUFS 12

typedef struct weft_buf weft_buf;	  /* device allocation */
typedef struct weft_program weft_program; /* a model's loaded kernels */

/* ---- programs: a model's kernels ------------------------------------- */

/* What a host-compiled kernel receives. buf[k] is the host address of the
 * k-th bound buffer; extent is the launch extent (read from the device
 * when the launch has a device-side extent). */
typedef struct weft_kargs {
	void *buf[WEFT_KERNEL_MAX_BUFS];
	uint32_t extent;
} weft_kargs;

/* A kernel compiled into the model for host backends: runs the work items
 * begin..end-1 (end <= extent). Safe to call concurrently on disjoint
 * ranges. */
typedef void (*weft_host_kernel_fn)(const weft_kargs *ka, uint32_t begin,
				    uint32_t end);

typedef struct weft_kernel_desc {
	const char *name;	     /* entry point in the portable source */
	weft_host_kernel_fn host_fn; /* the same kernel compiled as C */
} weft_kernel_desc;

typedef struct weft_program_desc {
	uint32_t struct_size;
	const char *name;   /* model name: messages and cache keys */
	const char *source; /* portable kernel source, without prelude */
	size_t source_len;  /* bytes of source; the core always sets it */
	const weft_kernel_desc *kernels;
	uint32_t n_kernels;
	/* Backend ABI 1.5 (read only when struct_size covers it): the
	 * WEFT_CAP_* bits (weft/backend.h) the kernels need, which weft-wk
	 * derives from the source (weft_f64 needs WEFT_CAP_F64, ...). The
	 * core refuses a device without them before loading the program. */
	uint32_t needs;
} weft_program_desc;

/* The size of the first published layout of weft_program_desc: readers
 * accept anything at least this large and use only the fields that fit. */
#define WEFT_PROGRAM_DESC_V1_0_SIZE \
	(offsetof(weft_program_desc, n_kernels) + sizeof(uint32_t))
/* The layout with needs (backend ABI 1.5). */
#define WEFT_PROGRAM_DESC_V1_5_SIZE \
	(offsetof(weft_program_desc, needs) + sizeof(uint32_t))

/* ---- launches ---------------------------------------------------------- */

/* One kernel launch of a step. When extent_buf is set, the launch runs
 * min(extent, *(uint32_t *)(extent_buf + extent_offset)) work items, the
 * count being read on the device when the launch executes: extent is then
 * the capacity (the most items the count can reach). */
typedef struct weft_launch {
	uint32_t kernel; /* index into the program's kernels */
	uint32_t n_bufs;
	weft_buf *bufs[WEFT_KERNEL_MAX_BUFS];
	uint32_t extent;
	weft_buf *extent_buf;
	uint32_t extent_offset; /* bytes, multiple of 4 */
} weft_launch;

#ifdef __cplusplus
}
#endif

#endif /* WEFT_PROGRAM_H */
