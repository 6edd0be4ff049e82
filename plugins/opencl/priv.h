/*
 * plugins/opencl/priv.h - what the OpenCL backend's files share.
 *
 * The backend runs a model's portable kernel source, compiled at run time
 * as OpenCL C 1.2 behind the prelude of prelude.c, on one device of an
 * OpenCL platform found through the ICD loader (libOpenCL). Each opened
 * device has its own context and one in-order command queue: every
 * transfer and launch is enqueued there, so issue order is execution
 * order, and step() returns as soon as its launches are enqueued.
 *
 * Host memory for transfers goes through a staging area of pinned host
 * memory (a CL_MEM_ALLOC_HOST_PTR buffer mapped once for the device's
 * life), see transfer.c. Programs are built at run time (compile.c) and
 * cached on disk (cache.c). What the first-party backends share
 * (argument checks, messages, counters, the memory pool, program names,
 * the disk cache) is plugins/common.
 *
 * A device is used from one host thread at a time (cl_kernel arguments and
 * the counters are not locked). Functions shared between the backend's
 * files are named weft__ocl_* and hidden by -fvisibility=hidden; the
 * plugin exports only weft_backend_entry.
 */
#ifndef WEFT_OPENCL_PRIV_H
#define WEFT_OPENCL_PRIV_H

#define CL_TARGET_OPENCL_VERSION 120

#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>
#include <weft/backend.h>

#include "../common/cache.h"
#include "../common/check.h"
#include "../common/error.h"
#include "../common/pool.h"
#include "../common/program.h"
#include "../common/stats.h"

/* Smallest block handed to clCreateBuffer (the pool's granularity).
 * Buffer alignment itself comes from OpenCL (CL_DEVICE_MEM_BASE_ADDR_ALIGN,
 * checked at open to be >= 512 bits). */
#define WEFT__OCL_GRAIN		 WEFT__POOL_GRAIN
#define WEFT__OCL_MIN_ALIGN_BITS 512

/* Pinned staging area for transfers (transfer.c). */
#define WEFT__OCL_STAGE_BYTES ((size_t)8 << 20)

/* Fences kept by token (plugin.c); waiting on an older one waits on the
 * fence that took its place, FENCES tokens later. */
#define WEFT__OCL_FENCES 16

/* Names kept for messages and cache keys. */
#define WEFT__OCL_NAME_MAX 160

/* A device allocation: live or pooled (plugins/common/pool.h), keeping
 * its cl_mem (of pb.block bytes) while pooled for the next request. */
struct weft_buf {
	struct weft__pool_buf pb;
	cl_mem mem;
};

/* A kernel of a loaded program. set_for is the launch whose arguments the
 * cl_kernel holds during a step() (-1: none yet), so that a launch list
 * repeated n times sets each kernel's arguments once. */
struct weft__ocl_kernel {
	cl_kernel k;
	int64_t set_for;
};

/* A loaded program: its names (plugins/common/program.h), the built
 * cl_program and a cl_kernel per kernel. */
struct weft_program {
	struct weft__prog pg;
	cl_program prog;
	struct weft__ocl_kernel kernels[]; /* pg.n_kernels */
};

/* An asynchronous transfer staged in the pinned area, holding part of it
 * until known complete: at sync(), the next blocking transfer, or wait()
 * on a fence issued after it. A read is then copied to dst; a write (dst
 * NULL) only gives its part back. */
struct weft__ocl_pending {
	void *dst;
	size_t at;    /* offset in the staging area */
	size_t take;  /* bytes of the area it holds (a multiple of 64) */
	size_t bytes; /* bytes transferred */
	uint64_t seq; /* issue number among staged transfers */
};

/* A fence: a marker in the queue, and the staged transfers before it. */
struct weft__ocl_fence {
	uint64_t token;
	uint64_t seq; /* staged transfers issued before it */
	cl_event ev;  /* NULL once waited for */
};

/* What identifies a device in messages and in cache keys. */
struct weft__ocl_names {
	char device[WEFT__OCL_NAME_MAX];
	char device_version[WEFT__OCL_NAME_MAX];
	char driver_version[WEFT__OCL_NAME_MAX];
	char platform[WEFT__OCL_NAME_MAX];
	char platform_version[WEFT__OCL_NAME_MAX];
};

struct weft_device {
	cl_platform_id platform;
	cl_device_id id;
	unsigned index; /* among the devices of the selected platforms */
	cl_context ctx;
	cl_command_queue queue;
	struct weft__ocl_names names;
	int is_gpu;
	cl_ulong max_alloc;  /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
	cl_ulong global_mem; /* CL_DEVICE_GLOBAL_MEM_SIZE */
	uint64_t held;	     /* bytes of blocks held, live and pooled */
	size_t max_items;    /* most work items one launch starts */
	cl_mem dummy;	     /* bound to unused kernel arguments */

	/* Pinned staging (transfer.c), used as a ring: the staged
	 * asynchronous transfers not yet known complete hold their parts in
	 * issue order (`pending`, the oldest first); the next one goes at
	 * stage_head, or at 0 when the end has no room. */
	cl_mem stage;
	unsigned char *stage_ptr;
	size_t stage_size;
	size_t stage_head;
	struct weft__ocl_pending *pending;
	size_t n_pending, cap_pending;
	uint64_t staged; /* staged transfers issued: the next one's seq */

	/* Fences (plugin.c): token t is fences[t % WEFT__OCL_FENCES]. */
	struct weft__ocl_fence fences[WEFT__OCL_FENCES];
	uint64_t last_fence; /* token of the last fence (0: none) */
	uint64_t done_fence; /* every fence up to this one has completed */

	/* What the device computes exactly (device.c, read at open): the
	 * WEFT_CAP_* bits, why any is missing, and the clBuildProgram options
	 * that follow from them (part of the cache key). */
	uint32_t caps;
	char caps_detail[256];
	char build_options[160];

	char *cache_dir; /* NULL: no binary cache */
	weft__pool pool; /* live buffers and freed blocks */
	struct weft__prog *programs;
	/* WEFT_DEVICE_PROFILE: the queue profiles, and launches being timed
	 * keep their events in `timing` (launch.c) until harvested. */
	int profile;
	weft__kring timing;
	uint64_t timing_issued; /* timed launches issued (TIMED_FLUSH) */
	weft_stats st;
};

/* Write "opencl: ..." into err (which may be NULL); returns st. */
#define weft__ocl_fail(err, st, ...) \
	weft__errf("opencl", (err), (st), __VA_ARGS__)
/* A failed OpenCL call: "opencl: device 'NAME': CALL failed: CL_X (-n):
 * what" with the status that fits the code (NOMEM for allocation errors,
 * DEVICE otherwise). */
weft_status weft__ocl_cl_fail(const weft_device *dev, weft_error *err,
			      const char *call, cl_int code, const char *fmt,
			      ...) WEFT_PRINTF(5, 6);
/* "CL_OUT_OF_RESOURCES" for -5; "unknown OpenCL error" otherwise. */
const char *weft__ocl_err_name(cl_int code);
/* Drain the queue (clFinish) and complete the staged asynchronous reads. */
weft_status weft__ocl_finish(weft_device *dev, const char *why,
			     weft_error *err);

/* device.c: platforms and devices. */
/* What probe() reports. */
void weft__ocl_survey(int *available, int *score, char *reason,
		      size_t reason_size, char *devices, size_t devices_size);
/* The device cfg asks for, with its platform; a message naming what was
 * asked and what exists when there is none. *index: its number among the
 * devices of the selected platforms. */
weft_status weft__ocl_select(const weft_device_config *cfg,
			     cl_platform_id *platform, cl_device_id *device,
			     unsigned *index, weft_error *err);
/* Read what the device computes exactly into dev->caps, caps_detail
 * and build_options (dev->id and names set). WEFT_OPENCL_NO_FP64=1 in the
 * environment makes it a device without fp64 (a testing aid). */
weft_status weft__ocl_read_caps(weft_device *dev, weft_error *err);
/* caps() (ABI 1.5). */
weft_status weft__ocl_caps(weft_device *dev, weft_device_caps *out,
			   weft_error *err);
/* Text of a device or platform string property (cut to fit). */
void weft__ocl_device_str(cl_device_id d, cl_device_info what, char *out,
			  size_t size);
void weft__ocl_platform_str(cl_platform_id p, cl_platform_info what, char *out,
			    size_t size);

/* memory.c */
/* An empty pool for a device being opened. */
void weft__ocl_memory_init(weft_device *dev);
weft_status weft__ocl_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err);
void weft__ocl_free(weft_device *dev, weft_buf *buf);
/* native(): the buffer's cl_mem (ABI 1.2). */
weft_status weft__ocl_mem_info(weft_device *dev, weft_mem_info *out,
			       weft_error *err);
weft_status weft__ocl_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err);
/* Release every buffer, live or pooled (close). */
void weft__ocl_memory_release(weft_device *dev);

/* transfer.c */
/* Create and map the pinned staging area (open); release it (close). */
weft_status weft__ocl_stage_open(weft_device *dev, weft_error *err);
void weft__ocl_stage_close(weft_device *dev);
/* Complete the staged asynchronous transfers numbered below seq (their
 * commands have run): copy the reads out, in issue order, and give their
 * parts of the area back. UINT64_MAX: all (the queue has drained). */
void weft__ocl_complete_staged(weft_device *dev, uint64_t seq);
weft_status weft__ocl_write(weft_device *dev, weft_buf *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags,
			    weft_error *err);
weft_status weft__ocl_read(weft_device *dev, void *dst, weft_buf *src,
			   size_t offset, size_t bytes, unsigned flags,
			   weft_error *err);
weft_status weft__ocl_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			   weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err);

/* prelude.c: the OpenCL C definition of the kernel dialect. */
extern const char weft__ocl_prelude[];
/* Options every program is built with; read_caps() adds the device's
 * (dev->build_options, part of the cache key). */
extern const char weft__ocl_build_options[];

/* compile.c: the built program for desc (its portable source behind the
 * prelude and a #line directive): from the cache when an entry matches,
 * else compiled by the driver (and cached). Counts a cache hit or miss. */
weft_status weft__ocl_build(weft_device *dev, const weft_program_desc *desc,
			    cl_program *out, weft_error *err);

/* cache.c: compiled programs on disk (plugins/common/cache.h), keyed by
 * everything that could change the binary. Failures are never errors: a
 * miss compiles. */
/* 0 when the key was computed. */
int weft__ocl_cache_key(const weft_device *dev, const char *const *texts,
			const size_t *lens, unsigned n_texts,
			weft__cache_key *key);
/* A built program from the cache, or NULL (missing, unreadable, corrupt,
 * or refused by the driver). */
cl_program weft__ocl_cache_load(weft_device *dev, const weft__cache_key *key);
/* Store prog's binary; silently does nothing when it cannot. */
void weft__ocl_cache_store(weft_device *dev, const weft__cache_key *key,
			   cl_program prog);

/* launch.c */
weft_status weft__ocl_load_program(weft_device *dev,
				   const weft_program_desc *desc,
				   weft_program **out, weft_error *err);
void weft__ocl_unload_program(weft_device *dev, weft_program *prog);
weft_status weft__ocl_step(weft_device *dev, weft_program *prog,
			   const weft_launch *launches, uint32_t n_launches,
			   uint64_t n_steps, weft_error *err);
weft_status weft__ocl_step_replicas(weft_device *dev, weft_program *prog,
				    const weft_launch *launches,
				    const weft_replica_layout *layouts,
				    uint32_t n_launches, uint32_t replicas,
				    uint64_t n_steps, weft_error *err);
/* Unload every program still loaded (close). */
void weft__ocl_programs_release(weft_device *dev);
/* Per-kernel timing (WEFT_DEVICE_PROFILE): room for the launches' events
 * (open; nothing without profiling), harvest the completed ones (never
 * waits: sync(), wait(), kernel_stats()), release them all (close, once
 * the queue has drained). */
weft_status weft__ocl_timing_open(weft_device *dev, weft_error *err);
void weft__ocl_timing_harvest(weft_device *dev);
void weft__ocl_timing_close(weft_device *dev);
/* kernel_stats() (ABI 1.5). */
weft_status weft__ocl_kernel_stats(weft_device *dev, weft_program *prog,
				   weft_kernel_stat *out, uint32_t n,
				   weft_error *err);

/* plugin.c: the shared argument checks (plugins/common/check.h). */
extern const weft__chk_ops weft__ocl_chk;

#endif /* WEFT_OPENCL_PRIV_H */
